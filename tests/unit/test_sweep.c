/* test_sweep.c -- sweeps: the expressions, common random numbers, and the
 * answer of a sweep against queueing theory.
 *
 * M/M/c with lambda 8/s and mu 1/s (a = 8): the wait W of a message is 0
 * with probability 1 - C(c, a) and otherwise exponential with rate
 * c*mu - lambda (Erlang C), so P(W > t) = C(c, a) exp(-(c*mu - lambda) t)
 * and the 99th percentile is ln(100 C) / (c*mu - lambda) (0 when C <= 1 %).
 * For c = 10..16 that is 1856, 1066, 660, 406, 228, 94 and 0 ms.  With the
 * requirement p99_wait_ms <= 520 the smallest c is 13; the limit sits 21 %
 * above c = 13 and 27 % below c = 12, far outside the 95 % intervals of 10
 * replications of 40,000 messages (half-widths of 30-45 ms), so a sweep
 * that answers anything but 13 is wrong, not unlucky.
 */
#include "testutil.h"

#include <math.h>

#include "cli/cli.h"
#include "input/expr.h"
#include "sweep/sweep_parts.h"

#include <sys/stat.h>

static const double LAMBDA = 8.0, MU = 1.0, LIMIT_MS = 520.0;

static const char *const MMC =
    "name: mmc\n"
    "seed: 1\n"
    "warmup: 200s\n"
    "queue:\n"
    "  count: 40000\n"
    "  arrivals: { kind: poisson, rate: 8/s }\n"
    "  service: { kind: exponential, mean: 1s }\n"
    "container: { kind: competing, workers: 10 }\n";

static double erlang_c(int c, double a)
{
    double sum = 0, term = 1;
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

static double p99_wait_ms(int c)
{
    double cc = erlang_c(c, LAMBDA / MU);
    return cc <= 0.01 ? 0.0 : log(100.0 * cc) / (c * MU - LAMBDA) * 1000.0;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Runs `lsim sweep` in this process; returns its exit status. */
static int sweep(const char *const *args)
{
    char *argv[32];
    int argc = 0;
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    return cmd_sweep(argc, argv);
}

static char *sweep_value_of(const char *db, const char *key)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT value FROM sweep WHERE key = '%s'", key);
    return tu_db_text(db, sql);
}

static void mmc_sweep_finds_smallest_c_by_erlang_c(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *scen = tu_path(dir, "mmc.yaml"), *db = tu_path(dir, "s.db");
    write_text(scen, MMC);
    const char *args[] = { scen, "--vary", "container.workers=10..16", "--reps", "10",
                           "--require", "p99_wait_ms<=520", "--minimize", "consumers_max",
                           "-j", "2", "--quiet", "--out", db, NULL };
    assert_int_equal(sweep(args), 0);

    int expect = 0;
    for (int c = 16; c >= 10; c--)
        if (p99_wait_ms(c) <= LIMIT_MS)
            expect = c;
    assert_int_equal(expect, 13);
    char *answer = sweep_value_of(db, "answer"), *best = sweep_value_of(db, "best");
    char *runner = sweep_value_of(db, "runner_up");
    assert_string_equal(answer, "best\n");
    assert_string_equal(best, "container.workers=13\n");
    assert_string_equal(runner, "container.workers=14\n");
    for (int c = 10; c <= 16; c++) {
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT %s FROM points p JOIN point_params k USING (point) "
                 "WHERE p.metric = 'p99_wait_ms' AND k.value = '%d'", "%s", c);
        char q[400];
        snprintf(q, sizeof q, sql, "mean");
        double mean = tu_db_double(db, q);
        snprintf(q, sizeof q, sql, "ci_high");
        double high = tu_db_double(db, q);
        snprintf(q, sizeof q, sql, "ci_high - ci_low");
        double width = tu_db_double(db, q);
        snprintf(q, sizeof q, sql, "n");
        assert_int_equal((int)tu_db_double(db, q), 10);
        double exact = p99_wait_ms(c);
        print_message("c=%d: p99 wait %.1f ms +- %.1f (Erlang C %.1f)\n", c, mean, width / 2,
                      exact);
        /* the interval's bound decides, and agrees with the theory */
        assert_int_equal(high <= LIMIT_MS, exact <= LIMIT_MS);
        assert_true(fabs(mean - exact) <= width / 2 + 0.05 * exact + 5.0);
        /* unambiguous: the interval is far narrower than its distance to the limit */
        assert_true(width / 2 < fabs(exact - LIMIT_MS) / 2);
    }
    free(answer);
    free(best);
    free(runner);
    tu_rmtree(dir);
    free(scen);
    free(db);
    free(dir);
}

