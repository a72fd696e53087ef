/* Delivery verification (core/sim), shared by the simulator and stepnet-node: what "verified"
 * means (docs/model.md): every delivery is a data packet the collective sends to that node,
 * its payload digest matches, and no packet arrives twice. One bit per expected packet. For the
 * combining collectives (sna, pmna) the delivered packet's value must also be the exact
 * combination, under the run's operator, of every processor's contribution (sn_combined_value):
 * with sum and xor a missing or repeated contribution changes it; max, min, and and or are
 * idempotent, so there a repeated contribution is harmless and the check proves that every
 * contribution that decides the result (the largest, the smallest, a 0 or 1 bit no other has)
 * arrived and nothing foreign was combined in. */
#include <stdlib.h>
#include <string.h>

#include "stepnet/sim.h"
#include "stepnet/util.h"

struct sn_verify_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t first, count;
    uint64_t *bit_off; /* [count] */
    uint64_t *got;     /* [count] */
    uint64_t *expect;  /* [count] */
    uint64_t *dsum;    /* [count] */
    uint64_t *bits;
    int concurrent; /* sn_verify_concurrent: set bits atomically */
};

sn_verify_t *sn_verify_new(const sn_topo_t *t, const sn_params_t *p, uint32_t first, uint32_t count)
{
    sn_verify_t *v = sn_xcalloc(1, sizeof *v);
    v->t = t;
    v->p = p;
    v->first = first;
    v->count = count;
    v->bit_off = sn_xmalloc(((size_t) count + 1) * sizeof *v->bit_off);
    v->got = sn_xcalloc((size_t) count + 1, sizeof *v->got);
    v->expect = sn_xcalloc((size_t) count + 1, sizeof *v->expect);
    v->dsum = sn_xcalloc((size_t) count + 1, sizeof *v->dsum);
    uint64_t nbits = 0;
    for (uint32_t i = 0; i < count; i++) {
        sn_expect_t e = sn_coll_expect(t, p, first + i);
        v->bit_off[i] = nbits;
        v->expect[i] = e.nsrc * e.per_src;
        nbits += v->expect[i];
    }
    v->bits = sn_xcalloc(nbits / 64 + 1, sizeof *v->bits);
    return v;
}

void sn_verify_free(sn_verify_t *v)
{
    if (v == NULL)
        return;
    free(v->bit_off);
    free(v->got);
    free(v->expect);
    free(v->dsum);
    free(v->bits);
    free(v);
}

