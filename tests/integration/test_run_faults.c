/* Integration tests of the failures of `stepnet run` (coordinator/ and node/): injected faults
 * (kill, stop, garbage, oversize, a flipped bit, a trickling link), node binaries that do not start
 * or never join, and the collective deadline end the run with exit 1 naming the node and slot,
 * soon, and with no process left behind; an illegal algorithm fails with the simulator's own error
 * text; a failed run reports null, never 0, for what it did not measure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- faults and deadlines -------------------------------------------------------------------- */

/* Fault runs whose error line did not name the faulty node and slot (see BUG below). */
typedef struct misnamed_s {
    int runs, bad;
    char line[1200];
} misnamed_t;

/* --fault NODE:KIND@SLOT on te (which runs well past SLOT) must fail with exit 1 within the
 * deadline, leave no process (checked by STEPNET), show the injection and `need_err` on stderr,
 * and end soon after the fault. Its error line must name node NODE, a slot from SLOT - 1 to
 * SLOT + 1 (neighbours are at most one slot apart, and the node that reports a malformed frame
 * names its own slot) and hold `need_line`; when it does not, the run is counted in m. */
static void fault_case(const char *topo, const char *ports, int node, const char *kind, long slot,
                       const char *need_err, const char *need_line, misnamed_t *m)
{
    char fault[64], injected[64];
    snprintf(fault, sizeof fault, "%d:%s@%ld", node, kind, slot);
    snprintf(injected, sizeof injected, "injecting %s@%ld at slot %ld", kind, slot, slot);
    tu_proc_t p = TU_STEPNET(60, "run", "--topo", topo, "--coll", "te", "--ports", ports, "--reps",
                             "2", "--warmup", "0", "--probes", "3", "--slot-timeout-ms", "1000",
                             "--fault", fault, "--json");
    char line[1024];
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(p.err, injected) == NULL || (need_err && strstr(p.err, need_err) == NULL))
        fail_msg("%s: stderr does not show '%s'%s%s:\n%s", p.cmd, injected, need_err ? " and " : "",
                 need_err ? need_err : "", p.err);
    if (p.secs > 10 * TU_SLOW)
        fail_msg("%s: took %.1f s with a slot deadline of 1 s", p.cmd, p.secs);
    print_message("  %s on %s (%.2f s): %s\n", fault, topo, p.secs, line);
    m->runs++;
    if (!tu_names_number(line, "node", node, node) ||
        !tu_names_number(line, "slot", slot - 1, slot + 1) ||
        (need_line && strstr(line, need_line) == NULL)) {
        m->bad++;
        snprintf(m->line, sizeof m->line, "--topo %s --ports %s --fault %s: %.900s", topo, ports,
                 fault, line);
    }
    tu_exec_free(&p);
}

/* Skips the test, reporting the bug, if some fault run misnamed the faulty node or slot. */
static void skip_if_misnamed(const misnamed_t *m)
{
    if (m->bad == 0)
        return;
    /* Aborts cascade through the links within a millisecond and stalled nodes fire their slot
     * deadlines together: the coordinator must find the root cause among all the reports (a
     * dead node, a node's own error, the sender of a bad frame, the silent node the deadline
     * reports name), not report the first one it reads. */
    fail_msg("%d of %d runs did not name the faulty node and slot, e.g. %s", m->bad, m->runs,
             m->line);
}

static void test_fault_kill(void **state)
{
    (void) state;
    misnamed_t m = {0};
    for (int k = 0; k < 3; k++) {
        fault_case("torus:4x4", "single", 3, "kill", 5, NULL, NULL, &m);
        fault_case("linear:8", "multi", 3, "kill", 5, NULL, NULL, &m);
    }
    skip_if_misnamed(&m);
}

/* SIGSTOP: the neighbours' slot deadline (1000 ms) fires; the coordinator kills the stopped
 * process (no process may be left behind: checked by STEPNET). */
