/* stepnet-node runtime (node/): control channel, links, calibration and the slot executor.
 *
 * Slot barrier (an alpha-synchronizer, DESIGN.md section 2): in every slot the node sends exactly
 * one data frame on every link (empty when it has no packet there) and plays slot t+1 once it holds
 * the slot-t frame of every link; neighbours are never more than one slot apart, so each link keeps
 * a window of two frames. The algorithm state machine is called exactly as core/sim calls it (slot
 * 1, then on arrivals or at its wake slot) and the same port-model and delivery checks apply.
 *
 * Termination (no per-slot round trip): a node is *done* in slot s when it holds all its
 * deliveries, asked for no wake and sent nothing. Every frame carries the sender's radius R (all
 * nodes within R-1 hops were done, R = 0 if the sender is not) and the latest done-start slot M it
 * knows. R(s) = done(s) ? 1 + min over links R_link(s-1) : 0 and M(s) = max(own done start,
 * M_link(s-1)). Once R reaches D+1 (D = diameter) every delivery in the network is complete and M
 * is the global last done start G; every node learns this by slot G + D, so all stop after slot G +
 * D + 1 without talking to the coordinator. */
#define _GNU_SOURCE /* gethostname, prctl */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "conn.h"
#include "node.h"
#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"
#include "wire.h"

typedef struct node_s node_t;
typedef struct link_s link_t;

/* A connection and what it belongs to: the control channel, a link, or an inbound connection
 * that has not said which link it is yet. */
typedef struct lconn_s {
    sn_conn_t c;
    node_t *nd;
    link_t *link; /* NULL until the hello binds it */
    size_t index; /* in node->conns */
    /* a hello received before the assignment, processed after it */
    int have_hello;
    Stepnet__LinkHello hello;
} lconn_t;

typedef struct rxframe_s {
    int have;
    uint32_t cid;
    uint64_t slot;
    int has_pkt;
    sn_packet_t pkt;
    uint32_t radius;
    uint64_t cmax;
} rxframe_t;

struct link_s {
    node_t *nd;
    uint32_t port, edge, peer, link_id;
    int dialer; /* this node dials (it is the edge's smaller id) */
    lconn_t *lc;
    int up, down;
    /* dialling */
    char host[64];
    int tcp_port;
    uv_connect_t creq;
    uv_timer_t retry;
    uint32_t backoff_ms;
    lconn_t *dialling;
    /* the two-frame window */
    rxframe_t rx[2];
    uint64_t sent_pkt_slot; /* last slot we sent a packet here (half duplex check) */
    /* calibration (dialler side) */
    uint32_t probe, probes, probe_bytes;
    uint64_t probe_t0;
    uint64_t *rtt0, *rtt;
    int calibrated;
};

struct node_s {
    uv_loop_t *loop;
    sn_node_opts_t opts;
    sn_conn_sec_cfg_t sec; /* every connection's security */
    lconn_t **conns;       /* every connection (control, links, inbound), for shutdown */
    size_t nconns, capconns;
    lconn_t *ctl;
    int ctl_up;
    uv_connect_t ctl_req;
    uv_timer_t ctl_retry;
    uint64_t ctl_deadline;
    uint32_t ctl_backoff;
    char coord_host[64];
    int coord_port;
    uv_tcp_t listener;
    char data_host[64];
    int data_port;
    uv_signal_t sigterm;
    /* assignment */
    int assigned;
    uint32_t id;
    uint64_t token;
    sn_topo_t *topo;
    sn_params_t params;
    uint32_t *sources;
    const sn_algo_t *algo;
    void *plan;
    void *state;
    uint32_t deg, diameter;
    link_t *links;
    uint32_t links_up;
    uint32_t connect_ms, slot_ms, collective_ms;
    uint64_t max_slots;
    char fault[32];
    uint64_t fault_slot;
    lconn_t **pending;
    size_t npending, cappending;
    int ready_sent;
    /* calibration */
    uint32_t cal_left;
    /* the collective */
    int running, state_live;
    uint32_t cid, last_cid;
    uint64_t t;    /* the slot whose frames were sent last */
    uint64_t wake; /* the algorithm's wake slot */
    uint64_t stop_slot, done_start, complete_slot;
    uint64_t idle; /* benchmark: a pure barrier of this many empty slots (0: the collective) */
    uint32_t radius;
    uint64_t cmax;
    int was_done, complete_sent;
    sn_verify_t *verify;
    sn_step_t io;
    sn_msg_t *rx;
    size_t rxcap;
    sn_packet_t *out; /* [deg] packet to send per port this slot */
    uint8_t *out_has; /* [deg] */
    uint64_t last_send, data_packets, control_packets, trace, bytes_checked;
    uint64_t *data_bits, *ctl_bits;
    size_t ndata_bits, nctl_bits;
    uv_timer_t slot_timer;
    /* shutdown */
    int exit_code, stopping;
    uv_timer_t exit_timer;
    int exit_timer_live, links_timers_live;
};

/* ---- logging --------------------------------------------------------------------------------- */

static void nlog(const node_t *nd, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void nlog(const node_t *nd, const char *event, const char *fmt, ...)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (nd->assigned)
        fprintf(stderr, "%02d:%02d:%02d.%06ld node %u %s %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
                (long) tv.tv_usec, nd->id, event, msg);
    else
        fprintf(stderr, "%02d:%02d:%02d.%06ld node ? %s %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
                (long) tv.tv_usec, event, msg);
}

/* ---- shutdown ------------------------------------------------------------------------------- */

static void lconn_close(lconn_t *lc);

