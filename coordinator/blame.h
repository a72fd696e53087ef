/* Blame (coordinator): finding the root cause among the failure reports of one run. Pure: no
 * libuv, no clocks, no output; unit-tested in tests/unit/test_blame.c. */
#ifndef STEPNET_COORDINATOR_BLAME_H
#define STEPNET_COORDINATOR_BLAME_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/coord.h"
#include "proto/stepnet.pb-c.h"

/* The kinds of a failure report. A node's own Abort carries one of the protocol's AbortKind values
 * (STEPNET__ABORT_KIND__*: self, link, proto, deadline, corrupt); the coordinator's own
 * observations are numbered apart from them, so that the two sets can never meet. */
typedef enum {
    SN_COORD_KIND_DEATH = 100, /* the coordinator saw `node` die or lose its control connection */
    SN_COORD_KIND_RUN = 101,   /* the coordinator's own finding (deadlines, results, start-up) */
    SN_COORD_KIND_INTERRUPT = 102 /* the coordinator received SIGINT or SIGTERM */
} sn_coord_kind_t;

/* One report's text (the verdict's message: SN_COORD_ERROR_TEXT, coord.h). */
#define SN_COORD_BLAME_TEXT 400

/* One failure report: `kind` (an AbortKind or a sn_coord_kind_t), the reporting `node`, the `peer`
 * it blames (SN_COORD_NODE_NONE when none), the slot (0: unknown), the silent neighbours of a
 * deadline report, its text, and the edge of the link to `peer` (edge_known 0: not said). */
typedef struct sn_coord_report_s {
    int kind, node, peer;
    uint64_t slot;
    const uint32_t *missing;
    size_t nmissing;
    char text[SN_COORD_BLAME_TEXT];
    int edge_known;
    uint32_t edge;
} sn_coord_report_t;

/* The root cause: the culprit node (SN_COORD_NODE_NONE when none can be named), the two ends of the
 * culprit link when it is a link (SN_COORD_NODE_NONE otherwise), whether the run was interrupted,
 * the slot (0: unknown), and one message saying what failed, how, and one witness report. */
typedef struct sn_coord_verdict_s {
    int culprit;
    int link_a, link_b;
    int interrupted;
    uint64_t slot;
    char error[SN_COORD_ERROR_TEXT];
} sn_coord_verdict_t;

/* What the coordinator knows of one node's liveness when it blames (coord.c), from the heartbeat
 * it sent every node at the first failure report (the liveness probe) and from the kernel's state
 * of that node's control connection (TCP_INFO, net/tcpinfo.h). */
typedef enum {
    SN_COORD_LIVE_UNKNOWN = 0, /* no probe sent, its connection closed, or the TCP state says
                                * neither of the below (the probe may still be on its way) */
    SN_COORD_LIVE_ANSWERED,    /* it answered the probe: its event loop runs */
    SN_COORD_LIVE_STOPPED,     /* its kernel acknowledged the probe, the node did not answer: the
                                * process is suspended (SIGSTOP) or its loop is stuck */
    SN_COORD_LIVE_UNREACHABLE  /* the probe is not acknowledged and is being retransmitted: the
                                * node's host or network is gone */
} sn_coord_live_t;

/* One node's evidence: its liveness, its pid (0: unknown), and for the verdict's words the state of
 * its control connection when blame ran: segments unacknowledged, retransmissions of the oldest,
 * and the milliseconds since the probe was sent. */
typedef struct sn_coord_evidence_s {
    int live; /* sn_coord_live_t */
    uint32_t pid;
    uint32_t unacked, retransmits;
    uint64_t waited_ms;
} sn_coord_evidence_t;

/* The kernel's state of a node's control connection, as net/tcpinfo.h reads it: segments sent and
 * not acknowledged, retransmissions and timer backoff of the oldest, and the milliseconds since
 * the last acknowledgement arrived. */
typedef struct sn_coord_tcp_s {
    uint32_t unacked, retransmits, backoff;
    uint64_t last_ack_ms;
} sn_coord_tcp_t;

