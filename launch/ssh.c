/* Nodes started over ssh (launch): the launcher of `stepnet run --hosts`. One OpenSSH client per
 * node, in batch mode, runs `stepnet-node` (node_cmd.c: joining, with the key on its standard
 * input) on the node's host; the cluster key travels on the ssh channel's standard input (never
 * on a command line), which stays open for the run: when the coordinator ends or dies, ssh's
 * input closes, the session ends and the remote node leaves. A host that fails (no route, ssh
 * refused, authentication, a missing program) is reported by name when its ssh exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "launch/hostfile.h"
#include "launch/launch_internal.h"
#include "net/addr.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

#define DEFAULT_SSH         "ssh"
#define DEFAULT_REMOTE_NODE "stepnet-node"
/* ssh's own exit status for its failures (connection, host key, authentication) */
#define SSH_FAILED 255
/* a POSIX shell's statuses for a command it could not run */
#define SH_NOT_EXECUTABLE 126
#define SH_NOT_FOUND      127

_Static_assert(SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16 <= SN_LAUNCH_HOST_TEXT,
               "a host's text fits the ready deadline's message");

typedef struct ssh_s ssh_t;

/* One node's ssh client: `proc`. Its standard input carries the key and stays open for the whole
 * run (the remote node leaves when it closes); its standard error is relayed line by line with
 * the host's name, the last line kept for the failure report; its standard output carries the
 * remote node's LISTEN line, the sign that the session is up. */
typedef struct ssh_node_s {
    ssh_t *s;
    uint32_t id;
    uint32_t host_index; /* into s->hosts */
    uv_process_t proc;
    int spawned, exited, hello;
    uv_pipe_t in, err, out;
    int pipes;          /* in, err and out were initialised */
    int remote_started; /* the remote stepnet-node wrote on its standard output */
    uv_write_t key_req;
    char key_text[2 * SN_KEY_BYTES + 1];
    char err_line[256], err_last[256];
    size_t err_len;
    int err_eof, exit_signal; /* the report waits for both the exit and the last stderr line */
    int64_t exit_status;
} ssh_node_t;

struct ssh_s {
    const sn_launch_ctx_t *ctx;
    sn_hostlist_t hosts; /* placed: node i runs on hosts.hosts[nodes[i].host_index] */
    char ssh_buf[1024];  /* the ssh command, split into ssh_words */
    const char *ssh_words[SN_SSH_MAX_WORDS];
    size_t nssh;
    uint32_t used_hosts; /* the hosts that were given nodes */
    ssh_node_t *nodes;   /* [ctx->n] */
};

static void free_state(void *state)
{
    ssh_t *s = state;
    if (s == NULL)
        return;
    sn_launch_hostlist_free(&s->hosts);
    free(s->nodes);
    free(s);
}

/* Reads and places the hosts and splits the ssh command. */
static int prepare(const sn_launch_ctx_t *ctx, void **state, sn_err_t *err)
{
    const sn_launch_opts_t *o = &ctx->o;
    ssh_t *s = sn_xcalloc(1, sizeof *s);
    s->ctx = ctx;
    s->nodes = sn_xcalloc(ctx->n, sizeof *s->nodes);
    for (uint32_t i = 0; i < ctx->n; i++) {
        s->nodes[i].s = s;
        s->nodes[i].id = i;
    }
    int rc = sn_launch_hosts_load(o->hosts, &s->hosts, err);
    if (rc < 0)
        goto fail;
    uint32_t *place = sn_xcalloc(ctx->n, sizeof *place);
    rc = sn_launch_hosts_place(&s->hosts, ctx->n, (sn_map_by_t) o->map_by, place, err);
    for (uint32_t i = 0; rc == 0 && i < ctx->n; i++)
        s->nodes[i].host_index = place[i];
    free(place);
    if (rc < 0)
        goto fail;
    const char *ssh = o->ssh ? o->ssh : getenv("STEPNET_SSH");
    if (ssh == NULL || *ssh == '\0')
        ssh = DEFAULT_SSH;
    rc = sn_launch_ssh_split(ssh, s->ssh_buf, sizeof s->ssh_buf, s->ssh_words, SN_SSH_MAX_WORDS,
                             &s->nssh, err);
    if (rc < 0)
        goto fail;
    *state = s;
    return 0;
fail:
    free_state(s);
    *state = NULL;
    return rc;
}

