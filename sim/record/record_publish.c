/* record_publish.c -- the publisher of `lsim record` (record.h): each
 * message of the scenario at its time, to the default exchange with its
 * queue's name as the routing key.
 *
 * A message carries what the consumers and the trace need: message_id
 * "m<id>" (the run's own id), the header x-lsim-service-us (the listener's
 * work, microseconds) and JMSXGroupID for its group; the expiration the
 * scenario gives; a body of messageBytes bytes.  `publish` is stamped just
 * before basic.publish, as the recorders of the shared traces stamp it on
 * RabbitMQ.  The channel is in confirm mode: a basic.nack is a publish the
 * queue refused (x-overflow reject-publish), counted in the metadata, and
 * the recording knows when every message has reached its queue.
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

typedef struct confirms {
    uint64_t sent;                 /* delivery tags given out: 1 .. sent */
    uint64_t settled;              /* tags answered (ack or nack) */
    uint64_t upto;                 /* every tag <= upto is answered */
    unsigned char *is_settled;     /* per tag */
} confirms;

static void settle(rec_shared *s, confirms *c, uint64_t tag, bool multiple, bool refused)
{
    uint64_t from = multiple ? c->upto + 1 : tag;
    for (uint64_t t = from; t <= tag && t <= c->sent; t++) {
        if (c->is_settled[t])
            continue;
        c->is_settled[t] = 1;
        c->settled++;
        if (refused)
            s->log->refused++;
    }
    while (c->upto < c->sent && c->is_settled[c->upto + 1])
        c->upto++;
}

/* Reads what the broker sent back, waiting at most `wait_us`: 0, or -1
 * when the connection failed (the reason in err). */
static int read_confirms(rec_shared *s, confirms *c, long wait_us, char *err, size_t errsize)
{
    struct timeval tv = { wait_us / 1000000, wait_us % 1000000 };
    for (;;) {
        amqp_frame_t f;
        int rc = amqp_simple_wait_frame_noblock(s->publisher, &f, &tv);
        if (rc == AMQP_STATUS_TIMEOUT)
            return 0;
        if (rc != AMQP_STATUS_OK) {
            snprintf(err, errsize, "the publisher's connection failed: %s",
                     amqp_error_string2(rc));
            return -1;
        }
        tv = (struct timeval){ 0, 0 };
        if (f.frame_type != AMQP_FRAME_METHOD)
            continue;
        if (f.payload.method.id == AMQP_BASIC_ACK_METHOD) {
            amqp_basic_ack_t *a = f.payload.method.decoded;
            settle(s, c, a->delivery_tag, a->multiple, false);
        } else if (f.payload.method.id == AMQP_BASIC_NACK_METHOD) {
            amqp_basic_nack_t *n = f.payload.method.decoded;
            settle(s, c, n->delivery_tag, n->multiple, true);
        } else if (f.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD) {
            amqp_channel_close_t *cl = f.payload.method.decoded;
            snprintf(err, errsize, "the broker closed the publisher's channel: %u %.*s",
                     cl->reply_code, (int)cl->reply_text.len, (const char *)cl->reply_text.bytes);
            return -1;
        }
    }
}

static void sleep_until(const rec_log *log, int64_t t_ns)
{
    int64_t at = log->zero_ns + t_ns;
    struct timespec ts = { at / 1000000000, at % 1000000000 };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static int publish_one(rec_shared *s, const rec_message *m, char *body, size_t body_len)
{
    const rec_queue *q = &s->plan->queues[m->queue];
    char id[32], expiration[32];
    snprintf(id, sizeof id, "m%llu", (unsigned long long)m->id);
    amqp_table_entry_t h[2];
    int nh = 0;
    h[nh++] = (amqp_table_entry_t){
        .key = amqp_cstring_bytes("x-lsim-service-us"),
        .value = { .kind = AMQP_FIELD_KIND_I64, .value.i64 = m->service_ns / 1000 },
    };
    if (m->group)
        h[nh++] = (amqp_table_entry_t){
            .key = amqp_cstring_bytes("JMSXGroupID"),
            .value = { .kind = AMQP_FIELD_KIND_UTF8, .value.bytes = amqp_cstring_bytes(m->group) },
        };
    amqp_basic_properties_t props = {
        ._flags = AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_HEADERS_FLAG |
                  AMQP_BASIC_DELIVERY_MODE_FLAG,
        .message_id = amqp_cstring_bytes(id),
        .delivery_mode = q->is_quorum ? 2 : 1,
        .headers = { .num_entries = nh, .entries = h },
    };
    if (q->expiration_ms >= 0) {
        snprintf(expiration, sizeof expiration, "%lld", (long long)q->expiration_ms);
        props._flags |= AMQP_BASIC_EXPIRATION_FLAG;
        props.expiration = amqp_cstring_bytes(expiration);
    }
    if (body_len == 0) {
        body = id;
        body_len = strlen(id);
    }
    amqp_bytes_t b = { .len = body_len, .bytes = body };
    rec_log_event(s->log, rec_now(s->log), REC_PUBLISH, 0, 0, m->id, m->queue);
    int rc = amqp_basic_publish(s->publisher, 1, amqp_empty_bytes,
                                amqp_cstring_bytes(q->name), 0, 0, &props, b);
    s->log->published++;
    return rc;
}

static size_t largest_body(const rec_plan *p)
{
    size_t n = 0;
    for (int i = 0; i < p->nqueues; i++)
        if ((size_t)p->queues[i].message_bytes > n)
            n = (size_t)p->queues[i].message_bytes;
    return n;
}

void *rec_publisher_main(void *arg)
{
    rec_shared *s = arg;
    const rec_plan *p = s->plan;
    char err[SIM_ERROR_SIZE];
    confirms c = { .is_settled = xcalloc(p->nmessages + 2, 1) };
    size_t body_max = largest_body(p);
    char *body = xmalloc(body_max + 1);
    memset(body, 'x', body_max);
    int rc = 0;
    for (size_t i = 0; i < p->nmessages && rc == 0 && !s->stop_publish; i++) {
        const rec_message *m = &p->messages[i];
        if (rec_now(s->log) < m->t_ns) {
            /* answers that came meanwhile, then the message's time */
            rc = read_confirms(s, &c, 0, err, sizeof err);
            sleep_until(s->log, m->t_ns);
        } else if ((i & 63) == 0) {   /* a burst: keep the answers from piling up */
            rc = read_confirms(s, &c, 0, err, sizeof err);
        }
        if (rc == 0 && publish_one(s, m, body, (size_t)p->queues[m->queue].message_bytes)) {
            snprintf(err, sizeof err, "cannot publish: the connection failed");
            rc = -1;
        }
        c.sent++;
    }
    while (rc == 0 && c.settled < c.sent && !s->stop_publish)
        rc = read_confirms(s, &c, 100000, err, sizeof err);
    if (rc != 0)
        rec_fail(s, err);
    s->publish_done = true;
    free(c.is_settled);
    free(body);
    return NULL;
}
