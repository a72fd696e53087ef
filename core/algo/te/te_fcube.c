/* te-fcube and te-fcube-greedy: total exchange on the folded cube FQ_d by symmetric switching
 * from a task matrix (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 4: every node sends the packet for s xor u along
 * a shortest route whose links (its routing tag) depend only on u; the task matrix T_0 has one row
 * per u != 0 and one column per link dimension 0..d; Lemma 2 (Hall's theorem) writes it as a sum
 * of h permutation matrices S_1..S_h, h = its critical sum (the largest row or column sum), and in
 * slot k every node sends, for each 1 at (u, j) of S_k, the packet it holds for row u over
 * dimension j. Every node holds one packet per row at every instant, so the schedule is the same
 * at every node and the total exchange takes h slots, eq. (7): 2^(d-1) - C(d, ceil(d/2))/2.
 *
 * Routing tags: |u| < d/2 uses the 1-bits of u; |u| > d/2 + 1/2 the complementary link and the
 * 1-bits of ~u; for even d, |u| = d/2 goes direct; for odd d the C(d, (d+1)/2) rows of weight
 * (d+1)/2 have two routes of equal length and the paper splits them "into two disjoint sets of
 * equal cardinality", which balances the columns only if the split is made with care: stepnet
 * splits whole orbits under cyclic rotation of the d bits (each has d members and loads every bit
 * dimension alike) and takes the number of complemented orbits that minimises the critical sum.
 * Erratum: when C(d, (d+1)/2) is odd (d = 3, 7, 15, ...), eq. (7) is not an integer (2.5, 46.5)
 * and no schedule meets it; the critical sum is then ceil(eq. (7)) (3, 47), optimal by the
 * counting bound (total distance over the N(d+1) directed links).
 *
 * The decomposition is a Konig edge colouring of the bipartite graph rows x columns with h colours
 * (alternating-path recolouring). te-fcube-greedy instead builds each slot as a maximal matching
 * of rows and links, rows in order of u (the paper's greedy scheme: no link idle while a packet
 * that wants it waits, within T_TE + d - 1 slots; a tighter bound is ceil(T_TE) + ceil(d/2) - 1,
 * since the edge (u, j) is scheduled by slot r_u + c_j - 1). All-port.
 *
 * M = msgs * frags packets per pair: the h-slot rounds follow each other, except that where eq. (7)
 * is not an integer te-fcube schedules the packets two at a time: the second packet of a pair
 * complements a different number of weight-(d+1)/2 orbits, chosen so that the two copies of the
 * task matrix together load every column with exactly 2 eq. (7), and one Konig colouring of both
 * copies takes that many slots. So M packets take M eq. (7) slots, rounded up once (an odd M ends
 * with one single round), not M ceil(eq. (7)): foldedcube:7, M = 2 in 93 slots, not 94. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "core/algo/engine/konig.h"
#include "stepnet/util.h"

typedef struct {
    uint32_t row, port, mask; /* row u, link; mask: XOR of the row's earlier links */
    uint32_t last;            /* this link completes the row: the receiver delivers */
    uint32_t copy;            /* in a pair's schedule: the pair's first (0) or second (1) packet */
} entry_t;

/* One symmetric schedule: its slots, and the entries of each slot. */
typedef struct {
    uint32_t h;
    uint32_t *off; /* [h+1]: slot k's entries are ent[off[k] .. off[k+1]-1] */
    entry_t *ent;
} sched_t;

typedef struct {
    const sn_params_t *p;
    uint32_t d, n, npk;
    uint32_t pairs; /* packets scheduled two at a time: the first 2 pairs packets */
    sched_t one;    /* one packet per pair of nodes */
    sched_t two;    /* two packets per pair of nodes (pairs > 0 only) */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
} state_t;

static uint32_t rotl_d(uint32_t x, uint32_t d)
{
    return ((x << 1) | (x >> (d - 1))) & ((1u << d) - 1);
}

static uint32_t orbit_rep(uint32_t u, uint32_t d)
{
    uint32_t m = u, x = u;
    for (uint32_t r = 1; r < d; r++) {
        x = rotl_d(x, d);
        if (x < m)
            m = x;
    }
    return m;
}

/* tags[u] (bit d = complementary link) for every row u: the weight-(d+1)/2 rows (odd d) of the
 * first `complemented` orbits, in order of their smallest member, take the complementary route. */
