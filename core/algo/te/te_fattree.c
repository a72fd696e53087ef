/* te-fattree and te-fattree-serial: total exchange on a k-ary fat tree (core/algo).
 *
 * Sources: Dimakopoulos, thesis,
 *  - single-port: section 6.2.4, Fig. 6.8, Lemma 6.7, Theorems 6.6 and 6.8. Every leaf sends its
 *    n - 1 messages up, furthest first, in steps 1 .. n-1; a level-l router first sends up the
 *    k^l (n - k^l) messages that leave its subtree (phase A), then sends down (phase B). A level-l
 *    router transmits X_l = 2 k^l (n - k^l) + (k-1) k^(2l-1) messages and the root
 *    X_h = n (n - n/k); it gets its first message in step l and the last one it sends travels
 *    l - 1 more hops, so TE >= X_l + 2l - 1 for every l, and the algorithm meets the largest of
 *    these bounds. Erratum: Theorem 6.6 prints n^2 (2k+1)(k-1)/k^3 + 2 log_k n - 3 = X_(h-1) +
 *    2h - 3, which forgets the root; it is right for k = 2 only. For k >= 3 the root's load
 *    gives (k-1) n^2 / k + 2h - 1, which is what the algorithm takes (and optimal);
 *  - multiport: section 6.3.3, Fig. 6.11, (6.5): phase i = 0..h-1 transfers, below every
 *    level-(h-i) node, all messages from each child subtree to the other k-1, c_(h-i) per branch
 *    and step, in ceil((k-1) k^(2(h-i)-2) / c_(h-i)) steps plus 2(h-i) - 1 hops; serially the sum
 *    of the phases, pipelined (each phase starts two steps after the previous one's last send)
 *    sum_i ceil((k-1) k^(2i-2) / c_i) + 2h - 1. Erratum: the formula holds only with effective
 *    capacities c_(i+1) <= k c_i (a branch cannot be fed faster); stepnet uses
 *    c_eff,i = min(c_i, k c_eff,(i-1)). The thesis leaves the choice of senders to a report we do
 *    not have; stepnet's schedule: within a top, child subtree a sends to subtree a + s (s the
 *    same for all a in a step), c messages per step, their positions spread by base-k digit
 *    reversal so that no lower branch gets more than its capacity; routers never queue. */
#include "core/algo/algos.h"
#include "core/algo/engine/fattree.h"

static uint64_t count_all(const sn_ft_plan_t *pl, uint32_t leaf)
{
    (void) leaf;
    return pl->n - 1;
}

/* Fig. 6.8: message j goes to the j-th leaf of the furthest-first order, in step j + 1. */
static void inject_sp(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t j, uint64_t *slot,
                      sn_packet_t *pkt)
{
    *slot = j + 1;
    *pkt = sn_packet_data(pl->p, leaf, sn__ft_ff_at(pl, leaf, j), 0, 0);
}

/* Base-k digit reversal of x on `digits` digits. */
static uint64_t rev(uint64_t x, uint32_t k, uint32_t digits)
{
    uint64_t r = 0;
    for (uint32_t i = 0; i < digits; i++) {
        r = r * k + x % k;
        x /= k;
    }
    return r;
}

/* Fig. 6.11 as scheduled by stepnet: in phase p (top level L, m = k^(L-1) leaves per child
 * subtree, c = c_eff,L), list entry idx = ((s-1) m + r) m + pos of child subtree a goes from the
 * leaf rev(pos) of a to the leaf rev((pos + r) mod m) of a + s, in step S_p + 1 + idx / c. */
