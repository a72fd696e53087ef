/* stepnet synth (core/synth): the encoding counted by hand on the smallest case and checked on a
 * decoded assignment; proven optima with a known value (paths, rings, stars, complete graphs,
 * hypercube:3 multiport total exchange = 4) searched from T = 1, so that every T below the optimum
 * is proven unsatisfiable by the solver; a random graph's single-port broadcast against a brute
 * force; and every optimum's schedule written, parsed, checked and verified by the simulator in
 * exactly the optimum's steps. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/synth/synth.h"
#include "stepnet/schedule_file.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

/* ---- the encoding by hand ------------------------------------------------------------------ */

typedef struct {
    int32_t lits[64][8];
    size_t len[64], n;
} clauses_t;

static void keep(void *ctx, const int32_t *lits, size_t n)
{
    clauses_t *c = ctx;
    assert_true(c->n < 64 && n <= 8);
    memcpy(c->lits[c->n], lits, n * sizeof *lits);
    c->len[c->n++] = n;
}

static int assigned(void *ctx, int32_t var)
{
    return ((const int *) ctx)[var];
}

/* linear:2, bcast from 0, multiport, horizon 1: have(1, 1) = 1, send(0->1, 1) = 2, late(1) = 3,
 * late(2) = 4; the clauses late(1) -> late(2), send -> have(1, 1), send -> not late(1), have(1, 1)
 * -> send, late(2) -> have(1, 1). */
static void test_encoding_by_hand(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 1, &e, &err), 0);
    clauses_t c = {0};
    sn_synth_encode(e, keep, &c);
    assert_int_equal(e->nvars_total, 4);
    assert_int_equal(e->nclauses, 5);
    assert_int_equal(c.n, 5);
    assert_int_equal(sn_synth_deadline(e, 1), 4);
    sn_synth_encode(e, NULL, NULL); /* counting alone gives the same */
    assert_int_equal(e->nclauses, 5);
    /* the one schedule: 0 sends to 1 in slot 1; every clause holds */
    int val[5] = {0, 1, 1, 0, 1};
    for (size_t i = 0; i < c.n; i++) {
        int sat = 0;
        for (size_t j = 0; j < c.len[i]; j++) {
            int32_t l = c.lits[i][j];
            sat |= l > 0 ? val[l] : !val[-l];
        }
        assert_true(sat);
    }
    sn_sched_t s;
    sn_synth_decode(e, 1, assigned, val, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.steps, 1);
    assert_int_equal(s.ev[0].node, 0);
    assert_int_equal(s.ev[0].pkt.src, 0);
    free(s.ev);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

/* pmna is not proven at all; sna and mna only through their duals, not encoded directly */
static void test_refuses_combining(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_PMNA, "multi", "one", "full");
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 3, &e, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "bcast, scatter"));
    assert_null(e);
    p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    tu_assert_rc(sn_synth_enc_new(t, &p, 3, &e, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "through its dual"));
    assert_null(e);
    sn_topo_free(t);
}

/* SN_SYNTH_COLLS, which messages print, and the list of `stepnet synth --help` name exactly the
 * collectives sn_synth_supports accepts (the non-combining ones that run once, from the list of
 * collectives), in the list's order. */
