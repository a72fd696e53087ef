/* Topology objects (core/topo): allocation, edge derivation from the port tables, freeing, and the
 * names, labels and group operations that the list of kinds (kinds.def) assigns to each kind. The
 * family generators live in families.c, the parser in parse.c, distances and properties in
 * props.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topo/topo_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

/* ---- the list of kinds ------------------------------------------------------------------------
 * The columns of kinds.def that this file reads: the name, how a label is written and which group
 * the node ids are elements of (kinds.def says what each value means). */

typedef enum {
    LABEL_ID,
    LABEL_ONE_BASED,
    LABEL_BITS,
    LABEL_BITS_AND_LEVEL,
    LABEL_PERMUTATION,
    LABEL_LEVEL_INDEX,
    LABEL_TUPLE,
} label_t;

typedef enum {
    GROUP_NONE,
    GROUP_CYCLIC,
    GROUP_XOR,
    GROUP_CUBE_CYCLES,
    GROUP_SYMMETRIC,
    GROUP_PRODUCT,
} group_t;

typedef struct {
    const char *name;
    label_t label;
    group_t group;
} kind_row_t;

static const kind_row_t kinds[] = {
#define SN_TOPO_KIND(id, name_, form, parse, group_, label_)                                       \
    [SN_TOPO_##id] = {.name = name_, .label = LABEL_##label_, .group = GROUP_##group_},
#include "core/topo/kinds.def"
};

/* The row of kind, or NULL for a value outside the list. */
static const kind_row_t *kind_row(sn_topo_kind_t kind)
{
    return (unsigned) kind < sizeof kinds / sizeof kinds[0] ? &kinds[kind] : NULL;
}

static label_t label_of(const sn_topo_t *t)
{
    const kind_row_t *k = kind_row(t->kind);
    return k ? k->label : LABEL_ID;
}

static group_t group_of(const sn_topo_t *t)
{
    const kind_row_t *k = kind_row(t->kind);
    return k ? k->group : GROUP_NONE;
}

uint64_t sn__upow(uint64_t k, uint32_t e)
{
    uint64_t r = 1;
    while (e--) {
        if (k != 0 && r > UINT64_MAX / k)
            return UINT64_MAX;
        r *= k;
    }
    return r;
}

sn_topo_t *sn__topo_alloc(sn_topo_kind_t kind, uint32_t n, uint64_t nports)
{
    sn_topo_t *t = sn_xcalloc(1, sizeof *t);
    t->kind = kind;
    t->n = n;
    t->nproc = n;
    t->spec =
        sn_xstrdup(sn_topo_kind_name(kind)); /* the parser replaces it with the canonical spec */
    t->port_off = sn_xcalloc((size_t) n + 1, sizeof *t->port_off);
    t->ports = sn_xcalloc(nports ? nports : 1, sizeof *t->ports);
    return t;
}

int sn__topo_link(sn_topo_t *t, sn_err_t *err)
{
    uint64_t nports = t->port_off[t->n];
    t->edges = sn_xmalloc((nports / 2 + 1) * sizeof *t->edges);
    uint32_t ne = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        for (uint32_t i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
            sn_port_t *p = &t->ports[i];
            uint32_t pu = i - t->port_off[u];
            if (p->peer >= t->n || p->peer == u)
                return sn_err_set(err, SN_ESPEC, "%s: node %u port %u leads to %s", t->spec, u, pu,
                                  p->peer == u ? "itself (self loops are not allowed)" : "no node");
            uint32_t pdeg = sn_topo_degree(t, p->peer);
            if (p->rport >= pdeg)
                return sn_err_set(err, SN_ESPEC, "%s: node %u port %u: reverse port %u missing",
                                  t->spec, u, pu, p->rport);
            sn_port_t *q = &t->ports[t->port_off[p->peer] + p->rport];
            if (q->peer != u || q->rport != pu)
                return sn_err_set(err, SN_ESPEC, "%s: ports of %u and %u do not pair up", t->spec,
                                  u, p->peer);
            if (u < p->peer) {
                t->edges[ne] = (sn_edge_t){u, p->peer, pu, p->rport};
                p->edge = ne;
                q->edge = ne;
                ne++;
            }
        }
    }
    t->nedges = ne;
    return 0;
}

void sn__topo_ranks(sn_topo_t *t)
{
    if (t->is_router == NULL)
        return;
    t->node_rank = sn_xmalloc((size_t) t->n * sizeof *t->node_rank);
    uint32_t np = 0;
    for (uint32_t u = 0; u < t->n; u++)
        np += !t->is_router[u];
    t->proc_node = sn_xmalloc((size_t) (np ? np : 1) * sizeof *t->proc_node);
    np = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (t->is_router[u]) {
            t->node_rank[u] = -1;
        } else {
            t->node_rank[u] = (int32_t) np;
            t->proc_node[np++] = u;
        }
    }
    t->nproc = np;
}

