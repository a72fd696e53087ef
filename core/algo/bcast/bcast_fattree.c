/* bcast-fattree: broadcasting from any leaf of a k-ary fat tree (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 6.2.1, Fig. 6.4, Theorem 6.1 (single-port: every node on
 * the path from the source to the root informs its parent first, then its other children, and a
 * node informed by its parent serves its children in order; (k+1) h - 1 steps, optimal), and
 * section 6.3.1 (multiport: every router forwards to all its other neighbours; 2h steps, the
 * eccentricity of a leaf). Table 6.2 prints 2 log_k n - 1 for the multiport case, a typo: the two
 * extreme leaves are 2h hops apart and the text says 2h. Capacities play no role. */
#include "core/algo/algos.h"
#include "core/algo/engine/fattree.h"

static uint64_t count(const sn_ft_plan_t *pl, uint32_t leaf)
{
    return leaf == pl->p->root;
}

static void inject(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t i, uint64_t *slot,
                   sn_packet_t *pkt)
{
    (void) i;
    *slot = 1;
    *pkt = sn_packet_data(pl->p, leaf, SN_NODE_ALL, 0, 0);
}

static int bcast_fattree_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "bcast-fattree", err);
}

static int bcast_fattree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                  sn_err_t *err)
{
    (void) err;
    sn_ft_plan_t *pl = sn__ft_plan_alloc(t, p);
    pl->count = count;
    pl->inject = inject;
    pl->disc = SN_FT_SP_FIFO;
    if (p->pm.ports == SN_PORTS_SINGLE) {
        /* Phase "up then out" (Fig. 6.4): B = h + B_r(h-1) + ... = (k+1) h - 1 */
        pl->rule = SN_FT_BCAST_SP;
        pl->predicted = (int64_t) (pl->k + 1) * pl->h - 1;
    } else {
        pl->rule = SN_FT_FLOOD;
        pl->predicted = 2 * (int64_t) pl->h;
    }
    *out = pl;
    return 0;
}

const sn_algo_t sn__algo_bcast_fattree = {
    .name = "bcast-fattree",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "fattree",
    .summary = "fat tree: parent first, then the other children (single-port); flooding "
               "(multiport)",
    .source = "Dimakopoulos, thesis, section 6.2.1, Fig. 6.4, Theorem 6.1; section 6.3.1",
    .predicts = "(k+1) h - 1 single-port (Theorem 6.1); 2h multiport (section 6.3.1)",
    .applies = bcast_fattree_applies,
    .plan_new = bcast_fattree_plan_new,
    SN__FT_ALGO_FIELDS,
};
