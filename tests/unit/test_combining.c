/* Unit tests of the MPI staples (core/algo/allreduce/: allreduce_tree.c, allreduce_rd.c,
 * allreduce_flood.c, allreduce_product.c, and core/algo/mna/mna_tree.c; their bounds in
 * core/model/bounds.c; combined-value verification in core/sim/verify.c): allreduce, barrier and
 * mna (reduce_scatter) in the simulator on many topologies, every port model they support and every
 * operator, each run verified value by value and checked against its prediction and every lower
 * bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

static const char *const pms[][3] = {{"multi", "one", "full"},  {"single", "one", "full"},
                                     {"single", "any", "full"}, {"multi", "one", "half"},
                                     {"single", "one", "half"}, {"single", "any", "half"}};
#define NPMS (sizeof pms / sizeof pms[0])

/* Runs algo, fails unless verified, exactly as predicted (when it predicts) and at or above every
 * bound; returns the steps. */
static uint64_t run_ok(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    tu_run_t r = tu_sim(t, p, algo);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s %s on %s (op %s, msgs %u): rc %d, %s", r.algo->name, sn_coll_name(p->coll),
                 t->spec, sn_op_name(p->op), p->msgs, r.rc, r.err.msg);
    assert_int_equal(r.res.deliveries, r.res.expected_deliveries);
    assert_int_equal(r.res.deliveries, (uint64_t) t->nproc * p->msgs * p->frags);
    if (r.predicted >= 0 && (int64_t) r.res.steps != r.predicted)
        fail_msg("%s on %s (%s %s %s, msgs %u): %llu steps, predicted %lld", r.algo->name, t->spec,
                 p->pm.ports == SN_PORTS_SINGLE ? "single" : "multi",
                 p->pm.rx == SN_RX_ANY ? "any" : "one",
                 p->pm.duplex == SN_DUPLEX_HALF ? "half" : "full", p->msgs,
                 (unsigned long long) r.res.steps, (long long) r.predicted);
    for (size_t i = 0; i < r.bounds.count; i++)
        if ((int64_t) r.res.steps < r.bounds.b[i].value)
            fail_msg("%s on %s: %llu steps below the bound %s = %lld", r.algo->name, t->spec,
                     (unsigned long long) r.res.steps, r.bounds.b[i].name,
                     (long long) r.bounds.b[i].value);
    return r.res.steps;
}

static sn_params_t params(sn_coll_t c, size_t pm, int op, uint32_t msgs)
{
    sn_params_t p = tu_params(c, pms[pm][0], pms[pm][1], pms[pm][2]);
    p.op = (sn_op_t) op;
    p.msgs = msgs;
    return p;
}

static void test_names(void **state)
{
    (void) state;
    static const struct {
        const char *name;
        sn_coll_t c;
    } cases[] = {
        {"allreduce", SN_COLL_ALLREDUCE}, {"barrier", SN_COLL_BARRIER},    {"mna", SN_COLL_MNA},
        {"reduce_scatter", SN_COLL_MNA},  {"reduce-scatter", SN_COLL_MNA}, {"reduce", SN_COLL_SNA}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_coll_t c = SN_COLL_COUNT;
        tu_assert_rc(sn_coll_parse(cases[i].name, &c, NULL), 0);
        assert_int_equal(c, cases[i].c);
        assert_true(sn_coll_is_combining(c));
        assert_false(sn_coll_is_broadcast(c));
    }
    assert_string_equal(sn_coll_name(SN_COLL_ALLREDUCE), "allreduce");
    assert_string_equal(sn_coll_name(SN_COLL_BARRIER), "barrier");
    assert_string_equal(sn_coll_name(SN_COLL_MNA), "mna");
}

/* allreduce and barrier: one value per processor whatever the destination, so every processor
 * must end with the same combination; mna: one per destination. */
