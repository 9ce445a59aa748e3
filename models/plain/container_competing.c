/* container_competing.c -- `container.kind: competing`: the dispatcher of
 * the seed article "Dispatching messages with the Competing Consumers
 * Pattern" (specs/competing-consumers.md).
 *
 * One reader per node takes one message at a time from a pull queue and
 * hands it to the first free worker in worker order; while every worker is
 * busy the reader does not read (Task.WaitAny).  A worker begins
 * `startLatency` after the hand-off (a thread start) and works for its own
 * time: workerServiceTimes[i] whatever the message, or the message's
 * service time divided by workerSpeeds[i], or just the message's service
 * time.
 *
 * Reader states: IDLE (a worker is free, not asking) -> ASKING (pull sent,
 * waiting for a message) -> IDLE on delivery; BLOCKED while no worker is
 * free, left when a worker ends.
 *
 * The free workers are a free_index filled with every worker (a two-level
 * bitmap), so the first free one is found in a few instructions however
 * many workers there are.
 */
#include "engine/dist.h"
#include "base/free_index.h"
#include "base/mem.h"
#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>

/* A worker is one cache line, on a line of its own: with 100,000 workers
 * their records do not fit the cache, and every move of a pending end in
 * the calendar writes its timer's place there, so what a message touches
 * of its worker (the timer, the message, the ids) is one line, not two.
 * The per-worker settings, read once a message, are kept apart. */
typedef struct worker {
    struct competing *c;
    int id;                        /* consumer id (engine numbering) */
    uint32_t index;                /* its place in c->w (kept: w - c->w costs a multiply) */
    sim_msg *m;
    sim_timer end;                 /* the end of its listener's work (ev_end) */
} worker;
_Static_assert(sizeof(worker) == 64, "a worker is one cache line");

typedef struct competing {
    container base;
    container_env env;
    /* settings */
    sim_knob start_latency;        /* a duration or a distribution */
    int nworkers;
    /* state */
    worker *w;                     /* aligned to 64 bytes */
    sim_time *fixed_ns;            /* workerServiceTimes, by worker; NULL: none given */
    double *speed;                 /* workerSpeeds, by worker; NULL: none given (all 1) */
    free_index free_workers;       /* the workers free (not from hand-off to end) */
    consumer_port reader;
    bool is_asking;
} competing;

static void on_begin(sim_ctx *ctx, void *self, void *arg);
static void on_end(sim_ctx *ctx, void *self, void *arg);
static void work(sim_ctx *ctx, worker *w);
static const sim_event_type ev_begin = { "competing.begin", on_begin };
static const sim_event_type ev_end = { "competing.end", on_end };

/* The reader reads when a worker is free and it is not already waiting. */
static void maybe_read(sim_ctx *ctx, competing *c)
{
    if (c->is_asking || !free_index_released(&c->free_workers))
        return;
    c->is_asking = true;
    c->env.broker->ops->pull(ctx, c->env.broker, &c->reader);
}

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m)
{
    competing *c = port->owner;
    c->is_asking = false;
    /* maybe_read asks only while a worker is free, and only this takes one */
    worker *w = &c->w[free_index_take_released(&c->free_workers)];
    w->m = m;
    sim_time latency = knob_draw(&c->start_latency, sim_now(ctx));
    if (latency > 0) {
        sim_msg_delivered(ctx, m, c->env.node, w->id);
        sim_schedule(ctx, latency, &ev_begin, w, NULL);
    } else {                       /* the same instant: no event, one message call */
        sim_msg_delivered_begin(ctx, m, c->env.node, w->id);
        work(ctx, w);
    }
    maybe_read(ctx, c);
}

static const consumer_port_ops reader_ops = { .deliver = on_deliver };

/* The worker's time for a message of `service` ns.  At speed 1 that is the
 * service time itself, exactly what the division gives below 2^52 (every
 * such integer and its half are doubles), without the division. */
static sim_time work_time(const competing *c, const worker *w, sim_time service)
{
    if (c->fixed_ns)
        return c->fixed_ns[w->index];
    double speed = c->speed ? c->speed[w->index] : 1.0;
    if (speed == 1.0 && (uint64_t)service < (uint64_t)1 << 52)
        return service;
    return (sim_time)((double)service / speed + 0.5);
}

/* The worker's listener runs on its message, begun now. */
static void work(sim_ctx *ctx, worker *w)
{
    host_run_timer(ctx, w->c->env.host, work_time(w->c, w, w->m->service_ns), &w->end);
}

