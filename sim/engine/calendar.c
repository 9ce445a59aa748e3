/* calendar.c -- a 4-ary heap of timers by (time, seq), with true
 * cancellation.
 *
 * Four children a node: half the levels of a binary heap, so an entry
 * that rises or a hole that sinks moves (and tells its timer) half as
 * often, and the earliest of the children is picked without a branch on
 * the data (times are compared into an index; the sequence number is
 * looked up only for equal times, which are rare).
 *
 * An entry is (heap_t[i], heap_timer[i]), two arrays rather than one of
 * pairs: an entry's time is then read with one scaled index, as x86's
 * addressing takes 8 but not 16 (about 20 instructions fewer a message on
 * M/M/8, where the heap moves six or seven entries a message).
 *
 * Measured against it and not kept: for a calendar of up to 32 entries,
 * the entries unsorted, an add appended, a removal filled by the last
 * entry, and the earliest found after each event by a scan that compares
 * (time, seq) as one 128-bit number and keeps the earlier with
 * conditional moves (no branch on the data).  On M/M/8 (nine entries) it
 * took 9 to 10 % more instructions and 6 to 8 % more time; on smlc.yaml,
 * whose calendar holds more, 22 % and 11 %.  The heap's comparisons are
 * branches the processor mostly predicts and runs past into the next
 * event; the scan's moves make the next event wait for every time in the
 * calendar, the new ones included.
 *
 * Invariants: (1) entry i is no later than its children 4i+1 .. 4i+4 by
 * (t, seq); (2) a timer is pending iff its pos is an index of the heap, and
 * then heap_timer[pos] is that timer; (3) a pooled timer is pending, on the
 * free stack, or the event being run, exactly one of them, and its
 * generation moves on as it goes on the free stack; (4) the event being
 * run is not pending (pos SIM_TIMER_IDLE) while its entry is at the top of
 * the heap with top TOP_RUNNING (until calendar_done or the next add): its
 * key is the smallest there is, so nothing rises above it meanwhile; (5)
 * while top is TOP_ADDED or TOP_SWAPPED, only entry 0 may be later than
 * its children, and every entry that rises stops below it or swaps with it
 * first.  (t, seq) keys are unique, so the order events come out in is the
 * same whatever the shape of the heap.
 */
#include "engine/calendar.h"
#include "base/mem.h"

#include <stdlib.h>

#define ARITY 4

static inline size_t parent_of(size_t i) { return (i - 1) / ARITY; }
static inline size_t first_child(size_t i) { return ARITY * i + 1; }

/* Whether (ta, a) comes before (tb, b): by time, then by sequence number
 * (looked up in the timers only for equal times, which are rare). */
static inline bool before(sim_time ta, const sim_timer *a, sim_time tb, const sim_timer *b)
{
    if (__builtin_expect(ta == tb, 0))
        return a->seq < b->seq;
    return ta < tb;
}

/* Entry i of the heap before entry j; entry e before entry i. */
static inline bool earlier(const calendar *c, size_t i, size_t j)
{
    return before(c->heap_t[i], c->heap_timer[i], c->heap_t[j], c->heap_timer[j]);
}

static inline bool earlier_than(const calendar *c, cal_entry e, size_t i)
{
    return before(e.t, e.timer, c->heap_t[i], c->heap_timer[i]);
}

static inline cal_entry entry(const calendar *c, size_t i)
{
    return (cal_entry){ .t = c->heap_t[i], .timer = c->heap_timer[i] };
}

/* The earliest of the children first .. first+3 that exist (first < n). */
static inline __attribute__((always_inline)) size_t earliest_child(const calendar *c, size_t first,
                                                                    size_t n)
{
    if (__builtin_expect(n - first >= ARITY, 1)) {
        /* Two pairs, then their winners: the first two comparisons are
         * independent of each other. */
        size_t a = first + earlier(c, first + 1, first);
        size_t b = first + 2 + earlier(c, first + 3, first + 2);
        return earlier(c, b, a) ? b : a;
    }
    size_t best = first;
    for (size_t k = first + 1; k < n; k++)
        best = earlier(c, k, best) ? k : best;
    return best;
}

