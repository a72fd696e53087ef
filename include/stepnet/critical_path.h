/* stepnet dataflow time model (core/model/critical_path.c): the wall time of a schedule executed
 * without the slot barrier, the way a communication library executes it: each node plays its
 * logical slot t as soon as every transmission the schedule delivers to it in slots before t has
 * arrived, and each transmission then waits for its port (docs/model.md, "Dataflow time").
 *
 * A transmission of node u in slot t on port q (edge e, directed link l) starts at
 *
 *   start = max( R_u(t), P_key, N_u )
 *   R_u(t) = the latest arrival at u of a transmission of a slot before t (0: none)
 *   P_key  = when the port is free: key = u in the single-port model (one port per node), the
 *            edge e under half duplex, the directed link l otherwise
 *   N_u    = when u's NIC is free (data only, when the calibration has NIC terms)
 *
 * occupies the port for size * beta_e (data; 0 for a control packet) and the NIC for size *
 * nbeta_u, and arrives at start + alpha_e + max(size * beta_e, size * nbeta_u): its last byte
 * leaves after the slower of the link and the NIC has passed it. alpha_e and beta_e are the slot
 * model's (sn_tm_edge_alpha): the calibrated link terms, the emulated delay and rate included
 * since the probes crossed the emulation. The run takes ctl + the latest arrival (the critical
 * path of the schedule weighted by the link terms, no slot barrier) + the frames' work:
 *
 *   cpu = transmissions x w,   w = max(0, E - A) / (2 x nedges)
 *
 * where E is the empty slot's steady cost (c->steady_slot_us, else c->slot_us; no term without
 * either) and A the slowest edge's alpha: an empty slot puts one frame on each of the 2 x nedges
 * directed links, and what it lasts beyond its slowest frame is the nodes' work of sending and
 * receiving those frames (on local processes, the cores they share). The slot model charges every
 * slot that whole empty slot, in series with the waiting; this charges each frame its share, in
 * series with the path, where a library might overlap part of it with the waiting (docs/model.md,
 * "Dataflow time"). Pure; the caller feeds the transmissions of the schedule (from the simulator)
 * in non-decreasing slot order. */
#ifndef STEPNET_CRITICAL_PATH_H
#define STEPNET_CRITICAL_PATH_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/timemodel.h"
#include "stepnet/topo.h"

typedef struct sn_cp_result_s {
    double predicted_us;    /* ctl_us + barrier_us + path_us + cpu_us */
    double path_us;         /* the latest arrival: the length of the critical path */
    double cpu_us;          /* the frames' work: transmissions x w (0 without a measured empty
                               slot) */
    double frame_us;        /* w: one frame's share of the empty slot beyond its slowest frame */
    double ctl_us;          /* the control legs (the slot model's) */
    double barrier_us;      /* the in-band barrier before a repetition, which stays lock-step in
                               dataflow execution: its empty slots at the model's floor (set by
                               the caller, sn_cp_add_barrier) */
    uint32_t last_node;     /* the node the latest arrival reaches (UINT32_MAX: none) */
    uint64_t last_slot;     /* the logical slot of that transmission */
    uint64_t transmissions; /* transmissions fed */
} sn_cp_result_t;

typedef struct sn_cp_s sn_cp_t;

/* A dataflow model of topology t under port model pm with calibration c (t and c's arrays
 * borrowed for the model's life). Free with sn_cp_free. */
sn_cp_t *sn_cp_new(const sn_topo_t *t, const sn_tm_calib_t *c, sn_portmodel_t pm);
void sn_cp_free(sn_cp_t *m);

/* One transmission: node sends on port in logical slot `slot`; data is 1 for a data packet (size
 * bytes), 0 for a control packet. Slots must not decrease from one call to the next; a node or
 * port out of range is ignored. */
void sn_cp_send(sn_cp_t *m, uint64_t slot, uint32_t node, uint32_t port, int data);

/* The in-band barrier before each repetition: `slots` empty slots of slot_us each, added to the
 * prediction (a repetition's wall time includes them in both execution modes). */
void sn_cp_add_barrier(sn_cp_result_t *r, uint64_t slots, double slot_us);

/* Fills *out with the critical path of the transmissions fed so far. */
void sn_cp_finish(sn_cp_t *m, sn_cp_result_t *out);

#endif
