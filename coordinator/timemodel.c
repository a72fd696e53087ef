/* The time model of a run (coordinator): turns the calibration the coordinator gathered (per edge,
 * per node on all links at once, the control legs) into the terms of core/model/timemodel.c and
 * feeds it the run's schedule replayed by the simulator (the same transmissions the nodes made:
 * equal steps and trace hash) (docs/model.md, "The time model"). The report of its terms is the
 * command's (cli/timemodel_report.c). */
#include <stdio.h>
#include <stdlib.h>

#include "coord.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    sn_tm_send(ctx, slot, node, port, pkt->kind == SN_PKT_DATA);
}

/* The model of the run at packet size `size` (its schedule replayed in the simulator, its steps
 * plus the in-band barrier's empty slots); 0 with *out filled, or -1 when it cannot be computed. */
static int model_at(const sn_coord_opts_t *o, const sn_coord_result_t *res, uint32_t size,
                    uint64_t steps, sn_tm_result_t *out)
{
    const sn_coord_job_t *c = &o->job;
    const sn_topo_t *t = c->topo;
    if (res->failed || res->ncalibrated == 0 || res->edge_alpha_us == NULL)
        return -1;
    int rc = -1;
    /* per byte: the probes' difference over the probes' size (a sweep's points share the probes of
     * its largest size, and probes are capped at SN_COORD_PROBE_MAX_BYTES) */
    uint32_t pb = res->probe_bytes;
    double *beta = sn_xcalloc((size_t) t->nedges + 1, sizeof *beta);
    for (uint32_t e = 0; e < t->nedges; e++)
        beta[e] = pb && res->edge_alpha_us[e] >= 0 && res->edge_hop_us[e] > res->edge_alpha_us[e]
                      ? (res->edge_hop_us[e] - res->edge_alpha_us[e]) / pb
                      : 0;
    /* per node: the NIC terms of its concurrent rounds */
    double *nalpha = NULL, *nbeta = NULL;
    if (res->node_conc_rtt0_us) {
        nalpha = sn_xcalloc((size_t) t->n + 1, sizeof *nalpha);
        nbeta = sn_xcalloc((size_t) t->n + 1, sizeof *nbeta);
        for (uint32_t u = 0; u < t->n; u++)
            if (res->node_conc_rtt0_us[u] >= 0)
                sn_tm_node_terms(res->node_conc_rtt0_us[u], res->node_conc_rtt_us[u],
                                 sn_topo_degree(t, u), pb, &nalpha[u], &nbeta[u]);
    }
    sn_tm_calib_t cal = {.edge_alpha_us = res->edge_alpha_us,
                         .edge_beta_us = beta,
                         .node_alpha_us = nalpha,
                         .node_beta_us = nbeta,
                         .ctl_us = res->ctl_us > 0 ? res->ctl_us : 0,
                         .slot_us = res->empty_slot_us,
                         .size = size};
    sn_tm_t *m = sn_tm_new(t, &cal);
    if (o->idle_slots) {
        steps = o->idle_slots; /* empty frames only: every slot takes the floor */
    } else {
        sn_params_t p = c->params;
        p.size = size;
        sn_sim_opts_t so = {0};
        so.max_slots = sn_model_slot_limit(t, &p, c->predicted);
        so.on_send = on_send;
        so.send_ctx = m;
        sn_sim_result_t sr;
        sn_err_t err = {0};
        if (sn_sim_run(t, &p, c->algo, c->plan, &so, &sr, &err) < 0 || !sr.verified ||
            sr.steps != steps) /* cannot happen for a verified run: no model then */
            goto out;
        steps += res->barrier_slots; /* the in-band barrier: empty slots, in the wall time */
    }
    sn_tm_finish(m, steps, out);
    rc = 0;
out:
    sn_tm_free(m);
    free(beta);
    free(nalpha);
    free(nbeta);
    return rc;
}

void sn_coord_time_model(const sn_coord_opts_t *o, sn_coord_result_t *res)
{
    /* per packet size (a sweep's), then the run's: the last size that ran */
    for (size_t k = 0; k < res->npoints; k++) {
        sn_coord_point_t *pt = &res->points[k];
        pt->has_model = pt->state == SN_COORD_POINT_DONE &&
                        model_at(o, res, pt->size, pt->steps, &pt->model) == 0;
    }
    res->has_model = 0;
    for (size_t k = res->npoints; k-- > 0;)
        if (res->points[k].state == SN_COORD_POINT_DONE) {
            res->has_model = res->points[k].has_model;
            res->model = res->points[k].model;
            break;
        }
}
