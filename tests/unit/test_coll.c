/* Unit tests of the list of collectives (core/coll/colls.def, colls.c): every name and alias parses
 * to its collective and every name round-trips, the parser's message lists what it accepts byte
 * for byte, the flags and the columns give the predicates the truth table they had when they were
 * written by hand, the messages' lists come from the flags, and README.md's "Collectives" table is
 * the one the list generates. The help texts and messages that list collectives in an order of
 * their own name exactly the collectives they are about. `test_coll --markdown` prints README's
 * table, to paste between its colls markers when the list changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "stepnet/algo.h"
#include "tests/support/testutil.h"

#define BEGIN_MARK                                                                                 \
    "<!-- colls:begin (generated from core/coll/colls.def: test_coll --markdown) -->\n"
#define END_MARK "<!-- colls:end -->\n"

static void test_names_round_trip(void **state)
{
    (void) state;
    for (int c = 0; c < SN_COLL_COUNT; c++) {
        sn_coll_t got = SN_COLL_COUNT;
        tu_assert_rc(sn_coll_parse(sn_coll_name((sn_coll_t) c), &got, NULL), 0);
        assert_int_equal(got, c);
        for (int d = 0; d < c; d++)
            assert_string_not_equal(sn_coll_name((sn_coll_t) c), sn_coll_name((sn_coll_t) d));
    }
    assert_string_equal(sn_coll_name(SN_COLL_COUNT), "unknown");
    assert_string_equal(sn_coll_name((sn_coll_t) -1), "unknown");
}

/* The names and aliases that the command line accepted before the list existed. */
static void test_every_name_and_alias(void **state)
{
    (void) state;
    static const struct {
        const char *s;
        sn_coll_t c;
    } accepted[] = {
        {"bcast", SN_COLL_BCAST},
        {"broadcast", SN_COLL_BCAST},
        {"scatter", SN_COLL_SCATTER},
        {"gather", SN_COLL_GATHER},
        {"mnb", SN_COLL_MNB},
        {"allgather", SN_COLL_MNB},
        {"te", SN_COLL_TE},
        {"alltoall", SN_COLL_TE},
        {"pmnb", SN_COLL_PMNB},
        {"pexchange", SN_COLL_PEXCHANGE},
        {"pmna", SN_COLL_PMNA},
        {"dynbcast", SN_COLL_DYNBCAST},
        {"sna", SN_COLL_SNA},
        {"reduce", SN_COLL_SNA},
        {"allreduce", SN_COLL_ALLREDUCE},
        {"barrier", SN_COLL_BARRIER},
        {"mna", SN_COLL_MNA},
        {"reduce_scatter", SN_COLL_MNA},
        {"reduce-scatter", SN_COLL_MNA},
    };
    assert_int_equal(SN_COLL_COUNT, 13);
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        sn_coll_t got = SN_COLL_COUNT;
        sn_err_t err = {0};
        tu_assert_rc(sn_coll_parse(accepted[i].s, &got, &err), 0);
        assert_int_equal(got, accepted[i].c);
    }
    /* near misses */
    const char *refused[] = {"", "BCAST", "bcast ", "reduce scatter", "all", "unknown"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sn_coll_t got = SN_COLL_COUNT;
        tu_assert_rc(sn_coll_parse(refused[i], &got, NULL), SN_EINVAL);
        assert_int_equal(got, SN_COLL_COUNT);
    }
}

static void test_accepted_message(void **state)
{
    (void) state;
    sn_coll_t got;
    sn_err_t err = {0};
    tu_assert_rc(sn_coll_parse("nosuch", &got, &err), SN_EINVAL);
    assert_int_equal(err.code, SN_EINVAL);
    assert_string_equal(err.msg, "unknown collective 'nosuch'; accepted: bcast (broadcast), "
                                 "scatter, gather, mnb (allgather), te (alltoall), pmnb, "
                                 "pexchange, pmna, dynbcast, sna (reduce), allreduce, barrier, "
                                 "mna (reduce_scatter)");
    /* a typo of a name or of an MPI name gets the name */
    tu_assert_rc(sn_coll_parse("bcst", &got, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "unknown collective 'bcst': did you mean bcast? accepted: "));
    tu_assert_rc(sn_coll_parse("alltoal", &got, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "did you mean alltoall?"));
    tu_assert_rc(sn_coll_parse("reduce_scater", &got, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "did you mean reduce_scatter?"));
}

