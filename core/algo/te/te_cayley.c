/* te-cayley: optimal single-port total exchange on every Cayley graph, the node-invariant FIFO
 * algorithm of Fig. 4.5 (core/algo). Source: Dimakopoulos, thesis, section 4.4.4,
 * Fig. 4.5, optimal by Theorem 4.11: T = s_G, the status of any node,
 * which is the single-port lower bound (4.5); the hypercube instance is Fig. 4.6 (section 4.4.5).
 *
 * Node g holds the FIFO queue m_g(g z_1) .. m_g(g z_{n-1}), z_j = j (node-id order), head the
 * last. Every step it pops the head m and sends it to g * W[g^-1 dst(m)], where W[z] is the
 * generator that starts a shortest path from the identity 0 to z, the same relative table at every
 * node; an arrival is delivered or joins the tail. W: on hypercubes e-cube, the most significant
 * differing bit; elsewhere the first port of a breadth-first search from the identity that
 * scans ports in order, which on rings is +1 for z <= n/2 and -1 otherwise (the rule for rings in
 * section 4.4.4).
 *
 * Sharing (Lemma 4.9, eqs. 4.20-4.23): Q_g(t) = g * Q_e(t) as ordered lists, so in step t every
 * node g sends g * m_t on the same port (generator) gamma_t, where (m_t, gamma_t) is what the
 * identity e sends, and receives (g gamma_t^-1) * m_t from g gamma_t^-1. The plan simulates e's
 * queue alone once (the trace: a per-slot schedule every node computes locally) and every node
 * plays it translated by its own id. The queues themselves are never stored (O(n^2) packets, 16.7 M
 * on hypercube:12); a node checks every arrival against the trace (identity, payload digest,
 * arrival port) and fails the run on any difference, so the packet it later forwards, rebuilt from
 * the same identity (which fixes the payload), is exactly the one it received.
 *
 * Several packets per pair (msgs x frags = M): each destination holds M consecutive queue entries
 * (seq, frag order). Theorem 4.11's argument is unchanged (node-invariant, never idle, shortest
 * paths), so T = M s_G, which is the status bound (4.4) with every distance counted M times.
 *
 * Port models: one send and one reception per node per step (Lemma 4.8), so --ports single with
 * --rx one or any. Not half duplex: when gamma_t is an involution (hypercube dimensions, the
 * antipodal jump of an even ring) every edge of that generator carries a packet both ways. Not
 * registered for multiport either: it would be legal there, but auto-selection prefers any
 * prediction to none, and s_G is far above what te-route achieves with all ports (522 against 5120
 * steps on hypercube:10). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

/* The longest trace the plan builds (16 bytes an entry, 64 MiB): hypercube:17 (s_G = 1.1 M) and
 * torus:128x128 (s_G = 2^20) fit; longer ones could not be simulated in reasonable time anyway
 * (n * s_G node steps), and auto-selection builds every candidate's plan, even for `model`. */
#define MAX_TRACE (1u << 22)

/* One step of the identity: it sends message (x -> y), packet k of that pair (k = seq * frags +
 * frag), on `port`; x and y are group elements relative to the sending node. */
typedef struct {
    uint32_t x, y, k, port;
} tstep_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t *invport; /* [deg] the port on which a packet sent on port q arrives (gamma_q^-1) */
    tstep_t *trace;    /* [T] */
    uint64_t T;
    int64_t predicted;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t g;
    uint32_t gd[SN_TOPO_MAX_FACTORS]; /* products: g's coordinates */
} state_t;

static int te_cayley_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (!t->cayley || t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP,
                          "te-cayley needs a Cayley graph whose node ids are group elements (ring, "
                          "ering, circulant, complete, torus, hypercube, foldedcube, ccc, "
                          "butterfly, star, or a product of these); %s is not one",
                          t->spec);
    return 0;
}

/* W and the distances from the identity: breadth-first, ports in order, W[z] = the first port of
 * the path that discovered z. Hypercubes: e-cube instead (bit k is port k). */
static void shortest_table(const sn_topo_t *t, uint32_t *W, uint32_t *dist)
{
    uint32_t n = t->n, *order = sn_xmalloc((size_t) n * sizeof *order), head = 0, tail = 0;
    for (uint32_t z = 0; z < n; z++)
        dist[z] = UINT32_MAX;
    dist[0] = 0;
    W[0] = 0;
    order[tail++] = 0;
    while (head < tail) {
        uint32_t u = order[head++], deg = sn_topo_degree(t, u);
        for (uint32_t q = 0; q < deg; q++) {
            uint32_t v = sn_topo_port(t, u, q)->peer;
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                W[v] = u == 0 ? q : W[u];
                order[tail++] = v;
            }
        }
    }
    free(order);
    if (t->kind == SN_TOPO_HYPERCUBE)
        for (uint32_t z = 1; z < n; z++)
            W[z] = 31u - (uint32_t) __builtin_clz(z);
}

