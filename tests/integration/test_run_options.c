/* Integration tests of the options and the report of `stepnet run` (coordinator/ and node/): the
 * JSON report has the fields of the command-line contract (README.md, JSON output) and consistent
 * times; --out, --spin-us, --termination, --idle-slots, the calibration probes' cap, and frames
 * longer than one chunk in both security modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepnet/util.h"
#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- the JSON report of run ------------------------------------------------------------------ */

static const char *const run_fields[] = {"size",
                                         "reps",
                                         "wall_us",
                                         "wall_us_median",
                                         "us_per_step",
                                         "alpha_us",
                                         "beta_us_per_byte",
                                         "predicted_us",
                                         "security",
                                         "cipher",
                                         "ciphers_used",
                                         "spin_us",
                                         "coord_nice",
                                         "termination",
                                         "quiet_slot",
                                         "coll_us",
                                         "coll_us_median",
                                         "node_us",
                                         "node_us_median",
                                         "clock",
                                         "clock_uncertainty_us",
                                         "barrier_slots"};

/* Checks the run fields of a successful run report j with `reps` repetitions of `size` bytes. */
static void expect_run_report(const char *j, int64_t reps, int64_t size)
{
    for (size_t i = 0; tu_contract_fields[i]; i++)
        tu_json_need(j, tu_contract_fields[i]);
    for (size_t i = 0; i < sizeof run_fields / sizeof *run_fields; i++)
        tu_json_need(j, run_fields[i]);
    assert_string_equal(tu_jstr(j, "cmd"), "run");
    assert_true(tu_json_bool(j, "verified"));
    assert_int_equal(tu_json_int(j, "size"), size);
    assert_int_equal(tu_json_int(j, "reps"), reps);
    double wall[64];
    size_t n = tu_json_nums(j, "wall_us", wall, 64);
    assert_int_equal(n, (size_t) reps);
    for (size_t i = 0; i < n; i++)
        assert_true(wall[i] > 0);
    qsort(wall, n, sizeof *wall, sn_cmp_double);
    double median = n % 2 ? wall[n / 2] : (wall[n / 2 - 1] + wall[n / 2]) / 2;
    double med = tu_json_num(j, "wall_us_median");
    if (!tu_near(med, median))
        fail_msg("wall_us_median %g is not the median %g of wall_us", med, median);
    int64_t steps = tu_json_int(j, "steps");
    double ups = tu_json_num(j, "us_per_step");
    if (steps > 0 && !tu_near(ups, med / (double) steps))
        fail_msg("us_per_step %g != wall_us_median / steps = %g", ups, med / (double) steps);
    double alpha = tu_json_num(j, "alpha_us"), beta = tu_json_num(j, "beta_us_per_byte");
    assert_true(alpha > 0);
    assert_true(beta >= 0);
    /* predicted_us is the time model's (docs/model.md, "The time model"); the simple steps x
     * (alpha + size x beta) of the median link is its simple_us */
    double pred = tu_json_num(j, "predicted_us");
    const char *tm = tu_json_need(j, "time_model");
    assert_false(tu_json_is_null(j, "time_model"));
    if (!tu_near(pred, tu_json_num(tm, "predicted_us")))
        fail_msg("predicted_us %g != time_model.predicted_us %g", pred,
                 tu_json_num(tm, "predicted_us"));
    assert_string_equal(tu_jstr(tm, "model"), "slot"); /* --sync slot, the default */
    if (!tu_near(tu_json_num(tm, "simple_us"), (double) steps * (alpha + (double) size * beta)))
        fail_msg("time_model.simple_us %g != steps * (alpha + size * beta) = %g",
                 tu_json_num(tm, "simple_us"), (double) steps * (alpha + (double) size * beta));
    /* the model sums the collective's slots and the in-band barrier's empty ones */
    int64_t slots = steps + tu_json_int(j, "barrier_slots");
    assert_int_equal(tu_json_int(tm, "slots"), slots);
    /* every slot costs the floor at least; JSON numbers carry 6 significant digits (%.6g), so
     * both sides are compared within their rounding, 5e-6 relative each */
    double slots_us = tu_json_num(tm, "slots_us"), floor_us = tu_json_num(tm, "floor_us");
    if (slots_us * (1 + 1e-5) < (double) slots * floor_us)
        fail_msg("time_model.slots_us %g < slots %lld x floor_us %g", slots_us, (long long) slots,
                 floor_us);
    /* the dataflow prediction is the control legs plus the critical path of the same schedule */
    double path_us = tu_json_num(tm, "dataflow_path_us");
    assert_true(path_us > 0);
    /* ... plus the in-band barrier's empty slots at the repetitions' barrier (calib_slot_us),
     * lock-step in both modes */
    double bar_us = tu_json_num(tm, "dataflow_barrier_us");
    if (!tu_near(bar_us,
                 (double) tu_json_int(j, "barrier_slots") * tu_json_num(tm, "calib_slot_us")))
        fail_msg("dataflow_barrier_us %g != barrier_slots x calib_slot_us", bar_us);
    /* ... plus the frames' work: every transmission (data and control) its share of the empty
     * slot beyond the slowest edge, a share at most the empty slot over its directed links */
    double cpu_us = tu_json_num(tm, "dataflow_cpu_us"),
           frame_us = tu_json_num(tm, "dataflow_frame_us");
    int64_t tx = tu_json_int(j, "packets") + tu_json_int(j, "control_packets");
    if (frame_us < 0 || !tu_near(cpu_us, (double) tx * frame_us))
        fail_msg("dataflow_cpu_us %g != (packets + control_packets) %lld x dataflow_frame_us %g",
                 cpu_us, (long long) tx, frame_us);
    /* ... a share of at most the empty slot's steady cost, the lower of the start-up and the
     * repetitions' medians, over the directed links */
    double steady = tu_json_num(tm, "calib_slot_startup_us");
    if (tu_json_num(tm, "calib_slot_reps_us") > 0 && tu_json_num(tm, "calib_slot_reps_us") < steady)
        steady = tu_json_num(tm, "calib_slot_reps_us");
    if (frame_us * 2 * (double) tu_json_int(j, "links") > steady * (1 + 1e-9))
        fail_msg("dataflow_frame_us %g x 2 links exceeds the empty slot's steady cost %g", frame_us,
                 steady);
    if (!tu_near(tu_json_num(j, "predicted_dataflow_us"),
                 tu_json_num(tm, "ctl_us") + bar_us + path_us + cpu_us))
        fail_msg("predicted_dataflow_us %g != ctl_us + dataflow_barrier_us + dataflow_path_us + "
                 "dataflow_cpu_us %g",
                 tu_json_num(j, "predicted_dataflow_us"),
                 tu_json_num(tm, "ctl_us") + bar_us + path_us + cpu_us);
    /* the empty slot calibrated from the start-up samples (three) and the repetitions' barriers
     * lies within the samples' spread; the floor of the collective's slots is its steady cost */
    double cs = tu_json_num(tm, "calib_slot_us");
    if (!tu_near(floor_us, steady))
        fail_msg("time_model.floor_us %g != the empty slot's steady cost %g", floor_us, steady);
    assert_true(tu_json_int(tm, "calib_slot_samples") >= 3);
    assert_true(tu_json_int(tm, "calib_slot_samples") <= 3 + reps);
    assert_true(tu_json_num(tm, "calib_slot_us_p10") <= cs * (1 + 1e-5));
    assert_true(cs <= tu_json_num(tm, "calib_slot_us_p90") * (1 + 1e-5));
    const char *why = tu_json_need(tm, "calib_disturbed_reasons");
    assert_int_equal(tu_json_bool(tm, "calib_disturbed"), strncmp(why, "[]", 2) != 0);
    assert_true(strlen(tu_jstr(j, "security")) > 0);
    tu_expect_coll_times(j, reps);
    /* local nodes: one clock, and an in-band barrier before each repetition (the diameter, one
     * slot at least) */
    assert_string_equal(tu_jstr(j, "clock"), "one");
    assert_true(tu_json_int(j, "barrier_slots") >= 1);
    /* every node is done from the quiet slot on, after the last send */
    assert_string_equal(tu_jstr(j, "termination"), "learn");
    assert_true(tu_json_int(j, "quiet_slot") > steps);
}

