/* scatter-bsg and gather-bsg: all-port single-node scattering on the k-ary n-dimensional torus
 * over the 2n directed-edge-disjoint trees of the spanning graph BSG, and gathering as its time
 * reversal (core/algo). Source: Fragopoulou and Akl, torus framework, section 5.4, Def. 9,
 * Lemma 7: time ceil(M(k^n - 1)/2n), reached exactly when the splitting modulus L divides M;
 * gathering "by inversing the transmission of the messages" (section 1).
 *
 * Scatter: the root walks the table of tree-0 nodes by decreasing distance (ties by id); entry v
 * of period P occupies m = ceil(M P/2n) steps, in which port p sends, one per step, subgroup
 * floor(p/P) of the messages for T_root(R^p(v)) (all M when v is full: "the i-th subgroup of the
 * j-th group goes over port iP + j"). Relays forward a packet in the step after it arrives along
 * tree p (the header carries the destination and the tree index): in the frame R^-p, the highest
 * digit that differs from the destination's moves one step. The trees are edge-disjoint and each
 * tree's packets enter in distinct steps, so nothing waits; the decreasing-distance order makes
 * the last send the last arrival. Steps = the last arrival, computed exactly from the table
 * (sum of m when L | M).
 * Gather: every send of the scatter, reversed in time (step t becomes T + 1 - t) and direction:
 * the source of packet (u, x) sends it on its tree-p path towards the root, relays forward to
 * their tree-p parent in the next step. Same count.
 * Padding when L does not divide M: the slots of a subgroup past M stay idle (the paper's ceiling
 * stays the bound). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/torus_necklace.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_tnk_t *tk;
    int gather;
    uint32_t M, K, two_n;
    uint64_t *start; /* [K+1] first step of table entry j at the root */
    uint32_t *pos;   /* [N] table index of each generator */
    uint64_t T;      /* steps */
} plan_t;

typedef struct {
    uint64_t slot;
    uint32_t port, x, tree;
} gsend_t;

typedef struct {
    const plan_t *pl;
    uint32_t u, w; /* w = T_root^-1(u) */
    gsend_t *own;  /* gather: this node's sends in slot order */
    uint32_t nown, next;
} state_t;

static int scatter_bsg_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, k;
    return sn__tnk_get(t, &n, &k, p->coll == SN_COLL_GATHER ? "gather-bsg" : "scatter-bsg", err);
}

static void scatter_bsg_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    sn__tnk_free(pl->tk);
    free(pl->start);
    free(pl->pos);
    free(pl);
}

static int scatter_bsg_plan_common(const sn_topo_t *t, const sn_params_t *p, int gather, void **out,
                                   sn_err_t *err)
{
    sn_tnk_t *tk;
    int rc = sn__tnk_for(t, gather ? "gather-bsg" : "scatter-bsg", &tk, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->tk = tk;
    pl->gather = gather;
    pl->M = p->msgs * p->frags;
    pl->K = tk->ngen;
    pl->two_n = 2 * tk->n;
    pl->start = sn_xmalloc(((size_t) pl->K + 1) * sizeof *pl->start);
    pl->pos = sn_xmalloc((size_t) tk->N * sizeof *pl->pos);
    pl->start[0] = 1;
    for (uint32_t j = 0; j < pl->K; j++) {
        uint32_t v = tk->table[j], m = sn__tnk_share(tk, v, pl->M);
        pl->pos[v] = j;
        pl->start[j + 1] = pl->start[j] + m;
        /* the last send of entry j (subgroup 0 always has message m - 1 < M) arrives d - 1 later */
        uint64_t last = pl->start[j] + m - 1 + tk->dist[v] - 1;
        if (last > pl->T)
            pl->T = last;
    }
    *out = pl;
    return 0;
}

static int scatter_bsg_plan_scatter(const sn_topo_t *t, const sn_params_t *p, void **out,
                                    sn_err_t *err)
{
    return scatter_bsg_plan_common(t, p, 0, out, err);
}

static int scatter_bsg_plan_gather(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    return scatter_bsg_plan_common(t, p, 1, out, err);
}

static int64_t scatter_bsg_predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->T;
}

static int cmp_gsend(const void *a, const void *b)
{
    const gsend_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->port < y->port ? -1 : x->port > y->port;
}

static int scatter_bsg_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = plan;
    const sn_tnk_t *tk = pl->tk;
    s->pl = pl;
    s->u = node;
    s->w = sn__tnk_trans(tk, pl->p->root, node, 0);
    if (!pl->gather || s->w == 0)
        return 0;
    /* the scatter sends that reached w: ports p = D + jP, subgroup j, from step start + r */
    uint32_t v = tk->gen[s->w], P = tk->P[s->w], D = tk->D[s->w], d = tk->dist[s->w];
    uint32_t m = sn__tnk_share(tk, v, pl->M), j = pl->pos[v];
    s->own = sn_xmalloc(((size_t) pl->M + 1) * sizeof *s->own);
    for (uint32_t g = 0; g < pl->two_n / P; g++) {
        uint32_t p = D + g * P, par = sn__tnk_tree_parent(tk, s->w, p);
        if (par == SN_TNK_NONE)
            return sn_err_set(err, SN_EALGO, "gather-bsg: node %u is not in tree %u", node, p);
        uint32_t port = sn__tnk_port(tk, s->w, par);
        for (uint32_t r = 0; r < m; r++) {
            uint32_t x = sn__tnk_index(tk, v, p, r, pl->M);
            if (x == pl->M)
                continue;
            uint64_t s0 = pl->start[j] + r; /* the scatter's first hop */
            s->own[s->nown++] = (gsend_t){pl->T + 2 - s0 - d, port, x, p};
        }
    }
    qsort(s->own, s->nown, sizeof *s->own, cmp_gsend);
    return 0;
}

