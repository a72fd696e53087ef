/* Unit tests of mnb-balanced (core/algo/mnb/mnb_balanced.c), the generic multiport multinode
 * broadcast over per-source shortest-path trees with balanced link loads, against today's mnb-route
 * on every topology of the algorithm sweep (tests/unit/test_generic.c) at M = 1 and 2: verified,
 * above every lower bound, and never slower than mnb-route except on the four small graphs named
 * below, where the route oracle's trees happen to be better (by at most 3 steps); and its ratio to
 * the lower bound on hypercubes, meshes and tori. Also mnb-cycle (core/algo/mnb/mnb_cycle.c),
 * the single-port pipeline around a Hamiltonian cycle: M (N - 1) steps, the single-port lower
 * bound, under every single-port model, and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *const known_worse[] = {"mesh:2x7", "ccc:3", "butterfly:3", "ring:3*linear:4"};

static int is_known_worse(const char *spec)
{
    for (size_t i = 0; i < NELEMS(known_worse); i++)
        if (strcmp(spec, known_worse[i]) == 0)
            return 1;
    return 0;
}

static void compare(const char *spec)
{
    sn_topo_t *t = tu_topo(spec);
    for (uint32_t M = 1; M <= 2; M++) {
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        p.msgs = M;
        tu_run_t a = tu_sim(t, &p, "mnb-route"), b = tu_sim(t, &p, "mnb-balanced");
        if (a.rc != 0 || b.rc != 0 || !a.res.verified || !b.res.verified)
            fail_msg("%s M = %u: route rc %d, balanced rc %d (%s)", spec, M, a.rc, b.rc, b.err.msg);
        assert_true((int64_t) b.res.steps >= b.bounds.best);
        assert_int_equal(b.predicted, -1);
        int worse = b.res.steps > a.res.steps;
        if (worse && (!is_known_worse(spec) || b.res.steps > a.res.steps + 3 * M))
            fail_msg("%s M = %u: mnb-balanced %llu steps, mnb-route %llu", spec, M,
                     (unsigned long long) b.res.steps, (unsigned long long) a.res.steps);
    }
    sn_topo_free(t);
}

static void test_against_route(void **state)
{
    (void) state;
    static const char *const specs[] = {"torus:2x2",          "torus:2x5",
                                        "torus:3x3",          "torus:3x4",
                                        "torus:4x4",          "torus:5x3",
                                        "torus:6x6",          "torus:2x2x2",
                                        "torus:3x4x2",        "torus:3x3x3",
                                        "mesh:2x2",           "mesh:2x7",
                                        "mesh:3x3",           "mesh:4x3",
                                        "mesh:5x5",           "mesh:2x3x4",
                                        "mesh:3x3x3",         "mesh:2x2x2",
                                        "torus:7x5",          "torus:2x9",
                                        "foldedcube:2",       "foldedcube:3",
                                        "foldedcube:4",       "ccc:3",
                                        "butterfly:3",        "star:4",
                                        "complete:2",         "complete:5",
                                        "complete:6",         "ering:7:2",
                                        "ering:8:4",          "ering:14:2",
                                        "ering:11:4",         "circulant:13:1,5",
                                        "circulant:12:2,3",   "ering:7:2*ring:5",
                                        "ring:3*linear:4",    "complete:3*complete:4",
                                        "hypercube:2*ring:5", "fattree:2:3",
                                        "fattree:3:2:exp",    "fattree:2:3:1,2,4",
                                        "fattree:2:1",        "fattree:4:2",
                                        "fattree:2:2:2,3"};
    for (size_t i = 0; i < NELEMS(specs); i++)
        compare(specs[i]);
    char spec[32];
    for (uint32_t n = 2; n <= 20; n++) {
        snprintf(spec, sizeof spec, "linear:%u", n);
        compare(spec);
        snprintf(spec, sizeof spec, "ring:%u", n);
        compare(spec);
    }
    for (uint32_t d = 1; d <= 6; d++) {
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        compare(spec);
    }
}

/* Measured steps / lower bound at M = 1 (the target is 1.2): the figures of the report,
 * asserted so that a regression shows. */