static void test_supported_names(void **state)
{
    (void) state;
    char want[256] = "";
    size_t len = 0;
    int n = 0, last = -1;
    for (int c = 0; c < SN_COLL_COUNT; c++)
        if (sn_synth_supports((sn_coll_t) c))
            n++, last = c;
    for (int c = 0, i = 0; c < SN_COLL_COUNT; c++) {
        if (!sn_synth_supports((sn_coll_t) c))
            continue;
        const char *sep = i++ == 0 ? "" : c == last ? " and " : ", ";
        len += (size_t) snprintf(want + len, sizeof want - len, "%s%s", sep,
                                 sn_coll_name((sn_coll_t) c));
    }
    assert_int_equal(n, 10);
    assert_string_equal(SN_SYNTH_COLLS, want);
    assert_false(sn_synth_supports(SN_COLL_COUNT));
    /* `stepnet synth --help` lists them too, joined by commas over two lines */
    const char *args[] = {"synth", "--help", NULL};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&p, 0);
    const char *a = strstr(p.out, "Collectives: ");
    assert_non_null(a);
    a += strlen("Collectives: ");
    char help[256] = "", commas[256] = "";
    size_t k = 0;
    for (; *a && *a != '.' && k + 1 < sizeof help; a++)
        help[k++] = *a == '\n' ? ' ' : *a;
    help[k] = '\0';
    for (int c = 0; c < SN_COLL_COUNT; c++)
        if (sn_synth_supports((sn_coll_t) c))
            snprintf(commas + strlen(commas), sizeof commas - strlen(commas), "%s%s",
                     commas[0] ? ", " : "", sn_coll_name((sn_coll_t) c));
    assert_string_equal(help, commas);
    tu_exec_free(&p);
}

/* ---- proven optima ------------------------------------------------------------------------- */

/* Writes the schedule as a file, parses and checks it as --algo schedule:FILE does, and plays it
 * in the simulator: verified in exactly `steps` slots. */
static void expect_verified_ops(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                                const sn_sched_ops_t *ops, uint32_t steps)
{
    char *text = NULL;
    size_t len = 0;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_file_format(t, p, "synth", s, ops, &text, &len, &err), 0);
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    tu_assert_rc(sn_sched_file_plan_text(text, len, t, p, &a, &plan, &err), 0);
    sn_sim_opts_t so = {.max_slots = steps + 1};
    sn_sim_result_t res;
    tu_assert_rc(sn_sim_run(t, p, a, plan, &so, &res, &err), 0);
    assert_true(res.verified);
    assert_int_equal(res.steps, steps);
    a->plan_free(plan);
    free(text);
}

static void expect_verified(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                            uint32_t steps)
{
    expect_verified_ops(t, p, s, NULL, steps);
}

/* The optimum of (t, p) searched from T = 1 with the given horizon: every call below it must be
 * unsatisfiable, the one at it satisfiable, and its schedule must verify. */
static uint32_t optimum(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon)
{
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, p, horizon, &e, &err), 0);
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 1, NULL, &r, &err), 0);
    assert_int_equal(r.status, SN_SYNTH_OPTIMAL);
    assert_int_equal(r.lower, r.upper);
    assert_int_equal(r.ncalls, r.upper);
    for (size_t i = 0; i + 1 < r.ncalls; i++) { /* unsatisfiable strictly below the optimum */
        assert_int_equal(r.calls[i].slots, i + 1);
        assert_int_equal(r.calls[i].result, 20);
    }
    assert_int_equal(r.calls[r.ncalls - 1].result, 10);
    if (r.upper > 1)
        assert_int_equal(r.unsat_call, (int) r.ncalls - 2);
    expect_verified(t, p, &r.sched, r.upper);
    free(r.sched.ev);
    sn_synth_enc_free(e);
    return r.upper;
}

static uint32_t optimum_of(const char *spec, sn_coll_t coll, const char *ports, const char *rx,
                           const char *duplex, uint32_t root, uint32_t horizon)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(coll, ports, rx, duplex);
    p.root = root;
    uint32_t opt = optimum(t, &p, horizon);
    sn_topo_free(t);
    return opt;
}

/* The star K_{1,k}: hub 0, leaves 1 .. k. */
static sn_topo_t *star_tree(uint32_t k)
{
    uint32_t u[16], v[16];
    for (uint32_t i = 0; i < k; i++)
        u[i] = 0, v[i] = i + 1;
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_topo_from_edges("star-tree", k + 1, k, u, v, NULL, &t, &err), 0);
    return t;
}

