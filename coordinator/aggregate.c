/* Aggregation (coordinator): the link calibration (per-link ping-pong timings to medians of alpha
 * and beta) and each repetition's check and combination of the nodes' results: deliveries,
 * payload digest sums, steps and trace hash equal across repetitions, the wall times, and the
 * collective times from the nodes' own timestamps. */
#include <stdlib.h>
#include <string.h>

#include "coordinator/coord_internal.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

#define NS_PER_US       1000.0
#define CALIB_FIRST_CAP 64

void sn__coord_add_calibration(sn_coord_t *r, const Stepnet__Calibrated *cal)
{
    if (cal->node < r->n && cal->has_conc_rtt0_ns && cal->has_conc_rtt_ns &&
        r->res->node_conc_rtt0_us) {
        r->res->node_conc_rtt0_us[cal->node] = (double) cal->conc_rtt0_ns / NS_PER_US;
        r->res->node_conc_rtt_us[cal->node] = (double) cal->conc_rtt_ns / NS_PER_US;
    }
    /* per link: alpha = rtt(0 bytes) / 2, beta = (rtt(size) - rtt(0)) / (2 size) */
    for (size_t i = 0; i < cal->n_links; i++) {
        const Stepnet__LinkTiming *lt = cal->links[i];
        if (r->ncalib == r->capcalib) {
            r->capcalib = r->capcalib ? 2 * r->capcalib : CALIB_FIRST_CAP;
            r->alpha = sn_xrealloc(r->alpha, r->capcalib * sizeof *r->alpha);
            r->beta = sn_xrealloc(r->beta, r->capcalib * sizeof *r->beta);
        }
        r->alpha[r->ncalib] = (double) lt->rtt0_ns / (2 * NS_PER_US);
        if (r->res->edge_alpha_us && lt->edge < r->t->nedges) {
            r->res->edge_alpha_us[lt->edge] = (double) lt->rtt0_ns / (2 * NS_PER_US);
            r->res->edge_hop_us[lt->edge] = (double) lt->rtt_ns / (2 * NS_PER_US);
        }
        r->beta[r->ncalib] = lt->bytes && lt->rtt_ns > lt->rtt0_ns
                                 ? (double) (lt->rtt_ns - lt->rtt0_ns) / (2 * NS_PER_US) / lt->bytes
                                 : 0.0;
        r->ncalib++;
        /* and the link itself, for the report (per-link calibration) */
        sn_coord_result_t *out = r->res;
        sn_grow((void **) &out->links, &r->caplinks, out->nlinks + 1, sizeof *out->links);
        sn_coord_link_cal_t *lk = &out->links[out->nlinks++];
        lk->edge = lt->edge;
        lk->a = lt->edge < r->t->nedges ? r->t->edges[lt->edge].a : 0;
        lk->b = lt->edge < r->t->nedges ? r->t->edges[lt->edge].b : 0;
        lk->rtt0_ns = lt->rtt0_ns;
        lk->rtt_ns = lt->rtt_ns;
        lk->bytes = lt->bytes;
    }
}

void sn__coord_ctl_done(sn_coord_t *r)
{
    uint32_t rounds = SN_COORD_CTL_ROUNDS(r->o);
    if (rounds == 0 || r->ctl_rtt == NULL)
        return;
    qsort(r->ctl_rtt, rounds, sizeof *r->ctl_rtt, sn_cmp_u64);
    r->res->ctl_us = (double) r->ctl_rtt[rounds / 2] / NS_PER_US;
}

void sn__coord_calibration_done(sn_coord_t *r)
{
    r->res->ncalibrated = r->ncalib;
    if (r->ncalib == 0)
        return;
    qsort(r->alpha, r->ncalib, sizeof *r->alpha, sn_cmp_double);
    qsort(r->beta, r->ncalib, sizeof *r->beta, sn_cmp_double);
    r->res->alpha_us = r->alpha[r->ncalib / 2];
    r->res->beta_us = r->beta[r->ncalib / 2];
}

double sn_coord_result_median_us(const sn_coord_result_t *res)
{
    return sn_coord_median_ns_us(res->wall_ns, res->nwall);
}

