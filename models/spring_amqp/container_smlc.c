/* container_smlc.c -- `container.kind: smlc`: Spring AMQP's
 * SimpleMessageListenerContainer on a RabbitMQ broker (specs/spring-amqp.md
 * sections 1-2; what the spec leaves open is in docs/spring-amqp-notes.md).
 * This file holds the consumer threads and consumersLock; the scaling rules
 * are in smlc_scaling.c, the keys in smlc_config.c.
 *
 * Each consumer is one AsyncMessageProcessingConsumer thread with its own
 * channel and BlockingQueueConsumer (a local queue the broker pushes into,
 * up to prefetch unacknowledged).  Its loop, one cycle at a time:
 *
 *   STARTING --on_started--> [lock] --loop?--> cycle
 *   cycle:   poll: buffer non-empty -> LISTENING; empty -> POLLING
 *            POLLING --delivery before the deadline--> LISTENING
 *            POLLING --on_poll_end (receiveTimeout + idlePollOverhead)--> end
 *                     (code: the first empty poll ends the cycle;
 *                      documented: a cycle is batchSize polls)
 *            LISTENING --on_listener_done--> next poll, or end after batchSize
 *   end:     ack the cycle (basicAck(last tag, multiple=true)); a busy cycle
 *            then spends cycleOverhead (GAP); then [lock]: checkAdjust
 *            (smlc_scaling.c), which may start a consumer (HOLDING), then the
 *            loop condition: another cycle, or STOPPED (channel closed: the
 *            broker requeues whatever is still unacknowledged).
 *
 * consumersLock: the real isActive(consumer) check and the consider*
 * methods take it; addAndStartConsumers holds it while the new consumer
 * starts (startLatency), so the starter and every consumer that reaches the
 * end of a cycle meanwhile wait (WAITING) and go on, in the order they came,
 * when it is released.  A consumer's cycle never needs the lock, only its
 * end does.
 *
 * Events: one per idle poll (on_poll_end, receiveTimeout + idlePollOverhead
 * after the poll began; a delivery before the deadline cancels it), one per
 * message (the listener's end), one per busy cycle when cycleOverhead > 0,
 * one per start.
 *
 * A channel the broker closes (consumer_timeout, specs/rabbitmq-failures.md
 * section 2): the local queue is dropped at once (the broker takes those
 * deliveries back), the listener running on its message finishes and is not
 * acknowledged, and at the next nextMessage the consumer is restarted
 * (restart): the old thread ends (`channel-closed`), a new consumer takes
 * its place in `consumers` without changing consumers.size() or the
 * scaling times, and subscribes after startLatency, at the end of the
 * broker's round robin.  A restart is a scaling row (rule `restart`).
 *
 * Invariants: size == consumers with is_counted; members == consumers with
 * is_member; a consumer is WAITING iff it is in the waiter ring; the lock
 * is held iff is_locked, and then exactly one holder will resume.
 */
#include "base/mem.h"
#include "spring_amqp/smlc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_started(sim_ctx *ctx, void *self, void *arg);
static void on_poll_end(sim_ctx *ctx, void *self, void *arg);
static void on_listener_done(sim_ctx *ctx, void *self, void *arg);
static void on_gap_end(sim_ctx *ctx, void *self, void *arg);
static void on_change(sim_ctx *ctx, void *self, void *arg);
static void on_restarted(sim_ctx *ctx, void *self, void *arg);
static void on_retry(sim_ctx *ctx, void *self, void *arg);
static void on_rethrow(sim_ctx *ctx, void *self, void *arg);
static const sim_event_type ev_restarted = { "smlc.restarted", on_restarted };
static const sim_event_type ev_retry = { "smlc.retry", on_retry };
static const sim_event_type ev_rethrow = { "smlc.rethrow", on_rethrow };
static const sim_event_type ev_started = { "smlc.started", on_started };
static const sim_event_type ev_poll_end = { "smlc.poll_end", on_poll_end };
static const sim_event_type ev_listener_done = { "smlc.listener_done", on_listener_done };
static const sim_event_type ev_gap_end = { "smlc.gap_end", on_gap_end };
static const sim_event_type ev_change = { "smlc.change", on_change };

