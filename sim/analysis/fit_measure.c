/* fit_measure.c -- calibration knobs measured from a trace (fit_measure.h).
 *
 * Every estimator works on each consumer's messages in begin order.  The
 * model's rules are exact; what it adds are the small delays below, and
 * each is read off the trace where the model would spend exactly it:
 *
 * SMLC cycleOverhead.  The model spends it once per busy cycle, after the
 * cycle's last message (a cycle is batchSize messages, or fewer when an
 * empty poll ends it).  So for the gap from a message's end to the same
 * consumer's next begin, taken only where that next message was already
 * waiting (published before the end: in the consumer's buffer or the
 * queue, so the gap is no wait for work), the mean gap at each position of
 * the cycle is summed over the batchSize positions: one cycle's overhead.
 * A gap of half a receive timeout or more holds an empty poll and starts a
 * new cycle.  Gaps that overlap a consumer's start on the node (from its
 * consumer_start to its first begin, at most 100 ms) are left out: there
 * the consumer waited for consumersLock, which the model holds itself.
 * Per window of the trace, by the time of the end, so a JVM that warms up
 * gets a schedule.
 *
 * Idle overhead (SMLC idlePollOverhead, DMLC idleReceiveOverhead).  A
 * consumer the container stopped spent, after its last message (and its
 * cycle overhead), a whole number k of empty polls of receiveTimeout + the
 * overhead; k is the span over the timeout, rounded.  The overhead is the
 * summed span over the summed k, minus the timeout.  An SMLC stop with
 * fewer than consecutiveIdleTrigger polls, or one a runtime call made, is
 * no idle stop.
 *
 * Start latency.  From the decision that asked for a consumer to its first
 * delivery, where its first message was already waiting at the decision.
 * SMLC: the decision is the end of the starting consumer's cycle plus its
 * cycle overhead (of the consumers on the node in their gap at the
 * consumer_start, the one for which that comes closest to it); the
 * delivery is the first begin.  The consumers a runtime call starts, one
 * after another under consumersLock, are each a step of that run
 * (call_runs).
 * DMLC: the invoker's thread starts at the receipt that asked for it, and
 * its consumer_start is stamped then, before it subscribes (as the model
 * stamps it); the delivery is its first `deliver` (or its first begin less
 * the receive lag), counted where that message had waited in the broker
 * (a message dispatched the instant it was published went to a consumer
 * that was waiting for work, not one still subscribing); the consumers a
 * container starts with count only when the message was there before them.
 *
 * DMLC receiveLag.  From the dispatch (`deliver`) to receive() returning,
 * where the invoker was waiting in receive() when the broker dispatched
 * (its previous message had ended).  receive() returned by the begin, or
 * by the consumer_start of an invoker on the node that started in between:
 * the container asks for one on the receipt, before the listener runs.
 *
 * DMLC rescheduleLatency.  A task of maxMessagesPerTask receive attempts
 * ends, and a kept invoker's task goes back to the executor; the model
 * spends the knob there and nothing between two receives of one task.  So
 * it is the gap from a task's last end to the same invoker's next begin,
 * where that next message had been dispatched to it before the end (in its
 * buffer: no wait for work).  Attempts are counted from the invoker's
 * start: a message is one, and a wait of k whole receive timeouts before a
 * message holds k empty receives; a wait too near a whole number of
 * timeouts to tell leaves the rest of that invoker uncounted.  The idle
 * overhead gives back the reschedules of an idle tail: one after every
 * maxMessagesPerTask-th attempt from the last message's (on average one in
 * maxMessagesPerTask receives where that attempt is uncounted).
 */
#include "base/stop_signals.h"
#include "analysis/fit_measure.h"
#include "base/mem.h"
#include "engine/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define START_HOLD_MAX_MS 100.0    /* the longest lock hold a start is taken to be */
#define DECISION_START_MAX_MS 1.0  /* from a decision to its consumer's thread start */

typedef struct seq_ctx {
    const run_data *rd;
    size_t *ord;                   /* begun and ended messages by (node, consumer, begin) */
    size_t n;
    const td_msg **first, **last;  /* per rd->cons: its first and last message, or NULL */
    /* The consumers by node, so that no estimator walks them all per item,
     * each node's part sorted (sort_parts): */
    td_by_node ids;                /* all of them, by consumer (then index) */
    td_by_node starts;             /* those with a start time, by start (then index) */
    double *hold_max;              /* along starts: the latest end of a start's lock hold
                                    * (overlaps_start) up to here on its node */
    double *first_got;             /* per node: its first message's deliver (or begin) */
    int nnodes;                    /* 1 + the highest node of a consumer */
    /* Several estimators look through every consumer or message per item:
     * each such loop polls the signal flag per item, stops when it is set,
     * and cmd_fit, seeing it, writes nothing. */
    volatile const sig_atomic_t *stop;
} seq_ctx;

typedef struct keyed {
    int node, consumer;
    double t;
    size_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->consumer != y->consumer)
        return x->consumer < y->consumer ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const td_msg *seq_msg(const seq_ctx *s, size_t i)
{
    return &s->rd->msgs[s->ord[i]];
}

static bool same_consumer(const td_msg *a, const td_msg *b)
{
    return a->node == b->node && a->consumer == b->consumer;
}

static size_t *sorted_indexes(keyed *k, size_t n, int (*cmp)(const void *, const void *))
{
    qsort(k, n, sizeof *k, cmp);
    size_t *v = xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = k[i].idx;
    return v;
}

/* ---- halving ------------------------------------------------------------------------ */

/* The first i in [lo, hi) for which before(ctx, i) is false, hi when there
 * is none.  `before` must hold up to a point and not after it, as "comes
 * before the key" does over entries sorted by what it compares. */