/* The predicates against the sets their hand-written versions tested (id ranges included). */
static void test_flags_truth_table(void **state)
{
    (void) state;
#define BIT(c) (1u << SN_COLL_##c)
    const unsigned broadcast = BIT(BCAST) | BIT(MNB) | BIT(PMNB) | BIT(DYNBCAST);
    const unsigned combining = BIT(SNA) | BIT(PMNA) | BIT(ALLREDUCE) | BIT(BARRIER) | BIT(MNA);
    const unsigned partial = BIT(PMNB) | BIT(PEXCHANGE) | BIT(PMNA);
    const unsigned rounds = BIT(DYNBCAST);
    const unsigned rooted = BIT(BCAST) | BIT(SCATTER) | BIT(GATHER) | BIT(SNA);
    const unsigned uniform = BIT(ALLREDUCE) | BIT(BARRIER);
#undef BIT
    for (int c = -1; c <= SN_COLL_COUNT; c++) {
        sn_coll_t k = (sn_coll_t) c;
        int in = c >= 0 && c < SN_COLL_COUNT;
        unsigned bit = in ? 1u << c : 0;
        assert_int_equal(sn_coll_is_broadcast(k), (broadcast & bit) != 0);
        assert_int_equal(sn_coll_is_combining(k), (combining & bit) != 0);
        assert_int_equal(sn_coll_is_partial(k), (partial & bit) != 0);
        assert_int_equal(sn_coll_is_rounds(k), (rounds & bit) != 0);
        assert_int_equal(sn__coll_is_rooted(k), (rooted & bit) != 0);
        assert_int_equal(sn__coll_is_uniform(k), (uniform & bit) != 0);
        /* the rounds-driven collective is the one nobody sends in; all others have senders and
         * receivers */
        assert_int_equal(sn__coll_senders(k) == SN_COLL_GROUP_NONE, !in || (rounds & bit) != 0);
        assert_int_equal(sn__coll_receivers(k) == SN_COLL_GROUP_NONE, !in || (rounds & bit) != 0);
    }
}

static int all(sn_coll_t c)
{
    (void) c;
    return 1;
}

static int none(sn_coll_t c)
{
    (void) c;
    return 0;
}

static void test_name_lists(void **state)
{
    (void) state;
    char buf[256];
    assert_string_equal(sn__coll_names(buf, sizeof buf, sn_coll_is_partial),
                        "pmnb, pexchange, pmna");
    assert_string_equal(sn__coll_names(buf, sizeof buf, sn_coll_is_combining),
                        "pmna, sna, allreduce, barrier, mna");
    assert_string_equal(sn__coll_names(buf, sizeof buf, all),
                        "bcast, scatter, gather, mnb, te, pmnb, pexchange, pmna, dynbcast, sna, "
                        "allreduce, barrier, mna");
    assert_string_equal(sn__coll_names(buf, sizeof buf, none), "");
    /* a short buffer is truncated and terminated */
    assert_string_equal(sn__coll_names(buf, 8, all), "bcast, ");
}

/* The messages of the parameter checks that list collectives, as they read before the list. */
static void test_check_messages(void **state)
{
    (void) state;
    sn_params_t p;
    sn_err_t err = {0};
    sn_params_default(&p, SN_COLL_DYNBCAST);
    tu_assert_rc(sn_params_check_free(&p, &err), SN_ENOTSUP);
    assert_string_equal(err.msg, "collective dynbcast is rounds of broadcasts arriving at "
                                 "random, not one collective: no algorithm runs it (sim and run "
                                 "play its rounds); accepted here: bcast, scatter, gather, mnb, "
                                 "te, pmnb, pexchange, pmna, sna, allreduce, barrier, mna");
    sn_topo_t *t = tu_topo("ring:5");
    uint32_t src[] = {1, 3};
    sn_params_default(&p, SN_COLL_TE);
    p.sources = src;
    p.nsources = 2;
    tu_assert_rc(sn_params_check(t, &p, &err), SN_EINVAL);
    assert_string_equal(err.msg, "sources apply to partial collectives (pmnb, pexchange, pmna), "
                                 "not te");
    for (int c = 0; c < SN_COLL_COUNT; c++) {
        if (sn_coll_is_rounds((sn_coll_t) c))
            continue;
        sn_params_default(&p, (sn_coll_t) c);
        p.sources = sn_coll_is_partial((sn_coll_t) c) ? src : NULL;
        p.nsources = p.sources ? 2 : 0;
        tu_assert_rc(sn_params_check(t, &p, &err), 0);
    }
    sn_topo_free(t);
}

/* ---- texts written by hand ---------------------------------------------------------------------
 * Some help texts and messages list collectives in an order of their own (sna before pmna), so
 * they cannot be generated without changing them; these tests keep each naming exactly the
 * collectives it is about. */

/* 1 when word occurs in text[0 .. len) delimited by characters that cannot be in a name. */
static int has_word(const char *text, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = text; p + w <= text + len; p++) {
        if (strncmp(p, word, w) != 0)
            continue;
        int before = p == text || strchr(" ,(\n", p[-1]) != NULL;
        int after = p + w == text + len || strchr(" ,.;:)\n", p[w]) != NULL;
        if (before && after)
            return 1;
    }
    return 0;
}

