/* compare.h -- how far a simulated run is from a real one.
 *
 * Each metric has a simulated and a real figure (where that makes sense)
 * and a difference; a metric with a tolerance is judged: the difference
 * must not exceed it.  The default tolerances are those the project
 * accepts for a model (README, "Comparing with a real trace"); the user
 * changes them with --tolerance NAME=VALUE.
 */
#ifndef LSIM_SIM_COMPARE_H
#define LSIM_SIM_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/timeline_data.h"

/* VERDICT_BAND (--reps): beyond the single run's tolerance, but the real
 * value lies inside the band of the replications' outcomes. */
typedef enum { VERDICT_NONE, VERDICT_OK, VERDICT_OUTSIDE, VERDICT_BAND } verdict;

typedef struct cmp_metric {
    char name[80];
    double sim, real;              /* NAN when there is no such figure */
    double diff;                   /* what the tolerance bounds */
    double tolerance;              /* NAN: not judged */
    verdict verdict;
    const char *what;              /* one line: what it measures */
    double band_lo, band_hi;       /* --reps: the 95 % prediction band of `sim`; NAN: none */
} cmp_metric;

typedef struct cmp_result {
    cmp_metric *m;
    size_t n, cap;
    bool pass;                     /* every judged metric is within its tolerance */
} cmp_result;

typedef struct cmp_tolerance {
    const char *name;
    double value;
    bool floored;                  /* a default widened by --noise: a metric's floor still applies */
} cmp_tolerance;

/* The names of the metrics compare reports, with their default tolerances
 * (NAN: not judged unless the user gives one).  Ends with { NULL }. */
extern const cmp_tolerance compare_defaults[];

/* True if `name` is a metric compare reports (for --tolerance). */
bool compare_knows(const char *name);
void compare_runs(const run_data *sim, const run_data *real, const cmp_tolerance *tols,
                  size_t ntols, cmp_result *out);
void compare_result_free(cmp_result *r);

/* The sorted start (or stop) times of node's consumers (bn: rd's by node),
 * before `end`; *n of them. */
double *cmp_event_times(const run_data *rd, const td_by_node *bn, int node, bool stops,
                        double end, size_t *n);

/* ---- prediction bands (compare --reps N, compare_band.c) ---- */

/* The k-th start (or stop) of a node: the real time and the band of the
 * replications' times. */
typedef struct cmp_event_band {
    int node, k;
    bool is_stop;
    double real, lo, hi;           /* NAN: no such event in the real run, or in no replication */
    int nsim;                      /* replications that had it */
    bool is_inside;
} cmp_event_band;

typedef struct cmp_bands {
    cmp_event_band *ev;
    size_t nev, cap;
} cmp_bands;

/* Bands over `reps` replications (results[r] compares sims[r] with real):
 * each metric's band of its simulated figure goes into results[0], whose
 * verdicts become ok (within tolerance in replication 0), band (the real
 * figure, or for the start and stop times every real event, inside the
 * band) or outside; results[0].pass is then false only for outside. */
void compare_bands(cmp_result *results, const run_data *sims, size_t reps,
                   const run_data *real, cmp_bands *out);
void compare_bands_free(cmp_bands *b);
/* The 95 % prediction band of sorted values (order statistics), *lo and *hi. */
void compare_band_of(const double *sorted, size_t n, double *lo, double *hi);

#endif
