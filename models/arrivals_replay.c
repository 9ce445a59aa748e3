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
 * did, and the run says so.
 */
#include "arrivals.h"
#include "mem.h"
#include "trace.h"
#include "workload_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file that cannot be opened is the scenario's fault: say so at `path:`. */
static int at_path(cfg_node *cfg, sim_diag *d)
{
    if (d->is_set && d->line == 0) {
        char msg[sizeof d->msg + 300];
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
    sim_diag d = { 0 };
    int rc = wfile_next(f->w, &row, &d);
    if (rc < 0) {                  /* the file changed since it was checked */
        char buf[1200];
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
    int group;
    sim_time service;              /* -1 until its end is read */
    uint64_t next_same;            /* the next unended publish of its key: number + 1, 0 none */
} pending;

/* An index of the unended publishes by key: for each key in the ring, the
 * oldest and newest of them, as publish numbers (0, 1, ... in the order
 * read) + 1, chained oldest first through next_same.  Open addressing,
 * linear probing, at most half full; an empty slot has first == 0. */
typedef struct key_slot {
    uint64_t key, first, last;
} key_slot;

typedef struct trace_arrivals {
    arrivals base;
    trace_reader *r;
    const char *path;              /* the run's (sim_resolve_path) */
    pending *ring;                 /* publishes read, not yet handed out */
    size_t cap, head, n;           /* ring: cap a power of two */
    uint64_t popped;               /* publishes handed out: the number of ring[head] */
    key_slot *slots;               /* the index: nslots a power of two */
    size_t nslots, nkeys;
    bool at_eof;
    double service_sum;            /* for messages the trace never finished */
    uint64_t service_count, unfinished;
} trace_arrivals;

static uint64_t msg_key(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static pending *ring_at(trace_arrivals *t, uint64_t number)
{
    return &t->ring[(t->head + (size_t)(number - t->popped)) & (t->cap - 1)];
}

static void ring_push(trace_arrivals *t, pending p)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        pending *v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < t->n; i++)
            v[i] = t->ring[(t->head + i) & (t->cap - 1)];
        free(t->ring);
        t->ring = v;
        t->cap = cap;
        t->head = 0;
    }
    t->ring[(t->head + t->n++) & (t->cap - 1)] = p;
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
    while (t->slots[i].first && t->slots[i].key != key)
        i = (i + 1) & (t->nslots - 1);
    return &t->slots[i];
}

static void index_grow(trace_arrivals *t)
{
    key_slot *old = t->slots;
    size_t n = t->nslots;
    t->nslots = n ? n * 2 : 256;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    for (size_t i = 0; i < n; i++)
        if (old[i].first)
            *slot_find(t, old[i].key) = old[i];
    free(old);
}

/* Publish `number` (the newest in the ring) has not ended yet. */
static void index_add(trace_arrivals *t, uint64_t key, uint64_t number)
{
    if (2 * (t->nkeys + 1) > t->nslots)
        index_grow(t);
    key_slot *s = slot_find(t, key);
    if (s->first) {
        ring_at(t, s->last - 1)->next_same = number + 1;
    } else {
        *s = (key_slot){ .key = key, .first = number + 1 };
        t->nkeys++;
    }
    s->last = number + 1;
}

/* Takes the oldest unended publish of s's key out of the index; the slot
 * empties when it was the last, and the keys after it in their probe run
 * move back so that none sits beyond an empty slot. */
static void index_take_oldest(trace_arrivals *t, key_slot *s)
{
    pending *p = ring_at(t, s->first - 1);
    s->first = p->next_same;
    p->next_same = 0;
    if (s->first)
        return;
    t->nkeys--;
    size_t hole = (size_t)(s - t->slots), mask = t->nslots - 1;
    for (size_t i = (hole + 1) & mask; t->slots[i].first; i = (i + 1) & mask) {
        size_t home = slot_home(t, t->slots[i].key);
        if (((i - home) & mask) >= ((i - hole) & mask)) {  /* its home is at or before the hole */
            t->slots[hole] = t->slots[i];
            hole = i;
        }
    }
    t->slots[hole].first = 0;
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
    pending *p = ring_at(t, s->first - 1);
    index_take_oldest(t, s);
    return p;
}

