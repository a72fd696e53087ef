/* `stepnet bench` (cli): an OSU-style sweep over packet sizes in one launch of the nodes. The
 * life cycle and the options are stepnet run's (cmd_run.c, run_options.c); here is its usage. */
#include <stdio.h>

#include "cli/run.h"

static const char usage_head[] =
    "usage: stepnet bench --topo SPEC --coll C [--sizes LIST] [options]\n"
    "\n"
    "An OSU-style sweep over packet sizes in one launch of the nodes: the collective of stepnet\n"
    "run, --warmup then --iters repetitions at each size, every payload byte checked at every\n"
    "hop. Prints one row per size (Size, Avg, Min, Max, P50, P99 in microseconds, Iterations,\n"
    "Steps, Predicted); --json prints one JSON object per line and size, --csv FILE the CSV\n"
    "(docs/output.md). The memory budget is checked for the largest size before anything starts,\n"
    "and the links are calibrated with probes of the largest size.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 every size verified, 1 a size failed (the sizes before it are reported),\n"
    "2 bad input, 130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";
/* --help: the prose, and the lines of the options (options.c, run_options.c): run's table, of
 * which bench lists its own. */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.lines = (const char *const[]){"--sizes", "--topo 'A;B'", "--ports P,Q", "--iters", "--warmup",
                                    "--out", CLI_RUN_HELP_LINES, NULL},
     .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_bench(void)
{
    return usage;
}

int cli_cmd_bench(int argc, char **argv)
{
    return cli_run_command("bench", usage, argc, argv);
}
