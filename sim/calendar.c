/* calendar.c -- binary heap of (time, seq) keys with lazy cancellation.
 *
 * Invariants: (1) heap[i] is no later than its children 2i+1 and 2i+2 by
 * (t, seq); (2) an entry is live iff its slot is live and has the entry's
 * generation; (3) a slot is either live or on the free stack, never both;
 * (4) after calendar_next_time() the top entry, if any, is live.
 */
#include "calendar.h"
#include "mem.h"

#include <stdlib.h>

static inline bool earlier(const cal_entry *a, const cal_entry *b)
{
    return a->key < b->key;
}

static void sift_up(cal_entry *heap, size_t i)
{
    cal_entry e = heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(&e, &heap[parent]))
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = e;
}

static void sift_down(cal_entry *heap, size_t n, size_t i)
{
    cal_entry e = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && earlier(&heap[child + 1], &heap[child]))
            child++;
        if (!earlier(&heap[child], &e))
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = e;
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

static uint32_t take_slot(calendar *c)
{
    if (c->nfree)
        return c->free_slots[--c->nfree];
    if (c->nslots == c->capslots)
        xgrow((void **)&c->slots, &c->capslots, c->nslots + 1, sizeof *c->slots);
    c->slots[c->nslots] = (cal_slot){ .gen = 1 };
    return (uint32_t)c->nslots++;
}

static void free_slot(calendar *c, uint32_t slot)
{
    c->slots[slot].is_live = false;
    c->slots[slot].gen++;
    if (c->nfree == c->capfree)
        xgrow((void **)&c->free_slots, &c->capfree, c->nfree + 1, sizeof *c->free_slots);
    c->free_slots[c->nfree++] = slot;
    c->live--;
}

sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg)
{
    uint32_t slot = take_slot(c);
    cal_slot *s = &c->slots[slot];
    s->type = type;
    s->self = self;
    s->arg = arg;
    s->is_live = true;
    c->live++;
    if (c->n == c->cap) {
        c->cap *= 2;
        c->heap = xrealloc(c->heap, c->cap * sizeof *c->heap);
    }
    /* Times are never negative, so the unsigned key orders them correctly. */
    c->heap[c->n] = (cal_entry){
        .key = ((unsigned __int128)(uint64_t)t << 64) | c->next_seq++, .slot = slot, .gen = s->gen,
    };
    sift_up(c->heap, c->n++);
    return ((sim_event_id)s->gen << 32) | (slot + 1);
}

static cal_slot *live_slot(const calendar *c, sim_event_id id)
{
    uint32_t slot = (uint32_t)(id & 0xffffffffu);
    if (slot == 0 || slot > c->nslots)
        return NULL;
    cal_slot *s = &c->slots[slot - 1];
    if (!s->is_live || s->gen != (uint32_t)(id >> 32))
        return NULL;
    return s;
}

bool calendar_pending(const calendar *c, sim_event_id id)
{
    return live_slot(c, id) != NULL;
}

bool calendar_cancel(calendar *c, sim_event_id id)
{
    if (!live_slot(c, id))
        return false;
    free_slot(c, (uint32_t)(id & 0xffffffffu) - 1);
    return true;
}

static void drop_top(calendar *c)
{
    c->heap[0] = c->heap[--c->n];
    if (c->n > 1)
        sift_down(c->heap, c->n, 0);
}

static inline bool top_is_stale(const calendar *c)
{
    const cal_slot *s = &c->slots[c->heap[0].slot];
    return !s->is_live || s->gen != c->heap[0].gen;
}

void calendar_drop_stale(calendar *c)
{
    while (c->n && top_is_stale(c))
        drop_top(c);
}

bool calendar_pop(calendar *c, cal_event *out)
{
    if (calendar_next_time(c) == SIM_NEVER)
        return false;
    uint32_t slot = c->heap[0].slot;
    const cal_slot *s = &c->slots[slot];
    out->t = (sim_time)(c->heap[0].key >> 64);
    out->type = s->type;
    out->self = s->self;
    out->arg = s->arg;
    drop_top(c);
    free_slot(c, slot);
    return true;
}
