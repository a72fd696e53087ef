/* sn_coord_run (coordinator): the life cycle of one TCP run. Sets up the key, the token and the
 * control listener, starts or awaits the nodes (launch/), lets the control state machine
 * (control.c) drive the phases, collects failure reports for blame (blame.c), and shuts down: STOP
 * or ABORT to every node, a grace period, every handle closed before the loop is. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "coordinator/coord_internal.h"
#include "net/tcpinfo.h"
#include "proc/uv_error.h"
#include "stepnet/schedule_file.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

void sn_coord_opts_default(sn_coord_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->reps = SN_COORD_DEFAULT_REPS;
    o->warmup = SN_COORD_DEFAULT_WARMUP;
    o->probes = SN_COORD_DEFAULT_PROBES;
    o->security = SN_SEC_SODIUM;
    o->fault_node = SN_COORD_NODE_NONE;
    o->connect_ms = SN_COORD_DEFAULT_CONNECT_MS;
    o->slot_ms = SN_COORD_DEFAULT_SLOT_MS;
    o->collective_ms = SN_COORD_DEFAULT_COLLECTIVE_MS;
    o->heartbeat_ms = SN_HEARTBEAT_DEFAULT_MS;
    o->spin_us = SN_COORD_DEFAULT_SPIN_US;
    o->coord_nice = SN_COORD_DEFAULT_NICE;
}

void sn_coord_result_free(sn_coord_result_t *result)
{
    for (size_t k = 0; result->points && k < result->npoints; k++) {
        free(result->points[k].wall_ns);
        free(result->points[k].coll_ns);
        free(result->points[k].node_ns);
        free(result->points[k].barrier_ns);
    }
    free(result->points);
    free(result->links);
    free(result->hosts);
    free(result->wall_ns);
    sn_coord_trace_free(result->trace);
    free(result->coll_ns);
    free(result->node_ns);
    sn_emu_free(result->emu);
    free(result->edge_alpha_us);
    free(result->edge_hop_us);
    free(result->node_conc_rtt0_us);
    free(result->node_conc_rtt_us);
    memset(result, 0, sizeof *result);
}

/* ---- failure and shutdown ------------------------------------------------------------------ */

/* Whether node i's process, when its launcher started one, still runs. */
uint64_t sn_coord_fd_need(uint32_t nodes)
{
    return (uint64_t) nodes + SN_COORD_FD_BASE + SN_ADMIT_FD_HEADROOM;
}

static int running(const sn_coord_t *r, uint32_t i)
{
    return r->launcher->running && r->launcher->running(r->launcher_state, i);
}

static int all_exited(const sn_coord_t *r)
{
    for (uint32_t i = 0; r->launcher_state && i < r->n; i++)
        if (running(r, i))
            return 0;
    return 1;
}

static void close_handle(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

void sn__coord_close_all(sn_coord_t *r)
{
    if (!all_exited(r))
        return;
    /* the nodes' control connections and any stranger's that is still open (one that never
     * finished its handshake or never said hello must not keep the run alive) */
    for (sn_coord_pconn_t *pc = r->pconns; pc; pc = pc->next)
        sn_conn_close(&pc->c);
    close_handle((uv_handle_t *) &r->listener);
    if (r->admit.timers_live)
        sn_admit_close(&r->admit);
    close_handle((uv_handle_t *) &r->deadline);
    close_handle((uv_handle_t *) &r->grace);
    close_handle((uv_handle_t *) &r->blame_timer);
    close_handle((uv_handle_t *) &r->heartbeat);
    close_handle((uv_handle_t *) &r->sigint);
    close_handle((uv_handle_t *) &r->sigterm);
    if (r->launcher_state && r->launcher->close)
        r->launcher->close(r->launcher_state);
}

static void on_grace(uv_timer_t *t)
{
    sn_coord_t *r = t->data;
    if (r->launcher_state && r->launcher->kill)
        r->launcher->kill(r->launcher_state);
    sn__coord_close_all(r);
}

void sn__coord_send_all(sn_coord_t *r, const Stepnet__Control *m)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].conn)
            sn_wire_send_control(r->nodes[i].conn, m);
}

