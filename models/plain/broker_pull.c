/* broker_pull.c -- `broker.kind: pull`: a plain FIFO queue that readers take
 * one message from at a time.
 *
 * A reader asks with pull(); if a message is ready it is handed over at once,
 * otherwise the reader waits in line and the next publish goes to the reader
 * that has waited longest.  Nothing is pushed ahead of a request, so there is
 * no prefetch.  An ack ends the message; a reject with requeue puts it back
 * at the head.  Cancel stops a reader's wait; there are no multiple acks
 * (ack_upto and nack_upto are NULL: nothing is delivered ahead of a request).
 */
#include "base/mem.h"
#include "core/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct waiter {
    consumer_port *port;
    struct waiter *next;
} waiter;

typedef struct pull_queue {
    sim_msg *head, *tail;          /* ready messages, linked by next */
    int64_t depth;
    waiter *w_head, *w_tail;       /* readers waiting for a message */
} pull_queue;

typedef struct pull_broker {
    broker base;
    pull_queue *q;
    size_t nq;
    waiter *spare;                 /* free list of waiter records */
} pull_broker;

/* Out of line: it happens once a queue, and kept inline it would make
 * every publish and pull save registers it needs. */
static __attribute__((noinline, cold)) void grow_queues(pull_broker *b, int queue)
{
    b->q = xrealloc(b->q, ((size_t)queue + 1) * sizeof *b->q);
    memset(b->q + b->nq, 0, ((size_t)queue + 1 - b->nq) * sizeof *b->q);
    b->nq = (size_t)queue + 1;
}

static inline pull_queue *queue_of(pull_broker *b, int queue)
{
    if (__builtin_expect((size_t)queue >= b->nq, 0))
        grow_queues(b, queue);
    return &b->q[queue];
}

static sim_msg *pop_msg(pull_queue *q)
{
    sim_msg *m = q->head;
    q->head = m->next;
    if (!q->head)
        q->tail = NULL;
    q->depth--;
    return m;
}

/* Hands m to the reader that has waited longest. */
static void hand_over(sim_ctx *ctx, pull_broker *b, pull_queue *q, sim_msg *m)
{
    waiter *w = q->w_head;
    q->w_head = w->next;
    if (!q->w_head)
        q->w_tail = NULL;
    consumer_port *p = w->port;
    w->next = b->spare;
    b->spare = w;
    p->ops->deliver(ctx, p, m);
}

/* Hands the head message to the reader that has waited longest. */
static void serve_waiter(sim_ctx *ctx, pull_broker *b, pull_queue *q)
{
    hand_over(ctx, b, q, pop_msg(q));
}

static void pull_publish(sim_ctx *ctx, broker *base, sim_msg *m)
{
    pull_broker *b = (pull_broker *)base;
    pull_queue *q = queue_of(b, m->queue);
    if (q->w_head && !q->head) {   /* a reader waits on an empty queue: m goes straight to it */
        hand_over(ctx, b, q, m);
        return;
    }
    m->next = NULL;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    q->depth++;
    if (q->w_head)
        serve_waiter(ctx, b, q);
}

static void pull_pull(sim_ctx *ctx, broker *base, consumer_port *p)
{
    pull_broker *b = (pull_broker *)base;
    pull_queue *q = queue_of(b, p->queue);
    if (q->head) {
        p->ops->deliver(ctx, p, pop_msg(q));
        return;
    }
    waiter *w = b->spare ? b->spare : xmalloc(sizeof *w);
    if (w == b->spare)
        b->spare = w->next;
    w->port = p;
    w->next = NULL;
    if (q->w_tail)
        q->w_tail->next = w;
    else
        q->w_head = w;
    q->w_tail = w;
}

static void pull_unpull(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)ctx;
    pull_broker *b = (pull_broker *)base;
    pull_queue *q = queue_of(b, p->queue);
    waiter **link = &q->w_head, *prev = NULL;
    while (*link && (*link)->port != p) {
        prev = *link;
        link = &(*link)->next;
    }
    waiter *w = *link;
    if (!w)
        return;
    *link = w->next;
    if (q->w_tail == w)
        q->w_tail = prev;
    w->next = b->spare;
    b->spare = w;
}

/* basic.cancel on a pull queue: nothing was pushed ahead of a request, so
 * cancelling is just no longer waiting for a message; the reader keeps what
 * it has and acks it as before. */
static void pull_cancel(sim_ctx *ctx, broker *base, consumer_port *p)
{
    pull_unpull(ctx, base, p);
}

static void pull_subscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)ctx;
    queue_of((pull_broker *)base, p->queue);
}

static void pull_ack(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    (void)base;
    (void)p;
    sim_msg_done(ctx, m);
}

static void pull_reject(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m, bool requeue)
{
    if (!requeue) {
        pull_ack(ctx, base, p, m);
        return;
    }
    pull_broker *b = (pull_broker *)base;
    pull_queue *q = queue_of(b, m->queue);
    sim_msg_requeued(ctx, m);
    m->next = q->head;
    q->head = m;
    if (!q->tail)
        q->tail = m;
    q->depth++;
    if (q->w_head)
        serve_waiter(ctx, b, q);
}

static int64_t pull_depth(const broker *base, int queue)
{
    const pull_broker *b = (const pull_broker *)base;
    return (size_t)queue < b->nq ? b->q[queue].depth : 0;
}

static void pull_destroy(broker *base)
{
    pull_broker *b = (pull_broker *)base;
    if (!b)
        return;
    for (size_t i = 0; i < b->nq; i++)
        while (b->q[i].w_head) {
            waiter *w = b->q[i].w_head;
            b->q[i].w_head = w->next;
            free(w);
        }
    while (b->spare) {
        waiter *w = b->spare;
        b->spare = w->next;
        free(w);
    }
    free(b->q);
    free(b);
}

static int pull_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d);

const broker_ops broker_pull = {
    .kind = "pull", .create = pull_create, .destroy = pull_destroy,
    .publish = pull_publish, .subscribe = pull_subscribe, .unsubscribe = pull_unpull,
    .ack = pull_ack, .reject = pull_reject, .pull = pull_pull, .unpull = pull_unpull,
    .depth = pull_depth, .cancel = pull_cancel,
};

static int pull_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d)
{
    (void)ctx;
    (void)cfg;
    (void)d;
    pull_broker *b = xcalloc(1, sizeof *b);
    b->base.ops = &broker_pull;
    *out = &b->base;
    return SIM_OK;
}
