/* broker_activemq.c -- `broker.kind: activemq`: ActiveMQ Classic 5.17.2 queue
 * dispatch with prefetch, the page window and message groups
 * (specs/spring-jms-activemq.md §2; docs/activemq-dmlc-notes.md).
 *
 * Per queue the broker keeps, as org.apache.activemq.broker.region.Queue:
 *   store    messages not paged in yet (the cursor), in publish order;
 *   redeliv  redeliveredWaitingDispatch: what closed consumers held, in
 *            dispatch order; always offered before paged;
 *   paged    pagedInPendingDispatch: paged in, not dispatched, kept as
 *            one stream per group (amq_window, activemq_window.c);
 *   subs     the consumers in dispatch order, kept stably sorted by
 *            (priority desc, assigned groups asc) (Queue.orderedCompare).
 * A subscription's `dispatched` list is what it was sent and has not
 * acknowledged: its client buffer, since the consumer acknowledges on
 * receive (AUTO_ACKNOWLEDGE).
 *
 * Dispatch (kick) runs rounds until a round changes nothing (spec §2.3):
 * page in up to maxPageSize from the store while fewer than maxPageSize are
 * pending, offer redeliv then paged to the consumers (dispatch_list, which
 * is Queue.doActualDispatch), then the new page if nothing was left pending
 * (Queue.doDispatch).  A message no consumer can take is skipped, not
 * waited on.  Kicks follow every publish, subscribe, unsubscribe, ack and
 * pull; a kick that arrives while one runs makes it run again.  A kick runs
 * no round that would change nothing (is_quiet), and a publish to a queue
 * the last kick left so (is_idle) behind a backlog needs no kick at all.
 * A pass over the page window (dispatch_window) reaches the messages it may
 * take stream by stream, skipping the streams that wait for a full owner,
 * and counts the group lookups of those it passes over without visiting
 * them; a pass over redeliv steps over the stretch the last pass skipped
 * while it would skip it again (amq_skip, activemq.h).
 *
 * Invariants:
 *  (1) a message is on exactly one of store, redeliv, paged, or one
 *      subscription's dispatched list (or with the consumer, acked);
 *  (2) n_open == the subscriptions that are not full (is_full);
 *  (3) buffered == the sum of the dispatched lists;
 *  (4) a group has an owner only while that subscription exists;
 *  (5) a subscription's is_full is PrefetchSubscription.isFull() (fills);
 *  (6) subs[s->at] == s for every subscription s;
 *  (7) is_idle: the queue is quiet (is_quiet) and its timers settled, as
 *      the last kick left it; every operation clears it first (changing)
 *      but a publish behind a backlog, which keeps it true (amq_publish).
 *
 * Acknowledgement: AUTO_ACK acknowledges inside receive(), before the
 * listener runs, so ack() frees the prefetch slot but leaves the message
 * with the consumer, which calls sim_msg_done() when its listener returns.
 *
 * ackLatency (default 0): an ack reaches the broker that long after the
 * client sent it.  The message is the consumer's from the send on (it is
 * already being processed), but its prefetch slot stays taken until the ack
 * arrives, so a consumer keeps its listener busy only with a prefetch that
 * covers the round trip.  Pulls, rejects and closes are not delayed.
 *
 * pull()/unpull(): a consumer waiting in receive() says so.  With prefetch
 * 0 that is ActiveMQ's MessagePull (one message may be sent while it is
 * outstanding); with prefetch > 0 it only marks the consumer idle, for the
 * starvation figures (broker_activemq_stats.c).
 */
