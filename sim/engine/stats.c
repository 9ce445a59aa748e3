/* stats.c -- histogram, time-weighted levels, confidence intervals. */
#include "engine/stats.h"
#include "base/mem.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void hist_init(histogram *h)
{
    memset(h, 0, sizeof *h);
    h->min = INT64_MAX;
    h->b = xcalloc(HIST_BUCKETS + 1, sizeof *h->b);
    h->pending = &h->b[HIST_BUCKETS];       /* the spare: no value pending */
}

void hist_fini(histogram *h)
{
    free(h->b);
    memset(h, 0, sizeof *h);
}

/* Bucket i of h with the pending value in it, as if it had been added. */
static inline hist_bucket settled(const histogram *h, size_t i)
{
    hist_bucket b = h->b[i];
    if (h->pending == &h->b[i]) {
        b.count++;
        b.sum += h->pending_v;
    }
    return b;
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
        hist_bucket x = settled(h, b);
        seen += x.count;
        if (seen >= rank) {
            double v = x.sum / (double)x.count;
            if (v < (double)h->min)
                v = (double)h->min;
            if (v > (double)h->max)
                v = (double)h->max;
            return v;
        }
    }
    return (double)h->max;
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

int stats_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int stats_cmp_double_desc(const void *a, const void *b)
{
    return stats_cmp_double(b, a);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    return n ? gsl_stats_quantile_from_sorted_data(sorted, 1, n, q) : 0.0;
}
