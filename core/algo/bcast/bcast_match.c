/* bcast-match and mnb-match: single-port broadcast and multinode broadcast by a timetable of one
 * maximum matching per slot, which the nodes replay (core/algo).
 *
 * bcast-match keeps no tree. Each slot is a bipartite matching between senders and receivers
 * along the edges where the sender holds a packet the receiver lacks: one send and one reception
 * per node, as single-port with one reception requires. The matching is maximum, grown by
 * augmenting paths (Kuhn's method) from the receivers that hold the fewest packets first, and each
 * matched sender passes the rarest packet (the fewest holders, then the lowest index) that its
 * receiver lacks, so no packet falls behind while another floods. Any schedule needs M - 1 + the
 * single-packet broadcast time (the last packet leaves the root in slot M at the earliest and its
 * holders at most double per slot afterwards), so on Q_d the bound is M + d - 1; bcast-match
 * reaches it on every hypercube and packet count that tests/unit/test_mnb_generic.c sweeps.
 * The rule is ours; the model (at most one send and one reception per node and slot, concurrent
 * over full-duplex links) is that of the thesis's Theorem 3.6 proof, and the rarest-first choice
 * is the piece-selection heuristic of peer-to-peer distribution.
 *
 * mnb-match is bcast-match over the packets of every source (N M of them, each node holding its
 * own M at the start): the single-port multinode broadcast on any graph without a known
 * Hamiltonian cycle (mnb-cycle meets the bound M (N - 1) where one is known). The bounds it is
 * measured against are the single-port ones of core/model, the bipartite one included: on a
 * bipartite graph every transmission crosses the colour classes, so the larger class B receives
 * at most |A| packets a slot with one reception per node, at least ceil(|B| (N - 1) M / |A|)
 * slots; (N + 1) M on a mesh with every side odd.
 *
 * Both: the nodes replay the timetable (engine/timetable.c, which mnb-gossip and bcast-multitree
 * share); a node only sends a packet it holds. predicted_steps = the timetable's length (exact:
 * the replayed count, as for bcast-tree); the lower bound is the pipelined Theorem 3.3 bound of
 * core/model. A timetable planned with one reception per node is also valid when any number may
 * arrive (--rx any). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

#define MATCH_MAX_WORK (1u << 22) /* nodes x packets the matching planner handles */
/* mnb-match's nodes x packets: a slot's matching tests holder sets of n M bits along augmenting
 * paths, so the planning time grows like n^3 M per slot row; 2^20 (1024 nodes at M = 1) plans in
 * seconds */
#define MNB_MATCH_MAX_WORK (1u << 20)

static int match_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn_tt_applies_upto(t, p, "bcast-match", MATCH_MAX_WORK, err);
}

static int mnb_match_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-match broadcasts from every node");
    if (t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-match needs every node a processor");
    /* the packets of every source: n x (n M) node-packets (a double: n^2 M may pass 2^64) */
    double work = (double) t->n * t->n * p->msgs * p->frags;
    if (work > MNB_MATCH_MAX_WORK)
        return sn_err_set(err, SN_ERANGE,
                          "mnb-match plans at most %u node-packets; %s with %u packets from each "
                          "of its %u nodes has %.0f",
                          MNB_MATCH_MAX_WORK, t->spec, p->msgs * p->frags, t->n, work);
    return 0;
}

typedef struct {
    const sn_topo_t *t;
    uint32_t n, M, W; /* W: 64-bit words of a node's packet set */
    uint64_t *have;   /* [n * W] the packets each node holds at the start of the slot */
    uint32_t *nhave;  /* [n] */
    uint32_t *mate_s; /* [n] the receiver a sender serves in this slot, UINT32_MAX: none */
    uint32_t *mate_q; /* [n] the port of a matched receiver towards its sender */
    uint32_t *stamp;  /* [n] senders visited by the current search */
    uint32_t cur;     /* the current search's stamp */
    uint32_t *sv, *sq, *su, *sp; /* [n + 1] the search stack: receiver, next port, sender, port */
} match_t;

