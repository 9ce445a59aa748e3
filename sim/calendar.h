/* calendar.h -- the event calendar: a binary min-heap ordered by
 * (time, sequence number).
 *
 * The sequence number grows with every event scheduled, so events at the
 * same instant come out in the order they went in.  An event's handler and
 * arguments live in a slot; its id carries the slot and the slot's
 * generation.  Cancelling frees the slot at once (its generation changes)
 * and leaves the heap entry behind: the entry is dropped when it reaches
 * the top, because its generation no longer matches.  So a stale id is
 * recognised, never confused with the slot's next occupant, and nothing in
 * the heap has to be found or moved to cancel.
 */
#ifndef LSIM_SIM_CALENDAR_H
#define LSIM_SIM_CALENDAR_H

#include "sim.h"

typedef struct cal_entry {         /* the heap holds keys next to each other */
    unsigned __int128 key;         /* time << 64 | sequence: one comparison orders both */
    uint32_t slot, gen;
} cal_entry;

typedef struct cal_slot {
    const sim_event_type *type;
    void *self, *arg;
    uint32_t gen;                  /* bumped whenever the slot is freed */
    bool is_live;
} cal_slot;

typedef struct calendar {
    cal_entry *heap;
    size_t n, cap;                 /* entries, stale ones included */
    size_t live;                   /* events scheduled and not yet run or cancelled */
    cal_slot *slots;
    size_t nslots, capslots;
    uint32_t *free_slots;          /* a stack of free slot indices */
    size_t nfree, capfree;
    uint64_t next_seq;
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
/* The time of the earliest event, or SIM_NEVER (drops stale entries on top). */
void calendar_drop_stale(calendar *c);
static inline sim_time calendar_next_time(calendar *c)
{
    if (c->n) {
        const cal_slot *s = &c->slots[c->heap[0].slot];
        if (s->is_live && s->gen == c->heap[0].gen)
            return (sim_time)(c->heap[0].key >> 64);
        calendar_drop_stale(c);
    }
    return c->n ? (sim_time)(c->heap[0].key >> 64) : SIM_NEVER;
}
static inline size_t calendar_size(const calendar *c) { return c->live; }

#endif
