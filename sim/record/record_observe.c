/* record_observe.c -- `lsim record --consumers none` (record.h): another
 * application consumes, and the recording sees what the broker shows of
 * it.
 *
 *   the firehose (exchange amq.rabbitmq.trace, `rabbitmqctl trace_on`):
 *     `deliver.<queue>` for every delivery, with the connection's name
 *     and the channel's number in its headers, the message's own
 *     properties (message_id) in `properties`;
 *   the event exchange (amq.rabbitmq.event, plugin rabbitmq_event_exchange):
 *     `channel.created` (the channel's pid and its name, "<connection's
 *     name> (<number>)"), `consumer.created` and `consumer.deleted` (the
 *     channel's pid, the queue, the consumer tag): a container's scaling.
 *
 * A node is a connection (a container has one), a consumer one
 * consumer tag on one channel, numbered in the order they appear.  A
 * delivery to a channel whose consumer was created before the recording
 * began is a consumer started at time 0.  The broker shows no listener
 * beginning or ending: such a trace has `deliver` where a recording with
 * its own consumers has `begin` and `end` (a metadata line says so).
 */
#include "base/mem.h"
#include "record/record.h"

#include <amqp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define TEXT_MAX 256

typedef struct seen_channel {
    char pid[TEXT_MAX], name[TEXT_MAX];
} seen_channel;

typedef struct seen_consumer {
    char channel[TEXT_MAX];        /* the channel's name, "<connection> (<n>)" */
    char tag[TEXT_MAX];
    int queue, node, id;
    bool is_alive;
} seen_consumer;

typedef struct watch {
    rec_observer *o;
    seen_channel *ch;
    size_t nch, capch;
    seen_consumer *cons;
    size_t ncons, capcons;
    char (*conns)[TEXT_MAX];       /* node k + 1 is connection conns[k] */
    size_t nconns, capconns;
} watch;

static void text_of(const amqp_field_value_t *v, char *out)
{
    out[0] = '\0';
    if (v->kind == AMQP_FIELD_KIND_UTF8 || v->kind == AMQP_FIELD_KIND_BYTES) {
        size_t n = v->value.bytes.len < TEXT_MAX - 1 ? v->value.bytes.len : TEXT_MAX - 1;
        memcpy(out, v->value.bytes.bytes, n);
        out[n] = '\0';
    } else if (v->kind == AMQP_FIELD_KIND_I32) {
        snprintf(out, TEXT_MAX, "%d", v->value.i32);
    } else if (v->kind == AMQP_FIELD_KIND_I64) {
        snprintf(out, TEXT_MAX, "%lld", (long long)v->value.i64);
    } else if (v->kind == AMQP_FIELD_KIND_I16) {
        snprintf(out, TEXT_MAX, "%d", v->value.i16);
    } else if (v->kind == AMQP_FIELD_KIND_I8) {
        snprintf(out, TEXT_MAX, "%d", v->value.i8);
    }
}

static const amqp_field_value_t *field(const amqp_table_t *t, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < t->num_entries; i++)
        if (t->entries[i].key.len == n && memcmp(t->entries[i].key.bytes, key, n) == 0)
            return &t->entries[i].value;
    return NULL;
}

static void header(const amqp_envelope_t *env, const char *key, char *out)
{
    const amqp_basic_properties_t *p = &env->message.properties;
    const amqp_field_value_t *v = p->_flags & AMQP_BASIC_HEADERS_FLAG
                                      ? field(&p->headers, key) : NULL;
    if (v)
        text_of(v, out);
    else
        out[0] = '\0';
}

static int queue_index(const rec_plan *p, const char *name)
{
    for (int i = 0; i < p->nqueues; i++)
        if (strcmp(p->queues[i].name, name) == 0)
            return i;
    return -1;
}

/* The node of a channel named "<connection> (<n>)": its connection's. */
static int node_of(watch *w, const char *channel_name)
{
    char conn[TEXT_MAX];
    snprintf(conn, sizeof conn, "%s", channel_name);
    char *paren = strrchr(conn, '(');
    if (paren && paren > conn)
        paren[-1] = '\0';
    for (size_t i = 0; i < w->nconns; i++)
        if (strcmp(w->conns[i], conn) == 0)
            return (int)i + 1;
    xgrow((void **)&w->conns, &w->capconns, w->nconns + 1, sizeof *w->conns);
    snprintf(w->conns[w->nconns++], TEXT_MAX, "%s", conn);
    return (int)w->nconns;
}

