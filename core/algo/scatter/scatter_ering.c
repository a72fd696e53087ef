/* scatter-ering, gather-ering: multiport scattering and gathering on the extended ring E_n^rho
 * (core/algo).
 *
 * Source: Dimakopoulos, thesis, Theorem 3.8, over the tree of section 3.1.
 * Every root subtree of the E_n^rho tree
 * (engine/tree_ering.c) is a path p_1 .. p_N, N <= D; the root sends on link (root, p_1) the
 * message for p_N in slot 1, for p_(N-1) in slot 2, ..., for p_1 in slot N (furthest first, the
 * lane engine of engine/lanes.c), and every p_j forwards in the next slot; every node of the path
 * receives in slot N. Time D = ceil((n-1)/deg), the bound (3.3), for every n >= 2 and rho <= n/2
 * (including rho = n/2 and w = 0, where the thesis's "2 rho children" fails). Gather is the time
 * reversal. With M = msgs * frags packets per node: D * M. */
#include "core/algo/algos.h"
#include "core/algo/engine/lanes.h"
#include "core/algo/engine/tree_ering.h"

static int scatter_ering_applies_scatter(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    sn_ering_t e;
    return sn__ering_get(t, &e, "scatter-ering", err);
}

static int scatter_ering_applies_gather(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    sn_ering_t e;
    return sn__ering_get(t, &e, "gather-ering", err);
}

static int scatter_ering_plan_scatter(const sn_topo_t *t, const sn_params_t *p, void **out,
                                      sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_ering, 0, out, err);
}

static int scatter_ering_plan_gather(const sn_topo_t *t, const sn_params_t *p, void **out,
                                     sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_ering, 1, out, err);
}

const sn_algo_t sn__algo_scatter_ering = {
    .name = "scatter-ering",
    .coll = SN_COLL_SCATTER,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "ring, ering, complete",
    .summary = "furthest first down each path of the E_n^rho tree, all paths at once",
    .source = "Dimakopoulos, thesis, Theorem 3.8, tree of section 3.1",
    .predicts = "D * packets, D = ceil((n-1)/deg) (Theorem 3.8)",
    .applies = scatter_ering_applies_scatter,
    .plan_new = scatter_ering_plan_scatter,
    SN__LANES_ALGO_FIELDS(sn__lanes_scatter_step),
};

const sn_algo_t sn__algo_gather_ering = {
    .name = "gather-ering",
    .coll = SN_COLL_GATHER,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "ring, ering, complete",
    .summary = "scatter-ering reversed in time",
    .source = "Dimakopoulos, thesis, chapter 3 (gather = scatter reversed) with Theorem 3.8",
    .predicts = "the same count as scatter-ering",
    .applies = scatter_ering_applies_gather,
    .plan_new = scatter_ering_plan_gather,
    SN__LANES_ALGO_FIELDS(sn__lanes_gather_step),
};
