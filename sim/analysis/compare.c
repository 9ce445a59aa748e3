/* compare.c -- the metrics of `lsim compare` (see compare.h).
 *
 * Consumer counts are step functions over [0, T], T the end of the real
 * observation (its shutdown, else observed_until, else its last event);
 * their difference is
 * integrated exactly between events.  The message metrics count the same
 * window on both sides: a begin or an end after T is not seen (a trace
 * may go on past its shutdown, a simulated run past T when the scenario's
 * duration is longer), so a message still running at T is unfinished in
 * both.  Quantiles are GSL's (linear
 * interpolation of the sorted values); the Kolmogorov-Smirnov distance is
 * the largest gap between the two empirical distribution functions.  The
 * group partition is each group's main consumer (the one that processed
 * most of its messages); two partitions are compared by the adjusted Rand
 * index, which does not care how consumers are numbered.
 *
 * Every part is O(n log n) in messages, consumers, nodes and groups (a
 * per-node pass reads only that node's consumers, through td_by_node), and
 * the parts poll the signal flag between them and per node: an interrupted
 * comparison ends early, and the caller, seeing the flag, keeps none of it.
 */
#include "base/stop_signals.h"
#include "analysis/compare.h"
#include "base/mem.h"
#include "engine/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const cmp_tolerance compare_defaults[] = {
    { "consumers_mean_abs_diff", 0.25, false },
    { "consumers_max_abs_diff", NAN, false },
    { "consumer_start_count_diff", 0, false },
    { "consumer_start_max_abs_ms", 50, false },
    { "consumer_stop_count_diff", 0, false },
    { "consumer_stop_max_abs_ms", 50, false },
    { "p50_latency_rel_error", 0.10, false },
    { "p90_latency_rel_error", 0.10, false },
    { "p99_latency_rel_error", 0.10, false },
    { "latency_ks", NAN, false },
    { "p50_wait_rel_error", NAN, false },
    { "p90_wait_rel_error", NAN, false },
    { "p99_wait_rel_error", NAN, false },
    { "wait_ks", NAN, false },
    { "consumer_counts_max_rel_error", 0.05, false },
    { "group_partition_disagreement", NAN, false },
    { "order_violations_diff", NAN, false },
    { "completed_diff", NAN, false },
    { NULL, 0, false },
};

