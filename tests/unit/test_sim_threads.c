/* Unit tests of the simulator's parallel stepping (core/sim, sn_sim_opts_t.threads): for every
 * algorithm marked parallel, on topologies and port models that exercise its code (multiport,
 * single-port with one or any reception, half duplex), a run on 2 and 3 threads, splitting every
 * slot, gives exactly the serial run's result: steps, packets, deliveries, trace hash, node steps,
 * the largest queue and its node. Also: an error met on a thread is the serial run's error, and
 * sn_sim_threads_used says when and why it steps serially. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/support/testutil.h"

typedef struct {
    const char *topo, *coll, *algo, *ports, *rx, *duplex;
} pcase_t;

/* Runs one case with `threads` (1: serial), every slot split when threads > 1. */
static sn_sim_result_t run_case(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a,
                                const void *plan, uint32_t threads, int *rc, sn_err_t *err)
{
    sn_sim_opts_t o = {.max_slots = 1u << 22, .threads = threads, .min_split = 1};
    sn_sim_result_t res;
    *rc = sn_sim_run(t, p, a, plan, &o, &res, err);
    return res;
}

static void same_result(const pcase_t *c, uint32_t threads, const sn_sim_result_t *x,
                        const sn_sim_result_t *y)
{
#define SAME(f)                                                                                    \
    do {                                                                                           \
        if (x->f != y->f)                                                                          \
            fail_msg("%s %s %s (%s, rx %s, %s) on %u threads: " #f " %llu, serially %llu",         \
                     c->algo, c->coll, c->topo, c->ports, c->rx, c->duplex, threads,               \
                     (unsigned long long) y->f, (unsigned long long) x->f);                        \
    } while (0)
    SAME(steps);
    SAME(control_slots);
    SAME(packets);
    SAME(control_packets);
    SAME(deliveries);
    SAME(expected_deliveries);
    SAME(trace_hash);
    SAME(node_steps);
    SAME(max_slot_sends);
    SAME(max_queue);
    SAME(max_queue_node);
    SAME(max_queue_reported);
    SAME(verified);
#undef SAME
}

static sn_coll_t coll_of(const char *name)
{
    sn_coll_t c;
    sn_err_t err = {0};
    if (sn_coll_parse(name, &c, &err) < 0)
        fail_msg("unknown collective %s: %s", name, err.msg);
    return c;
}

static void test_threads_same_result(void **state)
{
    (void) state;
    static const pcase_t cases[] = {
        {"hypercube:6", "te", "te-route", "multi", "one", "full"},
        {"hypercube:6", "te", "te-route", "single", "one", "full"},
        {"hypercube:6", "te", "te-route", "single", "any", "full"},
        {"hypercube:6", "te", "te-route", "multi", "one", "half"},
        {"torus:6x5", "te", "te-route", "single", "any", "half"},
        {"torus:5x6", "mnb", "mnb-route", "multi", "one", "full"},
        {"mesh:5x4", "mnb", "mnb-route", "single", "one", "full"},
        {"hypercube:5", "te", "te-cayley", "single", "one", "full"},
        {"torus:4x6", "te", "te-cayley", "single", "one", "full"},
        {"torus:6x6", "te", "te-a3", "multi", "one", "full"},
        {"hypercube:6", "te", "te-hypercube", "multi", "one", "full"},
        {"torus:4x4", "te", "te-a2", "single", "one", "full"},
        {"hypercube:5", "mnb", "mnb-cayley", "multi", "one", "full"},
        {"mesh:6x7", "bcast", "bcast-tree", "multi", "one", "full"},
        {"mesh:6x7", "scatter", "scatter-balanced", "multi", "one", "full"},
        {"torus:5x5", "gather", "gather-balanced", "multi", "one", "full"},
        {"torus:5x5", "scatter", "scatter-ff", "single", "one", "full"},
        {"ring:9", "mnb", "mnb-balanced", "multi", "one", "full"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const pcase_t *c = &cases[i];
        sn_topo_t *t = tu_topo(c->topo);
        sn_params_t p = tu_params(coll_of(c->coll), c->ports, c->rx, c->duplex);
        p.msgs = 2;
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        int64_t pred;
        sn_err_t err = {0};
        if (sn_model_select(c->algo, t, &p, &a, &plan, &pred, &err) < 0)
            fail_msg("%s on %s: %s", c->algo, c->topo, err.msg);
        assert_true(a->parallel);
        int rc;
        sn_sim_result_t serial = run_case(t, &p, a, plan, 1, &rc, &err);
        if (rc < 0 || !serial.verified)
            fail_msg("%s on %s: serial run failed: %s", c->algo, c->topo, err.msg);
        for (uint32_t threads = 2; threads <= 3; threads++) {
            sn_sim_opts_t o = {.threads = threads};
            assert_int_equal(sn_sim_threads_used(t, &p, a, &o, NULL), threads);
            sn_sim_result_t par = run_case(t, &p, a, plan, threads, &rc, &err);
            if (rc < 0)
                fail_msg("%s on %s, %u threads: %s", c->algo, c->topo, threads, err.msg);
            same_result(c, threads, &serial, &par);
        }
        a->plan_free(plan);
        sn_topo_free(t);
    }
}

/* ---- an algorithm that fails: the same error on threads as serially ------------------------ */

/* Every node sends its node id to its first neighbour in every slot up to 3; node `bad` delivers
 * a packet that is not for it in slot 3 (SN_EVERIFY), and node `bad2`, later in the active list,
 * fails its step in slot 3 too: the error reported must be the earlier node's, as serially. */
typedef struct {
    uint32_t u;
    const sn_params_t *p;
} fstate_t;

static uint32_t bad = 5, bad2 = 40;

static int f_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    fstate_t *s = state;
    s->u = node;
    s->p = plan;
    return 0;
}

