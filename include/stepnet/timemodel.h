/* stepnet time model (core/model/timemodel.c): the wall time of a run over real links predicted
 * from its slot schedule and a per-link and per-node calibration (docs/model.md, "The time
 * model").
 *
 * Under the slot barrier a node plays slot s+1 only with the slot-s frame of every neighbour, so a
 * slot lasts as long as the slowest frame of that slot: the time of slot s is the maximum over
 * nodes u of what u must move in it,
 *
 *   T(s) = max( F, max_u max( L_u(s), N_u(s) ) )
 *   F      = max( max over edges of alpha_e, max over nodes of nalpha_u, slot )
 *            (every link carries a frame every slot, every node sends on all its links at once;
 *            slot: an empty slot of the whole network measured under the barrier, if given)
 *   L_u(s) = max over u's data ports q in s of alpha_e(q) + size * beta_e(q)      (the link)
 *   N_u(s) = nalpha_u + k_u(s) * size * nbeta_u        (u's NIC: its k data frames share it)
 *
 * and the run takes ctl + sum over s = 1 .. steps of T(s), ctl being the control legs (the Start
 * fan-out and the Complete fan-in through the coordinator). Pure: the caller feeds the
 * transmissions of the schedule (from the simulator) slot by slot. */
#ifndef STEPNET_TIMEMODEL_H
#define STEPNET_TIMEMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/topo.h"

/* The calibration the model uses; times in microseconds. Arrays are borrowed for the model's
 * life. A negative edge_alpha_us[e] marks an edge that was not measured (the median of the
 * measured edges stands in for it); node arrays may be NULL (no NIC term). */
typedef struct sn_tm_calib_s {
    const double *edge_alpha_us; /* [nedges]: one-way time of an empty frame */
    const double *edge_beta_us;  /* [nedges]: per byte */
    const double *node_alpha_us; /* [n]: one-way time of empty frames on all links at once */
    const double *node_beta_us;  /* [n]: per byte through the node's NIC */
    double ctl_us;               /* the control legs of one repetition */
    double slot_us;        /* a measured empty slot of the whole network (0: none); when measured it
                              is the floor and the NIC terms' base instead of the ping terms */
    double steady_slot_us; /* the empty slot's steady cost, for the dataflow model's frames'
                              work (critical_path.h); 0: slot_us */
    uint32_t size;         /* bytes of a data packet */
} sn_tm_calib_t;

/* The prediction and its terms. */
typedef struct sn_tm_result_s {
    double predicted_us;    /* ctl_us + slots_us */
    double slots_us;        /* sum of T(s) */
    double ctl_us;          /* the control legs */
    double floor_us;        /* F: the least a slot takes */
    uint32_t floor_node;    /* the node that sets F (an end of the slowest edge, or the node of
                               the slowest concurrent empty frames); UINT32_MAX: the measured
                               empty slot */
    uint64_t slots;         /* steps */
    uint64_t floor_slots;   /* slots that take F */
    uint64_t link_slots;    /* slots set by a link term L */
    uint64_t nic_slots;     /* slots set by a NIC term N */
    double max_slot_us;     /* the longest slot */
    uint64_t max_slot;      /* which (the first of equals) */
    uint32_t max_slot_node; /* the node whose term sets it (F: floor_node) */
} sn_tm_result_t;

typedef struct sn_tm_s sn_tm_t;

/* A model of topology t with calibration c (both borrowed). Free with sn_tm_free. */
sn_tm_t *sn_tm_new(const sn_topo_t *t, const sn_tm_calib_t *c);
void sn_tm_free(sn_tm_t *m);

/* One transmission of the schedule: node sends on port in slot; data is 1 for a data packet
 * (size bytes), 0 for a control packet (an empty frame's cost). Slots must not decrease from one
 * call to the next. */
void sn_tm_send(sn_tm_t *m, uint64_t slot, uint32_t node, uint32_t port, int data);

/* Closes the schedule at `steps` slots and fills *out. */
void sn_tm_finish(sn_tm_t *m, uint64_t steps, sn_tm_result_t *out);

/* The in-band barrier before each repetition: `slots` empty slots of slot_us each, added to a
 * finished result (slots, floor_slots, slots_us and the prediction). */
void sn_tm_add_barrier(sn_tm_result_t *r, uint64_t slots, double slot_us);

/* The one-way time of an empty frame on every edge as the model uses it, into alpha[nedges]: the
 * measured one, the median of the measured edges for an edge not measured, and never more than
 * the measured empty slot (c->slot_us, when given): a frame cannot take longer than the slot that
 * waits for it, so a ping series that says more was disturbed. */
