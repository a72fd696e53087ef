/* The control state machine (coordinator): hellos, assignments, READY, calibration, START of each
 * repetition, COMPLETE and RESULT, node aborts, and the deadline of every phase. There is no
 * per-slot round trip: nodes detect termination in-band and report once per collective. Above
 * the usual size on purpose: it is one state machine, and its phases and the transitions between
 * them read best in one place; what a phase's deadline says when it expires (who is late, and
 * why) is in phase_deadline.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/coord_internal.h"
#include "proc/uv_error.h"
#include "stepnet/deadline.h"
#include "stepnet/util.h"

static void start_rep(sn_coord_t *r);

uint64_t sn__coord_probe(sn_coord_t *r)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Heartbeat hb = STEPNET__HEARTBEAT__INIT;
    hb.seq = ++r->hb_seq;
    m.msg_case = STEPNET__CONTROL__MSG_HEARTBEAT;
    m.heartbeat = &hb;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].hello && r->nodes[i].conn != NULL)
            sn_wire_send_control(r->nodes[i].conn, &m);
    return hb.seq;
}

void sn__coord_on_heartbeat(uv_timer_t *t)
{
    sn_coord_t *r = t->data;
    if (r->stopping)
        return;
    /* during the blame window of a failed run every node keeps getting heartbeats (one that left
     * its collective watches the coordinator again) and nobody is judged */
    int judging = !r->res->failed;
    uint64_t now = uv_now(r->loop), limit = (uint64_t) SN_HEARTBEAT_MISSES * r->o->heartbeat_ms;
    /* a tick two periods late: this process was stalled (or stopped) and could not read the
     * answers; nobody is judged on that interval */
    int stalled = r->hb_last_tick && now - r->hb_last_tick > 2 * (uint64_t) r->o->heartbeat_ms;
    if (r->hb_last_tick && now - r->hb_last_tick > limit)
        r->self_stalled = 1;
    r->hb_last_tick = now;
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Heartbeat hb = STEPNET__HEARTBEAT__INIT;
    hb.seq = ++r->hb_seq;
    m.msg_case = STEPNET__CONTROL__MSG_HEARTBEAT;
    m.heartbeat = &hb;
    for (uint32_t i = 0; i < r->n; i++) {
        sn_coord_node_t *cn = &r->nodes[i];
        if (!judging) {
            cn->last_heard = now;
            if (cn->hello && cn->conn != NULL)
                sn_wire_send_control(cn->conn, &m);
            continue;
        }
        /* in a collective, a node gets no heartbeat until it has completed or sent its result,
         * or until every node has completed (the measured window ends at the last Complete), or
         * until some node has sent its result (sn__coord_heartbeat_withheld). After a node's
         * result the others may owe it nothing more (under a learned stop, a node stopped after
         * its last frames holds up no neighbour), so only the heartbeat can see them */
        if (!cn->hello || cn->conn == NULL || stalled ||
            sn__coord_heartbeat_withheld(r->phase == SN_COORD_PH_RUN, cn->complete, cn->result,
                                         r->ncomplete, r->nresult, r->n)) {
            cn->last_heard = now;
            continue;
        }
        if (now - cn->last_heard > limit) {
            sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                             "node %d (pid %u, %s) answered no heartbeat for %llu ms (%u x %u ms): "
                             "it is stopped or unreachable",
                             cn->id, cn->pid, cn->conn->peer,
                             (unsigned long long) (now - cn->last_heard), SN_HEARTBEAT_MISSES,
                             r->o->heartbeat_ms);
            return;
        }
        sn_wire_send_control(cn->conn, &m);
    }
}

/* The emulated terms of the slot deadline's model: the largest delay and jitter of any link and
 * its smallest rate (none: zeros). */
static void emu_terms(const sn_coord_t *r, sn_deadline_model_t *m)
{
    const sn_emu_t *em = r->res->emu;
    for (uint32_t e = 0; em && e < em->nedges; e++) {
        const sn_emu_link_t *v = &em->edge[e];
        if (v->delay_ns > m->delay_ns)
            m->delay_ns = v->delay_ns;
        if (v->jitter_ns > m->jitter_ns)
            m->jitter_ns = v->jitter_ns;
        if (v->rate_bps && (m->rate_bps == 0 || v->rate_bps < m->rate_bps))
            m->rate_bps = v->rate_bps;
    }
}