static void test_fault_stop(void **state)
{
    (void) state;
    misnamed_t m = {0};
    for (int k = 0; k < 3; k++)
        fault_case("torus:4x4", "single", 3, "stop", 5, "slot deadline (1000 ms)",
                   "slot deadline (1000 ms)", &m);
    fault_case("linear:8", "multi", 3, "stop", 5, "slot deadline (1000 ms)",
               "slot deadline (1000 ms)", &m);
    skip_if_misnamed(&m);
}

/* A malformed and an oversized frame: the receiver logs LINK-PROTO and the run fails cleanly. */
static void test_fault_garbage(void **state)
{
    (void) state;
    misnamed_t m = {0};
    for (int k = 0; k < 2; k++) {
        fault_case("linear:8", "multi", 2, "garbage", 4, "LINK-PROTO", "protocol", &m);
        fault_case("torus:4x4", "single", 2, "garbage", 4, "LINK-PROTO", "protocol", &m);
    }
    skip_if_misnamed(&m);
}

static void test_fault_oversize(void **state)
{
    (void) state;
    misnamed_t m = {0};
    for (int k = 0; k < 2; k++) {
        fault_case("linear:8", "multi", 2, "oversize", 4, "LINK-PROTO", "protocol", &m);
        fault_case("torus:4x4", "single", 2, "oversize", 4, "LINK-PROTO", "protocol", &m);
    }
    skip_if_misnamed(&m);
}

/* One bit flipped on the wire after sealing: the receiver refuses the frame (authentication
 * failed, naming the link), and the run fails naming the sender and the slot. */
static void test_fault_flip(void **state)
{
    (void) state;
    misnamed_t m = {0};
    for (int k = 0; k < 2; k++) {
        fault_case("linear:8", "multi", 2, "flip", 4, "authentication failed", "authentication",
                   &m);
        fault_case("torus:4x4", "single", 2, "flip", 4, "authentication failed", "edge", &m);
    }
    skip_if_misnamed(&m);
}

/* A link that moves, but too slowly: from slot 1 node 0 sends its frames at a trickle (128 bytes
 * every 100 ms, far more often than the 5 s silence limit, so that node 1 sees bytes come however
 * loaded the machine), and its 256 KiB broadcast packet would need minutes. Node 1 must report the
 * link slow once the silence limit plus the model's time of a frame (5 s + the build time of the
 * frame with --probes 0) has passed since the first byte, and the coordinator must blame the link
 * as too slow, with the rate and the frame's size, never as silent nor a node. The outcome does
 * not depend on the machine's speed: a faster machine cannot send faster than the trickle, and a
 * slower one sends still less. */
