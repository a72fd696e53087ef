/* `file:PATH` topologies (core/topo): edge lists read from disk or from contents supplied with the
 * spec (the nodes get them from the coordinator), checked line by line, and sn_topo_from_edges,
 * which builds any graph from its edges. Part of the spec parser (parse.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"
#include "topo_internal.h"

#define MAX_FILE_LINE 4096

/* ---- file: edge lists ----------------------------------------------------------------------- */

/* The checks of sn_topo_from_edges before anything of size n is built: sizes, a node on no edge,
 * edges outside 0..n-1 and self loops; the degree of every node in *deg_out (free it). */
static int edges_check(const char *name, uint32_t n, uint32_t ne, const uint32_t *eu,
                       const uint32_t *ev, uint32_t **deg_out, sn_err_t *err)
{
    if (n < 2)
        return sn_err_set(err, SN_ESPEC, "%s: a graph needs at least 2 nodes", name);
    if (n > SN_TOPO_MAX_NODES)
        return sn__topo_too_big(name, n, err);
    if ((uint64_t) ne * 2 > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "%s: %u edges; at most %u are supported", name, ne,
                          SN_TOPO_MAX_PORTS / 2);
    if ((uint64_t) n > 2 * (uint64_t) ne) {
        /* some node is on no edge: found among the first 2 ne + 1 ids, before anything of size
         * n is built (a one-line file naming node 30000000 must not cost n of anything) */
        uint32_t m = 2 * ne + 1, u = 0;
        uint8_t *on = sn_xcalloc(m, 1);
        for (uint32_t i = 0; i < ne; i++) {
            if (eu[i] < m)
                on[eu[i]] = 1;
            if (ev[i] < m)
                on[ev[i]] = 1;
        }
        while (on[u])
            u++;
        free(on);
        return sn_err_set(err, SN_ESPEC,
                          "%s: the graph is not connected (node %u cannot be reached from node 0; "
                          "it appears in no edge)",
                          name, u);
    }
    uint32_t *deg = sn_xcalloc(n, sizeof *deg);
    for (uint32_t i = 0; i < ne; i++) {
        if (eu[i] >= n || ev[i] >= n) {
            free(deg);
            return sn_err_set(err, SN_ESPEC, "%s: edge %u-%u names a node outside 0..%u", name,
                              eu[i], ev[i], n - 1);
        }
        if (eu[i] == ev[i]) {
            free(deg);
            return sn_err_set(err, SN_ESPEC, "%s: edge %u-%u is a self loop", name, eu[i], ev[i]);
        }
        deg[eu[i]]++;
        deg[ev[i]]++;
    }
    *deg_out = deg;
    return 0;
}

/* The ports of t (allocated for the edges, degrees deg) from the edge list. */
static void edges_ports(sn_topo_t *t, uint32_t ne, const uint32_t *eu, const uint32_t *ev,
                        uint32_t *deg)
{
    uint32_t n = t->n;
    uint32_t off = 0;
    for (uint32_t u = 0; u < n; u++) {
        t->port_off[u] = off;
        off += deg[u];
    }
    t->port_off[n] = off;
    /* Ports in file order, except that parallel edges are grouped behind the first edge to the
     * same neighbour (ports to one peer must be contiguous): each node lists its edges in file
     * order, then a stable pass groups them by the first appearance of the peer. */
    uint32_t *elist = sn_xmalloc((2 * (size_t) ne + 1) * sizeof *elist); /* edge ids per node */
    uint32_t *fill = sn_xcalloc((size_t) n + 1, sizeof *fill);
    for (uint32_t i = 0; i < ne; i++) {
        elist[t->port_off[eu[i]] + fill[eu[i]]++] = i;
        elist[t->port_off[ev[i]] + fill[ev[i]]++] = i;
    }
    uint32_t *port_a = sn_xmalloc(((size_t) ne + 1) * sizeof *port_a);
    uint32_t *port_b = sn_xmalloc(((size_t) ne + 1) * sizeof *port_b);
    uint32_t *grouped = sn_xmalloc(((size_t) fill[0] + 1) * sizeof *grouped);
    size_t gcap = fill[0] + 1;
    uint8_t *taken = NULL;
    size_t tcap = 0;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t d = deg[u], *mine = &elist[t->port_off[u]], k = 0;
        sn_grow((void **) &grouped, &gcap, d + 1, sizeof *grouped);
        sn_grow((void **) &taken, &tcap, d + 1, 1);
        memset(taken, 0, d);
        for (uint32_t i = 0; i < d; i++) {
            if (taken[i])
                continue;
            uint32_t peer = eu[mine[i]] == u ? ev[mine[i]] : eu[mine[i]];
            for (uint32_t j = i; j < d; j++) {
                uint32_t pj = eu[mine[j]] == u ? ev[mine[j]] : eu[mine[j]];
                if (!taken[j] && pj == peer) {
                    taken[j] = 1;
                    grouped[k++] = mine[j];
                }
            }
        }
        for (uint32_t q = 0; q < d; q++) {
            uint32_t e = grouped[q];
            if (eu[e] == u) /* no self loops: u is exactly one end of e */
                port_a[e] = q;
            else
                port_b[e] = q;
        }
    }
    for (uint32_t i = 0; i < ne; i++) {
        t->ports[t->port_off[eu[i]] + port_a[i]] = (sn_port_t){ev[i], 0, port_b[i]};
        t->ports[t->port_off[ev[i]] + port_b[i]] = (sn_port_t){eu[i], 0, port_a[i]};
    }
    free(elist);
    free(fill);
    free(port_a);
    free(port_b);
    free(grouped);
    free(taken);
    free(deg);
}