static void make_tags(uint32_t d, uint32_t complemented, uint32_t *tags)
{
    uint32_t n = 1u << d, all = n - 1, w = (d + 1) / 2;
    for (uint32_t u = 1; u < n; u++) {
        uint32_t h = (uint32_t) __builtin_popcount(u);
        tags[u] = (2 * h <= d) ? u : ((1u << d) | (u ^ all));
    }
    if (d % 2 == 0)
        return;
    /* the orbits' representatives (their smallest member) in increasing order */
    uint32_t *reps = sn_xmalloc(n * sizeof *reps), nreps = 0;
    for (uint32_t u = 1; u < n; u++)
        if ((uint32_t) __builtin_popcount(u) == w && orbit_rep(u, d) == u)
            reps[nreps++] = u;
    for (uint32_t u = 1; u < n; u++) {
        if ((uint32_t) __builtin_popcount(u) != w)
            continue;
        uint32_t m = orbit_rep(u, d), idx = 0;
        while (reps[idx] != m)
            idx++;
        tags[u] = idx < complemented ? ((1u << d) | (u ^ all)) : u;
    }
    free(reps);
}

/* The number of complemented orbits (odd d): `one`, the smallest with the smallest critical sum
 * for one packet; `two`, the second packet's when two packets are scheduled together so that the
 * pair loads every column with exactly 2 eq. (7) = 2^d - C(d, (d+1)/2) (possible when that is odd,
 * the case where one packet cannot meet eq. (7)), else `one`. An orbit (d members) puts w ones in
 * each bit column when direct, w - 1 when complemented, and d ones in the complementary column
 * when complemented. */
static void orbit_split(uint32_t d, uint32_t *one, uint32_t *two)
{
    *one = *two = 0;
    if (d % 2 == 0)
        return;
    uint32_t n = 1u << d, w = (d + 1) / 2;
    uint64_t base_e = 0, base_c = 0, nw = 0; /* column sums without the weight-w rows */
    for (uint32_t u = 1; u < n; u++) {
        uint32_t h = (uint32_t) __builtin_popcount(u);
        if (h == w) {
            nw++;
            continue;
        }
        uint32_t tag = 2 * h <= d ? u : ((1u << d) | (u ^ (n - 1)));
        base_c += tag >> d;
        base_e += tag & 1; /* by symmetry every bit column has the same sum */
    }
    uint32_t nreps = (uint32_t) (nw / d);
    uint64_t best = UINT64_MAX;
    for (uint32_t x = 0; x <= nreps; x++) {
        uint64_t ce = base_e + (uint64_t) (nreps - x) * w + (uint64_t) x * (w - 1);
        uint64_t cc = base_c + (uint64_t) x * d;
        uint64_t m = ce > cc ? ce : cc;
        if (m < best) {
            best = m;
            *one = x;
        }
    }
    *two = *one;
    uint64_t twice = (uint64_t) n - nw; /* 2 eq. (7) */
    if (twice % 2 == 0)
        return;
    /* both copies' bit columns: 2 base_e + 2 nreps w - X with X complemented orbits in all */
    uint64_t X = 2 * base_e + 2 * (uint64_t) nreps * w - twice;
    if (X >= *one && X - *one <= nreps)
        *two = (uint32_t) (X - *one);
}

static int te_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__fcube_get(t, &d, "te-fcube", err);
}

/* The greedy symmetric scheme: slot by slot, rows in order of u, each row's lowest link not yet
 * used in the slot (a maximal matching per slot). Colours the ne links of the task matrix (row
 * eu[e], column ej[e]) with their slots; returns the number of slots. */
static uint32_t greedy_colour(uint32_t n, const uint32_t *tags, const uint32_t *eu,
                              const uint32_t *ej, uint32_t *colour, size_t ne)
{
    size_t e;
    uint32_t *left = sn_xcalloc(n, sizeof *left), *order = sn_xmalloc(n * sizeof *order);
    uint32_t *first = sn_xcalloc((size_t) n + 1, sizeof *first);
    uint8_t *done = sn_xcalloc(ne, 1);
    for (e = 0; e < ne; e++)
        left[eu[e]]++;
    for (uint32_t u = 1; u < n; u++)
        first[u + 1] = first[u] + (uint32_t) __builtin_popcount(tags[u]);
    size_t remaining = ne;
    uint32_t slot = 0;
    while (remaining > 0) {
        uint32_t m = 0;
        for (uint32_t u = 1; u < n; u++)
            if (left[u])
                order[m++] = u;
        uint32_t busy = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t u = order[i];
            for (uint32_t x = first[u]; x < first[u + 1]; x++) {
                if (done[x] || ((busy >> ej[x]) & 1))
                    continue;
                done[x] = 1;
                colour[x] = slot;
                busy |= 1u << ej[x];
                left[u]--;
                remaining--;
                break;
            }
        }
        slot++;
    }
    free(left);
    free(order);
    free(first);
    free(done);
    return slot;
}

