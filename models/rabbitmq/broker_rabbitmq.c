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
 *   - consumer_timeout (broker.consumerTimeout, a queue's consumerTimeout
 *     from 3.12; specs/rabbitmq-failures.md section 1): each consumer is one
 *     channel whose tick runs every 60 s from its basic.consume; a channel
 *     with nothing unacknowledged that has been idle 1 s hibernates, and the
 *     delivery that wakes it starts the ticks again from then.  On a tick
 *     the oldest unacknowledged delivery is checked (delivered_at < now - T,
 *     strict): if it is too old the broker closes the channel, takes back
 *     every unacknowledged delivery (classic: to its original place;
 *     quorum: to the front, one more return each) and ignores whatever the
 *     client settles later.  Only a tick that may close is an event (one
 *     per channel per timeout's length: arm_timeout).
 *   - queue types (queue.type): classic as above; quorum (rabbit_fifo): a
 *     requeued message goes to the front (the returns, served first) when a
 *     delivery limit is set, to the back when not; every return counts, and
 *     the return past deliveryLimit (20 by default from 4.0) drops it.
 *
 * Not modelled: the channel's 200 unsent-message flow limit, credit flow,
 * quorum queue Raft latency, basic.get, auto-ack consumers.
 *
 * Invariants: a consumer is on at most one ring, and only while it is
 * neither cancelled nor blocked (and never with single active consumer on);
 * its unacked ring holds exactly what it was given and has not settled, in
 * delivery order; the queue's ready list is sorted by message id.
 */
#include "engine/dist.h"
#include "engine/list.h"
#include "base/mem.h"
#include "core/model.h"
#include "rabbitmq/rabbitmq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct rq_queue rq_queue;
typedef struct rq_consumer rq_consumer;
typedef struct rq_broker rq_broker;

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

typedef enum { OP_ACK, OP_REJECT, OP_ACK_UPTO, OP_NACK_UPTO, OP_CANCEL } rq_op_kind;

typedef struct rq_client_op {      /* a settlement or cancel on its way to the broker */
    rq_op_kind kind;
    sim_msg *m;
    bool requeue;
    sim_time due;
} rq_client_op;

typedef struct rq_unacked {        /* a delivery not settled yet */
    sim_msg *m;
    sim_time at;                   /* when the channel sent basic.deliver */
} rq_unacked;

struct rq_consumer {
    consumer_port *port;
    rq_queue *q;
    rq_broker *b;
    rq_unacked *unacked;           /* ring in delivery order */
    size_t uhead, un, ucap;
    rq_transit *tr;                /* ring of deliveries in transit */
    size_t thead, tn, tcap;
    sim_event_id tr_event;         /* the arrival of tr's head */
    bool is_cancelled;             /* basic.cancel: no more deliveries */
    bool is_listed;                /* on its priority's ring */
    bool is_blocked;               /* taken off the ring at its prefetch limit */
    bool is_closed;                /* the broker closed the channel */
    sim_time phase;                /* the channel's ticks fall on phase + k * 60 s */
    sim_time last_active;          /* its last delivery or settlement */
    sim_event_id tick_event;       /* the tick that would close the channel */
    sim_time tick_due;
    rq_client_op *ops;             /* ring of client methods in transit (ackLatency) */
    size_t ohead, on, ocap;
    sim_event_id op_event;         /* the arrival of ops' head */
    rq_consumer *reg_next, *reg_prev;  /* every consumer of the queue, in registration order */
};

/* the consumers of a queue in registration order (rq_queue's reg_head/tail) */
SIM_LIST_DEFINE(reg_list, rq_consumer, reg_next, reg_prev)

struct rq_queue {
    rq_broker *b;
    int index;
    rq_queue_args args;
    bool is_rejecting;             /* quorum reject-publish: over the limit, not yet 80 % */
    sim_event_id ttl_event;        /* the head's expiry (messageTtl, expiration) */
    sim_time ttl_due;
    sim_msg *head, *tail;          /* ready messages (linked by next), sorted by id;
                                    * quorum: in the order they are to be served */
    sim_msg *ret_head, *ret_tail;  /* quorum: returned messages, served first */
    int64_t depth;
    rq_level *levels;              /* highest priority first */
    size_t nlevels, caplevels;
    rq_consumer *reg_head, *reg_tail;  /* both ends: a (un)subscribe is O(1) */
    rq_consumer *sac;              /* the single active consumer, if that is on */
    bool is_dispatching, is_again; /* dispatch is not re-entered */
};

struct rq_broker {
    broker base;
    /* settings */
    sim_knob dispatch_latency;     /* broker to client: a duration or a distribution */
    sim_time ack_latency;          /* client to broker: acks, nacks, rejects, cancels */
    bool is_single_active;
    int version;
    sim_time consumer_timeout;     /* broker.consumerTimeout; 0: none */
    sim_time channel_tick;         /* broker.channelTickInterval */
    /* state */
    rq_queue **q;                  /* pointers: consumers point at their queue */
    size_t nq;
};

static void on_transit(sim_ctx *ctx, void *self, void *arg);
static void on_tick(sim_ctx *ctx, void *self, void *arg);
static void on_ttl(sim_ctx *ctx, void *self, void *arg);
static void on_client_op(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_client_op = { "rabbitmq.client_op", on_client_op };
static void flush_ops(sim_ctx *ctx, rq_consumer *c);
static const sim_event_type ev_ttl = { "rabbitmq.expire", on_ttl };
static const sim_event_type ev_transit = { "rabbitmq.transit", on_transit };
static const sim_event_type ev_tick = { "rabbitmq.channel_tick", on_tick };

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

/* Doubles a full ring of n elements of `size` bytes (8 when it has none),
 * unwrapped so that its head is 0; returns the new array. */
static void *ring_grow(void *v, size_t size, size_t *head, size_t n, size_t *cap)
{
    size_t grown = *cap ? *cap * 2 : 8;
    char *w = xmalloc(grown * size);
    for (size_t i = 0; i < n; i++)
        memcpy(w + i * size, (char *)v + (*head + i) % *cap * size, size);
    free(v);
    *head = 0;
    *cap = grown;
    return w;
}

static void unacked_push(rq_consumer *c, sim_msg *m, sim_time at)
{
    if (c->un == c->ucap)
        c->unacked = ring_grow(c->unacked, sizeof *c->unacked, &c->uhead, c->un, &c->ucap);
    c->unacked[(c->uhead + c->un++) % c->ucap] = (rq_unacked){ m, at };
}

static sim_msg *unacked_pop(rq_consumer *c)
{
    sim_msg *m = c->unacked[c->uhead].m;
    c->uhead = (c->uhead + 1) % c->ucap;
    c->un--;
    return m;
}

/* Removes m (usually the oldest) from c's unacked deliveries. */
static void unacked_remove(rq_consumer *c, const sim_msg *m)
{
    size_t i = 0;
    while (i < c->un && c->unacked[(c->uhead + i) % c->ucap].m != m)
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
        for (size_t i = b->nq; i <= (size_t)queue; i++) {
            b->q[i] = xcalloc(1, sizeof **b->q);
            b->q[i]->b = b;
            b->q[i]->index = (int)i;
            b->q[i]->args = (rq_queue_args){
                .type = RQ_CLASSIC, .delivery_limit = RMQ_NO_LIMIT,
                .consumer_timeout = b->consumer_timeout, .max_length = RMQ_NO_LIMIT,
                .max_bytes = RMQ_NO_LIMIT, .ttl = -1, .expiration = -1, .dlq = -1,
            };
        }
        b->nq = (size_t)queue + 1;
    }
    return b->q[queue];
}

static bool has_ready(const rq_queue *q)
{
    return q->ret_head || q->head;
}

static sim_msg *list_pop(sim_msg **head, sim_msg **tail)
{
    sim_msg *m = *head;
    *head = m->next;
    if (!*head)
        *tail = NULL;
    m->next = NULL;
    return m;
}

static void list_append(sim_msg **head, sim_msg **tail, sim_msg *m)
{
    m->next = NULL;
    if (*tail)
        (*tail)->next = m;
    else
        *head = m;
    *tail = m;
}

/* The next message to deliver: a quorum queue's returns come first. */
static sim_msg *pop_ready(rq_queue *q)
{
    q->depth--;
    if (q->ret_head)
        return list_pop(&q->ret_head, &q->ret_tail);
    return list_pop(&q->head, &q->tail);
}

/* ---- dead letters, max-length, TTL ----------------------------------------------- */

typedef enum { R_REJECTED, R_EXPIRED, R_MAXLEN, R_DELIVERY_LIMIT } rq_reason;

static void rq_publish(sim_ctx *ctx, broker *base, sim_msg *m);

/* The message leaves the queue unacknowledged: to the dead-letter queue as
 * a new message (the body, its group; rabbit_dead_letter), or dropped. */
static void dead_letter(sim_ctx *ctx, rq_queue *q, sim_msg *m, rq_reason why)
{
    static const char *const dropped[] = { "dropped:rejected", "dropped:expired",
                                           "dropped:maxlen", "dropped:delivery_limit" };
    static const char *const lettered[] = { "dead-lettered:rejected", "dead-lettered:expired",
                                            "dead-lettered:maxlen",
                                            "dead-lettered:delivery_limit" };
    m->next = NULL;
    if (q->args.dlq < 0) {
        sim_msg_lost(ctx, m, dropped[why]);
        return;
    }
    sim_msg *copy = sim_msg_create(ctx, q->args.dlq);
    copy->group = m->group;
    copy->service_ns = m->service_ns;
    copy->flags |= SIM_MSG_DEAD_LETTER;   /* its expiration property is cleared */
    sim_msg_published(ctx, copy);
    sim_msg_lost(ctx, m, lettered[why]);
    rq_publish(ctx, &q->b->base, copy);
}

static bool has_limit(const rq_queue *q)
{
    return q->args.max_length != RMQ_NO_LIMIT || q->args.max_bytes != RMQ_NO_LIMIT;
}

/* Ready messages beyond x-max-length or x-max-length-bytes. */
static bool is_over(const rq_queue *q, int64_t extra)
{
    int64_t n = q->depth + extra;
    return (q->args.max_length != RMQ_NO_LIMIT && n > q->args.max_length) ||
           (q->args.max_bytes != RMQ_NO_LIMIT && n * q->args.message_bytes > q->args.max_bytes);
}

static sim_msg *pop_ready(rq_queue *q);

/* drop-head (maybe_drop_head; rabbit_fifo drop_head): the head goes while
 * the queue is over; never with reject-publish. */
static void drop_head(sim_ctx *ctx, rq_queue *q)
{
    if (q->args.overflow != OV_DROP_HEAD)
        return;
    while (has_ready(q) && is_over(q, 0))
        dead_letter(ctx, q, pop_ready(q), R_MAXLEN);
}

static bool has_ttl(const rq_queue *q)
{
    return q->args.ttl >= 0 || q->args.expiration >= 0;
}

static sim_time expiry_of(const rq_queue *q, const sim_msg *m)
{
    sim_time t = q->args.ttl;
    if (q->args.expiration >= 0 && !(m->flags & SIM_MSG_DEAD_LETTER) &&
        (t < 0 || q->args.expiration < t))
        t = q->args.expiration;
    return t < 0 ? SIM_NEVER : m->t_publish + t;
}

static const sim_msg *head_of(const rq_queue *q)
{
    return q->ret_head ? q->ret_head : q->head;
}

/* ensure_ttl_timer: armed for the head's expiry, rounded up to the next
 * millisecond; moved only for a head that expires more than 1 ms earlier. */
static void arm_ttl(sim_ctx *ctx, rq_queue *q)
{
    const sim_msg *h = head_of(q);
    if (!h)
        return;
    sim_time due = expiry_of(q, h);
    if (due == SIM_NEVER)
        return;
    sim_time now = sim_now(ctx);
    sim_time wait = due > now ? (due - now + SIM_MS - 1) / SIM_MS * SIM_MS : 0;
    if (q->ttl_event && !(now + wait < q->ttl_due - SIM_MS))
        return;
    if (q->ttl_event)
        sim_cancel(ctx, q->ttl_event);
    q->ttl_due = now + wait;
    q->ttl_event = sim_schedule(ctx, wait, &ev_ttl, q, NULL);
}

/* drop_expired_msgs: head only; a message behind a longer-lived one waits. */
static void expire_head(sim_ctx *ctx, rq_queue *q)
{
    if (!has_ttl(q))
        return;
    const sim_msg *h;
    while ((h = head_of(q)) != NULL && sim_now(ctx) >= expiry_of(q, h))
        dead_letter(ctx, q, pop_ready(q), R_EXPIRED);
    arm_ttl(ctx, q);
}

static void dispatch(sim_ctx *ctx, rq_broker *b, rq_queue *q);

static void on_ttl(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    rq_queue *q = self;
    q->ttl_event = 0;
    expire_head(ctx, q);
}

/* requeue_and_run: max-length, then the expired, before the dispatch. */
static void after_requeue(sim_ctx *ctx, rq_queue *q)
{
    drop_head(ctx, q);
    expire_head(ctx, q);
}

/* Classic: back to its original place, before every ready message published
 * after it (rabbit_variable_queue keeps the seq_id). */
static void requeue_classic(sim_ctx *ctx, rq_queue *q, sim_msg *m)
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

/* Quorum (rabbit_fifo return_one): one more return; past the delivery limit
 * the message is dropped; otherwise to the returns (served first), or, with
 * no limit and a nack (the leader's #requeue, 3.10 on), to the back. */
static void requeue_quorum(sim_ctx *ctx, rq_queue *q, sim_msg *m, bool is_channel_down)
{
    if (q->args.delivery_limit != RMQ_NO_LIMIT &&
        (int64_t)sim_msg_requeues(ctx, m) + 1 > q->args.delivery_limit) {
        dead_letter(ctx, q, m, R_DELIVERY_LIMIT);
        return;
    }
    sim_msg_requeued(ctx, m);
    if (q->args.delivery_limit == RMQ_NO_LIMIT && !is_channel_down)
        list_append(&q->head, &q->tail, m);
    else
        list_append(&q->ret_head, &q->ret_tail, m);
    q->depth++;
}

static void requeue(sim_ctx *ctx, rq_queue *q, sim_msg *m, bool is_channel_down)
{
    if (q->args.type == RQ_QUORUM)
        requeue_quorum(ctx, q, m, is_channel_down);
    else
        requeue_classic(ctx, q, m);
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

/* ---- consumer_timeout ------------------------------------------------------------ */

/* The first tick strictly after the oldest delivery's deadline. */
static sim_time tick_after(const rq_consumer *c, sim_time deadline)
{
    sim_time tick = c->b->channel_tick;
    sim_time k = (deadline - c->phase) / tick + 1;
    return c->phase + (k < 1 ? 1 : k) * tick;
}

static void schedule_tick(sim_ctx *ctx, rq_consumer *c, sim_time due)
{
    if (c->tick_event)
        sim_cancel(ctx, c->tick_event);
    c->tick_due = due;
    c->tick_event = sim_schedule_at(ctx, due, &ev_tick, c, NULL);
}

/* A delivery became the oldest unacknowledged one: the tick after its
 * deadline must be checked.  Lazily: an event already due no later stays
 * (it re-checks when it comes), and settlements change nothing, so a busy
 * channel costs one event per timeout's length, not one per message, and
 * none in a run shorter than the timeout. */
static void arm_timeout(sim_ctx *ctx, rq_consumer *c)
{
    sim_time t = c->q->args.consumer_timeout;
    if (t <= 0 || c->is_closed || c->un == 0)
        return;
    sim_time due = tick_after(c, c->unacked[c->uhead].at + t);
    if (!c->tick_event || due < c->tick_due)
        schedule_tick(ctx, c, due);
}

static void hand_over(sim_ctx *ctx, rq_broker *b, rq_consumer *c, sim_msg *m)
{
    sim_time now = sim_now(ctx);
    if (c->un == 0 && now - c->last_active >= RMQ_HIBERNATE_AFTER)
        c->phase = now;            /* woken from hibernation: a fresh tick period */
    c->last_active = now;
    unacked_push(c, m, now);
    if (c->un == 1)
        arm_timeout(ctx, c);
    sim_time latency = knob_draw(&b->dispatch_latency, now);
    if (latency <= 0 && c->tn == 0) {
        c->port->ops->deliver(ctx, c->port, m);
        return;
    }
    if (c->tn == c->tcap)
        c->tr = ring_grow(c->tr, sizeof *c->tr, &c->thead, c->tn, &c->tcap);
    sim_time due = now + latency;
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
        while (has_ready(q) && (c = next_consumer(b, q)) != NULL) {
            hand_over(ctx, b, c, pop_ready(q));
            expire_head(ctx, q);   /* after every fetch */
        }
    } while (q->is_again);
    q->is_dispatching = false;
}

/* After a settlement: a blocked consumer with room again goes to the tail. */
static void settled(sim_ctx *ctx, rq_broker *b, rq_consumer *c)
{
    c->last_active = sim_now(ctx);
    if (c->is_blocked && !c->is_cancelled && has_room(c))
        list_consumer(c->q, c);
    dispatch(ctx, b, c->q);
}

/* ---- the operations ------------------------------------------------------------- */

/* reject-publish: a classic queue refuses a message that would make it
 * over (before any delivery attempt); a quorum queue takes the one that
 * makes it over, then refuses until it is back to 80 % (rabbit_fifo). */
static bool refuses(rq_queue *q)
{
    if (!has_limit(q) || q->args.overflow == OV_DROP_HEAD)
        return false;
    if (q->args.type == RQ_CLASSIC)
        return is_over(q, 1);
    if (q->is_rejecting && q->args.max_length != RMQ_NO_LIMIT &&
        q->depth <= q->args.max_length * 8 / 10)
        q->is_rejecting = false;
    if (q->is_rejecting && q->args.max_length == RMQ_NO_LIMIT &&
        q->depth * q->args.message_bytes <= q->args.max_bytes * 8 / 10)
        q->is_rejecting = false;
    return q->is_rejecting;
}

static void rq_publish(sim_ctx *ctx, broker *base, sim_msg *m)
{
    rq_broker *b = (rq_broker *)base;
    rq_queue *q = queue_of(b, m->queue);
    if (refuses(q)) {
        /* the publisher is nacked (with confirms; else silently dropped);
         * reject-publish-dlx dead-letters a copy */
        if (q->args.overflow == OV_REJECT_PUBLISH_DLX)
            dead_letter(ctx, q, m, R_MAXLEN);
        else
            sim_msg_lost(ctx, m, "dropped:maxlen");
        return;
    }
    list_append(&q->head, &q->tail, m);
    q->depth++;
    if (q->args.type == RQ_QUORUM && has_limit(q) && q->args.overflow != OV_DROP_HEAD &&
        is_over(q, 0))
        q->is_rejecting = true;
    dispatch(ctx, b, q);
    drop_head(ctx, q);
    if (q->depth == 1 || has_limit(q))
        expire_head(ctx, q);       /* the new message is the head, or a head was dropped */
    else if (has_ttl(q))
        arm_ttl(ctx, q);
}

static void rq_subscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    rq_broker *b = (rq_broker *)base;
    rq_queue *q = queue_of(b, p->queue);
    rq_consumer *c = xcalloc(1, sizeof *c);
    c->port = p;
    c->q = q;
    c->b = b;
    c->phase = c->last_active = sim_now(ctx);   /* the channel's first tick is armed */
    p->broker_state = c;
    reg_list_push_back(&q->reg_head, &q->reg_tail, c);
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

static void apply_cancel(sim_ctx *ctx, broker *base, consumer_port *p)
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
    free(c->ops);
    free(c->unacked);
    free(c->tr);
    free(c);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = (*(sim_msg *const *)a)->id, y = (*(sim_msg *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* The channel is gone: no more deliveries, what was in transit never
 * arrives, and every unacknowledged delivery goes back (a quorum queue
 * returns them in message-id order, rabbit_fifo return_all). */
static void take_back(sim_ctx *ctx, rq_consumer *c)
{
    rq_queue *q = c->q;
    unlist_consumer(q, c);
    c->is_cancelled = true;
    sim_cancel(ctx, c->tr_event);
    c->tr_event = 0;
    c->tn = 0;
    if (c->tick_event)
        sim_cancel(ctx, c->tick_event);
    c->tick_event = 0;
    if (c->op_event)
        sim_cancel(ctx, c->op_event);   /* what the client sends now is ignored */
    c->op_event = 0;
    c->on = 0;
    size_t n = c->un;
    sim_msg **v = xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = unacked_pop(c);
    if (q->args.type == RQ_QUORUM)
        qsort(v, n, sizeof *v, by_id);
    for (size_t i = 0; i < n; i++)
        requeue(ctx, q, v[i], true);
    free(v);
    after_requeue(ctx, q);
    if (q->sac == c)
        elect(q);
}

/* consumer_timeout: the oldest unacknowledged delivery is checked on the
 * tick; too old (strictly), and the channel is closed with 406
 * PRECONDITION_FAILED.  The client hears of it first, then the queue takes
 * back the deliveries and serves the other consumers at once. */
static void on_tick(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    rq_consumer *c = self;
    c->tick_event = 0;
    sim_time now = sim_now(ctx);
    if (c->un == 0)
        return;                    /* settled meanwhile; the next delivery arms again */
    sim_time t = c->q->args.consumer_timeout, at = c->unacked[c->uhead].at;
    if ((now - c->phase) % c->b->channel_tick != 0) {
        /* the channel re-phased (hibernation) since: its next real tick */
        schedule_tick(ctx, c, tick_after(c, at + t > now ? at + t : now));
        return;
    }
    if (!(at < now - t)) {
        schedule_tick(ctx, c, tick_after(c, at + t));
        return;
    }
    sim_consumer_timeout(ctx);
    c->is_closed = true;
    if (c->port->ops->closed)
        c->port->ops->closed(ctx, c->port);
    take_back(ctx, c);
    dispatch(ctx, c->b, c->q);
}

/* The channel closes: everything still unacknowledged goes back. */
static void rq_unsubscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    rq_broker *b = (rq_broker *)base;
    rq_consumer *c = p->broker_state;
    if (!c)
        return;
    rq_queue *q = c->q;
    unlist_consumer(q, c);         /* nothing more is delivered to it ... */
    c->is_cancelled = true;
    flush_ops(ctx, c);             /* ... while what it sent before arrives */
    if (!c->is_closed)
        take_back(ctx, c);
    reg_list_unlink(&q->reg_head, &q->reg_tail, c);
    if (q->sac == c)
        elect(q);
    p->broker_state = NULL;
    free_consumer(c);
    dispatch(ctx, b, q);
}

/* A settlement on a closed channel never reaches the queue (R1.8). */
static rq_consumer *open_channel(consumer_port *p)
{
    rq_consumer *c = p->broker_state;
    return c && !c->is_closed ? c : NULL;
}

static void apply_ack(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    rq_consumer *c = open_channel(p);
    if (!c)
        return;
    unacked_remove(c, m);
    sim_msg_done(ctx, m);
    settled(ctx, (rq_broker *)base, c);
}

static void apply_reject(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m,
                         bool requeue_it)
{
    rq_consumer *c = open_channel(p);
    if (!c)
        return;
    unacked_remove(c, m);
    if (requeue_it) {
        requeue(ctx, c->q, m, false);
        after_requeue(ctx, c->q);
    } else {
        dead_letter(ctx, c->q, m, R_REJECTED);
    }
    settled(ctx, (rq_broker *)base, c);
}

static void apply_ack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    rq_consumer *c = open_channel(p);
    if (!c)
        return;
    for (sim_msg *x = NULL; x != m;) {
        assert(c->un > 0 && "multiple ack past the consumer's deliveries");
        x = unacked_pop(c);
        sim_msg_done(ctx, x);
    }
    settled(ctx, (rq_broker *)base, c);
}

static void apply_nack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m,
                            bool requeue_them)
{
    rq_consumer *c = open_channel(p);
    if (!c)
        return;
    for (sim_msg *x = NULL; x != m;) {
        assert(c->un > 0 && "multiple nack past the consumer's deliveries");
        x = unacked_pop(c);
        if (requeue_them)
            requeue(ctx, c->q, x, false);
        else
            dead_letter(ctx, c->q, x, R_REJECTED);
    }
    if (requeue_them)
        after_requeue(ctx, c->q);
    settled(ctx, (rq_broker *)base, c);
}

