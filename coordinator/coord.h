/* The run engine (coordinator/): sn_coord_run runs one collective over real TCP links between
 * stepnet-node processes and returns what it measured. It takes a job (topology, parameters,
 * algorithm and plan) and the run's settings, knows nothing of argv, and prints nothing but the
 * run's own log and progress lines on stderr; the commands (cli/) parse and report. */
#ifndef STEPNET_COORDINATOR_COORD_H
#define STEPNET_COORDINATOR_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/progress.h"
#include "coordinator/timing.h"
#include "stepnet/algo.h"
#include "stepnet/critical_path.h"
#include "stepnet/error.h"
#include "stepnet/linkemu.h"
#include "stepnet/model.h"
#include "stepnet/sync.h"
#include "stepnet/timemodel.h"
#include "stepnet/topo.h"

/* The room for a failed run's message (sn_coord_result_t.error), and the node id that names
 * none (a failure without a culprit node). */
#define SN_COORD_ERROR_TEXT 900
#define SN_COORD_NODE_NONE  (-1)

/* Defaults of `stepnet run` (its --help states them). */
#define SN_COORD_DEFAULT_REPS          5
#define SN_COORD_DEFAULT_WARMUP        1
#define SN_COORD_DEFAULT_PROBES        20
#define SN_COORD_DEFAULT_CONNECT_MS    10000
#define SN_COORD_DEFAULT_SLOT_MS       5000
#define SN_COORD_DEFAULT_COLLECTIVE_MS 300000
/* How long a node polls without sleeping while a slot waits for frames (docs/runtime.md, "Waiting
 * for frames"): long enough to cover an empty slot of 64 processes on 2 cores (400-700 us), short
 * enough that a slot waiting for an emulated delay or a large frame soon sleeps. */
#define SN_COORD_DEFAULT_SPIN_US 1000
#define SN_COORD_MAX_SPIN_US     1000000
/* How far the coordinator lowers its own CPU priority (nice) once its local node processes are
 * started (docs/runtime.md, "The coordinator's priority"): on a machine shared with the nodes,
 * its bookkeeping between and during repetitions yields to their slots. */
#define SN_COORD_DEFAULT_NICE 10
#define SN_COORD_MAX_NICE     19

/* The largest calibration probe. The per-byte terms of the time model are linear in the size, so
 * probes of 4 MiB measure them as well as probes of the packet size, and a run of 1 GiB packets
 * does not spend minutes ping-ponging gigabytes before it starts (it ran into the calibration
 * deadline). */
#define SN_COORD_PROBE_MAX_BYTES (4u << 20)

/* What to run: the topology, the collective's parameters (at the largest packet size of a sweep),
 * the algorithm, its plan and its predicted steps (-1: none). Every pointer is borrowed for the
 * call (params.sources too). */
typedef struct sn_coord_job_s {
    const sn_topo_t *topo;
    sn_params_t params;
    const sn_algo_t *algo;
    const void *plan;
    int64_t predicted;
} sn_coord_job_t;

