/* Unit tests of coordinator/blame.c: the root cause among the failure reports of one run, for the
 * cascades a real run produces (a killed node, a chain of slot deadlines behind a stopped node, a
 * corrupt frame, one link failure seen from both ends). blame.c is pure: no loop, no sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "coordinator/blame.h"

#define SELF     STEPNET__ABORT_KIND__ABORT_SELF
#define LINK     STEPNET__ABORT_KIND__ABORT_LINK
#define PROTO    STEPNET__ABORT_KIND__ABORT_PROTO
#define DEADLINE STEPNET__ABORT_KIND__ABORT_DEADLINE
#define CORRUPT  STEPNET__ABORT_KIND__ABORT_CORRUPT
#define SLOW     STEPNET__ABORT_KIND__ABORT_SLOW
#define NONE     SN_COORD_NODE_NONE

static sn_coord_report_t rep(int kind, int node, int peer, uint64_t slot, const uint32_t *missing,
                             size_t nmissing, const char *text)
{
    sn_coord_report_t r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.node = node;
    r.peer = peer;
    r.slot = slot;
    r.missing = missing;
    r.nmissing = nmissing;
    snprintf(r.text, sizeof r.text, "%s", text);
    return r;
}

static sn_coord_evidence_t live(int state, uint32_t pid, uint32_t unacked, uint32_t retransmits,
                                uint64_t waited_ms)
{
    sn_coord_evidence_t e = {state, pid, unacked, retransmits, waited_ms};
    return e;
}

static sn_coord_evidence_t answered(void)
{
    return live(SN_COORD_LIVE_ANSWERED, 0, 0, 0, 0);
}

/* did not answer; the TCP state says nothing either way */
static sn_coord_evidence_t unknown(void)
{
    return live(SN_COORD_LIVE_UNKNOWN, 0, 0, 0, 0);
}

static void expect_contains(const char *s, const char *needle)
{
    if (strstr(s, needle) == NULL)
        fail_msg("verdict '%s' lacks '%s'", s, needle);
}

/* The coordinator's own kinds never collide with the protocol's AbortKind values. */
static void test_kinds_apart(void **state)
{
    (void) state;
    const int node_kinds[] = {SELF,
                              LINK,
                              PROTO,
                              DEADLINE,
                              CORRUPT,
                              STEPNET__ABORT_KIND__ABORT_INTERRUPT,
                              STEPNET__ABORT_KIND__ABORT_COORDINATOR,
                              SLOW};
    for (size_t i = 0; i < sizeof node_kinds / sizeof *node_kinds; i++) {
        assert_true(node_kinds[i] != SN_COORD_KIND_DEATH);
        assert_true(node_kinds[i] != SN_COORD_KIND_RUN);
        assert_true(node_kinds[i] != SN_COORD_KIND_INTERRUPT);
    }
}

/* Node 1 of ring:4 is killed at slot 3: its neighbours' link reports arrive before the
 * coordinator sees the process die; the death is the cause, the link reports its witness. */
static void test_kill_cascade(void **state)
{
    (void) state;
    sn_coord_report_t r[4];
    r[0] = rep(LINK, 2, 1, 3, NULL, 0, "node 2: link to node 1 (edge 2) failed at slot 3");
    r[1] = rep(LINK, 0, 1, 3, NULL, 0, "node 0: link to node 1 (edge 0) failed at slot 3");
    r[2] = rep(LINK, 3, 2, 4, NULL, 0, "node 3: link to node 2 (edge 3) failed at slot 4");
    r[3] = rep(SN_COORD_KIND_DEATH, 1, NONE, 0, NULL, 0,
               "node 1 (pid 42) was killed by signal 9 (Killed)");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 4, 4, NULL, &v);
    assert_int_equal(v.culprit, 1);
    assert_int_equal(v.slot, 3);
    assert_true(strncmp(v.error, "node 1 (pid 42) was killed by signal 9", 38) == 0);
    expect_contains(v.error, "at slot 3");
    expect_contains(v.error, "[node 2: link to node 1 (edge 2) failed at slot 3]");
    /* the order of arrival does not matter */
    sn_coord_report_t s[4] = {r[3], r[2], r[1], r[0]};
    sn_coord_verdict_t w;
    sn__coord_blame(s, 4, 4, NULL, &w);
    assert_int_equal(w.culprit, 1);
    assert_int_equal(w.slot, 3);
}

