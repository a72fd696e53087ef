/* bcast-multitree: single-port broadcast of M > 1 packets by a timetable that the nodes replay
 * (core/algo).
 *
 * bcast-multitree pipelines over one shortest-path tree per packet. Generic. Packet x travels its
 * own tree T_x: on hypercubes the binomial tree (Dimakopoulos, thesis, section 3.1, Fig. 3.1) with
 * the dimensions rotated by x, elsewhere a breadth-first tree whose port scan is rotated by x; so
 * the root and the inner nodes serve different children for different packets instead of
 * repeating one tree M times. The plan computes the timetable greedily, slot by slot (a list
 * schedule): every (holder, child in T_x, packet x) transmission that is ready competes, the one
 * whose child has the highest subtree in T_x first (then the lower packet index, node id), and is
 * taken when its sender has not sent and its receiver has not received in this slot.
 *
 * The nodes replay the timetable (engine/timetable.c, which bcast-match, mnb-match and
 * mnb-gossip share); a node only sends a packet it holds. predicted_steps = the timetable's length
 * (exact: the replayed count, as for bcast-tree); the lower bound is the pipelined Theorem 3.3
 * bound of core/model. A timetable planned with one reception per node is also valid when any
 * number may arrive (--rx any). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

#define MAX_WORK (1u << 22) /* nodes x packets the tree planner handles */

static int bcast_multitree_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn_tt_applies_upto(t, p, "bcast-multitree", MAX_WORK, err);
}

/* parent[] of T_x rooted at root (UINT32_MAX at the root), as the port of the parent towards
 * the child in cport[]. */
static void tree_x(const sn_topo_t *t, uint32_t root, uint32_t x, uint32_t *parent, uint32_t *cport,
                   uint32_t *order)
{
    uint32_t n = t->n;
    for (uint32_t v = 0; v < n; v++)
        parent[v] = UINT32_MAX;
    if (t->kind == SN_TOPO_HYPERCUBE && t->a >= 2) {
        /* the root sends packet x to its neighbour r1 across dimension j = x mod d only; r1
         * spans the rest with the binomial tree whose dimensions run j+1, ..., j-1, j (a node
         * that this would hang from the root takes dimension j instead) */
        uint32_t d = t->a, j = x % d, r1 = root ^ (1u << j);
        for (uint32_t v = 0; v < n; v++) {
            if (v == root)
                continue;
            uint32_t w = v ^ r1, b = j;
            if (v == r1) {
                parent[v] = root;
                cport[v] = j;
                continue;
            }
            for (uint32_t i = 1; i <= d; i++) {
                uint32_t c = (j + i) % d;
                if (w & (1u << c)) {
                    b = c;
                    break;
                }
            }
            if ((v ^ (1u << b)) == root)
                b = j;
            parent[v] = v ^ (1u << b);
            cport[v] = b;
        }
        return;
    }
    uint32_t head = 0, tail = 0;
    uint8_t *seen = sn_xcalloc(n, 1);
    seen[root] = 1;
    order[tail++] = root;
    while (head < tail) {
        uint32_t u = order[head++], deg = sn_topo_degree(t, u);
        for (uint32_t q0 = 0; q0 < deg; q0++) {
            uint32_t q = (q0 + x) % deg, v = sn_topo_port(t, u, q)->peer;
            if (!seen[v]) {
                seen[v] = 1;
                parent[v] = u;
                cport[v] = q;
                order[tail++] = v;
            }
        }
    }
    free(seen);
}

typedef struct {
    uint32_t key, x, u, c;
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
    const cand_t *p = a, *q = b;
    if (p->key != q->key)
        return p->key > q->key ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->u != q->u)
        return p->u < q->u ? -1 : 1;
    return p->c < q->c ? -1 : p->c > q->c;
}

/* Heights h[] of the tree par[] rooted at root: relaxation in decreasing distance order (the
 * BFS order reversed; order[] is scratch of n entries). */
static void multitree_heights(const sn_topo_t *t, uint32_t root, const uint32_t *par, uint32_t *h,
                              uint32_t *order)
{
    uint32_t n = t->n;
    uint32_t head = 0, tail = 0;
    uint32_t *dist = sn_xmalloc(n * sizeof *dist);
    for (uint32_t v = 0; v < n; v++)
        dist[v] = UINT32_MAX;
    dist[root] = 0;
    order[tail++] = root;
    while (head < tail) {
        uint32_t u = order[head++];
        for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
            uint32_t v = sn_topo_port(t, u, q)->peer;
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                order[tail++] = v;
            }
        }
    }
    for (uint32_t i = tail; i-- > 1;) {
        uint32_t v = order[i];
        if (h[v] + 1 > h[par[v]])
            h[par[v]] = h[v] + 1;
    }
    free(dist);
}

/* The children of every (x, v) in tree T_x (parent[], n nodes per tree, M trees) as lists:
 * ch[coff[i] .. coff[i+1]-1] for i = x * n + v; the caller frees *coff_out and *ch_out. */
