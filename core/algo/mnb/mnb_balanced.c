/* mnb-balanced: multinode broadcast on any graph over per-source shortest-path trees chosen so
 * that the directed links carry equal shares of the N(N-1) transmissions, with a furthest-first
 * queue per port (core/algo). Generic; theory gives no exact count for it, so predicted_steps is
 * none and the run is the figure. Lower bounds: the receptions bound (N-1)M/deg and the diameter
 * (Dimakopoulos, thesis, section 2.1; core/model/bounds.c), which every multinode broadcast needs.
 *
 * Why: mnb-route floods the trees of the route oracle, which have the same shape for every source
 * (on a hypercube every tree starts on the same dimension), so most links idle while one
 * dimension serialises: N/2 steps on every hypercube. Here the trees are built source after
 * source, breadth-first: a node at distance d+1 from source s takes as parent, among its
 * neighbours at distance d, the one whose link towards it has carried the fewest trees so far
 * (ties: the candidate at index s mod count, so that sources differ even on an empty load table).
 * Every tree is still a shortest-path tree; the load of every directed link is close to the
 * average N(N-1)/(2|E|).
 *
 * Forwarding: a packet of source s that reaches u is queued on every port that leads to a child of
 * u in tree s, keyed by the height of that child's subtree (furthest first; ties first come, first
 * served); every port sends its best packet each slot (multiport only: under single-port the
 * choice of the one port matters more than the trees, and mnb-route does better there). The plan
 * keeps one up-port per (source, node), so it is limited to MAX_NODES nodes.
 *
 * Not a dominance: on a few small graphs of the test sweep (mesh:2x7, ccc:3, butterfly:3,
 * ring:3*linear:4) mnb-route's trees are better; auto keeps mnb-route (neither predicts a count).
 */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/heap.h"
#include "stepnet/util.h"

#define MAX_NODES 2048u

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t n, M;
    uint32_t *up;     /* [n * n] up[s * n + w]: w's port towards its parent in tree s, or NONE */
    uint16_t *height; /* [n * n] height of w's subtree in tree s (processors counted) */
} plan_t;

#define NONE UINT32_MAX

typedef struct {
    uint32_t key;
    uint64_t order;
    sn_packet_t pkt;
} item_t;

static int above(const item_t *a, const item_t *b);
SN_HEAP_DEFINE(heap, item_t, above)

typedef struct {
    const plan_t *pl;
    uint32_t u, deg;
    heap_t *q; /* [deg] */
    uint64_t order, pending;
} state_t;

static int mnb_balanced_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (p->sources != NULL)
        return sn_err_set(err, SN_ENOTSUP, "mnb-balanced broadcasts from every processor");
    if (t->n > MAX_NODES)
        return sn_err_set(err, SN_ERANGE,
                          "mnb-balanced keeps a tree per source, for at most %u nodes; %s has %u",
                          MAX_NODES, t->spec, t->n);
    return 0;
}

static void mnb_balanced_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->up);
    free(pl->height);
    free(pl);
}

static int mnb_balanced_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    int rc = mnb_balanced_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->n = n;
    pl->M = p->msgs * p->frags;
    pl->up = sn_xmalloc((size_t) n * n * sizeof *pl->up);
    pl->height = sn_xcalloc((size_t) n * n, sizeof *pl->height);
    uint32_t *load = sn_xcalloc(t->port_off[n] + 1, sizeof *load); /* per (node, port) */
    uint32_t *dist = sn_xmalloc((size_t) n * sizeof *dist), *order = sn_xmalloc(n * sizeof *order);
    /* loads per link and distance from the source (the slot a packet crosses it, roughly) */
    uint32_t nlv = sn_topo_diameter(t, 0) + 1;
    uint32_t *lvl = sn_xcalloc(((size_t) t->port_off[n] + 1) * nlv, sizeof *lvl);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t *up = pl->up + (size_t) s * n;
        for (uint32_t v = 0; v < n; v++) {
            dist[v] = NONE;
            up[v] = NONE;
        }
        dist[s] = 0;
        uint32_t head = 0, tail = 0;
        order[tail++] = s;
        while (head < tail) {
            uint32_t u = order[head++];
            for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
                uint32_t v = sn_topo_port(t, u, q)->peer;
                if (dist[v] == NONE) {
                    dist[v] = dist[u] + 1;
                    order[tail++] = v;
                }
            }
        }
        /* in BFS order: each node picks the least loaded link from the previous level */
        for (uint32_t i = 1; i < tail; i++) {
            uint32_t v = order[i], deg = sn_topo_degree(t, v), cands = 0;
            for (uint32_t q = 0; q < deg; q++)
                cands += dist[sn_topo_port(t, v, q)->peer] + 1 == dist[v];
            uint32_t best = NONE, bload = 0, blv = 0, pick = s % cands, c = 0, bc = 0;
            for (uint32_t q = 0; q < deg; q++) {
                const sn_port_t *pp = sn_topo_port(t, v, q);
                if (dist[pp->peer] + 1 != dist[v])
                    continue;
                size_t link = t->port_off[pp->peer] + pp->rport;
                uint32_t l = load[link], ll = lvl[link * nlv + dist[v] % nlv];
                /* the least load in this level, then overall; then the candidate nearest after
                 * index `pick` */
                uint32_t rank = (c + cands - pick) % cands;
                if (best == NONE || ll < blv || (ll == blv && l < bload) ||
                    (ll == blv && l == bload && rank < bc)) {
                    blv = ll;
                    best = q;
                    bload = l;
                    bc = rank;
                }
                c++;
            }
            up[v] = best;
            const sn_port_t *pp = sn_topo_port(t, v, best);
            size_t link = t->port_off[pp->peer] + pp->rport;
            load[link]++;
            lvl[link * nlv + dist[v] % nlv]++;
        }
        /* heights, leaves first (reverse BFS order): processors count */
        uint16_t *h = pl->height + (size_t) s * n;
        for (uint32_t i = tail; i-- > 1;) {
            uint32_t v = order[i];
            uint32_t par = sn_topo_port(t, v, up[v])->peer;
            if (!sn_topo_is_proc(t, v) && h[v] == 0)
                continue; /* an empty router branch adds nothing */
            if ((uint16_t) (h[v] + 1) > h[par])
                h[par] = (uint16_t) (h[v] + 1);
        }
        if (tail != n) {
            free(load);
            free(lvl);
            free(dist);
            free(order);
            mnb_balanced_plan_free(pl);
            return sn_err_set(err, SN_EALGO, "mnb-balanced: %s is not connected", t->spec);
        }
    }
    free(load);
    free(lvl);
    free(dist);
    free(order);
    *out = pl;
    return 0;
}