/* Node 2 of ring:6 stops (SIGSTOP) at slot 5: its neighbours' slot deadlines name it; then their
 * neighbours' deadlines name them, and the next ones name those. The silent node is the cause
 * even when a node that reported is named as often. */
static void test_deadline_chain(void **state)
{
    (void) state;
    static const uint32_t m2[] = {2}, m1[] = {1}, m3[] = {3}, m04[] = {0, 4};
    sn_coord_report_t r[6];
    r[0] = rep(DEADLINE, 0, NONE, 6, m1, 1, "node 0: slot 6 deadline: node 1 silent");
    r[1] = rep(DEADLINE, 1, NONE, 5, m2, 1, "node 1: slot 5 deadline: node 2 silent");
    r[2] = rep(DEADLINE, 4, NONE, 6, m3, 1, "node 4: slot 6 deadline: node 3 silent");
    r[3] = rep(DEADLINE, 3, NONE, 5, m2, 1, "node 3: slot 5 deadline: node 2 silent");
    r[4] = rep(DEADLINE, 5, NONE, 7, m04, 2, "node 5: slot 7 deadline: nodes 0,4 silent");
    r[5] = rep(LINK, 5, 3, 7, NULL, 0, "node 5: link to node 3 failed at slot 7");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 6, 6, NULL, &v);
    assert_int_equal(v.culprit, 2);
    assert_int_equal(v.slot, 5);
    assert_true(strncmp(v.error, "node 2 failed (it stopped sending frames): ", 43) == 0);
    expect_contains(v.error, "node 1: slot 5 deadline: node 2 silent");
    expect_contains(v.error, "[node 3: slot 5 deadline: node 2 silent]");
}

/* Node 3 sends a corrupt payload to node 2 at slot 4; node 2 aborts and closes its links, so node
 * 3 and node 1 report link failures, one of them first. The sender of the bad frame is the cause.
 */
static void test_corrupt_frame(void **state)
{
    (void) state;
    sn_coord_report_t r[3];
    r[0] = rep(LINK, 3, 2, 4, NULL, 0, "node 3: link to node 2 failed at slot 4");
    r[1] = rep(LINK, 1, 2, 4, NULL, 0, "node 1: link to node 2 failed at slot 4");
    r[2] = rep(CORRUPT, 2, 3, 4, NULL, 0, "node 2: corrupt payload from node 3 at slot 4");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, 3);
    assert_int_equal(v.slot, 4);
    assert_string_equal(v.error,
                        "node 3 failed (it sent a bad frame): node 2: corrupt payload from node 3 "
                        "at slot 4");
    /* a malformed frame is blamed the same way */
    r[2].kind = PROTO;
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, 3);
    expect_contains(v.error, "(it sent a bad frame)");
}

/* One link fails and both of its ends report it: both are alive, so the verdict is that link (no
 * culprit node), with its edge and slot, whatever the order of arrival. */
static void test_link_both_ends(void **state)
{
    (void) state;
    sn_coord_report_t r[2];
    r[0] = rep(LINK, 0, 1, 7, NULL, 0, "node 0: link to node 1 failed at slot 7: reset");
    r[1] = rep(LINK, 1, 0, 7, NULL, 0, "node 1: link to node 0 failed at slot 7: reset");
    r[1].edge_known = 1;
    r[1].edge = 2;
    sn_coord_verdict_t a, b;
    sn__coord_blame(r, 2, 4, NULL, &a);
    assert_int_equal(a.culprit, NONE);
    assert_int_equal(a.link_a, 0);
    assert_int_equal(a.link_b, 1);
    assert_int_equal(a.slot, 7);
    expect_contains(a.error, "link 0-1 (edge 2) went silent at slot 7; both ends alive");
    sn_coord_report_t s[2] = {r[1], r[0]};
    sn__coord_blame(s, 2, 4, NULL, &b);
    assert_int_equal(b.culprit, a.culprit);
    assert_string_equal(b.error, a.error);
}

/* A link cut silently between live nodes 5 and 6 of ring:8 (no reset: packets vanish): both ends
 * fire their slot deadline naming each other; their other neighbours then stall behind them and
 * name 5 and 6 as silent. The verdict is the link, not node 5 or 6. */