static void test_ratios(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t steps, bound;
    } c[] = {{"hypercube:7", 22, 19}, {"hypercube:8", 39, 32}, {"hypercube:9", 67, 57},
             {"mesh:6x6", 20, 18},    {"mesh:8x8", 35, 32},    {"mesh:4x4x4", 25, 21},
             {"torus:7x5", 11, 9},    {"torus:8x8", 20, 16}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        tu_run_t r = tu_sim(t, &p, "mnb-balanced");
        assert_true(r.res.verified);
        if (r.res.steps != c[i].steps || (uint64_t) r.bounds.best != c[i].bound)
            fail_msg("%s: %llu steps, bound %lld; expected %llu and %llu", c[i].spec,
                     (unsigned long long) r.res.steps, (long long) r.bounds.best,
                     (unsigned long long) c[i].steps, (unsigned long long) c[i].bound);
        sn_topo_free(t);
    }
}

/* auto on graphs that are not Cayley graphs: mnb-gossip predicts its count, so auto takes it
 * wherever nothing specific predicts fewer, and it is never slower than the generic per-source
 * trees (mnb-route, mnb-balanced). Past mnb-gossip's 2048 packets nothing predicts: a dry run of
 * mnb-route and mnb-balanced decides, and auto takes the fewer (mnb-balanced on larger meshes,
 * mnb-route where balancing loses a step or two; a tie keeps mnb-route, registered first). */
static void test_auto_fewer(void **state)
{
    (void) state;
    static const char *const specs[] = {"mesh:8x8",           "mesh:4x4x4", "mesh:6x6",
                                        "mesh:3x5",           "mesh:2x7",   "ring:3*linear:4",
                                        "ering:7:2*linear:3", "linear:9"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        tu_run_t a = tu_sim(t, &p, NULL), g = tu_sim(t, &p, "mnb-gossip"),
                 r = tu_sim(t, &p, "mnb-route"), b = tu_sim(t, &p, "mnb-balanced");
        assert_true(a.res.verified && g.res.verified && r.res.verified && b.res.verified);
        if (a.res.steps > g.res.steps || g.res.steps > r.res.steps || g.res.steps > b.res.steps)
            fail_msg("%s: auto took %s (%llu steps); mnb-gossip %llu, mnb-route %llu, "
                     "mnb-balanced %llu",
                     specs[i], a.algo->name, (unsigned long long) a.res.steps,
                     (unsigned long long) g.res.steps, (unsigned long long) r.res.steps,
                     (unsigned long long) b.res.steps);
        sn_topo_free(t);
    }
    static const struct {
        const char *spec, *algo;
        uint32_t msgs;
    } c[] = {{"mesh:8x8", "mnb-balanced", 33}, {"mesh:2x7", "mnb-route", 147}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        p.msgs = c[i].msgs;
        const sn_algo_t *ga = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("mnb-gossip", t, &p, &ga, NULL, NULL, &err), SN_ERANGE);
        assert_non_null(strstr(err.msg, "2048 packets"));
        tu_run_t a = tu_sim(t, &p, NULL), r = tu_sim(t, &p, "mnb-route"),
                 b = tu_sim(t, &p, "mnb-balanced");
        assert_true(a.res.verified && r.res.verified && b.res.verified);
        uint64_t fewer = r.res.steps <= b.res.steps ? r.res.steps : b.res.steps;
        if (strcmp(a.algo->name, c[i].algo) != 0 || a.res.steps != fewer)
            fail_msg("%s, %u packets: auto took %s (%llu steps); mnb-route %llu, mnb-balanced "
                     "%llu",
                     c[i].spec, c[i].msgs, a.algo->name, (unsigned long long) a.res.steps,
                     (unsigned long long) r.res.steps, (unsigned long long) b.res.steps);
        sn_topo_free(t);
    }
}

