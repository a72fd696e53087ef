/* Unit tests of the graph properties (core/topo/props.c): degree, diameter, status and distance
 * degree sequences against the closed forms of the thesis (chapters 2 and 4) and a plain BFS
 * written here, and edge colourings. Each other file of core/topo has its test_topo_<file>.c beside
 * this one; the routing oracle is tested in test_route.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/topo_check.h"

/* Brute-force limits: all-pairs BFS only up to this many nodes. */
#define BRUTE_MAX 1100u

/* All-pairs distances, row-major n x n (free it). */
static uint32_t *all_pairs(const sn_topo_t *t)
{
    uint32_t *d = malloc((size_t) t->n * t->n * sizeof *d);
    for (uint32_t u = 0; u < t->n; u++)
        bfs(t, u, &d[(size_t) u * t->n]);
    return d;
}

static uint32_t brute_ecc(const sn_topo_t *t, const uint32_t *d, uint32_t u, int procs_only)
{
    uint32_t e = 0;
    for (uint32_t v = 0; v < t->n; v++)
        if ((!procs_only || sn_topo_is_proc(t, v)) && d[(size_t) u * t->n + v] > e)
            e = d[(size_t) u * t->n + v];
    return e;
}

static uint64_t brute_status(const sn_topo_t *t, const uint32_t *d, uint32_t u, int procs_only)
{
    uint64_t s = 0;
    for (uint32_t v = 0; v < t->n; v++)
        if (!procs_only || sn_topo_is_proc(t, v))
            s += d[(size_t) u * t->n + v];
    return s;
}

static uint32_t brute_diameter(const sn_topo_t *t, const uint32_t *d, int procs_only)
{
    uint32_t best = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (procs_only && !sn_topo_is_proc(t, u))
            continue;
        uint32_t e = brute_ecc(t, d, u, procs_only);
        if (e > best)
            best = e;
    }
    return best;
}

static uint64_t brute_total(const sn_topo_t *t, const uint32_t *d, int procs_only)
{
    uint64_t s = 0;
    for (uint32_t u = 0; u < t->n; u++)
        if (!procs_only || sn_topo_is_proc(t, u))
            s += brute_status(t, d, u, procs_only);
    return s;
}

static uint64_t binom(uint32_t n, uint32_t k)
{
    uint64_t r = 1;
    for (uint32_t i = 1; i <= k; i++)
        r = r * (n - k + i) / i;
    return r;
}

/* ---- degree and diameter ----------------------------------------------------------------------
 */

static void check_diameter(const sn_topo_t *t, uint32_t want, int *bad)
{
    uint32_t got = sn_topo_diameter(t, 0);
    EXPECT(got == want, "%s: sn_topo_diameter %u, closed form %u\n", t->spec, got, want);
    if (t->n <= BRUTE_MAX) {
        uint32_t *d = all_pairs(t);
        uint32_t b = brute_diameter(t, d, 0);
        EXPECT(b == want, "%s: BFS diameter %u, closed form %u\n", t->spec, b, want);
        for (uint32_t u = 0; u < t->n; u += 1 + t->n / 7)
            EXPECT(sn_topo_ecc(t, u, 0) == brute_ecc(t, d, u, 0), "%s: ecc(%u)\n", t->spec, u);
        free(d);
    }
}

