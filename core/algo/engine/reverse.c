/* The time reversal of broadcast schedules, and combining schedules built from pieces
 * (core/algo, reverse.h). A broadcast's packet is delivered along a tree; its reversal gathers the
 * contributions up the same tree (Dimakopoulos, thesis, section 3.1, and Varvarigos, folded-cube
 * paper, section 1: accumulation is the dual of broadcast). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

#define NONE UINT32_MAX

void sn__combo_add(sn__combo_t *c, uint64_t slot, uint32_t node, uint32_t port,
                   const sn_packet_t *pkt, const uint32_t *ops, size_t nops)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->ev = sn_xrealloc(c->ev, c->cap * sizeof *c->ev);
        c->first = sn_xrealloc(c->first, c->cap * sizeof *c->first);
    }
    if (c->nid + nops > c->idcap) {
        while (c->nid + nops > c->idcap)
            c->idcap = c->idcap ? 2 * c->idcap : 1024;
        c->id = sn_xrealloc(c->id, c->idcap * sizeof *c->id);
    }
    c->ev[c->n] = (sn_sched_ev_t){.slot = slot, .node = node, .port = port, .pkt = *pkt};
    c->first[c->n++] = c->nid;
    memcpy(c->id + c->nid, ops, nops * sizeof *ops);
    c->nid += nops;
}

static int cmp_ev_at(const void *a, const void *b, void *ctx)
{
    const sn_sched_ev_t *ev = ctx;
    const sn_sched_ev_t *x = &ev[*(const size_t *) a], *y = &ev[*(const size_t *) b];
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->port < y->port ? -1 : (x->port > y->port);
}

void sn__combo_finish(sn__combo_t *c, sn_sched_t *s, sn_sched_ops_t *ops)
{
    size_t *ord = sn_xmalloc((c->n ? c->n : 1) * sizeof *ord);
    for (size_t i = 0; i < c->n; i++)
        ord[i] = i;
    qsort_r(ord, c->n, sizeof *ord, cmp_ev_at, c->ev);
    *s = (sn_sched_t){
        .ev = sn_xmalloc((c->n ? c->n : 1) * sizeof *s->ev), .n = c->n, .predicted = -1};
    ops->first = sn_xmalloc((c->n + 1) * sizeof *ops->first);
    ops->id = sn_xmalloc((c->nid ? c->nid : 1) * sizeof *ops->id);
    size_t at = 0;
    for (size_t k = 0; k < c->n; k++) {
        size_t i = ord[k];
        size_t from = c->first[i], to = i + 1 < c->n ? c->first[i + 1] : c->nid;
        s->ev[k] = c->ev[i];
        ops->first[k] = at;
        memcpy(ops->id + at, c->id + from, (to - from) * sizeof *ops->id);
        at += to - from;
        if (c->ev[i].slot > s->steps)
            s->steps = c->ev[i].slot;
    }
    ops->first[c->n] = at;
    free(ord);
    sn__combo_free(c);
}

void sn__combo_free(sn__combo_t *c)
{
    free(c->ev);
    free(c->id);
    free(c->first);
    memset(c, 0, sizeof *c);
}

void sn__combo_keep_shorter(sn__combo_t *best, uint64_t *best_steps, sn__combo_t *c, uint64_t steps)
{
    if (steps < *best_steps) {
        sn__combo_free(best);
        *best = *c, *best_steps = steps;
    } else {
        sn__combo_free(c);
    }
}

/* ---- reversal ---------------------------------------------------------------------------------
 * The data transmissions of the broadcast, grouped by packet (source, seq, frag), each group in
 * slot order: a group is one packet's tree. */

typedef struct {
    const sn_topo_t *t;
    const sn_sched_t *in;
    size_t *grp; /* indices of the data transmissions, by (packet, slot, node, port) */
    size_t ngrp;
    /* one tree at a time, in local ids 0 .. nt-1 (0 the source), in the order nodes join it */
    uint32_t *loc;   /* [n] a node's local id, NONE outside the tree */
    uint32_t *node;  /* [n] local id -> node */
    size_t *via;     /* [n] the transmission that brought it (its index in `in`) */
    uint64_t *rslot; /* [n] the slot it was received in (0 for the source) */
    uint32_t *sub;   /* [n] processors in its subtree */
    uint32_t *size;  /* [n] nodes in its subtree */
    uint32_t *pre;   /* [n] position in the tree's preorder */
    uint32_t *kids;  /* [n + 1] CSR of children (offsets), then their ids in kid[] */
    uint32_t *kid;   /* [n] */
    uint32_t *ord;   /* [n] preorder -> local id */
    uint32_t *stack; /* [n] */
    uint32_t nt;
} rev_t;

