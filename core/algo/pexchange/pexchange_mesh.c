/* Partial exchange on the p x p array (core/algo): Varvarigos and Bertsekas, d-dimensional meshes,
 * section 4. Phase 1 (control packets, 2 floor(p/2) slots): in every row and every column at once
 * the marks of the active nodes converge on the median node and the total goes back, so that node
 * (i, j) knows r_i, the active nodes of its row, and c_j, those of its column. Phase 2: an active
 * node (i, j) is in R when r_i <= c_j (the paper prints c_i; its proof uses c_j) and in C
 * otherwise; R packets go along the row to the destination's column, then along the column; C
 * packets the other way round. Every directed link sends one queued packet per slot, never idles
 * while it has one, and gives priority to R packets on row links and to C packets on column links
 * (Lemma 3). The order within a priority class is left arbitrary by the paper: here FIFO, a
 * source's packets entering in destination order. On a torus the wraparound links are not used.
 * The paper bounds the time (T_PE <= 2 floor(sqrt(M)) (N - p) + 2(p - 1) + p t_p) but gives no
 * exact count, so there is no prediction. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

#define NONE UINT32_MAX
enum { ROW = 0, COL = 1 }; /* line kinds: a row (horizontal links), a column (vertical links) */
enum { CLS_R = 0, CLS_C = 1 };

typedef struct plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t side, med;
    uint64_t phase1; /* control slots: 2 floor(p/2) */
    uint32_t *port;  /* [n * 4]: (line kind, direction +/-) -> port, NONE at the array's edge */
    uint8_t *active; /* [n] */
} plan_t;

typedef struct fifo_s {
    sn_packet_t *v;
    size_t head, n, cap;
} fifo_t;

typedef struct node_s {
    const plan_t *pl;
    uint32_t u, pos[2];  /* pos[ROW] = column index j (position in its row), pos[COL] = row i */
    uint64_t part[2][2]; /* convergecast: partial sums from the - side and the + side, per line */
    uint64_t total[2];   /* r_i (ROW) and c_j (COL) */
    int has_total[2];
    fifo_t q[4][2]; /* per (line kind, direction): [priority class, other] */
    uint64_t queued;
} node_t;

static void pexchange_mesh_fifo_push(fifo_t *f, const sn_packet_t *k)
{
    if (f->head + f->n == f->cap) {
        if (f->head > 0) {
            memmove(f->v, f->v + f->head, f->n * sizeof *f->v);
            f->head = 0;
        } else {
            f->cap = f->cap ? 2 * f->cap : 16;
            f->v = sn_xrealloc(f->v, f->cap * sizeof *f->v);
        }
    }
    f->v[f->head + f->n++] = *k;
}

static int pexchange_mesh_shape(const sn_topo_t *t, uint32_t *side, sn_err_t *err)
{
    if ((t->kind != SN_TOPO_MESH && t->kind != SN_TOPO_TORUS) || t->nfactors != 2 ||
        t->factors[0]->n != t->factors[1]->n)
        return sn_err_set(err, SN_ENOTSUP,
                          "pexchange-mesh runs on p x p arrays and tori (mesh:PxP, torus:PxP), "
                          "not on %s",
                          t->spec);
    *side = t->factors[0]->n;
    return 0;
}

static int pexchange_mesh_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint32_t side;
    int rc = pexchange_mesh_shape(t, &side, err);
    if (rc)
        return rc;
    if (p->sources == NULL)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_SOURCES,
                                "pexchange-mesh needs its sources");
    return 0;
}

/* Line kind ROW moves the column index (factor 1), COL the row index (factor 0). */
static uint32_t coord(const plan_t *pl, uint32_t u, uint32_t kind)
{
    return kind == ROW ? u % pl->side : u / pl->side;
}

