/* record_consume.c -- one consumer of `lsim record` (record.h), as the
 * pool container models it (models/rabbitmq/container_pool.c): its own connection
 * and channel, basic.qos(prefetch), basic.consume, a listener that takes
 * the deliveries one at a time, in order, works for each message's
 * service time and acks it; a failure as the scenario's rules say
 * (basic.nack requeue=true, or basic.reject requeue=false for a fatal one).
 *
 * One thread, no second one for the listener: while the listener "works"
 * (waits for its end) the thread keeps reading the socket, so each
 * delivery is stamped when it reaches the client, as `deliver` is meant.
 *
 * A channel the broker closes (consumer_timeout): its deliveries are the
 * broker's again (`requeue`, each one the client held, which ends the
 * running listener's begin in the trace), the listener finishes its work
 * without an ack, and the consumer opens a new channel:
 * a new consumer id, as the model's replacement.
 */
#include "base/mem.h"
#include "record/record.h"

#include <amqp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

typedef struct held {
    uint64_t tag, msg;
    int64_t service_ns;
} held;

typedef struct consumer {
    rec_consumer_arg *a;
    rec_shared *s;
    int id;
    held *buf;                     /* a ring of the deliveries not begun */
    size_t head, n, cap;
    bool is_busy;
    held running;
    int64_t end_at;                /* trace time of the running listener's end */
} consumer;

typedef enum { CH_GO_ON, CH_STOPPED, CH_CLOSED_BY_BROKER, CH_FAILED } ch_end;

static void push(consumer *c, held h)
{
    if (c->n == c->cap) {          /* grow the ring, keeping its order */
        size_t cap = c->cap ? c->cap * 2 : 16;
        held *v = xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < c->n; i++)
            v[i] = c->buf[(c->head + i) % c->cap];
        free(c->buf);
        c->buf = v;
        c->head = 0;
        c->cap = cap;
    }
    c->buf[(c->head + c->n++) % c->cap] = h;
    c->s->held++;
}

static held pop(consumer *c)
{
    held h = c->buf[c->head];
    c->head = (c->head + 1) % c->cap;
    c->n--;
    return h;
}

static const rec_message *message_of(const rec_plan *p, uint64_t id)
{
    size_t lo = 0, hi = p->nmessages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->messages[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nmessages && p->messages[lo].id == id ? &p->messages[lo] : NULL;
}

static void log_msg(consumer *c, rec_kind kind, uint64_t msg)
{
    rec_log_event(c->s->log, rec_now(c->s->log), kind, c->a->node, c->id, msg, c->a->queue);
}

/* A delivery: its id from message_id, its work from x-lsim-service-us. */
static void take(consumer *c, amqp_envelope_t *env)
{
    amqp_basic_properties_t *pr = &env->message.properties;
    held h = { .tag = env->delivery_tag };
    if (pr->_flags & AMQP_BASIC_MESSAGE_ID_FLAG && pr->message_id.len > 1 &&
        pr->message_id.len < 24) {
        char id[24];
        memcpy(id, pr->message_id.bytes, pr->message_id.len);
        id[pr->message_id.len] = '\0';
        h.msg = strtoull(id + 1, NULL, 10);
    }
    for (int i = 0; pr->_flags & AMQP_BASIC_HEADERS_FLAG && i < pr->headers.num_entries; i++) {
        amqp_table_entry_t *e = &pr->headers.entries[i];
        if (e->key.len == 17 && memcmp(e->key.bytes, "x-lsim-service-us", 17) == 0 &&
            e->value.kind == AMQP_FIELD_KIND_I64)
            h.service_ns = e->value.value.i64 * 1000;
    }
    log_msg(c, REC_DELIVER, h.msg);
    push(c, h);
}

static void begin_next(consumer *c)
{
    c->running = pop(c);
    c->is_busy = true;
    log_msg(c, REC_BEGIN, c->running.msg);
    c->s->log->begun++;
    c->end_at = rec_now(c->s->log) + c->running.service_ns;
}

/* The listener returned: ack, or the failure's nack or reject. */
static int finish(consumer *c)
{
    const rec_plan *p = c->s->plan;
    lf_outcome o = LF_OK;
    const rec_message *m = message_of(p, c->running.msg);
    if (lf_any(&p->lf) && m) {
        sim_msg fake = { .id = m->id, .group = m->group_index };
        pthread_mutex_lock((pthread_mutex_t *)&p->lf_lock);
        o = lf_call((listener_failures *)&p->lf, &fake);
        pthread_mutex_unlock((pthread_mutex_t *)&p->lf_lock);
    }
    log_msg(c, REC_END, c->running.msg);
    c->is_busy = false;
    c->s->held--;
    int rc;
    if (o == LF_OK) {
        c->s->log->ended++;
        rc = amqp_basic_ack(c->a->conn, 1, c->running.tag, 0);
    } else {
        bool requeue = o == LF_FAILS && p->is_requeue_on_failure;
        c->s->log->failed++;
        rc = requeue ? amqp_basic_nack(c->a->conn, 1, c->running.tag, 0, 1)
                     : amqp_basic_reject(c->a->conn, 1, c->running.tag, 0);
        if (requeue)
            log_msg(c, REC_REQUEUE, c->running.msg);
    }
    return rc;
}

/* The broker closed the channel: what the client holds goes back. */
static void closed_by_broker(consumer *c)
{
    amqp_channel_close_ok_t ok = { 0 };
    amqp_send_method(c->a->conn, 1, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok);
    c->s->log->closed_channels++;
    if (c->is_busy)
        log_msg(c, REC_REQUEUE, c->running.msg);
    while (c->n > 0) {
        log_msg(c, REC_REQUEUE, pop(c).msg);
        c->s->held--;
    }
    if (!c->is_busy)
        return;
    /* the listener finishes its work; its ack would go nowhere */
    int64_t left = c->end_at - rec_now(c->s->log);
    if (left > 0) {
        struct timespec ts = { left / 1000000000, left % 1000000000 };
        while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
            ;
    }
    /* no `end`: the requeue ended this begin, as a trace of lsim's own says */
    c->is_busy = false;
    c->s->held--;
}

/* A frame that is not a delivery: a close, a cancel, or nothing we need. */
static ch_end other_frame(consumer *c, char *err, size_t errsize)
{
    amqp_frame_t f;
    if (amqp_simple_wait_frame(c->a->conn, &f) != AMQP_STATUS_OK) {
        snprintf(err, errsize, "a consumer's connection failed");
        return CH_FAILED;
    }
    if (f.frame_type != AMQP_FRAME_METHOD)
        return CH_GO_ON;
    if (f.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD) {
        closed_by_broker(c);
        return CH_CLOSED_BY_BROKER;
    }
    if (f.payload.method.id == AMQP_BASIC_CANCEL_METHOD) {
        snprintf(err, errsize, "the broker cancelled a consumer of queue '%s' (was it deleted?)",
                 c->s->plan->queues[c->a->queue].name);
        return CH_FAILED;
    }
    return CH_GO_ON;
}

static ch_end run_channel(consumer *c, char *err, size_t errsize)
{
    while (!c->s->stop_consumers) {
        if (!c->is_busy && c->n > 0)
            begin_next(c);
        int64_t wait = c->is_busy ? c->end_at - rec_now(c->s->log) : 20 * 1000000;
        if (wait < 0)
            wait = 0;
        struct timeval tv = { wait / 1000000000, (wait % 1000000000) / 1000 };
        amqp_envelope_t env;
        amqp_maybe_release_buffers(c->a->conn);
        amqp_rpc_reply_t r = amqp_consume_message(c->a->conn, &env, &tv, 0);
        if (r.reply_type == AMQP_RESPONSE_NORMAL) {
            take(c, &env);
            amqp_destroy_envelope(&env);
        } else if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
                   r.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
            ch_end e = other_frame(c, err, errsize);
            if (e == CH_CLOSED_BY_BROKER || e == CH_FAILED)
                return e;
        } else if (!(r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
                     r.library_error == AMQP_STATUS_TIMEOUT)) {
            snprintf(err, errsize, "a consumer's connection failed: %s",
                     r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION
                         ? amqp_error_string2(r.library_error) : "the broker closed it");
            return CH_FAILED;
        }
        if (c->is_busy && rec_now(c->s->log) >= c->end_at && finish(c) != AMQP_STATUS_OK) {
            snprintf(err, errsize, "a consumer could not settle a delivery: the connection failed");
            return CH_FAILED;
        }
    }
    return CH_STOPPED;
}

