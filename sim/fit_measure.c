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
 * summed span over the summed k, minus the timeout.
 *
 * Start latency.  From the decision that asked for a consumer to its first
 * delivery, where its first message was already waiting at the decision.
 * SMLC: the decision is the end of the starting consumer's cycle plus its
 * cycle overhead (of the consumers on the node in their gap at the
 * consumer_start, the one for which that comes closest to it); the
 * delivery is the first begin.
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
 */
#include "cli.h"
#include "fit_measure.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define START_HOLD_MAX_MS 100.0    /* the longest lock hold a start is taken to be */

typedef struct seq_ctx {
    const run_data *rd;
    size_t *ord;                   /* begun and ended messages by (node, consumer, begin) */
    size_t n;
    const td_msg **first, **last;  /* per rd->cons: its first and last message, or NULL */
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

static void seq_init(seq_ctx *s, const run_data *rd)
{
    s->rd = rd;
    s->stop = cli_interrupted();
    keyed *k = xcalloc(rd->nmsgs + 1, sizeof *k);
    s->n = 0;
    for (size_t i = 0; i < rd->nmsgs; i++) {
        const td_msg *m = &rd->msgs[i];
        if (m->node >= 0 && !isnan(m->t_begin) && !isnan(m->t_end))
            k[s->n++] = (keyed){ .node = m->node, .consumer = m->consumer, .t = m->t_begin,
                                 .idx = i };
    }
    qsort(k, s->n, sizeof *k, cmp_keyed);
    s->ord = xcalloc(s->n + 1, sizeof *s->ord);
    for (size_t i = 0; i < s->n; i++)
        s->ord[i] = k[i].idx;
    free(k);
    s->first = xcalloc(rd->ncons + 1, sizeof *s->first);
    s->last = xcalloc(rd->ncons + 1, sizeof *s->last);
    /* one pass: each consumer's messages are a run of the order */
    for (size_t i = 0; i < s->n && !*s->stop;) {
        size_t j = i;
        while (j + 1 < s->n && same_consumer(seq_msg(s, j + 1), seq_msg(s, i)))
            j++;
        for (size_t c = 0; c < rd->ncons; c++)
            if (rd->cons[c].node == seq_msg(s, i)->node &&
                rd->cons[c].consumer == seq_msg(s, i)->consumer) {
                s->first[c] = seq_msg(s, i);
                s->last[c] = seq_msg(s, j);
            }
        i = j + 1;
    }
}

static void seq_fini(seq_ctx *s)
{
    free(s->ord);
    free(s->first);
    free(s->last);
}

/* ---- samples ---------------------------------------------------------------------- */

static void sample_add(fit_samples *fs, double v)
{
    xgrow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof *fs->v);
    fs->v[fs->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void sample_summarise(fit_samples *fs)
{
    fs->mean = fs->median = fs->sigma_log = NAN;
    if (fs->n == 0)
        return;
    qsort(fs->v, fs->n, sizeof *fs->v, cmp_double);
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

double fit_step_at(const fit_step *s, size_t n, double t)
{
    double v = 0;
    for (size_t i = 0; i < n && s[i].from_ms <= t; i++)
        v = s[i].value_ms;
    return v;
}

/* ---- SMLC cycle overhead ------------------------------------------------------------ */

/* Whether [a, b] overlaps the lock hold of a consumer start on `node`. */
static bool overlaps_start(const seq_ctx *s, int node, double a, double b)
{
    const run_data *rd = s->rd;
    for (size_t i = 0; i < rd->ncons; i++) {
        const td_consumer *c = &rd->cons[i];
        if (c->node != node || isnan(c->t_start))
            continue;
        const td_msg *f = s->first[i];
        double until = c->t_start + START_HOLD_MAX_MS;
        if (f && f->t_begin < until)
            until = f->t_begin;
        if (a <= until && b >= c->t_start)
            return true;
    }
    return false;
}

typedef struct window_acc {
    double *sum;                   /* [batch] */
    size_t *n;
} window_acc;

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
        k->cycle_gaps++;
    }
    k->cycle = xcalloc(nw, sizeof *k->cycle);
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
        if (n >= 5 && w[i].n[batch - 1] >= 3 && !same)
            k->cycle[k->ncycle++] = (fit_step){ .from_ms = (double)i * width, .value_ms = v,
                                                .n = n };
        else if (same)
            k->cycle[k->ncycle - 1].n += n;
        free(w[i].sum);
        free(w[i].n);
    }
    free(w);
    if (k->ncycle)
        k->cycle[0].from_ms = 0;
}

/* ---- idle stops ---------------------------------------------------------------------- */

static void idle_overhead(const seq_ctx *s, double rt, fit_knobs *out)
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
        span += x;
        polls += polls_here;
        out->idle_stops++;
    }
    out->idle_polls = polls;
    if (polls > 0)
        out->idle_ms = fmax(span / polls - rt, 0);
}

/* ---- start latency ------------------------------------------------------------------- */

static double node_first_start(const run_data *rd, int node)
{
    double t = INFINITY;
    for (size_t i = 0; i < rd->ncons; i++)
        if (rd->cons[i].node == node && rd->cons[i].t_start < t)
            t = rd->cons[i].t_start;
    return t;
}

