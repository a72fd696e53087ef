/* Partial multinode broadcast on d-dimensional meshes and tori (core/algo): the on-line algorithms
 * of Varvarigos and Bertsekas, d-dimensional meshes (four variants of one schedule share this file,
 * which is why it is above the usual size): a rank computation by parallel prefix with
 * control packets (section 3, Fig. 2; engine/prefix.c), a packing of the packets onto the nodes
 * 0 .. M-1 by dimension-ordered greedy routing (section 3, Theorem 3), and a broadcast along one
 * dimension per subphase in back-to-back one-packet rounds (section 3, Lemma 1, Theorem 5):
 *   pmnb-mesh-split   section 3.1, Theorem 6, (7)/(8): d classes c, each 1/d of the packet, class
 *                     c using the rotated order <_c (algorithm A_c); on a torus each class is cut
 *                     again into two halves, one per ring direction (Lemma 1, Theorem 2);
 *   pmnb-mesh         section 3.2, (5b)/(6b): whole packets, class = rank mod d, a second prefix
 *                     ranks each class under its own order;
 *   pmnb-mesh-a0      section 3.1, Lemma 2: the single class A_0 (halves on a torus);
 *   mnb-mesh          section 3.2 with M = N: the multinode broadcast, no prefix (ranks known).
 * Every phase is a fixed number of ticks, and a tick is as many slots as fragments cross one link
 * in it, so the slot count is exact and depends on M only. Errata followed here: the rank counts
 * the sources up to the node (sum over t <= s, minus 1), the rotation of <_c is cyclic, packing is
 * Theorem 3's d(p-1) (not Theorem 4's 2d(p-1)), and the whole-packet ring round is
 * ceil((p-1)/2) (+ ceil, - floor hops), not ceil(p/2). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/prefix.h"
#include "stepnet/util.h"

typedef enum { V_SPLIT, V_NOSPLIT, V_A0, V_MNB } variant_t;

#define NONE     UINT32_MAX
#define FL_PACK  1u /* sn_packet_t.flags of a packing fragment */
#define FL_BCAST 2u /* of a broadcast fragment */
#define TAG_CLS_SH                                                                                 \
    25 /* packing tag: target | class << 25; broadcast: hops | dir << 16 | cls << 17 */

typedef struct plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    variant_t v;
    uint32_t d, side, n;  /* d dimensions of `side` nodes, n = side^d */
    int ring;             /* 1: wraparound links used (a torus with side >= 3) */
    uint32_t ncls, nh, k; /* classes, halves per item (2 on rings when split), pieces per half */
    uint32_t wp, wb;      /* slots per packing tick and per broadcast tick */
    uint32_t R, budget[2];
    uint64_t T0;     /* ticks of one prefix, 2d(side-1) */
    uint64_t prefix; /* control slots: 0, T0 or 2 T0 */
    uint64_t pack;   /* packing slots */
    uint32_t *port;  /* [n * d * 2]: the port of u in dimension i, direction + (0) or - (1) */
    uint32_t *pw;    /* side^i */
    uint32_t M;      /* sources, for the prediction only (the nodes learn M from the prefix) */
    int64_t predicted;
} plan_t;

typedef struct item_s {
    uint32_t src, key; /* packing: key = target node; broadcast: unused */
} item_t;

typedef struct list_s {
    item_t *v;
    uint32_t n, cap;
} list_t;

typedef struct fwd_s {
    uint32_t src, hops;
    int valid;
} fwd_t;

typedef struct node_s {
    const plan_t *pl;
    uint32_t u;
    uint32_t npre;
    sn_prefix_t *pre; /* split: d (class c); no-split: 1 + d (order <_0, then class c); a0: 1 */
    int is_src;
    uint64_t M, Msched;
    uint32_t cls;         /* no-split, mnb: this node's class */
    list_t *held, *known; /* [ncls] */
    uint32_t *snap;       /* [ncls]: known items at the start of the subphase */
    fwd_t *fwd, *next;    /* [ncls * 2] */
} node_t;

