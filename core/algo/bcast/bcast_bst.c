/* bcast-bst: all-port single-node broadcast on the k-ary n-dimensional torus by pipelining over
 * the shortest-path spanning tree BST of the necklace framework (core/algo). Source: Fragopoulou
 * and Akl, torus framework, section 5.2 on BST_s (Def. 8, Lemma 6): the root sends packet x on
 * all 2n links in step x+1 and every node forwards each packet to its BST children in the step
 * after it arrives, so steps = M + n floor(k/2) - 1 (the BST is a shortest-path tree of height
 * n floor(k/2), the diameter). Table 1 prints M + n floor(k/2) + 1: a typo (docs/reproduction.md).
 * The tree of root s is the tree of 0^n translated by T_s; for even k it uses the repaired parent
 * rule of torus_necklace.c. Every packet carries its source (the root) in the header. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/flood.h"
#include "core/algo/engine/torus_necklace.h"
#include "core/algo/engine/tree.h"

static int bcast_bst_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t n, k;
    return sn__tnk_get(t, &n, &k, "bcast-bst", err);
}

/* BST_root: parent(u) = T_root(bst_parent(T_root^-1(u))). */
static sn_tree_t *build(const sn_topo_t *t, uint32_t root)
{
    sn_tnk_t *tk;
    if (sn__tnk_for(t, "bcast-bst", &tk, NULL) < 0)
        return NULL;
    sn_tree_t *tr = sn__tree_alloc(t, root);
    int ok = 1;
    for (uint32_t u = 0; u < t->n && ok; u++) {
        if (u == root)
            continue;
        uint32_t w = sn__tnk_trans(tk, root, u, 0);
        ok = sn__tree_set_parent(t, tr, u, sn__tnk_trans(tk, root, tk->bst_parent[w], 1)) == 0;
    }
    sn__tnk_free(tk);
    if (!ok || sn__tree_finish(t, tr) < 0) {
        sn__tree_free(tr);
        return NULL;
    }
    return tr;
}

static int bcast_bst_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = bcast_bst_applies(t, p, err);
    if (rc < 0)
        return rc;
    return sn__flood_plan_new(t, p, build, out, err);
}

const sn_algo_t sn__algo_bcast_bst = {
    .name = "bcast-bst",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI,
    .topos = "torus:KxK...xK and ring:K, k >= 3",
    .summary = "pipelined flooding over the necklace spanning tree BST of the torus",
    .source = "Fragopoulou and Akl, torus framework, sec. 5.2, Def. 8, Lemma 6",
    .predicts = "M + n floor(k/2) - 1 (Table 1's +1 corrected)",
    .applies = bcast_bst_applies,
    .plan_new = bcast_bst_plan_new,
    SN__FLOOD_ALGO_FIELDS,
};
