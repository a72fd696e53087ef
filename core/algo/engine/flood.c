/* The flooding engine (core/algo/engine): every node forwards each packet to all its children in
 * the tree of any builder in the slot after it arrives, the root injecting one packet per slot;
 * steps = height + M - 1 (Dimakopoulos, thesis, section 3.1). bcast-bfs, bcast-product,
 * bcast-binomial, bcast-fcube and bcast-bst use it with their own trees. Branches that hold no
 * processor (router-only) are not flooded. */
#include <stdlib.h>

#include "core/algo/engine/flood.h"
#include "core/algo/engine/tree.h"
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