static void cycle_begin(sim_ctx *ctx, smlc *s, smlc_consumer *k);
static void loop_or_exit(sim_ctx *ctx, smlc *s, smlc_consumer *k);
static void consumer_exit(sim_ctx *ctx, smlc *s, smlc_consumer *k);
static void restart(sim_ctx *ctx, smlc *s, smlc_consumer *k);
static void act(sim_ctx *ctx, smlc *s, smlc_decision d, smlc_holder_kind kind,
                smlc_consumer *holder, int change, int op);
static void change_run(sim_ctx *ctx, smlc *s, int change, int op);

/* ---- the local queue -------------------------------------------------------- */

static void list_push(sim_msg **head, sim_msg **tail, sim_msg *m)
{
    m->next = NULL;
    if (*tail)
        (*tail)->next = m;
    else
        *head = m;
    *tail = m;
}

static sim_msg *list_pop(sim_msg **head, sim_msg **tail)
{
    sim_msg *m = *head;
    *head = m->next;
    if (!*head)
        *tail = NULL;
    m->next = NULL;
    return m;
}

/* Into the local queue; the client holds it back while the queue is full
 * (LinkedBlockingQueue.put blocks the dispatch thread). */
static void buffer_add(sim_ctx *ctx, smlc *s, smlc_consumer *k, sim_msg *m)
{
    if (k->nbuf >= s->buffer_cap) {
        list_push(&k->over_head, &k->over_tail, m);
        k->nover++;
        return;
    }
    list_push(&k->buf_head, &k->buf_tail, m);
    k->nbuf++;
    sim_msg_delivered(ctx, m, s->env.node, k->id);
}

static sim_msg *buffer_take(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    sim_msg *m = list_pop(&k->buf_head, &k->buf_tail);
    k->nbuf--;
    if (k->nover > 0) {
        k->nover--;
        buffer_add(ctx, s, k, list_pop(&k->over_head, &k->over_tail));
    }
    return m;
}

static int port_index(const smlc *s, const sim_msg *m)
{
    for (int i = 0; i < s->env.nqueues; i++)
        if (s->env.queues[i] == m->queue)
            return i;
    return 0;
}

/* ---- consumersLock ----------------------------------------------------------------- */

/* The queue a consumer waits in for consumersLock. */
static void wait_lock(smlc *s, smlc_wait_kind kind, smlc_consumer *k, int change)
{
    if (s->wn == s->wcap) {
        size_t cap = s->wcap ? s->wcap * 2 : 8;
        smlc_waiter *v = xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < s->wn; i++)
            v[i] = s->waiters[(s->whead + i) % s->wcap];
        free(s->waiters);
        s->waiters = v;
        s->whead = 0;
        s->wcap = cap;
    }
    s->waiters[(s->whead + s->wn++) % s->wcap] = (smlc_waiter){ kind, k, change };
    if (k)
        k->state = SC_WAITING;
}

static void after_cycle_locked(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    /* checkAdjust runs only when maxConcurrentConsumers is set, and a
     * listener exception skips it (the catch is around mainLoop). */
    if (s->max > 0 && !k->has_failed) {
        /* on a closed channel commitIfNecessary acks nothing: receivedOk false */
        bool received = k->ntaken > 0 && !k->is_closed;
        act(ctx, s, smlc_check_adjust(ctx, s, k, received), H_CONSUMER, k, 0, 0);
        if (k->state == SC_HOLDING)
            return;                /* the rest runs when the start is done (release) */
    }
    loop_or_exit(ctx, s, k);
}

static void run_waiter(sim_ctx *ctx, smlc *s, smlc_waiter w)
{
    switch (w.kind) {
    case W_AFTER_CYCLE:
        after_cycle_locked(ctx, s, w.k);
        break;
    case W_FIRST_LOOP:
        loop_or_exit(ctx, s, w.k);
        break;
    case W_EXIT:
        consumer_exit(ctx, s, w.k);
        break;
    case W_CHANGE:
        change_run(ctx, s, w.change, 0);
        break;
    case W_RESTART:
        restart(ctx, s, w.k);
        break;
    }
}

