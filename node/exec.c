/* The executor of stepnet-node (node/) that the execution modes share: a START and the run it
 * starts (the algorithm's state, verification, the in-band barrier before a collective), the step
 * of a slot with the core's sn_exec_step and sn_exec_check_arrivals (the very checks of the
 * simulator), the frames a slot sends, the checks of the frames that arrive, the slot deadline,
 * the --trace records and the result. How the slots are played is the execution mode's, behind
 * its table of operations (node_internal.h): the slot barrier (mode_slot.c) or dataflow
 * (mode_dataflow.c), taken once from the table below when the assignment names the mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_internal.h"
#include "stepnet/deadline.h"
#include "stepnet/util.h"

/* ---- results and deadlines ------------------------------------------------------------------ */

static void set_bit(uint64_t **bits, size_t *nbits, uint64_t slot)
{
    size_t w = (size_t) ((slot - 1) / 64);
    if (w >= *nbits) {
        size_t n = *nbits ? *nbits : 16;
        while (n <= w)
            n *= 2;
        *bits = sn_xrealloc(*bits, n * sizeof **bits);
        memset(*bits + *nbits, 0, (n - *nbits) * sizeof **bits);
        *nbits = n;
    }
    (*bits)[w] |= 1ull << ((slot - 1) % 64);
}

static void send_result(node_t *nd, const char *error, uint64_t error_slot)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Result r = STEPNET__RESULT__INIT;
    r.cid = nd->ex.cid;
    r.node = nd->id;
    r.last_send_slot = nd->ex.last_send;
    r.data_packets = nd->ex.data_packets;
    r.control_packets = nd->ex.control_packets;
    r.deliveries = sn_verify_got(nd->ex.verify, nd->id);
    r.expected = sn_verify_expected(nd->ex.verify, nd->id);
    r.digest_sum = sn_verify_digest_sum(nd->ex.verify, nd->id);
    r.trace_hash = nd->ex.trace;
    r.stop_slot = nd->ex.t;
    r.bytes_checked = nd->ex.bytes_checked;
    r.has_max_queue = nd->ex.max_queue_reported; /* absent: the algorithm reports no queues */
    r.max_queue = nd->ex.max_queue;
    r.has_size = 1;
    r.size = nd->params.size;
    size_t words = (size_t) ((nd->ex.t + 63) / 64);
    r.n_data_slots = nd->ex.ndata_bits < words ? nd->ex.ndata_bits : words;
    r.data_slots = nd->ex.data_bits;
    r.n_control_slots = nd->ex.nctl_bits < words ? nd->ex.nctl_bits : words;
    r.control_slots = nd->ex.ctl_bits;
    if (nd->ex.trace_cap) {
        uint64_t slots = nd->ex.t < nd->ex.trace_cap ? nd->ex.t : nd->ex.trace_cap;
        r.has_trace_t0_ns = 1;
        r.trace_t0_ns = nd->ex.trace_t0;
        r.n_trace_slots = (size_t) (slots * (1 + nd->deg));
        r.trace_slots = nd->ex.trace_slots;
        r.n_trace_sends = nd->ex.ntrace_sends;
        r.trace_sends = nd->ex.trace_sends;
    }
    r.error = (char *) error;
    r.has_error_slot = error != NULL;
    r.error_slot = error_slot;
    r.has_start_ns = r.has_complete_ns = error == NULL;
    r.start_ns = nd->ex.start_ns;
    r.complete_ns = nd->ex.complete_ns;
    if (error == NULL && !nd->ex.idle) /* the learned stop, the trace's marks */
        nd->ex.mode->mode_result(nd, &r);
    m.msg_case = STEPNET__CONTROL__MSG_RESULT;
    m.result = &r;
    sn__node_send_ctl(nd, &m);
}

/* --trace: nanoseconds since the Start, never 0 (0 marks a frame that came before it). */
static uint64_t trace_now(const node_t *nd)
{
    uint64_t d = uv_hrtime() - nd->ex.trace_t0;
    return d ? d : 1;
}

