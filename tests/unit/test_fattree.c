/* Unit tests of the fat-tree algorithms of thesis chapter 6 (core/algo/<coll>/<coll>_fattree.c,
 * engine/fattree.c), run in the slot simulator: every run verifies, takes exactly its predicted
 * steps and no fewer than any lower bound; the predictions equal the chapter's corrected values
 * (Tables 6.1 and 6.2 with their errata) over k = 2 (h = 2..6), k = 3 (h = 2..4), k = 4 (h = 2, 3),
 * k = 5..8 (h = 2), for constant, exponential and intermediate capacities; the chapter's worked
 * examples (Figs. 6.7 and 6.9, the broadcast, scatter, gather and total-exchange traces) are
 * replayed slot by slot through the simulator's send hook. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testutil.h"

/* ---- recording a run ------------------------------------------------------------------------- */

typedef struct {
    const sn_topo_t *t;
    char (*ev)[80]; /* "slot:FROM>TO:SRC>DST" (DST '*' for broadcast packets) */
    size_t n, cap;
    uint64_t *sends; /* [t->n] transmissions per node */
} rec_t;

static void name(const sn_topo_t *t, uint32_t u, char *buf, size_t cap)
{
    uint32_t l, i;
    sn_topo_fattree_pos(t, u, &l, &i);
    if (l == 0)
        snprintf(buf, cap, "L%u", i);
    else
        snprintf(buf, cap, "R%u.%u", l, i);
}

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    rec_t *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
    }
    char a[16], b[16], d[16];
    name(r->t, node, a, sizeof a);
    name(r->t, sn_topo_port(r->t, node, port)->peer, b, sizeof b);
    if (pkt->dst == SN_NODE_ALL)
        snprintf(d, sizeof d, "*");
    else
        snprintf(d, sizeof d, "%u", pkt->dst);
    snprintf(r->ev[r->n++], sizeof r->ev[0], "%llu:%s>%s:%u>%s", (unsigned long long) slot, a, b,
             pkt->src, d);
    r->sends[node]++;
}

static int has(const rec_t *r, const char *ev)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->ev[i], ev) == 0)
            return 1;
    return 0;
}

/* Fails unless every event of want[] was recorded (and, if exact, nothing else). */
static void expect_events(const rec_t *r, const char *const *want, size_t nwant, int exact,
                          const char *what)
{
    for (size_t i = 0; i < nwant; i++)
        if (!has(r, want[i]))
            fail_msg("%s: missing transmission %s", what, want[i]);
    if (exact && r->n != nwant)
        fail_msg("%s: %zu transmissions, expected exactly %zu", what, r->n, nwant);
}

/* Runs `algo` (NULL = auto) and checks what holds for every run: verified, all deliveries,
 * steps == predicted, steps >= every lower bound. With rec, records the transmissions. */
static sn_sim_result_t run(const char *spec, sn_coll_t coll, const char *ports, const char *algo,
                           uint32_t root, rec_t *rec, int64_t *predicted)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(coll, ports, strcmp(ports, "single") == 0 ? "any" : "one", "full");
    p.root = root;
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t pred = -1;
    sn_err_t err = {0};
    if (sn_model_select(algo, t, &p, &a, &plan, &pred, &err) < 0)
        fail_msg("selecting %s on %s: %s", algo ? algo : "auto", spec, err.msg);
    if (strstr(a->name, "fattree") == NULL)
        fail_msg("auto picked %s on %s (%s, %s)", a->name, spec, sn_coll_name(coll), ports);
    sn_bounds_t bounds;
    tu_assert_rc(sn_model_bounds(t, &p, &bounds, &err), 0);
    sn_sim_opts_t opts = {0};
    opts.max_slots = 4 * (uint64_t) pred + 1024;
    if (rec) {
        memset(rec, 0, sizeof *rec);
        rec->t = t;
        rec->sends = calloc(t->n, sizeof *rec->sends);
        opts.on_send = on_send;
        opts.send_ctx = rec;
    }
    sn_sim_result_t res;
    int rc = sn_sim_run(t, &p, a, plan, &opts, &res, &err);
    a->plan_free(plan);
    if (rc != 0 || !res.verified)
        fail_msg("%s on %s (%s): rc %s verified %d: %s", a->name, spec, ports, sn_err_name(rc),
                 res.verified, err.msg);
    if (res.deliveries != sn_coll_expected_total(t, &p))
        fail_msg("%s on %s: deliveries", a->name, spec);
    if (pred < 0 || res.steps != (uint64_t) pred)
        fail_msg("%s on %s (%s): steps %llu, predicted %lld", a->name, spec, ports,
                 (unsigned long long) res.steps, (long long) pred);
    for (size_t i = 0; i < bounds.count; i++)
        if ((int64_t) res.steps < bounds.b[i].value)
            fail_msg("%s on %s (%s): steps %llu below bound %s = %lld", a->name, spec, ports,
                     (unsigned long long) res.steps, bounds.b[i].name,
                     (long long) bounds.b[i].value);
    if (!rec)
        sn_topo_free(t);
    if (predicted)
        *predicted = pred;
    return res;
}

