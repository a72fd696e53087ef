/* Link emulation, the pure parts (core/model): tc(8) time and rate units, per-edge parameters from
 * a link file, and the token-bucket and delay schedule of one directed link. No clock is read
 * here: the node passes the time in (node/emulate.c). Contracts in include/stepnet/linkemu.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stepnet/linkemu.h"
#include "stepnet/util.h"

/* ---- units ---------------------------------------------------------------------------------- */

typedef struct unit_s {
    const char *name;
    double scale;
} unit_t;

static const unit_t time_units[] = {
    {"s", 1e9},     {"sec", 1e9}, {"secs", 1e9}, {"ms", 1e6},    {"msec", 1e6},
    {"msecs", 1e6}, {"us", 1e3},  {"usec", 1e3}, {"usecs", 1e3}, {"ns", 1},
    {"nsec", 1},    {"nsecs", 1}, {"", 1e3}, /* a bare number: microseconds, as in tc */
    {NULL, 0},
};

static const unit_t rate_units[] = {
    {"", 1},
    {"bit", 1},
    {"kbit", 1e3},
    {"mbit", 1e6},
    {"gbit", 1e9},
    {"tbit", 1e12},
    {"kibit", 1024.0},
    {"mibit", 1048576.0},
    {"gibit", 1073741824.0},
    {"tibit", 1099511627776.0},
    {"bps", 8},
    {"kbps", 8e3},
    {"mbps", 8e6},
    {"gbps", 8e9},
    {"tbps", 8e12},
    {"kibps", 8 * 1024.0},
    {"mibps", 8 * 1048576.0},
    {"gibps", 8 * 1073741824.0},
    {"tibps", 8 * 1099511627776.0},
    {NULL, 0},
};

#define TIME_ACCEPTED                                                                              \
    "a number and a unit as tc writes times: s, sec, secs, ms, msec, msecs, us, usec, usecs (or "  \
    "none: microseconds), ns, nsec, nsecs, e.g. 200us or 1.5ms"
#define RATE_ACCEPTED                                                                              \
    "a positive number and a unit as tc writes rates: bit (or none), kbit, mbit, gbit, tbit, "     \
    "bps, kbps, mbps, gbps, tbps (bytes per second), or kibit .. tibit, kibps .. tibps (powers "   \
    "of 1024), e.g. 100mbit"

/* The number at the start of text (digits with at most one decimal point, no sign, no exponent)
 * and the unit that follows it. 0, or -1 when text does not start with such a number. */
static int split_number(const char *text, double *value, const char **unit)
{
    const char *p = text;
    int digits = 0, dots = 0;
    while (isdigit((unsigned char) *p) || *p == '.') {
        if (*p == '.')
            dots++;
        else
            digits++;
        p++;
    }
    if (digits == 0 || dots > 1)
        return -1;
    char num[64];
    size_t len = (size_t) (p - text);
    if (len >= sizeof num)
        return -1;
    memcpy(num, text, len);
    num[len] = '\0';
    errno = 0;
    char *end;
    *value = strtod(num, &end);
    if (errno || *end != '\0' || !isfinite(*value))
        return -1;
    *unit = p;
    return 0;
}

static const unit_t *find_unit(const unit_t *units, const char *name)
{
    for (const unit_t *u = units; u->name; u++)
        if (strcasecmp(u->name, name) == 0)
            return u;
    return NULL;
}

int sn_emu_parse_time(const char *text, const char *what, uint64_t *ns, sn_err_t *err)
{
    double v;
    const char *unit;
    const unit_t *u;
    if (text == NULL || split_number(text, &v, &unit) < 0 ||
        (u = find_unit(time_units, unit)) == NULL)
        return sn_err_set(err, SN_EINVAL, "bad value '%s' for %s: expected %s", text ? text : "",
                          what, TIME_ACCEPTED);
    double t = v * u->scale;
    if (t > (double) SN_EMU_MAX_TIME_NS)
        return sn_err_set(err, SN_EINVAL, "bad value '%s' for %s: at most 60s", text, what);
    *ns = (uint64_t) llround(t);
    return 0;
}

