/* record.h -- `lsim record`: a scenario's load on a real RabbitMQ, and the
 * trace of what the broker and its consumers did (TRACE_FORMAT v1).
 *
 * The parts, one file each:
 *   record_plan.c     the scenario (checked and normalised as for a run) as
 *                     what a recording needs: queues and their arguments,
 *                     the messages to publish, nodes, consumers, failures;
 *   record_amqp.c     connections, queue declarations and AMQP errors
 *                     (rabbitmq-c), the URL without its password;
 *   record_publish.c  the publisher: each message at its time;
 *   record_consume.c  the consumers: channels, basic.qos, the listener
 *                     working for the message's service time, acks, nacks;
 *   record_observe.c  --consumers none: the broker's firehose and event
 *                     exchange, to see another application consume;
 *   record_log.c      the events as they happen (from every thread), and
 *                     the trace written from them, sorted, with metadata;
 *   cmd_record.c      the command: the threads, the end, Ctrl-C.
 *
 * Time: every event is stamped with CLOCK_MONOTONIC less the recording's
 * zero (rec_now), the instant the scenario's time 0 is published.
 *
 * Threads: one a consumer (each its own connection, as rabbitmq-c wants),
 * one publisher, one observer; they share only the log (a mutex) and the
 * stop flags (atomics).
 */
#ifndef LSIM_SIM_RECORD_H
#define LSIM_SIM_RECORD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "input/config.h"
#include "core/listener_failures.h"

/* ---- the plan (record_plan.c) ---------------------------------------------------- */

typedef struct rec_queue {
    const char *name;              /* borrowed from the scenario */
    bool is_consumed;              /* container.queues names it (or lists none) */
    bool is_quorum;
    int64_t max_length, max_length_bytes;      /* -1: none */
    const char *overflow;          /* NULL: the broker's default */
    int64_t message_ttl_ms, expiration_ms;      /* -1: none */
    int64_t delivery_limit;        /* -1: none */
    const char *dead_letter;       /* a queue's name, or NULL */
    int64_t message_bytes;         /* each body's size (0: a few bytes) */
} rec_queue;

typedef struct rec_message {
    int64_t t_ns;                  /* when to publish it */
    uint64_t id;                   /* m<id> in the trace */
    int64_t service_ns;
    int queue;                     /* index into the plan's queues */
    const char *group;             /* borrowed; NULL: none */
    int group_index;               /* the export run's group index (failure rules); -1 */
} rec_message;

typedef struct rec_plan {
    const char *scenario;          /* its name */
    uint64_t seed;
    rec_queue *queues;
    int nqueues;
    rec_message *messages;         /* in publish order */
    size_t nmessages;
    int nodes;
    int64_t *node_start_ns;        /* per node */
    int consumers;                 /* per node and consumed queue */
    int prefetch;                  /* basic.qos; 0: none */
    bool is_requeue_on_failure;
    listener_failures lf;          /* the scenario's failure rules (drawn under a lock) */
    pthread_mutex_t lf_lock;
    int64_t consumer_timeout_ns;   /* the scenario's broker.consumerTimeout (0: none) */
    int64_t channel_tick_ns;       /* and broker.channelTickInterval: the broker's own
                                      configuration decides, the trace says what was assumed */
    int64_t duration_ns;           /* -1: until the work is done */
    int64_t tail_ns;
} rec_plan;

struct run;
/* The plan of the run r built by registry_export_root() and run (its rows
 * are the messages).  `with_consumers`: the scenario's consumers are run,
 * so its container must be one a recording can run (kind pool). */
int rec_plan_read(struct run *r, bool with_consumers, rec_plan *p, sim_diag *d);
void rec_plan_fini(rec_plan *p);
/* The scenario's settings as `path=value` lines, every default filled in
 * (--export's scenario.conf). */
char *rec_plan_flatten(const cfg_node *root);

/* ---- the log (record_log.c) ------------------------------------------------------ */

typedef enum {
    REC_PUBLISH, REC_DELIVER, REC_BEGIN, REC_END, REC_REQUEUE, REC_CONSUMER_START,
    REC_CONSUMER_STOP
} rec_kind;

typedef struct rec_event {
    int64_t t_ns;
    uint64_t seq;                  /* the order events were logged: ties keep it */
    uint64_t msg;                  /* 0 on consumer events */
    rec_kind kind;
    int node, consumer;            /* 0 on publishes */
    int queue;
} rec_event;

