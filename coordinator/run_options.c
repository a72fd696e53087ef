/* The options of `stepnet run` (coordinator): the shared ones through cli_opts_parse, the run's own
 * through the same machinery (so every option takes --name value and --name=value), then the
 * checks that need several of them together. Errors are SN_EINVAL with an sn_err_t that names the
 * bad value and what is accepted; nothing is printed here except --help. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "coord.h"
#include "hostfile.h"
#include "secure.h"
#include "sweep.h"
#include "trace.h"
#include "wire.h"

#define MAX_COUNT      1000000   /* --reps, --warmup, --probes */
#define MAX_IDLE_SLOTS 100000000 /* --idle-slots */
#define MAX_MS         86400000  /* every --*-timeout-ms: one day */

#define bad(err, ...) sn_err_set((err), SN_EINVAL, __VA_ARGS__)

/* --fault ID:KIND@SLOT into the node id and its KIND@SLOT. */
static int parse_fault(const char *v, coord_opts_t *o, sn_err_t *err)
{
    char *end;
    errno = 0;
    long id = strtol(v, &end, 10);
    sn_fault_t f;
    sn_err_t e = {0};
    if (errno || end == v || *end != ':' || id < 0 || id > INT32_MAX)
        return bad(err, "bad value '%s' for --fault: expected ID:KIND@SLOT (ID a node id)", v);
    if (sn_wire_fault_parse(end + 1, &f, &e) < 0)
        return bad(err, "bad value '%s' for --fault: expected ID:KIND@SLOT; %s", v, e.msg);
    o->fault_node = (int) id;
    o->fault = end + 1;
    return 0;
}

/* --hosts and its companions: the combinations (the hosts themselves are read by coord_run,
 * which knows how many nodes to place). */
static int check_hosts(coord_opts_t *o, const char *map_by, const char *nodes, int insecure_ok,
                       sn_err_t *err)
{
    if (o->hosts == NULL) {
        const char *orphan = map_by           ? "--map-by"
                             : o->remote_node ? "--remote-node"
                             : o->ssh         ? "--ssh"
                                              : NULL;
        if (orphan)
            return bad(err, "%s applies to --hosts only", orphan);
        return 0;
    }
    sn_map_by_t by = SN_MAP_BY_SLOT;
    int rc;
    if (map_by && (rc = sn_map_by_parse(map_by, &by, err)) < 0)
        return rc;
    o->map_by = (int) by;
    if (o->join || strcmp(nodes, "local") != 0 || o->node_bin)
        return bad(err, "--hosts starts the nodes itself over ssh: it takes no --nodes or "
                        "--node-bin (use --remote-node PATH for the program on the hosts)");
    if (o->listen == NULL)
        return bad(err, "--hosts needs --listen HOST:PORT, an address of this machine that the "
                        "hosts can reach (port 0: any free port), e.g. --listen 192.168.1.10:0");
    sn_addr_t a;
    sn_err_t e = {0};
    if (sn_addr_parse(o->listen, -1, &a, &e) == 0 &&
        (strcmp(a.host, "0.0.0.0") == 0 || strcmp(a.host, "::") == 0))
        return bad(err,
                   "--hosts needs --listen with the address the hosts dial, not the wildcard "
                   "'%s'",
                   o->listen);
    if (o->security == SN_SEC_NONE && !insecure_ok)
        return bad(err, "--security none sends plaintext, unauthenticated frames over the "
                        "network; add --insecure-ok to accept that with --hosts");
    if (o->remote_node && (o->remote_node[0] == '\0' || strlen(o->remote_node) > 1024 ||
                           strchr(o->remote_node, '\n') || strchr(o->remote_node, '\'')))
        return bad(err, "bad value for --remote-node: expected a path of 1 to 1024 characters "
                        "without a newline or a single quote");
    const char *ssh = o->ssh ? o->ssh : getenv("STEPNET_SSH");
    if (ssh) {
        char buf[1024];
        const char *words[SN_SSH_MAX_WORDS];
        size_t nw;
        if ((rc = sn_ssh_split(ssh, buf, sizeof buf, words, SN_SSH_MAX_WORDS, &nw, &e)) < 0)
            return bad(err, "%s: %s", o->ssh ? "--ssh" : "STEPNET_SSH", e.msg);
    }
    return 0;
}