static void test_paths(void **state)
{
    (void) state;
    /* a path of 5 from an end: 4 hops whatever the port model */
    assert_int_equal(optimum_of("linear:5", SN_COLL_BCAST, "single", "one", "full", 0, 6), 4);
    assert_int_equal(optimum_of("linear:5", SN_COLL_BCAST, "multi", "one", "full", 0, 6), 4);
    /* from the middle: 2 hops multiport; single-port the middle informs one side first: 3 */
    assert_int_equal(optimum_of("linear:5", SN_COLL_BCAST, "multi", "one", "full", 2, 5), 2);
    assert_int_equal(optimum_of("linear:5", SN_COLL_BCAST, "single", "one", "full", 2, 5), 3);
    /* scatter from an end of a path of 4: the root sends 3 packets, the farthest first, one a
     * slot (3 slots), the last arriving in slot 3 */
    assert_int_equal(optimum_of("linear:4", SN_COLL_SCATTER, "single", "one", "full", 0, 6), 3);
}

static void test_rings(void **state)
{
    (void) state;
    assert_int_equal(optimum_of("ring:8", SN_COLL_BCAST, "multi", "one", "full", 0, 6), 4);
    /* single-port: the root informs one neighbour in slot 1 and the other in slot 2; the side
     * served first covers the 4 hops to the antipode by slot 4, the other its 3 */
    assert_int_equal(optimum_of("ring:8", SN_COLL_BCAST, "single", "one", "full", 0, 7), 4);
    assert_int_equal(optimum_of("ring:7", SN_COLL_BCAST, "single", "one", "full", 0, 7), 4);
    /* mnb on ring:4 multiport: the diameter 2 with both directions busy */
    assert_int_equal(optimum_of("ring:4", SN_COLL_MNB, "multi", "one", "full", 0, 4), 2);
}

static void test_complete_graphs(void **state)
{
    (void) state;
    /* single-port broadcast doubles the informed nodes every slot: ceil(log2 8) */
    assert_int_equal(optimum_of("complete:8", SN_COLL_BCAST, "single", "one", "full", 0, 5), 3);
    assert_int_equal(optimum_of("complete:5", SN_COLL_TE, "multi", "one", "full", 0, 3), 1);
    /* single-port total exchange on K_4: every node sends 3 packets, one a slot */
    assert_int_equal(optimum_of("complete:4", SN_COLL_TE, "single", "one", "full", 0, 5), 3);
    /* half duplex K_2: one direction a slot, so 2 */
    assert_int_equal(optimum_of("complete:2", SN_COLL_TE, "multi", "one", "half", 0, 3), 2);
}

static void test_stars(void **state)
{
    (void) state;
    sn_topo_t *t = star_tree(4);
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    assert_int_equal(optimum(t, &p, 3), 1); /* the hub sends on every link at once */
    p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    assert_int_equal(optimum(t, &p, 5), 4); /* one leaf a slot */
    p.root = 1;
    assert_int_equal(optimum(t, &p, 6), 4); /* to the hub, then the three other leaves */
    p = tu_params(SN_COLL_GATHER, "single", "one", "full");
    assert_int_equal(optimum(t, &p, 5), 4); /* the hub receives one a slot (rx one) */
    p = tu_params(SN_COLL_GATHER, "single", "any", "full");
    assert_int_equal(optimum(t, &p, 5), 1); /* rx any: every leaf sends at once */
    sn_topo_free(t);
}

static void test_hypercube3_te_multiport_is_4(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 5, &e, &err), 0);
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 3, NULL, &r, &err), 0); /* 3: the diameter */
    assert_int_equal(r.status, SN_SYNTH_OPTIMAL);
    assert_int_equal(r.upper, 4);
    assert_int_equal(r.calls[0].result, 20); /* 3 slots: unsatisfiable */
    expect_verified(t, &p, &r.sched, 4);
    free(r.sched.ev);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

