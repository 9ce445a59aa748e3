/* record_amqp.c -- the broker's side of `lsim record` (record.h): the URL,
 * connections with channel 1 open, the scenario's queues declared with
 * their arguments, and the broker's own words when something fails.
 *
 * rabbitmq-c (Debian's librabbitmq) is not thread-safe within one
 * connection, so every thread has its own.
 */
#include "base/mem.h"
#include "record/record.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rec_broker_parse(const char *url, rec_broker *b, char *err, size_t errsize)
{
    memset(b, 0, sizeof *b);
    if (strncmp(url, "amqp://", 7) != 0) {
        snprintf(err, errsize, "--amqp: expected amqp://user:password@host:port/vhost");
        return -1;
    }
    char *copy = xstrdup(url);
    struct amqp_connection_info info;
    if (amqp_parse_url(copy, &info) != AMQP_STATUS_OK) {
        /* the URL is not repeated: it may hold a password */
        snprintf(err, errsize, "--amqp: not an AMQP URL (amqp://user:password@host:port/vhost)");
        free(copy);
        return -1;
    }
    b->host = xstrdup(info.host);
    b->user = xstrdup(info.user);
    b->password = xstrdup(info.password);
    b->vhost = xstrdup(info.vhost && info.vhost[0] ? info.vhost : "/");
    b->port = info.port;
    free(copy);
    strbuf s = { 0 };
    sb_addf(&s, "amqp://%s@%s:%d/%s", b->user, b->host, b->port,
            strcmp(b->vhost, "/") == 0 ? "" : b->vhost);
    b->shown = sb_take(&s);
    return 0;
}

void rec_broker_fini(rec_broker *b)
{
    free(b->host);
    free(b->user);
    free(b->password);
    free(b->vhost);
    free(b->shown);
}

/* An RPC's failure in words: the broker's reply text when it closed the
 * channel or the connection, else the library's. */
static void reply_words(amqp_rpc_reply_t r, const char *what, char *err, size_t errsize)
{
    if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION) {
        snprintf(err, errsize, "%s: %s", what, amqp_error_string2(r.library_error));
        return;
    }
    if (r.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
        r.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        amqp_channel_close_t *c = r.reply.decoded;
        snprintf(err, errsize, "%s: the broker said %u %.*s", what, c->reply_code,
                 (int)c->reply_text.len, (const char *)c->reply_text.bytes);
        return;
    }
    if (r.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
        r.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        amqp_connection_close_t *c = r.reply.decoded;
        snprintf(err, errsize, "%s: the broker closed the connection: %u %.*s", what,
                 c->reply_code, (int)c->reply_text.len, (const char *)c->reply_text.bytes);
        return;
    }
    snprintf(err, errsize, "%s: failed", what);
}

void rec_rpc_error(rec_conn c, const char *what, char *err, size_t errsize)
{
    reply_words(amqp_get_rpc_reply(c), what, err, errsize);
}

static bool rpc_ok(rec_conn c)
{
    return amqp_get_rpc_reply(c).reply_type == AMQP_RESPONSE_NORMAL;
}

rec_conn rec_connect(const rec_broker *b, const char *name, bool with_channel, char *err,
                     size_t errsize)
{
    amqp_connection_state_t c = amqp_new_connection();
    amqp_socket_t *sock = amqp_tcp_socket_new(c);
    if (!sock) {
        snprintf(err, errsize, "cannot make a socket for %s", b->shown);
        amqp_destroy_connection(c);
        return NULL;
    }
    int rc = amqp_socket_open(sock, b->host, b->port);
    if (rc != AMQP_STATUS_OK) {
        snprintf(err, errsize, "cannot connect to %s: %s", b->shown, amqp_error_string2(rc));
        amqp_destroy_connection(c);
        return NULL;
    }
    amqp_table_entry_t prop = {
        .key = amqp_cstring_bytes("connection_name"),
        .value = { .kind = AMQP_FIELD_KIND_UTF8, .value.bytes = amqp_cstring_bytes(name) },
    };
    amqp_table_t props = { .num_entries = 1, .entries = &prop };
    amqp_rpc_reply_t r = amqp_login_with_properties(c, b->vhost, 0, 131072, 0, &props,
                                                    AMQP_SASL_METHOD_PLAIN, b->user,
                                                    b->password);
    if (r.reply_type != AMQP_RESPONSE_NORMAL) {
        char what[512];
        snprintf(what, sizeof what, "cannot log in to %s", b->shown);
        reply_words(r, what, err, errsize);
        amqp_destroy_connection(c);
        return NULL;
    }
    if (!with_channel)
        return c;
    amqp_channel_open(c, 1);
    if (!rpc_ok(c)) {
        rec_rpc_error(c, "cannot open a channel", err, errsize);
        rec_disconnect(c);
        return NULL;
    }
    return c;
}