bool compare_knows(const char *name)
{
    for (const cmp_tolerance *t = compare_defaults; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return true;
    return false;
}

static const cmp_tolerance *given(const char *name, const cmp_tolerance *tols, size_t ntols)
{
    for (size_t i = ntols; i-- > 0;)             /* the last one given wins */
        if (strcmp(tols[i].name, name) == 0)
            return &tols[i];
    return NULL;
}

static double tolerance_of(const char *name, const cmp_tolerance *tols, size_t ntols)
{
    const cmp_tolerance *g = given(name, tols, ntols);
    if (g)
        return g->value;
    for (const cmp_tolerance *t = compare_defaults; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t->value;
    return NAN;
}

typedef struct ctx {
    cmp_result *out;
    const cmp_tolerance *tols;
    size_t ntols;
    volatile const sig_atomic_t *stop;
} ctx;

/* add_floored: a metric whose default tolerance is at least FLOOR (a
 * tolerance the user gave is taken as given; one --noise widened from the
 * default still gets the floor of this comparison's own counts). */
static void add_floored(ctx *c, const char *name, double sim, double real, double diff,
                        const char *what, double floor)
{
    cmp_result *r = c->out;
    xgrow((void **)&r->m, &r->cap, r->n + 1, sizeof *r->m);
    cmp_metric *m = &r->m[r->n++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->sim = sim;
    m->real = real;
    m->diff = diff;
    m->what = what;
    m->band_lo = m->band_hi = NAN;
    m->tolerance = tolerance_of(name, c->tols, c->ntols);
    const cmp_tolerance *g = given(name, c->tols, c->ntols);
    if (floor > m->tolerance && (!g || g->floored))
        m->tolerance = floor;
    /* A NAN difference means there is nothing to compare (no groups, no
     * messages in either run): not judged. */
    if (isnan(m->tolerance) || isnan(diff))
        m->verdict = VERDICT_NONE;
    else
        m->verdict = diff <= m->tolerance + 1e-12 ? VERDICT_OK : VERDICT_OUTSIDE;
    if (m->verdict == VERDICT_OUTSIDE)
        r->pass = false;
}

static void add(ctx *c, const char *name, double sim, double real, double diff, const char *what)
{
    add_floored(c, name, sim, real, diff, what, 0);
}

/* ---- consumer counts over time ------------------------------------------------ */

typedef struct step {
    double t;
    int delta;
} step;

static int by_time(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : y->delta - x->delta;
}

/* The +1/-1 steps of one node's consumer count within [0, end]. */
static step *steps_of(const run_data *rd, const td_by_node *bn, int node, double end, size_t *n)
{
    size_t from = bn->at[node], to = bn->at[node + 1];
    step *v = xcalloc(2 * (to - from) + 1, sizeof *v);
    size_t k = 0;
    for (size_t j = from; j < to; j++) {
        const td_consumer *c = &rd->cons[bn->idx[j]];
        if (!(c->t_start <= end))
            continue;
        v[k++] = (step){ c->t_start < 0 ? 0 : c->t_start, +1 };
        if (!isnan(c->t_stop) && c->t_stop <= end)
            v[k++] = (step){ c->t_stop, -1 };
    }
    qsort(v, k, sizeof *v, by_time);
    *n = k;
    return v;
}

typedef struct count_diff {
    double mean_abs, max_abs, mean_sim, mean_real;
} count_diff;

static count_diff count_difference(const run_data *sim, const td_by_node *sn,
                                   const run_data *real, const td_by_node *rn, int node, double T)
{
    size_t ns, nr;
    step *s = steps_of(sim, sn, node, T, &ns), *r = steps_of(real, rn, node, T, &nr);
    size_t i = 0, j = 0;
    int cs = 0, cr = 0;
    double t = 0, area = 0, area_s = 0, area_r = 0, max_abs = 0;
    while (t < T) {
        double next = T;
        if (i < ns && s[i].t < next)
            next = s[i].t;
        if (j < nr && r[j].t < next)
            next = r[j].t;
        area += fabs((double)(cs - cr)) * (next - t);
        area_s += cs * (next - t);
        area_r += cr * (next - t);
        t = next;
        while (i < ns && s[i].t <= t)
            cs += s[i++].delta;
        while (j < nr && r[j].t <= t)
            cr += r[j++].delta;
        if (t < T && fabs((double)(cs - cr)) > max_abs)
            max_abs = fabs((double)(cs - cr));
    }
    free(s);
    free(r);
    if (T <= 0)
        return (count_diff){ 0 };
    return (count_diff){ area / T, max_abs, area_s / T, area_r / T };
}

/* ---- scale events ----------------------------------------------------------------- */

double *cmp_event_times(const run_data *rd, const td_by_node *bn, int node, bool stops,
                        double end, size_t *n)
{
    size_t from = bn->at[node], to = bn->at[node + 1];
    double *v = xcalloc(to - from + 1, sizeof *v);
    size_t k = 0;
    for (size_t j = from; j < to; j++) {
        const td_consumer *c = &rd->cons[bn->idx[j]];
        double t = stops ? c->t_stop : c->t_start;
        if (!isnan(t) && t <= end)
            v[k++] = t;
    }
    qsort(v, k, sizeof *v, stats_cmp_double);
    *n = k;
    return v;
}

static void scale_events(ctx *c, const run_data *sim, const td_by_node *sn,
                         const run_data *real, const td_by_node *rn, int nodes, double T,
                         bool stops)
{
    double count_diff_ = 0, max_dt = 0;
    size_t total_s = 0, total_r = 0;
    for (int node = 0; node < nodes && !*c->stop; node++) {
        size_t ns, nr;
        double *s = cmp_event_times(sim, sn, node, stops, T, &ns);
        double *r = cmp_event_times(real, rn, node, stops, T, &nr);
        for (size_t k = 0; k < ns && k < nr; k++)
            if (fabs(s[k] - r[k]) > max_dt)
                max_dt = fabs(s[k] - r[k]);
        count_diff_ += fabs((double)ns - (double)nr);
        total_s += ns;
        total_r += nr;
        free(s);
        free(r);
    }
    add(c, stops ? "consumer_stop_count_diff" : "consumer_start_count_diff", (double)total_s,
        (double)total_r, count_diff_,
        stops ? "consumers stopped (scale-down), summed over nodes"
              : "consumers started, summed over nodes");
    add(c, stops ? "consumer_stop_max_abs_ms" : "consumer_start_max_abs_ms", NAN, NAN, max_dt,
        stops ? "largest |sim - real| time of the k-th stop on a node, ms"
              : "largest |sim - real| time of the k-th start on a node, ms");
}

/* ---- the observation window of the message metrics -------------------------------- */

/* False for a message that never began or ended (NAN), as for one that did
 * so after T. */
static bool begun_by(const td_msg *m, double T)
{
    return m->t_begin <= T;
}

static bool ended_by(const td_msg *m, double T)
{
    return m->t_end <= T;
}

/* ---- latency and wait distributions --------------------------------------------- */

/* Latencies (waits) of the messages ended by T, sorted. */
static double *durations(const run_data *rd, bool wait, double T, size_t *n)
{
    double *v = xcalloc(rd->nmsgs + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        double x = (wait ? m->t_begin : m->t_end) - m->t_publish;
        if (ended_by(m, T) && !isnan(x))
            v[k++] = x;
    }
    qsort(v, k, sizeof *v, stats_cmp_double);
    *n = k;
    return v;
}

static double ks_distance(const double *a, size_t na, const double *b, size_t nb)
{
    size_t i = 0, j = 0;
    double d = 0;
    while (i < na && j < nb) {
        double x = a[i] < b[j] ? a[i] : b[j];
        while (i < na && a[i] <= x)
            i++;
        while (j < nb && b[j] <= x)
            j++;
        double gap = fabs((double)i / (double)na - (double)j / (double)nb);
        if (gap > d)
            d = gap;
    }
    return na && nb ? d : NAN;
}

static void distributions(ctx *c, const run_data *sim, const run_data *real, double T,
                          bool wait)
{
    size_t ns, nr;
    double *s = durations(sim, wait, T, &ns), *r = durations(real, wait, T, &nr);
    static const double qs[] = { 0.50, 0.90, 0.99 };
    static const char *const lat[] = { "p50_latency_rel_error", "p90_latency_rel_error",
                                       "p99_latency_rel_error" };
    static const char *const wai[] = { "p50_wait_rel_error", "p90_wait_rel_error",
                                       "p99_wait_rel_error" };
    for (int k = 0; k < 3; k++) {
        double qsim = ns ? stats_quantile_sorted(s, ns, qs[k]) : NAN;
        double qreal = nr ? stats_quantile_sorted(r, nr, qs[k]) : NAN;
        double rel = fabs(qsim - qreal) / fabs(qreal);
        if (isnan(qsim) && isnan(qreal))
            rel = NAN;                          /* no messages in either: nothing to judge */
        else if (isnan(qsim) || isnan(qreal))
            rel = INFINITY;
        else if (qreal == 0)
            rel = qsim == 0 ? 0 : INFINITY;
        add(c, wait ? wai[k] : lat[k], qsim, qreal, rel,
            wait ? "quantile of begin - publish (ms): |sim - real| / real"
                 : "quantile of end - publish (ms): |sim - real| / real");
    }
    add(c, wait ? "wait_ks" : "latency_ks", NAN, NAN, ks_distance(s, ns, r, nr),
        wait ? "Kolmogorov-Smirnov distance of the waits"
             : "Kolmogorov-Smirnov distance of the latencies");
    free(s);
    free(r);
}

/* ---- work per consumer, groups, order ---------------------------------------------- */

/* Messages completed by T per consumer, largest first; *n consumers. */
static double *counts_of(const run_data *rd, int nodes, double T, size_t *n)
{
    size_t total = 0;
    int *base = xcalloc((size_t)nodes + 1, sizeof *base);
    for (size_t i = 0; i < rd->ncons; i++)      /* base[node]: its consumers, for now */
        if (rd->cons[i].node >= 0 && rd->cons[i].node < nodes &&
            rd->cons[i].consumer + 1 > base[rd->cons[i].node])
            base[rd->cons[i].node] = rd->cons[i].consumer + 1;
    for (int node = 0; node < nodes; node++) {
        int here = base[node];
        base[node] = (int)total;
        total += (size_t)here;
    }
    double *v = xcalloc(total + 1, sizeof *v);
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        if (ended_by(m, T) && m->node >= 0 && m->node < nodes &&
            (size_t)(base[m->node] + m->consumer) < total)
            v[base[m->node] + m->consumer]++;
    }
    free(base);
    qsort(v, total, sizeof *v, stats_cmp_double_desc);
    *n = total;
    return v;
}

static void consumer_counts(ctx *c, const run_data *sim, const run_data *real, int nodes,
                            double T)
{
    size_t ns, nr;
    double *s = counts_of(sim, nodes, T, &ns), *r = counts_of(real, nodes, T, &nr);
    double worst = 0, least = 0;
    for (size_t k = 0; k < ns || k < nr; k++) {
        double a = k < ns ? s[k] : 0, b = k < nr ? r[k] : 0;
        if (b > 0)
            least = b;
        if (a == 0 && b == 0)
            continue;
        double rel = b > 0 ? fabs(a - b) / b : INFINITY;
        if (rel > worst)
            worst = rel;
    }
    /* Which of two consumers gets one message is a race the real system
     * does not repeat either: by default a count may be one message off in
     * the least busy real consumer (19 against 20 is not a miss). */
    add_floored(c, "consumer_counts_max_rel_error", ns ? s[0] : 0, nr ? r[0] : 0, worst,
                "messages per consumer, sorted: largest |sim - real| / real (sim, real: the "
                "busiest)", least > 0 ? 1 / least : 0);
    free(s);
    free(r);
}

/* (group, label) pairs, sorted: runs of equal pairs count them.  Sorting,
 * not a groups x consumers table: a trace of 100,000 groups on 100,000
 * consumers would need 10^10 cells. */
typedef struct pair {
    long a, b;
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Each group's main consumer (the one that began most of its messages by
 * T, the lowest label on a tie), as one integer label; -1 for groups not
 * seen. */
static long *group_labels(const run_data *rd, int ngroups, double T)
{
    long *label = xcalloc((size_t)ngroups + 1, sizeof *label);
    for (int g = 0; g < ngroups; g++)
        label[g] = -1;
    long maxc = 1, nodes = rd->nnodes ? rd->nnodes : 1;
    for (size_t i = 0; i < rd->ncons; i++)
        if (rd->cons[i].consumer + 1 > maxc)
            maxc = rd->cons[i].consumer + 1;
    pair *v = xcalloc(rd->nmsgs + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        if (m->group >= 0 && m->group < ngroups && m->node >= 0 && m->node < nodes &&
            m->consumer >= 0 && m->consumer < maxc && begun_by(m, T))
            v[n++] = (pair){ m->group, (long)m->node * maxc + m->consumer };
    }
    qsort(v, n, sizeof *v, cmp_pair);
    long best = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].a == v[i].a && v[j].b == v[i].b; j++)
            ;
        if (i == 0 || v[i].a != v[i - 1].a)
            best = 0;                  /* a new group */
        if ((long)(j - i) > best) {
            best = (long)(j - i);
            label[v[i].a] = v[i].b;
        }
    }
    free(v);
    return label;
}

