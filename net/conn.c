/* Framed TCP connections over libuv (net/): see conn.h for the frame format, the handshake and
 * the ownership rules. Writing: every frame joins the connection's queue; a frame of one chunk is
 * written from its own buffer (sealed in place: the writer leaves room for the header, the
 * stream's tag byte and the MAC around the body), a longer sealed frame or a generated body goes
 * out chunk by chunk through at most SN_CONN_WINDOW chunk buffers, each tried with uv_try_write
 * first (no request, no callback when the socket takes it at once). The frame reader is in
 * conn_read.c. Admission control of the
 * unauthenticated connections at a listener (sn_admit_*, declared in conn.h) is in admit.c. The
 * writer, the handshake and the connection's life stay here; conn_internal.h is what the two
 * files share. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/addr.h"
#include "net/conn.h"
#include "net/conn_internal.h"
#include "stepnet/error.h"
#include "stepnet/util.h"

/* A frame waiting to be written. data[] layout, with the body always at BODY_OFF so that the
 * caller's pointer does not depend on the mode:
 *   sealed:    [len 4][stream tag 1][type 1][body][MAC 16]   written from data + 0
 *   plaintext:    [.][len 4][type 1][body]                   written from data + 1
 * so that type || body (the plaintext of a sealed frame) is contiguous at data + 5. Handshake
 * messages are raw bytes from data + 0. A generated frame (fill != NULL) holds only its head. */
#define BODY_OFF  6
#define MAC_BYTES (SN_SEC_ABYTES - 1)

typedef struct wreq_s {
    uv_write_t req;
    sn_conn_t *c;
    struct wreq_s *next; /* in the queue */
    size_t cap;          /* bytes available in data[] */
    size_t off, len;     /* raw or one-chunk frame: what goes on the wire, data[off, off + len) */
    size_t body_len;
    int type, raw;
    uint32_t pos;         /* multi-chunk frame: plaintext bytes already cut into chunks */
    sn_conn_fill_fn fill; /* generated body after head_len bytes; NULL: the body is in data[] */
    uint32_t head_len;
    _Alignas(8) uint8_t ctx[SN_CONN_GEN_CTX];
    uint8_t data[];
} wreq_t;

/* One chunk of a multi-chunk frame on its way: [len 4 (first chunk)][sealed chunk or plaintext]. */
typedef struct chunk_s {
    uv_write_t req;
    sn_conn_t *c;
    size_t len;
    uint8_t data[SN_FRAME_HDR + SN_CONN_CHUNK + SN_SEC_ABYTES];
} chunk_t;

/* Testing (sn_conn_trickle): the writes waiting for their pieces, oldest first. */
typedef struct trickle_write_s {
    struct trickle_write_s *next;
    uv_write_t *req;
    uv_write_cb cb;
    const uint8_t *p;
    size_t n, done;
} trickle_write_t;

typedef struct trickle_s {
    uv_timer_t timer;
    uint32_t bytes, period_ms;
    trickle_write_t *head, *tail;
} trickle_t;

static void free_queue(sn_conn_t *c)
{
    wreq_t *w = c->outq;
    while (w) {
        wreq_t *next = w->next;
        free(w);
        w = next;
    }
    c->outq = c->outq_tail = NULL;
}

static void wipe_secrets(sn_conn_t *c)
{
    if (c->hs) {
        sn_hs_wipe(c->hs);
        sodium_memzero(c->hs, sizeof *c->hs);
        free(c->hs);
        c->hs = NULL;
    }
    if (c->sec) {
        sodium_memzero(c->sec, sizeof *c->sec);
        free(c->sec);
        c->sec = NULL;
    }
}

/* One of c's handles is closed; the last one frees the connection's buffers. */
static void handle_closed(sn_conn_t *c)
{
    if (--c->open_handles > 0)
        return;
    free(c->body);
    free(c->stage);
    free(c->chunk);
    sn_conn_pool_free(&c->own);
    while (c->ncfree > 0)
        free(c->cfree[--c->ncfree]);
    c->body = c->stage = c->chunk = NULL;
    free_queue(c);
    wipe_secrets(c);
    if (c->ops->on_closed)
        c->ops->on_closed(c);
}

static void on_close(uv_handle_t *h)
{
    handle_closed(h->data);
}

/* The trickle's timer is closed: the writes still waiting are cancelled as libuv cancels its own
 * (their callbacks see UV_ECANCELED and free their buffers), before the connection's last handle
 * frees the buffers they return to. */
