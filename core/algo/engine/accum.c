/* The accumulation engine of the combining collectives over trees (core/algo/engine): one
 * accumulation per target over the tree of any builder rooted at it, partials combined on the way
 * and sent upwards once complete, oldest first per link (Dimakopoulos, thesis, section 3.1, the
 * broadcast tree used in reverse). sna-tree, pmna-tree, mna-tree and sna-fcube use it. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/accum.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t ntgt;     /* targets: the root (sna), the sources (pmna) or every processor (mna) */
    uint32_t *tgt;     /* [ntgt] node ids, ascending */
    uint32_t *up_port; /* [ntgt * n] port towards the parent in the tree of target i */
    uint32_t *nchild;  /* [ntgt * n] children whose subtree holds a processor */
    uint8_t *active;   /* [ntgt * n] the subtree of u holds a processor */
    uint32_t npk;      /* msgs * frags */
    uint32_t height;   /* sna: the tree's height */
    int single;        /* single-port: one send per slot */
} plan_t;

typedef struct {
    uint32_t tgt, k; /* target index, packet index seq * frags + frag */
} item_t;

typedef struct {
    item_t *q;
    size_t head, n, cap;
} queue_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t *pending; /* [ntgt * npk] partials still to arrive */
    uint64_t *value;   /* [ntgt * npk] the combination so far */
    uint8_t *have;     /* [ntgt * npk] value holds at least one contribution */
    queue_t *queue;    /* [deg] multiport: one per port; single-port: queue[0] only */
    uint32_t deg;
} state_t;

_Static_assert(sizeof(state_t) <= SN__ACCUM_STATE_SIZE, "SN__ACCUM_STATE_SIZE is too small");

static void accum_push(queue_t *q, item_t it)
{
    if (q->head > 0 && q->head == q->n) {
        q->head = q->n = 0;
    }
    sn_grow((void **) &q->q, &q->cap, q->n + 1, sizeof *q->q);
    q->q[q->n++] = it;
}

int sn__accum_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       void **out, sn_err_t *err)
{
    const uint32_t *tgt = p->coll == SN_COLL_SNA ? &p->root : p->sources;
    uint32_t ntgt = p->coll == SN_COLL_SNA ? 1 : p->nsources;
    uint32_t *all = NULL;
    if (p->coll == SN_COLL_MNA) { /* every processor, ascending ids */
        all = sn_xmalloc((size_t) (t->nproc ? t->nproc : 1) * sizeof *all);
        ntgt = 0;
        for (uint32_t u = 0; u < t->n; u++)
            if (sn_topo_is_proc(t, u))
                all[ntgt++] = u;
        tgt = all;
    }
    sn_tree_t **trees = sn_xcalloc(ntgt ? ntgt : 1, sizeof *trees);
    for (uint32_t i = 0; i < ntgt; i++) {
        if ((trees[i] = build(t, tgt[i])) == NULL) {
            for (uint32_t j = 0; j < i; j++)
                sn__tree_free(trees[j]);
            free(trees);
            free(all);
            return sn_err_set(err, SN_EALGO, "no accumulation tree for %s", t->spec);
        }
    }
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->ntgt = ntgt;
    pl->tgt = sn_xmalloc((size_t) ntgt * sizeof *pl->tgt);
    memcpy(pl->tgt, tgt, (size_t) ntgt * sizeof *tgt);
    size_t n = t->n;
    pl->up_port = sn_xcalloc((size_t) ntgt * n, sizeof *pl->up_port);
    pl->nchild = sn_xcalloc((size_t) ntgt * n, sizeof *pl->nchild);
    pl->active = sn_xcalloc((size_t) ntgt * n, 1);
    pl->npk = p->msgs * p->frags;
    pl->single = p->pm.ports == SN_PORTS_SINGLE;
    for (uint32_t i = 0; i < ntgt; i++) {
        sn_tree_t *tr = trees[i];
        for (uint32_t u = 0; u < t->n; u++) {
            size_t x = (size_t) i * n + u;
            pl->active[x] = tr->nproc[u] > 0;
            pl->up_port[x] = tr->up_port[u];
            for (uint32_t c = tr->child_off[u]; c < tr->child_off[u + 1]; c++)
                pl->nchild[x] += tr->nproc[tr->child[c]] > 0;
        }
        if (i == 0)
            pl->height = tr->height;
        sn__tree_free(tr);
    }
    free(trees);
    free(all);
    *out = pl;
    return 0;
}

