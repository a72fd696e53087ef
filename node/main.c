/* stepnet-node: the command line of one network node (node/). Started by `stepnet run` on the
 * local machine, or by hand on any machine with --join HOST:PORT. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch_env.h"
#include "node.h"
#include "secure.h"
#include "stepnet_version.h"

static const char usage[] =
    "Usage: stepnet-node --join HOST:PORT [options]\n"
    "       stepnet-node --serve --listen HOST:PORT --key FILE [options]\n"
    "\n"
    "One node of a stepnet network. It connects to the coordinator (stepnet run), receives its\n"
    "node id, its links and the run parameters, connects one TCP link per edge of the topology,\n"
    "prints 'LISTEN port=P' when it listens and 'READY id=N port=P' once its links are up, and\n"
    "runs collectives until the coordinator stops it. Logs go to stderr, one line per event.\n"
    "\n"
    "Options:\n"
    "  --join HOST:PORT   the coordinator (`stepnet run --nodes join --listen HOST:PORT`); HOST\n"
    "                     is a host name, an IPv4 address or an [IPv6] address\n"
    "  --listen HOST      address to listen on for links (default 0.0.0.0; 127.0.0.1 with "
    "--local)\n"
    "  --advertise HOST   address the neighbours should dial (default: this host's address\n"
    "                     towards the coordinator); --listen and --advertise take a host name,\n"
    "                     an IPv4 or an IPv6 address\n"
    "  --key FILE         the cluster key (from `stepnet keygen`; mode 0600): every connection\n"
    "                     is authenticated and encrypted with it\n"
    "  --key-fd N         read the key from descriptor N (`stepnet run` hands local nodes a pipe)\n"
    "  --security MODE    sodium (default) or none: plaintext, unauthenticated links for raw\n"
    "                     measurements; with --join it also needs --insecure-ok\n"
    "  --insecure-ok      accept --security none in join mode\n"
    "  --connect-timeout-ms MS   deadline for reaching the coordinator, and for every handshake\n"
    "                     (default 10000)\n"
    "  --quiet            log failures only\n"
    "  --id N             ask the coordinator for node id N (it refuses an id out of range or\n"
    "                     taken); without --id, join-mode nodes get ids in the order they join;\n"
    "                     with --serve, the id of this daemon's node in every run (default: its\n"
    "                     position in `stepnet run --nodes`)\n"
    "  --id auto          the rank the job launcher gives this process: the first of\n"
    "                     " SN_LAUNCH_ENV_VARS " that is set\n"
    "                     (mpirun -np N stepnet-node --join HOST:PORT --key K --id auto)\n"
    "  --stdin-session    started over ssh by `stepnet run --hosts`: the first line of standard\n"
    "                     input is the cluster key (unless --security none), and the node\n"
    "                     leaves when standard input closes (the ssh session ended)\n"
    "  --local            used by `stepnet run` when it spawns nodes itself\n"
    "  --wire-version N   testing: announce protocol version N (1 to 1000) instead of this\n"
    "                     program's, to test the coordinator's refusal of other versions\n"
    "  --serve            persistent daemon (like iperf3 -s): listen on --listen HOST:PORT (port\n"
    "                     0: any, printed as 'SERVE port=P') and serve one run after another;\n"
    "                     `stepnet run --nodes HOST:PORT,...` invites it, and it starts one node\n"
    "                     process per run that joins the coordinator (docs/deploy.md). Runs\n"
    "                     until SIGINT or SIGTERM\n"
    "  --port-range LO-HI listen for links on the first free port from LO to HI (for a\n"
    "                     firewall); with --serve, for the links of every run\n"
    "  -h, --help         print this help and exit\n"
    "  --version          print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0 after the coordinator stops the run, 1 after a failure, 2 bad arguments; with --serve,\n"
    "  0 after SIGINT or SIGTERM, 1 when it cannot listen.\n";

/* A decimal integer from lo to hi, all of `v` (no sign, spaces or trailing text). */
static int parse_long(const char *v, long lo, long hi, long *out)
{
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

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
        } else if (strcmp(a, "--stdin-session") == 0) {
            o.stdin_session = 1;
            continue;
        } else if (strcmp(a, "--serve") == 0) {
            o.serve = 1;
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
        } else if (strcmp(a, "--port-range") == 0) {
            if (sn_addr_parse_range(v, &o.port_lo, &o.port_hi, NULL) < 0) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for --port-range: expected LO-HI with 1 <= "
                        "LO <= HI <= 65535 (e.g. 7000-7099)\n",
                        v);
                return 2;
            }
        } else if (strcmp(a, "--key-fd") == 0) {
            long x;
            if (parse_long(v, 3, 1 << 20, &x) < 0) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for --key-fd: expected a descriptor "
                        "number from 3 to %d\n",
                        v, 1 << 20);
                return 2;
            }
            key_fd = (int) x;
        } else if (strcmp(a, "--id") == 0 && strcmp(v, "auto") == 0) {
            sn_err_t e = {0};
            const char *var;
            if (sn_launch_env_rank(getenv, &o.want_id, &var, &e) < 0) {
                fprintf(stderr, "stepnet-node: %s\n", e.msg);
                return 2;
            }
        } else if (strcmp(a, "--wire-version") == 0) {
            long x;
            if (parse_long(v, 1, 1000, &x) < 0) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for --wire-version: expected an integer "
                        "from 1 to 1000\n",
                        v);
                return 2;
            }
            o.wire_version = (uint32_t) x;
        } else if (strcmp(a, "--id") == 0 || strcmp(a, "--connect-timeout-ms") == 0) {
            long x;
            if (parse_long(v, 0, 1 << 30, &x) < 0) {
                fprintf(stderr,
                        "stepnet-node: bad value '%s' for %s: expected an integer from 0 to "
                        "%d%s\n",
                        v, a, 1 << 30, a[2] == 'i' ? ", or auto" : "");
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
    if (o.serve) {
        /* a daemon: --listen is its own HOST:PORT; the nodes it starts join the coordinators */
        sn_addr_t sa;
        if (o.coordinator || o.local) {
            fprintf(stderr, "stepnet-node: --serve takes no --join or --local: the coordinator "
                            "invites the daemon (stepnet run --nodes HOST:PORT,...)\n");
            return 2;
        }
        if (o.listen_host == NULL || sn_addr_parse(o.listen_host, -1, &sa, NULL) < 0) {
            fprintf(stderr,
                    "stepnet-node: bad value '%s' for --listen: --serve needs --listen HOST:PORT "
                    "(an IPv4 address, an [IPv6] address or a host name, and a port; 0: any)\n",
                    o.listen_host ? o.listen_host : "(none)");
            return 2;
        }
        o.serve_listen = o.listen_host;
        o.listen_host = NULL;
        static char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            self[n] = '\0';
        o.node_bin = n > 0 ? self : argv[0];
        o.coordinator = "";
    } else if (o.coordinator == NULL) {
        fprintf(stderr, "stepnet-node: --join HOST:PORT is required; see --help\n");
        return 2;
    }
    /* the addresses' forms are checked here (exit 2); host names are resolved at start-up */
    sn_addr_t addr;
    sn_err_t err = {0};
    if (!o.serve && (sn_addr_parse(o.coordinator, -1, &addr, &err) < 0 || addr.port == 0)) {
        fprintf(stderr,
                "stepnet-node: bad value '%s' for --join: expected HOST:PORT (an IPv4 address, "
                "an [IPv6] address or a host name, and a port from 1 to 65535)\n",
                o.coordinator);
        return 2;
    }
    if (o.listen_host && sn_node_parse_host(o.listen_host, &addr, &err) < 0) {
        fprintf(stderr, "stepnet-node: --listen: %s\n", err.msg);
        return 2;
    }
    if (o.port_lo && o.listen_host && addr.port != 0) {
        fprintf(stderr,
                "stepnet-node: --port-range and --listen %s both choose the link port: give "
                "--listen without a port\n",
                o.listen_host);
        return 2;
    }
    if (o.advertise && sn_node_parse_host(o.advertise, &addr, &err) < 0) {
        fprintf(stderr, "stepnet-node: --advertise: %s\n", err.msg);
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
    if (o.stdin_session && (key_file || key_fd >= 0)) {
        fprintf(stderr, "stepnet-node: --stdin-session reads the key from standard input; it "
                        "takes no --key or --key-fd\n");
        return 2;
    }
    if (o.stdin_session) {
        char kerr[512];
        sn_key_t *key = sn_key_new_line(0, kerr, sizeof kerr);
        if (key == NULL) {
            fprintf(stderr, "stepnet-node: %s\n", kerr);
            return 2;
        }
        o.key = key;
        int rc = sn_node_main(&o);
        sn_key_free(key);
        return rc;
    }
    if ((key_file == NULL) == (key_fd < 0)) {
        fprintf(stderr, "stepnet-node: give the cluster key with exactly one of --key FILE (from "
                        "stepnet keygen) or --key-fd N, or run with --security none "
                        "--insecure-ok\n");
        return 2;
    }
    char kerr[512];
    sn_key_t *key = sn_key_new(key_file, key_fd, kerr, sizeof kerr);
    if (key == NULL) {
        fprintf(stderr, "stepnet-node: %s\n", kerr);
        return 2;
    }
    o.key = key;
    int rc = sn_node_main(&o);
    sn_key_free(key);
    return rc;
}
