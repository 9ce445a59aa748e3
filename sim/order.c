/* order.c -- per-key ended flags in a growable ring (see order.h). */
#include "order.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

void order_init(order_tracker *o)
{
    memset(o, 0, sizeof *o);
}

void order_fini(order_tracker *o)
{
    for (size_t q = 0; q < o->nqueues; q++) {
        for (size_t g = 0; g < o->nkeys[q]; g++)
            free(o->keys[q][g].ring);
        free(o->keys[q]);
    }
    free(o->keys);
    free(o->nkeys);
    memset(o, 0, sizeof *o);
}

order_key *order_key_add(order_tracker *o, int queue, int group)
{
    size_t q = (size_t)queue, g = (size_t)(group + 1);
    if (q >= o->nqueues) {
        o->keys = xrealloc(o->keys, (q + 1) * sizeof *o->keys);
        o->nkeys = xrealloc(o->nkeys, (q + 1) * sizeof *o->nkeys);
        for (size_t i = o->nqueues; i <= q; i++) {
            o->keys[i] = NULL;
            o->nkeys[i] = 0;
        }
        o->nqueues = q + 1;
    }
    if (g >= o->nkeys[q]) {
        size_t n = o->nkeys[q] ? o->nkeys[q] : 4;
        while (n <= g)
            n *= 2;
        o->keys[q] = xrealloc(o->keys[q], n * sizeof *o->keys[q]);
        memset(o->keys[q] + o->nkeys[q], 0, (n - o->nkeys[q]) * sizeof *o->keys[q]);
        o->nkeys[q] = n;
    }
    return &o->keys[q][g];
}

static inline uint64_t capacity(const order_key *k)
{
    return (uint64_t)k->words * 64;
}

static inline bool test_bit(const order_key *k, uint64_t s)
{
    uint64_t i = s & (capacity(k) - 1);
    return (k->ring[i >> 6] >> (i & 63)) & 1;
}

static inline void put_bit(order_key *k, uint64_t s, bool on)
{
    uint64_t i = s & (capacity(k) - 1);
    if (on)
        k->ring[i >> 6] |= 1ULL << (i & 63);
    else
        k->ring[i >> 6] &= ~(1ULL << (i & 63));
}

/* Doubles the ring, keeping the flags of [low, issued). */
static void grow(order_key *k)
{
    order_key old = *k;
    k->words = old.words ? old.words * 2 : 1;
    k->ring = xcalloc(k->words, sizeof *k->ring);
    for (uint64_t s = old.low; old.words && s < old.issued; s++)
        if (test_bit(&old, s))
            put_bit(k, s, true);
    free(old.ring);
}

uint64_t order_issue(order_key *k)
{
    if (k->issued - k->low >= capacity(k))
        grow(k);
    return k->issued++;
}

void order_mark_ended(order_key *k, uint64_t seq)
{
    if (seq < k->low || seq >= k->issued)
        return;
    if (seq != k->low) {
        put_bit(k, seq, true);
        return;
    }
    k->low++;
    while (k->low < k->issued && test_bit(k, k->low)) {
        put_bit(k, k->low, false);
        k->low++;
    }
}