static void te_cayley_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->invport);
    free(pl->trace);
    free(pl);
}

/* Simulates the identity's queue (Fig. 4.5 at v_0) and records what it sends in every step. */
static int te_cayley_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = te_cayley_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n, deg = sn_topo_degree(t, 0), M = p->msgs * p->frags;
    uint32_t *W = sn_xmalloc((size_t) n * sizeof *W), *dist = sn_xmalloc((size_t) n * sizeof *dist);
    shortest_table(t, W, dist);
    uint64_t s = 0;
    for (uint32_t z = 0; z < n; z++)
        s += dist[z];
    uint64_t T = (uint64_t) M * s;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->invport = sn_xmalloc(((size_t) deg + 1) * sizeof *pl->invport);
    for (uint32_t q = 0; q < deg; q++)
        pl->invport[q] = sn_topo_port(t, 0, q)->rport;
    pl->predicted = (int64_t) M * (int64_t) sn_topo_status(t, 0, 0);
    pl->T = T;
    if (T > MAX_TRACE) { /* the prediction stands; node_init refuses to run it */
        free(W);
        free(dist);
        *out = pl;
        return 0;
    }
    pl->T = 0;
    pl->trace = sn_xmalloc((T ? T : 1) * sizeof *pl->trace);
    /* The queue in pop order: every entry ever queued is pushed once and popped once, and each
     * step pops one, so T entries hold the whole history (no wrap-around). */
    tstep_t *q = sn_xmalloc((T ? T : 1) * sizeof *q);
    uint64_t head = 0, tail = 0;
    for (uint32_t z = n - 1; z >= 1 && T > 0; z--)
        for (uint32_t k = 0; k < M; k++)
            q[tail++] = (tstep_t){0, z, k, 0};
    while (head < tail) {
        tstep_t m = q[head++];
        m.port = W[m.y];
        pl->trace[pl->T++] = m;
        /* e receives gamma^-1 * m from gamma^-1 (Lemma 4.8 (b) with eq. 4.23) */
        uint32_t ginv = sn_topo_port(t, 0, pl->invport[m.port])->peer;
        tstep_t r = {sn_topo_mul(t, ginv, m.x), sn_topo_mul(t, ginv, m.y), m.k, 0};
        if (r.y == 0)
            continue; /* delivered */
        if (tail == T || dist[r.y] + 1 != dist[m.y]) {
            rc = sn_err_set(err, SN_EALGO,
                            "te-cayley on %s: the identity's queue outgrew the status %llu or "
                            "derouted a packet at step %llu (a W table that is not shortest-path?)",
                            t->spec, (unsigned long long) T, (unsigned long long) pl->T);
            break;
        }
        q[tail++] = r;
    }
    free(q);
    free(W);
    free(dist);
    if (rc < 0) {
        te_cayley_plan_free(pl);
        return rc;
    }
    *out = pl;
    return 0;
}

static int64_t te_cayley_predicted(const void *plan)
{
    return ((const plan_t *) plan)->predicted;
}

static int te_cayley_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    state_t *s = state;
    s->pl = plan;
    s->g = node;
    if (s->pl->trace == NULL)
        return sn_err_set(err, SN_ERANGE,
                          "te-cayley on %s: the identity's trace has %llu steps (M * s_G), more "
                          "than the %u this implementation keeps: too large to run",
                          s->pl->t->spec, (unsigned long long) s->pl->T, MAX_TRACE);
    for (uint32_t f = 0; f < s->pl->t->nfactors; f++)
        s->gd[f] = sn_topo_coord(s->pl->t, node, f);
    return 0;
}

/* a * b in a group F that is not a product, without a division for the abelian families (the hot
 * path: four of these per node and step). */
static inline uint32_t op(const sn_topo_t *F, uint32_t a, uint32_t b)
{
    switch (F->kind) {
    case SN_TOPO_RING:
    case SN_TOPO_ERING:
    case SN_TOPO_CIRCULANT:
    case SN_TOPO_COMPLETE: {
        uint32_t sum = a + b; /* Z_n with n <= SN_TOPO_MAX_NODES: no overflow */
        return sum >= F->n ? sum - F->n : sum;
    }
    case SN_TOPO_HYPERCUBE:
    case SN_TOPO_FOLDEDCUBE:
        return a ^ b;
    default:
        return sn_topo_mul(F, a, b);
    }
}

