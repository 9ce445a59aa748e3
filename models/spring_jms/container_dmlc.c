/* container_dmlc.c -- `container.kind: dmlc`: Spring JMS
 * DefaultMessageListenerContainer on an ActiveMQ queue (spec §1, with the
 * exact logic of §1.2; settings in dmlc_config.c).
 *
 * A node runs one listener container per queue.  Each has a set S of
 * scheduled invokers (scheduledInvokers).  An invoker runs tasks
 * (AsyncMessageListenerInvoker.run); a task is a series of receive attempts
 * (invokeListener): the ongoing loop, which ends only when |S| > M, or
 * maxMessagesPerTask attempts, or (5.3+) until idleReceivesPerTaskLimit
 * null receives in a row.  Which kind a task is depends on the version:
 *   4.3  ongoing iff maxMessagesPerTask < 0
 *   5.3  ongoing iff maxMessagesPerTask < 0 and idleReceivesPerTaskLimit < 0
 *   6.2  ongoing iff maxMessagesPerTask < 0 and (the invoker is not surplus,
 *        |S| <= C when the task starts, or idleReceivesPerTaskLimit < 0)
 *
 * Invoker states (the function that moves it):
 *   STARTING --on_start--> (task) --attempt--> TAKING (its buffer had one)
 *                                           \-> RECEIVING (waiting, timeout set)
 *   RECEIVING --on_deliver--> TAKING --take--> LISTENING --on_done--> (next attempt)
 *   RECEIVING --on_timeout--> (next attempt)
 *   (task end) --end_task--> a new task (rescheduleLatency later: STARTING
 *                            again), or removed from S (consumer closed)
 *
 * Rules (spec §1.2): a received message marks the invoker busy and, before
 * the listener runs, adds one invoker if |S| < M and fewer than
 * idleConsumerLimit invokers are idle (new invokers count as idle).  At a
 * task's end the invoker is kept if |S| <= (superfluous ? C : M), where
 * superfluous = its idle task count >= idleTaskExecutionLimit and more than
 * one invoker is idle.  There is no timer.
 *
 * Receiving: the consumer acknowledges inside receive() (AUTO_ACKNOWLEDGE),
 * so the broker frees the prefetch slot before the listener runs and this
 * container finishes the message (sim_msg_done) when the listener returns.
 * With cacheLevel CONSUMER an invoker subscribes once, on its first
 * attempt, and closes its consumer when it leaves S; below CONSUMER a
 * consumer is made for every attempt and closed after it (after the
 * listener), as AbstractPollingMessageListenerContainer.doReceiveAndExecute
 * does.  Closing gives the consumer's buffer back to the broker.
 *
 * Invariants: (1) n_idle == the invokers in S whose is_idle is set;
 * (2) buffered == the sum of the invokers' buffers; (3) an invoker has at
 * most one pending event of its own (start, take, timeout or the host's
 * end of its listener).
 */
#include "spring_jms/dmlc.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { INV_STARTING, INV_BETWEEN, INV_RECEIVING, INV_TAKING, INV_LISTENING } inv_state;

typedef struct invoker {
    struct listener *l;
    int id;                        /* the engine's consumer id, 0 until started */
    inv_state state;
    bool is_idle;                  /* AsyncMessageListenerInvoker.idle (starts true) */
    int idle_tasks;                /* idleTaskExecutionCount */
    /* the task in progress */
    bool is_ongoing, has_received;
    int attempts, idle_run;
    /* its consumer */
    consumer_port port;
    bool is_subscribed;
    sim_msg *buf_head, *buf_tail;  /* the client's prefetch buffer */
    sim_event_id timeout;
    sim_msg *m;                    /* in the listener */
} invoker;

