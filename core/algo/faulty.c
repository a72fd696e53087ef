/* Deliberately illegal algorithms for testing the executors (core/algo): each breaks one rule of
 * the slot model, so that a test can run it through `stepnet sim` and `stepnet run` and check
 * that both fail with the same message (the one of sn_exec_step). They are registered as hidden
 * (core/model/registry.c): selectable only by their exact --algo name, never by auto, and not
 * listed by `stepnet algos`. No paper: these are test fixtures, not algorithms. */
#include <stdlib.h>

#include "algo_internal.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t node;
} state_t;

static int plan_new(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    (void) err;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    *plan = pl;
    return 0;
}

static void plan_free(void *plan)
{
    free(plan);
}

static int64_t predicted(const void *plan)
{
    (void) plan;
    return -1;
}

static int node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *st = state;
    st->pl = plan;
    st->node = node;
    return 0;
}

/* The root sends its packet on ports 0 and 1 in slot 1: two sends in one slot, which the
 * single-port model forbids. */
static int double_send_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    const state_t *st = state;
    const plan_t *pl = st->pl;
    if (io->slot != 1 || st->node != pl->p->root)
        return 0;
    sn_packet_t k = sn_packet_data(pl->p, st->node, SN_NODE_ALL, 0, 0);
    for (uint32_t q = 0; q < 2 && q < sn_topo_degree(pl->t, st->node); q++)
        sn_step_send(io, q, &k);
    return 0;
}

/* The root asks in slot 1 to be woken at slot 1: a wake-up that is not in the future. */
static int past_wake_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    const state_t *st = state;
    if (io->slot == 1 && st->node == st->pl->p->root)
        io->wake = io->slot;
    return 0;
}

#define FAULTY_FIELDS                                                                              \
    .coll = SN_COLL_BCAST, .pm_mask = SN_PM_ALL, .topos = "any (needs degree 2 at the root)",      \
    .source = "none: a test fixture", .predicts = "none", .plan_new = plan_new,                    \
    .plan_free = plan_free, .predicted = predicted, .state_size = sizeof(state_t),                 \
    .node_init = node_init

const sn_algo_t sn__algo_test_double_send = {
    .name = "test-double-send",
    .summary = "testing: the root sends twice in slot 1 (breaks the single-port model)",
    .node_step = double_send_step,
    FAULTY_FIELDS,
};

const sn_algo_t sn__algo_test_past_wake = {
    .name = "test-past-wake",
    .summary = "testing: the root asks to be woken in the slot it is playing",
    .node_step = past_wake_step,
    FAULTY_FIELDS,
};
