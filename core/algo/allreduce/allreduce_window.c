/* allreduce-window: allreduce on rings, linear arrays and their products (tori, meshes), one
 * dimension after the other, each node's partial spreading both ways as growing windows, in the
 * multiport model (core/algo).
 *
 * On a ring of k nodes node c sends to c + 1 in step s the combination of c - s + 1 .. c (its own
 * and what c - 1 sent it in step s - 1), and to c - 1 that of c .. c + s - 1, so that after step
 * s it holds the windows c - s .. c - 1 and c + 1 .. c + s; the right-going windows stop at
 * floor(k / 2) nodes and the left-going ones at k - 1 - floor(k / 2), and the two windows and
 * its own value cover the ring once: floor(k / 2) steps, the ring's diameter. On a linear array
 * node c takes the c nodes on its left and the k - 1 - c on its right the same way: k - 1 steps,
 * the diameter. This is the bidirectional form of the ring accumulation (Bertsekas and
 * Tsitsiklis, Parallel and Distributed Computation, section 1.3, single-node accumulation and
 * its duals on rings and linear arrays, each node the root of its own). On a product the
 * dimensions follow one another (after dimension i a node holds the combination over every node
 * that differs from it in dimensions 0 .. i only, each once), so one value takes the sum of the
 * factors' diameters, the product's diameter: torus:8x8 8 slots, where the tree takes 16. Every
 * link carries a window of one value per slot, so M = msgs * frags values take their turns in
 * each dimension, value m entering dimension i once it is done with dimension i - 1 and value
 * m - 1 is done with dimension i: it is for few values (one, mostly), where the latency counts.
 * Both ends of an edge send on it in the same slot, which needs multiport and full duplex; where
 * a link carries one direction at a time (single-port, half duplex) the windows go one way round
 * a ring (node c sends c + 1 the window c - s + 1 .. c up to k - 1 nodes: k - 1 steps) and along
 * a line first right then left (2 (k - 1)); single-port the values and dimensions take their
 * turns one at a time (a node sends once per slot). torus:8x8 single-port: 14, the tree 16. The
 * schedule is played by the schedule player (engine/schedule_replay.h), every combination formed
 * from what the node holds; predicted = its last slot. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

typedef struct {
    uint32_t nd;                        /* dimensions of two nodes or more */
    uint32_t fac[SN_TOPO_MAX_FACTORS];  /* [nd] the factor of each */
    uint32_t side[SN_TOPO_MAX_FACTORS]; /* [nd] its nodes */
    uint8_t ring[SN_TOPO_MAX_FACTORS];  /* [nd] 1: the cycle 0 .. k-1; 0: the path */
    int one_way; /* single-port or half duplex: a link carries one direction at a time */
} dims_t;

/* The port of u to v, or UINT32_MAX. */
static uint32_t port_to(const sn_topo_t *t, uint32_t u, uint32_t v)
{
    for (uint32_t i = 0; i < sn_topo_degree(t, u); i++)
        if (sn_topo_port(t, u, i)->peer == v)
            return i;
    return UINT32_MAX;
}

/* The dimensions of t: every factor (t itself when it has none) must hold the path 0, 1, ..,
 * k - 1 (a ring when it also holds the edge k - 1 - 0 and k >= 3), or SN_ENOTSUP. */
static int window_dims(const sn_topo_t *t, const sn_params_t *p, dims_t *d, sn_err_t *err)
{
    d->one_way = p->pm.ports == SN_PORTS_SINGLE || p->pm.duplex == SN_DUPLEX_HALF;
    if (t->is_router || t->nproc != t->n)
        return sn_err_set(err, SN_ENOTSUP,
                          "allreduce-window needs a topology without routers, not %s", t->spec);
    uint32_t nf = t->nfactors ? t->nfactors : 1;
    d->nd = 0;
    for (uint32_t i = 0; i < nf; i++) {
        const sn_topo_t *f = t->nfactors ? t->factors[i] : t;
        for (uint32_t c = 0; c + 1 < f->n; c++)
            if (port_to(f, c, c + 1) == UINT32_MAX)
                return sn_err_set(err, SN_ENOTSUP,
                                  "allreduce-window needs rings, linear arrays and their "
                                  "products (torus, mesh): %s%s%s has no edge %u-%u",
                                  f->spec, f == t ? "" : " of ", f == t ? "" : t->spec, c, c + 1);
        if (f->n < 2)
            continue;
        d->fac[d->nd] = i;
        d->side[d->nd] = f->n;
        d->ring[d->nd++] = f->n >= 3 && port_to(f, f->n - 1, 0) != UINT32_MAX;
    }
    if (d->nd == 0)
        return sn_err_set(err, SN_ENOTSUP, "%s has one processor: nothing to combine", t->spec);
    return 0;
}

static int window_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    dims_t d;
    return window_dims(t, p, &d, err);
}

/* The window of node coordinate c in a dimension of k nodes: how many nodes on its left (lo)
 * and on its right (hi) it gathers. */
static void window(const dims_t *d, uint32_t i, uint32_t c, uint32_t *lo, uint32_t *hi)
{
    uint32_t k = d->side[i];
    if (d->ring[i] && d->one_way) {
        *lo = k - 1;
        *hi = 0;
    } else if (d->ring[i]) {
        *lo = k / 2;
        *hi = k - 1 - k / 2;
    } else {
        *lo = c;
        *hi = k - 1 - c;
    }
}

/* The steps of dimension i: the widest window. */
static uint32_t dim_steps(const dims_t *d, uint32_t i)
{
    uint32_t k = d->side[i];
    if (d->one_way)
        return d->ring[i] ? k - 1 : 2 * (k - 1);
    return d->ring[i] ? k / 2 : k - 1;
}

