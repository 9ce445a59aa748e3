/* test_calendar.c -- the event calendar: (time, sequence) order, cancel,
 * stale ids, growth from a tiny heap, and a randomised check against a
 * sorted reference. */
#include "testutil.h"

#include "engine/calendar.h"

static void noop(sim_ctx *ctx, void *self, void *arg)
{
    (void)ctx;
    (void)self;
    (void)arg;
}

static const sim_event_type ev = { "test.noop", noop };

static void same_instant_in_schedule_order(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    calendar_add(&c, 5, &ev, NULL, (void *)"b");
    calendar_add(&c, 5, &ev, NULL, (void *)"c");
    calendar_add(&c, 1, &ev, NULL, (void *)"a");
    calendar_add(&c, 5, &ev, NULL, (void *)"d");
    char got[16] = "";
    cal_event e;
    while (calendar_pop(&c, &e))
        strcat(got, (const char *)e.arg);
    assert_string_equal(got, "abcd");
    calendar_fini(&c);
}

static void cancel_and_stale_ids(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 2);
    sim_event_id a = calendar_add(&c, 10, &ev, NULL, (void *)"a");
    sim_event_id b = calendar_add(&c, 20, &ev, NULL, (void *)"b");
    sim_event_id x = calendar_add(&c, 15, &ev, NULL, (void *)"x");
    assert_true(calendar_pending(&c, x));
    assert_true(calendar_cancel(&c, x));
    assert_false(calendar_cancel(&c, x));          /* already cancelled */
    assert_false(calendar_pending(&c, x));
    cal_event e;
    assert_true(calendar_pop(&c, &e));
    assert_string_equal(e.arg, "a");
    assert_false(calendar_cancel(&c, a));          /* already ran */
    /* The freed timer is reused: the old id must not reach the new event. */
    sim_event_id y = calendar_add(&c, 12, &ev, NULL, (void *)"y");
    assert_false(calendar_cancel(&c, a));
    assert_false(calendar_cancel(&c, x));
    assert_true(calendar_pending(&c, y));
    assert_true(calendar_pop(&c, &e));
    assert_string_equal(e.arg, "y");
    assert_true(calendar_pop(&c, &e));
    assert_string_equal(e.arg, "b");
    assert_false(calendar_pending(&c, b));
    assert_false(calendar_pop(&c, &e));
    assert_false(calendar_cancel(&c, 0));
    calendar_fini(&c);
}

/* 20000 random adds and cancels, popped in order: times never decrease and
 * equal times come out in the order they were added. */
static void random_against_reference(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    enum { N = 20000 };
    sim_event_id *ids = xcalloc(N, sizeof *ids);
    uint64_t *order = xcalloc(N, sizeof *order);
    sim_time *times = xcalloc(N, sizeof *times);
    bool *cancelled = xcalloc(N, sizeof *cancelled);
    uint64_t x = 12345;
    size_t live = 0;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        times[i] = (sim_time)((x >> 33) % 500);
        order[i] = i;
        ids[i] = calendar_add(&c, times[i], &ev, NULL, &order[i]);
        live++;
        if (i > 10 && (x >> 20) % 4 == 0) {
            size_t k = (size_t)((x >> 40) % i);
            if (!cancelled[k] && calendar_cancel(&c, ids[k])) {
                cancelled[k] = true;
                live--;
            }
        }
    }
    assert_int_equal(calendar_size(&c), live);
    cal_event e;
    sim_time last_t = -1;
    uint64_t last_i = 0;
    size_t popped = 0;
    while (calendar_pop(&c, &e)) {
        uint64_t i = *(uint64_t *)e.arg;
        assert_false(cancelled[i]);
        assert_int_equal(e.t, times[i]);
        assert_true(e.t > last_t || (e.t == last_t && i > last_i));
        last_t = e.t;
        last_i = i;
        popped++;
    }
    assert_int_equal(popped, live);
    free(ids);
    free(order);
    free(times);
    free(cancelled);
    calendar_fini(&c);
}

/* The heap's order holds (four children a node) and every timer knows
 * where its entry is, but the running event's, which is not pending; while
 * an event runs, the entry an add put at the top may still be later than
 * its children (calendar_done settles it). */
