/* engine.h -- the inside of a run, for the engine's own files.
 *
 * Models never include this: they see sim.h.  run.c builds a context from
 * a scenario, engine.c runs its calendar, message.c keeps the messages and
 * their statistics, and summary.c turns those into the summary metrics.
 */
#ifndef LSIM_SIM_ENGINE_H
#define LSIM_SIM_ENGINE_H

#include <signal.h>

#include "engine/calendar.h"
#include "base/names.h"
#include "engine/order.h"
#include "engine/random.h"
#include "engine/sim.h"
#include "engine/stats.h"
#include "store/timeline.h"

struct trace_writer;

enum { SIM_DETAIL_SUMMARY, SIM_DETAIL_SAMPLES, SIM_DETAIL_MESSAGES };

typedef struct consumer_rec {
    /* messages and busy_ns change together at every end; apart, so the
     * compiler adds to them as two integers, not as one vector */
    sim_time t_start;
    int64_t messages;
    sim_time t_stop;
    sim_time busy_ns;
    int queue;
    bool is_alive;
    const char *stop_reason;
} consumer_rec;

typedef struct node_state {
    level consumers;               /* alive */
    level busy;                    /* listeners running */
    consumer_rec *cons;            /* index = consumer id - 1 */
    size_t ncons, cap;
} node_state;

/* Where messages wait (waiting.c).  Two engine-private bits of sim_msg.flags
 * say where a message is: at a consumer (delivered, not yet done or
 * requeued: unacknowledged) and prefetched (delivered, not yet begun).
 * message.c has 0x100 to 0x400. */
#define MSG_AT_CONSUMER 0x1000u
#define MSG_PREFETCHED  0x2000u

typedef struct waiting_counts {    /* one node's, on one queue */
    int64_t consumers, busy, prefetched, unacked;
} waiting_counts;

typedef struct waiting {
    waiting_counts *nq;            /* [queue * nnodes + node - 1] */
    int64_t *ready;                /* [queue]: ready in the broker */
    int nqueues;
    level_peak ready_all, unacked_all; /* the summary keeps their maxima */
    level prefetched_all;          /* and this one's mean too */
} waiting;

typedef struct metric {
    char *name;
    double value;
} metric;

typedef struct msg_block {
    struct msg_block *next;
    sim_msg msgs[1024];
} msg_block;

/* What only a delivered message needs, apart from the 56 bytes every queued
 * message carries (sim.h): taken at its first delivery (or begin), given
 * back with the message.  In the pool, `holds` links the free records. */
typedef struct msg_delivery {
    sim_time t_deliver, t_begin, t_end;   /* -1 until it happens */
    sim_time t_first_deliver;      /* the first delivery (or begin), kept across redeliveries */
    int32_t node, consumer;        /* who last took it */
    uint32_t requeues;
    uint32_t deliveries;           /* times handed to a consumer */
    uint32_t processed;            /* times a listener ran to its end on it */
    uint32_t holds;                /* listeners still running on it after their channel closed */
    uint32_t key;                  /* its order key's id in its queue (order_key_at) */
} msg_delivery;

/* Delivery records by index: block i >> 10, slot i & 1023.  Index 0 means
 * "none" and is never on the free list (it is handed out only once the run
 * has failed at 2^31 records, delivery_grow), and indices stay below 2^31.
 *
 * sim_msg.delivery says what a message has: 0 until it is published; then
 * MSG_DELIVERY_KEY | the id of its order key, found at publish, until its
 * first delivery takes a record, which keeps that id (`key`);
 * from then on the record's index. */
#define MSG_DELIVERY_KEY 0x80000000u
#define MSG_DELIVERY_SHIFT 10
#define MSG_DELIVERY_BLOCK (1u << MSG_DELIVERY_SHIFT)
typedef struct delivery_pool {
    msg_delivery **blocks;
    uint32_t nblocks, capblocks;
    uint32_t free;                 /* the first free record, 0 = none */
} delivery_pool;

struct sim_ctx {
    /* ---- settings: fixed once the run starts ---- */
    uint64_t seed;
    int64_t run_id;
    int detail;                    /* SIM_DETAIL_* */
    sim_time duration;             /* SIM_NEVER: until the work is done */
    sim_time tail;
    sim_time warmup;               /* messages published before it are not in the statistics */
    sim_time sample_interval;      /* 0: no samples */
    timeline *tl;                  /* NULL: no database */
    struct trace_writer *tw;       /* NULL: no --trace */
    bool quiet, progress;
    char *base_dir;                /* the scenario's folder, for relative paths */
    int nnodes;

