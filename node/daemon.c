/* The persistent daemon of stepnet-node (node/): `stepnet-node --serve --listen HOST:PORT` stays
 * up and serves one run after another, like `iperf3 -s`. A coordinator (`stepnet run --nodes
 * ADDR,...`) dials it, passes the handshake of net/secure.c with the cluster key and sends a
 * DaemonInvite; the daemon starts one node process that joins the coordinator at the invitation's
 * source address, answers with the node's id and pid, and reaps the process when the run ends.
 * The run's state lives only in that process, so a run that dies leaves nothing in the daemon.
 * With --log-file and --pid-file it keeps the files of a system service (daemon_files.c). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "net/conn.h"
#include "net/secure.h"
#include "net/wire.h"
#include "node/daemon_files.h"
#include "node/node.h"
#include "proc/log.h"
#include "proc/spawn.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

#define SERVE_BACKLOG  64  /* invitations are few: one per run */
#define MAX_CHILDREN   256 /* node processes of concurrent runs */
#define CHILD_ARGS_MAX 24

typedef struct daemon_s daemon_t;

typedef struct child_s { /* one node process of one run */
    uv_process_t proc;
    daemon_t *d;
    uint32_t id;
    struct child_s *prev, *next;
} child_t;

typedef struct dconn_s { /* one invitation connection */
    sn_conn_t c;
    daemon_t *d;
    int replied;
    struct dconn_s *prev, *next;
} dconn_t;

struct daemon_s {
    const sn_node_opts_t *o;
    uv_loop_t loop;
    uv_tcp_t listener;
    sn_admit_t admit;
    sn_conn_sec_cfg_t sec;
    uv_signal_t sigint, sigterm, sighup;
    int pid_written;                  /* --pid-file holds this process's id: removed at exit */
    sn_addr_t addr;                   /* --listen */
    char link_host[SN_ADDR_MAX_TEXT]; /* the nodes' --listen: the host of --listen */
    child_t *children;
    uint32_t nchildren;
    dconn_t *conns;
    uint64_t runs;
    int stopping;
    sn_log_t log; /* "daemon EVENT ..." */
};

/* ---- node processes ------------------------------------------------------------------------ */

static void on_child_closed(uv_handle_t *h)
{
    child_t *ch = h->data;
    daemon_t *d = ch->d;
    if (ch->prev)
        ch->prev->next = ch->next;
    else
        d->children = ch->next;
    if (ch->next)
        ch->next->prev = ch->prev;
    d->nchildren--;
    free(ch);
}

static void on_child_exit(uv_process_t *p, int64_t status, int term_signal)
{
    child_t *ch = p->data;
    sn_log_write(&ch->d->log, status != 0 || term_signal != 0 ? SN_LOG_ERROR : SN_LOG_INFO,
                 "DAEMON-NODE-EXIT", "node %u (pid %d) exited with status %lld%s%s", ch->id, p->pid,
                 (long long) status, term_signal ? ", signal " : "",
                 term_signal ? strsignal(term_signal) : "");
    uv_close((uv_handle_t *) p, on_child_closed);
}

/* Starts the node of an invitation: it joins `coord` (HOST:PORT) as `id`. 0 with its pid, or -1
 * with why. */
static int start_node(daemon_t *d, const char *coord, uint32_t id, const Stepnet__DaemonInvite *inv,
                      int *pid, char *why, size_t cap)
{
    const sn_node_opts_t *o = d->o;
    if (d->nchildren >= MAX_CHILDREN) {
        snprintf(why, cap, "the daemon already runs %u node processes", d->nchildren);
        return -1;
    }
    char idbuf[16], msbuf[16], range[16];
    snprintf(idbuf, sizeof idbuf, "%u", id);
    snprintf(msbuf, sizeof msbuf, "%u",
             inv->has_connect_ms && inv->connect_ms ? inv->connect_ms : o->connect_ms);
    snprintf(range, sizeof range, "%u-%u", o->port_lo, o->port_hi);
    const char *args[CHILD_ARGS_MAX];
    int na = 0;
    args[na++] = "--join";
    args[na++] = coord;
    args[na++] = "--id";
    args[na++] = idbuf;
    args[na++] = "--listen";
    args[na++] = d->link_host;
    args[na++] = "--connect-timeout-ms";
    args[na++] = msbuf;
    if (o->port_lo) {
        args[na++] = "--port-range";
        args[na++] = range;
    }
    if (o->advertise) {
        args[na++] = "--advertise";
        args[na++] = o->advertise;
    }
    if (o->security != SN_SEC_SODIUM) {
        args[na++] = "--security";
        args[na++] = "none";
        args[na++] = "--insecure-ok";
    }
    if (!(inv->has_verbose && inv->verbose))
        args[na++] = "--quiet";
    args[na] = NULL;
    /* the key on a pipe (proc/spawn.c); LISTEN and READY lines ignored: the coordinator knows */
    char key_text[2 * SN_KEY_BYTES + 1]; /* sn_key_format: 64 hex digits and a newline */
    int keyed = o->security == SN_SEC_SODIUM;
    if (keyed)
        sn_key_format(o->key, key_text);
    sn_spawn_opts_t so = {.bin = o->node_bin,
                          .args = args,
                          .key_text = keyed ? key_text : NULL,
                          .key_len = sizeof key_text,
                          .exit_cb = on_child_exit,
                          .close_cb = on_child_closed};
    child_t *ch = sn_xcalloc(1, sizeof *ch);
    ch->d = d;
    ch->id = id;
    ch->proc.data = ch;
    ch->next = d->children;
    if (d->children)
        d->children->prev = ch;
    d->children = ch;
    d->nchildren++;
    sn_err_t err = {0};
    int spawned = sn_spawn_node(&d->loop, &ch->proc, &so, &err);
    sodium_memzero(key_text, sizeof key_text);
    if (spawned < 0) {
        snprintf(why, cap, "%s", err.msg);
        /* a failed uv_spawn closes the handle (freed in on_child_closed); an earlier failure
         * left it untouched */
        if (!uv_is_closing((uv_handle_t *) &ch->proc))
            on_child_closed((uv_handle_t *) &ch->proc);
        return -1;
    }
    *pid = ch->proc.pid;
    return 0;
}

