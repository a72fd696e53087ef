/* The fat-tree engine (core/algo): geometry, leaf injection and the router state machine that the
 * chapter-6 algorithms share (fattree.h). Dimakopoulos, thesis, sections 6.1-6.3: leaves are the
 * processors and only inject and consume; routers forward with one FIFO per branch and send by
 * the single-port discipline of their algorithm (Figs. 6.4, 6.6, 6.8) or, multiport, up to c_i
 * packets per level-i branch and slot. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/fattree.h"
#include "stepnet/util.h"

/* ---- plan ------------------------------------------------------------------------------------ */

int sn__ft_applies(const sn_topo_t *t, const sn_params_t *p, const char *who, sn_err_t *err)
{
    if (t->kind != SN_TOPO_FATTREE)
        return sn_err_set(err, SN_ENOTSUP, "%s needs a fat tree (fattree:K:H), not %s", who,
                          t->spec);
    if (t->b < 2)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs a fat tree of height H >= 2 (thesis, section 6.1), not %s", who,
                          t->spec);
    if (p->msgs * p->frags != 1)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s sends one packet per message (msgs 1, frags 1), not %u x %u", who,
                          p->msgs, p->frags);
    if (p->pm.ports == SN_PORTS_MULTI && t->caps[1] != 1)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s with multiport needs one link per leaf (c_1 = 1, thesis, section "
                          "6.3); %s has c_1 = %u",
                          who, t->spec, t->caps[1]);
    return 0;
}

sn_ft_plan_t *sn__ft_plan_alloc(const sn_topo_t *t, const sn_params_t *p)
{
    sn_ft_plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->k = t->a;
    pl->h = t->b;
    pl->pw[0] = 1;
    for (uint32_t i = 1; i <= pl->h + 1 && i < SN_FT_MAXH + 2; i++)
        pl->pw[i] = pl->pw[i - 1] * pl->k;
    pl->n = (uint32_t) pl->pw[pl->h];
    /* Effective capacities (erratum of (6.5)): a level-i branch can be fed with at most
     * k c_eff(i-1) packets per slot, and leaves send one per slot. */
    pl->ceff[1] = 1;
    for (uint32_t i = 2; i <= pl->h; i++) {
        uint64_t c = (uint64_t) pl->k * pl->ceff[i - 1];
        pl->ceff[i] = t->caps[i] < c ? t->caps[i] : (uint32_t) c;
    }
    return pl;
}

void sn__ft_plan_free(void *plan)
{
    free(plan);
}

int64_t sn__ft_predicted(const void *plan)
{
    return ((const sn_ft_plan_t *) plan)->predicted;
}

uint32_t sn__ft_dist(const sn_ft_plan_t *pl, uint32_t a, uint32_t b)
{
    uint32_t l = 0;
    while (a / pl->pw[l] != b / pl->pw[l])
        l++;
    return 2 * l;
}

/* Block l of s's order holds the leaves at distance 2l: those below s's level-l ancestor and not
 * below its level-(l-1) one, k^l - k^(l-1) of them; blocks run from l = h down to 1. */
uint32_t sn__ft_ff_at(const sn_ft_plan_t *pl, uint32_t s, uint64_t j)
{
    uint32_t l = pl->h;
    while (j >= pl->pw[l] - pl->pw[l - 1]) {
        j -= pl->pw[l] - pl->pw[l - 1];
        l--;
    }
    uint64_t base = s / pl->pw[l] * pl->pw[l], own = s / pl->pw[l - 1] % pl->k;
    if (j >= own * pl->pw[l - 1])
        j += pl->pw[l - 1];
    return (uint32_t) (base + j);
}

uint64_t sn__ft_ff_pos(const sn_ft_plan_t *pl, uint32_t s, uint32_t d)
{
    uint32_t l = sn__ft_dist(pl, s, d) / 2;
    uint64_t base = s / pl->pw[l] * pl->pw[l], own = s / pl->pw[l - 1] % pl->k;
    uint64_t e = d - base;
    if (e >= (own + 1) * pl->pw[l - 1])
        e -= pl->pw[l - 1];
    return pl->pw[pl->h] - pl->pw[l] + e;
}

/* ---- node ------------------------------------------------------------------------------------ */

typedef struct {
    sn_msg_t *v; /* port = the branch the packet leaves on */
    size_t head, len, cap;
} fifo_t;

