/* Unit tests of the topology spec parser (core/topo/parse.c): every family's spec, every error,
 * sizing without building (sn_topo_parse_size) and the memory budget that every family checks
 * before it builds. The `file:` graphs' own parser is tested in test_topo_parse_file.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/topo_check.h"

/* ---- parser: every family ------------------------------------------------------------------- */

typedef struct fam_case_s {
    const char *spec;
    sn_topo_kind_t kind;
    uint32_t n, nproc, nedges, nfactors;
    const char *canon;
} fam_case_t;

static const fam_case_t fam_cases[] = {
    {"linear:7", SN_TOPO_LINEAR, 7, 7, 6, 0, "linear:7"},
    {"linear:2", SN_TOPO_LINEAR, 2, 2, 1, 0, "linear:2"},
    {"ring:2", SN_TOPO_RING, 2, 2, 1, 0, "ring:2"},
    {"ring:9", SN_TOPO_RING, 9, 9, 9, 0, "ring:9"},
    {"ring:007", SN_TOPO_RING, 7, 7, 7, 0, "ring:7"},
    {"ering:14:2", SN_TOPO_ERING, 14, 14, 28, 0, "ering:14:2"},
    {"ering:8:4", SN_TOPO_ERING, 8, 8, 28, 0, "ering:8:4"},
    {"ering:9:4", SN_TOPO_ERING, 9, 9, 36, 0, "ering:9:4"},
    {"ering:2:1", SN_TOPO_ERING, 2, 2, 1, 0, "ering:2:1"},
    {"circulant:13:1,5", SN_TOPO_CIRCULANT, 13, 13, 26, 0, "circulant:13:1,5"},
    {"circulant:12:1,6", SN_TOPO_CIRCULANT, 12, 12, 18, 0, "circulant:12:1,6"},
    {"circulant:8:3", SN_TOPO_CIRCULANT, 8, 8, 8, 0, "circulant:8:3"},
    {"complete:2", SN_TOPO_COMPLETE, 2, 2, 1, 0, "complete:2"},
    {"complete:5", SN_TOPO_COMPLETE, 5, 5, 10, 0, "complete:5"},
    {"mesh:3x4", SN_TOPO_MESH, 12, 12, 17, 2, "mesh:3x4"},
    {"mesh:2x3x4", SN_TOPO_MESH, 24, 24, 46, 3, "mesh:2x3x4"},
    {"torus:3x4", SN_TOPO_TORUS, 12, 12, 24, 2, "torus:3x4"},
    {"torus:2x3", SN_TOPO_TORUS, 6, 6, 9, 2, "torus:2x3"},
    {"torus:3x3x3", SN_TOPO_TORUS, 27, 27, 81, 3, "torus:3x3x3"},
    {"hypercube:1", SN_TOPO_HYPERCUBE, 2, 2, 1, 0, "hypercube:1"},
    {"hypercube:5", SN_TOPO_HYPERCUBE, 32, 32, 80, 0, "hypercube:5"},
    {"foldedcube:2", SN_TOPO_FOLDEDCUBE, 4, 4, 6, 0, "foldedcube:2"},
    {"foldedcube:4", SN_TOPO_FOLDEDCUBE, 16, 16, 40, 0, "foldedcube:4"},
    {"ccc:3", SN_TOPO_CCC, 24, 24, 36, 0, "ccc:3"},
    {"ccc:4", SN_TOPO_CCC, 64, 64, 96, 0, "ccc:4"},
    {"butterfly:3", SN_TOPO_BUTTERFLY, 24, 24, 48, 0, "butterfly:3"},
    {"butterfly:4", SN_TOPO_BUTTERFLY, 64, 64, 128, 0, "butterfly:4"},
    {"star:2", SN_TOPO_STAR, 2, 2, 1, 0, "star:2"},
    {"star:4", SN_TOPO_STAR, 24, 24, 36, 0, "star:4"},
    {"star:5", SN_TOPO_STAR, 120, 120, 240, 0, "star:5"},
    {"fattree:2:3", SN_TOPO_FATTREE, 15, 8, 14, 0, "fattree:2:3:const"},
    {"fattree:2:3:const", SN_TOPO_FATTREE, 15, 8, 14, 0, "fattree:2:3:const"},
    {"fattree:2:3:exp", SN_TOPO_FATTREE, 15, 8, 8 + 4 * 2 + 2 * 4, 0, "fattree:2:3:exp"},
    {"fattree:3:3:exp", SN_TOPO_FATTREE, 40, 27, 27 + 9 * 3 + 3 * 9, 0, "fattree:3:3:exp"},
    {"fattree:3:2:2,5", SN_TOPO_FATTREE, 13, 9, 9 * 2 + 3 * 5, 0, "fattree:3:2:2,5"},
    {"fattree:4:1", SN_TOPO_FATTREE, 5, 4, 4, 0, "fattree:4:1:const"},
    {"torus:3x4*ring:5", SN_TOPO_PRODUCT, 60, 60, 20 * 3 + 15 * 4 + 12 * 5, 3, "torus:3x4*ring:5"},
    {"complete:3*complete:4", SN_TOPO_PRODUCT, 12, 12, 4 * 3 + 3 * 6, 2, "complete:3*complete:4"},
    {"ering:7:2*ring:5", SN_TOPO_PRODUCT, 35, 35, 5 * 14 + 7 * 5, 2, "ering:7:2*ring:5"},
    {"hypercube:2*ccc:3", SN_TOPO_PRODUCT, 96, 96, 24 * 4 + 4 * 36, 2, "hypercube:2*ccc:3"},
    {"mesh:2x2*mesh:3x3", SN_TOPO_PRODUCT, 36, 36, 18 * 2 + 12 * 2 * 2, 4, "mesh:2x2*mesh:3x3"},
    {"linear:3*torus:2x2*star:3", SN_TOPO_PRODUCT, 72, 72, 24 * 2 + 36 * 2 + 12 * 6, 4,
     "linear:3*torus:2x2*star:3"},
};

