/* The receive plan of `--sync dataflow` (core/model/): every node's receptions, recorded from a
 * dry run of the schedule in the simulator, and the pure decision of which logical slot a node
 * plays next and when (include/stepnet/rxplan.h; docs/runtime.md, "Dataflow execution"). The
 * nodes play the same state machine as the simulator, so they receive exactly what the dry run
 * recorded; a node that receives anything else fails the run. */
#include <stdlib.h>
#include <string.h>

#include "stepnet/rxplan.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

typedef struct record_s {
    const sn_topo_t *t;
    sn_rxplan_t *pl;
    size_t *cap;
    uint64_t max_bytes;
    int over; /* 1: past max_bytes; 2: a node past SN_RXPLAN_MAX_NODE */
    uint32_t over_node;
} record_t;

uint64_t sn_rxplan_bytes(uint64_t total, uint32_t n)
{
    /* every entry three times: the coordinator's copy, and in the nodes the Assign's copy and the
     * copy split by link; at worst every packet waiting in its link's queue at once (frames that
     * arrive before the slots that play them); plus the coordinator's arrays (pointer, count,
     * capacity) of every node */
    return total * (3 * sizeof(uint64_t) + sizeof(sn_packet_t)) +
           (uint64_t) n * (sizeof(uint64_t *) + 2 * sizeof(size_t));
}

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    (void) pkt;
    record_t *r = ctx;
    if (r->over)
        return;
    const sn_port_t *pp = sn_topo_port(r->t, node, port);
    uint32_t v = pp->peer;
    sn_rxplan_t *pl = r->pl;
    if (pl->nrx[v] >= SN_RXPLAN_MAX_NODE) {
        r->over = 2;
        r->over_node = v;
        return;
    }
    if (r->max_bytes && sn_rxplan_bytes(pl->total + 1, pl->n) > r->max_bytes) {
        r->over = 1;
        return;
    }
    sn_grow((void **) &pl->rx[v], &r->cap[v], pl->nrx[v] + 1, sizeof *pl->rx[v]);
    pl->rx[v][pl->nrx[v]++] = sn_rxplan_encode(slot, pp->rport, sn_topo_degree(r->t, v));
    pl->total++;
}

int sn_rxplan_build(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *algo,
                    const void *plan, uint64_t max_slots, uint64_t max_bytes, sn_rxplan_t *out,
                    sn_err_t *err)
{
    memset(out, 0, sizeof *out);
    out->n = t->n;
    out->rx = sn_xcalloc((size_t) t->n + 1, sizeof *out->rx);
    out->nrx = sn_xcalloc((size_t) t->n + 1, sizeof *out->nrx);
    record_t r = {.t = t, .pl = out, .max_bytes = max_bytes};
    r.cap = sn_xcalloc((size_t) t->n + 1, sizeof *r.cap);
    sn_sim_opts_t so = {0};
    so.max_slots = max_slots;
    so.on_send = on_send;
    so.send_ctx = &r;
    sn_sim_result_t sr;
    int rc = sn_sim_run(t, p, algo, plan, &so, &sr, err);
    free(r.cap);
    char lim[32];
    if (rc == 0 && r.over == 1)
        rc = sn_err_set_param(
            err, SN_EINVAL, SN_PARAM_MEMORY,
            SN_REF_SYNC " dataflow: the receive plan of %s on %s (every packet's slot "
                        "and link) needs more than the %s the run's estimate leaves of the "
                        "memory limit; use " SN_REF_SYNC " slot or a larger limit",
            sn_coll_name(p->coll), t->spec, sn_fmt_bytes(max_bytes, lim, sizeof lim));
    else if (rc == 0 && r.over == 2)
        rc = sn_err_set_param(err, SN_EINVAL, SN_PARAM_MEMORY,
                              SN_REF_SYNC
                              " dataflow: node %u of %s receives more than %u packets, the "
                              "most a node's receive plan holds; use " SN_REF_SYNC " slot",
                              r.over_node, t->spec, SN_RXPLAN_MAX_NODE);
    else if (rc == 0 && !sr.verified)
        rc = sn_err_set(err, SN_EVERIFY,
                        SN_REF_SYNC " dataflow: the dry run of %s on %s did not verify",
                        sn_coll_name(p->coll), t->spec);
    if (rc < 0) {
        sn_rxplan_free(out);
        return rc;
    }
    for (uint32_t v = 0; v < t->n; v++)
        if (out->nrx[v] > 1)
            qsort(out->rx[v], out->nrx[v], sizeof *out->rx[v], sn_cmp_u64);
    return 0;
}

