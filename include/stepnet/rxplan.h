/* The receive plan of `--sync dataflow` (core/model/rxplan.c): for every node, the (slot, port)
 * pairs on which a packet reaches it, taken from a dry run of the schedule in the simulator, and
 * the decision of which logical slot a node plays next and whether it may play it now
 * (docs/runtime.md, "Dataflow execution"). Pure: no clock, no socket, no global state. */
#ifndef STEPNET_RXPLAN_H
#define STEPNET_RXPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/topo.h"

/* The most receptions one node's plan may hold: each travels in its Assign as a varint of at most
 * 10 bytes, so the plan stays far below the control frame's 80 MiB. */
#define SN_RXPLAN_MAX_NODE (1u << 22)
/* "No such slot": a link with nothing more planned, or a node with nothing left to play. */
#define SN_RXPLAN_NONE UINT64_MAX

/* Every node's receptions, each encoded as sn_rxplan_encode(slot, port, degree of the node) and
 * sorted increasing (so by slot, then port). */
typedef struct sn_rxplan_s {
    uint32_t n;
    uint64_t **rx; /* [n] */
    size_t *nrx;   /* [n] */
    uint64_t total;
} sn_rxplan_t;

/* One reception of a node of degree deg: (slot - 1) * deg + port; slot >= 1, port < deg. */
static inline uint64_t sn_rxplan_encode(uint64_t slot, uint32_t port, uint32_t deg)
{
    return (slot - 1) * deg + port;
}

static inline void sn_rxplan_decode(uint64_t v, uint32_t deg, uint64_t *slot, uint32_t *port)
{
    *slot = v / deg + 1;
    *port = (uint32_t) (v % deg);
}

/* The bytes a plan of `total` receptions over n nodes costs the run: the coordinator's copy of
 * every node's entries and, in the nodes together, the Assign's copy, the copy split by link and
 * the links' queues of packets that arrived before their slot (at worst every packet at once). */
uint64_t sn_rxplan_bytes(uint64_t total, uint32_t n);

/* Replays (t, p, algo, plan) in the simulator (at most max_slots slots) and records every node's
 * receptions into *out (free with sn_rxplan_free). 0; SN_EINVAL (param SN_PARAM_MEMORY: bad
 * input, the limit is too small for it) when the
 * plan would pass max_bytes (0: no limit) or a node would receive more than SN_RXPLAN_MAX_NODE
 * packets, the recording stopping there; the simulator's error when the replay fails; SN_EVERIFY
 * when it does not verify. */
int sn_rxplan_build(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *algo,
                    const void *plan, uint64_t max_slots, uint64_t max_bytes, sn_rxplan_t *out,
                    sn_err_t *err);
void sn_rxplan_free(sn_rxplan_t *pl);

/* The frames beyond `window` per directed link that the plan puts on its links, summed over the
 * links: what emulated links, which hold every frame whole until its release, may hold beyond the
 * slot barrier's window when dataflow sends a link's frames without waiting for its receiver. */
uint64_t sn_rxplan_frames_beyond(const sn_rxplan_t *pl, const sn_topo_t *t, uint32_t window);

/* Checks that every node's plan, as varints of at most 10 bytes beside `other` bytes of its
 * assignment, fits in a control message of `max` bytes. 0, or SN_EINVAL naming the first node that
 * does not. */
int sn_rxplan_check_wire(const sn_rxplan_t *pl, uint64_t other, uint64_t max, sn_err_t *err);

/* Checks one node's plan as it arrives from the wire: at most SN_RXPLAN_MAX_NODE entries,
 * strictly increasing, every slot within max_slots (deg >= 1 when n > 0). 0, or SN_EPROTO with err
 * saying what is wrong. */
int sn_rxplan_check(const uint64_t *v, size_t n, uint32_t deg, uint64_t max_slots, sn_err_t *err);

/* The next logical slot a node plays after slot t (t = 0 before its first): slot 1, the slot
 * after the next planned arrival on any link (head[q]: the slot of link q's next planned frame,
 * SN_RXPLAN_NONE when none is left), or its wake slot (SN_WAKE_NEVER: none), whichever comes
 * first; SN_RXPLAN_NONE when there is none (the node is finished). These are exactly the slots in
 * which the simulator steps the node. */
uint64_t sn_rxplan_next_slot(uint64_t t, uint64_t wake, const uint64_t *head, uint32_t deg);

/* 1 when slot s may be played: every link whose next planned frame is of slot s - 1 holds it
 * (have[q] non-zero); links planned later are not waited for. */
int sn_rxplan_ready(uint64_t s, const uint64_t *head, const uint8_t *have, uint32_t deg);

#endif
