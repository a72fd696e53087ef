/* Tests of net/conn.c over real loopback sockets in one libuv loop: a client and a server
 * connection with a tampering proxy between them. Checks that a secure connection delivers
 * frames of every size in order, and that a flipped bit (in the handshake or in any frame), a
 * replayed, dropped or reordered frame, a wrong key, a plaintext peer on either side and a peer
 * that never finishes the handshake all end the connection with an error that names the peer,
 * with no frame accepted past the fault and every handle freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "net/conn.h"
#include "net/secure.h"
#include "stepnet/error.h"
#include "stepnet/model.h"

enum { NFRAMES = 6 };

typedef enum { MUT_NONE, MUT_FLIP_HS, MUT_FLIP_FRAME, MUT_REPLAY, MUT_DROP, MUT_SWAP } mut_t;

typedef struct end_s {
    sn_conn_t c;
    int frames, bad_content, closed;
    int status;
    int frames_at_error; /* frames delivered before on_error */
    char err[400];
} end_t;

typedef struct proxy_s {
    uv_tcp_t listener, down, up;
    uv_connect_t creq;
    int port, have_down, up_closed, down_closed;
    /* client -> server parser */
    size_t hs_left, hs_off;
    int sealed; /* frames are chunked and sealed (the frame length on the wire differs) */
    uint8_t *buf;
    size_t len, cap;
    int frame_no;
    mut_t mut;
    int at;      /* frame number, or handshake byte */
    size_t byte; /* byte of the frame to flip */
    uint8_t *held;
    size_t held_len;
} proxy_t;

typedef struct world_s {
    uv_loop_t loop;
    uv_tcp_t listener;
    int port;
    end_t server, client;
    int have_server;
    proxy_t px;
    sn_conn_sec_cfg_t cs, cc;
    size_t body;
    uv_timer_t deadline;
    int timed_out;
    uv_tcp_t raw; /* a raw client that never completes the handshake */
    uv_connect_t raw_req;
    int raw_used;
    sn_conn_pool_t pool; /* both ends' frame buffers when use_pool is set */
} world_t;

static world_t *W;
static int use_pool;           /* run() with both ends sharing one buffer pool */
static uint32_t trickle_bytes; /* run() with the client trickling this much a millisecond */
static uint32_t stop_ms;       /* run() stops after this long, not a failure (0: 10 s, a failure) */

/* ---- the two ends ---------------------------------------------------------------------------- */

static void on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    end_t *e = c->owner;
    if (type != SN_FRAME_DATA || len != W->body)
        e->bad_content++;
    for (size_t i = 0; i < len; i++)
        if (body[i] != (uint8_t) (e->frames * 7 + (int) i)) {
            e->bad_content++;
            break;
        }
    e->frames++;
}

static void on_error(sn_conn_t *c, int status, const char *what)
{
    end_t *e = c->owner;
    e->status = status;
    e->frames_at_error = e->frames;
    snprintf(e->err, sizeof e->err, "%s", what);
}

static void on_closed(sn_conn_t *c)
{
    ((end_t *) c->owner)->closed = 1;
}

static const sn_conn_ops_t ops = {on_frame, on_error, on_closed};

static void limits(sn_conn_t *c)
{
    memset(c->max_body, 0, sizeof c->max_body);
    c->max_body[SN_FRAME_DATA] = 1 << 20;
}

static void on_server_conn(uv_stream_t *s, int status)
{
    assert_int_equal(status, 0);
    assert_false(W->have_server);
    W->have_server = 1;
    sn_conn_init(&W->loop, &W->server.c, &ops, &W->server);
    if (use_pool)
        sn_conn_use_pool(&W->server.c, &W->pool);
    limits(&W->server.c);
    assert_int_equal(uv_accept(s, (uv_stream_t *) &W->server.c.tcp), 0);
    assert_int_equal(sn_conn_start(&W->server.c, &W->cs, 0), 0);
}

static void on_client_connect(uv_connect_t *req, int status)
{
    (void) req;
    assert_int_equal(status, 0);
    if (trickle_bytes)
        assert_int_equal(sn_conn_trickle(&W->client.c, trickle_bytes, 1), 0);
    assert_int_equal(sn_conn_start(&W->client.c, &W->cc, 1), 0);
    /* sent at once: they leave when the handshake completes */
    for (int f = 0; f < NFRAMES; f++) {
        uint8_t *b = sn_conn_frame(&W->client.c, SN_FRAME_DATA, W->body);
        for (size_t i = 0; i < W->body; i++)
            b[i] = (uint8_t) (f * 7 + (int) i);
        sn_conn_send(&W->client.c, b);
    }
}

/* ---- the proxy ---------------------------------------------------------------------------------
 */

typedef struct pw_s {
    uv_write_t req;
    uint8_t data[];
} pw_t;

static void pw_done(uv_write_t *req, int status)
{
    (void) status;
    free(req);
}