static void test_parse_families(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    for (size_t i = 0; i < NELEMS(fam_cases); i++) {
        const fam_case_t *c = &fam_cases[i];
        sn_topo_t *t = tu_topo(c->spec);
        EXPECT(t->kind == c->kind, "%s: kind %d, expected %d\n", c->spec, t->kind, c->kind);
        EXPECT(t->n == c->n, "%s: n %u, expected %u\n", c->spec, t->n, c->n);
        EXPECT(t->nproc == c->nproc, "%s: nproc %u, expected %u\n", c->spec, t->nproc, c->nproc);
        EXPECT(t->nedges == c->nedges, "%s: nedges %u, expected %u\n", c->spec, t->nedges,
               c->nedges);
        EXPECT(t->nfactors == c->nfactors, "%s: nfactors %u, expected %u\n", c->spec, t->nfactors,
               c->nfactors);
        EXPECT(strcmp(t->spec, c->canon) == 0, "%s: spec '%s', expected '%s'\n", c->spec, t->spec,
               c->canon);
        EXPECT((t->is_router != NULL) == (c->kind == SN_TOPO_FATTREE),
               "%s: is_router should be set exactly for fat trees\n", c->spec);
        sn_topo_free(t);
    }

    /* Family parameters and flattened factors. */
    sn_topo_t *t = tu_topo("ering:14:2");
    EXPECT(t->a == 14 && t->b == 2, "ering:14:2: a=%u b=%u\n", t->a, t->b);
    sn_topo_free(t);
    t = tu_topo("circulant:13:1,5");
    EXPECT(t->a == 13 && t->njumps == 2 && t->jumps[0] == 1 && t->jumps[1] == 5,
           "circulant:13:1,5: parameters\n");
    sn_topo_free(t);
    t = tu_topo("fattree:3:2:2,5");
    EXPECT(t->a == 3 && t->b == 2 && t->caps[1] == 2 && t->caps[2] == 5, "fattree caps\n");
    sn_topo_free(t);
    t = tu_topo("fattree:2:3:exp");
    EXPECT(t->caps[1] == 1 && t->caps[2] == 2 && t->caps[3] == 4, "fattree exp caps\n");
    sn_topo_free(t);
    t = tu_topo("torus:3x4*ring:5");
    const char *want[] = {"ring:3", "ring:4", "ring:5"};
    for (uint32_t i = 0; i < 3 && i < t->nfactors; i++)
        EXPECT(strcmp(t->factors[i]->spec, want[i]) == 0, "factor %u is '%s', expected '%s'\n", i,
               t->factors[i]->spec, want[i]);
    sn_topo_free(t);
    t = tu_topo("mesh:3x4*hypercube:2");
    const char *want2[] = {"linear:3", "linear:4", "hypercube:2"};
    for (uint32_t i = 0; i < 3 && i < t->nfactors; i++)
        EXPECT(strcmp(t->factors[i]->spec, want2[i]) == 0, "factor %u is '%s', expected '%s'\n", i,
               t->factors[i]->spec, want2[i]);
    sn_topo_free(t);
    assert_int_equal(nbad, 0);
}

