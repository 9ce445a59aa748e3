/* test_rabbitmq_failures.c -- the golden cases of specs/rabbitmq-failures.md
 * section 7, exactly: consumer_timeout on the channel tick and its phase
 * (GC-1, GC-2), the brief case on a classic and a quorum queue (GC-4, GC-5),
 * quorum delivery limits and requeue positions against a classic queue
 * (GC-6, GC-7, GC-8), a poison message with Spring Retry (GC-12) and without
 * (GC-13, classic and 4.x quorum); listener failures by message, group and
 * fatality, the batch nack, stateful retry.
 * The broker cases drive `broker.kind: rabbitmq` through its ops; the SMLC
 * cases run whole scenarios and read the database.
 */
#include "testutil.h"
#include "core/model.h"

extern const broker_ops broker_rabbitmq;

/* ---- the broker driven directly ------------------------------------------------- */

typedef struct rec {
    consumer_port port;
    struct fixture *f;
    uint64_t got[128];             /* message ids in delivery order */
    bool redelivered[128];
    int n;
    sim_time closed_at;            /* -1: open */
    bool is_nacker;                /* nacks (requeue) each delivery 1 ms later */
} rec;

typedef struct fixture {
    sim_ctx *ctx;
    broker *b;
    cfg_doc doc;
    sim_msg *msgs[64];             /* by id */
} fixture;

static void on_deliver(sim_ctx *ctx, consumer_port *p, sim_msg *m);
static void on_closed(sim_ctx *ctx, consumer_port *p)
{
    rec *r = p->owner;
    r->closed_at = sim_now(ctx);
}

static const consumer_port_ops rec_ops = { .deliver = on_deliver, .closed = on_closed };

static void on_nack(sim_ctx *ctx, void *self, void *arg)
{
    rec *r = self;
    r->f->b->ops->reject(ctx, r->f->b, &r->port, arg, true);
}

static const sim_event_type ev_nack = { "test.nack", on_nack };

static void on_deliver(sim_ctx *ctx, consumer_port *p, sim_msg *m)
{
    rec *r = p->owner;
    if (r->n < 128) {
        r->redelivered[r->n] = (m->flags & SIM_MSG_REDELIVERED) != 0;
        r->got[r->n++] = m->id;
    }
    if (r->is_nacker)
        sim_schedule(ctx, SIM_MS, &ev_nack, r, m);
}

static fixture *setup_broker(const char *broker_yaml, const char *queue_yaml)
{
    fixture *f = xcalloc(1, sizeof *f);
    sim_diag d = { 0 };
    f->ctx = sim_ctx_create(1);
    if (cfg_load_string("t.yaml", broker_yaml, strlen(broker_yaml), &f->doc, &d) != SIM_OK ||
        broker_rabbitmq.create(f->ctx, f->doc.root, &f->b, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    if (queue_yaml) {
        cfg_doc q = { 0 };
        if (cfg_load_string("q.yaml", queue_yaml, strlen(queue_yaml), &q, &d) != SIM_OK ||
            f->b->ops->declare(f->ctx, f->b, 0, q.root, &d) != SIM_OK)
            fail_msg("%s", d.msg);
        cfg_doc_free(&q);
    }
    return f;
}

static void teardown_broker(fixture *f)
{
    f->b->ops->destroy(f->b);
    sim_ctx_destroy(f->ctx);
    cfg_doc_free(&f->doc);
    free(f);
}

static void subscribe(fixture *f, rec *r, int id, int queue, int prefetch)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->closed_at = -1;
    r->port = (consumer_port){ .ops = &rec_ops, .owner = r, .node = 1, .id = id,
                               .queue = queue, .prefetch = prefetch };
    f->b->ops->subscribe(f->ctx, f->b, &r->port);
}

static void publish(fixture *f, int queue, int n)
{
    for (int i = 0; i < n; i++) {
        sim_msg *m = sim_msg_create(f->ctx, queue);
        sim_msg_published(f->ctx, m);
        if (m->id < 64)
            f->msgs[m->id] = m;
        f->b->ops->publish(f->ctx, f->b, m);
    }
}

static void expect_got(const rec *r, const char *want)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    for (int i = 0; i < r->n; i++)
        sb_addf(&b, "%sm%llu%s", i ? "," : "", (unsigned long long)r->got[i],
                r->redelivered[i] ? "r" : "");
    char *s = sb_take(&b);
    assert_string_equal(s, want);
    free(s);
}

typedef struct later {
    fixture *f;
    rec *r;
    int queue, n, prefetch, id;
} later;

static void on_publish(sim_ctx *ctx, void *self, void *arg)
{
    (void)ctx;
    (void)arg;
    later *l = self;
    publish(l->f, l->queue, l->n);
}

static void on_subscribe(sim_ctx *ctx, void *self, void *arg)
{
    (void)ctx;
    (void)arg;
    later *l = self;
    subscribe(l->f, l->r, l->id, l->queue, l->prefetch);
}

static const sim_event_type ev_publish = { "test.publish", on_publish };
static const sim_event_type ev_subscribe = { "test.subscribe", on_subscribe };

/* GC-1: T = 5 s, a1..a10, prefetch 3, never acked: the close comes on the
 * first tick (60 s after the channel opened), a1-a3 go back to the head
 * redelivered, a channel on another queue stays open. */