/* The holder goes on first, then whoever waited, in order, until somebody
 * takes the lock again. */
static void release(sim_ctx *ctx, smlc *s)
{
    s->is_locked = false;
    free(s->start_detail);
    s->start_detail = NULL;
    s->start_rule = NULL;
    if (s->holder_kind == H_CONSUMER) {
        act(ctx, s, smlc_after_add(ctx, s, s->holder), H_CONSUMER, s->holder, 0, 0);
        loop_or_exit(ctx, s, s->holder);
    } else if (s->holder_kind == H_CHANGE) {
        change_run(ctx, s, s->holder_change, s->holder_op + 1);
    }
    while (!s->is_locked && s->wn > 0) {
        smlc_waiter w = s->waiters[s->whead];
        s->whead = (s->whead + 1) % s->wcap;
        s->wn--;
        run_waiter(ctx, s, w);
    }
}

/* ---- starting consumers ------------------------------------------------------------ */

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m);
static void on_closed(sim_ctx *ctx, consumer_port *port);
static const consumer_port_ops smlc_port_ops = { .deliver = on_deliver, .closed = on_closed };

/* A consumer thread with its ports, not yet counted anywhere. */
static smlc_consumer *consumer_alloc(sim_ctx *ctx, smlc *s)
{
    smlc_consumer *k = xcalloc(1, sizeof *k);
    k->s = s;
    k->id = sim_consumer_started(ctx, s->env.node, s->env.queues[0]);
    k->state = SC_STARTING;
    k->ports = xcalloc((size_t)s->env.nqueues, sizeof *k->ports);
    for (int i = 0; i < s->env.nqueues; i++)
        k->ports[i] = (consumer_port){
            .ops = &smlc_port_ops, .owner = k, .node = s->env.node, .id = k->id,
            .queue = s->env.queues[i], .prefetch = s->prefetch,
        };
    k->taken = xcalloc((size_t)s->batch, sizeof *k->taken);
    xgrow((void **)&s->cons, &s->capcons, s->ncons + 1, sizeof *s->cons);
    s->cons[s->ncons++] = k;
    return k;
}

static smlc_consumer *consumer_new(sim_ctx *ctx, smlc *s)
{
    smlc_consumer *k = consumer_alloc(ctx, s);
    k->is_member = k->is_counted = true;
    s->size++;
    s->members++;
    xgrow((void **)&s->starting, &s->capstarting, s->nstarting + 1, sizeof *s->starting);
    s->starting[s->nstarting++] = k;
    return k;
}

static bool below_max(const smlc *s)
{
    return !s->f.is_max_respected || s->max == 0 || s->size < s->max;
}

/* addAndStartConsumers' loop: one consumer at a time, each holding the
 * caller until its basic.consume is answered. */
static void start_next(sim_ctx *ctx, smlc *s)
{
    if (s->to_start <= 0 || !below_max(s)) {
        release(ctx, s);
        return;
    }
    s->to_start--;
    if (s->is_documented)
        s->last_started_ms = smlc_now_ms(ctx);   /* the docs count from any start */
    smlc_consumer *k = consumer_new(ctx, s);
    s->dyn_starts++;
    s->refused_since = 0;
    sim_scaling(ctx, s->env.node, "start", s->members, s->start_rule, s->start_detail);
    sim_schedule(ctx, knob_draw(&s->start_latency, sim_now(ctx)), &ev_started, s, k);
}

/* Starts up to n consumers one after another under consumersLock, as
 * addAndStartConsumers does; the holder waits for each one's start.
 * `rule` and `detail` (taken) go on each start's scaling row. */
static void add_consumers(sim_ctx *ctx, smlc *s, int n, smlc_holder_kind kind, smlc_consumer *k,
                          int change, int op, const char *rule, char *detail)
{
    s->is_locked = true;
    s->holder_kind = kind;
    s->holder = k;
    s->holder_change = change;
    s->holder_op = op;
    s->to_start = n;
    s->start_rule = rule;
    free(s->start_detail);
    s->start_detail = detail;
    if (k)
        k->state = SC_HOLDING;
    start_next(ctx, s);
}

