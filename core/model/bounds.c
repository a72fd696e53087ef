/* Lower bounds on the step count of every collective (core/model). Each bound is valid for every
 * algorithm under the given port model, and carries its source. This file holds the overview
 * below, the dispatch (sn_model_bounds), the cuts, meshes, fat trees, folded cubes and routed
 * collectives; bounds_flow.c the rooted flows of many packets (cuts, cut vertices, transmissions,
 * Bar-Noy and Kipnis), bounds_combining.c the combining collectives (bounds_internal.h). M below
 * is msgs * frags, the packets per (source, destination); P the processors, S the sources.
 *
 *  bcast   eccentricity e(root) (Dimakopoulos, thesis, section 3.2) plus pipelining: the last of M
 * packets leaves the root after ceil(M/sends per slot) slots and still has e-1 hops to go;
 * single-port: Theorem 3.3 (section 3.2.1; the remark that follows it, on d = e(v), is corrected
 * here). scatter single-port: the root sends one message per slot and the one to distance d needs
 * d-1 more slots; the best order (deepest first) gives max_d (M*R_d + d - 1), n-1 when every node
 * is a processor (Theorem 3.6). Multiport: ceil((P-1)M/deg(root)) (eq. 3.3), e(root). gather  the
 * same with the roles of sending and receiving exchanged. mnb     diameter; receptions: a processor
 * receives (|S|-1)M packets, at most deg (multiport, rx any) or 1 (rx one) per slot; single-port:
 * at most n transmissions per slot. te      the cut bound (4.1) over cuts found cheaply; the
 * distance bound (4.4) single-port (and its multiport analogue over 2|E| links, derived the same
 * way); sends and receptions per node.
 * sna/pmna (combining: one packet per target and (seq, frag) on a link, whatever it combines)
 *          every processor's contribution to each target leaves it in packets of its own (one
 * per target and (seq, frag)): (targets not itself) * M sends, at most deg (multiport) or 1
 * (single-port) per slot; the farthest contribution travels e(target) hops, its last packet leaving
 * after ceil(M/deg) slots; a target receives its M packets at most deg (or, rx one, 1) per slot.
 * For pmna on the folded cube the send bound is eq. (2) of Varvarigos, folded-cube paper (with
 * max(ceil(d/2), ceil((M-1)/(d+1))), and ceil(M/(d+1)) when some node is not a target). mna is
 * pmna with every processor a target.
 * allreduce/barrier every processor needs the contribution of the processor farthest from it:
 * the diameter D over processors, plus pipelining (the last of a processor's M contributions
 * leaves it after ceil(M/deg) slots, deg the largest degree; 1 single-port); single-port: the
 * nodes holding one contribution at most double per slot, ceil(log2 P).
 *
 * For many packets (docs/model.md, "Lower bounds for many packets"): bcast and scatter, and by
 * time reversal sna and gather with sends and receptions exchanged, get the rooted-flow bounds
 * (per processor with arrival offsets, cuts around the root with the travel after the last
 * crossing, cut vertices single-port and half duplex, transmissions, and single-port Bar-Noy and
 * Kipnis M - 1 + the one-packet bound); allreduce the one-way gossip count 2(P-1)M over the
 * transmissions a slot carries and per processor the spread of its last part, reduce_scatter the
 * count targets (P-1) M, both the loads of cut vertices; allreduce, mnb and te
 * half duplex a node's receptions and sends over its edges; the fat-tree theorems every M. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/model/bounds_internal.h"
#include "stepnet/model.h"
#include "stepnet/util.h"

/* k^e, saturating (fat-tree level sizes). */
uint64_t sn__bounds_upow(uint64_t k, uint32_t e)
{
    uint64_t r = 1;
    while (e-- > 0)
        r = (k != 0 && r > UINT64_MAX / k) ? UINT64_MAX : r * k;
    return r;
}

void sn__bounds_add(sn_bounds_t *b, const char *name, const char *source, int64_t value,
                    const char *fmt, ...)
{
    if (b->count == SN_BOUND_MAX)
        return;
    sn_bound_t *x = &b->b[b->count++];
    x->name = name;
    x->source = source;
    x->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->detail, sizeof x->detail, fmt, ap);
    va_end(ap);
    if (value > b->best)
        b->best = value;
}

/* ---- Theorem 3.3 ------------------------------------------------------------------------------
 */