#include "activemq/activemq.h"
#include "engine/list.h"
#include "base/mem.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void on_release(sim_ctx *ctx, void *self, void *arg);
static void on_ack_arrives(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_release = { "activemq.dispatch_starts", on_release };
static const sim_event_type ev_ack_arrives = { "activemq.ack_arrives", on_ack_arrives };

/* ---- message lists ----------------------------------------------------------- */

static void ml_push(amq_list *l, sim_msg *m)
{
    msg_list_push_back(&l->head, &l->tail, m);
    l->n++;
}

static void ml_unlink(amq_list *l, sim_msg *m)
{
    msg_list_unlink(&l->head, &l->tail, m);
    l->n--;
}


/* ---- rings: a subscription's dispatched list, its acks in transit ------------ */

/* Rings double from 8 (ring_grown), so a capacity is a power of two and an
 * index wraps with a mask (a division on every access cost more than the
 * rest). */
static size_t ring_at(size_t head, size_t i, size_t cap)
{
    return (head + i) & (cap - 1);
}

static size_t ring_grown(size_t cap)
{
    return cap ? cap * 2 : 8;
}

static void pq_push(amq_ptrq *q, sim_msg *m)
{
    if (q->n == q->cap) {
        size_t cap = ring_grown(q->cap);
        sim_msg **v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[ring_at(q->head, i, q->cap)];
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[ring_at(q->head, q->n++, q->cap)] = m;
}

/* Removes m (almost always the oldest: clients take their buffer in order). */
static bool pq_remove(amq_ptrq *q, const sim_msg *m)
{
    for (size_t i = 0; i < q->n; i++) {
        if (q->v[ring_at(q->head, i, q->cap)] != m)
            continue;
        if (i == 0) {
            q->head = ring_at(q->head, 1, q->cap);
        } else {
            for (size_t j = i; j + 1 < q->n; j++)
                q->v[ring_at(q->head, j, q->cap)] = q->v[ring_at(q->head, j + 1, q->cap)];
        }
        q->n--;
        return true;
    }
    return false;
}

/* ---- consumers ------------------------------------------------------------------- */

/* PrefetchSubscription.isFull(): with prefetch 0 a consumer may be sent a
 * message only while its pull is outstanding. */
static bool fills(const amq_sub *s)
{
    if (s->prefetch == 0)
        return s->extension == 0;
    return (int64_t)(s->dispatched.n + s->an) >= s->prefetch;
}

/* isFull() as of the last recount: a pass asks it of every owner it meets,
 * and it changes only with what recount follows. */
static bool is_full(const amq_sub *s)
{
    return s->is_full;
}

static amq_sub *sub_of_owner(amqg_owner *o)
{
    return o ? (amq_sub *)(void *)((char *)o - offsetof(amq_sub, own)) : NULL;
}

/* Queue.orderedCompare: higher priority first, then fewer groups. */
static int compare(const amq_sub *a, const amq_sub *b)
{
    if (a->priority != b->priority)
        return b->priority - a->priority;
    return (a->groups > b->groups) - (a->groups < b->groups);
}

/* s goes to place i of the dispatch order (invariant 6). */
static void put_sub(amq_queue *q, size_t i, amq_sub *s)
{
    q->subs[i] = s;
    s->at = i;
}

/* Collections.sort is stable; insertion sort is, and the list is nearly
 * sorted every time (one consumer moved or one count changed): a consumer
 * not before its predecessor stays, with its place unwritten (with a
 * million groups a sort follows nearly every eviction, so every dispatch). */
static void sort_subs(amq_queue *q)
{
    for (size_t i = 1; i < q->nsubs; i++) {
        amq_sub *s = q->subs[i];
        if (compare(q->subs[i - 1], s) <= 0)
            continue;
        size_t j = i;
        while (j > 0 && compare(q->subs[j - 1], s) > 0) {
            put_sub(q, j, q->subs[j - 1]);
            j--;
        }
        put_sub(q, j, s);
    }
}

static void remove_sub(amq_queue *q, const amq_sub *s)
{
    size_t i = s->at;
    assert(i < q->nsubs && q->subs[i] == s);
    for (q->nsubs--; i < q->nsubs; i++)   /* a few: no call to memmove */
        put_sub(q, i, q->subs[i + 1]);
}

/* Round robin: the consumer just sent a message goes to the end, then the
 * list is sorted again (Queue.doActualDispatch, addToConsumerList).  The
 * others are in order, and s sorts no earlier than before (it gained a
 * group or none), unless a count went down (is_unsorted): then the stable
 * sort puts s right before the others that sort after it, which are the
 * last ones, so s moves only towards the end. */
static void rotate(amq_queue *q, amq_sub *s)
{
    q->subs_version++;
    if (q->nsubs < 2)
        return;
    if (q->is_unsorted) {
        remove_sub(q, s);
        put_sub(q, q->nsubs++, s);
        sort_subs(q);
        q->is_unsorted = false;
        return;
    }
    size_t i = s->at;
    for (; i + 1 < q->nsubs && compare(q->subs[i + 1], s) <= 0; i++)
        put_sub(q, i, q->subs[i + 1]);
    put_sub(q, i, s);
}

static amq_sub *first_open(const amq_queue *q)
{
    for (size_t i = 0; i < q->nsubs; i++)
        if (!is_full(q->subs[i]))
            return q->subs[i];
    return NULL;
}

/* After a change to s that may open or fill it (its dispatched list, its
 * acks in transit, its pull): keeps is_full and n_open right (invariants 2
 * and 5). */
static void recount(amq_queue *q, amq_sub *s)
{
    bool was_full = s->is_full, now_full = fills(s);
    s->is_full = now_full;
    q->n_open += (int)was_full - (int)now_full;
    if (was_full && !now_full)
        s->opened_at = ++q->opened;
    q->subs_version++;
}

/* Takes m off s's dispatched list (acknowledged or rejected). */
static void undispatch(amq_queue *q, amq_sub *s, const sim_msg *m)
{
    bool found = pq_remove(&s->dispatched, m);
    assert(found);
    (void)found;
    recount(q, s);
    q->buffered--;
}

/* ---- groups (Queue.assignMessageGroup / assignGroup) ------------------------------- */

/* The group's name, only when the map needs it (to hash it). */
static const char *name_for(sim_ctx *ctx, const amq_queue *q, const sim_msg *m)
{
    return amqg_wants_name(q->groups, m->group) ? sim_group_name(ctx, m->group) : NULL;
}

static void assign(sim_ctx *ctx, amq_queue *q, sim_msg *m, amq_sub *s)
{
    const char *name = name_for(ctx, q, m);
    int evicted = -1;
    amq_sub *old = sub_of_owner(amqg_put(q->groups, m->group, name, &s->own, &evicted));
    if (old) {                     /* CachedMessageGroupMap.removeEldestEntry */
        old->groups--;
        q->b->evictions++;
        q->is_unsorted = true;     /* old may sort earlier now */
    }
    s->groups++;
    amq_note_assignment(ctx, q, m->group, s->port);
}

/* m, the end of its group (JMSXGroupSeq < 0), goes to its owner o, and
 * then the group has no owner. */
static void close_group(sim_ctx *ctx, amq_queue *q, const sim_msg *m, amq_sub *o)
{
    amqg_remove_group(q->groups, m->group, name_for(ctx, q, m));
    o->groups--;
    q->b->closes++;
    q->is_unsorted = true;         /* o may sort earlier now */
}

/* Which consumer takes m now, or NULL.  This is the consumer loop of
 * doActualDispatch with assignMessageGroup folded in: for a group that has
 * an owner every other consumer refuses, so the owner takes it if it is not
 * full; otherwise the first consumer that is not full does.  The LRU is
 * touched exactly when the real loop calls get(): when some consumer is
 * not full (the caller checked that). */
static amq_sub *choose(sim_ctx *ctx, amq_queue *q, sim_msg *m, amq_sub **blocker, bool count_use)
{
    if (m->group < 0)
        return first_open(q);
    amq_sub *t;
    if (sim_msg_group_first(m)) {  /* "if we can own the first, no-one else should own the rest" */
        t = first_open(q);
        assign(ctx, q, m, t);
        return t;
    }
    const char *name = name_for(ctx, q, m);
    amq_sub *o = sub_of_owner(count_use ? amqg_get(q->groups, m->group, name)
                                        : amqg_peek(q->groups, m->group, name));
    if (!o) {
        t = first_open(q);
        assign(ctx, q, m, t);
        return t;
    }
    if (is_full(o)) {
        *blocker = o;
        return NULL;
    }
    if (sim_msg_group_close(m))
        close_group(ctx, q, m, o);
    return o;
}

/* ---- dispatch -------------------------------------------------------------------- */

static void send(sim_ctx *ctx, amq_queue *q, amq_sub *s, sim_msg *m)
{
    pq_push(&s->dispatched, m);
    if (s->prefetch == 0)
        s->extension--;
    recount(q, s);
    q->buffered++;
    if (s->is_waiting)
        amq_wait_end(q, s, sim_now(ctx));
    s->port->ops->deliver(ctx, s->port, m);
}

/* ---- the skipped stretch (amq_skip, activemq.h) ------------------------------------- */

static int skip_find(const amq_skip *k, int32_t group)
{
    for (int i = 0; i < k->k; i++)
        if (k->group[i] == group)
            return i;
    return -1;
}

/* Moves group i to the end of the order (its last message is now later). */
static void skip_to_end(amq_skip *k, int i)
{
    int32_t g = k->group[i];
    int64_t c = k->count[i];
    amq_sub *o = k->owner[i];
    for (int j = i; j + 1 < k->k; j++) {
        k->group[j] = k->group[j + 1];
        k->count[j] = k->count[j + 1];
        k->owner[j] = k->owner[j + 1];
    }
    k->group[k->k - 1] = g;
    k->count[k->k - 1] = c;
    k->owner[k->k - 1] = o;
}

/* Adds `count` messages of group g (owned by o) at the end of the stretch;
 * false when it would hold too many groups. */
static bool skip_add_group(amq_skip *k, int32_t g, int64_t count, amq_sub *o)
{
    if (k->k > 0 && k->group[k->k - 1] == g) {   /* a run of one group: the common case */
        k->count[k->k - 1] += count;
        return true;
    }
    int i = skip_find(k, g);
    if (i < 0) {
        if (k->k == AMQ_SKIP_GROUPS)
            return false;
        i = k->k++;
        k->group[i] = g;
        k->count[i] = 0;
        k->owner[i] = o;
    }
    k->count[i] += count;
    skip_to_end(k, i);
    return true;
}

static bool skip_add(amq_skip *k, sim_msg *m, amq_sub *o)
{
    if (!skip_add_group(k, m->group, 1, o))
        return false;
    if (k->n++ == 0)
        k->first = m;
    k->last = m;
    return true;
}

/* Appends stretch b, which follows a in the list, to a. */
static bool skip_merge(amq_skip *a, const amq_skip *b)
{
    for (int i = 0; i < b->k; i++)
        if (!skip_add_group(a, b->group[i], b->count[i], b->owner[i]))
            return false;
    if (a->n == 0)
        a->first = b->first;
    a->last = b->last;
    a->n += b->n;
    return true;
}

/* m, the first message of the stretch, is visited: it leaves the stretch.
 * Returns the owner its group had. */
static amq_sub *skip_shrink(amq_skip *k, const sim_msg *m)
{
    int i = skip_find(k, m->group);
    assert(i >= 0);
    amq_sub *o = k->owner[i];
    if (--k->count[i] == 0) {
        skip_to_end(k, i);
        k->k--;
    }
    if (--k->n == 0)
        *k = (amq_skip){ 0 };
    else
        k->first = m->next;
    return o;
}

/* Whether a and b together have at most AMQ_SKIP_GROUPS groups. */
static bool skip_fits(const amq_skip *a, const amq_skip *b)
{
    int k = a->k;
    for (int i = 0; i < b->k; i++)
        k += skip_find(a, b->group[i]) < 0;
    return k <= AMQ_SKIP_GROUPS;
}

static bool skip_all_full(const amq_skip *k)
{
    for (int i = 0; i < k->k; i++)
        if (!is_full(k->owner[i]))
            return false;
    return true;
}

/* The group lookups a pass over the stretch would make, each group once. */
static void touch(sim_ctx *ctx, amq_queue *q, int32_t group)
{
    amqg_get(q->groups, group, amqg_wants_name(q->groups, group) ? sim_group_name(ctx, group) : NULL);
}

static void skip_touch(sim_ctx *ctx, amq_queue *q, const amq_skip *k)
{
    for (int i = 0; i < k->k; i++)
        touch(ctx, q, k->group[i]);
}

/* Some owner of the stretch is not full: walks the stretch from its first
 * message while the messages are of groups whose owners are full, as a pass
 * would skip them, a run of one group at a time (a run's lookups after its
 * first change nothing: that group is the newest already).  Returns the
 * first message of an open owner's group, now the stretch's first. */
static sim_msg *skim(sim_ctx *ctx, amq_queue *q, amq_skip *old, amq_skip *now, bool *is_recording)
{
    sim_msg *m = old->first;
    while (old->n > 0) {
        int32_t g = m->group;
        int i = skip_find(old, g);
        assert(i >= 0);
        amq_sub *o = old->owner[i];
        if (!is_full(o))
            return m;
        touch(ctx, q, g);
        sim_msg *last = m;
        int64_t run = 1;
        while (run < old->n && last->next->group == g) {
            last = last->next;
            run++;
        }
        if ((old->count[i] -= run) == 0) {
            skip_to_end(old, i);
            old->k--;
        }
        if ((old->n -= run) == 0)
            *old = (amq_skip){ 0 };
        else
            old->first = last->next;
        if (*is_recording) {
            *is_recording = skip_add_group(now, g, run, o);
            if (now->n == 0)
                now->first = m;
            now->last = last;
            now->n += run;
        }
        m = last->next;
    }
    return m;
}

/* ---- dispatch -------------------------------------------------------------------- */

/* Offers the messages of l, in order, to the consumers; what nobody takes
 * stays in l.  Stops when every consumer is full.  True if any was sent.
 * The stretch the last pass skipped is skipped again in one step while it
 * would be skipped message by message (amq_skip); this pass records the
 * stretch it skips for the next one. */
static bool dispatch_list(sim_ctx *ctx, amq_queue *q, amq_list *l, amq_skip *old)
{
    if (!l->head) {
        old->n = 0;                /* no stretch */
        return false;
    }
    bool any = false;
    uint64_t changes = amqg_changes(q->groups);
    amq_skip now = { 0 };          /* old is changed in place as it is used */
    bool has_old = old->n > 0 && old->changes == changes, is_recording = true;
    for (sim_msg *m = l->head, *next; m && q->n_open > 0; m = next) {
        bool in_old = has_old && m == old->first;
        if (in_old && amqg_changes(q->groups) != old->changes)
            has_old = in_old = false;   /* an owner changed during this pass */
        if (in_old && skip_all_full(old)) {
            skip_touch(ctx, q, old);
            is_recording = is_recording && skip_merge(&now, old);
            next = old->last->next;
            has_old = false;
            continue;
        }
        if (in_old) {
            m = skim(ctx, q, old, &now, &is_recording);
            if (!m)
                break;
            in_old = has_old = old->n > 0 && m == old->first;
        }
        next = m->next;
        if (in_old) {
            amq_sub *o = skip_shrink(old, m);
            has_old = old->n > 0;
            if (is_full(o)) {      /* what choose() would find: only the lookup happens */
                touch(ctx, q, m->group);
                is_recording = is_recording && skip_add(&now, m, o);
                continue;
            }
        }
        amq_sub *blocker = NULL;
        amq_sub *t = choose(ctx, q, m, &blocker, true);
        if (!t) {
            is_recording = is_recording && blocker && skip_add(&now, m, blocker);
            continue;
        }
        ml_unlink(l, m);
        send(ctx, q, t, m);
        rotate(q, t);
        any = true;
    }
    if (!is_recording || amqg_changes(q->groups) != changes || (now.n == 0 && !has_old))
        *old = (amq_skip){ 0 };
    else if (now.n == 0)
        ;                          /* the old stretch stays as it is */
    else if (has_old && now.last->next == old->first && skip_fits(&now, old)) {
        skip_merge(&now, old);     /* the stretch this pass did not reach follows on */
        *old = now;
    } else {
        *old = now;
    }
    old->changes = changes;
    return any;
}

/* ---- the page window's pass (amq_window, activemq_window.c) -------------------- */

/* Looks up the owner of s's group again (an owner changed since the last
 * lookup): out of line, as it is rare and needs the group's name. */
static __attribute__((noinline)) void owner_lookup(sim_ctx *ctx, amq_queue *q, amq_stream *s,
                                                   uint64_t at)
{
    const char *name = amqg_wants_name(q->groups, s->group) ? sim_group_name(ctx, s->group) : NULL;
    s->owner = sub_of_owner(amqg_peek(q->groups, s->group, name));
    s->owner_at = at;
    s->wait_mark = 0;              /* it waited for another owner, if any */
}

/* The owner of s's group (not -1), looked up once while no owner changes. */
static amq_sub *stream_owner(sim_ctx *ctx, amq_queue *q, amq_stream *s)
{
    uint64_t at = amqg_changes(q->groups) + 1;
    if (s->owner_at != at)
        owner_lookup(ctx, q, s, at);
    return s->owner;
}

/* Stream i offers the first message from m on that the pass may take now:
 * any, unless its group's owner is full; then only a first of a group
 * (JMSXGroupSeq 1), which goes to whoever is first.  A stream that offers
 * nothing because its owner is full is marked as waiting (wait_mark). */
static inline __attribute__((always_inline)) void offer(sim_ctx *ctx, amq_queue *q, int32_t i,
                                                       sim_msg *m)
{
    amq_window *w = &q->paged;
    amq_stream *s = &w->s[i - 1];
    if (m && s->group >= 0) {
        amq_sub *o = stream_owner(ctx, q, s);
        if (o && is_full(o)) {
            if (s->firsts == 0) {
                s->wait_mark = q->opened + 1;
                return;
            }
            while (m && !sim_msg_group_first(m))
                m = m->next;
        }
    }
    if (m)
        amqw_offer(w, i, m);
}

/* Whether stream s still waits for its full owner, so that offer() would
 * find nothing it may offer, wherever it started: it was marked (a group, a
 * full owner, no first of a group), and since then no owner changed (its
 * owner is still the one it looked up), its owner did not open, and no
 * message joined it (amqw_push clears the mark).  Most streams of a window
 * that a hot group fills wait so, and one acknowledgement opens one owner. */
static bool still_waits(const amq_stream *s, uint64_t owners_at)
{
    return s->wait_mark && s->owner_at == owners_at && s->owner->opened_at < s->wait_mark;
}

/* Every stream offers again, from the first message after id x (0: from
 * its first), but those that still wait for their owner: a pass begins, an
 * owner changed, or a consumer opened. */
static inline __attribute__((always_inline)) void offer_all(sim_ctx *ctx, amq_queue *q, uint64_t x)
{
    amq_window *w = &q->paged;
    uint64_t owners_at = amqg_changes(q->groups) + 1;   /* see stream_owner */
    amqw_clear_offers(w);
    for (int32_t i = w->oldest; i; i = w->s[i - 1].newer) {
        amq_stream *s = &w->s[i - 1];
        if (!still_waits(s, owners_at))
            offer(ctx, q, i, x ? amqw_first_after(s, x) : s->head);
    }
}

/* The group lookups of the pass before message id `bound`, counted as uses
 * (cached map) in the order the pass made them: those of the messages it
 * took (the log, already in order) and those of the messages it passed
 * over, which are all still in the window; of these, only each group's
 * last before `bound` matters.  Uses counted again change nothing but
 * their place, so this may run more than once in a pass.  Returns whether
 * a pass that takes nothing would now change nothing: the pass went to the
 * end of the window and each group it took from has a later message left,
 * so the order it leaves is that of the groups' last messages. */
static bool count_uses(amq_queue *q, uint64_t bound)
{
    amq_window *w = &q->paged;
    if (w->capseq < w->ns)
        xgrow((void **)&w->seq, &w->capseq, w->ns, sizeof *w->seq);
    if (w->captouch < w->ns + w->nlog)
        xgrow((void **)&w->touch, &w->captouch, w->ns + w->nlog, sizeof *w->touch);
    size_t n = 0;
    bool is_end = bound == UINT64_MAX;
    for (int32_t i = w->oldest; i; i = w->s[i - 1].newer) {
        amq_stream *s = &w->s[i - 1];
        sim_msg *m = s->group < 0 ? NULL : is_end || s->tail->id < bound ? s->tail
                                                                         : amqw_last_before(s, bound);
        if (!m)
            continue;
        size_t j = n++;            /* in the order of the streams' last messages: sorted at the end */
        while (!is_end && j > 0 && w->seq[j - 1].id > m->id) {
            w->seq[j] = w->seq[j - 1];
            j--;
        }
        w->seq[j] = (amq_touch){ m->id, s->group };
    }
    size_t a = 0, b = 0, k = 0;
    bool is_settled = is_end;
    while (b < w->nlog) {
        const amq_touch *t = &w->log[b++];
        while (a < n && w->seq[a].id < t->id)
            w->touch[k++] = w->seq[a++].group;
        int32_t i = is_settled ? amqw_stream_of(w, t->group) : 0;
        is_settled = i && w->s[i - 1].tail->id > t->id;
        w->touch[k++] = t->group;
    }
    while (a < n)
        w->touch[k++] = w->seq[a++].group;
    amqg_touch_all(q->groups, w->touch, k);
    return is_settled;
}

/* Whether a pass over the window now would repeat the last one: that pass
 * went through to the end and left nothing it could take, and neither the
 * window, the consumers nor the group map changed since. */
static bool window_would_repeat(const amq_queue *q)
{
    const amq_window *w = &q->paged;
    return w->was_exhausted && w->seen_window == w->version && w->seen_subs == q->subs_version &&
           w->seen_map == amqg_version(q->groups);
}

/* Queue.doActualDispatch over the page window, with what dispatch_list does
 * message by message done stream by stream: the streams offer the messages
 * the pass may take (offer), the oldest offer is taken, and the messages
 * between are passed over without a visit.  A passed-over message's only
 * effect is its group's lookup, counted as a use at the end (count_uses),
 * or before a put that may evict a group, which follows the order of use.
 * Taken messages are looked up without counting a use then, for the same
 * reason.  What is offered stays right while no owner changes and no
 * consumer opens (consumers fill as they are sent messages); when one does,
 * every stream offers again, but those that still wait for a full owner
 * (still_waits), and a message of a group that has an owner goes to it
 * without another lookup. */
static bool dispatch_window(sim_ctx *ctx, amq_queue *q)
{
    amq_window *w = &q->paged;
    if (w->n == 0 || q->n_open == 0)
        return false;
    bool lru = amqg_has_lru(q->groups), any = false;
    if (window_would_repeat(q)) {
        /* Nothing changed since the last pass, which went through to the end
         * and left nothing it could take: this one takes nothing either, and
         * only its lookups count, if even they change anything. */
        if (w->is_settled)
            return false;
        w->nlog = 0;
        w->is_settled = count_uses(q, UINT64_MAX);
        w->seen_map = amqg_version(q->groups);
        return false;
    }
    uint64_t changes = amqg_changes(q->groups), opened = q->opened, bound = UINT64_MAX;
    bool was_steady = true;        /* no owner changed, no consumer opened */
    /* The map's order is the last pass's and that pass's lookups would
     * leave it so: while this one takes no stream's last message, its
     * lookups leave it so too. */
    bool keeps_order = w->was_exhausted && w->is_settled && w->seen_window == w->version &&
                       w->seen_map == amqg_version(q->groups);
    w->nlog = 0;
    amqw_begin_offers(w);
    offer_all(ctx, q, 0);
    int32_t i;
    while (q->n_open > 0 && (i = amqw_take_offer(w)) != 0) {
        amq_stream *s = &w->s[i - 1];
        sim_msg *m = s->cand;
        amq_sub *t = s->owner;     /* offer() looked it up since the last change */
        if (m->group >= 0 && !sim_msg_group_first(m) && t) {
            /* what choose() finds for a group that has an owner */
            if (is_full(t)) {      /* filled during this pass: passed over */
                offer(ctx, q, i, m);
                continue;
            }
            if (sim_msg_group_close(m))
                close_group(ctx, q, m, t);
        } else {
            if (lru && m->group >= 0 && amqg_may_evict(q->groups, m->group))
                count_uses(q, m->id);
            amq_sub *blocker = NULL;
            t = choose(ctx, q, m, &blocker, !lru);
            assert(t);
        }
        if (lru && m->group >= 0) {
            if (w->nlog == w->caplog)
                xgrow((void **)&w->log, &w->caplog, w->nlog + 1, sizeof *w->log);
            w->log[w->nlog++] = (amq_touch){ m->id, m->group };
        }
        sim_msg *next = m->next;
        uint64_t id = m->id;
        keeps_order = keeps_order && next;
        amqw_remove(w, m);
        send(ctx, q, t, m);
        rotate(q, t);
        any = true;
        bound = id + 1;
        if (amqg_changes(q->groups) != changes || q->opened != opened) {
            changes = amqg_changes(q->groups);
            opened = q->opened;
            was_steady = false;
            offer_all(ctx, q, id);
        } else if (next) {
            offer(ctx, q, i, next);
        }
    }
    if (q->n_open > 0)
        bound = UINT64_MAX;        /* it went through to the end */
    /* What it passed over before an owner changed may be taken now. */
    w->was_exhausted = q->n_open > 0 && was_steady;
    amqw_clear_offers(w);
    if (lru && !(keeps_order && w->was_exhausted))
        w->is_settled = count_uses(q, bound);
    else
        w->is_settled = true;
    w->seen_window = w->version;
    w->seen_subs = q->subs_version;
    w->seen_map = amqg_version(q->groups);
    return any;
}

/* Whether dispatch cannot run at all: a delayed start holds it, or no
 * consumer is subscribed (iterate() then pages nothing in either). */
static inline bool is_stopped(const amq_queue *q)
{
    return q->is_holding || q->nsubs == 0;
}

/* How many messages a round pages in now: up to maxPageSize from the
 * store, while fewer than that are pending (Queue.doPageIn). */
static inline int64_t page_due(const amq_queue *q)
{
    int64_t max = q->b->max_page;
    if (q->redeliv.n + q->paged.n >= max)
        return 0;
    return q->store.n < max ? q->store.n : max;
}

/* Whether a round now would change nothing at all, so that it need not
 * run: it would page nothing in, redeliv is empty, and the window's pass
 * would return at once (no message it may offer, no consumer open, or the
 * last pass repeated with its lookups already counted).  A publish behind a
 * full page window, the common case under a backlog, and the round after
 * one that took what it could both find the queue so. */
static inline __attribute__((always_inline)) bool is_quiet(const amq_queue *q)
{
    if (is_stopped(q))
        return true;
    const amq_window *w = &q->paged;
    bool is_window_done = w->n == 0 || q->n_open == 0 || (w->is_settled && window_would_repeat(q));
    return is_window_done && q->redeliv.n == 0 && q->redeliv_skip.n == 0 && page_due(q) == 0;
}

/* The store's first n messages join the page window, in order: they leave
 * the store in one piece, and amqw_push links each into its stream. */
static void page_in(amq_queue *q, int64_t n)
{
    sim_msg *m = q->store.head;
    for (int64_t k = 0; k < n; k++) {
        sim_msg *next = m->next;
        amqw_push(&q->paged, m);
        m = next;
    }
    q->store.head = m;
    if (m)
        m->prev = NULL;
    else
        q->store.tail = NULL;
    q->store.n -= n;
}

/* One iterate(): page in, dispatch what was pending, then the new page. */
static bool round_once(sim_ctx *ctx, amq_queue *q)
{
    if (is_stopped(q))
        return false;
    /* The new page is the store's first messages; they stay there until
     * what was pending has been offered (a publish meanwhile only appends). */
    int64_t page = page_due(q);
    bool changed = page > 0;
    changed |= dispatch_list(ctx, q, &q->redeliv, &q->redeliv_skip);
    changed |= dispatch_window(ctx, q);
    bool was_empty = q->redeliv.n + q->paged.n == 0;
    page_in(q, page);
    if (page > 0 && was_empty)     /* the new page is dispatched at once */
        dispatch_window(ctx, q);
    return changed;
}

/* Rounds until one changes nothing or leaves the queue quiet, and again
 * while kicks came meanwhile; true if it left the queue quiet.  Out of
 * line: most kicks find the queue quiet and need none of this. */
static __attribute__((noinline)) bool run_rounds(sim_ctx *ctx, amq_queue *q)
{
    bool is_done;                  /* is_quiet() after the last round */
    q->is_dispatching = true;
    q->is_idle = false;
    do {
        q->again = false;
        is_done = false;
        while (!is_done && round_once(ctx, q))
            is_done = is_quiet(q);
    } while (q->again && !(is_done = is_quiet(q)));
    q->is_dispatching = false;
    return is_done;
}

/* Dispatch after a change (spec §2.3); the queue is idle after it if it
 * ended quiet (invariant 7).  Inlined in every operation: its common case
 * is a queue already quiet. */
static inline __attribute__((always_inline)) void amq_kick(sim_ctx *ctx, amq_queue *q)
{
    if (q->is_dispatching) {
        q->again = true;
        return;
    }
    bool is_done = is_quiet(q) || run_rounds(ctx, q);
    amq_settle(q, sim_now(ctx));
    q->is_idle = is_done;
}

/* Every operation but a publish behind a backlog calls this before it
 * changes the queue: it is no longer known to be idle (invariant 7). */
static amq_queue *changing(amq_queue *q)
{
    q->is_idle = false;
    return q;
}

/* ---- delayed start (consumersBeforeDispatchStarts, timeBeforeDispatchStarts) ------- */

/* The firstConsumer branch of Queue.iterate(): the queue's task thread,
 * about to page in and dispatch, waits first.  With
 * consumersBeforeDispatchStarts it waits on the latch it finds, at most
 * timeBeforeDispatchStarts (or one second), and not at all if that latch
 * is open; with only timeBeforeDispatchStarts it sleeps that long.  Then
 * the same iterate() pages in and dispatches to whoever is subscribed. */
static void hold(sim_ctx *ctx, amq_queue *q)
{
    const amq_broker *b = q->b;
    q->is_first = false;
    sim_time wait = 0;
    if (b->consumers_before > 0) {
        if (q->latch > 0)
            wait = b->time_before > 0 ? b->time_before : SIM_S;   /* "one second by default" */
    } else {
        wait = b->time_before;
    }
    if (wait == 0)
        return;
    assert(!q->is_holding && !q->release);
    q->is_holding = true;
    q->holds_latch = b->consumers_before > 0;
    q->release = sim_schedule(ctx, wait, &ev_release, q, NULL);
}

/* Queue.addSubscription for a consumer that finds no other: it sets
 * firstConsumer and makes a new latch of consumersBeforeDispatchStarts - 1.
 * The wake-up it sends starts the wait at once, unless a wait is under
 * way: that one is not restarted and its latch is no longer the one later
 * consumers count down, so it runs to its timeout; that iterate()
 * dispatches, and the next one, finding firstConsumer set, waits again
 * (on_release).  So consumers that come and go one at a time (a DMLC below
 * CACHE_CONSUMER makes one per receive) see dispatch once per wait. */
static void first_consumer(sim_ctx *ctx, amq_queue *q)
{
    if (q->b->consumers_before > 0)
        q->latch = q->b->consumers_before - 1;
    if (q->is_holding) {
        q->is_first = true;
        q->holds_latch = false;
    } else {
        hold(ctx, q);
    }
}

static void on_release(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    amq_queue *q = changing(self);
    q->release = 0;
    q->is_holding = false;
    if (q->is_first) {             /* this iterate() dispatches, the next one waits */
        q->is_dispatching = true;
        round_once(ctx, q);
        q->is_dispatching = false;
        hold(ctx, q);
    }
    amq_kick(ctx, q);
}

/* ---- the broker operations --------------------------------------------------------- */

/* The queues up to `queue`, made on the first message or subscription. */
static __attribute__((noinline)) void add_queues(amq_broker *b, int queue)
{
    size_t n = (size_t)queue + 1;
    b->q = xrealloc(b->q, n * sizeof *b->q);
    for (size_t i = b->nq; i < n; i++) {
        b->q[i] = xcalloc(1, sizeof *b->q[i]);
        b->q[i]->b = b;
        b->q[i]->groups = amqg_create(b->map_kind, b->map_size, &b->q[i]->paged.slots);
    }
    b->nq = n;
}

static amq_queue *queue_at(amq_broker *b, int queue)
{
    if ((size_t)queue >= b->nq)
        add_queues(b, queue);
    return b->q[queue];
}

/* A publish to a queue that its last kick left idle, behind messages that
 * wait in the store, changes nothing a kick would act on: page-in stays
 * stopped (by maxPageSize, a delayed start or no consumer), and every state
 * the timers follow stays as it was (a message waits in the store).  Under
 * a backlog nearly every publish is one, and it costs a list append. */
static void amq_publish(sim_ctx *ctx, broker *base, sim_msg *m)
{
    amq_queue *q = queue_at((amq_broker *)base, m->queue);
    bool joins_backlog = q->is_idle && q->store.n > 0;
    ml_push(&q->store, m);
    if (!joins_backlog)
        amq_kick(ctx, q);
}

/* The group's record (its stream, map entry and last owner) is read when
 * the message is paged in, nearly always within its publish, and so is the
 * record of the group a full cached map evicts for it: asked for now, their
 * misses overlap with the events before that publish. */
static void amq_publish_ahead(const broker *base, int queue, int group)
{
    const amq_broker *b = (const amq_broker *)base;
    if ((size_t)queue >= b->nq)
        return;
    amq_group_slot_prefetch(&b->q[queue]->paged.slots, group);
    amqg_prefetch_eldest(b->q[queue]->groups);
}

static void amq_subscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    amq_broker *b = (amq_broker *)base;
    amq_queue *q = changing(queue_at(b, p->queue));
    assert(!q->is_dispatching);    /* containers subscribe from their own events */
    amq_sub *s = xcalloc(1, sizeof *s);
    s->port = p;
    s->q = q;
    if (p->prefetch < 0)           /* the client's default, or the destination policy's */
        p->prefetch = b->prefetch;
    s->prefetch = p->prefetch;
    s->priority = p->priority;
    s->stats = amq_stats_of(b, p);
    p->broker_state = s;
    if (q->nsubs == 0) {
        first_consumer(ctx, q);
    } else if (q->latch > 0 && --q->latch == 0 && q->is_holding && q->holds_latch) {
        sim_cancel(ctx, q->release);    /* the latch opened before the timeout */
        q->release = 0;
        q->is_holding = false;
    }
    xgrow((void **)&q->subs, &q->cap, q->nsubs + 1, sizeof *q->subs);
    put_sub(q, q->nsubs++, s);
    sort_subs(q);
    s->is_full = fills(s);
    q->n_open += !s->is_full;
    q->subs_version++;
    amq_kick(ctx, q);
}

/* Queue.removeSubscription: groups released, unacknowledged messages put
 * at the end of redeliveredWaitingDispatch (ahead of everything paged in)
 * and dispatched at once.  The redelivery counter would count only messages
 * up to the last one delivered to the application (RemoveInfo
 * lastDeliveredSequenceId); under AUTO_ACK that one is already acknowledged,
 * so none of these is counted as redelivered by ActiveMQ. */
static void amq_unsubscribe(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)base;
    amq_sub *s = p->broker_state;
    assert(s);
    amq_queue *q = changing(s->q);
    assert(!q->is_dispatching);
    if (s->ack_event)
        sim_cancel(ctx, s->ack_event);   /* acks in transit die with the consumer */
    free(s->acks);
    if (s->is_waiting)
        amq_wait_end(q, s, sim_now(ctx));
    q->n_open -= !is_full(s);
    q->subs_version++;
    remove_sub(q, s);
    amqg_remove_owner(q->groups, &s->own);
    for (size_t i = 0; i < s->dispatched.n; i++) {
        sim_msg *m = s->dispatched.v[ring_at(s->dispatched.head, i, s->dispatched.cap)];
        ml_push(&q->redeliv, m);
        sim_msg_requeued(ctx, m);
        q->buffered--;
    }
    free(s->dispatched.v);
    free(s);
    p->broker_state = NULL;
    if (q->redeliv.n > 0 && q->nsubs > 0) {    /* doDispatch(new OrderedPendingList()) */
        q->is_dispatching = true;
        dispatch_list(ctx, q, &q->redeliv, &q->redeliv_skip);
        dispatch_window(ctx, q);
        q->is_dispatching = false;
    }
    amq_kick(ctx, q);
}

