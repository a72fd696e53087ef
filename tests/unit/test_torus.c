/* Unit tests of the torus framework of Fragopoulou and Akl (core/algo/engine/torus_necklace.c) and
 * of the all-port algorithms built on it (bcast-bst, mnb-bsg, scatter-bsg, gather-bsg, te-mns):
 *  - the definitions' worked examples (translation, rotation, generator, period, the Lemma 3
 *    edge chain), the necklace lists of MT_{3,3} and MT_{3,4}, the BST and the six BSG trees of
 *    MT_{3,3} (Figs. 2-3) and the BSG of MT_{2,4} and MT_{1,4};
 *  - the necklace counts and the splitting modulus from the labels against the closed form for
 *    n <= 4, k <= 9; the BSG trees are shortest-path and pairwise directed-edge-disjoint;
 *  - the algorithms in the simulator for n = 1..3, k = 3..8 (n = 4 for k <= 4) at M = 1, L, 2L
 *    and one M not divisible by L: verified, steps == predicted, steps >= every lower bound, and
 *    the paper's counts exactly when L | M.
 * Labels are written as in the paper, digit n-1 first ("231" in MT_{3,4}). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/torus_necklace.h"
#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static sn_tnk_t *tk_new(uint32_t n, uint32_t k)
{
    sn_err_t err = {0};
    sn_tnk_t *tk = sn__tnk_new(n, k, &err);
    if (tk == NULL)
        fail_msg("sn__tnk_new(%u, %u): %s", n, k, err.msg);
    return tk;
}

/* The node id of a paper label ("231": digit 2 is v_2). */
static uint32_t lab(const sn_tnk_t *tk, const char *s)
{
    uint32_t v = 0;
    assert_int_equal(strlen(s), tk->n);
    for (const char *c = s; *c; c++)
        v = v * tk->k + (uint32_t) (*c - '0');
    return v;
}

static void test_definitions(void **state)
{
    (void) state;
    sn_tnk_t *tk = tk_new(3, 4);
    /* Def. 1 */
    assert_int_equal(sn__tnk_trans(tk, lab(tk, "132"), lab(tk, "231"), 1), lab(tk, "323"));
    assert_int_equal(sn__tnk_trans(tk, lab(tk, "132"), lab(tk, "231"), 0), lab(tk, "103"));
    /* Def. 2 */
    assert_int_equal(sn__tnk_rot(tk, lab(tk, "321"), 1), lab(tk, "332"));
    assert_int_equal(sn__tnk_rot(tk, lab(tk, "012"), 1), lab(tk, "201"));
    /* Def. 4 and the unfolded necklace of 230 */
    const char *neck[] = {"230", "023", "102", "210", "021", "302"};
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t v = lab(tk, neck[i]);
        assert_int_equal(sn__tnk_rot(tk, lab(tk, "230"), i), v);
        assert_int_equal(tk->gen[v], lab(tk, "230"));
        assert_int_equal(tk->D[v], i);
        assert_int_equal(tk->P[v], 6);
    }
    assert_int_equal(tk->P[lab(tk, "131")], 2);
    sn__tnk_free(tk);
    tk = tk_new(6, 4);
    assert_int_equal(tk->P[lab(tk, "311331")], 4);
    sn__tnk_free(tk);
    /* Lemma 3 in MT_{2,4}: (01,31) -> (30,33) -> (03,13) -> (10,11), dimensions g_1^-1, g_0^-1,
     * g_1^+1, g_0^+1, i.e. ports 1, 3, 0, 2 */
    tk = tk_new(2, 4);
    const char *chain[][2] = {{"01", "31"}, {"30", "33"}, {"03", "13"}, {"10", "11"}};
    const uint32_t ports[] = {1, 3, 0, 2};
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t a = sn__tnk_rot(tk, lab(tk, "01"), i), b = sn__tnk_rot(tk, lab(tk, "31"), i);
        assert_int_equal(a, lab(tk, chain[i][0]));
        assert_int_equal(b, lab(tk, chain[i][1]));
        assert_int_equal(sn__tnk_port(tk, a, b), ports[i]);
    }
    sn__tnk_free(tk);
}

