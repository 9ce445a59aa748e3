/* test_free_index.c -- free_index gives the lowest free index every time,
 * growing past any size, as a fixed pool and as a growing one, checked
 * against a plain array of flags over a long random walk. */
#include "testutil.h"

#include "base/free_index.h"

#include <gsl/gsl_rng.h>

static void takes_in_order_then_lowest_released_first(void **state)
{
    (void)state;
    free_index f = { 0 };
    for (size_t i = 0; i < 200; i++)
        assert_int_equal(free_index_take(&f), i);
    assert_int_equal(free_index_released(&f), 0);
    free_index_release(&f, 130);
    free_index_release(&f, 7);
    free_index_release(&f, 64);
    free_index_release(&f, 63);
    assert_int_equal(free_index_released(&f), 4);
    assert_int_equal(free_index_take(&f), 7);
    assert_int_equal(free_index_take(&f), 63);
    assert_int_equal(free_index_take(&f), 64);
    free_index_release(&f, 0);
    assert_int_equal(free_index_take(&f), 0);
    assert_int_equal(free_index_take(&f), 130);
    assert_int_equal(free_index_take(&f), 200);     /* none released: the next new one */
    free_index_fini(&f);
    assert_null(f.bits);
}

/* A fixed pool: fill(n), then only released ones come out, lowest first,
 * and the pool is exhausted after n takes. */
static void a_filled_pool_gives_its_n_only(void **state)
{
    (void)state;
    free_index f = { 0 };
    free_index_fill(&f, 10000);
    assert_int_equal(free_index_released(&f), 10000);
    for (size_t i = 0; i < 10000; i++)
        assert_int_equal(free_index_take_released(&f), i);
    assert_int_equal(free_index_released(&f), 0);
    free_index_release(&f, 9999);
    free_index_release(&f, 4096);                   /* the first index of words[1]'s range */
    free_index_release(&f, 4095);
    assert_int_equal(free_index_take_released(&f), 4095);
    assert_int_equal(free_index_take_released(&f), 4096);
    assert_int_equal(free_index_take_released(&f), 9999);
    assert_int_equal(free_index_released(&f), 0);
    free_index_fini(&f);
}

/* The lowest free index by a pass over flags: what free_index must match. */
static size_t lowest_unheld(const unsigned char *held, size_t n)
{
    size_t i = 0;
    while (i < n && held[i])
        i++;
    return i;
}

static void matches_a_pass_over_flags_on_a_random_walk(void **state)
{
    (void)state;
    enum { MAX = 5000 };             /* past 4,096: a second word of words[] */
    unsigned char *held = xcalloc(MAX + 1, 1);
    size_t *taken = xcalloc(MAX, sizeof *taken), ntaken = 0, most = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    free_index f = { 0 };
    for (int step = 0; step < 40000; step++) {
        /* drift up to MAX, then down to near nothing, then up again */
        double p_take = (step / 10000) % 2 == 0 ? 0.8 : 0.2;
        if (ntaken < MAX && (ntaken == 0 || gsl_rng_uniform(r) < p_take)) {
            size_t want = lowest_unheld(held, MAX);
            size_t got = free_index_take(&f);
            assert_int_equal(got, want);
            held[got] = 1;
            taken[ntaken++] = got;
            most = ntaken > most ? ntaken : most;
        } else {
            size_t k = gsl_rng_uniform_int(r, ntaken);
            size_t i = taken[k];
            taken[k] = taken[--ntaken];
            held[i] = 0;
            free_index_release(&f, i);
        }
    }
    assert_true(most > 4096);
    gsl_rng_free(r);
    free(taken);
    free(held);
    free_index_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(takes_in_order_then_lowest_released_first),
        cmocka_unit_test(a_filled_pool_gives_its_n_only),
        cmocka_unit_test(matches_a_pass_over_flags_on_a_random_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
