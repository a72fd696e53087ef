/* The multiport scattering tree of the 2-D torus (core/algo/engine/tree_torus.c). */
#ifndef STEPNET_CORE_ALGO_ENGINE_TREE_TORUS_H
#define STEPNET_CORE_ALGO_ENGINE_TREE_TORUS_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* The multiport scattering tree of the 2-D torus (tree_torus.c, Dimakopoulos, thesis, section
 * 3.4.2, with the errata listed there). NULL unless t is an n x m
 * torus with n, m >= 3. How the tree of an n x m torus is made: */
typedef enum {
    SN_TORUS_THESIS,     /* the construction of section 3.4.2 as printed (corrected) */
    SN_TORUS_TRANSPOSED, /* the same with the roles of n and m swapped: n even >= 6, m = 4 */
    SN_TORUS_EXPLICIT,   /* an explicit tree found by hand: 4 x 4 */
    SN_TORUS_BALANCED,   /* sn__tree_balanced: 3 x even and even x 3, outside the thesis range */
} sn_torus_method_t;

/* The method used for an n x m torus (n rows: the first factor), n, m >= 3. */
sn_torus_method_t sn__torus_method(uint32_t n, uint32_t m);
sn_tree_t *sn__tree_torus(const sn_topo_t *t, uint32_t root);

/* 0 when t is a 2-D torus (torus:NxM, or the product of two rings) with both sides >= 3, and
 * *n, *m its sides; SN_ENOTSUP naming what `who` needs otherwise (*n and *m are always written:
 * 0 when t is not a product of two rings). */
int sn__torus_get(const sn_topo_t *t, uint32_t *n, uint32_t *m, const char *who, sn_err_t *err);

#endif
