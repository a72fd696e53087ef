/* The control channel of stepnet-node (node/): connecting to the coordinator (with retries until
 * the connect deadline), the Hello that announces this node's data address, taking the Assign
 * (topology, algorithm, parameters, links), and the coordinator's CALIBRATE, START, STOP and
 * ABORT. */
#define _GNU_SOURCE /* gethostname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/node_internal.h"
#include "proc/uv_error.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

void sn__node_send_ctl(node_t *nd, const Stepnet__Control *m)
{
    if (nd->ctl.up && nd->ctl.lc)
        sn_wire_send_control(&nd->ctl.lc->c, m);
}

/* ---- the assignment ------------------------------------------------------------------------- */

static int take_assignment(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    nd->id = a->node;
    nd->token = a->token;
    int rc;
    if (a->has_topology_file) {
        /* the file: factor's path as the spec names it, up to the next product factor */
        const char *at = strstr(a->topology, "file:");
        char path[1100];
        snprintf(path, sizeof path, "%.*s", at ? (int) strcspn(at + 5, "*") : 0, at ? at + 5 : "");
        sn_topo_file_t file = {path, (char *) a->topology_file.data, a->topology_file.len};
        rc = sn_topo_parse_with(a->topology, &file, 1, &nd->topo, err);
        const sn_topo_t *f = rc == 0 ? sn_topo_file_factor(nd->topo) : NULL;
        /* a coordinator sends the canonical edge list (sn_topo_file_text), nothing longer: a
         * text padded with comments is refused, not held by every node */
        if (f)
            rc = sn_topo_file_text_check(f, file.len, err);
    } else {
        rc = sn_topo_parse(a->topology, &nd->topo, err);
    }
    if (rc < 0) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        return sn_err_set(err, rc, "topology: %s", m);
    }
    const sn_topo_t *t = nd->topo;
    if (a->nodes != t->n || a->node >= t->n)
        return sn_err_set(err, SN_EINVAL, "assignment of node %u of %u does not fit %s (%u nodes)",
                          a->node, a->nodes, t->spec, t->n);
    sn_params_t *p = &nd->params;
    if ((rc = sn_wire_assign_to_params(a, p, &nd->sources, err)) < 0 ||
        (rc = sn_params_check(t, p, err)) < 0)
        return rc;
    /* a sweep: links take frames of the largest size; collective 1 runs Assign.size */
    nd->ex.max_size = a->has_max_size && a->max_size > p->size ? a->max_size : p->size;
    nd->ex.next_size = p->size;
    if (nd->ex.max_size > SN_MAX_PACKET_SIZE)
        return sn_err_set(err, SN_EINVAL, "largest packet size %u bytes out of range: at most %u",
                          nd->ex.max_size, SN_MAX_PACKET_SIZE);
    nd->algo = sn_model_find(a->algorithm);
    if (nd->algo == NULL)
        return sn_err_set(err, SN_EINVAL, "unknown algorithm '%s'", a->algorithm);
    if (a->has_schedule_file) /* --algo schedule:FILE: the file's text, checked here again */
        rc = sn_sched_file_plan_text((const char *) a->schedule_file.data, a->schedule_file.len, t,
                                     p, &nd->algo, &nd->plan, err);
    else if ((rc = sn_model_check(nd->algo, t, p, err)) == 0)
        rc = sn_model_plan_new(nd->algo, t, p, &nd->plan, err);
    if (rc < 0)
        return rc;
    nd->state = sn_xcalloc(1, nd->algo->state_size ? nd->algo->state_size : 1);
    nd->diameter = sn_topo_diameter(t, 0);
    nd->connect_ms = a->connect_ms;
    if (nd->connect_ms) /* the run's deadline for link handshakes too */
        nd->sec.deadline_ms = nd->connect_ms;
    nd->slot_ms = a->slot_ms;
    nd->collective_ms = a->collective_ms;
    nd->max_slots = a->max_slots ? a->max_slots : UINT64_MAX;
    nd->spin_ns = a->has_spin_us ? (uint64_t) a->spin_us * 1000 : 0;
    if (a->has_ciphers) /* the links this node dials offer these (--cipher) */
        nd->sec.ciphers = (int) a->ciphers;
    if (a->fault && (rc = sn_wire_fault_parse(a->fault, &nd->fault, err)) < 0)
        return rc;
    if ((rc = sn__node_links_init(nd, a, err)) < 0 || (rc = sn__node_emu_init(nd, a, err)) < 0)
        return rc;
    /* the execution mode, chosen here once: from now on exec.c plays through its table */
    sn_sync_t sync;
    if ((rc = sn_wire_assign_to_sync(a, &sync, err)) < 0)
        return rc;
    nd->ex.mode = sn__node_mode(sync);
    if ((rc = nd->ex.mode->mode_assign(nd, a, err)) < 0)
        return rc;
    sn__node_assigned(nd);
    return 0;
}

