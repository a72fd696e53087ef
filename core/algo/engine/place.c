/* Placing the transmissions of a broadcast-type schedule around others (core/algo, place.h):
 * the resources of a transmission as keys (slot, resource) in an open-addressing set, and the
 * greedy list scheduling that places a schedule's transmissions in its order. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/place.h"
#include "stepnet/util.h"

struct sn__busy_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint64_t *tab; /* key + 1, 0 empty */
    size_t mask, used;
};

sn__busy_t *sn__busy_new(const sn_topo_t *t, const sn_params_t *p)
{
    sn__busy_t *b = sn_xcalloc(1, sizeof *b);
    b->t = t;
    b->p = p;
    b->mask = 1023;
    b->tab = sn_xcalloc(b->mask + 1, sizeof *b->tab);
    return b;
}

void sn__busy_free(sn__busy_t *b)
{
    if (b == NULL)
        return;
    free(b->tab);
    free(b);
}

/* The resources a transmission of (node, port) in a slot takes, as keys slot * W + resource:
 * the port always, the sender's one send single-port, the receiver's one reception with rx one,
 * the edge half duplex. Writes up to 4 keys into key[]; returns how many. */
static size_t resources(const sn__busy_t *b, uint64_t slot, uint32_t node, uint32_t port,
                        uint64_t *key)
{
    const sn_topo_t *t = b->t;
    uint64_t ports = t->port_off[t->n], W = ports + 2ull * t->n + t->nedges;
    const sn_port_t *pp = sn_topo_port(t, node, port);
    size_t k = 0;
    key[k++] = slot * W + t->port_off[node] + port;
    if (b->p->pm.ports == SN_PORTS_SINGLE) {
        key[k++] = slot * W + ports + node;
        if (b->p->pm.rx == SN_RX_ONE)
            key[k++] = slot * W + ports + t->n + pp->peer;
    }
    if (b->p->pm.duplex == SN_DUPLEX_HALF)
        key[k++] = slot * W + ports + 2ull * t->n + pp->edge;
    return k;
}

static size_t find(const uint64_t *tab, size_t mask, uint64_t key)
{
    size_t h = (size_t) ((key * 0x9e3779b97f4a7c15ull) >> 17) & mask;
    while (tab[h] != 0 && tab[h] != key + 1)
        h = (h + 1) & mask;
    return h;
}

static void add(sn__busy_t *b, uint64_t key)
{
    if (2 * (b->used + 1) > b->mask + 1) { /* keep the table at most half full */
        size_t mask = 2 * b->mask + 1;
        uint64_t *tab = sn_xcalloc(mask + 1, sizeof *tab);
        for (size_t i = 0; i <= b->mask; i++)
            if (b->tab[i] != 0)
                tab[find(tab, mask, b->tab[i] - 1)] = b->tab[i];
        free(b->tab);
        b->tab = tab;
        b->mask = mask;
    }
    size_t h = find(b->tab, b->mask, key);
    if (b->tab[h] == 0) {
        b->tab[h] = key + 1;
        b->used++;
    }
}

int sn__busy_clash(const sn__busy_t *b, uint64_t slot, uint32_t node, uint32_t port)
{
    uint64_t key[4];
    size_t m = resources(b, slot, node, port, key);
    for (size_t j = 0; j < m; j++)
        if (b->tab[find(b->tab, b->mask, key[j])] != 0)
            return 1;
    return 0;
}

void sn__busy_take(sn__busy_t *b, uint64_t slot, uint32_t node, uint32_t port)
{
    uint64_t key[4];
    size_t m = resources(b, slot, node, port, key);
    for (size_t j = 0; j < m; j++)
        add(b, key[j]);
}

void sn__busy_take_combo(sn__busy_t *b, const sn__combo_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        sn__busy_take(b, c->ev[i].slot, c->ev[i].node, c->ev[i].port);
}

uint64_t sn__place_greedy(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *in,
                          sn__reverse_map_fn map, void *ctx, const uint64_t *ready, sn__busy_t *b,
                          uint64_t *at)
{
    uint64_t M = (uint64_t) p->msgs * p->frags, last = 0;
    /* hold[v M + k]: the slot v holds packet k, UINT64_MAX before */
    size_t nh = (size_t) t->n * M;
    uint64_t *hold = sn_xmalloc((nh > 0 ? nh : 1) * sizeof *hold);
    for (size_t i = 0; i < nh; i++)
        hold[i] = UINT64_MAX;
    for (size_t i = 0; i < in->n; i++) {
        const sn_sched_ev_t *e = &in->ev[i];
        sn_packet_t out;
        at[i] = 0;
        if (e->pkt.kind != SN_PKT_DATA || map(ctx, &e->pkt, &out) != 0)
            continue;
        uint64_t k = (uint64_t) out.seq * p->frags + out.frag;
        if (k >= M || e->pkt.src >= t->n)
            continue;
        size_t src = (size_t) e->pkt.src * M + k;
        if (hold[src] == UINT64_MAX)
            hold[src] = ready ? ready[k] : 0;
        uint32_t v = sn_topo_port(t, e->node, e->port)->peer;
        /* `in` sends only what its sender holds, received in an earlier transmission of `in`,
         * placed or dropped as a copy */
        uint64_t from = hold[(size_t) e->node * M + k];
        if (hold[(size_t) v * M + k] != UINT64_MAX || from == UINT64_MAX)
            continue;
        uint64_t s = from + 1;
        while (sn__busy_clash(b, s, e->node, e->port))
            s++;
        sn__busy_take(b, s, e->node, e->port);
        at[i] = s;
        hold[(size_t) v * M + k] = s;
        last = s > last ? s : last;
    }
    free(hold);
    return last;
}

static int cmp_at(const void *x, const void *y)
{
    const sn_sched_ev_t *a = x, *b = y;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->port < b->port ? -1 : (a->port > b->port);
}

void sn__place_sched(const sn_sched_t *in, const uint64_t *at, sn_sched_t *out)
{
    *out = (sn_sched_t){.ev = sn_xmalloc((in->n ? in->n : 1) * sizeof *out->ev), .predicted = -1};
    for (size_t i = 0; i < in->n; i++) {
        if (at[i] == 0)
            continue;
        out->ev[out->n] = in->ev[i];
        out->ev[out->n++].slot = at[i];
        out->steps = at[i] > out->steps ? at[i] : out->steps;
    }
    qsort(out->ev, out->n, sizeof *out->ev, cmp_at);
}
