/* Unit tests of the combining schedules built from broadcasts (core/algo/engine/reverse.c):
 * sna-reverse (sna/sna_reverse.c), mna-reverse (mna/mna_reverse.c), allreduce-rsag
 * (allreduce/allreduce_rsag.c) and allreduce-rb (allreduce/allreduce_rb.c) in the simulator on many
 * topologies, port models, operators, packet counts and roots, every run verified value by value,
 * exactly as predicted, at or above every lower bound and never longer than the broadcast it
 * reverses; the counting bound's figures where the allgather meets its reception bound; the port
 * model a reversal cannot keep refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/place.h"
#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

/* The port models a reversal keeps: multiport, single-port with one reception, half duplex. */
static const char *const pms[][3] = {{"multi", "one", "full"},
                                     {"single", "one", "full"},
                                     {"multi", "one", "half"},
                                     {"single", "one", "half"}};
#define NPMS (sizeof pms / sizeof pms[0])

static const char *pm_text(const sn_params_t *p)
{
    return p->pm.ports == SN_PORTS_SINGLE
               ? (p->pm.duplex == SN_DUPLEX_HALF ? "single half" : "single")
               : (p->pm.duplex == SN_DUPLEX_HALF ? "multi half" : "multi");
}

/* Runs algo, fails unless verified, exactly as predicted and at or above every bound; returns
 * the steps. */
static uint64_t run_ok(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    tu_run_t r = tu_sim(t, p, algo);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s %s on %s (%s, op %s, msgs %u, frags %u, root %u): rc %d, %s", r.algo->name,
                 sn_coll_name(p->coll), t->spec, pm_text(p), sn_op_name(p->op), p->msgs, p->frags,
                 p->root, r.rc, r.err.msg);
    assert_int_equal(r.res.deliveries, r.res.expected_deliveries);
    if ((int64_t) r.res.steps != r.predicted)
        fail_msg("%s on %s (%s, msgs %u): %llu steps, predicted %lld", r.algo->name, t->spec,
                 pm_text(p), p->msgs, (unsigned long long) r.res.steps, (long long) r.predicted);
    for (size_t i = 0; i < r.bounds.count; i++)
        if ((int64_t) r.res.steps < r.bounds.b[i].value)
            fail_msg("%s on %s (%s, msgs %u): %llu steps below the bound %s = %lld", r.algo->name,
                     t->spec, pm_text(p), p->msgs, (unsigned long long) r.res.steps,
                     r.bounds.b[i].name, (long long) r.bounds.b[i].value);
    return r.res.steps;
}

/* The steps of the broadcast collective `c` auto picks for p's port model and sizes. */
static uint64_t auto_steps(const sn_topo_t *t, const sn_params_t *p, sn_coll_t c, uint32_t msgs,
                           uint32_t frags)
{
    sn_params_t q = *p;
    q.coll = c;
    q.msgs = msgs;
    q.frags = frags;
    q.op = sn_op_default(c);
    tu_run_t r = tu_sim(t, &q, NULL);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s on %s: rc %d, %s", sn_coll_name(c), t->spec, r.rc, r.err.msg);
    return r.res.steps;
}

static sn_params_t params(sn_coll_t c, size_t pm, sn_op_t op, uint32_t msgs, uint32_t frags)
{
    sn_params_t p = tu_params(c, pms[pm][0], pms[pm][1], pms[pm][2]);
    p.op = op;
    p.msgs = msgs;
    p.frags = frags;
    return p;
}

static const char *const specs[] = {"linear:4",   "ring:5",      "ring:8",      "torus:3x3",
                                    "torus:4x4",  "mesh:3x4",    "hypercube:3", "hypercube:4",
                                    "complete:5", "complete:8",  "star:4",      "fattree:2:2:2,3",
                                    "ccc:3",      "foldedcube:4"};
#define NSPECS (sizeof specs / sizeof specs[0])

/* sna-reverse: a verified accumulation wherever a broadcast exists, no longer than it, from
 * several roots, with fragments and every operator. */
static void test_sna(void **state)
{
    (void) state;
    for (size_t si = 0; si < NSPECS; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        uint32_t roots[] = {0, t->n - 1};
        for (size_t pm = 0; pm < NPMS; pm++)
            for (size_t ri = 0; ri < 2; ri++) {
                if (!sn_topo_is_proc(t, roots[ri]))
                    continue;
                const uint32_t ms[][2] = {{1, 1}, {4, 1}, {3, 2}, {16, 1}};
                for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                    sn_op_t op = mi % 2 ? SN_OP_MAX : SN_OP_SUM;
                    sn_params_t p = params(SN_COLL_SNA, pm, op, ms[mi][0], ms[mi][1]);
                    p.root = roots[ri];
                    uint64_t s = run_ok(t, &p, "sna-reverse");
                    uint64_t b = auto_steps(t, &p, SN_COLL_BCAST, p.msgs, p.frags);
                    if (s > b)
                        fail_msg("sna-reverse on %s (%s, msgs %u): %llu steps, the broadcast "
                                 "it reverses %llu",
                                 t->spec, pm_text(&p), p.msgs, (unsigned long long) s,
                                 (unsigned long long) b);
                }
            }
        sn_topo_free(t);
    }
}

