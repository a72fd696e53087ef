/* The binomial tree of the hypercube (core/algo/engine/tree_binomial.c). */
#ifndef STEPNET_CORE_ALGO_ENGINE_TREE_BINOMIAL_H
#define STEPNET_CORE_ALGO_ENGINE_TREE_BINOMIAL_H

#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* The binomial tree of Q_d (tree_binomial.c, thesis section 3.1, Fig. 3.1): the parent of x is x
 * with the lowest bit of x XOR root cleared. NULL unless t is a hypercube. */
sn_tree_t *sn__tree_binomial(const sn_topo_t *t, uint32_t root);

#endif
