/* The frame reader of framed TCP connections (net/): large units are read directly into place
 * (no staging copy); small frames are parsed out of a 64 KiB staging buffer, many per read; sealed
 * chunks are opened in place as each arrives, and their payload checked piece by piece. The
 * writer, the handshake and the connection's life are in conn.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/conn.h"
#include "net/conn_internal.h"
#include "stepnet/error.h"
#include "stepnet/util.h"

/* ---- reading ------------------------------------------------------------------------------- */

static uint32_t hdr_bytes(const sn_conn_t *c)
{
    return c->sec_mode == SN_SEC_SODIUM ? 4 : SN_FRAME_HDR;
}

void sn__conn_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void) suggested;
    sn_conn_t *c = h->data;
    if (!c->established && c->hs) {
        /* before authentication, exactly the bytes the handshake wants, into its own small
         * buffer: a peer without the key gets no staging buffer and no frame parsed */
        buf->base = (char *) c->hsbuf + c->hs_have;
        buf->len = c->hs->want - c->hs_have;
        return;
    }
    if (c->type >= 0 && c->unit_len - c->unit_have >= DIRECT_MIN) {
        buf->base = (char *) c->unit + c->unit_have;
        buf->len = c->unit_len - c->unit_have;
        return;
    }
    if (c->stage == NULL) {
        c->stage = sn_xmalloc(STAGE_SIZE);
        c->stage_cap = STAGE_SIZE;
    }
    buf->base = (char *) c->stage;
    buf->len = c->stage_cap;
    /* After a large frame, the header of the next one alone: its body then goes straight into
     * place instead of most of it through the stage and a copy (te on complete:8 at 64 KiB spent
     * a tenth of its CPU in that copy), for one more read per large frame. */
    if (c->type < 0 && c->expect_large)
        buf->len = hdr_bytes(c) - c->hdr_have;
}

static int check_type(sn_conn_t *c, int type, uint32_t len)
{
    char what[160];
    if (type <= 0 || type >= SN_FRAME_NTYPES || c->max_body[type] == 0) {
        snprintf(what, sizeof what, "frame of unknown or unexpected type %d", type);
        sn_conn_fail(c, SN_EPROTO, what);
        return -1;
    }
    if (len > c->max_body[type]) {
        snprintf(what, sizeof what, "frame of type %d with %u body bytes exceeds the maximum %u",
                 type, len, c->max_body[type]);
        sn_conn_fail(c, SN_EPROTO, what);
        return -1;
    }
    return 0;
}

static uint8_t *chunk_buf(sn_conn_t *c)
{
    if (c->chunk == NULL)
        c->chunk = sn_xmalloc(SN_CONN_CHUNK + SN_SEC_ABYTES);
    return c->chunk;
}

static uint8_t *body_buf(sn_conn_t *c, uint32_t len)
{
    if (c->body_cap < len || c->body == NULL) {
        free(c->body);
        c->body = sn_xmalloc(len ? len : 1);
        c->body_cap = len;
    }
    return c->body;
}

/* The frame is over: ready for the next header. */
static void frame_end(sn_conn_t *c)
{
    c->expect_large = c->flen >= DIRECT_MIN;
    c->type = -1;
    c->hdr_have = 0;
    c->unit_have = c->unit_len = 0;
    c->streaming = 0;
    c->rx_frames++;
}

static void deliver_whole(sn_conn_t *c, int type, const uint8_t *body, uint32_t len)
{
    frame_end(c);
    c->ops->on_frame(c, type, body, len);
    if (c->body_cap > BODY_KEEP && c->type < 0) { /* no large buffer kept after its frame */
        free(c->body);
        c->body = NULL;
        c->body_cap = 0;
    }
}

/* The next unit of the current frame: a sealed chunk, a plaintext piece, or the whole body. */
static void next_unit(sn_conn_t *c)
{
    uint32_t left = c->flen - c->fpos;
    c->unit_have = 0;
    if (c->sec_mode == SN_SEC_SODIUM) {
        c->unit = chunk_buf(c);
        c->unit_len = (left < SN_CONN_CHUNK ? left : SN_CONN_CHUNK) + SN_SEC_ABYTES;
    } else if (c->streaming) {
        c->unit = chunk_buf(c);
        c->unit_len = left < SN_CONN_CHUNK ? left : SN_CONN_CHUNK;
    } else {
        c->unit = body_buf(c, left);
        c->unit_len = left;
    }
}

