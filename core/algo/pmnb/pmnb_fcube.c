/* pmnb-fcube: partial multinode broadcast on the folded cube FQ_d from an unknown source set, with
 * d+1 non-interfering copies of a hypercube PMNB algorithm (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 3, eq. (4), Lemma 1, Fig. 1. The nodes know only
 * whether they are sources; everything else is computed on line, per node:
 *
 *   class computation, control slots 1 .. 2d: a parallel prefix (engine/prefix.c, the tree of the
 *   meshes paper, one level per bit) over the ids of F_d with x_s = [s is a source] gives every
 *   source its rank r_s (0 .. M-1, the erratum: sources up to s, minus 1) and every node M; the
 *   class of a source is c_s = r_s mod (d+1), so no class holds more than Mbar = ceil(M/(d+1));
 *   class ranks, control slots 2d+1 .. 4d: d+1 prefixes at once, prefix c over the labels V_c(s)
 *   (Lemma 1) with x_s = [c_s = c], hypercube dimension k on F-dimension (d + c - k) mod (d+1):
 *   distinct over c in every slot, so the prefixes never share a link. Prefix c gives a class-c
 *   source its position among the class in V_c-label order;
 *   packing, slots 4d+1 .. 5d: slot j+1 moves every class-c packet whose holder's label differs
 *   from its position in bit j across copy c's dimension j (at most one packet per node and class
 *   after every slot: the packing lemma of A_0);
 *   broadcast, dimensions j = d-1 .. 0: phase j lasts L_j = ceil(Mbar/2^(j+1)) slots for every
 *   class (the copies stay in step); each node sends the class-c packets it held at the phase's
 *   start across copy c's dimension j, one per slot and class.
 *
 * The hypercube algorithm A_0 of the copies is only cited by the paper (prefix, packing,
 * broadcast, one dimension per step, eq. (3)); its packing and broadcast are reconstructed as in
 * mnb_fcube.c. Exactly 4d control slots (the paper's 4d t_p: two prefixes of 2d steps) and
 * d + sum_{k=1..d} ceil(Mbar/2^k) <= ceil(M/(d+1)) + 2d - 1 packet slots, whatever the sources'
 * positions: eq. (4) is ceil(M/(d+1)) + 2d + 4d t_p - 1. All-port: up to d+1 links per slot. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "core/algo/engine/fcube_pmnb.h"
#include "core/algo/engine/prefix.h"
#include "stepnet/util.h"

#define FL_PACK  1u /* sn_packet_t.flags of a packing move; tag = position | class << 24 */
#define FL_BCAST 2u /* of a broadcast; tag = class */
#define CLS_SH   24

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t d, n;
    uint64_t T0;       /* control slots of one prefix: 2d */
    int64_t predicted; /* from the number of sources, which the nodes learn by the prefix */
} plan_t;

typedef struct {
    uint32_t src, pos;
} item_t;

typedef struct {
    item_t *v;
    uint32_t n, cap;
} list_t;

typedef struct {
    const plan_t *pl;
    uint32_t u, cls;
    int is_src;
    uint64_t M, Mbar;
    uint32_t *lab, *port; /* [d+1]: V_c(u); [ (d+1) d ]: copy c's port for dimension k */
    sn_prefix_t *pre;     /* [d+2]: the class computation, then one prefix per class */
    list_t *held, *known; /* [d+1]: packets being packed; packets to broadcast */
    uint32_t *snap;       /* [d+1]: known packets at the start of the phase */
} node_t;

static void pmnb_fcube_list_push(list_t *l, uint32_t src, uint32_t pos)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->v = sn_xrealloc(l->v, (size_t) l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (item_t){src, pos};
}

/* Packet slots after the prefixes: d + sum_{k=1..d} ceil(Mbar/2^k) (sn__fcube_round_slots). */
static uint64_t data_slots(uint32_t d, uint64_t M)
{
    return M == 0 ? 0 : sn__fcube_round_slots(d, sn_ceil_div(M, d + 1));
}