static void px_write(uv_tcp_t *to, const uint8_t *p, size_t n)
{
    if (n == 0 || uv_is_closing((uv_handle_t *) to))
        return;
    pw_t *w = malloc(sizeof *w + n);
    memcpy(w->data, p, n);
    uv_buf_t b = uv_buf_init((char *) w->data, (unsigned) n);
    if (uv_write(&w->req, (uv_stream_t *) to, &b, 1, pw_done) != 0)
        free(w);
}

static void px_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void) h;
    buf->base = malloc(suggested);
    buf->len = suggested;
}

static void px_close(uv_tcp_t *t)
{
    if (!uv_is_closing((uv_handle_t *) t))
        uv_close((uv_handle_t *) t, NULL);
}

/* One complete client -> server frame: forwarded, altered, replayed, dropped or swapped. */
static void px_frame(proxy_t *px, uint8_t *f, size_t n)
{
    int k = px->frame_no++;
    if (px->mut == MUT_FLIP_FRAME && k == px->at)
        f[px->byte % n] ^= 0x10;
    if (px->mut == MUT_DROP && k == px->at)
        return;
    if (px->mut == MUT_SWAP && k == px->at) {
        px->held = malloc(n);
        memcpy(px->held, f, n);
        px->held_len = n;
        return;
    }
    px_write(&px->up, f, n);
    if (px->mut == MUT_REPLAY && k == px->at)
        px_write(&px->up, f, n);
    if (px->held) {
        px_write(&px->up, px->held, px->held_len);
        free(px->held);
        px->held = NULL;
    }
}

static void px_down_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    proxy_t *px = s->data;
    if (nread < 0) {
        px_close(&px->down);
        px_close(&px->up);
    }
    if (nread > 0) {
        const uint8_t *p = (const uint8_t *) buf->base;
        size_t n = (size_t) nread;
        while (n > 0 && px->hs_left > 0) { /* handshake bytes pass through, one may be flipped */
            size_t take = n < px->hs_left ? n : px->hs_left;
            uint8_t tmp[256];
            memcpy(tmp, p, take);
            if (px->mut == MUT_FLIP_HS && (size_t) px->at >= px->hs_off &&
                (size_t) px->at < px->hs_off + take)
                tmp[(size_t) px->at - px->hs_off] ^= 0x01;
            px_write(&px->up, tmp, take);
            px->hs_off += take;
            px->hs_left -= take;
            p += take;
            n -= take;
        }
        if (n == 0) {
            free(buf->base);
            return;
        }
        if (px->len + n > px->cap) {
            px->cap = (px->len + n) * 2;
            px->buf = realloc(px->buf, px->cap);
        }
        memcpy(px->buf + px->len, p, n);
        px->len += n;
        size_t off = 0;
        while (px->len - off >= 4) {
            const uint8_t *h = px->buf + off;
            size_t hv = ((size_t) h[0] << 24) | ((size_t) h[1] << 16) | ((size_t) h[2] << 8) | h[3];
            /* sealed: the header counts the plaintext, each chunk adds its seal */
            size_t flen = 4 + hv;
            if (px->sealed)
                flen += SN_SEC_ABYTES * ((hv + SN_CONN_CHUNK - 1) / SN_CONN_CHUNK);
            if (px->len - off < flen)
                break;
            px_frame(px, px->buf + off, flen);
            off += flen;
        }
        if (off > 0 && off < px->len)
            memmove(px->buf, px->buf + off, px->len - off);
        px->len -= off;
    }
    free(buf->base);
}

static void px_up_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    proxy_t *px = s->data;
    if (nread < 0) {
        px_close(&px->down);
        px_close(&px->up);
    } else if (nread > 0) {
        px_write(&px->down, (const uint8_t *) buf->base, (size_t) nread);
    }
    free(buf->base);
}

static void px_up_connected(uv_connect_t *req, int status)
{
    proxy_t *px = req->data;
    assert_int_equal(status, 0);
    uv_read_start((uv_stream_t *) &px->up, px_alloc, px_up_read);
    uv_read_start((uv_stream_t *) &px->down, px_alloc, px_down_read);
}

static void on_proxy_conn(uv_stream_t *s, int status)
{
    proxy_t *px = s->data;
    assert_int_equal(status, 0);
    assert_false(px->have_down);
    px->have_down = 1;
    uv_tcp_init(&W->loop, &px->down);
    uv_tcp_init(&W->loop, &px->up);
    px->down.data = px->up.data = px;
    assert_int_equal(uv_accept(s, (uv_stream_t *) &px->down), 0);
    struct sockaddr_in sa;
    uv_ip4_addr("127.0.0.1", W->port, &sa);
    px->creq.data = px;
    assert_int_equal(uv_tcp_connect(&px->creq, &px->up, (struct sockaddr *) &sa, px_up_connected),
                     0);
}

/* ---- a world --------------------------------------------------------------------------------- */

