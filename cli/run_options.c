/* The options of `stepnet run` and `stepnet bench` (cli): the shared ones through cli_opts_parse,
 * the run's own through the same machinery (so every option takes --name value and --name=value),
 * then the checks that need several of them together, one helper per group. Errors are SN_EINVAL
 * with an sn_err_t that names the bad value and what is accepted; nothing is printed here except
 * --help. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepnet/util.h"
#include "cli/launch_options.h"
#include "cli/run.h"
#include "cli/trace.h"
#include "launch/hostfile.h"
#include "net/addr.h"
#include "net/secure.h"
#include "net/wire_fault.h"

#define MAX_COUNT      1000000   /* --reps, --warmup, --probes */
#define MAX_IDLE_SLOTS 100000000 /* --idle-slots */
#define MAX_MS         86400000  /* every --*-timeout-ms: one day */
#define MS             "milliseconds"
#define US             "microseconds"
#define TIMEOUT_COL    29 /* where --help starts the descriptions of the deadlines and --fault */

/* --fault ID:KIND@SLOT into the node id and its KIND@SLOT. */
static int parse_fault(const char *v, sn_coord_opts_t *o, sn_err_t *err)
{
    char *end;
    errno = 0;
    long id = strtol(v, &end, 10);
    sn_fault_t f;
    sn_err_t e = {0};
    if (errno || end == v || *end != ':' || id < 0 || id > INT32_MAX)
        return sn_err_inval(err, "bad value '%s' for --fault: expected ID:KIND@SLOT (ID a node id)",
                            v);
    if (sn_wire_fault_parse(end + 1, &f, &e) < 0)
        return sn_err_inval(err, "bad value '%s' for --fault: expected ID:KIND@SLOT; %s", v, e.msg);
    o->fault_node = (int) id;
    o->fault = end + 1;
    return 0;
}

/* --hosts and its companions: the combinations (the hosts themselves are read by sn_coord_run,
 * which knows how many nodes to place). */
static int check_hosts(sn_coord_opts_t *o, const char *map_by, const char *nodes, int insecure_ok,
                       sn_err_t *err)
{
    if (o->hosts == NULL) {
        const char *orphan = map_by           ? "--map-by"
                             : o->remote_node ? "--remote-node"
                             : o->ssh         ? "--ssh"
                                              : NULL;
        if (orphan)
            return sn_err_inval(err, "%s applies to --hosts only", orphan);
        return 0;
    }
    int by = SN_MAP_BY_SLOT;
    int rc;
    if (map_by && (rc = cli_map_by_parse(map_by, &by, err)) < 0)
        return rc;
    o->map_by = by;
    if (o->join || strcmp(nodes, "local") != 0 || o->node_bin)
        return sn_err_inval(err,
                            "--hosts starts the nodes itself over ssh: it takes no --nodes or "
                            "--node-bin (use --remote-node PATH for the program on the hosts)");
    if (o->listen == NULL)
        return sn_err_inval(
            err, "--hosts needs --listen HOST:PORT, an address of this machine that the "
                 "hosts can reach (port 0: any free port), e.g. --listen 192.168.1.10:0");
    sn_addr_t a;
    sn_err_t e = {0};
    if (sn_addr_parse(o->listen, -1, &a, &e) == 0 &&
        (strcmp(a.host, "0.0.0.0") == 0 || strcmp(a.host, "::") == 0))
        return sn_err_inval(
            err,
            "--hosts needs --listen with the address the hosts dial, not the wildcard "
            "'%s'",
            o->listen);
    if (o->security == SN_SEC_NONE && !insecure_ok)
        return sn_err_inval(err, "--security none sends plaintext, unauthenticated frames over the "
                                 "network; add --insecure-ok to accept that with --hosts");
    if (o->remote_node && (o->remote_node[0] == '\0' || strlen(o->remote_node) > 1024 ||
                           strchr(o->remote_node, '\n') || strchr(o->remote_node, '\'')))
        return sn_err_inval(err,
                            "bad value for --remote-node: expected a path of 1 to 1024 characters "
                            "without a newline or a single quote");
    const char *ssh = o->ssh ? o->ssh : getenv("STEPNET_SSH");
    if (ssh) {
        char buf[1024];
        const char *words[SN_SSH_MAX_WORDS];
        size_t nw;
        if ((rc = sn_launch_ssh_split(ssh, buf, sizeof buf, words, SN_SSH_MAX_WORDS, &nw, &e)) < 0)
            return sn_err_inval(err, "%s: %s", o->ssh ? "--ssh" : "STEPNET_SSH", e.msg);
    }
    return 0;
}

/* The option values as given, before they are checked and copied into the run. */
typedef struct raw_s {
    int64_t reps, warmup, probes, idle, connect, ready, slot, collective, heartbeat, spin, nice;
    int64_t trace_slots, trace_rep;
    const char *nodes, *security, *fault, *token, *termination, *cipher, *map_by, *port_range;
    const char *sync;                                 /* --sync slot|dataflow */
    const char *link_delay, *link_jitter, *link_rate; /* link emulation */
    int insecure_ok;
} raw_t;

