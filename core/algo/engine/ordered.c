/* The ordered single-port tree schedule (core/algo/engine): every node serves its children one per
 * slot, slowest subtree first (Dimakopoulos, thesis, section 6.2.1, eq. (6.1)), over the tree of
 * any builder; bcast-tree, bcast-binomial and bcast-greedy use it, allreduce-tree its eq. (6.1)
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/ordered.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_tree_t *tree;
    uint32_t npk;
    uint32_t *order_off; /* [n+1] the served children of u, best first: order[...] */
    uint32_t *order;     /* indices into tree->child[] */
    int64_t steps;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t have;     /* packets held (they arrive in order) */
    uint32_t j, i;     /* next send: packet j to served child i */
    sn_packet_t *held; /* the packets as received (forwarded unchanged) */
} state_t;

_Static_assert(sizeof(state_t) <= SN__ORDERED_STATE_SIZE, "SN__ORDERED_STATE_SIZE is too small");

/* Orders (b, child index) pairs by b descending, then by child (port) order. */
static int cmp_children(const void *x, const void *y)
{
    const uint64_t *a = x, *c = y; /* pairs (b, index) */
    if (a[0] != c[0])
        return a[0] > c[0] ? -1 : 1;
    return a[1] < c[1] ? -1 : (a[1] > c[1]);
}

uint64_t sn__ordered_schedule(const sn_tree_t *tr, uint32_t n, uint32_t *order_off, uint32_t *order)
{
    uint64_t *b = sn_xcalloc(n ? n : 1, sizeof *b);
    uint32_t *byin = sn_xmalloc((size_t) (n ? n : 1) * sizeof *byin);
    for (uint32_t u = 0; u < n; u++)
        byin[tr->pin[u]] = u;
    /* served children (those with processors below), ordered by b descending, bottom-up */
    uint64_t *pairs = sn_xmalloc(2 * ((size_t) n + 1) * sizeof *pairs);
    if (order_off) {
        order_off[0] = 0;
        for (uint32_t u = 0; u < n; u++) {
            uint32_t cnt = 0;
            for (uint32_t k = tr->child_off[u]; k < tr->child_off[u + 1]; k++)
                cnt += tr->nproc[tr->child[k]] > 0;
            order_off[u + 1] = order_off[u] + cnt;
        }
    }
    for (uint32_t k = n; k-- > 0;) {
        uint32_t u = byin[k], m = 0;
        for (uint32_t c = tr->child_off[u]; c < tr->child_off[u + 1]; c++) {
            if (tr->nproc[tr->child[c]] == 0)
                continue;
            pairs[2 * m] = b[tr->child[c]];
            pairs[2 * m + 1] = c;
            m++;
        }
        qsort(pairs, m, 2 * sizeof *pairs, cmp_children);
        uint64_t best = 0;
        for (uint32_t i = 0; i < m; i++) {
            if (order)
                order[order_off[u] + i] = (uint32_t) pairs[2 * i + 1];
            if (pairs[2 * i] + i + 1 > best)
                best = pairs[2 * i] + i + 1;
        }
        b[u] = best;
    }
    uint64_t root_time = n ? b[tr->root] : 0;
    free(pairs);
    free(byin);
    free(b);
    return root_time;
}

int sn__ordered_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                         void **out, sn_err_t *err)
{
    sn_tree_t *tree = build(t, p->root);
    if (tree == NULL)
        return sn_err_set(err, SN_EALGO, "no broadcast tree for %s", t->spec);
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->tree = tree;
    pl->npk = p->msgs * p->frags;
    const sn_tree_t *tr = pl->tree;
    uint32_t n = t->n;
    pl->order_off = sn_xcalloc((size_t) n + 1, sizeof *pl->order_off);
    pl->order = sn_xmalloc((size_t) (n ? n : 1) * sizeof *pl->order);
    sn__ordered_schedule(tr, n, pl->order_off, pl->order);
    uint32_t *byin = sn_xmalloc((size_t) (n ? n : 1) * sizeof *byin);
    for (uint32_t u = 0; u < n; u++)
        byin[tr->pin[u]] = u;
    /* Replay the rule in pre-order: arrival slots of every packet at every node. */
    uint64_t *arr = sn_xcalloc((size_t) n * pl->npk, sizeof *arr);
    int64_t last = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t u = byin[k];
        uint64_t *au = &arr[(size_t) u * pl->npk], slot = 0;
        uint32_t o = pl->order_off[u], c = pl->order_off[u + 1] - o;
        for (uint32_t j = 0; j < pl->npk && c > 0; j++) {
            for (uint32_t i = 0; i < c; i++) {
                slot = (slot + 1 > au[j] + 1) ? slot + 1 : au[j] + 1;
                uint32_t ch = tr->child[pl->order[o + i]];
                arr[(size_t) ch * pl->npk + j] = slot;
                if (sn_topo_is_proc(t, ch) && (int64_t) slot > last)
                    last = (int64_t) slot;
            }
        }
    }
    pl->steps = last;
    free(arr);
    free(byin);
    *out = pl;
    return 0;
}

void sn__ordered_plan_free(void *plan)
{
    plan_t *pl = plan;
    sn__tree_free(pl->tree);
    free(pl->order_off);
    free(pl->order);
    free(pl);
}

int64_t sn__ordered_predicted(const void *plan)
{
    return ((const plan_t *) plan)->steps;
}

int sn__ordered_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = u;
    const plan_t *pl = s->pl;
    if (pl->order_off[u + 1] > pl->order_off[u]) {
        s->held = sn_xmalloc(pl->npk * sizeof *s->held);
        if (u == pl->p->root) {
            for (uint32_t j = 0; j < pl->npk; j++)
                s->held[j] =
                    sn_packet_data(pl->p, u, SN_NODE_ALL, j / pl->p->frags, j % pl->p->frags);
        }
    }
    s->have = (u == pl->p->root) ? pl->npk : 0;
    return 0;
}

void sn__ordered_node_fini(void *state)
{
    free(((state_t *) state)->held);
}

int sn__ordered_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        uint32_t j = k->seq * pl->p->frags + k->frag;
        if (j != s->have)
            return sn_err_set(err, SN_EALGO, "packet %u arrived out of order (expected %u)", j,
                              s->have);
        if (s->held)
            s->held[j] = *k;
        s->have++;
        if (sn_topo_is_proc(pl->t, s->u))
            sn_step_deliver(io, k);
    }
    uint32_t o = pl->order_off[s->u], c = pl->order_off[s->u + 1] - o;
    if (c == 0 || s->j >= pl->npk || s->j >= s->have)
        return 0; /* nothing to send until the next packet arrives */
    const sn_tree_t *tr = pl->tree;
    sn_step_send(io, tr->child_port[pl->order[o + s->i]], &s->held[s->j]);
    if (++s->i == c) {
        s->i = 0;
        s->j++;
    }
    if (s->j < pl->npk && s->j < s->have)
        io->wake = io->slot + 1;
    return 0;
}
