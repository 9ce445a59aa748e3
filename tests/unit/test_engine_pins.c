/* test_engine_pins.c -- event sequences of the engine's fast paths, pinned.
 *
 * The calendar, the message pool, the statistics and the competing
 * container's free-worker lookup are built for speed; these runs pin what
 * they must not change: every event's time and type (the run's
 * fingerprint, sim/engine/engine.c) and the summary's quantiles, as the simpler
 * code before them gave.  The runs reach what the seed scenarios do not: 5,000
 * workers (the free-worker bitmap past one summary word), a host shared by
 * more workers than cores (events cancelled and rescheduled all the time)
 * and a plain M/M/8.
 */
#include "testutil.h"

#include <math.h>

typedef struct pinned {
    const char *yaml;
    const char *fingerprint;
    int events, completed;
    double p50_latency_ms, p99_latency_ms, p99_wait_ms;   /* as --json prints them */
} pinned;

static const pinned runs[] = {
    { "name: pin-wide\nseed: 3\n"
      "queue:\n  count: 30000\n  arrivals: { kind: poisson, rate: 4500/s }\n"
      "  service: { kind: exponential, mean: 1s }\n"
      "container: { kind: competing, workers: 5000 }\n",
      "969f0375de476e2a", 60001, 30000, 701.130981, 4525.696285, 0 },
    { "name: pin-cores\nseed: 2\nduration: 10m\nhost: { cores: 3 }\n"
      "queue:\n  arrivals: { kind: poisson, rate: 16/s }\n"
      "  service: { kind: gamma, mean: 200ms, cv: 0.5 }\n"
      "container: { kind: competing, workers: 6, startLatency: 2ms }\n",
      "9359fcff8eb09ac1", 27417, 8982, 18529.0515, 29990.20687, 29603.20534 },
    { "name: pin-narrow\nseed: 5\n"
      "queue:\n  count: 20000\n  arrivals: { kind: poisson, rate: 7.2/s }\n"
      "  service: { kind: exponential, mean: 1s }\n"
      "container: { kind: competing, workers: 8 }\n",
      "67c0c25c4eec401f", 40001, 20000, 1311.228323, 6104.032758, 4082.942022 },
};

static void check_one(const pinned *p)
{
    char *dir = tu_tmpdir(), *db = tu_path(dir, "run.db");
    cfg_doc doc;
    run *r = tu_run(p->yaml, db, SIM_DETAIL_SUMMARY, &doc);
    char *fp = tu_db_text(db, "select fingerprint from runs");
    char want[32];
    snprintf(want, sizeof want, "%s\n", p->fingerprint);
    if (strcmp(fp, want) != 0 || (int)tu_metric(r, "events") != p->events ||
        (int)tu_metric(r, "completed") != p->completed)
        fail_msg("%.20s: fingerprint %.16s, %d events, %d completed; pinned %s, %d, %d", p->yaml,
                 fp, (int)tu_metric(r, "events"), (int)tu_metric(r, "completed"),
                 p->fingerprint, p->events, p->completed);
    const char *names[] = { "p50_latency_ms", "p99_latency_ms", "p99_wait_ms" };
    const double want_q[] = { p->p50_latency_ms, p->p99_latency_ms, p->p99_wait_ms };
    for (int i = 0; i < 3; i++) {
        double got = tu_metric(r, names[i]);
        if (fabs(got - want_q[i]) > 1e-9 * fabs(want_q[i]) + 1e-9)
            fail_msg("%.20s: %s %.10g, pinned %.10g", p->yaml, names[i], got, want_q[i]);
    }
    free(fp);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void fast_paths_keep_the_event_sequence(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        check_one(&runs[i]);
}

/* The messages still in flight when the run ends are written after the
 * others, in publish order, with the times that did not happen as NULL:
 * found in the message pool, as no list of them is kept. */
static void messages_in_flight_at_the_end_are_written_in_publish_order(void **state)
{
    (void)state;
    tu_fixture f;
    tu_fixture_run(&f, "name: cut\nseed: 4\nduration: 100s\n"
                       "queue:\n  count: 3000\n  arrivals: { kind: poisson, rate: 100/s }\n"
                       "  service: { kind: exponential, mean: 1s }\n"
                       "container: { kind: competing, workers: 3 }\n");
    const char *db = f.db;
    double done = tu_metric(f.r, "completed");
    assert_true(done > 100 && done < 1000);
    assert_true(tu_db_double(db, "select count(*) from messages") == 3000);
    assert_true(tu_db_double(db, "select count(*) from messages where t_end is null") ==
                3000 - done);
    /* three were being worked on: begun, not ended */
    assert_true(tu_db_double(db, "select count(*) from messages where t_end is null and "
                                 "t_begin is not null") == 3);
    /* after the last finished row, only unfinished ones, by increasing id */
    assert_true(tu_db_double(db, "select min(rowid) from messages where t_end is null") ==
                done + 1);
    assert_true(tu_db_double(db, "select count(*) from messages a join messages b "
                                 "on b.rowid = a.rowid + 1 "
                                 "where a.t_end is null and b.msg <= a.msg") == 0);
    tu_fixture_done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_paths_keep_the_event_sequence),
        cmocka_unit_test(messages_in_flight_at_the_end_are_written_in_publish_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
