/* Fuzz target (tests/fuzz): the data-frame decoder, sn_wire_parse_data. The first two bytes pick
 * the run's packet size (0 to 65535); the rest is the frame body as a peer sent it. An accepted
 * data packet's payload is checked in place, as a node does. The header bytes are also read by
 * the hand-written canonical decoder and by protobuf-c: whatever the first accepts, the second
 * must accept with the same fields (abort otherwise, so the fuzzer reports it). */
#include <stdlib.h>

#include "net/wire.h"
#include "stepnet/algo.h"
#include "tests/fuzz/fuzz.h"

static void same_as_protobuf_c(const uint8_t *b, size_t n)
{
    Stepnet__DataHeader h;
    Stepnet__PacketHeader ph;
    if (!sn_wire_unpack_data_header(b, n, &h, &ph))
        return;
    Stepnet__DataHeader *r = stepnet__data_header__unpack(NULL, n, b);
    if (r == NULL || r->cid != h.cid || r->slot != h.slot || r->radius != h.radius ||
        r->cmax != h.cmax || (r->packet == NULL) != (h.packet == NULL))
        abort();
    if (r->packet) {
        const Stepnet__PacketHeader *p = r->packet;
        if (p->src != ph.src || p->dst != ph.dst || p->seq != ph.seq || p->frag != ph.frag ||
            p->kind != ph.kind || p->has_flags != ph.has_flags || p->flags != ph.flags ||
            p->has_tag != ph.has_tag || p->tag != ph.tag || p->has_value != ph.has_value ||
            p->value != ph.value)
            abort();
    }
    stepnet__data_header__free_unpacked(r, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint32_t psize = ((uint32_t) data[0] << 8) | data[1];
    sn_wire_data_t d;
    sn_err_t err = {0};
    if (sn_wire_parse_data(data + 2, size - 2, psize, &d, &err) == 0 && d.has_packet &&
        d.pkt.kind == SN_PKT_DATA)
        (void) sn_payload_check(1, d.pkt.src, d.pkt.dst, d.pkt.seq, d.pkt.frag, d.payload,
                                d.payload_len);
    if (size >= 6) { /* body: a 4-byte header length, then the header */
        const uint8_t *body = data + 2;
        size_t hlen =
            ((size_t) body[0] << 24) | ((size_t) body[1] << 16) | ((size_t) body[2] << 8) | body[3];
        if (hlen <= size - 6)
            same_as_protobuf_c(body + 4, hlen);
    }
    return 0;
}