/* The engine's defaults (bench's per size), as option values. */
static void raw_defaults(raw_t *w, sn_coord_opts_t *o, int bench)
{
    sn_coord_opts_default(o);
    if (bench) { /* per size */
        o->reps = CLI_BENCH_DEFAULT_ITERS;
        o->warmup = CLI_BENCH_DEFAULT_WARMUP;
    }
    *w = (raw_t){.reps = o->reps,
                 .warmup = o->warmup,
                 .probes = o->probes,
                 .connect = o->connect_ms,
                 .ready = o->ready_ms, /* 0: the engine's default by launch mode and nodes */
                 .slot = o->slot_ms,
                 .collective = o->collective_ms,
                 .heartbeat = o->heartbeat_ms,
                 .spin = o->spin_us,
                 .nice = o->coord_nice,
                 .trace_slots = -1,
                 .trace_rep = -1,
                 .nodes = "local",
                 .security = "sodium",
                 .termination = NULL, /* learn, unless given */
                 .sync = sn_sync_name(o->sync)};
}

/* What one of run and bench takes and the other does not. */
static int check_command(const cli_opts_t *cli, const cli_run_t *run, const raw_t *w, int bench,
                         sn_err_t *err)
{
    if (!bench && run->sizes_text)
        return sn_err_inval(err, "--sizes applies to stepnet bench (run takes one --size)");
    if (bench && run->sizes_text && cli->size >= 0)
        return sn_err_inval(err, "give either --sizes or --size, not both");
    if (bench && w->idle)
        return sn_err_inval(err, "--idle-slots applies to stepnet run, not bench");
    if (bench && (run->dyn_lambda || run->dyn_rho || run->dyn_sweep || run->dyn_slots > 0 ||
                  cli_dyn_applies(cli->coll)))
        return sn_err_inval(err, "stepnet bench does not run --coll dynbcast (use stepnet run)");
    return 0;
}

/* The counts and timeouts, checked against their ranges by the parser. */
static void apply_numbers(sn_coord_opts_t *o, const raw_t *w)
{
    o->reps = (uint32_t) w->reps;
    o->warmup = (uint32_t) w->warmup;
    o->probes = (uint32_t) w->probes;
    o->idle_slots = (uint64_t) w->idle;
    o->connect_ms = (uint32_t) w->connect;
    o->ready_ms = (uint32_t) w->ready;
    o->slot_ms = (uint32_t) w->slot;
    o->collective_ms = (uint32_t) w->collective;
    o->heartbeat_ms = (uint32_t) w->heartbeat;
    o->spin_us = (uint32_t) w->spin;
    o->coord_nice = (uint32_t) w->nice;
}

/* Where the nodes come from (--nodes local|join|ADDR,...), --port-range and --listen. */
static int check_nodes(sn_coord_opts_t *o, const raw_t *w, sn_err_t *err)
{
    int rc;
    if (strcmp(w->nodes, "local") == 0)
        o->join = 0;
    else if (strcmp(w->nodes, "join") == 0)
        o->join = 1;
    else if ((rc = cli_daemons_check(w->nodes, err)) < 0)
        return rc;
    else
        o->daemons = w->nodes;
    if (o->daemons && o->listen == NULL) {
        /* listen where the daemons' nodes will dial, not on every interface; one run per
         * process, so the address lives here */
        static char routed[SN_ADDR_MAX_TEXT + 8];
        if ((rc = cli_daemons_listen(o->daemons, routed, sizeof routed, err)) < 0)
            return rc;
        o->listen = routed;
    }
    if (w->port_range && (rc = cli_port_range_parse(w->port_range, o, err)) < 0)
        return rc;
    if (o->join && o->listen == NULL)
        return sn_err_inval(err, "--nodes join needs --listen HOST:PORT (where the nodes join)");
    if (o->listen) {
        sn_addr_t a;
        sn_err_t e = {0};
        if (sn_addr_parse(o->listen, -1, &a, &e) < 0)
            return sn_err_inval(err, "--listen: %s", e.msg);
    }
    const char *term = w->termination ? w->termination : "learn";
    if (strcmp(term, "learn") == 0 || strcmp(term, "detect") == 0)
        o->termination_detect = term[0] == 'd';
    else
        return sn_err_inval(err, "bad value '%s' for --termination: expected learn or detect",
                            term);
    return 0;
}

/* --sync (one of include/stepnet/sync.h's modes), the memory limit of a mode's receive plans,
 * and what a mode without the slot barrier (dataflow) cannot honour: it has no slot barrier to
 * measure (--idle-slots) or to detect termination with (--termination; the receive plan ends each
 * node), no frame in every slot for the faults that act on a node's next frames (flip, trickle: a
 * node may send none after SLOT), and dynbcast runs rounds of its own. */
