/* Integration tests of liveness, interrupts and priority in `stepnet run` (docs/runtime.md;
 * coordinator/ and node/): a stopped coordinator or joining node is noticed within the heartbeat
 * deadline, Ctrl-C and SIGTERM are reported as interrupts (also while nodes are starting), and
 * --coord-nice raises only the coordinator's run thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- liveness and interrupts (docs/runtime.md) ------------------------------------------------
 */

/* The nice value of task `tid` of process `pid` (/proc/PID/task/TID/stat, field 19), or -100 when
 * it cannot be read. */
static int task_nice(long pid, long tid)
{
    char path[96], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", pid, tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -100;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command name, which may hold spaces */
    int field = 2;
    long v = -100;
    for (char *tok = p ? strtok((char *) p + 1, " ") : NULL; tok; tok = strtok(NULL, " "))
        if (++field == 19) {
            v = strtol(tok, NULL, 10);
            break;
        }
    return (int) v;
}

/* --coord-nice N: once the nodes are started, the coordinator's run thread (the only one with
 * the raised value: the main thread waits for it and starts the next run's nodes) runs N above the
 * priority it was started with, and every node process keeps that priority; with 0 the run stays
 * on the main thread, at the start priority. Checked in /proc on a held run. */
static void test_coord_nice(void **state)
{
    (void) state;
    errno = 0;
    int base = getpriority(PRIO_PROCESS, 0);
    assert_false(base == -1 && errno);
    static const char *const nices[] = {"7", "0"};
    for (size_t i = 0; i < 2; i++) {
        int inc = atoi(nices[i]), want = base + inc > 19 ? 19 : base + inc;
        char tag[128];
        tu_new_tag(tag, sizeof tag);
        tu_exec_opts_t o = {.name = "stepnet", .env = tag};
        tu_bg_t *b = tu_bg_start(tu_env_bin("STEPNET"),
                                 (const char *const[]){"run", "--topo", "ring:4", "--coll", "mnb",
                                                       "--coord-nice", nices[i], TU_LOCAL_HOLD_ARGS,
                                                       "--json", NULL},
                                 &o);
        if (!tu_wait_stderr(b, "injecting stop@1", 30 * TU_SLOW))
            fail_msg("%s: node 0 did not stop itself at slot 1:\n%s", b->cmd, b->buf[1]);
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%ld/task", (long) b->pid);
        DIR *d = opendir(dir);
        assert_non_null(d);
        int at_base = 0, raised = 0, other = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            int v = task_nice((long) b->pid, atol(e->d_name));
            if (v == -100)
                continue; /* a thread that has just ended */
            at_base += v == base;
            raised += v == want && want != base;
            other += v != base && v != want;
        }
        closedir(d);
        if (at_base < 1 || raised != (inc ? 1 : 0) || other)
            fail_msg("--coord-nice %s: coordinator threads at nice %d: %d, at %d: %d, others: %d",
                     nices[i], base, at_base, want, raised, other);
        pid_t pids[16];
        size_t n = tu_env_procs(tag, 0, pids, 16), nodes = 0;
        for (size_t k = 0; k < n && k < 16; k++) {
            if (pids[k] == b->pid)
                continue;
            int v = task_nice((long) pids[k], (long) pids[k]);
            if (v != -100 && v != base)
                fail_msg("--coord-nice %s: node process %ld at nice %d, want %d", nices[i],
                         (long) pids[k], v, base);
            nodes += v != -100;
        }
        assert_int_equal(nodes, 4);
        tu_bg_signal(b, SIGTERM);
        tu_bg_wait_or_fail(b, 30 * TU_SLOW);
        tu_expect_no_survivors(b->cmd, tag);
        tu_bg_free(b);
    }
}

/* SIGTERM while the nodes are still starting (some have said hello, some not): the coordinator
 * stops cleanly (exit 143, "interrupted by the user", no sanitizer report, no process left), and a
 * hello that arrives after the interruption starts nothing. The run is held (TU_LOCAL_HOLD_ARGS),
 * so it is still going when the signal arrives, however fast the nodes start. */