static void pmnb_mesh_list_push(list_t *l, uint32_t src, uint32_t key)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->v = sn_xrealloc(l->v, (size_t) l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (item_t){src, key};
}

static uint32_t digit(const plan_t *pl, uint32_t u, uint32_t i)
{
    return (u / pl->pw[i]) % pl->side;
}

/* The node whose rotated digits (class c) spell r: phi_c^{-1}(r). */
static uint32_t unrank(const plan_t *pl, uint32_t c, uint64_t r)
{
    uint32_t u = 0;
    for (uint32_t l = 0; l < pl->d; l++) {
        uint32_t dim = (l + c) % pl->d;
        u += (uint32_t) ((r / pl->pw[l]) % pl->side) * pl->pw[dim];
    }
    return u;
}

static uint32_t phi(const plan_t *pl, uint32_t c, uint32_t u)
{
    uint32_t r = 0;
    for (uint32_t l = 0; l < pl->d; l++)
        r += digit(pl, u, (l + c) % pl->d) * pl->pw[l];
    return r;
}

static uint32_t port_of(const plan_t *pl, uint32_t u, uint32_t dim, uint32_t dir)
{
    return pl->port[((size_t) u * pl->d + dim) * 2 + dir];
}

/* K_l = ceil(Msched / side^(d-l+1)), l = 1 .. d. */
static uint64_t K(const plan_t *pl, uint64_t Msched, uint32_t l)
{
    uint64_t div = 1;
    for (uint32_t i = 0; i < pl->d - l + 1; i++)
        div *= pl->side;
    return sn_ceil_div(Msched, div);
}

static uint64_t bcast_slots(const plan_t *pl, uint64_t Msched)
{
    uint64_t s = 0;
    for (uint32_t l = 1; l <= pl->d; l++)
        s += (uint64_t) pl->R * K(pl, Msched, l) * pl->wb;
    return s;
}

static uint64_t msched_of(const plan_t *pl, uint64_t M)
{
    return (pl->v == V_NOSPLIT || pl->v == V_MNB) ? sn_ceil_div(M, pl->d) : M;
}

/* ---- topology ------------------------------------------------------------------------------ */

/* d, side and whether t is a torus, for a mesh, torus, linear array or ring with equal sides. */
static int pmnb_mesh_shape(const sn_topo_t *t, uint32_t *d, uint32_t *side, int *torus,
                           const char *who, sn_err_t *err)
{
    if (t->kind == SN_TOPO_LINEAR || t->kind == SN_TOPO_RING) {
        *d = 1, *side = t->n, *torus = t->kind == SN_TOPO_RING;
    } else if ((t->kind == SN_TOPO_MESH || t->kind == SN_TOPO_TORUS) && t->nfactors >= 1) {
        *d = t->nfactors, *side = t->factors[0]->n, *torus = t->kind == SN_TOPO_TORUS;
        for (uint32_t i = 1; i < t->nfactors; i++)
            if (t->factors[i]->n != *side)
                return sn_err_set(err, SN_ENOTSUP,
                                  "%s needs a mesh or torus with equal sides (p x p x ... x p); "
                                  "%s has sides %u and %u",
                                  who, t->spec, *side, t->factors[i]->n);
    } else {
        return sn_err_set(err, SN_ENOTSUP,
                          "%s runs on d-dimensional meshes and tori (mesh:PxP, torus:PxPxP, "
                          "linear:P, ring:P), not on %s",
                          who, t->spec);
    }
    if (*side < 2)
        return sn_err_set(err, SN_ENOTSUP, "%s needs sides of at least 2, not %u", who, *side);
    if (*d > SN_PREFIX_MAX_LEVELS)
        return sn_err_set(err, SN_ENOTSUP, "%s supports at most %u dimensions", who,
                          SN_PREFIX_MAX_LEVELS);
    return 0;
}

static variant_t variant_of(const sn_algo_t *a);

