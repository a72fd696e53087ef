#include <sched.h>
/* The life of a stepnet-node process (node/): start-up (the listener, the control channel),
 * logging, failure reports, signals, and shutdown: every handle closed and its close callback run
 * before the loop is closed and the node's memory freed. */
#define _GNU_SOURCE /* prctl */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "node/node_internal.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

/* ---- logging --------------------------------------------------------------------------------- */

void sn__node_assigned(node_t *nd)
{
    nd->assigned = 1;
    sn_log_set_id(&nd->log, nd->id);
}

/* ---- shutdown ------------------------------------------------------------------------------- */

static void close_if_open(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

void sn__node_exit(node_t *nd, int code)
{
    if (nd->stopping)
        return;
    nd->stopping = 1;
    nd->exit_code = code;
    nd->ctl.up = 0;
    while (nd->nconns > 0) {
        lconn_t *lc = nd->conns[nd->nconns - 1];
        nd->nconns--; /* sn__node_lconn_free must not find it again */
        lc->index = SIZE_MAX;
        sn__node_lconn_close(lc);
    }
    close_if_open((uv_handle_t *) &nd->net.listener);
    if (nd->net.admit.timers_live)
        sn_admit_close(&nd->net.admit);
    close_if_open((uv_handle_t *) &nd->ctl.retry);
    close_if_open((uv_handle_t *) &nd->ctl.hb_timer);
    close_if_open((uv_handle_t *) &nd->ex.slot_timer);
    sn__node_emu_close(nd);
    close_if_open((uv_handle_t *) &nd->sigterm);
    close_if_open((uv_handle_t *) &nd->sigint);
    if (nd->exit_timer_live)
        close_if_open((uv_handle_t *) &nd->exit_timer);
    if (nd->session_live)
        close_if_open((uv_handle_t *) &nd->session);
    for (uint32_t q = 0; nd->links_timers_live && q < nd->deg; q++)
        close_if_open((uv_handle_t *) &nd->links[q].dial.retry);
}

static void on_exit_timer(uv_timer_t *t)
{
    node_t *nd = t->data;
    sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-EXIT",
                 "the coordinator did not answer the abort; exiting");
    sn__node_exit(nd, 1);
}

/* ---- failure reports ------------------------------------------------------------------------ */

void sn__node_report(node_t *nd, int code, uint64_t slot, int kind, int64_t peer,
                     const uint32_t *missing, size_t nmissing, const char *fmt, ...)
{
    if (nd->stopping || nd->exit_code)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-ABORT", "%s: %s", sn_uv_error_name(code), msg);
    nd->exit_code = 1;
    nd->ex.running = 0;
    if (nd->ex.slot_timer.data)
        uv_timer_stop(&nd->ex.slot_timer);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Abort ab = STEPNET__ABORT__INIT;
    ab.reason = msg;
    ab.has_node = nd->assigned;
    ab.node = nd->id;
    ab.has_slot = slot != 0;
    ab.slot = slot;
    ab.has_kind = 1;
    ab.kind = (Stepnet__AbortKind) kind;
    ab.has_peer = peer >= 0;
    ab.peer = (uint32_t) (peer >= 0 ? peer : 0);
    ab.n_missing = nmissing;
    ab.missing = (uint32_t *) missing;
    /* the edge of the link to the peer it blames (the first, for parallel links) */
    for (uint32_t q = 0; peer >= 0 && q < nd->deg && !ab.has_edge; q++) {
        if (nd->links[q].peer == (uint32_t) peer) {
            ab.has_edge = 1;
            ab.edge = nd->links[q].edge;
        }
    }
    m.msg_case = STEPNET__CONTROL__MSG_ABORT;
    m.abort = &ab;
    sn__node_send_ctl(nd, &m);
    /* Close the links so that neighbours fail now rather than at their slot deadline; but not
     * after a deadline of our own: every stalled node fires its deadline at about the same
     * time, and each must report the neighbours it waited for (the silent one among them is the
     * root cause), not a link we closed. */
    for (uint32_t p = 0; kind != STEPNET__ABORT_KIND__ABORT_DEADLINE && p < nd->deg; p++)
        if (nd->links[p].lc)
            sn__node_lconn_close(nd->links[p].lc);
    if (!nd->ctl.up) {
        sn__node_exit(nd, 1);
        return;
    }
    uv_timer_init(nd->loop, &nd->exit_timer);
    nd->exit_timer_live = 1;
    nd->exit_timer.data = nd;
    uv_timer_start(&nd->exit_timer, on_exit_timer, SN_NODE_FAIL_EXIT_MS, 0);
}

