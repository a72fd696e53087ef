/* Unit tests of core/model/linkemu.c: tc(8) time and rate units, the link file (keys, precedence,
 * refusals with the line named), edge dimensions, and the token-bucket and delay schedule of one
 * link (rate, burst, delay, jitter bounds, first-in-first-out order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "stepnet/linkemu.h"
#include "tests/support/testutil.h"

static void test_time_units(void **state)
{
    (void) state;
    const struct {
        const char *text;
        uint64_t ns;
    } ok[] = {
        {"200us", 200000},
        {"200", 200000},
        {"1ms", 1000000},
        {"1.5ms", 1500000},
        {"2s", 2000000000},
        {"2sec", 2000000000},
        {"2secs", 2000000000},
        {"3msec", 3000000},
        {"3msecs", 3000000},
        {"7usec", 7000},
        {"7usecs", 7000},
        {"0", 0},
        {"0us", 0},
        {"50ns", 50},
        {"50nsec", 50},
        {"1MS", 1000000},
        {".5ms", 500000},
        {"60s", 60000000000ull},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint64_t ns = 1;
        sn_err_t err = {0};
        tu_assert_rc(sn_emu_parse_time(ok[i].text, "--link-delay", &ns, &err), 0);
        if (ns != ok[i].ns)
            fail_msg("'%s' -> %llu ns, want %llu", ok[i].text, (unsigned long long) ns,
                     (unsigned long long) ok[i].ns);
    }
    const char *bad[] = {"",      "ms",  "-1ms", "+1ms", "1 ms", "1mss", "1m",   "1.2.3us",
                         "1e3us", "61s", "nan",  "inf",  "1min", "us5",  "0x10", "1ms "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t ns = 0;
        sn_err_t err = {0};
        tu_assert_rc(sn_emu_parse_time(bad[i], "--link-delay", &ns, &err), SN_EINVAL);
        if (strstr(err.msg, "--link-delay") == NULL || strstr(err.msg, bad[i]) == NULL)
            fail_msg("'%s': the message names neither the option nor the value: %s", bad[i],
                     err.msg);
    }
    sn_err_t err = {0};
    uint64_t ns;
    tu_assert_rc(sn_emu_parse_time("1h", "--link-jitter", &ns, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "usecs"));
}

static void test_rate_units(void **state)
{
    (void) state;
    const struct {
        const char *text;
        uint64_t bps;
    } ok[] = {
        {"100mbit", 100000000},   {"100Mbit", 100000000},
        {"1gbit", 1000000000},    {"10kbit", 10000},
        {"1000", 1000},           {"1000bit", 1000},
        {"1tbit", 1000000000000}, {"1bps", 8} /* below: scaled */,
        {"1kbps", 8000},          {"1mbps", 8000000},
        {"1gbps", 8000000000},    {"1kibit", 1024},
        {"1mibit", 1048576},      {"1gibit", 1073741824},
        {"1kibps", 8192},         {"2.5mbit", 2500000},
        {"1MiBps", 8388608},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint64_t bps = 0;
        sn_err_t err = {0};
        int rc = sn_emu_parse_rate(ok[i].text, "--link-rate", &bps, &err);
        if (ok[i].bps < SN_EMU_MIN_RATE_BPS) { /* "1bps" is 8 bit/s: below the floor */
            tu_assert_rc(rc, SN_EINVAL);
            continue;
        }
        tu_assert_rc(rc, 0);
        if (bps != ok[i].bps)
            fail_msg("'%s' -> %llu bit/s, want %llu", ok[i].text, (unsigned long long) bps,
                     (unsigned long long) ok[i].bps);
    }
    const char *bad[] = {"",      "mbit", "-1mbit", "0",        "0mbit",  "5%",    "100 mbit",
                         "100mb", "100m", "1e6",    "100mbits", "20tbit", "999bit"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t bps = 0;
        sn_err_t err = {0};
        tu_assert_rc(sn_emu_parse_rate(bad[i], "--link-rate", &bps, &err), SN_EINVAL);
        if (strstr(err.msg, "--link-rate") == NULL || strstr(err.msg, bad[i]) == NULL)
            fail_msg("'%s': the message names neither the option nor the value: %s", bad[i],
                     err.msg);
    }
}

