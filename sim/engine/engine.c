/* engine.c -- the context of a run and its main loop.
 *
 * The loop takes the earliest event, sets the clock to its time and calls
 * its handler, until the end of the run.  The end is known in one of three
 * ways: the scenario's duration; a replayed trace's own end; or, when every
 * arrival source has closed and no message is left, that instant plus the
 * scenario's tail.  Samples are not events: the loop takes one whenever the
 * next sample instant comes before the next event, so they never change the
 * sequence numbers the models' events get.  A sample at time t shows the
 * state after every event at t.
 */
#include "engine/engine.h"
#include "base/mem.h"
#include "store/trace.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- names ---------------------------------------------------------------- */

int sim_group_intern(sim_ctx *ctx, const char *name, size_t len)
{
    return names_intern(&ctx->groups, name, len);
}

int sim_group_series(sim_ctx *ctx, size_t count)
{
    return names_add_series(&ctx->groups, 'g', count);
}

const char *sim_group_name(sim_ctx *ctx, int group)
{
    return names_get(&ctx->groups, group);
}

int sim_queue_register(sim_ctx *ctx, const char *name)
{
    return names_intern(&ctx->queues, name, strlen(name));
}

const char *sim_queue_name(const sim_ctx *ctx, int queue)
{
    return queue >= 0 && (size_t)queue < ctx->queues.n ? ctx->queues.names[queue] : "";
}

void sim_set_nodes(sim_ctx *ctx, int nodes)
{
    for (int i = 0; i < ctx->nnodes; i++)
        free(ctx->nodes[i].cons);
    free(ctx->nodes);
    waiting_fini(ctx);
    ctx->nodes = xcalloc((size_t)nodes, sizeof *ctx->nodes);
    ctx->nnodes = nodes;
}

/* ---- calendar ---------------------------------------------------------------- */

sim_time sim_now(const sim_ctx *ctx)
{
    return ctx->now;
}

/* The time `delay` from now: not before now, and never past SIM_NEVER. */
static inline sim_time due_after(const sim_ctx *ctx, sim_time delay)
{
    if (delay < 0)
        delay = 0;
    sim_time t = ctx->now + delay;
    if (t < ctx->now)                              /* overflow: never */
        t = SIM_NEVER - 1;
    return t;
}

sim_event_id sim_schedule(sim_ctx *ctx, sim_time delay, const sim_event_type *type, void *self,
                          void *arg)
{
    return calendar_add(&ctx->cal, due_after(ctx, delay), type, self, arg);
}

sim_event_id sim_schedule_at(sim_ctx *ctx, sim_time at, const sim_event_type *type, void *self,
                             void *arg)
{
    return calendar_add(&ctx->cal, at < ctx->now ? ctx->now : at, type, self, arg);
}

bool sim_cancel(sim_ctx *ctx, sim_event_id id)
{
    return calendar_cancel(&ctx->cal, id);
}

void sim_timer_init(sim_timer *t, const sim_event_type *type, void *self, void *arg)
{
    *t = (sim_timer){ .type = type, .self = self, .arg = arg, .pos = SIM_TIMER_IDLE };
}

void sim_timer_after(sim_ctx *ctx, sim_timer *t, sim_time delay)
{
    calendar_arm(&ctx->cal, t, due_after(ctx, delay));
}

void sim_timer_at(sim_ctx *ctx, sim_timer *t, sim_time at)
{
    calendar_arm(&ctx->cal, t, at < ctx->now ? ctx->now : at);
}

bool sim_timer_cancel(sim_ctx *ctx, sim_timer *t)
{
    return calendar_disarm(&ctx->cal, t);
}

bool sim_is_pending(const sim_ctx *ctx, sim_event_id id)
{
    return calendar_pending(&ctx->cal, id);
}

gsl_rng *sim_stream(sim_ctx *ctx, const char *name)
{
    return random_get(&ctx->streams, name);
}

bool sim_stream_is_shared(const sim_ctx *ctx, const gsl_rng *r)
{
    return random_is_shared(&ctx->streams, r);
}

/* ---- failure and remarks ------------------------------------------------------ */

void sim_fail(sim_ctx *ctx, const char *fmt, ...)
{
    if (ctx->failed)
        return;
    ctx->failed = true;
    ctx->attend_at = INT64_MIN;    /* the loop stops after this event */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
}

bool sim_failed(const sim_ctx *ctx)
{
    return ctx->failed;
}