static size_t bound(size_t lo, size_t hi, bool (*before)(const void *ctx, size_t i),
                    const void *ctx)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(ctx, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entries sorted by a time, time(of, i): those before t, and those at it
 * when `strictly` (so that bound gives the first above t, or else the first
 * at or above it). */
typedef struct time_key {
    double (*time)(const void *of, size_t i);
    const void *of;
    double t;
    bool strictly;
} time_key;

static bool time_before(const void *ctx, size_t i)
{
    const time_key *k = ctx;
    double x = k->time(k->of, i);
    return k->strictly ? x <= k->t : x < k->t;
}

/* In [lo, hi) of entries sorted by time(of, i): the first whose time is
 * above t (at or above it unless `strictly`); hi when none is.  No time
 * and no t is NaN (callers search only times a trace gave), which would
 * compare false either way. */
static size_t time_bound(double (*time)(const void *of, size_t i), const void *of, size_t lo,
                         size_t hi, double t, bool strictly)
{
    time_key k = { .time = time, .of = of, .t = t, .strictly = strictly };
    return bound(lo, hi, time_before, &k);
}

/* Each node's part of bn sorted by consumer (by_consumer) or by start,
 * then by rd->cons index: one sort of them all, which keeps the parts
 * where they are, as cmp_keyed puts the node first. */
static void sort_parts(const run_data *rd, td_by_node *bn, bool by_consumer)
{
    size_t n = td_by_node_count(bn);
    keyed *k = xcalloc(n + 1, sizeof *k);
    for (size_t j = 0; j < n; j++) {
        const td_consumer *c = &rd->cons[bn->idx[j]];
        k[j] = (keyed){ .node = c->node, .consumer = by_consumer ? c->consumer : 0,
                        .t = by_consumer ? 0 : c->t_start, .idx = bn->idx[j] };
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (size_t j = 0; j < n; j++)
        bn->idx[j] = k[j].idx;
    free(k);
}

static bool has_start(const void *ctx, const td_consumer *c)
{
    (void)ctx;
    return !isnan(c->t_start);
}

/* The consumers by (node, consumer): ids. */
static void index_by_id(seq_ctx *s)
{
    const run_data *rd = s->rd;
    s->nnodes = 0;
    for (size_t i = 0; i < rd->ncons; i++)
        if (rd->cons[i].node >= s->nnodes)
            s->nnodes = rd->cons[i].node + 1;
    td_by_node_init(&s->ids, rd, s->nnodes, NULL, NULL);
    sort_parts(rd, &s->ids, true);
}

/* The consumers by start on each node, the lock holds' running maximum
 * along each node's part, and each node's first receipt. */
static void index_starts(seq_ctx *s)
{
    const run_data *rd = s->rd;
    td_by_node *st = &s->starts;
    td_by_node_init(st, rd, s->nnodes, has_start, NULL);
    sort_parts(rd, st, false);
    s->hold_max = xcalloc(td_by_node_count(st) + 1, sizeof *s->hold_max);
    for (int node = 0; node < s->nnodes; node++)
        for (size_t j = st->at[node]; j < st->at[node + 1]; j++) {
            const td_consumer *c = &rd->cons[st->idx[j]];
            const td_msg *f = s->first[st->idx[j]];
            double until = c->t_start + START_HOLD_MAX_MS;
            if (f && f->t_begin < until)
                until = f->t_begin;
            s->hold_max[j] = j > st->at[node] ? fmax(until, s->hold_max[j - 1]) : until;
        }
    s->first_got = xcalloc((size_t)s->nnodes + 1, sizeof *s->first_got);
    for (int node = 0; node < s->nnodes; node++)
        s->first_got[node] = INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        const td_msg *m = seq_msg(s, i);
        double got = !isnan(m->t_deliver) ? m->t_deliver : m->t_begin;
        if (m->node < s->nnodes && got < s->first_got[m->node])
            s->first_got[m->node] = got;
    }
}

/* Whether (node, consumer) comes before (n, c), or is it when `after`. */
static bool id_before(int node, int consumer, int n, int c, bool after)
{
    return node < n || (node == n && (consumer < c || (after && consumer == c)));
}

/* Entries sorted by (node, consumer): those before (node, consumer), and
 * its own when `after`. */
typedef struct id_key {
    const seq_ctx *s;
    int node, consumer;
    bool after;
} id_key;

static bool cons_id_before(const void *ctx, size_t i)
{
    const id_key *k = ctx;
    const td_consumer *c = &k->s->rd->cons[k->s->ids.idx[i]];
    return id_before(c->node, c->consumer, k->node, k->consumer, k->after);
}

/* ids: the first entry after the entries of (node, consumer). */
static size_t id_end(const seq_ctx *s, int node, int consumer)
{
    id_key k = { .s = s, .node = node, .consumer = consumer, .after = true };
    return bound(0, td_by_node_count(&s->ids), cons_id_before, &k);
}

/* Node `node`'s part of starts, [*lo, *hi). */
static void node_starts(const seq_ctx *s, int node, size_t *lo, size_t *hi)
{
    *lo = *hi = 0;
    if (node >= 0 && node < s->nnodes) {
        *lo = s->starts.at[node];
        *hi = s->starts.at[node + 1];
    }
}

/* Consumers (rd->cons indexes) for time_bound over their start times. */
typedef struct cons_list {
    const run_data *rd;
    const size_t *idx;
} cons_list;

static double start_time(const void *of, size_t i)
{
    const cons_list *l = of;
    return l->rd->cons[l->idx[i]].t_start;
}

/* The start time of starts[j]. */
static double start_at(const seq_ctx *s, size_t j)
{
    return s->rd->cons[s->starts.idx[j]].t_start;
}

/* In starts' [lo, hi): the first start above t (at or above it unless
 * `strictly`); hi when none is. */
static size_t start_bound(const seq_ctx *s, size_t lo, size_t hi, double t, bool strictly)
{
    cons_list l = { .rd = s->rd, .idx = s->starts.idx };
    return time_bound(start_time, &l, lo, hi, t, strictly);
}

static void seq_init(seq_ctx *s, const run_data *rd)
{
    s->rd = rd;
    s->stop = stop_interrupted();
    keyed *k = xcalloc(rd->nmsgs + 1, sizeof *k);
    s->n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        if (m->node >= 0 && !isnan(m->t_begin) && !isnan(m->t_end))
            k[s->n++] = (keyed){ .node = m->node, .consumer = m->consumer, .t = m->t_begin,
                                 .idx = i };
    }
    s->ord = sorted_indexes(k, s->n, cmp_keyed);
    free(k);
    s->first = xcalloc(rd->ncons + 1, sizeof *s->first);
    s->last = xcalloc(rd->ncons + 1, sizeof *s->last);
    index_by_id(s);
    const size_t *by_id = s->ids.idx;
    size_t nids = td_by_node_count(&s->ids);
    /* one pass over both orders: each consumer's messages are a run of the
     * order, and its entries (a consumer restarted under its id has more
     * than one) a run of ids */
    size_t p = 0;
    for (size_t i = 0; i < s->n && !*s->stop;) {
        size_t j = i;
        while (j + 1 < s->n && same_consumer(seq_msg(s, j + 1), seq_msg(s, i)))
            j++;
        const td_msg *m = seq_msg(s, i);
        while (p < nids && id_before(rd->cons[by_id[p]].node, rd->cons[by_id[p]].consumer,
                                     m->node, m->consumer, false))
            p++;
        for (; p < nids && rd->cons[by_id[p]].node == m->node &&
               rd->cons[by_id[p]].consumer == m->consumer; p++) {
            s->first[by_id[p]] = m;
            s->last[by_id[p]] = seq_msg(s, j);
        }
        i = j + 1;
    }
    index_starts(s);
}

