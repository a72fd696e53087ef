/* Unit tests of the combining collectives (sna, pmna: core/coll/deliveries.c, core/sim/verify.c,
 * core/algo/sna/sna_tree.c, pmna/pmna_tree.c) and of the folded-cube algorithms of the Varvarigos
 * folded-cube paper (core/algo/<coll>/<coll>_fcube.c), run in the slot simulator: verified runs
 * (combined values exact under every operator), steps == predicted, steps >= every lower bound,
 * and the paper's worked examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/fcube.h"
#include "core/algo/engine/fcube_pmnb.h"
#include "core/algo/engine/tree.h"
#include "tests/support/testutil.h"

/* ---- helpers ---- */

/* Runs algo on (t, p): verified, every expected delivery, steps == predicted when there is a
 * prediction, steps >= every lower bound. Returns the steps, and the run in *out if not NULL. */
static uint64_t run_ok_r(const sn_topo_t *t, const sn_params_t *p, const char *algo, tu_run_t *out)
{
    tu_run_t r = tu_sim(t, p, algo);
    if (out)
        *out = r;
    if (r.rc != 0 || !r.res.verified)
        fail_msg("%s %s on %s (op %s): rc %d, %s", r.algo->name, sn_coll_name(p->coll), t->spec,
                 sn_op_name(p->op), r.rc, r.err.msg);
    assert_int_equal(r.res.deliveries, r.res.expected_deliveries);
    if (r.predicted >= 0 && (int64_t) r.res.steps != r.predicted)
        fail_msg("%s on %s: %llu steps, predicted %lld", r.algo->name, t->spec,
                 (unsigned long long) r.res.steps, (long long) r.predicted);
    for (size_t i = 0; i < r.bounds.count; i++)
        if ((int64_t) r.res.steps < r.bounds.b[i].value)
            fail_msg("%s on %s: %llu steps below the bound %s = %lld", r.algo->name, t->spec,
                     (unsigned long long) r.res.steps, r.bounds.b[i].name,
                     (long long) r.bounds.b[i].value);
    return r.res.steps;
}

static uint64_t run_ok(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    return run_ok_r(t, p, algo, NULL);
}

static void assert_has(const char *s, const char *needle)
{
    if (strstr(s, needle) == NULL)
        fail_msg("'%s' does not contain '%s'", s, needle);
}

/* ---- combining semantics ---- */

static void test_ops(void **state)
{
    (void) state;
    sn_op_t op;
    sn_err_t err = {0};
    static const char *const names[] = {"sum", "xor", "max", "min", "and", "or"};
    assert_int_equal(sizeof names / sizeof names[0], SN_OP_COUNT);
    for (int i = 0; i < SN_OP_COUNT; i++) {
        tu_assert_rc(sn_op_parse(names[i], &op, &err), 0);
        assert_int_equal(op, i);
        assert_string_equal(sn_op_name(op), names[i]);
    }
    tu_assert_rc(sn_op_parse("mean", &op, &err), SN_EINVAL);
    assert_has(err.msg, "'mean'");
    assert_has(err.msg, "sum, xor, max, min, and, or");
    assert_int_equal(err.param, SN_PARAM_OP);
    assert_true(sn_op_apply(SN_OP_SUM, UINT64_MAX, 2) == 1);
    assert_true(sn_op_apply(SN_OP_XOR, 6, 3) == 5);
    assert_true(sn_op_apply(SN_OP_MAX, 6, UINT64_MAX) == UINT64_MAX);
    assert_true(sn_op_apply(SN_OP_MIN, 6, UINT64_MAX) == 6);
    assert_true(sn_op_apply(SN_OP_MIN, UINT64_MAX, 0) == 0);
    assert_true(sn_op_apply(SN_OP_AND, 6, 3) == 2);
    assert_true(sn_op_apply(SN_OP_OR, 6, 3) == 7);
    assert_true(sn_op_apply(SN_OP_AND, UINT64_MAX, 0xf0) == 0xf0);
    assert_true(sn_op_apply(SN_OP_OR, 0, 0xf0) == 0xf0);
    /* idempotent exactly when a op a = a: the operators flooding accepts */
    for (int i = 0; i < SN_OP_COUNT; i++)
        assert_int_equal(sn_op_is_idempotent((sn_op_t) i),
                         sn_op_apply((sn_op_t) i, 0x5a5a, 0x5a5a) == 0x5a5a);
    sn_coll_t c;
    tu_assert_rc(sn_coll_parse("reduce", &c, &err), 0);
    assert_int_equal(c, SN_COLL_SNA);
    assert_string_equal(sn_coll_name(SN_COLL_SNA), "sna");
    assert_true(sn_coll_is_combining(SN_COLL_SNA) && sn_coll_is_combining(SN_COLL_PMNA));
    assert_false(sn_coll_is_combining(SN_COLL_PMNB) || sn_coll_is_broadcast(SN_COLL_SNA));
}

/* The payload of a combined value is the word-by-word combination of the contributions'
 * payloads, for every operator and sizes with and without a short tail. */
static void test_payload_vectors(void **state)
{
    (void) state;
    static const uint32_t sizes[] = {0, 5, 8, 24, 77, 4096};
    uint8_t a[4096], b[4096], c[4096], x[4096];
    for (int op = 0; op < SN_OP_COUNT; op++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            uint32_t size = sizes[si];
            uint64_t v1 = 0x0123456789abcdefULL * (uint64_t) (op + 1), v2 = 0xfedcba9876543210ULL;
            uint64_t v = sn_op_apply((sn_op_t) op, v1, v2);
            sn_payload_fill_value((sn_op_t) op, v1, a, size);
            sn_payload_fill_value((sn_op_t) op, v2, b, size);
            sn_payload_fill_value((sn_op_t) op, v, c, size);
            for (uint32_t i = 0; i + 8 <= size; i += 8) {
                uint64_t wa, wb, wc;
                memcpy(&wa, a + i, 8);
                memcpy(&wb, b + i, 8);
                memcpy(&wc, c + i, 8);
                assert_true(sn_op_apply((sn_op_t) op, wa, wb) == wc);
                memcpy(x + i, &wc, 8);
            }
            tu_assert_rc(sn_payload_check_value((sn_op_t) op, v, c, size), 0);
            if (size > 0) {
                c[size - 1] ^= 0x10;
                tu_assert_rc(sn_payload_check_value((sn_op_t) op, v, c, size), SN_EVERIFY);
                tu_assert_rc(sn_payload_check_value((sn_op_t) op, v1, a, size), 0);
                tu_assert_rc(sn_payload_check_value((sn_op_t) op, v2, a, size), SN_EVERIFY);
            }
        }
    }
}

