/* Graph properties (core/topo): BFS distances, eccentricity, diameter, status and the total
 * distance behind the average status (thesis eqs. 4.2-4.3), distance degree sequences and a proper
 * edge colouring. Structure is used wherever it gives the exact value faster than n BFS: vertex
 * transitivity (every node has the same eccentricity and status), cartesian products (distances
 * add over dimensions, eqs. 2.2-2.3 and Theorem 5.1) and closed forms (linear arrays, fat trees).
 */
#include <stdlib.h>
#include <string.h>

#include "core/topo/topo_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

void sn_topo_bfs(const sn_topo_t *t, uint32_t src, uint32_t *dist)
{
    uint32_t *queue = sn_xmalloc((size_t) t->n * sizeof *queue);
    for (uint32_t i = 0; i < t->n; i++)
        dist[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
            uint32_t v = t->ports[i].peer;
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    free(queue);
}

/* One BFS: eccentricity and status of u (to processors if procs_only). */
static void bfs_stats(const sn_topo_t *t, uint32_t u, int procs_only, uint32_t *dist, uint32_t *ecc,
                      uint64_t *status)
{
    sn_topo_bfs(t, u, dist);
    uint32_t e = 0;
    uint64_t s = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        if (procs_only && !sn_topo_is_proc(t, v))
            continue;
        if (dist[v] > e)
            e = dist[v];
        s += dist[v];
    }
    *ecc = e;
    *status = s;
}

uint32_t sn_topo_ecc(const sn_topo_t *t, uint32_t u, int procs_only)
{
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist), e;
    uint64_t s;
    bfs_stats(t, u, procs_only, dist, &e, &s);
    free(dist);
    return e;
}

uint64_t sn_topo_status(const sn_topo_t *t, uint32_t u, int procs_only)
{
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist), e;
    uint64_t s;
    bfs_stats(t, u, procs_only, dist, &e, &s);
    free(dist);
    return s;
}

uint32_t sn_topo_diameter(const sn_topo_t *t, int procs_only)
{
    if (t->is_router == NULL)
        procs_only = 0; /* no routers: the same thing */
    if (!procs_only && t->vertex_transitive)
        return sn_topo_ecc(t, 0, 0);
    if (t->nfactors > 0) { /* products never hold routers */
        uint32_t d = 0;
        for (uint32_t i = 0; i < t->nfactors; i++)
            d += sn_topo_diameter(t->factors[i], 0);
        return d;
    }
    if (t->kind == SN_TOPO_LINEAR)
        return t->n - 1;
    if (t->kind == SN_TOPO_FATTREE)
        return 2 * t->b; /* leaf to leaf through the root, for all nodes and for processors */
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist), best = 0, e;
    uint64_t s;
    for (uint32_t u = 0; u < t->n; u++) {
        if (procs_only && !sn_topo_is_proc(t, u))
            continue;
        bfs_stats(t, u, procs_only, dist, &e, &s);
        if (e > best)
            best = e;
    }
    free(dist);
    return best;
}

uint64_t sn_topo_total_distance(const sn_topo_t *t, int procs_only)
{
    if (t->is_router == NULL)
        procs_only = 0;
    if (!procs_only && t->vertex_transitive)
        return (uint64_t) t->n * sn_topo_status(t, 0, 0);
    if (t->nfactors > 0) {
        /* dist adds over coordinates, so the sum over all pairs splits per factor: each pair of
         * factor-i coordinates recurs (n / n_i)^2 times (Theorem 5.1 summed over v). */
        uint64_t sum = 0;
        for (uint32_t i = 0; i < t->nfactors; i++) {
            uint64_t r = t->n / t->factors[i]->n;
            sum += r * r * sn_topo_total_distance(t->factors[i], 0);
        }
        return sum;
    }
    if (t->kind == SN_TOPO_LINEAR) {
        uint64_t n = t->n;
        return (n - 1) * n * (n + 1) / 3;
    }
    if (t->kind == SN_TOPO_FATTREE && procs_only) {
        /* From any leaf, k^l - k^(l-1) leaves are at distance 2l (l = 1..h). */
        uint64_t k = t->a, per = 0;
        for (uint32_t l = 1; l <= t->b; l++)
            per += 2ull * l * (sn__upow(k, l) - sn__upow(k, l - 1));
        return (uint64_t) t->nproc * per;
    }
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist), e;
    uint64_t s, sum = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        if (procs_only && !sn_topo_is_proc(t, u))
            continue;
        bfs_stats(t, u, procs_only, dist, &e, &s);
        sum += s;
    }
    free(dist);
    return sum;
}

uint32_t sn_topo_dds(const sn_topo_t *t, uint32_t u, int procs_only, uint64_t *counts, uint32_t cap)
{
    uint32_t *dist = sn_xmalloc((size_t) t->n * sizeof *dist);
    sn_topo_bfs(t, u, dist);
    uint32_t ecc = 0;
    for (uint32_t i = 0; i < cap; i++)
        counts[i] = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        if (procs_only && !sn_topo_is_proc(t, v))
            continue;
        if (dist[v] > ecc)
            ecc = dist[v];
        if (dist[v] < cap)
            counts[dist[v]]++;
    }
    free(dist);
    return ecc;
}

