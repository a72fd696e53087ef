/* Unit tests of the thesis's optimal broadcast and scattering trees (core/algo/engine/tree_*.c and
 * the algorithms over them: bcast-ering, bcast-product, bcast-binomial, scatter/gather-ering,
 * scatter/gather-torus), run in the slot simulator. Every run verifies, takes exactly its predicted
 * steps and no fewer than the lower bound; the predictions are checked against the thesis's
 * formulas over ranges of sizes, and the worked examples (Figs. 3.1, 3.2, 3.3, the 7x7 torus
 * regions of Fig. 3.7 and an explicit 4x4 tree) are checked node by node through the simulator's
 * send hook. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/tree.h"
#include "core/algo/engine/tree_binomial.h"
#include "core/algo/engine/tree_ering.h"
#include "core/algo/engine/tree_product.h"
#include "core/algo/engine/tree_torus.h"
#include "tests/support/testutil.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Per-node arrivals recorded by the simulator's send hook. */
typedef struct {
    const sn_topo_t *t;
    uint64_t *arr;   /* [n] broadcast: slot of the first arrival; personalised: of the arrival of
                        the (last) packet addressed to the node; 0 = none */
    uint32_t *nrecv; /* [n] packets that crossed a link into the node */
} rec_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    rec_t *r = ctx;
    uint32_t v = sn_topo_port(r->t, node, port)->peer;
    r->nrecv[v]++;
    if (pkt->dst == SN_NODE_ALL ? r->arr[v] == 0 : pkt->dst == v)
        r->arr[v] = slot;
}

typedef struct {
    sn_sim_result_t res;
    int64_t predicted;
    sn_bounds_t bounds;
    const sn_algo_t *algo;
} run_t;

/* Runs `algo` (NULL = auto) and checks what holds for every run: it completes and verifies, every
 * expected delivery arrived, steps == predicted, steps >= the lower bound, no control traffic.
 * When rec is not NULL the arrivals are recorded into it (its arrays hold t->n entries). */
static run_t run_algo(const sn_topo_t *t, const sn_params_t *p, const char *algo, rec_t *rec)
{
    run_t r;
    memset(&r, 0, sizeof r);
    sn_err_t err = {0};
    void *plan = NULL;
    int rc = sn_model_select(algo, t, p, &r.algo, &plan, &r.predicted, &err);
    if (rc < 0)
        fail_msg("selecting %s on %s (%s, root %u): %s", algo ? algo : "auto", t->spec,
                 sn_coll_name(p->coll), p->root, err.msg);
    tu_assert_rc(sn_model_bounds(t, p, &r.bounds, &err), 0);
    sn_sim_opts_t opts = {0};
    opts.max_slots = 4 * (uint64_t) (r.predicted > 0 ? r.predicted : 0) + 1024;
    if (rec) {
        memset(rec->arr, 0, t->n * sizeof *rec->arr);
        memset(rec->nrecv, 0, t->n * sizeof *rec->nrecv);
        rec->t = t;
        opts.on_send = on_send;
        opts.send_ctx = rec;
    }
    rc = sn_sim_run(t, p, r.algo, plan, &opts, &r.res, &err);
    r.algo->plan_free(plan);
    const char *name = r.algo->name;
    if (rc != 0 || !r.res.verified)
        fail_msg("%s on %s (%s, root %u, msgs %u): rc %s, verified %d: %s", name, t->spec,
                 sn_coll_name(p->coll), p->root, p->msgs, sn_err_name(rc), r.res.verified, err.msg);
    uint64_t want = sn_coll_expected_total(t, p);
    if (r.res.deliveries != want)
        fail_msg("%s on %s: %llu deliveries, expected %llu", name, t->spec,
                 (unsigned long long) r.res.deliveries, (unsigned long long) want);
    if (r.predicted < 0 || r.res.steps != (uint64_t) r.predicted)
        fail_msg("%s on %s (root %u, msgs %u): steps %llu, predicted %lld", name, t->spec, p->root,
                 p->msgs, (unsigned long long) r.res.steps, (long long) r.predicted);
    if ((int64_t) r.res.steps < r.bounds.best)
        fail_msg("%s on %s: steps %llu below the lower bound %lld", name, t->spec,
                 (unsigned long long) r.res.steps, (long long) r.bounds.best);
    if (r.res.control_packets != 0)
        fail_msg("%s on %s: control packets", name, t->spec);
    if (algo != NULL && strcmp(name, algo) != 0)
        fail_msg("ran %s instead of %s", name, algo);
    return r;
}

static rec_t rec_new(const sn_topo_t *t)
{
    rec_t r = {t, calloc(t->n, sizeof(uint64_t)), calloc(t->n, sizeof(uint32_t))};
    return r;
}

static void rec_free(rec_t *r)
{
    free(r->arr);
    free(r->nrecv);
}

static sn_params_t params(sn_coll_t coll, const char *ports, const char *duplex, uint32_t root)
{
    sn_params_t p = tu_params(coll, ports, "one", duplex);
    p.root = root;
    return p;
}

/* Sizes of the root's subtrees, in the root's port order. Returns the count. */
static uint32_t root_subtrees(const sn_tree_t *tr, uint32_t *size, uint32_t cap)
{
    uint32_t k = 0;
    for (uint32_t c = tr->child_off[tr->root]; c < tr->child_off[tr->root + 1] && k < cap; c++) {
        uint32_t x = tr->child[c];
        size[k++] = tr->pout[x] - tr->pin[x];
    }
    return k;
}

