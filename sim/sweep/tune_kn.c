/* tune_kn.c -- the final choice of `lsim tune`: Kim and Nelson's KN
 * procedure (Kim, S.-H. and Nelson, B. L., "A fully sequential procedure
 * for indifference-zone selection in simulation", ACM TOMACS 11, 2001).
 *
 * With k points, first-stage size n0 and 1 - alpha the wanted probability
 * of correct selection:
 *   eta = ((2 alpha / (k - 1))^(-2 / (n0 - 1)) - 1) / 2,   h^2 = 2 eta (n0 - 1),
 *   S2[i][l] the sample variance of X_i - X_l over the first n0 replications
 *   (the same seeds at every point: common random numbers make it small).
 * At each stage r >= n0 every point still in runs replication r, and i is
 * ruled out by l when
 *   mean_i(r) > mean_l(r) + W_il(r),  W_il(r) = max(0, delta/(2r) (h^2 S2/delta^2 - r)).
 * KN selects the best with probability >= 1 - alpha whenever the best is
 * better than the others by at least delta (the indifference zone); two
 * points closer than delta are both correct answers.
 *
 * The requirements are constraints checked on their confidence bounds, as a
 * sweep checks them (a feasibility check beside the selection, in the
 * manner of Andradottir and Kim 2010): a point whose interval lies beyond a
 * limit is ruled out; only a point that meets every requirement may rule
 * another out on the objective; a point still undecided at --reps-max
 * counts as failing, as sweep counts it.  A point that meets and is alone in
 * meeting waits; when another comes to meet, the pair is first compared at
 * the stage the waiting one reached (compare_waiting), so that a waiting
 * point ruled out there is not run on to the current stage.
 */
#include "sweep/tune.h"
#include "base/mem.h"
#include "sweep/sweep_answer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double objective_at(const tune_store *st, const tune_point *p, int64_t r)
{
    return p->v[(size_t)r * st->nvals];
}

static double mean_of(const tune_store *st, const tune_point *p, int64_t n)
{
    double s = 0;
    for (int64_t r = 0; r < n; r++)
        s += objective_at(st, p, r);
    return n ? s / (double)n : 0;
}

/* The sample variance of the difference of i and l over the first n0. */
static double diff_variance(const tune_store *st, const tune_point *i, const tune_point *l,
                            int64_t n0)
{
    double m = mean_of(st, i, n0) - mean_of(st, l, n0), s = 0;
    for (int64_t r = 0; r < n0; r++) {
        double d = objective_at(st, i, r) - objective_at(st, l, r) - m;
        s += d * d;
    }
    return s / (double)(n0 - 1);
}

static double kn_h2(size_t k, int64_t n0, double confidence)
{
    double alpha = 1 - confidence;
    double eta = 0.5 * (pow(2 * alpha / (double)(k - 1), -2.0 / (double)(n0 - 1)) - 1);
    return 2 * eta * (double)(n0 - 1);
}

/* The zone: as given, or a fraction of the best first-stage mean (never 0,
 * which would make W infinite). */
static double zone(const tune_store *st, tune_point *const *c, size_t k, const tune_kn_opts *o,
                   int64_t n)
{
    if (o->delta > 0)
        return o->delta;
    double best = INFINITY, largest = 0;
    for (size_t i = 0; i < k; i++) {
        double m = mean_of(st, c[i], n);
        if (m < best)
            best = m;
        if (fabs(m) > largest)
            largest = fabs(m);
    }
    double d = o->delta_fraction * fabs(best);
    if (!(d > 0))
        d = o->delta_fraction * largest;
    return d > 0 ? d : 1e-9;
}

/* The requirements on the first r replications; a point that fails leaves. */
static void check_requirements(const tune_store *st, tune_point *const *c, size_t k, int64_t r,
                               int *verdict, bool last)
{
    for (size_t i = 0; i < k; i++) {
        if (c[i]->status != TUNE_OPEN)
            continue;
        double shortfall;
        int64_t n = c[i]->n < r ? c[i]->n : r;
        verdict[i] = tune_point_verdict(st, c[i], n, &c[i]->req, &c[i]->bound, &shortfall);
        if (verdict[i] == VERDICT_FAILS || (last && verdict[i] == VERDICT_UNDECIDED)) {
            c[i]->status = verdict[i] == VERDICT_FAILS ? TUNE_FAILS : TUNE_UNDECIDED;
            c[i]->at = n;
        }
    }
}

/* KN's allowance for the pair (i, l) at stage r. */
static double allowance(double s2, double h2, double delta, int64_t r)
{
    double w = delta / (2.0 * (double)r) * (h2 * s2 / (delta * delta) - (double)r);
    return w > 0 ? w : 0;
}