static void test_texts(void **state)
{
    (void) state;
    char b[32];
    assert_string_equal(sn_emu_time_text(200000, b, sizeof b), "200us");
    assert_string_equal(sn_emu_time_text(1500000, b, sizeof b), "1.5ms");
    assert_string_equal(sn_emu_time_text(0, b, sizeof b), "0");
    assert_string_equal(sn_emu_time_text(2000000000, b, sizeof b), "2s");
    assert_string_equal(sn_emu_rate_text(100000000, b, sizeof b), "100mbit");
    assert_string_equal(sn_emu_rate_text(0, b, sizeof b), "unlimited");
}

static void test_dims(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x4");
    assert_int_equal(sn_emu_ndims(t), 2);
    for (uint32_t e = 0; e < t->nedges; e++) {
        /* node id = x * 4 + y: the first factor changes x, the second y */
        const sn_edge_t *ed = &t->edges[e];
        int want = ed->a / 4 == ed->b / 4 ? 1 : 0;
        assert_int_equal(sn_emu_edge_dim(t, e), want);
    }
    sn_topo_free(t);
    t = tu_topo("hypercube:3");
    assert_int_equal(sn_emu_ndims(t), 3);
    for (uint32_t e = 0; e < t->nedges; e++)
        assert_int_equal(1u << sn_emu_edge_dim(t, e), t->edges[e].a ^ t->edges[e].b);
    sn_topo_free(t);
    t = tu_topo("foldedcube:3");
    assert_int_equal(sn_emu_ndims(t), 4);
    for (uint32_t e = 0; e < t->nedges; e++)
        if ((t->edges[e].a ^ t->edges[e].b) == 7)
            assert_int_equal(sn_emu_edge_dim(t, e), 3);
    sn_topo_free(t);
    t = tu_topo("ring:5");
    assert_int_equal(sn_emu_ndims(t), 0);
    assert_int_equal(sn_emu_edge_dim(t, 0), -1);
    sn_topo_free(t);
}

static void test_file_precedence(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3");
    sn_emu_link_t base = {.delay_ns = 1000};
    const char *text = "# a comment\n"
                       "\n"
                       "edge 4 delay=9ms   # beats dim and default whatever the order\n"
                       "default jitter=10us\n"
                       "dim 1 delay=1ms rate=100mbit\n"
                       "link 0-1 rate=0 delay=5ms\n";
    sn_emu_t *emu = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_emu_build(t, &base, text, "links.txt", &emu, &err), 0);
    assert_true(emu->active);
    for (uint32_t e = 0; e < t->nedges; e++) {
        const sn_edge_t *ed = &t->edges[e];
        const sn_emu_link_t *v = &emu->edge[e];
        assert_int_equal(v->jitter_ns, 10000);
        int dim1 = sn_emu_edge_dim(t, e) == 1;
        int l01 = (ed->a == 0 && ed->b == 1);
        uint64_t want_delay = e == 4 ? 9000000 : l01 ? 5000000 : dim1 ? 1000000 : 1000;
        uint64_t want_rate = l01 ? 0 : dim1 ? 100000000 : 0;
        if (v->delay_ns != want_delay || v->rate_bps != want_rate)
            fail_msg("edge %u (%u-%u, dim %d): delay %llu rate %llu, want %llu %llu", e, ed->a,
                     ed->b, sn_emu_edge_dim(t, e), (unsigned long long) v->delay_ns,
                     (unsigned long long) v->rate_bps, (unsigned long long) want_delay,
                     (unsigned long long) want_rate);
    }
    sn_emu_free(emu);
    /* nothing emulated */
    sn_emu_link_t zero = {0};
    tu_assert_rc(sn_emu_build(t, &zero, NULL, NULL, &emu, &err), 0);
    assert_false(emu->active);
    sn_emu_free(emu);
    sn_topo_free(t);
}