int coord_opts_parse(int argc, char **argv, cli_opts_t *cli, coord_opts_t *o, const char **out_file,
                     const char *usage, sn_err_t *err)
{
    coord_opts_default(o);
    o->dyn_slots = -1;
    *out_file = NULL;
    int bench = cli->cmd && strcmp(cli->cmd, "bench") == 0;
    if (bench) { /* per size */
        o->reps = SWEEP_DEFAULT_ITERS;
        o->warmup = SWEEP_DEFAULT_WARMUP;
    }
    int64_t reps = o->reps, warmup = o->warmup, probes = o->probes, idle = 0;
    int64_t connect = o->connect_ms, ready = o->ready_ms, slot = o->slot_ms;
    int64_t collective = o->collective_ms, heartbeat = o->heartbeat_ms, spin = o->spin_us;
    int64_t nice = o->coord_nice;
    const char *nodes = "local", *security = "sodium", *fault = NULL, *token = NULL;
    const char *termination = "learn", *cipher = NULL;
    const char *link_delay = NULL, *link_jitter = NULL, *link_rate = NULL; /* link emulation */
    const char *port_range = NULL;
    int insecure_ok = 0;
    int64_t trace_slots = -1, trace_rep = -1;
    const char *map_by = NULL;
    const cli_opt_t extra[] = {
        {.name = "--reps", .num = &reps, .lo = 1, .hi = MAX_COUNT},
        {.name = "--warmup", .num = &warmup, .lo = 0, .hi = MAX_COUNT},
        {.name = "--probes", .num = &probes, .lo = 0, .hi = MAX_COUNT},
        {.name = "--idle-slots", .num = &idle, .lo = 1, .hi = MAX_IDLE_SLOTS},
        {.name = "--connect-timeout-ms",
         .num = &connect,
         .lo = 1,
         .hi = MAX_MS,
         .unit = "milliseconds"},
        {.name = "--ready-timeout-ms",
         .num = &ready,
         .lo = 1,
         .hi = MAX_MS,
         .unit = "milliseconds"},
        {.name = "--slot-timeout-ms", .num = &slot, .lo = 1, .hi = MAX_MS, .unit = "milliseconds"},
        {.name = "--collective-timeout-ms",
         .num = &collective,
         .lo = 1,
         .hi = MAX_MS,
         .unit = "milliseconds"},
        {.name = "--heartbeat-ms",
         .num = &heartbeat,
         .lo = 0,
         .hi = MAX_MS,
         .unit = "milliseconds"},
        {.name = "--spin-us",
         .num = &spin,
         .lo = 0,
         .hi = COORD_MAX_SPIN_US,
         .unit = "microseconds"},
        {.name = "--coord-nice", .num = &nice, .lo = 0, .hi = COORD_MAX_NICE},
        {.name = "--termination", .str = &termination},
        {.name = "--cipher", .str = &cipher},
        {.name = "--nodes", .str = &nodes},
        {.name = "--listen", .str = &o->listen},
        {.name = "--out", .str = out_file},
        {.name = "--node-bin", .str = &o->node_bin},
        {.name = "--fault", .str = &fault},
        {.name = "--token", .str = &token},
        {.name = "--key", .str = &o->key_file},
        {.name = "--security", .str = &security},
        {.name = "--verbose", .flag = &o->verbose},
        {.name = "--insecure-ok", .flag = &insecure_ok},
        {.name = "--lambda", .str = &o->dyn_lambda},
        {.name = "--rho", .str = &o->dyn_rho},
        {.name = "--sweep-rho", .str = &o->dyn_sweep},
        {.name = "--slots", .num = &o->dyn_slots, .lo = 1, .hi = 1000000000, .unit = "time units"},
        /* sweeps and measured outputs: --iters is --reps by its OSU name */
        {.name = "--iters", .num = &reps, .lo = 1, .hi = MAX_COUNT},
        {.name = "--csv", .str = &o->csv_file},
        {.name = "--sizes", .str = &o->sizes_text},
        {.name = "--trace", .str = &o->trace_file},
        {.name = "--trace-slots",
         .num = &trace_slots,
         .lo = 1,
         .hi = SN_WIRE_MAX_TRACE_SLOTS,
         .unit = "slots"},
        {.name = "--trace-rep",
         .num = &trace_rep,
         .lo = 1,
         .hi = MAX_COUNT,
         .unit = "a repetition"},
        /* link emulation */
        {.name = "--link-delay", .str = &link_delay},
        {.name = "--link-jitter", .str = &link_jitter},
        {.name = "--link-rate", .str = &link_rate},
        {.name = "--link-file", .str = &o->emu_file},
        /* nodes started over ssh (launch_ssh.c) */
        {.name = "--hosts", .str = &o->hosts},
        {.name = "--map-by", .str = &map_by},
        {.name = "--remote-node", .str = &o->remote_node},
        {.name = "--ssh", .str = &o->ssh},
        {.name = "--port-range", .str = &port_range},
        {0},
    };
    cli->cmd = bench ? "bench" : "run";
    int rc = cli_opts_parse(argc, argv, cli, extra, usage, err);
    if (rc != 0)
        return rc;
    o->cmd_name = cli->cmd;
    o->progress = cli->progress == 1 || (cli->progress == -1 && isatty(2));
    if (!bench && o->sizes_text)
        return bad(err, "--sizes applies to stepnet bench (run takes one --size)");
    if (bench && o->sizes_text && cli->size >= 0)
        return bad(err, "give either --sizes or --size, not both");
    if (bench && idle)
        return bad(err, "--idle-slots applies to stepnet run, not bench");
    if (bench && (o->dyn_lambda || o->dyn_rho || o->dyn_sweep || o->dyn_slots > 0 ||
                  (cli->coll && strcmp(cli->coll, "dynbcast") == 0)))
        return bad(err, "stepnet bench does not run --coll dynbcast (use stepnet run)");
    o->reps = (uint32_t) reps;
    o->warmup = (uint32_t) warmup;
    o->probes = (uint32_t) probes;
    o->idle_slots = (uint64_t) idle;
    o->connect_ms = (uint32_t) connect;
    o->ready_ms = (uint32_t) ready;
    o->slot_ms = (uint32_t) slot;
    o->collective_ms = (uint32_t) collective;
    o->heartbeat_ms = (uint32_t) heartbeat;
    o->spin_us = (uint32_t) spin;
    o->coord_nice = (uint32_t) nice;
    o->topo_text = cli->topo;
    if (strcmp(nodes, "local") == 0)
        o->join = 0;
    else if (strcmp(nodes, "join") == 0)
        o->join = 1;
    else if ((rc = coord_daemons_check(nodes, err)) < 0)
        return rc;
    else
        o->daemons = nodes;
    if (port_range && (rc = coord_port_range_check(port_range, o, err)) < 0)
        return rc;
    if (o->join && o->listen == NULL)
        return bad(err, "--nodes join needs --listen HOST:PORT (where the nodes join)");
    if (o->listen) {
        sn_addr_t a;
        sn_err_t e = {0};
        if (sn_addr_parse(o->listen, -1, &a, &e) < 0)
            return bad(err, "--listen: %s", e.msg);
    }
    if (strcmp(termination, "learn") == 0 || strcmp(termination, "detect") == 0)
        o->termination_detect = termination[0] == 'd';
    else
        return bad(err, "bad value '%s' for --termination: expected learn or detect", termination);
    if (strcmp(security, "none") == 0)
        o->security = SN_SEC_NONE;
    else if (strcmp(security, "sodium") == 0)
        o->security = SN_SEC_SODIUM;
    else
        return bad(err, "bad value '%s' for --security: expected sodium or none", security);
    if (o->security == SN_SEC_NONE && (o->join || o->daemons) && !insecure_ok)
        return bad(err, "--security none sends plaintext, unauthenticated frames over the "
                        "network; add --insecure-ok to accept that in join mode");
    if (o->security == SN_SEC_NONE && o->key_file)
        return bad(err, "--security none takes no --key");
    if (cipher && strcmp(cipher, "auto") == 0)
        o->ciphers = 0;
    else if (cipher && sn_sec_cipher_parse(cipher) > 0)
        o->ciphers = sn_sec_cipher_parse(cipher);
    else if (cipher)
        return bad(err,
                   "bad value '%s' for --cipher: expected auto, xchacha20poly1305 or aes256gcm",
                   cipher);
    if (cipher && o->security == SN_SEC_NONE)
        return bad(err, "--cipher applies to --security sodium (none sends plaintext)");
    if (o->ciphers == SN_CIPHER_AES256GCM && !(sn_sec_ciphers_available() & SN_CIPHER_AES256GCM))
        return bad(err, "--cipher aes256gcm: this CPU has no AES-NI (libsodium's "
                        "crypto_aead_aes256gcm_is_available); use auto or xchacha20poly1305");
    if (o->security == SN_SEC_SODIUM && o->daemons && o->key_file == NULL)
        return bad(err, "--nodes ADDR,... (daemons) needs --key FILE, the cluster key the "
                        "daemons were started with, or --security none --insecure-ok");
    if (o->security == SN_SEC_SODIUM && o->join && o->key_file == NULL)
        return bad(err, "--nodes join needs --key FILE, the cluster key every node also gets "
                        "(create it with stepnet keygen FILE), or --security none --insecure-ok");
    if ((rc = check_hosts(o, map_by, nodes, insecure_ok, err)) < 0)
        return rc;
    if (fault && (rc = parse_fault(fault, o, err)) < 0)
        return rc;
    if (!o->trace_file && (trace_slots > 0 || trace_rep > 0))
        return bad(err, "--trace-slots and --trace-rep apply with --trace FILE only");
    if (o->trace_file && o->idle_slots)
        return bad(err, "--trace records a collective, not the --idle-slots barrier");
    if (trace_rep > (int64_t) o->reps)
        return bad(err,
                   "bad value '%lld' for --trace-rep: expected a measured repetition from 1 to "
                   "%u (--reps)",
                   (long long) trace_rep, o->reps);
    if (o->trace_file) {
        o->trace_slots = trace_slots > 0 ? (uint64_t) trace_slots : TRACE_DEFAULT_SLOTS;
        o->trace_rep = trace_rep > 0 ? (uint32_t) trace_rep : o->reps;
    }
    if ((link_delay &&
         (rc = sn_emu_parse_time(link_delay, "--link-delay", &o->emu.delay_ns, err)) < 0) ||
        (link_jitter &&
         (rc = sn_emu_parse_time(link_jitter, "--link-jitter", &o->emu.jitter_ns, err)) < 0) ||
        (link_rate &&
         (rc = sn_emu_parse_rate(link_rate, "--link-rate", &o->emu.rate_bps, err)) < 0))
        return rc;
    if (token) {
        char *end;
        errno = 0;
        o->token = strtoull(token, &end, 16);
        if (errno || *end != '\0' || end == token)
            return bad(err, "bad value '%s' for --token: expected hexadecimal digits", token);
        o->has_token = 1;
    }
    return 0;
}
