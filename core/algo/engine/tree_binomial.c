/* The binomial broadcast tree of the hypercube Q_d (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1 and Fig. 3.1. From root s, node x with y = x XOR s != 0
 * has the parent x with the lowest set bit of y cleared, so a node that received over dimension j
 * forwards on every dimension below j and the root on all d. Node x is at depth popcount(y). It is
 * the Theorem 3.1 tree of d copies of K_2 with coordinate j = bit j (checked in
 * tests/unit/test_thesis_trees.c).
 */
#include "core/algo/engine/tree.h"
#include "core/algo/engine/tree_binomial.h"

sn_tree_t *sn__tree_binomial(const sn_topo_t *t, uint32_t root)
{
    if (t->kind != SN_TOPO_HYPERCUBE)
        return NULL;
    sn_tree_t *tr = sn__tree_alloc(t, root);
    for (uint32_t x = 0; x < t->n; x++) {
        uint32_t y = x ^ root;
        if (y == 0)
            continue;
        uint32_t j = 0;
        while (!(y >> j & 1u))
            j++;
        tr->parent[x] = x ^ (1u << j);
        tr->up_port[x] = j; /* port j flips bit j (topo.h) */
    }
    if (sn__tree_finish(t, tr) < 0) {
        sn__tree_free(tr);
        return NULL;
    }
    return tr;
}
