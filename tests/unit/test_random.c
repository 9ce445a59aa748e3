/* test_random.c -- named streams: a stream depends on the seed and its own
 * name only, not on which other streams exist or how they are used; a
 * calibration knob draws from its stream only when it is a distribution;
 * a poisson source that draws its gaps ahead gives the arrivals of one
 * that draws them when needed, its stream shared or not. */
#include "testutil.h"

#include "workload/arrivals.h"
#include "engine/dist.h"
#include "engine/engine.h"
#include "engine/random.h"

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

/* A schedule of distributions: each use a draw of the step in force (a
 * constant step draws its value), 0 before the first step, the mean that
 * step's mean; what is not a distribution or a duration is refused. */
static void knob_schedule_of_distributions(void **state)
{
    (void)state;
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    const char *yaml = "{ s: [{ from: 1s, value: { kind: uniform, min: 1ms, max: 3ms } },"
                       "      { from: 10s, value: 5ms }],"
                       "  bad: [{ from: 0s, value: { kind: uniform, min: 1ms } }] }";
    if (cfg_load_string("t.yaml", yaml, strlen(yaml), &doc, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    sim_ctx *ctx = sim_ctx_create(1);
    sim_knob k, bad;
    assert_int_equal(knob_read(ctx, doc.root, "s", 0, true, "k.s", &k, &d), SIM_OK);
    assert_true(knob_draws(&k));
    assert_int_equal(knob_draw(&k, 0), 0);
    assert_int_equal(knob_mean(&k, 0), 0);
    assert_int_equal(knob_mean(&k, 2 * SIM_S), 2 * SIM_MS);
    assert_int_equal(knob_mean(&k, 10 * SIM_S), 5 * SIM_MS);
    bool spread = false;
    int64_t first = knob_draw(&k, 2 * SIM_S);
    for (int i = 0; i < 20; i++) {
        int64_t v = knob_draw(&k, 5 * SIM_S);
        assert_true(v >= 1 * SIM_MS && v <= 3 * SIM_MS);
        spread = spread || v != first;
        assert_int_equal(knob_draw(&k, 12 * SIM_S), 5 * SIM_MS);
    }
    assert_true(spread);
    assert_int_equal(knob_read(ctx, doc.root, "bad", 0, true, "k.bad", &bad, &d), SIM_EINPUT);
    knob_fini(&bad);
    knob_fini(&k);
    sim_ctx_destroy(ctx);
    cfg_doc_free(&doc);
}

static void shared_when_handed_out_twice(void **state)
{
    (void)state;
    random_streams s;
    random_init(&s, 3);
    gsl_rng *a = random_get(&s, "arrivals/a"), *b = random_get(&s, "arrivals/b");
    assert_false(random_is_shared(&s, a));
    assert_ptr_equal(random_get(&s, "arrivals/b"), b);
    assert_false(random_is_shared(&s, a));
    assert_true(random_is_shared(&s, b));
    random_fini(&s);
}

/* A poisson source of `rate` per second on stream `stream` of ctx. */
static arrivals *poisson_source(sim_ctx *ctx, const char *rate, const char *stream)
{
    char yaml[64];
    snprintf(yaml, sizeof yaml, "{ kind: poisson, rate: %s }", rate);
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    if (cfg_load_string("t.yaml", yaml, strlen(yaml), &doc, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    arrivals *a = NULL;
    if (arrivals_create(ctx, doc.root, stream, 0, &a, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    cfg_doc_free(&doc);
    return a;
}

/* The gap a source of mean gap `mean_ns` draws from r when it needs one. */
static sim_time gap_from(gsl_rng *r, double mean_ns)
{
    return (sim_time)(dist_exponential(r, mean_ns) + 0.5);
}

/* Drawn ahead (a stream of its own) or when needed (a stream shared by two
 * sources, their calls interleaved): every arrival's time is the sum of
 * the gaps drawn in turn, as the stream's numbers come. */
static void poisson_gaps_ahead_are_the_same_gaps(void **state)
{
    (void)state;
    sim_ctx *ctx = sim_ctx_create(11);
    arrivals *own = poisson_source(ctx, "5/s", "arrivals/own");
    arrivals *s1 = poisson_source(ctx, "2/s", "arrivals/shared");
    arrivals *s2 = poisson_source(ctx, "4/s", "arrivals/shared");
    random_streams ref;
    random_init(&ref, 11);
    gsl_rng *r_own = random_get(&ref, "arrivals/own"), *r_shared = random_get(&ref, "arrivals/shared");
    sim_time t_own = 0, t1 = 0, t2 = 0;
    for (int i = 0; i < 5000; i++) {
        arrival x;
        assert_true(own->ops->next(ctx, own, &x));
        t_own += gap_from(r_own, 2e8);
        assert_int_equal(x.t, t_own);
        assert_int_equal(x.service, ARRIVAL_DRAW_SERVICE);
        arrivals *which = i % 3 ? s1 : s2;           /* interleaved unevenly */
        assert_true(which->ops->next(ctx, which, &x));
        sim_time *t = which == s1 ? &t1 : &t2;
        *t += gap_from(r_shared, which == s1 ? 5e8 : 2.5e8);
        assert_int_equal(x.t, *t);
    }
    random_fini(&ref);
    arrivals_destroy(own);
    arrivals_destroy(s1);
    arrivals_destroy(s2);
    sim_ctx_destroy(ctx);
}

/* 65,535 queues ask for some 200,000 streams: each found in a few probes
 * of its hash table, not by a scan of those before it (which took 69 s);
 * the same stream comes back for the same name, a shared one says so. */
static void many_streams_found_in_few_probes(void **state)
{
    (void)state;
    enum { N = 20000 };
    random_streams s;
    random_init(&s, 5);
    gsl_rng **first = calloc(N, sizeof *first);
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "service/q%d", i);
        first[i] = random_get(&s, name);
    }
    for (int i = 0; i < N; i += 7) {
        snprintf(name, sizeof name, "service/q%d", i);
        assert_ptr_equal(random_get(&s, name), first[i]);
    }
    uint64_t lookups = N + (N + 6) / 7;
    /* linear probing at a load of at most 1/2: some 2.5 a lookup on average,
     * rebuilds included; a scan would be N / 2 */
    assert_true(s.probes < 8 * lookups);
    assert_true(random_is_shared(&s, first[0]));
    assert_false(random_is_shared(&s, first[1]));
    assert_int_equal(s.n, N);
    free(first);
    random_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_name_same_numbers_whatever_else_exists),
        cmocka_unit_test(names_and_seeds_separate_streams),
        cmocka_unit_test(uniform_pos_is_gsl_s),
        cmocka_unit_test(knob_draws_only_for_a_distribution),
        cmocka_unit_test(knob_schedule_of_distributions),
        cmocka_unit_test(shared_when_handed_out_twice),
        cmocka_unit_test(poisson_gaps_ahead_are_the_same_gaps),
        cmocka_unit_test(many_streams_found_in_few_probes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