static int listen_on(uv_tcp_t *t, uv_connection_cb cb, void *data)
{
    struct sockaddr_in sa;
    uv_ip4_addr("127.0.0.1", 0, &sa);
    uv_tcp_init(&W->loop, t);
    t->data = data;
    assert_int_equal(uv_tcp_bind(t, (struct sockaddr *) &sa, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *) t, 8, cb), 0);
    struct sockaddr_storage ss;
    int len = sizeof ss;
    uv_tcp_getsockname(t, (struct sockaddr *) &ss, &len);
    return ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

static void on_deadline(uv_timer_t *t)
{
    (void) t;
    W->timed_out = 1;
    uv_stop(&W->loop);
}

static int finished(void)
{
    end_t *s = &W->server;
    return (s->frames == NFRAMES && W->client.status == 0 && s->status == 0) ||
           (W->have_server && s->closed && (W->raw_used || W->client.closed));
}

static void close_walk(uv_handle_t *h, void *arg)
{
    (void) arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

typedef struct outcome_s {
    int server_frames, bad_content;
    int server_status, client_status;
    char server_err[400], client_err[400];
    int pool_n; /* buffers left in the shared pool once both ends closed */
    /* the progress the slot deadline reads (conn.h): the server's bytes read and the loop time
     * of its last read, the client's loop time of its last write */
    uint64_t server_rx_bytes, server_rx_at_ms, client_tx_at_ms;
} outcome_t;

/* Runs one connection: client (cfg cc) -> proxy (mutation) -> server (cfg cs). */
static outcome_t run(const sn_conn_sec_cfg_t *cc, const sn_conn_sec_cfg_t *cs, size_t body,
                     mut_t mut, int at, size_t byte, int raw_client)
{
    world_t *w = calloc(1, sizeof *w);
    W = w;
    uv_loop_init(&w->loop);
    w->cc = *cc;
    w->cs = *cs;
    w->body = body;
    w->port = listen_on(&w->listener, on_server_conn, w);
    w->px.mut = mut;
    w->px.at = at;
    w->px.byte = byte;
    w->px.hs_left = cc->mode == SN_SEC_SODIUM ? SN_SEC_M1_BYTES + SN_SEC_M3_BYTES : SN_SEC_PREAMBLE;
    w->px.sealed = cc->mode == SN_SEC_SODIUM;
    w->px.port = listen_on(&w->px.listener, on_proxy_conn, &w->px);
    uv_timer_init(&w->loop, &w->deadline);
    uv_timer_start(&w->deadline, on_deadline, stop_ms ? stop_ms : 10000, 0);
    struct sockaddr_in sa;
    if (raw_client) { /* connects straight to the server and says nothing */
        w->raw_used = 1;
        uv_tcp_init(&w->loop, &w->raw);
        uv_ip4_addr("127.0.0.1", w->port, &sa);
        uv_tcp_connect(&w->raw_req, &w->raw, (struct sockaddr *) &sa, NULL);
    } else {
        sn_conn_init(&w->loop, &w->client.c, &ops, &w->client);
        if (use_pool)
            sn_conn_use_pool(&w->client.c, &w->pool);
        limits(&w->client.c);
        uv_ip4_addr("127.0.0.1", w->px.port, &sa);
        static uv_connect_t creq;
        assert_int_equal(
            uv_tcp_connect(&creq, &w->client.c.tcp, (struct sockaddr *) &sa, on_client_connect), 0);
    }
    while (!finished() && !w->timed_out)
        uv_run(&w->loop, UV_RUN_ONCE);
    outcome_t o;
    memset(&o, 0, sizeof o);
    o.server_frames = w->server.frames;
    o.bad_content = w->server.bad_content;
    o.server_status = w->server.status;
    o.client_status = w->client.status;
    snprintf(o.server_err, sizeof o.server_err, "%s", w->server.err);
    snprintf(o.client_err, sizeof o.client_err, "%s", w->client.err);
    if (w->have_server) {
        o.server_rx_bytes = w->server.c.rx_bytes;
        o.server_rx_at_ms = w->server.c.rx_at_ms;
    }
    if (!raw_client)
        o.client_tx_at_ms = w->client.c.tx_at_ms;
    int timed_out = w->timed_out;
    if (w->have_server)
        sn_conn_close(&w->server.c);
    if (!raw_client)
        sn_conn_close(&w->client.c);
    uv_run(&w->loop, UV_RUN_NOWAIT);
    uv_walk(&w->loop, close_walk, NULL);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&w->loop), 0);
    o.pool_n = w->pool.n;
    sn_conn_pool_free(&w->pool);
    assert_int_equal(w->pool.n, 0);
    if (w->have_server)
        assert_true(w->server.closed); /* every resource of the connection freed */
    free(w->px.buf);
    free(w->px.held);
    free(w);
    W = NULL;
    if (timed_out && !stop_ms)
        fail_msg("no outcome within 10 s (server %d frames, errors '%s' / '%s')", o.server_frames,
                 o.server_err, o.client_err);
    return o;
}