static void check_heap(const calendar *c)
{
    for (size_t i = 0; i < c->n; i++) {
        if (!(i == 0 && c->top == TOP_RUNNING))
            assert_int_equal(c->heap_timer[i]->pos, i);
        if (i > 0 && !(calendar_top_unsettled(c) && (i - 1) / 4 == 0)) {
            size_t p = (i - 1) / 4;
            assert_true(c->heap_t[p] < c->heap_t[i] ||
                        (c->heap_t[p] == c->heap_t[i] &&
                         c->heap_timer[p]->seq < c->heap_timer[i]->seq));
        }
    }
}

/* True cancellation: a cancelled event leaves the heap at once, so the
 * heap never holds more entries than live events (no stale entries to pop
 * past), through any mix of adds, cancels and pops. */
static void cancelled_entries_leave_the_heap(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    enum { N = 3000 };
    sim_event_id ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = calendar_add(&c, (sim_time)((i * 7919) % 1000), &ev, NULL, NULL);
    uint64_t x = 99;
    size_t live = N;
    for (int round = 0; round < 2 * N; round++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((x >> 33) % N);
        if ((x >> 20) % 3 == 0) {
            cal_event e;
            if (calendar_pop(&c, &e))
                live--;
        } else if (calendar_cancel(&c, ids[k])) {
            live--;
            assert_false(calendar_pending(&c, ids[k]));
        }
        assert_int_equal(c.n, live);
        if (round % 97 == 0)
            check_heap(&c);
    }
    check_heap(&c);
    calendar_fini(&c);
}

/* While an event runs (between calendar_begin and calendar_done) it is no
 * longer pending; the first event added takes its entry over; events
 * cancelled or added meanwhile leave the heap in order; and the order
 * events come out in is the one a plain pop and push would give: a
 * randomised run of handlers that add 0, 1 or 2 events and cancel some,
 * against a second calendar driven only by calendar_pop. */
/* Handlers that add 0, 1 or 2 events (ties with now too) and cancel
 * some, run through begin/done, against a second calendar driven only by
 * calendar_pop: the same events in the same order.  `initial` events to
 * start with: a small heap settles its top at once, a large one when the
 * handler is done. */
static void against_plain_pops(size_t initial, int steps)
{
    calendar r, p;                      /* run through begin/done; plain pops */
    calendar_init(&r, 1);
    calendar_init(&p, 1);
    size_t cap = initial + 2 * (size_t)steps + 64;
    sim_event_id *ir = xcalloc(cap, sizeof *ir), *ip = xcalloc(cap, sizeof *ip);
    uint64_t *tag = xcalloc(cap, sizeof *tag);
    size_t added = 0;
    bool unsettled_seen = false, swapped_seen = false;
    for (; added < initial; added++) {
        tag[added] = added;
        sim_time t = (sim_time)(added * 37 % (initial + 18));
        ir[added] = calendar_add(&r, t, &ev, NULL, &tag[added]);
        ip[added] = calendar_add(&p, t, &ev, NULL, &tag[added]);
    }
    uint64_t x1 = 777;
    for (int step = 0; step < steps && added + 3 < cap; step++) {
        cal_event er, ep;
        bool hr = calendar_begin(&r, &er), hp = calendar_pop(&p, &ep);
        assert_int_equal(hr, hp);
        if (!hr)
            break;
        assert_int_equal(er.t, ep.t);
        assert_ptr_equal(er.arg, ep.arg);
        x1 = x1 * 6364136223846793005ULL + 1442695040888963407ULL;
        int adds = (int)((x1 >> 33) % 3);
        bool cancel_first = (x1 >> 40) % 5 == 0, cancel_between = (x1 >> 44) % 7 == 0;
        size_t k = (size_t)((x1 >> 20) % added);
        if (cancel_first)               /* cancel an earlier event in both */
            assert_int_equal(calendar_cancel(&r, ir[k]), calendar_cancel(&p, ip[k]));
        for (int j = 0; j < adds; j++) {
            x1 = x1 * 6364136223846793005ULL + 1442695040888963407ULL;
            sim_time t = er.t + (sim_time)((x1 >> 33) % 40);   /* ties with now too */
            tag[added] = added;
            ir[added] = calendar_add(&r, t, &ev, NULL, &tag[added]);
            ip[added] = calendar_add(&p, t, &ev, NULL, &tag[added]);
            added++;
            unsettled_seen |= r.top == TOP_ADDED;
            swapped_seen |= r.top == TOP_SWAPPED;
            if (j == 0 && cancel_between) {     /* also the unsettled top itself */
                size_t victim = (x1 >> 50) % 2 ? added - 1 : k;
                assert_int_equal(calendar_cancel(&r, ir[victim]),
                                 calendar_cancel(&p, ip[victim]));
            }
        }
        if (step % 53 == 0)
            check_heap(&r);
        calendar_done(&r);
        assert_int_equal(r.top, TOP_SORTED);
        assert_int_equal(calendar_size(&r), calendar_size(&p));
        if (step % 53 == 0)
            check_heap(&r);
    }
    /* A large heap leaves the top unsettled, and an add swaps with it. */
    assert_int_equal(unsettled_seen && swapped_seen, initial >= 64);
    free(ir);
    free(ip);
    free(tag);
    calendar_fini(&r);
    calendar_fini(&p);
}

