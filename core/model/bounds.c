/* Lower bounds on the step count of every collective (core/model). Each bound is valid for every
 * algorithm under the given port model, and carries its source. One file for all of them, above
 * the usual size, so that `stepnet model` and the tests see every bound of a case in one place. M
 * below is msgs * frags, the packets per (source, destination); P the processors, S the sources.
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

/* Theorem 3.3 for a one-packet single-port broadcast from root. */
static int64_t thm33_of(const sn_topo_t *t, uint32_t root)
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
static int64_t one_packet_single(const sn_topo_t *t, uint32_t root)
{
    int64_t v = thm33_of(t, root);
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
static void search_cuts(const sn_topo_t *t, void (*try)(void *, const uint8_t *, const char *),
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
                in[u] = m <= l && idx < upow(k, l - m);
            }
            char what[64];
            snprintf(what, sizeof what, "subtree of a level-%u node", l);
            try(c, in, what);
        }
    }
    free(in);
    free(dist);
}

/* ---- rooted flows: broadcast, scatter and, time-reversed, reduce and gather -------------------
 * A broadcast (or scatter) schedule is a set of transmissions (arc, slot, packet) such that every
 * packet reaches every processor (scatter: its own processor) along arcs used at increasing
 * slots, each arc carrying one packet per slot. A reduce (or gather) schedule, its transmissions
 * on the paths from a contribution to the root kept and the others dropped, reversed in time, is
 * such a broadcast (scatter) schedule under the port model with sends and receptions exchanged;
 * so every bound below holds for sna and gather with send_one and recv_one exchanged. M is
 * msgs * frags. A node w holds no packet before the end of slot dist(root, w), so an arc out of w
 * carries nothing before slot dist(w) + 1. */
typedef struct {
    const sn_topo_t *t;
    uint32_t root;
    uint64_t M;
    int personal;   /* scatter or gather: each processor wants its own M packets */
    int send_one;   /* at most one send per node and slot (in the flow's direction) */
    int recv_one;   /* at most one reception per node and slot */
    int half;       /* half duplex: one packet per edge and slot, either way */
    int reversed;   /* a reduce or gather, seen backwards in time */
    uint32_t *dist; /* from the root */
    uint32_t *queue;
    uint8_t *seen; /* all zero between uses */
    /* the arcs of one cut, grouped by sender and by receiver (see cut_carry) */
    uint64_t *scap, *rcap;
    uint32_t *sdist, *rdist, *adist;
    size_t *rofs;
    size_t ns, nr, na;
} flow_t;

static uint64_t node_sends(const flow_t *f, uint32_t u)
{
    return f->send_one ? 1 : sn_topo_degree(f->t, u);
}

static uint64_t node_recvs(const flow_t *f, uint32_t u)
{
    return f->recv_one ? 1 : sn_topo_degree(f->t, u);
}

/* How many packets the cut's arcs can carry by the end of slot T: on the senders' side, node w of
 * S with a_w arcs out sends min(a_w, sends per slot) per slot from slot dist(w) + 1; on the
 * receivers' side, node x outside S takes at most its receptions per slot from slot dist(x) on,
 * and no more than its arcs in carry, each from its sender's first slot. The smaller of the two. */
static uint64_t cut_carry(const flow_t *f, uint64_t T)
{
    unsigned __int128 s = 0, r = 0;
    for (size_t i = 0; i < f->ns; i++)
        if (T > f->sdist[i])
            s += (unsigned __int128) f->scap[i] * (T - f->sdist[i]);
    for (size_t i = 0; i < f->nr; i++) {
        unsigned __int128 lim = 0, sum = 0;
        if (T + 1 > f->rdist[i])
            lim = (unsigned __int128) f->rcap[i] * (T + 1 - f->rdist[i]);
        for (size_t j = f->rofs[i]; j < f->rofs[i + 1]; j++)
            if (T > f->adist[j])
                sum += T - f->adist[j];
        r += sum < lim ? sum : lim;
    }
    unsigned __int128 v = s < r ? s : r;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t) v;
}

/* The first slot by which the cut's arcs can have carried D packets. */
static uint64_t cut_slots(const flow_t *f, uint64_t D, uint64_t maxdist)
{
    uint64_t lo = 1, hi = D + maxdist + 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (cut_carry(f, mid) >= D)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Groups the arcs from the nodes with in[] set to the others. Returns the largest distance seen. */
static uint32_t cut_group(flow_t *f, const uint8_t *in)
{
    const sn_topo_t *t = f->t;
    uint32_t maxd = 0;
    f->ns = f->nr = f->na = 0;
    for (uint32_t w = 0; w < t->n; w++) {
        if (!in[w])
            continue;
        uint64_t a = 0;
        for (uint32_t q = 0; q < sn_topo_degree(t, w); q++)
            a += !in[sn_topo_port(t, w, q)->peer];
        if (a == 0)
            continue;
        uint64_t c = node_sends(f, w);
        f->scap[f->ns] = a < c ? a : c;
        f->sdist[f->ns++] = f->dist[w];
        if (f->dist[w] > maxd)
            maxd = f->dist[w];
    }
    for (uint32_t x = 0; x < t->n; x++) {
        if (in[x])
            continue;
        size_t start = f->na;
        for (uint32_t q = 0; q < sn_topo_degree(t, x); q++) {
            uint32_t w = sn_topo_port(t, x, q)->peer;
            if (in[w])
                f->adist[f->na++] = f->dist[w];
        }
        if (f->na == start)
            continue;
        f->rofs[f->nr] = start;
        f->rcap[f->nr] = node_recvs(f, x);
        f->rdist[f->nr++] = f->dist[x];
        f->rofs[f->nr] = f->na;
    }
    return maxd;
}

/* Breadth-first distances from every node with seed[] set, in f->queue; into d. */
static void multi_bfs(const flow_t *f, const uint8_t *seed, uint32_t *d)
{
    const sn_topo_t *t = f->t;
    size_t head = 0, tail = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        d[u] = seed[u] ? 0 : UINT32_MAX;
        if (seed[u])
            f->queue[tail++] = u;
    }
    while (head < tail) {
        uint32_t u = f->queue[head++];
        for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
            uint32_t x = sn_topo_port(t, u, q)->peer;
            if (d[x] == UINT32_MAX) {
                d[x] = d[u] + 1;
                f->queue[tail++] = x;
            }
        }
    }
}