/* basic.consume answered for the consumers started under this hold: they
 * register with the broker (a backlog fills their prefetch at once) and
 * queue for the lock, for their loop's first isActive check. */
static void on_started(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    smlc *s = self;
    for (size_t i = 0; i < s->nstarting; i++) {
        smlc_consumer *k = s->starting[i];
        for (int q = 0; q < s->env.nqueues; q++)
            s->env.broker->ops->subscribe(ctx, s->env.broker, &k->ports[q]);
        wait_lock(s, W_FIRST_LOOP, k, 0);
    }
    s->nstarting = 0;
    if (s->holder_kind == H_INIT)
        release(ctx, s);
    else
        start_next(ctx, s);
}

/* ---- removal and exit ---------------------------------------------------------------- */

/* basicCancel(true) and removal from `consumers`, as the version does it;
 * `reason` goes on the consumer's row when its thread ends. */
static void remove_consumer(sim_ctx *ctx, smlc *s, smlc_consumer *k, const char *reason)
{
    if (!k->is_member)
        return;                    /* cancelled before: basicCancel again changes nothing */
    k->stop_reason = reason;
    k->is_member = false;
    s->members--;
    if (s->f.is_removed_at_once) {
        k->is_counted = false;
        s->size--;
    }
    if (s->is_documented)
        s->last_stopped_ms = smlc_now_ms(ctx);   /* the docs count from any stop */
    k->is_cancelled = true;        /* 1.3: setQuiesce, no basic.cancel */
    for (int q = 0; s->f.is_cancel_sent && q < s->env.nqueues; q++)
        s->env.broker->ops->cancel(ctx, s->env.broker, &k->ports[q]);
}

/* ---- acting on the rules' decisions ----------------------------------------------- */

/* A start takes consumersLock for `holder` (a consumer, a change at op, or
 * nobody); a stop cancels the consumer and writes its row if it was still a
 * member (1.3-1.6 may stop one that left `consumers` before). */
static void act(sim_ctx *ctx, smlc *s, smlc_decision d, smlc_holder_kind kind,
                smlc_consumer *holder, int change, int op)
{
    switch (d.act) {
    case SMLC_KEEP:
        break;
    case SMLC_START:
        add_consumers(ctx, s, d.n, kind, holder, change, op, d.rule, d.detail);
        break;
    case SMLC_STOP: {
        bool was_member = d.k->is_member;
        remove_consumer(ctx, s, d.k, d.reason);
        if (d.is_mark)
            d.k->is_marked_for_stop = true;
        if (was_member) {
            s->dyn_stops++;
            sim_scaling(ctx, s->env.node, "stop", s->members, d.rule, d.detail);
        }
        free(d.detail);
        break;
    }
    }
}

/* Runs change i from op on, one setter call after another; stops where a
 * start takes consumersLock (release resumes at the next op). */
static void change_run(sim_ctx *ctx, smlc *s, int i, int op)
{
    const smlc_change *c = &s->changes[i];
    for (; op < c->nops && !s->is_locked; op++) {
        smlc_plan p = smlc_setter(ctx, s, i, op);
        for (int j = 0; j < p.n; j++) {
            act(ctx, s, p.v[j], H_CHANGE, NULL, i, op);
            p.v[j].detail = NULL;  /* taken */
        }
        bool is_refused = p.is_refused;
        smlc_plan_free(&p);
        if (is_refused) {
            /* the exception leaves the rest of that setter call undone */
            while (op + 1 < c->nops && c->ops[op + 1].key == c->ops[op].key)
                op++;
        }
    }
}

static void consumer_metrics(sim_ctx *ctx, const smlc *s, const smlc_consumer *k)
{
    sim_consumer_metric(ctx, s->env.node, k->id, "cycles", (double)k->cycles);
    sim_consumer_metric(ctx, s->env.node, k->id, "idle_cycles", (double)k->idle_cycles);
    if (k->failures)
        sim_consumer_metric(ctx, s->env.node, k->id, "listener_failures", (double)k->failures);
}

/* The thread leaves its loop: BlockingQueueConsumer.stop() closes the
 * channel, and the broker requeues every delivery still unacknowledged
 * (what the local queue held included: the client clears it). */
