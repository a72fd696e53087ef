/* Schedules as data (core/model): the transmissions of any algorithm, recorded by running it in
 * the simulator, and the construction of plans. Composite algorithms (A2 and A3 of Dimakopoulos's
 * thesis, chapter 5) build a product's total exchange from total exchanges of its factors: the
 * model records those here, whatever algorithm auto-selection picks for the factor, and hands them
 * to the algorithm as plan inputs, so that core/algo never calls back into core/model. */
#include <stdlib.h>
#include <string.h>

#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

typedef struct {
    sn_sched_t *s;
    size_t cap;
    uint64_t max, sent; /* at most max transmissions held (0: no limit); sent counts them all */
} rec_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    rec_t *r = ctx;
    if (r->max != 0 && r->sent++ >= r->max)
        return; /* over the limit: counted, not held */
    sn_grow((void **) &r->s->ev, &r->cap, r->s->n + 1, sizeof *r->s->ev);
    r->s->ev[r->s->n++] = (sn_sched_ev_t){slot, node, port, *pkt};
}

int sn_sched_ev_cmp(const void *a, const void *b)
{
    const sn_sched_ev_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->port < y->port ? -1 : (x->port > y->port);
}

int sn_sched_record(const sn_topo_t *t, const sn_params_t *p, const char *algo, sn_sched_t **out,
                    sn_err_t *err)
{
    return sn_sched_record_max(t, p, algo, 0, NULL, out, err);
}

int sn_sched_record_fits(const sn_topo_t *t, const sn_params_t *p, uint64_t max_ev,
                         const char *what, sn_err_t *err)
{
    uint64_t least = t->nproc > 1 ? sn_coll_expected_total(t, p) : 0;
    if (max_ev != 0 && least > max_ev)
        return sn_err_set(err, SN_ERANGE,
                          "the schedule of %s on %s has at least %llu transmissions (one per "
                          "delivery), more than the %llu that %s allows",
                          sn_coll_name(p->coll), t->spec, (unsigned long long) least,
                          (unsigned long long) max_ev, what);
    return 0;
}

int sn_sched_record_max(const sn_topo_t *t, const sn_params_t *p, const char *algo, uint64_t max_ev,
                        const char *what, sn_sched_t **out, sn_err_t *err)
{
    *out = NULL;
    if (sn_sched_record_fits(t, p, max_ev, what, err) < 0)
        return SN_ERANGE;
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t predicted = -1;
    int rc = sn_model_select(algo, t, p, &a, &plan, &predicted, err);
    if (rc < 0)
        return rc;
    sn_sched_t *s = sn_xcalloc(1, sizeof *s);
    rec_t rec = {s, 0, max_ev, 0};
    sn_sim_opts_t opts = {0};
    opts.max_slots = sn_model_slot_limit(t, p, predicted);
    opts.on_send = on_send;
    opts.send_ctx = &rec;
    sn_sim_result_t res;
    rc = sn_sim_run(t, p, a, plan, &opts, &res, err);
    a->plan_free(plan);
    if (rc == 0 && !res.verified)
        rc = SN_EVERIFY;
    if (rc == 0 && max_ev != 0 && rec.sent > max_ev)
        rc = sn_err_set(err, SN_ERANGE,
                        "the schedule of %s on %s by %s has %llu transmissions, more than the "
                        "%llu that %s allows",
                        sn_coll_name(p->coll), t->spec, a->name, (unsigned long long) rec.sent,
                        (unsigned long long) max_ev, what);
    if (rc < 0) {
        sn_sched_free(s);
        return rc;
    }
    qsort(s->ev, s->n, sizeof *s->ev, sn_sched_ev_cmp);
    s->steps = res.steps;
    s->predicted = predicted;
    s->algo = a;
    *out = s;
    return 0;
}

/* Two plan inputs that record the same run (their schedules may be shared). */
static int same_input(const sn_plan_input_t *a, const sn_plan_input_t *b)
{
    const sn_params_t *x = &a->params, *y = &b->params;
    int same_algo = (a->algo == NULL && b->algo == NULL) ||
                    (a->algo != NULL && b->algo != NULL && strcmp(a->algo, b->algo) == 0);
    return a->owned == NULL && b->owned == NULL && same_algo &&
           (a->topo == b->topo || strcmp(a->topo->spec, b->topo->spec) == 0) &&
           x->coll == y->coll && x->pm.ports == y->pm.ports && x->pm.rx == y->pm.rx &&
           x->pm.duplex == y->pm.duplex && x->root == y->root && x->msgs == y->msgs &&
           x->frags == y->frags && x->size == y->size && x->seed == y->seed &&
           x->sources == y->sources && x->nsources == y->nsources;
}

int sn_model_plan_new(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p, void **plan,
                      sn_err_t *err)
{
    *plan = NULL;
    if (a->plan_new != NULL)
        return a->plan_new(t, p, plan, err);
    sn_plan_input_t in[SN_ALGO_MAX_INPUTS];
    sn_sched_t *rec[SN_ALGO_MAX_INPUTS] = {NULL}; /* the schedules recorded here (not shared) */
    size_t n = 0;
    memset(in, 0, sizeof in);
    int rc = a->plan_inputs(t, p, in, &n, err);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n && rc == 0; i++) {
        for (size_t j = 0; j < i && in[i].sched == NULL; j++)
            if (same_input(&in[i], &in[j]))
                in[i].sched = in[j].sched;
        if (in[i].sched != NULL)
            continue;
        sn_err_t e2 = {0};
        rc = sn_sched_record(in[i].topo, &in[i].params, in[i].algo, &rec[i], &e2);
        if (rc < 0)
            sn_err_set(err, rc, "%s: no %s on %s: %s", a->name,
                       in[i].what ? in[i].what : sn_coll_name(in[i].params.coll), in[i].topo->spec,
                       e2.msg);
        in[i].sched = rec[i];
    }
    if (rc == 0)
        rc = a->plan_from(t, p, in, n, plan, err);
    for (size_t i = 0; i < n; i++) {
        sn_sched_free(rec[i]);
        sn_topo_free(in[i].owned);
        free(in[i].owned_sources);
    }
    return rc;
}

void sn_sched_free(sn_sched_t *s)
{
    if (s == NULL)
        return;
    free(s->ev);
    free(s);
}

uint64_t sn_model_slot_limit(const sn_topo_t *t, const sn_params_t *p, int64_t predicted)
{
    const uint64_t cap = 1ull << 62;
    if (predicted >= 0)
        return (uint64_t) predicted > (cap - 1024) / 4 ? cap : 4 * (uint64_t) predicted + 1024;
    uint64_t maxdeg = sn_topo_max_degree(t);
    uint64_t hops = sn_coll_expected_total(t, p) * (sn_topo_diameter(t, 1) + 1ull);
    if (hops > (cap - 1024) / (2 * maxdeg + 1))
        return cap;
    return 1024 + hops * (2 * maxdeg + 1);
}
