/* scatter-torus, gather-torus: multiport scattering and gathering on the 2-D torus (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.4.2 (the tree) and Theorem 3.7
 * (its time), with the errata of the printed construction noted in engine/tree_torus.c. The root's
 * four neighbours own four regions of the torus (engine/tree_torus.c); the root runs furthest-first
 * into each region at once (the lane engine, engine/lanes.c), so the time is the largest region,
 * ceil((nm-1)/4) = the bound (3.3), for every n, m >= 3: the thesis construction where it works,
 * transposed for n even >= 6 x 4, the explicit tree for 4 x 4 and the generic balanced tree for
 * 3 x even and even x 3 (engine/tree_torus.c says which). Gather is the time reversal. With
 * M = msgs * frags packets per node: the largest region times M. */
#include "core/algo/algos.h"
#include "core/algo/engine/lanes.h"
#include "core/algo/engine/tree_torus.h"

static int scatter_torus_applies_scatter(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, m;
    return sn__torus_get(t, &n, &m, "scatter-torus", err);
}

static int scatter_torus_applies_gather(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, m;
    return sn__torus_get(t, &n, &m, "gather-torus", err);
}

static int scatter_torus_plan_scatter(const sn_topo_t *t, const sn_params_t *p, void **out,
                                      sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_torus, 0, out, err);
}

static int scatter_torus_plan_gather(const sn_topo_t *t, const sn_params_t *p, void **out,
                                     sn_err_t *err)
{
    return sn__lanes_plan_new(t, p, sn__tree_torus, 1, out, err);
}

const sn_algo_t sn__algo_scatter_torus = {
    .name = "scatter-torus",
    .coll = SN_COLL_SCATTER,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "2-D torus, sides >= 3",
    .summary = "four balanced regions of the torus, furthest first into each at once",
    .source =
        "Dimakopoulos, thesis, section 3.4.2, with Theorem 3.7 (printed construction corrected)",
    .predicts = "the largest region * packets = ceil((nm-1)/4) * packets",
    .applies = scatter_torus_applies_scatter,
    .plan_new = scatter_torus_plan_scatter,
    SN__LANES_ALGO_FIELDS(sn__lanes_scatter_step),
};

const sn_algo_t sn__algo_gather_torus = {
    .name = "gather-torus",
    .coll = SN_COLL_GATHER,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "2-D torus, sides >= 3",
    .summary = "scatter-torus reversed in time",
    .source = "Dimakopoulos, thesis, chapter 3 (gather = scatter reversed) with section 3.4.2",
    .predicts = "the same count as scatter-torus",
    .applies = scatter_torus_applies_gather,
    .plan_new = scatter_torus_plan_gather,
    SN__LANES_ALGO_FIELDS(sn__lanes_gather_step),
};
