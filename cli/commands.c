/* The commands of stepnet (cli): one table, which main.c dispatches on and --help lists, and which
 * an unknown option is looked up in ("--reps is an option of run and bench"). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const cli_command_t cli_commands[] = {
    {"model", "predicted steps, lower bounds and the chosen algorithm (no run)", cli_cmd_model,
     cli_help_model},
    {"sim", "run in this process with the slot simulator, every delivery verified", cli_cmd_sim,
     cli_help_sim},
    {"run", "run over real TCP links between stepnet-node processes, timed and verified",
     cli_cmd_run, cli_help_run},
    {"bench", "an OSU-style sweep of run over packet sizes in one launch (text, CSV, JSON)",
     cli_cmd_bench, cli_help_bench},
    {"export", "write the schedule an algorithm plays as a schedule file (docs/schedule.md)",
     cli_cmd_export, cli_help_export},
    {"synth", "the minimum number of slots, proven with a SAT solver, and its schedule",
     cli_cmd_synth, cli_help_synth},
    {"algos", "list the algorithms, their collectives, port models and sources", cli_cmd_algos,
     cli_help_algos},
    {"table", "the thesis reproduction table: formulas, predicted, simulated (and TCP) steps",
     cli_cmd_table, cli_help_table},
    {"keygen", "create a cluster key file for join-mode runs (authenticated, encrypted links)",
     cli_cmd_keygen, NULL},
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

/* 1 when a line of a --help layout names option `name`: a word of the line (split at blanks and
 * '|', as in "--coll dynbcast --lambda L|--rho R --slots T") that is it. */
static int line_names(const char *line, const char *name, size_t len)
{
    for (const char *q = line; *q;) {
        size_t w = strcspn(q, " |");
        if (w == len && strncmp(q, name, len) == 0)
            return 1;
        q += w;
        q += strspn(q, " |");
    }
    return 0;
}

const char *cli_commands_with(const char *name, size_t len, const sn_help_t *self, char *buf,
                              size_t cap)
{
    const char *found[16];
    size_t n = 0;
    for (size_t i = 0; i < cli_ncommands && n < sizeof found / sizeof *found; i++) {
        const sn_help_t *h = cli_commands[i].help ? cli_commands[i].help() : NULL;
        int has = 0;
        for (; h && h != self && (h->text || h->lines) && !has; h++)
            for (size_t k = 0; h->lines && h->lines[k] && !has; k++)
                has = line_names(h->lines[k], name, len);
        if (has)
            found[n++] = cli_commands[i].name;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t) snprintf(buf + used, cap - used, "%s%s",
                                  i == 0       ? ""
                                  : i + 1 == n ? " and "
                                               : ", ",
                                  found[i]);
    return buf;
}
