/* tune_store.c -- the replications `lsim tune` has run, per point (tune.h). */
#include "sweep/tune.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tune_store_init(tune_store *st, const requirement *reqs, size_t nreqs, double confidence,
                     tune_runner run, void *user, int64_t budget)
{
    memset(st, 0, sizeof *st);
    st->reqs = reqs;
    st->nreqs = nreqs;
    st->nvals = 1 + nreqs;
    st->confidence = confidence;
    st->run = run;
    st->user = user;
    st->budget = budget;
}

void tune_store_fini(tune_store *st)
{
    for (size_t i = 0; i < st->npts; i++) {
        free(st->pts[i]->v);
        free(st->pts[i]);
    }
    free(st->pts);
    memset(st, 0, sizeof *st);
}

tune_point *tune_store_find(const tune_store *st, int64_t point)
{
    for (size_t i = 0; i < st->npts; i++)
        if (st->pts[i]->point == point)
            return st->pts[i];
    return NULL;
}

tune_point *tune_store_get(tune_store *st, int64_t point)
{
    tune_point *p = tune_store_find(st, point);
    if (p)
        return p;
    if (st->npts == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 16;
        st->pts = xrealloc(st->pts, st->cap * sizeof *st->pts);
    }
    p = xcalloc(1, sizeof *p);
    p->point = point;
    p->by = -1;
    st->pts[st->npts++] = p;
    return p;
}

static void reserve(const tune_store *st, tune_point *p, int64_t reps)
{
    if ((size_t)reps <= p->cap)
        return;
    size_t cap = p->cap ? p->cap : 8;
    while (cap < (size_t)reps)
        cap *= 2;
    p->v = xrealloc(p->v, cap * st->nvals * sizeof *p->v);
    p->cap = cap;
}

int tune_store_need(tune_store *st, tune_point *const *pts, size_t n, int64_t reps)
{
    size_t missing = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i]->n < reps)
            missing += (size_t)(reps - pts[i]->n);
    if (missing == 0)
        return TUNE_OK;
    if (st->budget > 0 && st->runs + (int64_t)missing > st->budget)
        return TUNE_BUDGET;
    int64_t *points = xmalloc(missing * sizeof *points);
    int64_t *rs = xmalloc(missing * sizeof *rs);
    double *out = xmalloc(missing * st->nvals * sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (int64_t r = pts[i]->n; r < reps; r++) {
            points[m] = pts[i]->point;
            rs[m++] = r;
        }
    int rc = st->run(st->user, points, rs, missing, out, &st->messages) == 0 ? TUNE_OK
                                                                           : TUNE_FAILED;
    /* The runs come back in the order asked: point by point, replications in order. */
    m = 0;
    for (size_t i = 0; rc == TUNE_OK && i < n; i++) {
        if (pts[i]->n >= reps)
            continue;
        reserve(st, pts[i], reps);
        size_t add = (size_t)(reps - pts[i]->n);
        memcpy(pts[i]->v + (size_t)pts[i]->n * st->nvals, out + m * st->nvals,
               add * st->nvals * sizeof *out);
        m += add;
        pts[i]->n = reps;
    }
    if (rc == TUNE_OK)
        st->runs += (int64_t)missing;
    free(points);
    free(rs);
    free(out);
    return rc;
}

ci tune_point_ci(const tune_store *st, const tune_point *p, size_t j, int64_t n)
{
    if (n > p->n)
        n = p->n;
    double *x = xmalloc(((size_t)n + 1) * sizeof *x);
    for (int64_t r = 0; r < n; r++)
        x[r] = p->v[(size_t)r * st->nvals + j];
    ci c = stats_ci(x, (size_t)n, st->confidence);
    free(x);
    return c;
}

int tune_point_verdict(const tune_store *st, const tune_point *p, int64_t n, size_t *req,
                       double *bound, double *shortfall)
{
    int verdict = VERDICT_MEETS;
    *shortfall = 0;
    for (size_t i = 0; i < st->nreqs; i++) {
        const requirement *r = &st->reqs[i];
        ci c = tune_point_ci(st, p, 1 + i, n);
        /* One replication has no interval: nothing is decided yet. */
        double half = c.n >= 2 ? c.half : INFINITY;
        bool upper = req_is_upper(r);
        double near = upper ? c.mean + half : c.mean - half;   /* the bound sweep judges */
        double far = upper ? c.mean - half : c.mean + half;
        if (req_holds(r, near))
            continue;
        double scale = r->limit != 0 ? fabs(r->limit) : 1;
        if (isfinite(near))
            *shortfall += fabs(near - r->limit) / scale;
        else
            *shortfall += INFINITY;
        if (!req_holds(r, far)) {
            if (verdict != VERDICT_FAILS) {
                *req = i;
                *bound = far;
            }
            verdict = VERDICT_FAILS;
        } else if (verdict == VERDICT_MEETS) {
            *req = i;
            *bound = near;
            verdict = VERDICT_UNDECIDED;
        }
    }
    return verdict;
}

bool tune_point_means_meet(const tune_store *st, const tune_point *p)
{
    for (size_t i = 0; i < st->nreqs; i++)
        if (!req_holds(&st->reqs[i], tune_point_ci(st, p, 1 + i, p->n).mean))
            return false;
    return true;
}