typedef struct {
    flow_t *f;
    int64_t best;
    char detail[96];
    uint8_t *side, *entry;
    uint32_t *d;
} flowcut_t;

/* The cut bound of a set S holding the root (S = in[], or its complement when the root is not in
 * it): the packets wanted outside S (M, or M per processor outside for a scatter) cross S's arcs
 * out, so the last first crossing is no earlier than cut_slots; a broadcast's last packet to cross
 * then still travels to the processor outside S farthest from where packets enter. */
static void flow_try_cut(void *ctx, const uint8_t *in, const char *what)
{
    flowcut_t *c = ctx;
    flow_t *f = c->f;
    const sn_topo_t *t = f->t;
    int flip = !in[f->root];
    uint64_t outside = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        c->side[u] = flip ? !in[u] : in[u];
        outside += !c->side[u] && sn_topo_is_proc(t, u);
    }
    if (outside == 0)
        return;
    uint32_t maxd = cut_group(f, c->side);
    if (f->ns == 0)
        return;
    uint64_t D = f->personal ? f->M * outside : f->M;
    int64_t v = (int64_t) cut_slots(f, D, maxd);
    uint32_t far = 0;
    if (!f->personal) {
        for (uint32_t u = 0; u < t->n; u++) {
            c->entry[u] = 0;
            if (c->side[u])
                continue;
            for (uint32_t q = 0; q < sn_topo_degree(t, u) && !c->entry[u]; q++)
                c->entry[u] = c->side[sn_topo_port(t, u, q)->peer];
        }
        multi_bfs(f, c->entry, c->d);
        for (uint32_t u = 0; u < t->n; u++)
            if (!c->side[u] && sn_topo_is_proc(t, u) && c->d[u] > far)
                far = c->d[u];
        v += far;
    }
    if (v > c->best) {
        c->best = v;
        snprintf(c->detail, sizeof c->detail, "%s: %llu packets over %zu arcs, then %u hops", what,
                 (unsigned long long) D, f->na, far);
    }
}

/* Cuts, per processor v (S = every node but v) and for balls around the root and the halves that
 * search_cuts tries. */
static void flow_cuts(flow_t *f, sn_bounds_t *out, uint32_t ecc)
{
    const sn_topo_t *t = f->t;
    /* one processor: its M packets (scatter: its own M) over its arcs in */
    int64_t node = 0;
    uint32_t node_at = f->root;
    for (uint32_t v = 0; v < t->n; v++) {
        if (v == f->root || !sn_topo_is_proc(t, v))
            continue;
        f->ns = f->nr = f->na = 0;
        f->rofs[0] = 0;
        uint32_t maxd = 0;
        for (uint32_t q = 0; q < sn_topo_degree(t, v); q++) {
            uint32_t w = sn_topo_port(t, v, q)->peer;
            /* each link carries one packet a slot; single-port, a sender with several links to v
             * still sends one */
            f->scap[f->ns] = f->send_one && f->seen[w] ? 0 : 1;
            f->seen[w] = 1;
            f->sdist[f->ns++] = f->dist[w];
            f->adist[f->na++] = f->dist[w];
            if (f->dist[w] > maxd)
                maxd = f->dist[w];
        }
        for (uint32_t q = 0; q < sn_topo_degree(t, v); q++)
            f->seen[sn_topo_port(t, v, q)->peer] = 0;
        f->rcap[0] = node_recvs(f, v);
        f->rdist[0] = f->dist[v];
        f->rofs[1] = f->na;
        f->nr = 1;
        int64_t x = (int64_t) cut_slots(f, f->M, maxd);
        if (x > node) {
            node = x;
            node_at = v;
        }
    }
    char b1[SN_TOPO_MAX_LABEL];
    if (node > 0)
        add(out, f->reversed ? "send" : "receive",
            f->reversed ? "a processor's M contributions leave it over its links; time-reversed, "
                          "each link from the slot after the far end can first hold one"
                        : "a processor takes its M packets over its links, each from the slot "
                          "after its sender can first hold one",
            node, "%llu packets %s %s (distance %u)", (unsigned long long) f->M,
            f->reversed ? "out of" : "into", sn_topo_label(t, node_at, b1, sizeof b1),
            f->dist[node_at]);
    flowcut_t c = {
        f, 0, "", sn_xmalloc(t->n), sn_xmalloc(t->n), sn_xmalloc((size_t) t->n * sizeof(uint32_t))};
    uint8_t *in = sn_xmalloc(t->n);
    char what[64];
    /* every radius while ecc (n + 2|E|) <= 2^25 node-arc visits; above, about that many: radii a
     * stride apart, and the last one */
    uint64_t work = (uint64_t) t->n + 2ull * t->nedges;
    uint64_t stride = sn_ceil_div((uint64_t) ecc * work, 1ull << 25);
    if (stride == 0)
        stride = 1;
    for (uint64_t r = 0; ecc > 0; r += stride) {
        uint32_t k = r < ecc - 1 ? (uint32_t) r : ecc - 1;
        for (uint32_t u = 0; u < t->n; u++)
            in[u] = f->dist[u] <= k;
        snprintf(what, sizeof what, "the ball of radius %u", k);
        flow_try_cut(&c, in, what);
        if (k == ecc - 1)
            break;
    }
    search_cuts(t, flow_try_cut, &c);
    if (c.best > 0)
        add(out, "cut",
            "the packets wanted beyond a cut cross its arcs, from the slot after the sender can "
            "first hold one, and the last then travels on",
            c.best, "%s", c.detail);
    free(in);
    free(c.side);
    free(c.entry);
    free(c.d);
}