static void running_event_gives_its_entry_over(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    sim_event_id a = calendar_add(&c, 10, &ev, NULL, (void *)"a");
    calendar_add(&c, 20, &ev, NULL, (void *)"b");
    cal_event e;
    assert_true(calendar_begin(&c, &e));
    assert_string_equal(e.arg, "a");
    assert_false(calendar_pending(&c, a));
    assert_false(calendar_cancel(&c, a));
    sim_event_id x = calendar_add(&c, 15, &ev, NULL, (void *)"x");   /* takes a's entry */
    sim_event_id y = calendar_add(&c, 15, &ev, NULL, (void *)"y");
    assert_true(calendar_pending(&c, x));
    assert_false(calendar_pending(&c, a));
    assert_int_equal(calendar_size(&c), 3);
    check_heap(&c);
    calendar_done(&c);
    assert_int_equal(calendar_size(&c), 3);
    assert_true(calendar_cancel(&c, y));
    assert_true(calendar_begin(&c, &e));
    assert_string_equal(e.arg, "x");
    calendar_done(&c);                  /* nothing added: its entry leaves */
    assert_int_equal(calendar_size(&c), 1);
    assert_true(calendar_pop(&c, &e));
    assert_string_equal(e.arg, "b");
    assert_false(calendar_begin(&c, &e));
    calendar_fini(&c);

    against_plain_pops(32, 4000);
    against_plain_pops(1000, 20000);
}

/* A model's timers and pooled events share one (time, sequence) order: a
 * timer takes its number when armed, and one armed again while pending
 * takes a new one (it moves, as if cancelled first). */
static void timers_and_pooled_events_in_one_order(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    sim_timer t1, t2;
    sim_timer_init(&t1, &ev, NULL, (void *)"t1");
    sim_timer_init(&t2, &ev, NULL, (void *)"t2");
    assert_false(sim_timer_pending(&t1));
    assert_false(calendar_disarm(&c, &t1));
    calendar_arm(&c, &t1, 5);
    calendar_add(&c, 5, &ev, NULL, (void *)"p");
    calendar_arm(&c, &t2, 5);
    calendar_add(&c, 1, &ev, NULL, (void *)"a");
    calendar_arm(&c, &t1, 5);                      /* moves behind p and t2 */
    assert_true(sim_timer_pending(&t1));
    assert_int_equal(calendar_size(&c), 4);
    char got[32] = "";
    cal_event e;
    while (calendar_pop(&c, &e))
        strcat(got, (const char *)e.arg);
    assert_string_equal(got, "apt2t1");
    assert_false(sim_timer_pending(&t1));
    calendar_arm(&c, &t2, 9);
    calendar_add(&c, 7, &ev, NULL, (void *)"q");
    assert_true(calendar_disarm(&c, &t2));
    assert_false(calendar_disarm(&c, &t2));
    assert_false(sim_timer_pending(&t2));
    assert_true(calendar_pop(&c, &e));
    assert_string_equal(e.arg, "q");
    assert_false(calendar_pop(&c, &e));
    calendar_fini(&c);
}

/* A timer's event, being run, is not pending; armed again by its handler
 * it takes its own entry over at the top. */
