/* stepnet: the command line entry point (cli). Dispatches to the commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "generated/stepnet_version.h"

static const char usage[] =
    "Usage: stepnet COMMAND [options]\n"
    "\n"
    "stepnet runs, verifies and times collective communication algorithms on emulated\n"
    "interconnection networks.\n"
    "\n"
    "Commands:\n"
    "  model   predicted steps, lower bounds and the chosen algorithm (no run)\n"
    "  sim     run in this process with the slot simulator, every delivery verified\n"
    "  run     run over real TCP links between stepnet-node processes, timed and verified\n"
    "  bench   an OSU-style sweep of run over packet sizes in one launch (text, CSV, JSON)\n"
    "  export  write the schedule an algorithm plays as a schedule file (docs/schedule.md)\n"
    "  synth   the minimum number of slots, proven with a SAT solver, and its schedule\n"
    "  algos   list the algorithms, their collectives, port models and sources\n"
    "  table   the thesis reproduction table: formulas, predicted, simulated (and TCP) steps\n"
    "  keygen  create a cluster key file for join-mode runs (authenticated, encrypted links)\n"
    "\n"
    "Run 'stepnet COMMAND --help' for the options of a command.\n"
    "\n"
    "Options:\n"
    "  -h, --help     print this help and exit\n"
    "  --version      print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0 success (a run or simulation verified), 1 the collective failed or did not verify,\n"
    "  2 bad input (options, topology, algorithm).\n"
    "\n"
    "Examples:\n"
    "  stepnet run --topo torus:4x4 --coll te --ports single\n"
    "  stepnet sim --topo torus:4x4 --coll te --ports single\n"
    "  stepnet model --topo hypercube:6 --coll bcast --ports single --json\n";

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BADINPUT : EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("stepnet " SN_VERSION "\n");
        return EXIT_OK;
    }
    if (strcmp(argv[1], "model") == 0)
        return cli_cmd_model(argc - 2, argv + 2);
    if (strcmp(argv[1], "sim") == 0)
        return cli_cmd_sim(argc - 2, argv + 2);
    if (strcmp(argv[1], "export") == 0)
        return cli_cmd_export(argc - 2, argv + 2);
    if (strcmp(argv[1], "synth") == 0)
        return cli_cmd_synth(argc - 2, argv + 2);
    if (strcmp(argv[1], "algos") == 0)
        return cli_cmd_algos(argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0)
        return cli_cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0)
        return cli_cmd_bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "table") == 0)
        return cli_cmd_table(argc - 2, argv + 2);
    if (strcmp(argv[1], "keygen") == 0)
        return cli_cmd_keygen(argc - 2, argv + 2);
    fprintf(
        stderr,
        "stepnet: unknown command '%s'; commands: model, sim, export, synth, run, bench, algos, "
        "table, keygen "
        "(see "
        "--help)\n",
        argv[1]);
    return EXIT_BADINPUT;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    /* a report that did not reach stdout (a full disk, a closed pipe) is a failed command */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "stepnet: cannot write standard output: %s\n", strerror(errno));
        if (rc == EXIT_OK)
            rc = EXIT_FAILED;
    }
    return rc;
}
