/* Unit tests of the lower bounds for many packets (core/model/bounds.c): on tiny instances, every
 * bound at most the steps of every algorithm that serves the case, verified by the simulator, in
 * every port model and for M = 1, 3 and 8 packets; each new bound seen binding, and reached by
 * some algorithm, somewhere; the figures known tight (the one-way gossip count on ring:8 and
 * single-port torus:8x8, the reduce_scatter count on torus:6x6, 1 + ceil((M-1)/(N-1)) on a
 * complete graph, M - 1 + the one-packet bound single-port); and every bound at most the optima
 * that synth proves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/synth/synth.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

/* multiport, single-port (one reception and any), half duplex (both port counts) */
static const char *const pms[][3] = {{"multi", "any", "full"},
                                     {"single", "one", "full"},
                                     {"single", "any", "full"},
                                     {"multi", "any", "half"},
                                     {"single", "one", "half"}};
#define NPMS (sizeof pms / sizeof pms[0])

/* The bounds of (t, p) by name; -1 when absent. */
static int64_t bound_of(const sn_bounds_t *b, const char *name)
{
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->b[i].name, name) == 0)
            return b->b[i].value;
    return -1;
}

static sn_bounds_t bounds_of(const sn_topo_t *t, const sn_params_t *p)
{
    sn_bounds_t b;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_bounds(t, p, &b, &err), 0);
    return b;
}

/* The bounds added for many packets; seen[i] when one was the largest of its case and positive,
 * tight[i] when some algorithm's steps equalled it. */
static const char *const news[] = {"receive",     "send",           "cut",
                                   "cut-vertex",  "transmissions",  "count",
                                   "half-duplex", "bar-noy-kipnis", "spread"};
#define NNEWS (sizeof news / sizeof news[0])

static void check_case(const sn_topo_t *t, const sn_params_t *p, int *seen, int *tight,
                       size_t *runs)
{
    sn_bounds_t b = bounds_of(t, p);
    size_t count = 0;
    const sn_algo_t *const *all = sn_model_algos(&count);
    for (size_t a = 0; a < count; a++) {
        sn_err_t err = {0};
        if (sn_model_check(all[a], t, p, &err) != 0)
            continue;
        tu_run_t r = tu_sim(t, p, all[a]->name);
        if (r.rc != 0 || !r.res.verified)
            continue; /* the algorithms' own tests judge their runs */
        (*runs)++;
        for (size_t i = 0; i < b.count; i++) {
            if ((int64_t) r.res.steps < b.b[i].value)
                fail_msg("%s on %s (%s %s %s, %s, msgs %u): %llu steps below the bound %s = %lld "
                         "(%s)",
                         all[a]->name, t->spec, p->pm.ports ? "single" : "multi",
                         p->pm.rx ? "any" : "one", p->pm.duplex ? "half" : "full",
                         sn_coll_name(p->coll), p->msgs, (unsigned long long) r.res.steps,
                         b.b[i].name, (long long) b.b[i].value, b.b[i].detail);
            for (size_t k = 0; k < NNEWS; k++)
                if (strcmp(b.b[i].name, news[k]) == 0 && b.b[i].value == b.best && b.best > 0) {
                    seen[k] = 1;
                    if ((int64_t) r.res.steps == b.best)
                        tight[k] = 1;
                }
        }
    }
}

/* Every bound at most every serving algorithm's steps on tiny instances. */
static void test_below_every_algorithm(void **state)
{
    (void) state;
    static const char *const specs[] = {"linear:5",    "ring:6",     "torus:3x3",   "mesh:2x3",
                                        "star:5",      "complete:5", "hypercube:3", "fattree:2:2",
                                        "fattree:2:3", "fattree:3:2"};
    static const sn_coll_t colls[] = {SN_COLL_BCAST, SN_COLL_SNA, SN_COLL_SCATTER,   SN_COLL_GATHER,
                                      SN_COLL_MNB,   SN_COLL_TE,  SN_COLL_ALLREDUCE, SN_COLL_MNA};
    static const uint32_t msgs[] = {1, 3, 8};
    int seen[NNEWS] = {0}, tight[NNEWS] = {0};
    size_t runs = 0;
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++)
            for (size_t pm = 0; pm < NPMS; pm++)
                for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++) {
                    sn_params_t p = tu_params(colls[c], pms[pm][0], pms[pm][1], pms[pm][2]);
                    p.msgs = msgs[m];
                    p.op = sn_op_default(colls[c]);
                    /* a root that is not node 0 where the graph has a middle */
                    p.root = t->nproc > 2 && sn_topo_is_proc(t, 2) ? 2 : 0;
                    check_case(t, &p, seen, tight, &runs);
                }
        sn_topo_free(t);
    }
    assert_true(runs > 1000);
    for (size_t k = 0; k < NNEWS; k++) {
        if (!seen[k])
            fail_msg("the bound %s was never the largest", news[k]);
        if (!tight[k])
            fail_msg("the bound %s was never reached", news[k]);
    }
}