/* ---- invitations ---------------------------------------------------------------------------- */

static void reply(dconn_t *dc, uint32_t id, int pid, const char *error)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__DaemonReply r = STEPNET__DAEMON_REPLY__INIT;
    if (error) {
        r.error = (char *) error;
    } else {
        r.has_id = 1;
        r.id = id;
        r.has_pid = 1;
        r.pid = (uint32_t) pid;
    }
    m.msg_case = STEPNET__CONTROL__MSG_DAEMON_REPLY;
    m.daemon_reply = &r;
    sn_wire_send_control(&dc->c, &m);
    dc->replied = 1;
    /* the coordinator closes the connection once it has the reply; one that does not is closed
     * at the deadline */
    sn_conn_expect(&dc->c, dc->d->o->connect_ms, "close after the reply");
}

/* The coordinator's address for the node: the invitation's source address and coord_port. */
static int coord_address(dconn_t *dc, uint32_t port, char *out, size_t cap)
{
    struct sockaddr_storage sa;
    int len = sizeof sa;
    if (uv_tcp_getpeername(&dc->c.tcp, (struct sockaddr *) &sa, &len) < 0)
        return -1;
    if (sa.ss_family == AF_INET6)
        ((struct sockaddr_in6 *) &sa)->sin6_port = htons((uint16_t) port);
    else
        ((struct sockaddr_in *) &sa)->sin_port = htons((uint16_t) port);
    sn_addr_format((struct sockaddr *) &sa, out, cap);
    return 0;
}

static void on_invite(dconn_t *dc, const Stepnet__DaemonInvite *inv)
{
    daemon_t *d = dc->d;
    char coord[SN_ADDR_MAX_TEXT], why[sizeof((sn_err_t *) 0)->msg];
    if (inv->version != SN_WIRE_VERSION) {
        snprintf(why, sizeof why, "the daemon speaks protocol version %u, the coordinator %u",
                 SN_WIRE_VERSION, inv->version);
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-REFUSED", "invitation from %s: %s", dc->c.peer,
                     why);
        reply(dc, 0, 0, why);
        return;
    }
    if (inv->coord_port == 0 || inv->coord_port > 65535 ||
        coord_address(dc, inv->coord_port, coord, sizeof coord) < 0) {
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-REFUSED",
                     "invitation from %s: bad coordinator port %u", dc->c.peer, inv->coord_port);
        reply(dc, 0, 0, "bad coordinator port");
        return;
    }
    /* the daemon's --id, when given, is the node's id; else the position in --nodes */
    uint32_t id = d->o->want_id >= 0 ? (uint32_t) d->o->want_id : inv->id;
    int pid = 0;
    if (start_node(d, coord, id, inv, &pid, why, sizeof why) < 0) {
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-SPAWN", "invitation from %s: %s", dc->c.peer,
                     why);
        reply(dc, id, 0, why);
        return;
    }
    d->runs++;
    sn_log_write(&d->log, SN_LOG_INFO, "DAEMON-RUN",
                 "run %llu: node %u (pid %d) joins the coordinator at %s",
                 (unsigned long long) d->runs, id, pid, coord);
    reply(dc, id, pid, NULL);
}