static void check_regular(const sn_topo_t *t, uint32_t deg, int *bad)
{
    for (uint32_t u = 0; u < t->n; u++)
        EXPECT(sn_topo_degree(t, u) == deg, "%s: degree of %u is %u, expected %u\n", t->spec, u,
               sn_topo_degree(t, u), deg);
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static void test_degree_diameter_simple(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    for (uint32_t n = 2; n <= 40; n++) {
        sn_topo_t *t = topof("linear:%u", n);
        for (uint32_t u = 0; u < n; u++)
            EXPECT(sn_topo_degree(t, u) == ((u == 0 || u == n - 1) ? 1u : 2u),
                   "linear:%u: degree of %u\n", n, u);
        check_diameter(t, n - 1, bad);
        sn_topo_free(t);

        t = topof("ring:%u", n);
        check_regular(t, n == 2 ? 1 : 2, bad);
        check_diameter(t, n / 2, bad);
        sn_topo_free(t);
    }
    for (uint32_t n = 2; n <= 30; n++) {
        for (uint32_t rho = 1; rho <= n / 2; rho++) {
            sn_topo_t *t = topof("ering:%u:%u", n, rho);
            check_regular(t, 2 * rho == n ? 2 * rho - 1 : 2 * rho, bad);
            check_diameter(t, ceil_div(n / 2, rho), bad);
            sn_topo_free(t);
        }
    }
    for (uint32_t n = 2; n <= 20; n++) {
        sn_topo_t *t = topof("complete:%u", n);
        check_regular(t, n - 1, bad);
        check_diameter(t, 1, bad);
        sn_topo_free(t);
    }
    /* Circulants: degree 2 per jump (1 for the jump N/2); diameter by BFS only. */
    static const struct {
        const char *spec;
        uint32_t deg;
    } circ[] = {{"circulant:13:1,5", 4},
                {"circulant:12:1,6", 3},
                {"circulant:8:3", 2},
                {"circulant:16:3,2,8", 5},
                {"circulant:29:1,12", 4}};
    for (size_t i = 0; i < NELEMS(circ); i++) {
        sn_topo_t *t = tu_topo(circ[i].spec);
        check_regular(t, circ[i].deg, bad);
        uint32_t *d = all_pairs(t);
        check_diameter(t, brute_diameter(t, d, 0), bad);
        free(d);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* Meshes and tori: degree and diameter add over dimensions (eqs. 2.1-2.2). */
static void test_degree_diameter_grids(void **state)
{
    (void) state;
    static const uint32_t dims[][4] = {{2, 2, 0, 0}, {2, 3, 0, 0}, {3, 3, 0, 0},   {3, 4, 0, 0},
                                       {4, 4, 0, 0}, {5, 2, 0, 0}, {7, 7, 0, 0},   {6, 9, 0, 0},
                                       {2, 9, 0, 0}, {2, 2, 2, 0}, {5, 2, 3, 0},   {3, 4, 5, 0},
                                       {4, 4, 4, 0}, {2, 3, 2, 3}, {16, 16, 0, 0}, {31, 2, 0, 0}};
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(dims); i++) {
        char ds[64] = "";
        uint32_t nd = 0, dm = 0, dt = 0;
        for (; nd < 4 && dims[i][nd]; nd++) {
            snprintf(ds + strlen(ds), sizeof ds - strlen(ds), "%s%u", nd ? "x" : "", dims[i][nd]);
            dm += dims[i][nd] - 1;
            dt += dims[i][nd] / 2;
        }
        for (int torus = 0; torus < 2; torus++) {
            sn_topo_t *t = topof("%s:%s", torus ? "torus" : "mesh", ds);
            for (uint32_t u = 0; u < t->n; u++) {
                uint32_t rest = u, deg = 0;
                for (uint32_t j = nd; j-- > 0;) {
                    uint32_t c = rest % dims[i][j], k = dims[i][j];
                    rest /= k;
                    if (torus)
                        deg += k == 2 ? 1 : 2;
                    else
                        deg += (c == 0 || c == k - 1) ? 1 : 2;
                }
                EXPECT(sn_topo_degree(t, u) == deg, "%s: degree of %u is %u, expected %u\n",
                       t->spec, u, sn_topo_degree(t, u), deg);
            }
            check_diameter(t, torus ? dt : dm, bad);
            sn_topo_free(t);
        }
    }
    assert_int_equal(nbad, 0);
}

static void test_degree_diameter_cayley(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    for (uint32_t d = 1; d <= 10; d++) {
        sn_topo_t *t = topof("hypercube:%u", d);
        assert_int_equal(t->n, 1u << d);
        check_regular(t, d, bad);
        check_diameter(t, d, bad);
        sn_topo_free(t);
    }
    for (uint32_t d = 2; d <= 10; d++) {
        sn_topo_t *t = topof("foldedcube:%u", d);
        check_regular(t, d + 1, bad);
        check_diameter(t, (d + 1) / 2, bad);
        sn_topo_free(t);
    }
    static const uint32_t fact[] = {1, 1, 2, 6, 24, 120, 720, 5040};
    for (uint32_t n = 2; n <= 7; n++) {
        sn_topo_t *t = topof("star:%u", n);
        assert_int_equal(t->n, fact[n]);
        check_regular(t, n - 1, bad);
        check_diameter(t, 3 * (n - 1) / 2, bad);
        sn_topo_free(t);
    }
    for (uint32_t d = 3; d <= 8; d++) {
        sn_topo_t *t = topof("ccc:%u", d);
        assert_int_equal(t->n, d << d);
        check_regular(t, 3, bad);
        check_diameter(t, d == 3 ? 6 : 2 * d + d / 2 - 2, bad);
        sn_topo_free(t);

        t = topof("butterfly:%u", d);
        assert_int_equal(t->n, d << d);
        check_regular(t, 4, bad);
        check_diameter(t, d + d / 2, bad);
        sn_topo_free(t);
    }
    /* d = 2: the +1 and -1 cycle links coincide (an 8-cycle for CCC). */
    sn_topo_t *t = tu_topo("ccc:2");
    check_regular(t, 2, bad);
    check_diameter(t, 4, bad);
    sn_topo_free(t);
    t = tu_topo("butterfly:2");
    check_regular(t, 3, bad);
    check_diameter(t, 3, bad);
    sn_topo_free(t);
    assert_int_equal(nbad, 0);
}

static void test_degree_diameter_fattree(void **state)
{
    (void) state;
    static const struct {
        uint32_t k, h;
        const char *mode;
        uint32_t caps[6]; /* caps[1..h] */
    } cases[] = {
        {2, 1, "const", {0, 1}},
        {2, 2, "const", {0, 1, 1}},
        {2, 5, "const", {0, 1, 1, 1, 1, 1}},
        {3, 3, "const", {0, 1, 1, 1}},
        {4, 2, "const", {0, 1, 1}},
        {2, 4, "exp", {0, 1, 2, 4, 8}},
        {3, 2, "exp", {0, 1, 3}},
        {4, 3, "exp", {0, 1, 4, 16}},
        {3, 2, "2,5", {0, 2, 5}},
        {2, 4, "3,1,2,2", {0, 3, 1, 2, 2}},
    };
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(cases); i++) {
        uint32_t k = cases[i].k, h = cases[i].h;
        sn_topo_t *t = topof("fattree:%u:%u:%s", k, h, cases[i].mode);
        uint32_t n = 0, leaves = 1;
        for (uint32_t l = 0; l < h; l++)
            leaves *= k;
        for (uint32_t l = 0, c = leaves; l <= h; l++, c /= k)
            n += c;
        EXPECT(t->n == n && t->nproc == leaves, "%s: n %u nproc %u\n", t->spec, t->n, t->nproc);
        uint32_t *lvl = malloc((size_t) t->n * sizeof *lvl);
        router_levels(t, lvl);
        uint32_t count[8] = {0};
        for (uint32_t u = 0; u < t->n; u++) {
            uint32_t l = lvl[u];
            if (l > h) {
                EXPECT(0, "%s: node %u at level %u\n", t->spec, u, l);
                continue;
            }
            count[l]++;
            const uint32_t *c = cases[i].caps;
            uint32_t want = (l == 0 ? 0 : k * c[l]) + (l < h ? c[l + 1] : 0);
            EXPECT(sn_topo_degree(t, u) == want, "%s: degree of %u (level %u) is %u, not %u\n",
                   t->spec, u, l, sn_topo_degree(t, u), want);
        }
        for (uint32_t l = 0, c = leaves; l <= h; l++, c /= k)
            EXPECT(count[l] == c, "%s: %u nodes at level %u, expected %u\n", t->spec, count[l], l,
                   c);
        free(lvl);
        check_diameter(t, 2 * h, bad);
        EXPECT(sn_topo_diameter(t, 1) == 2 * h, "%s: processor diameter %u\n", t->spec,
               sn_topo_diameter(t, 1));
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* Products: degree and eccentricity add over factors (eqs. 2.1-2.2); file graphs by BFS. */
static void test_degree_diameter_products(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint32_t diam;
    } cases[] = {
        {"torus:3x4*ring:5", 1 + 2 + 2},
        {"complete:3*complete:4", 2},
        {"ering:7:2*ring:5", 2 + 2},
        {"hypercube:2*ccc:3", 2 + 6},
        {"mesh:2x2*mesh:3x3", 1 + 1 + 2 + 2},
        {"linear:3*torus:2x2*star:3", 2 + 1 + 1 + 3},
        {"linear:4*foldedcube:3", 3 + 2},
        {"star:4*linear:5", 4 + 4},
        {"butterfly:3*complete:5*linear:2", 4 + 1 + 1},
    };
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        for (uint32_t u = 0; u < t->n; u++) {
            uint32_t deg = 0;
            for (uint32_t f = 0; f < t->nfactors; f++)
                deg += sn_topo_degree(t->factors[f], sn_topo_coord(t, u, f));
            EXPECT(sn_topo_degree(t, u) == deg, "%s: degree of %u\n", t->spec, u);
        }
        check_diameter(t, cases[i].diam, bad);
        sn_topo_free(t);
    }
    const char *files[] = {F_ROUTERS, F_PLAIN, F_LEAFROUTER};
    for (size_t i = 0; i < NELEMS(files); i++) {
        tfile_t f;
        tfile_make(&f, files[i]);
        sn_topo_t *t = tu_topo(f.spec);
        uint32_t *d = all_pairs(t);
        EXPECT(sn_topo_diameter(t, 0) == brute_diameter(t, d, 0), "%s: diameter\n", f.spec);
        EXPECT(sn_topo_diameter(t, 1) == brute_diameter(t, d, 1), "%s: processor diameter\n",
               f.spec);
        for (uint32_t u = 0; u < t->n; u++)
            EXPECT(sn_topo_ecc(t, u, 1) == brute_ecc(t, d, u, 1), "%s: ecc(%u)\n", f.spec, u);
        free(d);
        sn_topo_free(t);
        tfile_drop(&f);
    }
    assert_int_equal(nbad, 0);
}

/* ---- status ---------------------------------------------------------------------------------- */

/* Vertex-transitive graph with closed-form status s: every node (sampled) has status s, the total
 * distance is n * s, and BFS agrees. */
static void check_status_vt(const sn_topo_t *t, uint64_t s, int *bad)
{
    uint64_t got = sn_topo_status(t, 0, 0);
    EXPECT(got == s, "%s: status %llu, closed form %llu\n", t->spec, (unsigned long long) got,
           (unsigned long long) s);
    uint64_t tot = sn_topo_total_distance(t, 0);
    EXPECT(tot == (uint64_t) t->n * s, "%s: total distance %llu, expected %llu\n", t->spec,
           (unsigned long long) tot, (unsigned long long) t->n * s);
    for (uint32_t u = 0; u < t->n; u += 1 + t->n / 5)
        EXPECT(sn_topo_status(t, u, 0) == s, "%s: status of %u\n", t->spec, u);
    if (t->n <= 300) {
        uint32_t *d = all_pairs(t);
        EXPECT(brute_total(t, d, 0) == (uint64_t) t->n * s, "%s: BFS total %llu\n", t->spec,
               (unsigned long long) brute_total(t, d, 0));
        free(d);
    }
}

static void test_status_closed_forms(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    for (uint32_t n = 2; n <= 40; n++) {
        sn_topo_t *t = topof("ring:%u", n);
        check_status_vt(t, (n * n) / 4, bad); /* ceil((n^2 - 1) / 4), eq. 4.12 */
        sn_topo_free(t);
        t = topof("complete:%u", n);
        check_status_vt(t, n - 1, bad); /* eq. 4.11 */
        sn_topo_free(t);
    }
    for (uint32_t n = 2; n < 30; n++) {
        for (uint32_t rho = 1; rho <= n / 2; rho++) {
            uint32_t q = (n - 1) / (2 * rho), p = (n - 1) % (2 * rho);
            sn_topo_t *t = topof("ering:%u:%u", n, rho);
            check_status_vt(t, (uint64_t) (q + 1) * (rho * q + p), bad); /* eq. 4.13 */
            sn_topo_free(t);
        }
    }
    for (uint32_t d = 1; d <= 10; d++) {
        sn_topo_t *t = topof("hypercube:%u", d);
        check_status_vt(t, (uint64_t) d << (d - 1), bad);
        sn_topo_free(t);
    }
    /* Linear arrays: sum over pairs |i - j| = (n - 1) n (n + 1) / 3. */
    for (uint32_t n = 2; n <= 30; n++) {
        sn_topo_t *t = topof("linear:%u", n);
        uint64_t want = (uint64_t) (n - 1) * n * (n + 1) / 3;
        EXPECT(sn_topo_total_distance(t, 0) == want, "%s: total %llu\n", t->spec,
               (unsigned long long) sn_topo_total_distance(t, 0));
        for (uint32_t u = 0; u < n; u++) /* sum_{v} |u - v| */
            EXPECT(sn_topo_status(t, u, 0) ==
                       (uint64_t) u * (u + 1) / 2 + (uint64_t) (n - 1 - u) * (n - u) / 2,
                   "%s: status of %u\n", t->spec, u);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* Diameters and statuses of the thesis's families (chapter 2, section 4.4), computed apart. */
static void test_status_digest_values(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t s;
    } vals[] = {
        {"torus:3x3", 12},
        {"torus:3x4", 20},
        {"torus:4x4", 32},
        {"torus:4x5", 44},
        {"torus:5x5", 60},
        {"torus:5x6", 81},
        {"torus:6x6", 108},
        {"ccc:3", 74},
        {"butterfly:3", 55},
        {"ccc:4", 296},
        {"butterfly:4", 216},
        {"ccc:5", 952},
        {"butterfly:5", 690},
        {"ccc:6", 2896},
        {"butterfly:6", 2090},
        {"star:3", 9},
        {"star:4", 62},
        {"star:5", 442},
        {"star:6", 3444},
        {"foldedcube:2", 3},
        {"foldedcube:3", 10},
        {"foldedcube:4", 25},
        {"foldedcube:5", 66},
        {"foldedcube:6", 154},
        {"complete:3*complete:4", 17},
        {"ering:7:2*ring:5", 82},
        {"ering:14:2", 28},
        {"ering:9:2", 12},
        {"ering:10:3", 12},
        {"ering:8:2", 10},
        {"ering:10:2", 15},
        {"ering:12:3", 16},
        {"ering:16:4", 22},
        {"circulant:13:1,5", 20},
        {"hypercube:2", 4},
        {"hypercube:3", 12},
        {"hypercube:4", 32},
        {"hypercube:5", 80},
        {"ring:4", 4},
        {"ring:10", 25},
        {"torus:3x4x5", 172},
    };
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(vals); i++) {
        sn_topo_t *t = tu_topo(vals[i].spec);
        check_status_vt(t, vals[i].s, bad);
        sn_topo_free(t);
    }
    /* Meshes: AS = 16, 40, 25.67 (= 308 / 12), 80, 336 for 3x3, 4x4, 4x3, 5x5, 8x8. */
    static const struct {
        const char *spec;
        uint64_t total;
    } mesh[] = {{"mesh:3x3", 9 * 16},
                {"mesh:4x4", 16 * 40},
                {"mesh:4x3", 308},
                {"mesh:5x5", 25 * 80},
                {"mesh:8x8", 64 * 336}};
    for (size_t i = 0; i < NELEMS(mesh); i++) {
        sn_topo_t *t = tu_topo(mesh[i].spec);
        EXPECT(sn_topo_total_distance(t, 0) == mesh[i].total,
               "%s: total distance %llu, AS gives %llu\n", t->spec,
               (unsigned long long) sn_topo_total_distance(t, 0),
               (unsigned long long) mesh[i].total);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* Theorem 5.1: s(v) = n * sum_i s_i(v_i) / |V_i|, at every node, meshes included. */
static void test_status_products(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        const char *factors[4];
    } cases[] = {
        {"mesh:3x4*ring:5", {"linear:3", "linear:4", "ring:5"}},
        {"linear:5*ering:7:2", {"linear:5", "ering:7:2"}},
        {"mesh:2x3x4", {"linear:2", "linear:3", "linear:4"}},
        {"linear:4*complete:3*hypercube:2", {"linear:4", "complete:3", "hypercube:2"}},
        {"ccc:3*linear:3", {"ccc:3", "linear:3"}},
        {"mesh:5x6", {"linear:5", "linear:6"}},
        {"torus:3x4x5", {"ring:3", "ring:4", "ring:5"}},
        {"star:4*mesh:2x3", {"star:4", "linear:2", "linear:3"}},
    };
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_topo_t *f[4];
        uint64_t *fs[4];
        uint32_t nf = 0;
        for (; nf < 4 && cases[i].factors[nf]; nf++) {
            f[nf] = tu_topo(cases[i].factors[nf]);
            uint32_t *d = all_pairs(f[nf]);
            fs[nf] = malloc(f[nf]->n * sizeof *fs[nf]);
            for (uint32_t v = 0; v < f[nf]->n; v++)
                fs[nf][v] = brute_status(f[nf], d, v, 0);
            free(d);
        }
        uint32_t *d = all_pairs(t);
        uint64_t total = 0, want_total = 0;
        for (uint32_t u = 0; u < t->n; u++) {
            uint32_t rest = u;
            uint64_t want = 0;
            for (uint32_t j = nf; j-- > 0;) {
                uint32_t c = rest % f[j]->n;
                rest /= f[j]->n;
                want += (uint64_t) (t->n / f[j]->n) * fs[j][c];
            }
            uint64_t got = sn_topo_status(t, u, 0);
            EXPECT(got == want, "%s: status of %u is %llu, Theorem 5.1 gives %llu\n", t->spec, u,
                   (unsigned long long) got, (unsigned long long) want);
            EXPECT(brute_status(t, d, u, 0) == want, "%s: BFS status of %u\n", t->spec, u);
            total += brute_status(t, d, u, 0);
            want_total += want;
        }
        EXPECT(sn_topo_total_distance(t, 0) == total && total == want_total,
               "%s: total distance %llu, BFS %llu, Cor 5.2 %llu\n", t->spec,
               (unsigned long long) sn_topo_total_distance(t, 0), (unsigned long long) total,
               (unsigned long long) want_total);
        free(d);
        for (uint32_t j = 0; j < nf; j++) {
            free(fs[j]);
            sn_topo_free(f[j]);
        }
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* Routers: procs_only statuses, eccentricities and total distance against BFS. */
static void check_procs_only(const sn_topo_t *t, int *bad)
{
    uint32_t *d = all_pairs(t);
    for (int po = 0; po < 2; po++) {
        EXPECT(sn_topo_total_distance(t, po) == brute_total(t, d, po),
               "%s: total distance (procs_only %d) %llu, BFS %llu\n", t->spec, po,
               (unsigned long long) sn_topo_total_distance(t, po),
               (unsigned long long) brute_total(t, d, po));
        EXPECT(sn_topo_diameter(t, po) == brute_diameter(t, d, po),
               "%s: diameter (procs_only %d) %u, BFS %u\n", t->spec, po, sn_topo_diameter(t, po),
               brute_diameter(t, d, po));
        for (uint32_t u = 0; u < t->n; u++) {
            EXPECT(sn_topo_status(t, u, po) == brute_status(t, d, u, po), "%s: status(%u, %d)\n",
                   t->spec, u, po);
            EXPECT(sn_topo_ecc(t, u, po) == brute_ecc(t, d, u, po), "%s: ecc(%u, %d)\n", t->spec, u,
                   po);
        }
    }
    free(d);
}

static void test_status_routers(void **state)
{
    (void) state;
    static const char *const specs[] = {"fattree:2:1",     "fattree:2:3",     "fattree:3:2",
                                        "fattree:2:4:exp", "fattree:4:3:exp", "fattree:3:2:2,5",
                                        "fattree:2:5"};
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        check_procs_only(t, bad);
        /* From every leaf, k^l - k^(l-1) leaves at distance 2l. */
        uint64_t per = 0, kl = 1;
        for (uint32_t l = 1; l <= t->b; l++, kl *= t->a)
            per += 2ull * l * (kl * t->a - kl);
        EXPECT(sn_topo_total_distance(t, 1) == per * t->nproc, "%s: leaf total distance\n",
               t->spec);
        sn_topo_free(t);
    }
    const char *files[] = {F_ROUTERS, F_PLAIN, F_LEAFROUTER};
    for (size_t i = 0; i < NELEMS(files); i++) {
        tfile_t f;
        tfile_make(&f, files[i]);
        sn_topo_t *t = tu_topo(f.spec);
        check_procs_only(t, bad);
        sn_topo_free(t);
        tfile_drop(&f);
    }
    assert_int_equal(nbad, 0);
}

/* ---- distance degree sequences ------------------------------------------------------------- */

static void check_dds(const char *spec, uint32_t u, int po, const uint64_t *want, uint32_t ecc,
                      int *bad)
{
    sn_topo_t *t = tu_topo(spec);
    uint64_t counts[64];
    for (uint32_t i = 0; i < 64; i++)
        counts[i] = 12345;
    uint32_t got = sn_topo_dds(t, u, po, counts, 64);
    EXPECT(got == ecc, "%s: dds ecc %u, expected %u\n", spec, got, ecc);
    for (uint32_t i = 0; i <= ecc && i < 64; i++)
        EXPECT(counts[i] == want[i], "%s: dds[%u] = %llu, expected %llu\n", spec, i,
               (unsigned long long) counts[i], (unsigned long long) want[i]);
    /* cap smaller than ecc + 1: at most cap entries written. */
    for (uint32_t i = 0; i < 64; i++)
        counts[i] = 12345;
    got = sn_topo_dds(t, u, po, counts, 2);
    EXPECT(got == ecc && counts[0] == want[0] && counts[1] == want[1] && counts[2] == 12345,
           "%s: dds with cap 2\n", spec);
    sn_topo_free(t);
}

static void test_dds(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t dds[8]; /* n_0 = 1, n_1, ... */
        uint32_t ecc;
    } tab[] = {
        {"torus:3x3", {1, 4, 4}, 2},
        {"torus:3x4", {1, 4, 5, 2}, 3},
        {"torus:4x4", {1, 4, 6, 4, 1}, 4},
        {"torus:4x5", {1, 4, 7, 6, 2}, 4},
        {"torus:5x5", {1, 4, 8, 8, 4}, 4},
        {"torus:5x6", {1, 4, 8, 9, 6, 2}, 5},
        {"torus:6x6", {1, 4, 8, 10, 8, 4, 1}, 6},
        {"ering:14:2", {1, 4, 4, 4, 1}, 4},
        {"ring:4", {1, 2, 1}, 2},
        {"ring:5", {1, 2, 2}, 2},
        {"ring:9", {1, 2, 2, 2, 2}, 4},
        {"ring:10", {1, 2, 2, 2, 2, 1}, 5},
        {"linear:5", {1, 1, 1, 1, 1}, 4},
    };
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(tab); i++)
        check_dds(tab[i].spec, 0, 0, tab[i].dds, tab[i].ecc, bad);
    /* E_n^rho: [2 rho] * (D - 1) + [n - 1 - 2 rho (D - 1)]. */
    for (uint32_t n = 5; n <= 20; n++) {
        for (uint32_t rho = 1; 2 * rho < n; rho++) {
            uint32_t dd = ceil_div(n / 2, rho);
            uint64_t want[32] = {1};
            for (uint32_t i = 1; i < dd; i++)
                want[i] = 2 * rho;
            want[dd] = n - 1 - 2 * rho * (dd - 1);
            char spec[32];
            snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            check_dds(spec, 3, 0, want, dd, bad);
        }
    }
    for (uint32_t d = 1; d <= 12; d++) {
        uint64_t want[16];
        for (uint32_t i = 0; i <= d; i++)
            want[i] = binom(d, i);
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        check_dds(spec, 5 % (1u << d), 0, want, d, bad);
    }
    /* Fat tree, from a leaf, to leaves: k^l - k^(l-1) at distance 2l. */
    uint64_t ft[8] = {1, 0, 1, 0, 2, 0, 4};
    check_dds("fattree:2:3:exp", 0, 1, ft, 6, bad);
    assert_int_equal(nbad, 0);
}

