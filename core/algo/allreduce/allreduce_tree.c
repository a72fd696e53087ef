/* allreduce-tree and barrier-tree: accumulation up a spanning tree, then broadcast of the result
 * down the same tree, on any topology (core/algo).
 *
 * Allreduce is a single-node accumulation followed by a single-node broadcast of its result
 * (Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3: accumulation is
 * the dual of broadcast, its schedule the broadcast's run backwards; Varvarigos, folded-cube
 * paper, section 1). Both phases use one tree rooted at a centre of the processors (a node of
 * least eccentricity towards them; the run's root on vertex-transitive graphs, or when the graph
 * is too large to search), and every transmission is fixed by the slot number alone:
 *
 *  - multiport (Dimakopoulos, thesis, section 3.1, the BFS tree): a node at depth d sends value k
 *    up in slot h - d + 1 + s k and down to its children in slot h + d + 1 + s k, h the height of
 *    the tree over processors, stride s = 1 (full duplex) or 2 (half duplex: an edge then carries
 *    value k up and value k' down in the same slot only if k - k' = 2d - 1, odd); exactly
 *    2h + s (M - 1) slots for M = msgs * frags values, 2 e(centre) for one;
 *  - single-port: the ordered broadcast schedule of the thesis, section 3.1, eq. (6.1) (children
 *    served one per slot, slowest subtree first; r(u) the slot in which u receives, B = max r),
 *    reversed for the accumulation (u sends up in slot B + 1 - r(u)) and then played forwards
 *    (u receives the result in slot B + r(u)); one value per round of 2B slots, 2 B M in all.
 *    Every node sends and receives at most once per slot and every edge carries one direction at a
 *    time, so this holds for one reception per slot and for half duplex.
 *
 * barrier-tree is the same algorithm on the barrier collective: one token per processor. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/ordered.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

/* Search for a centre among all nodes only below this many node-port visits (n BFS). */
#define CENTRE_BUDGET (1ull << 24)

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t root;       /* the tree's root */
    uint32_t npk;        /* M = msgs * frags */
    int single;          /* single-port: rounds of the ordered schedule */
    uint64_t h;          /* multiport: the tree's height over processors */
    uint64_t stride;     /* multiport: slots between values (1 full, 2 half duplex) */
    uint64_t B;          /* single-port: the ordered broadcast's time */
    uint64_t steps;      /* the last slot with a transmission */
    uint32_t *up_port;   /* [n] towards the parent, UINT32_MAX at the root */
    uint32_t *depth;     /* [n] */
    uint64_t *r;         /* [n] single-port: slot of reception in the broadcast (0 at the root) */
    uint8_t *active;     /* [n] the subtree holds a processor */
    uint32_t *nchild;    /* [n] active children */
    uint32_t *down_off;  /* [n+1] active children of u: down_port/down_r[down_off[u] ..] */
    uint32_t *down_port; /* the port towards each active child, in serving order */
    uint64_t *down_r;    /* single-port: r of that child */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t *pending; /* [npk] children partials still to arrive */
    uint64_t *value;   /* [npk] combination so far, the result once known */
    uint8_t *have;     /* [npk] value holds at least one contribution */
    uint8_t *known;    /* [npk] value is the final result */
} state_t;

/* The tree's root: a centre of the processors, or the run's root where every node is one or the
 * search would be too long. */
static uint32_t pick_root(const sn_topo_t *t, const sn_params_t *p)
{
    if (t->vertex_transitive || (uint64_t) t->n * (t->port_off[t->n] + t->n) > CENTRE_BUDGET)
        return p->root;
    uint32_t best = p->root, best_e = sn_topo_ecc(t, p->root, 1);
    for (uint32_t u = 0; u < t->n; u++) {
        uint32_t e = sn_topo_ecc(t, u, 1);
        if (e < best_e) {
            best = u;
            best_e = e;
        }
    }
    return best;
}

static void allreduce_tree_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->up_port);
    free(pl->depth);
    free(pl->r);
    free(pl->active);
    free(pl->nchild);
    free(pl->down_off);
    free(pl->down_port);
    free(pl->down_r);
    free(pl);
}