double sn_coord_point_model_us(const sn_coord_result_t *res, const sn_coord_point_t *pt)
{
    if (!pt->has_model)
        return -1;
    return sn_sync_lockstep(res->sync) ? pt->model.predicted_us : pt->dataflow.predicted_us;
}

double sn_coord_result_model_us(const sn_coord_result_t *res)
{
    if (!res->has_model)
        return -1;
    return sn_sync_lockstep(res->sync) ? res->model.predicted_us : res->dataflow.predicted_us;
}

double sn_coord_result_coll_median_us(const sn_coord_result_t *res)
{
    return sn_coord_median_ns_us(res->coll_ns, res->ncoll);
}

double sn_coord_result_node_median_us(const sn_coord_result_t *res)
{
    return sn_coord_median_ns_us(res->node_ns, res->nnode);
}

/* A measured repetition's times: the wall time (from the START to the last COMPLETE, on the
 * coordinator's clock, or to now for an idle barrier) and the collective's own time from the
 * nodes' timestamps, put on the coordinator's clock by their offsets, and the mean of the nodes'
 * own times (each on its own clock). */
static void add_times(sn_coord_t *r, uint64_t wall_ns)
{
    if (r->rep <= r->o->warmup)
        return;
    sn_coord_point_t *pt = &r->res->points[r->point];
    r->res->wall_ns[r->res->nwall++] = wall_ns;
    pt->wall_ns[pt->nwall++] = wall_ns;
    if (r->rep == r->o->warmup + r->o->reps)
        pt->state = SN_COORD_POINT_DONE;
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        if (!res->has_start_ns || !res->has_complete_ns || res->complete_ns < res->start_ns)
            return; /* not measured: no collective time for this repetition */
        r->start_ns[i] = res->start_ns;
        r->complete_ns[i] = res->complete_ns;
    }
    uint64_t span = sn_coord_coll_span_ns(r->start_ns, r->complete_ns, r->offset_ns, r->n);
    r->res->coll_ns[r->res->ncoll++] = span;
    pt->coll_ns[pt->ncoll++] = span;
    uint64_t mean = sn_coord_node_mean_ns(r->start_ns, r->complete_ns, r->n);
    r->res->node_ns[r->res->nnode++] = mean;
    pt->node_ns[pt->nnode++] = mean;
    uint64_t last = sn_coord_last_start_ns(r->start_ns, r->offset_ns, r->n);
    if (last > r->t0) /* the time model's empty slot: the barrier ended here */
        pt->barrier_ns[pt->nbarrier++] = last - r->t0;
}

/* A measured repetition's wall time, into the run's and its size's; the size is done after its
 * last repetition. */
void sn__coord_point_begin(sn_coord_t *r, uint32_t k)
{
    r->point = k;
    r->params = r->job->params;
    r->params.size = r->res->points[k].size;
    r->res->nwall = r->res->ncoll = r->res->nnode = 0;
    for (uint32_t i = 0; i < r->n; i++)
        r->digest_want[i] = sn_coll_digest_sum(r->t, &r->params, i);
}

/* The idle barrier: every node stopped at the last idle slot; the time is to the last result. */
static int aggregate_idle(sn_coord_t *r)
{
    uint64_t slots = r->floor_rep ? r->floor_slots : r->o->idle_slots;
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        if (res->error || res->stop_slot != slots) {
            sn__coord_fail(r, (int) i, 0, "node %u: idle barrier stopped at slot %llu of %llu: %s",
                           i, (unsigned long long) res->stop_slot, (unsigned long long) slots,
                           res->error ? res->error : "wrong stop slot");
            return -1;
        }
    }
    if (r->floor_rep) { /* the time model's empty slot: the wall time less the control legs,
                         * the median of the repetitions so far */
        double wall = (double) (uv_hrtime() - r->t0) / NS_PER_US;
        double ctl = r->res->ctl_us > 0 ? r->res->ctl_us : 0;
        if (r->floor_done < SN_COORD_FLOOR_REPS)
            r->floor_us[r->floor_done++] = wall > ctl ? (wall - ctl) / r->floor_slots : 0;
        double sorted[SN_COORD_FLOOR_REPS];
        memcpy(sorted, r->floor_us, r->floor_done * sizeof *sorted);
        qsort(sorted, r->floor_done, sizeof *sorted, sn_cmp_double);
        r->res->empty_slot_us = sorted[r->floor_done / 2];
        _Static_assert(SN_COORD_FLOOR_REPS <= SN_COORD_CALIB_STARTUP_MAX, "samples fit");
        memcpy(r->res->empty_slot_samples_us, r->floor_us, r->floor_done * sizeof *r->floor_us);
        r->res->nempty_slot_samples = r->floor_done;
        return 0;
    }
    add_times(r, uv_hrtime() - r->t0);
    return 0;
}

