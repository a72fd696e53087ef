/* The extended ring E_n^rho and its broadcast and scattering tree (core/algo/engine/tree_ering.c).
 */
#ifndef STEPNET_CORE_ALGO_ENGINE_TREE_ERING_H
#define STEPNET_CORE_ALGO_ENGINE_TREE_ERING_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* Extended rings (tree_ering.c, Dimakopoulos, thesis, section 3.1):
 * ring:N is E_N^1, ering:N:RHO is E_N^RHO and complete:N is E_N^floor(N/2). */
typedef struct sn_ering_s {
    sn_topo_kind_t kind; /* SN_TOPO_RING, SN_TOPO_ERING or SN_TOPO_COMPLETE */
    uint32_t n, rho;     /* E_n^rho */
    uint32_t D, w, k;    /* D = ceil(floor(n/2)/rho), w = floor((n-1)/rho) - D, k = n-(w+D)rho-1 */
    uint32_t deg;        /* 2 rho, or 2 rho - 1 when rho = n/2 */
} sn_ering_t;

/* 0 and *e when t is a ring, an extended ring or a complete graph; SN_ENOTSUP (err may be NULL)
 * naming what `who` needs otherwise. */
int sn__ering_get(const sn_topo_t *t, sn_ering_t *e, const char *who, sn_err_t *err);

/* The port of any node u towards u (+) s (ccw = 0) or u (-) s (ccw = 1), 1 <= s <= rho. The port
 * numbering of these families is the same at every node (topo.h). */
uint32_t sn__ering_port(const sn_ering_t *e, int ccw, uint32_t s);

/* The tree that the weight protocol of section 3.1 builds: the root's clockwise neighbours 1..rho
 * start paths of D nodes, its counter-clockwise neighbours 1..k paths of w+1 nodes and k+1..rho
 * paths of w nodes (none when w = 0: the printed rule would send weight-0 packets); every path
 * jumps rho at a time. Height D, largest root subtree D = ceil((n-1)/deg) (Theorem 3.8). NULL
 * unless t is a ring, an extended ring or a complete graph. */
sn_tree_t *sn__tree_ering(const sn_topo_t *t, uint32_t root);

#endif