/* mna-reverse: a verified reduce_scatter, no longer than the allgather it reverses. */
static void test_mna(void **state)
{
    (void) state;
    for (size_t si = 0; si < NSPECS; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (size_t pm = 0; pm < NPMS; pm++) {
            const uint32_t ms[][2] = {{1, 1}, {2, 2}, {4, 1}};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                sn_op_t op = mi == 1 ? SN_OP_XOR : SN_OP_SUM;
                sn_params_t p = params(SN_COLL_MNA, pm, op, ms[mi][0], ms[mi][1]);
                uint64_t s = run_ok(t, &p, "mna-reverse");
                uint64_t b = auto_steps(t, &p, SN_COLL_MNB, p.msgs, p.frags);
                if (s > b)
                    fail_msg("mna-reverse on %s (%s, msgs %u): %llu steps, the allgather %llu",
                             t->spec, pm_text(&p), p.msgs, (unsigned long long) s,
                             (unsigned long long) b);
            }
        }
        sn_topo_free(t);
    }
}

/* allreduce-rsag: verified with fewer packets than processors, with fragments, with routers,
 * in every port model; never longer than twice the allgather of the groups. */
static void test_allreduce(void **state)
{
    (void) state;
    for (size_t si = 0; si < NSPECS; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (size_t pm = 0; pm < NPMS; pm++) {
            const uint32_t ms[][2] = {{1, 1}, {3, 1}, {5, 3}, {16, 1}};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                sn_op_t op = mi == 2 ? SN_OP_MIN : SN_OP_SUM;
                sn_params_t p = params(SN_COLL_ALLREDUCE, pm, op, ms[mi][0], ms[mi][1]);
                uint64_t s = run_ok(t, &p, "allreduce-rsag");
                uint32_t M = p.msgs * p.frags, q = (M + t->nproc - 1) / t->nproc;
                uint64_t ag = auto_steps(t, &p, SN_COLL_MNB, q, 1);
                if (s > 2 * ag)
                    fail_msg("allreduce-rsag on %s (%s, %u packets): %llu steps, twice the "
                             "allgather of %u is %llu",
                             t->spec, pm_text(&p), M, (unsigned long long) s, q,
                             (unsigned long long) (2 * ag));
            }
        }
        sn_topo_free(t);
    }
    /* fewer packets than processors: the partial allgather from 16 spread owners (10 slots)
     * beats the allgather from all 64 with 48 groups empty (16) */
    sn_topo_t *t = tu_topo("torus:8x8");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 0, SN_OP_SUM, 16, 1);
    assert_int_equal(run_ok(t, &p, "allreduce-rsag"), 20);
    sn_topo_free(t);
}

/* allreduce-rb: verified with fragments, with routers, in every port model; never longer than
 * the reduce and the broadcast back to back where the centre is the run's root (vertex-transitive
 * graphs). */