/* ---- one host's ssh -------------------------------------------------------------------------- */

static const char *host_text(const ssh_node_t *sn, char *buf, size_t cap)
{
    sn_launch_host_format(&sn->s->hosts.hosts[sn->host_index], buf, cap);
    return buf;
}

/* Reports the host's failure once its ssh has exited and its standard error has ended (so that
 * the report carries ssh's or the node's last word); the engine ignores it when the run was
 * already ending. */
static void ssh_done(ssh_node_t *sn)
{
    const sn_launch_ctx_t *ctx = sn->s->ctx;
    if (!sn->exited || !sn->err_eof)
        return;
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16], why[SN_LAUNCH_WHY_TEXT];
    host_text(sn, host, sizeof host);
    const char *last = sn->err_last[0] ? sn->err_last : "nothing on standard error";
    int64_t status = sn->exit_status;
    int id = (int) sn->id;
    if (sn->exit_signal)
        snprintf(why, sizeof why, "host %s (node %d): ssh was killed by signal %d (%s)", host, id,
                 sn->exit_signal, strsignal(sn->exit_signal));
    else if (status == SSH_FAILED)
        snprintf(why, sizeof why,
                 "host %s (node %d): ssh failed (status 255: no route, connection "
                 "refused, host key or authentication): %s",
                 host, id, last);
    else if (status == SH_NOT_FOUND || status == SH_NOT_EXECUTABLE)
        snprintf(why, sizeof why,
                 "host %s (node %d): cannot run %s there (status %lld: %s; name it "
                 "with " SN_REF_REMOTE_NODE " PATH): %s",
                 host, id, ctx->o.remote_node ? ctx->o.remote_node : DEFAULT_REMOTE_NODE,
                 (long long) status, status == SH_NOT_FOUND ? "not found" : "not executable", last);
    else
        snprintf(why, sizeof why, "host %s (node %d): stepnet-node exited with status %lld%s: %s",
                 host, id, (long long) status, sn->hello ? "" : " before joining the run", last);
    ctx->died(ctx->engine, sn->id, why);
}

static void on_ssh_exit(uv_process_t *p, int64_t status, int term_signal)
{
    ssh_node_t *sn = p->data;
    const sn_launch_ctx_t *ctx = sn->s->ctx;
    sn->exited = 1;
    sn->exit_status = status;
    sn->exit_signal = term_signal;
    ssh_done(sn);
    ctx->exited(ctx->engine);
}

static void read_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char chunk[4096]; /* one read at a time: consumed before the next */
    (void) h;
    (void) suggested;
    *buf = uv_buf_init(chunk, sizeof chunk);
}

/* One line of the host's standard error: relayed with the host's name, kept as the last. */
static void err_line(ssh_node_t *sn)
{
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16];
    sn->err_line[sn->err_len] = '\0';
    if (sn->err_len > 0) {
        sn_log_write(sn->s->ctx->log, SN_LOG_INFO, "LAUNCH-SSH-STDERR", "[%s node %d] %s",
                     host_text(sn, host, sizeof host), (int) sn->id, sn->err_line);
        snprintf(sn->err_last, sizeof sn->err_last, "%s", sn->err_line);
    }
    sn->err_len = 0;
}

static void on_err_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    ssh_node_t *sn = st->data;
    if (nread < 0) {
        err_line(sn);
        uv_read_stop(st);
        sn->err_eof = 1;
        ssh_done(sn);
        return;
    }
    for (ssize_t i = 0; i < nread; i++) {
        char c = buf->base[i];
        if (c == '\n') {
            err_line(sn);
        } else if (c != '\r') {
            if (sn->err_len + 1 >= sizeof sn->err_line)
                err_line(sn); /* a long line in pieces */
            sn->err_line[sn->err_len++] = c;
        }
    }
}

/* The remote node's standard output: its first bytes (the LISTEN line, printed once it listens)
 * say that the session is up and the node runs; the rest is read and dropped. */