/* g * x where gd holds g's coordinates on a product (sn_topo_mul, with g's coordinates cached and
 * x's taken factor by factor from the least significant). */
static uint32_t mul_left(const sn_topo_t *t, uint32_t g, const uint32_t *gd, uint32_t x)
{
    if (t->nfactors == 0)
        return op(t, g, x);
    uint32_t r = 0;
    for (uint32_t f = t->nfactors; f-- > 0;) {
        const sn_topo_t *F = t->factors[f];
        uint32_t xf = x % F->n;
        x /= F->n;
        r += op(F, gd[f], xf) * t->stride[f];
    }
    return r;
}

/* The packet g * m for trace entry m (k = seq * frags + frag). */
static sn_packet_t translated(const plan_t *pl, uint32_t g, const uint32_t *gd, const tstep_t *m)
{
    uint32_t f = pl->p->frags;
    return sn_packet_data(pl->p, mul_left(pl->t, g, gd, m->x), mul_left(pl->t, g, gd, m->y),
                          m->k / f, m->k % f);
}

static int same_packet(const sn_packet_t *a, const sn_packet_t *b)
{
    return a->src == b->src && a->dst == b->dst && a->seq == b->seq && a->frag == b->frag &&
           a->kind == b->kind && a->flags == b->flags && a->tag == b->tag && a->digest == b->digest;
}

static int te_cayley_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint64_t t = io->slot;
    /* the arrival of step t-1: exactly one (Lemma 4.8), (g gamma^-1) * m_{t-1} */
    if (t >= 2 && t - 1 <= pl->T) {
        const tstep_t *m = &pl->trace[t - 2];
        uint32_t ap = pl->invport[m->port];
        if (io->nrx != 1 || io->rx[0].port != ap)
            return sn_err_set(err, SN_EALGO,
                              "te-cayley: %zu arrivals (first on port %u), the trace expects one "
                              "on port %u",
                              io->nrx, io->nrx ? io->rx[0].port : 0, ap);
        /* the sender h = g gamma^-1 differs from g in one coordinate at most */
        const sn_topo_t *G = pl->t;
        uint32_t h = sn_topo_port(G, s->g, ap)->peer, hd[SN_TOPO_MAX_FACTORS];
        if (G->nfactors > 0) {
            uint32_t f0 = sn_topo_port_factor(G, s->g, ap);
            memcpy(hd, s->gd, G->nfactors * sizeof *hd);
            hd[f0] = sn_topo_coord(G, h, f0);
        }
        sn_packet_t want = translated(pl, h, hd, m);
        if (!same_packet(&io->rx[0].pkt, &want))
            return sn_err_set(err, SN_EALGO,
                              "te-cayley: received packet %u->%u seq %u frag %u, the trace "
                              "expects %u->%u seq %u frag %u with its payload",
                              io->rx[0].pkt.src, io->rx[0].pkt.dst, io->rx[0].pkt.seq,
                              io->rx[0].pkt.frag, want.src, want.dst, want.seq, want.frag);
        if (want.dst == s->g)
            sn_step_deliver(io, &io->rx[0].pkt);
    } else if (io->nrx != 0) {
        return sn_err_set(err, SN_EALGO, "te-cayley: %zu unexpected arrivals", io->nrx);
    }
    if (t <= pl->T) {
        const tstep_t *m = &pl->trace[t - 1];
        sn_packet_t pkt = translated(pl, s->g, s->gd, m);
        sn_step_send(io, m->port, &pkt);
    }
    if (t < pl->T)
        io->wake = t + 1;
    return 0;
}

const sn_algo_t sn__algo_te_cayley = {
    .name = "te-cayley",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "Cayley graphs: ring, ering, circulant, complete, torus, hypercube, foldedcube, ccc, "
             "butterfly, star and their products",
    .summary = "node-invariant FIFO queues, one shortest-path generator per step (Fig. 4.5)",
    .source = "Dimakopoulos, thesis, sec. 4.4.4 Fig. 4.5, Theorem 4.11, "
              "Lemmas 4.8-4.9; hypercubes Fig. 4.6",
    .predicts = "s_G, the status of a node (Theorem 4.11), times packets per pair",
    .applies = te_cayley_applies,
    .plan_new = te_cayley_plan_new,
    .plan_free = te_cayley_plan_free,
    .predicted = te_cayley_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_cayley_node_init,
    .node_fini = NULL,
    .node_step = te_cayley_node_step,
    .parallel = 1,
};
