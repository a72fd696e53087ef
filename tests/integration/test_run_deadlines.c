/* Integration tests of the deadlines that follow progress and the model (node/exec.c,
 * coordinator/control.c; docs/runtime.md, "Deadlines"): runs that outlast the old wall-clock
 * deadlines verify with every deadline at its default. A 1 GiB packet streams for longer than the
 * 5 s silence limit; a 3 s emulated delay makes the calibration outlast the 30 s ready deadline;
 * a 1 s emulated jitter does the same with the default 20 probes. Their outcome does not depend
 * on the machine's speed: the deadlines they meet scale with the frame and with the emulated
 * delays, and only the test's own (generous) deadline measures the wall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* A run that must verify: exit 0 and a verified JSON report. */
static void expect_verified(tu_proc_t *p)
{
    if (p->status != 0)
        fail_msg("%s: exit %d after %.1f s:\n%s", p->cmd, p->status, p->secs, p->err);
    const char *j = tu_json_line(p);
    assert_non_null(j);
    assert_true(tu_json_bool(j, "verified"));
    print_message("  %s: verified in %.1f s\n", p->cmd, p->secs);
}

/* One 1 GiB frame takes seconds to stream and check: the slot deadline restarts while its bytes
 * arrive (it failed "link 0-1 went silent" at 5 s). */
static void test_gib_packet_defaults(void **state)
{
    (void) state;
    tu_proc_t p =
        TU_STEPNET(300, "run", "--topo", "linear:2", "--coll", "bcast", "--size", "1073741824",
                   "--reps", "1", "--warmup", "0", "--probes", "2", "--json");
    expect_verified(&p);
    tu_exec_free(&p);
}

/* Every frame waits 3 s on the link: the calibration's 2 x 2 ping-pongs and 2 x 2 concurrent
 * rounds take about 48 s, beyond the 30 s ready deadline it ran under (it failed "ready deadline:
 * links calibrated"); the slots wait 3 s each, the empty-slot measurement three of them. */
static void test_delay_3s_defaults(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(600, "run", "--topo", "linear:2", "--coll", "bcast", "--reps", "1",
                             "--warmup", "0", "--probes", "2", "--link-delay", "3s", "--json");
    expect_verified(&p);
    tu_exec_free(&p);
}

/* Every frame waits up to 1 s: the default 20 probes take about 40 s to calibrate (it did not
 * finish: the ready deadline, then 60 idle slots of the empty-slot measurement). */
static void test_jitter_1s_defaults(void **state)
{
    (void) state;
    tu_proc_t p =
        TU_STEPNET(600, "run", "--topo", "linear:2", "--coll", "bcast", "--reps", "1", "--warmup",
                   "0", "--link-jitter", "1s", "--link-delay", "1ms", "--json");
    expect_verified(&p);
    tu_exec_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gib_packet_defaults),
        cmocka_unit_test(test_delay_3s_defaults),
        cmocka_unit_test(test_jitter_1s_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
