/* Nodes started over ssh (launch): `stepnet run --hosts`. One OpenSSH client per node, in
 * batch mode, runs `stepnet-node --join ADDR --id N --stdin-session` on the node's host; the
 * cluster key travels on the ssh channel's standard input (never on a command line), which stays
 * open for the run: when the coordinator ends or dies, ssh's input closes, the session ends and
 * the remote node leaves. A host that fails (no route, ssh refused, authentication, a missing
 * program) is reported by name when its ssh exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/coord_internal.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

#define DEFAULT_SSH         "ssh"
#define DEFAULT_REMOTE_NODE "stepnet-node"
/* ssh's own exit status for its failures (connection, host key, authentication) */
#define SSH_FAILED 255
/* a POSIX shell's statuses for a command it could not run */
#define SH_NOT_EXECUTABLE 126
#define SH_NOT_FOUND      127

int sn__launch_hosts_prepare(sn_coord_t *r, sn_err_t *err)
{
    const sn_coord_opts_t *o = r->o;
    int rc = sn_launch_hosts_load(o->hosts, &r->hosts, err);
    if (rc < 0)
        return rc;
    uint32_t *place = sn_xcalloc(r->n, sizeof *place);
    rc = sn_launch_hosts_place(&r->hosts, r->n, (sn_map_by_t) o->map_by, place, err);
    for (uint32_t i = 0; rc == 0 && i < r->n; i++)
        r->nodes[i].host_index = place[i];
    free(place);
    if (rc < 0)
        return rc;
    const char *ssh = o->ssh ? o->ssh : getenv("STEPNET_SSH");
    if (ssh == NULL || *ssh == '\0')
        ssh = DEFAULT_SSH;
    return sn_launch_ssh_split(ssh, r->ssh_buf, sizeof r->ssh_buf, r->ssh_words, SN_SSH_MAX_WORDS,
                               &r->nssh, err);
}

/* ---- one host's ssh -------------------------------------------------------------------------- */

static const char *host_text(const sn_coord_t *r, const sn_coord_node_t *cn, char *buf, size_t cap)
{
    sn_launch_host_format(&r->hosts.hosts[cn->host_index], buf, cap);
    return buf;
}

/* Reports the host's failure once its ssh has exited and its standard error has ended (so that
 * the report carries ssh's or the node's last word), unless the run was already ending. */
static void ssh_done(sn_coord_node_t *cn)
{
    sn_coord_t *r = cn->run;
    if (!cn->exited || !cn->err_eof || r->stopping)
        return;
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16];
    host_text(r, cn, host, sizeof host);
    const char *last = cn->err_last[0] ? cn->err_last : "nothing on standard error";
    int64_t status = cn->exit_status;
    if (cn->exit_signal)
        sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                         "host %s (node %d): ssh was killed by signal %d (%s)", host, cn->id,
                         cn->exit_signal, strsignal(cn->exit_signal));
    else if (status == SSH_FAILED)
        sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                         "host %s (node %d): ssh failed (status 255: no route, connection "
                         "refused, host key or authentication): %s",
                         host, cn->id, last);
    else if (status == SH_NOT_FOUND || status == SH_NOT_EXECUTABLE)
        sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                         "host %s (node %d): cannot run %s there (status %lld: %s; name it "
                         "with " SN_REF_REMOTE_NODE " PATH): %s",
                         host, cn->id, r->o->remote_node ? r->o->remote_node : DEFAULT_REMOTE_NODE,
                         (long long) status,
                         status == SH_NOT_FOUND ? "not found" : "not executable", last);
    else
        sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                         "host %s (node %d): stepnet-node exited with status %lld%s: %s", host,
                         cn->id, (long long) status, cn->hello ? "" : " before joining the run",
                         last);
}

static void on_ssh_exit(uv_process_t *p, int64_t status, int term_signal)
{
    sn_coord_node_t *cn = p->data;
    sn_coord_t *r = cn->run;
    cn->exited = 1;
    cn->exit_status = status;
    cn->exit_signal = term_signal;
    ssh_done(cn);
    if (r->stopping)
        sn__coord_close_all(r);
}

static void read_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char chunk[4096]; /* one read at a time: consumed before the next */
    (void) h;
    (void) suggested;
    *buf = uv_buf_init(chunk, sizeof chunk);
}

