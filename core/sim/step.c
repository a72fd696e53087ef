/* The one per-node slot step of both executors (core/sim): the simulator and stepnet-node call
 * sn_exec_step for every node step and sn_exec_check_arrivals for every node's arrivals, and
 * report the error these write unchanged. The port-model rules of the slot model (docs/model.md)
 * are therefore written once: a send that breaks them fails the run with the same text in
 * `stepnet sim` and `stepnet run`. */
#include <stdio.h>

#include "stepnet/sim.h"

int sn_exec_step(const sn_algo_t *a, void *state, const sn_topo_t *t, const sn_portmodel_t *pm,
                 uint32_t node, sn_step_t *io, sn_verify_t *verify, uint8_t *mark, sn_err_t *err)
{
    char b1[SN_TOPO_MAX_LABEL];
    unsigned long long slot = (unsigned long long) io->slot;
    io->ntx = io->ndlv = 0;
    io->wake = SN_WAKE_NEVER;
    io->queue = SN_QUEUE_UNREPORTED;
    int rc = a->node_step(state, io, err);
    if (rc < 0) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        return sn_err_set(err, rc, "slot %llu: node %s: %s", slot,
                          sn_topo_label(t, node, b1, sizeof b1), m);
    }
    for (size_t i = 0; i < io->ndlv; i++)
        if ((rc = sn_verify_delivery(verify, node, io->slot, &io->dlv[i], err)) < 0)
            return rc;
    if (pm->ports == SN_PORTS_SINGLE && io->ntx > 1)
        return sn_err_set(err, SN_EPORT,
                          "slot %llu: node %s sent %zu packets (ports %u and %u); single-port "
                          "allows one per slot",
                          slot, sn_topo_label(t, node, b1, sizeof b1), io->ntx, io->tx[0].port,
                          io->tx[1].port);
    uint32_t deg = sn_topo_degree(t, node);
    for (size_t i = 0; i < io->ntx; i++) {
        uint32_t port = io->tx[i].port;
        if (port >= deg || mark[port]) {
            for (size_t j = 0; j < i; j++) /* leave the scratch as it was given */
                mark[io->tx[j].port] = 0;
            if (port >= deg)
                return sn_err_set(err, SN_EALGO,
                                  "slot %llu: node %s sent on port %u but has %u ports", slot,
                                  sn_topo_label(t, node, b1, sizeof b1), port, deg);
            return sn_err_set(err, SN_EPORT,
                              "slot %llu: node %s sent two packets on port %u (link %u); a link "
                              "carries one packet per slot",
                              slot, sn_topo_label(t, node, b1, sizeof b1), port,
                              sn_topo_link_id(t, node, port));
        }
        mark[port] = 1;
    }
    for (size_t i = 0; i < io->ntx; i++)
        mark[io->tx[i].port] = 0;
    if (io->wake != SN_WAKE_NEVER && io->wake <= io->slot)
        return sn_err_set(err, SN_EALGO,
                          "slot %llu: node %s asked to be woken at slot %llu, which is not in the "
                          "future",
                          slot, sn_topo_label(t, node, b1, sizeof b1),
                          (unsigned long long) io->wake);
    return 0;
}

int sn_exec_check_arrivals(const sn_topo_t *t, const sn_portmodel_t *pm, uint32_t node,
                           uint64_t slot, const sn_msg_t *rx, size_t nrx, const uint8_t *echo,
                           sn_err_t *err)
{
    char b1[SN_TOPO_MAX_LABEL], b2[SN_TOPO_MAX_LABEL];
    if (pm->duplex == SN_DUPLEX_HALF && echo != NULL) {
        for (size_t i = 0; i < nrx; i++) {
            if (!echo[i])
                continue;
            const sn_port_t *pp = sn_topo_port(t, node, rx[i].port);
            return sn_err_set(err, SN_EPORT,
                              "slot %llu: edge %s-%s (edge %u) carries packets both ways; half "
                              "duplex allows one packet per edge per slot",
                              (unsigned long long) slot, sn_topo_label(t, node, b1, sizeof b1),
                              sn_topo_label(t, pp->peer, b2, sizeof b2), pp->edge);
        }
    }
    if (pm->ports == SN_PORTS_SINGLE && pm->rx == SN_RX_ONE && nrx > 1) {
        const sn_port_t *p0 = sn_topo_port(t, node, rx[0].port);
        const sn_port_t *p1 = sn_topo_port(t, node, rx[1].port);
        return sn_err_set(err, SN_EPORT,
                          "slot %llu: node %s receives two packets (links %u and %u); single-port "
                          "with one reception per slot (rx one) allows one",
                          (unsigned long long) slot, sn_topo_label(t, node, b1, sizeof b1),
                          sn_topo_link_id(t, p0->peer, p0->rport),
                          sn_topo_link_id(t, p1->peer, p1->rport));
    }
    return 0;
}
