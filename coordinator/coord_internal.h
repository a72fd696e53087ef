/* The state of one sn_coord_run (coordinator), shared by its parts: coord.c (life cycle, failures,
 * shutdown), control.c (the control state machine), aggregate.c (checking and combining the
 * nodes' results), progress.c and phase_deadline.c. Not for the commands (they use coord.h), nor
 * for the launchers: they get a context of their own (launch/launcher.h). */
#ifndef STEPNET_COORDINATOR_COORD_INTERNAL_H
#define STEPNET_COORDINATOR_COORD_INTERNAL_H

#include <uv.h>

#include "coordinator/blame.h"
#include "coordinator/coord.h"
#include "coordinator/progress.h"
#include "coordinator/timing.h"
#include "launch/launcher.h"
#include "net/addr.h"
#include "net/conn.h"
#include "net/secure.h"
#include "net/wire.h"
#include "proc/log.h"
#include "stepnet/rxplan.h"

typedef struct sn_coord_s sn_coord_t;

/* Clock probes per node in join mode (timing.h), one at a time. */
#define SN_COORD_CLOCK_PROBES 8

/* After the run ends, how long nodes get to exit before they are killed: a failed run's nodes
 * have already aborted, a successful run's nodes finish their STOP and close links cleanly. */
#define SN_COORD_GRACE_FAILED_MS 300
#define SN_COORD_GRACE_STOP_MS   5000
/* After the first failure report, how long the cascade of reports it causes may arrive before
 * blame picks the root cause. */
#define SN_COORD_BLAME_WINDOW_MS 300
/* The idle slots of the repetition that measures an empty slot for the time model. */
#define SN_COORD_FLOOR_SLOTS 20
/* Repetitions of the empty-slot measurement, whose median is taken: the first one after the
 * calibration is often slower (200 us emulated links: 656 us a slot against 510 us later). */
#define SN_COORD_FLOOR_REPS 3
/* The control-leg rounds: --probes, at most this many (as the nodes cap their probes). */
#define SN_COORD_CTL_ROUNDS_MAX 1000
#define SN_COORD_CTL_ROUNDS(o)                                                                     \
    ((o)->probes < SN_COORD_CTL_ROUNDS_MAX ? (o)->probes : SN_COORD_CTL_ROUNDS_MAX)
/* A slot-deadline report accuses a neighbour that may be alive (a cut link): its own deadline
 * fires up to one slot deadline later, so the window waits for it, up to the slot deadline more,
 * and closes SN_COORD_BLAME_WINDOW_MS after every accused node has reported. */
#define SN_COORD_LISTEN_BACKLOG 4096
/* Descriptors the coordinator holds besides one control connection per node: stdio, the event
 * loop's, the signal pipe, the listener, a spawn in progress. With SN_ADMIT_FD_HEADROOM for
 * strangers, the least descriptor limit (RLIMIT_NOFILE) a run of n nodes starts with. */
#define SN_COORD_FD_BASE 16

typedef enum {
    SN_COORD_PH_JOIN,      /* waiting for every node's hello */
    SN_COORD_PH_READY,     /* assignments sent, waiting for every READY */
    SN_COORD_PH_CALIBRATE, /* links measured by ping-pong */
    SN_COORD_PH_CLOCK,     /* join mode: the nodes' clock offsets by control round trips */
    SN_COORD_PH_RUN,       /* repetitions */
    SN_COORD_PH_DONE
} sn_coord_phase_t;

/* Progress events for the front end (progress.c, progress.h): the phases, then the repetitions. */
typedef struct sn_coord_progress_s {
    uint64_t t0;    /* uv_hrtime of the first repetition's START */
    uint64_t slots; /* slots played by the repetitions that ended */
    uint64_t done;  /* repetitions that ended (warm-ups included) */
    int ended;      /* the final event was sent */
} sn_coord_progress_t;

typedef struct sn_coord_node_s {
    sn_coord_t *run;
    sn_conn_t *conn; /* control connection (NULL until hello, or after it closed) */
    int id;
    int hello, ready, calibrated, complete, result;
    char host[SN_ADDR_MAX_HOST];
    uint32_t data_port, pid;
    uint64_t last_heard;  /* uv_now of its last control frame */
    uint64_t answered_hb; /* the highest heartbeat sequence it answered */
    Stepnet__Result *res; /* of the current repetition */
    /* its clock (join mode): the probes so far, then the offset from the coordinator's clock */
    sn_coord_clock_sample_t clk[SN_COORD_CLOCK_PROBES];
    uint32_t nclk;
    int clocked;
    int64_t clk_offset_ns;
    uint64_t clk_uncertainty_ns;
} sn_coord_node_t;

