/* The ordered single-port tree schedule (core/algo/engine/ordered.c): a node engine that builds its
 * plan from a tree made by `build` (which must apply: SN_EALGO otherwise). */
#ifndef STEPNET_CORE_ALGO_ENGINE_ORDERED_H
#define STEPNET_CORE_ALGO_ENGINE_ORDERED_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* The ordered single-port schedule (ordered.c): children served one per slot, slowest subtree
 * first (eq. 6.1); steps = the schedule's replayed count. */
/* Eq. (6.1) on tr: b(leaf) = 0, b(u) = max_i (b(c_i) + i) over u's served children (those with
 * processors below) sorted by b descending. Fills each node's serving order (order_off[n+1] and
 * order, indices into tr->child[]) unless both are NULL; returns b(root), the one-packet time. */
uint64_t sn__ordered_schedule(const sn_tree_t *tr, uint32_t n, uint32_t *order_off,
                              uint32_t *order);
int sn__ordered_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                         void **plan, sn_err_t *err);
void sn__ordered_plan_free(void *plan);
int64_t sn__ordered_predicted(const void *plan);
int sn__ordered_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__ordered_node_fini(void *state);
int sn__ordered_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__ORDERED_STATE_SIZE (2 * sizeof(void *) + 4 * sizeof(uint32_t))

#endif
