/* broker_rabbitmq.c -- `broker.kind: rabbitmq`: AMQP 0-9-1 dispatch of a
 * RabbitMQ classic queue (specs/spring-amqp.md section 4).
 *
 * Each queue keeps its ready messages in publish order and its consumers in
 * rings, one per priority (x-priority), highest first, FIFO within one, as
 * rabbit_queue_consumers.erl does:
 *
 *   - dispatch takes the head consumer of the highest non-empty ring; if it
 *     is at its prefetch limit it is taken off the ring ("blocked") and the
 *     next is tried; otherwise it gets the head message and goes back at
 *     the tail of its ring.  So delivery is strict round-robin among the
 *     consumers that have room, and blocking is lazy: a full consumer keeps
 *     its place until dispatch reaches it.
 *   - an ack (or reject) that gives a blocked consumer room puts it back at
 *     the tail; a new basic.consume goes in at the tail.  A consumer that
 *     registers while there is a backlog therefore receives its prefetch at
 *     once.
 *   - prefetch is per consumer (basic.qos, global=false); 0 is unlimited.
 *   - basic.cancel stops deliveries and requeues nothing; the consumer keeps
 *     and acks what it holds.  Unsubscribe is the channel closing: every
 *     unacknowledged delivery goes back to the queue.
 *   - a requeued message (reject/nack with requeue, or channel close) goes
 *     back to its original place: the ready list stays sorted by publish
 *     order, which puts it at the head, before anything never delivered,
 *     and marks it redelivered (sim_msg_requeued).
 *   - single active consumer (broker.singleActiveConsumer, the queue
 *     argument x-single-active-consumer on every queue): only the earliest
 *     registered consumer that is still there receives; messages wait for it
 *     even while its prefetch is full.
 *   - dispatch latency (broker.dispatchLatency, default 0): the time from
 *     the queue's decision to the delivery reaching the client.  The message
 *     counts as unacknowledged from the decision on.  0 means the client has
 *     it at once, with no event; the calibrated S1 scenario keeps it 0 and
 *     puts the whole ack-to-next-delivery gap into the container's
 *     cycleOverhead.
 *
 * Not modelled: the channel's 200 unsent-message flow limit, credit flow,
 * quorum queues (delivery-limit), basic.get, auto-ack consumers.
 *
 * Invariants: a consumer is on at most one ring, and only while it is
 * neither cancelled nor blocked (and never with single active consumer on);
 * its unacked ring holds exactly what it was given and has not settled, in
 * delivery order; the queue's ready list is sorted by message id.
 */
#include "dist.h"
#include "mem.h"
#include "model.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct rq_queue rq_queue;
typedef struct rq_consumer rq_consumer;

typedef struct rq_ring {           /* a FIFO of consumers */
    rq_consumer **v;
    size_t head, n, cap;
} rq_ring;

typedef struct rq_level {
    int priority;
    rq_ring ring;
} rq_level;

typedef struct rq_transit {        /* a delivery on its way to the client */
    sim_msg *m;
    sim_time due;
} rq_transit;

struct rq_consumer {
    consumer_port *port;
    rq_queue *q;
    sim_msg **unacked;             /* ring in delivery order */
    size_t uhead, un, ucap;
    rq_transit *tr;                /* ring of deliveries in transit */
    size_t thead, tn, tcap;
    sim_event_id tr_event;         /* the arrival of tr's head */
    bool is_cancelled;             /* basic.cancel: no more deliveries */
    bool is_listed;                /* on its priority's ring */
    bool is_blocked;               /* taken off the ring at its prefetch limit */
    rq_consumer *reg_next;         /* every consumer of the queue, in registration order */
};

struct rq_queue {
    sim_msg *head, *tail;          /* ready messages (linked by next), sorted by id */
    int64_t depth;
    rq_level *levels;              /* highest priority first */
    size_t nlevels, caplevels;
    rq_consumer *reg_head;
    rq_consumer *sac;              /* the single active consumer, if that is on */
    bool is_dispatching, is_again; /* dispatch is not re-entered */
};

typedef struct rq_broker {
    broker base;
    /* settings */
    sim_knob dispatch_latency;     /* a duration or a distribution */
    bool is_single_active;
    /* state */
    rq_queue **q;                  /* pointers: consumers point at their queue */
    size_t nq;
} rq_broker;

