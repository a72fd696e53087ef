/* The lane engine of scattering and gathering over trees (core/algo/engine): furthest first, one
 * lane from the root (Dimakopoulos, thesis, Theorem 3.6) or one lane per root child, all at once
 * (Theorem 3.7); gather as the time reversal (chapter 3). scatter-ff, scatter-balanced,
 * scatter-ering, scatter-torus and their gathers use it with their own trees. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/lanes.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

typedef struct {
    uint32_t node, depth, seq, frag;
} item_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    int gather;
    sn_tree_t *tree;
    /* lanes: one list of items per root child (balanced) or one for all (ff); lane l holds
     * items[lane_off[l] .. lane_off[l+1]-1], item s (1-based) leaves the root in slot s */
    uint32_t nlanes;
    uint32_t *lane_off;
    uint32_t *lane_port; /* root port of the lane (balanced); unused for ff */
    item_t *items;
    int64_t steps;
    /* gather: for each node its injection slots, ascending: inj[inj_off[u] .. inj_off[u+1]-1] */
    uint32_t *inj_off;
    uint64_t *inj_slot;
    uint32_t *inj_k; /* seq * frags + frag of each injection */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t next; /* scatter root: next slot index; gather: next own injection */
} state_t;

_Static_assert(sizeof(state_t) <= SN__LANES_STATE_SIZE, "SN__LANES_STATE_SIZE is too small");

static int cmp_item(const void *x, const void *y)
{
    const item_t *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a->frag < b->frag ? -1 : (a->frag > b->frag);
}

/* The plan over `tree` (owned by the plan from here): one lane per root child when `balanced`
 * (lanes), else a single lane for all destinations (Theorem 3.6). */
void *sn__lanes_plan_tree(const sn_topo_t *t, const sn_params_t *p, sn_tree_t *tree, int balanced,
                          int gather)
{
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->gather = gather;
    pl->tree = tree;
    const sn_tree_t *tr = pl->tree;
    uint32_t root = p->root, per = p->msgs * p->frags;
    uint32_t nchild = tr->child_off[root + 1] - tr->child_off[root];
    pl->nlanes = balanced ? nchild : 1;
    pl->lane_off = sn_xcalloc(pl->nlanes + 1, sizeof *pl->lane_off);
    pl->lane_port = sn_xcalloc(pl->nlanes + 1, sizeof *pl->lane_port);
    size_t nitems = (size_t) (t->nproc - 1) * per;
    pl->items = sn_xmalloc((nitems ? nitems : 1) * sizeof *pl->items);
    /* Lane of every destination: its root child's index (balanced) or 0. */
    uint32_t *lane_cnt = sn_xcalloc(pl->nlanes + 1, sizeof *lane_cnt);
    for (uint32_t v = 0; v < t->n; v++) {
        if (v == root || !sn_topo_is_proc(t, v))
            continue;
        uint32_t lane = balanced ? sn__tree_child_towards(tr, root, v) - tr->child_off[root] : 0;
        lane_cnt[lane] += per;
    }
    for (uint32_t l = 0; l < pl->nlanes; l++) {
        pl->lane_off[l + 1] = pl->lane_off[l] + lane_cnt[l];
        if (balanced)
            pl->lane_port[l] = tr->child_port[tr->child_off[root] + l];
        lane_cnt[l] = pl->lane_off[l]; /* fill cursor */
    }
    for (uint32_t v = 0; v < t->n; v++) {
        if (v == root || !sn_topo_is_proc(t, v))
            continue;
        uint32_t lane = balanced ? sn__tree_child_towards(tr, root, v) - tr->child_off[root] : 0;
        for (uint32_t k = 0; k < per; k++)
            pl->items[lane_cnt[lane]++] = (item_t){v, tr->depth[v], k / p->frags, k % p->frags};
    }
    free(lane_cnt);
    pl->steps = 0;
    for (uint32_t l = 0; l < pl->nlanes; l++) {
        item_t *it = &pl->items[pl->lane_off[l]];
        uint32_t len = pl->lane_off[l + 1] - pl->lane_off[l];
        qsort(it, len, sizeof *it, cmp_item);
        for (uint32_t s = 1; s <= len; s++)
            if ((int64_t) s + it[s - 1].depth - 1 > pl->steps)
                pl->steps = (int64_t) s + it[s - 1].depth - 1;
    }
    if (gather) {
        /* injection slot of every item: T + 2 - s - depth */
        pl->inj_off = sn_xcalloc((size_t) t->n + 1, sizeof *pl->inj_off);
        pl->inj_slot = sn_xmalloc((nitems ? nitems : 1) * sizeof *pl->inj_slot);
        pl->inj_k = sn_xmalloc((nitems ? nitems : 1) * sizeof *pl->inj_k);
        for (size_t i = 0; i < nitems; i++)
            pl->inj_off[pl->items[i].node + 1]++;
        for (uint32_t v = 0; v < t->n; v++)
            pl->inj_off[v + 1] += pl->inj_off[v];
        /* A node's items all lie in one lane at one depth, so their injection slots fall as s
         * rises: filling each node's range from its end leaves it ascending. */
        uint32_t *cur = sn_xmalloc(((size_t) t->n + 1) * sizeof *cur);
        memcpy(cur, pl->inj_off + 1, (size_t) t->n * sizeof *cur);
        for (uint32_t l = 0; l < pl->nlanes; l++) {
            for (uint32_t s = 1; s <= pl->lane_off[l + 1] - pl->lane_off[l]; s++) {
                const item_t *it = &pl->items[pl->lane_off[l] + s - 1];
                uint32_t at = --cur[it->node];
                pl->inj_slot[at] = (uint64_t) (pl->steps + 2 - s - it->depth);
                pl->inj_k[at] = it->seq * p->frags + it->frag;
            }
        }
        free(cur);
    }
    return pl;
}

