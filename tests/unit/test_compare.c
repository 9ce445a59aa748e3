/* test_compare.c -- the metrics of `lsim compare` on small hand-made runs
 * whose answers are known, and the fits of `lsim fit` on samples drawn
 * from known distributions. */
#include "testutil.h"

#include <gsl/gsl_randist.h>
#include <math.h>

#include "analysis/compare.h"
#include "analysis/fit.h"

static void msg(run_data *rd, double pub, double begin, double end, int group, int node, int cons)
{
    rd->msgs = xrealloc(rd->msgs, (rd->nmsgs + 1) * sizeof *rd->msgs);
    rd->msgs[rd->nmsgs++] = (td_msg){ pub, begin, end, group, node, cons, NULL, NAN };
}

static void consumer(run_data *rd, int node, int cons, double start, double stop)
{
    rd->cons = xrealloc(rd->cons, (rd->ncons + 1) * sizeof *rd->cons);
    rd->cons[rd->ncons++] = (td_consumer){ node, cons, start, stop };
}

static void one_node(run_data *rd, double end)
{
    memset(rd, 0, sizeof *rd);
    rd->nodes = xcalloc(1, sizeof *rd->nodes);
    rd->nodes[0] = xstrdup("node-1");
    rd->nnodes = 1;
    rd->end_ms = end;
}

static const cmp_metric *find(const cmp_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->m[i].name, name) == 0)
            return &r->m[i];
    fail_msg("no metric %s", name);
    return NULL;
}

/* Real: 1 consumer, a second from 100 to 300 ms.  Sim: the second starts
 * at 130 ms and never stops.  Over 1000 ms: |diff| is 1 for 30 ms and for
 * 700 ms, mean 0.73. */
static void consumer_counts_and_scale_events(void **state)
{
    (void)state;
    run_data real, sim;
    one_node(&real, 1000);
    one_node(&sim, 1000);
    consumer(&real, 0, 0, 0, NAN);
    consumer(&real, 0, 1, 100, 300);
    consumer(&sim, 0, 0, 0, NAN);
    consumer(&sim, 0, 1, 130, NAN);
    cmp_result r;
    compare_runs(&sim, &real, NULL, 0, &r);
    assert_true(fabs(find(&r, "consumers_mean_abs_diff")->diff - 0.73) < 1e-12);
    assert_true(find(&r, "consumers_max_abs_diff")->diff == 1);
    assert_true(find(&r, "consumer_start_max_abs_ms")->diff == 30);
    assert_true(find(&r, "consumer_start_count_diff")->diff == 0);
    assert_true(find(&r, "consumer_stop_count_diff")->diff == 1);
    assert_int_equal(find(&r, "consumers_mean_abs_diff")->verdict, VERDICT_OUTSIDE);
    assert_int_equal(find(&r, "consumer_start_max_abs_ms")->verdict, VERDICT_OK);
    assert_false(r.pass);
    compare_result_free(&r);
    /* A tolerance of the user's turns the verdict. */
    cmp_tolerance t = { "consumers_mean_abs_diff", 0.8, false };
    cmp_tolerance t2 = { "consumer_stop_count_diff", 1, false };
    cmp_tolerance both[2] = { t, t2 };
    compare_runs(&sim, &real, both, 2, &r);
    assert_int_equal(find(&r, "consumers_mean_abs_diff")->verdict, VERDICT_OK);
    assert_true(r.pass);
    compare_result_free(&r);
    run_data_free(&real);
    run_data_free(&sim);
}

/* Real: 21 and 19 messages on two consumers; sim: 20 and 20.  The worst
 * consumer is one message off in 19 (0.0526): outside 0.05, inside the
 * default's floor of one message in the least busy real consumer; two
 * messages off is outside it, and a tolerance given is taken as given. */