static const char *channel_name(const watch *w, const char *pid)
{
    for (size_t i = 0; i < w->nch; i++)
        if (strcmp(w->ch[i].pid, pid) == 0)
            return w->ch[i].name;
    return NULL;
}

static seen_consumer *add_consumer(watch *w, const char *channel, const char *tag, int queue,
                                   int64_t t_ns)
{
    rec_log *log = w->o->s->log;
    xgrow((void **)&w->cons, &w->capcons, w->ncons + 1, sizeof *w->cons);
    seen_consumer *c = &w->cons[w->ncons++];
    *c = (seen_consumer){ .queue = queue, .node = node_of(w, channel), .is_alive = true };
    snprintf(c->channel, sizeof c->channel, "%s", channel);
    snprintf(c->tag, sizeof c->tag, "%s", tag);
    c->id = rec_log_consumer_id(log, c->node);
    rec_log_event(log, t_ns, REC_CONSUMER_START, c->node, c->id, 0, queue);
    return c;
}

static void on_event(watch *w, const char *key, const amqp_envelope_t *env)
{
    char pid[TEXT_MAX], name[TEXT_MAX], queue[TEXT_MAX], tag[TEXT_MAX];
    rec_log *log = w->o->s->log;
    if (strcmp(key, "channel.created") == 0) {
        header(env, "pid", pid);
        header(env, "name", name);
        xgrow((void **)&w->ch, &w->capch, w->nch + 1, sizeof *w->ch);
        snprintf(w->ch[w->nch].pid, TEXT_MAX, "%s", pid);
        snprintf(w->ch[w->nch++].name, TEXT_MAX, "%s", name);
        return;
    }
    header(env, "channel", pid);
    header(env, "queue", queue);
    header(env, "consumer_tag", tag);
    int qi = queue_index(w->o->s->plan, queue);
    const char *chan = channel_name(w, pid);
    if (qi < 0 || !chan)
        return;                    /* not a queue of the scenario, or a channel from before */
    if (strcmp(key, "consumer.created") == 0) {
        add_consumer(w, chan, tag, qi, rec_now(log));
        return;
    }
    for (size_t i = 0; i < w->ncons; i++) {
        seen_consumer *c = &w->cons[i];
        if (c->is_alive && strcmp(c->channel, chan) == 0 && strcmp(c->tag, tag) == 0) {
            c->is_alive = false;
            rec_log_event(log, rec_now(log), REC_CONSUMER_STOP, c->node, c->id, 0, qi);
        }
    }
}

static void on_deliver(watch *w, const char *queue, const amqp_envelope_t *env)
{
    char conn[TEXT_MAX], chnum[TEXT_MAX], chan[2 * TEXT_MAX + 8], id[TEXT_MAX] = "";
    rec_log *log = w->o->s->log;
    int qi = queue_index(w->o->s->plan, queue);
    if (qi < 0)
        return;
    header(env, "connection", conn);
    header(env, "channel", chnum);
    snprintf(chan, sizeof chan, "%s (%s)", conn, chnum);
    const amqp_basic_properties_t *p = &env->message.properties;
    const amqp_field_value_t *props = p->_flags & AMQP_BASIC_HEADERS_FLAG
                                          ? field(&p->headers, "properties") : NULL;
    if (props && props->kind == AMQP_FIELD_KIND_TABLE) {
        const amqp_field_value_t *mid = field(&props->value.table, "message_id");
        if (mid)
            text_of(mid, id);
    }
    seen_consumer *c = NULL;
    for (size_t i = 0; i < w->ncons && !c; i++)
        if (w->cons[i].is_alive && w->cons[i].queue == qi && strcmp(w->cons[i].channel, chan) == 0)
            c = &w->cons[i];
    int64_t now = rec_now(log);
    if (!c)                        /* a consumer from before the recording began */
        c = add_consumer(w, chan, "", qi, 0);
    uint64_t msg = id[0] == 'm' ? strtoull(id + 1, NULL, 10) : 0;
    rec_log_event(log, now, REC_DELIVER, c->node, c->id, msg, qi);
    log->delivered++;
}

static int bind(rec_conn c, const char *queue, const char *exchange, const char *key,
                const char *hint, char *err, size_t errsize)
{
    amqp_queue_bind(c, 1, amqp_cstring_bytes(queue), amqp_cstring_bytes(exchange),
                    amqp_cstring_bytes(key), amqp_empty_table);
    if (amqp_get_rpc_reply(c).reply_type == AMQP_RESPONSE_NORMAL)
        return 0;
    char what[512];
    snprintf(what, sizeof what, "cannot watch %s (%s)", exchange, hint);
    rec_rpc_error(c, what, err, errsize);
    return -1;
}