/* ---- the client-to-broker direction (ackLatency) ------------------------------------------ */

static void apply_op(sim_ctx *ctx, rq_consumer *c, rq_client_op o)
{
    broker *base = &c->b->base;
    consumer_port *p = c->port;
    switch (o.kind) {
    case OP_ACK:
        apply_ack(ctx, base, p, o.m);
        break;
    case OP_REJECT:
        apply_reject(ctx, base, p, o.m, o.requeue);
        break;
    case OP_ACK_UPTO:
        apply_ack_upto(ctx, base, p, o.m);
        break;
    case OP_NACK_UPTO:
        apply_nack_upto(ctx, base, p, o.m, o.requeue);
        break;
    case OP_CANCEL:
        apply_cancel(ctx, base, p);
        break;
    }
}

static rq_client_op pop_op(rq_consumer *c)
{
    rq_client_op o = c->ops[c->ohead];
    c->ohead = (c->ohead + 1) % c->ocap;
    c->on--;
    return o;
}

static void on_client_op(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    rq_consumer *c = self;
    rq_client_op o = pop_op(c);
    c->op_event = c->on ? sim_schedule_at(ctx, c->ops[c->ohead].due, &ev_client_op, c, NULL) : 0;
    apply_op(ctx, c, o);
}

/* What the client sends reaches the broker ackLatency later, in order; a
 * channel that is gone by then never hears of it. */
