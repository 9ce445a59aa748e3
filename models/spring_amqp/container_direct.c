/* container_direct.c -- `container.kind: direct`: Spring AMQP's
 * DirectMessageListenerContainer on a RabbitMQ broker (specs/spring-amqp.md
 * section 3; details in docs/spring-amqp-notes.md).
 *
 * consumersPerQueue consumers on every queue, each one channel with one
 * basic.consume; no automatic scaling.  The listener does not run on a
 * thread of the container's own: it runs on the amqp-client's
 * ConsumerWorkService, one fixed pool of threads per connection
 * (availableProcessors x 2 threads up to amqp-client 5.14, x 1 from 5.15),
 * where each channel's deliveries run one at a time, in order.  The pool's
 * WorkPool keeps the channels that have deliveries waiting in a FIFO
 * ("ready"); a free thread takes the head channel and runs up to 16
 * (MAX_RUNNABLE_BLOCK_SIZE) of the deliveries waiting at that moment, one
 * after another, then puts the channel back at the tail if more came.  So
 * at most min(consumers, pool) listeners run at once.
 *
 * Channel states (one per consumer):
 *   STARTING --on_registered--> DORMANT --delivery--> READY --thread--> BUSY
 *   BUSY --block done--> READY (more waiting) | DORMANT
 *   a cancelled channel runs what it already received, then CLOSED
 *   (handleCancelOk closes it; the broker requeues anything unacknowledged).
 *
 * Acks: one basicAck per message, or with messagesPerAck > 1 one
 * multiple ack per messagesPerAck messages, plus the monitor task's flush
 * of acks older than ackTimeout (every min(monitorInterval, 5 s)).
 *
 * A channel the broker closes (consumer_timeout): what waits for a thread is
 * dropped (the broker takes it back), the listener running finishes without
 * an ack.  The container notices on its monitor task, which runs every
 * min(monitorInterval, 5 s) from the start: the first run after the close
 * cancels the consumer (`channel-closed`) and puts it on consumersToRestart;
 * the restart comes on the first run where lastRestartAttempt +
 * failedDeclarationRetryInterval (5 s) < now, which are every
 * (5 s / interval + 1) runs whatever happens (lastRestartAttempt moves on
 * each of them): a new consumer at the lowest free index.  Only those runs
 * are events (the monitor itself is one only with messagesPerAck > 1).
 *
 * A listener that throws (container.failures, as for smlc): the channel's
 * rollback is basicNack(deliveryTag, multiple=true, requeue) after any
 * pending acks went out (SimpleConsumer.rollback), requeue as
 * ContainerUtils.shouldRequeue decides (defaultRequeueRejected, fatal);
 * Spring Retry runs in the pool thread, which its back-off blocks.
 *
 * Invariants: idle_threads + channels BUSY == pool; a channel is on the
 * ready FIFO iff it is READY.
 */
#include "spring_amqp/amqp_version.h"
#include "engine/dist.h"
#include "base/free_index.h"
#include "core/listener_failures.h"
#include "base/mem.h"
#include "core/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE 16              /* ConsumerWorkService.MAX_RUNNABLE_BLOCK_SIZE */
#define RETRY_INTERVAL_MS 5000     /* failedDeclarationRetryInterval caps the monitor */
#define DEFAULT_PROCESSORS 8       /* availableProcessors when host.cores is not given */

typedef enum { CH_STARTING, CH_DORMANT, CH_READY, CH_BUSY, CH_CLOSED } ch_state;

typedef struct dconsumer {
    struct direct *d;
    int id;                        /* the engine's consumer number */
    int qi;                        /* index into env.queues */
    int index;                     /* SimpleConsumer's index within its queue */
    ch_state state;
    consumer_port port;
    sim_msg *work_head, *work_tail;/* deliveries waiting for a thread (linked by next) */
    int64_t nwork;
    int block_left;                /* deliveries left in the block being run */
    bool is_cancelled;
    int pending_acks;              /* messagesPerAck: processed, not yet acked */
    sim_msg *last_done;            /* the latest of them */
    int64_t last_ack_ms;
    struct dconsumer *next_ready;
    sim_msg *running;              /* the listener's message while BUSY */
    bool is_closed;                /* the broker closed the channel */
    sim_msg *held;                 /* the listener's message when it closed */
    sim_time held_begin;
    int attempt;                   /* stateless retry: attempts on the running message */
    lf_outcome pending;            /* stateful retry: thrown after the back-off */
} dconsumer;

