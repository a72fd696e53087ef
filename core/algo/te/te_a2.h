/* te-a2's plan from given factor schedules (core/algo/te/te_a2.c), for tests that compose A2
 * from schedules they built themselves. */
#ifndef STEPNET_CORE_ALGO_TE_TE_A2_H
#define STEPNET_CORE_ALGO_TE_TE_A2_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* te-a2's plan built from given factor schedules: given[i], one per factor of t, a single-port
 * total exchange on factor i with one reception per node per step (e.g. from sn_sched_record);
 * equal pointers share one copy. What te-a2's plan_from calls; lets a test compose A2 from a
 * schedule it built itself. The schedules are copied; free the plan with
 * sn__algo_te_a2.plan_free. SN_EINVAL when a schedule is not such a total exchange. */
int sn__te_a2_plan_with(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *const *given,
                        void **plan, sn_err_t *err);

#endif
