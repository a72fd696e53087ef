/* `stepnet bench` (cli): an OSU-style sweep over packet sizes in one launch of the nodes. The
 * life cycle and the options are stepnet run's (cmd_run.c, run_options.c); here is its usage. */
#include <stdio.h>

#include "cli/run.h"

static const char bench_usage[] =
    "usage: stepnet bench --topo SPEC --coll C [--sizes LIST] [options]\n"
    "\n"
    "An OSU-style sweep over packet sizes in one launch of the nodes: the collective of stepnet\n"
    "run, --warmup then --iters repetitions at each size, every payload byte checked at every\n"
    "hop. Prints one row per size (Size, Avg, Min, Max, P50, P99 in microseconds, Iterations,\n"
    "Steps, Predicted); --json prints one JSON object per line and size, --csv FILE the CSV\n"
    "(docs/output.md). The memory budget is checked for the largest size before anything starts,\n"
    "and the links are calibrated with probes of the largest size.\n"
    "\n" CLI_SHARED_OPTIONS_HELP
    "  --sizes LIST       packet sizes in bytes (default " CLI_BENCH_DEFAULT_SIZES
    "): FROM:TO (doubling),\n"
    "                     FROM:TO:xF (factor F), FROM:TO:+S (step S) or a list A,B,C, increasing;\n"
    "                     K, M, G (or KiB, MiB, GiB) are powers of 1024; at most 256 sizes, up to "
    "1G\n"
    "  --topo 'A;B'       several topologies, separated by ';': one launch of the nodes each\n"
    "  --ports P,Q        several port models (multi,single): one launch each, for every topology\n"
    "  --iters N          measured repetitions per size (default 20; --reps N is the same)\n"
    "  --warmup N         unmeasured repetitions before each size (default 2)\n"
    "  --out FILE         also write the JSON lines to FILE\n" RUN_TRANSPORT_HELP "\n"
    "Exit status: 0 every size verified, 1 a size failed (the sizes before it are reported),\n"
    "2 bad input, 130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";

int cli_cmd_bench(int argc, char **argv)
{
    return cli_run_command("bench", bench_usage, argc, argv);
}