/* ---- edge colouring --------------------------------------------------------------------------
 */

static uint32_t check_colouring(const sn_topo_t *t, int *bad)
{
    uint32_t *col = malloc((t->nedges + 1) * sizeof *col);
    uint32_t ncol = sn_topo_edge_colouring(t, col);
    uint32_t maxdeg = 0;
    uint8_t *used = calloc(ncol + 1, 1);
    for (uint32_t e = 0; e < t->nedges; e++)
        EXPECT(col[e] < ncol, "%s: edge %u has colour %u of %u\n", t->spec, e, col[e], ncol);
    for (uint32_t u = 0; u < t->n; u++) {
        uint32_t deg = sn_topo_degree(t, u);
        if (deg > maxdeg)
            maxdeg = deg;
        memset(used, 0, ncol + 1);
        for (uint32_t p = 0; p < deg; p++) {
            uint32_t c = col[sn_topo_port(t, u, p)->edge];
            if (c >= ncol)
                continue;
            EXPECT(!used[c], "%s: two edges at node %u have colour %u\n", t->spec, u, c);
            used[c] = 1;
        }
    }
    EXPECT(ncol >= maxdeg, "%s: %u colours for max degree %u\n", t->spec, ncol, maxdeg);
    free(used);
    free(col);
    return ncol;
}