    /* ---- clock and calendar ---- */
    sim_time now;
    calendar cal;
    random_streams streams;
    uint64_t events;
    uint64_t fingerprint;          /* a hash of every event's (time, type name) */
    struct {
        const sim_event_type *type;
        uint64_t hash;
    } name_hash[64];               /* cache: hashing a name costs more than an event */
    volatile const sig_atomic_t *interrupted;   /* set from a signal handler: stop soon */
    size_t mem_limit;              /* bytes the growing structures may take; 0: none */
    size_t mem_reserved;           /* of which the models' tables take (sim_memory_reserve) */
    uint64_t rows_warn_bytes;      /* projected message rows past this: a warning; 0: none */
    sim_time rows_check_at;        /* when warn_rows() projects them (1 % of the run) */
    uint64_t samples_warn_bytes;   /* samples past this: a warning before the run; 0: none */
    long samples_runs;             /* runs of these samples in the database: 0 or 1 is one */
    /* The loop's two checks, each one comparison an event: an event due
     * after `horizon` waits for its slow path (a sample, the end), and
     * once `now` reaches `attend_at` it looks after one (a failure, the
     * rows warning).  Both follow what they stand for, set where it
     * changes (set_end, sim_fail). */
    sim_time horizon;              /* min(next_sample, end_at, SIM_NEVER - 1) */
    sim_time attend_at;            /* rows_check_at, or INT64_MIN once failed */
    sim_time next_sample;          /* SIM_NEVER: no samples */
    sim_time end_at;               /* SIM_NEVER until known */
    sim_time workload_end;
    int open_sources;
    struct {                       /* watch_stall: since a message last ended */
        uint64_t ended, events, redeliveries;
        sim_time since;
    } stall;
    bool failed;
    char error[SIM_ERROR_SIZE];
    const sim_model_ops *root;
    void *root_self;

    /* ---- messages ---- */
    msg_block *blocks;
    size_t nblocks;
    sim_msg *free_msgs;
    delivery_pool deliveries;
    uint64_t live;                 /* published and not yet done */
    uint64_t next_msg_id;

    name_table groups, queues;

    /* ---- statistics ---- */
    uint64_t published, completed, requeues, violations, inversions;
    uint64_t dropped, dead_lettered, duplicates, redeliveries, consumer_timeouts;
    sim_time first_publish;        /* the flow window (throughput_per_s): the first publish ... */
    sim_time last_completed;       /* ... to the last message completed; valid once completed > 0 */
    histogram latency, wait;
    order_tracker order;
    node_state *nodes;
    level consumers_all;           /* alive on every node together */
    waiting waiting;
    metric *metrics;               /* the summary, built by summary.c */
    size_t nmetrics, capmetrics;
    char **warnings;
    size_t nwarnings, capwarnings;
    char **inputs;                 /* files the run reads (sim_resolve_path) */
    size_t ninputs, capinputs;
};

/* waiting.c: the message calls of message.c and engine.c report here. */
void waiting_published(sim_ctx *ctx, sim_msg *m);
/* The same when m's queue has its counters already (queue < nqueues). */
void waiting_published_counted(sim_ctx *ctx, sim_msg *m);
void waiting_delivered(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node);
/* The same for a message that has just taken its record: it waits ready. */
void waiting_first_delivery(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node);
void waiting_begin(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node);
/* waiting_first_delivery and waiting_begin at one instant. */
void waiting_first_begin(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node);
void waiting_end(sim_ctx *ctx, const sim_msg *m, int node);
void waiting_requeued(sim_ctx *ctx, sim_msg *m, const msg_delivery *d);
void waiting_done(sim_ctx *ctx, sim_msg *m, const msg_delivery *d);   /* d: NULL if none */
void waiting_consumers(sim_ctx *ctx, int node, int queue, int64_t delta);
void waiting_fini(sim_ctx *ctx);
/* The number of queues the samples cover (every queue registered). */
int waiting_queues(const sim_ctx *ctx);
waiting_counts waiting_at(sim_ctx *ctx, int node, int queue);
int64_t waiting_ready(sim_ctx *ctx, int queue);

sim_ctx *sim_ctx_create(uint64_t seed);
void sim_ctx_destroy(sim_ctx *ctx);
/* Runs the calendar to the end of the run (sampling on the way). */
int sim_run(sim_ctx *ctx);
/* Closes what is open at the end: consumers alive, messages in flight. */
void sim_close_books(sim_ctx *ctx);
/* Builds ctx->metrics from the statistics (summary.c). */
void sim_summarise(sim_ctx *ctx);
const metric *sim_find_metric(const sim_ctx *ctx, const char *name);

/* Called by message.c when a message is done: the work may have run out. */
void engine_message_gone(sim_ctx *ctx);

/* message.c */
void messages_fini(sim_ctx *ctx);
/* A record index is positive as an int32_t; MSG_DELIVERY_KEY is the sign
 * bit, and 0 is none. */
static inline bool message_has_delivery(const sim_msg *m)
{
    return (int32_t)m->delivery > 0;
}
/* The delivery record of a message that has one. */
static inline msg_delivery *message_delivery(const sim_ctx *ctx, const sim_msg *m)
{
    return &ctx->deliveries.blocks[m->delivery >> MSG_DELIVERY_SHIFT]
                                  [m->delivery & (MSG_DELIVERY_BLOCK - 1)];
}
/* Writes the rows of the messages still in flight, in publish order. */
void messages_write_live(sim_ctx *ctx);
/* How many messages still in flight were processed more than once. */
uint64_t messages_live_duplicates(const sim_ctx *ctx);

#endif