static void rec_free(rec_t *r)
{
    free(r->ev);
    free(r->sends);
    sn_topo_free((sn_topo_t *) r->t);
}

static uint64_t steps_of(const char *spec, sn_coll_t coll, const char *ports, const char *algo)
{
    return run(spec, coll, ports, algo, 0, NULL, NULL).steps;
}

/* ---- Tables 6.1 and 6.2, corrected ---------------------------------------------------------- */

typedef struct {
    uint32_t k, h;
    /* single-port: broadcast, scatter = gather, multinode broadcast, total exchange (corrected) */
    uint64_t b, s, mb, te;
    /* multiport: scatter = gather = flooding MB, queue-free MB serial / pipelined, total exchange
     * with c_i = 1 serial / pipelined, with c_i = k^(i-1) serial / pipelined */
    uint64_t ms, qfs, qfp, tcs, tcp, tes, tep;
} row_t;

static const row_t rows[] = {
    {2, 2, 5, 5, 9, 11, 5, 7, 6, 9, 8, 7, 6},
    {2, 3, 8, 9, 20, 43, 9, 16, 12, 30, 26, 16, 12},
    {2, 4, 11, 17, 39, 165, 17, 31, 22, 101, 92, 31, 22},
    {2, 5, 14, 33, 74, 647, 33, 56, 40, 366, 350, 56, 40},
    {2, 6, 17, 65, 141, 2569, 65, 99, 74, 1401, 1376, 99, 74},
    {3, 2, 7, 9, 28, 57, 9, 12, 11, 24, 23, 12, 11},
    {3, 3, 11, 27, 86, 491, 27, 35, 31, 191, 187, 35, 31},
    {3, 4, 15, 81, 252, 4381, 81, 96, 87, 1656, 1647, 96, 87},
    {4, 2, 9, 16, 65, 195, 16, 19, 18, 55, 54, 19, 18},
    {4, 3, 14, 64, 262, 3077, 64, 72, 68, 828, 824, 72, 68},
    {8, 2, 17, 64, 513, 3587, 64, 67, 66, 459, 458, 67, 66},
};

static void test_tables(void **st)
{
    (void) st;
    char spec[64], exp[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row_t *r = &rows[i];
        snprintf(spec, sizeof spec, "fattree:%u:%u", r->k, r->h);
        snprintf(exp, sizeof exp, "fattree:%u:%u:exp", r->k, r->h);
        assert_int_equal(steps_of(spec, SN_COLL_BCAST, "single", NULL), r->b);
        assert_int_equal(steps_of(spec, SN_COLL_SCATTER, "single", NULL), r->s);
        assert_int_equal(steps_of(spec, SN_COLL_GATHER, "single", NULL), r->s);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "single", NULL), r->mb);
        assert_int_equal(steps_of(spec, SN_COLL_TE, "single", NULL), r->te);
        /* capacities play no role in single-port (section 6.2) */
        assert_int_equal(steps_of(exp, SN_COLL_MNB, "single", NULL), r->mb);
        assert_int_equal(steps_of(exp, SN_COLL_TE, "single", NULL), r->te);
        assert_int_equal(steps_of(spec, SN_COLL_BCAST, "multi", NULL), 2 * r->h);
        assert_int_equal(steps_of(exp, SN_COLL_BCAST, "multi", NULL), 2 * r->h);
        assert_int_equal(steps_of(spec, SN_COLL_SCATTER, "multi", NULL), r->ms);
        assert_int_equal(steps_of(spec, SN_COLL_GATHER, "multi", NULL), r->ms);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", NULL), r->ms);
        assert_int_equal(steps_of(exp, SN_COLL_MNB, "multi", NULL), r->ms);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", "mnb-fattree-qf-serial"), r->qfs);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", "mnb-fattree-qf"), r->qfp);
        assert_int_equal(steps_of(exp, SN_COLL_MNB, "multi", "mnb-fattree-qf"), r->qfp);
        assert_int_equal(steps_of(spec, SN_COLL_TE, "multi", "te-fattree-serial"), r->tcs);
        assert_int_equal(steps_of(spec, SN_COLL_TE, "multi", NULL), r->tcp);
        assert_int_equal(steps_of(exp, SN_COLL_TE, "multi", "te-fattree-serial"), r->tes);
        assert_int_equal(steps_of(exp, SN_COLL_TE, "multi", NULL), r->tep);
    }
}

