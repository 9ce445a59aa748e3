/* tune.h -- `lsim tune`: the best point of a grid without running the grid.
 *
 * Four parts, each in its own file:
 *
 *   tune_store.c    the replications run so far, per point: the objective
 *                   and the required metrics of replication r, which runs
 *                   with seed + r at every point (common random numbers, as
 *                   a sweep's replications); a run is never made twice, so
 *                   the search and the selection share their runs;
 *   tune_kn.c       the final choice: Kim and Nelson's KN procedure (fully
 *                   sequential indifference-zone selection with common
 *                   random numbers), with each requirement checked on its
 *                   confidence bound as sweep checks it;
 *   tune_screen.c   before KN, a screen on the first replications (Nelson,
 *                   Swann, Goldsman and Song 2001, on paired differences):
 *                   KN gets only the points it keeps;
 *   tune_compass.c  for grids too large to enumerate: COMPASS (Hong and
 *                   Nelson 2006), the most promising area around the best
 *                   point so far, sampled until the best is a local optimum
 *                   or the budget is spent; its best points are screened,
 *                   and the survivors go to KN.
 *
 * The objective is minimised inside (a maximised metric is negated).  Without
 * an objective every point's is 0 and the earliest point meeting the
 * requirements wins, as in a sweep.
 */
#ifndef LSIM_SIM_TUNE_H
#define LSIM_SIM_TUNE_H

#include "input/expr.h"
#include "engine/stats.h"

#include <signal.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TUNE_OK = 0, TUNE_BUDGET = 1, TUNE_FAILED = 2 };

/* What became of a point. */
enum {
    TUNE_OPEN,                     /* still in the running */
    TUNE_CHOSEN,                   /* the answer */
    TUNE_DOMINATED,                /* ruled out by KN: worse than `by` beyond the zone */
    TUNE_FAILS,                    /* a requirement fails with confidence (req, bound) */
    TUNE_UNDECIDED,                /* a requirement still undecided at --reps-max: counts as failing */
    TUNE_WITHIN,                   /* still beside the answer at the end: within the zone, or
                                      the budget ran out; an answer as good (by: the answer) */
    TUNE_SEARCHED,                 /* visited by the search, not among the finalists */
};

enum { VERDICT_MEETS, VERDICT_FAILS, VERDICT_UNDECIDED };

typedef struct tune_point {
    int64_t point;                 /* the grid's numbering (sweep_spec.h) */
    int64_t n;                     /* replications 0 .. n-1 done */
    double *v;                     /* n * nvals: objective (minimised), then each requirement's metric */
    size_t cap;
    int status;                    /* TUNE_* above */
    int64_t by;                    /* TUNE_DOMINATED: the point that ruled it out */
    size_t req;                    /* TUNE_FAILS, TUNE_UNDECIDED: the requirement */
    double bound;                  /* ... and its bound */
    int64_t at;                    /* replications when it was ruled out */
} tune_point;

/* Runs the replication reps[i] of points[i] for i < n, writing nvals values
 * each into out (row i), and adds each run's simulated messages to *messages.
 * 0, or -1 (a run failed or was interrupted: the message is printed). */
typedef int (*tune_runner)(void *user, const int64_t *points, const int64_t *reps, size_t n,
                           double *out, double *messages);

typedef struct tune_store {
    const requirement *reqs;
    size_t nreqs, nvals;           /* nvals = 1 + nreqs */
    double confidence;             /* of each requirement's interval or check */
    double *tol;                   /* each requirement's tolerance (absolute, owned);
                                      NULL or 0: none, its confidence bound decides */
    int64_t n0;                    /* the replications whose variance the check uses */
    int64_t check_end;             /* every check ends by then (0: no end) */
    tune_runner run;
    void *user;
    int64_t budget;                /* runs at most; 0: no limit */
    int64_t runs;                  /* runs made */
    double messages;               /* simulated messages of those runs */
    tune_point **pts;              /* visited points, in the order visited */
    size_t npts, cap;
} tune_store;