/* ---- parser: every error ----------------------------------------------------------------------
 */

typedef struct err_case_s {
    const char *spec;
    int code;
    const char *needle;  /* the bad value, as the message must show it */
    const char *needle2; /* a second required substring, or NULL */
} err_case_t;

static const err_case_t err_cases[] = {
    {"", SN_ESPEC, "empty", NULL},
    {"foo:3", SN_ESPEC, "'foo'", NULL},
    {"ring", SN_ESPEC, "'ring'", NULL},
    {"ring:", SN_ESPEC, "'ring:'", NULL},
    {"ring:4:5", SN_ESPEC, "'4:5'", NULL},
    {"ring:x", SN_ESPEC, "'x'", NULL},
    {"ring:-3", SN_ESPEC, "'-3'", NULL},
    {"ring:3.5", SN_ESPEC, "'3.5'", NULL},
    {"ring:1", SN_ESPEC, " 1 ", "'ring:1'"},
    {"linear:0", SN_ESPEC, " 0 ", "'linear:0'"},
    {"complete:1", SN_ESPEC, " 1 ", "'complete:1'"},
    {"complete:16385", SN_ERANGE, "16385", NULL},
    {"ring:99999999999999999999999", SN_ESPEC, "99999999999999999999999", NULL},
    {"ering:8", SN_ESPEC, "'ering:8'", NULL},
    {"ering:8:2:1", SN_ESPEC, "'ering:8:2:1'", NULL},
    {"ering:8:5", SN_ERANGE, " 5 ", "'ering:8:5'"},
    {"ering:8:0", SN_ESPEC, " 0 ", "'ering:8:0'"},
    {"ering:1:1", SN_ESPEC, " 1 ", "'ering:1:1'"},
    {"ering:8:x", SN_ESPEC, "'x'", NULL},
    {"circulant:8", SN_ESPEC, "'circulant:8'", NULL},
    {"circulant:8:", SN_ESPEC, "'circulant:8:'", NULL},
    {"circulant:8:1,", SN_ESPEC, "'circulant:8:1,'", NULL},
    {"circulant:8:0", SN_ESPEC, " 0 ", NULL},
    {"circulant:8:8", SN_ERANGE, " 8 ", NULL},
    {"circulant:12:2,4", SN_ESPEC, "'circulant:12:2,4'", " 2 "},
    {"circulant:8:3,5", SN_ESPEC, " 5 ", "'circulant:8:3,5'"},
    {"circulant:8:3,3", SN_ESPEC, " 3 ", NULL},
    {"mesh:3x", SN_ESPEC, "'mesh:3x'", NULL},
    {"mesh:x3", SN_ESPEC, "'mesh:x3'", NULL},
    {"mesh:3x1", SN_ESPEC, " 1 ", "'mesh:3x1'"},
    {"torus:4xq", SN_ESPEC, "'q'", NULL},
    {"mesh:10000x10000", SN_ERANGE, "100000000", NULL},
    {"torus:2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2", SN_ESPEC, "16", NULL},
    {"hypercube:0", SN_ESPEC, " 0 ", "'hypercube:0'"},
    {"hypercube:26", SN_ERANGE, "26", NULL},
    {"hypercube:", SN_ESPEC, "'hypercube:'", NULL},
    {"hypercube:3:1", SN_ESPEC, "'3:1'", NULL},
    {"foldedcube:1", SN_ESPEC, " 1 ", "'foldedcube:1'"},
    {"ccc:1", SN_ESPEC, " 1 ", "'ccc:1'"},
    {"ccc:21", SN_ERANGE, "21", NULL},
    {"butterfly:1", SN_ESPEC, " 1 ", "'butterfly:1'"},
    {"star:1", SN_ESPEC, " 1 ", "'star:1'"},
    {"star:10", SN_ERANGE, "10", NULL},
    {"fattree:1:2", SN_ESPEC, " 1 ", "'fattree:1:2'"},
    {"fattree:2", SN_ESPEC, "'fattree:2'", NULL},
    {"fattree:2:0", SN_ESPEC, " 0 ", "'fattree:2:0'"},
    {"fattree:2:x", SN_ESPEC, "'x'", NULL},
    {"fattree:2:3:1,2", SN_ESPEC, "'fattree:2:3:1,2'", NULL},
    {"fattree:2:3:1,2,3,4", SN_ESPEC, "'fattree:2:3:1,2,3,4'", NULL},
    {"fattree:2:3:1,0,1", SN_ESPEC, " 0 ", NULL},
    {"fattree:2:3:foo", SN_ESPEC, "'fattree:2:3:foo'", NULL},
    {"fattree:2:3:const:x", SN_ESPEC, "'fattree:2:3:const:x'", NULL},
    {"fattree:2:25", SN_ERANGE, "25", NULL},
    {"fattree:1024:3", SN_ERANGE, "'fattree:1024:3'", NULL},
    {"*ring:4", SN_ESPEC, "'*ring:4'", NULL},
    {"ring:4*", SN_ESPEC, "'ring:4*'", NULL},
    {"ring:4**ring:4", SN_ESPEC, "'ring:4**ring:4'", NULL},
    {"*", SN_ESPEC, "'*'", NULL},
    {"ring:4*foo:2", SN_ESPEC, "'foo'", NULL},
    {"ring:4*ring:1", SN_ESPEC, "'ring:1'", NULL},
    {"ring:4*fattree:2:2", SN_ESPEC, "fattree:2:2", "router"},
    {"fattree:2:2*ring:4", SN_ESPEC, "fattree:2:2", "router"},
    {"ring:10000*ring:10000", SN_ERANGE, "100000000", NULL},
    {"ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*ring:2*"
     "ring:2*ring:2*ring:2*ring:2*ring:2",
     SN_ESPEC, "16", NULL},
    {"torus:2x2x2x2x2x2x2x2x2*mesh:2x2x2x2x2x2x2x2", SN_ESPEC, "16", NULL},
    {"file:", SN_ESPEC, "file:", NULL},
    {"linear:33554433", SN_ERANGE, "33554433", NULL},
    {"ering:33554432:16777216", SN_ERANGE, "'ering:33554432:16777216'", NULL},
    {"circulant:33554432:1,3,5,7,9", SN_ERANGE, "'circulant:33554432:1,3,5,7,9'", NULL},
    {"fattree:1024:2:65536,65536", SN_ERANGE, "'fattree:1024:2:65536,65536'", NULL},
    {"fattree:2:2:1,65537", SN_ERANGE, "65537", NULL},
    {"circulant:200:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,"
     "30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,"
     "61,62,63,64,65",
     SN_ESPEC, "64", NULL},
    {"file:/nonexistent/stepnet-no-such-file", SN_EIO, "/nonexistent/stepnet-no-such-file", NULL},
};

