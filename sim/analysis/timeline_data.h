/* timeline_data.h -- a whole run held in memory for analysis: its messages
 * and its consumers' lifetimes, loaded from a real trace or from the
 * database of a simulated run.  `lsim compare` and `lsim fit` work on it.
 *
 * Times are milliseconds (double), as in the database.  Nodes, consumers
 * and groups become small integers: nodes in order of first appearance
 * (real "node-1" and simulated node 1 are node 0), consumers per node in
 * order of first appearance, groups by name through a table shared by the
 * two runs being compared, so the same group has the same index in both.
 */
#ifndef LSIM_SIM_TIMELINE_DATA_H
#define LSIM_SIM_TIMELINE_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "input/config.h"
#include "engine/engine.h"

struct sqlite3;

typedef struct td_msg {
    double t_publish, t_begin, t_end;   /* NAN when it did not happen */
    int group;                     /* -1: none */
    int node, consumer;            /* -1: never begun */
    char *name;                    /* the trace's id; NULL for simulated ones */
    double t_deliver;              /* traces: the last `deliver` before its begin; else NAN */
} td_msg;

typedef struct td_consumer {
    int node, consumer;
    double t_start, t_stop;        /* t_stop NAN: ran to the end (or stopped by shutdown) */
} td_consumer;

typedef struct run_data {
    td_msg *msgs;                  /* in publish order */
    size_t nmsgs, capmsgs;
    td_consumer *cons;             /* in start order */
    size_t ncons, capcons;
    char **nodes;                  /* node names, index = node */
    int nnodes;
    double end_ms;                 /* end of observation: shutdown, or the last event */
    char *queue;                   /* the queue of the first message (traces) */
    char *other_queue;             /* the first publish to another queue, or NULL */
    char **meta;                   /* traces: the metadata, key and value in turn */
    size_t nmeta;                  /* pairs */
    int *meta_where;               /* per pair: its line and its value's column */
} run_data;

/* Loads a trace.  `groups` interns group names (shared with the other run). */
int run_data_from_trace(const char *path, name_table *groups, run_data *out, sim_diag *d);
/* Loads run `run` of a simulation database. */
int run_data_from_db(struct sqlite3 *db, int64_t run, name_table *groups, run_data *out,
                     char *err, size_t errsize);
void run_data_free(run_data *rd);
/* A trace's `# key: value` metadata, kept from the one reading (a trace
 * on a pipe, /dev/stdin, cannot be read twice); NULL when absent. */
const char *run_data_meta(const run_data *rd, const char *key);
/* Where key's value is in the trace (line, column): false when absent. */
bool run_data_meta_where(const run_data *rd, const char *key, int *line, int *column);

/* A run's consumers grouped by node, so that a pass per node reads only
 * that node's: node k's (0 <= k < nodes) are rd->cons[idx[at[k]]] ..
 * rd->cons[idx[at[k + 1] - 1]], in rd->cons order (start order; a user may
 * reorder each node's part).  Those of other nodes, and those for which
 * keep(ctx, c) is false when `keep` is given, are left out.  Built in two
 * passes over the consumers; the owner frees it. */
typedef struct td_by_node {
    int nodes;
    size_t *at;                    /* [nodes + 1] */
    size_t *idx;                   /* [at[nodes]] */
} td_by_node;
void td_by_node_init(td_by_node *bn, const run_data *rd, int nodes,
                     bool (*keep)(const void *ctx, const td_consumer *c), const void *ctx);
void td_by_node_free(td_by_node *bn);
/* The consumers it holds, of every node. */
static inline size_t td_by_node_count(const td_by_node *bn) { return bn->at[bn->nodes]; }

#endif
