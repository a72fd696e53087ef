/* Framed TCP connections over libuv (node/): see conn.h for the frame format and the ownership
 * rules. Large bodies are read directly into their buffer (no staging copy); small frames are
 * parsed out of a 64 KiB staging buffer, many per read. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "stepnet/error.h"
#include "stepnet/util.h"

#define STAGE_SIZE 65536
#define DIRECT_MIN 16384 /* read a body directly into place when this much of it is missing */

typedef struct wreq_s {
    uv_write_t req;
    sn_conn_t *c;
    size_t cap;     /* bytes available in data[] */
    size_t len;     /* bytes of the frame (header + body) */
    uint8_t data[]; /* header then body */
} wreq_t;

static void on_close(uv_handle_t *h)
{
    sn_conn_t *c = h->data;
    free(c->body);
    free(c->stage);
    while (c->nspare > 0)
        free(c->spare[--c->nspare]);
    c->body = c->stage = NULL;
    if (c->ops->on_closed)
        c->ops->on_closed(c);
}

void sn_conn_close(sn_conn_t *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->reading)
        uv_read_stop((uv_stream_t *) &c->tcp);
    uv_close((uv_handle_t *) &c->tcp, on_close);
}

void sn_conn_fail(sn_conn_t *c, int status, const char *what)
{
    if (!c->errored && !c->closing) {
        c->errored = 1;
        if (c->ops->on_error)
            c->ops->on_error(c, status, what);
    }
    sn_conn_close(c);
}

int sn_conn_init(uv_loop_t *loop, sn_conn_t *c, const sn_conn_ops_t *ops, void *owner)
{
    memset(c, 0, sizeof *c);
    c->ops = ops;
    c->owner = owner;
    c->type = -1;
    c->tcp.data = c;
    snprintf(c->name, sizeof c->name, "connection");
    return uv_tcp_init(loop, &c->tcp);
}

/* ---- reading ------------------------------------------------------------------------------- */

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void) suggested;
    sn_conn_t *c = h->data;
    if (c->type >= 0 && c->body_len - c->body_have >= DIRECT_MIN) {
        buf->base = (char *) c->body + c->body_have;
        buf->len = c->body_len - c->body_have;
        return;
    }
    if (c->stage == NULL) {
        c->stage = sn_xmalloc(STAGE_SIZE);
        c->stage_cap = STAGE_SIZE;
    }
    buf->base = (char *) c->stage;
    buf->len = c->stage_cap;
}

/* Hands the complete frame to the consumer and resets for the next header. */
static void deliver(sn_conn_t *c)
{
    int type = c->type;
    uint32_t len = c->body_len;
    c->type = -1;
    c->hdr_have = 0;
    c->body_have = 0;
    c->body_len = 0;
    c->ops->on_frame(c, type, c->body, len);
}

