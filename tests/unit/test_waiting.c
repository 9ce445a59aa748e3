/* test_waiting.c -- where messages wait (sim/engine/waiting.c), as the samples show
 * it: ready in the broker per queue, prefetched and unacknowledged per node
 * and queue.  The engine's account must agree with what the messages table
 * says happened, whatever the broker and the container.
 */
#include "testutil.h"

typedef tu_fixture result;

/* At every sample instant t, from the messages table: published by t and
 * not yet delivered (ready), delivered and not begun (prefetched),
 * delivered and not ended (unacked with auto-ack brokers, where a message
 * is done when it ends).  The samples must give the same numbers. */
static const char *const mismatch_sql =
    "SELECT count(*) FROM samples s WHERE s.queue_depth != (SELECT count(*) FROM messages m"
    "  WHERE m.queue = s.queue AND m.t_publish <= s.t AND (m.t_deliver IS NULL OR m.t_deliver > s.t))"
    " OR s.prefetched != (SELECT count(*) FROM messages m WHERE m.queue = s.queue"
    "  AND m.node = s.node AND m.t_deliver <= s.t AND (m.t_begin IS NULL OR m.t_begin > s.t))";

static void rabbitmq_smlc_ready_and_prefetched_match_the_messages(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: w\nqueue:\n  arrivals: { kind: burst, count: 400, at: 0s }\n"
                         "  service: { kind: constant, value: 50ms }\n"
                         "broker: { kind: rabbitmq }\n"
                         "container: { kind: smlc, concurrency: \"2-4\", prefetchCount: 20 }\n");
    assert_int_equal((int)tu_db_double(res.db, "select count(*) from samples"),
                     (int)tu_db_double(res.db, "select count(distinct t) from samples"));
    assert_int_equal((int)tu_db_double(res.db, mismatch_sql), 0);
    /* prefetch 20 per consumer: 20 delivered and not acknowledged to each
     * consumer while the burst lasts, the most consumers at once */
    int most = (int)tu_metric(res.r, "consumers_max");
    assert_true(most >= 2 && most <= 4);
    assert_int_equal((int)tu_db_double(res.db, "select max(unacked) from samples"), 20 * most);
    assert_int_equal((int)tu_metric(res.r, "unacked_max"), 20 * most);
    /* the two first consumers take 20 each as the burst is published */
    assert_int_equal((int)tu_metric(res.r, "ready_max"), 400 - 2 * 20);
    /* unacked holds the prefetched and the running ones */
    assert_int_equal((int)tu_db_double(res.db, "select count(*) from samples"
                                                " where unacked < prefetched + busy"), 0);
    tu_fixture_done(&res);
}

/* Two queues, two nodes: a row per node and queue; the queue's ready count
 * is the same on both nodes' rows. */
static void a_row_per_node_and_queue(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: w2\nduration: 20s\nnodes: 2\nqueues:\n"
                         "  - { name: a, arrivals: { kind: constant, rate: 40/s },"
                         " service: { kind: constant, value: 100ms } }\n"
                         "  - { name: b, arrivals: { kind: constant, rate: 5/s },"
                         " service: { kind: constant, value: 100ms } }\n"
                         "container: { kind: direct, consumersPerQueue: 1 }\n");
    tu_expect_rows(res.db, "select node, queue, count(*) from samples group by 1, 2",
                   "1|a|21\n1|b|21\n2|a|21\n2|b|21\n");
    assert_int_equal((int)tu_db_double(res.db, "select count(*) from samples x join samples y"
                                                " on x.t = y.t and x.queue = y.queue"
                                                " where x.queue_depth != y.queue_depth"), 0);
    assert_int_equal((int)tu_db_double(res.db, mismatch_sql), 0);
    assert_int_equal((int)tu_db_double(res.db, "select max(consumers) from samples"), 1);
    tu_fixture_done(&res);
}

/* A pull broker hands a message straight to a listener: never prefetched. */
static void pull_broker_messages_are_never_prefetched(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: w3\nqueue:\n  arrivals: { kind: burst, count: 50, at: 0s }\n"
                         "  service: { kind: constant, value: 1s }\n"
                         "broker: { kind: pull }\ncontainer: { kind: competing, workers: 3 }\n");
    assert_int_equal((int)tu_db_double(res.db, mismatch_sql), 0);
    /* a sample at t shows the state after the events at t: the workers have
     * taken their first three */
    tu_expect_rows(res.db, "select queue_depth, prefetched, unacked, busy from samples"
                           " where t = 0", "47|0|3|3\n");
    assert_int_equal((int)tu_db_double(res.db, "select max(prefetched) from samples"), 0);
    tu_fixture_done(&res);
}

/* Where a delivered message waits is its delivery record's node (a record
 * from a pool of 1,024-record blocks, sim/engine/message.c): 3,000 messages
 * delivered at once to two nodes take three blocks, and every count and
 * row still agrees with what happened to each message. */
static void deliveries_beyond_a_block_of_records(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: w3\nnodes: 2\nqueue:\n"
                         "  arrivals: { kind: burst, count: 3000, at: 0s }\n"
                         "  service: { kind: constant, value: 1ms }\n"
                         "broker: { kind: rabbitmq }\n"
                         "container: { kind: smlc, concurrency: \"1-1\", prefetchCount: 1500 }\n");
    assert_int_equal((int)tu_db_double(res.db, mismatch_sql), 0);
    assert_int_equal((int)tu_metric(res.r, "unacked_max"), 3000);
    tu_expect_rows(res.db, "select node, count(*), sum(deliveries), sum(requeues),"
                           " count(t_deliver), count(t_begin), count(t_end) from messages"
                           " group by node order by node",
                   "1|1500|1500|0|1500|1500|1500\n2|1500|1500|0|1500|1500|1500\n");
    tu_expect_rows(res.db, "select fate, count(*) from messages group by fate", "acked|3000\n");
    tu_fixture_done(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rabbitmq_smlc_ready_and_prefetched_match_the_messages),
        cmocka_unit_test(a_row_per_node_and_queue),
        cmocka_unit_test(pull_broker_messages_are_never_prefetched),
        cmocka_unit_test(deliveries_beyond_a_block_of_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
