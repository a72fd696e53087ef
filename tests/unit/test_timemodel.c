/* Unit tests of core/model/timemodel.c: per slot the maximum over nodes of the link and NIC terms,
 * the floor of the slowest link, empty slots, the control legs, and the NIC terms from a concurrent
 * calibration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "stepnet/timemodel.h"
#include "stepnet/util.h"
#include "tests/support/testutil.h"

#define near(a, b) (fabs((a) - (b)) < 1e-9)

static void test_floor_and_slow_link(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:4"); /* edges 0-1, 1-2, 2-3 */
    double alpha[3] = {10, 1000, 10}, beta[3] = {0.01, 0.01, 0.01};
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .ctl_us = 50, .size = 100};
    sn_tm_t *m = sn_tm_new(t, &c);
    /* slot 1: node 0 sends data to 1; slot 3: node 2 sends to 1 over the slow edge */
    sn_tm_send(m, 1, 0, 0, 1);
    sn_tm_send(m, 3, 2, sn_topo_port(t, 2, 0)->peer == 1 ? 0 : 1, 1);
    sn_tm_result_t r;
    sn_tm_finish(m, 4, &r);
    /* every slot takes at least the slow edge's 1000; slot 3 adds its bytes */
    assert_true(near(r.floor_us, 1000));
    assert_true(near(r.slots_us, 1000 + 1000 + 1001 + 1000));
    assert_true(near(r.predicted_us, r.slots_us + 50));
    assert_int_equal(r.slots, 4);
    assert_int_equal(r.link_slots, 1);
    assert_int_equal(r.floor_slots, 3);
    assert_int_equal(r.max_slot, 3);
    assert_int_equal(r.max_slot_node, 2);
    sn_tm_free(m);
    sn_topo_free(t);
}

/* The in-band barrier's slots take what the repetitions' barrier measured, added after the
 * collective's slots, which took the floor: slots, floor slots, time and the largest slot. */
static void test_barrier_slots(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    double alpha[4] = {10, 10, 10, 10};
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .ctl_us = 5, .slot_us = 100};
    sn_tm_t *m = sn_tm_new(t, &c);
    sn_tm_send(m, 1, 0, 0, 1);
    sn_tm_result_t r;
    sn_tm_finish(m, 3, &r);
    assert_true(near(r.predicted_us, 5 + 3 * 100));
    sn_tm_add_barrier(&r, 2, 160);
    assert_int_equal(r.slots, 5);
    assert_int_equal(r.floor_slots, 5);
    assert_true(near(r.slots_us, 3 * 100 + 2 * 160));
    assert_true(near(r.predicted_us, 5 + 3 * 100 + 2 * 160));
    assert_true(near(r.max_slot_us, 160));
    assert_int_equal(r.max_slot_node, UINT32_MAX);
    sn_tm_add_barrier(&r, 0, 1000); /* no barrier: nothing changes */
    assert_true(near(r.predicted_us, 5 + 3 * 100 + 2 * 160));
    assert_true(near(r.max_slot_us, 160));
    sn_tm_free(m);
    sn_topo_free(t);
}

static void test_nic_sharing(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("complete:4");
    double alpha[6], beta[6], nalpha[4], nbeta[4];
    for (int e = 0; e < 6; e++)
        alpha[e] = 10, beta[e] = 0.001;
    for (int u = 0; u < 4; u++)
        nalpha[u] = 12, nbeta[u] = 0.01;
    sn_tm_calib_t c = {.edge_alpha_us = alpha,
                       .edge_beta_us = beta,
                       .node_alpha_us = nalpha,
                       .node_beta_us = nbeta,
                       .size = 1000};
    sn_tm_t *m = sn_tm_new(t, &c);
    /* slot 1: node 0 sends on its 3 links: the NIC term 12 + 3 * 1000 * 0.01 = 42 wins over the
     * link term 10 + 1 */
    for (uint32_t q = 0; q < 3; q++)
        sn_tm_send(m, 1, 0, q, 1);
    /* slot 2: node 1 sends one control packet: empty, the floor (12, a node's concurrent frames) */
    sn_tm_send(m, 2, 1, 0, 0);
    sn_tm_result_t r;
    sn_tm_finish(m, 2, &r);
    assert_true(near(r.floor_us, 12));
    assert_true(near(r.slots_us, 42 + 12));
    assert_int_equal(r.nic_slots, 1);
    assert_int_equal(r.floor_slots, 1);
    assert_int_equal(r.max_slot_node, 0);
    sn_tm_free(m);
    /* uncalibrated edges take the median of the measured ones; no node terms */
    double part[6] = {-1, 20, 30, -1, 40, -1};
    sn_tm_calib_t c2 = {.edge_alpha_us = part, .size = 8};
    m = sn_tm_new(t, &c2);
    sn_tm_finish(m, 3, &r);
    assert_true(near(r.floor_us, 40));
    assert_true(near(r.predicted_us, 120));
    sn_tm_free(m);
    /* a measured empty slot above every link raises the floor for the whole network */
    double al[6] = {10, 10, 10, 10, 10, 10};
    sn_tm_calib_t c3 = {.edge_alpha_us = al, .slot_us = 25, .size = 8};
    m = sn_tm_new(t, &c3);
    sn_tm_finish(m, 4, &r);
    assert_true(near(r.predicted_us, 100));
    assert_int_equal(r.floor_node, UINT32_MAX);
    sn_tm_free(m);
    /* a measured empty slot below the pings' half round trips is the floor all the same (the
     * pings pay their echoes' frames and wakeups), and the NIC terms add their bytes to it:
     * slot 1 is 30 + 3 x 1000 x 0.01 = 60, slot 2 the empty slot */
    double hi[6] = {45, 45, 45, 45, 45, 45}, nb[4] = {0.01, 0.01, 0.01, 0.01};
    double na[4] = {70, 70, 70, 70};
    sn_tm_calib_t c4 = {
        .edge_alpha_us = hi, .node_alpha_us = na, .node_beta_us = nb, .slot_us = 30, .size = 1000};
    m = sn_tm_new(t, &c4);
    for (uint32_t q = 0; q < 3; q++)
        sn_tm_send(m, 1, 0, q, 1);
    sn_tm_finish(m, 2, &r);
    assert_true(near(r.floor_us, 30));
    assert_true(near(r.slots_us, 60 + 30));
    assert_int_equal(r.nic_slots, 1);
    sn_tm_free(m);
    sn_topo_free(t);
}

