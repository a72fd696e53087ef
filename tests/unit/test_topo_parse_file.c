/* Unit tests of `file:` graphs (core/topo/parse_file.c): edge lists with comments, router lines
 * and parallel edges, their errors, the memory budget of a file read whole, the canonical text the
 * nodes receive, and sn_topo_from_edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/topo_check.h"

/* file: graphs: comments, blank lines, tabs, router lines, parallel edges, ports in file order. */
static void test_parse_file(void **state)
{
    (void) state;
    tfile_t f;
    tfile_make(&f, F_ROUTERS);
    sn_topo_t *t = tu_topo(f.spec);
    assert_int_equal(t->kind, SN_TOPO_FILE);
    assert_string_equal(t->spec, f.spec);
    assert_int_equal(t->n, 6);
    assert_int_equal(t->nproc, 4);
    assert_int_equal(t->nedges, 6);
    assert_non_null(t->is_router);
    for (uint32_t u = 0; u < 6; u++)
        assert_int_equal(sn_topo_is_proc(t, u), u < 4);
    for (uint32_t r = 0; r < 4; r++) {
        assert_int_equal(sn_topo_proc(t, r), r);
        assert_int_equal(sn_topo_rank(t, r), (int32_t) r);
    }
    assert_int_equal(sn_topo_rank(t, 4), -1);
    assert_int_equal(sn_topo_rank(t, 5), -1);
    /* Node 4: edges in file order 0, 1, 5, 5. */
    assert_int_equal(sn_topo_degree(t, 4), 4);
    assert_int_equal(sn_topo_port(t, 4, 0)->peer, 0);
    assert_int_equal(sn_topo_port(t, 4, 1)->peer, 1);
    assert_int_equal(sn_topo_port(t, 4, 2)->peer, 5);
    assert_int_equal(sn_topo_port(t, 4, 3)->peer, 5);
    assert_int_not_equal(sn_topo_port(t, 4, 2)->edge, sn_topo_port(t, 4, 3)->edge);
    uint32_t first, count;
    sn_topo_ports_to(t, 4, 5, &first, &count);
    assert_int_equal(first, 2);
    assert_int_equal(count, 2);
    sn_topo_free(t);
    tfile_drop(&f);

    /* Routers that are not a prefix of the ids: ranks skip them. */
    tfile_make(&f, F_LEAFROUTER);
    t = tu_topo(f.spec);
    assert_int_equal(t->n, 4);
    assert_int_equal(t->nproc, 2);
    assert_int_equal(sn_topo_proc(t, 0), 0);
    assert_int_equal(sn_topo_proc(t, 1), 2);
    assert_int_equal(sn_topo_rank(t, 2), 1);
    assert_int_equal(sn_topo_rank(t, 3), -1);
    sn_topo_free(t);
    tfile_drop(&f);

    tfile_make(&f, F_PLAIN);
    t = tu_topo(f.spec);
    assert_int_equal(t->n, 6);
    assert_int_equal(t->nproc, 6);
    assert_int_equal(t->nedges, 8);
    assert_null(t->is_router);
    /* Node 2: edges 1-2, 2-0, 2-3, 5-2 in that order. */
    assert_int_equal(sn_topo_degree(t, 2), 4);
    assert_int_equal(sn_topo_port(t, 2, 0)->peer, 1);
    assert_int_equal(sn_topo_port(t, 2, 1)->peer, 0);
    assert_int_equal(sn_topo_port(t, 2, 2)->peer, 3);
    assert_int_equal(sn_topo_port(t, 2, 3)->peer, 5);
    sn_topo_free(t);

    /* A file graph is a valid product factor when it has no routers. */
    char spec[600];
    snprintf(spec, sizeof spec, "%s*ring:3", f.spec);
    t = tu_topo(spec);
    assert_int_equal(t->kind, SN_TOPO_PRODUCT);
    assert_int_equal(t->n, 18);
    assert_int_equal(t->nfactors, 2);
    assert_int_equal(t->nedges, 3 * 8 + 6 * 3);
    assert_string_equal(t->spec, spec);
    sn_topo_free(t);
    tfile_drop(&f);

    /* CRLF line ends and a last line without a newline. */
    tfile_make(&f, "0 1\r\n1 2\r\n# c\r\n2 3");
    t = tu_topo(f.spec);
    assert_int_equal(t->n, 4);
    assert_int_equal(t->nedges, 3);
    sn_topo_free(t);
    tfile_drop(&f);
}

