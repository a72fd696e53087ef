/* The bytes of a collective's packets (core/coll): payload digests, the byte streams that fill and
 * check every packet, and for the combining collectives the operators, every processor's
 * contribution and the vectors of combined values. Who sends what to whom is deliveries.c's. */
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "stepnet/algo.h"
#include "stepnet/util.h"

/* ---- combining operators ----------------------------------------------------------------- */

const char *sn_op_name(sn_op_t op)
{
    static const char *const names[SN_OP_COUNT] = {"sum", "xor", "max", "min", "and", "or"};
    return (unsigned) op < SN_OP_COUNT ? names[op] : "unknown";
}

const char *sn_op_suggest(const char *s)
{
    const char *names[SN_OP_COUNT];
    for (int i = 0; i < SN_OP_COUNT; i++)
        names[i] = sn_op_name((sn_op_t) i);
    return sn_suggest(s, strlen(s), names, SN_OP_COUNT);
}

int sn_op_parse(const char *s, sn_op_t *out, sn_err_t *err)
{
    for (int i = 0; i < SN_OP_COUNT; i++) {
        if (strcmp(s, sn_op_name((sn_op_t) i)) == 0) {
            *out = (sn_op_t) i;
            return 0;
        }
    }
    const char *near = sn_op_suggest(s);
    if (near)
        return sn_err_set_param(
            err, SN_EINVAL, SN_PARAM_OP,
            "unknown combining operator '%s': did you mean %s? accepted: " SN_OP_NAMES, s, near);
    return sn_err_set_param(err, SN_EINVAL, SN_PARAM_OP,
                            "unknown combining operator '%s'; accepted: " SN_OP_NAMES, s);
}

uint64_t sn_op_apply(sn_op_t op, uint64_t a, uint64_t b)
{
    switch (op) {
    case SN_OP_XOR:
        return a ^ b;
    case SN_OP_MAX:
        return a > b ? a : b;
    case SN_OP_MIN:
        return a < b ? a : b;
    case SN_OP_AND:
        return a & b;
    case SN_OP_OR:
        return a | b;
    default:
        return a + b;
    }
}

int sn_op_is_idempotent(sn_op_t op)
{
    return op == SN_OP_MAX || op == SN_OP_MIN || op == SN_OP_AND || op == SN_OP_OR;
}

sn_op_t sn_op_default(sn_coll_t coll)
{
    return coll == SN_COLL_BARRIER ? SN_OP_MAX : SN_OP_SUM;
}

/* ---- payloads ---------------------------------------------------------------------------- */

/* The seed of a packet's byte stream: two mixing rounds over (seed, src, dst, seq, frag). It runs
 * for every packet created and every delivery checked, so it is kept short. */
static uint64_t payload_base(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag)
{
    uint64_t h = sn_mix64(seed * 0x9e3779b97f4a7c15ULL + (((uint64_t) src << 32) | dst));
    return sn_mix64(h + ((((uint64_t) seq << 32) | frag) ^ 0x73746570ULL) * 0xc2b2ae3d27d4eb4fULL);
}

uint64_t sn_payload_digest(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                           uint32_t size)
{
    return payload_base(seed, src, dst, seq, frag) ^ (size * 0xff51afd7ed558ccdULL);
}

/* Word i of a payload is base + (i+1) * K (little endian; a short tail takes the low bytes of the
 * next word). Position-dependent, so a flipped bit, a shifted or repeated chunk and a payload of
 * another packet all differ, and cheap enough to generate and check at memory speed at every hop
 * (a hash per word would cap 1 MiB packets far below loopback bandwidth). Four lanes at a time in
 * GCC vector types; on x86-64 an AVX2 clone is chosen at run time where the CPU has it (about 22
 * GB/s against 8 for the SSE2 baseline on the development machines). */
#define PAYLOAD_K 0x9e3779b97f4a7c15ULL

