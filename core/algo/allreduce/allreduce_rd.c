/* allreduce-rd and barrier-rd: recursive doubling (dimension exchange) on the hypercube, the
 * folded cube's hypercube links and the complete graph of 2^d nodes (core/algo).
 *
 * In step i every node exchanges its partial value with its neighbour across dimension i and
 * combines the two; after d steps every node holds the combination of all 2^d contributions
 * (Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3, the hypercube's
 * dimension-by-dimension algorithms; Thakur, Rabenseifner and Gropp, "Optimization of Collective
 * Communication Operations in MPICH", IJHPCA 19(1), 2005, section 4: recursive doubling for
 * allreduce). Each node sends and receives one packet per step, so with one value it takes
 * d = log2 N slots in every full-duplex port model, which meets the single-port bound
 * ceil(log2 N) (the processors holding a contribution at most double per slot) and the multiport
 * diameter bound d. With M = msgs * frags values the multiport model plays them in groups of d,
 * one group after the other: in step j of its group, value k crosses dimension (k + j) mod d, so
 * the d values of a group use every dimension at once and each link carries one packet a slot
 * each way (d ceil(M/d) slots, never more than the M + d - 1 of pipelining every value through
 * the same order, and d for M <= d, the diameter: optimal there); single-port plays them one
 * after the other (d M slots). Any order of the dimensions gives every node the combination of
 * all, as long as both partners cross the same one for the same value in the same step. Both
 * partners send on the same edge in the same slot, so not half duplex.
 *
 * On the complete graph the partner of u across dimension i is u XOR 2^i, reached on port
 * (partner - u - 1) mod N (topo.h's numbering). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t d, npk;
    int single, complete;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint64_t *value; /* [npk] the partial value */
    uint8_t *got;    /* [npk] dimensions combined so far */
} state_t;

/* 0 and *d when t is hypercube:d, foldedcube:d or complete:2^d; SN_ENOTSUP otherwise. */
static int rd_get(const sn_topo_t *t, uint32_t *d, int *complete, sn_err_t *err)
{
    *complete = 0;
    if (t->kind == SN_TOPO_COMPLETE) {
        uint32_t n = t->n, k = 0;
        while ((1u << k) < n && k < 31)
            k++;
        if (n >= 2 && (1u << k) == n && t->nproc == n) {
            *d = k;
            *complete = 1;
            return 0;
        }
        return sn_err_set(err, SN_ENOTSUP, "recursive doubling needs 2^d processors; %s has %u",
                          t->spec, n);
    }
    return sn__a0_get(t, d, "recursive doubling (hypercube, folded cube or complete:2^d)", err);
}

static int allreduce_rd_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    int c;
    return rd_get(t, &d, &c, err);
}

static int allreduce_rd_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    uint32_t d;
    int c, rc;
    if ((rc = rd_get(t, &d, &c, err)) < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->d = d;
    pl->npk = p->msgs * p->frags;
    pl->single = p->pm.ports == SN_PORTS_SINGLE;
    pl->complete = c;
    *out = pl;
    return 0;
}

static void allreduce_rd_plan_free(void *plan)
{
    free(plan);
}

static uint64_t steps(const plan_t *pl)
{
    uint64_t groups = ((uint64_t) pl->npk + pl->d - 1) / pl->d;
    return pl->single ? (uint64_t) pl->d * pl->npk : groups * pl->d;
}

/* The dimension value k crosses in its step j: j single-port, (k + j) mod d multiport. */
static uint32_t dim_of(const plan_t *pl, uint32_t k, uint32_t j)
{
    return pl->single ? j : (k % pl->d + j) % pl->d;
}

static int64_t allreduce_rd_predicted(const void *plan)
{
    return (int64_t) steps(plan);
}

static int allreduce_rd_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    s->pl = pl;
    s->u = node;
    s->value = sn_xmalloc((size_t) pl->npk * sizeof *s->value);
    s->got = sn_xcalloc(pl->npk, 1);
    for (uint32_t k = 0; k < pl->npk; k++)
        s->value[k] = sn_contrib_value(pl->p, node, node, k / pl->p->frags, k % pl->p->frags);
    return 0;
}

static void allreduce_rd_node_fini(void *state)
{
    state_t *s = state;
    free(s->value);
    free(s->got);
}