typedef struct dchange {
    sim_time at;
    int per_queue;
} dchange;

typedef struct direct {
    container base;
    container_env env;
    /* settings */
    int version;
    int per_queue, pool, prefetch, messages_per_ack;
    int64_t ack_timeout_ms;
    bool is_requeue_rejected;      /* defaultRequeueRejected */
    listener_failures lf;
    sim_time monitor_interval;
    sim_knob start_latency;        /* a duration or a distribution */
    dchange *changes;
    int nchanges;
    /* state */
    dconsumer **cons;              /* every consumer so far, by id - 1 */
    size_t ncons, capcons;
    dconsumer ***lists;            /* consumersByQueue: per queue, in the order added */
    size_t *nlist, *caplist;
    free_index *free;              /* per queue: the indices no listed consumer holds */
    dconsumer *ready_head, *ready_tail;
    int idle_threads;
    int starts_pending;            /* consumers of the current adjustment not registered yet */
    int members;                   /* consumers in the lists (consumersByQueue) */
    sim_time started_at;           /* the monitor task's phase */
} direct;

static void on_registered(sim_ctx *ctx, void *self, void *arg);
static void on_done(sim_ctx *ctx, void *self, void *arg);
static void on_monitor(sim_ctx *ctx, void *self, void *arg);
static void on_change(sim_ctx *ctx, void *self, void *arg);
static void on_noticed(sim_ctx *ctx, void *self, void *arg);
static void on_retry(sim_ctx *ctx, void *self, void *arg);
static void on_rethrow(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_retry = { "direct.retry", on_retry };
static const sim_event_type ev_rethrow = { "direct.rethrow", on_rethrow };
static void on_restart(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_noticed = { "direct.channel_closed", on_noticed };
static const sim_event_type ev_restart = { "direct.restart", on_restart };
static const sim_event_type ev_registered = { "direct.registered", on_registered };
static const sim_event_type ev_done = { "direct.done", on_done };
static const sim_event_type ev_monitor = { "direct.monitor", on_monitor };
static const sim_event_type ev_change = { "direct.change", on_change };

static void run_threads(sim_ctx *ctx, direct *d);
static void consumer_add(sim_ctx *ctx, direct *d, int qi);
static void unlist(direct *d, int qi, size_t i);

/* ---- channels and the work pool --------------------------------------------- */

static void make_ready(direct *d, dconsumer *c)
{
    c->state = CH_READY;
    c->next_ready = NULL;
    if (d->ready_tail)
        d->ready_tail->next_ready = c;
    else
        d->ready_head = c;
    d->ready_tail = c;
}

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m)
{
    dconsumer *c = port->owner;
    direct *d = c->d;
    m->next = NULL;
    if (c->work_tail)
        c->work_tail->next = m;
    else
        c->work_head = m;
    c->work_tail = m;
    c->nwork++;
    sim_msg_delivered(ctx, m, d->env.node, c->id);
    if (c->state == CH_DORMANT) {
        make_ready(d, c);
        run_threads(ctx, d);
    }
}

static void on_closed(sim_ctx *ctx, consumer_port *port);
static const consumer_port_ops direct_port_ops = { .deliver = on_deliver, .closed = on_closed };

static void run_item(sim_ctx *ctx, direct *d, dconsumer *c)
{
    sim_msg *m = c->work_head;
    c->work_head = m->next;
    if (!c->work_head)
        c->work_tail = NULL;
    m->next = NULL;
    c->nwork--;
    c->block_left--;
    c->running = m;
    c->attempt = 0;
    sim_msg_begin(ctx, m, d->env.node, c->id);
    host_run(ctx, d->env.host, m->service_ns, &ev_done, c, m);
}

/* nextWorkBlock: free threads take the ready channels in order. */
static void run_threads(sim_ctx *ctx, direct *d)
{
    while (d->idle_threads > 0 && d->ready_head) {
        dconsumer *c = d->ready_head;
        d->ready_head = c->next_ready;
        if (!d->ready_head)
            d->ready_tail = NULL;
        c->state = CH_BUSY;
        c->block_left = c->nwork < BLOCK_SIZE ? (int)c->nwork : BLOCK_SIZE;
        d->idle_threads--;
        run_item(ctx, d, c);
    }
}

/* handleCancelOk after the deliveries received before it: the channel
 * closes, and the broker requeues what is still unacknowledged. */
static void close_channel(sim_ctx *ctx, direct *d, dconsumer *c)
{
    c->state = CH_CLOSED;
    d->env.broker->ops->unsubscribe(ctx, d->env.broker, &c->port);
    sim_consumer_stopped(ctx, d->env.node, c->id, "change");
}

static void send_ack(sim_ctx *ctx, direct *d, dconsumer *c)
{
    d->env.broker->ops->ack_upto(ctx, d->env.broker, &c->port, c->last_done);
    c->pending_acks = 0;
    c->last_done = NULL;
    c->last_ack_ms = sim_now(ctx) / SIM_MS;
}

/* SimpleConsumer.handleAck / ackIfNecessary (AUTO acknowledge mode). */
static void ack(sim_ctx *ctx, direct *d, dconsumer *c, sim_msg *m)
{
    if (d->messages_per_ack <= 1) {
        d->env.broker->ops->ack(ctx, d->env.broker, &c->port, m);
        return;
    }
    c->pending_acks++;
    c->last_done = m;
    if (c->pending_acks >= d->messages_per_ack || c->is_cancelled)
        send_ack(ctx, d, c);
}

/* SimpleConsumer.rollback: pending acks first, then one nack up to this
 * delivery, multiple=true. */
static void rollback(sim_ctx *ctx, direct *d, dconsumer *c, sim_msg *m, bool requeue)
{
    if (c->pending_acks > 0)
        send_ack(ctx, d, c);
    d->env.broker->ops->nack_upto(ctx, d->env.broker, &c->port, m, requeue);
}

static void listener_returned(sim_ctx *ctx, direct *d, dconsumer *c, sim_msg *m,
                              lf_outcome o, bool is_recovered);

static void on_retry(sim_ctx *ctx, void *self, void *arg)
{
    dconsumer *c = self;
    host_run(ctx, c->d->env.host, ((sim_msg *)arg)->service_ns, &ev_done, c, arg);
}

static void on_rethrow(sim_ctx *ctx, void *self, void *arg)
{
    dconsumer *c = self;
    listener_returned(ctx, c->d, c, arg, c->pending, false);
}

/* A listener attempt ended: retry as for smlc (container_smlc.c). */
static void on_done(sim_ctx *ctx, void *self, void *arg)
{
    dconsumer *c = self;
    direct *d = c->d;
    sim_msg *m = arg;
    lf_outcome o = lf_any(&d->lf) ? lf_call(&d->lf, m) : LF_OK;
    const lf_retry *r = &d->lf.retry;
    bool is_recovered = false;
    if (o != LF_OK && r->is_enabled && r->is_stateless) {
        if (++c->attempt < r->attempts) {
            sim_schedule(ctx, lf_backoff(r, c->attempt), &ev_retry, c, m);
            return;
        }
        is_recovered = true;
    } else if (o != LF_OK && r->is_enabled) {
        if ((int)sim_msg_deliveries(ctx, m) < r->attempts) {
            c->pending = o;
            sim_schedule(ctx, lf_backoff(r, (int)sim_msg_deliveries(ctx, m)), &ev_rethrow, c, m);
            return;
        }
        is_recovered = true;
    }
    listener_returned(ctx, d, c, m, o, is_recovered);
}

static void listener_returned(sim_ctx *ctx, direct *d, dconsumer *c, sim_msg *m,
                              lf_outcome o, bool is_recovered)
{
    void *arg = m;
    c->running = NULL;
    if (c->held && c->held == arg) {
        /* its channel closed meanwhile: no ack, and nothing more to run */
        sim_msg_end_held(ctx, c->held, d->env.node, c->id, c->held_begin, o == LF_OK);
        c->held = NULL;
        d->idle_threads++;
        c->state = CH_CLOSED;
        run_threads(ctx, d);
        return;
    }
    if (o == LF_OK) {
        sim_msg_end(ctx, arg);
        ack(ctx, d, c, arg);
    } else {
        sim_msg_end_failed(ctx, arg);
        rollback(ctx, d, c, m,
                 o == LF_FAILS && !is_recovered && d->is_requeue_rejected);
    }
    if (c->block_left > 0) {
        run_item(ctx, d, c);
        return;
    }
    d->idle_threads++;             /* finishWorkBlock */
    if (c->nwork > 0)
        make_ready(d, c);
    else if (c->is_cancelled)
        close_channel(ctx, d, c);
    else
        c->state = CH_DORMANT;
    run_threads(ctx, d);
}

/* ---- a channel the broker closed ------------------------------------------------------ */

/* The monitor runs at started_at + k * interval; the restarts on every
 * j-th run, j = retry / interval + 1 (lastRestartAttempt + retry < now). */
static sim_time monitor_run_after(const direct *d, sim_time t, int every)
{
    sim_time period = d->monitor_interval * every;
    sim_time k = (t - d->started_at) / period + 1;
    return d->started_at + k * period;
}

static int restart_every(const direct *d)
{
    return (int)(RETRY_INTERVAL_MS * SIM_MS / d->monitor_interval) + 1;
}

static void unready(direct *d, dconsumer *c)
{
    dconsumer **link = &d->ready_head, *prev = NULL;
    while (*link && *link != c) {
        prev = *link;
        link = &(*link)->next_ready;
    }
    if (!*link)
        return;
    *link = c->next_ready;
    if (d->ready_tail == c)
        d->ready_tail = prev;
    c->next_ready = NULL;
}

static void on_closed(sim_ctx *ctx, consumer_port *port)
{
    dconsumer *c = port->owner;
    direct *d = c->d;
    c->is_closed = true;
    if (c->state == CH_READY)
        unready(d, c);
    c->work_head = c->work_tail = NULL;
    c->nwork = 0;
    c->block_left = 0;
    c->pending_acks = 0;
    c->last_done = NULL;
    if (c->state == CH_BUSY && c->running) {
        c->held = c->running;
        c->held_begin = sim_msg_t_begin(ctx, c->running);
        sim_msg_hold(ctx, c->held);
    } else {
        c->state = CH_CLOSED;
    }
    char detail[96];
    snprintf(detail, sizeof detail, "{\"consumer\":%d,\"in_progress\":%s}", c->id,
             c->held ? "true" : "false");
    sim_scaling(ctx, d->env.node, "channel-closed", d->members, "consumer_timeout", detail);
    /* a run at the very instant of the close has already looked */
    sim_schedule_at(ctx, monitor_run_after(d, sim_now(ctx), 1), &ev_noticed, d, c);
}

static void restart_consumer(sim_ctx *ctx, direct *d, dconsumer *old)
{
    consumer_add(ctx, d, old->qi);
    d->members++;
    char detail[96];
    snprintf(detail, sizeof detail, "{\"consumer\":%d,\"new_consumer\":%d,\"reason\":"
             "\"channel-closed\"}", old->id, d->cons[d->ncons - 1]->id);
    sim_scaling(ctx, d->env.node, "restart", d->members, "restart", detail);
}

/* The monitor finds the channel closed: cancelConsumer, out of the lists,
 * onto consumersToRestart. */
static void on_noticed(sim_ctx *ctx, void *self, void *arg)
{
    direct *d = self;
    dconsumer *c = arg;
    bool is_listed = false;        /* not when a change cancelled it meanwhile */
    for (size_t i = 0; i < d->nlist[c->qi] && !is_listed; i++)
        if (d->lists[c->qi][i] == c) {
            is_listed = true;
            unlist(d, c->qi, i);
        }
    d->env.broker->ops->unsubscribe(ctx, d->env.broker, &c->port);
    sim_consumer_stopped(ctx, d->env.node, c->id, "channel-closed");
    if (!is_listed)
        return;
    sim_time now = sim_now(ctx);
    int every = restart_every(d);
    bool is_restart_run = (now - d->started_at) % (d->monitor_interval * every) == 0;
    if (is_restart_run)
        restart_consumer(ctx, d, c);
    else
        sim_schedule_at(ctx, monitor_run_after(d, now, every), &ev_restart, d, c);
}

static void on_restart(sim_ctx *ctx, void *self, void *arg)
{
    restart_consumer(ctx, self, arg);
}

/* ---- consumers ------------------------------------------------------------------------ */

/* The consumer at list position i leaves the queue's list (its index is
 * free again: see free_index.h). */
static void unlist(direct *d, int qi, size_t i)
{
    free_index_release(&d->free[qi], (size_t)d->lists[qi][i]->index);
    memmove(d->lists[qi] + i, d->lists[qi] + i + 1, (d->nlist[qi] - i - 1) * sizeof **d->lists);
    d->nlist[qi]--;
    d->members--;
}

/* doConsumeFromQueue: basic.consume answered after startLatency; the
 * container adds consumers one after another, each waiting for its own. */
static void consumer_add(sim_ctx *ctx, direct *d, int qi)
{
    dconsumer *c = xcalloc(1, sizeof *c);
    c->d = d;
    c->qi = qi;
    /* the lowest index no consumer in the queue's list holds: a few instructions,
     * not a pass over the list (starting 100,000 consumers took a minute) */
    c->index = (int)free_index_take(&d->free[qi]);
    c->id = sim_consumer_started(ctx, d->env.node, d->env.queues[qi]);
    c->state = CH_STARTING;
    c->last_ack_ms = sim_now(ctx) / SIM_MS;
    c->port = (consumer_port){
        .ops = &direct_port_ops, .owner = c, .node = d->env.node, .id = c->id,
        .queue = d->env.queues[qi], .prefetch = d->prefetch,
    };
    xgrow((void **)&d->cons, &d->capcons, d->ncons + 1, sizeof *d->cons);
    d->cons[d->ncons++] = c;
    xgrow((void **)&d->lists[qi], &d->caplist[qi], d->nlist[qi] + 1, sizeof **d->lists);
    d->lists[qi][d->nlist[qi]++] = c;
    d->starts_pending++;
    /* behind the starts still pending: one start latency each (a
     * distribution draws each of them, as its stream always has) */
    sim_time wait = 0;
    if (!knob_draws(&d->start_latency))
        wait = d->starts_pending * knob_draw(&d->start_latency, sim_now(ctx));
    else
        for (int i = 0; i < d->starts_pending; i++)
            wait += knob_draw(&d->start_latency, sim_now(ctx));
    sim_schedule(ctx, wait, &ev_registered, c, NULL);
}

static void on_registered(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    dconsumer *c = self;
    c->d->starts_pending--;
    if (c->is_cancelled) {         /* lowered again before its basic.consume came back */
        c->state = CH_CLOSED;
        sim_consumer_stopped(ctx, c->d->env.node, c->id, "change");
        return;
    }
    c->state = CH_DORMANT;
    c->d->env.broker->ops->subscribe(ctx, c->d->env.broker, &c->port);
}

/* cancelConsumer: flush pending acks, basic.cancel, out of the lists. */
static void consumer_cancel(sim_ctx *ctx, direct *d, dconsumer *c)
{
    c->is_cancelled = true;
    if (c->pending_acks > 0)
        send_ack(ctx, d, c);
    if (c->state == CH_STARTING)
        return;                    /* cancelled as it registers: see on_registered */
    d->env.broker->ops->cancel(ctx, d->env.broker, &c->port);
    if (c->state == CH_DORMANT)
        close_channel(ctx, d, c);
}

/* setConsumersPerQueue at runtime (adjustConsumers): per queue, add at the
 * lowest free index up to n, or cancel the consumer at list index 0 (what
 * findIdleConsumer returns) until n are left. */
static void adjust(sim_ctx *ctx, direct *d, int n)
{
    char detail[128];
    for (int qi = 0; qi < d->env.nqueues; qi++) {
        snprintf(detail, sizeof detail, "{\"consumersPerQueue\":%d,\"from\":%d,\"queue\":\"%s\"}",
                 n, d->per_queue, sim_queue_name(ctx, d->env.queues[qi]));
        while ((int)d->nlist[qi] < n) {
            consumer_add(ctx, d, qi);
            d->members++;
            sim_scaling(ctx, d->env.node, "start", d->members, "setConsumersPerQueue", detail);
        }
        while ((int)d->nlist[qi] > n) {
            dconsumer *c = d->lists[qi][0];
            unlist(d, qi, 0);
            sim_scaling(ctx, d->env.node, "stop", d->members, "setConsumersPerQueue", detail);
            consumer_cancel(ctx, d, c);
        }
    }
    d->per_queue = n;
}

static void on_change(sim_ctx *ctx, void *self, void *arg)
{
    direct *d = self;
    adjust(ctx, d, d->changes[(intptr_t)arg].per_queue);
}

/* The monitor task: acks pending longer than ackTimeout are sent. */
static void on_monitor(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    direct *d = self;
    int64_t now = sim_now(ctx) / SIM_MS;
    for (size_t i = 0; i < d->ncons; i++) {
        dconsumer *c = d->cons[i];
        if (c->state != CH_CLOSED && !c->is_closed && c->pending_acks > 0 &&
            now - c->last_ack_ms > d->ack_timeout_ms)
            send_ack(ctx, d, c);
    }
    sim_schedule(ctx, d->monitor_interval, &ev_monitor, d, NULL);
}

/* ---- the container ------------------------------------------------------------------------ */

static void direct_start(sim_ctx *ctx, container *base)
{
    direct *d = (direct *)base;
    d->started_at = sim_now(ctx);
    for (int i = 0; i < d->nchanges; i++)
        sim_schedule_at(ctx, d->changes[i].at, &ev_change, d, (void *)(intptr_t)i);
    for (int qi = 0; qi < d->env.nqueues; qi++)
        for (int i = 0; i < d->per_queue; i++) {
            consumer_add(ctx, d, qi);
            d->members++;
        }
    if (d->messages_per_ack > 1)
        sim_schedule(ctx, d->monitor_interval, &ev_monitor, d, NULL);
}

static void direct_finish(sim_ctx *ctx, container *base)
{
    direct *d = (direct *)base;
    sim_metric(ctx, "direct_pool_threads", d->pool);
}

static void direct_destroy(container *base)
{
    direct *d = (direct *)base;
    if (!d)
        return;
    for (size_t i = 0; i < d->ncons; i++)
        free(d->cons[i]);
    free(d->cons);
    for (int qi = 0; d->lists && qi < d->env.nqueues; qi++)
        free(d->lists[qi]);
    for (int qi = 0; d->free && qi < d->env.nqueues; qi++)
        free_index_fini(&d->free[qi]);
    free(d->free);
    free(d->lists);
    free(d->nlist);
    free(d->caplist);
    free(d->changes);
    knob_fini(&d->start_latency);
    lf_fini(&d->lf);
    free(d);
}

/* ---- the keys -------------------------------------------------------------------------------- */

/* amqp-client "5.14": which ConsumerWorkService default it has. */
static int read_pool(cfg_node *cfg, direct *d, sim_diag *d_)
{
    const char *client;
    int64_t threads;
    int cores = host_cores(d->env.host) > 0 ? host_cores(d->env.host) : DEFAULT_PROCESSORS;
    const char *def = d->version < AMQP_VERSION(3, 0, 0) ? "5.14" : "5.16";
    if (cfg_get_string(cfg, "amqpClientVersion", def, 0, &client, d_) != SIM_OK ||
        cfg_get_int(cfg, "clientThreads", 0, 1, 100000, CFG_NO_DEFAULT, &threads, d_) != SIM_OK)
        return SIM_EINPUT;
    int major, minor;
    char tail;
    if (sscanf(client, "%d.%d%c", &major, &minor, &tail) < 2 || major < 1)
        return diag_at(d_, cfg_peek(cfg, "amqpClientVersion"), "amqpClientVersion: '%s' is not "
                       "an amqp-client version (like \"5.14\")", client);
    bool per_core = major > 5 || (major == 5 && minor >= 15);   /* rabbitmq-java-client 49c5e2cf5 */
    d->pool = cfg_has(cfg, "clientThreads") ? (int)threads : per_core ? cores : cores * 2;
    return SIM_OK;
}

static int read_changes(cfg_node *cfg, direct *d, sim_diag *d_)
{
    cfg_node *list = cfg_get(cfg, "changes");
    if (!list)
        return SIM_OK;
    if (cfg_expect_seq(list, "changes", d_) != SIM_OK)
        return SIM_EINPUT;
    d->changes = xcalloc(list->n ? list->n : 1, sizeof *d->changes);
    for (size_t i = 0; i < list->n; i++) {
        int64_t n;
        cfg_node *item = list->items[i];
        if (cfg_expect_map(item, "a change", d_) != SIM_OK ||
            cfg_get_duration(item, "at", 0, CFG_REQUIRED, &d->changes[i].at, d_) != SIM_OK ||
            cfg_get_int(item, "consumersPerQueue", 0, 0, 100000, CFG_REQUIRED, &n, d_) != SIM_OK)
            return SIM_EINPUT;
        d->changes[i].per_queue = (int)n;
        d->nchanges++;
    }
    return SIM_OK;
}

static int read_config(sim_ctx *ctx, cfg_node *cfg, direct *d, sim_diag *d_)
{
    int64_t per_queue, prefetch, mpa;
    sim_time monitor, ack_timeout;
    if (amqp_version_read(cfg, AMQP_VERSION(2, 0, 0), "DirectMessageListenerContainer came "
                          "in Spring AMQP 2.0", &d->version, d_) != SIM_OK ||
        cfg_get_int(cfg, "consumersPerQueue", 1, 1, 100000, 0, &per_queue, d_) != SIM_OK ||
        cfg_get_int(cfg, "prefetchCount", 250, 0, 1000000000, 0, &prefetch, d_) != SIM_OK ||
        cfg_get_int(cfg, "messagesPerAck", 0, 0, 1000000000, 0, &mpa, d_) != SIM_OK ||
        cfg_get_duration(cfg, "ackTimeout", 20 * SIM_S, CFG_POSITIVE, &ack_timeout, d_) != SIM_OK ||
        cfg_get_duration(cfg, "monitorInterval", 10 * SIM_S, CFG_POSITIVE, &monitor, d_) != SIM_OK ||
        knob_read(ctx, cfg, "startLatency", 0, false, "direct.startLatency", &d->start_latency,
                  d_) != SIM_OK ||
        read_pool(cfg, d, d_) != SIM_OK || read_changes(cfg, d, d_) != SIM_OK ||
        cfg_get_bool(cfg, "defaultRequeueRejected", true, 0, &d->is_requeue_rejected, d_) !=
            SIM_OK ||
        lf_read(ctx, cfg, d->env.node, d->version >= AMQP_VERSION(4, 0, 0), &d->lf, d_) != SIM_OK)
        return SIM_EINPUT;
    d->per_queue = (int)per_queue;
    d->messages_per_ack = (int)mpa;
    /* "prefetch is raised to match" messagesPerAck (doStart) */
    d->prefetch = prefetch < mpa ? (int)mpa : (int)prefetch;
    d->ack_timeout_ms = ack_timeout / SIM_MS;
    d->monitor_interval = monitor < RETRY_INTERVAL_MS * SIM_MS ? monitor : RETRY_INTERVAL_MS * SIM_MS;
    return SIM_OK;
}

static int direct_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                         sim_diag *d_);