typedef struct sn_coord_opts_s {
    sn_coord_job_t job;
    const char *topo_text; /* the topology spec as given (a file: factor reaches the nodes as its
                              edge list, not as the file) */
    uint32_t reps, warmup, probes;
    uint64_t idle_slots;  /* 0: the collective; else each repetition is that many bare slots */
    int join;             /* 0: spawn one local node per topology node; 1: wait for --join nodes */
    int security;         /* SN_SEC_SODIUM or SN_SEC_NONE (net/secure.h) */
    int ciphers;          /* --cipher: SN_CIPHER_* bits every connection may use (0: auto) */
    int verbose;          /* nodes log routine events */
    const char *listen;   /* HOST:PORT of the control listener; NULL: the launcher's default */
    const char *key_file; /* the cluster key; NULL: a fresh key (local runs only) */
    const char *node_bin; /* the stepnet-node executable; NULL: $STEPNET_NODE or next to us */
    int fault_node;       /* testing: this node injects `fault` (KIND@SLOT); -1: none */
    const char *fault;
    int has_token; /* testing: a fixed run token instead of a random one */
    uint64_t token;
    uint32_t connect_ms, slot_ms, collective_ms;
    /* the ready deadline (docs/runtime.md, "The ready deadline"); 0: its default, which follows
     * the number of nodes and the launcher (sn_launch_ready_default_ms, launch/launcher.h) */
    uint32_t ready_ms;
    uint32_t heartbeat_ms; /* control-channel heartbeat period; 0: none */
    uint32_t spin_us;      /* nodes poll without sleeping this long into a slot; 0: never */
    uint32_t coord_nice;   /* added to the coordinator's nice once its local nodes are started */
    /* --termination detect: every repetition detects its termination (D + 1 slots of empty
     * frames after the last node is done); 0 (learn): the first repetition of each size does, the
     * later ones stop at the slot it found (Start.quiet_slot), checked by every node */
    int termination_detect;
    /* the execution mode (--sync; include/stepnet/sync.h): SN_SYNC_SLOT (the default) the slot
     * barrier; SN_SYNC_DATAFLOW nodes send only the packets of the schedule and play each logical
     * slot as soon as its packets are in (docs/runtime.md, "Dataflow execution") */
    sn_sync_t sync;
    /* --max-memory: what the dataflow receive plan may take in the coordinator (0: no limit) */
    uint64_t max_memory;
    /* sweeps (`stepnet bench`): the packet sizes, increasing, each run for warmup + reps
     * repetitions in one launch of the nodes; NULL: the one size of job.params. job.params.size
     * must be the largest (the memory budget and the calibration probes use it). */
    const uint32_t *sizes;
    size_t nsizes;
    /* names the parameters the run's log lines refer to (SN_PARAM_REF): the front end's spelling
     * (the CLI's flags, cli_param_name); NULL: their concept names. The run's error texts
     * (sn_coord_result_t.error, sn_err_t) keep the references for the front end to name. */
    sn_param_namer_t name_param;
    /* progress events (progress.h) as the run goes on, to progress(progress_ctx, ...) on the run's
     * loop; NULL: none */
    sn_coord_progress_fn progress;
    void *progress_ctx;
    /* --trace: the nodes record slots 1 to trace_slots (0: no trace) of measured repetition
     * trace_rep (1 to reps) and send them with their result (docs/trace.md) */
    uint64_t trace_slots;
    uint32_t trace_rep;
    /* link emulation (emu_report.c): --link-delay, --link-jitter, --link-rate for every link, and
     * --link-file (NULL: none) with per-link values */
    sn_emu_link_t emu;
    const char *emu_file;
    /* --hosts: nodes started over ssh on these hosts (launch/ssh.c, launch/hostfile.h); NULL: none
     */
    const char *hosts;       /* a hostfile or a host[:slots],... list, as given */
    int map_by;              /* --map-by: SN_MAP_BY_SLOT or SN_MAP_BY_NODE (hostfile.h) */
    const char *remote_node; /* --remote-node: stepnet-node on the hosts; NULL: on their PATH */
    const char *ssh;         /* --ssh: the ssh command; NULL: $STEPNET_SSH, else "ssh" */
    /* deployment (docs/deploy.md): --nodes ADDR,ADDR,... (persistent daemons, NULL: none; the id
     * of a daemon's node is its position in the list unless the daemon was started with --id),
     * and --port-range LO-HI for the control listener and the nodes' link listeners (0: none) */
    const char *daemons;
    uint16_t port_lo, port_hi;
} sn_coord_opts_t;

/* One packet size of a run (a plain run has one, a sweep one per size), filled as its
 * repetitions end. */
typedef enum {
    SN_COORD_POINT_PENDING,
    SN_COORD_POINT_DONE,
    SN_COORD_POINT_FAILED
} sn_coord_point_state_t;
typedef struct sn_coord_point_s {
    uint32_t size;
    sn_coord_point_state_t state;
    /* repetitions of this size that verified, warm-up included: the counters below are those of
     * the last of them (0: none verified, the counters were not measured) */
    uint32_t verified;
    uint64_t steps, trace_hash, packets, deliveries, bytes_checked;
    /* the global last done start G of the first repetition (every node done from slot G on):
     * where the later repetitions stop under --termination learn (0: not yet known) */
    uint64_t quiet_slot;
    uint64_t *wall_ns; /* one per measured repetition of this size */
    size_t nwall;
    uint64_t *coll_ns; /* the collective's own time, one per measured repetition (timing.h) */
    size_t ncoll;
    uint64_t *node_ns; /* the mean of the nodes' own times, one per measured repetition */
    size_t nnode;
    int has_model; /* the time model at this size (sn_coord_time_model; 0: none) */
    sn_tm_result_t model;
    /* per measured repetition: from the START to the last node's slot 1 on the coordinator's
     * clock (the fan-out and the in-band barrier; timemodel.c's empty-slot samples) */
    uint64_t *barrier_ns;
    size_t nbarrier;
    sn_cp_result_t dataflow; /* the same schedule without the slot barrier (with has_model) */
    sn_coord_calib_t calib;  /* the empty slot the model took and its samples (with has_model) */
} sn_coord_point_t;

