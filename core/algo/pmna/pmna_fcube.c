/* pmna-fcube: partial multinode accumulation on the folded cube FQ_d, the time reversal of the
 * folded-cube PMNB with copying replaced by combining (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 1 (PMNA, "the dual of the PMNB": packets for the
 * same destination combined on a link with an associative operator) and section 3 (the PMNB of
 * eq. (4): d+1 non-interfering hypercube copies, each a packing and a broadcast phase). The paper
 * gives no PMNA procedure; stepnet reverses every transmission of the PMNB round that the targets
 * would make as sources (sn__fcube_pmnb_round, engine/fcube_pmnb.c) in time and direction:
 *
 *   accumulation (the broadcast reversed, hypercube dimensions 0 .. d-1, phase j lasting
 *   ceil(ceil(M/(d+1))/2^(j+1)) slots): every node sends the partial it holds for a target over
 *   the link the broadcast reached it by, once the partials of the nodes it reached have arrived,
 *   and forgets it; the node where the target's packet was packed receives all N contributions;
 *   unpacking (the packing reversed, dimensions d-1 .. 0): the total travels back to the target.
 *
 * Each node knows the targets, so classes and positions are computed locally: no prefix, hence
 * no control slots (the paper charges 4d prefix steps to PMNB and PMNA alike). Every partial is one
 * packet per link, the copies use distinct links in every slot (Lemma 1), all-port. The count is
 * the PMNB round's, d + sum_k ceil(ceil(M/(d+1))/2^k) <= ceil(M/(d+1)) + 2d - 1, less the last
 * unpacking slots when no target moves in them; with msgs * frags values per target the rounds
 * follow each other. Combining order: the operators are commutative, so the order of the
 * contributions does not matter. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "core/algo/engine/fcube_pmnb.h"
#include "stepnet/util.h"

typedef struct {
    uint64_t slot;
    uint32_t node, port, tgt, k, deliver;
} ev_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t ntgt, npk;
    const uint32_t *tgt; /* p->sources */
    ev_t *ev;            /* sorted by (node, slot, port) */
    uint32_t *off;       /* [n+1] */
    uint64_t steps;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u, next;
    uint64_t *value; /* [ntgt * npk] */
    uint8_t *have;   /* [ntgt * npk] */
} state_t;

static int pmna_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__fcube_get(t, &d, "pmna-fcube", err);
}

static int pmna_fcube_cmp_ev(const void *a, const void *b)
{
    const ev_t *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->port > y->port) - (x->port < y->port);
}

static int pmna_fcube_applies_a0(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__a0_get(t, &d, "pmna-a0", err);
}

static int pmna_fcube_plan_build(const sn_topo_t *t, const sn_params_t *p, int a0, void **out,
                                 sn_err_t *err)
{
    uint32_t d;
    int rc = a0 ? sn__a0_get(t, &d, "pmna-a0", err) : sn__fcube_get(t, &d, "pmna-fcube", err);
    if (rc < 0)
        return rc;
    sn_fcraw_t *raw;
    size_t nraw;
    uint64_t T1;
    if ((rc = sn__fcube_pmnb_round(t, d, a0 ? 1 : d + 1, p->sources, p->nsources, &raw, &nraw, &T1,
                                   err)) < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->ntgt = p->nsources;
    pl->tgt = p->sources;
    pl->npk = p->msgs * p->frags;
    uint32_t *idx = sn_xmalloc((size_t) t->n * sizeof *idx);
    for (uint32_t i = 0; i < pl->ntgt; i++)
        idx[pl->tgt[i]] = i;
    /* the reversed transmission that completes a target's total is the reversal of the target's
     * first forward send (its first packing move, or, if its packet needs none, its first
     * broadcast): the one with the target as forward sender and the smallest forward slot */
    uint64_t *first = sn_xmalloc((size_t) pl->ntgt * sizeof *first);
    for (uint32_t i = 0; i < pl->ntgt; i++)
        first[i] = UINT64_MAX;
    for (size_t e = 0; e < nraw; e++) {
        uint32_t i = idx[raw[e].origin];
        if (raw[e].node == raw[e].origin && raw[e].slot < first[i])
            first[i] = raw[e].slot;
    }
    size_t nev = nraw * pl->npk;
    pl->ev = sn_xmalloc((nev ? nev : 1) * sizeof *pl->ev);
    size_t x = 0;
    for (uint32_t k = 0; k < pl->npk; k++)
        for (size_t e = 0; e < nraw; e++) {
            const sn_fcraw_t *r = &raw[e];
            uint32_t i = idx[r->origin];
            uint64_t slot = (uint64_t) k * T1 + T1 + 1 - r->slot;
            pl->ev[x++] =
                (ev_t){slot, r->to, r->port, i, k, r->node == r->origin && r->slot == first[i]};
            if (slot > pl->steps)
                pl->steps = slot;
        }
    free(first);
    free(idx);
    free(raw);
    qsort(pl->ev, nev, sizeof *pl->ev, pmna_fcube_cmp_ev);
    pl->off = sn_xcalloc((size_t) t->n + 1, sizeof *pl->off);
    for (size_t e = 0; e < nev; e++)
        pl->off[pl->ev[e].node + 1]++;
    for (uint32_t u = 0; u < t->n; u++)
        pl->off[u + 1] += pl->off[u];
    *out = pl;
    return 0;
}

static int pmna_fcube_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return pmna_fcube_plan_build(t, p, 0, out, err);
}

