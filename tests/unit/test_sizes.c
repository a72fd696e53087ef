/* Unit tests of cli/sizes.c: the --sizes parser of `stepnet bench` (ranges by factor and by step,
 * lists, the K/M/G units as powers of two, and every refusal with the value named). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"

static void expect_sizes(const char *text, const uint32_t *want, size_t nwant)
{
    uint32_t *v = NULL;
    size_t n = 0;
    sn_err_t err = {0};
    if (cli_sizes_parse(text, &v, &n, &err) != 0)
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
    assert_int_equal(cli_sizes_parse(CLI_BENCH_DEFAULT_SIZES, &v, &n, NULL), 0);
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
    int rc = cli_sizes_parse(text, &v, &n, &err);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_accepted),
        cmocka_unit_test(test_sizes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