/* The steps of auto on (spec, coll, port model, msgs) and the case's best bound. */
static void auto_and_bound(const char *spec, sn_coll_t coll, size_t pm, uint32_t msgs,
                           int64_t *steps, sn_bounds_t *b)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(coll, pms[pm][0], pms[pm][1], pms[pm][2]);
    p.msgs = msgs;
    p.op = sn_op_default(coll);
    tu_run_t r = tu_sim(t, &p, NULL);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s on %s: rc %d, %s", sn_coll_name(coll), spec, r.rc, r.err.msg);
    *steps = (int64_t) r.res.steps;
    *b = bounds_of(t, &p);
    sn_topo_free(t);
}

/* The figures known tight: each bound equals the steps of an algorithm that reaches it. */
static void test_tight(void **state)
{
    (void) state;
    int64_t s;
    sn_bounds_t b;
    /* allreduce ring:8, 64 packets: 2 x 7 x 64 / 16 arcs = 56 (bidirectional reduce_scatter and
     * allgather) */
    auto_and_bound("ring:8", SN_COLL_ALLREDUCE, 0, 64, &s, &b);
    assert_int_equal(bound_of(&b, "count"), 56);
    assert_int_equal(b.best, 56);
    assert_int_equal(s, 56);
    /* single-port torus:8x8: 2 x 63 x 64 / 64 nodes = 126 (a Hamiltonian ring) */
    auto_and_bound("torus:8x8", SN_COLL_ALLREDUCE, 1, 64, &s, &b);
    assert_int_equal(bound_of(&b, "count"), 126);
    assert_int_equal(s, 126);
    /* reduce_scatter torus:6x6: 36 x 35 x 64 / 144 arcs = 560 */
    auto_and_bound("torus:6x6", SN_COLL_MNA, 0, 64, &s, &b);
    assert_int_equal(bound_of(&b, "count"), 560);
    assert_int_equal(s, 560);
    /* a root adjacent to all: 1 + ceil((M - 1)/deg) = 1 + ceil(63/15) = 6 (stepnet said 5) */
    auto_and_bound("complete:16", SN_COLL_BCAST, 0, 64, &s, &b);
    assert_int_equal(bound_of(&b, "receive"), 6);
    assert_int_equal(bound_of(&b, "eccentricity"), 5);
    assert_int_equal(s, 6);
    auto_and_bound("complete:16", SN_COLL_SNA, 0, 64, &s, &b);
    assert_int_equal(bound_of(&b, "send"), 6);
    assert_int_equal(s, 6);
    /* single-port: M - 1 + ceil(log2 16) = 67 (Bar-Noy and Kipnis: m + log2 n - 1 is optimal) */
    auto_and_bound("complete:16", SN_COLL_BCAST, 1, 64, &s, &b);
    assert_int_equal(bound_of(&b, "bar-noy-kipnis"), 67);
    assert_int_equal(s, 67);
    /* a linear array from its middle node, single-port: the root feeds two components,
     * 2M + (the shorter side) - 1 = 2 x 8 + 2 - 1 = 17 */
    {
        sn_topo_t *t = tu_topo("linear:5");
        sn_params_t p = tu_params(SN_COLL_BCAST, "single", "any", "full");
        p.msgs = 8;
        p.root = 2;
        b = bounds_of(t, &p);
        assert_int_equal(bound_of(&b, "cut-vertex"), 17);
        tu_run_t r = tu_sim(t, &p, NULL);
        assert_true(r.rc == 0 && r.res.verified);
        assert_int_equal(r.res.steps, 17);
        sn_topo_free(t);
    }
}

