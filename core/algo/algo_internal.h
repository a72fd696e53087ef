/* Internal interface of core/algo: spanning trees shared by the tree algorithms, the node engines
 * that run a schedule over any such tree, and the descriptors that core/model registers. */
#ifndef STEPNET_ALGO_INTERNAL_H
#define STEPNET_ALGO_INTERNAL_H

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

/* ---- node engines over any tree --------------------------------------------------------------
 * Each engine builds its plan from a tree made by `build` (which must apply: SN_EALGO otherwise)
 * and provides the descriptor members below; SN__*_ALGO_FIELDS fill them in a descriptor. */

/* Flooding (bcast_bfs.c): every node forwards each packet to all its children in the slot after
 * it arrives; steps = height + msgs*frags - 1. */
int sn__flood_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       void **plan, sn_err_t *err);
void sn__flood_plan_free(void *plan);
int64_t sn__flood_predicted(const void *plan);
int sn__flood_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
int sn__flood_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__FLOOD_STATE_SIZE (2 * sizeof(void *))
#define SN__FLOOD_ALGO_FIELDS                                                                      \
    .plan_free = sn__flood_plan_free, .predicted = sn__flood_predicted,                            \
    .state_size = SN__FLOOD_STATE_SIZE, .node_init = sn__flood_node_init,                          \
    .node_step = sn__flood_node_step

/* The ordered single-port schedule (bcast_tree.c): children served one per slot, slowest subtree
 * first (eq. 6.1); steps = the schedule's replayed count. */
int sn__ordered_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                         void **plan, sn_err_t *err);
void sn__ordered_plan_free(void *plan);
int64_t sn__ordered_predicted(const void *plan);
int sn__ordered_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__ordered_node_fini(void *state);
int sn__ordered_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__ORDERED_STATE_SIZE (2 * sizeof(void *) + 4 * sizeof(uint32_t))

/* Scattering over lanes (scatter_tree.c): one lane per root child, furthest first in each lane,
 * all lanes at once (Theorem 3.7); gather = its time reversal. steps = the largest root subtree
 * times msgs*frags. */
int sn__lanes_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       int gather, void **plan, sn_err_t *err);
void sn__lanes_plan_free(void *plan);
int64_t sn__lanes_predicted(const void *plan);
int sn__lanes_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
int sn__lanes_scatter_step(void *state, sn_step_t *io, sn_err_t *err);
int sn__lanes_gather_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__LANES_STATE_SIZE (sizeof(void *) + 2 * sizeof(uint32_t))
#define SN__LANES_ALGO_FIELDS(step)                                                                \
    .plan_free = sn__lanes_plan_free, .predicted = sn__lanes_predicted,                            \
    .state_size = SN__LANES_STATE_SIZE, .node_init = sn__lanes_node_init, .node_step = step

/* Descriptors, one per algorithm (registered in core/model/registry.c). */
extern const sn_algo_t sn__algo_bcast_bfs;
extern const sn_algo_t sn__algo_bcast_tree;
extern const sn_algo_t sn__algo_scatter_ff;
extern const sn_algo_t sn__algo_scatter_balanced;
extern const sn_algo_t sn__algo_gather_ff;
extern const sn_algo_t sn__algo_gather_balanced;
extern const sn_algo_t sn__algo_mnb_route;
extern const sn_algo_t sn__algo_te_route;
extern const sn_algo_t sn__algo_pmnb_route;
extern const sn_algo_t sn__algo_pexchange_route;

#endif