static void test_link_cut_deadlines(void **state)
{
    (void) state;
    static const uint32_t m5[] = {6}, m6[] = {5}, m4[] = {5}, m7[] = {6};
    sn_coord_report_t r[4];
    r[0] = rep(DEADLINE, 4, 5, 13, m4, 1, "node 4: slot deadline at slot 13: no frame from node 5");
    r[1] = rep(DEADLINE, 6, 5, 12, m6, 1, "node 6: slot deadline at slot 12: no frame from node 5");
    r[2] = rep(DEADLINE, 7, 6, 13, m7, 1, "node 7: slot deadline at slot 13: no frame from node 6");
    r[3] = rep(DEADLINE, 5, 6, 12, m5, 1, "node 5: slot deadline at slot 12: no frame from node 6");
    r[3].edge_known = 1;
    r[3].edge = 5;
    sn_coord_verdict_t v;
    sn__coord_blame(r, 4, 8, NULL, &v);
    assert_int_equal(v.culprit, NONE);
    assert_int_equal(v.link_a, 5);
    assert_int_equal(v.link_b, 6);
    assert_int_equal(v.slot, 12);
    expect_contains(v.error, "link 5-6 (edge 5) went silent at slot 12; both ends alive");
    /* a stopped node 5 is different: it reports nothing, so nobody is accused by it */
    sn__coord_blame(r, 3, 8, NULL, &v);
    assert_int_equal(v.culprit, 5);
    assert_int_equal(v.link_a, NONE);
}

/* A link cut at the end of a repetition: node 2 received node 3's last frame, finished and waits
 * for the next start; node 3 never gets node 2's last frame and accuses it. Node 2 reports nothing
 * but answers the coordinator's liveness probe: the link is named, not node 2. A node that does
 * not answer (stopped) is named as before, and a dead or silent accused node outranks a live one.
 */
static void test_link_cut_one_side(void **state)
{
    (void) state;
    static const uint32_t m3[] = {2}, m5[] = {4}, m3b[] = {2, 4};
    sn_coord_report_t r[2];
    r[0] = rep(DEADLINE, 3, 2, 10, m3, 1, "node 3: slot deadline at slot 10: no frame from node 2");
    r[0].edge_known = 1;
    r[0].edge = 3;
    sn_coord_evidence_t alive[6];
    for (int i = 0; i < 6; i++)
        alive[i] = answered();
    sn_coord_verdict_t v;
    sn__coord_blame(r, 1, 6, alive, &v);
    assert_int_equal(v.culprit, NONE);
    assert_int_equal(v.link_a, 2);
    assert_int_equal(v.link_b, 3);
    assert_int_equal(v.slot, 10);
    expect_contains(v.error, "link 2-3 (edge 3) went silent at slot 10; both ends alive");
    expect_contains(v.error, "node 2: no report; it answers the coordinator");
    expect_contains(v.error, "[node 3: slot deadline at slot 10");
    /* node 2 does not answer: it is the culprit */
    alive[2] = unknown();
    sn__coord_blame(r, 1, 6, alive, &v);
    assert_int_equal(v.culprit, 2);
    assert_int_equal(v.link_a, NONE);
    expect_contains(v.error, "node 2 failed (it stopped sending frames)");
    /* liveness unknown (no probe): the accused node, as before */
    sn__coord_blame(r, 1, 6, NULL, &v);
    assert_int_equal(v.culprit, 2);
    /* node 2 alive but node 4 silent too (node 3 and node 5 accuse it): node 4 is named */
    alive[2] = answered();
    alive[4] = unknown();
    r[0] =
        rep(DEADLINE, 3, 2, 10, m3b, 2, "node 3: slot deadline at slot 10: no frame from node 2");
    r[1] = rep(DEADLINE, 5, 4, 10, m5, 1, "node 5: slot deadline at slot 10: no frame from node 4");
    sn__coord_blame(r, 2, 6, alive, &v);
    assert_int_equal(v.culprit, 4);
    assert_int_equal(v.link_a, NONE);
    /* the accuser with the larger id comes second in the link's name */
    alive[4] = answered();
    r[0] = rep(DEADLINE, 1, 2, 7, m3, 1, "node 1: slot deadline at slot 7: no frame from node 2");
    sn__coord_blame(r, 1, 6, alive, &v);
    assert_int_equal(v.link_a, 1);
    assert_int_equal(v.link_b, 2);
    expect_contains(v.error, "link 1-2 went silent at slot 7; both ends alive [node 1: slot");
}

