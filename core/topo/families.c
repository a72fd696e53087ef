/* Graph family generators (core/topo): linear arrays, circulants (rings, extended rings), complete
 * graphs, hypercubes and folded cubes, cube-connected cycles and wrapped butterflies, star graphs,
 * fat trees and cartesian products. Each lays out ports in the stable order documented in
 * include/stepnet/topo.h; sn__topo_link derives the edges.
 *
 * The Cayley families share one builder: node ids are group elements, port p of g leads to
 * g * gens[p], and arrives on the port of gens[p]^-1. Definitions of CCC, wrapped butterfly and
 * star graphs follow Dimakopoulos, thesis, section 4.4.1 (Cayley graphs). */
#include <stdlib.h>
#include <string.h>

#include "core/topo/topo_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

/* ---- Cayley builder ----------------------------------------------------------------------------
 */

/* Builds t's ports from its generator list (duplicates and the identity removed here, keeping the
 * first occurrence, so that R_2 and E_n^{n/2} get their de-duplicated degree). t->kind and the
 * parameters used by sn_topo_mul must already be set. */
static int cayley_build(sn_topo_t *t, const uint32_t *gens_in, uint32_t ngens_in, sn_err_t *err)
{
    uint32_t *gens = sn_xmalloc((ngens_in ? ngens_in : 1) * sizeof *gens);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < ngens_in; i++) {
        uint32_t g = gens_in[i];
        int dup = (g == 0);
        for (uint32_t j = 0; j < ng && !dup; j++)
            dup = gens[j] == g;
        if (!dup)
            gens[ng++] = g;
    }
    uint32_t *invidx = sn_xmalloc((ng ? ng : 1) * sizeof *invidx);
    for (uint32_t i = 0; i < ng; i++) {
        uint32_t gi = sn_topo_inv(t, gens[i]);
        invidx[i] = UINT32_MAX;
        for (uint32_t j = 0; j < ng; j++)
            if (gens[j] == gi)
                invidx[i] = j;
        if (invidx[i] == UINT32_MAX) {
            free(gens);
            free(invidx);
            return sn_err_set(err, SN_ESPEC, "%s: generator set is not closed under inverses",
                              t->spec);
        }
    }
    uint64_t nports = (uint64_t) t->n * ng;
    t->ports = sn_xrealloc(t->ports, (nports ? nports : 1) * sizeof *t->ports);
    for (uint32_t u = 0; u <= t->n; u++)
        t->port_off[u] = u * ng;
    for (uint32_t u = 0; u < t->n; u++) {
        sn_port_t *p = &t->ports[(uint64_t) u * ng];
        for (uint32_t i = 0; i < ng; i++) {
            p[i].peer = sn_topo_mul(t, u, gens[i]);
            p[i].rport = invidx[i];
        }
    }
    free(gens);
    free(invidx);
    t->cayley = 1;
    t->vertex_transitive = 1;
    return sn__topo_link(t, err);
}