void sn_topo_free(sn_topo_t *t)
{
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->nfactors; i++)
        sn_topo_free(t->factors[i]);
    free(t->factors);
    free(t->stride);
    free(t->port_factor);
    free(t->spec);
    free(t->port_off);
    free(t->ports);
    free(t->edges);
    free(t->is_router);
    free(t->proc_node);
    free(t->node_rank);
    free(t->jumps);
    free(t->caps);
    free(t);
}

void sn_topo_ports_to(const sn_topo_t *t, uint32_t u, uint32_t peer, uint32_t *first,
                      uint32_t *count)
{
    uint32_t deg = sn_topo_degree(t, u);
    const sn_port_t *p = &t->ports[t->port_off[u]];
    for (uint32_t i = 0; i < deg; i++) {
        if (p[i].peer == peer) {
            uint32_t j = i;
            while (j < deg && p[j].peer == peer)
                j++;
            *first = i;
            *count = j - i;
            return;
        }
    }
    *first = 0;
    *count = 0;
}

const char *sn_topo_kind_name(sn_topo_kind_t kind)
{
    const kind_row_t *k = kind_row(kind);
    return k ? k->name : "unknown";
}

/* ---- permutations (star graphs) -------------------------------------------------------------- */

uint32_t sn__perm_rank(const uint8_t *perm, uint32_t n)
{
    uint32_t rank = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t smaller = 0;
        for (uint32_t j = i + 1; j < n; j++)
            smaller += perm[j] < perm[i];
        rank = rank * (n - i) + smaller;
    }
    return rank;
}

void sn__perm_unrank(uint32_t rank, uint32_t n, uint8_t *perm)
{
    uint32_t digits[16];
    for (uint32_t i = n; i-- > 0;) {
        uint32_t base = n - i;
        digits[i] = rank % base;
        rank /= base;
    }
    uint8_t avail[16];
    for (uint32_t i = 0; i < n; i++)
        avail[i] = (uint8_t) i;
    uint32_t navail = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = digits[i];
        perm[i] = avail[d];
        memmove(&avail[d], &avail[d + 1], navail - d - 1);
        navail--;
    }
}

/* ---- fat-tree addressing ------------------------------------------------------------------- */

uint32_t sn__fattree_node(const sn_topo_t *t, uint32_t level, uint32_t index)
{
    uint32_t k = t->a, h = t->b, base = 0;
    for (uint32_t l = 0; l < level; l++)
        base += (uint32_t) sn__upow(k, h - l);
    return base + index;
}

void sn__fattree_pos(const sn_topo_t *t, uint32_t node, uint32_t *level, uint32_t *index)
{
    uint32_t k = t->a, h = t->b;
    for (uint32_t l = 0; l <= h; l++) {
        uint32_t cnt = (uint32_t) sn__upow(k, h - l);
        if (node < cnt) {
            *level = l;
            *index = node;
            return;
        }
        node -= cnt;
    }
    *level = h;
    *index = 0;
}

void sn_topo_fattree_pos(const sn_topo_t *t, uint32_t u, uint32_t *level, uint32_t *index)
{
    if (t->kind != SN_TOPO_FATTREE) {
        *level = *index = 0;
        return;
    }
    sn__fattree_pos(t, u, level, index);
}

/* ---- labels ---------------------------------------------------------------------------------- */

static size_t put_bin(char *buf, size_t cap, uint32_t x, uint32_t bits)
{
    size_t i = 0;
    for (uint32_t b = bits; b-- > 0 && i + 1 < cap;)
        buf[i++] = (char) ('0' + ((x >> b) & 1));
    buf[i < cap ? i : cap - 1] = '\0';
    return i;
}

char *sn_topo_label(const sn_topo_t *t, uint32_t u, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    switch (label_of(t)) {
    case LABEL_ONE_BASED:
        snprintf(buf, cap, "%u", u + 1);
        break;
    case LABEL_BITS:
        put_bin(buf, cap, u, t->a);
        break;
    case LABEL_BITS_AND_LEVEL: {
        size_t i = 0;
        if (cap > 1)
            buf[i++] = '(';
        i += put_bin(buf + i, cap - i, u / t->a, t->a);
        snprintf(buf + i, cap - i, ",%u)", u % t->a);
        break;
    }
    case LABEL_PERMUTATION: {
        uint8_t perm[16];
        sn__perm_unrank(u, t->a, perm);
        size_t i = 0;
        for (uint32_t j = 0; j < t->a && i + 1 < cap; j++)
            buf[i++] = "123456789a"[perm[j]];
        buf[i] = '\0';
        break;
    }
    case LABEL_LEVEL_INDEX: {
        uint32_t level, index;
        sn__fattree_pos(t, u, &level, &index);
        if (level == 0)
            snprintf(buf, cap, "%u", index);
        else
            snprintf(buf, cap, "r%u.%u", level, index);
        break;
    }
    case LABEL_TUPLE: {
        size_t i = 0;
        if (i + 1 < cap)
            buf[i++] = '(';
        for (uint32_t f = 0; f < t->nfactors && i + 1 < cap; f++) {
            if (f > 0)
                buf[i++] = ',';
            char sub[SN_TOPO_MAX_LABEL];
            sn_topo_label(t->factors[f], sn_topo_coord(t, u, f), sub, sizeof sub);
            size_t len = strlen(sub);
            if (len > cap - i - 1)
                len = cap - i - 1;
            memcpy(buf + i, sub, len);
            i += len;
        }
        if (i + 1 < cap)
            buf[i++] = ')';
        buf[i] = '\0';
        break;
    }
    default:
        snprintf(buf, cap, "%u", u);
        break;
    }
    return buf;
}

