/* Fuzz target (tests/fuzz): the data-frame decoder, sn_wire_parse_data. The first two bytes pick
 * the run's packet size (0 to 65535); the rest is the frame body as a peer sent it. An accepted
 * data packet's payload is checked in place, as a node does. */
#include "fuzz.h"
#include "stepnet/algo.h"
#include "wire.h"

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
    return 0;
}
