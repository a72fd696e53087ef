/* bcast-tree: single-port broadcast by an ordered tree schedule (core/algo).
 *
 * The thesis gives no general single-port broadcast algorithm, only lower bounds (Dimakopoulos,
 * thesis, section 3.2, Theorem 3.3); we use on any graph the tree schedule that section 6.2.1
 * gives for fat trees, eq. (6.1): every node serves its children one per slot, in decreasing order
 * of their subtree's broadcast time b, where b(leaf) = 0 and b(u) = max_i (b(c_i) + i) with b(c_1)
 * >= b(c_2) >= ... This order is optimal for the given tree. We use the BFS tree.
 *
 * With M = msgs * frags packets a node sends packet j to its children c_1 .. c_k in order, then
 * packet j+1, each send at the first slot after the previous send and after packet j arrived.
 * Every node receives from its parent only and sends one packet per slot, so the schedule obeys
 * single-port with one reception (and any other model). predicted_steps is this schedule's exact
 * count, computed by replaying the rule over the tree; for M = 1 it equals b(root).
 *
 * The engine is algo/engine/ordered.c; this file gives it the BFS tree. */
#include "core/algo/algos.h"
#include "core/algo/engine/ordered.h"
#include "core/algo/engine/tree.h"

static int bcast_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__ordered_plan_new(t, p, sn__tree_bfs, out, err);
}

const sn_algo_t sn__algo_bcast_tree = {
    .name = "bcast-tree",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_ALL,
    .topos = "any",
    .summary = "BFS tree; each node serves its children one per slot, slowest subtree first",
    .source = "Dimakopoulos, thesis, section 6.2.1, eq. (6.1), used on any graph; lower bound "
              "Theorem 3.3",
    .predicts = "the schedule's exact count (b(root) of eq. 6.1 for one packet)",
    .plan_new = bcast_tree_plan_new,
    .plan_free = sn__ordered_plan_free,
    .predicted = sn__ordered_predicted,
    .state_size = SN__ORDERED_STATE_SIZE,
    .node_init = sn__ordered_node_init,
    .node_fini = sn__ordered_node_fini,
    .node_step = sn__ordered_node_step,
    .parallel = 1,
};
