/* Unit tests of coordinator/timing.c: the clock offset of a node from control round trips (the
 * shortest round trip wins, the true offset within the stated uncertainty whatever the split of
 * the trip), the span of a collective over the nodes' own timestamps with and without offsets, the
 * mean of the nodes' own times, the median; the empty slot from samples spread through the run
 * (a transient at start-up or in one repetition does not move it) and the reasons to call its
 * calibration disturbed, on synthetic samples. timing.c is pure: no clocks, no sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "coordinator/timing.h"
#include "stepnet/error.h"

/* A probe sent at `sent` on the coordinator's clock to a node whose clock reads `off` more, with
 * `out` ns on the way there and `back` ns on the way back. */
static sn_coord_clock_sample_t probe(uint64_t sent, int64_t off, uint64_t out, uint64_t back)
{
    sn_coord_clock_sample_t s = {sent, (uint64_t) ((int64_t) (sent + out) + off),
                                 sent + out + back};
    return s;
}

static void test_offset_symmetric(void **state)
{
    (void) state;
    sn_coord_clock_sample_t s[1] = {probe(1000000, 5000, 200, 200)};
    int64_t off;
    uint64_t unc;
    assert_int_equal(sn_coord_clock_offset(s, 1, &off, &unc), 0);
    assert_int_equal(off, 5000);
    assert_int_equal(unc, 200);
}

static void test_offset_negative_and_shortest(void **state)
{
    (void) state;
    /* the node's clock is behind; the long probes are skewed, the shortest is not */
    sn_coord_clock_sample_t s[4] = {
        probe(10000000, -3000000, 9000, 100), probe(10050000, -3000000, 50, 50),
        probe(10100000, -3000000, 100, 7000), probe(10200000, -3000000, 400, 300)};
    int64_t off;
    uint64_t unc;
    assert_int_equal(sn_coord_clock_offset(s, 4, &off, &unc), 0);
    assert_int_equal(off, -3000000);
    assert_int_equal(unc, 50);
}

static void test_offset_within_uncertainty(void **state)
{
    (void) state;
    /* an asymmetric trip: the estimate is off, but by no more than the stated uncertainty */
    for (uint64_t out = 0; out <= 1000; out += 125) {
        sn_coord_clock_sample_t s[1] = {probe(500000, 777, out, 1000 - out)};
        int64_t off;
        uint64_t unc;
        assert_int_equal(sn_coord_clock_offset(s, 1, &off, &unc), 0);
        int64_t err = off - 777;
        assert_true(err <= (int64_t) unc && -err <= (int64_t) unc);
    }
}

static void test_offset_refuses(void **state)
{
    (void) state;
    int64_t off;
    uint64_t unc;
    assert_int_equal(sn_coord_clock_offset(NULL, 0, &off, &unc), SN_EINVAL);
    sn_coord_clock_sample_t bad[1] = {{2000, 1500, 1000}}; /* back before it left */
    assert_int_equal(sn_coord_clock_offset(bad, 1, &off, &unc), SN_EINVAL);
}

static void test_span_one_clock(void **state)
{
    (void) state;
    uint64_t start[3] = {1000, 900, 1200}, done[3] = {5000, 4000, 6500};
    assert_int_equal(sn_coord_coll_span_ns(start, done, NULL, 3), 6500 - 900);
    /* one node */
    assert_int_equal(sn_coord_coll_span_ns(start, done, NULL, 1), 4000);
}

static void test_span_offsets(void **state)
{
    (void) state;
    /* the collective of test_span_one_clock read on clocks that are off by `off` */
    int64_t off[3] = {1000000, -400, 37};
    uint64_t start[3] = {1000 + 1000000, 900 - 400, 1200 + 37};
    uint64_t done[3] = {5000 + 1000000, 4000 - 400, 6500 + 37};
    assert_int_equal(sn_coord_coll_span_ns(start, done, off, 3), 6500 - 900);
    /* read without the offsets, the first node's clock makes nonsense of it */
    assert_int_equal(sn_coord_coll_span_ns(start, done, NULL, 3), 1005000 - 500);
}