static void on_trickle_closed(uv_handle_t *h)
{
    sn_conn_t *c = h->data;
    trickle_t *tr = c->trickle;
    c->trickle = NULL;
    while (tr->head) {
        trickle_write_t *tw = tr->head;
        tr->head = tw->next;
        tw->cb(tw->req, UV_ECANCELED);
        free(tw);
    }
    free(tr); /* h with it */
    handle_closed(c);
}

void sn_conn_close(sn_conn_t *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->reading)
        uv_read_stop((uv_stream_t *) &c->tcp);
    if (c->trickle)
        uv_close((uv_handle_t *) &((trickle_t *) c->trickle)->timer, on_trickle_closed);
    uv_close((uv_handle_t *) &c->timer, on_close);
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
    c->timer.data = c;
    c->own.max = SN_CONN_OWN_BUFFERS;
    c->pool = &c->own;
    c->open_handles = 2;
    snprintf(c->name, sizeof c->name, "connection");
    snprintf(c->peer, sizeof c->peer, "an unknown address");
    uv_timer_init(loop, &c->timer);
    return uv_tcp_init(loop, &c->tcp);
}

/* ---- writing ------------------------------------------------------------------------------- */

void sn_conn_use_pool(sn_conn_t *c, sn_conn_pool_t *pool)
{
    c->pool = pool;
}

void sn_conn_pool_free(sn_conn_pool_t *pool)
{
    while (pool->n > 0)
        free(pool->buf[--pool->n]);
}

/* The most recently released buffer of the pool of at least `need` bytes (cache-warm), or NULL. */
static wreq_t *take_cached(sn_conn_pool_t *pl, size_t need)
{
    for (int i = pl->n - 1; i >= 0; i--) {
        wreq_t *s = (wreq_t *) pl->buf[i];
        if (s->cap >= need) {
            memmove(&pl->buf[i], &pl->buf[i + 1], (size_t) (pl->n - 1 - i) * sizeof pl->buf[0]);
            pl->n--;
            return s;
        }
    }
    return NULL;
}

static wreq_t *wreq_new(sn_conn_t *c, size_t need)
{
    wreq_t *w = take_cached(c->pool, need);
    if (w == NULL) {
        w = sn_xmalloc(sizeof *w + need);
        w->cap = need;
    }
    w->c = c;
    w->next = NULL;
    w->raw = 0;
    w->pos = 0;
    w->fill = NULL;
    w->head_len = 0;
    return w;
}

static void release(sn_conn_t *c, wreq_t *w)
{
    /* keep small buffers for the next frames (one frame per link and slot); large ones go, so
     * that a connection keeps no whole large frame */
    sn_conn_pool_t *pl = c->pool;
    int max = pl->max ? pl->max : SN_CONN_POOL_MAX;
    /* a closing connection keeps nothing of its own; a shared pool outlives it */
    if (w->cap > SN_CONN_CHUNK + 2 * SN_FRAME_HDR + SN_SEC_ABYTES ||
        (c->closing && pl == &c->own)) {
        free(w);
        return;
    }
    if (pl->n == max) { /* the least recently released goes */
        free(pl->buf[0]);
        memmove(&pl->buf[0], &pl->buf[1], (size_t) (max - 1) * sizeof pl->buf[0]);
        pl->n--;
    }
    pl->buf[pl->n++] = (uint8_t *) w;
}

static void pump(sn_conn_t *c);

static void on_drain_end(uv_timer_t *t)
{
    sn_conn_t *c = t->data;
    sn_conn_fail(c, c->write_error, "write failed");
}

/* A write failed: the peer closed or reset the connection (or the network failed). What the peer
 * sent before it went may still wait in the receive queue, such as a node's last report of why it
 * left; failing at once would drop it unread. So, on a connection that is reading, nothing more
 * is written, the reader goes on through the event loop as usual, and the connection fails with
 * the write's error when the reading ends (end of stream or reset, which follow at once when the
 * peer is gone) or after SN_CONN_DRAIN_MS. */
static void write_failed(sn_conn_t *c, int status)
{
    if (c->write_error || c->closing)
        return;
    if (!c->established || !c->reading) {
        sn_conn_fail(c, status, "write failed");
        return;
    }
    c->write_error = status;
    uv_timer_stop(&c->timer);
    uv_timer_start(&c->timer, on_drain_end, SN_CONN_DRAIN_MS, 0);
}