typedef struct {
    const sn_ft_plan_t *pl;
    uint32_t u, level, index, nb; /* nb: branches (k + 1 for routers, the parent for leaves) */
    fifo_t *q;                    /* [k + 1] */
    uint64_t ninj, next;          /* leaves: own packets, and the next one to inject */
    uint64_t sent_up, phase_a; /* Figs. 6.6 and 6.8: packets sent up, and how many phase A sends */
    uint64_t queued;           /* packets in the FIFOs */
    uint32_t rr;               /* Fig. 6.6: the child whose turn it is */
} state_t;

_Static_assert(sizeof(state_t) <= SN__FT_STATE_SIZE, "SN__FT_STATE_SIZE is too small");

static void fattree_fifo_push(state_t *s, uint32_t qi, uint32_t branch, const sn_packet_t *pkt)
{
    fifo_t *f = &s->q[qi];
    if (f->head > 0 && f->head + f->len == f->cap) { /* compact before growing */
        memmove(f->v, f->v + f->head, f->len * sizeof *f->v);
        f->head = 0;
    }
    if (f->head + f->len == f->cap)
        sn_grow((void **) &f->v, &f->cap, f->len + 1, sizeof *f->v);
    f->v[f->head + f->len].pkt = *pkt;
    f->v[f->head + f->len].port = branch;
    f->len++;
    s->queued++;
}

static sn_msg_t fattree_fifo_pop(state_t *s, uint32_t qi)
{
    fifo_t *f = &s->q[qi];
    sn_msg_t m = f->v[f->head++];
    if (--f->len == 0)
        f->head = 0;
    s->queued--;
    return m;
}

int sn__ft_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const sn_ft_plan_t *pl = plan;
    state_t *s = state;
    s->pl = pl;
    s->u = node;
    sn_topo_fattree_pos(pl->t, node, &s->level, &s->index);
    s->nb = pl->k + 1;
    s->q = sn_xcalloc(s->nb, sizeof *s->q);
    if (s->level == 0) {
        s->ninj = pl->count(pl, node);
    } else if (s->level < pl->h) {
        s->phase_a = pl->disc == SN_FT_SP_MNB ? pl->pw[s->level]
                                              : pl->pw[s->level] * (pl->n - pl->pw[s->level]);
    }
    return 0;
}

void sn__ft_node_fini(void *state)
{
    state_t *s = state;
    for (uint32_t b = 0; s->q && b < s->nb; b++)
        free(s->q[b].v);
    free(s->q);
}

/* Links of branch b at this node, and the port of its j-th link. */
static uint32_t branch_cap(const state_t *s, uint32_t b)
{
    const uint32_t *caps = s->pl->t->caps;
    return b == s->pl->k ? caps[s->level + 1] : caps[s->level];
}

static uint32_t branch_port(const state_t *s, uint32_t b, uint32_t j)
{
    if (s->level == 0)
        return j;
    return b * s->pl->t->caps[s->level] + j;
}

static uint32_t port_branch(const state_t *s, uint32_t port)
{
    if (s->level == 0)
        return s->pl->k;
    uint32_t c = s->pl->t->caps[s->level];
    return port < s->pl->k * c ? port / c : s->pl->k;
}

/* The branch towards leaf d. */
static uint32_t next_branch(const state_t *s, uint32_t d)
{
    const sn_ft_plan_t *pl = s->pl;
    if (d / pl->pw[s->level] != s->index)
        return pl->k;
    return (uint32_t) (d / pl->pw[s->level - 1] % pl->k);
}

/* The FIFO a packet for branch b waits in. */
static uint32_t queue_of(const state_t *s, uint32_t b)
{
    if (s->pl->p->pm.ports == SN_PORTS_MULTI)
        return b;
    switch (s->pl->disc) {
    case SN_FT_SP_FIFO:
        return 0;
    case SN_FT_SP_TE:
        return b == s->pl->k ? s->pl->k : 0;
    case SN_FT_SP_MNB:
        break;
    }
    return b;
}

static void fattree_push(state_t *s, uint32_t b, const sn_packet_t *pkt)
{
    fattree_fifo_push(s, queue_of(s, b), b, pkt);
}