static int check_sync(const cli_opts_t *cli, sn_coord_opts_t *o, const raw_t *w, sn_err_t *err)
{
    if (sn_sync_parse(w->sync, &o->sync) < 0) {
        char names[64], hint[48] = "";
        const char *words[SN_SYNC_COUNT];
        for (unsigned k = 0; k < SN_SYNC_COUNT; k++)
            words[k] = sn_sync_name((sn_sync_t) k);
        const char *near = sn_suggest(w->sync, strlen(w->sync), words, SN_SYNC_COUNT);
        if (near)
            snprintf(hint, sizeof hint, " did you mean %s?", near);
        return sn_err_inval(err, "bad value '%s' for --sync:%s expected %s", w->sync, hint,
                            sn_sync_names(names, sizeof names));
    }
    if (sn_sync_needs_rxplan(o->sync))
        o->max_memory = cli->max_memory ? cli->max_memory : cli_default_max_memory();
    if (sn_sync_lockstep(o->sync))
        return 0;
    const char *why = NULL;
    if (o->idle_slots)
        why = "--idle-slots measures the slot barrier, which dataflow does not have";
    else if (w->termination)
        why = "--termination applies to the slot barrier (in dataflow each node stops when its "
              "receive plan is played)";
    else if (cli_dyn_applies(cli->coll))
        why = "--coll dynbcast runs rounds of its own";
    else if (o->fault &&
             (strncmp(o->fault, "flip@", 5) == 0 || strncmp(o->fault, "trickle@", 8) == 0))
        why = "--fault flip and trickle act on the node's next frames, and in dataflow a node may "
              "send none after the slot (kill, stop, garbage and oversize act at once)";
    if (why)
        return sn_err_inval(err, "--sync %s: %s; use --sync %s", sn_sync_name(o->sync), why,
                            sn_sync_name(SN_SYNC_SLOT));
    return 0;
}

/* --security, --cipher and the key they need. */
static int check_security(sn_coord_opts_t *o, const raw_t *w, sn_err_t *err)
{
    const char *cipher = w->cipher;
    if (strcmp(w->security, "none") == 0)
        o->security = SN_SEC_NONE;
    else if (strcmp(w->security, "sodium") == 0)
        o->security = SN_SEC_SODIUM;
    else
        return sn_err_inval(err, "bad value '%s' for --security: expected sodium or none",
                            w->security);
    if (o->security == SN_SEC_NONE && (o->join || o->daemons) && !w->insecure_ok)
        return sn_err_inval(err, "--security none sends plaintext, unauthenticated frames over the "
                                 "network; add --insecure-ok to accept that in join mode");
    if (o->security == SN_SEC_NONE && o->key_file)
        return sn_err_inval(err, "--security none takes no --key");
    if (cipher && strcmp(cipher, "auto") == 0)
        o->ciphers = 0;
    else if (cipher && sn_sec_cipher_parse(cipher) > 0)
        o->ciphers = sn_sec_cipher_parse(cipher);
    else if (cipher)
        return sn_err_inval(
            err, "bad value '%s' for --cipher: expected auto, xchacha20poly1305 or aes256gcm",
            cipher);
    if (cipher && o->security == SN_SEC_NONE)
        return sn_err_inval(err, "--cipher applies to --security sodium (none sends plaintext)");
    if (o->ciphers == SN_CIPHER_AES256GCM && !(sn_sec_ciphers_available() & SN_CIPHER_AES256GCM))
        return sn_err_inval(err,
                            "--cipher aes256gcm: this CPU has no AES-NI (libsodium's "
                            "crypto_aead_aes256gcm_is_available); use auto or xchacha20poly1305");
    if (o->security == SN_SEC_SODIUM && o->daemons && o->key_file == NULL)
        return sn_err_inval(err, "--nodes ADDR,... (daemons) needs --key FILE, the cluster key the "
                                 "daemons were started with, or --security none --insecure-ok");
    if (o->security == SN_SEC_SODIUM && o->join && o->key_file == NULL)
        return sn_err_inval(
            err, "--nodes join needs --key FILE, the cluster key every node also gets "
                 "(create it with stepnet keygen FILE), or --security none --insecure-ok");
    return 0;
}

/* --trace FILE with --trace-slots and --trace-rep. */
static int check_trace(cli_run_t *run, const raw_t *w, sn_err_t *err)
{
    sn_coord_opts_t *o = &run->coord;
    if (!run->trace_file && (w->trace_slots > 0 || w->trace_rep > 0))
        return sn_err_inval(err, "--trace-slots and --trace-rep apply with --trace FILE only");
    if (run->trace_file && o->idle_slots)
        return sn_err_inval(err, "--trace records a collective, not the --idle-slots barrier");
    if (w->trace_rep > (int64_t) o->reps)
        return sn_err_inval(
            err,
            "bad value '%lld' for --trace-rep: expected a measured repetition from 1 to "
            "%u (--reps)",
            (long long) w->trace_rep, o->reps);
    if (run->trace_file) {
        o->trace_slots = w->trace_slots > 0 ? (uint64_t) w->trace_slots : CLI_TRACE_DEFAULT_SLOTS;
        o->trace_rep = w->trace_rep > 0 ? (uint32_t) w->trace_rep : o->reps;
    }
    return 0;
}

