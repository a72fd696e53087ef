/* The folded cube FQ_d shared by its algorithms (core/algo): recognising it, the relabellings V_c
 * that make FQ_d minus the links of dimension c a hypercube, the depth-ceil(d/2) spanning tree,
 * and a node engine that replays a schedule computed in the plan.
 *
 * Source: Varvarigos, folded-cube paper, section 2, Lemma 1 (V_c(s) = E C^c s: removing the links
 * of one dimension c leaves a graph isomorphic to Q_d), and section 3 ("for every node there
 * exists a spanning tree rooted at that node with depth equal to the diameter"). Ports (topo.h):
 * port f < d flips bit f, port d is the complementary link; F-dimension f is port f. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/fcube.h"
#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

int sn__fcube_get(const sn_topo_t *t, uint32_t *d, const char *who, sn_err_t *err)
{
    if (t->kind != SN_TOPO_FOLDEDCUBE || t->a < 2)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs a folded cube foldedcube:D with D >= 2, not %s", who, t->spec);
    *d = t->a;
    return 0;
}

int sn__a0_get(const sn_topo_t *t, uint32_t *d, const char *who, sn_err_t *err)
{
    if (t->kind == SN_TOPO_HYPERCUBE || (t->kind == SN_TOPO_FOLDEDCUBE && t->a >= 2)) {
        *d = t->a;
        return 0;
    }
    return sn_err_set(err, SN_ENOTSUP,
                      "%s needs a hypercube hypercube:D or a folded cube foldedcube:D, not %s", who,
                      t->spec);
}

uint32_t sn__fcube_label(uint32_t d, uint32_t c, uint32_t s)
{
    /* V_c(s) = XOR over the 1-bits i of s of e^{(d + c - i) mod (d+1)}, e^d = all ones */
    uint32_t all = (1u << d) - 1, q = 0;
    for (uint32_t i = 0; i < d; i++) {
        if (!((s >> i) & 1))
            continue;
        uint32_t f = (d + c - i) % (d + 1);
        q ^= f == d ? all : 1u << f;
    }
    return q;
}

uint32_t sn__fcube_fdim(uint32_t d, uint32_t c, uint32_t k)
{
    return (d + c - k) % (d + 1);
}

/* The tree rule: u = src xor w; with popcount(u) <= ceil(d/2) (ties direct when d is odd) the
 * parent flips the highest 1-bit of u, otherwise the highest 1-bit of u's complement, and the
 * complement of the root hangs from the root over the complementary link. Depth(w) = the
 * distance min(h, d+1-h). */
sn_tree_t *sn__tree_fcube(const sn_topo_t *t, uint32_t root)
{
    uint32_t d = 0;
    if (sn__fcube_get(t, &d, "the folded-cube tree", NULL) < 0)
        return NULL;
    uint32_t all = (1u << d) - 1, D = (d + 1) / 2;
    sn_tree_t *tr = sn__tree_alloc(t, root);
    for (uint32_t w = 0; w < t->n; w++) {
        uint32_t u = root ^ w;
        if (u == 0)
            continue;
        uint32_t par;
        if ((uint32_t) __builtin_popcount(u) <= D) {
            par = w ^ (1u << (31 - __builtin_clz(u)));
        } else {
            uint32_t v = u ^ all;
            par = v == 0 ? root : w ^ (1u << (31 - __builtin_clz(v)));
        }
        if (sn__tree_set_parent(t, tr, w, par) < 0) {
            sn__tree_free(tr);
            return NULL;
        }
    }
    if (sn__tree_finish(t, tr) < 0) {
        sn__tree_free(tr);
        return NULL;
    }
    return tr;
}

/* ---- replaying a schedule --------------------------------------------------------------------
 */

void sn__fcsched_add(sn_fcsched_t *s, uint32_t node, uint64_t slot, uint32_t port, uint32_t src,
                     uint32_t dst, uint32_t k, int deliver)
{
    sn_grow((void **) &s->ev, &s->cap, s->nev + 1, sizeof *s->ev);
    sn_fcev_t *e = &s->ev[s->nev++];
    e->node = node;
    e->slot = slot;
    e->port = port;
    e->src = src;
    e->dst = dst;
    e->k = k;
    e->deliver = (uint32_t) deliver;
    if (slot > s->steps)
        s->steps = slot;
}

static int fcube_cmp_ev(const void *a, const void *b)
{
    const sn_fcev_t *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->port > y->port) - (x->port < y->port);
}

void sn__fcsched_finish(sn_fcsched_t *s, uint32_t n)
{
    qsort(s->ev, s->nev, sizeof *s->ev, fcube_cmp_ev);
    s->n = n;
    s->off = sn_xcalloc((size_t) n + 1, sizeof *s->off);
    for (size_t i = 0; i < s->nev; i++)
        s->off[s->ev[i].node + 1]++;
    for (uint32_t u = 0; u < n; u++)
        s->off[u + 1] += s->off[u];
}

void sn__fcsched_free(sn_fcsched_t *s)
{
    free(s->ev);
    free(s->off);
    memset(s, 0, sizeof *s);
}

typedef struct {
    const sn_fcsched_t *s;
    uint32_t u;
    uint32_t next; /* index of the next event of u */
} fcstate_t;

_Static_assert(sizeof(fcstate_t) <= SN__FCSCHED_STATE_SIZE, "SN__FCSCHED_STATE_SIZE too small");

int sn__fcsched_node_init(const sn_fcsched_t *s, uint32_t node, void *state)
{
    fcstate_t *st = state;
    st->s = s;
    st->u = node;
    st->next = s->off[node];
    return 0;
}

int sn__fcsched_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    fcstate_t *st = state;
    const sn_fcsched_t *s = st->s;
    for (size_t i = 0; i < io->nrx; i++)
        if (io->rx[i].pkt.flags & SN__FC_DELIVER) {
            sn_packet_t k = io->rx[i].pkt;
            k.flags = 0;
            sn_step_deliver(io, &k);
        }
    uint32_t end = s->off[st->u + 1];
    if (st->next < end && s->ev[st->next].slot < io->slot) /* woken at every slot it sends in */
        return sn_err_set(err, SN_EALGO, "missed its send of slot %llu",
                          (unsigned long long) s->ev[st->next].slot);
    for (; st->next < end && s->ev[st->next].slot == io->slot; st->next++) {
        const sn_fcev_t *e = &s->ev[st->next];
        uint32_t frags = s->p->frags;
        sn_packet_t k = sn_packet_data(s->p, e->src, e->dst, e->k / frags, e->k % frags);
        k.flags = e->deliver ? SN__FC_DELIVER : 0;
        sn_step_send(io, e->port, &k);
    }
    if (st->next < end)
        io->wake = s->ev[st->next].slot;
    return 0;
}
