/* arrivals_replay.c -- arrivals replayed from files: a workload file
 * (`kind: file`) or the publishes of a real trace (`kind: trace`).
 *
 * Both files are read twice: once whole when the scenario is built, so
 * that a bad line is an input error before anything runs, and once while
 * the run goes, one line at a time.
 *
 * A trace says when a message was published, but its service time (end -
 * begin) comes later in the file.  The trace generator therefore reads
 * ahead until the oldest publish it holds has ended, keeping the publishes
 * met on the way: what it holds is what the real system had in flight.  A
 * message the trace never finished gets the mean service time of those that
 * did, and the run says so; but one still running when the trace ends (its
 * begin neither ended, nor taken back, nor followed by its consumer's stop)
 * is censored, its service known to be longer than it had run: it gets the
 * mean only if that is longer, else it ends just after the trace's end, so
 * a replay does not finish it inside the observation.
 */
#include "workload/arrivals.h"
#include "base/mem.h"
#include "store/trace.h"
#include "store/workload_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file that cannot be opened is the scenario's fault: say so at `path:`. */
static int at_path(cfg_node *cfg, sim_diag *d)
{
    if (d->is_set && d->line == 0) {
        char msg[sizeof d->file + sizeof d->msg + 16];
        snprintf(msg, sizeof msg, "path: %s: %s", d->file, d->msg);
        cfg_node *p = cfg_peek(cfg, "path");
        d->is_set = false;
        diag_at(d, p, "%s", msg);
    }
    return SIM_EINPUT;
}

/* ---- file ------------------------------------------------------------------- */

typedef struct file_arrivals {
    arrivals base;
    wfile *w;
    const char *path;              /* the run's (sim_resolve_path) */
    bool has_service;              /* every row has service_ms */
} file_arrivals;

static int file_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                       arrivals **out, sim_diag *d);

static bool file_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    file_arrivals *f = (file_arrivals *)a;
    wfile_row row;
    sim_diag d;                    /* not cleared: a diag is written whole when set */
    d.is_set = false;
    int rc = wfile_next(f->w, &row, &d);
    if (rc < 0) {                  /* the file changed since it was checked */
        char buf[sizeof d.file + sizeof d.msg + 32];
        diag_format(&d, buf, sizeof buf);
        sim_fail(ctx, "%s", buf);
    }
    if (rc <= 0)
        return false;
    out->t = f->base.start + row.t_ns;
    out->group = row.group[0] ? sim_group_intern(ctx, row.group, strlen(row.group)) : -1;
    out->group_seq = row.group_seq;
    out->service = row.service_ns >= 0 ? row.service_ns : ARRIVAL_DRAW_SERVICE;
    return true;
}

static bool file_has_service(const arrivals *a)
{
    return ((const file_arrivals *)a)->has_service;
}

static bool bounded(const arrivals *a)
{
    (void)a;
    return true;
}

static void file_destroy(arrivals *a)
{
    file_arrivals *f = (file_arrivals *)a;
    wfile_close(f->w);
    free(f);
}

const arrivals_ops arrivals_file = {
    .kind = "file", .create = file_create, .next = file_next, .is_bounded = bounded,
    .has_service = file_has_service, .destroy = file_destroy,
};

/* Reads the whole file once: every line must be good. */
static int file_check(file_arrivals *f, sim_diag *d)
{
    wfile *w;
    if (wfile_open(f->path, &w, d) != SIM_OK)
        return SIM_EINPUT;
    wfile_row row;
    int rc;
    f->has_service = true;
    while ((rc = wfile_next(w, &row, d)) == 1)
        if (row.service_ns < 0)
            f->has_service = false;
    wfile_close(w);
    return rc == 0 ? SIM_OK : SIM_EINPUT;
}

static int file_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                       arrivals **out, sim_diag *d)
{
    (void)stream;
    const char *path;
    int64_t offset;
    if (cfg_get_string(cfg, "path", NULL, CFG_REQUIRED, &path, d) != SIM_OK ||
        cfg_get_duration(cfg, "offset", 0, 0, &offset, d) != SIM_OK)
        return SIM_EINPUT;
    file_arrivals *f = xcalloc(1, sizeof *f);
    f->base = (arrivals){ .ops = &arrivals_file, .start = start + offset };
    f->path = sim_resolve_path(ctx, path);
    if (file_check(f, d) != SIM_OK || wfile_open(f->path, &f->w, d) != SIM_OK) {
        file_destroy(&f->base);
        return at_path(cfg, d);
    }
    *out = &f->base;
    return SIM_OK;
}