static void test_interrupt_while_joining(void **state)
{
    (void) state;
    for (int k = 0; k < 6; k++) {
        char tag[128];
        tu_new_tag(tag, sizeof tag);
        tu_exec_opts_t o = {.name = "stepnet", .env = tag};
        tu_bg_t *b = tu_bg_start(tu_env_bin("STEPNET"),
                                 (const char *const[]){"run", "--topo", "ring:24", "--coll", "mnb",
                                                       TU_LOCAL_HOLD_ARGS, "--json", NULL},
                                 &o);
        /* the moment the last node has exec'd: the earliest have said hello, the last have not */
        double end = tu_now() + 20 * TU_SLOW;
        while (tu_execd_nodes(tag) < 24 - (size_t) (k % 3) && tu_now() < end)
            tu_sleep(0.001);
        tu_bg_signal(b, SIGTERM);
        tu_bg_wait_or_fail(b, 30 * TU_SLOW);
        if (b->status != 143 || !strstr(b->buf[1], "interrupted by the user (SIGTERM)"))
            fail_msg("%s: exit status %d after SIGTERM, want 143 and 'interrupted by the user'\n%s",
                     b->cmd, b->status, b->buf[1]);
        tu_expect_no_survivors(b->cmd, tag);
        tu_bg_free(b);
    }
}

/* A local run of many repetitions with a 100 ms heartbeat, started with the nodes' routine logs:
 * returns once every node has logged NODE-READY. */
static tu_bg_t *liveness_run(char *tag, size_t cap, const char *const *extra)
{
    tu_new_tag(tag, cap);
    tu_exec_opts_t o = {.name = "stepnet", .env = tag};
    tu_av_t a = {0};
    TU_AV_ADD(&a, "run", "--topo", "ring:4", "--coll", "te", "--reps", "1000000", "--warmup", "0",
              "--probes", "3", "--heartbeat-ms", "100", "--verbose");
    tu_av_addv(&a, extra);
    tu_bg_t *b = tu_bg_start(tu_env_bin("STEPNET"), a.v, &o);
    double end = tu_now() + 30 * TU_SLOW;
    while (tu_count_str(b->buf[1], "NODE-READY") < 4 && tu_now() < end)
        tu_bg_pump(b, 0.05);
    if (tu_count_str(b->buf[1], "NODE-READY") < 4)
        fail_msg("%s: the nodes did not get ready:\n%s", b->cmd, b->buf[1]);
    return b;
}

/* A stopped coordinator (SIGSTOP) makes every node leave within the heartbeat deadline (5 x 100
 * ms), each naming the coordinator's address; resumed, the coordinator reports that it was the
 * silent one, and nothing is left running. */
static void test_coordinator_stopped(void **state)
{
    (void) state;
    char tag[128];
    tu_bg_t *b = liveness_run(tag, sizeof tag, (const char *const[]){NULL});
    tu_sleep(0.3); /* repetitions are running */
    assert_int_equal(tu_bg_signal(b, SIGSTOP), 0);
    double t0 = tu_now(), end = t0 + 10 * TU_SLOW;
    while (tu_count_str(b->buf[1], "CTL-SILENT") < 4 && tu_now() < end)
        tu_bg_pump(b, 0.02);
    double took = tu_now() - t0;
    if (tu_count_str(b->buf[1], "CTL-SILENT") < 4)
        fail_msg("not every node left while the coordinator was stopped:\n%s", b->buf[1]);
    print_message("  every node left %.2f s after the coordinator stopped\n", took);
    if (took > 0.5 + 4.0 * TU_SLOW)
        fail_msg("the nodes took %.2f s to notice (deadline 0.5 s)", took);
    if (!strstr(b->buf[1], "the coordinator at 127.0.0.1:"))
        fail_msg("the nodes did not name the coordinator's address:\n%s", b->buf[1]);
    assert_int_equal(tu_bg_signal(b, SIGCONT), 0);
    tu_bg_wait_or_fail(b, 30 * TU_SLOW);
    if (b->status != 1 || !strstr(b->buf[1], "stepnet run: the coordinator was silent"))
        fail_msg("%s: exit status %d, want 1 and 'the coordinator was silent':\n%s", b->cmd,
                 b->status, b->buf[1]);
    tu_expect_no_survivors(b->cmd, tag);
    tu_bg_free(b);
}

/* A node stopped (SIGSTOP) while the run waits for the last node to join answers no heartbeat:
 * the coordinator ends the run within the heartbeat deadline naming it, long before the ready
 * deadline. */
