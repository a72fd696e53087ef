/* bcast-fcube: single-node broadcast on the folded cube FQ_d in ceil(d/2) slots, its diameter
 * (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 3 ("for every node there exists a spanning tree
 * rooted at that node with depth equal to the diameter", so SNB takes ceil(d/2) slots, optimal;
 * Fig. 1). The paper does not give the tree; stepnet uses the rule of sn__tree_fcube
 * (engine/fcube.c): flip the highest differing bit while at most ceil(d/2) bits differ, otherwise
 * go through the complementary link. Broadcast floods it (engine/flood.c); with M = msgs * frags
 * packets it pipelines one packet per slot: ceil(d/2) + M - 1 slots, all-port. Its dual, the
 * accumulation up the same tree, is sna-fcube (core/algo/sna/sna_fcube.c). */
#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "core/algo/engine/flood.h"

static int bcast_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__fcube_get(t, &d, "bcast-fcube", err);
}

static int plan_bcast(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    return sn__flood_plan_new(t, p, sn__tree_fcube, plan, err);
}

const sn_algo_t sn__algo_bcast_fcube = {
    .name = "bcast-fcube",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "foldedcube",
    .summary = "flooding over the folded cube's depth-ceil(d/2) tree (all-port)",
    .source = "Varvarigos, folded-cube paper, section 3, Fig. 1",
    .predicts = "ceil(d/2) + msgs - 1",
    .applies = bcast_fcube_applies,
    .plan_new = plan_bcast,
    SN__FLOOD_ALGO_FIELDS,
};
