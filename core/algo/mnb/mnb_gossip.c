/* mnb-gossip: multiport multinode broadcast on any graph by a per-slot assignment of packets to
 * links, rarest packet first (core/algo); bcast-gossip, the same plan for the root's packets
 * alone (a broadcast), which also keeps half duplex.
 *
 * No trees. The plan plays the collective slot by slot, knowing what every node holds. For each
 * receiver v, its neighbours that hold something v lacks are taken in order of how few such
 * packets they hold (then port order), and each passes v the packet that is rarest in the network
 * (fewest holders), then whose source is farthest from v, then the lowest (source, packet), among
 * those it holds, v lacks and no other neighbour passes v in this slot. Every link carries at most
 * one packet per slot and direction (multiport) and no node receives a packet twice. Rarest first
 * keeps every source's packets spreading at the same pace, so no link near a low-degree node
 * (a mesh's corner) idles late in the collective while a backlog waits elsewhere: on the meshes
 * swept in tests/unit/test_mnb_generic.c it meets the reception bound ceil(M (N - 1) / deg) of
 * the corner (eq. (4b) of Varvarigos and Bertsekas on d-dimensional meshes), where
 * per-source trees (mnb-balanced) take up to 1.4x that.
 *
 * The rule is ours (rarest first is the piece selection of peer-to-peer distribution; the
 * schedule is computed centrally, as a list schedule). The nodes replay the timetable
 * (timetable.h): node u sends, in slot s, the packets the plan gave its links; it only sends a
 * packet it holds. predicted_steps = the timetable's length, replayed exactly by both executors.
 *
 * bcast-gossip plays the same rule with the root's M packets only (the farthest-source tie is
 * then void: the lowest packet wins a tie of holders), counting as holders the copies already
 * given out in the slot: from one source every packet starts with one holder, and counted at the
 * slot's start they would all tie and the root would hand packet 0 to every neighbour, a single
 * tree's pipeline (torus:6x6, 32 packets: 37 slots, against 13 counting at once). Where k trees at
 * the root would idle a link once a tree's last packets drain, the rule gives that link any packet
 * its receiver lacks, so it often ends a slot before bcast-arbor's fixed trees. Under half duplex
 * an edge carries one packet per slot in either direction: the receivers take their edges in node
 * order, and an edge taken for one direction is closed to the other for the slot. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

/* The plan's work grows as slots x links x packets, its timetable as deliveries (12 bytes each):
 * at most 2^11 packets (N M), so 2^22 deliveries (hypercube:11 plans and simulates in about 7 s
 * and 200 MiB; twice the packets would take 7 times longer and 700 MiB). */
#define MAX_PACKETS (1u << 11)

/* bcast-gossip's work, (M + nodes) x (arcs + nodes) x (M / 64 + 1): the slots (at most M + the
 * root's eccentricity) x the receivers and their links x the words of a packet set. Measured at
 * 0.8 to 1.5 ns a unit with the simulation (torus:64x64 with 512 packets, 8.5e8: 0.7 to 1 s;
 * ring:20000, 1.2e9: 1.7 s, refused), so at most 2^30 keeps a plan under about 2 s. And at most
 * 2^22 deliveries (nodes x packets) in the timetable, as bcast-multitree. */
#define MAX_BCAST_WORK       (1ull << 30)
#define MAX_BCAST_DELIVERIES (1u << 22)

static int mnb_gossip_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint64_t K = (uint64_t) t->n * p->msgs * p->frags;
    if (t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-gossip needs every node a processor");
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-gossip broadcasts from every node");
    if (K > MAX_PACKETS)
        return sn_err_set(err, SN_ERANGE,
                          "mnb-gossip plans at most %u packets (nodes x msgs x frags); %s with "
                          "%u packets per node has %llu",
                          MAX_PACKETS, t->spec, p->msgs * p->frags, (unsigned long long) K);
    return 0;
}

