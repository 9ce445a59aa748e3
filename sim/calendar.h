/* calendar.h -- the event calendar: a 4-ary min-heap ordered by
 * (time, sequence number).
 *
 * The sequence number grows with every event scheduled, so events at the
 * same instant come out in the order they went in.  An event's handler and
 * arguments live in a slot; the slot knows where its entry is in the heap,
 * so cancelling takes the entry out at once (true cancellation: the heap
 * holds only live events, and nothing stale is ever popped).  An id carries
 * the slot and the slot's generation, which changes whenever the slot is
 * freed: a stale id is recognised, never confused with the slot's next
 * occupant.
 *
 * The engine runs an event between calendar_begin and calendar_done.  In
 * between, the event's entry stays at the top of the heap (its id is no
 * longer pending), and the first event the handler adds takes that entry
 * over: one pass down the heap instead of a pop and a push, the common case
 * of a handler that schedules its own next event.  In a large heap that
 * pass waits for calendar_done, and a later add earlier than the entry at
 * the top swaps with it: the earliest new event (an arrival's next, among a
 * thousand service ends) sinks from the top, the others rise from the
 * bottom, each a short way.  The order events come out in is the same: keys
 * are unique, whatever the shape of the heap.
 */
#ifndef LSIM_SIM_CALENDAR_H
#define LSIM_SIM_CALENDAR_H

#include "sim.h"

typedef struct cal_entry {         /* 16 bytes: the heap moves little */
    sim_time t;
    uint32_t slot;                 /* the sequence number, for ties, is in the slot */
} cal_entry;

typedef struct cal_slot {
    const sim_event_type *type;
    void *self, *arg;
    uint64_t seq;
    uint32_t gen;                  /* bumped whenever the slot is freed */
    uint32_t pos;                  /* its entry's index in the heap; CAL_FREE: free */
} cal_slot;

#define CAL_FREE UINT32_MAX

/* What heap[0] is: TOP_RUNNING, the event being run (no add took its entry
 * over yet); TOP_ADDED or TOP_SWAPPED, an entry added while it runs that
 * may be later than its children (calendar_done lets it sink); TOP_SORTED,
 * an entry in its place. */
enum { TOP_SORTED, TOP_RUNNING, TOP_ADDED, TOP_SWAPPED };   /* unsettled last */

typedef struct calendar {
    cal_entry *heap;
    size_t n, cap;                 /* entries: every one a live event */
    cal_slot *slots;
    size_t nslots, capslots;
    uint32_t *free_slots;          /* a stack of free slot indices */
    size_t nfree, capfree;
    uint64_t next_seq;
    uint8_t top;                   /* TOP_*: what heap[0] is */
} calendar;

typedef struct cal_event {         /* what calendar_pop returns */
    sim_time t;
    const sim_event_type *type;
    void *self, *arg;
} cal_event;

void calendar_init(calendar *c, size_t initial_cap);
void calendar_fini(calendar *c);
sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg);
bool calendar_cancel(calendar *c, sim_event_id id);
bool calendar_pending(const calendar *c, sim_event_id id);
/* Removes the earliest event.  Returns false when the calendar is empty. */
bool calendar_pop(calendar *c, cal_event *out);
/* Takes the earliest event to run it (false when the calendar is empty):
 * from then on it is not pending; calendar_done, after its handler, takes
 * its entry out unless an event added meanwhile took it over. */
bool calendar_begin(calendar *c, cal_event *out);
void calendar_pop_running(calendar *c);
void calendar_settle_top(calendar *c);
/* Whether heap[0] may be later than its children (TOP_ADDED or TOP_SWAPPED). */
static inline bool calendar_top_unsettled(const calendar *c) { return c->top >= TOP_ADDED; }
static inline void calendar_done(calendar *c)
{
    if (c->top == TOP_RUNNING)     /* no event added took its entry over */
        calendar_pop_running(c);
    else if (calendar_top_unsettled(c))    /* one did: it sinks to its place */
        calendar_settle_top(c);
}
/* calendar_begin for a caller that has called calendar_done since the
 * last event and knows the calendar is not empty (the engine's loop). */
static inline void calendar_begin_top(calendar *c, cal_event *out)
{
    uint32_t slot = c->heap[0].slot;
    cal_slot *s = &c->slots[slot];
    out->t = c->heap[0].t;
    out->type = s->type;
    out->self = s->self;
    out->arg = s->arg;
    s->gen++;                      /* its id is no longer pending */
    c->top = TOP_RUNNING;
}
/* The time of the earliest event, or SIM_NEVER. */
static inline sim_time calendar_next_time(const calendar *c)
{
    return c->n ? c->heap[0].t : SIM_NEVER;
}
/* Pending events (and the one being run, between begin and done). */
static inline size_t calendar_size(const calendar *c) { return c->n; }

#endif
