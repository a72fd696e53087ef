/* The stepnet command line (cli): options shared by `model`, `sim`, `run` and `table`, the
 * context every command builds from them, and the commands. Exit status of every command: 0
 * success, 1 the collective failed or did not verify, 2 bad input. */
#ifndef STEPNET_CLI_CLI_H
#define STEPNET_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "proc/opts.h"
#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/model.h"
#include "stepnet/topo.h"

#define EXIT_OK       0
#define EXIT_FAILED   1
#define EXIT_BADINPUT 2

typedef struct cli_opts_s {
    const char *cmd;
    const char *topo;
    const char *coll;
    const char *algo;
    const char *ports, *rx, *duplex;
    const char *sources;
    const char *op;                               /* combining operator, NULL = not given */
    int64_t root, msgs, m, size, seed, max_slots; /* -1 = not given */
    uint64_t max_memory; /* bytes; cli_opts_init sets cli_default_max_memory() */
    int64_t frags;       /* -1 = not given (1) */
    const char *tp;      /* cost of a control slot in data-slot units, NULL = not given (1) */
    int json;
    int progress;      /* -1 = auto (when stderr is a terminal) */
    int link_emulated; /* run: the nodes emulate links (the memory estimate counts the frames
                          they hold) */
} cli_opts_t;

/* What the options resolve to: the topology, the parameters and the selected algorithm. */
typedef struct cli_ctx_s {
    sn_topo_t *topo;
    sn_params_t params;
    uint32_t *sources;
    const sn_algo_t *algo;
    void *plan;
    int64_t predicted;
    sn_bounds_t bounds;
    sn_mem_t mem; /* the memory estimate checked against --max-memory */
    double tp; /* --tp: the time of one control slot, in time units (a whole packet's slot = 1) */
    /* what auto ranked by: --tp when given (time units), else SN_MODEL_RANK_SLOTS (slots, as a
     * run over TCP costs them) */
    double rank_tp;
    /* --algo schedule:FILE: the file's path and the algorithm it records (NULL: none, or no
     * schedule file) */
    char *sched_path, *sched_algo;
} cli_ctx_t;

/* The run's time in the unit of Varvarigos and Bertsekas: data slots carry one fragment, 1/frags
 * of a packet, and control slots cost tp each (docs/model.md, "Fragments and control packets"):
 * (steps - control_slots) / frags + control_slots * tp. */
double cli_time_units(const cli_ctx_t *c, uint64_t steps, uint64_t control_slots);

/* A real option value: dflt when v is NULL, else a number from lo to hi. 0 or SN_EINVAL naming
 * the value and the range. */
int cli_parse_real(const char *name, const char *v, double dflt, double lo, double hi, double *out,
                   sn_err_t *err);

/* The --help texts: each command's layout (sn_help_t) lists the lines of its options by name, the
 * shared ones (options.c) as CLI_HELP_SHARED does; run and bench list --progress among their own.
 * Most texts start the descriptions at column CLI_HELP_COL. */
#define CLI_HELP_COL 21
#define CLI_HELP_SHARED                                                                            \
    "--topo", "--coll", "--ports", "--rx", "--duplex", "--algo", "--root", "--msgs", "--frags",    \
        "--tp", "--sources", "--op", "--m", "--size", "--seed", "--max-memory", "--json"

/* cli_opts_parse's return after --help (the help printed on stdout; the command exits 0). */
#define CLI_HELP 1

/* The default of --max-memory: half the machine's physical memory (sysconf), or 4 GiB when the
 * system does not say. */
#define CLI_MEMORY_FRACTION 2 /* the default limit is physical memory / this */
uint64_t cli_default_max_memory(void);

#define CLI_MIN_MAX_MEMORY (1ull << 20) /* --max-memory below 1 MiB is surely a mistake */

/* Parses a --max-memory SIZE (sn_opts_bytes: K, M, G, T or KiB, MiB, GiB, TiB, powers of 1024)
 * from 1 MiB to SN_OPTS_MAX_BYTES. 0, or SN_EINVAL naming the value and what is accepted. */
int cli_parse_size(const char *name, const char *v, uint64_t *out, sn_err_t *err);

/* Every option unset (the numbers -1, --progress auto), for command `cmd`. */
void cli_opts_init(cli_opts_t *o, const char *cmd);

/* Parses argv (after the command name) against the options of table `first`, then those of
 * `second` (either may be NULL; a name in both is first's), and --help or -h, which print the help
 * of layout `help` with the option lines of both tables on stdout (sn_opts_help). 0; CLI_HELP
 * after --help; SN_EINVAL with err naming the bad value or unknown option and what is accepted
 * (proc/opts.h), or the option a table does not describe. How every command reads its options. */
int cli_opts_parse_tables(int argc, char **argv, const sn_opt_t *first, const sn_opt_t *second,
                          const sn_help_t *help, sn_err_t *err);

/* --max-memory SIZE as an SN_OPT_FN: cli_parse_size into *(uint64_t *) opt->ctx. */
int cli_opt_memory(const sn_opt_t *opt, const char *v, sn_err_t *err);

/* Parses argv (after the command name) into `o`, and the command's own options `extra` (may be
 * NULL). 0; CLI_HELP after --help or -h (prints the help of layout `help` on stdout, the lines of
 * `extra` and of the shared options); SN_EINVAL with err naming the bad value or unknown option
 * and what is accepted. */
int cli_opts_parse(int argc, char **argv, cli_opts_t *o, const sn_opt_t *extra,
                   const sn_help_t *help, sn_err_t *err);

