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

/* sn_coord_run for the CLI: the run's log lines (unless o names another namer) and the result's
 * error text (a failed run's verdict) with the parameters they refer to named by their flags
 * (cli_param_name), so that every report prints the verdict as it is. Returns sn_coord_run's
 * code. */
int cli_coord_run(const sn_coord_opts_t *o, sn_coord_result_t *res, sn_err_t *err);

/* Gives o's run progress lines for command `cmd` drawn by p (stderr, redrawn when it is a
 * terminal) when `on`; p must live as long as the run. */
void cli_run_progress(sn_coord_opts_t *o, int on, const char *cmd, cli_progress_t *p);

/* The lines of --help that run and bench share after their first own ones (run_options.c holds
 * the options; sn_help_t.lines). */
#define CLI_RUN_HELP_LINES                                                                         \
    "--csv", "--progress", "--nodes", "--listen", "--nodes ADDR,ADDR,...", "--port-range",         \
        "--hosts", "--map-by", "--remote-node", "--ssh", "--key", "--security", "--insecure-ok",   \
        "--cipher", "--node-bin", "--probes", "--connect-timeout-ms", "--ready-timeout-ms",        \
        "--slot-timeout-ms", "--collective-timeout-ms", "--heartbeat-ms", "--spin-us",             \
        "--coord-nice", "--termination", "--sync", "--fault", "--token", "--verbose"

/* `stepnet run` and `stepnet bench` (cmd_run.c): parses the options of command `cmd` ("run" or
 * "bench"; `help` its --help layout), builds every case, runs each with sn_coord_run and prints
 * its reports. Returns the exit status. */
int cli_run_command(const char *cmd, const sn_help_t *help, int argc, char **argv);

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
 * cli_ctx_build and cli_run_job). Strings point into argv. 0; CLI_HELP after --help (the help of
 * layout `help` printed on stdout); SN_EINVAL with err naming the bad value and what is accepted.
 */
int cli_run_parse(int argc, char **argv, cli_opts_t *cli, cli_run_t *run, const sn_help_t *help,
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