static void consumer_exit(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    k->buf_head = k->buf_tail = k->over_head = k->over_tail = NULL;
    k->nbuf = k->nover = 0;
    for (int q = 0; q < s->env.nqueues; q++)
        s->env.broker->ops->unsubscribe(ctx, s->env.broker, &k->ports[q]);
    k->state = SC_STOPPED;
    if (k->is_counted) {
        k->is_counted = false;
        s->size--;
    }
    if (k->is_member) {
        k->is_member = false;
        s->members--;
    }
    consumer_metrics(ctx, s, k);
    sim_consumer_stopped(ctx, s->env.node, k->id, k->stop_reason ? k->stop_reason : "scale-down");
}

/* ---- restart after a broker-closed channel ------------------------------------------ */

/* restart(oldConsumer): no delay; consumers.remove(old) and add(new) under
 * the lock, so consumers.size(), lastConsumerStarted and lastConsumerStopped
 * stay as they are; the new thread starts with fresh counters. */
static void restart(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (s->is_locked) {
        wait_lock(s, W_RESTART, k, 0);
        return;
    }
    smlc_consumer *n = consumer_alloc(ctx, s);
    n->is_member = k->is_member;
    n->is_counted = k->is_counted;
    n->is_cancelled = k->is_cancelled;
    k->is_member = k->is_counted = false;
    k->stop_reason = "channel-closed";
    consumer_exit(ctx, s, k);
    strbuf b = { 0 };
    sb_addf(&b, "{\"consumer\":%d,\"new_consumer\":%d,\"reason\":\"channel-closed\","
            "\"consumers_before\":%d}", k->id, n->id, s->size);
    char *detail = sb_take(&b);
    sim_scaling(ctx, s->env.node, "restart", s->members, "restart", detail);
    free(detail);
    sim_schedule(ctx, knob_draw(&s->start_latency, sim_now(ctx)), &ev_restarted, s, n);
}

static void on_restarted(sim_ctx *ctx, void *self, void *arg)
{
    smlc *s = self;
    smlc_consumer *k = arg;
    for (int q = 0; q < s->env.nqueues; q++)
        s->env.broker->ops->subscribe(ctx, s->env.broker, &k->ports[q]);
    if (s->is_locked)
        wait_lock(s, W_FIRST_LOOP, k, 0);
    else
        loop_or_exit(ctx, s, k);
}

/* BlockingQueueConsumer's handleShutdownSignal: deliveryTags cleared, the
 * local queue is left to the broker, which takes every delivery back; the
 * listener thread is not interrupted. */
static void on_closed(sim_ctx *ctx, consumer_port *port)
{
    smlc_consumer *k = port->owner;
    if (k->is_closed)
        return;
    smlc *s = k->s;
    k->is_closed = true;
    strbuf b = { 0 };
    sb_addf(&b, "{\"consumer\":%d,\"buffered\":%lld", k->id, (long long)(k->nbuf + k->nover));
    k->buf_head = k->buf_tail = k->over_head = k->over_tail = NULL;
    k->nbuf = k->nover = 0;
    if (k->state == SC_LISTENING && k->ntaken > 0) {
        k->held = k->taken[k->ntaken - 1];
        k->held_begin = sim_msg_t_begin(ctx, k->held);
        sim_msg_hold(ctx, k->held);
        sb_addf(&b, ",\"in_progress\":%llu", (unsigned long long)k->held->id);
    } else {
        sb_add(&b, ",\"in_progress\":null");
    }
    sb_add(&b, "}");
    char *detail = sb_take(&b);
    sim_scaling(ctx, s->env.node, "channel-closed", s->members, "consumer_timeout", detail);
    free(detail);
}

/* The while condition of AsyncMessageProcessingConsumer.run(), by version. */
static void loop_or_exit(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    bool go = !k->is_marked_for_stop &&
              (k->is_member || (s->f.is_drained && k->nbuf > 0) ||
               (s->f.is_loop_until_cancelled && !k->is_cancelled) ||
               (s->f.is_tx_never_active && k->is_continuable));
    if (go)
        cycle_begin(ctx, s, k);
    else
        consumer_exit(ctx, s, k);
}