static sn_key_t key_a, key_b;

static sn_conn_sec_cfg_t secure(const sn_key_t *k)
{
    return (sn_conn_sec_cfg_t){SN_SEC_SODIUM, k, 2000};
}

static sn_conn_sec_cfg_t plain(void)
{
    return (sn_conn_sec_cfg_t){SN_SEC_NONE, NULL, 2000};
}

/* ---- tests -------------------------------------------------------------------------------------
 */

/* The server counted every byte of the frames it read (and of the handshake), and both ends
 * noted when they last moved bytes (uv_now: milliseconds of the monotonic clock, never 0 here). */
static void expect_progress(const outcome_t *o, size_t body)
{
    assert_true(o->server_rx_bytes >= (uint64_t) NFRAMES * (body + SN_FRAME_HDR));
    assert_true(o->server_rx_at_ms > 0);
    assert_true(o->client_tx_at_ms > 0);
}

static void test_delivers_in_order(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), p = plain();
    const size_t sizes[] = {0, 1, 100, 70000, 300000}; /* 70000+: read straight into the body */
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        outcome_t o = run(&a, &a, sizes[i], MUT_NONE, 0, 0, 0);
        assert_int_equal(o.server_frames, NFRAMES);
        assert_int_equal(o.bad_content, 0);
        expect_progress(&o, sizes[i]);
        o = run(&p, &p, sizes[i], MUT_NONE, 0, 0, 0);
        assert_int_equal(o.server_frames, NFRAMES);
        assert_int_equal(o.bad_content, 0);
        expect_progress(&o, sizes[i]);
    }
}

/* A trickling connection (--fault trickle) delivers every frame intact and in order, in both
 * security modes and at every size (one chunk, several chunks), the handshake included, but never
 * faster than its pace: a timer never fires early, so n pieces take at least n - 1 periods. */
static void test_trickle(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), p = plain();
    const size_t sizes[] = {100, 70000, 200000};
    trickle_bytes = 8192;
    sn_conn_t unused = {0};
    assert_int_equal(sn_conn_trickle(&unused, 0, 1), SN_EINVAL); /* no pace: refused */
    assert_int_equal(sn_conn_trickle(&unused, 1, 0), SN_EINVAL);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int m = 0; m < 2; m++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            outcome_t o = m ? run(&a, &a, sizes[i], MUT_NONE, 0, 0, 0)
                            : run(&p, &p, sizes[i], MUT_NONE, 0, 0, 0);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            assert_int_equal(o.server_frames, NFRAMES);
            assert_int_equal(o.bad_content, 0);
            expect_progress(&o, sizes[i]);
            double ms =
                (double) (t1.tv_sec - t0.tv_sec) * 1e3 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e6;
            double pieces = (double) (NFRAMES * sizes[i]) / trickle_bytes;
            if (ms < pieces - 1)
                fail_msg("%zu-byte frames in %.0f ms: faster than %.0f pieces at 1 ms", sizes[i],
                         ms, pieces);
        }
    }
    trickle_bytes = 0;
}

/* Closing a trickling connection while frames still wait for their pieces cancels them: every
 * buffer is freed (the sanitizer build checks it) and the server, which read at most one byte a
 * tick of at least 1 ms, never more than the elapsed milliseconds, got no frame. */
static void test_trickle_closed_while_waiting(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), p = plain();
    trickle_bytes = 1;
    stop_ms = 300;
    for (int m = 0; m < 2; m++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        outcome_t o =
            m ? run(&a, &a, 70000, MUT_NONE, 0, 0, 0) : run(&p, &p, 70000, MUT_NONE, 0, 0, 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms =
            (double) (t1.tv_sec - t0.tv_sec) * 1e3 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e6;
        assert_int_equal(o.server_frames, 0);
        if ((double) o.server_rx_bytes > ms)
            fail_msg("%llu bytes through a trickle of 1 byte a millisecond in %.0f ms",
                     (unsigned long long) o.server_rx_bytes, ms);
    }
    stop_ms = 0;
    trickle_bytes = 0;
}

/* Both ends take their frame buffers from one pool (as a node's links do): every frame arrives
 * intact and in order in both security modes and at every size, so no buffer is reused while a
 * write still holds it; the pool keeps the released buffers (at most SN_CONN_POOL_MAX) until it
 * is freed. */
static void test_shared_pool(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), p = plain();
    const size_t sizes[] = {0, 100, 65536, 70000, 300000};
    use_pool = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int m = 0; m < 2; m++) {
            outcome_t o = m ? run(&a, &a, sizes[i], MUT_NONE, 0, 0, 0)
                            : run(&p, &p, sizes[i], MUT_NONE, 0, 0, 0);
            assert_int_equal(o.server_frames, NFRAMES);
            assert_int_equal(o.bad_content, 0);
            assert_true(o.pool_n >= 1 && o.pool_n <= SN_CONN_POOL_MAX);
        }
    }
    use_pool = 0;
}