/* Node i's evidence for blame: did it answer the liveness probe, and, when it did not and its
 * control connection is still open, does its host acknowledge what the coordinator sends it (the
 * probe and the heartbeats of the blame window)? */
static void evidence(sn_coord_t *r, uint32_t i, sn_coord_evidence_t *ev)
{
    const sn_coord_node_t *cn = &r->nodes[i];
    sn_tcp_state_t ts = {0};
    int answered = cn->answered_hb >= r->probe_seq;
    /* a node whose process has ended has no connection worth reading */
    int gone = r->launcher->running && !running(r, i);
    int have_tcp = !answered && cn->conn != NULL && !gone && sn_tcp_state(&cn->conn->tcp, &ts) == 0;
    sn_coord_tcp_t tcp = {ts.unacked, ts.retransmits, ts.backoff, ts.last_ack_ms};
    ev->waited_ms = uv_now(r->loop) - r->probe_ms;
    ev->live = sn__coord_liveness(answered, have_tcp ? &tcp : NULL, ev->waited_ms);
    ev->pid = cn->pid;
    ev->unacked = ts.unacked;
    ev->retransmits = ts.retransmits;
}

/* The verdict of blame over the reports so far, into the result. */
static void blame(sn_coord_t *r)
{
    sn_coord_verdict_t v;
    sn_coord_evidence_t *ev = NULL;
    if (r->probe_seq) {
        ev = sn_xcalloc(r->n, sizeof *ev);
        for (uint32_t i = 0; i < r->n; i++)
            evidence(r, i, &ev[i]);
    }
    /* stopped past the nodes' heartbeat deadline, this process is the cause of their leaving,
     * whatever a neighbour of a node that left first reported (fault_matrix's coordinator case
     * blamed such a neighbour once) */
    if (!r->self_stalled || !sn__coord_silent_verdict(r->reports, r->nreports, 1, &v))
        sn__coord_blame(r->reports, r->nreports, r->n, ev, &v);
    free(ev);
    r->res->fail_node = v.culprit;
    r->res->fail_slot = v.slot;
    snprintf(r->res->error, sizeof r->res->error, "%s", v.error);
}

void sn__coord_finish(sn_coord_t *r, int failed)
{
    if (r->stopping)
        return;
    failed |= r->res->failed; /* a failure recorded while the run went on ends it as a failure */
    if (failed && r->nreports > 0 && r->res->error[0] == '\0')
        blame(r);
    r->stopping = 1;
    /* the size whose repetition failed (the first when none started) */
    if (failed && r->res->points[r->point].state == SN_COORD_POINT_PENDING)
        r->res->points[r->point].state = SN_COORD_POINT_FAILED;
    sn__coord_progress(r, 0, 1);
    r->phase = SN_COORD_PH_DONE;
    uv_timer_stop(&r->deadline);
    uv_timer_stop(&r->blame_timer);
    uv_timer_stop(&r->heartbeat);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Stop st = STEPNET__STOP__INIT;
    Stepnet__Abort ab = STEPNET__ABORT__INIT;
    if (failed) {
        ab.reason = r->res->error;
        m.msg_case = STEPNET__CONTROL__MSG_ABORT;
        m.abort = &ab;
    } else {
        m.msg_case = STEPNET__CONTROL__MSG_STOP;
        m.stop = &st;
    }
    sn__coord_send_all(r, &m);
    uv_timer_start(&r->grace, on_grace, failed ? SN_COORD_GRACE_FAILED_MS : SN_COORD_GRACE_STOP_MS,
                   0);
    sn__coord_close_all(r);
}

static void on_blame_window(uv_timer_t *t)
{
    sn_coord_t *r = t->data;
    blame(r);
    sn__coord_finish(r, 1);
}

