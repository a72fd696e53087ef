/* The dataflow time model (core/model): the critical path of a slot schedule executed without
 * the slot barrier, each node playing a logical slot once everything delivered to it before that
 * slot has arrived and each transmission waiting for its port. Contracts and the formula in
 * include/stepnet/critical_path.h; docs/model.md ("Dataflow time") explains the terms. */
#include <stdlib.h>

#include "stepnet/critical_path.h"
#include "stepnet/util.h"

struct sn_cp_s {
    const sn_topo_t *t;
    sn_tm_calib_t c;
    sn_portmodel_t pm;
    double *alpha;     /* [nedges]: sn_tm_edge_alpha */
    double *ready;     /* [n]: R_u of the slot being fed: the latest arrival of earlier slots */
    double *incoming;  /* [n]: the latest arrival at u of the slot being fed (ready next slot) */
    uint32_t *touched; /* nodes with an arrival in the slot being fed */
    size_t ntouched;
    uint8_t *is_touched;
    double *port_free; /* [n + 3 nedges]: port_key */
    double *nic_free;  /* [n] */
    uint64_t slot;
    sn_cp_result_t r;
};

sn_cp_t *sn_cp_new(const sn_topo_t *t, const sn_tm_calib_t *c, sn_portmodel_t pm)
{
    sn_cp_t *m = sn_xcalloc(1, sizeof *m);
    m->t = t;
    m->c = *c;
    m->pm = pm;
    m->alpha = sn_xcalloc((size_t) t->nedges + 1, sizeof *m->alpha);
    sn_tm_edge_alpha(t, c, m->alpha);
    m->ready = sn_xcalloc((size_t) t->n + 1, sizeof *m->ready);
    m->incoming = sn_xcalloc((size_t) t->n + 1, sizeof *m->incoming);
    m->touched = sn_xcalloc((size_t) t->n + 1, sizeof *m->touched);
    m->is_touched = sn_xcalloc((size_t) t->n + 1, 1);
    m->port_free = sn_xcalloc(3 * (size_t) t->nedges + t->n + 1, sizeof *m->port_free);
    m->nic_free = sn_xcalloc((size_t) t->n + 1, sizeof *m->nic_free);
    m->r.ctl_us = c->ctl_us;
    m->r.last_node = UINT32_MAX;
    /* w: what the measured empty slot lasts beyond its slowest frame, over its frames (one on
     * every directed link); the edges' alpha are capped at the empty slot (sn_tm_edge_alpha) */
    double slowest = 0;
    for (uint32_t e = 0; e < t->nedges; e++)
        if (m->alpha[e] > slowest)
            slowest = m->alpha[e];
    double empty = c->steady_slot_us > 0 ? c->steady_slot_us : c->slot_us;
    if (empty > slowest && t->nedges > 0)
        m->r.frame_us = (empty - slowest) / (2.0 * t->nedges);
    return m;
}

void sn_cp_free(sn_cp_t *m)
{
    if (m == NULL)
        return;
    free(m->alpha);
    free(m->ready);
    free(m->incoming);
    free(m->touched);
    free(m->is_touched);
    free(m->port_free);
    free(m->nic_free);
    free(m);
}

/* The arrivals of the slot fed so far become what the next slots wait for. */
static void close_slot(sn_cp_t *m)
{
    for (size_t i = 0; i < m->ntouched; i++) {
        uint32_t v = m->touched[i];
        if (m->incoming[v] > m->ready[v])
            m->ready[v] = m->incoming[v];
        m->is_touched[v] = 0;
    }
    m->ntouched = 0;
}

/* Where the port of a transmission is in port_free: one per node in the single-port model (the
 * node sends one packet at a time), one per edge under half duplex (both directions share the
 * link), else one per directed link (after the per-node and per-edge ones). */
static size_t port_key(const sn_cp_t *m, uint32_t node, uint32_t port, uint32_t e)
{
    const sn_topo_t *t = m->t;
    if (m->pm.ports == SN_PORTS_SINGLE)
        return node;
    if (m->pm.duplex == SN_DUPLEX_HALF)
        return (size_t) t->n + e;
    return (size_t) t->n + t->nedges + sn_topo_link_id(t, node, port);
}

void sn_cp_send(sn_cp_t *m, uint64_t slot, uint32_t node, uint32_t port, int data)
{
    const sn_topo_t *t = m->t;
    if (node >= t->n || port >= sn_topo_degree(t, node))
        return;
    if (slot != m->slot) {
        close_slot(m);
        m->slot = slot;
    }
    const sn_port_t *p = sn_topo_port(t, node, port);
    uint32_t e = p->edge;
    size_t key = port_key(m, node, port, e);
    double beta = m->c.edge_beta_us && m->c.edge_beta_us[e] > 0 ? m->c.edge_beta_us[e] : 0;
    double serial = data ? (double) m->c.size * beta : 0;
    double start = m->ready[node];
    if (m->port_free[key] > start)
        start = m->port_free[key];
    double nic = 0;
    if (data && m->c.node_beta_us && m->c.node_beta_us[node] > 0) {
        nic = (double) m->c.size * m->c.node_beta_us[node];
        if (m->nic_free[node] > start)
            start = m->nic_free[node];
        m->nic_free[node] = start + nic;
    }
    m->port_free[key] = start + serial;
    double arrive = start + m->alpha[e] + (nic > serial ? nic : serial);
    uint32_t v = p->peer;
    if (!m->is_touched[v]) {
        m->is_touched[v] = 1;
        m->touched[m->ntouched++] = v;
        m->incoming[v] = 0;
    }
    if (arrive > m->incoming[v])
        m->incoming[v] = arrive;
    if (arrive > m->r.path_us || m->r.last_node == UINT32_MAX) {
        m->r.path_us = arrive;
        m->r.last_node = v;
        m->r.last_slot = slot;
    }
    m->r.transmissions++;
}

void sn_cp_finish(sn_cp_t *m, sn_cp_result_t *out)
{
    m->r.cpu_us = (double) m->r.transmissions * m->r.frame_us;
    m->r.predicted_us = m->r.ctl_us + m->r.barrier_us + m->r.path_us + m->r.cpu_us;
    *out = m->r;
}

void sn_cp_add_barrier(sn_cp_result_t *r, uint64_t slots, double slot_us)
{
    r->barrier_us += (double) slots * slot_us;
    r->predicted_us += (double) slots * slot_us;
}
