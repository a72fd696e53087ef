/* stepnet: the command line entry point (cli). The table of the commands (commands.c: name, the
 * line --help shows, entry function) gives the help's command list and the dispatch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "stepnet/util.h"
#include "cli/cli.h"
#include "generated/stepnet_version.h"

static const char usage_head[] =
    "Usage: stepnet COMMAND [options]\n"
    "\n"
    "stepnet runs, verifies and times collective communication algorithms on emulated\n"
    "interconnection networks.\n"
    "\n"
    "Commands:\n";

static const char usage_tail[] =
    "\n"
    "Run 'stepnet COMMAND --help' for the options of a command.\n"
    "\n"
    "Options:\n"
    "  -h, --help     print this help and exit\n"
    "  --version      print the version and exit\n"
    "\n"
    "Topologies (--topo SPEC):\n"
    "  linear:N, ring:N    the linear array L_N and the ring R_N\n"
    "  ering:N:RHO         the extended ring E_N^RHO: i ~ i+-1 .. i+-RHO, 1 <= RHO <= N/2\n"
    "  circulant:N:J1,J2,...  jumps +-J1, +-J2, ... around N nodes (connected)\n"
    "  complete:N          the complete graph K_N\n"
    "  mesh:AxB[xC...]     a d-dimensional array; torus:AxB[xC...] with wrap-around\n"
    "  hypercube:D         Q_D; foldedcube:D adds the complement links\n"
    "  ccc:D, butterfly:D, star:N   cube-connected cycles, the wrapped butterfly, the star\n"
    "                      graph (N <= 9)\n"
    "  fattree:K:H[:const|exp|C1,...,CH]   the complete K-ary fat tree of height H: leaves\n"
    "                      are processors, inner nodes routers; C_i parallel links per level-i\n"
    "                      branch (exp: K^(i-1), const: 1)\n"
    "  file:PATH           any connected graph: a 'U V' edge per line (ids from 0), # comments,\n"
    "                      'router N' lines\n"
    "  S1*S2*...           the Cartesian product of specs without routers, e.g.\n"
    "                      'ering:7:2*ring:5' (quote it from the shell)\n"
    "\n"
    "Exit status:\n"
    "  0 success (a run or simulation verified), 1 the collective failed or did not verify,\n"
    "  2 bad input (options, topology, algorithm).\n"
    "\n"
    "Examples:\n"
    "  stepnet run --topo torus:4x4 --coll te --ports single\n"
    "  stepnet sim --topo torus:4x4 --coll te --ports single\n"
    "  stepnet model --topo hypercube:6 --coll bcast --ports single --json\n";

static void print_usage(FILE *f)
{
    fputs(usage_head, f);
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(f, "  %-8s%s\n", cli_commands[i].name, cli_commands[i].summary);
    fputs(usage_tail, f);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BADINPUT : EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("stepnet " SN_VERSION "\n");
        return EXIT_OK;
    }
    for (size_t i = 0; i < cli_ncommands; i++)
        if (strcmp(argv[1], cli_commands[i].name) == 0)
            return cli_commands[i].run(argc - 2, argv + 2);
    /* This message has listed the commands in its own order since before the table; a test
     * (tests/unit/test_cli_main.c) keeps it naming exactly the table's commands. */
    const char *names[32];
    for (size_t i = 0; i < cli_ncommands && i < 32; i++)
        names[i] = cli_commands[i].name;
    const char *near =
        sn_suggest(argv[1], strlen(argv[1]), names, cli_ncommands < 32 ? cli_ncommands : 32);
    if (near)
        fprintf(stderr, "stepnet: unknown command '%s': did you mean %s? ", argv[1], near);
    else
        fprintf(stderr, "stepnet: unknown command '%s'; ", argv[1]);
    fprintf(stderr, "commands: model, sim, export, synth, run, bench, algos, table, keygen (see "
                    "--help)\n");
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
