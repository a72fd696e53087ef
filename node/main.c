/* stepnet-node: the command line of one network node (node/). Started by `stepnet run` on the
 * local machine, or by hand on any machine with --join HOST:PORT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"

static const char usage[] =
    "usage: stepnet-node --join HOST:PORT [options]\n"
    "\n"
    "One node of a stepnet network. It connects to the coordinator (stepnet run), receives its\n"
    "node id, its links and the run parameters, connects one TCP link per edge of the topology,\n"
    "prints 'LISTEN port=P' when it listens and 'READY id=N port=P' once its links are up, and\n"
    "runs collectives until the coordinator stops it.\n"
    "\n"
    "  --join HOST:PORT   the coordinator (`stepnet run --nodes join --listen HOST:PORT`)\n"
    "  --listen HOST      address to listen on for links (default 0.0.0.0; 127.0.0.1 with "
    "--local)\n"
    "  --advertise HOST   address the neighbours should dial (default: this host's address\n"
    "                     towards the coordinator)\n"
    "  --connect-timeout-ms MS   deadline for reaching the coordinator (default 10000)\n"
    "  --quiet            log failures only\n"
    "  --id N, --local    used by `stepnet run` when it spawns nodes itself\n"
    "\n"
    "Logs go to stderr, one line per event. Exit status: 0 after the coordinator stops the run,\n"
    "1 after a failure, 2 bad arguments.\n";

int main(int argc, char **argv)
{
    sn_node_opts_t o;
    memset(&o, 0, sizeof o);
    o.want_id = -1;
    o.connect_ms = 10000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--local") == 0) {
            o.local = 1;
            continue;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "stepnet-node: option %s needs a value; see --help\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--join") == 0 || strcmp(a, "--coordinator") == 0) {
            o.coordinator = v;
        } else if (strcmp(a, "--listen") == 0) {
            o.listen_host = v;
        } else if (strcmp(a, "--advertise") == 0) {
            o.advertise = v;
        } else if (strcmp(a, "--id") == 0 || strcmp(a, "--connect-timeout-ms") == 0) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end != '\0' || x < 0 || x > 1 << 30) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for %s: expected a non-negative "
                        "integer\n",
                        v, a);
                return 2;
            }
            if (a[2] == 'i')
                o.want_id = (int32_t) x;
            else
                o.connect_ms = (uint32_t) x;
        } else {
            fprintf(stderr, "stepnet-node: unknown option '%s'; see --help\n", a);
            return 2;
        }
    }
    if (o.coordinator == NULL) {
        fprintf(stderr, "stepnet-node: --join HOST:PORT is required; see --help\n");
        return 2;
    }
    return sn_node_main(&o);
}
