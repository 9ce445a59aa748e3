/* activemq_groups.h -- ActiveMQ's message group maps: which consumer owns a
 * JMSXGroupID (specs/spring-jms-activemq.md §2.5).
 *
 *   cached  CachedMessageGroupMap: an access-ordered LRU of `size` groups
 *           (cacheSize, default 1024).  Putting one group too many evicts
 *           the least recently used; amqg_put() says whose it was.
 *   bucket  MessageGroupHashBucket: `size` buckets (bucketCount, default
 *           1024); a group's bucket is Java's String.hashCode() of its id
 *           modulo the count, sign flipped.  Groups in one bucket share
 *           their owner, and closing one closes the bucket.
 *   simple  SimpleMessageGroupMap: every group, never evicted.
 *
 * Owners are opaque (an amqg_owner embedded in the broker's subscription);
 * the map links each owner's entries so that a closing consumer releases
 * them without a scan of the whole map.  A zeroed amqg_owner owns nothing.
 */
#ifndef LSIM_MODELS_ACTIVEMQ_GROUPS_H
#define LSIM_MODELS_ACTIVEMQ_GROUPS_H

#include "base/mem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a queue keeps per group, by group + 1 (0: the messages of no group),
 * in one record: a message's group work (its stream in the page window, its
 * place in the group map, its last owner) then reads one cache line, not one
 * in each of three arrays, which with a million groups are each a miss. */
typedef struct amq_group_slot {
    int32_t stream;                /* activemq_window.c: its stream's index, 0 none */
    int32_t entry;                 /* cached map: its entry + 1; bucket map: its bucket + 1;
                                      0: none (not in the map, not hashed yet) */
    int64_t last_owner;            /* broker_activemq_stats.c: (node << 32 | id) + 1 of the
                                      consumer it was last assigned to, 0 none (while this
                                      is the only queue that assigned groups) */
} amq_group_slot;

typedef struct amq_group_slots {
    amq_group_slot *v;             /* [group + 1], zeroed as it grows */
    size_t n;
} amq_group_slots;

/* group's record, the array grown to hold it (it may move t->v). */
static inline amq_group_slot *amq_group_slot_of(amq_group_slots *t, int32_t group)
{
    size_t k = (size_t)group + 1;
    if (k >= t->n)
        xgrow_zeroed((void **)&t->v, &t->n, k, sizeof *t->v);
    return &t->v[k];
}

/* Asks for the line of group's record, if it has one, ahead of its use. */
static inline void amq_group_slot_prefetch(const amq_group_slots *t, int32_t group)
{
    size_t k = (size_t)group + 1;
    if (k < t->n)
        __builtin_prefetch(&t->v[k], 1);
}

typedef enum { AMQG_CACHED, AMQG_BUCKET, AMQG_SIMPLE } amqg_kind;

typedef struct amqg_owner {
    int32_t head;                  /* first entry + 1; 0 = owns nothing */
} amqg_owner;

typedef struct amqg_map amqg_map;

/* size: cacheSize (cached) or bucketCount (bucket); ignored for simple.
 * slots: the queue's records of its groups, which the map shares with the
 * page window (borrowed: they outlive the map); NULL: the map's own. */
amqg_map *amqg_create(amqg_kind kind, int size, amq_group_slots *slots);
void amqg_destroy(amqg_map *g);

/* Whether the next call about `group` needs its name (a bucket map hashes
 * each group's name once); otherwise the name may be NULL. */
bool amqg_wants_name(const amqg_map *g, int group);
/* The owner of group index `group` (named `name`, NUL-terminated), or NULL.
 * The cached map counts this as a use of the entry (LRU). */
amqg_owner *amqg_get(amqg_map *g, int group, const char *name);
/* The owner, as amqg_get, without counting a use. */
amqg_owner *amqg_peek(amqg_map *g, int group, const char *name);
/* Whether the map keeps an order of use (cached). */
bool amqg_has_lru(const amqg_map *g);
/* Whether amqg_put of `group` now would evict another group. */
bool amqg_may_evict(const amqg_map *g, int group);
/* Counts a use of each of group[0..n), in that order, as amqg_get would
 * (groups not in the map are passed over). */
void amqg_touch_all(amqg_map *g, const int32_t *group, size_t n);
/* A full cached map evicts its eldest group at the next new one, which
 * writes that group's record (`entry`): asks for its line ahead (a hint,
 * nothing changes; with a million groups the record is a miss). */
void amqg_prefetch_eldest(const amqg_map *g);
/* Bumped by every change to the map, its order of use included. */
uint64_t amqg_version(const amqg_map *g);
/* Makes `owner` own the group.  If the cached map had to evict a group to
 * make room, returns that group's owner and sets *evicted to its index;
 * otherwise returns NULL. */
amqg_owner *amqg_put(amqg_map *g, int group, const char *name, amqg_owner *owner,
                     int *evicted);
/* The group has no owner any more (JMSXGroupSeq < 0); for bucket, the
 * whole bucket. */
void amqg_remove_group(amqg_map *g, int group, const char *name);
/* How many times an owner was set or removed so far: while it is
 * unchanged, every group has the owner it had. */
uint64_t amqg_changes(const amqg_map *g);
/* Every entry of `owner` goes (its consumer closed). */
void amqg_remove_owner(amqg_map *g, amqg_owner *owner);

/* Java's String.hashCode() of a UTF-8 string: s[0]*31^(n-1) + ... over its
 * UTF-16 code units, in 32-bit two's complement.  Malformed UTF-8 decodes
 * as Java's decoder does: each maximal bad subsequence becomes U+FFFD. */
int32_t amqg_java_hash(const char *utf8, size_t len);
/* MessageGroupHashBucket.getBucketNumber: hash % buckets, negated if < 0. */
int amqg_bucket_of(int32_t hash, int buckets);

#endif
