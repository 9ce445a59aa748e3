/* message.c -- the life of a message and the statistics it leaves.
 *
 * Messages come from a pool of blocks and go back to it when done, so the
 * memory of a run follows what is in flight.  A message in the pool has id
 * 0, so at the end of a run the ones still in flight are found in the
 * blocks and written out in publish order (ids are given in that order),
 * with the times that did not happen as NULL; no list of live messages is
 * kept while the run goes.
 *
 * Order: each message gets a sequence number within its key (queue and
 * group) when published; order.c tells whether an earlier one is still
 * open when this one begins (a violation) or ends (an inversion).
 */
#include "engine.h"
#include "mem.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#define MSG_COUNTED_VIOLATION 0x100u
#define MSG_COUNTED_INVERSION 0x200u

void messages_fini(sim_ctx *ctx)
{
    while (ctx->blocks) {
        msg_block *b = ctx->blocks;
        ctx->blocks = b->next;
        free(b);
    }
    ctx->free_msgs = NULL;
}

static sim_msg *take(sim_ctx *ctx)
{
    if (!ctx->free_msgs) {
        /* Messages in flight are what grows without bound in a run (a burst
         * of 10^9): past the memory limit the run stops with a message. */
        if (ctx->mem_limit &&
            (ctx->nblocks + 1) * sizeof(msg_block) + ctx->mem_reserved > ctx->mem_limit)
            sim_fail(ctx, "more than %zu MiB would be needed for the %llu messages in flight "
                     "(--max-memory)", ctx->mem_limit >> 20, (unsigned long long)ctx->live);
        msg_block *b = xmalloc(sizeof *b);
        b->next = ctx->blocks;
        ctx->blocks = b;
        ctx->nblocks++;
        size_t n = sizeof b->msgs / sizeof b->msgs[0];
        for (size_t i = 0; i < n; i++)
            b->msgs[i] = (sim_msg){ .next = i + 1 < n ? &b->msgs[i + 1] : NULL, .id = 0 };
        ctx->free_msgs = &b->msgs[0];
    }
    sim_msg *m = ctx->free_msgs;
    ctx->free_msgs = m->next;
    return m;
}

sim_msg *sim_msg_create(sim_ctx *ctx, int queue)
{
    sim_msg *m = take(ctx);
    /* One store of the whole record (the compiler writes it with a few wide
     * stores), rather than clearing it and then setting half of it again. */
    *m = (sim_msg){
        .id = ctx->next_msg_id++, .queue = queue, .group = -1, .t_publish = ctx->now,
        .t_deliver = -1, .t_begin = -1, .t_end = -1,
    };
    return m;
}

