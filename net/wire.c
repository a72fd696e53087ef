/* The stepnet wire protocol (net/): control messages, link hellos and data frames packed with
 * protobuf-c into framed connections (conn.c). A data frame is a u32 header length, the
 * DataHeader, then the payload bytes raw, so megabyte payloads are never copied through protobuf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/wire.h"
#include "stepnet/util.h"

void sn_wire_limits_control(sn_conn_t *c)
{
    memset(c->max_body, 0, sizeof c->max_body);
    c->max_body[SN_FRAME_CONTROL] = SN_WIRE_MAX_CONTROL;
}

void sn_wire_limits_control_prehello(sn_conn_t *c)
{
    memset(c->max_body, 0, sizeof c->max_body);
    c->max_body[SN_FRAME_CONTROL] = SN_WIRE_MAX_PREHELLO;
}

void sn_wire_limits_link(sn_conn_t *c, uint32_t size, int hello_only)
{
    memset(c->max_body, 0, sizeof c->max_body);
    c->max_body[SN_FRAME_LINK] = SN_WIRE_MAX_LINKHELLO;
    if (hello_only)
        return;
    c->max_body[SN_FRAME_DATA] = 4 + SN_WIRE_MAX_DATAHDR + size;
    c->max_body[SN_FRAME_PING] = 8 + size;
    c->max_body[SN_FRAME_PONG] = 8 + size;
    /* large data frames and calibration probes go to the link piece by piece */
    c->stream_mask = (1u << SN_FRAME_DATA) | (1u << SN_FRAME_PING) | (1u << SN_FRAME_PONG);
}

int sn_wire_send_control(sn_conn_t *c, const Stepnet__Control *m)
{
    size_t len = stepnet__control__get_packed_size(m);
    uint8_t *body = sn_conn_frame(c, SN_FRAME_CONTROL, len);
    stepnet__control__pack(m, body);
    return sn_conn_send(c, body);
}

Stepnet__Control *sn_wire_unpack_control(const uint8_t *body, size_t len)
{
    Stepnet__Control *m = stepnet__control__unpack(NULL, len, body);
    if (m && m->msg_case == STEPNET__CONTROL__MSG__NOT_SET) {
        stepnet__control__free_unpacked(m, NULL);
        return NULL;
    }
    return m;
}

int sn_wire_send_linkhello(sn_conn_t *c, uint64_t token, uint32_t edge, uint32_t from)
{
    Stepnet__LinkHello h = STEPNET__LINK_HELLO__INIT;
    h.version = SN_WIRE_VERSION;
    h.token = token;
    h.edge = edge;
    h.from = from;
    size_t len = stepnet__link_hello__get_packed_size(&h);
    uint8_t *body = sn_conn_frame(c, SN_FRAME_LINK, len);
    stepnet__link_hello__pack(&h, body);
    return sn_conn_send(c, body);
}

/* ---- the data header's canonical protobuf encoding, by hand -------------------------------- */

enum { WT_VARINT = 0, WT_LEN = 2 };

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t) (v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t) v;
    return p;
}

static uint8_t *put_field(uint8_t *p, uint32_t field, uint64_t v)
{
    *p++ = (uint8_t) (field << 3 | WT_VARINT);
    return put_varint(p, v);
}

size_t sn_wire_pack_data_header(const Stepnet__DataHeader *h, uint8_t *out)
{
    uint8_t *p = out;
    p = put_field(p, 1, h->cid);
    p = put_field(p, 2, h->slot);
    p = put_field(p, 3, h->radius);
    p = put_field(p, 4, h->cmax);
    if (h->packet) {
        const Stepnet__PacketHeader *ph = h->packet;
        uint8_t sub[64]; /* 5 x (1 + 5) + 2 x (1 + 5) + 1 + 10 bytes at most */
        uint8_t *q = sub;
        q = put_field(q, 1, ph->src);
        q = put_field(q, 2, ph->dst);
        q = put_field(q, 3, ph->seq);
        q = put_field(q, 4, ph->frag);
        q = put_field(q, 5, ph->kind);
        if (ph->has_flags)
            q = put_field(q, 6, ph->flags);
        if (ph->has_tag)
            q = put_field(q, 7, ph->tag);
        if (ph->has_value)
            q = put_field(q, 8, ph->value);
        *p++ = (uint8_t) (5u << 3 | WT_LEN);
        p = put_varint(p, (uint64_t) (q - sub));
        memcpy(p, sub, (size_t) (q - sub));
        p += q - sub;
    }
    return (size_t) (p - out);
}

