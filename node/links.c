/* The links of stepnet-node (node/): one TCP connection per edge of the topology, dialled by the
 * edge's smaller id (so exactly one connection appears per link) and named by a link hello that
 * carries the run token; inbound connections wait in `pending` until their hello binds them (or
 * until the assignment, for hellos that arrive first). READY is sent once every link is up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_internal.h"
#include "proc/uv_error.h"
#include "stepnet/util.h"

static void check_ready(node_t *nd)
{
    if (nd->net.ready_sent || nd->net.links_up < nd->deg)
        return;
    nd->net.ready_sent = 1;
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Ready r = STEPNET__READY__INIT;
    r.node = nd->id;
    for (uint32_t q = 0; q < nd->deg; q++)
        if (nd->links[q].lc && nd->links[q].lc->c.sec)
            r.link_ciphers |= (uint32_t) nd->links[q].lc->c.sec->cipher;
    r.has_link_ciphers = 1;
    m.msg_case = STEPNET__CONTROL__MSG_READY;
    m.ready = &r;
    sn__node_send_ctl(nd, &m);
    printf("READY id=%u port=%d\n", nd->id, nd->net.data_port);
    fflush(stdout);
    sn_log_write(&nd->log, SN_LOG_INFO, "NODE-READY", "%u links up", nd->deg);
}

static void link_on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len);
static void link_on_error(sn_conn_t *c, int status, const char *what);
static void link_on_closed(sn_conn_t *c);
static void link_on_piece(sn_conn_t *c, int type, const uint8_t *p, size_t off, size_t n,
                          size_t total);

static const sn_conn_ops_t link_ops = {link_on_frame, link_on_error, link_on_closed, link_on_piece};

/* Calibration probes: u64 sequence then probe bytes, all 0x5a (calibrate.c). A probe longer than
 * a chunk is echoed by generating the same bytes again, so no link holds a whole probe. */
static void probe_fill(const void *ctx, uint32_t off, uint8_t *dst, uint32_t n)
{
    (void) ctx;
    (void) off;
    memset(dst, 0x5a, n);
}

int sn__node_send_probe(sn_conn_t *c, int type, uint64_t seq, uint32_t bytes)
{
    uint8_t head[8];
    memcpy(head, &seq, 8);
    return sn_conn_send_gen(c, type, head, 8, bytes, probe_fill, NULL, 0);
}

void sn__node_link_probe(link_t *l, int type, uint64_t seq, uint32_t bytes)
{
    if (l->lc == NULL) /* the link's connection closed (its failure is reported already) */
        return;
    sn_conn_t *c = &l->lc->c;
    if (!l->emu_on) {
        sn__node_send_probe(c, type, seq, bytes);
        return;
    }
    uint8_t *b = sn_conn_frame(c, type, 8 + (size_t) bytes);
    memcpy(b, &seq, 8);
    memset(b + 8, 0x5a, bytes);
    sn__node_link_send(l, b, 8 + (size_t) bytes);
}

/* 1 when every one of the n bytes is the probes' 0x5a: eight at a time (a byte loop took a fifth
 * of the nodes' CPU in runs of 1 MiB packets, whose calibration probes are as large). */
static int probe_bytes_ok(const uint8_t *p, size_t n)
{
    const uint64_t want = 0x5a5a5a5a5a5a5a5aull;
    uint64_t diff = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        diff |= w ^ want;
    }
    for (; i < n; i++)
        diff |= (uint64_t) (p[i] ^ 0x5a);
    return diff == 0;
}

/* A frame of a bound link that arrives in pieces (conn.h): a data frame is parsed from its first
 * piece and its payload checked piece by piece, then taken whole into the window; a probe is
 * answered (PING) or timed (PONG) after its last piece. */
