/* test_determinism.c -- same scenario and seed, same database, to the last
 * row; another seed, another database.  The scenario draws from every kind
 * of stream (Poisson arrivals, lognormal service, Zipf groups) on two nodes
 * with a CPU limit, so most of the engine is on the path. */
#include "testutil.h"

static const char *const scenario =
    "name: determinism\n"
    "seed: %d\n"
    "duration: 2m\n"
    "sample_interval: 250ms\n"
    "host: { cores: 2 }\n"
    "queue:\n"
    "  arrivals: { kind: phases, phases: [ { duration: 1m, rate: 6/s },\n"
    "              { duration: 1m, arrivals: { kind: constant, rate: 2/s } } ] }\n"
    "  service: { kind: lognormal, mean: 400ms, sigma: 0.8 }\n"
    "  groups: { kind: zipf, count: 12, s: 1.1 }\n"
    "nodes: [ { start: 0s }, { start: 7s } ]\n"
    "container: { kind: competing, workers: 3, startLatency: 3ms }\n";

/* The Spring AMQP models: two SMLC nodes on one RabbitMQ queue with a
 * failing listener (its own stream), runtime changes and consumersLock. */
static const char *const smlc_scenario =
    "name: determinism-smlc\n"
    "seed: %d\n"
    "duration: 2m\n"
    "host: { cores: 2 }\n"
    "queue:\n"
    "  arrivals: { kind: poisson, rate: 25/s }\n"
    "  service: { kind: exponential, mean: 150ms }\n"
    "nodes: 2\n"
    "container: { kind: smlc, concurrency: \"1-6\", startLatency: 5ms, cycleOverhead: 1ms,\n"
    "  listenerFailureProbability: 0.01, stopConsumerMinInterval: 5s,\n"
    "  changes: [ { at: 60s, concurrency: \"2-3\" } ] }\n";

/* Every row of every table, in rowid order, without the wall clock. */
static char *dump(const char *db)
{
    static const char *const queries[] = {
        "select run, scenario, seed, parameters, lsim_version, point, replication, fingerprint "
        "from runs",
        "select * from messages order by rowid", "select * from consumers order by rowid",
        "select * from scaling order by rowid", "select * from samples order by rowid",
        "select * from summary order by rowid",
    };
    strbuf b = { 0 };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        char *t = tu_db_text(db, queries[i]);
        sb_add(&b, t);
        sb_add(&b, "--\n");
        free(t);
    }
    return sb_take(&b);
}

static char *run_with_seed(const char *fmt, const char *dir, const char *file, int seed)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, fmt, seed);
    char *db = tu_path(dir, file);
    cfg_doc doc;
    run *r = tu_run(yaml, db, SIM_DETAIL_MESSAGES, &doc);
    tu_done(r, &doc);
    char *d = dump(db);
    free(db);
    return d;
}

static void check_scenario(const char *fmt)
{
    char *dir = tu_tmpdir();
    char *a = run_with_seed(fmt, dir, "a.db", 5);
    char *b = run_with_seed(fmt, dir, "b.db", 5);
    char *c = run_with_seed(fmt, dir, "c.db", 6);
    assert_true(strlen(a) > 10000);                /* it did write rows */
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    free(a);
    free(b);
    free(c);
    tu_rmtree(dir);
    free(dir);
}

static void same_seed_same_database(void **state)
{
    (void)state;
    check_scenario(scenario);
}

static void smlc_same_seed_same_database(void **state)
{
    (void)state;
    check_scenario(smlc_scenario);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_database),
        cmocka_unit_test(smlc_same_seed_same_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
