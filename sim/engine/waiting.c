/* waiting.c -- where messages wait: ready in the broker (per queue),
 * prefetched in a consumer's buffer and unacknowledged (per node and queue).
 *
 * The engine follows every message through the calls models make anyway
 * (published, delivered, begin, end, requeued, done), so every broker and
 * container gets the same figures without a hook of its own:
 *
 *   published              -> ready
 *   delivered              ready -> prefetched (and unacked until done)
 *   begin                  prefetched -> running; a message a pull broker
 *                          hands straight to a listener goes ready -> running
 *   requeued               back to ready
 *   done, lost             gone (acknowledged; dropped or dead-lettered)
 *
 * A listener may still run on a message that is gone or delivered anew
 * (a consumer timeout): its busy count goes with the node it runs on.
 *
 * Where a message waits at a consumer is its delivery record's node
 * (message.c passes the record in).  Two engine-private flag bits (of
 * sim_msg.flags, 16 bits; engine.h) say where a message is:
 * MSG_AT_CONSUMER (delivered and not yet done or requeued: unacknowledged)
 * and MSG_PREFETCHED (delivered and not begun).  The counts are plain integers
 * for the samples; the totals feed the summary: peaks for ready_max and
 * unacked_max, a time-weighted level for prefetched_max and prefetched_mean.
 */
#include "engine/engine.h"
#include "base/mem.h"

#include <string.h>

/* Makes room for the counters of `queue`.  Out of line, so that the
 * checks before it (counts_ensure) stay a few instructions. */
static __attribute__((noinline)) void counts_grow(sim_ctx *ctx, int queue)
{
    waiting *w = &ctx->waiting;
    size_t old = (size_t)w->nqueues * (size_t)ctx->nnodes;
    size_t now = (size_t)(queue + 1) * (size_t)ctx->nnodes;
    w->nq = xrealloc(w->nq, now * sizeof *w->nq);
    memset(w->nq + old, 0, (now - old) * sizeof *w->nq);
    w->ready = xrealloc(w->ready, (size_t)(queue + 1) * sizeof *w->ready);
    memset(w->ready + w->nqueues, 0, (size_t)(queue + 1 - w->nqueues) * sizeof *w->ready);
    w->nqueues = queue + 1;
}

/* The counters of a message's (node, queue): its queue has them since it
 * was published (waiting_published grows them), so no check here. */
static inline waiting_counts *counts_at(sim_ctx *ctx, int node, int queue)
{
    return &ctx->waiting.nq[(size_t)queue * (size_t)ctx->nnodes + (size_t)(node - 1)];
}

/* The counters of `queue` exist from now on. */
static inline void counts_ensure(sim_ctx *ctx, int queue)
{
    if (__builtin_expect(queue >= ctx->waiting.nqueues, 0))
        counts_grow(ctx, queue);
}

/* The counters of (node, queue), growing as queues appear. */
static inline waiting_counts *counts_of(sim_ctx *ctx, int node, int queue)
{
    counts_ensure(ctx, queue);
    return counts_at(ctx, node, queue);
}

/* One message more (+1) or fewer (-1) ready in its queue. */
static inline void ready_change(sim_ctx *ctx, const sim_msg *m, int delta)
{
    ctx->waiting.ready[m->queue] += delta;
    peak_change(&ctx->waiting.ready_all, delta);
}

/* m, at a consumer with counters c, now waits in its prefetch buffer. */
static inline void prefetch(sim_ctx *ctx, sim_msg *m, waiting_counts *c)
{
    m->flags |= MSG_PREFETCHED;
    c->prefetched++;
    level_up(&ctx->waiting.prefetched_all, ctx->now);
}

/* m, prefetched at a consumer with counters c, leaves the buffer. */
static inline void unprefetch(sim_ctx *ctx, sim_msg *m, waiting_counts *c)
{
    m->flags &= (uint16_t)~MSG_PREFETCHED;
    c->prefetched--;
    level_down(&ctx->waiting.prefetched_all, ctx->now);
}

