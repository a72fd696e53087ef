/* Unit tests of core/model/deadline.c: the slot deadline decided from a link's progress (silent,
 * slow, or wait until a time) on synthetic clocks, the named cases of docs/runtime.md
 * ("Deadlines") and an exhaustive sweep of small timelines against the rules of
 * include/stepnet/deadline.h; the model's time of a frame and first-byte allowance; the
 * calibration's deadline and the empty-slot measurement's length over emulated links. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "stepnet/deadline.h"

#define MS 1000000ull

static sn_deadline_verdict_t decide(const sn_deadline_limits_t *lim, const sn_deadline_link_t *l,
                                    uint64_t now, uint64_t *until)
{
    *until = 0;
    return sn_deadline_decide(lim, l, now, until);
}

/* Nothing received, nothing sent: the frame's first byte has silence + first. */
static void test_silent_before_first_byte(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = 5000 * MS, .first_ns = 2000 * MS, .frame_ns = 0};
    sn_deadline_link_t l = {.wait_start = 100 * MS, .expected = 1000};
    uint64_t until;
    assert_int_equal(decide(&lim, &l, 100 * MS, &until), SN_DEADLINE_WAIT);
    assert_int_equal(until, 7100 * MS);
    assert_int_equal(decide(&lim, &l, 7100 * MS - 1, &until), SN_DEADLINE_WAIT);
    assert_int_equal(decide(&lim, &l, 7100 * MS, &until), SN_DEADLINE_SILENT);
}

/* A large frame that keeps streaming never goes silent however long it takes, when nothing
 * bounds the frame's time (frame_ns 0). */
static void test_streaming_frame_waits(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = 5000 * MS, .first_ns = 0, .frame_ns = 0};
    sn_deadline_link_t l = {.wait_start = 0, .expected = 1ull << 30};
    uint64_t until;
    for (uint64_t t = 1; t < 600; t++) { /* a byte every second for ten minutes */
        l.rx_bytes = t * 1000;
        l.first_rx = 1 * MS * 1000;
        l.last_rx = t * 1000 * MS;
        assert_int_equal(decide(&lim, &l, t * 1000 * MS + 999 * MS, &until), SN_DEADLINE_WAIT);
        assert_int_equal(until, t * 1000 * MS + 5000 * MS);
    }
}

/* Our own frame still leaving (the neighbour reads it before it answers) keeps the link alive
 * before its frame's first byte; once it stops, silence counts from its last byte. */
static void test_sender_progress_counts(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = 100 * MS, .first_ns = 0, .frame_ns = 0};
    sn_deadline_link_t l = {.wait_start = 0, .last_tx = 900 * MS, .expected = 64};
    uint64_t until;
    assert_int_equal(decide(&lim, &l, 950 * MS, &until), SN_DEADLINE_WAIT);
    assert_int_equal(until, 1000 * MS);
    assert_int_equal(decide(&lim, &l, 1000 * MS, &until), SN_DEADLINE_SILENT);
    /* after the first byte too: the later of the last byte in and out */
    l.rx_bytes = 10;
    l.first_rx = l.last_rx = 50 * MS;
    assert_int_equal(decide(&lim, &l, 999 * MS, &until), SN_DEADLINE_WAIT);
    assert_int_equal(decide(&lim, &l, 1000 * MS, &until), SN_DEADLINE_SILENT);
}

/* Bytes arriving too slowly: slow at first_rx + silence + frame, and silence still wins when the
 * link also stopped moving. */
static void test_slow(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = 1000 * MS, .first_ns = 0, .frame_ns = 3000 * MS};
    sn_deadline_link_t l = {.wait_start = 0, .first_rx = 500 * MS, .expected = 1u << 20};
    uint64_t until;
    l.rx_bytes = 4096;
    l.last_rx = 4400 * MS;
    assert_int_equal(decide(&lim, &l, 4400 * MS, &until), SN_DEADLINE_WAIT);
    assert_int_equal(until, 4500 * MS);
    assert_int_equal(decide(&lim, &l, 4500 * MS, &until), SN_DEADLINE_SLOW);
    /* the whole frame's bytes are in (the frame not yet taken): never slow */
    l.rx_bytes = 1u << 20;
    assert_int_equal(decide(&lim, &l, 4500 * MS, &until), SN_DEADLINE_WAIT);
    assert_int_equal(until, 5400 * MS);
    /* silent as well as late: silent */
    l.rx_bytes = 4096;
    l.last_rx = 600 * MS;
    assert_int_equal(decide(&lim, &l, 4500 * MS, &until), SN_DEADLINE_SILENT);
    /* no frame limit: never slow */
    lim.frame_ns = 0;
    l.last_rx = 4400 * MS;
    assert_int_equal(decide(&lim, &l, 5000 * MS, &until), SN_DEADLINE_WAIT);
}