/* Frames longer than one chunk (SN_CONN_CHUNK, 66560 bytes) travel in chunks and are checked in
 * pieces (docs/security.md, "Frames"): packet sizes just past one chunk and odd sizes whose pieces
 * start at unaligned payload offsets, plain and combining payloads, in both security modes, with
 * their calibration probes; every run verifies, and the bytes checked are whole packets. */
static void test_streamed_frames(void **state)
{
    (void) state;
    static const char *const cases[][6] = {
        {"--topo", "complete:4", "--coll", "te", "--size", "66559"},
        {"--topo", "complete:4", "--coll", "te", "--size", "200003"},
        {"--topo", "ring:4", "--coll", "sna", "--size", "150001"},
    };
    static const char *const modes[] = {"sodium", "none"};
    for (size_t m = 0; m < 2; m++) {
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            const char *const *c = cases[i];
            tu_proc_t p =
                TU_STEPNET(120, "run", c[0], c[1], c[2], c[3], c[4], c[5], "--security", modes[m],
                           "--reps", "2", "--warmup", "0", "--probes", "2", "--json");
            tu_expect_status(&p, 0);
            const char *j = tu_json_line(&p);
            if (!tu_json_bool(j, "verified"))
                fail_msg("%s %s --size %s --security %s did not verify:\n%s", c[1], c[3], c[5],
                         modes[m], p.err);
            long long checked = tu_json_int(j, "bytes_checked"), size = atoll(c[5]);
            if (checked <= 0 || checked % size != 0)
                fail_msg("%s %s --size %s --security %s: %lld bytes checked, not whole packets",
                         c[1], c[3], c[5], modes[m], checked);
            tu_exec_free(&p);
        }
    }
}