void tune_store_init(tune_store *st, const requirement *reqs, size_t nreqs, double confidence,
                     tune_runner run, void *user, int64_t budget);
void tune_store_fini(tune_store *st);
/* The point's record, made when first asked for. */
tune_point *tune_store_get(tune_store *st, int64_t point);
tune_point *tune_store_find(const tune_store *st, int64_t point);
/* Runs what the points lack of replications 0 .. reps-1, in one batch.
 * TUNE_BUDGET (nothing run) when the batch would pass the budget. */
int tune_store_need(tune_store *st, tune_point *const *pts, size_t n, int64_t reps);
/* Gives each requirement a tolerance (tol[i] >= 0, copied): the
 * feasibility check with an indifference zone on the constraint below, its
 * variance from the first n0 replications (fewer when a point has fewer),
 * decided by end replications (0: no end). */
void tune_store_tolerate(tune_store *st, const double *tol, int64_t n0, int64_t end);
/* The tolerance requirement i's check uses at point p: tol[i], wider for a
 * point too noisy to decide within it by the end (see below); 0: none. */
double tune_point_tolerance(const tune_store *st, const tune_point *p, size_t i);
/* Value j (0: objective) of the first n replications: the t-interval. */
ci tune_point_ci(const tune_store *st, const tune_point *p, size_t j, int64_t n);
/* Every requirement on the first n replications: VERDICT_MEETS when every
 * bound holds; VERDICT_FAILS when one interval lies beyond its limit
 * entirely (*req, *bound: that one); else VERDICT_UNDECIDED (*req, *bound:
 * the first not yet met).  *shortfall: the sum of the bounds' distances
 * beyond the limits, relative to them (sweep_answer.h's closest).
 *
 * A requirement with a tolerance T > 0 is checked as Andradottir and Kim
 * (2010) check a constraint, with an indifference zone of T either side of
 * its limit q, after a first-stage look.  beta = (1 - confidence) / nreqs
 * is split: a fifth to the look, the rest to the triangle.
 *   The look: at r = n0, with the mean and S^2 of the first n0 Y_j (Y_j
 * its metric in replication j) and t the one-sided (1 - beta/5)-quantile of
 * Student's t with n0 - 1 degrees of freedom, the requirement is met when
 * mean + t S / sqrt(n0) clears the limit by more than T on the good side,
 * and fails when mean - t S / sqrt(n0) clears it by more than T on the bad
 * side (mirrored for > and >=): a point far from its limit is decided there,
 * where the triangle, wide while r is small, would run on.
 *   The triangle: with Z_j = Y_j - q (q - Y_j for > and >=) and
 *   a(r) = max(0, h^2 S^2 / (2 T) - T r / 2),
 *   h^2 = (n0 - 1) ((2 beta')^(-2 / (n0 - 1)) - 1),  beta' = 4 beta / 5,
 * the requirement is met at the first r >= n0 with sum_{j<=r} Z_j <= -a(r)
 * and fails at the first with sum >= a(r) (strictly beyond the limit for <
 * and >); as bounds: mean +/- a(r)/r, the allowance shrinking to 0 at
 * r = h^2 S^2 / T^2, where the mean alone decides.
 *   The guarantee: a point whose mean lies T or more on the bad side is
 * declared feasible with probability <= beta (the look <= beta/5: its bound
 * would have to fall 2 T + t S / sqrt(n0) short of the true mean; the
 * triangle <= 4 beta / 5; the union of the two), and one T or more on the
 * good side is declared infeasible with probability <= beta likewise; one
 * within T of the limit may be declared either way.
 *   So that every check ends by the end E, a point whose spread would need
 * more (h^2 S^2 / T^2 > E) is checked with the wider T' = sqrt(h^2 S^2 / E), and its triangle drawn on the limit moved T' - T
 * to the good side, q' = q - (T' - T) for < and <= (q + (T' - T) for > and
 * >=): a point whose mean lies q' + T' = q + T or more on the bad side is
 * still declared feasible with probability <= beta, noisy or not, while a
 * noisy point near the limit (within T' - T of it, inside) is declared
 * infeasible, so that the answer is one the check can vouch for.  The
 * price: a noisy point is declared feasible with 1 - beta only when its
 * mean lies 2 T' - T or more inside the limit.  The bounds given are
 * against q itself (a(r)/r plus the shift).  The look keeps the nominal T
 * and q. */
