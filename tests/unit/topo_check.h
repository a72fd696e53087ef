/* Helpers shared by the unit tests of the topology library (tests/unit/test_topo_*.c): a plain BFS
 * written apart from the library, the structural check every topology must pass, temporary
 * `file:` graphs, the parser's error check, and the graphs and specs several of the files walk.
 * Include after the cmocka prerequisites: <setjmp.h> <stdarg.h> <stddef.h> <stdint.h> <cmocka.h>.
 */
#ifndef STEPNET_TESTS_UNIT_TOPO_CHECK_H
#define STEPNET_TESTS_UNIT_TOPO_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/testutil.h"

/* Records a failed expectation (prints the first 20) without stopping the test, so that one run
 * shows every mismatch of a table. Functions using it take `int *bad`. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond) && (*bad)++ < 20)                                                              \
            print_error(__VA_ARGS__);                                                              \
    } while (0)

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Plain BFS over the port tables (independent of sn_topo_bfs). */
static inline void bfs(const sn_topo_t *t, uint32_t src, uint32_t *dist)
{
    uint32_t *q = malloc((size_t) t->n * sizeof *q);
    for (uint32_t i = 0; i < t->n; i++)
        dist[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    dist[src] = 0;
    q[tail++] = src;
    while (head < tail) {
        uint32_t u = q[head++];
        for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
            uint32_t v = sn_topo_port(t, u, p)->peer;
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                q[tail++] = v;
            }
        }
    }
    free(q);
}

