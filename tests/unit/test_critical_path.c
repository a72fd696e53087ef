/* Unit tests of core/model/critical_path.c: the dataflow time of small hand-computed schedules (a
 * path broadcast is its chain, a single-port star serializes its sends, a schedule whose slot
 * barrier costs more than its critical path, the frames' work) and the shared link terms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stepnet/critical_path.h"
#include "tests/support/testutil.h"

#define near(a, b) (fabs((a) - (b)) < 1e-9)

static const sn_portmodel_t multi = {SN_PORTS_MULTI, SN_RX_ONE, SN_DUPLEX_FULL};
static const sn_portmodel_t single = {SN_PORTS_SINGLE, SN_RX_ONE, SN_DUPLEX_FULL};

/* The port of u that leads to v. */
static uint32_t port_to(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    uint32_t first, count;
    sn_topo_ports_to(t, u, v, &first, &count);
    assert_int_equal(count, 1);
    return first;
}

static void test_path_broadcast_is_its_chain(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:4");
    double alpha[3] = {10, 10, 10}, beta[3] = {1, 1, 1};
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .ctl_us = 7, .size = 5};
    sn_cp_t *m = sn_cp_new(t, &c, multi);
    /* node i forwards in slot i+1 what reached it in slot i: each hop 10 + 5 x 1 after the last */
    for (uint32_t u = 0; u < 3; u++)
        sn_cp_send(m, u + 1, u, port_to(t, u, u + 1), 1);
    sn_cp_result_t r;
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 45));
    assert_true(near(r.predicted_us, 52));
    assert_int_equal(r.last_node, 3);
    assert_int_equal(r.last_slot, 3);
    assert_int_equal(r.transmissions, 3);
    sn_cp_free(m);
    sn_topo_free(t);
}

static void test_single_port_star_serializes(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("complete:4");
    double alpha[6], beta[6];
    for (int e = 0; e < 6; e++)
        alpha[e] = 10, beta[e] = 1;
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .size = 5};
    /* node 0 sends to 1, 2, 3 in slots 1, 2, 3: one port, each send occupies it 5 us, and
     * nothing reached node 0 before, so the sends start at 0, 5, 10 and arrive 15, 20, 25 */
    sn_cp_t *m = sn_cp_new(t, &c, single);
    for (uint32_t v = 1; v < 4; v++)
        sn_cp_send(m, v, 0, port_to(t, 0, v), 1);
    sn_cp_result_t r;
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 25));
    assert_int_equal(r.last_node, 3);
    sn_cp_free(m);
    /* the same sends on separate ports of the multi-port model all start at once */
    m = sn_cp_new(t, &c, multi);
    for (uint32_t v = 1; v < 4; v++)
        sn_cp_send(m, v, 0, port_to(t, 0, v), 1);
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 15));
    sn_cp_free(m);
    sn_topo_free(t);
}

static void test_barrier_costs_more_than_the_path(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:4");
    double alpha[3] = {100, 10, 10}, beta[3] = {0, 0, 0};
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .size = 8};
    /* slot 1: 0 -> 1 over the slow edge, 2 -> 3; slot 2: 3 answers 2. Under the barrier both
     * slots wait for the slow edge (200); without it the answer arrives at 20 and the slow frame
     * at 100, which is the whole run */
    sn_cp_t *m = sn_cp_new(t, &c, multi);
    sn_tm_t *slots = sn_tm_new(t, &c);
    uint32_t sends[3][3] = {{1, 0, 1}, {1, 2, 3}, {2, 3, 2}}; /* slot, from, to */
    for (int i = 0; i < 3; i++) {
        uint32_t port = port_to(t, sends[i][1], sends[i][2]);
        sn_cp_send(m, sends[i][0], sends[i][1], port, 1);
        sn_tm_send(slots, sends[i][0], sends[i][1], port, 1);
    }
    sn_cp_result_t r;
    sn_tm_result_t s;
    sn_cp_finish(m, &r);
    sn_tm_finish(slots, 2, &s);
    assert_true(near(r.path_us, 100));
    assert_int_equal(r.last_node, 1);
    assert_true(near(s.slots_us, 200));
    sn_tm_free(slots);
    sn_cp_free(m);
    sn_topo_free(t);
}

