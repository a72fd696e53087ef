/* Local nodes (launch): the launcher of a local run. Spawns one stepnet-node process per topology
 * node on this machine, hands each the cluster key through a pipe, and notices when one exits
 * early. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "launch/launch_internal.h"
#include "proc/spawn.h"
#include "stepnet/util.h"

typedef struct local_s local_t;

/* One node's process. */
typedef struct local_node_s {
    local_t *l;
    uint32_t id;
    uv_process_t proc;
    int spawned, exited, hello;
} local_node_t;

struct local_s {
    const sn_launch_ctx_t *ctx;
    const char *bin; /* the stepnet-node program */
    char bin_buf[4096];
    local_node_t *nodes; /* [ctx->n] */
};

/* The stepnet-node to start: $STEPNET_NODE, else the one next to this executable. */
static const char *node_bin(char *buf, size_t cap)
{
    const char *env = getenv("STEPNET_NODE");
    if (env && *env)
        return env;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 16);
    if (n <= 0)
        return "stepnet-node";
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    snprintf(slash ? slash + 1 : buf, cap - (size_t) (slash ? slash + 1 - buf : 0), "stepnet-node");
    return buf;
}

static int prepare(const sn_launch_ctx_t *ctx, void **state, sn_err_t *err)
{
    (void) err;
    local_t *l = sn_xcalloc(1, sizeof *l);
    l->ctx = ctx;
    l->bin = ctx->o.node_bin ? ctx->o.node_bin : node_bin(l->bin_buf, sizeof l->bin_buf);
    l->nodes = sn_xcalloc(ctx->n, sizeof *l->nodes);
    for (uint32_t i = 0; i < ctx->n; i++) {
        l->nodes[i].l = l;
        l->nodes[i].id = i;
    }
    *state = l;
    return 0;
}

static void on_node_exit(uv_process_t *p, int64_t status, int term_signal)
{
    local_node_t *ln = p->data;
    const sn_launch_ctx_t *ctx = ln->l->ctx;
    char why[SN_LAUNCH_WHY_TEXT];
    ln->exited = 1;
    if (status != 0 || term_signal != 0) {
        if (term_signal)
            snprintf(why, sizeof why, "node %d (pid %d) was killed by signal %d (%s)", (int) ln->id,
                     p->pid, term_signal, strsignal(term_signal));
        else
            snprintf(why, sizeof why, "node %d (pid %d) exited with status %lld%s", (int) ln->id,
                     p->pid, (long long) status, ln->hello ? "" : " before joining the run");
        ctx->died(ctx->engine, ln->id, why);
    }
    ctx->exited(ctx->engine);
}

static int start(void *state, sn_err_t *err)
{
    local_t *l = state;
    const sn_launch_ctx_t *ctx = l->ctx;
    for (uint32_t i = 0; i < ctx->n; i++) {
        local_node_t *ln = &l->nodes[i];
        sn_node_cmd_t cmd = {.form = SN_NODE_CMD_LOCAL,
                             .coordinator = ctx->listen_addr,
                             .id = i,
                             .insecure = ctx->sec->mode != SN_SEC_SODIUM,
                             .quiet = !ctx->o.verbose,
                             .port_lo = ctx->o.port_lo,
                             .port_hi = ctx->o.port_hi};
        sn_node_argv_t argv;
        sn__launch_node_args(&cmd, &argv);
        /* the key on a pipe (proc/spawn.c); READY lines ignored: the coordinator already knows */
        char key_text[2 * SN_KEY_BYTES + 1]; /* sn_key_format: 64 hex digits and a newline */
        int keyed = ctx->sec->mode == SN_SEC_SODIUM;
        if (keyed)
            sn_key_format(ctx->sec->key, key_text);
        sn_spawn_opts_t so = {.bin = l->bin,
                              .args = argv.words,
                              .key_text = keyed ? key_text : NULL,
                              .key_len = sizeof key_text,
                              .exit_cb = on_node_exit,
                              .hint =
                                  "name the stepnet-node program with " SN_REF_NODE_BIN " PATH"};
        ln->proc.data = ln;
        int rc = sn_spawn_node(ctx->loop, &ln->proc, &so, err);
        sodium_memzero(key_text, sizeof key_text);
        if (rc < 0)
            return rc;
        ln->spawned = 1;
    }
    return 0;
}

static uint32_t started(const void *state)
{
    const local_t *l = state;
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->ctx->n; i++)
        n += l->nodes[i].spawned != 0;
    return n;
}

static void hello(void *state, const sn_launch_hello_t *h)
{
    local_t *l = state;
    l->nodes[h->id].hello = 1;
}

static const char *late(const void *state, uint32_t node, const char *hello_host, char *host,
                        size_t cap)
{
    const local_node_t *ln = &((const local_t *) state)->nodes[node];
    (void) hello_host;
    (void) cap;
    host[0] = '\0'; /* every local node is on this machine */
    if (ln->hello)
        return NULL;
    return ln->spawned && !ln->exited ? "process started but no hello" : "process not running";
}

static int running(const void *state, uint32_t node)
{
    const local_node_t *ln = &((const local_t *) state)->nodes[node];
    return ln->spawned && !ln->exited;
}

static void kill_all(void *state)
{
    local_t *l = state;
    for (uint32_t i = 0; i < l->ctx->n; i++)
        if (running(l, i))
            uv_process_kill(&l->nodes[i].proc, SIGKILL);
}

static void close_all(void *state)
{
    local_t *l = state;
    for (uint32_t i = 0; i < l->ctx->n; i++) {
        uv_handle_t *h = (uv_handle_t *) &l->nodes[i].proc;
        if (l->nodes[i].spawned && !uv_is_closing(h))
            uv_close(h, NULL);
    }
}

static void free_state(void *state)
{
    local_t *l = state;
    free(l->nodes);
    free(l);
}

const sn_launcher_ops_t sn__launch_local = {.name = "local",
                                            .ready_node_ms = SN_LAUNCH_READY_NODE_MS,
                                            .listen = SN_LAUNCH_DEFAULT_LISTEN,
                                            .ids_at_join = 0,
                                            .one_clock = 1,
                                            .check = sn__launch_check_processes,
                                            .prepare = prepare,
                                            .start = start,
                                            .started = started,
                                            .hello = hello,
                                            .late = late,
                                            .running = running,
                                            .kill = kill_all,
                                            .close = close_all,
                                            .free = free_state};
