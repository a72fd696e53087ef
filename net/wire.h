/* The stepnet wire protocol on top of framed connections (net/): packing control messages,
 * link hellos and data frames (proto/stepnet.proto), with the maximum size of every frame type
 * for the run's packet size. Shared by stepnet-node and the coordinator. */
#ifndef STEPNET_NET_WIRE_H
#define STEPNET_NET_WIRE_H

#include <stdint.h>

#include "net/conn.h"
#include "net/wire_fault.h"
#include "proto/stepnet.pb-c.h"
#include "stepnet/algo.h"
#include "stepnet/sync.h"

#define SN_WIRE_VERSION     1
#define SN_WIRE_MAX_CONTROL (80u << 20) /* an Assign can carry a 64 MiB file: graph */
/* The control channel's heartbeat (docs/runtime.md): the default period, and how many periods
 * without a frame from the other side make it silent. */
#define SN_HEARTBEAT_DEFAULT_MS 1000
#define SN_HEARTBEAT_MISSES     5
#define SN_WIRE_MAX_PREHELLO    1024 /* a control frame before the hello: a Hello is far below */
#define SN_WIRE_MAX_LINKHELLO   256
#define SN_WIRE_MAX_DATAHDR     512 /* a DataHeader with one PacketHeader is far below this */

/* Start.trace_slots (--trace): the most slots a node records for its result (docs/trace.md), and
 * the most numbers it records in all (half for the slots, half for the transmissions), which keeps
 * its Result far below SN_WIRE_MAX_CONTROL (at most 10 bytes a number). */
#define SN_WIRE_MAX_TRACE_SLOTS  100000
#define SN_WIRE_MAX_TRACE_VALUES (1u << 22)
/* Result.trace_slots under --sync dataflow: the arrival time of a (slot, port) on which the node's
 * receive plan holds no frame (0 already means a frame that came before the Start). */
#define SN_WIRE_TRACE_NO_FRAME UINT64_MAX

/* Sets the frame limits of a control connection (coordinator <-> node). */
void sn_wire_limits_control(sn_conn_t *c);

/* The limits of an accepted control connection before its hello: one control frame of at most
 * SN_WIRE_MAX_PREHELLO bytes (the coordinator raises them with sn_wire_limits_control once the
 * hello names a node of the run). */
void sn_wire_limits_control_prehello(sn_conn_t *c);

/* Sets the frame limits of a link for packets of `size` payload bytes; before the link hello only
 * the hello is accepted (hello_only). */
void sn_wire_limits_link(sn_conn_t *c, uint32_t size, int hello_only);

/* Packs and sends a control message. */
int sn_wire_send_control(sn_conn_t *c, const Stepnet__Control *m);

/* Unpacks a control message (free with stepnet__control__free_unpacked); NULL if malformed. */
Stepnet__Control *sn_wire_unpack_control(const uint8_t *body, size_t len);

int sn_wire_send_linkhello(sn_conn_t *c, uint64_t token, uint32_t edge, uint32_t from);

/* A data frame for slot `slot` of collective `cid` with the termination fields and at most one
 * packet; a data packet's payload (p->size bytes) is generated from (p->seed, packet identity),
 * or, for a combining collective's packet (src SN_SRC_COMBINED), from its value and p->op; that
 * value travels in the header. */
int sn_wire_send_data(sn_conn_t *c, uint32_t cid, uint64_t slot, uint32_t radius, uint64_t cmax,
                      const sn_packet_t *pkt, const sn_params_t *p);

/* What generates a data packet's payload (sn_wire_send_data streams it with sn_conn_send_gen):
 * the packet identity and the run's seed, or for a combining packet its value (in seed) and op. */
typedef struct sn_wire_payload_s {
    uint64_t seed;
    uint32_t src, dst, seq, frag;
    int32_t op, combined;
} sn_wire_payload_t;

/* sn_conn_fill_fn of payloads: bytes [off, off + n) of the payload ctx (an sn_wire_payload_t). */
void sn_wire_payload_fill(const void *ctx, uint32_t off, uint8_t *dst, uint32_t n);

/* The same data frame, built but not sent: its body (for sn_conn_send on c, which then owns it)
 * and, in *len, the body's length. The whole payload is in it,
 * not streamed: the link emulation (node/emulate.c) holds it until its release
 * time. */