/* 1 when every node that a slot-deadline report names as silent has reported too (a link cut:
 * both ends alive and accusing each other), or no report accuses anyone. */
static int accused_all_reported(const sn_coord_t *r)
{
    for (size_t i = 0; i < r->nreports; i++) {
        const sn_coord_report_t *rp = &r->reports[i];
        if (rp->kind != STEPNET__ABORT_KIND__ABORT_DEADLINE)
            continue;
        for (size_t m = 0; m < rp->nmissing; m++) {
            int found = 0;
            for (size_t k = 0; k < r->nreports && !found; k++)
                found = r->reports[k].node == (int) rp->missing[m];
            if (!found)
                return 0;
        }
    }
    return 1;
}

void sn__coord_report(sn_coord_t *r, int kind, int node, int peer, uint64_t slot,
                      const uint32_t *missing, size_t nmissing, const char *fmt, ...)
{
    if (r->stopping)
        return;
    sn_grow((void **) &r->reports, &r->capreports, r->nreports + 1, sizeof *r->reports);
    sn_coord_report_t *rp = &r->reports[r->nreports++];
    memset(rp, 0, sizeof *rp);
    rp->kind = kind;
    rp->node = node;
    rp->peer = peer;
    rp->slot = slot;
    if (nmissing) {
        uint32_t *copy = sn_xmalloc(nmissing * sizeof *copy);
        memcpy(copy, missing, nmissing * sizeof *missing);
        rp->missing = copy;
        rp->nmissing = nmissing;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rp->text, sizeof rp->text, fmt, ap);
    va_end(ap);
    /* a report read after this process went longer than the nodes' heartbeat deadline without
     * a tick: it was stopped, and what the nodes report may follow from their leaving */
    if (r->o->heartbeat_ms && r->hb_last_tick &&
        uv_now(r->loop) - r->hb_last_tick > (uint64_t) SN_HEARTBEAT_MISSES * r->o->heartbeat_ms)
        r->self_stalled = 1;
    uint64_t window = SN_COORD_BLAME_WINDOW_MS;
    if (!accused_all_reported(r))
        window += r->o->slot_ms;
    uint64_t due = uv_now(r->loop) + window;
    if (!r->res->failed || due < r->blame_due) {
        if (!r->res->failed) { /* who is alive: the nodes that answer this before blame */
            r->probe_seq = sn__coord_probe(r);
            r->probe_ms = uv_now(r->loop);
        }
        r->res->failed = 1;
        uv_timer_stop(&r->deadline);
        r->blame_due = due;
        uv_timer_start(&r->blame_timer, on_blame_window, window, 0);
    }
}

/* SIGINT or SIGTERM: the run ends at once as interrupted (blame names the interrupt, not a node
 * that died of the same Ctrl-C first); `stepnet run` exits with 128 + the signal's number. */
static void on_signal(uv_signal_t *s, int signum)
{
    sn_coord_t *r = s->data;
    if (r->stopping)
        return;
    r->res->interrupted = signum;
    sn__coord_report(r, SN_COORD_KIND_INTERRUPT, SN_COORD_NODE_NONE, SN_COORD_NODE_NONE, 0, NULL, 0,
                     "interrupted by the user (%s)", signum == SIGINT ? "SIGINT" : "SIGTERM");
    blame(r);
    sn__coord_finish(r, 1);
}

/* ---- set-up ---------------------------------------------------------------------------------- */

/* Everything that needs no event loop: topology files, the key, the token, the tables. */
/* What an Assign carries besides its file graph, schedule and receive plan (the parameters, the
 * peers' addresses, the emulated links): far below this. */
#define SN_COORD_ASSIGN_SLACK (1u << 20)

