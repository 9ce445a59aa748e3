/* tune_compass.c -- the search of `lsim tune` over a grid too large to run
 * whole: COMPASS (Hong, L. J. and Nelson, B. L., "Discrete optimization via
 * simulation using COMPASS", Operations Research 54, 2006).
 *
 * The knobs' values are taken in their order (a range's, or the list's as
 * given), so a point is a vector of whole-number coordinates.  Each
 * iteration:
 *   1. x*, the best point visited: among those that meet every requirement
 *      on their bounds, or are undecided with means that meet, the
 *      smallest objective mean; when none does, the smallest shortfall
 *      (sweep's "closest");
 *   2. the most promising area: the points at least as near to x* as to
 *      any other visited point (Euclidean, in coordinates); new points are
 *      drawn from it uniformly (by rejection from the whole grid), and when
 *      the draws find none, from x*'s unvisited neighbours (one step along
 *      one knob), which always lie in it;
 *   3. the new points run n0 replications, x* one more (up to --reps-max).
 * It stops when the area holds no unvisited point near x* (every neighbour
 * visited: x* is a local optimum, where COMPASS converges), or when its
 * budget is spent.  With o->starts > 1 it then starts again from random
 * points, with an area of its own (the runs are shared), as Industrial
 * Strength COMPASS restarts (Xu, Nelson and Hong 2010): one search's local
 * optimum is not always another's.  Its best points then go to KN (tune_kn.c), which makes
 * the choice with its guarantee among them: the guarantee is about those
 * finalists, and the search's is convergence to a local optimum.
 */
#include "sweep/tune.h"
#include "base/mem.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DRAWS_PER_POINT 64         /* rejection draws per wanted point */

/* The points one search has visited (a restart has its own; the runs are
 * the store's, shared). */
typedef struct visited {
    tune_point **p;
    size_t n, cap;
} visited;

static bool has(const visited *v, int64_t point)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->p[i]->point == point)
            return true;
    return false;
}

static void add(visited *v, tune_point *p)
{
    if (has(v, p->point))
        return;
    xgrow((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p);
    v->p[v->n++] = p;
}
#define MAX_ITERATIONS 100000

static void coords_of(const tune_compass_opts *o, int64_t p, int64_t *x)
{
    for (size_t d = o->dims; d-- > 0;) {
        x[d] = p % o->sizes[d];
        p /= o->sizes[d];
    }
}

static int64_t point_of(const tune_compass_opts *o, const int64_t *x)
{
    int64_t p = 0;
    for (size_t d = 0; d < o->dims; d++)
        p = p * o->sizes[d] + x[d];
    return p;
}

static double dist2(const int64_t *a, const int64_t *b, size_t dims)
{
    double s = 0;
    for (size_t d = 0; d < dims; d++) {
        double e = (double)(a[d] - b[d]);
        s += e * e;
    }
    return s;
}

/* Lower is better: meeting points by their mean, then the others by shortfall. */
typedef struct rank {
    int meets;                     /* 0 meets, 1 not (yet) */
    double key;
    int64_t point;
} rank;

static rank rank_of(const tune_store *st, const tune_point *p)
{
    size_t req;
    double bound, shortfall;
    int v = tune_point_verdict(st, p, p->n, &req, &bound, &shortfall);
    /* A point not yet decided whose means meet is as promising as one that
     * meets: more replications (x*'s, or KN's) decide it. */
    bool promising = v == VERDICT_MEETS || (v == VERDICT_UNDECIDED && tune_point_means_meet(st, p));
    rank r = { .meets = promising ? 0 : 1, .point = p->point };
    r.key = r.meets == 0 ? tune_point_ci(st, p, 0, p->n).mean : shortfall;
    return r;
}

static int rank_cmp(const rank *a, const rank *b)
{
    if (a->meets != b->meets)
        return a->meets - b->meets;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->point > b->point) - (a->point < b->point);
}

static tune_point *best_visited(const tune_store *st, const visited *v)
{
    tune_point *best = NULL;
    rank rb = { 0 };
    for (size_t i = 0; i < v->n; i++) {
        if (v->p[i]->n == 0)
            continue;
        rank r = rank_of(st, v->p[i]);
        if (!best || rank_cmp(&r, &rb) < 0) {
            best = v->p[i];
            rb = r;
        }
    }
    return best;
}

/* Whether x lies in the most promising area of `star` (and is unvisited). */
static bool in_area(const visited *v, const tune_compass_opts *o, const int64_t *x,
                    const int64_t *star, int64_t *y)
{
    if (has(v, point_of(o, x)))
        return false;
    double to_star = dist2(x, star, o->dims);
    for (size_t i = 0; i < v->n; i++) {
        coords_of(o, v->p[i]->point, y);
        if (dist2(x, y, o->dims) < to_star)
            return false;
    }
    return true;
}

static bool already(const int64_t *list, size_t n, int64_t p)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == p)
            return true;
    return false;
}

