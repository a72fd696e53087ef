/* Internal interface of stepnet-node (node/): the node and its links, split by responsibility like
 * the files that own them (lifecycle.c, control.c, links.c, calibrate.c, exec.c, fault.c, and one
 * file per execution mode: mode_slot.c, mode_dataflow.c), the operations table of an execution
 * mode, and the sn__node_* functions they call in one another. One libuv loop runs all of it. */
#ifndef STEPNET_NODE_NODE_INTERNAL_H
#define STEPNET_NODE_NODE_INTERNAL_H

/* After reporting a failure, how long a node waits for the coordinator's Stop before it exits on
 * its own (the coordinator normally stops every node within its blame window). */
#define SN_NODE_FAIL_EXIT_MS 5000
/* After reporting an interrupt (SIGINT, SIGTERM), how long a node waits for the coordinator's
 * answer before it leaves: time for the report to be written. */
#define SN_NODE_INTERRUPT_EXIT_MS 200
/* Descriptors a node holds besides one connection per link: stdio, the event loop's, the signal
 * pipe, the listener, the control connection. */
#define SN_NODE_FD_BASE 16

#include <stdint.h>
#include <uv.h>

#include "net/addr.h"
#include "net/conn.h"
#include "net/wire.h"
#include "node/node.h"
#include "proc/log.h"
#include "stepnet/algo.h"
#include "stepnet/linkemu.h"
#include "stepnet/sim.h"
#include "stepnet/sync.h"
#include "stepnet/topo.h"

typedef struct node_s node_t;
typedef struct link_s link_t;
typedef struct sn_node_mode_ops_s sn_node_mode_ops_t; /* an execution mode (below) */

/* A connection and what it belongs to: the control channel, a link, or an inbound connection
 * that has not said which link it is yet. */
typedef struct lconn_s {
    sn_conn_t c;
    node_t *nd;
    link_t *link; /* NULL until the hello binds it */
    size_t index; /* in node->conns */
    /* a hello received before the assignment, processed after it */
    int have_hello;
    Stepnet__LinkHello hello;
    /* a frame arriving in pieces (links.c): its parsed data header, or the probe's sequence;
     * piece_bad once it has been refused (its later pieces are ignored) */
    sn_wire_data_t piece_d;
    uint64_t piece_seq;
    int piece_bad;
} lconn_t;

/* One data frame held in a link's two-frame window (the slot barrier's, mode_slot.c). */
typedef struct rxframe_s {
    int have;
    uint32_t cid;
    uint64_t slot;
    int has_pkt;
    sn_packet_t pkt;
    uint32_t radius;
    uint64_t cmax;
} rxframe_t;

/* The dialling side of a link (links.c). */
typedef struct link_dial_s {
    sn_addr_t addr;             /* the neighbour's data address, from the assignment */
    struct sockaddr_storage sa; /* addr resolved */
    uv_connect_t creq;
    uv_timer_t retry;
    uint32_t backoff_ms;
    lconn_t *dialling; /* the connection being dialled */
} link_dial_t;

/* Ping-pong probes on a link, measured by its dialler (calibrate.c). */
typedef struct link_cal_s {
    uint32_t probe, probes, probe_bytes;
    uint32_t nclean;  /* empty probes measured before any sized one (the link's round trip) */
    uint32_t done[2]; /* probes measured in the pairs' empty and sized series (a series stops
                         early past SN_DEADLINE_SERIES_NS) */
    uint64_t probe_t0, series_t0;
    uint64_t *clean, *rtt0, *rtt;
    int calibrated;
    /* the concurrent rounds (either end of the link): 1 + the last round the neighbour sent on it
     * and 1 + the last this node sent, 0 before the first (never reset: a neighbour's first
     * round can come before this node's Calibrate) */
    uint64_t conc_rx, conc_tx;
} link_cal_t;

