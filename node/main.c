/* stepnet-node: the command line of one network node (node/). Started by `stepnet run` on the
 * local machine, or by hand on any machine with --join HOST:PORT. main parses the options
 * (proc/opts.c), checks their combinations, loads the key and runs the node or the daemon; every
 * bad argument is one line on stderr and exit status 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generated/stepnet_version.h"
#include "net/secure.h"
#include "node/node.h"
#include "proc/fdlimit.h"
#include "proc/opts.h"
#include "proc/rank_env.h"

static const char usage_head[] =
    "Usage: stepnet-node --join HOST:PORT [options]\n"
    "       stepnet-node --serve --listen HOST:PORT --key FILE [options]\n"
    "\n"
    "One node of a stepnet network. It connects to the coordinator (stepnet run), receives its\n"
    "node id, its links and the run parameters, connects one TCP link per edge of the topology,\n"
    "prints 'LISTEN port=P' when it listens and 'READY id=N port=P' once its links are up, and\n"
    "runs collectives until the coordinator stops it. Logs go to stderr, one line per event.\n"
    "\n"
    "Options:\n";
static const char usage_tail[] =
    "\n"
    "Exit status:\n"
    "  0 after the coordinator stops the run, 1 after a failure, 2 bad arguments; with --serve,\n"
    "  0 after SIGINT or SIGTERM, 1 when it cannot listen, 2 when --log-file or --pid-file is\n"
    "  refused.\n";
/* --help: the prose around the lines of the option table (parse). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines =
         (const char *const[]){
             "--join",     "--listen",       "--advertise",   "--key",
             "--key-fd",   "--security",     "--insecure-ok", "--connect-timeout-ms",
             "--quiet",    "--id",           "--id auto",     "--stdin-session",
             "--local",    "--wire-version", "--serve",       "--log-file",
             "--pid-file", "--port-range",   "-h, --help",    "--version",
             NULL},
     .col = 21},
    {.text = usage_tail},
    {0},
};

/* The command line: the node's options and what is only needed to fill them in. */
typedef struct args_s {
    sn_node_opts_t o;
    const char *key_file, *security;
    int64_t key_fd, connect_ms, wire_version;
    int insecure_ok, help, version;
} args_t;

/* --id auto|N: the launcher's rank, or N. */
static int opt_id(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    int32_t *want = opt->ctx;
    int64_t x;
    const char *var;
    if (strcmp(v, "auto") == 0)
        return sn_rank_env_read(getenv, want, &var, err);
    if (sn_opts_int(opt->name, v, 0, 1 << 30, NULL, &x, err) < 0)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for %s: expected an integer from 0 to %d, or auto", v,
                          opt->name, 1 << 30);
    *want = (int32_t) x;
    return 0;
}

/* --port-range LO-HI. */
static int opt_port_range(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    sn_node_opts_t *o = opt->ctx;
    if (sn_addr_parse_range(v, &o->port_lo, &o->port_hi, NULL) < 0)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for --port-range: expected LO-HI with 1 <= LO <= HI <= "
                          "65535 (e.g. 7000-7099)",
                          v);
    return 0;
}

/* This program's options for the parameters the coordinator's messages refer to (a refused
 * --id); NULL for the others, which keep their concept names. */
static const char *param_name(sn_param_t param)
{
    switch (param) {
    case SN_PARAM_NODE_ID:
        return "--id";
    case SN_PARAM_NODE_JOIN:
        return "--join";
    case SN_PARAM_LISTEN:
        return "--listen";
    case SN_PARAM_PORT_RANGE:
        return "--port-range";
    case SN_PARAM_KEY:
        return "--key";
    default:
        return NULL;
    }
}

/* Reads the command line (after the program name) into a, defaults first; prints the help after
 * --help. 0, SN_OPTS_STOP after --help or --version, or SN_EINVAL with err. */
