/* test_trace_smlc.c -- scenarios/smlc-S1-trace.yaml against the real run it
 * replays: tests/data/traces/smlc-S1-burst-scaleup-run1.csv, Spring AMQP
 * 1.7.15's SimpleMessageListenerContainer on RabbitMQ 3.10.8, concurrency
 * 1-4, prefetch 1, 3000 messages of ~100 ms published from 2 s.
 *
 * The scenario replays the trace's publish times and service times, runs
 * version 1.7.15, with overheads measured on that machine: the per-cycle
 * overhead the trace shows, 5 s window by 5 s window (it fell from ~3 ms to
 * ~1 ms as the JVM warmed up; `lsim fit --replay` measures it), an empty poll of
 * 1000.7 ms (the trace's README) and the starting consumer's median stall,
 * 5.6 ms.
 *
 * Asserted: the three starts and the two stops within 50 ms of the real
 * ones; every start on the same check as the real container's (the 9th
 * twelve-cycle check after the previous start); the messages each consumer
 * processed, exactly.  And, to show why the overhead must follow the JVM's
 * warm-up: with the run's average overhead (1.4 ms, the README's figure)
 * the rules are the same but consumers 3 and 4 start 124 and 188 ms early
 * (a start sums about 108 cycles, and the early ones were slow).
 */
#include "testutil.h"

#include <math.h>

/* The real run (consumer_start / consumer_stop lines of the trace). */
#define REAL_START_2 3272.020
#define REAL_START_3 14331.124
#define REAL_START_4 25373.973
#define REAL_STOP_1 99385.744
#define REAL_STOP_2 159395.301

typedef struct s1_result {
    double start[3], stop[2];
    char *refused, *per_consumer;
    double completed;
} s1_result;

/* Runs the scenario, with `set` (a --set assignment, or NULL) applied. */
static void run_s1(const char *set, s1_result *out)
{
    char *dir = tu_tmpdir(), *db = tu_path(dir, "s1.db");
    char *yaml = tu_read_file("scenarios/smlc-S1-trace.yaml");
    cfg_doc doc = { 0 };
    sim_diag d = { 0 };
    assert_int_equal(cfg_load_string("scenarios/smlc-S1-trace.yaml", yaml, strlen(yaml), &doc, &d),
                     SIM_OK);
    if (set)
        assert_int_equal(cfg_apply_set(&doc, set, &d), SIM_OK);
    run_spec spec = { .root = registry_root(), .doc = &doc,
                      .scenario_path = "scenarios/smlc-S1-trace.yaml",
                      .detail = SIM_DETAIL_MESSAGES, .run_id = 1, .point = -1,
                      .replication = -1 };
    run *r;
    assert_int_equal(run_build(&spec, &r, &d), SIM_OK);
    char err[512];
    timeline *tl = timeline_open(db, err, sizeof err);
    assert_non_null(tl);
    assert_int_equal(run_execute(r, tl, NULL, err, sizeof err), SIM_OK);
    assert_int_equal(timeline_close(tl, true, err, sizeof err), 0);
    for (int k = 0; k < 3; k++) {
        char q[128];
        snprintf(q, sizeof q, "select t_start from consumers where consumer = %d", k + 2);
        out->start[k] = tu_db_double(db, q);
    }
    out->stop[0] = tu_db_double(db, "select min(t) from scaling where action = 'stop'");
    out->stop[1] = tu_db_double(db, "select max(t) from scaling where action = 'stop'");
    out->refused = tu_db_text(db, "select json_extract(detail, '$.refused_before') from scaling "
                                  "where action = 'start'");
    out->per_consumer = tu_db_text(db, "select consumer, messages from consumers "
                                       "order by consumer");
    out->completed = tu_metric(r, "completed");
    print_message("starts %.3f %.3f %.3f (real %.3f %.3f %.3f), stops %.3f %.3f (real %.3f %.3f)\n",
                  out->start[0], out->start[1], out->start[2], REAL_START_2, REAL_START_3,
                  REAL_START_4, out->stop[0], out->stop[1], REAL_STOP_1, REAL_STOP_2);
    run_free(r);
    cfg_doc_free(&doc);
    free(yaml);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void s1_result_free(s1_result *r)
{
    free(r->refused);
    free(r->per_consumer);
}

/* The same checks as the real container: before the 3rd start consumers 1
 * and 2 were each refused 8 times; before the 4th consumers 1-3 were refused
 * 8 times each, plus the check that came right after the 3rd.  And the
 * real run's messages per consumer: c1 840, c2 828, c3 720, c4 612. */
static void same_checks_same_work(const s1_result *r)
{
    assert_string_equal(r->refused, "0\n16\n25\n");
    assert_string_equal(r->per_consumer, "1|840\n2|828\n3|720\n4|612\n");
    assert_int_equal((int)r->completed, 3000);
}

static void replay_with_measured_overheads(void **state)
{
    (void)state;
    s1_result r;
    run_s1(NULL, &r);
    assert_true(fabs(r.start[0] - REAL_START_2) <= 50.0);
    assert_true(fabs(r.start[1] - REAL_START_3) <= 50.0);
    assert_true(fabs(r.start[2] - REAL_START_4) <= 50.0);
    assert_true(fabs(r.stop[0] - REAL_STOP_1) <= 50.0);
    assert_true(fabs(r.stop[1] - REAL_STOP_2) <= 50.0);
    same_checks_same_work(&r);
    s1_result_free(&r);
}

static void replay_with_the_average_overhead(void **state)
{
    (void)state;
    s1_result r;
    run_s1("container.cycleOverhead=1400us", &r);
    same_checks_same_work(&r);
    /* Starts 3 and 4 early by 124 and 188 ms: pinned, so a change shows. */
    assert_true(fabs(r.start[1] - 14206.769) < 0.001);
    assert_true(fabs(r.start[2] - 25186.481) < 0.001);
    assert_true(fabs(r.stop[0] - REAL_STOP_1) <= 50.0);
    s1_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_with_measured_overheads),
        cmocka_unit_test(replay_with_the_average_overhead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
