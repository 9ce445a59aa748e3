/* test_container_pool.c -- the pool of plain AMQP consumers (`kind: pool`):
 * RabbitMQ's round robin through the prefetch, a listener's failures as
 * nacks and rejects, a channel the broker closes and its replacement, and
 * container.queues leaving a dead-letter queue unconsumed.
 */
#include "testutil.h"

typedef tu_fixture result;

/* Four messages at 0 of 100 ms, two consumers registering one after the
 * other: with prefetch 1 RabbitMQ gives them in turn (m1, m3 to the first;
 * m2, m4 to the second), m3 only when m1's ack is back (100 ms); with
 * prefetch 2 the first consumer's basic.consume takes m1 and m2 at once,
 * before the second registers. */
static void prefetch_round_robin(void **state)
{
    (void)state;
    const char *yaml = "name: rr\nbroker: { kind: rabbitmq }\n"
                       "queue:\n  arrivals: { kind: burst, count: 4, at: 0s }\n"
                       "  service: { kind: constant, value: 100ms }\n"
                       "container: { kind: pool, consumers: 2, prefetch: %d }\n";
    char text[512];
    result res;
    snprintf(text, sizeof text, yaml, 1);
    tu_fixture_run(&res, text);
    tu_expect_rows(res.db, "select msg, consumer, t_deliver, t_begin, t_end from messages "
                   "order by msg", "1|1|0.0|0.0|100.0\n2|2|0.0|0.0|100.0\n"
                   "3|1|100.0|100.0|200.0\n4|2|100.0|100.0|200.0\n");
    tu_fixture_done(&res);
    snprintf(text, sizeof text, yaml, 2);
    tu_fixture_run(&res, text);
    tu_expect_rows(res.db, "select msg, consumer, t_deliver, t_begin from messages order by msg",
                   "1|1|0.0|0.0\n2|1|0.0|100.0\n3|2|0.0|0.0\n4|2|0.0|100.0\n");
    tu_fixture_done(&res);
}

/* cycleOverhead: the client's own time between two buffered messages, once
 * between each two (three messages of 10 ms in the buffer, 2 ms apart);
 * a consumer that finds its buffer empty begins the next at its delivery. */
static void cycle_overhead_between_buffered(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: cyc\nbroker: { kind: rabbitmq }\n"
                         "queue:\n  arrivals: { kind: phases, phases: [\n"
                         "    { duration: 100ms, arrivals: { kind: burst, count: 3 } },\n"
                         "    { duration: 1s, arrivals: { kind: burst, count: 1 } } ] }\n"
                         "  service: { kind: constant, value: 10ms }\n"
                         "container: { kind: pool, prefetch: 10, cycleOverhead: 2ms }\n");
    tu_expect_rows(res.db, "select msg, t_begin, t_end from messages order by msg",
                   "1|0.0|10.0\n2|12.0|22.0\n3|24.0|34.0\n4|100.0|110.0\n");
    tu_fixture_done(&res);
}

/* A poison message on a quorum queue with deliveryLimit 2: nacked back to
 * the front each time it fails (10 to 20, 20 to 30, 30 to 40 ms), and
 * dropped on its third return; a fatal failure is rejected without requeue
 * and dead-lettered. */
static void failures_nack_and_reject(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: poison\nbroker: { kind: rabbitmq, version: '3.13' }\n"
                         "queue:\n  type: quorum\n  deliveryLimit: 2\n"
                         "  arrivals: { kind: burst, count: 3, at: 0s }\n"
                         "  service: { kind: constant, value: 10ms }\n"
                         "container: { kind: pool, prefetch: 1, failures: [ {messages: [2]} ] }\n");
    tu_expect_rows(res.db, "select msg, deliveries, requeues, t_end, fate from messages order by msg",
                   "1|1|0|10.0|acked\n2|3|2|40.0|dropped:delivery_limit\n3|1|0|50.0|acked\n");
    /* Its history: first delivered at 10 ms (kept through the redeliveries
     * at 20 and 30), dropped at 40; an acked message leaves at its ack. */
    tu_expect_rows(res.db, "select msg, t_first_deliver, t_deliver, t_fate from messages "
                   "order by msg", "1|0.0|0.0|10.0\n2|10.0|30.0|40.0\n3|40.0|40.0|50.0\n");
    tu_fixture_done(&res);
    tu_fixture_run(&res, "name: fatal\nbroker: { kind: rabbitmq }\nduration: 1s\nqueues:\n"
                         "  - name: q\n    deadLetter: { queue: dlq }\n"
                         "    arrivals: { kind: burst, count: 2, at: 0s }\n"
                         "    service: { kind: constant, value: 10ms }\n"
                         "  - name: dlq\n    arrivals: { kind: phases, phases: [ {duration: 1s} ] }\n"
                         "    service: { kind: constant, value: 10ms }\n"
                         "container: { kind: pool, prefetch: 1, queues: [q],\n"
                         "  failures: [ {messages: [1], fatal: true} ] }\n");
    tu_expect_rows(res.db, "select msg, queue, fate from messages order by msg",
                   "1|q|dead-lettered:rejected\n2|q|acked\n3|dlq|unfinished\n");
    tu_fixture_done(&res);
}