/* sum_{j=0..k} C(T, j), saturating at 2^62. */
static uint64_t binom_prefix(uint64_t T, uint64_t k)
{
    const uint64_t cap = 1ull << 62;
    uint64_t c = 1, sum = 1; /* C(T, 0) */
    for (uint64_t j = 1; j <= k && j <= T; j++) {
        /* C(T, j) = C(T, j-1) * (T-j+1) / j, exact in 128 bits */
        unsigned __int128 x = (unsigned __int128) c * (T - j + 1) / j;
        c = x > cap ? cap : (uint64_t) x;
        sum += c;
        if (sum >= cap)
            return cap;
    }
    return sum;
}

int64_t sn_model_thm33(const uint64_t *counts, uint32_t ecc)
{
    int64_t best = 0;
    uint64_t R = 0;
    for (uint32_t d = ecc + 1; d-- > 0;) {
        R += counts[d]; /* R_d: nodes at distance >= d */
        /* T_d = min T >= d with sum_{l=d..T} C(T,l) = sum_{j=0..T-d} C(T,j) >= R_d */
        uint64_t T = d;
        while (binom_prefix(T, T - d) < R)
            T++;
        if ((int64_t) T > best)
            best = (int64_t) T;
    }
    return best;
}

/* Theorem 3.3 for a one-packet single-port broadcast from root. */
int64_t sn__bounds_thm33_of(const sn_topo_t *t, uint32_t root)
{
    uint32_t ecc = sn_topo_ecc(t, root, 1);
    uint64_t *counts = sn_xcalloc((size_t) ecc + 1, sizeof *counts);
    sn_topo_dds(t, root, 1, counts, ecc + 1);
    int64_t v = sn_model_thm33(counts, ecc);
    free(counts);
    return v;
}

/* A one-packet single-port broadcast bound from root: Theorem 3.3, and on a fat tree (the root a
 * leaf) Theorem 6.1's (k+1) h - 1 (Dimakopoulos, thesis, section 6.2.1). */
int64_t sn__bounds_one_packet_single(const sn_topo_t *t, uint32_t root)
{
    int64_t v = sn__bounds_thm33_of(t, root);
    if (t->kind == SN_TOPO_FATTREE && t->b >= 2 && (int64_t) ((t->a + 1) * t->b - 1) > v)
        v = (int64_t) ((t->a + 1) * t->b - 1);
    return v;
}

/* ---- cuts --------------------------------------------------------------------------------------
 */

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    const uint8_t *is_src; /* NULL = every processor */
    uint64_t M;
    int64_t best;
    char detail[96];
} cuts_t;

static void try_cut(void *ctx, const uint8_t *in, const char *what)
{
    cuts_t *c = ctx;
    const sn_topo_t *t = c->t;
    uint64_t p1 = 0, p2 = 0, s1 = 0, s2 = 0, C = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (!sn_topo_is_proc(t, u))
            continue;
        int src = c->is_src ? c->is_src[u] : 1;
        if (in[u]) {
            p1++;
            s1 += src;
        } else {
            p2++;
            s2 += src;
        }
    }
    for (uint32_t e = 0; e < t->nedges; e++)
        C += in[t->edges[e].a] != in[t->edges[e].b];
    if (C == 0 || p1 == 0 || p2 == 0)
        return;
    uint64_t t12 = s1 * p2 * c->M, t21 = s2 * p1 * c->M;
    int64_t v = c->p->pm.duplex == SN_DUPLEX_HALF ? (int64_t) sn_ceil_div(t12 + t21, C)
                                                  : (int64_t) sn_ceil_div(t12 > t21 ? t12 : t21, C);
    if (v > c->best) {
        c->best = v;
        snprintf(c->detail, sizeof c->detail, "%s: %llu|%llu processors, %llu links", what,
                 (unsigned long long) p1, (unsigned long long) p2, (unsigned long long) C);
    }
}

/* First half of the nodes in BFS order from src. */
static void bfs_half(const sn_topo_t *t, uint32_t src, uint8_t *in, uint32_t *dist, uint32_t *far)
{
    sn_topo_bfs(t, src, dist);
    /* stable "first n/2 by distance" via counting */
    uint32_t maxd = 0;
    for (uint32_t u = 0; u < t->n; u++)
        if (dist[u] > maxd)
            maxd = dist[u];
    uint64_t *cnt = sn_xcalloc((size_t) maxd + 2, sizeof *cnt);
    for (uint32_t u = 0; u < t->n; u++)
        cnt[dist[u]]++;
    uint64_t take = t->n / 2, acc = 0;
    uint32_t full = 0; /* distances < full are taken entirely */
    while (full <= maxd && acc + cnt[full] <= take)
        acc += cnt[full++];
    uint64_t partial = take - acc;
    for (uint32_t u = 0; u < t->n; u++) {
        if (dist[u] < full)
            in[u] = 1;
        else if (dist[u] == full && partial > 0) {
            in[u] = 1;
            partial--;
        } else
            in[u] = 0;
        if (far && dist[u] == maxd)
            *far = u;
    }
    free(cnt);
}