static void gc1_timeout_on_a_busy_channel(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ consumerTimeout: 5s }", NULL);
    rec a, other, c;
    publish(f, 0, 10);
    subscribe(f, &a, 1, 0, 3);
    subscribe(f, &other, 2, 1, 3);
    expect_got(&a, "m1,m2,m3");
    later l = { f, &c, 0, 0, 3, 3 };
    sim_schedule(f->ctx, 61 * SIM_S, &ev_subscribe, &l, NULL);
    later p = { f, NULL, 1, 1, 0, 0 };
    sim_schedule(f->ctx, 62 * SIM_S, &ev_publish, &p, NULL);
    f->ctx->duration = 63 * SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(a.closed_at, 60 * SIM_S);
    assert_int_equal(other.closed_at, -1);
    expect_got(&other, "m11");     /* the other channel still receives */
    expect_got(&c, "m1r,m2r,m3r"); /* then a4.. as prefetch allows */
    assert_int_equal(f->b->ops->depth(f->b, 0), 7);
    /* a late ack on the closed channel is dropped */
    f->b->ops->ack(f->ctx, f->b, &a.port, f->msgs[1]);
    assert_int_equal(f->b->ops->depth(f->b, 0), 7);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    f->b->ops->unsubscribe(f->ctx, f->b, &c.port);
    f->b->ops->unsubscribe(f->ctx, f->b, &other.port);
    teardown_broker(f);
}

/* GC-2: the consumer waits on an empty queue (the channel hibernates); b1-b3
 * arrive at 20 s and wake it: the close is at 80 s, not 60 s. */
static void gc2_tick_rephased_by_hibernation(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ consumerTimeout: 5s }", NULL);
    rec a;
    subscribe(f, &a, 1, 0, 3);
    later p = { f, NULL, 0, 3, 0, 0 };
    sim_schedule(f->ctx, 20 * SIM_S, &ev_publish, &p, NULL);
    f->ctx->duration = 100 * SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(a.closed_at, 80 * SIM_S);
    assert_int_equal(f->b->ops->depth(f->b, 0), 3);
    for (int i = 1; i <= 3; i++)
        assert_true(f->msgs[i]->flags & SIM_MSG_REDELIVERED);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);
}

/* A timeout that is a multiple of the tick closes one tick later (R1.5):
 * T = 60 s, delivered at the tick's own instant: close at 120 s. */
static void timeout_on_a_tick_closes_a_tick_later(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ consumerTimeout: 60s }", NULL);
    rec a;
    publish(f, 0, 1);
    subscribe(f, &a, 1, 0, 1);
    f->ctx->duration = 200 * SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(a.closed_at, 120 * SIM_S);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);
}

/* x-consumer-timeout: from 3.12 a queue's own timeout replaces the broker's,
 * larger or smaller; 3.10 ignores it (a warning). */
static void queue_consumer_timeout_by_version(void **state)
{
    (void)state;
    static const struct { const char *broker; sim_time closed; } cases[] = {
        { "{ version: '3.13', consumerTimeout: 30m }", 60 * SIM_S },
        { "{ version: '3.10.8', consumerTimeout: 100s }", 120 * SIM_S },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture *f = setup_broker(cases[i].broker, "{ consumerTimeout: 5s }");
        rec a;
        publish(f, 0, 1);
        subscribe(f, &a, 1, 0, 1);
        f->ctx->duration = 200 * SIM_S;
        assert_int_equal(sim_run(f->ctx), SIM_OK);
        assert_int_equal(a.closed_at, cases[i].closed);
        f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
        teardown_broker(f);
    }
}

/* GC-6: quorum, x-delivery-limit 2, every delivery nacked with requeue:
 * each message is delivered 3 times, then dropped; 6 deliveries. */
static void gc6_quorum_delivery_limit(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ version: '3.10.8' }", "{ type: quorum, deliveryLimit: 2 }");
    rec a;
    publish(f, 0, 2);
    subscribe(f, &a, 1, 0, 1);
    a.is_nacker = true;
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[1], true);   /* the first delivery */
    f->ctx->duration = SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    expect_got(&a, "m1,m1r,m1r,m2,m2r,m2r");
    assert_int_equal(f->b->ops->depth(f->b, 0), 0);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);
}

/* GC-6 derived, 4.x without the argument: the default limit 20 gives 21
 * deliveries a message. */
static void gc6_quorum_default_limit_on_4x(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ version: '4.0' }", "{ type: quorum }");
    rec a;
    publish(f, 0, 1);
    subscribe(f, &a, 1, 0, 1);
    a.is_nacker = true;
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[1], true);
    f->ctx->duration = SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(a.n, 21);
    assert_int_equal(f->ctx->dropped, 1);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);
}

/* GC-7: quorum without a delivery limit (3.x): a requeue goes to the back. */
static void gc7_quorum_without_limit_requeues_to_the_back(void **state)
{
    (void)state;
    fixture *f = setup_broker("{ version: '3.13' }", "{ type: quorum }");
    rec a;
    publish(f, 0, 3);
    subscribe(f, &a, 1, 0, 1);
    a.is_nacker = true;
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[1], true);
    f->ctx->duration = 7 * SIM_MS + SIM_MS / 2;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    expect_got(&a, "m1,m2,m3,m1r,m2r,m3r,m1r,m2r,m3r");
    teardown_broker(f);
}

