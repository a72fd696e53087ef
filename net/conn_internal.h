/* What conn.c (the writer, the handshake, the connection's life) and conn_read.c (the frame
 * reader) share, and nothing else includes. */
#ifndef STEPNET_NET_CONN_INTERNAL_H
#define STEPNET_NET_CONN_INTERNAL_H

#include <stdint.h>

#include <uv.h>

#include "net/conn.h"

#define STAGE_SIZE 65536
#define DIRECT_MIN 16384 /* read a unit directly into place when this much of it is missing */
/* A whole-frame receive buffer larger than this is freed after its frame (calibration probes and
 * large control frames are rare; a link's steady state needs chunks only). */
#define BODY_KEEP (2 * SN_CONN_CHUNK)

/* The frame header's big-endian length. */
static inline void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t) (v >> 24);
    p[1] = (uint8_t) (v >> 16);
    p[2] = (uint8_t) (v >> 8);
    p[3] = (uint8_t) v;
}

/* libuv's allocation callback of a connection's reads: the handshake's buffer, a unit's place, or
 * the staging buffer. */
void sn__conn_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
/* The unit being read is complete: open it, check it, deliver it, and set up the next. */
void sn__conn_unit_done(sn_conn_t *c);

#endif