/* The link emulation of every link, and the testing --token. */
static int check_emu_token(sn_coord_opts_t *o, const raw_t *w, sn_err_t *err)
{
    int rc = 0;
    if ((w->link_delay &&
         (rc = sn_emu_parse_time(w->link_delay, "--link-delay", &o->emu.delay_ns, err)) < 0) ||
        (w->link_jitter &&
         (rc = sn_emu_parse_time(w->link_jitter, "--link-jitter", &o->emu.jitter_ns, err)) < 0) ||
        (w->link_rate &&
         (rc = sn_emu_parse_rate(w->link_rate, "--link-rate", &o->emu.rate_bps, err)) < 0))
        return rc;
    if (w->token) {
        char *end;
        errno = 0;
        o->token = strtoull(w->token, &end, 16);
        if (errno || *end != '\0' || end == w->token)
            return sn_err_inval(err, "bad value '%s' for --token: expected hexadecimal digits",
                                w->token);
        o->has_token = 1;
    }
    return 0;
}

/* The most entries of one group of run's and bench's options (below), and of the whole table,
 * its end included. */
#define RUN_OPTS_GROUP_MAX 32
#define RUN_OPTS_GROUPS    4
#define RUN_OPTS_MAX       (RUN_OPTS_GROUPS * RUN_OPTS_GROUP_MAX + 1)

/* Each group of run's and bench's options (bench: of `stepnet bench`), storing into w or run,
 * copied to t; the entry after the last. The layouts of cmd_run.c and cmd_bench.c list their
 * lines in --help; the table keeps its own order, the groups' in turn, which decides between
 * equally near options when the parser suggests one (sn_opts_suggest). */
#define RUN_OPTS_GROUP(table)                                                                      \
    _Static_assert(sizeof table / sizeof table[0] <= RUN_OPTS_GROUP_MAX, "a group fits");          \
    return (memcpy(t, table, sizeof table), t + sizeof table / sizeof table[0])

/* The options of the repetitions, the calibration, the deadlines, the coordinator and the execution
 * mode. */