static int prepare(sn_coord_t *r, const sn_launch_ctx_t *ctx, sn_err_t *err)
{
    const sn_coord_opts_t *o = r->o;
    /* nodes get a file: graph as its edge list, parsed here already: never the file itself,
     * whose comments and spacing could be far larger than the graph */
    uint32_t nfiles = r->t->kind == SN_TOPO_FILE;
    for (uint32_t i = 0; i < r->t->nfactors; i++)
        nfiles += r->t->factors[i]->kind == SN_TOPO_FILE;
    if (nfiles > 1)
        return sn_err_set(err, SN_EINVAL, "run supports one file: factor per topology (got %u)",
                          nfiles);
    const sn_topo_t *f = sn_topo_file_factor(r->t);
    if (f && sn_topo_file_text_max(f) > SN_TOPO_MAX_FILE) {
        char a[32], b[32];
        return sn_err_set(err, SN_EINVAL,
                          "%s has %u edges: its edge list (about %s) is more than an assignment "
                          "carries (%s)",
                          f->spec, f->nedges, sn_fmt_bytes(sn_topo_file_text_max(f), a, sizeof a),
                          sn_fmt_bytes(SN_TOPO_MAX_FILE, b, sizeof b));
    }
    if (f)
        sn_topo_file_text(f, &r->file_text, &r->file_len);
    /* --algo schedule:FILE: the checked schedule, which every node checks again */
    int sched_rc = sn_sched_file_text(o->job.algo, o->job.plan, r->t, &o->job.params,
                                      &r->sched_text, &r->sched_len, err);
    if (sched_rc < 0)
        return sched_rc;
    /* a mode with receive plans (dataflow): every node learns its receptions from one dry run of
     * the schedule; plans do not depend on the packet size, so the one plan serves every size of
     * a sweep */
    if (sn_sync_needs_rxplan(o->sync)) {
        /* within what the run's estimate leaves of --max-memory (the same estimate the command
         * checked before it came here) */
        sn_mem_t mem;
        sn_mem_extra_t extra = {.emulated = o->emu_file || sn_emu_link_active(&o->emu)};
        sn_model_mem_estimate_with(r->t, &o->job.params, SN_MEM_RUN, &extra, &mem);
        uint64_t budget = o->max_memory == 0          ? 0
                          : o->max_memory > mem.total ? o->max_memory - mem.total
                                                      : 1;
        int rc = sn_rxplan_build(r->t, &o->job.params, o->job.algo, o->job.plan,
                                 sn_model_slot_limit(r->t, &o->job.params, o->job.predicted),
                                 budget, &r->rxplan, err);
        if (rc < 0)
            return rc;
        /* an emulated link holds its frames whole until their release, and without the barrier
         * a node may send all of a link's frames before the first is released: the frames beyond
         * the estimate's window count too (every link, as if every link were emulated) */
        uint64_t held =
            extra.emulated ? sn_rxplan_frames_beyond(&r->rxplan, r->t, SN_MODEL_EMU_FRAMES) : 0;
        uint64_t frame = sn_model_mem_link_emulated(o->job.params.size) / SN_MODEL_EMU_FRAMES;
        uint64_t need = sn_rxplan_bytes(r->rxplan.total, r->n) +
                        (held > UINT64_MAX / (frame + 1) ? UINT64_MAX : held * frame);
        /* every Assign must stay within a control frame: the plan's varints (10 bytes at most)
         * beside a file: graph's edge list and a schedule file */
        if ((rc = sn_rxplan_check_wire(
                 &r->rxplan, (uint64_t) r->file_len + r->sched_len + SN_COORD_ASSIGN_SLACK,
                 SN_WIRE_MAX_CONTROL, err)) < 0)
            return rc;
        if (budget && need > budget) {
            char a[32], b[32];
            return sn_err_set_param(
                err, SN_EINVAL, SN_PARAM_MEMORY,
                SN_REF_SYNC
                " dataflow over emulated links: the receive plan and the %llu "
                "frames the links may hold whole beyond the slot barrier's window need about %s, "
                "more than the %s the run's estimate leaves of the memory limit; use " SN_REF_SYNC
                " slot or a larger limit",
                (unsigned long long) held, sn_fmt_bytes(need, a, sizeof a),
                sn_fmt_bytes(budget, b, sizeof b));
        }
    }
    int rc;
    if (r->launcher->check && (rc = r->launcher->check(ctx, err)) < 0)
        return rc;
    r->sec.mode = o->security;
    r->sec.ciphers = o->ciphers;
    r->sec.deadline_ms = o->connect_ms ? o->connect_ms : SN_COORD_DEFAULT_CONNECT_MS;
    if (o->security == SN_SEC_SODIUM) {
        char kerr[sizeof err->msg];
        r->key = sn_key_new(o->key_file, -1, kerr, sizeof kerr); /* fresh if no file */
        if (r->key == NULL)
            return sn_err_set(err, SN_EINVAL, "%s", kerr);
        r->sec.key = r->key;
    }
    /* a run token that every link hello must carry */
    if (o->has_token)
        r->token = o->token;
    else
        uv_random(NULL, NULL, &r->token, sizeof r->token, 0, NULL);
    rc = sn_coord_emu_build(o, r->t, &r->res->emu, err);
    if (rc < 0)
        return rc;
    r->res->edge_alpha_us = sn_xcalloc((size_t) r->t->nedges + 1, sizeof *r->res->edge_alpha_us);
    r->res->edge_hop_us = sn_xcalloc((size_t) r->t->nedges + 1, sizeof *r->res->edge_hop_us);
    for (uint32_t e = 0; e < r->t->nedges; e++)
        r->res->edge_alpha_us[e] = r->res->edge_hop_us[e] = -1;
    r->res->node_conc_rtt0_us = sn_xcalloc((size_t) r->n + 1, sizeof *r->res->node_conc_rtt0_us);
    r->res->node_conc_rtt_us = sn_xcalloc((size_t) r->n + 1, sizeof *r->res->node_conc_rtt_us);
    for (uint32_t u = 0; u < r->n; u++)
        r->res->node_conc_rtt0_us[u] = r->res->node_conc_rtt_us[u] = -1;
    r->res->ctl_us = -1;
    r->nodes = sn_xcalloc(r->n, sizeof *r->nodes);
    r->res->wall_ns = sn_xcalloc((size_t) o->reps + 1, sizeof *r->res->wall_ns);
    /* the sizes: a sweep's, or the run's one (the expected digests follow the size:
     * sn__coord_point_begin) */
    size_t np = o->sizes && o->nsizes ? o->nsizes : 1;
    r->res->points = sn_xcalloc(np, sizeof *r->res->points);
    r->res->npoints = np;
    for (size_t k = 0; k < np; k++) {
        r->res->points[k].size = o->sizes && o->nsizes ? o->sizes[k] : r->job->params.size;
        r->res->points[k].wall_ns = sn_xcalloc((size_t) o->reps + 1, sizeof(uint64_t));
        r->res->points[k].coll_ns = sn_xcalloc((size_t) o->reps + 1, sizeof(uint64_t));
        r->res->points[k].node_ns = sn_xcalloc((size_t) o->reps + 1, sizeof(uint64_t));
        r->res->points[k].barrier_ns = sn_xcalloc((size_t) o->reps + 1, sizeof(uint64_t));
    }
    r->res->hosts = sn_xcalloc(r->n, sizeof *r->res->hosts);
    r->res->nhosts = r->n;
    r->params = r->job->params;
    r->params.size = r->res->points[0].size;
    r->res->coll_ns = sn_xcalloc((size_t) o->reps + 1, sizeof *r->res->coll_ns);
    r->res->node_ns = sn_xcalloc((size_t) o->reps + 1, sizeof *r->res->node_ns);
    r->offset_ns = sn_xcalloc(r->n, sizeof *r->offset_ns);
    r->start_ns = sn_xcalloc(r->n, sizeof *r->start_ns);
    r->complete_ns = sn_xcalloc(r->n, sizeof *r->complete_ns);
    r->digest_want = sn_xcalloc(r->n, sizeof *r->digest_want);
    for (uint32_t i = 0; i < r->n; i++) {
        r->nodes[i].run = r;
        r->nodes[i].id = (int) i;
    }
    return 0;
}

