/* Fuzz target (tests/fuzz): the handshake of net/secure.c as a peer drives it. The first byte
 * picks the role and mode (bit 0: initiator, bit 1: --security none); the rest is what the peer
 * sends, consumed hs->want bytes at a time by sn_hs_step until it fails, completes or the input
 * ends. Ephemeral keys are fixed so that runs are reproducible. */
#include <string.h>

#include "net/secure.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const sn_hs_fixed_t fixed = {{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}};
    sn_key_t key;
    memset(key.k, 0x5a, sizeof key.k);
    sn_sec_init();
    int initiator = data[0] & 1, mode = (data[0] & 2) ? SN_SEC_NONE : SN_SEC_SODIUM;
    sn_hs_t hs;
    uint8_t out[SN_SEC_MAX_REPLY];
    size_t outlen = 0, pos = size > 1 ? 2 : 1;
    /* the side's ciphers from the second byte: all four sets, the empty one included */
    int ciphers = size > 1 ? (data[1] & 3) : SN_CIPHER_XCHACHA20;
    sn_hs_start(&hs, mode, &key, initiator, ciphers, &fixed, out, &outlen);
    while (!hs.done && hs.want > 0 && size - pos >= hs.want) {
        const char *why = NULL;
        size_t take = hs.want;
        if (sn_hs_step(&hs, data + pos, out, &outlen, &why) < 0)
            break;
        pos += take;
    }
    sn_hs_wipe(&hs);
    return 0;
}