static void test_contributions(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:5");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    assert_int_equal(sn_contrib_value(&p, 2, 0, 0, 0), sn_contrib_value(&p, 2, 4, 0, 0));
    assert_int_equal(sn_combined_value(t, &p, 0, 0, 0), sn_combined_value(t, &p, 3, 0, 0));
    assert_int_not_equal(sn_contrib_value(&p, 2, 0, 0, 0), sn_contrib_value(&p, 3, 0, 0, 0));
    p.coll = SN_COLL_MNA;
    assert_int_not_equal(sn_contrib_value(&p, 2, 0, 0, 0), sn_contrib_value(&p, 2, 4, 0, 0));
    for (uint32_t u = 0; u < t->n; u++)
        assert_int_equal(sn_coll_expect(t, &p, u).nsrc, 1);
    assert_int_equal(sn_coll_expected_total(t, &p), 5);
    sn_topo_free(t);
}

/* The verifier accepts exactly the combination of every contribution, once: a value missing one
 * operand, holding one twice (where that shows: not under an idempotent operator), or delivered
 * twice fails. */
static void test_verify_values(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3");
    for (int op = 0; op < SN_OP_COUNT; op++) {
        sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
        p.op = (sn_op_t) op;
        /* a contribution whose absence changes the combination (under max the largest, under and
         * a 0 bit no other has): the first seed that has one, so that "missing" can show */
        uint64_t all = 0, less = 0, twice;
        int found = 0;
        for (p.seed = 1; p.seed < 64 && !found; p.seed++) {
            all = sn_combined_value(t, &p, 0, 0, 0);
            for (uint32_t miss = 0; miss < t->n && !found; miss++) {
                int first = 1;
                for (uint32_t u = 0; u < t->n; u++) {
                    if (u == miss)
                        continue;
                    uint64_t x = sn_contrib_value(&p, u, 0, 0, 0);
                    less = first ? x : sn_op_apply(p.op, less, x);
                    first = 0;
                }
                found = less != all;
            }
        }
        assert_true(found);
        p.seed--;
        sn_verify_t *v = sn_verify_new(t, &p, 0, t->n);
        sn_err_t err = {0};
        twice = sn_op_apply(p.op, all, sn_contrib_value(&p, 1, 0, 0, 0));
        sn_packet_t k = sn_packet_contrib(&p, 0, 0, 0, 0);
        k.digest = less;
        tu_assert_rc(sn_verify_delivery(v, 0, 1, &k, &err), SN_EVERIFY);
        if (!sn_op_is_idempotent(p.op)) { /* under max, min, and, or a repeat cannot show */
            k.digest = twice;
            tu_assert_rc(sn_verify_delivery(v, 0, 1, &k, &err), SN_EVERIFY);
        }
        k.digest = all;
        tu_assert_rc(sn_verify_delivery(v, 0, 1, &k, &err), 0);
        tu_assert_rc(sn_verify_delivery(v, 0, 1, &k, &err), SN_EVERIFY);
        k.dst = 1; /* addressed elsewhere */
        tu_assert_rc(sn_verify_delivery(v, 0, 1, &k, &err), SN_EVERIFY);
        tu_assert_rc(sn_verify_complete(v, &err), SN_EVERIFY);
        sn_verify_free(v);
    }
    sn_topo_free(t);
}

static const char *const any_specs[] = {
    "ring:7",     "linear:5", "torus:3x4",       "hypercube:3", "foldedcube:4",
    "complete:6", "star:4",   "fattree:2:3:exp", "ering:9:2",   "ering:7:2*ring:3",
    "mesh:2x3x2", "ccc:3",    "complete:2"};
#define NSPECS (sizeof any_specs / sizeof any_specs[0])

/* allreduce-tree and barrier-tree on every kind of topology, port model and operator, exactly as
 * predicted: 2 e(centre) + s(M-1) multiport, 2 B M single-port. */