int sn__lanes_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       int gather, void **out, sn_err_t *err)
{
    sn_tree_t *tree = build(t, p->root);
    if (tree == NULL)
        return sn_err_set(err, SN_EALGO, "no scattering tree for %s", t->spec);
    *out = sn__lanes_plan_tree(t, p, tree, 1, gather);
    return 0;
}

void sn__lanes_plan_free(void *plan)
{
    plan_t *pl = plan;
    sn__tree_free(pl->tree);
    free(pl->lane_off);
    free(pl->lane_port);
    free(pl->items);
    free(pl->inj_off);
    free(pl->inj_slot);
    free(pl->inj_k);
    free(pl);
}

int64_t sn__lanes_predicted(const void *plan)
{
    return ((const plan_t *) plan)->steps;
}

int sn__lanes_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = u;
    s->next = s->pl->gather ? s->pl->inj_off[u] : 1;
    return 0;
}

/* The port of u towards x, a proper descendant. */
static uint32_t down_port(const sn_tree_t *tr, uint32_t u, uint32_t x)
{
    return tr->child_port[sn__tree_child_towards(tr, u, x)];
}

int sn__lanes_scatter_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tree_t *tr = pl->tree;
    if (s->u == pl->p->root) {
        int more = 0;
        for (uint32_t l = 0; l < pl->nlanes; l++) {
            uint32_t len = pl->lane_off[l + 1] - pl->lane_off[l];
            if (io->slot > len)
                continue;
            const item_t *it = &pl->items[pl->lane_off[l] + io->slot - 1];
            sn_packet_t pkt = sn_packet_data(pl->p, s->u, it->node, it->seq, it->frag);
            uint32_t port = pl->nlanes > 1 ? pl->lane_port[l] : down_port(tr, s->u, it->node);
            sn_step_send(io, port, &pkt);
            more |= io->slot < len;
        }
        if (more)
            io->wake = io->slot + 1;
        return 0;
    }
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (k->dst == s->u) {
            sn_step_deliver(io, k);
        } else if (k->dst < tr->n && tr->pin[k->dst] > tr->pin[s->u] &&
                   tr->pin[k->dst] < tr->pout[s->u]) {
            sn_step_send(io, down_port(tr, s->u, k->dst), k);
        } else {
            return sn_err_set(err, SN_EALGO, "packet for node %u is not in this subtree", k->dst);
        }
    }
    return 0;
}

int sn__lanes_gather_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_tree_t *tr = pl->tree;
    for (size_t i = 0; i < io->nrx; i++) {
        if (s->u == pl->p->root)
            sn_step_deliver(io, &io->rx[i].pkt);
        else
            sn_step_send(io, tr->up_port[s->u], &io->rx[i].pkt);
    }
    uint32_t end = pl->inj_off[s->u + 1];
    if (s->next < end && pl->inj_slot[s->next] == io->slot) {
        uint32_t k = pl->inj_k[s->next++];
        sn_packet_t pkt =
            sn_packet_data(pl->p, s->u, pl->p->root, k / pl->p->frags, k % pl->p->frags);
        sn_step_send(io, tr->up_port[s->u], &pkt);
    }
    if (s->next < end)
        io->wake = pl->inj_slot[s->next];
    return 0;
}
