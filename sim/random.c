/* random.c -- named GSL streams, seeded by hashing (seed, name). */
#include "random.h"
#include "mem.h"

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

uint64_t random_seed_of(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;          /* FNV-1a over the name */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return mix64(mix64(seed) ^ h);
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
    memset(s, 0, sizeof *s);
}

gsl_rng *random_get(random_streams *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0) {
            s->v[i].users++;
            return s->v[i].rng;
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
    return r;
}

bool random_is_shared(const random_streams *s, const gsl_rng *r)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].rng == r)
            return s->v[i].users > 1;
    return false;
}