static int applies_common(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p,
                          sn_err_t *err)
{
    uint32_t d = 0, side = 0;
    int torus = 0, rc;
    if ((rc = pmnb_mesh_shape(t, &d, &side, &torus, a->name, err)))
        return rc;
    if (p->msgs != 1)
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_MSGS,
                                "%s sends one message per source, not %u", a->name, p->msgs);
    variant_t v = variant_of(a);
    uint32_t nh = (v == V_SPLIT || v == V_A0) && torus && side >= 3 ? 2 : 1;
    uint32_t unit = v == V_SPLIT ? d * nh : nh;
    if (p->frags % unit)
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_FRAGS,
                                "%s cuts every packet into %u pieces (%s) on %s: fragments per "
                                "message must be a multiple of %u, not %u",
                                a->name, unit,
                                v == V_SPLIT
                                    ? (nh == 2 ? "d classes, two halves each" : "d classes")
                                    : "two halves, one per ring direction",
                                t->spec, unit, p->frags);
    if (v != V_MNB && p->sources == NULL)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_SOURCES, "%s needs its sources", a->name);
    return 0;
}

/* ---- plan ---------------------------------------------------------------------------------- */

static int pmnb_mesh_plan_new(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p,
                              void **out, sn_err_t *err)
{
    int rc;
    if ((rc = applies_common(a, t, p, err)))
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    int torus = 0;
    pmnb_mesh_shape(t, &pl->d, &pl->side, &torus, a->name, NULL);
    pl->t = t, pl->p = p, pl->v = variant_of(a), pl->n = t->n;
    pl->ring = torus && pl->side >= 3;
    pl->pw = sn_xmalloc((size_t) (pl->d + 1) * sizeof *pl->pw);
    pl->pw[0] = 1;
    for (uint32_t i = 1; i <= pl->d; i++)
        pl->pw[i] = pl->pw[i - 1] * pl->side;
    uint32_t d = pl->d, sd = pl->side;
    pl->ncls = pl->v == V_A0 ? 1 : d;
    pl->nh = (pl->v == V_SPLIT || pl->v == V_A0) && pl->ring ? 2 : 1;
    pl->k = p->frags / (pl->v == V_SPLIT ? d * pl->nh : pl->nh);
    pl->wp = pl->nh * pl->k;
    pl->wb = pl->k;
    if (pl->ring && pl->nh == 1) { /* whole packets on a ring: both ways, ceil and floor hops */
        pl->R = sd / 2;            /* ceil((p-1)/2) */
        pl->budget[0] = sd / 2, pl->budget[1] = (sd - 1) / 2;
    } else {
        pl->R = sd - 1;
        pl->budget[0] = pl->budget[1] = sd - 1;
    }
    pl->T0 = 2ull * d * (sd - 1);
    pl->prefix = pl->v == V_MNB ? 0 : pl->v == V_NOSPLIT ? 2 * pl->T0 : pl->T0;
    pl->pack = (uint64_t) (sd - 1) * d * pl->wp;
    /* ports by dimension and direction */
    pl->port = sn_xmalloc((size_t) t->n * d * 2 * sizeof *pl->port);
    for (size_t i = 0; i < (size_t) t->n * d * 2; i++)
        pl->port[i] = NONE;
    for (uint32_t u = 0; u < t->n; u++) {
        for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
            uint32_t f = sn_topo_port_factor(t, u, q), dim = d - 1 - f;
            uint32_t peer = sn_topo_port(t, u, q)->peer;
            uint32_t uc = digit(pl, u, dim), pc = digit(pl, peer, dim);
            int plus = pl->ring ? pc == (uc + 1) % sd : pc == uc + 1;
            int minus = pl->ring ? pc == (uc + sd - 1) % sd : pc + 1 == uc;
            uint32_t *slot = &pl->port[((size_t) u * d + dim) * 2];
            if (plus && slot[0] == NONE)
                slot[0] = q;
            else if (minus && slot[1] == NONE)
                slot[1] = q;
        }
    }
    pl->M = pl->v == V_MNB ? t->n : p->nsources;
    pl->predicted = (int64_t) (pl->prefix + pl->pack + bcast_slots(pl, msched_of(pl, pl->M)));
    *out = pl;
    return 0;
}

