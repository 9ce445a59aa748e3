/* fit.h -- a scenario that reproduces a trace's workload statistically
 * (`lsim fit`): the arrival process, the service time distribution, the
 * groups and the concurrency seen.
 */
#ifndef LSIM_SIM_FIT_H
#define LSIM_SIM_FIT_H

#include <stddef.h>

#include "analysis/fit_measure.h"
#include "base/mem.h"
#include "analysis/timeline_data.h"

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

/* `lsim fit --replay`: a scenario replaying the trace through its container's
 * model, with the metadata's settings and the knobs measured from it
 * (fit_replay.c).  `arrivals_path` is what the scenario's arrivals name.
 * NULL, with d set, when the trace cannot be replayed (no metadata naming a
 * container lsim models, no consumer events).  `deterministic`: every
 * measured knob as its mean, none as the distribution its samples show. */
char *fit_replay(const char *trace_path, const char *arrivals_path, const run_data *rd,
                 const char *(*meta)(const void *src, const char *key), const void *src,
                 bool deterministic, sim_diag *d);
/* A metadata value without the comment in parentheses after it (the
 * caller frees it); NULL when `v` is NULL or holds no value. */
char *fit_meta_strip(const char *v);

/* The containers a trace can be replayed through. */
typedef enum { FIT_SMLC, FIT_DIRECT, FIT_DMLC, FIT_POOL } fit_container;
/* Their `container.kind`, by fit_container. */
extern const char *const fit_container_kinds[4];

/* A container setting under its two names: the trace metadata's
 * (TRACE_FORMAT.md, "Metadata that a replay honours") and the scenario's.
 * The one map both directions use: a simulated run's trace writes it
 * (fit_tracemeta.c), `fit --replay` reads it back (fit_replay.c). */
typedef enum {
    FIT_KEY_INT,                   /* a whole number */
    FIT_KEY_MS,                    /* a duration: milliseconds in the trace */
    FIT_KEY_TEXT,                  /* as it stands (concurrency "1-5") */
} fit_key_value;
typedef struct fit_trace_key {
    const char *trace_key, *key;
    fit_key_value value;
    unsigned containers;           /* the containers that have it: 1u << fit_container */
    unsigned replay_late;          /* those whose replay writes it after the others */
    double lo, hi;                 /* FIT_KEY_INT: the values the model takes */
    bool nonzero;                  /* and not 0 (below 0 means no limit) */
} fit_trace_key;
/* In the order both write them; ends with an entry whose key is NULL. */
extern const fit_trace_key fit_trace_keys[];

/* Refuses, at the metadata line (path:line:column), a value the replay
 * would write into a scenario that `lsim check` refuses: a setting out of
 * the model's range, not a number, a concurrency above its maximum, a
 * node start that is no time; and a trace with begins but no publish
 * (fit_metacheck.c).  SIM_OK or SIM_EINPUT with d set. */
int fit_check_meta(const char *path, const run_data *rd, fit_container kind, sim_diag *d);
/* The trace's publishes: SIM_EINPUT (d set) when it begins messages but
 * publishes none (a scenario of no message is refused by check). */
int fit_check_publishes(const char *path, const run_data *rd, sim_diag *d);

/* The metadata lines ("# key: value\n") of a simulated run's trace: its
 * container, version, settings, nodes and changes, read from the scenario
 * in normal form (fit_tracemeta.c). */
char *fit_trace_metadata(const cfg_node *root);
/* For compare: the container kind ("smlc", "direct", "dmlc") and the full
 * library version ("" when none) the trace's metadata names; false when it
 * names no container lsim models. */
bool fit_trace_container(const char *(*meta)(const void *src, const char *key), const void *src,
                         const run_data *rd, const char **kind, char *version, size_t size);
/* When each of the trace's first n nodes started its container, ms (an
 * array of n the caller frees), and from which fact (how[k]). */
double *fit_trace_node_starts(const char *(*meta)(const void *src, const char *key),
                              const void *src, const run_data *rd, int n, const char **how);
/* "x.y.z" after `marker` in text (a library's version, trailing dots left
 * out), into buf; false when text has no marker with digits after it, or
 * they do not fit. */
bool fit_version_after(const char *text, const char *marker, char *buf, size_t size);
/* The broker, queues and container of a replay of a plain AMQP consumer
 * pool's trace (`kind pool` in its container line: lsim record's own
 * consumers), as YAML from `broker:` on, into b (fit_pool.c).  It reads
 * the trace at trace_path once more, for its requeues. */
int fit_pool_yaml(strbuf *b, const char *trace_path, const char *arrivals,
                  const run_data *rd, bool deterministic, sim_diag *d);
/* A measured duration as a key of a scenario's map (two spaces in), the
 * samples' summary in a comment first: a lognormal when they spread, else
 * (or when as_mean) their mean. */
void fit_samples_yaml(strbuf *b, const fit_samples *s, const char *key, bool as_mean);
/* A duration of ms milliseconds as whole microseconds ("1500us"; below 0: 0). */
void fit_yaml_us(strbuf *b, double ms);

/* The width of the windows of a measured cycleOverhead schedule. */
#define FIT_WINDOW_MS 5000.0

#endif