static void send_op(sim_ctx *ctx, consumer_port *p, rq_client_op o)
{
    rq_consumer *c = p->broker_state;
    if (!c)
        return;
    if (c->b->ack_latency <= 0) {
        apply_op(ctx, c, o);
        return;
    }
    if (c->on == c->ocap)
        c->ops = ring_grow(c->ops, sizeof *c->ops, &c->ohead, c->on, &c->ocap);
    o.due = sim_now(ctx) + c->b->ack_latency;
    c->ops[(c->ohead + c->on++) % c->ocap] = o;
    if (c->on == 1)
        c->op_event = sim_schedule_at(ctx, o.due, &ev_client_op, c, NULL);
}

/* Before the channel closes, what the client sent before closing arrives
 * (one connection, in order). */
static void flush_ops(sim_ctx *ctx, rq_consumer *c)
{
    if (c->op_event)
        sim_cancel(ctx, c->op_event);
    c->op_event = 0;
    while (c->on > 0)
        apply_op(ctx, c, pop_op(c));
}

static void rq_ack(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    (void)base;
    send_op(ctx, p, (rq_client_op){ .kind = OP_ACK, .m = m });
}

static void rq_reject(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m, bool requeue_it)
{
    (void)base;
    send_op(ctx, p, (rq_client_op){ .kind = OP_REJECT, .m = m, .requeue = requeue_it });
}