static void pmnb_mesh_plan_free(void *vp)
{
    plan_t *pl = vp;
    if (pl == NULL)
        return;
    free(pl->port);
    free(pl->pw);
    free(pl);
}

static int64_t pmnb_mesh_predicted(const void *vp)
{
    return ((const plan_t *) vp)->predicted;
}

/* The prefixes' slots carry control packets only: 0, T0 or 2 T0 of the predicted steps. */
static int64_t pmnb_mesh_predicted_control(const void *vp)
{
    return (int64_t) ((const plan_t *) vp)->prefix;
}

/* ---- node ---------------------------------------------------------------------------------- */

/* Prefix over the class-c rotated order: level j is dimension (j + c) mod d. */
static void pmnb_mesh_prefix_init(const plan_t *pl, uint32_t u, uint32_t c, sn_prefix_t *s,
                                  uint32_t x)
{
    uint32_t len[SN_PREFIX_MAX_LEVELS], dg[SN_PREFIX_MAX_LEVELS], nx[SN_PREFIX_MAX_LEVELS],
        pv[SN_PREFIX_MAX_LEVELS];
    for (uint32_t j = 0; j < pl->d; j++) {
        uint32_t dim = (j + c) % pl->d;
        len[j] = pl->side;
        dg[j] = digit(pl, u, dim);
        nx[j] = port_of(pl, u, dim, 0);
        pv[j] = port_of(pl, u, dim, 1);
    }
    sn__prefix_init(s, pl->d, len, dg, nx, pv, x);
}

static int pmnb_mesh_node_init(const void *vp, uint32_t u, void *st, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = vp;
    node_t *s = st;
    s->pl = pl, s->u = u;
    if (pl->v == V_MNB) {
        s->is_src = 1;
    } else {
        for (uint32_t i = 0; i < pl->p->nsources; i++)
            if (pl->p->sources[i] == u)
                s->is_src = 1;
    }
    s->npre = pl->v == V_MNB ? 0 : pl->v == V_NOSPLIT ? 1 + pl->d : pl->v == V_SPLIT ? pl->d : 1;
    if (s->npre)
        s->pre = sn_xcalloc(s->npre, sizeof *s->pre);
    if (pl->v == V_SPLIT)
        for (uint32_t c = 0; c < pl->d; c++)
            pmnb_mesh_prefix_init(pl, u, c, &s->pre[c], (uint32_t) s->is_src);
    else if (pl->v != V_MNB)
        pmnb_mesh_prefix_init(pl, u, 0, &s->pre[0], (uint32_t) s->is_src);
    s->held = sn_xcalloc(pl->ncls, sizeof *s->held);
    s->known = sn_xcalloc(pl->ncls, sizeof *s->known);
    s->snap = sn_xcalloc(pl->ncls, sizeof *s->snap);
    s->fwd = sn_xcalloc((size_t) pl->ncls * 2, sizeof *s->fwd);
    s->next = sn_xcalloc((size_t) pl->ncls * 2, sizeof *s->next);
    return 0;
}

static void pmnb_mesh_node_fini(void *st)
{
    node_t *s = st;
    if (s->pl == NULL)
        return;
    for (uint32_t c = 0; c < s->pl->ncls; c++) {
        free(s->held[c].v);
        free(s->known[c].v);
    }
    free(s->held);
    free(s->known);
    free(s->snap);
    free(s->fwd);
    free(s->next);
    free(s->pre);
}

/* Runs prefix instance i at its tick (engine/prefix.c). */
static int pmnb_mesh_run_prefix(node_t *s, uint32_t i, uint64_t tick, sn_step_t *io, sn_err_t *err)
{
    return sn__prefix_step(&s->pre[i], i, tick, s->pl->t, s->u, io, err);
}

