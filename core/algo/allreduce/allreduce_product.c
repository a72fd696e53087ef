/* allreduce-product and barrier-product: allreduce inside each complete factor of a product of
 * complete graphs, one dimension after the other, in the multiport model (core/algo).
 *
 * torus:3x3 is K3 x K3, a ring of 2 or 3 nodes and a linear array of 2 are complete, and
 * complete:N is one complete factor. In step i every node sends its partial value to every
 * neighbour across dimension i (all of them at once, on distinct ports) and combines the k_i - 1
 * partials it receives: after step i its value combines the contributions of every node that
 * differs from it in dimensions 0 .. i only, each exactly once, so any operator works (sum too).
 * After one step per dimension d every processor holds the whole combination, which meets the
 * diameter bound d. It is recursive doubling (Bertsekas and Tsitsiklis, Parallel and Distributed
 * Computation, section 1.3: the hypercube's dimension-by-dimension algorithms, K2 x ... x K2)
 * with a complete exchange instead of a pairwise one in each dimension. With M = msgs * frags
 * values they pipeline, value k crossing dimension i in slot k + i + 1: M + d - 1 slots. Both ends
 * of an edge send on it in the same slot, so full duplex only. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t d;                           /* dimensions with two nodes or more */
    uint32_t factor[SN_TOPO_MAX_FACTORS]; /* [d]: the factor of each such dimension */
    uint32_t side[SN_TOPO_MAX_FACTORS];   /* [d]: its nodes */
    uint32_t npk;                         /* msgs * frags */
    uint8_t *first; /* [port_off[n]]: 1 for the first port of a node to each peer in its factor */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint64_t *value; /* [npk] the partial values */
    uint8_t *got;    /* [npk] dimensions combined so far */
    uint32_t *heard; /* [npk] partials received across dimension got[k] so far */
} state_t;

/* 1 when every node of f is adjacent to every other one. */
static int is_complete(const sn_topo_t *f, uint32_t *stamp)
{
    for (uint32_t u = 0; u < f->n; u++) {
        uint32_t peers = 0;
        for (uint32_t q = f->port_off[u]; q < f->port_off[u + 1]; q++) {
            uint32_t v = f->ports[q].peer;
            if (v != u && stamp[v] != u + 1) {
                stamp[v] = u + 1;
                peers++;
            }
        }
        if (peers != f->n - 1)
            return 0;
    }
    return 1;
}

/* The dimensions of t as complete factors (their count in *d), or SN_ENOTSUP naming the first
 * factor that is not complete. */
static int product_dims(const sn_topo_t *t, plan_t *pl, sn_err_t *err)
{
    if (t->is_router || t->nproc != t->n)
        return sn_err_set(err, SN_ENOTSUP,
                          "allreduce by dimension needs a product of complete graphs without "
                          "routers, not %s",
                          t->spec);
    uint32_t nf = t->nfactors ? t->nfactors : 1, nmax = 0;
    for (uint32_t i = 0; i < nf; i++) {
        const sn_topo_t *f = t->nfactors ? t->factors[i] : t;
        nmax = f->n > nmax ? f->n : nmax;
    }
    uint32_t *stamp = sn_xcalloc((size_t) nmax + 1, sizeof *stamp);
    int rc = 0;
    pl->d = 0;
    for (uint32_t i = 0; i < nf && rc == 0; i++) {
        const sn_topo_t *f = t->nfactors ? t->factors[i] : t;
        memset(stamp, 0, ((size_t) nmax + 1) * sizeof *stamp);
        if (!is_complete(f, stamp))
            rc =
                sn_err_set(err, SN_ENOTSUP,
                           "allreduce by dimension needs a product of complete graphs (complete:N, "
                           "ring:3, ring:2, linear:2, and their products such as torus:3x3); %s "
                           "of %s is not complete",
                           f->spec, t->spec);
        else if (f->n >= 2)
            pl->factor[pl->d] = i, pl->side[pl->d++] = f->n;
    }
    free(stamp);
    if (rc == 0 && pl->d == 0)
        rc = sn_err_set(err, SN_ENOTSUP, "%s has one processor: nothing to combine", t->spec);
    return rc;
}

static int product_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    plan_t pl;
    return product_dims(t, &pl, err);
}

static int product_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    int rc = product_dims(t, pl, err);
    if (rc < 0) {
        free(pl);
        return rc;
    }
    pl->t = t;
    pl->p = p;
    pl->npk = p->msgs * p->frags;
    /* parallel links (ring:2 has two to the same peer) must carry a partial once */
    pl->first = sn_xcalloc(t->port_off[t->n] + 1, 1);
    uint32_t *seen = sn_xcalloc((size_t) t->n, sizeof *seen);
    for (uint32_t u = 0; u < t->n; u++)
        for (uint32_t q = t->port_off[u]; q < t->port_off[u + 1]; q++) {
            uint32_t v = t->ports[q].peer;
            if (seen[v] != u + 1) {
                seen[v] = u + 1;
                pl->first[q] = 1;
            }
        }
    free(seen);
    *out = pl;
    return 0;
}