static void seq_fini(seq_ctx *s)
{
    free(s->ord);
    free(s->first);
    free(s->last);
    td_by_node_free(&s->ids);
    td_by_node_free(&s->starts);
    free(s->hold_max);
    free(s->first_got);
}

/* ---- samples ---------------------------------------------------------------------- */

void fit_sample_add(fit_samples *fs, double v)
{
    xgrow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof *fs->v);
    fs->v[fs->n++] = v;
}

void fit_sample_summarise(fit_samples *fs)
{
    fs->mean = fs->median = fs->sigma_log = NAN;
    if (fs->n == 0)
        return;
    qsort(fs->v, fs->n, sizeof *fs->v, stats_cmp_double);
    double sum = 0, sl = 0, sl2 = 0;
    for (size_t i = 0; i < fs->n; i++) {
        double l = log(fmax(fs->v[i], 1e-6));
        sum += fs->v[i];
        sl += l;
        sl2 += l * l;
    }
    double n = (double)fs->n, ml = sl / n;
    fs->mean = sum / n;
    fs->median = fs->n % 2 ? fs->v[fs->n / 2] : (fs->v[fs->n / 2 - 1] + fs->v[fs->n / 2]) / 2;
    fs->sigma_log = fs->n > 1 ? sqrt(fmax(sl2 / n - ml * ml, 0) * n / (n - 1)) : 0;
}

static double step_from(const void *of, size_t i)
{
    return ((const fit_step *)of)[i].from_ms;
}

/* The steps run from their from_ms in increasing order: the last that
 * has begun by t (the one before the first that begins after it). */
double fit_step_at(const fit_step *s, size_t n, double t)
{
    size_t first_after = time_bound(step_from, s, 0, n, t, true);
    return first_after ? s[first_after - 1].value_ms : 0;
}

/* ---- SMLC cycle overhead ------------------------------------------------------------ */

/* Whether [a, b] overlaps the lock hold of a consumer start on `node`:
 * of the starts at or before b, the latest hold's end is at or after a. */
static bool overlaps_start(const seq_ctx *s, int node, double a, double b)
{
    size_t lo, hi;
    node_starts(s, node, &lo, &hi);
    size_t k = start_bound(s, lo, hi, b, true);
    return k > lo && s->hold_max[k - 1] >= a;
}

typedef struct window_acc {
    double *sum;                   /* [batch] */
    size_t *n;
    double sl, sl2;                /* sums of ln gap and its square, over the positions */
    size_t nl;                     /* gaps above 0 among them */
} window_acc;

/* The sample standard deviation of ln gap from its sums; 0 below 3 gaps. */
static double log_spread(double sl, double sl2, size_t n)
{
    if (n < 3)
        return 0;
    double m = sl / (double)n;
    return sqrt(fmax(sl2 / (double)n - m * m, 0) * (double)n / (double)(n - 1));
}

static void cycle_schedule(const seq_ctx *s, int batch, double rt, double width, fit_knobs *k)
{
    double last = 0;
    for (size_t i = 0; i < s->n; i++)
        last = fmax(last, seq_msg(s, i)->t_end);
    size_t nw = (size_t)(last / width) + 1;
    window_acc *w = xcalloc(nw, sizeof *w);
    for (size_t i = 0; i < nw; i++) {
        w[i].sum = xcalloc((size_t)batch, sizeof *w[i].sum);
        w[i].n = xcalloc((size_t)batch, sizeof *w[i].n);
    }
    int pos = 0;
    for (size_t i = 0; i + 1 < s->n && !*s->stop; i++) {
        const td_msg *a = seq_msg(s, i), *b = seq_msg(s, i + 1);
        if (i == 0 || !same_consumer(seq_msg(s, i - 1), a))
            pos = 0;                   /* a consumer's first cycle */
        if (!same_consumer(a, b))
            continue;
        double gap = b->t_begin - a->t_end;
        int here = pos;
        pos = gap >= rt / 2 ? 0 : (pos + 1) % batch;   /* an empty poll ends the cycle */
        if (gap >= rt / 2 || !(b->t_publish <= a->t_end) || gap < 0)
            continue;
        if (overlaps_start(s, a->node, a->t_end, b->t_begin)) {
            k->cycle_excluded++;
            continue;
        }
        size_t wi = (size_t)(a->t_end / width);
        w[wi].sum[here] += gap;
        w[wi].n[here]++;
        if (gap > 0) {
            w[wi].sl += log(gap);
            w[wi].sl2 += log(gap) * log(gap);
            w[wi].nl++;
        }
        k->cycle_gaps++;
    }
    k->cycle = xcalloc(nw, sizeof *k->cycle);
    double sl = 0, sl2 = 0;        /* the step's sums, as the windows' */
    size_t nl = 0;
    for (size_t i = 0; i < nw; i++) {
        double v = 0;
        size_t n = 0;
        for (int p = 0; p < batch; p++) {
            if (w[i].n[p])
                v += w[i].sum[p] / (double)w[i].n[p];
            n += w[i].n[p];
        }
        /* A window of a few gaps, or none at a cycle's end, says little:
         * the previous value goes on; so does one within 0.5 % of it. */
        bool same = k->ncycle && fabs(v - k->cycle[k->ncycle - 1].value_ms) <=
                                     0.005 * k->cycle[k->ncycle - 1].value_ms;
        bool is_new = n >= 5 && w[i].n[batch - 1] >= 3 && !same;
        if (is_new) {
            k->cycle[k->ncycle++] = (fit_step){ .from_ms = (double)i * width, .value_ms = v,
                                                .n = n };
            sl = sl2 = 0;
            nl = 0;
        } else if (same) {
            k->cycle[k->ncycle - 1].n += n;
        }
        if (is_new || same) {
            sl += w[i].sl;
            sl2 += w[i].sl2;
            nl += w[i].nl;
            k->cycle[k->ncycle - 1].sigma_log = log_spread(sl, sl2, nl);
        }
        free(w[i].sum);
        free(w[i].n);
    }
    free(w);
    if (k->ncycle)
        k->cycle[0].from_ms = 0;
}