static inline void put(calendar *c, size_t i, cal_entry e)
{
    c->heap_t[i] = e.t;
    c->heap_timer[i] = e.timer;
    e.timer->pos = (uint32_t)i;
}

/* Puts e at hole i or above it, moving later parents down. */
static inline void sift_up(calendar *c, size_t i, cal_entry e)
{
    while (i > 0) {
        size_t parent = parent_of(i);
        if (!earlier_than(c, e, parent))
            break;
        put(c, i, entry(c, parent));
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
        put(c, i, entry(c, child));
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
        if (!before(c->heap_t[child], c->heap_timer[child], e.t, e.timer))
            break;
        put(c, i, entry(c, child));
        i = child;
    }
    put(c, i, e);
}

void calendar_init(calendar *c, size_t initial_cap)
{
    *c = (calendar){ 0 };
    c->cap = initial_cap ? initial_cap : 1;
    c->heap_t = xmalloc(c->cap * sizeof *c->heap_t);
    c->heap_timer = xmalloc(c->cap * sizeof *c->heap_timer);
}

void calendar_fini(calendar *c)
{
    for (size_t b = 0; b < (c->npooled + CAL_POOL_BLOCK - 1) / CAL_POOL_BLOCK; b++)
        free(c->blocks[b]);
    free(c->blocks);
    free(c->heap_t);
    free(c->heap_timer);
    free(c->gens);
    free(c->free);
    *c = (calendar){ 0 };
}

static inline sim_timer *pooled_at(const calendar *c, size_t index)
{
    return &c->blocks[index >> CAL_POOL_SHIFT][index & (CAL_POOL_BLOCK - 1)];
}

/* A pooled timer never used before, in a new block every CAL_POOL_BLOCK. */
static __attribute__((noinline)) sim_timer *new_pooled(calendar *c)
{
    size_t index = c->npooled;
    if (index == c->cappooled) {
        size_t nblocks = c->cappooled / CAL_POOL_BLOCK;
        c->cappooled += CAL_POOL_BLOCK;
        c->blocks = xrealloc(c->blocks, (nblocks + 1) * sizeof *c->blocks);
        c->blocks[nblocks] = xmalloc(CAL_POOL_BLOCK * sizeof **c->blocks);
        c->gens = xrealloc(c->gens, c->cappooled * sizeof *c->gens);
        /* Every timer a free stack may hold: pushing never grows it. */
        c->free = xrealloc(c->free, c->cappooled * sizeof *c->free);
    }
    c->gens[index] = 1;
    sim_timer *t = pooled_at(c, index);
    *t = (sim_timer){ .pos = SIM_TIMER_IDLE, .pooled = (uint32_t)(index + 1) };
    c->npooled++;
    return t;
}

static inline sim_timer *take_pooled(calendar *c)
{
    if (__builtin_expect(c->nfree > 0, 1))
        return c->free[--c->nfree];
    return new_pooled(c);
}

/* A timer no longer pending: back to the pool if it is the pool's, its id
 * stale from now on (a new generation). */
static inline void release(calendar *c, sim_timer *t)
{
    t->pos = SIM_TIMER_IDLE;
    if (t->pooled) {
        c->gens[t->pooled - 1]++;
        c->free[c->nfree++] = t;
    }
}

