/* Combining schedules (core/algo): how each combined packet of a schedule file is made.
 *
 * A transmission of a combining collective lists its operands, the processors whose
 * contributions the packet combines. The node that sends it must be able to form exactly that
 * combination from what it holds: its own contribution (when it is a processor among the
 * operands) and the combined packets it received in earlier slots for the same (destination,
 * seq, frag). A recipe names those ingredients. With a non-idempotent operator (sum, xor) the
 * ingredients' operand sets must be disjoint: a contribution counted twice changes the value;
 * with an idempotent one (max, min, and, or) they may overlap. Every processor that expects a
 * delivery must likewise be able to form the combination of every processor's contribution.
 *
 * The recipes are found greedily, the largest held set first and the node's own contribution
 * last. That finds one whenever the
 * operands are a union of what the node holds (the schedules stepnet records always are); a
 * file whose operands only an exact cover of overlapping sets could form is refused, naming the
 * transmission. The checker (core/model/schedule_file.c) and the player (schedule_replay.c) build
 * the same recipes. */
#ifndef STEPNET_CORE_ALGO_ENGINE_SCHEDULE_COMPOSE_H
#define STEPNET_CORE_ALGO_ENGINE_SCHEDULE_COMPOSE_H

#include "core/algo/algos.h"
#include "stepnet/schedule_file.h"

/* An ingredient: the index of a received transmission (in the schedule's order), or this. */
#define SN_COMPOSE_OWN UINT32_MAX

/* A delivery: processor `node` forms the combination of every contribution for (seq, frag)
 * from ing[first .. end) once slot `ready` is played. */
typedef struct {
    uint32_t node, seq, frag;
    uint64_t ready;
    size_t first, end;
} sn_compose_delivery_t;

typedef struct {
    uint32_t *ing;             /* every recipe's ingredients, list after list */
    size_t *first;             /* [n + 1]: transmission i is made of ing[first[i] .. first[i+1]) */
    sn_compose_delivery_t *dl; /* the deliveries, by node */
    size_t *dl_first;          /* [t->n + 1]: node u's deliveries are dl[dl_first[u] .. ) */
} sn_compose_t;

/* The destination a combined packet's contributions are made for: every destination's for
 * allreduce and barrier (one vector per processor), the packet's own otherwise. */
uint32_t sn__compose_key_dst(const sn_params_t *p, uint32_t dst);

/* Builds the recipes of schedule s (sorted by slot, node, port) with operands `ops` for (t, p),
 * after the port model was checked. 0, or SN_EALGO naming the slot, node, link and rule when a
 * node sends a combination it cannot form, a packet of the wrong shape or operands that are no
 * processors; SN_EVERIFY naming the first node that never forms its delivery; SN_ERANGE when the
 * recipes take more than a bounded amount of work. `out` may be NULL (check only). */
int sn__compose_build(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                      const sn_sched_ops_t *ops, sn_compose_t *out, sn_err_t *err);

void sn__compose_free(sn_compose_t *c);

#endif