static uint32_t largest_root_subtree(const sn_tree_t *tr)
{
    uint32_t size[64], k = root_subtrees(tr, size, 64), best = 0;
    for (uint32_t i = 0; i < k; i++)
        if (size[i] > best)
            best = size[i];
    return best;
}

static int cmp_u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x > y ? -1 : x < y;
}

/* The node of a product topology from its coordinates (0-based, factor 0 first). */
static uint32_t node_at(const sn_topo_t *t, const uint32_t *coord)
{
    uint32_t u = 0;
    for (uint32_t i = 0; i < t->nfactors; i++)
        u += coord[i] * t->stride[i];
    return u;
}

static int popcount32(uint32_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

/* ---- extended rings (section 3.1; Theorem 3.8) ----------------------------------------------- */

/* The E_n^rho parameters and the tree's shape (thesis section 3.1): root children rho + k, plus
 * rho - k when w > 0; every root subtree a path; rho of height D-1, k of height w, rho-k of height
 * w-1; height D; largest root subtree D = ceil((n-1)/deg) (Theorem 3.8). Also the count
 * of (n, rho) with w = 0 (where "the root has 2 rho children" fails): 134 for n <= 40. */
static void test_ering_tree_shape(void **state)
{
    (void) state;
    uint32_t w0 = 0;
    for (uint32_t n = 2; n <= 40; n++) {
        for (uint32_t rho = 1; rho <= n / 2; rho++) {
            char spec[32];
            snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            sn_topo_t *t = tu_topo(spec);
            sn_ering_t e;
            sn_err_t err = {0};
            tu_assert_rc(sn__ering_get(t, &e, "test", &err), 0);
            assert_int_equal(e.D, ceil_div(n / 2, rho));
            assert_int_equal(e.k, (n - 1) % rho);
            assert_int_equal(e.rho * e.D + e.rho * e.w + e.k, n - 1);
            assert_int_equal(e.D, sn_topo_ecc(t, 0, 0));
            assert_int_equal(e.D, ceil_div(n - 1, sn_topo_degree(t, 0)));
            w0 += e.w == 0;
            for (uint32_t root = 0; root < n; root += 1 + n / 3) {
                sn_tree_t *tr = sn__tree_ering(t, root);
                assert_non_null(tr);
                uint32_t nch = tr->child_off[root + 1] - tr->child_off[root];
                assert_int_equal(nch, e.rho + e.k + (e.w > 0 ? e.rho - e.k : 0));
                assert_int_equal(tr->height, e.D);
                assert_int_equal(largest_root_subtree(tr), e.D);
                uint32_t h[3] = {0, 0, 0}; /* children of heights D-1, w, w-1 by direction */
                for (uint32_t c = tr->child_off[root]; c < tr->child_off[root + 1]; c++) {
                    uint32_t x = tr->child[c], len = tr->pout[x] - tr->pin[x];
                    for (uint32_t y = 0; y < n; y++) /* a path: at most one child each */
                        if (tr->pin[y] >= tr->pin[x] && tr->pin[y] < tr->pout[x])
                            assert_true(tr->child_off[y + 1] - tr->child_off[y] <= 1);
                    /* clockwise children are root + 1 .. root + rho (the antipode too when
                     * rho = n/2: its counter-clockwise send has weight w = 0), the others
                     * root - s, s = 1 .. rho */
                    uint32_t o = (x + n - root) % n, want_len;
                    if (o <= e.rho) {
                        want_len = e.D;
                        h[0]++;
                    } else if (n - o <= e.k) {
                        want_len = e.w + 1;
                        h[1]++;
                    } else {
                        want_len = e.w;
                        h[2]++;
                    }
                    assert_int_equal(len, want_len);
                }
                assert_int_equal(h[0], e.rho);
                assert_int_equal(h[1], e.k);
                assert_int_equal(h[2], e.w > 0 ? e.rho - e.k : 0);
                sn__tree_free(tr);
            }
            sn_topo_free(t);
        }
    }
    assert_int_equal(w0, 134);
}

/* Root subtree sizes of the E_n^rho tree, computed independently. */
static void test_ering_table_46(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t D, w, k, nsub, sub[8];
    } cases[] = {
        {"ering:8:2", 2, 1, 1, 4, {2, 2, 2, 1}},
        {"ering:8:3", 2, 0, 1, 4, {2, 2, 2, 1}},
        {"ering:10:2", 3, 1, 1, 4, {3, 3, 2, 1}},
        {"ering:11:4", 2, 0, 2, 6, {2, 2, 2, 2, 1, 1}},
        {"ering:12:3", 2, 1, 2, 6, {2, 2, 2, 2, 2, 1}},
        {"ering:14:2", 4, 2, 1, 4, {4, 4, 3, 2}},
        {"ering:14:3", 3, 1, 1, 6, {3, 3, 3, 2, 1, 1}},
        {"ering:16:2", 4, 3, 1, 4, {4, 4, 4, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_ering_t e;
        tu_assert_rc(sn__ering_get(t, &e, "test", NULL), 0);
        assert_int_equal(e.D, cases[i].D);
        assert_int_equal(e.w, cases[i].w);
        assert_int_equal(e.k, cases[i].k);
        sn_tree_t *tr = sn__tree_ering(t, 0);
        uint32_t size[16];
        uint32_t k = root_subtrees(tr, size, 16);
        assert_int_equal(k, cases[i].nsub);
        qsort(size, k, sizeof *size, cmp_u32_desc);
        for (uint32_t j = 0; j < k; j++)
            assert_int_equal(size[j], cases[i].sub[j]);
        sn__tree_free(tr);
        sn_topo_free(t);
    }
}

/* bcast-ering over every E_n^rho, n = 3 .. 40, every rho (and ring:n, complete:n): D steps, the
 * diameter, every node reached once at its depth in the E_n^rho tree; with 3 packets D + 2. */
static void test_bcast_ering(void **state)
{
    (void) state;
    for (uint32_t n = 3; n <= 40; n++) {
        for (uint32_t rho = 0; rho <= n / 2; rho++) {
            char spec[32];
            if (rho == 0)
                snprintf(spec, sizeof spec, "ring:%u", n);
            else
                snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            sn_topo_t *t = tu_topo(spec);
            sn_ering_t e;
            tu_assert_rc(sn__ering_get(t, &e, "test", NULL), 0);
            rec_t rec = rec_new(t);
            for (uint32_t root = 0; root < n; root += 1 + n / 4) {
                sn_params_t p = params(SN_COLL_BCAST, "multi", "full", root);
                run_t r = run_algo(t, &p, "bcast-ering", &rec);
                assert_int_equal(r.res.steps, e.D);
                assert_int_equal(r.bounds.best, e.D);
                assert_int_equal(r.res.packets, n - 1); /* a spanning tree: no redundancy */
                sn_tree_t *tr = sn__tree_ering(t, root);
                for (uint32_t v = 0; v < n; v++) {
                    assert_int_equal(rec.nrecv[v], v != root);
                    assert_int_equal(rec.arr[v], tr->depth[v]);
                }
                sn__tree_free(tr);
            }
            sn_params_t p = params(SN_COLL_BCAST, "multi", n % 2 ? "half" : "full", n - 1);
            p.msgs = 3;
            run_t r = run_algo(t, &p, "bcast-ering", NULL);
            assert_int_equal(r.res.steps, e.D + 2);
            rec_free(&rec);
            sn_topo_free(t);
        }
    }
    for (uint32_t n = 2; n <= 12; n++) { /* K_n = E_n^floor(n/2): one step */
        char spec[32];
        snprintf(spec, sizeof spec, "complete:%u", n);
        sn_topo_t *t = tu_topo(spec);
        sn_params_t p = params(SN_COLL_BCAST, "multi", "full", n / 2);
        run_t r = run_algo(t, &p, "bcast-ering", NULL);
        assert_int_equal(r.res.steps, 1);
        sn_topo_free(t);
    }
}

/* Theorem 3.8: scatter-ering and gather-ering take ceil((n-1)/deg) = D steps on every E_n^rho,
 * n = 3 .. 40, every rho, which is the lower bound (3.3); with 2 packets 2D. */
static void test_scatter_gather_ering(void **state)
{
    (void) state;
    for (uint32_t n = 3; n <= 40; n++) {
        for (uint32_t rho = 0; rho <= n / 2; rho++) {
            char spec[32];
            if (rho == 0)
                snprintf(spec, sizeof spec, "ring:%u", n);
            else
                snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            sn_topo_t *t = tu_topo(spec);
            uint64_t want = ceil_div(n - 1, sn_topo_degree(t, 0));
            for (uint32_t root = 0; root < n; root += 1 + n / 3) {
                for (int g = 0; g < 2; g++) {
                    sn_params_t p = params(g ? SN_COLL_GATHER : SN_COLL_SCATTER, "multi",
                                           root % 2 ? "half" : "full", root);
                    run_t r = run_algo(t, &p, g ? "gather-ering" : "scatter-ering", NULL);
                    assert_int_equal(r.res.steps, want);
                    assert_int_equal(r.bounds.best, (int64_t) want);
                    p.msgs = 2;
                    r = run_algo(t, &p, g ? "gather-ering" : "scatter-ering", NULL);
                    assert_int_equal(r.res.steps, 2 * want);
                }
            }
            sn_topo_free(t);
        }
    }
    for (uint32_t n = 2; n <= 12; n++) {
        char spec[32];
        snprintf(spec, sizeof spec, "complete:%u", n);
        sn_topo_t *t = tu_topo(spec);
        sn_params_t p = params(SN_COLL_SCATTER, "multi", "full", 1);
        assert_int_equal(run_algo(t, &p, "scatter-ering", NULL).res.steps, 1);
        p.coll = SN_COLL_GATHER;
        assert_int_equal(run_algo(t, &p, "gather-ering", NULL).res.steps, 1);
        sn_topo_free(t);
    }
}

/* Fig. 3.2, E_14^2 from 0: D=4, w=2, k=1; the paths 1-3-5-7, 2-4-6-8,
 * 13-11-9, 12-10; node 8 at depth 4 although dist(0,8) = 3; broadcast reception steps; multiport
 * scatter arrival steps (every node of a path of N nodes at step N). */
static void test_fig32_e14_2(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ering:14:2");
    sn_tree_t *tr = sn__tree_ering(t, 0);
    static const uint32_t parent[14] = {UINT32_MAX, 0, 0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 0, 0};
    for (uint32_t v = 1; v < 14; v++)
        assert_int_equal(tr->parent[v], parent[v]);
    uint32_t dist[14];
    sn_topo_bfs(t, 0, dist);
    assert_int_equal(dist[8], 3);
    assert_int_equal(tr->depth[8], 4);
    sn__tree_free(tr);
    rec_t rec = rec_new(t);
    sn_params_t p = params(SN_COLL_BCAST, "multi", "full", 0);
    run_t r = run_algo(t, &p, "bcast-ering", &rec);
    static const uint64_t bcast[14] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 3, 2, 2, 1, 1};
    for (uint32_t v = 0; v < 14; v++)
        assert_int_equal(rec.arr[v], bcast[v]);
    assert_int_equal(r.res.steps, 4);
    p = params(SN_COLL_SCATTER, "multi", "full", 0);
    r = run_algo(t, &p, "scatter-ering", &rec);
    static const uint64_t scat[14] = {0, 4, 4, 4, 4, 4, 4, 4, 4, 3, 2, 3, 2, 3};
    for (uint32_t v = 0; v < 14; v++)
        assert_int_equal(rec.arr[v], scat[v]);
    assert_int_equal(r.res.steps, 4);
    assert_int_equal(r.bounds.best, 4); /* ceil(13/4) */
    rec_free(&rec);
    sn_topo_free(t);
}

/* ---- hypercubes: the binomial tree (section 3.1, Fig. 3.1) ----------------------------------- */

/* Fig. 3.1 (Q_3 from 000): children 0 -> {1,2,4}, 4 -> {5,6}, 2 -> {3}, 6 -> {7}; multiport
 * reception at popcount(x); single-port: 4 at step 1, 2 and 6 at step 2, the rest at 3. */
static void test_fig31_q3(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_tree_t *tr = sn__tree_binomial(t, 0);
    static const uint32_t parent[8] = {UINT32_MAX, 0, 0, 2, 0, 4, 4, 6};
    for (uint32_t v = 1; v < 8; v++)
        assert_int_equal(tr->parent[v], parent[v]);
    sn__tree_free(tr);
    rec_t rec = rec_new(t);
    sn_params_t p = params(SN_COLL_BCAST, "multi", "full", 0);
    run_algo(t, &p, "bcast-binomial", &rec);
    for (uint32_t v = 1; v < 8; v++)
        assert_int_equal(rec.arr[v], (uint64_t) popcount32(v));
    p = params(SN_COLL_BCAST, "single", "full", 0);
    run_t r = run_algo(t, &p, "bcast-binomial", &rec);
    static const uint64_t single[8] = {0, 3, 2, 3, 1, 3, 2, 3};
    for (uint32_t v = 0; v < 8; v++)
        assert_int_equal(rec.arr[v], single[v]);
    assert_int_equal(r.res.steps, 3);
    rec_free(&rec);
    sn_topo_free(t);
}

/* Q_d, d = 1 .. 8, several roots, both port models: d steps (multiport: e(v); single-port: the
 * Theorem 3.3 bound log2 n), node x informed at popcount(x^s) (multiport) or d - lsb(x^s)
 * (single-port, highest dimension first); pipelined multiport d + M - 1. And the binomial tree is
 * the Theorem 3.1 tree of d copies of K_2 with coordinate j = bit j. */
static void test_binomial(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 8; d++) {
        char spec[160];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        uint32_t n = t->n;
        /* the product of d copies of K_2: factor j is bit j of the hypercube label */
        size_t len = 0;
        for (uint32_t j = 0; j < d; j++)
            len += (size_t) snprintf(spec + len, sizeof spec - len, "%slinear:2", j ? "*" : "");
        sn_topo_t *k2 = tu_topo(spec);
        uint32_t *as_prod = malloc(n * sizeof *as_prod);
        for (uint32_t x = 0; x < n; x++) {
            uint32_t coord[16];
            for (uint32_t j = 0; j < d; j++)
                coord[j] = x >> j & 1u;
            as_prod[x] = d == 1 ? x : node_at(k2, coord);
        }
        rec_t rec = rec_new(t);
        uint32_t roots[] = {0, 1, n - 1, n / 2 + 1 < n ? n / 2 + 1 : 0};
        for (size_t ri = 0; ri < sizeof roots / sizeof roots[0]; ri++) {
            uint32_t s = roots[ri];
            sn_tree_t *tr = sn__tree_binomial(t, s), *pt = sn__tree_product(k2, as_prod[s]);
            if (d == 1) { /* linear:2 alone is no product: the two trees are both one edge */
                sn__tree_free(pt);
                pt = NULL;
            }
            for (uint32_t x = 0; x < n; x++) {
                uint32_t y = x ^ s;
                if (y == 0)
                    continue;
                assert_int_equal(tr->parent[x], x ^ (y & -y));
                if (pt)
                    assert_int_equal(pt->parent[as_prod[x]], as_prod[tr->parent[x]]);
            }
            sn__tree_free(tr);
            sn__tree_free(pt);
            sn_params_t p = params(SN_COLL_BCAST, "multi", ri % 2 ? "half" : "full", s);
            run_t r = run_algo(t, &p, "bcast-binomial", &rec);
            assert_int_equal(r.res.steps, d);
            assert_int_equal(r.bounds.best, d);
            for (uint32_t x = 0; x < n; x++)
                assert_int_equal(rec.arr[x], (uint64_t) popcount32(x ^ s));
            p = params(SN_COLL_BCAST, "single", ri % 2 ? "half" : "full", s);
            r = run_algo(t, &p, "bcast-binomial", &rec);
            assert_int_equal(r.res.steps, d);
            assert_int_equal(r.bounds.best, d);
            for (uint32_t x = 0; x < n; x++) {
                uint32_t y = x ^ s, j = 0;
                if (y == 0)
                    continue;
                while (!(y >> j & 1u))
                    j++;
                assert_int_equal(rec.arr[x], d - j);
            }
            p.pm.rx = SN_RX_ANY;
            run_algo(t, &p, "bcast-binomial", NULL);
            p = params(SN_COLL_BCAST, "multi", "full", s);
            p.msgs = 2;
            p.frags = 2;
            assert_int_equal(run_algo(t, &p, "bcast-binomial", NULL).res.steps, d + 3);
        }
        free(as_prod);
        rec_free(&rec);
        sn_topo_free(k2);
        sn_topo_free(t);
    }
}

