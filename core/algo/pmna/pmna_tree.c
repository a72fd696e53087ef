/* pmna-tree: partial multinode accumulation over BFS trees, on any topology (core/algo).
 *
 * It runs one accumulation of sna-tree (sna/sna_tree.c; the dual of the broadcast, Dimakopoulos,
 * thesis, section 3.1) towards every target at once, each over the BFS tree rooted at that target;
 * a link whose queue holds several ready partials sends the oldest first (a greedy online
 * schedule), so its step count has no closed form and it predicts none. The engine is
 * engine/accum.c; this file gives it BFS trees. */
#include "core/algo/algos.h"
#include "core/algo/engine/accum.h"
#include "core/algo/engine/tree.h"

static int pmna_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__accum_plan_new(t, p, sn__tree_bfs, out, err);
}

const sn_algo_t sn__algo_pmna_tree = {
    .name = "pmna-tree",
    .coll = SN_COLL_PMNA,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY,
    .topos = "any",
    .summary = "one accumulation per target over its BFS tree, oldest ready partial first",
    .source = "Dimakopoulos, thesis, section 3.1 (the broadcast tree, used in reverse)",
    .predicts = "none",
    .applies = NULL,
    .plan_new = pmna_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};