/* ---- idle stops ---------------------------------------------------------------------- */

static double call_at(const void *of, size_t i)
{
    return ((const double *)of)[i];
}

/* Whether one of the sorted calls is in [a, b]. */
static bool call_within(const double *calls, size_t n, double a, double b)
{
    size_t i = time_bound(call_at, calls, 0, n, a, false);
    return i < n && calls[i] <= b;
}

/* A DMLC's tasks, for the idle overhead: the reschedules in an idle tail
 * are no part of its receives. */
typedef struct task_count {
    int per_task;                  /* maxMessagesPerTask */
    const int *pos_after;          /* per message: its attempt in its task, -1 unknown */
    double resched_ms;             /* the mean rescheduleLatency */
} task_count;

/* The reschedules between a last message at attempt `pos` of its task and
 * the stop after `polls` empty receives: a task ends after every
 * per_task-th attempt, and the one ending at the stop is not rescheduled.
 * An unknown pos gets the average, polls / per_task. */
static double tail_reschedules(const task_count *tc, int pos, int polls)
{
    if (pos < 1)
        return (double)polls / tc->per_task;
    return (double)((pos + polls - 1) / tc->per_task - (pos - 1) / tc->per_task);
}

/* Idle stops only: one with fewer than min_polls empty polls was not the
 * container's (an SMLC stops a consumer after consecutiveIdleTrigger idle
 * cycles, each one poll or more), nor one at the end of the poll running
 * when a runtime call (stopping) cancelled it. */
static void idle_overhead(const seq_ctx *s, double rt, int min_polls, const double *stopping,
                          size_t nstopping, const task_count *tc, fit_knobs *out)
{
    out->idle_ms = NAN;
    if (!(rt > 0))
        return;
    double span = 0;
    int polls = 0;
    const run_data *rd = s->rd;
    for (size_t i = 0; i < rd->ncons; i++) {
        const td_consumer *c = &rd->cons[i];
        if (isnan(c->t_stop))
            continue;
        const td_msg *last = s->last[i];
        if (!last)
            continue;
        double x = c->t_stop - last->t_end - fit_step_at(out->cycle, out->ncycle, last->t_end);
        int polls_here = (int)floor(x / rt + 0.5);
        if (polls_here < 1)
            continue;
        /* a cancelled consumer stops at the end of the poll it was in:
         * within one receiveTimeout and its overhead, which half a timeout
         * more covers */
        if (polls_here < min_polls ||
            call_within(stopping, nstopping, c->t_stop - 1.5 * rt, c->t_stop)) {
            out->idle_left_out++;
            continue;
        }
        if (tc) {
            double less = tc->resched_ms *
                          tail_reschedules(tc, tc->pos_after[last - rd->msgs], polls_here);
            x -= less;
            out->idle_less_ms += less;
        }
        span += x;
        polls += polls_here;
        out->idle_stops++;
    }
    out->idle_polls = polls;
    if (polls > 0) {
        out->idle_ms = fmax(span / polls - rt, 0);
        out->idle_less_ms /= polls;
    }
}

/* ---- start latency ------------------------------------------------------------------- */

static double node_first_start(const seq_ctx *s, int node)
{
    size_t lo, hi;
    node_starts(s, node, &lo, &hi);
    return lo < hi ? start_at(s, lo) : INFINITY;
}

/* ---- SMLC start decisions ------------------------------------------------------------
 *
 * A consumer started at T on its node was asked for by another consumer of
 * the node in its gap then: one whose message a ended at or before T and
 * whose next message, if any, began after T.  The decision is a's end plus
 * the cycle overhead at it; of the candidates, the one closest to T (the
 * first in seq order on a tie).  So a message is a candidate for the starts
 * in [its end, its consumer's next begin).  All starts are answered at once:
 * sorted by (node, T) they are the leaves of a segment tree, a message is
 * put on the O(log) tree nodes that cover its starts, each node's messages
 * sorted by decision time, and a start looks along its leaf's path only. */

typedef struct cand {
    double at;                     /* the decision time it gives */
    size_t seq;                    /* the message, in seq order */
} cand;

typedef struct best {
    bool found;
    double d, at;                  /* |at - T| and at */
    size_t seq;
} best;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Of the starts `later` (by node, then time): the first after node's
 * (whole), or at or after t on node. */
static size_t q_bound(const seq_ctx *s, const td_by_node *later, int node, double t, bool whole)
{
    if (node < 0 || node >= later->nodes)
        return node < 0 ? 0 : td_by_node_count(later);
    if (whole)
        return later->at[node + 1];
    cons_list l = { .rd = s->rd, .idx = later->idx };
    return time_bound(start_time, &l, later->at[node], later->at[node + 1], t, false);
}

static bool msg_id_before(const void *ctx, size_t i)
{
    const id_key *k = ctx;
    const td_msg *m = seq_msg(k->s, i);
    return id_before(m->node, m->consumer, k->node, k->consumer, k->after);
}

/* In seq order: the first message at or after (node, consumer), or after
 * that consumer's messages when `after`. */
static size_t seq_bound(const seq_ctx *s, int node, int consumer, bool after)
{
    id_key k = { .s = s, .node = node, .consumer = consumer, .after = after };
    return bound(0, s->n, msg_id_before, &k);
}