/* --trace: slot s's frames leave now, with these packets (while the budget of numbers lasts). */
static void trace_sent(node_t *nd, uint64_t s)
{
    if (s > nd->ex.trace_cap)
        return;
    nd->ex.trace_slots[(s - 1) * (1 + nd->deg)] = trace_now(nd);
    for (uint32_t q = 0; q < nd->deg; q++) {
        if (!nd->ex.out_has[q] || nd->ex.ntrace_sends + 4 > SN_WIRE_MAX_TRACE_VALUES / 2)
            continue;
        const sn_packet_t *k = &nd->ex.out[q];
        sn_grow((void **) &nd->ex.trace_sends, &nd->ex.captrace_sends, nd->ex.ntrace_sends + 4,
                sizeof *nd->ex.trace_sends);
        uint64_t *v = nd->ex.trace_sends + nd->ex.ntrace_sends;
        v[0] = s;
        v[1] = q | (uint64_t) k->kind << 32;
        v[2] = k->src | (uint64_t) k->dst << 32;
        v[3] = k->seq | (uint64_t) k->frag << 32;
        nd->ex.ntrace_sends += 4;
    }
}

void sn__node_trace_arrived(node_t *nd, uint64_t s, uint32_t q)
{
    if (s == 0 || s > nd->ex.trace_cap)
        return;
    nd->ex.trace_slots[(s - 1) * (1 + nd->deg) + 1 + q] = trace_now(nd);
}

#define NS_PER_MS 1000000ull

/* How often a waiting slot looks at its links' progress: a quarter of the silence limit, at most
 * 250 ms, so that a failure is seen within a small part of its limit. Slots shorter than this
 * never see the timer fire (each restarts it). */
static uint32_t deadline_tick_ms(const node_t *nd)
{
    uint32_t t = nd->slot_ms / 4;
    return t < 1 ? 1 : t > 250 ? 250 : t;
}

/* The slot just played begins waiting for its frames: notes the time and where every link's
 * byte count stands, and restarts the deadline's timer (for a run's first slot, starts it). */
static void begin_wait(node_t *nd, uv_timer_cb on_timer)
{
    nd->ex.wait_ms = uv_now(nd->loop);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        l->wait_rx0 = l->lc ? l->lc->c.rx_bytes : 0;
        l->wait_first_rx_ms = 0;
    }
    if (on_timer)
        uv_timer_start(&nd->ex.slot_timer, on_timer, deadline_tick_ms(nd), deadline_tick_ms(nd));
    else
        uv_timer_again(&nd->ex.slot_timer);
}

/* Link l's progress since the slot began waiting, as the deadline sees it at now_ms. */
static sn_deadline_link_t link_progress(const node_t *nd, link_t *l, uint64_t now_ms)
{
    sn_deadline_link_t w = {.wait_start = nd->ex.wait_ms * NS_PER_MS, .expected = nd->params.size};
    if (l->lc == NULL) /* closed: its failure is reported already, and it moves nothing */
        return w;
    const sn_conn_t *c = &l->lc->c;
    w.rx_bytes = c->rx_bytes - l->wait_rx0;
    if (w.rx_bytes && !l->wait_first_rx_ms)
        l->wait_first_rx_ms = now_ms; /* at the latest: a later start gives the frame more time */
    w.first_rx = l->wait_first_rx_ms * NS_PER_MS;
    w.last_rx = c->rx_at_ms * NS_PER_MS;
    w.last_tx = c->tx_at_ms >= nd->ex.wait_ms ? c->tx_at_ms * NS_PER_MS : 0;
    return w;
}

/* The slot deadline measures silence, not the wall (docs/runtime.md, "Deadlines"): every tick,
 * each link whose frame is missing is judged from its progress by sn_deadline_decide. A link that
 * moved no byte, in or out, for the silence limit (its first byte allowed the model's time of the
 * frames it may wait on besides) is reported silent, with every other silent one; otherwise a
 * frame whose bytes keep coming but cannot be whole within the model's time is reported slow.
 * While every missing frame's link moves, the slot keeps waiting. */
