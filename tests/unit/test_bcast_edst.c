/* Unit tests of bcast-edst (core/algo/bcast/bcast_edst.c), the multiport broadcast of M packets
 * over the d edge-disjoint spanning binomial trees of Q_d (Johnsson and Ho, hypercube broadcasting
 * paper) and the d + 1 trees of the folded cube FQ_d: verified and exact for every d up to 8 and
 * many M, roots and fragmentations, ceil(M/d) + d steps on Q_d (d for one packet) and
 * ceil(M/(d+1)) + d - 1 on FQ_d (ceil(d/2) for one), above every lower bound; the trees
 * arc-disjoint and spanning in the recorded schedule; auto's choice; and the port models and
 * topologies it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/model.h"
#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const uint32_t Ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 16, 17, 31, 32, 33, 64, 100};

/* ceil(M/d) + d for d >= 2; M on Q_1 (one tree, one link); d for one packet */
static uint64_t edst_steps(uint32_t d, uint32_t M)
{
    if (M == 1)
        return d;
    if (d == 1)
        return M;
    return (M + d - 1) / d + d;
}

/* the folded cube's d + 1 trees of height d: ceil(M/(d+1)) + d - 1; ceil(d/2) for one packet */
static uint64_t fold_steps(uint32_t d, uint32_t M)
{
    return M == 1 ? (d + 1) / 2 : (M + d) / (d + 1) + d - 1;
}

static void test_sweep(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 8; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (size_t i = 0; i < NELEMS(Ms); i++)
            for (uint32_t f = 1; f <= 2; f++) {
                if (Ms[i] % f != 0)
                    continue;
                sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
                p.msgs = Ms[i] / f;
                p.frags = f;
                p.root = (Ms[i] * 37u + d) % t->n;
                tu_run_t r = tu_sim(t, &p, "bcast-edst");
                if (r.rc != 0 || !r.res.verified)
                    fail_msg("%s M = %u: rc %d (%s)", spec, Ms[i], r.rc, r.err.msg);
                assert_int_equal(r.res.steps, edst_steps(d, Ms[i]));
                assert_int_equal(r.predicted, (int64_t) r.res.steps);
                assert_true((int64_t) r.res.steps >= r.bounds.best);
                /* the pipelined bound ceil(M/d) + d - 1: one short of it for d >= 2, M >= 2 */
                assert_true(r.res.steps >= (Ms[i] + d - 1) / d + d - 1);
            }
        sn_topo_free(t);
    }
    for (uint32_t d = 2; d <= 8; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (size_t i = 0; i < NELEMS(Ms); i++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
            p.msgs = Ms[i];
            p.root = (Ms[i] * 11u + d) % t->n;
            tu_run_t r = tu_sim(t, &p, "bcast-edst");
            if (r.rc != 0 || !r.res.verified)
                fail_msg("%s M = %u: rc %d (%s)", spec, Ms[i], r.rc, r.err.msg);
            assert_int_equal(r.res.steps, fold_steps(d, Ms[i]));
            assert_int_equal(r.predicted, (int64_t) r.res.steps);
            assert_true((int64_t) r.res.steps >= r.bounds.best);
        }
        sn_topo_free(t);
    }
    /* the figures: hypercube:6 with 64 packets in 17 slots (the bound ceil(64/6) + 5 = 16),
     * hypercube:4 with 16 in 8, against bcast-binomial's M + d - 1 = 69 and 19 */
    static const struct {
        const char *spec;
        uint32_t M;
        uint64_t steps, binomial;
    } c[] = {{"hypercube:6", 64, 17, 69}, {"hypercube:4", 16, 8, 19}};
    /* and foldedcube:6 with 64 packets in 15 (the bound ceil(64/7) + 2 = 12), against
     * bcast-fcube's ceil(d/2) + M - 1 = 66 */
    sn_topo_t *ft = tu_topo("foldedcube:6");
    sn_params_t fp = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    fp.msgs = 64;
    tu_run_t fr = tu_sim(ft, &fp, "bcast-edst"), fb = tu_sim(ft, &fp, "bcast-fcube");
    assert_true(fr.res.verified && fb.res.verified);
    assert_int_equal(fr.res.steps, 15);
    assert_int_equal(fb.res.steps, 66);
    sn_topo_free(ft);
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
        p.msgs = c[i].M;
        tu_run_t r = tu_sim(t, &p, "bcast-edst"), b = tu_sim(t, &p, "bcast-binomial");
        assert_true(r.res.verified && b.res.verified);
        assert_int_equal(r.res.steps, c[i].steps);
        assert_int_equal(b.res.steps, c[i].binomial);
        sn_topo_free(t);
    }
}

/* The recorded schedule: every arc (sender, port) carries the packets of one tree only (x mod m
 * the same for all of them, m = d trees on Q_d, d + 1 on FQ_d), each at most once, and every
 * packet reaches each node but the root over exactly one arc, so the m trees are arc-disjoint
 * spanning trees; tree j is rooted at the root's neighbour on port j (the root sends tree j's
 * packets on port j only). */
