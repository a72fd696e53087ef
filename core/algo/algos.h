/* The algorithm descriptors of core/algo, declared from the one list of algorithms (algos.def):
 * sn__algo_<id> for every SN_ALGO and SN_ALGO_HIDDEN line, defined in the file that its line
 * names; core/model/registry.c registers them.
 *
 * Where an algorithm lives: core/algo/<coll>/<coll>_<family>.c, one folder per collective, the
 * file named after the algorithm (bcast-fattree: bcast/bcast_fattree.c). Algorithms that are the
 * same code share the file of the first, under its collective: a variant (mnb-fattree-qf in
 * mnb/mnb_fattree.c), a time reversal (gather-fattree in scatter/scatter_fattree.c), the same
 * plan for another collective (barrier-rd in allreduce/allreduce_rd.c, mnb-mesh in
 * pmnb/pmnb_mesh.c, te-route in mnb/mnb_route.c); algos.def's file column says which. Machinery
 * that is no algorithm (trees, flooding, accumulation, prefix, lanes, timetables, Konig, the torus
 * necklaces, the schedule composer and the schedule-file replay with its hidden `schedule`) is in
 * engine/, the one folder named for a mechanism; the deliberately illegal test doubles are in
 * testing/.
 *
 * The layering rule of core/algo: it depends on core/topo, core/util and the public headers
 * stepnet/algo.h, topo.h, route.h, error.h and util.h only. No file in core/algo includes
 * stepnet/model.h, stepnet/sim.h or anything from core/model or core/sim, and none calls into them:
 * core/model registers, selects and plans algorithms and may call down into core/algo, never the
 * reverse. An algorithm that needs another run's schedule (A2, A3) asks for it as a plan input
 * (sn_algo_t.plan_inputs) and the model records it. */
#ifndef STEPNET_CORE_ALGO_ALGOS_H
#define STEPNET_CORE_ALGO_ALGOS_H

#include "stepnet/algo.h"

#define SN_ALGO(id, file, topologies, steps) extern const sn_algo_t sn__algo_##id;
#define SN_ALGO_HIDDEN(id, file)             extern const sn_algo_t sn__algo_##id;
#include "core/algo/algos.def"

#endif
