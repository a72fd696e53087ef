/* Unit tests of the file column of the list of algorithms (core/algo/algos.def): for every
 * SN_ALGO and SN_ALGO_HIDDEN line, the file it names exists in the source tree (STEPNET_SRC, set
 * by ctest) and defines that line's descriptor; the file follows the rule of algos.h (a listed
 * algorithm in core/algo/<coll>/<coll>_<family>.c, a hidden one in engine/ or testing/); and no
 * file under core/algo defines a descriptor that the list does not name, or names another file
 * for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/model.h"
#include "tests/support/testutil.h"

typedef struct {
    const char *id, *file;
    const sn_algo_t *algo;
    int hidden;
} row_t;

static const row_t rows[] = {
#define SN_ALGO(id, file, topologies, steps) {#id, file, &sn__algo_##id, 0},
#define SN_ALGO_HIDDEN(id, file)             {#id, file, &sn__algo_##id, 1},
#include "core/algo/algos.def"
};
#define NROWS (sizeof rows / sizeof rows[0])

/* The identifier at s (letters, digits, '_'), copied into out; its length. */
static size_t ident(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    while ((s[n] == '_' || isalnum((unsigned char) s[n])) && n + 1 < cap) {
        out[n] = s[n];
        n++;
    }
    out[n] = '\0';
    return n;
}

/* 1 when the line defines a descriptor: `const sn_algo_t sn__algo_<id> =` (macro "") or, through
 * a macro of the file, `MACRO(sn__algo_<id>, ...` (the route and tree algorithms). */
static int definition_at(const char *line, char id[128], char macro[64])
{
    static const char plain[] = "const sn_algo_t sn__algo_";
    macro[0] = '\0';
    if (strncmp(line, plain, sizeof plain - 1) == 0) {
        size_t n = ident(line + sizeof plain - 1, id, 128);
        return n > 0 && strncmp(line + sizeof plain - 1 + n, " =", 2) == 0;
    }
    size_t m = ident(line, macro, 64);
    if (m == 0 || strncmp(line + m, "(sn__algo_", 10) != 0)
        return 0;
    size_t n = ident(line + m + 10, id, 128);
    return n > 0 && line[m + 10 + n] == ',';
}

/* Calls found(id, macro) for every descriptor that text defines; returns how many. */
static size_t each_definition(const char *text, void (*found)(const char *, const char *, void *),
                              void *arg)
{
    size_t count = 0;
    for (const char *line = text; line != NULL && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        char id[128], macro[64];
        if (definition_at(line, id, macro)) {
            found(id, macro, arg);
            count++;
        }
    }
    return count;
}

typedef struct {
    const row_t *row;
    const char *text;
    int defined;
} want_t;

static void match_row(const char *id, const char *macro, void *arg)
{
    want_t *w = arg;
    if (strcmp(id, w->row->id) != 0)
        return;
    if (macro[0] != '\0') {
        /* the macro must be the file's own and define a descriptor */
        char def[96];
        snprintf(def, sizeof def, "#define %s(", macro);
        const char *d = strstr(w->text, def), *end = d;
        while (end && (end = strchr(end, '\n')) != NULL && end[-1] == '\\')
            end++;
        const char *desc = d ? strstr(d, "const sn_algo_t") : NULL;
        if (d == NULL || desc == NULL || (end != NULL && desc > end))
            fail_msg("%s: sn__algo_%s is made by %s, which the file does not define as a "
                     "descriptor",
                     w->row->file, id, macro);
    }
    w->defined++;
}

