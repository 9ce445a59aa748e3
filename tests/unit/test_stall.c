/* test_stall.c -- runs bounded by their messages that could never end.
 *
 * A run without a duration ends when its last message has ended.  A poison
 * message requeued for ever, or messages nobody takes while timers keep
 * firing, would keep it going for ever; the engine stops such a run with a
 * warning (watch_stall, sim/engine/engine.c).  A run that is merely slow must not
 * be stopped.  The poison message's stop is in test_rabbitmq_failures.c,
 * beside GC-13 whose case it runs without the duration.
 */
#include "testutil.h"

#include <string.h>

#define DAY ((sim_time)86400 * 1000 * SIM_MS)

static const sim_event_type poll_type;

/* self: the poll's interval */
static void on_poll(sim_ctx *ctx, void *self, void *arg)
{
    sim_schedule(ctx, *(const sim_time *)self, &poll_type, self, arg);
}

/* Runs one message that nothing takes, with a poll every `interval`. */
static sim_ctx *run_polled(sim_time interval)
{
    sim_ctx *ctx = sim_ctx_create(1);
    sim_queue_register(ctx, "q");
    sim_msg_published(ctx, sim_msg_create(ctx, 0));
    sim_schedule(ctx, 0, &poll_type, &interval, NULL);
    assert_int_equal(sim_run(ctx), SIM_OK);
    return ctx;
}

static const sim_event_type poll_type = { "poll", on_poll };

/* A message nobody takes while a poll runs every 8 ms: a day of virtual
 * time is 10.8 million events, past the ten million asked, so the run stops
 * at the first check past a day from the check that saw the message (the
 * checks come every 1,024 events: 8.192 s here). */
static void nothing_taken_stops_after_a_day(void **state)
{
    (void)state;
    sim_ctx *ctx = run_polled(8 * SIM_MS);
    assert_true(sim_now(ctx) >= DAY && sim_now(ctx) <= DAY + 2 * 1024 * 8 * SIM_MS);
    assert_int_equal((int)ctx->nwarnings, 1);
    assert_non_null(strstr(ctx->warnings[0], "no message had ended for 86"));
    sim_ctx_destroy(ctx);
}

/* The same with a poll every 100 ms: a day is 864,000 events, too few;
 * the run goes on until ten million events, 11.6 days. */
static void sparse_polls_stop_at_ten_million_events(void **state)
{
    (void)state;
    sim_ctx *ctx = run_polled(100 * SIM_MS);
    assert_true(sim_now(ctx) > 11 * DAY);
    assert_true(ctx->events >= 10000000 && ctx->events <= 10000000 + 2 * 1024);
    assert_int_equal((int)ctx->nwarnings, 1);
    sim_ctx_destroy(ctx);
}

typedef struct long_job {
    sim_msg *m;
    bool done;
    sim_time interval;
} long_job;

static const sim_event_type job_poll_type;

static void on_job_poll(sim_ctx *ctx, void *self, void *arg)
{
    long_job *j = self;
    if (!j->done)
        sim_schedule(ctx, j->interval, &job_poll_type, j, arg);
}

static const sim_event_type job_poll_type = { "job-poll", on_job_poll };

static void on_job_end(sim_ctx *ctx, void *self, void *arg)
{
    (void)arg;
    long_job *j = self;
    sim_msg_end(ctx, j->m);
    sim_msg_done(ctx, j->m);
    j->done = true;
}

static const sim_event_type job_end_type = { "job-end", on_job_end };

/* A listener runs one 30-hour message while another consumer polls every
 * 8 ms (13.5 million events): a day passes with ten million events and no
 * message ended, but a listener is running, so the run goes on to the end. */
static void a_running_listener_is_not_stopped(void **state)
{
    (void)state;
    sim_ctx *ctx = sim_ctx_create(1);
    sim_set_nodes(ctx, 1);
    sim_queue_register(ctx, "q");
    int consumer = sim_consumer_started(ctx, 1, 0);
    long_job j = { .m = sim_msg_create(ctx, 0), .interval = 8 * SIM_MS };
    sim_msg_published(ctx, j.m);
    sim_msg_delivered_begin(ctx, j.m, 1, consumer);
    sim_schedule(ctx, 30 * 3600 * 1000 * SIM_MS, &job_end_type, &j, NULL);
    sim_schedule(ctx, 0, &job_poll_type, &j, NULL);
    assert_int_equal(sim_run(ctx), SIM_OK);
    assert_true(j.done);
    assert_int_equal((int)ctx->nwarnings, 0);
    assert_true(sim_now(ctx) >= 30 * 3600 * 1000 * SIM_MS);
    sim_ctx_destroy(ctx);
}

/* Slow but ending: two messages of 30 hours each on one worker, polled by
 * nothing.  No warning, both processed. */
static void slow_messages_are_not_stopped(void **state)
{
    (void)state;
    tu_fixture fx = { 0 };
    tu_fixture_run(&fx, "name: slow\n"
                        "queue:\n"
                        "  arrivals: { kind: burst, count: 2, at: 0s }\n"
                        "  service: { kind: constant, value: 30h }\n"
                        "container: { kind: competing, workers: 1 }\n");
    assert_int_equal((int)tu_metric(fx.r, "completed"), 2);
    tu_expect_rows(fx.db, "select msg, t_end from messages",
                   "1|108000000.0\n2|216000000.0\n");
    assert_int_equal((int)fx.r->ctx->nwarnings, 0);
    tu_fixture_done(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_running_listener_is_not_stopped),
        cmocka_unit_test(nothing_taken_stops_after_a_day),
        cmocka_unit_test(sparse_polls_stop_at_ten_million_events),
        cmocka_unit_test(slow_messages_are_not_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
