/* bcast-edst: multiport broadcast of M packets on the hypercube Q_d over d edge-disjoint spanning
 * binomial trees, and on the folded cube FQ_d over d+1, by a timetable that the nodes replay
 * (core/algo).
 *
 * Source: Johnsson and Ho, hypercube broadcasting paper: the edge-disjoint spanning binomial trees
 * (ESBT) and the broadcast that deals the packets round-robin over them. The folded cube's trees
 * are stepnet's extension of them (below). */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

/* Tree j of the ESBT, in coordinates relative to the root (c = node XOR root): a node c with bit
 * j set hangs off c with its nearest set bit cyclically below j cleared (j-1, j-2, ..., wrapping
 * round; the root when c = 2^j), so the nodes with bit j set form a spanning binomial tree of
 * their subcube below 2^j; a node with bit j clear is a leaf below c XOR 2^j. An upward arc
 * (bit k set at its head) belongs to the one tree j whose bit is the first set bit of the head
 * cyclically above k, a downward arc of dimension k to tree k alone: the d trees are
 * arc-disjoint, and each is of height d + 1 for d >= 2 (the leaf whose bits are all set but j;
 * on Q_1 the one tree is the one link).
 *
 * The folded cube (stepnet's extension): FQ_d is the Cayley graph of Z_2^d with the d + 1
 * generators g_0 = e_0, ..., g_{d-1} = e_{d-1} and g_d = 1...1 (port k is g_k), which sum to
 * zero, so a node c is the sum of exactly two sets of generators, S and its complement in
 * {0, ..., d}; exactly one of them holds j. Tree j takes, for every node, the set S that holds j
 * and is the ESBT's binomial part on d + 1 bits: the root sends to g_j, and a node S != {j}
 * hangs off S with its nearest element cyclically below j removed (generator k). The root is the
 * full set, which has no children in that tree, so it is left out. An arc (node S - {k},
 * generator k) lies in tree j only if j is the element of S next above k, one tree for each arc;
 * and no arc leaves the root but the d + 1 arcs of generator j to g_j: the d + 1 trees are
 * arc-disjoint, each of height d (a set of d elements). One packet takes the shortest-path tree
 * (each node its smaller set, the parent without the highest element), ceil(d/2) slots.
 *
 * Packet x travels tree x mod m (m = d trees on Q_d, d + 1 on FQ_d) as the (x / m)-th of that
 * tree, pipelined: a node at depth h receives it in slot x / m + h, so the broadcast takes
 * ceil(M/d) + d slots on Q_d, d >= 2, against the lower bound ceil(M/d) + d - 1 (the last
 * packets leave the root in slot ceil(M/d) at the earliest and one of them must cross d - 1 more
 * links), and ceil(M/(d+1)) + d - 1 on FQ_d against ceil(M/(d+1)) + ceil(d/2) - 1. Full duplex
 * only: every link carries one tree's packets one way while another tree's go the other, in the
 * same slots, so half duplex would halve the rate (the algorithm refuses it rather than play a
 * different schedule). One packet (M = 1) on Q_d takes the binomial tree of height d instead (a
 * node's parent clears its highest set bit), bcast-binomial's d slots; from M = 2 on the d trees
 * are never slower than it, M + d - 1. */

#define MAX_WORK (1u << 22) /* nodes x packets the planner handles */

static int bcast_edst_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (t->kind != SN_TOPO_HYPERCUBE && t->kind != SN_TOPO_FOLDEDCUBE)
        return sn_err_set(err, SN_ENOTSUP,
                          "bcast-edst needs a hypercube or a folded cube (hypercube:D, "
                          "foldedcube:D), not %s",
                          t->spec);
    return sn_tt_applies_upto(t, p, "bcast-edst", MAX_WORK, err);
}

/* The dimension that links c != 0 to its parent in tree j of the ESBT (see above), and its
 * depth in *depth. */
static uint32_t esbt_parent_dim(uint32_t d, uint32_t j, uint32_t c, uint32_t *depth)
{
    uint32_t pop = (uint32_t) __builtin_popcount(c);
    if (!(c & (1u << j))) {
        *depth = pop + 2;
        return j;
    }
    *depth = pop;
    for (uint32_t i = 1; i < d; i++) {
        uint32_t k = (j + d - i) % d;
        if (c & (1u << k))
            return k;
    }
    return j; /* c = 2^j: the root's child */
}

/* The dimension that links c != 0 to its parent in the binomial tree (its highest set bit). */
static uint32_t binomial_parent_dim(uint32_t c, uint32_t *depth)
{
    *depth = (uint32_t) __builtin_popcount(c);
    return 31u - (uint32_t) __builtin_clz(c);
}

/* The generator that links c != 0 to its parent in tree j of the folded cube's d + 1 trees (see
 * above), and its depth in *depth. */