/* ---- main ------------------------------------------------------------------------------------ */

/* SIGINT or SIGTERM: the node tells the coordinator it was interrupted (so that blame names the
 * interrupt, not this node's death), closes its links and leaves within SN_NODE_INTERRUPT_EXIT_MS
 * (or when the coordinator answers); a second signal, or one before the control channel is up,
 * leaves at once. */
static void on_signal(uv_signal_t *s, int signum)
{
    node_t *nd = s->data;
    const char *name = signum == SIGINT ? "SIGINT" : "SIGTERM";
    if (nd->interrupted || nd->exit_code || !nd->ctl.up) {
        sn_log_write(&nd->log, SN_LOG_WARN, "NODE-SIGNAL", "%s: exiting", name);
        sn__node_exit(nd, 1);
        return;
    }
    nd->interrupted = 1;
    sn__node_report(nd, UV_ECANCELED, nd->ex.t, STEPNET__ABORT_KIND__ABORT_INTERRUPT, -1, NULL, 0,
                    "interrupted by %s", name);
    if (nd->exit_timer_live)
        uv_timer_start(&nd->exit_timer, on_exit_timer, SN_NODE_INTERRUPT_EXIT_MS, 0);
}

/* The host a node listens on for links without --listen. A local node: the coordinator's host
 * (127.0.0.1, ::1, ...), where it dials. A node with --advertise (an address this host may not
 * have, behind a NAT): the wildcard of the family of that address, "::" (a socket that takes IPv4
 * too, see sn_addr_listen) or "0.0.0.0". Any other node (joined, or started over ssh): its
 * address towards the coordinator, which it announces (kept in nd->net.data_host for its
 * hello) and its neighbours dial, so of the family through which the coordinator reaches
 * it; without a route to the coordinator yet, the wildcard of the coordinator's family. A
 * wildcard of the other family refused every link (an IPv4 one under an IPv6 host file). */
static const char *default_listen_host(node_t *nd)
{
    const sn_node_opts_t *o = &nd->opts;
    sn_addr_t adv;
    struct sockaddr_storage src;
    if (o->local)
        return nd->ctl.coord.host;
    if (o->advertise && sn_node_parse_host(o->advertise, &adv, NULL) == 0)
        return strchr(adv.host, ':') ? "::" : "0.0.0.0";
    if (sn_addr_source_towards((struct sockaddr *) &nd->ctl.coord_sa, &src) == 0 &&
        uv_ip_name((struct sockaddr *) &src, nd->net.data_host, sizeof nd->net.data_host) == 0)
        return nd->net.data_host;
    nd->net.data_host[0] = '\0';
    return nd->ctl.coord_sa.ss_family == AF_INET6 ? "::" : "0.0.0.0";
}

/* The listener for links on the host of --listen (any port unless it names one). 0 with the
 * listener; 0 without one, after logging why and keeping it in nd->net.listen_error for the
 * coordinator (the node says hello and reports it, node/control.c); -1 after logging a bad
 * address, when the node exits at once. */
static int start_listener(node_t *nd)
{
    const sn_node_opts_t *o = &nd->opts;
    sn_err_t err = {0};
    sn_addr_t la;
    struct sockaddr_storage sa;
    const char *lhost = o->listen_host ? o->listen_host : default_listen_host(nd);
    if (sn_node_parse_host(lhost, &la, &err) < 0 || sn_addr_resolve(nd->loop, &la, &sa, &err) < 0) {
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-ARGS", "bad listen address: %s", err.msg);
        return -1;
    }
    uv_tcp_init(nd->loop, &nd->net.listener);
    nd->net.listener.data = nd;
    /* the reserve grows to the node's degree with the assignment */
    sn_admit_init(&nd->net.admit, nd->loop, &sn__node_admit_ops, nd, 0, "link connection");
    int lrc = sn_addr_listen(&nd->net.listener, (struct sockaddr *) &sa, o->port_lo, o->port_hi,
                             512, sn__node_on_link_connection);
    char *why = nd->net.listen_error;
    if (lrc == UV_EADDRINUSE && o->port_lo)
        snprintf(why, sizeof nd->net.listen_error,
                 "cannot listen on %.160s: every port of --port-range %u-%u is in use", lhost,
                 o->port_lo, o->port_hi);
    else if (lrc < 0)
        snprintf(why, sizeof nd->net.listen_error, "cannot listen on %.160s: %s", lhost,
                 uv_strerror(lrc));
    if (lrc < 0) {
        nd->net.listen_rc = lrc;
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-LISTEN", "%s", why);
        uv_close((uv_handle_t *) &nd->net.listener, NULL);
        uv_run(nd->loop, UV_RUN_DEFAULT);
        return 0;
    }
    int salen = sizeof sa;
    uv_tcp_getsockname(&nd->net.listener, (struct sockaddr *) &sa, &salen);
    nd->net.data_port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &sa)->sin6_port
                                                       : ((struct sockaddr_in *) &sa)->sin_port);
    printf("LISTEN port=%d\n", nd->net.data_port);
    fflush(stdout);
    return 0;
}

