/* Persistent daemons (launch): the launcher of `stepnet run` with a list of daemon addresses. It
 * dials every `stepnet-node --serve` daemon of the list over an authenticated connection
 * (net/secure.c) and invites it to the run; each daemon starts one node process that joins the
 * control listener like a joining node (docs/deploy.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/launch_internal.h"
#include "net/addr.h"
#include "net/wire.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

/* The control listener when the run names none: the daemons' nodes dial back from their hosts. */
#define DAEMONS_LISTEN "0.0.0.0:0"

typedef struct daemons_s daemons_t;

/* One daemon's invitation. */
typedef struct daemon_s {
    daemons_t *s;
    sn_conn_t c;
    uv_connect_t req;
    char text[SN_ADDR_MAX_TEXT]; /* as the list gave it */
    sn_addr_t addr;
    uint32_t index; /* its position in the list: the id it is invited as */
    int open, replied;
    uint32_t id, pid; /* from the reply */
} daemon_t;

struct daemons_s {
    const sn_launch_ctx_t *ctx;
    daemon_t *d; /* [n]: one per node */
    uint32_t n, nreplied;
    int closing; /* the engine closed the launcher: no invitation goes on */
};

/* Calls fn(ctx, item, len) for every comma-separated item of list; stops at the first negative. */
static int each_item(const char *list, int (*fn)(void *, const char *, size_t), void *ctx)
{
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        int rc = fn(ctx, p, len);
        if (rc < 0)
            return rc;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

typedef struct {
    const char *list;
    sn_err_t *err;
    daemons_t *s; /* NULL: only count */
    uint32_t count;
} items_t;

int sn_launch_daemon_times(const char *text, size_t len, uint32_t *times)
{
    uint64_t v = 0;
    if (len == 0 || len > 9)
        return SN_EINVAL;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return SN_EINVAL;
        v = v * 10 + (uint64_t) (text[i] - '0');
    }
    if (v < 1 || v > SN_LAUNCH_DAEMON_TIMES_MAX)
        return SN_EINVAL;
    *times = (uint32_t) v;
    return 0;
}

/* One address of the list, HOST:PORT or HOST:PORT*N for N nodes (the command line checked them:
 * an error here is a caller's). */
static int one_item(void *vctx, const char *item, size_t len)
{
    items_t *it = vctx;
    char buf[SN_ADDR_MAX_TEXT];
    sn_addr_t a;
    sn_err_t e = {0};
    uint32_t times = 1;
    const char *star = len ? memchr(item, '*', len) : NULL;
    if (star) {
        if (sn_launch_daemon_times(star + 1, len - (size_t) (star - item) - 1, &times) < 0)
            return sn_err_inval(it->err, SN_REF_NODES " '%s': '%.*s': ADDR*N takes N from 1 to %u",
                                it->list, (int) len, item, SN_LAUNCH_DAEMON_TIMES_MAX);
        len = (size_t) (star - item);
    }
    if (len == 0 || len >= sizeof buf)
        return sn_err_inval(it->err, SN_REF_NODES " '%s': an item is empty or too long", it->list);
    memcpy(buf, item, len);
    buf[len] = '\0';
    if (sn_addr_parse(buf, -1, &a, &e) < 0 || a.port == 0)
        return sn_err_inval(it->err,
                            SN_REF_NODES " '%s': '%s' is not a daemon address HOST:PORT (port 1 "
                                         "to 65535)",
                            it->list, buf);
    for (uint32_t k = 0; k < times; k++) {
        if (it->s) {
            daemon_t *d = &it->s->d[it->count];
            memcpy(d->text, buf, len + 1);
            d->addr = a;
            d->index = it->count;
            d->s = it->s;
        }
        it->count++;
    }
    return 0;
}

static void free_state(void *state)
{
    daemons_t *s = state;
    if (s == NULL)
        return;
    free(s->d);
    free(s);
}

