/* activemq_groups.c -- the three group maps of ActiveMQ 5.17.2
 * (activemq-broker .../region/group/: CachedMessageGroupMap,
 * MessageGroupHashBucket, SimpleMessageGroupMap) and Java's String.hashCode.
 *
 * Entries live in one array: indexed by group for simple, by bucket for
 * bucket; cached keeps only the entries in the map (at most size + 1), in
 * any places, and finds a group's entry through the `entry` of the queue's
 * record of the group (amq_group_slot: a scenario may have a million groups
 * and a cache of 1,024, so 4 bytes a group rather than a 32-byte entry each;
 * the bucket map keeps each group's bucket there).  Links are array indices + 1 (0 = none), so
 * the array may grow and a zeroed entry is empty.  Invariants:
 *  (1) an entry is in the map iff its owner is not NULL;
 *  (2) an entry in the map is on exactly one owner list, its owner's;
 *  (3) cached: the entries in the map are on the LRU list, least recently
 *      used first, and there are at most `size` of them;
 *  (4) cached: a group's slot names an entry iff it is in the map, and the
 *      others are on the free list (linked through lnext).
 * The LRU list copies java.util.LinkedHashMap in access order, as
 * activemq's memory/LRUMap configures it: get() and put() of a present key
 * move it to the end; a put of a new key that makes the map hold size + 1
 * entries removes the first (removeEldestEntry).
 */
#include "activemq/activemq_groups.h"
#include "base/mem.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    amqg_owner *owner;             /* NULL: not in the map */
    int32_t oprev, onext;          /* the owner's entries */
    int32_t lprev, lnext;          /* cached: LRU order */
    uint64_t mark;                 /* amqg_touch_all's: seen in this call */
} entry;

struct amqg_map {
    amqg_kind kind;
    int size;                      /* cacheSize or bucketCount */
    entry *e;
    size_t ne;
    int32_t lhead, ltail;          /* cached: eldest, newest */
    int live;                      /* cached: entries in the map */
    size_t cap;                    /* cached: room in e (ne of it used) */
    int32_t *egroup;               /* cached: [entry] its group */
    int32_t free;                  /* cached: the first free entry + 1 */
    amq_group_slots *slots;        /* cached, bucket: by group (`entry`); borrowed or own */
    amq_group_slots own;
    uint64_t changes;              /* ownership changes so far (amqg_changes) */
    uint64_t version;              /* changes of any kind (amqg_version) */
    uint64_t mark;                 /* amqg_touch_all's calls */
};

amqg_map *amqg_create(amqg_kind kind, int size, amq_group_slots *slots)
{
    amqg_map *g = xcalloc(1, sizeof *g);
    g->slots = slots ? slots : &g->own;
    g->kind = kind;
    g->size = size > 0 ? size : 1;
    if (kind == AMQG_BUCKET) {
        g->ne = (size_t)g->size;
        g->e = xcalloc(g->ne, sizeof *g->e);
    }
    return g;
}

void amqg_destroy(amqg_map *g)
{
    if (!g)
        return;
    free(g->e);
    free(g->egroup);
    free(g->own.v);
    free(g);
}

/* ---- Java's String.hashCode over UTF-16 ------------------------------------ */

/* The next code point of s[0..len) at *i, or U+FFFD for an ill-formed
 * subsequence, as the JDK 17 UTF-8 decoder (sun.nio.cs.UTF_8) replaces
 * them: the longest prefix of a well-formed sequence (Unicode table 3-7)
 * becomes one U+FFFD and decoding goes on at the byte that broke it, except
 * that ED may take any continuation byte and an encoded surrogate
 * (ED A0..BF xx) is then one U+FFFD for its three bytes.  Checked against
 * new String(bytes, UTF_8) on OpenJDK 17. */
static uint32_t next_code_point(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char b = s[*i];
    if (b < 0x80) {
        (*i)++;
        return b;
    }
    int need;
    uint32_t cp;
    unsigned char lo = 0x80, hi = 0xbf;   /* range of the second byte */
    if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        cp = b & 0x0f;
        if (b == 0xe0)
            lo = 0xa0;
    } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        cp = b & 0x07;
        if (b == 0xf0)
            lo = 0x90;
        if (b == 0xf4)
            hi = 0x8f;
    } else {
        (*i)++;
        return 0xfffd;
    }
    size_t j = *i + 1;
    for (int k = 0; k < need; k++, j++) {
        unsigned char c = j < len ? s[j] : 0;
        bool ok = j < len && (k == 0 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xbf));
        if (!ok) {
            *i = j;                /* the bad byte starts the next sequence */
            return 0xfffd;
        }
        cp = (cp << 6) | (c & 0x3f);
    }
    *i = j;
    return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
}