static void rq_ack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    (void)base;
    send_op(ctx, p, (rq_client_op){ .kind = OP_ACK_UPTO, .m = m });
}

static void rq_nack_upto(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m,
                         bool requeue_them)
{
    (void)base;
    send_op(ctx, p, (rq_client_op){ .kind = OP_NACK_UPTO, .m = m, .requeue = requeue_them });
}

static void rq_cancel(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)base;
    send_op(ctx, p, (rq_client_op){ .kind = OP_CANCEL });
}

static int64_t rq_depth(const broker *base, int queue)
{
    const rq_broker *b = (const rq_broker *)base;
    return (size_t)queue < b->nq ? b->q[queue]->depth : 0;
}

static int rq_declare(sim_ctx *ctx, broker *base, int queue, cfg_node *cfg, sim_diag *d)
{
    rq_broker *b = (rq_broker *)base;
    rq_queue *q = queue_of(b, queue);
    return rq_read_queue(ctx, cfg, b->version, b->consumer_timeout, &q->args, d);
}

/* Every queue is declared: each deadLetter names one of them, another one,
 * and the dead letters do not go round in a circle (R6.4's cycle rule is
 * not modelled). */
static int rq_declared(sim_ctx *ctx, broker *base, sim_diag *d)
{
    rq_broker *b = (rq_broker *)base;
    for (size_t i = 0; i < b->nq; i++) {
        rq_queue_args *a = &b->q[i]->args;
        if (!a->dead_letter)
            continue;
        for (size_t j = 0; j < b->nq && a->dlq < 0; j++)
            if (strcmp(sim_queue_name(ctx, (int)j), a->dead_letter) == 0)
                a->dlq = (int)j;
        const char *self = sim_queue_name(ctx, (int)i);
        if (a->dlq < 0)
            return diag_at(d, a->dead_letter_at, "deadLetter.queue: no queue named '%s' in the "
                           "scenario", a->dead_letter);
        if (a->dlq == (int)i)
            return diag_at(d, a->dead_letter_at, "deadLetter.queue: queue '%s' cannot "
                           "dead-letter to itself", self);
    }
    for (size_t i = 0; i < b->nq; i++) {
        int at = (int)i;
        for (size_t hops = 0; hops <= b->nq && at >= 0; hops++)
            at = b->q[at]->args.dlq;
        if (at >= 0)
            return diag_at(d, b->q[i]->args.dead_letter_at, "deadLetter.queue: the dead "
                           "letters of queue '%s' go round in a circle, which lsim does not "
                           "model", sim_queue_name(ctx, (int)i));
    }
    return SIM_OK;
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
        q->reg_tail = NULL;
        for (size_t l = 0; l < q->nlevels; l++)
            free(q->levels[l].ring.v);
        free(q->args.dead_letter);
        free(q->levels);
        free(q);
    }
    free(b->q);
    knob_fini(&b->dispatch_latency);
    free(b);
}

