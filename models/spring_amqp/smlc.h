/* smlc.h -- the inside of `container.kind: smlc`, Spring AMQP's
 * SimpleMessageListenerContainer, shared by its three files:
 *
 *   container_smlc.c  the consumer threads (cycle, poll, listener, acks,
 *                     exit), consumersLock, consumer starts and stops and
 *                     their scaling rows, the changes' runner, the ops table
 *   smlc_scaling.c    checkAdjust, considerAdding/StoppingAConsumer, the
 *                     documented rules, the runtime setters: each decides
 *                     and returns what to do and why; it never acts
 *
 * One direction: the container calls the rules, the rules never call the
 * container.
 *   smlc_config.c     the scenario keys, setConcurrency's parser, changes
 *
 * Naming: the fields and functions say what the real class calls them
 * (consecutiveMessages is `msgs`, consumers.size() is `size` ...).
 */
#ifndef LSIM_MODELS_SMLC_H
#define LSIM_MODELS_SMLC_H

#include "spring_amqp/amqp_version.h"
#include "engine/dist.h"
#include "core/listener_failures.h"
#include "core/model.h"

#define SMLC_NEVER INT64_MIN       /* lastConsumerStarted/Stopped: no start or stop yet */

typedef enum {
    SC_STARTING,                   /* thread started; basic.consume not answered yet */
    SC_POLLING,                    /* in nextMessage(receiveTimeout) with an empty buffer */
    SC_LISTENING,                  /* the listener runs */
    SC_GAP,                        /* the overhead at the end of a busy cycle */
    SC_WAITING,                    /* queued for consumersLock */
    SC_HOLDING,                    /* holds consumersLock while a consumer it added starts */
    SC_STOPPED                     /* the thread has returned */
} smlc_state;

typedef struct smlc smlc;

typedef struct smlc_consumer {
    smlc *s;
    int id;                        /* the engine's consumer number */
    smlc_state state;
    consumer_port *ports;          /* one basic.consume per queue, one channel */
    sim_msg *buf_head, *buf_tail;  /* BlockingQueueConsumer's local queue (linked by next) */
    int64_t nbuf;
    sim_msg *over_head, *over_tail;/* held by the client while the local queue is full */
    int64_t nover;
    sim_msg **taken;               /* this cycle's deliveries, in order (batchSize of them) */
    int ntaken, polls;
    sim_time deadline;             /* the current poll gives up at this instant */
    sim_event_id timer;            /* the end of the current poll or gap */
    int msgs, idles;               /* consecutiveMessages, consecutiveIdles */
    bool is_member;                /* in `consumers`: isActive(consumer) */
    bool is_counted;               /* counts in consumers.size() */
    bool is_cancelled;             /* basic.cancel sent (1.3: quiesced) */
    bool is_marked_for_stop;       /* 4.1 markForStopIfExcess */
    bool has_failed;               /* the listener threw in this cycle */
    bool is_closed;                /* the broker closed the channel (consumer_timeout) */
    sim_msg *held;                 /* the listener's message when the channel closed */
    sim_time held_begin;           /* when that listener began */
    int attempt;                   /* stateless retry: attempts made on the current message */
    lf_outcome pending;            /* stateful retry: the failure thrown after the back-off */
    const char *stop_reason;       /* for the consumers table: "scale-down" or "change" */
    bool is_continuable;           /* 1.3.0-1.4.5: the last cycle received, not transacted */
    int64_t cycles, idle_cycles, failures;
} smlc_consumer;

/* One setter call of a runtime change. */
typedef enum {
    OP_CONCURRENT,                 /* setConcurrentConsumers(value) */
    OP_MAX,                        /* setMaxConcurrentConsumers(value) */
    OP_CONCURRENT_FIELD,           /* this.concurrentConsumers = value (2.1.10-2.4.0 setConcurrency) */
    OP_MAX_FIELD_NULL              /* this.maxConcurrentConsumers = null (setConcurrency) */
} smlc_op_kind;

typedef struct smlc_op {
    smlc_op_kind kind;
    int value;
    int key;                       /* which key of the change it comes from */
    const char *setter;            /* the public method the user called */
} smlc_op;

typedef struct smlc_change {
    sim_time at;
    smlc_op *ops;
    int nops;
    char where[48];                /* "container.changes[2]", for warnings */
} smlc_change;

/* Who waits for consumersLock, and what they do once they have it. */
typedef enum { W_AFTER_CYCLE, W_FIRST_LOOP, W_EXIT, W_CHANGE, W_RESTART } smlc_wait_kind;

typedef struct smlc_waiter {
    smlc_wait_kind kind;
    smlc_consumer *k;
    int change;
} smlc_waiter;

/* Who holds consumersLock while consumers start. */
typedef enum { H_INIT, H_CONSUMER, H_CHANGE } smlc_holder_kind;