/* ---- the components of G - v, for the cut-vertex bounds ----------------------------------- */

typedef struct {
    uint32_t *comp, *queue, *dv, *far; /* far: the farthest processor of a component from v */
    uint64_t *procs, *marked;          /* per component: processors, nodes with mark[] set */
} comps_t;

/* 0 when the search over every v would exceed a budget of 2^26 node-arc visits (n BFS twice). */
static int comps_affordable(const sn_topo_t *t)
{
    return (uint64_t) t->n * (t->n + 2ull * t->nedges) <= (1ull << 26);
}

static void comps_init(comps_t *c, uint32_t n)
{
    c->comp = sn_xmalloc((size_t) n * sizeof *c->comp);
    c->queue = sn_xmalloc((size_t) n * sizeof *c->queue);
    c->dv = sn_xmalloc((size_t) n * sizeof *c->dv);
    c->far = sn_xmalloc((size_t) n * sizeof *c->far);
    c->procs = sn_xmalloc((size_t) n * sizeof *c->procs);
    c->marked = sn_xmalloc((size_t) n * sizeof *c->marked);
}

static void comps_free(comps_t *c)
{
    free(c->comp);
    free(c->queue);
    free(c->dv);
    free(c->far);
    free(c->procs);
    free(c->marked);
}

/* Labels the components of G - v in c->comp (v itself UINT32_MAX - 1) and counts per component
 * its processors, its nodes with mark[] set (mark may be NULL) and the distance from v of its
 * farthest processor. Returns the number of components. */
static uint32_t comps_of(const sn_topo_t *t, uint32_t v, const uint8_t *mark, comps_t *c)
{
    sn_topo_bfs(t, v, c->dv);
    uint32_t nc = 0;
    for (uint32_t u = 0; u < t->n; u++)
        c->comp[u] = UINT32_MAX;
    c->comp[v] = UINT32_MAX - 1;
    for (uint32_t s = 0; s < t->n; s++) {
        if (c->comp[s] != UINT32_MAX)
            continue;
        size_t head = 0, tail = 0;
        c->procs[nc] = c->marked[nc] = 0;
        c->far[nc] = 0;
        c->comp[s] = nc;
        c->queue[tail++] = s;
        while (head < tail) {
            uint32_t u = c->queue[head++];
            if (sn_topo_is_proc(t, u)) {
                c->procs[nc]++;
                if (c->dv[u] > c->far[nc])
                    c->far[nc] = c->dv[u];
            }
            c->marked[nc] += mark != NULL && mark[u];
            for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
                uint32_t x = sn_topo_port(t, u, q)->peer;
                if (c->comp[x] == UINT32_MAX) {
                    c->comp[x] = nc;
                    c->queue[tail++] = x;
                }
            }
        }
        nc++;
    }
    return nc;
}

/* A cut vertex v (or the root) sends every packet into each component of G - v that holds
 * processors and not the root: c M sends (a scatter: M per processor there). Single-port it sends
 * one a slot from slot dist(v) + 1, and a broadcast's last packet still travels to the farthest
 * processor of its component; half duplex, v's receptions and sends share its edges' slots from
 * slot dist(v). */
static void flow_cut_vertices(flow_t *f, sn_bounds_t *out)
{
    const sn_topo_t *t = f->t;
    if ((!f->send_one && !f->half) || !comps_affordable(t))
        return;
    comps_t cc;
    comps_init(&cc, t->n);
    uint8_t *is_root = sn_xcalloc(t->n, 1);
    is_root[f->root] = 1;
    int64_t best = 0;
    uint32_t best_v = 0;
    uint64_t best_c = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t nc = comps_of(t, v, is_root, &cc);
        uint64_t c = 0, sends = 0, minfar = UINT64_MAX;
        for (uint32_t i = 0; i < nc; i++) {
            if (cc.marked[i] || cc.procs[i] == 0)
                continue;
            c++;
            sends += f->personal ? f->M * cc.procs[i] : f->M;
            if (cc.far[i] < minfar)
                minfar = cc.far[i];
        }
        if (c == 0)
            continue;
        int64_t val = 0;
        if (f->send_one)
            val = (int64_t) (f->dist[v] + sends + (f->personal ? 0 : minfar - 1));
        if (f->half) {
            uint64_t deg = sn_topo_degree(t, v), h;
            if (v == f->root) {
                h = sn_ceil_div(sends, deg);
            } else {
                uint64_t recv = f->personal ? sends + (sn_topo_is_proc(t, v) ? f->M : 0) : f->M;
                h = f->dist[v] - 1 + sn_ceil_div(recv + sends, deg);
            }
            if ((int64_t) h > val)
                val = (int64_t) h;
        }
        if (val > best) {
            best = val;
            best_v = v;
            best_c = c;
        }
    }
    char b1[SN_TOPO_MAX_LABEL];
    if (best > 0)
        add(out, "cut-vertex",
            f->half ? "a cut vertex's forwarding: its sends and receptions share its edges (half "
                      "duplex)"
                    : "a cut vertex's forwarding: one send per slot into each component beyond it",
            best, "%s feeds %llu components", sn_topo_label(t, best_v, b1, sizeof b1),
            (unsigned long long) best_c);
    comps_free(&cc);
    free(is_root);
}