/* GC-8: classic: the requeued message goes back to the head, forever. */
static void gc8_classic_requeues_to_the_head(void **state)
{
    (void)state;
    fixture *f = setup_broker("{}", "{ type: classic }");
    rec a;
    publish(f, 0, 3);
    subscribe(f, &a, 1, 0, 1);
    a.is_nacker = true;
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[1], true);
    f->ctx->duration = 4 * SIM_MS + SIM_MS / 2;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    expect_got(&a, "m1,m1r,m1r,m1r,m1r,m1r");
    teardown_broker(f);
}

/* ---- whole scenarios: SMLC on rabbitmq ---------------------------------------------- */

static const char *brief_case =
    "name: brief\n"
    "duration: %s\n"
    "broker: { kind: rabbitmq, version: '%s', consumerTimeout: 60s }\n"
    "queue:\n"
    "  type: %s\n"
    "  arrivals: { kind: burst, count: 1000, at: 0s }\n"
    "  service: { kind: constant, value: %s }\n"
    "container: { kind: smlc, concurrency: '1', prefetchCount: 250 }\n";

static void run_brief(tu_fixture *fx, const char *duration, const char *version,
                      const char *type, const char *service)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, brief_case, duration, version, type, service);
    tu_fixture_run(fx, yaml);
}

/* GC-4: prefetch 250, 7 s a message, consumer_timeout 60 s: the close on
 * the second tick (120 s) with 1..17 acked; the listener finishes message
 * 18 at 126 s without an ack and the consumer restarts then; 18 is processed
 * again 126-133; the new channel closes at 246 and restarts at 252. */
static void gc4_brief_case(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_brief(&fx, "400s", "3.10.8", "classic", "7s");
    tu_expect_rows(fx.db, "select t, action, consumers_after, rule, detail from scaling",
                   "120000.0|channel-closed|1|consumer_timeout|"
                   "{\"consumer\":1,\"buffered\":249,\"in_progress\":18}\n"
                   "126000.0|restart|1|restart|{\"consumer\":1,\"new_consumer\":2,"
                   "\"reason\":\"channel-closed\",\"consumers_before\":1}\n"
                   "246000.0|channel-closed|1|consumer_timeout|"
                   "{\"consumer\":2,\"buffered\":249,\"in_progress\":35}\n"
                   "252000.0|restart|1|restart|{\"consumer\":2,\"new_consumer\":3,"
                   "\"reason\":\"channel-closed\",\"consumers_before\":1}\n"
                   "372000.0|channel-closed|1|consumer_timeout|"
                   "{\"consumer\":3,\"buffered\":249,\"in_progress\":52}\n"
                   "378000.0|restart|1|restart|{\"consumer\":3,\"new_consumer\":4,"
                   "\"reason\":\"channel-closed\",\"consumers_before\":1}\n");
    tu_expect_rows(fx.db, "select consumer, t_start, t_stop, messages, stop_reason "
                          "from consumers order by consumer",
                   "1|0.0|126000.0|18|channel-closed\n"
                   "2|126000.0|252000.0|18|channel-closed\n"
                   "3|252000.0|378000.0|18|channel-closed\n"
                   "4|378000.0|400000.0|3|end\n");
    /* 1..17 acked before the close, once each; 18 twice, the second time acked */
    tu_expect_rows(fx.db, "select count(*), max(t_end) from messages "
                          "where msg <= 17 and fate = 'acked' and deliveries = 1",
                   "17|119000.0\n");
    tu_expect_rows(fx.db, "select t_begin, t_end, requeues, deliveries, fate from messages "
                          "where msg = 18",
                   "126000.0|133000.0|1|2|acked\n");
    assert_int_equal((int)tu_metric(fx.r, "consumer_timeouts"), 3);
    assert_int_equal((int)tu_metric(fx.r, "duplicates"), 3);   /* 18, 35, 52 */
    assert_int_equal((int)tu_metric(fx.r, "completed"), 54);
    assert_int_equal((int)tu_metric(fx.r, "dropped"), 0);
    tu_fixture_done(&fx);
}

/* GC-4 with 10 s a message: the tick at 120 s and the end of message 12
 * coincide; the close is still at 120.0 (the spec allows 11 or 12 acked:
 * here the tick, armed at 0 s, runs first, so 11), and the consumer
 * restarts at once as the listener returns at the same instant. */
static void gc4_ten_seconds_tick_meets_ack(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_brief(&fx, "130s", "3.10.8", "classic", "10s");
    tu_expect_rows(fx.db, "select t, action from scaling",
                   "120000.0|channel-closed\n120000.0|restart\n");
    tu_expect_rows(fx.db, "select count(*) from messages where fate = 'acked' and t_end <= 120000",
                   "11\n");
    tu_expect_rows(fx.db, "select t_begin, t_end, deliveries from messages where msg = 12",
                   "120000.0|130000.0|2\n");
    tu_fixture_done(&fx);
}

/* GC-5: the same on a 4.x quorum queue: the same times (the check is the
 * channel's); each close is one more return of the 250 messages, fewer than
 * the 20 allowed over this run: nothing is lost. */
static void gc5_brief_case_quorum_nothing_lost(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_brief(&fx, "400s", "4.0", "quorum", "7s");
    tu_expect_rows(fx.db, "select group_concat(t) from scaling where action = 'channel-closed'",
                   "120000.0,246000.0,372000.0\n");
    assert_int_equal((int)tu_metric(fx.r, "duplicates"), 3);
    assert_int_equal((int)tu_metric(fx.r, "dropped"), 0);
    tu_fixture_done(&fx);
}

