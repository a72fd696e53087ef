/* Unit tests of the receive plan of --sync dataflow (core/model/rxplan.c): its encoding, the
 * checks a node applies to the plan it receives, its construction from a dry run, and the
 * decision of which logical slot a node plays next and when it may play it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "stepnet/model.h"
#include "stepnet/rxplan.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

static void test_encode_roundtrip(void **state)
{
    (void) state;
    const uint64_t slots[] = {1, 2, 7, 1000000};
    for (uint32_t deg = 1; deg <= 9; deg += 4)
        for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
            for (uint32_t q = 0; q < deg; q++) {
                uint64_t s;
                uint32_t p;
                sn_rxplan_decode(sn_rxplan_encode(slots[i], q, deg), deg, &s, &p);
                assert_int_equal(s, slots[i]);
                assert_int_equal(p, q);
            }
    /* ordered by slot, then by port */
    assert_true(sn_rxplan_encode(2, 0, 4) > sn_rxplan_encode(1, 3, 4));
    assert_true(sn_rxplan_encode(2, 1, 4) > sn_rxplan_encode(2, 0, 4));
}

static void test_check(void **state)
{
    (void) state;
    sn_err_t err = {0};
    uint64_t ok[] = {sn_rxplan_encode(1, 0, 3), sn_rxplan_encode(1, 2, 3),
                     sn_rxplan_encode(4, 1, 3)};
    tu_assert_rc(sn_rxplan_check(ok, 3, 3, 4, &err), 0);
    tu_assert_rc(sn_rxplan_check(NULL, 0, 0, 4, &err), 0);
    /* past the slot limit */
    tu_assert_rc(sn_rxplan_check(ok, 3, 3, 3, &err), SN_EPROTO);
    assert_non_null(strstr(err.msg, "slot 4"));
    /* repeated, or out of order */
    uint64_t dup[] = {ok[0], ok[0]};
    tu_assert_rc(sn_rxplan_check(dup, 2, 3, 9, &err), SN_EPROTO);
    uint64_t back[] = {ok[2], ok[1]};
    tu_assert_rc(sn_rxplan_check(back, 2, 3, 9, &err), SN_EPROTO);
    assert_non_null(strstr(err.msg, "increasing"));
    /* receptions on a node without links, and more than a plan may hold (counted before the
     * entries are read) */
    tu_assert_rc(sn_rxplan_check(ok, 1, 0, 9, &err), SN_EPROTO);
    tu_assert_rc(sn_rxplan_check(ok, (size_t) SN_RXPLAN_MAX_NODE + 1, 3, 9, &err), SN_EPROTO);
}

static void test_next_slot(void **state)
{
    (void) state;
    uint64_t none[3] = {SN_RXPLAN_NONE, SN_RXPLAN_NONE, SN_RXPLAN_NONE};
    /* every node plays slot 1; afterwards nothing is left without arrivals or a wake */
    assert_int_equal(sn_rxplan_next_slot(0, SN_WAKE_NEVER, none, 3), 1);
    assert_true(sn_rxplan_next_slot(1, SN_WAKE_NEVER, none, 3) == SN_RXPLAN_NONE);
    assert_int_equal(sn_rxplan_next_slot(1, 5, none, 3), 5);
    /* the slot after the earliest planned arrival, or the wake if that comes first */
    uint64_t head[3] = {SN_RXPLAN_NONE, 6, 3};
    assert_int_equal(sn_rxplan_next_slot(1, SN_WAKE_NEVER, head, 3), 4);
    assert_int_equal(sn_rxplan_next_slot(1, 2, head, 3), 2);
    assert_int_equal(sn_rxplan_next_slot(1, 4, head, 3), 4);
    assert_int_equal(sn_rxplan_next_slot(1, 9, head, 3), 4);
    /* slots in which the node is not stepped are skipped: a leaf of a broadcast waits for its
     * one packet, planned at slot 3 */
    uint64_t leaf[1] = {3};
    assert_int_equal(sn_rxplan_next_slot(1, SN_WAKE_NEVER, leaf, 1), 4);
}

