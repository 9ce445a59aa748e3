/* tune_run.c -- `lsim tune`'s runs (tune_run.h).  With -j N a batch is
 * dealt to N forked workers, worker w taking runs w, w+N, ...; each sends
 * back one record a run through its pipe, and the parent puts them in the
 * batch's order, so the values do not depend on -j. */
#include "sweep/tune_run.h"
#include "base/mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One run: the objective (negated when maximised; 0 without one), the
 * requirements' metrics, and its published messages.  0 or -1 (printed). */
static int run_one(const tune_exec *x, int64_t point, int64_t rep, double *vals, double *messages)
{
    const sweep_spec *s = x->s;
    cfg_doc doc = { 0 };
    run *r = NULL;
    sim_diag d = { 0 };
    char err[SIM_ERROR_SIZE] = "";
    int rc = -1;
    if (sweep_build_run(s, sweep_run_id(s, point, rep), &doc, &r, &d) != SIM_OK) {
        diag_print(&d);
    } else {
        r->ctx->interrupted = x->interrupted;
        if (run_execute(r, NULL, NULL, err, sizeof err) != SIM_OK) {
            if (!(x->interrupted && *x->interrupted))
                fprintf(stderr, "lsim: %s\n", err);
        } else {
            rc = 0;
            vals[0] = 0;
            if (s->objective) {
                const metric *m = sim_find_metric(r->ctx, s->objective);
                vals[0] = m ? (s->maximize ? -m->value : m->value) : NAN;
            }
            for (size_t i = 0; i < s->nreqs; i++) {
                const metric *m = sim_find_metric(r->ctx, s->reqs[i].metric);
                vals[1 + i] = m ? m->value : NAN;
            }
            const metric *pub = sim_find_metric(r->ctx, "published");
            *messages = pub ? pub->value : 0;
        }
    }
    run_free(r);
    cfg_doc_free(&doc);
    return rc;
}

static void progress(const tune_exec *x, size_t done, size_t n)
{
    if (!x->progress)
        return;
    fprintf(stderr, "\rlsim tune: %lld runs, %zu points visited; this batch %zu/%zu   ",
            (long long)(x->st->runs + (int64_t)done), x->st->npts, done, n);
}

void tune_progress_end(const tune_exec *x)
{
    if (x->progress)
        fputc('\n', stderr);
}

/* A run that came in: into the database, when there is one. */
static int keep(const tune_exec *x, int64_t point, int64_t rep, const double *vals,
                double messages)
{
    return x->db ? tune_db_add(x->db, point, rep, vals, messages) : 0;
}

static int run_here(const tune_exec *x, const int64_t *points, const int64_t *reps, size_t n,
                    double *out, double *messages)
{
    size_t nvals = 1 + x->s->nreqs;
    for (size_t i = 0; i < n; i++) {
        double m = 0;
        if (run_one(x, points[i], reps[i], out + i * nvals, &m) != 0 ||
            keep(x, points[i], reps[i], out + i * nvals, m) != 0)
            return -1;
        *messages += m;
        progress(x, i + 1, n);
    }
    return 0;
}

/* What a worker sends for each of its runs. */
typedef struct record {
    uint64_t index;
    int64_t ok;
    double messages;
} record;

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static void worker(const tune_exec *x, const int64_t *points, const int64_t *reps, size_t n,
                   size_t w, size_t nw, int fd)
{
    size_t nvals = 1 + x->s->nreqs;
    double *vals = xmalloc(nvals * sizeof *vals);
    int status = 0;
    for (size_t i = w; i < n; i += nw) {
        record rec = { .index = i, .ok = 1 };
        if (run_one(x, points[i], reps[i], vals, &rec.messages) != 0) {
            status = 1;
            break;
        }
        if (write_all(fd, &rec, sizeof rec) || write_all(fd, vals, nvals * sizeof *vals)) {
            status = 1;
            break;
        }
    }
    free(vals);
    close(fd);
    _exit(status);
}

static int run_fresh(const tune_exec *x, const int64_t *points, const int64_t *reps, size_t n,
                     double *out, double *messages)
{
    size_t nw = x->jobs > 1 ? (size_t)x->jobs : 1;
    if (nw > n)
        nw = n;
    if (nw <= 1)
        return run_here(x, points, reps, n, out, messages);
    size_t nvals = 1 + x->s->nreqs;
    int *fds = xmalloc(nw * sizeof *fds);
    pid_t *pids = xmalloc(nw * sizeof *pids);
    size_t started = 0;
    fflush(NULL);
    for (; started < nw; started++) {
        int p[2];
        if (pipe(p) != 0)
            break;
        pid_t pid = fork();
        if (pid < 0) {
            close(p[0]);
            close(p[1]);
            break;
        }
        if (pid == 0) {
            close(p[0]);
            for (size_t k = 0; k < started; k++)
                close(fds[k]);
            worker(x, points, reps, n, started, nw, p[1]);
        }
        close(p[1]);
        fds[started] = p[0];
        pids[started] = pid;
    }
    int rc = started == nw ? 0 : -1;
    if (rc)
        fprintf(stderr, "lsim: could not start %zu worker processes: %s\n", nw, strerror(errno));
    size_t got = 0;
    for (size_t k = 0; k < started; k++) {
        record rec;
        while (read_all(fds[k], &rec, sizeof rec) == 0) {
            if (rec.index >= n || read_all(fds[k], out + rec.index * nvals, nvals * sizeof *out))
                break;
            *messages += rec.messages;
            if (keep(x, points[rec.index], reps[rec.index], out + rec.index * nvals,
                     rec.messages) != 0)
                rc = -1;
            progress(x, ++got, n);
        }
        close(fds[k]);
        int status;
        while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rc = -1;
    }
    if (rc == 0 && got != n)
        rc = -1;
    free(fds);
    free(pids);
    return rc;
}

/* The runs the database holds are answered from it; the others run. */
int tune_run_batch(void *user, const int64_t *points, const int64_t *reps, size_t n, double *out,
                   double *messages)
{
    const tune_exec *x = user;
    if (!x->db)
        return run_fresh(x, points, reps, n, out, messages);
    size_t nvals = 1 + x->s->nreqs, m = 0;
    int64_t *mp = xmalloc((n + 1) * sizeof *mp), *mr = xmalloc((n + 1) * sizeof *mr);
    size_t *at = xmalloc((n + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++) {
        double msg;
        if (tune_db_lookup(x->db, points[i], reps[i], out + i * nvals, &msg)) {
            *messages += msg;
            continue;
        }
        mp[m] = points[i];
        mr[m] = reps[i];
        at[m++] = i;
    }
    double *mo = xmalloc((m * nvals + 1) * sizeof *mo);
    int rc = m ? run_fresh(x, mp, mr, m, mo, messages) : 0;
    for (size_t k = 0; rc == 0 && k < m; k++)
        memcpy(out + at[k] * nvals, mo + k * nvals, nvals * sizeof *mo);
    free(mp);
    free(mr);
    free(at);
    free(mo);
    return rc;
}