void rec_disconnect(rec_conn c)
{
    if (!c)
        return;
    amqp_connection_close(c, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(c);
}

/* ---- the queues ---------------------------------------------------------------- */

typedef struct args {
    amqp_table_entry_t e[8];
    int n;
} args;

static void arg_long(args *a, const char *key, int64_t v)
{
    a->e[a->n++] = (amqp_table_entry_t){
        .key = amqp_cstring_bytes(key), .value = { .kind = AMQP_FIELD_KIND_I64, .value.i64 = v },
    };
}

static void arg_text(args *a, const char *key, const char *v)
{
    a->e[a->n++] = (amqp_table_entry_t){
        .key = amqp_cstring_bytes(key),
        .value = { .kind = AMQP_FIELD_KIND_UTF8, .value.bytes = amqp_cstring_bytes(v) },
    };
}

static void queue_args(const rec_queue *q, args *a)
{
    a->n = 0;
    if (q->is_quorum)
        arg_text(a, "x-queue-type", "quorum");
    if (q->is_quorum && q->delivery_limit >= 0)
        arg_long(a, "x-delivery-limit", q->delivery_limit);
    if (q->max_length >= 0)
        arg_long(a, "x-max-length", q->max_length);
    if (q->max_length_bytes >= 0)
        arg_long(a, "x-max-length-bytes", q->max_length_bytes);
    if (q->overflow)
        arg_text(a, "x-overflow", q->overflow);
    if (q->message_ttl_ms >= 0)
        arg_long(a, "x-message-ttl", q->message_ttl_ms);
    if (q->dead_letter) {
        arg_text(a, "x-dead-letter-exchange", "");
        arg_text(a, "x-dead-letter-routing-key", q->dead_letter);
    }
}

static int declare_one(rec_conn c, const rec_queue *q, bool fresh, char *err, size_t errsize)
{
    char what[512];
    if (fresh) {
        amqp_queue_delete(c, 1, amqp_cstring_bytes(q->name), 0, 0);
        snprintf(what, sizeof what, "cannot delete queue '%s'", q->name);
        if (!rpc_ok(c)) {
            rec_rpc_error(c, what, err, errsize);
            return -1;
        }
    }
    args a;
    queue_args(q, &a);
    amqp_table_t table = { .num_entries = a.n, .entries = a.e };
    /* a quorum queue must be durable; a classic one is not, as a test's */
    amqp_queue_declare_ok_t *ok = amqp_queue_declare(c, 1, amqp_cstring_bytes(q->name), 0,
                                                     q->is_quorum, 0, 0, table);
    if (!ok) {
        snprintf(what, sizeof what, "cannot declare queue '%s' with the scenario's arguments "
                 "(if it exists with others, --fresh deletes it first)", q->name);
        rec_rpc_error(c, what, err, errsize);
        return -1;
    }
    if (ok->message_count > 0) {
        snprintf(err, errsize, "queue '%s' already holds %u messages: empty it (rabbitmqctl "
                 "purge_queue %s) or record with --fresh", q->name, ok->message_count, q->name);
        return -1;
    }
    return 0;
}

int rec_declare_queues(rec_conn c, const rec_plan *p, bool fresh, char *err, size_t errsize)
{
    /* a queue's dead-letter target first, as an application declares it */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->nqueues; i++) {
            bool is_target = false;
            for (int k = 0; k < p->nqueues; k++)
                if (p->queues[k].dead_letter &&
                    strcmp(p->queues[k].dead_letter, p->queues[i].name) == 0)
                    is_target = true;
            if (is_target == (pass == 0) && declare_one(c, &p->queues[i], fresh, err, errsize))
                return -1;
        }
    return 0;
}

int64_t rec_queue_depth(rec_conn c, const char *queue, char *err, size_t errsize)
{
    amqp_queue_declare_ok_t *ok = amqp_queue_declare(c, 1, amqp_cstring_bytes(queue), 1, 0, 0,
                                                     0, amqp_empty_table);
    if (!ok) {
        char what[512];
        snprintf(what, sizeof what, "queue '%s' is gone", queue);
        rec_rpc_error(c, what, err, errsize);
        return -1;
    }
    return ok->message_count;
}