/* Builds topology, parameters, bounds and the algorithm from the options. 0, or a negative code
 * with err naming the bad value. Free `c` with cli_ctx_free either way. */
int cli_ctx_build(const cli_opts_t *o, cli_ctx_t *c, sn_err_t *err);

/* The command-boundary wrappers of the two above: print err on stderr ("stepnet: ...").
 * Parses argv (after the command name). Unknown options and bad values print one line to stderr
 * and return EXIT_BADINPUT; --help prints the help of layout `help` and returns -1 (caller exits
 * 0). */
int cli_parse(int argc, char **argv, cli_opts_t *o, const sn_help_t *help);

/* cli_ctx_build, printing the error and returning EXIT_BADINPUT. */
int cli_ctx_init(const cli_opts_t *o, cli_ctx_t *c);
void cli_ctx_free(cli_ctx_t *c);

/* The port model as words: "multi", "single"; rx "one"/"any"; duplex "full"/"half". */
const char *cli_ports_name(const sn_params_t *p);
const char *cli_rx_name(const sn_params_t *p);
const char *cli_duplex_name(const sn_params_t *p);

/* The flags that set a run parameter, with their accepted values ("--msgs M"), or NULL when no
 * flag sets it (errmap.c: the one table from core parameters to flags). */
const char *cli_param_flag(sn_param_t param);
/* The flag that sets a run parameter as a message names it inline ("--msgs"), or NULL when no flag
 * sets it: the namer (sn_param_namer_t) the CLI hands the engine and uses in cli_text. */
const char *cli_param_name(sn_param_t param);

/* An engine or core message as this CLI shows it: every parameter reference (SN_PARAM_REF)
 * replaced by its flag, control bytes escaped as \xNN. Writes at most cap bytes to buf (cap at
 * least 4 bytes per byte of the message to escape it all) and returns buf. */
const char *cli_text(const char *msg, char *buf, size_t cap);

/* err's message for a user of this CLI: cli_text of the core's message, followed by
 * " (option FLAGS)" when it is about a parameter a flag sets. Writes at most cap bytes to buf and
 * returns buf. */
#define CLI_ERR_TEXT_MAX 1536
const char *cli_err_text(const sn_err_t *err, char *buf, size_t cap);

/* Prints "WHO: " and cli_err_text's line on stderr: how every command reports a bad input. */
void cli_err_print(const char *who, const sn_err_t *err);

/* The one way a command ends on an error, printed here once ("stepnet: ..."): cli_refuse for
 * input refused before anything ran (EXIT_BADINPUT whatever the code), cli_fail for an error
 * while running (EXIT_BADINPUT for SN_EINVAL, else EXIT_FAILED). Return the exit status. */
int cli_refuse(const sn_err_t *err);
int cli_fail(const sn_err_t *err);

/* Flushes and closes f, a file the command wrote (`path`, given by option `flag`). 0, or -1 after
 * printing "stepnet: cannot write PATH (FLAG): REASON" when any write, the flush or the close
 * failed (a full disk, /dev/full): the command then exits 1. */
int cli_close_out(FILE *f, const char *path, const char *flag);
/* A core writer's sink (sn_sched_sink_t) into the FILE *f: 0, or -1 on a short write (the error
 * stays in ferror(f) for cli_close_out). */
int cli_file_sink(void *f, const char *data, size_t len);

/* 1 when `--coll` value coll names a collective driven by rounds of arrivals (dynbcast,
 * sn_coll_is_rounds), which cli_dyn runs; 0 for any other value, unknown names and NULL. */
int cli_dyn_applies(const char *coll);

/* `--coll dynbcast` for command `cmd` ("sim" or "run"): --lambda or --rho (or --sweep-rho
 * FROM:TO:STEP, CSV), --slots T, --tp, --frags, --seed, --json from o. `round` plays a round (NULL:
 * the simulator). Prints the report; returns the exit status. */
int cli_dyn(const char *cmd, const cli_opts_t *o, const char *lambda_s, const char *rho_s,
            int64_t slots, const char *sweep, sn_dyn_round_fn round, void *round_ctx);

/* Each command's --help layout, which lists its options by name (the commands' table below reads
 * them). */
const sn_help_t *cli_help_model(void);
const sn_help_t *cli_help_sim(void);
const sn_help_t *cli_help_run(void);
const sn_help_t *cli_help_bench(void);
const sn_help_t *cli_help_export(void);
const sn_help_t *cli_help_synth(void);
const sn_help_t *cli_help_algos(void);
const sn_help_t *cli_help_table(void);

/* The commands, in the order that --help lists them (commands.c): the name, the line --help shows,
 * the entry, and the --help layout (NULL: keygen, whose help is prose). */
typedef struct cli_command_s {
    const char *name, *summary;
    int (*run)(int argc, char **argv);
    const sn_help_t *(*help)(void);
} cli_command_t;
extern const cli_command_t cli_commands[];
extern const size_t cli_ncommands;

/* The commands other than the one whose layout is `self` that take option `name` (their --help
 * lists it), as "run and bench" into buf (cap bytes); "" when none. Returns buf. */
const char *cli_commands_with(const char *name, size_t len, const sn_help_t *self, char *buf,
                              size_t cap);

int cli_cmd_model(int argc, char **argv);
int cli_cmd_sim(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_synth(int argc, char **argv);
int cli_cmd_algos(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_table(int argc, char **argv);
int cli_cmd_keygen(int argc, char **argv);

#endif
