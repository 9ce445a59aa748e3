/* test_dmlc.c -- `container.kind: dmlc`, Spring's DefaultMessageListenerContainer:
 * setConcurrency() parsing, the golden cases G4 and G5 of
 * specs/spring-jms-activemq.md §4 exactly (and G5 on 4.3, 5.3 and 6.2),
 * idleConsumerLimit, runtime changes, cacheLevel NONE, several nodes on one
 * queue (subscription order and the node in every table), several queues,
 * CPU cores (processor sharing) and determinism.  Times in the database are
 * milliseconds.
 */
#include "testutil.h"

#include "spring_jms/dmlc.h"

typedef tu_fixture fixture;

/* ---- setConcurrency --------------------------------------------------------------- */

static void concurrency_is_parsed_as_spring_does(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int c, m;                  /* after setConcurrentConsumers, setMaxConcurrentConsumers */
    } good[] = {
        { "5", 1, 5 }, { "3-5", 3, 5 }, { "10-5", 10, 10 }, { "1-1", 1, 1 },
        { "+5", 1, 5 }, { "05", 1, 5 }, { "5-5", 5, 5 }, { "2-+3", 2, 3 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t lo, hi;
        const char *why = dmlc_parse_concurrency(good[i].text, &lo, &hi);
        if (why)
            fail_msg("'%s' refused: %s", good[i].text, why);
        dmlc_settings s = { .concurrent = 1, .max = 1 };
        dmlc_apply(&s, DMLC_SET_CONCURRENT, (int)lo);
        dmlc_apply(&s, DMLC_SET_MAX, (int)hi);
        if (s.concurrent != good[i].c || s.max != good[i].m)
            fail_msg("'%s' gave %d-%d, not %d-%d", good[i].text, s.concurrent, s.max, good[i].c,
                     good[i].m);
    }
    /* Integer.parseInt refuses these, or the setters' assertions do */
    static const char *const bad[] = {
        "", "-5", "5-", "a", "3-x", " 5", "5 ", "0", "0-5", "3--5", "3-5-7", "2147483648",
        "1-2147483648", "+", "5.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t lo, hi;
        if (!dmlc_parse_concurrency(bad[i], &lo, &hi))
            fail_msg("'%s' was accepted as %lld-%lld", bad[i], (long long)lo, (long long)hi);
    }
    /* setMaxConcurrentConsumers stores max(x, C) */
    dmlc_settings s = { .concurrent = 5, .max = 5 };
    dmlc_apply(&s, DMLC_SET_MAX, 3);
    assert_int_equal(s.max, 5);
}

/* "10-5" in a scenario starts 10 consumers and never more. */
static void ten_five_is_ten_ten(void **state)
{
    (void)state;
    fixture f;
    tu_fixture_run(&f, "name: tenfive\n"
                 "queue: { arrivals: { kind: burst, count: 200, at: 1s }, "
                 "service: { kind: constant, value: 10ms } }\n"
                 "broker: { kind: activemq, queuePrefetch: 1 }\n"
                 "container: { kind: dmlc, concurrency: 10-5, startLatency: 0s }\n");
    tu_expect_rows(f.db, "select count(*), max(consumers_after) from scaling", "10|10\n");
    tu_expect_rows(f.db, "select count(*) from consumers", "10\n");
    tu_fixture_done(&f);
}

/* ---- G4: scale-up blocked by hoarding --------------------------------------------- */

static const char *const g4 =
    "name: g4\n"
    "tail: 60s\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 500, at: 0s }\n"
    "  service: { kind: constant, value: 100ms }\n"
    "nodes: [ { start: 1s } ]\n"
    "broker: { kind: activemq, queuePrefetch: %d }\n"
    "container: { kind: dmlc, version: \"4.3\", concurrency: \"1-5\", startLatency: 0s%s }\n";

static void g4a_hoarding_blocks_scale_up(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, g4, 1000, "");
    fixture f;
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select t, action, consumers_after, rule from scaling",
           "1000.0|start|1|initial\n1000.0|start|2|message-received\n");
    tu_expect_rows(f.db, "select consumer, messages, stop_reason from consumers",
           "1|500|end\n2|0|end\n");
    tu_expect_rows(f.db, "select max(t_end) from messages", "51000.0\n");
    assert_true(tu_metric(f.r, "consumers_max") == 2);
    tu_fixture_done(&f);
    /* idleConsumerLimit 2: two idle invokers may wait, so I1's second
     * receipt adds I3 before the gate closes */
    snprintf(yaml, sizeof yaml, g4, 1000, ", idleConsumerLimit: 2");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumers_after, rule from scaling",
           "1|initial\n2|message-received\n3|message-received\n");
    tu_fixture_done(&f);
}

