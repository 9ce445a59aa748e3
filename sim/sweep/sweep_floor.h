/* sweep_floor.h -- a requirement no container setting can meet.
 *
 * A message's latency is at least its service time, so the service time's
 * p-quantile is a floor under pNN_latency_ms (and its mean under
 * mean_latency_ms) whatever the container does.  When that floor breaks a
 * requirement at the closest point, a sweep with no meeting point says so
 * first.  Read from runs.parameters, so a sweep, a merged plan and
 * `lsim report` find the same floor; over several consumed queues the
 * lowest (a floor still).
 */
#ifndef LSIM_SIM_SWEEP_FLOOR_H
#define LSIM_SIM_SWEEP_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sqlite3;
struct sweep_spec;

typedef struct sweep_floor {
    bool is_set;
    size_t req;                    /* index in spec->reqs */
    double level;                  /* the quantile's level; 0: the mean */
    double value_ms;               /* the service time's quantile (or mean) */
    char *queue;                   /* the queue it is of (owned) */
} sweep_floor;

/* The first requirement the service time alone breaks at `point`, if any. */
void floor_find(struct sqlite3 *db, const struct sweep_spec *s, int64_t point, sweep_floor *f);
void floor_fini(sweep_floor *f);

/* The floor at full concurrency: the point's scenario (runs.parameters, its
 * first replication's seed) run once more with every consumer from the
 * start, concurrentConsumers = maxConcurrentConsumers (smlc, dmlc).  No
 * scaling setting (triggers, intervals, concurrentConsumers) gets more out
 * of that maximum, so when even this run breaks a latency requirement the
 * sweep says so first: only a larger maximum, or a faster listener, can. */
typedef struct sweep_fullcon {
    bool is_set;
    size_t req;                    /* index in spec->reqs */
    double value;                  /* the run's figure of the requirement's metric */
    long consumers;                /* maxConcurrentConsumers, a node */
} sweep_fullcon;

void fullcon_find(struct sqlite3 *db, const struct sweep_spec *s, int64_t point,
                  sweep_fullcon *f);

#endif
