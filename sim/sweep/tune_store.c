/* tune_store.c -- the replications `lsim tune` has run, per point (tune.h). */
#include "sweep/tune.h"
#include "base/mem.h"

#include <gsl/gsl_cdf.h>
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
    free(st->tol);
    memset(st, 0, sizeof *st);
}

void tune_store_tolerate(tune_store *st, const double *tol, int64_t n0, int64_t end)
{
    free(st->tol);
    st->tol = NULL;
    if (st->nreqs) {
        st->tol = xmalloc(st->nreqs * sizeof *st->tol);
        memcpy(st->tol, tol, st->nreqs * sizeof *st->tol);
    }
    st->n0 = n0;
    st->check_end = end;
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

/* A requirement's bounds (the one it must meet, the one it must not pass)
 * on the first n replications. */
typedef struct req_bounds {
    double near, far;
} req_bounds;

/* Without a tolerance: the t-interval at n, as sweep judges. */
static req_bounds interval_bounds(const tune_store *st, const tune_point *p, size_t i, int64_t n)
{
    ci c = tune_point_ci(st, p, 1 + i, n);
    /* One replication has no interval: nothing is decided yet. */
    double half = c.n >= 2 ? c.half : INFINITY;
    bool upper = req_is_upper(&st->reqs[i]);
    req_bounds b = { upper ? c.mean + half : c.mean - half, upper ? c.mean - half : c.mean + half };
    return b;
}

static double value_at(const tune_store *st, const tune_point *p, size_t i, int64_t r)
{
    return p->v[(size_t)r * st->nvals + 1 + i];
}

/* The share of each requirement's beta spent on the first-stage t-check
 * (tune.h); the triangle has the rest. */
#define EARLY_SHARE 0.2

/* The check's constants at a point: S^2 over the first n0 replications
 * (of n), h^2, the tolerance used (tune.h) and the nominal one, and the
 * first stage's one-sided t quantile.  False when there are fewer than two
 * replications: nothing can be decided. */
typedef struct zone_check {
    int64_t n0;
    double s2, h2, tol, tol0, t;
} zone_check;

static bool zone_of(const tune_store *st, const tune_point *p, size_t i, int64_t n, zone_check *z)
{
    z->n0 = st->n0 < n ? st->n0 : n;
    if (z->n0 < 2)
        return false;
    double mean = 0, s2 = 0;
    for (int64_t r = 0; r < z->n0; r++)
        mean += value_at(st, p, i, r);
    mean /= (double)z->n0;
    for (int64_t r = 0; r < z->n0; r++) {
        double d = value_at(st, p, i, r) - mean;
        s2 += d * d;
    }
    z->s2 = s2 / (double)(z->n0 - 1);
    double beta = (1 - st->confidence) / (double)st->nreqs;
    double beta_zone = (1 - EARLY_SHARE) * beta;
    z->h2 = (double)(z->n0 - 1) * (pow(2 * beta_zone, -2.0 / (double)(z->n0 - 1)) - 1);
    z->t = gsl_cdf_tdist_Pinv(1 - EARLY_SHARE * beta, (double)(z->n0 - 1));
    z->tol0 = z->tol = st->tol[i];
    /* Too noisy to end within the tolerance by check_end: the zone that ends then. */
    double wide = st->check_end > 0 ? sqrt(z->h2 * z->s2 / (double)st->check_end) : 0;
    if (wide > z->tol)
        z->tol = wide;
    return true;
}

double tune_point_tolerance(const tune_store *st, const tune_point *p, size_t i)
{
    if (!st->tol || !(st->tol[i] > 0))
        return 0;
    zone_check z;
    return zone_of(st, p, i, p->n, &z) ? z.tol : st->tol[i];
}

/* The first stage: the one-sided t-bound at n0, which decides when it
 * clears the limit by more than the nominal tolerance either way. */
static bool early_bounds(const tune_store *st, const tune_point *p, size_t i, const zone_check *z,
                         req_bounds *b)
{
    const requirement *q = &st->reqs[i];
    bool upper = req_is_upper(q);
    double mean = 0;
    for (int64_t r = 0; r < z->n0; r++)
        mean += value_at(st, p, i, r);
    mean /= (double)z->n0;
    double half = z->t * sqrt(z->s2 / (double)z->n0) + z->tol0;
    b->near = upper ? mean + half : mean - half;
    b->far = upper ? mean - half : mean + half;
    return req_holds(q, b->near) || !req_holds(q, b->far);
}

/* With tolerance T: the sequential check of tune.h, stopped at the first
 * replication where it decides (or at n, undecided).  With a widened zone
 * T' the triangle is drawn on the limit moved T' - T to the good side; the
 * bounds are given against the limit itself (moved back). */
static req_bounds zone_bounds(const tune_store *st, const tune_point *p, size_t i, int64_t n)
{
    const requirement *q = &st->reqs[i];
    bool upper = req_is_upper(q);
    req_bounds b = { upper ? INFINITY : -INFINITY, upper ? -INFINITY : INFINITY };
    zone_check z;
    if (!zone_of(st, p, i, n, &z))
        return b;
    if (early_bounds(st, p, i, &z, &b))
        return b;
    double shift = upper ? z.tol - z.tol0 : z.tol0 - z.tol;
    double sum = 0;
    for (int64_t r = 1; r <= n; r++) {
        sum += value_at(st, p, i, r - 1);
        if (r < z.n0)
            continue;
        double half = z.h2 * z.s2 / (2 * z.tol * (double)r) - z.tol / 2;
        half = half > 0 ? half : 0;
        double mean = sum / (double)r + shift;
        b.near = upper ? mean + half : mean - half;
        b.far = upper ? mean - half : mean + half;
        if (req_holds(q, b.near) || !req_holds(q, b.far))
            break;
    }
    return b;
}

int tune_point_verdict(const tune_store *st, const tune_point *p, int64_t n, size_t *req,
                       double *bound, double *shortfall)
{
    int verdict = VERDICT_MEETS;
    *shortfall = 0;
    if (n > p->n)
        n = p->n;
    for (size_t i = 0; i < st->nreqs; i++) {
        const requirement *r = &st->reqs[i];
        req_bounds b = st->tol && st->tol[i] > 0 ? zone_bounds(st, p, i, n)
                                                 : interval_bounds(st, p, i, n);
        if (req_holds(r, b.near))
            continue;
        double scale = r->limit != 0 ? fabs(r->limit) : 1;
        if (isfinite(b.near))
            *shortfall += fabs(b.near - r->limit) / scale;
        else
            *shortfall += INFINITY;
        if (!req_holds(r, b.far)) {
            if (verdict != VERDICT_FAILS) {
                *req = i;
                *bound = b.far;
            }
            verdict = VERDICT_FAILS;
        } else if (verdict == VERDICT_MEETS) {
            *req = i;
            *bound = b.near;
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
