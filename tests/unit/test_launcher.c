/* Unit tests of launch/ready.c: the ready deadline's default follows the launch mode and the
 * number of nodes (ssh sessions cost more than local processes), and is bounded; the launch mode
 * of a run's options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "launch/launch.h"
#include "tests/support/testutil.h"

/* The former fixed default (30 s) is the base; each node adds its launch's share. */
static void test_default_by_mode_and_nodes(void **state)
{
    (void) state;
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_LOCAL, 0), 30000);
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_LOCAL, 4), 30080);
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_LOCAL, 4096), 30000 + 20 * 4096);
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_JOIN, 16), 30320);
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_DAEMONS, 16), 30320);
    /* 16 nodes over ssh failed at 30 s on a loaded machine: their default is about twice that */
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_SSH, 16), 62000);
    assert_int_equal(sn_launch_ready_default_ms(SN_LAUNCH_SSH, 1), 32000);
}

/* More nodes never shorten it, an ssh launch is never shorter than another, and the largest node
 * count stays within the option's range (one day) instead of wrapping. */
static void test_default_monotone_and_bounded(void **state)
{
    (void) state;
    const sn_launch_mode_t modes[] = {SN_LAUNCH_LOCAL, SN_LAUNCH_JOIN, SN_LAUNCH_SSH,
                                      SN_LAUNCH_DAEMONS};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        uint32_t prev = 0;
        for (uint32_t n = 0; n < 5000; n += 7) {
            uint32_t ms = sn_launch_ready_default_ms(modes[m], n);
            assert_true(ms >= prev);
            assert_true(ms <= SN_LAUNCH_READY_MAX_MS);
            assert_true(sn_launch_ready_default_ms(SN_LAUNCH_SSH, n) >= ms);
            prev = ms;
        }
        assert_int_equal(sn_launch_ready_default_ms(modes[m], UINT32_MAX), SN_LAUNCH_READY_MAX_MS);
    }
}

static void test_mode_of_options(void **state)
{
    (void) state;
    sn_coord_opts_t o;
    sn_coord_opts_default(&o);
    assert_int_equal(sn_launch_mode_of(&o), SN_LAUNCH_LOCAL);
    assert_int_equal(o.ready_ms, 0); /* the default: computed for the run */
    o.join = 1;
    assert_int_equal(sn_launch_mode_of(&o), SN_LAUNCH_JOIN);
    o.join = 0;
    o.daemons = "10.0.0.1:7100";
    assert_int_equal(sn_launch_mode_of(&o), SN_LAUNCH_DAEMONS);
    o.daemons = NULL;
    o.hosts = "h1:4";
    assert_int_equal(sn_launch_mode_of(&o), SN_LAUNCH_SSH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_by_mode_and_nodes),
        cmocka_unit_test(test_default_monotone_and_bounded),
        cmocka_unit_test(test_mode_of_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