static void test_waits_for_earlier_slots_only(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    double alpha[2] = {10, 10}, beta[2] = {0, 0};
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .size = 8};
    /* slot 1: 0 -> 1 and 1 -> 2: node 1's send does not wait for a frame of its own slot; slot 3:
     * 1 -> 2 again waits for the frame of slot 1 (10), sent at 10, arrives at 20 */
    sn_cp_t *m = sn_cp_new(t, &c, multi);
    sn_cp_send(m, 1, 0, 0, 1);
    sn_cp_send(m, 1, 1, port_to(t, 1, 2), 1);
    sn_cp_result_t r;
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 10));
    sn_cp_send(m, 3, 1, port_to(t, 1, 2), 0);
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 20));
    assert_int_equal(r.last_slot, 3);
    sn_cp_free(m);
    sn_topo_free(t);
}

static void test_nic_serializes_data(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("complete:4");
    double alpha[6], beta[6], nalpha[4] = {0}, nbeta[4] = {2, 2, 2, 2};
    for (int e = 0; e < 6; e++)
        alpha[e] = 10, beta[e] = 1;
    sn_tm_calib_t c = {.edge_alpha_us = alpha,
                       .edge_beta_us = beta,
                       .node_alpha_us = nalpha,
                       .node_beta_us = nbeta,
                       .size = 5};
    /* three data sends of node 0 in one slot share its NIC, 5 x 2 each: start 0, 10, 20; the
     * last arrives once the NIC has passed it (10, slower than the link's 5) and its alpha */
    sn_cp_t *m = sn_cp_new(t, &c, multi);
    for (uint32_t q = 0; q < 3; q++)
        sn_cp_send(m, 1, 0, q, 1);
    sn_cp_result_t r;
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 20 + 10 + 10));
    sn_cp_free(m);
    /* a link slower than the NIC (beta 3: 15 a packet) sets the arrival instead */
    for (int e = 0; e < 6; e++)
        beta[e] = 3;
    m = sn_cp_new(t, &c, multi);
    for (uint32_t q = 0; q < 3; q++)
        sn_cp_send(m, 1, 0, q, 1);
    sn_cp_finish(m, &r);
    assert_true(near(r.path_us, 20 + 10 + 15));
    sn_cp_free(m);
    sn_topo_free(t);
}

/* The frames' work: each transmission costs its share of the measured empty slot beyond the
 * slowest edge, (E - A) / (2 nedges); nothing without a measured empty slot or when the slowest
 * edge takes all of it. */
static void test_frames_work(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4"); /* 4 edges, 8 directed links */
    double alpha[4] = {10, 20, 10, 10}, beta[4] = {0, 0, 0, 0};
    /* the last case: the steady cost of the empty slot, when given, instead of the slot */
    double empty_slot[4] = {60, 0, 15, 60}, steady[4] = {0, 0, 0, 40}, work[4] = {5, 0, 0, 2.5};
    for (int k = 0; k < 4; k++) {
        sn_tm_calib_t c = {.edge_alpha_us = alpha,
                           .edge_beta_us = beta,
                           .ctl_us = 1,
                           .slot_us = empty_slot[k],
                           .steady_slot_us = steady[k],
                           .size = 8};
        sn_cp_t *m = sn_cp_new(t, &c, multi);
        sn_cp_send(m, 1, 0, port_to(t, 0, 1), 1);
        sn_cp_send(m, 1, 2, port_to(t, 2, 3), 1);
        sn_cp_send(m, 2, 1, port_to(t, 1, 2), 0); /* a control frame costs its share too */
        sn_cp_result_t r;
        sn_cp_finish(m, &r);
        assert_int_equal(r.transmissions, 3);
        assert_true(near(r.frame_us, work[k]));
        assert_true(near(r.cpu_us, 3 * work[k]));
        assert_true(near(r.predicted_us, r.ctl_us + r.path_us + r.cpu_us));
        sn_cp_free(m);
    }
    sn_topo_free(t);
}

static void test_empty_schedule(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_tm_calib_t c = {.ctl_us = 3};
    sn_cp_t *m = sn_cp_new(t, &c, multi);
    sn_cp_send(m, 1, 9, 0, 1); /* out of range: ignored */
    sn_cp_result_t r;
    sn_cp_finish(m, &r);
    assert_true(near(r.predicted_us, 3));
    assert_int_equal(r.last_node, UINT32_MAX);
    assert_int_equal(r.transmissions, 0);
    sn_cp_free(m);
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_broadcast_is_its_chain),
        cmocka_unit_test(test_single_port_star_serializes),
        cmocka_unit_test(test_barrier_costs_more_than_the_path),
        cmocka_unit_test(test_waits_for_earlier_slots_only),
        cmocka_unit_test(test_nic_serializes_data),
        cmocka_unit_test(test_frames_work),
        cmocka_unit_test(test_empty_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