/* One node's result checked against what the collective must give it. 0 or -1 (reported). */
static int check_node(sn_coord_t *r, uint32_t i, const Stepnet__Result *res)
{
    if (res->error) {
        sn__coord_fail(r, (int) i, res->has_error_slot ? res->error_slot : 0, "node %u: %s", i,
                       res->error);
        return -1;
    }
    if (res->has_size && res->size != r->params.size) {
        sn__coord_fail(r, (int) i, 0, "node %u ran collective %u with packet size %u, not %u", i,
                       res->cid, res->size, r->params.size);
        return -1;
    }
    sn_expect_t e = sn_coll_expect(r->t, &r->params, i);
    uint64_t want_exp = e.nsrc * e.per_src;
    if (res->expected != want_exp || res->deliveries != res->expected) {
        sn__coord_fail(r, (int) i, 0, "node %u delivered %llu of %llu packets (expected %llu)", i,
                       (unsigned long long) res->deliveries, (unsigned long long) res->expected,
                       (unsigned long long) want_exp);
        return -1;
    }
    if (res->digest_sum != r->digest_want[i]) {
        sn__coord_fail(r, (int) i, 0,
                       "node %u: the digests of the delivered payloads do not add up to the "
                       "expected sum (%016llx, expected %016llx)",
                       i, (unsigned long long) res->digest_sum,
                       (unsigned long long) r->digest_want[i]);
        return -1;
    }
    return 0;
}

_Static_assert(SN_COORD_TRACE_MAX_SLOTS == SN_WIRE_MAX_TRACE_SLOTS &&
                   SN_COORD_TRACE_MAX_VALUES == SN_WIRE_MAX_TRACE_VALUES &&
                   SN_COORD_TRACE_NO_FRAME == SN_WIRE_TRACE_NO_FRAME,
               "the result's trace records are the nodes'");

/* --trace: copies every node's record of this repetition into r->res->trace. */
static void keep_trace(sn_coord_t *r)
{
    sn_coord_trace_t *tr = sn_xcalloc(1, sizeof *tr);
    tr->cid = r->cid;
    tr->n = r->n;
    tr->nodes = sn_xcalloc(r->n, sizeof *tr->nodes);
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        sn_coord_trace_node_t *tn = &tr->nodes[i];
        tn->t0_ns = res->trace_t0_ns;
        tn->clock_offset_ns = r->offset_ns[i];
        tn->clock_uncertainty_ns = r->nodes[i].clk_uncertainty_ns;
        tn->stop_slot = res->stop_slot;
        tn->transmissions = res->data_packets + res->control_packets;
        tn->nslots = res->n_trace_slots; /* 1 + degree per slot: run_trace.c divides */
        tn->nsends = res->n_trace_sends - res->n_trace_sends % 4;
        tn->slots = sn_xmalloc((tn->nslots + 1) * sizeof *tn->slots);
        tn->sends = sn_xmalloc((tn->nsends + 1) * sizeof *tn->sends);
        if (tn->nslots)
            memcpy(tn->slots, res->trace_slots, tn->nslots * sizeof *tn->slots);
        if (tn->nsends)
            memcpy(tn->sends, res->trace_sends, tn->nsends * sizeof *tn->sends);
    }
    r->res->trace = tr;
}

