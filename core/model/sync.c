/* The execution modes of `stepnet run` (core/model/): their names, parser and properties, all
 * generated from the one list SN_SYNC_MAP (include/stepnet/sync.h; docs/runtime.md, "The slot
 * barrier" and "Dataflow execution"). Pure. */
#include "stepnet/sync.h"

#include <stdio.h>
#include <string.h>

#include "stepnet/error.h"

typedef struct sync_row_s {
    const char *name, *what;
    int lockstep, rxplan;
} sync_row_t;

static const sync_row_t rows[] = {
#define SN_SYNC_ROW(e, n, wire, ls, rx, w)                                                         \
    [SN_SYNC_##e] = {.name = #n, .what = w, .lockstep = ls, .rxplan = rx},
    SN_SYNC_MAP(SN_SYNC_ROW)
#undef SN_SYNC_ROW
};

_Static_assert(sizeof rows / sizeof rows[0] == SN_SYNC_COUNT, "one row per execution mode");

static const sync_row_t *row(sn_sync_t s)
{
    return (unsigned) s < SN_SYNC_COUNT ? &rows[s] : NULL;
}

const char *sn_sync_name(sn_sync_t s)
{
    return row(s) ? row(s)->name : "?";
}

const char *sn_sync_describe(sn_sync_t s)
{
    return row(s) ? row(s)->what : "?";
}

int sn_sync_parse(const char *name, sn_sync_t *out)
{
    for (unsigned s = 0; s < SN_SYNC_COUNT; s++) {
        if (strcmp(name, rows[s].name) == 0) {
            *out = (sn_sync_t) s;
            return 0;
        }
    }
    return SN_EINVAL;
}

char *sn_sync_names(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (unsigned s = 0; s < SN_SYNC_COUNT && len < cap; s++) {
        const char *sep = s == 0 ? "" : s + 1 == SN_SYNC_COUNT ? " or " : ", ";
        int n = snprintf(buf + len, cap - len, "%s%s", sep, rows[s].name);
        len += n > 0 ? (size_t) n : 0;
    }
    return buf;
}

int sn_sync_lockstep(sn_sync_t s)
{
    return row(s) ? row(s)->lockstep : 0;
}

int sn_sync_needs_rxplan(sn_sync_t s)
{
    return row(s) ? row(s)->rxplan : 0;
}