/* Every useful transmission brings a packet to a node that lacks it, so a broadcast needs one per
 * delivery (a scatter's packet for y one per hop of dist(root, y)). In slot t only the nodes
 * within distance t - 1 of the root hold a packet: the slot carries at most one per arc out of
 * them (full duplex) or edge at them (half duplex), single-port at most one per such node, and
 * with one reception a slot at most one per node within distance t but the root. T is the first
 * slot by which the slots' capacities add up to the transmissions needed. */
static void flow_transmissions(const flow_t *f, sn_bounds_t *out)
{
    const sn_topo_t *t = f->t;
    uint64_t total = 0;
    uint32_t maxd = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (f->dist[u] > maxd)
            maxd = f->dist[u];
        if (u != f->root && sn_topo_is_proc(t, u))
            total += f->personal ? f->dist[u] : 1;
    }
    total *= f->M;
    if (total == 0)
        return;
    /* per distance d: nodes, arcs out, edges whose nearer end is at d */
    uint64_t *nodes = sn_xcalloc((size_t) maxd + 2, sizeof *nodes);
    uint64_t *arcs = sn_xcalloc((size_t) maxd + 2, sizeof *arcs);
    uint64_t *edges = sn_xcalloc((size_t) maxd + 2, sizeof *edges);
    for (uint32_t u = 0; u < t->n; u++) {
        nodes[f->dist[u]]++;
        arcs[f->dist[u]] += sn_topo_degree(t, u);
    }
    for (uint32_t e = 0; e < t->nedges; e++) {
        uint32_t da = f->dist[t->edges[e].a], db = f->dist[t->edges[e].b];
        edges[da < db ? da : db]++;
    }
    uint64_t done = 0, slot = 0, held_nodes = 0, held_arcs = 0, held_edges = 0, cap = 0;
    while (done < total) {
        slot++;
        uint32_t d = (uint32_t) (slot - 1); /* the holders: distance <= slot - 1 */
        if (d <= maxd) {
            held_nodes += nodes[d];
            held_arcs += arcs[d];
            held_edges += edges[d];
        }
        cap = f->half ? held_edges : held_arcs;
        if (f->send_one && held_nodes < cap)
            cap = held_nodes;
        if (f->recv_one) {
            uint64_t rx = held_nodes - 1 + (d + 1 <= maxd ? nodes[d + 1] : 0);
            if (rx < cap)
                cap = rx;
        }
        if (cap == 0 && d > maxd)
            break;       /* nothing can move: not reached, as the graph is connected */
        if (d >= maxd) { /* every later slot carries cap */
            if (cap > 0)
                slot += sn_ceil_div(total - done, cap) - 1;
            done = total;
            break;
        }
        done += cap;
    }
    free(nodes);
    free(arcs);
    free(edges);
    if (done >= total && cap > 0)
        add(out, "transmissions",
            f->personal
                ? "every hop of every packet is a transmission; a slot carries one per link "
                  "(single-port: per node) of the nodes that can hold a packet by then"
                : "every delivery is a transmission; a slot carries one per link "
                  "(single-port: per node) of the nodes that can hold a packet by then",
            (int64_t) slot, "%llu transmissions, at most %llu a slot", (unsigned long long) total,
            (unsigned long long) cap);
}

/* Single-port broadcast (Bar-Noy and Kipnis, "Broadcasting multiple messages in simultaneous
 * send/receive systems", 1994): the root sends one packet a slot, so the last of the M packets
 * to leave it leaves in slot M or later, and until then only the root holds it; from then on it
 * spreads as a one-packet single-port broadcast from the root, which takes at least B1 slots:
 * T >= M - 1 + B1, with B1 the larger of e(root) and Theorem 3.3 (thm1). */
static void flow_bar_noy_kipnis(const flow_t *f, sn_bounds_t *out, uint32_t ecc, int64_t thm1)
{
    if (!f->send_one || f->personal)
        return;
    int64_t b1 = thm1 > (int64_t) ecc ? thm1 : (int64_t) ecc;
    add(out, "bar-noy-kipnis",
        "Bar-Noy and Kipnis, Broadcasting multiple messages in simultaneous send/receive systems "
        "(1994): M - 1 + the one-packet bound",
        (int64_t) (f->M - 1) + b1, "M = %llu, one-packet bound %lld", (unsigned long long) f->M,
        (long long) b1);
}

/* The rooted-flow bounds of (t, root): reversed is 1 for reduce and gather (sends and receptions
 * exchanged). thm1 is a one-packet bound valid when every node sends one packet a slot in the
 * flow's direction (Theorem 3.3; 0 when not computed). */
