/* te-mns: all-port total exchange (multinode scattering) on the k-ary n-dimensional torus over the
 * spanning graph BSG of the necklace framework, every source in lockstep, groups moving as blocks
 * (core/algo). Source: Fragopoulou and Akl, torus framework, section 5.5, Def. 9, Lemma 5:
 * time ceil(M k^(n+1)/8) (k even) or ceil(M (k^2-1) k^(n-1)/8) (k odd), the total transmissions
 * over the 2n k^n links, reached exactly when the splitting modulus L divides M.
 *
 * Every source walks the same table of tree-0 nodes (decreasing distance, ties by id). Entry v
 * (distance d, period P, m = ceil(M P/2n)) occupies d m steps: port p of source s starts the
 * messages of subgroup floor(p/P) for T_s(R^p(v)) along tree p, one per step for m steps, and
 * every relay holds the block until it has all of it, so a packet that arrives after step t is
 * forwarded in step t + m ("the next entry starts d M P/2n steps after the current one"). In each
 * step the active edges of source 0 are the 2n rotations of one tree-0 edge, so all sources
 * together use every link once without conflict (Lemmas 3 and 5).
 * Relays route with the header alone (source, destination and tree index): in the frame R^-p of
 * T_s^-1, the highest digit that differs from the destination's moves one step.
 * Padding when L does not divide M: m = ceil(M P/2n) slots per subgroup, the slots past M idle;
 * steps = sum of d m over the table, the paper's ceiling stays the bound. */
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
    uint64_t *start; /* [K+1] first step of table entry j; start[K] - 1 = the last step */
} plan_t;

typedef struct {
    uint64_t slot;
    uint32_t port;
    sn_packet_t pkt;
} held_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    held_t *q; /* packets held for forwarding, in slot order */
    size_t head, len, cap;
} state_t;

static int te_mns_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, k;
    return sn__tnk_get(t, &n, &k, "te-mns", err);
}

static void te_mns_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    sn__tnk_free(pl->tk);
    free(pl->start);
    free(pl);
}

static int te_mns_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "te-mns exchanges between all nodes");
    sn_tnk_t *tk;
    int rc = sn__tnk_for(t, "te-mns", &tk, err);
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
    pl->start[0] = 1;
    for (uint32_t j = 0; j < pl->K; j++) {
        uint32_t v = tk->table[j];
        pl->start[j + 1] = pl->start[j] + (uint64_t) tk->dist[v] * sn__tnk_share(tk, v, pl->M);
    }
    *out = pl;
    return 0;
}

/* The last step: the last hop of the last entry's subgroup 0 (message m - 1 < M) is busy. */
static int64_t te_mns_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->start[pl->K] - 1;
}

static int te_mns_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    return 0;
}

static void te_mns_node_fini(void *state)
{
    free(((state_t *) state)->q);
}

static void te_mns_hold(state_t *s, uint64_t slot, uint32_t port, const sn_packet_t *pkt)
{
    if (s->head > 0 && s->head == s->len) {
        s->head = 0;
        s->len = 0;
    }
    if (s->len == s->cap) {
        if (s->head > 0) { /* compact before growing */
            memmove(s->q, s->q + s->head, (s->len - s->head) * sizeof *s->q);
            s->len -= s->head;
            s->head = 0;
        }
        if (s->len == s->cap)
            sn_grow((void **) &s->q, &s->cap, s->len + 1, sizeof *s->q);
    }
    s->q[s->len++] = (held_t){slot, port, *pkt};
}

static int te_mns_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tnk_t *tk = pl->tk;
    uint64_t t = io->slot, T = pl->start[pl->K] - 1;
    uint32_t f = pl->p->frags;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        if (pkt->dst == s->u) {
            sn_step_deliver(io, pkt);
            continue;
        }
        uint32_t w = sn__tnk_trans(tk, pkt->src, s->u, 0),
                 x = sn__tnk_trans(tk, pkt->src, pkt->dst, 0);
        uint32_t nh = sn__tnk_next_hop(tk, w, x, pkt->tag);
        uint32_t port = nh == SN_TNK_NONE ? SN_TNK_NONE : sn__tnk_port(tk, w, nh);
        if (port == SN_TNK_NONE)
            return sn_err_set(err, SN_EALGO, "te-mns: node %u is not on tree %u's path %u -> %u",
                              s->u, pkt->tag, pkt->src, pkt->dst);
        /* sent in step t - 1; the block of its entry moves on m steps later */
        te_mns_hold(s, t - 1 + sn__tnk_share(tk, tk->gen[x], pl->M), port, pkt);
    }
    while (s->head < s->len && s->q[s->head].slot <= t) {
        const held_t *h = &s->q[s->head++];
        if (h->slot != t)
            return sn_err_set(err, SN_EALGO, "te-mns: node %u missed a forward of step %llu", s->u,
                              (unsigned long long) h->slot);
        sn_step_send(io, h->port, &h->pkt);
    }
    if (t <= T) {
        uint32_t lo = 0, hi = pl->K;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (pl->start[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        uint32_t v = tk->table[lo], m = sn__tnk_share(tk, v, pl->M);
        uint64_t off = t - pl->start[lo];
        if (off < m) /* hop 0: this node's own block of entry lo leaves */
            for (uint32_t p = 0; p < pl->two_n; p++) {
                uint32_t x = sn__tnk_index(tk, v, p, (uint32_t) off, pl->M);
                if (x == pl->M)
                    continue;
                uint32_t dst = sn__tnk_rot(tk, v, p), nh = sn__tnk_next_hop(tk, 0, dst, p);
                sn_packet_t pkt =
                    sn_packet_data(pl->p, s->u, sn__tnk_trans(tk, s->u, dst, 1), x / f, x % f);
                pkt.tag = p;
                sn_step_send(io, sn__tnk_port(tk, 0, nh), &pkt);
            }
    }
    uint64_t wake = t < T ? t + 1 : SN_WAKE_NEVER;
    if (s->head < s->len && s->q[s->head].slot < wake)
        wake = s->q[s->head].slot;
    io->wake = wake;
    return 0;
}

const sn_algo_t sn__algo_te_mns = {
    .name = "te-mns",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "torus:KxK...xK and ring:K, k >= 3",
    .summary = "multinode scattering over the BSG necklace trees, all sources in lockstep, blocks",
    .source = "Fragopoulou and Akl, torus framework, sec. 5.5, Def. 9, Lemma 5",
    .predicts = "sum over the table of distance x ceil(M P/2n): the paper's count when L | M",
    .applies = te_mns_applies,
    .plan_new = te_mns_plan_new,
    .plan_free = te_mns_plan_free,
    .predicted = te_mns_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_mns_node_init,
    .node_fini = te_mns_node_fini,
    .node_step = te_mns_node_step,
};