static double choose2(double n)
{
    return n * (n - 1) / 2;
}

/* The sum of choose2 of the run lengths of equal values of sorted v (or,
 * with both, of equal pairs). */
static double sum_choose2(const pair *v, size_t n, bool both)
{
    double sum = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].a == v[i].a && (!both || v[j].b == v[i].b); j++)
            ;
        sum += choose2((double)(j - i));
    }
    return sum;
}

/* Adjusted Rand index of two labellings of the groups both runs saw.  The
 * sums are of whole numbers, exact in any order. */
static double adjusted_rand(const long *a, const long *b, int ngroups)
{
    pair *v = xcalloc((size_t)ngroups + 1, sizeof *v);
    size_t n = 0;
    for (int g = 0; g < ngroups; g++)
        if (a[g] >= 0 && b[g] >= 0)
            v[n++] = (pair){ a[g], b[g] };
    if (n < 2) {
        free(v);
        return NAN;
    }
    qsort(v, n, sizeof *v, cmp_pair);
    double index = sum_choose2(v, n, true), sa = sum_choose2(v, n, false);
    for (size_t i = 0; i < n; i++)
        v[i] = (pair){ v[i].b, 0 };
    qsort(v, n, sizeof *v, cmp_pair);
    double sb = sum_choose2(v, n, false);
    free(v);
    double expected = sa * sb / choose2((double)n), max = (sa + sb) / 2;
    if (max == expected)                  /* both trivial: agree iff identical */
        return index == max ? 1.0 : 0.0;
    return (index - expected) / (max - expected);
}