struct link_s {
    node_t *nd;
    uint32_t port, edge, peer, link_id;
    int dialer; /* this node dials (it is the edge's smaller id) */
    lconn_t *lc;
    int up, down;
    link_dial_t dial;
    /* the executor: the slot barrier's two-frame window (mode_slot.c), and the last slot we sent
     * a packet here (the arrival check of half duplex) */
    rxframe_t rx[2];
    uint64_t sent_pkt_slot;
    /* the slot deadline's view of the link (exec.c): its connection's byte count when the slot
     * began waiting, and the time (uv_now) the wait first saw bytes beyond it (0: not yet) */
    uint64_t wait_rx0, wait_first_rx_ms;
    link_cal_t cal;
    /* link emulation (emulate.c): this direction's schedule and the frames it holds */
    int emu_on;
    sn_emu_sched_t emu;
    struct emu_frame_s *emu_head, *emu_tail;
};

/* The control channel to the coordinator (control.c). */
typedef struct node_ctl_s {
    lconn_t *lc;
    int up;
    uv_connect_t req;
    uv_timer_t retry;
    uint64_t deadline; /* for reaching the coordinator, then for the links (uv_now) */
    uint32_t backoff;
    sn_addr_t coord;
    struct sockaddr_storage coord_sa; /* resolved once at start-up */
    /* liveness of the coordinator: its heartbeat period (0: none), the uv_now of its last frame
     * (or of the end of our last collective), and the timer that checks it */
    uint32_t hb_ms;
    uint64_t last_heard, last_tick;
    int heard_any; /* a frame from the coordinator since the connection was made */
    uv_timer_t hb_timer;
} node_ctl_t;

/* The link layer: the listener, the data address announced, inbound connections (links.c). */
typedef struct node_net_s {
    uv_tcp_t listener;
    sn_admit_t admit; /* inbound connections without a link hello yet (net/conn.h) */
    char data_host[SN_ADDR_MAX_HOST];
    int data_port;          /* 0: no listener, for listen_error */
    char listen_error[300]; /* why the listener failed ("" when it listens) */
    int listen_rc;          /* and its libuv code */
    lconn_t **pending;      /* inbound connections without a bound link yet */
    size_t npending, cappending;
    uint32_t links_up;
    int ready_sent;
    sn_conn_pool_t pool; /* the frame buffers all links share (net/conn.h) */
} node_net_t;

/* The executor and the collective it runs (exec.c, and the execution mode that plays it). */
typedef struct node_exec_s {
    int running, state_live;
    uint32_t cid, last_cid;
    uint64_t t;    /* the slot whose frames were sent last */
    uint64_t wake; /* the algorithm's wake slot */
    uint64_t stop_slot, done_start, complete_slot;
    uint64_t idle; /* benchmark: a pure barrier of this many empty slots (0: the collective) */
    /* sweeps: the largest packet size of the run (link frame limits), and the size of the next
     * collective (its frames may arrive before its START) */
    uint32_t max_size, next_size;
    /* the in-band barrier before a collective: the idle run of cid - 1 that precedes collective
     * then_cid (0: none); the node's clock (uv_hrtime) at slot 1 of the collective and at its
     * completion, reported in the Result */
    uint32_t then_cid;
    uint32_t win_off; /* the collective's window offset (mode_slot.c, win) */
    uint64_t start_ns, complete_ns;
    uint32_t radius;
    uint64_t cmax;
    /* a learned stop (Start.quiet_slot): the collective ends by playing this slot without frames
     * (0: termination is detected); next_quiet: the one the START asked for, for the collective
     * after its in-band barrier */
    uint64_t quiet, next_quiet;
    int was_done, complete_sent;
    sn_verify_t *verify;
    sn_step_t io;
    sn_msg_t *rx;
    uint8_t *echo; /* [rxcap] the half-duplex echo of each arrival */
    size_t rxcap;
    sn_packet_t *out; /* [deg] packet to send per port this slot */
    uint8_t *out_has; /* [deg] */
    uint8_t *mark;    /* [deg] scratch of sn_exec_step */
    uint64_t last_send, data_packets, control_packets, trace, bytes_checked;
    uint64_t max_queue;     /* the largest sn_step_t.queue this node reported */
    int max_queue_reported; /* the algorithm reported its queue at least once */
    uint64_t *data_bits, *ctl_bits;
    size_t ndata_bits, nctl_bits;
    /* --trace, only when the Start asked for it (docs/trace.md): slots 1 to trace_cap (0: no
     * trace), the clock at the Start, per slot 1 + deg values and per transmission 4 values, as
     * in the Result's trace fields */
    uint64_t trace_cap, trace_t0;
    uint64_t trace_want;   /* the cap the START asked for (the barrier before it records nothing) */
    uint64_t *trace_slots; /* [(1 + deg) * trace_cap] */
    uint64_t *trace_sends;
    size_t ntrace_sends, captrace_sends;
    /* the slot deadline (exec.c, docs/runtime.md "Deadlines"): when the current slot began
     * waiting (uv_now), and the model's time of one frame of the collective (Start.frame_us, in
     * ns; the node's own estimate when absent) */
    uint64_t wait_ms, frame_ns;
    uv_timer_t slot_timer;
    /* the execution mode, chosen once at the assignment (sn__node_mode; NULL before it), what
     * it keeps of its own (its mode_assign makes it, its mode_free frees it), and the table of
     * the run being played: the mode's for a collective, the slot barrier's for an idle run */
    const sn_node_mode_ops_t *mode;
    void *mode_state;
    const sn_node_mode_ops_t *run;
} node_exec_t;

