/* What a run's report says about itself (cli): the launch mode and hosts, and the warnings when
 * the measured times are far from the prediction or the machine is busy. See caveat.h. */
#define _DEFAULT_SOURCE /* getloadavg (glibc; not in POSIX) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/caveat.h"

/* The distinct non-empty host names among the nodes' hellos. */
static uint32_t count_hosts(const sn_coord_result_t *res)
{
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < res->nhosts; i++) {
        const char *name = res->hosts[i].name;
        if (name[0] == '\0')
            continue;
        uint32_t j = 0;
        while (j < i && strcmp(res->hosts[j].name, name) != 0)
            j++;
        distinct += j == i;
    }
    return distinct;
}

const char *cli_caveat_launch_text(const sn_coord_opts_t *o, const sn_coord_result_t *res,
                                   uint32_t n, char *buf, size_t cap)
{
    uint32_t hosts = res == NULL ? 0 : res->ssh_hosts ? res->ssh_hosts : count_hosts(res);
    char on[48] = "";
    if (hosts > 0)
        snprintf(on, sizeof on, " on %u host%s", hosts, hosts == 1 ? "" : "s");
    if (o->hosts)
        snprintf(buf, cap, "%u processes%s over ssh", n, on);
    else if (o->join)
        snprintf(buf, cap, "%u joined processes%s", n, on);
    else if (o->daemons)
        snprintf(buf, cap, "%u daemon processes%s", n, on);
    else
        snprintf(buf, cap, "%u local processes", n);
    return buf;
}

int cli_caveat_decide(double measured_us, double predicted_us, double load1, long cores)
{
    int bits = 0;
    if (predicted_us > 0 && measured_us >= 0) {
        double ratio = measured_us / predicted_us;
        if (ratio < CLI_CAVEAT_RATIO_LO || ratio > CLI_CAVEAT_RATIO_HI)
            bits |= CLI_CAVEAT_FAR;
    }
    if (load1 >= 0 && cores > 0 && load1 > (double) cores)
        bits |= CLI_CAVEAT_BUSY;
    return bits;
}

void cli_caveat_machine(double *load1, long *cores)
{
    double l[1];
    *load1 = getloadavg(l, 1) == 1 ? l[0] : -1.0;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    *cores = c > 0 ? c : 0;
}

void cli_caveat_text(FILE *f, const char *lead, int bits, double ratio, const char *where,
                     double load1, long cores)
{
    if (bits & CLI_CAVEAT_FAR)
        fprintf(f,
                "%smeasured/predicted %.2f%s%s%s, outside %.2f-%.2f: the prediction is the time "
                "model fed by this run's link calibration, so the run met what the calibration did "
                "not see (a busy machine, other traffic, a shaped link) or the model does not fit "
                "this collective\n",
                lead, ratio, where ? " (" : "", where ? where : "", where ? ")" : "",
                CLI_CAVEAT_RATIO_LO, CLI_CAVEAT_RATIO_HI);
    if (bits & CLI_CAVEAT_BUSY)
        fprintf(f,
                "%sload average %.2f on %ld cores: the machine was busy, which inflates every "
                "measured time; measure again on an idle machine before trusting them\n",
                lead, load1, cores);
}