static void test_fault_trickle(void **state)
{
    (void) state;
    tu_proc_t p =
        TU_STEPNET(60, "run", "--topo", "linear:2", "--coll", "bcast", "--size", "262144", "--reps",
                   "1", "--warmup", "0", "--probes", "0", "--fault", "0:trickle@1", "--json");
    char line[1024];
    tu_expect_failed(&p, line, sizeof line);
    print_message("  0:trickle@1 on linear:2 (%.2f s): %s\n", p.secs, line);
    if (strstr(p.err, "injecting trickle@1 at slot 1") == NULL)
        fail_msg("%s: stderr does not show the injection:\n%s", p.cmd, p.err);
    const char *const need[] = {"link 0-1", "too slow", "moving at", "frame of 262144 bytes"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (strstr(line, need[i]) == NULL)
            fail_msg("%s: the verdict does not say '%s': %s", p.cmd, need[i], line);
    const char *const never[] = {"went silent", "node 0 failed", "node 1 failed", "node 0 (pid",
                                 "node 1 (pid"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(line, never[i]) != NULL)
            fail_msg("%s: the verdict says '%s': %s", p.cmd, never[i], line);
    char err[1024];
    if (strstr(tu_json_str(p.out, "error", err, sizeof err), "is too slow") == NULL)
        fail_msg("%s: the JSON's error is not the slow link's verdict: %s", p.cmd, err);
    tu_exec_free(&p);
}

/* --node-bin that does not exist: the run fails at once naming the binary. */
static void test_deadline_node_bin_missing(void **state)
{
    (void) state;
    char tag[128] = "";
    tu_proc_t p = tu_stepnet_raw(30,
                                 (const char *const[]){"run", "--topo", "ring:4", "--coll", "mnb",
                                                       "--node-bin", "/nonexistent/stepnet-node",
                                                       "--json", NULL},
                                 tag, sizeof tag);
    tu_expect_no_survivors(p.cmd, tag);
    if (strstr(p.err, "/nonexistent/stepnet-node") == NULL)
        fail_msg("%s: stderr does not name the node binary:\n%s", p.cmd, p.err);
    if (p.secs > 20) /* the ready deadline is 30 s */
        fail_msg("%s: took %.1f s: a binary that cannot start must fail the run at once", p.cmd,
                 p.secs);
    int bug = p.signal != 0 || strstr(p.err, "event loop still busy") != NULL ||
              strstr(p.err, "LeakSanitizer") != NULL;
    /* libuv requires uv_close on the process handle even after a failed uv_spawn: the run
     * must end with status 1, without "event loop still busy" or a LeakSanitizer report. */
    if (bug)
        fail_msg("%s: status %d, signal %d, stderr:\n%.600s", p.cmd, p.status, p.signal, p.err);
    char line[1024];
    tu_expect_failed(&p, line, sizeof line);
    tu_exec_free(&p);
}

/* --node-bin that exits at once, or that never joins. */
static void test_deadline_ready(void **state)
{
    (void) state;
    char line[1024];
    tu_proc_t p;
    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "mnb", "--node-bin", "/bin/false",
                   "--json");
    tu_expect_failed(&p, line, sizeof line);
    if (!tu_names_number(line, "node", 0, 3) || strstr(line, "exited with status 1") == NULL)
        fail_msg("%s: the error does not name a node that exited: %s", p.cmd, line);
    if (p.secs > 20) /* the ready deadline is 30 s */
        fail_msg("%s: took %.1f s: nodes that exit at once must fail the run at once", p.cmd,
                 p.secs);
    print_message("  /bin/false (%.2f s): %s\n", p.secs, line);
    tu_exec_free(&p);

    /* a node binary that never connects: the ready deadline names the missing nodes */
    char *script = tu_tmpfile("#!/bin/sh\nexec sleep 60\n");
    assert_int_equal(chmod(script, 0755), 0);
    p = TU_STEPNET(30, "run", "--topo", "ring:4", "--coll", "mnb", "--node-bin", script,
                   "--ready-timeout-ms", "1000", "--json");
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(line, "ready deadline") == NULL || strstr(line, "joined") == NULL ||
        strstr(line, "1000 ms") == NULL || strstr(line, "4 of 4") == NULL)
        fail_msg("%s: the error does not name the ready deadline: %s", p.cmd, line);
    print_message("  never joins (%.2f s): %s\n", p.secs, line);
    tu_exec_free(&p);
    unlink(script);
    free(script);
}

static void test_deadline_collective(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(60, "run", "--topo", "torus:6x6", "--coll", "te", "--ports", "single",
                             "--collective-timeout-ms", "1", "--reps", "1", "--warmup", "0",
                             "--probes", "3", "--json");
    char line[1024];
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(line, "collective deadline") == NULL || strstr(line, "(1 ms)") == NULL)
        fail_msg("%s: the error does not name the collective deadline: %s", p.cmd, line);
    print_message("  %s\n", line);
    tu_exec_free(&p);
}

/* ---- one step check in both executors ------------------------------------------------------- */

/* A deliberately illegal algorithm (core/algo/testing/faulty.c) fails `stepnet run` (real
 * processes) with exit 1 and exactly the error text of the in-process simulator: both executors
 * call the core's step check and report its message unchanged. */
static void illegal_case(const char *algo, const char *ports)
{
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t sp = tu_params(SN_COLL_BCAST, ports, "one", "full");
    tu_run_t r = tu_sim(t, &sp, algo);
    sn_topo_free(t);
    assert_true(r.rc < 0);
    const char *x = r.err.msg;
    tu_proc_t p =
        TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "bcast", "--algo", algo, "--ports",
                   ports, "--reps", "1", "--warmup", "0", "--probes", "0", "--json");
    char line[1024];
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(line, x) == NULL)
        fail_msg("%s: the error line does not hold the simulator's message '%s':\n%s", p.cmd, x,
                 line);
    if (p.nout > 0 && p.out[0] == '{') {
        char err[1024];
        const char *je = tu_json_str(tu_json_line(&p), "error", err, sizeof err);
        if (je == NULL || strstr(je, x) == NULL)
            fail_msg("%s: the JSON error does not hold '%s': %s", p.cmd, x, je ? je : "(none)");
    }
    print_message("  %s: %s\n", algo, line);
    tu_exec_free(&p);
}