struct node_s {
    uv_loop_t *loop;
    sn_node_opts_t opts;
    sn_conn_sec_cfg_t sec; /* every connection's security */
    lconn_t **conns;       /* every connection (control, links, inbound), for shutdown */
    size_t nconns, capconns;
    node_ctl_t ctl;
    node_net_t net;
    /* the assignment (control.c) */
    int assigned;
    sn_log_t log; /* "node ID EVENT ...": the id once assigned (sn__node_assigned), else "?" */
    uint32_t id;
    uint64_t token;
    sn_topo_t *topo;
    sn_params_t params;
    uint32_t *sources;
    const sn_algo_t *algo;
    void *plan;
    void *state;
    uint32_t deg, diameter;
    link_t *links;
    uint32_t connect_ms, slot_ms, collective_ms;
    uint64_t max_slots;
    uint64_t spin_ns;  /* poll without sleeping this long into a slot (Assign.spin_us); 0: never */
    sn_fault_t fault;  /* kind SN_FAULT_NONE: none (fault.c) */
    uint32_t cal_left; /* links still calibrating (calibrate.c) */
    /* the concurrent rounds of the calibration (calibrate.c): the round being played, and
     * whether the series has started and ended */
    struct {
        int on, started, ended;
        uint32_t round, rounds, bytes;
        uint32_t blocks; /* blocks of rounds measured (calibrate.c; SN_DEADLINE_SERIES_NS) */
        uint64_t t0, series_t0;
        uint64_t *rtt; /* [SN_TM_CONC_BLOCK * rounds]: round pos of block b at pos * rounds + b */
    } conc;
    /* link emulation (emulate.c): one timerfd for the earliest release of every link */
    int emu_fd;
    int emu_live;
    uv_poll_t emu_poll;
    node_exec_t ex;
    /* shutdown (lifecycle.c) */
    uv_signal_t sigterm, sigint;
    int exit_code, stopping, interrupted;
    uv_timer_t exit_timer;
    int exit_timer_live, links_timers_live;
    uv_pipe_t session; /* --stdin-session: standard input, watched for its end */
    int session_live;
};

/* ---- lifecycle.c ---- */

/* Marks the node assigned: from now on its log lines carry its id. */
void sn__node_assigned(node_t *nd);

/* Leaves the loop: closes every connection and handle; sn_node_main returns `code`. */
void sn__node_exit(node_t *nd, int code);

/* A failure of the running collective (or of the set-up): tells the coordinator what it saw
 * (kind a STEPNET__ABORT_KIND__*, the peer it blames, the silent neighbours of a deadline),
 * closes the links (so that neighbours stop waiting), and waits for the coordinator to end the
 * run. */
