/* mnb-cycle: single-port multinode broadcast pipelined around a Hamiltonian cycle (core/algo).
 * Every node sends one packet and receives one in every step: in step t = q M + x + 1 the node at
 * position i of the cycle sends to its successor message x of the source q positions behind it
 * (its own when q = 0), which it received M steps earlier. Steps = M (N - 1), which is the
 * single-port lower bound: every processor receives M (N - 1) packets, and N nodes make at most N
 * transmissions per step (Dimakopoulos, thesis, section 2.4; core/model/bounds.c). The cycles
 * used: ring:N and complete:N in id order, hypercube:d in binary reflected Gray code order,
 * torus:AxB... in reflected mixed-radix Gray code order with a side of the right parity as the
 * most significant digit, mesh:AxB... (and products of arrays and rings) with a side of even
 * length by the snake of grid_cycle (checked: every consecutive pair, and the last and first, must
 * be adjacent; meshes with every side odd have none, being bipartite with an odd node count, and
 * are refused, as are tori whose Gray code does not close). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t n, M;
    uint32_t *cycle; /* [n] node at each position */
    uint32_t *pos;   /* [n] position of each node */
    uint32_t *port;  /* [n] each node's port towards its successor */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint8_t *have; /* [n * M] bits: message x of source s has arrived */
} state_t;

static void mnb_cycle_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->cycle);
    free(pl->pos);
    free(pl->port);
    free(pl);
}

/* 1 when cyc[0..n-1] is a Hamiltonian cycle of t; fills port[]. */
static int check_cycle(const sn_topo_t *t, const uint32_t *cyc, uint32_t *port)
{
    uint32_t n = t->n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t first, count;
        sn_topo_ports_to(t, cyc[i], cyc[(i + 1) % n], &first, &count);
        if (count == 0)
            return 0;
        port[cyc[i]] = first;
    }
    return 1;
}

/* The reflected mixed-radix Gray code over the factors ord[0..nord-1] (ord[0] most significant):
 * out[i] is the id offset of the i-th word, count the product of their sizes. Consecutive words
 * differ by one in one digit without wrapping, so on linear-array and ring factors it is a
 * Hamiltonian path of their product. */
static void gray_order(const sn_topo_t *t, const uint32_t *ord, uint32_t nord, uint32_t count,
                       uint32_t *out)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t rem = i, digit[SN_TOPO_MAX_FACTORS];
        for (uint32_t a = nord; a-- > 0;) {
            uint32_t k = t->factors[ord[a]]->n;
            digit[a] = rem % k;
            rem /= k;
        }
        uint64_t prefix = 0;
        uint32_t id = 0;
        for (uint32_t a = 0; a < nord; a++) {
            uint32_t k = t->factors[ord[a]]->n, g = prefix % 2 == 0 ? digit[a] : k - 1 - digit[a];
            id += g * t->stride[ord[a]];
            prefix = prefix * k + digit[a];
        }
        out[i] = id;
    }
}

/* The reflected Gray code of a torus with factor `top` most significant: it closes into a cycle
 * when that side has the right parity. */
static void torus_gray(const sn_topo_t *t, uint32_t top, uint32_t *cyc)
{
    uint32_t nf = t->nfactors, ord[SN_TOPO_MAX_FACTORS], j = 0;
    ord[j++] = top;
    for (uint32_t f = 0; f < nf; f++)
        if (f != top)
            ord[j++] = f;
    gray_order(t, ord, nf, t->n, cyc);
}

/* A mesh (or a product of arrays and rings) with a side of even length E: the other factors
 * form a grid column of m positions along their Gray path P, and the E x m grid has the cycle
 * that runs along row 0, snakes back and forth through columns 1..m-1 of rows 1..E-1 (E - 1 is
 * odd, so the snake ends in column 1 of the last row), and returns up column 0. Needs m >= 2. */
static int grid_cycle(const sn_topo_t *t, uint32_t ev, uint32_t *cyc)
{
    uint32_t nf = t->nfactors, ord[SN_TOPO_MAX_FACTORS], j = 0;
    uint32_t E = t->factors[ev]->n, m = t->n / E;
    if (E % 2 != 0 || m < 2)
        return 0;
    for (uint32_t f = 0; f < nf; f++)
        if (f != ev)
            ord[j++] = f;
    uint32_t *path = sn_xmalloc((size_t) m * sizeof *path);
    gray_order(t, ord, j, m, path);
    uint32_t s = t->stride[ev], i = 0;
    for (uint32_t c = 0; c < m; c++)
        cyc[i++] = path[c];
    for (uint32_t r = 1; r < E; r++)
        for (uint32_t c = 1; c < m; c++)
            cyc[i++] = r * s + path[r % 2 == 1 ? m - c : c];
    for (uint32_t r = E - 1; r >= 1; r--)
        cyc[i++] = r * s + path[0];
    free(path);
    return 1;
}

