/* Unit tests of proc/opts.c: the table-driven option parser of stepnet and stepnet-node. Both
 * spellings of a value, flags refusing a value, ranges, strings, values read by a callback, and
 * the message of every refusal (the option, the value, what is accepted); and the --help lines
 * written from the same tables (alignment, continuation lines, the refusals of sn_opts_help). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "proc/opts.h"
#include "tests/support/testutil.h"

/* What the test table fills in. */
typedef struct vals_s {
    int quiet, help, version;
    int64_t reps, offset;
    const char *name;
    int64_t id;   /* --id auto|N: -2 for auto */
    int64_t mode; /* --loud 1, --soft 0 (SN_OPT_SET; -1: neither) */
    int64_t size; /* --size, an SN_OPT_SIZE from 0 to 1G */
} vals_t;

static int parse_id(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    int64_t *id = opt->ctx;
    if (strcmp(v, "auto") == 0) {
        *id = -2;
        return 0;
    }
    if (sn_opts_int(opt->name, v, 0, 99, NULL, id, err) < 0)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for %s: expected an integer from 0 to 99, "
                          "or auto",
                          v, opt->name);
    return 0;
}

/* Parses the NULL-terminated args into v (reset first). */
static int parse(vals_t *v, sn_err_t *err, const char *const *args)
{
    memset(v, 0, sizeof *v);
    v->reps = v->offset = v->id = v->mode = v->size = -1;
    const sn_opt_t table[] = {
        {.name = "--quiet", .kind = SN_OPT_FLAG, .flag = &v->quiet},
        {.name = "--help", .kind = SN_OPT_STOP, .flag = &v->help},
        {.name = "-h", .kind = SN_OPT_STOP, .flag = &v->help},
        {.name = "--version", .kind = SN_OPT_STOP, .flag = &v->version},
        {.name = "--reps", .kind = SN_OPT_INT, .num = &v->reps, .lo = 1, .hi = 1000},
        {.name = "--offset",
         .kind = SN_OPT_INT,
         .num = &v->offset,
         .lo = -5,
         .hi = 5,
         .unit = "an offset"},
        {.name = "--name", .kind = SN_OPT_STR, .str = &v->name},
        {.name = "--id", .kind = SN_OPT_FN, .fn = parse_id, .ctx = &v->id},
        {.name = "--loud", .kind = SN_OPT_SET, .num = &v->mode, .lo = 1},
        {.name = "--soft", .kind = SN_OPT_SET, .num = &v->mode, .lo = 0},
        {.name = "--size", .kind = SN_OPT_SIZE, .num = &v->size, .lo = 0, .hi = 1 << 30},
        {0},
    };
    int argc = 0;
    while (args[argc])
        argc++;
    memset(err, 0, sizeof *err);
    return sn_opts_parse(argc, (char *const *) args, table, err);
}

/* args are refused with SN_EINVAL and a message holding `want`. */
static void refused(const char *const *args, const char *want)
{
    vals_t v;
    sn_err_t err;
    tu_assert_rc(parse(&v, &err, args), SN_EINVAL);
    if (strstr(err.msg, want) == NULL)
        fail_msg("%s ...: message '%s' lacks '%s'", args[0], err.msg, want);
}

static void test_both_spellings(void **state)
{
    (void) state;
    vals_t v;
    sn_err_t err;
    tu_assert_rc(parse(&v, &err,
                       (const char *[]){"--reps", "7", "--name", "a b", "--offset=-5", "--quiet",
                                        "--id=auto", NULL}),
                 0);
    assert_int_equal(v.reps, 7);
    assert_int_equal(v.offset, -5);
    assert_string_equal(v.name, "a b");
    assert_int_equal(v.quiet, 1);
    assert_int_equal(v.id, -2);
    tu_assert_rc(
        parse(&v, &err,
              (const char *[]){"--reps=1000", "--name=x=y", "--id", "42", "--offset", "5", NULL}),
        0);
    assert_int_equal(v.reps, 1000);
    assert_string_equal(v.name, "x=y");
    assert_int_equal(v.id, 42);
    assert_int_equal(v.offset, 5);
    assert_int_equal(v.quiet, 0);
    /* an empty value and a value that looks like an option are values */
    tu_assert_rc(parse(&v, &err, (const char *[]){"--name=", NULL}), 0);
    assert_string_equal(v.name, "");
    tu_assert_rc(parse(&v, &err, (const char *[]){"--name", "--quiet", NULL}), 0);
    assert_string_equal(v.name, "--quiet");
    assert_int_equal(v.quiet, 0);
    /* the last of repeated options wins; no arguments at all is fine */
    tu_assert_rc(parse(&v, &err, (const char *[]){"--reps", "2", "--reps=3", NULL}), 0);
    assert_int_equal(v.reps, 3);
    tu_assert_rc(parse(&v, &err, (const char *[]){NULL}), 0);
    assert_int_equal(v.reps, -1);
}

