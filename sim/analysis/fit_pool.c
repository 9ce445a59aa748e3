/* fit_pool.c -- the part of `lsim fit --replay` that only a pool of plain
 * AMQP consumers has (`container.kind: pool`, the consumers of `lsim
 * record`): the broker and the queues as the trace declared them, the
 * listener's failures read from its requeues, and the latencies measured
 * from its events:
 *
 *   dispatchLatency  publish to deliver, for a message whose consumer was
 *                    idle when it was published (nothing of its own left,
 *                    so the queue had nothing ready either), and had been
 *                    for long enough that its last ack had reached the
 *                    broker;
 *   ackLatency       with dispatchLatency, half each of the gap from the
 *                    end whose ack freed a delivery's credit (that of the
 *                    delivery `prefetch` before it) to that delivery, where
 *                    the message was published before that end, so that it
 *                    waited in the queue for the credit alone (the round
 *                    trip of an ack and the delivery it frees); from
 *                    publishes only when the trace has too few such gaps;
 *   cycleOverhead    end to the next begin, where that message was already
 *                    at the client (its deliver before the end);
 *   startLatency     a consumer's start to its first deliver, less the
 *                    dispatch latency, where a message was waiting then.
 *
 * A failure is an `end` followed by a `requeue` of the same consumer (the
 * listener threw, basic.nack requeue=true), though other consumers' events
 * may come between the two (the recorder writes the requeue after the
 * nack, by when the broker may have delivered the message again); a
 * requeue with no end before it is the broker taking back a closed
 * channel's deliveries, not a failure.
 */
#include "base/stop_signals.h"
#include "analysis/fit.h"
#include "analysis/fit_measure.h"
#include "store/trace.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg_history {
    uint32_t begins, ends, fails;
    uint64_t ended_by;             /* the consumer of its last end not requeued yet, 0 none */
    double t_deliver;              /* its last deliver, ms */
} msg_history;

typedef struct named {
    const char *name;
    size_t i;                      /* its rd->msgs index */
} named;

/* A consumer as the reading goes: what it holds, and since when it is idle. */
typedef struct cons_state {
    uint64_t who;                  /* who_of(node, consumer); 0: an empty slot */
    double t_start, last_end;      /* ms; last_end NAN: none yet */
    double idle_since;             /* running nothing and holding nothing since; NAN: not */
    uint32_t held;                 /* delivered, not begun */
    bool is_busy, has_delivery;
    /* the credit: delivery j is the one the ack of delivery j - prefetch
     * let the broker send */
    double *ends;                  /* the last prefetch ends, a ring; NULL: not kept */
    uint64_t nends, ndelivered;
} cons_state;

typedef struct pool_knobs {
    fit_samples dispatch, ack_gap, pause, start;
} pool_knobs;

typedef struct pool_fit {
    const run_data *rd;
    strbuf *b;
    named *by_name;                /* the named messages, by name */
    size_t nnamed;
    msg_history *h;                /* by rd->msgs index */
    bool is_deterministic;         /* knobs as their means */
    int prefetch;                  /* the trace's; 0: none kept (unlimited, or too many) */
    cons_state *cons;              /* open addressing by who, at most half full */
    size_t ncons, nslots;
    pool_knobs k;
} pool_fit;

/* ---- reading the trace again ---------------------------------------------------- */

static uint64_t who_of(const char *node, const char *consumer)
{
    uint64_t x = 0xcbf29ce484222325ULL;
    for (const char *s = node; *s; s++)
        x = (x ^ (unsigned char)*s) * 0x100000001b3ULL;
    x = (x ^ 0xff) * 0x100000001b3ULL;   /* a byte no UTF-8 text has, between the two */
    for (const char *s = consumer; *s; s++)
        x = (x ^ (unsigned char)*s) * 0x100000001b3ULL;
    return x ? x : 1;
}

