/* bcast-greedy: single-port broadcast over a tree grown by greedy calling rounds (core/algo).
 *
 * The thesis proves the single-port lower bound (Dimakopoulos, thesis, section 3.2, Theorem 3.3)
 * but gives an optimal single-port broadcast only for hypercubes (binomial tree, section 3.2.2);
 * bcast-tree serves the BFS tree in the order of eq. (6.1) (section 6.2.1), which on dense graphs
 * is far from the bound (on complete:N it takes N - 1 steps where ceil(log2 N) suffice) and can be
 * a step above it on tori and extended rings. Finding the optimal broadcast time is NP-hard in
 * general, so this is a heuristic, used by `auto` only where its exact count is lower:
 *
 *   round by round, every informed node with uninformed neighbours calls one of them (no node is
 *   called twice), the nodes with the fewest uninformed neighbours choosing first, each choosing
 *   the neighbour with the most uninformed neighbours of its own (then the farther from the root,
 *   then by id in the first attempt, by a hash of (attempt, id) in the others). Who called whom
 *   is a spanning tree.
 *
 * Up to 64 attempts (fewer on large graphs: a budget of about 8 million port visits) keep the tree
 * whose ordered schedule is fastest, and stop early at max(e(root), ceil(log2 n)), which no
 * schedule beats. The tree is served by the ordered schedule of bcast-tree (eq. 6.1: children
 * slowest subtree first), optimal for the tree and so never slower than the rounds that grew it;
 * the prediction is that schedule's exact count (the engine replays it), and M = msgs * frags
 * packets follow each other through it. Deterministic: every node of a TCP run builds the same
 * tree. On complete graphs the rounds double the informed set: ceil(log2 N), the bound of Theorem
 * 3.3; with the restarts it also meets the bound on tori (5x5, 7x7, 3x3x3), CCC, butterflies and
 * circulants, where the BFS tree is a step above (tests/unit/test_generic.c). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/ordered.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

typedef struct {
    uint32_t node, options; /* a caller and its uninformed neighbours at the start of the round */
} caller_t;

static int cmp_callers(const void *x, const void *y)
{
    const caller_t *a = x, *b = y;
    if (a->options != b->options)
        return a->options < b->options ? -1 : 1;
    return a->node < b->node ? -1 : (a->node > b->node);
}

/* Tie-breaking of the callee choice: which uninformed neighbour v a caller prefers. Variant 0
 * breaks the last ties by id, the others by a hash of (variant, id): deterministic restarts. */
#define NVARIANTS 64

static int better(int variant, uint32_t v, uint32_t best, const uint32_t *unc, const uint32_t *dist)
{
    if (unc[v] != unc[best])
        return unc[v] > unc[best];
    if (dist[v] != dist[best])
        return dist[v] > dist[best];
    if (variant == 0)
        return v < best;
    return sn_mix64(((uint64_t) variant << 32) ^ v) < sn_mix64(((uint64_t) variant << 32) ^ best);
}

/* Marks u informed: its neighbours lose an uninformed neighbour (once per parallel edge). */
static void inform(const sn_topo_t *t, uint32_t u, uint8_t *informed, uint32_t *unc)
{
    informed[u] = 1;
    for (uint32_t p = 0; p < sn_topo_degree(t, u); p++)
        unc[sn_topo_port(t, u, p)->peer]--;
}

