/* order.h -- order violations and inversions, per ordering key.
 *
 * A key is a queue's message group (messages without a group share one key
 * per queue).  Within a key, messages get sequence numbers 0, 1, 2, ... in
 * publish order.  The tracker keeps, per key, the lowest sequence number
 * whose listener has not yet returned (`low`) and a ring of "ended" flags
 * for the numbers between `low` and the next to be issued, so memory grows
 * with the messages in flight, not with all messages ever published.  A
 * key's first 64 flags are kept in the key itself: with a million groups
 * most keys never have more in flight, and a ring of their own would cost
 * an allocation and a cache line apart from the key at every message.
 *
 * A message is a violation if, when it begins, an earlier message of its
 * key has not ended (low < seq); an inversion if that is still so when it
 * ends.
 */
#ifndef LSIM_SIM_ORDER_H
#define LSIM_SIM_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct order_key {
    uint64_t issued;               /* the next sequence number */
    uint64_t low;                  /* lowest number not ended */
    union {                        /* ended flags, bit (s mod capacity): */
        uint64_t word;             /* wshift == 0: in the key */
        uint64_t *ring;            /* wshift > 0: allocated */
    } flags;
    uint32_t wshift;               /* the ring is 2^wshift 64-bit words: a zeroed
                                      key is a new key, its flags in itself */
} order_key;

/* Keys by queue and group: a key's id is its group + 1 (0: the messages
 * without a group), and each queue keeps its keys in one zeroed array over
 * the ids it has seen, from the lowest (`base`) on.  A publish so finds its
 * key with one load from the queue's array (a table of indices in front of
 * it would be a second miss with a million groups); a zeroed key is a new
 * key, its flags in itself, so a group's first message takes the same path
 * as the others.  A pointer
 * to a key stays valid only until a key is added to its queue.  Ids are
 * below ORDER_KEYS_MAX (2^31), so that one fits a message's delivery field. */
#define ORDER_KEYS_MAX 0x80000000u
typedef struct order_queue_keys {
    order_key *keys;               /* [id - base] */
    size_t base, n;                /* ids base .. base + n - 1 */
} order_queue_keys;
typedef struct order_tracker {
    order_queue_keys *queues;      /* [queue] */
    size_t nqueues;
    size_t rings;                  /* keys with a ring apart: order_fini looks for
                                      them only if there are (a million keys are
                                      32 MB to read, with none among them) */
} order_tracker;

void order_init(order_tracker *o);
void order_fini(order_tracker *o);
/* The key id of a group (-1 = none). */
static inline uint32_t order_key_id(int group)
{
    return (uint32_t)(group + 1);
}
/* (queue, id)'s key, or NULL while its queue's array does not cover it. */
static inline order_key *order_key_find(const order_tracker *o, int queue, uint32_t id)
{
    size_t q = (size_t)queue;
    if (q >= o->nqueues)
        return NULL;
    const order_queue_keys *qk = &o->queues[q];
    size_t i = (size_t)id - qk->base;      /* below base: wraps past n */
    return i < qk->n ? &qk->keys[i] : NULL;
}
/* (queue, id)'s key, the queue's array grown to cover it but not past
 * `ids` (ids below it may
 * exist: the groups there are + 1; 0 for no bound). */
order_key *order_key_add(order_tracker *o, int queue, uint32_t id, size_t ids);
/* The keys of queue will be those of groups first .. first + count - 1 (a
 * generated series): its array is made for them at once, zeroed by the
 * allocator (pages are touched as groups come), instead of growing and
 * moving as they come in random order.  Nothing if the queue has keys. */
void order_keys_expect(order_tracker *o, int queue, int first, int count);
/* (queue, group)'s key (group -1 = none), created on first use. */
static inline order_key *order_key_of(order_tracker *o, int queue, int group, size_t ids)
{
    order_key *k = order_key_find(o, queue, order_key_id(group));
    return k ? k : order_key_add(o, queue, order_key_id(group), ids);
}
/* The key of a message already published (its key exists). */
static inline order_key *order_key_at(order_tracker *o, int queue, uint32_t id)
{
    return &o->queues[queue].keys[id - o->queues[queue].base];
}
/* Asks for the lines of (queue, id)'s key ahead of its use, if it exists:
 * its first and last byte, since the array is not aligned to lines and a
 * key of 32 bytes may straddle two. */
