/* Unit tests of the topology objects (core/topo/topo.c): the port and edge structure derived from
 * the port tables of every family, the group operations of the Cayley families, labels, kind names
 * and fat-tree positions. Expected values come from the definitions and a plain BFS written in
 * tests/unit/topo_check.h, never from the library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/topo_check.h"

/* Deterministic pseudo-random numbers for sampling (xorshift64*). */
static uint32_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (uint32_t) ((*s * 0x2545f4914f6cdd1dull) >> 32);
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
        cmocka_unit_test(test_structure),   cmocka_unit_test(test_cayley),
        cmocka_unit_test(test_labels),      cmocka_unit_test(test_label_truncation),
        cmocka_unit_test(test_fattree_pos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