/* An ack in transit: the message leaves the dispatched list now (the
 * container has it), its slot when the ack arrives. */
static void ack_in_transit(sim_ctx *ctx, amq_sub *s, sim_time latency)
{
    if (s->an == s->acap) {
        size_t cap = ring_grown(s->acap);
        sim_time *v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < s->an; i++)
            v[i] = s->acks[ring_at(s->ahead, i, s->acap)];
        free(s->acks);
        s->acks = v;
        s->ahead = 0;
        s->acap = cap;
    }
    sim_time due = sim_now(ctx) + latency;
    s->acks[ring_at(s->ahead, s->an++, s->acap)] = due;
    if (s->an == 1)
        s->ack_event = sim_schedule_at(ctx, due, &ev_ack_arrives, s, NULL);
}

static void on_ack_arrives(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    amq_sub *s = self;
    amq_queue *q = changing(s->q);
    s->ahead = ring_at(s->ahead, 1, s->acap);
    s->an--;
    s->ack_event = s->an ? sim_schedule_at(ctx, s->acks[s->ahead], &ev_ack_arrives, s, NULL) : 0;
    recount(q, s);
    amq_kick(ctx, q);
}

static void amq_ack(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m)
{
    const amq_broker *b = (const amq_broker *)base;
    amq_sub *s = p->broker_state;
    amq_queue *q = changing(s->q);
    if (b->ack_latency > 0 && s->prefetch > 0) {
        undispatch(q, s, m);       /* the message leaves the list ... */
        ack_in_transit(ctx, s, b->ack_latency);   /* ... its slot stays taken */
        recount(q, s);
        s->stats->received++;
        return;
    }
    undispatch(q, s, m);
    s->stats->received++;
    amq_kick(ctx, q);
}

