/* message.c -- the life of a message and the statistics it leaves.
 *
 * Messages come from a pool of blocks and go back to it when done, so the
 * memory of a run follows what is in flight.  A message in the pool has id
 * 0, so at the end of a run the ones still in flight are found in the
 * blocks and written out in publish order (ids are given in that order),
 * with the times that did not happen as NULL; no list of live messages is
 * kept while the run goes.
 *
 * A message is split in two (the layout and its reasons are in sim.h): the
 * 56-byte record every message in flight carries, and a delivery record
 * (engine.h) for what only a delivered message needs, taken from its own
 * pool at the first delivery and given back with the message.  A burst of
 * messages waiting in a queue so costs 56 bytes each; a delivered one 120.
 *
 * Order: each message gets a sequence number within its key (queue and
 * group) when published; order.h tells whether an earlier one is still
 * open when this one begins (a violation) or ends (an inversion).  The
 * message keeps the low 32 bits: every number asked about belongs to a
 * message that has not ended, so it lies in [low, issued) of its key, and
 * a run stops before that window reaches 2^32 (order_full).  The key is
 * found once, at publish: its id rides in the message's delivery
 * field until the first delivery, then in the delivery record (engine.h).
 */
#include "engine/engine.h"
#include "base/mem.h"
#include "store/trace.h"

#include <stdlib.h>
#include <string.h>

#define MSG_COUNTED_VIOLATION 0x100u
#define MSG_COUNTED_INVERSION 0x200u

/* A delivery record's times that have not happened (-1). */
#define UNSTARTED .t_begin = -1, .t_end = -1

void messages_fini(sim_ctx *ctx)
{
    while (ctx->blocks) {
        msg_block *b = ctx->blocks;
        ctx->blocks = b->next;
        free(b);
    }
    ctx->free_msgs = NULL;
    delivery_pool *p = &ctx->deliveries;
    for (uint32_t i = 0; i < p->nblocks; i++)
        free(p->blocks[i]);
    free(p->blocks);
    memset(p, 0, sizeof *p);
}

/* The bytes messages in flight take with one more block of `extra` bytes. */
static size_t messages_bytes(const sim_ctx *ctx, size_t extra)
{
    return ctx->nblocks * sizeof(msg_block) +
           (size_t)ctx->deliveries.nblocks * MSG_DELIVERY_BLOCK * sizeof(msg_delivery) + extra;
}

/* Messages in flight are what grows without bound in a run (a burst of
 * 10^9): past the memory limit the run stops with a message. */
static void check_memory(sim_ctx *ctx, size_t extra)
{
    if (ctx->mem_limit && messages_bytes(ctx, extra) + ctx->mem_reserved > ctx->mem_limit)
        sim_fail(ctx, "more than %zu MiB would be needed for the %llu messages in flight "
                     "(--max-memory)", ctx->mem_limit >> 20, (unsigned long long)ctx->live);
}