/* A unit is complete: opens it, lends it, and sets up the next one or ends the frame. */
void sn__conn_unit_done(sn_conn_t *c)
{
    if (c->sec_mode != SN_SEC_SODIUM) { /* plaintext: fpos counts body bytes */
        uint32_t off = c->fpos, n = c->unit_len;
        c->fpos += n;
        if (!c->streaming) {
            deliver_whole(c, c->type, c->unit, n);
            return;
        }
        int type = c->type, last = c->fpos == c->flen;
        uint32_t total = c->flen;
        if (last)
            frame_end(c);
        c->ops->on_piece(c, type, c->chunk, off, n, total);
        if (!last && !c->closing)
            next_unit(c);
        return;
    }
    uint32_t n = c->unit_len - SN_SEC_ABYTES, off = c->fpos;
    int last = off + n == c->flen;
    uint8_t ad[4];
    put_u32(ad, c->flen);
    uint8_t *m = c->chunk + 1;
    if (sn_sec_open(c->sec, m, c->chunk, c->unit_len, ad, last) != 0) {
        char what[256];
        snprintf(what, sizeof what,
                 "authentication failed on frame %llu from %s: the frame was altered, replayed, "
                 "reordered or follows a lost one",
                 (unsigned long long) c->rx_frames + 1, c->peer);
        sn_conn_fail(c, SN_EPROTO, what);
        return;
    }
    c->fpos += n;
    uint32_t blen = c->flen - 1; /* body bytes of the frame */
    if (off == 0) {              /* the first chunk names the type */
        int type = m[0];
        if (check_type(c, type, blen) < 0)
            return;
        c->type = type;
        if (last) {
            deliver_whole(c, type, m + 1, blen);
            return;
        }
        c->streaming = c->ops->on_piece && (c->stream_mask & (1u << type));
        if (c->streaming) {
            c->ops->on_piece(c, type, m + 1, 0, n - 1, blen);
        } else {
            memcpy(body_buf(c, blen), m + 1, n - 1);
        }
    } else if (c->streaming) {
        int type = c->type;
        if (last)
            frame_end(c);
        c->ops->on_piece(c, type, m, off - 1, n, blen);
        if (last)
            return;
    } else {
        memcpy(c->body + off - 1, m, n);
        if (last) {
            deliver_whole(c, c->type, c->body, blen);
            return;
        }
    }
    if (!c->closing)
        next_unit(c);
}

/* A header is complete: checks the length (and, in plaintext, the type) before anything is
 * allocated. */
static int begin_frame(sn_conn_t *c)
{
    uint32_t len = ((uint32_t) c->hdr[0] << 24) | ((uint32_t) c->hdr[1] << 16) |
                   ((uint32_t) c->hdr[2] << 8) | c->hdr[3];
    if (c->sec_mode == SN_SEC_SODIUM) {
        uint32_t max = 0;
        for (int t = 1; t < SN_FRAME_NTYPES; t++)
            if (c->max_body[t] > max)
                max = c->max_body[t];
        if (len < 1 || len - 1 > max) {
            char what[160];
            snprintf(what, sizeof what,
                     "sealed frame of %u plaintext bytes from %s is outside the accepted range "
                     "(1..%u)",
                     len, c->peer, max + 1);
            sn_conn_fail(c, SN_EPROTO, what);
            return -1;
        }
        c->type = 0; /* sealed: the type is inside the first chunk */
        c->flen = len;
    } else {
        int type = c->hdr[4];
        if (len < 1) {
            sn_conn_fail(c, SN_EPROTO, "frame with a zero length");
            return -1;
        }
        if (check_type(c, type, len - 1) < 0)
            return -1;
        c->type = type;
        c->flen = len - 1;
        c->streaming =
            c->ops->on_piece && (c->stream_mask & (1u << type)) && c->flen > SN_CONN_CHUNK - 1;
    }
    c->fpos = 0;
    next_unit(c);
    return 0;
}

/* The frame reader: bytes as they come from the socket (or a test). */
void sn__conn_feed(sn_conn_t *c, const uint8_t *p, size_t n)
{
    const uint32_t hdr_need = hdr_bytes(c);
    while (n > 0 && !c->closing) {
        if (c->type < 0) {
            size_t take = hdr_need - c->hdr_have;
            if (take > n)
                take = n;
            memcpy(c->hdr + c->hdr_have, p, take);
            c->hdr_have += (uint32_t) take;
            p += take;
            n -= take;
            if (c->hdr_have < hdr_need)
                break;
            if (begin_frame(c) < 0)
                return;
            if (c->unit_len == 0) { /* plaintext frame with an empty body */
                deliver_whole(c, c->type, c->unit, 0);
                continue;
            }
        }
        size_t take = c->unit_len - c->unit_have;
        if (take > n)
            take = n;
        memcpy(c->unit + c->unit_have, p, take);
        c->unit_have += (uint32_t) take;
        p += take;
        n -= take;
        if (c->unit_have == c->unit_len)
            sn__conn_unit_done(c);
    }
}