/* k = 5, 6, 7 with h = 2: the closed forms (Theorems 6.1-6.3, 6.9, the corrected single-port TE,
 * (6.3), (6.5)). */
static void test_k5_to_k7(void **st)
{
    (void) st;
    char spec[64], exp[64];
    for (uint64_t k = 5; k <= 7; k++) {
        uint64_t n = k * k, h = 2;
        snprintf(spec, sizeof spec, "fattree:%llu:2", (unsigned long long) k);
        snprintf(exp, sizeof exp, "fattree:%llu:2:exp", (unsigned long long) k);
        uint64_t x1 = 2 * k * (n - k) + (k - 1) * k, x2 = n * (n - n / k);
        uint64_t te = x1 + 1 > x2 + 3 ? x1 + 1 : x2 + 3;
        assert_int_equal(steps_of(spec, SN_COLL_BCAST, "single", NULL), (k + 1) * h - 1);
        assert_int_equal(steps_of(spec, SN_COLL_SCATTER, "single", NULL), n);
        assert_int_equal(steps_of(spec, SN_COLL_GATHER, "single", NULL), n);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "single", NULL), k * n + 1);
        assert_int_equal(steps_of(spec, SN_COLL_TE, "single", NULL), te);
        assert_int_equal(te, (k - 1) * n * n / k + 2 * h - 1); /* erratum E3: the root's load */
        assert_int_equal(steps_of(spec, SN_COLL_BCAST, "multi", NULL), 2 * h);
        assert_int_equal(steps_of(spec, SN_COLL_SCATTER, "multi", NULL), n);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", NULL), n);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", "mnb-fattree-qf"), n + 2 * h - 2);
        assert_int_equal(steps_of(spec, SN_COLL_MNB, "multi", "mnb-fattree-qf-serial"),
                         n + h * h - 1);
        /* (6.5): c_i = 1: (n^2-1)(k-1)/(k^2-1) + 2h - 1; c_i = k^(i-1): n + 2h - 2 */
        assert_int_equal(steps_of(spec, SN_COLL_TE, "multi", NULL),
                         (n * n - 1) * (k - 1) / (k * k - 1) + 2 * h - 1);
        assert_int_equal(steps_of(exp, SN_COLL_TE, "multi", NULL), n + 2 * h - 2);
    }
}

/* Multiport total exchange with intermediate and arbitrary capacities (effective capacities when
 * c_(i+1) > k c_i: erratum of (6.5)). */
static void test_te_capacities(void **st)
{
    (void) st;
    static const struct {
        const char *spec;
        uint64_t serial, pipelined;
    } cases[] = {
        {"fattree:2:3:1,1,2", 22, 18},       {"fattree:2:4:1,1,2,2", 61, 52},
        {"fattree:2:5:1,1,2,2,4", 134, 118}, {"fattree:2:6:1,1,2,2,4,4", 401, 376},
        {"fattree:3:3:1,1,3", 83, 79},       {"fattree:4:3:1,1,4", 252, 248},
        {"fattree:2:3:1,2,4", 16, 12},       {"fattree:2:3:1,2,3", 18, 14},
        {"fattree:2:3:1,3,4", 16, 12},       {"fattree:2:3:1,1,4", 22, 18},
        {"fattree:8:2:1,8", 67, 66},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(steps_of(cases[i].spec, SN_COLL_TE, "multi", "te-fattree-serial"),
                         cases[i].serial);
        assert_int_equal(steps_of(cases[i].spec, SN_COLL_TE, "multi", NULL), cases[i].pipelined);
        /* the queue-free and flooding MB do not depend on capacities */
        steps_of(cases[i].spec, SN_COLL_MNB, "multi", "mnb-fattree-qf");
        steps_of(cases[i].spec, SN_COLL_MNB, "multi", NULL);
    }
}

/* Broadcast, scatter and gather never make a node receive twice in a step, so they also run in
 * the single-port model with one reception per step; from every leaf of fattree:3:2. */
