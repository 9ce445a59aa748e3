/* timeline.h -- the SQLite output: one database per run or per sweep.
 *
 * Rows are buffered and written many to an INSERT, inside one
 * transaction.  The database is written under a
 * temporary name beside the target and renamed into place only by
 * timeline_close(keep=true): a failed run leaves nothing that looks
 * complete.  Times are given in nanoseconds and stored as REAL
 * milliseconds, relative to the start of the run.
 *
 * The writing itself happens on a thread of the timeline's own (timeline.c).
 *
 * Errors are sticky: after the first failure every call does nothing and
 * timeline_error() returns the reason.
 */
#ifndef LSIM_SIM_TIMELINE_H
#define LSIM_SIM_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct timeline timeline;

#define TL_NULL_TIME INT64_MIN     /* a time that did not happen: NULL */

typedef struct tl_message {
    int64_t msg;
    const char *queue, *group;     /* group NULL: none */
    int node, consumer;            /* 0: NULL */
    int64_t t_publish, t_deliver, t_begin, t_end;   /* ns or TL_NULL_TIME */
    int64_t t_first_deliver;       /* the first delivery: t_deliver unless redelivered */
    int64_t t_fate;                /* when it left the broker (acked, dropped, dead-lettered) */
    int requeues;
    int deliveries;                /* times handed to a consumer */
    const char *fate;              /* acked, dropped:<reason>, dead-lettered:<reason>, unfinished */
} tl_message;

typedef struct tl_consumer {
    int node, consumer;
    const char *queue;
    int64_t t_start, t_stop;
    int64_t messages;
    int64_t busy_ns;
    const char *stop_reason;
} tl_consumer;

/* A sample of one node and queue (samples table). */
typedef struct tl_sample {
    int node;
    const char *queue;
    int64_t ready;                 /* ready in the broker (the queue_depth column) */
    int64_t consumers, busy;       /* this node's, on this queue */
    int64_t prefetched;            /* delivered to this node's consumers, not begun */
    int64_t unacked;               /* delivered, not yet acknowledged (prefetched included) */
} tl_sample;

typedef struct tl_run {
    int64_t run;
    const char *scenario;
    uint64_t seed;
    const char *parameters;        /* JSON */
    int64_t point, replication;    /* sweeps; -1 = NULL */
    const char *started_at;        /* wall clock, ISO 8601; not part of results */
    const char *fingerprint;       /* hex hash of the event sequence */
} tl_run;

/* Creates the database under a temporary name.  On failure returns NULL and
 * writes the reason into err. */
timeline *timeline_open(const char *path, char *err, size_t errsize);
void timeline_run(timeline *tl, const tl_run *r);
void timeline_message(timeline *tl, int64_t run, const tl_message *m);
void timeline_consumer(timeline *tl, int64_t run, const tl_consumer *c);
void timeline_scaling(timeline *tl, int64_t run, int64_t t, int node, const char *action,
                      int consumers_after, const char *rule, const char *detail);
void timeline_sample(timeline *tl, int64_t run, int64_t t, const tl_sample *s);
void timeline_summary(timeline *tl, int64_t run, const char *metric, double value);
void timeline_consumer_metric(timeline *tl, int64_t run, int node, int consumer,
                              const char *metric, double value);
/* Runs an SQL statement of the caller's (extra tables: sweeps, compare). */
int timeline_exec(timeline *tl, const char *sql);
/* The underlying handle, for callers that add their own tables. */
struct sqlite3 *timeline_db(timeline *tl);
/* Waits until every row given so far is written.  Text the rows borrowed
 * (queue and group names of a run) may be freed after it returns. */
void timeline_sync(timeline *tl);
const char *timeline_error(timeline *tl);
const char *timeline_path(const timeline *tl);
/* keep: flush, commit and rename into place; otherwise discard.  Returns 0,
 * or -1 with the reason in err (the temporary file is then removed). */
int timeline_close(timeline *tl, bool keep, char *err, size_t errsize);

#endif
