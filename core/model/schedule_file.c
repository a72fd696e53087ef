/* Schedule files (stepnet/schedule_file.h, docs/schedule.md): the writer, a strict parser of the
 * one JSON shape the format has (no general JSON reader: every key is known, so nothing is
 * skipped and nothing nests deeper than the format does), and the plans that play a file. The
 * checker a schedule must pass before it runs is in schedule_check.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stepnet/fileio.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

#define FORMAT_NAME    "stepnet-schedule"
#define FORMAT_VERSION 1

int sn_sched_file_supports(sn_coll_t coll)
{
    return !sn_coll_is_rounds(coll);
}

static const char *ports_word(const sn_portmodel_t *pm)
{
    return pm->ports == SN_PORTS_SINGLE ? "single" : "multi";
}

static int refuse_coll(sn_coll_t coll, sn_err_t *err)
{
    return sn_err_inval(err,
                        "schedule files hold every collective but dynbcast (its packets arrive at "
                        "random), not %s",
                        sn_coll_name(coll));
}

/* ---- writer --------------------------------------------------------------------------------- */

/* The writer's output: formatted into a buffer, handed to the sink whenever it fills; the sink's
 * first failure stops the output (rc). */
typedef struct {
    sn_sched_sink_t sink;
    void *ctx;
    char buf[8192];
    size_t len;
    int rc;
} out_t;

static void out_flush(out_t *o)
{
    if (o->rc == 0 && o->len > 0)
        o->rc = o->sink(o->ctx, o->buf, o->len);
    o->len = 0;
}

static void out(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(out_t *o, const char *fmt, ...)
{
    char piece[512]; /* every piece is one key or one transmission's fields: far shorter */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t) n < sizeof piece ? (size_t) n : sizeof piece - 1;
    if (o->len + len > sizeof o->buf)
        out_flush(o);
    memcpy(o->buf + o->len, piece, len);
    o->len += len;
}

/* The operands of transmission i: "operands": [a, b, ...]. */
static void write_operands(out_t *f, const sn_sched_ops_t *ops, size_t i)
{
    out(f, ", \"operands\": [");
    for (size_t k = ops->first[i]; k < ops->first[i + 1]; k++)
        out(f, "%s%u", k > ops->first[i] ? ", " : "", ops->id[k]);
    out(f, "]");
}

