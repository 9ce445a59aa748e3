/* test_jms_traces.c -- the model against two real runs of ActiveMQ 5.17.2
 * with Spring JMS 4.3.30 DefaultMessageListenerContainers
 * (tests/data/traces/, recorded as /work/shared/traces/README.md says).
 *
 * A (scenarios/jms-trace-A-burst.yaml): 400 messages published one by one
 * over 323 ms, concurrency 1-5.  The real container reached 5 consumers 54 ms
 * after the first publish and kept them until shutdown.  With the same 400
 * published at one instant (scenarios/jms-A-burst-instant.yaml) the model
 * gives golden case G4a instead: one consumer takes them all and the
 * container stays at 2.
 *
 * C (scenarios/jms-trace-C-groups-skew.yaml): 5 consumers, 20 Zipf groups.
 * The real consumers took 1636, 738, 603, 415 and 227 messages with 4
 * groups each.  The real consumers subscribed in an order their threads
 * raced for (c4, c5, c2, c3, c1: the order of their first messages, each
 * of a new group); the model subscribes its consumers in creation order.
 * Matched by subscription order, every message must go to the same consumer.
 */
#include "testutil.h"

#include "store/trace.h"

typedef tu_fixture fixture;

static void run_scenario(fixture *f, const char *path)
{
    char *yaml = tu_read_file(path);
    tu_fixture_run(f, yaml);
    free(yaml);
}

/* ---- what the real run did ---------------------------------------------------------- */

#define MAX_CONSUMERS 16

typedef struct real_run {
    int64_t first_publish_ns;
    int64_t start_ns[MAX_CONSUMERS];       /* consumer_start, by trace consumer number */
    int64_t stop_ns[MAX_CONSUMERS];
    int64_t shutdown_ns;
    int nconsumers;
    int *consumer_of;                      /* by publish index: trace consumer number */
    int nmsgs;
    int first_delivery_rank[MAX_CONSUMERS];   /* 1 = the first to be sent a message */
} real_run;

static int consumer_number(const char *c)
{
    int n = atoi(c + 1);                   /* "c3" -> 3 */
    assert_true(n >= 1 && n < MAX_CONSUMERS);
    return n;
}

/* Reads a trace: its consumers and who was sent each message. */
static void read_real(const char *path, real_run *rr)
{
    memset(rr, 0, sizeof *rr);
    trace_reader *tr;
    sim_diag d = { 0 };
    assert_int_equal(trace_reader_open(path, &tr, &d), SIM_OK);
    trace_event ev;
    char (*ids)[16] = xcalloc(20000, sizeof *ids);
    rr->consumer_of = xcalloc(20000, sizeof *rr->consumer_of);
    rr->first_publish_ns = -1;
    int ranked = 0;
    while (trace_reader_next(tr, &ev, &d) == 1) {
        if (ev.kind == TEV_PUBLISH) {
            assert_true(rr->nmsgs < 20000);
            snprintf(ids[rr->nmsgs++], sizeof ids[0], "%s", ev.msg);
            if (rr->first_publish_ns < 0)
                rr->first_publish_ns = ev.t_ns;
        } else if (ev.kind == TEV_CONSUMER_START || ev.kind == TEV_CONSUMER_STOP) {
            int c = consumer_number(ev.consumer);
            (ev.kind == TEV_CONSUMER_START ? rr->start_ns : rr->stop_ns)[c] = ev.t_ns;
            rr->nconsumers = c > rr->nconsumers ? c : rr->nconsumers;
        } else if (ev.kind == TEV_DELIVER) {
            int c = consumer_number(ev.consumer);
            if (!rr->first_delivery_rank[c])
                rr->first_delivery_rank[c] = ++ranked;
            /* ids come in publish order and deliveries nearly so: search back */
            for (int i = rr->nmsgs - 1; i >= 0; i--)
                if (strcmp(ids[i], ev.msg) == 0) {
                    rr->consumer_of[i] = c;
                    break;
                }
        }
    }
    rr->shutdown_ns = trace_shutdown_ns(tr);
    trace_reader_close(tr);
    free(ids);
}

/* ---- A: the burst ---------------------------------------------------------------------- */

