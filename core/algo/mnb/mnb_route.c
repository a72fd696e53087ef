/* mnb-route, te-route, pmnb-route, pexchange-route: multinode broadcast and total exchange (and
 * their partial forms) on any graph by shortest-path routing with a furthest-first queue per
 * output port (core/algo). The generic baseline: it runs on every topology and port
 * model; theory gives no exact count for it, so predicted_steps is none and the run is the figure.
 *
 * Routing: te packets follow the route oracle's canonical shortest paths (core/topo/route.c); a
 * broadcast from s follows T_s, the tree of next hops towards s, so each node gets each packet
 * once. Priority ("furthest first"): a personalised packet by its remaining distance, a broadcast
 * copy by the height of the subtree it is about to enter. Ties: a node's own packets first (in
 * destination order), then packets in arrival order (arrivals of a slot are taken in port order,
 * as both executors present them). Priorities are at most the diameter, so each port keeps one
 * FIFO per priority (a bucket queue): O(1) to queue, and a pop scans down from the highest bucket.
 *
 * Port models, enforced by construction:
 *  - multi: every link carries the best packet of its queue every slot (parallel links to the same
 *    neighbour share one queue);
 *  - single with --rx one: a proper edge colouring with C colours; in slot t only links of colour
 *    (t-1) mod C are used, so every node sends and receives at most once (the thesis's
 *    single-port TE on hypercubes uses one dimension per step in the same way, Fig. 4.6);
 *  - single with --rx any: each node sends its single best packet on any link;
 *  - half duplex: edge e may be used from its a end when (round + e) is even and from its b end
 *    when odd, where round is the slot (multi, rx any) or the colour round (rx one).
 * Sources: the total-exchange lower bounds are (4.1) and (4.4) of the thesis (core/model). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/route.h"
#include "stepnet/util.h"

/* Queued packets. Every packet these algorithms move is a data packet made by sn_packet_data (no
 * tag, no flags), so its identity is all a queue keeps: one word src << 16 | dst when every pair
 * sends one packet and node ids fit in 16 bits (a broadcast's SN_NODE_ALL as 0xffff), words
 * [src, dst] for larger graphs, [src, dst, k] with several packets (k = seq * frags + frag <
 * 2^24): 4, 8 or 12 bytes instead of 40 (the single word took te-route on hypercube:12 from 59 to
 * 43 MiB; its time hardly moved, about 20 s); the digest is derived again when it leaves
 * (stepnet-node checks the payload bytes against that identity at every hop, and the receiver's
 * delivery check compares the digest it was sent with). Each bucket's FIFO is a list of 64-byte
 * chunks (a link word and 7 or 5 entries) from the node's chunk pool, so pushes and pops walk
 * memory in order: queued packets are most of the memory of a large run, and with one link per
 * packet their cache misses were most of its time. A position in a FIFO is chunk << 4 | offset (a
 * shift, not a division by the entries per chunk, which took a fifth of each push). */
#define CHUNK_WORDS      16u
#define ENTRY_WORDS(pl)  ((pl)->entry_words)
#define PACK_ALL         0xffffu /* SN_NODE_ALL in a one-word entry */
#define CHUNK_ENTRIES(w) ((CHUNK_WORDS - 1) / (w))
#define POS(c, off)      ((c) << 4 | (off)) /* off < CHUNK_ENTRIES(1) = 15 < 16 */
#define POS_CHUNK(i)     ((i) >> 4)
#define POS_OFF(i)       ((i) &15u)

#define NIL UINT32_MAX

/* A source's own personalised packets in sending order: destinations grouped by first port
 * (dst[off[p] .. off[p+1]-1] leave on port p), farthest first, then by destination. On a Cayley
 * graph one list, built for the identity with relative destinations z, serves every node u (its
 * destinations are u * z; first ports and distances are invariant under translation), so the order
 * is node-invariant and the memory is O(n) instead of O(n^2). */
typedef struct {
    uint32_t *dst, *dist, *off;
    uint32_t m;
} ownlist_t;

/* The queue of one port group: FIFO buckets by priority, allocated on first use. */
typedef struct {
    uint32_t *head, *tail; /* [nbuckets] */
    uint32_t top;          /* no bucket above `top` holds anything */
    uint32_t count;
} pq_t;

