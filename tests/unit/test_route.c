/* Unit tests of the routing oracle (core/topo, include/stepnet/route.h): exact distances, the
 * canonical next port (one step closer, first of the parallel ports), sn_route_lookup, and the
 * heights of the shortest-path trees T_s, all against a plain BFS and trees built here from the
 * oracle's own next hops, on every family, products, fat trees and file graphs with routers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepnet/route.h"
#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Records a failed expectation (prints the first 20) without stopping the test; functions using
 * it take `int *bad`. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond) && (*bad)++ < 20)                                                              \
            print_error(__VA_ARGS__);                                                              \
    } while (0)

/* All-pairs distances by plain BFS, row-major n x n (free it). */
static uint32_t *all_pairs(const sn_topo_t *t)
{
    uint32_t n = t->n;
    uint32_t *d = malloc((size_t) n * n * sizeof *d);
    uint32_t *q = malloc((size_t) n * sizeof *q);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t *dist = &d[(size_t) s * n], head = 0, tail = 0;
        for (uint32_t i = 0; i < n; i++)
            dist[i] = UINT32_MAX;
        dist[s] = 0;
        q[tail++] = s;
        while (head < tail) {
            uint32_t u = q[head++];
            for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
                uint32_t v = sn_topo_port(t, u, p)->peer;
                if (dist[v] == UINT32_MAX) {
                    dist[v] = dist[u] + 1;
                    q[tail++] = v;
                }
            }
        }
    }
    free(q);
    return d;
}

/* Graphs given as files: routers with a double link; a leaf router (its subtree in most trees
 * holds no processor); an irregular graph with parallel edges on consecutive lines. */
static const char F_ROUTERS[] = "0 4\n1 4\nrouter 4\n4 5\n4 5\n5 2\n5 3\nrouter 5\n";
static const char F_LEAFROUTER[] = "0 1\n1 2\n1 3\n2 4\nrouter 1\nrouter 3\n";
static const char F_IRREGULAR[] = "# two cycles sharing node 3, a pendant path, parallel links\n"
                                  "0 1\n1 2\n2 3\n3 0\n3 4\n3 4\n4 5\n5 6\n6 3\n6 7\n7 8\n";

/* Specs of moderate size: every family, products (Cayley and not), fat trees of each mode. */
static const char *const specs[] = {
    "linear:2",
    "linear:9",
    "ring:2",
    "ring:7",
    "ring:8",
    "ering:11:3",
    "ering:8:4",
    "ering:14:2",
    "circulant:13:1,5",
    "circulant:16:3,2,8",
    "complete:2",
    "complete:6",
    "mesh:3x4",
    "mesh:2x3x2",
    "mesh:5x5",
    "torus:4x5",
    "torus:2x3",
    "torus:3x3x3",
    "hypercube:1",
    "hypercube:5",
    "hypercube:8",
    "foldedcube:5",
    "ccc:2",
    "ccc:3",
    "ccc:4",
    "butterfly:2",
    "butterfly:3",
    "butterfly:4",
    "star:3",
    "star:4",
    "star:5",
    "fattree:2:1",
    "fattree:2:3",
    "fattree:2:4",
    "fattree:3:2:exp",
    "fattree:2:4:exp",
    "fattree:2:3:2,1,3",
    "fattree:4:2:3,2",
    "ering:7:2*ring:5",
    "linear:4*ring:3",
    "complete:3*complete:4",
    "hypercube:2*ccc:3",
    "mesh:2x3*star:3",
    "linear:3*linear:2*butterfly:3",
};

/* dist, next_port and lookup for every pair. */
static void check_pairs(const sn_topo_t *t, const sn_route_t *r, const uint32_t *d, int *bad)
{
    uint32_t n = t->n;
    for (uint32_t u = 0; u < n; u++) {
        for (uint32_t v = 0; v < n; v++) {
            uint32_t want = d[(size_t) u * n + v];
            uint32_t got = sn_route_dist(r, u, v);
            EXPECT(got == want, "%s: dist(%u, %u) = %u, BFS %u\n", t->spec, u, v, got, want);
            uint32_t lp = 12345;
            uint32_t ld = sn_route_lookup(r, u, v, &lp);
            EXPECT(ld == want, "%s: lookup(%u, %u) dist %u, BFS %u\n", t->spec, u, v, ld, want);
            if (u == v)
                continue;
            uint32_t p = sn_route_next_port(r, u, v);
            if (p >= sn_topo_degree(t, u)) {
                EXPECT(0, "%s: next_port(%u, %u) = %u, degree %u\n", t->spec, u, v, p,
                       sn_topo_degree(t, u));
                continue;
            }
            uint32_t w = sn_topo_port(t, u, p)->peer;
            EXPECT(d[(size_t) w * n + v] + 1 == want,
                   "%s: next_port(%u, %u) = %u leads to %u, at distance %u (not %u)\n", t->spec, u,
                   v, p, w, d[(size_t) w * n + v], want - 1);
            for (uint32_t q = 0; q < p; q++)
                EXPECT(sn_topo_port(t, u, q)->peer != w,
                       "%s: next_port(%u, %u) = %u, but port %u also leads to %u\n", t->spec, u, v,
                       p, q, w);
            EXPECT(sn_route_next(r, t, u, v) == w, "%s: next(%u, %u)\n", t->spec, u, v);
            EXPECT(lp == p, "%s: lookup(%u, %u) port %u, next_port %u\n", t->spec, u, v, lp, p);
        }
    }
}