/* Tries the cheap cuts on t, each by try(ctx, in, what) with in[u] = 1 on one side. */
void sn__bounds_search_cuts(const sn_topo_t *t, void (*try)(void *, const uint8_t *, const char *),
                            void *c)
{
    uint8_t *in = sn_xmalloc(t->n);
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist);
    for (uint32_t u = 0; u < t->n; u++)
        in[u] = u < t->n / 2;
    try(c, in, "first half of the node ids");
    uint32_t far = 0;
    bfs_half(t, 0, in, dist, &far);
    try(c, in, "BFS half from node 0");
    bfs_half(t, far, in, dist, NULL);
    try(c, in, "BFS half from a farthest node");
    for (uint32_t i = 0; i < t->nfactors; i++) {
        const sn_topo_t *f = t->factors[i];
        uint8_t *fin = sn_xmalloc(f->n);
        uint32_t *fdist = sn_xmalloc((size_t) f->n * sizeof *fdist);
        char what[64];
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0)
                for (uint32_t x = 0; x < f->n; x++)
                    fin[x] = x < f->n / 2;
            else
                bfs_half(f, 0, fin, fdist, NULL);
            for (uint32_t u = 0; u < t->n; u++)
                in[u] = fin[sn_topo_coord(t, u, i)];
            snprintf(what, sizeof what, "halves of dimension %u (%s)", i + 1, f->spec);
            try(c, in, what);
        }
        free(fin);
        free(fdist);
    }
    if (t->kind == SN_TOPO_FATTREE) {
        /* the subtree of the first node of each level below the root */
        uint32_t k = t->a, h = t->b;
        for (uint32_t l = 0; l < h; l++) {
            for (uint32_t u = 0; u < t->n; u++) {
                uint32_t m, idx;
                sn_topo_fattree_pos(t, u, &m, &idx);
                in[u] = m <= l && idx < sn__bounds_upow(k, l - m);
            }
            char what[64];
            snprintf(what, sizeof what, "subtree of a level-%u node", l);
            try(c, in, what);
        }
    }
    free(in);
    free(dist);
}

/* ---- meshes and tori (Varvarigos and Bertsekas, d-dimensional meshes) ---------------------------
 * (3a)/(3b) and (4a)/(4b): the corner node 0...0 has 2d input links on a torus and d on an array
 * and must receive every other source's packet: T >= (M - 1) / (2d) or (M - 1) / d time units,
 * that is ceil((M - [0 is a source]) * msgs * frags / deg(0)) slots. (On a 2-sided torus the two
 * links of a dimension are one, so deg(0) is used, not 2d.) */
static void mesh_bounds(const sn_topo_t *t, const sn_params_t *p, uint64_t per, sn_bounds_t *out)
{
    int torus = t->kind == SN_TOPO_TORUS || t->kind == SN_TOPO_RING;
    if (!(torus || t->kind == SN_TOPO_MESH || t->kind == SN_TOPO_LINEAR))
        return;
    uint32_t d = t->nfactors ? t->nfactors : 1;
    const int partial = sn_coll_is_partial(p->coll);
    uint64_t S = t->nproc, zero_src = 1;
    if (partial) {
        S = p->nsources;
        zero_src = 0;
        for (uint32_t i = 0; i < p->nsources; i++)
            zero_src |= p->sources[i] == 0;
    }
    uint32_t deg = sn_topo_degree(t, 0);
    uint64_t in = (S - zero_src) * per;
    const char *name = partial ? (torus ? "(3a)" : "(3b)") : (torus ? "(4a)" : "(4b)");
    sn__bounds_add(
        out, name,
        partial
            ? "Varvarigos and Bertsekas, d-dimensional meshes, (3a)/(3b): the corner's input links"
            : "Varvarigos and Bertsekas, d-dimensional meshes, (4a)/(4b): the corner's input links",
        (int64_t) sn_ceil_div(in, deg), "%llu packets into node 0 over %u links (d = %u)",
        (unsigned long long) in, deg, d);
}

/* ---- per collective ----------------------------------------------------------------------------
 */

/* ---- fat trees (Dimakopoulos, thesis, chapter 6)
 * ------------------------------------------------- For fattree:K:H with H >= 2, one packet per
 * message and all leaves taking part. Single-port means every node, router or leaf, sends at most
 * one message per step (section 6.2); multiport bounds assume c_1 = 1 (section 6.3). */

/* Single-port total exchange: a level-l router transmits X_l messages, gets its first in step l,
 * and its last one still travels l - 1 hops (Fig. 6.8's analysis, with the root included: the
 * erratum of Theorem 6.6). */
