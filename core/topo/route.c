/* The routing oracle (core/topo): exact distances, a canonical shortest-path next hop and the
 * heights of the shortest-path trees T_s, per family (see include/stepnet/route.h).
 *
 * Cayley mode: one BFS from the identity e gives D[z] = dist(e, z) and W[z], the port of e that
 * starts the BFS-tree path to z. Translation by u is an automorphism, so dist(u, v) = D[u^-1 v] and
 * next(u, v) = peer(u, W[u^-1 v]); every T_s is the translate s * T_e, so one table of subtree
 * heights of T_e serves every source. */
#include <stdlib.h>
#include <string.h>

#include "core/topo/topo_internal.h"
#include "stepnet/route.h"
#include "stepnet/util.h"

typedef enum { MODE_CAYLEY, MODE_PRODUCT, MODE_LINEAR, MODE_FATTREE, MODE_TABLE } mode_t_;

/* How to compute u^-1 v in a Cayley graph: directly for the abelian families (the hot path of
 * large runs), through sn_topo_mul/inv otherwise. */
typedef enum { REL_XOR, REL_MOD, REL_GROUP } rel_t;

struct sn_route_s {
    const sn_topo_t *t;
    mode_t_ mode;
    rel_t rel;
    /* Cayley */
    uint32_t *cdist;  /* [n] dist(e, z) */
    uint16_t *cfirst; /* [n] first port from e towards z */
    int32_t *cheight; /* [n] height of z's subtree in T_e */
    /* product */
    sn_route_t *sub[SN_TOPO_MAX_FACTORS];
    /* table (file graphs): row-major n x n */
    uint16_t *tdist;  /* [u*n+v] */
    uint16_t *tnext;  /* [u*n+v] port of u towards v */
    int16_t *theight; /* [s*n+w] */
};

/* ---- construction --------------------------------------------------------------------------- */