void sim_warn(sim_ctx *ctx, const char *fmt, ...)
{
    strbuf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&b, fmt, ap);
    va_end(ap);
    xgrow((void **)&ctx->warnings, &ctx->capwarnings, ctx->nwarnings + 1,
          sizeof *ctx->warnings);
    ctx->warnings[ctx->nwarnings++] = sb_take(&b);
}

const char *sim_resolve_path(sim_ctx *ctx, const char *path)
{
    strbuf b = { 0 };
    if (path[0] == '/' || !ctx->base_dir || !ctx->base_dir[0])
        sb_add(&b, path);
    else
        sb_addf(&b, "%s/%s", ctx->base_dir, path);
    xgrow((void **)&ctx->inputs, &ctx->capinputs, ctx->ninputs + 1, sizeof *ctx->inputs);
    ctx->inputs[ctx->ninputs] = sb_take(&b);
    return ctx->inputs[ctx->ninputs++];
}

bool sim_memory_reserve(sim_ctx *ctx, size_t bytes)
{
    if (ctx->mem_limit && (bytes > ctx->mem_limit || ctx->mem_reserved > ctx->mem_limit - bytes))
        return false;
    ctx->mem_reserved += bytes;
    return true;
}

size_t sim_memory_limit(const sim_ctx *ctx)
{
    return ctx->mem_limit;
}

void sim_metric(sim_ctx *ctx, const char *name, double value)
{
    for (size_t i = 0; i < ctx->nmetrics; i++)
        if (strcmp(ctx->metrics[i].name, name) == 0) {
            ctx->metrics[i].value = value;
            return;
        }
    xgrow((void **)&ctx->metrics, &ctx->capmetrics, ctx->nmetrics + 1, sizeof *ctx->metrics);
    ctx->metrics[ctx->nmetrics].name = xstrdup(name);
    ctx->metrics[ctx->nmetrics].value = value;
    ctx->nmetrics++;
}

void sim_metric_add(sim_ctx *ctx, const char *name, double value)
{
    const metric *m = sim_find_metric(ctx, name);
    sim_metric(ctx, name, (m ? m->value : 0) + value);
}

const metric *sim_find_metric(const sim_ctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->nmetrics; i++)
        if (strcmp(ctx->metrics[i].name, name) == 0)
            return &ctx->metrics[i];
    return NULL;
}

/* ---- the end of the run ---------------------------------------------------------- */

/* The loop's horizon after a change of the next sample or the end. */
static void set_horizon(sim_ctx *ctx)
{
    sim_time h = ctx->next_sample < ctx->end_at ? ctx->next_sample : ctx->end_at;
    ctx->horizon = h < SIM_NEVER - 1 ? h : SIM_NEVER - 1;
}

static void set_end(sim_ctx *ctx, sim_time t)
{
    ctx->end_at = t;
    set_horizon(ctx);
}

/* Called whenever work may have run out. */
static void maybe_done(sim_ctx *ctx)
{
    if (ctx->end_at != SIM_NEVER || ctx->open_sources > 0 || ctx->live > 0)
        return;
    if (ctx->duration != SIM_NEVER || ctx->workload_end != SIM_NEVER)
        return;
    set_end(ctx, ctx->now + ctx->tail);
}

void sim_source_open(sim_ctx *ctx)
{
    ctx->open_sources++;
}

void sim_source_closed(sim_ctx *ctx)
{
    ctx->open_sources--;
    maybe_done(ctx);
}

sim_time sim_duration(const sim_ctx *ctx)
{
    return ctx->duration;
}

void sim_set_workload_end(sim_ctx *ctx, sim_time t)
{
    if (ctx->workload_end == SIM_NEVER || t > ctx->workload_end)
        ctx->workload_end = t;
    if (ctx->duration == SIM_NEVER)
        set_end(ctx, ctx->workload_end);
}

void engine_message_gone(sim_ctx *ctx)
{
    maybe_done(ctx);
}

/* ---- the loop ------------------------------------------------------------------ */

/* One row per node and queue: where that queue's messages wait (waiting.c)
 * and the node's consumers on it. */
