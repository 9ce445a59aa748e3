/* test_random.c -- named streams: a stream depends on the seed and its own
 * name only, not on which other streams exist or how they are used; and a
 * calibration knob draws from its stream only when it is a distribution. */
#include "testutil.h"

#include "dist.h"
#include "engine.h"
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

/* knob_draws tells a distribution from a duration or a schedule, and
 * knob_mean is the distribution's mean (whole ns) or the duration in force,
 * without a draw: the stream draws after it what it would have drawn first. */
static void knob_draws_only_for_a_distribution(void **state)
{
    (void)state;
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    const char *yaml = "{ plain: 7ms, sched: [{ from: 0s, value: 2ms }, { from: 10s, value: 5ms }],"
                       "  dist: { kind: uniform, min: 1ms, max: 4ms } }";
    if (cfg_load_string("t.yaml", yaml, strlen(yaml), &doc, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    sim_ctx *ctx = sim_ctx_create(1);
    sim_knob plain, sched, dist;
    assert_int_equal(knob_read(ctx, doc.root, "plain", 0, false, "k.plain", &plain, &d), SIM_OK);
    assert_int_equal(knob_read(ctx, doc.root, "sched", 0, true, "k.sched", &sched, &d), SIM_OK);
    assert_int_equal(knob_read(ctx, doc.root, "dist", 0, false, "k.dist", &dist, &d), SIM_OK);
    assert_false(knob_draws(&plain));
    assert_false(knob_draws(&sched));
    assert_true(knob_draws(&dist));
    assert_int_equal(knob_mean(&plain, 0), 7 * SIM_MS);
    assert_int_equal(knob_mean(&sched, 0), 2 * SIM_MS);
    assert_int_equal(knob_mean(&sched, 11 * SIM_S), 5 * SIM_MS);
    assert_int_equal(knob_mean(&dist, 0), 2500 * SIM_US);
    /* the mean drew nothing: the draws are a twin's, which never asked it */
    sim_ctx *ctx2 = sim_ctx_create(1);
    sim_knob twin;
    assert_int_equal(knob_read(ctx2, doc.root, "dist", 0, false, "k.dist", &twin, &d), SIM_OK);
    for (int i = 0; i < 10; i++) {
        int64_t v = knob_draw(&dist, 0);
        assert_int_equal(v, knob_draw(&twin, 0));
        assert_true(v >= 1 * SIM_MS && v <= 4 * SIM_MS);
    }
    knob_fini(&twin);
    sim_ctx_destroy(ctx2);
    knob_fini(&plain);
    knob_fini(&sched);
    knob_fini(&dist);
    sim_ctx_destroy(ctx);
    cfg_doc_free(&doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_name_same_numbers_whatever_else_exists),
        cmocka_unit_test(names_and_seeds_separate_streams),
        cmocka_unit_test(uniform_pos_is_gsl_s),
        cmocka_unit_test(knob_draws_only_for_a_distribution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