/* Bytes left for the peer now: the progress a slot deadline counts (conn.h, tx_at_ms). */
static void moved_out(sn_conn_t *c)
{
    c->tx_at_ms = uv_now(c->tcp.loop);
}

static void write_cb(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *) req;
    sn_conn_t *c = w->c;
    release(c, w);
    if (status == 0)
        moved_out(c);
    if (status < 0 && status != UV_ECANCELED)
        write_failed(c, status);
}

static void chunk_release(sn_conn_t *c, chunk_t *k)
{
    if (!c->closing && c->ncfree < (int) SN_CONN_WINDOW + 1)
        c->cfree[c->ncfree++] = k;
    else
        free(k);
}

static void chunk_cb(uv_write_t *req, int status)
{
    chunk_t *k = (chunk_t *) req;
    sn_conn_t *c = k->c;
    c->inflight--;
    chunk_release(c, k);
    if (status == 0)
        moved_out(c);
    if (status < 0 && status != UV_ECANCELED) {
        write_failed(c, status);
        return;
    }
    pump(c);
}

/* Testing (sn_conn_trickle): one piece of the oldest waiting write; a write whose last piece is
 * out is done, as libuv would report it. A socket that takes nothing now (the peer does not read)
 * is tried again at the next tick. */
static void on_trickle_tick(uv_timer_t *t)
{
    sn_conn_t *c = t->data;
    trickle_t *tr = c->trickle;
    trickle_write_t *tw = tr->head;
    if (tw == NULL || c->closing || c->write_error) {
        uv_timer_stop(t);
        return;
    }
    size_t n = tw->n - tw->done < tr->bytes ? tw->n - tw->done : tr->bytes;
    uv_buf_t b = uv_buf_init((char *) tw->p + tw->done, (unsigned) n);
    int done = uv_try_write((uv_stream_t *) &c->tcp, &b, 1);
    if (done < 0 && done != UV_EAGAIN) {
        write_failed(c, done);
        return;
    }
    if (done <= 0)
        return;
    moved_out(c);
    tw->done += (size_t) done;
    if (tw->done < tw->n)
        return;
    tr->head = tw->next;
    if (tr->head == NULL) {
        tr->tail = NULL;
        uv_timer_stop(t);
    }
    uv_write_cb cb = tw->cb;
    uv_write_t *req = tw->req;
    free(tw);
    cb(req, 0); /* may queue the next writes (pump) */
}

/* put_bytes of a trickling connection: p[0, n) waits for its pieces (0: borrowed until cb). */
static int trickle_put(sn_conn_t *c, uv_write_t *req, uv_write_cb cb, const uint8_t *p, size_t n)
{
    trickle_t *tr = c->trickle;
    trickle_write_t *tw = sn_xmalloc(sizeof *tw);
    *tw = (trickle_write_t){.req = req, .cb = cb, .p = p, .n = n};
    if (tr->tail)
        tr->tail->next = tw;
    else
        tr->head = tw;
    tr->tail = tw;
    if (!uv_is_active((uv_handle_t *) &tr->timer))
        uv_timer_start(&tr->timer, on_trickle_tick, tr->period_ms, tr->period_ms);
    return 0;
}

int sn_conn_trickle(sn_conn_t *c, uint32_t bytes, uint32_t period_ms)
{
    if (c->trickle || c->closing || bytes == 0 || period_ms == 0)
        return SN_EINVAL;
    trickle_t *tr = sn_xmalloc(sizeof *tr);
    *tr = (trickle_t){.bytes = bytes, .period_ms = period_ms};
    int rc = uv_timer_init(c->tcp.loop, &tr->timer);
    if (rc < 0) {
        free(tr);
        return rc;
    }
    tr->timer.data = c;
    c->trickle = tr;
    c->open_handles++;
    return 0;
}

/* Writes p[0, n): at once if the socket takes it (1: the buffer is free again), else the rest
 * through uv_write with req and cb (0: the buffer is borrowed until cb), or fails (-1). */
static int put_bytes(sn_conn_t *c, uv_write_t *req, uv_write_cb cb, const uint8_t *p, size_t n)
{
    if (c->write_error)
        return -1;
    if (c->trickle)
        return trickle_put(c, req, cb, p, n);
    uv_buf_t b = uv_buf_init((char *) p, (unsigned) n);
    int done = uv_try_write((uv_stream_t *) &c->tcp, &b, 1);
    if (done > 0)
        moved_out(c);
    if (done == (int) n)
        return 1;
    if (done > 0)
        b = uv_buf_init((char *) p + done, (unsigned) (n - (size_t) done));
    else if (done != UV_EAGAIN && done != UV_ENOSYS) {
        write_failed(c, done);
        return -1;
    }
    int rc = uv_write(req, (uv_stream_t *) &c->tcp, &b, 1, cb);
    if (rc < 0) {
        write_failed(c, rc);
        return -1;
    }
    return 0;
}