/* ---- edge colouring ----------------------------------------------------------------------------
 */

uint32_t sn_topo_max_degree(const sn_topo_t *t)
{
    uint32_t d = 0;
    for (uint32_t u = 0; u < t->n; u++)
        if (sn_topo_degree(t, u) > d)
            d = sn_topo_degree(t, u);
    return d;
}

/* Greedy: each edge in id order takes the smallest colour free at both ends (at most 2*maxdeg-1
 * colours). used[] holds, per node, a bitmap of its colours in words of 64. */
static uint32_t colour_greedy(const sn_topo_t *t, uint32_t *colour)
{
    uint32_t maxdeg = sn_topo_max_degree(t);
    uint32_t words = (2 * maxdeg + 63) / 64;
    uint64_t *used = sn_xcalloc((size_t) t->n * words, sizeof *used);
    uint32_t ncol = 0;
    for (uint32_t e = 0; e < t->nedges; e++) {
        uint64_t *ua = &used[(size_t) t->edges[e].a * words];
        uint64_t *ub = &used[(size_t) t->edges[e].b * words];
        uint32_t c = 0;
        for (uint32_t w = 0; w < words; w++) {
            uint64_t freebits = ~(ua[w] | ub[w]);
            if (freebits) {
                c = w * 64 + (uint32_t) __builtin_ctzll(freebits);
                break;
            }
        }
        ua[c / 64] |= 1ull << (c % 64);
        ub[c / 64] |= 1ull << (c % 64);
        colour[e] = c;
        if (c + 1 > ncol)
            ncol = c + 1;
    }
    free(used);
    return ncol;
}

uint32_t sn_topo_edge_colouring(const sn_topo_t *t, uint32_t *colour)
{
    switch (t->kind) {
    case SN_TOPO_HYPERCUBE:
        /* Dimension i edges form a perfect matching: d colours (optimal). */
        for (uint32_t e = 0; e < t->nedges; e++)
            colour[e] = t->edges[e].pa;
        return t->a;
    case SN_TOPO_LINEAR:
        for (uint32_t e = 0; e < t->nedges; e++)
            colour[e] = t->edges[e].a % 2;
        return t->n > 2 ? 2 : 1;
    case SN_TOPO_RING: {
        if (t->n == 2) {
            colour[0] = 0;
            return 1;
        }
        /* Edge owned by u (the edge u -> u+1): colour u mod 2, and 2 for the wrap edge of an odd
         * ring (2 colours for even n, 3 for odd: optimal). */
        for (uint32_t e = 0; e < t->nedges; e++) {
            uint32_t a = t->edges[e].a, b = t->edges[e].b;
            uint32_t owner = (b == a + 1) ? a : b; /* the wrap edge (0, n-1) is owned by n-1 */
            colour[e] = (t->n % 2 == 1 && owner == t->n - 1) ? 2 : owner % 2;
        }
        return t->n % 2 ? 3 : 2;
    }
    case SN_TOPO_COMPLETE: {
        /* Round-robin tournament: n-1 colours for even n, n for odd n (optimal). */
        uint32_t n = t->n;
        for (uint32_t e = 0; e < t->nedges; e++) {
            uint32_t a = t->edges[e].a, b = t->edges[e].b;
            if (n % 2 == 1)
                colour[e] = (a + b) % n;
            else if (b == n - 1)
                colour[e] = (2 * a) % (n - 1);
            else
                colour[e] = (a + b) % (n - 1);
        }
        return n % 2 ? n : n - 1;
    }
    case SN_TOPO_MESH:
    case SN_TOPO_TORUS:
    case SN_TOPO_PRODUCT: {
        /* Disjoint palettes per factor: a product edge takes its factor edge's colour plus the
         * palette offset of its factor. */
        uint32_t *fcol[SN_TOPO_MAX_FACTORS], off[SN_TOPO_MAX_FACTORS], total = 0;
        for (uint32_t i = 0; i < t->nfactors; i++) {
            fcol[i] = sn_xmalloc((t->factors[i]->nedges + 1) * sizeof *fcol[i]);
            off[i] = total;
            total += sn_topo_edge_colouring(t->factors[i], fcol[i]);
        }
        for (uint32_t e = 0; e < t->nedges; e++) {
            uint32_t a = t->edges[e].a, pa = t->edges[e].pa;
            uint32_t f = sn_topo_port_factor(t, a, pa);
            uint32_t c = sn_topo_coord(t, a, f);
            uint32_t base = 0;
            for (uint32_t j = 0; j < f; j++)
                base += sn_topo_degree(t->factors[j], sn_topo_coord(t, a, j));
            uint32_t fe = sn_topo_port(t->factors[f], c, pa - base)->edge;
            colour[e] = off[f] + fcol[f][fe];
        }
        for (uint32_t i = 0; i < t->nfactors; i++)
            free(fcol[i]);
        return total;
    }
    default:
        return colour_greedy(t, colour);
    }
}