/* A node gave up on a silent coordinator and closed its links; its neighbour reported the closed
 * link before it gave up too. A coordinator that ran (its blame window) does not name its own
 * silence; one that was itself stopped past the deadline does. */
static void test_stalled_coordinator(void **state)
{
    (void) state;
    sn_coord_report_t r[2];
    r[0] =
        rep(LINK, 1, 2, 1, NULL, 0, "node 1: link to node 2 failed at slot 1: closed by the peer");
    r[1] = rep(STEPNET__ABORT_KIND__ABORT_COORDINATOR, 2, NONE, 0, NULL, 0,
               "node 2: the coordinator sent nothing for 1025 ms");
    sn_coord_verdict_t v;
    assert_int_equal(sn__coord_silent_verdict(r, 2, 0, &v), 0);
    assert_int_equal(sn__coord_silent_verdict(r, 1, 1, &v), 0); /* nobody left for its silence */
    assert_int_equal(sn__coord_silent_verdict(r, 2, 1, &v), 1);
    assert_int_equal(v.culprit, NONE);
    assert_false(v.interrupted);
    assert_string_equal(
        v.error, "the coordinator was silent: node 2: the coordinator sent nothing for 1025 ms");
}

/* Nodes that left because the coordinator was silent (stopped, unreachable) outrank the deaths
 * that their leaving causes: the coordinator is named, not a node. */
static void test_coordinator_silent(void **state)
{
    (void) state;
    sn_coord_report_t r[3];
    r[0] = rep(STEPNET__ABORT_KIND__ABORT_COORDINATOR, 1, NONE, 0, NULL, 0,
               "node 1: the coordinator at 10.0.0.1:4000 sent nothing for 5003 ms");
    r[1] =
        rep(SN_COORD_KIND_DEATH, 1, NONE, 0, NULL, 0, "node 1 (pid 7) lost its control connection");
    r[2] =
        rep(SN_COORD_KIND_DEATH, 0, NONE, 0, NULL, 0, "node 0 (pid 6) lost its control connection");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, NONE);
    assert_false(v.interrupted);
    expect_contains(v.error,
                    "the coordinator was silent: node 1: the coordinator at 10.0.0.1:4000");
}

/* An interrupt outranks everything: the coordinator's own SIGINT over the deaths of the nodes that
 * the same Ctrl-C killed first; a node's SIGTERM over the link reports its leaving causes. */
static void test_interrupt(void **state)
{
    (void) state;
    sn_coord_report_t r[3];
    r[0] = rep(SN_COORD_KIND_DEATH, 2, NONE, 0, NULL, 0, "node 2 (pid 9) was killed by signal 2");
    r[1] = rep(LINK, 1, 2, 4, NULL, 0, "node 1: link to node 2 failed at slot 4");
    r[2] = rep(SN_COORD_KIND_INTERRUPT, NONE, NONE, 0, NULL, 0, "interrupted by the user (SIGINT)");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, NONE);
    assert_true(v.interrupted);
    assert_string_equal(v.error, "interrupted by the user (SIGINT)");
    r[2] = rep(STEPNET__ABORT_KIND__ABORT_INTERRUPT, 3, NONE, 4, NULL, 0,
               "node 3: interrupted by SIGTERM");
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_true(v.interrupted);
    assert_int_equal(v.culprit, NONE);
    assert_string_equal(v.error, "node 3: interrupted by SIGTERM");
    /* without an interrupt, the death is the cause */
    sn__coord_blame(r, 2, 4, NULL, &v);
    assert_false(v.interrupted);
    assert_int_equal(v.culprit, 2);
}

/* A node's own error outranks the link reports it causes; a death outranks a node's own error. */
static void test_precedence(void **state)
{
    (void) state;
    sn_coord_report_t r[3];
    r[0] = rep(LINK, 1, 2, 9, NULL, 0, "node 1: link to node 2 failed at slot 9");
    r[1] = rep(SELF, 2, NONE, 9, NULL, 0, "node 2: port model violation at slot 9");
    r[2] = rep(SN_COORD_KIND_DEATH, 3, NONE, 0, NULL, 0, "node 3 (pid 7) exited with status 1");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 2, 4, NULL, &v);
    assert_int_equal(v.culprit, 2);
    assert_string_equal(v.error, "node 2: port model violation at slot 9 [node 1: link to node 2 "
                                 "failed at slot 9]");
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, 3);
    expect_contains(v.error, "node 3 (pid 7) exited with status 1");
}