static void on_slot_timer(uv_timer_t *t)
{
    node_t *nd = t->data;
    uint64_t now_ms = uv_now(nd->loop);
    /* the slot whose frames are awaited, and how many frames' time their first byte gets (the
     * running run's mode says) */
    const sn_node_mode_ops_t *run = nd->ex.run;
    uint32_t hops;
    uint64_t awaited = run->mode_awaited(nd, &hops);
    sn_deadline_limits_t lim = {.silence_ns = (uint64_t) nd->slot_ms * NS_PER_MS,
                                .first_ns = sn_deadline_first_ns(nd->ex.frame_ns, hops),
                                .frame_ns = nd->ex.frame_ns};
    char missing[256] = "";
    size_t len = 0;
    uint32_t *ids = sn_xcalloc(nd->deg + 1, sizeof *ids), nids = 0;
    link_t *slow = NULL;
    sn_deadline_link_t slow_w = {0};
    for (uint32_t p = 0; p < nd->deg; p++) {
        link_t *l = &nd->links[p];
        if (!run->mode_missing(nd, l))
            continue;
        sn_deadline_link_t w = link_progress(nd, l, now_ms);
        uint64_t until;
        sn_deadline_verdict_t v = sn_deadline_decide(&lim, &w, now_ms * NS_PER_MS, &until);
        if (v == SN_DEADLINE_SLOW && slow == NULL) {
            slow = l;
            slow_w = w;
        }
        if (v != SN_DEADLINE_SILENT)
            continue;
        ids[nids++] = l->peer;
        if (len < sizeof missing - 40)
            len += (size_t) snprintf(missing + len, sizeof missing - len, "%snode %u (edge %u)",
                                     len ? ", " : "", l->peer, l->edge);
    }
    if (nids)
        sn__node_report(nd, SN_ETIMEOUT, awaited, STEPNET__ABORT_KIND__ABORT_DEADLINE,
                        (int64_t) ids[0], ids, nids,
                        "slot deadline (%u ms) at slot %llu: no frame from %s", nd->slot_ms,
                        (unsigned long long) awaited, missing);
    else if (slow) {
        double rate = sn_deadline_rate_bps(slow_w.rx_bytes, slow_w.first_rx, now_ms * NS_PER_MS);
        uint32_t u = nd->id < slow->peer ? nd->id : slow->peer;
        uint32_t v = nd->id < slow->peer ? slow->peer : nd->id;
        sn__node_report(nd, SN_ETIMEOUT, awaited, STEPNET__ABORT_KIND__ABORT_SLOW, slow->peer, NULL,
                        0,
                        "link %u-%u moving at %.0f B/s, frame of %llu bytes needs %.1f s (slot "
                        "%llu; the model allows %.1f s)",
                        u, v, rate, (unsigned long long) slow_w.expected,
                        sn_deadline_needs_s(slow_w.expected, rate), (unsigned long long) awaited,
                        (double) (lim.silence_ns + lim.frame_ns) / 1e9);
    }
    free(ids);
}

/* Streamed, its payload generated chunk by chunk as it goes out (net/wire.h), or, on an emulated
 * link, built whole and held until its release time (emulate.c). */
void sn__node_send_frame(link_t *l, uint32_t cid, uint64_t s, uint32_t radius, uint64_t cmax,
                         const sn_packet_t *pkt, const sn_params_t *p)
{
    if (l->lc == NULL) /* the link's connection closed (its failure is reported already) */
        return;
    if (!l->emu_on) {
        sn_wire_send_data(&l->lc->c, cid, s, radius, cmax, pkt, p);
        return;
    }
    size_t len;
    uint8_t *b = sn_wire_frame_data(&l->lc->c, cid, s, radius, cmax, pkt, p, &len);
    sn__node_link_send(l, b, len);
}

void sn__node_arrival(node_t *nd, size_t i, const sn_packet_t *pkt, uint32_t q, int echo)
{
    if (i == nd->ex.rxcap) {
        sn_grow((void **) &nd->ex.rx, &nd->ex.rxcap, i + 1, sizeof *nd->ex.rx);
        nd->ex.echo = sn_xrealloc(nd->ex.echo, nd->ex.rxcap * sizeof *nd->ex.echo);
    }
    nd->ex.rx[i].pkt = *pkt;
    nd->ex.rx[i].port = q; /* in port order, as the core expects */
    nd->ex.echo[i] = (uint8_t) echo;
}