static void test_flags(void **state)
{
    (void) state;
    refused((const char *[]){"--quiet=1", NULL}, "option '--quiet=1' takes no value; see --help");
    refused((const char *[]){"--quiet=", NULL}, "option '--quiet=' takes no value");
    refused((const char *[]){"--help=yes", NULL}, "option '--help=yes' takes no value");
    /* --help stops at once: what follows is not read */
    vals_t v;
    sn_err_t err;
    tu_assert_rc(parse(&v, &err, (const char *[]){"--reps", "2", "--help", "--bogus", NULL}),
                 SN_OPTS_STOP);
    assert_int_equal(v.help, 1);
    assert_int_equal(v.reps, 2);
    tu_assert_rc(parse(&v, &err, (const char *[]){"-h", NULL}), SN_OPTS_STOP);
    assert_int_equal(v.help, 1);
    tu_assert_rc(parse(&v, &err, (const char *[]){"--version", NULL}), SN_OPTS_STOP);
    assert_int_equal(v.version, 1);
    assert_int_equal(v.help, 0);
    /* an error before --help wins */
    refused((const char *[]){"--reps", "0", "--help", NULL}, "bad value '0' for --reps");
}

/* A flag that stores a value: the last one given wins, and neither takes a value. */
static void test_set_flags(void **state)
{
    (void) state;
    vals_t v;
    sn_err_t err;
    tu_assert_rc(parse(&v, &err, (const char *const[]){"--quiet", NULL}), 0);
    assert_int_equal(v.mode, -1);
    tu_assert_rc(parse(&v, &err, (const char *const[]){"--loud", NULL}), 0);
    assert_int_equal(v.mode, 1);
    tu_assert_rc(parse(&v, &err, (const char *const[]){"--loud", "--soft", NULL}), 0);
    assert_int_equal(v.mode, 0);
    tu_assert_rc(parse(&v, &err, (const char *const[]){"--soft", "--reps", "3", "--loud", NULL}),
                 0);
    assert_int_equal(v.mode, 1);
    assert_int_equal(v.reps, 3);
    refused((const char *const[]){"--loud=1", NULL}, "option '--loud=1' takes no value");
    refused((const char *const[]){"--soft=", NULL}, "option '--soft=' takes no value");
}

static void test_ranges(void **state)
{
    (void) state;
    refused((const char *[]){"--reps", "0", NULL},
            "bad value '0' for --reps: expected an integer from 1 to 1000");
    refused((const char *[]){"--reps=1001", NULL},
            "bad value '1001' for --reps: expected an integer from 1 to 1000");
    refused((const char *[]){"--offset", "6", NULL},
            "bad value '6' for --offset: expected an offset from -5 to 5");
    refused((const char *[]){"--offset=-6", NULL}, "bad value '-6' for --offset");
    /* all of the value, digits only */
    static const char *const junk[] = {"",   "abc", "1x",   " 1",  "1 ",
                                       "+1", "-",   "0x10", "1e3", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "bad value '%s' for --reps: expected an integer", junk[i]);
        refused((const char *[]){"--reps", junk[i], NULL}, want);
    }
    /* the whole int64_t range is available */
    int64_t x = 0;
    sn_err_t err = {0};
    tu_assert_rc(sn_opts_int("--n", "-9223372036854775808", INT64_MIN, INT64_MAX, NULL, &x, &err),
                 0);
    assert_true(x == INT64_MIN);
    tu_assert_rc(sn_opts_int("--n", "9223372036854775808", INT64_MIN, INT64_MAX, NULL, &x, &err),
                 SN_EINVAL);
    assert_true(x == INT64_MIN);
    /* a callback's own refusal */
    refused((const char *[]){"--id", "-1", NULL},
            "bad value '-1' for --id: expected an integer from 0 to 99, or auto");
    refused((const char *[]){"--id=autox", NULL}, "bad value 'autox' for --id");
}