/* ---- the cycle ------------------------------------------------------------------------- */

static void listen(sim_ctx *ctx, smlc *s, smlc_consumer *k, sim_msg *m)
{
    k->taken[k->ntaken++] = m;
    k->state = SC_LISTENING;
    k->attempt = 0;
    sim_msg_begin(ctx, m, s->env.node, k->id);
    host_run(ctx, s->env.host, m->service_ns, &ev_listener_done, k, m);
}

/* nextMessage(receiveTimeout): at once from the local queue, or wait. */
static void poll(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (k->is_closed) {
        restart(ctx, s, k);        /* checkShutdown() before the local queue is polled */
        return;
    }
    k->polls++;
    if (k->nbuf > 0) {
        listen(ctx, s, k, buffer_take(ctx, s, k));
        return;
    }
    k->state = SC_POLLING;
    k->deadline = sim_now(ctx) + s->receive_timeout;
    k->timer = sim_schedule(ctx, s->receive_timeout + knob_draw(&s->idle_overhead, sim_now(ctx)),
                            &ev_poll_end, k, NULL);
}

static void cycle_begin(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    k->ntaken = 0;
    k->polls = 0;
    k->has_failed = false;
    poll(ctx, s, k);
}

static void on_deliver(sim_ctx *ctx, consumer_port *port, sim_msg *m)
{
    smlc_consumer *k = port->owner;
    smlc *s = k->s;
    /* 1.3 after setQuiesce: handleDelivery parks the dispatch thread and the
     * delivery never reaches the queue; it stays unacknowledged until the
     * channel closes. */
    if ((k->is_cancelled && !s->f.is_cancel_sent) || k->is_closed)
        return;                    /* (closed: another queue's channel; taken back at the exit) */
    buffer_add(ctx, s, k, m);
    if (k->state == SC_POLLING && sim_now(ctx) <= k->deadline) {
        sim_cancel(ctx, k->timer);
        k->timer = 0;
        listen(ctx, s, k, buffer_take(ctx, s, k));
    }
}

/* commitIfNecessary: one basicAck(multiple=true) per consumer tag, up to the
 * last delivery the cycle took from it. */
static void commit(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (k->is_closed)
        return;                    /* deliveryTags were cleared: nothing to ack */
    for (int q = 0; q < s->env.nqueues; q++)
        for (int i = k->ntaken - 1; i >= 0; i--)
            if (port_index(s, k->taken[i]) == q) {
                s->env.broker->ops->ack_upto(ctx, s->env.broker, &k->ports[q], k->taken[i]);
                break;
            }
}

/* rollbackOnExceptionIfNecessary: 1.x rejects each of the cycle's tags,
 * 2.0 on nacks them with multiple=true; requeue unless
 * defaultRequeueRejected is false. */
static void rollback(sim_ctx *ctx, smlc *s, smlc_consumer *k, bool requeue)
{
    broker *b = s->env.broker;
    if (k->is_closed)
        return;
    if (!s->f.is_nack_multiple) {
        for (int i = 0; i < k->ntaken; i++)
            b->ops->reject(ctx, b, &k->ports[port_index(s, k->taken[i])], k->taken[i],
                           requeue);
        return;
    }
    for (int q = 0; q < s->env.nqueues; q++)
        for (int i = k->ntaken - 1; i >= 0; i--)
            if (port_index(s, k->taken[i]) == q) {
                b->ops->nack_upto(ctx, b, &k->ports[q], k->taken[i], requeue);
                break;
            }
}

static void after_cycle(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    if (s->is_locked) {
        wait_lock(s, W_AFTER_CYCLE, k, 0);
        return;
    }
    after_cycle_locked(ctx, s, k);
}