/* ---- products: the Theorem 3.1 tree (section 3.1.1) ------------------------------------------ */

/* bcast-product on meshes, 2-D and 3-D tori and mixed products, from many roots: e(root) steps
 * (the sum of the factor eccentricities, eq. 2.2), the lower bound; every node reached once at
 * its depth, which is the sum of its per-factor depths; pipelined e(root) + M - 1. */
static void test_bcast_product(void **state)
{
    (void) state;
    static const char *const specs[] = {
        "mesh:3x4x2",
        "mesh:5x5",
        "mesh:2x7",
        "mesh:4x3x5",
        "mesh:9x2",
        "mesh:2x2x2x2",
        "torus:3x3",
        "torus:4x5",
        "torus:8x8",
        "torus:2x6",
        "torus:3x4x5",
        "torus:4x4x4",
        "torus:2x3x2",
        "torus:5x5x5",
        "torus:6",
        "ering:7:2*ring:5",
        "hypercube:3*ring:6",
        "complete:4*linear:5",
        "ering:14:2*mesh:3x3",
        "ering:9:3*linear:3*hypercube:2",
        "circulant:13:1,5*ring:4",
        "star:4*ring:3",
        "ering:10:5*ering:8:4",
        "ccc:3*linear:2",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        rec_t rec = rec_new(t);
        uint32_t step = t->n <= 64 ? 1 : t->n / 13;
        for (uint32_t root = 0; root < t->n; root += step) {
            uint32_t e = 0;
            for (uint32_t f = 0; f < t->nfactors; f++)
                e += sn_topo_ecc(t->factors[f], sn_topo_coord(t, root, f), 0);
            assert_int_equal(e, sn_topo_ecc(t, root, 0));
            sn_params_t p = params(SN_COLL_BCAST, "multi", root % 2 ? "half" : "full", root);
            run_t r = run_algo(t, &p, "bcast-product", &rec);
            assert_int_equal(r.res.steps, e);
            assert_int_equal(r.bounds.best, e);
            assert_int_equal(r.res.packets, t->n - 1);
            sn_tree_t *tr = sn__tree_product(t, root);
            assert_int_equal(tr->height, e);
            for (uint32_t v = 0; v < t->n; v++) {
                assert_int_equal(rec.nrecv[v], v != root);
                assert_int_equal(rec.arr[v], tr->depth[v]);
            }
            sn__tree_free(tr);
        }
        sn_params_t p = params(SN_COLL_BCAST, "multi", "full", t->n - 1);
        p.msgs = 3;
        run_t r = run_algo(t, &p, "bcast-product", NULL);
        assert_int_equal(r.res.steps, sn_topo_ecc(t, t->n - 1, 0) + 2);
        rec_free(&rec);
        sn_topo_free(t);
    }
}

