/* tune_screen.c -- a screen before KN: the first stage of Nelson, Swann,
 * Goldsman and Song's screen-then-select ("Simple procedures for selecting
 * the best simulated system when the number of alternatives is large",
 * Operations Research 49, 2001), on paired differences (common random
 * numbers: replication r has the same seed at every point).
 *
 * On the first n replications of k points, point i is screened out when a
 * point l that meets every requirement there has
 *   mean_i > mean_l + t S_il / sqrt(n),
 * S_il^2 the sample variance of X_i - X_l and t the (1 - alpha / (k - 1))
 * quantile of Student's t with n - 1 degrees of freedom: whatever the
 * means, the best point survives with probability >= 1 - alpha (Bonferroni
 * over its k - 1 comparisons).  A point whose requirement check fails at n
 * (tune.h's first-stage look) leaves too.  KN then runs on the survivors
 * with its constant for all k points (tune_kn_opts.screened), as the
 * survivors are chosen on replications KN goes on using; the two errors add.
 */
#include "sweep/tune.h"
#include "base/mem.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

static double objective_at(const tune_store *st, const tune_point *p, int64_t r)
{
    return p->v[(size_t)r * st->nvals];
}

/* The mean of X_i - X_l over the first n and its standard error. */
static void paired(const tune_store *st, const tune_point *i, const tune_point *l, int64_t n,
                   double *mean, double *se)
{
    double m = 0, s = 0;
    for (int64_t r = 0; r < n; r++)
        m += objective_at(st, i, r) - objective_at(st, l, r);
    m /= (double)n;
    for (int64_t r = 0; r < n; r++) {
        double d = objective_at(st, i, r) - objective_at(st, l, r) - m;
        s += d * d;
    }
    *mean = m;
    *se = sqrt(s / (double)(n - 1) / (double)n);
}

static void screen_requirements(const tune_store *st, tune_point *const *c, size_t k, int64_t n,
                                int *verdict)
{
    for (size_t i = 0; i < k; i++) {
        double shortfall;
        verdict[i] = tune_point_verdict(st, c[i], n, &c[i]->req, &c[i]->bound, &shortfall);
        if (verdict[i] == VERDICT_FAILS) {
            c[i]->status = TUNE_FAILS;
            c[i]->at = n;
        }
    }
}

/* Against every point that meets at n, screened out or not (the screen
 * compares each point with all the others, not with the survivors). */
static void screen_objective(const tune_store *st, tune_point *const *c, size_t k, int64_t n,
                             const int *verdict, double t)
{
    for (size_t i = 0; i < k; i++) {
        if (c[i]->status != TUNE_OPEN)
            continue;
        for (size_t l = 0; l < k; l++) {
            if (l == i || verdict[l] != VERDICT_MEETS)
                continue;
            double d, se;
            paired(st, c[i], c[l], n, &d, &se);
            if (d > t * se) {
                c[i]->status = TUNE_DOMINATED;
                c[i]->by = c[l]->point;
                c[i]->at = n;
                break;
            }
        }
    }
}

int tune_screen(tune_store *st, tune_point **c, size_t k, int64_t n, double alpha, size_t *kept)
{
    *kept = k;
    if (k < 2 || n < 2)
        return TUNE_OK;
    int rc = tune_store_need(st, c, k, n);
    if (rc != TUNE_OK)
        return rc == TUNE_BUDGET ? TUNE_OK : rc;
    int *verdict = xcalloc(k, sizeof *verdict);
    for (size_t i = 0; i < k; i++)
        c[i]->status = TUNE_OPEN;
    screen_requirements(st, c, k, n, verdict);
    double t = gsl_cdf_tdist_Pinv(1 - alpha / (double)(k - 1), (double)(n - 1));
    screen_objective(st, c, k, n, verdict, t);
    /* The survivors first, in their order; the others after them. */
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (c[i]->status == TUNE_OPEN) {
            tune_point *p = c[i];
            for (size_t j = i; j > m; j--)
                c[j] = c[j - 1];
            c[m++] = p;
        }
    free(verdict);
    /* None left: every point failed a requirement; KN says so on them all. */
    *kept = m ? m : k;
    return TUNE_OK;
}