int tune_point_verdict(const tune_store *st, const tune_point *p, int64_t n, size_t *req,
                       double *bound, double *shortfall);

/* Whether every requirement holds on the means (not the bounds). */
bool tune_point_means_meet(const tune_store *st, const tune_point *p);

typedef struct tune_kn_opts {
    double confidence;             /* the probability of correct selection, 1 - alpha */
    double delta;                  /* the indifference zone (absolute) ... */
    double delta_fraction;         /* ... or, when delta <= 0, this fraction of the best mean */
    int64_t n0;                    /* first-stage replications (>= 2) */
    int64_t reps_max;              /* at most this many per point */
    size_t screened;               /* the points tune_screen chose the candidates from
                                      (0: none); KN's constant is for that many */
} tune_kn_opts;

typedef struct tune_choice {
    int kind;                      /* ANSWER_BEST or ANSWER_NONE_MEETS (sweep_answer.h) */
    tune_point *best, *runner_up, *closest;
    double delta;                  /* the zone used */
    int64_t stages;                /* the last stage's replications */
    bool out_of_budget;            /* stopped by --budget before KN ended */
} tune_choice;

/* KN among cands (k of them) on the store's runs.  TUNE_OK (also when the
 * budget stopped it: then out_of_budget, and the choice is the best so
 * far), or TUNE_FAILED. */
int tune_kn(tune_store *st, tune_point *const *cands, size_t k, const tune_kn_opts *o,
            tune_choice *out);
/* The point of c (k of them) nearest to meeting every requirement (the
 * least shortfall on its replications so far). */
tune_point *tune_closest(const tune_store *st, tune_point *const *c, size_t k);

/* The screen before KN (tune_screen.c): the first n replications of the k
 * points in c (run when they lack them), a point out when a requirement
 * fails at n (tune.h's look) or when a point that meets at n is better on
 * the objective beyond t S / sqrt(n) (paired, Bonferroni at alpha over the
 * k - 1 comparisons): the best survives with probability >= 1 - alpha.
 * The survivors are moved to the front of c, in their order, *kept of
 * them (all k when every point fails: KN then says so).  TUNE_OK (also
 * when the budget does not hold the n: nothing screened) or TUNE_FAILED. */
int tune_screen(tune_store *st, tune_point **c, size_t k, int64_t n, double alpha, size_t *kept);

typedef struct tune_compass_opts {
    const int64_t *sizes;          /* values of each knob */
    size_t dims;
    int64_t n0;                    /* replications of a new point */
    int64_t reps_max;
    size_t per_iteration;          /* new points each iteration */
    int64_t budget;                /* runs the search may spend; 0: no limit */
    size_t finalists;              /* how many go to KN */
    size_t starts;                 /* searches, each to its local optimum (0: one); the
                                      finalists are the best of all they visited */
    uint64_t seed;
    volatile const sig_atomic_t *interrupted;   /* non-zero: stop searching */
} tune_compass_opts;

/* COMPASS over the grid of sizes[]: the points for KN, best first, in
 * *out (at most o->finalists; caller frees the array).  TUNE_OK or
 * TUNE_FAILED. */
int tune_compass(tune_store *st, const tune_compass_opts *o, tune_point ***out, size_t *nout,
                 int64_t *iterations);

#endif