/* Single-port with one reception per node, on a bipartite graph (classes X and Y): every
 * transmission crosses the classes, so X receives at most min(|X|, |Y|) packets a slot (one per
 * receiver, one per sender of Y). The broadcast collectives need dl_X deliveries into X's
 * processors: at least ceil(dl_X / min(|X|, |Y|)) slots. On a mesh with every side odd this is
 * (N + 1) M, where the reception and transmission bounds give (N - 1) M. 0 when t is not
 * bipartite (an edge between two nodes of equal distance parity from node 0) or not connected.
 * Derived for stepnet from the single-port model of the thesis (section 2.4). */
static int64_t bipartite_bound(const sn_topo_t *t, const uint8_t *is_src, uint64_t S, uint64_t M,
                               char *detail, size_t detail_len)
{
    uint32_t n = t->n;
    uint32_t *dist = sn_xmalloc((size_t) n * sizeof *dist);
    sn_topo_bfs(t, 0, dist);
    uint64_t size[2] = {0, 0}, dl[2] = {0, 0};
    int ok = 1;
    for (uint32_t u = 0; u < n && ok; u++) {
        if (dist[u] == UINT32_MAX) {
            ok = 0;
            break;
        }
        for (uint32_t q = 0; q < sn_topo_degree(t, u) && ok; q++)
            ok = (dist[sn_topo_port(t, u, q)->peer] ^ dist[u]) & 1;
        size[dist[u] & 1]++;
        if (sn_topo_is_proc(t, u))
            dl[dist[u] & 1] += (S - (is_src == NULL || is_src[u] ? 1 : 0)) * M;
    }
    free(dist);
    int64_t best = 0;
    uint64_t per = size[0] < size[1] ? size[0] : size[1];
    for (int c = 0; c < 2 && ok && per > 0; c++) {
        int64_t v = (int64_t) sn_ceil_div(dl[c], per);
        if (v > best) {
            best = v;
            snprintf(detail, detail_len,
                     "%llu deliveries into a class of %llu nodes, at most %llu a slot",
                     (unsigned long long) dl[c], (unsigned long long) size[c],
                     (unsigned long long) per);
        }
    }
    return best;
}

static uint64_t ft_te_load(uint64_t k, uint64_t n, uint32_t h, uint32_t l)
{
    uint64_t kl = sn__bounds_upow(k, l);
    if (l == h)
        return n * (n - n / k);
    return 2 * kl * (n - kl) + (k - 1) * kl * kl / k;
}

/* The hole bound of section 6.3.3.1 with the delay corrected (a message that crosses P links
 * arrives P - 1 steps after its first hop): every leaf receives n - 1 messages over one link, so
 * it has T - n + 1 holes, and for every level i, with P' = 2(h - i + 1) - 1,
 * n - n / k^i <= ceil((T - P') / P') (T - n + 1). The least such T. */
static int64_t ft_hole_bound(uint64_t k, uint64_t n, uint32_t h)
{
    for (uint64_t T = n - 1;; T++) {
        int ok = 1;
        for (uint32_t i = 1; i <= h && ok; i++) {
            uint64_t pp = 2 * (uint64_t) (h - i + 1) - 1;
            uint64_t periods = T > pp ? (T - pp + pp - 1) / pp : 0;
            ok = n - n / sn__bounds_upow(k, i) <= periods * (T - n + 1);
        }
        if (ok)
            return (int64_t) T;
    }
}