/* Tables 2 and 3: every necklace from its generator in rotation order. */
static void check_necklaces(uint32_t n, uint32_t k, const char *const *list, size_t count)
{
    sn_tnk_t *tk = tk_new(n, k);
    assert_int_equal(tk->ngen + 1, count);
    for (size_t i = 0; i < count; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", list[i]);
        uint32_t g = SN_TNK_NONE, r = 0;
        for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "), r++) {
            uint32_t v = lab(tk, tok);
            if (g == SN_TNK_NONE)
                g = v;
            assert_int_equal(tk->gen[v], g);
            assert_int_equal(tk->D[v], r);
            assert_int_equal(sn__tnk_rot(tk, g, r), v);
        }
        assert_int_equal(tk->P[g], r);
    }
    sn__tnk_free(tk);
}

static void test_necklace_tables(void **state)
{
    (void) state;
    const char *mt33[] = {"000",
                          "200 020 002 100 010 001",
                          "220 022 102 110 011 201",
                          "210 021 202 120 012 101",
                          "222 122 112 111 211 221",
                          "212 121"};
    check_necklaces(3, 3, mt33, NELEMS(mt33));
    const char *mt34[] = {"000",
                          "300 030 003 100 010 001",
                          "200 020 002",
                          "330 033 103 110 011 301",
                          "310 031 303 130 013 101",
                          "320 032 203 120 012 201",
                          "230 023 102 210 021 302",
                          "333 133 113 111 311 331",
                          "313 131",
                          "220 022 202",
                          "233 123 112 211 321 332",
                          "231 323 132 213 121 312",
                          "223 122 212 221 322 232",
                          "222"};
    check_necklaces(3, 4, mt34, NELEMS(mt34));
}

/* Figs. 2-3: "parent>child" edges of tree i. */
static void check_tree(const sn_tnk_t *tk, uint32_t i, const char *edges)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", edges);
    uint32_t count = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "), count++) {
        char *gt = strchr(tok, '>');
        *gt = '\0';
        uint32_t a = lab(tk, tok), b = lab(tk, gt + 1);
        assert_true(sn__tnk_in_tree(tk, b, i));
        assert_int_equal(sn__tnk_tree_parent(tk, b, i), a);
        assert_int_equal(sn__tnk_next_hop(tk, a, b, i), b);
    }
    uint32_t members = 0;
    for (uint32_t w = 1; w < tk->N; w++)
        members += (uint32_t) sn__tnk_in_tree(tk, w, i);
    assert_int_equal(members, count);
}

static void test_figures(void **state)
{
    (void) state;
    sn_tnk_t *tk = tk_new(3, 3);
    const char *bsg33[] = {
        "000>200 200>210 200>220 210>212 220>222", "000>020 020>021 020>022 021>121 022>122",
        "000>002 002>202 002>102 202>212 102>112", "000>100 100>120 100>110 120>121 110>111",
        "000>010 010>012 010>011 012>212 011>211", "000>001 001>101 001>201 101>121 201>221"};
    const uint32_t root_port[] = {1, 3, 5, 0, 2, 4}; /* g_2^-1, g_1^-1, g_0^-1, g_2^+1, ... */
    for (uint32_t i = 0; i < 6; i++) {
        check_tree(tk, i, bsg33[i]);
        assert_int_equal(sn__tnk_port(tk, 0, sn__tnk_rot(tk, lab(tk, "200"), i)), root_port[i]);
    }
    /* the BST of MT_{3,3}, child<parent */
    const char *bst =
        "001<000 002<000 010<000 020<000 100<000 200<000 011<010 012<010 021<020 022<020 101<001 "
        "102<002 110<100 120<100 201<001 202<002 210<200 220<200 111<110 112<102 121<021 122<022 "
        "211<011 212<210 221<201 222<220";
    char buf[512];
    snprintf(buf, sizeof buf, "%s", bst);
    uint32_t count = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "), count++) {
        char *lt = strchr(tok, '<');
        *lt = '\0';
        assert_int_equal(tk->bst_parent[lab(tk, tok)], lab(tk, lt + 1));
    }
    assert_int_equal(count, 26);
    assert_int_equal(tk->norphans, 0);
    sn__tnk_free(tk);

    tk = tk_new(2, 4);
    check_tree(tk, 0, "00>30 30>20 30>33 20>23 23>22");
    check_tree(tk, 1, "00>03 03>02 03>13 02>12 12>22");
    check_tree(tk, 2, "00>10 10>20 10>11 20>21 21>22");
    check_tree(tk, 3, "00>01 01>02 01>31 02>32 32>22");
    /* erratum B: 21 (D = 2) would hang from 20 (D = 0); the repair gives 21 -> 11, 32 -> 31 */
    assert_int_equal(tk->norphans, 2);
    assert_int_equal(tk->bst_parent[lab(tk, "21")], lab(tk, "11"));
    assert_int_equal(tk->bst_parent[lab(tk, "32")], lab(tk, "31"));
    sn__tnk_free(tk);

    tk = tk_new(1, 4);
    check_tree(tk, 0, "0>3 3>2");
    check_tree(tk, 1, "0>1 1>2");
    assert_int_equal(tk->P[2], 1);
    sn__tnk_free(tk);
}