static void a_burst_reaches_five_at_once_and_keeps_them(void **state)
{
    (void)state;
    real_run rr;
    read_real("tests/data/traces/A-burst-run1.csv", &rr);
    assert_int_equal(rr.nconsumers, 5);
    double real_fifth_ms = (double)(rr.start_ns[5] - rr.first_publish_ns) / 1e6;
    assert_true(real_fifth_ms > 50 && real_fifth_ms < 60);   /* 54.058 ms */
    for (int c = 1; c <= 5; c++)                              /* stopped only by shutdown */
        assert_true(rr.stop_ns[c] >= rr.shutdown_ns);

    fixture f;
    run_scenario(&f, "scenarios/jms-trace-A-burst.yaml");
    double first = tu_db_double(f.db, "select min(t_publish) from messages");
    assert_true(first == 1001.371);
    double fifth = tu_db_double(f.db, "select t_start from consumers where consumer = 5");
    /* within a few tens of ms of the first publish, as the real one */
    assert_true(fifth - first > 20 && fifth - first < 60);
    tu_expect_rows(f.db, "select count(*), sum(action = 'start') from scaling", "5|5\n");
    tu_expect_rows(f.db, "select count(*) from consumers where stop_reason = 'end'", "5\n");
    tu_expect_rows(f.db, "select count(*) from messages where t_end is not null", "400\n");
    /* round robin spreads the burst nearly evenly, as in the real run
     * (real 89/85/79/75/72) */
    assert_true(tu_db_double(f.db, "select min(messages) from consumers") >= 70);
    assert_true(tu_db_double(f.db, "select max(messages) from consumers") <= 90);
    /* the run lasts as long as the real one: its last event */
    assert_true(tu_metric(f.r, "duration_s") == 46.34438);
    tu_fixture_done(&f);
    free(rr.consumer_of);
}

static void a_burst_at_one_instant_is_g4a(void **state)
{
    (void)state;
    fixture f;
    run_scenario(&f, "scenarios/jms-A-burst-instant.yaml");
    tu_expect_rows(f.db, "select consumer, messages from consumers", "1|400\n2|0\n");
    tu_expect_rows(f.db, "select t, consumers_after, rule from scaling",
           "0.0|1|initial\n1000.0|2|message-received\n");
    tu_expect_rows(f.db, "select min(t_deliver), max(t_deliver), max(t_end) from messages",
           "1000.0|1000.0|21000.0\n");
    assert_true(tu_metric(f.r, "consumers_max") == 2);
    tu_fixture_done(&f);
}

/* ---- C: skewed groups ---------------------------------------------------------------- */

static void c_groups_reproduce_every_assignment(void **state)
{
    (void)state;
    real_run rr;
    read_real("tests/data/traces/C-groups-skew-run1.csv", &rr);
    assert_int_equal(rr.nmsgs, 3619);
    /* the real subscription order: c4, c5, c2, c3, c1 */
    assert_int_equal(rr.first_delivery_rank[4], 1);
    assert_int_equal(rr.first_delivery_rank[1], 5);

    fixture f;
    run_scenario(&f, "scenarios/jms-trace-C-groups-skew.yaml");
    tu_expect_rows(f.db, "select group_concat(n) from (select count(*) n from messages "
               "group by consumer order by n desc)", "1636,738,603,415,227\n");
    tu_expect_rows(f.db, "select group_concat(g) from (select count(distinct grp) g from messages "
               "group by consumer)", "4,4,4,4,4\n");
    assert_true(tu_metric(f.r, "groups_per_consumer_max") == 4);
    assert_true(tu_metric(f.r, "order_violations") == 0);
    assert_true(tu_metric(f.r, "group_reassignments") == 0);
    /* message by message: model consumer k is the real consumer subscribed k-th */
    char *rows = tu_db_text(f.db, "select msg, consumer from messages order by msg");
    int same = 0, n = 0;
    for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n"), n++) {
        int msg, consumer;
        assert_int_equal(sscanf(line, "%d|%d", &msg, &consumer), 2);
        assert_int_equal(msg, n + 1);
        same += rr.first_delivery_rank[rr.consumer_of[n]] == consumer;
    }
    assert_int_equal(n, 3619);
    assert_int_equal(same, 3619);
    free(rows);
    tu_fixture_done(&f);
    free(rr.consumer_of);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_burst_reaches_five_at_once_and_keeps_them),
        cmocka_unit_test(a_burst_at_one_instant_is_g4a),
        cmocka_unit_test(c_groups_reproduce_every_assignment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