typedef struct sn_coord_pconn_s { /* a control connection (before its hello: node == NULL) */
    sn_conn_t c;
    sn_coord_t *run;
    sn_coord_node_t *node;
    struct sn_coord_pconn_s *prev, *next; /* every open one, so that the end can close them all */
} sn_coord_pconn_t;

struct sn_coord_s {
    uv_loop_t *loop;
    sn_log_t log; /* role "coord": joins, refusals, launches (proc/log.h) */
    const sn_coord_opts_t *o;
    sn_coord_result_t *res;
    const sn_coord_job_t *job;
    const sn_topo_t *t;
    uint32_t n;
    sn_conn_sec_cfg_t sec;
    sn_key_t *key; /* sodium_malloc'd; the cluster key */
    uint64_t token;
    char *file_text; /* a file: graph's canonical edge list (sn_topo_file_text), which every
                        Assign carries instead of the file; NULL without one */
    size_t file_len;
    char *sched_text; /* --algo schedule:FILE: the schedule every Assign carries; NULL otherwise */
    size_t sched_len;
    sn_rxplan_t rxplan; /* --sync dataflow: every node's receptions, sent in its Assign */
    /* the launcher of the nodes (launch/launcher.h), chosen once, and its state */
    const sn_launcher_ops_t *launcher;
    void *launcher_state;
    /* state */
    sn_coord_phase_t phase;
    uv_tcp_t listener;
    sn_admit_t admit;                   /* unauthenticated control connections (net/conn.h) */
    char listen_addr[SN_ADDR_MAX_TEXT]; /* the bound address, as nodes must dial it */
    sn_coord_node_t *nodes;
    sn_coord_pconn_t *pconns;
    uint32_t joined, nready, ncal, nclocked, ncomplete, nresult;
    uv_timer_t deadline, grace, blame_timer, heartbeat;
    uint32_t deadline_ms; /* the running `deadline` timer's length, for its message */
    uint32_t ready_ms;    /* the ready deadline in force: the option, or the launcher's default */
    uint64_t blame_due;   /* uv_now at which the blame window closes */
    uint64_t hb_seq, hb_last_tick; /* uv_now of the previous heartbeat tick */
    /* this process went without a heartbeat tick for longer than the nodes wait for one
     * (SN_HEARTBEAT_MISSES periods: it was stopped or starved), so nodes left for its silence */
    int self_stalled;
    uint64_t probe_seq; /* the liveness probe sent at the first failure report (0: none) */
    uint64_t probe_ms;  /* uv_now when it was sent */
    uv_signal_t sigint, sigterm;
    /* calibration: per link, microseconds and microseconds per byte */
    double *alpha, *beta;
    size_t ncalib, capcalib;
    size_t caplinks; /* of res->links */
    /* repetitions: cid counts all of them (a sweep runs warmup + reps of each size in turn);
     * wire_cid is the collective id of the current one on the wire (with the in-band barrier of
     * barrier_slots slots as wire_cid - 1) */
    uint32_t cid, wire_cid;
    uint64_t barrier_slots;
    uint32_t point, rep; /* the size (index in res->points) and the repetition in it (from 1) */
    sn_params_t params;  /* job->params with the current size */
    sn_coord_progress_t progress;
    /* the control legs of the time model: rounds of a heartbeat to every node and every answer
     * back (control.c), the time of each */
    uint32_t ctl_round, ctl_got;
    uint64_t ctl_t0;
    uint64_t *ctl_rtt;
    /* and the measured empty slot: SN_COORD_FLOOR_REPS unmeasured repetitions of
     * SN_COORD_FLOOR_SLOTS idle slots before the warm-up, the median per slot (floor_next: they
     * come next; floor_rep: one runs; floor_us[floor_done]: the per-slot times so far); cid0 is the
     * cid of the last such repetition (0: none), so that repetition k of the run is cid - cid0 */
    int floor_next, floor_rep;
    uint32_t floor_done;
    uint32_t floor_slots; /* idle slots of one: SN_COORD_FLOOR_SLOTS, fewer over long delays */
    double floor_us[SN_COORD_FLOOR_REPS];
    uint32_t cid0;
    uint64_t t0, tlast;
    /* per node: the offset of its clock (all 0 on one clock), and the timestamps of a repetition */
    int64_t *offset_ns;
    uint64_t *start_ns, *complete_ns;
    uint64_t *digest_want; /* per node */
    /* failure: every report of the blame window, then the root cause */
    int stopping;
    sn_coord_report_t *reports;
    size_t nreports, capreports;
    uint16_t listen_port; /* the control listener's */
};