static void test_node_stopped_joining(void **state)
{
    (void) state;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start(j, (const char *const[]){"--topo", "ring:4", "--coll", "te", "--heartbeat-ms",
                                           "100", "--ready-timeout-ms", "60000", "--json", NULL});
    tu_join_nodes(j, 3);
    /* all three have joined */
    if (!tu_wait_stderr(j->coord, "3 of 4", 20 * TU_SLOW))
        fail_msg("three nodes did not join:\n%s", j->coord->buf[1]);
    assert_int_equal(tu_bg_signal(j->node[1], SIGSTOP), 0);
    double t0 = tu_now();
    tu_bg_wait_or_fail(j->coord, 20 * TU_SLOW);
    double took = tu_now() - t0;
    if (j->coord->status != 1 || !strstr(j->coord->buf[1], "answered no heartbeat for"))
        fail_msg("%s: exit status %d, want 1 naming the silent node:\n%s", j->coord->cmd,
                 j->coord->status, j->coord->buf[1]);
    print_message("  the run failed %.2f s after a node stopped\n", took);
    /* the deadline (0.5 s), one heartbeat period, and the blame window (0.3 s) */
    if (took > 0.9 + 3.0 * TU_SLOW)
        fail_msg("the coordinator took %.2f s to notice (deadline 0.5 s)", took);
    tu_bg_signal(j->node[1], SIGKILL);
    for (size_t i = 0; i < j->n; i++) {
        if (i == 1)
            tu_bg_wait(j->node[i], 20 * TU_SLOW); /* killed here */
        else
            tu_bg_wait_or_fail(j->node[i], 20 * TU_SLOW);
    }
    tu_expect_no_survivors(j->coord->cmd, j->tag);
    for (size_t i = 0; i < j->n; i++)
        tu_bg_free(j->node[i]);
    tu_bg_free(j->coord);
    unlink(j->key);
    rmdir(j->keydir);
    free(j);
}

/* The 4 node processes of the local run b tagged `tag`, into pids[16]. */
static size_t node_pids(const tu_bg_t *b, const char *tag, pid_t *pids)
{
    pid_t all[16];
    size_t n = tu_env_procs(tag, 0, all, 16), k = 0;
    for (size_t i = 0; i < n && i < 16; i++)
        if (all[i] != b->pid)
            pids[k++] = all[i];
    assert_int_equal(k, 4);
    return k;
}

/* Ctrl-C on the whole run (SIGINT to every node, then to the coordinator, as a terminal sends it
 * to the process group) is reported as an interrupt, not as a node's failure: exit 130. SIGTERM
 * to one node alone ends the run naming the interrupt of that node: exit 1. */
static void test_interrupt_reported(void **state)
{
    (void) state;
    char tag[128];
    tu_bg_t *b = liveness_run(tag, sizeof tag, (const char *const[]){NULL});
    pid_t pids[16];
    size_t n = node_pids(b, tag, pids);
    /* as a terminal sends it: to every process at once (here the nodes a moment first) */
    for (size_t i = 0; i < n; i++)
        kill(pids[i], SIGINT);
    tu_bg_signal(b, SIGINT);
    tu_bg_wait_or_fail(b, 30 * TU_SLOW);
    if (b->status != 130 || !strstr(b->buf[1], "stepnet run: interrupted by the user (SIGINT)"))
        fail_msg("%s: exit status %d after Ctrl-C, want 130 and 'interrupted by the user':\n%s",
                 b->cmd, b->status, b->buf[1]);
    if (strstr(b->buf[1], "stepnet run: node "))
        fail_msg("a node was blamed for Ctrl-C:\n%s", b->buf[1]);
    tu_expect_no_survivors(b->cmd, tag);
    tu_bg_free(b);
    b = liveness_run(tag, sizeof tag, (const char *const[]){NULL});
    n = node_pids(b, tag, pids);
    kill(pids[2], SIGTERM);
    tu_bg_wait_or_fail(b, 30 * TU_SLOW);
    if (b->status != 1 || !strstr(b->buf[1], ": interrupted by SIGTERM"))
        fail_msg("%s: exit status %d after SIGTERM to one node, want 1 and the interrupt:\n%s",
                 b->cmd, b->status, b->buf[1]);
    tu_expect_no_survivors(b->cmd, tag);
    tu_bg_free(b);
}

int main(void)
{
    tu_run_init("test_run_liveness");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_interrupt_while_joining, tu_run_teardown),
        cmocka_unit_test_teardown(test_coord_nice, tu_run_teardown),
        cmocka_unit_test_teardown(test_coordinator_stopped, tu_run_teardown),
        cmocka_unit_test_teardown(test_node_stopped_joining, tu_run_teardown),
        cmocka_unit_test_teardown(test_interrupt_reported, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