/* One line of the host's standard error: relayed with the host's name, kept as the last. */
static void err_line(sn_coord_node_t *cn)
{
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16];
    cn->err_line[cn->err_len] = '\0';
    if (cn->err_len > 0) {
        sn_log_write(&cn->run->log, SN_LOG_INFO, "LAUNCH-SSH-STDERR", "[%s node %d] %s",
                     host_text(cn->run, cn, host, sizeof host), cn->id, cn->err_line);
        snprintf(cn->err_last, sizeof cn->err_last, "%s", cn->err_line);
    }
    cn->err_len = 0;
}

static void on_err_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    sn_coord_node_t *cn = s->data;
    if (nread < 0) {
        err_line(cn);
        uv_read_stop(s);
        cn->err_eof = 1;
        ssh_done(cn);
        return;
    }
    for (ssize_t i = 0; i < nread; i++) {
        char c = buf->base[i];
        if (c == '\n') {
            err_line(cn);
        } else if (c != '\r') {
            if (cn->err_len + 1 >= sizeof cn->err_line)
                err_line(cn); /* a long line in pieces */
            cn->err_line[cn->err_len++] = c;
        }
    }
}

/* The remote node's standard output: its first bytes (the LISTEN line, printed once it listens)
 * say that the session is up and the node runs; the rest is read and dropped. */
static void on_out_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    sn_coord_node_t *cn = s->data;
    (void) buf;
    if (nread > 0 && !cn->remote_started) {
        cn->remote_started = 1;
        sn__coord_progress_update(cn->run);
    } else if (nread < 0)
        uv_read_stop(s);
}

static void on_key_written(uv_write_t *req, int status)
{
    sn_coord_node_t *cn = req->data;
    (void) status; /* a host that did not read its key fails, and its ssh exit says why */
    sodium_memzero(cn->key_text, sizeof cn->key_text);
}

/* `'text'` for a POSIX shell, into buf (text has no single quote: checked by the options). */
static void sh_quote(const char *text, char *buf, size_t cap)
{
    snprintf(buf, cap, "'%s'", text);
}

static int launch_one(sn_coord_t *r, sn_coord_node_t *cn, sn_err_t *err)
{
    const sn_host_t *h = &r->hosts.hosts[cn->host_index];
    const sn_coord_opts_t *o = r->o;
    char qnode[1100], qaddr[SN_ADDR_MAX_TEXT + 4], cmd[1600], timeout[32], port[8], range[40] = "";
    sh_quote(o->remote_node ? o->remote_node : DEFAULT_REMOTE_NODE, qnode, sizeof qnode);
    sh_quote(r->listen_addr, qaddr, sizeof qaddr);
    /* the nodes' link listeners in --port-range as in local runs, so that the hosts' firewalls can
     * be opened for that range instead of every ephemeral port */
    if (o->port_lo)
        snprintf(range, sizeof range, " --port-range %u-%u", o->port_lo, o->port_hi);
    /* exec: the node replaces the remote shell, so that the session is the node's */
    snprintf(cmd, sizeof cmd,
             "exec %s --join %s --id %d --stdin-session --connect-timeout-ms %u%s%s%s", qnode,
             qaddr, cn->id, o->connect_ms, range, o->verbose ? "" : " --quiet",
             r->sec.mode == SN_SEC_NONE ? " --security none --insecure-ok" : "");
    /* seconds, rounded up: ssh's own connection deadline */
    snprintf(timeout, sizeof timeout, "ConnectTimeout=%u", (o->connect_ms + 999) / 1000);
    const char *args[SN_SSH_MAX_WORDS + 16];
    size_t na = 0;
    for (size_t i = 0; i < r->nssh; i++)
        args[na++] = r->ssh_words[i];
    /* after the user's words: for each option, ssh keeps the first value it is given */
    args[na++] = "-T";
    args[na++] = "-o";
    args[na++] = "BatchMode=yes";
    args[na++] = "-o";
    args[na++] = timeout;
    if (h->port) {
        snprintf(port, sizeof port, "%u", (unsigned) h->port);
        args[na++] = "-p";
        args[na++] = port;
    }
    if (h->user[0]) {
        args[na++] = "-l";
        args[na++] = h->user;
    }
    args[na++] = h->name;
    args[na++] = cmd;
    args[na] = NULL;

    uv_pipe_init(r->loop, &cn->ssh_in, 0);
    uv_pipe_init(r->loop, &cn->ssh_err, 0);
    uv_pipe_init(r->loop, &cn->ssh_out, 0);
    cn->ssh_in.data = cn->ssh_err.data = cn->ssh_out.data = cn;
    cn->ssh_pipes = 1;
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *) &cn->ssh_in;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *) &cn->ssh_out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *) &cn->ssh_err;
    uv_process_options_t po;
    memset(&po, 0, sizeof po);
    po.file = args[0];
    po.args = (char **) args;
    po.exit_cb = on_ssh_exit;
    po.stdio = stdio;
    po.stdio_count = 3;
    cn->proc.data = cn;
    int rc = uv_spawn(r->loop, &cn->proc, &po);
    if (rc < 0) {
        uv_close((uv_handle_t *) &cn->proc, NULL); /* libuv: closed even after a failed spawn */
        return sn_err_set(err, rc,
                          "cannot start the ssh program '%s': %s (name it with " SN_REF_SSH ")",
                          args[0], sn_uv_error_text(rc));
    }
    cn->spawned = 1;
    uv_read_start((uv_stream_t *) &cn->ssh_err, read_alloc, on_err_read);
    uv_read_start((uv_stream_t *) &cn->ssh_out, read_alloc, on_out_read);
    if (r->sec.mode == SN_SEC_SODIUM) {
        sn_key_format(r->key, cn->key_text);
        uv_buf_t b = uv_buf_init(cn->key_text, sizeof cn->key_text);
        cn->key_req.data = cn;
        rc = uv_write(&cn->key_req, (uv_stream_t *) &cn->ssh_in, &b, 1, on_key_written);
        if (rc < 0) {
            sodium_memzero(cn->key_text, sizeof cn->key_text);
            return sn_err_set(err, rc, "cannot hand the key to ssh for %s: %s", h->name,
                              sn_uv_error_text(rc));
        }
    }
    return 0;
}