/* Times near the end of the clock saturate instead of wrapping into an early failure. */
static void test_saturates(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = UINT64_MAX, .first_ns = UINT64_MAX, .frame_ns = 1};
    sn_deadline_link_t l = {.wait_start = UINT64_MAX - 5, .expected = 10};
    uint64_t until;
    assert_int_equal(decide(&lim, &l, UINT64_MAX - 1, &until), SN_DEADLINE_WAIT);
    assert_true(until == UINT64_MAX);
}

/* The reference: the rules of deadline.h written out directly, with wide arithmetic. */
static sn_deadline_verdict_t oracle(const sn_deadline_limits_t *lim, const sn_deadline_link_t *l,
                                    uint64_t now)
{
    unsigned __int128 s = lim->silence_ns, n = now;
    if (l->rx_bytes == 0) {
        unsigned __int128 a = (unsigned __int128) l->wait_start + s + lim->first_ns;
        unsigned __int128 b = l->last_tx ? (unsigned __int128) l->last_tx + s : 0;
        if (n >= (a > b ? a : b))
            return SN_DEADLINE_SILENT;
        return SN_DEADLINE_WAIT;
    }
    unsigned __int128 last = l->last_rx > l->last_tx ? l->last_rx : l->last_tx;
    if (n >= last + s)
        return SN_DEADLINE_SILENT;
    if (l->rx_bytes < l->expected && lim->frame_ns &&
        n >= (unsigned __int128) l->first_rx + s + lim->frame_ns)
        return SN_DEADLINE_SLOW;
    return SN_DEADLINE_WAIT;
}

/* Checks link l under lim at every instant from its wait's start to 40: the verdict is the
 * reference's; WAIT names a time after now before which every instant waits too, and at which
 * the wait ends; a verdict, once given, stays given as the clock advances. Returns the number of
 * instants that waited. */
static uint64_t check_timeline(const sn_deadline_limits_t *lim, const sn_deadline_link_t *l)
{
    uint64_t waited = 0, until = 0, u2;
    int failed = 0;
    for (uint64_t now = l->wait_start; now < 40; now++) {
        sn_deadline_verdict_t v = sn_deadline_decide(lim, l, now, &until);
        assert_int_equal(v, oracle(lim, l, now));
        if (failed)
            assert_int_not_equal(v, SN_DEADLINE_WAIT);
        if (v != SN_DEADLINE_WAIT) {
            failed = 1;
            continue;
        }
        assert_true(until > now);
        assert_int_not_equal(sn_deadline_decide(lim, l, until, &u2), SN_DEADLINE_WAIT);
        for (uint64_t k = now; k < until; k++)
            assert_int_equal(sn_deadline_decide(lim, l, k, &u2), SN_DEADLINE_WAIT);
        waited++;
    }
    return waited;
}

/* Every small timeline: limits 0..3, the wait starting at 0..3, no bytes or bytes below, at and
 * above the frame, first and last byte up to 2 apart, our last byte out never or at 0..4 after
 * the start. */
static void test_exhaustive(void **state)
{
    (void) state;
    uint64_t waited = 0;
    for (uint64_t sil = 0; sil < 4; sil++)
        for (uint64_t first = 0; first < 4; first++)
            for (uint64_t frame = 0; frame < 4; frame++)
                for (uint64_t ws = 0; ws < 4; ws++)
                    for (uint64_t rx = 0; rx < 4; rx++)
                        for (uint64_t fr = ws; fr < ws + 3; fr++)
                            for (uint64_t lr = fr; lr < fr + 3; lr++)
                                for (uint64_t tx = 0; tx < 6; tx++) {
                                    if (!rx && (fr != ws || lr != fr)) /* one case without bytes */
                                        continue;
                                    sn_deadline_limits_t lim = {sil, first, frame};
                                    sn_deadline_link_t l = {.wait_start = ws,
                                                            .rx_bytes = rx * 2,
                                                            .first_rx = rx ? fr : 0,
                                                            .last_rx = rx ? lr : 0,
                                                            .last_tx = tx ? ws + tx : 0,
                                                            .expected = 4};
                                    waited += check_timeline(&lim, &l);
                                }
    assert_true(waited > 10000);
}