/* The schedule's entries slot by slot (off[h+1], ent): each link of the task matrix in its
 * colour's slot, with the mask of the row's links used before it and whether it is the row's
 * last. Row r of the graph is copy r / n of the matrix, row u = r mod n. */
static void fill_entries(sched_t *sc, uint32_t d, uint32_t n, const uint32_t *eu,
                         const uint32_t *ej, const uint32_t *colour, size_t ne)
{
    uint32_t h = sc->h;
    size_t e;
    sc->off = sn_xcalloc((size_t) h + 1, sizeof *sc->off);
    sc->ent = sn_xmalloc(ne * sizeof *sc->ent);
    for (e = 0; e < ne; e++)
        sc->off[colour[e] + 1]++;
    for (uint32_t k = 0; k < h; k++)
        sc->off[k + 1] += sc->off[k];
    uint32_t *fill = sn_xmalloc(((size_t) h + 1) * sizeof *fill);
    memcpy(fill, sc->off, ((size_t) h + 1) * sizeof *fill);
    /* entries in slot order within each row: mask = the links of the row used before */
    for (e = 0; e < ne;) {
        size_t end = e;
        while (end < ne && eu[end] == eu[e])
            end++;
        for (size_t x = e; x < end; x++) {
            uint32_t mask = 0, later = 0;
            for (size_t y = e; y < end; y++) {
                if (colour[y] < colour[x])
                    mask ^= ej[y] == d ? n - 1 : 1u << ej[y];
                else if (colour[y] > colour[x])
                    later = 1;
            }
            sc->ent[fill[colour[x]]++] = (entry_t){eu[x] % n, ej[x], mask, !later, eu[x] / n};
        }
        e = end;
    }
    free(fill);
}

/* The symmetric schedule of `copies` (1 or 2) packets per pair of nodes, copy c routed with
 * complemented[c] complemented orbits: the task matrices stacked (rows c n + u) and coloured with
 * their critical sum (Konig), or slot by slot by the greedy scheme (one copy). */
static void build_sched(uint32_t d, uint32_t copies, const uint32_t *complemented, int greedy,
                        sched_t *sc)
{
    uint32_t n = 1u << d, cols = d + 1, rows = copies * n;
    uint32_t *tags = sn_xcalloc(rows, sizeof *tags);
    size_t ne = 0;
    for (uint32_t c = 0; c < copies; c++) {
        make_tags(d, complemented[c], tags + (size_t) c * n);
        for (uint32_t u = 1; u < n; u++)
            ne += (size_t) __builtin_popcount(tags[(size_t) c * n + u]);
    }
    uint32_t *eu = sn_xmalloc(ne * sizeof *eu), *ej = sn_xmalloc(ne * sizeof *ej);
    uint32_t *colour = sn_xmalloc(ne * sizeof *colour);
    uint32_t *colsum = sn_xcalloc(cols, sizeof *colsum), h = 0;
    size_t e = 0;
    for (uint32_t r = 0; r < rows; r++) {
        if (r % n == 0) /* u = 0: no packet */
            continue;
        uint32_t rs = 0;
        for (uint32_t j = 0; j <= d; j++)
            if ((tags[r] >> j) & 1) {
                eu[e] = r;
                ej[e++] = j;
                colsum[j]++;
                rs++;
            }
        if (rs > h)
            h = rs;
    }
    for (uint32_t j = 0; j <= d; j++)
        if (colsum[j] > h)
            h = colsum[j];
    if (!greedy)
        sn__konig_colour(rows, cols, h, eu, ej, colour, ne);
    else
        h = greedy_colour(n, tags, eu, ej, colour, ne);
    sc->h = h;
    fill_entries(sc, d, n, eu, ej, colour, ne);
    free(tags);
    free(eu);
    free(ej);
    free(colour);
    free(colsum);
}

