/* The Theorem 3.1 tree of a cartesian product (core/algo/engine/tree_product.c). */
#ifndef STEPNET_CORE_ALGO_ENGINE_TREE_PRODUCT_H
#define STEPNET_CORE_ALGO_ENGINE_TREE_PRODUCT_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* The Theorem 3.1 tree of a cartesian product (tree_product.c, Dimakopoulos, thesis,
 * section 3.1.1): the parent of u is u with coordinate i replaced by its parent in the tree of
 * factor i, i the lowest factor where u differs from the root. Factor trees: sn__tree_ering for
 * rings and extended rings, sn__tree_binomial for hypercubes, BFS otherwise; each has height
 * e_i(v_i), so the tree has height e(root). NULL unless t has factors (mesh, torus, product). */
sn_tree_t *sn__tree_product(const sn_topo_t *t, uint32_t root);

#endif