static inline void order_key_prefetch(const order_tracker *o, int queue, uint32_t id)
{
    const order_key *k = order_key_find(o, queue, id);
    if (k) {
        __builtin_prefetch(k, 1);
        __builtin_prefetch((const char *)(k + 1) - 1, 1);
    }
}
/* The ring's size in 64-bit words. */
static inline uint32_t order_words(const order_key *k)
{
    return 1u << k->wshift;
}
static inline uint64_t order_capacity(const order_key *k)
{
    return (uint64_t)64 << k->wshift;
}
/* The ring's words, in the key or apart (a select, no branch). */
static inline uint64_t *order_ring(order_key *k)
{
    return k->wshift == 0 ? &k->flags.word : k->flags.ring;
}
static inline const uint64_t *order_ring_c(const order_key *k)
{
    return k->wshift == 0 ? &k->flags.word : k->flags.ring;
}
/* Whether number s of k has ended, and marking it so (s in [low, issued)). */
static inline bool order_test_ended(const order_key *k, uint64_t s)
{
    uint64_t i = s & (order_capacity(k) - 1);
    return (order_ring_c(k)[i >> 6] >> (i & 63)) & 1;
}
static inline void order_put_ended(order_key *k, uint64_t s)
{
    uint64_t i = s & (order_capacity(k) - 1);
    order_ring(k)[i >> 6] |= 1ULL << (i & 63);
}
/* The next number of k would not fit its ring. */
static inline bool order_ring_full(const order_key *k)
{
    return k->issued - k->low >= order_capacity(k);
}
/* Doubles the ring of k, a key of o (the next number would not fit),
 * keeping its flags. */
void order_grow(order_tracker *o, order_key *k);
/* The next number of k, a key of o. */
static inline uint64_t order_issue(order_tracker *o, order_key *k)
{
    if (__builtin_expect(order_ring_full(k), 0))
        order_grow(o, k);
    return k->issued++;
}
/* True if a message published before `seq` has not ended. */
static inline bool order_has_earlier_open(const order_key *k, uint64_t seq)
{
    return k->low < seq;
}
/* Marks `seq` ended (nothing if it is not in [low, issued)). */
void order_mark_ended(order_key *k, uint64_t seq);
/* `low` ended: moves it past every number ended after it, a word of flags
 * at a time (inline: it runs for every message that ends in order).
 * Flags outside [low, issued) are always clear (cleared as low passes
 * them; grow copies only that window) and low's own flag is never set, so
 * the run of ended flags after low stops by itself before `issued`. */
static inline void order_advance(order_key *k)
{
    uint64_t s = k->low + 1, mask = order_capacity(k) - 1;
    uint64_t *ring = order_ring(k);
    while (s < k->issued) {
        uint64_t i = s & mask;
        uint64_t *w = &ring[i >> 6];
        unsigned b = (unsigned)(i & 63);
        uint64_t r = *w >> b;
        uint64_t run = r & ~(r + 1);           /* r's trailing ones */
        *w &= ~(run << b);
        unsigned n = ~r ? (unsigned)__builtin_ctzll(~r) : 64;
        s += n;
        if (b + n < 64)
            break;
    }
    k->low = s;
}

/* A message keeps only the low 32 bits of its number (sim/engine/sim.h).  The
 * number of a message that has not ended lies in [low, issued), so it is
 * rebuilt exactly while issued - low <= 2^32 (message.c stops a run first). */
static inline uint32_t order_seq_low32(uint64_t seq)
{
    return (uint32_t)seq;
}
static inline uint64_t order_seq_rebuild(const order_key *k, uint32_t low32)
{
    return k->low + (uint32_t)(low32 - (uint32_t)k->low);
}
/* False when one more number would leave that window. */
static inline bool order_window_fits(const order_key *k)
{
    return k->issued - k->low <= (uint64_t)UINT32_MAX + 1;
}

/* The same questions for a message that has not ended, by the low 32 bits
 * of its number: its number lies in [low, issued), so an earlier one is
 * open exactly when it is not `low` itself. */
static inline bool order_earlier_open32(const order_key *k, uint32_t low32)
{
    return low32 != (uint32_t)k->low;
}
/* Marks it ended; true if an earlier one was still open (an inversion). */
static inline bool order_end32(order_key *k, uint32_t low32)
{
    if (!order_earlier_open32(k, low32)) {
        order_advance(k);
        return false;
    }
    order_put_ended(k, order_seq_rebuild(k, low32));
    return true;
}

#endif
