/* test_container_smlc.c -- SimpleMessageListenerContainer against the golden
 * cases of specs/spring-amqp.md section 5 (exact times and counts, from the
 * scaling, consumers and messages tables), the documented rules, the
 * version differences of runtime changes, consumersLock and setConcurrency's
 * parser.
 *
 * Unless a case says otherwise: timing model M0 (no latencies, ε = 0),
 * service 100 ms, a backlog that never runs out within the run.
 */
#include "testutil.h"
#include "spring_amqp/smlc.h"

/* ---- helpers --------------------------------------------------------------- */

typedef tu_fixture result;

static char *query(const result *res, const char *sql)
{
    return tu_db_text(res->db, sql);
}

/* Runs `yaml` and compares one query's rows with `expected`. */
static void expect_rows(const char *yaml, const char *sql, const char *expected)
{
    result res;
    tu_fixture_run(&res, yaml);
    char *got = query(&res, sql);
    assert_string_equal(got, expected);
    free(got);
    tu_fixture_done(&res);
}

static const char *SCALING = "select t, action, consumers_after, rule from scaling order by rowid";

/* A queue that is never empty: 20000 messages at t = 0. */
#define BACKLOG(service)                                                                   \
    "queue:\n"                                                                             \
    "  arrivals: { kind: burst, count: 20000, at: 0s }\n"                                  \
    "  service: { kind: constant, value: " service " }\n"

/* ---- G1: default scale-up ----------------------------------------------------- */

static void g1_code_starts_at_1_2_12_0_22_8(void **state)
{
    (void)state;
    expect_rows("name: g1\nduration: 40s\n" BACKLOG("100ms")
                "container: { kind: smlc, concurrency: \"1-4\" }\n",
                SCALING,
                "1200.0|start|2|considerAddingAConsumer\n"
                "12000.0|start|3|considerAddingAConsumer\n"
                "22800.0|start|4|considerAddingAConsumer\n");
}

static void g1_documented_starts_at_10_20_30(void **state)
{
    (void)state;
    expect_rows("name: g1d\nduration: 40s\n" BACKLOG("100ms")
                "container: { kind: smlc, concurrency: \"1-4\", semantics: documented }\n",
                SCALING,
                "10000.0|start|2|documented: active cycles\n"
                "20000.0|start|3|documented: active cycles\n"
                "30000.0|start|4|documented: active cycles\n");
}

/* The detail explains the 22.8 s start: the 12th cycle (old counter 11 > 10),
 * 22800 > 12000 + 10000, after the checks at 13.2 ... 21.6 s were refused. */
static void g1_detail_names_the_numbers(void **state)
{
    (void)state;
    expect_rows("name: g1x\nduration: 23s\n" BACKLOG("100ms")
                "container: { kind: smlc, concurrency: \"1-4\" }\n",
                "select detail from scaling where consumers_after = 4",
                "{\"consumer\":1,\"consecutiveMessages\":11,\"consecutiveActiveTrigger\":10,"
                "\"now_ms\":22800,\"lastConsumerStarted_ms\":12000,"
                "\"startConsumerMinInterval_ms\":10000,\"consumers_before\":3,"
                "\"concurrentConsumers\":1,\"maxConcurrentConsumers\":4,\"refused_before\":25}\n");
}

/* ---- G3: batchSize ------------------------------------------------------------------ */

static void g3_batch_of_5_adds_at_6_s_after_60_messages(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: g3\nduration: 7s\n" BACKLOG("100ms")
             "container: { kind: smlc, concurrency: \"1-2\", batchSize: 5 }\n");
    char *rows = query(&res, SCALING);
    assert_string_equal(rows, "6000.0|start|2|considerAddingAConsumer\n");
    char *n = query(&res, "select count(*) from messages where consumer = 1 and t_end <= 6000");
    assert_string_equal(n, "60\n");
    free(rows);
    free(n);
    tu_fixture_done(&res);
}

/* ---- G4: idle scale-down ---------------------------------------------------------------
 * Four consumers (floor lowered to 1 at the start, which removes nothing
 * because 4 is not above the maximum 4), batchSize 4; 16 messages at 1 ms
 * give each consumer one full cycle of 4, ending at D = 401 ms. */