static double decision_at(const seq_ctx *s, size_t seq, const fit_knobs *k)
{
    double end = seq_msg(s, seq)->t_end;
    return end + fit_step_at(k->cycle, k->ncycle, end);
}

static double cand_at(const void *of, size_t i)
{
    return ((const cand *)of)[i].at;
}

/* In v[lo, hi): the first whose decision time is above a (at or above it
 * unless `strictly`). */
static size_t cand_bound(const cand *v, size_t lo, size_t hi, double a, bool strictly)
{
    return time_bound(cand_at, v, lo, hi, a, strictly);
}

/* Of v[lo, hi), all with one decision time, the first that is not of
 * consumer x, if it is closer than what was found. */
static void consider_run(const seq_ctx *s, const cand *v, size_t lo, size_t hi, int x, double t,
                         best *b)
{
    while (lo < hi && seq_msg(s, v[lo].seq)->consumer == x)
        lo++;
    if (lo == hi)
        return;
    double d = fabs(v[lo].at - t);
    if (!b->found || d < b->d || (d == b->d && v[lo].seq < b->seq))
        *b = (best){ .found = true, .d = d, .at = v[lo].at, .seq = v[lo].seq };
}

/* One tree node's candidates (every one of them on T's node and in its gap
 * at T): from T outwards on each side, a run of one decision time at a
 * time, while the runs are no farther than the best. */
static void search_node(const seq_ctx *s, const cand *v, size_t n, double t, int x, best *b)
{
    size_t pos = cand_bound(v, 0, n, t, false);
    for (size_t lo = pos; lo < n;) {
        if (b->found && fabs(v[lo].at - t) > b->d)
            break;
        size_t hi = cand_bound(v, lo, n, v[lo].at, true);
        consider_run(s, v, lo, hi, x, t, b);
        lo = hi;
    }
    for (size_t hi = pos; hi > 0;) {
        if (b->found && fabs(v[hi - 1].at - t) > b->d)
            break;
        size_t lo = cand_bound(v, 0, hi, v[hi - 1].at, false);
        consider_run(s, v, lo, hi, x, t, b);
        hi = lo;
    }
}

/* A consumer with no start time: every other consumer's last message is
 * in its gap, and none is closer than another, so the first of them. */
static double decision_unstarted(const seq_ctx *s, const td_consumer *c, const fit_knobs *k)
{
    size_t i = seq_bound(s, c->node, INT32_MIN, false);
    if (i < s->n && seq_msg(s, i)->node == c->node && seq_msg(s, i)->consumer == c->consumer)
        i = seq_bound(s, c->node, c->consumer, true);
    if (i == s->n || seq_msg(s, i)->node != c->node)
        return NAN;
    size_t last = seq_bound(s, c->node, seq_msg(s, i)->consumer, true) - 1;
    return decision_at(s, last, k);
}

/* The tree over the starts `later`: each message on the nodes that cover
 * its starts (put_all counts them when list is NULL, else fills list). */
static void put_all(const seq_ctx *s, const td_by_node *later, size_t leaves, size_t *count,
                    const size_t *off, cand *list, const fit_knobs *k)
{
    for (size_t i = 0; i < s->n && !*s->stop; i++) {
        const td_msg *a = seq_msg(s, i);
        bool last = i + 1 == s->n || !same_consumer(a, seq_msg(s, i + 1));
        size_t l = q_bound(s, later, a->node, a->t_end, false);
        size_t r = last ? q_bound(s, later, a->node, 0, true)
                        : q_bound(s, later, a->node, seq_msg(s, i + 1)->t_begin, false);
        if (l >= r)
            continue;
        double at = list ? decision_at(s, i, k) : 0;
        for (l += leaves, r += leaves; l < r; l /= 2, r /= 2) {
            if (l & 1) {
                if (list)
                    list[off[l] + count[l]] = (cand){ .at = at, .seq = i };
                count[l++]++;
            }
            if (r & 1) {
                --r;
                if (list)
                    list[off[r] + count[r]] = (cand){ .at = at, .seq = i };
                count[r]++;
            }
        }
    }
}

/* A consumer started after its node's first start (not with the container). */
static bool started_later(const void *ctx, const td_consumer *c)
{
    return c->t_start > node_first_start(ctx, c->node);
}

/* Every consumer's decision (NAN: none, or one the container started
 * with), by rd->cons index. */
static double *smlc_decisions(const seq_ctx *s, const fit_knobs *k)
{
    const run_data *rd = s->rd;
    double *at = xcalloc(rd->ncons + 1, sizeof *at);
    for (size_t i = 0; i < rd->ncons; i++)
        at[i] = isnan(rd->cons[i].t_start) ? decision_unstarted(s, &rd->cons[i], k) : NAN;
    td_by_node later;              /* the starts after their node's first, by (node, t) */
    td_by_node_init(&later, rd, s->nnodes, started_later, s);
    sort_parts(rd, &later, false);
    size_t nq = td_by_node_count(&later);
    size_t leaves = 1;
    while (leaves < nq)
        leaves *= 2;
    size_t *count = xcalloc(2 * leaves, sizeof *count), *off = xcalloc(2 * leaves + 1, sizeof *off);
    put_all(s, &later, leaves, count, off, NULL, k);
    for (size_t i = 0; i < 2 * leaves; i++) {
        off[i + 1] = off[i] + count[i];
        count[i] = 0;
    }
    cand *list = xcalloc(off[2 * leaves] + 1, sizeof *list);
    put_all(s, &later, leaves, count, off, list, k);
    for (size_t i = 0; i < 2 * leaves; i++)
        qsort(list + off[i], count[i], sizeof *list, cmp_cand);
    for (size_t j = 0; j < nq && !*s->stop; j++) {
        best b = { 0 };
        const td_consumer *c = &rd->cons[later.idx[j]];
        for (size_t node = j + leaves; node >= 1; node /= 2)
            search_node(s, list + off[node], count[node], c->t_start, c->consumer, &b);
        at[later.idx[j]] = b.found ? b.at : NAN;
    }
    free(list);
    free(count);
    free(off);
    td_by_node_free(&later);
    return at;
}