static void test_roots_and_rx_one(void **st)
{
    (void) st;
    static const sn_coll_t colls[] = {SN_COLL_BCAST, SN_COLL_SCATTER, SN_COLL_GATHER};
    sn_topo_t *t = tu_topo("fattree:3:2");
    for (uint32_t root = 0; root < 9; root++) {
        for (size_t c = 0; c < 3; c++) {
            for (int rx = 0; rx < 2; rx++) {
                sn_params_t p = tu_params(colls[c], "single", rx ? "any" : "one", "full");
                p.root = root;
                tu_run_t r = tu_sim(t, &p, NULL);
                tu_assert_rc(r.rc, 0);
                assert_true(r.res.verified);
                assert_int_equal(r.res.steps, (uint64_t) r.predicted);
                assert_int_equal(r.res.steps, c == 0 ? 7 : 9);
            }
        }
    }
    sn_topo_free(t);
}

/* ---- worked examples, slot by slot ------------------------------------------------------- */

static void test_trace_bcast(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:2", SN_COLL_BCAST, "single", NULL, 0, &r, NULL);
    static const char *const want[] = {"1:L0>R1.0:0>*",   "2:R1.0>R2.0:0>*", "3:R1.0>L1:0>*",
                                       "3:R2.0>R1.1:0>*", "4:R1.1>L2:0>*",   "5:R1.1>L3:0>*"};
    expect_events(&r, want, 6, 1, "broadcast k=2 n=4");
    rec_free(&r);
    /* k=3, n=9: R1.0 sends up at step 2, then to L1 and L2; the root serves R1.1 and R1.2 at steps
     * 3-4; R1.2 serves L6-L8 at steps 5-7 */
    run("fattree:3:2", SN_COLL_BCAST, "single", NULL, 0, &r, NULL);
    static const char *const want3[] = {"2:R1.0>R2.0:0>*", "3:R1.0>L1:0>*",   "4:R1.0>L2:0>*",
                                        "3:R2.0>R1.1:0>*", "4:R2.0>R1.2:0>*", "5:R1.2>L6:0>*",
                                        "6:R1.2>L7:0>*",   "7:R1.2>L8:0>*"};
    expect_events(&r, want3, 8, 0, "broadcast k=3 n=9");
    rec_free(&r);
}

static void test_trace_scatter_gather(void **st)
{
    (void) st;
    rec_t r;
    /* scatter k=2 n=8 from 0: order 4,5,6,7,2,3,1; arrivals L4@6 L5@7 L6@8 L7@9 L2@8 L3@9 L1@8 */
    run("fattree:2:3", SN_COLL_SCATTER, "single", NULL, 0, &r, NULL);
    static const char *const want[] = {
        "1:L0>R1.0:0>4", "2:L0>R1.0:0>5", "3:L0>R1.0:0>6", "4:L0>R1.0:0>7", "5:L0>R1.0:0>2",
        "6:L0>R1.0:0>3", "7:L0>R1.0:0>1", "6:R1.2>L4:0>4", "7:R1.2>L5:0>5", "8:R1.3>L6:0>6",
        "9:R1.3>L7:0>7", "8:R1.1>L2:0>2", "9:R1.1>L3:0>3", "8:R1.0>L1:0>1"};
    expect_events(&r, want, 14, 0, "scatter k=2 n=8");
    rec_free(&r);
    /* gather k=2 n=4 into 0: L3 sends at 1, L1 and L2 at 2; 1>0@3, 3>0@4, 2>0@5 */
    run("fattree:2:2", SN_COLL_GATHER, "single", NULL, 0, &r, NULL);
    static const char *const wantg[] = {"1:L3>R1.1:3>0", "2:L1>R1.0:1>0", "2:L2>R1.1:2>0",
                                        "3:R1.0>L0:1>0", "4:R1.0>L0:3>0", "5:R1.0>L0:2>0"};
    expect_events(&r, wantg, 6, 0, "gather k=2 n=4");
    rec_free(&r);
}