/* A canonical varint (no redundant trailing 0x80 groups) of at most `max` bytes at b[*i]. */
static int get_varint(const uint8_t *b, size_t n, size_t *i, unsigned max, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned k = 0; k < max && *i < n; k++) {
        uint8_t c = b[(*i)++];
        r |= (uint64_t) (c & 0x7f) << (7 * k);
        if (!(c & 0x80)) {
            if (c == 0 && k > 0) /* overlong: protobuf-c decides */
                return 0;
            *v = r;
            return 1;
        }
    }
    return 0;
}

/* The next field, which must be `field` with varint type: its value in *v (uint32 fields: at
 * most 5 bytes and 32 bits). */
static int get_field(const uint8_t *b, size_t n, size_t *i, uint32_t field, int is32, uint64_t *v)
{
    if (*i >= n || b[*i] != (uint8_t) (field << 3 | WT_VARINT))
        return 0;
    (*i)++;
    if (!get_varint(b, n, i, is32 ? 5 : 10, v))
        return 0;
    return !is32 || *v <= UINT32_MAX;
}

/* Optional field `field` if it is next: 1 and *v, or 0 (absent) leaving *i. */
static int opt_field(const uint8_t *b, size_t n, size_t *i, uint32_t field, int is32, uint64_t *v,
                     int *ok)
{
    if (*i >= n || b[*i] != (uint8_t) (field << 3 | WT_VARINT))
        return 0;
    if (!get_field(b, n, i, field, is32, v))
        *ok = 0;
    return 1;
}

int sn_wire_unpack_data_header(const uint8_t *b, size_t n, Stepnet__DataHeader *h,
                               Stepnet__PacketHeader *ph)
{
    size_t i = 0;
    uint64_t cid, slot, radius, cmax;
    if (!get_field(b, n, &i, 1, 1, &cid) || !get_field(b, n, &i, 2, 0, &slot) ||
        !get_field(b, n, &i, 3, 1, &radius) || !get_field(b, n, &i, 4, 0, &cmax))
        return 0;
    *h = (Stepnet__DataHeader) STEPNET__DATA_HEADER__INIT;
    h->cid = (uint32_t) cid;
    h->slot = slot;
    h->radius = (uint32_t) radius;
    h->cmax = cmax;
    if (i == n)
        return 1;
    uint64_t len;
    if (b[i++] != (uint8_t) (5u << 3 | WT_LEN) || !get_varint(b, n, &i, 5, &len) || len != n - i)
        return 0;
    uint64_t src, dst, seq, frag, kind, flags = 0, tag = 0, value = 0;
    if (!get_field(b, n, &i, 1, 1, &src) || !get_field(b, n, &i, 2, 1, &dst) ||
        !get_field(b, n, &i, 3, 1, &seq) || !get_field(b, n, &i, 4, 1, &frag) ||
        !get_field(b, n, &i, 5, 1, &kind))
        return 0;
    int ok = 1;
    *ph = (Stepnet__PacketHeader) STEPNET__PACKET_HEADER__INIT;
    ph->has_flags = (protobuf_c_boolean) opt_field(b, n, &i, 6, 1, &flags, &ok);
    ph->has_tag = (protobuf_c_boolean) opt_field(b, n, &i, 7, 1, &tag, &ok);
    ph->has_value = (protobuf_c_boolean) opt_field(b, n, &i, 8, 0, &value, &ok);
    if (!ok || i != n)
        return 0;
    ph->src = (uint32_t) src;
    ph->dst = (uint32_t) dst;
    ph->seq = (uint32_t) seq;
    ph->frag = (uint32_t) frag;
    ph->kind = (uint32_t) kind;
    ph->flags = (uint32_t) flags;
    ph->tag = (uint32_t) tag;
    ph->value = value;
    h->packet = ph;
    return 1;
}