/* channel.open, basic.qos, basic.consume: the consumer's start. */
static int subscribe(consumer *c, char *err, size_t errsize)
{
    rec_conn conn = c->a->conn;
    const rec_plan *p = c->s->plan;
    amqp_channel_open(conn, 1);
    if (amqp_get_rpc_reply(conn).reply_type != AMQP_RESPONSE_NORMAL) {
        rec_rpc_error(conn, "cannot open a consumer's channel", err, errsize);
        return -1;
    }
    if (p->prefetch > 0 && !amqp_basic_qos(conn, 1, 0, (uint16_t)p->prefetch, 0)) {
        rec_rpc_error(conn, "basic.qos failed", err, errsize);
        return -1;
    }
    if (!amqp_basic_consume(conn, 1, amqp_cstring_bytes(p->queues[c->a->queue].name),
                            amqp_empty_bytes, 0, 0, 0, amqp_empty_table)) {
        rec_rpc_error(conn, "basic.consume failed", err, errsize);
        return -1;
    }
    return 0;
}

void *rec_consumer_main(void *arg)
{
    consumer c = { .a = arg, .s = ((rec_consumer_arg *)arg)->s };
    rec_log *log = c.s->log;
    char err[SIM_ERROR_SIZE] = "";
    int64_t at = log->zero_ns + c.s->plan->node_start_ns[c.a->node - 1];
    struct timespec ts = { at / 1000000000, at % 1000000000 };
    while (!c.s->stop_consumers &&
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    ch_end e = CH_CLOSED_BY_BROKER;
    while (e == CH_CLOSED_BY_BROKER && !c.s->stop_consumers) {
        c.id = rec_log_consumer_id(log, c.a->node);
        rec_log_event(log, rec_now(log), REC_CONSUMER_START, c.a->node, c.id, 0, c.a->queue);
        e = subscribe(&c, err, sizeof err) == 0 ? run_channel(&c, err, sizeof err)
                                                         : CH_FAILED;
        rec_log_event(log, rec_now(log), REC_CONSUMER_STOP, c.a->node, c.id, 0, c.a->queue);
    }
    if (e == CH_FAILED && !c.s->stop_consumers)
        rec_fail(c.s, err);
    c.s->held -= (int)c.n + (c.is_busy ? 1 : 0);
    free(c.buf);
    return NULL;
}
