/* compare_band.c -- prediction bands over replications (`lsim compare
 * --reps N`, compare.h).
 *
 * One deterministic replay cannot be within a real system's own
 * run-to-run noise where the outcome is a knife edge (a check just before
 * or just after "last start + interval").  N replications with seeds
 * S, S+1, ... (the knobs' distributions drawn anew) give each simulated
 * figure a band, the prediction interval of a new outcome from the N
 * values (compare_band_of); a real figure inside it is a plausible outcome
 * of the model.  Replication 0 is the single run compare makes without --reps.
 */
#include "base/stop_signals.h"
#include "analysis/compare.h"
#include "base/mem.h"
#include "engine/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A distribution-free prediction interval: the j-th smallest and the j-th
 * largest of n values hold a new outcome with probability (n + 1 - 2j) /
 * (n + 1), so j = floor(0.025 (n + 1)), at least 1: the range for n < 79
 * (with 20 replications: 19 in 21), then 95 %. */
void compare_band_of(const double *sorted, size_t n, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n < 2)
        return;
    size_t j = (size_t)floor(0.025 * (double)(n + 1));
    if (j < 1)
        j = 1;
    *lo = sorted[j - 1];
    *hi = sorted[n - j];
}

/* One node's sorted start (or stop) times before the end, in each run:
 * sorted once, then read by k (a node of n consumers over R replications
 * is R n log n, not R n^2 log n). */
typedef struct times {
    double *t;
    size_t n;
} times;

static void event_bands(const run_data *sims, const td_by_node *sn, size_t reps,
                        const run_data *real, const td_by_node *rn, int node, bool stops,
                        cmp_bands *out)
{
    double T = real->end_ms, *v = xcalloc(reps + 1, sizeof *v);
    volatile const sig_atomic_t *stop = stop_interrupted();
    times rt, *st = xcalloc(reps + 1, sizeof *st);
    rt.t = cmp_event_times(real, rn, node, stops, T, &rt.n);
    size_t most = rt.n;
    for (size_t r = 0; r < reps; r++) {
        st[r].t = cmp_event_times(&sims[r], &sn[r], node, stops, T, &st[r].n);
        most = st[r].n > most ? st[r].n : most;
    }
    for (size_t k = 0; k < most && !*stop; k++) {
        size_t nv = 0;
        for (size_t r = 0; r < reps; r++)
            if (k < st[r].n)
                v[nv++] = st[r].t[k];
        qsort(v, nv, sizeof *v, stats_cmp_double);
        xgrow((void **)&out->ev, &out->cap, out->nev + 1, sizeof *out->ev);
        cmp_event_band *e = &out->ev[out->nev++];
        *e = (cmp_event_band){ .node = node, .k = (int)k, .is_stop = stops,
                               .real = k < rt.n ? rt.t[k] : NAN, .nsim = (int)nv };
        compare_band_of(v, nv, &e->lo, &e->hi);
        /* An event of one run and not of most others is outside: the
         * counts' own bands say how often it happens. */
        e->is_inside = !isnan(e->real) ? (e->real >= e->lo && e->real <= e->hi &&
                                          2 * (size_t)e->nsim >= reps)
                                       : 2 * (size_t)e->nsim < reps;
    }
    for (size_t r = 0; r < reps; r++)
        free(st[r].t);
    free(st);
    free(rt.t);
    free(v);
}

static bool events_inside(const cmp_bands *b, bool stops)
{
    for (size_t i = 0; i < b->nev; i++)
        if (b->ev[i].is_stop == stops && !b->ev[i].is_inside)
            return false;
    return true;
}

void compare_bands(cmp_result *results, const run_data *sims, size_t reps,
                   const run_data *real, cmp_bands *out)
{
    memset(out, 0, sizeof *out);
    int nodes = real->nnodes;
    for (size_t r = 0; r < reps; r++)
        nodes = sims[r].nnodes > nodes ? sims[r].nnodes : nodes;
    td_by_node rn, *sn = xcalloc(reps, sizeof *sn);
    td_by_node_init(&rn, real, nodes, NULL, NULL);
    for (size_t r = 0; r < reps; r++)
        td_by_node_init(&sn[r], &sims[r], nodes, NULL, NULL);
    volatile const sig_atomic_t *stop = stop_interrupted();
    for (int node = 0; node < nodes && !*stop; node++) {
        event_bands(sims, sn, reps, real, &rn, node, false, out);
        event_bands(sims, sn, reps, real, &rn, node, true, out);
    }
    for (size_t r = 0; r < reps; r++)
        td_by_node_free(&sn[r]);
    free(sn);
    td_by_node_free(&rn);
    cmp_result *r0 = &results[0];
    double *v = xcalloc(reps + 1, sizeof *v);
    r0->pass = true;
    for (size_t i = 0; i < r0->n; i++) {
        cmp_metric *m = &r0->m[i];
        size_t nv = 0;
        for (size_t r = 0; r < reps; r++)
            if (i < results[r].n && !isnan(results[r].m[i].sim) && !isinf(results[r].m[i].sim))
                v[nv++] = results[r].m[i].sim;
        qsort(v, nv, sizeof *v, stats_cmp_double);
        compare_band_of(v, nv, &m->band_lo, &m->band_hi);
        if (m->verdict == VERDICT_OUTSIDE) {
            bool inside;
            if (strcmp(m->name, "consumer_start_max_abs_ms") == 0)
                inside = events_inside(out, false);
            else if (strcmp(m->name, "consumer_stop_max_abs_ms") == 0)
                inside = events_inside(out, true);
            else
                inside = m->real >= m->band_lo && m->real <= m->band_hi;
            m->verdict = inside ? VERDICT_BAND : VERDICT_OUTSIDE;
        }
        if (m->verdict == VERDICT_OUTSIDE)
            r0->pass = false;
    }
    free(v);
}

void compare_bands_free(cmp_bands *b)
{
    free(b->ev);
    memset(b, 0, sizeof *b);
}