/* Every line's file exists and defines its descriptor, once. */
static void test_file_defines_descriptor(void **state)
{
    (void) state;
    const char *src = tu_src_root();
    for (size_t i = 0; i < NROWS; i++) {
        const row_t *r = &rows[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", src, r->file);
        char *text = tu_read_file(path);
        if (text == NULL)
            fail_msg("algos.def names %s for sn__algo_%s: no such file in %s", r->file, r->id, src);
        want_t w = {r, text, 0};
        each_definition(text, match_row, &w);
        if (w.defined != 1)
            fail_msg("algos.def names %s for sn__algo_%s, which that file defines %d times",
                     r->file, r->id, w.defined);
        free(text);
    }
}

/* The rule of algos.h: a listed algorithm in core/algo/<coll>/<coll>_<family>.c, <coll> one of
 * the collectives of the registry (the first algorithm of a shared file decides which, so it may
 * be another algorithm's: te-route in mnb/mnb_route.c); a hidden one in engine/ or testing/. */
static void test_files_follow_the_axis(void **state)
{
    (void) state;
    size_t n;
    const sn_algo_t *const *all = sn_model_algos(&n);
    size_t listed = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const row_t *r = &rows[i];
        const char *prefix = "core/algo/";
        if (strncmp(r->file, prefix, strlen(prefix)) != 0)
            fail_msg("sn__algo_%s: %s is not under %s", r->id, r->file, prefix);
        const char *folder = r->file + strlen(prefix), *slash = strchr(folder, '/');
        size_t flen = slash ? (size_t) (slash - folder) : 0;
        const char *base = slash ? slash + 1 : "";
        size_t blen = strlen(base);
        if (flen == 0 || strchr(base, '/') != NULL || blen < 3 ||
            strcmp(base + blen - 2, ".c") != 0)
            fail_msg("sn__algo_%s: %s is not core/algo/<folder>/<file>.c", r->id, r->file);
        if (r->hidden) {
            if (!(flen == 6 && strncmp(folder, "engine", 6) == 0) &&
                !(flen == 7 && strncmp(folder, "testing", 7) == 0))
                fail_msg("hidden sn__algo_%s: %s is not in engine/ or testing/", r->id, r->file);
            continue;
        }
        int coll = 0;
        for (size_t j = 0; j < n && !coll; j++) {
            const char *c = sn_coll_name(all[j]->coll);
            coll = strlen(c) == flen && strncmp(c, folder, flen) == 0;
        }
        if (!coll)
            fail_msg("sn__algo_%s: %s is not in the folder of a collective", r->id, r->file);
        if (strncmp(base, folder, flen) != 0 || base[flen] != '_')
            fail_msg("sn__algo_%s: %s is not named <coll>_<family>.c in its folder %.*s/", r->id,
                     r->file, (int) flen, folder);
        if (listed >= n || r->algo != all[listed])
            fail_msg("sn__algo_%s is not the registry's algorithm %zu", r->id, listed);
        listed++;
    }
    assert_int_equal(listed, n);
}

typedef struct {
    const char *file; /* from the repository's root */
    size_t unlisted;
} scan_t;

static void check_listed(const char *id, const char *macro, void *arg)
{
    (void) macro;
    scan_t *s = arg;
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(rows[i].id, id) == 0) {
            if (strcmp(rows[i].file, s->file) != 0)
                fail_msg("%s defines sn__algo_%s, for which algos.def names %s", s->file, id,
                         rows[i].file);
            return;
        }
    print_error("%s defines sn__algo_%s, which algos.def does not list\n", s->file, id);
    s->unlisted++;
}

/* Every descriptor defined in a file of core/algo/<folder>/ is listed, with that file. */
static void test_every_definition_listed(void **state)
{
    (void) state;
    const char *src = tu_src_root();
    char top[4096];
    snprintf(top, sizeof top, "%s/core/algo", src);
    DIR *d = opendir(top);
    if (d == NULL)
        fail_msg("cannot open %s", top);
    size_t files = 0, defs = 0, unlisted = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char sub[8192];
        if ((size_t) snprintf(sub, sizeof sub, "%s/%s", top, e->d_name) >= sizeof sub)
            fail_msg("path too long: %s/%s", top, e->d_name);
        DIR *f = opendir(sub);
        if (f == NULL)
            continue; /* algos.def, algos.h */
        struct dirent *g;
        while ((g = readdir(f)) != NULL) {
            size_t len = strlen(g->d_name);
            if (len < 3 || strcmp(g->d_name + len - 2, ".c") != 0)
                continue;
            char rel[1024], path[8192];
            if ((size_t) snprintf(rel, sizeof rel, "core/algo/%s/%s", e->d_name, g->d_name) >=
                    sizeof rel ||
                (size_t) snprintf(path, sizeof path, "%s/%s", src, rel) >= sizeof path)
                fail_msg("path too long: %s/%s", sub, g->d_name);
            char *text = tu_read_file(path);
            if (text == NULL)
                fail_msg("cannot read %s", path);
            scan_t s = {rel, 0};
            defs += each_definition(text, check_listed, &s);
            unlisted += s.unlisted;
            files++;
            free(text);
        }
        closedir(f);
    }
    closedir(d);
    assert_int_equal(unlisted, 0);
    /* every line was found by the scan too: the two agree on the whole list */
    assert_int_equal(defs, NROWS);
    assert_true(files > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_defines_descriptor),
        cmocka_unit_test(test_files_follow_the_axis),
        cmocka_unit_test(test_every_definition_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