/* Whether the firehose is on: a probe published to our own queue comes
 * back a second time, as its `publish.` copy, when it is. */
static int probe_firehose(rec_observer *o, char *err, size_t errsize)
{
    const char *off = "the firehose is off: turn it on with `rabbitmqctl trace_on -p VHOST` "
                      "(and off after the recording with trace_off)";
    if (bind(o->conn, o->queue, "amq.rabbitmq.trace", "publish.", off, err, errsize))
        return -1;
    amqp_basic_publish(o->conn, 1, amqp_empty_bytes, amqp_cstring_bytes(o->queue), 0, 0, NULL,
                       amqp_cstring_bytes("lsim-probe"));
    bool seen = false;
    for (int i = 0; i < 40 && !seen; i++) {
        struct timeval tv = { 0, 50000 };
        amqp_envelope_t env;
        amqp_maybe_release_buffers(o->conn);
        amqp_rpc_reply_t r = amqp_consume_message(o->conn, &env, &tv, 0);
        if (r.reply_type != AMQP_RESPONSE_NORMAL)
            continue;
        seen = env.exchange.len == 18 && memcmp(env.exchange.bytes, "amq.rabbitmq.trace", 18) == 0;
        amqp_destroy_envelope(&env);
    }
    amqp_queue_unbind(o->conn, 1, amqp_cstring_bytes(o->queue),
                      amqp_cstring_bytes("amq.rabbitmq.trace"), amqp_cstring_bytes("publish."),
                      amqp_empty_table);
    if (!seen)
        snprintf(err, errsize, "%s", off);
    return seen ? 0 : -1;
}

int rec_observer_open(rec_observer *o, char *err, size_t errsize)
{
    amqp_queue_declare_ok_t *q = amqp_queue_declare(o->conn, 1, amqp_empty_bytes, 0, 0, 1, 1,
                                                    amqp_empty_table);
    if (!q) {
        rec_rpc_error(o->conn, "cannot declare the observer's queue", err, errsize);
        return -1;
    }
    snprintf(o->queue, sizeof o->queue, "%.*s", (int)q->queue.len, (const char *)q->queue.bytes);
    const char *plugin = "enable the plugin: rabbitmq-plugins enable rabbitmq_event_exchange";
    if (bind(o->conn, o->queue, "amq.rabbitmq.event", "channel.created", plugin, err, errsize) ||
        bind(o->conn, o->queue, "amq.rabbitmq.event", "consumer.*", plugin, err, errsize))
        return -1;
    for (int i = 0; i < o->s->plan->nqueues; i++) {
        char key[300];
        snprintf(key, sizeof key, "deliver.%s", o->s->plan->queues[i].name);
        if (bind(o->conn, o->queue, "amq.rabbitmq.trace", key, "the firehose", err, errsize))
            return -1;
    }
    if (!amqp_basic_consume(o->conn, 1, amqp_cstring_bytes(o->queue), amqp_empty_bytes, 0, 1, 1,
                            amqp_empty_table)) {
        rec_rpc_error(o->conn, "cannot consume the observer's queue", err, errsize);
        return -1;
    }
    return probe_firehose(o, err, errsize);
}

void *rec_observer_main(void *arg)
{
    watch w = { .o = arg };
    rec_shared *s = w.o->s;
    while (!s->stop_consumers) {
        struct timeval tv = { 0, 20000 };
        amqp_envelope_t env;
        amqp_maybe_release_buffers(w.o->conn);
        amqp_rpc_reply_t r = amqp_consume_message(w.o->conn, &env, &tv, 0);
        if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
            r.library_error == AMQP_STATUS_TIMEOUT)
            continue;
        if (r.reply_type != AMQP_RESPONSE_NORMAL) {
            rec_fail(s, "the observer's connection failed");
            break;
        }
        char key[TEXT_MAX];
        size_t n = env.routing_key.len < TEXT_MAX - 1 ? env.routing_key.len : TEXT_MAX - 1;
        memcpy(key, env.routing_key.bytes, n);
        key[n] = '\0';
        if (strncmp(key, "deliver.", 8) == 0)
            on_deliver(&w, key + 8, &env);
        else
            on_event(&w, key, &env);
        amqp_destroy_envelope(&env);
    }
    free(w.ch);
    free(w.cons);
    free(w.conns);
    return NULL;
}
