/* schedule: the algorithm that plays an explicit schedule (core/algo), --algo schedule:FILE. The
 * model reads and checks the file (core/model/schedule_file.c) and builds the plan here. */
#ifndef STEPNET_CORE_ALGO_ENGINE_SCHEDULE_REPLAY_H
#define STEPNET_CORE_ALGO_ENGINE_SCHEDULE_REPLAY_H

#include "core/algo/algos.h"
#include "stepnet/schedule_file.h"

/* The plan that plays schedule s (sorted by slot, node, port; checked by the caller) for (t, p),
 * which must outlive it; `ops` the operands of its transmissions for a combining collective
 * (else NULL). The transmissions and operands are copied. 0, or SN_ERANGE when a table would not
 * fit, or the refusal of sn__compose_build. */
int sn__schedule_plan_new(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                          const sn_sched_ops_t *ops, void **plan, sn_err_t *err);

/* The schedule a plan plays: its transmissions, by (node, slot, port), lent (out->ev points into
 * the plan), and its slots; *ops (if ops is not NULL) its operands in the order of the
 * transmissions sorted by (slot, node, port), NULL when the collective does not combine. */
void sn__schedule_plan_sched(const void *plan, sn_sched_t *out, const sn_sched_ops_t **ops);

#endif
