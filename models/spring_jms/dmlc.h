/* dmlc.h -- the settings of `container.kind: dmlc` (Spring JMS
 * DefaultMessageListenerContainer), read by dmlc_config.c and run by
 * container_dmlc.c.  Names and defaults are Spring's (spec §1.1).
 */
#ifndef LSIM_MODELS_DMLC_H
#define LSIM_MODELS_DMLC_H

#include "engine/dist.h"
#include "core/model.h"

typedef enum { DMLC_V43, DMLC_V53, DMLC_V62 } dmlc_version;

/* The runtime setters a change may call, in the order given. */
typedef enum {
    DMLC_SET_CONCURRENT,           /* setConcurrentConsumers */
    DMLC_SET_MAX,                  /* setMaxConcurrentConsumers */
    DMLC_SET_IDLE_CONSUMER,        /* setIdleConsumerLimit */
    DMLC_SET_IDLE_TASK,            /* setIdleTaskExecutionLimit */
    DMLC_SET_MAX_MESSAGES,         /* setMaxMessagesPerTask */
    DMLC_SET_IDLE_RECEIVES,        /* setIdleReceivesPerTaskLimit (5.3+) */
} dmlc_setter;

typedef struct dmlc_settings {
    dmlc_version version;
    int concurrent;                /* C: the floor for scale-down */
    int max;                       /* M */
    int idle_consumer_limit;       /* gates scale-up only */
    int idle_task_limit;           /* idleTaskExecutionLimit: scale-down only */
    int max_messages;              /* maxMessagesPerTask; < 0 unlimited */
    int idle_receives;             /* idleReceivesPerTaskLimit; < 0 off (always off on 4.3) */
    sim_time receive_timeout;      /* 0: receive() waits for ever */
    bool is_consumer_cached;       /* cacheLevel CONSUMER: one consumer per invoker */
    /* calibration, durations or distributions (the listeners' copies share
     * the base's; dmlc_config_fini frees them) */
    sim_knob start_latency;        /* decision to a subscribed consumer */
    sim_knob receive_lag;          /* dispatch to a waiting receive() returning */
    sim_knob buffered_receive_lag; /* a receive() within a task that finds a message */
    sim_knob idle_receive_overhead;   /* an empty timed receive returns this late */
    sim_knob reschedule_latency;   /* a kept invoker's next task starts this late */
} dmlc_settings;

typedef struct dmlc_set_op {
    dmlc_setter what;
    int value;
} dmlc_set_op;

typedef struct dmlc_change {       /* container.changes[i] */
    sim_time at;
    int queue;                     /* the queue's index, or -1 for every listener */
    dmlc_set_op *ops;
    int nops;
} dmlc_change;

typedef struct dmlc_config {
    dmlc_settings base;
    dmlc_settings *per_queue;      /* one per queue of the node, base + perQueue */
    int nqueues;
    dmlc_change *changes;
    int nchanges;
} dmlc_config;

/* Reads container.* for a node listening to `queues`.  On error, d says
 * where; the caller frees with dmlc_config_fini() either way. */
int dmlc_config_read(sim_ctx *ctx, cfg_node *cfg, const int *queues, int nqueues,
                     dmlc_config *out, sim_diag *d);
void dmlc_config_fini(dmlc_config *c);
/* Warns (on node 1) when version "5.3" leaves open a patch release that
 * changes the container (idleReceivesPerTaskLimit came in 5.3.5). */
void dmlc_version_warn(sim_ctx *ctx, cfg_node *cfg, int node);

/* DefaultMessageListenerContainer.setConcurrency: "5" is 1-5 (a single
 * number is the maximum), "3-5" is 3-5.  Returns NULL or why the text is
 * not one; *min and *max are what setConcurrentConsumers and
 * setMaxConcurrentConsumers are then called with. */
const char *dmlc_parse_concurrency(const char *text, int64_t *min, int64_t *max);
/* Calls one setter as Spring's does (setMax stores max(x, C); setC raises M). */
void dmlc_apply(dmlc_settings *s, dmlc_setter what, int value);

#endif
