/* allreduce-flood and barrier-flood: flooding of partial combinations under an idempotent operator,
 * on any graph in the multiport model (core/algo).
 *
 * In every slot every node that holds a partial value sends it on all its links and combines what
 * it receives into it. With an idempotent operator (max, min, and, or: a op a = a) a contribution
 * counted twice changes nothing, so after s slots a node's value combines exactly the contributions
 * of the processors within distance s of it, and every processor holds the whole combination after
 * the diameter D between processors: D slots, which meets the diameter bound (every processor needs
 * the contribution of the one farthest from it). This is the flooding (full-information gossip)
 * of the gossiping survey of Hedetniemi, Hedetniemi and Liestman (Networks 18, 1988), applied to
 * values that may be combined in any order and any number of times. Sum and xor are not idempotent
 * (a contribution heard over two paths would count twice), so the algorithms refuse them; one value
 * per processor only (--msgs and --frags 1), as the links carry one packet per slot. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t diameter; /* between processors: the slots of the flood */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    int have; /* 1 once the node holds a partial (a processor from the start, a router later) */
    uint64_t value;
} state_t;

static int flood_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (!sn_op_is_idempotent(p->op))
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_OP,
                                "flooding counts a contribution once per path that reaches a node: "
                                "it needs an idempotent operator (" SN_OP_IDEMPOTENT_NAMES
                                "), not %s",
                                sn_op_name(p->op));
    if ((uint64_t) p->msgs * p->frags != 1)
        return sn_err_set(err, SN_ENOTSUP,
                          "flooding sends one partial per link and slot: it combines one value per "
                          "processor (" SN_REF_MSGS " 1, " SN_REF_FRAGS " 1), not %u x %u",
                          p->msgs, p->frags);
    if (t->nproc < 2)
        return sn_err_set(err, SN_ENOTSUP, "flooding needs two processors or more; %s has %u",
                          t->spec, t->nproc);
    return 0;
}

static int flood_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = flood_applies(t, p, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->diameter = sn_topo_diameter(t, 1);
    *out = pl;
    return 0;
}

static void flood_plan_free(void *plan)
{
    free(plan);
}

static int64_t flood_predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->diameter;
}

static int flood_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    s->pl = pl;
    s->u = node;
    s->have = sn_topo_is_proc(pl->t, node);
    if (s->have)
        s->value = sn_contrib_value(pl->p, node, node, 0, 0);
    return 0;
}

static int flood_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    /* ---- combine what the neighbours sent in the slot before ---- */
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pk = &io->rx[r].pkt;
        if (pk->src != SN_SRC_COMBINED || pk->seq != 0 || pk->frag != 0)
            return sn_err_set(err, SN_EALGO, "node %u got an unexpected partial (seq %u, frag %u)",
                              s->u, pk->seq, pk->frag);
        s->value = s->have ? sn_op_apply(p->op, s->value, pk->digest) : pk->digest;
        s->have = 1;
    }
    /* ---- after D slots every processor combines every contribution: deliver ---- */
    if (io->slot == (uint64_t) pl->diameter + 1 && sn_topo_is_proc(pl->t, s->u)) {
        sn_packet_t dl = sn_packet_contrib(p, s->u, s->u, 0, 0);
        dl.digest = s->value;
        sn_step_deliver(io, &dl);
    }
    /* ---- slots 1 .. D: flood the partial on every link ---- */
    if (io->slot <= pl->diameter) {
        if (s->have) {
            sn_packet_t pk = sn_packet_contrib(p, s->u, SN_NODE_ALL, 0, 0);
            pk.digest = s->value;
            uint32_t deg = pl->t->port_off[s->u + 1] - pl->t->port_off[s->u];
            for (uint32_t port = 0; port < deg; port++)
                sn_step_send(io, port, &pk);
        }
        io->wake = io->slot + 1;
    }
    return 0;
}

#define FLOOD_FIELDS                                                                               \
    .pm_mask = SN_PM_MULTI, .topos = "any", .applies = flood_applies, .plan_new = flood_plan_new,  \
    .plan_free = flood_plan_free, .predicted = flood_predicted, .state_size = sizeof(state_t),     \
    .node_init = flood_node_init, .node_step = flood_node_step

const sn_algo_t sn__algo_allreduce_flood = {
    .name = "allreduce-flood",
    .coll = SN_COLL_ALLREDUCE,
    .summary = "every node floods its partial on all links each slot (idempotent " SN_REF_OP
               ": max, min, and, or)",
    .source = "Hedetniemi, Hedetniemi and Liestman, gossiping survey, Networks 1988: flooding, "
              "which meets the diameter bound",
    .predicts = "D, the diameter between processors (multiport, an idempotent " SN_REF_OP
                ": max, min, and, "
                "or; one value)",
    FLOOD_FIELDS,
};

const sn_algo_t sn__algo_barrier_flood = {
    .name = "barrier-flood",
    .coll = SN_COLL_BARRIER,
    .summary = "every node floods the tokens it has combined on all links each slot (" SN_REF_OP
               " max by default)",
    .source = "Hedetniemi, Hedetniemi and Liestman, gossiping survey, Networks 1988: flooding, "
              "which meets the diameter bound",
    .predicts =
        "D, the diameter between processors (multiport, an idempotent " SN_REF_OP ": max by "
        "default, min, and, or)",
    FLOOD_FIELDS,
};