static void g4b_prefetch_one_scales_at_once(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, g4, 1, "");
    fixture f;
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select group_concat(t), group_concat(consumers_after) from scaling",
           "1000.0,1000.0,1000.0,1000.0,1000.0|1,2,3,4,5\n");
    tu_expect_rows(f.db, "select consumer, count(*) from messages group by consumer",
           "1|100\n2|100\n3|100\n4|100\n5|100\n");
    tu_expect_rows(f.db, "select max(t_end) from messages", "11000.0\n");
    /* 4.3 with the default executor never shrinks: still 5 after 60 s idle */
    tu_expect_rows(f.db, "select count(*) from consumers where stop_reason = 'end'", "5\n");
    tu_fixture_done(&f);
}

/* ---- G5: scale-down timing -------------------------------------------------------- */

/* 10 messages with prefetch 1: the five invokers get two each at 1 s and
 * end them at 3 s; C = 1, M = 5, receiveTimeout 1 s, idleTaskExecutionLimit 1. */
static const char *const g5 =
    "name: g5\n"
    "tail: 60s\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 10, at: 0s }\n"
    "  service: { kind: constant, value: 1s }\n"
    "nodes: [ { start: 1s } ]\n"
    "broker: { kind: activemq, queuePrefetch: 1 }\n"
    "container: { kind: dmlc, concurrency: \"1-5\", startLatency: 0s, %s }\n";

static void g5_scale_down_at_task_end(void **state)
{
    (void)state;
    static const struct {
        const char *settings;
        const char *stops;         /* t, consumers_after of each stop */
        const char *kept;          /* the consumers still there at the end */
    } cases[] = {
        /* MMPT 10 (thread pool): tasks of 10 receives, aligned at T0 = 11 s;
         * at T0 + 10 s I1..I4 see >= 2 idle and leave, I5 is alone idle */
        { "version: \"4.3\", taskExecutor: threadPool",
          "21000.0|4\n21000.0|3\n21000.0|2\n21000.0|1\n", "5\n" },
        { "version: \"4.3\", maxMessagesPerTask: 10",
          "21000.0|4\n21000.0|3\n21000.0|2\n21000.0|1\n", "5\n" },
        /* 4.3, default executor: the ongoing loop never ends a task */
        { "version: \"4.3\"", "", "1\n2\n3\n4\n5\n" },
        /* 6.2 default: surplus invokers (I2..I5) end a task after 10 idle
         * receives; the task with their last message ends at 13 s with a
         * message, the next at 23 s without: 20 s after the last message */
        { "version: \"6.2\"", "23000.0|4\n23000.0|3\n23000.0|2\n23000.0|1\n", "1\n" },
        /* 5.3 with idleReceivesPerTaskLimit 3: every task, core or not */
        { "version: \"5.3\", idleReceivesPerTaskLimit: 3",
          "9000.0|4\n9000.0|3\n9000.0|2\n9000.0|1\n", "5\n" },
        /* 5.3 default: off, so like 4.3 */
        { "version: \"5.3\"", "", "1\n2\n3\n4\n5\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, g5, cases[i].settings);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select count(*) from scaling where action = 'start'", "5\n");
        tu_expect_rows(f.db, "select t, consumers_after from scaling where action = 'stop'",
               cases[i].stops);
        tu_expect_rows(f.db, "select consumer from consumers where stop_reason = 'end'", cases[i].kept);
        if (cases[i].stops[0])
            tu_expect_rows(f.db, "select distinct rule from scaling where action = 'stop'", "idle-task\n");
        tu_fixture_done(&f);
    }
}

/* ---- runtime changes ---------------------------------------------------------------- */

/* Raising the counts at 5 s starts nothing; the message at 10 s makes I1
 * add one invoker, which then stays idle and holds the gate. */
static void raising_concurrency_starts_nothing(void **state)
{
    (void)state;
    fixture f;
    tu_fixture_run(&f, "name: raise\n"
                 "queue: { arrivals: { kind: burst, count: 1, at: 10s }, "
                 "service: { kind: constant, value: 1s } }\n"
                 "broker: { kind: activemq }\n"
                 "container: { kind: dmlc, concurrency: \"1-1\", startLatency: 0s,\n"
                 "  changes: [ { at: 5s, concurrency: \"3-3\" } ] }\n");
    tu_expect_rows(f.db, "select t, consumers_after, rule from scaling",
           "0.0|1|initial\n10000.0|2|message-received\n");
    tu_fixture_done(&f);
}

/* ---- cacheLevel NONE: a consumer per receive ---------------------------------------- */

/* Two invokers, prefetch 1000, 6 messages at 1 ms, S = 1 s.  With
 * cacheLevel CONSUMER they alternate.  With NONE (a transaction manager,
 * cacheLevel auto) each receive opens a consumer that is sent its share of
 * the backlog; when the listener returns the consumer closes and its buffer
 * goes back to whoever is subscribed: at 1.001 s I1 closes and m3, m5 go to
 * I2's consumer behind m4, m6; I2 closes and all four go to I1's new one,
 * and so on.  m3 is put back 4 times, m5 5 times; m4 and m6 end before m3. */