static void flow_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M,
                        int personal, int reversed, int64_t thm1)
{
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const int rx_one = single && p->pm.rx == SN_RX_ONE;
    flow_t f = {t,
                p->root,
                M,
                personal,
                reversed ? rx_one : single,
                reversed ? single : rx_one,
                p->pm.duplex == SN_DUPLEX_HALF,
                reversed};
    size_t arcs = 2ull * t->nedges + 1;
    f.dist = sn_xmalloc((size_t) t->n * sizeof *f.dist);
    sn_topo_bfs(t, p->root, f.dist);
    uint32_t ecc = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (f.dist[u] == UINT32_MAX)
            goto done; /* not connected: the other bounds say what they can */
        if (sn_topo_is_proc(t, u) && f.dist[u] > ecc)
            ecc = f.dist[u];
    }
    f.queue = sn_xmalloc((size_t) t->n * sizeof *f.queue);
    f.seen = sn_xcalloc(t->n, 1);
    f.scap = sn_xmalloc(arcs * sizeof *f.scap);
    f.sdist = sn_xmalloc(arcs * sizeof *f.sdist);
    f.rcap = sn_xmalloc(((size_t) t->n + 1) * sizeof *f.rcap);
    f.rdist = sn_xmalloc(((size_t) t->n + 1) * sizeof *f.rdist);
    f.rofs = sn_xmalloc(((size_t) t->n + 2) * sizeof *f.rofs);
    f.adist = sn_xmalloc(arcs * sizeof *f.adist);
    flow_cuts(&f, out, ecc);
    flow_cut_vertices(&f, out);
    flow_transmissions(&f, out);
    flow_bar_noy_kipnis(&f, out, ecc, thm1);
    free(f.queue);
    free(f.seen);
    free(f.scap);
    free(f.sdist);
    free(f.rcap);
    free(f.rdist);
    free(f.rofs);
    free(f.adist);
done:
    free(f.dist);
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
    add(out, name,
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
    uint64_t kl = upow(k, l);
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
            ok = n - n / upow(k, i) <= periods * (T - n + 1);
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
            add(out, "thm6.1",
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
        add(out, "thm6.2", "Dimakopoulos, thesis, section 6.2.2, Theorem 6.2", holes,
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
            add(out, "mnb-level", "Dimakopoulos, thesis, section 6.2.3, Theorem 6.3", best,
                "a level-%u router sends knM = %llu packets", at, (unsigned long long) (k * n * M));
        } else {
            add(out, "thm6.9", "Dimakopoulos, thesis, section 6.3.2, Theorem 6.9", holes,
                "(n - 1) M + 1, + 1 if k = 2 and M = 1; n = %llu", (unsigned long long) n);
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
            add(out, "te-level", "Dimakopoulos, thesis, section 6.2.4, Theorem 6.6", best,
                "level %u: X_l M + 2l - 1, X_l = %llu", at,
                (unsigned long long) ft_te_load(k, n, h, at));
            add(out, "root-load",
                "Dimakopoulos, thesis, section 6.2.4 (the root's load; erratum of Theorem 6.6)",
                (int64_t) (ft_te_load(k, n, h, h) * M) + 2 * (int64_t) h - 1,
                "the root forwards n (n - n/k) = %llu messages, M packets each",
                (unsigned long long) ft_te_load(k, n, h, h));
        } else {
            /* (6.4) per level: k^(i-1) (n - k^(i-1)) messages cross each level-i branch upwards */
            int64_t best = 0;
            uint32_t at = 1;
            for (uint32_t i = 1; i <= h; i++) {
                uint64_t m = upow(k, i - 1);
                int64_t v = (int64_t) (sn_ceil_div(m * (n - m) * M, t->caps[i]) + 2 * i - 1);
                if (v > best) {
                    best = v;
                    at = i;
                }
            }
            add(out, "6.4-level", "Dimakopoulos, thesis, section 6.3.3, (6.4) per level", best,
                "level-%u branches, c = %u", at, t->caps[at]);
            if (M == 1) /* derived for one packet per pair only */
                add(out, "hole",
                    "Dimakopoulos, thesis, section 6.3.3.1, (6.6) with the arrival delay corrected",
                    ft_hole_bound(k, n, h), "holes of every leaf, n = %llu",
                    (unsigned long long) n);
            add(out, "te-mnb", "Dimakopoulos, thesis, section 6.3.3: TE >= MB", holes,
                "(n - 1) M + 1, + 1 if k = 2 and M = 1");
        }
        break;
    default:
        break;
    }
}

/* ---- combining collectives ------------------------------------------------------------------ */

/* Combining collectives at a cut vertex v. A key is a target (mna, pmna) or, for allreduce and
 * barrier, the one result every processor wants. Per key and (seq, frag), v receives a packet
 * from each component C of G - v that holds a processor while some target of the key lies outside
 * C (C's contributions leave it only through v), and sends one into each component that holds a
 * target while some processor lies outside it; different keys or components, different packets.
 * Single-port v sends one a slot (a router from slot 2: it holds nothing before), with --rx one
 * receives one a slot; half duplex its sends and receptions share its edges. is_tgt NULL: one key
 * wanted by every processor. */