/* The time the model allows one frame of `size` bytes on one hop (Start.frame_us,
 * sn_deadline_frame_ns): the slowest calibrated link's alpha and beta (its emulated delay taken
 * out, as the emulated terms count it), the emulated delay, jitter and rate, the frame's build. */
static uint64_t slot_frame_us(const sn_coord_t *r, uint32_t size)
{
    const sn_coord_result_t *res = r->res;
    sn_deadline_model_t m = {0};
    emu_terms(r, &m);
    uint32_t pb = res->probe_bytes;
    for (uint32_t e = 0; res->edge_alpha_us && e < r->t->nedges; e++) {
        double delay_us = res->emu ? (double) res->emu->edge[e].delay_ns / 1e3 : 0;
        double a = res->edge_alpha_us[e], h = res->edge_hop_us[e];
        if (a < 0) /* not measured */
            continue;
        double beta = pb && h > a ? (h - a) / pb : 0;
        a = a > delay_us ? a - delay_us : 0;
        if (a > m.alpha_us)
            m.alpha_us = a;
        if (beta > m.beta_us_per_byte)
            m.beta_us_per_byte = beta;
    }
    uint64_t ns = sn_deadline_frame_ns(&m, size);
    return ns / 1000 + (ns % 1000 != 0);
}

static void start_rep(sn_coord_t *r)
{
    if (r->res->failed) /* waiting for the blame window to end */
        return;
    uint64_t per = (uint64_t) r->o->warmup + r->o->reps;
    if (r->floor_rep && r->floor_done >= SN_COORD_FLOOR_REPS) {
        /* the empty-slot repetitions ended: the run's repetitions follow */
        r->floor_rep = 0;
        r->cid0 = r->cid;
    }
    if (r->floor_rep) {
        /* another empty-slot repetition */
    } else if (r->floor_next) {
        r->floor_next = 0;
        r->floor_rep = 1;
    } else if (r->cid - r->cid0 >= per * r->res->npoints) {
        sn__coord_finish(r, 0);
        return;
    }
    r->cid++;
    /* repetition k of the run (the time model's empty-slot repetition before it is k = 0) */
    uint32_t k = r->cid - (r->floor_rep ? r->cid : r->cid0);
    r->rep = k ? (uint32_t) ((k - 1) % per) + 1 : 0;
    if (r->rep == 1)
        sn__coord_point_begin(r, (uint32_t) ((k - 1) / per));
    /* the size of the collective after this one, whose first frames may reach a node before
     * its START */
    uint64_t next = k / per;
    /* collective ids on the wire, one per START, two with the in-band barrier (the barrier's,
     * then the collective's); the empty-slot repetition is idle and has none */
    uint64_t barrier = r->floor_rep ? 0 : r->barrier_slots;
    r->wire_cid += barrier ? 2 : 1;
    r->phase = SN_COORD_PH_RUN;
    r->ncomplete = r->nresult = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        sn_coord_node_t *cn = &r->nodes[i];
        cn->complete = cn->result = 0;
        if (cn->res)
            stepnet__result__free_unpacked(cn->res, NULL);
        cn->res = NULL;
    }
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Start st = STEPNET__START__INIT;
    st.cid = r->wire_cid;
    st.seed = r->job->params.seed;
    st.has_idle_slots = r->o->idle_slots > 0 || r->floor_rep;
    st.idle_slots = r->floor_rep ? r->floor_slots : r->o->idle_slots;
    st.has_size = 1;
    st.size = r->params.size;
    st.has_next_size = 1;
    st.next_size = next < r->res->npoints ? r->res->points[next].size : r->params.size;
    st.has_trace_slots = sn__coord_traced(r);
    st.trace_slots = st.has_trace_slots ? (uint32_t) r->o->trace_slots : 0;
    st.has_barrier_slots = barrier > 0;
    st.barrier_slots = barrier;
    /* --termination learn: after the first repetition of a size, stop where it went quiet */
    uint64_t quiet = r->res->points[r->point].quiet_slot;
    st.has_quiet_slot =
        !r->o->termination_detect && !r->floor_rep && !r->o->idle_slots && r->rep > 1 && quiet > 0;
    st.quiet_slot = st.has_quiet_slot ? quiet : 0;
    st.has_frame_us = 1;
    st.frame_us = slot_frame_us(r, st.size);
    m.msg_case = STEPNET__CONTROL__MSG_START;
    m.start = &st;
    sn__coord_deadline(r, r->o->collective_ms);
    r->t0 = uv_hrtime();
    sn__coord_send_all(r, &m);
    sn__coord_progress_rep_start(r);
}

