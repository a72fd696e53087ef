/* Dataflow, an execution mode of stepnet-node (node/, `--sync dataflow`; its table of operations,
 * sn__node_mode_dataflow, is described in node_internal.h): the same state machine, checks and
 * verification as the slot barrier (mode_slot.c), through the shared executor (exec.c), without
 * the barrier. Before the run the node learns from its assignment every (slot, port) on which a
 * packet will reach it (the coordinator's dry run, core/model/rxplan.c); it sends only real
 * packets, each frame carrying its logical slot, and plays logical slot s as soon as every frame
 * of slot s - 1 that its plan holds is in, skipping the slots in which the simulator would not
 * step it. Frames of later slots that arrive first wait in their link's queue, in the order of the
 * link's plan; a frame the plan does not hold is a protocol error (the schedule differs from the
 * dry run). The node is finished when nothing is left to play: no planned frame, no wake
 * (docs/runtime.md, "Dataflow execution"). The in-band barrier before each collective keeps the
 * slot barrier: its frames go to mode_slot.c. */
#include <stdlib.h>
#include <string.h>

#include "node/node_internal.h"
#include "stepnet/rxplan.h"
#include "stepnet/util.h"

/* One link's receptions: the slots of its planned frames in order (from the Assign's receive
 * plan), how many frames of the running collective arrived and how many were played, and the
 * packets that arrived before the slot that plays them: a ring of qcap entries, never more than
 * the link's planned frames. */
typedef struct df_link_s {
    uint64_t *plan;
    size_t nplan, arrived, played;
    sn_packet_t *q;
    size_t qhead, qcap;
} df_link_t;

/* The mode's state (nd->ex.mode_state): every link's receptions, the logical slot played next
 * (0: not chosen yet), and per port scratch: the slot of the next planned frame and whether it is
 * here. */
typedef struct df_s {
    df_link_t *links; /* [deg] */
    uint64_t next;
    uint64_t *head; /* [deg] */
    uint8_t *have;  /* [deg] */
} df_t;

/* The slot of link l's next frame to play, or SN_RXPLAN_NONE. */
static uint64_t head_slot(const df_link_t *l)
{
    return l->played < l->nplan ? l->plan[l->played] : SN_RXPLAN_NONE;
}

/* Queues a packet behind the link's others; the ring doubles when full, and never holds more
 * than the link's planned frames (a frame beyond the plan is refused before it gets here). */
static void queue_push(df_link_t *l, const sn_packet_t *pkt)
{
    size_t n = l->arrived - l->played;
    if (n == l->qcap) {
        size_t cap = l->qcap ? 2 * l->qcap : 4;
        if (cap > l->nplan)
            cap = l->nplan;
        sn_packet_t *q = sn_xcalloc(cap, sizeof *q);
        for (size_t i = 0; i < n; i++)
            q[i] = l->q[(l->qhead + i) % l->qcap];
        free(l->q);
        l->q = q;
        l->qcap = cap;
        l->qhead = 0;
    }
    l->q[(l->qhead + n) % l->qcap] = *pkt;
}

/* 1 when a data frame of collective cid belongs to a dataflow collective of this node: the
 * running one, or the one the running in-band barrier precedes. */
static int owns(const node_t *nd, uint32_t cid)
{
    if (!nd->ex.running)
        return 0;
    if (!nd->ex.idle)
        return cid == nd->ex.cid;
    return nd->ex.then_cid != 0 && cid == nd->ex.then_cid;
}

/* Plays logical slot s, whose frames are all in: its arrivals (the planned frames of slot s - 1,
 * in port order), the step, and the packets it sends; the faults of the slots it skipped act
 * now. */
