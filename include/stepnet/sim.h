/* stepnet slot simulator (core/sim): runs every node's state machine in one process, in lockstep,
 * with the semantics of docs/model.md, and checks everything an executor must check:
 * the port model on every send, every delivery against the collective's expectations (right node,
 * right payload digest, exactly once), and completeness at the end.
 *
 * It is event-driven: a slot costs time only for the nodes that receive or asked to be woken, so
 * sparse schedules (scatter on a 10^6-node torus) run in time proportional to their packet-hops. */
#ifndef STEPNET_SIM_H
#define STEPNET_SIM_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/topo.h"

typedef struct sn_sim_opts_s {
    uint64_t max_slots; /* fail with SN_ESLOTS past this slot; 0 = no limit */
    /* Called about every 2^20 node steps with the current slot and deliveries so far, so that a
     * caller can report progress on long runs (the core keeps no clock). May be NULL. */
    void (*progress)(void *ctx, uint64_t slot, uint64_t deliveries, uint64_t expected);
    void *progress_ctx;
    /* Called for every transmission that passed the port-model checks, in the order the
     * simulator plays them: node sends pkt on its port in slot. Lets a caller record a schedule
     * (composite algorithms take their factors' schedules this way). May be NULL. */
    void (*on_send)(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt);
    void *send_ctx;
    /* Threads that step the nodes of a slot side by side (0 or 1: the calling thread alone; at
     * most SN_SIM_MAX_THREADS). Honoured when the algorithm says its steps are independent
     * (sn_algo_t.parallel), no on_send is given and the mailboxes fit (sn_sim_threads_used says
     * which); the result is the same whatever the number. */
    uint32_t threads;
    /* With threads: slots with fewer active nodes are stepped by the calling thread alone, since
     * splitting them costs more than it gains (0: SN_SIM_MIN_SPLIT; tests set 1 to split every
     * slot). */
    uint32_t min_split;
} sn_sim_opts_t;

#define SN_SIM_MIN_SPLIT 256

#define SN_SIM_MAX_THREADS 64

typedef struct sn_sim_result_s {
    uint64_t steps;           /* last slot in which any packet crossed any link */
    uint64_t control_slots;   /* slots in which only control packets crossed */
    uint64_t packets;         /* data packet transmissions (link crossings), fragments counted */
    uint64_t control_packets; /* control packet transmissions */
    uint64_t deliveries;      /* verified deliveries */
    uint64_t expected_deliveries;
    uint64_t trace_hash;     /* sum over sends of mix(slot, directed link, packet identity) */
    uint64_t node_steps;     /* state machine calls (a cost measure) */
    uint64_t max_slot_sends; /* most transmissions in one slot */
    uint64_t max_queue; /* the most packets one node held waiting after a step (sn_step_t.queue) */
    uint32_t max_queue_node; /* the lowest node id that held max_queue (0 when it is 0) */
    int max_queue_reported;  /* 0 when the algorithm does not report its queues: max_queue is
                                then not a measurement (sn_step_t.queue, SN_QUEUE_UNREPORTED) */
    int verified;            /* 1 when every expected delivery arrived intact exactly once */
} sn_sim_result_t;

/* Runs algorithm `a` with its plan on (t, p). Returns 0 when the run completed (check
 * res->verified), or a negative code with err naming the node, slot and links: SN_EPORT (a send
 * broke the port model), SN_EVERIFY (wrong, corrupt or duplicate delivery), SN_ESLOTS (no
 * quiescence within max_slots), SN_EALGO (the algorithm reported an error or sent on a port that
 * does not exist). res is filled as far as the run got. */
int sn_sim_run(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a, const void *plan,
               const sn_sim_opts_t *opts, sn_sim_result_t *res, sn_err_t *err);

/* The threads sn_sim_run will step with for these inputs and opts (1 when it will step serially,
 * with the reason in *why when why is not NULL: a static string). */
uint32_t sn_sim_threads_used(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a,
                             const sn_sim_opts_t *opts, const char **why);

