/* Unit tests of the core's helpers (core/util/util.c): the binary search over a sorted list of
 * node ids that the collectives' sources and the accumulation targets share, and the edit
 * distance behind every "did you mean". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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

/* One edit each: insertion, deletion, substitution, a swap of neighbours; capped past cap. */
static void test_edit_distance(void **state)
{
    (void) state;
    assert_int_equal(sn_edit_distance("bcast", 5, "bcast", 2), 0);
    assert_int_equal(sn_edit_distance("bcst", 4, "bcast", 2), 1);
    assert_int_equal(sn_edit_distance("bcaast", 6, "bcast", 2), 1);
    assert_int_equal(sn_edit_distance("bcest", 5, "bcast", 2), 1);
    assert_int_equal(sn_edit_distance("bcsat", 5, "bcast", 2), 1);
    assert_int_equal(sn_edit_distance("gather", 6, "scatter", 3), 3);
    assert_int_equal(sn_edit_distance("hypercube", 9, "te", 2), 3); /* capped at cap + 1 */
    /* only the first na characters of a count */
    assert_int_equal(sn_edit_distance("ring:4", 4, "ring", 2), 0);
    char longw[80];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = '\0';
    assert_int_equal(sn_edit_distance(longw, strlen(longw), longw, 2), 3);
}

/* A typo's nearest candidate, the allowance by length, ties, NULL and equal candidates. */
static void test_suggest(void **state)
{
    (void) state;
    static const char *const c[] = {"bcast", NULL, "scatter", "gather", "te", "mnb"};
    size_t n = sizeof c / sizeof c[0];
    assert_string_equal(sn_suggest("bcst", 4, c, n), "bcast");
    assert_string_equal(sn_suggest("scater", 6, c, n), "scatter");
    assert_string_equal(sn_suggest("gathr", 5, c, n), "gather");
    /* two edits in a word of 6 or more, one below that, none below 3 */
    assert_string_equal(sn_suggest("scattr1", 7, c, n), "scatter");
    assert_null(sn_suggest("bxsx", 4, c, n));
    assert_null(sn_suggest("tx", 2, c, n));
    assert_null(sn_suggest("mn", 2, c, n));
    /* the word itself is nothing to suggest; nothing near is NULL */
    assert_null(sn_suggest("bcast", 5, c, n));
    assert_null(sn_suggest("allreduce", 9, c, n));
    /* ties go to the first */
    static const char *const tie[] = {"abcd", "abce"};
    assert_string_equal(sn_suggest("abcf", 4, tie, 2), "abcd");
    assert_null(sn_suggest("abcf", 4, tie, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_index),
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
