/* dist.h -- distributions of durations (service times, worker times).
 *
 * Parsed from a scenario mapping such as { kind: lognormal, mean: 100ms,
 * sigma: 0.5 }; drawn from a named stream; the result is rounded to the
 * nanosecond and never negative.
 */
#ifndef LSIM_SIM_DIST_H
#define LSIM_SIM_DIST_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>

#include "input/config.h"
#include "engine/random.h"

typedef enum {
    DIST_CONSTANT, DIST_EXPONENTIAL, DIST_LOGNORMAL, DIST_GAMMA, DIST_UNIFORM, DIST_EMPIRICAL
} dist_kind;

typedef struct sim_dist {
    dist_kind kind;
    int64_t value;                 /* constant */
    double mean;                   /* ns: exponential, lognormal, gamma */
    double mu, sigma;              /* lognormal: of the logarithm */
    double shape, scale;           /* gamma: shape 1/cv^2, scale in ns */
    int64_t min, max;              /* uniform */
    int64_t *values;               /* empirical */
    size_t nvalues;
    gsl_ran_discrete_t *table;     /* empirical with weights */
    double *weights;               /* empirical: the weights as given (NULL: equal) */
} sim_dist;

/* An exponential variate of the given mean from r's uniform numbers.
 * Inversion with log(u) rather than GSL's log1p(-u): the same law (u and
 * 1-u are both uniform) at half the cost, which shows in M/M/c runs where
 * two draws are most of the work for a message. */
static inline double dist_exponential(gsl_rng *r, double mean)
{
    return -mean * log(random_uniform_pos(r));
}

/* Reads a distribution mapping (`what` names it in messages). */
int dist_parse(cfg_node *node, const char *what, sim_dist *out, sim_diag *d);
void dist_constant(sim_dist *out, int64_t value);
/* A draw in ns: rounded, never negative, at most INT64_MAX / 4. */
static inline int64_t dist_to_ns(double v)
{
    if (!(v > 0))
        return 0;
    if (v > 9.0e18)
        return INT64_MAX / 4;
    return (int64_t)(v + 0.5);
}
int64_t dist_draw_any(const sim_dist *dist, gsl_rng *r);
/* One draw; the exponential, the M/M/c case, without a call. */
static inline int64_t dist_draw(const sim_dist *dist, gsl_rng *r)
{
    if (dist->kind == DIST_EXPONENTIAL)
        return dist_to_ns(dist_exponential(r, dist->mean));
    return dist_draw_any(dist, r);
}
double dist_mean(const sim_dist *dist);
/* The p-quantile in ns (0 < p < 1): the smallest duration that at least a
 * share p of the draws do not exceed (GSL's inverse cdfs; for an empirical
 * list, its values in order). */
double dist_quantile(const sim_dist *dist, double p);
void dist_fini(sim_dist *dist);

/* ---- calibration knobs ------------------------------------------------------ */

/* A calibration knob (startLatency, cycleOverhead, ...): a duration, a
 * schedule of durations (where the key allows one), a distribution
 * mapping ({ kind: lognormal, mean: 6ms, sigma: 0.6 }), or a schedule
 * whose values are durations or such mappings (a JVM that warms up, each
 * use a draw), drawn from a stream of its own, so the other streams of a run draw what they drew without it
 * and a plain duration draws nothing at all. */
typedef struct sim_knob {
    duration_steps steps;          /* a duration (one step) or a schedule */
    sim_dist dist;                 /* a distribution, when rng is set */
    sim_dist *step_dists;          /* a schedule of distributions: one a step (steps.value:
                                    * their means), drawn from rng; NULL else */
    gsl_rng *rng;
    bool is_fixed;                 /* one value from time 0 on (a plain duration): */
    int64_t fixed_ns;              /* this one, what steps gives at any time */
} sim_knob;

struct sim_ctx;
/* Reads `key` of `map` (default `def`); `stream` names its random stream;
 * a list of steps only when `allow_steps`. */
int knob_read(struct sim_ctx *ctx, cfg_node *map, const char *key, int64_t def,
              bool allow_steps, const char *stream, sim_knob *out, sim_diag *d);
/* The knob's value for one use at time `now` (a draw for a distribution);
 * a plain duration, the common case, without a call. */
int64_t knob_draw_any(const sim_knob *k, int64_t now);
static inline int64_t knob_draw(const sim_knob *k, int64_t now)
{
    return k->is_fixed ? k->fixed_ns : knob_draw_any(k, now);
}
/* Whether each use draws (a distribution) rather than reads a duration or
 * a schedule: n uses at one time then cost n draws, not n times one value. */
static inline bool knob_draws(const sim_knob *k) { return k->rng != NULL; }
/* The knob's typical value at `now`: a distribution's mean (truncated to
 * whole nanoseconds), else the duration in force; draws nothing. */
int64_t knob_mean(const sim_knob *k, int64_t now);
void knob_fini(sim_knob *k);

#endif