/* SMLC: the starter's cycle end + its overhead, or NAN for a consumer the
 * container started with. */
static double smlc_decision(const seq_ctx *s, const td_consumer *c, const fit_knobs *k)
{
    if (c->t_start <= node_first_start(s->rd, c->node))
        return NAN;
    /* Of the consumers in their gap at the start, the one whose cycle end
     * plus overhead comes closest to it. */
    double best = NAN;
    for (size_t i = 0; i < s->n; i++) {
        const td_msg *a = seq_msg(s, i);
        if (a->node != c->node || a->consumer == c->consumer || a->t_end > c->t_start)
            continue;
        bool in_gap = i + 1 == s->n || !same_consumer(a, seq_msg(s, i + 1)) ||
                      seq_msg(s, i + 1)->t_begin > c->t_start;
        double at = a->t_end + fit_step_at(k->cycle, k->ncycle, a->t_end);
        if (in_gap && (isnan(best) || fabs(at - c->t_start) < fabs(best - c->t_start)))
            best = at;
    }
    return best;
}

static void smlc_start_latency(const seq_ctx *s, fit_knobs *k)
{
    const run_data *rd = s->rd;
    for (size_t i = 0; i < rd->ncons && !*s->stop; i++) {
        const td_consumer *c = &rd->cons[i];
        const td_msg *f = s->first[i];
        double at = smlc_decision(s, c, k);
        if (f && !isnan(at) && f->t_publish <= at && f->t_begin >= at)
            sample_add(&k->start, f->t_begin - at);
    }
    sample_summarise(&k->start);
}

static void dmlc_start_latency(const seq_ctx *s, fit_knobs *k)
{
    const run_data *rd = s->rd;
    for (size_t i = 0; i < rd->ncons && !*s->stop; i++) {
        const td_consumer *c = &rd->cons[i];
        const td_msg *f = s->first[i];
        if (!f)
            continue;
        /* Started on a receipt: the node had received a message before. */
        bool has_receipt = false;
        for (size_t j = 0; j < s->n && !has_receipt; j++) {
            const td_msg *m = seq_msg(s, j);
            has_receipt = m->node == c->node &&
                          ((!isnan(m->t_deliver) ? m->t_deliver : m->t_begin) <= c->t_start);
        }
        double at = c->t_start;
        double got = !isnan(f->t_deliver) ? f->t_deliver
                   : f->t_begin - (isnan(k->lag.mean) ? 0 : k->lag.mean);
        /* A first message dispatched the instant it was published went to a
         * consumer that was waiting for work, not to one still subscribing. */
        bool waited = f->t_publish <= got - 1e-3;
        if (got >= at && waited && (f->t_publish <= at || has_receipt))
            sample_add(&k->start, got - at);
    }
    sample_summarise(&k->start);
}

static void dmlc_lag(const seq_ctx *s, fit_knobs *k)
{
    const run_data *rd = s->rd;
    for (size_t i = 0; i < s->n && !*s->stop; i++) {
        const td_msg *m = seq_msg(s, i);
        if (isnan(m->t_deliver))
            continue;
        double free_at = NAN;      /* when the invoker was back in receive() */
        if (i > 0 && same_consumer(seq_msg(s, i - 1), m)) {
            free_at = seq_msg(s, i - 1)->t_end;
        } else {
            for (size_t j = 0; j < rd->ncons; j++)
                if (rd->cons[j].node == m->node && rd->cons[j].consumer == m->consumer)
                    free_at = rd->cons[j].t_start;
        }
        if (!(m->t_deliver >= free_at && m->t_begin >= m->t_deliver))
            continue;
        /* receive() returned at the begin, or earlier when an invoker it
         * asked for started in between (the container asks before the
         * listener runs) */
        double ret = m->t_begin;
        for (size_t j = 0; j < rd->ncons; j++)
            if (rd->cons[j].node == m->node && rd->cons[j].t_start >= m->t_deliver &&
                rd->cons[j].t_start < ret)
                ret = rd->cons[j].t_start;
        sample_add(&k->lag, ret - m->t_deliver);
    }
    sample_summarise(&k->lag);
}

/* ---- the two containers -------------------------------------------------------------- */

void fit_measure_smlc(const run_data *rd, int batch, double receive_timeout_ms,
                      double window_ms, fit_knobs *out)
{
    memset(out, 0, sizeof *out);
    seq_ctx s;
    seq_init(&s, rd);
    cycle_schedule(&s, batch < 1 ? 1 : batch, receive_timeout_ms, window_ms, out);
    idle_overhead(&s, receive_timeout_ms, out);
    smlc_start_latency(&s, out);
    sample_summarise(&out->lag);
    seq_fini(&s);
}

void fit_measure_dmlc(const run_data *rd, double receive_timeout_ms, fit_knobs *out)
{
    memset(out, 0, sizeof *out);
    seq_ctx s;
    seq_init(&s, rd);
    dmlc_lag(&s, out);
    idle_overhead(&s, receive_timeout_ms, out);
    dmlc_start_latency(&s, out);
    seq_fini(&s);
}

void fit_knobs_free(fit_knobs *k)
{
    free(k->cycle);
    free(k->start.v);
    free(k->lag.v);
    memset(k, 0, sizeof *k);
}