/* --spin-us reaches every node (its routine log states the value it took from its assignment) and
 * is reported; with 0 (always sleep) and with a long spin the collectives verify alike. Whether
 * spinning pays is for scripts/bench/run.sh to say, not a test. */
static void test_spin(void **state)
{
    (void) state;
    static const char *const spins[] = {"0", "250000"};
    char want[64];
    for (size_t i = 0; i < 2; i++) {
        tu_proc_t p =
            TU_STEPNET(60, "run", "--topo", "torus:3x3", "--coll", "mnb", "--size", "100", "--reps",
                       "3", "--probes", "2", "--spin-us", spins[i], "--verbose", "--json");
        tu_expect_status(&p, 0);
        const char *j = tu_json_line(&p);
        assert_true(tu_json_bool(j, "verified"));
        assert_int_equal(tu_json_int(j, "spin_us"), atoll(spins[i]));
        snprintf(want, sizeof want, "links, spin %s us", spins[i]);
        if (tu_count_str(p.err, want) != 9)
            fail_msg("--spin-us %s: not every node of 9 logged '%s':\n%s", spins[i], want, p.err);
        tu_exec_free(&p);
    }
}

/* --termination: under learn (the default) the first repetition detects its end, D + 1 slots after
 * the quiet slot G, and the later ones stop at G; under detect every repetition detects it. Each
 * node logs where it stopped and how; both modes give the same steps, trace and quiet slot. The
 * one-slot barrier of a complete graph (its diameter) is exercised by complete:5. */