static int parse(int argc, char **argv, args_t *a, sn_err_t *err)
{
    memset(a, 0, sizeof *a);
    sn_node_opts_t *o = &a->o;
    o->name_param = param_name;
    o->want_id = -1;
    o->security = SN_SEC_SODIUM;
    a->security = "sodium";
    a->key_fd = -1;
    a->connect_ms = 10000;
    /* The layout `usage` lists their lines in --help; the table keeps its own order, which
     * decides between equally near options when the parser suggests one (sn_opts_suggest). */
    const sn_opt_t table[] = {
        {.name = "--help", .kind = SN_OPT_STOP, .flag = &a->help, .help = SN_OPT_UNLISTED},
        {.name = "-h", .kind = SN_OPT_STOP, .flag = &a->help, .help = SN_OPT_UNLISTED},
        {.name = "-h, --help", .kind = SN_OPT_DOC, .help = "print this help and exit"},
        {.name = "--version",
         .kind = SN_OPT_STOP,
         .flag = &a->version,
         .help = "print the version and exit"},
        {.name = "--local",
         .kind = SN_OPT_FLAG,
         .flag = &o->local,
         .help = "used by `stepnet run` when it spawns nodes itself"},
        {.name = "--quiet", .kind = SN_OPT_FLAG, .flag = &o->quiet, .help = "log failures only"},
        {.name = "--insecure-ok",
         .kind = SN_OPT_FLAG,
         .flag = &a->insecure_ok,
         .help = "accept --security none in join mode"},
        {.name = "--stdin-session",
         .kind = SN_OPT_FLAG,
         .flag = &o->stdin_session,
         .help = "started over ssh by `stepnet run --hosts`: the first line of standard\n"
                 "input is the cluster key (unless --security none), and the node\n"
                 "leaves when standard input closes (the ssh session ended)"},
        {.name = "--serve",
         .kind = SN_OPT_FLAG,
         .flag = &o->serve,
         .help = "persistent daemon (like iperf3 -s): listen on --listen HOST:PORT (port\n"
                 "0: any, printed as 'SERVE port=P') and serve one run after another;\n"
                 "`stepnet run --nodes HOST:PORT,...` invites it, and it starts one node\n"
                 "process per run that joins the coordinator (docs/deploy.md). Runs\n"
                 "until SIGINT or SIGTERM"},
        {.name = "--join",
         .kind = SN_OPT_STR,
         .str = &o->coordinator,
         .arg = "HOST:PORT",
         .help = "the coordinator (`stepnet run --nodes join --listen HOST:PORT`); HOST\n"
                 "is a host name, an IPv4 address or an [IPv6] address"},
        {.name = "--coordinator",
         .kind = SN_OPT_STR,
         .str = &o->coordinator,
         .help = SN_OPT_UNLISTED /* the older name of --join */},
        {.name = "--listen",
         .kind = SN_OPT_STR,
         .str = &o->listen_host,
         .arg = "HOST",
         .help = "address to listen on for links (default: the address announced to\n"
                 "the neighbours, this host's address towards the coordinator; with\n"
                 "--advertise, 0.0.0.0 or :: by its family; the coordinator's host\n"
                 "with --local)"},
        {.name = "--advertise",
         .kind = SN_OPT_STR,
         .str = &o->advertise,
         .arg = "HOST",
         .help = "address the neighbours should dial (default: this host's address\n"
                 "towards the coordinator); --listen and --advertise take a host name,\n"
                 "an IPv4 or an IPv6 address"},
        {.name = "--key",
         .kind = SN_OPT_STR,
         .str = &a->key_file,
         .arg = "FILE",
         .help = "the cluster key (from `stepnet keygen`; mode 0600): every connection\n"
                 "is authenticated and encrypted with it"},
        {.name = "--security",
         .kind = SN_OPT_STR,
         .str = &a->security,
         .arg = "MODE",
         .help = "sodium (default) or none: plaintext, unauthenticated links for raw\n"
                 "measurements; with --join it also needs --insecure-ok"},
        {.name = "--log-file",
         .kind = SN_OPT_STR,
         .str = &o->log_file,
         .arg = "FILE",
         .help = "with --serve: append the daemon's log, and its node processes', to\n"
                 "FILE instead of stderr (created mode 0640); SIGHUP reopens it, for\n"
                 "logrotate. A FILE that cannot be opened for appending: exit 2"},
        {.name = "--pid-file",
         .kind = SN_OPT_STR,
         .str = &o->pid_file,
         .arg = "FILE",
         .help = "with --serve: write the daemon's pid to FILE once it listens, and\n"
                 "remove it at exit; exit 2 when FILE holds the pid of a running\n"
                 "stepnet-node or is not a pid file (a stale one is taken over)"},
        {.name = "--port-range",
         .kind = SN_OPT_FN,
         .fn = opt_port_range,
         .ctx = o,
         .arg = "LO-HI",
         .help = "listen for links on the first free port from LO to HI (for a\n"
                 "firewall); with --serve, for the links of every run"},
        {.name = "--key-fd",
         .kind = SN_OPT_INT,
         .num = &a->key_fd,
         .lo = 3,
         .hi = 1 << 20,
         .unit = "a descriptor number",
         .arg = "N",
         .help = "read the key from descriptor N (`stepnet run` hands local nodes a pipe)"},
        {.name = "--id",
         .kind = SN_OPT_FN,
         .fn = opt_id,
         .ctx = &o->want_id,
         .arg = "N",
         .help = "ask the coordinator for node id N (it refuses an id out of range or\n"
                 "taken); without --id, join-mode nodes get ids in the order they join;\n"
                 "with --serve, the id of this daemon's node in every run (default: its\n"
                 "position in `stepnet run --nodes`)"},
        {.name = "--id",
         .kind = SN_OPT_DOC,
         .arg = "auto",
         .help = "the rank the job launcher gives this process: the first of\n" SN_RANK_ENV_VARS
                 " that is set\n"
                 "(mpirun -np N stepnet-node --join HOST:PORT --key K --id auto)"},
        {.name = "--wire-version",
         .kind = SN_OPT_INT,
         .num = &a->wire_version,
         .lo = 1,
         .hi = 1000,
         .arg = "N",
         .help = "testing: announce protocol version N (1 to 1000) instead of this\n"
                 "program's, to test the coordinator's refusal of other versions"},
        {.name = "--connect-timeout-ms",
         .kind = SN_OPT_INT,
         .num = &a->connect_ms,
         .lo = 0,
         .hi = 1 << 30,
         .arg = "MS",
         .help = "deadline for reaching the coordinator, and for every handshake\n"
                 "(default 10000)",
         .col = 28},
        {0},
    };
    int rc = sn_opts_parse(argc, argv, table, err);
    o->connect_ms = (uint32_t) a->connect_ms;
    o->wire_version = (uint32_t) a->wire_version;
    if (rc == SN_OPTS_STOP && a->help && (rc = sn_opts_help(stdout, usage, table, NULL, err)) == 0)
        return SN_OPTS_STOP;
    return rc;
}

