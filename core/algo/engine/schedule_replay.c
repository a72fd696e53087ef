/* schedule: plays an explicit schedule (core/algo), what `--algo schedule:FILE` runs.
 *
 * The plan holds the file's transmissions grouped by sender and sorted by slot. Each node sends in
 * slot s exactly what the schedule lists for it in s, asking to be woken at its next sending slot,
 * and delivers the first copy of every packet addressed to it (a schedule may bring a packet
 * twice, as flooding does; it is delivered once). Whether a node holds what it sends, and the
 * port model, were checked before the run (sn_sched_file_check); the executors check the port
 * model again in every slot. Data packets get their payload digest from the run's parameters,
 * never from the file.
 *
 * A combining collective's packets are combinations (schedule_compose.h): a node makes each one it
 * sends from its own contribution and the values of the combinations it received, as the recipe
 * built before the run says, and delivers the combination of every contribution once it can form
 * it. The values it combines are the ones that arrived, so a run verifies only if every combination
 * on the way was right. A combined packet carries the index of its transmission in its tag, so
 * its receiver knows which one arrived. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/schedule_compose.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

typedef struct sn__schedule_plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_sched_ev_t *ev; /* by (node, slot, port) */
    uint32_t *order;   /* [transmissions]: ev[k] is the order[k]-th transmission of the file */
    size_t *first;     /* [n + 1]: node u's transmissions are ev[first[u] .. first[u+1]) */
    uint64_t steps;
    /* combining collectives */
    int combining;
    sn_sched_ops_t ops; /* the file's operands, in the file's order */
    sn_compose_t rc;    /* the recipes */
    uint32_t *in;       /* the combined transmissions each node receives, ascending */
    size_t *in_first;   /* [n + 1]: node u's are in[in_first[u] .. in_first[u+1]) */
} plan_t;

typedef sn__schedule_state_t state_t;

static int cmp_node_slot(const void *a, const void *b, void *ctx)
{
    const sn_sched_ev_t *ev = ctx;
    const sn_sched_ev_t *x = &ev[*(const uint32_t *) a], *y = &ev[*(const uint32_t *) b];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->port < y->port ? -1 : (x->port > y->port);
}

static int cmp_ready(const void *a, const void *b)
{
    const sn_compose_delivery_t *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->ready < y->ready ? -1 : (x->ready > y->ready);
}

void sn__schedule_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->ev);
    free(pl->order);
    free(pl->first);
    sn_sched_ops_free(&pl->ops);
    sn__compose_free(&pl->rc);
    free(pl->in);
    free(pl->in_first);
    free(pl);
}

/* The recipes of a combining schedule, and who receives which combined transmission. */
static int plan_combining(plan_t *pl, const sn_sched_t *s, const sn_sched_ops_t *ops, sn_err_t *err)
{
    const sn_topo_t *t = pl->t;
    if (ops == NULL || ops->first == NULL)
        return sn_err_inval(err, "a schedule of %s needs the operands of its transmissions",
                            sn_coll_name(pl->p->coll));
    pl->combining = 1;
    size_t nid = ops->first[s->n];
    pl->ops.first = sn_xmalloc((s->n + 1) * sizeof *pl->ops.first);
    memcpy(pl->ops.first, ops->first, (s->n + 1) * sizeof *pl->ops.first);
    pl->ops.id = sn_xmalloc((nid ? nid : 1) * sizeof *pl->ops.id);
    if (nid)
        memcpy(pl->ops.id, ops->id, nid * sizeof *pl->ops.id);
    int rc = sn__compose_build(t, pl->p, s, &pl->ops, &pl->rc, err);
    if (rc < 0)
        return rc;
    /* the deliveries of each node in the order they become possible */
    size_t ndl = pl->rc.dl_first[t->n];
    if (ndl > 1)
        qsort(pl->rc.dl, ndl, sizeof *pl->rc.dl, cmp_ready);
    pl->in_first = sn_xcalloc((size_t) t->n + 1, sizeof *pl->in_first);
    size_t nin = 0;
    for (size_t j = 0; j < s->n; j++)
        if (s->ev[j].pkt.kind == SN_PKT_DATA) {
            pl->in_first[sn_topo_port(t, s->ev[j].node, s->ev[j].port)->peer + 1]++;
            nin++;
        }
    for (uint32_t u = 0; u < t->n; u++)
        pl->in_first[u + 1] += pl->in_first[u];
    pl->in = sn_xmalloc((nin ? nin : 1) * sizeof *pl->in);
    size_t *fill = sn_xmalloc(((size_t) t->n + 1) * sizeof *fill);
    memcpy(fill, pl->in_first, ((size_t) t->n + 1) * sizeof *fill);
    for (size_t j = 0; j < s->n; j++)
        if (s->ev[j].pkt.kind == SN_PKT_DATA)
            pl->in[fill[sn_topo_port(t, s->ev[j].node, s->ev[j].port)->peer]++] = (uint32_t) j;
    free(fill);
    return 0;
}