/* More progress never brings a failure earlier: a later last byte, in or out, postpones. */
static void test_progress_postpones(void **state)
{
    (void) state;
    sn_deadline_limits_t lim = {.silence_ns = 7, .first_ns = 3, .frame_ns = 0};
    for (uint64_t lr = 1; lr < 30; lr++)
        for (uint64_t tx = 0; tx < 30; tx++) {
            sn_deadline_link_t a = {.wait_start = 0,
                                    .rx_bytes = 1,
                                    .first_rx = 1,
                                    .last_rx = lr,
                                    .last_tx = tx,
                                    .expected = 9};
            sn_deadline_link_t b = a;
            b.last_rx++;
            b.last_tx++;
            for (uint64_t now = 0; now < 60; now++) {
                uint64_t u;
                if (sn_deadline_decide(&lim, &a, now, &u) == SN_DEADLINE_WAIT)
                    assert_int_equal(sn_deadline_decide(&lim, &b, now, &u), SN_DEADLINE_WAIT);
            }
        }
}

/* The model's time of a frame: each term, and a 1 GiB frame, a 3 s delay with 1 s jitter. */
static void test_frame_ns(void **state)
{
    (void) state;
    sn_deadline_model_t m = {0};
    assert_int_equal(sn_deadline_frame_ns(&m, 0), 0);
    /* the build allowance alone: 32 MiB at 32 MiB/s */
    assert_int_equal(sn_deadline_frame_ns(&m, 32u << 20), 1000 * MS);
    m.alpha_us = 50;
    assert_int_equal(sn_deadline_frame_ns(&m, 0), SN_DEADLINE_MODEL_MARGIN * 50000ull);
    m.alpha_us = 0;
    m.beta_us_per_byte = 0.001; /* 1 GB/s */
    assert_int_equal(sn_deadline_frame_ns(&m, 1000000), SN_DEADLINE_MODEL_MARGIN * MS + 29802323);
    m.beta_us_per_byte = 0;
    m.delay_ns = 3000 * MS;
    m.jitter_ns = 1000 * MS;
    assert_int_equal(sn_deadline_frame_ns(&m, 0), 4000 * MS);
    m.delay_ns = m.jitter_ns = 0;
    m.rate_bps = 8000000; /* 1 MB/s: 64 KiB need 65.536 ms, plus the build allowance */
    assert_int_equal(sn_deadline_frame_ns(&m, 65536), 65536 * MS / 1000 + 1953125);
    /* 1 GiB at the calibrated 1 GB/s: more than the margin's 16 s, plus 32 s to build it */
    sn_deadline_model_t g = {.alpha_us = 20, .beta_us_per_byte = 0.001};
    uint64_t f = sn_deadline_frame_ns(&g, 1ull << 30);
    assert_true(f > 16 * 1000 * MS + 32 * 1000 * MS && f < 60 * 1000 * MS);
    /* absurd terms saturate */
    g.beta_us_per_byte = 1e300;
    assert_true(sn_deadline_frame_ns(&g, 1ull << 30) == UINT64_MAX);
}

static void test_first_and_rate(void **state)
{
    (void) state;
    assert_int_equal(sn_deadline_first_ns(10, 0), 10);
    assert_int_equal(sn_deadline_first_ns(10, 7), 70);
    assert_true(sn_deadline_first_ns(UINT64_MAX / 2, 3) == UINT64_MAX);
    assert_true(fabs(sn_deadline_rate_bps(1000000, 0, 2000 * MS) - 500000.0) < 1e-6);
    assert_true(fabs(sn_deadline_rate_bps(5, 10, 10) - 5e6) < 1e-6); /* a span of at least 1 us */
    assert_true(fabs(sn_deadline_needs_s(1000000, 500000.0) - 2.0) < 1e-9);
    assert_true(isinf(sn_deadline_needs_s(10, 0)));
}