void sn__node_report(node_t *nd, int code, uint64_t slot, int kind, int64_t peer,
                     const uint32_t *missing, size_t nmissing, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* The node's own error (its algorithm, the port model, verification, the assignment). */
#define sn__node_abort(nd, code, slot, ...)                                                        \
    sn__node_report((nd), (code), (slot), STEPNET__ABORT_KIND__ABORT_SELF, -1, NULL, 0, __VA_ARGS__)

/* ---- control.c ---- */

/* Sends a control message to the coordinator, if the channel is up. */
void sn__node_send_ctl(node_t *nd, const Stepnet__Control *m);

/* Dials the coordinator (nd->ctl.coord_sa), retrying until nd->ctl.deadline. */
void sn__node_ctl_connect(node_t *nd);

/* ---- links.c ---- */

/* A connection registered in nd->conns; freed by its on_closed callback. */
lconn_t *sn__node_lconn_new(node_t *nd, const sn_conn_ops_t *ops);
void sn__node_lconn_free(lconn_t *lc);
void sn__node_lconn_close(lconn_t *lc);

/* Builds the links of the assignment `a` (nd->topo, nd->id set): ports, edges, peers, and the
 * address of every neighbour this node dials. 0, or SN_EINVAL with err set. */
int sn__node_links_init(node_t *nd, const Stepnet__Assign *a, sn_err_t *err);

/* After the assignment: dials every link this node dials, binds the hellos that arrived before
 * it, and reports READY if nothing is left to wait for. */
void sn__node_links_start(node_t *nd);

/* The listener's connection callback (nd->net.listener.data = nd), and its admission control. */
void sn__node_on_link_connection(uv_stream_t *server, int status);
extern const sn_admit_ops_t sn__node_admit_ops;

/* ---- calibrate.c ---- */

/* Measures every link this node dials with `probes` empty and `probes` `bytes`-byte ping-pongs,
 * then (concurrent) barrier rounds of empty and of `bytes`-byte pings on all its links at once,
 * about `probes` pairs of them, then sends Calibrated. */
void sn__node_calibrate(node_t *nd, uint32_t bytes, uint32_t probes, int concurrent);

/* The sequence bit of the concurrent rounds' pings. They get no pong: a round is a slot of the
 * probes' frames, over when the node has the neighbours' pings of the round (links.c passes them
 * to sn__node_on_conc_ping). */
#define SN_NODE_CONC_SEQ (1ull << 63)

/* A concurrent round's PING on link l, sequence seq (SN_NODE_CONC_SEQ | round). */
void sn__node_on_conc_ping(link_t *l, uint64_t seq);

/* A PONG on link l carrying sequence number seq. */
void sn__node_on_pong(link_t *l, uint64_t seq);
/* Sends a calibration probe (PING) or its echo (PONG) on a connection: sequence seq then `bytes`
 * probe bytes, generated as the frame goes out (links.c). */
int sn__node_send_probe(sn_conn_t *c, int type, uint64_t seq, uint32_t bytes);
/* The same on link l, through its link emulation when it has one (the frame then built whole and
 * held until its release time, emulate.c); nothing once the link's connection has closed. */
void sn__node_link_probe(link_t *l, int type, uint64_t seq, uint32_t bytes);
/* The packet size a data frame arriving now must have: the running collective's, or between
 * collectives the next one's (sweeps). */
uint32_t sn__node_frame_size(const node_t *nd);

/* ---- exec.c: the executor the execution modes share ---- */

/* Starts the collective of a START from the coordinator (its cid, seed, packet size and the next
 * collective's size), or an idle barrier of st->idle_slots slots; with st->barrier_slots > 0,
 * first an in-band barrier of that many empty slots as collective cid - 1; recording the times
 * and transmissions of the collective's slots 1 to st->trace_slots (absent or 0: none) for its
 * result. */
void sn__node_start(node_t *nd, const Stepnet__Start *st);

/* A data frame on link l. */
void sn__node_on_data(link_t *l, const uint8_t *body, size_t len);
/* The parts of sn__node_on_data, for frames that arrive in pieces (links.c): the check of payload
 * bytes [off, off + n) (-1 once reported), the report of a malformed frame, and the acceptance
 * of a checked frame by the execution mode (mode_frame). */
int sn__node_data_check(link_t *l, const sn_wire_data_t *d, const uint8_t *p, uint32_t off,
                        uint32_t n);
void sn__node_data_malformed(link_t *l, const char *msg);
void sn__node_data_accept(link_t *l, sn_wire_data_t *d);

/* Shared by the execution modes: checks the arrivals of slot s - 1 (nd->ex.rx, nrx, in port
 * order), steps the state machine when core/sim would (slot 1, arrivals, its wake slot) with the
 * core's checks, notes the completion, and returns the packets to send in *ntx (nd->ex.out);
 * *complete: every delivery held. 0, or -1 once the failure is reported. */
int sn__node_step(node_t *nd, uint64_t s, size_t nrx, size_t *ntx, int *complete);
/* Appends an arrival (packet pkt on port q, echo: we sent a packet on q in the same slot) to
 * nd->ex.rx at index i. */
void sn__node_arrival(node_t *nd, size_t i, const sn_packet_t *pkt, uint32_t q, int echo);
/* The frames of slot s: every link's (the slot barrier) or, with packets_only, the links that
 * carry a packet (dataflow); counts and hashes the transmissions. */
void sn__node_send_slot(node_t *nd, uint64_t s, int packets_only);
/* The frame of slot s of collective cid on link l, with the termination fields and at most one
 * packet (pkt NULL: an empty frame); nothing once the link's connection has closed. */
void sn__node_send_frame(link_t *l, uint32_t cid, uint64_t s, uint32_t radius, uint64_t cmax,
                         const sn_packet_t *pkt, const sn_params_t *p);
/* The slot just played begins waiting for its frames (the deadline's view of every link). */
void sn__node_begin_wait(node_t *nd);
/* The collective's last slot is played: checks the deliveries and reports the result; at the end
 * of an in-band barrier, starts the collective it precedes. */
void sn__node_finish(node_t *nd);
/* A data frame's packet digest, from its checked payload (a combining packet keeps the value its
 * header carries). Inline: every mode computes it on every frame it takes. */
static inline void sn__node_frame_digest(const node_t *nd, sn_wire_data_t *d)
{
    const sn_params_t *p = &nd->params;
    if (d->has_packet && d->pkt.kind == SN_PKT_DATA &&
        !(d->pkt.src == SN_SRC_COMBINED && sn_coll_is_combining(p->coll)))
        d->pkt.digest = sn_payload_digest(p->seed, d->pkt.src, d->pkt.dst, d->pkt.seq, d->pkt.frag,
                                          d->payload_len);
}

/* --trace: the frame of slot s arrived on port q now (nothing beyond the recorded slots). */
void sn__node_trace_arrived(node_t *nd, uint64_t s, uint32_t q);

/* ---- the execution modes: mode_slot.c, mode_dataflow.c (include/stepnet/sync.h) ----
 * An execution mode is a table of operations, as a transport is in nng: one file per mode, each
 * keeping its own state in nd->ex.mode_state, and one table (sn__node_mode, exec.c) from which
 * the node takes its mode once, when the assignment names it. The shared executor (exec.c) calls
 * the operations; nothing else in node/ looks at the mode. An idle run (a benchmark's idle
 * barrier, or the in-band barrier before every collective) is played behind the slot barrier in
 * every mode: nd->ex.run is the running run's table, the mode's for a collective and
 * sn__node_mode_slot's for an idle run. Every member is set. All are called on the node's loop,
 * and none may free the node or a link. */
struct sn_node_mode_ops_s {
    /* mode_assign: takes the mode's part of the assignment `a` (lent for the call), once, after
     * the links are built (sn__node_links_init: nd->deg and nd->links are set) and before any
     * START; what it allocates goes into nd->ex.mode_state. 0, or a negative code with err set,
     * which refuses the assignment (mode_free still runs at the node's end). */
    int (*mode_assign)(node_t *nd, const Stepnet__Assign *a, sn_err_t *err);

    /* mode_start: a START of a collective arrived, before its in-band barrier (if any) is
     * played; frames of the collective may arrive (mode_frame) from now on, before mode_begin. */
    void (*mode_start)(node_t *nd);

    /* mode_begin: plays a run from its slot 1, as far as the frames that are in allow: called by
     * exec.c once per run (nd->ex.run's) when its state, verification, trace buffers and slot
     * deadline are set up (nd->ex.running). It plays through sn__node_step, sn__node_send_slot
     * and sn__node_begin_wait, and ends the run with sn__node_finish or a report
     * (sn__node_report, sn__node_abort); later frames continue it through mode_frame. */
    void (*mode_begin)(node_t *nd);

    /* mode_frame: data frame d on link l, its payload checked (sn__node_data_check) but its
     * digest not yet computed (sn__node_frame_digest): a frame of the running run, of the next
     * collective or of the in-band barrier before it. Takes it, or reports a protocol error, and
     * plays the slots it completes. d is the caller's copy, lent for the call (its payload is not
     * kept). Called for every frame, on the hot path: one indirect call, nothing more. */
    void (*mode_frame)(link_t *l, sn_wire_data_t *d);

    /* mode_awaited: for the slot deadline of the running run (exec.c, every tick): the slot whose
     * frames the node waits for, and in *hops the most hops of frames that may precede the first
     * byte of one of them (at least nd->diameter). */
    uint64_t (*mode_awaited)(const node_t *nd, uint32_t *hops);

    /* mode_missing: for the same deadline: 1 when link l's frame of the awaited slot is not here
     * and the node waits for it, 0 when the link owes nothing now. */
    int (*mode_missing)(const node_t *nd, const link_t *l);

    /* mode_result: the mode's part of a collective's Result r (not an idle run's), just before it
     * is sent: the learned stop a mode with termination detection found (has_quiet_slot,
     * quiet_slot), and what the mode marks in the trace (nd->ex.trace_slots). */
    void (*mode_result)(node_t *nd, Stepnet__Result *r);

    /* mode_free: frees nd->ex.mode_state and whatever the mode keeps, at the node's end, after a
     * refused assignment too (the state may be partly built, or NULL). */
    void (*mode_free)(node_t *nd);
};

/* Every mode's operations, sn__node_mode_NAME in node/mode_NAME.c: the slot barrier
 * (mode_slot.c), dataflow (mode_dataflow.c). */
#define SN_SYNC_NODE_OPS(e, name, wire, lockstep, rxplan, what)                                    \
    extern const sn_node_mode_ops_t sn__node_mode_##name;
SN_SYNC_MAP(SN_SYNC_NODE_OPS)
#undef SN_SYNC_NODE_OPS

/* The operations of execution mode s (the one table, exec.c); NULL outside SN_SYNC_MAP. */
const sn_node_mode_ops_t *sn__node_mode(sn_sync_t s);

/* ---- emulate.c ---- */

/* Sets up the emulation of the assignment's links (a->emu, a->emu_seed): every link of an edge
 * listed there delays its outgoing frames. 0, or SN_EINVAL with err set (an edge that is not this
 * node's, a value beyond the parsers' bounds), or a libuv code when the timer cannot be made. */
int sn__node_emu_init(node_t *nd, const Stepnet__Assign *a, sn_err_t *err);

/* Sends a frame `body` of `len` body bytes (from sn_conn_frame or sn_wire_frame_data on
 * l->lc->c) on link l: at once, or, when the link is emulated, at its release time, after every
 * frame written on l before it. */
void sn__node_link_send(link_t *l, uint8_t *body, size_t len);

/* Frees the frames link l still holds (its connection is closing). */
void sn__node_emu_drop(link_t *l);

/* Closes the emulation's timer (shutdown). */
void sn__node_emu_close(node_t *nd);

/* ---- fault.c ---- */

/* Injects the assignment's fault if slot is its slot (testing). */
void sn__node_fault_inject(node_t *nd, uint64_t slot);
/* The faults that must act before the frames of `slot` leave (trickle: the slot's own frames
 * already go at a trickle). */
void sn__node_fault_before_send(node_t *nd, uint64_t slot);

#endif
