/* Lower bounds of the combining collectives (core/model; the overview of every bound is at the
 * top of bounds.c): sna, pmna and mna (accumulation), allreduce and barrier, with the counting
 * bounds for many packets, their cut vertices and the allreduce spread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/model/bounds_internal.h"
#include "stepnet/model.h"
#include "stepnet/util.h"

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
    if ((!single && !half) || !sn__bounds_comps_affordable(t))
        return;
    const uint64_t P = t->nproc;
    uint64_t ntgt = P;
    if (is_tgt != NULL) {
        ntgt = 0;
        for (uint32_t u = 0; u < t->n; u++)
            ntgt += is_tgt[u];
    }
    sn__comps_t cc;
    sn__bounds_comps_init(&cc, t->n);
    int64_t best = 0;
    uint32_t best_v = 0;
    uint64_t best_s = 0, best_r = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t nc = sn__bounds_comps_of(t, v, is_tgt, &cc);
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
        sn__bounds_add(
            out, "cut-vertex",
            "a cut vertex forwards a packet per key into and out of every component beyond it "
            "(single-port one send, rx one one reception per slot; half duplex over its edges)",
            best, "%s sends %llu and receives %llu packets",
            sn_topo_label(t, best_v, b1, sizeof b1), (unsigned long long) best_s,
            (unsigned long long) best_r);
    sn__bounds_comps_free(&cc);
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

void sn__bounds_accum(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
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
    sn__bounds_add(
        out, "eccentricity",
        "the farthest contribution travels e(target) hops (Dimakopoulos, thesis, section 3.2, "
        "reversed)",
        far, "farthest contribution %u hops, %llu packets", far_e, (unsigned long long) M);
    sn__bounds_add(out, "receive",
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
        sn__bounds_flow(t, p, out, M, 0, 1, rx_one ? sn__bounds_one_packet_single(t, p->root) : 0);
    else
        sn__bounds_add(out, "send",
                       p->coll == SN_COLL_PMNA
                           ? "one packet per target leaves every processor (Varvarigos, "
                             "folded-cube paper, eq. (2))"
                           : "one packet per outgoing link per slot",
                       send, "%llu packets out of a processor", (unsigned long long) most);
    if (to != SN_COLL_GROUP_ROOT) {
        /* per (target, seq, frag), every other processor sends a packet of its own for that target
         * (its contribution must leave it), so ntgt (P - 1) M transmissions in all */
        uint64_t cnt = (uint64_t) ntgt * (t->nproc - 1) * M, cap = slot_capacity(t, p);
        sn__bounds_add(
            out, "count",
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
    if (!sn__bounds_comps_affordable(t))
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
            int64_t b1 = sn__bounds_thm33_of(t, q);
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
        sn__bounds_add(
            out, "spread",
            single ? "a processor's last part to leave it leaves in slot M or later, then spreads "
                     "as a one-packet single-port broadcast (after Bar-Noy and Kipnis 1994)"
                   : "a processor's last part to leave it leaves in slot ceil(M/deg) or later, "
                     "then travels e(q) - 1 hops",
            best, "from %s, %llu packets", sn_topo_label(t, at, b1, sizeof b1),
            (unsigned long long) M);
}

/* allreduce and barrier (see the top of the file). */
void sn__bounds_allreduce(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M)
{
    if (t->nproc <= 1)
        return;
    const int single = p->pm.ports == SN_PORTS_SINGLE;
    uint32_t D = sn_topo_diameter(t, 1), deg = 1;
    for (uint32_t u = 0; !single && u < t->n; u++)
        if (sn_topo_is_proc(t, u) && sn_topo_degree(t, u) > deg)
            deg = sn_topo_degree(t, u);
    sn__bounds_add(
        out, "diameter",
        "every processor needs the farthest processor's contribution (Bertsekas and Tsitsiklis, "
        "Parallel and Distributed Computation, section 1.3)",
        (int64_t) (D + sn_ceil_div(M, deg) - 1), "diameter %u, %llu packets, %u per slot", D,
        (unsigned long long) M, deg);
    if (single) {
        uint32_t lg = 0;
        while ((1ull << lg) < t->nproc)
            lg++;
        sn__bounds_add(
            out, "doubling",
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
    sn__bounds_add(
        out, "count",
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
            sn__bounds_add(
                out, "half-duplex",
                "a processor sends and receives a packet per (seq, frag), sharing its edges",
                (int64_t) sn_ceil_div(2 * M, low), "2 x %llu packets over %u edges",
                (unsigned long long) M, low);
    }
    combining_cut_vertices(t, p, out, M, NULL);
    allreduce_spread(t, p, out, M);
}
