/* bcast-binomial: broadcast over the binomial tree of the hypercube Q_d, both port models
 * (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1 and Fig. 3.1 (the tree), section 3.2.2 (it meets the
 * single-port bound).
 *  - multiport: flooding (engine/flood.c): node x receives in slot popcount(x XOR root)
 *    and forwards to all its children in the next; d slots, e(v), optimal. M = msgs * frags
 *    packets pipeline: d + M - 1.
 *  - single-port: the ordered schedule (engine/ordered.c, eq. 6.1): a node serves its
 *    children slowest subtree first, which on the binomial tree is the highest dimension first: the
 *    node whose lowest relative bit is j (j = d at the root) is informed in slot d - j and sends
 *    to x + 2^(j-1), ..., x + 1 in slots d - j + 1, ..., d. d = log2 n slots, the Theorem 3.3
 *    bound. For M > 1 the engine replays its schedule for the exact count. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/flood.h"
#include "core/algo/engine/ordered.h"
#include "core/algo/engine/tree_binomial.h"
#include "stepnet/util.h"

typedef struct {
    int single; /* the ordered schedule (single-port) rather than flooding */
    void *sub;  /* the engine's plan */
} plan_t;

typedef struct {
    int single;
    union {
        void *align;
        unsigned char flood[SN__FLOOD_STATE_SIZE];
        unsigned char ordered[SN__ORDERED_STATE_SIZE];
    } sub;
} state_t;

static int bcast_binomial_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->kind != SN_TOPO_HYPERCUBE)
        return sn_err_set(err, SN_ENOTSUP, "bcast-binomial needs a hypercube (hypercube:D), not %s",
                          t->spec);
    return 0;
}

static int bcast_binomial_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->single = p->pm.ports == SN_PORTS_SINGLE;
    int rc = pl->single ? sn__ordered_plan_new(t, p, sn__tree_binomial, &pl->sub, err)
                        : sn__flood_plan_new(t, p, sn__tree_binomial, &pl->sub, err);
    if (rc < 0) {
        free(pl);
        return rc;
    }
    *out = pl;
    return 0;
}

static void bcast_binomial_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl->single)
        sn__ordered_plan_free(pl->sub);
    else
        sn__flood_plan_free(pl->sub);
    free(pl);
}

static int64_t bcast_binomial_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return pl->single ? sn__ordered_predicted(pl->sub) : sn__flood_predicted(pl->sub);
}

static int bcast_binomial_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    const plan_t *pl = plan;
    state_t *s = state;
    s->single = pl->single;
    return pl->single ? sn__ordered_node_init(pl->sub, u, s->sub.ordered, err)
                      : sn__flood_node_init(pl->sub, u, s->sub.flood, err);
}

static void bcast_binomial_node_fini(void *state)
{
    state_t *s = state;
    if (s->single)
        sn__ordered_node_fini(s->sub.ordered);
}

static int bcast_binomial_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    return s->single ? sn__ordered_node_step(s->sub.ordered, io, err)
                     : sn__flood_node_step(s->sub.flood, io, err);
}

const sn_algo_t sn__algo_bcast_binomial = {
    .name = "bcast-binomial",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_ALL,
    .topos = "hypercube",
    .summary = "binomial tree: flooding (multiport), highest dimension first (single-port)",
    .source = "Dimakopoulos, thesis, section 3.1, Fig. 3.1; section 3.2.2 (single-port optimal)",
    .predicts = "d + packets - 1 (multiport); the schedule's count, d for one packet (single-port)",
    .applies = bcast_binomial_applies,
    .plan_new = bcast_binomial_plan_new,
    .plan_free = bcast_binomial_plan_free,
    .predicted = bcast_binomial_predicted,
    .state_size = sizeof(state_t),
    .node_init = bcast_binomial_node_init,
    .node_fini = bcast_binomial_node_fini,
    .node_step = bcast_binomial_node_step,
};