/* No point can keep p99 under 50 ms with c <= 14: the answer says so and
 * names the closest, c = 14. */
static void no_point_meets_names_the_closest(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *scen = tu_path(dir, "mmc.yaml"), *db = tu_path(dir, "s.db");
    write_text(scen, MMC);
    const char *args[] = { scen, "--vary", "container.workers=10,12,14", "--reps", "3",
                           "--set", "queue.count=10000", "--require", "p99_wait_ms<=50",
                           "--quiet", "--out", db, NULL };
    assert_int_equal(sweep(args), 4);   /* CLI_NONE_MEETS */
    char *answer = sweep_value_of(db, "answer"), *closest = sweep_value_of(db, "closest");
    char *best = sweep_value_of(db, "best");
    assert_string_equal(answer, "none\n");
    assert_string_equal(closest, "container.workers=14\n");
    assert_string_equal(best, "");
    free(answer);
    free(closest);
    free(best);
    tu_rmtree(dir);
    free(scen);
    free(db);
    free(dir);
}

/* Replication r runs with seed 1 + r at every point: the same arrivals
 * whatever the worker count, other arrivals in another replication. */
static void replications_share_arrivals_across_points(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *scen = tu_path(dir, "crn.yaml"), *db = tu_path(dir, "s.db");
    write_text(scen, "name: crn\nduration: 100s\n"
                     "queue: { arrivals: { kind: poisson, rate: 5/s },"
                     " service: { kind: exponential, mean: 500ms } }\n"
                     "container: { kind: competing, workers: 2 }\n");
    const char *args[] = { scen, "--vary", "container.workers=2,3,5", "--reps", "2",
                           "--detail", "messages", "--seed", "7", "--quiet", "--out", db, NULL };
    assert_int_equal(sweep(args), 0);
    char *seeds = tu_db_text(db, "SELECT group_concat(seed, ' ') FROM (SELECT seed FROM runs "
                             "ORDER BY run)");
    assert_string_equal(seeds, "7 8 7 8 7 8\n");
    /* publish times per run (in message order), compared between points */
    static const char *const per_run =
        "(SELECT r.run, r.point, r.replication, (SELECT group_concat(t_publish, ',') FROM"
        " (SELECT t_publish FROM messages m WHERE m.run = r.run ORDER BY msg)) AS h FROM runs r)";
    char sql[600];
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT h) FROM %s GROUP BY replication "
             "ORDER BY replication", per_run);
    char *same = tu_db_text(db, sql);
    assert_string_equal(same, "1\n1\n");
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT h) FROM %s WHERE point = 0", per_run);
    char *differ = tu_db_text(db, sql);
    assert_string_equal(differ, "2\n");
    free(seeds);
    free(same);
    free(differ);
    tu_rmtree(dir);
    free(scen);
    free(db);
    free(dir);
}

/* A model's own summary metrics (broker.kind activemq adds them at the end of
 * a run) are names for --require and --minimize like the engine's.  Ten
 * uniform groups on N fixed DMLC consumers: ActiveMQ gives each new group
 * to the consumer with the fewest, so groups_per_consumer_max is exactly
 * ceil(10 / N) in every replication: 5, 4, 3, 2, 1 for N = 2, 3, 4, 5, 10. */
static const char *const GROUPS =
    "name: groups\n"
    "duration: 60s\n"
    "queue:\n"
    "  arrivals: { kind: poisson, rate: 20/s }\n"
    "  service: { kind: constant, value: 20ms }\n"
    "  groups: { kind: uniform, count: 10 }\n"
    "broker: { kind: activemq }\n"
    "container: { kind: dmlc, concurrency: \"2-2\" }\n";

