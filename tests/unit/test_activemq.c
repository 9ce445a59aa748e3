/* test_activemq.c -- `broker.kind: activemq`: the golden cases G1, G2 and G7
 * of specs/spring-jms-activemq.md §4, exactly, and the parts of §2 they do
 * not reach: pulls (prefetch 0), the page window, the three group maps with
 * Java's String.hashCode, JMSXGroupSeq, delayed dispatch start and the
 * starvation figures.
 *
 * The consumers are DMLC invokers with a fixed count (concurrency "N-N",
 * which never scales) and no start latency, so the broker alone decides who
 * gets what.  All times are milliseconds in the database.
 */
#include "testutil.h"

#include "activemq/activemq_groups.h"

typedef tu_fixture fixture;

/* A run whose scenario uses the workload file `csv` (written first):
 * %s in yaml is the file's path. */
static void run_with_file(fixture *f, const char *yaml_fmt, const char *csv)
{
    f->dir = tu_tmpdir();
    f->db = tu_path(f->dir, "x.db");
    char *path = tu_path(f->dir, "w.csv");
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(csv, fp);
    assert_int_equal(fclose(fp), 0);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, yaml_fmt, path);
    f->r = tu_run(yaml, f->db, SIM_DETAIL_MESSAGES, &f->doc);
    free(path);
}

#define MSGS_OF(node, consumer)                                                      \
    "select group_concat(msg) from (select msg from messages where node = " #node    \
    " and consumer = " #consumer " order by msg)"

/* ---- G1: prefetch hoarding ------------------------------------------------------ */

/* 100 messages queued; C1 subscribes at 0 (node 1), C2 at 0.5 s (node 2). */
static const char *const g1 =
    "name: g1\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 100, at: 0s }\n"
    "  service: { kind: constant, value: 1s }\n"
    "nodes: [ { start: 0s }, { start: 500ms } ]\n"
    "broker: { kind: activemq, queuePrefetch: %d }\n"
    "container: { kind: dmlc, concurrency: \"1-1\", startLatency: 0s }\n";

static void g1a_first_consumer_hoards_everything(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, g1, 1000);
    fixture f;
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select node, consumer, messages from consumers order by node", "1|1|100\n2|1|0\n");
    tu_expect_rows(f.db, "select max(t_end), max(t_deliver) from messages", "100000.0|0.0\n");
    /* C2 waited from 0.5 s until C1 began its last message at 99 s */
    tu_expect_rows(f.db, "select value from consumer_metrics where node = 2 and metric = 'starved_ms'",
           "98500.0\n");
    assert_true(tu_metric(f.r, "message_share_max") == 1.0);
    tu_fixture_done(&f);
}

static void g1b_prefetch_one_alternates(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, g1, 1);
    fixture f;
    tu_fixture_run(&f, yaml);
    strbuf odd = { 0 }, even = { 0 };
    sb_add(&odd, "1,2");
    sb_add(&even, "3,4");
    for (int k = 5; k <= 100; k++)
        sb_addf(k % 2 ? &odd : &even, ",%d", k);
    sb_add(&odd, "\n");
    sb_add(&even, "\n");
    tu_expect_rows(f.db, MSGS_OF(1, 1), odd.s);
    tu_expect_rows(f.db, MSGS_OF(2, 1), even.s);
    tu_expect_rows(f.db, "select node, count(*), max(t_end) from messages group by node",
           "1|50|50000.0\n2|50|50500.0\n");
    sb_free(&odd);
    sb_free(&even);
    tu_fixture_done(&f);
}

/* Prefetch 0: a consumer is sent a message only while it waits in receive,
 * so nothing is hoarded and C2 takes m2 the moment it asks. */