static void test_parse_file_errors(void **state)
{
    (void) state;
    int bad = 0;
    for (size_t i = 0; i < NELEMS(file_errs); i++) {
        tfile_t f;
        tfile_make(&f, file_errs[i].text);
        if (!parse_error_ok(f.spec, file_errs[i].code, file_errs[i].needle, file_errs[i].needle2)) {
            print_error("  (file text \"%s\")\n", file_errs[i].text);
            bad++;
        }
        tfile_drop(&f);
    }
    /* A line longer than the parser's limit. */
    size_t llen = 5000;
    char *text = malloc(llen + 16);
    memcpy(text, "0 1\n", 4);
    memset(text + 4, ' ', llen);
    memcpy(text + 4 + llen, "1 2\n", 5);
    tfile_t lf;
    tfile_make(&lf, text);
    free(text);
    bad += !parse_error_ok(lf.spec, SN_ESPEC, ":2:", "longer");
    tfile_drop(&lf);
    /* Routers are not allowed in product factors, from files either. */
    tfile_t f;
    tfile_make(&f, F_ROUTERS);
    char spec[600];
    snprintf(spec, sizeof spec, "ring:3*%s", f.spec);
    bad += !parse_error_ok(spec, SN_ESPEC, f.path, "router");
    tfile_drop(&f);
    assert_int_equal(bad, 0);
}

/* A file line with an extra field is refused with the whole line quoted. */
static void test_file_extra_field_message(void **state)
{
    (void) state;
    tfile_t f;
    tfile_make(&f, "0 1\n1 2 3\n");
    int ok = parse_error_ok(f.spec, SN_ESPEC, ":2:", "1 2 3");
    tfile_drop(&f);
    assert_true(ok);
}

/* Parallel edges on non-consecutive lines of a file graph get contiguous ports. */
static void test_file_parallel_contiguous(void **state)
{
    (void) state;
    tfile_t f;
    tfile_make(&f, "0 1\n1 2\n0 1\n2 0\n");
    sn_topo_t *t = tu_topo(f.spec);
    int nbad = 0;
    check_structure(t, &nbad);
    uint32_t first, count;
    sn_topo_ports_to(t, 0, 1, &first, &count);
    assert_int_equal(count, 2);
    sn_topo_free(t);
    tfile_drop(&f);
    assert_int_equal(nbad, 0);
}

/* ---- sn_topo_from_edges ----------------------------------------------------------------------
 */

static void test_from_edges(void **state)
{
    (void) state;
    sn_topo_t *t = NULL;
    sn_err_t err;
    /* A star around router 0 with a double link to 3. */
    const uint32_t u1[] = {0, 0, 0, 3}, v1[] = {1, 2, 3, 0};
    const uint8_t r1[] = {1, 0, 0, 0};
    tu_assert_rc(sn_topo_from_edges("mine", 4, 4, u1, v1, r1, &t, &err), 0);
    assert_string_equal(t->spec, "mine");
    assert_int_equal(t->kind, SN_TOPO_FILE);
    assert_int_equal(t->n, 4);
    assert_int_equal(t->nproc, 3);
    assert_int_equal(t->nedges, 4);
    assert_int_equal(sn_topo_proc(t, 0), 1);
    int nbad = 0;
    check_structure(t, &nbad);
    assert_int_equal(nbad, 0);
    sn_topo_free(t);

    const uint32_t u2[] = {0, 1}, v2[] = {1, 4};
    tu_assert_rc(sn_topo_from_edges("g", 4, 2, u2, v2, NULL, &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "4"));
    assert_non_null(strstr(err.msg, "g"));
    const uint32_t u3[] = {0, 1}, v3[] = {1, 1};
    tu_assert_rc(sn_topo_from_edges("g", 2, 2, u3, v3, NULL, &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "1-1"));
    const uint32_t u4[] = {0, 2}, v4[] = {1, 3};
    tu_assert_rc(sn_topo_from_edges("g", 4, 2, u4, v4, NULL, &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "connected"));
    const uint32_t u5[] = {0}, v5[] = {1};
    tu_assert_rc(sn_topo_from_edges("g", 3, 1, u5, v5, NULL, &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "node 2"));
    const uint8_t r5[] = {1, 1};
    tu_assert_rc(sn_topo_from_edges("g", 2, 1, u5, v5, r5, &t, &err), SN_ESPEC);
    assert_non_null(strstr(err.msg, "router"));
    tu_assert_rc(sn_topo_from_edges("g", 1, 0, u5, v5, NULL, &t, &err), SN_ESPEC);
}

/* A ring of 4 behind a comment block of `comment` bytes: what a file: graph of few edges and many
 * comments looks like (the spec of f). */
static void tfile_commented_ring(tfile_t *f, size_t comment)
{
    char *text = malloc(comment + 128);
    assert_non_null(text);
    size_t n = 0;
    n += (size_t) sprintf(text, "0 1\n1 2\n");
    while (n < comment) {
        memcpy(text + n, "# ", 2);
        memset(text + n + 2, 'x', 77);
        text[n + 79] = '\n';
        n += 80;
    }
    strcpy(text + n, "2 3\n3 0\n");
    tfile_make(f, text);
    free(text);
}

/* A file: graph is read whole: a file larger than the memory limit is refused from its size
 * before it is read (SN_ERANGE about --max-memory, naming the size and the limit), one that fits
 * is built and its text counted (source_bytes). */
