/* mnb-bsg: all-port multinode broadcast on the k-ary n-dimensional torus over the spanning graph
 * BSG of the necklace framework, depth-first in every tree, all sources interleaved (core/algo).
 * Source: Fragopoulou and Akl, torus framework, section 5.3, Def. 9, Lemmas 5 and 7: time
 * ceil(M(k^n - 1)/2n), reached exactly when the splitting modulus L divides M.
 *
 * The acknowledgement-free timetable (the paper's DFS takes acknowledgements as free, so their
 * timing is known in advance): c_1 .. c_K is the pre-order of tree 0 (children by increasing id);
 * the edge into c_j is busy for m_j = ceil(M P(c_j)/2n) steps from start_j = 1 + sum_{l<j} m_l.
 * In step t every node u plays, for every tree i, the tree-i copy R^i(a -> c_j) (a = parent0(c_j))
 * for the source s with T_s(R^i(a)) = u: it sends message x of s, where tree i carries subgroup
 * floor(i / P(c_j)) into a nonfull c_j (x = floor(i/P) m_j + offset) and all M into a full one.
 * The 2n copies of one edge have 2n different dimensions (Lemma 3), so translating them by every
 * source uses every link once per step without conflict (Lemma 5).
 *
 * Departures: for even k a nonfull node can be internal in tree 0 (the paper's Lemma 6 proof says
 * otherwise); it forwards all M messages to its children, which it holds by then because its
 * 2n/P copies received their subgroups in the same interval. When L does not divide M, the
 * padding variant: m_j = ceil(M P/2n) slots per edge, subgroup i is messages [i m_j, (i+1) m_j)
 * cut at M, unused slots idle; steps = sum m_j, the paper's ceiling stays the bound.
 * A node sends only messages it holds (its own, or ones that arrived in an earlier step); anything
 * else fails the run. Packets carry their source and the tree index (tag). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/torus_necklace.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_tnk_t *tk;
    uint32_t M, K, two_n;
    uint64_t *start; /* [K+1] first step of entry j; start[K] - 1 = the last step */
    uint32_t *a;     /* [K * 2n] R^i(parent0(c_j)) */
    uint32_t *port;  /* [K * 2n] the port of R^i(parent0(c_j) -> c_j) */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint8_t *have; /* [N * M] bits: message (s, x) has arrived */
} state_t;

static int mnb_bsg_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, k;
    return sn__tnk_get(t, &n, &k, "mnb-bsg", err);
}

static void mnb_bsg_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    sn__tnk_free(pl->tk);
    free(pl->start);
    free(pl->a);
    free(pl->port);
    free(pl);
}

static int mnb_bsg_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-bsg broadcasts from every node");
    sn_tnk_t *tk;
    int rc = sn__tnk_for(t, "mnb-bsg", &tk, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->tk = tk;
    pl->M = p->msgs * p->frags;
    pl->K = tk->ngen;
    pl->two_n = 2 * tk->n;
    pl->start = sn_xmalloc(((size_t) pl->K + 1) * sizeof *pl->start);
    pl->a = sn_xmalloc((size_t) pl->K * pl->two_n * sizeof *pl->a);
    pl->port = sn_xmalloc((size_t) pl->K * pl->two_n * sizeof *pl->port);
    pl->start[0] = 1;
    for (uint32_t j = 0; j < pl->K; j++) {
        uint32_t c = tk->dfs[j], a0 = tk->parent0[c];
        pl->start[j + 1] = pl->start[j] + sn__tnk_share(tk, c, pl->M);
        for (uint32_t i = 0; i < pl->two_n; i++) {
            uint32_t a = sn__tnk_rot(tk, a0, i);
            pl->a[(size_t) j * pl->two_n + i] = a;
            pl->port[(size_t) j * pl->two_n + i] = sn__tnk_port(tk, a, sn__tnk_rot(tk, c, i));
        }
    }
    *out = pl;
    return 0;
}

static int64_t mnb_bsg_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->start[pl->K] - 1;
}

static int mnb_bsg_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    s->have = sn_xcalloc(((size_t) s->pl->tk->N * s->pl->M + 7) / 8, 1);
    return 0;
}

static void mnb_bsg_node_fini(void *state)
{
    free(((state_t *) state)->have);
}

static int mnb_bsg_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tnk_t *tk = pl->tk;
    uint32_t f = pl->p->frags;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        size_t bit = (size_t) pkt->src * pl->M + (size_t) pkt->seq * f + pkt->frag;
        if (pkt->src >= tk->N || pkt->src == s->u || (s->have[bit / 8] >> (bit % 8)) & 1)
            return sn_err_set(err, SN_EALGO, "mnb-bsg: node %u received message %u of %u twice",
                              s->u, pkt->seq * f + pkt->frag, pkt->src);
        s->have[bit / 8] |= (uint8_t) (1u << (bit % 8));
        sn_step_deliver(io, pkt);
    }
    uint64_t t = io->slot, T = pl->start[pl->K] - 1;
    if (t > T)
        return 0;
    /* the entry whose interval holds t: the last j with start[j] <= t */
    uint32_t lo = 0, hi = pl->K;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (pl->start[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t j = lo, c = tk->dfs[j], off = (uint32_t) (t - pl->start[j]);
    for (uint32_t i = 0; i < pl->two_n; i++) {
        uint32_t x = sn__tnk_index(tk, c, i, off, pl->M);
        if (x == pl->M)
            continue; /* a padding slot */
        uint32_t src = sn__tnk_trans(tk, pl->a[(size_t) j * pl->two_n + i], s->u, 0);
        size_t bit = (size_t) src * pl->M + x;
        if (src != s->u && !((s->have[bit / 8] >> (bit % 8)) & 1))
            return sn_err_set(err, SN_EALGO,
                              "mnb-bsg: node %u would forward message %u of %u in step %llu "
                              "before receiving it",
                              s->u, x, src, (unsigned long long) t);
        sn_packet_t pkt = sn_packet_data(pl->p, src, SN_NODE_ALL, x / f, x % f);
        pkt.tag = i;
        sn_step_send(io, pl->port[(size_t) j * pl->two_n + i], &pkt);
    }
    if (t < T)
        io->wake = t + 1;
    return 0;
}

const sn_algo_t sn__algo_mnb_bsg = {
    .name = "mnb-bsg",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "torus:KxK...xK and ring:K, k >= 3",
    .summary = "depth-first over the 2n necklace trees of the BSG, all sources interleaved",
    .source = "Fragopoulou and Akl, torus framework, sec. 5.3, Def. 9, Lemmas 5 and 7",
    .predicts = "sum over tree-0 nodes of ceil(M P/2n): M(k^n-1)/2n when L | M",
    .applies = mnb_bsg_applies,
    .plan_new = mnb_bsg_plan_new,
    .plan_free = mnb_bsg_plan_free,
    .predicted = mnb_bsg_predicted,
    .state_size = sizeof(state_t),
    .node_init = mnb_bsg_node_init,
    .node_fini = mnb_bsg_node_fini,
    .node_step = mnb_bsg_node_step,
};