int sn_emu_parse_rate(const char *text, const char *what, uint64_t *bps, sn_err_t *err)
{
    double v;
    const char *unit;
    const unit_t *u;
    if (text && strchr(text, '%'))
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for %s: a percentage of the device's speed is not "
                          "accepted (stepnet emulates the rate itself); expected %s",
                          text, what, RATE_ACCEPTED);
    if (text == NULL || split_number(text, &v, &unit) < 0 ||
        (u = find_unit(rate_units, unit)) == NULL)
        return sn_err_set(err, SN_EINVAL, "bad value '%s' for %s: expected %s", text ? text : "",
                          what, RATE_ACCEPTED);
    double r = v * u->scale;
    if (r < (double) SN_EMU_MIN_RATE_BPS || r > (double) SN_EMU_MAX_RATE_BPS)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for %s: the rate must lie in 1kbit .. 10tbit", text,
                          what);
    *bps = (uint64_t) llround(r);
    return 0;
}

/* The value in the largest unit that writes it with at most three decimals. */
const char *sn_emu_time_text(uint64_t ns, char *buf, size_t cap)
{
    if (ns == 0)
        snprintf(buf, cap, "0");
    else if (ns % 1000000000ull == 0 || ns >= 10000000000ull)
        snprintf(buf, cap, "%.4gs", (double) ns / 1e9);
    else if (ns >= 1000000)
        snprintf(buf, cap, "%.4gms", (double) ns / 1e6);
    else if (ns >= 1000)
        snprintf(buf, cap, "%.4gus", (double) ns / 1e3);
    else
        snprintf(buf, cap, "%lluns", (unsigned long long) ns);
    return buf;
}

const char *sn_emu_rate_text(uint64_t bps, char *buf, size_t cap)
{
    if (bps == 0)
        snprintf(buf, cap, "unlimited");
    else if (bps >= 1000000000000ull)
        snprintf(buf, cap, "%.4gtbit", (double) bps / 1e12);
    else if (bps >= 1000000000ull)
        snprintf(buf, cap, "%.4ggbit", (double) bps / 1e9);
    else if (bps >= 1000000ull)
        snprintf(buf, cap, "%.4gmbit", (double) bps / 1e6);
    else if (bps >= 1000ull)
        snprintf(buf, cap, "%.4gkbit", (double) bps / 1e3);
    else
        snprintf(buf, cap, "%llubit", (unsigned long long) bps);
    return buf;
}

/* ---- dimensions ----------------------------------------------------------------------------- */

uint32_t sn_emu_ndims(const sn_topo_t *t)
{
    if (t->port_factor && t->nfactors > 0)
        return t->nfactors;
    if (t->kind == SN_TOPO_HYPERCUBE)
        return t->a;
    if (t->kind == SN_TOPO_FOLDEDCUBE)
        return t->a + 1;
    return 0;
}

int sn_emu_edge_dim(const sn_topo_t *t, uint32_t e)
{
    if (e >= t->nedges)
        return -1;
    const sn_edge_t *ed = &t->edges[e];
    if (t->port_factor && t->nfactors > 0)
        return (int) sn_topo_port_factor(t, ed->a, ed->pa);
    if (t->kind == SN_TOPO_HYPERCUBE || t->kind == SN_TOPO_FOLDEDCUBE) {
        uint32_t x = ed->a ^ ed->b;
        if (x != 0 && (x & (x - 1)) == 0)
            return __builtin_ctz(x);
        return t->kind == SN_TOPO_FOLDEDCUBE ? (int) t->a : -1;
    }
    return -1;
}

/* ---- the link file -------------------------------------------------------------------------- */

/* Which edges a line applies to. */
typedef enum { KEY_DEFAULT, KEY_DIM, KEY_EDGE, KEY_LINK } key_kind_t;

typedef struct line_s {
    key_kind_t key;
    uint32_t a, b; /* dim: a; edge: a; link: a-b */
    sn_emu_link_t v;
    int has_delay, has_jitter, has_rate;
} line_t;

static int parse_u32(const char *s, uint32_t *out)
{
    if (!isdigit((unsigned char) *s))
        return -1;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end != '\0' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t) v;
    return 0;
}

#define KEYS_ACCEPTED "default, dim D, edge E or link A-B, then delay=TIME, jitter=TIME, rate=RATE"

