/* Persistent daemons (launch): `stepnet run --nodes ADDR,ADDR,...` dials every
 * `stepnet-node --serve` daemon of the list over an authenticated connection (net/secure.c) and
 * invites it to the run; each daemon starts one node process that joins the control listener like
 * a joining node (docs/deploy.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/coord_internal.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

struct sn_coord_daemon_s {
    sn_coord_t *run;
    sn_conn_t c;
    uv_connect_t req;
    char text[SN_ADDR_MAX_TEXT]; /* as given in --nodes */
    sn_addr_t addr;
    uint32_t index; /* position in --nodes: the id it is invited as */
    int open, replied;
    uint32_t id, pid; /* from the reply */
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
    sn_coord_t *r; /* NULL: only count */
    uint32_t count;
} items_t;

static int one_item(void *vctx, const char *item, size_t len)
{
    items_t *it = vctx;
    char buf[SN_ADDR_MAX_TEXT];
    sn_addr_t a;
    sn_err_t e = {0};
    if (len == 0 || len >= sizeof buf)
        return sn_err_inval(it->err, SN_REF_NODES " '%s': an item is empty or too long", it->list);
    memcpy(buf, item, len);
    buf[len] = '\0';
    if (sn_addr_parse(buf, -1, &a, &e) < 0 || a.port == 0)
        return sn_err_inval(it->err,
                            SN_REF_NODES " '%s': '%s' is not a daemon address HOST:PORT (port 1 "
                                         "to 65535)",
                            it->list, buf);
    if (it->r) {
        sn_coord_daemon_t *d = &it->r->daemons[it->count];
        memcpy(d->text, buf, len + 1);
        d->addr = a;
        d->index = it->count;
        d->run = it->r;
    }
    it->count++;
    return 0;
}

/* ---- the invitations -------------------------------------------------------------------------
 */

static void daemon_fail(sn_coord_daemon_t *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void daemon_fail(sn_coord_daemon_t *d, const char *fmt, ...)
{
    sn_coord_t *r = d->run;
    char why[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!r->stopping) {
        sn__coord_fail(r, SN_COORD_NODE_NONE, 0, "daemon %s (node %u in " SN_REF_NODES "): %s",
                       d->text, d->index, why);
        sn__coord_finish(r, 1);
    }
    sn_conn_close(&d->c);
}

/* Every daemon answered: the ids they claim must be each node id once. */
static void check_ids(sn_coord_t *r)
{
    for (uint32_t i = 0; i < r->ndaemons; i++) {
        sn_coord_daemon_t *d = &r->daemons[i];
        if (d->id >= r->n) {
            daemon_fail(d, "its node claims id %u, but the topology has nodes 0 to %u", d->id,
                        r->n - 1);
            return;
        }
        for (uint32_t j = 0; j < i; j++)
            if (r->daemons[j].id == d->id) {
                daemon_fail(
                    d,
                    "its node claims id %u, as does daemon %s's (started with " SN_REF_NODE_ID "?)",
                    d->id, r->daemons[j].text);
                return;
            }
    }
}

static void on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    sn_coord_daemon_t *d = c->owner;
    sn_coord_t *r = d->run;
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
        sn_log_write(&r->log, SN_LOG_INFO, "LAUNCH-DAEMON", "daemon %s runs node %u (pid %u)",
                     d->text, d->id, d->pid);
        sn_conn_close(c);
        if (++r->nreplied == r->ndaemons)
            check_ids(r);
        sn__coord_progress_update(r);
    }
    if (m)
        stepnet__control__free_unpacked(m, NULL);
}

static void on_error(sn_conn_t *c, int status, const char *what)
{
    sn_coord_daemon_t *d = c->owner;
    if (!d->replied)
        daemon_fail(d, "%s: %s", what, sn_uv_error_text(status));
}

static void on_closed(sn_conn_t *c)
{
    sn_coord_daemon_t *d = c->owner;
    d->open = 0;
}

static const sn_conn_ops_t daemon_ops = {on_frame, on_error, on_closed};