static int bcast_gossip_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint64_t M = (uint64_t) p->msgs * p->frags, n = t->n, m = t->port_off[t->n];
    uint64_t work = (M + n) * (m + n) * (M / 64 + 1);
    int rc = sn_tt_applies_upto(t, p, "bcast-gossip", MAX_BCAST_DELIVERIES, err);
    if (rc < 0)
        return rc;
    if (work > MAX_BCAST_WORK)
        return sn_err_set(err, SN_ERANGE,
                          "bcast-gossip plans with at most %llu units of work ((packets + nodes) x "
                          "(arcs + nodes) x (packets / 64 + 1)); %s with %llu packets needs %llu",
                          (unsigned long long) MAX_BCAST_WORK, t->spec, (unsigned long long) M,
                          (unsigned long long) work);
    return 0;
}

/* Hop distances from every node: [n * n], UINT16_MAX where unreachable. */
static uint16_t *all_distances(const sn_topo_t *t)
{
    uint32_t n = t->n;
    uint16_t *D = sn_xmalloc((size_t) n * n * sizeof *D);
    uint32_t *queue = sn_xmalloc(n * sizeof *queue);
    for (uint32_t s = 0; s < n; s++) {
        uint16_t *d = D + (size_t) s * n;
        for (uint32_t v = 0; v < n; v++)
            d[v] = UINT16_MAX;
        d[s] = 0;
        uint32_t head = 0, tail = 0;
        queue[tail++] = s;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
                uint32_t v = sn_topo_port(t, u, q)->peer;
                if (d[v] == UINT16_MAX) {
                    d[v] = (uint16_t) (d[u] + 1);
                    queue[tail++] = v;
                }
            }
        }
    }
    free(queue);
    return D;
}

typedef struct {
    uint32_t q, nopt; /* v's port towards the neighbour, packets it could pass v */
} offer_t;

/* The plan of mnb-gossip (mnb 1: the packets of every node) or bcast-gossip (mnb 0: the root's,
 * with half duplex when p asks for it). */
