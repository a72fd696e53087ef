/* stepnet topology library: graph families, the spec parser, labels, stable port numbering,
 * group structure of the Cayley families, distances and the graph properties the papers use
 * (eccentricity, diameter, status, average status), and a proper edge colouring.
 *
 * Model (docs/model.md): an undirected connected multigraph. Nodes are processors (sources
 * and destinations of collectives) or routers (fat-tree switches: forward only). Each edge is two
 * directed links. Parallel edges are separate edges with separate ports.
 *
 * Node ids are 0 .. n-1. Every node u has ports 0 .. deg(u)-1; port p of u leads over edge
 * `edge` to node `peer`, arriving there on port `rport`. Port numbering is stable (a function of
 * the spec only) and family-specific:
 *   linear    : +1 then -1 (end nodes have one port)
 *   ring, ering, circulant : +j, -j for each jump j in order (coincident +j/-j merged)
 *   complete  : port p leads to u + p + 1 (mod N)
 *   hypercube : port i flips bit i;  foldedcube: bits 0..d-1, then port d = complement
 *   ccc       : (0,+1), (0,-1), (e_0,0);   butterfly: (0,+1), (0,-1), (e_0,+1), (e_{d-1},-1)
 *   star      : port i-2 is the transposition (1 i), i = 2..N
 *   fattree   : routers list their children's links first (child by child, c links each), then
 *               the links to their parent; leaves have their c_1 links to the parent
 *   product   : the ports of factor 0, then of factor 1, ... (each in its factor's numbering)
 *   file      : edges in file order
 * Ports to the same peer are always contiguous. For Cayley families node ids are group elements
 * with identity 0 and peer(g, p) = g * peer(0, p): port p is the generator peer(0, p). */
#ifndef STEPNET_TOPO_H
#define STEPNET_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/error.h"

/* Hard limits that keep every structure addressable with 32-bit ids and a run within memory. The
 * parser refuses larger specs with an error that names the size and the limit. */
#define SN_TOPO_MAX_NODES   (1u << 25)
#define SN_TOPO_MAX_PORTS   (1u << 28)
#define SN_TOPO_MAX_FACTORS 16
#define SN_TOPO_MAX_LABEL   128 /* enough for any label (products print nested tuples) */

/* The topology kinds, one per line of their list (core/topo/kinds.def), in its order: the families
 * a spec names, and products. */
typedef enum {
#define SN_TOPO_KIND(id, name, form, parse, group, label) SN_TOPO_##id,
#include "core/topo/kinds.def"
} sn_topo_kind_t;

typedef struct sn_port_s {
    uint32_t peer;  /* node at the other end */
    uint32_t edge;  /* undirected edge id */
    uint32_t rport; /* the port number of this edge at `peer` */
} sn_port_t;

typedef struct sn_edge_s {
    uint32_t a, b;   /* endpoints, a < b (edges are created from the smaller id) */
    uint32_t pa, pb; /* the port number of the edge at a and at b */
} sn_edge_t;

typedef struct sn_topo_s sn_topo_t;

/* Read-only after construction; fields are public so that executors can walk them in hot loops. */
struct sn_topo_s {
    sn_topo_kind_t kind;
    char *spec;         /* canonical spec, e.g. "torus:4x4" or "ering:7:2*ring:5" */
    uint32_t n;         /* nodes (processors and routers) */
    uint32_t nproc;     /* processors */
    uint32_t nedges;    /* undirected edges, parallel edges counted: the TCP connections of a run */
    uint32_t *port_off; /* [n+1]: the ports of u are ports[port_off[u] .. port_off[u+1]-1] */
    sn_port_t *ports;   /* [port_off[n]] */
    sn_edge_t *edges;   /* [nedges] */
    uint8_t *is_router; /* [n], or NULL when every node is a processor */
    uint32_t *proc_node; /* [nproc] rank -> node id, or NULL when ranks are node ids */
    int32_t *node_rank;  /* [n] node id -> rank or -1 for routers, or NULL when identity */

