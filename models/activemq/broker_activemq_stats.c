/* broker_activemq_stats.c -- what the ActiveMQ broker measures about
 * starvation and balance (the figures of issue 4, §6):
 *
 *   starved_ms     per consumer: time it waited in receive() while messages
 *                  of its queue waited that it could not take.  A waiting
 *                  consumer is never full, so after dispatch every message
 *                  still in the broker is one it could not take (its group
 *                  is owned by another consumer, it is beyond the page
 *                  window, or a delayed start holds dispatch), and so is
 *                  every message in another consumer's prefetch buffer
 *                  (hoarded, M3, or pinned there by its group, M1).
 *   starved_buffered_ms  the part of starved_ms when the broker held none:
 *                  all that waited sat in other consumers' buffers.
 *   share          its part of the messages its queue's consumers took;
 *                  summary: the largest part, and the largest of each
 *                  queue's largest part over its mean part (1 = even).
 *   groups         group assignments it was given; summary: their largest
 *                  number and their mean over the consumers of queues that
 *                  have groups; group assignments, reassignments (a group's
 *                  owner changed), evictions (cached map full), closes
 *                  (JMSXGroupSeq < 0).
 *   page_window_blocked_ms  time the store held messages but page-in was
 *                  stopped by maxPageSize pending ones (M4).
 *
 * Waiting intervals are credited without a scan: each queue times how long
 * "some message waits" and "none in the broker, some buffered" held
 * (amq_timer), and a consumer that starts waiting notes both times; when it
 * stops, the differences are its times.  The queue's state changes only
 * inside the broker's operations, which end with amq_settle(): a timer
 * changes only when its state begins or ends there, so an operation that
 * changes none (most of them) costs the timers nothing.  Times are integer
 * nanoseconds, so a sum taken in one piece equals the sum of its parts.
 */
#include "activemq/activemq.h"
#include "base/mem.h"

#include <stdlib.h>

amq_cstats *amq_stats_of(amq_broker *b, const consumer_port *p)
{
    for (size_t i = b->nstats; i-- > 0;)
        if (b->stats[i]->node == p->node && b->stats[i]->id == p->id)
            return b->stats[i];
    xgrow((void **)&b->stats, &b->capstats, b->nstats + 1, sizeof *b->stats);
    amq_cstats *c = xcalloc(1, sizeof *c);
    c->node = p->node;
    c->id = p->id;
    c->queue = p->queue;
    b->stats[b->nstats++] = c;
    return c;
}

void amq_stats_fini(amq_broker *b)
{
    for (size_t i = 0; i < b->nstats; i++)
        free(b->stats[i]);
    free(b->stats);
    free(b->last_owner);
}

/* The state t times holds from now on, or not. */
static void timer_set(amq_timer *t, bool is_on, sim_time now)
{
    if (is_on == t->is_on)
        return;
    if (is_on)
        t->since = now;
    else
        t->total_ns += now - t->since;
    t->is_on = is_on;
}

/* How long t's state held up to now. */
static sim_time timer_at(const amq_timer *t, sim_time now)
{
    return t->is_on ? t->total_ns + (now - t->since) : t->total_ns;
}

void amq_settle(amq_queue *q, sim_time now)
{
    int64_t pending = q->redeliv.n + q->paged.n;
    int64_t ready = q->store.n + pending;
    timer_set(&q->waiting, ready > 0 || q->buffered > 0, now);
    timer_set(&q->buffered_only, ready == 0 && q->buffered > 0, now);
    timer_set(&q->blocked, q->store.n > 0 && pending >= q->b->max_page && q->nsubs > 0 &&
                               !q->is_holding, now);
}

void amq_wait_begin(amq_queue *q, amq_sub *s, sim_time now)
{
    s->is_waiting = true;
    s->mark_waiting = timer_at(&q->waiting, now);
    s->mark_buffered = timer_at(&q->buffered_only, now);
}

void amq_wait_end(amq_queue *q, amq_sub *s, sim_time now)
{
    s->is_waiting = false;
    s->stats->starved_ns += timer_at(&q->waiting, now) - s->mark_waiting;
    s->stats->buffered_ns += timer_at(&q->buffered_only, now) - s->mark_buffered;
}

/* A second queue assigns groups: the last owners move from the first
 * queue's records to the broker's own array, which holds them from now on
 * (a group's last owner is the broker's, whichever queue assigned it). */
static __attribute__((noinline)) int64_t *last_owner_shared(amq_broker *b, amq_queue *q,
                                                            int group)
{
    if (!b->owners_in && !b->owners_shared) {   /* the first assignment of the run */
        b->owners_in = q;
        return &amq_group_slot_of(&q->paged.slots, group)->last_owner;
    }
    if (!b->owners_shared) {
        const amq_group_slots *t = &b->owners_in->paged.slots;
        for (size_t k = 1; k < t->n; k++) {
            if (!t->v[k].last_owner)
                continue;
            xgrow_zeroed((void **)&b->last_owner, &b->nlast, k - 1, sizeof *b->last_owner);
            b->last_owner[k - 1] = t->v[k].last_owner;
        }
        b->owners_in = NULL;
        b->owners_shared = true;
    }
    xgrow_zeroed((void **)&b->last_owner, &b->nlast, (size_t)group, sizeof *b->last_owner);
    return &b->last_owner[group];
}

