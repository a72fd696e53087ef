/* The options of `stepnet run` (coordinator): the shared ones through cli_opts_parse, the run's own
 * through the same machinery (so every option takes --name value and --name=value), then the
 * checks that need several of them together. Errors are SN_EINVAL with an sn_err_t that names the
 * bad value and what is accepted; nothing is printed here except --help. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "coord.h"
#include "secure.h"
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

int coord_opts_parse(int argc, char **argv, cli_opts_t *cli, coord_opts_t *o, const char **out_file,
                     const char *usage, sn_err_t *err)
{
    coord_opts_default(o);
    o->dyn_slots = -1;
    *out_file = NULL;
    int64_t reps = o->reps, warmup = o->warmup, probes = o->probes, idle = 0;
    int64_t connect = o->connect_ms, ready = o->ready_ms, slot = o->slot_ms;
    int64_t collective = o->collective_ms, heartbeat = o->heartbeat_ms;
    const char *nodes = "local", *security = "sodium", *fault = NULL, *token = NULL;
    const char *port_range = NULL;
    int insecure_ok = 0;
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
        {.name = "--port-range", .str = &port_range},
        {0},
    };
    cli->cmd = "run";
    int rc = cli_opts_parse(argc, argv, cli, extra, usage, err);
    if (rc != 0)
        return rc;
    o->reps = (uint32_t) reps;
    o->warmup = (uint32_t) warmup;
    o->probes = (uint32_t) probes;
    o->idle_slots = (uint64_t) idle;
    o->connect_ms = (uint32_t) connect;
    o->ready_ms = (uint32_t) ready;
    o->slot_ms = (uint32_t) slot;
    o->collective_ms = (uint32_t) collective;
    o->heartbeat_ms = (uint32_t) heartbeat;
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
    if (o->security == SN_SEC_SODIUM && o->daemons && o->key_file == NULL)
        return bad(err, "--nodes ADDR,... (daemons) needs --key FILE, the cluster key the "
                        "daemons were started with, or --security none --insecure-ok");
    if (o->security == SN_SEC_SODIUM && o->join && o->key_file == NULL)
        return bad(err, "--nodes join needs --key FILE, the cluster key every node also gets "
                        "(create it with stepnet keygen FILE), or --security none --insecure-ok");
    if (fault && (rc = parse_fault(fault, o, err)) < 0)
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
