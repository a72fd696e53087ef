/* The flooding engine (core/algo/engine/flood.c): a node engine that builds its plan from a tree
 * made by `build` (which must apply: SN_EALGO otherwise) and provides the descriptor members below;
 * SN__FLOOD_ALGO_FIELDS fills them in a descriptor. */
#ifndef STEPNET_CORE_ALGO_ENGINE_FLOOD_H
#define STEPNET_CORE_ALGO_ENGINE_FLOOD_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* Flooding (flood.c): every node forwards each packet to all its children in the slot after
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

#endif