static void model_metrics_in_require_and_minimize(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *scen = tu_path(dir, "groups.yaml");
    char *db = tu_path(dir, "r.db"), *db2 = tu_path(dir, "m.db");
    write_text(scen, GROUPS);
    const char *grid = "container.concurrency=2-2,3-3,4-4,5-5,10-10";
    /* the fewest consumers with at most 3 groups each: 4 */
    const char *req[] = { scen, "--vary", grid, "--reps", "2", "--require",
                          "groups_per_consumer_max<=3", "--minimize", "consumers_mean",
                          "--quiet", "--out", db, NULL };
    assert_int_equal(sweep(req), 0);
    char *best = sweep_value_of(db, "best"), *runner = sweep_value_of(db, "runner_up");
    assert_string_equal(best, "container.concurrency=4-4\n");
    assert_string_equal(runner, "container.concurrency=5-5\n");
    char *means = tu_db_text(db, "SELECT group_concat(mean || '/' || sd, ' ') FROM (SELECT mean,"
                             " sd FROM points WHERE metric = 'groups_per_consumer_max'"
                             " ORDER BY point)");
    assert_string_equal(means, "5.0/0.0 4.0/0.0 3.0/0.0 2.0/0.0 1.0/0.0\n");
    /* the objective a model metric: the most consumers spread the groups thinnest */
    const char *min[] = { scen, "--vary", grid, "--reps", "2", "--minimize",
                          "groups_per_consumer_max", "--quiet", "--out", db2, NULL };
    assert_int_equal(sweep(min), 0);
    char *best2 = sweep_value_of(db2, "best"), *runner2 = sweep_value_of(db2, "runner_up");
    char *objective = sweep_value_of(db2, "minimize");
    assert_string_equal(best2, "container.concurrency=10-10\n");
    assert_string_equal(runner2, "container.concurrency=5-5\n");
    assert_string_equal(objective, "groups_per_consumer_max\n");
    free(best);
    free(runner);
    free(means);
    free(best2);
    free(runner2);
    free(objective);
    tu_rmtree(dir);
    free(scen);
    free(db);
    free(db2);
    free(dir);
}

static void check_vary(const char *text, const char *expect)
{
    vary v;
    sim_diag d = { 0 };
    if (expr_parse_vary(text, &v, &d) != SIM_OK)
        fail_msg("%s: %s", text, d.msg);
    strbuf b = { 0 };
    sb_add(&b, v.key);
    for (size_t i = 0; i < v.n; i++)
        sb_addf(&b, "%s%s", i ? "|" : "=", v.values[i]);
    assert_string_equal(b.s, expect);
    sb_free(&b);
    vary_fini(&v);
}

static void vary_lists_and_ranges(void **state)
{
    (void)state;
    check_vary("container.workers=1,2,4", "container.workers=1|2|4");
    check_vary("a.b=1..5", "a.b=1|2|3|4|5");
    check_vary("a.b=2..9:3", "a.b=2|5|8");
    check_vary("a.b=0.1..0.5:0.1", "a.b=0.1|0.2|0.3|0.4|0.5");
    check_vary("a.b=100ms..1s:300ms", "a.b=100ms|400ms|700ms|1s");
    check_vary("a.b=10/s..30/s:10/s", "a.b=10/s|20/s|30/s");
    check_vary("q.arrivals={kind: poisson, rate: 5/s}, [1, 2]",
               "q.arrivals={kind: poisson, rate: 5/s}|[1, 2]");
    check_vary("a.b='x,y',z", "a.b='x,y'|z");
    /* Whole numbers are counted in integers: HI is never passed. */
    check_vary("a.b=0..4999999999999:1000000000000",
               "a.b=0|1000000000000|2000000000000|3000000000000|4000000000000");
    check_vary("a.b=-9007199254740992..-9007199254740990",
               "a.b=-9007199254740992|-9007199254740991|-9007199254740990");
    check_vary("a.b=1e20..3e20:1e20", "a.b=1e+20|2e+20|3e+20");
}

static void check_bad_vary(const char *text, const char *msg)
{
    vary v;
    sim_diag d = { 0 };
    assert_int_equal(expr_parse_vary(text, &v, &d), SIM_EINPUT);
    assert_string_equal(d.file, "--vary");
    assert_string_equal(d.msg, msg);
}

static void vary_errors(void **state)
{
    (void)state;
    check_bad_vary("a.b=", "'a.b=': the list of values is empty");
    check_bad_vary("a.b=3..1", "'a.b=3..1': the range is empty (1 is below 3)");
    check_bad_vary("a.b=1..3:-1", "'a.b=1..3:-1': the step must be greater than zero");
    check_bad_vary("a.b=1ms..3s:1", "'a.b=1ms..3s:1': LO..HI:STEP takes numbers (1..8:1), "
                   "durations (100ms..1s:100ms) or numbers with one unit (10/s..50/s:10/s)");
    check_bad_vary("a.b={x: 1", "'a.b={x: 1': a bracket is not closed");
    /* Found by tests/fuzz/fuzz_vary.c: beyond 2^53 a step of 1 cannot be
     * told apart, and a long long cannot hold 1.5e19. */
    check_bad_vary("a.b=1e20..1.0000000000001e20:5e6", "'a.b=1e20..1.0000000000001e20:5e6': "
                   "the step is too small: 1e+20 comes twice");
    check_bad_vary("a.b=10..15544444444444444444:4", "'a.b=10..15544444444444444444:4': "
                   "3.89e+18 values, more than 10000");
    check_bad_vary("a.b=1..20000", "'a.b=1..20000': 20000 values, more than 10000");
    check_bad_vary("a.b=1..2:1e-300", "'a.b=1..2:1e-300': 1e+300 values, more than 10000");
}