static void build_cayley(sn_route_t *r)
{
    const sn_topo_t *t = r->t;
    uint32_t n = t->n;
    r->cdist = sn_xmalloc((size_t) n * sizeof *r->cdist);
    r->cfirst = sn_xmalloc((size_t) n * sizeof *r->cfirst);
    r->cheight = sn_xmalloc((size_t) n * sizeof *r->cheight);
    uint32_t *order = sn_xmalloc((size_t) n * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        r->cdist[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    r->cdist[0] = 0;
    r->cfirst[0] = 0;
    order[tail++] = 0;
    while (head < tail) {
        uint32_t u = order[head++];
        uint32_t deg = sn_topo_degree(t, u);
        for (uint32_t p = 0; p < deg; p++) {
            uint32_t v = sn_topo_port(t, u, p)->peer;
            if (r->cdist[v] == UINT32_MAX) {
                r->cdist[v] = r->cdist[u] + 1;
                r->cfirst[v] = (uint16_t) (u == 0 ? p : r->cfirst[u]);
                order[tail++] = v;
            }
        }
    }
    /* Heights of T_e, whose parent pointers are next(x, e): children before parents. */
    for (uint32_t i = 0; i < n; i++)
        r->cheight[i] = 0;
    for (uint32_t i = n; i-- > 1;) {
        uint32_t x = order[i];
        uint32_t par = sn_route_next(r, t, x, 0);
        if (r->cheight[x] + 1 > r->cheight[par])
            r->cheight[par] = r->cheight[x] + 1;
    }
    free(order);
}

static int build_table(sn_route_t *r, sn_err_t *err)
{
    const sn_topo_t *t = r->t;
    uint32_t n = t->n;
    if (n > SN_ROUTE_MAX_TABLE)
        return sn_err_set(err, SN_ERANGE,
                          "%s has %u nodes: all-pairs routing (needed by mnb and te on file "
                          "graphs) supports at most %u",
                          t->spec, n, SN_ROUTE_MAX_TABLE);
    size_t nn = (size_t) n * n;
    r->tdist = sn_xmalloc(nn * sizeof *r->tdist);
    r->tnext = sn_xmalloc(nn * sizeof *r->tnext);
    r->theight = sn_xmalloc(nn * sizeof *r->theight);
    uint32_t *dist = sn_xmalloc((size_t) n * sizeof *dist);
    uint32_t *order = sn_xmalloc((size_t) n * sizeof *order);
    for (uint32_t s = 0; s < n; s++) {
        /* BFS from s: dist(x, s) for every x, and the order by distance. */
        for (uint32_t i = 0; i < n; i++)
            dist[i] = UINT32_MAX;
        uint32_t head = 0, tail = 0;
        dist[s] = 0;
        order[tail++] = s;
        while (head < tail) {
            uint32_t u = order[head++];
            for (uint32_t i = t->port_off[u]; i < t->port_off[u + 1]; i++) {
                uint32_t v = t->ports[i].peer;
                if (dist[v] == UINT32_MAX) {
                    dist[v] = dist[u] + 1;
                    order[tail++] = v;
                }
            }
        }
        for (uint32_t x = 0; x < n; x++) {
            r->tdist[(size_t) x * n + s] = (uint16_t) dist[x];
            uint16_t nx = 0;
            if (x != s) {
                uint32_t deg = sn_topo_degree(t, x);
                for (uint32_t p = 0; p < deg; p++) {
                    if (dist[sn_topo_port(t, x, p)->peer] + 1 == dist[x]) {
                        nx = (uint16_t) p;
                        break;
                    }
                }
            }
            r->tnext[(size_t) x * n + s] = nx;
        }
        int16_t *h = &r->theight[(size_t) s * n];
        for (uint32_t x = 0; x < n; x++)
            h[x] = sn_topo_is_proc(t, x) ? 0 : -1;
        for (uint32_t i = n; i-- > 1;) {
            uint32_t x = order[i];
            if (h[x] < 0)
                continue;
            uint32_t par = sn_topo_port(t, x, r->tnext[(size_t) x * n + s])->peer;
            if (h[x] + 1 > h[par])
                h[par] = (int16_t) (h[x] + 1);
        }
    }
    free(dist);
    free(order);
    return 0;
}

int sn_route_new(const sn_topo_t *t, sn_route_t **out, sn_err_t *err)
{
    sn_route_t *r = sn_xcalloc(1, sizeof *r);
    r->t = t;
    int rc = 0;
    if (t->nfactors > 0) {
        r->mode = MODE_PRODUCT;
        for (uint32_t i = 0; i < t->nfactors && rc == 0; i++)
            rc = sn_route_new(t->factors[i], &r->sub[i], err);
    } else if (t->cayley) {
        r->mode = MODE_CAYLEY;
        switch (t->kind) {
        case SN_TOPO_HYPERCUBE:
        case SN_TOPO_FOLDEDCUBE:
            r->rel = REL_XOR;
            break;
        case SN_TOPO_RING:
        case SN_TOPO_ERING:
        case SN_TOPO_CIRCULANT:
        case SN_TOPO_COMPLETE:
            r->rel = REL_MOD;
            break;
        default:
            r->rel = REL_GROUP;
            break;
        }
        build_cayley(r);
    } else if (t->kind == SN_TOPO_LINEAR) {
        r->mode = MODE_LINEAR;
    } else if (t->kind == SN_TOPO_FATTREE) {
        r->mode = MODE_FATTREE;
    } else {
        r->mode = MODE_TABLE;
        rc = build_table(r, err);
    }
    if (rc < 0) {
        sn_route_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void sn_route_free(sn_route_t *r)
{
    if (r == NULL)
        return;
    for (uint32_t i = 0; i < SN_TOPO_MAX_FACTORS; i++)
        sn_route_free(r->sub[i]);
    free(r->cdist);
    free(r->cfirst);
    free(r->cheight);
    free(r->tdist);
    free(r->tnext);
    free(r->theight);
    free(r);
}

/* ---- fat trees ------------------------------------------------------------------------------- */

/* Ancestor index at level `to` of the node at (level, index), to >= level. */
static uint32_t ft_up(const sn_topo_t *t, uint32_t index, uint32_t level, uint32_t to)
{
    for (uint32_t l = level; l < to; l++)
        index /= t->a;
    return index;
}

static uint32_t ft_dist(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    uint32_t lu, iu, lv, iv;
    sn__fattree_pos(t, u, &lu, &iu);
    sn__fattree_pos(t, v, &lv, &iv);
    uint32_t l = lu > lv ? lu : lv;
    while (ft_up(t, iu, lu, l) != ft_up(t, iv, lv, l))
        l++;
    return (l - lu) + (l - lv);
}

/* Ports of a router at level l: child j's caps[l] links from j * caps[l], then the parent's. */
static uint32_t ft_next_port(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    uint32_t lu, iu, lv, iv;
    sn__fattree_pos(t, u, &lu, &iu);
    sn__fattree_pos(t, v, &lv, &iv);
    if (lv < lu && ft_up(t, iv, lv, lu) == iu) /* v below u: down to the child above v */
        return (ft_up(t, iv, lv, lu - 1) % t->a) * t->caps[lu];
    return lu == 0 ? 0 : t->a * t->caps[lu];
}

/* T_s of a leaf s: a router at level l that is an ancestor of s leads (through its parent) to the
 * far side of the root, 2h - l away; any other router only to its own leaves, l below it. */
static int32_t ft_height(const sn_topo_t *t, uint32_t s, uint32_t w)
{
    uint32_t ls, is, lw, iw;
    sn__fattree_pos(t, s, &ls, &is);
    sn__fattree_pos(t, w, &lw, &iw);
    if (w == s)
        return (int32_t) (2 * t->b - ls);
    if (lw == 0)
        return 0;
    if (lw >= ls && ft_up(t, is, ls, lw) == iw)
        return (int32_t) (2 * t->b - lw);
    return (int32_t) lw;
}

/* ---- queries ----------------------------------------------------------------------------------
 */

/* u^-1 v in a Cayley graph. */
static inline uint32_t rel(const sn_route_t *r, uint32_t u, uint32_t v)
{
    switch (r->rel) {
    case REL_XOR:
        return u ^ v;
    case REL_MOD:
        return v >= u ? v - u : v + r->t->n - u;
    default:
        return sn_topo_mul(r->t, sn_topo_inv(r->t, u), v);
    }
}

static uint32_t first_diff(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    for (uint32_t i = 0; i < t->nfactors; i++)
        if (sn_topo_coord(t, u, i) != sn_topo_coord(t, v, i))
            return i;
    return t->nfactors;
}

uint32_t sn_route_dist(const sn_route_t *r, uint32_t u, uint32_t v)
{
    const sn_topo_t *t = r->t;
    switch (r->mode) {
    case MODE_CAYLEY:
        return r->cdist[rel(r, u, v)];
    case MODE_PRODUCT: {
        uint32_t d = 0;
        for (uint32_t i = 0; i < t->nfactors; i++)
            d += sn_route_dist(r->sub[i], sn_topo_coord(t, u, i), sn_topo_coord(t, v, i));
        return d;
    }
    case MODE_LINEAR:
        return u > v ? u - v : v - u;
    case MODE_FATTREE:
        return ft_dist(t, u, v);
    case MODE_TABLE:
        return r->tdist[(size_t) u * t->n + v];
    }
    return 0;
}

uint32_t sn_route_next_port(const sn_route_t *r, uint32_t u, uint32_t v)
{
    const sn_topo_t *t = r->t;
    switch (r->mode) {
    case MODE_CAYLEY:
        return r->cfirst[rel(r, u, v)];
    case MODE_PRODUCT: {
        uint32_t i = first_diff(t, u, v), base = 0;
        for (uint32_t j = 0; j < i; j++)
            base += sn_topo_degree(t->factors[j], sn_topo_coord(t, u, j));
        return base + sn_route_next_port(r->sub[i], sn_topo_coord(t, u, i), sn_topo_coord(t, v, i));
    }
    case MODE_LINEAR:
        /* port 0 is +1 where it exists (every node but the last) */
        return (v > u || u == t->n - 1) ? 0 : 1;
    case MODE_FATTREE:
        return ft_next_port(t, u, v);
    case MODE_TABLE:
        return r->tnext[(size_t) u * t->n + v];
    }
    return 0;
}

uint32_t sn_route_lookup(const sn_route_t *r, uint32_t u, uint32_t v, uint32_t *port)
{
    if (r->mode == MODE_CAYLEY) {
        uint32_t z = rel(r, u, v);
        *port = r->cfirst[z];
        return r->cdist[z];
    }
    if (u != v)
        *port = sn_route_next_port(r, u, v);
    return sn_route_dist(r, u, v);
}

int32_t sn_route_height(const sn_route_t *r, uint32_t s, uint32_t w)
{
    const sn_topo_t *t = r->t;
    switch (r->mode) {
    case MODE_CAYLEY:
        return r->cheight[rel(r, s, w)];
    case MODE_PRODUCT: {
        /* The subtree of w (first differing factor i0) holds every x that agrees with w beyond
         * i0, lies under w in factor i0's tree, and is arbitrary before i0 (paths to s correct the
         * lowest differing factor first). */
        uint32_t i0 = first_diff(t, s, w);
        int32_t h = 0;
        for (uint32_t j = 0; j < i0; j++)
            h += sn_route_height(r->sub[j], sn_topo_coord(t, s, j), sn_topo_coord(t, s, j));
        if (i0 < t->nfactors)
            h += sn_route_height(r->sub[i0], sn_topo_coord(t, s, i0), sn_topo_coord(t, w, i0));
        return h;
    }
    case MODE_LINEAR: {
        uint32_t last = t->n - 1;
        if (w > s)
            return (int32_t) (last - w);
        if (w < s)
            return (int32_t) w;
        return (int32_t) (s > last - s ? s : last - s);
    }
    case MODE_FATTREE:
        return ft_height(t, s, w);
    case MODE_TABLE:
        return r->theight[(size_t) s * t->n + w];
    }
    return -1;
}