/* One attempt; dist[] holds the BFS distances from the root, reach how many nodes it reaches. */
static sn_tree_t *grow(const sn_topo_t *t, uint32_t root, int variant, const uint32_t *dist,
                       uint32_t reach)
{
    uint32_t n = t->n;
    sn_tree_t *tr = sn__tree_alloc(t, root);
    uint8_t *informed = sn_xcalloc(n, 1);
    uint32_t *unc = sn_xmalloc((size_t) n * sizeof *unc); /* uninformed neighbours (ports) */
    uint32_t *claimed = sn_xcalloc(n, sizeof *claimed);   /* round in which u was called */
    caller_t *callers = sn_xmalloc((size_t) n * sizeof *callers);
    uint32_t *frontier = sn_xmalloc((size_t) n * sizeof *frontier), nf = 0;
    uint32_t *fresh = sn_xmalloc((size_t) n * sizeof *fresh);
    for (uint32_t u = 0; u < n; u++)
        unc[u] = sn_topo_degree(t, u);
    inform(t, root, informed, unc);
    frontier[nf++] = root;
    uint32_t ninformed = 1;
    for (uint32_t round = 1; ninformed < reach && nf > 0; round++) {
        uint32_t nc = 0, nfresh = 0;
        for (uint32_t i = 0; i < nf; i++)
            if (unc[frontier[i]] > 0)
                callers[nc++] = (caller_t){frontier[i], unc[frontier[i]]};
        qsort(callers, nc, sizeof *callers, cmp_callers);
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t u = callers[i].node, best = UINT32_MAX;
            for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
                uint32_t v = sn_topo_port(t, u, p)->peer;
                if (informed[v] || claimed[v] == round)
                    continue;
                if (best == UINT32_MAX || better(variant, v, best, unc, dist))
                    best = v;
            }
            if (best == UINT32_MAX)
                continue;
            claimed[best] = round;
            sn__tree_set_parent(t, tr, best, u);
            fresh[nfresh++] = best;
        }
        /* the callers that still have uninformed neighbours stay; the called join */
        uint32_t keep = 0;
        for (uint32_t i = 0; i < nc; i++)
            frontier[keep++] = callers[i].node;
        nf = keep;
        for (uint32_t i = 0; i < nfresh; i++) {
            inform(t, fresh[i], informed, unc);
            frontier[nf++] = fresh[i];
        }
        ninformed += nfresh;
    }
    free(informed);
    free(unc);
    free(claimed);
    free(callers);
    free(frontier);
    free(fresh);
    if (ninformed < n || sn__tree_finish(t, tr) < 0) { /* not connected */
        sn__tree_free(tr);
        return NULL;
    }
    return tr;
}

/* The grown tree of the variant whose ordered schedule is fastest (the first on ties). Restarts
 * are bounded by a work budget (one on a million-node torus, 64 on small graphs) and stop early
 * at the trivial bound max(e(root), ceil(log2 n)), which no schedule beats. */
static sn_tree_t *tree_greedy(const sn_topo_t *t, uint32_t root)
{
    uint64_t work = (uint64_t) t->n + 2ull * t->nedges + 1;
    uint64_t restarts = 8000000ull / work;
    restarts = restarts < 1 ? 1 : restarts > NVARIANTS ? NVARIANTS : restarts;
    /* the distances, e(root) over the processors and the reach: one BFS for every attempt */
    uint32_t *dist = sn_xmalloc((size_t) (t->n ? t->n : 1) * sizeof *dist), reach = 0;
    sn_topo_bfs(t, root, dist);
    uint64_t floor = 0;
    while ((1ull << floor) < t->nproc)
        floor++;
    for (uint32_t u = 0; u < t->n; u++) {
        if (dist[u] == UINT32_MAX)
            continue;
        reach++;
        if (sn_topo_is_proc(t, u) && dist[u] > floor)
            floor = dist[u];
    }
    sn_tree_t *best = NULL;
    uint64_t best_time = UINT64_MAX;
    for (int v = 0; v < (int) restarts; v++) {
        sn_tree_t *tr = grow(t, root, v, dist, reach);
        if (tr == NULL)
            break;
        uint64_t time = sn__ordered_schedule(tr, t->n, NULL, NULL);
        if (time < best_time) {
            if (best)
                sn__tree_free(best);
            best = tr;
            best_time = time;
        } else {
            sn__tree_free(tr);
        }
        if (best_time <= floor)
            break;
    }
    free(dist);
    return best;
}

static int bcast_greedy_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    return sn__ordered_plan_new(t, p, tree_greedy, out, err);
}

const sn_algo_t sn__algo_bcast_greedy = {
    .name = "bcast-greedy",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY | SN_PM_HALF,
    .topos = "any",
    .summary = "tree of greedy calling rounds (each informed node calls its neighbour with the "
               "most uninformed neighbours), served slowest subtree first",
    .source =
        "heuristic for the single-port bound of Dimakopoulos, thesis, Theorem 3.3; schedule of "
        "eq. (6.1), section 6.2.1",
    .predicts = "the schedule's exact count (at most the number of calling rounds for one packet)",
    .plan_new = bcast_greedy_plan_new,
    .plan_free = sn__ordered_plan_free,
    .predicted = sn__ordered_predicted,
    .state_size = SN__ORDERED_STATE_SIZE,
    .node_init = sn__ordered_node_init,
    .node_fini = sn__ordered_node_fini,
    .node_step = sn__ordered_node_step,
};
