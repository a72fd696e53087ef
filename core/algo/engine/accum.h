/* Accumulation over trees (core/algo/engine/accum.c): the node engine of the combining collectives
 * sna, pmna and mna over trees. */
#ifndef STEPNET_CORE_ALGO_ENGINE_ACCUM_H
#define STEPNET_CORE_ALGO_ENGINE_ACCUM_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* Accumulation over trees (accum.c): sna over the tree of `build` rooted at the root, pmna
 * over one tree per target, partials combined and sent upwards once complete, oldest first per
 * link. Predicted: height + msgs*frags - 1 for sna, none for pmna. */
int sn__accum_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       void **plan, sn_err_t *err);
void sn__accum_plan_free(void *plan);
int64_t sn__accum_predicted(const void *plan);
int sn__accum_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__accum_node_fini(void *state);
int sn__accum_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__ACCUM_STATE_SIZE (6 * sizeof(void *) + 2 * sizeof(uint32_t))
#define SN__ACCUM_ALGO_FIELDS                                                                      \
    .plan_free = sn__accum_plan_free, .predicted = sn__accum_predicted,                            \
    .state_size = SN__ACCUM_STATE_SIZE, .node_init = sn__accum_node_init,                          \
    .node_fini = sn__accum_node_fini, .node_step = sn__accum_node_step

#endif