int sn_sched_file_write(sn_sched_sink_t sink, void *ctx, const sn_topo_t *t, const sn_params_t *p,
                        const char *algo, const sn_sched_t *s, const sn_sched_ops_t *ops,
                        sn_err_t *err)
{
    if (!sn_sched_file_supports(p->coll))
        return refuse_coll(p->coll, err);
    int combining = sn_coll_is_combining(p->coll);
    if (combining && (ops == NULL || ops->first == NULL))
        return sn_err_inval(err, "a schedule of %s needs the operands of its transmissions",
                            sn_coll_name(p->coll));
    out_t o = {.sink = sink, .ctx = ctx}, *f = &o;
    out(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n", FORMAT_NAME, FORMAT_VERSION);
    out(f, "  \"topology\": \"%s\",\n  \"collective\": \"%s\",\n", t->spec, sn_coll_name(p->coll));
    if (algo != NULL)
        out(f, "  \"algorithm\": \"%s\",\n", algo);
    out(f, "  \"root\": %u,\n  \"msgs\": %u,\n  \"frags\": %u,\n  \"size\": %u,\n", p->root,
        p->msgs, p->frags, p->size);
    out(f, "  \"seed\": %" PRIu64 ",\n", p->seed);
    if (combining)
        out(f, "  \"op\": \"%s\",\n", sn_op_name(p->op));
    if (p->sources != NULL) {
        out(f, "  \"sources\": [");
        for (uint32_t i = 0; i < p->nsources; i++)
            out(f, "%s%u", i ? ", " : "", p->sources[i]);
        out(f, "],\n");
    }
    out(f, "  \"ports\": \"%s\",\n  \"rx\": \"%s\",\n  \"duplex\": \"%s\",\n", ports_word(&p->pm),
        p->pm.rx == SN_RX_ANY ? "any" : "one", p->pm.duplex == SN_DUPLEX_HALF ? "half" : "full");
    out(f, "  \"steps\": %" PRIu64 ",\n  \"slots\": [", s->steps);
    for (size_t i = 0; i < s->n;) {
        uint64_t slot = s->ev[i].slot;
        out(f, "%s\n    {\"slot\": %" PRIu64 ", \"sends\": [", i ? "," : "", slot);
        for (size_t k = i; i < s->n && s->ev[i].slot == slot; i++) {
            const sn_sched_ev_t *e = &s->ev[i];
            const sn_packet_t *pk = &e->pkt;
            out(f, "%s\n      {\"node\": %u, \"port\": %u, \"to\": %u, ", i > k ? "," : "", e->node,
                e->port, sn_topo_port(t, e->node, e->port)->peer);
            if (pk->src == SN_SRC_COMBINED)
                out(f, "\"src\": \"combined\", ");
            else
                out(f, "\"src\": %u, ", pk->src);
            if (pk->dst == SN_NODE_ALL)
                out(f, "\"dst\": \"all\", ");
            else
                out(f, "\"dst\": %u, ", pk->dst);
            out(f, "\"seq\": %u, \"frag\": %u", pk->seq, pk->frag);
            if (pk->kind == SN_PKT_CONTROL)
                out(f, ", \"kind\": \"control\", \"value\": %" PRIu64, pk->digest);
            else if (combining)
                write_operands(f, ops, i);
            out(f, "}");
        }
        out(f, "\n    ]}");
    }
    out(f, "%s]\n}\n", s->n ? "\n  " : "");
    out_flush(f);
    return o.rc < 0 ? sn_err_set(err, o.rc, "cannot write the schedule") : 0;
}

/* A sink that appends to a growing buffer (text_t). */
typedef struct {
    char *text;
    size_t len, cap;
} text_t;

static int text_sink(void *ctx, const char *data, size_t len)
{
    text_t *t = ctx;
    if (t->len + len + 1 > t->cap) {
        t->cap = (t->len + len + 1) * 2;
        t->text = sn_xrealloc(t->text, t->cap);
    }
    memcpy(t->text + t->len, data, len);
    t->len += len;
    t->text[t->len] = '\0';
    return 0;
}

int sn_sched_file_format(const sn_topo_t *t, const sn_params_t *p, const char *algo,
                         const sn_sched_t *s, const sn_sched_ops_t *ops, char **text, size_t *len,
                         sn_err_t *err)
{
    text_t b = {0};
    int rc = sn_sched_file_write(text_sink, &b, t, p, algo, s, ops, err);
    if (rc < 0) {
        free(b.text);
        b.text = NULL;
        b.len = 0;
    }
    *text = b.text;
    *len = b.len;
    return rc;
}

/* ---- parser --------------------------------------------------------------------------------- */

typedef struct {
    const char *s;
    size_t len, pos;
    sn_err_t *err;
} lex_t;

static void skip_ws(lex_t *x)
{
    while (x->pos < x->len && (x->s[x->pos] == ' ' || x->s[x->pos] == '\n' ||
                               x->s[x->pos] == '\t' || x->s[x->pos] == '\r'))
        x->pos++;
}

/* Where byte pos of the text is, as an editor shows it: "line L, column C" (both from 1; a column
 * counts bytes). */
typedef struct {
    char s[48];
} lex_at_t;

static lex_at_t lex_at(const lex_t *x, size_t pos)
{
    lex_at_t a;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < x->len; i++) {
        if (x->s[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    snprintf(a.s, sizeof a.s, "line %zu, column %zu", line, col);
    return a;
}

static int lex_fail(lex_t *x, const char *what)
{
    return sn_err_inval(x->err, "schedule file: %s: expected %s", lex_at(x, x->pos).s, what);
}

/* Consumes character c (after blanks); 1 if it was there. */
static int eat(lex_t *x, char c)
{
    skip_ws(x);
    if (x->pos < x->len && x->s[x->pos] == c) {
        x->pos++;
        return 1;
    }
    return 0;
}

static int expect(lex_t *x, char c)
{
    char what[8] = {'\'', c, '\'', 0};
    return eat(x, c) ? 0 : lex_fail(x, what);
}

/* A string without escapes (the format has none), copied into buf (cap bytes). */
static int lex_string(lex_t *x, char *buf, size_t cap)
{
    if (!eat(x, '"'))
        return lex_fail(x, "a string");
    size_t n = 0;
    while (x->pos < x->len && x->s[x->pos] != '"') {
        unsigned char c = (unsigned char) x->s[x->pos];
        if (c < 0x20 || c == '\\' || n + 1 >= cap)
            return lex_fail(x, "a string without escapes or control characters, of at most 255 "
                               "bytes");
        buf[n++] = (char) c;
        x->pos++;
    }
    if (x->pos >= x->len)
        return lex_fail(x, "the string's closing '\"'");
    x->pos++;
    buf[n] = '\0';
    return 0;
}

/* A non-negative integer up to max. */
static int lex_uint(lex_t *x, uint64_t max, uint64_t *out)
{
    skip_ws(x);
    size_t start = x->pos;
    uint64_t v = 0;
    while (x->pos < x->len && x->s[x->pos] >= '0' && x->s[x->pos] <= '9') {
        uint64_t d = (uint64_t) (x->s[x->pos] - '0');
        if (v > (max - d) / 10) {
            x->pos = start;
            return sn_err_inval(x->err, "schedule file: %s: a number above %" PRIu64,
                                lex_at(x, start).s, max);
        }
        v = v * 10 + d;
        x->pos++;
    }
    if (x->pos == start)
        return lex_fail(x, "a non-negative integer");
    /* JSON has no leading zeros; a fraction or an exponent is a number, but not an integer */
    if (x->s[start] == '0' && x->pos - start > 1) {
        x->pos = start;
        return sn_err_inval(x->err,
                            "schedule file: %s: a number with a leading zero, which JSON does "
                            "not allow",
                            lex_at(x, start).s);
    }
    if (x->pos < x->len && (x->s[x->pos] == '.' || x->s[x->pos] == 'e' || x->s[x->pos] == 'E')) {
        x->pos = start;
        return sn_err_inval(x->err,
                            "schedule file: %s: an integer, written without a fraction or an "
                            "exponent (slots, nodes, ports and counts are whole numbers)",
                            lex_at(x, start).s);
    }
    *out = v;
    return 0;
}

static int lex_u32(lex_t *x, uint32_t *out)
{
    uint64_t v;
    int rc = lex_uint(x, UINT32_MAX - 1, &v);
    if (rc == 0)
        *out = (uint32_t) v;
    return rc;
}

typedef struct {
    sn_sched_file_t *f;
    int seen_format, seen_version, seen_topo, seen_coll, seen_steps, seen_slots, seen_op;
    size_t cap;
    uint64_t slots_listed;
    /* the operands of the transmissions in the order they are listed: transmission i's are
     * opnd[opfirst[i] .. opfirst[i+1]) (the sort by slot reorders them at the end) */
    uint32_t *opnd;
    size_t nopnd, capopnd, *opfirst, capopfirst;
} parse_t;

/* "operands": [a, b, ...], ascending (sn__compose_build checks that they are processors). */
static int parse_operands(lex_t *x, parse_t *ps)
{
    int rc;
    if (expect(x, '['))
        return SN_EINVAL;
    if (eat(x, ']'))
        return 0;
    size_t first = ps->nopnd;
    do {
        uint32_t v;
        if ((rc = lex_u32(x, &v)))
            return rc;
        if (ps->nopnd > first && v <= ps->opnd[ps->nopnd - 1])
            return sn_err_inval(x->err,
                                "schedule file: %s: operands must be increasing (%u after "
                                "%u)",
                                lex_at(x, x->pos).s, v, ps->opnd[ps->nopnd - 1]);
        sn_grow((void **) &ps->opnd, &ps->capopnd, ps->nopnd + 1, sizeof *ps->opnd);
        ps->opnd[ps->nopnd++] = v;
    } while (eat(x, ','));
    return expect(x, ']');
}

/* One transmission: {"node": N, "port": P, "to": V, "src": S|"combined", "dst": D|"all", "seq": Q,
 * "frag": F[, "kind": "data"|"control", "value": X][, "operands": [A, ...]]}. */
static int parse_send(lex_t *x, parse_t *ps, uint64_t slot)
{
    sn_sched_t *s = &ps->f->sched;
    sn_sched_ev_t e = {.slot = slot};
    unsigned seen = 0, once = 0;
    enum { NODE = 1, PORT = 2, TO = 4, SRC = 8, DST = 16, SEQ = 32, FRAG = 64, OPS = 128 };
    size_t ops_at = ps->nopnd;
    uint32_t to = 0;
    int rc;
    if (expect(x, '{'))
        return SN_EINVAL;
    do {
        char key[256];
        uint64_t v;
        size_t key_at = (skip_ws(x), x->pos);
        if ((rc = lex_string(x, key, sizeof key)) || (rc = expect(x, ':')))
            return rc;
        /* every key once: a JSON reader keeps one of two and would read another schedule */
        static const char *const keys[] = {"node", "port", "to",   "src",   "dst",
                                           "seq",  "frag", "kind", "value", "operands"};
        for (unsigned k = 0; k < sizeof keys / sizeof *keys; k++)
            if (strcmp(key, keys[k]) == 0) {
                if (once & (1u << k))
                    return sn_err_inval(x->err,
                                        "schedule file: %s: key \"%s\" twice in a transmission",
                                        lex_at(x, key_at).s, key);
                once |= 1u << k;
            }
        if (strcmp(key, "node") == 0)
            rc = lex_u32(x, &e.node), seen |= NODE;
        else if (strcmp(key, "port") == 0)
            rc = lex_u32(x, &e.port), seen |= PORT;
        else if (strcmp(key, "to") == 0)
            rc = lex_u32(x, &to), seen |= TO;
        else if (strcmp(key, "src") == 0) {
            skip_ws(x);
            if (x->pos < x->len && x->s[x->pos] == '"') {
                char w[256];
                if ((rc = lex_string(x, w, sizeof w)) == 0 && strcmp(w, "combined") != 0)
                    rc = sn_err_inval(x->err,
                                      "schedule file: src \"%s\": a node id or \"combined\"", w);
                e.pkt.src = SN_SRC_COMBINED;
            } else {
                rc = lex_u32(x, &e.pkt.src);
            }
            seen |= SRC;
        } else if (strcmp(key, "operands") == 0 && !(seen & OPS)) {
            rc = parse_operands(x, ps);
            seen |= OPS;
        } else if (strcmp(key, "dst") == 0) {
            skip_ws(x);
            if (x->pos < x->len && x->s[x->pos] == '"') {
                char w[256];
                if ((rc = lex_string(x, w, sizeof w)) == 0 && strcmp(w, "all") != 0)
                    rc = sn_err_inval(x->err, "schedule file: dst \"%s\": a node id or \"all\"", w);
                e.pkt.dst = SN_NODE_ALL;
            } else {
                rc = lex_u32(x, &e.pkt.dst);
            }
            seen |= DST;
        } else if (strcmp(key, "seq") == 0)
            rc = lex_u32(x, &e.pkt.seq), seen |= SEQ;
        else if (strcmp(key, "frag") == 0) {
            rc = lex_uint(x, UINT16_MAX, &v), seen |= FRAG;
            e.pkt.frag = (uint16_t) v;
        } else if (strcmp(key, "kind") == 0) {
            char w[256];
            if ((rc = lex_string(x, w, sizeof w)) == 0) {
                if (strcmp(w, "control") == 0)
                    e.pkt.kind = SN_PKT_CONTROL;
                else if (strcmp(w, "data") != 0)
                    rc = sn_err_inval(x->err, "schedule file: kind \"%s\": data or control", w);
            }
        } else if (strcmp(key, "value") == 0)
            rc = lex_uint(x, UINT64_MAX, &e.pkt.digest);
        else
            rc = sn_err_inval(x->err,
                              "schedule file: %s: unknown key \"%s\" in a transmission (node, "
                              "port, to, src, dst, seq, frag, kind, value, operands)",
                              lex_at(x, x->pos).s, key);
        if (rc)
            return rc;
    } while (eat(x, ','));
    if (expect(x, '}'))
        return SN_EINVAL;
    if ((seen & ~OPS) != (NODE | PORT | TO | SRC | DST | SEQ | FRAG))
        return sn_err_inval(x->err,
                            "schedule file: %s: a transmission needs node, port, to, src, "
                            "dst, seq and frag",
                            lex_at(x, x->pos).s);
    /* "to" is checked against the topology by sn_sched_file_check: keep it in the (free) pad */
    e.pkt.pad_ = to;
    /* the operands follow the transmission through the sort: its listed position in the tag */
    e.pkt.tag = (uint32_t) s->n;
    sn_grow((void **) &s->ev, &ps->cap, s->n + 1, sizeof *s->ev);
    s->ev[s->n++] = e;
    sn_grow((void **) &ps->opfirst, &ps->capopfirst, s->n + 1, sizeof *ps->opfirst);
    ps->opfirst[s->n - 1] = ops_at;
    ps->opfirst[s->n] = ps->nopnd;
    return 0;
}

/* One slot: {"slot": T, "sends": [...]}, T >= 1. */
static int parse_slot(lex_t *x, parse_t *ps)
{
    int rc;
    uint64_t slot = 0;
    size_t first = ps->f->sched.n;
    int have_slot = 0, have_sends = 0;
    if (expect(x, '{'))
        return SN_EINVAL;
    do {
        char key[256];
        if ((rc = lex_string(x, key, sizeof key)) || (rc = expect(x, ':')))
            return rc;
        if ((strcmp(key, "slot") == 0 && have_slot) || (strcmp(key, "sends") == 0 && have_sends))
            return sn_err_inval(x->err, "schedule file: %s: key \"%s\" twice in a slot",
                                lex_at(x, x->pos).s, key);
        if (strcmp(key, "slot") == 0 && !have_slot) {
            if ((rc = lex_uint(x, UINT32_MAX, &slot)))
                return rc;
            if (slot == 0)
                return sn_err_inval(x->err, "schedule file: %s: slot 0; slots start at 1",
                                    lex_at(x, x->pos).s);
            have_slot = 1;
            for (size_t i = first; i < ps->f->sched.n; i++)
                ps->f->sched.ev[i].slot = slot;
        } else if (strcmp(key, "sends") == 0 && !have_sends) {
            have_sends = 1;
            if (expect(x, '['))
                return SN_EINVAL;
            if (!eat(x, ']')) {
                do {
                    if ((rc = parse_send(x, ps, slot)))
                        return rc;
                } while (eat(x, ','));
                if (expect(x, ']'))
                    return SN_EINVAL;
            }
        } else {
            return sn_err_inval(x->err,
                                "schedule file: %s: unknown key \"%s\" in a slot (slot and "
                                "sends)",
                                lex_at(x, x->pos).s, key);
        }
    } while (eat(x, ','));
    if (!have_slot || !have_sends)
        return sn_err_inval(x->err, "schedule file: %s: a slot needs slot and sends",
                            lex_at(x, x->pos).s);
    return expect(x, '}');
}

static int parse_word(lex_t *x, const char *key, const char *a, const char *b, int *out)
{
    char w[256];
    int rc = lex_string(x, w, sizeof w);
    if (rc)
        return rc;
    if (strcmp(w, a) == 0)
        *out = 0;
    else if (strcmp(w, b) == 0)
        *out = 1;
    else
        return sn_err_inval(x->err, "schedule file: %s \"%s\": %s or %s", key, w, a, b);
    return 0;
}

/* The keys of a schedule file's object. */
static const char *const top_keys[] = {"format", "version", "topology", "collective", "algorithm",
                                       "root",   "sources", "msgs",     "frags",      "size",
                                       "seed",   "op",      "ports",    "rx",         "duplex",
                                       "steps",  "slots"};

static int parse_top_key(lex_t *x, parse_t *ps, const char *key)
{
    sn_sched_file_t *f = ps->f;
    sn_params_t *p = &f->params;
    char w[256];
    uint64_t v;
    int rc, word = 0;
    if (strcmp(key, "format") == 0) {
        if ((rc = lex_string(x, w, sizeof w)))
            return rc;
        if (strcmp(w, FORMAT_NAME) != 0)
            return sn_err_inval(x->err, "schedule file: format \"%s\": accepted: " FORMAT_NAME, w);
        ps->seen_format = 1;
    } else if (strcmp(key, "version") == 0) {
        if ((rc = lex_uint(x, UINT32_MAX, &v)))
            return rc;
        if (v != FORMAT_VERSION)
            return sn_err_inval(x->err, "schedule file: version %" PRIu64 ": accepted: %d", v,
                                FORMAT_VERSION);
        ps->seen_version = 1;
    } else if (strcmp(key, "topology") == 0) {
        if ((rc = lex_string(x, w, sizeof w)))
            return rc;
        free(f->topo);
        f->topo = sn_xstrdup(w);
        ps->seen_topo = 1;
    } else if (strcmp(key, "collective") == 0) {
        if ((rc = lex_string(x, w, sizeof w)) || (rc = sn_coll_parse(w, &p->coll, x->err)))
            return rc;
        if (!sn_sched_file_supports(p->coll))
            return refuse_coll(p->coll, x->err);
        ps->seen_coll = 1;
    } else if (strcmp(key, "algorithm") == 0) {
        /* a record of who played it, for the reports; plays no part */
        if ((rc = lex_string(x, w, sizeof w)) != 0)
            return rc;
        free(f->algorithm);
        f->algorithm = sn_xstrdup(w);
    } else if (strcmp(key, "root") == 0) {
        return lex_u32(x, &p->root);
    } else if (strcmp(key, "msgs") == 0) {
        return lex_u32(x, &p->msgs);
    } else if (strcmp(key, "frags") == 0) {
        return lex_u32(x, &p->frags);
    } else if (strcmp(key, "size") == 0) {
        return lex_u32(x, &p->size);
    } else if (strcmp(key, "seed") == 0) {
        return lex_uint(x, UINT64_MAX, &p->seed);
    } else if (strcmp(key, "op") == 0) {
        if ((rc = lex_string(x, w, sizeof w)) || (rc = sn_op_parse(w, &p->op, x->err)))
            return rc;
        ps->seen_op = 1;
    } else if (strcmp(key, "ports") == 0) {
        if ((rc = parse_word(x, key, "multi", "single", &word)))
            return rc;
        p->pm.ports = word ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
    } else if (strcmp(key, "rx") == 0) {
        if ((rc = parse_word(x, key, "one", "any", &word)))
            return rc;
        p->pm.rx = word ? SN_RX_ANY : SN_RX_ONE;
    } else if (strcmp(key, "duplex") == 0) {
        if ((rc = parse_word(x, key, "full", "half", &word)))
            return rc;
        p->pm.duplex = word ? SN_DUPLEX_HALF : SN_DUPLEX_FULL;
    } else if (strcmp(key, "sources") == 0) {
        size_t cap = 0;
        free(f->sources);
        f->sources = NULL;
        p->nsources = 0;
        if (expect(x, '['))
            return SN_EINVAL;
        if (!eat(x, ']')) {
            do {
                size_t n = p->nsources;
                sn_grow((void **) &f->sources, &cap, n + 1, sizeof *f->sources);
                if ((rc = lex_u32(x, &f->sources[n])))
                    return rc;
                if (n > 0 && f->sources[n] <= f->sources[n - 1])
                    return sn_err_inval(x->err,
                                        "schedule file: sources must be increasing (%u after %u)",
                                        f->sources[n], f->sources[n - 1]);
                p->nsources++;
            } while (eat(x, ','));
            if (expect(x, ']'))
                return SN_EINVAL;
        }
        p->sources = f->sources;
    } else if (strcmp(key, "steps") == 0) {
        if ((rc = lex_uint(x, UINT32_MAX, &f->sched.steps)))
            return rc;
        ps->seen_steps = 1;
    } else if (strcmp(key, "slots") == 0) {
        if (expect(x, '['))
            return SN_EINVAL;
        if (!eat(x, ']')) {
            do {
                if ((rc = parse_slot(x, ps)))
                    return rc;
            } while (eat(x, ','));
            if (expect(x, ']'))
                return SN_EINVAL;
        }
        ps->seen_slots = 1;
    } else {
        const char *near =
            sn_suggest(key, strlen(key), top_keys, sizeof top_keys / sizeof *top_keys);
        char hint[48] = "";
        if (near)
            snprintf(hint, sizeof hint, ": did you mean \"%s\"?", near);
        return sn_err_inval(x->err,
                            "schedule file: %s: unknown key \"%s\"%s (format, version, "
                            "topology, collective, algorithm, root, sources, msgs, frags, size, "
                            "seed, op, ports, rx, duplex, steps, slots)",
                            lex_at(x, x->pos).s, key, hint);
    }
    return 0;
}

/* The operands in the order of the sorted transmissions (their listed positions are in the
 * tags); only data transmissions of combining collectives have them. */
static int sort_operands(sn_sched_file_t *f, const parse_t *ps, sn_err_t *err)
{
    sn_sched_t *s = &f->sched;
    int combining = sn_coll_is_combining(f->params.coll);
    for (size_t i = 0; i < s->n; i++) {
        const sn_sched_ev_t *e = &s->ev[i];
        size_t at = e->pkt.tag, n = ps->opfirst[at + 1] - ps->opfirst[at];
        if (n > 0 && (!combining || e->pkt.kind != SN_PKT_DATA))
            return sn_err_inval(err,
                                "schedule file: slot %" PRIu64 ", node %u: operands belong to "
                                "the combined data packets of sna, pmna, mna, allreduce and "
                                "barrier",
                                e->slot, e->node);
    }
    if (!combining) {
        for (size_t i = 0; i < s->n; i++)
            s->ev[i].pkt.tag = 0;
        return 0;
    }
    f->ops.first = sn_xmalloc((s->n + 1) * sizeof *f->ops.first);
    f->ops.id = sn_xmalloc((ps->nopnd ? ps->nopnd : 1) * sizeof *f->ops.id);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t at = s->ev[i].pkt.tag, n = ps->opfirst[at + 1] - ps->opfirst[at];
        f->ops.first[i] = k;
        if (n)
            memcpy(f->ops.id + k, ps->opnd + ps->opfirst[at], n * sizeof *f->ops.id);
        k += n;
        s->ev[i].pkt.tag = 0;
    }
    f->ops.first[s->n] = k;
    return 0;
}

int sn_sched_file_parse(const char *text, size_t len, sn_sched_file_t **out, sn_err_t *err)
{
    *out = NULL;
    sn_sched_file_t *f = sn_xcalloc(1, sizeof *f);
    sn_params_default(&f->params, SN_COLL_BCAST);
    f->sched.predicted = -1;
    parse_t ps = {.f = f};
    lex_t x = {text, len, 0, err};
    int rc = expect(&x, '{');
    if (rc == 0) {
        unsigned once = 0; /* each known key once: two "slots" are two schedules to a reader */
        do {
            char key[256];
            skip_ws(&x);
            size_t key_at = x.pos;
            if ((rc = lex_string(&x, key, sizeof key)) || (rc = expect(&x, ':')))
                break;
            for (unsigned k = 0; k < sizeof top_keys / sizeof *top_keys; k++)
                if (strcmp(key, top_keys[k]) == 0) {
                    if (once & (1u << k))
                        rc = sn_err_inval(err, "schedule file: %s: key \"%s\" twice",
                                          lex_at(&x, key_at).s, key);
                    once |= 1u << k;
                }
            if (rc || (rc = parse_top_key(&x, &ps, key)))
                break;
        } while (eat(&x, ','));
    }
    if (rc == 0 && (rc = expect(&x, '}')) == 0) {
        skip_ws(&x);
        if (x.pos != len)
            rc = lex_fail(&x, "the end of the file after the schedule's object");
    }
    if (rc == 0 && !(ps.seen_format && ps.seen_version && ps.seen_topo && ps.seen_coll &&
                     ps.seen_steps && ps.seen_slots))
        rc = sn_err_inval(err, "schedule file: format, version, topology, collective, steps and "
                               "slots are required");
    if (rc == 0 && sn_coll_is_combining(f->params.coll) && !ps.seen_op)
        rc = sn_err_inval(err, "schedule file: a schedule of %s needs its op (" SN_OP_NAMES ")",
                          sn_coll_name(f->params.coll));
    /* the sort is stable in effect: (slot, node, port) identifies a transmission in a valid file,
     * and the checker refuses two on one port in one slot */
    if (rc == 0 && f->sched.n > 1) /* ev is NULL in a file without transmissions */
        qsort(f->sched.ev, f->sched.n, sizeof *f->sched.ev, sn_sched_ev_cmp);
    if (rc == 0)
        rc = sort_operands(f, &ps, err);
    free(ps.opnd);
    free(ps.opfirst);
    if (rc != 0) {
        sn_sched_file_free(f);
        return rc < 0 ? rc : SN_EINVAL;
    }
    *out = f;
    return 0;
}

uint64_t sn_sched_file_max_transmissions(uint64_t max_memory, int assign)
{
    uint64_t bytes = assign ? SN_SCHED_FILE_MAX_ASSIGN : SN_SCHED_FILE_MAX_BYTES;
    if (max_memory != 0 && max_memory / SN_SCHED_FILE_MEM_PER_BYTE < bytes)
        bytes = max_memory / SN_SCHED_FILE_MEM_PER_BYTE;
    return bytes / SN_SCHED_FILE_MIN_LINE;
}

int sn_sched_file_read(const char *path, uint64_t max_memory, sn_sched_file_t **out, sn_err_t *err)
{
    *out = NULL;
    const char *why;
    FILE *fp = sn_fopen_regular(path, &why);
    if (fp == NULL)
        return sn_err_set(err, SN_EINVAL, "schedule file %s: %s", path, why);
    struct stat st;
    if (fstat(fileno(fp), &st) != 0) {
        fclose(fp);
        return sn_err_set(err, SN_EIO, "schedule file %s: %s", path, strerror(errno));
    }
    uint64_t size = (uint64_t) st.st_size;
    uint64_t limit = SN_SCHED_FILE_MAX_BYTES;
    if (max_memory != 0 && max_memory / SN_SCHED_FILE_MEM_PER_BYTE < limit)
        limit = max_memory / SN_SCHED_FILE_MEM_PER_BYTE;
    if (size > limit) {
        fclose(fp);
        err->param = SN_PARAM_MEMORY;
        return sn_err_set(err, SN_ERANGE,
                          "schedule file %s: %" PRIu64 " bytes; reading it may take %" PRIu64
                          " bytes of memory, above the limit of %" PRIu64
                          " (files of at most %" PRIu64 " bytes)",
                          path, size, size * SN_SCHED_FILE_MEM_PER_BYTE, max_memory, limit);
    }
    char *text = sn_xmalloc((size_t) size + 1);
    size_t got = fread(text, 1, (size_t) size, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || got != size) {
        free(text);
        return sn_err_set(err, SN_EIO, "schedule file %s: short read", path);
    }
    int rc = sn_sched_file_parse(text, got, out, err);
    free(text);
    if (rc < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        sn_err_set(err, rc, "%s: %s", path, msg);
    }
    return rc;
}

void sn_sched_file_free(sn_sched_file_t *f)
{
    if (f == NULL)
        return;
    free(f->topo);
    free(f->algorithm);
    free(f->sources);
    free(f->sched.ev);
    sn_sched_ops_free(&f->ops);
    free(f);
}

int sn_sched_file_text(const sn_algo_t *a, const void *plan, const sn_topo_t *t,
                       const sn_params_t *p, char **text, size_t *len, sn_err_t *err)
{
    *text = NULL;
    *len = 0;
    if (a != &sn__algo_schedule)
        return 0;
    sn_sched_t view, s;
    const sn_sched_ops_t *ops;
    sn__schedule_plan_sched(plan, &view, &ops);
    s = view;
    s.ev = sn_xcalloc(view.n ? view.n : 1, sizeof *s.ev);
    if (view.n)
        memcpy(s.ev, view.ev, view.n * sizeof *s.ev);
    qsort(s.ev, s.n, sizeof *s.ev, sn_sched_ev_cmp); /* the file's order: by slot */
    /* back in the file's order, which is the order of the plan's operands */
    int rc = sn_sched_file_format(t, p, NULL, &s, ops, text, len, err);
    free(s.ev);
    if (rc == 0 && *len > SN_SCHED_FILE_MAX_ASSIGN)
        rc = sn_err_inval(err,
                          "the schedule's text is %zu bytes, more than an assignment carries "
                          "(%u)",
                          *len, SN_SCHED_FILE_MAX_ASSIGN);
    if (rc < 0) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    return rc;
}

int sn_sched_file_plan_text(const char *text, size_t len, const sn_topo_t *t, const sn_params_t *p,
                            const sn_algo_t **algo, void **plan, sn_err_t *err)
{
    *plan = NULL;
    if (len > SN_SCHED_FILE_MAX_ASSIGN)
        return sn_err_inval(err, "a schedule of %zu bytes: an assignment carries at most %u", len,
                            SN_SCHED_FILE_MAX_ASSIGN);
    sn_sched_file_t *f = NULL;
    int rc = sn_sched_file_parse(text, len, &f, err);
    if (rc == 0 && (rc = sn_sched_file_check(f, t, p, err)) == 0 &&
        (rc = sn__schedule_plan_new(t, p, &f->sched, &f->ops, plan, err)) == 0)
        *algo = &sn__algo_schedule;
    sn_sched_file_free(f);
    return rc;
}

int sn_sched_file_select(const char *path, uint64_t max_memory, const sn_topo_t *t,
                         const sn_params_t *p, const sn_algo_t **algo, void **plan,
                         int64_t *predicted, sn_err_t *err)
{
    if (!sn_sched_file_supports(p->coll))
        return refuse_coll(p->coll, err);
    sn_sched_file_t *f = NULL;
    int rc = sn_sched_file_read(path, max_memory, &f, err);
    if (rc < 0)
        return rc;
    return sn_sched_file_select_parsed(f, path, t, p, algo, plan, predicted, err);
}

int sn_sched_file_select_parsed(sn_sched_file_t *f, const char *path, const sn_topo_t *t,
                                const sn_params_t *p, const sn_algo_t **algo, void **plan,
                                int64_t *predicted, sn_err_t *err)
{
    int rc;
    if (!sn_sched_file_supports(p->coll)) {
        sn_sched_file_free(f);
        return refuse_coll(p->coll, err);
    }
    if ((rc = sn_sched_file_check(f, t, p, err)) < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        sn_err_set(err, rc == SN_EINVAL ? SN_EINVAL : rc, "schedule file %s: %s", path, msg);
        sn_sched_file_free(f);
        return rc;
    }
    void *pl = NULL;
    rc = sn__schedule_plan_new(t, p, &f->sched, &f->ops, &pl, err);
    sn_sched_file_free(f);
    if (rc < 0)
        return rc;
    *algo = &sn__algo_schedule;
    if (predicted)
        *predicted = sn__algo_schedule.predicted(pl);
    if (plan)
        *plan = pl;
    else
        sn__algo_schedule.plan_free(pl);
    return 0;
}
