/* test_broker_rabbitmq.c -- `broker.kind: rabbitmq` driven directly through
 * its ops with recording consumers: round-robin among consumers with room,
 * prefetch, requeue to the original place (golden case G8), cancel versus
 * channel close, priorities, single active consumer, a backlog's prefetch
 * on registration and dispatch latency.
 */
#include "testutil.h"
#include "core/model.h"

extern const broker_ops broker_rabbitmq;

typedef struct rec {
    consumer_port port;
    char name;
    uint64_t got[64];              /* message ids in delivery order */
    sim_time at[64];
    int n;
} rec;

typedef struct fixture {
    sim_ctx *ctx;
    broker *b;
    cfg_doc doc;
    sim_msg *msgs[64];             /* by id */
    rec *closing;                  /* dispatch_latency: the consumer whose channel closes */
} fixture;

static fixture *fx_of(void **state)
{
    return *state;
}

static void on_deliver(sim_ctx *ctx, consumer_port *p, sim_msg *m)
{
    rec *r = p->owner;
    r->got[r->n] = m->id;
    r->at[r->n++] = sim_now(ctx);
}

static const consumer_port_ops rec_ops = { .deliver = on_deliver };

static int setup_with(void **state, const char *yaml)
{
    fixture *f = xcalloc(1, sizeof *f);
    sim_diag d = { 0 };
    f->ctx = sim_ctx_create(1);
    if (cfg_load_string("t.yaml", yaml, strlen(yaml), &f->doc, &d) != SIM_OK ||
        broker_rabbitmq.create(f->ctx, f->doc.root, &f->b, &d) != SIM_OK)
        fail_msg("%s", d.msg);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, "{}");
}

static int teardown(void **state)
{
    fixture *f = *state;
    f->b->ops->destroy(f->b);
    sim_ctx_destroy(f->ctx);
    cfg_doc_free(&f->doc);
    free(f);
    return 0;
}

static void subscribe(fixture *f, rec *r, char name, int prefetch, int priority)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->port = (consumer_port){ .ops = &rec_ops, .owner = r, .node = 1, .id = name,
                               .queue = 0, .prefetch = prefetch, .priority = priority };
    f->b->ops->subscribe(f->ctx, f->b, &r->port);
}

static void publish(fixture *f, int n)
{
    for (int i = 0; i < n; i++) {
        sim_msg *m = sim_msg_create(f->ctx, 0);
        sim_msg_published(f->ctx, m);
        f->msgs[m->id] = m;
        f->b->ops->publish(f->ctx, f->b, m);
    }
}

static char *held(const rec *r)
{
    strbuf b = { 0 };
    sb_add(&b, "");
    for (int i = 0; i < r->n; i++)
        sb_addf(&b, "%sm%llu", i ? "," : "", (unsigned long long)r->got[i]);
    return sb_take(&b);
}

static void expect_got(const rec *r, const char *want)
{
    char *s = held(r);
    assert_string_equal(s, want);
    free(s);
}

/* G8: prefetch 2, A registered before B, m1..m6. */
static void g8_round_robin_prefetch_requeue(void **state)
{
    fixture *f = fx_of(state);
    rec a, b;
    subscribe(f, &a, 'A', 2, 0);
    subscribe(f, &b, 'B', 2, 0);
    publish(f, 6);
    expect_got(&a, "m1,m3");
    expect_got(&b, "m2,m4");
    assert_int_equal(f->b->ops->depth(f->b, 0), 2);
    f->b->ops->ack(f->ctx, f->b, &a.port, f->msgs[1]);
    expect_got(&a, "m1,m3,m5");
    /* A rejects m3 with requeue: back at the head, and A has room again */
    f->b->ops->reject(f->ctx, f->b, &a.port, f->msgs[3], true);
    expect_got(&a, "m1,m3,m5,m3");
    assert_true(f->msgs[3]->flags & SIM_MSG_REDELIVERED);
    assert_int_equal(sim_msg_requeues(f->ctx, f->msgs[3]), 1);
    f->b->ops->ack(f->ctx, f->b, &b.port, f->msgs[2]);
    expect_got(&b, "m2,m4,m6");
    assert_int_equal(f->b->ops->depth(f->b, 0), 0);
    /* A holds m5 and m3, B m4 and m6: settle them so nothing is left */
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[3]);
    f->b->ops->ack_upto(f->ctx, f->b, &b.port, f->msgs[6]);
}

