/* The algorithm descriptors of core/algo, declared from the one list of algorithms (algos.def):
 * sn__algo_<id> for every SN_ALGO and SN_ALGO_HIDDEN line. Each is defined in the file of its
 * family folder (core/algo/<family>/); core/model/registry.c registers them. */
#ifndef STEPNET_ALGO_ALGOS_H
#define STEPNET_ALGO_ALGOS_H

#include "stepnet/algo.h"

#define SN_ALGO(id, topologies, steps) extern const sn_algo_t sn__algo_##id;
#define SN_ALGO_HIDDEN(id)             extern const sn_algo_t sn__algo_##id;
#include "algo/algos.def"

#endif