typedef struct {
    const struct plan_s *pl;
    uint32_t u, deg;
    void *block;       /* one allocation for the per-port arrays below (locality) */
    int own_buckets;   /* bucket arrays live in `block` */
    pq_t *q;           /* [deg], used at the first port of each neighbour group */
    uint32_t *leader;  /* [deg] first port of each port's group */
    uint32_t *colport; /* [ncolours] port of each colour, or UINT32_MAX (rx one) */
    uint32_t *chunks;  /* CHUNK_WORDS per chunk: word 0 links the next chunk of a FIFO or of the
                          free list */
    uint32_t nchunks, capchunks, freechunk;
    uint32_t *fcache; /* [capfc] the chunks freed last, a stack: taking one is not a load of the
                         cold link of the free list (the miss of most pushes, whose FIFO is often
                         empty, when a slot walks thousands of nodes) */
    uint32_t nfc, capfc;
    /* own personalised packets, generated lazily per group in priority order */
    const ownlist_t *own; /* the plan's shared list (Cayley) or own_private */
    ownlist_t own_private;
    uint32_t *own_k;   /* [deg] packets of the current destination already injected */
    uint32_t *own_cur; /* [deg] current index into own->dst */
    uint64_t pending;  /* queued plus not yet injected */
    uint64_t queued;   /* received packets waiting in the queues (the max_queue report) */
} state_t;

typedef struct plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    int bcast; /* mnb / pmnb */
    sn_route_t *route;
    uint32_t nbuckets;    /* priorities are 0 .. nbuckets-1 */
    uint32_t entry_words; /* of a queued packet: 1, 2 or 3 (see the chunks above) */
    uint32_t *colour;     /* per edge (single-port, rx one) */
    uint32_t ncolours;
    uint8_t *is_src; /* [n] */
    ownlist_t own0;  /* Cayley graphs: the identity's own list, relative destinations */
    int shared_own;
} plan_t;

static void own_build(const plan_t *pl, uint32_t u, ownlist_t *out);

/* ---- bucket queues ------------------------------------------------------------------------ */

/* A chunk from the node's pool (the recently freed, then the free list; the pool grows by a
 * quarter: queues are most of the memory of a large run). */
static uint32_t chunk_new(state_t *s)
{
    if (s->nfc > 0)
        return s->fcache[--s->nfc];
    uint32_t c = s->freechunk;
    if (c != NIL) {
        s->freechunk = s->chunks[(size_t) c * CHUNK_WORDS];
        return c;
    }
    if (s->nchunks == s->capchunks) {
        uint64_t cap = (uint64_t) s->capchunks + s->capchunks / 4 + 4;
        /* positions (chunk << 4 | offset) must stay below NIL */
        if (cap > (UINT32_MAX - 1) / 16)
            cap = (UINT32_MAX - 1) / 16;
        s->chunks = sn_xrealloc(s->chunks, (size_t) cap * CHUNK_WORDS * sizeof *s->chunks);
        s->capchunks = (uint32_t) cap;
    }
    return s->nchunks++;
}

static void chunk_free(state_t *s, uint32_t c)
{
    if (s->nfc < s->capfc) {
        s->fcache[s->nfc++] = c;
        return;
    }
    s->chunks[(size_t) c * CHUNK_WORDS] = s->freechunk;
    s->freechunk = c;
}