#define G4(extra)                                                                         \
    "name: g4\nduration: 200s\n"                                                         \
    "queue:\n  arrivals: { kind: burst, count: 16, at: 1ms }\n"                           \
    "  service: { kind: constant, value: 100ms }\n"                                      \
    "container:\n  kind: smlc\n  concurrentConsumers: 4\n  maxConcurrentConsumers: 4\n"  \
    "  batchSize: 4\n  changes: [ { at: 0s, concurrentConsumers: 1 } ]\n" extra

static void g4_eps0_stops_at_d_plus_12_84_156(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, G4(""));
    char *d = query(&res, "select consumer, max(t_end) from messages group by consumer");
    assert_string_equal(d, "1|401.0\n2|401.0\n3|401.0\n4|401.0\n");
    char *rows = query(&res, SCALING);
    /* D + 72 s and D + 144 s tie (last stop + 60 s) and fail */
    assert_string_equal(rows, "12401.0|stop|3|considerStoppingAConsumer\n"
                              "84401.0|stop|2|considerStoppingAConsumer\n"
                              "156401.0|stop|1|considerStoppingAConsumer\n");
    assert_int_equal((int)tu_metric(res.r, "completed"), 16);
    free(d);
    free(rows);
    tu_fixture_done(&res);
}

/* ε = 1 ms per cycle (busy and idle): idle cycles of 1001 ms break the ties
 * the other way.  D = 402. */
static void g4_eps1_stops_at_d_plus_12_72_132(void **state)
{
    (void)state;
    expect_rows(G4("  cycleOverhead: 1ms\n  idlePollOverhead: 1ms\n"), SCALING,
                "12414.0|stop|3|considerStoppingAConsumer\n"
                "72474.0|stop|2|considerStoppingAConsumer\n"
                "132534.0|stop|1|considerStoppingAConsumer\n");
}

/* The documentation's 40 s / 100 s / 160 s: idle = batchSize x receiveTimeout
 * (a cycle is 4 polls), ten cycles, intervals counted from the container's
 * start, so the burst comes at 30 s.  The last active cycle ends at
 * D = 32401 (its third and fourth polls find nothing). */
static void g4_documented_stops_at_d_plus_40_100_160(void **state)
{
    (void)state;
    expect_rows("name: g4d\nduration: 300s\n"
                "queue:\n  arrivals: { kind: burst, count: 16, at: 30001ms }\n"
                "  service: { kind: constant, value: 100ms }\n"
                "container:\n  kind: smlc\n  concurrentConsumers: 4\n  maxConcurrentConsumers: 4\n"
                "  batchSize: 4\n  semantics: documented\n"
                "  changes: [ { at: 0s, concurrentConsumers: 1 } ]\n",
                SCALING,
                "72401.0|stop|3|documented: idle cycles\n"
                "132401.0|stop|2|documented: idle cycles\n"
                "192401.0|stop|1|documented: idle cycles\n");
}

/* ---- G6: runtime concurrency with a maximum --------------------------------------------- */

#define G6(version)                                                                       \
    "name: g6\nduration: 20s\n" BACKLOG("100ms")                                         \
    "container:\n  kind: smlc\n  version: \"" version "\"\n  concurrency: \"2-6\"\n"    \
    "  prefetchCount: 1\n  changes:\n"                                                    \
    "    - { at: 15s, concurrentConsumers: 3 }\n"                                         \
    "    - { at: 16s, concurrentConsumers: 1 }\n"                                         \
    "    - { at: 17s, maxConcurrentConsumers: 3 }\n"

/* 4 running (2 added): 3 -> 5 (adds 3 - 2), 1 -> 5 (nothing: 5 > 6 is false),
 * max 3 -> 3 (removes 2). */
static void g6_after_amqp_810(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, G6("2.4.1"));
    char *rows = query(&res, SCALING);
    assert_string_equal(rows, "1200.0|start|3|considerAddingAConsumer\n"
                              "12000.0|start|4|considerAddingAConsumer\n"
                              "15000.0|start|5|setConcurrentConsumers\n"
                              "17000.0|stop|4|setMaxConcurrentConsumers\n"
                              "17000.0|stop|3|setMaxConcurrentConsumers\n");
    /* the refusal to remove anything is said */
    assert_int_equal((int)res.r->ctx->nwarnings, 1);
    assert_non_null(strstr(res.r->ctx->warnings[0], "setConcurrentConsumers(1): removes nothing"));
    free(rows);
    tu_fixture_done(&res);
}

