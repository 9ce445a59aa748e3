/* stats.h -- statistics: a log-linear histogram for latencies, time-weighted
 * levels, and means with t-based confidence intervals (GSL).
 *
 * The histogram keeps memory fixed however many values it sees: values
 * below 2048 ns are counted exactly, larger ones in buckets 1/1024 of an
 * octave wide, so a quantile is within 0.1 % of the true one.  Each bucket
 * also keeps the sum of its values, and a quantile reports the mean of its
 * bucket: when all the values in a bucket are equal (constant service
 * times) the answer is exact.  A bucket's count and sum sit side by side,
 * so adding a value touches one cache line, not two.
 *
 * The buckets a run touches are spread over a few hundred kilobytes, past
 * the first-level cache, so adding a value would wait on memory: instead
 * hist_add fetches the value's bucket ahead and adds the previous value
 * to its (by now fetched) bucket.  Each bucket still sees its values in
 * the order they came, so its sum is the same to the last bit; the one
 * value still pending counts wherever the buckets are read.  Until the
 * first value, `pending` is a spare bucket past the end that nothing reads,
 * so adding never tests for it.
 */
#ifndef LSIM_SIM_STATS_H
#define LSIM_SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#define HIST_LINEAR  2048
#define HIST_HALF    1024
#define HIST_BUCKETS (HIST_LINEAR + 52 * HIST_HALF)

typedef struct hist_bucket {
    uint64_t count;
    double sum;
} hist_bucket;

typedef struct histogram {
    uint64_t count;
    __int128 sum;                  /* exact: the mean is exact too */
    int64_t min, max;
    hist_bucket *b;                /* HIST_BUCKETS and the spare (hist_init) */
    hist_bucket *pending;          /* the last value's bucket, or the spare */
    double pending_v;              /* the last value, not yet in its bucket */
} histogram;

/* Allocates the buckets (zero pages until a value touches them). */
void hist_init(histogram *h);
void hist_fini(histogram *h);

/* Bucket of v >= 0: exact below HIST_LINEAR, then HIST_HALF buckets per
 * octave.  v of 2^k..2^(k+1)-1 (k >= 11) keeps its top 11 bits, v >> s
 * with s = k - 10, in bucket HIST_LINEAR + (s - 1) HIST_HALF + (v >> s) -
 * HIST_HALF = s HIST_HALF + (v >> s); with s = 0 that is v itself, which
 * covers the values below HIST_LINEAR too, so no branch. */
static inline size_t hist_bucket_of(int64_t v)
{
    uint64_t u = (uint64_t)v;
    int shift = (63 - __builtin_clzll(u | 1)) - 10;
    if (shift < 0)
        shift = 0;
    return ((size_t)shift << 10) + (size_t)(u >> shift);
}

/* Inline: two of them a message, in the hot path of every run. */
static inline void hist_add(histogram *h, int64_t v)   /* v < 0 counts as 0 */
{
    if (v < 0)
        v = 0;
    hist_bucket *b = &h->b[hist_bucket_of(v)];
    __builtin_prefetch(b, 1);
    h->pending->count++;
    h->pending->sum += h->pending_v;
    h->pending = b;
    h->pending_v = (double)v;
    h->count++;
    h->sum += (unsigned __int128)(uint64_t)v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}
double hist_mean(const histogram *h);
/* The q-quantile (0 < q <= 1) by nearest rank; 0 when empty. */
double hist_quantile(const histogram *h, double q);

/* A level over time (consumers alive, busy listeners): its integral and max.
 *
 * The integral up to T of a level changed by d_j at times t_j is
 * sum d_j (T - t_j) = value T - sum d_j t_j, so a change adds d_j t_j to
 * one exact sum and needs no multiplication: the same integer as summing
 * value x (t_j+1 - t_j) piece by piece.  The max cannot rise when the
 * level falls (max >= value always holds), so a fall does not look at it. */
typedef struct level {
    int64_t value, max;
    __int128 dt_sum;               /* sum of delta x time over the changes, value x ns */
} level;

/* Times are virtual nanoseconds from 0, never negative. */
static inline void level_change(level *l, int64_t now, int64_t delta)
{
    l->value += delta;
    l->dt_sum += (__int128)delta * now;
    if (delta > 0 && l->value > l->max)
        l->max = l->value;
}
static inline void level_up(level *l, int64_t now)
{
    l->value++;
    l->dt_sum += (unsigned __int128)(uint64_t)now;
    if (l->value > l->max)
        l->max = l->value;
}
static inline void level_down(level *l, int64_t now)
{
    l->value--;
    l->dt_sum -= (unsigned __int128)(uint64_t)now;
}
/* level_up and level_down at one instant: the integral is the same (the
 * two changes of dt_sum cancel exactly), the peak sees the level one
 * higher for that instant. */
static inline void level_blip(level *l)
{
    if (l->value + 1 > l->max)
        l->max = l->value + 1;
}
/* The integral up to `now` (at or after the last change), in value x ns. */
static inline double level_area(const level *l, int64_t now)
{
    return (double)((__int128)l->value * now - l->dt_sum);
}

/* A count whose peak alone is kept (no integral). */
typedef struct level_peak {
    int64_t value, max;
} level_peak;

static inline void peak_change(level_peak *p, int64_t delta)
{
    p->value += delta;
    if (delta > 0 && p->value > p->max)
        p->max = p->value;
}

/* Mean, sample standard deviation and the half-width of the two-sided
 * confidence interval at `confidence` (0.95) from Student's t. */
typedef struct ci {
    double mean, sd, half;
    size_t n;
} ci;

ci stats_ci(const double *x, size_t n, double confidence);
/* The q-quantile of sorted data (GSL's definition, linear interpolation). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* qsort's comparators for doubles, ascending and descending (no NaN among
 * them). */
int stats_cmp_double(const void *a, const void *b);
int stats_cmp_double_desc(const void *a, const void *b);

#endif