/* Fig. 3.3: the 3x4x2 mesh from (2,3,1) (1-based): root children
 * (1,3,1), (3,3,1) [dim 1], (2,2,1), (2,4,1) [dim 2], (2,3,2) [dim 3] with subtree sizes 1, 1, 6,
 * 3, 12; levels [1,5,9,7,2]; the deepest nodes (1,1,2) and (3,1,2) under (2,1,2), (2,2,2),
 * (2,3,2); broadcast in e(v) = 4 steps. */
static void test_fig33_mesh(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("mesh:3x4x2");
#define AT(a, b, c) node_at(t, (const uint32_t[]){(a) -1, (b) -1, (c) -1})
    uint32_t root = AT(2, 3, 1);
    sn_tree_t *tr = sn__tree_product(t, root);
    const uint32_t child[5] = {AT(1, 3, 1), AT(3, 3, 1), AT(2, 2, 1), AT(2, 4, 1), AT(2, 3, 2)};
    const uint32_t size[5] = {1, 1, 6, 3, 12};
    assert_int_equal(tr->child_off[root + 1] - tr->child_off[root], 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(tr->parent[child[i]], root);
        assert_int_equal(tr->pout[child[i]] - tr->pin[child[i]], size[i]);
    }
    uint32_t level[5] = {0};
    for (uint32_t v = 0; v < t->n; v++)
        level[tr->depth[v]]++;
    static const uint32_t want[5] = {1, 5, 9, 7, 2};
    for (int l = 0; l < 5; l++)
        assert_int_equal(level[l], want[l]);
    assert_int_equal(tr->height, 4);
    assert_int_equal(tr->depth[AT(1, 1, 2)], 4);
    assert_int_equal(tr->depth[AT(3, 1, 2)], 4);
    assert_int_equal(tr->parent[AT(1, 1, 2)], AT(2, 1, 2));
    assert_int_equal(tr->parent[AT(3, 1, 2)], AT(2, 1, 2));
    assert_int_equal(tr->parent[AT(2, 1, 2)], AT(2, 2, 2));
    assert_int_equal(tr->parent[AT(2, 2, 2)], AT(2, 3, 2));
    assert_int_equal(tr->parent[AT(2, 3, 2)], root);
    sn__tree_free(tr);
    sn_params_t p = params(SN_COLL_BCAST, "multi", "full", root);
    assert_int_equal(run_algo(t, &p, "bcast-product", NULL).res.steps, 4);
#undef AT
    sn_topo_free(t);
}