static void test_tree(void **state)
{
    (void) state;
    for (size_t si = 0; si < NSPECS; si++) {
        sn_topo_t *t = tu_topo(any_specs[si]);
        for (size_t pi = 0; pi < NPMS; pi++)
            for (int op = 0; op < SN_OP_COUNT; op++) {
                for (uint32_t msgs = 1; msgs <= 4; msgs += 3) {
                    sn_params_t p = params(SN_COLL_ALLREDUCE, pi, op, msgs);
                    run_ok(t, &p, "allreduce-tree");
                }
                sn_params_t b = params(SN_COLL_BARRIER, pi, op, 1);
                run_ok(t, &b, "barrier-tree");
            }
        sn_topo_free(t);
    }
}

/* Multiport with one value: twice the radius of the processors (the tree is rooted at a centre);
 * on a ring of 7 that is 6, on a 3 x 4 torus 2 * 3, on the binary fat tree of 8 leaves the root
 * switch is the centre: 2 * 3. */
static void test_tree_counts(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t multi;
    } cases[] = {{"ring:7", 6}, {"torus:3x4", 6}, {"linear:5", 4}, {"fattree:2:3:exp", 6}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
        assert_int_equal(run_ok(t, &p, "allreduce-tree"), cases[i].multi);
        p.msgs = 5; /* pipelined: one more slot per value */
        assert_int_equal(run_ok(t, &p, "allreduce-tree"), cases[i].multi + 4);
        p.pm.duplex = SN_DUPLEX_HALF; /* two more */
        assert_int_equal(run_ok(t, &p, "allreduce-tree"), cases[i].multi + 8);
        sn_topo_free(t);
    }
    /* single-port on a ring of 8 from node 0: the ordered broadcast takes 4 (two ways round);
     * accumulation plus broadcast 8 */
    sn_topo_t *t = tu_topo("ring:8");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 1, SN_OP_XOR, 1);
    assert_int_equal(run_ok(t, &p, "allreduce-tree"), 8);
    p.msgs = 3;
    assert_int_equal(run_ok(t, &p, "allreduce-tree"), 24);
    sn_topo_free(t);
}

/* Recursive doubling: d slots for one value in every full-duplex port model, M + d - 1 multiport
 * and d M single-port for M values; the single-port run meets the doubling bound. */
static void test_rd(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t d;
    } cases[] = {{"hypercube:1", 1}, {"hypercube:3", 3}, {"hypercube:5", 5}, {"foldedcube:4", 4},
                 {"complete:2", 1},  {"complete:8", 3},  {"complete:16", 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        uint32_t d = cases[i].d;
        for (size_t pi = 0; pi < 3; pi++)
            for (int op = 0; op < SN_OP_COUNT; op++) {
                sn_params_t p = params(SN_COLL_ALLREDUCE, pi, op, 1);
                assert_int_equal(run_ok(t, &p, "allreduce-rd"), d);
                sn_params_t b = params(SN_COLL_BARRIER, pi, op, 1);
                tu_run_t r = tu_sim(t, &b, "barrier-rd");
                assert_true(r.res.verified);
                assert_int_equal(r.res.steps, d);
                if (pi > 0) /* single-port: the doubling bound is met */
                    assert_int_equal(r.bounds.best, d);
                p.msgs = 3;
                p.frags = 2;
                /* multiport: groups of d values, each across every dimension at once */
                assert_int_equal(run_ok(t, &p, "allreduce-rd"),
                                 pi == 0 ? (6 + d - 1) / d * d : 6 * d);
            }
        sn_topo_free(t);
    }
}