static void test_unknown_and_missing(void **state)
{
    (void) state;
    refused((const char *[]){"--bogus", "1", NULL}, "unknown option '--bogus'; see --help");
    refused((const char *[]){"--bogus=1", NULL}, "unknown option '--bogus'; see --help");
    refused((const char *[]){"--rep", "1", NULL}, "unknown option '--rep'"); /* no prefixes */
    /* a near miss gets the nearest option; a word far from every option gets none */
    refused((const char *[]){"--rep", "1", NULL},
            "unknown option '--rep': did you mean --reps? see --help");
    refused((const char *[]){"--ofset=1", NULL},
            "unknown option '--ofset': did you mean --offset?");
    refused((const char *[]){"--sise", "1", NULL}, "did you mean --size?");
    refused((const char *[]){"--quite", "1", NULL}, "did you mean --quiet?");
    refused((const char *[]){"--offest", "1", NULL}, "did you mean --offset?");
    refused((const char *[]){"stray", NULL}, "unexpected argument 'stray'; see --help");
    refused((const char *[]){"-q", NULL}, "unexpected argument '-q'");
    refused((const char *[]){"--reps", NULL}, "option --reps needs a value");
    refused((const char *[]){"--quiet", "--name", NULL}, "option --name needs a value");
    /* an unknown option is named as such, even last (where it was once said to need a value) */
    refused((const char *[]){"--bogus", NULL}, "unknown option '--bogus'; see --help");
    refused((const char *[]){"--quite", NULL}, "unknown option '--quite': did you mean --quiet?");
}

/* One reader of byte counts: every binary suffix, both spellings, nothing else. */
static void test_bytes(void **state)
{
    (void) state;
    static const struct {
        const char *text;
        uint64_t want;
    } good[] = {
        {"0", 0},           {"8", 8},           {"64K", 65536},          {"64k", 65536},
        {"64KiB", 65536},   {"3M", 3u << 20},   {"3MiB", 3u << 20},      {"1G", 1u << 30},
        {"1GiB", 1u << 30}, {"2T", 2ull << 40}, {"1024TiB", 1ull << 50},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t x = 7;
        const char *t = good[i].text;
        if (sn_opts_bytes(t, t + strlen(t), &x) != 0 || x != good[i].want)
            fail_msg("'%s': read %llu, want %llu", t, (unsigned long long) x,
                     (unsigned long long) good[i].want);
    }
    static const char *const bad[] = {
        "",   "K",  "64X",  "64KB", "64kB", "64kiB", "64Ki",   "64 K",
        "-1", "+1", "1.5K", "0x10", "1P",   "1025T", "64KiBs", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t x = 7;
        if (sn_opts_bytes(bad[i], bad[i] + strlen(bad[i]), &x) != -1 || x != 7)
            fail_msg("'%s' was read as a size", bad[i]);
    }
    /* [s, e): what follows e is not read (a size inside --sizes 8:1M) */
    const char *range = "8K:1M";
    uint64_t x = 0;
    tu_assert_rc(sn_opts_bytes(range, range + 2, &x), 0);
    assert_int_equal(x, 8192);
    /* as a table option: the range, both spellings and the refusal */
    vals_t v;
    sn_err_t err;
    tu_assert_rc(parse(&v, &err, (const char *[]){"--size", "64K", NULL}), 0);
    assert_int_equal(v.size, 65536);
    tu_assert_rc(parse(&v, &err, (const char *[]){"--size=1GiB", NULL}), 0);
    assert_int_equal(v.size, 1 << 30);
    refused((const char *[]){"--size", "64X", NULL},
            "bad value '64X' for --size: expected a size in bytes from 0 to 1G (digits with an "
            "optional K, M, G, T or KiB, MiB, GiB, TiB; 1K = 1KiB = 1024 bytes)");
    refused((const char *[]){"--size=1025M", NULL}, "bad value '1025M' for --size");
    tu_assert_rc(sn_opts_size("--mem", "1", 1536, 3u << 20, &x, &err), SN_EINVAL);
    assert_non_null(
        strstr(err.msg, "bad value '1' for --mem: expected a size in bytes from 1536 to 3M"));
}