static void link_on_piece(sn_conn_t *c, int type, const uint8_t *p, size_t off, size_t n,
                          size_t total)
{
    lconn_t *lc = c->owner;
    link_t *l = lc->link;
    if (l == NULL) { /* only the hello may come before binding, and it is never this long */
        sn_conn_fail(c, SN_EPROTO, "a long frame before the link hello");
        return;
    }
    int last = off + n == total;
    if (off == 0)
        lc->piece_bad = 0;
    if (lc->piece_bad)
        return;
    if (type == SN_FRAME_PING || type == SN_FRAME_PONG) {
        size_t from = 0;
        if (off == 0)
            memcpy(&lc->piece_seq, p, 8), from = 8; /* the first piece holds far more than 8 */
        if (!probe_bytes_ok(p + from, n - from)) {
            lc->piece_bad = 1;
            sn_conn_fail(c, SN_EPROTO, "calibration probe with bytes other than the probe's");
            return;
        }
        if (!last)
            return;
        if (type == SN_FRAME_PING && (lc->piece_seq & SN_NODE_CONC_SEQ))
            sn__node_on_conc_ping(l, lc->piece_seq);
        else if (type == SN_FRAME_PING)
            sn__node_link_probe(l, SN_FRAME_PONG, lc->piece_seq, (uint32_t) (total - 8));
        else
            sn__node_on_pong(l, lc->piece_seq);
        return;
    }
    if (type != SN_FRAME_DATA) {
        link_on_frame(c, type, p, n); /* refused there as unexpected */
        return;
    }
    sn_wire_data_t *d = &lc->piece_d;
    uint32_t poff = 0;
    const uint8_t *pp = p;
    size_t pn = n;
    if (off == 0) {
        sn_err_t err = {0};
        if (sn_wire_parse_data_head(p, n, total, l->nd->params.size, d, &err) < 0) {
            lc->piece_bad = 1;
            sn__node_data_malformed(l, err.msg);
            return;
        }
        pp = d->payload;
        pn = n - (size_t) (d->payload - p);
        d->payload = NULL; /* lent only for this piece */
    } else {
        poff = (uint32_t) (off - (total - d->payload_len));
    }
    if (sn__node_data_check(l, d, pp, poff, (uint32_t) pn) < 0) {
        lc->piece_bad = 1;
        return;
    }
    if (last)
        sn__node_data_accept(l, d);
}

static void bind_link(link_t *l, lconn_t *lc)
{
    sn_admit_done(&l->nd->net.admit, &lc->c);
    lc->link = l;
    l->lc = lc;
    l->up = 1;
    sn_wire_limits_link(&lc->c, l->nd->ex.max_size, 0);
    snprintf(lc->c.name, sizeof lc->c.name, "edge %u (node %u)", l->edge, l->peer);
    l->nd->net.links_up++;
    check_ready(l->nd);
}

/* The connection's handles are closed: forget and free it. */
void sn__node_lconn_free(lconn_t *lc)
{
    node_t *nd = lc->nd;
    if (lc->index != SIZE_MAX && lc->index < nd->nconns && nd->conns[lc->index] == lc) {
        nd->conns[lc->index] = nd->conns[--nd->nconns];
        nd->conns[lc->index]->index = lc->index;
    }
    free(lc);
}

/* Closes a connection; it is freed in its on_closed callback. */
void sn__node_lconn_close(lconn_t *lc)
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
        char text[300];
        snprintf(text, sizeof text, "claiming edge %u from node %u: %s", h->edge, h->from, why);
        sn_admit_done(&nd->net.admit, &lc->c);
        sn_admit_refused(&nd->net.admit, lc->c.peer, text);
        sn__node_lconn_close(lc);
        return;
    }
    bind_link(l, lc);
}

