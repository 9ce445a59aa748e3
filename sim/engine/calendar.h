/* calendar.h -- the event calendar: a 4-ary min-heap of timers ordered by
 * (time, sequence number).
 *
 * Every pending event is a timer (sim_timer, sim.h): its handler and
 * arguments, the sequence number it took when scheduled, and where its
 * entry is in the heap.  A model keeps the timers of the events it
 * schedules again and again in its own objects (a worker's end, a source's
 * next arrival): arming one takes nothing from anywhere.  Events scheduled
 * with sim_schedule get a timer from the calendar's own pool, found again
 * by an id that carries the timer's index and its generation, which
 * changes whenever it goes back to the pool: a stale id is recognised,
 * never confused with the timer's next event.  Either way a timer knows
 * where its entry is, so cancelling takes the entry out at once (true
 * cancellation: the heap holds only live events, and nothing stale is ever
 * popped).  The calendar never touches a timer when it is torn down, so
 * the models' objects may go first.
 *
 * The sequence number grows with every event scheduled, so events at the
 * same instant come out in the order they went in, timers and pooled
 * events alike.
 *
 * The engine runs an event between calendar_begin and calendar_done.  In
 * between, the event's entry stays at the top of the heap (its timer is no
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

#include "engine/sim.h"

typedef struct cal_entry {         /* an entry of the heap, as a value */
    sim_time t;
    sim_timer *timer;              /* the sequence number, for ties, is in the timer */
} cal_entry;

/* What the top entry (0) is: TOP_RUNNING, the event being run (no add took
 * its entry over yet); TOP_ADDED or TOP_SWAPPED, an entry added while it
 * runs that may be later than its children (calendar_done lets it sink);
 * TOP_SORTED, an entry in its place. */
enum { TOP_SORTED, TOP_RUNNING, TOP_ADDED, TOP_SWAPPED };   /* unsettled last */

/* The pool's timers by index, in blocks that never move (a pending timer's
 * entry points at it): block i >> CAL_POOL_SHIFT, then i & (CAL_POOL_BLOCK - 1). */
#define CAL_POOL_SHIFT 8
#define CAL_POOL_BLOCK (1u << CAL_POOL_SHIFT)

typedef struct calendar {
    sim_time *heap_t;              /* entry i: its time, */
    sim_timer **heap_timer;        /* and its timer */
    size_t n, cap;                 /* entries: every one a live event */
    sim_timer **blocks;            /* the pool's timers */
    uint32_t *gens;                /* [index]: a pooled timer's generation, bumped as it
                                    * goes back to the pool */
    size_t npooled, cappooled;     /* pooled timers made, room for them in gens and free */
    sim_timer **free;              /* a stack of the pool's idle timers */
    size_t nfree;
    uint64_t next_seq;
    uint8_t top;                   /* TOP_*: what the top entry is */
} calendar;

typedef struct cal_event {         /* what calendar_pop returns */
    sim_time t;
    const sim_event_type *type;
    void *self, *arg;
} cal_event;

void calendar_init(calendar *c, size_t initial_cap);
void calendar_fini(calendar *c);
/* A pooled event: its id for calendar_cancel and calendar_pending. */
sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg);
bool calendar_cancel(calendar *c, sim_event_id id);
bool calendar_pending(const calendar *c, sim_event_id id);
/* Schedules a model's timer at t (taking a new sequence number); a timer
 * still pending is moved, as if cancelled first. */
void calendar_arm(calendar *c, sim_timer *timer, sim_time t);
/* Takes a pending timer out; false if it is not pending. */
bool calendar_disarm(calendar *c, sim_timer *timer);
/* Removes the earliest event.  Returns false when the calendar is empty. */
bool calendar_pop(calendar *c, cal_event *out);
/* Takes the earliest event to run it (false when the calendar is empty):
 * from then on it is not pending; calendar_done, after its handler, takes
 * its entry out unless an event added meanwhile took it over. */
bool calendar_begin(calendar *c, cal_event *out);
void calendar_pop_running(calendar *c);
void calendar_settle_top(calendar *c);
/* Whether the top entry may be later than its children (TOP_ADDED, TOP_SWAPPED). */
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
    sim_timer *timer = c->heap_timer[0];
    out->t = c->heap_t[0];
    out->type = timer->type;
    out->self = timer->self;
    out->arg = timer->arg;
    timer->pos = SIM_TIMER_IDLE;   /* no longer pending, nor its id */
    c->top = TOP_RUNNING;
}
/* The time of the earliest event, or SIM_NEVER. */
static inline sim_time calendar_next_time(const calendar *c)
{
    return c->n ? c->heap_t[0] : SIM_NEVER;
}
/* Pending events (and the one being run, between begin and done). */
static inline size_t calendar_size(const calendar *c) { return c->n; }

#endif
