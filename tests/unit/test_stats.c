/* test_stats.c -- histogram quantiles, time-weighted levels and the
 * t-based confidence interval. */
#include "testutil.h"

#include <math.h>

#include "stats.h"

static void exact_below_2048_and_for_equal_values(void **state)
{
    (void)state;
    histogram h;
    hist_init(&h);
    for (int v = 1; v <= 1000; v++)
        hist_add(&h, v);
    assert_true(hist_quantile(&h, 0.5) == 500.0);
    assert_true(hist_quantile(&h, 0.99) == 990.0);
    assert_true(hist_quantile(&h, 1.0) == 1000.0);
    assert_true(hist_mean(&h) == 500.5);
    hist_fini(&h);
    /* 100 ms constant: one bucket, and the quantile is the value itself. */
    hist_init(&h);
    for (int i = 0; i < 10; i++)
        hist_add(&h, 100000000);
    assert_true(hist_quantile(&h, 0.5) == 100000000.0);
    assert_true(hist_quantile(&h, 0.99) == 100000000.0);
    hist_fini(&h);
}

/* Large values: within 0.1 % of the true nearest-rank quantile. */
static void relative_error_below_a_thousandth(void **state)
{
    (void)state;
    histogram h;
    hist_init(&h);
    enum { N = 100000 };
    int64_t *v = xmalloc(N * sizeof *v);
    uint64_t x = 99;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        v[i] = (int64_t)(x >> 20);                  /* up to 2^44 */
        hist_add(&h, v[i]);
    }
    /* sort for the truth */
    for (int gap = N / 2; gap > 0; gap /= 2)
        for (int i = gap; i < N; i++)
            for (int j = i; j >= gap && v[j - gap] > v[j]; j -= gap) {
                int64_t t = v[j];
                v[j] = v[j - gap];
                v[j - gap] = t;
            }
    const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999 };
    for (size_t i = 0; i < 5; i++) {
        double truth = (double)v[(size_t)ceil(qs[i] * N) - 1];
        assert_true(fabs(hist_quantile(&h, qs[i]) - truth) <= truth * 1e-3);
    }
    free(v);
    hist_fini(&h);
}

static void level_integrates_over_time(void **state)
{
    (void)state;
    level l = { 0 };
    level_change(&l, 0, +2);
    level_change(&l, 10, +1);
    level_change(&l, 20, -3);
    assert_true(level_area(&l, 30) == 2 * 10 + 3 * 10);
    assert_int_equal(l.max, 3);
}

static void t_interval(void **state)
{
    (void)state;
    const double x[] = { 1, 2, 3, 4, 5 };
    ci c = stats_ci(x, 5, 0.95);
    assert_true(c.mean == 3.0);
    /* sd = sqrt(2.5); t(0.975, 4) = 2.776445 */
    assert_true(fabs(c.half - 2.776445105 * sqrt(2.5) / sqrt(5.0)) < 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_below_2048_and_for_equal_values),
        cmocka_unit_test(relative_error_below_a_thousandth),
        cmocka_unit_test(level_integrates_over_time),
        cmocka_unit_test(t_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