/* ---- the ssh session (--stdin-session) ---------------------------------------------------- */

static void session_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char sink[256]; /* what arrives after the key is not used: only its end matters */
    (void) h;
    (void) suggested;
    *buf = uv_buf_init(sink, sizeof sink);
}

/* Standard input ended: the ssh session that started this node is gone (the coordinator ended
 * or was killed, or ssh was), so nobody can stop this node any more: it leaves. */
static void session_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    node_t *nd = s->data;
    (void) buf;
    if (nread >= 0 || nd->stopping)
        return;
    sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-SESSION",
                 "standard input closed (%s): the ssh session ended; leaving",
                 nread == UV_EOF ? "end of file" : uv_strerror((int) nread));
    sn__node_exit(nd, nd->exit_code ? nd->exit_code : 1);
}

static int session_watch(node_t *nd)
{
    uv_pipe_init(nd->loop, &nd->session, 0);
    nd->session_live = 1;
    nd->session.data = nd;
    int rc = uv_pipe_open(&nd->session, 0);
    if (rc == 0)
        rc = uv_read_start((uv_stream_t *) &nd->session, session_alloc, session_read);
    if (rc < 0)
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-SESSION", "cannot watch standard input: %s",
                     uv_strerror(rc));
    return rc;
}

static void node_free(node_t *nd)
{
    if (nd->ex.state_live && nd->algo && nd->algo->node_fini)
        nd->algo->node_fini(nd->state);
    if (nd->plan)
        nd->algo->plan_free(nd->plan);
    for (uint32_t q = 0; nd->links && q < nd->deg; q++) {
        free(nd->links[q].cal.clean);
        free(nd->links[q].cal.rtt0);
        free(nd->links[q].cal.rtt);
    }
    if (nd->ex.mode)
        nd->ex.mode->mode_free(nd);
    free(nd->links);
    sn_conn_pool_free(&nd->net.pool); /* after every link connection closed */
    free(nd->conc.rtt);
    free(nd->ex.out);
    free(nd->ex.out_has);
    free(nd->ex.mark);
    free(nd->state);
    free(nd->sources);
    free(nd->ex.rx);
    free(nd->ex.echo);
    free(nd->ex.io.tx);
    free(nd->ex.io.dlv);
    free(nd->ex.data_bits);
    free(nd->ex.ctl_bits);
    free(nd->ex.trace_slots);
    free(nd->ex.trace_sends);
    free(nd->net.pending);
    free(nd->conns);
    sn_verify_free(nd->ex.verify);
    sn_topo_free(nd->topo);
    free(nd);
}

/* The node's event loop. While a collective runs, for up to nd->spin_ns (the run's --spin-us)
 * after each new slot, the node polls its sockets without sleeping and yields the CPU between
 * polls, as MPI progress engines do; then it sleeps in epoll until the next event. A sleeping
 * process that a frame wakes pays the kernel's wake-up and context switch, on a loaded machine
 * several microseconds per frame; a spinning one is already runnable (docs/runtime.md, "Waiting
 * for frames"). */
