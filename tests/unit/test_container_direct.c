/* test_container_direct.c -- DirectMessageListenerContainer: the
 * amqp-client pool bounds the listeners running at once (golden case G10c),
 * its blocks of 16 deliveries per channel, setConsumersPerQueue at runtime
 * and acks by messagesPerAck and ackTimeout.
 */
#include "testutil.h"

typedef tu_fixture result;

#define QUEUE(name)                                                                        \
    "  - { name: " name ", arrivals: { kind: burst, count: 2000 },"                        \
    " service: { kind: constant, value: 100ms } }\n"

#define G10C(extra)                                                                        \
    "name: g10c\nduration: 10s\nhost: { cores: 8 }\nqueues:\n" QUEUE("a") QUEUE("b")      \
    QUEUE("c") "container:\n  kind: direct\n  consumersPerQueue: 4\n" extra

static void expect_parallel(const char *yaml, int consumers, int listeners)
{
    result res;
    tu_fixture_run(&res, yaml);
    assert_int_equal((int)tu_metric(res.r, "consumers_max"), consumers);
    /* samples has a row per node and queue: the node's busy is their sum */
    assert_int_equal((int)tu_db_double(res.db, "select max(b) from (select sum(busy) b from "
                                       "samples group by t, node)"), listeners);
    assert_int_equal((int)tu_db_double(res.db, "select min(b) from (select sum(busy) b from "
                                       "samples where t > 0 group by t, node)"), listeners);
    tu_fixture_done(&res);
}

/* G10c: 3 queues x 4 consumers on one connection, 8 cores: 8 listeners at
 * once from amqp-client 5.15 (Spring AMQP 3.0 on), 16 threads (so all 12)
 * up to 5.14 (Spring AMQP 2.x), or what clientThreads says. */
static void g10c_pool_bounds_the_listeners(void **state)
{
    (void)state;
    expect_parallel(G10C(""), 12, 8);
    expect_parallel(G10C("  amqpClientVersion: \"5.14\"\n"), 12, 12);
    expect_parallel(G10C("  version: \"2.4\"\n"), 12, 12);
    expect_parallel(G10C("  clientThreads: 3\n"), 12, 3);
}

/* One thread, two channels: a free thread takes the channel at the head of
 * the ready FIFO and runs up to 16 of the deliveries waiting then.  m1 is
 * published before the consumers register and goes to consumer 1 as it
 * registers; the round-robin then gives it m2 too (33 and 31 messages).  The
 * first block holds m1 alone (the rest arrive while it runs). */
static void blocks_of_16_per_channel(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: blk\nqueue:\n  arrivals: { kind: burst, count: 64, at: 0s }\n"
             "  service: { kind: constant, value: 10ms }\n"
             "container: { kind: direct, consumersPerQueue: 2, clientThreads: 1, prefetchCount: 0 }\n");
    char *order = tu_db_text(res.db, "select consumer from messages order by t_begin");
    strbuf runs = { 0 };
    sb_add(&runs, "");
    char prev = 0;
    int n = 0;
    for (const char *p = order; *p; p += 2) {
        if (*p != prev && n) {
            sb_addf(&runs, "%cx%d ", prev, n);
            n = 0;
        }
        prev = *p;
        n++;
    }
    sb_addf(&runs, "%cx%d", prev, n);
    assert_string_equal(runs.s, "1x1 2x16 1x16 2x15 1x16");
    sb_free(&runs);
    free(order);
    tu_fixture_done(&res);
}

/* setConsumersPerQueue: up adds at the lowest free index; down cancels the
 * consumer at list index 0 (the oldest), which still runs the deliveries it
 * has (prefetch 10: the one in hand and 9 more), acks them and closes. */
static void consumers_per_queue_at_runtime(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: cpq\nduration: 20s\n"
             "queue:\n  arrivals: { kind: burst, count: 10000, at: 0s }\n"
             "  service: { kind: constant, value: 100ms }\n"
             "container:\n  kind: direct\n  consumersPerQueue: 2\n  prefetchCount: 10\n"
             "  changes: [ { at: 5s, consumersPerQueue: 3 }, { at: 10s, consumersPerQueue: 1 } ]\n");
    char *rows = tu_db_text(res.db, "select t, action, consumers_after, rule from scaling");
    assert_string_equal(rows, "5000.0|start|3|setConsumersPerQueue\n"
                              "10000.0|stop|2|setConsumersPerQueue\n"
                              "10000.0|stop|1|setConsumersPerQueue\n");
    char *cons = tu_db_text(res.db, "select consumer, t_start, t_stop, stop_reason from consumers "
                                    "order by consumer");
    assert_string_equal(cons, "1|0.0|10900.0|change\n2|0.0|10900.0|change\n"
                              "3|5000.0|20000.0|end\n");
    assert_int_equal((int)tu_metric(res.r, "requeues"), 0);
    free(rows);
    free(cons);
    tu_fixture_done(&res);
}

/* messagesPerAck 10 with prefetch 10: the broker sends the 11th message
 * only when the 10th is acked, at 1 s; acked one by one it comes at 100 ms. */
static void messages_per_ack_holds_the_prefetch(void **state)
{
    (void)state;
    static const char *const extra[] = { "messagesPerAck: 10", "messagesPerAck: 0" };
    static const double expect[] = { 1000.0, 100.0 };
    for (int i = 0; i < 2; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "name: mpa\nqueue:\n  arrivals: { kind: burst, count: 30, at: 0s }\n"
                 "  service: { kind: constant, value: 100ms }\n"
                 "container: { kind: direct, prefetchCount: 10, %s }\n", extra[i]);
        result res;
        tu_fixture_run(&res, yaml);
        assert_true(tu_db_double(res.db, "select t_deliver from messages where msg = 11") ==
                    expect[i]);
        tu_fixture_done(&res);
    }
}

/* Five messages and messagesPerAck 100: the acks wait for the monitor task
 * (every 5 s) to find them older than ackTimeout (20 s): at 25 s. */
static void ack_timeout_flushes_pending_acks(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: ackto\nqueue:\n  arrivals: { kind: burst, count: 5, at: 0s }\n"
             "  service: { kind: constant, value: 100ms }\n"
             "container: { kind: direct, messagesPerAck: 100 }\n");
    assert_true(tu_metric(res.r, "duration_s") == 25.0);
    assert_int_equal((int)tu_metric(res.r, "completed"), 5);
    tu_fixture_done(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g10c_pool_bounds_the_listeners),
        cmocka_unit_test(blocks_of_16_per_channel),
        cmocka_unit_test(consumers_per_queue_at_runtime),
        cmocka_unit_test(messages_per_ack_holds_the_prefetch),
        cmocka_unit_test(ack_timeout_flushes_pending_acks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