/* Expected deliveries: one combined packet per (seq, frag) at each target, from SN_SRC_COMBINED;
 * a wrong value, a packet from a node, a non-target and a repeat are refused. */
static void test_verify_combined(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("foldedcube:3");
    uint32_t targets[] = {2, 5};
    for (int op = 0; op < SN_OP_COUNT; op++) {
        sn_params_t p = tu_params(SN_COLL_PMNA, "multi", "one", "full");
        p.sources = targets;
        p.nsources = 2;
        p.msgs = 2;
        p.op = (sn_op_t) op;
        sn_err_t err = {0};
        tu_assert_rc(sn_params_check(t, &p, &err), 0);
        assert_true(sn_coll_expected_total(t, &p) == 4);
        assert_int_equal(sn_coll_expect(t, &p, 5).nsrc, 1);
        assert_int_equal(sn_coll_expect(t, &p, 4).nsrc, 0);
        sn_verify_t *v = sn_verify_new(t, &p, 0, t->n);
        /* the exact combination, built contribution by contribution */
        uint64_t want = 0;
        for (uint32_t u = 0; u < 8; u++) {
            uint64_t x = sn_contrib_value(&p, u, 5, 1, 0);
            want = u == 0 ? x : sn_op_apply(p.op, want, x);
        }
        assert_true(want == sn_combined_value(t, &p, 5, 1, 0));
        sn_packet_t k = sn_packet_contrib(&p, 3, 5, 1, 0);
        assert_true(k.src == SN_SRC_COMBINED && k.dst == 5);
        k.digest = want ^ 1; /* one bit off */
        tu_assert_rc(sn_verify_delivery(v, 5, 3, &k, &err), SN_EVERIFY);
        assert_has(err.msg, "combined value");
        assert_has(err.msg, sn_op_name(p.op));
        /* a missing contribution (node 7's) */
        uint64_t part = 0;
        for (uint32_t u = 0; u < 7; u++) {
            uint64_t x = sn_contrib_value(&p, u, 5, 1, 0);
            part = u == 0 ? x : sn_op_apply(p.op, part, x);
        }
        if (part != want) { /* max: only when node 7 holds the largest value */
            k.digest = part;
            tu_assert_rc(sn_verify_delivery(v, 5, 3, &k, &err), SN_EVERIFY);
        }
        if (p.op == SN_OP_SUM) { /* a contribution combined twice */
            k.digest = sn_op_apply(p.op, want, sn_contrib_value(&p, 0, 5, 1, 0));
            tu_assert_rc(sn_verify_delivery(v, 5, 3, &k, &err), SN_EVERIFY);
        }
        k.digest = want;
        k.src = 3; /* a personal packet is not a delivery of pmna */
        tu_assert_rc(sn_verify_delivery(v, 5, 3, &k, &err), SN_EVERIFY);
        k.src = SN_SRC_COMBINED;
        tu_assert_rc(sn_verify_delivery(v, 4, 3, &k, &err), SN_EVERIFY); /* not a target */
        tu_assert_rc(sn_verify_delivery(v, 5, 3, &k, &err), 0);
        tu_assert_rc(sn_verify_delivery(v, 5, 4, &k, &err), SN_EVERIFY); /* twice */
        assert_has(err.msg, "twice");
        tu_assert_rc(sn_verify_complete(v, &err), SN_EVERIFY);
        assert_true(sn_verify_digest_sum(v, 5) == want);
        sn_verify_free(v);
    }
    /* sna: the root only; sources are refused */
    sn_params_t p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    p.root = 6;
    assert_int_equal(sn_coll_expect(t, &p, 6).nsrc, 1);
    assert_int_equal(sn_coll_expect(t, &p, 0).nsrc, 0);
    assert_true(sn_coll_expected_total(t, &p) == 1);
    sn_err_t err = {0};
    p.sources = targets;
    p.nsources = 2;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_SOURCES);
    p.sources = NULL;
    p.nsources = 0;
    p.op = SN_OP_COUNT;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_OP);
    p.coll = SN_COLL_PMNA;
    p.op = SN_OP_SUM;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_int_equal(err.param, SN_PARAM_SOURCES);
    sn_topo_free(t);
}

/* sna-tree on every kind of topology, port model, --msgs and operator: height + msgs - 1. */
static void test_sna_tree(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:7",      "linear:2",         "torus:3x4",
                                        "hypercube:4", "foldedcube:5",     "fattree:2:3:exp",
                                        "ering:9:2",   "ering:7:2*ring:5", "complete:2"};
    static const char *const pms[][3] = {{"multi", "one", "full"},
                                         {"single", "any", "full"},
                                         {"multi", "one", "half"},
                                         {"single", "any", "half"}};
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        for (size_t pi = 0; pi < 4; pi++)
            for (int op = 0; op < SN_OP_COUNT; op++)
                for (uint32_t msgs = 1; msgs <= 3; msgs += 2) {
                    sn_params_t p = tu_params(SN_COLL_SNA, pms[pi][0], pms[pi][1], pms[pi][2]);
                    p.op = (sn_op_t) op;
                    p.msgs = msgs;
                    p.root = sn_topo_proc(t, t->nproc / 2);
                    uint64_t steps = run_ok(t, &p, "sna-tree");
                    if (t->nproc > 1 && t->nproc == t->n && msgs == 1)
                        assert_int_equal(steps, sn_topo_ecc(t, p.root, 1));
                }
        sn_topo_free(t);
    }
}