/* ---- assignments ------------------------------------------------------------------------------
 */

/* The assignment of node `id`: the run's parameters, its peers (once each, parallel links
 * included) and its fault. The one place that maps the run to a protobuf Assign: `peers` and `pp`
 * have room for the node's degree; `fault` holds the fault text. */
static void fill_assign(const sn_coord_t *r, uint32_t id, Stepnet__Assign *a, Stepnet__Peer *peers,
                        Stepnet__Peer **pp)
{
    const sn_topo_t *t = r->t;
    const sn_params_t *p = &r->job->params;
    uint32_t deg = sn_topo_degree(t, id);
    size_t np = 0;
    for (uint32_t q = 0; q < deg; q++) {
        uint32_t v = sn_topo_port(t, id, q)->peer;
        int dup = 0;
        for (size_t k = 0; k < np; k++)
            dup |= peers[k].node == v;
        if (dup)
            continue;
        stepnet__peer__init(&peers[np]);
        peers[np].node = v;
        peers[np].host = r->nodes[v].host;
        peers[np].port = r->nodes[v].data_port;
        pp[np] = &peers[np];
        np++;
    }
    stepnet__assign__init(a);
    a->node = id;
    a->nodes = t->n;
    a->topology = (char *) t->spec;
    if (r->file_text) {
        a->has_topology_file = 1;
        a->topology_file.data = (uint8_t *) r->file_text;
        a->topology_file.len = r->file_len;
    }
    a->n_peers = np;
    a->peers = pp;
    a->token = r->token;
    sn_wire_params_to_assign(p, a);
    /* a sweep: collective 1 runs the first size; links take frames of the largest */
    a->size = r->res->points[0].size;
    a->has_max_size = r->res->npoints > 1;
    a->max_size = r->res->points[r->res->npoints - 1].size;
    a->algorithm = (char *) r->job->algo->name;
    if (r->sched_text) {
        a->has_schedule_file = 1;
        a->schedule_file.data = (uint8_t *) r->sched_text;
        a->schedule_file.len = r->sched_len;
    }
    a->max_slots = sn_model_slot_limit(t, p, r->job->predicted);
    a->connect_ms = r->o->connect_ms;
    a->slot_ms = r->o->slot_ms;
    a->collective_ms = r->o->collective_ms;
    a->has_heartbeat_ms = 1;
    a->heartbeat_ms = r->o->heartbeat_ms;
    a->has_spin_us = 1;
    a->spin_us = r->o->spin_us;
    a->has_ciphers = r->o->ciphers != 0;
    a->ciphers = (uint32_t) r->o->ciphers;
    if (r->o->fault && r->o->fault_node == (int) id)
        a->fault = (char *) r->o->fault;
    sn_wire_sync_to_assign(r->o->sync, a);
    if (sn_sync_needs_rxplan(r->o->sync)) { /* the receive plan, borrowed from the coordinator's */
        a->n_rx_plan = r->rxplan.nrx[id];
        a->rx_plan = r->rxplan.rx[id];
    }
    a->n_emu = 0; /* emu, emu_seed: filled by send_assign, which owns their storage */
}