int sn__schedule_plan_new(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                          const sn_sched_ops_t *ops, void **plan, sn_err_t *err)
{
    *plan = NULL;
    if (s->n >= UINT32_MAX)
        return sn_err_set(err, SN_ERANGE, "a schedule of %zu transmissions: at most %u", s->n,
                          UINT32_MAX - 1);
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->steps = s->steps;
    if (sn_coll_is_combining(p->coll)) {
        int rc = plan_combining(pl, s, ops, err);
        if (rc < 0) {
            sn__schedule_plan_free(pl);
            return rc;
        }
    }
    pl->order = sn_xmalloc((s->n ? s->n : 1) * sizeof *pl->order);
    for (size_t i = 0; i < s->n; i++)
        pl->order[i] = (uint32_t) i;
    qsort_r(pl->order, s->n, sizeof *pl->order, cmp_node_slot, s->ev);
    pl->ev = sn_xcalloc(s->n ? s->n : 1, sizeof *pl->ev);
    pl->first = sn_xcalloc((size_t) t->n + 1, sizeof *pl->first);
    for (size_t i = 0; i < s->n; i++) {
        pl->ev[i] = s->ev[pl->order[i]];
        pl->ev[i].pkt.pad_ = 0; /* the file's "to", checked already */
        pl->first[pl->ev[i].node + 1]++;
    }
    for (uint32_t u = 0; u < t->n; u++)
        pl->first[u + 1] += pl->first[u];
    *plan = pl;
    return 0;
}

void sn__schedule_plan_sched(const void *plan, sn_sched_t *out, const sn_sched_ops_t **ops)
{
    const plan_t *pl = plan;
    *out = (sn_sched_t){.ev = pl->ev,
                        .n = pl->first[pl->t->n],
                        .steps = pl->steps,
                        .predicted = (int64_t) pl->steps};
    if (ops != NULL)
        *ops = pl->combining ? &pl->ops : NULL;
}

int64_t sn__schedule_predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->steps;
}

int sn__schedule_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *st = state;
    st->pl = pl;
    st->node = node;
    st->next = pl->first[node];
    if (pl->combining) {
        size_t nin = pl->in_first[node + 1] - pl->in_first[node];
        st->val = sn_xcalloc(nin ? nin : 1, sizeof *st->val);
        st->have = sn_xcalloc(nin ? nin : 1, 1);
        st->dl_next = pl->rc.dl_first[node];
        return 0;
    }
    sn_expect_t x = sn_coll_expect(pl->t, pl->p, node);
    st->ngot = (uint64_t) x.nsrc * x.per_src;
    st->got = st->ngot ? sn_xcalloc(st->ngot, 1) : NULL;
    return 0;
}

void sn__schedule_node_fini(void *state)
{
    state_t *st = state;
    free(st->got);
    free(st->val);
    free(st->have);
}