/* pmna-tree: extreme and random target sets, every operator, both port models it supports. */
static void test_pmna_tree(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:6", "torus:3x3", "hypercube:3", "foldedcube:4",
                                        "fattree:2:2:2,3"};
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        uint32_t np = t->nproc;
        uint32_t *tg = malloc(np * sizeof *tg);
        uint32_t sizes[] = {1, 2, np / 2, np - 1, np};
        for (size_t mi = 0; mi < 5; mi++) {
            uint32_t m = sizes[mi];
            /* the last m processors, then every other one from a seed-dependent start */
            for (uint32_t i = 0; i < m; i++)
                tg[i] = sn_topo_proc(t, np - m + i);
            for (int single = 0; single < 2; single++)
                for (int op = 0; op < SN_OP_COUNT; op++) {
                    sn_params_t p = tu_params(SN_COLL_PMNA, single ? "single" : "multi",
                                              single ? "any" : "one", "full");
                    p.sources = tg;
                    p.nsources = m;
                    p.op = (sn_op_t) op;
                    p.msgs = 1 + (uint32_t) single;
                    run_ok(t, &p, "pmna-tree");
                }
        }
        free(tg);
        sn_topo_free(t);
    }
}

/* ---- the folded cube: labels, dimension maps, the tree ---- */

/* The d = 3 table of V_c(s) (Lemma 1, conventions of the paper with the top entry s_{d-1}). */
static void test_fcube_labels_d3(void **state)
{
    (void) state;
    static const uint32_t want[8][4] = {{0, 0, 0, 0}, {7, 1, 2, 4}, {4, 7, 1, 2}, {3, 6, 3, 6},
                                        {2, 4, 7, 1}, {5, 5, 5, 5}, {6, 3, 6, 3}, {1, 2, 4, 7}};
    for (uint32_t s = 0; s < 8; s++)
        for (uint32_t c = 0; c < 4; c++)
            assert_int_equal(sn__fcube_label(3, c, s), want[s][c]);
    /* dimension maps: d = 3 and d = 4, indexed by the hypercube dimension k */
    static const uint32_t f3[4][3] = {{3, 2, 1}, {0, 3, 2}, {1, 0, 3}, {2, 1, 0}};
    static const uint32_t f4[5][4] = {
        {4, 3, 2, 1}, {0, 4, 3, 2}, {1, 0, 4, 3}, {2, 1, 0, 4}, {3, 2, 1, 0}};
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t k = 0; k < 3; k++)
            assert_int_equal(sn__fcube_fdim(3, c, k), f3[c][k]);
    for (uint32_t c = 0; c < 5; c++)
        for (uint32_t k = 0; k < 4; k++)
            assert_int_equal(sn__fcube_fdim(4, c, k), f4[c][k]);
}

/* Lemma 1 for d = 2..10: V_c is a bijection and crossing F-dimension fdim(c, k) flips bit k of
 * the label; for each k the d+1 copies use distinct F-dimensions. */
static void test_fcube_lemma1(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 10; d++) {
        uint32_t n = 1u << d, all = n - 1;
        uint8_t *seen = malloc(n);
        for (uint32_t c = 0; c <= d; c++) {
            memset(seen, 0, n);
            for (uint32_t s = 0; s < n; s++) {
                uint32_t q = sn__fcube_label(d, c, s);
                assert_true(q < n && !seen[q]);
                seen[q] = 1;
                for (uint32_t k = 0; k < d; k++) {
                    uint32_t f = sn__fcube_fdim(d, c, k);
                    assert_int_not_equal(f, c);
                    uint32_t nb = s ^ (f == d ? all : 1u << f);
                    assert_int_equal(sn__fcube_label(d, c, nb), q ^ (1u << k));
                }
            }
        }
        for (uint32_t k = 0; k < d; k++) {
            memset(seen, 0, n);
            for (uint32_t c = 0; c <= d; c++) {
                uint32_t f = sn__fcube_fdim(d, c, k);
                assert_false(seen[f]);
                seen[f] = 1;
            }
        }
        free(seen);
    }
}

/* The tree of d = 4 rooted at 0000, (node, parent, dimension) as listed in the worked example, and
 * depth = distance for d = 2..10. */
static void test_fcube_tree(void **state)
{
    (void) state;
    static const uint32_t want[][3] = {{1, 0, 0},   {2, 0, 1},   {3, 1, 1},   {4, 0, 2},
                                       {5, 1, 2},   {6, 2, 2},   {7, 15, 3},  {8, 0, 3},
                                       {9, 1, 3},   {10, 2, 3},  {11, 15, 2}, {12, 4, 3},
                                       {13, 15, 1}, {14, 15, 0}, {15, 0, 4}};
    sn_topo_t *t = tu_topo("foldedcube:4");
    sn_tree_t *tr = sn__tree_fcube(t, 0);
    assert_non_null(tr);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(tr->parent[want[i][0]], want[i][1]);
        assert_int_equal(tr->up_port[want[i][0]], want[i][2]);
    }
    sn__tree_free(tr);
    sn_topo_free(t);
    for (uint32_t d = 2; d <= 10; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        t = tu_topo(spec);
        uint32_t root = (1u << d) / 3, *dist = malloc(t->n * sizeof *dist);
        tr = sn__tree_fcube(t, root);
        sn_topo_bfs(t, root, dist);
        for (uint32_t u = 0; u < t->n; u++)
            assert_int_equal(tr->depth[u], dist[u]);
        assert_int_equal(tr->height, (d + 1) / 2);
        free(dist);
        sn__tree_free(tr);
        sn_topo_free(t);
    }
    t = tu_topo("hypercube:3");
    assert_null(sn__tree_fcube(t, 0));
    sn_topo_free(t);
}

/* SNB and SNA in ceil(d/2) + msgs - 1 slots for d = 2..10, picked by auto, every operator (but
 * SNB with two packets on an odd d, where auto picks bcast-gossip's ceil(d/2), the bound). */