static uint32_t fold_parent_gen(uint32_t d, uint32_t j, uint32_t c, uint32_t *depth)
{
    uint32_t D = d + 1, full = (1u << D) - 1, S = c >> j & 1 ? c : c ^ full; /* j = d: c ^ full */
    *depth = (uint32_t) __builtin_popcount(S);
    for (uint32_t i = 1; i < D; i++) {
        uint32_t k = (j + D - i) % D;
        if (S & (1u << k))
            return k;
    }
    return j; /* S = {j}: the root's child */
}

/* The generator that links c != 0 to its parent in the folded cube's shortest-path tree: c's
 * smaller set of generators without its highest element. */
static uint32_t fold_short_parent_gen(uint32_t d, uint32_t c, uint32_t *depth)
{
    uint32_t full = (1u << (d + 1)) - 1, S = c;
    if ((uint32_t) __builtin_popcount(c ^ full) < (uint32_t) __builtin_popcount(c))
        S = c ^ full;
    *depth = (uint32_t) __builtin_popcount(S);
    return 31u - (uint32_t) __builtin_clz(S);
}

static int bcast_edst_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = bcast_edst_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t d = t->a, n = t->n, M = p->msgs * p->frags, root = p->root;
    int fold = t->kind == SN_TOPO_FOLDEDCUBE;
    uint32_t trees = M == 1 ? 1 : fold ? d + 1 : d;
    uint32_t *dim = sn_xmalloc((size_t) n * trees * sizeof *dim);
    uint32_t *dep = sn_xmalloc((size_t) n * trees * sizeof *dep);
    uint32_t T = 0;
    for (uint32_t j = 0; j < trees; j++)
        for (uint32_t c = 1; c < n; c++) {
            size_t i = (size_t) j * n + c;
            if (fold)
                dim[i] = M == 1 ? fold_short_parent_gen(d, c, &dep[i])
                                : fold_parent_gen(d, j, c, &dep[i]);
            else
                dim[i] =
                    M == 1 ? binomial_parent_dim(c, &dep[i]) : esbt_parent_dim(d, j, c, &dep[i]);
            if (j < M && (M - 1 - j) / trees + dep[i] > T)
                T = (M - 1 - j) / trees + dep[i]; /* the last packet of tree j */
        }
    /* The timetable wants each sender's transmissions in slot order: the (receiver, packet)
     * pairs are sorted by slot with one counting pass. */
    size_t nev = (size_t) (n - 1) * M;
    size_t *at = sn_xcalloc((size_t) T + 2, sizeof *at);
    for (uint32_t x = 0; x < M; x++)
        for (uint32_t c = 1; c < n; c++)
            at[x / trees + dep[(size_t) (x % trees) * n + c] + 1]++;
    for (uint32_t s = 0; s <= T; s++)
        at[s + 1] += at[s];
    uint32_t *to_c = sn_xmalloc((nev + 1) * sizeof *to_c),
             *pk_x = sn_xmalloc((nev + 1) * sizeof *pk_x);
    for (uint32_t x = 0; x < M; x++)
        for (uint32_t c = 1; c < n; c++) {
            size_t i = at[x / trees + dep[(size_t) (x % trees) * n + c]]++;
            to_c[i] = c;
            pk_x[i] = x;
        }
    sn_tt_list_t l = {0};
    for (size_t i = 0; i < nev; i++) {
        uint32_t c = to_c[i], x = pk_x[i], j = x % trees, q = dim[(size_t) j * n + c];
        uint32_t slot = x / trees + dep[(size_t) j * n + c], g = q < d ? 1u << q : n - 1;
        sn_tt_add(&l, slot, root ^ c ^ g, q, root ^ c, x);
    }
    *out = sn_tt_plan_new("bcast-edst", t, p, 0, T, &l);
    sn_tt_list_free(&l);
    free(dim);
    free(dep);
    free(at);
    free(to_c);
    free(pk_x);
    return 0;
}

const sn_algo_t sn__algo_bcast_edst = {
    .name = "bcast-edst",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI,
    .topos = "hypercube, foldedcube",
    .summary = "d (folded cube: d+1) edge-disjoint spanning trees, packets dealt round-robin, "
               "pipelined",
    .source = "Johnsson and Ho, hypercube broadcasting paper: the ESBT broadcast; the folded "
              "cube's d+1 trees are stepnet's extension",
    .predicts = "the timetable's length: ceil(packets/d) + d (d >= 2; folded cube ceil(packets/"
                "(d+1)) + d - 1), the shortest-path tree's for one packet",
    .applies = bcast_edst_applies,
    .plan_new = bcast_edst_plan_new,
    SN_TT_REPLAY_FIELDS,
};
