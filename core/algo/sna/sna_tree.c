/* sna-tree: single-node accumulation over the BFS tree of the root, on any topology (core/algo).
 *
 * Single-node accumulation is the dual of the single-node broadcast (Dimakopoulos, thesis, section
 * 3.1; Varvarigos, folded-cube paper, section 1: accumulation is the dual of broadcast): every
 * node combines the partial values of its tree children with its own contribution and sends the
 * result to its parent once all of them have arrived. Each of the M = msgs * frags values is one
 * packet per link; a node with processors at height h below it sends value k in slot h + 1 + k, so
 * sna takes exactly height + M - 1 slots (height = the depth of the farthest processor of the BFS
 * tree rooted at the root), which is e(root) + M - 1 and optimal for M = 1. The engine is
 * engine/accum.c; this file gives it the BFS tree (so do pmna-tree, pmna/pmna_tree.c, and
 * mna-tree, mna/mna_tree.c, with one tree per target). */
#include "core/algo/algos.h"
#include "core/algo/engine/accum.h"
#include "core/algo/engine/tree.h"

static int sna_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
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
    .plan_new = sna_tree_plan_new,
    SN__ACCUM_ALGO_FIELDS,
};