static void test_span_never_negative(void **state)
{
    (void) state;
    /* offsets that overcorrect cannot make a span negative when each node completes after it
     * starts: it is at least the longest node's own interval */
    uint64_t start[2] = {100, 100}, done[2] = {150, 400};
    int64_t off[2] = {-1000, 1000};
    assert_int_equal(sn_coord_coll_span_ns(start, done, off, 2), 1150 - (-900));
    int64_t off_late[2] = {1000, -1000};
    assert_true(sn_coord_coll_span_ns(start, done, off_late, 2) >= 300);
}

static void test_node_mean(void **state)
{
    (void) state;
    /* the nodes of test_span_one_clock: own times 4000, 3100 and 5300 */
    uint64_t start[3] = {1000, 900, 1200}, done[3] = {5000, 4000, 6500};
    assert_int_equal(sn_coord_node_mean_ns(start, done, 3), 4133);
    assert_true(sn_coord_node_mean_ns(start, done, 3) <=
                sn_coord_coll_span_ns(start, done, NULL, 3));
    /* own clocks: an offset between the nodes does not change it */
    uint64_t start_off[3] = {1000 + 1000000, 900 - 400, 1200 + 37};
    uint64_t done_off[3] = {5000 + 1000000, 4000 - 400, 6500 + 37};
    assert_int_equal(sn_coord_node_mean_ns(start_off, done_off, 3), 4133);
    assert_int_equal(sn_coord_node_mean_ns(start, done, 1), 4000);
}

static void test_median(void **state)
{
    (void) state;
    uint64_t odd[3] = {3000, 1000, 2000}, even[4] = {4000, 1000, 3000, 2000};
    assert_true(sn_coord_median_ns_us(odd, 3) == 2.0);
    assert_true(sn_coord_median_ns_us(even, 4) == 2.5);
    assert_true(sn_coord_median_ns_us(odd, 0) == 0.0);
    assert_int_equal(odd[0], 3000); /* left unchanged */
}

#define near(a, b) ((a) - (b) < 1e-9 && (b) - (a) < 1e-9)

static void test_quantile(void **state)
{
    (void) state;
    double v[5] = {50, 10, 40, 20, 30};
    assert_true(near(sn_coord_quantile(v, 5, 0.5), 30));
    assert_true(near(sn_coord_quantile(v, 5, 0.1), 14)); /* 10 + 0.4 x (20 - 10) */
    assert_true(near(sn_coord_quantile(v, 5, 0.9), 46));
    assert_true(near(sn_coord_quantile(v, 4, 0.5), 30)); /* {50, 10, 40, 20}: 20 and 40 */
    assert_true(near(sn_coord_quantile(v, 0, 0.5), 0));
    assert_true(near(v[0], 50)); /* left unchanged */
}

static void test_barrier_slots(void **state)
{
    (void) state;
    /* the last node started slot 1 4.9, 5.1 and 0.05 ms after the START; control legs 200 us
     * (the fan-out half of them); 4 barrier slots: (4900 - 100) / 4 = 1200, (5100 - 100) / 4 =
     * 1250, the third has no barrier time left (dropped) */
    uint64_t barrier[3] = {4900000, 5100000, 50000};
    double out[3];
    assert_int_equal(sn_coord_barrier_slot_us(barrier, 3, 200, 4, out), 2);
    assert_true(near(out[0], 1200));
    assert_true(near(out[1], 1250));
    assert_int_equal(sn_coord_barrier_slot_us(barrier, 3, 200, 0, out), 0);
    /* the last start, on the coordinator's clock */
    uint64_t start[3] = {1000, 3000, 2000};
    int64_t off[3] = {0, 2500, -100};
    assert_int_equal(sn_coord_last_start_ns(start, NULL, 3), 3000);
    assert_int_equal(sn_coord_last_start_ns(start, off, 3), 2100);
}

