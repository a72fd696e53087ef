/* Unit tests of the progress lines' pure part (coordinator/progress.c, progress.h): the text of
 * each phase's line, the ETA from the median of the recent measured repetitions (none before
 * one), and the rate limit with the time given, never read: one line per interval, the first
 * line of each phase not reached before and the last line always. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "coordinator/progress.h"

#define MS 1000000ull

static const char *line_of(const char *cmd, const sn_progress_snap_t *s)
{
    static char buf[320];
    size_t len = sn_progress_format(cmd, s, buf, sizeof buf);
    assert_int_equal(len, strlen(buf));
    return buf;
}

static void test_each_phase_has_its_line(void **state)
{
    (void) state;
    sn_progress_snap_t s = {
        .phase = SN_PROGRESS_LAUNCH, .done = 3, .total = 16, .launcher = "ssh", .eta_s = -1};
    assert_string_equal(line_of("run", &s),
                        "stepnet run: progress: phase=launch 3/16 launcher=ssh");
    s = (sn_progress_snap_t){
        .phase = SN_PROGRESS_JOIN, .done = 16, .total = 16, .links_up = 5, .eta_s = -1};
    assert_string_equal(line_of("run", &s),
                        "stepnet run: progress: phase=join 16/16 links_up=5/16");
    s = (sn_progress_snap_t){.phase = SN_PROGRESS_CALIBRATION, .done = 3, .total = 27, .eta_s = -1};
    assert_string_equal(line_of("bench", &s), "stepnet bench: progress: phase=calibration 3/27");
    s = (sn_progress_snap_t){.phase = SN_PROGRESS_WARMUP,
                             .done = 1,
                             .total = 2,
                             .size = 1024,
                             .point = 2,
                             .npoints = 4,
                             .reps_done = 13,
                             .reps_total = 48,
                             .elapsed_s = 2.04,
                             .slots_per_s = 5123.4,
                             .eta_s = -1};
    assert_string_equal(line_of("bench", &s),
                        "stepnet bench: progress: phase=warmup 1/2 size=1024 point=2/4 reps=13/48 "
                        "elapsed_s=2.0 slots_per_s=5123");
    /* an ETA once a measured repetition ended; none on the last line */
    s.phase = SN_PROGRESS_RUN;
    s.done = 4;
    s.total = 10;
    s.eta_s = 7.31;
    assert_string_equal(line_of("bench", &s),
                        "stepnet bench: progress: phase=run 4/10 size=1024 point=2/4 reps=13/48 "
                        "elapsed_s=2.0 slots_per_s=5123 eta_s=7.3");
    s.end = "stopped";
    assert_string_equal(line_of("bench", &s),
                        "stepnet bench: progress: phase=run 4/10 size=1024 point=2/4 reps=13/48 "
                        "elapsed_s=2.0 slots_per_s=5123 end=stopped");
    /* a buffer too small: cut, terminated, its length told */
    char small[24];
    size_t len = sn_progress_format("run", &s, small, sizeof small);
    assert_int_equal(len, sizeof small - 1);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_string_equal(sn_progress_phase_name(SN_PROGRESS_CALIBRATION), "calibration");
}

static void test_eta_from_the_median(void **state)
{
    (void) state;
    sn_progress_window_t w = {0};
    assert_true(sn_progress_eta_s(&w, 10) < 0); /* no measured repetition: no ETA */
    sn_progress_window_add(&w, 100 * MS);
    assert_true(sn_progress_eta_s(&w, 10) == 1.0);
    /* the median, not the mean: one slow repetition does not move it */
    sn_progress_window_add(&w, 5000 * MS);
    sn_progress_window_add(&w, 100 * MS);
    assert_true(sn_progress_eta_s(&w, 10) == 1.0);
    assert_true(sn_progress_eta_s(&w, 0) == 0.0);
    /* an even count: the mean of the middle two */
    sn_progress_window_add(&w, 300 * MS);
    assert_true(sn_progress_eta_s(&w, 10) == 2.0);
    /* only the last SN_PROGRESS_WINDOW count: a sweep's later, slower size takes over */
    for (int i = 0; i < SN_PROGRESS_WINDOW; i++)
        sn_progress_window_add(&w, 20 * MS);
    assert_int_equal(w.n, SN_PROGRESS_WINDOW);
    assert_true(sn_progress_eta_s(&w, 50) == 1.0);
}

