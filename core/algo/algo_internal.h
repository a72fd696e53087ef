/* Internal interface of core/algo: spanning trees shared by the tree algorithms, and the
 * descriptors that core/model registers. */
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

/* Descriptors, one per algorithm (registered in core/model/registry.c). */
extern const sn_algo_t sn__algo_bcast_bfs;
extern const sn_algo_t sn__algo_bcast_tree;
extern const sn_algo_t sn__algo_scatter_ff;
extern const sn_algo_t sn__algo_scatter_balanced;
extern const sn_algo_t sn__algo_gather_ff;
extern const sn_algo_t sn__algo_gather_balanced;
extern const sn_algo_t sn__algo_mnb_route;
extern const sn_algo_t sn__algo_te_cayley;
extern const sn_algo_t sn__algo_te_a2;
extern const sn_algo_t sn__algo_te_route;
extern const sn_algo_t sn__algo_pmnb_route;
extern const sn_algo_t sn__algo_pexchange_route;

/* te-a2's plan built from given factor schedules: given[i] (a single-port total exchange on factor
 * i with one reception per node per step, e.g. from sn_sched_record) or NULL to record one by
 * auto-selection as the registered algorithm does. Lets a test compose A2 from a schedule it built
 * itself. The schedules are copied; free the plan with sn__algo_te_a2.plan_free. */
struct sn_sched_s;
int sn__te_a2_plan_with(const sn_topo_t *t, const sn_params_t *p,
                        const struct sn_sched_s *const *given, void **plan, sn_err_t *err);

#endif
