/* Lower bounds of the rooted collectives for many packets (core/model; the overview of every
 * bound is at the top of bounds.c): the flows of a broadcast or scatter, and by time reversal of
 * a reduce or gather, through cuts, cut vertices and the transmissions slot by slot, and
 * Bar-Noy and Kipnis's M - 1 + the one-packet bound single-port. The components of G - v are
 * shared with the combining collectives' cut vertices (bounds_combining.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/model/bounds_internal.h"
#include "stepnet/model.h"
#include "stepnet/util.h"

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
        sn__bounds_add(
            out, f->reversed ? "send" : "receive",
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
    sn__bounds_search_cuts(t, flow_try_cut, &c);
    if (c.best > 0)
        sn__bounds_add(
            out, "cut",
            "the packets wanted beyond a cut cross its arcs, from the slot after the sender can "
            "first hold one, and the last then travels on",
            c.best, "%s", c.detail);
    free(in);
    free(c.side);
    free(c.entry);
    free(c.d);
}

/* ---- the components of G - v, for the cut-vertex bounds ----------------------------------- */

/* 0 when the search over every v would exceed a budget of 2^26 node-arc visits (n BFS twice). */
int sn__bounds_comps_affordable(const sn_topo_t *t)
{
    return (uint64_t) t->n * (t->n + 2ull * t->nedges) <= (1ull << 26);
}

void sn__bounds_comps_init(sn__comps_t *c, uint32_t n)
{
    c->comp = sn_xmalloc((size_t) n * sizeof *c->comp);
    c->queue = sn_xmalloc((size_t) n * sizeof *c->queue);
    c->dv = sn_xmalloc((size_t) n * sizeof *c->dv);
    c->far = sn_xmalloc((size_t) n * sizeof *c->far);
    c->procs = sn_xmalloc((size_t) n * sizeof *c->procs);
    c->marked = sn_xmalloc((size_t) n * sizeof *c->marked);
}

void sn__bounds_comps_free(sn__comps_t *c)
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
uint32_t sn__bounds_comps_of(const sn_topo_t *t, uint32_t v, const uint8_t *mark, sn__comps_t *c)
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
    if ((!f->send_one && !f->half) || !sn__bounds_comps_affordable(t))
        return;
    sn__comps_t cc;
    sn__bounds_comps_init(&cc, t->n);
    uint8_t *is_root = sn_xcalloc(t->n, 1);
    is_root[f->root] = 1;
    int64_t best = 0;
    uint32_t best_v = 0;
    uint64_t best_c = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t nc = sn__bounds_comps_of(t, v, is_root, &cc);
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
        sn__bounds_add(
            out, "cut-vertex",
            f->half ? "a cut vertex's forwarding: its sends and receptions share its edges (half "
                      "duplex)"
                    : "a cut vertex's forwarding: one send per slot into each component beyond it",
            best, "%s feeds %llu components", sn_topo_label(t, best_v, b1, sizeof b1),
            (unsigned long long) best_c);
    sn__bounds_comps_free(&cc);
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
        sn__bounds_add(
            out, "transmissions",
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
    sn__bounds_add(
        out, "bar-noy-kipnis",
        "Bar-Noy and Kipnis, Broadcasting multiple messages in simultaneous send/receive systems "
        "(1994): M - 1 + the one-packet bound",
        (int64_t) (f->M - 1) + b1, "M = %llu, one-packet bound %lld", (unsigned long long) f->M,
        (long long) b1);
}

/* The rooted-flow bounds of (t, root): reversed is 1 for reduce and gather (sends and receptions
 * exchanged). thm1 is a one-packet bound valid when every node sends one packet a slot in the
 * flow's direction (Theorem 3.3; 0 when not computed). */
void sn__bounds_flow(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M,
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
