/* Placing the transmissions of a broadcast-type schedule around others (core/algo): the slots a
 * transmission takes resources in (its port; its sender's one send single-port; its receiver's
 * one reception with rx one; its edge half duplex), and a greedy list scheduling that moves each
 * transmission, in the schedule's order, to the first slot after its sender holds the packet in
 * which those resources are free. allreduce-rb places a broadcast after the reduce it follows
 * this way; allreduce-rsag closes the gaps an allgather with some packets dropped leaves. */
#ifndef STEPNET_CORE_ALGO_ENGINE_PLACE_H
#define STEPNET_CORE_ALGO_ENGINE_PLACE_H

#include "core/algo/engine/reverse.h"

/* The resources taken in each slot, for (t, p)'s port model. */
typedef struct sn__busy_s sn__busy_t;

sn__busy_t *sn__busy_new(const sn_topo_t *t, const sn_params_t *p);
void sn__busy_free(sn__busy_t *b);

/* 1 when a transmission of (node, port) in `slot` would take a resource already taken. */
int sn__busy_clash(const sn__busy_t *b, uint64_t slot, uint32_t node, uint32_t port);

/* Takes the resources of a transmission of (node, port) in `slot`. */
void sn__busy_take(sn__busy_t *b, uint64_t slot, uint32_t node, uint32_t port);

/* Takes the resources of every transmission of c. */
void sn__busy_take_combo(sn__busy_t *b, const sn__combo_t *c);

/* Places the data transmissions of `in` (a bcast or mnb schedule on t, in (slot, node, port)
 * order) that map(ctx) keeps, each mapped packet k = seq * p->frags + frag in [0, M), M =
 * p->msgs * p->frags: in `in`'s order, transmission i at the first slot at[i] after its sender
 * holds packet k whose resources b has free (it then takes them), its receiver holding k from
 * at[i]; a packet's source holds it from ready[k] (0 when ready is NULL). at[i] = 0 for the
 * transmissions dropped: control packets, packets map rejects, copies of a packet to a node that
 * holds it already. Returns the last slot placed (0 when none is). */
uint64_t sn__place_greedy(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *in,
                          sn__reverse_map_fn map, void *ctx, const uint64_t *ready, sn__busy_t *b,
                          uint64_t *at);

/* The schedule of in's transmissions kept at the slots at[] (at[i] = 0 dropped), sorted by (slot,
 * node, port), into out (out->ev malloc'd: the caller frees it). */
void sn__place_sched(const sn_sched_t *in, const uint64_t *at, sn_sched_t *out);

#endif