/* 0 when every node of t is reached from node 0, SN_ESPEC naming the first that is not. */
static int edges_connected(const sn_topo_t *t, const char *name, sn_err_t *err)
{
    uint32_t n = t->n;
    uint32_t *dist = sn_xmalloc((size_t) n * sizeof *dist);
    sn_topo_bfs(t, 0, dist);
    for (uint32_t u = 0; u < n; u++) {
        if (dist[u] == UINT32_MAX) {
            free(dist);
            return sn_err_set(err, SN_ESPEC,
                              "%s: the graph is not connected (node %u cannot be reached from node "
                              "0%s)",
                              name, u, sn_topo_degree(t, u) == 0 ? "; it appears in no edge" : "");
        }
    }
    free(dist);
    return 0;
}

int sn_topo_from_edges(const char *name, uint32_t n, uint32_t ne, const uint32_t *eu,
                       const uint32_t *ev, const uint8_t *router, sn_topo_t **out, sn_err_t *err)
{
    *out = NULL;
    uint32_t *deg = NULL;
    int rc;
    if ((rc = edges_check(name, n, ne, eu, ev, &deg, err)) < 0)
        return rc;
    sn_topo_t *t = sn__topo_alloc(SN_TOPO_FILE, n, 2 * (uint64_t) ne);
    sn__topo_set_spec(t, name);
    edges_ports(t, ne, eu, ev, deg);
    if (router) {
        t->is_router = sn_xmalloc(n);
        memcpy(t->is_router, router, n);
        sn__topo_ranks(t);
        if (t->nproc == 0) {
            rc = sn_err_set(err, SN_ESPEC,
                            "%s: every node is a router; at least one processor is "
                            "needed",
                            name);
            goto fail;
        }
    }
    if ((rc = sn__topo_link(t, err)) < 0)
        goto fail;
    if ((rc = edges_connected(t, name, err)) < 0)
        goto fail;
    *out = t;
    return 0;
fail:
    sn_topo_free(t);
    return rc;
}

/* Reads a whole file (at most SN_TOPO_MAX_FILE bytes) into a NUL-terminated buffer. */
static int slurp(const char *path, const char *factor, char **text, size_t *len, sn_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return sn_err_set(err, SN_EIO, "cannot read '%s' (from '%s'): %s", path, factor,
                          strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        sn_grow((void **) &buf, &cap, n + 65536 + 1, 1);
        size_t got = fread(buf + n, 1, 65536, f);
        n += got;
        if (n > SN_TOPO_MAX_FILE) {
            rc = sn_err_set(err, SN_ERANGE, "'%s' is larger than %u bytes", path, SN_TOPO_MAX_FILE);
            break;
        }
        if (got < 65536) {
            if (ferror(f))
                rc = sn_err_set(err, SN_EIO,
                                "cannot read '%s' (from '%s'): %s; expected a file of 'U V' edge "
                                "lines",
                                path, factor, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int parse_text(const char *path, const char *text, size_t len, sn_topo_t **out,
                      sn_err_t *err);

int sn__topo_parse_file(const sn__topo_source_t *src, const char *path, const char *factor,
                        sn_topo_t **out, sn_err_t *err)
{
    if (src->files != NULL) {
        for (size_t i = 0; i < src->nfiles; i++)
            if (strcmp(src->files[i].path, path) == 0)
                return parse_text(path, src->files[i].text, src->files[i].len, out, err);
        return sn_err_set(err, SN_EIO, "no contents were supplied for '%s'", factor);
    }
    char *text;
    size_t len;
    int rc = slurp(path, factor, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = parse_text(path, text, len, out, err);
    free(text);
    return rc;
}

int sn_topo_read_files(const char *spec, sn_topo_file_t **files, size_t *nfiles, sn_err_t *err)
{
    *files = NULL;
    *nfiles = 0;
    size_t cap = 0;
    char *copy = sn_xstrdup(spec), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, "*", &save); tok; tok = strtok_r(NULL, "*", &save)) {
        if (strncmp(tok, "file:", 5) != 0)
            continue;
        sn_grow((void **) files, &cap, *nfiles + 1, sizeof **files);
        sn_topo_file_t *f = &(*files)[*nfiles];
        if ((rc = slurp(tok + 5, tok, &f->text, &f->len, err)) < 0)
            break;
        f->path = sn_xstrdup(tok + 5);
        (*nfiles)++;
    }
    free(copy);
    if (rc < 0) {
        sn_topo_files_free(*files, *nfiles);
        *files = NULL;
        *nfiles = 0;
    }
    return rc;
}

void sn_topo_files_free(sn_topo_file_t *files, size_t nfiles)
{
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].path);
        free(files[i].text);
    }
    free(files);
}

