/* test_numfmt.c -- counts print as whole numbers in full (12000, not
 * 1.2e+04 nor 12000.000), however large a double holds them exactly;
 * other figures keep the digits asked for. */
#include "testutil.h"

#include "base/numfmt.h"

#include <math.h>

static void expect(double v, int digits, const char *want)
{
    char buf[64];
    num_format(buf, sizeof buf, v, digits);
    assert_string_equal(buf, want);
}

static void whole_numbers_print_in_full(void **state)
{
    (void)state;
    expect(12, 4, "12");
    expect(12000, 4, "12000");
    expect(123456789012.0, 10, "123456789012");
    expect(9007199254740991.0, 6, "9007199254740991");
    expect(-250, 4, "-250");
    expect(0, 4, "0");
    expect(-0.0, 4, "0");
}

static void other_figures_keep_their_digits(void **state)
{
    (void)state;
    expect(10.56338028169, 10, "10.56338028");
    expect(0.0006184, 4, "0.0006184");
    expect(47210.5, 4, "4.721e+04");
    expect(9007199254740992.0 * 4, 6, "3.60288e+16");   /* past 2^53: not every digit is real */
    expect(NAN, 4, "nan");
    expect(INFINITY, 4, "inf");
}

static void whole_is_exact_and_finite(void **state)
{
    (void)state;
    assert_true(num_is_whole(3000));
    assert_false(num_is_whole(3000.5));
    assert_false(num_is_whole(NAN));
    assert_false(num_is_whole(INFINITY));
    assert_false(num_is_whole(1e300));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_numbers_print_in_full),
        cmocka_unit_test(other_figures_keep_their_digits),
        cmocka_unit_test(whole_is_exact_and_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
