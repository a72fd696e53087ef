/* The table-driven option parser of both programs (proc/): `--name value` and `--name=value`,
 * flags, integers in a range, strings and values read by a callback; every refusal is one line
 * naming the option, the value and what is accepted. And the option lines of --help, written from
 * the same tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/opts.h"
#include "stepnet/util.h"

/* The entry spelled as the first len characters of `name`, or NULL (a line of --help alone is no
 * option). */
static const sn_opt_t *find(const sn_opt_t *table, const char *name, size_t len)
{
    for (; table && table->kind != SN_OPT_END; table++)
        if (table->kind != SN_OPT_DOC && strncmp(table->name, name, len) == 0 &&
            table->name[len] == '\0')
            return table;
    return NULL;
}

static int is_flag(const sn_opt_t *x)
{
    return x && (x->kind == SN_OPT_FLAG || x->kind == SN_OPT_STOP || x->kind == SN_OPT_SET);
}

/* Two edits at most: a typo, not another word (sn_edit_distance). */
#define SUGGEST_CAP 2

const char *sn_opts_suggest(const sn_opt_t *table, const char *name, size_t len)
{
    /* two edits in a short name ("--m" for "--rx") are another word, not a typo */
    size_t letters = len > 2 ? len - 2 : 0, allowed = letters >= 6 ? 2 : letters >= 3 ? 1 : 0;
    const char *best = NULL;
    size_t best_d = allowed + 1;
    for (; table && table->kind != SN_OPT_END; table++) {
        if (table->kind == SN_OPT_DOC)
            continue;
        size_t d = sn_edit_distance(name, len, table->name, SUGGEST_CAP);
        if (d < best_d) {
            best_d = d;
            best = table->name;
        }
    }
    return best;
}

int sn_opts_int(const char *name, const char *v, int64_t lo, int64_t hi, const char *unit,
                int64_t *out, sn_err_t *err)
{
    const char *digits = v[0] == '-' ? v + 1 : v;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (*digits < '0' || *digits > '9' || errno || *end != '\0' || x < lo || x > hi)
        return sn_err_inval(err, "bad value '%s' for %s: expected %s from %lld to %lld", v, name,
                            unit ? unit : "an integer", (long long) lo, (long long) hi);
    *out = x;
    return 0;
}

int sn_opts_bytes(const char *s, const char *e, uint64_t *out)
{
    static const char *const suffixes[] = {"K", "M", "G", "T"};
    if (s == e || *s < '0' || *s > '9')
        return -1;
    uint64_t x = 0;
    for (; s < e && *s >= '0' && *s <= '9'; s++) {
        x = x * 10 + (uint64_t) (*s - '0');
        if (x > SN_OPTS_MAX_BYTES)
            return -1;
    }
    int shift = 0;
    size_t len = (size_t) (e - s);
    if (len == 1 && *s == 'k')
        shift = 10;
    for (int i = 0; i < 4 && len > 0 && shift == 0; i++)
        if (*s == suffixes[i][0] && (len == 1 || (len == 3 && s[1] == 'i' && s[2] == 'B')))
            shift = 10 * (i + 1);
    if (len > 0 && shift == 0)
        return -1;
    if (x > SN_OPTS_MAX_BYTES >> shift)
        return -1;
    *out = x << shift;
    return 0;
}

/* n with the largest suffix that divides it ("1G", "1536K", "0"), into buf. */
static const char *bytes_text(uint64_t n, char *buf, size_t size)
{
    static const char units[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        int shift = 10 * (4 - i);
        if (n != 0 && n % (1ull << shift) == 0) {
            snprintf(buf, size, "%llu%c", (unsigned long long) (n >> shift), units[i]);
            return buf;
        }
    }
    snprintf(buf, size, "%llu", (unsigned long long) n);
    return buf;
}

int sn_opts_size(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                 sn_err_t *err)
{
    uint64_t x;
    if (sn_opts_bytes(v, v + strlen(v), &x) < 0 || x < lo || x > hi) {
        char a[32], b[32];
        return sn_err_inval(
            err, "bad value '%s' for %s: expected a size in bytes from %s to %s (%s)", v, name,
            bytes_text(lo, a, sizeof a), bytes_text(hi, b, sizeof b), SN_OPTS_BYTES_FORMS);
    }
    *out = x;
    return 0;
}

/* Stores `val` for the entry x (an option that takes a value). */
static int store(const sn_opt_t *x, const char *val, sn_err_t *err)
{
    switch (x->kind) {
    case SN_OPT_INT:
        return sn_opts_int(x->name, val, x->lo, x->hi, x->unit, x->num, err);
    case SN_OPT_SIZE: {
        uint64_t n;
        int rc = sn_opts_size(x->name, val, (uint64_t) x->lo, (uint64_t) x->hi, &n, err);
        if (rc == 0)
            *x->num = (int64_t) n;
        return rc;
    }
    case SN_OPT_STR:
        *x->str = val;
        return 0;
    case SN_OPT_FN:
        return x->fn(x, val, err);
    default:
        return sn_err_inval(err, "option %s: bad option table", x->name);
    }
}

