/* The broadcast and scattering tree of the extended ring E_n^rho (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1 (from [17]) and Theorem 3.8
 * (section 3.4.1). The tree is the one the weight protocol builds: the
 * root sends weight D clockwise to i+1 .. i+rho, weight w+1 counter-clockwise to i-1 .. i-k and
 * weight w to i-(k+1) .. i-rho; a node that receives weight W forwards W-1 (if not 0) rho further
 * in the same direction. Weight-0 sends are skipped (an erratum: the printed rule
 * would send them and decrement to -1), so when w = 0 the root has fewer than 2 rho children. The
 * direction travels with the weight, which resolves rho = n/2 where the +rho and -rho neighbours
 * coincide. Every root subtree is a path of at most D nodes, D = ceil((n-1)/deg) (Theorem 3.8). */
#include <stdlib.h>

#include "core/algo/engine/tree.h"
#include "core/algo/engine/tree_ering.h"
#include "stepnet/util.h"

int sn__ering_get(const sn_topo_t *t, sn_ering_t *e, const char *who, sn_err_t *err)
{
    e->kind = t->kind;
    e->n = t->a;
    if (t->kind == SN_TOPO_RING)
        e->rho = 1;
    else if (t->kind == SN_TOPO_ERING)
        e->rho = t->b;
    else if (t->kind == SN_TOPO_COMPLETE)
        e->rho = t->a / 2; /* K_N = E_N^floor(N/2) */
    else
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs an extended ring (ring:N, ering:N:RHO or complete:N), not %s",
                          who ? who : "the extended-ring tree", t->spec);
    uint32_t n = e->n, rho = e->rho;
    if (n < 2 || rho < 1 || 2 * rho > n)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s: %s is not an extended ring E_n^rho, 1 <= rho <= n/2",
                          who ? who : "the extended-ring tree", t->spec);
    e->D = (n / 2 + rho - 1) / rho;
    e->w = (n - 1) / rho - e->D; /* >= 0: (n-1)/rho >= ceil(floor(n/2)/rho) for rho <= n/2 */
    e->k = n - (e->w + e->D) * rho - 1;
    e->deg = 2 * rho == n ? 2 * rho - 1 : 2 * rho;
    /* The port numbering of topo.h, checked once at node 0 (the same at every node). */
    if (sn_topo_degree(t, 0) != e->deg)
        return sn_err_set(err, SN_EALGO, "%s: degree %u, expected %u", t->spec,
                          sn_topo_degree(t, 0), e->deg);
    for (uint32_t s = 1; s <= rho; s++)
        if (sn_topo_port(t, 0, sn__ering_port(e, 0, s))->peer != s % n ||
            sn_topo_port(t, 0, sn__ering_port(e, 1, s))->peer != (n - s) % n)
            return sn_err_set(err, SN_EALGO, "%s: unexpected port numbering at jump %u", t->spec,
                              s);
    return 0;
}

uint32_t sn__ering_port(const sn_ering_t *e, int ccw, uint32_t s)
{
    if (e->kind == SN_TOPO_COMPLETE) /* port p leads to u + p + 1 */
        return ccw ? e->n - s - 1 : s - 1;
    /* +1, -1, +2, -2, ...; +s and -s are one port when s = n/2 */
    return 2 * (s - 1) + (ccw && 2 * s != e->n);
}

sn_tree_t *sn__tree_ering(const sn_topo_t *t, uint32_t root)
{
    sn_ering_t e;
    if (sn__ering_get(t, &e, NULL, NULL) < 0)
        return NULL;
    uint32_t n = e.n;
    sn_tree_t *tr = sn__tree_alloc(t, root);
    for (int ccw = 0; ccw < 2; ccw++) {
        for (uint32_t s = 1; s <= e.rho; s++) {
            uint32_t weight = !ccw ? e.D : s <= e.k ? e.w + 1 : e.w;
            uint32_t prev = root, jump = s;
            while (weight > 0) { /* one node per unit of weight, rho apart */
                uint32_t u = ccw ? (prev + n - jump) % n : (prev + jump) % n;
                if (u == root || tr->parent[u] != UINT32_MAX)
                    goto fail; /* the paths overlap: not E_n^rho after all */
                tr->parent[u] = prev;
                tr->up_port[u] = sn__ering_port(&e, !ccw, jump);
                prev = u;
                jump = e.rho;
                weight--;
            }
        }
    }
    if (sn__tree_finish(t, tr) == 0)
        return tr;
fail:
    sn__tree_free(tr);
    return NULL;
}
