/* te-linear: optimal multiport total exchange on the linear array L_n (core/algo). Source:
 * Dimakopoulos, thesis, section 4.2: the furthest-first algorithm, Lemma 4.1 (eq. 4.9), Lemma 4.2
 * (phase ends T_j = jn - j^2) and Theorem 4.3 (T = ceil((n^2-1)/4), equal to the cut bound (4.1) of
 * the middle link); the same algorithm is section 3, Theorem 1 of Dimakopoulos and Dimopoulos,
 * "Optimal Total Exchange in Linear Arrays and Rings".
 *
 * Rightward and leftward packets use disjoint directed links, so every node keeps two
 * independent queues. Rightward: the packet with the largest destination goes first; ties (same
 * destination) go to the smallest source, the packet that has travelled furthest;
 * copies of one (source, destination) pair go in sequence order. Leftward is the mirror image:
 * smallest destination first, ties to the largest source. A node's own packets are generated
 * lazily in that order and merged with the received ones (a binary heap per direction).
 *
 * --msgs M (with fragments: K = msgs * frags packets per pair): T = K * floor(n/2) * ceil(n/2),
 * still the cut bound. Proof (ours; the thesis has K = 1): by induction on j, link j -> j+1
 * (1-based) sends in non-increasing destination order and is busy in every slot 1 .. K j (n-j).
 * Take d > j. By the hypothesis, the K(j-1)(n-d+1) packets with destination >= d that cross link
 * j-1 -> j do so one per slot in its first K(j-1)(n-d+1) slots; node j owns K(n-d+1) more. So, by
 * induction on the slot, while fewer than K j (n-d+1) have left node j, one with destination >= d
 * is queued there and furthest-first sends it: these packets fill slots 1 .. K j (n-d+1) of link
 * j -> j+1 (the order), and with d = j+1 the link never idles before its last packet. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

enum { DIR_R = 0, DIR_L = 1 }; /* rightward (towards n-1), leftward (towards 0) */

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t n, K; /* nodes, packets per (source, destination) */
} plan_t;

/* A binary heap of received packets of one direction, best (smallest key) on top; the packets
 * live in a pool and the heap moves (key, index) pairs. */
typedef struct {
    uint64_t key;
    uint32_t idx;
} hent_t;

typedef struct {
    hent_t *h;
    size_t n, cap;
    sn_packet_t *pool;
    uint32_t *free; /* free pool slots */
    size_t npool, poolcap, nfree, freecap;
} heap_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t port[2];     /* port towards u+1 and towards u-1, UINT32_MAX at the ends */
    heap_t q[2];          /* received packets to forward */
    uint32_t own_left[2]; /* own destinations not yet finished */
    uint32_t own_dst[2];  /* the current own destination */
    uint32_t own_k[2];    /* copies of it already sent: k = seq * frags + frag */
    uint64_t pending;     /* own packets not sent plus queued packets */
} state_t;

/* ---- priority ---------------------------------------------------------------------------------
 * Leftward is rightward seen in the mirror (node x <-> n-1-x). The sending order is the order of
 * key = ((n-1-rank(dst)) * n + rank(src)) * K + copy: furthest destination first, then the
 * source that travelled furthest, then the copy. key < n^2 K, which sn_params_check bounds
 * far below 2^64 (at most 2^34 deliveries); plan_new checks it. */

static uint32_t rank_of(const plan_t *pl, int dir, uint32_t x)
{
    return dir == DIR_R ? x : pl->n - 1 - x;
}

static uint64_t key_of(const plan_t *pl, int dir, uint32_t dst, uint32_t src, uint64_t copy)
{
    uint64_t n = pl->n;
    return ((n - 1 - rank_of(pl, dir, dst)) * n + rank_of(pl, dir, src)) * pl->K + copy;
}

static void heap_push(heap_t *q, uint64_t key, const sn_packet_t *k)
{
    uint32_t idx;
    if (q->nfree > 0) {
        idx = q->free[--q->nfree];
    } else {
        if (q->npool == q->poolcap)
            sn_grow((void **) &q->pool, &q->poolcap, q->npool + 1, sizeof *q->pool);
        idx = (uint32_t) q->npool++;
    }
    q->pool[idx] = *k;
    if (q->n == q->cap)
        sn_grow((void **) &q->h, &q->cap, q->n + 1, sizeof *q->h);
    size_t i = q->n++;
    while (i > 0 && key < q->h[(i - 1) / 2].key) {
        q->h[i] = q->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->h[i] = (hent_t){key, idx};
}

static sn_packet_t heap_pop(heap_t *q)
{
    uint32_t top = q->h[0].idx;
    hent_t last = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->h[c + 1].key < q->h[c].key)
            c++;
        if (last.key <= q->h[c].key)
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n > 0)
        q->h[i] = last;
    if (q->nfree == q->freecap)
        sn_grow((void **) &q->free, &q->freecap, q->nfree + 1, sizeof *q->free);
    q->free[q->nfree++] = top;
    return q->pool[top];
}

/* ---- descriptor ------------------------------------------------------------------------------ */