static int gossip_plan(const sn_topo_t *t, const sn_params_t *p, int mnb, const char *name,
                       void **out, sn_err_t *err)
{
    uint32_t n = t->n, M = p->msgs * p->frags, K = mnb ? n * M : M, W = (K + 63) / 64;
    uint16_t *D = NULL; /* the farthest-source tie, which a broadcast does not need */
    if (mnb) {
        D = all_distances(t);
        for (uint32_t v = 1; v < n; v++)
            if (D[v] == UINT16_MAX) {
                free(D);
                return sn_err_set(err, SN_EALGO, "%s: %s is not connected", name, t->spec);
            }
    }
    uint64_t *have = sn_xcalloc((size_t) n * W, sizeof *have);
    uint32_t *holders = sn_xmalloc(K * sizeof *holders);
    uint32_t *nhave = sn_xcalloc(n, sizeof *nhave);
    for (uint32_t x = 0; x < K; x++) {
        uint32_t src = mnb ? x / M : p->root;
        have[(size_t) src * W + x / 64] |= 1ull << (x % 64);
        holders[x] = 1;
        nhave[src]++;
    }
    int half = !mnb && p->pm.duplex == SN_DUPLEX_HALF;
    uint8_t *closed = half ? sn_xmalloc((size_t) t->port_off[n] + 1) : NULL; /* arcs, a slot */
    uint32_t maxdeg = sn_topo_max_degree(t);
    offer_t *offers = sn_xmalloc(((size_t) maxdeg + 1) * sizeof *offers);
    uint32_t *taken = sn_xmalloc(((size_t) maxdeg + 1) * sizeof *taken);
    sn_tt_list_t l = {0};
    uint64_t left = (uint64_t) K * (n - 1), slot = 0;
    int rc = 0;
    while (left > 0) {
        slot++;
        size_t first = l.n;
        if (half)
            memset(closed, 0, t->port_off[n]);
        for (uint32_t v = 0; v < n; v++) {
            if (nhave[v] == K)
                continue;
            const uint64_t *hv = have + (size_t) v * W;
            uint32_t deg = sn_topo_degree(t, v), no = 0;
            for (uint32_t q = 0; q < deg; q++) {
                const uint64_t *hu = have + (size_t) sn_topo_port(t, v, q)->peer * W;
                uint32_t c = 0;
                if (half && closed[t->port_off[v] + q])
                    continue; /* v sends on this edge in the slot */
                for (uint32_t w = 0; w < W; w++)
                    c += (uint32_t) __builtin_popcountll(hu[w] & ~hv[w]);
                if (c == 0)
                    continue;
                /* insertion sort: fewest options first, then port order */
                uint32_t i = no++;
                while (i > 0 && offers[i - 1].nopt > c) {
                    offers[i] = offers[i - 1];
                    i--;
                }
                offers[i] = (offer_t){q, c};
            }
            const uint16_t *dv = mnb ? D + (size_t) v * n : NULL;
            uint32_t ntaken = 0;
            for (uint32_t i = 0; i < no; i++) {
                const sn_port_t *pt = sn_topo_port(t, v, offers[i].q);
                const uint64_t *hu = have + (size_t) pt->peer * W;
                uint32_t best = UINT32_MAX;
                for (uint32_t w = 0; w < W; w++)
                    for (uint64_t bits = hu[w] & ~hv[w]; bits; bits &= bits - 1) {
                        uint32_t x = w * 64 + (uint32_t) __builtin_ctzll(bits), j = 0;
                        while (j < ntaken && taken[j] != x)
                            j++;
                        if (j < ntaken)
                            continue;
                        if (best == UINT32_MAX || holders[x] < holders[best] ||
                            (mnb && holders[x] == holders[best] && dv[x / M] > dv[best / M]))
                            best = x;
                    }
                if (best == UINT32_MAX)
                    continue; /* everything it could pass is passed by another neighbour */
                taken[ntaken++] = best;
                sn_tt_add(&l, (uint32_t) slot, pt->peer, pt->rport, v, best);
                if (!mnb)
                    holders[best]++; /* the copies of this slot count at once (see above) */
                if (half) {
                    closed[t->port_off[v] + offers[i].q] = 1;
                    closed[t->port_off[pt->peer] + pt->rport] = 1;
                }
            }
        }
        /* the sets change after every choice of the slot is made: all choices see its start */
        for (size_t i = first; i < l.n; i++) {
            uint32_t v = l.to[i], x = l.ev[i].x;
            have[(size_t) v * W + x / 64] |= 1ull << (x % 64);
            nhave[v]++;
            holders[x] += mnb;
            left--;
        }
        if (l.n == first) { /* no packet moved: some node cannot be reached */
            rc = sn_err_set(err, SN_EALGO, "%s: %s is not connected", name, t->spec);
            break;
        }
    }
    sn_tt_plan_t *pl = rc < 0 ? NULL : sn_tt_plan_new(name, t, p, mnb, slot, &l);
    free(D);
    free(have);
    free(holders);
    free(nhave);
    free(offers);
    free(taken);
    free(closed);
    sn_tt_list_free(&l);
    *out = pl;
    return rc;
}

static int mnb_gossip_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = mnb_gossip_applies(t, p, err);
    if (rc < 0)
        return rc;
    return gossip_plan(t, p, 1, "mnb-gossip", out, err);
}

static int bcast_gossip_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    int rc = bcast_gossip_applies(t, p, err);
    if (rc < 0)
        return rc;
    return gossip_plan(t, p, 0, "bcast-gossip", out, err);
}

const sn_algo_t sn__algo_mnb_gossip = {
    .name = "mnb-gossip",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "any without routers (up to 2048 packets)",
    .summary = "multiport: each slot every link passes the rarest packet its receiver lacks",
    .source = "generic; the reception bound of Varvarigos and Bertsekas, eq. (4b)",
    .predicts = "the length of the timetable (replayed exactly)",
    .applies = mnb_gossip_applies,
    .plan_new = mnb_gossip_plan_new,
    SN_TT_REPLAY_FIELDS,
    .heuristic = 1,
};

const sn_algo_t sn__algo_bcast_gossip = {
    .name = "bcast-gossip",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "any without routers",
    .summary = "multiport: each slot every link passes the rarest of the root's packets its "
               "receiver lacks",
    .source = "generic; the rule of mnb-gossip for one source",
    .predicts = "the length of the timetable (replayed exactly)",
    .applies = bcast_gossip_applies,
    .plan_new = bcast_gossip_plan_new,
    SN_TT_REPLAY_FIELDS,
    .heuristic = 1,
};