static void test_file_refusals(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3"), *r = tu_topo("ring:4");
    sn_emu_link_t base = {0};
    const struct {
        const sn_topo_t *t;
        const char *text, *needle;
    } bad[] = {
        {t, "edge 99 delay=1ms\n", "line 1"},
        {t, "\n\nedge x delay=1ms\n", "line 3"},
        {t, "dim 2 delay=1ms\n", "dimension"},
        {r, "dim 0 delay=1ms\n", "ring"},
        {t, "link 0-4 delay=1ms\n", "not neighbours"},
        {t, "link 0 delay=1ms\n", "A-B"},
        {t, "link 0-99 delay=1ms\n", "0 .. 8"},
        {t, "edge 1\n", "no value"},
        {t, "edge 1 delay\n", "delay"},
        {t, "edge 1 loss=1%\n", "loss"},
        {t, "edge 1 delay=1min\n", "1min"},
        {t, "edge 1 rate=5%\n", "percentage"},
        {t, "nodes 1 delay=1ms\n", "unknown key 'nodes'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sn_emu_t *emu = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_emu_build(bad[i].t, &base, bad[i].text, "f.txt", &emu, &err), SN_EINVAL);
        assert_null(emu);
        if (strstr(err.msg, bad[i].needle) == NULL || strstr(err.msg, "f.txt line") == NULL)
            fail_msg("'%s': message lacks '%s' or the line: %s", bad[i].text, bad[i].needle,
                     err.msg);
    }
    sn_topo_free(t);
    sn_topo_free(r);
}

static void test_sched_delay_fifo(void **state)
{
    (void) state;
    sn_emu_link_t p = {.delay_ns = 200000};
    sn_emu_sched_t s;
    sn_emu_sched_init(&s, &p, 1, 1000);
    assert_int_equal(sn_emu_sched_frame(&s, 1000, 100), 201000);
    assert_int_equal(sn_emu_sched_frame(&s, 5000, 1 << 20), 205000); /* no rate: size is free */
    assert_int_equal(s.frames, 2);
    /* jitter: within [delay - jitter, delay + jitter], never before the previous release */
    sn_emu_link_t j = {.delay_ns = 100000, .jitter_ns = 50000};
    sn_emu_sched_init(&s, &j, 42, 0);
    uint64_t prev = 0, lo = UINT64_MAX, hi = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t now = i * 1000000; /* far apart: the order rule never applies */
        uint64_t rel = sn_emu_sched_frame(&s, now, 64);
        assert_true(rel >= prev);
        prev = rel;
        uint64_t d = rel - now;
        assert_true(d >= 50000 && d <= 150000);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    assert_true(lo < 60000 && hi > 140000); /* the whole range is used */
    /* frames written back to back keep their order even when a later one draws less delay */
    sn_emu_sched_init(&s, &j, 7, 0);
    prev = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t rel = sn_emu_sched_frame(&s, i * 10, 64);
        assert_true(rel >= prev);
        prev = rel;
    }
    /* the same seed gives the same schedule */
    sn_emu_sched_t a, b;
    sn_emu_sched_init(&a, &j, 9, 0);
    sn_emu_sched_init(&b, &j, 9, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(sn_emu_sched_frame(&a, (uint64_t) i * 1000000, 8),
                         sn_emu_sched_frame(&b, (uint64_t) i * 1000000, 8));
}

static void test_sched_rate(void **state)
{
    (void) state;
    /* 8 mbit/s = 1 byte per microsecond */
    sn_emu_link_t p = {.rate_bps = 8000000};
    sn_emu_sched_t s;
    sn_emu_sched_init(&s, &p, 1, 0);
    /* the full bucket (SN_EMU_BURST_BYTES) lets a small frame through at once */
    assert_int_equal(sn_emu_sched_frame(&s, 0, 1000), 0);
    /* 514 tokens left: a 1000-byte frame waits for 486 more */
    assert_int_equal(sn_emu_sched_frame(&s, 0, 1000), 486000);
    /* a large frame needs its own size in tokens: 100000 bytes from an empty bucket */
    assert_int_equal(sn_emu_sched_frame(&s, 486000, 100000), 486000 + 100000000);
    /* an idle link refills, but to the bucket's depth only */
    uint64_t t0 = 10000000000ull;
    assert_int_equal(sn_emu_sched_frame(&s, t0, SN_EMU_BURST_BYTES), t0);
    assert_int_equal(sn_emu_sched_frame(&s, t0, 10), t0 + 10000);
    /* sustained: n frames of b bytes take n*b bytes at the rate (minus the burst) */
    sn_emu_sched_init(&s, &p, 1, 0);
    uint64_t last = 0;
    for (int i = 0; i < 1000; i++)
        last = sn_emu_sched_frame(&s, 0, 5000);
    assert_int_equal(last, (1000ull * 5000 - SN_EMU_BURST_BYTES) * 1000);
    /* rate and delay: the delay follows the departure */
    sn_emu_link_t q = {.rate_bps = 8000000, .delay_ns = 1000000};
    sn_emu_sched_init(&s, &q, 1, 0);
    assert_int_equal(sn_emu_sched_frame(&s, 0, 2514), 1000000 + 1000000);
    assert_int_equal(s.bytes, 2514);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_rate_units),
        cmocka_unit_test(test_texts),
        cmocka_unit_test(test_dims),
        cmocka_unit_test(test_file_precedence),
        cmocka_unit_test(test_file_refusals),
        cmocka_unit_test(test_sched_delay_fifo),
        cmocka_unit_test(test_sched_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
