/* allreduce: a schedule of the relaxation made exact, where it can be (core/synth,
 * docs/synth.md, "allreduce: a relaxation"). The relaxation lets a transmission carry all its
 * sender knows; an exact transmission carries one combination of contributions none of which is
 * counted twice. Replaying the relaxation's transmissions slot by slot, each sender sends the
 * largest combination it can form from disjoint pieces of what it holds (its own contribution
 * and the combinations it received), as the schedule-file checker forms them; when every
 * processor can then form the full combination, the result is an allreduce schedule of the same
 * slots, which the simulator verifies. */
#include <stdlib.h>
#include <string.h>

#include "core/synth/synth.h"
#include "stepnet/util.h"

typedef struct {
    uint64_t *m;
    size_t n, cap;
} masks_t;

static int cmp_pop_desc(const void *a, const void *b)
{
    int x = __builtin_popcountll(*(const uint64_t *) a),
        y = __builtin_popcountll(*(const uint64_t *) b);
    return y - x;
}

/* The largest union of pairwise disjoint sets of h (greedy, the largest first). */
static uint64_t form(masks_t *h)
{
    qsort(h->m, h->n, sizeof *h->m, cmp_pop_desc);
    uint64_t u = 0;
    for (size_t i = 0; i < h->n; i++)
        if ((h->m[i] & u) == 0)
            u |= h->m[i];
    return u;
}

static void add(masks_t *h, uint64_t m)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->m[i] == m)
            return;
    sn_grow((void **) &h->m, &h->cap, h->n + 1, sizeof *h->m);
    h->m[h->n++] = m;
}

int sn_synth_realize(const sn_synth_enc_t *e, const sn_sched_t *relaxed, sn_sched_t *out,
                     sn_sched_ops_t *ops)
{
    memset(out, 0, sizeof *out);
    memset(ops, 0, sizeof *ops);
    out->predicted = -1;
    if (!e->relaxed || e->nproc == 0 || e->nproc > 64)
        return -1;
    uint32_t n = e->n, K = (uint32_t) e->npkt, F = e->p->frags;
    uint32_t *bit = sn_xcalloc(n, sizeof *bit); /* node -> its processor index */
    for (uint32_t i = 0; i < e->nproc; i++)
        bit[e->proc[i]] = i + 1;
    masks_t *held = sn_xcalloc((size_t) K * n, sizeof *held);
    for (uint32_t k = 0; k < K; k++)
        for (uint32_t v = 0; v < n; v++)
            if (bit[v])
                add(&held[(size_t) k * n + v], 1ull << (bit[v] - 1));
    uint64_t *sent = sn_xcalloc(relaxed->n ? relaxed->n : 1, sizeof *sent);
    size_t cap = 16, idcap = 64, nid = 0;
    out->ev = sn_xcalloc(cap, sizeof *out->ev);
    ops->first = sn_xcalloc(cap + 1, sizeof *ops->first);
    ops->id = sn_xcalloc(idcap, sizeof *ops->id);
    for (size_t i0 = 0, i1; i0 < relaxed->n; i0 = i1) {
        for (i1 = i0; i1 < relaxed->n && relaxed->ev[i1].slot == relaxed->ev[i0].slot; i1++) {
            const sn_sched_ev_t *x = &relaxed->ev[i1]; /* formed from what slot - 1 left */
            sent[i1] = form(&held[((size_t) x->pkt.seq * F + x->pkt.frag) * n + x->node]);
        }
        for (size_t i = i0; i < i1; i++) {
            const sn_sched_ev_t *x = &relaxed->ev[i];
            if (sent[i] == 0)
                continue; /* a router with nothing yet */
            uint32_t to = sn_topo_port(e->t, x->node, x->port)->peer;
            add(&held[((size_t) x->pkt.seq * F + x->pkt.frag) * n + to], sent[i]);
            sn_grow((void **) &out->ev, &cap, out->n + 1, sizeof *out->ev);
            ops->first = sn_xrealloc(ops->first, (cap + 1) * sizeof *ops->first);
            out->ev[out->n] = *x;
            ops->first[out->n++] = nid;
            for (uint32_t b = 0; b < e->nproc; b++)
                if (sent[i] >> b & 1) {
                    sn_grow((void **) &ops->id, &idcap, nid + 1, sizeof *ops->id);
                    ops->id[nid++] = e->proc[b];
                }
            out->steps = x->slot;
        }
    }
    ops->first[out->n] = nid;
    /* every processor must form the full combination of every piece */
    uint64_t all = e->nproc == 64 ? UINT64_MAX : (1ull << e->nproc) - 1;
    int ok = 1;
    for (uint32_t k = 0; k < K && ok; k++)
        for (uint32_t i = 0; i < e->nproc && ok; i++)
            ok = form(&held[(size_t) k * n + e->proc[i]]) == all;
    for (size_t i = 0; i < (size_t) K * n; i++)
        free(held[i].m);
    free(held);
    free(sent);
    free(bit);
    if (!ok) {
        free(out->ev);
        out->ev = NULL;
        sn_sched_ops_free(ops);
        return -1;
    }
    return 0;
}