static int64_t mnb_balanced_predicted(const void *plan)
{
    (void) plan;
    return -1;
}

static int mnb_balanced_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    s->deg = sn_topo_degree(s->pl->t, node);
    s->q = sn_xcalloc(s->deg + 1, sizeof *s->q);
    return 0;
}

static void mnb_balanced_node_fini(void *state)
{
    state_t *s = state;
    for (uint32_t p = 0; s->q && p < s->deg; p++)
        free(s->q[p].v);
    free(s->q);
}

/* Max-heap on (key, earliest order). */
static int above(const item_t *a, const item_t *b)
{
    return a->key > b->key || (a->key == b->key && a->order < b->order);
}

/* Queues pkt on every port of u that leads to a child of u in tree pkt->src with processors. */
static void mnb_balanced_push_children(state_t *s, const sn_packet_t *pkt)
{
    const plan_t *pl = s->pl;
    const uint32_t *up = pl->up + (size_t) pkt->src * pl->n;
    const uint16_t *h = pl->height + (size_t) pkt->src * pl->n;
    for (uint32_t p = 0; p < s->deg; p++) {
        const sn_port_t *pp = sn_topo_port(pl->t, s->u, p);
        uint32_t w = pp->peer;
        if (up[w] != pp->rport || (h[w] == 0 && !sn_topo_is_proc(pl->t, w)))
            continue;
        item_t it = {h[w], s->order++, *pkt};
        heap_push(&s->q[p], &it);
        s->pending++;
    }
}

static int mnb_balanced_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint32_t f = pl->p->frags;
    if (io->slot == 1 && sn_topo_is_proc(pl->t, s->u))
        for (uint32_t k = 0; k < pl->M; k++) {
            sn_packet_t pkt = sn_packet_data(pl->p, s->u, SN_NODE_ALL, k / f, k % f);
            mnb_balanced_push_children(s, &pkt);
        }
    for (size_t i = 0; i < io->nrx; i++) {
        if (sn_topo_is_proc(pl->t, s->u))
            sn_step_deliver(io, &io->rx[i].pkt);
        mnb_balanced_push_children(s, &io->rx[i].pkt);
    }
    for (uint32_t p = 0; p < s->deg; p++)
        if (s->q[p].n > 0) {
            item_t it = heap_pop(&s->q[p]);
            s->pending--;
            sn_step_send(io, p, &it.pkt);
        }
    if (s->pending > 0)
        io->wake = io->slot + 1;
    return 0;
}

const sn_algo_t sn__algo_mnb_balanced = {
    .name = "mnb-balanced",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_MULTI,
    .topos = "any (up to 2048 nodes)",
    .summary = "per-source shortest-path trees with balanced link loads; furthest-first per port",
    .source = "generic; bounds from Dimakopoulos, thesis, section 2.1 (diameter, receptions)",
    .predicts = "no exact count in theory for this generic algorithm",
    .applies = mnb_balanced_applies,
    .plan_new = mnb_balanced_plan_new,
    .plan_free = mnb_balanced_plan_free,
    .predicted = mnb_balanced_predicted,
    .state_size = sizeof(state_t),
    .node_init = mnb_balanced_node_init,
    .node_fini = mnb_balanced_node_fini,
    .node_step = mnb_balanced_node_step,
    .parallel = 1,
};
