/* test_order.c -- order violations and inversions, per key. */
#include "testutil.h"

#include "order.h"

static void in_order_leaves_nothing_open(void **state)
{
    (void)state;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 0, -1);
    for (int i = 0; i < 1000; i++) {
        uint64_t s = order_issue(k);
        assert_false(order_has_earlier_open(k, s));
        order_mark_ended(k, s);
    }
    assert_int_equal(k->low, 1000);
    order_fini(&o);
}

static void out_of_order_is_seen_until_the_earlier_ends(void **state)
{
    (void)state;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 0, 3);
    uint64_t a = order_issue(k), b = order_issue(k), c = order_issue(k);
    assert_true(order_has_earlier_open(k, c));     /* c begins while a, b run */
    order_mark_ended(k, c);
    assert_true(order_has_earlier_open(k, b));
    order_mark_ended(k, a);
    assert_false(order_has_earlier_open(k, b));
    assert_int_equal(k->low, 1);
    order_mark_ended(k, b);
    assert_int_equal(k->low, 3);                   /* c's flag was kept and consumed */
    /* Another key is independent. */
    order_key *other = order_key_of(&o, 0, -1);
    uint64_t s = order_issue(other);
    assert_int_equal(s, 0);
    assert_false(order_has_earlier_open(other, s));
    order_fini(&o);
}

/* One message stays open while 10000 later ones end: the ring grows and
 * keeps every flag. */
static void ring_grows_past_its_first_word(void **state)
{
    (void)state;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 1, 100);
    uint64_t first = order_issue(k);
    for (int i = 0; i < 10000; i++) {
        uint64_t s = order_issue(k);
        assert_true(order_has_earlier_open(k, s));
        order_mark_ended(k, s);
    }
    order_mark_ended(k, first);
    assert_int_equal(k->low, 10001);
    assert_int_equal(k->issued, 10001);
    order_fini(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_leaves_nothing_open),
        cmocka_unit_test(out_of_order_is_seen_until_the_earlier_ends),
        cmocka_unit_test(ring_grows_past_its_first_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