static void multitree_children(const uint32_t *parent, uint32_t n, uint32_t M, uint32_t **coff_out,
                               uint32_t **ch_out)
{
    size_t nm = (size_t) n * M;
    uint32_t *coff = sn_xcalloc(nm + 1, sizeof *coff), *ch = sn_xmalloc((nm + 1) * sizeof *ch);
    for (uint32_t x = 0; x < M; x++)
        for (uint32_t v = 0; v < n; v++)
            if (parent[(size_t) x * n + v] != UINT32_MAX)
                coff[(size_t) x * n + parent[(size_t) x * n + v] + 1]++;
    for (size_t i = 0; i < nm; i++)
        coff[i + 1] += coff[i];
    uint32_t *fill = sn_xmalloc((nm + 1) * sizeof *fill);
    memcpy(fill, coff, (nm + 1) * sizeof *fill);
    for (uint32_t x = 0; x < M; x++)
        for (uint32_t v = 0; v < n; v++) {
            uint32_t pa = parent[(size_t) x * n + v];
            if (pa != UINT32_MAX)
                ch[fill[(size_t) x * n + pa]++] = v;
        }
    free(fill);
    *coff_out = coff;
    *ch_out = ch;
}

static int bcast_multitree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                    sn_err_t *err)
{
    int rc = bcast_multitree_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n, M = p->msgs * p->frags, root = p->root;
    size_t nm = (size_t) n * M;
    uint32_t *parent = sn_xmalloc(nm * sizeof *parent), *cport = sn_xmalloc(nm * sizeof *cport);
    uint32_t *height = sn_xcalloc(nm, sizeof *height), *order = sn_xmalloc(n * sizeof *order);
    uint64_t *got = sn_xmalloc(nm * sizeof *got); /* slot the packet arrived, UINT64_MAX: not */
    for (uint32_t x = 0; x < M; x++) {
        uint32_t *par = parent + (size_t) x * n, *h = height + (size_t) x * n;
        tree_x(t, root, x, par, cport + (size_t) x * n, order);
        multitree_heights(t, root, par, h, order);
    }
    for (size_t i = 0; i < nm; i++)
        got[i] = UINT64_MAX;
    for (uint32_t x = 0; x < M; x++)
        got[(size_t) x * n + root] = 0;
    /* pending children: for each (x, v) the children in T_x not yet served */
    uint32_t *coff, *ch;
    multitree_children(parent, n, M, &coff, &ch);
    uint8_t *sent = sn_xcalloc(nm + 1, 1); /* per child slot in ch[]: served */
    uint8_t *busy_tx = sn_xmalloc(n), *busy_rx = sn_xmalloc(n);
    sn_tt_list_t l = {0};
    size_t left = nm - M;
    cand_t *cands = NULL;
    size_t capc = 0;
    uint64_t slot = 0;
    while (left > 0) {
        slot++;
        size_t nc = 0;
        for (uint32_t x = 0; x < M; x++)
            for (uint32_t u = 0; u < n; u++) {
                size_t i = (size_t) x * n + u;
                if (got[i] >= slot)
                    continue;
                for (uint32_t k = coff[i]; k < coff[i + 1]; k++) {
                    if (sent[k])
                        continue;
                    if (nc == capc)
                        sn_grow((void **) &cands, &capc, nc + 1, sizeof *cands);
                    cands[nc++] = (cand_t){height[(size_t) x * n + ch[k]], x, u, k};
                }
            }
        qsort(cands, nc, sizeof *cands, cmp_cand);
        memset(busy_tx, 0, n);
        memset(busy_rx, 0, n);
        for (size_t j = 0; j < nc; j++) {
            uint32_t v = ch[cands[j].c], u = cands[j].u, x = cands[j].x;
            if (busy_tx[u] || busy_rx[v])
                continue;
            busy_tx[u] = busy_rx[v] = 1;
            sent[cands[j].c] = 1;
            got[(size_t) x * n + v] = slot;
            left--;
            sn_tt_add(&l, (uint32_t) slot, u, cport[(size_t) x * n + v], v, x);
        }
    }
    *out = sn_tt_plan_new("bcast-multitree", t, p, 0, slot, &l);
    free(parent);
    free(cport);
    free(height);
    free(order);
    free(got);
    free(coff);
    free(ch);
    free(sent);
    free(busy_tx);
    free(busy_rx);
    sn_tt_list_free(&l);
    free(cands);
    return 0;
}

const sn_algo_t sn__algo_bcast_multitree = {
    .name = "bcast-multitree",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "any without routers",
    .summary = "one rotated shortest-path tree per packet, greedy single-port timetable",
    .source = "generic; binomial tree of Dimakopoulos, thesis, section 3.1, Fig. 3.1",
    .predicts = "the length of the greedy timetable (replayed exactly)",
    .applies = bcast_multitree_applies,
    .plan_new = bcast_multitree_plan_new,
    SN_TT_REPLAY_FIELDS,
};