static void dc_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    dconn_t *dc = c->owner;
    sn_admit_done(&dc->d->admit, c);
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    if (dc->replied || m == NULL || m->msg_case != STEPNET__CONTROL__MSG_DAEMON_INVITE) {
        char why[80];
        snprintf(why, sizeof why, "a frame that is not an invitation (%zu bytes)", len);
        sn_admit_refused(&dc->d->admit, c->peer, why);
        sn_conn_close(c);
    } else {
        sn_conn_expect_done(c);
        on_invite(dc, m->daemon_invite);
    }
    if (m)
        stepnet__control__free_unpacked(m, NULL);
}

/* A connection that fails before its reply is a refusal: logged through the admission control's
 * limit (net/admit.c), so that a flood of strangers writes a few lines a second and a count, not
 * one line each. */
static void dc_on_error(sn_conn_t *c, int status, const char *what)
{
    dconn_t *dc = c->owner;
    daemon_t *d = dc->d;
    if (dc->replied || d->stopping)
        return;
    char why[300];
    snprintf(why, sizeof why, "%s: %s", what, sn_uv_error_text(status));
    sn_admit_refused(&d->admit, c->peer, why);
}

static void dc_on_closed(sn_conn_t *c)
{
    dconn_t *dc = c->owner;
    daemon_t *d = dc->d;
    sn_admit_done(&d->admit, c);
    if (dc->prev)
        dc->prev->next = dc->next;
    else
        d->conns = dc->next;
    if (dc->next)
        dc->next->prev = dc->prev;
    free(dc);
}

static const sn_conn_ops_t dc_ops = {dc_on_frame, dc_on_error, dc_on_closed};

static void admit_log(sn_admit_t *a, const char *line)
{
    sn_log_write(&((daemon_t *) a->owner)->log, SN_LOG_ERROR, "DAEMON-REFUSED", "%s", line);
}

static void accept_one(sn_admit_t *a)
{
    daemon_t *d = a->owner;
    dconn_t *dc = sn_xcalloc(1, sizeof *dc);
    dc->d = d;
    sn_conn_init(&d->loop, &dc->c, &dc_ops, dc);
    dc->next = d->conns;
    if (d->conns)
        d->conns->prev = dc;
    d->conns = dc;
    sn_wire_limits_control_prehello(&dc->c);
    snprintf(dc->c.name, sizeof dc->c.name, "invitation");
    sn_conn_expect(&dc->c, d->o->connect_ms, "invitation");
    if (uv_accept((uv_stream_t *) &d->listener, (uv_stream_t *) &dc->c.tcp) < 0 ||
        sn_conn_start(&dc->c, &d->sec, 0) < 0) {
        sn_conn_close(&dc->c);
        return;
    }
    sn_admit_add(&d->admit, &dc->c);
}

static const sn_admit_ops_t admit_ops = {admit_log, accept_one};

static void on_connection(uv_stream_t *server, int status)
{
    daemon_t *d = server->data;
    if (d->stopping || sn_admit_gate(&d->admit, status))
        return;
    accept_one(&d->admit);
}

/* ---- life cycle ----------------------------------------------------------------------------- */

static void close_if_open(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    daemon_t *d = s->data;
    if (d->stopping)
        return;
    d->stopping = 1;
    sn_log_write(&d->log, SN_LOG_WARN, "DAEMON-STOP",
                 "%s: stopping %u node process(es) and exiting", strsignal(signum), d->nchildren);
    for (child_t *ch = d->children; ch; ch = ch->next)
        if (!uv_is_closing((uv_handle_t *) &ch->proc))
            uv_process_kill(&ch->proc, SIGTERM);
    for (dconn_t *dc = d->conns; dc; dc = dc->next)
        sn_conn_close(&dc->c);
    close_if_open((uv_handle_t *) &d->listener);
    if (d->admit.timers_live)
        sn_admit_close(&d->admit);
    close_if_open((uv_handle_t *) &d->sigint);
    close_if_open((uv_handle_t *) &d->sigterm);
    close_if_open((uv_handle_t *) &d->sighup);
}

/* SIGHUP with --log-file: logrotate has renamed the file; the daemon appends to a new one under
 * the same name. On failure the daemon goes on writing to the old file, and says so there. */
static void on_sighup(uv_signal_t *s, int signum)
{
    (void) signum;
    daemon_t *d = s->data;
    sn_err_t err = {0};
    if (sn__daemon_log_open(d->o->log_file, &err) < 0)
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-LOG", "SIGHUP: %s; still writing here",
                     err.msg);
    else
        sn_log_write(&d->log, SN_LOG_INFO, "DAEMON-LOG", "SIGHUP: reopened %s", d->o->log_file);
}

/* Before anything is logged or bound: --log-file becomes standard error, and --pid-file must
 * not be a running daemon's. 0, or exit status 2 after a line on the original standard error. */
