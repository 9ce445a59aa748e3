/* sweep_exec.c -- worker processes and shards (see sweep_exec.h).
 *
 * Why processes and not threads: a run is a whole sim_ctx with its own
 * SQLite writer thread, and a process per worker keeps every worker's
 * memory, file handles and failures apart (a crash in one run loses one
 * worker, not the sweep's bookkeeping).  The only shared state is three
 * counters in an anonymous shared mapping.
 *
 * Signals: the parent blocks SIGINT, SIGTERM and SIGHUP before forking and
 * waits for them with sigtimedwait() between its checks on the workers (no
 * handler, no global flag); the workers unblock them, so a Ctrl-C stops
 * every process of the group at once.  The parent then kills the workers
 * still alive (by their pids), reaps them and reports; the caller removes
 * the shards.  Nothing that looks like a finished database is left: shards
 * are in a folder of their own and the sweep database is only created
 * after every run has succeeded.
 */
#define _DEFAULT_SOURCE            /* MAP_ANONYMOUS (POSIX only from 2024) */
#include "sweep_exec.h"
#include "mem.h"
#include "timeline.h"

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
    atomic_llong next;             /* the next run to claim */
    atomic_llong done;             /* runs finished */
    atomic_int stop;               /* claim nothing more */
} shared;

typedef struct claim {
    shared *sh;                    /* NULL: just `only` */
    int64_t only;
    int64_t nruns;
} claim;

/* The next run id for this worker, or 0 when there is none. */
static int64_t next_run(claim *c)
{
    if (!c->sh) {
        int64_t r = c->only;
        c->only = 0;
        return r;
    }
    if (atomic_load(&c->sh->stop))
        return 0;
    long long r = atomic_fetch_add(&c->sh->next, 1);
    return r <= c->nruns ? (int64_t)r : 0;
}

static int one_run(const sweep_spec *s, int64_t run_id, timeline *tl, char *err, size_t errsize)
{
    cfg_doc doc;
    run *r;
    sim_diag d = { 0 };
    int rc = sweep_build_run(s, run_id, &doc, &r, &d);
    if (rc != SIM_OK) {
        diag_format(&d, err, errsize);
        rc = SIM_EINPUT;
    } else if (run_execute(r, tl, NULL, err, errsize) != SIM_OK) {
        rc = SIM_EIO;
    }
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

/* Runs what `c` hands out into the shard database at `path`. */
static int write_shard(const sweep_spec *s, const char *path, claim *c, char *err,
                       size_t errsize)
{
    timeline *tl = timeline_open(path, err, errsize);
    if (!tl)
        return SIM_EIO;
    int rc = SIM_OK;
    if (sweep_write_settings(timeline_db(tl), s) != 0) {
        snprintf(err, errsize, "%s: cannot write the sweep table", path);
        rc = SIM_EIO;
    }
    for (int64_t run_id; rc == SIM_OK && (run_id = next_run(c)) > 0;) {
        rc = one_run(s, run_id, tl, err, errsize);
        if (rc == SIM_OK && c->sh)
            atomic_fetch_add(&c->sh->done, 1);
    }
    char cerr[1024];
    if (timeline_close(tl, rc == SIM_OK, cerr, sizeof cerr) != 0 && rc == SIM_OK) {
        snprintf(err, errsize, "%s", cerr);
        rc = SIM_EIO;
    }
    return rc;
}

int sweep_shard_one(const sweep_spec *s, int64_t run_id, const char *path, char *err,
                    size_t errsize)
{
    claim c = { .only = run_id, .nruns = s->nruns };
    return write_shard(s, path, &c, err, errsize);
}

/* ---- workers ------------------------------------------------------------------------ */

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A worker's whole life; returns its exit status. */
static int worker_main(const sweep_spec *s, shared *sh, const char *path)
{
    char err[1024] = "";
    claim c = { .sh = sh, .nruns = s->nruns };
    int rc = write_shard(s, path, &c, err, sizeof err);
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
    int64_t nruns;
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
    long long done = atomic_load(&w->sh->done);
    char elapsed[32], left[32];
    format_seconds(el, elapsed, sizeof elapsed);
    fprintf(stderr, "\r\033[K[lsim] sweep: %lld/%lld runs, %s", done, (long long)w->nruns,
            elapsed);
    if (done > 0) {
        format_seconds(el / (double)done * (double)(w->nruns - done), left, sizeof left);
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
                 w->signal == SIGINT ? "SIGINT" : w->signal == SIGTERM ? "SIGTERM" : "SIGHUP");
        w->worst = SIM_EIO;
    }
}

static void add_path(char ***paths, size_t *n, const char *dir, int worker)
{
    strbuf b = { 0 };
    sb_addf(&b, "%s/worker-%d.db", dir, worker);
    *paths = xrealloc(*paths, (*n + 1) * sizeof **paths);
    (*paths)[(*n)++] = sb_take(&b);
}

/* Forks `jobs` workers; a worker unblocks the stop signals (`old` is the
 * mask from before they were blocked) and never returns. */
static void start_workers(watch *w, const sweep_spec *s, int jobs, const char *dir, char ***paths,
                          size_t *npaths, const sigset_t *old)
{
    for (int i = 0; i < jobs; i++) {
        add_path(paths, npaths, dir, i);
        pid_t pid = fork();
        if (pid == 0) {
            sigprocmask(SIG_SETMASK, old, NULL);
            exit(worker_main(s, w->sh, (*paths)[i]));
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

int sweep_execute(const sweep_spec *s, int jobs, bool progress, const char *dir, char ***paths,
                  size_t *npaths, char *err, size_t errsize)
{
    *paths = NULL;
    *npaths = 0;
    if (jobs > s->nruns)
        jobs = (int)s->nruns;
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        snprintf(err, errsize, "cannot share memory with the workers: %s", strerror(errno));
        return SIM_EIO;
    }
    atomic_init(&sh->next, 1);
    atomic_init(&sh->done, 0);
    atomic_init(&sh->stop, 0);
    sigset_t stop_set, old;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop_set, &old);
    fflush(stdout);                /* the children must not write it out again */
    fflush(stderr);
    watch w = { .pids = xcalloc((size_t)jobs, sizeof *w.pids), .sh = sh, .nruns = s->nruns,
                .progress = progress, .started = wall_seconds(), .err = err,
                .errsize = errsize };
    start_workers(&w, s, jobs, dir, paths, npaths, &old);
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