/* Rank of u among the nodes of class u mod d under <_c (the multinode broadcast knows its ranks).
 */
static uint64_t mnb_class_rank(const plan_t *pl, uint32_t u)
{
    uint32_t c = u % pl->d, me = phi(pl, c, u);
    uint64_t r = 0;
    for (uint32_t t = c; t < pl->n; t += pl->d)
        r += phi(pl, c, t) < me;
    return r;
}

/* After the prefixes: M, the classes, and this node's packets at their packing targets' way. */
static int setup_packing(node_t *s, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    for (uint32_t i = 0; i < s->npre; i++)
        if (!s->pre[i].done)
            return sn_err_set(err, SN_EALGO, "node %u: prefix %u gave no rank", s->u, i);
    s->M = pl->v == V_MNB ? pl->n : s->pre[0].total;
    s->Msched = msched_of(pl, s->M);
    if (!s->is_src)
        return 0;
    switch (pl->v) {
    case V_SPLIT:
        for (uint32_t c = 0; c < pl->d; c++)
            pmnb_mesh_list_push(&s->held[c], s->u, unrank(pl, c, s->pre[c].rank));
        break;
    case V_A0:
        pmnb_mesh_list_push(&s->held[0], s->u, unrank(pl, 0, s->pre[0].rank));
        break;
    case V_NOSPLIT:
        pmnb_mesh_list_push(&s->held[s->cls], s->u, unrank(pl, s->cls, s->pre[1 + s->cls].rank));
        break;
    case V_MNB:
        s->cls = s->u % pl->d;
        pmnb_mesh_list_push(&s->held[s->cls], s->u, unrank(pl, s->cls, mnb_class_rank(pl, s->u)));
        break;
    }
    return 0;
}

static uint32_t frag_base(const plan_t *pl, uint32_t c)
{
    return pl->v == V_SPLIT ? c * pl->nh * pl->k : 0;
}

static int pmnb_mesh_on_data(node_t *s, const sn_msg_t *m, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    const sn_packet_t *k = &m->pkt;
    if (k->flags == FL_PACK) {
        uint32_t target = k->tag & ((1u << TAG_CLS_SH) - 1), c = k->tag >> TAG_CLS_SH;
        if (c >= pl->ncls)
            return sn_err_set(err, SN_EALGO, "node %u: packing fragment of class %u", s->u, c);
        if (target == s->u && k->src != s->u)
            sn_step_deliver(io, k);
        if (k->frag - frag_base(pl, c) == pl->wp - 1)
            pmnb_mesh_list_push(&s->held[c], k->src, target);
        return 0;
    }
    if (k->flags != FL_BCAST)
        return sn_err_set(err, SN_EALGO, "node %u: data packet with flags %u", s->u, k->flags);
    uint32_t hops = k->tag & 0xffffu, dir = (k->tag >> 16) & 1u, c = k->tag >> 17;
    if (c >= pl->ncls)
        return sn_err_set(err, SN_EALGO, "node %u: broadcast fragment of class %u", s->u, c);
    if (k->src != s->u)
        sn_step_deliver(io, k);
    uint32_t q = k->frag - frag_base(pl, c) - (pl->nh == 2 ? dir * pl->k : 0);
    if (q == pl->k - 1) {
        s->next[c * 2 + dir] = (fwd_t){k->src, hops, 1};
        if (pl->nh == 1 || dir == 0)
            pmnb_mesh_list_push(&s->known[c], k->src, 0);
    }
    return 0;
}

static void send_frag(node_t *s, sn_step_t *io, uint32_t port, uint32_t src, uint32_t frag,
                      uint8_t flags, uint32_t tag)
{
    sn_packet_t k = sn_packet_data(s->pl->p, src, SN_NODE_ALL, 0, frag);
    k.flags = flags;
    k.tag = tag;
    sn_step_send(io, port, &k);
}