static void expect_auth_failure(const outcome_t *o, int frames, const char *what)
{
    if (o->server_frames != frames || o->server_status != SN_EPROTO ||
        strstr(o->server_err, "authentication failed") == NULL ||
        strstr(o->server_err, "127.0.0.1:") == NULL)
        fail_msg("%s: server took %d frames (want %d), status %d, error '%s'", what,
                 o->server_frames, frames, o->server_status, o->server_err);
    assert_int_equal(o->bad_content, 0);
}

static void test_altered_frames(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a);
    /* a flipped bit in the length header, the stream tag, the type, the body or the MAC */
    const size_t bytes[] = {3, 4, 5, 6, 20, 40, 55};
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++) {
        outcome_t o = run(&a, &a, 40, MUT_FLIP_FRAME, 2, bytes[i], 0);
        expect_auth_failure(&o, 2, "flipped bit");
        assert_non_null(strstr(o.server_err, "frame 3"));
    }
    outcome_t o = run(&a, &a, 40, MUT_REPLAY, 2, 0, 0);
    expect_auth_failure(&o, 3, "replayed frame");
    o = run(&a, &a, 40, MUT_DROP, 2, 0, 0);
    expect_auth_failure(&o, 2, "dropped frame");
    o = run(&a, &a, 40, MUT_SWAP, 2, 0, 0);
    expect_auth_failure(&o, 2, "reordered frames");
    /* a big frame, read straight into its buffer */
    o = run(&a, &a, 300000, MUT_FLIP_FRAME, 1, 150000, 0);
    expect_auth_failure(&o, 1, "flipped bit in a 300 kB frame");
}

static void test_altered_handshake(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a);
    /* in the initiator's key (M1): the responder's confirmation fails at the initiator */
    outcome_t o = run(&a, &a, 16, MUT_FLIP_HS, 20, 0, 0);
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.client_status, SN_EPROTO);
    assert_non_null(strstr(o.client_err, "authentication failed"));
    assert_non_null(strstr(o.server_err, "during the handshake"));
    assert_non_null(strstr(o.server_err, "127.0.0.1:"));
    /* in the initiator's confirmation (M3): the responder refuses it and accepts no frame */
    o = run(&a, &a, 16, MUT_FLIP_HS, SN_SEC_M1_BYTES + 30, 0, 0);
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.server_status, SN_EPROTO);
    assert_non_null(strstr(o.server_err, "authentication failed"));
    assert_non_null(strstr(o.server_err, "127.0.0.1:"));
}

/* Each cipher over a real connection (the initiator offers only it): frames of 0 B to 300 kB
 * arrive in order and intact. An initiator offering only XChaCha20-Poly1305 to a responder that
 * accepts only AES-256-GCM is refused by the responder, which names both sets. */
static void test_ciphers(void **state)
{
    (void) state;
    int avail = sn_sec_ciphers_available();
    const size_t sizes[] = {0, 100, 300000};
    for (int c = SN_CIPHER_XCHACHA20; c <= SN_CIPHER_AES256GCM; c++) {
        if (!(avail & c)) {
            print_message("  (no AES-NI here: %s not run)\n", sn_sec_cipher_name(c));
            continue;
        }
        sn_conn_sec_cfg_t a = secure(&key_a), any = secure(&key_a);
        a.ciphers = c;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            outcome_t o = run(&a, &any, sizes[i], MUT_NONE, 0, 0, 0);
            assert_int_equal(o.server_frames, NFRAMES);
            assert_int_equal(o.bad_content, 0);
        }
    }
    if (!(avail & SN_CIPHER_AES256GCM))
        return;
    sn_conn_sec_cfg_t x = secure(&key_a), y = secure(&key_a);
    x.ciphers = SN_CIPHER_XCHACHA20;
    y.ciphers = SN_CIPHER_AES256GCM;
    outcome_t o = run(&x, &y, 16, MUT_NONE, 0, 0, 0);
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.server_status, SN_EPROTO);
    if (strstr(o.server_err, "no cipher in common: the peer offers xchacha20poly1305, this side "
                             "accepts aes256gcm") == NULL)
        fail_msg("server error: %s", o.server_err);
    assert_non_null(strstr(o.client_err, "during the handshake"));
}

static void test_wrong_key(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), b = secure(&key_b);
    outcome_t o = run(&a, &b, 16, MUT_NONE, 0, 0, 0);
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.client_status, SN_EPROTO);
    assert_non_null(strstr(o.client_err, "cluster key"));
    assert_non_null(strstr(o.client_err, "127.0.0.1:"));
    assert_non_null(strstr(o.server_err, "127.0.0.1:"));
}