static int allreduce_tree_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    uint32_t root = pick_root(t, p);
    sn_tree_t *tr = sn__tree_bfs(t, root);
    if (tr == NULL)
        return sn_err_set(err, SN_EALGO, "no spanning tree for %s", t->spec);
    size_t n = t->n;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->root = root;
    pl->npk = p->msgs * p->frags;
    pl->single = p->pm.ports == SN_PORTS_SINGLE;
    pl->stride = p->pm.duplex == SN_DUPLEX_HALF ? 2 : 1;
    pl->h = tr->height;
    pl->up_port = sn_xmalloc(n * sizeof *pl->up_port);
    pl->depth = sn_xmalloc(n * sizeof *pl->depth);
    pl->r = sn_xcalloc(n, sizeof *pl->r);
    pl->active = sn_xcalloc(n, 1);
    pl->nchild = sn_xcalloc(n, sizeof *pl->nchild);
    pl->down_off = sn_xcalloc(n + 1, sizeof *pl->down_off);
    pl->down_port = sn_xmalloc((n ? n : 1) * sizeof *pl->down_port);
    pl->down_r = sn_xcalloc(n ? n : 1, sizeof *pl->down_r);
    uint32_t *order_off = NULL, *order = NULL;
    if (pl->single) {
        order_off = sn_xmalloc((n + 1) * sizeof *order_off);
        order = sn_xmalloc((n ? n : 1) * sizeof *order);
        sn__ordered_schedule(tr, t->n, order_off, order);
    }
    for (uint32_t u = 0; u < t->n; u++) {
        pl->up_port[u] = u == root ? UINT32_MAX : tr->up_port[u];
        pl->depth[u] = tr->depth[u];
        pl->active[u] = tr->nproc[u] > 0;
    }
    /* active children in serving order (single-port: eq. (6.1)'s; multiport: port order), and
     * the broadcast's reception slots r in pre-order: a parent before its children */
    uint32_t *pre = sn_xmalloc((n ? n : 1) * sizeof *pre);
    for (uint32_t u = 0; u < t->n; u++)
        pre[tr->pin[u]] = u;
    uint32_t at = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t u = pre[i];
        pl->down_off[u] = at; /* filled in pre-order; re-based below */
        if (pl->single) {
            for (uint32_t j = order_off[u]; j < order_off[u + 1]; j++) {
                uint32_t c = tr->child[order[j]];
                pl->r[c] = pl->r[u] + (j - order_off[u]) + 1;
                pl->down_port[at] = tr->child_port[order[j]];
                pl->down_r[at++] = pl->r[c];
            }
        } else {
            for (uint32_t j = tr->child_off[u]; j < tr->child_off[u + 1]; j++)
                if (tr->nproc[tr->child[j]] > 0)
                    pl->down_port[at++] = tr->child_port[j];
        }
        pl->nchild[u] = at - pl->down_off[u];
    }
    pl->down_off[t->n] = at;
    free(pre);
    free(order_off);
    free(order);
    for (uint32_t u = 0; u < t->n; u++)
        if (pl->active[u] && pl->r[u] > pl->B)
            pl->B = pl->r[u];
    if (t->nproc <= 1)
        pl->steps = 0;
    else if (pl->single)
        pl->steps = 2 * pl->B * pl->npk;
    else
        pl->steps = 2 * pl->h + pl->stride * (pl->npk - 1);
    sn__tree_free(tr);
    *out = pl;
    (void) err;
    return 0;
}

static int64_t allreduce_tree_predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->steps;
}

static int allreduce_tree_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    s->pl = pl;
    s->u = node;
    s->pending = sn_xcalloc(pl->npk, sizeof *s->pending);
    s->value = sn_xcalloc(pl->npk, sizeof *s->value);
    s->have = sn_xcalloc(pl->npk, 1);
    s->known = sn_xcalloc(pl->npk, 1);
    return 0;
}

static void allreduce_tree_node_fini(void *state)
{
    state_t *s = state;
    free(s->pending);
    free(s->value);
    free(s->have);
    free(s->known);
}

/* The progression a + st k, k = 0 .. M-1: whether slot is in it (then *k), and its first term
 * after slot (SN_WAKE_NEVER if none). */
static int prog_at(uint64_t a, uint64_t st, uint32_t M, uint64_t slot, uint32_t *k)
{
    if (slot < a || (slot - a) % st != 0 || (slot - a) / st >= M)
        return 0;
    *k = (uint32_t) ((slot - a) / st);
    return 1;
}

static uint64_t prog_next(uint64_t a, uint64_t st, uint32_t M, uint64_t slot)
{
    if (slot < a)
        return a;
    uint64_t k = (slot - a) / st + 1;
    return k < M ? a + st * k : SN_WAKE_NEVER;
}

/* The result of value k is known here: deliver it at a processor. */
static void learn(state_t *s, sn_step_t *io, uint32_t k, uint64_t v)
{
    const plan_t *pl = s->pl;
    s->value[k] = v;
    s->known[k] = 1;
    if (sn_topo_is_proc(pl->t, s->u)) {
        sn_packet_t pk = sn_packet_contrib(pl->p, s->u, s->u, k / pl->p->frags, k % pl->p->frags);
        pk.digest = v;
        sn_step_deliver(io, &pk);
    }
}