static int te_linear_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->kind != SN_TOPO_LINEAR)
        return sn_err_set(err, SN_ENOTSUP,
                          "te-linear needs a linear array linear:N (thesis section 4.2), not %s; "
                          "te-route runs on any graph",
                          t->spec);
    return 0;
}

static int te_linear_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = te_linear_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint64_t n = t->n, K = (uint64_t) p->msgs * p->frags;
    if (K == 0 || n * n > UINT64_MAX / K)
        return sn_err_set(err, SN_ERANGE, "te-linear: %s with %llu packets per pair is too large",
                          t->spec, (unsigned long long) K);
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->n = t->n;
    pl->K = p->msgs * p->frags;
    *out = pl;
    return 0;
}

static void te_linear_plan_free(void *plan)
{
    free(plan);
}

/* Theorem 4.3: floor(n/2) * ceil(n/2) = ceil((n^2-1)/4), times K packets per pair. */
static int64_t te_linear_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->K * (pl->n / 2) * (pl->n - pl->n / 2);
}

/* ---- node ------------------------------------------------------------------------------------ */

static int te_linear_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = plan;
    s->pl = pl;
    s->u = u;
    for (int dir = 0; dir < 2; dir++) {
        uint32_t peer = dir == DIR_R ? u + 1 : u - 1, first = 0, count = 0;
        s->port[dir] = UINT32_MAX;
        if ((dir == DIR_R && u + 1 < pl->n) || (dir == DIR_L && u > 0)) {
            sn_topo_ports_to(pl->t, u, peer, &first, &count);
            if (count != 1)
                return sn_err_set(err, SN_EALGO, "te-linear: node %u has %u links to %u", u, count,
                                  peer);
            s->port[dir] = first;
        }
    }
    s->own_left[DIR_R] = pl->n - 1 - u;
    s->own_dst[DIR_R] = pl->n - 1; /* furthest first */
    s->own_left[DIR_L] = u;
    s->own_dst[DIR_L] = 0;
    s->pending = (uint64_t) (pl->n - 1) * pl->K;
    return 0;
}

static void te_linear_node_fini(void *state)
{
    state_t *s = state;
    for (int dir = 0; dir < 2; dir++) {
        free(s->q[dir].h);
        free(s->q[dir].pool);
        free(s->q[dir].free);
    }
}

/* Sends the best packet of direction dir, if any. */
static void send_best(state_t *s, int dir, sn_step_t *io)
{
    const plan_t *pl = s->pl;
    heap_t *h = &s->q[dir];
    int own = s->own_left[dir] > 0;
    if (own && h->n > 0)
        own = key_of(pl, dir, s->own_dst[dir], s->u, s->own_k[dir]) < h->h[0].key;
    sn_packet_t k;
    if (own) {
        uint32_t c = s->own_k[dir], f = pl->p->frags;
        k = sn_packet_data(pl->p, s->u, s->own_dst[dir], c / f, c % f);
        if (++s->own_k[dir] == pl->K) {
            s->own_k[dir] = 0;
            s->own_left[dir]--;
            s->own_dst[dir] += dir == DIR_R ? -1u : 1u;
        }
    } else if (h->n > 0) {
        k = heap_pop(h);
    } else {
        return;
    }
    s->pending--;
    sn_step_send(io, s->port[dir], &k);
}

static int te_linear_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (k->dst == s->u) {
            sn_step_deliver(io, k);
            continue;
        }
        /* a packet arriving from u-1 goes on rightward, from u+1 leftward */
        int dir = io->rx[i].port == s->port[DIR_L] ? DIR_R : DIR_L;
        if (k->dst >= pl->n || (dir == DIR_R) != (k->dst > s->u))
            return sn_err_set(err, SN_EALGO,
                              "te-linear: node %u got packet %u->%u on port %u in slot %llu", s->u,
                              k->src, k->dst, io->rx[i].port, (unsigned long long) io->slot);
        heap_push(&s->q[dir],
                  key_of(pl, dir, k->dst, k->src, (uint64_t) k->seq * pl->p->frags + k->frag), k);
        s->pending++;
    }
    send_best(s, DIR_R, io);
    send_best(s, DIR_L, io);
    if (s->pending > 0)
        io->wake = io->slot + 1;
    return 0;
}

const sn_algo_t sn__algo_te_linear = {
    .name = "te-linear",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "linear",
    .summary = "furthest-first per direction, ties to the smallest source (optimal)",
    .source =
        "Dimakopoulos, thesis, sec. 4.2, Lemmas 4.1-4.2, Theorem 4.3 (tie rule "
        "of sec. 4.2); Dimakopoulos and Dimopoulos, linear arrays and rings, sec. 3, Theorem 1",
    .predicts = "Theorem 4.3: ceil((n^2-1)/4) = floor(n/2)ceil(n/2), times msgs*frags",
    .applies = te_linear_applies,
    .plan_new = te_linear_plan_new,
    .plan_free = te_linear_plan_free,
    .predicted = te_linear_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_linear_node_init,
    .node_fini = te_linear_node_fini,
    .node_step = te_linear_node_step,
};