typedef struct listener {          /* one DefaultMessageListenerContainer */
    struct dmlc *c;
    int queue;
    dmlc_settings set;
    invoker **s;                   /* scheduledInvokers, in the order scheduled */
    size_t ns, cap;
    int n_idle;
    /* figures: messages received that asked for no new invoker, and why */
    int64_t refused_max;           /* scheduledInvokers at maxConcurrentConsumers */
    int64_t held_by_idle;          /* idleConsumerLimit invokers were idle */
} listener;

typedef struct dmlc {
    container base;
    container_env env;
    dmlc_config cfg;
    listener *l;
    int nl;
    int64_t buffered;
} dmlc;

static void on_start(sim_ctx *ctx, void *self, void *arg);
static void on_take(sim_ctx *ctx, void *self, void *arg);
static void on_timeout(sim_ctx *ctx, void *self, void *arg);
static void on_done(sim_ctx *ctx, void *self, void *arg);
static void on_change(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_start = { "dmlc.invoker_start", on_start };
static const sim_event_type ev_take = { "dmlc.receive", on_take };
static const sim_event_type ev_timeout = { "dmlc.receive_timeout", on_timeout };
static const sim_event_type ev_done = { "dmlc.listener_done", on_done };
static const sim_event_type ev_change = { "dmlc.change", on_change };
static const sim_event_type ev_reschedule = { "dmlc.task_rescheduled", on_start };

static void next_attempt(sim_ctx *ctx, invoker *inv);

/* ---- the set S -------------------------------------------------------------------- */

static void set_idle(listener *l, invoker *inv, bool idle)
{
    if (inv->is_idle != idle)
        l->n_idle += idle ? 1 : -1;
    inv->is_idle = idle;
}

static void remove_from_set(listener *l, invoker *inv)
{
    for (size_t i = 0; i < l->ns; i++)
        if (l->s[i] == inv) {
            memmove(l->s + i, l->s + i + 1, (l->ns - i - 1) * sizeof *l->s);
            l->ns--;
            break;
        }
    if (inv->is_idle)
        l->n_idle--;
}

/* scheduleNewInvoker: the invoker joins S now (idle) and its thread starts:
 * the consumer's start is stamped here, as the recorders of real runs stamp
 * it when the invoker's task begins, before it subscribes; it subscribes
 * startLatency later (on_start). */
static void new_invoker(sim_ctx *ctx, listener *l, const char *rule)
{
    invoker *inv = xcalloc(1, sizeof *inv);
    inv->l = l;
    inv->state = INV_STARTING;
    inv->is_idle = true;
    l->n_idle++;
    xgrow((void **)&l->s, &l->cap, l->ns + 1, sizeof *l->s);
    l->s[l->ns++] = inv;
    char detail[256];
    snprintf(detail, sizeof detail, "{\"scheduled\":%zu,\"idle\":%d,\"idleConsumerLimit\":%d,"
             "\"concurrentConsumers\":%d,\"maxConcurrentConsumers\":%d}", l->ns, l->n_idle,
             l->set.idle_consumer_limit, l->set.concurrent, l->set.max);
    sim_scaling(ctx, l->c->env.node, "start", (int)l->ns, rule, detail);
    inv->id = sim_consumer_started(ctx, l->c->env.node, l->queue);
    sim_schedule(ctx, knob_draw(&l->set.start_latency, sim_now(ctx)), &ev_start, inv, NULL);
}

/* scheduleNewInvokerIfAppropriate, after a message was received. */
static void maybe_scale_up(sim_ctx *ctx, listener *l)
{
    if ((int64_t)l->ns < l->set.max && l->n_idle < l->set.idle_consumer_limit)
        new_invoker(ctx, l, "message-received");
    else if ((int64_t)l->ns >= l->set.max)
        l->refused_max++;
    else
        l->held_by_idle++;
}

/* ---- the consumer ----------------------------------------------------------------- */

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m)
{
    invoker *inv = port->owner;
    dmlc *c = inv->l->c;
    m->next = NULL;
    if (inv->buf_tail)
        inv->buf_tail->next = m;
    else
        inv->buf_head = m;
    inv->buf_tail = m;
    c->buffered++;
    sim_msg_delivered(ctx, m, c->env.node, inv->id);
    if (inv->state == INV_RECEIVING) {
        /* receive() returns with it receiveLag later (the broker's dispatch
         * pass is over first even when it is 0) */
        sim_cancel(ctx, inv->timeout);
        inv->timeout = 0;
        inv->state = INV_TAKING;
        sim_schedule(ctx, knob_draw(&inv->l->set.receive_lag, sim_now(ctx)), &ev_take, inv, NULL);
    }
}

