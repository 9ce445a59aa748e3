/* test_stats.c -- histogram quantiles, time-weighted levels and the
 * t-based confidence interval. */
#include "testutil.h"

#include <math.h>

#include "engine/stats.h"

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

/* The bucket of v as the histogram first defined it: exact below 2048, then
 * 1024 buckets an octave. */
static size_t bucket_by_definition(uint64_t u)
{
    if (u < HIST_LINEAR)
        return (size_t)u;
    int msb = 63 - __builtin_clzll(u);
    int shift = msb - 10;
    return HIST_LINEAR + (size_t)(shift - 1) * HIST_HALF + (size_t)((u >> shift) - HIST_HALF);
}

/* hist_bucket_of computes it without a branch: the same bucket for every
 * value, at the edges of every octave and anywhere in between. */
static void bucket_index_is_the_definition(void **state)
{
    (void)state;
    for (uint64_t u = 0; u < 10000; u++)
        assert_int_equal(hist_bucket_of((int64_t)u), bucket_by_definition(u));
    for (int k = 11; k < 63; k++)
        for (int64_t d = -3; d <= 3; d++) {
            uint64_t u = (1ULL << k) + (uint64_t)d;
            assert_int_equal(hist_bucket_of((int64_t)u), bucket_by_definition(u));
        }
    assert_int_equal(hist_bucket_of(INT64_MAX), bucket_by_definition(INT64_MAX));
    assert_true(hist_bucket_of(INT64_MAX) < HIST_BUCKETS);
    uint64_t x = 7;
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t u = (x >> 1) >> (x % 61);             /* every magnitude */
        assert_int_equal(hist_bucket_of((int64_t)u), bucket_by_definition(u));
    }
}

/* A level's integral (value x T - the sum of delta x time) is the piecewise
 * sum of value x time exactly, and its max the highest value reached. */
static void level_integral_is_the_piecewise_sum(void **state)
{
    (void)state;
    level l = { 0 };
    __int128 area = 0;
    int64_t value = 0, max = 0, t = 0, since = 0;
    uint64_t x = 11;
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        t += (int64_t)(x >> 40);                        /* up to 2^24 ns a step */
        int64_t delta = (int64_t)((x >> 20) % 7) - 3;   /* -3 .. +3 */
        if (value + delta < 0)
            delta = -delta;
        area += (__int128)value * (t - since);
        since = t;
        value += delta;
        if (value > max)
            max = value;
        if (delta == 1 && i % 2)
            level_up(&l, t);
        else if (delta == -1 && i % 2)
            level_down(&l, t);
        else
            level_change(&l, t, delta);
    }
    int64_t end = t + 12345;
    assert_true(level_area(&l, end) == (double)(area + (__int128)value * (end - since)));
    assert_int_equal(l.value, value);
    assert_int_equal(l.max, max);
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
        cmocka_unit_test(bucket_index_is_the_definition),
        cmocka_unit_test(level_integral_is_the_piecewise_sum),
        cmocka_unit_test(t_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
