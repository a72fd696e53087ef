/* Blame (coordinator): finding the root cause among the failure reports of one run. Pure: no
 * libuv, no clocks, no output; unit-tested in tests/unit/test_blame.c. */
#ifndef STEPNET_COORD_BLAME_H
#define STEPNET_COORD_BLAME_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet.pb-c.h"

/* The kinds of a failure report. A node's own Abort carries one of the protocol's AbortKind values
 * (STEPNET__ABORT_KIND__*: self, link, proto, deadline, corrupt); the coordinator's own
 * observations are numbered apart from them, so that the two sets can never meet. */
typedef enum {
    SN_COORD_KIND_DEATH = 100, /* the coordinator saw `node` die or lose its control connection */
    SN_COORD_KIND_RUN = 101,   /* the coordinator's own finding (deadlines, results, start-up) */
    SN_COORD_KIND_INTERRUPT = 102 /* the coordinator received SIGINT or SIGTERM */
} sn_coord_kind_t;

#define SN_COORD_BLAME_TEXT 400 /* one report's text */
#define SN_COORD_ERROR_TEXT 900 /* the verdict's message */
#define SN_COORD_NODE_NONE  (-1)

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

/* Picks the root cause among `n` >= 1 reports of a run with `nnodes` nodes. Reports cascade
 * through the links (a killed node's neighbours lose their links, abort and close theirs; stalled
 * nodes fire their slot deadlines together), so the first report is often a consequence. In
 * order: an interrupt (the coordinator's own SIGINT or SIGTERM, then a node's: "interrupted by
 * the user", no culprit: the nodes of an interrupted process group die around it); nodes that left
 * because the coordinator was silent past the heartbeat deadline ("the coordinator was silent",
 * no culprit node: it was stopped or unreachable, and their deaths follow); a node that
 * died; a node's own error; the sender of a malformed or corrupt frame; a link whose two ends
 * accuse each other (link or deadline reports, both alive: "link 5-6 (edge 6) went silent at slot
 * N; both ends alive", no culprit node); the silent node that the deadline and link reports name
 * most (preferring one that sent no report itself and is not known alive); else the first report.
 * `alive` (NULL: unknown) marks, per node, those that answered the coordinator's liveness probe
 * after the first report: an accused node that is alive, sent no report and accuses nobody has
 * sent its frames (its event loop runs; it may even have finished the repetition, its last frame
 * lost on the way), so when no accused node is dead or silent, the link between accuser and
 * accused is named ("link 2-3 ... went silent ...; both ends alive"), not the node. Reads the
 * reports only; writes `out`. */
void sn__coord_blame(const sn_coord_report_t *rp, size_t n, uint32_t nnodes, const uint8_t *alive,
                     sn_coord_verdict_t *out);

#endif