static void send_assign(sn_coord_t *r, sn_coord_node_t *cn)
{
    if (cn->conn == NULL) /* its connection is gone: the failure is already reported */
        return;
    uint32_t deg = sn_topo_degree(r->t, (uint32_t) cn->id);
    Stepnet__Peer *peers = sn_xcalloc(deg + 1, sizeof *peers);
    Stepnet__Peer **pp = sn_xcalloc(deg + 1, sizeof *pp);
    Stepnet__Assign a;
    fill_assign(r, (uint32_t) cn->id, &a, peers, pp);
    /* the emulated values of the node's links that emulate anything */
    Stepnet__LinkEmu *emu = sn_xcalloc(deg + 1, sizeof *emu);
    Stepnet__LinkEmu **pe = sn_xcalloc(deg + 1, sizeof *pe);
    const sn_emu_t *em = r->res->emu;
    for (uint32_t q = 0; em && q < deg; q++) {
        uint32_t e = sn_topo_port(r->t, (uint32_t) cn->id, q)->edge;
        const sn_emu_link_t *v = &em->edge[e];
        if (!sn_emu_link_active(v))
            continue;
        stepnet__link_emu__init(&emu[a.n_emu]);
        emu[a.n_emu].edge = e;
        emu[a.n_emu].has_delay_ns = emu[a.n_emu].has_jitter_ns = emu[a.n_emu].has_rate_bps = 1;
        emu[a.n_emu].delay_ns = v->delay_ns;
        emu[a.n_emu].jitter_ns = v->jitter_ns;
        emu[a.n_emu].rate_bps = v->rate_bps;
        pe[a.n_emu] = &emu[a.n_emu];
        a.n_emu++;
    }
    a.emu = pe;
    a.has_emu_seed = a.n_emu > 0;
    a.emu_seed = r->token;
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    m.msg_case = STEPNET__CONTROL__MSG_ASSIGN;
    m.assign = &a;
    sn_wire_send_control(cn->conn, &m);
    free(peers);
    free(pp);
    free(emu);
    free(pe);
}

/* ---- control messages ------------------------------------------------------------------------ */

/* Refuses a connection that said hello (rate-limited log, with the peer's address). */
static void refuse(sn_coord_t *r, sn_coord_pconn_t *pc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void refuse(sn_coord_t *r, sn_coord_pconn_t *pc, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    sn_admit_refused(&r->admit, pc->c.peer, why);
    sn_conn_close(&pc->c);
}

/* Tells a node it is refused, with the reason, in an ABORT written before its connection is
 * closed (written at once when the socket can take it: a refused node then says why it left). */
static void tell_abort(sn_coord_pconn_t *pc, const char *reason)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Abort ab = STEPNET__ABORT__INIT;
    ab.reason = (char *) reason;
    m.msg_case = STEPNET__CONTROL__MSG_ABORT;
    m.abort = &ab;
    sn_wire_send_control(&pc->c, &m);
}

/* Refuses a join-mode node that asked for an id out of range or already taken: logged on stderr
 * (always, not rate-limited: a launcher's mistake), and told to the node in an ABORT. */
static void refuse_id(sn_coord_t *r, sn_coord_pconn_t *pc, const Stepnet__Hello *h, int id)
{
    char why[SN_ADDR_MAX_HOST + 100];
    if ((uint32_t) id >= r->n)
        snprintf(why, sizeof why, "id %d is out of range: the topology has nodes 0 to %u", id,
                 r->n - 1);
    else
        snprintf(why, sizeof why, "id %d is taken by the node that joined from %s (pid %u)", id,
                 r->nodes[id].host, r->nodes[id].pid);
    sn_log_write(&r->log, SN_LOG_WARN, "COORD-REFUSED",
                 "refused the node at %s (pid %u on %s) asking for " SN_REF_NODE_ID " %d: %s",
                 pc->c.peer, h->pid, h->hostname ? h->hostname : "?", id, why);
    char reason[SN_ADDR_MAX_HOST + 140];
    snprintf(reason, sizeof reason, "refused " SN_REF_NODE_ID " %d: %s", id, why);
    tell_abort(pc, reason);
    sn_admit_refused(&r->admit, pc->c.peer, why);
    sn_conn_close(&pc->c);
}

