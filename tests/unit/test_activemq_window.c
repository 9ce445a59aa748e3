/* test_activemq_window.c -- the page window's dispatch passes reach the
 * messages they may take stream by stream (amq_window in
 * models/activemq/activemq.h), the redelivery list's skip what the last pass skipped
 * (amq_skip), and both must do exactly what a pass over every message does:
 * the same consumer for every message in the same order, the same group map
 * (evictions follow the LRU order the passed-over lookups leave), the same
 * events.
 *
 * Each case is the worst case of tests/bench/jms-window.yaml (a hot group
 * whose owner is always full) with one setting changed, pinned by the run's
 * fingerprint and a hash of (message, node, consumer, delivery time) in
 * delivery order; the pins were taken with the broker rescanning the whole
 * window on every pass (the "consumers leave" ones with the broker that
 * skipped stretches, itself pinned by the others against the full scans).
 */
#include "testutil.h"

#include <stdbool.h>

typedef struct window_case {
    const char *name, *broker, *groups, *container;
    const char *pin;               /* fingerprint/order hash */
} window_case;

static const window_case cases[] = {
    { "cached map, evictions", "queuePrefetch: 1, groupMapSize: 4", "count: 20, s: 2.5", "concurrency: \"5-5\"",
      "9919ec8224b47181" },
    { "cached map, 40 groups", "queuePrefetch: 1, groupMapSize: 8", "count: 40, s: 2.5",
      "concurrency: \"5-5\"", "14e58af9ac77c7ea" },
    { "cached map, many groups", "queuePrefetch: 1, groupMapSize: 3", "count: 200, s: 1.2", "concurrency: \"5-5\"",
      "38b3b125da2ed413" },
    { "bucket map", "queuePrefetch: 1, messageGroupMapFactoryType: bucket, groupMapSize: 3", "count: 20, s: 2.5",
      "concurrency: \"5-5\"", "60e6c45f99161207" },
    { "prefetch 0", "queuePrefetch: 0, groupMapSize: 6", "count: 20, s: 2.5",
      "concurrency: \"5-5\"", "81d3396dec3bee3e" },
    { "prefetch 2, ack latency", "queuePrefetch: 2, ackLatency: 30ms, groupMapSize: 5",
      "count: 20, s: 2.5", "concurrency: \"5-5\"", "79a7bca6bc0dfdd9" },
    { "group closes", "queuePrefetch: 1, groupMapSize: 5", "count: 20, s: 2.5, sequence: true, closeEvery: 3",
      "concurrency: \"5-5\"", "3bae2304f07958ed" },
    { "small page", "queuePrefetch: 1, maxPageSize: 7, groupMapSize: 6", "count: 30, s: 2.5",
      "concurrency: \"5-5\"", "5512f6f387abef2d" },
    { "a consumer a receive", "queuePrefetch: 1, groupMapSize: 5", "count: 20, s: 2.5",
      "concurrency: \"5-5\", cacheLevel: none", "82c76e6236d76bfb" },
    /* consumers come and go; a pass that evicts a group lets the next pass
     * take what it passed over of that group before */
    { "consumers leave, evictions", "queuePrefetch: 1, groupMapSize: 4", "count: 20, s: 2.5",
      "concurrency: \"1-8\", maxMessagesPerTask: 5", "b615e1a573ff885b" },
    { "consumers leave, many groups", "queuePrefetch: 4, groupMapSize: 3", "count: 50, s: 2.5",
      "concurrency: \"2-10\", maxMessagesPerTask: 3", "bac529330bb573fc" },
    { "consumers leave, groups close", "queuePrefetch: 1, groupMapSize: 5",
      "count: 20, s: 2.5, sequence: true, closeEvery: 4", "concurrency: \"1-8\", maxMessagesPerTask: 2",
      "89a8bde47514141a" },
    { "consumers leave, bucket map", "queuePrefetch: 1, messageGroupMapFactoryType: bucket, groupMapSize: 4",
      "count: 20, s: 2.5", "concurrency: \"1-8\", maxMessagesPerTask: 5", "58428e76a737134c" },
};

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static bool check_case(const window_case *c)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "name: window\nseed: 1\n"
             "queue:\n  count: 20000\n  arrivals: { kind: poisson, rate: 70/s }\n"
             "  service: { kind: constant, value: 20ms }\n"
             "  groups: { kind: zipf, %s }\n"
             "broker: { kind: activemq, %s }\n"
             "container: { kind: dmlc, version: \"4.3\", %s }\n",
             c->groups, c->broker, c->container);
    char *dir = tu_tmpdir(), *db = tu_path(dir, "run.db");
    cfg_doc doc;
    run *r = tu_run(yaml, db, SIM_DETAIL_MESSAGES, &doc);
    char *fp = tu_db_text(db, "select fingerprint from runs");
    char *order = tu_db_text(db, "select group_concat(msg || ':' || node || ':' || consumer || ':' "
                             "|| cast(t_deliver * 1000000 as integer), ',') from "
                             "(select * from messages order by t_deliver, msg)");
    char got[64];
    snprintf(got, sizeof got, "%016llx",
             (unsigned long long)fnv(fnv(14695981039346656037ULL, fp), order));
    bool ok = strcmp(got, c->pin) == 0;
    if (!ok)
        print_error("%s: got %s, pinned %s\n", c->name, got, c->pin);
    free(fp);
    free(order);
    tu_done(r, &doc);
    tu_rmtree(dir);
    free(db);
    free(dir);
    return ok;
}

static void skipping_passes_dispatch_as_full_scans_do(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        bad += !check_case(&cases[i]);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skipping_passes_dispatch_as_full_scans_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
