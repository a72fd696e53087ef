/* Scattering and gathering over lanes (core/algo/engine/lanes.c): a node engine that builds its
 * plan from a tree made by `build` (which must apply: SN_EALGO otherwise); SN__LANES_ALGO_FIELDS
 * fills its members in a descriptor. */
#ifndef STEPNET_CORE_ALGO_ENGINE_LANES_H
#define STEPNET_CORE_ALGO_ENGINE_LANES_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* Scattering over lanes (lanes.c): one lane per root child, furthest first in each lane,
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

/* The plan over a given tree (taken over by the plan): with lanes, one lane per root child as
 * above; without, one lane from the root (the single-port schedule of Theorem 3.6). Never fails. */
void *sn__lanes_plan_tree(const sn_topo_t *t, const sn_params_t *p, sn_tree_t *tree, int lanes,
                          int gather);

#endif
