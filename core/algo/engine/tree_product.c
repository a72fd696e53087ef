/* The Theorem 3.1 broadcast tree of a cartesian product G_1 x ... x G_k (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1.1, Theorem 3.1 and Fig. 3.3.
 * The recursive construction (|V_k| copies of the tree of the
 * first k-1 dimensions, joined by the factor tree of dimension k at (v_1, ..., v_{k-1}, *)) has the
 * closed form proved with Theorem 3.1: the parent of u != v is u with coordinate i replaced by the
 * parent of u_i in the tree of factor i, where i is the lowest index with u_i != v_i. A node that
 * received over dimension i forwards in every dimension below i and in dimension i itself.
 * Heights add up: with factor trees of height e_i(v_i) the tree has height e(v) = sum e_i(v_i)
 * (eq. 2.2), which is optimal for multiport broadcast. Factor trees: the E_n^rho tree of section
 * 3.1 for rings and extended rings (section 3.1), the binomial tree for hypercubes, a BFS
 * tree for every other factor. Factor i is stepnet's i-th factor (the first one most significant
 * in the node id), so mesh:3x4x2 is L_3 x L_4 x L_2 as in Fig. 3.3. */
#include <stdlib.h>

#include "core/algo/engine/tree.h"
#include "core/algo/engine/tree_binomial.h"
#include "core/algo/engine/tree_ering.h"
#include "core/algo/engine/tree_product.h"
#include "stepnet/util.h"

sn_tree_t *sn__tree_product(const sn_topo_t *t, uint32_t root)
{
    uint32_t nf = t->nfactors;
    if (nf == 0)
        return NULL;
    sn_tree_t *ft[SN_TOPO_MAX_FACTORS] = {0};
    sn_tree_t *tr = NULL;
    for (uint32_t i = 0; i < nf; i++) {
        const sn_topo_t *f = t->factors[i];
        uint32_t v = sn_topo_coord(t, root, i);
        if (f->kind == SN_TOPO_RING || f->kind == SN_TOPO_ERING)
            ft[i] = sn__tree_ering(f, v);
        else if (f->kind == SN_TOPO_HYPERCUBE)
            ft[i] = sn__tree_binomial(f, v);
        else
            ft[i] = sn__tree_bfs(f, v);
        if (ft[i] == NULL)
            goto done;
    }
    tr = sn__tree_alloc(t, root);
    for (uint32_t u = 0; u < t->n; u++) {
        if (u == root)
            continue;
        /* ports are factor 0's, then factor 1's, ... (topo.h): skip the lower factors' ports */
        uint32_t i = 0, off = 0;
        while (sn_topo_coord(t, u, i) == sn_topo_coord(t, root, i)) {
            off += sn_topo_degree(t->factors[i], sn_topo_coord(t, u, i));
            i++;
        }
        uint32_t c = sn_topo_coord(t, u, i);
        tr->parent[u] = sn_topo_with_coord(t, u, i, ft[i]->parent[c]);
        tr->up_port[u] = off + ft[i]->up_port[c];
    }
    if (sn__tree_finish(t, tr) < 0) {
        sn__tree_free(tr);
        tr = NULL;
    }
done:
    for (uint32_t i = 0; i < nf; i++)
        sn__tree_free(ft[i]);
    return tr;
}
