/* container_pool.c -- `container.kind: pool`: a pool of plain AMQP 0-9-1
 * consumers on a RabbitMQ broker, as an application writes them with a
 * client library and no container (Pika, amqplib, a Go program with one
 * goroutine a consumer, rabbitmq-c; `lsim record`'s own consumers).
 *
 * On every node, `consumers` consumers on each queue the container
 * consumes, each with its own connection and channel: basic.qos(prefetch)
 * (prefetch 0: no basic.qos, unlimited), basic.consume, and a listener that
 * takes the channel's deliveries one at a time, in order, and acks each
 * after it returns.  No scaling: the pool's size is fixed.
 *
 * A listener that throws (container.failures, as for smlc): the message is
 * nacked back to the queue (basic.nack requeue=true), or rejected without
 * requeue for a `fatal` rule (then dead-lettered, if the queue says so);
 * `requeueOnFailure: false` rejects every failure.
 *
 * A channel the broker closes (consumer_timeout): what waits in its buffer
 * is the broker's again; the listener running finishes without an ack, and
 * then the consumer opens a new channel and consumes again (a new consumer,
 * after its startLatency), as a client's reconnect loop does.
 *
 * Consumer states:
 *   STARTING --(startLatency) on_registered--> IDLE --delivery--> BUSY
 *   BUSY --listener returned--> BUSY (next buffered, after cycleOverhead) | IDLE
 *   any --channel closed--> CLOSED (after the listener, if one ran), replaced
 * Invariant: a consumer is BUSY iff `running` is set or its cycleOverhead
 * runs (`is_pausing`); buffered deliveries wait only while it is BUSY.
 */
#include "engine/dist.h"
#include "core/listener_failures.h"
#include "base/mem.h"
#include "core/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef enum { PC_STARTING, PC_IDLE, PC_BUSY, PC_CLOSED } pc_state;

typedef struct pconsumer {
    struct pool *p;
    int id;                        /* the engine's consumer number */
    int qi;                        /* index into env.queues */
    pc_state state;
    consumer_port port;
    sim_msg *buf_head, *buf_tail;  /* deliveries not begun (linked by next) */
    sim_msg *running;              /* the listener's message */
    bool is_pausing;               /* cycleOverhead between two messages */
    bool is_closed;                /* the broker closed the channel */
    sim_time held_begin;           /* when the held listener began */
} pconsumer;

typedef struct pool {
    container base;
    container_env env;
    /* settings */
    int per_queue, prefetch;
    bool is_requeue_on_failure;
    sim_knob start_latency, cycle_overhead;
    listener_failures lf;
    /* state */
    pconsumer **cons;              /* every consumer so far, by id order */
    size_t ncons, capcons;
    int members;                   /* consumers not closed */
} pool;

static void on_registered(sim_ctx *ctx, void *self, void *arg);
static void on_done(sim_ctx *ctx, void *self, void *arg);
static void on_paused(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_registered = { "pool.registered", on_registered };
static const sim_event_type ev_done = { "pool.done", on_done };
static const sim_event_type ev_paused = { "pool.paused", on_paused };

static void consumer_add(sim_ctx *ctx, pool *p, int qi);
static void replace(sim_ctx *ctx, pconsumer *c);

/* ---- one consumer's listener -------------------------------------------------- */

static void begin(sim_ctx *ctx, pconsumer *c)
{
    sim_msg *m = c->buf_head;
    c->buf_head = m->next;
    if (!c->buf_head)
        c->buf_tail = NULL;
    m->next = NULL;
    c->running = m;
    c->state = PC_BUSY;
    sim_msg_begin(ctx, m, c->p->env.node, c->id);
    host_run(ctx, c->p->env.host, m->service_ns, &ev_done, c, m);
}

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m)
{
    pconsumer *c = port->owner;
    m->next = NULL;
    if (c->buf_tail)
        c->buf_tail->next = m;
    else
        c->buf_head = m;
    c->buf_tail = m;
    if (c->state == PC_IDLE) {
        sim_msg_delivered_begin(ctx, m, c->p->env.node, c->id);
        c->buf_head = c->buf_tail = NULL;
        c->running = m;
        c->state = PC_BUSY;
        host_run(ctx, c->p->env.host, m->service_ns, &ev_done, c, m);
        return;
    }
    sim_msg_delivered(ctx, m, c->p->env.node, c->id);
}

/* The next buffered delivery, after the client's own time between two. */
static void next_or_idle(sim_ctx *ctx, pconsumer *c)
{
    if (!c->buf_head) {
        c->state = PC_IDLE;
        return;
    }
    sim_time pause = knob_draw(&c->p->cycle_overhead, sim_now(ctx));
    if (pause <= 0) {
        begin(ctx, c);
        return;
    }
    c->is_pausing = true;
    sim_schedule(ctx, pause, &ev_paused, c, NULL);
}

static void on_paused(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    pconsumer *c = self;
    c->is_pausing = false;
    if (c->is_closed) {            /* closed meanwhile: its buffer is gone */
        replace(ctx, c);
        return;
    }
    if (c->buf_head)               /* the pause was before this one: no second */
        begin(ctx, c);
    else
        c->state = PC_IDLE;
}

/* The consumer whose channel closed is gone: a new one takes its place. */
static void replace(sim_ctx *ctx, pconsumer *c)
{
    pool *p = c->p;
    c->state = PC_CLOSED;
    p->env.broker->ops->unsubscribe(ctx, p->env.broker, &c->port);
    sim_consumer_stopped(ctx, p->env.node, c->id, "channel-closed");
    consumer_add(ctx, p, c->qi);
    char detail[96];
    snprintf(detail, sizeof detail, "{\"consumer\":%d,\"new_consumer\":%d,\"reason\":"
             "\"channel-closed\"}", c->id, p->cons[p->ncons - 1]->id);
    sim_scaling(ctx, p->env.node, "restart", p->members, "restart", detail);
}

