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

/* Defaults of `stepnet run` (its --help states them). */
#define COORD_DEFAULT_REPS           5
#define COORD_DEFAULT_WARMUP         1
#define COORD_DEFAULT_PROBES         20
#define COORD_DEFAULT_CONNECT_MS     10000
#define COORD_DEFAULT_READY_MS       30000
#define COORD_DEFAULT_SLOT_MS        5000
#define COORD_DEFAULT_COLLECTIVE_MS  300000
#define COORD_DEFAULT_LISTEN         "127.0.0.1:0"
#define COORD_DEFAULT_LISTEN_DAEMONS "0.0.0.0:0" /* --nodes ADDR,...: daemons dial back */
#define COORD_MAX_LOCAL_NODES        4096        /* local runs start one process per node */

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
    /* deployment (docs/deploy.md): --nodes ADDR,ADDR,... (persistent daemons, NULL: none; the id
     * of a daemon's node is its position in the list unless the daemon was started with --id),
     * and --port-range LO-HI for the control listener and the nodes' link listeners (0: none) */
    const char *daemons;
    uint16_t port_lo, port_hi;
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
} coord_result_t;

/* daemons.c: checks --nodes ADDR,ADDR,... (daemon addresses, each with a port) and --port-range
 * LO-HI (into opts->port_lo/hi; refused with a --listen that names a port). 0, or SN_EINVAL with
 * err naming the value and what is accepted. */
int coord_daemons_check(const char *list, sn_err_t *err);
int coord_port_range_check(const char *text, coord_opts_t *opts, sn_err_t *err);

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