/* The position of combined transmission j among those node u receives, or -1. */
static int64_t in_pos(const plan_t *pl, uint32_t u, uint32_t j)
{
    size_t lo = pl->in_first[u], hi = pl->in_first[u + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->in[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pl->in_first[u + 1] && pl->in[lo] == j ? (int64_t) (lo - pl->in_first[u]) : -1;
}

/* The value of recipe ing[first .. end) at this node for (dst, seq, frag): 0, or SN_EALGO when
 * an ingredient has not arrived (the executors deliver every frame of a slot before the next). */
static int combine(const state_t *st, size_t first, size_t end, uint32_t dst, uint32_t seq,
                   uint32_t frag, uint64_t *out, sn_err_t *err)
{
    const plan_t *pl = st->pl;
    const sn_params_t *p = pl->p;
    uint64_t v = 0;
    for (size_t k = first; k < end; k++) {
        uint32_t j = pl->rc.ing[k];
        uint64_t x;
        if (j == SN_COMPOSE_OWN) {
            x = sn_contrib_value(p, st->node, sn__compose_key_dst(p, dst), seq, frag);
        } else {
            int64_t at = in_pos(pl, st->node, j);
            if (at < 0 || !st->have[at])
                return sn_err_set(err, SN_EALGO,
                                  "node %u: the combination it needs from transmission %u of "
                                  "the schedule has not arrived",
                                  st->node, j);
            x = st->val[at];
        }
        v = k == first ? x : sn_op_apply(p->op, v, x);
    }
    *out = v;
    return 0;
}

/* A combining collective's slot at this node: what arrived, the deliveries now possible, the
 * combinations it sends. */
static int step_combining(state_t *st, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = st->pl;
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (k->kind != SN_PKT_DATA)
            continue;
        int64_t at = in_pos(pl, st->node, k->tag);
        if (at < 0)
            return sn_err_set(err, SN_EALGO,
                              "node %u received a combination (tag %u) that the schedule does not "
                              "send it",
                              st->node, k->tag);
        st->val[at] = k->digest;
        st->have[at] = 1;
    }
    for (; st->dl_next < pl->rc.dl_first[st->node + 1] && pl->rc.dl[st->dl_next].ready <= io->slot;
         st->dl_next++) {
        const sn_compose_delivery_t *d = &pl->rc.dl[st->dl_next];
        sn_packet_t k = {.src = SN_SRC_COMBINED,
                         .dst = st->node,
                         .seq = d->seq,
                         .frag = (uint16_t) d->frag,
                         .kind = SN_PKT_DATA};
        int rc = combine(st, d->first, d->end, st->node, d->seq, d->frag, &k.digest, err);
        if (rc < 0)
            return rc;
        sn_step_deliver(io, &k);
    }
    return 0;
}

int sn__schedule_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *st = state;
    const plan_t *pl = st->pl;
    const sn_params_t *p = pl->p;
    if (pl->combining) {
        int rc = step_combining(st, io, err);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < io->nrx && !pl->combining; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (k->kind != SN_PKT_DATA)
            continue;
        int64_t idx = sn_coll_source_index(pl->t, p, st->node, k->src, k->dst);
        if (idx < 0)
            continue;
        uint64_t at = ((uint64_t) idx * p->msgs + k->seq) * p->frags + k->frag;
        if (at < st->ngot && !st->got[at]) {
            st->got[at] = 1;
            sn_step_deliver(io, k);
        }
    }
    size_t end = pl->first[st->node + 1];
    while (st->next < end && pl->ev[st->next].slot < io->slot)
        st->next++; /* a slot the node was not stepped in cannot happen: the wake-ups ask for it */
    for (; st->next < end && pl->ev[st->next].slot == io->slot; st->next++) {
        const sn_sched_ev_t *e = &pl->ev[st->next];
        sn_packet_t k = e->pkt;
        if (k.kind == SN_PKT_DATA && pl->combining) {
            uint32_t j = pl->order[st->next];
            k = (sn_packet_t){.src = SN_SRC_COMBINED,
                              .dst = e->pkt.dst,
                              .seq = e->pkt.seq,
                              .frag = e->pkt.frag,
                              .kind = SN_PKT_DATA,
                              .tag = j};
            int rc = combine(st, pl->rc.first[j], pl->rc.first[j + 1], k.dst, k.seq, k.frag,
                             &k.digest, err);
            if (rc < 0)
                return rc;
        } else if (k.kind == SN_PKT_DATA) {
            k = sn_packet_data(p, k.src, k.dst, k.seq, k.frag);
        }
        sn_step_send(io, e->port, &k);
    }
    if (st->next < end)
        io->wake = pl->ev[st->next].slot;
    return 0;
}

static int plan_new_refused(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    (void) t;
    (void) p;
    *plan = NULL;
    return sn_err_inval(err, "the algorithm schedule plays a file: " SN_REF_ALGO " schedule:FILE");
}

const sn_algo_t sn__algo_schedule = {
    .name = "schedule",
    .coll = SN_COLL_BCAST, /* plays any collective a schedule file holds */
    .pm_mask = SN_PM_ALL,
    .topos = "the schedule file's",
    .summary = "plays an explicit schedule file, checked before it runs",
    .source = "docs/schedule.md",
    .predicts = "the file's slots",
    .plan_new = plan_new_refused,
    SN__SCHEDULE_REPLAY_FIELDS,
    .manual = 1,
    .parallel = 1,
};