/* Closed form against the labels; BST and BSG structure. */
static void test_counts_and_structure(void **state)
{
    (void) state;
    for (uint32_t n = 1; n <= 4; n++)
        for (uint32_t k = 3; k <= 9; k++) {
            sn_tnk_t *tk = tk_new(n, k);
            sn_tnk_counts_t a = sn__tnk_counts(n, k), b = sn__tnk_counts_of(tk);
            assert_int_equal(a.necklaces, b.necklaces);
            assert_int_equal(a.nonfull, b.nonfull);
            assert_int_equal(a.full, b.full);
            assert_int_equal(a.L, b.L);
            /* BST: shortest-path, root subtree i = {D = i}, orphans only for even k */
            uint32_t two_n = 2 * n, *sub = calloc(two_n, sizeof *sub);
            for (uint32_t w = 1; w < tk->N; w++) {
                uint32_t p = tk->bst_parent[w];
                assert_int_not_equal(sn__tnk_port(tk, p, w), SN_TNK_NONE);
                assert_int_equal(tk->dist[p] + 1, tk->dist[w]);
                assert_true(p == 0 || tk->D[p] == tk->D[w]);
                sub[tk->D[w]]++;
            }
            uint32_t mn = UINT32_MAX, mx = 0;
            for (uint32_t i = 0; i < two_n; i++) {
                mn = sub[i] < mn ? sub[i] : mn;
                mx = sub[i] > mx ? sub[i] : mx;
            }
            assert_int_equal(mn, a.full);          /* Table 4: min subtree = full necklaces */
            assert_int_equal(mx, a.necklaces - 1); /* max subtree = nonzero necklaces */
            if (k % 2 == 1)
                assert_int_equal(tk->norphans, 0);
            free(sub);
            if (n <= 3 && k <= 8) {
                /* BSG: shortest-path trees, pairwise directed-edge-disjoint, node of period P in
                 * 2n/P trees */
                uint8_t *used = calloc((size_t) tk->N * two_n, 1);
                for (uint32_t w = 1; w < tk->N; w++) {
                    uint32_t in = 0;
                    for (uint32_t i = 0; i < two_n; i++) {
                        uint32_t p = sn__tnk_tree_parent(tk, w, i);
                        if (p == SN_TNK_NONE)
                            continue;
                        in++;
                        assert_int_equal(tk->dist[p] + 1, tk->dist[w]);
                        uint32_t port = sn__tnk_port(tk, p, w);
                        assert_int_not_equal(port, SN_TNK_NONE);
                        assert_int_equal(used[(size_t) p * two_n + port], 0);
                        used[(size_t) p * two_n + port] = 1;
                    }
                    assert_int_equal(in, two_n / tk->P[w]);
                }
                free(used);
            }
            sn__tnk_free(tk);
        }
    /* the splitting modulus table and the necklace counts of the paper's section 5 */
    const uint32_t Ls[3][2] = {{1, 2}, {1, 4}, {3, 6}}; /* n = 1..3, k odd / even */
    for (uint32_t n = 1; n <= 3; n++)
        for (uint32_t k = 3; k <= 8; k++)
            assert_int_equal(sn__tnk_counts(n, k).L, Ls[n - 1][k % 2 == 0]);
    assert_int_equal(sn__tnk_counts(3, 8).necklaces, 90);
    assert_int_equal(sn__tnk_counts(3, 7).necklaces, 60);
    assert_int_equal(sn__tnk_counts(2, 6).necklaces, 11);
    /* Table 4 (n, k, nodes in nonfull necklaces, necklaces, min subtree, max subtree) */
    const uint32_t t4[][6] = {{4, 3, 1, 11, 10, 10},
                              {4, 4, 16, 36, 30, 35},
                              {4, 5, 1, 79, 78, 78},
                              {4, 6, 16, 166, 160, 165},
                              {4, 7, 1, 301, 300, 300},
                              {5, 3, 3, 26, 24, 25},
                              {5, 4, 34, 108, 99, 107},
                              {5, 7, 7, 1684, 1680, 1683},
                              {6, 4, 76, 352, 335, 351},
                              {7, 6, 132, 20008, 19986, 20007},
                              {9, 6, 720, 559928, 559832, 559927}};
    for (size_t i = 0; i < NELEMS(t4); i++) {
        sn_tnk_counts_t c = sn__tnk_counts(t4[i][0], t4[i][1]);
        assert_int_equal(c.nonfull, t4[i][2]);
        assert_int_equal(c.necklaces, t4[i][3]);
        assert_int_equal(c.full, t4[i][4]);
        assert_int_equal(c.necklaces - 1, t4[i][5]);
    }
}