/* The coordinator's own finding alone (a collective deadline): no culprit, its text unchanged. */
static void test_own_finding(void **state)
{
    (void) state;
    sn_coord_report_t r =
        rep(SN_COORD_KIND_RUN, NONE, NONE, 0, NULL, 0,
            "collective deadline (1 ms) expired: 4 of 4 nodes missing (nodes 0,1,2,3)");
    sn_coord_verdict_t v;
    sn__coord_blame(&r, 1, 4, NULL, &v);
    assert_int_equal(v.culprit, NONE);
    assert_int_equal(v.slot, 0);
    assert_string_equal(v.error, r.text);
    sn__coord_blame(NULL, 0, 4, NULL, &v);
    assert_int_equal(v.culprit, NONE);
    assert_string_equal(v.error, "");
}

/* The exact sequence of `stepnet run --topo ring:8 --coll te` with node 3 stopped (SIGSTOP): its
 * neighbours 2 and 4 name it at their slot deadline; the others stall behind them and name them;
 * 5 s after their unanswered reports nodes 2 and 4 leave, and the coordinator sees their control
 * connections close before the blame window ends. Those deaths follow their own reports: node 3
 * is named, never node 4 or node 2; with the TCP evidence (its host acknowledged the probe, the
 * node did not answer) as stopped. */
static void test_stop_sequence(void **state)
{
    (void) state;
    static const uint32_t m2[] = {3}, m4[] = {3}, m1[] = {2}, m5[] = {4}, m0[] = {1}, m6[] = {5},
                          m7[] = {0, 6};
    sn_coord_report_t r[9];
    r[0] = rep(DEADLINE, 4, 3, 17, m4, 1,
               "node 4: slot deadline (5000 ms) at slot 17: no frame from node 3 (edge 3)");
    r[1] = rep(DEADLINE, 2, 3, 17, m2, 1,
               "node 2: slot deadline (5000 ms) at slot 17: no frame from node 3 (edge 2)");
    r[2] = rep(DEADLINE, 5, 4, 18, m5, 1,
               "node 5: slot deadline (5000 ms) at slot 18: no frame from node 4 (edge 4)");
    r[3] = rep(DEADLINE, 1, 2, 18, m1, 1,
               "node 1: slot deadline (5000 ms) at slot 18: no frame from node 2 (edge 1)");
    r[4] = rep(DEADLINE, 6, 5, 19, m6, 1, "node 6: slot deadline at slot 19: no frame from node 5");
    r[5] = rep(DEADLINE, 0, 1, 19, m0, 1, "node 0: slot deadline at slot 19: no frame from node 1");
    r[6] = rep(DEADLINE, 7, 0, 20, m7, 2, "node 7: slot deadline at slot 20: no frame from node 0");
    r[7] = rep(SN_COORD_KIND_DEATH, 4, NONE, 0, NULL, 0,
               "node 4 (pid 1004) lost its control connection: closed by the peer (EOF)");
    r[8] = rep(SN_COORD_KIND_DEATH, 2, NONE, 0, NULL, 0,
               "node 2 (pid 1002) lost its control connection: closed by the peer (EOF)");
    sn_coord_verdict_t v;
    /* without liveness evidence: the silent node all the same, not a node that left */
    sn__coord_blame(r, 9, 8, NULL, &v);
    assert_int_equal(v.culprit, 3);
    assert_int_equal(v.slot, 17);
    assert_true(strncmp(v.error, "node 3 failed (it stopped sending frames): node 4: slot", 55) ==
                0);
    /* with it: stopped. Nodes 2 and 4 left (connection closed: nothing known), the rest answer */
    sn_coord_evidence_t ev[8];
    for (int i = 0; i < 8; i++)
        ev[i] = answered();
    ev[2] = ev[4] = unknown();
    ev[3] = live(SN_COORD_LIVE_STOPPED, 1003, 0, 0, 5301);
    sn__coord_blame(r, 9, 8, ev, &v);
    assert_int_equal(v.culprit, 3);
    assert_int_equal(v.link_a, NONE);
    assert_int_equal(v.slot, 17);
    assert_true(strncmp(v.error,
                        "node 3 (pid 1003) is stopped at slot 17: its host acknowledges the "
                        "coordinator's heartbeats, but the node has not answered the one sent "
                        "5301 ms ago",
                        138) == 0);
    expect_contains(v.error, "[node 4: slot deadline (5000 ms) at slot 17: no frame from node 3");
    expect_contains(v.error, "[node 2: slot deadline (5000 ms) at slot 17: no frame from node 3");
    /* the deaths first, in any order: the same verdict */
    sn_coord_report_t s[9] = {r[8], r[7], r[6], r[5], r[4], r[3], r[2], r[1], r[0]};
    sn__coord_blame(s, 9, 8, ev, &v);
    assert_int_equal(v.culprit, 3);
    expect_contains(v.error, "node 3 (pid 1003) is stopped at slot 17");
}

