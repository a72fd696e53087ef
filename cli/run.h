/* `stepnet run` and `stepnet bench` around the run engine (cli): their options, the engine's
 * settings among them, and their reports. The engine (coord.h) gets only coord_opts_t; what the
 * command alone reads (its output files, --sizes as given, dynamic broadcasting) stays here. */
#ifndef STEPNET_CLI_RUN_H
#define STEPNET_CLI_RUN_H

#include <stdio.h>

#include "cli.h"
#include "coord.h"
#include "json.h"

typedef struct cli_run_s {
    coord_opts_t coord;     /* the engine's settings; coord.job is the case being run */
    const cli_ctx_t *ctx;   /* what the case's options resolved to (coord.job borrows from it) */
    const char *out_file;   /* --out FILE (NULL: none) */
    const char *csv_file;   /* --csv FILE (NULL: none) */
    const char *sizes_text; /* --sizes as given (bench; NULL: not given) */
    const char *trace_file; /* --trace FILE (NULL: none) */
    /* --coll dynbcast: --lambda, --rho, --sweep-rho as given (NULL: not given), --slots (-1) */
    const char *dyn_lambda, *dyn_rho, *dyn_sweep;
    int64_t dyn_slots;
} cli_run_t;

/* The engine's job from what the options resolved to: c's topology, parameters, algorithm, plan
 * and prediction, borrowed. */
void cli_run_job(const cli_ctx_t *c, coord_job_t *job);

/* Parses `stepnet run` or `stepnet bench` options (run_options.c; cli->cmd names the command)
 * into the shared options `cli` and `run` (whose ctx and coord.job are left empty: build them with
 * cli_ctx_build and cli_run_job). Strings point into argv. 0; CLI_HELP after --help (usage printed
 * on stdout); SN_EINVAL with err naming the bad value and what is accepted. */
int cli_run_parse(int argc, char **argv, cli_opts_t *cli, cli_run_t *run, const char *usage,
                  sn_err_t *err);

/* The JSON report (one line) and the human-readable report of a run (run_report.c). */
void coord_report_json(FILE *f, const cli_run_t *run, const coord_result_t *result);
void coord_report_text(FILE *f, const cli_run_t *run, const coord_result_t *result);

/* The emulated values next to the measured per-link calibration (emu_report.c): the key
 * "link_emulation" of the JSON report (null when nothing is emulated) and the text report's
 * lines. */
void coord_emu_report_json(json_t *j, const cli_run_t *run, const coord_result_t *res);
void coord_emu_report_text(FILE *f, const cli_run_t *run, const coord_result_t *res);

/* The time model's terms (timemodel_report.c): the key "time_model" of the JSON report (null
 * without a model) and the text report's line. */
void coord_model_report_json(json_t *j, const cli_run_t *run, const coord_result_t *res);
void coord_model_report_text(FILE *f, const cli_run_t *run, const coord_result_t *res);

/* Writes the trace of the run (run_trace.c; docs/trace.md): the slots and transmissions the nodes
 * recorded in the traced repetition, or, when the run did not get that far, a trace that says so.
 * The caller closes f. */
void coord_trace_write(FILE *f, const cli_run_t *run, const coord_result_t *result);

#endif