/* A node's liveness from the coordinator's evidence: whether it answered the probe, the state of
 * its control connection (`tcp`, NULL: could not be read), and the milliseconds since the probe
 * was sent. Answered: ANSWERED. Else, everything sent acknowledged: STOPPED (the node's host
 * receives for it, the process does not answer). Else, the oldest segment retransmitted or its
 * timer backing off: UNREACHABLE. Else, an acknowledgement arrived after the probe was sent (the
 * newest segment, a heartbeat of the blame window, may still be on its way): STOPPED. Else (no
 * state, or the probe itself in flight): UNKNOWN, so that a late acknowledgement never passes for
 * a dead network nor a slow one for a stopped node. */
sn_coord_live_t sn__coord_liveness(int answered, const sn_coord_tcp_t *tcp, uint64_t probe_age_ms);

/* 1 when a node in a collective (in_run) gets no heartbeat this tick: until it has completed the
 * collective or sent its result, and while no node has sent its result and not every node has
 * completed. No heartbeat then disturbs a timed repetition, and the slot deadlines watch the
 * nodes. A node that has completed is idle and watching the coordinator: it gets heartbeats, or
 * it would leave when its patience (as long as a slot deadline) ends and race the neighbours of
 * a silent node to the coordinator, which would then blame it for leaving. */
int sn__coord_heartbeat_withheld(int in_run, int complete, int result, uint32_t ncomplete,
                                 uint32_t nresult, uint32_t n);

/* Picks the root cause among `n` >= 1 reports of a run with `nnodes` nodes. Reports cascade
 * through the links (a killed node's neighbours lose their links, abort and close theirs; stalled
 * nodes fire their slot deadlines together; a node that reported leaves a few seconds later, and
 * its death follows), so the first report is often a consequence. A node's "own" reports are the
 * ones it sent (every kind but the coordinator's DEATH and RUN). In order:
 *  1. an interrupt (the coordinator's own SIGINT or SIGTERM, then a node's: "interrupted by the
 *     user", no culprit: the nodes of an interrupted process group die around it); nodes that left
 *     because the coordinator was silent past the heartbeat deadline ("the coordinator was
 *     silent", no culprit node: it was stopped or unreachable, and their deaths follow);
 *  2. a node that died without a report of its own (the death of a node that had reported is a
 *     consequence of what it reported, never blamed); when its connection is still open and the
 *     evidence says stopped or unreachable, it is named so (rule 5's words);
 *  3. a node's own error (ABORT_SELF); 4. the sender of a malformed or corrupt frame;
 *  5. a node that the link, deadline and slow reports accuse, that sent no report, and that the
 *     evidence shows stopped ("node 3 (pid 42) is stopped: ...") or unreachable ("node 2 (pid 7)
 *     is unreachable: ..."): the one named most;
 *  6. a slow link (ABORT_SLOW: a frame arrives, too slowly for its deadline): "link 2-3 is too
 *     slow at slot N: <the reporter's words>", no culprit node;
 *  7. a link whose two ends accuse each other (both alive: "link 5-6 (edge 6) went silent at slot
 *     N; both ends alive", no culprit node);
 *  8. an accused node that sent no report but answered the probe (it has sent its frames: its
 *     event loop runs; it may have finished the repetition, its last frame lost on the way), when
 *     every accused node without a report did: the link between accuser and accused;
 *  9. the silent node that the reports name most, preferring one that sent no report and did not
 *     answer ("node 3 failed (it stopped sending frames): ...");
 * 10. else the first report that is not a consequence.
 * `ev` (NULL: nothing known) has one entry per node. Reads the reports only; writes `out`. */
/* Nodes that left because the coordinator was silent (a report ABORT_COORDINATOR): 1 with the
 * verdict "the coordinator was silent: <that report>" (no culprit) in out, else 0 and out
 * untouched. With `stalled` 0 (the coordinator kept running) only when no node reported a failure
 * of its own (rule 1 of sn__coord_blame); with `stalled` (the coordinator itself went longer than
 * the nodes' heartbeat deadline without running: stopped or starved) whatever they reported, since
 * a neighbour of a node that gave up reports the link it closed. */
int sn__coord_silent_verdict(const sn_coord_report_t *rp, size_t n, int stalled,
                             sn_coord_verdict_t *out);

void sn__coord_blame(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                     const sn_coord_evidence_t *ev, sn_coord_verdict_t *out);

#endif
