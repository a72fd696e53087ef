/* Unit tests of the test helpers themselves (tests/support/testutil.c): a known run through tu_sim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "tests/support/testutil.h"

static void test_ring_bcast(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:8");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    tu_run_t r = tu_sim(t, &p, NULL);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 4);
    assert_int_equal(r.predicted, 4);
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_ring_bcast)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
