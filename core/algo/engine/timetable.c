/* Timetables replayed by the nodes (core/algo): see timetable.h. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/timetable.h"
#include "stepnet/util.h"

void sn_tt_add(sn_tt_list_t *l, uint32_t slot, uint32_t u, uint32_t port, uint32_t v, uint32_t x)
{
    if (l->n == l->cap) { /* the three arrays grow together */
        size_t cap = l->cap;
        sn_grow((void **) &l->ev, &cap, l->n + 1, sizeof *l->ev);
        l->from = sn_xrealloc(l->from, cap * sizeof *l->from);
        l->to = sn_xrealloc(l->to, cap * sizeof *l->to);
        l->cap = cap;
    }
    l->ev[l->n] = (sn_tt_ev_t){slot, port, x};
    l->from[l->n] = u;
    l->to[l->n++] = v;
}

void sn_tt_list_free(sn_tt_list_t *l)
{
    free(l->ev);
    free(l->from);
    free(l->to);
    *l = (sn_tt_list_t){0};
}

sn_tt_plan_t *sn_tt_plan_new(const char *name, const sn_topo_t *t, const sn_params_t *p, int mnb,
                             uint64_t T, const sn_tt_list_t *l)
{
    const sn_tt_ev_t *evs = l->ev;
    const uint32_t *evnode = l->from;
    size_t nev = l->n;
    uint32_t n = t->n;
    sn_tt_plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->name = name;
    pl->t = t;
    pl->p = p;
    pl->n = n;
    pl->M = p->msgs * p->frags;
    pl->W = (uint32_t) (((uint64_t) (mnb ? n : 1) * pl->M + 63) / 64);
    pl->mnb = mnb;
    pl->T = T;
    pl->off = sn_xcalloc((size_t) n + 1, sizeof *pl->off);
    pl->ev = sn_xmalloc((nev + 1) * sizeof *pl->ev);
    for (size_t i = 0; i < nev; i++)
        pl->off[evnode[i] + 1]++;
    for (uint32_t u = 0; u < n; u++)
        pl->off[u + 1] += pl->off[u];
    uint32_t *fill = sn_xmalloc(((size_t) n + 1) * sizeof *fill);
    memcpy(fill, pl->off, ((size_t) n + 1) * sizeof *fill);
    for (size_t i = 0; i < nev; i++)
        pl->ev[fill[evnode[i]]++] = evs[i];
    free(fill);
    return pl;
}

void sn_tt_plan_free(void *plan)
{
    sn_tt_plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->off);
    free(pl->ev);
    free(pl);
}

int64_t sn_tt_predicted(const void *plan)
{
    return (int64_t) ((const sn_tt_plan_t *) plan)->T;
}

static void timetable_hold(sn_tt_state_t *s, uint32_t x)
{
    s->have[x / 64] |= 1ull << (x % 64);
}

int sn_tt_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    sn_tt_state_t *s = state;
    const sn_tt_plan_t *pl = plan;
    s->pl = pl;
    s->u = node;
    s->next = pl->off[node];
    s->have = sn_xcalloc(pl->W, sizeof *s->have);
    if (pl->mnb || node == pl->p->root)
        for (uint32_t k = 0; k < pl->M; k++)
            timetable_hold(s, pl->mnb ? node * pl->M + k : k);
    return 0;
}

void sn_tt_node_fini(void *state)
{
    free(((sn_tt_state_t *) state)->have);
}

int sn_tt_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    sn_tt_state_t *s = state;
    const sn_tt_plan_t *pl = s->pl;
    uint32_t f = pl->p->frags, M = pl->M;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *pkt = &io->rx[r].pkt;
        uint32_t k = pkt->seq * f + pkt->frag;
        if (k >= M || (pl->mnb ? pkt->src >= pl->n : pkt->src != pl->p->root))
            return sn_err_set(err, SN_EALGO, "%s: node %u got a packet of no source", pl->name,
                              s->u);
        timetable_hold(s, pl->mnb ? pkt->src * M + k : k);
        sn_step_deliver(io, pkt);
    }
    uint32_t end = pl->off[s->u + 1];
    while (s->next < end && pl->ev[s->next].slot <= io->slot) {
        const sn_tt_ev_t *e = &pl->ev[s->next++];
        if (e->slot != io->slot || !(s->have[e->x / 64] & (1ull << (e->x % 64))))
            return sn_err_set(err, SN_EALGO, "%s: node %u cannot send packet %u in step %llu",
                              pl->name, s->u, e->x, (unsigned long long) e->slot);
        uint32_t src = pl->mnb ? e->x / M : pl->p->root, k = pl->mnb ? e->x % M : e->x;
        sn_packet_t pkt = sn_packet_data(pl->p, src, SN_NODE_ALL, k / f, k % f);
        sn_step_send(io, e->port, &pkt);
    }
    if (s->next < end)
        io->wake = pl->ev[s->next].slot;
    return 0;
}

int sn_tt_applies_upto(const sn_topo_t *t, const sn_params_t *p, const char *name, uint32_t max,
                       sn_err_t *err)
{
    uint64_t work = (uint64_t) t->n * p->msgs * p->frags;
    if (t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP, "%s needs every node a processor", name);
    if (work > max)
        return sn_err_set(err, SN_ERANGE,
                          "%s plans at most %u node-packets; %s with %u packets has %llu", name,
                          max, t->spec, p->msgs * p->frags, (unsigned long long) work);
    return 0;
}
