/* activemq_window.c -- the page window (pagedInPendingDispatch) kept as one
 * stream of messages per group, so that a dispatch pass reaches the
 * messages it may take without walking those it may not (the pass itself is
 * dispatch_window in broker_activemq.c; the types are in activemq.h).
 *
 * Messages enter the window in publish order (page-in takes the store's
 * head), so their ids grow along the window and order any two of them; a
 * stream is the window restricted to one group (or to messages of no
 * group), linked by the messages' next/prev.  Invariants:
 *  (1) every message of the window is on exactly one stream, its group's,
 *      and n is their number;
 *  (2) a stream is on the order list iff it has messages, and that list
 *      runs from the stream whose last message is oldest to the newest;
 *  (3) slots.v[group + 1].stream is its stream's index + 1 while it has messages,
 *      0 otherwise; free slots are chained through `newer`;
 *  (4) firsts counts a stream's messages with JMSXGroupSeq 1;
 *  (5) a message that joins a stream clears its wait_mark (the broker's
 *      mark of a stream that waits for its full owner: it may offer this
 *      one).
 */
#include "activemq/activemq.h"
#include "engine/list.h"
#include "base/mem.h"

#include <assert.h>
#include <stdlib.h>

/* ---- the order of the streams by their last message -------------------------- */

static amq_stream *at(amq_window *w, int32_t i)
{
    return &w->s[i - 1];
}

static void order_unlink(amq_window *w, int32_t i)
{
    amq_stream *s = at(w, i);
    if (s->older)
        at(w, s->older)->newer = s->newer;
    else
        w->oldest = s->newer;
    if (s->newer)
        at(w, s->newer)->older = s->older;
    else
        w->newest = s->older;
    s->older = s->newer = 0;
}

/* Puts stream i after stream `after` (0: first). */
static void order_insert(amq_window *w, int32_t i, int32_t after)
{
    amq_stream *s = at(w, i);
    s->older = after;
    s->newer = after ? at(w, after)->newer : w->oldest;
    if (s->newer)
        at(w, s->newer)->older = i;
    else
        w->newest = i;
    if (after)
        at(w, after)->newer = i;
    else
        w->oldest = i;
}

/* ---- streams -------------------------------------------------------------------- */

static int32_t *slot_of(amq_window *w, int32_t group)
{
    return &amq_group_slot_of(&w->slots, group)->stream;
}

static int32_t stream_new(amq_window *w, int32_t group)
{
    int32_t i = w->free;
    if (i) {
        w->free = at(w, i)->newer;
    } else {
        xgrow((void **)&w->s, &w->caps, w->ns + 1, sizeof *w->s);
        i = (int32_t)++w->ns;
    }
    *at(w, i) = (amq_stream){ .group = group };
    return i;
}

int32_t amqw_stream_of(const amq_window *w, int32_t group)
{
    size_t k = (size_t)group + 1;
    return k < w->slots.n ? w->slots.v[k].stream : 0;
}

void amqw_push(amq_window *w, sim_msg *m)
{
    int32_t *slot = slot_of(w, m->group);
    if (!*slot) {
        *slot = stream_new(w, m->group);
        order_insert(w, *slot, w->newest);
    } else if (w->newest != *slot) {
        order_unlink(w, *slot);
        order_insert(w, *slot, w->newest);
    }
    amq_stream *s = at(w, *slot);
    assert(!s->tail || s->tail->id < m->id);
    msg_list_push_back(&s->head, &s->tail, m);
    s->wait_mark = 0;              /* m may be one it can offer */
    s->firsts += sim_msg_group_first(m);
    w->n++;
    w->version++;
}

void amqw_remove(amq_window *w, sim_msg *m)
{
    int32_t *slot = slot_of(w, m->group), i = *slot;
    amq_stream *s = at(w, i);
    bool was_last = s->tail == m;
    if (s->finger == m)
        s->finger = m->prev ? m->prev : m->next;
    msg_list_unlink(&s->head, &s->tail, m);
    s->firsts -= sim_msg_group_first(m);
    w->n--;
    w->version++;
    if (!s->head) {
        order_unlink(w, i);
        s->newer = w->free;
        w->free = i;
        *slot = 0;
    } else if (was_last) {         /* its last message is older now: it moves back */
        int32_t after = s->older;
        while (after && at(w, after)->tail->id > s->tail->id)
            after = at(w, after)->older;
        if (after != s->older) {
            order_unlink(w, i);
            order_insert(w, i, after);
        }
    }
}