static void test_plaintext_peers(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a), p = plain();
    outcome_t o = run(&p, &a, 16, MUT_NONE, 0, 0, 0); /* plaintext client, secure server */
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.server_status, SN_EPROTO);
    assert_non_null(strstr(o.server_err, "--security none"));
    assert_non_null(strstr(o.client_err, "requires authenticated encryption"));
    o = run(&a, &p, 16, MUT_NONE, 0, 0, 0); /* secure client, plaintext server */
    assert_int_equal(o.server_frames, 0);
    assert_int_equal(o.server_status, SN_EPROTO);
    assert_non_null(strstr(o.server_err, "requires authenticated encryption"));
    assert_non_null(strstr(o.client_err, "--security none"));
}

static void test_handshake_deadline(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t a = secure(&key_a);
    a.deadline_ms = 200;
    uint64_t t0 = uv_hrtime();
    outcome_t o = run(&a, &a, 16, MUT_NONE, 0, 0, 1);
    double secs = (double) (uv_hrtime() - t0) / 1e9;
    assert_int_equal(o.server_status, SN_ETIMEOUT);
    assert_non_null(strstr(o.server_err, "did not finish within 200 ms"));
    assert_non_null(strstr(o.server_err, "127.0.0.1:"));
    assert_true(secs >= 0.19);
}

/* ---- admission control (sn_admit_*) -----------------------------------------------------------
 */

enum { FLOOD = 40, RESERVE = 2 };

typedef struct adm_conn_s {
    sn_conn_t c;
    int index; /* accept order */
} adm_conn_t;

typedef struct adm_world_s {
    uv_loop_t loop;
    uv_tcp_t listener;
    sn_admit_t admit;
    sn_conn_sec_cfg_t sec;
    uv_tcp_t clients[FLOOD];
    uv_connect_t reqs[FLOOD];
    int connected, accepted, closed_index_max, open_conns;
    int log_lines, refusal_lines, summary_lines;
    char summary[400];
    uv_timer_t timer;
} adm_world_t;

static adm_world_t *AW;

static void adm_log(sn_admit_t *a, const char *line)
{
    (void) a;
    AW->log_lines++;
    if (strncmp(line, "refused a test connection from 127.0.0.1:", 41) == 0)
        AW->refusal_lines++;
    if (strstr(line, "more test connections in the last")) {
        AW->summary_lines++;
        snprintf(AW->summary, sizeof AW->summary, "%s", line);
    }
}

static void adm_error(sn_conn_t *c, int status, const char *what)
{
    adm_conn_t *ac = c->owner;
    (void) status;
    if (ac->index > AW->closed_index_max)
        AW->closed_index_max = ac->index;
    sn_admit_done(&AW->admit, c);
    sn_admit_refused(&AW->admit, c->peer, what);
}

static void adm_closed(sn_conn_t *c)
{
    sn_admit_done(&AW->admit, c);
    AW->open_conns--;
    free(c->owner);
}

static void adm_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    (void) c, (void) type, (void) body, (void) len;
}

static const sn_conn_ops_t adm_ops = {adm_frame, adm_error, adm_closed};

static void adm_accept_one(sn_admit_t *a)
{
    (void) a;
    adm_conn_t *ac = calloc(1, sizeof *ac);
    assert_non_null(ac);
    ac->index = AW->accepted++;
    sn_conn_init(&AW->loop, &ac->c, &adm_ops, ac);
    AW->open_conns++;
    if (uv_accept((uv_stream_t *) &AW->listener, (uv_stream_t *) &ac->c.tcp) < 0 ||
        sn_conn_start(&ac->c, &AW->sec, 0) < 0) {
        sn_conn_close(&ac->c);
        return;
    }
    sn_admit_add(&AW->admit, &ac->c);
}

static const sn_admit_ops_t adm_admit_ops = {adm_log, adm_accept_one};

static void adm_on_conn(uv_stream_t *s, int status)
{
    (void) s;
    if (sn_admit_gate(&AW->admit, status) == 0)
        adm_accept_one(&AW->admit);
}

static void adm_connected(uv_connect_t *req, int status)
{
    (void) req;
    assert_int_equal(status, 0);
    AW->connected++;
}

static void adm_stop(uv_timer_t *t)
{
    uv_stop(t->loop);
}

