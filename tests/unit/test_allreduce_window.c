/* Unit tests of allreduce-window (core/algo/allreduce/allreduce_window.c) in the simulator:
 * verified value by value on rings, linear arrays, tori and meshes with every operator, packets
 * and fragments, exactly as predicted and at or above every lower bound; one value in the
 * diameter (the sum of the factors' floor(k/2) or k - 1), which auto takes where the tree takes
 * twice the radius; one way round single-port and half duplex; the topologies it does not
 * serve refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

/* Runs allreduce-window, fails unless verified, exactly as predicted and at or above every
 * bound; returns the steps. */
static uint64_t run_ok(const sn_topo_t *t, const sn_params_t *p)
{
    tu_run_t r = tu_sim(t, p, "allreduce-window");
    if (r.rc != 0 || !r.res.verified)
        fail_msg("allreduce-window on %s (op %s, msgs %u, frags %u): rc %d, %s", t->spec,
                 sn_op_name(p->op), p->msgs, p->frags, r.rc, r.err.msg);
    assert_int_equal(r.res.deliveries, r.res.expected_deliveries);
    if ((int64_t) r.res.steps != r.predicted)
        fail_msg("allreduce-window on %s (msgs %u): %llu steps, predicted %lld", t->spec, p->msgs,
                 (unsigned long long) r.res.steps, (long long) r.predicted);
    for (size_t i = 0; i < r.bounds.count; i++)
        if ((int64_t) r.res.steps < r.bounds.b[i].value)
            fail_msg("allreduce-window on %s (msgs %u): %llu steps below the bound %s = %lld",
                     t->spec, p->msgs, (unsigned long long) r.res.steps, r.bounds.b[i].name,
                     (long long) r.bounds.b[i].value);
    return r.res.steps;
}

/* One value in the diameter; several values verified, never faster than one. */
static void test_window(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t one; /* the steps for one value: the diameter */
    } cases[] = {
        {"ring:2", 1},    {"ring:3", 1},      {"ring:8", 4},     {"ring:9", 4},    {"linear:2", 1},
        {"linear:5", 4},  {"torus:4x4", 4},   {"torus:3x5", 3},  {"torus:8x8", 8}, {"mesh:3x4", 5},
        {"mesh:6x6", 10}, {"torus:3x4x5", 5}, {"mesh:2x3x2", 4}, {"torus:2x4", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        const uint32_t ms[][2] = {{1, 1}, {3, 1}, {2, 3}};
        const sn_op_t ops[] = {SN_OP_SUM, SN_OP_XOR, SN_OP_MAX};
        for (size_t mi = 0; mi < 3; mi++) {
            sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
            p.msgs = ms[mi][0];
            p.frags = ms[mi][1];
            p.op = ops[mi];
            uint64_t s = run_ok(t, &p);
            if (mi == 0 && s != cases[i].one)
                fail_msg("allreduce-window on %s, one value: %llu steps, the diameter is %llu",
                         t->spec, (unsigned long long) s, (unsigned long long) cases[i].one);
            if (s < cases[i].one)
                fail_msg("allreduce-window on %s, %u values: %llu steps", t->spec, p.msgs * p.frags,
                         (unsigned long long) s);
        }
        sn_topo_free(t);
    }
}

/* A link one way at a time (single-port, with one reception or any, half duplex): the windows
 * go one way round a ring (k - 1 steps), right then left along a line (2 (k - 1)); verified with
 * several values, which single-port take their turns one at a time. */
static void test_one_way(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t one;
    } cases[] = {{"ring:8", 7},   {"torus:4x4", 6}, {"torus:8x8", 14},
                 {"linear:5", 8}, {"mesh:3x4", 10}, {"torus:3x5", 6}};
    static const char *const pms[][3] = {{"single", "one", "full"},
                                         {"single", "any", "full"},
                                         {"multi", "one", "half"},
                                         {"single", "one", "half"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        for (size_t pm = 0; pm < 4; pm++) {
            sn_params_t p = tu_params(SN_COLL_ALLREDUCE, pms[pm][0], pms[pm][1], pms[pm][2]);
            if (run_ok(t, &p) != cases[i].one)
                fail_msg("allreduce-window on %s (%s, rx %s, %s duplex), one value: expected "
                         "%llu steps",
                         t->spec, pms[pm][0], pms[pm][1], pms[pm][2],
                         (unsigned long long) cases[i].one);
            p.msgs = 3;
            p.op = SN_OP_XOR;
            uint64_t s = run_ok(t, &p);
            if (pm < 2 && s != 3 * cases[i].one)
                fail_msg("allreduce-window on %s single-port, 3 values: %llu steps, expected "
                         "three turns of %llu",
                         t->spec, (unsigned long long) s, (unsigned long long) cases[i].one);
        }
        sn_topo_free(t);
    }
    /* auto takes it single-port too: torus:8x8 14, where the tree takes 16 */
    sn_topo_t *t = tu_topo("torus:8x8");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "single", "one", "full");
    tu_run_t r = tu_sim(t, &p, NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.algo->name, "allreduce-window");
    assert_int_equal(r.res.steps, 14);
    r = tu_sim(t, &p, "allreduce-tree");
    assert_int_equal(r.res.steps, 16);
    sn_topo_free(t);
}

/* auto takes it for one value: torus:8x8 8 slots (allreduce-tree 16), mesh:4x4 6 (8). */
static void test_auto(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t steps, tree;
    } cases[] = {{"torus:8x8", 8, 16}, {"mesh:4x4", 6, 8}, {"ring:16", 8, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
        tu_run_t tree = tu_sim(t, &p, "allreduce-tree");
        assert_int_equal(tree.rc, 0);
        assert_int_equal(tree.res.steps, cases[i].tree);
        tu_run_t r = tu_sim(t, &p, NULL);
        assert_int_equal(r.rc, 0);
        assert_true(r.res.verified);
        assert_string_equal(r.algo->name, "allreduce-window");
        assert_int_equal(r.res.steps, cases[i].steps);
        sn_topo_free(t);
    }
}

/* Not a ring, a line or their product; routers; an operand list past the budget, refused before
 * it is built. */
static void test_refusals(void **state)
{
    (void) state;
    static const char *const specs[] = {"hypercube:3", "star:4", "fattree:2:2:2,3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("allreduce-window", t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        assert_non_null(strstr(err.msg, "allreduce-window"));
        sn_topo_free(t);
    }
    sn_topo_t *t;
    t = tu_topo("torus:32x32");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("allreduce-window", t, &p, &a, &plan, NULL, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "operands"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_one_way),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
