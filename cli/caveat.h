/* What a run's report says about itself (cli): how its nodes were launched and on how many hosts,
 * and the warnings that tell a reader when the measured times should not be taken at face value
 * (far from the time model's prediction, or measured on a busy machine). The decisions are pure
 * functions of their inputs, unit-tested in tests/unit/test_caveat.c; only cli_caveat_machine
 * reads the machine. The wording is documented in docs/output.md. */
#ifndef STEPNET_CLI_CAVEAT_H
#define STEPNET_CLI_CAVEAT_H

#include <stddef.h>
#include <stdio.h>

#include "coordinator/coord.h"

/* measured / predicted outside [LO, HI] earns a warning: the time model was within this band in
 * every run on a lightly loaded machine, so outside it the run or the machine is unusual. */
#define CLI_CAVEAT_RATIO_LO 0.75
#define CLI_CAVEAT_RATIO_HI 1.25

/* The bits of cli_caveat_decide. */
#define CLI_CAVEAT_FAR  1 /* measured / predicted outside [CLI_CAVEAT_RATIO_LO, _HI] */
#define CLI_CAVEAT_BUSY 2 /* the 1-minute load average exceeds the cores */

/* How the n nodes of a run were started, for the report: "16 local processes", "16 processes on 4
 * hosts over ssh", "16 joined processes on 3 hosts", "16 daemon processes on 4 hosts" (the hosts:
 * over ssh, those given nodes; else the distinct names the nodes gave in their hellos; without
 * any, none is said). Into
 * buf (always terminated); returns buf. */
const char *cli_caveat_launch_text(const sn_coord_opts_t *o, const sn_coord_result_t *res,
                                   uint32_t n, char *buf, size_t cap);

/* Which warnings a measurement earns: CLI_CAVEAT_FAR when predicted_us > 0 and measured_us /
 * predicted_us is outside the band; CLI_CAVEAT_BUSY when load1 (negative: unknown) exceeds cores
 * (0 or less: unknown). 0 when neither. */
int cli_caveat_decide(double measured_us, double predicted_us, double load1, long cores);

/* The 1-minute load average (-1 when getloadavg fails) and the online cores (0 when unknown). */
void cli_caveat_machine(double *load1, long *cores);

/* Writes the warning lines `bits` (cli_caveat_decide) calls for, each starting with `lead`
 * ("  warning         " in the run report, "# warning: " in bench's): "measured/predicted R
 * (WHERE), outside 0.75-1.25: ..." and "load average L on C cores: ...", each saying what it means.
 * `ratio` is measured / predicted; `where` (NULL: none) says what was measured ("p50 wall time").
 */
void cli_caveat_text(FILE *f, const char *lead, int bits, double ratio, const char *where,
                     double load1, long cores);

#endif