static void adm_close_walk(uv_handle_t *h, void *arg)
{
    (void) arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* 40 idle connections from one address to a listener with a reserve of 2: at most 16 + 2 stay,
 * the oldest are the ones closed, 5 refusals are logged one by one and the others in one summary
 * line with their count; every handle is freed. */
static void test_admission_caps(void **state)
{
    (void) state;
    adm_world_t *w = calloc(1, sizeof *w);
    assert_non_null(w);
    AW = w;
    w->closed_index_max = -1;
    w->sec.mode = SN_SEC_NONE;
    w->sec.deadline_ms = 10000;
    uv_loop_init(&w->loop);
    sn_admit_init(&w->admit, &w->loop, &adm_admit_ops, w, RESERVE, "test connection");
    struct sockaddr_in sa;
    uv_ip4_addr("127.0.0.1", 0, &sa);
    uv_tcp_init(&w->loop, &w->listener);
    assert_int_equal(uv_tcp_bind(&w->listener, (struct sockaddr *) &sa, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *) &w->listener, 128, adm_on_conn), 0);
    struct sockaddr_storage ss;
    int len = sizeof ss;
    uv_tcp_getsockname(&w->listener, (struct sockaddr *) &ss, &len);
    for (int i = 0; i < FLOOD; i++) {
        uv_tcp_init(&w->loop, &w->clients[i]);
        assert_int_equal(
            uv_tcp_connect(&w->reqs[i], &w->clients[i], (struct sockaddr *) &ss, adm_connected), 0);
    }
    uv_timer_init(&w->loop, &w->timer);
    uv_timer_start(&w->timer, adm_stop, 300, 0);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    assert_int_equal(w->connected, FLOOD);
    assert_int_equal(w->accepted, FLOOD);
    const int keep = SN_ADMIT_MAX_PER_ADDR + RESERVE;
    assert_int_equal(w->admit.npend, keep);
    /* the oldest went: every survivor is among the newest `keep` */
    assert_int_equal(w->closed_index_max, FLOOD - keep - 1);
    for (size_t i = 0; i < w->admit.npend; i++)
        assert_true(((adm_conn_t *) w->admit.pend[i]->owner)->index >= FLOOD - keep);
    assert_int_equal(w->admit.refused, FLOOD - keep);
    assert_int_equal(w->refusal_lines, SN_ADMIT_LOG_BURST);
    /* the survivors are closed by their owner (the summary waits for the end of the window, or
     * for the close) */
    sn_conn_t *left[SN_ADMIT_MAX_PER_ADDR + RESERVE];
    size_t nleft = w->admit.npend;
    memcpy(left, w->admit.pend, nleft * sizeof *left);
    for (size_t i = 0; i < nleft; i++)
        sn_conn_close(left[i]);
    sn_admit_close(&w->admit);
    assert_int_equal(w->summary_lines, 1);
    char want[64];
    snprintf(want, sizeof want, "refused %d more test connections",
             FLOOD - keep - SN_ADMIT_LOG_BURST);
    assert_non_null(strstr(w->summary, want));
    uv_walk(&w->loop, adm_close_walk, NULL);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    assert_int_equal(w->open_conns, 0);
    assert_int_equal(uv_loop_close(&w->loop), 0);
    free(w);
}

static int gate_accepts;

static void gate_accept_one(sn_admit_t *a)
{
    (void) a;
    gate_accepts++;
}

static char gate_log[4][400];
static int gate_nlog;

static void gate_log_line(sn_admit_t *a, const char *line)
{
    (void) a;
    if (gate_nlog < 4)
        snprintf(gate_log[gate_nlog], sizeof gate_log[0], "%s", line);
    gate_nlog++;
}

static const sn_admit_ops_t gate_ops = {gate_log_line, gate_accept_one};

/* An accept error (EMFILE) is logged once per episode naming the descriptor limit, pauses
 * accepting with a doubling backoff, and the connection that arrives during the pause is accepted
 * when it ends. */