/* ---- the algorithms in the simulator ----------------------------------------------------- */

static uint64_t upow(uint64_t b, uint32_t e)
{
    uint64_t r = 1;
    while (e-- > 0)
        r *= b;
    return r;
}

/* The paper's counts for L | M (Table 1, SNB corrected to M + n floor(k/2) - 1). */
static int64_t paper_steps(const char *algo, uint32_t n, uint32_t k, uint32_t M)
{
    uint64_t N = upow(k, n);
    if (strcmp(algo, "bcast-bst") == 0)
        return (int64_t) (M + n * (k / 2) - 1);
    if (strcmp(algo, "te-mns") == 0)
        return (int64_t) (k % 2 == 0 ? M * upow(k, n + 1) / 8
                                     : M * (k * k - 1) * upow(k, n - 1) / 8);
    return (int64_t) (M * (N - 1) / (2 * n));
}

static void run_case(uint32_t n, uint32_t k, uint32_t M, const char *algo, sn_coll_t coll)
{
    char spec[64];
    size_t len = (size_t) snprintf(spec, sizeof spec, "torus:%u", k);
    for (uint32_t i = 1; i < n; i++)
        len += (size_t) snprintf(spec + len, sizeof spec - len, "x%u", k);
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(coll, "multi", "one", "full");
    p.msgs = M;
    p.root = t->n / 2;
    tu_run_t r = tu_sim(t, &p, algo);
    if (r.rc != 0 || !r.res.verified || (int64_t) r.res.steps != r.predicted ||
        (int64_t) r.res.steps < r.bounds.best)
        fail_msg("%s on %s, M = %u: rc %d (%s), verified %d, steps %llu, predicted %lld, bound "
                 "%lld",
                 algo, spec, M, r.rc, r.err.msg, r.res.verified, (unsigned long long) r.res.steps,
                 (long long) r.predicted, (long long) r.bounds.best);
    /* transmissions: every packet on a shortest path */
    uint64_t N = t->n, sumd = 0;
    for (uint32_t v = 0; v < N; v++) {
        uint32_t d = 0;
        for (uint32_t i = 0, x = v; i < n; i++, x /= k)
            d += x % k < k - x % k ? x % k : k - x % k;
        sumd += d;
    }
    uint64_t want = coll == SN_COLL_BCAST ? M * (N - 1)
                    : coll == SN_COLL_MNB ? M * N * (N - 1)
                    : coll == SN_COLL_TE  ? M * N * sumd
                                          : M * sumd;
    assert_int_equal(r.res.packets, want);
    uint64_t L = sn__tnk_counts(n, k).L;
    if (M % L == 0)
        assert_int_equal(r.res.steps, paper_steps(algo, n, k, M));
    sn_topo_free(t);
}

static void sweep(uint32_t n, uint32_t k)
{
    const char *algos[] = {"bcast-bst", "mnb-bsg", "scatter-bsg", "gather-bsg", "te-mns"};
    const sn_coll_t colls[] = {SN_COLL_BCAST, SN_COLL_MNB, SN_COLL_SCATTER, SN_COLL_GATHER,
                               SN_COLL_TE};
    uint32_t L = (uint32_t) sn__tnk_counts(n, k).L;
    uint32_t Ms[] = {1, L, 2 * L, L + 1};
    for (size_t a = 0; a < NELEMS(algos); a++)
        for (size_t m = 0; m < NELEMS(Ms); m++)
            run_case(n, k, Ms[m], algos[a], colls[a]);
}