/* ---- 2-D tori: the scattering tree of section 3.4.2 ----------------------------------------- */

/* The torus node of plane point [x, y] for the root (eq. 3.4 corrected: row r - y, column c - x).
 */
static uint32_t plane_node(const sn_topo_t *t, uint32_t root, int x, int y)
{
    int n = (int) t->factors[0]->n, m = (int) t->factors[1]->n;
    int r = (int) sn_topo_coord(t, root, 0), c = (int) sn_topo_coord(t, root, 1);
    return (uint32_t) ((((r - y) % n + n) % n) * m + ((c - x) % m + m) % m);
}

/* Which method makes the tree of every n x m torus, n, m = 3 .. 40 (tree_torus.c): the thesis's
 * construction everywhere except n even >= 6 x 4 (transposed), 4 x 4 (explicit) and 3 x even,
 * even x 3 (balanced); and every tree has exactly ceil((nm-1)/4) nodes in its largest root
 * subtree (4 root children), the lower bound (3.3). */
static void test_torus_methods(void **state)
{
    (void) state;
    for (uint32_t n = 3; n <= 40; n++) {
        for (uint32_t m = 3; m <= 40; m++) {
            sn_torus_method_t want = SN_TORUS_THESIS;
            if (n == 4 && m == 4)
                want = SN_TORUS_EXPLICIT;
            else if (n % 2 == 0 && n >= 6 && m == 4)
                want = SN_TORUS_TRANSPOSED;
            else if ((n == 3 && m % 2 == 0) || (m == 3 && n % 2 == 0))
                want = SN_TORUS_BALANCED;
            if (sn__torus_method(n, m) != want)
                fail_msg("torus %ux%u: method %d, expected %d", n, m, sn__torus_method(n, m), want);
            char spec[32];
            snprintf(spec, sizeof spec, "torus:%ux%u", n, m);
            sn_topo_t *t = tu_topo(spec);
            uint32_t root = (n * m) / 3;
            sn_tree_t *tr = sn__tree_torus(t, root);
            assert_non_null(tr);
            assert_int_equal(tr->child_off[root + 1] - tr->child_off[root], 4);
            if (largest_root_subtree(tr) != ceil_div(n * m - 1, 4))
                fail_msg("torus %ux%u: largest region %u, ceil((nm-1)/4) = %llu", n, m,
                         largest_root_subtree(tr), (unsigned long long) ceil_div(n * m - 1, 4));
            sn__tree_free(tr);
            sn_topo_free(t);
        }
    }
}