static void test_slow_ping_capped_at_the_empty_slot(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    /* edge 0-1's pings were slowed to 2000 us while the empty slot of the whole network measured
     * 1000: a frame cannot take longer than the slot that waits for it, so a slot with data on
     * the edge costs the slot plus its bytes (1000 + 8 x 10), not the disturbed ping */
    double alpha[2] = {2000, 900}, beta[2] = {10, 10}, out[2];
    sn_tm_calib_t c = {.edge_alpha_us = alpha, .edge_beta_us = beta, .slot_us = 1000, .size = 8};
    sn_tm_edge_alpha(t, &c, out);
    assert_true(near(out[0], 1000));
    assert_true(near(out[1], 900));
    sn_tm_t *m = sn_tm_new(t, &c);
    sn_tm_send(m, 1, 0, 0, 1);
    sn_tm_result_t r;
    sn_tm_finish(m, 2, &r);
    assert_true(near(r.slots_us, 1080 + 1000));
    assert_int_equal(r.link_slots, 1);
    sn_tm_free(m);
    sn_topo_free(t);
}

static void test_probe_order_survives_a_transient(void **state)
{
    (void) state;
    /* 20 empty and 20 sized probes of 8 bytes on a link whose round trip is 2000 us empty and
     * 2016 us sized (2 us a byte, both ways); something slows the first 20 probes sent by 1500 us
     * each. The per-byte term (median sized - median empty) / 8 must stay near 2, not 190. */
    enum { P = 20 };
    double empty[P], sized[P];
    uint32_t ne = 0, ns = 0;
    for (uint32_t k = 0; k < 2 * P; k++) {
        double slow = k < P ? 1500 : 0;
        if (sn_tm_probe_sized(k, P))
            sized[ns++] = 2016 + slow;
        else
            empty[ne++] = 2000 + slow;
    }
    assert_int_equal(ne, P);
    assert_int_equal(ns, P);
    qsort(empty, P, sizeof *empty, sn_cmp_double);
    qsort(sized, P, sizeof *sized, sn_cmp_double);
    double beta = (sized[P / 2] - empty[P / 2]) / 8;
    assert_true(fabs(beta - 2) < 1e-9);
    /* a series cut short after its first pair keeps one of each */
    assert_false(sn_tm_probe_sized(0, P));
    assert_true(sn_tm_probe_sized(1, P));
}

/* A link's probes: `probes` empty ones alone first (its round trip, away from every sized probe
 * of the calibration), then the alternated pairs. */
static void test_clean_probes_first(void **state)
{
    (void) state;
    enum { P = 20 };
    for (uint32_t p = 0; p < 3 * P; p++)
        assert_int_equal(sn_tm_probe_clean(p, P), p < P);
    assert_false(sn_tm_probe_clean(0, 0));
}

static void test_probe_extra(void **state)
{
    (void) state;
    enum { P = 20 };
    uint64_t empty[P], sized[P];
    /* 8-byte probes: no real extra, noise of 600 us on one probe of a pair in seven pairs, on
     * either side, and a transient of 1.5 ms over the first 7 pairs: nothing resolved */
    for (uint32_t k = 0; k < P; k++) {
        uint64_t slow = k < 7 ? 1500000 : 0, noise = k % 3 == 0 ? 600000 : 0;
        empty[k] = 2000000 + slow + (k % 2 ? noise : 0);
        sized[k] = 2000000 + slow + (k % 2 ? 0 : noise);
    }
    assert_true(near(sn_tm_probe_extra(empty, sized, P), 0));
    /* a large probe: 1 ms more, the pairs within +-20 us of it, one pair hit by a transient */
    for (uint32_t k = 0; k < P; k++) {
        empty[k] = 2000000 + (k == 5 ? 3000000 : 0);
        sized[k] = 3000000 + (k % 2 ? 20000 : 0) - (k % 4 == 0 ? 20000 : 0);
    }
    double extra = sn_tm_probe_extra(empty, sized, P);
    assert_true(extra >= 980000 && extra <= 1020000);
    assert_int_equal(empty[5], 5000000); /* left unchanged */
    /* a sized probe faster than the empty one is no extra; no pairs, none */
    uint64_t e1[3] = {100, 100, 100}, s1[3] = {90, 80, 95};
    assert_true(near(sn_tm_probe_extra(e1, s1, 3), 0));
    assert_true(near(sn_tm_probe_extra(e1, s1, 0), 0));
}

