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

/* A message keeps the low 32 bits of its number: rebuilt against the key's
 * lowest open number across the 2^32 boundary, and the window that allows
 * it ends at 2^32 numbers. */
static void numbers_rebuilt_from_their_low_32_bits(void **state)
{
    (void)state;
    order_key k = { .low = (1ULL << 32) - 3, .issued = (1ULL << 32) + 5 };
    for (uint64_t s = k.low; s < k.issued; s++)
        assert_int_equal(order_seq_rebuild(&k, order_seq_low32(s)), s);
    k = (order_key){ .low = 7ULL << 32, .issued = (7ULL << 32) + 10 };
    assert_int_equal(order_seq_rebuild(&k, order_seq_low32((7ULL << 32) + 9)), (7ULL << 32) + 9);
    assert_true(order_window_fits(&k));
    k.issued = k.low + (1ULL << 32);          /* the last number still rebuilt */
    assert_true(order_window_fits(&k));
    assert_int_equal(order_seq_rebuild(&k, order_seq_low32(k.issued - 1)), k.issued - 1);
    k.issued++;                               /* one more would be taken for k.low */
    assert_false(order_window_fits(&k));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_leaves_nothing_open),
        cmocka_unit_test(out_of_order_is_seen_until_the_earlier_ends),
        cmocka_unit_test(ring_grows_past_its_first_word),
        cmocka_unit_test(numbers_rebuilt_from_their_low_32_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