/* One calibrated link: its edge and ends, and the median round trips of its probes. */
typedef struct sn_coord_link_cal_s {
    uint32_t edge, a, b;
    uint64_t rtt0_ns, rtt_ns; /* empty probes, and probes of `bytes` payload bytes */
    uint32_t bytes;
} sn_coord_link_cal_t;

#define SN_COORD_HOST_MAX 64
typedef struct sn_coord_host_s {
    char name[SN_COORD_HOST_MAX]; /* the node's host name, as its hello gave it ("" until then) */
} sn_coord_host_t;

/* The traced repetition's records as the nodes make them (net/wire.h's limits, which aggregate.c
 * checks these against): at most SN_COORD_TRACE_MAX_SLOTS slots a node, SN_COORD_TRACE_MAX_VALUES
 * numbers in all (half for the slots, half for the transmissions), and SN_COORD_TRACE_NO_FRAME
 * for a (slot, port) on which dataflow's receive plan holds no frame (0 already means a frame that
 * came before the Start). */
#define SN_COORD_TRACE_MAX_SLOTS  100000
#define SN_COORD_TRACE_MAX_VALUES (1u << 22)
#define SN_COORD_TRACE_NO_FRAME   UINT64_MAX

/* One node's record of the traced repetition: the Result's trace fields (proto/stepnet.proto),
 * copied. */
typedef struct sn_coord_trace_node_s {
    uint64_t t0_ns;         /* its monotonic clock at its Start */
    uint64_t *slots;        /* 1 + degree values per recorded slot */
    size_t nslots;          /* values */
    uint64_t *sends;        /* 4 values per recorded transmission */
    size_t nsends;          /* values */
    uint64_t stop_slot;     /* the last slot it played */
    uint64_t transmissions; /* data and control packets it sent (recorded or not) */
    /* its clock's estimated offset from the coordinator's (node minus coordinator) and the bound
     * on that estimate's error (timing.h; both 0 when every node is on the coordinator's clock) */
    int64_t clock_offset_ns;
    uint64_t clock_uncertainty_ns;
} sn_coord_trace_node_t;

typedef struct sn_coord_trace_s {
    uint32_t cid; /* the traced collective (warmup + trace_rep) */
    uint32_t n;
    sn_coord_trace_node_t *nodes; /* [n] */
} sn_coord_trace_t;

/* What a run measured. On failure `failed` is 1, `error` names the culprit node, slot and a
 * witness (blame.h), and the counters hold the last verified repetition's values, if any. */
typedef struct sn_coord_result_s {
    int failed;
    char error[SN_COORD_ERROR_TEXT];
    int fail_node;   /* SN_COORD_NODE_NONE when none can be named */
    int interrupted; /* the signal (SIGINT, SIGTERM) that interrupted the coordinator; 0: none */
    uint64_t fail_slot;
    uint64_t steps, trace_hash, packets, control_packets, deliveries, control_slots;
    uint64_t bytes_checked;
    uint64_t max_queue;      /* the most packets one node held waiting after a step */
    uint32_t max_queue_node; /* the lowest node id that held max_queue (0 when it is 0) */
    int max_queue_reported;  /* 0: the algorithm reports no queues (max_queue is null) */
    uint64_t *wall_ns;       /* one per measured repetition */
    size_t nwall;
    double alpha_us, beta_us; /* medians over the calibrated links */
    size_t ncalibrated;       /* links calibrated (0: --probes 0) */
    /* the packet sizes (one per opts->sizes, or the one size of the run); the counters and
     * wall_ns above are those of the last size that ran */
    sn_coord_point_t *points;
    size_t npoints;
    sn_coord_link_cal_t *links; /* every calibrated link, in the order the nodes reported them */
    size_t nlinks;
    sn_coord_host_t *hosts; /* [nhosts]: per node id */
    uint32_t nhosts;
    uint32_t ssh_hosts;      /* --hosts: the hosts that were given nodes (0 otherwise); hosts cloned
                                from one image may all give the same name in their hellos */
    int64_t started;         /* when the run started: seconds since the epoch (UTC) */
    sn_coord_trace_t *trace; /* --trace: the traced repetition; NULL when not traced or not
                             reached */
    /* per measured repetition, the collective's own time (timing.h): the latest completion minus
     * the earliest start over the nodes, from their own clocks */
    uint64_t *coll_ns;
    size_t ncoll;
    /* per measured repetition, the mean over the nodes of each node's own completion minus its
     * own start (timing.h: OSU's "Avg Latency"); as many as coll_ns */
    uint64_t *node_ns;
    size_t nnode;
    int clock_offsets;             /* 0: every node on the coordinator's clock (local nodes) */
    uint64_t clock_uncertainty_ns; /* the largest uncertainty of a node's estimated offset */
    uint64_t barrier_slots;        /* the in-band barrier before each repetition (0: none) */
    /* the ciphers (SN_CIPHER_* bits) the control connections and the links negotiated */
    int ctl_ciphers, link_ciphers;
    /* link emulation and the per-edge calibration it is reported with: the emulated values of
     * every edge (NULL: nothing emulated); per edge, the one-way time of an empty probe and of a
     * probe of the run's size (rtt / 2, microseconds; negative: not calibrated) */
    sn_emu_t *emu;
    double *edge_alpha_us, *edge_hop_us;
    /* the time model (timemodel.c): per node the concurrent round trips of empty and of
     * size-byte probes on all its links (microseconds; negative: not measured), the control legs
     * (median round of a heartbeat to every node and back; negative: not measured), and the
     * prediction with its terms (has_model 0: not computed) */
    double *node_conc_rtt0_us, *node_conc_rtt_us;
    double ctl_us;
    double empty_slot_us; /* one measured empty slot of the whole network (0: not measured) */
    uint32_t probe_bytes; /* the calibration probes' size: the packet size, at most
                             SN_COORD_PROBE_MAX_BYTES (every per-byte term is divided by it) */
    int has_model;
    sn_tm_result_t model;
    /* the start-up samples of empty_slot_us, and the last size's dataflow prediction and
     * calibration of the empty slot (timemodel.c; with has_model) */
    double empty_slot_samples_us[SN_COORD_CALIB_STARTUP_MAX];
    uint32_t nempty_slot_samples;
    sn_cp_result_t dataflow;
    sn_coord_calib_t calib;
    sn_sync_t sync; /* the run's execution mode (opts->sync): which model predicts it */
} sn_coord_result_t;

