/* calendar.c -- a 4-ary heap of (time, seq) keys with true cancellation.
 *
 * Four children a node: half the levels of a binary heap, so an entry
 * that rises or a hole that sinks moves (and tells its slot) half as
 * often, and the earliest of the children is picked without a branch on
 * the data (times are compared into an index; the sequence number is
 * looked up only for equal times, which are rare).
 *
 * Invariants: (1) heap[i] is no later than its children 4i+1 .. 4i+4 by
 * (t, seq); (2) a slot is live iff its pos is an index of the heap, and
 * then heap[pos].slot is that slot; (3) a slot is either live or on the
 * free stack, never both, except the slot of the event being run, which
 * is neither live (its generation has moved on) nor free, and whose entry
 * is at the top of the heap while top is TOP_RUNNING (until calendar_done
 * or the next add): its key is the smallest there is, so nothing rises
 * above it meanwhile; (4) while top is TOP_ADDED or TOP_SWAPPED, only
 * heap[0] may be later than its children, and every
 * entry that rises stops below it or swaps with it first.  (t, seq)
 * keys are unique, so the order events come out in is the same whatever
 * the shape of the heap.
 */
#include "calendar.h"
#include "mem.h"

#include <stdlib.h>

#define ARITY 4

static inline size_t parent_of(size_t i) { return (i - 1) / ARITY; }
static inline size_t first_child(size_t i) { return ARITY * i + 1; }

static inline bool earlier(const calendar *c, const cal_entry *a, const cal_entry *b)
{
    if (__builtin_expect(a->t == b->t, 0))
        return c->slots[a->slot].seq < c->slots[b->slot].seq;
    return a->t < b->t;
}

/* The earliest of the children first .. first+3 that exist (first < n). */
static inline __attribute__((always_inline)) size_t earliest_child(const calendar *c, size_t first,
                                                                    size_t n)
{
    const cal_entry *heap = c->heap;
    if (__builtin_expect(n - first >= ARITY, 1)) {
        /* Two pairs, then their winners: the first two comparisons are
         * independent of each other. */
        size_t a = first + earlier(c, &heap[first + 1], &heap[first]);
        size_t b = first + 2 + earlier(c, &heap[first + 3], &heap[first + 2]);
        return earlier(c, &heap[b], &heap[a]) ? b : a;
    }
    size_t best = first;
    for (size_t k = first + 1; k < n; k++)
        best = earlier(c, &heap[k], &heap[best]) ? k : best;
    return best;
}

static inline void put(calendar *c, size_t i, cal_entry e)
{
    c->heap[i] = e;
    c->slots[e.slot].pos = (uint32_t)i;
}

/* Puts e at hole i or above it, moving later parents down. */
static inline void sift_up(calendar *c, size_t i, cal_entry e)
{
    cal_entry *heap = c->heap;
    while (i > 0) {
        size_t parent = parent_of(i);
        if (!earlier(c, &e, &heap[parent]))
            break;
        put(c, i, heap[parent]);
        i = parent;
    }
    put(c, i, e);
}

/* Moves the hole at i down to a leaf by the earliest child; returns the
 * leaf. */
static inline size_t hole_to_leaf(calendar *c, size_t i)
{
    size_t n = c->n;
    for (size_t child = first_child(i); child < n; child = first_child(i)) {
        child = earliest_child(c, child, n);
        put(c, i, c->heap[child]);
        i = child;
    }
    return i;
}

/* Puts e at hole i or below it, moving earlier children up. */
static void sift_down(calendar *c, size_t i, cal_entry e)
{
    size_t n = c->n;
    for (size_t child = first_child(i); child < n; child = first_child(i)) {
        child = earliest_child(c, child, n);
        if (!earlier(c, &c->heap[child], &e))
            break;
        put(c, i, c->heap[child]);
        i = child;
    }
    put(c, i, e);
}

void calendar_init(calendar *c, size_t initial_cap)
{
    *c = (calendar){ 0 };
    c->cap = initial_cap ? initial_cap : 1;
    c->heap = xmalloc(c->cap * sizeof *c->heap);
}

void calendar_fini(calendar *c)
{
    free(c->heap);
    free(c->slots);
    free(c->free_slots);
    *c = (calendar){ 0 };
}

static __attribute__((noinline)) uint32_t new_slot(calendar *c)
{
    if (c->nslots == c->capslots) {
        xgrow((void **)&c->slots, &c->capslots, c->nslots + 1, sizeof *c->slots);
        /* Every slot a free stack may hold: pushing never grows it. */
        c->free_slots = xrealloc(c->free_slots, c->capslots * sizeof *c->free_slots);
    }
    c->slots[c->nslots] = (cal_slot){ .gen = 1, .pos = CAL_FREE };
    return (uint32_t)c->nslots++;
}

static inline uint32_t take_slot(calendar *c)
{
    if (__builtin_expect(c->nfree > 0, 1))
        return c->free_slots[--c->nfree];
    return new_slot(c);
}

/* The slot, whose id is stale already, back on the free stack. */
static inline void push_free(calendar *c, uint32_t slot)
{
    c->slots[slot].pos = CAL_FREE;
    c->free_slots[c->nfree++] = slot;
}

static inline void free_slot(calendar *c, uint32_t slot)
{
    c->slots[slot].gen++;
    push_free(c, slot);
}