/* Heights of T_s for every processor s, brute force: parent(x) = next(x, s); the height of w is
 * the largest dist(w, x) over processors x whose tree path to s passes w (x = w included), -1 when
 * there is none. */
static void check_heights(const sn_topo_t *t, const sn_route_t *r, const uint32_t *d, int *bad)
{
    uint32_t n = t->n;
    uint32_t *parent = malloc((size_t) n * sizeof *parent);
    int64_t *h = malloc((size_t) n * sizeof *h);
    for (uint32_t s = 0; s < n; s++) {
        if (!sn_topo_is_proc(t, s))
            continue;
        for (uint32_t x = 0; x < n; x++) {
            parent[x] = x == s ? s : sn_route_next(r, t, x, s);
            h[x] = -1;
        }
        for (uint32_t x = 0; x < n; x++) {
            if (!sn_topo_is_proc(t, x))
                continue;
            uint32_t w = x, steps = 0;
            for (;;) {
                int64_t dw = d[(size_t) w * n + x];
                if (dw > h[w])
                    h[w] = dw;
                if (w == s)
                    break;
                w = parent[w];
                if (++steps > n) {
                    EXPECT(0, "%s: T_%u has a cycle through %u\n", t->spec, s, x);
                    break;
                }
            }
        }
        for (uint32_t w = 0; w < n; w++) {
            int32_t got = sn_route_height(r, s, w);
            EXPECT(got == h[w], "%s: height(s=%u, w=%u) = %d, brute force %lld\n", t->spec, s, w,
                   got, (long long) h[w]);
        }
    }
    free(parent);
    free(h);
}

static void check_oracle(const sn_topo_t *t, int *bad)
{
    sn_route_t *r = NULL;
    sn_err_t err;
    int rc = sn_route_new(t, &r, &err);
    if (rc < 0) {
        EXPECT(0, "%s: sn_route_new: %s\n", t->spec, err.msg);
        return;
    }
    uint32_t *d = all_pairs(t);
    check_pairs(t, r, d, bad);
    check_heights(t, r, d, bad);
    free(d);
    sn_route_free(r);
}