static int f_step(void *state, sn_step_t *io, sn_err_t *err)
{
    fstate_t *s = state;
    if (io->slot == 3 && s->u == bad) {
        sn_packet_t k = sn_packet_data(s->p, s->u, s->u, 0, 0);
        sn_step_deliver(io, &k); /* not for it: te sends nothing to oneself */
    }
    if (io->slot == 3 && s->u == bad2)
        return sn_err_set(err, SN_EALGO, "node %u gives up", s->u);
    if (io->slot < 3) {
        sn_packet_t k = {.src = s->u, .dst = s->u, .kind = SN_PKT_CONTROL, .digest = io->slot};
        sn_step_send(io, 0, &k);
        io->wake = io->slot + 1;
    } else if (io->slot == 3 && io->nrx == 0) {
        io->wake = io->slot + 1;
    }
    return 0;
}

static int f_plan(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    (void) t;
    (void) err;
    *plan = (void *) p;
    return 0;
}

static void f_plan_free(void *plan)
{
    (void) plan;
}

static void test_threads_same_error(void **state)
{
    (void) state;
    sn_algo_t a = {.name = "test-fail",
                   .coll = SN_COLL_TE,
                   .pm_mask = SN_PM_ALL,
                   .plan_new = f_plan,
                   .plan_free = f_plan_free,
                   .state_size = sizeof(fstate_t),
                   .node_init = f_init,
                   .node_step = f_step,
                   .parallel = 1};
    sn_topo_t *t = tu_topo("hypercube:6");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_err_t e1 = {0}, e2 = {0};
    int rc1, rc2;
    run_case(t, &p, &a, &p, 1, &rc1, &e1);
    tu_assert_rc(rc1, SN_EVERIFY);
    for (uint32_t threads = 2; threads <= 4; threads++) {
        memset(&e2, 0, sizeof e2);
        run_case(t, &p, &a, &p, threads, &rc2, &e2);
        tu_assert_rc(rc2, rc1);
        assert_string_equal(e2.msg, e1.msg);
    }
    /* the other error alone: the step's failure, named the same way */
    bad = UINT32_MAX;
    run_case(t, &p, &a, &p, 1, &rc1, &e1);
    tu_assert_rc(rc1, SN_EALGO);
    run_case(t, &p, &a, &p, 3, &rc2, &e2);
    tu_assert_rc(rc2, SN_EALGO);
    assert_string_equal(e2.msg, e1.msg);
    bad = 5;
    sn_topo_free(t);
}

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    (void) ctx;
    (void) slot;
    (void) node;
    (void) port;
    (void) pkt;
}

/* When it steps serially, and why. */
static void test_threads_used(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:4");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    const sn_algo_t *route = sn_model_find("te-route"), *serial = sn_model_find("te-ring");
    const char *why = NULL;
    sn_sim_opts_t o = {.threads = 4};
    assert_int_equal(sn_sim_threads_used(t, &p, route, &o, &why), 4);
    assert_null(why);
    o.threads = 1;
    assert_int_equal(sn_sim_threads_used(t, &p, route, &o, &why), 1);
    assert_non_null(strstr(why, "one thread"));
    assert_int_equal(sn_sim_threads_used(t, &p, route, NULL, &why), 1);
    o.threads = 1000;
    assert_int_equal(sn_sim_threads_used(t, &p, route, &o, &why), SN_SIM_MAX_THREADS);
    assert_non_null(serial);
    assert_false(serial->parallel);
    o.threads = 2;
    assert_int_equal(sn_sim_threads_used(t, &p, serial, &o, &why), 1);
    assert_non_null(strstr(why, "not marked independent"));
    o.on_send = on_send;
    assert_int_equal(sn_sim_threads_used(t, &p, route, &o, &why), 1);
    assert_non_null(strstr(why, "in order"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_result),
        cmocka_unit_test(test_threads_same_error),
        cmocka_unit_test(test_threads_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