static int cmp_pkt(const void *a, const void *b, void *ctx)
{
    const sn_sched_ev_t *ev = ctx;
    size_t i = *(const size_t *) a, j = *(const size_t *) b;
    const sn_packet_t *x = &ev[i].pkt, *y = &ev[j].pkt;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->frag != y->frag)
        return x->frag < y->frag ? -1 : 1;
    return i < j ? -1 : (i > j); /* `in` is in (slot, node, port) order */
}

static int same_pkt(const sn_packet_t *x, const sn_packet_t *y)
{
    return x->src == y->src && x->seq == y->seq && x->frag == y->frag;
}

/* Builds the tree of the group grp[g0 .. g1): the first reception of the packet at every node. */
static int tree_build(rev_t *r, size_t g0, size_t g1, sn_err_t *err)
{
    const sn_topo_t *t = r->t;
    const sn_sched_ev_t *ev = r->in->ev;
    for (uint32_t i = 0; i < r->nt; i++)
        r->loc[r->node[i]] = NONE;
    uint32_t src = ev[r->grp[g0]].pkt.src;
    if (src >= t->n)
        return sn_err_set(err, SN_EALGO, "the broadcast sends a packet of no node (src %u)", src);
    r->nt = 1;
    r->node[0] = src, r->loc[src] = 0, r->rslot[0] = 0, r->via[0] = SIZE_MAX;
    for (size_t g = g0; g < g1; g++) {
        const sn_sched_ev_t *e = &ev[r->grp[g]];
        uint32_t lu = r->loc[e->node];
        if (lu == NONE || r->rslot[lu] >= e->slot)
            return sn_err_set(err, SN_EALGO,
                              "slot %llu: node %u sends packet (src %u, seq %u, frag %u) of the "
                              "broadcast before it holds it",
                              (unsigned long long) e->slot, e->node, src, e->pkt.seq, e->pkt.frag);
        uint32_t v = sn_topo_port(t, e->node, e->port)->peer;
        if (r->loc[v] != NONE)
            continue; /* a later copy: v forwards the first */
        uint32_t lv = r->nt++;
        r->node[lv] = v, r->loc[v] = lv, r->rslot[lv] = e->slot, r->via[lv] = r->grp[g];
    }
    /* children before parents: the nodes joined in slot order */
    memset(r->kids, 0, ((size_t) r->nt + 1) * sizeof *r->kids);
    for (uint32_t i = 1; i < r->nt; i++)
        r->kids[r->loc[ev[r->via[i]].node] + 1]++;
    for (uint32_t i = 0; i < r->nt; i++)
        r->kids[i + 1] += r->kids[i];
    for (uint32_t i = 0; i < r->nt; i++)
        r->pre[i] = r->kids[i]; /* fill cursor */
    for (uint32_t i = 1; i < r->nt; i++)
        r->kid[r->pre[r->loc[ev[r->via[i]].node]]++] = i;
    for (uint32_t i = r->nt; i-- > 0;) {
        r->sub[i] = sn_topo_is_proc(t, r->node[i]) ? 1 : 0;
        r->size[i] = 1;
        for (uint32_t k = r->kids[i]; k < r->kids[i + 1]; k++) {
            r->sub[i] += r->sub[r->kid[k]];
            r->size[i] += r->size[r->kid[k]];
        }
    }
    /* preorder, so that every subtree is a contiguous range of ord[] */
    uint32_t top = 0, at = 0;
    r->stack[top++] = 0;
    while (top > 0) {
        uint32_t i = r->stack[--top];
        r->pre[i] = at;
        r->ord[at++] = i;
        for (uint32_t k = r->kids[i + 1]; k-- > r->kids[i];)
            r->stack[top++] = r->kid[k];
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : (x > y);
}

int sn__reverse_append(const sn_topo_t *t, const sn_sched_t *in, sn__reverse_map_fn map, void *ctx,
                       uint64_t base, sn__combo_t *c, uint64_t *end, sn_err_t *err)
{
    uint32_t n = t->n;
    rev_t r = {.t = t, .in = in};
    int rc = 0;
    *end = base;
    r.grp = sn_xmalloc((in->n ? in->n : 1) * sizeof *r.grp);
    for (size_t i = 0; i < in->n; i++)
        if (in->ev[i].pkt.kind == SN_PKT_DATA)
            r.grp[r.ngrp++] = i;
    qsort_r(r.grp, r.ngrp, sizeof *r.grp, cmp_pkt, in->ev);
    r.loc = sn_xmalloc(n * sizeof *r.loc);
    for (uint32_t v = 0; v < n; v++)
        r.loc[v] = NONE;
    r.node = sn_xmalloc(n * sizeof *r.node);
    r.via = sn_xmalloc(n * sizeof *r.via);
    r.rslot = sn_xmalloc(n * sizeof *r.rslot);
    r.sub = sn_xmalloc(n * sizeof *r.sub);
    r.size = sn_xmalloc(n * sizeof *r.size);
    r.pre = sn_xmalloc(n * sizeof *r.pre);
    r.kids = sn_xmalloc(((size_t) n + 1) * sizeof *r.kids);
    r.kid = sn_xmalloc(n * sizeof *r.kid);
    r.ord = sn_xmalloc(n * sizeof *r.ord);
    r.stack = sn_xmalloc(n * sizeof *r.stack);
    uint32_t *ops = sn_xmalloc(n * sizeof *ops);

    /* pass 1: the operands and the slots the reversal spans, before anything is built */
    uint64_t total = 0, lo = UINT64_MAX, hi = 0;
    for (size_t g0 = 0, g1; g0 < r.ngrp && rc == 0; g0 = g1) {
        for (g1 = g0 + 1; g1 < r.ngrp && same_pkt(&in->ev[r.grp[g1]].pkt, &in->ev[r.grp[g0]].pkt);
             g1++)
            ;
        sn_packet_t out;
        if (map(ctx, &in->ev[r.grp[g0]].pkt, &out) != 0)
            continue;
        rc = tree_build(&r, g0, g1, err);
        for (uint32_t i = 1; rc == 0 && i < r.nt; i++) {
            if (r.sub[i] == 0)
                continue; /* routers only below: nothing to combine */
            total += r.sub[i];
            lo = r.rslot[i] < lo ? r.rslot[i] : lo;
            hi = r.rslot[i] > hi ? r.rslot[i] : hi;
        }
    }
    if (rc == 0 && total > SN_REVERSE_MAX_OPERANDS)
        rc = sn_err_set(err, SN_ERANGE,
                        "the reversed schedule would list %llu operands, more than the %u this "
                        "implementation keeps",
                        (unsigned long long) total, SN_REVERSE_MAX_OPERANDS);

    /* pass 2: every kept reception u -> v in slot s becomes v -> u in slot base + hi + 1 - s */
    for (size_t g0 = 0, g1; g0 < r.ngrp && rc == 0 && total > 0; g0 = g1) {
        for (g1 = g0 + 1; g1 < r.ngrp && same_pkt(&in->ev[r.grp[g1]].pkt, &in->ev[r.grp[g0]].pkt);
             g1++)
            ;
        sn_packet_t out;
        if (map(ctx, &in->ev[r.grp[g0]].pkt, &out) != 0)
            continue;
        rc = tree_build(&r, g0, g1, err);
        for (uint32_t i = 1; rc == 0 && i < r.nt; i++) {
            if (r.sub[i] == 0)
                continue;
            uint32_t no = 0;
            for (uint32_t j = r.pre[i]; j < r.pre[i] + r.size[i]; j++)
                if (sn_topo_is_proc(t, r.node[r.ord[j]]))
                    ops[no++] = r.node[r.ord[j]];
            qsort(ops, no, sizeof *ops, cmp_u32);
            const sn_sched_ev_t *e = &in->ev[r.via[i]];
            uint32_t port = sn_topo_port(t, e->node, e->port)->rport;
            sn__combo_add(c, base + hi + 1 - e->slot, r.node[i], port, &out, ops, no);
        }
    }
    if (rc == 0 && total > 0)
        *end = base + hi + 1 - lo;
    free(ops);
    free(r.grp);
    free(r.loc);
    free(r.node);
    free(r.via);
    free(r.rslot);
    free(r.sub);
    free(r.size);
    free(r.pre);
    free(r.kids);
    free(r.kid);
    free(r.ord);
    free(r.stack);
    return rc;
}

int sn__combo_plan(const sn_topo_t *t, const sn_params_t *p, sn__combo_t *c, void **plan,
                   sn_err_t *err)
{
    sn_sched_t s;
    sn_sched_ops_t ops;
    sn__combo_finish(c, &s, &ops);
    int rc = sn__schedule_plan_new(t, p, &s, &ops, plan, err);
    free(s.ev);
    sn_sched_ops_free(&ops);
    return rc;
}

int sn__reverse_plan(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *in,
                     sn__reverse_map_fn map, void *ctx, void **plan, sn_err_t *err)
{
    sn__combo_t c = {0};
    uint64_t end;
    int rc = sn__reverse_append(t, in, map, ctx, 0, &c, &end, err);
    if (rc < 0) {
        sn__combo_free(&c);
        return rc;
    }
    return sn__combo_plan(t, p, &c, plan, err);
}
