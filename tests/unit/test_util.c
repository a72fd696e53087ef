/* Unit tests of the core's helpers (core/util/util.c): the binary search over a sorted list of
 * node ids that the collectives' sources and the accumulation targets share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stepnet/util.h"

static void test_u32_index(void **state)
{
    (void) state;
    static const uint32_t a[] = {0, 3, 4, 9, 100, 4000000000u};
    uint32_t n = sizeof a / sizeof a[0];
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(sn_u32_index(a, n, a[i]), i);
    /* between, before and after the values, and past a shorter prefix */
    assert_int_equal(sn_u32_index(a, n, 1), -1);
    assert_int_equal(sn_u32_index(a, n, 5), -1);
    assert_int_equal(sn_u32_index(a, n, 4000000001u), -1);
    assert_int_equal(sn_u32_index(a, 3, 9), -1);
    assert_int_equal(sn_u32_index(a, 1, 0), 0);
    /* the empty list */
    assert_int_equal(sn_u32_index(a, 0, 0), -1);
    assert_int_equal(sn_u32_index(NULL, 0, 7), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