static void running_timer_arms_itself_again(void **state)
{
    (void)state;
    calendar c;
    calendar_init(&c, 1);
    sim_timer t;
    sim_timer_init(&t, &ev, NULL, (void *)"t");
    calendar_arm(&c, &t, 10);
    calendar_add(&c, 20, &ev, NULL, (void *)"b");
    cal_event e;
    assert_true(calendar_begin(&c, &e));
    assert_string_equal(e.arg, "t");
    assert_false(sim_timer_pending(&t));
    assert_false(calendar_disarm(&c, &t));
    calendar_arm(&c, &t, 30);
    assert_true(sim_timer_pending(&t));
    assert_int_equal(c.top, TOP_SORTED);
    check_heap(&c);
    calendar_done(&c);
    assert_int_equal(calendar_size(&c), 2);
    assert_true(calendar_begin(&c, &e));
    assert_string_equal(e.arg, "b");
    calendar_done(&c);
    assert_true(calendar_begin(&c, &e));
    assert_string_equal(e.arg, "t");
    calendar_done(&c);                  /* not armed again: its entry leaves */
    assert_false(sim_timer_pending(&t));
    assert_int_equal(calendar_size(&c), 0);
    assert_false(calendar_begin(&c, &e));
    calendar_fini(&c);
}

/* Handlers that arm, move and disarm a model's timers among pooled events,
 * run through begin/done, against a second calendar driven only by
 * calendar_pop with timers of its own: the same events in the same order,
 * small heaps and large. */
static void timers_against_plain_pops(size_t ntimers, int steps)
{
    calendar r, p;
    calendar_init(&r, 1);
    calendar_init(&p, 1);
    sim_timer *tr = xcalloc(ntimers, sizeof *tr), *tp = xcalloc(ntimers, sizeof *tp);
    uint64_t *tag = xcalloc(ntimers + (size_t)steps, sizeof *tag);
    for (size_t k = 0; k < ntimers; k++) {
        tag[k] = k;
        sim_timer_init(&tr[k], &ev, NULL, &tag[k]);
        sim_timer_init(&tp[k], &ev, NULL, &tag[k]);
        calendar_arm(&r, &tr[k], (sim_time)(k * 13 % 50));
        calendar_arm(&p, &tp[k], (sim_time)(k * 13 % 50));
    }
    size_t added = ntimers;
    uint64_t x = 4242;
    for (int step = 0; step < steps; step++) {
        cal_event er, ep;
        bool hr = calendar_begin(&r, &er), hp = calendar_pop(&p, &ep);
        assert_int_equal(hr, hp);
        if (!hr)
            break;
        assert_int_equal(er.t, ep.t);
        assert_ptr_equal(er.arg, ep.arg);
        for (int j = 0; j < 3; j++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t k = (size_t)((x >> 20) % ntimers);
            sim_time t = er.t + (sim_time)((x >> 33) % 30);   /* ties with now too */
            switch ((x >> 50) % 4) {
            case 0:                     /* arm or move a timer, maybe the running one */
                calendar_arm(&r, &tr[k], t);
                calendar_arm(&p, &tp[k], t);
                break;
            case 1:
                assert_int_equal(calendar_disarm(&r, &tr[k]), calendar_disarm(&p, &tp[k]));
                break;
            case 2:
                tag[added] = added;
                calendar_add(&r, t, &ev, NULL, &tag[added]);
                calendar_add(&p, t, &ev, NULL, &tag[added]);
                added++;
                break;
            default:
                break;
            }
            assert_int_equal(sim_timer_pending(&tr[k]), sim_timer_pending(&tp[k]));
        }
        if (step % 61 == 0)
            check_heap(&r);
        calendar_done(&r);
        assert_int_equal(calendar_size(&r), calendar_size(&p));
    }
    free(tr);
    free(tp);
    free(tag);
    calendar_fini(&r);
    calendar_fini(&p);
}

static void timers_mixed_with_pooled_events(void **state)
{
    (void)state;
    timers_against_plain_pops(6, 5000);
    timers_against_plain_pops(300, 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_instant_in_schedule_order),
        cmocka_unit_test(cancel_and_stale_ids),
        cmocka_unit_test(random_against_reference),
        cmocka_unit_test(cancelled_entries_leave_the_heap),
        cmocka_unit_test(running_event_gives_its_entry_over),
        cmocka_unit_test(timers_and_pooled_events_in_one_order),
        cmocka_unit_test(running_timer_arms_itself_again),
        cmocka_unit_test(timers_mixed_with_pooled_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