static void cache_none_churns_consumers(void **state)
{
    (void)state;
    const char *fmt =
        "name: none\n"
        "queue: { arrivals: { kind: burst, count: 6, at: 1ms }, "
        "service: { kind: constant, value: 1s } }\n"
        "broker: { kind: activemq }\n"
        "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s, %s }\n";
    char yaml[512];
    fixture f;
    snprintf(yaml, sizeof yaml, fmt, "cacheLevel: consumer");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, group_concat(msg) from (select * from messages order by t_begin)"
               " group by consumer", "1|1,3,5\n2|2,4,6\n");
    assert_true(tu_metric(f.r, "requeues") == 0);
    assert_true(tu_metric(f.r, "order_inversions") == 0);
    tu_fixture_done(&f);
    snprintf(yaml, sizeof yaml, fmt, "transactionManager: true");   /* auto -> none */
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, group_concat(msg) from (select * from messages order by t_begin)"
               " group by consumer", "1|1,4,3\n2|2,6,5\n");
    tu_expect_rows(f.db, "select group_concat(requeues) from (select * from messages order by msg)",
           "0,0,4,1,5,2\n");
    assert_true(tu_metric(f.r, "requeues") == 12);
    assert_true(tu_metric(f.r, "order_inversions") == 2);
    tu_fixture_done(&f);
}

/* ---- several nodes: "concurrency 5 on 3 servers" ---------------------------------- */

/* Three nodes of 5-5 and 15 sequential groups: the broker assigns new groups
 * to consumers in subscription order, which is node start order. */
static void nodes_subscribe_in_start_order(void **state)
{
    (void)state;
    const char *fmt =
        "name: ha\n"
        "sample_interval: 1s\n"
        "queue:\n"
        "  arrivals: { kind: burst, count: 30, at: 3s }\n"
        "  service: { kind: constant, value: 100ms }\n"
        "  groups: { kind: sequential, count: 15 }\n"
        "nodes: %s\n"
        "broker: { kind: activemq }\n"
        "container: { kind: dmlc, concurrency: \"5-5\" }\n";
    char yaml[1024];
    fixture f;
    snprintf(yaml, sizeof yaml, fmt, "3");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select count(*), count(distinct node), sum(messages) from consumers", "15|3|30\n");
    tu_expect_rows(f.db, "select group_concat(node || '.' || consumer) from (select node, consumer, "
               "min(msg) m from messages group by node, consumer order by m)",
               "1.1,1.2,1.3,1.4,1.5,2.1,2.2,2.3,2.4,2.5,3.1,3.2,3.3,3.4,3.5\n");
    /* every table carries the node */
    tu_expect_rows(f.db, "select group_concat(distinct node) from scaling", "1,2,3\n");
    tu_expect_rows(f.db, "select group_concat(distinct node) from samples", "1,2,3\n");
    tu_expect_rows(f.db, "select count(distinct node) from consumer_metrics", "3\n");
    tu_expect_rows(f.db, "select count(*) from messages where node not between 1 and 3", "0\n");
    tu_fixture_done(&f);
    snprintf(yaml, sizeof yaml, fmt, "[ { start: 2s }, { start: 1s }, { start: 0s } ]");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select group_concat(node || '.' || consumer) from (select node, consumer, "
               "min(msg) m from messages group by node, consumer order by m)",
               "3.1,3.2,3.3,3.4,3.5,2.1,2.2,2.3,2.4,2.5,1.1,1.2,1.3,1.4,1.5\n");
    tu_fixture_done(&f);
}

/* perQueue: the data queue's listener runs 5-5, the other the default 1-5. */
static void per_queue_concurrency(void **state)
{
    (void)state;
    fixture f;
    tu_fixture_run(&f, "name: perqueue\n"
                 "queues:\n"
                 "  - { name: data, arrivals: { kind: burst, count: 1, at: 1s },\n"
                 "      service: { kind: constant, value: 1s } }\n"
                 "  - { name: events, arrivals: { kind: burst, count: 1, at: 1s },\n"
                 "      service: { kind: constant, value: 1s } }\n"
                 "broker: { kind: activemq }\n"
                 "container: { kind: dmlc, concurrency: \"1-5\",\n"
                 "             perQueue: { data: { concurrency: \"5-5\" } } }\n");
    tu_expect_rows(f.db, "select queue, count(*) from consumers group by queue order by queue",
           "data|5\nevents|2\n");
    tu_fixture_done(&f);
}

/* ---- CPU: more listeners than cores ------------------------------------------------- */

