/* model.h -- how the models talk to each other: brokers, containers,
 * hosts and workloads.
 *
 * The world (world.c) builds one broker, one workload per queue, and per
 * node one host and one container, from the scenario.  Each broker and
 * container kind is one file with one ops table, listed in registry.c; the
 * world and the other models reach a kind only through its table.  Every
 * broker and container struct starts with the common header (broker or
 * container), like SQLite's sqlite3_file, so a pointer to it is a pointer
 * to the kind's own struct.
 *
 * Ownership: the world owns the broker, the hosts and the containers; a
 * container owns its consumers and their ports; the broker borrows ports
 * between subscribe and unsubscribe; messages belong to the engine (sim.h)
 * and the broker holds them from publish until it calls sim_msg_done(),
 * except that a broker whose acknowledgement comes before the listener has
 * run (ActiveMQ with AUTO_ACKNOWLEDGE, acknowledged inside receive()) hands
 * the message over at the ack, and the container calls sim_msg_done() when
 * its listener returns.
 */
#ifndef LSIM_MODELS_MODEL_H
#define LSIM_MODELS_MODEL_H

#include "engine/sim.h"

/* ---- a consumer, as the broker sees it ------------------------------------ */

typedef struct consumer_port consumer_port;

typedef struct consumer_port_ops {
    /* The broker hands m to the consumer now (a push, or the answer to a pull). */
    void (*deliver)(sim_ctx *ctx, consumer_port *port, sim_msg *m);
    /* The broker closed the consumer's channel (RabbitMQ consumer_timeout),
     * just before it takes back every unacknowledged delivery: the consumer
     * must let go of the ones it holds (their `next` is the broker's again);
     * later settlements on the port are ignored.  May be NULL. */
    void (*closed)(sim_ctx *ctx, consumer_port *port);
} consumer_port_ops;

struct consumer_port {
    const consumer_port_ops *ops;
    void *owner;                   /* the container's consumer */
    int node, id;                  /* as numbered by the engine */
    int queue;
    int prefetch;                  /* unacknowledged deliveries allowed; 0 = none (pull);
                                    * a RabbitMQ broker reads 0 as unlimited (basic.qos 0) */
    int priority;                  /* higher first (RabbitMQ x-priority, ActiveMQ) */
    void *broker_state;            /* the broker's, between subscribe and unsubscribe */
};

/* ---- brokers ----------------------------------------------------------------- */

typedef struct broker {
    const struct broker_ops *ops;
} broker;

typedef struct broker_ops {
    const char *kind;
    int  (*create)(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d);
    void (*destroy)(broker *b);
    /* A message arrives on its queue. */
    void (*publish)(sim_ctx *ctx, broker *b, sim_msg *m);
    void (*subscribe)(sim_ctx *ctx, broker *b, consumer_port *p);
    /* The consumer is gone: what it holds unacknowledged goes back. */
    void (*unsubscribe)(sim_ctx *ctx, broker *b, consumer_port *p);
    void (*ack)(sim_ctx *ctx, broker *b, consumer_port *p, sim_msg *m);
    void (*reject)(sim_ctx *ctx, broker *b, consumer_port *p, sim_msg *m, bool requeue);
    /* A consumer with prefetch 0 asks for one message (a receive). */
    void (*pull)(sim_ctx *ctx, broker *b, consumer_port *p);
    /* It stops asking (its receive timed out). */
    void (*unpull)(sim_ctx *ctx, broker *b, consumer_port *p);
    int64_t (*depth)(const broker *b, int queue);     /* ready messages */
    void (*finish)(sim_ctx *ctx, broker *b);          /* may be NULL */
    /* basic.cancel: no more deliveries to p.  Nothing is requeued: p keeps
     * what it was given and still acks it; unsubscribe (channel close) puts
     * back whatever is left unacknowledged.  p stays subscribed until then. */
    void (*cancel)(sim_ctx *ctx, broker *b, consumer_port *p);
    /* AMQP multiple=true: settles every delivery to p up to and including m,
     * in delivery order, as one ack (or one nack).  May be NULL (a broker
     * without delivery tags): then ack or reject each message. */
    void (*ack_upto)(sim_ctx *ctx, broker *b, consumer_port *p, sim_msg *m);
    void (*nack_upto)(sim_ctx *ctx, broker *b, consumer_port *p, sim_msg *m, bool requeue);
    /* The scenario's queue `queue` (its node in `q`) is declared: the broker
     * reads its own arguments there.  May be NULL. */
    int  (*declare)(sim_ctx *ctx, broker *b, int queue, cfg_node *q, sim_diag *d);
    /* Every queue is declared (a queue's arguments may name another).  May be NULL. */
    int  (*declared)(sim_ctx *ctx, broker *b, sim_diag *d);
    /* A message of `group` will soon be published to `queue` (the next
     * arrival, drawn ahead): the broker may ask for the lines of its
     * per-group records (sim_msg_publish_ahead's reason).  A hint that
     * changes nothing; may be NULL. */
    void (*publish_ahead)(const broker *b, int queue, int group);
} broker_ops;

/* ---- hosts: the CPU of a node ------------------------------------------------- */

typedef struct host host;

/* cores 0: no limit (work takes exactly its own time). */
host *host_create(sim_ctx *ctx, int node, int cores);
void host_destroy(host *h);
/* Runs `work` ns of CPU work; `done` runs when it is finished.  With more
 * busy jobs than cores, each runs at cores/jobs speed (processor sharing). */
void host_run(sim_ctx *ctx, host *h, sim_time work, const sim_event_type *done, void *self,
              void *arg);
/* The same with the caller's own timer for `done` (sim.h): armed for the
 * end of the work, or on a host with a core limit, left idle and its
 * handler run by the host. */
void host_run_timer(sim_ctx *ctx, host *h, sim_time work, sim_timer *done);
int host_cores(const host *h);

/* ---- containers ------------------------------------------------------------------ */

typedef struct container_env {
    int node;                      /* 1-based */
    sim_time start_at;             /* when the node starts its container */
    broker *broker;
    host *host;
    const int *queues;             /* queue indices it listens to */
    int nqueues;
} container_env;

typedef struct container {
    const struct container_ops *ops;
} container;

typedef struct container_ops {
    const char *kind;
    const char *broker_kind;       /* the broker it needs, or NULL for any */
    int  (*create)(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                   sim_diag *d);
    void (*start)(sim_ctx *ctx, container *c);        /* at env->start_at */
    void (*finish)(sim_ctx *ctx, container *c);       /* may be NULL */
    void (*destroy)(container *c);
} container_ops;

/* ---- workloads ----------------------------------------------------------------- */

typedef struct workload workload;

int workload_create(sim_ctx *ctx, cfg_node *queue_cfg, int queue, broker *b, workload **out,
                    sim_diag *d);
void workload_start(sim_ctx *ctx, workload *w);
/* True if the arrivals end by themselves (a count, a burst, a file). */
bool workload_is_bounded(const workload *w);
void workload_destroy(workload *w);

#endif
