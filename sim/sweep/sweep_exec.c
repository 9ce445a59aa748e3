/* sweep_exec.c -- worker processes and shards (see sweep_exec.h).
 *
 * Why processes and not threads: a run is a whole sim_ctx with its own
 * SQLite writer thread, and a process per worker keeps every worker's
 * memory, file handles and failures apart (a crash in one run loses one
 * worker, not the sweep's bookkeeping).  The only shared state is three
 * counters in an anonymous shared mapping.
 *
 * Signals: the parent blocks the stop signals (stop_signals.h) before forking and
 * waits for them with sigtimedwait() between its checks on the workers (no
 * handler, no global flag); the workers unblock them, so a Ctrl-C stops
 * every process of the group at once.  The parent then kills the workers
 * still alive (by their pids), reaps them and reports.  A worker killed
 * mid-shard leaves that shard's temporary file, never a shard that looks
 * finished; the shards it closed before hold finished runs, which the
 * caller keeps for --resume (sweep_parts.c).  A worker whose parent is
 * gone (killed with SIGKILL) claims no more runs and keeps no shard.  The
 * sweep database is only created after every run has succeeded.
 */
#define _DEFAULT_SOURCE            /* MAP_ANONYMOUS (POSIX only from 2024) */
#include "sweep/sweep_exec.h"
#include "engine/engine.h"
#include "base/mem.h"
#include "base/stop_signals.h"
#include "store/timeline.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "shared counters need lock-free atomics");

typedef struct shared {
    atomic_llong next;             /* index into the runs to do of the next claim */
    atomic_llong done;             /* runs finished */
    atomic_int stop;               /* claim nothing more */
} shared;

typedef struct claim {
    shared *sh;                    /* NULL: just `only` */
    int64_t only;
    const sweep_todo *todo;
    pid_t parent;                  /* a worker stops when its parent is gone */
    volatile const sig_atomic_t *interrupted;   /* the runs stop when it is set, or NULL */
} claim;

/* A worker whose parent is gone (killed outright) keeps nothing: a
 * --resume may already be running the runs it has not handed in. */
static bool is_orphan(const claim *c)
{
    return c->sh && getppid() != c->parent;
}

/* The next run id for this worker, or 0 when there is none. */
static int64_t next_run(claim *c)
{
    if (!c->sh) {
        int64_t r = c->only;
        c->only = 0;
        return r;
    }
    if (atomic_load(&c->sh->stop) || is_orphan(c))
        return 0;
    long long i = atomic_fetch_add(&c->sh->next, 1);
    return i < c->todo->n ? c->todo->runs[i] : 0;
}