static void test_parse_errors(void **state)
{
    (void) state;
    int bad = 0;
    for (size_t i = 0; i < NELEMS(err_cases); i++)
        bad += !parse_error_ok(err_cases[i].spec, err_cases[i].code, err_cases[i].needle,
                               err_cases[i].needle2);
    /* A NULL spec is the empty spec; a NULL err is allowed. */
    sn_topo_t *t = NULL;
    sn_err_t err;
    tu_assert_rc(sn_topo_parse(NULL, &t, &err), SN_ESPEC);
    tu_assert_rc(sn_topo_parse("ring:1", &t, NULL), SN_ESPEC);
    tu_assert_rc(sn_topo_parse("file:/nonexistent/x", &t, NULL), SN_EIO);
    assert_int_equal(bad, 0);
}

/* ---- sizing without building (sn_topo_parse_size) ------------------------------------------
 */

/* sn_topo_parse_size on a bad spec: 1 when it gives exactly sn_topo_parse's error. */
static int size_error_same(const char *spec)
{
    sn_topo_t *t = NULL;
    sn_err_t e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    int r1 = sn_topo_parse(spec, &t, &e1);
    uint64_t nodes = 0, procs = 0;
    char *canon = NULL;
    int r2 = sn_topo_parse_size(spec, NULL, 0, &nodes, &procs, &canon, &e2);
    sn_topo_free(t);
    free(canon);
    int ok = r1 < 0 && r2 == r1 && e2.code == e1.code && e2.param == e1.param &&
             strcmp(e2.msg, e1.msg) == 0;
    if (!ok)
        print_error("'%s': parse gives %s \"%s\", parse_size %s \"%s\"\n", spec, sn_err_name(r1),
                    e1.msg, sn_err_name(r2), e2.msg);
    return ok;
}