static void test_fcube_snb_sna(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 10; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        for (uint32_t msgs = 1; msgs <= 2; msgs++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
            p.msgs = msgs;
            p.root = (1u << d) - 1 - d;
            tu_run_t r = tu_sim(t, &p, NULL);
            /* two packets on an odd d: bcast-gossip meets the eccentricity bound, a slot less */
            int gossip = msgs == 2 && d % 2 == 1 && d >= 3;
            assert_string_equal(r.algo->name, gossip ? "bcast-gossip" : "bcast-fcube");
            assert_int_equal(run_ok(t, &p, NULL), (d + 1) / 2 + msgs - 1 - gossip);
            if (gossip)
                assert_int_equal(r.bounds.best, (d + 1) / 2);
            for (int op = 0; op < SN_OP_COUNT; op++) {
                sn_params_t q = tu_params(SN_COLL_SNA, "multi", "one", op == 2 ? "half" : "full");
                q.msgs = msgs;
                q.op = (sn_op_t) op;
                q.root = p.root;
                r = tu_sim(t, &q, NULL);
                /* sna-reverse plays the broadcast auto picks backwards: it wins where that
                 * broadcast (bcast-gossip) is shorter than the tree */
                sn_params_t b = q;
                b.coll = SN_COLL_BCAST;
                b.op = sn_op_default(SN_COLL_BCAST);
                uint64_t fcube = (d + 1) / 2 + msgs - 1, bc = tu_sim(t, &b, NULL).res.steps;
                assert_string_equal(r.algo->name, bc < fcube ? "sna-reverse" : "sna-fcube");
                assert_int_equal(run_ok(t, &q, NULL), bc < fcube ? bc : fcube);
            }
        }
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    const sn_algo_t *a;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("sna-fcube", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    assert_has(err.msg, "foldedcube:D");
    sn_topo_free(t);
}

/* ---- multinode broadcast, gather, scatter ---- */

static sn_topo_t *fq(uint32_t d)
{
    char spec[32];
    snprintf(spec, sizeof spec, "foldedcube:%u", d);
    return tu_topo(spec);
}

/* d + sum_j ceil(Mbar / 2^(j+1)), Mbar = ceil(N/(d+1)): one packet round of the d+1 copies. */
static uint64_t mnb_slots(uint32_t d)
{
    uint64_t mbar = ((1ull << d) + d) / (d + 1), T = d;
    for (uint32_t j = 0; j < d; j++)
        T += (mbar + (1ull << (j + 1)) - 1) >> (j + 1);
    return T;
}

/* Records the busiest node-slot and any port used twice in a slot. */
typedef struct {
    uint64_t slot;
    uint32_t node;
    uint64_t ports; /* bitmask of the ports used by node in slot */
    uint32_t most;  /* the most sends of a node in one slot */
    int twice;
} ports_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    (void) pkt;
    ports_t *c = ctx;
    if (slot != c->slot || node != c->node) {
        c->slot = slot;
        c->node = node;
        c->ports = 0;
    }
    if ((c->ports >> port) & 1)
        c->twice = 1;
    c->ports |= 1ull << port;
    uint32_t k = (uint32_t) __builtin_popcountll(c->ports);
    if (k > c->most)
        c->most = k;
}

/* The most ports one node uses in one slot (the simulator calls on_send node by node). */
static uint32_t busiest(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    const sn_algo_t *a;
    void *plan;
    int64_t pr;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select(algo, t, p, &a, &plan, &pr, &err), 0);
    ports_t c = {UINT64_MAX, 0, 0, 0, 0};
    sn_sim_opts_t o = {0};
    o.max_slots = 1u << 20;
    o.on_send = on_send;
    o.send_ctx = &c;
    sn_sim_result_t res;
    tu_assert_rc(sn_sim_run(t, p, a, plan, &o, &res, &err), 0);
    assert_true(res.verified);
    assert_false(c.twice);
    a->plan_free(plan);
    return c.most;
}

static void test_fcube_mnb(void **state)
{
    (void) state;
    /* the folded-cube MNB column (M = N) of the paper's computed values, as simulated */
    static const uint64_t want[] = {0, 0, 4, 6, 9, 13, 19, 25, 41, 65, 108};
    for (uint32_t d = 2; d <= 10; d++) {
        sn_topo_t *t = fq(d);
        uint64_t N = 1ull << d;
        assert_int_equal(mnb_slots(d), want[d]);
        assert_true(mnb_slots(d) <= (N + d) / (d + 1) + 2 * d - 1); /* Fig. 1 */
        for (uint32_t msgs = 1; msgs <= (d <= 5 ? 2u : 1u); msgs++) {
            sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
            p.msgs = msgs;
            /* auto takes the fewest of mnb-fcube, the translated tree of mnb-cayley and the
             * timetable of mnb-gossip, the earlier registered on a tie */
            tu_run_t r = tu_sim(t, &p, NULL), c = tu_sim(t, &p, "mnb-cayley"),
                     g = tu_sim(t, &p, "mnb-gossip");
            assert_true(r.res.verified && c.res.verified && g.res.verified);
            uint64_t fc = msgs * want[d], best = c.res.steps < fc ? c.res.steps : fc;
            const char *name = c.res.steps < fc ? "mnb-cayley" : "mnb-fcube";
            if (g.res.steps < best)
                best = g.res.steps, name = "mnb-gossip";
            assert_string_equal(r.algo->name, name);
            assert_int_equal(r.res.steps, best);
            assert_int_equal(run_ok(t, &p, "mnb-fcube"), msgs * want[d]);
        }
        if (d <= 6) { /* all-port: the copies use every link of a node in one slot */
            sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
            assert_int_equal(busiest(t, &p, "mnb-fcube"), d + 1);
        }
        sn_topo_free(t);
    }
}

/* Gather (first paths to the root in the MNB schedule) and scatter (reversed): at most the MNB's
 * slots (the paper's claim), exactly the kept schedule's, for several roots. */
