/* order.c -- per-key ended flags in a growable ring (see order.h). */
#include "engine/order.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

void order_init(order_tracker *o)
{
    memset(o, 0, sizeof *o);
}

void order_fini(order_tracker *o)
{
    for (uint32_t i = 0; i < o->nkeys; i++)
        if (o->keys[i].words > 1)
            free(o->keys[i].flags.ring);
    free(o->keys);
    for (size_t q = 0; q < o->nqueues; q++)
        free(o->slots[q]);
    free(o->slots);
    free(o->nslots);
    memset(o, 0, sizeof *o);
}

uint32_t order_key_add(order_tracker *o, int queue, int group)
{
    size_t q = (size_t)queue, g = (size_t)(group + 1);
    if (q >= o->nqueues) {
        o->slots = xrealloc(o->slots, (q + 1) * sizeof *o->slots);
        o->nslots = xrealloc(o->nslots, (q + 1) * sizeof *o->nslots);
        for (size_t i = o->nqueues; i <= q; i++) {
            o->slots[i] = NULL;
            o->nslots[i] = 0;
        }
        o->nqueues = q + 1;
    }
    xgrow_zeroed((void **)&o->slots[q], &o->nslots[q], g, sizeof *o->slots[q]);
    if (!o->slots[q][g]) {
        /* 2^31 keys would be 64 GiB of them: out of memory long before. */
        if (o->nkeys == ORDER_KEYS_MAX - 1)
            mem_oom((size_t)ORDER_KEYS_MAX * sizeof *o->keys);
        if (o->nkeys == o->capkeys) {
            o->capkeys = o->capkeys ? o->capkeys * 2 : 16;
            o->keys = xrealloc(o->keys, (size_t)o->capkeys * sizeof *o->keys);
        }
        o->keys[o->nkeys] = (order_key){ .words = 1 };   /* flags in the key */
        o->slots[q][g] = ++o->nkeys;
    }
    return o->slots[q][g] - 1;
}

void order_grow(order_key *k)
{
    order_key old = *k;            /* a copy: words == 1 keeps its flags in it */
    k->words = old.words ? old.words * 2 : 1;      /* a zeroed key has no flags yet */
    if (k->words == 1)
        k->flags.word = 0;
    else
        k->flags.ring = xcalloc(k->words, sizeof *k->flags.ring);
    for (uint64_t s = old.low; old.words && s < old.issued; s++)
        if (order_test_ended(&old, s))
            order_put_ended(k, s);
    if (old.words > 1)
        free(old.flags.ring);
}

void order_mark_ended(order_key *k, uint64_t seq)
{
    if (seq < k->low || seq >= k->issued)
        return;
    if (seq != k->low)
        order_put_ended(k, seq);
    else
        order_advance(k);
}
