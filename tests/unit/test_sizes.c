/* Unit tests of cli/sweep.c: the --sizes parser of `stepnet bench` (ranges by factor and
 * by step, lists, the K/M/G units as powers of two, and every refusal with the value named), and
 * the statistics of wall times (average, min, max, median, 99th percentile by nearest rank). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/record.h"

static void expect_sizes(const char *text, const uint32_t *want, size_t nwant)
{
    uint32_t *v = NULL;
    size_t n = 0;
    sn_err_t err = {0};
    if (cli_sweep_parse_sizes(text, &v, &n, &err) != 0)
        fail_msg("--sizes '%s' refused: %s", text, err.msg);
    if (n != nwant)
        fail_msg("--sizes '%s' gave %zu sizes, want %zu", text, n, nwant);
    for (size_t i = 0; i < n; i++)
        if (v[i] != want[i])
            fail_msg("--sizes '%s': size %zu is %u, want %u", text, i, v[i], want[i]);
    free(v);
}

#define SIZES(text, ...)                                                                           \
    expect_sizes(text, (const uint32_t[]){__VA_ARGS__},                                            \
                 sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static void test_sizes_accepted(void **state)
{
    (void) state;
    SIZES("8:64", 8, 16, 32, 64);
    SIZES("8:100", 8, 16, 32, 64); /* TO off the grid: the last size below it */
    SIZES("1K:4K:x2", 1024, 2048, 4096);
    SIZES("1:1M:x4", 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576);
    SIZES("0:24:+8", 0, 8, 16, 24);
    SIZES("8,64,1K", 8, 64, 1024);
    SIZES("1k,1M,1G", 1024, 1u << 20, 1u << 30);
    SIZES("0", 0);
    SIZES("4096", 4096);
    SIZES("1G:1G", 1u << 30);
    /* the default */
    uint32_t *v = NULL;
    size_t n = 0;
    assert_int_equal(cli_sweep_parse_sizes(CLI_SWEEP_DEFAULT_SIZES, &v, &n, NULL), 0);
    assert_int_equal(n, 18); /* 8 B to 1 MiB, doubling */
    assert_int_equal(v[0], 8);
    assert_int_equal(v[n - 1], 1u << 20);
    free(v);
}

static void expect_refused(const char *text, const char *needle)
{
    uint32_t *v = (uint32_t *) 1;
    size_t n = 7;
    sn_err_t err = {0};
    int rc = cli_sweep_parse_sizes(text, &v, &n, &err);
    if (rc != SN_EINVAL)
        fail_msg("--sizes '%s' accepted (rc %d), want a refusal", text, rc);
    if (strstr(err.msg, text) == NULL || strstr(err.msg, "--sizes") == NULL)
        fail_msg("the refusal of '%s' does not name it and --sizes: %s", text, err.msg);
    if (needle && strstr(err.msg, needle) == NULL)
        fail_msg("the refusal of '%s' does not say '%s': %s", text, needle, err.msg);
}

static void test_sizes_refused(void **state)
{
    (void) state;
    expect_refused("", "expected");
    expect_refused("8:", "expected");
    expect_refused(":8", "expected");
    expect_refused("8:1X", "expected");
    expect_refused("8KB", "not a size");
    expect_refused("-8", "not a size");
    expect_refused("8,,16", "not a size");
    expect_refused("8,16,", "not a size");
    expect_refused("64,8", "increase");
    expect_refused("8,8", "increase");
    expect_refused("2G", "not a size");
    expect_refused("8:2G", "expected");
    expect_refused("1073741825", "not a size");
    expect_refused("99999999999999999999", "not a size");
    expect_refused("64:8", "larger than TO");
    expect_refused("0:8", "starts at 1");
    expect_refused("8:64:x1", "step");
    expect_refused("8:64:x1025", "step");
    expect_refused("8:64:+0", "step");
    expect_refused("8:64:2", "step");
    expect_refused("8:64:x2:x2", "step");
    expect_refused("0:300:+1", "more than 256 sizes");
}