/* Node 2 of ring:8 in its own network namespace, its interface detached for good: its neighbours
 * 1 and 3 name it; its own report never arrives (its network is gone); nodes 1 and 3 leave 5 s
 * after their reports. The coordinator's probe to node 2 is retransmitted, never acknowledged:
 * node 2 is unreachable, not node 1 (the first to leave). */
static void test_detached_sequence(void **state)
{
    (void) state;
    static const uint32_t m1[] = {2}, m3[] = {2}, m0[] = {1}, m4[] = {3};
    sn_coord_report_t r[6];
    r[0] = rep(DEADLINE, 1, 2, 9, m1, 1, "node 1: slot deadline at slot 9: no frame from node 2");
    r[1] = rep(DEADLINE, 3, 2, 9, m3, 1, "node 3: slot deadline at slot 9: no frame from node 2");
    r[2] = rep(DEADLINE, 0, 1, 10, m0, 1, "node 0: slot deadline at slot 10: no frame from node 1");
    r[3] = rep(DEADLINE, 4, 3, 10, m4, 1, "node 4: slot deadline at slot 10: no frame from node 3");
    r[4] = rep(SN_COORD_KIND_DEATH, 1, NONE, 0, NULL, 0,
               "node 1 (pid 71) lost its control connection: closed by the peer (EOF)");
    r[5] = rep(SN_COORD_KIND_DEATH, 3, NONE, 0, NULL, 0,
               "node 3 (pid 73) lost its control connection: closed by the peer (EOF)");
    sn_coord_evidence_t ev[8];
    for (int i = 0; i < 8; i++)
        ev[i] = answered();
    ev[1] = ev[3] = unknown();
    ev[2] = live(SN_COORD_LIVE_UNREACHABLE, 72, 6, 5, 5300);
    sn_coord_verdict_t v;
    sn__coord_blame(r, 6, 8, ev, &v);
    assert_int_equal(v.culprit, 2);
    assert_int_equal(v.link_a, NONE);
    assert_int_equal(v.slot, 9);
    assert_string_equal(v.error,
                        "node 2 (pid 72) is unreachable at slot 9: the coordinator's heartbeats to "
                        "it are not acknowledged (6 unacknowledged segments, the oldest sent 5 "
                        "more times; no answer 5300 ms after the last probe): its host or its "
                        "network is gone [node 1: slot deadline at slot "
                        "9: no frame from node 2] [node 3: slot deadline at slot 9: no frame from "
                        "node 2]");
    /* under the sanitizers the blame window outlasted node 5's patience: it left saying the
     * coordinator was silent, which the coordinator, busy judging, was not */
    r[4] = rep(STEPNET__ABORT_KIND__ABORT_COORDINATOR, 5, NONE, 0, NULL, 0,
               "node 5: the coordinator at 10.151.0.1:44817 sent nothing for 5747 ms");
    sn__coord_blame(r, 6, 8, ev, &v);
    assert_int_equal(v.culprit, 2);
    expect_contains(v.error, "node 2 (pid 72) is unreachable at slot 9");
}

/* The death of a node after its own report is a consequence of what it reported; a death without
 * a report of its own stays the cause. */
static void test_death_after_report(void **state)
{
    (void) state;
    sn_coord_report_t r[3];
    r[0] = rep(LINK, 1, 2, 6, NULL, 0, "node 1: link to node 2 failed at slot 6");
    r[1] = rep(SN_COORD_KIND_DEATH, 1, NONE, 0, NULL, 0, "node 1 (pid 8) exited with status 1");
    sn_coord_verdict_t v;
    sn__coord_blame(r, 2, 4, NULL, &v);
    assert_int_equal(v.culprit, 2);
    expect_contains(v.error, "node 2 failed: node 1: link to node 2 failed at slot 6");
    r[2] = rep(SN_COORD_KIND_DEATH, 2, NONE, 0, NULL, 0, "node 2 (pid 9) was killed by signal 9");
    sn__coord_blame(r, 3, 4, NULL, &v);
    assert_int_equal(v.culprit, 2);
    assert_true(strncmp(v.error, "node 2 (pid 9) was killed by signal 9", 37) == 0);
    /* only the deaths of nodes that reported: the first of them, the coordinator's words */
    sn_coord_report_t d = r[1];
    sn_coord_report_t only[2] = {rep(SELF, 1, NONE, 0, NULL, 0, "node 1: bad assignment"), d};
    sn__coord_blame(only, 2, 4, NULL, &v);
    assert_int_equal(v.culprit, 1);
    assert_string_equal(v.error, "node 1: bad assignment");
}