/* Fig. 6.7: single-port multinode broadcast on k=2, n=4, all 24 transmissions. */
static void test_trace_fig67(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:2", SN_COLL_MNB, "single", NULL, 0, &r, NULL);
    static const char *const want[] = {
        "1:L0>R1.0:0>*",   "1:L1>R1.0:1>*",   "1:L2>R1.1:2>*",   "1:L3>R1.1:3>*",
        "2:R1.0>R2.0:0>*", "2:R1.1>R2.0:2>*", "3:R1.0>R2.0:1>*", "3:R1.1>R2.0:3>*",
        "3:R2.0>R1.0:2>*", "4:R1.0>L0:1>*",   "4:R1.1>L2:3>*",   "4:R2.0>R1.1:0>*",
        "5:R1.0>L1:0>*",   "5:R1.1>L3:2>*",   "5:R2.0>R1.0:3>*", "6:R1.0>L0:2>*",
        "6:R1.1>L2:0>*",   "6:R2.0>R1.1:1>*", "7:R1.0>L1:2>*",   "7:R1.1>L3:0>*",
        "8:R1.0>L0:3>*",   "8:R1.1>L2:1>*",   "9:R1.0>L1:3>*",   "9:R1.1>L3:1>*"};
    expect_events(&r, want, 24, 1, "Fig. 6.7");
    rec_free(&r);
}

/* Fig. 6.9: multiport flooding on k=2, n=4. */
static void test_trace_fig69(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:2", SN_COLL_MNB, "multi", NULL, 0, &r, NULL);
    static const char *const want[] = {
        "1:L0>R1.0:0>*",   "1:L1>R1.0:1>*",   "1:L2>R1.1:2>*",   "1:L3>R1.1:3>*",
        "2:R1.0>R2.0:0>*", "2:R1.0>L0:1>*",   "2:R1.0>L1:0>*",   "2:R1.1>R2.0:2>*",
        "2:R1.1>L2:3>*",   "2:R1.1>L3:2>*",   "3:R1.0>R2.0:1>*", "3:R1.1>R2.0:3>*",
        "3:R2.0>R1.0:2>*", "3:R2.0>R1.1:0>*", "4:R1.0>L0:2>*",   "4:R1.0>L1:2>*",
        "4:R1.1>L2:0>*",   "4:R1.1>L3:0>*",   "4:R2.0>R1.0:3>*", "4:R2.0>R1.1:1>*",
        "5:R1.0>L0:3>*",   "5:R1.0>L1:3>*",   "5:R1.1>L2:1>*",   "5:R1.1>L3:1>*"};
    expect_events(&r, want, 24, 1, "Fig. 6.9");
    rec_free(&r);
}

/* Queue-free MB, k=2 n=4 pipelined: leaves 0 and 2 inject at step 1, 1 and 3 at step 2; the root
 * swaps m0/m2 at step 3 and m1/m3 at step 4; phase 1 injects at step 5, level-1 nodes swap at 6.
 */
static void test_trace_queue_free(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:2", SN_COLL_MNB, "multi", "mnb-fattree-qf", 0, &r, NULL);
    static const char *const want[] = {
        "1:L0>R1.0:0>*",   "1:L2>R1.1:2>*",   "2:L1>R1.0:1>*",   "2:L3>R1.1:3>*",
        "3:R2.0>R1.0:2>*", "3:R2.0>R1.1:0>*", "4:R2.0>R1.0:3>*", "4:R2.0>R1.1:1>*",
        "5:L0>R1.0:0>*",   "5:L1>R1.0:1>*",   "5:L2>R1.1:2>*",   "5:L3>R1.1:3>*",
        "6:R1.0>L0:1>*",   "6:R1.0>L1:0>*",   "6:R1.1>L2:3>*",   "6:R1.1>L3:2>*"};
    expect_events(&r, want, 16, 0, "Fig. 6.10 k=2 n=4");
    rec_free(&r);
    /* k=3 n=9: phase 0 injects at steps 1, 3, 5 (one leaf per subtree); the root's triple at step
     * 3: m3 to R1.0, m0 to R1.1 and R1.2; step 4: m6 to R1.0 and R1.1, m3 to R1.2 */
    run("fattree:3:2", SN_COLL_MNB, "multi", "mnb-fattree-qf", 0, &r, NULL);
    static const char *const want3[] = {"1:L0>R1.0:0>*",   "3:L1>R1.0:1>*",   "5:L2>R1.0:2>*",
                                        "3:R2.0>R1.0:3>*", "3:R2.0>R1.1:0>*", "3:R2.0>R1.2:0>*",
                                        "4:R2.0>R1.0:6>*", "4:R2.0>R1.1:6>*", "4:R2.0>R1.2:3>*",
                                        "9:L4>R1.1:4>*"};
    expect_events(&r, want3, 10, 0, "Fig. 6.10 k=3 n=9");
    rec_free(&r);
}

/* Single-port total exchange k=2 n=4 (Fig. 6.8): the first steps, and the loads: the level-1
 * routers send 10 messages each, the root 8. */