/* Before AMQP-810 (here 1.7.0 and 2.0.3): 5, then 3 at once, then setMax only sets. */
static void g6_before_amqp_810(void **state)
{
    (void)state;
    static const char *const versions[] = { "1.7", "2.0.3" };
    for (int i = 0; i < 2; i++) {
        char yaml[2048];
        snprintf(yaml, sizeof yaml, G6("%s"), versions[i]);
        expect_rows(yaml, SCALING,
                    "1200.0|start|3|considerAddingAConsumer\n"
                    "12000.0|start|4|considerAddingAConsumer\n"
                    "15000.0|start|5|setConcurrentConsumers\n"
                    "16000.0|stop|4|setConcurrentConsumers\n"
                    "16000.0|stop|3|setConcurrentConsumers\n");
    }
}

/* Observed on 1.7.15: setMaxConcurrentConsumers below the minimum throws
 * and changes nothing; setConcurrentConsumers(4) at the maximum starts
 * nothing but raises the minimum, so nobody stops when the work is done. */
static void observed_1_7_15_refusals(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: r\nduration: 200s\n"
             "queue:\n  arrivals: { kind: burst, count: 1000, at: 0s }\n"
             "  service: { kind: constant, value: 100ms }\n"
             "container:\n  kind: smlc\n  version: \"1.7.15\"\n  concurrentConsumers: 1\n"
             "  maxConcurrentConsumers: 4\n  changes:\n"
             "    - { at: 25s, concurrentConsumers: 4 }\n"
             "    - { at: 26s, maxConcurrentConsumers: 2 }\n");
    char *rows = query(&res, SCALING);
    assert_string_equal(rows, "1200.0|start|2|considerAddingAConsumer\n"
                              "12000.0|start|3|considerAddingAConsumer\n"
                              "22800.0|start|4|considerAddingAConsumer\n");
    char *alive = query(&res, "select count(*) from consumers where stop_reason = 'end'");
    assert_string_equal(alive, "4\n");
    assert_int_equal((int)res.r->ctx->nwarnings, 2);
    assert_non_null(strstr(res.r->ctx->warnings[0], "setConcurrentConsumers(4): starts nothing"));
    assert_non_null(strstr(res.r->ctx->warnings[1], "setMaxConcurrentConsumers(2): refused"));
    free(rows);
    free(alive);
    tu_fixture_done(&res);
}

/* ---- G9: a cancelled consumer drains its buffer ------------------------------------------- */

static void g9_drain_of_250_buffered_messages(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: g9\nduration: 20s\n" BACKLOG("10ms")
             "container:\n  kind: smlc\n  concurrentConsumers: 2\n"
             "  changes: [ { at: 10s, concurrentConsumers: 1 } ]\n");
    char *rows = query(&res, SCALING);
    assert_string_equal(rows, "10000.0|stop|1|setConcurrentConsumers\n");
    char *cons = query(&res, "select consumer, t_stop, messages, stop_reason from consumers "
                             "order by consumer");
    /* 249 buffered after the one in hand: S + 2490 ms; the other keeps 100/s */
    assert_string_equal(cons, "1|12490.0|1249|change\n2|20000.0|2000|end\n");
    assert_int_equal((int)tu_metric(res.r, "requeues"), 0);
    free(rows);
    free(cons);
    tu_fixture_done(&res);
}

/* 1.3: setQuiesce sends no basic.cancel; deliveries after it are parked
 * unacknowledged; the consumer drains, polls once in vain, and its channel's
 * close requeues the 250 parked messages. */
static void g9_in_1_3_quiesce_requeues_what_it_parked(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: g9q\nduration: 20s\n" BACKLOG("10ms")
             "container:\n  kind: smlc\n  version: \"1.3\"\n  concurrentConsumers: 2\n"
             "  prefetchCount: 250\n  changes: [ { at: 10s, concurrentConsumers: 1 } ]\n");
    char *cons = query(&res, "select consumer, t_stop, messages from consumers order by consumer");
    assert_string_equal(cons, "1|13490.0|1249\n2|20000.0|2000\n");
    assert_int_equal((int)tu_metric(res.r, "requeues"), 250);
    free(cons);
    tu_fixture_done(&res);
}

/* ---- G10: version gates -------------------------------------------------------------------- */

#define G10(extra)                                                                        \
    "name: g10\nduration: 40s\n" BACKLOG("100ms")                                        \
    "container:\n  kind: smlc\n  concurrency: \"1-4\"\n" extra

