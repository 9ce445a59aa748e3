/* test_fit_measure.c -- the calibration estimators of `lsim fit --replay`
 * (sim/analysis/fit_measure.c) on hand-made runs whose overheads are known, and the
 * prediction band of `compare --reps` (sim/analysis/compare_band.c). */
#include "testutil.h"

#include <math.h>

#include "analysis/compare.h"
#include "analysis/fit_measure.h"

static void msg(run_data *rd, double pub, double begin, double end, int cons, double deliver)
{
    rd->msgs = xrealloc(rd->msgs, (rd->nmsgs + 1) * sizeof *rd->msgs);
    rd->msgs[rd->nmsgs++] = (td_msg){ pub, begin, end, -1, 0, cons, NULL, deliver };
}

static void consumer(run_data *rd, int cons, double start, double stop)
{
    rd->cons = xrealloc(rd->cons, (rd->ncons + 1) * sizeof *rd->cons);
    rd->cons[rd->ncons++] = (td_consumer){ 0, cons, start, stop };
}

/* A receive timeout of 1 s, windows of 5 s, an idle stop after 1 poll, no
 * runtime calls. */
static fit_smlc_setup smlc_setup(int batch)
{
    return (fit_smlc_setup){ .batch = batch, .receive_timeout_ms = 1000, .window_ms = 5000,
                             .idle_trigger = 1 };
}

/* The SMLC estimators on rd with these runtime calls that start consumers. */
static void measure_with_calls(const run_data *rd, const double *calls, size_t n, fit_knobs *k)
{
    fit_smlc_setup u = smlc_setup(1);
    u.starting = calls;
    u.nstarting = n;
    fit_measure_smlc(rd, &u, k);
}

/* A receive timeout of 1 s; tasks that never end, or of 3 receives. */
static const fit_dmlc_setup dmlc_1s = { .receive_timeout_ms = 1000, .per_task = -1 };
static const fit_dmlc_setup per_task_3 = { .receive_timeout_ms = 1000, .per_task = 3 };

static void one_node(run_data *rd)
{
    memset(rd, 0, sizeof *rd);
    rd->nodes = xcalloc(1, sizeof *rd->nodes);
    rd->nodes[0] = xstrdup("node-1");
    rd->nnodes = 1;
}

/* batchSize 2: 0.5 ms between the two messages of a cycle, 3 ms after the
 * second; one gap where the next message was not yet published (a wait for
 * work) left out; a stop 4 empty polls of 1000.7 ms after the last message
 * and the cycle overhead (3.5 ms: the model spends it at the cycle's end). */