/* The list into one invitation per node (SN_EINVAL unless it gives one daemon per node). */
static int prepare(const sn_launch_ctx_t *ctx, void **state, sn_err_t *err)
{
    const char *list = ctx->o.daemons;
    items_t it = {.list = list, .err = err};
    *state = NULL;
    int rc = each_item(list, one_item, &it);
    if (rc < 0)
        return rc;
    if (it.count != ctx->n)
        return sn_err_inval(err,
                            SN_REF_NODES
                            " lists %u daemons, but the topology has %u nodes: give one daemon "
                            "address per node (a daemon may be listed more than once, or as "
                            "HOST:PORT*N for N nodes)",
                            it.count, ctx->n);
    daemons_t *s = sn_xcalloc(1, sizeof *s);
    s->ctx = ctx;
    s->d = sn_xcalloc(it.count, sizeof *s->d);
    s->n = it.count;
    it.s = s;
    it.count = 0;
    if ((rc = each_item(list, one_item, &it)) < 0) {
        free_state(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* ---- the invitations ------------------------------------------------------------------------- */

static void daemon_fail(daemon_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The run ends: daemon d failed as fmt says. */
static void daemon_fail(daemon_t *d, const char *fmt, ...)
{
    const sn_launch_ctx_t *ctx = d->s->ctx;
    char why[300], text[SN_LAUNCH_WHY_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(text, sizeof text, "daemon %s (node %u in " SN_REF_NODES "): %s", d->text, d->index,
             why);
    ctx->failed(ctx->engine, text);
    sn_conn_close(&d->c);
}

/* Every daemon answered: the ids they claim must be each node id once. */
static void check_ids(daemons_t *s)
{
    for (uint32_t i = 0; i < s->n; i++) {
        daemon_t *d = &s->d[i];
        if (d->id >= s->ctx->n) {
            daemon_fail(d, "its node claims id %u, but the topology has nodes 0 to %u", d->id,
                        s->ctx->n - 1);
            return;
        }
        for (uint32_t j = 0; j < i; j++)
            if (s->d[j].id == d->id) {
                daemon_fail(
                    d,
                    "its node claims id %u, as does daemon %s's (started with " SN_REF_NODE_ID "?)",
                    d->id, s->d[j].text);
                return;
            }
    }
}

static void on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    daemon_t *d = c->owner;
    daemons_t *s = d->s;
    const sn_launch_ctx_t *ctx = s->ctx;
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    if (m == NULL || m->msg_case != STEPNET__CONTROL__MSG_DAEMON_REPLY || d->replied) {
        daemon_fail(d,
                    "it sent a malformed or unexpected frame (%zu bytes): is it a " SN_REF_DAEMON
                    " of this version?",
                    len);
    } else if (m->daemon_reply->error && m->daemon_reply->error[0]) {
        daemon_fail(d, "it refused the run: %s", m->daemon_reply->error);
    } else {
        d->replied = 1;
        d->id = m->daemon_reply->has_id ? m->daemon_reply->id : d->index;
        d->pid = m->daemon_reply->pid;
        sn_conn_expect_done(c);
        /* the placement is printed like join mode's "node N joined from ..." */
        sn_log_write(ctx->log, SN_LOG_INFO, "LAUNCH-DAEMON", "daemon %s runs node %u (pid %u)",
                     d->text, d->id, d->pid);
        sn_conn_close(c);
        if (++s->nreplied == s->n)
            check_ids(s);
        ctx->started(ctx->engine, d->id);
    }
    if (m)
        stepnet__control__free_unpacked(m, NULL);
}

static void on_error(sn_conn_t *c, int status, const char *what)
{
    daemon_t *d = c->owner;
    if (!d->replied)
        daemon_fail(d, "%s: %s", what, sn_uv_error_text(status));
}

static void on_closed(sn_conn_t *c)
{
    daemon_t *d = c->owner;
    d->open = 0;
}

static const sn_conn_ops_t daemon_ops = {on_frame, on_error, on_closed};

static void on_connect(uv_connect_t *req, int status)
{
    daemon_t *d = req->data;
    const sn_launch_ctx_t *ctx = d->s->ctx;
    if (status == UV_ECANCELED)
        return;
    if (status < 0) {
        daemon_fail(d,
                    "cannot connect: %s (is `" SN_REF_DAEMON " " SN_REF_DAEMON_LISTEN
                    " %s` running there?)",
                    sn_uv_error_text(status), d->text);
        return;
    }
    if (d->s->closing) {
        sn_conn_close(&d->c);
        return;
    }
    int rc = sn_conn_start(&d->c, ctx->sec, 1);
    if (rc < 0) {
        daemon_fail(d, "cannot start the connection: %s", sn_uv_error_text(rc));
        return;
    }
    sn_conn_expect(&d->c, ctx->o.connect_ms, "reply to its invitation");
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__DaemonInvite inv = STEPNET__DAEMON_INVITE__INIT;
    inv.version = SN_WIRE_VERSION;
    inv.coord_port = ctx->listen_port;
    inv.id = d->index;
    inv.has_connect_ms = 1;
    inv.connect_ms = ctx->o.connect_ms;
    inv.has_verbose = 1;
    inv.verbose = ctx->o.verbose != 0;
    m.msg_case = STEPNET__CONTROL__MSG_DAEMON_INVITE;
    m.daemon_invite = &inv;
    sn_wire_send_control(&d->c, &m);
}

/* Invites every daemon, now that the control listener is up; a failure ends the run, naming the
 * daemon. */
static int start(void *state, sn_err_t *err)
{
    daemons_t *s = state;
    const sn_launch_ctx_t *ctx = s->ctx;
    (void) err;
    for (uint32_t i = 0; i < s->n && !s->closing; i++) {
        daemon_t *d = &s->d[i];
        struct sockaddr_storage sa;
        sn_err_t e = {0};
        sn_conn_init(ctx->loop, &d->c, &daemon_ops, d);
        d->open = 1;
        sn_wire_limits_control_prehello(&d->c);
        snprintf(d->c.name, sizeof d->c.name, "daemon %u", d->index);
        if (sn_addr_resolve(ctx->loop, &d->addr, &sa, &e) < 0) {
            daemon_fail(d, "%s", e.msg);
            return 0;
        }
        d->req.data = d;
        int rc = uv_tcp_connect(&d->req, &d->c.tcp, (struct sockaddr *) &sa, on_connect);
        if (rc < 0) {
            daemon_fail(d, "cannot connect: %s", sn_uv_error_text(rc));
            return 0;
        }
    }
    return 0;
}

static uint32_t started(const void *state)
{
    return ((const daemons_t *) state)->nreplied;
}

static const char *late(const void *state, uint32_t node, const char *hello_host, char *host,
                        size_t cap)
{
    const daemons_t *s = state;
    /* the daemon whose node claimed this id, else the one invited as it (its position) */
    const daemon_t *d = NULL;
    for (uint32_t i = 0; i < s->n && d == NULL; i++)
        if (s->d[i].replied && s->d[i].id == node)
            d = &s->d[i];
    for (uint32_t i = 0; i < s->n && d == NULL; i++)
        if (!s->d[i].replied && s->d[i].index == node)
            d = &s->d[i];
    snprintf(host, cap, "%s", d ? d->text : hello_host ? hello_host : "");
    if (hello_host)
        return NULL;
    if (d == NULL)
        return "no daemon runs it";
    return d->replied ? "process started but no hello" : "daemon has not answered its invitation";
}

/* The invitations still open. */
static void close_all(void *state)
{
    daemons_t *s = state;
    s->closing = 1;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->d[i].open)
            sn_conn_close(&s->d[i].c);
}

const sn_launcher_ops_t sn__launch_daemons = {.name = "daemons",
                                              .ready_node_ms = SN_LAUNCH_READY_NODE_MS,
                                              .listen = DAEMONS_LISTEN,
                                              .ids_at_join = 0,
                                              .one_clock = 0,
                                              .prepare = prepare,
                                              .start = start,
                                              .started = started,
                                              .late = late,
                                              .close = close_all,
                                              .free = free_state};