static void fattree_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out)
{
    const uint64_t k = t->a, n = t->nproc;
    const uint32_t h = t->b;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const uint64_t M = (uint64_t) p->msgs * p->frags;
    if (h < 2 || p->sources || (!single && t->caps[1] != 1))
        return;
    /* a leaf receives (n - 1) M packets over one link; nothing arrives in step 1, and for k = 2
     * the next nearest leaves are 4 hops away, so steps 2 and 3 bring at most min(2, M) packets,
     * those of the sibling (Theorem 6.2's hole argument, Theorem 6.9; n or n + 1 at M = 1) */
    const int64_t holes = (int64_t) ((n - 1) * M + 1 + (k == 2 && M == 1));
    switch (p->coll) {
    case SN_COLL_BCAST:
        if (single)
            sn__bounds_add(
                out, "thm6.1",
                "Dimakopoulos, thesis, section 6.2.1, Theorem 6.1; M - 1 + it for M packets "
                "(Bar-Noy "
                "and Kipnis 1994)",
                (int64_t) (M - 1 + (k + 1) * h - 1), "M - 1 + (k+1) h - 1, k = %llu, h = %u",
                (unsigned long long) k, h);
        break;
    case SN_COLL_SCATTER:
    case SN_COLL_GATHER:
        /* the root leaf's one link (multiport), or single-port its one send (scatter) and its
         * router's one send a slot to it (gather) */
        sn__bounds_add(out, "thm6.2", "Dimakopoulos, thesis, section 6.2.2, Theorem 6.2", holes,
                       "(n - 1) M + 1, + 1 if k = 2 and M = 1; n = %llu", (unsigned long long) n);
        break;
    case SN_COLL_MNB:
        if (single) {
            /* a level-i router transmits kn messages (knM packets) from step i on, and the last
             * one still needs B_r(i-1) = k (i-1) steps: knM + i + k (i-1), largest at i = h - 1 */
            int64_t best = 0;
            uint32_t at = 1;
            for (uint32_t i = 1; i < h; i++) {
                int64_t v = (int64_t) (k * n * M + i + k * (i - 1));
                if (v > best) {
                    best = v;
                    at = i;
                }
            }
            sn__bounds_add(out, "mnb-level", "Dimakopoulos, thesis, section 6.2.3, Theorem 6.3",
                           best, "a level-%u router sends knM = %llu packets", at,
                           (unsigned long long) (k * n * M));
        } else {
            sn__bounds_add(out, "thm6.9", "Dimakopoulos, thesis, section 6.3.2, Theorem 6.9", holes,
                           "(n - 1) M + 1, + 1 if k = 2 and M = 1; n = %llu",
                           (unsigned long long) n);
        }
        break;
    case SN_COLL_TE:
        if (single) {
            int64_t best = 0;
            uint32_t at = 1;
            for (uint32_t l = 1; l < h; l++) {
                int64_t v = (int64_t) (ft_te_load(k, n, h, l) * M) + 2 * (int64_t) l - 1;
                if (v > best) {
                    best = v;
                    at = l;
                }
            }
            sn__bounds_add(out, "te-level", "Dimakopoulos, thesis, section 6.2.4, Theorem 6.6",
                           best, "level %u: X_l M + 2l - 1, X_l = %llu", at,
                           (unsigned long long) ft_te_load(k, n, h, at));
            sn__bounds_add(
                out, "root-load",
                "Dimakopoulos, thesis, section 6.2.4 (the root's load; erratum of Theorem 6.6)",
                (int64_t) (ft_te_load(k, n, h, h) * M) + 2 * (int64_t) h - 1,
                "the root forwards n (n - n/k) = %llu messages, M packets each",
                (unsigned long long) ft_te_load(k, n, h, h));
        } else {
            /* (6.4) per level: k^(i-1) (n - k^(i-1)) messages cross each level-i branch upwards */
            int64_t best = 0;
            uint32_t at = 1;
            for (uint32_t i = 1; i <= h; i++) {
                uint64_t m = sn__bounds_upow(k, i - 1);
                int64_t v = (int64_t) (sn_ceil_div(m * (n - m) * M, t->caps[i]) + 2 * i - 1);
                if (v > best) {
                    best = v;
                    at = i;
                }
            }
            sn__bounds_add(out, "6.4-level", "Dimakopoulos, thesis, section 6.3.3, (6.4) per level",
                           best, "level-%u branches, c = %u", at, t->caps[at]);
            if (M == 1) /* derived for one packet per pair only */
                sn__bounds_add(
                    out, "hole",
                    "Dimakopoulos, thesis, section 6.3.3.1, (6.6) with the arrival delay corrected",
                    ft_hole_bound(k, n, h), "holes of every leaf, n = %llu",
                    (unsigned long long) n);
            sn__bounds_add(out, "te-mnb", "Dimakopoulos, thesis, section 6.3.3: TE >= MB", holes,
                           "(n - 1) M + 1, + 1 if k = 2 and M = 1");
        }
        break;
    default:
        break;
    }
}

/* ---- the folded cube (Varvarigos, folded-cube paper, Fig. 1) ----------------------------------
 * All-port bounds of FQ_d, N = 2^d, degree d+1, diameter ceil(d/2), with K = msgs * frags packets
 * per pair: SNB/SNA the diameter; MNB and SNS/SNG ceil((N-1)K/(d+1)) (a node receives, or the root
 * sends or receives, (N-1)K packets over d+1 links); PMNB/PMNA eq. (2), max(ceil(d/2),
 * ceil((M-1)K/(d+1))); total exchange eq. (7), K(2^(d-1) - C(d, ceil(d/2))/2), rounded up: it is
 * not an integer when C(d, ceil(d/2)) is odd (d = 3, 7, 15, ...), and no schedule takes half a
 * slot. The generic bounds above find the same values; these name the paper's. */
