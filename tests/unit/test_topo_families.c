/* Unit tests of the graph family generators (core/topo/families.c): the port numbering that
 * include/stepnet/topo.h documents, family by family, and the coordinates and ports of cartesian
 * products. Expected values come from the definitions, never from the library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/topo_check.h"

/* Product coordinates: row-major, first factor most significant; ports factor by factor, each in
 * its factor's numbering. */
static void check_product(const sn_topo_t *t, int *bad)
{
    const char *s = t->spec;
    for (uint32_t u = 0; u < t->n; u++) {
        uint32_t rest = u, id = 0, mult = 1;
        uint32_t coord[SN_TOPO_MAX_FACTORS];
        for (uint32_t i = t->nfactors; i-- > 0;) {
            coord[i] = rest % t->factors[i]->n;
            rest /= t->factors[i]->n;
        }
        for (uint32_t i = t->nfactors; i-- > 0;) {
            EXPECT(sn_topo_coord(t, u, i) == coord[i], "%s: coord %u of %u is %u, expected %u\n", s,
                   i, u, sn_topo_coord(t, u, i), coord[i]);
            EXPECT(sn_topo_with_coord(t, u, i, coord[i]) == u, "%s: with_coord identity\n", s);
            for (uint32_t c = 0; c < t->factors[i]->n; c++) {
                uint32_t w = sn_topo_with_coord(t, u, i, c);
                EXPECT(w < t->n && sn_topo_coord(t, w, i) == c, "%s: with_coord(%u,%u,%u)\n", s, u,
                       i, c);
                for (uint32_t j = 0; j < t->nfactors; j++)
                    if (j != i && w < t->n)
                        EXPECT(sn_topo_coord(t, w, j) == coord[j], "%s: with_coord moves %u\n", s,
                               j);
            }
            id += coord[i] * mult;
            mult *= t->factors[i]->n;
        }
        EXPECT(id == u, "%s: mixed radix\n", s);
        /* Port p of u: factor f's port p - base, with the peer's coordinate f replaced. */
        uint32_t p = 0;
        for (uint32_t f = 0; f < t->nfactors; f++) {
            const sn_topo_t *fa = t->factors[f];
            uint32_t fd = sn_topo_degree(fa, coord[f]);
            for (uint32_t q = 0; q < fd; q++, p++) {
                if (p >= sn_topo_degree(t, u)) {
                    EXPECT(0, "%s: node %u has too few ports\n", s, u);
                    break;
                }
                EXPECT(sn_topo_port_factor(t, u, p) == f,
                       "%s: port %u of %u in factor %u, not %u\n", s, p, u,
                       sn_topo_port_factor(t, u, p), f);
                uint32_t want = sn_topo_with_coord(t, u, f, sn_topo_port(fa, coord[f], q)->peer);
                EXPECT(sn_topo_port(t, u, p)->peer == want,
                       "%s: port %u of %u leads to %u, not %u\n", s, p, u,
                       sn_topo_port(t, u, p)->peer, want);
            }
        }
        EXPECT(p == sn_topo_degree(t, u), "%s: degree of %u is %u, factors give %u\n", s, u,
               sn_topo_degree(t, u), p);
    }
}

static void test_product_coords(void **state)
{
    (void) state;
    static const char *const prods[] = {"mesh:3x4",          "mesh:2x3x4",
                                        "torus:3x4*ring:5",  "complete:3*complete:4",
                                        "hypercube:2*ccc:3", "linear:3*torus:2x2*star:3",
                                        "mesh:2x2*mesh:3x3", "ering:8:4*linear:2"};
    int nbad = 0;
    for (size_t i = 0; i < NELEMS(prods); i++) {
        sn_topo_t *t = tu_topo(prods[i]);
        check_product(t, &nbad);
        sn_topo_free(t);
    }
    /* Non-products: the whole graph is factor 0. */
    sn_topo_t *t = tu_topo("ring:5");
    assert_int_equal(sn_topo_coord(t, 3, 0), 3);
    assert_int_equal(sn_topo_with_coord(t, 3, 0, 1), 1);
    assert_int_equal(sn_topo_port_factor(t, 3, 1), 0);
    sn_topo_free(t);
    assert_int_equal(nbad, 0);
}