static const consumer_port_ops port_ops = { .deliver = on_deliver };

static void open_consumer(sim_ctx *ctx, invoker *inv)
{
    if (inv->is_subscribed)
        return;
    dmlc *c = inv->l->c;
    inv->port = (consumer_port){
        .ops = &port_ops, .owner = inv, .node = c->env.node, .id = inv->id,
        .queue = inv->l->queue, .prefetch = -1,   /* the broker's queuePrefetch */
    };
    inv->is_subscribed = true;
    c->env.broker->ops->subscribe(ctx, c->env.broker, &inv->port);
}

/* The client forgets its buffer; the broker puts those messages back. */
static void close_consumer(sim_ctx *ctx, invoker *inv)
{
    if (!inv->is_subscribed)
        return;
    dmlc *c = inv->l->c;
    for (sim_msg *m = inv->buf_head; m; m = m->next)
        c->buffered--;
    inv->buf_head = inv->buf_tail = NULL;
    inv->is_subscribed = false;
    c->env.broker->ops->unsubscribe(ctx, c->env.broker, &inv->port);
}

/* ---- receive attempts ------------------------------------------------------------- */

/* receive() returns the head of the buffer: acknowledged at once; the
 * container may add an invoker; then the listener runs. */
static void take(sim_ctx *ctx, invoker *inv)
{
    listener *l = inv->l;
    dmlc *c = l->c;
    sim_msg *m = inv->buf_head;
    inv->buf_head = m->next;
    if (!inv->buf_head)
        inv->buf_tail = NULL;
    c->buffered--;
    inv->m = m;
    inv->state = INV_LISTENING;
    c->env.broker->ops->ack(ctx, c->env.broker, &inv->port, m);
    set_idle(l, inv, false);       /* messageReceived() */
    maybe_scale_up(ctx, l);
    inv->has_received = true;
    inv->idle_run = 0;
    sim_msg_begin(ctx, m, c->env.node, inv->id);
    host_run(ctx, c->env.host, m->service_ns, &ev_done, inv, NULL);
}

static void attempt(sim_ctx *ctx, invoker *inv)
{
    dmlc *c = inv->l->c;
    inv->attempts++;
    bool was_subscribed = inv->is_subscribed;
    open_consumer(ctx, inv);
    sim_time lag = 0;
    if (inv->buf_head && !was_subscribed)
        /* the subscription's first dispatch: receive() was waiting for it */
        lag = knob_draw(&inv->l->set.receive_lag, sim_now(ctx));
    else if (inv->buf_head && inv->attempts > 1)
        /* within a task the invoker loops back and the client hands over
         * its buffer's head; a task's first attempt paid rescheduleLatency */
        lag = knob_draw(&inv->l->set.buffered_receive_lag, sim_now(ctx));
    if (lag > 0) {
        inv->state = INV_TAKING;
        sim_schedule(ctx, lag, &ev_take, inv, NULL);
        return;
    }
    if (inv->buf_head) {
        take(ctx, inv);
        return;
    }
    inv->state = INV_RECEIVING;
    c->env.broker->ops->pull(ctx, c->env.broker, &inv->port);
    if (inv->state == INV_RECEIVING && inv->l->set.receive_timeout > 0)
        inv->timeout = sim_schedule(ctx, inv->l->set.receive_timeout +
                                    knob_draw(&inv->l->set.idle_receive_overhead, sim_now(ctx)),
                                    &ev_timeout, inv, NULL);
}