/* The control listener on --listen; its bound address in r->listen_addr. */
static int start_listener(sn_coord_t *r, sn_err_t *err)
{
    const char *listen = r->o->listen ? r->o->listen : r->launcher->listen;
    sn_addr_t addr;
    struct sockaddr_storage sa;
    sn_err_t e = {0};
    int rc;
    if ((rc = sn_addr_parse(listen, -1, &addr, &e)) < 0)
        return sn_err_set(err, rc, SN_REF_LISTEN ": %s", e.msg);
    if ((rc = sn_addr_resolve(r->loop, &addr, &sa, &e)) < 0)
        return sn_err_set(err, SN_EINVAL, SN_REF_LISTEN ": %s", e.msg);
    uv_tcp_init(r->loop, &r->listener);
    r->listener.data = r;
    /* every node may connect at once, all from one host */
    sn_admit_init(&r->admit, r->loop, &sn__coord_admit_ops, r, r->n, "control connection");
    rc = sn_addr_listen(&r->listener, (struct sockaddr *) &sa, r->o->port_lo, r->o->port_hi,
                        SN_COORD_LISTEN_BACKLOG, sn__coord_on_connection);
    if (rc == UV_EADDRINUSE && r->o->port_lo)
        return sn_err_set(
            err, rc, "cannot listen on %s: every port of " SN_REF_PORT_RANGE " %u-%u is in use",
            listen, r->o->port_lo, r->o->port_hi);
    if (rc < 0)
        return sn_err_set(err, rc, "cannot listen on %s: %s", listen, sn_uv_error_text(rc));
    int salen = sizeof sa;
    uv_tcp_getsockname(&r->listener, (struct sockaddr *) &sa, &salen);
    r->listen_port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &sa)->sin6_port
                                                    : ((struct sockaddr_in *) &sa)->sin_port);
    sn_addr_format((struct sockaddr *) &sa, r->listen_addr, sizeof r->listen_addr);
    return 0;
}

