/* The slot barrier, stepnet-node's default execution mode (node/, `--sync slot`; its table of
 * operations, sn__node_mode_slot, is described in node_internal.h): it plays the algorithm's state
 * machine slot by slot and detects termination without a per-slot round trip. Every mode's idle
 * runs (a benchmark's idle barrier, the in-band barrier before a collective) are played here too.
 *
 * Slot barrier (an alpha-synchronizer; docs/runtime.md, "The slot barrier"): in every slot the
 * node sends exactly one data frame on every link (empty when it has no packet there) and plays
 * slot t+1 once it holds the slot-t frame of every link; neighbours are never more than one slot
 * apart, so each link keeps a window of two frames. The algorithm state machine is called exactly
 * as core/sim calls it (slot 1, then on arrivals or at its wake slot).
 *
 * Termination: a node is *done* in slot s when it holds all its deliveries, asked for no wake and
 * sent nothing. Every frame carries the sender's radius R (all nodes within R-1 hops were done,
 * R = 0 if the sender is not) and the latest done-start slot M it knows. R(s) = done(s) ? 1 + min
 * over links R_link(s-1) : 0 and M(s) = max(own done start, M_link(s-1)). Once R reaches D+1
 * (D = diameter) every delivery in the network is complete and M is the global last done start
 * G; every node learns this by slot G + D, so all stop after slot G + D + 1 without talking to
 * the coordinator.
 *
 * Learned stop (Start.quiet_slot = G, docs/runtime.md): the first repetition of a size detects
 * termination as above and reports G; the later ones play slot G without frames and stop there,
 * each node checking that it is done (the schedule repeats, or the run fails). */
#include <stdio.h>
#include <string.h>

#include "node/node_internal.h"

/* The half of link l's two-frame window that holds its frame of collective cid, slot s. The
 * halves alternate with the slot; a collective that follows an in-band barrier of B slots starts
 * in the half after the barrier's last (offset B & 1), so that a neighbour's first frames of the
 * collective never meet its last ones of the barrier, whatever B is. */
static unsigned half(const node_t *nd, uint32_t cid, uint64_t s)
{
    uint32_t off = 0;
    if (nd->ex.running && cid == nd->ex.cid)
        off = nd->ex.win_off;
    else if (nd->ex.running && nd->ex.then_cid && cid == nd->ex.then_cid)
        off = (uint32_t) (nd->ex.idle & 1);
    return (unsigned) ((s + off) & 1);
}

static rxframe_t *win(node_t *nd, link_t *l, uint32_t cid, uint64_t s)
{
    return &l->rx[half(nd, cid, s)];
}

/* 1 when link l holds its frame of the running collective's current slot. */
static int held(const node_t *nd, const link_t *l)
{
    const rxframe_t *f = &l->rx[half(nd, nd->ex.cid, nd->ex.t)];
    return f->have && f->slot == nd->ex.t && f->cid == nd->ex.cid;
}

/* Plays slot s: the arrivals of slot s-1, the step, the checks, the frames of slot s. The port
 * model and the deliveries are checked by the core's sn_exec_check_arrivals and sn_exec_step,
 * exactly as the simulator checks them, and their message is reported unchanged. */
static void play(node_t *nd, uint64_t s)
{
    const sn_params_t *p = &nd->params;
    size_t nrx = 0;
    uint32_t min_r = UINT32_MAX;
    uint64_t max_m = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (s == 1) {
            min_r = 0;
            continue;
        }
        rxframe_t *f = win(nd, l, nd->ex.cid, s - 1);
        f->have = 0;
        if (f->radius < min_r)
            min_r = f->radius;
        if (f->cmax > max_m)
            max_m = f->cmax;
        if (f->has_pkt)
            sn__node_arrival(nd, nrx++, &f->pkt, q, l->sent_pkt_slot == s - 1);
    }
    if (nd->ex.idle) { /* the idle barrier: empty frames only (arrivals, if any, are checked) */
        sn_err_t err = {0};
        int rc;
        if (s > 1 && (rc = sn_exec_check_arrivals(nd->topo, &p->pm, nd->id, s - 1, nd->ex.rx, nrx,
                                                  nd->ex.echo, &err)) < 0) {
            sn__node_abort(nd, rc, s - 1, "%s", err.msg);
            return;
        }
        nd->ex.t = s;
        for (uint32_t q = 0; q < nd->deg; q++)
            sn__node_send_frame(&nd->links[q], nd->ex.cid, s, 0, 0, NULL, p);
        sn__node_begin_wait(nd);
        return;
    }
    size_t ntx;
    int complete;
    if (sn__node_step(nd, s, nrx, &ntx, &complete) < 0)
        return;
    /* termination state of this slot */
    uint64_t got = sn_verify_got(nd->ex.verify, nd->id);
    int done = complete && nd->ex.wake == SN_WAKE_NEVER && ntx == 0;
    if (done && !nd->ex.was_done)
        nd->ex.done_start = s;
    nd->ex.was_done = done;
    if (nd->ex.quiet && s == nd->ex.quiet) { /* a learned stop: this slot sends no frames */
        if (!done) {
            char why[96];
            if (!complete)
                snprintf(why, sizeof why, "it holds %llu of its %llu deliveries",
                         (unsigned long long) got,
                         (unsigned long long) sn_verify_expected(nd->ex.verify, nd->id));
            else if (ntx)
                snprintf(why, sizeof why, "it sends %zu packets in this slot", ntx);
            else
                snprintf(why, sizeof why, "the algorithm asks to wake at slot %llu",
                         (unsigned long long) nd->ex.wake);
            sn__node_abort(nd, SN_EALGO, s,
                           "learned stop at slot %llu (where the first repetition of this size "
                           "went quiet): the node is not done, %s; the schedule differs between "
                           "repetitions (--termination detect runs without the learned stop)",
                           (unsigned long long) s, why);
            return;
        }
        nd->ex.t = s;
        sn__node_finish(nd);
        return;
    }
    uint32_t cap = nd->diameter + 1;
    nd->ex.radius = done ? (min_r + 1 > cap ? cap : min_r + 1) : 0;
    nd->ex.cmax = max_m > (done ? nd->ex.done_start : 0) ? max_m : (done ? nd->ex.done_start : 0);
    if (!nd->ex.quiet && nd->ex.radius >= cap && nd->ex.stop_slot == 0) {
        nd->ex.stop_slot = nd->ex.cmax + nd->diameter + 1;
        if (nd->ex.stop_slot <= s) {
            sn__node_abort(nd, SN_EALGO, s,
                           "termination: stop slot %llu already passed at slot %llu (traffic after "
                           "completion?)",
                           (unsigned long long) nd->ex.stop_slot, (unsigned long long) s);
            return;
        }
    }
    sn__node_send_slot(nd, s, 0);
    sn__node_fault_inject(nd, s);
    sn__node_begin_wait(nd);
}