static void run_loop(node_t *nd)
{
    uint64_t seen_t = 0, since = 0;
    uint32_t seen_cid = 0;
    for (;;) {
        if (nd->spin_ns && nd->ex.running) {
            uint64_t now = uv_hrtime();
            if (nd->ex.t != seen_t || nd->ex.cid != seen_cid) {
                seen_t = nd->ex.t;
                seen_cid = nd->ex.cid;
                since = now;
            }
            if (now - since < nd->spin_ns) {
                if (!uv_run(nd->loop, UV_RUN_NOWAIT))
                    break;
                sched_yield();
                continue;
            }
        }
        if (!uv_run(nd->loop, UV_RUN_ONCE))
            break;
    }
}

int sn_node_main(const sn_node_opts_t *o)
{
    if (o->serve)
        return sn_node_serve(o);
    node_t *nd = sn_xcalloc(1, sizeof *nd);
    nd->opts = *o;
    sn_log_init(&nd->log, "node", SN_LOG_ID_UNKNOWN, o->quiet ? SN_LOG_WARN : SN_LOG_INFO);
    nd->log.name_param = o->name_param;
    nd->loop = sn_xmalloc(sizeof *nd->loop);
    uv_loop_init(nd->loop);
    signal(SIGPIPE, SIG_IGN);
    int rc = 1;
    if (o->local) {
        /* spawned by a local coordinator: never outlive it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            goto out;
    }
    nd->sec.mode = o->security;
    nd->sec.key = o->key;
    nd->sec.deadline_ms = o->connect_ms ? o->connect_ms : 10000;
    if (o->security == SN_SEC_NONE && !o->local)
        sn_log_write(&nd->log, SN_LOG_WARN, "NODE-INSECURE",
                     "security none: links and the control channel are plaintext "
                     "and unauthenticated");
    sn_err_t err = {0};
    if (sn_addr_parse(o->coordinator, -1, &nd->ctl.coord, &err) < 0 ||
        sn_addr_resolve(nd->loop, &nd->ctl.coord, &nd->ctl.coord_sa, &err) < 0) {
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-ARGS", "bad coordinator address: %s", err.msg);
        goto out;
    }
    if (o->stdin_session && session_watch(nd) < 0)
        goto out;
    if (start_listener(nd) < 0)
        goto out;
    uv_timer_init(nd->loop, &nd->ctl.retry);
    nd->ctl.retry.data = nd;
    uv_timer_init(nd->loop, &nd->ctl.hb_timer);
    nd->ctl.hb_timer.data = nd;
    nd->ctl.hb_ms = SN_HEARTBEAT_DEFAULT_MS;
    uv_timer_init(nd->loop, &nd->ex.slot_timer);
    nd->ex.slot_timer.data = nd;
    uv_signal_init(nd->loop, &nd->sigterm);
    nd->sigterm.data = nd;
    uv_signal_start(&nd->sigterm, on_signal, SIGTERM);
    uv_signal_init(nd->loop, &nd->sigint);
    nd->sigint.data = nd;
    uv_signal_start(&nd->sigint, on_signal, SIGINT);
    nd->ctl.deadline = uv_now(nd->loop) + (o->connect_ms ? o->connect_ms : 10000);
    sn__node_ctl_connect(nd);
    run_loop(nd);
    rc = nd->exit_code;
out:
    sn__node_exit(nd, nd->exit_code ? nd->exit_code : rc);
    uv_run(nd->loop, UV_RUN_DEFAULT); /* the close callbacks */
    if (uv_loop_close(nd->loop) != 0) {
        sn_log_write(&nd->log, SN_LOG_ERROR, "NODE-EXIT", "event loop still busy at exit");
        rc = rc ? rc : 1;
    }
    free(nd->loop);
    node_free(nd);
    return rc;
}

int sn_node_parse_host(const char *text, sn_addr_t *out, sn_err_t *err)
{
    char buf[SN_ADDR_MAX_TEXT];
    const char *first = strchr(text, ':');
    /* a bare IPv6 literal ("::", "fe80::1") is a host without a port here */
    int bare6 = text[0] != '[' && first != NULL && strchr(first + 1, ':') != NULL;
    if (strlen(text) + 3 > sizeof buf)
        bare6 = 0; /* too long for any host: sn_addr_parse refuses it */
    snprintf(buf, sizeof buf, bare6 ? "[%s]" : "%s", text);
    if (sn_addr_parse(bare6 ? buf : text, 0, out, NULL) < 0)
        return sn_err_set(err, SN_EINVAL,
                          "bad host '%s': expected a host name, an IPv4 address or an IPv6 "
                          "address (optionally with :PORT, [IPv6]:PORT)",
                          text);
    return 0;
}