static sim_msg *take(sim_ctx *ctx)
{
    if (!ctx->free_msgs) {
        check_memory(ctx, sizeof(msg_block));
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

/* A new block of delivery records, chained into the free list.  Indices
 * are below 2^31: 2^31 delivered messages in flight (some 240 GB) stop the
 * run, and the record handed out meanwhile is the unused one at index 0. */
static __attribute__((noinline, cold)) void delivery_grow(sim_ctx *ctx)
{
    delivery_pool *p = &ctx->deliveries;
    if (p->nblocks == (1u << (31 - MSG_DELIVERY_SHIFT))) {
        sim_fail(ctx, "more than 2^31 delivered messages in flight");
        return;
    }
    check_memory(ctx, MSG_DELIVERY_BLOCK * sizeof(msg_delivery));
    if (p->nblocks == p->capblocks) {
        p->capblocks = p->capblocks ? p->capblocks * 2 : 16;
        p->blocks = xrealloc(p->blocks, p->capblocks * sizeof *p->blocks);
    }
    msg_delivery *b = xmalloc(MSG_DELIVERY_BLOCK * sizeof *b);
    uint32_t base = p->nblocks << MSG_DELIVERY_SHIFT, first = base == 0;
    p->blocks[p->nblocks++] = b;
    if (first)
        b[0] = (msg_delivery){ .node = 0 };       /* index 0: "none", never linked */
    for (uint32_t i = first; i < MSG_DELIVERY_BLOCK; i++)
        b[i].holds = i + 1 < MSG_DELIVERY_BLOCK ? base + i + 1 : p->free;
    p->free = base + first;
}

/* The pool's first free record, now m's (the pool has one). */
static inline msg_delivery *record_pop(sim_ctx *ctx, sim_msg *m)
{
    delivery_pool *p = &ctx->deliveries;
    m->delivery = p->free;
    msg_delivery *d = message_delivery(ctx, m);
    p->free = d->holds;
    return d;
}

/* A new delivery record for m, not yet set: *key is m's order key. */
static inline msg_delivery *delivery_pop(sim_ctx *ctx, sim_msg *m, uint32_t *key)
{
    /* The key found at publish (a message taken before that has its key
     * looked up now). */
    *key = order_key_id(m->group);
    if (!m->delivery)
        order_key_of(&ctx->order, m->queue, m->group, ctx->groups.n + 1);
    if (__builtin_expect(!ctx->deliveries.free, 0))
        delivery_grow(ctx);
    return record_pop(ctx, m);
}

/* The record d of m's first delivery, to `consumer`, written once. */
static inline void first_delivery(sim_ctx *ctx, msg_delivery *d, int consumer, uint32_t key)
{
    *d = (msg_delivery){
        .t_deliver = ctx->now, .t_first_deliver = ctx->now, UNSTARTED,
        .consumer = consumer, .deliveries = 1, .key = key,
    };
}

#define UNDELIVERED .t_deliver = -1, .t_first_deliver = -1, UNSTARTED

/* A new delivery record for m: every field as for a message never
 * delivered. */
static inline msg_delivery *delivery_take(sim_ctx *ctx, sim_msg *m)
{
    uint32_t key;
    msg_delivery *d = delivery_pop(ctx, m, &key);
    *d = (msg_delivery){ UNDELIVERED, .key = key };
    return d;
}

/* m's delivery record, taken now if it has none. */
static inline msg_delivery *delivery_of(sim_ctx *ctx, sim_msg *m)
{
    return message_has_delivery(m) ? message_delivery(ctx, m) : delivery_take(ctx, m);
}

/* The record of a message never delivered, for reading. */
static const msg_delivery undelivered = { UNDELIVERED };

static const msg_delivery *delivery_view(const sim_ctx *ctx, const sim_msg *m)
{
    return message_has_delivery(m) ? message_delivery(ctx, m) : &undelivered;
}

uint32_t sim_msg_requeues(const sim_ctx *ctx, const sim_msg *m)
{
    return delivery_view(ctx, m)->requeues;
}

uint32_t sim_msg_deliveries(const sim_ctx *ctx, const sim_msg *m)
{
    return delivery_view(ctx, m)->deliveries;
}

sim_time sim_msg_t_begin(const sim_ctx *ctx, const sim_msg *m)
{
    return delivery_view(ctx, m)->t_begin;
}

/* The calls every message makes (create, published, delivered, begin, end,
 * done) each start with the case a plain run takes nearly always -- no
 * --trace, no rows to write, no table to grow, the pools not empty --
 * written without a call, so it needs no registers saved; anything else
 * goes to the general version of the call (`*_general`), which does it
 * all from the start.  Both leave the same state. */
#define LIKELY(c) __builtin_expect(!!(c), 1)

/* m, just taken from the pool, as a new message of `queue`.  One store of
 * the whole record (the compiler writes it with a few wide stores), rather
 * than clearing it and then setting half of it again. */
static inline sim_msg *fill_new(sim_ctx *ctx, sim_msg *m, int queue)
{
    *m = (sim_msg){
        .id = ctx->next_msg_id++, .queue = (uint16_t)queue, .group = -1,
        .t_publish = ctx->now,
    };
    return m;
}

static __attribute__((noinline)) sim_msg *create_general(sim_ctx *ctx, int queue)
{
    /* A scenario declares at most SIM_QUEUES_MAX queues (models/world/world.c
     * refuses more at load), so this only guards the engine's own callers. */
    if ((unsigned)queue >= SIM_QUEUES_MAX)
        sim_fail(ctx, "queue index %d does not fit a message", queue);
    return fill_new(ctx, take(ctx), queue);
}

sim_msg *sim_msg_create(sim_ctx *ctx, int queue)
{
    sim_msg *m = ctx->free_msgs;
    if (!LIKELY((unsigned)queue < SIM_QUEUES_MAX && m))
        return create_general(ctx, queue);
    ctx->free_msgs = m->next;
    return fill_new(ctx, m, queue);
}

/* A --trace line for m (out of the way of the calls that run without one). */
static __attribute__((noinline, cold)) void trace_msg(sim_ctx *ctx, const char *event, int node,
                                                      int consumer, const sim_msg *m)
{
    trace_write_message(ctx->tw, ctx->now, event, node, consumer, m->id,
                        sim_group_name(ctx, m->group), sim_queue_name(ctx, m->queue));
}

/* k's ring is full: it grows, and past 2^32 open numbers the run stops.
 * The window can only be passed here: until the ring grows past 2^32
 * flags, a full ring comes first. */
static __attribute__((noinline, cold)) void order_full(sim_ctx *ctx, const sim_msg *m,
                                                        order_key *k)
{
    order_grow(&ctx->order, k);
    k->issued++;
    bool fits = order_window_fits(k);
    k->issued--;
    if (!fits)
        sim_fail(ctx, "more than 2^32 messages of queue '%s'%s%s in flight before the first "
                 "of them ended (order tracking)", sim_queue_name(ctx, m->queue),
                 m->group >= 0 ? ", group " : "",
                 m->group >= 0 ? sim_group_name(ctx, m->group) : "");
}

/* m takes the next number of its key k (id `key`, its ring has room). */
static inline void publish_in(sim_ctx *ctx, sim_msg *m, order_key *k, uint32_t key)
{
    m->t_publish = ctx->now;
    m->key_seq = order_seq_low32(k->issued++);
    m->delivery = MSG_DELIVERY_KEY | key;
    ctx->live++;
    if (ctx->published++ == 0)
        ctx->first_publish = ctx->now;
}

static __attribute__((noinline)) void published_general(sim_ctx *ctx, sim_msg *m)
{
    uint32_t key = order_key_id(m->group);
    order_key *k = order_key_of(&ctx->order, m->queue, m->group, ctx->groups.n + 1);
    if (__builtin_expect(order_ring_full(k), 0))
        order_full(ctx, m, k);
    publish_in(ctx, m, k, key);
    waiting_published(ctx, m);
    if (__builtin_expect(ctx->tw != NULL, 0))
        trace_msg(ctx, "publish", 0, 0, m);
}

void sim_msg_published(sim_ctx *ctx, sim_msg *m)
{
    /* Its key exists, its ring has room, its queue has counters. */
    uint32_t key = order_key_id(m->group);
    order_key *k = order_key_find(&ctx->order, m->queue, key);
    if (!LIKELY(k && m->queue < ctx->waiting.nqueues && !ctx->tw))
        return published_general(ctx, m);
    if (!LIKELY(!order_ring_full(k)))
        return published_general(ctx, m);
    publish_in(ctx, m, k, key);
    waiting_published_counted(ctx, m);
}

void sim_msg_publish_ahead(const sim_ctx *ctx, int queue, int group)
{
    order_key_prefetch(&ctx->order, queue, order_key_id(group));
}

void sim_msg_groups_expect(sim_ctx *ctx, int queue, int first, int count)
{
    order_keys_expect(&ctx->order, queue, first, count);
}

static __attribute__((noinline)) void delivered_general(sim_ctx *ctx, sim_msg *m, int node,
                                                        int consumer)
{
    msg_delivery *d;
    if (message_has_delivery(m)) {
        d = message_delivery(ctx, m);
        waiting_delivered(ctx, m, d, node);
        if (d->deliveries++ > 0)
            ctx->redeliveries++;
        if (d->t_first_deliver < 0)   /* its record was taken before a delivery */
            d->t_first_deliver = ctx->now;
        d->t_deliver = ctx->now;
        d->consumer = consumer;
    } else {                       /* the first delivery: the record written once */
        uint32_t key;
        d = delivery_pop(ctx, m, &key);
        first_delivery(ctx, d, consumer, key);
        waiting_first_delivery(ctx, m, d, node);
    }
    if (__builtin_expect(ctx->tw != NULL, 0))
        trace_msg(ctx, "deliver", node, consumer, m);
}

void sim_msg_delivered(sim_ctx *ctx, sim_msg *m, int node, int consumer)
{
    /* The first delivery of a published message, a record at hand. */
    if (!LIKELY(m->delivery & MSG_DELIVERY_KEY && ctx->deliveries.free && !ctx->tw))
        return delivered_general(ctx, m, node, consumer);
    uint32_t key = m->delivery & ~MSG_DELIVERY_KEY;
    msg_delivery *d = record_pop(ctx, m);
    first_delivery(ctx, d, consumer, key);
    waiting_first_delivery(ctx, m, d, node);
}

void sim_msg_requeued(sim_ctx *ctx, sim_msg *m)
{
    msg_delivery *d = delivery_of(ctx, m);
    /* One still in transit to its consumer when the channel closed never
     * reached it: the trace, which saw no deliver of it, sees it wait on. */
    bool reached = m->flags & MSG_AT_CONSUMER;
    waiting_requeued(ctx, m, d);
    d->requeues++;
    m->flags |= SIM_MSG_REDELIVERED;
    ctx->requeues++;
    if (__builtin_expect(ctx->tw != NULL, 0) && reached)
        trace_msg(ctx, "requeue", d->node, d->consumer, m);
}

/* A listener on `node` begins on m (record d): one more busy, and a
 * violation if an earlier message of its key is still open. */
static inline __attribute__((always_inline)) void
listener_began(sim_ctx *ctx, sim_msg *m, const msg_delivery *d, int node)
{
    level_up(&ctx->nodes[node - 1].busy, ctx->now);
    if (!(m->flags & (SIM_MSG_ENDED | MSG_COUNTED_VIOLATION))) {
        if (order_earlier_open32(order_key_at(&ctx->order, m->queue, d->key), m->key_seq)) {
            ctx->violations++;
            m->flags |= MSG_COUNTED_VIOLATION;
        }
    }
}

/* What begin does to m and its record d. */
static inline __attribute__((always_inline)) void
begin(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node, int consumer)
{
    waiting_begin(ctx, m, d, node);
    d->t_begin = ctx->now;
    d->consumer = consumer;
    if (d->t_deliver < 0)
        d->t_deliver = d->t_first_deliver = ctx->now;
    listener_began(ctx, m, d, node);
}

static __attribute__((noinline)) void begin_general(sim_ctx *ctx, sim_msg *m, int node,
                                                    int consumer)
{
    begin(ctx, m, delivery_of(ctx, m), node, consumer);
    if (__builtin_expect(ctx->tw != NULL, 0))
        trace_msg(ctx, "begin", node, consumer, m);
}

void sim_msg_begin(sim_ctx *ctx, sim_msg *m, int node, int consumer)
{
    /* Delivered to this node: tested here, waiting_begin's first case
     * inlines without its tests (13 instructions a message fewer on M/M/8
     * than a fast case that only asks for a record). */
    if (!LIKELY(message_has_delivery(m) && (m->flags & MSG_AT_CONSUMER) && !ctx->tw))
        return begin_general(ctx, m, node, consumer);
    msg_delivery *d = message_delivery(ctx, m);
    if (!LIKELY(d->node == node))
        return begin_general(ctx, m, node, consumer);
    begin(ctx, m, d, node, consumer);
}

void sim_msg_delivered_begin(sim_ctx *ctx, sim_msg *m, int node, int consumer)
{
    /* sim_msg_delivered's fast case, and what sim_msg_begin does to the
     * record it writes, as one write of the record. */
    if (!LIKELY(m->delivery & MSG_DELIVERY_KEY && ctx->deliveries.free && !ctx->tw)) {
        sim_msg_delivered(ctx, m, node, consumer);
        sim_msg_begin(ctx, m, node, consumer);
        return;
    }
    uint32_t key = m->delivery & ~MSG_DELIVERY_KEY;
    msg_delivery *d = record_pop(ctx, m);
    *d = (msg_delivery){
        .t_deliver = ctx->now, .t_first_deliver = ctx->now, .t_begin = ctx->now, .t_end = -1,
        .consumer = consumer, .deliveries = 1, .key = key,
    };
    waiting_first_begin(ctx, m, d, node);
    listener_began(ctx, m, d, node);
}

/* A listener on node/consumer that began at t_begin returned. */
static inline __attribute__((always_inline)) void
listener_ended(sim_ctx *ctx, sim_msg *m, msg_delivery *d, int node, int consumer,
               sim_time t_begin, bool ok)
{
    node_state *ns = &ctx->nodes[node - 1];
    waiting_end(ctx, m, node);
    level_down(&ns->busy, ctx->now);
    consumer_rec *c = &ns->cons[consumer - 1];
    c->messages++;
    c->busy_ns += ctx->now - t_begin;
    if (ok)
        d->processed++;
    if (!(m->flags & SIM_MSG_ENDED)) {
        m->flags |= SIM_MSG_ENDED;
        if (order_end32(order_key_at(&ctx->order, m->queue, d->key), m->key_seq)) {
            ctx->inversions++;
            m->flags |= MSG_COUNTED_INVERSION;
        }
    }
}

/* The listener m began on returned (ok: without throwing). */
static inline __attribute__((always_inline)) void msg_end(sim_ctx *ctx, sim_msg *m,
                                                          msg_delivery *d, bool ok)
{
    d->t_end = ctx->now;
    listener_ended(ctx, m, d, d->node, d->consumer, d->t_begin, ok);
}

static __attribute__((noinline)) void end_general(sim_ctx *ctx, sim_msg *m, bool ok)
{
    msg_delivery *d = delivery_of(ctx, m);
    msg_end(ctx, m, d, ok);
    if (__builtin_expect(ctx->tw != NULL, 0))
        trace_msg(ctx, "end", d->node, d->consumer, m);
}

void sim_msg_end(sim_ctx *ctx, sim_msg *m)
{
    if (!LIKELY(message_has_delivery(m) && !ctx->tw))
        return end_general(ctx, m, true);
    msg_end(ctx, m, message_delivery(ctx, m), true);
}

void sim_msg_end_failed(sim_ctx *ctx, sim_msg *m)
{
    end_general(ctx, m, false);
}

/* The run writes a row a message (--detail messages). */
static inline bool rows_wanted(const sim_ctx *ctx)
{
    return ctx->tl && ctx->detail >= SIM_DETAIL_MESSAGES;
}

static inline int64_t or_null(sim_time t)
{
    return t < 0 ? TL_NULL_TIME : t;
}

/* fate: NULL for a message still in flight at the end.  A message with a
 * fate has left the broker now (t_fate). */
static void message_write_row(sim_ctx *ctx, const sim_msg *m, const char *fate)
{
    if (!rows_wanted(ctx))
        return;
    const msg_delivery *d = delivery_view(ctx, m);
    tl_message row = {
        .msg = (int64_t)m->id,
        .queue = sim_queue_name(ctx, m->queue),
        .group = sim_group_name(ctx, m->group),
        .node = d->node, .consumer = d->consumer,
        .t_publish = m->t_publish, .t_deliver = or_null(d->t_deliver),
        .t_first_deliver = or_null(d->t_first_deliver),
        .t_fate = fate ? ctx->now : TL_NULL_TIME,
        .t_begin = or_null(d->t_begin), .t_end = or_null(d->t_end),
        .requeues = (int)d->requeues,
        .deliveries = (int)d->deliveries,
        .fate = fate ? fate : "unfinished",
    };
    timeline_message(ctx->tl, ctx->run_id, &row);
}

#define MSG_GONE 0x400u           /* done and recorded, waiting for its held listeners */

/* m's delivery record d back to its pool. */
static inline void give_back_record(sim_ctx *ctx, sim_msg *m, msg_delivery *d)
{
    d->holds = ctx->deliveries.free;
    ctx->deliveries.free = m->delivery;
    m->delivery = 0;
}

/* m, recorded and without a record, back to the pool. */
static inline void give_back_message(sim_ctx *ctx, sim_msg *m)
{
    ctx->live--;
    m->id = 0;                     /* back in the pool */
    m->next = ctx->free_msgs;
    ctx->free_msgs = m;
    engine_message_gone(ctx);
}

/* m, recorded, and its record d (NULL: none) back to their pools. */
static inline void forget(sim_ctx *ctx, sim_msg *m, msg_delivery *d)
{
    if (d) {
        if (d->processed > 1)
            ctx->duplicates++;
        give_back_record(ctx, m, d);
    }
    give_back_message(ctx, m);
}

/* Recorded now (its row holds the time of its fate), and freed once no
 * listener holds it any more (d: its delivery record, NULL if none).  A
 * held message's row does not change after this: gone from the broker, it
 * is delivered no more, and what a held listener's end changes (processed,
 * order) is not in the row. */
static inline __attribute__((always_inline)) void
release(sim_ctx *ctx, sim_msg *m, msg_delivery *d, const char *fate)
{
    message_write_row(ctx, m, fate);
    if (d && d->holds > 0) {
        m->flags |= MSG_GONE;
        return;
    }
    forget(ctx, m, d);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = (*(const sim_msg *const *)a)->id, y = (*(const sim_msg *const *)b)->id;
    return x < y ? -1 : x > y;
}

void messages_write_live(sim_ctx *ctx)
{
    if (!ctx->live || !rows_wanted(ctx))
        return;
    const sim_msg **live = xmalloc(ctx->live * sizeof *live);
    size_t n = 0;
    for (msg_block *b = ctx->blocks; b; b = b->next)
        for (size_t i = 0; i < sizeof b->msgs / sizeof b->msgs[0]; i++)
            if (b->msgs[i].id != 0 && !(b->msgs[i].flags & MSG_GONE) && n < ctx->live)
                live[n++] = &b->msgs[i];   /* a gone one has its row */
    qsort(live, n, sizeof *live, by_id);
    for (size_t i = 0; i < n; i++)
        message_write_row(ctx, live[i], NULL);
    free(live);
}

uint64_t messages_live_duplicates(const sim_ctx *ctx)
{
    uint64_t n = 0;
    for (const msg_block *b = ctx->blocks; b; b = b->next)
        for (size_t i = 0; i < sizeof b->msgs / sizeof b->msgs[0]; i++)
            n += b->msgs[i].id != 0 && delivery_view(ctx, &b->msgs[i])->processed > 1;
    return n;
}

static inline msg_delivery *delivery_if_any(const sim_ctx *ctx, const sim_msg *m)
{
    return message_has_delivery(m) ? message_delivery(ctx, m) : NULL;
}

/* The statistics of m, done, with its record d. */
static inline __attribute__((always_inline)) void done_stats(sim_ctx *ctx, const sim_msg *m,
                                                             const msg_delivery *d)
{
    if (d->t_end >= 0) {
        ctx->completed++;
        ctx->last_completed = ctx->now;
        if (m->t_publish >= ctx->warmup) {
            hist_add(&ctx->latency, d->t_end - m->t_publish);
            hist_add(&ctx->wait, d->t_begin - m->t_publish);
        }
    }
}

static __attribute__((noinline)) void done_general(sim_ctx *ctx, sim_msg *m)
{
    if (!message_has_delivery(m)) {
        waiting_done(ctx, m, NULL);
        release(ctx, m, NULL, "acked");
        return;
    }
    msg_delivery *d = message_delivery(ctx, m);
    done_stats(ctx, m, d);
    waiting_done(ctx, m, d);
    release(ctx, m, d, "acked");
}

void sim_msg_done(sim_ctx *ctx, sim_msg *m)
{
    /* A delivered message no listener holds, and no row to write. */
    if (!LIKELY(message_has_delivery(m) && !rows_wanted(ctx)))
        return done_general(ctx, m);
    msg_delivery *d = message_delivery(ctx, m);
    if (!LIKELY(d->holds == 0))
        return done_general(ctx, m);
    done_stats(ctx, m, d);
    waiting_done(ctx, m, d);
    if (d->processed > 1)
        ctx->duplicates++;
    give_back_record(ctx, m, d);
    give_back_message(ctx, m);
}

void sim_msg_lost(sim_ctx *ctx, sim_msg *m, const char *fate)
{
    if (strncmp(fate, "dead-lettered:", 14) == 0)
        ctx->dead_lettered++;
    else
        ctx->dropped++;
    msg_delivery *d = delivery_if_any(ctx, m);
    waiting_done(ctx, m, d);
    release(ctx, m, d, fate);
}

void sim_msg_hold(sim_ctx *ctx, sim_msg *m)
{
    delivery_of(ctx, m)->holds++;
}

void sim_msg_end_held(sim_ctx *ctx, sim_msg *m, int node, int consumer, sim_time t_begin,
                      bool ok)
{
    msg_delivery *d = delivery_of(ctx, m);
    listener_ended(ctx, m, d, node, consumer, t_begin, ok);
    d->holds--;
    if (d->holds == 0 && (m->flags & MSG_GONE)) {
        m->flags &= (uint16_t)~MSG_GONE;
        forget(ctx, m, d);
    }
}

void sim_consumer_timeout(sim_ctx *ctx)
{
    ctx->consumer_timeouts++;
}

/* The layout sim.h and engine.h explain: keep it when fields change. */
_Static_assert(sizeof(sim_msg) == 56, "a message in flight is 56 bytes");
_Static_assert(sizeof(msg_delivery) == 64, "a delivery record is 64 bytes");
