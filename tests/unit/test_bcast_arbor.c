/* Unit tests of bcast-arbor (core/algo/bcast/bcast_arbor.c), the multiport broadcast of M packets
 * dealt over k arc-disjoint spanning arborescences, and of their packing (core/algo/engine/
 * arbor.c: Edmonds, "Edge-disjoint branchings"; Lovász, "On two minimax theorems in graph
 * theory"): k is the root's arc connectivity, the trees are arc-disjoint and span every node with
 * consistent depths, and in the simulator the broadcast is verified with steps == predicted ==
 * the deal of the trees' heights, never below a lower bound, with the exact figures of small
 * cases; and its refusals (half duplex, routers, the work limit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/arbor.h"
#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A random 3-regular graph on 16 nodes (configuration model): edge connectivity 3. */
static const char cubic16[] = "# a random 3-regular graph on 16 nodes\n"
                              "0 6\n0 9\n0 10\n1 9\n1 11\n1 15\n2 3\n2 10\n2 14\n3 4\n3 12\n"
                              "4 11\n4 15\n5 7\n5 8\n5 15\n6 8\n6 14\n7 8\n7 11\n9 13\n10 13\n"
                              "12 13\n12 14\n";
/* A triangle with every edge doubled: the parallel edges are separate arcs, k = 4. */
static const char triangle2[] = "0 1\n1 0\n1 2\n2 1\n2 0\n0 2\n";

static char cubic16_spec[300], triangle2_spec[300];

static int setup(void **state)
{
    (void) state;
    char *cubic16_path = tu_tmpfile(cubic16);
    snprintf(cubic16_spec, sizeof cubic16_spec, "file:%s", cubic16_path);
    free(cubic16_path);
    char *triangle2_path = tu_tmpfile(triangle2);
    snprintf(triangle2_spec, sizeof triangle2_spec, "file:%s", triangle2_path);
    free(triangle2_path);
    return 0;
}

/* Packs t from root for M packets and checks the trees: k of them, each spanning every node
 * from root along real ports with depth = the parent's + 1 and its height the largest depth,
 * no arc in two trees, and the order a permutation of the nodes that starts at the root. */
static sn_arbor_t packed(const sn_topo_t *t, uint32_t root, uint32_t M, uint32_t want_k)
{
    sn_arbor_t a;
    sn_err_t err = {0};
    int rc = sn_arbor_pack(t, root, M, "test", &a, &err);
    if (rc != 0)
        fail_msg("%s: %s", t->spec, err.msg);
    if (a.k != want_k)
        fail_msg("%s root %u: k = %u, want %u", t->spec, root, a.k, want_k);
    uint32_t n = t->n;
    uint8_t *used = calloc(t->port_off[n] + 1, 1), *seen = calloc(n, 1);
    for (uint32_t j = 0; j < a.k; j++) {
        const uint32_t *par = a.parent + (size_t) j * n, *pp = a.pport + (size_t) j * n;
        const uint32_t *dep = a.depth + (size_t) j * n, *ord = a.order + (size_t) j * n;
        uint32_t h = 0;
        memset(seen, 0, n);
        assert_int_equal(ord[0], root);
        assert_int_equal(par[root], UINT32_MAX);
        assert_int_equal(dep[root], 0);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(ord[i] < n && !seen[ord[i]]);
            seen[ord[i]] = 1;
        }
        for (uint32_t v = 0; v < n; v++) {
            if (v == root)
                continue;
            uint32_t u = par[v];
            assert_true(u < n);
            assert_true(pp[v] < sn_topo_degree(t, u));
            assert_int_equal(sn_topo_port(t, u, pp[v])->peer, v);
            assert_int_equal(dep[v], dep[u] + 1); /* with depth 0 only at the root: no cycle */
            uint32_t arc = t->port_off[u] + pp[v];
            if (used[arc])
                fail_msg("%s: the arc %u -> %u (port %u) is in two trees", t->spec, u, v, pp[v]);
            used[arc] = 1;
            if (dep[v] > h)
                h = dep[v];
        }
        assert_int_equal(a.height[j], h);
    }
    free(used);
    free(seen);
    return a;
}