static void test_allreduce_rb(void **state)
{
    (void) state;
    for (size_t si = 0; si < NSPECS; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (size_t pm = 0; pm < NPMS; pm++) {
            const uint32_t ms[][2] = {{1, 1}, {3, 1}, {5, 3}, {16, 1}};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                sn_op_t op = mi == 2 ? SN_OP_MIN : SN_OP_SUM;
                sn_params_t p = params(SN_COLL_ALLREDUCE, pm, op, ms[mi][0], ms[mi][1]);
                uint64_t s = run_ok(t, &p, "allreduce-rb");
                if (!t->vertex_transitive)
                    continue;
                uint64_t b = auto_steps(t, &p, SN_COLL_BCAST, p.msgs, p.frags);
                if (s > 2 * b)
                    fail_msg("allreduce-rb on %s (%s, msgs %u, frags %u): %llu steps, twice "
                             "the broadcast is %llu",
                             t->spec, pm_text(&p), p.msgs, p.frags, (unsigned long long) s,
                             (unsigned long long) (2 * b));
            }
        }
        sn_topo_free(t);
    }
    /* the broadcast overlaps the reduce: torus:4x4 single-port with 4 packets, a broadcast of 7
     * slots (bcast-match), takes 13, not 14; allreduce-rsag takes 28, and auto takes this */
    sn_topo_t *t = tu_topo("torus:4x4");
    sn_params_t p = params(SN_COLL_ALLREDUCE, 1, SN_OP_SUM, 4, 1);
    assert_int_equal(auto_steps(t, &p, SN_COLL_BCAST, 4, 1), 7);
    assert_int_equal(run_ok(t, &p, "allreduce-rb"), 13);
    assert_int_equal(run_ok(t, &p, "allreduce-rsag"), 28);
    tu_run_t r = tu_sim(t, &p, NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.algo->name, "allreduce-rb");
    assert_int_equal(r.res.steps, 13);
    sn_topo_free(t);
    /* a mesh's centre, not its corner: mesh:5x5 from node 12 */
    t = tu_topo("mesh:5x5");
    p = params(SN_COLL_ALLREDUCE, 1, SN_OP_SUM, 4, 1);
    uint64_t s = run_ok(t, &p, "allreduce-rb");
    sn_params_t q = p;
    q.root = 12;
    uint64_t centre = auto_steps(t, &q, SN_COLL_BCAST, 4, 1);
    if (s > 2 * centre)
        fail_msg("allreduce-rb on mesh:5x5 single-port, 4 packets: %llu steps, twice the "
                 "broadcast from the centre is %llu",
                 (unsigned long long) s, (unsigned long long) (2 * centre));
    sn_topo_free(t);
}

/* The port of u towards v. */
static uint32_t port_to(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    for (uint32_t i = 0; i < sn_topo_degree(t, u); i++)
        if (sn_topo_port(t, u, i)->peer == v)
            return i;
    fail_msg("no link %u-%u on %s", u, v, t->spec);
    return 0;
}

/* Keeps the packets with seq >= 1, as packets seq - 1 (engine/place.h's map). */
static int drop_first(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    (void) ctx;
    if (in->seq == 0)
        return 1;
    *out = *in;
    out->seq = in->seq - 1;
    return 0;
}

/* engine/place.c: a broadcast of two packets down linear:3 (0 -> 1 -> 2, pipelined), its first
 * packet dropped, closes up to slots 1 and 2; a resource taken before moves it; a copy to a node
 * that holds the packet is dropped; single-port a node's two sends go to two slots. */
static void test_place(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.msgs = 1; /* the packets kept: seq 1 renamed 0 */
    uint32_t p01 = port_to(t, 0, 1), p12 = port_to(t, 1, 2), p10 = port_to(t, 1, 0);
    sn_sched_ev_t ev[] = {
        {.slot = 1, .node = 0, .port = p01, .pkt = {.src = 0, .dst = SN_NODE_ALL, .seq = 0}},
        {.slot = 2, .node = 0, .port = p01, .pkt = {.src = 0, .dst = SN_NODE_ALL, .seq = 1}},
        {.slot = 2, .node = 1, .port = p12, .pkt = {.src = 0, .dst = SN_NODE_ALL, .seq = 0}},
        {.slot = 3, .node = 1, .port = p12, .pkt = {.src = 0, .dst = SN_NODE_ALL, .seq = 1}},
        {.slot = 4, .node = 1, .port = p10, .pkt = {.src = 0, .dst = SN_NODE_ALL, .seq = 1}},
    };
    sn_sched_t in = {.ev = ev, .n = 5, .steps = 4, .predicted = -1};
    uint64_t at[5];
    sn__busy_t *b = sn__busy_new(t, &p);
    assert_int_equal(sn__place_greedy(t, &p, &in, drop_first, NULL, NULL, b, at), 2);
    assert_int_equal(at[0], 0);
    assert_int_equal(at[1], 1);
    assert_int_equal(at[2], 0);
    assert_int_equal(at[3], 2);
    assert_int_equal(at[4], 0); /* back to the root, which holds it */
    assert_true(sn__busy_clash(b, 2, 1, p12));
    assert_false(sn__busy_clash(b, 2, 1, p10)); /* the other direction, multiport */
    sn__busy_free(b);
    sn_sched_t out;
    sn__place_sched(&in, at, &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.steps, 2);
    assert_int_equal(out.ev[0].node, 0);
    assert_int_equal(out.ev[1].node, 1);
    free(out.ev);
    /* the root's port taken in slot 1, and the packet ready at the root from slot 1 */
    b = sn__busy_new(t, &p);
    sn__busy_take(b, 1, 0, p01);
    uint64_t ready[1] = {1};
    assert_int_equal(sn__place_greedy(t, &p, &in, drop_first, NULL, ready, b, at), 3);
    assert_int_equal(at[1], 2);
    assert_int_equal(at[3], 3);
    sn__busy_free(b);
    /* half duplex: an edge carries one direction per slot */
    sn_params_t h = tu_params(SN_COLL_BCAST, "multi", "one", "half");
    b = sn__busy_new(t, &h);
    sn__busy_take(b, 5, 1, p10);
    assert_true(sn__busy_clash(b, 5, 0, p01));
    assert_false(sn__busy_clash(b, 6, 0, p01));
    sn__busy_free(b);
    /* single-port, rx one: node 1 sends once and receives once per slot */
    sn_params_t sp = tu_params(SN_COLL_BCAST, "single", "one", "full");
    b = sn__busy_new(t, &sp);
    sn__busy_take(b, 7, 1, p12);
    assert_true(sn__busy_clash(b, 7, 1, p10));
    sn__busy_take(b, 8, 0, p01);
    assert_true(sn__busy_clash(b, 8, 2, port_to(t, 2, 1)));
    sn__busy_free(b);
    sn_topo_free(t);
}