static void pq_push(state_t *s, uint32_t g, uint32_t key, const sn_packet_t *pkt)
{
    pq_t *q = &s->q[g];
    if (q->head == NULL) { /* large bucket counts: allocated on the port's first packet */
        uint32_t nb = s->pl->nbuckets;
        q->head = sn_xmalloc(2 * nb * sizeof *q->head);
        q->tail = q->head + nb;
        for (uint32_t i = 0; i < nb; i++)
            q->head[i] = NIL;
    }
    const uint32_t w = ENTRY_WORDS(s->pl), per = CHUNK_ENTRIES(w);
    uint32_t pos, t = q->tail[key];
    if (q->head[key] != NIL && POS_OFF(t) + 1 < per) {
        pos = t + 1;
    } else {
        uint32_t c = chunk_new(s);
        if (q->head[key] == NIL)
            q->head[key] = POS(c, 0);
        else
            s->chunks[(size_t) POS_CHUNK(t) * CHUNK_WORDS] = c;
        pos = POS(c, 0);
    }
    q->tail[key] = pos;
    uint32_t *e = &s->chunks[(size_t) POS_CHUNK(pos) * CHUNK_WORDS + 1 + POS_OFF(pos) * w];
    if (w == 1) {
        e[0] = pkt->src << 16 | (pkt->dst == SN_NODE_ALL ? PACK_ALL : pkt->dst);
    } else {
        e[0] = pkt->src;
        e[1] = pkt->dst;
        if (w == 3)
            e[2] = pkt->seq * s->pl->p->frags + pkt->frag;
    }
    if (q->count == 0 || key > q->top)
        q->top = key;
    q->count++;
    s->queued++;
}

/* Highest non-empty bucket of group g (the queue must not be empty). */
static uint32_t pq_top(state_t *s, uint32_t g)
{
    pq_t *q = &s->q[g];
    while (q->head[q->top] == NIL)
        q->top--;
    return q->top;
}

static sn_packet_t pq_pop(state_t *s, uint32_t g)
{
    pq_t *q = &s->q[g];
    uint32_t key = pq_top(s, g), i = q->head[key];
    const uint32_t w = ENTRY_WORDS(s->pl), per = CHUNK_ENTRIES(w);
    const uint32_t *e = &s->chunks[(size_t) POS_CHUNK(i) * CHUNK_WORDS + 1 + POS_OFF(i) * w];
    const sn_params_t *p = s->pl->p;
    uint32_t k = w == 3 ? e[2] : 0, seq = p->frags == 1 ? k : k / p->frags;
    uint32_t src = w == 1 ? e[0] >> 16 : e[0], dst = w == 1 ? e[0] & PACK_ALL : e[1];
    if (w == 1 && dst == PACK_ALL)
        dst = SN_NODE_ALL;
    sn_packet_t pkt = sn_packet_data(p, src, dst, seq, k - seq * p->frags);
    if (i == q->tail[key]) { /* the FIFO is empty now */
        chunk_free(s, POS_CHUNK(i));
        q->head[key] = NIL;
    } else if (POS_OFF(i) + 1 < per) {
        q->head[key] = i + 1;
    } else {
        q->head[key] = POS(s->chunks[(size_t) POS_CHUNK(i) * CHUNK_WORDS], 0);
        chunk_free(s, POS_CHUNK(i));
    }
    q->count--;
    s->queued--;
    return pkt;
}

/* ---- plan --------------------------------------------------------------------------------- */

static int route_ff_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->bcast = sn_coll_is_broadcast(p->coll);
    int rc = sn_route_new(t, &pl->route, err);
    if (rc < 0) {
        free(pl);
        return rc;
    }
    pl->nbuckets = sn_topo_diameter(t, 0) + 1;
    pl->entry_words = p->msgs * p->frags > 1 ? 3u : t->n < PACK_ALL ? 1u : 2u;
    if (p->pm.ports == SN_PORTS_SINGLE && p->pm.rx == SN_RX_ONE) {
        pl->colour = sn_xmalloc((t->nedges + 1) * sizeof *pl->colour);
        pl->ncolours = sn_topo_edge_colouring(t, pl->colour);
    }
    /* Cayley graphs with every node a processor: one own list for all nodes */
    pl->shared_own = t->cayley && t->is_router == NULL && !pl->bcast;
    if (pl->shared_own)
        own_build(pl, 0, &pl->own0);
    pl->is_src = sn_xcalloc(t->n, 1);
    if (p->sources) {
        for (uint32_t i = 0; i < p->nsources; i++)
            pl->is_src[p->sources[i]] = 1;
    } else {
        for (uint32_t u = 0; u < t->n; u++)
            pl->is_src[u] = sn_topo_is_proc(t, u);
    }
    *out = pl;
    return 0;
}

static void route_ff_plan_free(void *plan)
{
    plan_t *pl = plan;
    sn_route_free(pl->route);
    free(pl->own0.dst);
    free(pl->colour);
    free(pl->is_src);
    free(pl);
}