static void on_take(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    take(ctx, self);
}

static void on_done(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    invoker *inv = self;
    sim_msg *m = inv->m;
    inv->m = NULL;
    sim_msg_end(ctx, m);
    sim_msg_done(ctx, m);          /* acknowledged at receive: the broker let it go */
    if (!inv->l->set.is_consumer_cached)
        close_consumer(ctx, inv);
    inv->state = INV_BETWEEN;
    next_attempt(ctx, inv);
}

static void on_timeout(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    invoker *inv = self;
    dmlc *c = inv->l->c;
    inv->timeout = 0;
    c->env.broker->ops->unpull(ctx, c->env.broker, &inv->port);
    set_idle(inv->l, inv, true);   /* noMessageReceived() */
    inv->idle_run++;
    if (!inv->l->set.is_consumer_cached)
        close_consumer(ctx, inv);
    inv->state = INV_BETWEEN;
    next_attempt(ctx, inv);
}

/* ---- tasks ------------------------------------------------------------------------ */

static void run_task(sim_ctx *ctx, invoker *inv)
{
    const dmlc_settings *s = &inv->l->set;
    bool surplus = (int64_t)inv->l->ns > s->concurrent;
    switch (s->version) {
    case DMLC_V43:
        inv->is_ongoing = s->max_messages < 0;
        break;
    case DMLC_V53:
        inv->is_ongoing = s->max_messages < 0 && s->idle_receives < 0;
        break;
    case DMLC_V62:
        inv->is_ongoing = s->max_messages < 0 && (!surplus || s->idle_receives < 0);
        break;
    }
    inv->has_received = false;
    inv->attempts = inv->idle_run = 0;
    next_attempt(ctx, inv);
}

static bool task_goes_on(const invoker *inv)
{
    const dmlc_settings *s = &inv->l->set;
    if (inv->is_ongoing)           /* executeOngoingLoop: leave when M was lowered */
        return (int64_t)inv->l->ns <= s->max;
    int irptl = s->version == DMLC_V43 ? -1 : s->idle_receives;
    return (s->max_messages < 0 || inv->attempts < s->max_messages) &&
           (irptl < 0 || inv->idle_run < irptl);
}

/* The `finally` of run(): reschedule (keep the consumer) or leave S. */
static void end_task(sim_ctx *ctx, invoker *inv)
{
    listener *l = inv->l;
    const dmlc_settings *s = &l->set;
    inv->idle_tasks = inv->has_received ? 0 : inv->idle_tasks + 1;
    bool superfluous = inv->idle_tasks >= s->idle_task_limit && l->n_idle > 1;
    if ((int64_t)l->ns <= (superfluous ? s->concurrent : s->max)) {
        /* rescheduleTaskIfNecessary: the task goes back to the executor (a
         * new thread a task for SimpleAsyncTaskExecutor); the consumer stays
         * subscribed, and its buffer fills meanwhile */
        sim_time later = knob_draw(&s->reschedule_latency, sim_now(ctx));
        if (later > 0) {
            inv->state = INV_STARTING;
            sim_schedule(ctx, later, &ev_reschedule, inv, NULL);
        } else {
            run_task(ctx, inv);
        }
        return;
    }
    char detail[256];
    snprintf(detail, sizeof detail, "{\"idleTaskExecutionCount\":%d,\"idleTaskExecutionLimit\":"
             "%d,\"idle\":%d,\"scheduled\":%zu,\"concurrentConsumers\":%d,"
             "\"maxConcurrentConsumers\":%d}", inv->idle_tasks, s->idle_task_limit, l->n_idle,
             l->ns, s->concurrent, s->max);
    remove_from_set(l, inv);
    close_consumer(ctx, inv);
    sim_consumer_stopped(ctx, l->c->env.node, inv->id, superfluous ? "scale-down" : "change");
    sim_scaling(ctx, l->c->env.node, "stop", (int)l->ns, superfluous ? "idle-task" : "above-max",
                detail);
    free(inv);
}