static int pmna_fcube_plan_new_a0(const sn_topo_t *t, const sn_params_t *p, void **out,
                                  sn_err_t *err)
{
    return pmna_fcube_plan_build(t, p, 1, out, err);
}

static void pmna_fcube_plan_free(void *plan)
{
    plan_t *pl = plan;
    free(pl->ev);
    free(pl->off);
    free(pl);
}

static int64_t pmna_fcube_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->steps;
}

static int pmna_fcube_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    size_t m = (size_t) pl->ntgt * pl->npk;
    s->pl = pl;
    s->u = node;
    s->next = pl->off[node];
    s->value = sn_xmalloc((m ? m : 1) * sizeof *s->value);
    s->have = sn_xmalloc(m ? m : 1);
    for (uint32_t i = 0; i < pl->ntgt; i++)
        for (uint32_t k = 0; k < pl->npk; k++) {
            size_t x = (size_t) i * pl->npk + k;
            s->value[x] =
                sn_contrib_value(pl->p, node, pl->tgt[i], k / pl->p->frags, k % pl->p->frags);
            s->have[x] = 1;
        }
    return 0;
}

static void pmna_fcube_node_fini(void *state)
{
    state_t *s = state;
    free(s->value);
    free(s->have);
}

static int pmna_fcube_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pk = &io->rx[r].pkt;
        int64_t i = sn_u32_index(pl->tgt, pl->ntgt, pk->dst);
        if (i < 0 || pk->src != SN_SRC_COMBINED || pk->seq >= p->msgs || pk->frag >= p->frags)
            return sn_err_set(err, SN_EALGO, "unexpected partial for node %u", pk->dst);
        size_t x = (size_t) i * pl->npk + pk->seq * p->frags + pk->frag;
        s->value[x] = s->have[x] ? sn_op_apply(p->op, s->value[x], pk->digest) : pk->digest;
        s->have[x] = 1;
        if (pk->flags & SN__FC_DELIVER) {
            sn_packet_t d = *pk;
            d.flags = 0;
            d.digest = s->value[x];
            sn_step_deliver(io, &d);
        }
    }
    uint32_t end = pl->off[s->u + 1];
    for (; s->next < end && pl->ev[s->next].slot == io->slot; s->next++) {
        const ev_t *e = &pl->ev[s->next];
        size_t x = (size_t) e->tgt * pl->npk + e->k;
        if (!s->have[x])
            return sn_err_set(err, SN_EALGO, "sends a partial for node %u it does not hold",
                              pl->tgt[e->tgt]);
        sn_packet_t pk =
            sn_packet_contrib(p, s->u, pl->tgt[e->tgt], e->k / p->frags, e->k % p->frags);
        pk.digest = s->value[x];
        pk.flags = e->deliver ? SN__FC_DELIVER : 0;
        s->have[x] = 0;
        sn_step_send(io, e->port, &pk);
    }
    if (s->next < end)
        io->wake = pl->ev[s->next].slot;
    return 0;
}

const sn_algo_t sn__algo_pmna_fcube = {
    .name = "pmna-fcube",
    .coll = SN_COLL_PMNA,
    .pm_mask = SN_PM_MULTI,
    .topos = "foldedcube",
    .summary = "the folded-cube PMNB reversed: accumulate over d+1 hypercube copies, then unpack",
    .source = "Varvarigos, folded-cube paper, sections 1 and 3, eq. (4) (the dual of the PMNB)",
    .predicts = "the PMNB round's slots, <= ceil(M/(d+1)) + 2d - 1, times msgs",
    .applies = pmna_fcube_applies,
    .plan_new = pmna_fcube_plan_new,
    .plan_free = pmna_fcube_plan_free,
    .predicted = pmna_fcube_predicted,
    .state_size = sizeof(state_t),
    .node_init = pmna_fcube_node_init,
    .node_fini = pmna_fcube_node_fini,
    .node_step = pmna_fcube_node_step,
};

/* The same with the hypercube algorithm A_0 alone (one copy, dimensions 0..d-1): one dimension per
 * slot, so each node sends and receives at most one packet per slot (single-port legal); its
 * packet slots are d + sum_k ceil(M/2^k) <= M + 2d - 1, eq. (3) without the prefix, less idle
 * trailing unpacking slots (all of them when every node is a target). */
const sn_algo_t sn__algo_pmna_a0 = {
    .name = "pmna-a0",
    .coll = SN_COLL_PMNA,
    .pm_mask = SN_PM_SINGLE, /* elsewhere pmna-fcube or pmna-tree do better */
    .topos = "hypercube, foldedcube",
    .summary = "the hypercube PMNB algorithm A_0 reversed: accumulate one dimension per slot, "
               "then unpack",
    .source = "Varvarigos, folded-cube paper, section 3, eq. (3) (A_0, reconstructed; its dual)",
    .predicts = "the A_0 round's slots, <= M + 2d - 1, times msgs",
    .applies = pmna_fcube_applies_a0,
    .plan_new = pmna_fcube_plan_new_a0,
    .plan_free = pmna_fcube_plan_free,
    .predicted = pmna_fcube_predicted,
    .state_size = sizeof(state_t),
    .node_init = pmna_fcube_node_init,
    .node_fini = pmna_fcube_node_fini,
    .node_step = pmna_fcube_node_step,
};