static sn_opt_t *run_opts_measure(sn_opt_t *t, raw_t *w, cli_run_t *run, int bench)
{
    (void) run;
    const sn_opt_t table[] = {
        {.name = "--reps",
         .kind = SN_OPT_INT,
         .num = &w->reps,
         .lo = 1,
         .hi = MAX_COUNT,
         .arg = "N",
         .help = "measured repetitions (default 5; --iters N is the same)"},
        {.name = "--warmup",
         .kind = SN_OPT_INT,
         .num = &w->warmup,
         .lo = 0,
         .hi = MAX_COUNT,
         .arg = "N",
         .help = bench ? "unmeasured repetitions before each size (default 2)"
                       : "unmeasured repetitions first (default 1)"},
        {.name = "--probes",
         .kind = SN_OPT_INT,
         .num = &w->probes,
         .lo = 0,
         .hi = MAX_COUNT,
         .arg = "N",
         .help = "ping-pong probes per link and size for calibration, and rounds of the\n"
                 "time model's node and control-leg probes (default 20; 0 skips them\n"
                 "and the model); a calibration series stops after 5 s with the\n"
                 "probes measured so far, one at least"},
        {.name = "--idle-slots",
         .kind = SN_OPT_INT,
         .num = &w->idle,
         .lo = 1,
         .hi = MAX_IDLE_SLOTS,
         .arg = "N",
         .help = "benchmark: each repetition is N slots of the bare barrier (empty frames\n"
                 "on every link) instead of the collective; reports us per slot"},
        {.name = "--connect-timeout-ms",
         .kind = SN_OPT_INT,
         .num = &w->connect,
         .lo = 1,
         .hi = MAX_MS,
         .unit = MS,
         .arg = "MS",
         .help = "nodes connecting to each other (default 10000)",
         .col = TIMEOUT_COL},
        {.name = "--ready-timeout-ms",
         .kind = SN_OPT_INT,
         .num = &w->ready,
         .lo = 1,
         .hi = MAX_MS,
         .unit = MS,
         .arg = "MS",
         .help = "every node joined and ready (default 30000 plus 20 per node,\n"
                 "or plus 2000 per node with --hosts: ssh sessions start slower)",
         .col = TIMEOUT_COL},
        {.name = "--slot-timeout-ms",
         .kind = SN_OPT_INT,
         .num = &w->slot,
         .lo = 1,
         .hi = MAX_MS,
         .unit = MS,
         .arg = "MS",
         .help = "a link whose frame is missing moving no byte, in or out\n"
                 "(default 5000); the frame's first byte also gets the time the\n"
                 "calibrated model allows it, and a frame still arriving fails only\n"
                 "when too slow for the model (docs/runtime.md, Deadlines)",
         .col = TIMEOUT_COL},
        {.name = "--collective-timeout-ms",
         .kind = SN_OPT_INT,
         .num = &w->collective,
         .lo = 1,
         .hi = MAX_MS,
         .unit = MS,
         .arg = "MS",
         .help = "one repetition (default 300000)",
         .col = TIMEOUT_COL},
        {.name = "--heartbeat-ms",
         .kind = SN_OPT_INT,
         .num = &w->heartbeat,
         .lo = 0,
         .hi = MAX_MS,
         .unit = MS,
         .arg = "MS",
         .help = "control-channel heartbeat period outside collectives (default 1000;\n"
                 "0: none); 5 periods of silence end the run, or make a node leave"},
        {.name = "--spin-us",
         .kind = SN_OPT_INT,
         .num = &w->spin,
         .lo = 0,
         .hi = SN_COORD_MAX_SPIN_US,
         .unit = US,
         .arg = "US",
         .help = "while a slot waits for frames, each node polls its sockets without\n"
                 "sleeping (yielding the CPU between polls, as MPI libraries do) for up\n"
                 "to US microseconds after the slot began, then sleeps until a frame\n"
                 "comes (default 1000; 0: always sleep)"},
        {.name = "--coord-nice",
         .kind = SN_OPT_INT,
         .num = &w->nice,
         .lo = 0,
         .hi = SN_COORD_MAX_NICE,
         .arg = "N",
         .help = "once the local nodes are started, the coordinator adds N (0 to 19) to\n"
                 "its nice value, so that its bookkeeping yields the CPU to the nodes\n"
                 "sharing its machine (default 10; 0: same priority as the nodes)"},
        {.name = "--termination",
         .kind = SN_OPT_STR,
         .str = &w->termination,
         .arg = "learn|detect",
         .help = "learn (default): the first repetition of each size detects\n"
                 "its end (diameter + 1 slots of empty frames after the last node is\n"
                 "done), the later ones stop at the slot it found, each node checking\n"
                 "that it is done there; detect: every repetition detects its end"},
        {.name = "--sync",
         .kind = SN_OPT_STR,
         .str = &w->sync,
         .arg = "slot|dataflow",
         .help = "slot (default): the slot barrier, one frame on every link every\n"
                 "slot; dataflow: nodes send only the schedule's packets and play each\n"
                 "slot as soon as its packets are in (a dry run tells each node what it\n"
                 "receives when), as a communication library runs a schedule"},
        {.name = "--cipher",
         .kind = SN_OPT_STR,
         .str = &w->cipher,
         .arg = "C",
         .help = "sodium's cipher: auto (default: AES-256-GCM where both ends of a\n"
                 "connection have AES-NI, else XChaCha20-Poly1305), aes256gcm or\n"
                 "xchacha20poly1305 (every connection must then use it)"},
    };
    RUN_OPTS_GROUP(table);
}

/* The options of where the nodes come from and how they are keyed, the report file, injected
 * faults. */
