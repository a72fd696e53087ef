/* Chrome trace-event files (cli): `stepnet sim --trace FILE` and `stepnet run --trace FILE`
 * write the JSON Object Format of the trace-event format ({"traceEvents": [...], ...}), which
 * Perfetto and chrome://tracing open. One process per topology node (pid = node id + 1), one
 * thread per port (its tid derived from the directed link id, unique in the trace) and, for run,
 * one thread for the node's slots. docs/trace.md describes every event and its arguments. */
#ifndef STEPNET_CLI_TRACE_H
#define STEPNET_CLI_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "coordinator/coord.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

#define CLI_TRACE_DEFAULT_SLOTS 10000u /* --trace-slots: slots recorded unless told otherwise */
#define CLI_TRACE_MAX_SLOTS     SN_COORD_TRACE_MAX_SLOTS /* --trace-slots: the most (coord.h) */
/* stepnet sim: one slot is this many microseconds of the trace's time axis (a viewer showing
 * milliseconds shows slot numbers). */
#define CLI_TRACE_SIM_US_PER_SLOT 1000.0

typedef struct cli_trace_s {
    cli_json_t j;
    const sn_topo_t *t;
    uint8_t *seen_node;  /* [n]: its process_name was written */
    uint8_t *seen_port;  /* [port_off[n]]: its thread_name was written */
    uint8_t *seen_slots; /* [n]: the name of its thread 0 (run) was written */
    uint64_t sends;      /* send events written */
    /* run: the nodes' records, whose clock offsets and uncertainties otherData states, and
     * whether the offsets were estimated (0: every node on the coordinator's clock); NULL: sim */
    const sn_coord_trace_t *clock;
    int clock_offsets;
    const char *sync; /* run: "slot" or "dataflow", as otherData states it; NULL: sim */
} cli_trace_t;

/* Starts a trace of topology t on f: the header and the opening of traceEvents. */
void cli_trace_begin(cli_trace_t *tr, FILE *f, const sn_topo_t *t);

/* One `send` event: node sends pkt on port in slot, drawn from ts_us for dur_us; arrived_us is
 * when the frame reached the neighbour (run), or negative when not known (sim, not recorded). */
void cli_trace_send(cli_trace_t *tr, uint32_t node, uint32_t port, uint64_t slot,
                    const sn_packet_t *pkt, double ts_us, double dur_us, double arrived_us);

/* One `slot` event of a run: node sent its frames of slot at ts_us and held the frame of every
 * link dur_us later; the last came on port last_port (-1: every frame was there before). */
void cli_trace_slot(cli_trace_t *tr, uint32_t node, uint64_t slot, double ts_us, double dur_us,
                    int64_t last_port);

/* One `frame in` instant event of a run: the frame of slot came in on node's port at ts_us (its
 * Start when before_start), the last of the slot when last. */
void cli_trace_frame(cli_trace_t *tr, uint32_t node, uint32_t port, uint64_t slot, double ts_us,
                     int last, int before_start);

/* An instant event, global, at ts_us: `name` with a `note` argument (truncation, failure). */
void cli_trace_note(cli_trace_t *tr, const char *name, double ts_us, const char *note);

/* Node tn's Start on the coordinator's clock (ns): its own clock's reading taken back by the
 * offset the run estimated for it (node minus coordinator; 0 on one machine). Signed: a reading
 * below the offset gives a negative time. Pure. */
int64_t cli_trace_aligned_t0_ns(const sn_coord_trace_node_t *tn);

/* Closes traceEvents and writes otherData: the command, the run's parameters (c), the time scale
 * in words, the measured repetition traced (run; 0: none, not written), the slots recorded, and
 * whether (and why) the trace is truncated (`truncated` NULL: complete), and with tr->clock the
 * clock the times are on with each node's offset and its uncertainty. Frees what cli_trace_begin
 * allocated; the caller closes f. */
void cli_trace_end(cli_trace_t *tr, const char *cmd, const cli_ctx_t *c, const char *time_scale,
                   uint32_t rep, uint64_t slots_recorded, const char *truncated);

#endif