/* The port numbering that topo.h documents, family by family. */
static void test_port_numbering(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    /* linear: +1 then -1. */
    sn_topo_t *t = tu_topo("linear:6");
    for (uint32_t u = 0; u < 6; u++) {
        uint32_t p = 0;
        if (u + 1 < 6)
            EXPECT(sn_topo_port(t, u, p++)->peer == u + 1, "linear: +1 port of %u\n", u);
        if (u > 0)
            EXPECT(sn_topo_port(t, u, p++)->peer == u - 1, "linear: -1 port of %u\n", u);
    }
    sn_topo_free(t);
    /* ring, ering, circulant: +j, -j per jump, coincident ones merged. */
    static const struct {
        const char *spec;
        uint32_t n, nj, jumps[4];
    } circ[] = {{"ring:7", 7, 1, {1}},
                {"ring:2", 2, 1, {1}},
                {"ering:9:3", 9, 3, {1, 2, 3}},
                {"ering:8:4", 8, 4, {1, 2, 3, 4}},
                {"circulant:8:5", 8, 1, {5}},
                {"circulant:12:6,1", 12, 2, {6, 1}},
                {"circulant:16:3,2,8", 16, 3, {3, 2, 8}}};
    for (size_t i = 0; i < NELEMS(circ); i++) {
        t = tu_topo(circ[i].spec);
        uint32_t n = circ[i].n;
        for (uint32_t u = 0; u < n; u++) {
            uint32_t p = 0;
            for (uint32_t j = 0; j < circ[i].nj; j++) {
                uint32_t jp = circ[i].jumps[j], fw = (u + jp) % n, bw = (u + n - jp) % n;
                EXPECT(p < sn_topo_degree(t, u) && sn_topo_port(t, u, p)->peer == fw,
                       "%s: port %u of %u should be +%u\n", t->spec, p, u, jp);
                p++;
                if (bw != fw) {
                    EXPECT(p < sn_topo_degree(t, u) && sn_topo_port(t, u, p)->peer == bw,
                           "%s: port %u of %u should be -%u\n", t->spec, p, u, jp);
                    p++;
                }
            }
            EXPECT(sn_topo_degree(t, u) == p, "%s: degree of %u\n", t->spec, u);
        }
        sn_topo_free(t);
    }
    /* complete: port p leads to u + p + 1 (mod N). */
    t = tu_topo("complete:6");
    for (uint32_t u = 0; u < 6; u++)
        for (uint32_t p = 0; p < 5; p++)
            EXPECT(sn_topo_port(t, u, p)->peer == (u + p + 1) % 6, "complete: port %u of %u\n", p,
                   u);
    sn_topo_free(t);
    /* foldedcube: bits 0..d-1, then the complement. */
    t = tu_topo("foldedcube:4");
    for (uint32_t u = 0; u < 16; u++) {
        for (uint32_t p = 0; p < 4; p++)
            EXPECT(sn_topo_port(t, u, p)->peer == (u ^ (1u << p)), "foldedcube: port %u\n", p);
        EXPECT(sn_topo_port(t, u, 4)->peer == (u ^ 15u), "foldedcube: complement port\n");
    }
    sn_topo_free(t);
    /* fattree: routers list their children's links (child by child, c links each), then the
     * parent's; leaves their c_1 links to the parent. Children are found by level. */
    static const char *const fts[] = {"fattree:2:3:exp", "fattree:3:2:2,5", "fattree:2:4:3,1,2,2",
                                      "fattree:4:2"};
    for (size_t i = 0; i < NELEMS(fts); i++) {
        t = tu_topo(fts[i]);
        uint32_t *lvl = malloc(t->n * sizeof *lvl);
        router_levels(t, lvl);
        for (uint32_t u = 0; u < t->n; u++) {
            uint32_t l = lvl[u], deg = sn_topo_degree(t, u), p = 0;
            uint32_t cdown = l > 0 ? t->caps[l] : 0, cup = l < t->b ? t->caps[l + 1] : 0;
            EXPECT(deg == t->a * cdown + cup, "%s: degree of %u\n", t->spec, u);
            for (uint32_t j = 0; l > 0 && j < t->a && p < deg; j++) {
                uint32_t child = sn_topo_port(t, u, p)->peer;
                EXPECT(lvl[child] == l - 1, "%s: port %u of %u is not a child link\n", t->spec, p,
                       u);
                for (uint32_t m = 0; m < cdown && p < deg; m++, p++)
                    EXPECT(sn_topo_port(t, u, p)->peer == child,
                           "%s: links to child %u of %u not grouped\n", t->spec, j, u);
            }
            uint32_t parent = p < deg ? sn_topo_port(t, u, p)->peer : 0;
            for (uint32_t m = 0; m < cup && p < deg; m++, p++)
                EXPECT(sn_topo_port(t, u, p)->peer == parent && lvl[parent] == l + 1,
                       "%s: parent links of %u\n", t->spec, u);
        }
        free(lvl);
        sn_topo_free(t);
    }
    assert_int_equal(nbad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_numbering),
        cmocka_unit_test(test_product_coords),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
