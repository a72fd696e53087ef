/* bcast-ering: multiport broadcast on the extended ring E_n^rho by the weight protocol (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1 (the algorithm of its reference [17]).
 * Implemented literally, with only local information at every node: the
 * packet's tag carries the weight and the direction. The source sends weight D clockwise to
 * i+1 .. i+rho, weight w+1 counter-clockwise to i-1 .. i-k and weight w to i-(k+1) .. i-rho; a node
 * receiving weight W delivers, decrements W and, if W > 0, forwards in the next slot to j+rho
 * (clockwise) or j-rho (counter-clockwise). Errata of the printed rule: weight-0 sends are
 * skipped (the printed rule would send them, and their receivers would decrement to -1); the
 * direction is carried explicitly because "received from the counterclockwise neighbour" is
 * ambiguous when rho = n/2. The node at position p of its path receives in slot p, so one packet
 * takes D = ceil(floor(n/2)/rho) slots, the diameter (optimal). With M = msgs * frags packets the
 * source starts one per slot and they follow each other down the same paths: D + M - 1.
 * ring:N is E_N^1 and complete:N is E_N^floor(N/2) (one step). */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/tree_ering.h"
#include "stepnet/util.h"

#define TAG_CCW (1u << 31) /* the tag: weight | direction */

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_ering_t e;
    uint32_t npk; /* packets from the root: msgs * frags */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
} state_t;

static int bcast_ering_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    sn_ering_t e;
    return sn__ering_get(t, &e, "bcast-ering", err);
}

static int bcast_ering_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    int rc = sn__ering_get(t, &pl->e, "bcast-ering", err);
    if (rc < 0) {
        free(pl);
        return rc;
    }
    pl->t = t;
    pl->p = p;
    pl->npk = p->msgs * p->frags;
    *out = pl;
    return 0;
}

static void bcast_ering_plan_free(void *plan)
{
    free(plan);
}

static int64_t bcast_ering_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->e.D + pl->npk - 1;
}

static int bcast_ering_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = u;
    return 0;
}

static void send_weighted(const plan_t *pl, sn_step_t *io, sn_packet_t pkt, int ccw, uint32_t jump,
                          uint32_t weight)
{
    pkt.tag = weight | (ccw ? TAG_CCW : 0);
    sn_step_send(io, sn__ering_port(&pl->e, ccw, jump), &pkt);
}

static int bcast_ering_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_ering_t *e = &pl->e;
    if (s->u == pl->p->root) {
        uint64_t j = io->slot - 1; /* packet j leaves the root in slot j+1 */
        if (j < pl->npk) {
            sn_packet_t pkt =
                sn_packet_data(pl->p, s->u, SN_NODE_ALL, (uint32_t) (j / pl->p->frags),
                               (uint32_t) (j % pl->p->frags));
            for (uint32_t i = 1; i <= e->rho; i++)
                send_weighted(pl, io, pkt, 0, i, e->D);
            for (uint32_t i = 1; i <= e->rho; i++) {
                uint32_t weight = i <= e->k ? e->w + 1 : e->w;
                if (weight > 0) /* erratum: no weight-0 sends */
                    send_weighted(pl, io, pkt, 1, i, weight);
            }
            if (j + 1 < pl->npk)
                io->wake = io->slot + 1;
        }
        return 0;
    }
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        uint32_t weight = k->tag & ~TAG_CCW;
        int ccw = (k->tag & TAG_CCW) != 0;
        if (weight == 0 || (weight > e->D && weight > e->w + 1))
            return sn_err_set(err, SN_EALGO, "packet with weight %u (tag %#x)", weight, k->tag);
        sn_step_deliver(io, k);
        if (--weight > 0)
            send_weighted(pl, io, *k, ccw, e->rho, weight);
    }
    return 0;
}

const sn_algo_t sn__algo_bcast_ering = {
    .name = "bcast-ering",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "ring, ering, complete",
    .summary = "the weight protocol of E_n^rho: paths jumping rho, built on the fly from the tag",
    .source = "Dimakopoulos, thesis, section 3.1 (from its reference [17]); weight-0 sends "
              "skipped (an erratum of the printed rule)",
    .predicts = "D + packets - 1, D = ceil(floor(n/2)/rho) the diameter",
    .applies = bcast_ering_applies,
    .plan_new = bcast_ering_plan_new,
    .plan_free = bcast_ering_plan_free,
    .predicted = bcast_ering_predicted,
    .state_size = sizeof(state_t),
    .node_init = bcast_ering_node_init,
    .node_step = bcast_ering_node_step,
};
