/* bcast-arbor: multiport broadcast of M packets pipelined down k arc-disjoint spanning
 * arborescences rooted at the source, k the root's arc connectivity (core/algo).
 *
 * Edmonds, "Edge-disjoint branchings" (1973), gives the k trees; they are built as in Lovász, "On
 * two minimax theorems in graph theory" (1976), breadth-first (engine/arbor.c). Tree j of height
 * h_j carries c_j packets, each sent down it one level per slot: a node forwards a packet to its
 * children in that tree in the slot after it got it. The trees share no arc, so no two packets
 * ever meet on a link in one direction (multiport); packet i of tree j (i = 1 .. c_j) leaves the
 * root in slot i and reaches depth h_j in slot i + h_j - 1. The packets are dealt so that the
 * last arrives first: T = the least slot count with sum_j max(0, T - h_j + 1) >= M, tree j
 * carrying T - h_j + 1 of them (the tallest trees fewer when the sum overshoots). The root's
 * links are the limit at large M (T ~ M / k), the trees' heights at small M.
 *
 * Half duplex is refused: two trees may use an edge in its two directions in the same slot. The
 * nodes replay the timetable (engine/timetable.c); predicted_steps = its length T, exact. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/arbor.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

#define MAX_WORK (1u << 22) /* nodes x packets: the timetable's deliveries, as bcast-multitree */

static int bcast_arbor_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    int rc = sn_tt_applies_upto(t, p, "bcast-arbor", MAX_WORK, err);
    if (rc < 0)
        return rc;
    return sn_arbor_applies(t, p->root, "bcast-arbor", err);
}

static int bcast_arbor_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = bcast_arbor_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n, M = p->msgs * p->frags;
    sn_arbor_t a;
    if ((rc = sn_arbor_pack(t, p->root, M, "bcast-arbor", &a, err)) < 0)
        return rc;
    sn_tt_list_t l = {0};
    uint64_t T = 0;
    if (n > 1) {
        uint32_t k = a.k, *c = sn_xmalloc(k * sizeof *c), *base = sn_xmalloc(k * sizeof *base);
        T = sn_arbor_deal(&a, M, c);
        for (uint32_t j = 0, x = 0; j < k; x += c[j], j++)
            base[j] = x;
        /* in slot order, as the replay needs each sender's transmissions: the node at depth d of
         * tree j forwards that tree's packet i = s - d in slot s; a tree's order lists its nodes
         * by depth, so its arcs come by their tails' depths */
        for (uint64_t s = 1; s <= T; s++)
            for (uint32_t j = 0; j < k; j++) {
                const uint32_t *ord = a.order + (size_t) j * n, *dep = a.depth + (size_t) j * n;
                const uint32_t *par = a.parent + (size_t) j * n, *pp = a.pport + (size_t) j * n;
                for (uint32_t i = 1; i < n; i++) {
                    uint32_t w = ord[i], d = dep[w] - 1;
                    if (s <= d || s - d > c[j])
                        continue;
                    sn_tt_add(&l, (uint32_t) s, par[w], pp[w], w, base[j] + (uint32_t) (s - d) - 1);
                }
            }
        free(c);
        free(base);
    }
    sn_arbor_free(&a);
    *out = sn_tt_plan_new("bcast-arbor", t, p, 0, T, &l);
    sn_tt_list_free(&l);
    return 0;
}

const sn_algo_t sn__algo_bcast_arbor = {
    .name = "bcast-arbor",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI,
    .topos = "any without routers",
    .summary = "multiport: packets dealt over k arc-disjoint spanning trees, pipelined down each",
    .source = "Edmonds, edge-disjoint branchings; built as in Lovász, two minimax theorems",
    .predicts = "the length of the timetable: the least T with sum_j (T - h_j + 1) >= M",
    .applies = bcast_arbor_applies,
    .plan_new = bcast_arbor_plan_new,
    SN_TT_REPLAY_FIELDS,
};