/* The last message of s with an id below `bound`: walked to from whichever
 * of the one found last time (the finger: a pass that ends early usually
 * ends near where the last one did) and the stream's ends is nearest by id,
 * since a pass may also end far from the last one (a hot group's stream
 * holds most of the window). */
sim_msg *amqw_last_before(amq_stream *s, uint64_t bound)
{
    if (!s->head || s->head->id >= bound)
        return NULL;
    if (s->tail->id < bound)
        return s->tail;
    sim_msg *f = s->finger ? s->finger : s->head;
    uint64_t gap = f->id < bound ? bound - f->id : f->id - bound;
    if (bound - s->head->id < gap)
        f = s->head;
    else if (s->tail->id - bound < gap)
        f = s->tail;
    if (f->id < bound) {
        while (f->next->id < bound)  /* the tail is not below bound */
            f = f->next;
    } else {
        while (f->id >= bound)       /* the head is below it */
            f = f->prev;
    }
    s->finger = f;
    return f;
}

/* The first message of s with an id above `x`, found from both ends at
 * once. */
sim_msg *amqw_first_after(const amq_stream *s, uint64_t x)
{
    for (sim_msg *a = s->head, *b = s->tail; b && b->id > x; a = a->next, b = b->prev) {
        if (a->id > x)
            return a;
        if (!b->prev || b->prev->id <= x)
            return b;
    }
    return NULL;
}

/* ---- a pass's candidates: a heap of streams by the id of the message each
 * offers ------------------------------------------------------------------------ */

static uint64_t key(amq_window *w, size_t h)
{
    return at(w, w->heap[h])->cand->id;
}

static void heap_set(amq_window *w, size_t h, int32_t i)
{
    w->heap[h] = i;
    at(w, i)->hpos = (int32_t)h + 1;
}

void amqw_begin_offers(amq_window *w)
{
    assert(w->nheap == 0);
    if (w->capheap < w->ns)        /* a stream offers once at a time */
        xgrow((void **)&w->heap, &w->capheap, w->ns, sizeof *w->heap);
}

void amqw_offer(amq_window *w, int32_t i, sim_msg *m)
{
    amq_stream *s = at(w, i);
    assert(!s->hpos && w->nheap < w->capheap);
    s->cand = m;
    size_t h = w->nheap++;
    while (h > 0 && key(w, (h - 1) / 2) > m->id) {
        heap_set(w, h, w->heap[(h - 1) / 2]);
        h = (h - 1) / 2;
    }
    heap_set(w, h, i);
}

int32_t amqw_take_offer(amq_window *w)
{
    if (w->nheap == 0)
        return 0;
    int32_t top = w->heap[0], last = w->heap[--w->nheap];
    at(w, top)->hpos = 0;
    if (w->nheap == 0)
        return top;
    uint64_t k = at(w, last)->cand->id;
    size_t h = 0;
    for (;;) {
        size_t c = 2 * h + 1;
        if (c >= w->nheap)
            break;
        if (c + 1 < w->nheap && key(w, c + 1) < key(w, c))
            c++;
        if (key(w, c) >= k)
            break;
        heap_set(w, h, w->heap[c]);
        h = c;
    }
    heap_set(w, h, last);
    return top;
}

void amqw_clear_offers(amq_window *w)
{
    for (size_t h = 0; h < w->nheap; h++)
        at(w, w->heap[h])->hpos = 0;
    w->nheap = 0;
}

void amqw_fini(amq_window *w)
{
    free(w->s);
    free(w->slots.v);
    free(w->heap);
    free(w->log);
    free(w->seq);
    free(w->touch);
    *w = (amq_window){ 0 };
}
