/* Joining nodes (launch): the launcher of `stepnet run --nodes join`, which starts nothing. The
 * nodes are started by someone else (`stepnet-node --join HOST:PORT`, a batch system, a
 * container orchestrator) and dial the control listener; the coordinator gives each the id it
 * asks for, or the lowest free one in the order they join. */
#include <stdio.h>
#include <stdlib.h>

#include "launch/launch_internal.h"
#include "net/addr.h"
#include "stepnet/util.h"

typedef struct join_s {
    const sn_launch_ctx_t *ctx;
} join_t;

static int prepare(const sn_launch_ctx_t *ctx, void **state, sn_err_t *err)
{
    (void) err;
    join_t *j = sn_xcalloc(1, sizeof *j);
    j->ctx = ctx;
    *state = j;
    return 0;
}

/* Nothing to start: the line says where to join. */
static int start(void *state, sn_err_t *err)
{
    const join_t *j = state;
    (void) err;
    sn_log_write(j->ctx->log, SN_LOG_INFO, "COORD-WAITING",
                 "waiting for %u nodes: " SN_REF_NODE_JOIN " %s", j->ctx->n, j->ctx->listen_addr);
    return 0;
}

/* Each join is told, since nobody else knows where the nodes came from. */
static void hello(void *state, const sn_launch_hello_t *h)
{
    const join_t *j = state;
    char at[SN_ADDR_MAX_TEXT];
    sn_log_write(j->ctx->log, SN_LOG_INFO, "COORD-JOINED",
                 "node %d joined from %s (pid %u on %s), %u of %u", (int) h->id,
                 sn_addr_print(h->host, h->port, at, sizeof at), h->pid,
                 h->hostname ? h->hostname : "?", h->joined, j->ctx->n);
}

static const char *late(const void *state, uint32_t node, const char *hello_host, char *host,
                        size_t cap)
{
    (void) state;
    (void) node;
    snprintf(host, cap, "%s", hello_host ? hello_host : "");
    return hello_host ? NULL : "not joined";
}

static void free_state(void *state)
{
    free(state);
}

const sn_launcher_ops_t sn__launch_join = {.name = "join",
                                           .ready_node_ms = SN_LAUNCH_READY_NODE_MS,
                                           .listen = SN_LAUNCH_DEFAULT_LISTEN,
                                           .ids_at_join = 1,
                                           .one_clock = 0,
                                           .prepare = prepare,
                                           .start = start,
                                           .hello = hello,
                                           .late = late,
                                           .free = free_state};
