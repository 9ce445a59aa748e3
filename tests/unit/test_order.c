/* test_order.c -- order violations and inversions, per key. */
#include "testutil.h"

#include "engine/order.h"

static void in_order_leaves_nothing_open(void **state)
{
    (void)state;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 0, -1, 0);
    for (int i = 0; i < 1000; i++) {
        uint64_t s = order_issue(&o, k);
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
    order_key *k = order_key_of(&o, 0, 3, 0);
    uint64_t a = order_issue(&o, k), b = order_issue(&o, k), c = order_issue(&o, k);
    assert_true(order_has_earlier_open(k, c));     /* c begins while a, b run */
    order_mark_ended(k, c);
    assert_true(order_has_earlier_open(k, b));
    order_mark_ended(k, a);
    assert_false(order_has_earlier_open(k, b));
    assert_int_equal(k->low, 1);
    order_mark_ended(k, b);
    assert_int_equal(k->low, 3);                   /* c's flag was kept and consumed */
    /* Another key is independent. */
    order_key *other = order_key_of(&o, 0, -1, 0);
    uint64_t s = order_issue(&o, other);
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
    order_key *k = order_key_of(&o, 1, 100, 0);
    uint64_t first = order_issue(&o, k);
    for (int i = 0; i < 10000; i++) {
        uint64_t s = order_issue(&o, k);
        assert_true(order_has_earlier_open(k, s));
        order_mark_ended(k, s);
    }
    order_mark_ended(k, first);
    assert_int_equal(k->low, 10001);
    assert_int_equal(k->issued, 10001);
    order_fini(&o);
}

/* A new key holds its first 64 flags in itself; the 65th open number moves
 * them to a ring of two words, keeping every flag set out of order. */
static void flags_move_from_the_key_to_a_ring_intact(void **state)
{
    (void)state;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 0, 5, 0);
    assert_int_equal(order_words(k), 1);
    for (int i = 0; i < 64; i++)
        order_issue(&o, k);
    assert_int_equal(order_words(k), 1);            /* 64 open: still in the key */
    for (uint64_t s = 1; s < 64; s += 2)
        order_mark_ended(k, s);
    for (int i = 0; i < 100; i++)
        order_issue(&o, k);
    assert_true(order_words(k) >= 2);
    for (uint64_t s = 0; s < 64; s++)
        assert_int_equal(order_test_ended(k, s), s % 2 == 1);
    for (uint64_t s = 0; s < 64; s += 2)
        order_mark_ended(k, s);
    assert_int_equal(k->low, 64);
    for (uint64_t s = 64; s < 164; s++)
        order_mark_ended(k, s);
    assert_int_equal(k->low, 164);
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

/* Numbers issued and ended in a shuffled order, a window of them open at a
 * time, against a plain list of ended flags: order_end32 (and
 * order_mark_ended) move low as far as the lowest number not ended, and
 * say whether an earlier one was still open; the ring grows and wraps. */
static void ending_in_any_order_matches_a_plain_list(void **state)
{
    (void)state;
    enum { N = 60000 };
    bool *ended = xcalloc(N, sizeof *ended);
    uint32_t *open = xmalloc(N * sizeof *open);   /* issued, not ended */
    size_t nopen = 0;
    uint64_t issued = 0, low = 0, x = 5;
    order_tracker o;
    order_init(&o);
    order_key *k = order_key_of(&o, 2, 7, 0);
    for (int step = 0; issued < N || nopen > 0; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        /* windows of up to some 3,000 open numbers, growing and shrinking */
        size_t window = (size_t)((step / 4000) % 3 == 1 ? 3000 : 70);
        if (issued < N && (nopen < window ? (x >> 60) != 0 : (x >> 62) == 0)) {
            uint64_t s = order_issue(&o, k);
            assert_int_equal(s, issued);
            open[nopen++] = (uint32_t)s;
            issued++;
            continue;
        }
        if (!nopen)
            continue;
        size_t j = (size_t)((x >> 20) % nopen);
        uint32_t s = open[j];
        open[j] = open[--nopen];
        assert_int_equal(order_earlier_open32(k, order_seq_low32(s)), s != low);
        bool earlier = s != low;
        if ((x >> 10) & 1)
            assert_int_equal(order_end32(k, order_seq_low32(s)), earlier);
        else
            order_mark_ended(k, s);
        ended[s] = true;
        while (low < issued && ended[low])
            low++;
        assert_int_equal(k->low, low);
    }
    assert_int_equal(k->low, N);
    free(ended);
    free(open);
    order_fini(&o);
}

/* Keys by queue and group, groups coming in a shuffled order (the array
 * grows down and up): each key keeps its numbers through every move, a
 * queue's array stays within the ids that may exist, and another queue's
 * keys are its own. */
static void keys_by_group_survive_growth_either_way(void **state)
{
    (void)state;
    enum { G = 5000, FIRST = 3000 };          /* groups FIRST .. FIRST + G - 1 */
    order_tracker o;
    order_init(&o);
    uint64_t x = 11;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < G; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int g = FIRST + (int)((x >> 33) % G);
            order_issue(&o, order_key_of(&o, 1, g, FIRST + G + 1));
        }
    }
    order_issue(&o, order_key_of(&o, 0, FIRST, 0));
    uint64_t total = 0;
    for (int g = FIRST; g < FIRST + G; g++) {
        order_key *k = order_key_find(&o, 1, order_key_id(g));
        if (k)
            total += k->issued;
    }
    assert_int_equal(total, 3 * G);
    assert_true(o.queues[1].base + o.queues[1].n <= FIRST + G + 1);
    assert_int_equal(order_key_find(&o, 0, order_key_id(FIRST))->issued, 1);
    assert_null(order_key_find(&o, 0, order_key_id(FIRST + 1)));
    order_fini(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_leaves_nothing_open),
        cmocka_unit_test(out_of_order_is_seen_until_the_earlier_ends),
        cmocka_unit_test(ring_grows_past_its_first_word),
        cmocka_unit_test(flags_move_from_the_key_to_a_ring_intact),
        cmocka_unit_test(numbers_rebuilt_from_their_low_32_bits),
        cmocka_unit_test(ending_in_any_order_matches_a_plain_list),
        cmocka_unit_test(keys_by_group_survive_growth_either_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