static void inject_mp(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t i, uint64_t *slot,
                      sn_packet_t *pkt)
{
    uint32_t k = pl->k, ph = 0;
    while (i >= (k - 1) * pl->pw[pl->h - ph - 1]) { /* phase ph sends (k-1) m messages */
        i -= (k - 1) * pl->pw[pl->h - ph - 1];
        ph++;
    }
    uint32_t L = pl->h - ph, c = pl->ceff[L];
    uint64_t m = pl->pw[L - 1], base = leaf / pl->pw[L] * pl->pw[L];
    uint64_t a = leaf / m % k, pos = rev(leaf % m, k, L - 1);
    uint64_t s = i / m + 1, r = i % m;
    uint64_t idx = ((s - 1) * m + r) * m + pos;
    uint64_t dst = base + (a + s) % k * m + rev((pos + r) % m, k, L - 1);
    *slot = pl->start[ph] + 1 + idx / c;
    *pkt = sn_packet_data(pl->p, leaf, (uint32_t) dst, 0, 0);
}

static int applies_te(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "te-fattree", err);
}

static int applies_serial(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    return sn__ft_applies(t, p, "te-fattree-serial", err);
}

/* Single-port: max over l of X_l + 2l - 1 (see above). */
static int64_t sp_time(const sn_ft_plan_t *pl)
{
    int64_t best = 0, n = pl->n, k = pl->k;
    for (uint32_t l = 1; l <= pl->h; l++) {
        int64_t kl = (int64_t) pl->pw[l], x;
        if (l < pl->h)
            x = 2 * kl * (n - kl) + (k - 1) * kl * kl / k;
        else
            x = n * (n - n / k);
        if (x + 2 * (int64_t) l - 1 > best)
            best = x + 2 * (int64_t) l - 1;
    }
    return best;
}

static int plan_with(const sn_topo_t *t, const sn_params_t *p, int serial, void **out)
{
    sn_ft_plan_t *pl = sn__ft_plan_alloc(t, p);
    pl->rule = SN_FT_ROUTE;
    pl->disc = SN_FT_SP_TE;
    if (p->pm.ports == SN_PORTS_SINGLE) {
        pl->count = count_all;
        pl->inject = inject_sp;
        pl->predicted = sp_time(pl);
        *out = pl;
        return 0;
    }
    pl->count = count_all;
    pl->inject = inject_mp;
    uint64_t s = 0;
    for (uint32_t ph = 0; ph < pl->h; ph++) {
        uint32_t L = pl->h - ph;
        uint64_t m = pl->pw[L - 1], c = pl->ceff[L];
        uint64_t q = ((pl->k - 1) * m * m + c - 1) / c;
        pl->start[ph] = s;
        pl->predicted = (int64_t) (s + q + 2 * L - 1);
        s += serial ? q + 2 * L - 1 : q + 2;
    }
    *out = pl;
    return 0;
}

static int plan_te(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    (void) err;
    return plan_with(t, p, 0, out);
}

static int plan_serial(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    (void) err;
    return plan_with(t, p, 1, out);
}

const sn_algo_t sn__algo_te_fattree = {
    .name = "te-fattree",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE_ANY,
    .topos = "fattree",
    .summary = "fat tree: up first, then down (single-port); phases per level, pipelined "
               "(multiport)",
    .source = "Dimakopoulos, thesis, section 6.2.4, Fig. 6.8, Theorems 6.6, 6.8; section 6.3.3, "
              "Fig. 6.11, (6.5)",
    .predicts = "max_l X_l + 2l - 1 single-port (corrected Theorem 6.6); (6.5) with effective "
                "capacities multiport",
    .applies = applies_te,
    .plan_new = plan_te,
    SN__FT_ALGO_FIELDS,
};

const sn_algo_t sn__algo_te_fattree_serial = {
    .name = "te-fattree-serial",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "fattree",
    .summary = "fat tree: phases per level, one after the other (multiport)",
    .source = "Dimakopoulos, thesis, section 6.3.3, Fig. 6.11",
    .predicts = "sum_i ceil((k-1) k^(2i-2) / c_i) + h^2 (effective capacities)",
    .applies = applies_serial,
    .plan_new = plan_serial,
    SN__FT_ALGO_FIELDS,
};
