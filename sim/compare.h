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

#include "timeline_data.h"

typedef enum { VERDICT_NONE, VERDICT_OK, VERDICT_OUTSIDE } verdict;

typedef struct cmp_metric {
    char name[80];
    double sim, real;              /* NAN when there is no such figure */
    double diff;                   /* what the tolerance bounds */
    double tolerance;              /* NAN: not judged */
    verdict verdict;
    const char *what;              /* one line: what it measures */
} cmp_metric;

typedef struct cmp_result {
    cmp_metric *m;
    size_t n, cap;
    bool pass;                     /* every judged metric is within its tolerance */
} cmp_result;

typedef struct cmp_tolerance {
    const char *name;
    double value;
} cmp_tolerance;

/* The names of the metrics compare reports, with their default tolerances
 * (NAN: not judged unless the user gives one).  Ends with { NULL }. */
extern const cmp_tolerance compare_defaults[];

/* True if `name` is a metric compare reports (for --tolerance). */
bool compare_knows(const char *name);
void compare_runs(const run_data *sim, const run_data *real, const cmp_tolerance *tols,
                  size_t ntols, cmp_result *out);
void compare_result_free(cmp_result *r);

#endif