static void close_if_open(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

/* Leaves the loop: closes every connection and handle; sn_node_main returns `code`. */
static void node_exit(node_t *nd, int code)
{
    if (nd->stopping)
        return;
    nd->stopping = 1;
    nd->exit_code = code;
    nd->ctl_up = 0;
    while (nd->nconns > 0) {
        lconn_t *lc = nd->conns[nd->nconns - 1];
        nd->nconns--; /* lconn_close must not find it again */
        lc->index = SIZE_MAX;
        lconn_close(lc);
    }
    close_if_open((uv_handle_t *) &nd->listener);
    close_if_open((uv_handle_t *) &nd->ctl_retry);
    close_if_open((uv_handle_t *) &nd->slot_timer);
    close_if_open((uv_handle_t *) &nd->sigterm);
    if (nd->exit_timer_live)
        close_if_open((uv_handle_t *) &nd->exit_timer);
    for (uint32_t q = 0; nd->links_timers_live && q < nd->deg; q++)
        close_if_open((uv_handle_t *) &nd->links[q].retry);
}

static void on_exit_timer(uv_timer_t *t)
{
    node_t *nd = t->data;
    nlog(nd, "NODE-EXIT", "the coordinator did not answer the abort; exiting");
    node_exit(nd, 1);
}

static void send_ctl(node_t *nd, const Stepnet__Control *m)
{
    if (nd->ctl_up && nd->ctl)
        sn_wire_send_control(&nd->ctl->c, m);
}

/* What a failure report blames (Abort.kind in proto/stepnet.proto). */
enum { BLAME_SELF = 1, BLAME_LINK = 2, BLAME_PROTO = 3, BLAME_DEADLINE = 4, BLAME_CORRUPT = 5 };

/* A failure of the running collective (or of the set-up): tells the coordinator what it saw
 * (kind, the peer it blames, the silent neighbours of a deadline), closes the links (so that
 * neighbours stop waiting), and waits for the coordinator to end the run. */
static void node_report(node_t *nd, int code, uint64_t slot, int kind, int64_t peer,
                        const uint32_t *missing, size_t nmissing, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

#define node_abort(nd, code, slot, ...)                                                            \
    node_report((nd), (code), (slot), BLAME_SELF, -1, NULL, 0, __VA_ARGS__)

static void node_report(node_t *nd, int code, uint64_t slot, int kind, int64_t peer,
                        const uint32_t *missing, size_t nmissing, const char *fmt, ...)
{
    if (nd->stopping || nd->exit_code)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nlog(nd, "NODE-ABORT", "%s: %s", sn_err_name(code), msg);
    nd->exit_code = 1;
    nd->running = 0;
    if (nd->slot_timer.data)
        uv_timer_stop(&nd->slot_timer);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Abort ab = STEPNET__ABORT__INIT;
    ab.reason = msg;
    ab.has_node = nd->assigned;
    ab.node = nd->id;
    ab.has_slot = slot != 0;
    ab.slot = slot;
    ab.has_kind = 1;
    ab.kind = (uint32_t) kind;
    ab.has_peer = peer >= 0;
    ab.peer = (uint32_t) (peer >= 0 ? peer : 0);
    ab.n_missing = nmissing;
    ab.missing = (uint32_t *) missing;
    m.msg_case = STEPNET__CONTROL__MSG_ABORT;
    m.abort = &ab;
    send_ctl(nd, &m);
    /* Close the links so that neighbours fail now rather than at their slot deadline; but not
     * after a deadline of our own: every stalled node fires its deadline at about the same
     * time, and each must report the neighbours it waited for (the silent one among them is the
     * root cause), not a link we closed. */
    for (uint32_t p = 0; kind != BLAME_DEADLINE && p < nd->deg; p++)
        if (nd->links[p].lc)
            lconn_close(nd->links[p].lc);
    if (!nd->ctl_up) {
        node_exit(nd, 1);
        return;
    }
    uv_timer_init(nd->loop, &nd->exit_timer);
    nd->exit_timer_live = 1;
    nd->exit_timer.data = nd;
    uv_timer_start(&nd->exit_timer, on_exit_timer, 5000, 0);
}

/* ---- the slot executor ------------------------------------------------------------------------
 */

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
    r.cid = nd->cid;
    r.node = nd->id;
    r.last_send_slot = nd->last_send;
    r.data_packets = nd->data_packets;
    r.control_packets = nd->control_packets;
    r.deliveries = sn_verify_got(nd->verify, nd->id);
    r.expected = sn_verify_expected(nd->verify, nd->id);
    r.digest_sum = sn_verify_digest_sum(nd->verify, nd->id);
    r.trace_hash = nd->trace;
    r.stop_slot = nd->t;
    r.bytes_checked = nd->bytes_checked;
    size_t words = (size_t) ((nd->t + 63) / 64);
    r.n_data_slots = nd->ndata_bits < words ? nd->ndata_bits : words;
    r.data_slots = nd->data_bits;
    r.n_control_slots = nd->nctl_bits < words ? nd->nctl_bits : words;
    r.control_slots = nd->ctl_bits;
    r.error = (char *) error;
    r.has_error_slot = error != NULL;
    r.error_slot = error_slot;
    m.msg_case = STEPNET__CONTROL__MSG_RESULT;
    m.result = &r;
    send_ctl(nd, &m);
}

static void on_slot_timer(uv_timer_t *t)
{
    node_t *nd = t->data;
    char missing[256] = "";
    size_t len = 0;
    uint32_t *ids = sn_xcalloc(nd->deg + 1, sizeof *ids), nids = 0;
    for (uint32_t p = 0; p < nd->deg; p++) {
        rxframe_t *f = &nd->links[p].rx[nd->t & 1];
        if (f->have && f->slot == nd->t && f->cid == nd->cid)
            continue;
        ids[nids++] = nd->links[p].peer;
        if (len < sizeof missing - 40)
            len += (size_t) snprintf(missing + len, sizeof missing - len, "%snode %u (edge %u)",
                                     len ? ", " : "", nd->links[p].peer, nd->links[p].edge);
    }
    node_report(nd, SN_ETIMEOUT, nd->t, BLAME_DEADLINE, nids ? (int64_t) ids[0] : -1, ids, nids,
                "slot deadline (%u ms) at slot %llu: no frame from %s", nd->slot_ms,
                (unsigned long long) nd->t, missing);
    free(ids);
}

static void inject_fault(node_t *nd, uint64_t slot)
{
    if (nd->fault[0] == '\0' || slot != nd->fault_slot)
        return;
    nlog(nd, "NODE-FAULT", "injecting %s at slot %llu", nd->fault, (unsigned long long) slot);
    if (strncmp(nd->fault, "kill", 4) == 0) {
        raise(SIGKILL);
    } else if (strncmp(nd->fault, "stop", 4) == 0) {
        raise(SIGSTOP);
    } else if (strncmp(nd->fault, "garbage", 7) == 0 && nd->deg > 0) {
        /* a frame whose type and body make no sense */
        uint8_t *b = sn_conn_frame(&nd->links[0].lc->c, SN_FRAME_DATA, 16);
        memset(b, 0xa5, 16);
        sn_conn_send(&nd->links[0].lc->c, b);
    } else if (strncmp(nd->fault, "oversize", 8) == 0 && nd->deg > 0) {
        /* a header announcing a body far larger than any data frame may be */
        nd->links[0].lc->c.fault_next = SN_CONN_FAULT_OVERSIZE;
        uint8_t *b = sn_conn_frame(&nd->links[0].lc->c, SN_FRAME_DATA, 0);
        sn_conn_send(&nd->links[0].lc->c, b);
    } else if (strncmp(nd->fault, "flip", 4) == 0 && nd->deg > 0) {
        /* one bit of the next frame on link 0 flipped on the wire, after sealing */
        nd->links[0].lc->c.fault_next = SN_CONN_FAULT_FLIP;
    }
}

static void finish(node_t *nd);

/* Plays slot s: the arrivals of slot s-1, the step, the checks, the frames of slot s. */
static void play(node_t *nd, uint64_t s)
{
    const sn_topo_t *t = nd->topo;
    const sn_params_t *p = &nd->params;
    sn_step_t *io = &nd->io;
    char b1[SN_TOPO_MAX_LABEL];
    size_t nrx = 0;
    uint32_t min_r = UINT32_MAX;
    uint64_t max_m = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (s == 1) {
            min_r = 0;
            continue;
        }
        rxframe_t *f = &l->rx[(s - 1) & 1];
        f->have = 0;
        if (f->radius < min_r)
            min_r = f->radius;
        if (f->cmax > max_m)
            max_m = f->cmax;
        if (!f->has_pkt)
            continue;
        if (p->pm.duplex == SN_DUPLEX_HALF && l->sent_pkt_slot == s - 1) {
            node_abort(nd, SN_EPORT, s - 1,
                       "slot %llu: edge %s-%u (edge %u) carries packets both ways; half duplex "
                       "allows one packet per edge per slot",
                       (unsigned long long) (s - 1), sn_topo_label(t, nd->id, b1, sizeof b1),
                       l->peer, l->edge);
            return;
        }
        if (nrx == nd->rxcap)
            sn_grow((void **) &nd->rx, &nd->rxcap, nrx + 1, sizeof *nd->rx);
        nd->rx[nrx].pkt = f->pkt;
        nd->rx[nrx].port = q;
        nrx++;
    }
    if (p->pm.ports == SN_PORTS_SINGLE && p->pm.rx == SN_RX_ONE && nrx > 1) {
        node_abort(nd, SN_EPORT, s - 1,
                   "slot %llu: node %s receives two packets (links %u and %u); single-port with "
                   "--rx one allows one per slot",
                   (unsigned long long) (s - 1), sn_topo_label(t, nd->id, b1, sizeof b1),
                   nd->links[nd->rx[0].port].link_id, nd->links[nd->rx[1].port].link_id);
        return;
    }
    memset(nd->out_has, 0, nd->deg);
    size_t ntx = 0;
    if (nd->idle) { /* the idle barrier: empty frames only */
        nd->t = s;
        for (uint32_t q = 0; q < nd->deg; q++)
            sn_wire_send_data(&nd->links[q].lc->c, nd->cid, s, 0, 0, NULL, p->seed, p->size);
        uv_timer_again(&nd->slot_timer);
        return;
    }
    if (s == 1 || nrx > 0 || nd->wake == s) {
        sn_err_t err = {0};
        io->slot = s;
        io->rx = nd->rx;
        io->nrx = nrx;
        io->ntx = io->ndlv = 0;
        io->wake = SN_WAKE_NEVER;
        int rc = nd->algo->node_step(nd->state, io, &err);
        if (rc < 0) {
            node_abort(nd, rc, s, "slot %llu: node %s: %s", (unsigned long long) s,
                       sn_topo_label(t, nd->id, b1, sizeof b1), err.msg);
            return;
        }
        for (size_t i = 0; i < io->ndlv; i++) {
            if ((rc = sn_verify_delivery(nd->verify, nd->id, s, &io->dlv[i], &err)) < 0) {
                node_abort(nd, rc, s, "%s", err.msg);
                return;
            }
        }
        if (p->pm.ports == SN_PORTS_SINGLE && io->ntx > 1) {
            node_abort(nd, SN_EPORT, s,
                       "slot %llu: node %s sent %zu packets (ports %u and %u); single-port allows "
                       "one per slot",
                       (unsigned long long) s, sn_topo_label(t, nd->id, b1, sizeof b1), io->ntx,
                       io->tx[0].port, io->tx[1].port);
            return;
        }
        for (size_t i = 0; i < io->ntx; i++) {
            uint32_t port = io->tx[i].port;
            if (port >= nd->deg) {
                node_abort(nd, SN_EALGO, s, "slot %llu: node %s sent on port %u but has %u ports",
                           (unsigned long long) s, sn_topo_label(t, nd->id, b1, sizeof b1), port,
                           nd->deg);
                return;
            }
            if (nd->out_has[port]) {
                node_abort(nd, SN_EPORT, s,
                           "slot %llu: node %s sent two packets on port %u (link %u); a link "
                           "carries one packet per slot",
                           (unsigned long long) s, sn_topo_label(t, nd->id, b1, sizeof b1), port,
                           nd->links[port].link_id);
                return;
            }
            nd->out_has[port] = 1;
            nd->out[port] = io->tx[i].pkt;
        }
        ntx = io->ntx;
        nd->wake = io->wake;
    }
    /* termination state of this slot */
    uint64_t got = sn_verify_got(nd->verify, nd->id);
    int complete = got == sn_verify_expected(nd->verify, nd->id);
    if (complete && !nd->complete_sent) {
        nd->complete_sent = 1;
        nd->complete_slot = s;
        Stepnet__Control m = STEPNET__CONTROL__INIT;
        Stepnet__Complete cm = STEPNET__COMPLETE__INIT;
        cm.cid = nd->cid;
        cm.node = nd->id;
        cm.slot = s;
        m.msg_case = STEPNET__CONTROL__MSG_COMPLETE;
        m.complete = &cm;
        send_ctl(nd, &m);
    }
    int done = complete && nd->wake == SN_WAKE_NEVER && ntx == 0;
    if (done && !nd->was_done)
        nd->done_start = s;
    nd->was_done = done;
    uint32_t cap = nd->diameter + 1;
    nd->radius = done ? (min_r + 1 > cap ? cap : min_r + 1) : 0;
    nd->cmax = max_m > (done ? nd->done_start : 0) ? max_m : (done ? nd->done_start : 0);
    if (nd->radius >= cap && nd->stop_slot == 0) {
        nd->stop_slot = nd->cmax + nd->diameter + 1;
        if (nd->stop_slot <= s) {
            node_abort(nd, SN_EALGO, s,
                       "termination: stop slot %llu already passed at slot %llu (traffic after "
                       "completion?)",
                       (unsigned long long) nd->stop_slot, (unsigned long long) s);
            return;
        }
    }
    /* the frames of slot s */
    nd->t = s;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        const sn_packet_t *pkt = nd->out_has[q] ? &nd->out[q] : NULL;
        if (pkt) {
            nd->trace += sn_trace_event(s, l->link_id, pkt);
            nd->last_send = s;
            l->sent_pkt_slot = s;
            if (pkt->kind == SN_PKT_CONTROL) {
                nd->control_packets++;
                set_bit(&nd->ctl_bits, &nd->nctl_bits, s);
            } else {
                nd->data_packets++;
                set_bit(&nd->data_bits, &nd->ndata_bits, s);
            }
        }
        sn_wire_send_data(&l->lc->c, nd->cid, s, nd->radius, nd->cmax, pkt, p->seed, p->size);
    }
    inject_fault(nd, s);
    uv_timer_again(&nd->slot_timer);
}