static void test_ready(void **state)
{
    (void) state;
    uint64_t head[3] = {3, 3, 5};
    uint8_t have[3] = {1, 0, 0};
    /* slot 4 needs the slot-3 frames of ports 0 and 1, not port 2's of slot 5 */
    assert_false(sn_rxplan_ready(4, head, have, 3));
    have[1] = 1;
    assert_true(sn_rxplan_ready(4, head, have, 3));
    /* a wake slot with nothing planned just before it waits for nothing */
    uint8_t nothing[3] = {0, 0, 0};
    assert_true(sn_rxplan_ready(2, head, nothing, 3));
    uint64_t none[1] = {SN_RXPLAN_NONE};
    assert_true(sn_rxplan_ready(1, none, nothing, 1));
}

/* The plan of a dry run holds every transmission once, at its receiver, on the receiver's port of
 * the link: a broadcast on hypercube:3 reaches every node but the root once, within 3 slots, over
 * a hypercube link. */
static void test_build_bcast(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t pred = -1;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select(NULL, t, &p, &a, &plan, &pred, &err), 0);
    sn_rxplan_t pl;
    tu_assert_rc(sn_rxplan_build(t, &p, a, plan, 100, 0, &pl, &err), 0);
    assert_int_equal(pl.total, 7);
    assert_int_equal(pl.nrx[0], 0);
    for (uint32_t u = 1; u < 8; u++) {
        assert_int_equal(pl.nrx[u], 1);
        uint64_t s;
        uint32_t q;
        sn_rxplan_decode(pl.rx[u][0], sn_topo_degree(t, u), &s, &q);
        const sn_port_t *pp = sn_topo_port(t, u, q);
        assert_int_equal(__builtin_popcount(pp->peer ^ u), 1); /* a hypercube link */
        assert_true(s >= 1 && s <= 3);
    }
    /* one frame per link: nothing beyond a window of one or two; node 0 receives none */
    assert_int_equal(sn_rxplan_frames_beyond(&pl, t, 1), 0);
    assert_int_equal(sn_rxplan_frames_beyond(&pl, t, 0), 7);
    /* an assignment holds one reception of 10 bytes at most beside 90 others in 100 bytes, not
     * beside 91 */
    tu_assert_rc(sn_rxplan_check_wire(&pl, 90, 100, &err), 0);
    tu_assert_rc(sn_rxplan_check_wire(&pl, 91, 100, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "node 1 receives 1 packets"));
    /* every node's plan passes the node's own check */
    for (uint32_t u = 0; u < 8; u++)
        tu_assert_rc(sn_rxplan_check(pl.rx[u], pl.nrx[u], sn_topo_degree(t, u), 100, &err), 0);
    sn_rxplan_free(&pl);
    /* bounded: a limit below the plan's bytes refuses it, naming --max-memory's reason */
    tu_assert_rc(sn_rxplan_build(t, &p, a, plan, 100, sn_rxplan_bytes(6, 8), &pl, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_MEMORY);
    assert_non_null(strstr(err.msg, "receive plan"));
    a->plan_free(plan);
    sn_topo_free(t);
}

/* Every transmission of te on torus:3x3 (a dense schedule) is in the plan exactly once, and the
 * plan's receptions per node equal the simulator's deliveries plus forwarded packets. */
static void test_build_total(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t pred = -1;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select(NULL, t, &p, &a, &plan, &pred, &err), 0);
    sn_sim_opts_t so = {0};
    sn_sim_result_t sr;
    tu_assert_rc(sn_sim_run(t, &p, a, plan, &so, &sr, &err), 0);
    sn_rxplan_t pl;
    tu_assert_rc(sn_rxplan_build(t, &p, a, plan, 1000, 0, &pl, &err), 0);
    assert_int_equal(pl.total, sr.packets + sr.control_packets);
    for (uint32_t u = 0; u < t->n; u++)
        tu_assert_rc(sn_rxplan_check(pl.rx[u], pl.nrx[u], sn_topo_degree(t, u), sr.steps, &err), 0);
    sn_rxplan_free(&pl);
    a->plan_free(plan);
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_roundtrip), cmocka_unit_test(test_check),
        cmocka_unit_test(test_next_slot),        cmocka_unit_test(test_ready),
        cmocka_unit_test(test_build_bcast),      cmocka_unit_test(test_build_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