static int open_files(daemon_t *d, long *stale_pid)
{
    const sn_node_opts_t *o = d->o;
    sn_err_t err = {0};
    *stale_pid = 0;
    if ((o->pid_file && sn__daemon_pid_check(o->pid_file, stale_pid, &err) < 0) ||
        (o->log_file && sn__daemon_log_open(o->log_file, &err) < 0)) {
        fprintf(stderr, "stepnet-node: %s\n", err.msg);
        return 2;
    }
    return 0;
}

int sn_node_serve(const sn_node_opts_t *o)
{
    daemon_t *d = sn_xcalloc(1, sizeof *d);
    d->o = o;
    sn_log_init(&d->log, "daemon", SN_LOG_ID_NONE, o->quiet ? SN_LOG_WARN : SN_LOG_INFO);
    d->log.name_param = o->name_param;
    d->sec.mode = o->security;
    d->sec.key = o->key;
    d->sec.deadline_ms = o->connect_ms;
    int rc = 1;
    sn_err_t err = {0};
    struct sockaddr_storage sa;
    long stale_pid;
    if (open_files(d, &stale_pid) != 0) {
        free(d);
        return 2;
    }
    uv_loop_init(&d->loop);
    signal(SIGPIPE, SIG_IGN);
    if (sn_addr_parse(o->serve_listen, -1, &d->addr, &err) < 0 ||
        sn_addr_resolve(&d->loop, &d->addr, &sa, &err) < 0) {
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-ARGS", "bad --listen: %s", err.msg);
        goto out;
    }
    snprintf(d->link_host, sizeof d->link_host, strchr(d->addr.host, ':') ? "[%s]" : "%s",
             d->addr.host);
    uv_tcp_init(&d->loop, &d->listener);
    d->listener.data = d;
    /* a coordinator that lists this daemon k times sends k invitations at once, all from one
     * address: the reserve admits as many as the daemon may run nodes */
    sn_admit_init(&d->admit, &d->loop, &admit_ops, d, MAX_CHILDREN, "daemon connection");
    int lrc =
        sn_addr_listen(&d->listener, (struct sockaddr *) &sa, 0, 0, SERVE_BACKLOG, on_connection);
    if (lrc < 0)
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-LISTEN", "cannot listen on %s: %s",
                     o->serve_listen, uv_strerror(lrc));
    /* the pid file says the daemon is there only once it listens (a daemon that claimed it
     * since the check above is refused like one found there then) */
    int prc = lrc < 0 || o->pid_file == NULL ? 0 : sn__daemon_pid_write(o->pid_file, &err);
    if (prc < 0)
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-PIDFILE", "%s", err.msg);
    else if (lrc == 0 && o->pid_file)
        d->pid_written = 1;
    if (d->pid_written && stale_pid > 0)
        sn_log_write(&d->log, SN_LOG_WARN, "DAEMON-PIDFILE",
                     "took over %s from pid %ld (no stepnet-node runs with that id)", o->pid_file,
                     stale_pid);
    if (lrc < 0 || prc < 0) {
        rc = prc == SN_EINVAL ? 2 : 1;
        close_if_open((uv_handle_t *) &d->listener);
        sn_admit_close(&d->admit);
        uv_run(&d->loop, UV_RUN_DEFAULT);
        goto out;
    }
    int salen = sizeof sa;
    uv_tcp_getsockname(&d->listener, (struct sockaddr *) &sa, &salen);
    char bound[SN_ADDR_MAX_TEXT];
    sn_addr_format((struct sockaddr *) &sa, bound, sizeof bound);
    printf("SERVE port=%d\n",
           ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &sa)->sin6_port
                                          : ((struct sockaddr_in *) &sa)->sin_port));
    fflush(stdout);
    sn_log_write(&d->log, SN_LOG_WARN, "DAEMON-LISTEN",
                 "serving runs on %s (stepnet run --nodes ADDR,...)", bound);
    uv_signal_init(&d->loop, &d->sigint);
    d->sigint.data = d;
    uv_signal_start(&d->sigint, on_signal, SIGINT);
    uv_signal_init(&d->loop, &d->sigterm);
    d->sigterm.data = d;
    uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    if (o->log_file) {
        uv_signal_init(&d->loop, &d->sighup);
        d->sighup.data = d;
        uv_signal_start(&d->sighup, on_sighup, SIGHUP);
    }
    uv_run(&d->loop, UV_RUN_DEFAULT);
    rc = 0;
out:
    uv_run(&d->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&d->loop) != 0) {
        sn_log_write(&d->log, SN_LOG_ERROR, "DAEMON-EXIT", "event loop still busy at exit");
        rc = 1;
    }
    if (d->pid_written)
        sn__daemon_pid_remove(o->pid_file);
    free(d);
    return rc;
}