static void test_sweep_rings(void **state)
{
    (void) state;
    for (uint32_t k = 3; k <= 8; k++)
        sweep(1, k);
}

static void test_sweep_2d(void **state)
{
    (void) state;
    for (uint32_t k = 3; k <= 8; k++)
        sweep(2, k);
}

static void test_sweep_3d(void **state)
{
    (void) state;
    for (uint32_t k = 3; k <= 8; k++)
        sweep(3, k);
}

static void test_sweep_4d(void **state)
{
    (void) state;
    sweep(4, 3);
    sweep(4, 4);
}

/* The padding variant (L does not divide M), against the values worked out by hand for the
 * paper's ceilings: MT_{2,4} M = 1: 5 and 12 (ceilings 4 and 8); M = 5: 20 and 44 (19, 40);
 * MT_{3,3} M = 1: 5 and 11 (5, 9); MT_{3,4} M = 1: 13 and 42 (11, 32). */
static void test_padding(void **state)
{
    (void) state;
    const struct {
        const char *spec;
        uint32_t M;
        int64_t mnb, te, mnb_bound, te_bound;
    } c[] = {{"torus:4x4", 1, 5, 12, 4, 8},
             {"torus:4x4", 5, 20, 44, 19, 40},
             {"torus:3x3x3", 1, 5, 11, 5, 9},
             {"torus:4x4x4", 1, 13, 42, 11, 32},
             {"torus:6", 1, 3, 6, 3, 5}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        p.msgs = c[i].M;
        tu_run_t r = tu_sim(t, &p, "mnb-bsg");
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, c[i].mnb);
        assert_int_equal(r.bounds.best, c[i].mnb_bound);
        p.coll = SN_COLL_TE;
        r = tu_sim(t, &p, "te-mns");
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, c[i].te);
        assert_int_equal(r.bounds.best, c[i].te_bound);
        sn_topo_free(t);
    }
}

/* Fig. 5 (MNB on MT_{2,4}, M = 4): what source 00 sends, tree by tree, step by step. */
typedef struct {
    uint32_t ev[64][4]; /* slot, from, to, message */
    size_t n;
    const sn_topo_t *t;
} fig5_t;

static void fig5_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port,
                      const sn_packet_t *pkt)
{
    fig5_t *f = ctx;
    if (pkt->src != 0)
        return;
    assert_true(f->n < 64);
    uint32_t *e = f->ev[f->n++];
    e[0] = (uint32_t) slot;
    e[1] = node;
    e[2] = sn_topo_port(f->t, node, port)->peer;
    e[3] = pkt->seq;
}

static void test_fig5(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:4x4");
    sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
    p.msgs = 4;
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("mnb-bsg", t, &p, &a, &plan, NULL, &err), 0);
    fig5_t f = {.t = t};
    sn_sim_opts_t o = {.max_slots = 100, .on_send = fig5_send, .send_ctx = &f};
    sn_sim_result_t res;
    tu_assert_rc(sn_sim_run(t, &p, a, plan, &o, &res, &err), 0);
    a->plan_free(plan);
    /* rows: first step, last step, then per tree "parent>child:first message" (paper labels) */
    const char *rows[] = {
        "1 4 00>30:0 00>03:0 00>10:0 00>01:0", "5 6 30>20:0 03>02:0 10>20:2 01>02:2",
        "7 10 20>23:0 02>12:0 20>21:0 02>32:0", "11 11 23>22:0 12>22:1 21>22:2 32>22:3",
        "12 15 30>33:0 03>13:0 10>11:0 01>31:0"};
    size_t want = 0;
    for (size_t r = 0; r < NELEMS(rows); r++) {
        uint32_t first, last, e[4][3];
        char ab[4][2][3];
        assert_int_equal(sscanf(rows[r], "%u %u %2s>%2s:%u %2s>%2s:%u %2s>%2s:%u %2s>%2s:%u",
                                &first, &last, ab[0][0], ab[0][1], &e[0][2], ab[1][0], ab[1][1],
                                &e[1][2], ab[2][0], ab[2][1], &e[2][2], ab[3][0], ab[3][1],
                                &e[3][2]),
                         14);
        for (uint32_t s = first; s <= last; s++)
            for (uint32_t i = 0; i < 4; i++) {
                uint32_t from = (uint32_t) (ab[i][0][0] - '0') * 4 + (uint32_t) (ab[i][0][1] - '0');
                uint32_t to = (uint32_t) (ab[i][1][0] - '0') * 4 + (uint32_t) (ab[i][1][1] - '0');
                uint32_t x = e[i][2] + (s - first);
                int found = 0;
                for (size_t k = 0; k < f.n; k++)
                    found |= f.ev[k][0] == s && f.ev[k][1] == from && f.ev[k][2] == to &&
                             f.ev[k][3] == x;
                if (!found)
                    fail_msg("Fig. 5: step %u, tree %u: no %u -> %u carrying message %u", s, i,
                             from, to, x);
                want++;
            }
    }
    assert_int_equal(f.n, want);
    assert_int_equal(res.steps, 15);
    sn_topo_free(t);
}