static void on_hello(sn_coord_t *r, sn_coord_pconn_t *pc, const Stepnet__Hello *h)
{
    if (h->version != SN_WIRE_VERSION) {
        char why[120];
        snprintf(why, sizeof why,
                 "protocol version mismatch: the node speaks version %u, the coordinator %u",
                 h->version, SN_WIRE_VERSION);
        tell_abort(pc, why); /* so that the node, and an ssh launch, print why */
        refuse(r, pc, "a node speaking protocol version %u (this is %u)", h->version,
               SN_WIRE_VERSION);
        return;
    }
    int id;
    if (!r->launcher->ids_at_join) {
        id = h->has_want_id ? (int) h->want_id : -1;
        if (id < 0 || (uint32_t) id >= r->n || r->nodes[id].hello) {
            refuse(r, pc, "a node claiming id %d", id);
            return;
        }
    } else if (h->has_want_id && h->want_id >= 0) {
        /* join mode with --id N (or --id auto): the node's id, once */
        id = (int) h->want_id;
        if ((uint32_t) id >= r->n || r->nodes[id].hello) {
            refuse_id(r, pc, h, id);
            return;
        }
    } else {
        if (r->joined >= r->n) {
            refuse(r, pc, "a node: all %u nodes have joined", r->n);
            return;
        }
        /* the lowest id nobody took (by order of joining, or by asking with --id) */
        id = 0;
        while (r->nodes[id].hello)
            id++;
    }
    /* a node of this run: no longer a stranger, and its frames may be as large as a Result */
    sn_admit_done(&r->admit, &pc->c);
    sn_wire_limits_control(&pc->c);
    sn_coord_node_t *cn = &r->nodes[id];
    cn->hello = 1;
    cn->conn = &pc->c;
    pc->node = cn;
    sn_conn_expect_done(&pc->c);
    snprintf(cn->host, sizeof cn->host, "%s", h->data_host);
    cn->data_port = h->data_port;
    cn->pid = h->pid;
    snprintf(r->res->hosts[id].name, sizeof r->res->hosts[id].name, "%s",
             h->hostname ? h->hostname : "");
    cn->last_heard = uv_now(r->loop);
    snprintf(pc->c.name, sizeof pc->c.name, "node %d", id);
    r->joined++;
    if (r->launcher->hello) {
        sn_launch_hello_t lh = {.id = (uint32_t) id,
                                .host = cn->host,
                                .port = cn->data_port,
                                .pid = h->pid,
                                .hostname = h->hostname,
                                .joined = r->joined};
        r->launcher->hello(r->launcher_state, &lh);
    }
    if (r->joined == r->n && !r->res->failed) { /* a run that failed assigns nothing */
        r->phase = SN_COORD_PH_READY;
        for (uint32_t i = 0; i < r->n; i++)
            send_assign(r, &r->nodes[i]);
    }
}

static void on_ready(sn_coord_t *r, sn_coord_node_t *cn, const Stepnet__Ready *m)
{
    if (cn->ready)
        return;
    cn->ready = 1;
    /* what the handshakes chose, for the report */
    if (cn->conn && cn->conn->sec)
        r->res->ctl_ciphers |= cn->conn->sec->cipher;
    if (m->has_link_ciphers)
        r->res->link_ciphers |= (int) m->link_ciphers;
    if (++r->nready < r->n)
        return;
    r->phase = SN_COORD_PH_CALIBRATE;
    Stepnet__Control cm = STEPNET__CONTROL__INIT;
    Stepnet__Calibrate cal = STEPNET__CALIBRATE__INIT;
    uint32_t size = r->job->params.size;
    r->res->probe_bytes = size < SN_COORD_PROBE_MAX_BYTES ? size : SN_COORD_PROBE_MAX_BYTES;
    cal.bytes = r->res->probe_bytes;
    cal.probes = r->o->probes;
    cal.has_concurrent = 1;
    cal.concurrent = 1; /* the NIC terms of the time model */
    cm.msg_case = STEPNET__CONTROL__MSG_CALIBRATE;
    cm.calibrate = &cal;
    /* the calibration's deadline: the ready deadline (--ready-timeout-ms or its default by launch
     * mode and nodes) plus its probes' emulated round trips */
    sn_deadline_model_t em = {0};
    emu_terms(r, &em);
    sn__coord_deadline(r, sn_deadline_calibration_ms(r->ready_ms, cal.probes, cal.bytes, &em));
    sn__coord_send_all(r, &cm);
}

/* ---- clocks ---------------------------------------------------------------------------------- */