/* The port of u across dimension i. */
static uint32_t dim_port(const plan_t *pl, uint32_t u, uint32_t i)
{
    if (!pl->complete)
        return i;
    uint32_t n = pl->t->n, v = u ^ (1u << i);
    return (v + n - u - 1) % n;
}

/* Sends value k in its step j (the tag), across dimension dim_of(k, j). */
static void send_value(state_t *s, sn_step_t *io, uint32_t k, uint32_t j)
{
    const sn_params_t *p = s->pl->p;
    sn_packet_t pk = sn_packet_contrib(p, s->u, SN_NODE_ALL, k / p->frags, k % p->frags);
    pk.digest = s->value[k];
    pk.tag = j;
    sn_step_send(io, dim_port(s->pl, s->u, dim_of(s->pl, k, j)), &pk);
}

static int allreduce_rd_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pk = &io->rx[r].pkt;
        uint32_t k = pk->seq * p->frags + pk->frag;
        if (pk->src != SN_SRC_COMBINED || pk->seq >= p->msgs || pk->frag >= p->frags ||
            s->got[k] >= pl->d || pk->tag != s->got[k] ||
            io->rx[r].port != dim_port(pl, s->u, dim_of(pl, k, s->got[k])))
            return sn_err_set(err, SN_EALGO,
                              "node %u got an unexpected partial (seq %u, frag %u, step %u)", s->u,
                              pk->seq, pk->frag, pk->tag);
        s->value[k] = sn_op_apply(p->op, s->value[k], pk->digest);
        if (++s->got[k] == pl->d) {
            sn_packet_t dl = sn_packet_contrib(p, s->u, s->u, pk->seq, pk->frag);
            dl.digest = s->value[k];
            sn_step_deliver(io, &dl);
        }
    }
    uint64_t t = io->slot - 1; /* 0-based */
    if (pl->single) {
        uint32_t k = (uint32_t) (t / pl->d), i = (uint32_t) (t % pl->d);
        if (k < pl->npk)
            send_value(s, io, k, i);
    } else { /* group t / d, step t mod d: its d values, each across its own dimension */
        uint64_t g = t / pl->d;
        uint32_t j = (uint32_t) (t % pl->d);
        for (uint32_t r = 0; r < pl->d; r++)
            if (g * pl->d + r < pl->npk)
                send_value(s, io, (uint32_t) (g * pl->d + r), j);
    }
    /* every send but the first needs the partial of the slot before, so each must have arrived */
    for (size_t x = 0; x < io->ntx; x++) {
        uint32_t k = io->tx[x].pkt.seq * p->frags + io->tx[x].pkt.frag;
        if (s->got[k] != io->tx[x].pkt.tag)
            return sn_err_set(err, SN_EALGO,
                              "node %u sends value %u in its step %u with %u combined", s->u, k,
                              io->tx[x].pkt.tag, s->got[k]);
    }
    if (io->slot < steps(pl))
        io->wake = io->slot + 1;
    return 0;
}

#define RD_FIELDS                                                                                  \
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY,                                      \
    .topos = "hypercube, foldedcube, complete:2^d", .applies = allreduce_rd_applies,               \
    .plan_new = allreduce_rd_plan_new, .plan_free = allreduce_rd_plan_free,                        \
    .predicted = allreduce_rd_predicted, .state_size = sizeof(state_t),                            \
    .node_init = allreduce_rd_node_init, .node_fini = allreduce_rd_node_fini,                      \
    .node_step = allreduce_rd_node_step

const sn_algo_t sn__algo_allreduce_rd = {
    .name = "allreduce-rd",
    .coll = SN_COLL_ALLREDUCE,
    .summary = "recursive doubling: exchange and combine across each dimension in turn",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3; "
              "Thakur, Rabenseifner and Gropp, IJHPCA 2005, section 4",
    .predicts = "multiport d ceil(M/d), single-port d M (M = msgs * frags)",
    RD_FIELDS,
};

const sn_algo_t sn__algo_barrier_rd = {
    .name = "barrier-rd",
    .coll = SN_COLL_BARRIER,
    .summary = "recursive doubling of the tokens: exchange across each dimension in turn",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3; "
              "Thakur, Rabenseifner and Gropp, IJHPCA 2005, section 4",
    .predicts = "d = log2 N",
    RD_FIELDS,
};