static void on_out_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    ssh_node_t *sn = st->data;
    const sn_launch_ctx_t *ctx = sn->s->ctx;
    (void) buf;
    if (nread > 0 && !sn->remote_started) {
        sn->remote_started = 1;
        ctx->started(ctx->engine, sn->id);
    } else if (nread < 0)
        uv_read_stop(st);
}

static void on_key_written(uv_write_t *req, int status)
{
    ssh_node_t *sn = req->data;
    (void) status; /* a host that did not read its key fails, and its ssh exit says why */
    sodium_memzero(sn->key_text, sizeof sn->key_text);
}

static int launch_one(ssh_t *s, ssh_node_t *sn, sn_err_t *err)
{
    const sn_launch_ctx_t *ctx = s->ctx;
    const sn_launch_opts_t *o = &ctx->o;
    const sn_host_t *h = &s->hosts.hosts[sn->host_index];
    char cmd[1600], timeout[32], port[8];
    sn_node_cmd_t nc = {.form = SN_NODE_CMD_REMOTE,
                        .coordinator = ctx->listen_addr,
                        .id = sn->id,
                        .insecure = ctx->sec->mode == SN_SEC_NONE,
                        .quiet = !o->verbose,
                        .port_lo = o->port_lo,
                        .port_hi = o->port_hi,
                        .connect_ms = o->connect_ms};
    if (sn__launch_node_shell(&nc, o->remote_node ? o->remote_node : DEFAULT_REMOTE_NODE, cmd,
                              sizeof cmd) < 0)
        return sn_err_set(err, SN_EINVAL, "the remote command for %s is longer than %zu bytes",
                          h->name, sizeof cmd - 1);
    /* seconds, rounded up: ssh's own connection deadline */
    snprintf(timeout, sizeof timeout, "ConnectTimeout=%u", (o->connect_ms + 999) / 1000);
    const char *args[SN_SSH_MAX_WORDS + 16];
    size_t na = 0;
    for (size_t i = 0; i < s->nssh; i++)
        args[na++] = s->ssh_words[i];
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

    uv_pipe_init(ctx->loop, &sn->in, 0);
    uv_pipe_init(ctx->loop, &sn->err, 0);
    uv_pipe_init(ctx->loop, &sn->out, 0);
    sn->in.data = sn->err.data = sn->out.data = sn;
    sn->pipes = 1;
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *) &sn->in;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *) &sn->out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *) &sn->err;
    uv_process_options_t po;
    memset(&po, 0, sizeof po);
    po.file = args[0];
    po.args = (char **) args;
    po.exit_cb = on_ssh_exit;
    po.stdio = stdio;
    po.stdio_count = 3;
    sn->proc.data = sn;
    int rc = uv_spawn(ctx->loop, &sn->proc, &po);
    if (rc < 0) {
        uv_close((uv_handle_t *) &sn->proc, NULL); /* libuv: closed even after a failed spawn */
        return sn_err_set(err, rc,
                          "cannot start the ssh program '%s': %s (name it with " SN_REF_SSH ")",
                          args[0], sn_uv_error_text(rc));
    }
    sn->spawned = 1;
    uv_read_start((uv_stream_t *) &sn->err, read_alloc, on_err_read);
    uv_read_start((uv_stream_t *) &sn->out, read_alloc, on_out_read);
    if (ctx->sec->mode == SN_SEC_SODIUM) {
        sn_key_format(ctx->sec->key, sn->key_text);
        uv_buf_t b = uv_buf_init(sn->key_text, sizeof sn->key_text);
        sn->key_req.data = sn;
        rc = uv_write(&sn->key_req, (uv_stream_t *) &sn->in, &b, 1, on_key_written);
        if (rc < 0) {
            sodium_memzero(sn->key_text, sizeof sn->key_text);
            return sn_err_set(err, rc, "cannot hand the key to ssh for %s: %s", h->name,
                              sn_uv_error_text(rc));
        }
    }
    return 0;
}