static void amq_reject(sim_ctx *ctx, broker *base, consumer_port *p, sim_msg *m, bool requeue)
{
    (void)base;
    amq_sub *s = p->broker_state;
    amq_queue *q = changing(s->q);
    undispatch(q, s, m);
    if (requeue) {
        ml_push(&q->redeliv, m);
        sim_msg_requeued(ctx, m);
    } else {
        sim_msg_done(ctx, m);      /* to the dead-letter queue: gone from here */
    }
    amq_kick(ctx, q);
}

static void amq_pull(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)base;
    amq_sub *s = p->broker_state;
    amq_queue *q = changing(s->q);
    if (s->prefetch == 0) {        /* PrefetchSubscription.pullMessage: extension = 1 */
        s->extension = 1;
        recount(q, s);
    }
    if (!s->is_waiting)
        amq_wait_begin(q, s, sim_now(ctx));
    amq_kick(ctx, q);
}

static void amq_unpull(sim_ctx *ctx, broker *base, consumer_port *p)
{
    (void)base;
    amq_sub *s = p->broker_state;
    if (!s)
        return;
    amq_queue *q = changing(s->q);
    if (s->prefetch == 0) {        /* the pull timed out (pullTimeout) */
        s->extension = 0;
        recount(q, s);
    }
    if (s->is_waiting)
        amq_wait_end(q, s, sim_now(ctx));
    amq_settle(q, sim_now(ctx));
}

