/* Unit tests of the list of topology kinds (core/topo/kinds.def and what parse.c and topo.c read
 * from it): every family a spec names builds its kind under its name, the parser lists the
 * families in the list's order byte for byte, products are no family, and each kind's group and
 * label columns give the group operations and labels they gave when they were switches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepnet/topo.h"
#include "tests/support/testutil.h"

/* Every kind of the list, in its order. */
static const sn_topo_kind_t all_kinds[] = {
#define SN_TOPO_KIND(id, name, form, parse, group, label) SN_TOPO_##id,
#include "core/topo/kinds.def"
};
#define NKINDS (sizeof all_kinds / sizeof all_kinds[0])

/* A spec of every kind, in the list's order. */
static const struct {
    const char *spec;
    sn_topo_kind_t kind;
} examples[] = {
    {"linear:4", SN_TOPO_LINEAR},
    {"ring:5", SN_TOPO_RING},
    {"ering:7:2", SN_TOPO_ERING},
    {"circulant:8:1,3", SN_TOPO_CIRCULANT},
    {"complete:4", SN_TOPO_COMPLETE},
    {"mesh:2x3", SN_TOPO_MESH},
    {"torus:3x3", SN_TOPO_TORUS},
    {"hypercube:3", SN_TOPO_HYPERCUBE},
    {"foldedcube:3", SN_TOPO_FOLDEDCUBE},
    {"ccc:3", SN_TOPO_CCC},
    {"butterfly:3", SN_TOPO_BUTTERFLY},
    {"star:4", SN_TOPO_STAR},
    {"fattree:2:2", SN_TOPO_FATTREE},
    {"ring:3*linear:2", SN_TOPO_PRODUCT},
    {"file:", SN_TOPO_FILE}, /* the path is a temporary file's */
};

static sn_topo_t *build(const char *spec, char **path)
{
    char full[4096];
    *path = NULL;
    if (strcmp(spec, "file:") == 0) {
        *path = tu_tmpfile("0 1\n1 2\n2 0\n2 3\n");
        snprintf(full, sizeof full, "file:%s", *path);
        spec = full;
    }
    return tu_topo(spec);
}

static void test_every_kind_builds_under_its_name(void **state)
{
    (void) state;
    assert_int_equal(NKINDS, sizeof examples / sizeof examples[0]);
    for (size_t i = 0; i < NKINDS; i++) {
        assert_int_equal(examples[i].kind, all_kinds[i]);
        assert_int_equal(all_kinds[i], (sn_topo_kind_t) i);
        char *path;
        sn_topo_t *t = build(examples[i].spec, &path);
        assert_int_equal(t->kind, examples[i].kind);
        const char *name = sn_topo_kind_name(t->kind);
        if (t->kind == SN_TOPO_PRODUCT) {
            assert_string_equal(name, "product");
        } else {
            /* the family's name is what the spec starts with */
            size_t n = strlen(name);
            assert_true(strncmp(t->spec, name, n) == 0 && t->spec[n] == ':');
        }
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(name, sn_topo_kind_name(all_kinds[j]));
        sn_topo_free(t);
        if (path) {
            unlink(path);
            free(path);
        }
    }
    assert_string_equal(sn_topo_kind_name((sn_topo_kind_t) NKINDS), "unknown");
    assert_string_equal(sn_topo_kind_name((sn_topo_kind_t) -1), "unknown");
}