/* scatter-torus and gather-torus on a x b, a, b = 3 .. 9, and larger sizes, from several roots,
 * full and half duplex: ceil((nm-1)/4) steps, the lower bound; 2 packets: twice that. Also the
 * product spec ring:N*ring:M. */
static void test_scatter_gather_torus(void **state)
{
    (void) state;
    char spec[32];
    static const uint32_t big[][2] = {{10, 12}, {16, 16}, {13, 7}, {20, 3},  {3, 20}, {8, 4},
                                      {4, 8},   {12, 4},  {4, 5},  {25, 31}, {32, 32}};
    size_t nbig = sizeof big / sizeof big[0];
    for (size_t i = 0; i < 49 + nbig; i++) {
        uint32_t a = i < 49 ? 3 + (uint32_t) i / 7 : big[i - 49][0];
        uint32_t b = i < 49 ? 3 + (uint32_t) i % 7 : big[i - 49][1];
        snprintf(spec, sizeof spec, "torus:%ux%u", a, b);
        sn_topo_t *t = tu_topo(spec);
        uint64_t want = ceil_div(a * b - 1, 4);
        uint32_t roots[3] = {0, t->n - 1, t->n / 2};
        for (int ri = 0; ri < (a * b <= 81 ? 3 : 1); ri++) {
            for (int g = 0; g < 2; g++) {
                sn_params_t p = params(g ? SN_COLL_GATHER : SN_COLL_SCATTER, "multi",
                                       ri == 1 ? "half" : "full", roots[ri]);
                run_t r = run_algo(t, &p, g ? "gather-torus" : "scatter-torus", NULL);
                if (r.res.steps != want || r.bounds.best != (int64_t) want)
                    fail_msg("%s on %s: steps %llu, bound %lld, ceil((nm-1)/4) = %llu",
                             r.algo->name, spec, (unsigned long long) r.res.steps,
                             (long long) r.bounds.best, (unsigned long long) want);
                if (ri == 0 && a * b <= 81) {
                    p.msgs = 2;
                    assert_int_equal(run_algo(t, &p, r.algo->name, NULL).res.steps, 2 * want);
                }
            }
        }
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("ring:5*ring:6");
    sn_params_t p = params(SN_COLL_SCATTER, "multi", "full", 7);
    assert_int_equal(run_algo(t, &p, "scatter-torus", NULL).res.steps, 8);
    sn_topo_free(t);
}

/* Fig. 3.7, the 7x7 torus: four regions of 12 points, and region A's
 * tree exactly as listed (plane coordinates, child: parent), from two roots; scatter in 12 steps,
 * every node receiving at the step of its lane's schedule, the last at 12. Also the region sizes
 * of the section 3.4.2 construction for 6x5 (case 2), 5x6 (case 3) and 6x6 (case 4). */
static void test_torus_regions(void **state)
{
    (void) state;
    static const int A[12][4] = {{0, 1, 0, 0}, {1, 1, 0, 1}, {2, 1, 1, 1}, {3, 1, 2, 1},
                                 {1, 2, 1, 1}, {1, 3, 1, 2}, {2, 2, 2, 1}, {2, 3, 2, 2},
                                 {3, 2, 3, 1}, {3, 3, 3, 2}, {0, 3, 1, 3}, {2, 0, 2, 1}};
    sn_topo_t *t = tu_topo("torus:7x7");
    for (uint32_t root = 0; root < 49; root += 17) {
        sn_tree_t *tr = sn__tree_torus(t, root);
        for (int i = 0; i < 12; i++)
            assert_int_equal(tr->parent[plane_node(t, root, A[i][0], A[i][1])],
                             plane_node(t, root, A[i][2], A[i][3]));
        uint32_t size[4];
        assert_int_equal(root_subtrees(tr, size, 4), 4);
        for (int i = 0; i < 4; i++)
            assert_int_equal(size[i], 12);
        sn__tree_free(tr);
        sn_params_t p = params(SN_COLL_SCATTER, "multi", "full", root);
        assert_int_equal(run_algo(t, &p, "scatter-torus", NULL).res.steps, 12);
    }
    sn_topo_free(t);
    static const struct {
        const char *spec;
        uint32_t a, b, c, d; /* regions owned by [0,1], [1,0], [0,-1], [-1,0] */
    } maps[] = {{"torus:6x5", 8, 7, 7, 7}, {"torus:5x6", 7, 8, 7, 7}, {"torus:6x6", 9, 9, 8, 9}};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        t = tu_topo(maps[i].spec);
        sn_tree_t *tr = sn__tree_torus(t, 0);
        const int own[4][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};
        const uint32_t want[4] = {maps[i].a, maps[i].b, maps[i].c, maps[i].d};
        for (int r = 0; r < 4; r++) {
            uint32_t o = plane_node(t, 0, own[r][0], own[r][1]);
            assert_int_equal(tr->parent[o], 0);
            assert_int_equal(tr->pout[o] - tr->pin[o], want[r]);
        }
        sn__tree_free(tr);
        sn_topo_free(t);
    }
}