/* 1 when u holds a packet that v lacks. */
static int lacks(const match_t *m, uint32_t u, uint32_t v)
{
    if (m->nhave[u] > m->nhave[v])
        return 1;
    const uint64_t *a = m->have + (size_t) u * m->W, *b = m->have + (size_t) v * m->W;
    for (uint32_t w = 0; w < m->W; w++)
        if (a[w] & ~b[w])
            return 1;
    return 0;
}

/* Kuhn's augmenting path from the unmatched receiver v0, depth first with an explicit stack:
 * 1 when v0 (and every receiver on the path) is matched afterwards. Receivers matched before stay
 * matched, so serving receivers in priority order keeps the priority among the matched. */
static int augment(match_t *m, uint32_t v0)
{
    const sn_topo_t *t = m->t;
    m->cur++;
    size_t depth = 0;
    m->sv[0] = v0;
    m->sq[0] = 0;
    for (;;) {
        uint32_t v = m->sv[depth];
        if (m->sq[depth] == sn_topo_degree(t, v)) {
            if (depth == 0)
                return 0;
            depth--;
            continue;
        }
        uint32_t q = m->sq[depth]++, u = sn_topo_port(t, v, q)->peer;
        if (m->stamp[u] == m->cur || !lacks(m, u, v))
            continue;
        m->stamp[u] = m->cur;
        m->su[depth] = u;
        m->sp[depth] = q;
        if (m->mate_s[u] == UINT32_MAX) {
            for (size_t i = 0; i <= depth; i++) {
                m->mate_s[m->su[i]] = m->sv[i];
                m->mate_q[m->sv[i]] = m->sp[i];
            }
            return 1;
        }
        depth++; /* at most one level per visited sender: depth <= n */
        m->sv[depth] = m->mate_s[u];
        m->sq[depth] = 0;
    }
}

/* The matching timetable: of the root's M packets (mnb 0), or of every node's (mnb 1: packet x is
 * message x % M of node x / M). */