/* Testing (--fault): what a broken or hostile network would do to the next frame. */
static void apply_fault(sn_conn_t *c, uint8_t *wire, size_t len)
{
    if (c->fault_next == SN_CONN_FAULT_OVERSIZE) {
        wire[0] = 0x7f;
        wire[1] = 0xff;
    } else {
        wire[4 + (len - 4) / 2] ^= 0x04;
    }
    c->fault_next = 0;
}

/* A raw message or a one-chunk frame: fills in the header, seals in place in mode sodium, and
 * writes it from its own buffer. */
static void transmit(sn_conn_t *c, wreq_t *w)
{
    if (!w->raw) {
        uint32_t plen = (uint32_t) (1 + w->body_len);
        if (c->sec_mode == SN_SEC_SODIUM) {
            w->off = 0;
            w->len = 4 + SN_SEC_ABYTES + plen;
            put_u32(w->data, plen);
            w->data[5] = (uint8_t) w->type;
            sn_sec_seal(c->sec, w->data + 4, w->data + 5, plen, w->data, 1);
        } else {
            w->off = 1;
            w->len = 4 + plen;
            put_u32(w->data + 1, plen);
            w->data[5] = (uint8_t) w->type;
        }
        if (c->fault_next)
            apply_fault(c, w->data + w->off, w->len);
    }
    w->c = c;
    int rc = put_bytes(c, &w->req, write_cb, w->data + w->off, w->len);
    if (rc != 0)
        release(c, w);
}

/* Plaintext bytes [pos, pos + n) of a multi-chunk frame (type || body) into dst. */
static void plaintext_of(const wreq_t *w, uint32_t pos, uint8_t *dst, uint32_t n)
{
    if (w->fill == NULL) {
        memcpy(dst, w->data + BODY_OFF - 1 + pos, n);
        return;
    }
    /* type || head || generated */
    uint32_t head_end = 1 + w->head_len;
    if (pos < head_end) {
        uint32_t k = head_end - pos < n ? head_end - pos : n;
        memcpy(dst, w->data + BODY_OFF - 1 + pos, k);
        dst += k;
        pos += k;
        n -= k;
    }
    if (n)
        w->fill(w->ctx, pos - head_end, dst, n);
}

/* Cuts, seals (mode sodium) and writes the next chunk of multi-chunk frame w. */
static int emit_chunk(sn_conn_t *c, wreq_t *w)
{
    chunk_t *k = c->ncfree ? c->cfree[--c->ncfree] : sn_xmalloc(sizeof *k);
    k->c = c;
    uint32_t plen = (uint32_t) (1 + w->body_len);
    uint32_t n = plen - w->pos < SN_CONN_CHUNK ? plen - w->pos : SN_CONN_CHUNK;
    int first = w->pos == 0, last = w->pos + n == plen;
    size_t h = first ? 4 : 0;
    if (first)
        put_u32(k->data, plen);
    if (c->sec_mode == SN_SEC_SODIUM) {
        uint8_t ad[4];
        put_u32(ad, plen);
        if (w->fill == NULL) { /* sealed straight from the frame's body */
            sn_sec_seal(c->sec, k->data + h, w->data + BODY_OFF - 1 + w->pos, n, ad, last);
        } else { /* generated in place, then sealed in place */
            plaintext_of(w, w->pos, k->data + h + 1, n);
            sn_sec_seal(c->sec, k->data + h, k->data + h + 1, n, ad, last);
        }
        k->len = h + n + SN_SEC_ABYTES;
    } else { /* plaintext: the header then body bytes; the type byte is the header's fifth */
        plaintext_of(w, w->pos, k->data + h, n);
        k->len = h + n;
    }
    if (first && c->fault_next)
        apply_fault(c, k->data, k->len);
    w->pos += n;
    int rc = put_bytes(c, &k->req, chunk_cb, k->data, k->len);
    if (rc == 0)
        c->inflight++;
    else /* written at once, or never: the chunk buffer is free */
        chunk_release(c, k);
    return rc < 0 ? -1 : 0;
}