/* The processors whose contributions u's window [c - left, c + right] of dimension i covers
 * once dimensions 0 .. i - 1 are done (every coordinate of those, u's of the later ones), in
 * ascending order, into ops; returns how many. */
static size_t window_ops(const sn_topo_t *t, const dims_t *d, uint32_t i, uint32_t u, uint32_t left,
                         uint32_t right, uint32_t *ops)
{
    uint32_t f = d->fac[i], k = d->side[i], c = sn_topo_coord(t, u, f);
    size_t n = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        int same = 1;
        for (uint32_t j = i + 1; j < d->nd && same; j++)
            same = sn_topo_coord(t, v, d->fac[j]) == sn_topo_coord(t, u, d->fac[j]);
        if (!same)
            continue;
        uint32_t cv = sn_topo_coord(t, v, f);
        uint32_t ahead = (cv + k - c) % k, behind = (c + k - cv) % k; /* ring distances */
        if (!d->ring[i]) {
            ahead = cv >= c ? cv - c : k;
            behind = cv <= c ? c - cv : k;
        }
        if (ahead <= right || behind <= left)
            ops[n++] = v;
    }
    return n;
}

/* The operands the schedule lists, bounded before anything is built: every node sends in each
 * dimension at most two windows per step, of at most (steps) x (the earlier dimensions' nodes)
 * processors each. */
static uint64_t operands_bound(const sn_topo_t *t, const dims_t *d, uint64_t M)
{
    uint64_t total = 0, before = 1;
    for (uint32_t i = 0; i < d->nd; i++) {
        uint64_t D = dim_steps(d, i);
        total += (uint64_t) t->n * M * before * D * (D + 1);
        before *= d->side[i];
    }
    return total;
}

static int window_plan_new(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    dims_t d;
    int rc = window_dims(t, p, &d, err);
    if (rc < 0)
        return rc;
    uint64_t M = (uint64_t) p->msgs * p->frags;
    uint64_t bound = operands_bound(t, &d, M);
    if (bound > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "allreduce-window would list up to %llu operands (%llu values on %s), "
                          "more than the %u this implementation keeps",
                          (unsigned long long) bound, (unsigned long long) M, t->spec,
                          SN_REVERSE_MAX_OPERANDS);
    sn__combo_t c = {0};
    uint32_t *ops = sn_xmalloc(t->n * sizeof *ops);
    /* value m's turn in dimension i: the slots start + 1 .. start + steps */
    uint64_t prev[SN_TOPO_MAX_FACTORS] = {0}; /* the slot the previous value left dimension i */
    uint64_t last = 0;                        /* the last slot of every turn so far */
    int single = p->pm.ports == SN_PORTS_SINGLE;
    for (uint64_t m = 0; m < M; m++) {
        sn_packet_t pkt = {.src = SN_SRC_COMBINED,
                           .dst = SN_NODE_ALL,
                           .seq = (uint32_t) (m / p->frags),
                           .frag = (uint16_t) (m % p->frags),
                           .kind = SN_PKT_DATA};
        uint64_t done = 0; /* the slot value m left the previous dimension */
        for (uint32_t i = 0; i < d.nd; i++) {
            uint64_t start = done > prev[i] ? done : prev[i];
            if (single && last > start) /* one send per node and slot: one turn at a time */
                start = last;
            uint32_t f = d.fac[i], k = d.side[i];
            for (uint32_t u = 0; u < t->n; u++) {
                uint32_t cu = sn_topo_coord(t, u, f);
                /* to c + 1: the window c - s + 1 .. c, which c + 1 takes while it needs s on
                 * its left; to c - 1 the mirror */
                for (int dir = 0; dir < 2; dir++) {
                    if (!d.ring[i] && (dir == 0 ? cu + 1 >= k : cu == 0))
                        continue;
                    uint32_t cv = dir == 0 ? (cu + 1) % k : (cu + k - 1) % k;
                    uint32_t v = sn_topo_with_coord(t, u, f, cv), lo, hi;
                    window(&d, i, cv, &lo, &hi);
                    uint32_t need = dir == 0 ? lo : hi, port = port_to(t, u, v);
                    for (uint32_t s = 1; s <= need; s++) {
                        size_t n = dir == 0 ? window_ops(t, &d, i, u, s - 1, 0, ops)
                                            : window_ops(t, &d, i, u, 0, s - 1, ops);
                        /* one way: the left-going windows of a line after the right-going */
                        uint64_t at = start + s + (d.one_way && dir == 1 ? k - 1 : 0);
                        sn__combo_add(&c, at, u, port, &pkt, ops, n);
                    }
                }
            }
            done = start + dim_steps(&d, i);
            prev[i] = done;
            last = done > last ? done : last;
        }
    }
    free(ops);
    return sn__combo_plan(t, p, &c, plan, err);
}

const sn_algo_t sn__algo_allreduce_window = {
    .name = "allreduce-window",
    .coll = SN_COLL_ALLREDUCE,
    .pm_mask = SN_PM_ALL,
    .topos = "ring, linear, torus, mesh and their products",
    .summary = "one dimension after the other, every partial spreading both ways along its ring "
               "or line as growing windows",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(accumulation on rings and linear arrays), every node a root",
    .predicts = "the sum over the dimensions of floor(k/2) (ring) or k - 1 (line) for one value, "
                "the diameter, multiport full duplex; k - 1 and 2 (k - 1) one way; the values "
                "in turns",
    .applies = window_applies,
    .plan_new = window_plan_new,
    SN__SCHEDULE_REPLAY_FIELDS,
    .parallel = 1,
};