/* ---- the control connection ----------------------------------------------------------------- */

/* The coordinator's liveness, checked every heartbeat period: outside a collective, a coordinator
 * that sent nothing for SN_HEARTBEAT_MISSES periods is stopped or unreachable, and the node
 * leaves. In a collective the silence is not counted (the coordinator sends nothing then). After
 * this node's own abort it is counted too: a live coordinator answers, or at least sends its
 * heartbeats while it finds the root cause, so a node whose neighbours never started (the
 * coordinator stopped in the middle of a START) leaves naming the coordinator at the heartbeat
 * deadline instead of waiting for an answer that cannot come. */
static void on_hb_check(uv_timer_t *t)
{
    node_t *nd = t->data;
    uint64_t now = uv_now(nd->loop), limit = (uint64_t) SN_HEARTBEAT_MISSES * nd->ctl.hb_ms;
    /* a tick two periods late: this node was stalled and could not read; not judged */
    int stalled = nd->ctl.last_tick && now - nd->ctl.last_tick > 2 * (uint64_t) nd->ctl.hb_ms;
    nd->ctl.last_tick = now;
    if (nd->ex.running || nd->stopping || stalled) {
        nd->ctl.last_heard = now;
        return;
    }
    /* before the coordinator's first frame (it may still be starting the other local nodes),
     * the connect deadline if it is longer */
    uint32_t connect_ms = nd->opts.connect_ms ? nd->opts.connect_ms : 10000;
    if (!nd->ctl.heard_any && limit < connect_ms)
        limit = connect_ms;
    if (now - nd->ctl.last_heard <= limit)
        return;
    char msg[300];
    snprintf(msg, sizeof msg,
             "the coordinator at %s sent nothing for %llu ms (heartbeat deadline %u x %u ms): it "
             "is stopped or unreachable; leaving",
             nd->opts.coordinator, (unsigned long long) (now - nd->ctl.last_heard),
             SN_HEARTBEAT_MISSES, nd->ctl.hb_ms);
    sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-SILENT", "%s", msg);
    /* said on the control connection too: a stopped coordinator reads it when it resumes */
    sn__node_report(nd, SN_ETIMEOUT, 0, STEPNET__ABORT_KIND__ABORT_COORDINATOR, -1, NULL, 0, "%s",
                    msg);
    sn__node_exit(nd, 1);
}

static void hb_start(node_t *nd)
{
    nd->ctl.last_heard = uv_now(nd->loop);
    nd->ctl.last_tick = 0;
    if (nd->ctl.hb_ms)
        uv_timer_start(&nd->ctl.hb_timer, on_hb_check, nd->ctl.hb_ms, nd->ctl.hb_ms);
    else
        uv_timer_stop(&nd->ctl.hb_timer);
}