static void product_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->first);
    free(pl);
}

static uint64_t steps(const plan_t *pl)
{
    return (uint64_t) pl->npk + pl->d - 1;
}

static int64_t product_predicted(const void *plan)
{
    return (int64_t) steps(plan);
}

static int product_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    s->pl = pl;
    s->u = node;
    s->value = sn_xmalloc((size_t) pl->npk * sizeof *s->value);
    s->got = sn_xcalloc(pl->npk, 1);
    s->heard = sn_xcalloc(pl->npk, sizeof *s->heard);
    for (uint32_t k = 0; k < pl->npk; k++)
        s->value[k] = sn_contrib_value(pl->p, node, node, k / pl->p->frags, k % pl->p->frags);
    return 0;
}

static void product_node_fini(void *state)
{
    state_t *s = state;
    free(s->value);
    free(s->got);
    free(s->heard);
}

/* Sends value k to every neighbour across dimension j, once per neighbour. */
static void send_dim(state_t *s, sn_step_t *io, uint32_t k, uint32_t j)
{
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    sn_packet_t pk = sn_packet_contrib(p, s->u, SN_NODE_ALL, k / p->frags, k % p->frags);
    pk.digest = s->value[k];
    pk.tag = j;
    uint32_t off = pl->t->port_off[s->u], deg = pl->t->port_off[s->u + 1] - off;
    for (uint32_t port = 0; port < deg; port++)
        if (pl->first[off + port] && sn_topo_port_factor(pl->t, s->u, port) == pl->factor[j])
            sn_step_send(io, port, &pk);
}

static int product_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    /* ---- combine the partials of the dimension each value is crossing ---- */
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pk = &io->rx[r].pkt;
        uint32_t k = pk->seq * p->frags + pk->frag;
        if (pk->src != SN_SRC_COMBINED || pk->seq >= p->msgs || pk->frag >= p->frags ||
            s->got[k] >= pl->d || pk->tag != s->got[k] ||
            sn_topo_port_factor(pl->t, s->u, io->rx[r].port) != pl->factor[s->got[k]])
            return sn_err_set(err, SN_EALGO,
                              "node %u got an unexpected partial (seq %u, frag %u, dimension %u)",
                              s->u, pk->seq, pk->frag, pk->tag);
        s->value[k] = sn_op_apply(p->op, s->value[k], pk->digest);
        if (++s->heard[k] < pl->side[s->got[k]] - 1)
            continue;
        s->heard[k] = 0;
        if (++s->got[k] == pl->d) {
            sn_packet_t dl = sn_packet_contrib(p, s->u, s->u, pk->seq, pk->frag);
            dl.digest = s->value[k];
            sn_step_deliver(io, &dl);
        }
    }
    /* ---- value k crosses dimension j in slot k + j + 1 ---- */
    uint64_t t = io->slot - 1; /* 0-based */
    for (uint32_t j = 0; j < pl->d && j <= t; j++) {
        if (t - j >= pl->npk)
            continue;
        uint32_t k = (uint32_t) (t - j);
        if (s->got[k] != j)
            return sn_err_set(err, SN_EALGO,
                              "node %u sends value %u across dimension %u with %u combined", s->u,
                              k, j, s->got[k]);
        send_dim(s, io, k, j);
    }
    if (io->slot < steps(pl))
        io->wake = io->slot + 1;
    return 0;
}

#define PRODUCT_FIELDS                                                                             \
    .pm_mask = SN_PM_MULTI, .topos = "products of complete graphs (complete, torus:3x3, ...)",     \
    .applies = product_applies, .plan_new = product_plan_new, .plan_free = product_plan_free,      \
    .predicted = product_predicted, .state_size = sizeof(state_t), .node_init = product_node_init, \
    .node_fini = product_node_fini, .node_step = product_node_step

const sn_algo_t sn__algo_allreduce_product = {
    .name = "allreduce-product",
    .coll = SN_COLL_ALLREDUCE,
    .summary = "allreduce inside each complete factor, one dimension after the other",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(recursive doubling), with a complete exchange in each dimension",
    .predicts = "M + d - 1 (d the dimensions, M = msgs * frags), multiport",
    PRODUCT_FIELDS,
};

const sn_algo_t sn__algo_barrier_product = {
    .name = "barrier-product",
    .coll = SN_COLL_BARRIER,
    .summary = "the tokens combined inside each complete factor, one dimension after the other",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(recursive doubling), with a complete exchange in each dimension",
    .predicts = "d, the dimensions, multiport",
    PRODUCT_FIELDS,
};