static void group_partition(ctx *c, const run_data *sim, const run_data *real, int ngroups,
                            double T)
{
    if (ngroups < 2) {
        add(c, "group_partition_disagreement", NAN, NAN, NAN,
            "1 - adjusted Rand index of groups by main consumer (no groups here)");
        return;
    }
    long *a = group_labels(sim, ngroups, T), *b = group_labels(real, ngroups, T);
    double ari = adjusted_rand(a, b, ngroups);
    add(c, "group_partition_disagreement", NAN, NAN, 1.0 - ari,
        "1 - adjusted Rand index of the groups partitioned by their main consumer");
    free(a);
    free(b);
}

/* Messages that began by T before an earlier-published message of their
 * key had ended (the engine's order_violations, from a timeline); one not
 * ended by T is still running then. */
static double violations(const run_data *rd, int ngroups, double T)
{
    double *max_end = xcalloc((size_t)ngroups + 1, sizeof *max_end);
    for (int g = 0; g <= ngroups; g++)
        max_end[g] = -INFINITY;
    double count = 0;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        size_t key = m->group < 0 ? (size_t)ngroups : (size_t)m->group;
        if (!begun_by(m, T))
            continue;
        if (max_end[key] > m->t_begin)
            count++;
        double end = ended_by(m, T) ? m->t_end : INFINITY;
        if (end > max_end[key])
            max_end[key] = end;
    }
    free(max_end);
    return count;
}