/* Plays slots as long as every link holds the frame of the current slot. */
static void advance(node_t *nd)
{
    while (nd->running) {
        for (uint32_t q = 0; q < nd->deg; q++) {
            rxframe_t *f = &nd->links[q].rx[nd->t & 1];
            if (!f->have || f->slot != nd->t || f->cid != nd->cid)
                return;
        }
        if (nd->t == nd->stop_slot) {
            finish(nd);
            return;
        }
        if (!nd->idle && nd->t >= nd->max_slots) {
            node_abort(nd, SN_ESLOTS, nd->t, "no termination after %llu slots (the limit)",
                       (unsigned long long) nd->max_slots);
            return;
        }
        play(nd, nd->t + 1);
    }
}

/* The stop slot was played and its frames are in: reports and waits for the next START. */
static void finish(node_t *nd)
{
    nd->running = 0;
    uv_timer_stop(&nd->slot_timer);
    sn_err_t err = {0};
    if (!nd->idle && sn_verify_complete(nd->verify, &err) < 0) {
        node_abort(nd, SN_EVERIFY, nd->t, "stopped at slot %llu with deliveries missing: %s",
                   (unsigned long long) nd->t, err.msg);
        return;
    }
    send_result(nd, NULL, 0);
    nd->bytes_checked = 0;
}