static __attribute__((noinline)) void grow_heap(calendar *c)
{
    c->cap *= 2;
    c->heap = xrealloc(c->heap, c->cap * sizeof *c->heap);
}

/* Pushes e as a new leaf and lets it rise. */
static inline void push(calendar *c, cal_entry e)
{
    if (__builtin_expect(c->n == c->cap, 0))
        grow_heap(c);
    sift_up(c, c->n++, e);
}

/* Puts e at the top, where the heap has a hole (or e itself), and lets it
 * sink to its place.  One that won a swap is the earliest of two or more
 * new events and seldom sinks far: it goes down level by level.  One added
 * alone (a service end, typically later than most) goes the other way: if
 * it is later than the earliest child, the hole goes down to a leaf by the
 * earliest child and it rises from there (Floyd), as in a pop. */
static inline __attribute__((always_inline)) void sink_top(calendar *c, cal_entry e, bool swapped)
{
    if (swapped) {
        sift_down(c, 0, e);
        return;
    }
    size_t n = c->n;
    if (n > 1) {
        size_t child = earliest_child(c, 1, n);
        if (earlier(c, &c->heap[child], &e)) {
            put(c, 0, c->heap[child]);
            sift_up(c, hole_to_leaf(c, child), e);
            return;
        }
    }
    put(c, 0, e);
}

void calendar_settle_top(calendar *c)
{
    bool swapped = c->top == TOP_SWAPPED;
    c->top = TOP_SORTED;
    sink_top(c, c->heap[0], swapped);
}

/* Below this many entries the top is settled at once: the heap is two or
 * three levels deep, and a second pass over it later costs more than
 * placing two entries well saves. */
#define SETTLE_LATER_FROM 64

/* While an event runs, the first event added takes the running event's
 * slot and its entry at the top, and in a small heap sinks from there at
 * once.  In a large one it stays there unsorted for now; a later add that is
 * earlier than the entry there swaps with it, so the top ends up with the
 * earliest of them (an arrival's next, or a short timer: it stays near the
 * top) and the others rise from the bottom (service ends, typically later
 * than most).  calendar_done lets the top entry sink to its place.  The
 * heap below the top stays ordered throughout, and nothing rises above the
 * top entry, which is no later than what rises. */
sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg)
{
    uint32_t slot;
    bool running = c->top == TOP_RUNNING;
    if (running) {
        slot = c->heap[0].slot;    /* its generation moved on at begin */
        c->top = TOP_SORTED;
    } else
        slot = take_slot(c);
    cal_slot *s = &c->slots[slot];
    s->type = type;
    s->self = self;
    s->arg = arg;
    s->seq = c->next_seq++;
    cal_entry e = { .t = t, .slot = slot };
    if (running) {
        if (c->n >= SETTLE_LATER_FROM) {
            put(c, 0, e);
            c->top = TOP_ADDED;
        } else
            sink_top(c, e, false);
    } else if (calendar_top_unsettled(c) && earlier(c, &e, &c->heap[0])) {
        cal_entry was = c->heap[0];
        put(c, 0, e);
        push(c, was);
        c->top = TOP_SWAPPED;
    } else
        push(c, e);
    return ((sim_event_id)s->gen << 32) | (slot + 1);
}

static cal_slot *live_slot(const calendar *c, sim_event_id id)
{
    uint32_t slot = (uint32_t)(id & 0xffffffffu);
    if (slot == 0 || slot > c->nslots)
        return NULL;
    cal_slot *s = &c->slots[slot - 1];
    if (s->pos == CAL_FREE || s->gen != (uint32_t)(id >> 32))
        return NULL;
    return s;
}

bool calendar_pending(const calendar *c, sim_event_id id)
{
    return live_slot(c, id) != NULL;
}

/* Takes the entry at index i out of the heap: the last entry fills the
 * hole, moving up or down to where it belongs. */
static void remove_at(calendar *c, size_t i)
{
    cal_entry last = c->heap[--c->n];
    if (i == c->n)
        return;
    if (i > 0 && earlier(c, &last, &c->heap[parent_of(i)]))
        sift_up(c, i, last);
    else
        sift_down(c, i, last);
}

bool calendar_cancel(calendar *c, sim_event_id id)
{
    cal_slot *s = live_slot(c, id);
    if (!s)
        return false;
    if (calendar_top_unsettled(c))
        calendar_settle_top(c);
    remove_at(c, s->pos);
    free_slot(c, (uint32_t)(id & 0xffffffffu) - 1);
    return true;
}

/* Floyd's pop: the hole at the top goes down to a leaf by the earliest
 * child, then the last entry rises from there: it came from the bottom,
 * so it seldom rises far. */
static void pop_top(calendar *c)
{
    size_t n = --c->n;
    if (n == 0)
        return;
    cal_entry last = c->heap[n];
    sift_up(c, hole_to_leaf(c, 0), last);
}

bool calendar_begin(calendar *c, cal_event *out)
{
    calendar_done(c);
    if (!c->n)
        return false;
    calendar_begin_top(c, out);
    return true;
}

void calendar_pop_running(calendar *c)
{
    uint32_t slot = c->heap[0].slot;
    c->top = TOP_SORTED;
    pop_top(c);
    push_free(c, slot);            /* its generation moved on at begin */
}

bool calendar_pop(calendar *c, cal_event *out)
{
    if (!calendar_begin(c, out))
        return false;
    calendar_done(c);
    return true;
}