static int pmnb_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint32_t d;
    int rc = sn__fcube_get(t, &d, "pmnb-fcube", err);
    if (rc < 0)
        return rc;
    if (d > SN_PREFIX_MAX_LEVELS)
        return sn_err_set(err, SN_ENOTSUP, "pmnb-fcube supports at most %u dimensions",
                          SN_PREFIX_MAX_LEVELS);
    if (p->msgs != 1)
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_MSGS,
                                "pmnb-fcube sends one message per source, not %u", p->msgs);
    if (p->frags != 1)
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_FRAGS,
                                "pmnb-fcube sends every message as one packet (no splitting), "
                                "not in %u fragments",
                                p->frags);
    if (p->sources == NULL)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_SOURCES, "pmnb-fcube needs its sources");
    return 0;
}

static int pmnb_fcube_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = pmnb_fcube_applies(t, p, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t, pl->p = p, pl->d = t->a, pl->n = t->n;
    pl->T0 = 2ull * pl->d;
    pl->predicted = (int64_t) (2 * pl->T0 + data_slots(pl->d, p->nsources));
    *out = pl;
    return 0;
}

static void pmnb_fcube_plan_free(void *vp)
{
    free(vp);
}

static int64_t pmnb_fcube_predicted(const void *vp)
{
    return ((const plan_t *) vp)->predicted;
}

/* The two prefixes' 4d slots carry control packets only. */
static int64_t pmnb_fcube_predicted_control(const void *vp)
{
    return (int64_t) (2 * ((const plan_t *) vp)->T0);
}

/* ---- node ---------------------------------------------------------------------------------- */

/* Prefix i over labels lab with level k on port[k] (len 2 per level: a hypercube). */
static void pmnb_fcube_prefix_init(const node_t *s, uint32_t i, uint32_t label,
                                   const uint32_t *port, uint32_t x)
{
    uint32_t d = s->pl->d, len[SN_PREFIX_MAX_LEVELS], dg[SN_PREFIX_MAX_LEVELS];
    for (uint32_t k = 0; k < d; k++) {
        len[k] = 2;
        dg[k] = (label >> k) & 1u;
    }
    sn__prefix_init(&s->pre[i], d, len, dg, port, port, x);
}

static int pmnb_fcube_node_init(const void *vp, uint32_t u, void *st, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = vp;
    node_t *s = st;
    uint32_t d = pl->d;
    memset(s, 0, sizeof *s);
    s->pl = pl, s->u = u;
    for (uint32_t i = 0; i < pl->p->nsources; i++)
        if (pl->p->sources[i] == u)
            s->is_src = 1;
    s->lab = sn_xmalloc((size_t) (d + 1) * sizeof *s->lab);
    s->port = sn_xmalloc((size_t) (d + 2) * d * sizeof *s->port);
    for (uint32_t c = 0; c <= d; c++) {
        s->lab[c] = sn__fcube_label(d, c, u);
        for (uint32_t k = 0; k < d; k++)
            s->port[c * d + k] = sn__fcube_fdim(d, c, k);
    }
    uint32_t *idp = s->port + (size_t) (d + 1) * d; /* the class computation: port k = bit k */
    for (uint32_t k = 0; k < d; k++)
        idp[k] = k;
    s->pre = sn_xcalloc((size_t) d + 2, sizeof *s->pre);
    pmnb_fcube_prefix_init(s, 0, u, idp, (uint32_t) s->is_src);
    s->held = sn_xcalloc((size_t) d + 1, sizeof *s->held);
    s->known = sn_xcalloc((size_t) d + 1, sizeof *s->known);
    s->snap = sn_xcalloc((size_t) d + 1, sizeof *s->snap);
    return 0;
}

static void pmnb_fcube_node_fini(void *st)
{
    node_t *s = st;
    if (s->pl == NULL)
        return;
    for (uint32_t c = 0; c <= s->pl->d; c++) {
        free(s->held[c].v);
        free(s->known[c].v);
    }
    free(s->held);
    free(s->known);
    free(s->snap);
    free(s->pre);
    free(s->lab);
    free(s->port);
}

/* Runs prefix instance i at its tick (engine/prefix.c). */
static int pmnb_fcube_run_prefix(node_t *s, uint32_t i, uint64_t tick, sn_step_t *io, sn_err_t *err)
{
    return sn__prefix_step(&s->pre[i], i, tick, s->pl->t, s->u, io, err);
}

