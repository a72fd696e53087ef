/* `stepnet run` and `stepnet bench` around the run engine (cli): their options, the engine's
 * settings among them, and their reports. The engine (coord.h) gets only sn_coord_opts_t; what the
 * command alone reads (its output files, --sizes as given, dynamic broadcasting) stays here. */
#ifndef STEPNET_CLI_RUN_H
#define STEPNET_CLI_RUN_H

#include <stdio.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/progress.h"
#include "coordinator/coord.h"

typedef struct cli_run_s {
    sn_coord_opts_t coord;  /* the engine's settings; coord.job is the case being run */
    const cli_ctx_t *ctx;   /* what the case's options resolved to (coord.job borrows from it) */
    const char *out_file;   /* --out FILE (NULL: none) */
    const char *csv_file;   /* --csv FILE (NULL: none) */
    const char *sizes_text; /* --sizes as given (bench; NULL: not given) */
    const char *trace_file; /* --trace FILE (NULL: none) */
    /* --coll dynbcast: --lambda, --rho, --sweep-rho as given (NULL: not given), --slots (-1) */
    const char *dyn_lambda, *dyn_rho, *dyn_sweep;
    int64_t dyn_slots;
    int progress; /* progress lines on stderr: --progress, or by default on a terminal */
} cli_run_t;

/* Gives o's run progress lines for command `cmd` drawn by p (stderr, redrawn when it is a
 * terminal) when `on`; p must live as long as the run. */
void cli_run_progress(sn_coord_opts_t *o, int on, const char *cmd, cli_progress_t *p);

