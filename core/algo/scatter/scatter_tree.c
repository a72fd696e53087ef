/* scatter-ff, scatter-balanced, gather-ff, gather-balanced: scattering over a spanning tree and
 * gathering as its time reversal (core/algo).
 *
 * Source: Dimakopoulos, thesis.
 *  - Theorem 3.6: single-port scattering takes n-1 steps on any connected graph; the
 *    root sends the messages deepest first over any spanning tree (we use a BFS tree) and every
 *    other node forwards each message in the slot after it arrives. A message sent in slot s to
 *    depth d arrives in slot s+d-1; messages in flight are at distinct depths, so no node sends or
 *    receives twice in a slot. predicted = max_s (s + depth(d_s) - 1), which is n-1 when every
 *    node is a processor.
 *  - Theorem 3.7: multiport, the root runs that schedule on every root subtree at
 *    once, so the time is the largest root subtree; a balanced tree (section 3.4) makes the root
 *    subtrees about (n-1)/deg(root). Lower bound (3.3): ceil((n-1)/deg(root)), and e(v).
 *  - Gather is scatter with every path reversed (section 1.2 and the introduction of
 *    chapter 3): slot t becomes T+1-t and every
 *    transmission is reversed, so node d injects its message for the root in slot
 *    T + 2 - s - depth(d) and every node forwards towards the root in the slot after arrival.
 * With msgs and frags every destination has msgs*frags items, ordered (depth desc, node, seq,
 * frag); ties by smallest label (the theorem leaves ties open).
 *
 * The lane engine is algo/engine/lanes.c; this file gives it the BFS and the balanced trees. */
#include "core/algo/algos.h"
#include "core/algo/engine/lanes.h"
#include "core/algo/engine/tree.h"

static int scatter_tree_scatter_ff(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    (void) err;
    *out = sn__lanes_plan_tree(t, p, sn__tree_bfs(t, p->root), 0, 0);
    return 0;
}
static int scatter_tree_scatter_bal(const sn_topo_t *t, const sn_params_t *p, void **out,
                                    sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_balanced, 0, out, err);
}
static int scatter_tree_gather_ff(const sn_topo_t *t, const sn_params_t *p, void **out,
                                  sn_err_t *err)
{
    (void) err;
    *out = sn__lanes_plan_tree(t, p, sn__tree_bfs(t, p->root), 0, 1);
    return 0;
}
static int scatter_tree_gather_bal(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_balanced, 1, out, err);
}

#define TREE_ALGO(sym, nm, cl, mask, plan, step, summ, src, pred)                                  \
    const sn_algo_t sym = {                                                                        \
        .name = nm,                                                                                \
        .coll = cl,                                                                                \
        .pm_mask = mask,                                                                           \
        .topos = "any",                                                                            \
        .summary = summ,                                                                           \
        .source = src,                                                                             \
        .predicts = pred,                                                                          \
        .plan_new = plan,                                                                          \
        .plan_free = sn__lanes_plan_free,                                                          \
        .predicted = sn__lanes_predicted,                                                          \
        .state_size = SN__LANES_STATE_SIZE,                                                        \
        .node_init = sn__lanes_node_init,                                                          \
        .node_step = step,                                                                         \
        .parallel = 1,                                                                             \
    }

TREE_ALGO(sn__algo_scatter_ff, "scatter-ff", SN_COLL_SCATTER, SN_PM_ALL, scatter_tree_scatter_ff,
          sn__lanes_scatter_step,
          "furthest-first over a BFS tree, one message per slot from the root",
          "Dimakopoulos, thesis, Theorem 3.6",
          "max over messages of slot + depth - 1 "
          "(n-1 when every node is a processor)");
TREE_ALGO(sn__algo_scatter_balanced, "scatter-balanced", SN_COLL_SCATTER, SN_PM_MULTI | SN_PM_HALF,
          scatter_tree_scatter_bal, sn__lanes_scatter_step,
          "furthest-first per root subtree of a balanced spanning tree, all subtrees at once",
          "Dimakopoulos, thesis, Theorem 3.7",
          "the largest root subtree (its schedule's "
          "exact count)");
TREE_ALGO(sn__algo_gather_ff, "gather-ff", SN_COLL_GATHER, SN_PM_ALL, scatter_tree_gather_ff,
          sn__lanes_gather_step, "scatter-ff reversed in time: nodes inject at computed slots",
          "Dimakopoulos, thesis, chapter 3 (gather = scatter reversed) with Theorem 3.6",
          "the same count as scatter-ff");
TREE_ALGO(sn__algo_gather_balanced, "gather-balanced", SN_COLL_GATHER, SN_PM_MULTI | SN_PM_HALF,
          scatter_tree_gather_bal, sn__lanes_gather_step, "scatter-balanced reversed in time",
          "Dimakopoulos, thesis, chapter 3 (gather = scatter reversed) with Theorem 3.7",
          "the same count as scatter-balanced");
