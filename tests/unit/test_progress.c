/* Unit tests of the progress lines' pure part (cli/progress.c, progress.h): the text of
 * each phase's line, the ETA from the median of the recent measured repetitions (none before
 * one), and the rate limit with the time given, never read: one line per interval, the first
 * line of each phase not reached before and the last line always. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/progress.h"

#define MS 1000000ull

static const char *line_of(const char *cmd, const sn_progress_snap_t *s)
{
    static char buf[320];
    size_t len = cli_progress_format(cmd, s, buf, sizeof buf);
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
    size_t len = cli_progress_format("run", &s, small, sizeof small);
    assert_int_equal(len, sizeof small - 1);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_string_equal(cli_progress_phase_name(SN_PROGRESS_CALIBRATION), "calibration");
}

static void test_eta_from_the_median(void **state)
{
    (void) state;
    cli_progress_window_t w = {0};
    assert_true(cli_progress_eta_s(&w, 10) < 0); /* no measured repetition: no ETA */
    cli_progress_window_add(&w, 100 * MS);
    assert_true(cli_progress_eta_s(&w, 10) == 1.0);
    /* the median, not the mean: one slow repetition does not move it */
    cli_progress_window_add(&w, 5000 * MS);
    cli_progress_window_add(&w, 100 * MS);
    assert_true(cli_progress_eta_s(&w, 10) == 1.0);
    assert_true(cli_progress_eta_s(&w, 0) == 0.0);
    /* an even count: the mean of the middle two */
    cli_progress_window_add(&w, 300 * MS);
    assert_true(cli_progress_eta_s(&w, 10) == 2.0);
    /* only the last CLI_PROGRESS_WINDOW count: a sweep's later, slower size takes over */
    for (int i = 0; i < CLI_PROGRESS_WINDOW; i++)
        cli_progress_window_add(&w, 20 * MS);
    assert_int_equal(w.n, CLI_PROGRESS_WINDOW);
    assert_true(cli_progress_eta_s(&w, 50) == 1.0);
}

static void test_rate_limit(void **state)
{
    (void) state;
    cli_progress_gate_t g = {.gap_ns = 1000 * MS, .top = -1};
    uint64_t t = 5000 * MS;
    /* the first line, then nothing of the same phase within the gap */
    assert_int_equal(cli_progress_gate(&g, t, SN_PROGRESS_LAUNCH, 0, 0), CLI_PROGRESS_PRINT);
    assert_int_equal(cli_progress_gate(&g, t + 10 * MS, SN_PROGRESS_LAUNCH, 0, 0),
                     CLI_PROGRESS_HOLD);
    /* a phase not reached before: at once, with the end of the one before */
    assert_int_equal(cli_progress_gate(&g, t + 20 * MS, SN_PROGRESS_JOIN, 0, 0),
                     CLI_PROGRESS_PRINT_BOTH);
    assert_int_equal(cli_progress_gate(&g, t + 30 * MS, SN_PROGRESS_JOIN, 0, 0), CLI_PROGRESS_HOLD);
    assert_int_equal(cli_progress_gate(&g, t + 40 * MS, SN_PROGRESS_CALIBRATION, 0, 0),
                     CLI_PROGRESS_PRINT_BOTH);
    assert_int_equal(cli_progress_gate(&g, t + 50 * MS, SN_PROGRESS_WARMUP, 0, 0),
                     CLI_PROGRESS_PRINT_BOTH);
    assert_int_equal(cli_progress_gate(&g, t + 60 * MS, SN_PROGRESS_RUN, 0, 0),
                     CLI_PROGRESS_PRINT_BOTH);
    /* a sweep's next size goes back to warm-up: no longer new, so rate-limited */
    assert_int_equal(cli_progress_gate(&g, t + 70 * MS, SN_PROGRESS_WARMUP, 0, 0),
                     CLI_PROGRESS_HOLD);
    assert_int_equal(cli_progress_gate(&g, t + 1059 * MS, SN_PROGRESS_RUN, 0, 0),
                     CLI_PROGRESS_HOLD);
    assert_int_equal(cli_progress_gate(&g, t + 1060 * MS, SN_PROGRESS_RUN, 0, 0),
                     CLI_PROGRESS_PRINT);
    /* the last line always */
    assert_int_equal(cli_progress_gate(&g, t + 1061 * MS, SN_PROGRESS_RUN, 0, 1),
                     CLI_PROGRESS_PRINT);
    /* a steady stream of updates, one every 10 ms for 10 s: one line a second */
    cli_progress_gate_t h = {.gap_ns = 1000 * MS, .top = -1};
    int lines = 0;
    for (uint64_t k = 0; k < 1000; k++)
        lines += cli_progress_gate(&h, t + k * 10 * MS, SN_PROGRESS_RUN, 0, 0) != CLI_PROGRESS_HOLD;
    assert_int_equal(lines, 10);
    /* a sweep: each next size at once (one line each), its repetitions rate-limited */
    cli_progress_gate_t b = {.gap_ns = 1000 * MS, .top = SN_PROGRESS_RUN, .point = 1, .last_ns = t};
    assert_int_equal(cli_progress_gate(&b, t + 10 * MS, SN_PROGRESS_WARMUP, 2, 0),
                     CLI_PROGRESS_PRINT);
    assert_int_equal(cli_progress_gate(&b, t + 20 * MS, SN_PROGRESS_RUN, 2, 0), CLI_PROGRESS_HOLD);
    assert_int_equal(cli_progress_gate(&b, t + 30 * MS, SN_PROGRESS_WARMUP, 3, 0),
                     CLI_PROGRESS_PRINT);
    assert_int_equal(cli_progress_gate(&b, t + 40 * MS, SN_PROGRESS_RUN, 3, 0), CLI_PROGRESS_HOLD);
    assert_int_equal(b.point, 3);
}