static int64_t route_ff_predicted(const void *plan)
{
    (void) plan;
    return -1;
}

/* ---- node ------------------------------------------------------------------------------- */

typedef struct {
    uint32_t leader, dist, dst;
} own_t;

/* Builds u's own list (for the shared list: u = 0, the identity, so destinations are relative). A
 * counting sort by (first port, distance descending) keeps destinations ascending within. */
static void own_build(const plan_t *pl, uint32_t u, ownlist_t *out)
{
    const sn_topo_t *t = pl->t;
    uint32_t deg = sn_topo_degree(t, u), nb = pl->nbuckets;
    own_t *tmp = sn_xmalloc(((size_t) t->nproc + 1) * sizeof *tmp);
    uint32_t m = 0;
    for (uint32_t r = 0; r < t->nproc; r++) {
        uint32_t d = sn_topo_proc(t, r), port = 0;
        if (d == u)
            continue;
        uint32_t dist = sn_route_lookup(pl->route, u, d, &port);
        tmp[m++] = (own_t){port, dist, d};
    }
    uint32_t *cnt = sn_xcalloc((size_t) deg * nb + 1, sizeof *cnt);
    for (uint32_t i = 0; i < m; i++)
        cnt[tmp[i].leader * nb + (nb - 1 - tmp[i].dist) + 1]++;
    for (uint32_t i = 0; i < deg * nb; i++)
        cnt[i + 1] += cnt[i];
    out->m = m;
    out->dst = sn_xmalloc((2 * (size_t) m + deg + 2) * sizeof *out->dst);
    out->dist = out->dst + m;
    out->off = out->dist + m;
    for (uint32_t p = 0; p <= deg; p++)
        out->off[p] = cnt[p * nb];
    for (uint32_t i = 0; i < m; i++) {
        uint32_t at = cnt[tmp[i].leader * nb + (nb - 1 - tmp[i].dist)]++;
        out->dst[at] = tmp[i].dst;
        out->dist[at] = tmp[i].dist;
    }
    free(cnt);
    free(tmp);
}

/* Queues a broadcast packet for every child of u in T_src (the neighbours whose next hop towards
 * src is u and whose subtree holds a processor), keyed by that child's subtree height. */
static void route_ff_push_children(state_t *s, const sn_packet_t *pkt)
{
    const plan_t *pl = s->pl;
    for (uint32_t p = 0; p < s->deg; p++) {
        if (s->leader[p] != p)
            continue;
        uint32_t w = sn_topo_port(pl->t, s->u, p)->peer;
        if (w == pkt->src || sn_route_next(pl->route, pl->t, w, pkt->src) != s->u)
            continue;
        int32_t h = sn_route_height(pl->route, pkt->src, w);
        if (h < 0)
            continue;
        pq_push(s, p, (uint32_t) h, pkt);
        s->pending++;
    }
}

