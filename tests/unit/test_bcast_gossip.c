/* Unit tests of bcast-gossip (core/algo/mnb/mnb_gossip.c), the multiport broadcast of M packets by
 * mnb-gossip's rarest-first rule for the root's packets: verified runs with steps == predicted,
 * never below a lower bound, full and half duplex, over many graphs, roots and packet counts; the
 * exact figures of small cases (the bound on torus:6x6, hypercube:5 and hypercube:6); auto
 * choosing it where it is fastest and M = 1 broadcasts still at the eccentricity; its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A random 3-regular graph on 16 nodes (configuration model), as in test_bcast_arbor.c. */
static const char cubic16[] = "# a random 3-regular graph on 16 nodes\n"
                              "0 6\n0 9\n0 10\n1 9\n1 11\n1 15\n2 3\n2 10\n2 14\n3 4\n3 12\n"
                              "4 11\n4 15\n5 7\n5 8\n5 15\n6 8\n6 14\n7 8\n7 11\n9 13\n10 13\n"
                              "12 13\n12 14\n";
static char cubic16_spec[300];

static int setup(void **state)
{
    (void) state;
    char *cubic16_path = tu_tmpfile(cubic16);
    snprintf(cubic16_spec, sizeof cubic16_spec, "file:%s", cubic16_path);
    free(cubic16_path);
    return 0;
}

static tu_run_t run(const sn_topo_t *t, const char *duplex, uint32_t root, uint32_t M,
                    const char *algo)
{
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", duplex);
    p.root = root;
    p.msgs = M;
    tu_run_t r = tu_sim(t, &p, algo);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s %s root %u M %u: rc %d (%s), verified %d", t->spec, duplex, root, M, r.rc,
                 r.err.msg, r.res.verified);
    assert_int_equal((int64_t) r.res.steps, r.predicted);
    if ((int64_t) r.res.steps < r.bounds.best)
        fail_msg("%s M %u: %llu steps below the bound %lld", t->spec, M,
                 (unsigned long long) r.res.steps, (long long) r.bounds.best);
    return r;
}

/* Verified, steps == predicted, >= every bound: full and half duplex (the simulator refuses a
 * second packet on an edge in a slot), roots 0, n/2, n-1, M = 1, 2, 5, 16, 64. */
static void test_sweep(void **state)
{
    (void) state;
    const char *specs[] = {
        "ring:5",      "ring:8",           "linear:6",        "mesh:4x4",    "mesh:3x5",
        "mesh:2x3x4",  "torus:3x3",        "torus:4x4",       "torus:5x3",   "torus:6x6",
        "torus:3x3x3", "hypercube:1",      "hypercube:3",     "hypercube:4", "complete:5",
        "complete:8",  "star:4",           "ccc:3",           "butterfly:3", "foldedcube:4",
        "ering:8:2",   "circulant:13:1,5", "ring:3*linear:4", cubic16_spec};
    static const uint32_t Ms[] = {1, 2, 5, 16, 64};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        uint32_t roots[] = {0, t->n / 2, t->n - 1};
        for (size_t ri = 0; ri < NELEMS(roots); ri++)
            for (size_t mi = 0; mi < NELEMS(Ms); mi++)
                for (int half = 0; half < 2; half++)
                    run(t, half ? "half" : "full", roots[ri], Ms[mi], "bcast-gossip");
        sn_topo_free(t);
    }
}

/* Exact figures (root 0), against bcast-product's single tree (torus:6x6 with 32 packets: 37
 * full duplex and half) and the bound. */
static void test_figures(void **state)
{
    (void) state;
    static const struct {
        const char *spec, *duplex;
        uint32_t M, steps;
        int bound; /* 1: steps = the best lower bound */
    } cases[] = {
        {"torus:6x6", "full", 32, 13, 1},   {"hypercube:5", "full", 32, 11, 1},
        {"hypercube:6", "full", 64, 16, 1}, {"torus:4x4", "full", 32, 11, 1},
        {"mesh:4x4", "full", 16, 13, 1},    {"ring:8", "full", 16, 11, 1},
        {"complete:8", "full", 64, 10, 1},  {"hypercube:4", "full", 16, 8, 0},
        {"complete:16", "full", 64, 6, 0},  {NULL, "full", 64, 32, 0},
        {"torus:6x6", "half", 32, 22, 0},
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec ? cases[i].spec : cubic16_spec);
        tu_run_t r = run(t, cases[i].duplex, 0, cases[i].M, "bcast-gossip");
        if (r.res.steps != cases[i].steps)
            fail_msg("%s %s M %u: %llu steps, want %u", t->spec, cases[i].duplex, cases[i].M,
                     (unsigned long long) r.res.steps, cases[i].steps);
        if (cases[i].bound)
            assert_int_equal(r.bounds.best, (int64_t) cases[i].steps);
        sn_topo_free(t);
    }
}

/* auto takes bcast-gossip where it is the fastest, and a single packet still goes in the root's
 * eccentricity: the lower bound, which the earlier rows meet, so the timetables are not even
 * planned. */
static void test_auto(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t M;
        const char *algo;
        uint32_t steps;
    } cases[] = {{"torus:6x6", 32, "bcast-gossip", 13}, {"hypercube:6", 64, "bcast-gossip", 16}};
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        tu_run_t r = run(t, "full", 0, cases[i].M, NULL);
        assert_string_equal(r.algo->name, cases[i].algo);
        assert_int_equal(r.res.steps, cases[i].steps);
        sn_topo_free(t);
    }
    const char *specs[] = {"torus:6x6", "hypercube:6", "mesh:4x4",
                           "ring:8",    "complete:8",  cubic16_spec};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        tu_run_t r = run(t, "full", 0, 1, NULL);
        assert_int_equal(r.res.steps, sn_topo_ecc(t, 0, 0));
        assert_true(strcmp(r.algo->name, "bcast-gossip") != 0);
        sn_topo_free(t);
    }
}

/* Routers and plans past the work limit are refused, with the reason; it is a heuristic. */
static void test_refusals(void **state)
{
    (void) state;
    const sn_algo_t *a = sn_model_find("bcast-gossip");
    assert_non_null(a);
    assert_int_equal(a->heuristic, 1);
    assert_int_equal(a->pm_mask, SN_PM_MULTI | SN_PM_HALF);
    sn_err_t err = {0};
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    sn_topo_t *t = tu_topo("fattree:2:3");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    assert_non_null(strstr(err.msg, "processor"));
    sn_topo_free(t);
    t = tu_topo("ring:20000");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "1073741824"));
    sn_topo_free(t);
    p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    t = tu_topo("torus:4x4");
    tu_assert_rc(sn_model_check(a, t, &p, &err), SN_ENOTSUP);
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