static void combining_cut_vertices(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out,
                                   uint64_t M, const uint8_t *is_tgt)
{
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const int rx_one = single && p->pm.rx == SN_RX_ONE;
    const int half = p->pm.duplex == SN_DUPLEX_HALF;
    if ((!single && !half) || !comps_affordable(t))
        return;
    const uint64_t P = t->nproc;
    uint64_t ntgt = P;
    if (is_tgt != NULL) {
        ntgt = 0;
        for (uint32_t u = 0; u < t->n; u++)
            ntgt += is_tgt[u];
    }
    comps_t cc;
    comps_init(&cc, t->n);
    int64_t best = 0;
    uint32_t best_v = 0;
    uint64_t best_s = 0, best_r = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t nc = comps_of(t, v, is_tgt, &cc);
        uint64_t recv = 0, send = 0;
        for (uint32_t i = 0; i < nc; i++) {
            uint64_t pc = cc.procs[i], tc = is_tgt ? cc.marked[i] : pc;
            if (is_tgt == NULL) {
                recv += pc > 0 && P > pc;
                send += pc > 0 && P > pc;
            } else {
                recv += pc > 0 ? ntgt - tc : 0;
                send += tc > 0 && P > pc ? tc : 0;
            }
        }
        recv *= M;
        send *= M;
        int64_t val = 0;
        if (single && send > 0)
            val = (int64_t) (send + !sn_topo_is_proc(t, v));
        if (rx_one && (int64_t) recv > val)
            val = (int64_t) recv;
        if (half && sn_topo_degree(t, v) > 0 &&
            (int64_t) sn_ceil_div(send + recv, sn_topo_degree(t, v)) > val)
            val = (int64_t) sn_ceil_div(send + recv, sn_topo_degree(t, v));
        if (val > best) {
            best = val;
            best_v = v;
            best_s = send;
            best_r = recv;
        }
    }
    char b1[SN_TOPO_MAX_LABEL];
    if (best > 0)
        add(out, "cut-vertex",
            "a cut vertex forwards a packet per key into and out of every component beyond it "
            "(single-port one send, rx one one reception per slot; half duplex over its edges)",
            best, "%s sends %llu and receives %llu packets",
            sn_topo_label(t, best_v, b1, sizeof b1), (unsigned long long) best_s,
            (unsigned long long) best_r);
    comps_free(&cc);
}

/* Transmissions a slot can carry: one per arc (full duplex) or edge (half duplex); single-port at
 * most one send per node. */
static uint64_t slot_capacity(const sn_topo_t *t, const sn_params_t *p)
{
    uint64_t cap = p->pm.duplex == SN_DUPLEX_HALF ? t->nedges : 2ull * t->nedges;
    if (p->pm.ports == SN_PORTS_SINGLE && t->n < cap)
        cap = t->n;
    return cap > 0 ? cap : 1;
}

static void accum_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    const int rx_one = single && p->pm.rx == SN_RX_ONE;
    /* the targets are the collective's receivers: the root, the sources or every processor */
    sn_coll_group_t to = sn__coll_receivers(p->coll);
    const uint32_t *tgt = to == SN_COLL_GROUP_ROOT ? &p->root : p->sources;
    uint32_t ntgt = to == SN_COLL_GROUP_ROOT ? 1 : p->nsources;
    uint32_t *all = NULL;
    if (to == SN_COLL_GROUP_ALL) {
        all = sn_xmalloc((size_t) (t->nproc ? t->nproc : 1) * sizeof *all);
        for (uint32_t r = 0; r < t->nproc; r++)
            all[r] = sn_topo_proc(t, r);
        tgt = all;
        ntgt = t->nproc;
    }
    uint8_t *is_tgt = sn_xcalloc(t->n, 1);
    for (uint32_t i = 0; i < ntgt; i++)
        is_tgt[tgt[i]] = 1;
    /* the farthest contribution, its last packet leaving after ceil(M/deg) slots */
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist);
    int64_t far = 0, recv = 0;
    uint32_t far_e = 0;
    for (uint32_t i = 0; i < ntgt; i++) {
        sn_topo_bfs(t, tgt[i], dist);
        for (uint32_t u = 0; u < t->n; u++) {
            if (!sn_topo_is_proc(t, u) || u == tgt[i])
                continue;
            uint64_t per = single ? 1 : sn_topo_degree(t, u);
            int64_t v = (int64_t) (sn_ceil_div(M, per) + dist[u] - 1);
            if (v > far) {
                far = v;
                far_e = dist[u];
            }
        }
        uint64_t rper = rx_one ? 1 : sn_topo_degree(t, tgt[i]);
        int64_t r = (int64_t) sn_ceil_div(M, rper);
        if (t->nproc > 1 && r > recv)
            recv = r;
    }
    free(dist);
    add(out, "eccentricity",
        "the farthest contribution travels e(target) hops (Dimakopoulos, thesis, section 3.2, "
        "reversed)",
        far, "farthest contribution %u hops, %llu packets", far_e, (unsigned long long) M);
    add(out, "receive",
        rx_one ? "one reception per slot (Dimakopoulos, thesis, section 2.4)"
               : "one packet per incoming link per slot",
        recv, "%llu packets into a target", (unsigned long long) M);
    int64_t send = 0;
    uint64_t most = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (!sn_topo_is_proc(t, u))
            continue;
        uint64_t o = (ntgt - is_tgt[u]) * M;
        int64_t v = (int64_t) (single ? o : sn_ceil_div(o, sn_topo_degree(t, u)));
        if (v > send) {
            send = v;
            most = o;
        }
    }
    if (to == SN_COLL_GROUP_ROOT) /* the rooted flow's "send" below is at least this one */
        flow_bounds(t, p, out, M, 0, 1, rx_one ? one_packet_single(t, p->root) : 0);
    else
        add(out, "send",
            p->coll == SN_COLL_PMNA ? "one packet per target leaves every processor (Varvarigos, "
                                      "folded-cube paper, eq. (2))"
                                    : "one packet per outgoing link per slot",
            send, "%llu packets out of a processor", (unsigned long long) most);
    if (to != SN_COLL_GROUP_ROOT) {
        /* per (target, seq, frag), every other processor sends a packet of its own for that target
         * (its contribution must leave it), so ntgt (P - 1) M transmissions in all */
        uint64_t cnt = (uint64_t) ntgt * (t->nproc - 1) * M, cap = slot_capacity(t, p);
        add(out, "count",
            "one transmission per (target, seq, frag) out of every other processor; at most one "
            "per link (single-port: per node) and slot",
            (int64_t) sn_ceil_div(cnt, cap),
            "%u targets x %u senders x %llu packets over %llu a slot", ntgt, t->nproc - 1,
            (unsigned long long) M, (unsigned long long) cap);
        combining_cut_vertices(t, p, out, M, is_tgt);
    }
    free(is_tgt);
    free(all);
}