static void on_begin(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    worker *w = self;
    sim_msg_begin(ctx, w->m, w->c->env.node, w->id);
    work(ctx, w);
}

static void on_end(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    worker *w = self;
    competing *c = w->c;
    sim_msg *m = w->m;
    w->m = NULL;
    free_index_release(&c->free_workers, w->index);
    sim_msg_end(ctx, m);
    c->env.broker->ops->ack(ctx, c->env.broker, &c->reader, m);
    maybe_read(ctx, c);
}

static void competing_start(sim_ctx *ctx, container *base)
{
    competing *c = (competing *)base;
    for (int i = 0; i < c->nworkers; i++)
        c->w[i].id = sim_consumer_started(ctx, c->env.node, c->env.queues[0]);
    c->reader = (consumer_port){
        .ops = &reader_ops, .owner = c, .node = c->env.node, .id = 0,
        .queue = c->env.queues[0], .prefetch = 0,
    };
    c->env.broker->ops->subscribe(ctx, c->env.broker, &c->reader);
    maybe_read(ctx, c);
}

static void competing_destroy(container *base)
{
    competing *c = (competing *)base;
    if (!c)
        return;
    free(c->w);
    free(c->fixed_ns);
    free(c->speed);
    free_index_fini(&c->free_workers);
    knob_fini(&c->start_latency);
    free(c);
}

/* workers: N | workerServiceTimes: [..] | workerSpeeds: [..] (one of them) */
static int read_workers(cfg_node *cfg, competing *c, sim_diag *d)
{
    cfg_node *times = cfg_get(cfg, "workerServiceTimes");
    cfg_node *speeds = cfg_get(cfg, "workerSpeeds");
    cfg_node *list = times ? times : speeds;
    if (times && speeds)
        return diag_at(d, speeds, "give workerServiceTimes or workerSpeeds, not both");
    if (list && cfg_has(cfg, "workers"))
        return diag_at(d, cfg_peek(cfg, "workers"), "workers: the list of %s already says how "
                       "many workers there are", times ? "workerServiceTimes" : "workerSpeeds");
    if (list && (cfg_expect_seq(list, times ? "workerServiceTimes" : "workerSpeeds", d) != SIM_OK))
        return SIM_EINPUT;
    if (list && list->n == 0)
        return diag_at(d, list, "the list of workers is empty");
    int64_t n = list ? (int64_t)list->n : 1;
    if (!list && cfg_get_int(cfg, "workers", 1, 1, 100000, 0, &n, d) != SIM_OK)
        return SIM_EINPUT;
    c->nworkers = (int)n;
    c->w = xcalloc_aligned(64, (size_t)n, sizeof *c->w);
    if (times)
        c->fixed_ns = xcalloc((size_t)n, sizeof *c->fixed_ns);
    if (speeds)
        c->speed = xcalloc((size_t)n, sizeof *c->speed);
    free_index_fill(&c->free_workers, (size_t)n);
    for (int i = 0; i < c->nworkers; i++) {
        c->w[i] = (worker){ .c = c, .index = (uint32_t)i };
        sim_timer_init(&c->w[i].end, &ev_end, &c->w[i], NULL);
        if (times && cfg_read_duration(list->items[i], NULL, 0, &c->fixed_ns[i], d) != SIM_OK)
            return SIM_EINPUT;
        if (speeds && cfg_read_double(list->items[i], NULL, 1e-9, 1e9, &c->speed[i], d) != SIM_OK)
            return SIM_EINPUT;
    }
    return SIM_OK;
}

static int competing_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env,
                            container **out, sim_diag *d);

const container_ops container_competing = {
    .kind = "competing", .broker_kind = "pull", .create = competing_create,
    .start = competing_start,
    .destroy = competing_destroy,
};

static int competing_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env,
                            container **out, sim_diag *d)
{
    competing *c = xcalloc(1, sizeof *c);
    c->base.ops = &container_competing;
    c->env = *env;
    *out = &c->base;
    if (env->nqueues != 1)
        return diag_at(d, cfg, "a competing container reads one queue, not %d", env->nqueues);
    if (knob_read(ctx, cfg, "startLatency", 0, false, "competing.startLatency",
                  &c->start_latency, d) != SIM_OK)
        return SIM_EINPUT;
    return read_workers(cfg, c, d);
}