/* mnb-gossip on meshes, M = 1 and 2, every 2-D mesh from 2x2 to 10x10 and every 3-D mesh up to
 * 5x5x5: exact (steps == predicted, checked by tu_sim), verified, and at the lower bound (the
 * corner's reception bound, eq. (4b)) except on thin meshes (2xK, 3x9, 2x2x4, 2x3x3, 2x4x4,
 * 2x5x5), where it is at most 1.25x; there auto's dry run of mnb-route can win. With auto every
 * mesh of the sweep is within 1.2x of its bound (the target; mnb-balanced, auto's pick
 * before, took 1.375x on mesh:2x3x4 and 1.25x on mesh:3x8). */
static void check_mesh(const char *spec, uint32_t M, unsigned *above)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
    p.msgs = M;
    tu_run_t g = tu_sim(t, &p, "mnb-gossip"), a = tu_sim(t, &p, NULL);
    assert_true(g.res.verified && a.res.verified);
    int64_t lb = g.bounds.best;
    assert_true((int64_t) g.res.steps >= lb);
    *above += (int64_t) g.res.steps > lb;
    if (4 * g.res.steps > 5 * (uint64_t) lb || a.res.steps > g.res.steps ||
        5 * a.res.steps > 6 * (uint64_t) lb)
        fail_msg("%s, M = %u: mnb-gossip %llu, auto (%s) %llu, bound %lld", spec, M,
                 (unsigned long long) g.res.steps, a.algo->name, (unsigned long long) a.res.steps,
                 (long long) lb);
    sn_topo_free(t);
}