static void arc_disjoint(const char *spec)
{
    sn_topo_t *t = tu_topo(spec);
    uint32_t n = t->n, m = sn_topo_degree(t, 0), M = 3 * m + 1;
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.msgs = M;
    p.root = n / 3;
    sn_sched_t *s = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_record(t, &p, "bcast-edst", &s, &err), 0);
    int32_t *tree = malloc((size_t) n * m * sizeof *tree); /* arc -> tree, -1 none */
    uint8_t *seen = calloc((size_t) n * m * M, 1);         /* (arc, packet) */
    uint32_t *got = calloc((size_t) n * M, sizeof *got);   /* (node, packet) arrivals */
    for (size_t a = 0; a < (size_t) n * m; a++)
        tree[a] = -1;
    assert_int_equal(s->n, (size_t) (n - 1) * M);
    for (size_t i = 0; i < s->n; i++) {
        const sn_sched_ev_t *e = &s->ev[i];
        uint32_t x = e->pkt.seq, a = e->node * m + e->port;
        assert_true(e->port < m);
        if (tree[a] < 0)
            tree[a] = (int32_t) (x % m);
        assert_int_equal(tree[a], (int32_t) (x % m));
        assert_int_equal(seen[(size_t) a * M + x], 0);
        seen[(size_t) a * M + x] = 1;
        if (e->node == p.root)
            assert_int_equal(e->port, x % m);
        got[(size_t) sn_topo_port(t, e->node, e->port)->peer * M + x]++;
    }
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t x = 0; x < M; x++)
            assert_int_equal(got[(size_t) v * M + x], v == p.root ? 0 : 1);
    /* every tree spans with n - 1 arcs, so the m trees use m (n - 1) of the n m arcs */
    uint32_t arcs[32] = {0};
    for (size_t a = 0; a < (size_t) n * m; a++)
        if (tree[a] >= 0)
            arcs[tree[a]]++;
    for (uint32_t j = 0; j < m; j++)
        assert_int_equal(arcs[j], n - 1);
    free(tree);
    free(seen);
    free(got);
    sn_sched_free(s);
    sn_topo_free(t);
}

static void test_arc_disjoint(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 7; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        arc_disjoint(spec);
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        arc_disjoint(spec);
    }
}

/* auto's broadcast of M packets on t: the shorter of the trees' count `edst` (bcast-edst) and the
 * single tree's `one` (algorithm `single`, which wins the ties: its row comes first), or fewer
 * slots still by another algorithm (bcast-gossip's timetable: a slot on Q_3 with 2 packets). */
static void expect_auto(const sn_topo_t *t, uint32_t M, uint64_t edst, uint64_t one,
                        const char *single)
{
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.msgs = M;
    tu_run_t a = tu_sim(t, &p, NULL);
    uint64_t best = edst < one ? edst : one;
    assert_true(a.res.verified);
    if (a.res.steps < best)
        return;
    assert_int_equal(a.res.steps, best);
    assert_string_equal(a.algo->name, edst < one ? "bcast-edst" : single);
}

/* auto takes bcast-edst where it is faster than the single tree, bcast-binomial keeps one
 * packet (d slots), and the ties of M = 2 and of Q_1, Q_2 (its row comes first); likewise
 * bcast-fcube on the folded cube */
static void test_auto(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 8; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (size_t i = 0; i < NELEMS(Ms); i++)
            expect_auto(t, Ms[i], edst_steps(d, Ms[i]), Ms[i] + d - 1, "bcast-binomial");
        sn_topo_free(t);
    }
    /* the folded cube: bcast-fcube's ceil(d/2) + M - 1 up to where the d + 1 trees are faster */
    for (uint32_t d = 2; d <= 8; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (size_t i = 0; i < NELEMS(Ms); i++)
            expect_auto(t, Ms[i], fold_steps(d, Ms[i]), (d + 1) / 2 + Ms[i] - 1, "bcast-fcube");
        sn_topo_free(t);
    }
}

/* multiport full duplex only (the trees' opposite arcs are busy in the same slots), hypercubes
 * and folded cubes only */
static void test_refusals(void **state)
{
    (void) state;
    static const char *const models[][3] = {
        {"multi", "one", "half"}, {"single", "one", "full"}, {"single", "any", "full"}};
    sn_topo_t *t = tu_topo("hypercube:4");
    for (size_t i = 0; i < NELEMS(models); i++) {
        sn_params_t p = tu_params(SN_COLL_BCAST, models[i][0], models[i][1], models[i][2]);
        p.msgs = 8;
        const sn_algo_t *a = NULL;
        sn_err_t err = {0};
        assert_true(sn_model_select("bcast-edst", t, &p, &a, NULL, NULL, &err) < 0);
        tu_run_t r = tu_sim(t, &p, NULL);
        assert_true(r.res.verified);
        assert_string_not_equal(r.algo->name, "bcast-edst");
    }
    sn_topo_free(t);
    t = tu_topo("torus:4x4");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("bcast-edst", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    assert_non_null(strstr(err.msg, "folded cube"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_arc_disjoint),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