/* consumer_timeout 2 s, channel ticks every 1 s from basic.consume (0):
 * three messages of 1.4 s sit in one consumer's buffer from 0.  At the tick
 * of 3 s the oldest unacknowledged delivery (m3, running since 2.8 s) is
 * older than 2 s: the channel closes, m3 goes back; its listener finishes
 * at 4.2 s without an ack, then a new consumer takes m3 again. */
static void consumer_timeout_replaces_the_channel(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: timeout\n"
                         "broker: { kind: rabbitmq, consumerTimeout: 2s, channelTickInterval: 1s }\n"
                         "queue:\n  arrivals: { kind: burst, count: 3, at: 0s }\n"
                         "  service: { kind: constant, value: 1400ms }\n"
                         "container: { kind: pool, prefetch: 3 }\n");
    tu_expect_rows(res.db, "select msg, consumer, deliveries, requeues, t_begin, t_end, fate "
                   "from messages order by msg",
                   "1|1|1|0|0.0|1400.0|acked\n2|1|1|0|1400.0|2800.0|acked\n"
                   "3|2|2|1|4200.0|5600.0|acked\n");
    /* m3 was first delivered at 0, into the buffer, and again at 4.2 s. */
    tu_expect_rows(res.db, "select t_first_deliver, t_deliver, t_fate from messages where msg = 3",
                   "0.0|4200.0|5600.0\n");
    tu_expect_rows(res.db, "select consumer, t_start, t_stop, stop_reason from consumers "
                   "order by consumer", "1|0.0|4200.0|channel-closed\n2|4200.0|5600.0|end\n");
    tu_expect_rows(res.db, "select t, action, rule from scaling order by t",
                   "3000.0|channel-closed|consumer_timeout\n4200.0|restart|restart\n");
    assert_int_equal((int)tu_metric(res.r, "consumer_timeouts"), 1);
    tu_fixture_done(&res);
}

/* RabbitMQ's TTL at the head (x-message-ttl 5 s, a DLX to dlq, which no
 * container consumes; prefetch 1, 3.3 s a message, ten messages 1 s apart):
 * deliveries at 0, 3.3, 6.6, 9.9 and 13.2 s of the 1st, 2nd, 3rd, 6th and
 * 10th; the other five expire at the head while the consumer is busy and
 * wait in dlq. */
static void ttl_at_head_with_an_unconsumed_dlq(void **state)
{
    (void)state;
    const char *yaml = "name: ttl\n%sbroker: { kind: rabbitmq }\nqueues:\n"
                       "  - name: q\n    count: 10\n    messageTtl: 5s\n"
                       "    deadLetter: { queue: dlq }\n"
                       "    arrivals: { kind: constant, rate: 1/s }\n"
                       "    service: { kind: constant, value: 3300ms }\n"
                       "  - name: dlq\n    arrivals: { kind: phases, phases: [ {duration: 1s} ] }\n"
                       "    service: { kind: constant, value: 1ms }\n"
                       "container: { kind: pool, prefetch: 1, queues: [q] }\n";
    char text[1024];
    snprintf(text, sizeof text, yaml, "duration: 20s\n");
    result res;
    tu_fixture_run(&res, text);
    tu_expect_rows(res.db, "select t_publish, t_deliver from messages where queue = 'q' and "
                   "t_deliver is not null order by msg", "0.0|0.0\n1000.0|3300.0\n"
                   "2000.0|6600.0\n5000.0|9900.0\n9000.0|13200.0\n");
    tu_expect_rows(res.db, "select queue, fate, count(*) from messages group by queue, fate "
                   "order by queue, fate", "dlq|unfinished|5\nq|acked|5\nq|dead-lettered:expired|5\n");
    /* An expired message leaves 5 s after its publication, never delivered;
     * one still in flight at the end (in dlq) has no t_fate. */
    tu_expect_rows(res.db, "select msg, t_first_deliver, t_fate from messages where "
                   "fate like 'dead-lettered:%' order by msg", "4|NULL|8000.0\n5|NULL|9000.0\n"
                   "7|NULL|11000.0\n8|NULL|12000.0\n10|NULL|13000.0\n");
    tu_expect_rows(res.db, "select count(*) from messages where queue = 'dlq' and t_fate is null",
                   "5\n");
    tu_fixture_done(&res);
    snprintf(text, sizeof text, yaml, "");
    cfg_doc doc;
    run *r;
    sim_diag d;
    assert_int_equal(tu_build(text, "scenarios/x.yaml", SIM_DETAIL_SUMMARY, &doc, &r, &d),
                     SIM_EINPUT);
    assert_non_null(strstr(d.msg, "a queue no container consumes keeps its messages for ever"));
    cfg_doc_free(&doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefetch_round_robin),
        cmocka_unit_test(cycle_overhead_between_buffered),
        cmocka_unit_test(failures_nack_and_reject),
        cmocka_unit_test(consumer_timeout_replaces_the_channel),
        cmocka_unit_test(ttl_at_head_with_an_unconsumed_dlq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