/* ---- trace ------------------------------------------------------------------- */

typedef struct pending {
    uint64_t key;                  /* hash of the message id */
    sim_time t;
    sim_time service;              /* -1 until its end is read */
    sim_time begin;                /* its open begin (not ended, not taken back), -1 none */
    uint64_t who;                  /* the consumer of that begin (consumer_key) */
    int32_t group;
    uint32_t next_same;            /* the ring position + 1 of the next unended publish of
                                    * its key, 0 none */
} pending;

/* An index of the unended publishes by key: for each key, its oldest and
 * newest in the ring, as ring positions + 1 (0: an empty slot), chained
 * oldest first through next_same; the key itself is the ring entry's.
 * Open addressing, linear probing, at most three quarters full; built
 * again when the ring grows, which moves its entries, and at twice the
 * slots when one more key would pass three quarters (once when both fall
 * on the same publish). */
typedef struct key_slot {
    uint32_t first, last;
} key_slot;

/* When a consumer last stopped: a message it had begun and not ended is
 * not running after that.  Open addressing by key, at most half full. */
typedef struct consumer_stop {
    uint64_t who;                  /* consumer_key; 0: an empty slot */
    sim_time t;
} consumer_stop;

/* Ring positions fit 32 bits: the ring stops growing at 2^31 publishes
 * (64 GB of them) in flight. */
#define RING_MAX ((size_t)1 << 31)

typedef struct trace_arrivals {
    arrivals base;
    trace_reader *r;
    const char *path;              /* the run's (sim_resolve_path) */
    const char *queue;             /* only the publishes to it; NULL: every one */
    pending *ring;                 /* publishes read, not yet handed out */
    size_t cap, head, n;           /* ring: cap a power of two */
    key_slot *slots;               /* the index: nslots a power of two */
    size_t nslots, nkeys;
    bool at_eof;
    sim_time end;                  /* the trace's end: its last event, shutdown or
                                    * observed_until, the latest */
    consumer_stop *stops;          /* each consumer's last stop: nstop_slots a power of two */
    size_t nstop_slots, nstops;
    double service_sum;            /* for messages the trace never finished */
    uint64_t service_count, unfinished;
    bool has_ends;                 /* some listener ended: the trace gives service times */
} trace_arrivals;