static void ctl_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    node_t *nd = ((lconn_t *) c->owner)->nd;
    nd->ctl.last_heard = uv_now(nd->loop);
    nd->ctl.heard_any = 1;
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    if (m == NULL) {
        sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-PROTO",
                     "malformed control frame from the coordinator");
        sn__node_exit(nd, 1);
        return;
    }
    sn_err_t err = {0};
    switch (m->msg_case) {
    case STEPNET__CONTROL__MSG_HEARTBEAT: {
        Stepnet__Control a = STEPNET__CONTROL__INIT;
        Stepnet__Heartbeat hb = STEPNET__HEARTBEAT__INIT;
        hb.seq = m->heartbeat->seq;
        a.msg_case = STEPNET__CONTROL__MSG_HEARTBEAT;
        a.heartbeat = &hb;
        sn__node_send_ctl(nd, &a);
        break;
    }
    case STEPNET__CONTROL__MSG_ASSIGN:
        if (nd->exit_code) /* it reported a failure: it waits for the coordinator's answer */
            break;
        if (nd->assigned) {
            sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-PROTO", "second assignment");
            sn__node_exit(nd, 1);
            break;
        }
        if (take_assignment(nd, m->assign, &err) < 0) {
            sn__node_assigned(nd);
            sn__node_abort(nd, SN_EINVAL, 0, "bad assignment: %s", err.msg);
            break;
        }
        nd->ctl.deadline = uv_now(nd->loop) + nd->connect_ms;
        if (m->assign->has_heartbeat_ms) { /* the run's period */
            nd->ctl.hb_ms = m->assign->heartbeat_ms;
            hb_start(nd);
        }
        sn_log_write(&nd->log, SN_LOG_INFO, "NODE-ASSIGN", "%s, %s with %s, %u links, spin %llu us",
                     nd->topo->spec, sn_coll_name(nd->params.coll), nd->algo->name, nd->deg,
                     (unsigned long long) (nd->spin_ns / 1000));
        sn__node_links_start(nd);
        break;
    case STEPNET__CONTROL__MSG_CALIBRATE:
        if (nd->net.ready_sent)
            sn__node_calibrate(nd, m->calibrate->bytes, m->calibrate->probes,
                               m->calibrate->has_concurrent && m->calibrate->concurrent);
        break;
    case STEPNET__CONTROL__MSG_START:
        if (nd->net.ready_sent && !nd->exit_code)
            sn__node_start(nd, m->start);
        break;
    case STEPNET__CONTROL__MSG_CLOCK_PROBE: { /* answered at once with this node's clock */
        Stepnet__Control a = STEPNET__CONTROL__INIT;
        Stepnet__ClockEcho ce = STEPNET__CLOCK_ECHO__INIT;
        ce.seq = m->clock_probe->seq;
        ce.node_ns = uv_hrtime();
        a.msg_case = STEPNET__CONTROL__MSG_CLOCK_ECHO;
        a.clock_echo = &ce;
        sn__node_send_ctl(nd, &a);
        break;
    }
    case STEPNET__CONTROL__MSG_STOP:
        sn__node_exit(nd, nd->exit_code);
        break;
    case STEPNET__CONTROL__MSG_ABORT:
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-STOP", "the coordinator aborted the run: %s",
                     m->abort->reason);
        sn__node_exit(nd, 1);
        break;
    default:
        sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-PROTO", "unexpected control message %d",
                     (int) m->msg_case);
        sn__node_exit(nd, 1);
    }
    stepnet__control__free_unpacked(m, NULL);
}

static void ctl_on_error(sn_conn_t *c, int status, const char *what)
{
    node_t *nd = ((lconn_t *) c->owner)->nd;
    nd->ctl.up = 0;
    if (nd->stopping)
        return;
    sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-DOWN",
                 "control connection to the coordinator: %s (%s)", what, sn_uv_error_name(status));
    sn__node_exit(nd, 1);
}

static void ctl_on_closed(sn_conn_t *c)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    if (nd->ctl.lc == lc) { /* the established control connection is gone */
        nd->ctl.lc = NULL;
        nd->ctl.up = 0;
        if (!nd->stopping)
            sn__node_exit(nd, 1);
    }
    sn__node_lconn_free(lc);
}

static const sn_conn_ops_t ctl_ops = {ctl_on_frame, ctl_on_error, ctl_on_closed};