static void test_illegal_same_error(void **state)
{
    (void) state;
    illegal_case("test-double-send", "single");
    illegal_case("test-past-wake", "multi");
}

/* ---- what a failed run reports -------------------------------------------------------------- */

/* The counters of a repetition: measured only when one verified (docs/output.md). */
static const char *const counters[] = {"steps",      "control_slots",  "data_slots",
                                       "time_units", "packets",        "control_packets",
                                       "deliveries", "trace_hash",     "bytes_checked",
                                       "max_queue",  "max_queue_node", NULL};
/* The times of the measured repetitions: measured only when one was. */
static const char *const times[] = {
    "wall_us_median", "wall_us_avg", "wall_us_min",    "wall_us_max",    "wall_us_p50",
    "wall_us_p99",    "us_per_step", "coll_us_median", "node_us_median", NULL};
/* Never measured in a failed run: there is no prediction for a run that did not end. */
static const char *const unpredicted[] = {"predicted_us", "time_model", NULL};

/* Fails unless every key of keys is null (want_null) or not null in the report j of cmd. */
static void expect_nulls(const char *cmd, const char *j, const char *const *keys, int want_null)
{
    for (size_t i = 0; keys[i]; i++)
        if (tu_json_is_null(j, keys[i]) != want_null)
            fail_msg("%s: \"%s\" is %.40s, want %s:\n%s", cmd, keys[i], tu_json_need(j, keys[i]),
                     want_null ? "null (not measured)" : "a value", j);
}

/* A run that fails in its first repetition measured nothing of the collective: its counters,
 * times and prediction are null, not 0; the calibration before it was measured and stays, unless
 * there was none (--probes 0); a run whose nodes never said hello has null hosts and no barrier
 * (its repetitions never began). The text report prints no made-up counts. */
static void test_failed_run_nulls(void **state)
{
    (void) state;
    char line[1024];
    tu_proc_t p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--reps", "2",
                             "--warmup", "0", "--probes", "3", "--fault", "1:kill@2", "--json");
    tu_expect_failed(&p, line, sizeof line);
    const char *j = tu_json_line(&p);
    expect_nulls(p.cmd, j, counters, 1);
    expect_nulls(p.cmd, j, times, 1);
    expect_nulls(p.cmd, j, unpredicted, 1);
    assert_true(tu_json_is_null(j, "quiet_slot"));
    assert_int_equal(tu_json_int(j, "iterations"), 0);
    assert_int_equal(tu_json_int(j, "expected_deliveries"), 12);
    assert_true(tu_json_num(j, "alpha_us") > 0); /* calibrated before the collective */
    tu_exec_free(&p);

    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--reps", "2", "--warmup", "0",
                   "--probes", "0", "--fault", "1:kill@2");
    tu_expect_failed(&p, line, sizeof line);
    assert_non_null(strstr(p.out, "  FAILED "));
    if (strstr(p.out, "  steps ") || strstr(p.out, "  deliveries ") || strstr(p.out, "wall time"))
        fail_msg("%s: the text report of a failed run prints counts it did not measure:\n%s", p.cmd,
                 p.out);
    tu_exec_free(&p);

    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--reps", "2", "--warmup", "0",
                   "--probes", "0", "--fault", "1:kill@2", "--json");
    tu_expect_failed(&p, line, sizeof line);
    j = tu_json_line(&p);
    assert_true(tu_json_is_null(j, "alpha_us"));
    assert_true(tu_json_is_null(j, "beta_us_per_byte"));
    tu_exec_free(&p);

    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "mnb", "--node-bin", "/bin/false",
                   "--json");
    tu_expect_failed(&p, line, sizeof line);
    j = tu_json_line(&p);
    expect_nulls(p.cmd, j, counters, 1);
    expect_nulls(p.cmd, j, times, 1);
    const char *hosts = tu_json_need(j, "hosts");
    if (strncmp(hosts, "[null,null,null,null]", 21) != 0)
        fail_msg("%s: nodes that never said hello have a host: %.80s", p.cmd, hosts);
    assert_true(tu_json_is_null(j, "alpha_us"));
    assert_true(tu_json_is_null(j, "barrier_slots")); /* the repetitions never began */
    tu_exec_free(&p);
}