/* Where recursive doubling does not apply, and what auto picks. */
static void test_rd_refusals(void **state)
{
    (void) state;
    sn_err_t err = {0};
    const sn_algo_t *a = sn_model_find("allreduce-rd");
    assert_non_null(a);
    const char *bad[] = {"complete:6", "ring:8", "torus:4x4"};
    for (size_t i = 0; i < 3; i++) {
        sn_topo_t *t = tu_topo(bad[i]);
        sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
        tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
        /* auto still finds another: on a complete graph the one-step complete exchange, on a
         * ring or a torus the windows (the diameter, half the tree's 8) */
        tu_run_t r = tu_sim(t, &p, "auto");
        assert_string_equal(r.algo->name, i == 0 ? "allreduce-product" : "allreduce-window");
        assert_int_equal(r.res.steps, i == 0 ? 1 : 4);
        assert_true(r.res.verified);
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 3, SN_OP_SUM, 1); /* half duplex */
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    p = params(SN_COLL_ALLREDUCE, 1, SN_OP_SUM, 1); /* single-port: rd (3) beats the tree (6) */
    tu_run_t r = tu_sim(t, &p, "auto");
    assert_string_equal(r.algo->name, "allreduce-rd");
    sn_topo_free(t);
    t = tu_topo("complete:8"); /* multiport: one complete exchange (1) beats rd (3) */
    p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
    r = tu_sim(t, &p, "auto");
    assert_string_equal(r.algo->name, "allreduce-product");
    assert_int_equal(r.res.steps, 1);
    sn_topo_free(t);
}

/* A graph in the `file:` format: a 5-cycle 0..4, node 5 hanging from 2, and node 7 behind the
 * router 6 hanging from 1. D = 4 between processors (7 to 3 and 7 to 5, through the router). */
static const char file_graph[] = "# a 5-cycle, a pendant path through a router\n"
                                 "0 1\n1 2\n2 3\n3 4\n4 0\n1 6\n6 7\n5 2\n"
                                 "router 6\n";

/* Flooding under each idempotent operator (max, min, and, or): every graph, routers included,
 * takes D, the diameter between processors, which is the diameter bound; the payload bytes of
 * every delivery are checked. */
static void test_flood(void **state)
{
    (void) state;
    char *path = tu_tmpfile(file_graph);
    char spec[300];
    snprintf(spec, sizeof spec, "file:%s", path);
    static const struct {
        const char *spec;
        uint32_t d; /* 0: the file graph */
    } cases[] = {{"ring:7", 3},       {"ring:8", 4},      {"linear:5", 4}, {"mesh:4x5", 7},
                 {"torus:4x5", 4},    {"hypercube:3", 3}, {"ccc:3", 6},    {"fattree:4:2", 4},
                 {"foldedcube:4", 2}, {"star:4", 4},      {NULL, 4}};
    static const sn_op_t idempotent[] = {SN_OP_MAX, SN_OP_MIN, SN_OP_AND, SN_OP_OR};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec ? cases[i].spec : spec);
        assert_int_equal(sn_topo_diameter(t, 1), cases[i].d);
        for (size_t o = 0; o < sizeof idempotent / sizeof idempotent[0]; o++) {
            for (int c = 0; c < 2; c++) {
                sn_params_t p =
                    params(c ? SN_COLL_BARRIER : SN_COLL_ALLREDUCE, 0, idempotent[o], 1);
                p.size = c ? 0 : 100;
                const char *name = c ? "barrier-flood" : "allreduce-flood";
                assert_int_equal(run_ok(t, &p, name), cases[i].d);
                tu_run_t r = tu_sim(t, &p, name);
                assert_int_equal(r.bounds.best, cases[i].d); /* optimal */
                /* auto takes it (or a tie at the same count) */
                r = tu_sim(t, &p, "auto");
                assert_int_equal(r.res.steps, cases[i].d);
            }
        }
        sn_topo_free(t);
    }
    free(path);
}

/* The case: barrier on ring:7 took 6 steps (twice the tree's height); flooding the tokens
 * under max takes the diameter, 3, and auto picks it, with the barrier's default operator too.
 * Under an explicit sum (not idempotent) the tree stays. */