static sn_opt_t *run_opts_nodes(sn_opt_t *t, raw_t *w, cli_run_t *run, int bench)
{
    sn_coord_opts_t *o = &run->coord;
    const sn_opt_t table[] = {
        {.name = "--nodes",
         .kind = SN_OPT_STR,
         .str = &w->nodes,
         .arg = "local|join",
         .help = "local: spawn the nodes on 127.0.0.1 (default); join: wait for nodes\n"
                 "started with `stepnet-node --join HOST:PORT`"},
        {.name = "--nodes",
         .kind = SN_OPT_DOC,
         .arg = "ADDR,ADDR,...",
         .help = "persistent daemons (`stepnet-node --serve --listen ADDR`), one\n"
                 "per node: the coordinator dials each (authenticated with --key) and\n"
                 "invites it; the daemon's node joins back. Node id = position in the\n"
                 "list unless the daemon was started with --id (docs/deploy.md);\n"
                 "ADDR*N: N nodes on that daemon. Here --listen defaults to the address\n"
                 "of this machine that routes to the daemons"},
        {.name = "--listen",
         .kind = SN_OPT_STR,
         .str = &o->listen,
         .arg = "ADDR",
         .help = "coordinator address (default 127.0.0.1:0; join mode needs it, e.g.\n"
                 "0.0.0.0:7000; --hosts needs an address the hosts can reach)"},
        {.name = "--out",
         .kind = SN_OPT_STR,
         .str = &run->out_file,
         .arg = "FILE",
         .help =
             bench ? "also write the JSON lines to FILE" : "also write the JSON report to FILE"},
        {.name = "--node-bin",
         .kind = SN_OPT_STR,
         .str = &o->node_bin,
         .arg = "PATH",
         .help = "the stepnet-node executable (default: next to stepnet)"},
        {.name = "--fault",
         .kind = SN_OPT_STR,
         .str = &w->fault,
         .arg = "ID:KIND@SLOT",
         .help = "testing: node ID kills itself (kill), stops (stop), sends a\n"
                 "malformed (garbage) or oversized (oversize) frame at SLOT, or\n"
                 "flips one bit of its next frame on the wire (flip), or from\n"
                 "SLOT on sends every frame at a trickle of 128 bytes every\n"
                 "100 ms (trickle: its neighbours report the link too slow)",
         .col = TIMEOUT_COL,
         .hang = TIMEOUT_COL},
        {.name = "--token",
         .kind = SN_OPT_STR,
         .str = &w->token,
         .arg = "HEX",
         .help = "testing: a fixed run token instead of a random one (every link hello must\n"
                 "carry the token)"},
        {.name = "--key",
         .kind = SN_OPT_STR,
         .str = &o->key_file,
         .arg = "FILE",
         .help = "the cluster key (stepnet keygen): required in join mode; local and\n"
                 "--hosts runs make a fresh key per run unless this is given"},
        {.name = "--security",
         .kind = SN_OPT_STR,
         .str = &w->security,
         .arg = "MODE",
         .help = "sodium (default: every connection authenticated and encrypted) or none\n"
                 "(plaintext, for raw measurements; join mode and --hosts also need\n"
                 "--insecure-ok)"},
        {.name = "--verbose",
         .kind = SN_OPT_FLAG,
         .flag = &o->verbose,
         .help = "node logs of routine events on stderr"},
        {.name = "--insecure-ok",
         .kind = SN_OPT_FLAG,
         .flag = &w->insecure_ok,
         .help = "accept --security none in join mode or with --hosts"},
    };
    RUN_OPTS_GROUP(table);
}

/* The options of dynamic broadcasting, the sweeps of bench and their outputs, the trace. */
static sn_opt_t *run_opts_outputs(sn_opt_t *t, raw_t *w, cli_run_t *run, int bench)
{
    (void) bench;
    const sn_opt_t table[] = {
        /* dynamic broadcasting: its options are on the line of "--coll dynbcast" below (sim --help
         * describes them) */
        {.name = "--lambda", .kind = SN_OPT_STR, .str = &run->dyn_lambda, .help = SN_OPT_UNLISTED},
        {.name = "--rho", .kind = SN_OPT_STR, .str = &run->dyn_rho, .help = SN_OPT_UNLISTED},
        {.name = "--sweep-rho",
         .kind = SN_OPT_STR,
         .str = &run->dyn_sweep,
         .help = SN_OPT_UNLISTED},
        {.name = "--slots",
         .kind = SN_OPT_INT,
         .num = &run->dyn_slots,
         .lo = 1,
         .hi = 1000000000,
         .unit = "time units",
         .help = SN_OPT_UNLISTED},
        /* the line of --help that describes them */
        {.name = "--coll",
         .kind = SN_OPT_DOC,
         .arg = "dynbcast --lambda L|--rho R --slots T",
         .help = "dynamic broadcasting: every round a TCP\n"
                 "run of pmnb-mesh-split, or pmnb-fcube on a folded cube (see stepnet\n"
                 "sim --help)",
         .col = 49},
        /* sweeps and measured outputs: --iters is --reps by its OSU name */
        {.name = "--iters",
         .kind = SN_OPT_INT,
         .num = &w->reps,
         .lo = 1,
         .hi = MAX_COUNT,
         .arg = "N",
         .help = "measured repetitions per size (default 20; --reps N is the same)"},
        {.name = "--csv",
         .kind = SN_OPT_STR,
         .str = &run->csv_file,
         .arg = "FILE",
         .help = "also write the measurements as CSV to FILE (header and one row per\n"
                 "size; docs/output.md)"},
        {.name = "--sizes",
         .kind = SN_OPT_STR,
         .str = &run->sizes_text,
         .arg = "LIST",
         .help =
             "packet sizes in bytes (default " CLI_BENCH_DEFAULT_SIZES "): FROM:TO (doubling),\n"
             "FROM:TO:xF (factor F), FROM:TO:+S (step S) or a list A,B,C, increasing;\n"
             "K, M, G (or KiB, MiB, GiB) are powers of 1024; at most 256 sizes, up to 1G"},
        /* what two shared options take in bench */
        {.name = "--topo",
         .kind = SN_OPT_DOC,
         .arg = "'A;B'",
         .help = "several topologies, separated by ';': one launch of the nodes each"},
        {.name = "--ports",
         .kind = SN_OPT_DOC,
         .arg = "P,Q",
         .help = "several port models (multi,single): one launch each, for every topology"},
        {.name = "--trace",
         .kind = SN_OPT_STR,
         .str = &run->trace_file,
         .arg = "FILE",
         .help = "write one measured repetition as Chrome trace-event JSON (Perfetto,\n"
                 "chrome://tracing; docs/trace.md): per node and slot when its frames\n"
                 "left, when each neighbour's frame came in and which one it waited for\n"
                 "last, and one `send` event per transmission; times in microseconds of\n"
                 "the nodes' monotonic clock (comparable across nodes on one machine\n"
                 "only)"},
        {.name = "--trace-slots",
         .kind = SN_OPT_INT,
         .num = &w->trace_slots,
         .lo = 1,
         .hi = CLI_TRACE_MAX_SLOTS,
         .unit = "slots",
         .arg = "N",
         .help = "nodes record slots 1 to N only (default 10000, at most 100000); the\n"
                 "file says when it is truncated"},
        {.name = "--trace-rep",
         .kind = SN_OPT_INT,
         .num = &w->trace_rep,
         .lo = 1,
         .hi = MAX_COUNT,
         .unit = "a repetition",
         .arg = "N",
         .help = "the measured repetition traced, 1 to --reps (default the last)"},
    };
    RUN_OPTS_GROUP(table);
}