static void test_fcube_gather_scatter(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 9; d++) {
        sn_topo_t *t = fq(d);
        uint32_t roots[] = {0, 1, (1u << d) - 1, (1u << d) / 3};
        for (size_t ri = 0; ri < 4; ri++)
            for (int sc = 0; sc < 2; sc++) {
                sn_params_t p =
                    tu_params(sc ? SN_COLL_SCATTER : SN_COLL_GATHER, "multi", "one", "full");
                p.root = roots[ri];
                p.msgs = d <= 4 ? 2 : 1;
                uint64_t steps = run_ok(t, &p, sc ? "scatter-fcube" : "gather-fcube");
                assert_true(steps <= p.msgs * mnb_slots(d));
                assert_true(steps + 1 >= p.msgs * mnb_slots(d));
            }
        sn_topo_free(t);
    }
    /* refused off the folded cube and under single-port */
    sn_topo_t *t = tu_topo("hypercube:4");
    sn_params_t p = tu_params(SN_COLL_GATHER, "multi", "one", "full");
    const sn_algo_t *a;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("gather-fcube", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    assert_has(err.msg, "gather-fcube");
    sn_topo_free(t);
    t = fq(3);
    p = tu_params(SN_COLL_MNB, "single", "one", "full");
    tu_assert_rc(sn_model_select("mnb-fcube", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    assert_has(err.msg, "single-port");
    sn_topo_free(t);
}

/* Where the packing phase of a round leaves each active node's packet: the copy-c label it
 * reaches (the label of its origin if it does not move), for classes c of act (NULL: all). */
static void packed_labels(uint32_t d, const uint32_t *act, uint32_t m, uint32_t *cls, uint32_t *pos,
                          uint64_t *T1)
{
    sn_topo_t *t = fq(d);
    sn_fcraw_t *ev;
    size_t nev;
    sn_err_t err = {0};
    tu_assert_rc(sn__fcube_pmnb_round(t, d, d + 1, act, m, &ev, &nev, T1, &err), 0);
    uint32_t n = t->n;
    for (uint32_t s = 0; s < n; s++) {
        cls[s] = UINT32_MAX;
        pos[s] = UINT32_MAX;
    }
    for (uint32_t r = 0; r < (act ? m : n); r++) {
        uint32_t s = act ? act[r] : r, c = r % (d + 1), at = s;
        for (size_t e = 0; e < nev; e++) /* packing moves come first, in slots 1..d */
            if (ev[e].origin == s && ev[e].slot <= d && ev[e].node == at)
                at = ev[e].to;
        cls[s] = c;
        pos[s] = sn__fcube_label(d, c, at);
    }
    free(ev);
    sn_topo_free(t);
}

/* The worked examples of the classes and positions: the MNB of d = 3 (class s mod 4, position
 * among the class's labels) and the PMNB round of d = 3 with active nodes {1, 2, 4, 5, 6} (ranks
 * 0..4 give classes 0, 1, 2, 3, 0; labels V_c(s) 7, 7, 7, 5, 6; ceil(5/4) = 2; 6 slots). */
static void test_fcube_classes(void **state)
{
    (void) state;
    uint32_t cls[8], pos[8];
    uint64_t T1;
    static const uint32_t mnb[8][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0},
                                       {0, 1}, {1, 1}, {2, 1}, {3, 1}};
    packed_labels(3, NULL, 0, cls, pos, &T1);
    for (uint32_t s = 0; s < 8; s++) {
        assert_int_equal(cls[s], mnb[s][0]);
        assert_int_equal(pos[s], mnb[s][1]);
    }
    assert_int_equal(T1, 6);
    uint32_t act[] = {1, 2, 4, 5, 6};
    static const uint32_t want_cls[] = {0, 1, 2, 3, 0}, want_lab[] = {7, 7, 7, 5, 6};
    packed_labels(3, act, 5, cls, pos, &T1);
    for (uint32_t r = 0; r < 5; r++) {
        assert_int_equal(cls[act[r]], want_cls[r]);
        assert_int_equal(sn__fcube_label(3, want_cls[r], act[r]), want_lab[r]);
    }
    /* class 0 holds 1 (label 7) and 6 (label 6): 6 packs to position 0, 1 to position 1 */
    assert_int_equal(pos[6], 0);
    assert_int_equal(pos[1], 1);
    assert_int_equal(pos[2], 0);
    assert_int_equal(pos[4], 0);
    assert_int_equal(pos[5], 0);
    assert_int_equal(T1, 6);
}

/* ---- partial multinode accumulation ------------------------------------------------------ */

/* d + sum_k ceil(ceil(M/(d+1))/2^k): one round of the PMNB, whose reversal pmna-fcube is. */
static uint64_t pmnb_slots(uint32_t d, uint64_t M)
{
    uint64_t mbar = (M + d) / (d + 1), T = d;
    for (uint32_t j = 1; j <= d; j++)
        T += (mbar + (1ull << j) - 1) >> j;
    return T;
}

/* M targets of FQ_d: kind 0 the lowest ids, 1 the highest, 2 every (N/M)-th, 3 drawn from seed. */
static void targets(uint32_t d, uint32_t M, int kind, uint64_t seed, uint32_t *out)
{
    uint32_t N = 1u << d;
    if (kind == 3) {
        uint8_t *in = calloc(N, 1);
        uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
        for (uint32_t got = 0; got < M;) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t v = (uint32_t) (x % N);
            if (!in[v])
                in[v] = 1, got++;
        }
        for (uint32_t v = 0, i = 0; v < N; v++)
            if (in[v])
                out[i++] = v;
        free(in);
        return;
    }
    for (uint32_t i = 0; i < M; i++)
        out[i] = kind == 0 ? i : kind == 1 ? N - M + i : i * (N / M);
}

/* pmna-fcube for d = 2..10 and M in {1, 2, d+1, N/4, N/2, N-1, N}, extreme, strided and random
 * target sets, every operator: verified (combined values exact), steps == predicted, within the
 * PMNB round (only trailing unpacking slots can be idle) and eq. (4)'s packet slots. */
static void test_fcube_pmna(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 10; d++) {
        sn_topo_t *t = fq(d);
        uint32_t N = 1u << d, *tg = malloc(N * sizeof *tg);
        uint32_t Ms[] = {1, 2, d + 1, N / 4, N / 2, N - 1, N};
        for (size_t mi = 0; mi < 7; mi++) {
            uint32_t M = Ms[mi];
            for (int kind = 0; kind < 4; kind++) {
                if (d >= 9 && kind != 3 && M > 2)
                    continue; /* keep the large cubes quick */
                targets(d, M, kind, d * 100 + M, tg);
                sn_params_t p = tu_params(SN_COLL_PMNA, "multi", "one", "full");
                p.sources = tg;
                p.nsources = M;
                p.op = (sn_op_t) ((mi + (size_t) kind) % SN_OP_COUNT);
                p.msgs = d <= 4 && kind == 3 ? 2 : 1;
                tu_run_t r;
                uint64_t steps = run_ok_r(t, &p, NULL, &r), T = p.msgs * pmnb_slots(d, M);
                assert_string_equal(r.algo->name, "pmna-fcube");
                assert_true(steps <= T && steps + d >= T);
                assert_true(steps <= p.msgs * ((M + d) / (d + 1) + 2 * d - 1)); /* eq. (4) */
                assert_int_equal(r.res.control_packets, 0); /* targets known: no prefix */
            }
        }
        free(tg);
        sn_topo_free(t);
    }
}