struct smlc {
    container base;
    container_env env;
    /* ---- settings: fixed once read ---- */
    int version;
    smlc_features f;
    bool is_documented;            /* semantics: documented */
    int active_trigger, idle_trigger;
    int64_t start_interval_ms, stop_interval_ms;
    sim_time receive_timeout;
    int batch;                     /* batchSize (txSize) */
    int prefetch;                  /* max(prefetchCount, batchSize) */
    int64_t buffer_cap;            /* the local queue's capacity */
    sim_knob start_latency, idle_overhead;   /* calibration: durations or distributions */
    sim_knob cycle_overhead;       /* also a schedule: it may change (JVM warm-up) */
    bool is_transacted, is_immediate_scale_down, is_requeue_rejected;
    listener_failures lf;          /* failures, listenerFailureProbability, retry */
    smlc_change *changes;
    int nchanges;
    /* ---- state ---- */
    int concurrent;                /* concurrentConsumers */
    int max;                       /* maxConcurrentConsumers; 0 = null */
    bool is_running;
    smlc_consumer **cons;          /* every consumer so far, by id - 1 */
    size_t ncons, capcons;
    int size;                      /* consumers.size() */
    int members;                   /* consumers isActive: the count the scaling rows show */
    int64_t last_started_ms, last_stopped_ms;
    sim_time started_at;           /* container start (documented mode's reference) */
    /* consumersLock */
    bool is_locked;
    smlc_holder_kind holder_kind;
    smlc_consumer *holder;
    int holder_change, holder_op;  /* H_CHANGE: resume at this op */
    int to_start;                  /* consumers the holder still starts */
    smlc_consumer **starting;      /* started under this hold, not yet consuming */
    size_t nstarting, capstarting;
    const char *start_rule;        /* the rule behind the starts of this hold */
    char *start_detail;            /* its JSON (owned) */
    smlc_waiter *waiters;          /* a ring, FIFO */
    size_t whead, wn, wcap;
    /* ---- figures ---- */
    int64_t dyn_starts, dyn_stops, refused_starts, refused_stops;
    int64_t refused_since;         /* refused starts since the last start */
    int64_t refused_at_max;        /* considerAddingAConsumer at maxConcurrentConsumers */
    int64_t held_by_trigger;       /* busy cycles that the interval and the maximum would
                                      let start a consumer, the streak still short */
};

/* ---- smlc_scaling.c: the rules decide ---------------------------------------------
 * The rules only read the container and keep their own counters
 * (consecutiveMessages, lastConsumerStarted, ...); each returns what to do
 * and why, and container_smlc.c does it: starts, removals and their rows. */

typedef enum {
    SMLC_KEEP,                     /* nothing to do */
    SMLC_START,                    /* start n consumers (addAndStartConsumers) */
    SMLC_STOP                      /* basicCancel and remove consumer k */
} smlc_act;

typedef struct smlc_decision {
    smlc_act act;
    int n;                         /* SMLC_START: how many */
    smlc_consumer *k;              /* SMLC_STOP: which */
    bool is_mark;                  /* SMLC_STOP: markForStopIfExcess (the loop ends) */
    const char *reason;            /* SMLC_STOP: the consumer's stop_reason */
    const char *rule;              /* the scaling row's rule */
    char *detail;                  /* its JSON, owned: whoever acts takes it */
} smlc_decision;

/* The decisions of one setter call, in the order they are carried out. */
typedef struct smlc_plan {
    smlc_decision *v;
    int n, cap;
    bool is_refused;               /* IllegalArgumentException: the rest of the call is undone */
} smlc_plan;

/* The summary figures of what limited the scaling (smlc_scaling.c). */
void smlc_report_figures(sim_ctx *ctx, const smlc *s);

static inline int64_t smlc_now_ms(const sim_ctx *ctx)
{
    return sim_now(ctx) / SIM_MS;  /* System.currentTimeMillis(), from the run's start */
}

/* checkAdjust(receivedOk) at the end of k's cycle (code or documented
 * rules). */
smlc_decision smlc_check_adjust(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool received);
/* The rest of checkAdjust after a start k made returns (4.1's
 * markForStopIfExcess). */
smlc_decision smlc_after_add(sim_ctx *ctx, smlc *s, smlc_consumer *k);
/* Op `op` of change i: what the setter does.  The caller frees the plan
 * with smlc_plan_free once it has acted on it. */
smlc_plan smlc_setter(sim_ctx *ctx, smlc *s, int change, int op);
void smlc_plan_free(smlc_plan *p);

/* ---- smlc_config.c ---------------------------------------------------------------- */

int smlc_read_config(sim_ctx *ctx, cfg_node *cfg, smlc *s, sim_diag *d);
/* setConcurrency's parser: "N" or "MIN-MAX" as Integer.parseInt reads them.
 * Returns NULL or why the text is refused. */
const char *smlc_parse_concurrency(const char *text, int *min, int *max, bool *has_max);

#endif