static void test_admission_accept_error(void **state)
{
    (void) state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    sn_admit_t a;
    gate_accepts = gate_nlog = 0;
    sn_admit_init(&a, &loop, &gate_ops, NULL, 0, "test connection");
    assert_int_equal(sn_admit_gate(&a, UV_EMFILE), 1);
    assert_int_equal(a.backoff_ms, SN_ADMIT_BACKOFF_MIN_MS);
    assert_int_equal(sn_admit_gate(&a, UV_EMFILE), 1); /* the same episode: not logged again */
    assert_int_equal(a.backoff_ms, 2 * SN_ADMIT_BACKOFF_MIN_MS);
    assert_int_equal(gate_nlog, 1);
    assert_non_null(strstr(gate_log[0], "accepting a test connection failed: too many open files"));
    assert_non_null(strstr(gate_log[0], "descriptor limit (ulimit -n"));
    /* a connection during the pause waits for it */
    assert_int_equal(sn_admit_gate(&a, 0), 1);
    assert_int_equal(gate_accepts, 0);
    uint64_t t0 = uv_hrtime();
    uv_run(&loop, UV_RUN_ONCE); /* the backoff timer */
    assert_true(uv_hrtime() - t0 >= (uint64_t) (2 * SN_ADMIT_BACKOFF_MIN_MS - 1) * 1000000u);
    assert_int_equal(gate_accepts, 1);
    assert_int_equal(sn_admit_gate(&a, 0), 0); /* accepting again */
    for (int i = 0; i < 12; i++)
        sn_admit_gate(&a, UV_ENFILE);
    assert_int_equal(a.backoff_ms, SN_ADMIT_BACKOFF_MAX_MS);
    assert_int_equal(gate_nlog, 2); /* ENFILE: a new episode */
    sn_admit_close(&a);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* The memory model of core (sn_model_mem_link) matches net's streaming constants: a link's
 * buffers stop growing at the chunk, and cover the chunk window and the receive unit. */
static void test_memory_model_matches(void **state)
{
    (void) state;
    uint64_t big = sn_model_mem_link(1u << 30);
    assert_true(big == sn_model_mem_link(16u << 20));
    assert_true(big >= (uint64_t) (SN_CONN_WINDOW + 2) * (SN_CONN_CHUNK + SN_SEC_ABYTES));
    assert_true(sn_model_mem_link(100) < sn_model_mem_link(SN_CONN_CHUNK));
}

/* ---- a peer that leaves ---------------------------------------------------------------------- */

static void on_left_connect(uv_connect_t *req, int status)
{
    (void) req;
    assert_int_equal(status, 0);
    assert_int_equal(sn_conn_start(&W->client.c, &W->cc, 1), 0);
}

/* Frame f of the pattern on_frame checks. */
static void send_pattern(sn_conn_t *c, int f)
{
    uint8_t *b = sn_conn_frame(c, SN_FRAME_DATA, W->body);
    for (size_t i = 0; i < W->body; i++)
        b[i] = (uint8_t) (f * 7 + (int) i);
    sn_conn_send(c, b);
}

/* A peer sends its last frame and closes while a frame of ours lies unread on its side, so the
 * close resets the connection; our next write fails before we have read anything. The frame the
 * peer sent must still reach on_frame, before on_error names the failed write (a node's last
 * report, why it left, reaches the coordinator although a write to that node failed first). In
 * both security modes. */
static void test_write_after_peer_left(void **state)
{
    (void) state;
    sn_conn_sec_cfg_t cfgs[] = {plain(), secure(&key_a)};
    for (size_t m = 0; m < 2; m++) {
        world_t *w = calloc(1, sizeof *w);
        W = w;
        uv_loop_init(&w->loop);
        w->cc = w->cs = cfgs[m];
        w->body = 16;
        w->port = listen_on(&w->listener, on_server_conn, w);
        uv_timer_init(&w->loop, &w->deadline);
        uv_timer_start(&w->deadline, on_deadline, 10000, 0);
        sn_conn_init(&w->loop, &w->client.c, &ops, &w->client);
        limits(&w->client.c);
        struct sockaddr_in sa;
        uv_ip4_addr("127.0.0.1", w->port, &sa);
        uv_connect_t creq;
        assert_int_equal(
            uv_tcp_connect(&creq, &w->client.c.tcp, (struct sockaddr *) &sa, on_left_connect), 0);
        while (!(w->have_server && w->server.c.established && w->client.c.established) &&
               !w->timed_out)
            uv_run(&w->loop, UV_RUN_ONCE);
        assert_false(w->timed_out);
        uv_read_stop((uv_stream_t *) &w->client.c.tcp); /* the peer reads no more */
        send_pattern(&w->server.c, 0);                  /* lies unread at the peer */
        send_pattern(&w->client.c, 0);                  /* the peer's last frame */
        sn_conn_close(&w->client.c);                    /* closed with unread data: a reset */
        for (int k = 1; k < 50 && !w->server.c.write_error && !w->server.c.closing; k++)
            send_pattern(&w->server.c, k); /* before the loop reads anything */
        assert_int_equal(w->server.frames, 0);
        while (!w->server.closed && !w->timed_out)
            uv_run(&w->loop, UV_RUN_ONCE);
        assert_false(w->timed_out);
        if (w->server.frames != 1 || w->server.frames_at_error != 1 || w->server.bad_content)
            fail_msg("mode %zu: %d frames (%d before the error '%s'), want the peer's 1 first", m,
                     w->server.frames, w->server.frames_at_error, w->server.err);
        assert_true(w->server.status == UV_EPIPE || w->server.status == UV_ECONNRESET);
        assert_string_equal(w->server.err, "write failed");
        uv_walk(&w->loop, close_walk, NULL);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&w->loop), 0);
        free(w);
        W = NULL;
    }
}

int main(void)
{
    sn_sec_init();
    sn_key_random(&key_a);
    sn_key_random(&key_b);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delivers_in_order),
        cmocka_unit_test(test_shared_pool),
        cmocka_unit_test(test_trickle),
        cmocka_unit_test(test_trickle_closed_while_waiting),
        cmocka_unit_test(test_memory_model_matches),
        cmocka_unit_test(test_altered_frames),
        cmocka_unit_test(test_altered_handshake),
        cmocka_unit_test(test_ciphers),
        cmocka_unit_test(test_wrong_key),
        cmocka_unit_test(test_plaintext_peers),
        cmocka_unit_test(test_handshake_deadline),
        cmocka_unit_test(test_write_after_peer_left),
        cmocka_unit_test(test_admission_caps),
        cmocka_unit_test(test_admission_accept_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