static void prefetch_zero_sends_only_to_waiting_consumers(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, g1, 0);
    fixture f;
    tu_fixture_run(&f, yaml);
    strbuf odd = { 0 }, even = { 0 };
    sb_add(&odd, "1");
    sb_add(&even, "2");
    for (int k = 3; k <= 100; k++)
        sb_addf(k % 2 ? &odd : &even, ",%d", k);
    sb_add(&odd, "\n");
    sb_add(&even, "\n");
    tu_expect_rows(f.db, MSGS_OF(1, 1), odd.s);
    tu_expect_rows(f.db, MSGS_OF(2, 1), even.s);
    tu_expect_rows(f.db, "select t_deliver from messages where msg in (2, 3) order by msg", "500.0\n1000.0\n");
    tu_expect_rows(f.db, "select node, max(t_end) from messages group by node", "1|50000.0\n2|50500.0\n");
    sb_free(&odd);
    sb_free(&even);
    tu_fixture_done(&f);
}

/* ---- G2: pinned groups, idle consumer ------------------------------------------ */

static const char *const g2 =
    "name: g2\n"
    "queue:\n"
    "  arrivals: { kind: burst, count: 20, at: 1s }\n"
    "  service: { kind: constant, value: 1s }\n"
    "  %s\n"
    "broker: { kind: activemq }\n"
    "container: { kind: dmlc, concurrency: \"3-3\", startLatency: 0s }\n";

static void g2_pinned_groups_leave_a_consumer_idle(void **state)
{
    (void)state;
    char yaml[1024];
    /* sequential groups g1, g2, g1, g2 ...: the spec's A1, B1, A2, B2 ... */
    snprintf(yaml, sizeof yaml, g2, "groups: { kind: sequential, count: 2 }");
    fixture f;
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, count(*), count(distinct grp), min(grp) from messages "
               "group by consumer", "1|10|1|g1\n2|10|1|g2\n");
    tu_expect_rows(f.db, "select messages from consumers where consumer = 3", "0\n");
    tu_expect_rows(f.db, "select max(t_end) - 1000 from messages", "10000.0\n");
    /* C3 waited while the owners' buffers held messages, until A10 and B10 began at 10 s */
    tu_expect_rows(f.db, "select value from consumer_metrics where consumer = 3 and metric = 'starved_ms'",
           "9000.0\n");
    assert_true(tu_metric(f.r, "group_assignments") == 2);
    assert_true(tu_metric(f.r, "order_violations") == 0);
    tu_fixture_done(&f);
    /* control: the same messages without groups go round robin, 7/7/6 */
    snprintf(yaml, sizeof yaml, g2, "groups: { kind: none }");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, count(*) from messages group by consumer", "1|7\n2|7\n3|6\n");
    tu_expect_rows(f.db, "select max(t_end) - 1000 from messages", "7000.0\n");
    tu_fixture_done(&f);
}

/* ---- G7: owner close -------------------------------------------------------------- */

/* C1 owns A (group g1) with prefetch 7; when concurrency drops from 3-3 to
 * 2-2 at 2.5 s, C1 leaves after A3 (ends at 3.001 s), holding A4..A10;
 * A11..A20 wait in the broker. */
static void g7_owner_close_redelivers_ahead_and_reassigns(void **state)
{
    (void)state;
    fixture f;
    tu_fixture_run(&f, "name: g7\n"
                 "queue:\n"
                 "  arrivals: { kind: burst, count: 20, at: 1ms }\n"
                 "  service: { kind: constant, value: 1s }\n"
                 "  groups: { kind: sequential, count: 1 }\n"
                 "broker: { kind: activemq, queuePrefetch: 7 }\n"
                 "container:\n"
                 "  kind: dmlc\n"
                 "  version: \"4.3\"\n"
                 "  concurrency: \"3-3\"\n"
                 "  receiveTimeout: 30s\n"
                 "  startLatency: 0s\n"
                 "  changes: [ { at: 2500ms, concurrency: \"2-2\" } ]\n");
    tu_expect_rows(f.db, "select consumer, t_stop, stop_reason from consumers where consumer = 1",
           "1|3001.0|change\n");
    /* A4..A10 were redelivered at the close, before A11..A20, all to C2 */
    tu_expect_rows(f.db, MSGS_OF(1, 1), "1,2,3\n");
    tu_expect_rows(f.db, MSGS_OF(1, 2), "4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\n");
    tu_expect_rows(f.db, "select min(msg), max(msg), min(t_deliver), max(t_deliver), sum(requeues) "
               "from messages where msg between 4 and 10", "4|10|3001.0|3001.0|7\n");
    tu_expect_rows(f.db, "select t_begin from messages where msg in (4, 11) order by msg",
           "3001.0\n10001.0\n");
    tu_expect_rows(f.db, "select consumer, value from consumer_metrics where metric = 'groups' "
               "order by consumer", "1|1.0\n2|1.0\n3|0.0\n");
    assert_true(tu_metric(f.r, "group_reassignments") == 1);
    assert_true(tu_metric(f.r, "requeues") == 7);
    assert_true(tu_metric(f.r, "order_violations") == 0);
    tu_fixture_done(&f);
}