/* The concurrent calibration's blocks: which rounds are sized, and the terms from each pair's sum
 * less its block's reference (the last two empty rounds). r[pos * stride + b]: round pos of
 * block b. */
static void set_block(uint64_t *r, uint32_t stride, uint32_t b, const uint64_t *rounds)
{
    for (uint32_t pos = 0; pos < SN_TM_CONC_BLOCK; pos++)
        r[pos * stride + b] = rounds[pos];
}

static void test_conc_rounds(void **state)
{
    (void) state;
    static const int sized[SN_TM_CONC_BLOCK] = {0, 0, 0, 0, 1, 0, 1, 0, 1};
    for (uint64_t k = 0; k < 3 * SN_TM_CONC_BLOCK; k++)
        assert_int_equal(sn_tm_conc_sized(k), sized[k % SN_TM_CONC_BLOCK]);
    uint64_t r[SN_TM_CONC_BLOCK * 3], rtt0, rtt;
    /* behind a token bucket: the empty round after a sized one waits for the node's own queued
     * bytes (1700 against 300), the first sized round of a block runs on what the bucket saved
     * (4000 against 3200); each pair moves the bytes of one slot in 4900, so the interface adds
     * 4300 to two empty rounds' 600, where a sized round less its empty one says 1500 */
    static const uint64_t tbf[SN_TM_CONC_BLOCK] = {1700, 300,  300,  300, 4000,
                                                   1700, 3200, 1700, 3200};
    set_block(r, 2, 0, tbf);
    set_block(r, 2, 1, tbf);
    sn_tm_conc_rtts(r, 2, 2, &rtt0, &rtt);
    assert_int_equal(rtt0, 300);
    assert_int_equal(rtt - rtt0, 4300);
    /* a node a round ahead of its neighbour across a 1 ms link: rounds of 0 and 2.1 ms in turn,
     * the blocks' nine rounds flipping the phase; nothing sized costs more */
    static const uint64_t even[SN_TM_CONC_BLOCK] = {0, 2100, 0, 2100, 0, 2100, 0, 2100, 0};
    static const uint64_t odd[SN_TM_CONC_BLOCK] = {2100, 0, 2100, 0, 2100, 0, 2100, 0, 2100};
    set_block(r, 3, 0, even);
    set_block(r, 3, 1, odd);
    set_block(r, 3, 2, even);
    sn_tm_conc_rtts(r, 3, 3, &rtt0, &rtt);
    assert_int_equal(rtt0, 1050);
    assert_int_equal(rtt, rtt0);
    /* rounds that drift over the series (100 a block) with sized ones 50 longer: the reference of
     * each block cancels the drift */
    for (uint32_t b = 0; b < 3; b++) {
        uint64_t d[SN_TM_CONC_BLOCK];
        for (uint32_t pos = 0; pos < SN_TM_CONC_BLOCK; pos++)
            d[pos] = 300 + 100 * b + (sized[pos] ? 50 : 0);
        set_block(r, 3, b, d);
    }
    sn_tm_conc_rtts(r, 3, 3, &rtt0, &rtt);
    assert_int_equal(rtt0, 400);
    assert_int_equal(rtt - rtt0, 50);
}

static void test_node_terms(void **state)
{
    (void) state;
    double a, b;
    /* 7 links, 1000 bytes: every neighbour's probe in after 2000 us, its empty one after 200 us:
     * the interface took 1800 us for 7000 bytes, and an empty round is one way */
    sn_tm_node_terms(200, 2000, 7, 1000, &a, &b);
    assert_true(near(a, 200));
    assert_true(near(b, 1800.0 / 7000));
    sn_tm_node_terms(200, 150, 7, 1000, &a, &b); /* noise: no negative beta */
    assert_true(near(b, 0));
    sn_tm_node_terms(200, 2000, 0, 1000, &a, &b);
    assert_true(near(b, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_and_slow_link),
        cmocka_unit_test(test_barrier_slots),
        cmocka_unit_test(test_nic_sharing),
        cmocka_unit_test(test_slow_ping_capped_at_the_empty_slot),
        cmocka_unit_test(test_probe_order_survives_a_transient),
        cmocka_unit_test(test_clean_probes_first),
        cmocka_unit_test(test_probe_extra),
        cmocka_unit_test(test_conc_rounds),
        cmocka_unit_test(test_node_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