int sn__node_step(node_t *nd, uint64_t s, size_t nrx, size_t *ntx, int *complete)
{
    const sn_topo_t *t = nd->topo;
    const sn_params_t *p = &nd->params;
    sn_step_t *io = &nd->ex.io;
    sn_err_t err = {0};
    int rc;
    *ntx = 0;
    memset(nd->ex.out_has, 0, nd->deg);
    if (s > 1 && (rc = sn_exec_check_arrivals(t, &p->pm, nd->id, s - 1, nd->ex.rx, nrx, nd->ex.echo,
                                              &err)) < 0) {
        sn__node_abort(nd, rc, s - 1, "%s", err.msg);
        return -1;
    }
    if (s == 1 || nrx > 0 || nd->ex.wake == s) {
        io->slot = s;
        io->rx = nd->ex.rx;
        io->nrx = nrx;
        if ((rc = sn_exec_step(nd->algo, nd->state, t, &p->pm, nd->id, io, nd->ex.verify,
                               nd->ex.mark, &err)) < 0) {
            sn__node_abort(nd, rc, s, "%s", err.msg);
            return -1;
        }
        for (size_t i = 0; i < io->ntx; i++) {
            nd->ex.out_has[io->tx[i].port] = 1;
            nd->ex.out[io->tx[i].port] = io->tx[i].pkt;
        }
        *ntx = io->ntx;
        nd->ex.wake = io->wake;
        if (io->queue != SN_QUEUE_UNREPORTED) {
            nd->ex.max_queue_reported = 1;
            if (io->queue > nd->ex.max_queue)
                nd->ex.max_queue = io->queue;
        }
    }
    uint64_t got = sn_verify_got(nd->ex.verify, nd->id);
    *complete = got == sn_verify_expected(nd->ex.verify, nd->id);
    if (*complete && !nd->ex.complete_sent) {
        nd->ex.complete_ns = uv_hrtime();
        nd->ex.complete_sent = 1;
        nd->ex.complete_slot = s;
        Stepnet__Control m = STEPNET__CONTROL__INIT;
        Stepnet__Complete cm = STEPNET__COMPLETE__INIT;
        cm.cid = nd->ex.cid;
        cm.node = nd->id;
        cm.slot = s;
        m.msg_case = STEPNET__CONTROL__MSG_COMPLETE;
        m.complete = &cm;
        sn__node_send_ctl(nd, &m);
    }
    return 0;
}

void sn__node_send_slot(node_t *nd, uint64_t s, int packets_only)
{
    const sn_params_t *p = &nd->params;
    nd->ex.t = s;
    if (nd->ex.trace_cap)
        trace_sent(nd, s);
    sn__node_fault_before_send(nd, s);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        const sn_packet_t *pkt = nd->ex.out_has[q] ? &nd->ex.out[q] : NULL;
        if (pkt) {
            nd->ex.trace += sn_trace_event(s, l->link_id, pkt);
            nd->ex.last_send = s;
            l->sent_pkt_slot = s;
            if (pkt->kind == SN_PKT_CONTROL) {
                nd->ex.control_packets++;
                set_bit(&nd->ex.ctl_bits, &nd->ex.nctl_bits, s);
            } else {
                nd->ex.data_packets++;
                set_bit(&nd->ex.data_bits, &nd->ex.ndata_bits, s);
            }
        } else if (packets_only) {
            continue;
        }
        sn__node_send_frame(l, nd->ex.cid, s, nd->ex.radius, nd->ex.cmax, pkt, p);
    }
}

void sn__node_begin_wait(node_t *nd)
{
    begin_wait(nd, NULL);
}

static void start_run(node_t *nd, uint32_t cid, uint64_t idle, uint64_t then_cid, uint32_t off);

/* The stop slot was played and its frames are in: reports and waits for the next START, or, at
 * the end of the in-band barrier, starts the collective it precedes. */
void sn__node_finish(node_t *nd)
{
    nd->ex.running = 0;
    uv_timer_stop(&nd->ex.slot_timer);
    if (nd->ex.then_cid) {
        start_run(nd, nd->ex.then_cid, 0, 0, (uint32_t) (nd->ex.idle & 1));
        return;
    }
    if (nd->ex.idle)
        nd->ex.complete_ns = uv_hrtime();
    sn_err_t err = {0};
    if (!nd->ex.idle && sn_verify_complete(nd->ex.verify, &err) < 0) {
        sn__node_abort(nd, SN_EVERIFY, nd->ex.t, "stopped at slot %llu with deliveries missing: %s",
                       (unsigned long long) nd->ex.t, err.msg);
        return;
    }
    if (!nd->ex.idle)
        sn_log_write(&nd->log, SN_LOG_INFO, "NODE-STOP",
                     "collective %u stopped at slot %llu (%s), %llu deliveries", nd->ex.cid,
                     (unsigned long long) nd->ex.t,
                     nd->ex.quiet ? "learned stop" : "termination detected",
                     (unsigned long long) sn_verify_got(nd->ex.verify, nd->id));
    send_result(nd, NULL, 0);
    nd->ex.bytes_checked = 0;
}