static void scatter_bsg_node_fini(void *state)
{
    free(((state_t *) state)->own);
}

static int scatter_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tnk_t *tk = pl->tk;
    uint32_t f = pl->p->frags, root = pl->p->root;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        if (pkt->dst == s->u) {
            sn_step_deliver(io, pkt);
            continue;
        }
        uint32_t x = sn__tnk_trans(tk, root, pkt->dst, 0);
        uint32_t nh = sn__tnk_next_hop(tk, s->w, x, pkt->tag);
        uint32_t port = nh == SN_TNK_NONE ? SN_TNK_NONE : sn__tnk_port(tk, s->w, nh);
        if (port == SN_TNK_NONE)
            return sn_err_set(err, SN_EALGO, "scatter-bsg: node %u is not on tree %u's path to %u",
                              s->u, pkt->tag, pkt->dst);
        sn_step_send(io, port, pkt);
    }
    if (s->w != 0)
        return 0;
    uint64_t t = io->slot;
    if (t >= pl->start[pl->K])
        return 0;
    uint32_t lo = 0, hi = pl->K;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (pl->start[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t v = tk->table[lo], r = (uint32_t) (t - pl->start[lo]);
    for (uint32_t p = 0; p < pl->two_n; p++) {
        uint32_t x = sn__tnk_index(tk, v, p, r, pl->M);
        if (x == pl->M)
            continue;
        uint32_t dst = sn__tnk_rot(tk, v, p), nh = sn__tnk_next_hop(tk, 0, dst, p);
        sn_packet_t pkt =
            sn_packet_data(pl->p, root, sn__tnk_trans(tk, root, dst, 1), x / f, x % f);
        pkt.tag = p;
        sn_step_send(io, sn__tnk_port(tk, 0, nh), &pkt);
    }
    if (t + 1 < pl->start[pl->K])
        io->wake = t + 1;
    return 0;
}

static int gather_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tnk_t *tk = pl->tk;
    uint32_t f = pl->p->frags;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        if (s->w == 0) {
            sn_step_deliver(io, pkt);
            continue;
        }
        uint32_t par = sn__tnk_tree_parent(tk, s->w, pkt->tag);
        if (par == SN_TNK_NONE)
            return sn_err_set(err, SN_EALGO, "gather-bsg: node %u is not in tree %u", s->u,
                              pkt->tag);
        sn_step_send(io, sn__tnk_port(tk, s->w, par), pkt);
    }
    uint64_t t = io->slot;
    while (s->next < s->nown && s->own[s->next].slot <= t) {
        const gsend_t *g = &s->own[s->next++];
        if (g->slot != t)
            return sn_err_set(err, SN_EALGO, "gather-bsg: node %u missed its send of step %llu",
                              s->u, (unsigned long long) g->slot);
        sn_packet_t pkt = sn_packet_data(pl->p, s->u, pl->p->root, g->x / f, g->x % f);
        pkt.tag = g->tree;
        sn_step_send(io, g->port, &pkt);
    }
    if (s->next < s->nown)
        io->wake = s->own[s->next].slot;
    return 0;
}

const sn_algo_t sn__algo_scatter_bsg = {
    .name = "scatter-bsg",
    .coll = SN_COLL_SCATTER,
    .pm_mask = SN_PM_MULTI,
    .topos = "torus:KxK...xK and ring:K, k >= 3",
    .summary = "the 2n edge-disjoint necklace trees of the BSG in lockstep, farthest first",
    .source = "Fragopoulou and Akl, torus framework, sec. 5.4, Def. 9, Lemma 7",
    .predicts = "the last arrival of the table schedule: M(k^n-1)/2n when L | M",
    .applies = scatter_bsg_applies,
    .plan_new = scatter_bsg_plan_scatter,
    .plan_free = scatter_bsg_plan_free,
    .predicted = scatter_bsg_predicted,
    .state_size = sizeof(state_t),
    .node_init = scatter_bsg_node_init,
    .node_fini = scatter_bsg_node_fini,
    .node_step = scatter_step,
};

const sn_algo_t sn__algo_gather_bsg = {
    .name = "gather-bsg",
    .coll = SN_COLL_GATHER,
    .pm_mask = SN_PM_MULTI,
    .topos = "torus:KxK...xK and ring:K, k >= 3",
    .summary = "scatter-bsg reversed in time and direction",
    .source = "Fragopoulou and Akl, torus framework, sec. 5.4 and sec. 1 (inversion)",
    .predicts = "the same count as scatter-bsg",
    .applies = scatter_bsg_applies,
    .plan_new = scatter_bsg_plan_gather,
    .plan_free = scatter_bsg_plan_free,
    .predicted = scatter_bsg_predicted,
    .state_size = sizeof(state_t),
    .node_init = scatter_bsg_node_init,
    .node_fini = scatter_bsg_node_fini,
    .node_step = gather_step,
};
