/* te-ring: optimal multiport total exchange on the ring R_n by message shifting (core/algo).
 * Source: Dimakopoulos, thesis, section 4.3, and Dimakopoulos and Dimopoulos, "Optimal Total
 * Exchange in Linear Arrays and Rings", section 4, Theorems 2-3. Every message takes the shorter
 * way round, fixed at its source; the two directions use disjoint links, so each node keeps one
 * FIFO queue per direction: it sends the head and a passing packet joins the tail (the
 * message-shift algorithm of [60]).
 *
 *  odd n (section 4.3.1, Lemma 4.4, Theorem 4.5): node i queues m_i(i+1) .. m_i(i+h),
 *    h = (n-1)/2, in each direction, head = the farthest (Fig. 4.4(a)). FIFO is node-invariant, so
 *    every queue is node 0's shifted (Lemma 4.4), every link is busy until all queues empty and
 *    T = (n^2-1)/8.
 *  even n (section 4.3.2, Theorem 4.6): the antipodal message m_i(i+n/2) goes clockwise
 *    from even nodes and counterclockwise from odd ones ("the situation is reversed"), so
 *    even nodes queue n/2 messages clockwise and n/2-1 counterclockwise, odd nodes the reverse,
 *    furthest first at the head (this initial order matters), then plain FIFO.
 *    T = T_opt = ceil((n^2-1)/8): n^2/8 when 4 | n, (n^2+4)/8 when n = 2 mod 4.
 *  n = 2: ring:2 is K2 (one edge, one port per node); the even rule sends node 0's message
 *    "clockwise" and node 1's "counterclockwise", both over that edge: T = 1 = (n^2+4)/8.
 * A node's own packets are all at the head of the initial queue, ahead of every arrival, so the
 * node sends them first (generated lazily, farthest first) and then forwards in arrival order.
 *
 * --msgs M (with fragments: K = msgs * frags packets per pair): each message becomes K adjacent
 * packets in the queue (sequence order), and T = K * T_1 exactly, where T_1 is the count above.
 * Proof (ours): by induction on b, at slot bK every queue is the K = 1 queue at step b with each
 * message repeated K times; in slots bK+1 .. (b+1)K a node sends the K copies at its head and the
 * copies it receives join behind them. This equals the cut bound ceil(K n^2/8) (K = 1 or n odd or
 * 4 | n) except when n = 2 mod 4, n >= 6, where K(n^2+4)/8 is floor(K/2) above it. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

enum { DIR_CW = 0, DIR_CCW = 1 }; /* clockwise (towards i+1), counterclockwise (towards i-1) */

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t n, K; /* nodes, packets per (source, destination) */
} plan_t;

/* A FIFO of received packets (a growable ring buffer). */
typedef struct {
    sn_packet_t *a;
    size_t head, n, cap;
} fifo_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t port[2];     /* port towards u+1 and towards u-1 (the same port on ring:2) */
    fifo_t q[2];          /* received packets to forward, per direction */
    uint32_t own_dist[2]; /* distance of the current own message (counts down to 1), 0 = none */
    uint32_t own_k[2];    /* copies of it already sent: k = seq * frags + frag */
    uint64_t pending;     /* own packets not sent plus queued packets */
} state_t;

/* ---- FIFO ------------------------------------------------------------------------------------ */

static void te_ring_fifo_push(fifo_t *f, const sn_packet_t *k)
{
    if (f->n == f->cap) {
        size_t old = f->cap;
        sn_grow((void **) &f->a, &f->cap, f->n + 1, sizeof *f->a);
        /* unwrap: the part before head moves behind the old end */
        for (size_t i = 0; i < f->head; i++)
            f->a[old + i] = f->a[i]; /* cap doubled: old + i < cap */
    }
    f->a[(f->head + f->n) % f->cap] = *k;
    f->n++;
}

static sn_packet_t te_ring_fifo_pop(fifo_t *f)
{
    sn_packet_t k = f->a[f->head];
    f->head = (f->head + 1) % f->cap;
    f->n--;
    return k;
}

/* ---- descriptor ------------------------------------------------------------------------------ */

/* Messages node u sends in direction dir: (n-1)/2 for odd n; for even n, n/2 in its parity's
 * direction (clockwise for even u) and n/2 - 1 in the other. */
static uint32_t own_count(uint32_t n, uint32_t u, int dir)
{
    if (n % 2 == 1)
        return (n - 1) / 2;
    return (u % 2 == 0) == (dir == DIR_CW) ? n / 2 : n / 2 - 1;
}

static int te_ring_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->kind != SN_TOPO_RING)
        return sn_err_set(err, SN_ENOTSUP,
                          "te-ring needs a ring ring:N (thesis section 4.3), not %s; te-route "
                          "runs on any graph",
                          t->spec);
    return 0;
}

