/* Unit tests of the topology library (core/topo): the spec parser (every family, every error), the
 * port and edge structure, group operations and product coordinates, degree, diameter, status and
 * distance degree sequences against the closed forms of the thesis (chapters 2 and 4),
 * edge colourings, labels and sn_topo_from_edges. Expected values come from the definitions and a
 * plain BFS written here, never from the library. The routing oracle is tested in test_route.c. */
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

/* Deterministic pseudo-random numbers for sampling (xorshift64*). */
static uint32_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (uint32_t) ((*s * 0x2545f4914f6cdd1dull) >> 32);
}

static uint64_t binom(uint32_t n, uint32_t k)
{
    uint64_t r = 1;
    for (uint32_t i = 1; i <= k; i++)
        r = r * (n - k + i) / i;
    return r;
}

static void test_structure(void **state)
{
    (void) state;
    int nbad = 0;
    for (size_t i = 0; i < NELEMS(all_specs); i++) {
        sn_topo_t *t = tu_topo(all_specs[i]);
        check_structure(t, &nbad);
        sn_topo_free(t);
    }
    const char *files[] = {F_ROUTERS, F_PLAIN, F_LEAFROUTER};
    for (size_t i = 0; i < NELEMS(files); i++) {
        tfile_t f;
        tfile_make(&f, files[i]);
        sn_topo_t *t = tu_topo(f.spec);
        check_structure(t, &nbad);
        sn_topo_free(t);
        tfile_drop(&f);
    }
    assert_int_equal(nbad, 0);
}

/* Cayley families: node ids are group elements with identity 0 and peer(g, p) = g * peer(0, p). */
static void check_group(const sn_topo_t *t, int *bad)
{
    const char *s = t->spec;
    uint32_t n = t->n;
    for (uint32_t g = 0; g < n; g++) {
        EXPECT(sn_topo_mul(t, 0, g) == g && sn_topo_mul(t, g, 0) == g,
               "%s: 0 is no identity for %u\n", s, g);
        uint32_t gi = sn_topo_inv(t, g);
        EXPECT(gi < n && sn_topo_mul(t, g, gi) == 0 && sn_topo_mul(t, gi, g) == 0,
               "%s: inverse of %u is %u\n", s, g, gi);
        for (uint32_t p = 0; p < sn_topo_degree(t, g); p++) {
            uint32_t want = sn_topo_mul(t, g, sn_topo_port(t, 0, p)->peer);
            EXPECT(sn_topo_port(t, g, p)->peer == want, "%s: peer(%u, %u) = %u, g * gen = %u\n", s,
                   g, p, sn_topo_port(t, g, p)->peer, want);
        }
    }
    /* The generator set is closed under inverses, so the graph is undirected. */
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ n;
    for (int i = 0; i < 2000; i++) {
        uint32_t a = rnd(&seed) % n, b = rnd(&seed) % n, c = rnd(&seed) % n;
        uint32_t l = sn_topo_mul(t, sn_topo_mul(t, a, b), c);
        uint32_t r = sn_topo_mul(t, a, sn_topo_mul(t, b, c));
        EXPECT(l == r && l < n, "%s: (%u*%u)*%u = %u but %u*(%u*%u) = %u\n", s, a, b, c, l, a, b, c,
               r);
    }
    /* Left multiplication is a bijection (checked on small groups). */
    if (n <= 128) {
        uint8_t *hit = calloc(n, 1);
        for (uint32_t g = 0; g < n; g += 1 + n / 8) {
            memset(hit, 0, n);
            for (uint32_t x = 0; x < n; x++) {
                uint32_t y = sn_topo_mul(t, g, x);
                if (y < n)
                    hit[y] = 1;
            }
            for (uint32_t x = 0; x < n; x++)
                EXPECT(hit[x], "%s: %u * x never gives %u\n", s, g, x);
        }
        free(hit);
    }
}