/* The options of link emulation, the nodes started over ssh and the port range. */
static sn_opt_t *run_opts_links(sn_opt_t *t, raw_t *w, cli_run_t *run, int bench)
{
    sn_coord_opts_t *o = &run->coord;
    (void) bench;
    const sn_opt_t table[] = {
        /* link emulation */
        {.name = "--link-delay",
         .kind = SN_OPT_STR,
         .str = &w->link_delay,
         .arg = "TIME",
         .help = "link emulation by the nodes (no root, no netem): delay every frame on\n"
                 "every link by TIME, in tc units (200us, 1.5ms, 1s; bare: us)"},
        {.name = "--link-jitter",
         .kind = SN_OPT_STR,
         .str = &w->link_jitter,
         .arg = "TIME",
         .help = "vary each frame's delay uniformly by +-TIME (frames keep their order)"},
        {.name = "--link-rate",
         .kind = SN_OPT_STR,
         .str = &w->link_rate,
         .arg = "RATE",
         .help = "token-bucket rate of every link, in tc units (100mbit, 1gbit, 10mbps)"},
        {.name = "--link-file",
         .kind = SN_OPT_STR,
         .str = &o->emu_file,
         .arg = "FILE",
         .help = "per-link values: lines 'default|dim D|edge E|link A-B delay=TIME\n"
                 "jitter=TIME rate=RATE' (docs/runtime.md, Link emulation)"},
        /* nodes started over ssh (launch/ssh.c) */
        {.name = "--hosts",
         .kind = SN_OPT_STR,
         .str = &o->hosts,
         .arg = "FILE|LIST",
         .help = "start the nodes over ssh on these hosts: a hostfile (one host per\n"
                 "line, `[user@]host[:port] [slots=N]`, # comments, as Open MPI's) or\n"
                 "a list `host[:slots],...` as mpirun -H takes it; an argument with a\n"
                 "'/' or naming an existing file is a hostfile. A host without slots=N\n"
                 "has 1 slot; every node is one process on its host"},
        {.name = "--map-by",
         .kind = SN_OPT_STR,
         .str = &w->map_by,
         .arg = "slot|node",
         .help = "placement of node ids on the hosts (printed on stderr): slot (default)\n"
                 "fills each host's slots in list order; node deals ids round-robin, one\n"
                 "per host, skipping full hosts"},
        {.name = "--remote-node",
         .kind = SN_OPT_STR,
         .str = &o->remote_node,
         .arg = "PATH",
         .help = "the stepnet-node program on the hosts (default: stepnet-node on the\n"
                 "remote PATH)"},
        {.name = "--ssh",
         .kind = SN_OPT_STR,
         .str = &o->ssh,
         .arg = "COMMAND",
         .help = "the ssh client and its options, split at spaces, no quoting (default\n"
                 "$STEPNET_SSH, else ssh), e.g. \"ssh -p 2222 -i /home/me/lab.key\";\n"
                 "stepnet adds -T -o BatchMode=yes -o ConnectTimeout=S and sends the\n"
                 "cluster key on ssh's standard input, never on a command line"},
        {.name = "--port-range",
         .kind = SN_OPT_STR,
         .str = &w->port_range,
         .arg = "LO-HI",
         .help = "the control listener takes the first free port from LO to HI (with\n"
                 "--listen HOST:0 or the default); local and ssh nodes' links too"},
    };
    RUN_OPTS_GROUP(table);
}

/* The options of `stepnet run` (bench: of `stepnet bench`) into t[RUN_OPTS_MAX], every group in
 * turn, then the end. */