/* ---- the page window (maxPageSize) ---------------------------------------------- */

/* 30 messages of group A then 5 of B, all at 1 ms; maxPageSize 10,
 * prefetch 1, S = 1 s, two consumers.  C1 owns A.  While publishing, each
 * message is paged in alone until 10 A's (a3..a12) wait; the rest stays in
 * the store.  From then on C1 is sent one A per second (a3 at 1.001 s, a(k)
 * at (k-2).001 s).  A page-in takes a whole page whenever fewer than 10
 * wait: at 1.001 s a13..a22 (19 wait), at 11.001 s, when a13 was sent,
 * a23..a30, b1, b2: b1 goes to C2 at once, b2 into its buffer.  17 A's
 * still wait, so b3..b5 stay in the store until a21 was sent at 19.001 s.
 * C2 starves from 1 ms to 11.001 s, from 13.001 s (b2 done) to 19.001 s,
 * and from 22.001 s (b5 done) until C1 began a30 at 29.001 s: 24 s, the
 * last second with every waiting message in C1's buffer.  The page was
 * blocked (store not empty, 10 or more waiting) from 1 ms to 19.001 s. */
static void page_window_starves_free_consumers(void **state)
{
    (void)state;
    strbuf csv = { 0 };
    sb_add(&csv, "t_ms,msg,group,service_ms\n");
    for (int k = 1; k <= 30; k++)
        sb_addf(&csv, "1,a%d,A,1000\n", k);
    for (int k = 1; k <= 5; k++)
        sb_addf(&csv, "1,b%d,B,1000\n", k);
    fixture f;
    run_with_file(&f, "name: window\n"
                      "queue: { arrivals: { kind: file, path: %s } }\n"
                      "broker: { kind: activemq, queuePrefetch: 1, maxPageSize: 10 }\n"
                      "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n",
                  csv.s);
    tu_expect_rows(f.db, "select consumer, count(*) from messages group by consumer", "1|30\n2|5\n");
    tu_expect_rows(f.db, "select msg, t_deliver from messages where msg > 30 order by msg",
           "31|11001.0\n32|11001.0\n33|19001.0\n34|19001.0\n35|20001.0\n");
    tu_expect_rows(f.db, "select metric, value from consumer_metrics where consumer = 2 and metric like "
               "'starved%' order by metric", "starved_buffered_ms|1000.0\nstarved_ms|24000.0\n");
    assert_true(tu_metric(f.r, "page_window_blocked_ms") == 19000.0);
    assert_true(tu_metric(f.r, "starvation_ms_total") == 24000.0);
    tu_fixture_done(&f);
    sb_free(&csv);
}

/* ---- group maps -------------------------------------------------------------------- */

/* Expected values computed with OpenJDK 17: String.hashCode() of the group
 * id, and MessageGroupHashBucket.getBucketNumber for 1024, 1000 and 7
 * buckets.  The ids are UTF-8 here; Java hashes UTF-16 code units, so the
 * emoji and the G clef count as surrogate pairs. */
