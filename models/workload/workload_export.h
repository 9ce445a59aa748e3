/* workload_export.h -- what a scenario's workloads publish, message by
 * message, without running any broker or container: the load `lsim record`
 * sends to a real broker.
 *
 * registry_export_root() is the world built as for a run (every key read
 * and checked, every default filled in), but its workloads publish into a
 * sink that keeps each message's row and forgets the message, and its
 * containers never start.  The streams are the run's own (seeded from the
 * scenario's seed and each component's name), so the rows are exactly the
 * messages a run of the scenario publishes.
 */
#ifndef LSIM_MODELS_WORKLOAD_EXPORT_H
#define LSIM_MODELS_WORKLOAD_EXPORT_H

#include "core/model.h"

typedef struct export_row {
    sim_time t_ns;                 /* its publish time */
    uint64_t id;                   /* the run's message id: 1, 2, ... */
    sim_time service_ns;
    int group;                     /* the run's group index, -1: none */
    int queue;                     /* the run's queue index */
    int group_seq;                 /* JMSXGroupSeq as the brokers act on it: 1, -1 or 0 (unset) */
} export_row;

typedef struct export_rows {
    export_row *v;
    size_t n, cap;
} export_rows;

/* The root model of an export run, and its rows once the run has ended
 * (borrowed from the model: valid until the run is freed). */
const sim_model_ops *registry_export_root(void);
const export_rows *workload_export_rows(const void *root_self);

/* The sink itself (world.c hands it to the workloads). */
broker *workload_sink_create(void);
const export_rows *workload_sink_rows(const broker *b);

#endif