/* A consumer registering while a backlog exists gets its prefetch at once;
 * prefetch 0 is unlimited. */
static void backlog_fills_prefetch_on_registration(void **state)
{
    fixture *f = fx_of(state);
    publish(f, 10);
    rec a, b;
    subscribe(f, &a, 'A', 3, 0);
    expect_got(&a, "m1,m2,m3");
    subscribe(f, &b, 'B', 0, 0);
    expect_got(&b, "m4,m5,m6,m7,m8,m9,m10");
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[3]);
    f->b->ops->ack_upto(f->ctx, f->b, &b.port, f->msgs[10]);
}

/* basic.cancel: no more deliveries, nothing requeued, acks still work;
 * channel close: what is unacknowledged goes back, in its original place. */
static void cancel_keeps_close_requeues(void **state)
{
    fixture *f = fx_of(state);
    rec a, b;
    subscribe(f, &a, 'A', 3, 0);
    publish(f, 6);                 /* A: m1..m3, m4..m6 ready */
    f->b->ops->cancel(f->ctx, f->b, &a.port);
    f->b->ops->ack(f->ctx, f->b, &a.port, f->msgs[1]);
    expect_got(&a, "m1,m2,m3");    /* room again, but cancelled */
    assert_int_equal(f->b->ops->depth(f->b, 0), 3);
    f->b->ops->unsubscribe(f->ctx, f->b, &a.port);
    assert_int_equal(f->b->ops->depth(f->b, 0), 5);
    subscribe(f, &b, 'B', 0, 0);
    expect_got(&b, "m2,m3,m4,m5,m6");   /* requeued m2, m3 ahead of m4 */
    assert_int_equal(sim_msg_requeues(f->ctx, f->msgs[2]), 1);
    assert_int_equal(sim_msg_requeues(f->ctx, f->msgs[4]), 0);
    f->b->ops->ack_upto(f->ctx, f->b, &b.port, f->msgs[6]);
}

/* nack multiple with requeue: every delivery up to the tag, back in order. */
static void nack_upto_requeues_in_order(void **state)
{
    fixture *f = fx_of(state);
    rec a;
    subscribe(f, &a, 'A', 3, 0);
    publish(f, 5);
    f->b->ops->nack_upto(f->ctx, f->b, &a.port, f->msgs[2], true);
    expect_got(&a, "m1,m2,m3,m1,m2");
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[2]);
    expect_got(&a, "m1,m2,m3,m1,m2,m4,m5");
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[5]);
}

/* Higher x-priority first while it has room; equal ones round-robin. */
static void priorities_then_round_robin(void **state)
{
    fixture *f = fx_of(state);
    rec lo, hi1, hi2;
    subscribe(f, &lo, 'L', 0, 0);
    subscribe(f, &hi1, 'H', 2, 5);
    subscribe(f, &hi2, 'I', 2, 5);
    publish(f, 6);
    expect_got(&hi1, "m1,m3");
    expect_got(&hi2, "m2,m4");
    expect_got(&lo, "m5,m6");
    f->b->ops->ack_upto(f->ctx, f->b, &hi1.port, f->msgs[3]);
    f->b->ops->ack_upto(f->ctx, f->b, &hi2.port, f->msgs[4]);
    f->b->ops->ack_upto(f->ctx, f->b, &lo.port, f->msgs[6]);
}

/* Blocking is lazy (rabbit_queue_consumers): a full consumer leaves the
 * ring only when dispatch reaches it, and comes back at the tail when an
 * ack gives it room. */