static void start_collective(node_t *nd, uint32_t cid, uint64_t seed, uint64_t idle)
{
    sn_err_t err = {0};
    if (nd->running) {
        node_abort(nd, SN_EPROTO, nd->t, "START %u while collective %u is running", cid, nd->cid);
        return;
    }
    for (uint32_t q = 0; q < nd->deg; q++) {
        if (nd->links[q].down) {
            node_report(nd, SN_ELINK, 0, BLAME_LINK, nd->links[q].peer, NULL, 0,
                        "collective %u cannot start: the link to node %u (edge "
                        "%u) is down",
                        cid, nd->links[q].peer, nd->links[q].edge);
            return;
        }
    }
    if (nd->state_live && nd->algo->node_fini)
        nd->algo->node_fini(nd->state);
    memset(nd->state, 0, nd->algo->state_size ? nd->algo->state_size : 1);
    if (seed != nd->params.seed) {
        node_abort(nd, SN_EPROTO, 0, "START %u with seed %llu, but the run's seed is %llu", cid,
                   (unsigned long long) seed, (unsigned long long) nd->params.seed);
        return;
    }
    int rc = nd->algo->node_init(nd->plan, nd->id, nd->state, &err);
    if (rc < 0) {
        nd->state_live = 0;
        node_abort(nd, rc, 0, "initialising %s: %s", nd->algo->name, err.msg);
        return;
    }
    nd->state_live = 1;
    sn_verify_free(nd->verify);
    nd->verify = sn_verify_new(nd->topo, &nd->params, nd->id, 1);
    nd->cid = cid;
    nd->last_cid = cid;
    nd->t = 0;
    nd->wake = SN_WAKE_NEVER;
    nd->stop_slot = nd->done_start = nd->complete_slot = 0;
    nd->radius = 0;
    nd->cmax = 0;
    nd->was_done = nd->complete_sent = 0;
    nd->last_send = nd->data_packets = nd->control_packets = nd->trace = 0;
    /* bytes_checked is reset after each result: frames of this collective may arrive (and be
     * checked) before its START */
    if (nd->data_bits)
        memset(nd->data_bits, 0, nd->ndata_bits * sizeof *nd->data_bits);
    if (nd->ctl_bits)
        memset(nd->ctl_bits, 0, nd->nctl_bits * sizeof *nd->ctl_bits);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        l->sent_pkt_slot = 0;
        for (int i = 0; i < 2; i++)
            if (l->rx[i].cid != cid)
                l->rx[i].have = 0; /* frames of this collective may already be here */
    }
    nd->idle = idle;
    if (idle) {
        nd->stop_slot = idle;
        Stepnet__Control m = STEPNET__CONTROL__INIT; /* nothing to deliver: complete at once */
        Stepnet__Complete cm = STEPNET__COMPLETE__INIT;
        cm.cid = cid;
        cm.node = nd->id;
        cm.slot = 0;
        m.msg_case = STEPNET__CONTROL__MSG_COMPLETE;
        m.complete = &cm;
        send_ctl(nd, &m);
        nd->complete_sent = 1;
    }
    nd->running = 1;
    uv_timer_start(&nd->slot_timer, on_slot_timer, nd->slot_ms, nd->slot_ms);
    play(nd, 1);
    advance(nd);
}

/* ---- frames on links ----------------------------------------------------------------------- */

static void on_data(link_t *l, const uint8_t *body, size_t len)
{
    node_t *nd = l->nd;
    const sn_params_t *p = &nd->params;
    sn_wire_data_t d;
    const char *what = NULL;
    if (sn_wire_parse_data(body, len, p->size, &d, &what) < 0) {
        nlog(nd, "LINK-PROTO", "edge %u (node %u): %s", l->edge, l->peer, what);
        node_report(nd, SN_EPROTO, nd->t, BLAME_PROTO, l->peer, NULL, 0,
                    "protocol error on the link to node %u (edge %u) at slot %llu: %s", l->peer,
                    l->edge, (unsigned long long) nd->t, what);
        return;
    }
    /* the frame must belong to the running collective (or be the first frame of the next one,
     * sent by a neighbour that got its START first), and to slot t or t+1 */
    int ok;
    if (nd->running)
        ok = d.cid == nd->cid && (d.slot == nd->t || d.slot == nd->t + 1);
    else
        ok = d.cid == nd->last_cid + 1 && d.slot == 1;
    rxframe_t *f = &l->rx[d.slot & 1];
    if (!ok || (f->have && f->cid == d.cid && f->slot == d.slot)) {
        node_report(nd, SN_EPROTO, nd->t, BLAME_PROTO, l->peer, NULL, 0,
                    "protocol error on the link to node %u (edge %u): frame for collective %u "
                    "slot %llu %s at collective %u slot %llu",
                    l->peer, l->edge, d.cid, (unsigned long long) d.slot,
                    ok ? "repeated" : "unexpected", nd->cid, (unsigned long long) nd->t);
        return;
    }
    if (d.has_packet && d.pkt.kind == SN_PKT_DATA) {
        if (sn_payload_check(p->seed, d.pkt.src, d.pkt.dst, d.pkt.seq, d.pkt.frag, d.payload,
                             d.payload_len) < 0) {
            node_report(nd, SN_EVERIFY, d.slot, BLAME_CORRUPT, l->peer, NULL, 0,
                        "slot %llu: corrupt payload from node %u (edge %u): packet src %u dst %d "
                        "seq %u differs from its expected bytes",
                        (unsigned long long) d.slot, l->peer, l->edge, d.pkt.src,
                        d.pkt.dst == SN_NODE_ALL ? -1 : (int) d.pkt.dst, d.pkt.seq);
            return;
        }
        d.pkt.digest =
            sn_payload_digest(p->seed, d.pkt.src, d.pkt.dst, d.pkt.seq, d.pkt.frag, p->size);
        nd->bytes_checked += d.payload_len;
    }
    f->have = 1;
    f->cid = d.cid;
    f->slot = d.slot;
    f->has_pkt = d.has_packet;
    f->pkt = d.pkt;
    f->radius = d.radius;
    f->cmax = d.cmax;
    if (nd->running && d.slot == nd->t)
        advance(nd);
}

/* ---- calibration ---------------------------------------------------------------------------- */

static void send_ping(link_t *l)
{
    uint32_t bytes = l->probe < l->probes ? 0 : l->probe_bytes;
    uint8_t *b = sn_conn_frame(&l->lc->c, SN_FRAME_PING, 8 + bytes);
    uint64_t seq = l->probe;
    memcpy(b, &seq, 8);
    memset(b + 8, 0x5a, bytes);
    l->probe_t0 = uv_hrtime();
    sn_conn_send(&l->lc->c, b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : (x > y);
}

static void calibration_done(node_t *nd)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Calibrated cal = STEPNET__CALIBRATED__INIT;
    Stepnet__LinkTiming *lt = sn_xcalloc(nd->deg + 1, sizeof *lt);
    Stepnet__LinkTiming **ptrs = sn_xcalloc(nd->deg + 1, sizeof *ptrs);
    size_t k = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (!l->dialer || l->probes == 0)
            continue;
        qsort(l->rtt0, l->probes, sizeof *l->rtt0, cmp_u64);
        qsort(l->rtt, l->probes, sizeof *l->rtt, cmp_u64);
        stepnet__link_timing__init(&lt[k]);
        lt[k].edge = l->edge;
        lt[k].rtt0_ns = l->rtt0[l->probes / 2];
        lt[k].rtt_ns = l->rtt[l->probes / 2];
        lt[k].bytes = l->probe_bytes;
        ptrs[k] = &lt[k];
        k++;
    }
    cal.node = nd->id;
    cal.n_links = k;
    cal.links = ptrs;
    m.msg_case = STEPNET__CONTROL__MSG_CALIBRATED;
    m.calibrated = &cal;
    send_ctl(nd, &m);
    free(lt);
    free(ptrs);
}