static void test_edge_colouring(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(all_specs); i++) {
        sn_topo_t *t = tu_topo(all_specs[i]);
        check_colouring(t, bad);
        sn_topo_free(t);
    }
    const char *files[] = {F_ROUTERS, F_PLAIN, F_LEAFROUTER};
    for (size_t i = 0; i < NELEMS(files); i++) {
        tfile_t f;
        tfile_make(&f, files[i]);
        sn_topo_t *t = tu_topo(f.spec);
        check_colouring(t, bad);
        sn_topo_free(t);
        tfile_drop(&f);
    }
    /* Optimal counts where the library promises them. */
    for (uint32_t d = 1; d <= 9; d++) {
        sn_topo_t *t = topof("hypercube:%u", d);
        EXPECT(check_colouring(t, bad) == d, "%s: colours\n", t->spec);
        sn_topo_free(t);
    }
    for (uint32_t n = 3; n <= 24; n++) {
        sn_topo_t *t = topof("ring:%u", n);
        EXPECT(check_colouring(t, bad) == (n % 2 ? 3u : 2u), "%s: colours\n", t->spec);
        sn_topo_free(t);
        t = topof("linear:%u", n);
        EXPECT(check_colouring(t, bad) == 2, "%s: colours\n", t->spec);
        sn_topo_free(t);
        t = topof("complete:%u", n);
        EXPECT(check_colouring(t, bad) == (n % 2 ? n : n - 1), "%s: colours\n", t->spec);
        sn_topo_free(t);
    }
    static const char *const even_tori[] = {"torus:4x4", "torus:4x6", "torus:6x8", "torus:10x4"};
    for (size_t i = 0; i < NELEMS(even_tori); i++) {
        sn_topo_t *t = tu_topo(even_tori[i]);
        EXPECT(check_colouring(t, bad) == 4, "%s: colours\n", t->spec);
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("torus:4x6x8");
    EXPECT(check_colouring(t, bad) == 6, "%s: colours\n", t->spec);
    sn_topo_free(t);
    t = tu_topo("fattree:2:3:exp"); /* parallel links: at least the max degree (8 at the root) */
    EXPECT(check_colouring(t, bad) >= 8, "%s: colours\n", t->spec);
    sn_topo_free(t);
    assert_int_equal(nbad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degree_diameter_simple),
        cmocka_unit_test(test_degree_diameter_grids),
        cmocka_unit_test(test_degree_diameter_cayley),
        cmocka_unit_test(test_degree_diameter_fattree),
        cmocka_unit_test(test_degree_diameter_products),
        cmocka_unit_test(test_status_closed_forms),
        cmocka_unit_test(test_status_digest_values),
        cmocka_unit_test(test_status_products),
        cmocka_unit_test(test_status_routers),
        cmocka_unit_test(test_dds),
        cmocka_unit_test(test_edge_colouring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