static void send_clock_probe(sn_coord_node_t *cn)
{
    if (cn->conn == NULL)
        return;
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__ClockProbe cp = STEPNET__CLOCK_PROBE__INIT;
    cp.seq = cn->nclk + 1;
    m.msg_case = STEPNET__CONTROL__MSG_CLOCK_PROBE;
    m.clock_probe = &cp;
    cn->clk[cn->nclk].sent_ns = uv_hrtime();
    sn_wire_send_control(cn->conn, &m);
}

/* An echo of the probe in flight: the next probe, or the node's offset after the last. */
static void on_clock_echo(sn_coord_t *r, sn_coord_node_t *cn, const Stepnet__ClockEcho *ce)
{
    uint64_t now = uv_hrtime();
    if (r->phase != SN_COORD_PH_CLOCK || cn->clocked || ce->seq != cn->nclk + 1)
        return;
    cn->clk[cn->nclk].node_ns = ce->node_ns;
    cn->clk[cn->nclk].recv_ns = now;
    if (++cn->nclk < SN_COORD_CLOCK_PROBES) {
        send_clock_probe(cn);
        return;
    }
    if (sn_coord_clock_offset(cn->clk, cn->nclk, &cn->clk_offset_ns, &cn->clk_uncertainty_ns) < 0) {
        sn__coord_fail(r, cn->id, 0, "node %d: clock probes came back before they were sent",
                       cn->id);
        return;
    }
    cn->clocked = 1;
    r->offset_ns[cn->id] = cn->clk_offset_ns;
    if (cn->clk_uncertainty_ns > r->res->clock_uncertainty_ns)
        r->res->clock_uncertainty_ns = cn->clk_uncertainty_ns;
    if (++r->nclocked == r->n)
        start_rep(r);
}

/* After calibration: local nodes share the coordinator's clock (CLOCK_MONOTONIC of one host);
 * joined nodes and nodes started over ssh may not, so their offsets are estimated first, every
 * node probed in parallel. */
static void start_clocks(sn_coord_t *r)
{
    /* the in-band barrier: long enough for every node to hear of every other's start (the
     * diameter; one slot on a complete graph) */
    uint64_t d = sn_topo_diameter(r->t, 0);
    r->barrier_slots = r->o->idle_slots ? 0 : (d < 1 ? 1 : d);
    r->res->barrier_slots = r->barrier_slots;
    if (r->launcher->one_clock) { /* local: the coordinator's clock */
        start_rep(r);
        return;
    }
    r->res->clock_offsets = 1;
    r->phase = SN_COORD_PH_CLOCK; /* under the ready deadline, as the phases before */
    for (uint32_t i = 0; i < r->n; i++)
        send_clock_probe(&r->nodes[i]);
}

/* The control legs of the time model: --probes rounds of a heartbeat to every node, each round
 * timed until the last answer (what Start's fan-out and Complete's fan-in cost a repetition).
 * Their sequence numbers carry CTL_SEQ, apart from the liveness heartbeats. */
#define CTL_SEQ (1ull << 63)

static void ctl_round(sn_coord_t *r)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Heartbeat hb = STEPNET__HEARTBEAT__INIT;
    hb.seq = CTL_SEQ | r->ctl_round;
    m.msg_case = STEPNET__CONTROL__MSG_HEARTBEAT;
    m.heartbeat = &hb;
    r->ctl_got = 0;
    r->ctl_t0 = uv_hrtime();
    sn__coord_send_all(r, &m);
}

static void on_ctl_answer(sn_coord_t *r, uint64_t seq)
{
    if (r->phase != SN_COORD_PH_CALIBRATE || r->ncal < r->n || seq != (CTL_SEQ | r->ctl_round))
        return;
    if (++r->ctl_got < r->n)
        return;
    r->ctl_rtt[r->ctl_round] = uv_hrtime() - r->ctl_t0;
    if (++r->ctl_round < SN_COORD_CTL_ROUNDS(r->o)) {
        ctl_round(r);
        return;
    }
    sn__coord_ctl_done(r);
    r->floor_next = r->o->idle_slots == 0; /* the idle barrier measures itself */
    /* an empty slot lasts the emulated delay at least: fewer of them measure it as well */
    sn_deadline_model_t m = {0};
    emu_terms(r, &m);
    r->floor_slots = sn_deadline_floor_slots(SN_COORD_FLOOR_SLOTS, m.delay_ns, m.jitter_ns);
    start_clocks(r);
}