static void test_gossip_meshes(void **state)
{
    (void) state;
    char spec[48];
    unsigned above = 0, cases = 0;
    for (uint32_t M = 1; M <= 2; M++) {
        for (uint32_t a = 2; a <= 10; a++)
            for (uint32_t b = a; b <= 10; b++, cases++) {
                snprintf(spec, sizeof spec, "mesh:%ux%u", a, b);
                check_mesh(spec, M, &above);
            }
        for (uint32_t a = 2; a <= 5; a++)
            for (uint32_t b = a; b <= 5; b++)
                for (uint32_t c = b; c <= 5; c++, cases++) {
                    snprintf(spec, sizeof spec, "mesh:%ux%ux%u", a, b, c);
                    check_mesh(spec, M, &above);
                }
    }
    /* 14 of the 130 cases are above the bound today; a change that loses more shows here */
    assert_int_equal(cases, 130);
    assert_true(above <= 14);
    static const struct {
        const char *spec;
        uint32_t msgs;
        uint64_t steps;
    } pinned[] = {{"mesh:3x8", 1, 12},   {"mesh:3x3x3", 1, 9},  {"mesh:2x3x4", 1, 8},
                  {"mesh:10x10", 1, 50}, {"mesh:5x5x5", 2, 83}, {"mesh:4x9", 2, 35}};
    for (size_t i = 0; i < NELEMS(pinned); i++) {
        sn_topo_t *t = tu_topo(pinned[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        p.msgs = pinned[i].msgs;
        tu_run_t r = tu_sim(t, &p, NULL);
        assert_string_equal(r.algo->name, "mnb-gossip");
        assert_int_equal(r.res.steps, pinned[i].steps);
        assert_int_equal(r.bounds.best, (int64_t) pinned[i].steps);
        sn_topo_free(t);
    }
    /* beyond meshes: the lower bound where the translated tree of mnb-cayley is one above it
     * (foldedcube:10: 93 against 94), and with several packets on hypercube:6 (21 and 42) */
    static const struct {
        const char *spec;
        uint32_t msgs;
        uint64_t steps;
    } c[] = {{"foldedcube:10", 1, 93}, {"hypercube:6", 2, 21}, {"hypercube:6", 4, 42}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        p.msgs = c[i].msgs;
        tu_run_t r = tu_sim(t, &p, "mnb-gossip");
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, c[i].steps);
        assert_int_equal(r.bounds.best, (int64_t) c[i].steps);
        sn_topo_free(t);
    }
}

/* mnb-match: single-port multinode broadcast where no Hamiltonian cycle is known. On meshes with
 * every side odd (bipartite, one node more in one colour class than in the other) no schedule
 * takes fewer than (N + 1) M slots (the bipartite bound of core/model: the larger class receives
 * at most one packet per node of the smaller class and slot); mnb-match is exact (steps ==
 * predicted, checked by tu_sim), verified and within 1.15x of that bound, where mnb-route took
 * 2.7x to 4.8x; auto takes it there (mnb-cycle refuses these meshes) and is never above
 * mnb-route's dry run anywhere in the list. */
static void test_mnb_match(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t msgs;
        const char *rx;
        uint64_t steps; /* today's timetable; a change that loses slots shows here */
    } c[] = {{"mesh:3x3", 1, "one", 11},   {"mesh:3x5", 1, "one", 17},
             {"mesh:5x5", 1, "one", 28},   {"mesh:7x7", 1, "one", 53},
             {"mesh:3x3x3", 1, "one", 28}, {"mesh:5x5x5", 1, "one", 126},
             {"mesh:9x9", 1, "one", 84},   {"mesh:3x3", 3, "one", 30},
             {"mesh:5x7", 2, "any", 73},   {"linear:9", 1, "one", 15}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "single", c[i].rx, "full");
        p.msgs = c[i].msgs;
        tu_run_t m = tu_sim(t, &p, "mnb-match"), a = tu_sim(t, &p, NULL),
                 r = tu_sim(t, &p, "mnb-route");
        if (m.rc != 0 || !m.res.verified || !a.res.verified || !r.res.verified)
            fail_msg("%s: %s", c[i].spec, m.err.msg);
        int64_t lb = m.bounds.best;
        assert_true((int64_t) m.res.steps >= lb);
        if (strcmp(c[i].rx, "one") == 0 && strncmp(c[i].spec, "mesh", 4) == 0) {
            /* the bipartite bound: (N + 1) M */
            assert_int_equal(lb, (int64_t) (t->n + 1) * c[i].msgs);
            if (100 * m.res.steps > 115 * (uint64_t) lb)
                fail_msg("%s M = %u: mnb-match %llu against the bound %lld", c[i].spec, c[i].msgs,
                         (unsigned long long) m.res.steps, (long long) lb);
        }
        if (c[i].steps != 0)
            assert_int_equal(m.res.steps, c[i].steps);
        if (a.res.steps > m.res.steps || a.res.steps > r.res.steps)
            fail_msg("%s: auto (%s) %llu, mnb-match %llu, mnb-route %llu", c[i].spec, a.algo->name,
                     (unsigned long long) a.res.steps, (unsigned long long) m.res.steps,
                     (unsigned long long) r.res.steps);
        /* meshes, one reception: a third fewer at least; any reception: fewer */
        if (strncmp(c[i].spec, "mesh", 4) == 0 &&
            (strcmp(c[i].rx, "one") == 0 ? 3 * m.res.steps >= 2 * r.res.steps
                                         : m.res.steps >= r.res.steps))
            fail_msg("%s M = %u: mnb-match %llu, mnb-route %llu", c[i].spec, c[i].msgs,
                     (unsigned long long) m.res.steps, (unsigned long long) r.res.steps);
        sn_topo_free(t);
    }
    /* not bipartite: no such bound; mnb-match still meets the reception bound N - 1 here */
    static const char *const odd[] = {"ering:9:2", "circulant:16:1,4", "ccc:3", "star:4"};
    for (size_t i = 0; i < NELEMS(odd); i++) {
        sn_topo_t *t = tu_topo(odd[i]);
        sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "full");
        tu_run_t m = tu_sim(t, &p, "mnb-match");
        assert_true(m.res.verified);
        assert_int_equal(m.res.steps, t->n - 1);
        assert_int_equal(m.bounds.best, (int64_t) t->n - 1);
        sn_topo_free(t);
    }
    /* refusals: multiport, a source set, past the planning limit */
    sn_err_t err = {0};
    const sn_algo_t *alg = NULL;
    sn_topo_t *t = tu_topo("mesh:3x3");
    sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
    tu_assert_rc(sn_model_select("mnb-match", t, &p, &alg, NULL, NULL, &err), SN_ENOTSUP);
    sn_topo_free(t);
    t = tu_topo("mesh:33x33");
    p = tu_params(SN_COLL_MNB, "single", "one", "full");
    tu_assert_rc(sn_model_select("mnb-match", t, &p, &alg, NULL, NULL, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "plans at most"));
    sn_topo_free(t);
}

