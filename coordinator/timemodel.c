/* The time model of a run (coordinator): turns the calibration the coordinator gathered (per edge,
 * per node on all links at once, the control legs, the empty slot at start-up and in every
 * repetition's barrier) into the terms of core/model/timemodel.c and feeds it the run's schedule
 * replayed by the simulator (the same transmissions the nodes made: equal steps and trace hash),
 * and the same transmissions to the dataflow model (core/model/critical_path.c) (docs/model.md,
 * "The time model"). The report of its terms is the command's (cli/timemodel_report.c). */
#define _DEFAULT_SOURCE /* getloadavg (glibc; not in POSIX) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "coordinator/coord_internal.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

/* Both models fed the same transmissions. */
typedef struct models_s {
    sn_tm_t *slots;
    sn_cp_t *dataflow;
} models_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    models_t *m = ctx;
    sn_tm_send(m->slots, slot, node, port, pkt->kind == SN_PKT_DATA);
    sn_cp_send(m->dataflow, slot, node, port, pkt->kind == SN_PKT_DATA);
}

/* The empty slot of point pt: the start-up samples and, one per measured repetition of the size,
 * its in-band barrier's. */
static void calibrate_slot(const sn_coord_result_t *res, const sn_coord_point_t *pt,
                           sn_coord_calib_t *out)
{
    double *reps = sn_xcalloc(pt->nbarrier + 1, sizeof *reps);
    size_t nreps = sn_coord_barrier_slot_us(pt->barrier_ns, pt->nbarrier, res->ctl_us,
                                            res->barrier_slots, reps);
    sn_coord_calib_slot(res->empty_slot_samples_us, res->nempty_slot_samples, reps, nreps, out);
    free(reps);
}

/* Whether the calibration of point pt looks disturbed, into pt->calib.disturbed: the load
 * average counts only when the nodes ran on this machine. */
static void judge_calibration(const sn_coord_opts_t *o, const sn_coord_result_t *res,
                              sn_coord_point_t *pt)
{
    double load = -1, l[1];
    long cores = 0;
    sn_launch_opts_t lo;
    if (sn__coord_launcher(o, &lo)->one_clock) {
        load = getloadavg(l, 1) == 1 ? l[0] : -1;
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    }
    double measured = sn_coord_median_ns_us(pt->wall_ns, pt->nwall);
    double pred = sn_coord_point_model_us(res, pt);
    double ratio = measured > 0 && pred > 0 ? measured / pred : 0;
    pt->calib.load_avg = load;
    pt->calib.cores = cores > 0 ? (unsigned) cores : 0;
    pt->calib.disturbed =
        sn_coord_calib_disturbed(&pt->calib, res->alpha_us, load, pt->calib.cores, ratio);
}

/* The models of the run at point pt's packet size (its schedule replayed in the simulator, its
 * steps plus the in-band barrier's empty slots, the empty slot from pt->calib); 0 with pt->model
 * and pt->dataflow filled, or -1 when they cannot be computed. */
static int model_at(const sn_coord_opts_t *o, const sn_coord_result_t *res, sn_coord_point_t *pt)
{
    uint32_t size = pt->size;
    uint64_t steps = pt->steps;
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
    /* The collective's slots take the empty slot's steady cost; the in-band barrier's slots take
     * what the repetitions' barrier measured, which also holds how unevenly the START reached the
     * nodes (with a one-slot barrier all of it: te on complete:8 over 200 us links was predicted
     * 1.2-1.4 times its measured time when every slot took it). */
    double reps_slot = pt->calib.slot_us > 0 ? pt->calib.slot_us : res->empty_slot_us;
    double steady = pt->calib.steady_us > 0 ? pt->calib.steady_us : reps_slot;
    sn_tm_calib_t cal = {.edge_alpha_us = res->edge_alpha_us,
                         .edge_beta_us = beta,
                         .node_alpha_us = nalpha,
                         .node_beta_us = nbeta,
                         .ctl_us = res->ctl_us > 0 ? res->ctl_us : 0,
                         .slot_us = o->idle_slots ? reps_slot : steady,
                         .steady_slot_us = pt->calib.steady_us,
                         .size = size};
    models_t m = {sn_tm_new(t, &cal), sn_cp_new(t, &cal, c->params.pm)};
    if (o->idle_slots) {
        steps = o->idle_slots; /* empty frames only: every slot takes the floor */
    } else {
        /* The schedule at the job's own parameters, not at this point's size: a plan keeps a
         * pointer to the parameters it was built with (the sweep's largest size), so a copy at
         * another size made the simulator's payload check fail and left every point of a sweep
         * but the largest without a model. Which packet crosses which link in which slot does
         * not depend on the size; the models take the size from cal. */
        sn_sim_opts_t so = {0};
        so.max_slots = sn_model_slot_limit(t, &c->params, c->predicted);
        so.on_send = on_send;
        so.send_ctx = &m;
        sn_sim_result_t sr;
        sn_err_t err = {0};
        if (sn_sim_run(t, &c->params, c->algo, c->plan, &so, &sr, &err) < 0 || !sr.verified ||
            sr.steps != steps) /* cannot happen for a verified run: no model then */
            goto out;
    }
    sn_tm_finish(m.slots, steps, &pt->model);
    sn_cp_finish(m.dataflow, &pt->dataflow);
    /* the in-band barrier before each repetition: empty slots, in the wall time; it stays
     * lock-step in dataflow execution too */
    if (!o->idle_slots) {
        sn_tm_add_barrier(&pt->model, res->barrier_slots, reps_slot);
        sn_cp_add_barrier(&pt->dataflow, res->barrier_slots, reps_slot);
    }
    rc = 0;
out:
    sn_tm_free(m.slots);
    sn_cp_free(m.dataflow);
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
        pt->has_model = 0;
        if (pt->state != SN_COORD_POINT_DONE || res->failed)
            continue;
        calibrate_slot(res, pt, &pt->calib);
        pt->has_model = model_at(o, res, pt) == 0;
        if (pt->has_model)
            judge_calibration(o, res, pt);
    }
    res->has_model = 0;
    for (size_t k = res->npoints; k-- > 0;)
        if (res->points[k].state == SN_COORD_POINT_DONE) {
            res->has_model = res->points[k].has_model;
            res->model = res->points[k].model;
            res->dataflow = res->points[k].dataflow;
            res->calib = res->points[k].calib;
            break;
        }
}