/* A data frame's head (4-byte header length, DataHeader) into head[], and what generates its
 * payload; returns the head's length (at most 4 + 89 bytes), the payload's in *plen. */
static size_t data_head(uint32_t cid, uint64_t slot, uint32_t radius, uint64_t cmax,
                        const sn_packet_t *pkt, const sn_params_t *p,
                        uint8_t head[4 + SN_WIRE_MAX_DATAHDR], uint32_t *plen, sn_wire_payload_t *g)
{
    Stepnet__DataHeader h = STEPNET__DATA_HEADER__INIT;
    Stepnet__PacketHeader ph = STEPNET__PACKET_HEADER__INIT;
    h.cid = cid;
    h.slot = slot;
    h.radius = radius;
    h.cmax = cmax;
    *plen = 0;
    memset(g, 0, sizeof *g);
    if (pkt) {
        ph.src = pkt->src;
        ph.dst = pkt->dst;
        ph.seq = pkt->seq;
        ph.frag = pkt->frag;
        ph.kind = pkt->kind;
        ph.has_flags = pkt->flags != 0;
        ph.flags = pkt->flags;
        ph.has_tag = pkt->tag != 0;
        ph.tag = pkt->tag;
        if (pkt->kind == SN_PKT_CONTROL || pkt->src == SN_SRC_COMBINED) {
            ph.has_value = 1;
            ph.value = pkt->digest;
        }
        if (pkt->kind == SN_PKT_DATA) {
            *plen = p->size;
            g->combined = pkt->src == SN_SRC_COMBINED;
            g->op = p->op;
            g->seed = g->combined ? pkt->digest : p->seed;
            g->src = pkt->src;
            g->dst = pkt->dst;
            g->seq = pkt->seq;
            g->frag = pkt->frag;
        }
        h.packet = &ph;
    }
    size_t hlen = sn_wire_pack_data_header(&h, head + 4);
    head[0] = (uint8_t) (hlen >> 24);
    head[1] = (uint8_t) (hlen >> 16);
    head[2] = (uint8_t) (hlen >> 8);
    head[3] = (uint8_t) hlen;
    return 4 + hlen;
}

int sn_wire_send_data(sn_conn_t *c, uint32_t cid, uint64_t slot, uint32_t radius, uint64_t cmax,
                      const sn_packet_t *pkt, const sn_params_t *p)
{
    uint8_t head[4 + SN_WIRE_MAX_DATAHDR];
    uint32_t plen;
    sn_wire_payload_t g;
    size_t hl = data_head(cid, slot, radius, cmax, pkt, p, head, &plen, &g);
    /* the payload is generated chunk by chunk as the frame goes out */
    return sn_conn_send_gen(c, SN_FRAME_DATA, head, hl, plen, sn_wire_payload_fill, &g, sizeof g);
}

uint8_t *sn_wire_frame_data(sn_conn_t *c, uint32_t cid, uint64_t slot, uint32_t radius,
                            uint64_t cmax, const sn_packet_t *pkt, const sn_params_t *p,
                            size_t *len)
{
    uint8_t head[4 + SN_WIRE_MAX_DATAHDR];
    uint32_t plen;
    sn_wire_payload_t g;
    size_t hl = data_head(cid, slot, radius, cmax, pkt, p, head, &plen, &g);
    uint8_t *body = sn_conn_frame(c, SN_FRAME_DATA, hl + plen);
    memcpy(body, head, hl);
    if (plen)
        sn_wire_payload_fill(&g, 0, body + hl, plen);
    *len = hl + plen;
    return body;
}

void sn_wire_payload_fill(const void *ctx, uint32_t off, uint8_t *dst, uint32_t n)
{
    const sn_wire_payload_t *g = ctx;
    if (g->combined)
        sn_payload_fill_value_at((sn_op_t) g->op, g->seed, off, dst, n);
    else
        sn_payload_fill_at(g->seed, g->src, g->dst, g->seq, g->frag, off, dst, n);
}