/* Packing tick tau (1 .. (p-1)d), sub-slot f: block j corrects digit (j + c) mod d of class c. */
static int pack_slot(node_t *s, uint64_t tau, uint32_t f, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    uint32_t j = (uint32_t) ((tau - 1) / (pl->side - 1));
    for (uint32_t c = 0; c < pl->ncls; c++) {
        uint32_t dim = (j + c) % pl->d, mine = digit(pl, s->u, dim);
        list_t *h = &s->held[c];
        for (uint32_t i = 0; i < h->n;) {
            uint32_t want = digit(pl, h->v[i].key, dim);
            if (want == mine) {
                i++;
                continue;
            }
            uint32_t port = port_of(pl, s->u, dim, want > mine ? 0 : 1);
            if (port == NONE)
                return sn_err_set(err, SN_EALGO, "node %u: no link towards %u", s->u, h->v[i].key);
            send_frag(s, io, port, h->v[i].src, frag_base(pl, c) + f, FL_PACK,
                      h->v[i].key | c << TAG_CLS_SH);
            if (f == pl->wp - 1)
                h->v[i] = h->v[--h->n];
            else
                i++;
        }
    }
    return 0;
}

/* Broadcast subphase l (1 .. d), tick t (1 .. R K_l), sub-slot q. */
static int bcast_slot(node_t *s, uint32_t l, uint64_t t, uint32_t q, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    uint64_t r = (t - 1) / pl->R, o = (t - 1) % pl->R;
    for (uint32_t c = 0; c < pl->ncls; c++) {
        uint32_t dim = (pl->d - l + c) % pl->d;
        if (t == 1 && q == 0) {
            s->snap[c] = s->known[c].n;
            if (s->snap[c] > K(pl, s->Msched, l))
                return sn_err_set(err, SN_EALGO,
                                  "node %u holds %u class-%u packets at subphase %u, more than "
                                  "K = %llu",
                                  s->u, s->snap[c], c, l, (unsigned long long) K(pl, s->Msched, l));
        }
        for (uint32_t dir = 0; dir < 2; dir++) {
            uint32_t port = port_of(pl, s->u, dim, dir);
            if (port == NONE)
                continue;
            uint32_t frag = frag_base(pl, c) + (pl->nh == 2 ? dir * pl->k : 0) + q;
            fwd_t *fw = &s->fwd[c * 2 + dir];
            if (o == 0) {
                if (r < s->snap[c])
                    send_frag(s, io, port, s->known[c].v[r].src, frag, FL_BCAST,
                              1u | dir << 16 | c << 17);
            } else if (fw->valid && fw->hops < pl->budget[dir]) {
                send_frag(s, io, port, fw->src, frag, FL_BCAST,
                          (fw->hops + 1) | dir << 16 | c << 17);
            }
        }
    }
    return 0;
}

