/* calendar.c -- binary heap of (time, seq) keys with removable entries.
 *
 * Invariants: (1) heap[i] is no later than its children 2i+1 and 2i+2 by
 * (t, seq); (2) slots[heap[i].slot].pos == i for every i < n; (3) a slot
 * is either in the heap or on the free stack, never both.
 */
#include "calendar.h"
#include "mem.h"

#include <assert.h>
#include <stdlib.h>

static inline bool earlier(const cal_entry *a, const cal_entry *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void place(calendar *c, size_t i, cal_entry e)
{
    c->heap[i] = e;
    c->slots[e.slot].pos = (uint32_t)i;
}

static void sift_up(calendar *c, size_t i)
{
    cal_entry e = c->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(&e, &c->heap[parent]))
            break;
        place(c, i, c->heap[parent]);
        i = parent;
    }
    place(c, i, e);
}

static void sift_down(calendar *c, size_t i)
{
    cal_entry e = c->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= c->n)
            break;
        if (child + 1 < c->n && earlier(&c->heap[child + 1], &c->heap[child]))
            child++;
        if (!earlier(&c->heap[child], &e))
            break;
        place(c, i, c->heap[child]);
        i = child;
    }
    place(c, i, e);
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
    xgrow((void **)&c->slots, &c->capslots, c->nslots + 1, sizeof *c->slots);
    c->slots[c->nslots] = (cal_slot){ .gen = 1, .pos = UINT32_MAX };
    return (uint32_t)c->nslots++;
}

static void free_slot(calendar *c, uint32_t slot)
{
    c->slots[slot].pos = UINT32_MAX;
    c->slots[slot].gen++;
    xgrow((void **)&c->free_slots, &c->capfree, c->nfree + 1, sizeof *c->free_slots);
    c->free_slots[c->nfree++] = slot;
}

sim_event_id calendar_add(calendar *c, sim_time t, const sim_event_type *type, void *self,
                          void *arg)
{
    uint32_t slot = take_slot(c);
    cal_slot *s = &c->slots[slot];
    s->type = type;
    s->self = self;
    s->arg = arg;
    if (c->n == c->cap) {
        c->cap *= 2;
        c->heap = xrealloc(c->heap, c->cap * sizeof *c->heap);
    }
    c->heap[c->n] = (cal_entry){ .t = t, .seq = c->next_seq++, .slot = slot };
    sift_up(c, c->n++);
    return ((sim_event_id)s->gen << 32) | (slot + 1);
}

static cal_slot *live_slot(const calendar *c, sim_event_id id)
{
    uint32_t slot = (uint32_t)(id & 0xffffffffu);
    if (slot == 0 || slot > c->nslots)
        return NULL;
    cal_slot *s = &c->slots[slot - 1];
    if (s->gen != (uint32_t)(id >> 32) || s->pos == UINT32_MAX)
        return NULL;
    return s;
}

bool calendar_pending(const calendar *c, sim_event_id id)
{
    return live_slot(c, id) != NULL;
}

static void remove_at(calendar *c, size_t i)
{
    uint32_t slot = c->heap[i].slot;
    c->n--;
    if (i < c->n) {
        cal_entry last = c->heap[c->n];
        place(c, i, last);
        if (i > 0 && earlier(&c->heap[i], &c->heap[(i - 1) / 2]))
            sift_up(c, i);
        else
            sift_down(c, i);
    }
    free_slot(c, slot);
}

bool calendar_cancel(calendar *c, sim_event_id id)
{
    cal_slot *s = live_slot(c, id);
    if (!s)
        return false;
    remove_at(c, s->pos);
    return true;
}

bool calendar_pop(calendar *c, cal_event *out)
{
    if (c->n == 0)
        return false;
    cal_slot *s = &c->slots[c->heap[0].slot];
    out->t = c->heap[0].t;
    out->type = s->type;
    out->self = s->self;
    out->arg = s->arg;
    remove_at(c, 0);
    return true;
}
