/* mnb-cayley: a node-invariant multinode broadcast on Cayley graphs, by translating one balanced
 * spanning tree (core/algo). On a Cayley graph node u's port q leads to u * gamma_q for the same
 * generator gamma_q at every node, so one spanning tree T of the identity, translated by each
 * source s (s * T), is a spanning tree rooted at s, and one timetable of the identity, translated
 * by each node, is a timetable of every node: the idea of the node-invariant total exchange of
 * Dimakopoulos, thesis, section 4.4.4 (Fig. 4.5, Lemmas 4.8-4.9: every node does what the identity
 * does, translated), applied to broadcast trees as the torus framework of Fragopoulou and Akl
 * applies it to tori (one tree shape, translated to every source).
 *
 * The identity e forwards, for each edge x -> x * gamma of T, the packet of source x^-1 on port
 * gamma: node u then forwards the packet of source u * x^-1, which reached it from u * gamma'^-1
 * along the tree edge into x. So link u -> u * gamma carries exactly the packets of the tree edges
 * labelled gamma, and the multiport schedule length is at least the largest such label count. The
 * tree is a breadth-first tree whose parents are chosen to balance the labels (each node takes,
 * among its neighbours one level up, the one whose edge label is least used so far), so every
 * packet follows a shortest path and the labels share the N - 1 edges about equally.
 *
 * The timetable: list scheduling of the identity's tree edges, one per port per slot (multiport)
 * or one per slot (single-port), an edge ready one slot after the edge into its tail, the highest
 * subtree first (then packet order, then node). Its length is the prediction, replayed exactly by
 * both executors; single-port it is M (N - 1), the reception bound, since the identity sends in
 * every slot. Arrivals are checked against the translated timetable (identity, payload digest,
 * port), and a forwarded packet is rebuilt from the same identity, so nothing is stored. Not half
 * duplex: a generator that is an involution (hypercube dimensions) carries packets both ways. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/heap.h"
#include "stepnet/util.h"

/* The longest timetable kept (12 bytes an entry, 48 MiB): M (N - 1) edges. */
#define MAX_ENTRIES (1u << 22)

/* One send of the identity: packet k (k = seq * frags + frag) of source `xinv` (relative to the
 * sender: node u sends the packet of source u * xinv) on `port`. */
typedef struct {
    uint32_t xinv, k, port;
} entry_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t *invport;  /* [deg] the port on which a packet sent on port q arrives */
    entry_t *ent;       /* [E] by slot */
    uint64_t *slot_off; /* [T + 1]: the sends of slot s are ent[slot_off[s-1] .. slot_off[s]-1] */
    uint64_t T, E;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
} state_t;

static int mnb_cayley_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (!t->cayley || t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP,
                          "mnb-cayley needs a Cayley graph whose node ids are group elements "
                          "(ring, ering, circulant, complete, torus, hypercube, foldedcube, ccc, "
                          "butterfly, star, or a product of these); %s is not one",
                          t->spec);
    uint64_t e = (uint64_t) p->msgs * p->frags * (t->n - 1);
    if (e > MAX_ENTRIES)
        return sn_err_set(err, SN_ERANGE,
                          "mnb-cayley on %s: %llu tree edges to schedule (msgs x frags x (N-1)), "
                          "at most %u",
                          t->spec, (unsigned long long) e, MAX_ENTRIES);
    return 0;
}

static void mnb_cayley_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->invport);
    free(pl->ent);
    free(pl->slot_off);
    free(pl);
}

/* A candidate send in the scheduler: tree node `child` (reached from its parent on `port`),
 * packet k; its priority is the height of child's subtree. */
typedef struct {
    uint32_t child, k, height;
} cand_t;

/* Max-heap order: higher subtree first, then lower k, then lower node. */
static int before(const cand_t *a, const cand_t *b)
{
    if (a->height != b->height)
        return a->height > b->height;
    if (a->k != b->k)
        return a->k < b->k;
    return a->child < b->child;
}

SN_HEAP_DEFINE(heap, cand_t, before)

/* The balanced breadth-first tree of the identity: parent[v] and the port at the parent (pport),
 * children lists (first child, next sibling), subtree heights. */
typedef struct {
    uint32_t *parent, *pport, *first, *next, *height, *order;
} tree_t;

static void tree_free(tree_t *tr)
{
    free(tr->parent), free(tr->pport), free(tr->first), free(tr->next), free(tr->height);
    free(tr->order);
}