int sn_opts_parse(int argc, char *const *argv, const sn_opt_t *table, sn_err_t *err)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && is_flag(find(table, a, (size_t) (eq - a))))
            return sn_err_inval(err, "option '%s' takes no value; see --help", a);
        const sn_opt_t *x = find(table, a, strlen(a));
        if (is_flag(x)) {
            if (x->kind == SN_OPT_SET)
                *x->num = x->lo;
            else
                *x->flag = 1;
            if (x->kind == SN_OPT_STOP)
                return SN_OPTS_STOP;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return sn_err_inval(err, "unexpected argument '%s'; see --help", a);
        /* --name value or --name=value */
        size_t len = eq ? (size_t) (eq - a) : strlen(a);
        const char *val = eq ? eq + 1 : NULL;
        x = find(table, a, len);
        if (x && val == NULL) {
            if (i + 1 >= argc)
                return sn_err_inval(err, "option %s needs a value", a);
            val = argv[++i];
        }
        if (x == NULL) {
            const char *near = sn_opts_suggest(table, a, len);
            if (near)
                return sn_err_inval(err, "unknown option '%.*s': did you mean %s? see --help",
                                    (int) len, a, near);
            return sn_err_inval(err, "unknown option '%.*s'; see --help", (int) len, a);
        }
        int rc = store(x, val, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- --help ------------------------------------------------------------------------------------
 */

/* The length of x's label, "NAME ARG" ("NAME" for a flag). */
static size_t label_len(const sn_opt_t *x)
{
    return strlen(x->name) + (x->arg ? 1 + strlen(x->arg) : 0);
}

/* 1 when `s` names x: an option by its name, an SN_OPT_DOC entry by its label. */
static int names(const sn_opt_t *x, const char *s)
{
    if (x->kind != SN_OPT_DOC)
        return strcmp(x->name, s) == 0;
    size_t n = strlen(x->name);
    if (strncmp(x->name, s, n) != 0)
        return 0;
    return x->arg ? s[n] == ' ' && strcmp(s + n + 1, x->arg) == 0 : s[n] == '\0';
}

/* The entry of `first` or else `second` that `s` names, or NULL. */
static const sn_opt_t *lookup(const sn_opt_t *first, const sn_opt_t *second, const char *s)
{
    for (const sn_opt_t *t = first; t && t->kind != SN_OPT_END; t++)
        if (names(t, s))
            return t;
    for (const sn_opt_t *t = second; t && t->kind != SN_OPT_END; t++)
        if (names(t, s))
            return t;
    return NULL;
}

/* Writes x's lines to f (f NULL: only measures them): "  " and the label, then the description
 * from the entry's column (or the layout's `col`; two spaces after the label when it reaches it),
 * each further line from the hang column. Returns the width of the widest line. */
static size_t entry_lines(FILE *f, const sn_opt_t *x, int col)
{
    size_t start = (size_t) (x->col ? x->col : col), hang = (size_t) (x->hang ? x->hang : col);
    size_t label = 2 + label_len(x), widest = 0, at = label < start ? start : label + 2;
    if (f)
        fprintf(f, "  %s%s%s%*s", x->name, x->arg ? " " : "", x->arg ? x->arg : "",
                (int) (at - label), "");
    for (const char *line = x->help;;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t) (end - line) : strlen(line);
        if (at + n > widest)
            widest = at + n;
        if (f)
            fprintf(f, "%.*s\n", (int) n, line);
        if (end == NULL)
            return widest;
        line = end + 1;
        at = hang;
        if (f)
            fprintf(f, "%*s", (int) hang, "");
    }
}

/* 1 while p is a piece of a layout, 0 at its end (a layout may be NULL: no text at all). */
static int is_piece(const sn_help_t *p)
{
    return p && (p->text || p->lines);
}

/* Every entry of `table` has a help text, none ending with a newline. */
static int check_table(const sn_opt_t *table, sn_err_t *err)
{
    for (; table && table->kind != SN_OPT_END; table++) {
        if (table->name == NULL)
            return sn_err_inval(err, "an option table's line of --help has no name");
        if (table->help == NULL)
            return sn_err_inval(err,
                                "option %s has no help text: every entry says what it does, "
                                "or is SN_OPT_UNLISTED",
                                table->name);
        size_t n = strlen(table->help);
        if (n > 0 && table->help[n - 1] == '\n')
            return sn_err_inval(err, "option %s: its help text ends with a newline", table->name);
    }
    return 0;
}

/* Every name the layout lists is an entry with a line that fits. */
static int check_layout(const sn_help_t *layout, const sn_opt_t *first, const sn_opt_t *second,
                        sn_err_t *err)
{
    for (const sn_help_t *p = layout; is_piece(p); p++)
        for (const char *const *s = p->text ? NULL : p->lines; s && *s; s++) {
            const sn_opt_t *x = lookup(first, second, *s);
            if (x == NULL)
                return sn_err_inval(err, "--help lists %s, which no option table has", *s);
            if (x->help[0] == '\0')
                return sn_err_inval(err, "--help lists %s, whose help is SN_OPT_UNLISTED", *s);
            size_t w = entry_lines(NULL, x, p->col);
            if (w > SN_OPTS_HELP_WIDTH)
                return sn_err_inval(err, "--help line of %s is %zu columns wide, more than %d", *s,
                                    w, SN_OPTS_HELP_WIDTH);
        }
    return 0;
}

int sn_opts_help(FILE *f, const sn_help_t *layout, const sn_opt_t *first, const sn_opt_t *second,
                 sn_err_t *err)
{
    int rc;
    if ((rc = check_table(first, err)) < 0 || (rc = check_table(second, err)) < 0 ||
        (rc = check_layout(layout, first, second, err)) < 0)
        return rc;
    for (const sn_help_t *p = layout; is_piece(p); p++) {
        if (p->text) {
            fputs(p->text, f);
            continue;
        }
        for (const char *const *s = p->lines; *s; s++)
            entry_lines(f, lookup(first, second, *s), p->col);
    }
    return 0;
}