uint8_t *sn_wire_frame_data(sn_conn_t *c, uint32_t cid, uint64_t slot, uint32_t radius,
                            uint64_t cmax, const sn_packet_t *pkt, const sn_params_t *p,
                            size_t *len);

typedef struct sn_wire_data_s {
    uint32_t cid;
    uint64_t slot;
    uint32_t radius;
    uint64_t cmax;
    int has_packet;
    sn_packet_t pkt;        /* digest filled in once the payload is checked */
    const uint8_t *payload; /* into the frame body */
    uint32_t payload_len;
} sn_wire_data_t;

/* The data frame header without protobuf-c's generic descriptor walk, which cost about a sixth of
 * the CPU of an idle slot (perf, ring:64): sn_wire_pack_data_header writes exactly the bytes
 * stepnet__data_header__pack writes (fields in number order, optional ones when present) and
 * returns their count (out must hold SN_WIRE_MAX_DATAHDR); sn_wire_unpack_data_header reads that
 * canonical form only: 1 with *h filled (h->packet = ph when a packet is present), 0 for any
 * other encoding (fields out of order, repeated or unknown, overlong varints, values beyond 32
 * bits), which the caller then gives to protobuf-c, so that what is accepted and how it reads is
 * protobuf-c's in every case (tests/unit/test_wire.c and the wire_data fuzz target compare both).
 */
size_t sn_wire_pack_data_header(const Stepnet__DataHeader *h, uint8_t *out);
int sn_wire_unpack_data_header(const uint8_t *b, size_t n, Stepnet__DataHeader *h,
                               Stepnet__PacketHeader *ph);

/* Parses a data frame body. SN_EPROTO (err saying what is wrong) if malformed: a bad header, a
 * payload of the wrong length for the run's size, a control packet with payload bytes. Does not
 * check the payload bytes themselves (sn_payload_check does). */
int sn_wire_parse_data(const uint8_t *body, size_t len, uint32_t size, sn_wire_data_t *out,
                       sn_err_t *err);

/* The same for the first piece of a frame streamed in pieces: body holds the first `avail` of the
 * frame's `len` body bytes, at least the whole header; payload points at the payload bytes among
 * them (avail - (payload - body) of payload_len). */
int sn_wire_parse_data_head(const uint8_t *body, size_t avail, size_t len, uint32_t size,
                            sn_wire_data_t *out, sn_err_t *err);

/* ---- the run parameters in an assignment ------------------------------------------------------
 * The only place that converts between sn_params_t and protobuf: the coordinator fills an Assign
 * with sn_wire_params_to_assign, the node reads it back with sn_wire_assign_to_params. */

/* Fills the run-parameter fields of `a` (collective, port model, root, msgs, frags, size,
 * sources, seed) from p. `a` borrows p's sources and the collective's static name: p must outlive
 * the packing of `a`. The other fields (node, topology, peers, algorithm, deadlines) are the
 * caller's. */
void sn_wire_params_to_assign(const sn_params_t *p, Stepnet__Assign *a);

/* Reads the run parameters of `a` into p (defaults first, then every field the Assign carries).
 * The sources are copied into *sources (NULL when there are none; the caller frees it) and
 * p->sources points there. Checks only what needs no topology (the collective's name); the
 * caller checks p against its topology with sn_params_check. 0, or SN_EINVAL with err set. */
int sn_wire_assign_to_params(const Stepnet__Assign *a, sn_params_t *p, uint32_t **sources,
                             sn_err_t *err);

/* ---- the execution mode in an assignment ------------------------------------------------------
 * The only place that converts between sn_sync_t and Assign.sync's wire numbers
 * (proto/stepnet.proto: absent or 0 the slot barrier, 1 dataflow); a new mode takes the next
 * number there and a row here (net/wire.c refuses to build without it). */

/* Sets Assign.sync for mode s: absent for the slot barrier (wire number 0), as the coordinators
 * before the field existed sent it. */
void sn_wire_sync_to_assign(sn_sync_t s, Stepnet__Assign *a);

/* The execution mode of `a` in *s. 0, or SN_EINVAL with err naming the unknown number and the
 * known ones ("unknown synchronisation 7 (0 slot, 1 dataflow)"). */
int sn_wire_assign_to_sync(const Stepnet__Assign *a, sn_sync_t *s, sn_err_t *err);

#endif