/* k = the root's arc connectivity on graphs whose edge connectivity is known. */
static void test_packing(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t root, k;
    } cases[] = {
        {"ring:8", 0, 2},       {"ring:7", 3, 2},      {"linear:5", 0, 1},
        {"linear:5", 2, 1},     {"mesh:4x4", 0, 2},    {"mesh:4x4", 5, 2},
        {"mesh:3x5", 7, 2},     {"torus:3x3", 0, 4},   {"torus:4x4", 0, 4},
        {"torus:6x6", 0, 4},    {"torus:5x3", 2, 4},   {"torus:3x3x3", 0, 6},
        {"hypercube:1", 0, 1},  {"hypercube:3", 0, 3}, {"hypercube:4", 9, 4},
        {"hypercube:6", 0, 6},  {"complete:2", 0, 1},  {"complete:8", 0, 7},
        {"complete:16", 3, 15}, {"star:4", 0, 3},      {"ccc:3", 0, 3},
        {"foldedcube:4", 0, 5}, {NULL, 0, 3},          {NULL, 7, 4},
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        const char *spec = cases[i].spec        ? cases[i].spec
                           : cases[i].root == 0 ? cubic16_spec
                                                : triangle2_spec;
        sn_topo_t *t = tu_topo(spec);
        uint32_t root = cases[i].root % t->n;
        sn_arbor_t a = packed(t, root, 64, cases[i].k);
        sn_arbor_free(&a);
        sn_topo_free(t);
    }
}

/* The heights the breadth-first growth reaches: d + 1 on hypercube:d and 5 on torus:4x4, the
 * least any k = degree trees can have (each enters through one neighbour of the root, whose
 * farthest node is the diameter away); complete graphs 2. */
static void test_heights(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t h;
    } cases[] = {{"hypercube:3", 4}, {"hypercube:4", 5}, {"hypercube:5", 6},
                 {"hypercube:6", 7}, {"torus:4x4", 5},   {"complete:16", 2}};
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_arbor_t a = packed(t, 0, 64, sn_topo_degree(t, 0));
        for (uint32_t j = 0; j < a.k; j++)
            if (a.height[j] != cases[i].h)
                fail_msg("%s: tree %u of height %u, want %u", cases[i].spec, j, a.height[j],
                         cases[i].h);
        sn_arbor_free(&a);
        sn_topo_free(t);
    }
}

/* The deal: the least T with sum_j max(0, T - h_j + 1) >= M, the tallest trees giving up the
 * overshoot, the counts summing to M. */
static void test_deal(void **state)
{
    (void) state;
    uint32_t h[] = {7, 8, 8, 8}, c[4];
    sn_arbor_t a = {.k = 4, .height = h};
    assert_int_equal(sn_arbor_deal(&a, 32, c), 15); /* 9 + 8 + 8 + 8 = 33 >= 32 at T = 15 */
    assert_int_equal(c[0] + c[1] + c[2] + c[3], 32);
    assert_int_equal(c[0], 9);
    assert_int_equal(sn_arbor_deal(&a, 1, c), 7); /* one packet: the shortest tree */
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1] + c[2] + c[3], 0);
    assert_int_equal(sn_arbor_deal(&a, 2, NULL), 8);
}

static tu_run_t run(const sn_topo_t *t, uint32_t root, uint32_t M)
{
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.root = root;
    p.msgs = M;
    tu_run_t r = tu_sim(t, &p, "bcast-arbor");
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s root %u M %u: rc %d (%s), verified %d", t->spec, root, M, r.rc, r.err.msg,
                 r.res.verified);
    assert_int_equal((int64_t) r.res.steps, r.predicted);
    if ((int64_t) r.res.steps < r.bounds.best)
        fail_msg("%s M %u: %llu steps below the bound %lld", t->spec, M,
                 (unsigned long long) r.res.steps, (long long) r.bounds.best);
    return r;
}

/* Verified, steps == predicted == the deal of the packing, >= every bound, over many graphs,
 * roots and packet counts (and msgs x frags). */