/* Reads one more event of the trace into the ring.  False at the end. */
static bool read_ahead(sim_ctx *ctx, trace_arrivals *t)
{
    trace_event ev;
    sim_diag d = { 0 };
    int rc = trace_reader_next(t->r, &ev, &d);
    if (rc < 0) {
        char buf[1200];
        diag_format(&d, buf, sizeof buf);
        sim_fail(ctx, "%s", buf);
    }
    if (rc <= 0) {
        t->at_eof = true;
        return false;
    }
    if (ev.kind == TEV_PUBLISH) {
        int g = ev.group[0] ? sim_group_intern(ctx, ev.group, strlen(ev.group)) : -1;
        uint64_t key = msg_key(ev.msg);
        ring_push(t, (pending){ .key = key, .t = ev.t_ns, .group = g, .service = -1 });
        index_add(t, key, t->popped + t->n - 1);
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

static bool trace_next(sim_ctx *ctx, arrivals *a, arrival *out)
{
    trace_arrivals *t = (trace_arrivals *)a;
    while (!t->at_eof && (t->n == 0 || t->ring[t->head].service < 0))
        read_ahead(ctx, t);
    if (t->n == 0)
        return false;
    pending p = t->ring[t->head];
    if (p.service < 0)             /* the oldest of its key in the index */
        index_take_oldest(t, slot_find(t, p.key));
    t->head = (t->head + 1) & (t->cap - 1);
    t->n--;
    t->popped++;
    if (p.service < 0) {
        p.service = t->service_count ? (sim_time)(t->service_sum / (double)t->service_count) : 0;
        if (t->unfinished++ == 0)
            sim_warn(ctx, "%s: some messages never ended in the trace; they get the mean "
                     "service time of the others", t->path);
    }
    *out = (arrival){ .t = t->base.start + p.t, .group = p.group, .service = p.service };
    return true;
}

static void trace_destroy(arrivals *a)
{
    trace_arrivals *t = (trace_arrivals *)a;
    trace_reader_close(t->r);
    free(t->ring);
    free(t->slots);
    free(t);
}

static bool trace_has_service(const arrivals *a)
{
    (void)a;
    return true;
}

static int trace_create(sim_ctx *ctx, cfg_node *cfg, const char *stream, sim_time start,
                        arrivals **out, sim_diag *d);

const arrivals_ops arrivals_trace = {
    .kind = "trace", .create = trace_create, .next = trace_next, .is_bounded = bounded,
    .has_service = trace_has_service, .destroy = trace_destroy,
};

/* Reads the whole trace once; returns its end (last event or shutdown). */
static int trace_check(const char *path, sim_time *end, sim_diag *d)
{
    trace_reader *r;
    if (trace_reader_open(path, &r, d) != SIM_OK)
        return SIM_EINPUT;
    trace_event ev;
    int rc;
    sim_time last = 0;
    while ((rc = trace_reader_next(r, &ev, d)) == 1)
        last = ev.t_ns;
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
    const char *path;
    if (cfg_get_string(cfg, "path", NULL, CFG_REQUIRED, &path, d) != SIM_OK)
        return SIM_EINPUT;
    trace_arrivals *t = xcalloc(1, sizeof *t);
    t->base = (arrivals){ .ops = &arrivals_trace, .start = start };
    t->path = sim_resolve_path(ctx, path);
    sim_time end;
    if (trace_check(t->path, &end, d) != SIM_OK ||
        trace_reader_open(t->path, &t->r, d) != SIM_OK) {
        trace_destroy(&t->base);
        return at_path(cfg, d);
    }
    sim_set_workload_end(ctx, start + end);
    *out = &t->base;
    return SIM_OK;
}
