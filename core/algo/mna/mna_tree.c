/* mna-tree: multinode accumulation over BFS trees, on any topology (core/algo).
 *
 * pmna-tree (pmna/pmna_tree.c) with every processor a target: one accumulation towards every
 * processor at once, each over the BFS tree rooted at it, the oldest ready partial first on every
 * link; no closed form, so it predicts none. Multinode accumulation is the dual of the multinode
 * broadcast (Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3), MPI's
 * reduce_scatter. The engine is engine/accum.c; this file gives it BFS trees. */
#include "core/algo/algos.h"
#include "core/algo/engine/accum.h"
#include "core/algo/engine/tree.h"

static int mna_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__accum_plan_new(t, p, sn__tree_bfs, out, err);
}

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
    .plan_new = mna_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};