/* GC-5 with 13 s a message: 9 acks a period, about 27 returns before a
 * message's turn: past the 20 allowed, messages are dropped on their 21st
 * return, each delivered 21 times. */
static void gc5_quorum_13s_loses_messages(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_brief(&fx, "5000s", "4.0", "quorum", "13s");   /* long enough for 21 closes */
    /* 190..259 are still unacknowledged at the 21st close (2720 s): dropped */
    assert_int_equal((int)tu_metric(fx.r, "dropped"), 70);
    assert_int_equal((int)tu_metric(fx.r, "completed"), 346);
    tu_expect_rows(fx.db, "select min(msg), max(msg), count(*) from messages "
                          "where fate like 'dropped:%'",
                   "190|259|70\n");
    tu_expect_rows(fx.db, "select distinct fate, deliveries, requeues from messages "
                          "where fate like 'dropped:%'",
                   "dropped:delivery_limit|21|20\n");
    /* a close every period of 130 s (the second tick, 120 s, then the 13 s
     * listener in progress), from 120 s: 120 + 130 k <= 5000, k = 0..37 */
    tu_expect_rows(fx.db, "select count(*) from scaling where action = 'channel-closed'",
                   "38\n");
    tu_fixture_done(&fx);
}


/* GC-6 derived: with a dead-letter queue, the two messages are
 * dead-lettered with reason delivery_limit after 3 deliveries each, and
 * their copies are consumed from the dead-letter queue. */
static void gc6_delivery_limit_dead_letters(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    tu_fixture_run(&fx, "name: gc6\n"
                        "broker: { kind: rabbitmq, version: '3.13' }\n"
                        "queues:\n"
                        "  - name: q\n"
                        "    type: quorum\n"
                        "    deliveryLimit: 2\n"
                        "    deadLetter: { queue: dlq }\n"
                        "    arrivals: { kind: burst, count: 2, at: 0s }\n"
                        "    service: { kind: constant, value: 10ms }\n"
                        "  - name: dlq\n"
                        "    arrivals: { kind: phases, phases: [ { duration: 1s } ] }\n"
                        "    service: { kind: constant, value: 10ms }\n"
                        "container:\n"
                        "  kind: smlc\n"
                        "  concurrency: '1'\n"
                        "  prefetchCount: 1\n"
                        "  failures: [ { messages: [1, 2] } ]\n");
    tu_expect_rows(fx.db, "select msg, queue, requeues, deliveries, fate from messages order by msg",
                   "1|q|2|3|dead-lettered:delivery_limit\n2|q|2|3|dead-lettered:delivery_limit\n"
                   "3|dlq|0|1|acked\n4|dlq|0|1|acked\n");
    assert_int_equal((int)tu_metric(fx.r, "dead_lettered"), 2);
    tu_fixture_done(&fx);
}

/* S2.6: a restart is not a scale-up: consumers.size() stays (2 before and
 * after), and lastConsumerStarted keeps the dynamic start of 84 s, which the
 * next considerAddingAConsumer (168 s) reads. */
static void restart_leaves_the_scaling_state(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    tu_fixture_run(&fx, "name: s26\n"
                        "duration: 170s\n"
                        "broker: { kind: rabbitmq, version: '3.10.8', consumerTimeout: 60s }\n"
                        "queue:\n"
                        "  arrivals: { kind: burst, count: 1000, at: 0s }\n"
                        "  service: { kind: constant, value: 7s }\n"
                        "container: { kind: smlc, concurrency: '1-3', prefetchCount: 250 }\n");
    tu_expect_rows(fx.db, "select t, action, consumers_after, rule, "
                          "json_extract(detail, '$.lastConsumerStarted_ms'), "
                          "json_extract(detail, '$.consumers_before') from scaling",
                   "84000.0|start|2|considerAddingAConsumer|NULL|1\n"
                   "120000.0|channel-closed|2|consumer_timeout|NULL|NULL\n"
                   "126000.0|restart|2|restart|NULL|2\n"
                   "168000.0|start|3|considerAddingAConsumer|84000|2\n");
    tu_fixture_done(&fx);
}

/* ---- listener failures and retry ---------------------------------------------------- */

static const char *poison_case =
    "name: poison\n"
    "broker: { kind: rabbitmq }\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 2, at: 0s }\n"
    "  service: { kind: constant, value: 50ms }\n"
    "container:\n"
    "  kind: smlc\n"
    "  version: '%s'\n"
    "  concurrency: '1'\n"
    "  failures: [ { messages: [1] } ]\n"
    "  retry: { enabled: true }\n";

/* GC-12: Boot 2.x/3.x retry defaults, the listener throws after 50 ms:
 * attempts at 0, 1.05 and 2.10 s, the recoverer's nack (no requeue) at
 * 2.15 s; the consumer thread is blocked all along, the next message begins
 * at 2.15 s.  Boot 4 (Spring AMQP 4.0): 4 attempts, the nack at 3.20 s. */
