/* sna-tree, pmna-tree and mna-tree: accumulation over BFS trees, on any topology (core/algo).
 *
 * Single-node accumulation is the dual of the single-node broadcast (Dimakopoulos, thesis, section
 * 3.1; Varvarigos, folded-cube paper, section 1: accumulation is the dual of broadcast): every
 * node combines the partial values of its tree children with its own contribution and sends the
 * result to its parent once all of them have arrived. Each of the M = msgs * frags values is one
 * packet per link; a node with processors at height h below it sends value k in slot h + 1 + k, so
 * sna takes exactly height + M - 1 slots (height = the depth of the farthest processor of the BFS
 * tree rooted at the root), which is e(root) + M - 1 and optimal for M = 1.
 *
 * pmna runs one such accumulation towards every target at once, each over the BFS tree rooted at
 * that target; a link whose queue holds several ready partials sends the oldest first (a greedy
 * online schedule), so its step count has no closed form and it predicts none. mna-tree is the
 * same with every processor a target: multinode accumulation, the dual of the multinode broadcast
 * (Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3), MPI's
 * reduce_scatter. The engine is algo/engine/accum.c; this file gives it BFS trees. */
#include "core/algo/algos.h"
#include "core/algo/engine/accum.h"
#include "core/algo/engine/tree.h"

static int accum_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__accum_plan_new(t, p, sn__tree_bfs, out, err);
}

const sn_algo_t sn__algo_sna_tree = {
    .name = "sna-tree",
    .coll = SN_COLL_SNA,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY | SN_PM_HALF,
    .topos = "any",
    .summary = "accumulation to the root over its BFS tree, values combined on the way",
    .source = "Dimakopoulos, thesis, section 3.1 (the broadcast tree, used in reverse)",
    .predicts = "height of the BFS tree + msgs - 1",
    .applies = NULL,
    .plan_new = accum_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};

const sn_algo_t sn__algo_pmna_tree = {
    .name = "pmna-tree",
    .coll = SN_COLL_PMNA,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY,
    .topos = "any",
    .summary = "one accumulation per target over its BFS tree, oldest ready partial first",
    .source = "Dimakopoulos, thesis, section 3.1 (the broadcast tree, used in reverse)",
    .predicts = "none",
    .applies = NULL,
    .plan_new = accum_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};

const sn_algo_t sn__algo_mna_tree = {
    .name = "mna-tree",
    .coll = SN_COLL_MNA,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY,
    .topos = "any",
    .summary = "one accumulation per processor over its BFS tree, oldest ready partial first",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(multinode accumulation, the dual of the multinode broadcast)",
    .predicts = "none",
    .applies = NULL,
    .plan_new = accum_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};