    /* Family parameters (meaning depends on kind):
     * linear/ring/complete: a = N; ering: a = N, b = rho; circulant: a = N, jumps[];
     * hypercube/foldedcube/ccc/butterfly: a = d; star: a = N; fattree: a = k, b = h, caps[1..h]. */
    uint32_t a, b;
    uint32_t njumps;
    uint32_t *jumps;
    uint32_t *caps; /* fattree: caps[i] = links per level-i branch, i = 1..h (caps[0] unused) */

    /* Cartesian structure (mesh, torus, product; NULL/0 for the rest). Factors are flattened:
     * a product of products lists the innermost factors. Node id = sum coord_i * stride[i], the
     * first factor most significant (row-major). */
    uint32_t nfactors;
    sn_topo_t **factors;
    uint32_t *stride;
    uint8_t *port_factor; /* [port_off[n]]: the factor each port belongs to (NULL if no product) */

    int cayley;            /* 1 when node ids are group elements (see the header comment) */
    uint64_t source_bytes; /* file: graphs: the bytes of text parsed to build it (held while it
                              was parsed; the memory budget counts them); 0 otherwise */
    int vertex_transitive; /* 1 when every node looks the same (Cayley graphs) */
};

/* Parses `spec` (the families and their parameters: `stepnet --help`) and builds the topology.
 * Returns 0 and sets *out (free with sn_topo_free), or a negative code with `err` naming the bad
 * value and what is accepted: SN_ESPEC (syntax, unknown family, bad parameter), SN_ERANGE (too
 * large), SN_EIO (file: cannot be read). `file:PATH` reads the file; everything else is pure. */
int sn_topo_parse(const char *spec, sn_topo_t **out, sn_err_t *err);

/* The contents of a `file:` factor, supplied by the caller instead of read from disk (a node gets
 * the graph's edge list from the coordinator: sn_topo_file_text). */
typedef struct sn_topo_file_s {
    char *path; /* as written in the spec after "file:" */
    char *text; /* the file's bytes, len of them (no NUL needed after them) */
    size_t len;
} sn_topo_file_t;

#define SN_TOPO_MAX_FILE (64u << 20) /* bytes of one file: graph */

/* Like sn_topo_parse, but `file:PATH` factors take their contents from files[] (matched by path);
 * a path missing there is an error (SN_EIO). */
int sn_topo_parse_with(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                       sn_topo_t **out, sn_err_t *err);

/* The `file:` graph of t: t itself, or its factor that is one (a product has at most one of
 * them in `run`; the first otherwise); NULL when t has none. */
const sn_topo_t *sn_topo_file_factor(const sn_topo_t *t);

/* The canonical text of a `file:` graph f (kind SN_TOPO_FILE): one 'U V' line per edge and one
 * 'router N' line per router, nothing else, in an order that sn_topo_parse_with rebuilds into the
 * same ports and edges (each node's edges appear in the order of its ports). This is what a
 * coordinator sends its nodes instead of the file, whose comments and spacing they need not
 * hold. *out is NUL-terminated (free it), *len its length without the NUL. */
void sn_topo_file_text(const sn_topo_t *f, char **out, size_t *len);

/* The most bytes sn_topo_file_text can return for f, computed from its sizes only: every line at
 * its longest for f's node ids. */
uint64_t sn_topo_file_text_max(const sn_topo_t *f);

/* 0 when `len` bytes of text, received for the file: graph f (built from them), are no longer
 * than its canonical text can be (sn_topo_file_text_max); else SN_EINVAL naming both: a node
 * refuses an assignment that carries a file's comments or padding instead of the edge list. */
int sn_topo_file_text_check(const sn_topo_t *f, size_t len, sn_err_t *err);

/* Builds a topology from an explicit edge list (the `file:` family without the file): `nnodes`
 * nodes, `nedges` edges (u[i], v[i]), `router[i]` nonzero for routers (router may be NULL).
 * `name` becomes the spec. Checks: ids in range, no self loops, every node on an edge, connected,
 * at least one processor. */
int sn_topo_from_edges(const char *name, uint32_t nnodes, uint32_t nedges, const uint32_t *u,
                       const uint32_t *v, const uint8_t *router, sn_topo_t **out, sn_err_t *err);

void sn_topo_free(sn_topo_t *t);