static int named_cmp(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The message named `name` (the first published, if several are), or -1. */
static long msg_index(const pool_fit *f, const char *name)
{
    size_t lo = 0, hi = f->nnamed;
    while (lo < hi) {              /* the first not below name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(f->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nnamed && strcmp(f->by_name[lo].name, name) == 0 ? (long)f->by_name[lo].i : -1;
}

static cons_state *slot_of(cons_state *v, size_t nslots, uint64_t who)
{
    size_t i = (size_t)((who * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
    while (v[i].who && v[i].who != who)
        i = (i + 1) & (nslots - 1);
    return &v[i];
}

/* The consumer `who`, a new one (idle since t) if it was not met yet. */
static cons_state *consumer(pool_fit *f, uint64_t who, double t)
{
    if (2 * (f->ncons + 1) > f->nslots) {
        size_t n = f->nslots ? 2 * f->nslots : 64;
        cons_state *v = xcalloc(n, sizeof *v);
        for (size_t i = 0; i < f->nslots; i++)
            if (f->cons[i].who)
                *slot_of(v, n, f->cons[i].who) = f->cons[i];
        free(f->cons);
        f->cons = v;
        f->nslots = n;
    }
    cons_state *c = slot_of(f->cons, f->nslots, who);
    if (!c->who) {
        *c = (cons_state){ .who = who, .t_start = t, .last_end = NAN, .idle_since = t };
        if (f->prefetch)
            c->ends = xcalloc((size_t)f->prefetch, sizeof *c->ends);
        f->ncons++;
    }
    return c;
}

/* How long a consumer is idle before a publish counts as finding it so:
 * until its last ack reaches the broker, the broker sees it still busy
 * (an ack's way on loopback is well under a millisecond). */
#define ACK_SETTLED_MS 5.0
/* The largest prefetch whose credit is followed (a ring of its ends per
 * consumer); above it, or with none, the round trip is not measured. */
#define CREDIT_RING_MAX 4096
/* The fewest ack round trips the latencies are measured from. */
#define ROUND_TRIPS_MIN 3

/* A first deliver: a dispatch when its consumer was idle at the publish;
 * the ack's round trip when it waited in the queue for this consumer's ack;
 * a start's when it waited for this consumer to start.  A redelivery shows
 * none but the last: it waited for its requeue, not its publish. */
static void on_deliver(pool_fit *f, cons_state *c, const td_msg *m, const msg_history *h,
                       double t)
{
    if (!c->has_delivery && m->t_publish < c->t_start)
        fit_sample_add(&f->k.start, t - c->t_start);
    else if (h->begins > 0 || h->t_deliver > 0)
        ;
    else if (!isnan(c->idle_since) && c->idle_since + ACK_SETTLED_MS <= m->t_publish)
        fit_sample_add(&f->k.dispatch, t - m->t_publish);
    else if (c->ends && c->ndelivered >= (uint64_t)f->prefetch &&
             c->nends + f->prefetch > c->ndelivered) {
        /* the end whose ack gave this delivery its credit: no delivery
         * goes before the ack of the one prefetch before it reaches the
         * broker, and one published before that end waited for nothing
         * else */
        double freed = c->ends[(c->ndelivered - (uint64_t)f->prefetch) % (uint64_t)f->prefetch];
        if (m->t_publish < freed)
            fit_sample_add(&f->k.ack_gap, t - freed);
    }
    c->ndelivered++;
    c->has_delivery = true;
    c->held++;
    c->idle_since = NAN;
}

/* A begin: the client's own time between two, when the message was at the
 * client before the last one ended. */
static void on_begin(pool_fit *f, cons_state *c, const msg_history *h, double t)
{
    if (!c->is_busy && !isnan(c->last_end) && h->t_deliver < c->last_end)
        fit_sample_add(&f->k.pause, t - c->last_end);
    c->held -= c->held > 0;
    c->is_busy = true;
    c->idle_since = NAN;
}

static void on_event(pool_fit *f, const trace_event *ev)
{
    double t = (double)ev->t_ns / 1e6;
    uint64_t who = who_of(ev->node, ev->consumer);
    if (ev->kind == TEV_CONSUMER_START || ev->kind == TEV_CONSUMER_STOP) {
        if (ev->kind == TEV_CONSUMER_START)
            (void)consumer(f, who, t);
        return;
    }
    long i = ev->msg[0] && ev->kind != TEV_PUBLISH ? msg_index(f, ev->msg) : -1;
    if (i < 0)
        return;
    msg_history *h = &f->h[i];
    cons_state *c = consumer(f, who, t);
    if (ev->kind == TEV_DELIVER) {
        on_deliver(f, c, &f->rd->msgs[i], h, t);
        h->t_deliver = t;
    } else if (ev->kind == TEV_BEGIN) {
        on_begin(f, c, h, t);
        h->begins++;
    } else if (ev->kind == TEV_END) {
        h->ends++;
        h->ended_by = who;
        c->is_busy = false;
        c->last_end = t;
        if (c->ends)
            c->ends[c->nends++ % (uint64_t)f->prefetch] = t;
        if (c->held == 0)
            c->idle_since = t;
    } else if (ev->kind == TEV_REQUEUE) {
        bool is_failure = h->ended_by == who;
        h->fails += is_failure;
        h->ended_by = 0;
        if (!is_failure) {         /* the broker took it back: a closed channel */
            c->held -= c->held > 0;
            c->is_busy = false;
        }
    }
}

/* Each message's history and the knobs' samples, from a second reading. */
static int read_trace(pool_fit *f, const char *path, sim_diag *d)
{
    const run_data *rd = f->rd;
    f->by_name = xmalloc((rd->nmsgs + 1) * sizeof *f->by_name);
    for (size_t i = 0; i < rd->nmsgs; i++)
        if (rd->msgs[i].name)
            f->by_name[f->nnamed++] = (named){ rd->msgs[i].name, i };
    qsort(f->by_name, f->nnamed, sizeof *f->by_name, named_cmp);
    f->h = xcalloc(rd->nmsgs + 1, sizeof *f->h);
    char *prefetch = fit_meta_strip(run_data_meta(rd, "prefetch")), *end;
    long p = prefetch ? strtol(prefetch, &end, 10) : 0;
    f->prefetch = prefetch && !*end && p >= 1 && p <= CREDIT_RING_MAX ? (int)p : 0;
    free(prefetch);
    trace_reader *r;
    if (trace_reader_open(path, &r, d) != SIM_OK)
        return SIM_EINPUT;
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, d)) == 1 && !*stop_interrupted())
        on_event(f, &ev);
    trace_reader_close(r);
    fit_sample_summarise(&f->k.dispatch);
    fit_sample_summarise(&f->k.ack_gap);
    fit_sample_summarise(&f->k.pause);
    /* a start's first delivery went from the queue to the client too */
    double dispatch = f->k.dispatch.n ? f->k.dispatch.median : 0;
    for (size_t i = 0; i < f->k.start.n; i++)
        f->k.start.v[i] = fmax(f->k.start.v[i] - dispatch, 0);
    fit_sample_summarise(&f->k.start);
    return rc < 0 ? SIM_EINPUT : SIM_OK;   /* stopped by a signal: the caller says so */
}

