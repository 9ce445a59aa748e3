/* fit.h -- a scenario that reproduces a trace's workload statistically
 * (`lsim fit`): the arrival process, the service time distribution, the
 * groups and the concurrency seen.
 */
#ifndef LSIM_SIM_FIT_H
#define LSIM_SIM_FIT_H

#include <stddef.h>

#include "timeline_data.h"

typedef struct fit_dist {
    const char *kind;              /* exponential, lognormal, gamma, constant */
    double mean_ms;
    double sigma;                  /* lognormal */
    double cv;                     /* gamma */
    double aic;                    /* NAN for constant */
} fit_dist;

/* Maximum-likelihood fits of positive samples (ms); [0] is the best by AIC
 * (or constant when the spread is below 1 %).  Returns how many fits. */
size_t fit_service(const double *x, size_t n, fit_dist out[4]);
/* Zipf exponent of group frequencies sorted largest first (MLE, GSL Brent). */
double fit_zipf(const double *counts, size_t ngroups);
/* The whole scenario as YAML; `meta` looks up the trace's metadata. */
char *fit_scenario(const char *trace_path, const run_data *rd, const name_table *groups,
                   const char *(*meta)(const void *src, const char *key), const void *src);

#endif