const container_ops container_direct = {
    .kind = "direct", .broker_kind = "rabbitmq", .create = direct_create, .start = direct_start,
    .finish = direct_finish, .destroy = direct_destroy,
};

static int direct_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                         sim_diag *d_)
{
    direct *d = xcalloc(1, sizeof *d);
    d->base.ops = &container_direct;
    d->env = *env;
    *out = &d->base;
    d->lists = xcalloc((size_t)env->nqueues, sizeof *d->lists);
    d->nlist = xcalloc((size_t)env->nqueues, sizeof *d->nlist);
    d->caplist = xcalloc((size_t)env->nqueues, sizeof *d->caplist);
    d->free = xcalloc((size_t)env->nqueues, sizeof *d->free);
    if (read_config(ctx, cfg, d, d_) != SIM_OK)
        return SIM_EINPUT;
    d->idle_threads = d->pool;
    if (host_cores(env->host) <= 0 && !cfg_has(cfg, "clientThreads") &&
        d->per_queue * env->nqueues > d->pool)
        sim_warn(ctx, "node %d: host.cores is not set, so the amqp-client pool is taken as %d "
                 "threads (availableProcessors %d); it runs %d of the %d consumers at once. "
                 "Set host.cores or container.clientThreads", env->node, d->pool,
                 DEFAULT_PROCESSORS, d->pool, d->per_queue * env->nqueues);
    return SIM_OK;
}
