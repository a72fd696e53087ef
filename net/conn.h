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

/* ---- admission control at a listener ---------------------------------------------------------
 * A connection is unauthenticated from its accept until its owner knows who it is (the handshake,
 * then the hello): a stranger, with or without the key, can open many and say nothing. A listener
 * keeps at most SN_ADMIT_MAX_PENDING + reserve of them, at most SN_ADMIT_MAX_PER_ADDR + reserve
 * from one address (`reserve`: the legitimate peers the owner expects at once, all of which may
 * share one host), and never lets them use the last SN_ADMIT_FD_HEADROOM descriptors of the
 * process's limit (RLIMIT_NOFILE). Beyond a cap the OLDEST unauthenticated connection (of that
 * address, for the per-address cap) is closed: idle strangers age, while a real peer finishes its
 * handshake and hello within milliseconds of connecting, so a flood of idle connections cannot
 * keep a real peer out. Refusals are logged one line each for the first SN_ADMIT_LOG_BURST of
 * every second, then as one summary line with a count; an accept error is logged once per episode
 * with the descriptor limit named, and accepting pauses with a backoff (SN_ADMIT_BACKOFF_MIN_MS
 * doubling to SN_ADMIT_BACKOFF_MAX_MS) while it lasts. */
#define SN_ADMIT_MAX_PENDING    64
#define SN_ADMIT_MAX_PER_ADDR   16
#define SN_ADMIT_FD_HEADROOM    16
#define SN_ADMIT_LOG_BURST      5
#define SN_ADMIT_LOG_WINDOW_MS  1000
#define SN_ADMIT_BACKOFF_MIN_MS 10
#define SN_ADMIT_BACKOFF_MAX_MS 1000

typedef struct sn_admit_s sn_admit_t;

/* The owner's side of a listener: log prints one line (without a newline); accept_one accepts one
 * pending connection of the listener (sn_admit_resume calls it after a pause). */
typedef struct sn_admit_ops_s {
    void (*log)(sn_admit_t *a, const char *line);
    void (*accept_one)(sn_admit_t *a);
} sn_admit_ops_t;

struct sn_admit_s {
    const sn_admit_ops_t *ops;
    void *owner;
    uv_loop_t *loop;
    uint32_t reserve;
    uint64_t fd_limit; /* RLIMIT_NOFILE's soft limit at init (0: unknown) */
    sn_conn_t **pend;  /* unauthenticated connections, oldest first */
    size_t npend, cappend;
    /* the refusal log */
    uint64_t win_start;
    uint32_t win_logged, win_suppressed;
    uint64_t refused; /* in all */
    /* accept errors */
    int last_error;
    uint32_t backoff_ms;
    int paused, held, fd_pressure_logged;
    uv_timer_t timer, log_timer;
    int timers_live;
    const char *noun; /* "control connection", "link connection" */
};

/* Initialises a on loop (two timers); `reserve` as above (sn_admit_set_reserve changes it later);
 * `noun` names the connections in logs ("control connection"). */
void sn_admit_init(sn_admit_t *a, uv_loop_t *loop, const sn_admit_ops_t *ops, void *owner,
                   uint32_t reserve, const char *noun);
void sn_admit_set_reserve(sn_admit_t *a, uint32_t reserve);

/* The listener's connection callback calls this first with its status: 1 if the owner must not
 * accept now (an accept error, logged once with the descriptor limit, or a pause in progress: the
 * connection stays in the kernel's backlog and sn_admit_resume accepts it later), 0 to accept. */
int sn_admit_gate(sn_admit_t *a, int status);

/* After accepting and starting c (its peer address known): counts it as unauthenticated and
 * closes the oldest ones beyond the caps (through sn_conn_fail, so their owners see the error). */
void sn_admit_add(sn_admit_t *a, sn_conn_t *c);

/* c is authenticated (its hello arrived) or closed: no longer counted. Idempotent. */
void sn_admit_done(sn_admit_t *a, sn_conn_t *c);

/* Logs the refusal of a connection from `peer` (rate-limited as above). */
void sn_admit_refused(sn_admit_t *a, const char *peer, const char *why);

/* Logs the summary of refusals not yet logged, and closes the timer (the owner runs the loop
 * once more before freeing a). */
void sn_admit_close(sn_admit_t *a);

/* "descriptor limit (ulimit -n 256)" into buf: the text that names the limit in messages. */
const char *sn_admit_limit_text(char *buf, size_t cap);

#endif
