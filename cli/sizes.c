/* The --sizes option of `stepnet bench` (cli): the packet sizes of a sweep, as a range by factor or
 * by step, or a list, each size a byte count read by sn_opts_bytes. Declared in run.h with the
 * other options of run and bench (run_options.c). */
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "proc/opts.h"
#include "stepnet/util.h"

#define MAX_FACTOR 1024

/* One size, [s, e): sn_opts_bytes, at most SN_MAX_PACKET_SIZE. */
static int parse_one(const char *s, const char *e, uint64_t *out)
{
    uint64_t x;
    if (sn_opts_bytes(s, e, &x) < 0 || x > SN_MAX_PACKET_SIZE)
        return -1;
    *out = x;
    return 0;
}

static int push(uint32_t *v, size_t *n, uint64_t x, const char *text, sn_err_t *err)
{
    if (*n >= CLI_SIZES_MAX)
        return sn_err_inval(err, "bad value '%s' for --sizes: more than %d sizes", text,
                            CLI_SIZES_MAX);
    if (*n > 0 && x <= v[*n - 1])
        return sn_err_inval(err, "bad value '%s' for --sizes: sizes must increase (%llu after %u)",
                            text, (unsigned long long) x, v[*n - 1]);
    v[(*n)++] = (uint32_t) x;
    return 0;
}

int cli_sizes_parse(const char *text, uint32_t **out, size_t *n, sn_err_t *err)
{
    static const char accepted[] =
        "expected FROM:TO, FROM:TO:xF, FROM:TO:+S or a list A,B,C of sizes in bytes (digits "
        "with an optional K, M, G or KiB, MiB, GiB, powers of 1024), from 0 to 1G";
    uint32_t *v = sn_xcalloc(CLI_SIZES_MAX, sizeof *v);
    size_t k = 0;
    int rc = 0;
    const char *colon = strchr(text, ':');
    if (colon == NULL) { /* a list (of one or more) */
        const char *s = text;
        for (;;) {
            const char *e = strchr(s, ',');
            if (e == NULL)
                e = s + strlen(s);
            uint64_t x;
            if (parse_one(s, e, &x) < 0) {
                rc = sn_err_inval(err, "bad value '%s' for --sizes: '%.*s' is not a size; %s", text,
                                  (int) (e - s), s, accepted);
                goto fail;
            }
            if ((rc = push(v, &k, x, text, err)) < 0)
                goto fail;
            if (*e == '\0')
                break;
            s = e + 1;
        }
    } else { /* a range */
        const char *c2 = strchr(colon + 1, ':');
        const char *end_to = c2 ? c2 : colon + strlen(colon);
        uint64_t from, to, step = 2;
        int add = 0;
        if (parse_one(text, colon, &from) < 0 || parse_one(colon + 1, end_to, &to) < 0) {
            rc = sn_err_inval(err, "bad value '%s' for --sizes: %s", text, accepted);
            goto fail;
        }
        if (c2) {
            const char *st = c2 + 1;
            add = *st == '+';
            if ((*st != 'x' && *st != '+') || parse_one(st + 1, st + strlen(st), &step) < 0 ||
                (add ? step < 1 : (step < 2 || step > MAX_FACTOR))) {
                rc = sn_err_inval(
                    err,
                    "bad value '%s' for --sizes: the step '%s' must be xF (F from 2 to %d) or "
                    "+S (S at least 1)",
                    text, st, MAX_FACTOR);
                goto fail;
            }
        }
        if (from > to) {
            rc = sn_err_inval(err, "bad value '%s' for --sizes: FROM %llu is larger than TO %llu",
                              text, (unsigned long long) from, (unsigned long long) to);
            goto fail;
        }
        if (!add && from == 0) {
            rc = sn_err_inval(
                err, "bad value '%s' for --sizes: a range by factor starts at 1 or more", text);
            goto fail;
        }
        for (uint64_t x = from; x <= to; x = add ? x + step : x * step)
            if ((rc = push(v, &k, x, text, err)) < 0)
                goto fail;
    }
    *out = v;
    *n = k;
    return 0;
fail:
    free(v);
    return rc;
}