static void cycle_end(sim_ctx *ctx, smlc *s, smlc_consumer *k)
{
    k->cycles++;
    if (k->ntaken == 0)
        k->idle_cycles++;
    else if (!k->has_failed)
        commit(ctx, s, k);
    /* 1.3.0-1.4.5: `continuable = receiveAndExecute(..) && !isChannelTransacted()`;
     * an exception leaves it as it was. */
    if (!k->has_failed)
        k->is_continuable = k->ntaken > 0 && !s->is_transacted;
    sim_time overhead = k->ntaken > 0 ? knob_draw(&s->cycle_overhead, sim_now(ctx)) : 0;
    if (k->ntaken > 0 && overhead > 0) {
        k->state = SC_GAP;
        k->timer = sim_schedule(ctx, overhead, &ev_gap_end, k, NULL);
        return;
    }
    after_cycle(ctx, s, k);
}

static void on_gap_end(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    smlc_consumer *k = self;
    k->timer = 0;
    after_cycle(ctx, k->s, k);
}

/* The listener call on m is over (its last attempt, with retry): acked at
 * the cycle's end, or the exception ends the cycle with a rollback.  On a
 * channel the broker closed there is neither. */
static void listener_returned(sim_ctx *ctx, smlc *s, smlc_consumer *k, sim_msg *m,
                              lf_outcome o, bool requeue)
{
    if (k->held && k->held == m) {
        /* its channel closed meanwhile: the broker has the message again */
        sim_msg_end_held(ctx, m, s->env.node, k->id, k->held_begin, o == LF_OK);
        k->held = NULL;
    } else if (o == LF_OK) {
        sim_msg_end(ctx, m);
    } else {
        sim_msg_end_failed(ctx, m);
    }
    if (o != LF_OK) {
        /* The exception leaves the batch loop: the cycle ends here. */
        k->failures++;
        k->has_failed = true;
        rollback(ctx, s, k, requeue);
        cycle_end(ctx, s, k);
        return;
    }
    if (k->polls >= s->batch)
        cycle_end(ctx, s, k);
    else
        poll(ctx, s, k);
}

/* Whether a failed call is requeued (ContainerUtils.shouldRequeue): not when
 * fatal (AmqpRejectAndDontRequeueException in the cause chain, which the
 * retry recoverer's exception also carries), else defaultRequeueRejected. */
static bool requeues(const smlc *s, lf_outcome o, bool is_recovered)
{
    return o == LF_FAILS && !is_recovered && s->is_requeue_rejected;
}

static void on_retry(sim_ctx *ctx, void *self, void *arg)
{
    smlc_consumer *k = self;
    k->timer = 0;
    host_run(ctx, k->s->env.host, ((sim_msg *)arg)->service_ns, &ev_listener_done, k, arg);
}

static void on_rethrow(sim_ctx *ctx, void *self, void *arg)
{
    smlc_consumer *k = self;
    k->timer = 0;
    listener_returned(ctx, k->s, k, arg, k->pending, requeues(k->s, k->pending, false));
}

/* A listener attempt ended.  Stateless retry (RetryOperationsInterceptor in
 * the advice chain) sleeps its back-off in the consumer thread and calls the
 * listener again, up to the attempts, then the recoverer rejects without
 * requeue.  Stateful retry sleeps, then rethrows: the message goes back and
 * its next delivery is the next attempt (the attempt number is the
 * delivery count), the recoverer rejecting on the last. */
static void on_listener_done(sim_ctx *ctx, void *self, void *arg)
{
    smlc_consumer *k = self;
    smlc *s = k->s;
    sim_msg *m = arg;
    lf_outcome o = lf_any(&s->lf) ? lf_call(&s->lf, m) : LF_OK;
    const lf_retry *r = &s->lf.retry;
    bool is_recovered = false;
    if (o != LF_OK && r->is_enabled && r->is_stateless) {
        if (++k->attempt < r->attempts) {
            k->timer = sim_schedule(ctx, lf_backoff(r, k->attempt), &ev_retry, k, m);
            return;
        }
        is_recovered = true;
    } else if (o != LF_OK && r->is_enabled) {
        if ((int)sim_msg_deliveries(ctx, m) < r->attempts) {
            k->pending = o;
            k->timer = sim_schedule(ctx, lf_backoff(r, (int)sim_msg_deliveries(ctx, m)), &ev_rethrow, k, m);
            return;
        }
        is_recovered = true;
    }
    listener_returned(ctx, s, k, m, o, requeues(s, o, is_recovered));
}

