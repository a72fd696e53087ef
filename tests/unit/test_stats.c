/* Unit tests of cli/stats.c: the statistics of wall times (average, min, max, median, 99th
 * percentile by nearest rank) and the payload bandwidth over their median. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/stats.h"

static void test_stats(void **state)
{
    (void) state;
    cli_stats_t s;
    cli_stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(s.avg == 0 && s.min == 0 && s.max == 0 && s.p50 == 0 && s.p99 == 0);

    const uint64_t odd[] = {5000, 1000, 3000}; /* ns, unsorted */
    cli_stats_compute(odd, 3, &s);
    assert_int_equal(s.n, 3);
    assert_true(s.avg == 3.0 && s.min == 1.0 && s.max == 5.0 && s.p50 == 3.0 && s.p99 == 5.0);

    const uint64_t even[] = {4000, 1000, 2000, 3000};
    cli_stats_compute(even, 4, &s);
    assert_true(s.p50 == 2.5 && s.avg == 2.5);

    /* 200 values 1..200 us: p99 is the value at rank ceil(0.99 * 200) = 198 */
    uint64_t many[200];
    for (int i = 0; i < 200; i++)
        many[i] = (uint64_t) (200 - i) * 1000;
    cli_stats_compute(many, 200, &s);
    assert_true(s.p99 == 198.0);
    assert_true(s.min == 1.0 && s.max == 200.0 && s.p50 == 100.5);
    /* 100 values: rank 99 */
    cli_stats_compute(many + 100, 100, &s);
    assert_true(s.p99 == 99.0);
}

/* |a - b| < eps */
static int near(double a, double b, double eps)
{
    return a - b < eps && b - a < eps;
}

/* MB/s are bytes per microsecond: payload bytes of a repetition over the median wall time, in all
 * and spread over the nodes. */
static void test_bandwidth(void **state)
{
    (void) state;
    cli_stats_bw_t bw = {-1, -1, -1};
    /* a broadcast of 64 KiB on 4 nodes: 3 deliveries, 196608 bytes over a median of 900 us */
    const uint64_t odd[] = {800000, 1000000, 900000};
    assert_int_equal(cli_stats_bandwidth(3, 65536, 4, odd, 3, &bw), 0);
    assert_true(near(bw.total_mb_s, 196608.0 / 900.0, 1e-9));
    assert_true(near(bw.node_mb_s, 196608.0 / 900.0 / 4, 1e-9));
    assert_true(near(bw.node_mb_s * 4, bw.total_mb_s, 1e-9));
    /* an even count takes the mean of the middle two: 2 us; 1 MB/s = 1 byte per us */
    const uint64_t even[] = {3000, 1000};
    assert_int_equal(cli_stats_bandwidth(1, 8, 2, even, 2, &bw), 0);
    assert_true(near(bw.total_mb_s, 4.0, 1e-12));
    assert_true(near(bw.node_mb_s, 2.0, 1e-12));
    /* 10^6 bytes in one second is 1 MB/s (not MiB) */
    const uint64_t second[] = {1000000000};
    assert_int_equal(cli_stats_bandwidth(1000, 1000, 1, second, 1, &bw), 0);
    assert_true(near(bw.total_mb_s, 1.0, 1e-12));
    /* zero-byte packets move no payload */
    assert_int_equal(cli_stats_bandwidth(3, 0, 4, odd, 3, &bw), 0);
    assert_true(bw.total_mb_s == 0 && bw.node_mb_s == 0);
    /* nothing to divide by: nothing measured, a zero median, no node; *out untouched */
    bw.total_mb_s = bw.node_mb_s = -1;
    assert_int_equal(cli_stats_bandwidth(3, 8, 4, NULL, 0, &bw), -1);
    const uint64_t zero[] = {0};
    assert_int_equal(cli_stats_bandwidth(3, 8, 4, zero, 1, &bw), -1);
    assert_int_equal(cli_stats_bandwidth(3, 8, 0, odd, 3, &bw), -1);
    assert_true(bw.total_mb_s == -1 && bw.node_mb_s == -1);
}

/* nccl-tests' bus bandwidth: the operation's size S = ranks x D and the factor, per collective;
 * none for the partial, dynamic and barrier collectives or a single processor. */
static void test_bus_terms(void **state)
{
    (void) state;
    double ranks = -1, factor = -1;
    assert_int_equal(cli_stats_bus_terms(SN_COLL_BCAST, 8, &ranks, &factor), 0);
    assert_true(ranks == 1 && factor == 1);
    assert_int_equal(cli_stats_bus_terms(SN_COLL_SNA, 8, &ranks, &factor), 0);
    assert_true(ranks == 1 && factor == 1);
    /* allreduce: each rank sends and receives 2(P-1)/P of the buffer in a ring */
    assert_int_equal(cli_stats_bus_terms(SN_COLL_ALLREDUCE, 8, &ranks, &factor), 0);
    assert_true(ranks == 1 && near(factor, 14.0 / 8, 1e-12));
    static const sn_coll_t shared[] = {SN_COLL_MNB, SN_COLL_MNA, SN_COLL_TE, SN_COLL_SCATTER,
                                       SN_COLL_GATHER};
    for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
        assert_int_equal(cli_stats_bus_terms(shared[i], 16, &ranks, &factor), 0);
        assert_true(ranks == 16 && near(factor, 15.0 / 16, 1e-12));
    }
    static const sn_coll_t none[] = {SN_COLL_PMNB, SN_COLL_PEXCHANGE, SN_COLL_PMNA,
                                     SN_COLL_DYNBCAST, SN_COLL_BARRIER};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        assert_int_equal(cli_stats_bus_terms(none[i], 16, &ranks, &factor), -1);
    assert_int_equal(cli_stats_bus_terms(SN_COLL_ALLREDUCE, 1, &ranks, &factor), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_bandwidth),
        cmocka_unit_test(test_bus_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
