/* Tests that `stepnet sim --json` reports its own peak resident set in peak_rss_kb: started by a
 * parent (this test) that holds 200 MiB it has touched, the simulator of a small collective must
 * report far less than the parent's peak, which getrusage's ru_maxrss carries across fork and
 * exec on Linux. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/support/testutil.h"

#define PARENT_HOLDS_KB (200L * 1024)
/* A ring:8 broadcast needs a few MiB; a quarter of the parent's holding leaves room for any
 * allocator and sanitizer while staying far below what an inherited peak would show. */
#define CHILD_AT_MOST_KB (PARENT_HOLDS_KB / 4)

static void test_peak_rss_is_the_simulators_own(void **state)
{
    (void) state;
    size_t n = (size_t) PARENT_HOLDS_KB * 1024;
    volatile char *held = malloc(n);
    assert_non_null((void *) held);
    /* touch every page, so that the parent's resident set really holds them */
    memset((void *) held, 0x5a, n);
    tu_exec_opts_t o = {.name = "stepnet"};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET"),
                          (const char *const[]){"sim", "--topo", "ring:8", "--coll", "bcast",
                                                "--threads", "1", "--json", NULL},
                          &o);
    tu_expect_status(&p, 0);
    const char *j = tu_json_line(&p);
    int64_t kb = tu_json_int(j, "peak_rss_kb");
    /* held is still in use here, so that its pages stay resident while the child runs */
    assert_int_equal(held[n - 1], 0x5a);
    if (kb <= 0 || kb > CHILD_AT_MOST_KB)
        fail_msg("peak_rss_kb %lld under a parent holding %ld KiB (want 1..%ld): %s",
                 (long long) kb, PARENT_HOLDS_KB, CHILD_AT_MOST_KB, p.out);
    tu_exec_free(&p);
    free((void *) held);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_rss_is_the_simulators_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
