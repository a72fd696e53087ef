/* mnb-fattree, mnb-fattree-qf and mnb-fattree-qf-serial: multinode broadcast on a k-ary fat tree
 * (core/algo).
 *
 * Sources: Dimakopoulos, thesis,
 *  - single-port: section 6.2.3, Fig. 6.6, Lemma 6.4, Theorems 6.3 and 6.5. Every leaf sends its
 *    message up in step 1; a level-l router first sends its subtree's k^l messages up (phase A),
 *    then its children take turns (phase B), each receiving one message every k steps. MB(n) =
 *    kn + (k+1)(log_k n - 2) + 1, the lower bound. (The proof of Theorem 6.5 writes
 *    B_r(h-1) = 2(h-2); it is B_r(h-2) = k(h-2), the printed total is right.) Needs every router
 *    to receive from all its neighbours in one step (single-port, any receptions) and large
 *    queues;
 *  - multiport by flooding: section 6.3.2.1, Theorem 6.9: every router forwards each message to
 *    all its other branches at once, c_i per level-i branch and step; n steps (k >= 3), n + 1
 *    (k = 2), on any capacities, with queues of (k-1) k^(i-1) messages;
 *  - multiport without queues: section 6.3.2.2, Fig. 6.10: phase i = 0..h-1 broadcasts, below every
 *    level-(h-i) node, the messages of each child subtree to the other k-1; a top receives one
 *    message from each child and passes each to the other children over k-1 steps, so every link
 *    carries at most one message per step and a router holds at most one message per incoming
 *    link. Phase time T_i = (k-1) k^(h-i-1) + 2(h-i) - 1; serially n + h^2 - 1 (6.3), pipelined
 *    (phase i+1 starts h-i-2 steps before phase i's last message leaves its top)
 *    n + 2 log_k n - 2. The per-step schedule of a phase is stepnet's: in phase p the leaf with
 *    index u inside its child subtree of its top sends in step S_p + 1 + u(k-1). */
#include "core/algo/algos.h"
#include "core/algo/engine/fattree.h"

static uint64_t count_once(const sn_ft_plan_t *pl, uint32_t leaf)
{
    (void) pl;
    (void) leaf;
    return 1;
}

static void inject_once(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t i, uint64_t *slot,
                        sn_packet_t *pkt)
{
    (void) i;
    *slot = 1;
    *pkt = sn_packet_data(pl->p, leaf, SN_NODE_ALL, 0, 0);
}

static uint64_t count_phases(const sn_ft_plan_t *pl, uint32_t leaf)
{
    (void) leaf;
    return pl->h;
}

/* Fig. 6.10: the leaf's message once per phase, tagged with the phase. */
static void inject_phases(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t ph, uint64_t *slot,
                          sn_packet_t *pkt)
{
    uint32_t L = pl->h - (uint32_t) ph;
    uint64_t u = leaf % pl->pw[L - 1];
    *slot = pl->start[ph] + 1 + u * (pl->k - 1);
    *pkt = sn_packet_data(pl->p, leaf, SN_NODE_ALL, 0, 0);
    pkt->tag = (uint32_t) ph;
}

static int mnb_fattree_applies_mnb(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "mnb-fattree", err);
}

static int applies_qf(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "mnb-fattree-qf", err);
}

static int mnb_fattree_plan_mnb(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    (void) err;
    sn_ft_plan_t *pl = sn__ft_plan_alloc(t, p);
    pl->count = count_once;
    pl->inject = inject_once;
    pl->rule = SN_FT_FLOOD;
    pl->disc = SN_FT_SP_MNB;
    int64_t k = pl->k, n = pl->n, h = pl->h;
    if (p->pm.ports == SN_PORTS_SINGLE)
        pl->predicted = k * n + (k + 1) * (h - 2) + 1; /* Theorems 6.3, 6.5 */
    else
        pl->predicted = k == 2 ? n + 1 : n; /* Theorem 6.9 */
    *out = pl;
    return 0;
}

/* Phase p of Fig. 6.10 takes T_p = (k-1) k^(L-1) + 2L - 1 steps, L = h - p. */
static int plan_qf_with(const sn_topo_t *t, const sn_params_t *p, int serial, void **out)
{
    sn_ft_plan_t *pl = sn__ft_plan_alloc(t, p);
    pl->count = count_phases;
    pl->inject = inject_phases;
    pl->rule = SN_FT_QUEUE_FREE;
    pl->disc = SN_FT_SP_FIFO;
    uint64_t s = 0;
    for (uint32_t ph = 0; ph < pl->h; ph++) {
        uint32_t L = pl->h - ph;
        uint64_t send = (pl->k - 1) * pl->pw[L - 1], tp = send + 2 * L - 1;
        pl->start[ph] = s;
        pl->predicted = (int64_t) (s + tp);
        s += serial ? tp : send + 2;
    }
    *out = pl;
    return 0;
}

static int plan_qf(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    (void) err;
    return plan_qf_with(t, p, 0, out);
}

static int plan_qf_serial(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    (void) err;
    return plan_qf_with(t, p, 1, out);
}

const sn_algo_t sn__algo_mnb_fattree = {
    .name = "mnb-fattree",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY,
    .topos = "fattree",
    .summary = "fat tree: up first, then children in turn (single-port); flooding (multiport)",
    .source = "Dimakopoulos, thesis, section 6.2.3, Fig. 6.6, Theorems 6.3, 6.5; section "
              "6.3.2.1, Theorem 6.9",
    .predicts = "kn + (k+1)(h-2) + 1 single-port; n (k >= 3) or n + 1 (k = 2) multiport",
    .applies = mnb_fattree_applies_mnb,
    .plan_new = mnb_fattree_plan_mnb,
    SN__FT_ALGO_FIELDS,
};

const sn_algo_t sn__algo_mnb_fattree_qf = {
    .name = "mnb-fattree-qf",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "fattree",
    .summary = "fat tree: queue-free phases, one level per phase, pipelined",
    .source = "Dimakopoulos, thesis, section 6.3.2.2, Fig. 6.10",
    .predicts = "n + 2h - 2 (section 6.3.2.2, pipelined)",
    .applies = applies_qf,
    .plan_new = plan_qf,
    SN__FT_ALGO_FIELDS,
};

const sn_algo_t sn__algo_mnb_fattree_qf_serial = {
    .name = "mnb-fattree-qf-serial",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "fattree",
    .summary = "fat tree: queue-free phases, one level per phase, one after the other",
    .source = "Dimakopoulos, thesis, section 6.3.2.2, Fig. 6.10, (6.3)",
    .predicts = "n + h^2 - 1 ((6.3), serial)",
    .applies = applies_qf,
    .plan_new = plan_qf_serial,
    SN__FT_ALGO_FIELDS,
};
