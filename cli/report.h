/* Shared pieces of the stepnet reports (cli): the fields every JSON object starts with,
 * the bounds, and the human-readable header. */
#ifndef STEPNET_CLI_REPORT_H
#define STEPNET_CLI_REPORT_H

#include "cli/cli.h"
#include "cli/json.h"

/* "" or "s": "1 step", "4 steps". */
static inline const char *cli_plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* cmd, topology, nodes, processors, links, collective, ports, rx, duplex, root, msgs, size, seed,
 * algorithm, predicted_steps, lower_bound, bounds */
void cli_report_json_head(cli_json_t *j, const char *cmd, const cli_ctx_t *c);

/* The header lines of the human-readable report. */
void cli_report_text_head(FILE *f, const char *cmd, const cli_ctx_t *c);

#endif