static void send_data(node_t *s, sn_step_t *io, uint32_t port, uint32_t src, uint8_t flags,
                      uint32_t tag)
{
    sn_packet_t k = sn_packet_data(s->pl->p, src, SN_NODE_ALL, 0, 0);
    k.flags = flags;
    k.tag = tag;
    sn_step_send(io, port, &k);
}

static int pmnb_fcube_on_data(node_t *s, const sn_packet_t *k, sn_step_t *io, sn_err_t *err)
{
    uint32_t d = s->pl->d;
    if (k->flags == FL_PACK) {
        uint32_t pos = k->tag & ((1u << CLS_SH) - 1), c = k->tag >> CLS_SH;
        if (c > d)
            return sn_err_set(err, SN_EALGO, "node %u: packing move of class %u", s->u, c);
        if (s->lab[c] == pos && k->src != s->u)
            sn_step_deliver(io, k);
        pmnb_fcube_list_push(&s->held[c], k->src, pos);
        return 0;
    }
    if (k->flags != FL_BCAST || k->tag > d)
        return sn_err_set(err, SN_EALGO, "node %u: data packet with flags %u, tag %u", s->u,
                          k->flags, k->tag);
    if (k->src != s->u)
        sn_step_deliver(io, k);
    pmnb_fcube_list_push(&s->known[k->tag], k->src, 0);
    return 0;
}

/* Control slots 1 .. 2 T0 + 1: the class computation (prefix 0), then the d+1 class prefixes. */
static int pmnb_fcube_prefixes(node_t *s, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    uint32_t d = pl->d;
    uint64_t slot = io->slot, T0 = pl->T0;
    int rc;
    if (slot <= T0 + 1 && (rc = pmnb_fcube_run_prefix(s, 0, slot, io, err)))
        return rc;
    if (slot == T0 + 1) {
        if (!s->pre[0].done)
            return sn_err_set(err, SN_EALGO, "node %u: no rank after the class computation", s->u);
        s->M = s->pre[0].total;
        s->Mbar = sn_ceil_div(s->M, d + 1);
        s->cls = (uint32_t) (s->pre[0].rank % (d + 1));
        for (uint32_t c = 0; c <= d; c++)
            pmnb_fcube_prefix_init(s, 1 + c, s->lab[c], s->port + (size_t) c * d,
                                   s->is_src && s->cls == c);
    }
    if (slot > T0 && slot <= 2 * T0 + 1)
        for (uint32_t c = 0; c <= d; c++)
            if ((rc = pmnb_fcube_run_prefix(s, 1 + c, slot - T0, io, err)))
                return rc;
    return 0;
}

/* The first packet slot: every class prefix ended, a source's packet takes its position. */
static int pmnb_fcube_position(node_t *s, sn_err_t *err)
{
    uint32_t d = s->pl->d;
    for (uint32_t c = 0; c <= d; c++)
        if (!s->pre[1 + c].done || s->pre[1 + c].total > s->Mbar)
            return sn_err_set(err, SN_EALGO,
                              "node %u: class %u prefix: no position or %llu "
                              "packets, more than Mbar",
                              s->u, c, (unsigned long long) s->pre[1 + c].total);
    if (s->is_src) {
        uint64_t pos = s->pre[1 + s->cls].rank;
        if (pos >= s->Mbar)
            return sn_err_set(err, SN_EALGO, "node %u: position %llu in class %u, Mbar %llu", s->u,
                              (unsigned long long) pos, s->cls, (unsigned long long) s->Mbar);
        pmnb_fcube_list_push(&s->held[s->cls], s->u, (uint32_t) pos);
    }
    return 0;
}

/* Packing, dimension j: a packet whose label differs from its position in bit j crosses it. */
static int pmnb_fcube_pack(node_t *s, sn_step_t *io, uint32_t j, sn_err_t *err)
{
    uint32_t d = s->pl->d;
    for (uint32_t c = 0; c <= d; c++) {
        list_t *h = &s->held[c];
        if (h->n > 1)
            return sn_err_set(err, SN_EALGO, "node %u holds %u class-%u packets in packing", s->u,
                              h->n, c);
        if (h->n == 1 && (((s->lab[c] ^ h->v[0].pos) >> j) & 1u)) {
            send_data(s, io, s->port[c * d + j], h->v[0].src, FL_PACK, h->v[0].pos | c << CLS_SH);
            h->n = 0;
        }
    }
    return 0;
}