/* The defaults above; job and topo_text stay empty (the caller sets them). */
void sn_coord_opts_default(sn_coord_opts_t *o);

/* The descriptors the coordinator needs for a run of `nodes` nodes: a control connection per
 * node, and its listeners, loop and files (the check the run makes before it launches, and the
 * command line before it builds anything). */
uint64_t sn_coord_fd_need(uint32_t nodes);

/* Runs the collective of opts->job as opts ask. Returns 0 when the run took place, verified or
 * not (result->failed says which; free the result with sn_coord_result_free either way), or a
 * negative code with err naming the cause when it could not start: SN_EINVAL for bad input (a bad
 * --listen, key or token, an unsupported topology), a libuv code when the listener fails. Logs the
 * run's events (nodes joining, refused connections) on stderr. Not reentrant: one at a time per
 * process (it handles SIGINT and SIGTERM while it runs). With --coord-nice (opts->coord_nice > 0)
 * the run takes place on a thread of its own, which lowers its priority once the nodes are
 * started; the caller waits for it. */
int sn_coord_run(const sn_coord_opts_t *opts, sn_coord_result_t *result, sn_err_t *err);
void sn_coord_result_free(sn_coord_result_t *result);
void sn_coord_trace_free(sn_coord_trace_t *trace);

/* The median of the measured wall times in microseconds (0 without any). */
double sn_coord_result_median_us(const sn_coord_result_t *result);

/* The time model's prediction of a point (of the run: the last size that ran) in the run's
 * execution mode: the slot model's for a lockstep mode (sn_sync_lockstep), the dataflow model's
 * critical path otherwise; -1 without a model. */
double sn_coord_point_model_us(const sn_coord_result_t *result, const sn_coord_point_t *pt);
double sn_coord_result_model_us(const sn_coord_result_t *result);
/* The median of the measured collective times (coll_ns) in microseconds (0 without any). */
double sn_coord_result_coll_median_us(const sn_coord_result_t *result);
/* The median of the nodes' mean own times (node_ns) in microseconds (0 without any). */
double sn_coord_result_node_median_us(const sn_coord_result_t *result);

/* Link emulation (emu.c): the per-edge values of opts (its --link-* options and
 * --link-file, read here, at most SN_EMU_MAX_FILE bytes) for topology t into *out (NULL when
 * nothing is emulated). 0, or SN_EINVAL with err naming the file, line and value. */
int sn_coord_emu_build(const sn_coord_opts_t *opts, const sn_topo_t *t, sn_emu_t **out,
                       sn_err_t *err);

/* The time model (timemodel.c): predicts the run's wall time from the calibration in `res`
 * and the schedule of opts->job (replayed by the simulator; the idle barrier has none) and sets
 * res->model and res->has_model. Does nothing for a failed or uncalibrated run. */
void sn_coord_time_model(const sn_coord_opts_t *opts, sn_coord_result_t *res);

#endif