static void on_transit(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_transit = { "rabbitmq.transit", on_transit };

/* ---- rings --------------------------------------------------------------- */

static void ring_push(rq_ring *r, rq_consumer *c)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        rq_consumer **v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < r->n; i++)
            v[i] = r->v[(r->head + i) % r->cap];
        free(r->v);
        r->v = v;
        r->head = 0;
        r->cap = cap;
    }
    r->v[(r->head + r->n++) % r->cap] = c;
}

static rq_consumer *ring_pop(rq_ring *r)
{
    if (r->n == 0)
        return NULL;
    rq_consumer *c = r->v[r->head];
    r->head = (r->head + 1) % r->cap;
    r->n--;
    return c;
}

/* Removes c wherever it is, keeping the order of the others. */
static void ring_remove(rq_ring *r, const rq_consumer *c)
{
    size_t keep = 0;
    for (size_t i = 0; i < r->n; i++) {
        rq_consumer *x = r->v[(r->head + i) % r->cap];
        if (x != c)
            r->v[(r->head + keep++) % r->cap] = x;
    }
    r->n = keep;
}

static rq_ring *ring_of(rq_queue *q, int priority)
{
    size_t i = 0;
    while (i < q->nlevels && q->levels[i].priority > priority)
        i++;
    if (i < q->nlevels && q->levels[i].priority == priority)
        return &q->levels[i].ring;
    xgrow((void **)&q->levels, &q->caplevels, q->nlevels + 1, sizeof *q->levels);
    memmove(&q->levels[i + 1], &q->levels[i], (q->nlevels - i) * sizeof *q->levels);
    q->levels[i] = (rq_level){ .priority = priority };
    q->nlevels++;
    return &q->levels[i].ring;
}

static void list_consumer(rq_queue *q, rq_consumer *c)
{
    c->is_listed = true;
    c->is_blocked = false;
    ring_push(ring_of(q, c->port->priority), c);
}

static void unlist_consumer(rq_queue *q, rq_consumer *c)
{
    if (c->is_listed)
        ring_remove(ring_of(q, c->port->priority), c);
    c->is_listed = false;
    c->is_blocked = false;
}

/* ---- unacknowledged deliveries -------------------------------------------- */

static void unacked_push(rq_consumer *c, sim_msg *m)
{
    if (c->un == c->ucap) {
        size_t cap = c->ucap ? c->ucap * 2 : 8;
        sim_msg **v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < c->un; i++)
            v[i] = c->unacked[(c->uhead + i) % c->ucap];
        free(c->unacked);
        c->unacked = v;
        c->uhead = 0;
        c->ucap = cap;
    }
    c->unacked[(c->uhead + c->un++) % c->ucap] = m;
}

static sim_msg *unacked_pop(rq_consumer *c)
{
    sim_msg *m = c->unacked[c->uhead];
    c->uhead = (c->uhead + 1) % c->ucap;
    c->un--;
    return m;
}

/* Removes m (usually the oldest) from c's unacked deliveries. */
static void unacked_remove(rq_consumer *c, const sim_msg *m)
{
    size_t i = 0;
    while (i < c->un && c->unacked[(c->uhead + i) % c->ucap] != m)
        i++;
    assert(i < c->un && "settling a message the consumer was not given");
    for (; i + 1 < c->un; i++)
        c->unacked[(c->uhead + i) % c->ucap] = c->unacked[(c->uhead + i + 1) % c->ucap];
    c->un--;
}

static bool has_room(const rq_consumer *c)
{
    return c->port->prefetch <= 0 || c->un < (size_t)c->port->prefetch;
}

/* ---- queues and dispatch ------------------------------------------------------ */

static rq_queue *queue_of(rq_broker *b, int queue)
{
    if ((size_t)queue >= b->nq) {
        b->q = xrealloc(b->q, ((size_t)queue + 1) * sizeof *b->q);
        for (size_t i = b->nq; i <= (size_t)queue; i++)
            b->q[i] = xcalloc(1, sizeof **b->q);
        b->nq = (size_t)queue + 1;
    }
    return b->q[queue];
}

static sim_msg *pop_ready(rq_queue *q)
{
    sim_msg *m = q->head;
    q->head = m->next;
    if (!q->head)
        q->tail = NULL;
    q->depth--;
    m->next = NULL;
    return m;
}

/* Back to its original place: before every ready message published after it. */
static void requeue(sim_ctx *ctx, rq_queue *q, sim_msg *m)
{
    sim_msg_requeued(ctx, m);
    sim_msg **link = &q->head;
    while (*link && (*link)->id < m->id)
        link = &(*link)->next;
    m->next = *link;
    *link = m;
    if (!m->next)
        q->tail = m;
    q->depth++;
}