static int fattree_route(state_t *s, uint32_t f, const sn_packet_t *pkt, sn_err_t *err)
{
    const sn_ft_plan_t *pl = s->pl;
    uint32_t k = pl->k, top = s->level == pl->h;
    switch (pl->rule) {
    case SN_FT_ROUTE:
        if (pkt->dst >= pl->n)
            return sn_err_set(err, SN_EALGO, "packet for node %u, which is not a leaf", pkt->dst);
        fattree_push(s, next_branch(s, pkt->dst), pkt);
        break;
    case SN_FT_BCAST_SP:
        if (f != k && !top)
            fattree_push(s, k, pkt);
        for (uint32_t b = 0; b < k; b++)
            if (b != f)
                fattree_push(s, b, pkt);
        break;
    case SN_FT_FLOOD:
        for (uint32_t b = 0; b <= k; b++)
            if (b != f && !(b == k && top))
                fattree_push(s, b, pkt);
        break;
    case SN_FT_QUEUE_FREE: {
        uint32_t L = pl->h - pkt->tag;
        if (f != k && s->level < L)
            fattree_push(s, k, pkt);
        else
            for (uint32_t b = 0; b < k; b++)
                if (b != f)
                    fattree_push(s, b, pkt);
        break;
    }
    }
    return 0;
}

static void fattree_send_head(state_t *s, sn_step_t *io, uint32_t qi, uint32_t j)
{
    sn_msg_t m = fattree_fifo_pop(s, qi);
    sn_step_send(io, branch_port(s, m.port, j), &m.pkt);
}

static void router_send(state_t *s, sn_step_t *io)
{
    const sn_ft_plan_t *pl = s->pl;
    uint32_t k = pl->k;
    if (pl->p->pm.ports == SN_PORTS_MULTI) {
        for (uint32_t b = 0; b < s->nb; b++) {
            if (b == k && s->level == pl->h)
                continue;
            uint32_t c = branch_cap(s, b);
            for (uint32_t j = 0; j < c && s->q[b].len > 0; j++)
                fattree_send_head(s, io, b, j);
        }
        return;
    }
    int in_phase_a = s->level < pl->h && s->sent_up < s->phase_a;
    switch (pl->disc) {
    case SN_FT_SP_FIFO:
        if (s->q[0].len > 0)
            fattree_send_head(s, io, 0, 0);
        break;
    case SN_FT_SP_MNB: /* Fig. 6.6 */
        if (in_phase_a) {
            if (s->q[k].len > 0) {
                fattree_send_head(s, io, k, 0);
                s->sent_up++;
            }
            break;
        }
        for (uint32_t off = 0; off < k; off++) {
            uint32_t b = (s->rr + off) % k;
            if (s->q[b].len > 0) {
                fattree_send_head(s, io, b, 0);
                s->rr = (b + 1) % k;
                break;
            }
        }
        break;
    case SN_FT_SP_TE: /* Fig. 6.8 */
        if (in_phase_a) {
            if (s->q[k].len > 0) {
                fattree_send_head(s, io, k, 0);
                s->sent_up++;
            }
        } else if (s->q[0].len > 0) {
            fattree_send_head(s, io, 0, 0);
        }
        break;
    }
}

int sn__ft_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const sn_ft_plan_t *pl = s->pl;
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *pkt = &io->rx[i].pkt;
        if (s->level == 0) { /* leaves consume; they never relay */
            if (pkt->dst != SN_NODE_ALL && pkt->dst != s->u)
                return sn_err_set(err, SN_EALGO, "leaf %u got a packet for %u", s->u, pkt->dst);
            sn_step_deliver(io, pkt);
            continue;
        }
        int rc = fattree_route(s, port_branch(s, io->rx[i].port), pkt, err);
        if (rc < 0)
            return rc;
    }
    if (s->level == 0) {
        uint64_t at;
        sn_packet_t pkt;
        if (s->next < s->ninj) {
            pl->inject(pl, s->u, s->next, &at, &pkt);
            if (at < io->slot)
                return sn_err_set(err, SN_EALGO, "leaf %u missed its injection at slot %llu", s->u,
                                  (unsigned long long) at);
            if (at == io->slot) {
                sn_step_send(io, 0, &pkt);
                s->next++;
            }
        }
        if (s->next < s->ninj) {
            pl->inject(pl, s->u, s->next, &at, &pkt);
            io->wake = at;
        }
        return 0;
    }
    router_send(s, io);
    io->queue = (uint32_t) s->queued;
    if (s->queued > 0)
        io->wake = io->slot + 1;
    return 0;
}