static int stop_at_once(void *ctx)
{
    (void) ctx;
    return 1;
}

/* A search stopped before its first answer is bounded by the interval it was given, and holds no
 * schedule. */
static void test_stopped_search_is_bounded(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 5, &e, &err), 0);
    sn_synth_opts_t o = {.stop = stop_at_once};
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 3, &o, &r, &err), 0);
    assert_int_equal(r.status, SN_SYNTH_BOUNDED);
    assert_int_equal(r.lower, 3);
    assert_int_equal(r.upper, 5);
    assert_int_equal(r.calls[0].result, 0);
    assert_null(r.sched.ev);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

/* A new solver for every T (no learned clauses carried over) proves the same optimum with the
 * same sequence of answers. */
static void test_fresh_solver_per_T_agrees(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:6");
    sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "full");
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 10, &e, &err), 0);
    sn_synth_opts_t o = {.fresh = 1};
    sn_synth_result_t inc, fresh;
    tu_assert_rc(sn_synth_search(e, 1, NULL, &inc, &err), 0);
    tu_assert_rc(sn_synth_search(e, 1, &o, &fresh, &err), 0);
    assert_int_equal(inc.status, SN_SYNTH_OPTIMAL);
    assert_int_equal(fresh.status, SN_SYNTH_OPTIMAL);
    assert_int_equal(inc.upper, 8); /* below mnb-route's 9: docs/reproduction.md */
    assert_int_equal(fresh.upper, inc.upper);
    assert_int_equal(fresh.ncalls, inc.ncalls);
    expect_verified(t, &p, &fresh.sched, 8);
    free(inc.sched.ev);
    free(fresh.sched.ev);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

/* ---- combining collectives ------------------------------------------------------------------ */

/* sna or mna on t: the optimum of the dual searched from T = 1, its schedule reversed in time
 * and verified as the combining collective in exactly that many slots. */
static uint32_t dual_optimum(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon)
{
    sn_params_t d;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_dual_params(t, p, &d, &err), 0);
    assert_int_equal(d.coll, p->coll == SN_COLL_SNA ? SN_COLL_BCAST : SN_COLL_MNB);
    assert_int_equal(d.root, p->root);
    sn_synth_enc_t *e = NULL;
    tu_assert_rc(sn_synth_enc_new(t, &d, horizon, &e, &err), 0);
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 1, NULL, &r, &err), 0);
    assert_int_equal(r.status, SN_SYNTH_OPTIMAL);
    sn_sched_t rev;
    sn_sched_ops_t ops;
    tu_assert_rc(sn_synth_reverse(t, p, &r.sched, &rev, &ops, &err), 0);
    assert_int_equal(rev.steps, r.upper);
    for (size_t i = 0; i < rev.n; i++)
        assert_int_equal(rev.ev[i].pkt.src, SN_SRC_COMBINED);
    expect_verified_ops(t, p, &rev, &ops, r.upper);
    free(rev.ev);
    sn_sched_ops_free(&ops);
    free(r.sched.ev);
    sn_synth_enc_free(e);
    return r.upper;
}

static void test_sna_by_duality(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    assert_int_equal(dual_optimum(t, &p, 4), 2); /* the far end's contribution travels 2 hops */
    p.root = 1;
    assert_int_equal(dual_optimum(t, &p, 4), 1); /* both ends send to the middle at once */
    p = tu_params(SN_COLL_SNA, "single", "one", "full");
    p.root = 1;
    assert_int_equal(dual_optimum(t, &p, 4), 2); /* the middle receives one a slot */
    sn_topo_free(t);
    t = star_tree(4);
    p = tu_params(SN_COLL_SNA, "single", "one", "full");
    assert_int_equal(dual_optimum(t, &p, 5), 4); /* the hub receives from one leaf a slot */
    p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    p.msgs = 3;
    assert_int_equal(dual_optimum(t, &p, 5), 3); /* a packet per link per slot, 3 each */
    p = tu_params(SN_COLL_SNA, "multi", "one", "half");
    p.root = 1;
    assert_int_equal(dual_optimum(t, &p, 5), 2); /* leaves to the hub, then the hub to leaf 1 */
    sn_topo_free(t);
}