static void next_attempt(sim_ctx *ctx, invoker *inv)
{
    if (task_goes_on(inv))
        attempt(ctx, inv);
    else
        end_task(ctx, inv);
}

static void on_start(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    invoker *inv = self;
    inv->state = INV_BETWEEN;
    run_task(ctx, inv);
}

/* ---- runtime changes -------------------------------------------------------------- */

static void on_change(sim_ctx *ctx, void *self, void *arg)
{
    dmlc *c = self;
    const dmlc_change *ch = arg;
    for (int i = 0; i < c->nl; i++) {
        if (ch->queue >= 0 && ch->queue != i)
            continue;
        dmlc_settings *s = &c->l[i].set;
        for (int k = 0; k < ch->nops; k++) {
            if (ch->ops[k].what == DMLC_SET_MAX && ch->ops[k].value < s->concurrent)
                sim_warn(ctx, "node %d: maxConcurrentConsumers %d is below concurrentConsumers "
                         "%d, so Spring keeps %d", c->env.node, ch->ops[k].value,
                         s->concurrent, s->concurrent);
            dmlc_apply(s, ch->ops[k].what, ch->ops[k].value);
        }
    }
}

/* ---- the container ---------------------------------------------------------------- */

/* doInitialize: concurrentConsumers invokers per listener. */
static void dmlc_start(sim_ctx *ctx, container *base)
{
    dmlc *c = (dmlc *)base;
    for (int i = 0; i < c->cfg.nchanges; i++)
        sim_schedule_at(ctx, c->cfg.changes[i].at, &ev_change, c, &c->cfg.changes[i]);
    for (int i = 0; i < c->nl; i++)
        for (int k = 0; k < c->l[i].set.concurrent; k++)
            new_invoker(ctx, &c->l[i], "initial");
}

/* What limited the scaling, summed over listeners and nodes (so that the
 * maximum compares with consumers_max). */
static void dmlc_finish(sim_ctx *ctx, container *base)
{
    const dmlc *c = (const dmlc *)base;
    for (int i = 0; i < c->nl; i++) {
        const listener *l = &c->l[i];
        sim_metric_add(ctx, "dmlc_starts_refused_max", (double)l->refused_max);
        sim_metric_add(ctx, "dmlc_starts_held_by_idle", (double)l->held_by_idle);
        sim_metric_add(ctx, "dmlc_max_consumers", (double)l->set.max);
    }
}

static void dmlc_destroy(container *base)
{
    dmlc *c = (dmlc *)base;
    if (!c)
        return;
    for (int i = 0; i < c->nl; i++) {
        for (size_t k = 0; k < c->l[i].ns; k++)
            free(c->l[i].s[k]);
        free(c->l[i].s);
    }
    free(c->l);
    dmlc_config_fini(&c->cfg);
    free(c);
}

static int dmlc_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d);

const container_ops container_dmlc = {
    .kind = "dmlc", .broker_kind = "activemq", .create = dmlc_create, .start = dmlc_start,
    .finish = dmlc_finish, .destroy = dmlc_destroy,
};

static int dmlc_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d)
{
    dmlc *c = xcalloc(1, sizeof *c);
    c->base.ops = &container_dmlc;
    c->env = *env;
    *out = &c->base;
    if (dmlc_config_read(ctx, cfg, env->queues, env->nqueues, &c->cfg, d) != SIM_OK)
        return SIM_EINPUT;
    dmlc_version_warn(ctx, cfg, env->node);
    c->nl = env->nqueues;
    c->l = xcalloc((size_t)c->nl, sizeof *c->l);
    for (int i = 0; i < c->nl; i++)
        c->l[i] = (listener){ .c = c, .queue = env->queues[i], .set = c->cfg.per_queue[i] };
    return SIM_OK;
}