static void run_table(sn_opt_t *t, raw_t *w, cli_run_t *run, int bench)
{
    t = run_opts_measure(t, w, run, bench);
    t = run_opts_nodes(t, w, run, bench);
    t = run_opts_outputs(t, w, run, bench);
    t = run_opts_links(t, w, run, bench);
    *t = (sn_opt_t){0}; /* RUN_OPTS_GROUPS groups, each checked to fit */
}

/* The outputs and dynamic broadcasting against the collective: --trace records one collective
 * of stepnet run, --csv is not dynbcast's (its --sweep-rho prints CSV), and the dynbcast options
 * need --coll dynbcast. */
static int check_outputs(const cli_opts_t *cli, const cli_run_t *run, int bench, sn_err_t *err)
{
    int dyn = cli_dyn_applies(cli->coll);
    if (run->trace_file && dyn)
        return sn_err_inval(err, "--trace applies to one collective, not to --coll dynbcast");
    if (bench && run->trace_file)
        return sn_err_inval(err, "--trace applies to stepnet run, not to the sweeps of bench");
    if (!bench && dyn && cli->topo && run->csv_file)
        return sn_err_inval(err,
                            "--csv does not apply to --coll dynbcast (its --sweep-rho prints CSV)");
    if (!(!bench && dyn && cli->topo) &&
        (run->dyn_lambda || run->dyn_rho || run->dyn_sweep || run->dyn_slots > 0))
        return sn_err_inval(
            err, "--lambda, --rho, --sweep-rho and --slots apply to --coll dynbcast only");
    return 0;
}

int cli_run_parse(int argc, char **argv, cli_opts_t *cli, cli_run_t *run, const sn_help_t *help,
                  sn_err_t *err)
{
    int bench = cli->cmd && strcmp(cli->cmd, "bench") == 0;
    raw_t w;
    *run = (cli_run_t){.dyn_slots = -1};
    sn_coord_opts_t *o = &run->coord;
    raw_defaults(&w, o, bench);
    sn_opt_t extra[RUN_OPTS_MAX];
    run_table(extra, &w, run, bench);
    cli->cmd = bench ? "bench" : "run";
    int rc = cli_opts_parse(argc, argv, cli, extra, help, err);
    if (rc != 0)
        return rc;
    run->progress = cli->progress == 1 || (cli->progress == -1 && isatty(2));
    o->topo_text = cli->topo;
    apply_numbers(o, &w);
    if ((rc = check_command(cli, run, &w, bench, err)) < 0 || (rc = check_nodes(o, &w, err)) < 0 ||
        (rc = check_security(o, &w, err)) < 0 ||
        (rc = check_hosts(o, w.map_by, w.nodes, w.insecure_ok, err)) < 0 ||
        (w.fault && (rc = parse_fault(w.fault, o, err)) < 0) ||
        (rc = check_trace(run, &w, err)) < 0 || (rc = check_sync(cli, o, &w, err)) < 0)
        return rc;
    if ((rc = check_emu_token(o, &w, err)) < 0)
        return rc;
    return check_outputs(cli, run, bench, err);
}

void cli_run_job(const cli_ctx_t *c, sn_coord_job_t *job)
{
    *job = (sn_coord_job_t){.topo = c->topo,
                            .params = c->params,
                            .algo = c->algo,
                            .plan = c->plan,
                            .predicted = c->predicted};
}

int cli_coord_run(const sn_coord_opts_t *o, sn_coord_result_t *res, sn_err_t *err)
{
    sn_coord_opts_t opts = *o; /* the engine borrows it for the run only */
    if (opts.name_param == NULL)
        opts.name_param = cli_param_name;
    int rc = sn_coord_run(&opts, res, err);
    if (rc == 0 && res->failed) {
        char named[sizeof res->error];
        sn_err_expand(res->error, cli_param_name, named, sizeof named);
        memcpy(res->error, named, sizeof named);
    }
    return rc;
}

/* The progress drawer of one run (run.h). */
void cli_run_progress(sn_coord_opts_t *o, int on, const char *cmd, cli_progress_t *p)
{
    if (!on)
        return;
    cli_progress_init(p, cmd, stderr, isatty(2));
    o->progress = cli_progress_event;
    o->progress_ctx = p;
}

/* --sizes of `stepnet bench` (or the default) into run->coord, the largest into cli->size. */
int cli_bench_sizes(cli_opts_t *cli, cli_run_t *run, uint32_t **sizes, sn_err_t *err)
{
    size_t n = 0;
    int rc = cli_sizes_parse(run->sizes_text ? run->sizes_text : CLI_BENCH_DEFAULT_SIZES, sizes, &n,
                             err);
    if (rc < 0)
        return rc;
    run->coord.sizes = *sizes;
    run->coord.nsizes = n;
    cli->size = (*sizes)[n - 1];
    return 0;
}