/* A run interrupted after some repetitions verified reports what they measured (the last one's
 * counters, the measured times) and null for the prediction. */
static void test_interrupted_run_measured(void **state)
{
    (void) state;
    char tag[128];
    tu_new_tag(tag, sizeof tag);
    tu_exec_opts_t o = {.name = "stepnet", .env = tag};
    tu_bg_t *b = tu_bg_start(tu_env_bin("STEPNET"),
                             (const char *const[]){"run", "--topo", "ring:4", "--coll", "te",
                                                   "--reps", "1000000", "--warmup", "0", "--probes",
                                                   "3", "--progress", "--json", NULL},
                             &o);
    /* progress lines: "stepnet run: progress: phase=run N/1000000 ..." */
    char line[512];
    unsigned long done = 0;
    double end = tu_now() + 60 * TU_SLOW;
    while (done < 3 && tu_now() < end)
        if (tu_bg_line(b, 2, " phase=run ", line, sizeof line, end - tu_now())) {
            const char *q = strstr(line, " phase=run ");
            if (q)
                done = strtoul(q + strlen(" phase=run "), NULL, 10);
        }
    if (done < 3)
        fail_msg("%s: no progress line with 3 repetitions done:\n%s", b->cmd, b->buf[1]);
    tu_bg_signal(b, SIGINT);
    tu_bg_wait_or_fail(b, 30 * TU_SLOW);
    tu_proc_t p = tu_bg_view(b);
    tu_expect_status(&p, 130);
    const char *j = tu_json_line(&p);
    assert_false(tu_json_bool(j, "verified"));
    tu_json_need(j, "error");
    expect_nulls(p.cmd, j, unpredicted, 1);
    expect_nulls(p.cmd, j, times, 0);
    /* te-ring reports no queues: max_queue and max_queue_node stay null */
    static const char *const measured[] = {
        "steps",           "control_slots", "data_slots", "time_units",    "packets",
        "control_packets", "deliveries",    "trace_hash", "bytes_checked", NULL};
    expect_nulls(p.cmd, j, measured, 0);
    assert_int_equal(tu_json_int(j, "steps"), tu_json_int(j, "predicted_steps"));
    assert_int_equal(tu_json_int(j, "deliveries"), tu_json_int(j, "expected_deliveries"));
    assert_true(tu_json_int(j, "iterations") >= 2);
    assert_true(tu_json_num(j, "wall_us_median") > 0);
    tu_expect_no_survivors(b->cmd, tag);
    tu_bg_free(b);
}

int main(void)
{
    tu_run_init("test_run_faults");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_fault_kill, tu_run_teardown),
        cmocka_unit_test_teardown(test_fault_stop, tu_run_teardown),
        cmocka_unit_test_teardown(test_fault_garbage, tu_run_teardown),
        cmocka_unit_test_teardown(test_fault_oversize, tu_run_teardown),
        cmocka_unit_test_teardown(test_fault_flip, tu_run_teardown),
        cmocka_unit_test_teardown(test_fault_trickle, tu_run_teardown),
        cmocka_unit_test_teardown(test_deadline_node_bin_missing, tu_run_teardown),
        cmocka_unit_test_teardown(test_deadline_ready, tu_run_teardown),
        cmocka_unit_test_teardown(test_deadline_collective, tu_run_teardown),
        cmocka_unit_test_teardown(test_illegal_same_error, tu_run_teardown),
        cmocka_unit_test_teardown(test_failed_run_nulls, tu_run_teardown),
        cmocka_unit_test_teardown(test_interrupted_run_measured, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