static int64_t amq_depth(const broker *base, int queue)
{
    const amq_broker *b = (const amq_broker *)base;
    if ((size_t)queue >= b->nq)
        return 0;
    const amq_queue *q = b->q[queue];
    return q->store.n + q->redeliv.n + q->paged.n;
}

static void amq_destroy(broker *base)
{
    amq_broker *b = (amq_broker *)base;
    if (!b)
        return;
    for (size_t i = 0; i < b->nq; i++) {
        amq_queue *q = b->q[i];
        for (size_t k = 0; k < q->nsubs; k++) {   /* the ports went with their containers */
            free(q->subs[k]->acks);
            free(q->subs[k]->dispatched.v);
            free(q->subs[k]);
        }
        free(q->subs);
        amqw_fini(&q->paged);
        amqg_destroy(q->groups);
        free(q);
    }
    free(b->q);
    amq_stats_fini(b);
    free(b);
}

static int amq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d);

const broker_ops broker_activemq = {
    .kind = "activemq", .create = amq_create, .destroy = amq_destroy,
    .publish = amq_publish, .publish_ahead = amq_publish_ahead,
    .subscribe = amq_subscribe, .unsubscribe = amq_unsubscribe,
    .ack = amq_ack, .reject = amq_reject, .pull = amq_pull, .unpull = amq_unpull,
    .depth = amq_depth, .finish = amq_finish,
};