/* Families over ranges of sizes (odd, even, prime, powers of two). */
static void test_route_ranges(void **state)
{
    (void) state;
    int nbad = 0;
    char spec[64];
    for (uint32_t n = 2; n <= 24; n++) {
        for (uint32_t rho = 1; rho <= n / 2; rho++) {
            snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            sn_topo_t *t = tu_topo(spec);
            check_oracle(t, &nbad);
            sn_topo_free(t);
        }
        const char *fams[] = {"linear", "complete"};
        for (size_t f = 0; f < NELEMS(fams); f++) {
            snprintf(spec, sizeof spec, "%s:%u", fams[f], n);
            sn_topo_t *t = tu_topo(spec);
            check_oracle(t, &nbad);
            sn_topo_free(t);
        }
    }
    static const char *const more[] = {
        "hypercube:9",
        "foldedcube:8",
        "star:6",
        "ccc:5",
        "butterfly:5",
        "fattree:2:7",
        "fattree:3:4",
        "fattree:4:3:exp",
        "fattree:5:2:2,3",
        "torus:7x6",
        "torus:2x2x2x2x2",
        "mesh:9x11",
        "mesh:3x3x3x3",
        "circulant:29:1,12",
        "circulant:30:2,3,15",
        "ring:3*ring:4*ring:5",
        "linear:2*star:4",
        "mesh:4x5*complete:5",
        "ccc:3*butterfly:3",
    };
    for (size_t i = 0; i < NELEMS(more); i++) {
        sn_topo_t *t = tu_topo(more[i]);
        check_oracle(t, &nbad);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

static void test_route_families(void **state)
{
    (void) state;
    int nbad = 0;
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        check_oracle(t, &nbad);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

static void test_route_files(void **state)
{
    (void) state;
    const char *texts[] = {F_ROUTERS, F_LEAFROUTER, F_IRREGULAR};
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(texts); i++) {
        char *path = tu_tmpfile(texts[i]);
        char spec[600];
        snprintf(spec, sizeof spec, "file:%s", path);
        sn_topo_t *t = tu_topo(spec);
        int plain = t->is_router == NULL;
        check_oracle(t, bad);
        sn_topo_free(t);
        if (plain) { /* as a product factor (files without routers only) */
            char pspec[700];
            snprintf(pspec, sizeof pspec, "ring:3*%s*linear:2", spec);
            t = tu_topo(pspec);
            check_oracle(t, bad);
            sn_topo_free(t);
        }
        unlink(path);
        free(path);
    }
    /* The leaf router 3 of F_LEAFROUTER: its subtree holds no processor in any T_s. */
    char *path = tu_tmpfile(F_LEAFROUTER);
    char spec[600];
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec);
    sn_route_t *r = NULL;
    sn_err_t err;
    tu_assert_rc(sn_route_new(t, &r, &err), 0);
    for (uint32_t s = 0; s < t->n; s++)
        if (sn_topo_is_proc(t, s))
            EXPECT(sn_route_height(r, s, 3) == -1, "leaf router: height %d\n",
                   sn_route_height(r, s, 3));
    /* height(s, s) is the eccentricity of s over processors: from 0, processor 4 at distance 3. */
    EXPECT(sn_route_height(r, 0, 0) == 3, "height(0, 0) = %d\n", sn_route_height(r, 0, 0));
    sn_route_free(r);
    sn_topo_free(t);
    unlink(path);
    free(path);
    assert_int_equal(nbad, 0);
}

/* Closed forms the oracle must reproduce: fat-tree heights (thesis ch. 6 trees) and the linear
 * array, independent of the brute force above. */
static void test_route_closed_forms(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    sn_route_t *r = NULL;
    sn_err_t err;
    /* Linear array L_n: height(s, s) = max(s, n - 1 - s); T_s is a path. */
    for (uint32_t n = 2; n <= 12; n++) {
        char spec[32];
        snprintf(spec, sizeof spec, "linear:%u", n);
        sn_topo_t *t = tu_topo(spec);
        tu_assert_rc(sn_route_new(t, &r, &err), 0);
        for (uint32_t s = 0; s < n; s++) {
            uint32_t e = s > n - 1 - s ? s : n - 1 - s;
            EXPECT(sn_route_height(r, s, s) == (int32_t) e, "%s: height(%u, %u)\n", spec, s, s);
            for (uint32_t w = 0; w < n; w++)
                if (w != s)
                    EXPECT(sn_route_height(r, s, w) == (int32_t) (w > s ? n - 1 - w : w),
                           "%s: height(%u, %u)\n", spec, s, w);
        }
        sn_route_free(r);
        sn_topo_free(t);
    }
    /* Fat tree: from a leaf, every leaf at distance 2 * (level of the lowest common ancestor). */
    sn_topo_t *t = tu_topo("fattree:3:3:exp");
    tu_assert_rc(sn_route_new(t, &r, &err), 0);
    for (uint32_t a = 0; a < t->nproc; a++) {
        for (uint32_t b = 0; b < t->nproc; b++) {
            uint32_t u = sn_topo_proc(t, a), v = sn_topo_proc(t, b), x = a, y = b, l = 0;
            while (x != y) {
                x /= 3;
                y /= 3;
                l++;
            }
            EXPECT(sn_route_dist(r, u, v) == 2 * l, "fat tree dist(%u, %u)\n", u, v);
        }
        EXPECT(sn_route_height(r, sn_topo_proc(t, a), sn_topo_proc(t, a)) == 6,
               "fat tree: height of a leaf source\n");
    }
    sn_route_free(r);
    sn_topo_free(t);
    assert_int_equal(nbad, 0);
}

/* file: graphs beyond SN_ROUTE_MAX_TABLE nodes are refused, alone or as a product factor. */
static void test_route_too_big(void **state)
{
    (void) state;
    uint32_t n = SN_ROUTE_MAX_TABLE + 1;
    size_t cap = (size_t) n * 24, len = 0;
    char *text = malloc(cap);
    for (uint32_t i = 0; i + 1 < n; i++)
        len += (size_t) snprintf(text + len, cap - len, "%u %u\n", i, i + 1);
    char *path = tu_tmpfile(text);
    free(text);
    char spec[600];
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec);
    assert_int_equal(t->n, n);
    sn_route_t *r = NULL;
    sn_err_t err;
    memset(&err, 0, sizeof err);
    tu_assert_rc(sn_route_new(t, &r, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "8193"));
    sn_topo_free(t);

    char pspec[700];
    snprintf(pspec, sizeof pspec, "ring:3*%s", spec);
    t = tu_topo(pspec);
    tu_assert_rc(sn_route_new(t, &r, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "8193"));
    sn_topo_free(t);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_families), cmocka_unit_test(test_route_ranges),
        cmocka_unit_test(test_route_files),    cmocka_unit_test(test_route_closed_forms),
        cmocka_unit_test(test_route_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