int32_t amqg_java_hash(const char *utf8, size_t len)
{
    const unsigned char *s = (const unsigned char *)utf8;
    uint32_t h = 0;                /* unsigned: wraps as Java's int does */
    size_t i = 0;
    while (i < len) {
        uint32_t cp = next_code_point(s, len, &i);
        if (cp >= 0x10000) {       /* a surrogate pair: two code units */
            cp -= 0x10000;
            h = 31 * h + (0xd800 + (cp >> 10));
            h = 31 * h + (0xdc00 + (cp & 0x3ff));
        } else {
            h = 31 * h + cp;
        }
    }
    return (int32_t)h;             /* two's complement (C23; every C11 compiler we use) */
}

int amqg_bucket_of(int32_t hash, int buckets)
{
    /* C99 `%` truncates toward zero like Java's; INT32_MIN % n is >= -(n-1),
     * so negating it cannot overflow. */
    int32_t b = hash % buckets;
    return b < 0 ? -b : b;
}

/* ---- cached: the entries by group --------------------------------------------- */

/* The entry of group, or -1 if the group is not in the map. */
static int32_t find_cached(const amqg_map *g, int group)
{
    size_t k = (size_t)group + 1;
    return k < g->slots->n ? g->slots->v[k].entry - 1 : -1;
}

/* A new entry for group, not in the map yet (owner NULL): the caller puts
 * it there at once.  It may move g->e. */
static int32_t add_cached(amqg_map *g, int group)
{
    int32_t i = g->free - 1;
    if (i >= 0) {
        g->free = g->e[i].lnext;
    } else {
        if (g->ne == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 16;
            g->e = xrealloc(g->e, g->cap * sizeof *g->e);
            g->egroup = xrealloc(g->egroup, g->cap * sizeof *g->egroup);
        }
        i = (int32_t)g->ne++;
    }
    g->e[i] = (entry){ 0 };
    g->egroup[i] = group;
    amq_group_slot_of(g->slots, group)->entry = i + 1;
    return i;
}

/* Entry i, out of the map now, goes on the free list. */
static void forget_cached(amqg_map *g, int32_t i)
{
    g->slots->v[(size_t)g->egroup[i] + 1].entry = 0;
    g->e[i].lnext = g->free;
    g->free = i + 1;
}

/* ---- entries and their lists ------------------------------------------------- */

/* Simple and bucket: the entry of group, made if need be (it may move g->e). */
static int32_t index_of(amqg_map *g, int group, const char *name)
{
    if (g->kind == AMQG_SIMPLE) {
        xgrow_zeroed((void **)&g->e, &g->ne, (size_t)group, sizeof *g->e);
        return group;
    }
    amq_group_slot *slot = amq_group_slot_of(g->slots, group);
    if (!slot->entry) {
        assert(name);              /* amqg_wants_name() said so */
        slot->entry = amqg_bucket_of(amqg_java_hash(name, strlen(name)), g->size) + 1;
    }
    return slot->entry - 1;
}

static void owner_unlink(amqg_map *g, int32_t i)
{
    entry *e = &g->e[i];
    if (e->oprev)
        g->e[e->oprev - 1].onext = e->onext;
    else
        e->owner->head = e->onext;
    if (e->onext)
        g->e[e->onext - 1].oprev = e->oprev;
    e->owner = NULL;
    e->oprev = e->onext = 0;
}

static void owner_link(amqg_map *g, int32_t i, amqg_owner *o)
{
    entry *e = &g->e[i];
    e->owner = o;
    e->oprev = 0;
    e->onext = o->head;
    if (o->head)
        g->e[o->head - 1].oprev = i + 1;
    o->head = i + 1;
}

static void lru_unlink(amqg_map *g, int32_t i)
{
    entry *e = &g->e[i];
    if (e->lprev)
        g->e[e->lprev - 1].lnext = e->lnext;
    else
        g->lhead = e->lnext;
    if (e->lnext)
        g->e[e->lnext - 1].lprev = e->lprev;
    else
        g->ltail = e->lprev;
    e->lprev = e->lnext = 0;
}

/* Moves entry i to the newest end (a use).  Dispatch passes use the same
 * group many times in a row (a hot group's backlog), so the common case is
 * an entry that is already the newest. */
static void lru_touch(amqg_map *g, int32_t i);

static void lru_append(amqg_map *g, int32_t i)
{
    entry *e = &g->e[i];
    e->lnext = 0;
    e->lprev = g->ltail;
    if (g->ltail)
        g->e[g->ltail - 1].lnext = i + 1;
    else
        g->lhead = i + 1;
    g->ltail = i + 1;
}

static void lru_touch(amqg_map *g, int32_t i)
{
    if (g->ltail == i + 1)
        return;
    g->version++;
    lru_unlink(g, i);
    lru_append(g, i);
}

