/* test_queueing.c -- the engine against queueing theory.
 *
 * Independent replications (seeds 1..R) of a steady-state run each give
 * one estimate; the 95 % t-interval of their mean must cover the exact
 * value, and must be narrow enough that a wrong engine would miss it (the
 * half-width is asserted too, so the test cannot pass by being vague).
 *
 *   M/M/8, rho 0.5, 0.8, 0.9: mean wait against Erlang C.
 *   M/D/1, rho 0.8: mean wait against Pollaczek-Khinchine.
 *   M/M/1, rho 0.5: the 99th percentile of the time in system, which is
 *   exponential with rate mu - lambda, so p99 = ln(100) / (mu - lambda).
 */
#include "testutil.h"

#include <math.h>

#include "engine/stats.h"

enum { REPS = 20, MESSAGES = 200000 };

static double erlang_c(int c, double a)
{
    double sum = 0, term = 1;
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);              /* a^c/c! * c/(c-a) */
    return top / (sum + top);
}

/* The replications' estimates of `metric` (ms) for the scenario below. */
static ci replicate(const char *arrivals, const char *service, int workers, const char *name)
{
    double x[REPS];
    for (int r = 0; r < REPS; r++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: queueing\nseed: %d\nwarmup: 2000s\n"
                 "queue: { count: %d, arrivals: %s, service: %s }\n"
                 "container: { kind: competing, workers: %d }\n",
                 r + 1, MESSAGES, arrivals, service, workers);
        cfg_doc doc;
        run *run_ = tu_run(yaml, NULL, SIM_DETAIL_SUMMARY, &doc);
        x[r] = tu_metric(run_, name);
        tu_done(run_, &doc);
    }
    return stats_ci(x, REPS, 0.95);
}

static void check(const char *what, ci got, double expect_ms, double max_rel_half)
{
    print_message("%s: %.2f ms +- %.2f (expected %.2f)\n", what, got.mean, got.half, expect_ms);
    assert_true(fabs(got.mean - expect_ms) <= got.half);
    assert_true(got.half <= max_rel_half * expect_ms);
}

static void mm8_mean_wait_is_erlang_c(void **state)
{
    (void)state;
    const double rhos[] = { 0.5, 0.8, 0.9 };
    for (size_t i = 0; i < 3; i++) {
        double lambda = 8 * rhos[i];
        double wq_ms = erlang_c(8, lambda) / (8.0 - lambda) * 1000.0;
        char arrivals[64], what[32];
        snprintf(arrivals, sizeof arrivals, "{ kind: poisson, rate: %.1f/s }", lambda);
        snprintf(what, sizeof what, "M/M/8 rho %.1f", rhos[i]);
        check(what, replicate(arrivals, "{ kind: exponential, mean: 1s }", 8, "mean_wait_ms"),
              wq_ms, 0.08);
    }
}

static void md1_mean_wait_is_pollaczek_khinchine(void **state)
{
    (void)state;
    double rho = 0.8, s = 1.0;
    double wq_ms = rho * s / (2 * (1 - rho)) * 1000.0;   /* lambda E[S^2] / (2(1-rho)) */
    check("M/D/1 rho 0.8", replicate("{ kind: poisson, rate: 0.8/s }",
                                     "{ kind: constant, value: 1s }", 1, "mean_wait_ms"),
          wq_ms, 0.08);
}

static void mm1_p99_time_in_system(void **state)
{
    (void)state;
    double p99_ms = log(100.0) / (1.0 - 0.5) * 1000.0;
    check("M/M/1 p99 latency", replicate("{ kind: poisson, rate: 0.5/s }",
                                         "{ kind: exponential, mean: 1s }", 1, "p99_latency_ms"),
          p99_ms, 0.03);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mm8_mean_wait_is_erlang_c),
        cmocka_unit_test(md1_mean_wait_is_pollaczek_khinchine),
        cmocka_unit_test(mm1_p99_time_in_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