static void test_cayley(void **state)
{
    (void) state;
    static const char *const cay[] = {
        "ring:2",
        "ring:9",
        "ering:8:4",
        "ering:14:2",
        "circulant:13:1,5",
        "circulant:16:3,2,8",
        "complete:2",
        "complete:7",
        "hypercube:1",
        "hypercube:6",
        "foldedcube:2",
        "foldedcube:5",
        "ccc:2",
        "ccc:3",
        "ccc:5",
        "butterfly:2",
        "butterfly:3",
        "butterfly:5",
        "star:2",
        "star:4",
        "star:5",
        "torus:3x4",
        "torus:2x3x5",
        "ering:7:2*ring:5",
        "complete:3*complete:4",
        "hypercube:2*ccc:3",
        "star:3*butterfly:3",
    };
    static const char *const noncay[] = {"linear:5", "mesh:3x4", "fattree:2:3", "linear:3*ring:4",
                                         "ring:4*mesh:2x3"};
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(cay); i++) {
        sn_topo_t *t = tu_topo(cay[i]);
        EXPECT(t->cayley && t->vertex_transitive, "%s: cayley %d vt %d\n", cay[i], t->cayley,
               t->vertex_transitive);
        if (t->cayley)
            check_group(t, bad);
        sn_topo_free(t);
    }
    for (size_t i = 0; i < NELEMS(noncay); i++) {
        sn_topo_t *t = tu_topo(noncay[i]);
        EXPECT(!t->cayley && !t->vertex_transitive, "%s: cayley %d vt %d\n", noncay[i], t->cayley,
               t->vertex_transitive);
        sn_topo_free(t);
    }
    tfile_t f;
    tfile_make(&f, F_PLAIN);
    sn_topo_t *t = tu_topo(f.spec);
    EXPECT(!t->cayley, "file graph is cayley\n");
    sn_topo_free(t);
    tfile_drop(&f);
    assert_int_equal(nbad, 0);
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

/* ---- labels ---------------------------------------------------------------------------------- */

static void expect_label(const sn_topo_t *t, uint32_t u, const char *want, int *bad)
{
    char buf[SN_TOPO_MAX_LABEL];
    memset(buf, 'X', sizeof buf);
    char *r = sn_topo_label(t, u, buf, sizeof buf);
    EXPECT(r == buf && strcmp(buf, want) == 0, "%s: label of %u is '%s', expected '%s'\n", t->spec,
           u, buf, want);
}

/* Parses a "(bits,l)" label; returns 0 on a malformed label. */
static int parse_xl(const char *s, uint32_t d, uint32_t *x, uint32_t *l)
{
    if (s[0] != '(' || strlen(s) < d + 4 || s[d + 1] != ',')
        return 0;
    *x = 0;
    for (uint32_t i = 0; i < d; i++) {
        if (s[1 + i] != '0' && s[1 + i] != '1')
            return 0;
        *x = *x * 2 + (uint32_t) (s[1 + i] - '0');
    }
    char close = 0;
    return sscanf(s + d + 2, "%u%c", l, &close) == 2 && close == ')' && *l < d;
}

/* CCC and wrapped butterfly: labels name (x, l), and adjacency follows their definitions as Cayley
 * graphs (include/stepnet/topo.h; thesis section 4.4.1 counts both among its Cayley graphs). */