/* Where the group's last owner is kept: in the queue's record of the group
 * (beside what the same message just read), unless groups were assigned in
 * more than one queue. */
static inline int64_t *last_owner_of(amq_broker *b, amq_queue *q, int group)
{
    if (__builtin_expect(b->owners_in == q, 1))
        return &amq_group_slot_of(&q->paged.slots, group)->last_owner;
    return last_owner_shared(b, q, group);
}

void amq_note_assignment(sim_ctx *ctx, amq_queue *q, int group, const consumer_port *p)
{
    (void)ctx;
    amq_broker *b = q->b;
    amq_cstats *c = ((amq_sub *)p->broker_state)->stats;
    c->groups++;
    b->assignments++;
    int64_t who = ((int64_t)p->node << 32 | p->id) + 1;
    int64_t *last = last_owner_of(b, q, group);
    if (*last && *last != who)
        b->reassignments++;
    *last = who;
}

/* Credits the consumers still waiting at the end of the run. */
static void close_waits(amq_broker *b, sim_time now)
{
    for (size_t i = 0; i < b->nq; i++) {
        amq_queue *q = b->q[i];
        for (size_t k = 0; k < q->nsubs; k++) {
            amq_sub *s = q->subs[k];
            if (s->is_waiting) {
                amq_wait_end(q, s, now);
                amq_wait_begin(q, s, now);
            }
        }
    }
}

/* Per queue: messages taken, consumers, the largest share, groups given. */
typedef struct queue_sums {
    int64_t received, consumers, groups;
    double share_max;
} queue_sums;

static queue_sums *sum_queues(const amq_broker *b, size_t *nq)
{
    *nq = 0;
    for (size_t i = 0; i < b->nstats; i++)
        if ((size_t)b->stats[i]->queue + 1 > *nq)
            *nq = (size_t)b->stats[i]->queue + 1;
    queue_sums *qs = xcalloc(*nq ? *nq : 1, sizeof *qs);
    for (size_t i = 0; i < b->nstats; i++) {
        queue_sums *s = &qs[b->stats[i]->queue];
        s->received += b->stats[i]->received;
        s->consumers++;
        s->groups += b->stats[i]->groups;
    }
    return qs;
}

/* Per-consumer figures (consumer_metrics) and the broker's summary metrics. */
void amq_finish(sim_ctx *ctx, broker *base)
{
    amq_broker *b = (amq_broker *)base;
    close_waits(b, sim_now(ctx));
    size_t nq;
    queue_sums *qs = sum_queues(b, &nq);
    int64_t groups_max = 0, grouped = 0, grouped_sum = 0;
    double starved_sum = 0, starved_max = 0, buffered_sum = 0, share_max = 0, ratio_max = 0;
    for (size_t i = 0; i < b->nstats; i++) {
        const amq_cstats *c = b->stats[i];
        queue_sums *s = &qs[c->queue];
        double share = s->received ? (double)c->received / (double)s->received : 0;
        double starved = (double)c->starved_ns / 1e6, buffered = (double)c->buffered_ns / 1e6;
        sim_consumer_metric(ctx, c->node, c->id, "received", (double)c->received);
        sim_consumer_metric(ctx, c->node, c->id, "share", share);
        sim_consumer_metric(ctx, c->node, c->id, "groups", (double)c->groups);
        sim_consumer_metric(ctx, c->node, c->id, "starved_ms", starved);
        sim_consumer_metric(ctx, c->node, c->id, "starved_buffered_ms", buffered);
        starved_sum += starved;
        buffered_sum += buffered;
        starved_max = starved > starved_max ? starved : starved_max;
        s->share_max = share > s->share_max ? share : s->share_max;
        groups_max = c->groups > groups_max ? c->groups : groups_max;
        if (s->groups > 0) {
            grouped++;
            grouped_sum += c->groups;
        }
    }
    for (size_t q = 0; q < nq; q++) {
        share_max = qs[q].share_max > share_max ? qs[q].share_max : share_max;
        double ratio = qs[q].share_max * (double)qs[q].consumers;
        ratio_max = ratio > ratio_max ? ratio : ratio_max;
    }
    free(qs);
    double blocked = 0;
    for (size_t i = 0; i < b->nq; i++)
        blocked += (double)timer_at(&b->q[i]->blocked, sim_now(ctx)) / 1e6;
    sim_metric(ctx, "starvation_ms_total", starved_sum);
    sim_metric(ctx, "starvation_ms_max", starved_max);
    sim_metric(ctx, "starvation_buffered_ms_total", buffered_sum);
    sim_metric(ctx, "page_window_blocked_ms", blocked);
    sim_metric(ctx, "message_share_max", share_max);
    sim_metric(ctx, "message_share_max_over_mean", ratio_max);
    sim_metric(ctx, "groups_per_consumer_max", (double)groups_max);
    sim_metric(ctx, "groups_per_consumer_mean", grouped ? (double)grouped_sum / (double)grouped : 0);
    sim_metric(ctx, "group_assignments", (double)b->assignments);
    sim_metric(ctx, "group_reassignments", (double)b->reassignments);
    sim_metric(ctx, "group_evictions", (double)b->evictions);
    sim_metric(ctx, "group_closes", (double)b->closes);
}