/* The edges and router lines of a graph file as they are read. */
typedef struct {
    uint32_t *eu, *ev, *routers;
    size_t ecap, ecap2, rcap, ne, nr;
    uint32_t maxid;
} file_graph_t;

/* One line of a graph file (line: its text, NUL-terminated, changed in place): an edge 'U V', a
 * 'router N' line, a comment or nothing. */
static int file_line(file_graph_t *g, const char *path, unsigned lineno, char *line, sn_err_t *err)
{
    int rc;
    const uint32_t idmax = SN_TOPO_MAX_NODES - 1;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char shown[MAX_FILE_LINE + 2]; /* the line as written, for error messages */
    size_t sl = strlen(line);
    while (sl > 0 && (line[sl - 1] == '\r' || line[sl - 1] == ' ' || line[sl - 1] == '\t'))
        sl--;
    memcpy(shown, line, sl);
    shown[sl] = '\0';
    char *save = NULL;
    char *a = strtok_r(line, " \t\r\n", &save);
    if (a == NULL)
        return 0;
    char *b = strtok_r(NULL, " \t\r\n", &save);
    char *extra = b ? strtok_r(NULL, " \t\r\n", &save) : NULL;
    if (b == NULL || extra != NULL) {
        return sn_err_set(err, SN_ESPEC, "%s:%u: expected 'U V' (an edge) or 'router N', got '%s'",
                          path, lineno, shown + strspn(shown, " \t"));
    }
    uint64_t x, y;
    if (strcmp(a, "router") == 0) {
        if ((rc = sn__topo_parse_num(b, strlen(b), 0, idmax, "router id", path, &x, err)) < 0)
            return rc;
        sn_grow((void **) &g->routers, &g->rcap, g->nr + 1, sizeof *g->routers);
        g->routers[g->nr++] = (uint32_t) x;
        return 0;
    }
    if ((rc = sn__topo_parse_num(a, strlen(a), 0, idmax, "node id", path, &x, err)) < 0 ||
        (rc = sn__topo_parse_num(b, strlen(b), 0, idmax, "node id", path, &y, err)) < 0) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        sn_err_set(err, rc, "%s:%u: %s", path, lineno, m);
        return rc;
    }
    if (g->ne * 2 >= SN_TOPO_MAX_PORTS) {
        return sn_err_set(err, SN_ERANGE, "%s: more than %u edges", path, SN_TOPO_MAX_PORTS / 2);
    }
    sn_grow((void **) &g->eu, &g->ecap, g->ne + 1, sizeof *g->eu);
    sn_grow((void **) &g->ev, &g->ecap2, g->ne + 1, sizeof *g->ev);
    g->eu[g->ne] = (uint32_t) x;
    g->ev[g->ne] = (uint32_t) y;
    g->ne++;
    if (x > g->maxid)
        g->maxid = (uint32_t) x;
    if (y > g->maxid)
        g->maxid = (uint32_t) y;
    return 0;
}

/* Parses the text of an edge-list file: 'U V' edges, 'router N' lines, '#' comments. */
static int parse_text(const char *path, const char *text, size_t len, sn_topo_t **out,
                      sn_err_t *err)
{
    file_graph_t g = {0};
    int rc = 0;
    char line[MAX_FILE_LINE + 2];
    unsigned lineno = 0;
    size_t pos = 0;
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) /* a text file has none; bytes after one would be silently lost */
        return sn_err_set(err, SN_ESPEC, "%s: a NUL byte at offset %zu; a graph file is text", path,
                          (size_t) (nul - text));
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t l = nl ? (size_t) (nl - (text + pos)) : len - pos;
        lineno++;
        if (l > MAX_FILE_LINE) {
            rc = sn_err_set(err, SN_ESPEC, "%s:%u: line longer than %d characters", path, lineno,
                            MAX_FILE_LINE);
            goto done;
        }
        memcpy(line, text + pos, l);
        line[l] = '\0';
        pos += l + 1;
        if ((rc = file_line(&g, path, lineno, line, err)) < 0)
            goto done;
    }
    if (g.ne == 0) {
        rc = sn_err_set(err, SN_ESPEC, "%s: no edges (expected one 'U V' edge per line)", path);
        goto done;
    }
    uint8_t *isr = NULL;
    if (g.nr) {
        isr = sn_xcalloc((size_t) g.maxid + 1, 1);
        for (size_t i = 0; i < g.nr; i++) {
            if (g.routers[i] > g.maxid) {
                free(isr);
                rc = sn_err_set(err, SN_ESPEC, "%s: 'router %u' names a node that has no edge",
                                path, g.routers[i]);
                goto done;
            }
            isr[g.routers[i]] = 1;
        }
    }
    char name[1100];
    snprintf(name, sizeof name, "file:%s", path);
    rc = sn_topo_from_edges(name, g.maxid + 1, (uint32_t) g.ne, g.eu, g.ev, isr, out, err);
    free(isr);
done:
    free(g.eu);
    free(g.ev);
    free(g.routers);
    return rc;
}
