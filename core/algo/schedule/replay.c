/* schedule: plays an explicit schedule (core/algo), what `--algo schedule:FILE` runs.
 *
 * The plan holds the file's transmissions grouped by sender and sorted by slot. Each node sends in
 * slot s exactly what the schedule lists for it in s, asking to be woken at its next sending slot,
 * and delivers the first copy of every packet addressed to it (a schedule may bring a packet
 * twice, as flooding does; it is delivered once). Whether a node holds what it sends, and the
 * port model, were checked before the run (sn_sched_file_check); the executors check the port
 * model again in every slot. Data packets get their payload digest from the run's parameters,
 * never from the file. */
#include <stdlib.h>
#include <string.h>

#include "algo/schedule/replay.h"
#include "stepnet/util.h"

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_sched_ev_t *ev; /* by (node, slot, port) */
    size_t *first;     /* [n + 1]: node u's transmissions are ev[first[u] .. first[u+1]) */
    uint64_t steps;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t node;
    size_t next;   /* the next transmission of this node in pl->ev */
    uint8_t *got;  /* delivered (source index, seq, frag), one byte each */
    uint64_t ngot; /* its length */
} state_t;

static int cmp_node_slot(const void *a, const void *b)
{
    const sn_sched_ev_t *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->port < y->port ? -1 : (x->port > y->port);
}

int sn__schedule_plan_new(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                          void **plan, sn_err_t *err)
{
    (void) err;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->steps = s->steps;
    pl->ev = sn_xcalloc(s->n ? s->n : 1, sizeof *pl->ev);
    if (s->n)
        memcpy(pl->ev, s->ev, s->n * sizeof *pl->ev);
    qsort(pl->ev, s->n, sizeof *pl->ev, cmp_node_slot);
    pl->first = sn_xcalloc((size_t) t->n + 1, sizeof *pl->first);
    for (size_t i = 0; i < s->n; i++) {
        pl->ev[i].pkt.pad_ = 0; /* the file's "to", checked already */
        pl->first[pl->ev[i].node + 1]++;
    }
    for (uint32_t u = 0; u < t->n; u++)
        pl->first[u + 1] += pl->first[u];
    *plan = pl;
    return 0;
}

void sn__schedule_plan_sched(const void *plan, sn_sched_t *out)
{
    const plan_t *pl = plan;
    *out = (sn_sched_t){.ev = pl->ev,
                        .n = pl->first[pl->t->n],
                        .steps = pl->steps,
                        .predicted = (int64_t) pl->steps};
}

static void plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->ev);
    free(pl->first);
    free(pl);
}

static int64_t predicted(const void *plan)
{
    return (int64_t) ((const plan_t *) plan)->steps;
}

static int node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    state_t *st = state;
    st->pl = pl;
    st->node = node;
    st->next = pl->first[node];
    sn_expect_t x = sn_coll_expect(pl->t, pl->p, node);
    st->ngot = (uint64_t) x.nsrc * x.per_src;
    st->got = st->ngot ? sn_xcalloc(st->ngot, 1) : NULL;
    return 0;
}

static void node_fini(void *state)
{
    state_t *st = state;
    free(st->got);
}

static int node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    (void) err;
    state_t *st = state;
    const plan_t *pl = st->pl;
    const sn_params_t *p = pl->p;
    for (size_t i = 0; i < io->nrx; i++) {
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
        if (k.kind == SN_PKT_DATA)
            k = sn_packet_data(p, k.src, k.dst, k.seq, k.frag);
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
    return sn_err_inval(err, "the algorithm schedule plays a file: --algo schedule:FILE");
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
    .plan_free = plan_free,
    .predicted = predicted,
    .state_size = sizeof(state_t),
    .node_init = node_init,
    .node_fini = node_fini,
    .node_step = node_step,
    .manual = 1,
    .parallel = 1,
};
