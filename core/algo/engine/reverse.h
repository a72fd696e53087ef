/* Combining schedules made from broadcast schedules (core/algo): the time reversal of a broadcast
 * is an accumulation, and of a multinode broadcast a reduce_scatter; an allgather after a
 * reduce_scatter is an allreduce. Shared by sna-reverse (sna/sna_reverse.c), mna-reverse
 * (mna/mna_reverse.c) and allreduce-rsag (allreduce/allreduce_rsag.c), which take the recorded
 * schedule of the best broadcast as a plan input and play the result as a schedule
 * (schedule_replay.h).
 *
 * Reversal: keep, for every packet, the first transmission that brings it to each node (a later
 * copy brings nothing), so that the packet's transmissions form a tree rooted at its source; then
 * play every transmission u -> v of slot s as v -> u in slot T + 1 - s, carrying the combination
 * of the contributions of the processors in v's subtree. A child sends in the reversed schedule
 * before its parent does (it received later in the broadcast), so every node holds what it
 * combines, and each contribution is counted once. Sending and receiving trade places, so every
 * port model that limits both alike is kept: multiport, single-port with one reception per slot,
 * half duplex (single-port with any receptions per slot is not: its reversal would send many). */
#ifndef STEPNET_CORE_ALGO_ENGINE_REVERSE_H
#define STEPNET_CORE_ALGO_ENGINE_REVERSE_H

#include "core/algo/algos.h"
#include "stepnet/schedule_file.h"

/* The most operands (summed over transmissions) a schedule built here may list: 2^22 (16 MiB of
 * ids). Every node of a run builds the plan, so this stays well below SN_SCHED_MAX_OPERANDS. */
#define SN_REVERSE_MAX_OPERANDS (1u << 22)

/* A combining schedule under construction: transmissions and their operands in any order;
 * sn__combo_finish sorts them by (slot, node, port). */
typedef struct {
    sn_sched_ev_t *ev;
    size_t n, cap;
    uint32_t *id; /* the operands, transmission after transmission */
    size_t nid, idcap;
    size_t *first; /* [cap]: transmission i's operands start at id[first[i]] */
} sn__combo_t;

/* What the reversal makes of a packet of the broadcast: 0 and *out (a combined packet: src
 * SN_SRC_COMBINED, its dst, seq and frag) to keep it, 1 to drop its transmissions. */
typedef int (*sn__reverse_map_fn)(void *ctx, const sn_packet_t *in, sn_packet_t *out);

/* Appends to c the time reversal of broadcast schedule `in` (every transmission a data packet of
 * a bcast or mnb on t; control packets are dropped), mapped by map(ctx), in slots base + 1 ...:
 * the reversal's first slot with a transmission is base + 1. *end is its last slot (base when it
 * has none). 0, SN_ERANGE when the operands would exceed SN_REVERSE_MAX_OPERANDS (counted before
 * anything is built), or SN_EALGO when `in` sends a packet its sender does not hold. */
int sn__reverse_append(const sn_topo_t *t, const sn_sched_t *in, sn__reverse_map_fn map, void *ctx,
                       uint64_t base, sn__combo_t *c, uint64_t *end, sn_err_t *err);

/* Appends transmission (slot, node, port, pkt) combining the processors ops[0 .. nops), ascending.
 */
void sn__combo_add(sn__combo_t *c, uint64_t slot, uint32_t node, uint32_t port,
                   const sn_packet_t *pkt, const uint32_t *ops, size_t nops);

/* Sorts the transmissions by (slot, node, port) into s (steps: the last slot) and ops, which the
 * caller frees (free(s->ev), sn_sched_ops_free); c is left empty. */
void sn__combo_finish(sn__combo_t *c, sn_sched_t *s, sn_sched_ops_t *ops);

void sn__combo_free(sn__combo_t *c);

/* Keeps the shorter of two candidate schedules: c (of `steps` slots; UINT64_MAX when it failed)
 * replaces *best when it takes fewer than *best_steps, and is freed otherwise. */
void sn__combo_keep_shorter(sn__combo_t *best, uint64_t *best_steps, sn__combo_t *c,
                            uint64_t steps);

/* The plan that plays c's schedule for (t, p) (schedule_replay.h); c is left empty. 0, or the
 * refusal of sn__schedule_plan_new. */
int sn__combo_plan(const sn_topo_t *t, const sn_params_t *p, sn__combo_t *c, void **plan,
                   sn_err_t *err);

/* The plan that plays the time reversal of broadcast `in` mapped by map(ctx), from slot 1:
 * sn__reverse_append then sn__combo_plan. */
int sn__reverse_plan(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *in,
                     sn__reverse_map_fn map, void *ctx, void **plan, sn_err_t *err);

/* Port models a reversal keeps (sn_algo_t.pm_mask). */
#define SN_REVERSE_PM (SN_PM_MULTI | SN_PM_SINGLE | SN_PM_HALF)

#endif