static void test_trace_te_single(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:2", SN_COLL_TE, "single", NULL, 0, &r, NULL);
    static const char *const want[] = {
        "1:L0>R1.0:0>2",   "1:L1>R1.0:1>2",   "1:L2>R1.1:2>0",   "1:L3>R1.1:3>0",
        "2:L0>R1.0:0>3",   "2:L1>R1.0:1>3",   "2:L2>R1.1:2>1",   "2:L3>R1.1:3>1",
        "2:R1.0>R2.0:0>2", "2:R1.1>R2.0:2>0", "3:L0>R1.0:0>1",   "3:L1>R1.0:1>0",
        "3:L2>R1.1:2>3",   "3:L3>R1.1:3>2",   "3:R1.0>R2.0:1>2", "3:R1.1>R2.0:3>0",
        "3:R2.0>R1.1:0>2", "4:R1.0>R2.0:0>3", "4:R1.1>R2.0:2>1", "4:R2.0>R1.0:2>0",
        "5:R1.0>R2.0:1>3", "5:R1.1>R2.0:3>1", "5:R2.0>R1.1:1>2", "6:R2.0>R1.0:3>0",
        "7:R2.0>R1.1:0>3", "8:R2.0>R1.0:2>1", "9:R2.0>R1.1:1>3", "10:R2.0>R1.0:3>1"};
    expect_events(&r, want, sizeof want / sizeof want[0], 0, "Fig. 6.8 k=2 n=4");
    assert_int_equal(r.sends[4], 10); /* R1.0 */
    assert_int_equal(r.sends[5], 10); /* R1.1 */
    assert_int_equal(r.sends[6], 8);  /* the root */
    rec_free(&r);
    /* k=3 n=9: 57 steps (not the printed 43); the root sends 54 messages, the last at step 56 */
    int64_t pred;
    run("fattree:3:2", SN_COLL_TE, "single", NULL, 0, &r, &pred);
    assert_int_equal(pred, 57);
    assert_int_equal(r.sends[12], 54);
    rec_free(&r);
}

/* Multiport total exchange k=2 n=8 c=(1,2,4): step 1 sends 0>4 1>5 2>6 3>7 4>0 5>1 6>2 7>3; every
 * leaf receives one message per step in steps 6..12. */
static void test_trace_te_multi(void **st)
{
    (void) st;
    rec_t r;
    run("fattree:2:3:1,2,4", SN_COLL_TE, "multi", NULL, 0, &r, NULL);
    char ev[80];
    for (uint32_t j = 0; j < 8; j++) {
        snprintf(ev, sizeof ev, "1:L%u>R1.%u:%u>%u", j, j / 2, j, (j + 4) % 8);
        if (!has(&r, ev))
            fail_msg("missing %s", ev);
    }
    for (uint32_t j = 0; j < 8; j++) {
        uint32_t got[16] = {0};
        for (size_t i = 0; i < r.n; i++) {
            unsigned long long slot;
            unsigned src, dst;
            char to[16];
            if (sscanf(r.ev[i], "%llu:%*[^>]>%15[^:]:%u>%u", &slot, to, &src, &dst) == 4 &&
                dst == j && to[0] == 'L')
                got[slot]++;
        }
        for (uint32_t s = 1; s <= 12; s++)
            assert_int_equal(got[s], s >= 6 ? 1 : 0);
    }
    rec_free(&r);
}

/* ---- queues (max_queue: packets waiting at a node after its sends) ------------------------- */

static uint64_t queue_of(const char *spec, sn_coll_t coll, const char *ports, const char *algo,
                         char *node, size_t cap)
{
    rec_t r;
    sn_sim_result_t res = run(spec, coll, ports, algo, 0, &r, NULL);
    name(r.t, res.max_queue_node, node, cap);
    rec_free(&r);
    return res.max_queue;
}

/* Fig. 6.6 "requires large queues": the largest backlog, at the root or a child of it, is the
 * reference simulation's "total DOWN backlog" less one (it counts before the step's send);
 * flooding (section 6.3.2.1) holds (k-2) k^(h-1) per root link; the queue-free MB holds only the
 * copies a top still owes (k (k-1) received, k sent: k (k-2)); Fig. 6.11 never queues. */
