/* test_names.c -- the name table: a series g1..gN gets its ids at once,
 * reads back as the same strings, is found by name, and never claims a
 * name that is not exactly one of it; and the cached group map, which
 * keeps only its own entries in a hash table, evicts exactly as a plain
 * LRU list of groups does, over a long random walk with a small cache. */
#include "testutil.h"

#include "activemq/activemq_groups.h"
#include "base/names.h"

#include <gsl/gsl_rng.h>

static void series_ids_names_and_lookups(void **state)
{
    (void)state;
    name_table t;
    names_init(&t);
    assert_int_equal(names_intern(&t, "x", 1), 0);
    assert_int_equal(names_add_series(&t, 'g', 1000), 1);
    assert_int_equal(names_intern(&t, "y", 1), 1001);      /* after the series */
    assert_int_equal(names_intern(&t, "g1", 2), 1);
    assert_int_equal(names_intern(&t, "g1000", 5), 1000);
    assert_string_equal(names_get(&t, 500), "g500");
    assert_string_equal(names_get(&t, 1000), "g1000");
    const char *kept = names_get(&t, 500);
    assert_ptr_equal(names_get(&t, 500), kept);             /* made once, never moved */
    for (int id = 1; id <= 1000; id++)                      /* fills several blocks' worth */
        assert_int_equal(names_intern(&t, names_get(&t, id), strlen(names_get(&t, id))), id);
    assert_ptr_equal(names_get(&t, 500), kept);
    /* not of the series: hashed names of their own */
    assert_int_equal(names_intern(&t, "g0", 2), 1002);
    assert_int_equal(names_intern(&t, "g01", 3), 1003);
    assert_int_equal(names_intern(&t, "g1001", 5), 1004);
    assert_int_equal(names_intern(&t, "g", 1), 1005);
    assert_int_equal(names_intern(&t, "g-1", 3), 1006);
    assert_int_equal(names_intern(&t, "g99999999999999999999", 21), 1007);
    assert_int_equal(names_intern(&t, "g01", 3), 1003);
    assert_string_equal(names_get(&t, 1006), "g-1");
    assert_null(names_get(&t, 1008));
    assert_null(names_get(&t, -1));
    assert_int_equal(names_add_series(&t, 'h', 3), -1);     /* one series a table */
    names_fini(&t);

    names_init(&t);                                         /* a name already there clashes */
    names_intern(&t, "g7", 2);
    assert_int_equal(names_add_series(&t, 'g', 6), 1);      /* g7 is not among g1..g6 */
    names_fini(&t);
    names_init(&t);
    names_intern(&t, "g7", 2);
    assert_int_equal(names_add_series(&t, 'g', 7), -1);
    names_fini(&t);
}

/* A plain LRU of groups with their owners, as CachedMessageGroupMap
 * behaves: lru[0] the eldest. */
typedef struct ref_lru {
    int group[64];
    int owner[64];
    int n, size;
} ref_lru;

static int ref_find(const ref_lru *r, int group)
{
    for (int i = 0; i < r->n; i++)
        if (r->group[i] == group)
            return i;
    return -1;
}

static void ref_to_newest(ref_lru *r, int i)
{
    int g = r->group[i], o = r->owner[i];
    memmove(r->group + i, r->group + i + 1, (size_t)(r->n - i - 1) * sizeof *r->group);
    memmove(r->owner + i, r->owner + i + 1, (size_t)(r->n - i - 1) * sizeof *r->owner);
    r->group[r->n - 1] = g;
    r->owner[r->n - 1] = o;
}

static void ref_remove(ref_lru *r, int i)
{
    ref_to_newest(r, i);
    r->n--;
}

static void cached_map_matches_a_plain_lru(void **state)
{
    (void)state;
    enum { SIZE = 7, GROUPS = 5000, OWNERS = 4, STEPS = 200000 };
    amqg_map *g = amqg_create(AMQG_CACHED, SIZE, NULL);
    amqg_owner owner[OWNERS] = { { 0 } };
    ref_lru r = { .size = SIZE };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 42);
    for (int step = 0; step < STEPS; step++) {
        /* mostly a few hot groups, now and then one of thousands */
        int group = gsl_rng_uniform(rng) < 0.7 ? (int)gsl_rng_uniform_int(rng, 12)
                                               : (int)gsl_rng_uniform_int(rng, GROUPS);
        int i = ref_find(&r, group);
        double u = gsl_rng_uniform(rng);
        if (u < 0.4) {                                      /* get: a use */
            amqg_owner *o = amqg_get(g, group, NULL);
            assert_ptr_equal(o, i < 0 ? NULL : &owner[r.owner[i]]);
            if (i >= 0)
                ref_to_newest(&r, i);
        } else if (u < 0.5) {                               /* peek: no use */
            amqg_owner *o = amqg_peek(g, group, NULL);
            assert_ptr_equal(o, i < 0 ? NULL : &owner[r.owner[i]]);
        } else if (u < 0.9) {                               /* put */
            int who = (int)gsl_rng_uniform_int(rng, OWNERS);
            assert_int_equal(amqg_may_evict(g, group), i < 0 && r.n == SIZE);
            int evicted = -1;
            amqg_owner *was = amqg_put(g, group, NULL, &owner[who], &evicted);
            if (i >= 0) {
                r.owner[i] = who;
                ref_to_newest(&r, i);
                assert_null(was);
            } else if (r.n == SIZE) {
                assert_int_equal(evicted, r.group[0]);
                assert_ptr_equal(was, &owner[r.owner[0]]);
                ref_remove(&r, 0);
                r.group[r.n] = group, r.owner[r.n++] = who;
            } else {
                assert_null(was);
                r.group[r.n] = group, r.owner[r.n++] = who;
            }
        } else if (u < 0.97) {                              /* the group closes */
            amqg_remove_group(g, group, NULL);
            if (i >= 0)
                ref_remove(&r, i);
        } else {                                            /* a consumer closes */
            int who = (int)gsl_rng_uniform_int(rng, OWNERS);
            amqg_remove_owner(g, &owner[who]);
            for (int k = r.n; k-- > 0;)
                if (r.owner[k] == who)
                    ref_remove(&r, k);
        }
    }
    gsl_rng_free(rng);
    amqg_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(series_ids_names_and_lookups),
        cmocka_unit_test(cached_map_matches_a_plain_lru),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
