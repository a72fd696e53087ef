/* The markdown table of the algorithms (core/model): README.md's "Algorithms" table, printed by
 * `stepnet algos --markdown`, from the one list of algorithms (core/algo/algos.def) and the
 * descriptors it names. A CTest test (tests/unit/test_algos_markdown.c) keeps README's copy equal
 * to it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/model.h"
#include "stepnet/util.h"

/* The README words of every listed algorithm, in registry order. */
static const struct {
    const sn_algo_t *algo;
    const char *topologies, *steps;
} rows[] = {
#define SN_ALGO(id, file, topologies, steps) {&sn__algo_##id, topologies, steps},
#include "core/algo/algos.def"
};

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} md_buf_t;

static void md_printf(md_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void md_printf(md_buf_t *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t) n < b->cap - b->len) {
            b->len += (size_t) n;
            return;
        }
        b->cap = 2 * b->cap + (n > 0 ? (size_t) n : 0);
        b->s = sn_xrealloc(b->s, b->cap);
    }
}

/* The port models of mask m in words: "all", or e.g. "multi, single (rx any), half duplex". */
static void md_ports(unsigned m, char *buf, size_t cap)
{
    if ((m & SN_PM_ALL) == SN_PM_ALL) {
        snprintf(buf, cap, "all");
        return;
    }
    const char *single = (m & SN_PM_SINGLE) && (m & SN_PM_SINGLE_ANY) ? "single (rx one or any)"
                         : (m & SN_PM_SINGLE)                         ? "single"
                         : (m & SN_PM_SINGLE_ANY)                     ? "single (rx any)"
                                                                      : NULL;
    size_t len = 0;
    buf[0] = '\0';
    if (m & SN_PM_MULTI)
        len += (size_t) snprintf(buf + len, cap - len, "multi");
    if (single && len < cap)
        len += (size_t) snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", single);
    if ((m & SN_PM_HALF) && len < cap)
        snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", "half duplex");
}

char *sn_model_algos_markdown(const sn_coll_t *only, sn_param_namer_t name)
{
    md_buf_t b = {sn_xmalloc(4096), 0, 4096};
    b.s[0] = '\0';
    md_printf(&b, "| algorithm | collective | ports | topologies | steps (source) |\n");
    md_printf(&b, "|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const sn_algo_t *a = rows[i].algo;
        if (only && a->coll != *only)
            continue;
        char pm[96];
        md_ports(a->pm_mask, pm, sizeof pm);
        char steps[1024];
        sn_err_expand(rows[i].steps, name, steps, sizeof steps);
        md_printf(&b, "| `%s` | %s | %s | %s | %s |\n", a->name, sn_coll_name(a->coll), pm,
                  rows[i].topologies, steps);
    }
    return b.s;
}
