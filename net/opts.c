/* The table-driven option parser of both programs (net/): `--name value` and `--name=value`,
 * flags, integers in a range, strings and values read by a callback; every refusal is one line
 * naming the option, the value and what is accepted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

/* The entry spelled as the first len characters of `name`, or NULL. */
static const sn_opt_t *find(const sn_opt_t *table, const char *name, size_t len)
{
    for (; table && table->kind != SN_OPT_END; table++)
        if (strncmp(table->name, name, len) == 0 && table->name[len] == '\0')
            return table;
    return NULL;
}

static int is_flag(const sn_opt_t *x)
{
    return x && (x->kind == SN_OPT_FLAG || x->kind == SN_OPT_STOP || x->kind == SN_OPT_SET);
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

/* Stores `val` for the entry x (an option that takes a value). */
static int store(const sn_opt_t *x, const char *val, sn_err_t *err)
{
    switch (x->kind) {
    case SN_OPT_INT:
        return sn_opts_int(x->name, val, x->lo, x->hi, x->unit, x->num, err);
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
        if (val == NULL) {
            if (i + 1 >= argc)
                return sn_err_inval(err, "option %s needs a value", a);
            val = argv[++i];
        }
        x = find(table, a, len);
        if (x == NULL)
            return sn_err_inval(err, "unknown option '%.*s'; see --help", (int) len, a);
        int rc = store(x, val, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}