void sn__node_start(node_t *nd, const Stepnet__Start *st)
{
    uint32_t cid = st->cid;
    uint64_t seed = st->seed, idle = st->has_idle_slots ? st->idle_slots : 0;
    uint64_t trace_cap = st->has_trace_slots ? st->trace_slots : 0;
    uint64_t barrier = st->has_barrier_slots ? st->barrier_slots : 0;
    uint64_t quiet = st->has_quiet_slot ? st->quiet_slot : 0;
    if (nd->ex.running) {
        sn__node_abort(nd, SN_EPROTO, nd->ex.t, "START %u while collective %u is running", cid,
                       nd->ex.cid);
        return;
    }
    for (uint32_t q = 0; q < nd->deg; q++) {
        if (nd->links[q].down) {
            sn__node_report(nd, SN_ELINK, 0, STEPNET__ABORT_KIND__ABORT_LINK, nd->links[q].peer,
                            NULL, 0,
                            "collective %u cannot start: the link to node %u (edge "
                            "%u) is down",
                            cid, nd->links[q].peer, nd->links[q].edge);
            return;
        }
    }
    if (seed != nd->params.seed) {
        sn__node_abort(nd, SN_EPROTO, 0, "START %u with seed %llu, but the run's seed is %llu", cid,
                       (unsigned long long) seed, (unsigned long long) nd->params.seed);
        return;
    }
    /* a sweep: this collective's size, announced by the previous START (frames of it may be
     * here already, checked at that size); plans do not depend on the packet size */
    uint32_t size = st->has_size ? st->size : nd->ex.next_size;
    if (size != nd->ex.next_size || size > nd->ex.max_size) {
        sn__node_abort(nd, SN_EPROTO, 0,
                       "START %u with packet size %u, but %u was announced (largest of the run %u)",
                       cid, size, nd->ex.next_size, nd->ex.max_size);
        return;
    }
    uint32_t next = st->has_next_size ? st->next_size : size;
    if (next > nd->ex.max_size) {
        sn__node_abort(nd, SN_EPROTO, 0,
                       "START %u announces packet size %u, more than the run's largest %u", cid,
                       next, nd->ex.max_size);
        return;
    }
    nd->params.size = size;
    nd->ex.next_size = next;
    /* the slot deadline's model of a frame: the coordinator's, else the frame's build alone */
    sn_deadline_model_t own = {0};
    if (!st->has_frame_us)
        nd->ex.frame_ns = sn_deadline_frame_ns(&own, size);
    else
        nd->ex.frame_ns = st->frame_us > UINT64_MAX / 1000 ? UINT64_MAX : st->frame_us * 1000;
    /* --trace: the buffers are sized by the Start's cap, bounded before anything is allocated */
    if (trace_cap > SN_WIRE_MAX_TRACE_SLOTS) {
        sn__node_abort(nd, SN_EPROTO, 0, "START %u asks to trace %llu slots (at most %u)", cid,
                       (unsigned long long) trace_cap, SN_WIRE_MAX_TRACE_SLOTS);
        return;
    }
    nd->ex.trace_want = trace_cap;
    if (barrier && (idle || cid < 2)) {
        sn__node_abort(nd, SN_EPROTO, 0,
                       "START %u with a barrier of %llu slots (accepted: before a collective of id "
                       "2 or more)",
                       cid, (unsigned long long) barrier);
        return;
    }
    if (quiet && (idle || quiet > nd->max_slots)) {
        sn__node_abort(nd, SN_EPROTO, 0,
                       "START %u with a learned stop at slot %llu (accepted: a collective, not an "
                       "idle barrier, and a slot within the limit of %llu)",
                       cid, (unsigned long long) quiet, (unsigned long long) nd->max_slots);
        return;
    }
    nd->ex.next_quiet = quiet;
    if (nd->ex.out == NULL) { /* the first collective */
        nd->ex.out = sn_xcalloc(nd->deg + 1, sizeof *nd->ex.out);
        nd->ex.out_has = sn_xcalloc(nd->deg + 1, 1);
        nd->ex.mark = sn_xcalloc(nd->deg + 1, 1);
    }
    nd->ex.mode->mode_start(nd);
    if (barrier)
        start_run(nd, cid - 1, barrier, cid, 0);
    else
        start_run(nd, cid, idle, 0, 0);
}

