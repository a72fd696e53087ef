/* schedule: the algorithm that plays an explicit schedule (core/algo), --algo schedule:FILE. The
 * model reads and checks the file (core/model/schedule_file.c) and builds the plan here. */
#ifndef STEPNET_ALGO_SCHEDULE_REPLAY_H
#define STEPNET_ALGO_SCHEDULE_REPLAY_H

#include "algo/algos.h"

/* The plan that plays schedule s (checked by the caller) for (t, p), which must outlive it. The
 * transmissions are copied. 0, or SN_ERANGE when a node's delivery table would not fit. */
int sn__schedule_plan_new(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                          void **plan, sn_err_t *err);

/* The schedule a plan plays: its transmissions, by (node, slot, port), lent (out->ev points into
 * the plan), and its slots. */
void sn__schedule_plan_sched(const void *plan, sn_sched_t *out);

#endif