static inline sn_topo_t *topof(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline sn_topo_t *topof(const char *fmt, ...)
{
    char spec[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(spec, sizeof spec, fmt, ap);
    va_end(ap);
    return tu_topo(spec);
}

/* A `file:` spec over a temporary file; drop it with tfile_drop. */
typedef struct tfile_s {
    char *path;
    char spec[512];
} tfile_t;

static inline void tfile_make(tfile_t *f, const char *text)
{
    f->path = tu_tmpfile(text);
    snprintf(f->spec, sizeof f->spec, "file:%s", f->path);
}

static inline void tfile_drop(tfile_t *f)
{
    unlink(f->path);
    free(f->path);
}

/* Router level = distance to the nearest processor (multi-source BFS from the leaves). */
static inline void router_levels(const sn_topo_t *t, uint32_t *lvl)
{
    uint32_t *q = malloc((size_t) t->n * sizeof *q), head = 0, tail = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        lvl[u] = sn_topo_is_proc(t, u) ? 0 : UINT32_MAX;
        if (lvl[u] == 0)
            q[tail++] = u;
    }
    while (head < tail) {
        uint32_t u = q[head++];
        for (uint32_t p = 0; p < sn_topo_degree(t, u); p++) {
            uint32_t v = sn_topo_port(t, u, p)->peer;
            if (lvl[v] == UINT32_MAX) {
                lvl[v] = lvl[u] + 1;
                q[tail++] = v;
            }
        }
    }
    free(q);
}

/* Graphs given as files. F_ROUTERS: routers 4 and 5 joined by a double link, processors 0-3 around
 * them. F_PLAIN: comments, blank lines, tabs, a triangle and a square with a parallel edge that
 * follows its twin. F_LEAFROUTER: a router that leads to no processor. */
static const char F_ROUTERS[] = "# two switches with a double link\n"
                                "0 4\n"
                                "1 4\n"
                                "router 4\n"
                                "4 5\n"
                                "4 5   # the parallel link\n"
                                "5 2\n"
                                "5 3\n"
                                "router 5\n";
static const char F_PLAIN[] = "\n"
                              "# triangle 0 1 2, square 2 3 4 5\n"
                              "0 1\n"
                              "1\t2\n"
                              "  2 0  # closes the triangle\n"
                              "\n"
                              "2 3\n"
                              "3 4\n"
                              "3 4\n"
                              "4 5\n"
                              "5 2\n";
static const char F_LEAFROUTER[] = "0 1\n1 2\n1 3\nrouter 1\nrouter 3\n";

/* Specs that every structural test walks (moderate sizes, every family). */
static const char *const all_specs[] = {
    "linear:2",
    "linear:3",
    "linear:10",
    "ring:2",
    "ring:3",
    "ring:8",
    "ring:13",
    "ering:2:1",
    "ering:8:4",
    "ering:9:4",
    "ering:14:2",
    "ering:17:3",
    "circulant:8:3",
    "circulant:12:1,6",
    "circulant:13:1,5",
    "circulant:16:3,2,8",
    "complete:2",
    "complete:5",
    "complete:8",
    "mesh:2x2",
    "mesh:3x4",
    "mesh:2x3x4",
    "torus:2x2",
    "torus:2x3",
    "torus:3x4",
    "torus:4x4",
    "torus:3x3x3",
    "hypercube:1",
    "hypercube:2",
    "hypercube:5",
    "hypercube:8",
    "foldedcube:2",
    "foldedcube:3",
    "foldedcube:6",
    "ccc:2",
    "ccc:3",
    "ccc:4",
    "ccc:5",
    "butterfly:2",
    "butterfly:3",
    "butterfly:4",
    "butterfly:5",
    "star:2",
    "star:3",
    "star:4",
    "star:5",
    "fattree:2:1",
    "fattree:2:3",
    "fattree:2:3:exp",
    "fattree:3:2:2,5",
    "fattree:4:2:exp",
    "fattree:2:4:3,1,2,2",
    "torus:3x4*ring:5",
    "complete:3*complete:4",
    "ering:7:2*ring:5",
    "hypercube:2*ccc:3",
    "mesh:2x2*mesh:3x3",
    "linear:3*torus:2x2*star:3",
    "linear:4*foldedcube:3",
};

/* Parses spec expecting an error; returns 1 (and prints) when the code or message is wrong. */
static inline int parse_error_ok(const char *spec, int code, const char *needle,
                                 const char *needle2)
{
    sn_topo_t *t = NULL;
    sn_err_t err;
    memset(&err, 0, sizeof err);
    int rc = sn_topo_parse(spec, &t, &err);
    if (rc == 0) {
        print_error("'%s' parsed (spec '%s'), expected %s\n", spec, t->spec, sn_err_name(code));
        sn_topo_free(t);
        return 0;
    }
    int ok = rc == code && err.code == rc && strstr(err.msg, needle) != NULL &&
             (needle2 == NULL || strstr(err.msg, needle2) != NULL);
    if (!ok)
        print_error("'%s': %s \"%s\", expected %s naming \"%s\"%s%s\n", spec, sn_err_name(rc),
                    err.msg, sn_err_name(code), needle, needle2 ? " and " : "",
                    needle2 ? needle2 : "");
    return ok;
}

typedef struct file_err_s {
    const char *text;
    int code;
    const char *needle;
    const char *needle2;
} file_err_t;

static const file_err_t file_errs[] = {
    {"0 1\n1\n", SN_ESPEC, ":2:", "'1'"},                 /* missing field */
    {"0 x\n", SN_ESPEC, ":1:", "'x'"},                    /* non-numeric */
    {"0 1\n1 -2\n", SN_ESPEC, ":2:", "'-2'"},             /* negative */
    {"0 1\nrouter\n", SN_ESPEC, ":2:", "router"},         /* router without id */
    {"0 1\nrouter x\n", SN_ESPEC, "'x'", NULL},           /* bad router id */
    {"0 1\n1 1\n", SN_ESPEC, "1-1", "self loop"},         /* self loop */
    {"0 1\n2 3\n", SN_ESPEC, "node 2", "not connected"},  /* two components */
    {"0 1\n1 3\n", SN_ESPEC, "node 2", "no edge"},        /* id gap */
    {"0 1\n1 2\nrouter 7\n", SN_ESPEC, "router 7", NULL}, /* router naming no node */
    {"0 1\n1 2\nrouter 0\nrouter 1\nrouter 2\n", SN_ESPEC, "router", NULL}, /* no processor */
    {"# nothing but comments\n\n", SN_ESPEC, "no edges", NULL},
    {"", SN_ESPEC, "no edges", NULL},
    {"0 33554432\n", SN_ERANGE, "33554432", NULL}, /* id beyond SN_TOPO_MAX_NODES - 1 */
};

static inline void check_structure(const sn_topo_t *t, int *bad)
{
    const char *s = t->spec;
    EXPECT(t->port_off[0] == 0, "%s: port_off[0] = %u\n", s, t->port_off[0]);
    uint64_t sumdeg = 0;
    uint32_t *dist = malloc((size_t) t->n * sizeof *dist);
    for (uint32_t u = 0; u < t->n; u++) {
        EXPECT(t->port_off[u + 1] >= t->port_off[u], "%s: port_off decreases at %u\n", s, u);
        uint32_t deg = sn_topo_degree(t, u);
        sumdeg += deg;
        EXPECT(deg > 0, "%s: node %u has no port\n", s, u);
        for (uint32_t p = 0; p < deg; p++) {
            const sn_port_t *pp = sn_topo_port(t, u, p);
            if (pp->peer >= t->n || pp->peer == u) {
                EXPECT(0, "%s: port %u of %u leads to %u\n", s, p, u, pp->peer);
                continue;
            }
            if (pp->rport >= sn_topo_degree(t, pp->peer) || pp->edge >= t->nedges) {
                EXPECT(0, "%s: port %u of %u: rport %u edge %u out of range\n", s, p, u, pp->rport,
                       pp->edge);
                continue;
            }
            const sn_port_t *q = sn_topo_port(t, pp->peer, pp->rport);
            EXPECT(q->peer == u && q->rport == p && q->edge == pp->edge,
                   "%s: port %u of %u -> (%u, %u) does not pair back\n", s, p, u, pp->peer,
                   pp->rport);
            const sn_edge_t *e = &t->edges[pp->edge];
            uint32_t lo = u < pp->peer ? u : pp->peer, hi = u < pp->peer ? pp->peer : u;
            EXPECT(e->a == lo && e->b == hi, "%s: edge %u is %u-%u, port %u of %u says %u-%u\n", s,
                   pp->edge, e->a, e->b, p, u, lo, hi);
            EXPECT((u == e->a ? e->pa : e->pb) == p, "%s: edge %u port at %u is not %u\n", s,
                   pp->edge, u, p);
            uint32_t l1 = sn_topo_link_id(t, u, p), l2 = sn_topo_link_id(t, pp->peer, pp->rport);
            EXPECT(l1 / 2 == pp->edge && l2 / 2 == pp->edge && l1 != l2 &&
                       l1 == 2 * pp->edge + (u == e->b),
                   "%s: link ids %u and %u of edge %u\n", s, l1, l2, pp->edge);
        }
        /* Ports to the same peer are contiguous, and ports_to finds them all. */
        for (uint32_t p = 0; p < deg; p++) {
            uint32_t v = sn_topo_port(t, u, p)->peer, first = 0, count = 0, n = 0;
            if (v >= t->n)
                continue;
            for (uint32_t q = 0; q < deg; q++)
                n += sn_topo_port(t, u, q)->peer == v;
            sn_topo_ports_to(t, u, v, &first, &count);
            EXPECT(count == n && first <= p && p < first + count,
                   "%s: ports of %u to %u: %u of them, ports_to gives first %u count %u (port "
                   "%u)\n",
                   s, u, v, n, first, count, p);
        }
        uint32_t first = 7, count = 7;
        sn_topo_ports_to(t, u, u, &first, &count);
        EXPECT(count == 0, "%s: ports_to(%u, itself) gives %u\n", s, u, count);
        /* sn_topo_bfs agrees with the plain BFS on a few sources. */
        if (u < 3) {
            uint32_t *mine = malloc((size_t) t->n * sizeof *mine);
            bfs(t, u, mine);
            sn_topo_bfs(t, u, dist);
            EXPECT(memcmp(mine, dist, (size_t) t->n * sizeof *dist) == 0,
                   "%s: sn_topo_bfs from %u differs\n", s, u);
            for (uint32_t v = 0; v < t->n; v++)
                EXPECT(mine[v] != UINT32_MAX, "%s: %u unreachable from %u\n", s, v, u);
            free(mine);
        }
    }
    EXPECT(sumdeg == 2ull * t->nedges, "%s: degrees sum to %llu, nedges %u\n", s,
           (unsigned long long) sumdeg, t->nedges);
    for (uint32_t e = 0; e < t->nedges; e++) {
        const sn_edge_t *ed = &t->edges[e];
        EXPECT(ed->a < ed->b && ed->b < t->n, "%s: edge %u is %u-%u\n", s, e, ed->a, ed->b);
        if (ed->a < ed->b && ed->b < t->n && ed->pa < sn_topo_degree(t, ed->a) &&
            ed->pb < sn_topo_degree(t, ed->b))
            EXPECT(sn_topo_port(t, ed->a, ed->pa)->edge == e &&
                       sn_topo_port(t, ed->a, ed->pa)->peer == ed->b &&
                       sn_topo_port(t, ed->b, ed->pb)->edge == e,
                   "%s: edge %u ports do not match\n", s, e);
        else
            EXPECT(0, "%s: edge %u ports out of range\n", s, e);
    }
    /* Ranks. */
    uint32_t np = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (sn_topo_is_proc(t, u)) {
            EXPECT(sn_topo_rank(t, u) == (int32_t) np && sn_topo_proc(t, np) == u,
                   "%s: rank of %u\n", s, u);
            np++;
        } else {
            EXPECT(sn_topo_rank(t, u) == -1, "%s: router %u has rank %d\n", s, u,
                   sn_topo_rank(t, u));
        }
    }
    EXPECT(np == t->nproc, "%s: %u processors, nproc %u\n", s, np, t->nproc);
    free(dist);
}

#endif