static void test_sweep(void **state)
{
    (void) state;
    const char *specs[] = {"ring:5",           "ring:8",          "linear:6",     "mesh:4x4",
                           "mesh:3x5",         "mesh:2x3x4",      "torus:3x3",    "torus:4x4",
                           "torus:5x3",        "torus:6x6",       "torus:3x3x3",  "hypercube:1",
                           "hypercube:3",      "hypercube:5",     "complete:5",   "complete:8",
                           "star:4",           "ccc:3",           "foldedcube:4", "ering:8:2",
                           "circulant:13:1,5", "ring:3*linear:4", cubic16_spec,   triangle2_spec};
    static const uint32_t Ms[] = {1, 3, 32, 64};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        uint32_t roots[] = {0, t->n / 2, t->n - 1};
        for (size_t ri = 0; ri < NELEMS(roots); ri++)
            for (size_t mi = 0; mi < NELEMS(Ms); mi++) {
                tu_run_t r = run(t, roots[ri], Ms[mi]);
                sn_arbor_t a;
                sn_err_t err = {0};
                tu_assert_rc(sn_arbor_pack(t, roots[ri], Ms[mi], "test", &a, &err), 0);
                assert_int_equal(r.predicted, (int64_t) sn_arbor_deal(&a, Ms[mi], NULL));
                sn_arbor_free(&a);
            }
        sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
        p.msgs = 5;
        p.frags = 3;
        tu_run_t r = tu_sim(t, &p, "bcast-arbor");
        assert_true(r.rc == 0 && r.res.verified);
        assert_int_equal((int64_t) r.res.steps, r.predicted);
        sn_topo_free(t);
    }
}

/* Exact figures (multiport, root 0), the trees' slots against bcast-product's single tree
 * (torus:6x6 with 32 packets: 37) and the bound. */
static void test_figures(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t M, steps;
    } cases[] = {
        {"torus:6x6", 32, 15},   {"torus:4x4", 32, 12},   {"hypercube:4", 16, 8},
        {"hypercube:5", 32, 12}, {"hypercube:6", 64, 17}, {"mesh:4x4", 16, 14},
        {"ring:8", 16, 14},      {"complete:8", 64, 11},  {"complete:16", 64, 6},
        {NULL, 64, 27},
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec ? cases[i].spec : cubic16_spec);
        tu_run_t r = run(t, 0, cases[i].M);
        if (r.res.steps != cases[i].steps)
            fail_msg("%s M %u: %llu steps, want %u", t->spec, cases[i].M,
                     (unsigned long long) r.res.steps, cases[i].steps);
        sn_topo_free(t);
    }
}

/* auto takes bcast-arbor where the trees beat the rarest-first rule (the cubic graph: 27 against
 * bcast-gossip's 32 and bcast-bfs's 67). */
static void test_auto(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo(cubic16_spec);
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.msgs = 64;
    tu_run_t r = tu_sim(t, &p, NULL);
    assert_true(r.rc == 0 && r.res.verified);
    assert_string_equal(r.algo->name, "bcast-arbor");
    assert_int_equal(r.res.steps, 27);
    assert_int_equal(tu_sim(t, &p, "bcast-gossip").res.steps, 32);
    assert_int_equal(tu_sim(t, &p, "bcast-bfs").res.steps, 67);
    sn_topo_free(t);
}

/* Half duplex, routers and graphs past the work limit are refused, with the reason. */
static void test_refusals(void **state)
{
    (void) state;
    const sn_algo_t *a = sn_model_find("bcast-arbor");
    assert_non_null(a);
    assert_int_equal(a->pm_mask, SN_PM_MULTI);
    sn_err_t err = {0};
    sn_topo_t *t = tu_topo("torus:6x6");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "half");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    sn_topo_free(t);
    p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    t = tu_topo("fattree:2:3");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    assert_non_null(strstr(err.msg, "processor"));
    sn_topo_free(t);
    t = tu_topo("hypercube:9");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "3500000000"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packing),  cmocka_unit_test(test_heights),
        cmocka_unit_test(test_deal),     cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_figures),  cmocka_unit_test(test_auto),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
