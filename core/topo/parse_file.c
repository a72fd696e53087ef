/* `file:PATH` topologies (core/topo): edge lists read from disk or from contents supplied with the
 * spec (the nodes get them from the coordinator), checked line by line, and sn_topo_from_edges,
 * which builds any graph from its edges. Part of the spec parser (parse.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stepnet/fileio.h"
#include "core/topo/parse_internal.h"
#include "core/topo/topo_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

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

/* The file's size refused before it is read: past SN_TOPO_MAX_FILE, or past the memory limit
 * (max_bytes, 0: none), since the whole text is held while it is parsed. */
static int file_size_check(const char *path, uint64_t size, uint64_t max_bytes, sn_err_t *err)
{
    char a[32], b[32];
    if (size > SN_TOPO_MAX_FILE)
        return sn_err_set(err, SN_ERANGE, "'%s' is %s; a file: graph is at most %s", path,
                          sn_fmt_bytes(size, a, sizeof a),
                          sn_fmt_bytes(SN_TOPO_MAX_FILE, b, sizeof b));
    if (max_bytes != 0 && size > max_bytes)
        return sn_err_set_param(
            err, SN_ERANGE, SN_PARAM_MEMORY,
            "'%s' is %s, and a file: graph is read whole; the memory limit is %s", path,
            sn_fmt_bytes(size, a, sizeof a), sn_fmt_bytes(max_bytes, b, sizeof b));
    return 0;
}

/* Reads a whole file into a NUL-terminated buffer: a regular file only (a spec's file is read
 * twice, to count and to build, and a FIFO would wait in open), its size checked (stat) before
 * anything is read and its buffer allocated once. */
static int slurp(const char *path, const char *factor, uint64_t max_bytes, char **text, size_t *len,
                 sn_err_t *err)
{
    const char *why;
    FILE *f = sn_fopen_regular(path, &why);
    if (f == NULL)
        return sn_err_set(err, SN_EIO, "cannot read '%s' (from '%s'): %s", path, factor, why);
    struct stat st;
    int rc = 0;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((rc = file_size_check(path, (uint64_t) st.st_size, max_bytes, err)) < 0)
            goto done;
        cap = (size_t) st.st_size + 2; /* one more byte shows a file that grew meanwhile */
        buf = sn_xmalloc(cap);
    }
    for (;;) {
        if (n + 1 >= cap)
            sn_grow((void **) &buf, &cap, n + 65536 + 1, 1);
        size_t want = cap - 1 - n, got = fread(buf + n, 1, want, f);
        n += got;
        if ((rc = file_size_check(path, n, max_bytes, err)) < 0)
            break;
        if (got < want) {
            if (ferror(f))
                rc = sn_err_set(err, SN_EIO,
                                "cannot read '%s' (from '%s'): %s; expected a file of 'U V' edge "
                                "lines",
                                path, factor, strerror(errno));
            break;
        }
    }
done:
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

static int parse_text(const char *path, const char *text, size_t len, uint64_t max_bytes,
                      sn_topo_t **out, sn_err_t *err);