/* The worked example: d = 3, targets {1, 2, 4, 5, 6}: M = 5, ceil(M/4) = 2, 6 packet slots. */
static void test_fcube_pmna_example(void **state)
{
    (void) state;
    sn_topo_t *t = fq(3);
    uint32_t tg[] = {1, 2, 4, 5, 6};
    sn_params_t p = tu_params(SN_COLL_PMNA, "multi", "one", "full");
    p.sources = tg;
    p.nsources = 5;
    assert_int_equal(pmnb_slots(3, 5), 6);
    assert_int_equal(run_ok(t, &p, "pmna-fcube"), 6);
    assert_true(busiest(t, &p, "pmna-fcube") <= 4);
    sn_topo_free(t);
}

/* ---- the hypercube algorithm A_0 alone (single-port) ---- */

/* mnb-a0: N - 1 on Q_d and FQ_d single-port, the reception bound; pmna-a0: within
 * d + sum_k ceil(M/2^k) <= M + 2d - 1 (eq. (3) without the prefix), N - 1 when every node is a
 * target; both picked by auto under single-port; refused elsewhere. */
static void test_a0(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 9; d++) {
        for (int folded = 0; folded < 2; folded++) {
            char spec[32];
            snprintf(spec, sizeof spec, "%s:%u", folded ? "foldedcube" : "hypercube", d);
            sn_topo_t *t = tu_topo(spec);
            uint32_t N = 1u << d, *tg = malloc(N * sizeof *tg);
            sn_params_t p = tu_params(SN_COLL_MNB, "single", folded ? "any" : "one", "full");
            tu_run_t r;
            assert_int_equal(run_ok_r(t, &p, NULL, &r), N - 1);
            assert_string_equal(r.algo->name, "mnb-a0");
            uint32_t Ms[] = {1, 2, d + 1, N / 4, N / 2, N - 1, N};
            for (size_t mi = 0; mi < 7; mi++) {
                uint32_t M = Ms[mi];
                targets(d, M, (int) (mi % 4), d + M, tg);
                sn_params_t q = tu_params(SN_COLL_PMNA, "single", "one", "full");
                q.sources = tg;
                q.nsources = M;
                q.op = (sn_op_t) (mi % SN_OP_COUNT);
                q.msgs = d <= 3 ? 2 : 1;
                uint64_t steps = run_ok_r(t, &q, NULL, &r);
                assert_string_equal(r.algo->name, "pmna-a0");
                uint64_t T = d;
                for (uint32_t k = 1; k <= d; k++)
                    T += (M + (1u << k) - 1) >> k;
                assert_true(steps <= q.msgs * T && T <= M + 2 * d - 1);
                if (M == N) /* rounds of T slots, the last one without its idle unpacking */
                    assert_int_equal(steps, (q.msgs - 1) * T + N - 1);
            }
            free(tg);
            sn_topo_free(t);
        }
    }
    sn_topo_t *t = tu_topo("torus:4x4");
    sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "full");
    const sn_algo_t *a;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("mnb-a0", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    assert_has(err.msg, "hypercube:D");
    sn_topo_free(t);
}

/* ---- total exchange ---- */

static void test_fcube_te(void **state)
{
    (void) state;
    /* ceil(eq. (7)): 2^(d-1) - C(d, ceil(d/2))/2 is 2.5 for d = 3 and 46.5 for d = 7 */
    static const uint64_t eq7[] = {0, 0, 1, 3, 5, 11, 22, 47, 93, 193, 386};
    /* the greedy variant (rows in order of u), as simulated */
    static const uint64_t greedy[] = {0, 0, 1, 3, 5, 12, 24, 48, 95, 195, 389};
    for (uint32_t d = 2; d <= 10; d++) {
        sn_topo_t *t = fq(d);
        for (uint32_t msgs = 1; msgs <= (d <= 5 ? 3u : d <= 7 ? 2u : 1u); msgs++) {
            sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
            p.msgs = msgs;
            /* msgs * eq. (7) rounded up once: te-fcube schedules the packets two at a time where
             * eq. (7) is not an integer (d = 3: 5 slots for two packets, 8 for three; d = 7: 93
             * for two, where two rounds of 47 took 94) */
            uint64_t twice = msgs * (2 * eq7[d] - (d == 3 || d == 7)), want = (twice + 1) / 2;
            tu_run_t r = tu_sim(t, &p, NULL);
            assert_string_equal(r.algo->name, "te-fcube");
            assert_int_equal(r.res.steps, want);
            assert_int_equal(run_ok(t, &p, "te-fcube"), want);
            int found = 0;
            for (size_t i = 0; i < r.bounds.count; i++)
                if (strcmp(r.bounds.b[i].name, "eq7") == 0) {
                    found = 1;
                    assert_int_equal(r.bounds.b[i].value, want);
                    if (msgs == 1)
                        assert_has(r.bounds.b[i].detail, (d == 3 || d == 7) ? ".5" : "=");
                }
            assert_true(found);
            uint64_t g = run_ok(t, &p, "te-fcube-greedy");
            assert_int_equal(g, msgs * greedy[d]);
            if (msgs == 1) {
                assert_true(g <= eq7[d] + d - 1);           /* the paper's greedy bound */
                assert_true(g <= eq7[d] + (d + 1) / 2 - 1); /* the tighter one */
            }
        }
        if (d <= 6) {
            sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
            assert_int_equal(busiest(t, &p, "te-fcube"), d + 1);
        }
        sn_topo_free(t);
    }
}

