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
 * the other takes 32 and the tree 31. With M >= N the groups are also tried balanced, of
 * floor(M / N) or ceil(M / N) packets: rank i owns packets j N + pos(i), j = 0, 1, ... (pos
 * leaves the last round's missing packets to ranks spread evenly), the same allgather with the
 * packets past M dropped and its transmissions placed greedily in its order, closing the gaps
 * they leave (engine/place.h): single-port torus:6x6 with 64 packets takes 126 slots instead
 * of 140 (the counting bound 2 x 35 x 64 / 36 rounds up to 125), hypercube:5 with 40 packets 22
 * instead of 26. predicted = the two phases' slots. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/place.h"
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
    uint64_t P; /* balanced groups: source u's k-th packet becomes k P + index[u] instead */
} rename_t;

static int rename_packet(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    const rename_t *r = ctx;
    if (in->src >= r->t->n || r->index[in->src] == UINT32_MAX)
        return 1;
    uint64_t k =
        r->P ? in->seq * r->P + r->index[in->src] : (uint64_t) r->index[in->src] * r->q + in->seq;
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

/* Balanced groups (M >= P): processor rank i's j-th packet becomes packet j P + pos(i), q =
 * ceil(M / P) rounds, and the D = q P - M positions of the last round past M are left to D ranks
 * spread evenly over the ranks (rank i loses its last packet when floor((i + 1) D / P) >
 * floor(i D / P)); the others keep theirs, taking the round's first positions in rank order.
 * index[u] is u's rank (UINT32_MAX for a router), replaced by pos. */
static void spread(const sn_topo_t *t, uint64_t M, uint64_t P, uint32_t *index)
{
    uint64_t q = (M + P - 1) / P, D = q * P - M, kept = 0, lost = P - D;
    for (uint32_t u = 0, i = 0; u < t->n; u++) {
        if (index[u] == UINT32_MAX)
            continue;
        int drop = (uint64_t) (i + 1) * D / P > (uint64_t) i * D / P;
        index[u] = (uint32_t) (drop ? lost++ : kept++);
        i++;
    }
}

/* The ranks of the processors, by node id (UINT32_MAX for routers), into index[n]; returns P. */
static uint32_t ranks(const sn_topo_t *t, uint32_t *index)
{
    uint32_t P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        index[u] = sn_topo_is_proc(t, u) ? P++ : UINT32_MAX;
    return P;
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

/* The allreduce of allgather `ag` into c, its last slot in *steps. Variant FULL: every
 * processor's group of q packets in turn; PARTIAL: from the M owners, one packet each; BALANCED:
 * the balanced groups (spread), the allgather with the packets past M dropped and the gaps they
 * leave closed up by placing its transmissions greedily in its order (engine/place.h). */
enum { FULL, PARTIAL, BALANCED };

static int compose(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *ag, int variant,
                   sn__combo_t *c, uint64_t *steps, sn_err_t *err)
{
    rename_t r = {.t = t, .p = p, .M = (uint64_t) p->msgs * p->frags};
    r.index = sn_xmalloc(t->n * sizeof *r.index);
    uint32_t P = ranks(t, r.index);
    r.q = (r.M + P - 1) / P;
    if (variant == PARTIAL) { /* the owners, one packet each */
        uint32_t *own = sn_xmalloc(r.M * sizeof *own);
        owners(t, r.M, P, own);
        for (uint32_t u = 0; u < t->n; u++)
            r.index[u] = UINT32_MAX;
        for (uint64_t i = 0; i < r.M; i++)
            r.index[own[i]] = (uint32_t) i;
        free(own);
    }
    sn_sched_t closed = {0};
    if (variant == BALANCED) {
        spread(t, r.M, P, r.index);
        r.P = P;
        uint64_t *at = sn_xmalloc((ag->n ? ag->n : 1) * sizeof *at);
        sn__busy_t *b = sn__busy_new(t, p);
        sn__place_greedy(t, p, ag, rename_packet, &r, NULL, b, at);
        sn__busy_free(b);
        sn__place_sched(ag, at, &closed);
        free(at);
        ag = &closed;
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
    free(closed.ev);
    return rc;
}

/* The shortest of the allreduces built from the inputs: the allgather of the groups as they
 * are, and either the partial one from the owners (M < P) or the balanced groups (M >= P). */
static int rsag_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                     void **plan, sn_err_t *err)
{
    sn__combo_t best = {0};
    uint64_t best_steps = UINT64_MAX;
    int rc = 0;
    for (int variant = FULL; variant <= BALANCED && rc == 0; variant++) {
        /* the owners' allgather only with M < P, the balanced groups only without it */
        if ((variant == PARTIAL && n != 2) || (variant == BALANCED && n == 2))
            continue;
        sn__combo_t c = {0};
        uint64_t steps = UINT64_MAX;
        rc = compose(t, p, in[variant == PARTIAL].sched, variant, &c, &steps, err);
        sn__combo_keep_shorter(&best, &best_steps, &c, rc == 0 ? steps : UINT64_MAX);
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