static void play(node_t *nd, df_t *df, uint64_t s)
{
    size_t nrx = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        df_link_t *l = &df->links[q];
        if (head_slot(l) != s - 1)
            continue;
        sn__node_arrival(nd, nrx++, &l->q[l->qhead], q, nd->links[q].sent_pkt_slot == s - 1);
        l->qhead = (l->qhead + 1) % l->qcap;
        l->played++;
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

/* Plays logical slots as long as the frames each needs are in; finishes when none is left. */
static void advance(node_t *nd)
{
    df_t *df = nd->ex.mode_state;
    while (nd->ex.running && !nd->ex.idle) {
        for (uint32_t q = 0; q < nd->deg; q++) {
            const df_link_t *l = &df->links[q];
            df->head[q] = head_slot(l);
            df->have[q] = l->arrived > l->played;
        }
        uint64_t s = sn_rxplan_next_slot(nd->ex.t, nd->ex.wake, df->head, nd->deg);
        if (s == SN_RXPLAN_NONE) {
            sn__node_finish(nd);
            return;
        }
        if (s > nd->max_slots) {
            sn__node_abort(nd, SN_ESLOTS, nd->ex.t, "no termination after %llu slots (the limit)",
                           (unsigned long long) nd->max_slots);
            return;
        }
        if (df->next != s) { /* a new slot to wait for: the deadline restarts */
            df->next = s;
            sn__node_begin_wait(nd);
        }
        if (!sn_rxplan_ready(s, df->head, df->have, nd->deg))
            return;
        play(nd, df, s);
    }
}

/* ---- the operations ------------------------------------------------------------------------ */

/* Takes the assignment's receive plan: checks it and splits it by port. */
static int df_assign(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    int rc = sn_rxplan_check(a->rx_plan, a->n_rx_plan, nd->deg, nd->max_slots, err);
    if (rc < 0)
        return rc;
    df_t *df = sn_xcalloc(1, sizeof *df);
    nd->ex.mode_state = df;
    df->links = sn_xcalloc(nd->deg + 1, sizeof *df->links);
    /* split by port: every link gets the slots of its frames, increasing */
    size_t *count = sn_xcalloc(nd->deg + 1, sizeof *count);
    for (size_t i = 0; i < a->n_rx_plan; i++)
        count[a->rx_plan[i] % nd->deg]++;
    for (uint32_t q = 0; q < nd->deg; q++) {
        df_link_t *l = &df->links[q];
        l->plan = count[q] ? sn_xcalloc(count[q], sizeof *l->plan) : NULL;
        l->nplan = 0;
    }
    for (size_t i = 0; i < a->n_rx_plan; i++) {
        uint64_t slot;
        uint32_t q;
        sn_rxplan_decode(a->rx_plan[i], nd->deg, &slot, &q);
        df_link_t *l = &df->links[q];
        l->plan[l->nplan++] = slot;
    }
    free(count);
    df->head = sn_xcalloc(nd->deg + 1, sizeof *df->head);
    df->have = sn_xcalloc(nd->deg + 1, 1);
    return 0;
}

/* A new collective: no frame of it has arrived or been played (at its START, before its in-band
 * barrier, whose end lets the neighbours send its frames). */
static void df_start(node_t *nd)
{
    df_t *df = nd->ex.mode_state;
    for (uint32_t q = 0; q < nd->deg; q++) {
        df_link_t *l = &df->links[q];
        l->arrived = l->played = 0;
        l->qhead = 0;
    }
    df->next = 0;
}

static void df_begin(node_t *nd)
{
    df_t *df = nd->ex.mode_state;
    df->next = 0;
    advance(nd);
}

/* A frame of the collective is matched against the link's plan, queued, and played when its slot
 * is ready; any other frame (the in-band barrier's) is the slot barrier's. */
static void df_frame(link_t *link, sn_wire_data_t *d)
{
    node_t *nd = link->nd;
    if (!owns(nd, d->cid)) {
        sn__node_mode_slot.mode_frame(link, d);
        return;
    }
    sn__node_frame_digest(nd, d);
    if (nd->ex.trace_cap && nd->ex.running && d->cid == nd->ex.cid)
        sn__node_trace_arrived(nd, d->slot, link->port);
    df_t *df = nd->ex.mode_state;
    df_link_t *l = &df->links[link->port];
    const char *why = NULL;
    if (!d->has_packet)
        why = "an empty frame (dataflow sends packets only)";
    else if (l->arrived >= l->nplan)
        why = "a frame beyond the receive plan of the link";
    else if (d->slot != l->plan[l->arrived])
        why = "a frame of another slot than the receive plan's next on the link";
    if (why) {
        uint64_t want = l->arrived < l->nplan ? l->plan[l->arrived] : 0;
        sn__node_report(nd, SN_EPROTO, d->slot, STEPNET__ABORT_KIND__ABORT_PROTO, link->peer, NULL,
                        0,
                        "protocol error on the link to node %u (edge %u): collective %u slot %llu: "
                        "%s (planned next: slot %llu, 0: none); the schedule differs from the "
                        "coordinator's dry run",
                        link->peer, link->edge, d->cid, (unsigned long long) d->slot, why,
                        (unsigned long long) want);
        return;
    }
    queue_push(l, &d->pkt);
    l->arrived++;
    if (nd->ex.running && !nd->ex.idle && d->cid == nd->ex.cid)
        advance(nd);
}

/* The slot before the next logical slot, which may lie many slots ahead of the slots the other
 * nodes play: a chain of up to that many hops, each taking up to a frame's time, may precede its
 * frame, so its first byte gets that many frames' time. */
static uint64_t df_awaited(const node_t *nd, uint32_t *hops)
{
    const df_t *df = nd->ex.mode_state;
    uint64_t awaited = df->next ? df->next - 1 : 0;
    *hops = nd->diameter;
    if (awaited > *hops)
        *hops = awaited > UINT32_MAX ? UINT32_MAX : (uint32_t) awaited;
    return awaited;
}

/* A link owes a frame when the next slot waits for the link's next planned one, not yet here. */
static int df_missing(const node_t *nd, const link_t *link)
{
    const df_t *df = nd->ex.mode_state;
    const df_link_t *l = &df->links[link->port];
    return df->next > 0 && head_slot(l) == df->next - 1 && l->arrived == l->played;
}

/* Dataflow detects no termination (its last slot comes from the receive plan), so the Result has
 * no quiet slot. The trace marks every recorded (slot, port) on which the receive plan holds no
 * frame, so that the coordinator draws no arrival there (dataflow sends no empty frames); a
 * planned one holds its arrival time, or 0 when its frame came before the Start. */
static void df_result(node_t *nd, Stepnet__Result *r)
{
    (void) r;
    const df_t *df = nd->ex.mode_state;
    uint64_t stride = 1 + (uint64_t) nd->deg;
    for (uint32_t q = 0; nd->ex.trace_cap && q < nd->deg; q++) {
        const df_link_t *l = &df->links[q];
        size_t i = 0;
        for (uint64_t s = 1; s <= nd->ex.trace_cap; s++) {
            while (i < l->nplan && l->plan[i] < s)
                i++;
            if (i == l->nplan || l->plan[i] != s)
                nd->ex.trace_slots[(s - 1) * stride + 1 + q] = SN_WIRE_TRACE_NO_FRAME;
        }
    }
}

static void df_free(node_t *nd)
{
    df_t *df = nd->ex.mode_state;
    if (df == NULL)
        return;
    for (uint32_t q = 0; df->links && q < nd->deg; q++) {
        free(df->links[q].plan);
        free(df->links[q].q);
    }
    free(df->links);
    free(df->head);
    free(df->have);
    free(df);
    nd->ex.mode_state = NULL;
}

const sn_node_mode_ops_t sn__node_mode_dataflow = {
    .mode_assign = df_assign,
    .mode_start = df_start,
    .mode_begin = df_begin,
    .mode_frame = df_frame,
    .mode_awaited = df_awaited,
    .mode_missing = df_missing,
    .mode_result = df_result,
    .mode_free = df_free,
};
