/* test_random.c -- named streams: a stream depends on the seed and its own
 * name only, not on which other streams exist or how they are used. */
#include "testutil.h"

#include "random.h"

static void same_name_same_numbers_whatever_else_exists(void **state)
{
    (void)state;
    random_streams a, b;
    random_init(&a, 42);
    random_init(&b, 42);
    gsl_rng *ra = random_get(&a, "arrivals/orders");
    /* b creates other streams first and draws from them */
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d/consumer", i);
        gsl_rng *o = random_get(&b, name);
        for (int j = 0; j < 100; j++)
            gsl_rng_get(o);
    }
    gsl_rng *rb = random_get(&b, "arrivals/orders");
    assert_ptr_equal(random_get(&b, "arrivals/orders"), rb);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    random_fini(&a);
    random_fini(&b);
}

static void names_and_seeds_separate_streams(void **state)
{
    (void)state;
    assert_int_not_equal(random_seed_of(1, "service/q"), random_seed_of(1, "arrivals/q"));
    assert_int_not_equal(random_seed_of(1, "service/q"), random_seed_of(2, "service/q"));
    random_streams s;
    random_init(&s, 7);
    gsl_rng *x = random_get(&s, "x"), *y = random_get(&s, "y");
    int same = 0;
    for (int i = 0; i < 100; i++)
        same += gsl_rng_get(x) == gsl_rng_get(y);
    assert_int_equal(same, 0);
    random_fini(&s);
}

/* random_uniform_pos draws what gsl_rng_uniform_pos draws, from a stream
 * of random_get (MT19937) and from a generator of another type. */
static void uniform_pos_is_gsl_s(void **state)
{
    (void)state;
    random_streams a, b;
    random_init(&a, 42);
    random_init(&b, 42);
    gsl_rng *ra = random_get(&a, "x"), *rb = random_get(&b, "x");
    for (int i = 0; i < 100000; i++) {
        double u = random_uniform_pos(ra);
        assert_true(u == gsl_rng_uniform_pos(rb));
        assert_true(u > 0 && u < 1);
    }
    random_fini(&a);
    random_fini(&b);
    gsl_rng *r1 = gsl_rng_alloc(gsl_rng_ranlxd1), *r2 = gsl_rng_alloc(gsl_rng_ranlxd1);
    for (int i = 0; i < 1000; i++)
        assert_true(random_uniform_pos(r1) == gsl_rng_uniform_pos(r2));
    gsl_rng_free(r1);
    gsl_rng_free(r2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_name_same_numbers_whatever_else_exists),
        cmocka_unit_test(names_and_seeds_separate_streams),
        cmocka_unit_test(uniform_pos_is_gsl_s),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
