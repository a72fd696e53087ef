/* The launch side of the ready deadline (launch): its default by launch mode and node count
 * (pure, tested in tests/unit/test_launch_ready.c), and, for its message, what each launcher
 * knows of a node that is late (docs/runtime.md, "The ready deadline"). */
#include <stdio.h>

#include "coord_internal.h"

sn_launch_mode_t sn_launch_mode_of(const sn_coord_opts_t *o)
{
    if (o->hosts)
        return SN_LAUNCH_SSH;
    if (o->daemons)
        return SN_LAUNCH_DAEMONS;
    return o->join ? SN_LAUNCH_JOIN : SN_LAUNCH_LOCAL;
}

uint32_t sn_launch_ready_default_ms(sn_launch_mode_t mode, uint32_t nodes)
{
    /* Sessions start all at once, but their key exchanges, remote shells and processes share the
     * coordinator's and the hosts' CPUs: the time to start them all grows with their number
     * (16 sessions on a loaded 2-core machine needed more than the former fixed 30 s). */
    uint64_t per_node = mode == SN_LAUNCH_SSH ? SN_LAUNCH_READY_SSH_MS : SN_LAUNCH_READY_NODE_MS;
    uint64_t ms = SN_LAUNCH_READY_BASE_MS + per_node * nodes;
    return ms < SN_LAUNCH_READY_MAX_MS ? (uint32_t) ms : SN_LAUNCH_READY_MAX_MS;
}

const char *sn__launch_late(const sn_coord_t *r, const sn_coord_node_t *cn, char *host, size_t cap)
{
    switch (sn_launch_mode_of(r->o)) {
    case SN_LAUNCH_SSH:
        return sn__launch_ssh_late(r, cn, host, cap);
    case SN_LAUNCH_DAEMONS:
        return sn__launch_daemons_late(r, cn, host, cap);
    case SN_LAUNCH_JOIN:
        snprintf(host, cap, "%s", cn->hello ? cn->host : "");
        return cn->hello ? NULL : "not joined";
    case SN_LAUNCH_LOCAL:
    default:
        host[0] = '\0'; /* every local node is on this machine */
        if (cn->hello)
            return NULL;
        return cn->spawned && !cn->exited ? "process started but no hello" : "process not running";
    }
}