static int te_fcube_plan_build(const sn_topo_t *t, const sn_params_t *p, int greedy, void **out,
                               sn_err_t *err)
{
    uint32_t d;
    int rc = sn__fcube_get(t, &d, greedy ? "te-fcube-greedy" : "te-fcube", err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->p = p;
    pl->d = d;
    pl->n = 1u << d;
    pl->npk = p->msgs * p->frags;
    uint32_t split[2];
    orbit_split(d, &split[0], &split[1]);
    build_sched(d, 1, split, greedy, &pl->one);
    /* pairs only where they gain: two packets in 2 eq. (7) < 2 ceil(eq. (7)) slots */
    if (!greedy && pl->npk >= 2 && split[1] != split[0]) {
        build_sched(d, 2, split, 0, &pl->two);
        if (pl->two.h < 2 * pl->one.h) {
            pl->pairs = pl->npk / 2;
        } else {
            free(pl->two.off);
            free(pl->two.ent);
            pl->two = (sched_t){0, NULL, NULL};
        }
    }
    *out = pl;
    return 0;
}

static int te_fcube_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return te_fcube_plan_build(t, p, 0, out, err);
}

static int plan_new_greedy(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return te_fcube_plan_build(t, p, 1, out, err);
}

static void te_fcube_plan_free(void *plan)
{
    plan_t *pl = plan;
    free(pl->one.off);
    free(pl->one.ent);
    free(pl->two.off);
    free(pl->two.ent);
    free(pl);
}

/* The slots of the whole run: the pairs' rounds, then one round per remaining packet. */
static uint64_t total_slots(const plan_t *pl)
{
    return (uint64_t) pl->pairs * pl->two.h + (uint64_t) (pl->npk - 2 * pl->pairs) * pl->one.h;
}

static int64_t te_fcube_predicted(const void *plan)
{
    return (int64_t) total_slots(plan);
}

static int64_t predicted_none(const void *plan)
{
    (void) plan;
    return -1;
}

static int te_fcube_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    return 0;
}

static int te_fcube_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = s->pl;
    for (size_t i = 0; i < io->nrx; i++)
        if (io->rx[i].pkt.flags & SN__FC_DELIVER) {
            sn_packet_t k = io->rx[i].pkt;
            k.flags = 0;
            sn_step_deliver(io, &k);
        }
    uint64_t total = total_slots(pl), paired = (uint64_t) pl->pairs * pl->two.h;
    if (io->slot > total)
        return 0;
    /* the round this slot belongs to, its schedule, and the index of its (first) packet */
    const sched_t *sc = &pl->two;
    uint64_t k, first;
    if (io->slot <= paired) {
        k = (io->slot - 1) % pl->two.h;
        first = 2 * ((io->slot - 1) / pl->two.h);
    } else {
        sc = &pl->one;
        k = (io->slot - 1 - paired) % pl->one.h;
        first = 2 * (uint64_t) pl->pairs + (io->slot - 1 - paired) / pl->one.h;
    }
    uint32_t frags = pl->p->frags;
    for (uint32_t x = sc->off[k]; x < sc->off[k + 1]; x++) {
        const entry_t *en = &sc->ent[x];
        uint32_t origin = s->u ^ en->mask;
        uint64_t r = first + en->copy;
        sn_packet_t pk = sn_packet_data(pl->p, origin, origin ^ en->row, (uint32_t) (r / frags),
                                        (uint32_t) (r % frags));
        pk.flags = en->last ? SN__FC_DELIVER : 0;
        sn_step_send(io, en->port, &pk);
    }
    if (io->slot < total)
        io->wake = io->slot + 1;
    return 0;
}

const sn_algo_t sn__algo_te_fcube = {
    .name = "te-fcube",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "foldedcube",
    .summary = "symmetric switching: the task matrix split into permutations (Hall, Konig)",
    .source = "Varvarigos, folded-cube paper, section 4, Lemma 2, eq. (7)",
    .predicts = "ceil(msgs * frags * (2^(d-1) - C(d, ceil(d/2))/2)) (eq. 7 per packet, rounded "
                "up once: erratum)",
    .applies = te_fcube_applies,
    .plan_new = te_fcube_plan_new,
    .plan_free = te_fcube_plan_free,
    .predicted = te_fcube_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_fcube_node_init,
    .node_step = te_fcube_node_step,
};

const sn_algo_t sn__algo_te_fcube_greedy = {
    .name = "te-fcube-greedy",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "foldedcube",
    .summary = "symmetric greedy switching: a maximal matching of rows and links per slot",
    .source = "Varvarigos, folded-cube paper, section 4 (the greedy scheme)",
    .predicts = "none (at most T_TE + d - 1)",
    .applies = te_fcube_applies,
    .plan_new = plan_new_greedy,
    .plan_free = te_fcube_plan_free,
    .predicted = predicted_none,
    .state_size = sizeof(state_t),
    .node_init = te_fcube_node_init,
    .node_step = te_fcube_node_step,
};