static void test_flood_ring7_barrier(void **state)
{
    (void) state;
    /* the default operator: max for barrier (its tokens are idempotent), sum for the others */
    assert_int_equal(sn_op_default(SN_COLL_BARRIER), SN_OP_MAX);
    assert_int_equal(sn_op_default(SN_COLL_ALLREDUCE), SN_OP_SUM);
    static const struct {
        const char *spec;
        uint64_t d; /* the diameter: the barrier's bound, was 2h by the tree */
        const char *algo;
    } defaults[] = {{"ring:7", 3, "barrier-flood"},
                    {"torus:5x7", 5, "barrier-flood"},
                    {"torus:3x3", 2, "barrier-product"}};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        sn_topo_t *d = tu_topo(defaults[i].spec);
        sn_params_t dp = tu_params(SN_COLL_BARRIER, "multi", "one", "full");
        assert_int_equal(dp.op, SN_OP_MAX);
        tu_run_t dr = tu_sim(d, &dp, "auto");
        assert_string_equal(dr.algo->name, defaults[i].algo);
        assert_true(dr.res.verified);
        assert_int_equal(dr.res.steps, defaults[i].d);
        assert_int_equal(dr.bounds.best, defaults[i].d);
        sn_topo_free(d);
    }
    sn_topo_t *t = tu_topo("ring:7");
    sn_params_t p = params(SN_COLL_BARRIER, 0, SN_OP_MAX, 1);
    tu_run_t r = tu_sim(t, &p, "auto");
    assert_string_equal(r.algo->name, "barrier-flood");
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 3);
    p.op = SN_OP_SUM;
    r = tu_sim(t, &p, "auto");
    assert_string_equal(r.algo->name, "barrier-tree");
    assert_int_equal(r.res.steps, 6);
    sn_topo_free(t);
}

/* Flooding refuses what would count a contribution twice or needs more than one packet a link. */
static void test_flood_refusals(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:7");
    const sn_algo_t *a = sn_model_find("allreduce-flood");
    assert_non_null(a);
    sn_err_t err = {0};
    sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    assert_int_equal(err.param, SN_PARAM_OP);
    assert_non_null(strstr(err.msg, "idempotent"));
    assert_non_null(strstr(err.msg, "not sum"));
    assert_non_null(strstr(err.msg, "max, min, and, or"));
    p = params(SN_COLL_ALLREDUCE, 0, SN_OP_XOR, 1);
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    assert_int_equal(err.param, SN_PARAM_OP);
    assert_non_null(strstr(err.msg, "not xor"));
    assert_non_null(strstr(err.msg, "max, min, and, or"));
    /* barrier-flood the same, on an explicit --op sum */
    p = params(SN_COLL_BARRIER, 0, SN_OP_SUM, 1);
    tu_assert_rc(sn_model_check(sn_model_find("barrier-flood"), t, &p, &err), SN_ENOTSUP);
    assert_non_null(strstr(err.msg, "not sum"));
    p = params(SN_COLL_ALLREDUCE, 0, SN_OP_MAX, 2);
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    /* the core names the parameter, not the flag (the CLI names it: test_errmap) */
    assert_non_null(strstr(err.msg, SN_REF_MSGS " 1"));
    p = params(SN_COLL_ALLREDUCE, 1, SN_OP_MAX, 1); /* single-port */
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    sn_topo_free(t);
}

/* Allreduce by dimension on products of complete graphs: one step per dimension for one value,
 * M + d - 1 for M = msgs * frags, every operator (sum included); auto takes it. */
static void test_product(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t d;
    } cases[] = {{"torus:3x3", 2},
                 {"torus:3x3x3", 3},
                 {"torus:2x3", 2},
                 {"complete:5", 1},
                 {"complete:3*complete:4", 2},
                 {"ring:3", 1},
                 {"hypercube:1", 1},
                 {"linear:2*complete:4*ring:3", 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        uint32_t d = cases[i].d;
        for (int op = 0; op < SN_OP_COUNT; op++) {
            sn_params_t p = params(SN_COLL_ALLREDUCE, 0, op, 1);
            p.size = 64;
            assert_int_equal(run_ok(t, &p, "allreduce-product"), d);
            tu_run_t r = tu_sim(t, &p, "auto");
            assert_int_equal(r.res.steps, d);
            assert_int_equal(r.bounds.best, d); /* the diameter: optimal */
            p.msgs = 3;
            p.frags = 2;
            assert_int_equal(run_ok(t, &p, "allreduce-product"), 6 + d - 1);
            sn_params_t b = params(SN_COLL_BARRIER, 0, op, 1);
            assert_int_equal(run_ok(t, &b, "barrier-product"), d);
        }
        sn_topo_free(t);
    }
    /* the case: allreduce sum on torus:3x3 took 4 (the tree), now 2 */
    sn_topo_t *t = tu_topo("torus:3x3");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
    tu_run_t r = tu_sim(t, &p, "auto");
    assert_string_equal(r.algo->name, "allreduce-product");
    assert_int_equal(r.res.steps, 2);
    sn_topo_free(t);
    /* hypercube:4 = K2^4: 4 (recursive doubling, the same count, comes first) */
    t = tu_topo("hypercube:4");
    r = tu_sim(t, &p, "auto");
    assert_int_equal(r.res.steps, 4);
    sn_topo_free(t);
}

