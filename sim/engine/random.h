/* random.h -- named random streams.
 *
 * Every component draws from its own GSL generator (MT19937), seeded from
 * the run's seed and the component's name, so a stream's numbers do not
 * depend on which other streams exist or how much they are used: adding a
 * consumer leaves the arrival stream as it was (common random numbers).
 */
#ifndef LSIM_SIM_RANDOM_H
#define LSIM_SIM_RANDOM_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct random_stream {
    char *name;
    gsl_rng *rng;
    unsigned users;                /* the random_get calls that returned it */
} random_stream;

/* The streams are found by name and by generator through two hash tables
 * (open addressing, index + 1, 0 empty): a scenario of 65,535 queues asks
 * for some 200,000 streams, each once. */
typedef struct random_streams {
    uint64_t seed;
    random_stream *v;
    size_t n, cap;
    uint32_t *by_name, *by_rng;
    size_t nslots;                 /* of each table: a power of two, or 0 */
    uint64_t probes;               /* slots looked at, for the tests of the tables */
} random_streams;

/* gsl_rng_uniform_pos(r), a call shorter for the streams of random_get:
 * MT19937's get_double is get() / 2^32, so the same numbers come from its
 * get() directly (other generators go through GSL's own function). */
static inline double random_uniform_pos(const gsl_rng *r)
{
    if (__builtin_expect(r->type != gsl_rng_mt19937, 0))
        return gsl_rng_uniform_pos(r);
    unsigned long x;
    do
        x = r->type->get(r->state);
    while (x == 0);
    return (double)x / 4294967296.0;
}

void random_init(random_streams *s, uint64_t seed);
void random_fini(random_streams *s);
gsl_rng *random_get(random_streams *s, const char *name);
/* Whether r, one of s's streams, was returned by random_get more than once
 * (two components whose names coincide share a stream). */
bool random_is_shared(const random_streams *s, const gsl_rng *r);
/* The 64-bit seed of stream `name` under run seed `seed`. */
uint64_t random_seed_of(uint64_t seed, const char *name);

#endif
