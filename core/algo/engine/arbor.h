/* Arc-disjoint spanning arborescences rooted at one node (core/algo): the packing of Edmonds,
 * "Edge-disjoint branchings" (1973), built as in Lovász's proof of it ("On two minimax theorems
 * in graph theory", 1976), one arc at a time under a max-flow check. Every edge of the topology is
 * two arcs, one per direction; parallel edges are separate arcs. Used by bcast-arbor
 * (bcast/bcast_arbor.c). */
#ifndef STEPNET_CORE_ALGO_ENGINE_ARBOR_H
#define STEPNET_CORE_ALGO_ENGINE_ARBOR_H

#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

typedef struct {
    uint32_t k, n; /* arborescences, nodes */
    /* [k * n], tree j's entries at j * n: the parent of v in tree j and the parent's port towards
     * v (UINT32_MAX at the root), v's depth, and the tree's nodes in the order they joined it
     * (the root first) */
    uint32_t *parent, *pport, *depth, *order;
    uint32_t *height; /* [k] the largest depth of each tree */
} sn_arbor_t;

/* 0 when sn_arbor_pack may pack t from root within its work limit (the work estimated from the
 * sizes alone, nothing allocated), SN_ENOTSUP for a topology with routers, SN_ERANGE naming the
 * limit otherwise; `name` is the algorithm's, for the message. */
int sn_arbor_applies(const sn_topo_t *t, uint32_t root, const char *name, sn_err_t *err);

/* The packings sn_arbor_pack tries. */
#define SN_ARBOR_VARIANTS 16

/* Packs k = the root's arc connectivity (the least max-flow from root to any node) arc-disjoint
 * spanning arborescences rooted at root into *out, grown together breadth-first so that they stay
 * shallow; of SN_ARBOR_VARIANTS growth orders, the one that carries M packets in the fewest slots
 * (sn_arbor_deal). 0, or SN_EALGO when t is not connected. */
int sn_arbor_pack(const sn_topo_t *t, uint32_t root, uint32_t M, const char *name, sn_arbor_t *out,
                  sn_err_t *err);

/* The packets of each tree, c[0 .. k-1] (c may be NULL), when M packets are pipelined down the
 * trees of a, each a level per slot: the least T with sum_j max(0, T - h_j + 1) >= M, the trees
 * carrying T - h_j + 1 each but the tallest, which give up the overshoot. Returns T, the slot the
 * last packet arrives in (0 without trees). */
uint64_t sn_arbor_deal(const sn_arbor_t *a, uint32_t M, uint32_t *c);

void sn_arbor_free(sn_arbor_t *a);

#endif
