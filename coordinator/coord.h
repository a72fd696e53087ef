/* The coordinator as a function (coordinator): coord_run runs one collective over real TCP links
 * between stepnet-node processes and returns what it measured. `stepnet run` and `stepnet table
 * --run` both call it; neither prints from inside it except the run's own log lines on stderr. */
#ifndef STEPNET_COORD_H
#define STEPNET_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "blame.h"
#include "cli.h"
#include "stepnet/error.h"
#include "stepnet/linkemu.h"
#include "stepnet/timemodel.h"

/* Defaults of `stepnet run` (its --help states them). */
#define COORD_DEFAULT_REPS          5
#define COORD_DEFAULT_WARMUP        1
#define COORD_DEFAULT_PROBES        20
#define COORD_DEFAULT_CONNECT_MS    10000
#define COORD_DEFAULT_READY_MS      30000
#define COORD_DEFAULT_SLOT_MS       5000
#define COORD_DEFAULT_COLLECTIVE_MS 300000
#define COORD_DEFAULT_LISTEN        "127.0.0.1:0"
#define COORD_MAX_LOCAL_NODES       4096 /* local runs start one process per node */

typedef struct coord_opts_s {
    const cli_ctx_t *ctx;  /* topology, parameters, algorithm: borrowed for the call */
    const char *topo_text; /* the --topo text (its file: factors are sent to the nodes) */
    uint32_t reps, warmup, probes;
    uint64_t idle_slots;  /* 0: the collective; else each repetition is that many bare slots */
    int join;             /* 0: spawn one local node per topology node; 1: wait for --join nodes */
    int security;         /* SN_SEC_SODIUM or SN_SEC_NONE (net/secure.h) */
    int verbose;          /* nodes log routine events */
    const char *listen;   /* HOST:PORT of the control listener; NULL: COORD_DEFAULT_LISTEN */
    const char *key_file; /* the cluster key; NULL: a fresh key (local runs only) */
    const char *node_bin; /* the stepnet-node executable; NULL: $STEPNET_NODE or next to us */
    int fault_node;       /* testing: this node injects `fault` (KIND@SLOT); -1: none */
    const char *fault;
    int has_token; /* testing: a fixed run token instead of a random one */
    uint64_t token;
    uint32_t connect_ms, ready_ms, slot_ms, collective_ms;
    uint32_t heartbeat_ms; /* control-channel heartbeat period; 0: none */
    /* --coll dynbcast: --lambda, --rho, --sweep-rho as given (NULL: not given), --slots (-1) */
    const char *dyn_lambda, *dyn_rho, *dyn_sweep;
    int64_t dyn_slots;
    /* link emulation (emu_report.c): --link-delay, --link-jitter, --link-rate for every link, and
     * --link-file (NULL: none) with per-link values */
    sn_emu_link_t emu;
    const char *emu_file;
} coord_opts_t;

/* What a run measured. On failure `failed` is 1, `error` names the culprit node, slot and a
 * witness (blame.h), and the counters hold the last verified repetition's values, if any. */
typedef struct coord_result_s {
    int failed;
    char error[COORD_ERROR_TEXT];
    int fail_node;   /* COORD_NODE_NONE when none can be named */
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
    /* link emulation and the per-edge calibration it is reported with: the emulated values of
     * every edge (NULL: nothing emulated); per edge, the one-way time of an empty probe and of a
     * probe of the run's size (rtt / 2, microseconds; negative: not calibrated) */
    sn_emu_t *emu;
    double *edge_alpha_us, *edge_hop_us;
    /* the time model (timemodel_run.c): per node the concurrent round trips of empty and of
     * size-byte probes on all its links (microseconds; negative: not measured), the control legs
     * (median round of a heartbeat to every node and back; negative: not measured), and the
     * prediction with its terms (has_model 0: not computed) */
    double *node_conc_rtt0_us, *node_conc_rtt_us;
    double ctl_us;
    double empty_slot_us; /* one measured empty slot of the whole network (0: not measured) */
    int has_model;
    sn_tm_result_t model;
} coord_result_t;

/* The defaults above; ctx and topo_text stay NULL (the caller sets them). */
void coord_opts_default(coord_opts_t *o);

/* Runs the collective of opts->ctx as opts ask. Returns 0 when the run took place, verified or
 * not (result->failed says which; free the result with coord_result_free either way), or a
 * negative code with err naming the cause when it could not start: SN_EINVAL for bad input (a bad
 * --listen, key or token, an unsupported topology), a libuv code when the listener fails. Logs the
 * run's events (nodes joining, refused connections) on stderr. Not reentrant: one at a time per
 * process (it handles SIGINT and SIGTERM while it runs). */
int coord_run(const coord_opts_t *opts, coord_result_t *result, sn_err_t *err);
void coord_result_free(coord_result_t *result);

/* The median of the measured wall times in microseconds (0 without any). */
double coord_result_median_us(const coord_result_t *result);

/* Link emulation (emu_report.c): the per-edge values of opts (its --link-* options and
 * --link-file, read here, at most SN_EMU_MAX_FILE bytes) for topology t into *out (NULL when
 * nothing is emulated). 0, or SN_EINVAL with err naming the file, line and value. */
int coord_emu_build(const coord_opts_t *opts, const sn_topo_t *t, sn_emu_t **out, sn_err_t *err);

/* The emulated values next to the measured per-link calibration: the key "link_emulation" of the
 * JSON report (null when nothing is emulated) and the text report's lines. */
struct json_s;
void coord_emu_report_json(struct json_s *j, const coord_opts_t *opts, const coord_result_t *res);
void coord_emu_report_text(FILE *f, const coord_opts_t *opts, const coord_result_t *res);

/* The time model (timemodel_run.c): predicts the run's wall time from the calibration in `res`
 * and the schedule of opts->ctx (replayed by the simulator; the idle barrier has none) and sets
 * res->model and res->has_model. Does nothing for a failed or uncalibrated run. */
void coord_time_model(const coord_opts_t *opts, coord_result_t *res);

/* The model's terms: the key "time_model" of the JSON report (null without a model) and the text
 * report's line. */
void coord_model_report_json(struct json_s *j, const coord_opts_t *opts, const coord_result_t *res);
void coord_model_report_text(FILE *f, const coord_opts_t *opts, const coord_result_t *res);

/* The JSON report (one line) and the human-readable report of a run (run_report.c). */
void coord_report_json(FILE *f, const coord_opts_t *opts, const coord_result_t *result);
void coord_report_text(FILE *f, const coord_opts_t *opts, const coord_result_t *result);

/* Parses `stepnet run` options (run_options.c) into the shared options `cli`, the run's `opts`
 * (whose ctx is left NULL: build it with cli_ctx_build) and --out FILE (*out_file, NULL when not
 * given). Strings point into argv. 0; CLI_HELP after --help (usage printed on stdout); SN_EINVAL
 * with err naming the bad value and what is accepted. */
int coord_opts_parse(int argc, char **argv, cli_opts_t *cli, coord_opts_t *opts,
                     const char **out_file, const char *usage, sn_err_t *err);

#endif