/* Up to `want` new points of the area into out; returns how many. */
static size_t draw_area(const visited *v, const tune_compass_opts *o, gsl_rng *rng,
                        const tune_point *star, size_t want, int64_t *out)
{
    int64_t *s = xmalloc(3 * o->dims * sizeof *s), *x = s + o->dims, *y = x + o->dims;
    coords_of(o, star->point, s);
    size_t n = 0;
    for (size_t t = 0; n < want && t < DRAWS_PER_POINT * want; t++) {
        for (size_t d = 0; d < o->dims; d++)
            x[d] = (int64_t)gsl_rng_uniform_int(rng, (unsigned long)o->sizes[d]);
        int64_t p = point_of(o, x);
        if (!already(out, n, p) && in_area(v, o, x, s, y))
            out[n++] = p;
    }
    /* The neighbours, from a random knob on: in the area whenever unvisited. */
    size_t first = o->dims ? (size_t)gsl_rng_uniform_int(rng, (unsigned long)o->dims) : 0;
    for (size_t k = 0; n < want && k < 2 * o->dims; k++) {
        size_t d = (first + k / 2) % o->dims;
        memcpy(x, s, o->dims * sizeof *x);
        x[d] += k % 2 ? -1 : 1;
        if (x[d] < 0 || x[d] >= o->sizes[d])
            continue;
        int64_t p = point_of(o, x);
        if (!already(out, n, p) && !has(v, p))
            out[n++] = p;
    }
    free(s);
    return n;
}

static int rank_points_cmp(const void *a, const void *b, void *st)
{
    rank ra = rank_of(st, *(tune_point *const *)a), rb = rank_of(st, *(tune_point *const *)b);
    return rank_cmp(&ra, &rb);
}

/* The visited points, best first (an insertion sort: a search visits hundreds). */
static tune_point **ranked(const tune_store *st)
{
    tune_point **v = xmalloc((st->npts + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < st->npts; i++) {
        if (st->pts[i]->n == 0)
            continue;
        size_t j = n++;
        while (j > 0 && rank_points_cmp(&st->pts[i], &v[j - 1], (void *)st) < 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = st->pts[i];
    }
    v[n] = NULL;
    return v;
}

/* The first search starts from the grid's middle and random points; a
 * restart from random points alone. */
static int first_points(tune_store *st, const tune_compass_opts *o, gsl_rng *rng, bool middle,
                        visited *v)
{
    int64_t *x = xmalloc(o->dims * sizeof *x);
    for (size_t d = 0; d < o->dims; d++)
        x[d] = o->sizes[d] / 2;
    tune_point **p = xmalloc((o->per_iteration + 1) * sizeof *p);
    size_t n = 0;
    if (middle) {
        p[n++] = tune_store_get(st, point_of(o, x));
        add(v, p[0]);
    }
    for (size_t t = 0; n < o->per_iteration + 1 && t < DRAWS_PER_POINT * o->per_iteration; t++) {
        for (size_t d = 0; d < o->dims; d++)
            x[d] = (int64_t)gsl_rng_uniform_int(rng, (unsigned long)o->sizes[d]);
        if (!has(v, point_of(o, x))) {
            p[n++] = tune_store_get(st, point_of(o, x));
            add(v, p[n - 1]);
        }
    }
    int rc = tune_store_need(st, p, n, o->n0);
    free(p);
    free(x);
    return rc;
}

/* One search, until x* is a local optimum (or the budget, or a signal). */
static int search(tune_store *st, const tune_compass_opts *o, gsl_rng *rng, bool middle,
                  int64_t *iterations)
{
    visited v = { 0 };
    int rc = first_points(st, o, rng, middle, &v);
    int64_t *fresh = xmalloc(o->per_iteration * sizeof *fresh);
    tune_point **batch = xmalloc(o->per_iteration * sizeof *batch);
    while (rc == TUNE_OK && *iterations < MAX_ITERATIONS && !(o->interrupted && *o->interrupted)) {
        tune_point *star = best_visited(st, &v);
        size_t n = draw_area(&v, o, rng, star, o->per_iteration, fresh);
        if (n == 0)
            break;                 /* every neighbour visited: a local optimum */
        for (size_t i = 0; i < n; i++) {
            batch[i] = tune_store_get(st, fresh[i]);
            add(&v, batch[i]);
        }
        rc = tune_store_need(st, batch, n, o->n0);
        if (rc == TUNE_OK && star->n < o->reps_max)
            rc = tune_store_need(st, &star, 1, star->n + 1);
        ++*iterations;
    }
    free(fresh);
    free(batch);
    free(v.p);
    return rc;
}

int tune_compass(tune_store *st, const tune_compass_opts *o, tune_point ***out, size_t *nout,
                 int64_t *iterations)
{
    *out = NULL;
    *nout = 0;
    *iterations = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)(o->seed ^ 0x5eedc0a55ULL));
    int64_t outer_budget = st->budget;
    if (o->budget > 0 && (outer_budget == 0 || o->budget < outer_budget))
        st->budget = o->budget;
    int rc = TUNE_OK;
    size_t starts = o->starts ? o->starts : 1;
    for (size_t k = 0; rc == TUNE_OK && k < starts && !(o->interrupted && *o->interrupted); k++)
        rc = search(st, o, rng, k == 0, iterations);
    st->budget = outer_budget;
    gsl_rng_free(rng);
    if (rc == TUNE_FAILED)
        return rc;
    tune_point **all = ranked(st);
    size_t n = 0;
    while (all[n] && n < o->finalists)
        n++;
    for (size_t i = 0; i < st->npts; i++)
        st->pts[i]->status = TUNE_SEARCHED;
    *out = all;
    *nout = n;
    return TUNE_OK;
}