static void on_pong(link_t *l)
{
    uint64_t rtt = uv_hrtime() - l->probe_t0;
    if (l->probe < l->probes)
        l->rtt0[l->probe] = rtt;
    else
        l->rtt[l->probe - l->probes] = rtt;
    if (++l->probe < 2 * l->probes) {
        send_ping(l);
        return;
    }
    l->calibrated = 1;
    if (--l->nd->cal_left == 0)
        calibration_done(l->nd);
}

static void start_calibration(node_t *nd, uint32_t bytes, uint32_t probes)
{
    if (probes > 1000)
        probes = 1000;
    nd->cal_left = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (!l->dialer)
            continue;
        free(l->rtt0);
        free(l->rtt);
        l->probes = probes;
        l->probe_bytes = bytes;
        l->probe = 0;
        l->rtt0 = sn_xcalloc(probes + 1, sizeof *l->rtt0);
        l->rtt = sn_xcalloc(probes + 1, sizeof *l->rtt);
        if (probes > 0) {
            nd->cal_left++;
            send_ping(l);
        }
    }
    if (nd->cal_left == 0)
        calibration_done(nd);
}

/* ---- link connections ----------------------------------------------------------------------- */

static void check_ready(node_t *nd)
{
    if (nd->ready_sent || nd->links_up < nd->deg)
        return;
    nd->ready_sent = 1;
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Ready r = STEPNET__READY__INIT;
    r.node = nd->id;
    m.msg_case = STEPNET__CONTROL__MSG_READY;
    m.ready = &r;
    send_ctl(nd, &m);
    printf("READY id=%u port=%d\n", nd->id, nd->data_port);
    fflush(stdout);
    if (!nd->opts.quiet)
        nlog(nd, "NODE-READY", "%u links up", nd->deg);
}

static void link_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len);
static void link_on_error(sn_conn_t *c, int status, const char *what);
static void link_on_closed(sn_conn_t *c);

static const sn_conn_ops_t link_ops = {link_on_frame, link_on_error, link_on_closed};

static void bind_link(link_t *l, lconn_t *lc)
{
    lc->link = l;
    l->lc = lc;
    l->up = 1;
    sn_wire_limits_link(&lc->c, l->nd->params.size, 0);
    snprintf(lc->c.name, sizeof lc->c.name, "edge %u (node %u)", l->edge, l->peer);
    l->nd->links_up++;
    check_ready(l->nd);
}

/* The connection's handles are closed: forget and free it. */
static void lconn_free(lconn_t *lc)
{
    node_t *nd = lc->nd;
    if (lc->index != SIZE_MAX && lc->index < nd->nconns && nd->conns[lc->index] == lc) {
        nd->conns[lc->index] = nd->conns[--nd->nconns];
        nd->conns[lc->index]->index = lc->index;
    }
    free(lc);
}

/* Closes a connection; it is freed in its on_closed callback. */
static void lconn_close(lconn_t *lc)
{
    sn_conn_close(&lc->c);
}

/* Validates a link hello on an inbound connection and binds it to its link, or refuses it. */
static void accept_hello(node_t *nd, lconn_t *lc, const Stepnet__LinkHello *h)
{
    const char *why = NULL;
    link_t *l = NULL;
    if (h->version != SN_WIRE_VERSION)
        why = "protocol version differs";
    else if (h->token != nd->token)
        why = "run token differs (a connection from another run or an unknown peer)";
    else if (h->edge >= nd->topo->nedges)
        why = "no such edge";
    else if (nd->topo->edges[h->edge].b != nd->id || nd->topo->edges[h->edge].a != h->from)
        why = "that edge does not join the dialler to this node";
    else {
        l = &nd->links[nd->topo->edges[h->edge].pb];
        if (l->lc)
            why = "a second connection for a link that is already up";
    }
    if (why) {
        nlog(nd, "LINK-REFUSED", "connection from %s claiming edge %u from node %u: %s", lc->c.peer,
             h->edge, h->from, why);
        lconn_close(lc);
        return;
    }
    bind_link(l, lc);
}

static void remove_pending(node_t *nd, lconn_t *lc)
{
    for (size_t i = 0; i < nd->npending; i++) {
        if (nd->pending[i] == lc) {
            nd->pending[i] = nd->pending[--nd->npending];
            return;
        }
    }
}

static void link_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    if (lc->link == NULL) { /* an inbound connection: its first frame must be the hello */
        Stepnet__LinkHello *h =
            type == SN_FRAME_LINK ? stepnet__link_hello__unpack(NULL, len, body) : NULL;
        if (h == NULL) {
            nlog(nd, "LINK-PROTO",
                 "inbound connection from %s: first frame is not a valid link hello", c->peer);
            remove_pending(nd, lc);
            lconn_close(lc);
            return;
        }
        sn_conn_expect_done(c); /* it said who it is: judged now, or after the assignment */
        remove_pending(nd, lc);
        if (nd->assigned) {
            accept_hello(nd, lc, h);
        } else { /* keep it until we know the topology and the token */
            lc->hello = *h;
            lc->have_hello = 1;
            sn_grow((void **) &nd->pending, &nd->cappending, nd->npending + 1, sizeof *nd->pending);
            nd->pending[nd->npending++] = lc;
        }
        stepnet__link_hello__free_unpacked(h, NULL);
        return;
    }
    link_t *l = lc->link;
    switch (type) {
    case SN_FRAME_DATA:
        on_data(l, body, len);
        break;
    case SN_FRAME_PING: {
        uint8_t *b = sn_conn_frame(c, SN_FRAME_PONG, len);
        memcpy(b, body, len);
        sn_conn_send(c, b);
        break;
    }
    case SN_FRAME_PONG:
        if (l->dialer && l->probe < 2 * l->probes)
            on_pong(l);
        break;
    default:
        nlog(nd, "LINK-PROTO", "edge %u (node %u): unexpected frame type %d", l->edge, l->peer,
             type);
        node_report(nd, SN_EPROTO, nd->t, BLAME_PROTO, l->peer, NULL, 0,
                    "protocol error on the link to node %u (edge %u): frame type %d", l->peer,
                    l->edge, type);
    }
}