/* Failed on every delivery: each begin failed, but perhaps the last one,
 * still running when the trace ends. */
static bool fails_always(const msg_history *h)
{
    return h->fails > 0 && (h->fails == h->begins ||
                            (h->fails + 1 == h->begins && h->ends < h->begins));
}

/* ---- the broker ------------------------------------------------------------------ */

/* A whole number of ms from the metadata, as a duration; false when absent. */
static bool ms_meta(const run_data *rd, const char *key, long long *ms)
{
    char *v = fit_meta_strip(run_data_meta(rd, key)), *end;
    bool ok = v && (*ms = strtoll(v, &end, 10), end != v && !*end && *ms >= 0);
    free(v);
    return ok;
}

static void broker_yaml(const pool_fit *f)
{
    const pool_knobs *k = &f->k;
    strbuf *b = f->b;
    const run_data *rd = f->rd;
    sb_add(b, "broker:\n  kind: rabbitmq\n");
    const char *line = run_data_meta(rd, "broker");
    char version[32];
    if (line && fit_version_after(line, "RabbitMQ ", version, sizeof version) &&
        strchr(version, '.'))
        sb_addf(b, "  version: \"%s\"   # the trace's broker line\n", version);
    long long ms;
    if (ms_meta(rd, "consumer_timeout_ms", &ms))
        sb_addf(b, "  consumerTimeout: %lldms   # the trace's consumer_timeout_ms\n", ms);
    if (ms_meta(rd, "channel_tick_interval_ms", &ms) && ms > 0)
        sb_addf(b, "  channelTickInterval: %lldms   # the trace's channel_tick_interval_ms\n",
                ms);
    /* The ack's round trip is the one the model can split in two: a
     * publish to an idle consumer also holds the publisher's way to the
     * broker, which the model has no latency for. */
    if (k->ack_gap.n >= ROUND_TRIPS_MIN) {
        fit_samples half = { 0 };
        for (size_t i = 0; i < k->ack_gap.n; i++)
            fit_sample_add(&half, k->ack_gap.v[i] / 2);
        fit_sample_summarise(&half);
        sb_add(b, "  # dispatchLatency and ackLatency: half each of the gap from the end whose "
                  "ack freed\n  #   a delivery's credit (the delivery prefetch before it) to "
                  "that delivery, where\n  #   the message was published before that end: "
                  "the round trip of the ack and\n  #   the delivery it frees; ackLatency: the "
                  "same, dispatchLatency's mean\n");
        fit_samples_yaml(b, &half, "dispatchLatency", f->is_deterministic);
        free(half.v);
        if (k->dispatch.n)
            sb_addf(b, "  #   (publish to deliver, to an idle consumer: %zu samples, median "
                       "%.3f ms; that\n  #   holds the publisher's way to the broker too)\n",
                    k->dispatch.n, k->dispatch.median);
        return;
    }
    sb_addf(b, "  # dispatchLatency: publish to deliver, for messages whose consumer was idle "
               "(and\n  #   had been for %.0f ms) when they were published; fewer than %d acks "
               "freed\n  #   a delivery, so the round trip of an ack is not measured\n",
            ACK_SETTLED_MS, ROUND_TRIPS_MIN);
    if (k->dispatch.n == 0)
        sb_add(b, "  #   no such message in the trace: left at 0\n");
    else
        fit_samples_yaml(b, &k->dispatch, "dispatchLatency", f->is_deterministic);
}