void sn_rxplan_free(sn_rxplan_t *pl)
{
    if (pl->rx)
        for (uint32_t v = 0; v < pl->n; v++)
            free(pl->rx[v]);
    free(pl->rx);
    free(pl->nrx);
    memset(pl, 0, sizeof *pl);
}

uint64_t sn_rxplan_frames_beyond(const sn_rxplan_t *pl, const sn_topo_t *t, uint32_t window)
{
    uint64_t beyond = 0;
    uint32_t maxdeg = sn_topo_max_degree(t);
    uint64_t *frames = sn_xcalloc((size_t) maxdeg + 1, sizeof *frames);
    for (uint32_t v = 0; v < pl->n; v++) {
        uint32_t deg = sn_topo_degree(t, v);
        memset(frames, 0, ((size_t) deg + 1) * sizeof *frames);
        for (size_t k = 0; k < pl->nrx[v]; k++)
            frames[pl->rx[v][k] % deg]++;
        for (uint32_t q = 0; q < deg; q++)
            if (frames[q] > window)
                beyond += frames[q] - window;
    }
    free(frames);
    return beyond;
}

int sn_rxplan_check_wire(const sn_rxplan_t *pl, uint64_t other, uint64_t max, sn_err_t *err)
{
    for (uint32_t v = 0; v < pl->n; v++)
        if ((uint64_t) pl->nrx[v] * 10 + other > max)
            return sn_err_set(err, SN_EINVAL,
                              SN_REF_SYNC
                              " dataflow: node %u receives %zu packets; its receive plan "
                              "(with the topology and schedule its assignment carries) does not "
                              "fit in an assignment of %llu bytes; use " SN_REF_SYNC " slot",
                              v, pl->nrx[v], (unsigned long long) max);
    return 0;
}

int sn_rxplan_check(const uint64_t *v, size_t n, uint32_t deg, uint64_t max_slots, sn_err_t *err)
{
    if (n > SN_RXPLAN_MAX_NODE)
        return sn_err_set(err, SN_EPROTO, "receive plan of %zu packets (at most %u)", n,
                          SN_RXPLAN_MAX_NODE);
    if (n && deg == 0)
        return sn_err_set(err, SN_EPROTO, "receive plan of %zu packets for a node without links",
                          n);
    for (size_t i = 0; i < n; i++) {
        uint64_t slot;
        uint32_t port;
        sn_rxplan_decode(v[i], deg, &slot, &port);
        if (i > 0 && v[i] <= v[i - 1])
            return sn_err_set(err, SN_EPROTO,
                              "receive plan not strictly increasing at entry %zu (slot %llu)", i,
                              (unsigned long long) slot);
        if (slot > max_slots)
            return sn_err_set(err, SN_EPROTO,
                              "receive plan entry %zu at slot %llu, past the slot limit %llu", i,
                              (unsigned long long) slot, (unsigned long long) max_slots);
    }
    return 0;
}

uint64_t sn_rxplan_next_slot(uint64_t t, uint64_t wake, const uint64_t *head, uint32_t deg)
{
    uint64_t s = t == 0 ? 1 : SN_RXPLAN_NONE;
    if (wake != SN_WAKE_NEVER && wake > t && wake < s)
        s = wake;
    for (uint32_t q = 0; q < deg; q++)
        if (head[q] != SN_RXPLAN_NONE && head[q] + 1 < s)
            s = head[q] + 1;
    return s;
}

int sn_rxplan_ready(uint64_t s, const uint64_t *head, const uint8_t *have, uint32_t deg)
{
    for (uint32_t q = 0; q < deg; q++)
        if (head[q] == s - 1 && !have[q])
            return 0;
    return 1;
}