static void check_ccc_labels(uint32_t d, int butterfly, int *bad)
{
    sn_topo_t *t = topof("%s:%u", butterfly ? "butterfly" : "ccc", d);
    uint32_t *lx = malloc(t->n * sizeof *lx), *ll = malloc(t->n * sizeof *ll);
    uint8_t *seen = calloc(t->n, 1);
    char buf[SN_TOPO_MAX_LABEL];
    for (uint32_t u = 0; u < t->n; u++) {
        sn_topo_label(t, u, buf, sizeof buf);
        if (!parse_xl(buf, d, &lx[u], &ll[u])) {
            EXPECT(0, "%s: label '%s' of %u\n", t->spec, buf, u);
            lx[u] = ll[u] = 0;
            continue;
        }
        uint32_t key = lx[u] * d + ll[u];
        EXPECT(!seen[key], "%s: label '%s' repeats\n", t->spec, buf);
        seen[key] = 1;
    }
    expect_label(t, 0, d == 3 ? "(000,0)" : (d == 4 ? "(0000,0)" : "(00000,0)"), bad);
    uint32_t mask = (1u << d) - 1;
    for (uint32_t u = 0; u < t->n; u++) {
        uint32_t x = lx[u], l = ll[u];
        /* Expected neighbours as (x, l) keys. */
        uint32_t want[4], nw = 0;
        if (!butterfly) {
            want[nw++] = x * d + (l + 1) % d;
            want[nw++] = x * d + (l + d - 1) % d;
            want[nw++] = (x ^ (1u << l)) * d + l;
        } else {
            uint32_t lm = (l + d - 1) % d;
            want[nw++] = x * d + (l + 1) % d;
            want[nw++] = ((x ^ (1u << l)) & mask) * d + (l + 1) % d;
            want[nw++] = x * d + lm;
            want[nw++] = (x ^ (1u << lm)) * d + lm;
        }
        EXPECT(sn_topo_degree(t, u) == nw, "%s: degree\n", t->spec);
        for (uint32_t i = 0; i < nw; i++) {
            int found = 0;
            for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
                uint32_t v = sn_topo_port(t, u, p)->peer;
                found |= lx[v] * d + ll[v] == want[i];
            }
            EXPECT(found, "%s: (%x,%u) is not adjacent to (%x,%u)\n", t->spec, x, l, want[i] / d,
                   want[i] % d);
        }
    }
    free(lx);
    free(ll);
    free(seen);
    sn_topo_free(t);
}