/* Allreduce per processor q: q sends a packet of each (seq, frag) at least once (its contribution
 * must leave it), at most one a slot single-port (deg(q) multiport), so its last first send is in
 * slot ceil(M / sends per slot) or later, and until then nobody else knows q's part of that
 * (seq, frag). From then on it must reach every processor: at least e(q) - 1 more slots, and
 * single-port the nodes that know it at most double per slot (Theorem 3.3 from q bounds the
 * one-packet broadcast): T >= M - 1 + max(e(q), Theorem 3.3 at q) single-port,
 * ceil(M / deg(q)) + e(q) - 1 multiport. The analogue for allreduce of Bar-Noy and Kipnis's
 * argument; O(P (n + m)), skipped above the cut-vertex budget. */
static void allreduce_spread(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    if (!comps_affordable(t))
        return;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    int64_t best = 0;
    uint32_t at = 0;
    for (uint32_t q = 0; q < t->n; q++) {
        if (!sn_topo_is_proc(t, q) || sn_topo_degree(t, q) == 0)
            continue;
        uint32_t e = sn_topo_ecc(t, q, 1);
        int64_t v;
        if (single) {
            int64_t b1 = thm33_of(t, q);
            v = (int64_t) (M - 1) + (b1 > (int64_t) e ? b1 : (int64_t) e);
        } else {
            v = (int64_t) (sn_ceil_div(M, sn_topo_degree(t, q)) + e - 1);
        }
        if (v > best) {
            best = v;
            at = q;
        }
    }
    char b1[SN_TOPO_MAX_LABEL];
    if (best > 0)
        add(out, "spread",
            single ? "a processor's last part to leave it leaves in slot M or later, then spreads "
                     "as a one-packet single-port broadcast (after Bar-Noy and Kipnis 1994)"
                   : "a processor's last part to leave it leaves in slot ceil(M/deg) or later, "
                     "then travels e(q) - 1 hops",
            best, "from %s, %llu packets", sn_topo_label(t, at, b1, sizeof b1),
            (unsigned long long) M);
}

