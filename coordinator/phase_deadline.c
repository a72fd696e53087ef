/* The deadline of each phase of a run (coordinator): when it expires, the failure names who is
 * late and why. At the ready deadline that is each late node by host and state (an ssh session
 * still starting, a process started but silent, links not up, calibrating, clock not probed),
 * grouped, and the option that raises it; in a collective, the nodes whose result is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/coord_internal.h"
#include "stepnet/util.h"

/* Deadline messages list at most this many characters of missing node ids, or of late nodes with
 * their state (the whole message must fit a report, SN_COORD_BLAME_TEXT). */
#define MISSING_TEXT 300
#define LATE_TEXT    250
/* The parameter that sets the ready deadline, named in its message. */
#define READY_OPTION SN_REF_READY_TIMEOUT

/* What node `cn` has still to do at the ready deadline, or NULL when it is not late; `host` gets
 * where it runs (its launcher's late). Before its hello its launcher knows best (an ssh session
 * still starting, a process started but silent); after, the phase it has not passed. */
static const char *late_state(const sn_coord_t *r, const sn_coord_node_t *cn, char *host,
                              size_t cap)
{
    const char *launch = r->launcher->late(r->launcher_state, (uint32_t) cn->id,
                                           cn->hello ? cn->host : NULL, host, cap);
    if (launch)
        return launch;
    switch (r->phase) {
    case SN_COORD_PH_READY:
        return cn->ready ? NULL : "joined but not ready: links not up";
    case SN_COORD_PH_CALIBRATE:
        return cn->calibrated ? NULL : "calibrating";
    case SN_COORD_PH_CLOCK:
        return cn->clocked ? NULL : "clock not probed yet";
    default:
        return NULL;
    }
}

/* The late nodes of one state on one host (at most LATE_GROUPS of them are told apart), their
 * ids as ranges ("0-3,8,10") while LATE_IDS characters hold them. */
#define LATE_GROUPS 8
#define LATE_IDS    48
typedef struct late_group_s {
    const char *state;
    char host[SN_LAUNCH_HOST_TEXT];
    uint32_t count, first, last; /* nodes; the range being written */
    char ids[LATE_IDS];
    size_t len;
    int cut; /* some ids did not fit: "..." ends the list */
} late_group_t;

static void ids_put(late_group_t *g, const char *fmt, uint32_t id)
{
    char part[16];
    int w = snprintf(part, sizeof part, fmt, id);
    if (g->cut)
        return;
    if (g->len + (size_t) w + 4 >= sizeof g->ids) { /* room for "..." */
        g->cut = 1;
        memcpy(g->ids + g->len, "...", 4);
        return;
    }
    memcpy(g->ids + g->len, part, (size_t) w + 1);
    g->len += (size_t) w;
}

/* The end of the range being written, once it is over. */
static void ids_close(late_group_t *g)
{
    if (g->last > g->first)
        ids_put(g, g->last == g->first + 1 ? ",%u" : "-%u", g->last);
}

static void ids_add(late_group_t *g, uint32_t id)
{
    if (g->count++ > 0 && id == g->last + 1) {
        g->last = id;
        return;
    }
    if (g->count > 1)
        ids_close(g);
    ids_put(g, g->count > 1 ? ",%u" : "%u", id);
    g->first = g->last = id;
}

/* The late nodes of the ready deadline into `buf`: per state and host, how many and which, in
 * order of the first node of each; then how many more did not fit. Their count into *count. */
static void late_nodes(const sn_coord_t *r, char *buf, size_t cap, uint32_t *count)
{
    const size_t room = cap - 24; /* "; and 4294967295 more" fits after the groups */
    late_group_t *g = sn_xcalloc(LATE_GROUPS, sizeof *g);
    size_t ng = 0, len = 0;
    uint32_t listed = 0;
    *count = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        late_group_t cur;
        cur.state = late_state(r, &r->nodes[i], cur.host, sizeof cur.host);
        if (cur.state == NULL)
            continue;
        ++*count;
        size_t k = 0;
        while (k < ng && (strcmp(g[k].state, cur.state) != 0 || strcmp(g[k].host, cur.host) != 0))
            k++;
        if (k == ng && ng == LATE_GROUPS)
            continue; /* counted in "more" */
        if (k == ng) {
            g[ng].state = cur.state;
            memcpy(g[ng].host, cur.host, sizeof cur.host);
            ng++;
        }
        ids_add(&g[k], i);
    }
    for (size_t k = 0; k < ng; k++) {
        ids_close(&g[k]);
        int w = snprintf(buf + len, room - len, "%s%s%s%s%s (%u node%s: %s)", len ? "; " : "",
                         g[k].host[0] ? "host " : "", g[k].host, g[k].host[0] ? ": " : "",
                         g[k].state, g[k].count, g[k].count == 1 ? "" : "s", g[k].ids);
        if (w < 0 || (size_t) w >= room - len)
            break; /* the first group that does not fit ends the list */
        len += (size_t) w;
        listed += g[k].count;
    }
    buf[len] = '\0';
    if (listed < *count)
        snprintf(buf + len, cap - len, "%s%u more", len ? "; and " : "", *count - listed);
    free(g);
}

void sn__coord_on_deadline(uv_timer_t *t)
{
    sn_coord_t *r = t->data;
    uint32_t ms = r->deadline_ms;
    if (r->phase != SN_COORD_PH_RUN && r->phase != SN_COORD_PH_DONE) {
        const char *what = r->phase == SN_COORD_PH_JOIN        ? "ready deadline: nodes joined"
                           : r->phase == SN_COORD_PH_READY     ? "ready deadline: nodes ready"
                           : r->phase == SN_COORD_PH_CALIBRATE ? "ready deadline: links calibrated"
                                                               : "ready deadline: clocks probed";
        char late[LATE_TEXT];
        uint32_t count;
        if (r->phase == SN_COORD_PH_JOIN && r->launcher->ids_at_join) /* no id is known yet */
            sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                           "%s (%u ms) expired: %u of %u nodes missing (%u have joined); raise it "
                           "with %s",
                           what, ms, r->n - r->joined, r->n, r->joined, READY_OPTION);
        else {
            late_nodes(r, late, sizeof late, &count);
            sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                           "%s (%u ms) expired: %u of %u nodes missing: %s; raise it with %s", what,
                           ms, count, r->n, late, READY_OPTION);
        }
        return;
    }
    char missing[MISSING_TEXT] = "";
    size_t len = 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->nodes[i].result)
            continue;
        count++;
        if (len < sizeof missing - 16)
            len +=
                (size_t) snprintf(missing + len, sizeof missing - len, "%s%u", len ? "," : "", i);
    }
    sn__coord_fail(r, SN_COORD_NODE_NONE, 0,
                   "collective deadline (%u ms) expired: %u of %u nodes missing (nodes %s)", ms,
                   count, r->n, missing);
}

void sn__coord_deadline(sn_coord_t *r, uint32_t ms)
{
    r->deadline_ms = ms;
    uv_timer_start(&r->deadline, sn__coord_on_deadline, ms, 0);
}
