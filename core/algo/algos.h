/* The algorithm descriptors of core/algo, declared from the one list of algorithms (algos.def):
 * sn__algo_<id> for every SN_ALGO and SN_ALGO_HIDDEN line. Each is defined in the file of its
 * family folder (core/algo/<family>/); core/model/registry.c registers them.
 *
 * The layering rule of core/algo: it depends on core/topo, core/util and the public headers
 * stepnet/algo.h, topo.h, route.h, error.h and util.h only. No file in core/algo includes
 * stepnet/model.h, stepnet/sim.h or anything from core/model or core/sim, and none calls into them:
 * core/model registers, selects and plans algorithms and may call down into core/algo, never the
 * reverse. An algorithm that needs another run's schedule (A2, A3) asks for it as a plan input
 * (sn_algo_t.plan_inputs) and the model records it. */
#ifndef STEPNET_ALGO_ALGOS_H
#define STEPNET_ALGO_ALGOS_H

#include "stepnet/algo.h"

#define SN_ALGO(id, topologies, steps) extern const sn_algo_t sn__algo_##id;
#define SN_ALGO_HIDDEN(id)             extern const sn_algo_t sn__algo_##id;
#include "core/algo/algos.def"

#endif