static void on_connect(uv_connect_t *req, int status)
{
    sn_coord_daemon_t *d = req->data;
    sn_coord_t *r = d->run;
    if (status == UV_ECANCELED)
        return;
    if (status < 0) {
        daemon_fail(d,
                    "cannot connect: %s (is `" SN_REF_DAEMON " " SN_REF_DAEMON_LISTEN
                    " %s` running there?)",
                    sn_uv_error_text(status), d->text);
        return;
    }
    if (r->stopping) {
        sn_conn_close(&d->c);
        return;
    }
    int rc = sn_conn_start(&d->c, &r->sec, 1);
    if (rc < 0) {
        daemon_fail(d, "cannot start the connection: %s", sn_uv_error_text(rc));
        return;
    }
    sn_conn_expect(&d->c, r->o->connect_ms, "reply to its invitation");
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__DaemonInvite inv = STEPNET__DAEMON_INVITE__INIT;
    inv.version = SN_WIRE_VERSION;
    inv.coord_port = r->listen_port;
    inv.id = d->index;
    inv.has_connect_ms = 1;
    inv.connect_ms = r->o->connect_ms;
    inv.has_verbose = 1;
    inv.verbose = r->o->verbose != 0;
    m.msg_case = STEPNET__CONTROL__MSG_DAEMON_INVITE;
    m.daemon_invite = &inv;
    sn_wire_send_control(&d->c, &m);
}

int sn__launch_daemons_new(sn_coord_t *r, sn_err_t *err)
{
    items_t it = {.list = r->o->daemons, .err = err};
    int rc = each_item(r->o->daemons, one_item, &it);
    if (rc < 0)
        return rc;
    if (it.count != r->n)
        return sn_err_inval(err,
                            SN_REF_NODES
                            " lists %u daemons, but the topology has %u nodes: give one daemon "
                            "address per node (a daemon may be listed more than once)",
                            it.count, r->n);
    r->daemons = sn_xcalloc(it.count, sizeof *r->daemons);
    r->ndaemons = it.count;
    it.r = r;
    it.count = 0;
    return each_item(r->o->daemons, one_item, &it);
}

void sn__launch_daemons_invite(sn_coord_t *r)
{
    for (uint32_t i = 0; i < r->ndaemons && !r->stopping; i++) {
        sn_coord_daemon_t *d = &r->daemons[i];
        struct sockaddr_storage sa;
        sn_err_t e = {0};
        sn_conn_init(r->loop, &d->c, &daemon_ops, d);
        d->open = 1;
        sn_wire_limits_control_prehello(&d->c);
        snprintf(d->c.name, sizeof d->c.name, "daemon %u", d->index);
        if (sn_addr_resolve(r->loop, &d->addr, &sa, &e) < 0) {
            daemon_fail(d, "%s", e.msg);
            return;
        }
        d->req.data = d;
        int rc = uv_tcp_connect(&d->req, &d->c.tcp, (struct sockaddr *) &sa, on_connect);
        if (rc < 0) {
            daemon_fail(d, "cannot connect: %s", sn_uv_error_text(rc));
            return;
        }
    }
}

const char *sn__launch_daemons_late(const sn_coord_t *r, const sn_coord_node_t *cn, char *host,
                                    size_t cap)
{
    /* the daemon whose node claimed this id, else the one invited as it (its position) */
    const sn_coord_daemon_t *d = NULL;
    for (uint32_t i = 0; i < r->ndaemons && d == NULL; i++)
        if (r->daemons[i].replied && r->daemons[i].id == (uint32_t) cn->id)
            d = &r->daemons[i];
    for (uint32_t i = 0; i < r->ndaemons && d == NULL; i++)
        if (!r->daemons[i].replied && r->daemons[i].index == (uint32_t) cn->id)
            d = &r->daemons[i];
    snprintf(host, cap, "%s", d ? d->text : cn->host);
    if (cn->hello)
        return NULL;
    if (d == NULL)
        return "no daemon runs it";
    return d->replied ? "process started but no hello" : "daemon has not answered its invitation";
}

void sn__launch_daemons_close(sn_coord_t *r)
{
    for (uint32_t i = 0; i < r->ndaemons; i++)
        if (r->daemons[i].open)
            sn_conn_close(&r->daemons[i].c);
}