/* One line (already stripped of its comment) into *ln; 1 when it holds an entry, 0 when blank. */
static int parse_line(const sn_topo_t *t, char *s, const char *where, line_t *ln, sn_err_t *err)
{
    char *save = NULL;
    char *w = strtok_r(s, " \t\r", &save);
    if (w == NULL)
        return 0;
    memset(ln, 0, sizeof *ln);
    char what[160];
    if (strcmp(w, "default") == 0) {
        ln->key = KEY_DEFAULT;
    } else if (strcmp(w, "dim") == 0 || strcmp(w, "edge") == 0) {
        int dim = w[0] == 'd';
        char *arg = strtok_r(NULL, " \t\r", &save);
        uint32_t nd = sn_emu_ndims(t);
        if (dim && nd == 0)
            return sn_err_set(err, SN_EINVAL,
                              "%s: 'dim' keys need a family with dimensions (mesh, torus, "
                              "product, hypercube, foldedcube); %s has none: use edge or link",
                              where, t->spec);
        if (arg == NULL || parse_u32(arg, &ln->a) < 0 || ln->a >= (dim ? nd : t->nedges))
            return sn_err_set(err, SN_EINVAL, "%s: bad %s '%s': expected a number in 0 .. %u",
                              where, dim ? "dimension" : "edge", arg ? arg : "",
                              (dim ? nd : t->nedges) - 1);
        ln->key = dim ? KEY_DIM : KEY_EDGE;
    } else if (strcmp(w, "link") == 0) {
        char *arg = strtok_r(NULL, " \t\r", &save);
        char *dash = arg ? strchr(arg, '-') : NULL;
        if (dash)
            *dash = '\0';
        if (dash == NULL || parse_u32(arg, &ln->a) < 0 || parse_u32(dash + 1, &ln->b) < 0 ||
            ln->a >= t->n || ln->b >= t->n) {
            if (dash)
                *dash = '-';
            return sn_err_set(err, SN_EINVAL,
                              "%s: bad link '%s': expected A-B, two node ids in 0 .. %u", where,
                              arg ? arg : "", t->n - 1);
        }
        int found = 0;
        for (uint32_t q = 0; q < sn_topo_degree(t, ln->a) && !found; q++)
            found = sn_topo_port(t, ln->a, q)->peer == ln->b;
        if (!found)
            return sn_err_set(err, SN_EINVAL, "%s: link %u-%u: nodes %u and %u are not neighbours",
                              where, ln->a, ln->b, ln->a, ln->b);
        ln->key = KEY_LINK;
    } else {
        return sn_err_set(err, SN_EINVAL, "%s: unknown key '%s': expected %s", where, w,
                          KEYS_ACCEPTED);
    }
    int any = 0;
    while ((w = strtok_r(NULL, " \t\r", &save)) != NULL) {
        char *eq = strchr(w, '=');
        if (eq == NULL)
            return sn_err_set(err, SN_EINVAL,
                              "%s: bad word '%s': expected delay=TIME, "
                              "jitter=TIME or rate=RATE",
                              where, w);
        *eq = '\0';
        const char *v = eq + 1;
        int rc;
        snprintf(what, sizeof what, "%s at %s", w, where);
        if (strcmp(w, "delay") == 0) {
            rc = sn_emu_parse_time(v, what, &ln->v.delay_ns, err);
            ln->has_delay = 1;
        } else if (strcmp(w, "jitter") == 0) {
            rc = sn_emu_parse_time(v, what, &ln->v.jitter_ns, err);
            ln->has_jitter = 1;
        } else if (strcmp(w, "rate") == 0) {
            rc = strcmp(v, "0") == 0 ? (ln->v.rate_bps = 0, 0)
                                     : sn_emu_parse_rate(v, what, &ln->v.rate_bps, err);
            ln->has_rate = 1;
        } else {
            return sn_err_set(err, SN_EINVAL,
                              "%s: unknown value '%s': expected delay=TIME, jitter=TIME or "
                              "rate=RATE",
                              where, w);
        }
        if (rc < 0)
            return rc;
        any = 1;
    }
    if (!any)
        return sn_err_set(err, SN_EINVAL,
                          "%s: no value: expected delay=TIME, jitter=TIME or "
                          "rate=RATE after the key",
                          where);
    return 1;
}

static void apply(sn_emu_link_t *e, const line_t *ln)
{
    if (ln->has_delay)
        e->delay_ns = ln->v.delay_ns;
    if (ln->has_jitter)
        e->jitter_ns = ln->v.jitter_ns;
    if (ln->has_rate)
        e->rate_bps = ln->v.rate_bps;
}

static int line_matches(const sn_topo_t *t, const line_t *ln, uint32_t e)
{
    const sn_edge_t *ed = &t->edges[e];
    switch (ln->key) {
    case KEY_DEFAULT:
        return 1;
    case KEY_DIM:
        return sn_emu_edge_dim(t, e) == (int) ln->a;
    case KEY_EDGE:
        return e == ln->a;
    case KEY_LINK:
        return (ed->a == ln->a && ed->b == ln->b) || (ed->a == ln->b && ed->b == ln->a);
    }
    return 0;
}

