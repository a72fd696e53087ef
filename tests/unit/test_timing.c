/* Unit tests of coordinator/timing.c: the clock offset of a node from control round trips (the
 * shortest round trip wins, the true offset within the stated uncertainty whatever the split of
 * the trip), the span of a collective over the nodes' own timestamps with and without offsets, the
 * mean of the nodes' own times, and the median. timing.c is pure: no clocks, no sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stepnet/error.h"
#include "timing.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