static void link_on_error(sn_conn_t *c, int status, const char *what)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    if (nd->stopping)
        return;
    if (lc->link == NULL) { /* a stranger, a failed handshake, or no hello in time */
        nlog(nd, status == SN_EPROTO || status == SN_ETIMEOUT ? "LINK-REFUSED" : "LINK-CLOSED",
             "inbound connection from %s before its hello: %s (%s)", c->peer, what,
             status < -5000 ? sn_strerror(status) : uv_strerror(status));
        return;
    }
    link_t *l = lc->link;
    l->down = 1;
    if (!nd->running && status != SN_EPROTO) {
        /* between collectives (a peer leaving after STOP): the next START fails if it matters */
        if (!nd->opts.quiet)
            nlog(nd, "LINK-DOWN", "edge %u (node %u) closed between collectives: %s", l->edge,
                 l->peer, what);
        return;
    }
    nlog(nd, status == SN_EPROTO ? "LINK-PROTO" : "LINK-DOWN", "edge %u (node %u): %s (%s)",
         l->edge, l->peer, what, status < -5000 ? sn_strerror(status) : uv_err_name(status));
    if (nd->exit_code == 0)
        node_report(nd, status == SN_EPROTO ? SN_EPROTO : SN_ELINK, nd->t,
                    status == SN_EPROTO ? BLAME_PROTO : BLAME_LINK, l->peer, NULL, 0,
                    "link to node %u (edge %u) failed at slot %llu: %s (%s)", l->peer, l->edge,
                    (unsigned long long) nd->t, what,
                    status < -5000 ? sn_strerror(status) : uv_err_name(status));
}

static void link_on_closed(sn_conn_t *c)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    remove_pending(nd, lc);
    if (lc->link && lc->link->lc == lc)
        lc->link->lc = NULL;
    for (uint32_t q = 0; q < nd->deg; q++)
        if (nd->links[q].dialling == lc)
            nd->links[q].dialling = NULL;
    lconn_free(lc);
}

static lconn_t *new_lconn(node_t *nd, const sn_conn_ops_t *ops)
{
    lconn_t *lc = sn_xcalloc(1, sizeof *lc);
    lc->nd = nd;
    sn_conn_init(nd->loop, &lc->c, ops, lc);
    sn_grow((void **) &nd->conns, &nd->capconns, nd->nconns + 1, sizeof *nd->conns);
    lc->index = nd->nconns;
    nd->conns[nd->nconns++] = lc;
    return lc;
}

static void on_link_connection(uv_stream_t *server, int status)
{
    node_t *nd = server->data;
    if (status < 0) {
        nlog(nd, "LINK-ACCEPT", "accept failed: %s", uv_strerror(status));
        return;
    }
    lconn_t *lc = new_lconn(nd, &link_ops);
    sn_wire_limits_link(&lc->c, 0, 1);
    /* a connection that never says who it is is closed at the connect deadline */
    sn_conn_expect(&lc->c, nd->connect_ms ? nd->connect_ms : 10000, "link hello");
    if (uv_accept(server, (uv_stream_t *) &lc->c.tcp) < 0 ||
        sn_conn_start(&lc->c, &nd->sec, 0) < 0) {
        lconn_close(lc);
        return;
    }
    sn_grow((void **) &nd->pending, &nd->cappending, nd->npending + 1, sizeof *nd->pending);
    nd->pending[nd->npending++] = lc;
}

static void dial(link_t *l);

static void on_retry(uv_timer_t *t)
{
    dial(t->data);
}

static void on_link_connect(uv_connect_t *req, int status)
{
    link_t *l = req->data;
    node_t *nd = l->nd;
    lconn_t *lc = l->dialling;
    if (nd->stopping || lc == NULL)
        return;
    if (status < 0) {
        l->dialling = NULL;
        lconn_close(lc);
        if (uv_now(nd->loop) >= nd->ctl_deadline) {
            node_report(nd, SN_ETIMEOUT, 0, BLAME_LINK, l->peer, NULL, 0,
                        "connect deadline (%u ms): could not connect to node %u at %s:%d for edge "
                        "%u: %s",
                        nd->connect_ms, l->peer, l->host, l->tcp_port, l->edge,
                        uv_strerror(status));
            return;
        }
        l->backoff_ms = l->backoff_ms ? (l->backoff_ms * 2 > 200 ? 200 : l->backoff_ms * 2) : 5;
        uv_timer_start(&l->retry, on_retry, l->backoff_ms, 0);
        return;
    }
    l->dialling = NULL;
    if (sn_conn_start(&lc->c, &nd->sec, 1) < 0) {
        lconn_close(lc);
        node_abort(nd, SN_ELINK, 0, "cannot start the link to node %u", l->peer);
        return;
    }
    sn_wire_send_linkhello(&lc->c, nd->token, l->edge, nd->id);
    bind_link(l, lc);
}

static void dial(link_t *l)
{
    node_t *nd = l->nd;
    struct sockaddr_storage sa;
    if (uv_ip4_addr(l->host, l->tcp_port, (struct sockaddr_in *) &sa) < 0 &&
        uv_ip6_addr(l->host, l->tcp_port, (struct sockaddr_in6 *) &sa) < 0) {
        node_abort(nd, SN_EINVAL, 0, "bad address %s:%d for node %u", l->host, l->tcp_port,
                   l->peer);
        return;
    }
    lconn_t *lc = new_lconn(nd, &link_ops);
    sn_wire_limits_link(&lc->c, nd->params.size, 0);
    l->dialling = lc;
    l->creq.data = l;
    int rc = uv_tcp_connect(&l->creq, &lc->c.tcp, (struct sockaddr *) &sa, on_link_connect);
    if (rc < 0) {
        l->dialling = NULL;
        lconn_close(lc);
        node_abort(nd, SN_ELINK, 0, "connect to node %u at %s:%d: %s", l->peer, l->host,
                   l->tcp_port, uv_strerror(rc));
    }
}

/* ---- the assignment ---------------------------------------------------------------------------
 */