/* (a) 1.3.0-1.4.5 with a transacted channel never scale up (AMQP-498). */
static void g10a_transacted_before_1_4_6_never_scales(void **state)
{
    (void)state;
    static const char *const v[] = { "1.3", "1.4.5", "1.4.6" };
    static const int expect[] = { 1, 1, 4 };
    for (int i = 0; i < 3; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, G10("  version: \"%s\"\n  channelTransacted: true\n"), v[i]);
        result res;
        tu_fixture_run(&res, yaml);
        assert_int_equal((int)tu_metric(res.r, "consumers_max"), expect[i]);
        tu_fixture_done(&res);
    }
}

/* (b) a listener that always throws: checkAdjust is skipped every cycle. */
static void g10b_failing_listener_never_scales(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, G10("  listenerFailureProbability: 1\n"));
    char *rows = query(&res, "select count(*) from scaling");
    assert_string_equal(rows, "0\n");
    assert_int_equal((int)tu_metric(res.r, "consumers_max"), 1);
    assert_int_equal((int)tu_metric(res.r, "completed"), 0);
    assert_int_equal((int)tu_metric(res.r, "requeues"), 400);   /* one per 100 ms cycle */
    free(rows);
    tu_fixture_done(&res);
}

/* ---- consumersLock and start latency --------------------------------------------------------- */

/* startLatency 50 ms: the starter and whoever ends a cycle meanwhile wait
 * for the new consumer's basic.consume; the later checks move with them. */
static void start_latency_blocks_the_others(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: lk\nduration: 30s\n" BACKLOG("100ms")
             "container: { kind: smlc, concurrency: \"1-4\", startLatency: 50ms }\n");
    char *rows = query(&res, SCALING);
    /* consumer 1 itself consumes at 50 ms, so its 12th cycle ends at 1250 */
    assert_string_equal(rows, "1250.0|start|2|considerAddingAConsumer\n"
                              "12100.0|start|3|considerAddingAConsumer\n"
                              "22950.0|start|4|considerAddingAConsumer\n");
    /* consumer 1 resumes, and consumer 2 begins, when consumer 2 has consumed */
    char *begins = query(&res, "select consumer, min(t_begin) from messages where t_begin >= 1250 "
                               "and consumer <= 2 group by consumer");
    assert_string_equal(begins, "1|1300.0\n2|1300.0\n");
    /* consumer 2 ended a cycle at 12100 too, and waited for consumer 3 */
    char *blocked = query(&res, "select min(t_begin) from messages where consumer = 2 and "
                                "t_begin >= 12100");
    assert_string_equal(blocked, "12150.0\n");
    free(rows);
    free(begins);
    free(blocked);
    tu_fixture_done(&res);
}

/* ---- setConcurrency at runtime, by version (GH-1401) ------------------------------------------- */

/* "2-6" running 3 consumers, then setConcurrency("2-6") again: 2.1.10-2.4.0
 * reset the minimum to 1 first and so add one more; 2.0 and 2.4.1 do not. */
static void set_concurrency_inflates_in_2_1_10_to_2_4_0(void **state)
{
    (void)state;
    static const char *const v[] = { "2.0", "2.3.16", "2.4.0", "2.4.1" };
    static const char *const expect[] = { "", "5000.0|start|4|setConcurrency\n",
                                          "5000.0|start|4|setConcurrency\n", "" };
    for (int i = 0; i < 4; i++) {
        char yaml[1024], want[256];
        snprintf(yaml, sizeof yaml,
                 "name: sc\nduration: 6s\n" BACKLOG("100ms")
                 "container:\n  kind: smlc\n  version: \"%s\"\n  concurrency: \"2-6\"\n"
                 "  changes: [ { at: 5s, concurrency: \"2-6\" } ]\n", v[i]);
        snprintf(want, sizeof want, "1200.0|start|3|considerAddingAConsumer\n%s", expect[i]);
        expect_rows(yaml, SCALING, want);
    }
}

/* ---- immediateScaleDown (4.1) ----------------------------------------------------------------------- */

/* Quirk 2: the consumer that added one sees size > min in the same
 * checkAdjust and stops itself, so the count cannot stay above the minimum. */
