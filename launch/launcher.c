/* The table of launchers (launch): one row per launcher (launch_internal.h), the choice of one
 * for a run's settings, made once by the engine, and what the rows share: the ready deadline's
 * default (pure, tested in tests/unit/test_launcher.c) and the check of the launchers that start
 * one process per node here. Adding a launcher is a file of launch/ and a row here. */
#include <stdio.h>

#include "launch/launch_internal.h"

const sn_launcher_ops_t *const sn_launchers[] = {
    &sn__launch_ssh,     /* hosts: one ssh session per node */
    &sn__launch_daemons, /* a daemon list: persistent daemons start them */
    &sn__launch_join,    /* join: started by someone else, they dial the coordinator */
    &sn__launch_local,   /* otherwise one process per node on this machine */
};
const size_t sn_nlaunchers = sizeof sn_launchers / sizeof sn_launchers[0];

const sn_launcher_ops_t *sn_launcher_of(const sn_launch_opts_t *o)
{
    if (o->hosts)
        return &sn__launch_ssh;
    if (o->daemons)
        return &sn__launch_daemons;
    return o->join ? &sn__launch_join : &sn__launch_local;
}

uint32_t sn_launch_ready_default_ms(const sn_launcher_ops_t *l, uint32_t nodes)
{
    /* Sessions start all at once, but their key exchanges, remote shells and processes share the
     * coordinator's and the hosts' CPUs: the time to start them all grows with their number
     * (16 sessions on a loaded 2-core machine needed more than the former fixed 30 s). */
    uint64_t ms = SN_LAUNCH_READY_BASE_MS + (uint64_t) l->ready_node_ms * nodes;
    return ms < SN_LAUNCH_READY_MAX_MS ? (uint32_t) ms : SN_LAUNCH_READY_MAX_MS;
}

int sn__launch_check_processes(const sn_launch_ctx_t *ctx, sn_err_t *err)
{
    if (ctx->n > SN_LAUNCH_MAX_PROCESSES)
        return sn_err_set(err, SN_EINVAL,
                          "%s has %u nodes; local runs start one process per node and allow at "
                          "most %u (use stepnet sim for larger networks)",
                          ctx->topo, ctx->n, SN_LAUNCH_MAX_PROCESSES);
    return 0;
}