/* ---- delivery verification, shared by both executors ------------------------------------------
 * Tracks the deliveries of nodes [first, first + count): the simulator verifies every node, a
 * stepnet-node only itself. */

typedef struct sn_verify_s sn_verify_t;

/* A verifier for nodes [first, first + count) of (t, p); t and p must outlive it. */
sn_verify_t *sn_verify_new(const sn_topo_t *t, const sn_params_t *p, uint32_t first,
                           uint32_t count);
void sn_verify_free(sn_verify_t *v);

/* Checks one delivery at `node` in `slot`: a data packet the collective sends to this node, with
 * the right payload digest, not seen before. 0, or SN_EVERIFY with err naming node, slot and
 * packet. */
int sn_verify_delivery(sn_verify_t *v, uint32_t node, uint64_t slot, const sn_packet_t *k,
                       sn_err_t *err);

/* Makes v safe for concurrent sn_verify_delivery calls on different nodes (their bitmaps may share
 * a word at the edges): the simulator's parallel stepping. */
void sn_verify_concurrent(sn_verify_t *v);

/* Deliveries verified at `node`, and the number it expects. */
uint64_t sn_verify_got(const sn_verify_t *v, uint32_t node);
uint64_t sn_verify_expected(const sn_verify_t *v, uint32_t node);

/* Sum (mod 2^64) of the payload digests delivered at `node`. */
uint64_t sn_verify_digest_sum(const sn_verify_t *v, uint32_t node);

/* Totals over the tracked nodes. If some delivery is missing, err names the first node short of
 * its deliveries and SN_EVERIFY is returned; 0 when complete. */
int sn_verify_complete(const sn_verify_t *v, sn_err_t *err);

/* The digest sum a node must end with (every packet it expects, once): what a coordinator checks
 * each node's report against. O(expected deliveries of the node). */
uint64_t sn_coll_digest_sum(const sn_topo_t *t, const sn_params_t *p, uint32_t node);

/* The trace-hash contribution of one transmission (both executors sum these). */
uint64_t sn_trace_event(uint64_t slot, uint32_t link, const sn_packet_t *pkt);

/* ---- the slot step of one node, shared by both executors --------------------------------------
 * The simulator and stepnet-node call these two functions and report the error they write
 * unchanged, so that a schedule that breaks the port model fails with the same text in both. */

/* Plays node `node`'s step of slot io->slot: io->slot, io->rx and io->nrx are set by the caller
 * (arrivals of slot - 1, sorted by port); this clears the outputs, calls a->node_step on `state`,
 * verifies every delivery with `verify`, and checks the sends and the wake-up: every port exists,
 * one packet per port, one send per slot in the single-port model, a wake-up in the future or
 * SN_WAKE_NEVER. `mark` is scratch of sn_topo_degree(t, node) bytes, all zero on entry and on
 * return. Returns 0 (io holds the sends, deliveries and wake-up), or the algorithm's own code,
 * SN_EVERIFY, SN_EPORT (the port model broken) or SN_EALGO (a port that does not exist, a
 * wake-up not in the future), with err naming the slot, the node, the ports and links. */
int sn_exec_step(const sn_algo_t *a, void *state, const sn_topo_t *t, const sn_portmodel_t *pm,
                 uint32_t node, sn_step_t *io, sn_verify_t *verify, uint8_t *mark, sn_err_t *err);

/* Checks the packets that reached `node` over links in `slot` (rx, nrx: sorted by the node's
 * port) against the receiving side of the port model: with single-port and one reception per
 * slot at most one arrives; with half duplex none arrives on an edge the node itself sent on in
 * the same slot (echo[i] != 0 when the node sent on rx[i].port in `slot`; echo may be NULL in
 * full duplex). Returns 0 or SN_EPORT with err naming the slot, the node and the links or the
 * edge. */
int sn_exec_check_arrivals(const sn_topo_t *t, const sn_portmodel_t *pm, uint32_t node,
                           uint64_t slot, const sn_msg_t *rx, size_t nrx, const uint8_t *echo,
                           sn_err_t *err);

#endif