static void init_handles(sn_coord_t *r)
{
    signal(SIGPIPE, SIG_IGN);
    uv_timer_init(r->loop, &r->deadline);
    r->deadline.data = r;
    uv_timer_init(r->loop, &r->grace);
    r->grace.data = r;
    uv_timer_init(r->loop, &r->blame_timer);
    r->blame_timer.data = r;
    uv_timer_init(r->loop, &r->heartbeat);
    r->heartbeat.data = r;
    uv_signal_init(r->loop, &r->sigint);
    r->sigint.data = r;
    uv_signal_start(&r->sigint, on_signal, SIGINT);
    uv_signal_init(r->loop, &r->sigterm);
    r->sigterm.data = r;
    uv_signal_start(&r->sigterm, on_signal, SIGTERM);
}

static void release(sn_coord_t *r)
{
    for (uint32_t i = 0; r->nodes && i < r->n; i++)
        if (r->nodes[i].res)
            stepnet__result__free_unpacked(r->nodes[i].res, NULL);
    for (size_t i = 0; i < r->nreports; i++)
        free((void *) r->reports[i].missing);
    free(r->reports);
    free(r->nodes);
    free(r->digest_want);
    free(r->offset_ns);
    free(r->start_ns);
    free(r->complete_ns);
    free(r->alpha);
    free(r->beta);
    free(r->ctl_rtt);
    free(r->file_text);
    free(r->sched_text);
    sn_rxplan_free(&r->rxplan);
    if (r->launcher_state)
        r->launcher->free(r->launcher_state);
    sn_key_free(r->key);
}