/* Plays slots as long as every link holds the frame of the current slot. */
static void advance(node_t *nd)
{
    while (nd->ex.running) {
        for (uint32_t q = 0; q < nd->deg; q++)
            if (!held(nd, &nd->links[q]))
                return;
        if (nd->ex.t == nd->ex.stop_slot) {
            sn__node_finish(nd);
            return;
        }
        if (!nd->ex.idle && nd->ex.t >= nd->max_slots) {
            sn__node_abort(nd, SN_ESLOTS, nd->ex.t, "no termination after %llu slots (the limit)",
                           (unsigned long long) nd->max_slots);
            return;
        }
        play(nd, nd->ex.t + 1);
    }
}

/* ---- the operations ------------------------------------------------------------------------ */

/* A receive plan is dataflow's: under the barrier the frames of every slot come on every link. */
static int slot_assign(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    (void) nd;
    if (a->n_rx_plan)
        return sn_err_set(err, SN_EINVAL, "a receive plan without --sync dataflow");
    return 0;
}

/* Nothing before the run: the windows are cleared per run (exec.c, start_run), as frames of the
 * next collective may already be in them. */
static void slot_start(node_t *nd)
{
    (void) nd;
}

static void slot_begin(node_t *nd)
{
    play(nd, 1);
    advance(nd);
}

/* A frame takes its place in the link's window: it must belong to the running collective (or be
 * the first frame of the next one, sent by a neighbour that got its START first), and to slot t
 * or t+1. */
static void slot_frame(link_t *l, sn_wire_data_t *d)
{
    node_t *nd = l->nd;
    int ok;
    if (nd->ex.running)
        ok = (d->cid == nd->ex.cid && (d->slot == nd->ex.t || d->slot == nd->ex.t + 1)) ||
             /* a neighbour that left the in-band barrier before us: its collective began */
             (nd->ex.then_cid && d->cid == nd->ex.then_cid && d->slot == 1 &&
              nd->ex.t == nd->ex.stop_slot);
    else
        ok = d->cid == nd->ex.last_cid + 1 && d->slot == 1;
    rxframe_t *f = win(nd, l, d->cid, d->slot);
    if (!ok || (f->have && f->cid == d->cid && f->slot == d->slot)) {
        sn__node_report(nd, SN_EPROTO, nd->ex.t, STEPNET__ABORT_KIND__ABORT_PROTO, l->peer, NULL, 0,
                        "protocol error on the link to node %u (edge %u): frame for collective %u "
                        "slot %llu %s at collective %u slot %llu",
                        l->peer, l->edge, d->cid, (unsigned long long) d->slot,
                        ok ? "repeated" : "unexpected", nd->ex.cid, (unsigned long long) nd->ex.t);
        return;
    }
    sn__node_frame_digest(nd, d);
    f->have = 1;
    f->cid = d->cid;
    f->slot = d->slot;
    f->has_pkt = d->has_packet;
    f->pkt = d->pkt;
    f->radius = d->radius;
    f->cmax = d->cmax;
    if (nd->ex.trace_cap && nd->ex.running && d->cid == nd->ex.cid)
        sn__node_trace_arrived(nd, d->slot, l->port);
    if (nd->ex.running && d->slot == nd->ex.t)
        advance(nd);
}

/* The last slot played: a link waits for its frame until it holds it. */
static uint64_t slot_awaited(const node_t *nd, uint32_t *hops)
{
    *hops = nd->diameter;
    return nd->ex.t;
}

static int slot_missing(const node_t *nd, const link_t *l)
{
    return !held(nd, l);
}

/* The slot where the collective went quiet: the learned stop it played, or the global last done
 * start its termination detection found. */
static void slot_result(node_t *nd, Stepnet__Result *r)
{
    r->has_quiet_slot = 1;
    r->quiet_slot = nd->ex.quiet ? nd->ex.quiet : nd->ex.cmax;
}

/* Nothing of its own: the windows are the links'. */
static void slot_free(node_t *nd)
{
    (void) nd;
}

const sn_node_mode_ops_t sn__node_mode_slot = {
    .mode_assign = slot_assign,
    .mode_start = slot_start,
    .mode_begin = slot_begin,
    .mode_frame = slot_frame,
    .mode_awaited = slot_awaited,
    .mode_missing = slot_missing,
    .mode_result = slot_result,
    .mode_free = slot_free,
};