static int pmnb_mesh_node_step(void *st, sn_step_t *io, sn_err_t *err)
{
    node_t *s = st;
    const plan_t *pl = s->pl;
    uint64_t slot = io->slot;
    int rc;
    for (size_t i = 0; i < io->nrx; i++)
        if (io->rx[i].pkt.kind == SN_PKT_DATA && (rc = pmnb_mesh_on_data(s, &io->rx[i], io, err)))
            return rc;
    /* ---- phase 1: the prefixes (control slots 1 .. prefix, results at prefix + 1) ---- */
    if (pl->v == V_NOSPLIT) {
        if (slot <= pl->T0 + 1 && (rc = pmnb_mesh_run_prefix(s, 0, slot, io, err)))
            return rc;
        if (slot == pl->T0 + 1) {
            if (!s->pre[0].done)
                return sn_err_set(err, SN_EALGO, "node %u: no rank after the first prefix", s->u);
            s->cls = (uint32_t) (s->pre[0].rank % pl->d);
            for (uint32_t c = 0; c < pl->d; c++)
                pmnb_mesh_prefix_init(pl, s->u, c, &s->pre[1 + c], s->is_src && s->cls == c);
        }
        if (slot > pl->T0 && slot <= 2 * pl->T0 + 1)
            for (uint32_t c = 0; c < pl->d; c++)
                if ((rc = pmnb_mesh_run_prefix(s, 1 + c, slot - pl->T0, io, err)))
                    return rc;
    } else {
        for (uint32_t i = 0; i < s->npre && slot <= pl->T0 + 1; i++)
            if ((rc = pmnb_mesh_run_prefix(s, i, slot, io, err)))
                return rc;
    }
    if (slot == pl->prefix + 1 && (rc = setup_packing(s, err)))
        return rc;
    uint64_t end = pl->prefix + pl->pack + (s->M ? bcast_slots(pl, s->Msched) : 0);
    if (slot > pl->prefix && slot <= end) {
        uint64_t ps = slot - pl->prefix - 1;
        if (ps < pl->pack) {
            /* ---- phase 2: packing ---- */
            if ((rc = pack_slot(s, ps / pl->wp + 1, (uint32_t) (ps % pl->wp), io, err)))
                return rc;
        } else {
            /* ---- phase 3: broadcast, subphase by subphase ---- */
            uint64_t bs = ps - pl->pack;
            uint32_t l = 1;
            for (;; l++) {
                uint64_t len = (uint64_t) pl->R * K(pl, s->Msched, l) * pl->wb;
                if (bs < len)
                    break;
                bs -= len;
            }
            uint64_t t = bs / pl->wb + 1;
            uint32_t q = (uint32_t) (bs % pl->wb);
            if (q == 0) {
                if (t == 1) {
                    if (l == 1)
                        for (uint32_t c = 0; c < pl->ncls; c++) {
                            /* packing is over: what a node holds is packed here */
                            for (uint32_t i = 0; i < s->held[c].n; i++) {
                                if (s->held[c].v[i].key != s->u)
                                    return sn_err_set(err, SN_EALGO,
                                                      "node %u still holds a packet for %u", s->u,
                                                      s->held[c].v[i].key);
                                pmnb_mesh_list_push(&s->known[c], s->held[c].v[i].src, 0);
                            }
                            s->held[c].n = 0;
                        }
                    memset(s->next, 0, (size_t) pl->ncls * 2 * sizeof *s->next);
                }
                memcpy(s->fwd, s->next, (size_t) pl->ncls * 2 * sizeof *s->fwd);
                memset(s->next, 0, (size_t) pl->ncls * 2 * sizeof *s->next);
            }
            if ((rc = bcast_slot(s, l, t, q, io, err)))
                return rc;
        }
    }
    io->wake = slot < end || slot <= pl->prefix ? slot + 1 : SN_WAKE_NEVER;
    return 0;
}

/* ---- descriptors --------------------------------------------------------------------------- */

static int applies_split(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return applies_common(&sn__algo_pmnb_mesh_split, t, p, err);
}
static int applies_nosplit(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return applies_common(&sn__algo_pmnb_mesh_nosplit, t, p, err);
}
static int pmnb_mesh_applies_a0(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return applies_common(&sn__algo_pmnb_mesh_a0, t, p, err);
}
static int pmnb_mesh_applies_mnb(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return applies_common(&sn__algo_mnb_mesh, t, p, err);
}
static int plan_split(const sn_topo_t *t, const sn_params_t *p, void **pl, sn_err_t *err)
{
    return pmnb_mesh_plan_new(&sn__algo_pmnb_mesh_split, t, p, pl, err);
}
static int plan_nosplit(const sn_topo_t *t, const sn_params_t *p, void **pl, sn_err_t *err)
{
    return pmnb_mesh_plan_new(&sn__algo_pmnb_mesh_nosplit, t, p, pl, err);
}
static int plan_a0(const sn_topo_t *t, const sn_params_t *p, void **pl, sn_err_t *err)
{
    return pmnb_mesh_plan_new(&sn__algo_pmnb_mesh_a0, t, p, pl, err);
}
static int pmnb_mesh_plan_mnb(const sn_topo_t *t, const sn_params_t *p, void **pl, sn_err_t *err)
{
    return pmnb_mesh_plan_new(&sn__algo_mnb_mesh, t, p, pl, err);
}