/* The consumer that gets the next message, or NULL (rabbit_queue_consumers
 * deliver/6): blocked consumers met on the way leave their ring. */
static rq_consumer *next_consumer(const rq_broker *b, rq_queue *q)
{
    if (b->is_single_active)
        return q->sac && !q->sac->is_cancelled && has_room(q->sac) ? q->sac : NULL;
    for (size_t i = 0; i < q->nlevels; i++) {
        rq_consumer *c;
        while ((c = ring_pop(&q->levels[i].ring)) != NULL) {
            if (has_room(c)) {
                ring_push(&q->levels[i].ring, c);   /* back at the tail */
                return c;
            }
            c->is_listed = false;
            c->is_blocked = true;
        }
    }
    return NULL;
}

static void hand_over(sim_ctx *ctx, rq_broker *b, rq_consumer *c, sim_msg *m)
{
    unacked_push(c, m);
    sim_time latency = knob_draw(&b->dispatch_latency, sim_now(ctx));
    if (latency <= 0 && c->tn == 0) {
        c->port->ops->deliver(ctx, c->port, m);
        return;
    }
    if (c->tn == c->tcap) {
        size_t cap = c->tcap ? c->tcap * 2 : 8;
        rq_transit *v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < c->tn; i++)
            v[i] = c->tr[(c->thead + i) % c->tcap];
        free(c->tr);
        c->tr = v;
        c->thead = 0;
        c->tcap = cap;
    }
    sim_time due = sim_now(ctx) + latency;
    if (c->tn > 0 && c->tr[(c->thead + c->tn - 1) % c->tcap].due > due)
        due = c->tr[(c->thead + c->tn - 1) % c->tcap].due;   /* a channel keeps its order */
    c->tr[(c->thead + c->tn++) % c->tcap] = (rq_transit){ m, due };
    if (c->tn == 1)
        c->tr_event = sim_schedule_at(ctx, due, &ev_transit, c, NULL);
}

static void on_transit(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    rq_consumer *c = self;
    rq_transit t = c->tr[c->thead];
    c->thead = (c->thead + 1) % c->tcap;
    c->tn--;
    c->tr_event = c->tn ? sim_schedule_at(ctx, c->tr[c->thead].due, &ev_transit, c, NULL) : 0;
    c->port->ops->deliver(ctx, c->port, t.m);
}

/* Delivers while there are ready messages and consumers with room.  A
 * deliver callback may settle, subscribe or publish; those only ask for
 * another round instead of dispatching inside this one. */
static void dispatch(sim_ctx *ctx, rq_broker *b, rq_queue *q)
{
    if (q->is_dispatching) {
        q->is_again = true;
        return;
    }
    q->is_dispatching = true;
    do {
        q->is_again = false;
        rq_consumer *c;
        while (q->head && (c = next_consumer(b, q)) != NULL)
            hand_over(ctx, b, c, pop_ready(q));
    } while (q->is_again);
    q->is_dispatching = false;
}

/* After a settlement: a blocked consumer with room again goes to the tail. */
static void settled(sim_ctx *ctx, rq_broker *b, rq_consumer *c)
{
    if (c->is_blocked && !c->is_cancelled && has_room(c))
        list_consumer(c->q, c);
    dispatch(ctx, b, c->q);
}

/* ---- the operations ------------------------------------------------------------- */

static void rq_publish(sim_ctx *ctx, broker *base, sim_msg *m)
{
    rq_broker *b = (rq_broker *)base;
    rq_queue *q = queue_of(b, m->queue);
    m->next = NULL;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    q->depth++;
    dispatch(ctx, b, q);
}

static void rq_subscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    rq_broker *b = (rq_broker *)base;
    rq_queue *q = queue_of(b, p->queue);
    rq_consumer *c = xcalloc(1, sizeof *c);
    c->port = p;
    c->q = q;
    p->broker_state = c;
    rq_consumer **link = &q->reg_head;
    while (*link)
        link = &(*link)->reg_next;
    *link = c;
    if (b->is_single_active) {
        if (!q->sac)
            q->sac = c;
    } else {
        list_consumer(q, c);
    }
    dispatch(ctx, b, q);
}

/* Single active consumer: the earliest registered one still consuming. */
static void elect(rq_queue *q)
{
    q->sac = NULL;
    for (rq_consumer *c = q->reg_head; c && !q->sac; c = c->reg_next)
        if (!c->is_cancelled)
            q->sac = c;
}