static int one_run(const sweep_spec *s, int64_t run_id, const claim *c, timeline *tl, char *err,
                   size_t errsize)
{
    cfg_doc doc;
    run *r;
    sim_diag d = { 0 };
    int rc = sweep_build_run(s, run_id, &doc, &r, &d);
    if (rc != SIM_OK) {
        diag_format(&d, err, errsize);
        rc = SIM_EINPUT;
    } else {
        r->ctx->interrupted = c->interrupted;       /* a plan's job: a signal stops it */
        if (run_execute(r, tl, NULL, err, errsize) != SIM_OK)
            rc = SIM_EIO;
    }
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where the runs go: one file (a plan's job), or shards in a folder, each
 * named after its first run and closed once it has been open SHARD_SECONDS. */
typedef struct shard_out {
    const char *path;              /* one file; or NULL and ... */
    const char *dir;               /* ... shards in this folder */
    int width;                     /* digits of the run numbers in their names */
    double seconds;                /* how long a shard stays open */
    timeline *tl;                  /* the shard open now, or NULL */
    double opened;
} shard_out;

static int shard_begin(const sweep_spec *s, shard_out *o, int64_t run_id, char *err,
                       size_t errsize)
{
    strbuf b = { 0 };
    if (o->path)
        sb_add(&b, o->path);
    else
        sb_addf(&b, "%s/shard-%0*lld.db", o->dir, o->width, (long long)run_id);
    o->tl = timeline_open(b.s, err, errsize);
    sb_free(&b);
    if (!o->tl)                    /* a plan job's --out is the user's: bad input */
        return o->path ? SIM_EINPUT : SIM_EIO;
    o->opened = wall_seconds();
    if (sweep_write_settings(timeline_db(o->tl), s) != 0) {
        snprintf(err, errsize, "%s: cannot write the sweep table", timeline_path(o->tl));
        return SIM_EIO;
    }
    return SIM_OK;
}

/* Closes the open shard: renamed into place when `keep` and all went well. */
static int shard_end(shard_out *o, bool keep, char *err, size_t errsize)
{
    char cerr[SIM_ERROR_SIZE];
    int rc = timeline_close(o->tl, keep, cerr, sizeof cerr);
    o->tl = NULL;
    if (rc != 0 && keep) {
        snprintf(err, errsize, "%s", cerr);
        return SIM_EIO;
    }
    return SIM_OK;
}

/* Runs what `c` hands out into the shards of `o`.  A shard is kept only
 * when every run in it finished: a failed run takes its shard's other runs
 * with it (at most SHARD_SECONDS of work). */
static int write_shards(const sweep_spec *s, shard_out *o, claim *c, char *err, size_t errsize)
{
    int rc = SIM_OK;
    for (int64_t run_id; rc == SIM_OK && (run_id = next_run(c)) > 0;) {
        if (!o->tl)
            rc = shard_begin(s, o, run_id, err, errsize);
        if (rc == SIM_OK)
            rc = one_run(s, run_id, c, o->tl, err, errsize);
        if (rc == SIM_OK && c->sh)
            atomic_fetch_add(&c->sh->done, 1);
        if (rc == SIM_OK && !o->path && wall_seconds() - o->opened >= o->seconds)
            rc = shard_end(o, !is_orphan(c), err, errsize);
    }
    if (o->tl) {
        int crc = shard_end(o, rc == SIM_OK && !is_orphan(c), err, errsize);
        if (rc == SIM_OK)
            rc = crc;
    }
    return rc;
}

int sweep_shard_one(const sweep_spec *s, int64_t run_id, const char *path,
                    volatile const sig_atomic_t *interrupted, char *err, size_t errsize)
{
    claim c = { .only = run_id, .interrupted = interrupted };
    shard_out o = { .path = path };
    return write_shards(s, &o, &c, err, errsize);
}

/* ---- workers ------------------------------------------------------------------------ */

static int digits(int64_t n)
{
    int d = 1;
    while (n >= 10)
        n /= 10, d++;
    return d;
}

/* SWEEP_SHARD_SECONDS, or LSIM_SHARD_SECONDS from the environment (the
 * tests shorten it; results do not depend on it, only where shards end). */
static double shard_seconds(void)
{
    const char *v = getenv("LSIM_SHARD_SECONDS");
    char *end;
    double x = v ? strtod(v, &end) : 0;
    return v && end != v && !*end && x >= 0.01 && x <= 3600 ? x : SWEEP_SHARD_SECONDS;
}

/* A worker's whole life; returns its exit status. */
static int worker_main(const sweep_spec *s, const sweep_todo *todo, shared *sh, pid_t parent,
                       const char *dir)
{
    char err[SIM_ERROR_SIZE] = "";
    claim c = { .sh = sh, .todo = todo, .parent = parent };
    shard_out o = { .dir = dir, .width = digits(s->nruns), .seconds = shard_seconds() };
    int rc = write_shards(s, &o, &c, err, sizeof err);
    if (rc != SIM_OK) {
        atomic_store(&sh->stop, 1);
        fprintf(stderr, "lsim: %s\n", err);
    }
    return rc == SIM_OK ? 0 : rc == SIM_EINPUT ? 2 : 1;
}

typedef struct watch {
    pid_t *pids;                   /* 0 once reaped */
    int n, alive;
    shared *sh;
    int64_t nruns, done_before;    /* the sweep's runs; those done before this start */
    bool progress;
    double started, shown;
    int signal;                    /* the stop signal received, or 0 */
    int worst;                     /* SIM_OK, SIM_EINPUT or SIM_EIO */
    char *err;
    size_t errsize;
} watch;

/* "42 s", "3m05s", "1h02m". */
static void format_seconds(double t, char *buf, size_t size)
{
    long s = (long)(t + 0.5);
    if (s < 60)
        snprintf(buf, size, "%ld s", s);
    else if (s < 3600)
        snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, size, "%ldh%02ldm", s / 3600, s % 3600 / 60);
}

static void show_progress(watch *w, bool last)
{
    double now = wall_seconds(), el = now - w->started;
    if (!w->progress || (!last && (el < 1.0 || now - w->shown < 0.25)))
        return;
    if (last) {
        if (w->shown > 0)
            fputs("\r\033[K", stderr);
        return;
    }
    w->shown = now;
    long long now_done = atomic_load(&w->sh->done), done = w->done_before + now_done;
    char elapsed[32], left[32];
    format_seconds(el, elapsed, sizeof elapsed);
    fprintf(stderr, "\r\033[K[lsim] sweep: %lld/%lld runs, %s", done, (long long)w->nruns,
            elapsed);
    if (now_done > 0) {
        format_seconds(el / (double)now_done * (double)(w->nruns - done), left, sizeof left);
        fprintf(stderr, ", about %s left", left);
    }
}

static void stop_all(watch *w)
{
    atomic_store(&w->sh->stop, 1);
    for (int i = 0; i < w->n; i++)
        if (w->pids[i] > 0)
            kill(w->pids[i], SIGTERM);
}

/* A worker has ended with `status`. */
static void reaped(watch *w, int status)
{
    w->alive--;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && w->worst == SIM_OK)
        w->worst = SIM_EINPUT;
    else
        w->worst = SIM_EIO;
    if (WIFSIGNALED(status) && !w->signal)
        snprintf(w->err, w->errsize, "a worker died of signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    atomic_store(&w->sh->stop, 1);
}

/* Waits for every worker, watching for signals and showing progress. */
static void supervise(watch *w, const sigset_t *stop_set)
{
    while (w->alive > 0) {
        struct timespec tick = { 0, 100 * 1000 * 1000 };
        int sig = sigtimedwait(stop_set, NULL, &tick);
        if (sig > 0 && !w->signal) {
            w->signal = sig;
            stop_all(w);
        }
        for (int i = 0; i < w->n; i++) {
            int status;
            if (w->pids[i] > 0 && waitpid(w->pids[i], &status, WNOHANG) == w->pids[i]) {
                w->pids[i] = 0;
                reaped(w, status);
            }
        }
        show_progress(w, false);
    }
    show_progress(w, true);
    if (w->signal) {
        snprintf(w->err, w->errsize, "interrupted (%s): no database written",
                 stop_signal_name(w->signal));
        w->worst = SIM_EIO;
    }
}

/* In a worker the stop signals kill at once, whatever handler the command
 * line installed (stop_signals.c's only sets a flag, which a sweep's runs do not
 * watch: the run under way would go on to its end); what the worker was
 * writing is a temporary file, which the parent removes. */
static void worker_signals(const sigset_t *old)
{
    stop_signals_handle(SIG_DFL);
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* Forks `jobs` workers; a worker unblocks the stop signals (`old` is the
 * mask from before they were blocked) and never returns. */
static void start_workers(watch *w, const sweep_spec *s, const sweep_todo *todo, int jobs,
                          const char *dir, const sigset_t *old)
{
    pid_t parent = getpid();
    for (int i = 0; i < jobs; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            worker_signals(old);
            exit(worker_main(s, todo, w->sh, parent, dir));
        }
        if (pid < 0) {
            snprintf(w->err, w->errsize, "cannot start a worker: %s", strerror(errno));
            w->worst = SIM_EIO;
            stop_all(w);
            return;
        }
        w->pids[w->n++] = pid;
        w->alive++;
    }
}

int sweep_execute(const sweep_spec *s, const sweep_todo *todo, const sweep_exec_opts *opts,
                  char *err, size_t errsize)
{
    if (todo->n == 0)
        return SIM_OK;
    int jobs = opts->jobs < todo->n ? opts->jobs : (int)todo->n;
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        snprintf(err, errsize, "cannot share memory with the workers: %s", strerror(errno));
        return SIM_EIO;
    }
    atomic_init(&sh->next, 0);
    atomic_init(&sh->done, 0);
    atomic_init(&sh->stop, 0);
    sigset_t stop_set, old;
    sigemptyset(&stop_set);
    stop_signals_add(&stop_set);
    sigprocmask(SIG_BLOCK, &stop_set, &old);
    fflush(stdout);                /* the children must not write it out again */
    fflush(stderr);
    watch w = { .pids = xcalloc((size_t)jobs, sizeof *w.pids), .sh = sh, .nruns = s->nruns - s->nskipped * s->reps,
                .done_before = todo->done_before, .progress = opts->progress,
                .started = wall_seconds(), .err = err, .errsize = errsize };
    /* A signal before the block went to the command line's handler. */
    if (opts->interrupted && *opts->interrupted)
        w.signal = *opts->interrupted;
    else
        start_workers(&w, s, todo, jobs, opts->dir, &old);
    supervise(&w, &stop_set);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(w.pids);
    munmap(sh, sizeof *sh);
    return w.worst;
}

void sweep_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        strbuf b = { 0 };
        sb_addf(&b, "%s/%s", dir, e->d_name);
        unlink(b.s);
        sb_free(&b);
    }
    closedir(d);
    rmdir(dir);
}