typedef uint64_t payload_v4 __attribute__((vector_size(32)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PAYLOAD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PAYLOAD_CLONES
#endif

PAYLOAD_CLONES static void payload_fill_words(uint8_t *buf, uint32_t size, uint64_t base)
{
    payload_v4 v = {base + PAYLOAD_K, base + 2 * PAYLOAD_K, base + 3 * PAYLOAD_K,
                    base + 4 * PAYLOAD_K};
    const payload_v4 step = {4 * PAYLOAD_K, 4 * PAYLOAD_K, 4 * PAYLOAD_K, 4 * PAYLOAD_K};
    uint32_t i = 0;
    for (; i + 32 <= size; i += 32) {
        memcpy(buf + i, &v, 32);
        v += step;
    }
    uint64_t w = base + (uint64_t) (i / 8) * PAYLOAD_K;
    for (; i + 8 <= size; i += 8) {
        w += PAYLOAD_K;
        memcpy(buf + i, &w, 8);
    }
    if (i < size) {
        w += PAYLOAD_K;
        memcpy(buf + i, &w, size - i);
    }
}

PAYLOAD_CLONES static uint64_t payload_check_words(const uint8_t *buf, uint32_t size, uint64_t base)
{
    payload_v4 v = {base + PAYLOAD_K, base + 2 * PAYLOAD_K, base + 3 * PAYLOAD_K,
                    base + 4 * PAYLOAD_K};
    const payload_v4 step = {4 * PAYLOAD_K, 4 * PAYLOAD_K, 4 * PAYLOAD_K, 4 * PAYLOAD_K};
    payload_v4 d = {0, 0, 0, 0};
    uint32_t i = 0;
    for (; i + 32 <= size; i += 32) {
        payload_v4 x;
        memcpy(&x, buf + i, 32);
        d |= x ^ v;
        v += step;
    }
    uint64_t diff = d[0] | d[1] | d[2] | d[3];
    uint64_t w = base + (uint64_t) (i / 8) * PAYLOAD_K;
    for (; i + 8 <= size; i += 8) {
        uint64_t x;
        w += PAYLOAD_K;
        memcpy(&x, buf + i, 8);
        diff |= x ^ w;
    }
    if (i < size) {
        uint64_t x = 0, y = 0;
        w += PAYLOAD_K;
        memcpy(&x, buf + i, size - i);
        memcpy(&y, &w, size - i);
        diff |= x ^ y;
    }
    return diff;
}

void sn_payload_fill(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                     uint8_t *buf, uint32_t size)
{
    payload_fill_words(buf, size, payload_base(seed, src, dst, seq, frag));
}

int sn_payload_check(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                     const uint8_t *buf, uint32_t size)
{
    return payload_check_words(buf, size, payload_base(seed, src, dst, seq, frag)) == 0
               ? 0
               : SN_EVERIFY;
}

/* Bytes [off, off + n) of the payload whose word stream starts after `base`: a partial leading
 * word through a temporary word, then whole words from word index off / 8. */
static void payload_fill_range(uint64_t base, uint8_t *buf, uint32_t off, uint32_t n)
{
    uint32_t lead = off % 8;
    if (lead && n) {
        uint64_t w = base + (uint64_t) (off / 8 + 1) * PAYLOAD_K;
        uint8_t tmp[8];
        memcpy(tmp, &w, 8);
        uint32_t k = 8 - lead < n ? 8 - lead : n;
        memcpy(buf, tmp + lead, k);
        buf += k;
        off += k;
        n -= k;
    }
    if (n)
        payload_fill_words(buf, n, base + (uint64_t) (off / 8) * PAYLOAD_K);
}

static uint64_t payload_check_range(uint64_t base, const uint8_t *buf, uint32_t off, uint32_t n)
{
    uint64_t diff = 0;
    uint32_t lead = off % 8;
    if (lead && n) {
        uint64_t w = base + (uint64_t) (off / 8 + 1) * PAYLOAD_K;
        uint8_t tmp[8];
        memcpy(tmp, &w, 8);
        uint32_t k = 8 - lead < n ? 8 - lead : n;
        diff |= (uint64_t) (memcmp(buf, tmp + lead, k) != 0);
        buf += k;
        off += k;
        n -= k;
    }
    if (n)
        diff |= payload_check_words(buf, n, base + (uint64_t) (off / 8) * PAYLOAD_K);
    return diff;
}

void sn_payload_fill_at(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                        uint32_t off, uint8_t *buf, uint32_t n)
{
    payload_fill_range(payload_base(seed, src, dst, seq, frag), buf, off, n);
}

int sn_payload_check_at(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                        uint32_t off, const uint8_t *buf, uint32_t n)
{
    return payload_check_range(payload_base(seed, src, dst, seq, frag), buf, off, n) == 0
               ? 0
               : SN_EVERIFY;
}

sn_packet_t sn_packet_data(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                           uint32_t frag)
{
    sn_packet_t k;
    memset(&k, 0, sizeof k);
    k.src = src;
    k.dst = dst;
    k.seq = seq;
    k.frag = (uint16_t) frag;
    k.kind = SN_PKT_DATA;
    k.digest = sn_payload_digest(p->seed, src, dst, seq, frag, p->size);
    return k;
}

/* ---- combining payloads ------------------------------------------------------------------ */

uint64_t sn_contrib_value(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                          uint32_t frag)
{
    /* a stream other than the payload bytes' (the constant), so that a contribution is not the
     * first payload word of a personalised packet; allreduce and barrier: one value per processor
     * whatever the destination */
    if (p->provenance != 0) {
        uint32_t first = p->provenance - 1;
        return src >= first && src - first < 64 ? 1ull << (src - first) : 0;
    }
    if (sn__coll_is_uniform(p->coll))
        dst = SN_NODE_ALL;
    return payload_base(p->seed ^ 0x636f6d62696e65ULL, src, dst, seq, frag);
}

sn_packet_t sn_packet_contrib(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                              uint32_t frag)
{
    sn_packet_t k;
    memset(&k, 0, sizeof k);
    k.src = SN_SRC_COMBINED;
    k.dst = dst;
    k.seq = seq;
    k.frag = (uint16_t) frag;
    k.kind = SN_PKT_DATA;
    k.digest = sn_contrib_value(p, src, dst, seq, frag);
    return k;
}

uint64_t sn_combined_value(const sn_topo_t *t, const sn_params_t *p, uint32_t dst, uint32_t seq,
                           uint32_t frag)
{
    uint64_t v = 0;
    for (uint32_t r = 0; r < t->nproc; r++) {
        uint64_t x = sn_contrib_value(p, sn_topo_proc(t, r), dst, seq, frag);
        v = r == 0 ? x : sn_op_apply(p->op, v, x);
    }
    return v;
}

/* Word i of the vector of value x (see sn_op_t in stepnet/algo.h). */
static uint64_t op_word(sn_op_t op, uint64_t x, uint64_t i)
{
    switch (op) {
    case SN_OP_XOR:
    case SN_OP_AND:
    case SN_OP_OR: {
        unsigned r = (unsigned) (i & 63);
        return r ? (x << r) | (x >> (64 - r)) : x;
    }
    case SN_OP_MAX:
    case SN_OP_MIN:
        return (x >> 2) + ((i * PAYLOAD_K) & ((1ull << 62) - 1));
    default:
        return x * ((2 * i + 1) * PAYLOAD_K);
    }
}

/* Bytes [off, off + n) of the vector of `value`. */
void sn_payload_fill_value_at(sn_op_t op, uint64_t value, uint32_t off, uint8_t *buf, uint32_t n)
{
    while (n > 0) {
        uint64_t w = op_word(op, value, off / 8);
        uint32_t lead = off % 8, k = 8 - lead < n ? 8 - lead : n;
        if (k == 8) {
            memcpy(buf, &w, 8);
        } else {
            uint8_t tmp[8];
            memcpy(tmp, &w, 8);
            memcpy(buf, tmp + lead, k);
        }
        buf += k;
        off += k;
        n -= k;
    }
}

int sn_payload_check_value_at(sn_op_t op, uint64_t value, uint32_t off, const uint8_t *buf,
                              uint32_t n)
{
    uint64_t diff = 0;
    while (n > 0) {
        uint64_t w = op_word(op, value, off / 8);
        uint32_t lead = off % 8, k = 8 - lead < n ? 8 - lead : n;
        if (k == 8) {
            uint64_t x;
            memcpy(&x, buf, 8);
            diff |= x ^ w;
        } else {
            uint8_t tmp[8];
            memcpy(tmp, &w, 8);
            diff |= (uint64_t) (memcmp(buf, tmp + lead, k) != 0);
        }
        buf += k;
        off += k;
        n -= k;
    }
    return diff == 0 ? 0 : SN_EVERIFY;
}

void sn_payload_fill_value(sn_op_t op, uint64_t value, uint8_t *buf, uint32_t size)
{
    sn_payload_fill_value_at(op, value, 0, buf, size);
}

int sn_payload_check_value(sn_op_t op, uint64_t value, const uint8_t *buf, uint32_t size)
{
    return sn_payload_check_value_at(op, value, 0, buf, size);
}