int sn_emu_build(const sn_topo_t *t, const sn_emu_link_t *base, const char *text, const char *name,
                 sn_emu_t **out, sn_err_t *err)
{
    sn_emu_t *emu = sn_xcalloc(1, sizeof *emu);
    emu->nedges = t->nedges;
    emu->edge = sn_xcalloc(t->nedges + 1, sizeof *emu->edge);
    for (uint32_t e = 0; e < t->nedges; e++)
        emu->edge[e] = *base;
    line_t *lines = NULL;
    size_t nlines = 0, cap = 0;
    char *copy = NULL;
    int rc = 0;
    if (text) {
        copy = sn_xmalloc(strlen(text) + 1);
        strcpy(copy, text);
        unsigned lineno = 0;
        /* strtok_r would skip empty lines and lose the numbering: split by hand */
        for (char *s = copy; s; lineno++) {
            char *nl = strchr(s, '\n');
            if (nl)
                *nl = '\0';
            char *hash = strchr(s, '#');
            if (hash)
                *hash = '\0';
            char where[96];
            snprintf(where, sizeof where, "%s line %u", name, lineno + 1);
            line_t ln;
            rc = parse_line(t, s, where, &ln, err);
            if (rc < 0)
                goto out;
            if (rc == 1) {
                sn_grow((void **) &lines, &cap, nlines + 1, sizeof *lines);
                lines[nlines++] = ln;
            }
            s = nl ? nl + 1 : NULL;
        }
        rc = 0;
    }
    /* classes in order of precedence, each in file order */
    static const key_kind_t order[] = {KEY_DEFAULT, KEY_DIM, KEY_EDGE};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++)
        for (size_t i = 0; i < nlines; i++) {
            int cls = lines[i].key == KEY_LINK ? KEY_EDGE : lines[i].key;
            if (cls != (int) order[k])
                continue;
            for (uint32_t e = 0; e < t->nedges; e++)
                if (line_matches(t, &lines[i], e))
                    apply(&emu->edge[e], &lines[i]);
        }
    for (uint32_t e = 0; e < t->nedges; e++)
        emu->active |= sn_emu_link_active(&emu->edge[e]);
out:
    free(lines);
    free(copy);
    if (rc < 0) {
        sn_emu_free(emu);
        return rc;
    }
    *out = emu;
    return 0;
}

void sn_emu_free(sn_emu_t *emu)
{
    if (emu == NULL)
        return;
    free(emu->edge);
    free(emu);
}

/* ---- the schedule of one link --------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sn_emu_sched_init(sn_emu_sched_t *s, const sn_emu_link_t *p, uint64_t seed, uint64_t now)
{
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->tokens = SN_EMU_BURST_BYTES;
    s->t_tokens = now;
    s->last_depart = now;
    s->last_release = now;
    s->rng = seed;
}

uint64_t sn_emu_sched_frame(sn_emu_sched_t *s, uint64_t now, size_t bytes)
{
    uint64_t depart = now;
    if (s->p.rate_bps) {
        double per_ns = (double) s->p.rate_bps / 8e9; /* bytes per ns */
        uint64_t t = now > s->last_depart ? now : s->last_depart;
        double cap = bytes > SN_EMU_BURST_BYTES ? (double) bytes : SN_EMU_BURST_BYTES;
        double tok = s->tokens + (double) (t - s->t_tokens) * per_ns;
        if (tok > cap)
            tok = cap;
        if (tok >= (double) bytes) {
            depart = t;
            tok -= (double) bytes;
        } else {
            depart = t + (uint64_t) ceil(((double) bytes - tok) / per_ns);
            tok = 0;
        }
        s->tokens = tok;
        s->t_tokens = depart;
        s->last_depart = depart;
    }
    uint64_t release = depart + s->p.delay_ns;
    if (s->p.jitter_ns) {
        /* uniform in [-jitter, +jitter] from the top 53 bits */
        double u = (double) (splitmix64(&s->rng) >> 11) / 9007199254740992.0;
        double d = (double) s->p.delay_ns + (2 * u - 1) * (double) s->p.jitter_ns;
        release = depart + (d > 0 ? (uint64_t) llround(d) : 0);
    }
    if (release < s->last_release)
        release = s->last_release;
    s->last_release = release;
    s->frames++;
    s->bytes += bytes;
    return release;
}
