/* message.c -- the life of a message and the statistics it leaves.
 *
 * Messages come from a pool of blocks and go back to it when done, so the
 * memory of a run follows what is in flight.  Every live message is also on
 * a list in publish order, so that at the end of a run the ones still in
 * flight can be written out (with the times that did not happen as NULL).
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
    ctx->live_head = ctx->live_tail = NULL;
}

static sim_msg *take(sim_ctx *ctx)
{
    if (!ctx->free_msgs) {
        /* Messages in flight are what grows without bound in a run (a burst
         * of 10^9): past the memory limit the run stops with a message. */
        if (ctx->mem_limit && (ctx->nblocks + 1) * sizeof(msg_block) > ctx->mem_limit)
            sim_fail(ctx, "more than %zu MiB would be needed for the %llu messages in flight "
                     "(--max-memory)", ctx->mem_limit >> 20, (unsigned long long)ctx->live);
        msg_block *b = xmalloc(sizeof *b);
        b->next = ctx->blocks;
        ctx->blocks = b;
        ctx->nblocks++;
        size_t n = sizeof b->msgs / sizeof b->msgs[0];
        for (size_t i = 0; i < n; i++)
            b->msgs[i].next = i + 1 < n ? &b->msgs[i + 1] : NULL;
        ctx->free_msgs = &b->msgs[0];
    }
    sim_msg *m = ctx->free_msgs;
    ctx->free_msgs = m->next;
    return m;
}

sim_msg *sim_msg_create(sim_ctx *ctx, int queue)
{
    sim_msg *m = take(ctx);
    memset(m, 0, sizeof *m);
    m->id = ctx->next_msg_id++;
    m->queue = queue;
    m->group = -1;
    m->t_publish = ctx->now;
    m->t_deliver = m->t_begin = m->t_end = -1;
    return m;
}

void sim_msg_published(sim_ctx *ctx, sim_msg *m)
{
    m->t_publish = ctx->now;
    m->key_seq = order_issue(order_key_of(&ctx->order, m->queue, m->group));
    m->live_prev = ctx->live_tail;
    if (ctx->live_tail)
        ctx->live_tail->live_next = m;
    else
        ctx->live_head = m;
    ctx->live_tail = m;
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

void sim_msg_end(sim_ctx *ctx, sim_msg *m)
{
    m->t_end = ctx->now;
    waiting_end(ctx, m);
    node_state *ns = &ctx->nodes[m->node - 1];
    level_change(&ns->busy, ctx->now, -1);
    consumer_rec *c = &ns->cons[m->consumer - 1];
    c->messages++;
    c->busy_ns += m->t_end - m->t_begin;
    if (!(m->flags & SIM_MSG_ENDED)) {
        m->flags |= SIM_MSG_ENDED;
        order_key *k = order_key_of(&ctx->order, m->queue, m->group);
        if (order_has_earlier_open(k, m->key_seq)) {
            ctx->inversions++;
            m->flags |= MSG_COUNTED_INVERSION;
        }
        order_mark_ended(k, m->key_seq);
    }
    if (ctx->tw)
        trace_write_message(ctx->tw, ctx->now, "end", m->node, m->consumer, m->id,
                            sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

static inline int64_t or_null(sim_time t)
{
    return t < 0 ? TL_NULL_TIME : t;
}

void message_write_row(sim_ctx *ctx, const sim_msg *m)
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
    };
    timeline_message(ctx->tl, ctx->run_id, &row);
}

void sim_msg_done(sim_ctx *ctx, sim_msg *m)
{
    if (m->t_end >= 0)
        ctx->completed++;
    if (m->t_end >= 0 && m->t_publish >= ctx->warmup) {
        hist_add(&ctx->latency, m->t_end - m->t_publish);
        hist_add(&ctx->wait, m->t_begin - m->t_publish);
    }
    message_write_row(ctx, m);
    waiting_done(ctx, m);
    if (m->live_prev)
        m->live_prev->live_next = m->live_next;
    else
        ctx->live_head = m->live_next;
    if (m->live_next)
        m->live_next->live_prev = m->live_prev;
    else
        ctx->live_tail = m->live_prev;
    ctx->live--;
    m->next = ctx->free_msgs;
    ctx->free_msgs = m;
    engine_message_gone(ctx);
}