static void unblocked_consumer_goes_to_the_tail(void **state)
{
    fixture *f = fx_of(state);
    rec a, b, c;
    subscribe(f, &a, 'A', 0, 0);
    subscribe(f, &b, 'B', 0, 0);
    subscribe(f, &c, 'C', 1, 0);
    publish(f, 3);                 /* A m1, B m2, C m3: ring A B C */
    publish(f, 3);                 /* A m4, B m5, C full: blocked, A m6: ring B A */
    expect_got(&a, "m1,m4,m6");
    expect_got(&b, "m2,m5");
    expect_got(&c, "m3");
    f->b->ops->ack(f->ctx, f->b, &c.port, f->msgs[3]);   /* ring B A C */
    publish(f, 3);
    expect_got(&b, "m2,m5,m7");
    expect_got(&a, "m1,m4,m6,m8");
    expect_got(&c, "m3,m9");
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[8]);
    f->b->ops->ack_upto(f->ctx, f->b, &b.port, f->msgs[7]);
    f->b->ops->ack(f->ctx, f->b, &c.port, f->msgs[9]);
}

static int setup_sac(void **state)
{
    return setup_with(state, "{ singleActiveConsumer: true }");
}

/* Only the first registered consumer receives, even when full; the next
 * takes over when it cancels. */
static void single_active_consumer(void **state)
{
    fixture *f = fx_of(state);
    rec a, b;
    subscribe(f, &a, 'A', 2, 0);
    subscribe(f, &b, 'B', 2, 0);
    publish(f, 4);
    expect_got(&a, "m1,m2");
    expect_got(&b, "");
    f->b->ops->cancel(f->ctx, f->b, &a.port);
    expect_got(&b, "m3,m4");
    f->b->ops->ack_upto(f->ctx, f->b, &a.port, f->msgs[2]);
    f->b->ops->ack_upto(f->ctx, f->b, &b.port, f->msgs[4]);
}

static int setup_latency(void **state)
{
    return setup_with(state, "{ dispatchLatency: 3ms }");
}

static void on_publish_later(sim_ctx *ctx, void *self, void *arg)
{
    (void)ctx;
    publish(self, (int)(intptr_t)arg);
}

static void on_close_later(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    fixture *f = self;
    f->b->ops->unsubscribe(ctx, f->b, &f->closing->port);
}

static const sim_event_type ev_publish = { "test.publish", on_publish_later };
static const sim_event_type ev_close = { "test.close", on_close_later };

/* Deliveries reach the client dispatchLatency after the queue's decision;
 * a close before they arrive requeues them, and they never arrive. */
static void dispatch_latency(void **state)
{
    fixture *f = fx_of(state);
    rec a;
    f->closing = &a;
    f->ctx->duration = SIM_S;
    subscribe(f, &a, 'A', 0, 0);
    sim_schedule(f->ctx, 10 * SIM_MS, &ev_publish, f, (void *)(intptr_t)2);
    sim_schedule(f->ctx, 20 * SIM_MS, &ev_publish, f, (void *)(intptr_t)1);
    sim_schedule(f->ctx, 21 * SIM_MS, &ev_close, f, NULL);
    assert_int_equal(sim_run(f->ctx), SIM_OK);
    expect_got(&a, "m1,m2");
    assert_int_equal(a.at[0], 13 * SIM_MS);
    assert_int_equal(a.at[1], 13 * SIM_MS);
    assert_int_equal(f->b->ops->depth(f->b, 0), 3);   /* m1, m2 and m3, which never arrived */
    assert_int_equal(sim_msg_requeues(f->ctx, f->msgs[3]), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(g8_round_robin_prefetch_requeue, setup, teardown),
        cmocka_unit_test_setup_teardown(backlog_fills_prefetch_on_registration, setup, teardown),
        cmocka_unit_test_setup_teardown(cancel_keeps_close_requeues, setup, teardown),
        cmocka_unit_test_setup_teardown(nack_upto_requeues_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(priorities_then_round_robin, setup, teardown),
        cmocka_unit_test_setup_teardown(unblocked_consumer_goes_to_the_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(single_active_consumer, setup_sac, teardown),
        cmocka_unit_test_setup_teardown(dispatch_latency, setup_latency, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