/* The consumers a runtime call started (calls: the times of the setters
 * that can add consumers, sorted).  addAndStartConsumers starts them one
 * after another under consumersLock, each after the previous one's
 * basic.consume, and none begins its first cycle before the lock is
 * released after the last: a run of starts up to the first begin among
 * them (the release), or up to the next call when none of them begins.
 * Messages that end meanwhile decide nothing (their cycles wait for the
 * lock).  Each step of the run, from one start to the next, is a start
 * latency, and so is the last one's to the first begin where that
 * message was waiting at the run's first start. */
typedef struct call_runs {
    const seq_ctx *s;
    double *at;                    /* per rd->cons: the message decisions (cleared in runs) */
    bool *in_run;                  /* along starts */
    double *released;              /* along starts: for a run's first, its release */
    fit_knobs *k;
} call_runs;

/* Node part [lo, hi) of starts from j on, for a run: its end; *got, the
 * earliest first message among it (NULL: none begins).  When that message
 * was not waiting at the run's first start, its begin does not show the
 * release: the run then also ends at `next` (the next call's time), at a
 * step longer than any lock hold, or at a start that came right after a
 * message's decision (at), closer to it than to the start before. */
static size_t run_end(const seq_ctx *s, size_t j, size_t hi, double next, const double *at,
                      const td_msg **got)
{
    double first = start_at(s, j), prev = first;
    *got = NULL;
    for (; j < hi; j++) {
        double t = start_at(s, j), own = at[s->starts.idx[j]];
        /* a start at the first begin joins only while all are at one
         * instant (no latency): later, it is a start the release let in */
        if (*got && (t > (*got)->t_begin || (t == (*got)->t_begin && t > first)))
            break;
        if ((!*got || (*got)->t_publish > first) &&
            (t >= next || t - prev > START_HOLD_MAX_MS ||
             (!isnan(own) && fabs(t - own) < fmin(t - prev, DECISION_START_MAX_MS))))
            break;
        const td_msg *f = s->first[s->starts.idx[j]];
        if (f && f->t_begin >= t && (!*got || f->t_begin < (*got)->t_begin))
            *got = f;
        prev = t;
    }
    return j;
}

/* Whether starts[j], the first start at or after a call at `call` (and
 * not before `from`, the release of the call before it), is the call's:
 * a message's decision is no closer to it, or the lock was held at the
 * call and it came within a hold; a call queued behind the run before it
 * starts its own at that run's release. */
static bool call_owns(const call_runs *cr, size_t lo, size_t j, double call, double from)
{
    const seq_ctx *s = cr->s;
    double t = start_at(s, j), own = cr->at[s->starts.idx[j]];
    if (!started_later(s, &s->rd->cons[s->starts.idx[j]]))
        return false;
    if (call < from)
        return t <= from + START_HOLD_MAX_MS;
    if (isnan(own) || fabs(t - own) >= t - call)
        return true;
    return j > lo && s->hold_max[j - 1] >= call && t - call <= START_HOLD_MAX_MS;
}

/* One run of starts [j, end): its samples, and no message decides them. */
static void run_samples(call_runs *cr, size_t j, size_t end, const td_msg *got)
{
    const seq_ctx *s = cr->s;
    bool waited = got && got->t_publish <= start_at(s, j);
    for (size_t m = j; m < end; m++) {
        if (m + 1 < end || waited) {
            fit_sample_add(&cr->k->start, (m + 1 < end ? start_at(s, m + 1) : got->t_begin) -
                                          start_at(s, m));
            cr->k->start_by_calls++;
        }
        cr->at[s->starts.idx[m]] = NAN;
        cr->in_run[m] = true;
    }
}

/* A run's release: the first begin among it, or without one, a step
 * after its last start (the last one's basic.consume). */
static double run_release(const seq_ctx *s, size_t j, size_t end, const td_msg *got)
{
    if (got)
        return got->t_begin;
    double last = start_at(s, end - 1);
    return end - j > 1 ? last + (last - start_at(s, j)) / (double)(end - j - 1) : last;
}

static void node_call_runs(call_runs *cr, int node, const double *calls, size_t ncalls)
{
    const seq_ctx *s = cr->s;
    size_t lo, hi, after = 0;      /* after: the end of the last run */
    node_starts(s, node, &lo, &hi);
    double from = -INFINITY;       /* the last run's release */
    for (size_t c = 0; c < ncalls; c++) {
        size_t j = start_bound(s, lo, hi, calls[c], false);
        if (j < after)
            j = after;
        if (j == hi || !call_owns(cr, lo, j, calls[c], from))
            continue;
        /* a call queued for the lock runs after the release, whenever the
         * next call came */
        double next = c + 1 < ncalls && calls[c] >= from ? calls[c + 1] : INFINITY;
        const td_msg *got;
        size_t end = run_end(s, j, hi, next, cr->at, &got);
        if (end == j)
            continue;
        run_samples(cr, j, end, got);
        after = end;
        from = cr->released[j] = run_release(s, j, end, got);
    }
}

/* The message-decided starts beside the runs: a cycle that ended during a
 * run waited for the lock, so its decision came at the release; and a
 * start whose consumer's first begin waited for a run that started after
 * it (the setter was queued for the lock) tells nothing of its latency. */
static void decisions_beside_runs(call_runs *cr)
{
    const seq_ctx *s = cr->s;
    for (int node = 0; node < s->nnodes; node++) {
        size_t lo, hi;
        node_starts(s, node, &lo, &hi);
        double first = NAN, release = NAN;       /* the last run so far */
        for (size_t j = lo; j < hi; j++) {
            if (cr->in_run[j]) {
                if (!isnan(cr->released[j])) {
                    first = start_at(s, j);
                    release = cr->released[j];
                }
                continue;
            }
            double *at = &cr->at[s->starts.idx[j]];
            if (*at >= first && *at < release)
                *at = release;
        }
        double next_run = INFINITY;              /* the next run's first start */
        for (size_t j = hi; j-- > lo;) {
            const td_msg *f = s->first[s->starts.idx[j]];
            if (cr->in_run[j])
                next_run = start_at(s, j);
            else if (f && next_run < f->t_begin)
                cr->at[s->starts.idx[j]] = NAN;
        }
    }
}