/* allreduce and barrier (see the top of the file). */
static void allreduce_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    if (t->nproc <= 1)
        return;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    uint32_t D = sn_topo_diameter(t, 1), deg = 1;
    for (uint32_t u = 0; !single && u < t->n; u++)
        if (sn_topo_is_proc(t, u) && sn_topo_degree(t, u) > deg)
            deg = sn_topo_degree(t, u);
    add(out, "diameter",
        "every processor needs the farthest processor's contribution (Bertsekas and Tsitsiklis, "
        "Parallel and Distributed Computation, section 1.3)",
        (int64_t) (D + sn_ceil_div(M, deg) - 1), "diameter %u, %llu packets, %u per slot", D,
        (unsigned long long) M, deg);
    if (single) {
        uint32_t lg = 0;
        while ((1ull << lg) < t->nproc)
            lg++;
        add(out, "doubling",
            "one send per slot: the nodes holding a contribution at most double per slot (the "
            "gossip bound; Hedetniemi, Hedetniemi and Liestman, Networks 18, 1988)",
            (int64_t) lg, "ceil(log2 %u)", t->nproc);
    }
    /* One-way gossip needs 2(P - 1) calls (sequential argument below), per (seq, frag): order each
     * slot's transmissions any way; a receiver then knows at least what it knew in the slots.
     * Take the first transmission after which some node knows every contribution: every
     * processor but its receiver has sent before or in it, and every processor but the receiver
     * still lacks one and receives after it. */
    uint64_t cnt = 2ull * (t->nproc - 1) * M, cap = slot_capacity(t, p);
    add(out, "count",
        "2(P - 1) transmissions per (seq, frag), the one-way gossip count; at most one per link "
        "(single-port: per node) and slot",
        (int64_t) sn_ceil_div(cnt, cap), "2 x %u x %llu transmissions over %llu a slot",
        t->nproc - 1, (unsigned long long) M, (unsigned long long) cap);
    if (p->pm.duplex == SN_DUPLEX_HALF) {
        /* every processor sends and receives at least one packet per (seq, frag) */
        uint32_t low = UINT32_MAX;
        for (uint32_t u = 0; u < t->n; u++)
            if (sn_topo_is_proc(t, u) && sn_topo_degree(t, u) < low)
                low = sn_topo_degree(t, u);
        if (low != UINT32_MAX && low > 0)
            add(out, "half-duplex",
                "a processor sends and receives a packet per (seq, frag), sharing its edges",
                (int64_t) sn_ceil_div(2 * M, low), "2 x %llu packets over %u edges",
                (unsigned long long) M, low);
    }
    combining_cut_vertices(t, p, out, M, NULL);
    allreduce_spread(t, p, out, M);
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
        add(out, "fcube-diameter", src, (int64_t) (D + sn_ceil_div(K, d + 1) - 1),
            "ceil(d/2) = %llu", (unsigned long long) D);
        break;
    case SN_COLL_MNB:
    case SN_COLL_SCATTER:
    case SN_COLL_GATHER:
        add(out, p->coll == SN_COLL_MNB ? "fcube-mnb" : "fcube-sns", src,
            (int64_t) sn_ceil_div((N - 1) * K, d + 1), "(N-1)/(d+1) = %llu/%u",
            (unsigned long long) (N - 1) * K, d + 1);
        break;
    case SN_COLL_PMNB:
    case SN_COLL_PMNA: {
        uint64_t v = sn_ceil_div((uint64_t) (p->nsources - 1) * K, d + 1);
        add(out, "eq2", "Varvarigos, folded-cube paper, eq. (2)", (int64_t) (v > D ? v : D),
            "max(ceil(d/2), ceil((M-1)/(d+1))), M = %u", p->nsources);
        break;
    }
    case SN_COLL_TE: {
        /* C(d, ceil(d/2)) exactly: d <= 25 */
        uint64_t c = 1;
        for (uint64_t i = 1; i <= D; i++)
            c = c * (d - D + i) / i;
        uint64_t twice = K * (N - c); /* twice eq. (7) */
        add(out, "eq7", "Varvarigos, folded-cube paper, eq. (7) (rounded up)",
            (int64_t) sn_ceil_div(twice, 2), "%llu x (2^(d-1) - C(d,ceil(d/2))/2) = %llu%s",
            (unsigned long long) K, (unsigned long long) (twice / 2), twice % 2 ? ".5" : "");
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
    add(out, "eccentricity",
        "Dimakopoulos, thesis, section 3.2: B(v) >= e(v); pipelining M packets",
        (int64_t) (sn_ceil_div(M, per) + ecc - 1), "e(root) = %u, %llu packets", ecc,
        (unsigned long long) M);
    int64_t thm1 = 0;
    if (single) {
        thm1 = thm33_of(t, root);
        add(out, "thm3.3", "Dimakopoulos, thesis, section 3.2.1, Theorem 3.3", thm1,
            "distance degree sequence of the root");
    }
    flow_bounds(t, p, out, M, 0, 0, single ? one_packet_single(t, root) : 0);
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
        add(out, "root-port", "Dimakopoulos, thesis, Theorem 3.6: one message per slot at the root",
            best, "%llu messages, deepest first", (unsigned long long) ((P - 1) * M));
    } else {
        uint32_t deg = sn_topo_degree(t, root);
        add(out, "degree", "Dimakopoulos, thesis, eq. (3.3)",
            (int64_t) sn_ceil_div((P - 1) * M, deg), "%llu messages over %u links",
            (unsigned long long) ((P - 1) * M), deg);
    }
    add(out, "eccentricity", "Dimakopoulos, thesis, section 3.2 (the farthest processor)", ecc,
        "e(root) = %u", ecc);
    flow_bounds(t, p, out, M, 1, sn__coll_senders(p->coll) != SN_COLL_GROUP_ROOT, 0);
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
    add(out, "diameter", "Dimakopoulos, thesis, section 2.1: the farthest pair", far,
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
        add(out, "half-duplex",
            "a node's receptions and sends share its edges, one packet per edge and slot", half,
            "receptions and sends of a processor");
    add(out, "receive",
        r->rx_one ? "one reception per slot (Dimakopoulos, thesis, section 2.4)"
                  : "one packet per incoming link per slot",
        recv, "%llu packets into a processor", (unsigned long long) ((r->S - 1) * M));
    if (!r->bcast)
        add(out, "send",
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
    add(out, "transmissions",
        r->single ? "one send per node per slot" : "one packet per link per slot",
        (int64_t) sn_ceil_div(dl, slots_per), "%llu deliveries", (unsigned long long) dl);
    if (r->rx_one) {
        char detail[160];
        int64_t b = bipartite_bound(t, r->is_src, r->S, r->M, detail, sizeof detail);
        if (b > 0)
            add(out, "bipartite",
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
        add(out, "status",
            "Dimakopoulos, thesis, section 4.1, (4.4): each send shortens the total "
            "distance "
            "by at most 1",
            (int64_t) sn_ceil_div(total, t->n), "total distance %llu over %u nodes",
            (unsigned long long) total, t->n);
    else
        add(out, "distance", "(4.4) over links, derived the same way",
            (int64_t) sn_ceil_div(total, r->links), "total distance %llu over %llu links",
            (unsigned long long) total, (unsigned long long) r->links);
    if (!r->single) {
        cuts_t c = {t, r->p, r->is_src, r->M, 0, ""};
        search_cuts(t, try_cut, &c);
        if (c.best > 0)
            add(out, "cut", "Dimakopoulos, thesis, section 4.1, (4.1)", c.best, "%s", c.detail);
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
        return sn__coll_is_uniform(c) ? allreduce_bounds : accum_bounds;
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