static void consumer_counts_one_message_off(void **state)
{
    (void)state;
    run_data real, sim, two_off;
    one_node(&real, 1000);
    one_node(&sim, 1000);
    one_node(&two_off, 1000);
    for (int k = 0; k < 40; k++) {
        msg(&real, k, k + 1, k + 2, -1, 0, k < 21 ? 0 : 1);
        msg(&sim, k, k + 1, k + 2, -1, 0, k < 20 ? 0 : 1);
        msg(&two_off, k, k + 1, k + 2, -1, 0, k < 23 ? 0 : 1);
    }
    run_data *all[] = { &real, &sim, &two_off };
    for (int k = 0; k < 3; k++) {
        consumer(all[k], 0, 0, 0, NAN);
        consumer(all[k], 0, 1, 0, NAN);
    }
    cmp_result r;
    compare_runs(&sim, &real, NULL, 0, &r);
    const cmp_metric *m = find(&r, "consumer_counts_max_rel_error");
    assert_true(fabs(m->diff - 1.0 / 19) < 1e-12);
    assert_true(fabs(m->tolerance - 1.0 / 19) < 1e-12);
    assert_int_equal(m->verdict, VERDICT_OK);
    compare_result_free(&r);
    compare_runs(&two_off, &real, NULL, 0, &r);
    m = find(&r, "consumer_counts_max_rel_error");
    assert_true(fabs(m->diff - 2.0 / 19) < 1e-12);
    assert_int_equal(m->verdict, VERDICT_OUTSIDE);
    compare_result_free(&r);
    cmp_tolerance strict = { "consumer_counts_max_rel_error", 0.05, false };
    compare_runs(&sim, &real, &strict, 1, &r);
    m = find(&r, "consumer_counts_max_rel_error");
    assert_true(m->tolerance == 0.05);
    assert_int_equal(m->verdict, VERDICT_OUTSIDE);
    compare_result_free(&r);
    /* the default as --noise widens it (to 0.05: two real runs that agree)
     * keeps the floor of this comparison's own counts */
    cmp_tolerance widened = { "consumer_counts_max_rel_error", 0.05, true };
    compare_runs(&sim, &real, &widened, 1, &r);
    m = find(&r, "consumer_counts_max_rel_error");
    assert_true(fabs(m->tolerance - 1.0 / 19) < 1e-12);
    assert_int_equal(m->verdict, VERDICT_OK);
    compare_result_free(&r);
    run_data_free(&real);
    run_data_free(&sim);
    run_data_free(&two_off);
}

/* Groups A, B on consumer 0 and C, D on consumer 1 in one run; in the other
 * the same split with the consumers swapped: the same partition (ARI 1).
 * Moving D to the first consumer makes it a different one. */
static void group_partition_ignores_numbering(void **state)
{
    (void)state;
    run_data real, sim;
    one_node(&real, 100);
    one_node(&sim, 100);
    int groups_r[] = { 0, 0, 1, 1 }, groups_s[] = { 1, 1, 0, 0 };
    for (int g = 0; g < 4; g++) {
        msg(&real, g, g + 1, g + 2, g, 0, groups_r[g]);
        msg(&sim, g, g + 1, g + 2, g, 0, groups_s[g]);
    }
    consumer(&real, 0, 0, 0, NAN);
    consumer(&real, 0, 1, 0, NAN);
    consumer(&sim, 0, 0, 0, NAN);
    consumer(&sim, 0, 1, 0, NAN);
    cmp_result r;
    compare_runs(&sim, &real, NULL, 0, &r);
    assert_true(find(&r, "group_partition_disagreement")->diff == 0);
    assert_true(find(&r, "consumer_counts_max_rel_error")->diff == 0);
    compare_result_free(&r);
    sim.msgs[3].consumer = 1 - sim.msgs[3].consumer;   /* D moves */
    compare_runs(&sim, &real, NULL, 0, &r);
    /* {A,B},{C,D} against {A,B,D},{C}: index 1, expected 2 * 3 / 6 = 1,
     * maximum 2.5: ARI 0, a disagreement of 1. */
    assert_true(fabs(find(&r, "group_partition_disagreement")->diff - 1.0) < 1e-12);
    assert_true(fabs(find(&r, "consumer_counts_max_rel_error")->diff - 0.5) < 1e-12);
    compare_result_free(&r);
    run_data_free(&real);
    run_data_free(&sim);
}

/* Latencies 1..100 ms against 2..101 ms: quantiles shift by one; the KS
 * distance is 1/100. */