/* --coord-nice: after the local node processes are started (they keep the priority the
 * coordinator was started with), the thread that runs this coordinator's event loop lowers its
 * own (Linux keeps a nice value per thread, and a thread may raise it but not lower it again
 * without privileges; so sn_coord_run gives each run its own thread, and the caller's priority, for
 * the next run's nodes, is untouched). On a machine shared with the nodes, the Start, Complete and
 * Result messages it handles while the nodes play then take CPU from them less often
 * (docs/runtime.md, "The coordinator's priority"). Lowering is always permitted, so a failure is
 * reported, not ignored. */
static void lower_priority(sn_coord_t *r)
{
    if (r->o->coord_nice == 0)
        return;
    errno = 0;
    int cur = getpriority(PRIO_PROCESS, 0);
    int want = cur + (int) r->o->coord_nice > SN_COORD_MAX_NICE ? SN_COORD_MAX_NICE
                                                                : cur + (int) r->o->coord_nice;
    if ((cur == -1 && errno) || setpriority(PRIO_PROCESS, 0, want) < 0) {
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                       SN_REF_COORD_NICE " %u: cannot lower the priority: %s", r->o->coord_nice,
                       strerror(errno));
        sn__coord_finish(r, 1);
    }
}

/* ---- the launcher's callbacks (launch/launcher.h) ------------------------------------------- */

_Static_assert(SN_LAUNCH_WHY_TEXT >= SN_COORD_BLAME_TEXT, "a launcher's reason fits a report");

const sn_launcher_ops_t *sn__coord_launcher(const sn_coord_opts_t *o, sn_launch_opts_t *lo)
{
    *lo = (sn_launch_opts_t){.join = o->join,
                             .hosts = o->hosts,
                             .map_by = o->map_by,
                             .remote_node = o->remote_node,
                             .ssh = o->ssh,
                             .daemons = o->daemons,
                             .node_bin = o->node_bin,
                             .port_lo = o->port_lo,
                             .port_hi = o->port_hi,
                             .connect_ms = o->connect_ms,
                             .verbose = o->verbose};
    return sn_launcher_of(lo);
}

/* A node started: the launch phase moved on (progress). */
static void on_launch_started(void *engine, uint32_t node)
{
    (void) node;
    sn__coord_progress_update(engine);
}

/* A node's process ended early: a death report for blame (none once the run ends). */
static void on_launch_died(void *engine, uint32_t node, const char *why)
{
    sn__coord_report(engine, SN_COORD_KIND_DEATH, (int) node, SN_COORD_NODE_NONE, 0, NULL, 0, "%s",
                     why);
}

/* The launch cannot go on: the run ends now. */
static void on_launch_failed(void *engine, const char *why)
{
    sn_coord_t *r = engine;
    if (r->stopping)
        return;
    sn__coord_fail(r, SN_COORD_NODE_NONE, 0, "%s", why);
    sn__coord_finish(r, 1);
}

/* A process of the launcher ended: once the run has ended, the handles close with the last. */
static void on_launch_exited(void *engine)
{
    sn_coord_t *r = engine;
    if (r->stopping)
        sn__coord_close_all(r);
}

