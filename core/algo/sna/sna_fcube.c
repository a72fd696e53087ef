/* sna-fcube: single-node accumulation on the folded cube FQ_d in ceil(d/2) slots, its diameter
 * (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 3 ("for every node there exists a spanning tree
 * rooted at that node with depth equal to the diameter", so SNB and its dual SNA take ceil(d/2)
 * slots, optimal; Fig. 1). The tree is bcast-fcube's (core/algo/bcast/bcast_fcube.c), the rule of
 * sn__tree_fcube (engine/fcube.c); accumulation combines up it (engine/accum.c); with
 * M = msgs * frags packets it pipelines one packet per slot: ceil(d/2) + M - 1 slots, all-port. */
#include "core/algo/algos.h"
#include "core/algo/engine/accum.h"
#include "core/algo/engine/fcube.h"

static int sna_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__fcube_get(t, &d, "sna-fcube", err);
}

static int plan_sna(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    return sn__accum_plan_new(t, p, sn__tree_fcube, plan, err);
}

const sn_algo_t sn__algo_sna_fcube = {
    .name = "sna-fcube",
    .coll = SN_COLL_SNA,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "foldedcube",
    .summary = "accumulation up the folded cube's depth-ceil(d/2) tree, combining on the way",
    .source = "Varvarigos, folded-cube paper, section 3, Fig. 1 (the dual of the broadcast)",
    .predicts = "ceil(d/2) + msgs - 1",
    .applies = sna_fcube_applies,
    .plan_new = plan_sna,
    SN__ACCUM_ALGO_FIELDS,
};