/* ---- memory ----------------------------------------------------------------------------------
 * The memory budget (docs/limits.md): an upper estimate, in bytes, of what a topology of `nodes`
 * nodes and `ports` ports (directed links) occupies once built, with the per-node arrays the
 * properties and routing derive from it. Calibrated against measured peaks; never less than the
 * structures sn_topo_parse allocates. */
uint64_t sn_topo_mem_estimate(uint64_t nodes, uint64_t ports);

/* sn_topo_parse_with (files NULL: read `file:` factors from disk) under a memory limit: a spec
 * whose topology would take more than max_bytes by sn_topo_mem_estimate is refused with SN_ERANGE
 * (param SN_PARAM_MEMORY, the message giving the estimate and the limit) before it is built. A
 * `file:` graph read from disk is read whole: a file larger than max_bytes is refused from its
 * size (stat) before it is read, and its text and edges together with the topology they build
 * must fit max_bytes too. max_bytes 0: no limit. */
int sn_topo_parse_budget(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                         uint64_t max_bytes, sn_topo_t **out, sn_err_t *err);

/* The sizes of spec's topology without building it: *nodes (processors and routers) and *procs
 * (processors: k^h of a fat tree fattree:K:H, the nodes without a `router N` line of a file:
 * graph, all nodes otherwise), and, if canon is non-NULL, its canonical spec in *canon (the
 * caller frees it), as sn_topo_parse would set t->spec. A bad spec gives exactly the error
 * sn_topo_parse_with gives (no memory limit is applied). files as for sn_topo_parse_with. Cheap
 * for the families and products: arithmetic on the parameters only. A `file:` factor is read
 * (at most SN_TOPO_MAX_FILE bytes, as sn_topo_parse_with reads it) and parsed, then freed: its
 * counts come from its lines. Pure apart from reading file: factors from disk when files is
 * NULL. */
int sn_topo_parse_size(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                       uint64_t *nodes, uint64_t *procs, char **canon, sn_err_t *err);

/* Degree (number of ports) of node u. */
static inline uint32_t sn_topo_degree(const sn_topo_t *t, uint32_t u)
{
    return t->port_off[u + 1] - t->port_off[u];
}

/* Port p of node u. */
static inline const sn_port_t *sn_topo_port(const sn_topo_t *t, uint32_t u, uint32_t p)
{
    return &t->ports[t->port_off[u] + p];
}

static inline int sn_topo_is_proc(const sn_topo_t *t, uint32_t u)
{
    return t->is_router == NULL || !t->is_router[u];
}

/* Rank of processor u (-1 for routers) and node of rank r. */
static inline int32_t sn_topo_rank(const sn_topo_t *t, uint32_t u)
{
    return t->node_rank ? t->node_rank[u] : (int32_t) u;
}
static inline uint32_t sn_topo_proc(const sn_topo_t *t, uint32_t r)
{
    return t->proc_node ? t->proc_node[r] : r;
}

/* Directed link id of port p at u: 2*edge + (u is the edge's b end). Both ends agree on it. Edges
 * are created from their smaller endpoint (a < b), so u is the b end exactly when u > peer. */
static inline uint32_t sn_topo_link_id(const sn_topo_t *t, uint32_t u, uint32_t p)
{
    const sn_port_t *pp = sn_topo_port(t, u, p);
    return 2 * pp->edge + (u > pp->peer);
}

/* The range of ports of u that lead to `peer` (contiguous): *first and *count (0 if not adjacent).
 * O(deg(u)). */
void sn_topo_ports_to(const sn_topo_t *t, uint32_t u, uint32_t peer, uint32_t *first,
                      uint32_t *count);

/* Writes the label of node u into buf (at most cap bytes, NUL-terminated; SN_TOPO_MAX_LABEL is
 * always enough) and returns buf. Linear arrays and meshes print 1-based like the thesis, the other
 * families 0-based; hypercubes in binary; products as tuples; fat-tree routers as r<level>.<index>.
 */
char *sn_topo_label(const sn_topo_t *t, uint32_t u, char *buf, size_t cap);

