/* Timetables replayed by the nodes (core/algo): a plan computed centrally as a list of
 * transmissions (slot, port, packet) per sender, which every node replays, sending in each slot
 * what the plan gives its links and checking that it holds each packet it sends. Shared by the
 * planners that keep no per-node rule: bcast-multitree (bcast/bcast_multitree.c), bcast-match and
 * mnb-match (bcast/bcast_match.c) and mnb-gossip (mnb/mnb_gossip.c). predicted_steps = the
 * timetable's length, which both executors replay exactly.
 *
 * Packets are numbered x = k for a broadcast from the root, x = source * M + k for a multinode
 * broadcast, with k = seq * frags + frag and M = msgs * frags. */
#ifndef STEPNET_CORE_ALGO_ENGINE_TIMETABLE_H
#define STEPNET_CORE_ALGO_ENGINE_TIMETABLE_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"

typedef struct {
    uint32_t slot, port, x; /* slots < 2^32: every planner's work is far below */
} sn_tt_ev_t;

typedef struct {
    const char *name; /* for messages */
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t n, M, W; /* W: 64-bit words of a node's packet set */
    int mnb;          /* 1: the packets of every node; 0: the root's */
    uint32_t *off;    /* [n+1] node u's sends: ev[off[u] .. off[u+1]-1], by slot */
    sn_tt_ev_t *ev;
    uint64_t T;
} sn_tt_plan_t;

typedef struct {
    const sn_tt_plan_t *pl;
    uint32_t u, next;
    uint64_t *have; /* [W] the packets the node holds */
} sn_tt_state_t;

/* The transmissions a planner has chosen so far, in slot order: ev[i] is sent by node from[i] to
 * node to[i] (the planners update what the receivers hold from it at the end of each slot). */
typedef struct {
    sn_tt_ev_t *ev;
    uint32_t *from, *to;
    size_t n, cap;
} sn_tt_list_t;

/* Appends a transmission of packet x from node u on its port `port` to node v in `slot`. */
void sn_tt_add(sn_tt_list_t *l, uint32_t slot, uint32_t u, uint32_t port, uint32_t v, uint32_t x);

/* Frees the list's arrays (the list may be reused, empty). */
void sn_tt_list_free(sn_tt_list_t *l);

/* The plan of a timetable of T slots from the list; the transmissions are regrouped by sender,
 * each sender's staying in slot order. The list is left as it is. */
sn_tt_plan_t *sn_tt_plan_new(const char *name, const sn_topo_t *t, const sn_params_t *p, int mnb,
                             uint64_t T, const sn_tt_list_t *l);

/* 0 when a planner that plays every node-packet (nodes x msgs x frags) may plan t with p: every
 * node is a processor and there are at most max node-packets; otherwise SN_ENOTSUP or SN_ERANGE
 * with a message naming the algorithm `name`. The check of bcast-multitree and bcast-match. */
int sn_tt_applies_upto(const sn_topo_t *t, const sn_params_t *p, const char *name, uint32_t max,
                       sn_err_t *err);

/* The sn_algo_t members of a timetable algorithm (state_size = sizeof(sn_tt_state_t)). */
void sn_tt_plan_free(void *plan);
int64_t sn_tt_predicted(const void *plan);
int sn_tt_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn_tt_node_fini(void *state);
int sn_tt_node_step(void *state, sn_step_t *io, sn_err_t *err);

/* The descriptor fields of an algorithm that replays its plan's timetable (sn_algo_t). */
#define SN_TT_REPLAY_FIELDS                                                                        \
    .plan_free = sn_tt_plan_free, .predicted = sn_tt_predicted,                                    \
    .state_size = sizeof(sn_tt_state_t), .node_init = sn_tt_node_init,                             \
    .node_fini = sn_tt_node_fini, .node_step = sn_tt_node_step

#endif