static void test_queues(void **st)
{
    (void) st;
    static const struct {
        const char *spec;
        uint64_t mnb_single;
    } mb[] = {{"fattree:2:5", 31},  {"fattree:3:2", 15}, {"fattree:3:3", 45},
              {"fattree:3:4", 135}, {"fattree:4:2", 44}, {"fattree:4:3", 176},
              {"fattree:8:2", 440}, {"fattree:2:2", 3},  {"fattree:2:3", 7}};
    char node[32];
    for (size_t i = 0; i < sizeof mb / sizeof mb[0]; i++)
        assert_int_equal(queue_of(mb[i].spec, SN_COLL_MNB, "single", NULL, node, sizeof node),
                         mb[i].mnb_single);
    assert_int_equal(queue_of("fattree:3:3", SN_COLL_MNB, "multi", NULL, node, sizeof node), 27);
    assert_string_equal(node, "R3.0"); /* the root: 9 on each of its 3 links */
    for (uint32_t k = 2; k <= 8; k *= 2) {
        char spec[32];
        snprintf(spec, sizeof spec, "fattree:%u:2", k);
        assert_int_equal(queue_of(spec, SN_COLL_MNB, "multi", "mnb-fattree-qf", node, sizeof node),
                         k * (k - 2));
    }
    assert_int_equal(
        queue_of("fattree:3:3", SN_COLL_MNB, "multi", "mnb-fattree-qf", node, sizeof node), 3);
    static const char *const te[] = {
        "fattree:2:5",       "fattree:2:5:exp", "fattree:3:3",       "fattree:3:3:exp",
        "fattree:4:3:1,1,4", "fattree:8:2:exp", "fattree:2:3:1,1,4", "fattree:2:6:1,1,2,2,4,4"};
    for (size_t i = 0; i < sizeof te / sizeof te[0]; i++) {
        assert_int_equal(queue_of(te[i], SN_COLL_TE, "multi", NULL, node, sizeof node), 0);
        assert_int_equal(
            queue_of(te[i], SN_COLL_TE, "multi", "te-fattree-serial", node, sizeof node), 0);
    }
    /* the generic router reports its queues too: a router of fattree:2:3 receives up to three
     * packets per step in single-port and sends one */
    sn_topo_t *t = tu_topo("fattree:2:3");
    sn_params_t p = tu_params(SN_COLL_TE, "single", "any", "full");
    tu_run_t r = tu_sim(t, &p, "te-route");
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.max_queue >= 2);
    assert_false(sn_topo_is_proc(t, r.res.max_queue_node));
    sn_topo_free(t);
    /* scatter and gather forward at once */
    assert_int_equal(queue_of("fattree:3:3", SN_COLL_SCATTER, "single", NULL, node, sizeof node),
                     0);
    assert_int_equal(queue_of("fattree:3:3", SN_COLL_GATHER, "multi", NULL, node, sizeof node), 0);
}

/* ---- lower bounds --------------------------------------------------------------------------- */

/* The value of bound `bname` for (spec, coll, ports), or -1 if it is not reported. */
static int64_t bound(const char *spec, sn_coll_t coll, const char *ports, const char *bname,
                     int64_t *best)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(coll, ports, strcmp(ports, "single") == 0 ? "any" : "one", "full");
    sn_bounds_t b;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_bounds(t, &p, &b, &err), 0);
    sn_topo_free(t);
    if (best)
        *best = b.best;
    for (size_t i = 0; i < b.count; i++)
        if (strcmp(b.b[i].name, bname) == 0)
            return b.b[i].value;
    return -1;
}

/* Every single-port algorithm meets its bound (Theorems 6.1-6.3, the corrected 6.6), and so do
 * multiport scatter, gather and flooding MB (Theorems 6.2, 6.9); the multiport TE bounds take the
 * values of (6.4), its per-level form and the corrected hole bound, and Fig. 6.11 meets the hole
 * bound with exponential capacities for h = 2, k >= 4. */