/* The heartbeat's finding (a node silent between repetitions) with the TCP evidence: stopped,
 * unreachable, or (nothing known) the coordinator's own words. */
static void test_heartbeat_evidence(void **state)
{
    (void) state;
    sn_coord_report_t r =
        rep(SN_COORD_KIND_DEATH, 1, NONE, 0, NULL, 0,
            "node 1 (pid 5, 10.0.0.11:40000) answered no heartbeat for 5200 ms (5 "
            "x 1000 ms): it is stopped or unreachable");
    sn_coord_evidence_t ev[3] = {answered(), live(SN_COORD_LIVE_STOPPED, 5, 0, 0, 300), answered()};
    sn_coord_verdict_t v;
    sn__coord_blame(&r, 1, 3, ev, &v);
    assert_int_equal(v.culprit, 1);
    expect_contains(v.error, "node 1 (pid 5) is stopped: its host acknowledges");
    expect_contains(v.error, "[node 1 (pid 5, 10.0.0.11:40000) answered no heartbeat");
    ev[1] = live(SN_COORD_LIVE_UNREACHABLE, 5, 4, 3, 300);
    sn__coord_blame(&r, 1, 3, ev, &v);
    assert_int_equal(v.culprit, 1);
    expect_contains(v.error, "node 1 (pid 5) is unreachable: the coordinator's heartbeats");
    ev[1] = unknown();
    sn__coord_blame(&r, 1, 3, ev, &v);
    assert_int_equal(v.culprit, 1);
    assert_string_equal(v.error, r.text);
}

/* A slow link (ABORT_SLOW: the frame arrives, too slowly for its deadline): the verdict is that
 * link in the reporter's words, no culprit node, even when the other end's deadline accuses the
 * reporter back and the nodes behind them stall. A slow report whose sender is stopped names the
 * node. */
static void test_slow_link(void **state)
{
    (void) state;
    static const uint32_t m3[] = {2}, m1[] = {2}, m4[] = {3};
    sn_coord_report_t r[4];
    r[0] = rep(DEADLINE, 1, 2, 5, m1, 1, "node 1: slot deadline at slot 5: no frame from node 2");
    r[1] = rep(SLOW, 3, 2, 4, NULL, 0,
               "node 3: link 2-3 moving at 1200 B/s, frame of 65536 bytes needs 54.6 s");
    r[1].edge_known = 1;
    r[1].edge = 2;
    r[2] = rep(DEADLINE, 2, 3, 4, m3, 1, "node 2: slot deadline at slot 4: no frame from node 3");
    r[3] = rep(DEADLINE, 4, 3, 5, m4, 1, "node 4: slot deadline at slot 5: no frame from node 3");
    sn_coord_evidence_t ev[6];
    for (int i = 0; i < 6; i++)
        ev[i] = answered();
    sn_coord_verdict_t v;
    sn__coord_blame(r, 4, 6, ev, &v);
    assert_int_equal(v.culprit, NONE);
    assert_int_equal(v.link_a, 2);
    assert_int_equal(v.link_b, 3);
    assert_int_equal(v.slot, 4);
    assert_string_equal(v.error, "link 2-3 (edge 2) is too slow at slot 4: node 3: link 2-3 moving "
                                 "at 1200 B/s, frame of 65536 bytes needs 54.6 s");
    sn__coord_blame(r, 4, 6, NULL, &v); /* the same without evidence */
    assert_int_equal(v.link_a, 2);
    assert_int_equal(v.culprit, NONE);
    /* the slow report alone, from the end with the larger id */
    sn__coord_blame(&r[1], 1, 6, NULL, &v);
    assert_int_equal(v.link_a, 2);
    assert_int_equal(v.link_b, 3);
    /* the sender stopped and sent no report: the node, not the link */
    r[2] = rep(DEADLINE, 1, 0, 4, NULL, 0, "node 1: slot deadline at slot 4: no frame from node 0");
    ev[2] = live(SN_COORD_LIVE_STOPPED, 12, 0, 0, 5300);
    sn__coord_blame(r, 2, 6, ev, &v);
    assert_int_equal(v.culprit, 2);
    assert_int_equal(v.link_a, NONE);
    expect_contains(v.error, "node 2 (pid 12) is stopped at slot 4");
}