/* ---- the queues ------------------------------------------------------------------ */

static void quoted(strbuf *b, const char *s, size_t n)
{
    sb_add(b, "'");
    for (size_t i = 0; i < n; i++)
        sb_add(b, s[i] == '\'' ? "''" : (char[]){ s[i], '\0' });
    sb_add(b, "'");
}

/* A whole number of at least 0 after "name=" in a token. */
static bool arg_of(const char *tok, size_t len, const char *name, long long *out)
{
    size_t n = strlen(name);
    if (len <= n + 1 || strncmp(tok, name, n) != 0 || tok[n] != '=')
        return false;
    char *end;
    *out = strtoll(tok + n + 1, &end, 10);
    return end == tok + len && *out >= 0;
}

/* One queue_declared line, "NAME TYPE [x-arg=value ...] [not-consumed]",
 * as a queue of the scenario; its arrivals are the trace's publishes when
 * it is the trace's queue, none else.  True when the pool consumes it. */
static bool queue_yaml(const pool_fit *f, const char *decl, const char *arrivals)
{
    strbuf *b = f->b;
    const char *p = decl + strspn(decl, " \t");
    size_t nlen = strcspn(p, " \t");
    bool is_traced = f->rd->queue && strlen(f->rd->queue) == nlen &&
                     strncmp(f->rd->queue, p, nlen) == 0;
    sb_add(b, "  - name: ");
    quoted(b, p, nlen);
    sb_add(b, "\n");
    bool is_consumed = true;
    for (p += nlen; *(p += strspn(p, " \t"));) {
        size_t len = strcspn(p, " \t(");
        long long v;
        if (len == 0)
            break;         /* a comment in parentheses */
        if (len == 6 && strncmp(p, "quorum", 6) == 0)
            sb_add(b, "    type: quorum\n");
        else if (len == 12 && strncmp(p, "not-consumed", 12) == 0)
            is_consumed = false;
        else if (arg_of(p, len, "x-message-ttl", &v))
            sb_addf(b, "    messageTtl: %lldms\n", v);
        else if (arg_of(p, len, "expiration", &v))
            sb_addf(b, "    expiration: %lldms\n", v);
        else if (arg_of(p, len, "x-max-length", &v))
            sb_addf(b, "    maxLength: %lld\n", v);
        else if (arg_of(p, len, "x-max-length-bytes", &v))
            sb_addf(b, "    maxLengthBytes: %lld\n", v);
        else if (arg_of(p, len, "body-bytes", &v))
            sb_addf(b, "    messageBytes: %lld\n", v);
        else if (arg_of(p, len, "x-delivery-limit", &v))
            sb_addf(b, "    deliveryLimit: %lld\n", v);
        else if (len > 11 && strncmp(p, "x-overflow=", 11) == 0)
            sb_addf(b, "    overflow: %.*s\n", (int)(len - 11), p + 11);
        else if (len > 26 && strncmp(p, "x-dead-letter-routing-key=", 26) == 0) {
            sb_add(b, "    deadLetter: { queue: ");
            quoted(b, p + 26, len - 26);
            sb_add(b, " }\n");
        } else if (!(len == 7 && strncmp(p, "classic", 7) == 0))
            sb_addf(b, "    # %.*s: an argument lsim does not replay\n", (int)len, p);
        p += len;
    }
    if (is_traced && f->rd->other_queue) {
        sb_addf(b, "    arrivals: { kind: trace, path: '%s', queue: ", arrivals);
        quoted(b, f->rd->queue, strlen(f->rd->queue));
        sb_add(b, " }   # its publishes alone\n");
    } else if (is_traced) {
        sb_addf(b, "    arrivals: { kind: trace, path: '%s' }\n", arrivals);
    } else {
        sb_add(b, "    # no publishes of its own in the trace\n    arrivals: { kind: phases, "
                  "phases: [ { duration: 1ms } ] }\n    service: { kind: constant, value: 1ms "
                  "}\n");
    }
    return is_consumed;
}