static void fcube_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t K)
{
    if (t->kind != SN_TOPO_FOLDEDCUBE || p->pm.ports != SN_PORTS_MULTI ||
        p->pm.duplex != SN_DUPLEX_FULL)
        return;
    uint32_t d = t->a;
    uint64_t N = 1ull << d, D = (d + 1) / 2;
    const char *src = "Varvarigos, folded-cube paper, Fig. 1";
    switch (p->coll) {
    case SN_COLL_BCAST:
    case SN_COLL_SNA:
        sn__bounds_add(out, "fcube-diameter", src, (int64_t) (D + sn_ceil_div(K, d + 1) - 1),
                       "ceil(d/2) = %llu", (unsigned long long) D);
        break;
    case SN_COLL_MNB:
    case SN_COLL_SCATTER:
    case SN_COLL_GATHER:
        sn__bounds_add(out, p->coll == SN_COLL_MNB ? "fcube-mnb" : "fcube-sns", src,
                       (int64_t) sn_ceil_div((N - 1) * K, d + 1), "(N-1)/(d+1) = %llu/%u",
                       (unsigned long long) (N - 1) * K, d + 1);
        break;
    case SN_COLL_PMNB:
    case SN_COLL_PMNA: {
        uint64_t v = sn_ceil_div((uint64_t) (p->nsources - 1) * K, d + 1);
        sn__bounds_add(out, "eq2", "Varvarigos, folded-cube paper, eq. (2)",
                       (int64_t) (v > D ? v : D), "max(ceil(d/2), ceil((M-1)/(d+1))), M = %u",
                       p->nsources);
        break;
    }
    case SN_COLL_TE: {
        /* C(d, ceil(d/2)) exactly: d <= 25 */
        uint64_t c = 1;
        for (uint64_t i = 1; i <= D; i++)
            c = c * (d - D + i) / i;
        uint64_t twice = K * (N - c); /* twice eq. (7) */
        sn__bounds_add(out, "eq7", "Varvarigos, folded-cube paper, eq. (7) (rounded up)",
                       (int64_t) sn_ceil_div(twice, 2),
                       "%llu x (2^(d-1) - C(d,ceil(d/2))/2) = %llu%s", (unsigned long long) K,
                       (unsigned long long) (twice / 2), twice % 2 ? ".5" : "");
        break;
    }
    default:
        break;
    }
}

/* Eq. (4): not a lower bound but the paper's upper bound on its PMNB (pmnb-fcube), beside eq. (2)
 * for comparison: ceil(M/(d+1)) + 2d - 1 packet slots and 4d t_p of prefix. */
double sn_model_fcube_eq4(uint32_t d, uint64_t M, double tp)
{
    return (double) (sn_ceil_div(M, d + 1) + 2ull * d - 1) + 4.0 * d * tp;
}

/* Broadcast: the root's eccentricity with pipelining, single-port Theorem 3.3, and the rooted-flow
 * bounds (node, cuts, cut vertices, transmissions, Bar-Noy and Kipnis). */
static void bcast_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    uint32_t root = p->root;
    uint32_t ecc = sn_topo_ecc(t, root, 1);
    uint64_t per = single ? 1 : sn_topo_degree(t, root);
    sn__bounds_add(out, "eccentricity",
                   "Dimakopoulos, thesis, section 3.2: B(v) >= e(v); pipelining M packets",
                   (int64_t) (sn_ceil_div(M, per) + ecc - 1), "e(root) = %u, %llu packets", ecc,
                   (unsigned long long) M);
    int64_t thm1 = 0;
    if (single) {
        thm1 = sn__bounds_thm33_of(t, root);
        sn__bounds_add(out, "thm3.3", "Dimakopoulos, thesis, section 3.2.1, Theorem 3.3", thm1,
                       "distance degree sequence of the root");
    }
    sn__bounds_flow(t, p, out, M, 0, 0, single ? sn__bounds_one_packet_single(t, root) : 0);
}