/* The evidence from the probe and the control connection's TCP state. */
static void test_liveness(void **state)
{
    (void) state;
    const sn_coord_tcp_t acked = {0, 0, 0, 900}, retransmitted = {2, 3, 0, 6000},
                         backing_off = {1, 0, 2, 6000}, heartbeat_in_flight = {1, 0, 0, 700},
                         probe_in_flight = {1, 0, 0, 6000};
    /* answered: alive, whatever TCP says */
    assert_int_equal(sn__coord_liveness(1, &retransmitted, 5300), SN_COORD_LIVE_ANSWERED);
    assert_int_equal(sn__coord_liveness(1, NULL, 5300), SN_COORD_LIVE_ANSWERED);
    /* no TCP state (closed, not Linux): unknown */
    assert_int_equal(sn__coord_liveness(0, NULL, 5300), SN_COORD_LIVE_UNKNOWN);
    /* everything acknowledged, nothing answered: stopped */
    assert_int_equal(sn__coord_liveness(0, &acked, 5300), SN_COORD_LIVE_STOPPED);
    /* unacknowledged and retransmitted, or backing off: unreachable */
    assert_int_equal(sn__coord_liveness(0, &retransmitted, 5300), SN_COORD_LIVE_UNREACHABLE);
    assert_int_equal(sn__coord_liveness(0, &backing_off, 5300), SN_COORD_LIVE_UNREACHABLE);
    /* a heartbeat sent just before blame, not yet acknowledged, but an acknowledgement came after
     * the probe: its host receives, stopped */
    assert_int_equal(sn__coord_liveness(0, &heartbeat_in_flight, 5300), SN_COORD_LIVE_STOPPED);
    /* nothing acknowledged since the probe, nothing retransmitted yet: not judged */
    assert_int_equal(sn__coord_liveness(0, &probe_in_flight, 300), SN_COORD_LIVE_UNKNOWN);
}

/* In a collective, heartbeats wait for the node's own completion: a node stopped by a learned
 * stop while a neighbour of a silent node still waits for its slot deadline is heartbeaten, so
 * it does not leave first (netns_blame_detach, where such a node's departure was blamed). */
static void test_heartbeat_withheld(void **state)
{
    (void) state;
    assert_int_equal(sn__coord_heartbeat_withheld(1, 0, 0, 2, 0, 6), 1); /* still running */
    assert_int_equal(sn__coord_heartbeat_withheld(1, 1, 0, 2, 0, 6), 0); /* completed, waiting */
    assert_int_equal(sn__coord_heartbeat_withheld(1, 0, 1, 2, 0, 6), 0); /* sent its result */
    assert_int_equal(sn__coord_heartbeat_withheld(1, 0, 0, 2, 1, 6), 0); /* another's result */
    assert_int_equal(sn__coord_heartbeat_withheld(1, 0, 0, 6, 0, 6), 0); /* every node done */
    assert_int_equal(sn__coord_heartbeat_withheld(0, 0, 0, 0, 0, 6), 0); /* between collectives */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_apart),         cmocka_unit_test(test_kill_cascade),
        cmocka_unit_test(test_deadline_chain),      cmocka_unit_test(test_corrupt_frame),
        cmocka_unit_test(test_link_both_ends),      cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_own_finding),         cmocka_unit_test(test_link_cut_deadlines),
        cmocka_unit_test(test_link_cut_one_side),   cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_coordinator_silent),  cmocka_unit_test(test_stop_sequence),
        cmocka_unit_test(test_detached_sequence),   cmocka_unit_test(test_death_after_report),
        cmocka_unit_test(test_heartbeat_evidence),  cmocka_unit_test(test_slow_link),
        cmocka_unit_test(test_stalled_coordinator), cmocka_unit_test(test_liveness),
        cmocka_unit_test(test_heartbeat_withheld),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