/* The counts and canonical spec of spec, which must size. */
static void size_of(const char *spec, uint64_t *nodes, uint64_t *procs, char **canon)
{
    sn_err_t err;
    memset(&err, 0, sizeof err);
    int rc = sn_topo_parse_size(spec, NULL, 0, nodes, procs, canon, &err);
    if (rc != 0)
        print_error("'%s': %s\n", spec, err.msg);
    tu_assert_rc(rc, 0);
}

static void test_parse_size(void **state)
{
    (void) state;
    int nbad = 0, *bad = &nbad;
    uint64_t nodes, procs;
    char *canon;
    /* Every family and product of the family table: the counts and spec of the built topology. */
    for (size_t i = 0; i < NELEMS(fam_cases); i++) {
        const fam_case_t *c = &fam_cases[i];
        size_of(c->spec, &nodes, &procs, &canon);
        EXPECT(nodes == c->n && procs == c->nproc, "%s: %llu nodes %llu procs, expected %u %u\n",
               c->spec, (unsigned long long) nodes, (unsigned long long) procs, c->n, c->nproc);
        EXPECT(strcmp(canon, c->canon) == 0, "%s: spec '%s', expected '%s'\n", c->spec, canon,
               c->canon);
        free(canon);
    }
    /* Sizes that would take gigabytes to build come from arithmetic alone. */
    size_of("hypercube:23", &nodes, &procs, NULL);
    EXPECT(nodes == 1u << 23 && procs == 1u << 23, "hypercube:23: %llu\n",
           (unsigned long long) nodes);
    size_of("fattree:4:12:const", &nodes, &procs, &canon);
    EXPECT(nodes == 22369621 && procs == 16777216 && strcmp(canon, "fattree:4:12:const") == 0,
           "fattree:4:12: %llu nodes %llu procs '%s'\n", (unsigned long long) nodes,
           (unsigned long long) procs, canon);
    free(canon);
    size_of("hypercube:020*ring:08", &nodes, &procs, &canon);
    EXPECT(nodes == 8u << 20 && procs == nodes && strcmp(canon, "hypercube:20*ring:8") == 0,
           "hypercube:20*ring:8: %llu '%s'\n", (unsigned long long) nodes, canon);
    free(canon);

    /* file: graphs: their router lines are not processors; from disk and from supplied text. */
    tfile_t f;
    tfile_make(&f, F_ROUTERS);
    size_of(f.spec, &nodes, &procs, &canon);
    EXPECT(nodes == 6 && procs == 4 && strcmp(canon, f.spec) == 0, "%s: %llu %llu '%s'\n", f.spec,
           (unsigned long long) nodes, (unsigned long long) procs, canon);
    free(canon);
    tfile_drop(&f);
    sn_topo_file_t sup = {(char *) "g.txt", (char *) F_PLAIN, strlen(F_PLAIN)};
    sn_err_t err;
    tu_assert_rc(sn_topo_parse_size("ring:3*file:g.txt", &sup, 1, &nodes, &procs, &canon, &err), 0);
    sn_topo_t *t = NULL;
    tu_assert_rc(sn_topo_parse_with("ring:3*file:g.txt", &sup, 1, &t, &err), 0);
    EXPECT(nodes == t->n && procs == t->nproc && strcmp(canon, t->spec) == 0,
           "ring:3*file:g.txt: %llu %llu '%s', built %u %u '%s'\n", (unsigned long long) nodes,
           (unsigned long long) procs, canon, t->n, t->nproc, t->spec);
    sn_topo_free(t);
    free(canon);
    tu_assert_rc(sn_topo_parse_size("file:other.txt", &sup, 1, &nodes, &procs, NULL, &err), SN_EIO);

    /* Bad specs: exactly the error of building them, files included. */
    for (size_t i = 0; i < NELEMS(err_cases); i++)
        nbad += !size_error_same(err_cases[i].spec);
    for (size_t i = 0; i < NELEMS(file_errs); i++) {
        tfile_make(&f, file_errs[i].text);
        nbad += !size_error_same(f.spec);
        tfile_drop(&f);
    }
    tfile_make(&f, F_ROUTERS);
    char spec[600];
    snprintf(spec, sizeof spec, "ring:3*%s", f.spec);
    nbad += !size_error_same(spec);
    tfile_drop(&f);
    nbad += !size_error_same(NULL);
    assert_int_equal(nbad, 0);
}