void sn_tm_edge_alpha(const sn_topo_t *t, const sn_tm_calib_t *c, double *alpha);

/* Whether probe `probe` (0 .. 2 probes - 1) of a calibration series of `probes` empty and
 * `probes` sized probes is a sized one: they alternate, 2k empty and 2k+1 sized. The per-byte
 * terms are the difference of the two series' medians; alternated, a transient that slows
 * consecutive probes slows both series alike and leaves the difference, where two series one
 * after the other put it into one of them and made it a per-byte cost. A link's series is
 * preceded by `probes` empty probes alone (SN_TM_CLEAN_PROBES): see sn_tm_link_probe. */
int sn_tm_probe_sized(uint32_t probe, uint32_t probes);

/* A link's calibration sends `probes` empty probes first, then the `probes` alternated pairs of
 * sn_tm_probe_sized: probe p (0 .. 3 probes - 1) is clean (an empty probe of the first part)
 * when p < probes, else probe p - probes of the pairs. The link's round trip is the clean
 * probes' median: an empty probe of a pair often waits behind a sized probe of another link of
 * its node or of its neighbour, since every link calibrates at once, and with probes of 1 MiB
 * that made the empty round trip milliseconds on loopback. The clean probes all run before any
 * node sends a sized one, as every node starts its calibration together. */
int sn_tm_probe_clean(uint32_t probe, uint32_t probes);

/* The extra round trip of a sized probe over an empty one (nanoseconds) from n alternated pairs,
 * empty[k] sent just before sized[k]: the median of the pairs' differences, so that what slows
 * both probes of a pair cancels; 0 when that median is not resolved, not above twice its
 * standard error (1.2533 sigma / sqrt(n), sigma estimated as 1.4826 times the median absolute
 * deviation of the differences): at a few bytes the difference is noise, and taken as a cost it
 * set every slot of the prediction. The arrays are left unchanged. */
double sn_tm_probe_extra(const uint64_t *empty, const uint64_t *sized, uint32_t n);

/* The concurrent calibration's barrier rounds (node/calibrate.c) come in blocks of
 * SN_TM_CONC_BLOCK: SN_TM_CONC_REF empty rounds, then SN_TM_CONC_PAIRS pairs of an empty and a
 * sized round. Rounds are taken two at a time, since a node may be a round ahead of a neighbour
 * and then plays two rounds at once after waiting for two (two nodes across a 1 ms link: rounds
 * of 0 and 2.1 ms in turn, 1 ms on average, as the idle slots' 1.07 ms).
 *   - A pair's sum, not its sized round less its empty one: behind a token bucket or any
 *     interface slower than the node, a sized round ends when the neighbours' bytes are in with
 *     some of the node's own still queued, and the next round waits for them (a 100 Mbit/s tbf:
 *     empty rounds of 1.7 ms, sized ones of 3.2 ms, a pair 4.9 ms as a slot of the same bytes;
 *     the difference gave the interface a third of its time).
 *   - The reference is the block's last two empty rounds: the first waits for what the last
 *     sized round left queued. The interface idles during them, and a token bucket lends that
 *     time to the block's first sized round: the median over the pairs takes the others.
 *   - The reference is in every block, so that a drift of the rounds over the series cancels
 *     instead of reading as a per-byte cost. */
enum { SN_TM_CONC_REF = 3, SN_TM_CONC_PAIRS = 3, SN_TM_CONC_BLOCK = 9 };

/* 1 when concurrent round r (0, 1, ...) is a sized one. */
int sn_tm_conc_sized(uint64_t r);

/* The round trips of `blocks` blocks of concurrent rounds, round time r[pos * stride + b] for
 * position pos of block b: rtt0 the median of the references over 2, rtt that plus the resolved
 * median of each pair's sum less its block's reference (sn_tm_probe_extra). */
void sn_tm_conc_rtts(const uint64_t *r, uint32_t stride, uint32_t blocks, uint64_t *rtt0_ns,
                     uint64_t *rtt_ns);

/* The NIC terms of a node of degree deg from its concurrent calibration: rtt0_us and rtt_us, the
 * barrier rounds of empty and of size-byte probes on all its links at once (a round is over for
 * the node when every neighbour's probe of it is in: one way, as a slot). Every node plays the
 * same rounds, so the difference is the time the node's interface takes for deg size bytes:
 * nalpha = rtt0; nbeta = max(0, rtt - rtt0) / (deg size) (0 when size or deg is 0). */
void sn_tm_node_terms(double rtt0_us, double rtt_us, uint32_t deg, uint32_t size, double *nalpha_us,
                      double *nbeta_us);

#endif
