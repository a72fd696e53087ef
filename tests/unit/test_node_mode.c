/* Unit tests of the node's table of execution modes (node/exec.c, node_internal.h): every mode of
 * SN_SYNC_MAP has a table with every operation set, each mode its own, and nothing outside the
 * list has one; and the modes' parts of an assignment and of a Result (mode_slot.c,
 * mode_dataflow.c), which need no loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "node/node_internal.h"
#include "stepnet/rxplan.h"

static void test_every_mode_has_ops(void **state)
{
    (void) state;
    for (unsigned s = 0; s < SN_SYNC_COUNT; s++) {
        const sn_node_mode_ops_t *m = sn__node_mode((sn_sync_t) s);
        assert_non_null(m);
        assert_non_null(m->mode_assign);
        assert_non_null(m->mode_start);
        assert_non_null(m->mode_begin);
        assert_non_null(m->mode_frame);
        assert_non_null(m->mode_awaited);
        assert_non_null(m->mode_missing);
        assert_non_null(m->mode_result);
        assert_non_null(m->mode_free);
        for (unsigned o = 0; o < s; o++)
            assert_ptr_not_equal(sn__node_mode((sn_sync_t) o), m);
    }
    assert_null(sn__node_mode(SN_SYNC_COUNT));
}

/* The table is the one the modes' files define, row by row. */
static void test_rows(void **state)
{
    (void) state;
    assert_ptr_equal(sn__node_mode(SN_SYNC_SLOT), &sn__node_mode_slot);
    assert_ptr_equal(sn__node_mode(SN_SYNC_DATAFLOW), &sn__node_mode_dataflow);
}

/* The slot barrier refuses an assignment that carries a receive plan, and takes one without. */
static void test_slot_assign(void **state)
{
    (void) state;
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    uint64_t plan[] = {3};
    sn_err_t err = {0};
    node_t nd = {0};
    assert_int_equal(sn__node_mode_slot.mode_assign(&nd, &a, &err), 0);
    a.n_rx_plan = 1;
    a.rx_plan = plan;
    assert_int_equal(sn__node_mode_slot.mode_assign(&nd, &a, &err), SN_EINVAL);
    assert_string_equal(err.msg, "a receive plan without --sync dataflow");
}

/* The slot barrier's Result reports where the collective went quiet: the learned stop it played,
 * else the last done start its termination detection found. */
static void test_slot_result(void **state)
{
    (void) state;
    node_t nd = {0};
    Stepnet__Result r = STEPNET__RESULT__INIT;
    nd.ex.cmax = 17;
    sn__node_mode_slot.mode_result(&nd, &r);
    assert_true(r.has_quiet_slot);
    assert_int_equal(r.quiet_slot, 17);
    nd.ex.quiet = 12;
    sn__node_mode_slot.mode_result(&nd, &r);
    assert_int_equal(r.quiet_slot, 12);
}

/* Dataflow takes the receive plan of its assignment (refusing a bad one), waits for nothing
 * before its first slot is chosen, reports no quiet slot, and marks in the trace every recorded
 * (slot, port) its plan holds no frame on, keeping the planned ones' arrivals and the slots' send
 * times. */
static void test_dataflow_plan_and_trace(void **state)
{
    (void) state;
    enum { DEG = 2, CAP = 4, STRIDE = 1 + DEG };
    node_t nd = {0};
    link_t links[DEG] = {{.port = 0}, {.port = 1}};
    nd.deg = DEG;
    nd.links = links;
    nd.diameter = 3;
    nd.max_slots = 100;
    sn_err_t err = {0};
    /* port 0 receives in slots 1 and 3, port 1 in slot 2 */
    uint64_t plan[] = {sn_rxplan_encode(1, 0, DEG), sn_rxplan_encode(2, 1, DEG),
                       sn_rxplan_encode(3, 0, DEG)};
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    uint64_t unsorted[] = {plan[1], plan[0]};
    a.n_rx_plan = 2;
    a.rx_plan = unsorted;
    assert_true(sn__node_mode_dataflow.mode_assign(&nd, &a, &err) < 0);
    sn__node_mode_dataflow.mode_free(&nd); /* a refused assignment: nothing was kept */
    assert_null(nd.ex.mode_state);
    a.n_rx_plan = 3;
    a.rx_plan = plan;
    assert_int_equal(sn__node_mode_dataflow.mode_assign(&nd, &a, &err), 0);
    assert_non_null(nd.ex.mode_state);
    sn__node_mode_dataflow.mode_start(&nd);
    uint32_t hops = 0;
    assert_int_equal(sn__node_mode_dataflow.mode_awaited(&nd, &hops), 0);
    assert_int_equal(hops, 3);
    for (uint32_t q = 0; q < DEG; q++)
        assert_false(sn__node_mode_dataflow.mode_missing(&nd, &links[q]));
    /* the trace: slots' send times in column 0, arrivals of (1, 0) and (3, 0), (2, 1) before the
     * Start (0) */
    uint64_t trace[CAP * STRIDE] = {0};
    for (uint64_t s = 1; s <= CAP; s++)
        trace[(s - 1) * STRIDE] = 100 * s;
    trace[0 * STRIDE + 1] = 11;
    trace[2 * STRIDE + 1] = 33;
    nd.ex.trace_cap = CAP;
    nd.ex.trace_slots = trace;
    Stepnet__Result r = STEPNET__RESULT__INIT;
    sn__node_mode_dataflow.mode_result(&nd, &r);
    assert_false(r.has_quiet_slot);
    const uint64_t none = SN_WIRE_TRACE_NO_FRAME;
    const uint64_t want[CAP * STRIDE] = {100, 11, none, 200, none, 0,
                                         300, 33, none, 400, none, none};
    assert_memory_equal(trace, want, sizeof want);
    sn__node_mode_dataflow.mode_free(&nd);
    assert_null(nd.ex.mode_state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_mode_has_ops),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_slot_assign),
        cmocka_unit_test(test_slot_result),
        cmocka_unit_test(test_dataflow_plan_and_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