static void test_transient_at_start_up(void **state)
{
    (void) state;
    /* a process started beside the run slowed the three start-up empty slots (1710 to 3220 us);
     * the repetitions' barriers saw the machine quiet again (about 1270 us): the model takes the
     * repetitions' median, and the calibration says the groups disagree and lie far apart */
    double startup[3] = {1710, 3220, 2400}, reps[3] = {1265, 1280, 1270};
    sn_coord_calib_t c;
    sn_coord_calib_slot(startup, 3, reps, 3, &c);
    assert_true(near(c.startup_us, 2400));
    assert_true(near(c.reps_us, 1270));
    assert_true(near(c.slot_us, 1270));
    assert_int_equal(c.nstartup, 3);
    assert_int_equal(c.nreps, 3);
    assert_true(c.p10_us < 1270 && c.p90_us > 2400);
    unsigned why = sn_coord_calib_disturbed(&c, 1100, 0.5, 2, 1.02);
    assert_int_equal(why, SN_COORD_CALIB_SPREAD | SN_COORD_CALIB_GROUPS);
    /* the other way round: one slow repetition does not move its group's median (but its sample
     * lies far from the others, and the report says so) */
    double quiet[3] = {1270, 1262, 1275}, one_slow[3] = {1280, 4000, 1268};
    sn_coord_calib_slot(quiet, 3, one_slow, 3, &c);
    assert_true(near(c.slot_us, 1280));
    assert_int_equal(sn_coord_calib_disturbed(&c, 1100, 0.5, 2, 1.0), SN_COORD_CALIB_SPREAD);
}

static void test_load_through_the_repetitions(void **state)
{
    (void) state;
    /* quiet at start-up, a load through the repetitions: the model follows the repetitions,
     * which it predicts, and says the groups disagree */
    double startup[3] = {1000, 1000, 1000}, reps[3] = {1500, 1600, 1550};
    sn_coord_calib_t c;
    sn_coord_calib_slot(startup, 3, reps, 3, &c);
    assert_true(near(c.slot_us, 1550));
    assert_true(sn_coord_calib_disturbed(&c, 900, 1, 2, 1) & SN_COORD_CALIB_GROUPS);
    /* two repetition samples are too few to stand alone: the median of all five */
    sn_coord_calib_slot(startup, 3, reps, 2, &c);
    assert_true(near(c.slot_us, 1000));
}

static void test_calib_quiet_and_reasons(void **state)
{
    (void) state;
    double startup[3] = {1000, 1010, 1020}, reps[2] = {1005, 1015};
    sn_coord_calib_t c;
    sn_coord_calib_slot(startup, 3, reps, 2, &c);
    assert_true(near(c.slot_us, 1010)); /* two repetitions: the median of all five */
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, 1.5, 2, 0.95), 0);
    /* pings far above the slot; the load above the cores; repetitions 30 % off the prediction */
    assert_int_equal(sn_coord_calib_disturbed(&c, 1300, 1.5, 2, 1), SN_COORD_CALIB_PINGS);
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, 2.5, 2, 1), SN_COORD_CALIB_LOAD);
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, -1, 2, 1), 0); /* load unknown */
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, 1, 2, 1.3), SN_COORD_CALIB_REPS);
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, 1, 2, 0.7), SN_COORD_CALIB_REPS);
    assert_int_equal(sn_coord_calib_disturbed(&c, 900, 1, 2, 0), 0); /* nothing measured */
    /* one group only: it is the slot, and there is nothing to compare it with */
    sn_coord_calib_slot(startup, 3, NULL, 0, &c);
    assert_true(near(c.slot_us, 1010));
    assert_int_equal(sn_coord_calib_disturbed(&c, 0, -1, 0, 0), 0);
    sn_coord_calib_slot(NULL, 0, reps, 2, &c);
    assert_true(near(c.slot_us, 1010));
    sn_coord_calib_slot(NULL, 0, NULL, 0, &c);
    assert_true(near(c.slot_us, 0));
    for (unsigned k = 0; k < SN_COORD_CALIB_NREASONS; k++)
        assert_non_null(sn_coord_calib_reason_name(1u << k));
    assert_string_equal(sn_coord_calib_reason_name(SN_COORD_CALIB_REPS), "repetitions");
    assert_null(sn_coord_calib_reason_name(1u << SN_COORD_CALIB_NREASONS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_symmetric),
        cmocka_unit_test(test_offset_negative_and_shortest),
        cmocka_unit_test(test_offset_within_uncertainty),
        cmocka_unit_test(test_offset_refuses),
        cmocka_unit_test(test_span_one_clock),
        cmocka_unit_test(test_span_offsets),
        cmocka_unit_test(test_span_never_negative),
        cmocka_unit_test(test_node_mean),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_barrier_slots),
        cmocka_unit_test(test_transient_at_start_up),
        cmocka_unit_test(test_load_through_the_repetitions),
        cmocka_unit_test(test_calib_quiet_and_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