/* An explicit balanced 4x4 tree (found by search), translated to any root: subtree sizes 3, 4, 4,
 * 4; scatter in 4 = ceil(15/4) steps. */
static void test_torus_4x4(void **state)
{
    (void) state;
    static const int E[15][4] = {{0, 1, 0, 0}, {1, 1, 0, 1}, {2, 1, 1, 1}, {0, 3, 0, 0},
                                 {0, 2, 0, 3}, {3, 3, 0, 3}, {2, 3, 3, 3}, {1, 0, 0, 0},
                                 {1, 3, 1, 0}, {1, 2, 1, 3}, {2, 0, 1, 0}, {3, 0, 0, 0},
                                 {3, 1, 3, 0}, {3, 2, 3, 1}, {2, 2, 3, 2}};
    sn_topo_t *t = tu_topo("torus:4x4");
    for (uint32_t root = 0; root < 16; root += 5) {
        uint32_t r = root / 4, c = root % 4;
        sn_tree_t *tr = sn__tree_torus(t, root);
        for (int i = 0; i < 15; i++)
            assert_int_equal(tr->parent[((r + E[i][0]) % 4) * 4 + (c + E[i][1]) % 4],
                             ((r + E[i][2]) % 4) * 4 + (c + E[i][3]) % 4);
        uint32_t size[4];
        assert_int_equal(root_subtrees(tr, size, 4), 4);
        qsort(size, 4, sizeof *size, cmp_u32_desc);
        assert_int_equal(size[0], 4);
        assert_int_equal(size[1], 4);
        assert_int_equal(size[2], 4);
        assert_int_equal(size[3], 3);
        sn__tree_free(tr);
        sn_params_t p = params(SN_COLL_SCATTER, "multi", "full", root);
        assert_int_equal(run_algo(t, &p, "scatter-torus", NULL).res.steps, 4);
    }
    sn_topo_free(t);
}

/* ---- registry, selection, refusals --------------------------------------------------------- */

/* Each family algorithm comes before the generic ones of its collective (so it wins ties), and
 * auto picks it on its family. */