const char *sn__launch_ssh_late(const sn_coord_t *r, const sn_coord_node_t *cn, char *host,
                                size_t cap)
{
    host_text(r, cn, host, cap);
    if (cn->hello)
        return NULL;
    if (!cn->spawned || cn->exited)
        return "ssh not running";
    return cn->remote_started ? "process started but no hello" : "ssh session still starting";
}

/* ---- placement and start --------------------------------------------------------------------- */

static void print_placement(const sn_coord_t *r)
{
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16];
    sn_log_write(&r->log, SN_LOG_INFO, "LAUNCH-PLACEMENT",
                 "%u nodes on %zu host%s (" SN_REF_MAP_BY " %s)", r->n, r->hosts.n,
                 r->hosts.n == 1 ? "" : "s", r->o->map_by == SN_MAP_BY_NODE ? "node" : "slot");
    for (size_t h = 0; h < r->hosts.n; h++) {
        sn_launch_host_format(&r->hosts.hosts[h], host, sizeof host);
        char ids[400]; /* the log line is cut at 511 bytes anyway */
        size_t len = 0;
        for (uint32_t i = 0; i < r->n && len < sizeof ids - 12; i++)
            if (r->nodes[i].host_index == h)
                len += (size_t) snprintf(ids + len, sizeof ids - len, " %u", i);
        sn_log_write(&r->log, SN_LOG_INFO, "LAUNCH-PLACEMENT", "%s (slots %u): nodes%s", host,
                     r->hosts.hosts[h].slots, len ? ids : " none");
    }
}

int sn__launch_ssh(sn_coord_t *r, sn_err_t *err)
{
    print_placement(r);
    for (size_t h = 0; h < r->hosts.n; h++) {
        uint32_t i = 0;
        while (i < r->n && r->nodes[i].host_index != h)
            i++;
        r->res->ssh_hosts += i < r->n;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        int rc = launch_one(r, &r->nodes[i], err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void sn__launch_ssh_close(sn_coord_t *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        sn_coord_node_t *cn = &r->nodes[i];
        if (!cn->ssh_pipes)
            continue;
        if (!uv_is_closing((uv_handle_t *) &cn->ssh_in))
            uv_close((uv_handle_t *) &cn->ssh_in, NULL);
        if (!uv_is_closing((uv_handle_t *) &cn->ssh_err))
            uv_close((uv_handle_t *) &cn->ssh_err, NULL);
        if (!uv_is_closing((uv_handle_t *) &cn->ssh_out))
            uv_close((uv_handle_t *) &cn->ssh_out, NULL);
    }
}