/* The figures where the allgather meets its reception bound: the counting bound 2 (N - 1) M / (2E)
 * multiport and 2 (N - 1) M / N single-port, and the reduce_scatter's (N - 1) M / deg; auto takes
 * them. */
static void test_figures(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        sn_coll_t c;
        size_t pm;
        uint32_t msgs;
        uint64_t steps;
    } cases[] = {
        {"ring:8", SN_COLL_ALLREDUCE, 0, 64, 56},      /* 7 x 64 / 8 */
        {"hypercube:4", SN_COLL_ALLREDUCE, 0, 16, 8},  /* 2 x ceil(15 / 4) */
        {"complete:16", SN_COLL_ALLREDUCE, 0, 64, 8},  /* 2 x 4 */
        {"torus:8x8", SN_COLL_ALLREDUCE, 1, 64, 126},  /* 2 x 63 */
        {"torus:6x6", SN_COLL_MNA, 0, 64, 560},        /* 35 x 64 / 4 */
        {"hypercube:6", SN_COLL_ALLREDUCE, 0, 64, 22}, /* 2 x ceil(63 / 6) */
        /* balanced groups of 1 and 2 packets (36 does not divide 64): 140 with groups of 2, the
         * counting bound ceil(2 x 35 x 64 / 36) = 125 */
        {"torus:6x6", SN_COLL_ALLREDUCE, 1, 64, 126},
        {"hypercube:5", SN_COLL_ALLREDUCE, 0, 40, 22}, /* 26 with groups of 2 */
        /* allreduce-rb where the groups are short, single-port: 78 for allreduce-rsag */
        {"hypercube:6", SN_COLL_ALLREDUCE, 1, 16, 39},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = params(cases[i].c, cases[i].pm, SN_OP_SUM, cases[i].msgs, 1);
        tu_run_t r = tu_sim(t, &p, NULL);
        if (r.rc != 0 || !r.res.verified || r.res.steps != cases[i].steps)
            fail_msg("auto %s on %s (%s, msgs %u): %s, %llu steps (rc %d, verified %d), expected "
                     "%llu",
                     sn_coll_name(p.coll), t->spec, pm_text(&p), p.msgs, r.algo->name,
                     (unsigned long long) r.res.steps, r.rc, r.res.verified,
                     (unsigned long long) cases[i].steps);
        sn_topo_free(t);
    }
}

/* Single-port with any number of receptions per slot is refused: its reversal would send as
 * many; the operand budget is checked before the schedule is built. */
static void test_refusals(void **state)
{
    (void) state;
    static const char *const algos[] = {"sna-reverse", "mna-reverse", "allreduce-rsag",
                                        "allreduce-rb"};
    static const sn_coll_t colls[] = {SN_COLL_SNA, SN_COLL_MNA, SN_COLL_ALLREDUCE,
                                      SN_COLL_ALLREDUCE};
    sn_topo_t *t = tu_topo("ring:6");
    for (size_t i = 0; i < 4; i++) {
        sn_params_t p = tu_params(colls[i], "single", "any", "full");
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(algos[i], t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        assert_non_null(strstr(err.msg, "single"));
    }
    sn_topo_free(t);

    t = tu_topo("torus:16x16");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    p.msgs = 256; /* 256 x 255 receptions of the allgather, each listing 256 operands */
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("allreduce-rsag", t, &p, &a, &plan, NULL, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "operands"));
    tu_assert_rc(sn_model_select("allreduce-rb", t, &p, &a, &plan, NULL, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "operands"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sna),       cmocka_unit_test(test_mna),
        cmocka_unit_test(test_allreduce), cmocka_unit_test(test_allreduce_rb),
        cmocka_unit_test(test_place),     cmocka_unit_test(test_figures),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