static void test_stats(void **state)
{
    (void) state;
    cli_sweep_stats_t s;
    cli_sweep_stats(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(s.avg == 0 && s.min == 0 && s.max == 0 && s.p50 == 0 && s.p99 == 0);

    const uint64_t odd[] = {5000, 1000, 3000}; /* ns, unsorted */
    cli_sweep_stats(odd, 3, &s);
    assert_int_equal(s.n, 3);
    assert_true(s.avg == 3.0 && s.min == 1.0 && s.max == 5.0 && s.p50 == 3.0 && s.p99 == 5.0);

    const uint64_t even[] = {4000, 1000, 2000, 3000};
    cli_sweep_stats(even, 4, &s);
    assert_true(s.p50 == 2.5 && s.avg == 2.5);

    /* 200 values 1..200 us: p99 is the value at rank ceil(0.99 * 200) = 198 */
    uint64_t many[200];
    for (int i = 0; i < 200; i++)
        many[i] = (uint64_t) (200 - i) * 1000;
    cli_sweep_stats(many, 200, &s);
    assert_true(s.p99 == 198.0);
    assert_true(s.min == 1.0 && s.max == 200.0 && s.p50 == 100.5);
    /* 100 values: rank 99 */
    cli_sweep_stats(many + 100, 100, &s);
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
    cli_sweep_bw_t bw = {-1, -1};
    /* a broadcast of 64 KiB on 4 nodes: 3 deliveries, 196608 bytes over a median of 900 us */
    const uint64_t odd[] = {800000, 1000000, 900000};
    assert_int_equal(cli_sweep_bandwidth(3, 65536, 4, odd, 3, &bw), 0);
    assert_true(near(bw.total_mb_s, 196608.0 / 900.0, 1e-9));
    assert_true(near(bw.node_mb_s, 196608.0 / 900.0 / 4, 1e-9));
    assert_true(near(bw.node_mb_s * 4, bw.total_mb_s, 1e-9));
    /* an even count takes the mean of the middle two: 2 us; 1 MB/s = 1 byte per us */
    const uint64_t even[] = {3000, 1000};
    assert_int_equal(cli_sweep_bandwidth(1, 8, 2, even, 2, &bw), 0);
    assert_true(near(bw.total_mb_s, 4.0, 1e-12));
    assert_true(near(bw.node_mb_s, 2.0, 1e-12));
    /* 10^6 bytes in one second is 1 MB/s (not MiB) */
    const uint64_t second[] = {1000000000};
    assert_int_equal(cli_sweep_bandwidth(1000, 1000, 1, second, 1, &bw), 0);
    assert_true(near(bw.total_mb_s, 1.0, 1e-12));
    /* zero-byte packets move no payload */
    assert_int_equal(cli_sweep_bandwidth(3, 0, 4, odd, 3, &bw), 0);
    assert_true(bw.total_mb_s == 0 && bw.node_mb_s == 0);
    /* nothing to divide by: nothing measured, a zero median, no node; *out untouched */
    bw.total_mb_s = bw.node_mb_s = -1;
    assert_int_equal(cli_sweep_bandwidth(3, 8, 4, NULL, 0, &bw), -1);
    const uint64_t zero[] = {0};
    assert_int_equal(cli_sweep_bandwidth(3, 8, 4, zero, 1, &bw), -1);
    assert_int_equal(cli_sweep_bandwidth(3, 8, 0, odd, 3, &bw), -1);
    assert_true(bw.total_mb_s == -1 && bw.node_mb_s == -1);
}

static void test_csv_header(void **state)
{
    (void) state;
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    cli_sweep_csv_header(f);
    fclose(f);
    assert_string_equal(buf, CLI_SWEEP_CSV_HEADER "\n");
    /* the OSU columns, in the order of the text table */
    assert_non_null(strstr(buf, "size,avg_us,min_us,max_us,p50_us,p99_us,iterations,steps,"
                                "predicted_us"));
    /* the bandwidth after the latencies */
    assert_non_null(strstr(buf, ",node_p50_us,bw_node_mb_s,bw_total_mb_s,"));
    /* what was run last, constant columns that a reader by column name may ignore */
    assert_non_null(strstr(
        buf, ",bw_total_mb_s,nodes_mode,launch,security,warmup,stepnet_version,timestamp\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_accepted), cmocka_unit_test(test_sizes_refused),
        cmocka_unit_test(test_stats),          cmocka_unit_test(test_bandwidth),
        cmocka_unit_test(test_csv_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