static void test_labels(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    sn_topo_t *t = tu_topo("linear:5");
    for (uint32_t u = 0; u < 5; u++) {
        char want[8];
        snprintf(want, sizeof want, "%u", u + 1);
        expect_label(t, u, want, bad);
    }
    sn_topo_free(t);

    t = tu_topo("ring:6");
    expect_label(t, 0, "0", bad);
    expect_label(t, 5, "5", bad);
    sn_topo_free(t);

    t = tu_topo("mesh:3x4");
    for (uint32_t u = 0; u < 12; u++) {
        char want[16];
        snprintf(want, sizeof want, "(%u,%u)", u / 4 + 1, u % 4 + 1);
        expect_label(t, u, want, bad);
    }
    sn_topo_free(t);

    t = tu_topo("torus:3x4x2");
    for (uint32_t u = 0; u < 24; u++) {
        char want[16];
        snprintf(want, sizeof want, "(%u,%u,%u)", u / 8, (u / 2) % 4, u % 2);
        expect_label(t, u, want, bad);
    }
    sn_topo_free(t);

    t = tu_topo("hypercube:4");
    expect_label(t, 0, "0000", bad);
    expect_label(t, 5, "0101", bad);
    expect_label(t, 8, "1000", bad);
    expect_label(t, 15, "1111", bad);
    /* Port i flips bit i. */
    for (uint32_t u = 0; u < 16; u++)
        for (uint32_t p = 0; p < 4; p++)
            EXPECT(sn_topo_port(t, u, p)->peer == (u ^ (1u << p)), "hypercube port %u of %u\n", p,
                   u);
    sn_topo_free(t);
    t = tu_topo("hypercube:1");
    expect_label(t, 0, "0", bad);
    expect_label(t, 1, "1", bad);
    sn_topo_free(t);
    t = tu_topo("foldedcube:3");
    expect_label(t, 6, "110", bad);
    EXPECT(sn_topo_port(t, 6, 3)->peer == 1, "foldedcube: port d is the complement\n");
    sn_topo_free(t);

    check_ccc_labels(3, 0, bad);
    check_ccc_labels(4, 0, bad);
    check_ccc_labels(3, 1, bad);
    check_ccc_labels(5, 1, bad);
    t = tu_topo("ccc:3");
    /* Ports: (0,+1), (0,-1), (e_0,0). */
    expect_label(t, sn_topo_port(t, 0, 0)->peer, "(000,1)", bad);
    expect_label(t, sn_topo_port(t, 0, 1)->peer, "(000,2)", bad);
    expect_label(t, sn_topo_port(t, 0, 2)->peer, "(001,0)", bad);
    sn_topo_free(t);
    t = tu_topo("butterfly:3");
    /* Ports: (0,+1), (0,-1), (e_0,+1), (e_{d-1},-1). */
    expect_label(t, sn_topo_port(t, 0, 0)->peer, "(000,1)", bad);
    expect_label(t, sn_topo_port(t, 0, 1)->peer, "(000,2)", bad);
    expect_label(t, sn_topo_port(t, 0, 2)->peer, "(001,1)", bad);
    expect_label(t, sn_topo_port(t, 0, 3)->peer, "(100,2)", bad);
    sn_topo_free(t);

    /* Star graph: permutations of 1..N; port i-2 swaps symbols at positions 1 and i. */
    t = tu_topo("star:4");
    expect_label(t, 0, "1234", bad);
    char a[SN_TOPO_MAX_LABEL], b[SN_TOPO_MAX_LABEL];
    for (uint32_t u = 0; u < t->n; u++) {
        sn_topo_label(t, u, a, sizeof a);
        for (uint32_t p = 0; p < 3; p++) {
            sn_topo_label(t, sn_topo_port(t, u, p)->peer, b, sizeof b);
            char tmp = a[0];
            a[0] = a[p + 1];
            a[p + 1] = tmp;
            EXPECT(strcmp(a, b) == 0, "star:4: port %u of %s leads to %s\n", p, a, b);
            a[p + 1] = a[0];
            a[0] = tmp;
        }
    }
    sn_topo_free(t);

    /* Fat trees: leaves by rank, routers r<level>.<index>. */
    t = tu_topo("fattree:2:3");
    uint32_t *lvl = malloc(t->n * sizeof *lvl);
    router_levels(t, lvl);
    uint8_t seen[4][8] = {{0}};
    for (uint32_t u = 0; u < t->n; u++) {
        char buf[SN_TOPO_MAX_LABEL];
        sn_topo_label(t, u, buf, sizeof buf);
        if (sn_topo_is_proc(t, u)) {
            char want[16];
            snprintf(want, sizeof want, "%d", sn_topo_rank(t, u));
            EXPECT(strcmp(buf, want) == 0, "fattree leaf %u label '%s'\n", u, buf);
        } else {
            unsigned l = 99, idx = 99;
            char c = 0;
            int ok = sscanf(buf, "r%u.%u%c", &l, &idx, &c) == 2 && l == lvl[u] && l >= 1 &&
                     l <= 3 && idx < (8u >> l) && !seen[l][idx];
            EXPECT(ok, "fattree router %u (level %u) label '%s'\n", u, lvl[u], buf);
            if (ok)
                seen[l][idx] = 1;
        }
    }
    free(lvl);
    sn_topo_free(t);

    /* Products: tuples of the factor labels (nested for structured factors). */
    t = tu_topo("hypercube:2*ccc:3");
    expect_label(t, 0, "(00,(000,0))", bad);
    expect_label(t, t->n - 1, "(11,(111,2))", bad);
    sn_topo_free(t);
    t = tu_topo("torus:3x4*ring:5");
    expect_label(t, 0, "(0,0,0)", bad);
    expect_label(t, 59, "(2,3,4)", bad);
    sn_topo_free(t);
    t = tu_topo("mesh:2x2*linear:3*hypercube:2");
    expect_label(t, 0, "(1,1,1,00)", bad);
    expect_label(t, t->n - 1, "(2,2,3,11)", bad);
    sn_topo_free(t);

    /* Every label fits, even for the largest products of long factor labels. */
    t = tu_topo("ccc:5*ccc:3*butterfly:3");
    char buf[SN_TOPO_MAX_LABEL];
    sn_topo_label(t, t->n - 1, buf, sizeof buf);
    EXPECT(strcmp(buf, "((11111,4),(111,2),(111,2))") == 0, "nested label '%s'\n", buf);
    sn_topo_free(t);

    /* Kind names. */
    static const char *const names[] = {"linear",    "ring",  "ering",     "circulant",  "complete",
                                        "mesh",      "torus", "hypercube", "foldedcube", "ccc",
                                        "butterfly", "star",  "fattree",   "product",    "file"};
    for (int k = SN_TOPO_LINEAR; k <= SN_TOPO_FILE; k++)
        EXPECT(strcmp(sn_topo_kind_name((sn_topo_kind_t) k), names[k]) == 0, "kind name %d\n", k);
    assert_int_equal(nbad, 0);
}