/* KN's pair test at an earlier stage: a point that met and waited (at n
 * replications) against one that meets now, on their first n replications.
 * KN's bound holds for the pair's differences crossing the allowance at any
 * stage, so testing a stage the pair was not tested at keeps it; and the
 * waiting point's replications n .. r - 1 need not be run when it is ruled
 * out there.  One ruled out: it is marked, and *last is the one that met. */
static void compare_waiting(const tune_store *st, tune_point *const *c, size_t k, size_t i,
                            const int *verdict, const double *s2, double h2, double delta,
                            tune_point **last)
{
    int64_t n = c[i]->n;
    for (size_t l = 0; l < k && c[i]->status == TUNE_OPEN; l++) {
        if (l == i || c[l]->status != TUNE_OPEN || verdict[l] != VERDICT_MEETS || c[l]->n < n)
            continue;
        double mi = mean_of(st, c[i], n), ml = mean_of(st, c[l], n);
        double w = allowance(s2[i * k + l], h2, delta, n);
        tune_point *out = mi > ml + w ? c[i] : ml > mi + w ? c[l] : NULL;
        if (!out)
            continue;
        out->status = TUNE_DOMINATED;
        out->by = (out == c[i] ? c[l] : c[i])->point;
        out->at = n;
        *last = out;
    }
}

/* Points that meet and waited (see the stage loop) catch up with stage r
 * once two or more meet: KN compares them on the same replications.  Each
 * is first compared at the stage it waited at (compare_waiting). */
static int catch_up(tune_store *st, tune_point *const *c, size_t k, int64_t r, int *verdict,
                    const double *s2, double h2, double delta, tune_point **last)
{
    tune_point **late = xmalloc(k * sizeof *late);
    size_t meeting = 0, n = 0;
    for (size_t i = 0; i < k; i++)
        meeting += c[i]->status == TUNE_OPEN && verdict[i] == VERDICT_MEETS;
    for (size_t i = 0; meeting >= 2 && i < k; i++)
        if (c[i]->status == TUNE_OPEN && verdict[i] == VERDICT_MEETS && c[i]->n < r)
            compare_waiting(st, c, k, i, verdict, s2, h2, delta, last);
    meeting = 0;
    for (size_t i = 0; i < k; i++)
        if (c[i]->status == TUNE_OPEN && verdict[i] == VERDICT_MEETS) {
            meeting++;
            if (c[i]->n < r)
                late[n++] = c[i];
        }
    int rc = TUNE_OK;
    if (meeting >= 2 && n > 0) {
        rc = tune_store_need(st, late, n, r);
        for (size_t i = 0; rc == TUNE_OK && i < n; i++) {
            double sf;
            int v = tune_point_verdict(st, late[i], r, &late[i]->req, &late[i]->bound, &sf);
            for (size_t q = 0; q < k; q++)
                if (c[q] == late[i])
                    verdict[q] = v;
            if (v == VERDICT_FAILS) {
                late[i]->status = TUNE_FAILS;
                late[i]->at = r;
            }
        }
    }
    free(late);
    return rc == TUNE_BUDGET ? TUNE_OK : rc;
}

/* One elimination pass at stage r; returns the last point ruled out on the
 * objective (the runner-up's candidate) or NULL. */
static tune_point *eliminate(const tune_store *st, tune_point *const *c, size_t k, int64_t r,
                             const int *verdict, const double *s2, double h2, double delta)
{
    double *mean = xmalloc(k * sizeof *mean);
    for (size_t i = 0; i < k; i++)
        mean[i] = c[i]->n >= r ? mean_of(st, c[i], r) : 0;
    tune_point *last = NULL;
    for (size_t i = 0; i < k; i++) {
        if (c[i]->status != TUNE_OPEN || c[i]->n < r)
            continue;
        for (size_t l = 0; l < k; l++) {
            if (l == i || c[l]->status != TUNE_OPEN || verdict[l] != VERDICT_MEETS || c[l]->n < r)
                continue;
            double w = allowance(s2[i * k + l], h2, delta, r);
            /* Identical differences (s2 = 0) and equal means: the earlier point, as sweep. */
            bool tie = s2[i * k + l] == 0 && mean[i] == mean[l] && c[l]->point < c[i]->point &&
                       verdict[i] == VERDICT_MEETS;
            if (mean[i] > mean[l] + w || tie) {
                c[i]->status = TUNE_DOMINATED;
                c[i]->by = c[l]->point;
                c[i]->at = r;
                if (verdict[i] == VERDICT_MEETS)
                    last = c[i];
                break;
            }
        }
    }
    free(mean);
    return last;
}

static size_t count_open(tune_point *const *c, size_t k, const int *verdict, bool *all_meet)
{
    size_t n = 0;
    *all_meet = true;
    for (size_t i = 0; i < k; i++)
        if (c[i]->status == TUNE_OPEN) {
            n++;
            *all_meet = *all_meet && verdict[i] == VERDICT_MEETS;
        }
    return n;
}