static void test_mna_by_duality(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_MNA, "multi", "one", "full");
    assert_int_equal(dual_optimum(t, &p, 4), 2); /* mnb on ring:4 multiport: 2 */
    sn_topo_free(t);
    t = tu_topo("linear:3");
    p = tu_params(SN_COLL_MNA, "single", "one", "full");
    /* the middle receives a combination from each end (2 slots) and sends one to each */
    assert_int_equal(dual_optimum(t, &p, 6), 4);
    sn_topo_free(t);
}

/* Single-port with any receptions a slot limits sends, not receptions: the reversal of a
 * broadcast would send several packets at once, so the duality does not hold. */
static void test_dual_refuses_rx_any(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_SNA, "single", "any", "full"), d;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_dual_params(t, &p, &d, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, SN_REF_RX " any"));
    assert_int_equal(sn_synth_kind(SN_COLL_SNA), SN_SYNTH_DUAL);
    p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    tu_assert_rc(sn_synth_dual_params(t, &p, &d, &err), SN_EINVAL);
    sn_topo_free(t);
}

/* allreduce, relaxed, searched from T = 1: unsatisfiable strictly below `want`, satisfiable at
 * it, and the relaxation's schedule made exact verifies as an allreduce in `want` slots: the
 * optimum, proven both ways. */
static void expect_allreduce_optimum(const char *spec, const char *ports, uint32_t msgs,
                                     uint32_t horizon, uint32_t want)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, ports, "one", "full");
    p.msgs = msgs;
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, horizon, &e, &err), 0);
    assert_true(e->relaxed);
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 1, NULL, &r, &err), 0);
    assert_int_equal(r.status, SN_SYNTH_BOUNDED); /* a relaxation proves no optimum alone */
    assert_int_equal(r.lower, want);
    assert_int_equal(r.ncalls, want);
    for (size_t i = 0; i + 1 < r.ncalls; i++)
        assert_int_equal(r.calls[i].result, 20);
    assert_int_equal(r.calls[r.ncalls - 1].result, 10);
    sn_sched_t exact;
    sn_sched_ops_t ops;
    tu_assert_rc(sn_synth_realize(e, &r.sched, &exact, &ops), 0);
    expect_verified_ops(t, &p, &exact, &ops, want);
    free(exact.ev);
    sn_sched_ops_free(&ops);
    free(r.sched.ev);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

static void test_allreduce_relaxed(void **state)
{
    (void) state;
    /* ring:4 = hypercube:2: recursive doubling, the two pieces in opposite dimension orders */
    expect_allreduce_optimum("ring:4", "multi", 2, 4, 2);
    /* linear:3: the ends' contributions cross the middle, 2 hops */
    expect_allreduce_optimum("linear:3", "multi", 1, 3, 2);
    /* ring:6, 4 pieces: 4 slots refuted by the solver (the counting bound gives 4) */
    expect_allreduce_optimum("ring:6", "multi", 4, 6, 5);
}

/* A relaxation unsatisfiable up to its horizon is no error: lower = horizon + 1. */
static void test_allreduce_refuted_to_horizon(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:6");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    p.msgs = 4;
    sn_synth_enc_t *e = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_synth_enc_new(t, &p, 4, &e, &err), 0);
    sn_synth_result_t r;
    tu_assert_rc(sn_synth_search(e, 3, NULL, &r, &err), 0);
    assert_int_equal(r.status, SN_SYNTH_BOUNDED);
    assert_int_equal(r.lower, 5);
    assert_null(r.sched.ev);
    assert_int_equal(r.calls[r.unsat_call].slots, 4);
    sn_synth_enc_free(e);
    sn_topo_free(t);
}