static void latency_quantiles_and_ks(void **state)
{
    (void)state;
    run_data real, sim;
    one_node(&real, 1000);
    one_node(&sim, 1000);
    for (int i = 1; i <= 100; i++) {
        msg(&real, 0, 0, i, -1, 0, 0);
        msg(&sim, 0, 0, i + 1, -1, 0, 0);
    }
    consumer(&real, 0, 0, 0, NAN);
    consumer(&sim, 0, 0, 0, NAN);
    cmp_result r;
    compare_runs(&sim, &real, NULL, 0, &r);
    const cmp_metric *p50 = find(&r, "p50_latency_rel_error");
    assert_true(p50->real == 50.5 && p50->sim == 51.5);
    assert_true(fabs(p50->diff - 1 / 50.5) < 1e-12);
    assert_true(fabs(find(&r, "latency_ks")->diff - 0.01) < 1e-12);
    /* one message began before an earlier one ended in neither run */
    assert_true(find(&r, "order_violations_diff")->sim == 99);
    compare_result_free(&r);
    run_data_free(&real);
    run_data_free(&sim);
}

/* The message metrics count the real observation [0, T] on both sides.
 * A trace whose shutdown (T = 100 ms) comes before its last end goes on:
 * m2 ends at 150 ms, m4 is published, begun and ended after T.  A run cut
 * at T has m2 unfinished and no m4; a run that goes on has what the trace
 * has.  Against either, the trace is at distance zero: 2 completed each
 * (m1, m3), the same latencies and counts per consumer, one violation (m3
 * begins while m2, of its group, runs). */
static void messages_counted_until_the_observation_end(void **state)
{
    (void)state;
    run_data real, cut, longer;
    one_node(&real, 100);
    one_node(&cut, 100);
    one_node(&longer, 200);
    run_data *all[] = { &real, &cut, &longer };
    for (int k = 0; k < 3; k++) {
        run_data *rd = all[k];
        msg(rd, 0, 10, 50, -1, 0, 0);
        msg(rd, 0, 20, rd == &cut ? NAN : 150, 0, 0, 1);
        msg(rd, 1, 90, 95, 0, 0, 0);
        if (rd != &cut)
            msg(rd, 110, 120, 130, 0, 0, 0);
        consumer(rd, 0, 0, 0, NAN);
        consumer(rd, 0, 1, 0, NAN);
    }
    const char *zero[] = { "p50_latency_rel_error", "p99_latency_rel_error", "latency_ks",
                           "p99_wait_rel_error", "wait_ks", "consumer_counts_max_rel_error",
                           "order_violations_diff", "completed_diff" };
    const run_data *sims[] = { &cut, &longer };
    for (int k = 0; k < 2; k++) {
        cmp_result r;
        compare_runs(sims[k], &real, NULL, 0, &r);
        for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
            if (find(&r, zero[i])->diff != 0)
                fail_msg("%s against the %s run: %g", zero[i], k ? "longer" : "cut",
                         find(&r, zero[i])->diff);
        assert_true(find(&r, "completed_diff")->real == 2 && find(&r, "completed_diff")->sim == 2);
        assert_true(find(&r, "order_violations_diff")->real == 1);
        assert_true(find(&r, "consumer_counts_max_rel_error")->real == 2);
        compare_result_free(&r);
    }
    run_data_free(&real);
    run_data_free(&cut);
    run_data_free(&longer);
}

/* 20000 draws from gamma(shape 4), lognormal(sigma 0.5) and exponential:
 * AIC picks the law they came from, with parameters within 3 %. */
static void service_fits_pick_the_right_law(void **state)
{
    (void)state;
    enum { N = 20000 };
    double *x = xmalloc(N * sizeof *x);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    fit_dist f[4];
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_gamma(r, 4.0, 25.0);        /* mean 100 ms, cv 0.5 */
    fit_service(x, N, f);
    assert_string_equal(f[0].kind, "gamma");
    assert_true(fabs(f[0].mean_ms - 100) < 3 && fabs(f[0].cv - 0.5) < 0.015);
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_lognormal(r, log(50.0), 0.5);
    fit_service(x, N, f);
    assert_string_equal(f[0].kind, "lognormal");
    assert_true(fabs(f[0].sigma - 0.5) < 0.015);
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_exponential(r, 20.0);
    fit_service(x, N, f);
    assert_string_equal(f[0].kind, "exponential");
    assert_true(fabs(f[0].mean_ms - 20) < 0.6);
    for (int i = 0; i < N; i++)
        x[i] = 100.0 + 0.001 * (i % 7);
    fit_service(x, N, f);
    assert_string_equal(f[0].kind, "constant");
    gsl_rng_free(r);
    free(x);
}