/* The queues: the trace's queue_declared lines, or its one queue. */
static void queues_yaml(const pool_fit *f, const char *arrivals, strbuf *consumed)
{
    const run_data *rd = f->rd;
    size_t ndecl = 0;
    for (size_t i = 0; i < rd->nmeta; i++)
        ndecl += strcmp(rd->meta[2 * i], "queue_declared") == 0;
    if (ndecl == 0) {
        sb_add(f->b, "# the trace declares no queue: its one queue, with no arguments\nqueue:\n"
                     "  name: ");
        const char *q = rd->queue ? rd->queue : "queue";
        quoted(f->b, q, strlen(q));
        sb_addf(f->b, "\n  arrivals: { kind: trace, path: '%s' }\n", arrivals);
        return;
    }
    sb_add(f->b, "# the queues as the trace's queue_declared lines give them\nqueues:\n");
    for (size_t i = 0; i < rd->nmeta; i++) {
        if (strcmp(rd->meta[2 * i], "queue_declared") != 0)
            continue;
        const char *decl = rd->meta[2 * i + 1];
        if (queue_yaml(f, decl, arrivals)) {
            const char *name = decl + strspn(decl, " \t");
            sb_add(consumed, consumed->len ? ", " : "");
            quoted(consumed, name, strcspn(name, " \t"));
        }
    }
}