static void remove_pending(node_t *nd, lconn_t *lc)
{
    for (size_t i = 0; i < nd->net.npending; i++) {
        if (nd->net.pending[i] == lc) {
            nd->net.pending[i] = nd->net.pending[--nd->net.npending];
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
            remove_pending(nd, lc);
            sn_admit_done(&nd->net.admit, c);
            sn_admit_refused(&nd->net.admit, c->peer, "its first frame is not a valid link hello");
            sn__node_lconn_close(lc);
            return;
        }
        sn_conn_expect_done(c); /* it said who it is: judged now, or after the assignment */
        sn_admit_done(&nd->net.admit, c);
        remove_pending(nd, lc);
        if (nd->assigned) {
            accept_hello(nd, lc, h);
        } else { /* keep it until we know the topology and the token */
            lc->hello = *h;
            lc->have_hello = 1;
            sn_grow((void **) &nd->net.pending, &nd->net.cappending, nd->net.npending + 1,
                    sizeof *nd->net.pending);
            nd->net.pending[nd->net.npending++] = lc;
        }
        stepnet__link_hello__free_unpacked(h, NULL);
        return;
    }
    link_t *l = lc->link;
    switch (type) {
    case SN_FRAME_DATA:
        sn__node_on_data(l, body, len);
        break;
    case SN_FRAME_PING: {
        uint64_t seq = 0;
        if (len < 8) {
            sn_conn_fail(c, SN_EPROTO, "calibration probe shorter than its sequence number");
            return;
        }
        memcpy(&seq, body, 8);
        for (size_t i = 8; i < len; i++)
            if (body[i] != 0x5a) {
                sn_conn_fail(c, SN_EPROTO, "calibration probe with bytes other than the probe's");
                return;
            }
        if (seq & SN_NODE_CONC_SEQ) /* a concurrent round's: no echo */
            sn__node_on_conc_ping(l, seq);
        else /* the echo, generated again */
            sn__node_link_probe(l, SN_FRAME_PONG, seq, (uint32_t) (len - 8));
        break;
    }
    case SN_FRAME_PONG: {
        uint64_t seq = UINT64_MAX;
        if (len >= 8)
            memcpy(&seq, body, 8);
        sn__node_on_pong(l, seq);
        break;
    }
    default:
        sn_log_write(&nd->log, SN_LOG_ERROR, "LINK-PROTO",
                     "edge %u (node %u): unexpected frame type %d", l->edge, l->peer, type);
        sn__node_report(nd, SN_EPROTO, nd->ex.t, STEPNET__ABORT_KIND__ABORT_PROTO, l->peer, NULL, 0,
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
        char text[300];
        snprintf(text, sizeof text, "before its hello: %s (%s)", what, sn_uv_error_text(status));
        sn_admit_done(&nd->net.admit, c);
        sn_admit_refused(&nd->net.admit, c->peer, text);
        return;
    }
    link_t *l = lc->link;
    l->down = 1;
    if (!nd->ex.running && status != SN_EPROTO) {
        /* between collectives (a peer leaving after STOP): the next START fails if it matters */
        sn_log_write(&nd->log, SN_LOG_INFO, "LINK-DOWN",
                     "edge %u (node %u) closed between collectives: %s", l->edge, l->peer, what);
        return;
    }
    sn_log_write(&nd->log, SN_LOG_ERROR, status == SN_EPROTO ? "LINK-PROTO" : "LINK-DOWN",
                 "edge %u (node %u): %s (%s)", l->edge, l->peer, what, sn_uv_error_name(status));
    if (nd->exit_code == 0)
        sn__node_report(nd, status == SN_EPROTO ? SN_EPROTO : SN_ELINK, nd->ex.t,
                        status == SN_EPROTO ? STEPNET__ABORT_KIND__ABORT_PROTO
                                            : STEPNET__ABORT_KIND__ABORT_LINK,
                        l->peer, NULL, 0, "link to node %u (edge %u) failed at slot %llu: %s (%s)",
                        l->peer, l->edge, (unsigned long long) nd->ex.t, what,
                        sn_uv_error_text(status));
}

static void link_on_closed(sn_conn_t *c)
{
    lconn_t *lc = c->owner;
    node_t *nd = lc->nd;
    remove_pending(nd, lc);
    if (lc->link == NULL)
        sn_admit_done(&nd->net.admit, c);
    if (lc->link && lc->link->lc == lc) {
        sn__node_emu_drop(lc->link); /* frames it still held for this connection */
        lc->link->lc = NULL;
    }
    for (uint32_t q = 0; q < nd->deg; q++)
        if (nd->links[q].dial.dialling == lc)
            nd->links[q].dial.dialling = NULL;
    sn__node_lconn_free(lc);
}

lconn_t *sn__node_lconn_new(node_t *nd, const sn_conn_ops_t *ops)
{
    lconn_t *lc = sn_xcalloc(1, sizeof *lc);
    lc->nd = nd;
    sn_conn_init(nd->loop, &lc->c, ops, lc);
    sn_conn_use_pool(&lc->c, &nd->net.pool);
    sn_grow((void **) &nd->conns, &nd->capconns, nd->nconns + 1, sizeof *nd->conns);
    lc->index = nd->nconns;
    nd->conns[nd->nconns++] = lc;
    return lc;
}

static void admit_log(sn_admit_t *a, const char *line)
{
    sn_log_write(&((node_t *) a->owner)->log, SN_LOG_ERROR, "LINK-REFUSED", "%s", line);
}

/* Accepts one inbound connection: unauthenticated until its link hello. */
static void accept_one(sn_admit_t *a)
{
    node_t *nd = a->owner;
    uv_stream_t *server = (uv_stream_t *) &nd->net.listener;
    lconn_t *lc = sn__node_lconn_new(nd, &link_ops);
    sn_wire_limits_link(&lc->c, 0, 1);
    /* a connection that never says who it is is closed at the connect deadline */
    sn_conn_expect(&lc->c, nd->connect_ms ? nd->connect_ms : 10000, "link hello");
    if (uv_accept(server, (uv_stream_t *) &lc->c.tcp) < 0 ||
        sn_conn_start(&lc->c, &nd->sec, 0) < 0) {
        sn__node_lconn_close(lc);
        return;
    }
    sn_grow((void **) &nd->net.pending, &nd->net.cappending, nd->net.npending + 1,
            sizeof *nd->net.pending);
    nd->net.pending[nd->net.npending++] = lc;
    sn_admit_add(&nd->net.admit, &lc->c);
}

const sn_admit_ops_t sn__node_admit_ops = {admit_log, accept_one};

void sn__node_on_link_connection(uv_stream_t *server, int status)
{
    node_t *nd = server->data;
    if (nd->stopping || sn_admit_gate(&nd->net.admit, status))
        return;
    accept_one(&nd->net.admit);
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
    lconn_t *lc = l->dial.dialling;
    if (nd->stopping || lc == NULL)
        return;
    if (status < 0) {
        char at[SN_ADDR_MAX_TEXT];
        l->dial.dialling = NULL;
        sn__node_lconn_close(lc);
        if (uv_now(nd->loop) >= nd->ctl.deadline) {
            sn__node_report(nd, SN_ETIMEOUT, 0, STEPNET__ABORT_KIND__ABORT_LINK, l->peer, NULL, 0,
                            "connect deadline (%u ms): could not connect to node %u at %s for edge "
                            "%u: %s",
                            nd->connect_ms, l->peer,
                            sn_addr_print(l->dial.addr.host, l->dial.addr.port, at, sizeof at),
                            l->edge, uv_strerror(status));
            return;
        }
        l->dial.backoff_ms =
            l->dial.backoff_ms ? (l->dial.backoff_ms * 2 > 200 ? 200 : l->dial.backoff_ms * 2) : 5;
        uv_timer_start(&l->dial.retry, on_retry, l->dial.backoff_ms, 0);
        return;
    }
    l->dial.dialling = NULL;
    if (sn_conn_start(&lc->c, &nd->sec, 1) < 0) {
        sn__node_lconn_close(lc);
        sn__node_abort(nd, SN_ELINK, 0, "cannot start the link to node %u", l->peer);
        return;
    }
    sn_wire_send_linkhello(&lc->c, nd->token, l->edge, nd->id);
    bind_link(l, lc);
}

static void dial(link_t *l)
{
    node_t *nd = l->nd;
    lconn_t *lc = sn__node_lconn_new(nd, &link_ops);
    sn_wire_limits_link(&lc->c, nd->ex.max_size, 0);
    l->dial.dialling = lc;
    l->dial.creq.data = l;
    int rc = uv_tcp_connect(&l->dial.creq, &lc->c.tcp, (const struct sockaddr *) &l->dial.sa,
                            on_link_connect);
    if (rc < 0) {
        char at[SN_ADDR_MAX_TEXT];
        l->dial.dialling = NULL;
        sn__node_lconn_close(lc);
        sn__node_abort(nd, SN_ELINK, 0, "connect to node %u at %s: %s", l->peer,
                       sn_addr_print(l->dial.addr.host, l->dial.addr.port, at, sizeof at),
                       uv_strerror(rc));
    }
}

/* ---- set-up --------------------------------------------------------------------------------- */

int sn__node_links_init(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    const sn_topo_t *t = nd->topo;
    nd->deg = sn_topo_degree(t, nd->id);
    nd->links = sn_xcalloc(nd->deg + 1, sizeof *nd->links);
    sn_admit_set_reserve(&nd->net.admit, nd->deg); /* every neighbour may dial at once */
    uint64_t need = (uint64_t) nd->deg + SN_NODE_FD_BASE + SN_ADMIT_FD_HEADROOM;
    if (nd->net.admit.fd_limit && nd->net.admit.fd_limit < need) {
        char lim[64];
        return sn_err_set(err, SN_EINVAL,
                          "the %s is too low for %u links: a node holds one connection per link "
                          "and needs at least %llu descriptors",
                          sn_admit_limit_text(lim, sizeof lim), nd->deg, (unsigned long long) need);
    }
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        const sn_port_t *pp = sn_topo_port(t, nd->id, q);
        l->nd = nd;
        l->port = q;
        l->edge = pp->edge;
        l->peer = pp->peer;
        l->link_id = sn_topo_link_id(t, nd->id, q);
        l->dialer = t->edges[pp->edge].a == nd->id;
        uv_timer_init(nd->loop, &l->dial.retry);
        l->dial.retry.data = l;
        nd->links_timers_live = 1;
        if (!l->dialer)
            continue;
        const Stepnet__Peer *peer = NULL;
        for (size_t i = 0; i < a->n_peers; i++)
            if (a->peers[i]->node == l->peer)
                peer = a->peers[i];
        if (peer == NULL)
            return sn_err_set(err, SN_EINVAL, "the assignment has no address for neighbour %u",
                              l->peer);
        if (strlen(peer->host) >= sizeof l->dial.addr.host || peer->port > 65535)
            return sn_err_set(err, SN_EINVAL, "bad address for neighbour %u", l->peer);
        snprintf(l->dial.addr.host, sizeof l->dial.addr.host, "%s", peer->host);
        l->dial.addr.port = (uint16_t) peer->port;
        /* resolved once, here: the dial retries reuse it */
        int rc = sn_addr_resolve(nd->loop, &l->dial.addr, &l->dial.sa, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void sn__node_links_start(node_t *nd)
{
    for (uint32_t q = 0; q < nd->deg; q++)
        if (nd->links[q].dialer)
            dial(&nd->links[q]);
    /* hellos that arrived before the assignment (connections still waiting for theirs stay
     * pending) */
    for (size_t i = 0; i < nd->net.npending;) {
        lconn_t *lc = nd->net.pending[i];
        if (!lc->have_hello) {
            i++;
            continue;
        }
        nd->net.pending[i] = nd->net.pending[--nd->net.npending];
        accept_hello(nd, lc, &lc->hello);
    }
    check_ready(nd);
}