static int route_ff_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = plan;
    const sn_topo_t *t = pl->t;
    s->pl = pl;
    s->u = u;
    s->deg = sn_topo_degree(t, u);
    /* One block: q[deg], then the u32 arrays, then (if small) every port's buckets. */
    uint32_t deg = s->deg, nb = pl->nbuckets, ncol = pl->colour ? pl->ncolours : 0;
    int personal = pl->is_src[u] && !pl->bcast;
    s->freechunk = NIL;
    s->capfc = 2 * deg < 64 ? 2 * deg : 64;
    size_t nu32 = (size_t) deg + 1 + ncol + (personal ? 2 * (size_t) deg : 0) + s->capfc;
    s->own_buckets = (uint64_t) deg * nb <= 4096;
    size_t nbk = s->own_buckets ? 2 * (size_t) deg * nb : 0;
    s->block = sn_xcalloc(1, (deg + 1) * sizeof(pq_t) + (nu32 + nbk) * sizeof(uint32_t));
    s->q = s->block;
    uint32_t *w = (uint32_t *) (s->q + deg + 1);
    s->leader = w;
    w += deg + 1;
    s->fcache = w;
    w += s->capfc;
    if (ncol) {
        s->colport = w;
        w += ncol;
    }
    if (personal) {
        s->own_k = w;
        w += deg;
        s->own_cur = w;
        w += deg;
    }
    for (uint32_t p = 0; s->own_buckets && p < deg; p++) {
        s->q[p].head = w;
        s->q[p].tail = w + nb;
        for (uint32_t i = 0; i < nb; i++)
            s->q[p].head[i] = NIL;
        w += 2 * nb;
    }
    for (uint32_t p = 0; p < s->deg; p++) {
        uint32_t peer = sn_topo_port(t, u, p)->peer;
        s->leader[p] = (p > 0 && sn_topo_port(t, u, p - 1)->peer == peer) ? s->leader[p - 1] : p;
    }
    if (pl->colour) {
        for (uint32_t c = 0; c < pl->ncolours; c++)
            s->colport[c] = UINT32_MAX;
        for (uint32_t p = 0; p < s->deg; p++)
            s->colport[pl->colour[sn_topo_port(t, u, p)->edge]] = p;
    }
    if (!pl->is_src[u] || pl->bcast)
        return 0;
    if (pl->shared_own) {
        s->own = &pl->own0;
    } else {
        own_build(pl, u, &s->own_private);
        s->own = &s->own_private;
    }
    for (uint32_t p = 0; p < s->deg; p++)
        s->own_cur[p] = s->own->off[p];
    s->pending = (uint64_t) s->own->m * pl->p->msgs * pl->p->frags;
    return 0;
}

static void route_ff_node_fini(void *state)
{
    state_t *s = state;
    for (uint32_t p = 0; s->q && !s->own_buckets && p < s->deg; p++)
        free(s->q[p].head);
    free(s->block);
    free(s->chunks);
    free(s->own_private.dst);
}

/* The priority of the best packet of group g (leader port) and whether it is the node's own;
 * returns 0 if the group is empty. Own packets win ties. */
static int peek(const state_t *s, uint32_t g, uint32_t *key, int *own)
{
    int have = 0;
    if (s->own && s->own_cur[g] < s->own->off[g + 1]) {
        *key = s->own->dist[s->own_cur[g]];
        *own = 1;
        have = 1;
    }
    if (s->q[g].count > 0) {
        uint32_t k = pq_top((state_t *) s, g);
        if (!have || k > *key) {
            *key = k;
            *own = 0;
            have = 1;
        }
    }
    return have;
}

static sn_packet_t take(state_t *s, uint32_t g, int own)
{
    s->pending--;
    if (!own)
        return pq_pop(s, g);
    const sn_params_t *p = s->pl->p;
    uint32_t d = s->own->dst[s->own_cur[g]], k = s->own_k[g];
    if (s->pl->shared_own)
        d = sn_topo_mul(s->pl->t, s->u, d); /* relative to absolute */
    if (++s->own_k[g] == p->msgs * p->frags) {
        s->own_k[g] = 0;
        s->own_cur[g]++;
    }
    return sn_packet_data(p, s->u, d, k / p->frags, k % p->frags);
}

/* May port p of u send in this slot under half duplex? `round` is the parity clock. */
static int dir_ok(const state_t *s, uint32_t p, uint64_t round)
{
    const sn_topo_t *t = s->pl->t;
    if (s->pl->p->pm.duplex != SN_DUPLEX_HALF)
        return 1;
    uint32_t e = sn_topo_port(t, s->u, p)->edge;
    int from_a = t->edges[e].a == s->u;
    return (int) ((round + e) & 1) == (from_a ? 0 : 1);
}

