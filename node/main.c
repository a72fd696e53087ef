/* stepnet-node: the command line of one network node (node/). Started by `stepnet run` on the
 * local machine, or by hand on any machine with --join HOST:PORT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "secure.h"
#include "stepnet_version.h"

static const char usage[] =
    "Usage: stepnet-node --join HOST:PORT [options]\n"
    "\n"
    "One node of a stepnet network. It connects to the coordinator (stepnet run), receives its\n"
    "node id, its links and the run parameters, connects one TCP link per edge of the topology,\n"
    "prints 'LISTEN port=P' when it listens and 'READY id=N port=P' once its links are up, and\n"
    "runs collectives until the coordinator stops it. Logs go to stderr, one line per event.\n"
    "\n"
    "Options:\n"
    "  --join HOST:PORT   the coordinator (`stepnet run --nodes join --listen HOST:PORT`)\n"
    "  --listen HOST      address to listen on for links (default 0.0.0.0; 127.0.0.1 with "
    "--local)\n"
    "  --advertise HOST   address the neighbours should dial (default: this host's address\n"
    "                     towards the coordinator)\n"
    "  --key FILE         the cluster key (from `stepnet keygen`; mode 0600): every connection\n"
    "                     is authenticated and encrypted with it\n"
    "  --key-fd N         read the key from descriptor N (`stepnet run` hands local nodes a pipe)\n"
    "  --security MODE    sodium (default) or none: plaintext, unauthenticated links for raw\n"
    "                     measurements; with --join it also needs --insecure-ok\n"
    "  --insecure-ok      accept --security none in join mode\n"
    "  --connect-timeout-ms MS   deadline for reaching the coordinator, and for every handshake\n"
    "                     (default 10000)\n"
    "  --quiet            log failures only\n"
    "  --id N, --local    used by `stepnet run` when it spawns nodes itself\n"
    "  -h, --help         print this help and exit\n"
    "  --version          print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0 after the coordinator stops the run, 1 after a failure, 2 bad arguments.\n";

int main(int argc, char **argv)
{
    sn_node_opts_t o;
    memset(&o, 0, sizeof o);
    o.want_id = -1;
    o.connect_ms = 10000;
    o.security = SN_SEC_SODIUM;
    const char *key_file = NULL, *security = "sodium";
    int key_fd = -1, insecure_ok = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("stepnet-node " SN_VERSION "\n");
            return 0;
        } else if (strcmp(a, "--local") == 0) {
            o.local = 1;
            continue;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = 1;
            continue;
        } else if (strcmp(a, "--insecure-ok") == 0) {
            insecure_ok = 1;
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
        } else if (strcmp(a, "--key") == 0) {
            key_file = v;
        } else if (strcmp(a, "--security") == 0) {
            security = v;
        } else if (strcmp(a, "--key-fd") == 0) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end != '\0' || x < 3 || x > 1 << 20) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for --key-fd: expected a descriptor "
                        ">= 3\n",
                        v);
                return 2;
            }
            key_fd = (int) x;
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
    if (strcmp(security, "none") == 0) {
        o.security = SN_SEC_NONE;
    } else if (strcmp(security, "sodium") != 0) {
        fprintf(stderr, "stepnet-node: bad value '%s' for --security: expected sodium or none\n",
                security);
        return 2;
    }
    if (o.security == SN_SEC_NONE) {
        if (!o.local && !insecure_ok) {
            fprintf(stderr, "stepnet-node: --security none sends plaintext, unauthenticated frames "
                            "over the network; add --insecure-ok to accept that in join mode\n");
            return 2;
        }
        if (key_file || key_fd >= 0) {
            fprintf(stderr, "stepnet-node: --security none takes no key\n");
            return 2;
        }
        return sn_node_main(&o);
    }
    if ((key_file == NULL) == (key_fd < 0)) {
        fprintf(stderr, "stepnet-node: give the cluster key with exactly one of --key FILE (from "
                        "stepnet keygen) or --key-fd N, or run with --security none "
                        "--insecure-ok\n");
        return 2;
    }
    char err[512];
    sn_key_t *key = sn_key_new(key_file, key_fd, err, sizeof err);
    if (key == NULL) {
        fprintf(stderr, "stepnet-node: %s\n", err);
        return 2;
    }
    o.key = key;
    int rc = sn_node_main(&o);
    sn_key_free(key);
    return rc;
}