int sn__topo_parse_file(const sn__topo_source_t *src, const char *path, const char *factor,
                        sn_topo_t **out, sn_err_t *err)
{
    if (src->files != NULL) {
        for (size_t i = 0; i < src->nfiles; i++)
            if (strcmp(src->files[i].path, path) == 0)
                return parse_text(path, src->files[i].text, src->files[i].len, src->max_bytes, out,
                                  err);
        return sn_err_set(err, SN_EIO, "no contents were supplied for '%s'", factor);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = slurp(path, factor, src->max_bytes, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = parse_text(path, text, len, src->max_bytes, out, err);
    free(text);
    return rc;
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
static int parse_text(const char *path, const char *text, size_t len, uint64_t max_bytes,
                      sn_topo_t **out, sn_err_t *err)
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
    /* the text and the edge lists are held while the topology is built from them */
    uint64_t need = (uint64_t) len + (uint64_t) (g.ecap + g.ecap2 + g.rcap) * sizeof(uint32_t) +
                    sn_topo_mem_estimate((uint64_t) g.maxid + 1, 2 * (uint64_t) g.ne);
    if (max_bytes != 0 && need > max_bytes) {
        char a[32], b[32];
        free(isr);
        rc = sn_err_set_param(err, SN_ERANGE, SN_PARAM_MEMORY,
                              "%s: %zu bytes of text and %zu edges need about %s to parse and "
                              "build; the memory limit is %s",
                              path, len, g.ne, sn_fmt_bytes(need, a, sizeof a),
                              sn_fmt_bytes(max_bytes, b, sizeof b));
        goto done;
    }
    char name[1100];
    snprintf(name, sizeof name, "file:%s", path);
    rc = sn_topo_from_edges(name, g.maxid + 1, (uint32_t) g.ne, g.eu, g.ev, isr, out, err);
    free(isr);
    if (rc == 0)
        (*out)->source_bytes = len;
done:
    free(g.eu);
    free(g.ev);
    free(g.routers);
    return rc;
}

/* ---- the canonical text -----------------------------------------------------------------------
 */

const sn_topo_t *sn_topo_file_factor(const sn_topo_t *t)
{
    if (t->kind == SN_TOPO_FILE)
        return t;
    for (uint32_t i = 0; i < t->nfactors; i++)
        if (t->factors[i]->kind == SN_TOPO_FILE)
            return t->factors[i];
    return NULL;
}

static uint64_t decimal_digits(uint64_t v)
{
    uint64_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

uint64_t sn_topo_file_text_max(const sn_topo_t *f)
{
    uint64_t id = decimal_digits(f->n ? f->n - 1 : 0), routers = f->n - f->nproc;
    return (uint64_t) f->nedges * (2 * id + 2) + routers * (sizeof "router " + id);
}

int sn_topo_file_text_check(const sn_topo_t *f, size_t len, sn_err_t *err)
{
    uint64_t max = sn_topo_file_text_max(f);
    if (len <= max)
        return 0;
    return sn_err_set(err, SN_EINVAL,
                      "%zu bytes of text for %s, whose edge list takes at most %llu (an "
                      "assignment carries the edge list, not the file)",
                      len, f->spec, (unsigned long long) max);
}

/* The edges in an order in which every node meets its edges in the order of its ports (Kahn's
 * algorithm: an edge follows the edges of the ports just below its own at both ends), so that
 * the parser, which numbers ports in file order, rebuilds the same ports. */
static uint32_t *edges_in_port_order(const sn_topo_t *f)
{
    uint32_t ne = f->nedges, *order = sn_xmalloc(((size_t) ne + 1) * sizeof *order);
    uint8_t *waiting = sn_xmalloc((size_t) ne + 1);
    size_t head = 0, tail = 0;
    for (uint32_t e = 0; e < ne; e++) {
        waiting[e] = (uint8_t) ((f->edges[e].pa > 0) + (f->edges[e].pb > 0));
        if (waiting[e] == 0)
            order[tail++] = e;
    }
    while (head < tail) {
        const sn_edge_t *d = &f->edges[order[head++]];
        uint32_t ends[2] = {d->a, d->b}, ports[2] = {d->pa, d->pb};
        for (int k = 0; k < 2; k++) {
            if (ports[k] + 1 >= sn_topo_degree(f, ends[k]))
                continue;
            uint32_t next = sn_topo_port(f, ends[k], ports[k] + 1)->edge;
            if (--waiting[next] == 0)
                order[tail++] = next;
        }
    }
    free(waiting);
    return order;
}

void sn_topo_file_text(const sn_topo_t *f, char **out, size_t *len)
{
    size_t cap = (size_t) sn_topo_file_text_max(f) + 1, n = 0;
    char *text = sn_xmalloc(cap);
    uint32_t *order = edges_in_port_order(f);
    for (uint32_t i = 0; i < f->nedges; i++) {
        const sn_edge_t *d = &f->edges[order[i]];
        n += (size_t) snprintf(text + n, cap - n, "%u %u\n", d->a, d->b);
    }
    for (uint32_t u = 0; u < f->n; u++)
        if (!sn_topo_is_proc(f, u))
            n += (size_t) snprintf(text + n, cap - n, "router %u\n", u);
    free(order);
    text[n] = '\0';
    *out = text;
    *len = n;
}
