/* random.c -- named GSL streams, seeded by hashing (seed, name). */
#include "engine/random.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* SplitMix64's finaliser: spreads nearby inputs (seed 1, 2, 3) apart. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t name_hash(const char *name);

uint64_t random_seed_of(uint64_t seed, const char *name)
{
    return mix64(mix64(seed) ^ name_hash(name));   /* FNV-1a over the name */
}

void random_init(random_streams *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
}

void random_fini(random_streams *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        gsl_rng_free(s->v[i].rng);
    }
    free(s->v);
    free(s->by_name);
    free(s->by_rng);
    memset(s, 0, sizeof *s);
}

/* FNV-1a */
static uint64_t name_hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static uint64_t rng_hash(const gsl_rng *r)
{
    return mix64((uint64_t)(uintptr_t)r);
}

/* The slot of `name`: its stream's, or the empty one it would go in. */
static size_t name_slot(random_streams *s, const char *name)
{
    size_t mask = s->nslots - 1, j = name_hash(name) & mask;
    for (s->probes++; s->by_name[j] && strcmp(s->v[s->by_name[j] - 1].name, name) != 0;
         s->probes++)
        j = (j + 1) & mask;
    return j;
}

static size_t rng_slot(const random_streams *s, const gsl_rng *r)
{
    size_t mask = s->nslots - 1, j = rng_hash(r) & mask;
    while (s->by_rng[j] && s->v[s->by_rng[j] - 1].rng != r)
        j = (j + 1) & mask;
    return j;
}

/* Both tables at least twice as large as the streams, rebuilt. */
static void make_room(random_streams *s)
{
    if ((s->n + 1) * 2 <= s->nslots)
        return;
    free(s->by_name);
    free(s->by_rng);
    s->nslots = s->nslots ? s->nslots * 2 : 64;
    s->by_name = xcalloc(s->nslots, sizeof *s->by_name);
    s->by_rng = xcalloc(s->nslots, sizeof *s->by_rng);
    for (size_t i = 0; i < s->n; i++) {
        s->by_name[name_slot(s, s->v[i].name)] = (uint32_t)(i + 1);
        s->by_rng[rng_slot(s, s->v[i].rng)] = (uint32_t)(i + 1);
    }
}

gsl_rng *random_get(random_streams *s, const char *name)
{
    make_room(s);
    size_t slot = name_slot(s, name);
    if (s->by_name[slot]) {
        random_stream *found = &s->v[s->by_name[slot] - 1];
        found->users++;
        return found->rng;
    }
    xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        mem_oom(sizeof(gsl_rng));
    uint64_t h = random_seed_of(s->seed, name);
    /* MT19937 takes 32 bits of seed; fold the hash so all of it counts. */
    gsl_rng_set(r, (unsigned long)((h ^ (h >> 32)) & 0xffffffffu));
    s->v[s->n].name = xstrdup(name);
    s->v[s->n].rng = r;
    s->v[s->n].users = 1;
    s->n++;
    s->by_name[slot] = (uint32_t)s->n;
    s->by_rng[rng_slot(s, r)] = (uint32_t)s->n;
    return r;
}

bool random_is_shared(const random_streams *s, const gsl_rng *r)
{
    if (s->nslots == 0)
        return false;
    size_t slot = rng_slot(s, r);
    return s->by_rng[slot] && s->v[s->by_rng[slot] - 1].users > 1;
}