/* Hands queued frames to the socket in order, as far as the chunk window allows. */
static void pump(sn_conn_t *c)
{
    if (!c->established || c->closing || c->write_error || c->pumping)
        return;
    c->pumping = 1;
    while (c->outq && !c->closing && !c->write_error) {
        wreq_t *w = c->outq;
        uint32_t plen = (uint32_t) (1 + w->body_len);
        int chunked =
            !w->raw && (w->fill || (c->sec_mode == SN_SEC_SODIUM && plen > SN_CONN_CHUNK));
        if (chunked) {
            while (w->pos < plen && c->inflight < SN_CONN_WINDOW && !c->closing && !c->write_error)
                if (emit_chunk(c, w) < 0)
                    break;
            if (w->pos < plen)
                break; /* chunk_cb resumes */
        }
        c->outq = w->next;
        if (c->outq == NULL)
            c->outq_tail = NULL;
        w->next = NULL;
        if (chunked)
            release(c, w);
        else
            transmit(c, w);
    }
    c->pumping = 0;
}

static void enqueue(sn_conn_t *c, wreq_t *w)
{
    if (c->outq_tail)
        ((wreq_t *) c->outq_tail)->next = w;
    else
        c->outq = w;
    c->outq_tail = w;
    pump(c);
}

/* Raw handshake bytes, outside any frame: ahead of every frame (none is sent before the
 * handshake ends). */
static void write_raw(sn_conn_t *c, const uint8_t *p, size_t n)
{
    wreq_t *w = wreq_new(c, n);
    memcpy(w->data, p, n);
    w->raw = 1;
    w->off = 0;
    w->len = n;
    transmit(c, w);
}

uint8_t *sn_conn_frame(sn_conn_t *c, int type, size_t body_len)
{
    wreq_t *w = wreq_new(c, BODY_OFF + body_len + MAC_BYTES);
    w->type = type;
    w->body_len = body_len;
    w->data[BODY_OFF - 1] = (uint8_t) type;
    return w->data + BODY_OFF;
}

static wreq_t *wreq_of(uint8_t *body)
{
    return (wreq_t *) (body - BODY_OFF - offsetof(wreq_t, data));
}

int sn_conn_send(sn_conn_t *c, uint8_t *body)
{
    wreq_t *w = wreq_of(body);
    if (c->closing || c->write_error) {
        free(w);
        return UV_ECANCELED;
    }
    enqueue(c, w);
    return 0;
}

int sn_conn_send_gen(sn_conn_t *c, int type, const uint8_t *head, size_t head_len, uint32_t gen_len,
                     sn_conn_fill_fn fill, const void *ctx, size_t ctx_len)
{
    if (head_len > SN_CONN_GEN_HEAD || ctx_len > SN_CONN_GEN_CTX ||
        (uint64_t) head_len + gen_len >= UINT32_MAX)
        return UV_EINVAL;
    if ((uint64_t) head_len + gen_len + 1 <= SN_CONN_CHUNK) { /* one chunk: the plain path */
        uint8_t *b = sn_conn_frame(c, type, head_len + gen_len);
        memcpy(b, head, head_len);
        fill(ctx, 0, b + head_len, gen_len);
        return sn_conn_send(c, b);
    }
    wreq_t *w = wreq_new(c, BODY_OFF + head_len);
    w->type = type;
    w->data[BODY_OFF - 1] = (uint8_t) type;
    memcpy(w->data + BODY_OFF, head, head_len);
    w->head_len = (uint32_t) head_len;
    w->body_len = head_len + gen_len;
    w->fill = fill;
    if (ctx_len)
        memcpy(w->ctx, ctx, ctx_len);
    if (c->closing || c->write_error) {
        free(w);
        return UV_ECANCELED;
    }
    enqueue(c, w);
    return 0;
}

static void on_expect(uv_timer_t *t)
{
    sn_conn_t *c = t->data;
    char what[200];
    snprintf(what, sizeof what, "%s sent no %s within %u ms", c->peer, c->expect_what,
             c->expect_ms);
    sn_conn_fail(c, SN_ETIMEOUT, what);
}

void sn_conn_expect(sn_conn_t *c, uint32_t ms, const char *what)
{
    c->expect_ms = ms;
    c->expect_what = what;
    if (c->established && !c->closing && !c->write_error) /* the timer ends a drain then */
        uv_timer_start(&c->timer, on_expect, ms, 0);
}