/* mnb-cayley: one balanced breadth-first tree of the identity, translated to every source, and
 * one timetable translated to every node. Verified, steps == its timetable (checked by tu_sim),
 * never below the bounds, single-port exactly M (N - 1); multiport it meets the lower bound on
 * these Cayley graphs (one step above it on ccc:3, foldedcube:6 and circulant:13:1,5), and auto
 * takes it where nothing predicts fewer. */
static void test_cayley(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t steps, bound;
    } c[] = {{"hypercube:6", 11, 11},  {"hypercube:9", 57, 57},    {"hypercube:10", 103, 103},
             {"torus:7x5", 9, 9},      {"torus:16x16", 64, 64},    {"torus:4x4x4", 11, 11},
             {"ccc:3", 9, 8},          {"ccc:4", 21, 21},          {"butterfly:3", 6, 6},
             {"butterfly:4", 16, 16},  {"star:5", 30, 30},         {"foldedcube:6", 10, 9},
             {"foldedcube:7", 16, 16}, {"complete:16", 1, 1},      {"ring:41", 20, 20},
             {"ering:14:2", 4, 4},     {"circulant:13:1,5", 4, 3}, {"complete:3*complete:4", 3, 3}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        tu_run_t r = tu_sim(t, &p, "mnb-cayley");
        assert_true(r.res.verified);
        if (r.res.steps != c[i].steps || (uint64_t) r.bounds.best != c[i].bound ||
            (int64_t) r.res.steps != r.predicted)
            fail_msg("%s: %llu steps (predicted %lld), bound %lld; expected %llu and %llu",
                     c[i].spec, (unsigned long long) r.res.steps, (long long) r.predicted,
                     (long long) r.bounds.best, (unsigned long long) c[i].steps,
                     (unsigned long long) c[i].bound);
        tu_run_t a = tu_sim(t, &p, NULL); /* auto: never more steps */
        assert_true(a.res.verified && a.res.steps <= r.res.steps);
        sn_topo_free(t);
    }
    /* several packets per source, single-port (M (N - 1)), both reception models */
    static const char *const specs[] = {"hypercube:5", "torus:3x5",  "star:4",      "ccc:3",
                                        "butterfly:3", "ering:11:3", "foldedcube:4"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        for (uint32_t M = 1; M <= 3; M++) {
            sn_params_t p = tu_params(SN_COLL_MNB, "single", M == 2 ? "any" : "one", "full");
            p.msgs = M;
            tu_run_t r = tu_sim(t, &p, "mnb-cayley");
            assert_true(r.res.verified);
            assert_int_equal(r.res.steps, (uint64_t) M * (t->n - 1));
            sn_params_t q = tu_params(SN_COLL_MNB, "multi", "one", "full");
            q.msgs = M;
            q.frags = M == 3 ? 2 : 1;
            tu_run_t m = tu_sim(t, &q, "mnb-cayley");
            assert_true(m.res.verified);
            assert_true((int64_t) m.res.steps == m.predicted &&
                        (int64_t) m.res.steps >= m.bounds.best);
        }
        sn_topo_free(t);
    }
    /* not a Cayley graph, and not half duplex */
    sn_topo_t *t = tu_topo("mesh:3x3");
    sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
    sn_err_t err = {0};
    assert_int_equal(sn_model_check(sn_model_find("mnb-cayley"), t, &p, &err), SN_ENOTSUP);
    sn_topo_free(t);
    t = tu_topo("hypercube:3");
    p = tu_params(SN_COLL_MNB, "multi", "one", "half");
    assert_int_equal(sn_model_check(sn_model_find("mnb-cayley"), t, &p, &err), SN_ENOTSUP);
    sn_topo_free(t);
}

