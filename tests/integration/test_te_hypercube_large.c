/* te-hypercube on the largest cubes its unit test leaves out (core/algo/hypercube): `stepnet sim`
 * on hypercube:11 and hypercube:12 (4 and 16.8 million deliveries, about a minute and a half
 * together on an idle 2-core machine, hence the labels slow and heavy) picks te-hypercube, verifies
 * every delivery and takes exactly 2^(d-1) steps, the prediction and the lower bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

static void test_te_hypercube_11_12(void **state)
{
    (void) state;
    for (int d = 11; d <= 12; d++) {
        char topo[32];
        snprintf(topo, sizeof topo, "hypercube:%d", d);
        const char *args[] = {"sim", "--topo", topo, "--coll", "te", "--json", NULL};
        /* a guard against a hung run only: the outcome does not depend on the machine's speed */
        tu_exec_opts_t o = {.name = "stepnet", .deadline_s = 1500.0};
        tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &o);
        tu_expect_status(&p, 0);
        const char *j = tu_json_line(&p);
        int64_t half = (int64_t) 1 << (d - 1);
        assert_string_equal(tu_jstr(j, "algorithm"), "te-hypercube");
        assert_true(tu_json_bool(j, "verified"));
        assert_int_equal(tu_json_int(j, "deliveries"), tu_json_int(j, "expected_deliveries"));
        assert_int_equal(tu_json_int(j, "steps"), half);
        assert_int_equal(tu_json_int(j, "predicted_steps"), half);
        assert_int_equal(tu_json_int(j, "lower_bound"), half);
        tu_exec_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_te_hypercube_11_12),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