void sim_msg_published(sim_ctx *ctx, sim_msg *m)
{
    m->t_publish = ctx->now;
    m->key_seq = order_issue(order_key_of(&ctx->order, m->queue, m->group));
    ctx->live++;
    ctx->published++;
    waiting_published(ctx, m);
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "publish", 0, 0, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

void sim_msg_delivered(sim_ctx *ctx, sim_msg *m, int node, int consumer)
{
    waiting_delivered(ctx, m, node);
    if (m->deliveries++ > 0)
        ctx->redeliveries++;
    m->t_deliver = ctx->now;
    m->node = node;
    m->consumer = consumer;
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "deliver", node, consumer, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

void sim_msg_requeued(sim_ctx *ctx, sim_msg *m)
{
    waiting_requeued(ctx, m);
    m->requeues++;
    m->flags |= SIM_MSG_REDELIVERED;
    ctx->requeues++;
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "requeue", m->node, m->consumer, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

void sim_msg_begin(sim_ctx *ctx, sim_msg *m, int node, int consumer)
{
    waiting_begin(ctx, m, node);
    m->t_begin = ctx->now;
    m->node = node;
    m->consumer = consumer;
    if (m->t_deliver < 0)
        m->t_deliver = ctx->now;
    level_change(&ctx->nodes[node - 1].busy, ctx->now, +1);
    if (!(m->flags & (SIM_MSG_ENDED | MSG_COUNTED_VIOLATION))) {
        order_key *k = order_key_of(&ctx->order, m->queue, m->group);
        if (order_has_earlier_open(k, m->key_seq)) {
            ctx->violations++;
            m->flags |= MSG_COUNTED_VIOLATION;
        }
    }
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "begin", node, consumer, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

/* A listener on node/consumer that began at t_begin returned. */
static void listener_ended(sim_ctx *ctx, sim_msg *m, int node, int consumer, sim_time t_begin,
                           bool ok)
{
    node_state *ns = &ctx->nodes[node - 1];
    waiting_end(ctx, m, node);
    level_change(&ns->busy, ctx->now, -1);
    consumer_rec *c = &ns->cons[consumer - 1];
    c->messages++;
    c->busy_ns += ctx->now - t_begin;
    if (ok)
        m->processed++;
    if (!(m->flags & SIM_MSG_ENDED)) {
        m->flags |= SIM_MSG_ENDED;
        order_key *k = order_key_of(&ctx->order, m->queue, m->group);
        if (order_has_earlier_open(k, m->key_seq)) {
            ctx->inversions++;
            m->flags |= MSG_COUNTED_INVERSION;
        }
        order_mark_ended(k, m->key_seq);
    }
}

/* The listener m began on returned (ok: without throwing). */
static void msg_end(sim_ctx *ctx, sim_msg *m, bool ok)
{
    m->t_end = ctx->now;
    listener_ended(ctx, m, m->node, m->consumer, m->t_begin, ok);
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "end", m->node, m->consumer, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

void sim_msg_end(sim_ctx *ctx, sim_msg *m)
{
    msg_end(ctx, m, true);
}

void sim_msg_end_failed(sim_ctx *ctx, sim_msg *m)
{
    msg_end(ctx, m, false);
}

static inline int64_t or_null(sim_time t)
{
    return t < 0 ? TL_NULL_TIME : t;
}

static void message_write_row(sim_ctx *ctx, const sim_msg *m)
{
    if (!ctx->tl || ctx->detail < SIM_DETAIL_MESSAGES)
        return;
    tl_message row = {
        .msg = (int64_t)m->id,
        .queue = sim_queue_name(ctx, m->queue),
        .group = sim_group_name(ctx, m->group),
        .node = m->node, .consumer = m->consumer,
        .t_publish = m->t_publish, .t_deliver = or_null(m->t_deliver),
        .t_begin = or_null(m->t_begin), .t_end = or_null(m->t_end),
        .requeues = (int)m->requeues,
        .deliveries = (int)m->deliveries,
        .fate = m->fate ? m->fate : "unfinished",
    };
    timeline_message(ctx->tl, ctx->run_id, &row);
}

#define MSG_GONE 0x400u           /* done, waiting for its held listeners */

/* Recorded and freed, once no listener holds it any more. */
static void release(sim_ctx *ctx, sim_msg *m)
{
    if (m->holds > 0) {
        m->flags |= MSG_GONE;
        return;
    }
    if (m->processed > 1)
        ctx->duplicates++;
    message_write_row(ctx, m);
    ctx->live--;
    m->id = 0;                     /* back in the pool */
    m->next = ctx->free_msgs;
    m->fate = NULL;
    ctx->free_msgs = m;
    engine_message_gone(ctx);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = (*(const sim_msg *const *)a)->id, y = (*(const sim_msg *const *)b)->id;
    return x < y ? -1 : x > y;
}

void messages_write_live(sim_ctx *ctx)
{
    if (!ctx->live || !ctx->tl || ctx->detail < SIM_DETAIL_MESSAGES)
        return;
    const sim_msg **live = xmalloc(ctx->live * sizeof *live);
    size_t n = 0;
    for (msg_block *b = ctx->blocks; b; b = b->next)
        for (size_t i = 0; i < sizeof b->msgs / sizeof b->msgs[0]; i++)
            if (b->msgs[i].id != 0 && n < ctx->live)
                live[n++] = &b->msgs[i];
    qsort(live, n, sizeof *live, by_id);
    for (size_t i = 0; i < n; i++)
        message_write_row(ctx, live[i]);
    free(live);
}

uint64_t messages_live_duplicates(const sim_ctx *ctx)
{
    uint64_t n = 0;
    for (const msg_block *b = ctx->blocks; b; b = b->next)
        for (size_t i = 0; i < sizeof b->msgs / sizeof b->msgs[0]; i++)
            n += b->msgs[i].id != 0 && b->msgs[i].processed > 1;
    return n;
}

void sim_msg_done(sim_ctx *ctx, sim_msg *m)
{
    if (m->t_end >= 0)
        ctx->completed++;
    if (m->t_end >= 0 && m->t_publish >= ctx->warmup) {
        hist_add(&ctx->latency, m->t_end - m->t_publish);
        hist_add(&ctx->wait, m->t_begin - m->t_publish);
    }
    m->fate = "acked";
    waiting_done(ctx, m);
    release(ctx, m);
}

void sim_msg_lost(sim_ctx *ctx, sim_msg *m, const char *fate)
{
    if (strncmp(fate, "dead-lettered:", 14) == 0)
        ctx->dead_lettered++;
    else
        ctx->dropped++;
    m->fate = fate;
    waiting_done(ctx, m);
    release(ctx, m);
}

void sim_msg_hold(sim_msg *m)
{
    m->holds++;
}

void sim_msg_end_held(sim_ctx *ctx, sim_msg *m, int node, int consumer, sim_time t_begin,
                      bool ok)
{
    listener_ended(ctx, m, node, consumer, t_begin, ok);
    m->holds--;
    if (m->holds == 0 && (m->flags & MSG_GONE)) {
        m->flags &= ~MSG_GONE;
        release(ctx, m);
    }
}

void sim_consumer_timeout(sim_ctx *ctx)
{
    ctx->consumer_timeouts++;
}