/* Fat trees (t->kind == SN_TOPO_FATTREE, k = t->a, h = t->b): the level of node u (0 for the
 * k^h processors, h for the root router) and its index within that level (0 .. k^(h-level) - 1).
 * Node i of level l + 1 has the children k i .. k i + k - 1 of level l, so the subtree of node 0
 * of level l holds the level-m nodes with index < k^(l-m). u must be a node of t; for other kinds
 * both are set to 0. O(h); pure. */
void sn_topo_fattree_pos(const sn_topo_t *t, uint32_t u, uint32_t *level, uint32_t *index);

/* Human-readable family name ("torus", "product", ...). */
const char *sn_topo_kind_name(sn_topo_kind_t kind);

/* Product coordinates: coordinate i of node u, and the node with coordinate i replaced. For a
 * topology without factors these treat the whole graph as one factor (i must be 0). */
static inline uint32_t sn_topo_coord(const sn_topo_t *t, uint32_t u, uint32_t i)
{
    if (t->nfactors == 0)
        return u;
    return (u / t->stride[i]) % t->factors[i]->n;
}
static inline uint32_t sn_topo_with_coord(const sn_topo_t *t, uint32_t u, uint32_t i, uint32_t c)
{
    if (t->nfactors == 0)
        return c;
    return u - sn_topo_coord(t, u, i) * t->stride[i] + c * t->stride[i];
}

/* The product factor that port p of u belongs to (0 for non-products). */
static inline uint32_t sn_topo_port_factor(const sn_topo_t *t, uint32_t u, uint32_t p)
{
    return t->port_factor ? t->port_factor[t->port_off[u] + p] : 0;
}

/* Group structure of Cayley families (t->cayley): a * b, a^-1. Identity is node 0. Undefined for
 * non-Cayley topologies (returns UINT32_MAX). O(1), except star graphs O(N^2). */
uint32_t sn_topo_mul(const sn_topo_t *t, uint32_t a, uint32_t b);
uint32_t sn_topo_inv(const sn_topo_t *t, uint32_t a);

/* ---- distances and properties ---------------------------------------------------------------
 * "procs_only" restricts the far end of every distance to processors (what the collectives care
 * about on fat trees and `file:` graphs with routers); on router-free graphs it changes nothing. */

/* Breadth-first distances from src into dist[n] (caller-allocated). */
void sn_topo_bfs(const sn_topo_t *t, uint32_t src, uint32_t *dist);

/* The largest degree (ports) of a node of t: 0 for a graph without edges. */
uint32_t sn_topo_max_degree(const sn_topo_t *t);

/* Eccentricity of u: max distance from u. O(n + m). */
uint32_t sn_topo_ecc(const sn_topo_t *t, uint32_t u, int procs_only);

/* Diameter: max eccentricity over all nodes (procs_only: over processors, to processors). Uses the
 * structure where it can (vertex-transitive graphs, products, closed forms), else n BFS. */
uint32_t sn_topo_diameter(const sn_topo_t *t, int procs_only);

/* Status s(u) = sum of distances from u (eq. 4.2 of the thesis). */
uint64_t sn_topo_status(const sn_topo_t *t, uint32_t u, int procs_only);

/* Sum of dist(u, v) over all ordered pairs (u, v) (procs_only: of processors). The average status
 * AS(G) of eq. 4.3 is this divided by the node count. Structural where possible (Cayley: n*s(0);
 * products: sum_i (n/n_i)^2 * S_i, from Theorem 5.1), else n BFS. */
uint64_t sn_topo_total_distance(const sn_topo_t *t, int procs_only);

/* Distance degree sequence of u: counts[i] = number of nodes (processors if procs_only) at distance
 * i, i = 0 .. ecc. Returns ecc; writes at most cap entries. */
uint32_t sn_topo_dds(const sn_topo_t *t, uint32_t u, int procs_only, uint64_t *counts,
                     uint32_t cap);

/* A proper edge colouring: colour[e] for every edge such that edges sharing an endpoint (parallel
 * edges included) have distinct colours. Structural colourings where they are optimal or nearly
 * (hypercube: by dimension; even rings, linear arrays: 2; products: disjoint palettes per factor),
 * greedy otherwise. colour must hold nedges entries; returns the number of colours. */
uint32_t sn_topo_edge_colouring(const sn_topo_t *t, uint32_t *colour);

#endif