/* Cubes past SN_TOPO_MAX_PORTS ports are refused with SN_ERANGE before allocating. */
static void test_cube_port_limit(void **state)
{
    (void) state;
    int ok = parse_error_ok("hypercube:24", SN_ERANGE, "hypercube:24", NULL);
    ok &= parse_error_ok("hypercube:25", SN_ERANGE, "hypercube:25", NULL);
    ok &= parse_error_ok("foldedcube:24", SN_ERANGE, "foldedcube:24", NULL);
    assert_true(ok);
}

/* Every family checks the memory budget before it builds: a limit below the estimate refuses with
 * SN_ERANGE about the memory limit, naming the estimate; no limit builds it. */
static void test_parse_budget(void **state)
{
    (void) state;
    static const char *const specs[] = {
        "linear:70000",  "ring:70000",   "complete:300", "ering:30000:3",     "circulant:30000:1,7",
        "torus:300x300", "mesh:300x300", "hypercube:16", "foldedcube:16",     "ccc:13",
        "butterfly:13",  "star:8",       "fattree:4:8",  "ring:300*ring:300",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sn_topo_t *t = NULL;
        sn_err_t err = {0};
        int rc = sn_topo_parse_budget(specs[i], NULL, 0, 1u << 20, &t, &err);
        if (rc != SN_ERANGE || err.param != SN_PARAM_MEMORY ||
            strstr(err.msg, "the memory limit is 1.0 MiB") == NULL)
            fail_msg("%s under 1 MiB: rc %d, message '%s'", specs[i], rc, err.msg);
        assert_null(t);
        tu_assert_rc(sn_topo_parse_budget(specs[i], NULL, 0, 0, &t, &err), 0);
        assert_true(sn_topo_mem_estimate(t->n, t->port_off[t->n]) > (1u << 20));
        sn_topo_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_families), cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_size),     cmocka_unit_test(test_cube_port_limit),
        cmocka_unit_test(test_parse_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