static void test_cycle(void **state)
{
    (void) state;
    static const char *const specs[] = {
        "ring:2",      "ring:3",          "ring:7",         "ring:20",     "ring:41",
        "complete:2",  "complete:5",      "complete:6",     "hypercube:1", "hypercube:3",
        "hypercube:6", "torus:3x4",       "torus:4x4",      "torus:2x5",   "torus:4x4x4",
        "torus:5x6x3", "torus:7",         "torus:3x3x4",    "mesh:2x2",    "mesh:3x4",
        "mesh:4x3",    "mesh:2x9",        "mesh:8x8",       "mesh:3x3x2",  "mesh:5x4x3",
        "mesh:3x5x6",  "linear:3*ring:4", "ring:5*linear:2"};
    static const char *const pms[][3] = {
        {"single", "one", "full"}, {"single", "any", "full"}, {"single", "one", "half"}};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        for (size_t m = 0; m < NELEMS(pms); m++)
            for (uint32_t M = 1; M <= 3; M += 2) {
                if (t->n == 2 && strcmp(pms[m][2], "half") == 0)
                    continue;
                sn_params_t p = tu_params(SN_COLL_MNB, pms[m][0], pms[m][1], pms[m][2]);
                p.msgs = M;
                tu_run_t r = tu_sim(t, &p, "mnb-cycle");
                if (r.rc != 0 || !r.res.verified)
                    fail_msg("%s %s/%s/%s M = %u: %s", specs[i], pms[m][0], pms[m][1], pms[m][2], M,
                             r.err.msg);
                uint64_t want = (uint64_t) M * (t->n - 1);
                assert_int_equal(r.res.steps, want);
                assert_int_equal(r.predicted, (int64_t) want);
                assert_int_equal(r.bounds.best, (int64_t) want);
                /* auto takes an optimal schedule: mnb-cycle, or on hypercubes the folded-cube
                 * paper's A_0 (mnb-a0), which ties with it at the bound */
                tu_run_t a = tu_sim(t, &p, NULL);
                if (strcmp(a.algo->name, "mnb-cycle") != 0 &&
                    !(strcmp(a.algo->name, "mnb-a0") == 0 && t->kind == SN_TOPO_HYPERCUBE))
                    fail_msg("%s M = %u: auto took %s", specs[i], M, a.algo->name);
                assert_int_equal(a.res.steps, want);
                assert_int_equal(a.predicted, (int64_t) want);
            }
        sn_topo_free(t);
    }
    /* refusals: no known cycle (tori with all sides odd, stars), none at all (meshes with all
     * sides odd: bipartite with an odd node count), 2 nodes half duplex */
    static const char *const refused[] = {"torus:3x3",   "mesh:3x3",   "star:4",
                                          "torus:3x5x7", "mesh:3x5x7", "linear:3*ring:5"};
    for (size_t i = 0; i < NELEMS(refused); i++) {
        sn_topo_t *t = tu_topo(refused[i]);
        sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "full");
        const sn_algo_t *a = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("mnb-cycle", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
        assert_non_null(strstr(err.msg, "Hamiltonian cycle"));
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("ring:2");
    sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "half");
    const sn_algo_t *a = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("mnb-cycle", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    sn_topo_free(t);
}

/* bcast-multitree: single-port broadcast of M packets over one tree per packet. On hypercubes the
 * root hands packet x to one neighbour, so the root's M d sends of the repeated binomial tree
 * become M: measured against bcast-binomial (M d) and the pipelined lower bound. */
