/* stats.c -- histogram, time-weighted levels, confidence intervals. */
#include "stats.h"
#include "mem.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bucket of v: exact below HIST_LINEAR, then HIST_HALF buckets per octave. */
static inline size_t bucket_of(int64_t v)
{
    uint64_t u = (uint64_t)v;
    if (u < HIST_LINEAR)
        return (size_t)u;
    int msb = 63 - __builtin_clzll(u);          /* >= 11 */
    int shift = msb - 10;                        /* top 11 bits kept */
    uint64_t top = u >> shift;                   /* in [1024, 2047] */
    return HIST_LINEAR + (size_t)(shift - 1) * HIST_HALF + (size_t)(top - HIST_HALF);
}

void hist_init(histogram *h)
{
    memset(h, 0, sizeof *h);
    h->min = INT64_MAX;
}

void hist_fini(histogram *h)
{
    free(h->b);
    hist_init(h);
}

void hist_add(histogram *h, int64_t v)
{
    if (v < 0)
        v = 0;
    if (!h->b)
        h->b = xcalloc(HIST_BUCKETS, sizeof *h->b);
    hist_bucket *b = &h->b[bucket_of(v)];
    b->count++;
    b->sum += (double)v;
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

void hist_merge(histogram *into, const histogram *from)
{
    if (!from->count)
        return;
    if (!into->b)
        into->b = xcalloc(HIST_BUCKETS, sizeof *into->b);
    for (size_t b = 0; b < HIST_BUCKETS; b++) {
        into->b[b].count += from->b[b].count;
        into->b[b].sum += from->b[b].sum;
    }
    into->count += from->count;
    into->sum += from->sum;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
}

double hist_mean(const histogram *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_quantile(const histogram *h, double q)
{
    if (!h->count)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->count);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    for (size_t b = 0; b < HIST_BUCKETS; b++) {
        seen += h->b[b].count;
        if (seen >= rank) {
            double v = h->b[b].sum / (double)h->b[b].count;
            if (v < (double)h->min)
                v = (double)h->min;
            if (v > (double)h->max)
                v = (double)h->max;
            return v;
        }
    }
    return (double)h->max;
}

void level_change(level *l, int64_t now, int64_t delta)
{
    l->area += (__int128)l->value * (now - l->since);
    l->since = now;
    l->value += delta;
    if (l->value > l->max)
        l->max = l->value;
}

double level_area(const level *l, int64_t now)
{
    return (double)(l->area + (__int128)l->value * (now - l->since));
}

ci stats_ci(const double *x, size_t n, double confidence)
{
    ci r = { .n = n };
    if (n == 0)
        return r;
    r.mean = gsl_stats_mean(x, 1, n);
    if (n < 2)
        return r;
    r.sd = gsl_stats_sd_m(x, 1, n, r.mean);
    double t = gsl_cdf_tdist_Pinv(0.5 + confidence / 2.0, (double)(n - 1));
    r.half = t * r.sd / sqrt((double)n);
    return r;
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    return n ? gsl_stats_quantile_from_sorted_data(sorted, 1, n, q) : 0.0;
}