static void on_done(sim_ctx *ctx, void *self, void *arg)
{
    pconsumer *c = self;
    pool *p = c->p;
    sim_msg *m = arg;
    lf_outcome o = lf_any(&p->lf) ? lf_call(&p->lf, m) : LF_OK;
    c->running = NULL;
    if (c->is_closed) {            /* the broker took it back meanwhile: no ack */
        sim_msg_end_held(ctx, m, p->env.node, c->id, c->held_begin, o == LF_OK);
        replace(ctx, c);
        return;
    }
    broker *b = p->env.broker;
    if (o == LF_OK) {
        sim_msg_end(ctx, m);
        b->ops->ack(ctx, b, &c->port, m);
    } else {
        sim_msg_end_failed(ctx, m);
        b->ops->reject(ctx, b, &c->port, m, o == LF_FAILS && p->is_requeue_on_failure);
    }
    next_or_idle(ctx, c);
}

static void on_closed(sim_ctx *ctx, consumer_port *port)
{
    pconsumer *c = port->owner;
    pool *p = c->p;
    c->is_closed = true;
    c->buf_head = c->buf_tail = NULL;
    p->members--;
    char detail[96];
    snprintf(detail, sizeof detail, "{\"consumer\":%d,\"in_progress\":%s}", c->id,
             c->running ? "true" : "false");
    sim_scaling(ctx, p->env.node, "channel-closed", p->members, "consumer_timeout", detail);
    if (c->running) {
        c->held_begin = sim_msg_t_begin(ctx, c->running);
        sim_msg_hold(ctx, c->running);
    } else if (!c->is_pausing) {
        replace(ctx, c);
    }                              /* else on_paused replaces it */
}

static const consumer_port_ops pool_port_ops = { .deliver = on_deliver, .closed = on_closed };

/* ---- the pool ---------------------------------------------------------------------- */

/* Its own connection: basic.consume-ok startLatency after the start,
 * whatever the other consumers do. */
static void consumer_add(sim_ctx *ctx, pool *p, int qi)
{
    pconsumer *c = xcalloc(1, sizeof *c);
    c->p = p;
    c->qi = qi;
    c->id = sim_consumer_started(ctx, p->env.node, p->env.queues[qi]);
    c->state = PC_STARTING;
    c->port = (consumer_port){
        .ops = &pool_port_ops, .owner = c, .node = p->env.node, .id = c->id,
        .queue = p->env.queues[qi], .prefetch = p->prefetch,
    };
    xgrow((void **)&p->cons, &p->capcons, p->ncons + 1, sizeof *p->cons);
    p->cons[p->ncons++] = c;
    p->members++;
    sim_schedule(ctx, knob_draw(&p->start_latency, sim_now(ctx)), &ev_registered, c, NULL);
}

static void on_registered(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    pconsumer *c = self;
    c->state = PC_IDLE;
    c->p->env.broker->ops->subscribe(ctx, c->p->env.broker, &c->port);
}

static void pool_start(sim_ctx *ctx, container *base)
{
    pool *p = (pool *)base;
    for (int qi = 0; qi < p->env.nqueues; qi++)
        for (int i = 0; i < p->per_queue; i++)
            consumer_add(ctx, p, qi);
}

static void pool_destroy(container *base)
{
    pool *p = (pool *)base;
    if (!p)
        return;
    for (size_t i = 0; i < p->ncons; i++)
        free(p->cons[i]);
    free(p->cons);
    knob_fini(&p->start_latency);
    knob_fini(&p->cycle_overhead);
    lf_fini(&p->lf);
    free(p);
}

static int read_config(sim_ctx *ctx, cfg_node *cfg, pool *p, sim_diag *d)
{
    int64_t per_queue, prefetch;
    if (cfg_get_int(cfg, "consumers", 1, 1, 100000, 0, &per_queue, d) != SIM_OK ||
        cfg_get_int(cfg, "prefetch", 0, 0, 65535, 0, &prefetch, d) != SIM_OK ||
        cfg_get_bool(cfg, "requeueOnFailure", true, 0, &p->is_requeue_on_failure, d) != SIM_OK ||
        knob_read(ctx, cfg, "startLatency", 0, false, "pool.startLatency", &p->start_latency,
                  d) != SIM_OK ||
        knob_read(ctx, cfg, "cycleOverhead", 0, false, "pool.cycleOverhead",
                  &p->cycle_overhead, d) != SIM_OK ||
        lf_read(ctx, cfg, p->env.node, false, &p->lf, d) != SIM_OK)
        return SIM_EINPUT;
    if (p->lf.retry.is_enabled)
        return diag_at(d, cfg_peek(cfg, "retry"), "retry: a pool has no Spring Retry (its "
                       "listener's failures are nacked at once)");
    p->per_queue = (int)per_queue;
    p->prefetch = (int)prefetch;
    return SIM_OK;
}

static int pool_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d);

const container_ops container_pool = {
    .kind = "pool", .broker_kind = "rabbitmq", .create = pool_create, .start = pool_start,
    .destroy = pool_destroy,
};

static int pool_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d)
{
    pool *p = xcalloc(1, sizeof *p);
    p->base.ops = &container_pool;
    p->env = *env;
    *out = &p->base;
    return read_config(ctx, cfg, p, d);
}