static void test_registry_order_and_auto(void **state)
{
    (void) state;
    static const char *const before[][3] = {
        {"bcast-ering", "bcast-bfs", "bcast-tree"},
        {"bcast-product", "bcast-bfs", "bcast-tree"},
        {"bcast-binomial", "bcast-bfs", "bcast-tree"},
        {"scatter-ering", "scatter-balanced", "scatter-ff"},
        {"scatter-torus", "scatter-balanced", "scatter-ff"},
        {"gather-ering", "gather-balanced", "gather-ff"},
        {"gather-torus", "gather-balanced", "gather-ff"},
    };
    size_t n;
    const sn_algo_t *const *algos = sn_model_algos(&n);
    for (size_t i = 0; i < sizeof before / sizeof before[0]; i++) {
        size_t pos[3] = {n, n, n};
        for (size_t j = 0; j < n; j++)
            for (int k = 0; k < 3; k++)
                if (strcmp(algos[j]->name, before[i][k]) == 0)
                    pos[k] = j;
        assert_true(pos[0] < pos[1] && pos[0] < pos[2] && pos[1] < n && pos[2] < n);
        const sn_algo_t *a = algos[pos[0]];
        assert_non_null(a->applies);
        assert_non_null(strstr(a->source, "Dimakopoulos, thesis"));
    }
    static const struct {
        const char *spec, *ports;
        sn_coll_t coll;
        const char *algo;
    } cases[] = {
        {"ring:8", "multi", SN_COLL_BCAST, "bcast-ering"},
        {"ering:14:2", "multi", SN_COLL_BCAST, "bcast-ering"},
        {"ering:14:2", "multi", SN_COLL_SCATTER, "scatter-ering"},
        {"ring:9", "multi", SN_COLL_GATHER, "gather-ering"},
        {"mesh:3x4x2", "multi", SN_COLL_BCAST, "bcast-product"},
        {"torus:5x5x5", "multi", SN_COLL_BCAST, "bcast-product"},
        {"hypercube:4", "multi", SN_COLL_BCAST, "bcast-binomial"},
        {"hypercube:4", "single", SN_COLL_BCAST, "bcast-binomial"},
        {"torus:7x7", "multi", SN_COLL_SCATTER, "scatter-torus"},
        {"torus:6x4", "multi", SN_COLL_GATHER, "gather-torus"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = params(cases[i].coll, cases[i].ports, "full", 0);
        run_t r = run_algo(t, &p, NULL, NULL);
        assert_string_equal(r.algo->name, cases[i].algo);
        sn_topo_free(t);
    }
}

/* Each refuses other topologies (saying what it needs) and the port models it does not support. */
static void test_refusals(void **state)
{
    (void) state;
    static const struct {
        const char *algo, *spec;
        sn_coll_t coll;
        const char *ports, *needs;
    } cases[] = {
        {"bcast-ering", "torus:4x4", SN_COLL_BCAST, "multi", "extended ring"},
        {"bcast-ering", "circulant:13:1,5", SN_COLL_BCAST, "multi", "ering:N:RHO"},
        {"bcast-ering", "ring:8", SN_COLL_BCAST, "single", "single"},
        {"scatter-ering", "hypercube:3", SN_COLL_SCATTER, "multi", "extended ring"},
        {"gather-ering", "mesh:3x3", SN_COLL_GATHER, "multi", "extended ring"},
        {"scatter-ering", "ring:8", SN_COLL_SCATTER, "single", "single"},
        {"bcast-product", "ring:8", SN_COLL_BCAST, "multi", "cartesian product"},
        {"bcast-product", "hypercube:3", SN_COLL_BCAST, "multi", "cartesian product"},
        {"bcast-product", "torus:3x3", SN_COLL_BCAST, "single", "single"},
        {"bcast-binomial", "torus:2x2x2", SN_COLL_BCAST, "multi", "hypercube"},
        {"bcast-binomial", "foldedcube:3", SN_COLL_BCAST, "single", "hypercube"},
        {"scatter-torus", "torus:3x3x3", SN_COLL_SCATTER, "multi", "2-D torus"},
        {"scatter-torus", "torus:2x5", SN_COLL_SCATTER, "multi", ">= 3"},
        {"scatter-torus", "mesh:4x4", SN_COLL_SCATTER, "multi", "2-D torus"},
        {"gather-torus", "ring:5*linear:4", SN_COLL_GATHER, "multi", "2-D torus"},
        {"gather-torus", "torus:4x4", SN_COLL_GATHER, "single", "single"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = params(cases[i].coll, cases[i].ports, "full", 0);
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(cases[i].algo, t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        assert_null(plan);
        if (strstr(err.msg, cases[i].needs) == NULL || strstr(err.msg, cases[i].algo) == NULL)
            fail_msg("%s on %s: message '%s' should name %s and '%s'", cases[i].algo, cases[i].spec,
                     err.msg, cases[i].algo, cases[i].needs);
        sn_topo_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ering_tree_shape),
        cmocka_unit_test(test_ering_table_46),
        cmocka_unit_test(test_bcast_ering),
        cmocka_unit_test(test_scatter_gather_ering),
        cmocka_unit_test(test_fig32_e14_2),
        cmocka_unit_test(test_fig31_q3),
        cmocka_unit_test(test_binomial),
        cmocka_unit_test(test_bcast_product),
        cmocka_unit_test(test_fig33_mesh),
        cmocka_unit_test(test_torus_methods),
        cmocka_unit_test(test_scatter_gather_torus),
        cmocka_unit_test(test_torus_regions),
        cmocka_unit_test(test_torus_4x4),
        cmocka_unit_test(test_registry_order_and_auto),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