/* Data headers are unpacked into a small stack arena instead of malloc: one frame per link per
 * slot would otherwise cost two allocations each. */
typedef struct {
    _Alignas(16) uint8_t buf[512];
    size_t used;
} arena_t;

static void *arena_alloc(void *data, size_t size)
{
    arena_t *a = data;
    size = (size + 15) & ~(size_t) 15;
    if (a->used + size <= sizeof a->buf) {
        void *p = a->buf + a->used;
        a->used += size;
        return p;
    }
    return malloc(size);
}

static void arena_free(void *data, void *p)
{
    arena_t *a = data;
    if ((uint8_t *) p >= a->buf && (uint8_t *) p < a->buf + sizeof a->buf)
        return;
    free(p);
}

int sn_wire_parse_data(const uint8_t *body, size_t len, uint32_t size, sn_wire_data_t *out,
                       sn_err_t *err)
{
    return sn_wire_parse_data_head(body, len, len, size, out, err);
}

int sn_wire_parse_data_head(const uint8_t *body, size_t avail, size_t len, uint32_t size,
                            sn_wire_data_t *out, sn_err_t *err)
{
    arena_t arena;
    arena.used = 0;
    ProtobufCAllocator alloc = {arena_alloc, arena_free, &arena};
    memset(out, 0, sizeof *out);
    if (len < 4) {
        return sn_err_set(err, SN_EPROTO, "data frame shorter than its header length");
    }
    uint32_t hlen = ((uint32_t) body[0] << 24) | ((uint32_t) body[1] << 16) |
                    ((uint32_t) body[2] << 8) | body[3];
    if (avail > len || avail < 4 || hlen > SN_WIRE_MAX_DATAHDR || hlen > len - 4 ||
        hlen > avail - 4) {
        return sn_err_set(err, SN_EPROTO, "data frame header length out of range");
    }
    Stepnet__DataHeader fast_h;
    Stepnet__PacketHeader fast_ph;
    int fast = sn_wire_unpack_data_header(body + 4, hlen, &fast_h, &fast_ph);
    Stepnet__DataHeader *h = fast ? &fast_h : stepnet__data_header__unpack(&alloc, hlen, body + 4);
    if (h == NULL) {
        return sn_err_set(err, SN_EPROTO, "malformed data frame header");
    }
    out->cid = h->cid;
    out->slot = h->slot;
    out->radius = h->radius;
    out->cmax = h->cmax;
    out->payload = body + 4 + hlen;
    out->payload_len = (uint32_t) (len - 4 - hlen);
    int rc = 0;
    if (h->packet) {
        const Stepnet__PacketHeader *ph = h->packet;
        out->has_packet = 1;
        out->pkt.src = ph->src;
        out->pkt.dst = ph->dst;
        out->pkt.seq = ph->seq;
        out->pkt.frag = (uint16_t) ph->frag;
        out->pkt.kind = (uint8_t) ph->kind;
        out->pkt.flags = (uint8_t) ph->flags;
        out->pkt.tag = ph->tag;
        out->pkt.digest = ph->value;
        if (ph->kind > SN_PKT_CONTROL || ph->frag > UINT16_MAX || ph->flags > UINT8_MAX) {
            rc = sn_err_set(err, SN_EPROTO, "packet header field out of range");
        } else if (ph->kind == SN_PKT_DATA && out->payload_len != size) {
            rc = sn_err_set(err, SN_EPROTO, "%s",
                            "data packet payload length differs from the run's packet size");
        } else if (ph->kind == SN_PKT_CONTROL && out->payload_len != 0) {
            rc = sn_err_set(err, SN_EPROTO, "control packet with payload bytes");
        }
    } else if (out->payload_len != 0) {
        rc = sn_err_set(err, SN_EPROTO, "payload bytes in a frame without a packet");
    }
    if (!fast)
        stepnet__data_header__free_unpacked(h, &alloc);
    return rc;
}

/* ---- the run parameters in an assignment ---------------------------------------------------- */

