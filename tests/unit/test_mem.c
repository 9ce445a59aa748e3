/* test_mem.c -- xgrow_zeroed covers the index asked for, keeps what the
 * array held and zeroes every element it adds, however far past the end
 * the index lies. */
#include "testutil.h"

#include <malloc.h>

static void covers_the_index_keeps_the_old_and_zeroes_the_new(void **state)
{
    (void)state;
    int32_t *a = NULL;
    size_t n = 0;
    xgrow_zeroed((void **)&a, &n, 0, sizeof *a);
    assert_true(n >= 1);
    assert_int_equal(a[0], 0);
    for (size_t i = 0; i < n; i++)
        a[i] = (int32_t)i + 1;
    size_t old = n;
    xgrow_zeroed((void **)&a, &n, old - 1, sizeof *a);      /* covered: no change */
    assert_int_equal(n, old);
    xgrow_zeroed((void **)&a, &n, 100000, sizeof *a);
    assert_true(n > 100000);
    for (size_t i = 0; i < old; i++)
        assert_int_equal(a[i], (int32_t)i + 1);
    for (size_t i = old; i < n; i++)
        assert_int_equal(a[i], 0);
    free(a);
}

/* Elements wider than a byte and an array grown in many small steps: each
 * step's new part is zero, set entries survive every move. */
static void grows_step_by_step_with_wide_elements(void **state)
{
    (void)state;
    struct wide { int64_t a, b, c; } *w = NULL;
    size_t n = 0;
    for (size_t i = 0; i < 5000; i += 7) {
        xgrow_zeroed((void **)&w, &n, i, sizeof *w);
        assert_true(i < n);
        assert_true(w[i].a == 0 && w[i].b == 0 && w[i].c == 0);
        w[i] = (struct wide){ (int64_t)i, -(int64_t)i, 1 };
    }
    for (size_t i = 0; i < n; i++) {
        int set = i % 7 == 0 && i < 5000;
        assert_true(w[i].a == (set ? (int64_t)i : 0));
        assert_true(w[i].c == set);
    }
    free(w);
}

int main(void)
{
    /* glibc: what malloc and realloc hand out is filled with a non-zero
     * byte, so only an explicit zeroing passes (fresh pages are zero). */
    mallopt(M_PERTURB, 0x5a);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(covers_the_index_keeps_the_old_and_zeroes_the_new),
        cmocka_unit_test(grows_step_by_step_with_wide_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