/* --serve: --listen is the daemon's own HOST:PORT; the nodes it starts join the coordinators. */
static int check_serve(args_t *a, const char *argv0, sn_err_t *err)
{
    sn_node_opts_t *o = &a->o;
    sn_addr_t sa;
    if (o->coordinator || o->local)
        return sn_err_set(err, SN_EINVAL,
                          "--serve takes no --join or --local: the coordinator invites the daemon "
                          "(stepnet run --nodes HOST:PORT,...)");
    if (o->listen_host == NULL || sn_addr_parse(o->listen_host, -1, &sa, NULL) < 0)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for --listen: --serve needs --listen HOST:PORT (an IPv4 "
                          "address, an [IPv6] address or a host name, and a port; 0: any)",
                          o->listen_host ? o->listen_host : "(none)");
    o->serve_listen = o->listen_host;
    o->listen_host = NULL;
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    o->node_bin = n > 0 ? self : argv0;
    o->coordinator = "";
    return 0;
}

/* The combinations of options, and the forms of the addresses (host names are resolved at
 * start-up). 0, or SN_EINVAL with err. */
static int check(args_t *a, const char *argv0, sn_err_t *err)
{
    sn_node_opts_t *o = &a->o;
    sn_addr_t addr;
    sn_err_t e = {0};
    if (o->serve && check_serve(a, argv0, err) < 0)
        return SN_EINVAL;
    if (!o->serve && (o->log_file || o->pid_file))
        return sn_err_set(err, SN_EINVAL,
                          "%s %s is for the daemon (--serve) only: a node started with --join "
                          "logs to stderr and needs no pid file",
                          o->log_file ? "--log-file" : "--pid-file",
                          o->log_file ? o->log_file : o->pid_file);
    if (!o->serve && o->coordinator == NULL)
        return sn_err_set(err, SN_EINVAL, "--join HOST:PORT is required; see --help");
    if (!o->serve && (sn_addr_parse(o->coordinator, -1, &addr, NULL) < 0 || addr.port == 0))
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for --join: expected HOST:PORT (an IPv4 address, an "
                          "[IPv6] address or a host name, and a port from 1 to 65535)",
                          o->coordinator);
    if (o->listen_host && sn_node_parse_host(o->listen_host, &addr, &e) < 0)
        return sn_err_set(err, SN_EINVAL, "--listen: %s", e.msg);
    if (o->port_lo && o->listen_host && addr.port != 0)
        return sn_err_set(err, SN_EINVAL,
                          "--port-range and --listen %s both choose the link port: give --listen "
                          "without a port",
                          o->listen_host);
    if (o->advertise && sn_node_parse_host(o->advertise, &addr, &e) < 0)
        return sn_err_set(err, SN_EINVAL, "--advertise: %s", e.msg);
    if (strcmp(a->security, "none") == 0)
        o->security = SN_SEC_NONE;
    else if (strcmp(a->security, "sodium") != 0)
        return sn_err_set(err, SN_EINVAL, "bad value '%s' for --security: expected sodium or none",
                          a->security);
    int has_key = a->key_file || a->key_fd >= 0;
    if (o->security == SN_SEC_NONE && !o->local && !a->insecure_ok)
        return sn_err_set(err, SN_EINVAL,
                          "--security none sends plaintext, unauthenticated frames over the "
                          "network; add --insecure-ok to accept that in join mode");
    if (o->security == SN_SEC_NONE && has_key)
        return sn_err_set(err, SN_EINVAL, "--security none takes no key");
    if (o->security == SN_SEC_SODIUM && o->stdin_session && has_key)
        return sn_err_set(err, SN_EINVAL,
                          "--stdin-session reads the key from standard input; it takes no --key "
                          "or --key-fd");
    if (o->security == SN_SEC_SODIUM && !o->stdin_session &&
        (a->key_file == NULL) == (a->key_fd < 0))
        return sn_err_set(err, SN_EINVAL,
                          "give the cluster key with exactly one of --key FILE (from stepnet "
                          "keygen) or --key-fd N, or run with --security none --insecure-ok");
    return 0;
}

