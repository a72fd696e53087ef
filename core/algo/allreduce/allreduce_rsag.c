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
 * picks for q packets (the model records it); groups past the last packet are empty. With M < N
 * only M processors, spread evenly over the processor ranks, own a packet each, and the plan is
 * the shorter of the allgather from every processor with the other groups empty and the partial
 * one from the owners (pmnb): torus:8x8 with 16 packets takes 20 slots by the partial one, where
 * the other takes 32 and the tree 31. predicted = the two phases' slots. */
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
    if (in->src >= r->t->n || r->index[in->src] == UINT32_MAX)
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

/* With M < P packets: the node ids of the M owners, processor ranks floor(i P / M) (distinct,
 * ascending, as partial collectives take their sources), into own[M]. */
static void owners(const sn_topo_t *t, uint64_t M, uint64_t P, uint32_t *own)
{
    uint64_t next = 0, rank = 0;
    for (uint32_t u = 0; u < t->n && next < M; u++) {
        if (!sn_topo_is_proc(t, u))
            continue;
        if (rank == next * P / M)
            own[next++] = u;
        rank++;
    }
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
    *n = M < P ? 2 : 1;
    for (size_t i = 0; i < *n; i++) {
        in[i].topo = t;
        sn_params_default(&in[i].params, i == 0 ? SN_COLL_MNB : SN_COLL_PMNB);
        in[i].params.pm = p->pm;
        in[i].params.msgs = (uint32_t) ((M + P - 1) / P);
        in[i].params.size = p->size;
        in[i].params.seed = p->seed;
        in[i].algo = NULL;
        in[i].what = i == 0 ? "allgather of the groups" : "allgather from the owners";
    }
    if (M < P) {
        in[1].owned_sources = sn_xmalloc(M * sizeof *in[1].owned_sources);
        owners(t, M, P, in[1].owned_sources);
        in[1].params.sources = in[1].owned_sources;
        in[1].params.nsources = (uint32_t) M;
    }
    return 0;
}

/* The allreduce of allgather `ag` (partial: from the M owners, one packet each) into c, its
 * last slot in *steps. */
static int compose(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *ag, int partial,
                   sn__combo_t *c, uint64_t *steps, sn_err_t *err)
{
    rename_t r = {.t = t, .p = p, .M = (uint64_t) p->msgs * p->frags};
    r.index = sn_xmalloc(t->n * sizeof *r.index);
    uint32_t P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        r.index[u] = sn_topo_is_proc(t, u) ? P++ : UINT32_MAX;
    r.q = (r.M + P - 1) / P;
    if (partial) { /* the owners, one packet each */
        uint32_t *own = sn_xmalloc(r.M * sizeof *own);
        owners(t, r.M, P, own);
        for (uint32_t u = 0; u < t->n; u++)
            r.index[u] = UINT32_MAX;
        for (uint64_t i = 0; i < r.M; i++)
            r.index[own[i]] = (uint32_t) i;
        free(own);
    }
    uint64_t end;
    /* reduce_scatter: the allgather reversed */
    int rc = sn__reverse_append(t, ag, rename_packet, &r, 0, c, &end, err);
    /* allgather: every combined group from its owner, every transmission carrying all */
    uint32_t *all = sn_xmalloc(P * sizeof *all);
    for (uint32_t u = 0, k = 0; u < t->n; u++)
        if (sn_topo_is_proc(t, u))
            all[k++] = u;
    uint64_t kept = 0, first = UINT64_MAX, last = 0;
    for (size_t i = 0; rc == 0 && i < ag->n; i++) {
        sn_packet_t out;
        if (ag->ev[i].pkt.kind == SN_PKT_DATA && rename_packet(&r, &ag->ev[i].pkt, &out) == 0) {
            kept++;
            first = ag->ev[i].slot < first ? ag->ev[i].slot : first;
            last = ag->ev[i].slot > last ? ag->ev[i].slot : last;
        }
    }
    if (rc == 0 && (uint64_t) c->nid + kept * P > SN_REVERSE_MAX_OPERANDS)
        rc = sn_err_set(err, SN_ERANGE,
                        "allreduce-rsag would list %llu operands, more than the %u this "
                        "implementation keeps",
                        (unsigned long long) (c->nid + kept * P), SN_REVERSE_MAX_OPERANDS);
    for (size_t i = 0; rc == 0 && i < ag->n; i++) {
        const sn_sched_ev_t *e = &ag->ev[i];
        sn_packet_t out;
        if (e->pkt.kind == SN_PKT_DATA && rename_packet(&r, &e->pkt, &out) == 0)
            sn__combo_add(c, end + e->slot - first + 1, e->node, e->port, &out, all, P);
    }
    *steps = kept ? end + last - first + 1 : end;
    free(all);
    free(r.index);
    return rc;
}

/* The shorter of the allreduces built from the inputs: the allgather from every processor, and
 * with M < P the partial one from the owners. */
static int rsag_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                     void **plan, sn_err_t *err)
{
    sn__combo_t best = {0};
    uint64_t best_steps = UINT64_MAX;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sn__combo_t c = {0};
        uint64_t steps;
        rc = compose(t, p, in[i].sched, in[i].params.coll == SN_COLL_PMNB, &c, &steps, err);
        if (rc == 0 && steps < best_steps) {
            sn__combo_free(&best);
            best = c, best_steps = steps;
        } else {
            sn__combo_free(&c);
        }
    }
    if (rc < 0) {
        sn__combo_free(&best);
        return rc;
    }
    return sn__combo_plan(t, p, &best, plan, err);
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