static int route_ff_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_topo_t *t = pl->t;
    if (io->slot == 1 && pl->bcast && pl->is_src[s->u]) {
        for (uint32_t k = 0; k < pl->p->msgs * pl->p->frags; k++) {
            sn_packet_t pkt =
                sn_packet_data(pl->p, s->u, SN_NODE_ALL, k / pl->p->frags, k % pl->p->frags);
            route_ff_push_children(s, &pkt);
        }
    }
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (pl->bcast) {
            if (sn_topo_is_proc(t, s->u))
                sn_step_deliver(io, k);
            route_ff_push_children(s, k);
        } else if (k->dst == s->u) {
            sn_step_deliver(io, k);
        } else {
            uint32_t g = 0, d = sn_route_lookup(pl->route, s->u, k->dst, &g);
            pq_push(s, g, d, k);
            s->pending++;
        }
    }
    if (s->pending == 0)
        return 0;
    uint64_t t1 = io->slot - 1;
    uint32_t key;
    int own;
    if (pl->p->pm.ports == SN_PORTS_MULTI) {
        /* every port pops this slot: start the loads of each queue's head chunk first, so that
         * their cache misses overlap instead of following one another (te-route on hypercube:12:
         * about a quarter less time) */
        for (uint32_t p = 0; p < s->deg; p++) {
            const pq_t *q = &s->q[s->leader[p]];
            if (q->count > 0) {
                uint32_t i = q->head[pq_top(s, s->leader[p])];
                __builtin_prefetch(&s->chunks[(size_t) POS_CHUNK(i) * CHUNK_WORDS]);
            }
        }
        for (uint32_t p = 0; p < s->deg; p++) {
            if (dir_ok(s, p, t1) && peek(s, s->leader[p], &key, &own)) {
                sn_packet_t pkt = take(s, s->leader[p], own);
                sn_step_send(io, p, &pkt);
            }
        }
    } else if (pl->colour) {
        uint32_t p = s->colport[t1 % pl->ncolours];
        if (p != UINT32_MAX && dir_ok(s, p, t1 / pl->ncolours) &&
            peek(s, s->leader[p], &key, &own)) {
            sn_packet_t pkt = take(s, s->leader[p], own);
            sn_step_send(io, p, &pkt);
        }
    } else {
        /* single-port, any receptions: the best head over all usable ports (ties: own packets,
         * then the lowest port) */
        uint32_t best = UINT32_MAX, bkey = 0;
        int bown = 0;
        for (uint32_t p = 0; p < s->deg; p++) {
            if (!dir_ok(s, p, t1) || !peek(s, s->leader[p], &key, &own))
                continue;
            if (best == UINT32_MAX || key > bkey || (key == bkey && own && !bown)) {
                best = p;
                bkey = key;
                bown = own;
            }
        }
        if (best != UINT32_MAX) {
            sn_packet_t pkt = take(s, s->leader[best], bown);
            sn_step_send(io, best, &pkt);
        }
    }
    io->queue = (uint32_t) (s->queued >= SN_QUEUE_UNREPORTED ? SN_QUEUE_UNREPORTED - 1 : s->queued);
    if (s->pending > 0)
        io->wake = io->slot + 1;
    return 0;
}

#define ROUTE_ALGO(sym, nm, cl, summ)                                                              \
    const sn_algo_t sym = {                                                                        \
        .name = nm,                                                                                \
        .coll = cl,                                                                                \
        .pm_mask = SN_PM_ALL,                                                                      \
        .topos = "any",                                                                            \
        .summary = summ,                                                                           \
        .source = "generic baseline; bounds from Dimakopoulos, thesis, section 4.1, (4.1), (4.4)", \
        .predicts = "no exact count in theory for this generic algorithm",                         \
        .plan_new = route_ff_plan_new,                                                             \
        .plan_free = route_ff_plan_free,                                                           \
        .predicted = route_ff_predicted,                                                           \
        .state_size = sizeof(state_t),                                                             \
        .node_init = route_ff_node_init,                                                           \
        .node_fini = route_ff_node_fini,                                                           \
        .node_step = route_ff_node_step,                                                           \
        .parallel = 1,                                                                             \
    }

ROUTE_ALGO(sn__algo_mnb_route, "mnb-route", SN_COLL_MNB,
           "every source floods its shortest-path tree; furthest-first queue per port");
ROUTE_ALGO(sn__algo_te_route, "te-route", SN_COLL_TE,
           "shortest-path routing with a furthest-first queue per port");
ROUTE_ALGO(sn__algo_pmnb_route, "pmnb-route", SN_COLL_PMNB,
           "the given sources flood their shortest-path trees; furthest-first queue per port");
ROUTE_ALGO(sn__algo_pexchange_route, "pexchange-route", SN_COLL_PEXCHANGE,
           "the given sources route to every processor; furthest-first queue per port");