/* Loads the key (with --security sodium: the first line of standard input with --stdin-session,
 * else --key or --key-fd), then runs the node or the daemon. The exit status. */
static int run(args_t *a)
{
    (void) sn_fdlimit_raise(NULL); /* a node of high degree holds a connection per link */
    sn_key_t *key = NULL;
    if (a->o.security == SN_SEC_SODIUM) {
        char kerr[512];
        key = a->o.stdin_session ? sn_key_new_line(0, kerr, sizeof kerr)
                                 : sn_key_new(a->key_file, (int) a->key_fd, kerr, sizeof kerr);
        if (key == NULL) {
            fprintf(stderr, "stepnet-node: %s\n", kerr);
            return 2;
        }
        a->o.key = key;
    }
    int rc = sn_node_main(&a->o);
    sn_key_free(key);
    return rc;
}

int main(int argc, char **argv)
{
    args_t a;
    sn_err_t err = {0};
    int rc = parse(argc - 1, argv + 1, &a, &err);
    if (rc == SN_OPTS_STOP && a.help)
        return 0;
    if (rc == SN_OPTS_STOP) {
        printf("stepnet-node " SN_VERSION "\n");
        return 0;
    }
    if (rc == 0)
        rc = check(&a, argv[0], &err);
    if (rc < 0) {
        fprintf(stderr, "stepnet-node: %s\n", err.msg);
        return 2;
    }
    return run(&a);
}