static int pexchange_mesh_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out,
                                   sn_err_t *err)
{
    int rc = pexchange_mesh_applies(t, p, err);
    if (rc)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t, pl->p = p;
    pexchange_mesh_shape(t, &pl->side, NULL);
    pl->med = pl->side / 2;
    pl->phase1 = 2ull * pl->med;
    pl->port = sn_xmalloc((size_t) t->n * 4 * sizeof *pl->port);
    for (size_t i = 0; i < (size_t) t->n * 4; i++)
        pl->port[i] = NONE;
    for (uint32_t u = 0; u < t->n; u++)
        for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
            uint32_t kind = sn_topo_port_factor(t, u, q) == 1 ? ROW : COL;
            uint32_t v = sn_topo_port(t, u, q)->peer;
            uint32_t a = coord(pl, u, kind), b = coord(pl, v, kind);
            if (b == a + 1 && pl->port[u * 4 + kind * 2] == NONE)
                pl->port[u * 4 + kind * 2] = q;
            else if (b + 1 == a && pl->port[u * 4 + kind * 2 + 1] == NONE)
                pl->port[u * 4 + kind * 2 + 1] = q;
        }
    pl->active = sn_xcalloc(t->n, 1);
    for (uint32_t i = 0; i < p->nsources; i++)
        pl->active[p->sources[i]] = 1;
    *out = pl;
    return 0;
}

static void pexchange_mesh_plan_free(void *vp)
{
    plan_t *pl = vp;
    if (pl == NULL)
        return;
    free(pl->port);
    free(pl->active);
    free(pl);
}

static int64_t pexchange_mesh_predicted(const void *vp)
{
    (void) vp;
    return -1;
}

static int pexchange_mesh_node_init(const void *vp, uint32_t u, void *st, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = vp;
    node_t *s = st;
    s->pl = pl, s->u = u;
    s->pos[ROW] = coord(pl, u, ROW);
    s->pos[COL] = coord(pl, u, COL);
    return 0;
}

static void pexchange_mesh_node_fini(void *st)
{
    node_t *s = st;
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 2; c++)
            free(s->q[i][c].v);
}

static void send_ctl(node_t *s, sn_step_t *io, uint32_t kind, uint32_t dir, uint64_t value)
{
    uint32_t port = s->pl->port[s->u * 4 + kind * 2 + dir];
    sn_packet_t k = {0};
    k.src = s->u;
    k.dst = sn_topo_port(s->pl->t, s->u, port)->peer;
    k.kind = SN_PKT_CONTROL;
    k.flags = (uint8_t) kind;
    k.digest = value;
    sn_step_send(io, port, &k);
}

/* Phase 1 in one line (kind) at tick `tick` (1 .. 2m): the convergecast to the median m, then the
 * total back. `got`/`val`/`from_plus`: this line's control packet of the previous tick. */
static void phase1_line(node_t *s, uint32_t kind, uint64_t tick, int got, uint64_t val,
                        int from_plus, sn_step_t *io)
{
    const plan_t *pl = s->pl;
    uint32_t i = s->pos[kind], m = pl->med, p = pl->side;
    uint64_t x = pl->active[s->u];
    if (got && tick <= m + 1 && !s->has_total[kind])
        s->part[kind][from_plus] = val; /* a partial sum of the convergecast */
    else if (got) {
        s->total[kind] = val, s->has_total[kind] = 1; /* the total on its way back */
        if (i < m && i > 0)
            send_ctl(s, io, kind, 1, val);
        if (i > m && i < p - 1)
            send_ctl(s, io, kind, 0, val);
        return;
    }
    if (tick > pl->phase1)
        return;
    if (i < m && tick == i + 1)
        send_ctl(s, io, kind, 0, x + s->part[kind][0]);
    else if (i > m && tick == (uint64_t) (p - 1 - i) + 1)
        send_ctl(s, io, kind, 1, x + s->part[kind][1]);
    else if (i == m && tick == (uint64_t) m + 1) {
        s->total[kind] = x + s->part[kind][0] + s->part[kind][1];
        s->has_total[kind] = 1;
        if (i > 0)
            send_ctl(s, io, kind, 1, s->total[kind]);
        if (i < p - 1)
            send_ctl(s, io, kind, 0, s->total[kind]);
    }
}

/* The queue a packet at this node waits in, or -1 when it is home. */
static int pexchange_mesh_route(const node_t *s, const sn_packet_t *k, uint32_t *qi)
{
    const plan_t *pl = s->pl;
    if (k->dst == s->u)
        return -1;
    uint32_t first = k->tag == CLS_R ? ROW : COL;
    uint32_t kind = coord(pl, s->u, first) != coord(pl, k->dst, first) ? first : 1 - first;
    uint32_t dir = coord(pl, k->dst, kind) > coord(pl, s->u, kind) ? 0 : 1;
    *qi = kind * 2 + dir;
    return 0;
}