static const char *const map_kinds[] = { "cached", "bucket", "simple", NULL };

/* The policy entry's names and defaults (PolicyEntry, BaseDestination,
 * ActiveMQPrefetchPolicy; spec §2.1). */
static int amq_create(sim_ctx *ctx, cfg_node *cfg, broker **out, sim_diag *d)
{
    (void)ctx;
    amq_broker *b = xcalloc(1, sizeof *b);
    b->base.ops = &broker_activemq;
    *out = &b->base;
    int64_t prefetch, page, before, size = 0;
    int kind;
    if (cfg_get_int(cfg, "queuePrefetch", 1000, 0, 1000000, 0, &prefetch, d) != SIM_OK ||
        cfg_get_int(cfg, "maxPageSize", 200, 1, 1000000, 0, &page, d) != SIM_OK ||
        cfg_get_enum(cfg, "messageGroupMapFactoryType", map_kinds, AMQG_CACHED, 0, &kind, d) !=
            SIM_OK ||
        cfg_get_int(cfg, "consumersBeforeDispatchStarts", 0, 0, 1000000, 0, &before, d) !=
            SIM_OK ||
        cfg_get_duration(cfg, "timeBeforeDispatchStarts", 0, 0, &b->time_before, d) != SIM_OK ||
        cfg_get_duration(cfg, "ackLatency", 0, 0, &b->ack_latency, d) != SIM_OK)
        return SIM_EINPUT;
    if (kind == AMQG_SIMPLE && cfg_has(cfg, "groupMapSize"))
        return diag_at(d, cfg_peek(cfg, "groupMapSize"), "groupMapSize: the simple group map "
                       "has no size (it keeps every group)");
    if (kind != AMQG_SIMPLE &&
        cfg_get_int(cfg, "groupMapSize", 1024, 1, 100000000, 0, &size, d) != SIM_OK)
        return SIM_EINPUT;
    b->prefetch = (int)prefetch;
    b->max_page = page;
    b->map_kind = (amqg_kind)kind;
    b->map_size = (int)size;
    b->consumers_before = before;
    return SIM_OK;
}