static void bucket_numbers_are_javas(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        int32_t hash;
        int b1024, b1000, b7;
    } table[] = {
        { "", 0, 0, 0, 0 },
        { "g1", 3242, 170, 242, 1 },
        { "g20", 100581, 229, 581, 5 },
        { "order-42", 1234255197, 349, 197, 0 },
        { "polygenelubricants", INT32_MIN, 0, 648, 2 },
        { "GydZG_", INT32_MIN, 0, 648, 2 },
        { "DESIGNING WORKHOUSES", INT32_MIN, 0, 648, 2 },
        { "M\xc3\xbcller", -1854470916, 772, 916, 4 },                     /* Müller */
        { "gr\xc3\xbc\xc3\x9f" "e-\xe2\x82\xac", 426799350, 246, 350, 5 },   /* grüße-€ */
        { "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 25921943, 407, 943, 5 },   /* 日本語 */
        { "\xf0\x9f\x98\x80", 1772899, 355, 899, 2 },                        /* 😀 */
        { "a\xf0\x9f\x98\x80" "b", 57849694, 862, 694, 0 },
        { "\xf0\x9d\x84\x9e" "clef", 463595828, 308, 828, 3 },               /* 𝄞clef */
        { "\xce\xa9mega-7", 1584309893, 645, 893, 5 },                       /* Ωmega-7 */
        { "customer:\xc3\x9f", -1581184957, 957, 957, 2 },                   /* customer:ß */
        { "\xf4\x8f\xbf\xbf", 1803232, 992, 232, 4 },                      /* U+10FFFF */
        /* malformed UTF-8, as new String(bytes, UTF_8) decodes it (U+FFFD) */
        { "a\xff" "b", 2124838, 38, 838, 2 },
        { "x\xe2\x82" "y", 2146964, 660, 964, 1 },
        { "\xed\xa0\x80", 65533, 1021, 533, 6 },                           /* a surrogate */
        { "\xe0\x80\x80", 65074269, 93, 269, 1 },                           /* overlong */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int32_t h = amqg_java_hash(table[i].id, strlen(table[i].id));
        if (h != table[i].hash)
            fail_msg("hash of entry %zu: %d, Java says %d", i, h, table[i].hash);
        assert_int_equal(amqg_bucket_of(h, 1024), table[i].b1024);
        assert_int_equal(amqg_bucket_of(h, 1000), table[i].b1000);
        assert_int_equal(amqg_bucket_of(h, 7), table[i].b7);
    }
}

/* "Aa" and "BB" have the same String.hashCode (2112): with the bucket map
 * they share an owner, with the cached map they do not. */
static const char *const colliding_csv =
    "t_ms,msg,group,service_ms\n"
    "1,m1,Aa,1000\n1,m2,BB,1000\n1,m3,Aa,1000\n1,m4,BB,1000\n";

static const char *const two_consumers_fmt =
    "name: maps\n"
    "queue: { arrivals: { kind: file, path: %%s } }\n"
    "broker: { kind: activemq, messageGroupMapFactoryType: %s }\n"
    "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n";

static void bucket_map_merges_colliding_groups(void **state)
{
    (void)state;
    char fmt[1024];
    fixture f;
    snprintf(fmt, sizeof fmt, two_consumers_fmt, "bucket");
    run_with_file(&f, fmt, colliding_csv);
    tu_expect_rows(f.db, "select consumer, count(*) from messages group by consumer", "1|4\n");
    tu_fixture_done(&f);
    snprintf(fmt, sizeof fmt, two_consumers_fmt, "cached");
    run_with_file(&f, fmt, colliding_csv);
    tu_expect_rows(f.db, "select consumer, group_concat(msg) from messages group by consumer",
           "1|1,3\n2|2,4\n");
    tu_fixture_done(&f);
}

/* groupMapSize 2 and groups g1, g2, g3, g1, g2, g3: from the third message
 * on every put evicts the least recently used group, whose next message is
 * assigned again (to whoever is first: ordering is not kept). */