/* sn_opts_suggest: only close names, and only one edit in a short one. */
static void test_suggest(void **state)
{
    (void) state;
    const sn_opt_t table[] = {
        {.name = "--ports", .kind = SN_OPT_STR},
        {.name = "--port-range", .kind = SN_OPT_STR},
        {.name = "--rx", .kind = SN_OPT_STR},
        {.name = "--max-memory", .kind = SN_OPT_STR},
        {0},
    };
    static const struct {
        const char *typed, *want; /* want NULL: no suggestion */
    } cases[] = {
        {"--port", "--ports"},
        {"--prots", "--ports"},
        {"--port-rang", "--port-range"},
        {"--max-memroy", "--max-memory"},
        {"--maxmemory", "--max-memory"},
        {"--rxx", "--rx"},
        {"--m", NULL},
        {"--tx", NULL},
        {"--bogus", NULL},
        {"--portrnge", "--port-range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = sn_opts_suggest(table, cases[i].typed, strlen(cases[i].typed));
        if ((got == NULL) != (cases[i].want == NULL) || (got && strcmp(got, cases[i].want) != 0))
            fail_msg("'%s': suggested %s, want %s", cases[i].typed, got ? got : "nothing",
                     cases[i].want ? cases[i].want : "nothing");
    }
    /* only the first len characters are the name ("--port=single") */
    assert_string_equal(sn_opts_suggest(table, "--port=single", 6), "--ports");
}

/* sn_opts_help's text for `layout` and the tables, into buf (NUL-terminated); its return. */
static int help_text(char *buf, size_t cap, const sn_help_t *layout, const sn_opt_t *first,
                     const sn_opt_t *second, sn_err_t *err)
{
    memset(buf, 0, cap);
    FILE *f = fmemopen(buf, cap - 1, "w");
    assert_non_null(f);
    int rc = sn_opts_help(f, layout, first, second, err);
    fclose(f);
    return rc;
}

/* The lines: the label, the description from the column (or two spaces after a label that reaches
 * it), continuation lines from the column or the entry's hang, entries from either table in the
 * layout's order, an SN_OPT_DOC line by its label, the prose as it is. */
static void test_help_lines(void **state)
{
    (void) state;
    int flag = 0;
    const char *str = NULL;
    const sn_opt_t first[] = {
        {.name = "--name", .kind = SN_OPT_STR, .str = &str, .arg = "N", .help = "a name"},
        {.name = "--quiet", .kind = SN_OPT_FLAG, .flag = &flag, .help = "say less\nmuch less"},
        {.name = "--a-very-long-option",
         .kind = SN_OPT_STR,
         .str = &str,
         .arg = "VALUE",
         .help = "two spaces after the label\nthen the column"},
        {.name = "--deadline-ms",
         .kind = SN_OPT_STR,
         .str = &str,
         .arg = "MS",
         .col = 22,
         .hang = 22,
         .help = "its own column\nand hang"},
        {.name = "--name", .kind = SN_OPT_DOC, .arg = "auto", .help = "a second form"},
        {.name = "--alias", .kind = SN_OPT_STR, .str = &str, .help = SN_OPT_UNLISTED},
        {0},
    };
    const sn_opt_t second[] = {
        {.name = "--json", .kind = SN_OPT_FLAG, .flag = &flag, .help = "one line"},
        {0},
    };
    const sn_help_t layout[] = {
        {.text = "usage: x [options]\n\n"},
        {.lines = (const char *const[]){"--json", "--name", "--quiet", NULL}, .col = 12},
        {.text = "More:\n"},
        {.lines =
             (const char *const[]){"--a-very-long-option", "--deadline-ms", "--name auto", NULL},
         .col = 12},
        {.text = "\nExit status: 0.\n"},
        {0},
    };
    char buf[1024];
    sn_err_t err = {0};
    tu_assert_rc(help_text(buf, sizeof buf, layout, first, second, &err), 0);
    assert_string_equal(buf, "usage: x [options]\n"
                             "\n"
                             "  --json    one line\n"
                             "  --name N  a name\n"
                             "  --quiet   say less\n"
                             "            much less\n"
                             "More:\n"
                             "  --a-very-long-option VALUE  two spaces after the label\n"
                             "            then the column\n"
                             "  --deadline-ms MS    its own column\n"
                             "                      and hang\n"
                             "  --name auto  a second form\n"
                             "\n"
                             "Exit status: 0.\n");
    /* a label one short of the column gets one space; no layout, no text */
    const sn_help_t tight[] = {{.lines = (const char *const[]){"--name", NULL}, .col = 11}, {0}};
    tu_assert_rc(help_text(buf, sizeof buf, tight, first, NULL, &err), 0);
    assert_string_equal(buf, "  --name N a name\n");
    tu_assert_rc(help_text(buf, sizeof buf, NULL, first, second, &err), 0);
    assert_string_equal(buf, "");
}

/* An SN_OPT_DOC entry is no option: the parser neither matches nor suggests it. */
static void test_help_doc_is_no_option(void **state)
{
    (void) state;
    const char *str = NULL;
    const sn_opt_t table[] = {
        {.name = "--nodes", .kind = SN_OPT_DOC, .arg = "ADDR,...", .help = "daemons"},
        {.name = "--nodes", .kind = SN_OPT_STR, .str = &str, .arg = "local|join", .help = "where"},
        {.name = "--listing", .kind = SN_OPT_DOC, .help = "a line alone"},
        {0},
    };
    sn_err_t err = {0};
    char *const args[] = {"--nodes", "join"};
    tu_assert_rc(sn_opts_parse(2, args, table, &err), 0);
    assert_string_equal(str, "join");
    assert_null(sn_opts_suggest(table, "--listin", 8));
    char *const doc[] = {"--listing"};
    tu_assert_rc(sn_opts_parse(1, doc, table, &err), SN_EINVAL);
    assert_string_equal(err.msg, "unknown option '--listing'; see --help");
}

/* Refused before anything is written: an entry without help (named), a help text ending with a
 * newline, a listed name no table has or that is SN_OPT_UNLISTED, a line wider than
 * SN_OPTS_HELP_WIDTH. */
static void test_help_refusals(void **state)
{
    (void) state;
    const char *str = NULL;
    const sn_help_t layout[] = {
        {.text = "usage\n"},
        {.lines = (const char *const[]){"--name", NULL}, .col = 21},
        {0},
    };
    const sn_opt_t ok[] = {{.name = "--name", .kind = SN_OPT_STR, .str = &str, .help = "a name"},
                           {0}};
    const sn_opt_t missing[] = {{.name = "--new", .kind = SN_OPT_STR, .str = &str}, {0}};
    const sn_opt_t newline[] = {{.name = "--name", .kind = SN_OPT_STR, .str = &str, .help = "x\n"},
                                {0}};
    const sn_opt_t unlisted[] = {
        {.name = "--name", .kind = SN_OPT_STR, .str = &str, .help = SN_OPT_UNLISTED}, {0}};
    char wide[SN_OPTS_HELP_WIDTH];
    memset(wide, 'x', sizeof wide - 1);
    wide[sizeof wide - 1] = '\0';
    const sn_opt_t too_wide[] = {{.name = "--name", .kind = SN_OPT_STR, .str = &str, .help = wide},
                                 {0}};
    const struct {
        const sn_opt_t *first, *second;
        const char *want;
    } cases[] = {
        {ok, missing, "option --new has no help text"},
        {missing, NULL, "option --new has no help text"},
        {newline, NULL, "option --name: its help text ends with a newline"},
        {NULL, NULL, "--help lists --name, which no option table has"},
        {unlisted, NULL, "--help lists --name, whose help is SN_OPT_UNLISTED"},
        {too_wide, NULL, "--help line of --name is 120 columns wide, more than 100"},
    };
    char buf[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_err_t err = {0};
        tu_assert_rc(help_text(buf, sizeof buf, layout, cases[i].first, cases[i].second, &err),
                     SN_EINVAL);
        if (strstr(err.msg, cases[i].want) == NULL)
            fail_msg("case %zu: '%s', want '%s'", i, err.msg, cases[i].want);
        assert_string_equal(buf, ""); /* nothing written */
    }
    /* the widest line accepted */
    wide[SN_OPTS_HELP_WIDTH - 21] = '\0';
    sn_err_t err = {0};
    tu_assert_rc(help_text(buf, sizeof buf, layout, too_wide, NULL, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_spellings),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_set_flags),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_unknown_and_missing),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_help_lines),
        cmocka_unit_test(test_help_doc_is_no_option),
        cmocka_unit_test(test_help_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