static uint64_t msg_key(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* A hash of a consumer's node and id (never 0). */
static uint64_t consumer_key(const char *node, const char *consumer)
{
    uint64_t h = msg_key(node);
    h = (h ^ 0xff) * 0x100000001b3ULL;   /* a byte no UTF-8 text has, between the two */
    for (const char *s = consumer; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h ? h : 1;
}

/* ---- the consumers' stops ------------------------------------------------------- */

/* The slot of `who`, or the empty slot where it would go. */
static consumer_stop *stop_slot(const trace_arrivals *t, uint64_t who)
{
    size_t i = (size_t)((who * 0x9e3779b97f4a7c15ULL) >> 32) & (t->nstop_slots - 1);
    while (t->stops[i].who && t->stops[i].who != who)
        i = (i + 1) & (t->nstop_slots - 1);
    return &t->stops[i];
}

static void stop_record(trace_arrivals *t, uint64_t who, sim_time at)
{
    if (2 * (t->nstops + 1) > t->nstop_slots) {
        consumer_stop *old = t->stops;
        size_t nold = t->nstop_slots;
        t->nstop_slots = nold ? 2 * nold : 64;
        t->stops = xcalloc(t->nstop_slots, sizeof *t->stops);
        for (size_t i = 0; i < nold; i++)
            if (old[i].who)
                *stop_slot(t, old[i].who) = old[i];
        free(old);
    }
    consumer_stop *s = stop_slot(t, who);
    t->nstops += s->who == 0;
    *s = (consumer_stop){ .who = who, .t = at };
}

/* When `who` last stopped; -1 if it never did. */
static sim_time stop_time(const trace_arrivals *t, uint64_t who)
{
    if (!t->nstops)
        return -1;
    const consumer_stop *s = stop_slot(t, who);
    return s->who ? s->t : -1;
}

/* ---- the index of unended publishes -------------------------------------------- */

static size_t slot_home(const trace_arrivals *t, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (t->nslots - 1);
}

/* The slot of key, or the empty slot where it would go. */
static key_slot *slot_find(trace_arrivals *t, uint64_t key)
{
    size_t i = slot_home(t, key);
    while (t->slots[i].first && t->ring[t->slots[i].first - 1].key != key)
        i = (i + 1) & (t->nslots - 1);
    return &t->slots[i];
}

/* The unended publish at ring position `pos`, the newest of its key. */
static void index_add(trace_arrivals *t, size_t pos)
{
    key_slot *s = slot_find(t, t->ring[pos].key);
    if (s->first) {
        t->ring[s->last - 1].next_same = (uint32_t)pos + 1;
    } else {
        s->first = (uint32_t)pos + 1;
        t->nkeys++;
    }
    s->last = (uint32_t)pos + 1;
}

/* An index of nslots (at least 4/3 of the keys) over the ring's unended
 * publishes, in ring order.  Rare, so kept out of line: when the compiler
 * inlined it into ring_push, it stopped inlining index_add there, which
 * runs on every publish (23 million instructions more on the trace of
 * 500,000 publishes of tests/bench/loaders.sh). */
static __attribute__((noinline)) void index_rebuild(trace_arrivals *t, size_t nslots)
{
    free(t->slots);
    t->nslots = nslots;
    t->slots = xcalloc(nslots, sizeof *t->slots);
    t->nkeys = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t pos = (t->head + i) & (t->cap - 1);
        t->ring[pos].next_same = 0;
        if (t->ring[pos].service < 0)
            index_add(t, pos);
    }
}

/* Takes the oldest unended publish of s's key out of the index; the slot
 * empties when it was the last, and the keys after it in their probe run
 * move back so that none sits beyond an empty slot. */
static void index_take_oldest(trace_arrivals *t, key_slot *s)
{
    pending *p = &t->ring[s->first - 1];
    s->first = p->next_same;
    p->next_same = 0;
    if (s->first)
        return;
    t->nkeys--;
    size_t hole = (size_t)(s - t->slots), mask = t->nslots - 1;
    for (size_t i = (hole + 1) & mask; t->slots[i].first; i = (i + 1) & mask) {
        size_t home = slot_home(t, t->ring[t->slots[i].first - 1].key);
        if (((i - home) & mask) >= ((i - hole) & mask)) {  /* its home is at or before the hole */
            t->slots[hole] = t->slots[i];
            hole = i;
        }
    }
    t->slots[hole] = (key_slot){ 0 };
}

/* The oldest pending publish of `key` that has not ended, taken out of the
 * index; NULL when there is none. */
static pending *ring_find(trace_arrivals *t, uint64_t key)
{
    if (!t->nkeys)
        return NULL;
    key_slot *s = slot_find(t, key);
    if (!s->first)
        return NULL;
    pending *p = &t->ring[s->first - 1];
    index_take_oldest(t, s);
    return p;
}

/* The oldest pending publish of `key` that has not ended, left in the
 * index; NULL when there is none. */
static pending *ring_peek(trace_arrivals *t, uint64_t key)
{
    if (!t->nkeys)
        return NULL;
    key_slot *s = slot_find(t, key);
    return s->first ? &t->ring[s->first - 1] : NULL;
}

/* A publish read: onto the ring, and into the index.  A ring that grows
 * moves its entries, and an index that would pass three quarters full
 * (counting the new key, in case it is new) doubles: either way the index
 * is built again, once, at the size it needs, with the new publish in it. */
static void ring_push(sim_ctx *ctx, trace_arrivals *t, pending p)
{
    bool is_moved = t->n == t->cap;
    if (is_moved) {
        if (t->cap == RING_MAX) {
            sim_fail(ctx, "%s: more than %zu publishes in flight", t->path, RING_MAX);
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 256;
        pending *v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < t->n; i++)
            v[i] = t->ring[(t->head + i) & (t->cap - 1)];
        free(t->ring);
        t->ring = v;
        t->cap = cap;
        t->head = 0;
    }
    size_t pos = (t->head + t->n++) & (t->cap - 1);
    t->ring[pos] = p;
    if (!is_moved && 4 * (t->nkeys + 1) <= 3 * t->nslots) {
        index_add(t, pos);
        return;
    }
    /* the keys indexed are those of the unended publishes before p, the
     * same whether counted in the old index or in a rebuilt one */
    size_t nslots = t->nslots ? t->nslots : 256;
    if (4 * (t->nkeys + 1) > 3 * nslots)
        nslots *= 2;
    index_rebuild(t, nslots);
}

/* Reads one more event of the trace into the ring.  False at the end. */
static bool read_ahead(sim_ctx *ctx, trace_arrivals *t)
{
    trace_event ev;
    sim_diag d;                    /* not cleared: a diag is written whole when set */
    d.is_set = false;
    int rc = trace_reader_next(t->r, &ev, &d);
    if (rc < 0) {
        char buf[sizeof d.file + sizeof d.msg + 32];
        diag_format(&d, buf, sizeof buf);
        sim_fail(ctx, "%s", buf);
    }
    if (rc <= 0) {
        t->at_eof = true;
        return false;
    }
    if (ev.kind == TEV_PUBLISH && t->queue && strcmp(ev.queue, t->queue) != 0) {
        /* another queue's publish: a dead letter, say, which the broker
         * routes itself */
    } else if (ev.kind == TEV_PUBLISH) {
        int g = ev.group[0] ? sim_group_intern(ctx, ev.group, strlen(ev.group)) : -1;
        ring_push(ctx, t, (pending){ .key = msg_key(ev.msg), .t = ev.t_ns, .group = g,
                                     .service = -1, .begin = -1 });
    } else if (ev.kind == TEV_BEGIN) {
        pending *p = ring_peek(t, msg_key(ev.msg));
        if (p) {
            p->begin = ev.t_ns;
            p->who = consumer_key(ev.node, ev.consumer);
        }
    } else if (ev.kind == TEV_REQUEUE) {
        /* Taken back from the consumer that began it (as the reader pairs
         * them): not running until its next begin. */
        pending *p = ring_peek(t, msg_key(ev.msg));
        if (p && p->begin >= 0 && p->who == consumer_key(ev.node, ev.consumer))
            p->begin = -1;
    } else if (ev.kind == TEV_CONSUMER_STOP) {
        /* the recording's own shutdown stops every consumer: no stop of
         * what they ran (compare leaves those stops out too) */
        int64_t shutdown = trace_shutdown_ns(t->r);
        if (shutdown < 0 || ev.t_ns < shutdown)
            stop_record(t, consumer_key(ev.node, ev.consumer), ev.t_ns);
    } else if (ev.kind == TEV_END) {
        pending *p = ring_find(t, msg_key(ev.msg));
        if (p) {
            p->service = ev.t_ns - ev.begin_ns;
            t->service_sum += (double)p->service;
            t->service_count++;
        }
    }
    return true;
}

/* True for an unended message still running at the trace's end: begun,
 * and neither taken back nor left by its consumer's stop since (a consumer
 * whose channel closed may stop without ending or requeueing what it held;
 * a stop at the very time of the begin counts as after it). */
static bool still_running(const trace_arrivals *t, const pending *p)
{
    return p->begin >= 0 && stop_time(t, p->who) < p->begin;
}

/* The service of a message the trace never finished: the mean of those
 * it did, or, for one still running at the trace's end that had already
 * run as long, one microsecond (the trace's resolution) more than it had
 * run, so that it ends just after that end. */
static sim_time unfinished_service(const trace_arrivals *t, const pending *p, sim_time mean)
{
    if (!still_running(t, p) || mean > t->end - p->begin)
        return mean;
    return t->end - p->begin + 1000;
}

/* Says once, when the first unfinished message is handed out (at the end
 * of the trace: the ring then holds every one of them), how many there
 * are and what they get. */
static void warn_unfinished(sim_ctx *ctx, const trace_arrivals *t, sim_time mean)
{
    uint64_t running = 0, waiting = 0;
    for (size_t i = 0; i < t->n; i++) {
        const pending *p = &t->ring[(t->head + i) & (t->cap - 1)];
        if (p->service >= 0)
            continue;
        if (still_running(t, p))
            running++;
        else
            waiting++;
    }
    strbuf b = { 0 };
    sb_addf(&b, "%s: %llu messages never ended in the trace (it ends at %.3f ms): ", t->path,
            (unsigned long long)(running + waiting), (double)t->end / 1e6);
    if (waiting)
        sb_addf(&b, "%llu not running then (never begun, taken back, or left by a stopped "
                "consumer) get the mean service time of the others (%.3f ms)%s", (unsigned long long)waiting,
                (double)mean / 1e6, running ? "; " : "");
    if (running && waiting)
        sb_addf(&b, "%llu still running get that mean too", (unsigned long long)running);
    else if (running)
        sb_addf(&b, "%llu still running get the mean service time of the others (%.3f ms)",
                (unsigned long long)running, (double)mean / 1e6);
    if (running)
        sb_add(&b, " or, when they had already run longer, end a microsecond after the trace does");
    sim_warn(ctx, "%s", b.s);
    sb_free(&b);
}

static bool trace_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    trace_arrivals *t = (trace_arrivals *)a;
    while (!t->at_eof && (t->n == 0 || (t->has_ends && t->ring[t->head].service < 0)))
        read_ahead(ctx, t);
    if (t->n == 0)
        return false;
    pending p = t->ring[t->head];
    if (p.service < 0 && !t->has_ends) {
        index_take_oldest(t, slot_find(t, p.key));
        p.service = ARRIVAL_DRAW_SERVICE;          /* queue.service decides */
    } else if (p.service < 0) {
        sim_time mean =
            t->service_count ? (sim_time)(t->service_sum / (double)t->service_count) : 0;
        if (t->unfinished++ == 0)
            warn_unfinished(ctx, t, mean);
        index_take_oldest(t, slot_find(t, p.key));  /* the oldest of its key in the index */
        p.service = unfinished_service(t, &p, mean);
    }
    t->head = (t->head + 1) & (t->cap - 1);
    t->n--;
    *out = (arrival){ .t = t->base.start + p.t, .group = p.group, .service = p.service };
    return true;
}