static void test_rate_limit(void **state)
{
    (void) state;
    sn_progress_gate_t g = {.gap_ns = 1000 * MS, .top = -1};
    uint64_t t = 5000 * MS;
    /* the first line, then nothing of the same phase within the gap */
    assert_int_equal(sn_progress_gate(&g, t, SN_PROGRESS_LAUNCH, 0, 0), SN_PROGRESS_PRINT);
    assert_int_equal(sn_progress_gate(&g, t + 10 * MS, SN_PROGRESS_LAUNCH, 0, 0), SN_PROGRESS_HOLD);
    /* a phase not reached before: at once, with the end of the one before */
    assert_int_equal(sn_progress_gate(&g, t + 20 * MS, SN_PROGRESS_JOIN, 0, 0),
                     SN_PROGRESS_PRINT_BOTH);
    assert_int_equal(sn_progress_gate(&g, t + 30 * MS, SN_PROGRESS_JOIN, 0, 0), SN_PROGRESS_HOLD);
    assert_int_equal(sn_progress_gate(&g, t + 40 * MS, SN_PROGRESS_CALIBRATION, 0, 0),
                     SN_PROGRESS_PRINT_BOTH);
    assert_int_equal(sn_progress_gate(&g, t + 50 * MS, SN_PROGRESS_WARMUP, 0, 0),
                     SN_PROGRESS_PRINT_BOTH);
    assert_int_equal(sn_progress_gate(&g, t + 60 * MS, SN_PROGRESS_RUN, 0, 0),
                     SN_PROGRESS_PRINT_BOTH);
    /* a sweep's next size goes back to warm-up: no longer new, so rate-limited */
    assert_int_equal(sn_progress_gate(&g, t + 70 * MS, SN_PROGRESS_WARMUP, 0, 0), SN_PROGRESS_HOLD);
    assert_int_equal(sn_progress_gate(&g, t + 1059 * MS, SN_PROGRESS_RUN, 0, 0), SN_PROGRESS_HOLD);
    assert_int_equal(sn_progress_gate(&g, t + 1060 * MS, SN_PROGRESS_RUN, 0, 0), SN_PROGRESS_PRINT);
    /* the last line always */
    assert_int_equal(sn_progress_gate(&g, t + 1061 * MS, SN_PROGRESS_RUN, 0, 1), SN_PROGRESS_PRINT);
    /* a steady stream of updates, one every 10 ms for 10 s: one line a second */
    sn_progress_gate_t h = {.gap_ns = 1000 * MS, .top = -1};
    int lines = 0;
    for (uint64_t k = 0; k < 1000; k++)
        lines += sn_progress_gate(&h, t + k * 10 * MS, SN_PROGRESS_RUN, 0, 0) != SN_PROGRESS_HOLD;
    assert_int_equal(lines, 10);
    /* a sweep: each next size at once (one line each), its repetitions rate-limited */
    sn_progress_gate_t b = {.gap_ns = 1000 * MS, .top = SN_PROGRESS_RUN, .point = 1, .last_ns = t};
    assert_int_equal(sn_progress_gate(&b, t + 10 * MS, SN_PROGRESS_WARMUP, 2, 0),
                     SN_PROGRESS_PRINT);
    assert_int_equal(sn_progress_gate(&b, t + 20 * MS, SN_PROGRESS_RUN, 2, 0), SN_PROGRESS_HOLD);
    assert_int_equal(sn_progress_gate(&b, t + 30 * MS, SN_PROGRESS_WARMUP, 3, 0),
                     SN_PROGRESS_PRINT);
    assert_int_equal(sn_progress_gate(&b, t + 40 * MS, SN_PROGRESS_RUN, 3, 0), SN_PROGRESS_HOLD);
    assert_int_equal(b.point, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_phase_has_its_line),
        cmocka_unit_test(test_eta_from_the_median),
        cmocka_unit_test(test_rate_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