/* coord.c: records a failure report (kind: an AbortKind or a sn_coord_kind_t). The first starts the
 * blame window; then sn__coord_blame picks the root cause and the run ends. */
void sn__coord_report(sn_coord_t *r, int kind, int node, int peer, uint64_t slot,
                      const uint32_t *missing, size_t nmissing, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* The coordinator's own findings (deadlines, results, start-up). */
#define sn__coord_fail(r, node, slot, ...)                                                         \
    sn__coord_report((r), SN_COORD_KIND_RUN, (node), SN_COORD_NODE_NONE, (slot), NULL, 0,          \
                     __VA_ARGS__)

/* Is the current collective the traced one (--trace: measured repetition trace_rep of the last
 * size; `run` has one size)? */
static inline int sn__coord_traced(const sn_coord_t *r)
{
    return r->o->trace_slots && r->point + 1 == r->res->npoints &&
           r->rep == r->o->warmup + r->o->trace_rep;
}

/* coord.c: ends the run: STOP (success) or ABORT (failure) to every node, then waits for local
 * nodes to exit, killing them after a grace period. */
void sn__coord_finish(sn_coord_t *r, int failed);
/* coord.c: closes every handle once the local nodes are gone. */
void sn__coord_close_all(sn_coord_t *r);
/* coord.c: sends `m` to every node with a control connection. */
void sn__coord_send_all(sn_coord_t *r, const Stepnet__Control *m);

/* control.c: the heartbeat timer (every o->heartbeat_ms): pings every node outside a collective and
 * reports one silent for SN_HEARTBEAT_MISSES periods. */
void sn__coord_on_heartbeat(uv_timer_t *t);
/* control.c: a heartbeat to every connected node now, whatever the phase; its sequence number.
 * Sent at the first failure report: a node that answers it is alive (blame.h). */
uint64_t sn__coord_probe(sn_coord_t *r);

/* control.c: the listener's connection callback and its admission control (r->admit), and the
 * phase deadline. */
void sn__coord_on_connection(uv_stream_t *server, int status);
extern const sn_admit_ops_t sn__coord_admit_ops;
void sn__coord_on_deadline(uv_timer_t *t);
/* (Re)starts the phase deadline: `ms` milliseconds from now, kept for the expiry message. */
void sn__coord_deadline(sn_coord_t *r, uint32_t ms);

/* aggregate.c: the link timings of one node's CALIBRATED message. */
void sn__coord_add_calibration(sn_coord_t *r, const Stepnet__Calibrated *cal);
/* aggregate.c: the median of the control-leg rounds into r->res->ctl_us. */
void sn__coord_ctl_done(sn_coord_t *r);
/* aggregate.c: the medians of alpha and beta over every calibrated link, into r->res. */
void sn__coord_calibration_done(sn_coord_t *r);
/* aggregate.c: checks every node's result of the repetition that just ended and adds it to
 * r->res. 0, or -1 after reporting the failure. */
int sn__coord_aggregate_rep(sn_coord_t *r);
/* aggregate.c: makes size k (r->res->points[k]) the current one: r->params and the expected
 * digest sums follow it. */
void sn__coord_point_begin(sn_coord_t *r, uint32_t k);

/* coord.c: the launcher that options `o` ask for (launch/launcher.h's sn_launcher_of), and what
 * it reads of them into *lo. */
const sn_launcher_ops_t *sn__coord_launcher(const sn_coord_opts_t *o, sn_launch_opts_t *lo);

/* progress.c: sets r->progress up (events go out when opts->progress is set). */
void sn__coord_progress_init(sn_coord_t *r);
/* progress.c: the run's state may have changed before its repetitions (a node started, joined,
 * brought its links up, a calibration series ended): an event for the phase it is in (progress.h);
 * nothing once the repetitions run. Called by coord.c (the launch under way; a launcher's node
 * started) and control.c. */
void sn__coord_progress_update(sn_coord_t *r);
/* progress.c: start_rep sent a START (r->t0): the event of the repetition starting. */
void sn__coord_progress_rep_start(sn_coord_t *r);
/* progress.c: a repetition ended (slots: the slots it played), or the run is over (final: the last
 * event). */
void sn__coord_progress(sn_coord_t *r, uint64_t slots, int final);

#endif