/* Where a factor is not complete (ring:4 in torus:4x4), or a port model other than multiport full
 * duplex: refused, naming the factor. */
static void test_product_refusals(void **state)
{
    (void) state;
    const sn_algo_t *a = sn_model_find("allreduce-product");
    assert_non_null(a);
    sn_err_t err = {0};
    sn_topo_t *t = tu_topo("torus:4x4");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 1);
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    assert_non_null(strstr(err.msg, "ring:4"));
    sn_topo_free(t);
    const char *bad[] = {"hypercube:3", "fattree:4:2", "ring:5"};
    for (size_t i = 0; i < 3; i++) {
        t = tu_topo(bad[i]);
        tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
        sn_topo_free(t);
    }
    t = tu_topo("torus:3x3");
    for (size_t pi = 1; pi < NPMS; pi++) {
        p = params(SN_COLL_ALLREDUCE, pi, SN_OP_SUM, 1);
        tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    }
    sn_topo_free(t);
}

/* A barrier moves one token: more messages or fragments are refused, naming the parameter. */
static void test_barrier_params(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_BARRIER, "multi", "one", "full");
    sn_err_t err = {0};
    tu_assert_rc(sn_params_check(t, &p, &err), 0);
    p.msgs = 2;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_MSGS);
    p.msgs = 1;
    p.frags = 2;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_FRAGS);
    sn_topo_free(t);
}

/* mna (reduce_scatter) over one BFS tree per processor: verified everywhere, at or above its
 * bounds; with one value on a complete graph a single slot. */
static void test_mna(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:6", "torus:3x3", "hypercube:3", "fattree:2:2:2,3",
                                        "complete:5"};
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (int single = 0; single < 2; single++)
            for (int op = 0; op < SN_OP_COUNT; op++) {
                sn_params_t p = params(SN_COLL_MNA, single ? 2 : 0, op, 1 + (uint32_t) single);
                uint64_t s = run_ok(t, &p, "mna-tree");
                if (!single && strcmp(specs[si], "complete:5") == 0)
                    assert_int_equal(s, 1);
            }
        sn_topo_free(t);
    }
}

/* The bounds: the diameter with pipelining, ceil(log2 P) single-port, and the one-way gossip
 * count 2(P - 1) M over the 2|E| arcs. */
static void test_bounds(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("complete:6");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 1, SN_OP_SUM, 1);
    sn_bounds_t b;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_bounds(t, &p, &b, &err), 0);
    assert_int_equal(b.best, 3); /* ceil(log2 6) */
    p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 11);
    tu_assert_rc(sn_model_bounds(t, &p, &b, &err), 0);
    assert_int_equal(b.best, 4); /* ceil(2 x 5 x 11 / 30); the diameter gives 1 + ceil(11/5) - 1 */
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_contributions),
        cmocka_unit_test(test_verify_values),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_tree_counts),
        cmocka_unit_test(test_rd),
        cmocka_unit_test(test_rd_refusals),
        cmocka_unit_test(test_barrier_params),
        cmocka_unit_test(test_mna),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_flood_ring7_barrier),
        cmocka_unit_test(test_flood_refusals),
        cmocka_unit_test(test_product),
        cmocka_unit_test(test_product_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