/* A cut vertex of a combining collective: on fattree:4:2 a level-1 router takes, per packet, one
 * reduce_scatter packet for each of its 4 leaves from the 3 other leaves and from the rest, and
 * one for each of the 12 targets beyond from each of its 4 leaves: 64 receptions, one a slot
 * with rx one; allreduce, it sends into each of its 5 components, from slot 2: 5 M + 1. */
static void test_combining_cut_vertex(void **state)
{
    (void) state;
    int64_t s;
    sn_bounds_t b;
    auto_and_bound("fattree:4:2", SN_COLL_MNA, 1, 1, &s, &b);
    assert_int_equal(bound_of(&b, "cut-vertex"), 64);
    assert_true(s >= 64);
    auto_and_bound("fattree:4:2", SN_COLL_ALLREDUCE, 1, 4, &s, &b);
    assert_int_equal(bound_of(&b, "cut-vertex"), 5 * 4 + 1);
    assert_true(s >= 21);
}

/* At M = 1 the bounds that were there keep their values; the fat-tree theorems scale with M. */
static void test_fattree_every_m(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("fattree:2:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "single", "any", "full");
    sn_bounds_t b = bounds_of(t, &p);
    assert_int_equal(bound_of(&b, "thm6.1"), 3 * 3 - 1); /* (k+1) h - 1 */
    p.msgs = 5;
    b = bounds_of(t, &p);
    assert_int_equal(bound_of(&b, "thm6.1"), 4 + 8); /* M - 1 + (k+1) h - 1 */
    p = tu_params(SN_COLL_MNB, "multi", "any", "full");
    b = bounds_of(t, &p);
    assert_int_equal(bound_of(&b, "thm6.9"), 8 + 1); /* n + 1 for k = 2 */
    p.msgs = 4;
    b = bounds_of(t, &p);
    assert_int_equal(bound_of(&b, "thm6.9"), 7 * 4 + 1); /* (n - 1) M + 1 */
    p = tu_params(SN_COLL_SCATTER, "single", "one", "full");
    p.msgs = 4;
    b = bounds_of(t, &p);
    assert_int_equal(bound_of(&b, "thm6.2"), 7 * 4 + 1);
    sn_topo_free(t);
}

/* Every bound at most synth's proven optimum, for broadcasts and scatters of several packets. */
static void test_below_synth(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        sn_coll_t coll;
        size_t pm;
        uint32_t msgs, root;
    } cases[] = {
        {"linear:4", SN_COLL_BCAST, 1, 3, 1},    {"linear:4", SN_COLL_BCAST, 0, 3, 0},
        {"star:4", SN_COLL_BCAST, 2, 3, 1},      {"complete:4", SN_COLL_BCAST, 1, 3, 0},
        {"complete:4", SN_COLL_BCAST, 0, 4, 0},  {"ring:5", SN_COLL_BCAST, 3, 3, 0},
        {"hypercube:2", SN_COLL_BCAST, 4, 3, 0}, {"linear:4", SN_COLL_SCATTER, 2, 2, 1},
        {"ring:4", SN_COLL_MNB, 0, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p =
            tu_params(cases[i].coll, pms[cases[i].pm][0], pms[cases[i].pm][1], pms[cases[i].pm][2]);
        p.msgs = cases[i].msgs;
        p.root = cases[i].root;
        tu_run_t r = tu_sim(t, &p, NULL);
        assert_true(r.rc == 0 && r.res.verified);
        sn_synth_enc_t *e = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_synth_enc_new(t, &p, (uint32_t) r.res.steps, &e, &err), 0);
        sn_synth_result_t sr;
        tu_assert_rc(sn_synth_search(e, 1, NULL, &sr, &err), 0);
        assert_int_equal(sr.status, SN_SYNTH_OPTIMAL);
        sn_bounds_t b = bounds_of(t, &p);
        if (b.best > (int64_t) sr.upper)
            fail_msg("%s on %s (pm %zu, msgs %u): bound %lld above the optimum %u",
                     sn_coll_name(p.coll), t->spec, cases[i].pm, p.msgs, (long long) b.best,
                     sr.upper);
        free(sr.sched.ev);
        sn_synth_enc_free(e);
        sn_topo_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_below_every_algorithm), cmocka_unit_test(test_tight),
        cmocka_unit_test(test_combining_cut_vertex),  cmocka_unit_test(test_fattree_every_m),
        cmocka_unit_test(test_below_synth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