/* ---- group operations ------------------------------------------------------------------------ */

/* Rotation of a d-bit word left by a positions (bit i moves to bit (i + a) mod d). */
static uint32_t rotl_bits(uint32_t x, uint32_t a, uint32_t d)
{
    a %= d;
    if (a == 0)
        return x;
    uint32_t mask = (d >= 32) ? UINT32_MAX : ((1u << d) - 1);
    return ((x << a) | (x >> (d - a))) & mask;
}

uint32_t sn_topo_mul(const sn_topo_t *t, uint32_t a, uint32_t b)
{
    switch (group_of(t)) {
    case GROUP_CYCLIC:
        return (uint32_t) (((uint64_t) a + b) % t->a);
    case GROUP_XOR:
        return a ^ b;
    case GROUP_CUBE_CYCLES: {
        /* Z_2^d semidirect Z_d: (x,a)(y,b) = (x ^ rot_a(y), a + b). Node id = x * d + l. */
        uint32_t d = t->a;
        uint32_t xa = a / d, la = a % d, xb = b / d, lb = b % d;
        return (xa ^ rotl_bits(xb, la, d)) * d + (la + lb) % d;
    }
    case GROUP_SYMMETRIC: {
        /* Composition: (a*b)[i] = a[b[i]], so g * (1 i) swaps positions 1 and i of g. */
        uint8_t pa[16], pb[16], pc[16];
        sn__perm_unrank(a, t->a, pa);
        sn__perm_unrank(b, t->a, pb);
        for (uint32_t i = 0; i < t->a; i++)
            pc[i] = pa[pb[i]];
        return sn__perm_rank(pc, t->a);
    }
    case GROUP_PRODUCT: {
        if (!t->cayley)
            return UINT32_MAX;
        uint32_t r = 0;
        for (uint32_t f = 0; f < t->nfactors; f++)
            r += sn_topo_mul(t->factors[f], sn_topo_coord(t, a, f), sn_topo_coord(t, b, f)) *
                 t->stride[f];
        return r;
    }
    default:
        return UINT32_MAX;
    }
}

uint32_t sn_topo_inv(const sn_topo_t *t, uint32_t a)
{
    switch (group_of(t)) {
    case GROUP_CYCLIC:
        return a == 0 ? 0 : t->a - a;
    case GROUP_XOR:
        return a;
    case GROUP_CUBE_CYCLES: {
        /* (x,a)^-1 = (rot_{-a}(x), -a) */
        uint32_t d = t->a, x = a / d, l = a % d;
        return rotl_bits(x, (d - l) % d, d) * d + (d - l) % d;
    }
    case GROUP_SYMMETRIC: {
        uint8_t p[16], q[16];
        sn__perm_unrank(a, t->a, p);
        for (uint32_t i = 0; i < t->a; i++)
            q[p[i]] = (uint8_t) i;
        return sn__perm_rank(q, t->a);
    }
    case GROUP_PRODUCT: {
        if (!t->cayley)
            return UINT32_MAX;
        uint32_t r = 0;
        for (uint32_t f = 0; f < t->nfactors; f++)
            r += sn_topo_inv(t->factors[f], sn_topo_coord(t, a, f)) * t->stride[f];
        return r;
    }
    default:
        return UINT32_MAX;
    }
}

/* The memory budget's figure for a topology: port_off, ranks, router flags and labels per node;
 * the port, its factor and its half of an edge per directed link (rounded up). */
#define TOPO_PER_NODE 32u
#define TOPO_PER_PORT 24u

uint64_t sn_topo_mem_estimate(uint64_t nodes, uint64_t ports)
{
    if (nodes > (UINT64_MAX / 2) / TOPO_PER_NODE || ports > (UINT64_MAX / 2) / TOPO_PER_PORT)
        return UINT64_MAX;
    return nodes * TOPO_PER_NODE + ports * TOPO_PER_PORT;
}