/* Fragments count as packets: foldedcube:7 with two fragments per packet takes 93 slots (46.5 time
 * units), three messages of two fragments 279, d = 3 with five fragments 13 (ceil(5 x 2.5)). */
static void test_fcube_te_frags(void **state)
{
    (void) state;
    static const struct {
        uint32_t d, msgs, frags;
        uint64_t want;
    } cases[] = {{7, 1, 2, 93}, {7, 3, 2, 279}, {3, 1, 5, 13}, {3, 2, 3, 15}, {5, 2, 2, 44}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sn_topo_t *t = fq(cases[i].d);
        sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
        p.msgs = cases[i].msgs;
        p.frags = cases[i].frags;
        assert_int_equal(run_ok(t, &p, "te-fcube"), cases[i].want);
        sn_topo_free(t);
    }
}

/* The d = 2 worked example: K4, one slot, every node uses its three links. */
static void test_fcube_te_d2(void **state)
{
    (void) state;
    sn_topo_t *t = fq(2);
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    assert_int_equal(run_ok(t, &p, "te-fcube"), 1);
    assert_int_equal(busiest(t, &p, "te-fcube"), 3);
    sn_topo_free(t);
}

/* ---- partial multinode broadcast from unknown sources (pmnb-fcube) ------------------------ */

/* pmnb-fcube for d = 2..10 and M in {1, 2, d+1, N/4, N/2, N-1, N}, sources in one subcube (the
 * lowest or highest ids), strided, or random: verified, steps == predicted, exactly 4d control
 * slots (two prefixes of 2d), the packet slots of the PMNB round, within eq. (4) in time units
 * for t_p = 0, 0.1 and 1, above every lower bound; port compliance (no port twice in a slot, at
 * most d+1 sends per node) on the smaller cubes. */
static void test_fcube_pmnb(void **state)
{
    (void) state;
    for (uint32_t d = 2; d <= 10; d++) {
        sn_topo_t *t = fq(d);
        uint32_t N = 1u << d, *src = malloc(N * sizeof *src);
        uint32_t Ms[] = {1, 2, d + 1, N / 4, N / 2, N - 1, N};
        for (size_t mi = 0; mi < 7; mi++) {
            uint32_t M = Ms[mi];
            for (int kind = 0; kind < 4; kind++) {
                if (d >= 9 && kind == 1 && M > 2)
                    continue; /* keep the large cubes quick */
                targets(d, M, kind, d * 1000 + M, src);
                sn_params_t p = tu_params(SN_COLL_PMNB, "multi", "one", "full");
                p.sources = src;
                p.nsources = M;
                tu_run_t r;
                uint64_t steps = run_ok_r(t, &p, "pmnb-fcube", &r);
                uint64_t ctl = r.res.control_slots, data = steps - ctl;
                assert_int_equal(r.predicted, (int64_t) steps);
                assert_int_equal(ctl, 4 * d);
                assert_int_equal(data, pmnb_slots(d, M));
                assert_true(r.res.control_packets > 0);
                double tps[] = {0.0, 0.1, 1.0};
                for (int i = 0; i < 3; i++)
                    assert_true((double) data + (double) ctl * tps[i] <=
                                sn_model_fcube_eq4(d, M, tps[i]) + 1e-9);
                if (d <= 5 && kind != 1)
                    assert_true(busiest(t, &p, "pmnb-fcube") <= d + 1);
            }
        }
        free(src);
        sn_topo_free(t);
    }
}

/* The worked example: d = 3, sources {1, 2, 4, 5, 6}: M = 5, classes 0,1,2,3,0 by rank, 12
 * control slots and 6 packet slots (3 packing, broadcast phases of 1, 1, 1), eq. (4): 7 + 12 t_p.
 */
static void test_fcube_pmnb_example(void **state)
{
    (void) state;
    sn_topo_t *t = fq(3);
    uint32_t src[] = {1, 2, 4, 5, 6};
    sn_params_t p = tu_params(SN_COLL_PMNB, "multi", "one", "full");
    p.sources = src;
    p.nsources = 5;
    tu_run_t r;
    assert_int_equal(run_ok_r(t, &p, "pmnb-fcube", &r), 18);
    assert_int_equal(r.res.control_slots, 12);
    assert_true(sn_model_fcube_eq4(3, 5, 0.0) == 7.0);
    assert_true(sn_model_fcube_eq4(3, 5, 0.5) == 13.0);
    assert_true(busiest(t, &p, "pmnb-fcube") <= 4);
    /* manual: auto keeps the generic router, which predicts nothing */
    r = tu_sim(t, &p, NULL);
    assert_int_equal(r.rc, 0);
    assert_string_not_equal(r.algo->name, "pmnb-fcube");
    /* refused: several messages, fragments, a hypercube, no sources */
    const sn_algo_t *a = sn_model_find("pmnb-fcube");
    assert_non_null(a);
    sn_err_t err = {0};
    p.msgs = 2;
    assert_int_equal(a->applies(t, &p, &err), SN_ENOTSUP);
    p.msgs = 1, p.frags = 2;
    assert_int_equal(a->applies(t, &p, &err), SN_ENOTSUP);
    assert_has(err.msg, "no splitting");
    p.frags = 1;
    sn_topo_t *q = tu_topo("hypercube:3");
    assert_int_equal(a->applies(q, &p, &err), SN_ENOTSUP);
    sn_topo_free(q);
    p.sources = NULL;
    assert_int_equal(a->applies(t, &p, &err), SN_EINVAL);
    sn_topo_free(t);
}

/* ---- dynamic broadcasting on FQ_d: eqs. (5) and (6) ---- */

static void near(double got, double want, double tol, const char *what)
{
    if (!(got >= want - tol && got <= want + tol))
        fail_msg("%s: %g, expected %g +- %g", what, got, want, tol);
}

/* The stability limit (5) for d = 2..16 at t_p = 0 and 0.1 (the values computed from the
 * formula, to three decimals), and the bound (6) at rho = rho_max/2 and at rho = 0.2. */