static int take_assignment(node_t *nd, const Stepnet__Assign *a, char *why, size_t whylen)
{
    sn_err_t err = {0};
    nd->id = a->node;
    nd->token = a->token;
    sn_topo_file_t file = {0};
    int rc;
    if (a->has_topology_file) {
        const char *path = strncmp(a->topology, "file:", 5) == 0 ? a->topology + 5 : a->topology;
        file.path = (char *) path;
        file.text = sn_xmalloc(a->topology_file.len + 1);
        memcpy(file.text, a->topology_file.data, a->topology_file.len);
        file.text[a->topology_file.len] = '\0';
        file.len = a->topology_file.len;
        rc = sn_topo_parse_with(a->topology, &file, 1, &nd->topo, &err);
        free(file.text);
    } else {
        rc = sn_topo_parse(a->topology, &nd->topo, &err);
    }
    if (rc < 0) {
        snprintf(why, whylen, "topology: %s", err.msg);
        return rc;
    }
    const sn_topo_t *t = nd->topo;
    if (a->nodes != t->n || a->node >= t->n) {
        snprintf(why, whylen, "assignment of node %u of %u does not fit %s (%u nodes)", a->node,
                 a->nodes, t->spec, t->n);
        return SN_EINVAL;
    }
    sn_coll_t coll;
    if ((rc = sn_coll_parse(a->collective, &coll, &err)) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return rc;
    }
    sn_params_t *p = &nd->params;
    sn_params_default(p, coll);
    p->pm.ports = a->ports ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
    p->pm.rx = a->rx ? SN_RX_ANY : SN_RX_ONE;
    p->pm.duplex = a->duplex ? SN_DUPLEX_HALF : SN_DUPLEX_FULL;
    p->root = a->root;
    p->msgs = a->msgs;
    p->size = a->size;
    p->seed = a->seed;
    if (a->n_sources > 0) {
        nd->sources = sn_xmalloc(a->n_sources * sizeof *nd->sources);
        memcpy(nd->sources, a->sources, a->n_sources * sizeof *nd->sources);
        p->sources = nd->sources;
        p->nsources = (uint32_t) a->n_sources;
    }
    if ((rc = sn_params_check(t, p, &err)) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return rc;
    }
    nd->algo = sn_model_find(a->algorithm);
    if (nd->algo == NULL) {
        snprintf(why, whylen, "unknown algorithm '%s'", a->algorithm);
        return SN_EINVAL;
    }
    if ((rc = sn_model_check(nd->algo, t, p, &err)) < 0 ||
        (rc = sn_model_plan_new(nd->algo, t, p, &nd->plan, &err)) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return rc;
    }
    nd->state = sn_xcalloc(1, nd->algo->state_size ? nd->algo->state_size : 1);
    nd->diameter = sn_topo_diameter(t, 0);
    nd->connect_ms = a->connect_ms;
    if (nd->connect_ms) /* the run's deadline for link handshakes too */
        nd->sec.deadline_ms = nd->connect_ms;
    nd->slot_ms = a->slot_ms;
    nd->collective_ms = a->collective_ms;
    nd->max_slots = a->max_slots ? a->max_slots : UINT64_MAX;
    if (a->fault) {
        const char *at = strchr(a->fault, '@');
        snprintf(nd->fault, sizeof nd->fault, "%s", a->fault);
        nd->fault_slot = at ? strtoull(at + 1, NULL, 10) : 1;
    }
    nd->deg = sn_topo_degree(t, nd->id);
    nd->links = sn_xcalloc(nd->deg + 1, sizeof *nd->links);
    nd->out = sn_xcalloc(nd->deg + 1, sizeof *nd->out);
    nd->out_has = sn_xcalloc(nd->deg + 1, 1);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        const sn_port_t *pp = sn_topo_port(t, nd->id, q);
        l->nd = nd;
        l->port = q;
        l->edge = pp->edge;
        l->peer = pp->peer;
        l->link_id = sn_topo_link_id(t, nd->id, q);
        l->dialer = t->edges[pp->edge].a == nd->id;
        uv_timer_init(nd->loop, &l->retry);
        l->retry.data = l;
        nd->links_timers_live = 1;
        if (!l->dialer)
            continue;
        const Stepnet__Peer *peer = NULL;
        for (size_t i = 0; i < a->n_peers; i++)
            if (a->peers[i]->node == l->peer)
                peer = a->peers[i];
        if (peer == NULL) {
            snprintf(why, whylen, "the assignment has no address for neighbour %u", l->peer);
            return SN_EINVAL;
        }
        snprintf(l->host, sizeof l->host, "%s", peer->host);
        l->tcp_port = (int) peer->port;
    }
    nd->assigned = 1;
    return 0;
}

/* ---- the control channel ------------------------------------------------------------------- */

static void ctl_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    node_t *nd = ((lconn_t *) c->owner)->nd;
    (void) type;
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    if (m == NULL) {
        nlog(nd, "CTL-PROTO", "malformed control frame from the coordinator");
        node_exit(nd, 1);
        return;
    }
    char why[400];
    switch (m->msg_case) {
    case STEPNET__CONTROL__MSG_ASSIGN:
        if (nd->assigned) {
            nlog(nd, "CTL-PROTO", "second assignment");
            node_exit(nd, 1);
            break;
        }
        if (take_assignment(nd, m->assign, why, sizeof why) < 0) {
            nd->assigned = 1;
            node_abort(nd, SN_EINVAL, 0, "bad assignment: %s", why);
            break;
        }
        nd->ctl_deadline = uv_now(nd->loop) + nd->connect_ms;
        if (!nd->opts.quiet)
            nlog(nd, "NODE-ASSIGN", "%s, %s with %s, %u links", nd->topo->spec,
                 sn_coll_name(nd->params.coll), nd->algo->name, nd->deg);
        for (uint32_t q = 0; q < nd->deg; q++)
            if (nd->links[q].dialer)
                dial(&nd->links[q]);
        /* hellos that arrived before the assignment (connections still waiting for theirs stay
         * pending) */
        for (size_t i = 0; i < nd->npending;) {
            lconn_t *lc = nd->pending[i];
            if (!lc->have_hello) {
                i++;
                continue;
            }
            nd->pending[i] = nd->pending[--nd->npending];
            accept_hello(nd, lc, &lc->hello);
        }
        check_ready(nd);
        break;
    case STEPNET__CONTROL__MSG_CALIBRATE:
        if (nd->ready_sent)
            start_calibration(nd, m->calibrate->bytes, m->calibrate->probes);
        break;
    case STEPNET__CONTROL__MSG_START:
        if (nd->ready_sent && !nd->exit_code)
            start_collective(nd, m->start->cid, m->start->seed,
                             m->start->has_idle_slots ? m->start->idle_slots : 0);
        break;
    case STEPNET__CONTROL__MSG_STOP:
        node_exit(nd, nd->exit_code);
        break;
    case STEPNET__CONTROL__MSG_ABORT:
        nlog(nd, "NODE-STOP", "the coordinator aborted the run: %s", m->abort->reason);
        node_exit(nd, 1);
        break;
    default:
        nlog(nd, "CTL-PROTO", "unexpected control message %d", (int) m->msg_case);
        node_exit(nd, 1);
    }
    stepnet__control__free_unpacked(m, NULL);
}

static void ctl_on_error(sn_conn_t *c, int status, const char *what)
{
    node_t *nd = ((lconn_t *) c->owner)->nd;
    nd->ctl_up = 0;
    if (nd->stopping)
        return;
    nlog(nd, "CTL-DOWN", "control connection to the coordinator: %s (%s)", what,
         status < -5000 ? sn_strerror(status) : uv_err_name(status));
    node_exit(nd, 1);
}

static void ctl_on_closed(sn_conn_t *c)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    if (nd->ctl == lc) { /* the established control connection is gone */
        nd->ctl = NULL;
        nd->ctl_up = 0;
        if (!nd->stopping)
            node_exit(nd, 1);
    }
    lconn_free(lc);
}

static const sn_conn_ops_t ctl_ops = {ctl_on_frame, ctl_on_error, ctl_on_closed};

static void ctl_connect(node_t *nd);

static void on_ctl_retry(uv_timer_t *t)
{
    ctl_connect(t->data);
}