static int finish(sn_topo_t *t, int rc, sn_topo_t **out)
{
    if (rc < 0) {
        sn_topo_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* ---- linear array ---------------------------------------------------------------------------- */

int sn__topo_linear(uint32_t n, sn_topo_t **out, sn_err_t *err)
{
    sn_topo_t *t = sn__topo_alloc(SN_TOPO_LINEAR, n, 2 * (uint64_t) (n - 1));
    t->a = n;
    uint32_t off = 0;
    for (uint32_t u = 0; u < n; u++) {
        t->port_off[u] = off;
        if (u + 1 < n) { /* port +1 */
            t->ports[off].peer = u + 1;
            t->ports[off].rport = (u + 1 < n - 1) ? 1 : 0; /* the -1 port of u+1 */
            off++;
        }
        if (u > 0) { /* port -1, arriving on the +1 port (always port 0) of u-1 */
            t->ports[off].peer = u - 1;
            t->ports[off].rport = 0;
            off++;
        }
    }
    t->port_off[n] = off;
    return finish(t, sn__topo_link(t, err), out);
}

/* ---- circulants: ring, ering, circulant ------------------------------------------------------ */

int sn__topo_circulant(sn_topo_kind_t kind, uint32_t n, const uint32_t *jumps, uint32_t njumps,
                       sn_topo_t **out, sn_err_t *err)
{
    sn_topo_t *t = sn__topo_alloc(kind, n, 0);
    t->a = n;
    t->njumps = njumps;
    t->jumps = sn_xmalloc(njumps * sizeof *t->jumps);
    memcpy(t->jumps, jumps, njumps * sizeof *jumps);
    uint32_t *gens = sn_xmalloc(2 * njumps * sizeof *gens);
    for (uint32_t i = 0; i < njumps; i++) {
        gens[2 * i] = jumps[i] % n;
        gens[2 * i + 1] = (n - jumps[i] % n) % n;
    }
    int rc = cayley_build(t, gens, 2 * njumps, err);
    free(gens);
    return finish(t, rc, out);
}

/* ---- complete graph ------------------------------------------------------------------------- */

int sn__topo_complete(uint32_t n, sn_topo_t **out, sn_err_t *err)
{
    sn_topo_t *t = sn__topo_alloc(SN_TOPO_COMPLETE, n, 0);
    t->a = n;
    uint32_t *gens = sn_xmalloc(n * sizeof *gens);
    for (uint32_t i = 0; i + 1 < n; i++)
        gens[i] = i + 1;
    int rc = cayley_build(t, gens, n - 1, err);
    free(gens);
    return finish(t, rc, out);
}

/* ---- hypercube and folded cube ------------------------------------------------------------ */

int sn__topo_hypercube(sn_topo_kind_t kind, uint32_t d, sn_topo_t **out, sn_err_t *err)
{
    sn_topo_t *t = sn__topo_alloc(kind, 1u << d, 0);
    t->a = d;
    uint32_t gens[33];
    for (uint32_t i = 0; i < d; i++)
        gens[i] = 1u << i;
    uint32_t ng = d;
    if (kind == SN_TOPO_FOLDEDCUBE)
        gens[ng++] = (1u << d) - 1;
    return finish(t, cayley_build(t, gens, ng, err), out);
}

/* ---- cube-connected cycles and wrapped butterfly ----------------------------------------- */

int sn__topo_ccc(sn_topo_kind_t kind, uint32_t d, sn_topo_t **out, sn_err_t *err)
{
    sn_topo_t *t = sn__topo_alloc(kind, d << d, 0);
    t->a = d;
    /* Element (x, l) has id x * d + l. */
    uint32_t gens[4], ng = 0;
    gens[ng++] = 1 % d;       /* (0, +1) */
    gens[ng++] = (d - 1) % d; /* (0, -1) */
    if (kind == SN_TOPO_CCC) {
        gens[ng++] = 1 * d + 0; /* (e_0, 0) */
    } else {
        gens[ng++] = 1 * d + 1 % d;                 /* (e_0, +1) */
        gens[ng++] = (1u << (d - 1)) * d + (d - 1); /* (e_{d-1}, -1) */
    }
    return finish(t, cayley_build(t, gens, ng, err), out);
}

/* ---- star graph ------------------------------------------------------------------------------ */

int sn__topo_star(uint32_t n, sn_topo_t **out, sn_err_t *err)
{
    uint32_t nodes = 1;
    for (uint32_t i = 2; i <= n; i++)
        nodes *= i;
    sn_topo_t *t = sn__topo_alloc(SN_TOPO_STAR, nodes, 0);
    t->a = n;
    uint32_t gens[16];
    for (uint32_t i = 1; i < n; i++) {
        uint8_t perm[16];
        for (uint32_t j = 0; j < n; j++)
            perm[j] = (uint8_t) j;
        perm[0] = (uint8_t) i;
        perm[i] = 0;
        gens[i - 1] = sn__perm_rank(perm, n);
    }
    return finish(t, cayley_build(t, gens, n - 1, err), out);
}

/* ---- fat tree ------------------------------------------------------------------------------
 * Complete k-ary tree of height h (thesis section 6.1): leaves (level 0) are the processors and get
 * node ids 0 .. k^h - 1, then level 1, ..., the root last. A level-i branch (child at level i-1,
 * parent at level i) has caps[i] parallel links. */

int sn__topo_fattree(uint32_t k, uint32_t h, const uint32_t *caps, sn_topo_t **out, sn_err_t *err)
{
    uint64_t n = 0, nports = 0;
    for (uint32_t l = 0; l <= h; l++) {
        uint64_t cnt = sn__upow(k, h - l);
        n += cnt;
        if (l >= 1)
            nports += 2 * cnt * k * caps[l];
    }
    sn_topo_t *t = sn__topo_alloc(SN_TOPO_FATTREE, (uint32_t) n, nports);
    t->a = k;
    t->b = h;
    t->caps = sn_xmalloc((h + 1) * sizeof *t->caps);
    memcpy(t->caps, caps, (h + 1) * sizeof *caps);
    t->is_router = sn_xcalloc(n, 1);
    uint32_t off = 0;
    for (uint32_t l = 0; l <= h; l++) {
        uint32_t cnt = (uint32_t) sn__upow(k, h - l);
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t u = sn__fattree_node(t, l, i);
            t->port_off[u] = off;
            t->is_router[u] = l > 0;
            if (l > 0) {
                /* children first: child j's caps[l] links */
                uint32_t child_down = (l - 1 >= 1) ? k * caps[l - 1] : 0;
                for (uint32_t j = 0; j < k; j++) {
                    uint32_t c = sn__fattree_node(t, l - 1, i * k + j);
                    for (uint32_t m = 0; m < caps[l]; m++) {
                        t->ports[off].peer = c;
                        t->ports[off].rport = child_down + m;
                        off++;
                    }
                }
            }
            if (l < h) {
                uint32_t par = sn__fattree_node(t, l + 1, i / k);
                for (uint32_t m = 0; m < caps[l + 1]; m++) {
                    t->ports[off].peer = par;
                    t->ports[off].rport = (i % k) * caps[l + 1] + m;
                    off++;
                }
            }
        }
    }
    t->port_off[n] = off;
    sn__topo_ranks(t);
    return finish(t, sn__topo_link(t, err), out);
}

/* ---- cartesian product ---------------------------------------------------------------------
 * Node id = sum coord_i * stride_i, first factor most significant. Ports: factor 0's, then factor
 * 1's, ... Only coordinate i changes along a factor-i edge, so the port offset of factor i (the
 * degrees of the factors before it) is the same at both ends. */

int sn__topo_product(sn_topo_kind_t kind, sn_topo_t **factors, uint32_t nf, sn_topo_t **out,
                     sn_err_t *err)
{
    (void) err;
    uint64_t n = 1;
    for (uint32_t i = 0; i < nf; i++)
        n *= factors[i]->n;
    uint64_t nports = 0;
    for (uint32_t i = 0; i < nf; i++)
        nports += (n / factors[i]->n) * factors[i]->port_off[factors[i]->n];
    sn_topo_t *t = sn__topo_alloc(kind, (uint32_t) n, nports);
    t->nfactors = nf;
    t->factors = sn_xmalloc(nf * sizeof *t->factors);
    memcpy(t->factors, factors, nf * sizeof *factors);
    t->stride = sn_xmalloc(nf * sizeof *t->stride);
    uint32_t s = 1;
    for (uint32_t i = nf; i-- > 0;) {
        t->stride[i] = s;
        s *= factors[i]->n;
    }
    t->port_factor = sn_xmalloc(nports ? nports : 1);
    t->cayley = 1;
    t->vertex_transitive = 1;
    for (uint32_t i = 0; i < nf; i++) {
        t->cayley &= factors[i]->cayley;
        t->vertex_transitive &= factors[i]->vertex_transitive;
    }
    uint32_t off = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        t->port_off[u] = off;
        uint32_t base = 0;
        for (uint32_t i = 0; i < nf; i++) {
            const sn_topo_t *f = factors[i];
            uint32_t c = sn_topo_coord(t, u, i);
            uint32_t deg = sn_topo_degree(f, c);
            for (uint32_t q = 0; q < deg; q++) {
                const sn_port_t *fp = sn_topo_port(f, c, q);
                t->ports[off].peer = sn_topo_with_coord(t, u, i, fp->peer);
                t->ports[off].rport = base + fp->rport;
                t->port_factor[off] = (uint8_t) i;
                off++;
            }
            base += deg;
        }
    }
    t->port_off[t->n] = off;
    return finish(t, sn__topo_link(t, err), out);
}