static void on_calibrated(sn_coord_t *r, sn_coord_node_t *cn, const Stepnet__Calibrated *cal)
{
    if (cn->calibrated)
        return;
    cn->calibrated = 1;
    sn__coord_add_calibration(r, cal);
    if (++r->ncal == r->n) {
        sn__coord_calibration_done(r);
        if (r->o->probes == 0) {
            start_clocks(r);
            return;
        }
        r->ctl_rtt = sn_xcalloc((size_t) SN_COORD_CTL_ROUNDS(r->o) + 1, sizeof *r->ctl_rtt);
        r->ctl_round = 0;
        ctl_round(r);
    }
}

/* Takes the result (m->result is NULL afterwards): kept until the next repetition. */
static void on_result(sn_coord_t *r, sn_coord_node_t *cn, Stepnet__Control *m)
{
    if (r->phase != SN_COORD_PH_RUN || m->result->cid != r->wire_cid || cn->result)
        return;
    cn->result = 1;
    cn->res = m->result;
    m->result = NULL;
    m->msg_case = STEPNET__CONTROL__MSG__NOT_SET;
    if (++r->nresult < r->n)
        return;
    if (r->ncomplete < r->n) {
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                       "every node stopped but only %u of %u reported completion", r->ncomplete,
                       r->n);
        return;
    }
    if (sn__coord_aggregate_rep(r) == 0) {
        uv_timer_stop(&r->deadline);
        if (!r->floor_rep) /* the time model's empty-slot repetition is not the run's */
            sn__coord_progress(r, r->o->idle_slots ? r->o->idle_slots : r->res->steps, 0);
        start_rep(r);
    }
}

static void ctl_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    sn_coord_pconn_t *pc = c->owner;
    sn_coord_t *r = pc->run;
    if (r->stopping) /* the run is over (or interrupted): a late hello must not start anything */
        return;
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    sn_coord_node_t *cn = pc->node;
    if (cn == NULL && (m == NULL || m->msg_case != STEPNET__CONTROL__MSG_HELLO)) {
        /* a stranger (with --security none, anyone who connects): that connection goes, the run
         * does not */
        char why[96];
        if (m == NULL)
            snprintf(why, sizeof why, "malformed control frame (%zu bytes) before the hello", len);
        else
            snprintf(why, sizeof why, "control message %d before the hello", (int) m->msg_case);
        sn_conn_fail(c, SN_EPROTO, why);
        goto out;
    }
    if (m == NULL) {
        sn__coord_fail(r, cn->id, 0, "malformed control frame from node %d at %s (%zu bytes)",
                       cn->id, c->peer, len);
        return;
    }
    if (cn)
        cn->last_heard = uv_now(r->loop);
    switch (m->msg_case) {
    case STEPNET__CONTROL__MSG_HEARTBEAT: /* its answer: last_heard, liveness for blame, or a
                                           * control-leg round */
        if (cn && (m->heartbeat->seq & CTL_SEQ))
            on_ctl_answer(r, m->heartbeat->seq);
        else if (cn && m->heartbeat->seq > cn->answered_hb)
            cn->answered_hb = m->heartbeat->seq;
        break;
    case STEPNET__CONTROL__MSG_HELLO:
        if (cn == NULL)
            on_hello(r, pc, m->hello);
        break;
    case STEPNET__CONTROL__MSG_READY:
        on_ready(r, cn, m->ready);
        break;
    case STEPNET__CONTROL__MSG_CALIBRATED:
        on_calibrated(r, cn, m->calibrated);
        break;
    case STEPNET__CONTROL__MSG_COMPLETE:
        if (r->phase == SN_COORD_PH_RUN && m->complete->cid == r->wire_cid && !cn->complete) {
            cn->complete = 1;
            if (++r->ncomplete == r->n)
                r->tlast = uv_hrtime();
        }
        break;
    case STEPNET__CONTROL__MSG_RESULT:
        on_result(r, cn, m);
        break;
    case STEPNET__CONTROL__MSG_CLOCK_ECHO:
        on_clock_echo(r, cn, m->clock_echo);
        break;
    case STEPNET__CONTROL__MSG_ABORT: {
        const Stepnet__Abort *ab = m->abort;
        int who = ab->has_node ? (int) ab->node : cn->id;
        sn__coord_report(r, ab->has_kind ? (int) ab->kind : STEPNET__ABORT_KIND__ABORT_SELF, who,
                         ab->has_peer ? (int) ab->peer : SN_COORD_NODE_NONE,
                         ab->has_slot ? ab->slot : 0, ab->missing, ab->n_missing, "node %d: %s",
                         who, ab->reason);
        if (ab->has_edge && r->nreports > 0 && r->reports[r->nreports - 1].node == who) {
            r->reports[r->nreports - 1].edge_known = 1;
            r->reports[r->nreports - 1].edge = ab->edge;
        }
        break;
    }
    default:
        sn__coord_fail(r, cn->id, 0, "unexpected control message %d from node %d",
                       (int) m->msg_case, cn->id);
    }
    sn__coord_progress_update(r); /* a hello, READY, calibration or clock answer moved it on */