static void rq_cancel(sim_ctx *ctx, broker *base, consumer_port *p)
{
    rq_broker *b = (rq_broker *)base;
    rq_consumer *c = p->broker_state;
    if (!c || c->is_cancelled)
        return;
    unlist_consumer(c->q, c);
    c->is_cancelled = true;
    if (c->q->sac == c)
        elect(c->q);
    dispatch(ctx, b, c->q);
}

static void free_consumer(rq_consumer *c)
{
    free(c->unacked);
    free(c->tr);
    free(c);
}

/* The channel closes: everything still unacknowledged goes back. */
static void rq_unsubscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    rq_broker *b = (rq_broker *)base;
    rq_consumer *c = p->broker_state;
    if (!c)
        return;
    rq_queue *q = c->q;
    unlist_consumer(q, c);
    c->is_cancelled = true;
    sim_cancel(ctx, c->tr_event);
    while (c->un > 0)
        requeue(ctx, q, unacked_pop(c));
    rq_consumer **link = &q->reg_head;
    while (*link != c)
        link = &(*link)->reg_next;
    *link = c->reg_next;
    if (q->sac == c)
        elect(q);
    p->broker_state = NULL;
    free_consumer(c);
    dispatch(ctx, b, q);
}

static void rq_ack(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    rq_consumer *c = p->broker_state;
    unacked_remove(c, m);
    sim_msg_done(ctx, m);
    settled(ctx, (rq_broker *)base, c);
}

static void rq_reject(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m, bool requeue_it)
{
    rq_consumer *c = p->broker_state;
    unacked_remove(c, m);
    if (requeue_it)
        requeue(ctx, c->q, m);
    else
        sim_msg_done(ctx, m);
    settled(ctx, (rq_broker *)base, c);
}

static void rq_ack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    rq_consumer *c = p->broker_state;
    for (sim_msg *x = NULL; x != m;) {
        assert(c->un > 0 && "multiple ack past the consumer's deliveries");
        x = unacked_pop(c);
        sim_msg_done(ctx, x);
    }
    settled(ctx, (rq_broker *)base, c);
}

static void rq_nack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m,
                         bool requeue_them)
{
    rq_consumer *c = p->broker_state;
    for (sim_msg *x = NULL; x != m;) {
        assert(c->un > 0 && "multiple nack past the consumer's deliveries");
        x = unacked_pop(c);
        if (requeue_them)
            requeue(ctx, c->q, x);
        else
            sim_msg_done(ctx, x);
    }
    settled(ctx, (rq_broker *)base, c);
}

static int64_t rq_depth(const broker *base, int queue)
{
    const rq_broker *b = (const rq_broker *)base;
    return (size_t)queue < b->nq ? b->q[queue]->depth : 0;
}

static void rq_destroy(broker *base)
{
    rq_broker *b = (rq_broker *)base;
    if (!b)
        return;
    for (size_t i = 0; i < b->nq; i++) {
        rq_queue *q = b->q[i];
        while (q->reg_head) {
            rq_consumer *c = q->reg_head;
            q->reg_head = c->reg_next;
            free_consumer(c);      /* its port may be gone already: not touched */
        }
        for (size_t l = 0; l < q->nlevels; l++)
            free(q->levels[l].ring.v);
        free(q->levels);
        free(q);
    }
    free(b->q);
    knob_fini(&b->dispatch_latency);
    free(b);
}

static int rq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d);

const broker_ops broker_rabbitmq = {
    .kind = "rabbitmq", .create = rq_create, .destroy = rq_destroy,
    .publish = rq_publish, .subscribe = rq_subscribe, .unsubscribe = rq_unsubscribe,
    .ack = rq_ack, .reject = rq_reject, .depth = rq_depth, .cancel = rq_cancel,
    .ack_upto = rq_ack_upto, .nack_upto = rq_nack_upto,
    /* no basic.get: pull and unpull stay NULL */
};

static int rq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d)
{
    rq_broker *b = xcalloc(1, sizeof *b);
    b->base.ops = &broker_rabbitmq;
    *out = &b->base;
    if (knob_read(ctx, cfg, "dispatchLatency", 0, false, "rabbitmq.dispatchLatency",
                  &b->dispatch_latency, d) != SIM_OK ||
        cfg_get_bool(cfg, "singleActiveConsumer", false, 0, &b->is_single_active, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}