/* A header is complete: checks type and length before anything is allocated. */
static int begin_body(sn_conn_t *c)
{
    uint32_t len = ((uint32_t) c->hdr[0] << 24) | ((uint32_t) c->hdr[1] << 16) |
                   ((uint32_t) c->hdr[2] << 8) | c->hdr[3];
    int type = c->hdr[4];
    char what[160];
    if (type <= 0 || type >= SN_FRAME_NTYPES || c->max_body[type] == 0) {
        snprintf(what, sizeof what, "frame of unknown or unexpected type %d", type);
        sn_conn_fail(c, SN_EPROTO, what);
        return -1;
    }
    if (len < 1 || len - 1 > c->max_body[type]) {
        snprintf(what, sizeof what, "frame of type %d with %u body bytes exceeds the maximum %u",
                 type, len ? len - 1 : 0, c->max_body[type]);
        sn_conn_fail(c, SN_EPROTO, what);
        return -1;
    }
    c->type = type;
    c->body_len = len - 1;
    c->body_have = 0;
    if (c->body_cap < c->body_len) {
        free(c->body);
        c->body = sn_xmalloc(c->body_len);
        c->body_cap = c->body_len;
    }
    return 0;
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    sn_conn_t *c = s->data;
    if (nread < 0) {
        sn_conn_fail(c, (int) nread, nread == UV_EOF ? "closed by the peer" : "read failed");
        return;
    }
    if (nread == 0 || c->closing)
        return;
    if ((uint8_t *) buf->base != c->stage) { /* read straight into the body */
        c->body_have += (uint32_t) nread;
        if (c->body_have == c->body_len)
            deliver(c);
        return;
    }
    const uint8_t *p = c->stage;
    size_t n = (size_t) nread;
    while (n > 0 && !c->closing) {
        if (c->type < 0) {
            size_t take = SN_FRAME_HDR - c->hdr_have;
            if (take > n)
                take = n;
            memcpy(c->hdr + c->hdr_have, p, take);
            c->hdr_have += (uint32_t) take;
            p += take;
            n -= take;
            if (c->hdr_have < SN_FRAME_HDR)
                break;
            if (begin_body(c) < 0)
                return;
            if (c->body_len == 0) {
                deliver(c);
                continue;
            }
        }
        size_t take = c->body_len - c->body_have;
        if (take > n)
            take = n;
        memcpy(c->body + c->body_have, p, take);
        c->body_have += (uint32_t) take;
        p += take;
        n -= take;
        if (c->body_have == c->body_len)
            deliver(c);
    }
}

int sn_conn_start(sn_conn_t *c)
{
    int rc = uv_tcp_nodelay(&c->tcp, 1);
    if (rc == 0)
        rc = uv_read_start((uv_stream_t *) &c->tcp, alloc_cb, read_cb);
    if (rc == 0)
        c->reading = 1;
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------- */

uint8_t *sn_conn_frame(sn_conn_t *c, int type, size_t body_len)
{
    size_t need = SN_FRAME_HDR + body_len;
    wreq_t *w = NULL;
    for (int i = c->nspare - 1; i >= 0; i--) { /* the most recently released first: cache-warm */
        wreq_t *s = (wreq_t *) c->spare[i];
        if (s->cap >= need) {
            w = s;
            memmove(&c->spare[i], &c->spare[i + 1],
                    (size_t) (c->nspare - 1 - i) * sizeof *c->spare);
            c->nspare--;
            break;
        }
    }
    if (w == NULL) {
        w = sn_xmalloc(sizeof *w + need);
        w->cap = need;
    }
    w->c = c;
    w->len = need;
    uint32_t len = (uint32_t) body_len + 1;
    w->data[0] = (uint8_t) (len >> 24);
    w->data[1] = (uint8_t) (len >> 16);
    w->data[2] = (uint8_t) (len >> 8);
    w->data[3] = (uint8_t) len;
    w->data[4] = (uint8_t) type;
    return w->data + SN_FRAME_HDR;
}

static wreq_t *wreq_of(uint8_t *body)
{
    return (wreq_t *) (body - SN_FRAME_HDR - offsetof(wreq_t, data));
}

static void release(sn_conn_t *c, wreq_t *w)
{
    /* keep buffers for the next frames: every slot sends one frame per link, and large
     * buffers would be mmap'd and unmapped each time */
    if (!c->closing && c->nspare < 4)
        c->spare[c->nspare++] = (uint8_t *) w;
    else
        free(w);
}

static void write_cb(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *) req;
    sn_conn_t *c = w->c;
    c->queued -= w->len;
    release(c, w);
    if (status < 0 && status != UV_ECANCELED)
        sn_conn_fail(c, status, "write failed");
}

int sn_conn_send(sn_conn_t *c, uint8_t *body)
{
    wreq_t *w = wreq_of(body);
    if (c->closing) {
        free(w);
        return UV_ECANCELED;
    }
    uv_buf_t b = uv_buf_init((char *) w->data, (unsigned) w->len);
    c->queued += w->len;
    int rc = uv_write(&w->req, (uv_stream_t *) &c->tcp, &b, 1, write_cb);
    if (rc < 0) {
        c->queued -= w->len;
        free(w);
        sn_conn_fail(c, rc, "write failed");
    }
    return rc;
}
