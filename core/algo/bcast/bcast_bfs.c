/* bcast-bfs: multiport broadcast by flooding over a BFS tree (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1: "at step depth(u)+1, send to all
 * tree children of u"; the completion time is the eccentricity e(v) of the root, optimal because
 * the farthest nodes cannot be reached sooner. With M = msgs * frags packets the root injects one
 * per slot and every node forwards each packet in the slot after it arrives (a pipeline), so steps
 * = height + M - 1, where height is the depth of the farthest processor (= e(v) over processors).
 * Branches that hold no processor (router-only) are not flooded.
 *
 * The engine is algo/engine/flood.c; this file gives it the BFS tree. */
#include "core/algo/algos.h"
#include "core/algo/engine/flood.h"
#include "core/algo/engine/tree.h"

static int bcast_bfs_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__flood_plan_new(t, p, sn__tree_bfs, out, err);
}

const sn_algo_t sn__algo_bcast_bfs = {
    .name = "bcast-bfs",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "any",
    .summary = "flooding over a BFS tree; every node forwards to all its children at once",
    .source = "Dimakopoulos, thesis, section 3.1: multiport broadcast = e(v)",
    .predicts = "height of the BFS tree (eccentricity of the root) + packets - 1",
    .plan_new = bcast_bfs_plan_new,
    SN__FLOOD_ALGO_FIELDS,
};