/* The best two of the points still open that meet (mean, then the earlier point). */
static void rank_open(const tune_store *st, tune_point *const *c, size_t k, const int *verdict,
                      tune_point **best, tune_point **second)
{
    *best = *second = NULL;
    double mb = INFINITY, ms = INFINITY;
    for (size_t i = 0; i < k; i++) {
        if (c[i]->status != TUNE_OPEN || verdict[i] != VERDICT_MEETS)
            continue;
        double m = mean_of(st, c[i], c[i]->n);
        bool better = !*best || m < mb || (m == mb && c[i]->point < (*best)->point);
        if (better) {
            *second = *best;
            ms = mb;
            *best = c[i];
            mb = m;
        } else if (!*second || m < ms || (m == ms && c[i]->point < (*second)->point)) {
            *second = c[i];
            ms = m;
        }
    }
}

tune_point *tune_closest(const tune_store *st, tune_point *const *c, size_t k)
{
    tune_point *best = NULL;
    double bs = INFINITY;
    for (size_t i = 0; i < k; i++) {
        size_t req;
        double bound, sf;
        tune_point_verdict(st, c[i], c[i]->n, &req, &bound, &sf);
        if (!best || sf < bs) {
            best = c[i];
            bs = sf;
        }
    }
    return best;
}

int tune_kn(tune_store *st, tune_point *const *c, size_t k, const tune_kn_opts *o,
            tune_choice *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < k; i++)
        c[i]->status = TUNE_OPEN;
    int rc = tune_store_need(st, c, k, o->n0);
    if (rc == TUNE_FAILED)
        return rc;
    int64_t r = o->n0;
    if (rc == TUNE_BUDGET) {
        /* Not even a first stage: what the points already have decides. */
        out->out_of_budget = true;
        r = INT64_MAX;
        for (size_t i = 0; i < k; i++)
            r = c[i]->n < r ? c[i]->n : r;
    }
    double *s2 = xcalloc(k * k, sizeof *s2);
    int *verdict = xcalloc(k, sizeof *verdict);
    for (size_t i = 0; r >= 2 && i < k; i++)
        for (size_t l = 0; l < k; l++)
            if (l != i)
                s2[i * k + l] = diff_variance(st, c[i], c[l], o->n0 <= r ? o->n0 : r);
    /* After a screen, the constant of all the points screened (tune_screen.c). */
    size_t kh = o->screened > k ? o->screened : k;
    double h2 = kh > 1 ? kn_h2(kh, o->n0, o->confidence) : 0;
    out->delta = zone(st, c, k, o, o->n0 <= r ? o->n0 : r);
    tune_point *last_out = NULL;
    for (;;) {
        bool last = r >= o->reps_max || out->out_of_budget;
        check_requirements(st, c, k, r, verdict, last);
        if (catch_up(st, c, k, r, verdict, s2, h2, out->delta, &last_out) == TUNE_FAILED) {
            rc = TUNE_FAILED;
            break;
        }
        tune_point *gone = eliminate(st, c, k, r, verdict, s2, h2, out->delta);
        if (gone)
            last_out = gone;
        bool all_meet;
        size_t open = count_open(c, k, verdict, &all_meet);
        if (last || open == 0 || (open == 1 && all_meet))
            break;
        /* The next stage: one more replication, the same seed, at every open
         * point; a point that meets and is alone in meeting waits (it has
         * no one to be compared with until an undecided point meets). */
        size_t meeting = 0;
        for (size_t i = 0; i < k; i++)
            meeting += c[i]->status == TUNE_OPEN && verdict[i] == VERDICT_MEETS;
        tune_point **next = xmalloc(open * sizeof *next);
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            if (c[i]->status == TUNE_OPEN && (meeting >= 2 || verdict[i] != VERDICT_MEETS))
                next[m++] = c[i];
        rc = tune_store_need(st, next, m, r + 1);
        free(next);
        if (rc == TUNE_FAILED)
            break;
        if (rc == TUNE_BUDGET)
            out->out_of_budget = true;
        else
            r++;
    }
    out->stages = r;
    tune_point *second;
    rank_open(st, c, k, verdict, &out->best, &second);
    out->runner_up = second ? second : last_out;
    if (out->best) {
        out->kind = ANSWER_BEST;
        out->best->status = TUNE_CHOSEN;
        /* Points left open beside the answer (the zone could not split them). */
        for (size_t i = 0; i < k; i++)
            if (c[i]->status == TUNE_OPEN) {
                c[i]->status = TUNE_WITHIN;
                c[i]->by = out->best->point;
                c[i]->at = c[i]->n;
            }
    } else {
        out->kind = ANSWER_NONE_MEETS;
        out->runner_up = NULL;
        out->closest = tune_closest(st, c, k);
    }
    free(s2);
    free(verdict);
    return rc == TUNE_FAILED ? TUNE_FAILED : TUNE_OK;
}