/* The collectives' names in text[0 .. len) are those for which keep returns 1, and with
 * mpi_too their MPI aliases as well. */
static void expect_names(const char *what, const char *text, size_t len, int (*keep)(sn_coll_t),
                         int mpi_too)
{
    for (int c = 0; c < SN_COLL_COUNT; c++) {
        sn_coll_t k = (sn_coll_t) c;
        if (has_word(text, len, sn_coll_name(k)) != keep(k))
            fail_msg("%s %s %s: '%.*s'", what, keep(k) ? "lacks" : "names", sn_coll_name(k),
                     (int) len, text);
    }
    if (!mpi_too)
        return;
    static const struct {
        const char *alias;
        sn_coll_t c;
    } shown[] = {{"broadcast", SN_COLL_BCAST},
                 {"allgather", SN_COLL_MNB},
                 {"alltoall", SN_COLL_TE},
                 {"reduce", SN_COLL_SNA},
                 {"reduce_scatter", SN_COLL_MNA}};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        sn_coll_t got;
        tu_assert_rc(sn_coll_parse(shown[i].alias, &got, NULL), 0);
        assert_int_equal(got, shown[i].c);
        if (!has_word(text, len, shown[i].alias))
            fail_msg("%s lacks the MPI alias %s: '%.*s'", what, shown[i].alias, (int) len, text);
    }
}

static int runs_once(sn_coll_t c)
{
    return !sn_coll_is_rounds(c);
}

/* The text of out from the end of `from` to the start of `to` (after it); fails without them. */
static const char *between(const char *out, const char *from, const char *to, size_t *len)
{
    const char *a = strstr(out, from);
    if (a == NULL)
        fail_msg("no '%s' in: %s", from, out);
    a += strlen(from);
    const char *b = strstr(a, to);
    if (b == NULL)
        fail_msg("no '%s' after '%s' in: %s", to, from, out);
    *len = (size_t) (b - a);
    return a;
}

static void test_hand_written_lists(void **state)
{
    (void) state;
    const char *cmds[] = {"model", "sim", "run", "export", "synth"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *args[] = {cmds[i], "--help", NULL};
        tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &(tu_exec_opts_t){.name = "stepnet"});
        tu_expect_status(&p, 0);
        size_t len;
        const char *row = between(p.out, "\n  --coll C ", "\n  --ports", &len);
        expect_names("the --coll help", row, len, runs_once, 1);
        if (strcmp(cmds[i], "export") == 0) {
            const char *c = between(p.out, "the combining ones (", ")", &len);
            expect_names("export's help", c, len, sn_coll_is_combining, 0);
        }
        tu_exec_free(&p);
    }
    const char *args[] = {"sim", "--topo", "ring:4", NULL};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&p, 2);
    size_t len;
    const char *list = between(p.err, "sim needs --coll C (", ")", &len);
    expect_names("the missing --coll message", list, len, runs_once, 0);
    tu_exec_free(&p);
}

/* ---- README.md's table ---------------------------------------------------------------------- */

/* README.md's block between the colls markers; the caller frees it. */
static char *readme_block(void)
{
    return tu_readme_block(BEGIN_MARK, END_MARK);
}

static void test_readme_table(void **state)
{
    (void) state;
    char *want = sn__coll_markdown();
    char *have = readme_block();
    if (strcmp(have, want) != 0)
        fail_msg("README.md's collectives table is not the one core/coll/colls.def generates: "
                 "replace the block between the colls markers with the output of "
                 "`build/tests/test_coll --markdown`");
    /* one row per collective, each with its name */
    assert_int_equal(tu_count_char(want, '\n'), SN_COLL_COUNT + 2);
    for (int c = 0; c < SN_COLL_COUNT; c++) {
        char cell[64];
        snprintf(cell, sizeof cell, "\n| `%s` | ", sn_coll_name((sn_coll_t) c));
        assert_non_null(strstr(want, cell));
    }
    assert_non_null(
        strstr(want, "| `mna` | `reduce_scatter` (also `reduce-scatter`) | combining |"));
    free(want);
    free(have);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
        char *md = sn__coll_markdown();
        fputs(md, stdout);
        free(md);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),   cmocka_unit_test(test_every_name_and_alias),
        cmocka_unit_test(test_accepted_message),   cmocka_unit_test(test_flags_truth_table),
        cmocka_unit_test(test_name_lists),         cmocka_unit_test(test_check_messages),
        cmocka_unit_test(test_hand_written_lists), cmocka_unit_test(test_readme_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
