/* The collectives as data (core/coll): the one list of colls.def made a table, and what is read
 * from it: the names, the parser of names and MPI aliases with the list of what it accepts, the
 * predicates, the name lists of messages and README.md's "Collectives" table. Who sends what to
 * whom, expected deliveries and run parameters are in deliveries.c, payloads in payload.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "stepnet/algo.h"
#include "stepnet/util.h"

/* One row of the list. */
typedef struct {
    const char *name, *mpi, *also;
    sn_coll_group_t senders, receivers;
    unsigned flags;
    const char *summary;
} coll_row_t;

static const coll_row_t rows[SN_COLL_COUNT] = {
#define SN_COLL(id, name_, mpi_, also_, senders_, receivers_, flags_, summary_)                    \
    [SN_COLL_##id] = {.name = name_,                                                               \
                      .mpi = mpi_,                                                                 \
                      .also = also_,                                                               \
                      .senders = SN_COLL_GROUP_##senders_,                                         \
                      .receivers = SN_COLL_GROUP_##receivers_,                                     \
                      .flags = flags_,                                                             \
                      .summary = summary_},
#include "core/coll/colls.def"
};

/* The row of c, or NULL for an id outside the list. */
static const coll_row_t *row(sn_coll_t c)
{
    return (unsigned) c < SN_COLL_COUNT ? &rows[c] : NULL;
}

static int has(sn_coll_t c, unsigned flag)
{
    const coll_row_t *r = row(c);
    return r != NULL && (r->flags & flag) != 0;
}

const char *sn_coll_name(sn_coll_t c)
{
    const coll_row_t *r = row(c);
    return r ? r->name : "unknown";
}

/* What the parser accepts, as its message lists it: every name, with its MPI name in
 * parentheses. */
static char *accepted(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < SN_COLL_COUNT && len < cap; i++) {
        const coll_row_t *r = &rows[i];
        len += (size_t) snprintf(buf + len, cap - len, "%s%s%s%s%s", i ? ", " : "", r->name,
                                 r->mpi ? " (" : "", r->mpi ? r->mpi : "", r->mpi ? ")" : "");
    }
    return buf;
}

int sn_coll_parse(const char *s, sn_coll_t *out, sn_err_t *err)
{
    for (int i = 0; i < SN_COLL_COUNT; i++) {
        const coll_row_t *r = &rows[i];
        if (strcmp(s, r->name) == 0 || (r->mpi && strcmp(s, r->mpi) == 0) ||
            (r->also && strcmp(s, r->also) == 0)) {
            *out = (sn_coll_t) i;
            return 0;
        }
    }
    char list[512];
    const char *names[2 * SN_COLL_COUNT];
    for (int i = 0; i < SN_COLL_COUNT; i++)
        names[2 * i] = rows[i].name, names[2 * i + 1] = rows[i].mpi;
    const char *near = sn_suggest(s, strlen(s), names, 2 * SN_COLL_COUNT);
    if (near)
        return sn_err_set(err, SN_EINVAL, "unknown collective '%s': did you mean %s? accepted: %s",
                          s, near, accepted(list, sizeof list));
    return sn_err_set(err, SN_EINVAL, "unknown collective '%s'; accepted: %s", s,
                      accepted(list, sizeof list));
}

int sn_coll_is_broadcast(sn_coll_t c)
{
    return has(c, SN_COLL_F_BROADCAST);
}

int sn_coll_is_combining(sn_coll_t c)
{
    return has(c, SN_COLL_F_COMBINING);
}

int sn__coll_is_uniform(sn_coll_t c)
{
    return has(c, SN_COLL_F_UNIFORM);
}

int sn_coll_is_rounds(sn_coll_t c)
{
    return has(c, SN_COLL_F_ROUNDS);
}

sn_coll_group_t sn__coll_senders(sn_coll_t c)
{
    const coll_row_t *r = row(c);
    return r ? r->senders : SN_COLL_GROUP_NONE;
}

sn_coll_group_t sn__coll_receivers(sn_coll_t c)
{
    const coll_row_t *r = row(c);
    return r ? r->receivers : SN_COLL_GROUP_NONE;
}

int sn_coll_is_partial(sn_coll_t c)
{
    return sn__coll_senders(c) == SN_COLL_GROUP_SOURCES ||
           sn__coll_receivers(c) == SN_COLL_GROUP_SOURCES;
}

int sn__coll_is_rooted(sn_coll_t c)
{
    return sn__coll_senders(c) == SN_COLL_GROUP_ROOT || sn__coll_receivers(c) == SN_COLL_GROUP_ROOT;
}

char *sn__coll_names(char *buf, size_t cap, int (*keep)(sn_coll_t c))
{
    size_t len = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < SN_COLL_COUNT && len < cap; i++)
        if (keep((sn_coll_t) i))
            len += (size_t) snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", rows[i].name);
    return buf;
}

/* ---- README.md's table ---------------------------------------------------------------------- */

static const char *kind(const coll_row_t *r)
{
    if (r->flags & SN_COLL_F_ROUNDS)
        return "rounds of arrivals";
    if (r->flags & SN_COLL_F_COMBINING)
        return "combining";
    return r->flags & SN_COLL_F_BROADCAST ? "broadcast" : "personalised";
}

char *sn__coll_markdown(void)
{
    size_t cap = 4096, len = 0;
    char *s = sn_xmalloc(cap);
    len += (size_t) snprintf(s, cap,
                             "| collective | MPI alias | kind | who sends what to whom |\n"
                             "|---|---|---|---|\n");
    for (int i = 0; i < SN_COLL_COUNT; i++) {
        const coll_row_t *r = &rows[i];
        char mpi[96] = "";
        size_t ml = r->mpi ? (size_t) snprintf(mpi, sizeof mpi, "`%s`", r->mpi) : 0;
        if (r->also)
            snprintf(mpi + ml, sizeof mpi - ml, "%s(also `%s`)", ml ? " " : "", r->also);
        for (;;) {
            int n = snprintf(s + len, cap - len, "| `%s` | %s | %s | %s |\n", r->name, mpi, kind(r),
                             r->summary);
            if (n >= 0 && (size_t) n < cap - len) {
                len += (size_t) n;
                break;
            }
            cap *= 2;
            s = sn_xrealloc(s, cap);
        }
    }
    return s;
}