static __attribute__((noinline)) void grow_heap(calendar *c)
{
    c->cap *= 2;
    c->heap_t = xrealloc(c->heap_t, c->cap * sizeof *c->heap_t);
    c->heap_timer = xrealloc(c->heap_timer, c->cap * sizeof *c->heap_timer);
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
        if (before(c->heap_t[child], c->heap_timer[child], e.t, e.timer)) {
            put(c, 0, entry(c, child));
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
    sink_top(c, entry(c, 0), swapped);
}

/* Below this many entries the top is settled at once: the heap is two or
 * three levels deep, and a second pass over it later costs more than
 * placing two entries well saves. */
#define SETTLE_LATER_FROM 64

/* While an event runs, the first event added takes the running event's
 * entry at the top, and in a small heap sinks from there at once.  In a
 * large one it stays there unsorted for now; a later add that is earlier
 * than the entry there swaps with it, so the top ends up with the earliest
 * of them (an arrival's next, or a short timer: it stays near the top) and
 * the others rise from the bottom (service ends, typically later than
 * most).  calendar_done lets the top entry sink to its place.  The heap
 * below the top stays ordered throughout, and nothing rises above the top
 * entry, which is no later than what rises. */
void calendar_arm(calendar *c, sim_timer *timer, sim_time t)
{
    if (__builtin_expect(timer->pos != SIM_TIMER_IDLE, 0))
        calendar_disarm(c, timer);
    timer->seq = c->next_seq++;
    cal_entry e = { .t = t, .timer = timer };
    if (c->top == TOP_RUNNING) {
        release(c, c->heap_timer[0]);  /* the running event's: not pending already */
        if (c->n >= SETTLE_LATER_FROM) {
            put(c, 0, e);
            c->top = TOP_ADDED;
        } else {
            c->top = TOP_SORTED;
            sink_top(c, e, false);
        }
    } else if (calendar_top_unsettled(c) && earlier_than(c, e, 0)) {
        cal_entry was = entry(c, 0);
        put(c, 0, e);
        push(c, was);
        c->top = TOP_SWAPPED;
    } else
        push(c, e);
}

sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg)
{
    sim_timer *timer = take_pooled(c);
    timer->type = type;
    timer->self = self;
    timer->arg = arg;
    calendar_arm(c, timer, t);
    return ((sim_event_id)c->gens[timer->pooled - 1] << 32) | timer->pooled;
}

/* The pooled timer of id, if it is pending (not back in the pool since,
 * nor being run). */
static sim_timer *live_pooled(const calendar *c, sim_event_id id)
{
    uint32_t pooled = (uint32_t)(id & 0xffffffffu);
    if (pooled == 0 || pooled > c->npooled || c->gens[pooled - 1] != (uint32_t)(id >> 32))
        return NULL;
    sim_timer *t = pooled_at(c, pooled - 1);
    return t->pos != SIM_TIMER_IDLE ? t : NULL;
}

bool calendar_pending(const calendar *c, sim_event_id id)
{
    return live_pooled(c, id) != NULL;
}

/* Takes the entry at index i out of the heap: the last entry fills the
 * hole, moving up or down to where it belongs. */
static void remove_at(calendar *c, size_t i)
{
    cal_entry last = entry(c, --c->n);
    if (i == c->n)
        return;
    if (i > 0 && earlier_than(c, last, parent_of(i)))
        sift_up(c, i, last);
    else
        sift_down(c, i, last);
}

bool calendar_disarm(calendar *c, sim_timer *timer)
{
    if (timer->pos == SIM_TIMER_IDLE)
        return false;
    if (calendar_top_unsettled(c))
        calendar_settle_top(c);
    remove_at(c, timer->pos);
    release(c, timer);
    return true;
}

bool calendar_cancel(calendar *c, sim_event_id id)
{
    sim_timer *t = live_pooled(c, id);
    return t && calendar_disarm(c, t);
}

/* Floyd's pop: the hole at the top goes down to a leaf by the earliest
 * child, then the last entry rises from there: it came from the bottom,
 * so it seldom rises far. */
static void pop_top(calendar *c)
{
    size_t n = --c->n;
    if (n == 0)
        return;
    cal_entry last = entry(c, n);
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
    sim_timer *running = c->heap_timer[0];
    c->top = TOP_SORTED;
    pop_top(c);
    release(c, running);           /* not pending since calendar_begin */
}

bool calendar_pop(calendar *c, cal_event *out)
{
    if (!calendar_begin(c, out))
        return false;
    calendar_done(c);
    return true;
}
