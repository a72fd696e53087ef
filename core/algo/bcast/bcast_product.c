/* bcast-product: multiport broadcast over the Theorem 3.1 tree of a cartesian product (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1.1, Theorem 3.1 and Fig. 3.3.
 * The tree (engine/tree_product.c) generalises the binomial tree: a node
 * that received over dimension i forwards in all lower dimensions and in dimension i. It has height
 * e(v) = sum_i e_i(v_i) (eq. 2.2), so flooding over it (engine/flood.c: every node
 * forwards to its children in the slot after reception) takes e(v) slots, optimal, and with
 * M = msgs * frags packets pipelined e(v) + M - 1. Meshes, tori and any product spec. */
#include "core/algo/algos.h"
#include "core/algo/engine/flood.h"
#include "core/algo/engine/tree_product.h"

static int bcast_product_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->nfactors == 0)
        return sn_err_set(err, SN_ENOTSUP,
                          "bcast-product needs a cartesian product (mesh:AxB..., torus:AxB..., or "
                          "S1*S2*...), not %s",
                          t->spec);
    return 0;
}

static int bcast_product_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                  sn_err_t *err)
{
    return sn__flood_plan_new(t, p, sn__tree_product, out, err);
}

const sn_algo_t sn__algo_bcast_product = {
    .name = "bcast-product",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "mesh, torus, products",
    .summary =
        "flooding over the Theorem 3.1 tree: forward in the lower dimensions and in one's own",
    .source = "Dimakopoulos, thesis, section 3.1.1, Theorem 3.1, Fig. 3.3",
    .predicts = "e(root) = sum of the factor eccentricities, + packets - 1",
    .applies = bcast_product_applies,
    .plan_new = bcast_product_plan_new,
    SN__FLOOD_ALGO_FIELDS,
};