static void on_ctl_retry(uv_timer_t *t)
{
    sn__node_ctl_connect(t->data);
}

/* Connected: starts the handshake and says hello with this node's data address. */
static void send_hello(node_t *nd)
{
    /* the data host: given, or the address this host has towards the coordinator (chosen with
     * the listener when the node listens on it, node/lifecycle.c) */
    if (nd->opts.advertise) {
        sn_addr_t adv;
        if (sn_node_parse_host(nd->opts.advertise, &adv, NULL) == 0)
            snprintf(nd->net.data_host, sizeof nd->net.data_host, "%s", adv.host);
    } else if (nd->net.data_host[0] == '\0') {
        struct sockaddr_storage sa;
        int salen = sizeof sa;
        if (uv_tcp_getsockname(&nd->ctl.lc->c.tcp, (struct sockaddr *) &sa, &salen) == 0)
            uv_ip_name((struct sockaddr *) &sa, nd->net.data_host, sizeof nd->net.data_host);
    }
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Hello h = STEPNET__HELLO__INIT;
    h.version = nd->opts.wire_version ? nd->opts.wire_version : SN_WIRE_VERSION;
    h.data_host = nd->net.data_host;
    h.data_port = (uint32_t) nd->net.data_port;
    h.has_want_id = nd->opts.want_id >= 0;
    h.want_id = nd->opts.want_id;
    h.has_pid = 1;
    h.pid = (uint32_t) getpid();
    h.hostname = host;
    m.msg_case = STEPNET__CONTROL__MSG_HELLO;
    m.hello = &h;
    sn_wire_send_control(&nd->ctl.lc->c, &m);
}

static void on_ctl_connect(uv_connect_t *req, int status)
{
    node_t *nd = req->data;
    if (nd->stopping)
        return;
    if (status < 0) {
        if (uv_now(nd->loop) >= nd->ctl.deadline) {
            sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-CONNECT",
                         "connect deadline (%u ms): cannot reach the coordinator at %s: %s",
                         nd->opts.connect_ms, nd->opts.coordinator, uv_strerror(status));
            sn__node_exit(nd, 1);
            return;
        }
        /* a fresh connection for the next attempt; this one is closed and freed */
        nd->ctl.backoff =
            nd->ctl.backoff ? (nd->ctl.backoff * 2 > 500 ? 500 : nd->ctl.backoff * 2) : 10;
        lconn_t *lc = nd->ctl.lc;
        nd->ctl.lc = NULL;
        sn__node_lconn_close(lc);
        uv_timer_start(&nd->ctl.retry, on_ctl_retry, nd->ctl.backoff, 0);
        return;
    }
    nd->ctl.up = 1;
    sn_conn_start(&nd->ctl.lc->c, &nd->sec, 1);
    send_hello(nd);
    hb_start(nd);
    /* a node without a listener (an exhausted --port-range, ...) joins only to say why: the
     * coordinator names it in the run's verdict, and this node takes no assignment */
    if (nd->net.listen_error[0])
        sn__node_report(nd, nd->net.listen_rc, 0, STEPNET__ABORT_KIND__ABORT_SELF, -1, NULL, 0,
                        "%s", nd->net.listen_error);
}

void sn__node_ctl_connect(node_t *nd)
{
    nd->ctl.lc = sn__node_lconn_new(nd, &ctl_ops);
    sn_wire_limits_control(&nd->ctl.lc->c);
    snprintf(nd->ctl.lc->c.name, sizeof nd->ctl.lc->c.name, "coordinator");
    nd->ctl.req.data = nd;
    int rc = uv_tcp_connect(&nd->ctl.req, &nd->ctl.lc->c.tcp,
                            (const struct sockaddr *) &nd->ctl.coord_sa, on_ctl_connect);
    if (rc < 0) {
        sn_log_write(&nd->log, SN_LOG_ERROR, "CTL-CONNECT", "connect to %s: %s",
                     nd->opts.coordinator, uv_strerror(rc));
        sn__node_exit(nd, 1);
    }
}
