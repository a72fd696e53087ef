/* Spanning trees shared by the tree algorithms (core/algo/engine/tree.c): the tree type, the BFS
 * and balanced trees, and the builder interface that the family trees (tree_*.h) implement. */
#ifndef STEPNET_CORE_ALGO_ENGINE_TREE_H
#define STEPNET_CORE_ALGO_ENGINE_TREE_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* A rooted spanning tree with what the schedules need: depth, children in port order, pre-order
 * intervals (x is in the subtree of c iff pin[c] <= pin[x] < pout[c]) and processor counts. */
typedef struct sn_tree_s {
    uint32_t n, root;
    uint32_t *parent;     /* [n], UINT32_MAX at the root */
    uint32_t *up_port;    /* [n] port of the node towards its parent */
    uint32_t *depth;      /* [n] */
    uint32_t *child_off;  /* [n+1] children of u: child[child_off[u] .. child_off[u+1]-1] */
    uint32_t *child;      /* children, in the parent's port order */
    uint32_t *child_port; /* the parent's port towards each child */
    uint32_t *child_pin;  /* pin of each child, next to it (the downward search reads these) */
    uint32_t *pin, *pout; /* [n] pre-order interval */
    uint32_t *nproc;      /* [n] processors in the subtree */
    uint32_t height;      /* max depth of a processor */
} sn_tree_t;

/* BFS tree: the parent of each node is its first discoverer, ports scanned in order. */
sn_tree_t *sn__tree_bfs(const sn_topo_t *t, uint32_t root);

/* Balanced tree (for multiport scattering, Theorem 3.7 of the thesis): one region per distinct
 * neighbour of the root, grown breadth-first, the region with the fewest processors growing next.
 */
sn_tree_t *sn__tree_balanced(const sn_topo_t *t, uint32_t root);

void sn__tree_free(sn_tree_t *tr);

/* The child of u whose subtree holds x (x a proper descendant of u), as an index into child[]. */
uint32_t sn__tree_child_towards(const sn_tree_t *tr, uint32_t u, uint32_t x);

/* ---- building trees (tree.c, tree_*.c) --------------------------------------------------------
 * A builder allocates with sn__tree_alloc, sets parent[] and up_port[] of every node but the root
 * (directly or with sn__tree_set_parent) and calls sn__tree_finish, which computes the rest. */

/* A tree of t's nodes rooted at root with every parent unset (UINT32_MAX). */
sn_tree_t *sn__tree_alloc(const sn_topo_t *t, uint32_t root);

/* parent[u] = parent and up_port[u] = the first port of u towards it. -1 if they are not adjacent
 * (nothing is changed then). */
int sn__tree_set_parent(const sn_topo_t *t, sn_tree_t *tr, uint32_t u, uint32_t parent);

/* Children (in each parent's port order), depths, pre-order intervals, processor counts and height
 * from parent[] and up_port[]. 0, or SN_EALGO when they do not form a spanning tree rooted at
 * tr->root (a node without parent, an up_port that does not lead to the parent, a cycle); the
 * tree must then only be freed. */
int sn__tree_finish(const sn_topo_t *t, sn_tree_t *tr);

/* A tree builder: the tree of t rooted at root, or NULL when this family does not apply to t. */
typedef sn_tree_t *(*sn_tree_builder_t)(const sn_topo_t *t, uint32_t root);

#endif