static void gc12_poison_with_retry(void **state)
{
    (void)state;
    static const struct { const char *version, *rows; } cases[] = {
        { "3.1", "1|0.0|2150.0|1|dropped:rejected\n2|2150.0|2200.0|1|acked\n" },
        { "4.0", "1|0.0|3200.0|1|dropped:rejected\n2|3200.0|3250.0|1|acked\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_fixture fx = { 0 };
        char yaml[1024];
        snprintf(yaml, sizeof yaml, poison_case, cases[i].version);
        tu_fixture_run(&fx, yaml);
        tu_expect_rows(fx.db, "select msg, t_begin, t_end, deliveries, fate from messages",
                       cases[i].rows);
        assert_int_equal((int)tu_metric(fx.r, "dropped"), 1);
        tu_fixture_done(&fx);
    }
}

static const char *loop_case =
    "name: loop\n"
    "%s"                           /* the duration line, or none */
    "broker: { kind: rabbitmq, version: '%s' }\n"
    "queue:\n"
    "  type: %s\n"
    "  arrivals: { kind: burst, count: 1000, at: 0s }\n"
    "  service: { kind: constant, value: 10ms }\n"
    "container:\n"
    "  kind: smlc\n"
    "  concurrency: '1'\n"
    "  prefetchCount: 250\n"
    "  failures: [ { messages: [1] } ]\n";

/* GC-13: a poison message at the head of a backlog, no retry,
 * defaultRequeueRejected: back to the head, redelivered at once behind the
 * 249 buffered messages: it fails every 2.5 s (0.01, 2.51, 5.01, 7.51 s),
 * never dead-lettered.  On a 4.x quorum queue it is delivered 21 times,
 * then dropped. */
static void gc13_poison_loops(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    char yaml[1024];
    snprintf(yaml, sizeof yaml, loop_case, "duration: 9s\n", "3.13", "classic");
    tu_fixture_run(&fx, yaml);
    tu_expect_rows(fx.db, "select t_begin, t_end, requeues, deliveries, fate from messages "
                          "where msg = 1",
                   "7500.0|7510.0|4|5|unfinished\n");
    tu_expect_rows(fx.db, "select value from consumer_metrics where metric = "
                          "'listener_failures'",
                   "4.0\n");
    tu_fixture_done(&fx);

    memset(&fx, 0, sizeof fx);
    snprintf(yaml, sizeof yaml, loop_case, "duration: 200s\n", "4.0", "quorum");
    tu_fixture_run(&fx, yaml);
    tu_expect_rows(fx.db, "select requeues, deliveries, fate from messages where msg = 1",
                   "20|21|dropped:delivery_limit\n");
    assert_int_equal((int)tu_metric(fx.r, "completed"), 999);
    assert_int_equal((int)tu_metric(fx.r, "dropped"), 1);
    tu_fixture_done(&fx);
}

/* GC-13's poison message without the duration: the 999 others are
 * processed by 10.04 s, then message 1 alone fails and goes back to the
 * head every 10 ms.  The run stops at the first check (every 1,024 events)
 * past a million redeliveries since the check that saw the last end. */
static void poison_message_loop_stops(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    char yaml[1024];
    snprintf(yaml, sizeof yaml, loop_case, "", "3.13", "classic");
    tu_fixture_run(&fx, yaml);
    assert_int_equal((int)tu_metric(fx.r, "completed"), 999);
    assert_int_equal((int)tu_metric(fx.r, "unfinished"), 1);
    double since = tu_db_double(fx.db, "select max(t_end) from messages where msg > 1");
    assert_true(since == 10040.0);
    /* a redelivery every 10 ms: a million of them take 10,000 s, and each
     * of the two checks may come 1,024 events (some 10 s) late */
    double end = tu_metric(fx.r, "duration_s");
    assert_true(end >= since / 1000 + 10000 && end < since / 1000 + 10000 + 21);
    assert_true(tu_metric(fx.r, "redeliveries") >= 1000000);
    tu_expect_rows(fx.db, "select fate from messages where msg = 1", "unfinished\n");
    assert_int_equal((int)fx.r->ctx->nwarnings, 1);
    assert_non_null(strstr(fx.r->ctx->warnings[0], "no message had ended in 10"));
    assert_non_null(strstr(fx.r->ctx->warnings[0], "give the scenario a duration"));
    tu_fixture_done(&fx);
}

/* Samples are steps of the loop but not events: the stop is the same with
 * them (--detail samples and messages) and without (summary). */
static void the_stop_does_not_depend_on_detail(void **state)
{
    (void)state;
    double ends[3];
    int details[3] = { SIM_DETAIL_SUMMARY, SIM_DETAIL_SAMPLES, SIM_DETAIL_MESSAGES };
    char yaml[1024];
    snprintf(yaml, sizeof yaml, loop_case, "", "3.13", "classic");
    char *dir = tu_tmpdir();
    char *db = tu_path(dir, "d.db");
    for (int i = 0; i < 3; i++) {
        cfg_doc doc = { 0 };
        run *r = tu_run(yaml, db, details[i], &doc);
        ends[i] = tu_metric(r, "duration_s");
        assert_int_equal((int)r->ctx->nwarnings, 1);
        tu_done(r, &doc);
        remove(db);
    }
    assert_true(ends[0] == ends[1] && ends[1] == ends[2]);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

static const char *batch_case =
    "name: batch\n"
    "broker: { kind: rabbitmq }\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 4, at: 0s }\n"
    "  service: { kind: constant, value: 10ms }\n"
    "  groups: { kind: sequential, count: 2 }\n"
    "container:\n"
    "  kind: smlc\n"
    "  concurrency: '1'\n"
    "  batchSize: %d\n"
    "  defaultRequeueRejected: %s\n"
    "  failures: [ %s ]\n";

static void run_batch(tu_fixture *fx, int batch, const char *requeue, const char *rule)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, batch_case, batch, requeue, rule);
    tu_fixture_run(fx, yaml);
}

