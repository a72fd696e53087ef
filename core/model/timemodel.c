/* The time model (core/model): a run's wall time from its slot schedule, per slot the maximum over
 * nodes of the link and NIC terms of what each node moves, plus the control legs. Contracts and
 * the formula in include/stepnet/timemodel.h; docs/model.md explains the terms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/timemodel.h"
#include "stepnet/util.h"

struct sn_tm_s {
    const sn_topo_t *t;
    sn_tm_calib_t c;
    double *alpha; /* [nedges]: measured, or the median of the measured ones */
    double floor;
    uint32_t floor_node;
    /* the slot being accumulated: per node its data frames and its largest link term */
    uint64_t slot;
    uint32_t *k;
    double *link;
    uint32_t *touched;
    size_t ntouched;
    uint8_t *is_touched;
    sn_tm_result_t r;
};

void sn_tm_edge_alpha(const sn_topo_t *t, const sn_tm_calib_t *c, double *alpha)
{
    double *meas = sn_xcalloc((size_t) t->nedges + 1, sizeof *meas);
    size_t nm = 0;
    for (uint32_t e = 0; e < t->nedges; e++)
        if (c->edge_alpha_us && c->edge_alpha_us[e] >= 0)
            meas[nm++] = c->edge_alpha_us[e];
    double med = 0;
    if (nm) {
        qsort(meas, nm, sizeof *meas, sn_cmp_double);
        med = meas[nm / 2];
    }
    free(meas);
    for (uint32_t e = 0; e < t->nedges; e++) {
        alpha[e] = c->edge_alpha_us && c->edge_alpha_us[e] >= 0 ? c->edge_alpha_us[e] : med;
        /* An empty frame's one-way time cannot exceed the measured empty slot, which waits for
         * one on every link: a ping series that says more was slowed by something else (a
         * process starting beside the run during the start-up pings), and its excess would set
         * every slot that carries data on the edge. */
        if (c->slot_us > 0 && alpha[e] > c->slot_us)
            alpha[e] = c->slot_us;
    }
}

sn_tm_t *sn_tm_new(const sn_topo_t *t, const sn_tm_calib_t *c)
{
    sn_tm_t *m = sn_xcalloc(1, sizeof *m);
    m->t = t;
    m->c = *c;
    m->alpha = sn_xcalloc((size_t) t->nedges + 1, sizeof *m->alpha);
    sn_tm_edge_alpha(t, c, m->alpha);
    for (uint32_t e = 0; e < t->nedges; e++)
        if (m->alpha[e] > m->floor) {
            m->floor = m->alpha[e];
            m->floor_node = t->edges[e].a;
        }
    for (uint32_t u = 0; c->node_alpha_us && u < t->n; u++)
        if (c->node_alpha_us[u] > m->floor) {
            m->floor = c->node_alpha_us[u];
            m->floor_node = u;
        }
    /* A measured empty slot replaces the ping terms as the floor: it is the slot pattern itself
     * (every node wakes once, every link carries one frame, the slowest link waited for), while
     * a ping's half round trip also pays the echo's own frame and wakeup and so overstates a slot
     * when processes share cores or frames wait in an emulated delay (200 us links: pings of
     * 415-500 us one way, slots of 510 us, concurrent rounds of 700 us per half). */
    if (c->slot_us > 0) {
        m->floor = c->slot_us;
        m->floor_node = UINT32_MAX; /* the whole network */
    }
    m->k = sn_xcalloc((size_t) t->n + 1, sizeof *m->k);
    m->link = sn_xcalloc((size_t) t->n + 1, sizeof *m->link);
    m->touched = sn_xcalloc((size_t) t->n + 1, sizeof *m->touched);
    m->is_touched = sn_xcalloc((size_t) t->n + 1, 1);
    m->r.floor_us = m->floor;
    m->r.floor_node = m->floor_node;
    m->r.ctl_us = c->ctl_us;
    return m;
}

void sn_tm_free(sn_tm_t *m)
{
    if (m == NULL)
        return;
    free(m->alpha);
    free(m->k);
    free(m->link);
    free(m->touched);
    free(m->is_touched);
    free(m);
}

/* Adds the slot being accumulated (and the empty slots before it) to the result. */
static void close_slot(sn_tm_t *m, uint64_t upto)
{
    if (m->slot == 0)
        return;
    double best = m->floor;
    uint32_t who = m->floor_node;
    int kind = 0; /* 0 floor, 1 link, 2 NIC */
    for (size_t i = 0; i < m->ntouched; i++) {
        uint32_t u = m->touched[i];
        if (m->link[u] > best) {
            best = m->link[u];
            who = u;
            kind = 1;
        }
        if (m->c.node_alpha_us && m->c.node_beta_us) {
            /* the node's fixed cost: the measured empty slot when there is one (see sn_tm_new) */
            double base = m->c.slot_us > 0 ? m->c.slot_us : m->c.node_alpha_us[u];
            double nic = base + (double) m->k[u] * (double) m->c.size * m->c.node_beta_us[u];
            if (nic > best) {
                best = nic;
                who = u;
                kind = 2;
            }
        }
        m->k[u] = 0;
        m->link[u] = 0;
        m->is_touched[u] = 0;
    }
    m->ntouched = 0;
    if (m->slot <= upto) {
        m->r.slots_us += best;
        m->r.floor_slots += kind == 0;
        m->r.link_slots += kind == 1;
        m->r.nic_slots += kind == 2;
        if (best > m->r.max_slot_us) {
            m->r.max_slot_us = best;
            m->r.max_slot = m->slot;
            m->r.max_slot_node = who;
        }
    }
}