void sn_conn_expect_done(sn_conn_t *c)
{
    c->expect_ms = 0;
    if (c->established && !c->closing && !c->write_error)
        uv_timer_stop(&c->timer);
}

static void established(sn_conn_t *c)
{
    if (c->sec_mode == SN_SEC_SODIUM) {
        c->sec = sn_xmalloc(sizeof *c->sec);
        *c->sec = c->hs->sec;
    }
    sn_hs_wipe(c->hs);
    sodium_memzero(c->hs, sizeof *c->hs);
    free(c->hs);
    c->hs = NULL;
    c->established = 1;
    uv_timer_stop(&c->timer);
    if (c->expect_ms)
        uv_timer_start(&c->timer, on_expect, c->expect_ms, 0);
    pump(c); /* the frames sent during the handshake, in order */
}

/* hsbuf holds the hs->want bytes of the next handshake step: takes it, answers, and fails the
 * connection or completes it. */
static void handshake_step(sn_conn_t *c)
{
    uint8_t out[SN_SEC_MAX_REPLY];
    size_t outlen = 0;
    const char *why = NULL;
    int rc = sn_hs_step(c->hs, c->hsbuf, out, &outlen, &why);
    c->hs_have = 0;
    if (outlen)
        write_raw(c, out, outlen);
    sodium_memzero(out, sizeof out);
    if (rc < 0) {
        char what[320];
        snprintf(what, sizeof what, "handshake with %s failed: %s", c->peer, why);
        sn_conn_fail(c, SN_EPROTO, what);
        return;
    }
    if (c->hs->done)
        established(c);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    sn_conn_t *c = s->data;
    if (nread < 0) {
        char what[200];
        if (!c->established)
            snprintf(what, sizeof what,
                     "%s closed the connection during the handshake (does it hold the same cluster "
                     "key and --security mode?)",
                     c->peer);
        else
            snprintf(what, sizeof what, "%s",
                     c->write_error    ? "write failed"
                     : nread == UV_EOF ? "closed by the peer"
                                       : "read failed");
        /* after a failed write, the end of the reading ends the drain: the write's error */
        sn_conn_fail(c, c->write_error ? c->write_error : (int) nread, what);
        return;
    }
    if (nread == 0 || c->closing)
        return;
    c->rx_bytes += (uint64_t) nread;
    c->rx_at_ms = uv_now(c->tcp.loop);
    if (!c->established && c->hs) { /* alloc_cb gave hsbuf, no more than the step wants */
        c->hs_have += (size_t) nread;
        if (c->hs_have == c->hs->want)
            handshake_step(c);
        return;
    }
    if ((uint8_t *) buf->base != c->stage) { /* read straight into the unit */
        c->unit_have += (uint32_t) nread;
        if (c->unit_have == c->unit_len)
            sn__conn_unit_done(c);
        return;
    }
    sn__conn_feed(c, c->stage, (size_t) nread);
}

static void on_deadline(uv_timer_t *t)
{
    sn_conn_t *c = t->data;
    char what[200];
    snprintf(what, sizeof what, "handshake with %s did not finish within %u ms", c->peer,
             c->deadline_ms);
    sn_conn_fail(c, SN_ETIMEOUT, what);
}

int sn_conn_start(sn_conn_t *c, const sn_conn_sec_cfg_t *sec, int initiator)
{
    struct sockaddr_storage sa;
    int salen = sizeof sa;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *) &sa, &salen) == 0)
        sn_addr_format((struct sockaddr *) &sa, c->peer, sizeof c->peer);
    c->sec_mode = sec->mode;
    c->initiator = initiator;
    c->hs = sn_xmalloc(sizeof *c->hs);
    uint8_t m1[SN_SEC_M1_BYTES];
    size_t m1len = 0;
    int avail = sn_sec_ciphers_available();
    sn_hs_start(c->hs, sec->mode, sec->key, initiator, sec->ciphers ? sec->ciphers & avail : avail,
                NULL, m1, &m1len);
    c->deadline_ms = sec->deadline_ms ? sec->deadline_ms : 10000;
    uv_timer_start(&c->timer, on_deadline, c->deadline_ms, 0);
    int rc = uv_tcp_nodelay(&c->tcp, 1);
    if (rc == 0)
        rc = uv_read_start((uv_stream_t *) &c->tcp, sn__conn_alloc_cb, read_cb);
    if (rc == 0) {
        c->reading = 1;
        if (m1len)
            write_raw(c, m1, m1len);
    }
    return rc;
}