typedef struct rec_log {
    pthread_mutex_t lock;
    rec_event *v;
    size_t n, cap;
    int64_t zero_ns;               /* CLOCK_MONOTONIC of trace time 0 */
    int *next_consumer;            /* per node: the last consumer id given out */
    /* figures for the metadata and the progress line */
    atomic_llong published, refused, delivered, begun, ended, failed, closed_channels;
} rec_log;

void rec_log_init(rec_log *log, int nodes);
void rec_log_fini(rec_log *log);
/* Now, in trace time (ns; negative before the zero is set). */
int64_t rec_now(const rec_log *log);
int64_t rec_monotonic_ns(void);
void rec_log_event(rec_log *log, int64_t t_ns, rec_kind kind, int node, int consumer,
                   uint64_t msg, int queue);
/* A new consumer id on `node` (1, 2, ...). */
int rec_log_consumer_id(rec_log *log, int node);
/* Sorts the events and writes the trace: `meta` holds the `# key: value`
 * lines.  0, or -1 with the reason in err. */
int rec_log_write(rec_log *log, const rec_plan *p, const char *path, const char *meta,
                  char *err, size_t errsize);

/* ---- the broker (record_amqp.c) -------------------------------------------------- */

typedef struct rec_broker {
    char *host, *user, *password, *vhost;
    int port;
    char *shown;                   /* the URL without its password */
} rec_broker;

/* Parses amqp://user:pass@host:port/vhost (the vhost %-decoded). */
int rec_broker_parse(const char *url, rec_broker *b, char *err, size_t errsize);
void rec_broker_fini(rec_broker *b);

struct amqp_connection_state_t_;
typedef struct amqp_connection_state_t_ *rec_conn;
/* A connection named `name` (the client-provided connection name the
 * broker shows), with channel 1 open if `with_channel`; NULL with the
 * reason in err.  A consumer opens its channel when it starts: the
 * broker's channel ticks (consumer_timeout) count from the channel's
 * opening. */
rec_conn rec_connect(const rec_broker *b, const char *name, bool with_channel, char *err,
                     size_t errsize);
void rec_disconnect(rec_conn c);
/* Declares the plan's queues with their arguments (dead-letter targets
 * first); `fresh` deletes each first.  A queue that holds messages is
 * refused (a recording starts from empty queues).  0 or -1. */
int rec_declare_queues(rec_conn c, const rec_plan *p, bool fresh, char *err, size_t errsize);
/* Messages ready in a queue (a passive declare), or -1 with err set. */
int64_t rec_queue_depth(rec_conn c, const char *queue, char *err, size_t errsize);
/* The broker's words for the last RPC's failure on c. */
void rec_rpc_error(rec_conn c, const char *what, char *err, size_t errsize);

/* ---- the threads ------------------------------------------------------------------ */

typedef struct rec_shared {
    const rec_plan *plan;
    const rec_broker *broker;
    rec_log *log;
    bool with_consumers;           /* false: --consumers none (the observer instead) */
    bool is_fresh;                 /* --fresh: the queues deleted and declared anew */
    atomic_bool stop_publish;      /* the publisher stops (Ctrl-C) */
    atomic_bool stop_consumers;    /* the consumers cancel and close */
    atomic_bool publish_done;      /* every message was sent and confirmed */
    atomic_int held;               /* deliveries the consumers hold: buffered or running */
    rec_conn publisher;            /* the publisher's connection, made before the zero */
    pthread_mutex_t fail_lock;
    char failure[SIM_ERROR_SIZE];  /* the first thread's error, or "" */
} rec_shared;

/* Records err as the recording's failure (the first one wins) and stops
 * everything. */
void rec_fail(rec_shared *s, const char *err);

void *rec_publisher_main(void *shared);
typedef struct rec_consumer_arg {
    rec_shared *s;
    int node, queue;
    rec_conn conn;                 /* connected before the zero */
} rec_consumer_arg;
void *rec_consumer_main(void *arg);

typedef struct rec_observer {
    rec_shared *s;
    rec_conn conn;
    char queue[256];               /* its own queue, bound to the firehose and the events */
} rec_observer;
/* Binds the observer's queue before the zero: -1 with a hint (the plugin
 * or `rabbitmqctl trace_on` missing) in err. */
int rec_observer_open(rec_observer *o, char *err, size_t errsize);
void *rec_observer_main(void *observer);

#endif