static double completed(const run_data *rd, double T)
{
    double n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++)
        n += ended_by(&rd->msgs[i], T);
    return n;
}

/* Whether the real run shows a listener at work.  A trace recorded through
 * the broker (lsim record --consumers none) has deliveries but no begin or
 * end: its consumers' starts and stops are judged, its messages cannot be. */
static bool has_listener(const run_data *real)
{
    for (size_t i = 0; i < real->nmsgs; i++)
        if (!isnan(real->msgs[i].t_begin))
            return true;
    return real->nmsgs == 0;
}

static void not_in_trace(ctx *c)
{
    bool after = false;
    for (const cmp_tolerance *t = compare_defaults; t->name; t++) {
        after = after || strcmp(t->name, "p50_latency_rel_error") == 0;
        if (after)
            add(c, t->name, NAN, NAN, NAN, "not in the trace: it shows no listener's begin or "
                "end (recorded through the broker)");
    }
}

void compare_runs(const run_data *sim, const run_data *real, const cmp_tolerance *tols,
                  size_t ntols, cmp_result *out)
{
    memset(out, 0, sizeof *out);
    out->pass = true;
    ctx c = { .out = out, .tols = tols, .ntols = ntols, .stop = stop_interrupted() };
    double T = real->end_ms;
    int nodes = real->nnodes > sim->nnodes ? real->nnodes : sim->nnodes;
    td_by_node sn, rn;
    td_by_node_init(&sn, sim, nodes, NULL, NULL);
    td_by_node_init(&rn, real, nodes, NULL, NULL);
    double worst_mean = 0, worst_max = 0, mean_s = 0, mean_r = 0;
    for (int node = 0; node < nodes && !*c.stop; node++) {
        count_diff cd = count_difference(sim, &sn, real, &rn, node, T);
        worst_mean = cd.mean_abs > worst_mean ? cd.mean_abs : worst_mean;
        worst_max = cd.max_abs > worst_max ? cd.max_abs : worst_max;
        mean_s += cd.mean_sim;
        mean_r += cd.mean_real;
    }
    add(&c, "consumers_mean_abs_diff", mean_s, mean_r, worst_mean,
        "time-weighted mean |sim - real| consumer count, worst node (sim, real: mean count)");
    add(&c, "consumers_max_abs_diff", NAN, NAN, worst_max,
        "largest |sim - real| consumer count at any time, worst node");
    scale_events(&c, sim, &sn, real, &rn, nodes, T, false);
    scale_events(&c, sim, &sn, real, &rn, nodes, T, true);
    td_by_node_free(&sn);
    td_by_node_free(&rn);
    if (*c.stop)
        return;
    if (!has_listener(real)) {
        not_in_trace(&c);
        return;
    }
    distributions(&c, sim, real, T, false);
    distributions(&c, sim, real, T, true);
    consumer_counts(&c, sim, real, nodes, T);
    if (*c.stop)
        return;
    int ngroups = 0;
    for (size_t i = 0; i < real->nmsgs; i++)
        ngroups = real->msgs[i].group + 1 > ngroups ? real->msgs[i].group + 1 : ngroups;
    for (size_t i = 0; i < sim->nmsgs; i++)
        ngroups = sim->msgs[i].group + 1 > ngroups ? sim->msgs[i].group + 1 : ngroups;
    group_partition(&c, sim, real, ngroups, T);
    double vs = violations(sim, ngroups, T), vr = violations(real, ngroups, T);
    add(&c, "order_violations_diff", vs, vr, fabs(vs - vr),
        "messages that began before an earlier message of their group had ended");
    double cs = completed(sim, T), cr = completed(real, T);
    add(&c, "completed_diff", cs, cr, fabs(cs - cr), "messages that ended by the end of the "
        "real observation");
}

void compare_result_free(cmp_result *r)
{
    free(r->m);
    memset(r, 0, sizeof *r);
}
