/* The dataflow executor of stepnet-node (node/), `--sync dataflow`: the same state machine, checks
 * and verification as the slot executor (slot.c), without the slot barrier. Before the run the
 * node learns from its assignment every (slot, port) on which a packet will reach it (the
 * coordinator's dry run, core/model/rxplan.c); it sends only real packets, each frame carrying its
 * logical slot, and plays logical slot s as soon as every frame of slot s - 1 that its plan holds
 * is in, skipping the slots in which the simulator would not step it. Frames of later slots that
 * arrive first wait in their link's queue, in the order of the link's plan; a frame the plan does
 * not hold is a protocol error (the schedule differs from the dry run). The node is finished when
 * nothing is left to play: no planned frame, no wake (docs/runtime.md, "Dataflow execution"). */
#include <stdlib.h>
#include <string.h>

#include "node/node_internal.h"
#include "stepnet/rxplan.h"
#include "stepnet/util.h"

int sn__node_dataflow_init(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    int rc = sn_rxplan_check(a->rx_plan, a->n_rx_plan, nd->deg, nd->max_slots, err);
    if (rc < 0)
        return rc;
    /* split by port: every link gets the slots of its frames, increasing */
    size_t *count = sn_xcalloc(nd->deg + 1, sizeof *count);
    for (size_t i = 0; i < a->n_rx_plan; i++)
        count[a->rx_plan[i] % nd->deg]++;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        l->df_plan = count[q] ? sn_xcalloc(count[q], sizeof *l->df_plan) : NULL;
        l->df_nplan = 0;
    }
    for (size_t i = 0; i < a->n_rx_plan; i++) {
        uint64_t slot;
        uint32_t q;
        sn_rxplan_decode(a->rx_plan[i], nd->deg, &slot, &q);
        link_t *l = &nd->links[q];
        l->df_plan[l->df_nplan++] = slot;
    }
    free(count);
    nd->ex.dataflow = 1;
    nd->ex.df_head = sn_xcalloc(nd->deg + 1, sizeof *nd->ex.df_head);
    nd->ex.df_have = sn_xcalloc(nd->deg + 1, 1);
    return 0;
}

void sn__node_dataflow_reset(node_t *nd)
{
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        l->df_arrived = l->df_played = 0;
        l->df_qhead = 0;
    }
    nd->ex.df_next = 0;
}

int sn__node_dataflow_owns(const node_t *nd, uint32_t cid)
{
    if (!nd->ex.running)
        return 0;
    if (!nd->ex.idle)
        return cid == nd->ex.cid;
    return nd->ex.then_cid != 0 && cid == nd->ex.then_cid;
}

/* The slot of link l's next frame to play, or SN_RXPLAN_NONE. */
static uint64_t head_slot(const link_t *l)
{
    return l->df_played < l->df_nplan ? l->df_plan[l->df_played] : SN_RXPLAN_NONE;
}

/* Queues a packet behind the link's others; the ring doubles when full, and never holds more
 * than the link's planned frames (a frame beyond the plan is refused before it gets here). */
static void queue_push(link_t *l, const sn_packet_t *pkt)
{
    size_t n = l->df_arrived - l->df_played;
    if (n == l->df_qcap) {
        size_t cap = l->df_qcap ? 2 * l->df_qcap : 4;
        if (cap > l->df_nplan)
            cap = l->df_nplan;
        sn_packet_t *q = sn_xcalloc(cap, sizeof *q);
        for (size_t i = 0; i < n; i++)
            q[i] = l->df_q[(l->df_qhead + i) % l->df_qcap];
        free(l->df_q);
        l->df_q = q;
        l->df_qcap = cap;
        l->df_qhead = 0;
    }
    l->df_q[(l->df_qhead + n) % l->df_qcap] = *pkt;
}