static int allreduce_tree_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    const uint32_t u = s->u;
    if (!pl->active[u])
        return io->nrx
                   ? sn_err_set(err, SN_EALGO, "node %u is outside the tree and got a packet", u)
                   : 0;
    const int is_root = u == pl->root;
    if (io->slot == 1) {
        for (uint32_t k = 0; k < pl->npk; k++) {
            s->pending[k] = pl->nchild[u];
            if (sn_topo_is_proc(pl->t, u)) {
                s->value[k] = sn_contrib_value(p, u, u, k / p->frags, k % p->frags);
                s->have[k] = 1;
            }
            if (is_root && s->pending[k] == 0)
                learn(s, io, k, s->value[k]);
        }
    }
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *pk = &io->rx[i].pkt;
        uint32_t k = pk->seq * p->frags + pk->frag;
        if (pk->src != SN_SRC_COMBINED || pk->seq >= p->msgs || pk->frag >= p->frags)
            return sn_err_set(err, SN_EALGO, "node %u got a foreign packet (seq %u, frag %u)", u,
                              pk->seq, pk->frag);
        if (pk->flags == 1) { /* the result, from the parent */
            if (io->rx[i].port != pl->up_port[u] || s->known[k])
                return sn_err_set(err, SN_EALGO, "node %u got an unexpected result (seq %u)", u,
                                  pk->seq);
            learn(s, io, k, pk->digest);
            continue;
        }
        if (s->pending[k] == 0 || s->known[k])
            return sn_err_set(err, SN_EALGO, "node %u got a partial too many (seq %u, frag %u)", u,
                              pk->seq, pk->frag);
        s->value[k] = s->have[k] ? sn_op_apply(p->op, s->value[k], pk->digest) : pk->digest;
        s->have[k] = 1;
        if (--s->pending[k] == 0 && is_root)
            learn(s, io, k, s->value[k]);
    }
    /* this slot's sends and the next slot with one: value k goes up in slot a_up + st k and down
     * to child c in slot a_down(c) + st k */
    const uint64_t st = pl->single ? 2 * pl->B : pl->stride;
    uint64_t next = SN_WAKE_NEVER;
    uint32_t k;
    if (!is_root) {
        uint64_t a = pl->single ? pl->B + 1 - pl->r[u] : pl->h - pl->depth[u] + 1;
        if (prog_at(a, st, pl->npk, io->slot, &k)) {
            if (s->pending[k] != 0)
                return sn_err_set(err, SN_EALGO,
                                  "node %u must send value %u up in slot %llu but misses %u "
                                  "partials",
                                  u, k, (unsigned long long) io->slot, s->pending[k]);
            sn_packet_t pk = sn_packet_contrib(p, u, pl->root, k / p->frags, k % p->frags);
            pk.digest = s->value[k];
            sn_step_send(io, pl->up_port[u], &pk);
        }
        next = prog_next(a, st, pl->npk, io->slot);
    }
    for (uint32_t c = 0; c < pl->nchild[u]; c++) {
        uint32_t x = pl->down_off[u] + c;
        uint64_t a = pl->single ? pl->B + pl->down_r[x] : pl->h + pl->depth[u] + 1;
        if (prog_at(a, st, pl->npk, io->slot, &k)) {
            if (!s->known[k])
                return sn_err_set(err, SN_EALGO,
                                  "node %u must send result %u down in slot %llu before knowing "
                                  "it",
                                  u, k, (unsigned long long) io->slot);
            sn_packet_t pk = sn_packet_contrib(p, u, SN_NODE_ALL, k / p->frags, k % p->frags);
            pk.digest = s->value[k];
            pk.flags = 1;
            sn_step_send(io, pl->down_port[x], &pk);
        }
        uint64_t nx = prog_next(a, st, pl->npk, io->slot);
        if (nx < next)
            next = nx;
    }
    io->wake = next;
    return 0;
}

#define TREE_FIELDS                                                                                \
    .pm_mask = SN_PM_ALL, .topos = "any", .applies = NULL, .plan_new = allreduce_tree_plan_new,    \
    .plan_free = allreduce_tree_plan_free, .predicted = allreduce_tree_predicted,                  \
    .state_size = sizeof(state_t), .node_init = allreduce_tree_node_init,                          \
    .node_fini = allreduce_tree_node_fini, .node_step = allreduce_tree_node_step

const sn_algo_t sn__algo_allreduce_tree = {
    .name = "allreduce-tree",
    .coll = SN_COLL_ALLREDUCE,
    .summary = "accumulation up a centre's BFS tree, then the result broadcast down it",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(accumulation, the dual of broadcast); Dimakopoulos, thesis, section 3.1, eq. (6.1)",
    .predicts = "multiport 2h + s(M-1) (h the tree's height, s 1 full or 2 half duplex); "
                "single-port 2BM (B the ordered broadcast's time)",
    TREE_FIELDS,
};

const sn_algo_t sn__algo_barrier_tree = {
    .name = "barrier-tree",
    .coll = SN_COLL_BARRIER,
    .summary = "tokens combined up a centre's BFS tree, the release broadcast down it",
    .source = "Bertsekas and Tsitsiklis, Parallel and Distributed Computation, section 1.3 "
              "(accumulation, the dual of broadcast); Dimakopoulos, thesis, section 3.1, eq. (6.1)",
    .predicts = "multiport 2h (h the tree's height); single-port 2B (B the ordered broadcast's "
                "time)",
    TREE_FIELDS,
};
