/* te-hypercube: optimal multiport total exchange on the hypercube Q_d of every dimension d, in
 * 2^(d-1) slots per packet of each pair (core/algo). Source: Bertsekas, Ozveren, Stamoulis, Tseng
 * and Tsitsiklis, hypercube paper (J. Parallel Distrib. Comput., 1991), for the optimum; the
 * schedule is stepnet's: a unit-time open shop (Gonzalez and Sahni, 1976) coloured by Konig's
 * edge-colouring theorem (Konig, 1916).
 *
 * Translation invariance. Node u sends its packet for u xor x (x != 0, the packet's offset) over
 * the dimensions set in x, one per hop. If at slot c "offset x crosses dimension i" holds for at
 * most one x per (c, i), then every node sends at most one packet on its dimension-i link in slot
 * c: the packet of offset x that crosses i then, which node u holds for the source u xor (the
 * dimensions x crossed before c). So the schedule is an open shop: jobs = offsets, machines =
 * dimensions, job x needs machine i for one slot iff bit i of x is set; no job on two machines in
 * a slot, no machine serving two jobs in a slot. That is a proper edge colouring of the bipartite
 * graph offsets x dimensions (an edge per set bit) whose colours are slots; the packet of offset x
 * crosses its dimensions in the increasing order of their colours, so it is sent again only after
 * it has arrived (store and forward).
 *
 * Steps. Dimension i is needed by the 2^(d-1) offsets with bit i set, offset x by |x| <= d
 * dimensions, so the graph's maximum degree is D = max(2^(d-1), d) = 2^(d-1) (d >= 1), and Konig
 * colours it with D colours: D slots, in each of which every node sends on every link. That is the
 * counting bound: each node's d 2^(d-1) hops (total distance) over its d links. With M = msgs *
 * frags packets per pair the D-slot rounds follow each other (M D, still the counting bound).
 * Packets follow shortest paths. Full duplex only: both ends of a link send in the same slot. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/konig.h"
#include "stepnet/util.h"

/* What every node does on dimension i in the slot coloured c: it sends the packet of offset
 * `offset` whose source is the node xor `crossed` (the dimensions that offset crossed before). */
typedef struct {
    uint32_t offset, crossed;
} hop_t;

typedef struct {
    const sn_params_t *p;
    uint32_t d;   /* dimensions */
    uint32_t D;   /* slots per round: 2^(d-1) */
    uint32_t npk; /* packets per pair: msgs * frags */
    hop_t *hop;   /* [D * d]: hop[c * d + i] */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
} state_t;

static int te_hypercube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->kind != SN_TOPO_HYPERCUBE)
        return sn_err_set(err, SN_ENOTSUP, "te-hypercube needs hypercube:D (D >= 1); %s is not one",
                          t->spec);
    return 0;
}

static void te_hypercube_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->hop);
    free(pl);
}

/* The hops of every offset by colour, each with the dimensions its offset crossed before; checks
 * that the colouring is the open shop's (every (colour, dimension) taken exactly once, no offset
 * with two hops of one colour), which Konig's theorem guarantees. */
static int fill_hops(plan_t *pl, const uint32_t *eu, const uint32_t *ej, const uint32_t *colour,
                     size_t ne, sn_err_t *err)
{
    uint32_t d = pl->d;
    size_t cells = (size_t) pl->D * d;
    pl->hop = sn_xmalloc(cells * sizeof *pl->hop);
    for (size_t c = 0; c < cells; c++)
        pl->hop[c] = (hop_t){0, 0};
    for (size_t e = 0; e < ne;) {
        size_t end = e;
        while (end < ne && eu[end] == eu[e])
            end++;
        for (size_t x = e; x < end; x++) {
            uint32_t crossed = 0;
            for (size_t y = e; y < end; y++) {
                if (y != x && colour[y] == colour[x])
                    return sn_err_set(err, SN_EALGO,
                                      "te-hypercube: offset %u crosses dimensions %u and %u in "
                                      "one slot",
                                      eu[x], ej[x], ej[y]);
                if (colour[y] < colour[x])
                    crossed |= 1u << ej[y];
            }
            hop_t *h = &pl->hop[(size_t) colour[x] * d + ej[x]];
            if (h->offset != 0)
                return sn_err_set(err, SN_EALGO,
                                  "te-hypercube: offsets %u and %u cross dimension %u in one slot",
                                  h->offset, eu[x], ej[x]);
            *h = (hop_t){eu[x], crossed};
        }
        e = end;
    }
    for (size_t c = 0; c < cells; c++)
        if (pl->hop[c].offset == 0)
            return sn_err_set(err, SN_EALGO, "te-hypercube: dimension %zu idle in slot %zu", c % d,
                              c / d + 1);
    return 0;
}