/* Fills cyc[] (and port[]) with a Hamiltonian cycle of t, or fails with SN_ENOTSUP naming why. */
static int find_cycle(const sn_topo_t *t, const sn_params_t *p, uint32_t *cyc, uint32_t *port,
                      sn_err_t *err)
{
    uint32_t n = t->n;
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-cycle broadcasts from every node");
    if (t->is_router != NULL || n < 2)
        return sn_err_set(err, SN_ENOTSUP, "mnb-cycle needs at least 2 processors and no routers");
    if (p->pm.duplex == SN_DUPLEX_HALF && n == 2)
        return sn_err_set(err, SN_ENOTSUP, "mnb-cycle on 2 nodes uses the one edge both ways");
    int ok = 0;
    if ((t->kind == SN_TOPO_RING || t->kind == SN_TOPO_COMPLETE) && t->nfactors == 0) {
        for (uint32_t i = 0; i < n; i++)
            cyc[i] = i;
        ok = check_cycle(t, cyc, port);
    } else if (t->kind == SN_TOPO_HYPERCUBE) {
        for (uint32_t i = 0; i < n; i++)
            cyc[i] = i ^ (i >> 1);
        ok = check_cycle(t, cyc, port);
    } else if (t->kind == SN_TOPO_TORUS) {
        for (uint32_t top = 0; top < t->nfactors && !ok; top++) {
            torus_gray(t, top, cyc);
            ok = check_cycle(t, cyc, port);
        }
    }
    /* tori with a side of even length closed above; with every side odd there is no grid cycle */
    if (!ok && (t->kind == SN_TOPO_MESH || t->kind == SN_TOPO_PRODUCT))
        for (uint32_t ev = 0; ev < t->nfactors && !ok; ev++)
            ok = grid_cycle(t, ev, cyc) && check_cycle(t, cyc, port);
    if (!ok)
        return sn_err_set(err, SN_ENOTSUP,
                          "mnb-cycle knows a Hamiltonian cycle of ring:N, complete:N, "
                          "hypercube:D, tori whose Gray code closes (a side of even length, or "
                          "one dimension) and meshes with a side of even length; %s is not one",
                          t->spec);
    return 0;
}

static int mnb_cycle_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint32_t *cyc = sn_xmalloc(((size_t) t->n + 1) * sizeof *cyc);
    uint32_t *port = sn_xmalloc(((size_t) t->n + 1) * sizeof *port);
    int rc = find_cycle(t, p, cyc, port, err);
    free(cyc);
    free(port);
    return rc;
}

static int mnb_cycle_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    uint32_t n = t->n;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->n = n;
    pl->M = p->msgs * p->frags;
    pl->cycle = sn_xmalloc(((size_t) n + 1) * sizeof *pl->cycle);
    pl->pos = sn_xmalloc(((size_t) n + 1) * sizeof *pl->pos);
    pl->port = sn_xmalloc(((size_t) n + 1) * sizeof *pl->port);
    int rc = find_cycle(t, p, pl->cycle, pl->port, err);
    if (rc < 0) {
        mnb_cycle_plan_free(pl);
        return rc;
    }
    for (uint32_t i = 0; i < n; i++)
        pl->pos[pl->cycle[i]] = i;
    *out = pl;
    return 0;
}

static int64_t mnb_cycle_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->M * (pl->n - 1);
}

static int mnb_cycle_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    s->have = sn_xcalloc(((size_t) s->pl->n * s->pl->M + 7) / 8, 1);
    return 0;
}

static void mnb_cycle_node_fini(void *state)
{
    free(((state_t *) state)->have);
}

static int mnb_cycle_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint32_t f = pl->p->frags, M = pl->M, n = pl->n;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        size_t bit = (size_t) pkt->src * M + (size_t) pkt->seq * f + pkt->frag;
        s->have[bit / 8] |= (uint8_t) (1u << (bit % 8));
        sn_step_deliver(io, pkt);
    }
    uint64_t t = io->slot, T = (uint64_t) M * (n - 1);
    if (t > T)
        return 0;
    uint64_t j = t - 1;
    uint32_t q = (uint32_t) (j / M), x = (uint32_t) (j % M);
    uint32_t src = pl->cycle[(pl->pos[s->u] + n - q) % n];
    size_t bit = (size_t) src * M + x;
    if (q > 0 && !((s->have[bit / 8] >> (bit % 8)) & 1))
        return sn_err_set(err, SN_EALGO,
                          "mnb-cycle: node %u would forward message %u of %u in step %llu before "
                          "receiving it",
                          s->u, x, src, (unsigned long long) t);
    sn_packet_t pkt = sn_packet_data(pl->p, src, SN_NODE_ALL, x / f, x % f);
    sn_step_send(io, pl->port[s->u], &pkt);
    if (t < T)
        io->wake = t + 1;
    return 0;
}

const sn_algo_t sn__algo_mnb_cycle = {
    .name = "mnb-cycle",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY | SN_PM_HALF,
    .topos = "ring, complete, hypercube, tori whose Gray code closes, meshes with an even side",
    .summary = "single-port pipeline around a Hamiltonian cycle: one send, one reception a step",
    .source = "generic; optimal by the single-port reception bound (Dimakopoulos, thesis, 2.4)",
    .predicts = "M (N - 1), the single-port lower bound",
    .applies = mnb_cycle_applies,
    .plan_new = mnb_cycle_plan_new,
    .plan_free = mnb_cycle_plan_free,
    .predicted = mnb_cycle_predicted,
    .state_size = sizeof(state_t),
    .node_init = mnb_cycle_node_init,
    .node_fini = mnb_cycle_node_fini,
    .node_step = mnb_cycle_node_step,
};