void sn_coord_trace_free(sn_coord_trace_t *tr)
{
    if (tr == NULL)
        return;
    for (uint32_t i = 0; i < tr->n; i++) {
        free(tr->nodes[i].slots);
        free(tr->nodes[i].sends);
    }
    free(tr->nodes);
    free(tr);
}

int sn__coord_aggregate_rep(sn_coord_t *r)
{
    if (r->o->idle_slots || r->floor_rep)
        return aggregate_idle(r);
    sn_coord_result_t *out = r->res;
    uint64_t steps = 0, trace = 0, packets = 0, cpackets = 0, dl = 0, bytes = 0, maxq = 0;
    uint64_t quiet = 0;
    uint32_t maxq_node = 0;
    int maxq_reported = 0;
    size_t words = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        if (res->n_data_slots > words)
            words = res->n_data_slots;
        if (res->n_control_slots > words)
            words = res->n_control_slots;
    }
    /* slots in which some node sent control packets and no node sent data */
    uint64_t *dbits = sn_xcalloc(words + 1, sizeof *dbits);
    uint64_t *cbits = sn_xcalloc(words + 1, sizeof *cbits);
    int rc = -1;
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        if (check_node(r, i, res) < 0)
            goto out;
        /* termination detection makes the quiet slot global; a learned stop gives it to all */
        if (i > 0 && res->quiet_slot != quiet) {
            sn__coord_fail(r, (int) i, 0,
                           "node %u went quiet at slot %llu, node 0 at slot %llu (collective %u)",
                           i, (unsigned long long) res->quiet_slot, (unsigned long long) quiet,
                           r->cid);
            goto out;
        }
        quiet = res->quiet_slot;
        if (res->last_send_slot > steps)
            steps = res->last_send_slot;
        trace += res->trace_hash;
        packets += res->data_packets;
        cpackets += res->control_packets;
        dl += res->deliveries;
        bytes += res->bytes_checked;
        if (res->has_max_queue)
            maxq_reported = 1;
        if (res->has_max_queue && res->max_queue > maxq) {
            maxq = res->max_queue;
            maxq_node = i;
        }
        for (size_t w = 0; w < res->n_data_slots; w++)
            dbits[w] |= res->data_slots[w];
        for (size_t w = 0; w < res->n_control_slots; w++)
            cbits[w] |= res->control_slots[w];
    }
    uint64_t cslots = 0;
    for (size_t w = 0; w < words; w++)
        cslots += (uint64_t) __builtin_popcountll(cbits[w] & ~dbits[w]);
    sn_coord_point_t *pt = &out->points[r->point];
    if (r->rep > 1 && quiet != pt->quiet_slot) {
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                       "repetition %u went quiet at slot %llu, the first of its size at slot %llu",
                       r->cid, (unsigned long long) quiet, (unsigned long long) pt->quiet_slot);
        goto out;
    }
    pt->quiet_slot = quiet;
    if (r->rep > 1 && (steps != out->steps || trace != out->trace_hash)) {
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                       "repetition %u differs from the first of its size: %llu steps (trace "
                       "%016llx) against %llu (trace %016llx)",
                       r->cid, (unsigned long long) steps, (unsigned long long) trace,
                       (unsigned long long) out->steps, (unsigned long long) out->trace_hash);
        goto out;
    }
    out->steps = steps;
    out->trace_hash = trace;
    out->packets = packets;
    out->control_packets = cpackets;
    out->deliveries = dl;
    out->control_slots = cslots;
    out->bytes_checked = bytes;
    out->max_queue = maxq;
    out->max_queue_reported = maxq_reported;
    out->max_queue_node = maxq_node;
    pt->steps = steps;
    pt->trace_hash = trace;
    pt->packets = packets;
    pt->deliveries = dl;
    pt->bytes_checked = bytes;
    pt->verified++;
    if (sn__coord_traced(r))
        keep_trace(r);
    add_times(r, r->tlast - r->t0);
    rc = 0;
out:
    free(dbits);
    free(cbits);
    return rc;
}