out:
    if (m)
        stepnet__control__free_unpacked(m, NULL);
}

static void ctl_error(sn_conn_t *c, int status, const char *what)
{
    sn_coord_pconn_t *pc = c->owner;
    sn_coord_t *r = pc->run;
    if (r->stopping)
        return;
    if (pc->node == NULL) { /* not a node of this run (yet): refused, the run goes on */
        sn_admit_done(&r->admit, c);
        if (status == SN_EPROTO || status == SN_ETIMEOUT || !c->established)
            sn_admit_refused(&r->admit, c->peer, what);
        return;
    }
    sn_coord_node_t *cn = pc->node;
    sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                     "node %d (pid %u) lost its control connection: %s (%s)", cn->id, cn->pid, what,
                     sn_err_is_own(status) ? sn_uv_error_text(status) : sn_uv_error_name(status));
}

static void ctl_closed(sn_conn_t *c)
{
    sn_coord_pconn_t *pc = c->owner;
    sn_admit_done(&pc->run->admit, c);
    if (pc->node && pc->node->conn == c)
        pc->node->conn = NULL;
    if (pc->prev)
        pc->prev->next = pc->next;
    else
        pc->run->pconns = pc->next;
    if (pc->next)
        pc->next->prev = pc->prev;
    free(pc);
}

static const sn_conn_ops_t ctl_ops = {ctl_frame, ctl_error, ctl_closed};

static void admit_log(sn_admit_t *a, const char *line)
{
    const sn_coord_t *r = a->owner;
    sn_log_write(&r->log, SN_LOG_WARN, "COORD-ADMIT", "%s", line);
}

/* Accepts one connection of the listener: a stranger until its hello. */
static void accept_one(sn_admit_t *a)
{
    sn_coord_t *r = a->owner;
    sn_coord_pconn_t *pc = sn_xcalloc(1, sizeof *pc);
    pc->run = r;
    pc->next = r->pconns;
    if (r->pconns)
        r->pconns->prev = pc;
    r->pconns = pc;
    sn_conn_init(r->loop, &pc->c, &ctl_ops, pc);
    sn_wire_limits_control_prehello(&pc->c);
    /* a peer that authenticates (or, with --security none, just connects) and then says nothing
     * is closed at the connect deadline instead of holding a connection for the whole run */
    sn_conn_expect(&pc->c, r->o->connect_ms ? r->o->connect_ms : SN_COORD_DEFAULT_CONNECT_MS,
                   "hello");
    if (uv_accept((uv_stream_t *) &r->listener, (uv_stream_t *) &pc->c.tcp) < 0 ||
        sn_conn_start(&pc->c, &r->sec, 0) < 0 || r->stopping) {
        sn_conn_close(&pc->c);
        return;
    }
    sn_admit_add(&r->admit, &pc->c);
}

const sn_admit_ops_t sn__coord_admit_ops = {admit_log, accept_one};

void sn__coord_on_connection(uv_stream_t *server, int status)
{
    sn_coord_t *r = server->data;
    if (sn_admit_gate(&r->admit, status) == 0)
        accept_one(&r->admit);
}