static void cached_map_evicts_least_recently_used(void **state)
{
    (void)state;
    const char *yaml_fmt =
        "name: lru\n"
        "queue:\n"
        "  arrivals: { kind: burst, count: 6, at: 1ms }\n"
        "  service: { kind: constant, value: 1s }\n"
        "  groups: { kind: sequential, count: 3 }\n"
        "broker: { kind: activemq, messageGroupMapFactoryType: %s }\n"
        "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n";
    char yaml[1024];
    fixture f;
    snprintf(yaml, sizeof yaml, yaml_fmt, "cached, groupMapSize: 2");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, group_concat(grp) from (select * from messages order by msg) "
               "group by consumer", "1|g1,g3,g2\n2|g2,g1,g3\n");
    assert_true(tu_metric(f.r, "group_assignments") == 6);
    assert_true(tu_metric(f.r, "group_evictions") == 4);
    assert_true(tu_metric(f.r, "group_reassignments") == 3);
    tu_fixture_done(&f);
    snprintf(yaml, sizeof yaml, yaml_fmt, "simple");
    tu_fixture_run(&f, yaml);
    tu_expect_rows(f.db, "select consumer, group_concat(grp) from (select * from messages order by msg) "
               "group by consumer", "1|g1,g3,g1,g3\n2|g2,g2\n");
    assert_true(tu_metric(f.r, "group_assignments") == 3);
    assert_true(tu_metric(f.r, "group_evictions") == 0);
    tu_fixture_done(&f);
}

/* closeEvery: 2 -- every second message of g1 has JMSXGroupSeq -1: it goes
 * to the owner and closes the group, so the next one is assigned to the
 * consumer then first in line while the owner still holds the earlier
 * ones.  C1 runs m1, m2, m5, m6 and C2 m3, m4, m7, m8, one a second from
 * 1 ms; m3, m4, m5, m7 and m8 each begin while an earlier one runs. */
static void closing_a_group_moves_it(void **state)
{
    (void)state;
    fixture f;
    tu_fixture_run(&f, "name: close\n"
                 "queue:\n"
                 "  arrivals: { kind: burst, count: 8, at: 1ms }\n"
                 "  service: { kind: constant, value: 1s }\n"
                 "  groups: { kind: sequential, count: 1, closeEvery: 2 }\n"
                 "broker: { kind: activemq }\n"
                 "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n");
    tu_expect_rows(f.db, MSGS_OF(1, 1), "1,2,5,6\n");
    tu_expect_rows(f.db, MSGS_OF(1, 2), "3,4,7,8\n");
    assert_true(tu_metric(f.r, "group_closes") == 4);
    assert_true(tu_metric(f.r, "group_reassignments") == 3);
    assert_true(tu_metric(f.r, "order_violations") == 5);
    tu_fixture_done(&f);
}

/* A message with JMSXGroupSeq 1 takes its group from the owner: m2 goes to
 * C2 although C1 owns g, and m3 (seq 0) follows it there. */
static void sequence_one_reassigns(void **state)
{
    (void)state;
    fixture f;
    run_with_file(&f, "name: seq1\n"
                      "queue: { arrivals: { kind: file, path: %s } }\n"
                      "broker: { kind: activemq }\n"
                      "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n",
                  "t_ms,msg,group,service_ms,group_seq\n"
                  "1,m1,g,1000,1\n1,m2,g,1000,1\n1,m3,g,1000,\n");
    tu_expect_rows(f.db, "select msg, consumer from messages order by msg", "1|1\n2|2\n3|2\n");
    assert_true(tu_metric(f.r, "group_assignments") == 2);
    assert_true(tu_metric(f.r, "group_reassignments") == 1);
    tu_fixture_done(&f);
}

/* sequence: true, closeEvery: 3, prefetch 1: one group's messages carry
 * JMSXGroupSeq 1, 2, -1, 1, 2, -1.  m3 (-1) waits while its owner C1 is full;
 * m4 (seq 1) takes the group to C2 at once; the waiting m3 now belongs to C2
 * and closes the group there, so m5 is assigned afresh (to C1): the group
 * runs on two consumers at once.  With sequence: false m4 waits for m3 to
 * close the group on C1. */