/* The drawer fed the engine's events of two warm-up and three measured repetitions of one size:
 * the lines it prints into a file (not a terminal), the ETA only once a measured repetition gave
 * its time, an event that moves nothing dropped, and the last line with its end. */
static sn_progress_snap_t rep(sn_progress_phase_t ph, uint64_t done, uint64_t total,
                              uint64_t reps_done)
{
    return (sn_progress_snap_t){.phase = ph,
                                .done = done,
                                .total = total,
                                .size = 8,
                                .point = 1,
                                .npoints = 1,
                                .reps_done = reps_done,
                                .reps_total = 5,
                                .elapsed_s = 0.5 * (double) reps_done,
                                .slots_per_s = 20,
                                .eta_s = -1};
}

static void send(cli_progress_t *p, const sn_progress_snap_t *s, uint64_t now, uint64_t rep_ns,
                 int final)
{
    sn_coord_progress_ev_t ev = {
        .snap = s, .now_ns = now, .rep_ns = rep_ns, .final = final, .end = final ? "done" : NULL};
    cli_progress_event(p, &ev);
}

static void test_drawer_lines(void **state)
{
    (void) state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cli_progress_t p;
    cli_progress_init(&p, "bench", f, 0);
    uint64_t t = 1000 * MS;
    sn_progress_snap_t s = rep(SN_PROGRESS_WARMUP, 0, 2, 0);
    send(&p, &s, t, 0, 0);          /* the first line of a phase: printed */
    send(&p, &s, t + 1 * MS, 0, 0); /* the same counts: dropped */
    s = rep(SN_PROGRESS_WARMUP, 1, 2, 1);
    send(&p, &s, t + 2 * MS, 0, 0); /* within the gap: held */
    s = rep(SN_PROGRESS_RUN, 0, 3, 2);
    send(&p, &s, t + 3 * MS, 0, 0); /* a new phase: the warm-up's end first, then this */
    s = rep(SN_PROGRESS_RUN, 1, 3, 3);
    send(&p, &s, t + 2000 * MS, 400 * MS, 0); /* measured: the ETA, 2 repetitions at 0.4 s */
    s = rep(SN_PROGRESS_RUN, 3, 3, 5);
    send(&p, &s, t + 2100 * MS, 200 * MS, 1); /* the last line: always, with its end */
    send(&p, &s, t + 2200 * MS, 0, 0);        /* after the end: nothing */
    fclose(f);
    assert_string_equal(
        text, "stepnet bench: progress: phase=warmup 0/2 size=8 point=1/1 reps=0/5 elapsed_s=0.0 "
              "slots_per_s=20\n"
              "stepnet bench: progress: phase=warmup 1/2 size=8 point=1/1 reps=1/5 elapsed_s=0.5 "
              "slots_per_s=20\n"
              "stepnet bench: progress: phase=run 0/3 size=8 point=1/1 reps=2/5 elapsed_s=1.0 "
              "slots_per_s=20\n"
              "stepnet bench: progress: phase=run 1/3 size=8 point=1/1 reps=3/5 elapsed_s=1.5 "
              "slots_per_s=20 eta_s=0.8\n"
              "stepnet bench: progress: phase=run 3/3 size=8 point=1/1 reps=5/5 elapsed_s=2.5 "
              "slots_per_s=20 end=done\n");
    free(text);
}

/* A run that ends before any line was printed prints nothing (its report says why); a final
 * event without a snapshot ends on the last line offered. */
static void test_drawer_end(void **state)
{
    (void) state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cli_progress_t p;
    cli_progress_init(&p, "run", f, 0);
    sn_coord_progress_ev_t end = {.now_ns = 5 * MS, .final = 1, .end = "stopped"};
    cli_progress_event(&p, &end);
    fflush(f);
    assert_int_equal(len, 0);
    cli_progress_init(&p, "run", f, 0);
    sn_progress_snap_t s = rep(SN_PROGRESS_WARMUP, 0, 1, 0);
    send(&p, &s, 10 * MS, 0, 0);
    end.now_ns = 20 * MS;
    cli_progress_event(&p, &end);
    fclose(f);
    assert_string_equal(text, "stepnet run: progress: phase=warmup 0/1 size=8 point=1/1 reps=0/5 "
                              "elapsed_s=0.0 slots_per_s=20\n"
                              "stepnet run: progress: phase=warmup 0/1 size=8 point=1/1 reps=0/5 "
                              "elapsed_s=0.0 slots_per_s=20 end=stopped\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_phase_has_its_line),
        cmocka_unit_test(test_eta_from_the_median),
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_drawer_lines),
        cmocka_unit_test(test_drawer_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
