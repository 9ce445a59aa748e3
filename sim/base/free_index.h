/* free_index.h -- the lowest free index of a growable set of slots
 * (workers, consumers in a queue's list), in a few instructions however many
 * there are.
 *
 * Every index from `next` up has never been taken and is free.  Below
 * `next`, the free ones are the set bits of a two-level bitmap: bit i of
 * bits[] says index i is free, bit j of words[] says bits[j] is not zero,
 * so the lowest one is two count-trailing-zeros after a scan of words[]
 * (one word per 4,096 indices).
 *
 *   free_index_take(f)            the lowest free index, taken;
 *   free_index_release(f, i)      gives back i (taken, not yet released);
 *   free_index_fill(f, n)         takes the next n and releases them (on an
 *                                 empty one: a fixed pool of n, all free);
 *   free_index_released(f)        how many below `next` are free: a fixed
 *                                 pool has one to give while this is not 0;
 *   free_index_take_released(f)   the lowest of those (there is one): no
 *                                 test of `next` on a fixed pool's hot path.
 *
 * The arrays grow only when `next` passes their end, so a release never
 * checks a size: an index below `next` always has its bit.  Zero-initialised
 * is empty; free_index_fini frees it.
 */
#ifndef LSIM_FREE_INDEX_H
#define LSIM_FREE_INDEX_H

#include "base/mem.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct free_index {
    uint64_t *bits;                /* bit i: index i (< next) is free */
    uint64_t *words;               /* bit j: bits[j] is not zero */
    size_t nbits, nwords;          /* words allocated in bits[] and words[] */
    size_t nfree;                  /* set bits */
    size_t next;                   /* no index from here up was ever taken */
} free_index;

static inline size_t free_index_released(const free_index *f)
{
    return f->nfree;
}

static inline void free_index_release(free_index *f, size_t i)
{
    size_t j = i / 64;
    f->bits[j] |= (uint64_t)1 << (i % 64);
    f->words[j / 64] |= (uint64_t)1 << (j % 64);
    f->nfree++;
}

/* The lowest free index below `next`; there is one (released > 0).  When
 * the first 64 indices have a free one, it is the lowest: one word, no
 * scan (a pool of up to 64 always, and most takes of a larger one). */
static inline size_t free_index_take_released(free_index *f)
{
    uint64_t first = f->bits[0];
    if (__builtin_expect(first != 0, 1)) {
        f->bits[0] = first & (first - 1);
        if (!f->bits[0])
            f->words[0] &= ~(uint64_t)1;             /* bits[0] is empty now */
        f->nfree--;
        return (size_t)__builtin_ctzll(first);
    }
    size_t k = 0;
    while (!f->words[k])
        k++;
    size_t j = k * 64 + (size_t)__builtin_ctzll(f->words[k]);
    size_t i = j * 64 + (size_t)__builtin_ctzll(f->bits[j]);
    f->bits[j] &= f->bits[j] - 1;                    /* clears its lowest bit: i */
    if (!f->bits[j])
        f->words[k] &= f->words[k] - 1;              /* j was its lowest bit */
    f->nfree--;
    return i;
}

/* Grows *v (of *n words) to at least `need` words, the new ones zero: to
 * twice its size for a set that grows by one, to `need` exactly when it is
 * larger (a pool filled at once takes no more than it needs). */
static inline void free_index_grow(uint64_t **v, size_t *n, size_t need)
{
    if (need <= *n)
        return;
    size_t cap = need > 2 * *n ? need : 2 * *n;
    *v = xrealloc(*v, cap * sizeof **v);
    memset(*v + *n, 0, (cap - *n) * sizeof **v);
    *n = cap;
}

/* Makes room for the bits of indices below `n`, the new ones clear. */
static inline void free_index_reserve(free_index *f, size_t n)
{
    size_t nb = (n + 63) / 64;
    free_index_grow(&f->bits, &f->nbits, nb);
    free_index_grow(&f->words, &f->nwords, (nb + 63) / 64);
}

static inline size_t free_index_take(free_index *f)
{
    if (f->nfree)
        return free_index_take_released(f);
    if (f->next % 64 == 0)         /* its bit's word may not exist yet */
        free_index_reserve(f, f->next + 1);
    return f->next++;
}

static inline void free_index_fill(free_index *f, size_t n)
{
    free_index_reserve(f, f->next + n);
    for (size_t i = 0; i < n; i++)
        free_index_release(f, f->next++);
}

static inline void free_index_fini(free_index *f)
{
    free(f->bits);
    free(f->words);
    memset(f, 0, sizeof *f);
}

#endif