/* Labels truncated to a small buffer are NUL-terminated prefixes of the full label. */
static void test_label_truncation(void **state)
{
    (void) state;
    static const char *const specs[] = {"linear:12",   "torus:3x4*ring:5", "hypercube:6",
                                        "ccc:4",       "butterfly:3",      "star:5",
                                        "fattree:3:2", "mesh:2x2*ccc:3",   "complete:11"};
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        for (uint32_t u = 0; u < t->n; u += 1 + t->n / 9) {
            char full[SN_TOPO_MAX_LABEL];
            sn_topo_label(t, u, full, sizeof full);
            size_t len = strlen(full);
            EXPECT(len > 0 && len < SN_TOPO_MAX_LABEL, "%s: label of %u\n", t->spec, u);
            for (size_t cap = 1; cap <= len + 1; cap++) {
                char *buf = malloc(cap); /* exact size, so ASan sees any overrun */
                sn_topo_label(t, u, buf, cap);
                EXPECT(memchr(buf, '\0', cap) != NULL && strncmp(buf, full, strlen(buf)) == 0 &&
                           strlen(buf) == (cap - 1 < len ? cap - 1 : len),
                       "%s: label of %u with cap %zu is '%.*s', full '%s'\n", t->spec, u, cap,
                       (int) cap, buf, full);
                free(buf);
            }
        }
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

/* sn_topo_fattree_pos: levels and indices as the family lays them out, and the parent of node i
 * of level l is node i / k of level l + 1 (what the cut bounds of core/model rely on). */
static void test_fattree_pos(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("fattree:3:2");
    uint32_t k = 3, h = 2, count[3] = {0, 0, 0};
    for (uint32_t u = 0; u < t->n; u++) {
        uint32_t l, i;
        sn_topo_fattree_pos(t, u, &l, &i);
        assert_true(l <= h);
        assert_int_equal(i, count[l]); /* ids run level by level, index by index */
        count[l]++;
        assert_int_equal(sn_topo_is_proc(t, u), l == 0);
        for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
            uint32_t lp, ip;
            sn_topo_fattree_pos(t, sn_topo_port(t, u, p)->peer, &lp, &ip);
            if (lp == l + 1)
                assert_int_equal(ip, i / k);
        }
    }
    assert_int_equal(count[0], 9);
    assert_int_equal(count[1], 3);
    assert_int_equal(count[2], 1);
    sn_topo_free(t);
    sn_topo_t *r = tu_topo("ring:5");
    uint32_t l = 7, i = 7;
    sn_topo_fattree_pos(r, 3, &l, &i);
    assert_int_equal(l, 0);
    assert_int_equal(i, 0);
    sn_topo_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_cayley),
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
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_label_truncation),
        cmocka_unit_test(test_fattree_pos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