static int match_plan(const char *name, const sn_topo_t *t, const sn_params_t *p, uint32_t mnb,
                      void **out, sn_err_t *err)
{
    int rc = 0;
    uint32_t n = t->n, M = p->msgs * p->frags, root = p->root;
    uint32_t P = mnb ? n * M : M; /* the packets; n M <= MNB_MATCH_MAX_WORK */
    match_t m = {.t = t, .n = n, .M = P, .W = (P + 63) / 64};
    m.have = sn_xcalloc((size_t) n * m.W, sizeof *m.have);
    m.nhave = sn_xcalloc(n, sizeof *m.nhave);
    m.mate_s = sn_xmalloc(n * sizeof *m.mate_s);
    m.mate_q = sn_xmalloc(n * sizeof *m.mate_q);
    m.stamp = sn_xcalloc(n, sizeof *m.stamp);
    m.sv = sn_xmalloc(((size_t) n + 1) * sizeof *m.sv);
    m.sq = sn_xmalloc(((size_t) n + 1) * sizeof *m.sq);
    m.su = sn_xmalloc(((size_t) n + 1) * sizeof *m.su);
    m.sp = sn_xmalloc(((size_t) n + 1) * sizeof *m.sp);
    uint32_t *holders = sn_xcalloc(P, sizeof *holders);
    uint32_t *bucket = sn_xcalloc((size_t) P + 2, sizeof *bucket),
             *order = sn_xmalloc(n * sizeof *order);
    for (uint32_t u = 0; u < n; u++) {
        if (!mnb && u != root)
            continue;
        for (uint32_t x = mnb ? u * M : 0, e = x + M; x < e; x++) {
            m.have[(size_t) u * m.W + x / 64] |= 1ull << (x % 64);
            holders[x] = 1;
        }
        m.nhave[u] = M;
    }
    sn_tt_list_t l = {0};
    uint64_t left = (uint64_t) (n - 1) * P, slot = 0;
    while (left > 0) {
        slot++;
        /* receivers that lack packets, the fewest held first (then node id): a counting sort */
        memset(bucket, 0, ((size_t) P + 2) * sizeof *bucket);
        for (uint32_t v = 0; v < n; v++)
            if (m.nhave[v] < P)
                bucket[m.nhave[v] + 1]++;
        for (uint32_t k = 0; k < P; k++)
            bucket[k + 1] += bucket[k];
        uint32_t nr = 0;
        for (uint32_t v = 0; v < n; v++)
            if (m.nhave[v] < P) {
                order[bucket[m.nhave[v]]++] = v;
                nr++;
            }
        for (uint32_t u = 0; u < n; u++)
            m.mate_s[u] = UINT32_MAX;
        for (uint32_t i = 0; i < nr; i++)
            augment(&m, order[i]);
        /* each matched sender passes the rarest packet its receiver lacks; the sets change after
         * every choice is made, so all choices see the slot's start */
        size_t first = l.n;
        for (uint32_t u = 0; u < n; u++) {
            uint32_t v = m.mate_s[u];
            if (v == UINT32_MAX)
                continue;
            const uint64_t *a = m.have + (size_t) u * m.W, *b = m.have + (size_t) v * m.W;
            uint32_t best = UINT32_MAX;
            for (uint32_t w = 0; w < m.W; w++)
                for (uint64_t bits = a[w] & ~b[w]; bits; bits &= bits - 1) {
                    uint32_t x = w * 64 + (uint32_t) __builtin_ctzll(bits);
                    if (best == UINT32_MAX || holders[x] < holders[best])
                        best = x;
                }
            sn_tt_add(&l, (uint32_t) slot, u, sn_topo_port(t, v, m.mate_q[v])->rport, v, best);
        }
        if (l.n == first) { /* nothing can move: some node cannot be reached from the root */
            rc = sn_err_set(err, SN_EALGO,
                            "%s: no transmission possible in slot %llu (%s is not connected)", name,
                            (unsigned long long) slot, t->spec);
            goto out;
        }
        for (size_t i = first; i < l.n; i++) {
            uint32_t v = l.to[i], x = l.ev[i].x;
            m.have[(size_t) v * m.W + x / 64] |= 1ull << (x % 64);
            m.nhave[v]++;
            holders[x]++;
            left--;
        }
    }
    *out = sn_tt_plan_new(name, t, p, mnb, slot, &l);
out:
    free(m.have);
    free(m.nhave);
    free(m.mate_s);
    free(m.mate_q);
    free(m.stamp);
    free(m.sv);
    free(m.sq);
    free(m.su);
    free(m.sp);
    free(holders);
    free(bucket);
    free(order);
    sn_tt_list_free(&l);
    return rc;
}

static int match_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = match_applies(t, p, err);
    return rc < 0 ? rc : match_plan("bcast-match", t, p, 0, out, err);
}

static int mnb_match_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = mnb_match_applies(t, p, err);
    return rc < 0 ? rc : match_plan("mnb-match", t, p, 1, out, err);
}

const sn_algo_t sn__algo_bcast_match = {
    .name = "bcast-match",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "any without routers",
    .summary = "single-port pipelined broadcast: a maximum matching per slot, rarest packet first",
    .source = "generic; the single-port model of Dimakopoulos, thesis, Theorem 3.6",
    .predicts = "the length of the matching timetable (replayed exactly)",
    .applies = match_applies,
    .plan_new = match_plan_new,
    SN_TT_REPLAY_FIELDS,
};

const sn_algo_t sn__algo_mnb_match = {
    .name = "mnb-match",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY, /* a matching may pair u->v with v->u */
    .topos = "any without routers",
    .summary = "single-port multinode broadcast: a maximum matching per slot, rarest packet first",
    .source = "generic; the single-port model of Dimakopoulos, thesis, Theorem 3.6",
    .predicts = "the length of the matching timetable (replayed exactly)",
    .heuristic = 1,
    .applies = mnb_match_applies,
    .plan_new = mnb_match_plan_new,
    SN_TT_REPLAY_FIELDS,
};