static const char *late(const void *state, uint32_t node, const char *hello_host, char *host,
                        size_t cap)
{
    const ssh_node_t *sn = &((const ssh_t *) state)->nodes[node];
    host_text(sn, host, cap);
    if (hello_host)
        return NULL;
    if (!sn->spawned || sn->exited)
        return "ssh not running";
    return sn->remote_started ? "process started but no hello" : "ssh session still starting";
}

/* ---- placement and start --------------------------------------------------------------------- */

static void print_placement(const ssh_t *s)
{
    const sn_launch_ctx_t *ctx = s->ctx;
    char host[SN_HOST_MAX_NAME + SN_HOST_MAX_USER + 16];
    sn_log_write(ctx->log, SN_LOG_INFO, "LAUNCH-PLACEMENT",
                 "%u nodes on %zu host%s (" SN_REF_MAP_BY " %s)", ctx->n, s->hosts.n,
                 s->hosts.n == 1 ? "" : "s", ctx->o.map_by == SN_MAP_BY_NODE ? "node" : "slot");
    for (size_t h = 0; h < s->hosts.n; h++) {
        sn_launch_host_format(&s->hosts.hosts[h], host, sizeof host);
        char ids[400]; /* the log line is cut at 511 bytes anyway */
        size_t len = 0;
        for (uint32_t i = 0; i < ctx->n && len < sizeof ids - 12; i++)
            if (s->nodes[i].host_index == h)
                len += (size_t) snprintf(ids + len, sizeof ids - len, " %u", i);
        sn_log_write(ctx->log, SN_LOG_INFO, "LAUNCH-PLACEMENT", "%s (slots %u): nodes%s", host,
                     s->hosts.hosts[h].slots, len ? ids : " none");
    }
}

/* Prints the placement and starts one ssh client per node. */
static int start(void *state, sn_err_t *err)
{
    ssh_t *s = state;
    uint32_t n = s->ctx->n;
    print_placement(s);
    for (size_t h = 0; h < s->hosts.n; h++) {
        uint32_t i = 0;
        while (i < n && s->nodes[i].host_index != h)
            i++;
        s->used_hosts += i < n;
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = launch_one(s, &s->nodes[i], err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static uint32_t started(const void *state)
{
    const ssh_t *s = state;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->ctx->n; i++)
        n += s->nodes[i].remote_started != 0;
    return n;
}

static void hello(void *state, const sn_launch_hello_t *h)
{
    ssh_t *s = state;
    s->nodes[h->id].hello = 1;
}

static uint32_t hosts(const void *state)
{
    return ((const ssh_t *) state)->used_hosts;
}

static int running(const void *state, uint32_t node)
{
    const ssh_node_t *sn = &((const ssh_t *) state)->nodes[node];
    return sn->spawned && !sn->exited;
}

static void kill_all(void *state)
{
    ssh_t *s = state;
    for (uint32_t i = 0; i < s->ctx->n; i++)
        if (running(s, i))
            uv_process_kill(&s->nodes[i].proc, SIGKILL);
}

static void close_one(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* The ssh clients (once they have exited) and their pipes. */
static void close_all(void *state)
{
    ssh_t *s = state;
    for (uint32_t i = 0; i < s->ctx->n; i++) {
        ssh_node_t *sn = &s->nodes[i];
        if (sn->spawned)
            close_one((uv_handle_t *) &sn->proc);
    }
    for (uint32_t i = 0; i < s->ctx->n; i++) {
        ssh_node_t *sn = &s->nodes[i];
        if (!sn->pipes)
            continue;
        close_one((uv_handle_t *) &sn->in);
        close_one((uv_handle_t *) &sn->err);
        close_one((uv_handle_t *) &sn->out);
    }
}

const sn_launcher_ops_t sn__launch_ssh = {.name = "ssh",
                                          .ready_node_ms = SN_LAUNCH_READY_SSH_MS,
                                          .listen = SN_LAUNCH_DEFAULT_LISTEN,
                                          .ids_at_join = 0,
                                          .one_clock = 0,
                                          .check = sn__launch_check_processes,
                                          .prepare = prepare,
                                          .start = start,
                                          .started = started,
                                          .hello = hello,
                                          .late = late,
                                          .hosts = hosts,
                                          .running = running,
                                          .kill = kill_all,
                                          .close = close_all,
                                          .free = free_state};