static void test_accepted_families(void **state)
{
    (void) state;
    const char *accepted =
        "linear:N, ring:N, ering:N:RHO, circulant:N:J1,J2,..., complete:N, mesh:AxB[xC...], "
        "torus:AxB[xC...], hypercube:D, foldedcube:D, ccc:D, butterfly:D, star:N, "
        "fattree:K:H[:const|exp|C1,C2,...], file:PATH, and products S1*S2*...";
    char want[1024];
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_topo_parse("nosuch:3", &t, &err), SN_ESPEC);
    snprintf(want, sizeof want, "unknown topology family 'nosuch' in 'nosuch:3'; accepted: %s",
             accepted);
    assert_string_equal(err.msg, want);
    /* a product is built from factors, never named */
    tu_assert_rc(sn_topo_parse("product:3", &t, &err), SN_ESPEC);
    snprintf(want, sizeof want, "unknown topology family 'product' in 'product:3'; accepted: %s",
             accepted);
    assert_string_equal(err.msg, want);
    /* a typo of a family gets the family */
    tu_assert_rc(sn_topo_parse("hypercub:3", &t, &err), SN_ESPEC);
    snprintf(want, sizeof want,
             "unknown topology family 'hypercub' in 'hypercub:3': did you mean hypercube? "
             "accepted: %s",
             accepted);
    assert_string_equal(err.msg, want);
    /* a product's factor that is no topology, quoted with the spec; a dimension after a grid is
     * the x it was meant to be */
    tu_assert_rc(sn_topo_parse("torus:4*4", &t, &err), SN_ESPEC);
    assert_string_equal(err.msg, "bad topology 'torus:4*4': its factor '4' is not a topology "
                                 "(every factor of S1*S2 is one, as in ring:4*ring:4); did you "
                                 "mean torus:4x4?");
    tu_assert_rc(sn_topo_parse("mesh:2x3*5", &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "did you mean mesh:2x3x5?"));
    tu_assert_rc(sn_topo_parse("ring:4*x", &t, &err), SN_ESPEC);
    assert_string_equal(err.msg, "bad topology 'ring:4*x': its factor 'x' is not a topology "
                                 "(every factor of S1*S2 is family:parameters, as in "
                                 "ring:4*ring:4)");
    tu_assert_rc(sn_topo_parse("", &t, &err), SN_ESPEC);
    snprintf(want, sizeof want, "empty topology spec; accepted: %s", accepted);
    assert_string_equal(err.msg, want);
    assert_null(t);
}

/* The label of node u of spec. */
static void expect_label(const char *spec, uint32_t u, const char *want)
{
    sn_topo_t *t = tu_topo(spec);
    char buf[SN_TOPO_MAX_LABEL];
    assert_string_equal(sn_topo_label(t, u, buf, sizeof buf), want);
    sn_topo_free(t);
}

/* One node of every label style of the list. */
static void test_labels(void **state)
{
    (void) state;
    expect_label("ring:5", 3, "3");                  /* ID */
    expect_label("linear:4", 0, "1");                /* ONE_BASED */
    expect_label("hypercube:3", 5, "101");           /* BITS */
    expect_label("foldedcube:3", 6, "110");          /* BITS */
    expect_label("ccc:3", 7, "(010,1)");             /* BITS_AND_LEVEL: x = 2, l = 1 */
    expect_label("butterfly:3", 3, "(001,0)");       /* BITS_AND_LEVEL */
    expect_label("star:3", 0, "123");                /* PERMUTATION: the identity */
    expect_label("fattree:2:2", 3, "3");             /* LEVEL_INDEX: a leaf */
    expect_label("fattree:2:2", 4, "r1.0");          /* LEVEL_INDEX: a router */
    expect_label("torus:3x3", 5, "(1,2)");           /* TUPLE */
    expect_label("mesh:2x3", 4, "(2,2)");            /* TUPLE of ONE_BASED */
    expect_label("hypercube:2*ring:3", 4, "(01,1)"); /* TUPLE of factors' labels */
}

/* The group columns: every Cayley kind's ids form a group (identity 0, inverses, associative on a
 * sample), and the kinds without a group have no product. */
static void test_group_operations(void **state)
{
    (void) state;
    for (size_t i = 0; i < NKINDS; i++) {
        char *path;
        sn_topo_t *t = build(examples[i].spec, &path);
        int group = t->cayley;
        for (uint32_t a = 0; a < t->n; a++) {
            if (!group) {
                assert_int_equal(sn_topo_mul(t, a, 0), UINT32_MAX);
                assert_int_equal(sn_topo_inv(t, a), UINT32_MAX);
                continue;
            }
            assert_int_equal(sn_topo_mul(t, a, 0), a);
            assert_int_equal(sn_topo_mul(t, 0, a), a);
            assert_int_equal(sn_topo_mul(t, a, sn_topo_inv(t, a)), 0);
            for (uint32_t b = 0; b < t->n; b += 3)
                for (uint32_t c = 0; c < t->n; c += 5)
                    assert_int_equal(sn_topo_mul(t, sn_topo_mul(t, a, b), c),
                                     sn_topo_mul(t, a, sn_topo_mul(t, b, c)));
        }
        /* the ports of a Cayley graph lead to g * generator */
        for (uint32_t u = 0; group && u < t->n; u++)
            for (uint32_t q = 0; q < sn_topo_degree(t, u); q++)
                assert_int_equal(sn_topo_port(t, u, q)->peer,
                                 sn_topo_mul(t, u, sn_topo_port(t, 0, q)->peer));
        sn_topo_free(t);
        if (path) {
            unlink(path);
            free(path);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_builds_under_its_name),
        cmocka_unit_test(test_accepted_families),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_group_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