static void test_bounds(void **st)
{
    (void) st;
    static const struct {
        uint32_t k, h;
        int64_t te64_const, level_exp, hole;
    } want[] = {
        {2, 2, 7, 5, 5},      {2, 3, 21, 9, 11},   {2, 4, 71, 17, 19},  {2, 5, 265, 33, 37},
        {2, 6, 1035, 65, 70}, {3, 2, 21, 9, 10},   {3, 3, 167, 27, 30}, {3, 4, 1465, 81, 85},
        {4, 2, 51, 16, 18},   {4, 3, 773, 64, 67}, {8, 2, 451, 64, 66},
    };
    static const sn_coll_t colls[] = {SN_COLL_BCAST, SN_COLL_SCATTER, SN_COLL_GATHER, SN_COLL_MNB,
                                      SN_COLL_TE};
    char spec[64], exp[64];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(spec, sizeof spec, "fattree:%u:%u", want[i].k, want[i].h);
        snprintf(exp, sizeof exp, "fattree:%u:%u:exp", want[i].k, want[i].h);
        int64_t best;
        for (size_t c = 0; c < 5; c++) {
            uint64_t steps = steps_of(spec, colls[c], "single", NULL);
            bound(spec, colls[c], "single", "-", &best);
            if ((int64_t) steps != best)
                fail_msg("%s single %s: %llu steps, bound %lld: not optimal", spec,
                         sn_coll_name(colls[c]), (unsigned long long) steps, (long long) best);
        }
        for (size_t c = 0; c < 4; c++) {
            uint64_t steps = steps_of(spec, colls[c], "multi", NULL);
            bound(spec, colls[c], "multi", "-", &best);
            assert_int_equal(steps, best);
        }
        assert_int_equal(bound(spec, SN_COLL_TE, "multi", "6.4-level", NULL), want[i].te64_const);
        assert_int_equal(bound(exp, SN_COLL_TE, "multi", "6.4-level", NULL), want[i].level_exp);
        assert_int_equal(bound(spec, SN_COLL_TE, "multi", "hole", NULL), want[i].hole);
        assert_int_equal(bound(exp, SN_COLL_TE, "multi", "hole", NULL), want[i].hole);
        uint64_t te = steps_of(exp, SN_COLL_TE, "multi", NULL);
        bound(exp, SN_COLL_TE, "multi", "-", &best);
        if (want[i].h == 2 && want[i].k >= 4)
            assert_int_equal(te, best); /* Fig. 6.11 optimal */
        else
            assert_true((int64_t) te > best);
    }
    /* the root load of single-port TE on fattree:4:3 */
    assert_int_equal(bound("fattree:4:3", SN_COLL_TE, "single", "root-load", NULL), 3077);
    assert_int_equal(bound("fattree:4:3", SN_COLL_TE, "single", "te-level", NULL), 1731);
    assert_int_equal(bound("fattree:2:3", SN_COLL_BCAST, "single", "thm6.1", NULL), 8);
}

/* ---- refusals ---------------------------------------------------------------------------- */

static void test_refusals(void **st)
{
    (void) st;
    static const struct {
        const char *spec, *algo, *ports;
        sn_coll_t coll;
        uint32_t msgs;
        const char *needs;
    } cases[] = {
        {"ring:8", "te-fattree", "multi", SN_COLL_TE, 1, "fat tree"},
        {"fattree:4:1", "mnb-fattree", "multi", SN_COLL_MNB, 1, "H >= 2"},
        {"fattree:2:3", "bcast-fattree", "multi", SN_COLL_BCAST, 2, "msgs 1"},
        {"fattree:2:3:2,2,2", "scatter-fattree", "multi", SN_COLL_SCATTER, 1, "c_1 = 1"},
        {"fattree:2:3", "mnb-fattree-qf", "single", SN_COLL_MNB, 1, "port"},
        {"fattree:2:3", "te-fattree-serial", "single", SN_COLL_TE, 1, "port"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(cases[i].coll, cases[i].ports, "any", "full");
        if (strcmp(cases[i].ports, "multi") == 0)
            p.pm.rx = SN_RX_ONE;
        p.msgs = cases[i].msgs;
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(cases[i].algo, t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        if (strstr(err.msg, cases[i].needs) == NULL)
            fail_msg("%s on %s: message '%s' should say '%s'", cases[i].algo, cases[i].spec,
                     err.msg, cases[i].needs);
        sn_topo_free(t);
    }
    /* single-port MB and TE need any receptions: with one, the fat-tree algorithms do not apply */
    sn_topo_t *t = tu_topo("fattree:2:3");
    sn_params_t p = tu_params(SN_COLL_MNB, "single", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("mnb-fattree", t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),           cmocka_unit_test(test_k5_to_k7),
        cmocka_unit_test(test_te_capacities),    cmocka_unit_test(test_roots_and_rx_one),
        cmocka_unit_test(test_trace_bcast),      cmocka_unit_test(test_trace_scatter_gather),
        cmocka_unit_test(test_trace_fig67),      cmocka_unit_test(test_trace_fig69),
        cmocka_unit_test(test_trace_queue_free), cmocka_unit_test(test_trace_te_single),
        cmocka_unit_test(test_trace_te_multi),   cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_queues),           cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