int sn_verify_delivery(sn_verify_t *v, uint32_t node, uint64_t slot, const sn_packet_t *k,
                       sn_err_t *err)
{
    const sn_params_t *p = v->p;
    char b1[SN_TOPO_MAX_LABEL], b2[SN_TOPO_MAX_LABEL];
    uint32_t i = node - v->first;
    int64_t idx = -1;
    if (i < v->count && k->kind == SN_PKT_DATA && k->seq < p->msgs && k->frag < p->frags)
        idx = sn_coll_source_index(v->t, p, node, k->src, k->dst);
    if (idx < 0)
        return sn_err_set(err, SN_EVERIFY,
                          "slot %llu: node %s delivered a packet it must not receive (src %u, "
                          "dst %d, seq %u, frag %u, kind %u)",
                          (unsigned long long) slot, sn_topo_label(v->t, node, b1, sizeof b1),
                          k->src, k->dst == SN_NODE_ALL ? -1 : (int) k->dst, k->seq, k->frag,
                          k->kind);
    if (sn_coll_is_combining(p->coll)) {
        uint64_t want = sn_combined_value(v->t, p, node, k->seq, k->frag);
        if (k->digest != want)
            return sn_err_set(err, SN_EVERIFY,
                              "slot %llu: node %s received the combined value %016llx (seq %u, "
                              "frag %u); the %s of all %u contributions is %016llx",
                              (unsigned long long) slot, sn_topo_label(v->t, node, b1, sizeof b1),
                              (unsigned long long) k->digest, k->seq, k->frag, sn_op_name(p->op),
                              v->t->nproc, (unsigned long long) want);
    } else if (k->digest != sn_payload_digest(p->seed, k->src, k->dst, k->seq, k->frag, p->size))
        return sn_err_set(err, SN_EVERIFY,
                          "slot %llu: node %s received a corrupt payload from %s (seq %u, frag "
                          "%u): digest mismatch",
                          (unsigned long long) slot, sn_topo_label(v->t, node, b1, sizeof b1),
                          sn_topo_label(v->t, k->src, b2, sizeof b2), k->seq, k->frag);
    uint64_t bit = v->bit_off[i] + (uint64_t) idx * p->msgs * p->frags +
                   (uint64_t) k->seq * p->frags + k->frag;
    uint64_t mask = 1ull << (bit & 63);
    uint64_t old = v->concurrent ? __atomic_fetch_or(&v->bits[bit >> 6], mask, __ATOMIC_RELAXED)
                                 : v->bits[bit >> 6];
    if (old & mask)
        return sn_err_set(err, SN_EVERIFY,
                          "slot %llu: node %s received the packet from %s (seq %u, frag %u) twice",
                          (unsigned long long) slot, sn_topo_label(v->t, node, b1, sizeof b1),
                          sn_topo_label(v->t, k->src, b2, sizeof b2), k->seq, k->frag);
    if (!v->concurrent)
        v->bits[bit >> 6] |= mask;
    v->got[i]++;
    v->dsum[i] += k->digest;
    return 0;
}

void sn_verify_concurrent(sn_verify_t *v)
{
    v->concurrent = 1;
}

uint64_t sn_verify_got(const sn_verify_t *v, uint32_t node)
{
    return v->got[node - v->first];
}

uint64_t sn_verify_expected(const sn_verify_t *v, uint32_t node)
{
    return v->expect[node - v->first];
}

uint64_t sn_verify_digest_sum(const sn_verify_t *v, uint32_t node)
{
    return v->dsum[node - v->first];
}

int sn_verify_complete(const sn_verify_t *v, sn_err_t *err)
{
    uint64_t got = 0, want = 0;
    for (uint32_t i = 0; i < v->count; i++) {
        got += v->got[i];
        want += v->expect[i];
    }
    if (got == want)
        return 0;
    char b1[SN_TOPO_MAX_LABEL];
    for (uint32_t i = 0; i < v->count; i++) {
        if (v->got[i] < v->expect[i])
            return sn_err_set(err, SN_EVERIFY,
                              "incomplete: %llu of %llu expected deliveries missing; node %s "
                              "received %llu of %llu",
                              (unsigned long long) (want - got), (unsigned long long) want,
                              sn_topo_label(v->t, v->first + i, b1, sizeof b1),
                              (unsigned long long) v->got[i], (unsigned long long) v->expect[i]);
    }
    return SN_EVERIFY;
}

uint64_t sn_coll_digest_sum(const sn_topo_t *t, const sn_params_t *p, uint32_t node)
{
    uint64_t sum = 0;
    if (sn_coll_expect(t, p, node).nsrc == 0)
        return 0;
    if (sn_coll_is_combining(p->coll)) {
        for (uint32_t s = 0; s < p->msgs; s++)
            for (uint32_t f = 0; f < p->frags; f++)
                sum += sn_combined_value(t, p, node, s, f);
        return sum;
    }
    uint32_t dst = sn_coll_is_broadcast(p->coll) ? SN_NODE_ALL : node;
    for (uint32_t r = 0; r < t->nproc; r++) {
        uint32_t src = sn_topo_proc(t, r);
        if (sn_coll_source_index(t, p, node, src, dst) < 0)
            continue;
        for (uint32_t s = 0; s < p->msgs; s++)
            for (uint32_t f = 0; f < p->frags; f++)
                sum += sn_payload_digest(p->seed, src, dst, s, f, p->size);
    }
    return sum;
}