/* The help lines of the options run and bench share after their own. */
#define RUN_TRANSPORT_HELP                                                                         \
    "  --csv FILE         also write the measurements as CSV to FILE (header and one row per\n"    \
    "                     size; docs/output.md)\n"                                                 \
    "  --progress         progress on stderr (each phase: launch, join, calibration, warm-up,\n"   \
    "                     repetitions with an ETA; bench: each size) even when stderr is not a\n"  \
    "                     terminal; --no-progress: none (default: on a terminal)\n"                \
    "  --nodes local|join local: spawn the nodes on 127.0.0.1 (default); join: wait for nodes\n"   \
    "                     started with `stepnet-node --join HOST:PORT`\n"                          \
    "  --listen ADDR      coordinator address (default 127.0.0.1:0; join mode needs it, e.g.\n"    \
    "                     0.0.0.0:7000; --hosts needs an address the hosts can reach)\n"           \
    "  --nodes ADDR,ADDR,...  persistent daemons (`stepnet-node --serve --listen ADDR`), one\n"    \
    "                     per node: the coordinator dials each (authenticated with --key) and\n"   \
    "                     invites it; the daemon's node joins back. Node id = position in the\n"   \
    "                     list unless the daemon was started with --id (docs/deploy.md). Here\n"   \
    "                     --listen defaults to 0.0.0.0:0 (give [::]:0 for IPv6 daemons)\n"         \
    "  --port-range LO-HI the control listener takes the first free port from LO to HI (with\n"    \
    "                     --listen HOST:0 or the default); local and ssh nodes' links too\n"       \
    "  --hosts FILE|LIST  start the nodes over ssh on these hosts: a hostfile (one host per\n"     \
    "                     line, `[user@]host[:port] [slots=N]`, # comments, as Open MPI's) or\n"   \
    "                     a list `host[:slots],...` as mpirun -H takes it; an argument with a\n"   \
    "                     '/' or naming an existing file is a hostfile. A host without slots=N\n"  \
    "                     has 1 slot; every node is one process on its host\n"                     \
    "  --map-by slot|node placement of node ids on the hosts (printed on stderr): slot "           \
    "(default)\n"                                                                                  \
    "                     fills each host's slots in list order; node deals ids round-robin, "     \
    "one\n"                                                                                        \
    "                     per host, skipping full hosts\n"                                         \
    "  --remote-node PATH the stepnet-node program on the hosts (default: stepnet-node on the\n"   \
    "                     remote PATH)\n"                                                          \
    "  --ssh COMMAND      the ssh client and its options, split at spaces, no quoting (default\n"  \
    "                     $STEPNET_SSH, else ssh), e.g. \"ssh -p 2222 -i /home/me/lab.key\";\n"    \
    "                     stepnet adds -T -o BatchMode=yes -o ConnectTimeout=S and sends the\n"    \
    "                     cluster key on ssh's standard input, never on a command line\n"          \
    "  --key FILE         the cluster key (stepnet keygen): required in join mode; local and\n"    \
    "                     --hosts runs make a fresh key per run unless this is given\n"            \
    "  --security MODE    sodium (default: every connection authenticated and encrypted) or "      \
    "none\n"                                                                                       \
    "                     (plaintext, for raw measurements; join mode and --hosts also need\n"     \
    "                     --insecure-ok)\n"                                                        \
    "  --insecure-ok      accept --security none in join mode or with --hosts\n"                   \
    "  --cipher C         sodium's cipher: auto (default: AES-256-GCM where both ends of a\n"      \
    "                     connection have AES-NI, else XChaCha20-Poly1305), aes256gcm or\n"        \
    "                     xchacha20poly1305 (every connection must then use it)\n"                 \
    "  --node-bin PATH    the stepnet-node executable (default: next to stepnet)\n"                \
    "  --probes N         ping-pong probes per link and size for calibration, and rounds of the\n" \
    "                     time model's node and control-leg probes (default 20; 0 skips them\n"    \
    "                     and the model); a calibration series stops after 5 s with the\n"         \
    "                     probes measured so far, one at least\n"                                  \
    "  --connect-timeout-ms MS    nodes connecting to each other (default 10000)\n"                \
    "  --ready-timeout-ms MS      every node joined and ready (default 30000 plus 20 per node,\n"  \
    "                     or plus 2000 per node with --hosts: ssh sessions start slower)\n"        \
    "  --slot-timeout-ms MS       a link whose frame is missing moving no byte, in or out\n"       \
    "                     (default 5000); the frame's first byte also gets the time the\n"         \
    "                     calibrated model allows it, and a frame still arriving fails only\n"     \
    "                     when too slow for the model (docs/runtime.md, Deadlines)\n"              \
    "  --collective-timeout-ms MS one repetition (default 300000)\n"                               \
    "  --heartbeat-ms MS  control-channel heartbeat period outside collectives (default 1000;\n"   \
    "                     0: none); 5 periods of silence end the run, or make a node leave\n"      \
    "  --spin-us US       while a slot waits for frames, each node polls its sockets without\n"    \
    "                     sleeping (yielding the CPU between polls, as MPI libraries do) for up\n" \
    "                     to US microseconds after the slot began, then sleeps until a frame\n"    \
    "                     comes (default 1000; 0: always sleep)\n"                                 \
    "  --coord-nice N     once the local nodes are started, the coordinator adds N (0 to 19) to\n" \
    "                     its nice value, so that its bookkeeping yields the CPU to the nodes\n"   \
    "                     sharing its machine (default 10; 0: same priority as the nodes)\n"       \
    "  --termination learn|detect  learn (default): the first repetition of each size detects\n"   \
    "                     its end (diameter + 1 slots of empty frames after the last node is\n"    \
    "                     done), the later ones stop at the slot it found, each node checking\n"   \
    "                     that it is done there; detect: every repetition detects its end\n"       \
    "  --sync slot|dataflow  slot (default): the slot barrier, one frame on every link every\n"    \
    "                     slot; dataflow: nodes send only the schedule's packets and play each\n"  \
    "                     slot as soon as its packets are in (a dry run tells each node what it\n" \
    "                     receives when), as a communication library runs a schedule\n"            \
    "  --fault ID:KIND@SLOT       testing: node ID kills itself (kill), stops (stop), sends a\n"   \
    "                             malformed (garbage) or oversized (oversize) frame at SLOT, or\n" \
    "                             flips one bit of its next frame on the wire (flip), or from\n"   \
    "                             SLOT on sends every frame at a trickle of 128 bytes every\n"     \
    "                             100 ms (trickle: its neighbours report the link too slow)\n"     \
    "  --token HEX        testing: a fixed run token instead of a random one (every link hello "   \
    "must\n"                                                                                       \
    "                     carry the token)\n"                                                      \
    "  --verbose          node logs of routine events on stderr\n"