/* Broadcast slot bs after packing: phase j (d-1 down to 0) lasts ceil(Mbar/2^(j+1)) slots, in
 * which every node sends the packets of each class it held at the phase's start across j. */
static int pmnb_fcube_bcast(node_t *s, sn_step_t *io, uint64_t bs, sn_err_t *err)
{
    uint32_t d = s->pl->d;
    uint32_t j = d - 1;
    for (;; j--) {
        uint64_t len = sn_ceil_div(s->Mbar, 1ull << (j + 1));
        if (bs < len)
            break;
        bs -= len;
    }
    uint64_t len = sn_ceil_div(s->Mbar, 1ull << (j + 1));
    for (uint32_t c = 0; c <= d; c++) {
        if (bs == 0) {
            if (j == d - 1) { /* packing is over: what a node holds is packed here */
                list_t *h = &s->held[c];
                for (uint32_t i = 0; i < h->n; i++) {
                    if (h->v[i].pos != s->lab[c])
                        return sn_err_set(err, SN_EALGO,
                                          "node %u still holds a class-%u packet for "
                                          "position %u",
                                          s->u, c, h->v[i].pos);
                    pmnb_fcube_list_push(&s->known[c], h->v[i].src, 0);
                }
                h->n = 0;
            }
            s->snap[c] = s->known[c].n;
            if (s->snap[c] > len)
                return sn_err_set(err, SN_EALGO,
                                  "node %u holds %u class-%u packets for a phase of %llu "
                                  "slots",
                                  s->u, s->snap[c], c, (unsigned long long) len);
        }
        if (bs < s->snap[c])
            send_data(s, io, s->port[c * d + j], s->known[c].v[bs].src, FL_BCAST, c);
    }
    return 0;
}

static int pmnb_fcube_node_step(void *st, sn_step_t *io, sn_err_t *err)
{
    node_t *s = st;
    const plan_t *pl = s->pl;
    uint32_t d = pl->d;
    uint64_t slot = io->slot, T0 = pl->T0;
    int rc;
    for (size_t i = 0; i < io->nrx; i++)
        if (io->rx[i].pkt.kind == SN_PKT_DATA &&
            (rc = pmnb_fcube_on_data(s, &io->rx[i].pkt, io, err)))
            return rc;
    if ((rc = pmnb_fcube_prefixes(s, io, err)))
        return rc;
    uint64_t start = 2 * T0 + 1; /* the first packet slot */
    if (slot == start && (rc = pmnb_fcube_position(s, err)))
        return rc;
    uint64_t end = start - 1 + data_slots(d, s->M);
    if (slot >= start && slot <= end) {
        uint64_t ps = slot - start;
        rc = ps < d ? pmnb_fcube_pack(s, io, (uint32_t) ps, err)
                    : pmnb_fcube_bcast(s, io, ps - d, err);
        if (rc)
            return rc;
    }
    io->wake = slot < end || slot <= 2 * T0 ? slot + 1 : SN_WAKE_NEVER;
    return 0;
}

const sn_algo_t sn__algo_pmnb_fcube = {
    .name = "pmnb-fcube",
    .coll = SN_COLL_PMNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "foldedcube",
    .summary = "prefix ranks and classes (control packets), then d+1 hypercube copies: packing, "
               "broadcast one dimension at a time",
    .source = "Varvarigos, folded-cube paper, section 3, eq. (4), Lemma 1",
    .predicts = "4d control slots + d + sum_k ceil(ceil(M/(d+1))/2^k) packet slots "
                "(<= ceil(M/(d+1)) + 2d - 1)",
    .applies = pmnb_fcube_applies,
    .plan_new = pmnb_fcube_plan_new,
    .plan_free = pmnb_fcube_plan_free,
    .predicted = pmnb_fcube_predicted,
    .predicted_control = pmnb_fcube_predicted_control,
    .state_size = sizeof(node_t),
    .node_init = pmnb_fcube_node_init,
    .node_fini = pmnb_fcube_node_fini,
    .node_step = pmnb_fcube_node_step,
    /* vs_generic: auto weighs its prediction against a dry run of pmnb-route, which predicts
     * nothing; the 4d control slots count as whole slots in the step count, so at small M the
     * router (told the sources off-line) is faster (docs/reproduction.md) */
    .vs_generic = 1,
};