/* Starts collective cid (idle > 0: an idle run of that many slots, followed by collective then_cid
 * when then_cid is not 0; off: its window offset, win) and plays as far as the frames allow. */
static void start_run(node_t *nd, uint32_t cid, uint64_t idle, uint64_t then_cid, uint32_t off)
{
    sn_err_t err = {0};
    if (nd->ex.state_live && nd->algo->node_fini)
        nd->algo->node_fini(nd->state);
    memset(nd->state, 0, nd->algo->state_size ? nd->algo->state_size : 1);
    int rc = nd->algo->node_init(nd->plan, nd->id, nd->state, &err);
    if (rc < 0) {
        nd->ex.state_live = 0;
        sn__node_abort(nd, rc, 0, "initialising %s: %s", nd->algo->name, err.msg);
        return;
    }
    nd->ex.state_live = 1;
    sn_verify_free(nd->ex.verify);
    nd->ex.verify = sn_verify_new(nd->topo, &nd->params, nd->id, 1);
    nd->ex.cid = cid;
    nd->ex.last_cid = cid;
    nd->ex.then_cid = (uint32_t) then_cid;
    nd->ex.win_off = off;
    nd->ex.t = 0;
    nd->ex.wake = SN_WAKE_NEVER;
    nd->ex.stop_slot = nd->ex.done_start = nd->ex.complete_slot = 0;
    nd->ex.radius = 0;
    nd->ex.cmax = 0;
    nd->ex.was_done = nd->ex.complete_sent = 0;
    nd->ex.last_send = nd->ex.data_packets = nd->ex.control_packets = nd->ex.trace = 0;
    nd->ex.max_queue = 0;
    nd->ex.max_queue_reported = 0;
    /* bytes_checked is reset after each result: frames of this collective may arrive (and be
     * checked) before its START */
    if (nd->ex.data_bits)
        memset(nd->ex.data_bits, 0, nd->ex.ndata_bits * sizeof *nd->ex.data_bits);
    if (nd->ex.ctl_bits)
        memset(nd->ex.ctl_bits, 0, nd->ex.nctl_bits * sizeof *nd->ex.ctl_bits);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        l->sent_pkt_slot = 0;
        for (int i = 0; i < 2; i++)
            if (l->rx[i].cid != cid)
                l->rx[i].have = 0; /* frames of this collective may already be here */
    }
    /* --trace (the collective, not the in-band barrier before it): 1 + degree numbers per slot,
     * within half the budget: a node of high degree records fewer slots than asked (the
     * coordinator sees it and says the trace is truncated) */
    uint64_t fit = SN_WIRE_MAX_TRACE_VALUES / 2 / (1 + (uint64_t) nd->deg);
    uint64_t want = nd->ex.trace_want;
    nd->ex.trace_cap = idle ? 0 : want < fit ? want : fit;
    nd->ex.ntrace_sends = 0;
    if (nd->ex.trace_cap) {
        free(nd->ex.trace_slots);
        nd->ex.trace_slots =
            sn_xcalloc((size_t) (nd->ex.trace_cap * (1 + nd->deg)), sizeof(uint64_t));
        nd->ex.trace_t0 = uv_hrtime();
    }
    nd->ex.idle = idle;
    nd->ex.quiet = idle ? 0 : nd->ex.next_quiet;
    if (idle) {
        nd->ex.stop_slot = idle;
        nd->ex.complete_sent = 1;
        if (!then_cid) { /* a benchmark's idle barrier: nothing to deliver, complete at once */
            Stepnet__Control m = STEPNET__CONTROL__INIT;
            Stepnet__Complete cm = STEPNET__COMPLETE__INIT;
            cm.cid = cid;
            cm.node = nd->id;
            cm.slot = 0;
            m.msg_case = STEPNET__CONTROL__MSG_COMPLETE;
            m.complete = &cm;
            sn__node_send_ctl(nd, &m);
        }
    }
    nd->ex.running = 1;
    nd->ex.complete_ns = 0;
    nd->ex.start_ns = uv_hrtime();
    /* an idle run is the slot barrier's in every mode */
    nd->ex.run = idle ? &sn__node_mode_slot : nd->ex.mode;
    begin_wait(nd, on_slot_timer);
    nd->ex.run->mode_begin(nd);
}

/* ---- frames on links ----------------------------------------------------------------------- */

/* Checks payload bytes [off, off + n) of the data frame d (whole, or one piece of a frame
 * streamed in pieces); reports and returns -1 if they differ from the packet's. */
