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
    for (size_t q = 0; q < o->nqueues; q++) {
        order_queue_keys *qk = &o->queues[q];
        for (size_t i = 0; o->rings > 0 && i < qk->n; i++)
            if (qk->keys[i].wshift > 0) {
                free(qk->keys[i].flags.ring);
                o->rings--;
            }
        free(qk->keys);
    }
    free(o->queues);
    memset(o, 0, sizeof *o);
}

/* Grows qk's array to cover `id`, keeping its keys, zeroed keys in the
 * new part.  It grows by at least its length (doubles), towards the side
 * of `id`, but not below id 0 nor past `ids` (the ids that may exist, 0
 * for no bound): ids in random order move the array a few times, and a
 * queue's array ends near its groups' range instead of up to twice it. */
static void cover(order_queue_keys *qk, uint32_t id, size_t ids)
{
    if (qk->n == 0)
        qk->base = id;
    size_t n = qk->n, lo = qk->base, hi = qk->base + n;
    if (id < lo) {
        size_t want = lo - id > n ? lo - id : n;
        lo = want < lo ? lo - want : 0;
    } else if (id >= hi) {
        size_t want = id + 1 - hi > n ? id + 1 - hi : n;
        hi = ids > id && hi + want > ids ? ids : hi + want;
    }
    if (hi - lo > SIZE_MAX / sizeof *qk->keys)
        mem_oom(SIZE_MAX);
    size_t shift = qk->base - lo;
    qk->keys = xrealloc(qk->keys, (hi - lo) * sizeof *qk->keys);
    mem_hint_huge(qk->keys, (hi - lo) * sizeof *qk->keys);
    memmove(qk->keys + shift, qk->keys, n * sizeof *qk->keys);
    memset(qk->keys, 0, shift * sizeof *qk->keys);
    memset(qk->keys + shift + n, 0, (hi - lo - shift - n) * sizeof *qk->keys);
    qk->base = lo;
    qk->n = hi - lo;
}

/* queue's keys, the table of queues grown to hold it. */
static order_queue_keys *queue_keys(order_tracker *o, int queue)
{
    size_t q = (size_t)queue;
    if (q >= o->nqueues) {
        o->queues = xrealloc(o->queues, (q + 1) * sizeof *o->queues);
        for (size_t i = o->nqueues; i <= q; i++)
            o->queues[i] = (order_queue_keys){ 0 };
        o->nqueues = q + 1;
    }
    return &o->queues[q];
}

void order_keys_expect(order_tracker *o, int queue, int first, int count)
{
    uint32_t lo = order_key_id(first);
    if (count <= 0 || (size_t)lo + (size_t)count > ORDER_KEYS_MAX)
        return;
    order_queue_keys *qk = queue_keys(o, queue);
    if (qk->n)
        return;
    qk->keys = xcalloc((size_t)count, sizeof *qk->keys);
    mem_hint_huge(qk->keys, (size_t)count * sizeof *qk->keys);
    qk->base = lo;
    qk->n = (size_t)count;
}

order_key *order_key_add(order_tracker *o, int queue, uint32_t id, size_t ids)
{
    /* 2^31 keys would be 64 GiB of them: out of memory long before. */
    if (id >= ORDER_KEYS_MAX)
        mem_oom((size_t)ORDER_KEYS_MAX * sizeof(order_key));
    order_queue_keys *qk = queue_keys(o, queue);
    if (!order_key_find(o, queue, id))
        cover(qk, id, ids);
    order_key *k = &qk->keys[id - qk->base];
    return k;
}

void order_grow(order_tracker *o, order_key *k)
{
    order_key old = *k;            /* a copy: wshift 0 keeps its flags in it */
    k->wshift = old.wshift + 1;
    k->flags.ring = xcalloc(order_words(k), sizeof *k->flags.ring);
    for (uint64_t s = old.low; s < old.issued; s++)
        if (order_test_ended(&old, s))
            order_put_ended(k, s);
    if (old.wshift > 0)
        free(old.flags.ring);
    else
        o->rings++;                /* its first ring apart */
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