/* ---- a random graph against a brute force ------------------------------------------------- */

#define BF_N 8

/* The fewest slots of single-port (rx one) broadcast from root on the graph adj (bitmasks): a
 * breadth-first search over the sets of informed nodes, each slot every informed node informing
 * at most one uninformed neighbour, no node informed twice. */
static void bf_next(const uint32_t *adj, uint32_t informed, uint32_t u, uint32_t got,
                    uint32_t *reach, uint32_t *seen)
{
    while (u < BF_N && !(informed >> u & 1))
        u++;
    if (u == BF_N) {
        uint32_t next = informed | got;
        if (!seen[next])
            seen[next] = 1, reach[next] = 1;
        return;
    }
    bf_next(adj, informed, u + 1, got, reach, seen); /* u sends nothing */
    for (uint32_t w = 0; w < BF_N; w++)
        if ((adj[u] >> w & 1) && !(informed >> w & 1) && !(got >> w & 1))
            bf_next(adj, informed, u + 1, got | 1u << w, reach, seen);
}

static uint32_t brute_force_bcast(const uint32_t *adj, uint32_t root)
{
    static uint32_t level[1 << BF_N], seen[1 << BF_N], nxt[1 << BF_N];
    memset(level, 0, sizeof level);
    memset(seen, 0, sizeof seen);
    level[1u << root] = 1;
    seen[1u << root] = 1;
    for (uint32_t slots = 0;; slots++) {
        if (level[(1u << BF_N) - 1])
            return slots;
        memset(nxt, 0, sizeof nxt);
        for (uint32_t s = 0; s < (1u << BF_N); s++)
            if (level[s])
                bf_next(adj, s, 0, 0, nxt, seen);
        memcpy(level, nxt, sizeof level);
    }
}

static void test_random_graph_against_brute_force(void **state)
{
    (void) state;
    uint64_t x = 0x2545f4914f6cdd1dULL; /* a fixed seed: the same graph every run */
    uint32_t u[32], v[32], m = 0, adj[BF_N] = {0};
    for (uint32_t i = 1; i < BF_N; i++) { /* a random spanning tree, then extra edges */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t j = (uint32_t) (x >> 33) % i;
        u[m] = j, v[m] = i, m++;
        adj[i] |= 1u << j, adj[j] |= 1u << i;
    }
    for (uint32_t k = 0; k < 3; k++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t a = (uint32_t) (x >> 33) % BF_N, b = (uint32_t) (x >> 45) % BF_N;
        if (a == b || (adj[a] >> b & 1))
            continue;
        u[m] = a < b ? a : b, v[m] = a < b ? b : a, m++;
        adj[a] |= 1u << b, adj[b] |= 1u << a;
    }
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_topo_from_edges("random8", BF_N, m, u, v, NULL, &t, &err), 0);
    for (uint32_t root = 0; root < BF_N; root++) {
        sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
        p.root = root;
        uint32_t want = brute_force_bcast(adj, root);
        assert_int_equal(optimum(t, &p, BF_N - 1), want);
    }
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoding_by_hand),
        cmocka_unit_test(test_refuses_combining),
        cmocka_unit_test(test_supported_names),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_rings),
        cmocka_unit_test(test_complete_graphs),
        cmocka_unit_test(test_stars),
        cmocka_unit_test(test_hypercube3_te_multiport_is_4),
        cmocka_unit_test(test_stopped_search_is_bounded),
        cmocka_unit_test(test_fresh_solver_per_T_agrees),
        cmocka_unit_test(test_random_graph_against_brute_force),
        cmocka_unit_test(test_sna_by_duality),
        cmocka_unit_test(test_mna_by_duality),
        cmocka_unit_test(test_dual_refuses_rx_any),
        cmocka_unit_test(test_allreduce_relaxed),
        cmocka_unit_test(test_allreduce_refuted_to_horizon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
