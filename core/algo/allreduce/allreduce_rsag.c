/* allreduce-rsag: allreduce as a reduce_scatter followed by an allgather over the run's packets
 * (core/algo).
 *
 * The M = msgs x frags packets of every processor are cut into N groups of q = ceil(M / N), group
 * i owned by the i-th processor. First every group is combined at its owner: the time reversal
 * of an allgather of q packets per source (mna-reverse's construction, engine/reverse.h); then
 * every owner broadcasts its combined group: the same allgather played forward. This is the
 * bandwidth-optimal shape of Rabenseifner's algorithm and the ring allreduce (Thakur, Rabenseifner
 * and Gropp, "Optimization of collective communication operations in MPICH", 2005; Patarasuk and
 * Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations", 2009): every
 * packet is sent about 2 (N - 1) times in all, which is the counting lower bound, so with an
 * allgather at its reception bound (mnb-cayley, mnb-cycle, mnb-gossip: ceil(q (N - 1) / deg)
 * multiport, q (N - 1) single-port) the allreduce takes about 2 (N - 1) M / (N deg) slots, against
 * M + d - 1 for recursive doubling and 2h + 2(M - 1) for the tree. The allgather is the one `auto`
 * picks for q packets (the model records it). Groups past the last packet are empty: with M < N
 * only M processors own one, and the schedule is no shorter than with N packets. predicted = the
 * two phases' slots. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

/* How a packet of the allgather is renamed: q packets per source, source i's k-th becoming the
 * allreduce's packet i q + k, (seq, frag) = its quotient and remainder by frags. */
typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t *index; /* [n] a processor's rank among the processors */
    uint64_t q, M;
} rename_t;

static int rename_packet(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    const rename_t *r = ctx;
    if (in->src >= r->t->n)
        return 1;
    uint64_t k = (uint64_t) r->index[in->src] * r->q + in->seq;
    if (k >= r->M)
        return 1;
    *out = (sn_packet_t){.src = SN_SRC_COMBINED,
                         .dst = SN_NODE_ALL,
                         .seq = (uint32_t) (k / r->p->frags),
                         .frag = (uint16_t) (k % r->p->frags),
                         .kind = SN_PKT_DATA};
    return 0;
}

static uint32_t processors(const sn_topo_t *t)
{
    uint32_t P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        P += (uint32_t) sn_topo_is_proc(t, u);
    return P;
}

static int rsag_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (processors(t) < 2)
        return sn_err_set(err, SN_ENOTSUP, "allreduce-rsag needs two processors or more");
    return 0;
}

static int rsag_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t *n,
                       sn_err_t *err)
{
    int rc = rsag_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint64_t M = (uint64_t) p->msgs * p->frags, P = processors(t);
    /* the allgather brings each packet to the P - 1 other processors, listing all P: refused
     * before the model records anything, which would cost as much */
    if (M * (P - 1) * P > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "allreduce-rsag would list at least %llu operands (%llu packets to "
                          "%llu processors), more than the %u this implementation keeps",
                          (unsigned long long) (M * (P - 1) * P), (unsigned long long) M,
                          (unsigned long long) P, SN_REVERSE_MAX_OPERANDS);
    in[0].topo = t;
    sn_params_default(&in[0].params, SN_COLL_MNB);
    in[0].params.pm = p->pm;
    in[0].params.msgs = (uint32_t) ((M + P - 1) / P);
    in[0].params.size = p->size;
    in[0].params.seed = p->seed;
    in[0].algo = NULL;
    in[0].what = "allgather of the groups";
    *n = 1;
    return 0;
}

static int rsag_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                     void **plan, sn_err_t *err)
{
    (void) n;
    const sn_sched_t *ag = in[0].sched;
    rename_t r = {.t = t, .p = p, .M = (uint64_t) p->msgs * p->frags};
    r.index = sn_xmalloc(t->n * sizeof *r.index);
    uint32_t P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        r.index[u] = sn_topo_is_proc(t, u) ? P++ : UINT32_MAX;
    r.q = (r.M + P - 1) / P;
    sn__combo_t c = {0};
    uint64_t end;
    /* reduce_scatter: the allgather reversed */
    int rc = sn__reverse_append(t, ag, rename_packet, &r, 0, &c, &end, err);
    /* allgather: every combined group from its owner, every transmission carrying all */
    uint32_t *all = sn_xmalloc(P * sizeof *all);
    for (uint32_t u = 0, k = 0; u < t->n; u++)
        if (sn_topo_is_proc(t, u))
            all[k++] = u;
    uint64_t kept = 0, first = UINT64_MAX;
    for (size_t i = 0; rc == 0 && i < ag->n; i++) {
        sn_packet_t out;
        if (ag->ev[i].pkt.kind == SN_PKT_DATA && rename_packet(&r, &ag->ev[i].pkt, &out) == 0) {
            kept++;
            first = ag->ev[i].slot < first ? ag->ev[i].slot : first;
        }
    }
    if (rc == 0 && (uint64_t) c.nid + kept * P > SN_REVERSE_MAX_OPERANDS)
        rc = sn_err_set(err, SN_ERANGE,
                        "allreduce-rsag would list %llu operands, more than the %u this "
                        "implementation keeps",
                        (unsigned long long) (c.nid + kept * P), SN_REVERSE_MAX_OPERANDS);
    for (size_t i = 0; rc == 0 && i < ag->n; i++) {
        const sn_sched_ev_t *e = &ag->ev[i];
        sn_packet_t out;
        if (e->pkt.kind == SN_PKT_DATA && rename_packet(&r, &e->pkt, &out) == 0)
            sn__combo_add(&c, end + e->slot - first + 1, e->node, e->port, &out, all, P);
    }
    free(all);
    free(r.index);
    if (rc < 0) {
        sn__combo_free(&c);
        return rc;
    }
    sn_sched_t s;
    sn_sched_ops_t ops;
    sn__combo_finish(&c, &s, &ops);
    rc = sn__schedule_plan_new(t, p, &s, &ops, plan, err);
    free(s.ev);
    sn_sched_ops_free(&ops);
    return rc;
}

const sn_algo_t sn__algo_allreduce_rsag = {
    .name = "allreduce-rsag",
    .coll = SN_COLL_ALLREDUCE,
    .pm_mask = SN_REVERSE_PM,
    .topos = "any",
    .summary = "reduce_scatter (the best allgather reversed) then that allgather, over the "
               "packets cut into one group per processor",
    .source = "Thakur, Rabenseifner and Gropp 2005; Patarasuk and Yuan 2009 (bandwidth-optimal "
              "allreduce)",
    .predicts = "the two phases' slots",
    .applies = rsag_applies,
    .plan_inputs = rsag_inputs,
    .plan_from = rsag_from,
    SN__SCHEDULE_REPLAY_FIELDS,
    .parallel = 1,
};
