/* bcast-twolevel: multiport broadcast of M packets on the complete graph K_N over its N-1
 * arc-disjoint spanning trees of depth 2, by a timetable that the nodes replay (core/algo).
 *
 * Source: the folklore depth-2 arc-disjoint trees of K_N, with the packets dealt round-robin over
 * them as Johnsson and Ho, hypercube broadcasting paper, deal theirs over the ESBT; the lower
 * bound is the degree argument below. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

/* Tree i (one per neighbour v_i of the root, the root's port i): root -> v_i, then v_i -> every
 * other node. The trees share no arc: root -> v_i is tree i's alone, and so is v_i -> w.
 *
 * With deg = N - 1 and M = q deg + r (0 <= r < deg), the root hands packet b deg + i to v_i in
 * slot b + 1 (batch b, one packet per root link), and v_i relays it to the N - 2 others in slot
 * b + 2: in every slot a node receives one packet from the root and N - 2 relays, all its links.
 * When r = 1 the last packet goes from the root to every node directly in slot q + 1, beside the
 * relays of batch q - 1: q + 1 slots. Otherwise q + 1 slots for r = 0 and q + 2 for r >= 2 (the
 * last, partial batch relayed in slot q + 2). Each meets the lower bound 1 + ceil((M-1)/deg): in
 * slot 1 only the root holds packets, so a node receives at most one, and at most deg in every
 * later slot. Full duplex only: v_i and v_j relay to each other in the same slots, so half
 * duplex would halve the rate. */

#define MAX_WORK (1u << 22) /* nodes x packets the planner handles */

static int bcast_twolevel_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (t->kind != SN_TOPO_COMPLETE)
        return sn_err_set(err, SN_ENOTSUP, "bcast-twolevel needs complete:N, not %s", t->spec);
    return sn_tt_applies_upto(t, p, "bcast-twolevel", MAX_WORK, err);
}

static int bcast_twolevel_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    int rc = bcast_twolevel_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t M = p->msgs * p->frags, root = p->root, deg = sn_topo_degree(t, root);
    uint32_t q = M / deg, r = M % deg, direct = r == 1; /* the last packet goes directly */
    uint32_t relayed = M - direct, batches = (relayed + deg - 1) / deg;
    sn_tt_list_t l = {0};
    uint64_t T = 0;
    /* Batch b in slot order: the root's sends of slot b + 1, then the relays of slot b + 2; each
     * sender's transmissions come out in slot order, as the timetable wants. */
    for (uint32_t b = 0; b < batches; b++) {
        for (uint32_t i = 0; i < deg && b * deg + i < relayed; i++) {
            uint32_t x = b * deg + i, v = sn_topo_port(t, root, i)->peer;
            sn_tt_add(&l, b + 1, root, i, v, x);
            T = T > b + 1 ? T : b + 1;
            for (uint32_t k = 0; k < sn_topo_degree(t, v); k++) {
                uint32_t w = sn_topo_port(t, v, k)->peer;
                if (w != root) {
                    sn_tt_add(&l, b + 2, v, k, w, x);
                    T = T > b + 2 ? T : b + 2;
                }
            }
        }
    }
    if (direct) {
        for (uint32_t i = 0; i < deg; i++)
            sn_tt_add(&l, q + 1, root, i, sn_topo_port(t, root, i)->peer, M - 1);
        T = T > q + 1 ? T : q + 1;
    }
    *out = sn_tt_plan_new("bcast-twolevel", t, p, 0, T, &l);
    sn_tt_list_free(&l);
    return 0;
}

const sn_algo_t sn__algo_bcast_twolevel = {
    .name = "bcast-twolevel",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI,
    .topos = "complete",
    .summary = "the N-1 arc-disjoint depth-2 trees: root -> v_i -> every other node, pipelined",
    .source = "the folklore depth-2 arc-disjoint trees of K_N, packets dealt round-robin as in "
              "Johnsson and Ho, hypercube broadcasting paper",
    .predicts = "the timetable's length: 1 + ceil((packets-1)/(N-1)), the lower bound",
    .applies = bcast_twolevel_applies,
    .plan_new = bcast_twolevel_plan_new,
    SN_TT_REPLAY_FIELDS,
};