static int rq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d);

/* dispatchLatency (broker to client) and ackLatency (client to broker,
 * dispatchLatency by default), or one rtt for both, half each way. */
/* dispatchLatency may be a distribution (a calibration knob); ackLatency,
 * when not given, is the same link the other way: dispatchLatency's value,
 * or its mean for a distribution. */
static int read_latencies(sim_ctx *ctx, cfg_node *cfg, rq_broker *b, sim_diag *d)
{
    cfg_node *rtt = cfg_peek(cfg, "rtt");
    if (rtt && (cfg_has(cfg, "dispatchLatency") || cfg_has(cfg, "ackLatency")))
        return diag_at(d, rtt, "rtt: give rtt or dispatchLatency and ackLatency, not both");
    sim_time t = 0;
    if (rtt && cfg_get_duration(cfg, "rtt", 0, 0, &t, d) != SIM_OK)
        return SIM_EINPUT;
    if (knob_read(ctx, cfg, "dispatchLatency", t / 2, false, "rabbitmq.dispatchLatency",
                  &b->dispatch_latency, d) != SIM_OK)
        return SIM_EINPUT;
    sim_time back = rtt ? t - t / 2 : knob_mean(&b->dispatch_latency, 0);
    return cfg_get_duration(cfg, "ackLatency", back, 0, &b->ack_latency, d);
}

const broker_ops broker_rabbitmq = {
    .kind = "rabbitmq", .create = rq_create, .destroy = rq_destroy,
    .publish = rq_publish, .subscribe = rq_subscribe, .unsubscribe = rq_unsubscribe,
    .ack = rq_ack, .reject = rq_reject, .depth = rq_depth, .cancel = rq_cancel,
    .ack_upto = rq_ack_upto, .nack_upto = rq_nack_upto, .declare = rq_declare,
    .declared = rq_declared,
    /* no basic.get: pull and unpull stay NULL */
};

static int rq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d)
{
    rq_broker *b = xcalloc(1, sizeof *b);
    b->base.ops = &broker_rabbitmq;
    *out = &b->base;
    if (read_latencies(ctx, cfg, b, d) != SIM_OK ||
        cfg_get_bool(cfg, "singleActiveConsumer", false, 0, &b->is_single_active, d) != SIM_OK ||
        rq_read_broker(cfg, &b->version, &b->consumer_timeout, &b->channel_tick, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}