static void trace_destroy(arrivals *a)
{
    trace_arrivals *t = (trace_arrivals *)a;
    trace_reader_close(t->r);
    free(t->ring);
    free(t->slots);
    free(t->stops);
    free(t);
}

/* A trace with no listener's begin or end (recorded through the broker)
 * gives no service times: the scenario's queue.service does. */
static bool trace_has_service(const arrivals *a)
{
    return ((const trace_arrivals *)a)->has_ends;
}

static int trace_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                        arrivals **out, sim_diag *d);

const arrivals_ops arrivals_trace = {
    .kind = "trace", .create = trace_create, .next = trace_next, .is_bounded = bounded,
    .has_service = trace_has_service, .destroy = trace_destroy,
};

/* Reads the whole trace once; returns its end (the latest of its last event,
 * shutdown_ms and observed_until_ms) and whether any listener ended. */
static int trace_check(const char *path, sim_time *end, bool *has_ends, sim_diag *d)
{
    trace_reader *r;
    if (trace_reader_open(path, &r, d) != SIM_OK)
        return SIM_EINPUT;
    trace_event ev;
    int rc;
    sim_time last = 0;
    *has_ends = false;
    while ((rc = trace_reader_next(r, &ev, d)) == 1) {
        last = ev.t_ns;
        *has_ends = *has_ends || ev.kind == TEV_END;
    }
    if (trace_shutdown_ns(r) > last)
        last = trace_shutdown_ns(r);
    if (trace_observed_ns(r) > last)
        last = trace_observed_ns(r);
    trace_reader_close(r);
    *end = last;
    return rc == 0 ? SIM_OK : SIM_EINPUT;
}

static int trace_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                        arrivals **out, sim_diag *d)
{
    (void)stream;
    const char *path, *queue;
    if (cfg_get_string(cfg, "path", NULL, CFG_REQUIRED, &path, d) != SIM_OK ||
        cfg_get_string(cfg, "queue", NULL, 0, &queue, d) != SIM_OK)
        return SIM_EINPUT;
    trace_arrivals *t = xcalloc(1, sizeof *t);
    t->queue = queue;
    t->base = (arrivals){ .ops = &arrivals_trace, .start = start };
    t->path = sim_resolve_path(ctx, path);
    sim_time end;
    if (trace_check(t->path, &end, &t->has_ends, d) != SIM_OK ||
        trace_reader_open(t->path, &t->r, d) != SIM_OK) {
        trace_destroy(&t->base);
        return at_path(cfg, d);
    }
    t->end = end;
    sim_set_workload_end(ctx, start + end);
    *out = &t->base;
    return SIM_OK;
}