/* Scatter and gather: the root's port limit (Theorem 3.6 or eq. (3.3)) and its eccentricity. */
static void scatter_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    const uint64_t P = t->nproc;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const int rx_one = single && p->pm.rx == SN_RX_ONE;
    uint32_t root = p->root;
    uint32_t ecc = sn_topo_ecc(t, root, 1);
    /* the root's limit is on sends when it sends (scatter), on receptions when it receives
     * (gather) */
    int one_per_slot = sn__coll_senders(p->coll) == SN_COLL_GROUP_ROOT ? single : rx_one;
    if (one_per_slot) {
        uint64_t *counts = sn_xcalloc((size_t) ecc + 1, sizeof *counts);
        sn_topo_dds(t, root, 1, counts, ecc + 1);
        uint64_t R = 0;
        int64_t best = 0;
        for (uint32_t d = ecc; d >= 1; d--) {
            R += counts[d];
            int64_t v = (int64_t) (M * R + d - 1);
            if (v > best)
                best = v;
        }
        free(counts);
        sn__bounds_add(out, "root-port",
                       "Dimakopoulos, thesis, Theorem 3.6: one message per slot at the root", best,
                       "%llu messages, deepest first", (unsigned long long) ((P - 1) * M));
    } else {
        uint32_t deg = sn_topo_degree(t, root);
        sn__bounds_add(out, "degree", "Dimakopoulos, thesis, eq. (3.3)",
                       (int64_t) sn_ceil_div((P - 1) * M, deg), "%llu messages over %u links",
                       (unsigned long long) ((P - 1) * M), deg);
    }
    sn__bounds_add(out, "eccentricity",
                   "Dimakopoulos, thesis, section 3.2 (the farthest processor)", ecc,
                   "e(root) = %u", ecc);
    sn__bounds_flow(t, p, out, M, 1, sn__coll_senders(p->coll) != SN_COLL_GROUP_ROOT, 0);
}

/* The routed collectives (mnb, pmnb, te, pexchange): what they share. is_src is NULL when every
 * processor is a source; S is the number of sources. */
typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    const uint8_t *is_src;
    uint64_t S, M;
    int bcast, single, rx_one;
    uint64_t links; /* directed links that may carry a packet in a slot */
} routed_t;

/* The farthest source-to-processor distance. */
static void routed_diameter(const routed_t *r, sn_bounds_t *out)
{
    uint32_t far;
    if (r->is_src == NULL) {
        far = sn_topo_diameter(r->t, 1);
    } else {
        far = 0;
        for (uint32_t i = 0; i < r->p->nsources; i++) {
            uint32_t e = sn_topo_ecc(r->t, r->p->sources[i], 1);
            if (e > far)
                far = e;
        }
    }
    sn__bounds_add(out, "diameter", "Dimakopoulos, thesis, section 2.1: the farthest pair", far,
                   "farthest source-processor distance %u", far);
}

/* Receptions (and, personalised, sends) per processor. */
static void routed_node_limits(const routed_t *r, sn_bounds_t *out)
{
    const sn_topo_t *t = r->t;
    const uint64_t P = t->nproc, M = r->M;
    int64_t recv = 0, send = 0, half = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (!sn_topo_is_proc(t, u))
            continue;
        int src = r->is_src ? r->is_src[u] : 1;
        uint64_t deg = sn_topo_degree(t, u);
        uint64_t in = (r->S - (uint64_t) src) * M;
        int64_t v = (int64_t) (r->rx_one ? in : sn_ceil_div(in, deg));
        if (v > recv)
            recv = v;
        /* a source's own packets leave it: M sends (a broadcast), (P - 1) M (personalised) */
        uint64_t o = src ? (r->bcast ? M : (P - 1) * M) : 0;
        if (!r->bcast && src) {
            int64_t s = (int64_t) (r->single ? o : sn_ceil_div(o, deg));
            if (s > send)
                send = s;
        }
        /* half duplex: the receptions and sends share the node's edges */
        if (r->p->pm.duplex == SN_DUPLEX_HALF && deg > 0 &&
            (int64_t) sn_ceil_div(in + o, deg) > half)
            half = (int64_t) sn_ceil_div(in + o, deg);
    }
    if (half > 0)
        sn__bounds_add(
            out, "half-duplex",
            "a node's receptions and sends share its edges, one packet per edge and slot", half,
            "receptions and sends of a processor");
    sn__bounds_add(out, "receive",
                   r->rx_one ? "one reception per slot (Dimakopoulos, thesis, section 2.4)"
                             : "one packet per incoming link per slot",
                   recv, "%llu packets into a processor", (unsigned long long) ((r->S - 1) * M));
    if (!r->bcast)
        sn__bounds_add(out, "send",
                       r->single ? "one send per slot (Dimakopoulos, thesis, section 2.4)"
                                 : "one packet per outgoing link per slot",
                       send, "%llu packets out of a source", (unsigned long long) ((P - 1) * M));
}

/* Broadcasts: every delivery is one transmission; single-port one reception, the bipartite bound.
 */