/* Takes entry i out of the map. */
static void drop(amqg_map *g, int32_t i)
{
    if (!g->e[i].owner)
        return;
    g->changes++;
    g->version++;
    owner_unlink(g, i);
    if (g->kind == AMQG_CACHED) {
        lru_unlink(g, i);
        g->live--;
        forget_cached(g, i);
    }
}

/* ---- the map operations ------------------------------------------------------ */

uint64_t amqg_changes(const amqg_map *g)
{
    return g->changes;
}

/* Bucket: group's bucket + 1 if it was hashed already, else 0. */
static int32_t known_bucket(const amqg_map *g, int group)
{
    size_t k = (size_t)group + 1;
    return k < g->slots->n ? g->slots->v[k].entry : 0;
}

bool amqg_wants_name(const amqg_map *g, int group)
{
    return g->kind == AMQG_BUCKET && !known_bucket(g, group);
}

amqg_owner *amqg_get(amqg_map *g, int group, const char *name)
{
    int32_t i = g->kind != AMQG_CACHED ? index_of(g, group, name) : find_cached(g, group);
    if (i < 0)
        return NULL;
    if (g->kind == AMQG_CACHED)
        lru_touch(g, i);
    return g->e[i].owner;
}

amqg_owner *amqg_peek(amqg_map *g, int group, const char *name)
{
    size_t k = (size_t)group;
    if (g->kind == AMQG_CACHED) {
        int32_t i = find_cached(g, group);
        return i < 0 ? NULL : g->e[i].owner;
    }
    if (g->kind == AMQG_SIMPLE)    /* no growth */
        return k < g->ne ? g->e[k].owner : NULL;
    int32_t b = known_bucket(g, group);
    if (b)
        return g->e[b - 1].owner;
    int32_t i = index_of(g, group, name);   /* it may move g->e */
    return g->e[i].owner;
}

bool amqg_has_lru(const amqg_map *g)
{
    return g->kind == AMQG_CACHED;
}

bool amqg_may_evict(const amqg_map *g, int group)
{
    return g->kind == AMQG_CACHED && g->live >= g->size && find_cached(g, group) < 0;
}

void amqg_prefetch_eldest(const amqg_map *g)
{
    if (g->kind != AMQG_CACHED || g->live < g->size || !g->lhead)
        return;
    __builtin_prefetch(&g->slots->v[(size_t)g->egroup[g->lhead - 1] + 1], 1);
}

uint64_t amqg_version(const amqg_map *g)
{
    return g->version;
}

/* Whether touching group[0..n) in order would leave the order as it is:
 * the groups in the map, each at its last place in the array, are the
 * newest entries already, in that order. */
static bool is_newest(amqg_map *g, const int32_t *group, size_t n)
{
    uint64_t mark = ++g->mark;
    int32_t at = g->ltail;
    for (size_t k = n; k-- > 0;) {
        int32_t i = find_cached(g, group[k]);
        if (i < 0 || g->e[i].mark == mark)
            continue;
        g->e[i].mark = mark;
        if (at != i + 1)
            return false;
        at = g->e[i].lprev;
    }
    return true;
}

void amqg_touch_all(amqg_map *g, const int32_t *group, size_t n)
{
    if (g->kind != AMQG_CACHED || is_newest(g, group, n))
        return;
    for (size_t k = 0; k < n; k++) {
        int32_t i = find_cached(g, group[k]);
        if (i >= 0)
            lru_touch(g, i);
    }
}

amqg_owner *amqg_put(amqg_map *g, int group, const char *name, amqg_owner *owner,
                     int *evicted)
{
    int32_t i = g->kind != AMQG_CACHED ? index_of(g, group, name) : find_cached(g, group);
    if (i < 0)
        i = add_cached(g, group);
    entry *e = &g->e[i];
    bool is_new = e->owner == NULL;
    g->changes++;
    g->version++;
    if (!is_new)
        owner_unlink(g, i);
    owner_link(g, i, owner);
    if (g->kind != AMQG_CACHED)
        return NULL;
    if (!is_new) {
        lru_touch(g, i);
        return NULL;
    }
    lru_append(g, i);
    if (++g->live <= g->size)
        return NULL;
    int32_t eldest = g->lhead - 1;
    amqg_owner *was = g->e[eldest].owner;
    *evicted = g->egroup[eldest];
    drop(g, eldest);
    return was;
}

void amqg_remove_group(amqg_map *g, int group, const char *name)
{
    int32_t i = g->kind != AMQG_CACHED ? index_of(g, group, name) : find_cached(g, group);
    if (i >= 0)
        drop(g, i);
}

void amqg_remove_owner(amqg_map *g, amqg_owner *owner)
{
    while (owner->head)
        drop(g, owner->head - 1);
}