static void test_multitree(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t M;
        uint64_t steps, before;
    } c[] = {{"hypercube:9", 3, 22, 27}, {"hypercube:6", 4, 15, 24}, {"hypercube:4", 8, 15, 32}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
        p.msgs = c[i].M;
        tu_run_t r = tu_sim(t, &p, "bcast-multitree"), b = tu_sim(t, &p, "bcast-binomial");
        assert_true(r.res.verified && b.res.verified);
        assert_int_equal(r.res.steps, c[i].steps);
        assert_int_equal(r.predicted, (int64_t) c[i].steps);
        assert_int_equal(b.res.steps, c[i].before);
        assert_true((int64_t) r.res.steps >= r.bounds.best);
        tu_run_t a = tu_sim(t, &p, NULL); /* bcast-match is faster still (test_match) */
        assert_string_equal(a.algo->name, "bcast-match");
        sn_topo_free(t);
    }
    /* any graph: exact and verified, single-port with one or any receptions */
    static const char *const specs[] = {"ring:9", "torus:5x5", "mesh:4x4",   "complete:8",
                                        "star:4", "ccc:3",     "hypercube:1"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        for (int any = 0; any < 2; any++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "single", any ? "any" : "one", "full");
            p.msgs = 3;
            p.root = t->n - 1;
            tu_run_t r = tu_sim(t, &p, "bcast-multitree");
            assert_true(r.res.verified);
            assert_int_equal((int64_t) r.res.steps, r.predicted);
            assert_true((int64_t) r.res.steps >= r.bounds.best);
        }
        sn_topo_free(t);
    }
}

/* bcast-match: a maximum matching per slot, rarest packet first. On Q_d it reaches the pipelined
 * bound M + d - 1 for every d and M swept (the last packet leaves the root in slot M at the
 * earliest; its holders at most double per slot); elsewhere it is exact, verified, above the
 * bound, never slower than bcast-multitree, and auto takes it for M > 1. */
static void test_match(void **state)
{
    (void) state;
    static const uint32_t Ms[] = {1, 2, 3, 5, 8, 32};
    for (uint32_t d = 1; d <= 9; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (size_t i = 0; i < NELEMS(Ms); i++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
            p.msgs = Ms[i];
            p.root = (1u << d) - 1;
            tu_run_t r = tu_sim(t, &p, "bcast-match");
            assert_true(r.res.verified);
            assert_int_equal(r.res.steps, Ms[i] + d - 1);
            assert_int_equal(r.predicted, (int64_t) r.res.steps);
            assert_int_equal(r.bounds.best, (int64_t) r.res.steps);
        }
        sn_topo_free(t);
    }
    static const struct {
        const char *spec;
        uint32_t M;
        uint64_t steps;
    } c[] = {{"torus:4x4", 32, 35},
             {"torus:5x5", 8, 13},
             {"ring:16", 8, 15},
             {"mesh:5x5", 3, 11},
             {"torus:8x8", 32, 42}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
        p.msgs = c[i].M;
        tu_run_t r = tu_sim(t, &p, "bcast-match");
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, c[i].steps);
        assert_int_equal(r.predicted, (int64_t) c[i].steps);
        assert_true((int64_t) r.res.steps >= r.bounds.best);
        sn_topo_free(t);
    }
    static const char *const specs[] = {"ring:9", "torus:5x5", "mesh:4x4",  "complete:8",
                                        "star:4", "ccc:3",     "ering:11:2"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        for (int any = 0; any < 2; any++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "single", any ? "any" : "one", "full");
            p.msgs = 4;
            p.frags = any ? 2 : 1;
            p.root = t->n / 2;
            tu_run_t r = tu_sim(t, &p, "bcast-match"), m = tu_sim(t, &p, "bcast-multitree");
            assert_true(r.res.verified && m.res.verified);
            assert_int_equal((int64_t) r.res.steps, r.predicted);
            assert_true((int64_t) r.res.steps >= r.bounds.best);
            assert_true(r.res.steps <= m.res.steps);
            tu_run_t a = tu_sim(t, &p, NULL);
            assert_true(a.res.steps <= r.res.steps);
        }
        sn_topo_free(t);
    }
    /* a timetable of more node-packets than the planner takes is refused, naming the limit */
    sn_topo_t *t = tu_topo("hypercube:12");
    sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    p.msgs = 2048;
    const sn_algo_t *a = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("bcast-match", t, &p, &a, NULL, NULL, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "node-packets"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_route), cmocka_unit_test(test_ratios),
        cmocka_unit_test(test_auto_fewer),    cmocka_unit_test(test_cayley),
        cmocka_unit_test(test_cycle),         cmocka_unit_test(test_multitree),
        cmocka_unit_test(test_match),         cmocka_unit_test(test_gossip_meshes),
        cmocka_unit_test(test_mnb_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