int sn__node_data_check(link_t *l, const sn_wire_data_t *d, const uint8_t *p, uint32_t off,
                        uint32_t n)
{
    node_t *nd = l->nd;
    const sn_params_t *prm = &nd->params;
    if (!d->has_packet || d->pkt.kind != SN_PKT_DATA || n == 0)
        return 0;
    /* a combining packet's bytes derive from the value in its header, which the value check
     * at delivery (sn_verify_delivery) then judges; other data packets from their identity */
    if (d->pkt.src == SN_SRC_COMBINED && sn_coll_is_combining(prm->coll)) {
        if (sn_payload_check_value_at(prm->op, d->pkt.digest, off, p, n) < 0) {
            sn__node_report(nd, SN_EVERIFY, d->slot, STEPNET__ABORT_KIND__ABORT_CORRUPT, l->peer,
                            NULL, 0,
                            "slot %llu: corrupt payload from node %u (edge %u): combined packet "
                            "for %u seq %u differs from the bytes of its value",
                            (unsigned long long) d->slot, l->peer, l->edge, d->pkt.dst, d->pkt.seq);
            return -1;
        }
    } else if (sn_payload_check_at(prm->seed, d->pkt.src, d->pkt.dst, d->pkt.seq, d->pkt.frag, off,
                                   p, n) < 0) {
        sn__node_report(nd, SN_EVERIFY, d->slot, STEPNET__ABORT_KIND__ABORT_CORRUPT, l->peer, NULL,
                        0,
                        "slot %llu: corrupt payload from node %u (edge %u): packet src %u dst %d "
                        "seq %u differs from its expected bytes",
                        (unsigned long long) d->slot, l->peer, l->edge, d->pkt.src,
                        d->pkt.dst == SN_NODE_ALL ? -1 : (int) d->pkt.dst, d->pkt.seq);
        return -1;
    }
    nd->ex.bytes_checked += n;
    return 0;
}

uint32_t sn__node_frame_size(const node_t *nd)
{
    /* between collectives, a frame can only be of the next one: checked at its size */
    return nd->ex.running ? nd->params.size : nd->ex.next_size;
}

/* Reports a data frame that cannot be parsed. */
void sn__node_data_malformed(link_t *l, const char *msg)
{
    node_t *nd = l->nd;
    sn_log_write(&nd->log, SN_LOG_ERROR, "LINK-PROTO", "edge %u (node %u): %s", l->edge, l->peer,
                 msg);
    sn__node_report(nd, SN_EPROTO, nd->ex.t, STEPNET__ABORT_KIND__ABORT_PROTO, l->peer, NULL, 0,
                    "protocol error on the link to node %u (edge %u) at slot %llu: %s", l->peer,
                    l->edge, (unsigned long long) nd->ex.t, msg);
}

/* A data frame whose payload has been checked: the execution mode takes it (a copy: the digest
 * is written into it, not into the caller's). */
void sn__node_data_accept(link_t *l, sn_wire_data_t *dp)
{
    sn_wire_data_t d = *dp;
    l->nd->ex.mode->mode_frame(l, &d);
}

void sn__node_on_data(link_t *l, const uint8_t *body, size_t len)
{
    sn_wire_data_t d;
    sn_err_t err = {0};
    if (sn_wire_parse_data(body, len, sn__node_frame_size(l->nd), &d, &err) < 0) {
        sn__node_data_malformed(l, err.msg);
        return;
    }
    if (sn__node_data_check(l, &d, d.payload, 0, d.payload_len) < 0)
        return;
    sn__node_data_accept(l, &d);
}

/* ---- the execution modes ------------------------------------------------------------------- */

/* The table of the modes, indexed by sn_sync_t, from the one list (SN_SYNC_MAP,
 * include/stepnet/sync.h): mode NAME's operations are sn__node_mode_NAME, in node/mode_NAME.c. */
static const sn_node_mode_ops_t *const modes[] = {
#define SN_SYNC_NODE(e, name, wire, lockstep, rxplan, what) [SN_SYNC_##e] = &sn__node_mode_##name,
    SN_SYNC_MAP(SN_SYNC_NODE)
#undef SN_SYNC_NODE
};

const sn_node_mode_ops_t *sn__node_mode(sn_sync_t s)
{
    return (unsigned) s < SN_SYNC_COUNT ? modes[s] : NULL;
}