static void requirements(void **state)
{
    (void)state;
    static const struct { const char *text, *metric; req_op op; double limit; } ok[] = {
        { "p99_latency_ms<=500", "p99_latency_ms", REQ_LE, 500 },
        { " utilisation >= 0.5 ", "utilisation", REQ_GE, 0.5 },
        { "mean_wait_ms<1e3", "mean_wait_ms", REQ_LT, 1000 },
        { "throughput_per_s>-2", "throughput_per_s", REQ_GT, -2 },
        { "x<=4.9406564584124654e-324", "x", REQ_LE, 0x1p-1074 },   /* underflows: a number */
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        requirement r;
        sim_diag d = { 0 };
        assert_int_equal(expr_parse_require(ok[i].text, &r, &d), SIM_OK);
        assert_string_equal(r.metric, ok[i].metric);
        assert_int_equal(r.op, ok[i].op);
        assert_true(r.limit == ok[i].limit);
        requirement_fini(&r);
    }
    static const char *const bad[] = { "p99=5", "p99==5", "p99<=", "<=5", "p99<>5", "p99 5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        requirement r;
        sim_diag d = { 0 };
        assert_int_equal(expr_parse_require(bad[i], &r, &d), SIM_EINPUT);
    }
    requirement r = { .op = REQ_LE, .limit = 5 };
    assert_true(req_holds(&r, 5) && !req_holds(&r, 5.01));
    r.op = REQ_LT;
    assert_false(req_holds(&r, 5));
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The folder of a sweep under way: a second sweep into the same output is
 * refused and leaves the folder as it is (its workers' temporary shards
 * included); a resumed one takes stock of the finished shards. */
static void parts_folder_belongs_to_its_sweep(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *scen = tu_path(dir, "mmc.yaml"), *out = tu_path(dir, "x.db");
    char *parts = tu_path(dir, "x.db.parts"), *tmp = tu_path(parts, "shard-1.db.tmp-1");
    char *record = tu_path(parts, "sweep.txt");
    write_text(scen, MMC);
    sweep_spec s = { .scenario_path = xstrdup(scen), .name = xstrdup("mmc"), .reps = 2 };
    sim_diag d = { 0 };
    assert_int_equal(sweep_spec_finish(&s, &d), SIM_OK);
    sweep_parts a, b;
    char err[1024];
    assert_int_equal(parts_open(&a, &s, out, false, err, sizeof err), SIM_OK);
    assert_int_equal(a.ntodo, 2);
    assert_true(exists(record));
    write_text(tmp, "half-written");
    assert_int_equal(parts_open(&b, &s, out, false, err, sizeof err), SIM_EINPUT);
    assert_non_null(strstr(err, "x.db.parts holds an unfinished sweep: run the same command "
                                "with --resume to finish it, or remove the folder"));
    parts_close(&b, false);
    assert_true(exists(tmp));          /* not the refused sweep's to remove */
    parts_close(&a, false);            /* stopped: temporary files go, the record stays */
    assert_false(exists(tmp));
    assert_true(exists(record));
    assert_int_equal(parts_open(&b, &s, out, true, err, sizeof err), SIM_OK);
    assert_true(b.is_resumed);
    assert_int_equal(b.ndone, 0);
    assert_int_equal(b.ntodo, 2);
    parts_close(&b, true);
    assert_false(exists(parts));
    sweep_spec_fini(&s);
    tu_rmtree(dir);
    free(record);
    free(tmp);
    free(parts);
    free(out);
    free(scen);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vary_lists_and_ranges),
        cmocka_unit_test(vary_errors),
        cmocka_unit_test(requirements),
        cmocka_unit_test(parts_folder_belongs_to_its_sweep),
        cmocka_unit_test(replications_share_arrivals_across_points),
        cmocka_unit_test(no_point_meets_names_the_closest),
        cmocka_unit_test(model_metrics_in_require_and_minimize),
        cmocka_unit_test(mmc_sweep_finds_smallest_c_by_erlang_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