/* The poll gave up: receiveTimeout, plus the idle poll's own overhead. */
static void on_poll_end(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    smlc_consumer *k = self;
    smlc *s = k->s;
    k->timer = 0;
    if (s->f.is_null_poll_thrown && k->is_cancelled) {
        /* ConsumerCancelledException: out of the loop, nothing acked; the
         * channel's close requeues what this cycle took.  killOrRestart's
         * isActive check takes the lock first. */
        if (s->is_locked)
            wait_lock(s, W_EXIT, k, 0);
        else
            consumer_exit(ctx, s, k);
        return;
    }
    if (!s->is_documented || k->polls >= s->batch)
        cycle_end(ctx, s, k);      /* code: the first empty poll ends the cycle */
    else
        poll(ctx, s, k);           /* documented: a cycle is batchSize polls */
}

/* ---- changes ---------------------------------------------------------------------------- */

static void on_change(sim_ctx *ctx, void *self, void *arg)
{
    smlc *s = self;
    int i = (int)(intptr_t)arg;
    if (s->is_locked)
        wait_lock(s, W_CHANGE, NULL, i);
    else
        change_run(ctx, s, i, 0);
}

/* ---- the container ------------------------------------------------------------------------ */

/* doStart: the initial consumers start together; the lock is held until
 * all of them have consumed.  Changes dated before the start only set
 * fields, as the setters do on a container that is not running. */
static void smlc_start(sim_ctx *ctx, container *base)
{
    smlc *s = (smlc *)base;
    sim_time now = sim_now(ctx);
    for (int i = 0; i < s->nchanges; i++) {
        if (s->changes[i].at < now)
            change_run(ctx, s, i, 0);   /* not running: the setters only set fields */
        else
            sim_schedule_at(ctx, s->changes[i].at, &ev_change, s, (void *)(intptr_t)i);
    }
    s->is_running = true;
    s->started_at = now;
    s->last_started_ms = s->is_documented ? smlc_now_ms(ctx) : SMLC_NEVER;
    s->last_stopped_ms = s->is_documented ? smlc_now_ms(ctx) : SMLC_NEVER;
    s->is_locked = true;
    s->holder_kind = H_INIT;
    s->holder = NULL;
    s->to_start = 0;
    for (int i = 0; i < s->concurrent; i++)
        consumer_new(ctx, s);
    sim_schedule(ctx, knob_draw(&s->start_latency, sim_now(ctx)), &ev_started, s, NULL);
}

static void smlc_finish(sim_ctx *ctx, container *base)
{
    smlc *s = (smlc *)base;
    for (size_t i = 0; i < s->ncons; i++)
        if (s->cons[i]->state != SC_STOPPED)
            consumer_metrics(ctx, s, s->cons[i]);
    smlc_report_figures(ctx, s);
}

static void smlc_destroy(container *base)
{
    smlc *s = (smlc *)base;
    if (!s)
        return;
    for (size_t i = 0; i < s->ncons; i++) {
        free(s->cons[i]->ports);
        free(s->cons[i]->taken);
        free(s->cons[i]);
    }
    free(s->cons);
    knob_fini(&s->start_latency);
    knob_fini(&s->cycle_overhead);
    knob_fini(&s->idle_overhead);
    for (int i = 0; i < s->nchanges; i++)
        free(s->changes[i].ops);
    free(s->changes);
    lf_fini(&s->lf);
    free(s->starting);
    free(s->waiters);
    free(s->start_detail);
    free(s);
}

static int smlc_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d);

const container_ops container_smlc = {
    .kind = "smlc", .broker_kind = "rabbitmq", .create = smlc_create, .start = smlc_start,
    .finish = smlc_finish, .destroy = smlc_destroy,
};

static int smlc_create(sim_ctx *ctx, cfg_node *cfg, const container_env *env, container **out,
                       sim_diag *d)
{
    smlc *s = xcalloc(1, sizeof *s);
    s->base.ops = &container_smlc;
    s->env = *env;
    *out = &s->base;
    if (smlc_read_config(ctx, cfg, s, d) != SIM_OK)
        return SIM_EINPUT;
    return SIM_OK;
}