/* `stepnet run` and `stepnet bench` (cmd_run.c): parses the options of command `cmd` ("run" or
 * "bench"), builds every case, runs each with sn_coord_run and prints its reports. Returns the
 * exit status. */
int cli_run_command(const char *cmd, const char *help, int argc, char **argv);

/* The sizes of `stepnet bench` (run_options.c): --sizes, or the default, into run->coord, and the
 * largest into cli->size (the memory budget and the calibration probes are those of the largest
 * size). 0, or SN_EINVAL with err naming the bad value. *sizes is malloc'd. */
int cli_bench_sizes(cli_opts_t *cli, cli_run_t *run, uint32_t **sizes, sn_err_t *err);

/* The default --sizes, --iters and --warmup of `stepnet bench`. */
#define CLI_BENCH_DEFAULT_SIZES  "8:1M:x2"
#define CLI_BENCH_DEFAULT_ITERS  20
#define CLI_BENCH_DEFAULT_WARMUP 2

/* At most this many sizes in one --sizes list. */
#define CLI_SIZES_MAX 256

/* Parses a --sizes value (sizes.c) into *out (malloc'd, strictly increasing) and *n:
 *   FROM:TO        FROM, 2 FROM, 4 FROM, ... up to TO (FROM at least 1)
 *   FROM:TO:xF     the same with factor F (2 to 1024)
 *   FROM:TO:+S     FROM, FROM + S, ... up to TO (S at least 1)
 *   A,B,C          these sizes, strictly increasing
 * Every size is decimal digits with an optional K, M or G (powers of two: 1K = 1024 bytes), from
 * 0 to SN_MAX_PACKET_SIZE. 0, or SN_EINVAL with err naming the value and what is accepted. */
int cli_sizes_parse(const char *text, uint32_t **out, size_t *n, sn_err_t *err);

/* The engine's job from what the options resolved to: c's topology, parameters, algorithm, plan
 * and prediction, borrowed. */
void cli_run_job(const cli_ctx_t *c, sn_coord_job_t *job);

/* Parses `stepnet run` or `stepnet bench` options (run_options.c; cli->cmd names the command)
 * into the shared options `cli` and `run` (whose ctx and coord.job are left empty: build them with
 * cli_ctx_build and cli_run_job). Strings point into argv. 0; CLI_HELP after --help (usage printed
 * on stdout); SN_EINVAL with err naming the bad value and what is accepted. */
int cli_run_parse(int argc, char **argv, cli_opts_t *cli, cli_run_t *run, const char *usage,
                  sn_err_t *err);

/* The JSON report (one line) and the human-readable report of a run (run_report.c). */
void cli_run_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *result);
void cli_run_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *result);

/* The report of `stepnet bench` (bench_report.c): the OSU-style table, and one JSON object per
 * line and size. */
void cli_bench_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);
void cli_bench_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);

/* The emulated values next to the measured per-link calibration (emu_report.c): the key
 * "link_emulation" of the JSON report (null when nothing is emulated) and the text report's
 * lines. */
void cli_emu_report_json(cli_json_t *j, const cli_run_t *run, const sn_coord_result_t *res);
void cli_emu_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);

/* The time model's terms (timemodel_report.c): the key "time_model" of the JSON report (null
 * without a model) and the text report's line. */
void cli_model_report_json(cli_json_t *j, const cli_run_t *run, const sn_coord_result_t *res);
void cli_model_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);

/* Writes the trace of the run (run_trace.c; docs/trace.md): the slots and transmissions the nodes
 * recorded in the traced repetition, or, when the run did not get that far, a trace that says so.
 * The caller closes f. */
void cli_run_trace_write(FILE *f, const cli_run_t *run, const sn_coord_result_t *result);

#endif