static void smlc_cycle_sum_and_idle_polls(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    double t = 10;
    for (int i = 0; i < 40; i++) {
        bool late = i == 21;       /* published 5 ms after the end before it */
        double pub = late ? t + 5 : 0;
        double begin = late ? pub + 0.2 : t;
        msg(&rd, pub, begin, begin + 10, 0, NAN);
        t = begin + 10 + (i % 2 == 0 ? 0.5 : 3.0);
    }
    double last_end = rd.msgs[rd.nmsgs - 1].t_end;
    rd.cons[0].t_stop = last_end + 3.5 + 4 * 1000.7;   /* the cycle's overhead, as the model spends it */
    fit_knobs k;
    fit_smlc_setup u = smlc_setup(2);
    fit_measure_smlc(&rd, &u, &k);
    assert_int_equal(k.ncycle, 1);
    assert_float_equal(k.cycle[0].value_ms, 3.5, 1e-9);
    assert_int_equal(k.cycle_gaps, 38);        /* 39 gaps, one not waiting */
    assert_int_equal(k.idle_stops, 1);
    assert_int_equal(k.idle_polls, 4);
    assert_float_equal(k.idle_ms, 0.7, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* Stops that are not the container's idle rule: with consecutiveIdleTrigger
 * 5, a stop after 4 empty polls; and one 900 ms after a runtime call that
 * can stop consumers (it cancelled the consumer in its poll).  Both are
 * left out; a stop after 6 polls is kept (its overhead 0.5 ms). */
static void smlc_idle_stops_of_the_idle_rule_only(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, 10 + 4 * 1000.7);
    consumer(&rd, 1, 0, 20000 + 5 * 1000.2 + 900);
    consumer(&rd, 2, 0, 10 + 6 * 1000.5);
    msg(&rd, 0, 0, 10, 0, NAN);
    msg(&rd, 0, 0, 20000, 1, NAN);
    msg(&rd, 0, 0, 10, 2, NAN);
    const double calls[] = { 20000 + 5 * 1000.2 };
    fit_smlc_setup u = smlc_setup(1);
    u.idle_trigger = 5;
    u.stopping = calls;
    u.nstopping = 1;
    fit_knobs k;
    fit_measure_smlc(&rd, &u, &k);
    assert_int_equal(k.idle_stops, 1);
    assert_int_equal(k.idle_left_out, 2);
    assert_int_equal(k.idle_polls, 6);
    assert_float_equal(k.idle_ms, 0.5, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* A DMLC: a receive lag of 0.4 ms where the invoker waited; a second
 * invoker started on a receipt, subscribed 6 ms later (its first message
 * was waiting in the broker when it started). */
static void dmlc_lag_and_start(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 100.4, NAN);
    msg(&rd, 100, 100.4, 150, 0, 100);          /* waiting: lag 0.4 (the start comes at 100.4) */
    msg(&rd, 100.2, 106.4 + 0.4, 156.8, 1, 106.4); /* the new invoker's first: waiting */
    msg(&rd, 200, 200.4, 250, 0, 200);          /* waiting again: lag 0.4 */
    fit_knobs k;
    fit_measure_dmlc(&rd, &dmlc_1s, &k);
    assert_int_equal(k.lag.n, 3);
    assert_float_equal(k.lag.mean, 0.4, 1e-9);
    assert_int_equal(k.start.n, 1);
    assert_float_equal(k.start.mean, 6.0, 1e-9);
    assert_true(isnan(k.idle_ms));
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* An invoker whose first message was published after it started measures
 * the wait for traffic, not its start: no sample (ActiveMQ puts a new
 * consumer last in its round robin; here 200 ms of waiting). */
static void dmlc_start_not_from_later_traffic(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 100.4, NAN);
    msg(&rd, 100, 100.4, 150, 0, 100);           /* the receipt that started invoker 1 */
    msg(&rd, 300, 301, 350, 1, 300.6);           /* invoker 1's first: published after its start */
    fit_knobs k;
    fit_measure_dmlc(&rd, &dmlc_1s, &k);
    assert_int_equal(k.start.n, 0);
    assert_true(isnan(k.start.mean));
    assert_int_equal(k.start_late, 2);   /* invoker 0 too: its first came at 100 */
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* The starts that shorten a receive lag are its own node's: an invoker
 * starting on node 1 while node 0's receive() returns leaves its lag whole
 * (0.4 ms), where one of node 0 would have cut it to 0.2 ms. */
static void dmlc_lag_reads_its_own_node(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    rd.nodes = xrealloc(rd.nodes, 2 * sizeof *rd.nodes);
    rd.nodes[1] = xstrdup("node-2");
    rd.nnodes = 2;
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 100.2, NAN);
    rd.cons[1].node = rd.cons[2].node = 1;
    msg(&rd, 100, 100.4, 150, 0, 100);
    msg(&rd, 300, 300.4, 350, 0, 300);
    rd.msgs[1].node = 1;
    fit_knobs k;
    fit_measure_dmlc(&rd, &dmlc_1s, &k);
    assert_int_equal(k.lag.n, 2);
    assert_float_equal(k.lag.v[0], 0.4, 1e-9);
    assert_float_equal(k.lag.v[1], 0.4, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* maxMessagesPerTask 3, a receive timeout of 1 s: 0.3 ms from an end to
 * the next begin within a task, 1.3 ms at a task's end, every next message
 * already in the buffer.  Boundaries after messages 3 and 6; then a wait of
 * 2.5 timeouts (2 empty receives) makes message 10 a task's last, so 10 to
 * 11 is one too; a wait of 1.995 timeouts cannot be counted, and nothing
 * after it is taken.  The stop 3 empty receives of 1000.9 ms and one
 * reschedule after the last message: an idle overhead of 0.9 ms once a
 * receive's share of the reschedule (1.3 / 3) is given back. */
static void dmlc_reschedule_at_task_ends(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    double t = 1;
    for (int i = 1; i <= 15; i++) {
        double pub = 0, begin = t;     /* in the buffer from the start */
        if (i == 10)
            pub = begin = t + 2500;
        if (i == 12)
            pub = begin = t + 1995;
        msg(&rd, pub, begin, begin + 10, 0, pub);
        t = begin + 10 + (i == 3 || i == 6 || i == 10 ? 1.3 : 0.3);
    }
    double last_end = rd.msgs[rd.nmsgs - 1].t_end;
    rd.cons[0].t_stop = last_end + 3 * 1000.9 + 1.3;
    fit_knobs k;
    fit_measure_dmlc(&rd, &per_task_3, &k);
    assert_int_equal(k.resched.n, 3);
    assert_float_equal(k.resched.mean, 1.3, 1e-9);
    /* bufferedReceiveLag within tasks only, and only where the position in
     * the task is known: the 1.995 s wait before message 12 leaves it
     * unknown from there on */
    assert_float_equal(k.buffered.mean, 0.3, 1e-9);
    assert_int_equal(k.buffered.n, 6);
    assert_int_equal(k.idle_stops, 1);
    assert_int_equal(k.idle_polls, 3);
    assert_float_equal(k.idle_less_ms, 1.3 / 3, 1e-9);
    assert_float_equal(k.idle_ms, 0.9, 1e-9);
    fit_knobs_free(&k);
    /* Tasks that never end (maxMessagesPerTask unlimited): no samples, and
     * the idle overhead keeps the reschedule */
    fit_measure_dmlc(&rd, &dmlc_1s, &k);
    assert_int_equal(k.resched.n, 0);
    assert_float_equal(k.idle_ms, 0.9 + 1.3 / 3, 1e-9);
    /* and every gap to a buffered message is bufferedReceiveLag's: 14
     * pairs less the two whose message came later, three of them 1.3 ms */
    assert_int_equal(k.buffered.n, 12);
    assert_float_equal(k.buffered.mean, (9 * 0.3 + 3 * 1.3) / 12, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* consumer_start stamped at the subscription, idleConsumerLimit 2: each
 * invoker's latency runs from the latest begin on its node before it (the
 * receipt that asked for it): 0.4 and 0.5 ms.  The invoker the container
 * began with (no begin before it) and one 400 ms after the last begin are
 * none. */
static void dmlc_start_at_the_subscription(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 100.4, NAN);
    consumer(&rd, 2, 106.5, NAN);
    consumer(&rd, 3, 600, NAN);
    msg(&rd, 99, 100, 150, 0, 99.5);
    msg(&rd, 99, 106, 156, 1, 105.5);
    msg(&rd, 110, 111, 200, 2, 110.5);
    fit_dmlc_setup u = dmlc_1s;
    u.start_is_subscribe = true;
    u.idle_consumer_limit = 2;
    fit_knobs k;
    fit_measure_dmlc(&rd, &u, &k);
    assert_int_equal(k.start.n, 2);
    assert_float_equal(k.start.mean, 0.45, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* idleConsumerLimit 1: an invoker is idle until its first receipt, so the
 * receipt that asked for the next is the first of the one started before
 * it.  Invoker 1 subscribes at 103, 3 ms after invoker 0's first begin
 * (its second, at 101.5, asked for nothing); invoker 2 at 106, 1 ms after
 * invoker 1's first.  With the latest begin instead: 1.5 and 1 ms. */
static void dmlc_start_from_the_first_receipt(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 103, NAN);
    consumer(&rd, 2, 106, NAN);
    msg(&rd, 99, 100, 101, 0, 99.5);
    msg(&rd, 99, 101.5, 110, 0, 99.5);
    msg(&rd, 99, 105, 120, 1, 104);
    fit_dmlc_setup u = dmlc_1s;
    u.start_is_subscribe = true;
    static const struct {
        int limit;
        double mean;
    } cases[] = { { 1, 2.0 }, { 2, 1.25 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        u.idle_consumer_limit = cases[i].limit;
        fit_knobs k;
        fit_measure_dmlc(&rd, &u, &k);
        assert_int_equal(k.start.n, 2);
        assert_float_equal(k.start.mean, cases[i].mean, 1e-9);
        fit_knobs_free(&k);
    }
    run_data_free(&rd);
}

/* An SMLC start's decision: of the consumers in their gap at the start,
 * the one whose cycle end plus overhead (2 ms, from consumer 0's five gaps)
 * is closest to it; consumer 0 (end 35, decision 37) and consumer 1 (end
 * 39, decision 41) are as close to the start at 39, and the first in
 * (node, consumer) order decides: the new consumer's first message waited
 * from 37 to its begin at 45. */
static void smlc_start_decision_closest_first_on_a_tie(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 0, NAN);
    consumer(&rd, 2, 39, NAN);
    for (int i = 0; i < 6; i++)
        msg(&rd, 0, 1 + 6 * i, 5 + 6 * i, 0, NAN);   /* gaps of 2 ms, the next one waiting */
    msg(&rd, 150, 200, 210, 0, NAN);
    msg(&rd, 0, 1, 39, 1, NAN);
    msg(&rd, 250, 300, 310, 1, NAN);
    msg(&rd, 20, 45, 50, 2, NAN);
    fit_knobs k;
    fit_smlc_setup u = smlc_setup(1);
    fit_measure_smlc(&rd, &u, &k);
    assert_int_equal(k.cycle_gaps, 5);
    assert_int_equal(k.ncycle, 1);
    assert_float_equal(k.cycle[0].value_ms, 2, 1e-9);
    assert_int_equal(k.start.n, 1);
    assert_float_equal(k.start.v[0], 8, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* Starts a runtime call asked for (at 100): three, one after another
 * every 30 ms under the lock, all beginning at its release (190.5); a
 * message of consumer 1 ends in the run (its decision at 121 is nearer the
 * second and third starts than the call) and decides nothing.  The call at
 * 500 starts none: the next start (900.2) is a message's decision (consumer
 * 0's end at 899 plus its 1 ms cycle overhead), 29.9 ms before its begin. */
static void smlc_starts_of_a_runtime_call(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    consumer(&rd, 0, 0, NAN);
    consumer(&rd, 1, 0, NAN);
    consumer(&rd, 2, 100.3, NAN);
    consumer(&rd, 3, 130.3, NAN);
    consumer(&rd, 4, 160.3, NAN);
    consumer(&rd, 5, 900.2, NAN);
    for (int i = 0; i < 90; i++)
        msg(&rd, 0, 10 * i, 10 * i + 9, 0, NAN);   /* cycle overhead 1 ms */
    msg(&rd, 0, 930, 939, 0, NAN);
    msg(&rd, 0, 60, 120, 1, NAN);
    msg(&rd, 0, 191, 250, 1, NAN);
    msg(&rd, 0, 190.5, 200, 2, NAN);
    msg(&rd, 0, 190.6, 200, 3, NAN);
    msg(&rd, 0, 190.7, 200, 4, NAN);
    msg(&rd, 0, 929.9, 940, 5, NAN);
    const double calls[] = { 100, 500 };
    fit_knobs k;
    measure_with_calls(&rd, calls, 2, &k);
    assert_int_equal(k.ncycle, 1);
    assert_float_equal(k.cycle[0].value_ms, 1, 1e-9);
    assert_int_equal(k.start.n, 4);
    assert_int_equal(k.start_by_calls, 3);
    assert_float_equal(k.start.v[0], 29.9, 1e-9);
    assert_float_equal(k.start.v[1], 30, 1e-9);
    assert_float_equal(k.start.v[2], 30, 1e-9);
    assert_float_equal(k.start.v[3], 30.2, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* Consumer 0 busy from 0 on, its cycle overhead 1 ms. */
static void busy_consumer(run_data *rd, int until)
{
    consumer(rd, 0, 0, NAN);
    for (int i = 0; i < until / 10; i++)
        msg(rd, 0, 10 * i, 10 * i + 9, 0, NAN);
}

/* Calls queued for the lock: at 100, 120 and 140 each start one consumer
 * (a step of 60 ms); the second and third wait for the release before
 * them, so their runs start at 160 and 220, later than the next call. */
static void smlc_runtime_calls_queued_for_the_lock(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    busy_consumer(&rd, 1000);
    for (int c = 1; c <= 3; c++) {
        consumer(&rd, c, 40 + 60 * c, NAN);
        msg(&rd, 0, 100 + 60 * c, 150 + 60 * c, c, NAN);
    }
    const double calls[] = { 100, 120, 140 };
    fit_knobs k;
    measure_with_calls(&rd, calls, 3, &k);
    assert_int_equal(k.start.n, 3);
    assert_int_equal(k.start_by_calls, 3);
    for (int i = 0; i < 3; i++)
        assert_float_equal(k.start.v[i], 60, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* A call's consumers that never begin (started at 100.1 and 108.1): their
 * one step is a sample, and the run ends there, not at a message-decided
 * start at 5000 (consumer 0's end at 4999 plus 1 ms; first begin 5010). */
static void smlc_runtime_call_whose_consumers_never_begin(void **state)
{
    (void)state;
    run_data rd;
    one_node(&rd);
    busy_consumer(&rd, 5000);
    msg(&rd, 0, 5020, 5029, 0, NAN);
    consumer(&rd, 1, 100.1, NAN);
    consumer(&rd, 2, 108.1, NAN);
    consumer(&rd, 3, 5000, NAN);
    msg(&rd, 0, 5010, 5050, 3, NAN);
    const double calls[] = { 100 };
    fit_knobs k;
    measure_with_calls(&rd, calls, 1, &k);
    assert_int_equal(k.start.n, 2);
    assert_int_equal(k.start_by_calls, 1);
    assert_float_equal(k.start.v[0], 8, 1e-9);
    assert_float_equal(k.start.v[1], 10, 1e-9);
    fit_knobs_free(&k);
    run_data_free(&rd);
}

/* A schedule's value at t: the last step begun by t (one that begins at t
 * has begun), 0 before the first. */
static void step_at_the_edges(void **state)
{
    (void)state;
    const fit_step s[3] = { { 0, 1, 5, 0 }, { 5000, 2, 5, 0 }, { 10000, 3, 5, 0 } };
    assert_float_equal(fit_step_at(s, 3, -1), 0, 0);
    assert_float_equal(fit_step_at(s, 3, 0), 1, 0);
    assert_float_equal(fit_step_at(s, 3, 4999.9), 1, 0);
    assert_float_equal(fit_step_at(s, 3, 5000), 2, 0);
    assert_float_equal(fit_step_at(s, 3, 1e9), 3, 0);
    assert_float_equal(fit_step_at(s, 0, 5000), 0, 0);
    assert_float_equal(fit_step_at(s, 1, 5000), 1, 0);
}

static void prediction_band_is_order_statistics(void **state)
{
    (void)state;
    double v[20], lo, hi;
    for (int i = 0; i < 20; i++)
        v[i] = i + 1;
    compare_band_of(v, 20, &lo, &hi);          /* j = floor(0.025 * 21) = 0 -> 1: the range */
    assert_float_equal(lo, 1, 0);
    assert_float_equal(hi, 20, 0);
    double w[119];
    for (int i = 0; i < 119; i++)
        w[i] = i;
    compare_band_of(w, 119, &lo, &hi);         /* j = 3 */
    assert_float_equal(lo, 2, 0);
    assert_float_equal(hi, 116, 0);
    compare_band_of(w, 1, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smlc_cycle_sum_and_idle_polls),
        cmocka_unit_test(smlc_idle_stops_of_the_idle_rule_only),
        cmocka_unit_test(dmlc_lag_and_start),
        cmocka_unit_test(dmlc_start_not_from_later_traffic),
        cmocka_unit_test(dmlc_lag_reads_its_own_node),
        cmocka_unit_test(dmlc_reschedule_at_task_ends),
        cmocka_unit_test(dmlc_start_at_the_subscription),
        cmocka_unit_test(dmlc_start_from_the_first_receipt),
        cmocka_unit_test(smlc_start_decision_closest_first_on_a_tie),
        cmocka_unit_test(smlc_starts_of_a_runtime_call),
        cmocka_unit_test(smlc_runtime_calls_queued_for_the_lock),
        cmocka_unit_test(smlc_runtime_call_whose_consumers_never_begin),
        cmocka_unit_test(step_at_the_edges),
        cmocka_unit_test(prediction_band_is_order_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