static void on_ctl_connect(uv_connect_t *req, int status)
{
    node_t *nd = req->data;
    if (nd->stopping)
        return;
    if (status < 0) {
        if (uv_now(nd->loop) >= nd->ctl_deadline) {
            nlog(nd, "CTL-CONNECT",
                 "connect deadline (%u ms): cannot reach the coordinator at "
                 "%s:%d: %s",
                 nd->opts.connect_ms, nd->coord_host, nd->coord_port, uv_strerror(status));
            node_exit(nd, 1);
            return;
        }
        /* a fresh connection for the next attempt; this one is closed and freed */
        nd->ctl_backoff =
            nd->ctl_backoff ? (nd->ctl_backoff * 2 > 500 ? 500 : nd->ctl_backoff * 2) : 10;
        lconn_t *lc = nd->ctl;
        nd->ctl = NULL;
        lconn_close(lc);
        uv_timer_start(&nd->ctl_retry, on_ctl_retry, nd->ctl_backoff, 0);
        return;
    }
    nd->ctl_up = 1;
    sn_conn_start(&nd->ctl->c, &nd->sec, 1);
    /* the data host: given, or the address this host has towards the coordinator */
    if (nd->opts.advertise) {
        snprintf(nd->data_host, sizeof nd->data_host, "%s", nd->opts.advertise);
    } else {
        struct sockaddr_storage sa;
        int salen = sizeof sa;
        if (uv_tcp_getsockname(&nd->ctl->c.tcp, (struct sockaddr *) &sa, &salen) == 0)
            uv_ip_name((struct sockaddr *) &sa, nd->data_host, sizeof nd->data_host);
    }
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Hello h = STEPNET__HELLO__INIT;
    h.version = SN_WIRE_VERSION;
    h.data_host = nd->data_host;
    h.data_port = (uint32_t) nd->data_port;
    h.has_want_id = nd->opts.want_id >= 0;
    h.want_id = nd->opts.want_id;
    h.has_pid = 1;
    h.pid = (uint32_t) getpid();
    h.hostname = host;
    m.msg_case = STEPNET__CONTROL__MSG_HELLO;
    m.hello = &h;
    sn_wire_send_control(&nd->ctl->c, &m);
}

static void ctl_connect(node_t *nd)
{
    struct sockaddr_storage sa;
    if (uv_ip4_addr(nd->coord_host, nd->coord_port, (struct sockaddr_in *) &sa) < 0 &&
        uv_ip6_addr(nd->coord_host, nd->coord_port, (struct sockaddr_in6 *) &sa) < 0) {
        nlog(nd, "CTL-CONNECT", "bad coordinator address %s:%d", nd->coord_host, nd->coord_port);
        node_exit(nd, 1);
        return;
    }
    nd->ctl = new_lconn(nd, &ctl_ops);
    sn_wire_limits_control(&nd->ctl->c);
    snprintf(nd->ctl->c.name, sizeof nd->ctl->c.name, "coordinator");
    nd->ctl_req.data = nd;
    int rc = uv_tcp_connect(&nd->ctl_req, &nd->ctl->c.tcp, (struct sockaddr *) &sa, on_ctl_connect);
    if (rc < 0) {
        nlog(nd, "CTL-CONNECT", "connect to %s:%d: %s", nd->coord_host, nd->coord_port,
             uv_strerror(rc));
        node_exit(nd, 1);
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

static void on_signal(uv_signal_t *s, int signum)
{
    node_t *nd = s->data;
    nlog(nd, "NODE-SIGNAL", "signal %d: exiting", signum);
    node_exit(nd, 1);
}

static int split_hostport(const char *s, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(s, ':');
    if (colon == NULL || colon == s || (size_t) (colon - s) >= hostlen)
        return -1;
    memcpy(host, s, (size_t) (colon - s));
    host[colon - s] = '\0';
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end != '\0' || p <= 0 || p > 65535)
        return -1;
    *port = (int) p;
    return 0;
}

int sn_node_main(const sn_node_opts_t *o)
{
    node_t *nd = sn_xcalloc(1, sizeof *nd);
    nd->opts = *o;
    nd->loop = sn_xmalloc(sizeof *nd->loop);
    uv_loop_init(nd->loop);
    signal(SIGPIPE, SIG_IGN);
    if (o->local) {
        /* spawned by a local coordinator: never outlive it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            return 1;
    }
    int rc = 1;
    nd->sec.mode = o->security;
    nd->sec.key = o->key;
    nd->sec.deadline_ms = o->connect_ms ? o->connect_ms : 10000;
    if (o->security == SN_SEC_NONE && !o->local)
        nlog(nd, "NODE-INSECURE",
             "security none: links and the control channel are plaintext "
             "and unauthenticated");
    if (split_hostport(o->coordinator, nd->coord_host, sizeof nd->coord_host, &nd->coord_port) <
        0) {
        nlog(nd, "NODE-ARGS", "bad coordinator address '%s': expected HOST:PORT", o->coordinator);
        goto out;
    }
    /* the listener for links */
    const char *lhost = o->listen_host ? o->listen_host : (o->local ? "127.0.0.1" : "0.0.0.0");
    struct sockaddr_storage sa;
    if (uv_ip4_addr(lhost, 0, (struct sockaddr_in *) &sa) < 0 &&
        uv_ip6_addr(lhost, 0, (struct sockaddr_in6 *) &sa) < 0) {
        nlog(nd, "NODE-ARGS", "bad listen address '%s'", lhost);
        goto out;
    }
    uv_tcp_init(nd->loop, &nd->listener);
    nd->listener.data = nd;
    int lrc = uv_tcp_bind(&nd->listener, (struct sockaddr *) &sa, 0);
    if (lrc == 0)
        lrc = uv_listen((uv_stream_t *) &nd->listener, 512, on_link_connection);
    if (lrc < 0) {
        nlog(nd, "NODE-LISTEN", "cannot listen on %s: %s", lhost, uv_strerror(lrc));
        uv_close((uv_handle_t *) &nd->listener, NULL);
        uv_run(nd->loop, UV_RUN_DEFAULT);
        goto out;
    }
    int salen = sizeof sa;
    uv_tcp_getsockname(&nd->listener, (struct sockaddr *) &sa, &salen);
    nd->data_port = ntohs(((struct sockaddr_in *) &sa)->sin_port);
    printf("LISTEN port=%d\n", nd->data_port);
    fflush(stdout);
    uv_timer_init(nd->loop, &nd->ctl_retry);
    nd->ctl_retry.data = nd;
    uv_timer_init(nd->loop, &nd->slot_timer);
    nd->slot_timer.data = nd;
    uv_signal_init(nd->loop, &nd->sigterm);
    nd->sigterm.data = nd;
    uv_signal_start(&nd->sigterm, on_signal, SIGTERM);
    nd->ctl_deadline = uv_now(nd->loop) + (o->connect_ms ? o->connect_ms : 10000);
    ctl_connect(nd);
    uv_run(nd->loop, UV_RUN_DEFAULT);
    rc = nd->exit_code;
out:
    node_exit(nd, nd->exit_code ? nd->exit_code : rc);
    uv_run(nd->loop, UV_RUN_DEFAULT); /* the close callbacks */
    if (uv_loop_close(nd->loop) != 0) {
        nlog(nd, "NODE-EXIT", "event loop still busy at exit");
        rc = rc ? rc : 1;
    }
    free(nd->loop);
    if (nd->state_live && nd->algo && nd->algo->node_fini)
        nd->algo->node_fini(nd->state);
    if (nd->plan)
        nd->algo->plan_free(nd->plan);
    for (uint32_t q = 0; nd->links && q < nd->deg; q++) {
        free(nd->links[q].rtt0);
        free(nd->links[q].rtt);
    }
    free(nd->links);
    free(nd->out);
    free(nd->out_has);
    free(nd->state);
    free(nd->sources);
    free(nd->rx);
    free(nd->io.tx);
    free(nd->io.dlv);
    free(nd->data_bits);
    free(nd->ctl_bits);
    free(nd->pending);
    free(nd->conns);
    sn_verify_free(nd->verify);
    sn_topo_free(nd->topo);
    free(nd);
    return rc;
}