static void sequence_one_after_a_waiting_close(void **state)
{
    (void)state;
    static const struct {
        const char *sequence, *runs;
        int violations, assignments;
    } cases[] = {
        { "true", "1|1,2,5,6\n2|4,3\n", 3, 3 },
        { "false", "1|1,2,3\n2|4,5,6\n", 2, 2 },
    };
    for (size_t i = 0; i < 2; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: seq\n"
                 "queue:\n"
                 "  arrivals: { kind: burst, count: 6, at: 1ms }\n"
                 "  service: { kind: constant, value: 1s }\n"
                 "  groups: { kind: sequential, count: 1, sequence: %s, closeEvery: 3 }\n"
                 "broker: { kind: activemq, queuePrefetch: 1 }\n"
                 "container: { kind: dmlc, concurrency: \"2-2\", startLatency: 0s }\n",
                 cases[i].sequence);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select consumer, group_concat(msg) from (select * from messages "
                   "order by t_begin) group by consumer", cases[i].runs);
        assert_true(tu_metric(f.r, "order_violations") == cases[i].violations);
        assert_true(tu_metric(f.r, "group_assignments") == cases[i].assignments);
        assert_true(tu_metric(f.r, "group_closes") == 2);
        tu_fixture_done(&f);
    }
}

/* ---- delayed dispatch start ------------------------------------------------------------ */

/* Three consumers subscribe at 0, 1.5 s and 2.5 s (three nodes); 30
 * messages wait.  Without a delay the first hoards them all.  With
 * consumersBeforeDispatchStarts 3 and a 5 s timeout dispatch starts when
 * the third subscribes, and round robin shares the backlog; with the
 * default timeout (1 s, Queue.iterate) it starts at 1 s, before the second.
 * With 2 and a 2 s timeout the second opens the latch.  With only
 * timeBeforeDispatchStarts, dispatch waits that long. */
static void delayed_start_shares_the_backlog(void **state)
{
    (void)state;
    static const struct {
        const char *broker, *shares, *first;
    } cases[] = {
        { "", "1|30\n2|0\n3|0\n", "0.0\n" },
        { ", consumersBeforeDispatchStarts: 3, timeBeforeDispatchStarts: 5s",
          "1|10\n2|10\n3|10\n", "2500.0\n" },
        { ", consumersBeforeDispatchStarts: 3", "1|30\n2|0\n3|0\n", "1000.0\n" },
        { ", consumersBeforeDispatchStarts: 2, timeBeforeDispatchStarts: 2s",
          "1|15\n2|15\n3|0\n", "1500.0\n" },
        { ", timeBeforeDispatchStarts: 1200ms", "1|30\n2|0\n3|0\n", "1200.0\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: delayed\n"
                 "queue:\n"
                 "  arrivals: { kind: burst, count: 30, at: 0s }\n"
                 "  service: { kind: constant, value: 100ms }\n"
                 "nodes: [ { start: 0s }, { start: 1500ms }, { start: 2500ms } ]\n"
                 "broker: { kind: activemq%s }\n"
                 "container: { kind: dmlc, concurrency: \"1-1\", startLatency: 0s }\n",
                 cases[i].broker);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select node, messages from consumers order by node", cases[i].shares);
        tu_expect_rows(f.db, "select min(t_deliver) from messages", cases[i].first);
        tu_fixture_done(&f);
    }
}

/* One consumer at a time that lives less than the wait (a DMLC at
 * cacheLevel none makes one per receive; receiveTimeout 1 s): each
 * consumer that finds the queue empty sets firstConsumer again, but the
 * wait under way in Queue.iterate() is not restarted.  It runs out, that
 * iterate() sends the consumer of the moment all three messages, the next
 * iterate() waits again, and the consumer takes one and closes, giving the
 * rest back.  So one message per wait: the first at the end of the first
 * wait, each later one put back once more.  (lsim once restarted the wait
 * at every such consumer and never dispatched: a run without a duration
 * never ended.  The duration bounds this one.) */