static void test_file_budget(void **state)
{
    (void) state;
    tfile_t f;
    tfile_commented_ring(&f, 2u << 20);
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_topo_parse_budget(f.spec, NULL, 0, 1u << 20, &t, &err), SN_ERANGE);
    assert_null(t);
    assert_int_equal(err.param, SN_PARAM_MEMORY);
    if (strstr(err.msg, "is 2.0 MiB") == NULL || strstr(err.msg, "memory limit is 1.0 MiB") == NULL)
        fail_msg("message: %s", err.msg);
    tu_assert_rc(sn_topo_parse_budget(f.spec, NULL, 0, 8u << 20, &t, &err), 0);
    assert_int_equal(t->n, 4);
    assert_true(t->source_bytes >= (2u << 20) && t->source_bytes < (2u << 20) + 256);
    sn_topo_free(t);
    /* the text, its edges and the topology must fit together, not the file alone */
    tu_assert_rc(sn_topo_parse_budget(f.spec, NULL, 0, (2u << 20) + 100, &t, &err), SN_ERANGE);
    assert_int_equal(err.param, SN_PARAM_MEMORY);
    assert_null(t);
    tfile_drop(&f);
}

/* Ports, edges and routers of a and b are the same. */
static void assert_same_graph(const sn_topo_t *a, const sn_topo_t *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->nproc, b->nproc);
    assert_int_equal(a->nedges, b->nedges);
    for (uint32_t u = 0; u < a->n; u++) {
        assert_int_equal(sn_topo_degree(a, u), sn_topo_degree(b, u));
        assert_int_equal(sn_topo_is_proc(a, u), sn_topo_is_proc(b, u));
        for (uint32_t q = 0; q < sn_topo_degree(a, u); q++) {
            const sn_port_t *x = sn_topo_port(a, u, q), *y = sn_topo_port(b, u, q);
            assert_int_equal(x->peer, y->peer);
            assert_int_equal(x->edge, y->edge);
            assert_int_equal(x->rport, y->rport);
        }
    }
}

/* The canonical text of a file: graph (what nodes receive) rebuilds the same ports and edges,
 * holds no comment, and stays within sn_topo_file_text_max; for a graph given with a large comment
 * block it is a few bytes. */
static void test_file_text(void **state)
{
    (void) state;
    const char *graphs[] = {F_ROUTERS, F_PLAIN, F_LEAFROUTER,
                            /* ports whose order no edge-id order keeps: node 3 meets 5 first */
                            "3 5\n0 1\n1 2\n2 3\n3 0\n5 4\n4 0\n1 5\n2 4\n3 5\n"};
    for (size_t i = 0; i < sizeof graphs / sizeof graphs[0]; i++) {
        tfile_t f;
        tfile_make(&f, graphs[i]);
        sn_topo_t *t = tu_topo(f.spec), *back = NULL;
        char *text;
        size_t len;
        sn_topo_file_text(sn_topo_file_factor(t), &text, &len);
        assert_int_equal(strlen(text), len);
        assert_null(strchr(text, '#'));
        assert_true(len <= sn_topo_file_text_max(t));
        sn_topo_file_t sup = {f.path, text, len};
        sn_err_t err = {0};
        tu_assert_rc(sn_topo_parse_with(f.spec, &sup, 1, &back, &err), 0);
        assert_same_graph(t, back);
        sn_topo_free(back);
        free(text);
        sn_topo_free(t);
        tfile_drop(&f);
    }
    tfile_t f;
    tfile_commented_ring(&f, 1u << 20);
    char spec[600];
    snprintf(spec, sizeof spec, "ring:3*%s", f.spec);
    sn_topo_t *t = tu_topo(spec);
    const sn_topo_t *file = sn_topo_file_factor(t);
    assert_non_null(file);
    assert_true(file->source_bytes > (1u << 20));
    char *text;
    size_t len;
    sn_topo_file_text(file, &text, &len);
    assert_string_equal(text, "0 1\n1 2\n2 3\n0 3\n");
    free(text);
    /* what a node accepts: the edge list; the file with its comments is refused, naming both */
    sn_err_t err = {0};
    tu_assert_rc(sn_topo_file_text_check(file, 16, &err), 0);
    tu_assert_rc(sn_topo_file_text_check(file, file->source_bytes, &err), SN_EINVAL);
    if (strstr(err.msg, "whose edge list takes at most 16") == NULL)
        fail_msg("message: %s", err.msg);
    sn_topo_free(t);
    t = tu_topo("ring:5");
    assert_null(sn_topo_file_factor(t));
    sn_topo_free(t);
    tfile_drop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_file),
        cmocka_unit_test(test_file_budget),
        cmocka_unit_test(test_file_text),
        cmocka_unit_test(test_parse_file_errors),
        cmocka_unit_test(test_file_extra_field_message),
        cmocka_unit_test(test_file_parallel_contiguous),
        cmocka_unit_test(test_from_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
