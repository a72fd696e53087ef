/* Framed TCP connections over libuv (net/), used for the control channel (coordinator <-> node)
 * and for every virtual link (node <-> node).
 *
 * Every connection first runs the handshake of secure.h (docs/security.md) under a deadline, and
 * accepts no frame before it completes; frames sent earlier wait in order. With --security none a
 * frame is: u32 big-endian length of what follows, one type byte, the body. By default it is: u32
 * big-endian length of what follows, then one crypto_secretstream message sealing the type byte
 * and the body (17 bytes more), with the length header as associated data. The reader checks the
 * length against the maximum of its type before it allocates (Redis-style), reads large bodies
 * straight into their buffer, and lends each complete frame to on_frame until it returns. Writes
 * own their buffer until the write callback. Any error closes the connection once, reports it
 * through on_error, and the owner frees the conn in on_closed (never inside its own callbacks). */
#ifndef STEPNET_NET_CONN_H
#define STEPNET_NET_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "secure.h"

#define SN_FRAME_CONTROL 1
#define SN_FRAME_DATA    2
#define SN_FRAME_LINK    3
#define SN_FRAME_PING    4
#define SN_FRAME_PONG    5
#define SN_FRAME_NTYPES  6

#define SN_FRAME_HDR 5 /* length (4) + type (1) */

#define SN_CONN_FAULT_OVERSIZE 1 /* the length header announces 2 GiB */
#define SN_CONN_FAULT_FLIP     2 /* one bit in the middle of the frame, after sealing */

/* How a connection protects itself: the mode (SN_SEC_SODIUM or SN_SEC_NONE), the cluster key
 * (borrowed; must outlive the connection) and the handshake deadline. */
typedef struct sn_conn_sec_cfg_s {
    int mode;
    const sn_key_t *key;
    uint32_t deadline_ms; /* 0: 10000 */
} sn_conn_sec_cfg_t;

typedef struct sn_conn_s sn_conn_t;

typedef struct sn_conn_ops_s {
    /* A complete frame; body is valid until the callback returns. The callee may call
     * sn_conn_close on c. */
    void (*on_frame)(sn_conn_t *c, int type, const uint8_t *body, size_t len);
    /* The connection failed or the peer closed it; status is a libuv code (UV_EOF, UV_ECONNRESET)
     * or an SN_E* code (SN_EPROTO), `what` says which. Called at most once, before on_closed. */
    void (*on_error)(sn_conn_t *c, int status, const char *what);
    /* The handle is closed: the owner may free the conn now. */
    void (*on_closed)(sn_conn_t *c);
} sn_conn_ops_t;

struct sn_conn_s {
    uv_tcp_t tcp;
    const sn_conn_ops_t *ops;
    void *owner;
    uint32_t max_body[SN_FRAME_NTYPES]; /* 0 = type not accepted */
    char name[96];                      /* for logs: "node 3 edge 5" */
    /* reader */
    uint8_t hdr[SN_FRAME_HDR];
    uint32_t hdr_have;
    uint8_t *body;
    uint32_t body_cap, body_len, body_have;
    int type; /* -1 while reading a header */
    uint8_t *stage;
    size_t stage_cap;
    /* security */
    int sec_mode, initiator, established;
    sn_hs_t *hs;   /* during the handshake */
    sn_sec_t *sec; /* mode sodium, once established */
    uint8_t hsbuf[SN_SEC_MAX_REPLY];
    size_t hs_have;
    void *pending, *pending_tail; /* frames sent before the handshake finished, in order */
    uint64_t rx_frames;
    int fault_next;   /* testing (--fault): SN_CONN_FAULT_* applied to the next frame on the wire */
    char peer[64];    /* "127.0.0.1:40123", for errors */
    uv_timer_t timer; /* the handshake deadline, then the one of sn_conn_expect */
    uint32_t deadline_ms;
    uint32_t expect_ms;
    const char *expect_what;
    int open_handles;
    /* writer */
    uint64_t queued;   /* bytes handed to uv_write and not yet written */
    uint8_t *spare[4]; /* cached frame buffers: a link has up to two frames in flight, and large
                          buffers would otherwise be mmap'd and unmapped every slot */
    int nspare;
    int reading, closing, errored;
};

/* Initialises c on loop (uv_tcp_init and the deadline timer) with its callbacks. The caller then
 * connects it, or accepts into it, and calls sn_conn_start; or sn_conn_close to give it up. */
int sn_conn_init(uv_loop_t *loop, sn_conn_t *c, const sn_conn_ops_t *ops, void *owner);

/* Sets TCP_NODELAY, starts the handshake (initiator: the side that dialled) under its deadline and
 * starts reading. Frames may be sent at once: they leave when the handshake completes. */
int sn_conn_start(sn_conn_t *c, const sn_conn_sec_cfg_t *sec, int initiator);

/* A frame buffer of `body_len` body bytes for type `type`: returns a pointer to the body to fill;
 * then sn_conn_send(c, body) sends it (and frees it after the write). */
uint8_t *sn_conn_frame(sn_conn_t *c, int type, size_t body_len);
int sn_conn_send(sn_conn_t *c, uint8_t *body);

/* Once the handshake is done, the peer must do something (`what`, a static string such as "hello")
 * within ms, or the connection fails with SN_ETIMEOUT: "ADDR sent no hello within N ms". Call
 * before or after sn_conn_start; sn_conn_expect_done cancels it when the peer has done it. */
void sn_conn_expect(sn_conn_t *c, uint32_t ms, const char *what);
void sn_conn_expect_done(sn_conn_t *c);

/* Closes the connection (idempotent); on_closed follows. */
void sn_conn_close(sn_conn_t *c);

/* Reports an error (once) and closes: for protocol errors found by the consumer. */
void sn_conn_fail(sn_conn_t *c, int status, const char *what);

#endif
