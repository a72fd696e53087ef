/* bcast-bfs: multiport broadcast by flooding over a BFS tree (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.1: "at step depth(u)+1, send to all
 * tree children of u"; the completion time is the eccentricity e(v) of the root, optimal because
 * the farthest nodes cannot be reached sooner. With M = msgs * frags packets the root injects one
 * per slot and every node forwards each packet in the slot after it arrives (a pipeline), so steps
 * = height + M - 1, where height is the depth of the farthest processor (= e(v) over processors).
 * Branches that hold no processor (router-only) are not flooded.
 *
 * The engine (sn__flood_*) floods over the tree of any builder; bcast-product and bcast-binomial
 * use it with their own trees. */
#include <stdlib.h>

#include "algo_internal.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_tree_t *tree;
    uint32_t npk; /* packets from the root: msgs * frags */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
} state_t;

_Static_assert(sizeof(state_t) <= SN__FLOOD_STATE_SIZE, "SN__FLOOD_STATE_SIZE is too small");

int sn__flood_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
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
    *out = pl;
    return 0;
}

static int plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return sn__flood_plan_new(t, p, sn__tree_bfs, out, err);
}

void sn__flood_plan_free(void *plan)
{
    plan_t *pl = plan;
    sn__tree_free(pl->tree);
    free(pl);
}

int64_t sn__flood_predicted(const void *plan)
{
    const plan_t *pl = plan;
    if (pl->t->nproc < 2)
        return 0;
    return (int64_t) pl->tree->height + pl->npk - 1;
}

int sn__flood_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = u;
    return 0;
}

/* Sends pkt to every child of u whose subtree holds a processor. */
static void flood(const state_t *s, sn_step_t *io, const sn_packet_t *pkt)
{
    const sn_tree_t *tr = s->pl->tree;
    for (uint32_t k = tr->child_off[s->u]; k < tr->child_off[s->u + 1]; k++)
        if (tr->nproc[tr->child[k]] > 0)
            sn_step_send(io, tr->child_port[k], pkt);
}

int sn__flood_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = s->pl;
    if (s->u == pl->p->root) {
        uint64_t k = io->slot - 1; /* packet k leaves the root in slot k+1 */
        if (k < pl->npk) {
            sn_packet_t pkt =
                sn_packet_data(pl->p, s->u, SN_NODE_ALL, (uint32_t) (k / pl->p->frags),
                               (uint32_t) (k % pl->p->frags));
            flood(s, io, &pkt);
            if (k + 1 < pl->npk)
                io->wake = io->slot + 1;
        }
        return 0;
    }
    for (size_t i = 0; i < io->nrx; i++) {
        if (sn_topo_is_proc(pl->t, s->u))
            sn_step_deliver(io, &io->rx[i].pkt);
        flood(s, io, &io->rx[i].pkt);
    }
    return 0;
}

const sn_algo_t sn__algo_bcast_bfs = {
    .name = "bcast-bfs",
    .coll = SN_COLL_BCAST,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "any",
    .summary = "flooding over a BFS tree; every node forwards to all its children at once",
    .source = "Dimakopoulos, thesis, section 3.1: multiport broadcast = e(v)",
    .predicts = "height of the BFS tree (eccentricity of the root) + packets - 1",
    .plan_new = plan_new,
    SN__FLOOD_ALGO_FIELDS,
};