static void call_start_latency(const seq_ctx *s, const double *calls, size_t ncalls,
                               double *at, fit_knobs *k)
{
    size_t n = td_by_node_count(&s->starts);
    call_runs cr = { .s = s, .at = at, .k = k, .in_run = xcalloc(n + 1, sizeof *cr.in_run),
                     .released = xcalloc(n + 1, sizeof *cr.released) };
    for (size_t j = 0; j < n; j++)
        cr.released[j] = NAN;
    for (int node = 0; node < s->nnodes && !*s->stop; node++)
        node_call_runs(&cr, node, calls, ncalls);
    decisions_beside_runs(&cr);
    free(cr.in_run);
    free(cr.released);
}

/* SMLC: from each start's decision to the new consumer's first begin,
 * where its first message was waiting at the decision; and the starts of
 * runtime calls. */
static void smlc_start_latency(const seq_ctx *s, const double *calls, size_t ncalls,
                               fit_knobs *k)
{
    const run_data *rd = s->rd;
    double *at = smlc_decisions(s, k);
    call_start_latency(s, calls, ncalls, at, k);
    for (size_t i = 0; i < rd->ncons && !*s->stop; i++) {
        const td_msg *f = s->first[i];
        if (f && !isnan(at[i]) && f->t_publish <= at[i] && f->t_begin >= at[i])
            fit_sample_add(&k->start, f->t_begin - at[i]);
    }
    free(at);
    fit_sample_summarise(&k->start);
}

static void dmlc_start_latency(const seq_ctx *s, fit_knobs *k)
{
    const run_data *rd = s->rd;
    for (size_t i = 0; i < rd->ncons && !*s->stop; i++) {
        const td_consumer *c = &rd->cons[i];
        const td_msg *f = s->first[i];
        if (!f)
            continue;
        double at = c->t_start;
        double got = !isnan(f->t_deliver) ? f->t_deliver
                   : f->t_begin - (isnan(k->lag.mean) ? 0 : k->lag.mean);
        /* A first message dispatched the instant it was published went to a
         * consumer that was waiting for work, not to one still subscribing. */
        bool waited = f->t_publish <= got - 1e-3;
        /* Only a message already waiting in the broker when the invoker
         * started measures its start: a later one measures the wait for
         * traffic (ActiveMQ puts a new consumer last in its round robin). */
        if (got >= at && waited && f->t_publish <= at)
            fit_sample_add(&k->start, got - at);
        else if (f->t_publish > at)
            k->start_late++;
    }
    fit_sample_summarise(&k->start);
}

