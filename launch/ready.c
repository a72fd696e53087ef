/* The launch side of the ready deadline (launch): its default by launch mode and node count
 * (pure, tested in tests/unit/test_launch_ready.c), and, for its message and for the progress
 * lines, what each launcher knows of its nodes (docs/runtime.md, "The ready deadline"). */
#include <stdio.h>

#include "coordinator/coord_internal.h"

sn_launch_mode_t sn_launch_mode_of(const sn_coord_opts_t *o)
{
    if (o->hosts)
        return SN_LAUNCH_SSH;
    if (o->daemons)
        return SN_LAUNCH_DAEMONS;
    return o->join ? SN_LAUNCH_JOIN : SN_LAUNCH_LOCAL;
}

const char *sn_launch_mode_name(sn_launch_mode_t mode)
{
    switch (mode) {
    case SN_LAUNCH_SSH:
        return "ssh";
    case SN_LAUNCH_DAEMONS:
        return "daemons";
    case SN_LAUNCH_JOIN:
        return "join";
    case SN_LAUNCH_LOCAL:
    default:
        return "local";
    }
}

uint32_t sn__launch_started(const sn_coord_t *r)
{
    sn_launch_mode_t mode = sn_launch_mode_of(r->o);
    if (mode == SN_LAUNCH_DAEMONS)
        return r->nreplied;
    if (mode == SN_LAUNCH_JOIN)
        return r->joined;
    uint32_t started = 0;
    for (uint32_t i = 0; i < r->n; i++)
        started += mode == SN_LAUNCH_SSH ? r->nodes[i].remote_started != 0 : r->nodes[i].spawned;
    return started;
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