/* Frequencies exactly proportional to 1/k^1.2 give s = 1.2 back. */
static void zipf_exponent_recovered(void **state)
{
    (void)state;
    double c[20];
    for (int k = 1; k <= 20; k++)
        c[k - 1] = 1e6 * pow(k, -1.2);
    assert_true(fabs(fit_zipf(c, 20) - 1.2) < 1e-3);
    double flat[5] = { 10, 10, 10, 10, 10 };
    assert_true(fit_zipf(flat, 5) < 0.05);
}

/* Consumers grouped by node: each node's in rd->cons order, those of no
 * node in range (or refused) left out. */
static const int ctx_seen = 1;

static bool stopped(const void *ctx, const td_consumer *c)
{
    assert_ptr_equal(ctx, &ctx_seen);
    return !isnan(c->t_stop);
}

static void consumers_grouped_by_node(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd, 1000);
    consumer(&rd, 1, 0, 0, NAN);
    consumer(&rd, 0, 0, 0, 50);
    consumer(&rd, 2, 0, 0, NAN);
    consumer(&rd, 0, 1, 10, NAN);
    consumer(&rd, -1, 0, 0, 20);
    consumer(&rd, 5, 0, 0, NAN);
    consumer(&rd, 1, 1, 20, 70);
    td_by_node bn;
    td_by_node_init(&bn, &rd, 3, NULL, NULL);
    const size_t at[] = { 0, 2, 4, 5 }, idx[] = { 1, 3, 0, 6, 2 };
    assert_int_equal(bn.nodes, 3);
    for (int k = 0; k <= 3; k++)
        assert_int_equal(bn.at[k], at[k]);
    for (size_t j = 0; j < 5; j++)
        assert_int_equal(bn.idx[j], idx[j]);
    td_by_node_free(&bn);
    td_by_node_init(&bn, &rd, 3, stopped, &ctx_seen);
    const size_t at2[] = { 0, 1, 2, 2 }, idx2[] = { 1, 6 };
    for (int k = 0; k <= 3; k++)
        assert_int_equal(bn.at[k], at2[k]);
    for (size_t j = 0; j < 2; j++)
        assert_int_equal(bn.idx[j], idx2[j]);
    td_by_node_free(&bn);
    td_by_node_init(&bn, &rd, 0, NULL, NULL);
    assert_int_equal(bn.at[0], 0);
    td_by_node_free(&bn);
    run_data_free(&rd);
}

static const char *no_meta(const void *src, const char *key)
{
    (void)src;
    (void)key;
    return NULL;
}

/* fit's concurrency is per node, each node's own consumers: node 0 starts
 * with two; node 1 with one, then has three at once (from 600 ms, and from
 * 700 ms after one stopped at 650 ms).  Counted together they would be
 * three at the start and five at once. */
static void fit_concurrency_per_node(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd, 1000);
    rd.nodes = xrealloc(rd.nodes, 2 * sizeof *rd.nodes);
    rd.nodes[1] = xstrdup("node-2");
    rd.nnodes = 2;
    consumer(&rd, 1, 0, 0, NAN);
    consumer(&rd, 0, 0, 0, NAN);
    consumer(&rd, 1, 1, 500, 650);
    consumer(&rd, 0, 1, 0, NAN);
    consumer(&rd, 1, 2, 600, NAN);
    consumer(&rd, 1, 3, 700, NAN);
    name_table groups;
    names_init(&groups);
    char *yaml = fit_scenario("t.csv", &rd, &groups, no_meta, NULL);
    assert_non_null(strstr(yaml, "\nnodes: 2\n# consumers per node: 2 at the start, at most 3 "
                                 "at once\n"));
    assert_non_null(strstr(yaml, "container: { kind: competing, workers: 3 }\n"));
    free(yaml);
    names_fini(&groups);
    run_data_free(&rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(consumer_counts_and_scale_events),
        cmocka_unit_test(consumer_counts_one_message_off),
        cmocka_unit_test(group_partition_ignores_numbering),
        cmocka_unit_test(latency_quantiles_and_ks),
        cmocka_unit_test(messages_counted_until_the_observation_end),
        cmocka_unit_test(service_fits_pick_the_right_law),
        cmocka_unit_test(zipf_exponent_recovered),
        cmocka_unit_test(consumers_grouped_by_node),
        cmocka_unit_test(fit_concurrency_per_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