/* S3.3: with batchSize 2 a fatal failure of message 2 nacks the whole batch
 * (multiple=true), message 1 too, already processed: both dropped. */
static void batch_nack_takes_the_processed_message(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_batch(&fx, 2, "true", "{ messages: [2], fatal: true }");
    tu_expect_rows(fx.db, "select msg, fate from messages",
                   "1|dropped:rejected\n2|dropped:rejected\n3|acked\n4|acked\n");
    tu_fixture_done(&fx);
}

/* A group's rule; fatal is never requeued even with defaultRequeueRejected;
 * defaultRequeueRejected false drops an ordinary failure at once. */
static void group_fatal_and_no_requeue(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    run_batch(&fx, 1, "true", "{ group: g2, fatal: true }");
    tu_expect_rows(fx.db, "select msg, grp, deliveries, fate from messages",
                   "1|g1|1|acked\n2|g2|1|dropped:rejected\n3|g1|1|acked\n"
                   "4|g2|1|dropped:rejected\n");
    tu_fixture_done(&fx);
    memset(&fx, 0, sizeof fx);
    run_batch(&fx, 1, "false", "{ messages: [3] }");
    tu_expect_rows(fx.db, "select msg, deliveries, fate from messages",
                   "1|1|acked\n2|1|acked\n3|1|dropped:rejected\n4|1|acked\n");
    tu_fixture_done(&fx);
}

/* Stateful retry: the back-off, then the exception: the message goes back,
 * each delivery one attempt, the recoverer rejecting on the third. */
static void stateful_retry_redelivers(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    const char *yaml =
        "name: stateful\n"
        "broker: { kind: rabbitmq }\n"
        "queue:\n"
        "  arrivals: { kind: burst, count: 1, at: 0s }\n"
        "  service: { kind: constant, value: 50ms }\n"
        "container:\n"
        "  kind: smlc\n"
        "  version: '3.1'\n"
        "  concurrency: '1'\n"
        "  failures: [ { messages: [1] } ]\n"
        "  retry: { enabled: true, stateless: false, initialInterval: 100ms, multiplier: 2 }\n";
    tu_fixture_run(&fx, yaml);
    /* 0-0.05, sleep 0.1, requeue; 0.15-0.20, sleep 0.2, requeue; 0.40-0.45, reject */
    tu_expect_rows(fx.db, "select t_begin, t_end, requeues, deliveries, fate from messages",
                   "400.0|450.0|2|3|dropped:rejected\n");
    tu_fixture_done(&fx);
}

/* The direct container on the brief case: the monitor task (every 5 s)
 * notices the close at 125 s and restarts on its next restart run (every
 * 10 s: lastRestartAttempt + 5 s < now), 130 s. */
static void direct_restarts_on_its_monitor(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    tu_fixture_run(&fx, "name: direct\n"
                        "duration: 200s\n"
                        "broker: { kind: rabbitmq, consumerTimeout: 60s }\n"
                        "queue:\n"
                        "  arrivals: { kind: burst, count: 1000, at: 0s }\n"
                        "  service: { kind: constant, value: 7s }\n"
                        "container: { kind: direct, consumersPerQueue: 1, prefetchCount: 250 }\n"
                        "host: { cores: 4 }\n");
    tu_expect_rows(fx.db, "select t, action, rule from scaling",
                   "120000.0|channel-closed|consumer_timeout\n130000.0|restart|restart\n");
    tu_expect_rows(fx.db, "select consumer, t_start, t_stop, stop_reason from consumers",
                   "1|0.0|125000.0|channel-closed\n2|130000.0|200000.0|end\n");
    /* 18 ends at 126 s unacknowledged and is processed again from 130 s */
    tu_expect_rows(fx.db, "select t_begin, deliveries, fate from messages where msg = 18",
                   "130000.0|2|acked\n");
    assert_int_equal((int)tu_metric(fx.r, "duplicates"), 1);
    tu_fixture_done(&fx);
}

/* The same poison message on the direct container: the retry's back-off
 * blocks the pool thread that runs the channel's deliveries; the nack
 * (multiple, no requeue) at 2.15 s, the next message after it. */
static void direct_poison_with_retry(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    tu_fixture_run(&fx, "name: poison\n"
                        "broker: { kind: rabbitmq }\n"
                        "queue:\n"
                        "  arrivals: { kind: burst, count: 2, at: 0s }\n"
                        "  service: { kind: constant, value: 50ms }\n"
                        "container:\n"
                        "  kind: direct\n"
                        "  version: '3.1'\n"
                        "  failures: [ { messages: [1] } ]\n"
                        "  retry: { enabled: true }\n");
    tu_expect_rows(fx.db, "select msg, t_begin, t_end, deliveries, fate from messages",
                   "1|0.0|2150.0|1|dropped:rejected\n2|2150.0|2200.0|1|acked\n");
    tu_fixture_done(&fx);
}

/* ---- max-length, TTL, dead letters ------------------------------------------------------ */

/* GC-10: max-length 5; m1, m2 taken (unacked), m6, m7 published (ready
 * m3..m7 = 5: unacked messages do not count); the channel closes: m1, m2 go
 * back to the head and are dropped; with reject-publish nothing is, and the
 * queue holds 7. */