void sn__accum_plan_free(void *plan)
{
    plan_t *pl = plan;
    free(pl->tgt);
    free(pl->up_port);
    free(pl->nchild);
    free(pl->active);
    free(pl);
}

int64_t sn__accum_predicted(const void *plan)
{
    const plan_t *pl = plan;
    if (pl->p->coll != SN_COLL_SNA)
        return -1;
    return pl->height == 0 ? 0 : (int64_t) pl->height + pl->npk - 1;
}

int sn__accum_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *s = state;
    size_t m = (size_t) pl->ntgt * pl->npk;
    s->pl = pl;
    s->u = node;
    s->deg = sn_topo_degree(pl->t, node);
    s->pending = sn_xcalloc(m, sizeof *s->pending);
    s->value = sn_xcalloc(m, sizeof *s->value);
    s->have = sn_xcalloc(m, 1);
    s->queue = sn_xcalloc(s->deg ? s->deg : 1, sizeof *s->queue);
    return 0;
}

void sn__accum_node_fini(void *state)
{
    state_t *s = state;
    free(s->pending);
    free(s->value);
    free(s->have);
    for (uint32_t i = 0; s->queue && i < (s->deg ? s->deg : 1); i++)
        free(s->queue[i].q);
    free(s->queue);
}

/* Partial (i, k) is complete at this node: deliver it (at the target) or queue it upwards. */
static void complete(state_t *s, sn_step_t *io, uint32_t i, uint32_t k)
{
    const plan_t *pl = s->pl;
    size_t x = (size_t) i * pl->npk + k;
    if (s->u == pl->tgt[i]) {
        sn_packet_t pk = sn_packet_contrib(pl->p, s->u, s->u, k / pl->p->frags, k % pl->p->frags);
        pk.digest = s->value[x];
        sn_step_deliver(io, &pk);
        return;
    }
    uint32_t port = pl->up_port[(size_t) i * pl->t->n + s->u];
    accum_push(&s->queue[pl->single ? 0 : port], (item_t){i, k});
}

int sn__accum_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    size_t n = pl->t->n;
    int proc = sn_topo_is_proc(pl->t, s->u);
    if (io->slot == 1) {
        for (uint32_t i = 0; i < pl->ntgt; i++) {
            if (!pl->active[(size_t) i * n + s->u])
                continue;
            for (uint32_t k = 0; k < pl->npk; k++) {
                size_t x = (size_t) i * pl->npk + k;
                s->pending[x] = pl->nchild[(size_t) i * n + s->u];
                if (proc) {
                    s->value[x] = sn_contrib_value(p, s->u, pl->tgt[i], k / p->frags, k % p->frags);
                    s->have[x] = 1;
                }
                if (s->pending[x] == 0)
                    complete(s, io, i, k);
            }
        }
    }
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pk = &io->rx[r].pkt;
        int64_t i = sn_u32_index(pl->tgt, pl->ntgt, pk->dst);
        uint32_t k = pk->seq * p->frags + pk->frag;
        size_t x = (size_t) i * pl->npk + k;
        if (i < 0 || pk->src != SN_SRC_COMBINED || pk->seq >= p->msgs || pk->frag >= p->frags ||
            s->pending[x] == 0)
            return sn_err_set(err, SN_EALGO, "unexpected partial for node %u (seq %u, frag %u)",
                              pk->dst, pk->seq, pk->frag);
        s->value[x] = s->have[x] ? sn_op_apply(p->op, s->value[x], pk->digest) : pk->digest;
        s->have[x] = 1;
        if (--s->pending[x] == 0)
            complete(s, io, (uint32_t) i, k);
    }
    int more = 0;
    for (uint32_t q = 0; q < (pl->single ? 1u : s->deg); q++) {
        queue_t *qu = &s->queue[q];
        if (qu->head == qu->n)
            continue;
        item_t it = qu->q[qu->head++];
        size_t x = (size_t) it.tgt * pl->npk + it.k;
        sn_packet_t pk =
            sn_packet_contrib(p, s->u, pl->tgt[it.tgt], it.k / p->frags, it.k % p->frags);
        pk.digest = s->value[x];
        sn_step_send(io, pl->up_port[(size_t) it.tgt * n + s->u], &pk);
        more |= qu->head < qu->n;
    }
    if (more)
        io->wake = io->slot + 1;
    return 0;
}