/* The calibration's deadline: the ready deadline alone without emulation; 4 x probes round trips
 * of twice the delay and jitter and twice the probe at the rate; saturated. */
static void test_calibration_ms(void **state)
{
    (void) state;
    sn_deadline_model_t m = {0};
    assert_int_equal(sn_deadline_calibration_ms(30000, 20, 65536, &m), 30000);
    m.delay_ns = 3000 * MS; /* --link-delay 3s --probes 2: 8 round trips of 6 s */
    assert_int_equal(sn_deadline_calibration_ms(30000, 2, 8, &m), 30000 + 48000);
    m.delay_ns = 1 * MS; /* --link-jitter 1s --link-delay 1ms, 20 probes: 80 of 2.002 s */
    m.jitter_ns = 1000 * MS;
    assert_int_equal(sn_deadline_calibration_ms(30000, 20, 8, &m), 30000 + 160160);
    m.delay_ns = m.jitter_ns = 0;
    m.rate_bps = 1000000; /* 1 Mbit/s, 4 MiB probes: 33.554432 s each way */
    assert_int_equal(sn_deadline_calibration_ms(0, 1, 4u << 20, &m), 4 * 67109);
    m.rate_bps = 1;
    assert_int_equal(sn_deadline_calibration_ms(30000, 1000000, 4u << 20, &m), UINT32_MAX);
}

/* The empty-slot measurement: all its slots over fast links, about a second of slots over slow
 * ones, one at least. */
static void test_floor_slots(void **state)
{
    (void) state;
    assert_int_equal(sn_deadline_floor_slots(20, 0, 0), 20);
    assert_int_equal(sn_deadline_floor_slots(20, 200000, 0), 20); /* 200 us */
    assert_int_equal(sn_deadline_floor_slots(20, 100 * MS, 0), 10);
    assert_int_equal(sn_deadline_floor_slots(20, 100 * MS, 100 * MS), 5);
    assert_int_equal(sn_deadline_floor_slots(20, 3000 * MS, 0), 1);
    assert_int_equal(sn_deadline_floor_slots(20, 1 * MS, 1000 * MS), 1);
    assert_int_equal(sn_deadline_floor_slots(20, UINT64_MAX, UINT64_MAX), 1);
}

/* A calibration series: every probe asked for over a fast link; over a slow one, the probes that
 * fit in SN_DEADLINE_SERIES_NS and one at least. The case of the 1 Mbit/s link: a 64 KiB probe
 * takes about 0.55 s, so 10 of the 20 default probes fit. */
static void test_series_more(void **state)
{
    (void) state;
    const uint64_t S = SN_DEADLINE_SERIES_NS;
    assert_true(sn_deadline_series_more(0, 20, 0));
    assert_true(sn_deadline_series_more(19, 20, S - 1));
    assert_false(sn_deadline_series_more(20, 20, 0)); /* all done */
    assert_false(sn_deadline_series_more(1, 1, 0));
    assert_false(sn_deadline_series_more(0, 0, 0));      /* none asked for */
    assert_true(sn_deadline_series_more(0, 20, 10 * S)); /* one at least, however slow */
    assert_false(sn_deadline_series_more(1, 20, 10 * S));
    assert_false(sn_deadline_series_more(5, 20, S));
    uint32_t done = 0;
    uint64_t t = 0;
    while (sn_deadline_series_more(done, 20, t))
        done++, t += 550 * MS;
    assert_int_equal(done, 10);
    for (done = 0, t = 0; sn_deadline_series_more(done, 20, t);)
        done++, t += 100000; /* 100 us: loopback */
    assert_int_equal(done, 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_silent_before_first_byte),
        cmocka_unit_test(test_streaming_frame_waits),
        cmocka_unit_test(test_sender_progress_counts),
        cmocka_unit_test(test_slow),
        cmocka_unit_test(test_saturates),
        cmocka_unit_test(test_exhaustive),
        cmocka_unit_test(test_progress_postpones),
        cmocka_unit_test(test_frame_ns),
        cmocka_unit_test(test_first_and_rate),
        cmocka_unit_test(test_calibration_ms),
        cmocka_unit_test(test_floor_slots),
        cmocka_unit_test(test_series_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