static void routed_bcast_totals(const routed_t *r, sn_bounds_t *out)
{
    const sn_topo_t *t = r->t;
    uint64_t dl =
        r->S * (t->nproc - 1) * r->M; /* every delivery is one transmission into its node */
    uint64_t slots_per = r->single ? t->n : r->links;
    sn__bounds_add(out, "transmissions",
                   r->single ? "one send per node per slot" : "one packet per link per slot",
                   (int64_t) sn_ceil_div(dl, slots_per), "%llu deliveries",
                   (unsigned long long) dl);
    if (r->rx_one) {
        char detail[160];
        int64_t b = bipartite_bound(t, r->is_src, r->S, r->M, detail, sizeof detail);
        if (b > 0)
            sn__bounds_add(out, "bipartite",
                           "one send and one reception per node and slot (Dimakopoulos, thesis, "
                           "section 2.4), every link between the two colour classes",
                           b, "%s", detail);
    }
}

/* Personalised exchanges: the total distance still to travel (4.4), and multiport the cuts (4.1).
 */
static void routed_exchange_totals(const routed_t *r, sn_bounds_t *out)
{
    const sn_topo_t *t = r->t;
    uint64_t total = 0;
    if (r->is_src == NULL) {
        total = sn_topo_total_distance(t, 1);
    } else {
        for (uint32_t i = 0; i < r->p->nsources; i++)
            total += sn_topo_status(t, r->p->sources[i], 1);
    }
    total *= r->M;
    if (r->single)
        sn__bounds_add(out, "status",
                       "Dimakopoulos, thesis, section 4.1, (4.4): each send shortens the total "
                       "distance "
                       "by at most 1",
                       (int64_t) sn_ceil_div(total, t->n), "total distance %llu over %u nodes",
                       (unsigned long long) total, t->n);
    else
        sn__bounds_add(out, "distance", "(4.4) over links, derived the same way",
                       (int64_t) sn_ceil_div(total, r->links),
                       "total distance %llu over %llu links", (unsigned long long) total,
                       (unsigned long long) r->links);
    if (!r->single) {
        cuts_t c = {t, r->p, r->is_src, r->M, 0, ""};
        sn__bounds_search_cuts(t, try_cut, &c);
        if (c.best > 0)
            sn__bounds_add(out, "cut", "Dimakopoulos, thesis, section 4.1, (4.1)", c.best, "%s",
                           c.detail);
    }
}

/* mnb, pmnb, te and pexchange: mesh bounds (broadcasts), distances, node and link limits. */
static void routed_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    routed_t r = {t, p, NULL, t->nproc, M, sn_coll_is_broadcast(p->coll), 0, 0, 0};
    r.single = p->pm.ports == SN_PORTS_SINGLE;
    r.rx_one = r.single && p->pm.rx == SN_RX_ONE;
    r.links = p->pm.duplex == SN_DUPLEX_HALF ? t->nedges : 2ull * t->nedges;
    if (r.bcast)
        mesh_bounds(t, p, M, out);
    uint8_t *is_src = NULL;
    if (p->sources) {
        is_src = sn_xcalloc(t->n, 1);
        for (uint32_t i = 0; i < p->nsources; i++)
            is_src[p->sources[i]] = 1;
        r.S = p->nsources;
    }
    r.is_src = is_src;
    routed_diameter(&r, out);
    routed_node_limits(&r, out);
    if (r.bcast)
        routed_bcast_totals(&r, out);
    else
        routed_exchange_totals(&r, out);
    free(is_src);
}

typedef void (*coll_bounds_fn)(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out,
                               uint64_t M);

/* The bounds that hold for every algorithm follow from who sends to whom and how, which the list of
 * collectives says (core/coll/colls.def): broadcast or personalised with the root at one end,
 * routed between many processors, combined to some receivers, or combined with one contribution
 * for all (allreduce, barrier). NULL when nobody sends (dynbcast, whose rounds are pmnb's). */
static coll_bounds_fn bounds_of(sn_coll_t c)
{
    if (sn__coll_senders(c) == SN_COLL_GROUP_NONE)
        return NULL;
    if (sn_coll_is_combining(c))
        return sn__coll_is_uniform(c) ? sn__bounds_allreduce : sn__bounds_accum;
    if (sn__coll_is_rooted(c))
        return sn_coll_is_broadcast(c) ? bcast_bounds : scatter_bounds;
    return routed_bounds;
}

int sn_model_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, sn_err_t *err)
{
    (void) err;
    memset(out, 0, sizeof *out);
    const uint64_t M = (uint64_t) p->msgs * p->frags, P = t->nproc;
    if (P < 2)
        return 0;
    coll_bounds_fn general = bounds_of(p->coll);
    if (general != NULL)
        general(t, p, out, M);
    /* the papers' bounds for particular families, per collective they name */
    if (t->kind == SN_TOPO_FATTREE)
        fattree_bounds(t, p, out);
    fcube_bounds(t, p, out, M);
    return 0;
}