static void tree_build(const sn_topo_t *t, tree_t *tr)
{
    uint32_t n = t->n, deg = sn_topo_degree(t, 0);
    uint32_t *dist = sn_xmalloc((size_t) n * sizeof *dist);
    uint64_t *load = sn_xcalloc(deg, sizeof *load);
    tr->parent = sn_xmalloc((size_t) n * sizeof *tr->parent);
    tr->pport = sn_xmalloc((size_t) n * sizeof *tr->pport);
    tr->first = sn_xmalloc((size_t) n * sizeof *tr->first);
    tr->next = sn_xmalloc((size_t) n * sizeof *tr->next);
    tr->height = sn_xcalloc(n, sizeof *tr->height);
    tr->order = sn_xmalloc((size_t) n * sizeof *tr->order);
    sn_topo_bfs(t, 0, dist);
    /* breadth-first order (by distance, then id): counting sort on the distance */
    uint32_t maxd = 0;
    for (uint32_t v = 0; v < n; v++)
        if (dist[v] > maxd)
            maxd = dist[v];
    uint32_t *cnt = sn_xcalloc((size_t) maxd + 2, sizeof *cnt);
    for (uint32_t v = 0; v < n; v++)
        cnt[dist[v] + 1]++;
    for (uint32_t d = 1; d <= maxd + 1; d++)
        cnt[d] += cnt[d - 1];
    for (uint32_t v = 0; v < n; v++)
        tr->order[cnt[dist[v]]++] = v;
    free(cnt);
    for (uint32_t v = 0; v < n; v++)
        tr->first[v] = tr->next[v] = UINT32_MAX;
    tr->parent[0] = UINT32_MAX;
    tr->pport[0] = 0;
    /* parents: the least-used label among the neighbours one level up (ties: the lowest port) */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = tr->order[i], best = UINT32_MAX, bport = 0;
        for (uint32_t q = 0; q < sn_topo_degree(t, v); q++) {
            const sn_port_t *pp = sn_topo_port(t, v, q);
            if (dist[pp->peer] + 1 != dist[v])
                continue;
            uint32_t r = pp->rport; /* the port at the parent that leads to v */
            if (best == UINT32_MAX || load[r] < load[bport])
                best = pp->peer, bport = r;
        }
        tr->parent[v] = best;
        tr->pport[v] = bport;
        load[bport]++;
    }
    /* children lists in breadth-first order, heights from the leaves up */
    for (uint32_t i = n; i-- > 1;) {
        uint32_t v = tr->order[i], w = tr->parent[v];
        tr->next[v] = tr->first[w];
        tr->first[w] = v;
        if (tr->height[v] + 1 > tr->height[w])
            tr->height[w] = tr->height[v] + 1;
    }
    free(dist);
    free(load);
}

/* The identity's timetable: list scheduling of its tree edges (see the header). */
static int mnb_cayley_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    int rc = mnb_cayley_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n, deg = sn_topo_degree(t, 0), M = p->msgs * p->frags;
    int single = p->pm.ports == SN_PORTS_SINGLE;
    tree_t tr;
    tree_build(t, &tr);
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->invport = sn_xmalloc(((size_t) deg + 1) * sizeof *pl->invport);
    for (uint32_t q = 0; q < deg; q++)
        pl->invport[q] = sn_topo_port(t, 0, q)->rport;
    pl->E = (uint64_t) M * (n - 1);
    pl->ent = sn_xmalloc((pl->E ? pl->E : 1) * sizeof *pl->ent);
    size_t cap_off = 64;
    pl->slot_off = sn_xmalloc(cap_off * sizeof *pl->slot_off);
    pl->slot_off[0] = 0;
    /* one heap per port (multiport) or one for all (single-port); `ready` holds the edges that
     * become available in the next slot */
    uint32_t nh = single ? 1 : deg;
    heap_t *h = sn_xcalloc(nh, sizeof *h), ready = {0};
    for (uint32_t c = tr.first[0]; c != UINT32_MAX; c = tr.next[c])
        for (uint32_t k = 0; k < M; k++)
            heap_push(&h[single ? 0 : tr.pport[c]], &(cand_t){c, k, tr.height[c]});
    uint64_t done = 0;
    while (done < pl->E) {
        ready.n = 0;
        for (uint32_t q = 0; q < nh; q++) {
            if (h[q].n == 0)
                continue;
            cand_t c = heap_pop(&h[q]);
            uint32_t x = tr.parent[c.child]; /* the edge x -> child, source x^-1 */
            pl->ent[done++] = (entry_t){sn_topo_inv(t, x), c.k, tr.pport[c.child]};
            for (uint32_t g = tr.first[c.child]; g != UINT32_MAX; g = tr.next[g])
                heap_push(&ready, &(cand_t){g, c.k, tr.height[g]});
        }
        if (++pl->T + 1 > cap_off)
            sn_grow((void **) &pl->slot_off, &cap_off, pl->T + 1, sizeof *pl->slot_off);
        pl->slot_off[pl->T] = done;
        for (size_t i = 0; i < ready.n; i++)
            heap_push(&h[single ? 0 : tr.pport[ready.v[i].child]], &ready.v[i]);
        if (pl->slot_off[pl->T] == pl->slot_off[pl->T - 1] && ready.n == 0) {
            rc = sn_err_set(err, SN_EALGO, "mnb-cayley on %s: the timetable stalled at slot %llu",
                            t->spec, (unsigned long long) pl->T);
            break;
        }
    }
    for (uint32_t q = 0; q < nh; q++)
        free(h[q].v);
    free(h);
    free(ready.v);
    tree_free(&tr);
    if (rc < 0) {
        mnb_cayley_plan_free(pl);
        return rc;
    }
    *out = pl;
    return 0;
}