void sn_wire_params_to_assign(const sn_params_t *p, Stepnet__Assign *a)
{
    a->collective = (char *) sn_coll_name(p->coll);
    a->ports = p->pm.ports == SN_PORTS_SINGLE;
    a->rx = p->pm.rx == SN_RX_ANY;
    a->duplex = p->pm.duplex == SN_DUPLEX_HALF;
    a->root = p->root;
    a->msgs = p->msgs;
    a->has_frags = p->frags != 1;
    a->frags = p->frags;
    a->size = p->size;
    a->n_sources = p->sources ? p->nsources : 0;
    a->sources = (uint32_t *) p->sources;
    a->seed = p->seed;
    a->has_op = p->op != SN_OP_SUM;
    a->op = (uint32_t) p->op;
}

int sn_wire_assign_to_params(const Stepnet__Assign *a, sn_params_t *p, uint32_t **sources,
                             sn_err_t *err)
{
    sn_coll_t coll;
    *sources = NULL;
    int rc = sn_coll_parse(a->collective, &coll, err);
    if (rc < 0)
        return rc;
    sn_params_default(p, coll);
    p->pm.ports = a->ports ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
    p->pm.rx = a->rx ? SN_RX_ANY : SN_RX_ONE;
    p->pm.duplex = a->duplex ? SN_DUPLEX_HALF : SN_DUPLEX_FULL;
    p->root = a->root;
    p->msgs = a->msgs;
    if (a->has_frags)
        p->frags = a->frags;
    p->size = a->size;
    p->seed = a->seed;
    /* absent means sum (the encoder's rule), not the collective's default operator: a barrier
     * run with an explicit --op sum must not turn into max on the node */
    p->op = SN_OP_SUM;
    if (a->has_op) {
        if (a->op >= SN_OP_COUNT)
            return sn_err_set(err, SN_EPROTO,
                              "assignment with combining operator %u; known: 0 to %d", a->op,
                              SN_OP_COUNT - 1);
        p->op = (sn_op_t) a->op;
    }
    if (a->n_sources > 0) {
        *sources = sn_xmalloc(a->n_sources * sizeof **sources);
        memcpy(*sources, a->sources, a->n_sources * sizeof **sources);
        p->sources = *sources;
        p->nsources = (uint32_t) a->n_sources;
    }
    return 0;
}

/* ---- the execution mode in an assignment ---------------------------------------------------- */

/* Every mode and its wire number (SN_SYNC_MAP's column), in the order the refusal lists them. */
static const struct {
    sn_sync_t sync;
    uint32_t wire;
} sync_wire[] = {
#define SN_SYNC_WIRE(e, name, wire, lockstep, rxplan, what) {SN_SYNC_##e, wire},
    SN_SYNC_MAP(SN_SYNC_WIRE)
#undef SN_SYNC_WIRE
};

void sn_wire_sync_to_assign(sn_sync_t s, Stepnet__Assign *a)
{
    uint32_t wire = 0;
    for (size_t i = 0; i < sizeof sync_wire / sizeof sync_wire[0]; i++)
        if (sync_wire[i].sync == s)
            wire = sync_wire[i].wire;
    a->has_sync = wire != 0;
    a->sync = wire;
}

int sn_wire_assign_to_sync(const Stepnet__Assign *a, sn_sync_t *s, sn_err_t *err)
{
    uint32_t wire = a->has_sync ? a->sync : 0;
    for (size_t i = 0; i < sizeof sync_wire / sizeof sync_wire[0]; i++) {
        if (sync_wire[i].wire == wire) {
            *s = sync_wire[i].sync;
            return 0;
        }
    }
    char known[128] = "";
    for (size_t i = 0, len = 0; i < sizeof sync_wire / sizeof sync_wire[0] && len < sizeof known;
         i++)
        len += (size_t) snprintf(known + len, sizeof known - len, "%s%u %s", i ? ", " : "",
                                 sync_wire[i].wire, sn_sync_name(sync_wire[i].sync));
    return sn_err_set(err, SN_EINVAL, "unknown synchronisation %u (%s)", wire, known);
}