/* auto takes the framework's algorithms where they predict less than what exists, and keeps the
 * others where they are lower or equal (te-a3 on 2-D tori, the balanced scatter tree at M = 1). */
static void test_auto(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        sn_coll_t coll;
        uint32_t M;
        const char *algo;
        int64_t pred;
    } c[] = {{"torus:4x4x4", SN_COLL_TE, 6, "te-mns", 192},
             {"torus:3x3x3", SN_COLL_TE, 3, "te-mns", 27},
             {"torus:4x4", SN_COLL_TE, 4, "te-a3", 32},      /* te-mns ties: 32 */
             {"torus:8x8", SN_COLL_TE, 1, "te-a3", 64},      /* te-mns pads: 72 */
             {"ring:6", SN_COLL_TE, 2, "te-mns", 9},         /* te-ring: 10 */
             {"torus:4x4", SN_COLL_MNB, 1, "mnb-cayley", 4}, /* mnb-bsg pads: 5 */
             {"torus:4x4", SN_COLL_MNB, 4, "mnb-bsg", 15},   /* mnb-cayley: 16 */
             {"torus:4x4x4", SN_COLL_SCATTER, 6, "scatter-bsg", 63},
             {"torus:4x4x4", SN_COLL_GATHER, 6, "gather-bsg", 63},
             {"torus:4x4x4", SN_COLL_SCATTER, 1, "scatter-balanced", 11}};
    for (size_t i = 0; i < NELEMS(c); i++) {
        sn_topo_t *t = tu_topo(c[i].spec);
        sn_params_t p = tu_params(c[i].coll, "multi", "one", "full");
        p.msgs = c[i].M;
        const sn_algo_t *a = NULL;
        int64_t pred = -2;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(NULL, t, &p, &a, NULL, &pred, &err), 0);
        if (strcmp(a->name, c[i].algo) != 0 || pred != c[i].pred)
            fail_msg("%s %s M = %u: auto took %s (%lld), expected %s (%lld)", c[i].spec,
                     sn_coll_name(c[i].coll), c[i].M, a->name, (long long) pred, c[i].algo,
                     (long long) c[i].pred);
        sn_topo_free(t);
    }
    /* refusals name what is needed */
    static const char *const refused[] = {"torus:3x4", "mesh:4x4", "hypercube:3", "ring:3*ring:3"};
    for (size_t i = 0; i < NELEMS(refused); i++) {
        sn_topo_t *t = tu_topo(refused[i]);
        sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
        const sn_algo_t *a = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("mnb-bsg", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
        assert_non_null(strstr(err.msg, "equal sides k >= 3"));
        sn_topo_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions), cmocka_unit_test(test_necklace_tables),
        cmocka_unit_test(test_figures),     cmocka_unit_test(test_counts_and_structure),
        cmocka_unit_test(test_padding),     cmocka_unit_test(test_fig5),
        cmocka_unit_test(test_auto),        cmocka_unit_test(test_sweep_rings),
        cmocka_unit_test(test_sweep_2d),    cmocka_unit_test(test_sweep_3d),
        cmocka_unit_test(test_sweep_4d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