static variant_t variant_of(const sn_algo_t *a)
{
    if (a == &sn__algo_pmnb_mesh_split)
        return V_SPLIT;
    if (a == &sn__algo_pmnb_mesh_nosplit)
        return V_NOSPLIT;
    if (a == &sn__algo_pmnb_mesh_a0)
        return V_A0;
    return V_MNB;
}

/* vs_generic: auto weighs their predictions against dry runs of the generic routers, which
 * predict nothing: measured, the off-line router is faster in slots at small M and these win at
 * large M with fragments (docs/reproduction.md). */
#define MESH_FIELDS                                                                                \
    .pm_mask = SN_PM_MULTI, .topos = "mesh, torus (equal sides), linear, ring",                    \
    .plan_free = pmnb_mesh_plan_free, .predicted = pmnb_mesh_predicted,                            \
    .predicted_control = pmnb_mesh_predicted_control, .state_size = sizeof(node_t),                \
    .node_init = pmnb_mesh_node_init, .node_fini = pmnb_mesh_node_fini,                            \
    .node_step = pmnb_mesh_node_step, .vs_generic = 1

const sn_algo_t sn__algo_pmnb_mesh_split = {
    .name = "pmnb-mesh-split",
    .coll = SN_COLL_PMNB,
    .summary = "prefix ranks (control packets), packing, broadcast by dimension; d classes of "
               "1/d (halves on tori), needs fragments a multiple of 2d (torus) or d (array)",
    .source = "Varvarigos and Bertsekas, d-dimensional meshes, section 3.1, Theorem 6, (7)/(8)",
    .predicts = "2d(p-1) control slots + d(p-1) packing ticks + (p-1) sum_l ceil(M/p^l) "
                "broadcast ticks, in fragment slots",
    .applies = applies_split,
    .plan_new = plan_split,
    MESH_FIELDS,
};

const sn_algo_t sn__algo_pmnb_mesh_nosplit = {
    .name = "pmnb-mesh",
    .coll = SN_COLL_PMNB,
    .summary = "prefix ranks, class = rank mod d, a second prefix per class, packing, broadcast "
               "by dimension with whole packets",
    .source = "Varvarigos and Bertsekas, d-dimensional meshes, section 3.2, (5b)/(6b)",
    .predicts = "4d(p-1) control slots + d(p-1) + ceil((p-1)/gamma) sum_l "
                "ceil(ceil(M/d)/p^l), times fragments",
    .applies = applies_nosplit,
    .plan_new = plan_nosplit,
    MESH_FIELDS,
};

const sn_algo_t sn__algo_pmnb_mesh_a0 = {
    .name = "pmnb-mesh-a0",
    .coll = SN_COLL_PMNB,
    .summary = "the single class A_0: prefix ranks, packing, broadcast by dimension (halves on "
               "tori, needs an even number of fragments there)",
    .source = "Varvarigos and Bertsekas, d-dimensional meshes, section 3.1, Lemma 1, Lemma 2",
    .predicts = "2d(p-1) control slots + d(p-1) packing ticks + (p-1) sum_l ceil(M/p^l) "
                "broadcast ticks, in fragment slots",
    .applies = pmnb_mesh_applies_a0,
    .plan_new = plan_a0,
    MESH_FIELDS,
};

const sn_algo_t sn__algo_mnb_mesh = {
    .name = "mnb-mesh",
    .coll = SN_COLL_MNB,
    .summary = "section 3.2 with M = N: class = id mod d, packing, broadcast by dimension with "
               "whole packets, no prefix",
    .source = "Varvarigos and Bertsekas, d-dimensional meshes, section 3.2 (M = N)",
    .predicts = "d(p-1) + ceil((p-1)/gamma) sum_l ceil(ceil(N/d)/p^l), times fragments",
    .applies = pmnb_mesh_applies_mnb,
    .plan_new = pmnb_mesh_plan_mnb,
    MESH_FIELDS,
};