static void test_termination(void **state)
{
    (void) state;
    static const struct {
        const char *topo;
        int nodes, diameter;
    } cases[] = {{"torus:3x3", 9, 2}, {"complete:5", 5, 1}};
    for (size_t c = 0; c < 2; c++) {
        int64_t steps[2] = {0}, quiet[2] = {0};
        char trace[2][64];
        tu_proc_t p[2];
        for (int m = 0; m < 2; m++) {
            p[m] = TU_STEPNET(60, "run", "--topo", cases[c].topo, "--coll", "te", "--size", "100",
                              "--reps", "3", "--warmup", "0", "--probes", "2", "--termination",
                              m ? "detect" : "learn", "--verbose", "--json");
            tu_expect_status(&p[m], 0);
            const char *j = tu_json_line(&p[m]);
            assert_true(tu_json_bool(j, "verified"));
            assert_string_equal(tu_jstr(j, "termination"), m ? "detect" : "learn");
            assert_int_equal(tu_json_int(j, "barrier_slots"), cases[c].diameter);
            steps[m] = tu_json_int(j, "steps");
            quiet[m] = tu_json_int(j, "quiet_slot");
            snprintf(trace[m], sizeof trace[m], "%s", tu_jstr(j, "trace_hash"));
            assert_true(quiet[m] > steps[m] && steps[m] > 0);
            /* 3 repetitions: under learn, the first detects (G + D + 1) and two stop at G */
            char detected[96], learned[96];
            snprintf(detected, sizeof detected, "stopped at slot %lld (termination detected)",
                     (long long) (quiet[m] + cases[c].diameter + 1));
            snprintf(learned, sizeof learned, "stopped at slot %lld (learned stop)",
                     (long long) quiet[m]);
            size_t want_d = (size_t) cases[c].nodes * (m ? 3 : 1);
            size_t want_l = (size_t) cases[c].nodes * (m ? 0 : 2);
            if (tu_count_str(p[m].err, detected) != want_d ||
                tu_count_str(p[m].err, learned) != want_l)
                fail_msg("%s --termination %s: expected %zu '%s' and %zu '%s' in:\n%s",
                         cases[c].topo, m ? "detect" : "learn", want_d, detected, want_l, learned,
                         p[m].err);
        }
        assert_int_equal(steps[0], steps[1]);
        assert_int_equal(quiet[0], quiet[1]);
        assert_string_equal(trace[0], trace[1]);
        tu_exec_free(&p[0]);
        tu_exec_free(&p[1]);
    }
}

static void test_run_json_contract(void **state)
{
    (void) state;
    tu_proc_t p =
        TU_STEPNET(120, "run", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--size",
                   "64", "--reps", "3", "--warmup", "1", "--probes", "5", "--json");
    tu_expect_status(&p, 0);
    const char *j = tu_json_line(&p);
    expect_run_report(j, 3, 64);
    assert_int_equal(tu_json_int(j, "barrier_slots"), 4); /* the diameter of torus:4x4 */
    assert_int_equal(tu_json_int(j, "spin_us"), 1000);    /* the default */
    assert_int_equal(tu_json_int(j, "coord_nice"), 10);   /* the default */
    assert_string_equal(tu_jstr(j, "topology"), "torus:4x4");
    assert_string_equal(tu_jstr(j, "collective"), "te");
    assert_string_equal(tu_jstr(j, "ports"), "single");
    assert_string_equal(tu_jstr(j, "rx"), "one");
    assert_string_equal(tu_jstr(j, "duplex"), "full");
    assert_int_equal(tu_json_int(j, "nodes"), 16);
    assert_int_equal(tu_json_int(j, "links"), 32);
    assert_int_equal(tu_json_int(j, "deliveries"), 240);
    assert_int_equal(tu_json_int(j, "expected_deliveries"), 240);
    assert_true(tu_json_int(j, "steps") >= tu_json_int(j, "lower_bound"));
    tu_exec_free(&p);

    /* one repetition: the median is that repetition */
    p = TU_STEPNET(60, "run", "--topo", "ring:5", "--coll", "bcast", "--reps", "1", "--json");
    tu_expect_status(&p, 0);
    expect_run_report(tu_json_line(&p), 1, 8);
    if (!tu_json_is_null(p.out, "predicted_steps"))
        assert_int_equal(tu_json_int(p.out, "predicted_steps"), tu_json_int(p.out, "steps"));
    tu_exec_free(&p);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = 2 * (len + n + 1);
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (buf == NULL)
        buf = calloc(1, 1);
    buf[len] = '\0';
    return buf;
}