static int64_t mnb_cayley_predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->T;
}

static int mnb_cayley_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    return 0;
}

/* The packet that node u sends for entry m. */
static sn_packet_t packet_of(const plan_t *pl, uint32_t u, const entry_t *m)
{
    uint32_t f = pl->p->frags;
    return sn_packet_data(pl->p, sn_topo_mul(pl->t, u, m->xinv), SN_NODE_ALL, m->k / f, m->k % f);
}

static int mnb_cayley_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint64_t t = io->slot;
    /* the arrivals of slot t-1: for every send of the identity on port q, one on invport[q] from
     * the neighbour there, in port order as the executors present them */
    size_t want = t >= 2 && t - 1 <= pl->T ? pl->slot_off[t - 1] - pl->slot_off[t - 2] : 0;
    if (io->nrx != want)
        return sn_err_set(err, SN_EALGO,
                          "mnb-cayley: %zu arrivals in slot %llu, the timetable "
                          "expects %zu",
                          io->nrx, (unsigned long long) (t - 1), want);
    for (size_t i = 0; i < want; i++) {
        const entry_t *m = &pl->ent[pl->slot_off[t - 2] + i];
        uint32_t ap = pl->invport[m->port];
        const sn_msg_t *r = NULL;
        for (size_t j = 0; j < io->nrx && r == NULL; j++)
            if (io->rx[j].port == ap)
                r = &io->rx[j];
        uint32_t h = sn_topo_port(pl->t, s->u, ap)->peer;
        sn_packet_t w = packet_of(pl, h, m);
        if (r == NULL || r->pkt.src != w.src || r->pkt.seq != w.seq || r->pkt.frag != w.frag ||
            r->pkt.digest != w.digest)
            return sn_err_set(err, SN_EALGO,
                              "mnb-cayley: node %u expected the packet of source %u seq %u frag "
                              "%u on port %u in slot %llu",
                              s->u, w.src, w.seq, w.frag, ap, (unsigned long long) (t - 1));
        sn_step_deliver(io, &r->pkt);
    }
    if (t <= pl->T)
        for (uint64_t e = pl->slot_off[t - 1]; e < pl->slot_off[t]; e++) {
            sn_packet_t pkt = packet_of(pl, s->u, &pl->ent[e]);
            sn_step_send(io, pl->ent[e].port, &pkt);
        }
    if (t <= pl->T)
        io->wake = t + 1;
    return 0;
}

const sn_algo_t sn__algo_mnb_cayley = {
    .name = "mnb-cayley",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "Cayley graphs: ring, ering, circulant, complete, torus, hypercube, foldedcube, ccc, "
             "butterfly, star and their products",
    .summary = "one breadth-first tree with balanced generator labels, translated to every "
               "source; one timetable of the identity, translated to every node",
    .source = "node invariance as in Dimakopoulos, thesis, sec. 4.4.4 (Lemmas 4.8-4.9) and "
              "Fragopoulou and Akl's translated trees; the timetable is list scheduling",
    .predicts = "the length of the identity's timetable (replayed exactly); single-port "
                "M (N - 1)",
    .applies = mnb_cayley_applies,
    .plan_new = mnb_cayley_plan_new,
    .plan_free = mnb_cayley_plan_free,
    .predicted = mnb_cayley_predicted,
    .state_size = sizeof(state_t),
    .node_init = mnb_cayley_node_init,
    .node_fini = NULL,
    .node_step = mnb_cayley_node_step,
    .parallel = 1,
};
