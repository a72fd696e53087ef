/* scatter-fattree and gather-fattree: personalised one-to-all and all-to-one on a k-ary fat tree
 * (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 6.2.2, Theorem 6.2 (single-port), and section 6.3 (the
 * same algorithms are optimal multiport, since the source leaf has one link, c_1 = 1). Scatter:
 * the source sends furthest first, one message per step, and routers forward at once; the
 * messages into the level-i ancestor's other subtrees arrive by T_i = n - k^(i-1) + 2i - 1, so
 * S(n) = max_i T_i = n (k >= 3), n + 1 (k = 2). Gather is the time reversal of the scatter
 * (section 6.2.2: "a gathering algorithm can be had from a scattering algorithm"): leaf j, which
 * the scatter serves in step s_j over d_j hops, sends in step T + 2 - s_j - d_j, so that the sink
 * receives it in step T + 1 - s_j; no node sends or receives twice in a step. */
#include "core/algo/algos.h"
#include "core/algo/engine/fattree.h"

/* Theorem 6.2: max over i = 1..h of n - k^(i-1) + 2i - 1. */
static int64_t scatter_time(const sn_ft_plan_t *pl)
{
    int64_t best = 0;
    for (uint32_t i = 1; i <= pl->h; i++) {
        int64_t ti = (int64_t) pl->n - (int64_t) pl->pw[i - 1] + 2 * (int64_t) i - 1;
        if (ti > best)
            best = ti;
    }
    return best;
}

static uint64_t count_scatter(const sn_ft_plan_t *pl, uint32_t leaf)
{
    return leaf == pl->p->root ? pl->n - 1 : 0;
}

/* The source's j-th message goes to the j-th leaf of its furthest-first order, in step j + 1. */
static void inject_scatter(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t j, uint64_t *slot,
                           sn_packet_t *pkt)
{
    *slot = j + 1;
    *pkt = sn_packet_data(pl->p, leaf, sn__ft_ff_at(pl, leaf, j), 0, 0);
}

static uint64_t count_gather(const sn_ft_plan_t *pl, uint32_t leaf)
{
    return leaf != pl->p->root;
}

/* Leaf j, served by the scatter in step s_j over d_j hops, sends in step T + 2 - s_j - d_j. */
static void inject_gather(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t i, uint64_t *slot,
                          sn_packet_t *pkt)
{
    (void) i;
    uint32_t sink = pl->p->root;
    uint64_t sj = sn__ft_ff_pos(pl, sink, leaf) + 1;
    *slot = pl->aux + 2 - sj - sn__ft_dist(pl, leaf, sink);
    *pkt = sn_packet_data(pl->p, leaf, sink, 0, 0);
}

static int scatter_fattree_applies_scatter(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "scatter-fattree", err);
}

static int scatter_fattree_applies_gather(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "gather-fattree", err);
}

static sn_ft_plan_t *scatter_fattree_plan_common(const sn_topo_t *t, const sn_params_t *p)
{
    sn_ft_plan_t *pl = sn__ft_plan_alloc(t, p);
    pl->rule = SN_FT_ROUTE;
    pl->disc = SN_FT_SP_FIFO;
    pl->predicted = scatter_time(pl);
    pl->aux = (uint64_t) pl->predicted;
    return pl;
}

static int scatter_fattree_plan_scatter(const sn_topo_t *t, const sn_params_t *p, void **out,
                                        sn_err_t *err)
{
    (void) err;
    sn_ft_plan_t *pl = scatter_fattree_plan_common(t, p);
    pl->count = count_scatter;
    pl->inject = inject_scatter;
    *out = pl;
    return 0;
}

static int scatter_fattree_plan_gather(const sn_topo_t *t, const sn_params_t *p, void **out,
                                       sn_err_t *err)
{
    (void) err;
    sn_ft_plan_t *pl = scatter_fattree_plan_common(t, p);
    pl->count = count_gather;
    pl->inject = inject_gather;
    *out = pl;
    return 0;
}

const sn_algo_t sn__algo_scatter_fattree = {
    .name = "scatter-fattree",
    .coll = SN_COLL_SCATTER,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "fattree",
    .summary = "fat tree: the source sends furthest first, routers forward at once",
    .source = "Dimakopoulos, thesis, section 6.2.2, Theorem 6.2; section 6.3",
    .predicts = "n (k >= 3), n + 1 (k = 2) (Theorem 6.2)",
    .applies = scatter_fattree_applies_scatter,
    .plan_new = scatter_fattree_plan_scatter,
    SN__FT_ALGO_FIELDS,
};

const sn_algo_t sn__algo_gather_fattree = {
    .name = "gather-fattree",
    .coll = SN_COLL_GATHER,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "fattree",
    .summary = "fat tree: the time reversal of scatter-fattree",
    .source = "Dimakopoulos, thesis, section 6.2.2, Theorem 6.2; section 6.3",
    .predicts = "n (k >= 3), n + 1 (k = 2) (Theorem 6.2)",
    .applies = scatter_fattree_applies_gather,
    .plan_new = scatter_fattree_plan_gather,
    SN__FT_ALGO_FIELDS,
};
