/* Lower bounds on the step count of every collective (core/model). Each bound is valid for every
 * algorithm under the given port model, and carries its source. M below is msgs * frags, the
 * packets per (source, destination); P the processors, S the sources.
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
 * way); sends and receptions per node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/model.h"
#include "stepnet/util.h"

/* k^e, saturating (fat-tree level sizes). */
static uint64_t upow(uint64_t k, uint32_t e)
{
    uint64_t r = 1;
    while (e-- > 0)
        r = (k != 0 && r > UINT64_MAX / k) ? UINT64_MAX : r * k;
    return r;
}

static void add(sn_bounds_t *b, const char *name, const char *source, int64_t value,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(sn_bounds_t *b, const char *name, const char *source, int64_t value,
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

static void try_cut(cuts_t *c, const uint8_t *in, const char *what)
{
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

static void search_cuts(cuts_t *c)
{
    const sn_topo_t *t = c->t;
    uint8_t *in = sn_xmalloc(t->n);
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist);
    for (uint32_t u = 0; u < t->n; u++)
        in[u] = u < t->n / 2;
    try_cut(c, in, "first half of the node ids");
    uint32_t far = 0;
    bfs_half(t, 0, in, dist, &far);
    try_cut(c, in, "BFS half from node 0");
    bfs_half(t, far, in, dist, NULL);
    try_cut(c, in, "BFS half from a farthest node");
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
            try_cut(c, in, what);
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
                in[u] = m <= l && idx < upow(k, l - m);
            }
            char what[64];
            snprintf(what, sizeof what, "subtree of a level-%u node", l);
            try_cut(c, in, what);
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
    uint64_t S = t->nproc, zero_src = 1;
    if (p->coll == SN_COLL_PMNB) {
        S = p->nsources;
        zero_src = 0;
        for (uint32_t i = 0; i < p->nsources; i++)
            zero_src |= p->sources[i] == 0;
    }
    uint32_t deg = sn_topo_degree(t, 0);
    uint64_t in = (S - zero_src) * per;
    const char *name =
        p->coll == SN_COLL_PMNB ? (torus ? "(3a)" : "(3b)") : (torus ? "(4a)" : "(4b)");
    add(out, name,
        p->coll == SN_COLL_PMNB
            ? "Varvarigos and Bertsekas, d-dimensional meshes, (3a)/(3b): the corner's input links"
            : "Varvarigos and Bertsekas, d-dimensional meshes, (4a)/(4b): the corner's input links",
        (int64_t) sn_ceil_div(in, deg), "%llu packets into node 0 over %u links (d = %u)",
        (unsigned long long) in, deg, d);
}

/* ---- per collective ----------------------------------------------------------------------------
 */

int sn_model_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, sn_err_t *err)
{
    (void) err;
    memset(out, 0, sizeof *out);
    const uint64_t M = (uint64_t) p->msgs * p->frags, P = t->nproc;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const int rx_one = single && p->pm.rx == SN_RX_ONE;
    const int half = p->pm.duplex == SN_DUPLEX_HALF;
    uint32_t root = p->root;
    if (P < 2)
        return 0;

    switch (p->coll) {
    case SN_COLL_BCAST: {
        uint32_t ecc = sn_topo_ecc(t, root, 1);
        uint64_t per = single ? 1 : sn_topo_degree(t, root);
        add(out, "eccentricity",
            "Dimakopoulos, thesis, section 3.2: B(v) >= e(v); pipelining M packets",
            (int64_t) (sn_ceil_div(M, per) + ecc - 1), "e(root) = %u, %llu packets", ecc,
            (unsigned long long) M);
        if (single) {
            uint64_t *counts = sn_xcalloc((size_t) ecc + 1, sizeof *counts);
            sn_topo_dds(t, root, 1, counts, ecc + 1);
            add(out, "thm3.3", "Dimakopoulos, thesis, section 3.2.1, Theorem 3.3",
                sn_model_thm33(counts, ecc), "distance degree sequence of the root");
            free(counts);
        }
        break;
    }
    case SN_COLL_SCATTER:
    case SN_COLL_GATHER: {
        uint32_t ecc = sn_topo_ecc(t, root, 1);
        /* the root's limit is on sends for scatter, on receptions for gather */
        int one_per_slot = p->coll == SN_COLL_SCATTER ? single : rx_one;
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
            add(out, "root-port",
                "Dimakopoulos, thesis, Theorem 3.6: one message per slot at the root", best,
                "%llu messages, deepest first", (unsigned long long) ((P - 1) * M));
        } else {
            uint32_t deg = sn_topo_degree(t, root);
            add(out, "degree", "Dimakopoulos, thesis, eq. (3.3)",
                (int64_t) sn_ceil_div((P - 1) * M, deg), "%llu messages over %u links",
                (unsigned long long) ((P - 1) * M), deg);
        }
        add(out, "eccentricity", "Dimakopoulos, thesis, section 3.2 (the farthest processor)", ecc,
            "e(root) = %u", ecc);
        break;
    }
    case SN_COLL_MNB:
    case SN_COLL_PMNB:
    case SN_COLL_TE:
    case SN_COLL_PEXCHANGE: {
        int bcast = sn_coll_is_broadcast(p->coll);
        if (bcast)
            mesh_bounds(t, p, M, out);
        uint8_t *is_src = NULL;
        uint64_t S = P;
        if (p->sources) {
            is_src = sn_xcalloc(t->n, 1);
            for (uint32_t i = 0; i < p->nsources; i++)
                is_src[p->sources[i]] = 1;
            S = p->nsources;
        }
        /* farthest source-to-processor distance */
        uint32_t far;
        if (is_src == NULL) {
            far = sn_topo_diameter(t, 1);
        } else {
            far = 0;
            for (uint32_t i = 0; i < p->nsources; i++) {
                uint32_t e = sn_topo_ecc(t, p->sources[i], 1);
                if (e > far)
                    far = e;
            }
        }
        add(out, "diameter", "Dimakopoulos, thesis, section 2.1: the farthest pair", far,
            "farthest source-processor distance %u", far);
        /* receptions (and, personalised, sends) per processor */
        int64_t recv = 0, send = 0;
        for (uint32_t u = 0; u < t->n; u++) {
            if (!sn_topo_is_proc(t, u))
                continue;
            int src = is_src ? is_src[u] : 1;
            uint64_t deg = sn_topo_degree(t, u);
            uint64_t in = (S - (uint64_t) src) * M;
            int64_t r = (int64_t) (rx_one ? in : sn_ceil_div(in, deg));
            if (r > recv)
                recv = r;
            if (!bcast && src) {
                uint64_t o = (P - 1) * M;
                int64_t s = (int64_t) (single ? o : sn_ceil_div(o, deg));
                if (s > send)
                    send = s;
            }
        }
        add(out, "receive",
            rx_one ? "one reception per slot (Dimakopoulos, thesis, section 2.4)"
                   : "one packet per incoming link per slot",
            recv, "%llu packets into a processor", (unsigned long long) ((S - 1) * M));
        if (!bcast)
            add(out, "send",
                single ? "one send per slot (Dimakopoulos, thesis, section 2.4)"
                       : "one packet per outgoing link per slot",
                send, "%llu packets out of a source", (unsigned long long) ((P - 1) * M));
        uint64_t links = half ? t->nedges : 2ull * t->nedges;
        if (bcast) {
            uint64_t dl = S * (P - 1) * M; /* every delivery is one transmission into its node */
            uint64_t slots_per = single ? t->n : links;
            add(out, "transmissions",
                single ? "one send per node per slot" : "one packet per link per slot",
                (int64_t) sn_ceil_div(dl, slots_per), "%llu deliveries", (unsigned long long) dl);
        } else {
            /* total distance still to travel */
            uint64_t total = 0;
            if (is_src == NULL) {
                total = sn_topo_total_distance(t, 1);
            } else {
                for (uint32_t i = 0; i < p->nsources; i++)
                    total += sn_topo_status(t, p->sources[i], 1);
            }
            total *= M;
            if (single)
                add(out, "status",
                    "Dimakopoulos, thesis, section 4.1, (4.4): each send shortens the total "
                    "distance "
                    "by at most 1",
                    (int64_t) sn_ceil_div(total, t->n), "total distance %llu over %u nodes",
                    (unsigned long long) total, t->n);
            else
                add(out, "distance", "(4.4) over links, derived the same way",
                    (int64_t) sn_ceil_div(total, links), "total distance %llu over %llu links",
                    (unsigned long long) total, (unsigned long long) links);
            if (!single) {
                cuts_t c = {t, p, is_src, M, 0, ""};
                search_cuts(&c);
                if (c.best > 0)
                    add(out, "cut", "Dimakopoulos, thesis, section 4.1, (4.1)", c.best, "%s",
                        c.detail);
            }
        }
        free(is_src);
        break;
    }
    default:
        break;
    }
    return 0;
}