static int te_ring_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = te_ring_applies(t, p, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->n = t->n;
    pl->K = p->msgs * p->frags;
    *out = pl;
    return 0;
}

static void te_ring_plan_free(void *plan)
{
    free(plan);
}

/* Theorems 4.5 and 4.6: (n^2-1)/8 for odd n, n^2/8 when 4 | n, (n^2+4)/8 when n = 2 mod 4; that
 * is ceil((n^2-1)/8) for every n >= 2. Times K packets per pair. */
static int64_t te_ring_predicted(const void *plan)
{
    const plan_t *pl = plan;
    int64_t n = pl->n, t1;
    if (n % 2 == 1)
        t1 = (n * n - 1) / 8;
    else if (n % 4 == 0)
        t1 = n * n / 8;
    else
        t1 = (n * n + 4) / 8;
    return (int64_t) pl->K * t1;
}

/* ---- node ------------------------------------------------------------------------------------ */

static int te_ring_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = plan;
    uint32_t n = pl->n;
    s->pl = pl;
    s->u = u;
    for (int dir = 0; dir < 2; dir++) {
        uint32_t peer = dir == DIR_CW ? (u + 1) % n : (u + n - 1) % n, first = 0, count = 0;
        sn_topo_ports_to(pl->t, u, peer, &first, &count);
        if (count != 1)
            return sn_err_set(err, SN_EALGO, "te-ring: node %u has %u links to %u", u, count, peer);
        s->port[dir] = first;
        s->own_dist[dir] = own_count(n, u, dir);
    }
    s->pending = (uint64_t) (n - 1) * pl->K;
    return 0;
}

static void te_ring_node_fini(void *state)
{
    state_t *s = state;
    free(s->q[DIR_CW].a);
    free(s->q[DIR_CCW].a);
}

/* Sends the head of direction dir: the next own packet while there is one, then the oldest
 * arrival. */
static void te_ring_send_head(state_t *s, int dir, sn_step_t *io)
{
    const plan_t *pl = s->pl;
    sn_packet_t k;
    if (s->own_dist[dir] > 0) {
        uint32_t n = pl->n, d = s->own_dist[dir], c = s->own_k[dir], f = pl->p->frags;
        uint32_t dst = dir == DIR_CW ? (s->u + d) % n : (s->u + n - d) % n;
        k = sn_packet_data(pl->p, s->u, dst, c / f, c % f);
        if (++s->own_k[dir] == pl->K) {
            s->own_k[dir] = 0;
            s->own_dist[dir]--;
        }
    } else if (s->q[dir].n > 0) {
        k = te_ring_fifo_pop(&s->q[dir]);
    } else {
        return;
    }
    s->pending--;
    sn_step_send(io, s->port[dir], &k);
}

static int te_ring_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint32_t n = pl->n;
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (k->dst == s->u) {
            sn_step_deliver(io, k);
            continue;
        }
        /* a packet arriving from u-1 travels clockwise, from u+1 counterclockwise */
        int dir = io->rx[i].port == s->port[DIR_CCW] ? DIR_CW : DIR_CCW;
        uint32_t ahead = dir == DIR_CW ? (k->dst + n - s->u) % n : (s->u + n - k->dst) % n;
        if (k->dst >= n || ahead > n / 2)
            return sn_err_set(err, SN_EALGO,
                              "te-ring: node %u got packet %u->%u on port %u in slot %llu", s->u,
                              k->src, k->dst, io->rx[i].port, (unsigned long long) io->slot);
        te_ring_fifo_push(&s->q[dir], k);
        s->pending++;
    }
    te_ring_send_head(s, DIR_CW, io);
    te_ring_send_head(s, DIR_CCW, io);
    if (s->pending > 0)
        io->wake = io->slot + 1;
    return 0;
}

const sn_algo_t sn__algo_te_ring = {
    .name = "te-ring",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "ring",
    .summary = "message shift: one FIFO per direction, farthest first; antipodal message by "
               "parity for even n (optimal)",
    .source = "Dimakopoulos, thesis, sec. 4.3.1 Lemma 4.4, Theorem 4.5 (odd n), sec. "
              "4.3.2 Theorem 4.6 (even n); Dimakopoulos and Dimopoulos, linear arrays and rings, "
              "sec. 4, Theorems 2-3",
    .predicts = "Theorems 4.5-4.6: ceil((n^2-1)/8), times msgs*frags",
    .applies = te_ring_applies,
    .plan_new = te_ring_plan_new,
    .plan_free = te_ring_plan_free,
    .predicted = te_ring_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_ring_node_init,
    .node_fini = te_ring_node_fini,
    .node_step = te_ring_node_step,
};