static void gc10_requeue_versus_max_length(void **state)
{
    (void)state;
    fixture *f = setup_broker("{}", "{ maxLength: 5 }");
    rec a;
    publish(f, 0, 5);
    subscribe(f, &a, 1, 0, 2);
    expect_got(&a, "m1,m2");
    publish(f, 0, 2);
    assert_int_equal(f->b->ops->depth(f->b, 0), 5);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    assert_int_equal(f->b->ops->depth(f->b, 0), 5);
    assert_int_equal(f->ctx->dropped, 2);
    teardown_broker(f);

    f = setup_broker("{}", "{ maxLength: 5, overflow: reject-publish }");
    publish(f, 0, 5);
    subscribe(f, &a, 1, 0, 2);
    publish(f, 0, 2);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    assert_int_equal(f->b->ops->depth(f->b, 0), 7);
    assert_int_equal(f->ctx->dropped, 0);
    teardown_broker(f);
}

typedef struct probe {
    fixture *f;
    int64_t depth;
} probe;

static void on_probe(sim_ctx *ctx, void *self, void *arg)
{
    (void)ctx;
    (void)arg;
    probe *p = self;
    p->depth = p->f->b->ops->depth(p->f->b, 0);
}

static const sim_event_type ev_probe = { "test.probe", on_probe };

/* messageTtl 1 s, no consumer: a message expires at its publish + 1 s (the
 * timer on the millisecond), m2 published at 0.5 s half a second later. */
static void ttl_expires_at_the_head(void **state)
{
    (void)state;
    fixture *f = setup_broker("{}", "{ messageTtl: 1s }");
    publish(f, 0, 1);
    later p2 = { f, NULL, 0, 1, 0, 0 };
    sim_schedule(f->ctx, 500 * SIM_MS, &ev_publish, &p2, NULL);
    probe at[4] = { { f, -1 }, { f, -1 }, { f, -1 }, { f, -1 } };
    const sim_time when[4] = { 999 * SIM_MS, 1000 * SIM_MS + 1, 1499 * SIM_MS,
                               1500 * SIM_MS + 1 };
    for (int i = 0; i < 4; i++)
        sim_schedule_at(f->ctx, when[i], &ev_probe, &at[i], NULL);
    f->ctx->duration = 2 * SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(at[0].depth, 2);
    assert_int_equal(at[1].depth, 1);
    assert_int_equal(at[2].depth, 1);
    assert_int_equal(at[3].depth, 0);
    assert_int_equal(f->ctx->dropped, 2);
    teardown_broker(f);
}

/* A delivered message never expires; requeued past its expiry it is
 * removed at once (dropped:expired); ttl 0 discards what cannot be
 * delivered at once. */
static void ttl_spares_deliveries_and_removes_expired_requeues(void **state)
{
    (void)state;
    fixture *f = setup_broker("{}", "{ messageTtl: 1s }");
    rec a;
    publish(f, 0, 1);
    subscribe(f, &a, 1, 0, 1);
    f->ctx->duration = 2 * SIM_S;
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    assert_int_equal(f->msgs[1]->id, 1);  /* still delivered, unexpired (not back in the pool) */
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[1], true);
    assert_int_equal(f->b->ops->depth(f->b, 0), 0);
    assert_int_equal(f->ctx->dropped, 1);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);

    f = setup_broker("{}", "{ messageTtl: 0s }");
    subscribe(f, &a, 1, 0, 1);
    publish(f, 0, 3);              /* m1 delivered at once, m2 and m3 discarded */
    expect_got(&a, "m1");
    assert_int_equal(f->b->ops->depth(f->b, 0), 0);
    assert_int_equal(f->ctx->dropped, 2);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    teardown_broker(f);
}

static const char *maxlen_case =
    "name: maxlen\n"
    "broker: { kind: rabbitmq }\n"
    "nodes: [ { start: 1s } ]\n"
    "queues:\n"
    "  - name: q\n"
    "    type: %s\n"
    "    maxLength: 100\n"
    "    overflow: %s\n"
    "    arrivals: { kind: burst, count: 150, at: 0s }\n"
    "    service: { kind: constant, value: 1ms }\n"
    "%s"
    "container: { kind: smlc, concurrency: '1' }\n";

static void run_maxlen(tu_fixture *fx, const char *type, const char *overflow, bool dlq)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, maxlen_case, type, overflow,
             dlq ? "    deadLetter: { queue: dlq }\n"
                   "  - name: dlq\n"
                   "    arrivals: { kind: phases, phases: [ { duration: 1s } ] }\n"
                   "    service: { kind: constant, value: 1ms }\n"
                 : "");
    tu_fixture_run(fx, yaml);
}

/* GC-9: max-length 100, a burst of 150, no consumer until 1 s: drop-head
 * keeps 51..150 (classic and quorum); reject-publish keeps 1..100 on a
 * classic queue, 1..101 on a quorum queue (it refuses once over, until
 * back to 80 %); with a dead-letter queue the 50 go there. */