static void delayed_start_with_a_consumer_per_receive(void **state)
{
    (void)state;
    static const struct {
        const char *broker, *begins;
    } cases[] = {
        { "consumersBeforeDispatchStarts: 2, timeBeforeDispatchStarts: 2s",
          "1|2000.0|0\n2|4000.0|1\n3|6000.0|2\n" },
        { "timeBeforeDispatchStarts: 1500ms", "1|1500.0|0\n2|3000.0|1\n3|4500.0|2\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: delayed-churn\n"
                 "duration: 10s\n"
                 "queue:\n"
                 "  arrivals: { kind: burst, count: 3, at: 0s }\n"
                 "  service: { kind: constant, value: 100ms }\n"
                 "broker: { kind: activemq, %s }\n"
                 "container: { kind: dmlc, concurrency: \"1-1\", cacheLevel: none, "
                 "startLatency: 0s }\n",
                 cases[i].broker);
        fixture f;
        tu_fixture_run(&f, yaml);
        tu_expect_rows(f.db, "select msg, t_begin, requeues from messages order by msg",
                       cases[i].begins);
        assert_true(tu_metric(f.r, "completed") == 3);
        tu_fixture_done(&f);
    }
}

/* A group's last owner is the broker's, whichever queue assigned it: k1 is
 * assigned on queue a to its consumer (1), then on queue b to its own (2),
 * a reassignment; b's second k1 goes to 2, its owner, no assignment.  The
 * last owners live in queue a's records until b assigns, then move to the
 * broker's array: kept per queue, b's k1 would not count. */
static void last_owner_is_broker_wide_across_queues(void **state)
{
    (void)state;
    fixture f;
    f.dir = tu_tmpdir();
    f.db = tu_path(f.dir, "x.db");
    char *a = tu_path(f.dir, "a.csv"), *b = tu_path(f.dir, "b.csv");
    const char *csv[2] = { "t_ms,msg,group,service_ms\n1,a1,k1,10\n100,a2,k2,10\n",
                           "t_ms,msg,group,service_ms\n50,b1,k1,10\n150,b2,k1,10\n" };
    const char *path[2] = { a, b };
    for (int i = 0; i < 2; i++) {
        FILE *fp = fopen(path[i], "w");
        assert_non_null(fp);
        fputs(csv[i], fp);
        assert_int_equal(fclose(fp), 0);
    }
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "name: twoq\n"
             "queues:\n"
             "  - { name: a, arrivals: { kind: file, path: %s } }\n"
             "  - { name: b, arrivals: { kind: file, path: %s } }\n"
             "broker: { kind: activemq }\n"
             "container: { kind: dmlc, concurrency: \"1-1\", startLatency: 0s }\n", a, b);
    f.r = tu_run(yaml, f.db, SIM_DETAIL_MESSAGES, &f.doc);
    tu_expect_rows(f.db, "select queue, consumer, group_concat(grp) from "
                   "(select * from messages order by msg) group by queue, consumer",
                   "a|1|k1,k2\nb|2|k1,k1\n");
    assert_true(tu_metric(f.r, "group_assignments") == 3);
    assert_true(tu_metric(f.r, "group_reassignments") == 1);
    free(a);
    free(b);
    tu_fixture_done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g1a_first_consumer_hoards_everything),
        cmocka_unit_test(g1b_prefetch_one_alternates),
        cmocka_unit_test(prefetch_zero_sends_only_to_waiting_consumers),
        cmocka_unit_test(g2_pinned_groups_leave_a_consumer_idle),
        cmocka_unit_test(g7_owner_close_redelivers_ahead_and_reassigns),
        cmocka_unit_test(page_window_starves_free_consumers),
        cmocka_unit_test(bucket_numbers_are_javas),
        cmocka_unit_test(bucket_map_merges_colliding_groups),
        cmocka_unit_test(cached_map_evicts_least_recently_used),
        cmocka_unit_test(closing_a_group_moves_it),
        cmocka_unit_test(sequence_one_reassigns),
        cmocka_unit_test(sequence_one_after_a_waiting_close),
        cmocka_unit_test(delayed_start_shares_the_backlog),
        cmocka_unit_test(delayed_start_with_a_consumer_per_receive),
        cmocka_unit_test(last_owner_is_broker_wide_across_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