/* --out FILE writes the same object as --json prints; without --json stdout is the text report. */
static void test_run_out_file(void **state)
{
    (void) state;
    char *path = tu_tmpfile("");
    tu_proc_t p = TU_STEPNET(60, "run", "--topo", "hypercube:3", "--coll", "mnb", "--reps", "2",
                             "--json", "--out", path);
    tu_expect_status(&p, 0);
    tu_json_line(&p);
    char *file = read_file(path);
    size_t fl = strlen(file);
    while (fl > 0 && file[fl - 1] == '\n')
        file[--fl] = '\0';
    if (fl + 1 != p.nout || strncmp(file, p.out, fl) != 0)
        fail_msg("--out wrote\n%s\nbut stdout was\n%s", file, p.out);
    free(file);
    tu_exec_free(&p);

    p = TU_STEPNET(60, "run", "--topo", "hypercube:3", "--coll", "mnb", "--reps", "2", "--out",
                   path);
    tu_expect_status(&p, 0);
    assert_true(p.out[0] != '{');
    assert_non_null(strstr(p.out, "steps"));
    file = read_file(path);
    if (file[0] != '{' || tu_json_skip(file) == NULL)
        fail_msg("--out without --json did not write a JSON object: %s", file);
    expect_run_report(file, 2, 8);
    assert_string_equal(tu_jstr(file, "collective"), "mnb");
    free(file);
    tu_exec_free(&p);
    unlink(path);
    free(path);
}

/* Packets above COORD_PROBE_MAX_BYTES are calibrated with probes of 4 MiB (a run of 1 GiB packets
 * spent its 30 s calibration deadline on probes as large as its packets): every link reports
 * probes of 4194304 bytes, the run verifies and the time model is computed. */
static void test_run_probe_cap(void **state)
{
    (void) state;
    tu_proc_t p =
        TU_STEPNET(120, "run", "--topo", "ring:2", "--coll", "te", "--size", "6291456", "--reps",
                   "1", "--warmup", "0", "--probes", "2", "--security", "none", "--json");
    tu_expect_status(&p, 0);
    const char *j = tu_json_line(&p);
    assert_true(tu_json_bool(j, "verified"));
    const char *cal = strstr(j, "\"link_calibration\"");
    assert_non_null(cal);
    size_t links = 0;
    for (const char *b = strstr(cal, "\"bytes\":"); b != NULL && b < strchr(cal, ']');
         b = strstr(b + 1, "\"bytes\":"), links++)
        assert_int_equal(strtoull(b + strlen("\"bytes\":"), NULL, 10), 4194304);
    assert_int_equal(links, 1);
    assert_non_null(strstr(j, "\"time_model\":{"));
    tu_exec_free(&p);
}

static void test_run_idle_slots(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(120, "run", "--topo", "ring:4", "--coll", "mnb", "--idle-slots",
                             "2000", "--reps", "2", "--warmup", "0", "--json");
    tu_expect_status(&p, 0);
    const char *j = tu_json_line(&p);
    assert_true(tu_json_bool(j, "verified"));
    assert_int_equal(tu_json_int(j, "idle_slots"), 2000);
    double wall[4];
    assert_int_equal(tu_json_nums(j, "wall_us", wall, 4), 2);
    double med = tu_json_num(j, "wall_us_median"), ups = tu_json_num(j, "us_per_slot");
    assert_true(ups > 0);
    if (!tu_near(ups, med / 2000))
        fail_msg("us_per_slot %g != wall_us_median / idle_slots = %g", ups, med / 2000);
    /* the idle barrier is timed the same way, without a barrier before it */
    tu_expect_coll_times(j, 2);
    assert_int_equal(tu_json_int(j, "barrier_slots"), 0);
    tu_exec_free(&p);
}

int main(void)
{
    tu_run_init("test_run_options");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_streamed_frames, tu_run_teardown),
        cmocka_unit_test_teardown(test_run_json_contract, tu_run_teardown),
        cmocka_unit_test_teardown(test_spin, tu_run_teardown),
        cmocka_unit_test_teardown(test_termination, tu_run_teardown),
        cmocka_unit_test_teardown(test_run_out_file, tu_run_teardown),
        cmocka_unit_test_teardown(test_run_probe_cap, tu_run_teardown),
        cmocka_unit_test_teardown(test_run_idle_slots, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
