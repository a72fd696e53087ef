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

/* ---- the player, for the algorithms that plan a schedule and play it (sna-reverse, ...) ------ */

typedef struct sn__schedule_plan_s sn__schedule_plan_t;

/* A node's state while it plays the plan. */
typedef struct {
    const sn__schedule_plan_t *pl;
    uint32_t node;
    size_t next;   /* the next transmission of this node in the plan */
    uint8_t *got;  /* delivered (source index, seq, frag), one byte each */
    uint64_t ngot; /* its length */
    /* combining collectives */
    uint64_t *val;  /* the value of each combined transmission received (in the plan's order) */
    uint8_t *have;  /* ... and whether it arrived */
    size_t dl_next; /* the deliveries before this one are made (they are by ready slot) */
} sn__schedule_state_t;

void sn__schedule_plan_free(void *plan);
int64_t sn__schedule_predicted(const void *plan); /* the schedule's slots */
int sn__schedule_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__schedule_node_fini(void *state);
int sn__schedule_node_step(void *state, sn_step_t *io, sn_err_t *err);

/* The descriptor fields of an algorithm whose plan is one of sn__schedule_plan_new (sn_algo_t):
 * every node plays the schedule, slot by slot, as schedule:FILE does. */
#define SN__SCHEDULE_REPLAY_FIELDS                                                                 \
    .plan_free = sn__schedule_plan_free, .predicted = sn__schedule_predicted,                      \
    .state_size = sizeof(sn__schedule_state_t), .node_init = sn__schedule_node_init,               \
    .node_fini = sn__schedule_node_fini, .node_step = sn__schedule_node_step

#endif