/* Four invokers each take one 1 s message at 1 ms.  With 2 cores the four
 * share them (processor sharing): each runs at half speed and ends at 2 s;
 * 8 messages end at 2 s and 4 s.  With 4 cores, or no limit, 1 s. */
static void cores_stretch_service_times(void **state)
{
    (void)state;
    static const struct {
        const char *host;
        int count;
        const char *ends;
    } cases[] = {
        { "host: { cores: 2 }\n", 4, "2001.0|4\n" },
        { "host: { cores: 2 }\n", 8, "2001.0|4\n4001.0|4\n" },
        { "host: { cores: 4 }\n", 4, "1001.0|4\n" },
        { "host: { cores: 3 }\n", 3, "1001.0|3\n" },
        { "", 4, "1001.0|4\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: cpu\n%s"
                 "queue: { arrivals: { kind: burst, count: %d, at: 1ms }, "
                 "service: { kind: constant, value: 1s } }\n"
                 "broker: { kind: activemq }\n"
                 "container: { kind: dmlc, concurrency: \"4-4\", startLatency: 0s }\n",
                 cases[i].host, cases[i].count);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select t_end, count(*) from messages group by t_end order by t_end",
               cases[i].ends);
        tu_fixture_done(&f);
    }
}

/* bufferedReceiveLag: a receive within a task that finds its message in
 * the buffer returns that late; a task's first receive does not pay it (the
 * reschedule does).  One invoker, a burst of 4 at 1 ms, 10 ms each, 2 ms. */
static void buffered_receive_lag_within_a_task(void **state)
{
    (void)state;
    static const struct {
        const char *per_task;
        const char *begins;
    } cases[] = {
        { "", "1.0\n13.0\n25.0\n37.0\n" },
        { ", maxMessagesPerTask: 2", "1.0\n13.0\n23.0\n35.0\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: buffered\n"
                 "queue: { arrivals: { kind: burst, count: 4, at: 1ms }, "
                 "service: { kind: constant, value: 10ms } }\n"
                 "broker: { kind: activemq }\n"
                 "container: { kind: dmlc, concurrency: \"1-1\", startLatency: 0s, "
                 "bufferedReceiveLag: 2ms%s }\n", cases[i].per_task);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select t_begin from messages order by t_begin", cases[i].begins);
        tu_fixture_done(&f);
    }
}

/* ---- determinism ---------------------------------------------------------------------- */

static char *dump_run(const char *dir, const char *file)
{
    static const char *const yaml =
        "name: jms-determinism\n"
        "seed: 9\n"
        "duration: 40s\n"
        "host: { cores: 2 }\n"
        "queue:\n"
        "  arrivals: { kind: poisson, rate: 30/s }\n"
        "  service: { kind: lognormal, mean: 80ms, sigma: 0.7 }\n"
        "  groups: { kind: zipf, count: 40, s: 1.1, closeEvery: 25 }\n"
        "nodes: [ { start: 0s }, { start: 3s } ]\n"
        "broker: { kind: activemq, queuePrefetch: 5, maxPageSize: 20, groupMapSize: 16 }\n"
        "container: { kind: dmlc, concurrency: \"1-4\", changes: [ { at: 20s, "
        "maxConcurrentConsumers: 2 } ] }\n";
    static const char *const queries[] = {
        "select * from messages order by rowid", "select * from consumers order by rowid",
        "select * from scaling order by rowid", "select * from consumer_metrics order by rowid",
        "select * from summary where metric <> 'events' order by rowid",
    };
    char *db = tu_path(dir, file);
    cfg_doc doc;
    run *r = tu_run(yaml, db, SIM_DETAIL_MESSAGES, &doc);
    tu_done(r, &doc);
    strbuf b = { 0 };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        char *t = tu_db_text(db, queries[i]);
        sb_add(&b, t);
        free(t);
    }
    free(db);
    return sb_take(&b);
}

static void same_seed_same_jms_run(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *a = dump_run(dir, "a.db"), *b = dump_run(dir, "b.db");
    assert_true(strlen(a) > 20000);
    assert_string_equal(a, b);
    free(a);
    free(b);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrency_is_parsed_as_spring_does),
        cmocka_unit_test(ten_five_is_ten_ten),
        cmocka_unit_test(g4a_hoarding_blocks_scale_up),
        cmocka_unit_test(g4b_prefetch_one_scales_at_once),
        cmocka_unit_test(g5_scale_down_at_task_end),
        cmocka_unit_test(raising_concurrency_starts_nothing),
        cmocka_unit_test(cache_none_churns_consumers),
        cmocka_unit_test(nodes_subscribe_in_start_order),
        cmocka_unit_test(per_queue_concurrency),
        cmocka_unit_test(cores_stretch_service_times),
        cmocka_unit_test(buffered_receive_lag_within_a_task),
        cmocka_unit_test(same_seed_same_jms_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