static void test_fcube_dyn_constants(void **state)
{
    (void) state;
    static const uint32_t ds[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16};
    static const double tp0[] = {.250, .250, .286, .348, .432, .533, .640, .823, .929, .992};
    static const double tp1[] = {.217, .217, .250, .308, .388, .488, .597, .795, .916, .990};
    char spec[32];
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        snprintf(spec, sizeof spec, "foldedcube:%u", ds[i]);
        sn_topo_t *t = tu_topo(spec);
        sn_dyn_result_t r;
        sn_dyn_constants(t, 0.001, 0, &r);
        assert_int_equal(r.fcube, 1);
        assert_string_equal(r.algorithm, "pmnb-fcube");
        assert_string_equal(r.eq_stability, "(5)");
        near(r.rho_star, tp0[i], 0.0006, spec);
        near(r.X, 1.0 / (ds[i] + 1), 1e-12, "X = 1/(d+1)");
        near(r.V, 2.0 * ds[i], 1e-12, "A = 2d");
        near(r.rho, 0.001 * t->n / (ds[i] + 1), 1e-12, "rho = lambda N/(d+1)");
        sn_dyn_constants(t, 0.001, 0.1, &r);
        near(r.rho_star, tp1[i], 0.0006, spec);
        near(r.V, 2.0 * ds[i] + 0.4 * ds[i], 1e-12, "A = 2d + 4d t_p");
        sn_topo_free(t);
    }
    static const struct {
        uint32_t d;
        double rho, bound; /* rho 0: half of rho_max */
    } b[] = {{4, 0, 26.36},   {8, 0, 56.76},   {16, 0, 119.97},
             {4, 0.2, 45.08}, {8, 0.2, 39.23}, {16, 0.2, 67.41}};
    for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
        snprintf(spec, sizeof spec, "foldedcube:%u", b[i].d);
        sn_topo_t *t = tu_topo(spec);
        sn_dyn_result_t c, r;
        sn_dyn_constants(t, 1.0, 0, &c);
        double rho = b[i].rho > 0 ? b[i].rho : c.rho_star / 2;
        sn_dyn_constants(t, rho / (t->n * c.X), 0, &r);
        near(r.delay_bound, b[i].bound, 0.006, spec);
        sn_topo_free(t);
    }
    /* at and above the limit (5): no bound */
    sn_topo_t *t = tu_topo("foldedcube:4");
    sn_dyn_result_t c, r;
    sn_dyn_constants(t, 1.0, 0, &c);
    sn_dyn_constants(t, c.rho_star * 1.01 / (t->n * c.X), 0, &r);
    assert_true(r.delay_bound < 0);
    sn_topo_free(t);
}

static sn_dyn_result_t fq_dyn(const char *spec, double rho, double tp, double horizon,
                              uint64_t seed)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p;
    sn_params_default(&p, SN_COLL_PMNB);
    p.seed = seed;
    sn_dyn_result_t c, r;
    sn_dyn_constants(t, 1.0, tp, &c);
    sn_dyn_opts_t o = {rho / (t->n * c.X), horizon, tp, NULL, NULL, NULL};
    sn_err_t err = {0};
    tu_assert_rc(sn_dyn_run(t, &p, &o, &r, &err), 0);
    sn_topo_free(t);
    return r;
}

/* Rounds of verified pmnb-fcube runs: the mean delay stays below eq. (6) below the limit (5);
 * every request is broadcast exactly once (N - 1 deliveries each); a non-empty round takes 4d
 * control slots (class computation and class ranks), an empty one 2d. */
static void test_fcube_dyn_runs(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        double rho, tp, horizon;
    } rows[] = {{"foldedcube:3", 0.2, 0, 1500},
                {"foldedcube:4", 0.143, 0, 1500},
                {"foldedcube:4", 0.257, 0, 1500},
                {"foldedcube:5", 0.3, 0.1, 800},
                {"foldedcube:4", 0.02, 0.1, 3000}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        sn_dyn_result_t r = fq_dyn(rows[i].spec, rows[i].rho, rows[i].tp, rows[i].horizon, 1 + i);
        sn_topo_t *t = tu_topo(rows[i].spec);
        uint32_t d = t->a;
        if (!(r.delay_bound > 0 && r.delay_mean < r.delay_bound))
            fail_msg("%s rho %g: mean delay %g, bound (6) %g", rows[i].spec, rows[i].rho,
                     r.delay_mean, r.delay_bound);
        assert_true(r.requests > 0 && r.broadcasts == r.requests);
        assert_int_equal(r.deliveries, r.broadcasts * (t->n - 1));
        assert_int_equal(r.control_slots, 4ull * d * r.rounds + 2ull * d * r.empty_rounds);
        if (rows[i].tp > 0 && rows[i].rho < 0.05)
            assert_true(r.empty_rounds > 0); /* light load: reservations that find nobody */
        sn_topo_free(t);
    }
    /* the seed decides everything */
    sn_dyn_result_t a = fq_dyn("foldedcube:4", 0.2, 0.1, 500, 9),
                    b = fq_dyn("foldedcube:4", 0.2, 0.1, 500, 9);
    assert_true(a.delay_mean == b.delay_mean && a.rounds == b.rounds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_payload_vectors),
        cmocka_unit_test(test_verify_combined),
        cmocka_unit_test(test_sna_tree),
        cmocka_unit_test(test_pmna_tree),
        cmocka_unit_test(test_fcube_labels_d3),
        cmocka_unit_test(test_fcube_lemma1),
        cmocka_unit_test(test_fcube_tree),
        cmocka_unit_test(test_fcube_snb_sna),
        cmocka_unit_test(test_fcube_classes),
        cmocka_unit_test(test_fcube_mnb),
        cmocka_unit_test(test_fcube_gather_scatter),
        cmocka_unit_test(test_fcube_pmna),
        cmocka_unit_test(test_fcube_pmna_example),
        cmocka_unit_test(test_a0),
        cmocka_unit_test(test_fcube_te),
        cmocka_unit_test(test_fcube_te_frags),
        cmocka_unit_test(test_fcube_te_d2),
        cmocka_unit_test(test_fcube_pmnb),
        cmocka_unit_test(test_fcube_pmnb_example),
        cmocka_unit_test(test_fcube_dyn_constants),
        cmocka_unit_test(test_fcube_dyn_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