void sn__node_dataflow_accept(link_t *l, const sn_wire_data_t *d)
{
    node_t *nd = l->nd;
    const char *why = NULL;
    if (!d->has_packet)
        why = "an empty frame (dataflow sends packets only)";
    else if (l->df_arrived >= l->df_nplan)
        why = "a frame beyond the receive plan of the link";
    else if (d->slot != l->df_plan[l->df_arrived])
        why = "a frame of another slot than the receive plan's next on the link";
    if (why) {
        uint64_t want = l->df_arrived < l->df_nplan ? l->df_plan[l->df_arrived] : 0;
        sn__node_report(nd, SN_EPROTO, d->slot, STEPNET__ABORT_KIND__ABORT_PROTO, l->peer, NULL, 0,
                        "protocol error on the link to node %u (edge %u): collective %u slot %llu: "
                        "%s (planned next: slot %llu, 0: none); the schedule differs from the "
                        "coordinator's dry run",
                        l->peer, l->edge, d->cid, (unsigned long long) d->slot, why,
                        (unsigned long long) want);
        return;
    }
    queue_push(l, &d->pkt);
    l->df_arrived++;
    if (nd->ex.running && !nd->ex.idle && d->cid == nd->ex.cid)
        sn__node_dataflow_advance(nd);
}

int sn__node_dataflow_awaits(const node_t *nd, const link_t *l, uint64_t *slot)
{
    *slot = head_slot(l);
    return nd->ex.df_next > 0 && *slot == nd->ex.df_next - 1 && l->df_arrived == l->df_played;
}

/* Plays logical slot s, whose frames are all in: its arrivals (the planned frames of slot s - 1,
 * in port order), the step, and the packets it sends; the faults of the slots it skipped act
 * now. */
static void play(node_t *nd, uint64_t s)
{
    size_t nrx = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (head_slot(l) != s - 1)
            continue;
        sn__node_arrival(nd, nrx++, &l->df_q[l->df_qhead], q, l->sent_pkt_slot == s - 1);
        l->df_qhead = (l->df_qhead + 1) % l->df_qcap;
        l->df_played++;
    }
    uint64_t before = nd->ex.t;
    size_t ntx;
    int complete;
    if (sn__node_step(nd, s, nrx, &ntx, &complete) < 0)
        return;
    sn__node_send_slot(nd, s, 1);
    if (nd->fault.kind != SN_FAULT_NONE && nd->fault.slot > before && nd->fault.slot <= s)
        sn__node_fault_inject(nd, nd->fault.slot);
    sn__node_begin_wait(nd);
}

void sn__node_dataflow_advance(node_t *nd)
{
    while (nd->ex.running && !nd->ex.idle) {
        for (uint32_t q = 0; q < nd->deg; q++) {
            const link_t *l = &nd->links[q];
            nd->ex.df_head[q] = head_slot(l);
            nd->ex.df_have[q] = l->df_arrived > l->df_played;
        }
        uint64_t s = sn_rxplan_next_slot(nd->ex.t, nd->ex.wake, nd->ex.df_head, nd->deg);
        if (s == SN_RXPLAN_NONE) {
            sn__node_finish(nd);
            return;
        }
        if (s > nd->max_slots) {
            sn__node_abort(nd, SN_ESLOTS, nd->ex.t, "no termination after %llu slots (the limit)",
                           (unsigned long long) nd->max_slots);
            return;
        }
        if (nd->ex.df_next != s) { /* a new slot to wait for: the deadline restarts */
            nd->ex.df_next = s;
            sn__node_begin_wait(nd);
        }
        if (!sn_rxplan_ready(s, nd->ex.df_head, nd->ex.df_have, nd->deg))
            return;
        play(nd, s);
    }
}

void sn__node_dataflow_free(node_t *nd)
{
    for (uint32_t q = 0; nd->links && q < nd->deg; q++) {
        free(nd->links[q].df_plan);
        free(nd->links[q].df_q);
    }
    free(nd->ex.df_head);
    free(nd->ex.df_have);
}