static void gc9_max_length_burst(void **state)
{
    (void)state;
    static const struct { const char *type, *overflow, *rows; } cases[] = {
        { "classic", "drop-head", "acked|100|51|150\ndropped:maxlen|50|1|50\n" },
        { "quorum", "drop-head", "acked|100|51|150\ndropped:maxlen|50|1|50\n" },
        { "classic", "reject-publish", "acked|100|1|100\ndropped:maxlen|50|101|150\n" },
        { "quorum", "reject-publish", "acked|101|1|101\ndropped:maxlen|49|102|150\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_fixture fx = { 0 };
        run_maxlen(&fx, cases[i].type, cases[i].overflow, false);
        tu_expect_rows(fx.db, "select fate, count(*), min(msg), max(msg) from messages "
                              "group by fate order by fate",
                       cases[i].rows);
        tu_fixture_done(&fx);
    }
    tu_fixture fx = { 0 };
    run_maxlen(&fx, "classic", "drop-head", true);
    tu_expect_rows(fx.db, "select queue, fate, count(*) from messages group by 1, 2 "
                          "order by 1, 2",
                   "dlq|acked|50\nq|acked|100\nq|dead-lettered:maxlen|50\n");
    assert_int_equal((int)tu_metric(fx.r, "dead_lettered"), 50);
    tu_fixture_done(&fx);
}

/* ---- the network both ways ------------------------------------------------------------------ */

/* 4 ms of work, 50 ms each way (rtt 100 ms): a credit goes round in
 * 104 ms, so the consumer saturates at prefetch 26 = 104 / 4 (RabbitMQ's
 * "some queuing theory" note), not at 14 as with the acks instantaneous. */
static void prefetch_a_link_needs(void **state)
{
    (void)state;
    static const struct { const char *broker; int prefetch, completed; } cases[] = {
        { "{ kind: rabbitmq, rtt: 100ms }", 25, 14400 },
        { "{ kind: rabbitmq, rtt: 100ms }", 26, 14975 },
        { "{ kind: rabbitmq, dispatchLatency: 50ms, ackLatency: 0s }", 14, 14987 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: link\nduration: 60s\nbroker: %s\n"
                 "queue:\n  arrivals: { kind: burst, count: 100000, at: 0s }\n"
                 "  service: { kind: constant, value: 4ms }\n"
                 "container: { kind: smlc, concurrency: '1', prefetchCount: %d }\n",
                 cases[i].broker, cases[i].prefetch);
        cfg_doc doc;
        run *r = tu_run(yaml, NULL, SIM_DETAIL_SUMMARY, &doc);
        assert_int_equal((int)tu_metric(r, "completed"), cases[i].completed);
        tu_done(r, &doc);
    }
}

/* ActiveMQ under AUTO_ACKNOWLEDGE acknowledges inside receive(), before the
 * listener runs: a slot comes back 50 ms (ackLatency) after its message was
 * taken, so 4 ms of work needs a prefetch of 50 / 4 + 1 = 13; prefetch 1
 * gives one message per 50 ms. */
static void activemq_ack_latency(void **state)
{
    (void)state;
    static const struct { int prefetch, completed; } cases[] = {
        { 1, 1200 }, { 12, 14399 }, { 13, 14998 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: amq\nduration: 60s\n"
                 "broker: { kind: activemq, queuePrefetch: %d, ackLatency: 50ms }\n"
                 "queue:\n  arrivals: { kind: burst, count: 100000, at: 0s }\n"
                 "  service: { kind: constant, value: 4ms }\n"
                 "container: { kind: dmlc, concurrency: '1' }\n",
                 cases[i].prefetch);
        cfg_doc doc;
        run *r = tu_run(yaml, NULL, SIM_DETAIL_SUMMARY, &doc);
        assert_int_equal((int)tu_metric(r, "completed"), cases[i].completed);
        tu_done(r, &doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gc1_timeout_on_a_busy_channel),
        cmocka_unit_test(gc2_tick_rephased_by_hibernation),
        cmocka_unit_test(timeout_on_a_tick_closes_a_tick_later),
        cmocka_unit_test(queue_consumer_timeout_by_version),
        cmocka_unit_test(gc6_quorum_delivery_limit),
        cmocka_unit_test(gc6_quorum_default_limit_on_4x),
        cmocka_unit_test(gc7_quorum_without_limit_requeues_to_the_back),
        cmocka_unit_test(gc8_classic_requeues_to_the_head),
        cmocka_unit_test(gc4_brief_case),
        cmocka_unit_test(gc4_ten_seconds_tick_meets_ack),
        cmocka_unit_test(gc5_brief_case_quorum_nothing_lost),
        cmocka_unit_test(gc5_quorum_13s_loses_messages),
        cmocka_unit_test(gc6_delivery_limit_dead_letters),
        cmocka_unit_test(restart_leaves_the_scaling_state),
        cmocka_unit_test(gc12_poison_with_retry),
        cmocka_unit_test(gc13_poison_loops),
        cmocka_unit_test(poison_message_loop_stops),
        cmocka_unit_test(the_stop_does_not_depend_on_detail),
        cmocka_unit_test(batch_nack_takes_the_processed_message),
        cmocka_unit_test(group_fatal_and_no_requeue),
        cmocka_unit_test(stateful_retry_redelivers),
        cmocka_unit_test(direct_restarts_on_its_monitor),
        cmocka_unit_test(direct_poison_with_retry),
        cmocka_unit_test(gc10_requeue_versus_max_length),
        cmocka_unit_test(ttl_expires_at_the_head),
        cmocka_unit_test(ttl_spares_deliveries_and_removes_expired_requeues),
        cmocka_unit_test(gc9_max_length_burst),
        cmocka_unit_test(prefetch_a_link_needs),
        cmocka_unit_test(activemq_ack_latency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