/* The latest of the sorted begins [lo, hi) at or before t; NAN if none. */
static double latest_begin(const double *begins, size_t lo, size_t hi, double t)
{
    size_t first = lo;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (begins[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == first ? NAN : begins[lo - 1];
}

/* A trace that stamps consumer_start at the subscription shows the whole
 * start latency: from the receipt that asked for the invoker to the start.
 * An invoker is idle from its creation until its first receipt, so with
 * idleConsumerLimit 1 and no other invoker idle the receipt that asks for
 * the next one is the first receipt of the one started before it on the
 * node: its first begin (the container asks before the listener runs).
 * Where that is not known, or the limit is another, the latest begin on
 * the node up to the start stands in: it may be a later receipt than the
 * one that asked, so it errs short.  An invoker with no begin on its node
 * before it, or none within START_HOLD_MAX_MS, is one the container began
 * with. */
static void dmlc_subscribe_latency(const seq_ctx *s, int idle_limit, fit_knobs *k)
{
    const run_data *rd = s->rd;
    int nodes = s->nnodes;
    size_t *at = xcalloc((size_t)nodes + 2, sizeof *at);   /* each node's part of `begins` */
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (rd->msgs[i].node >= 0 && rd->msgs[i].node < nodes && !isnan(rd->msgs[i].t_begin))
            at[rd->msgs[i].node + 1]++;
    for (int n = 0; n < nodes; n++)
        at[n + 1] += at[n];
    double *begins = xcalloc(at[nodes] + 1, sizeof *begins);
    size_t *fill = xcalloc((size_t)nodes + 1, sizeof *fill);
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        if (m->node >= 0 && m->node < nodes && !isnan(m->t_begin))
            begins[at[m->node] + fill[m->node]++] = m->t_begin;
    }
    for (int n = 0; n < nodes; n++)
        qsort(begins + at[n], at[n + 1] - at[n], sizeof *begins, stats_cmp_double);
    for (int n = 0; n < nodes && !*s->stop; n++) {
        size_t lo, hi;
        node_starts(s, n, &lo, &hi);
        for (size_t j = lo; j < hi; j++) {
            double t = start_at(s, j);
            double asked = NAN;
            if (idle_limit == 1 && j > lo) {
                const td_msg *f = s->first[s->starts.idx[j - 1]];
                if (f && !isnan(f->t_begin) && f->t_begin <= t &&
                    t - f->t_begin <= START_HOLD_MAX_MS)
                    asked = f->t_begin;
            }
            if (isnan(asked))
                asked = latest_begin(begins, at[n], at[n + 1], t);
            if (!isnan(asked) && t - asked <= START_HOLD_MAX_MS)
                fit_sample_add(&k->start, t - asked);
        }
    }
    free(begins);
    free(fill);
    free(at);
    fit_sample_summarise(&k->start);
}

/* When the invoker of seq item i began to wait for it: the previous
 * message's end, or the invoker's start (the last entry of its id); NAN when the trace has neither. */
static double waiting_from(const seq_ctx *s, size_t i)
{
    const td_msg *m = seq_msg(s, i);
    if (i > 0 && same_consumer(seq_msg(s, i - 1), m))
        return seq_msg(s, i - 1)->t_end;
    size_t e = id_end(s, m->node, m->consumer);
    const td_consumer *c = e ? &s->rd->cons[s->ids.idx[e - 1]] : NULL;
    return c && c->node == m->node && c->consumer == m->consumer ? c->t_start : NAN;
}

static void dmlc_lag(const seq_ctx *s, fit_knobs *k)
{
    for (size_t i = 0; i < s->n && !*s->stop; i++) {
        const td_msg *m = seq_msg(s, i);
        if (isnan(m->t_deliver))
            continue;
        double free_at = waiting_from(s, i);   /* when the invoker was back in receive() */
        if (!(m->t_deliver >= free_at && m->t_begin >= m->t_deliver))
            continue;
        /* receive() returned at the begin, or earlier when an invoker it
         * asked for started in between (the container asks before the
         * listener runs) */
        double ret = m->t_begin;
        size_t lo, hi;
        node_starts(s, m->node, &lo, &hi);
        size_t j = start_bound(s, lo, hi, m->t_deliver, false);
        if (j < hi && start_at(s, j) < ret)
            ret = start_at(s, j);
        fit_sample_add(&k->lag, ret - m->t_deliver);
    }
    fit_sample_summarise(&k->lag);
}

static void dmlc_reschedule(const seq_ctx *s, double timeout_ms, int per_task, int *pos_after,
                            fit_knobs *k)
{
    int pos = -1;                  /* attempts of the invoker's task so far; -1 unknown */
    for (size_t i = 0; per_task >= 1 && i < s->n && !*s->stop; i++) {
        const td_msg *m = seq_msg(s, i);
        bool first = i == 0 || !same_consumer(seq_msg(s, i - 1), m);
        double from = waiting_from(s, i);
        if (first)
            pos = isnan(from) ? -1 : 0;
        if (pos == per_task) {     /* a task ended with the message before */
            if (m->t_deliver <= from && m->t_begin >= from)
                fit_sample_add(&k->resched, m->t_begin - from);
            pos = 0;
        }
        pos_after[s->ord[i]] = -1;
        if (pos < 0)
            continue;
        double got = !isnan(m->t_deliver) ? m->t_deliver : m->t_begin;
        double waits = timeout_ms > 0 && got > from ? (got - from) / timeout_ms : 0;
        double whole = floor(waits);
        if (waits - whole > 0.98 || (whole >= 1 && waits - whole < 0.02) || whole > 1e6)
            pos = -1;
        else
            pos = (int)((pos + (int64_t)whole) % per_task) + 1;
        pos_after[s->ord[i]] = pos;
    }
    fit_sample_summarise(&k->resched);
}

/* DMLC bufferedReceiveLag: from an end to its invoker's next begin, where
 * that message was already in the invoker's buffer and the task went on (a
 * task's first attempt is rescheduleLatency's).  pos_after: the attempts of
 * the task after each message, from dmlc_reschedule; -1 unknown. */
static void dmlc_buffered_lag(const seq_ctx *s, int per_task, const int *pos_after,
                              fit_knobs *k)
{
    for (size_t i = 1; i < s->n && !*s->stop; i++) {
        const td_msg *a = seq_msg(s, i - 1), *m = seq_msg(s, i);
        if (!same_consumer(a, m) || isnan(m->t_deliver) || !(m->t_deliver < a->t_end) ||
            m->t_begin < a->t_end)
            continue;
        int pos = per_task >= 1 ? pos_after[s->ord[i - 1]] : 1;
        if (pos >= 1 && (per_task < 1 || pos < per_task))
            fit_sample_add(&k->buffered, m->t_begin - a->t_end);
    }
    fit_sample_summarise(&k->buffered);
}

/* ---- the two containers -------------------------------------------------------------- */

/* ---- RabbitMQ dispatch latency -------------------------------------------------------- */

/* How long a consumer has been without work before a publish counts as
 * finding it idle: its last ack and the cycle's overhead are behind it,
 * and it waits in its poll (or its channel's basic.deliver) for the next.
 * A message whose wait overlaps a consumer start on its node is left out:
 * the consumer may have waited for consumersLock, which the model holds. */
#define IDLE_BEFORE_PUBLISH_MS 5.0

void fit_measure_idle_dispatch(const run_data *rd, fit_samples *out)
{
    memset(out, 0, sizeof *out);
    seq_ctx s;
    seq_init(&s, rd);
    for (size_t i = 0; i + 1 < s.n && !*s.stop; i++) {
        const td_msg *a = seq_msg(&s, i), *b = seq_msg(&s, i + 1);
        if (same_consumer(a, b) && a->t_end + IDLE_BEFORE_PUBLISH_MS <= b->t_publish &&
            b->t_begin >= b->t_publish &&
            !overlaps_start(&s, b->node, b->t_publish, b->t_begin))   /* consumersLock */
            fit_sample_add(out, b->t_begin - b->t_publish);
    }
    fit_sample_summarise(out);
    seq_fini(&s);
}

void fit_measure_smlc(const run_data *rd, const fit_smlc_setup *u, fit_knobs *out)
{
    memset(out, 0, sizeof *out);
    seq_ctx s;
    seq_init(&s, rd);
    cycle_schedule(&s, u->batch < 1 ? 1 : u->batch, u->receive_timeout_ms, u->window_ms, out);
    idle_overhead(&s, u->receive_timeout_ms, u->idle_trigger, u->stopping, u->nstopping, NULL,
                  out);
    smlc_start_latency(&s, u->starting, u->nstarting, out);
    fit_sample_summarise(&out->lag);
    fit_sample_summarise(&out->resched);
    seq_fini(&s);
}

void fit_measure_dmlc(const run_data *rd, const fit_dmlc_setup *u, fit_knobs *out)
{
    memset(out, 0, sizeof *out);
    seq_ctx s;
    seq_init(&s, rd);
    dmlc_lag(&s, out);
    int *pos_after = xcalloc(rd->nmsgs + 1, sizeof *pos_after);
    dmlc_reschedule(&s, u->receive_timeout_ms, u->per_task, pos_after, out);
    dmlc_buffered_lag(&s, u->per_task, pos_after, out);
    task_count tc = { u->per_task, pos_after, out->resched.mean };
    idle_overhead(&s, u->receive_timeout_ms, 1, NULL, 0, out->resched.n ? &tc : NULL, out);
    free(pos_after);
    if (u->start_is_subscribe)
        dmlc_subscribe_latency(&s, u->idle_consumer_limit, out);
    else
        dmlc_start_latency(&s, out);
    seq_fini(&s);
}

void fit_knobs_free(fit_knobs *k)
{
    free(k->cycle);
    free(k->start.v);
    free(k->lag.v);
    free(k->resched.v);
    free(k->buffered.v);
    memset(k, 0, sizeof *k);
}