static int enqueue(node_t *s, const sn_packet_t *k, sn_err_t *err)
{
    uint32_t qi;
    if (pexchange_mesh_route(s, k, &qi) < 0)
        return 0;
    if (s->pl->port[s->u * 4 + qi] == NONE)
        return sn_err_set(err, SN_EALGO, "node %u: no link on the way to %u", s->u, k->dst);
    /* priority: R packets on row links, C packets on column links */
    uint32_t kind = qi / 2, prio = (kind == ROW) == (k->tag == CLS_R);
    pexchange_mesh_fifo_push(&s->q[qi][prio ? 0 : 1], k);
    s->queued++;
    return 0;
}

static int pexchange_mesh_node_step(void *st, sn_step_t *io, sn_err_t *err)
{
    node_t *s = st;
    const plan_t *pl = s->pl;
    uint64_t slot = io->slot;
    int rc;
    /* ---- arrivals ---- */
    int got[2] = {0, 0}, plus[2] = {0, 0};
    uint64_t val[2] = {0, 0};
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *k = &io->rx[r].pkt;
        if (k->kind == SN_PKT_CONTROL) {
            uint32_t kind = k->flags & 1u;
            got[kind] = 1, val[kind] = k->digest;
            plus[kind] = coord(pl, k->src, kind) > s->pos[kind];
            continue;
        }
        if (k->dst == s->u)
            sn_step_deliver(io, k);
        else if ((rc = enqueue(s, k, err)))
            return rc;
    }
    /* ---- phase 1: r_i and c_j by control packets ---- */
    if (slot <= pl->phase1 + 1) {
        phase1_line(s, ROW, slot, got[ROW], val[ROW], plus[ROW], io);
        phase1_line(s, COL, slot, got[COL], val[COL], plus[COL], io);
    }
    /* ---- phase 2: inject, then one packet per link ---- */
    if (slot == pl->phase1 + 1 && pl->active[s->u]) {
        if (!s->has_total[ROW] || !s->has_total[COL])
            return sn_err_set(err, SN_EALGO, "node %u: no row or column count after phase 1", s->u);
        uint32_t cls = s->total[ROW] <= s->total[COL] ? CLS_R : CLS_C;
        for (uint32_t v = 0; v < pl->t->n; v++) {
            if (v == s->u)
                continue;
            for (uint32_t f = 0; f < pl->p->msgs * pl->p->frags; f++) {
                sn_packet_t k = sn_packet_data(pl->p, s->u, v, f / pl->p->frags, f % pl->p->frags);
                k.tag = cls;
                if ((rc = enqueue(s, &k, err)))
                    return rc;
            }
        }
    }
    if (slot > pl->phase1)
        for (uint32_t qi = 0; qi < 4; qi++) {
            fifo_t *f = s->q[qi][0].n ? &s->q[qi][0] : &s->q[qi][1];
            if (f->n == 0)
                continue;
            sn_step_send(io, pl->port[s->u * 4 + qi], &f->v[f->head]);
            f->head++, f->n--, s->queued--;
        }
    io->wake = slot <= pl->phase1 || s->queued ? slot + 1 : SN_WAKE_NEVER;
    return 0;
}

const sn_algo_t sn__algo_pexchange_mesh = {
    .name = "pexchange-mesh",
    .coll = SN_COLL_PEXCHANGE,
    .pm_mask = SN_PM_MULTI,
    .topos = "mesh PxP, torus PxP (wraparound unused)",
    .summary = "row and column counts by control packets, then R packets row-first and C packets "
               "column-first, each with priority on its first links",
    .source = "Varvarigos and Bertsekas, d-dimensional meshes, section 4, Lemma 3",
    .predicts = "none (the paper bounds it: 2 floor(sqrt(M)) (N - p) + 2(p - 1) + p t_p)",
    .applies = pexchange_mesh_applies,
    .plan_new = pexchange_mesh_plan_new,
    .plan_free = pexchange_mesh_plan_free,
    .predicted = pexchange_mesh_predicted,
    .state_size = sizeof(node_t),
    .node_init = pexchange_mesh_node_init,
    .node_fini = pexchange_mesh_node_fini,
    .node_step = pexchange_mesh_node_step,
    .vs_generic = 1, /* auto compares dry runs of it and of pexchange-route */
};