static void take_sample(sim_ctx *ctx, sim_time t)
{
    int nq = waiting_queues(ctx);
    for (int n = 1; n <= ctx->nnodes; n++)
        for (int q = 0; q < nq; q++) {
            waiting_counts c = waiting_at(ctx, n, q);
            tl_sample row = {
                .node = n, .queue = sim_queue_name(ctx, q), .ready = waiting_ready(ctx, q),
                .consumers = c.consumers, .busy = c.busy, .prefetched = c.prefetched,
                .unacked = c.unacked,
            };
            timeline_sample(ctx->tl, ctx->run_id, t, &row);
        }
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "about 1.20 TB", "about 2.80 GB", "about 24 MB", "about 242 KB" or
 * "about 800 bytes" */
static void format_size(double bytes, char *buf, size_t size)
{
    if (bytes >= 999.5e9)
        snprintf(buf, size, "about %.2f TB", bytes / 1e12);
    else if (bytes >= 999.5e6)
        snprintf(buf, size, "about %.2f GB", bytes / 1e9);
    else if (bytes >= 999.5e3)
        snprintf(buf, size, "about %.0f MB", bytes / 1e6);
    else if (bytes >= 999.5)
        snprintf(buf, size, "about %.0f KB", bytes / 1e3);
    else
        snprintf(buf, size, "about %.0f bytes", bytes);
}

/* What a row of the messages table takes in the database, about (measured:
 * 3.1 MB for 44,433 messages of tune-smlc-bursty, samples included). */
#define MESSAGE_ROW_BYTES 70.0

/* Once 1 % of a run with a known end is done, the messages so far tell how
 * many the whole run will write: past rows_warn_bytes, say so at once,
 * before the disk fills up (a 24-hour run at 100/s is 8.6 million rows). */
static void warn_rows(sim_ctx *ctx)
{
    ctx->rows_check_at = ctx->attend_at = SIM_NEVER;
    double messages = (double)ctx->published * (double)ctx->end_at / (double)ctx->now;
    double bytes = messages * MESSAGE_ROW_BYTES;
    if (bytes <= (double)ctx->rows_warn_bytes)
        return;
    char size[64];
    format_size(bytes, size, sizeof size);
    fprintf(stderr, "%slsim: warning: this run will write %s of message rows (%.3g million "
            "messages); --detail samples keeps the samples and the summary and writes no "
            "message rows\n", ctx->progress ? "\r\033[K" : "", size, messages / 1e6);
}

/* What a row of the samples table takes in the database, about, but for
 * its queue's name (measured: 2.80 GB for 100,000,001 rows of the queue
 * "queue" over three years; 22.8 + 1 a character for a day of 1 s). */
#define SAMPLE_ROW_BYTES 23.0

/* The samples are known before the run: a row for each node and queue
 * every sample_interval until the end, for each of samples_runs runs.  Past
 * samples_warn_bytes, say so before the first is written, with the
 * shortest of a few round intervals that stays below it (a trace three
 * years long, compared at the default 1 s, wrote 2.8 GB). */
static void warn_samples(sim_ctx *ctx)
{
    static const struct { sim_time t; const char *text; } rounder[] = {
        { 10 * SIM_S, "10s" }, { 60 * SIM_S, "1m" }, { 600 * SIM_S, "10m" },
        { 3600 * SIM_S, "1h" }, { 86400 * SIM_S, "1d" },
    };
    if (ctx->samples_warn_bytes == 0 || ctx->end_at == SIM_NEVER)
        return;
    double runs = ctx->samples_runs > 1 ? (double)ctx->samples_runs : 1;
    int nq = waiting_queues(ctx);
    double row_bytes = 0;                          /* a row of each queue */
    for (int q = 0; q < nq; q++)
        row_bytes += SAMPLE_ROW_BYTES + (double)strlen(sim_queue_name(ctx, q));
    double rows_each = (double)ctx->nnodes * nq * runs;     /* a sample of every run */
    double bytes_each = (double)ctx->nnodes * row_bytes * runs;
    double samples = (double)(ctx->end_at / ctx->sample_interval) + 1;
    double limit = (double)ctx->samples_warn_bytes;
    if (samples * bytes_each <= limit)
        return;
    char size[64], better[160] = "a longer sample_interval writes fewer";
    format_size(samples * bytes_each, size, sizeof size);
    for (size_t i = 0; i < sizeof rounder / sizeof rounder[0]; i++) {
        double fewer = ((double)(ctx->end_at / rounder[i].t) + 1) * bytes_each;
        if (rounder[i].t > ctx->sample_interval && fewer <= limit) {
            char fsize[64];
            format_size(fewer, fsize, sizeof fsize);
            snprintf(better, sizeof better, "sample_interval: %s writes %s", rounder[i].text,
                     fsize);
            break;
        }
    }
    char rows[64], runs_text[64] = "";
    double n = samples * rows_each / 1e6;
    snprintf(rows, sizeof rows, n >= 1000 ? "%.0f" : "%.3g", n);
    if (runs > 1)
        snprintf(runs_text, sizeof runs_text, " in each of %.0f runs", runs);
    fprintf(stderr, "lsim: warning: this %s will write %s of samples (%s million rows: one for "
            "each node and queue every %g s of %.0f s%s); %s\n",
            runs > 1 ? "comparison" : "run", size, rows, (double)ctx->sample_interval / 1e9,
            (double)ctx->end_at / 1e9, runs_text, better);
}

static void format_left(double seconds, char *buf, size_t size)
{
    if (seconds >= 3600)
        snprintf(buf, size, "%.0f h %02.0f min", floor(seconds / 3600),
                 floor(fmod(seconds, 3600) / 60));
    else if (seconds >= 60)
        snprintf(buf, size, "%.0f min %02.0f s", floor(seconds / 60), floor(fmod(seconds, 60)));
    else
        snprintf(buf, size, "%.0f s", ceil(seconds));
}

/* Progress on standard error, at most a few times a second, after the
 * first second, with the wall-clock time left when the end is known (from
 * the pace so far).  Wall time never reaches the results. */
static void show_progress(sim_ctx *ctx, double started, double *last)
{
    double w = wall_seconds();
    if (w - started < 1.0 || w - *last < 0.25)
        return;
    *last = w;
    if (ctx->end_at != SIM_NEVER && ctx->end_at > 0) {
        double f = (double)ctx->now / (double)ctx->end_at;
        char left[48] = "?";
        if (f > 0)
            format_left((w - started) * (1 - f) / f, left, sizeof left);
        fprintf(stderr, "\r[lsim] %.1f s of %.1f s virtual (%3.0f%%), %llu messages, about %s "
                "left\033[K", (double)ctx->now / 1e9, (double)ctx->end_at / 1e9, 100.0 * f,
                (unsigned long long)ctx->published, left);
    } else
        fprintf(stderr, "\r[lsim] %.1f s virtual, %llu messages", (double)ctx->now / 1e9,
                (unsigned long long)ctx->published);
}

/* The fingerprint folds in each event's time and the hash of its type's
 * name (never its address, which differs between builds), so two runs have
 * the same fingerprint exactly when they handled the same events in the
 * same order at the same times. */
static inline void fingerprint_event(sim_ctx *ctx, const cal_event *ev)
{
    size_t slot = ((uintptr_t)ev->type >> 4) & 63;
    if (ctx->name_hash[slot].type != ev->type) {
        ctx->name_hash[slot].type = ev->type;
        ctx->name_hash[slot].hash = names_hash(ev->type->name, strlen(ev->type->name));
    }
    uint64_t fp = (ctx->fingerprint ^ (uint64_t)ev->t) * 0x9e3779b97f4a7c15ULL;
    ctx->fingerprint = (fp ^ ctx->name_hash[slot].hash) * 0xbf58476d1ce4e5b9ULL;
}

/* A run bounded by its messages rather than a duration ends when the last
 * one has ended.  Some never can, and would run for ever: a message the
 * listener fails every time while the broker requeues it (a real broker
 * loops like that too), or messages nobody takes while consumers keep
 * polling.  Once every message is published and none has ended since (a
 * dead-lettered one ends, though its copy lives on), the run ends with a
 * warning after a million redeliveries (a few thousand messages failing
 * and going back now and then end long before that), or, while no
 * listener is running, after a day of virtual time that took ten million
 * events (both: a sparse run may jump a day in one event, a busy one pass
 * a million events in minutes).  Checked every 1,024 events, never by
 * steps (which count samples too), so the end is the same at every
 * --detail and in every run of the scenario. */
#define STALL_REDELIVERIES 1000000u
#define STALL_TIME         ((sim_time)24 * 3600 * 1000 * SIM_MS)
#define STALL_EVENTS       10000000u

static bool any_listener_running(const sim_ctx *ctx)
{
    for (int i = 0; i < ctx->nnodes; i++)
        if (ctx->nodes[i].busy.value > 0)
            return true;
    return false;
}

static __attribute__((noinline)) void watch_stall(sim_ctx *ctx)
{
    uint64_t ended = ctx->published - ctx->live;
    if (ctx->end_at != SIM_NEVER || ctx->open_sources > 0 || ctx->live == 0 ||
        ended != ctx->stall.ended) {
        ctx->stall.ended = ended;
        ctx->stall.events = ctx->events;
        ctx->stall.redeliveries = ctx->redeliveries;
        ctx->stall.since = ctx->now;
        return;
    }
    uint64_t events = ctx->events - ctx->stall.events;
    uint64_t redelivered = ctx->redeliveries - ctx->stall.redeliveries;
    double seconds = (double)(ctx->now - ctx->stall.since) / 1e9;
    bool looping = redelivered >= STALL_REDELIVERIES;
    bool idle = ctx->now - ctx->stall.since >= STALL_TIME && events >= STALL_EVENTS &&
                !any_listener_running(ctx);
    if (!looping && !idle)
        return;
    char since[96];
    if (looping)
        snprintf(since, sizeof since, "in %llu redeliveries (%.0f s)",
                 (unsigned long long)redelivered, seconds);
    else
        snprintf(since, sizeof since, "for %.0f s (%llu events)", seconds,
                 (unsigned long long)events);
    sim_warn(ctx, "the run stopped at %.3f s: no message had ended %s and %llu %s still in "
             "flight%s; give the scenario a duration to run it for a fixed time",
             (double)ctx->now / 1e9, since, (unsigned long long)ctx->live,
             ctx->live == 1 ? "was" : "were",
             looping ? ". A message the listener fails every time goes round like this on a "
                       "real broker too, while it is requeued" : ", none in a listener");
    set_end(ctx, ctx->now);
}

int sim_run(sim_ctx *ctx)
{
    bool sampling = ctx->tl && ctx->detail >= SIM_DETAIL_SAMPLES && ctx->sample_interval > 0;
    ctx->next_sample = sampling ? 0 : SIM_NEVER;
    set_end(ctx, ctx->duration != SIM_NEVER ? ctx->duration : ctx->end_at);
    double started = ctx->progress ? wall_seconds() : 0, last = 0;
    uint64_t steps = 0;            /* events and samples: each a bounded piece of work */
    bool rows_written = ctx->tl && ctx->detail >= SIM_DETAIL_MESSAGES && ctx->rows_warn_bytes;
    ctx->rows_check_at = rows_written && ctx->end_at != SIM_NEVER && ctx->end_at > 0
                             ? (ctx->end_at / 100 > 0 ? ctx->end_at / 100 : 1) : SIM_NEVER;
    ctx->attend_at = ctx->failed ? INT64_MIN : ctx->rows_check_at;
    if (sampling)
        warn_samples(ctx);
    maybe_done(ctx);
    for (;;) {
        /* Signals and write errors are polled by steps, not events: a
         * sparse run samples for hours between two events. */
        if ((++steps & 0x3ff) == 0) {
            if (ctx->interrupted && *ctx->interrupted)
                sim_fail(ctx, "interrupted");
            else if (ctx->tl && timeline_error(ctx->tl))
                sim_fail(ctx, "%s", timeline_error(ctx->tl));
            else if (ctx->tw && trace_writer_failed(ctx->tw))
                sim_fail(ctx, "%s", trace_writer_failed(ctx->tw));
            if (ctx->failed)
                break;
            if (ctx->progress && (steps & 0xfffff) == 0)
                show_progress(ctx, started, &last);
        }
        /* The common case first: an event due no later than the end or
         * the next sample (a handler may move the end: set_end moves the
         * horizon), and never one at SIM_NEVER. */
        sim_time te = calendar_next_time(&ctx->cal);
        if (__builtin_expect(te > ctx->horizon, 0)) {
            if (ctx->next_sample < te && ctx->next_sample <= ctx->end_at) {
                take_sample(ctx, ctx->next_sample);
                ctx->next_sample += ctx->sample_interval;
                set_horizon(ctx);
                continue;
            }
            break;
        }
        cal_event ev;              /* done after the last event, and te is one */
        calendar_begin_top(&ctx->cal, &ev);
        ctx->now = ev.t;
        fingerprint_event(ctx, &ev);
        ev.type->fn(ctx, ev.self, ev.arg);
        calendar_done(&ctx->cal);
        if (__builtin_expect((++ctx->events & 0x3ff) == 0, 0))
            watch_stall(ctx);
        if (__builtin_expect(ctx->now >= ctx->attend_at, 0)) {
            if (ctx->failed)
                break;
            warn_rows(ctx);
        }
    }
    if (ctx->progress && last > 0)
        fprintf(stderr, "\r\033[K");
    if (ctx->failed)
        return SIM_EIO;
    if (ctx->end_at == SIM_NEVER) {
        /* Nothing more can happen, yet work is left: say so. */
        ctx->end_at = ctx->now;
        if (ctx->live > 0)
            sim_warn(ctx, "%llu messages were never processed: nothing was left that could "
                     "take them", (unsigned long long)ctx->live);
    }
    ctx->now = ctx->end_at;
    if (ctx->root && ctx->root->finish)
        ctx->root->finish(ctx, ctx->root_self);
    return ctx->failed ? SIM_EIO : SIM_OK;
}