static int te_hypercube_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    *out = NULL;
    int rc = te_hypercube_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t d = t->a, n = t->n;
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t i = 0; i < d; i++)
            if (sn_topo_degree(t, u) != d || sn_topo_port(t, u, i)->peer != (u ^ (1u << i)))
                return sn_err_set(err, SN_EALGO,
                                  "te-hypercube: port %u of node %u is not dimension %u", i, u, i);
    /* the open shop's bipartite graph: an edge (x, i) per bit i of every offset x != 0, grouped
     * by offset */
    size_t ne = (size_t) d << (d - 1);
    uint32_t *eu = sn_xmalloc(ne * sizeof *eu), *ej = sn_xmalloc(ne * sizeof *ej);
    uint32_t *colour = sn_xmalloc(ne * sizeof *colour);
    size_t e = 0;
    for (uint32_t x = 1; x < n; x++)
        for (uint32_t i = 0; i < d; i++)
            if ((x >> i) & 1) {
                eu[e] = x;
                ej[e++] = i;
            }
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->p = p;
    pl->d = d;
    pl->D = n / 2;
    pl->npk = p->msgs * p->frags;
    sn__konig_colour(n, d, pl->D, eu, ej, colour, ne);
    rc = fill_hops(pl, eu, ej, colour, ne, err);
    free(eu);
    free(ej);
    free(colour);
    if (rc < 0) {
        te_hypercube_plan_free(pl);
        return rc;
    }
    *out = pl;
    return 0;
}

static int64_t te_hypercube_predicted(const void *plan)
{
    const plan_t *pl = plan;
    return (int64_t) pl->D * pl->npk;
}

static int te_hypercube_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    s->pl = plan;
    s->u = node;
    return 0;
}

/* The packet that node v sends on dimension i in slot `slot` (1 .. D * npk). */
static sn_packet_t hop_packet(const plan_t *pl, uint32_t v, uint32_t i, uint64_t slot)
{
    uint64_t round = (slot - 1) >> (pl->d - 1), c = (slot - 1) & (pl->D - 1); /* D = 2^(d-1) */
    const hop_t *h = &pl->hop[c * pl->d + i];
    uint32_t src = v ^ h->crossed, frags = pl->p->frags;
    return sn_packet_data(pl->p, src, src ^ h->offset, (uint32_t) (round / frags),
                          (uint32_t) (round % frags));
}

static int te_hypercube_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint64_t total = (uint64_t) pl->D * pl->npk;
    /* Every arrival must be the very packet the schedule sent here (identity and payload), so
     * that the packet sent on from the schedule below is the one that arrived. */
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_msg_t *m = &io->rx[i];
        sn_packet_t want = hop_packet(pl, s->u ^ (1u << m->port), m->port, io->slot - 1);
        if (m->pkt.src != want.src || m->pkt.dst != want.dst || m->pkt.seq != want.seq ||
            m->pkt.frag != want.frag || m->pkt.digest != want.digest)
            return sn_err_set(err, SN_EALGO,
                              "te-hypercube: node %u got %u->%u on port %u in slot %llu, the "
                              "schedule sent %u->%u",
                              s->u, m->pkt.src, m->pkt.dst, m->port,
                              (unsigned long long) io->slot - 1, want.src, want.dst);
        if (m->pkt.dst == s->u)
            sn_step_deliver(io, &m->pkt);
    }
    if (io->slot > total)
        return 0;
    for (uint32_t i = 0; i < pl->d; i++) {
        sn_packet_t k = hop_packet(pl, s->u, i, io->slot);
        sn_step_send(io, i, &k);
    }
    if (io->slot < total)
        io->wake = io->slot + 1;
    return 0;
}

const sn_algo_t sn__algo_te_hypercube = {
    .name = "te-hypercube",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI,
    .topos = "hypercube",
    .summary = "translation-invariant open shop: offsets x dimensions edge-coloured (Konig), "
               "every link busy every slot",
    .source = "Bertsekas, Ozveren, Stamoulis, Tseng and Tsitsiklis, hypercube paper (the optimum "
              "2^(d-1)); Konig 1916 and Gonzalez and Sahni 1976 (the colouring)",
    .predicts = "msgs * frags * 2^(d-1), the counting bound",
    .applies = te_hypercube_applies,
    .plan_new = te_hypercube_plan_new,
    .plan_free = te_hypercube_plan_free,
    .predicted = te_hypercube_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_hypercube_node_init,
    .node_step = te_hypercube_node_step,
    .parallel = 1,
};