void waiting_fini(sim_ctx *ctx)
{
    free(ctx->waiting.nq);
    free(ctx->waiting.ready);
    memset(&ctx->waiting, 0, sizeof ctx->waiting);
}

/* Takes m away from where it waits now: `node` is the one its delivery
 * record names (before it changes), 0 for a message never delivered, which
 * is never at a consumer. */
static inline __attribute__((always_inline)) void leave(sim_ctx *ctx, sim_msg *m, int node)
{
    waiting *w = &ctx->waiting;
    unsigned flags = m->flags;
    if (flags & MSG_AT_CONSUMER) {
        waiting_counts *c = counts_at(ctx, node, m->queue);
        if (flags & MSG_PREFETCHED)
            unprefetch(ctx, m, c);
        c->unacked--;
        peak_change(&w->unacked_all, -1);
    } else
        ready_change(ctx, m, -1);
    m->flags = (uint16_t)(flags & ~(MSG_PREFETCHED | MSG_AT_CONSUMER));
}

/* m now waits unacknowledged at `node` (it has left where it was). */
static inline __attribute__((always_inline)) waiting_counts *arrive(sim_ctx *ctx, sim_msg *m,
                                                                   msg_delivery *d, int node)
{
    d->node = node;
    m->flags |= MSG_AT_CONSUMER;
    waiting_counts *c = counts_at(ctx, node, m->queue);
    c->unacked++;
    peak_change(&ctx->waiting.unacked_all, +1);
    return c;
}

void waiting_published_counted(sim_ctx *ctx, sim_msg *m)
{
    ready_change(ctx, m, +1);
}

void waiting_published(sim_ctx *ctx, sim_msg *m)
{
    counts_ensure(ctx, m->queue);  /* its counters, for the rest of its life */
    waiting_published_counted(ctx, m);
}

void waiting_delivered(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node)
{
    leave(ctx, m, d->node);
    prefetch(ctx, m, arrive(ctx, m, d, node));
}

void waiting_first_delivery(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node)
{
    ready_change(ctx, m, -1);
    prefetch(ctx, m, arrive(ctx, m, d, node));
}

void waiting_begin(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node)
{
    waiting_counts *c;
    if ((m->flags & MSG_AT_CONSUMER) && d->node == node) {
        c = counts_at(ctx, node, m->queue);
        if (m->flags & MSG_PREFETCHED)
            unprefetch(ctx, m, c);
    } else {
        leave(ctx, m, d->node);
        c = arrive(ctx, m, d, node);
    }
    c->busy++;
}

/* Delivered and begun at once: m waits in no buffer, but the prefetched
 * total's peak sees it there for that instant, as the two calls in turn
 * show it (prefetched_max is 1 on a pull broker). */
void waiting_first_begin(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node)
{
    ready_change(ctx, m, -1);
    waiting_counts *c = arrive(ctx, m, d, node);
    level_blip(&ctx->waiting.prefetched_all);
    c->busy++;
}

void waiting_end(sim_ctx *ctx, const sim_msg *m, int node)
{
    counts_at(ctx, node, m->queue)->busy--;
}

void waiting_requeued(sim_ctx *ctx, sim_msg *m, const msg_delivery *d)
{
    if (!(m->flags & MSG_AT_CONSUMER))
        return;
    leave(ctx, m, d->node);
    ready_change(ctx, m, +1);
}

void waiting_done(sim_ctx *ctx, sim_msg *m, const msg_delivery *d)
{
    leave(ctx, m, d ? d->node : 0);
}

void waiting_consumers(sim_ctx *ctx, int node, int queue, int64_t delta)
{
    counts_of(ctx, node, queue)->consumers += delta;
}

int waiting_queues(const sim_ctx *ctx)
{
    return ctx->waiting.nqueues > (int)ctx->queues.n ? ctx->waiting.nqueues : (int)ctx->queues.n;
}

waiting_counts waiting_at(sim_ctx *ctx, int node, int queue)
{
    return *counts_of(ctx, node, queue);
}

int64_t waiting_ready(sim_ctx *ctx, int queue)
{
    counts_ensure(ctx, queue);
    return ctx->waiting.ready[queue];
}