static int run_here(const sn_coord_opts_t *opts, sn_coord_result_t *result, sn_err_t *err)
{
    sn_coord_t run;
    sn_coord_t *r = &run;
    memset(r, 0, sizeof *r);
    memset(result, 0, sizeof *result);
    result->fail_node = SN_COORD_NODE_NONE;
    result->sync = opts->sync;
    r->o = opts;
    r->res = result;
    r->job = &opts->job;
    r->t = opts->job.topo;
    r->n = r->t->n;
    result->started = (int64_t) time(NULL);
    uv_loop_t loop;
    r->loop = &loop;
    /* the launcher, chosen once, and what it may read of the run */
    sn_launch_ctx_t lctx = {.topo = r->t->spec,
                            .n = r->n,
                            .loop = r->loop,
                            .log = &r->log,
                            .sec = &r->sec,
                            .listen_addr = r->listen_addr,
                            .engine = r,
                            .started = on_launch_started,
                            .died = on_launch_died,
                            .failed = on_launch_failed,
                            .exited = on_launch_exited};
    r->launcher = sn__coord_launcher(opts, &lctx.o);
    int rc = prepare(r, &lctx, err);
    if (rc == 0)
        rc = r->launcher->prepare(&lctx, &r->launcher_state, err);
    if (rc < 0)
        goto done;
    sn_log_init(&r->log, "coord", SN_LOG_ID_NONE, SN_LOG_INFO);
    r->log.name_param = opts->name_param;
    uv_loop_init(r->loop);
    init_handles(r);
    sn__coord_progress_init(r);
    if ((rc = start_listener(r, err)) < 0)
        goto loop_done;
    lctx.listen_port = r->listen_port;
    uint64_t need = sn_coord_fd_need(r->n);
    if (r->admit.fd_limit && r->admit.fd_limit < need) {
        char lim[64];
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                       "the %s is too low for %u nodes: the coordinator holds one control "
                       "connection per node and needs at least %llu descriptors",
                       sn_admit_limit_text(lim, sizeof lim), r->n, (unsigned long long) need);
        sn__coord_finish(r, 1);
    } else {
        sn_err_t e = {0};
        int started = r->launcher->start(r->launcher_state, &e);
        if (r->launcher->hosts)
            r->res->ssh_hosts = r->launcher->hosts(r->launcher_state);
        if (started < 0) {
            sn__coord_fail(r, SN_COORD_NODE_NONE, 0, "could not start the node processes: %s",
                           e.msg);
            sn__coord_finish(r, 1);
        }
    }
    sn__coord_progress_update(r); /* the launch under way, or waiting for joins */
    if (!r->stopping)
        lower_priority(r);
    /* the ready deadline: the option, or the launcher's default for this many nodes */
    r->ready_ms = opts->ready_ms ? opts->ready_ms : sn_launch_ready_default_ms(r->launcher, r->n);
    if (!r->stopping)
        sn__coord_deadline(r, r->ready_ms);
    if (!r->stopping && opts->heartbeat_ms)
        uv_timer_start(&r->heartbeat, sn__coord_on_heartbeat, opts->heartbeat_ms,
                       opts->heartbeat_ms);
    uv_run(r->loop, UV_RUN_DEFAULT);
loop_done:
    sn__coord_close_all(r);
    close_handle((uv_handle_t *) &r->listener);
    if (r->admit.timers_live)
        sn_admit_close(&r->admit);
    close_handle((uv_handle_t *) &r->deadline);
    close_handle((uv_handle_t *) &r->grace);
    close_handle((uv_handle_t *) &r->blame_timer);
    close_handle((uv_handle_t *) &r->heartbeat);
    close_handle((uv_handle_t *) &r->sigint);
    close_handle((uv_handle_t *) &r->sigterm);
    uv_run(r->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(r->loop) != 0)
        sn_log_write(&r->log, SN_LOG_ERROR, "COORD-LOOP-BUSY", "event loop still busy at exit");
done:
    release(r);
    if (rc < 0)
        sn_coord_result_free(result);
    else
        sn_coord_time_model(opts, result);
    return rc;
}

typedef struct {
    const sn_coord_opts_t *opts;
    sn_coord_result_t *result;
    sn_err_t *err;
    int rc;
} run_thread_t;

static void *run_thread(void *arg)
{
    run_thread_t *t = arg;
    t->rc = run_here(t->opts, t->result, t->err);
    return NULL;
}

int sn_coord_run(const sn_coord_opts_t *opts, sn_coord_result_t *result, sn_err_t *err)
{
    if (opts->coord_nice == 0)
        return run_here(opts, result, err);
    run_thread_t t = {opts, result, err, 0};
    pthread_t th;
    int e = pthread_create(&th, NULL, run_thread, &t);
    if (e != 0)
        return sn_err_set(err, SN_ENOMEM, "cannot start the coordinator's thread: %s", strerror(e));
    pthread_join(th, NULL);
    return t.rc;
}