static void immediate_scale_down_stops_the_starter(void **state)
{
    (void)state;
    expect_rows("name: isd\nduration: 3s\n" BACKLOG("100ms")
                "container: { kind: smlc, concurrency: \"1-4\", immediateScaleDown: true }\n",
                SCALING,
                "1200.0|start|2|considerAddingAConsumer\n"
                "1200.0|stop|1|markForStopIfExcess\n");
}

/* Quirk 1: without a maximum checkAdjust never runs: nobody is removed. */
static void immediate_scale_down_without_max_removes_nobody(void **state)
{
    (void)state;
    result res;
    tu_fixture_run(&res, "name: isd1\nduration: 12s\n" BACKLOG("100ms")
             "container:\n  kind: smlc\n  concurrentConsumers: 3\n  immediateScaleDown: true\n"
             "  changes: [ { at: 5s, concurrentConsumers: 1 } ]\n");
    assert_int_equal((int)tu_metric(res.r, "consumers_mean"), 3);
    assert_int_equal((int)res.r->ctx->nwarnings, 1);
    tu_fixture_done(&res);
}

/* ---- idle polling ------------------------------------------------------------------------------------ */

static double events_of(const char *duration)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: idle\nduration: %s\n"
             "queue:\n  arrivals: { kind: burst, count: 1, at: 0s }\n"
             "  service: { kind: constant, value: 10ms }\n"
             "container: { kind: smlc, concurrentConsumers: 5, maxConcurrentConsumers: 5 }\n",
             duration);
    cfg_doc doc;
    run *r = tu_run(yaml, NULL, SIM_DETAIL_SUMMARY, &doc);
    double n = tu_metric(r, "events");
    tu_done(r, &doc);
    return n;
}

/* An idle consumer costs one event per receiveTimeout and no more: 100 s
 * more of five idle consumers is 500 events more. */
static void idle_poll_is_one_event_per_receive_timeout(void **state)
{
    (void)state;
    assert_true(events_of("200s") - events_of("100s") == 500.0);
}

/* ---- setConcurrency's parser --------------------------------------------------------------------------- */

static void concurrency_parser_is_integer_parse_int(void **state)
{
    (void)state;
    int min = 0, max = 0;
    bool has_max;
    assert_null(smlc_parse_concurrency("1-4", &min, &max, &has_max));
    assert_true(has_max && min == 1 && max == 4);
    assert_null(smlc_parse_concurrency("3", &min, &max, &has_max));
    assert_true(!has_max && min == 3);
    assert_null(smlc_parse_concurrency("+2-+4", &min, &max, &has_max));   /* parseInt takes a sign */
    assert_true(min == 2 && max == 4);
    static const char *const bad[] = { " 2-4", "2-", "4-2", "-1", "0", "0-4", "2--4", "1-2-3",
                                       "", "2 ", "99999999999", "2-x", "1.5", "2-3 " };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (!smlc_parse_concurrency(bad[i], &min, &max, &has_max))
            fail_msg("'%s' was accepted", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g1_code_starts_at_1_2_12_0_22_8),
        cmocka_unit_test(g1_documented_starts_at_10_20_30),
        cmocka_unit_test(g1_detail_names_the_numbers),
        cmocka_unit_test(g3_batch_of_5_adds_at_6_s_after_60_messages),
        cmocka_unit_test(g4_eps0_stops_at_d_plus_12_84_156),
        cmocka_unit_test(g4_eps1_stops_at_d_plus_12_72_132),
        cmocka_unit_test(g4_documented_stops_at_d_plus_40_100_160),
        cmocka_unit_test(g6_after_amqp_810),
        cmocka_unit_test(g6_before_amqp_810),
        cmocka_unit_test(observed_1_7_15_refusals),
        cmocka_unit_test(g9_drain_of_250_buffered_messages),
        cmocka_unit_test(g9_in_1_3_quiesce_requeues_what_it_parked),
        cmocka_unit_test(g10a_transacted_before_1_4_6_never_scales),
        cmocka_unit_test(g10b_failing_listener_never_scales),
        cmocka_unit_test(start_latency_blocks_the_others),
        cmocka_unit_test(set_concurrency_inflates_in_2_1_10_to_2_4_0),
        cmocka_unit_test(immediate_scale_down_stops_the_starter),
        cmocka_unit_test(immediate_scale_down_without_max_removes_nobody),
        cmocka_unit_test(idle_poll_is_one_event_per_receive_timeout),
        cmocka_unit_test(concurrency_parser_is_integer_parse_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