void sn_tm_send(sn_tm_t *m, uint64_t slot, uint32_t node, uint32_t port, int data)
{
    if (slot != m->slot) {
        close_slot(m, UINT64_MAX);
        m->slot = slot;
    }
    const sn_topo_t *t = m->t;
    if (node >= t->n || port >= sn_topo_degree(t, node))
        return;
    uint32_t e = sn_topo_port(t, node, port)->edge;
    double beta = m->c.edge_beta_us && m->c.edge_beta_us[e] > 0 ? m->c.edge_beta_us[e] : 0;
    double cost = m->alpha[e] + (data ? (double) m->c.size * beta : 0);
    if (!m->is_touched[node]) {
        m->is_touched[node] = 1;
        m->touched[m->ntouched++] = node;
    }
    if (cost > m->link[node])
        m->link[node] = cost;
    m->k[node] += data != 0;
}

void sn_tm_finish(sn_tm_t *m, uint64_t steps, sn_tm_result_t *out)
{
    /* slots with transmissions were added as they closed; the rest take the floor */
    close_slot(m, steps);
    uint64_t seen = m->r.floor_slots + m->r.link_slots + m->r.nic_slots;
    if (steps > seen) {
        m->r.slots_us += (double) (steps - seen) * m->floor;
        m->r.floor_slots += steps - seen;
        if (m->floor > m->r.max_slot_us) {
            m->r.max_slot_us = m->floor;
            m->r.max_slot_node = m->floor_node;
        }
    }
    m->r.slots = steps;
    m->r.predicted_us = m->r.ctl_us + m->r.slots_us;
    m->slot = 0;
    *out = m->r;
}

void sn_tm_add_barrier(sn_tm_result_t *r, uint64_t slots, double slot_us)
{
    r->slots += slots;
    r->floor_slots += slots;
    r->slots_us += (double) slots * slot_us;
    r->predicted_us += (double) slots * slot_us;
    if (slots && slot_us > r->max_slot_us) {
        r->max_slot_us = slot_us;
        r->max_slot_node = UINT32_MAX;
    }
}

int sn_tm_conc_sized(uint64_t r)
{
    uint64_t pos = r % SN_TM_CONC_BLOCK;
    return pos >= SN_TM_CONC_REF && (pos - SN_TM_CONC_REF) % 2 == 1;
}

void sn_tm_conc_rtts(const uint64_t *r, uint32_t stride, uint32_t blocks, uint64_t *rtt0_ns,
                     uint64_t *rtt_ns)
{
    uint32_t np = blocks * SN_TM_CONC_PAIRS;
    uint64_t *ref = sn_xcalloc(np + 1, sizeof *ref), *sum = sn_xcalloc(np + 1, sizeof *sum);
    uint64_t *half = sn_xcalloc(blocks + 1, sizeof *half);
    for (uint32_t b = 0; b < blocks; b++) {
        uint64_t rb = r[(size_t) (SN_TM_CONC_REF - 2) * stride + b] +
                      r[(size_t) (SN_TM_CONC_REF - 1) * stride + b];
        half[b] = rb / 2;
        for (uint32_t j = 0; j < SN_TM_CONC_PAIRS; j++) {
            size_t pos = SN_TM_CONC_REF + 2 * (size_t) j;
            ref[b * SN_TM_CONC_PAIRS + j] = rb;
            sum[b * SN_TM_CONC_PAIRS + j] = r[pos * stride + b] + r[(pos + 1) * stride + b];
        }
    }
    qsort(half, blocks, sizeof *half, sn_cmp_u64);
    *rtt0_ns = blocks ? half[blocks / 2] : 0;
    *rtt_ns = *rtt0_ns + (uint64_t) (sn_tm_probe_extra(ref, sum, np) + 0.5);
    free(ref);
    free(sum);
    free(half);
}

int sn_tm_probe_sized(uint32_t probe, uint32_t probes)
{
    (void) probes; /* the order does not depend on the length: a cut-short series stays paired */
    return (int) (probe & 1);
}

int sn_tm_probe_clean(uint32_t probe, uint32_t probes)
{
    return probe < probes;
}

double sn_tm_probe_extra(const uint64_t *empty, const uint64_t *sized, uint32_t n)
{
    if (n == 0)
        return 0;
    double *d = sn_xcalloc(n, sizeof *d);
    for (uint32_t k = 0; k < n; k++)
        d[k] = (double) sized[k] - (double) empty[k];
    qsort(d, n, sizeof *d, sn_cmp_double);
    double med = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    for (uint32_t k = 0; k < n; k++)
        d[k] = fabs(d[k] - med);
    qsort(d, n, sizeof *d, sn_cmp_double);
    double mad = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    free(d);
    double stderr_med = 1.2533 * 1.4826 * mad / sqrt((double) n);
    return med > 2 * stderr_med && med > 0 ? med : 0;
}

void sn_tm_node_terms(double rtt0_us, double rtt_us, uint32_t deg, uint32_t size, double *nalpha_us,
                      double *nbeta_us)
{
    *nalpha_us = rtt0_us;
    double out = rtt_us - rtt0_us;
    *nbeta_us = deg && size && out > 0 ? out / ((double) deg * size) : 0;
}