/* ---- the container --------------------------------------------------------------- */

static void failures_yaml(const pool_fit *f)
{
    strbuf *b = f->b;
    size_t every = 0, some = 0;
    for (size_t i = 0; i < f->rd->nmsgs; i++) {
        every += fails_always(&f->h[i]);
        some += f->h[i].fails > 0 && !fails_always(&f->h[i]);
    }
    if (every == 0 && some == 0)
        return;
    sb_addf(b, "  # the listener's failures: an end followed by a requeue of the same consumer"
               "\n  #   (basic.nack requeue=true); %zu message(s) failed on every delivery\n",
            every);
    if (some)
        sb_addf(b, "  #   %zu more failed on some of their deliveries only: a rule fails a "
                   "message\n  #   on every delivery, so those are replayed as succeeding\n",
                some);
    if (every == 0)
        return;
    sb_add(b, "  failures:\n    - messages: [");
    size_t n = 0;
    for (size_t i = 0; i < f->rd->nmsgs; i++) {
        if (!fails_always(&f->h[i]))
            continue;
        if (n++)
            sb_add(b, n % 16 == 1 ? ",\n        " : ", ");
        sb_addf(b, "%zu", i + 1);   /* its number in publish order */
    }
    sb_add(b, "]\n");
}

static void container_yaml(const pool_fit *f, const strbuf *consumed)
{
    const pool_knobs *k = &f->k;
    strbuf *b = f->b;
    const run_data *rd = f->rd;
    sb_add(b, "container:\n  kind: pool\n");
    char *v = fit_meta_strip(run_data_meta(rd, "consumers"));
    if (v)
        sb_addf(b, "  consumers: %s   # the trace's, per node and queue\n", v);
    free(v);
    v = fit_meta_strip(run_data_meta(rd, "prefetch"));
    if (v)
        sb_addf(b, "  prefetch: %s\n", v);
    free(v);
    if (consumed->len)
        sb_addf(b, "  queues: [ %s ]\n", consumed->s);
    failures_yaml(f);
    sb_add(b, "  # startLatency: a consumer's start to its first deliver, less the dispatch "
              "latency,\n  #   where a message was waiting when it started\n");
    if (k->start.n == 0)
        sb_add(b, "  #   no start shows it: left at 0\n");
    else
        fit_samples_yaml(b, &k->start, "startLatency", f->is_deterministic);
    sb_add(b, "  # cycleOverhead: a message's end to the same consumer's next begin, where "
              "that\n  #   message was already at the client\n");
    if (k->pause.n == 0)
        sb_add(b, "  #   no such gap in the trace: left at 0\n");
    else
        fit_samples_yaml(b, &k->pause, "cycleOverhead", f->is_deterministic);
}

int fit_pool_yaml(strbuf *b, const char *trace_path, const char *arrivals, const run_data *rd,
                  bool deterministic, sim_diag *d)
{
    pool_fit f = { .rd = rd, .b = b, .is_deterministic = deterministic };
    strbuf consumed = { 0 };
    int rc = read_trace(&f, trace_path, d);
    if (rc == SIM_OK) {
        broker_yaml(&f);
        queues_yaml(&f, arrivals, &consumed);
        container_yaml(&f, &consumed);
    }
    sb_free(&consumed);
    free(f.k.dispatch.v);
    free(f.k.ack_gap.v);
    free(f.k.pause.v);
    free(f.k.start.v);
    free(f.by_name);
    free(f.h);
    for (size_t i = 0; i < f.nslots; i++)
        free(f.cons[i].ends);
    free(f.cons);
    return rc;
}
