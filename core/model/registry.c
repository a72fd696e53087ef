/* The algorithm registry and auto-selection (core/model). The registry is the list of
 * core/algo/algos.def in its order, which matters only for ties: the more specific algorithms come
 * first. The torus framework's algorithms (bcast-bst .. te-mns) and the generic mnb-balanced and
 * mnb-cycle come late, so that the others keep their ties. */
#include <stdio.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/model.h"
#include "stepnet/util.h"
#include "stepnet/sim.h"

/* Every SN_ALGO line of the list, in its order. */
static const sn_algo_t *const registry[] = {
#define SN_ALGO(id, file, topologies, steps) &sn__algo_##id,
#include "core/algo/algos.def"
};

/* Hidden algorithms (SN_ALGO_HIDDEN): found by their exact name only (sn_model_find, so --algo
 * NAME), never chosen by auto, listed by sn_model_algos or named in messages. */
static const sn_algo_t *const hidden[] = {
#define SN_ALGO(id, file, topologies, steps)
#define SN_ALGO_HIDDEN(id, file) &sn__algo_##id,
#include "core/algo/algos.def"
};

const sn_algo_t *const *sn_model_algos(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const sn_algo_t *sn_model_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (strcmp(hidden[i]->name, name) == 0)
            return hidden[i];
    return NULL;
}

const char *sn_model_suggest(const char *name)
{
    const char *names[sizeof registry / sizeof registry[0]];
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        names[i] = registry[i]->name;
    return sn_suggest(name, strlen(name), names, sizeof registry / sizeof registry[0]);
}

/* The port model in words (messages name concepts; the CLI maps SN_PARAM_PORT_MODEL to flags). */
static const char *pm_name(const sn_portmodel_t *pm)
{
    if (pm->ports == SN_PORTS_MULTI)
        return pm->duplex == SN_DUPLEX_HALF ? "multiport, half duplex" : "multiport";
    if (pm->rx == SN_RX_ANY)
        return pm->duplex == SN_DUPLEX_HALF
                   ? "single-port with any number of receptions, half duplex"
                   : "single-port with any number of receptions";
    return pm->duplex == SN_DUPLEX_HALF ? "single-port, half duplex" : "single-port";
}

static void mask_names(unsigned mask, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s", (mask & SN_PM_MULTI) ? "multiport; " : "",
             (mask & SN_PM_SINGLE) ? "single-port; " : "",
             (mask & SN_PM_SINGLE_ANY) ? "single-port with any number of receptions; " : "",
             (mask & SN_PM_HALF) ? "half duplex" : "full duplex only");
}

/* "a, b, c": the algorithms of collective c. */
static void names_for(sn_coll_t c, char *list, size_t cap)
{
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->coll == c && len < cap)
            len += (size_t) snprintf(list + len, cap - len, "%s%s", len ? ", " : "",
                                     registry[i]->name);
}

int sn_model_check_params(const sn_algo_t *a, const sn_params_t *p, sn_err_t *err)
{
    if (a->coll != p->coll) {
        char list[256];
        names_for(p->coll, list, sizeof list);
        return sn_err_set(err, SN_ENOTSUP, "algorithm %s is for %s, not %s; for %s: auto%s%s",
                          a->name, sn_coll_name(a->coll), sn_coll_name(p->coll),
                          sn_coll_name(p->coll), list[0] ? ", " : "", list);
    }
    unsigned need = p->pm.ports == SN_PORTS_MULTI ? SN_PM_MULTI
                    : p->pm.rx == SN_RX_ONE       ? SN_PM_SINGLE
                                                  : SN_PM_SINGLE_ANY;
    if (p->pm.duplex == SN_DUPLEX_HALF)
        need |= SN_PM_HALF;
    if ((a->pm_mask & need) != need) {
        char m[96];
        mask_names(a->pm_mask, m, sizeof m);
        return sn_err_set_param(err, SN_ENOTSUP, SN_PARAM_PORT_MODEL,
                                "algorithm %s does not support %s (it supports: %s)", a->name,
                                pm_name(&p->pm), m);
    }
    return 0;
}

int sn_model_check(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    int rc = sn_model_check_params(a, p, err);
    if (rc == 0 && a->applies)
        rc = a->applies(t, p, err);
    return rc;
}

int64_t sn_model_dry_run(const sn_algo_t *a, const void *plan, const sn_topo_t *t,
                         const sn_params_t *p, int64_t cut, uint64_t *control_slots)
{
    sn_sim_opts_t so = {0};
    so.max_slots = cut >= 0 ? (uint64_t) cut : sn_model_slot_limit(t, p, -1);
    sn_sim_result_t res;
    sn_err_t err = {0};
    if (control_slots)
        *control_slots = 0;
    if (sn_sim_run(t, p, a, plan, &so, &res, &err) < 0 || !res.verified)
        return -1;
    if (control_slots)
        *control_slots = res.control_slots;
    return (int64_t) res.steps;
}

double sn_model_time_units(const sn_params_t *p, double tp, uint64_t steps, uint64_t control_slots)
{
    uint64_t data = steps >= control_slots ? steps - control_slots : 0;
    return (double) data / (double) (p->frags ? p->frags : 1) + (double) control_slots * tp;
}

int64_t sn_model_predicted_control(const sn_algo_t *a, const void *plan)
{
    if (a->predicted_control == NULL || a->predicted(plan) < 0)
        return 0;
    return a->predicted_control(plan);
}

/* Hands the chosen algorithm and its plan to sn_model_select's caller (or frees the plan). */
static void select_hand_out(const sn_algo_t *a, void *pl, int64_t pred, const sn_algo_t **algo,
                            void **plan, int64_t *predicted)
{
    *algo = a;
    if (predicted)
        *predicted = pred;
    if (plan)
        *plan = pl;
    else
        a->plan_free(pl);
}

/* --algo NAME: that algorithm, if it applies. */
static int select_named(const char *name, const sn_topo_t *t, const sn_params_t *p,
                        const sn_algo_t **algo, void **plan, int64_t *predicted, sn_err_t *err)
{
    int rc;
    const sn_algo_t *a = sn_model_find(name);
    if (a == NULL) {
        char list[256];
        names_for(p->coll, list, sizeof list);
        const char *near = sn_model_suggest(name);
        if (near)
            return sn_err_set(err, SN_EINVAL,
                              "unknown algorithm '%s': did you mean %s? for %s: auto, %s", name,
                              near, sn_coll_name(p->coll), list[0] ? list : "(none)");
        return sn_err_set(err, SN_EINVAL, "unknown algorithm '%s'; for %s: auto, %s", name,
                          sn_coll_name(p->coll), list[0] ? list : "(none)");
    }
    if ((rc = sn_model_check(a, t, p, err)) < 0)
        return rc;
    void *pl = NULL;
    if ((rc = sn_model_plan_new(a, t, p, &pl, err)) < 0)
        return rc;
    select_hand_out(a, pl, predicted ? a->predicted(pl) : -1, algo, plan, predicted);
    return 0;
}

/* Auto-selection in progress: the best algorithm so far with its plan, prediction and cost (time
 * units, then slots), the ones kept aside (no prediction, or vs_generic) with theirs, and why the
 * others did not apply. */
typedef struct {
    double tp; /* the time units of a control slot, or SN_MODEL_RANK_SLOTS */
    const sn_algo_t *best;
    void *best_plan;
    int64_t best_pred;
    double best_time;   /* -1: unknown (a generic algorithm that was not run dry) */
    int64_t best_slots; /* the slots behind best_time */
    const sn_algo_t *open[SN_MODEL_MAX_OPEN];
    void *open_plan[SN_MODEL_MAX_OPEN];
    size_t nopen;
    char why[sizeof(((sn_err_t *) 0)->msg)];
    int why_any;
} pick_t;

/* 1 when (time, slots) is cheaper than the best so far: fewer time units, or as many (up to
 * rounding: the same slots split differently) in fewer slots. */
static int cheaper(const pick_t *k, double time, int64_t slots)
{
    const double eps = 1e-9 * (k->best_time > 1 ? k->best_time : 1);
    if (k->best_time < 0)
        return 1;
    if (time < k->best_time - eps)
        return 1;
    return time <= k->best_time + eps && slots < k->best_slots;
}

/* The most slots a dry run may take and still be cheaper than the best so far, or -1 for no cut
 * (no best yet, or control slots cost nothing). A run of s slots, c of them control, takes
 * (s - c) / frags + c tp >= s min(1/frags, tp) time units. */
static int64_t slot_cut(const pick_t *k, const sn_params_t *p)
{
    double per = k->tp < 0 ? 1.0 : 1.0 / (double) (p->frags ? p->frags : 1);
    if (k->tp >= 0 && k->tp < per)
        per = k->tp;
    if (k->best_time < 0 || per <= 0)
        return -1;
    return (int64_t) (k->best_time / per + 1e-6);
}

/* What auto ranks by: the time units of `slots` slots of which `control` are control slots, or
 * the slots themselves under SN_MODEL_RANK_SLOTS. */
static double cost_of(const pick_t *k, const sn_params_t *p, int64_t slots, uint64_t control)
{
    if (k->tp < 0)
        return (double) slots;
    return sn_model_time_units(p, k->tp, (uint64_t) slots, control);
}

static void take(pick_t *k, const sn_algo_t *a, void *pl, int64_t pred, double time, int64_t slots)
{
    if (k->best)
        k->best->plan_free(k->best_plan);
    k->best = a, k->best_plan = pl, k->best_pred = pred, k->best_time = time, k->best_slots = slots;
}

/* The applicable algorithm with the cheapest prediction; those that predict none, and the
 * vs_generic ones, are kept aside (with their plans) and settled by select_settle, only if no
 * other algorithm predicts. */
static void select_scan(pick_t *k, const sn_topo_t *t, const sn_params_t *p)
{
    int64_t lower = -2; /* the lower bound, computed once a plan predicts: -1 when unknown */
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        const sn_algo_t *a = registry[i];
        if (a->coll != p->coll || a->manual)
            continue;
        sn_err_t e2 = {0};
        void *pl = NULL;
        if (sn_model_check(a, t, p, &e2) < 0 || sn_model_plan_new(a, t, p, &pl, &e2) < 0) {
            /* the first reason, unless an algorithm for any topology (no `applies`) failed: its
             * reason is the real limit (te-route on a graph past the routing-table size) */
            if (k->why[0] == '\0' || (a->applies == NULL && !k->why_any)) {
                snprintf(k->why, sizeof k->why, "%s", e2.msg);
                k->why_any = a->applies == NULL;
            }
            continue;
        }
        int64_t pr = a->predicted(pl);
        if ((pr < 0 || a->vs_generic) && k->nopen < SN_MODEL_MAX_OPEN) {
            k->open[k->nopen] = a, k->open_plan[k->nopen++] = pl;
            continue;
        }
        int64_t ctl = sn_model_predicted_control(a, pl);
        double time = pr >= 0 ? cost_of(k, p, pr, (uint64_t) ctl) : -1;
        if (pr < 0 || a->vs_generic || !cheaper(k, time, pr)) {
            a->plan_free(pl);
            continue;
        }
        take(k, a, pl, pr, time, pr);
        /* a plan that meets the lower bound in slots cannot be beaten when auto ranks by slots,
         * nor, without control slots, when a control slot costs at least a fragment's slot: any
         * run takes at least as many slots, each at least 1/frags; a later tie would keep it, so
         * the rest (some plan in seconds on large graphs) need not be planned */
        if (lower == -2) {
            sn_bounds_t b;
            sn_err_t e3 = {0};
            lower = sn_model_bounds(t, p, &b, &e3) == 0 ? b.best : -1;
        }
        if (lower >= 0 && pr <= lower && (k->tp < 0 || (ctl == 0 && k->tp * p->frags >= 1.0)))
            break;
    }
}

/* The generic algorithms (no prediction) are settled by a dry run when the collective is
 * small. When nothing else predicts, they compete with each other and with the predictions
 * of the vs_generic ones; a known count beats an unknown one. When the best prediction is a
 * heuristic timetable's (mnb-gossip, which can lose a step or two to the route oracle's trees
 * on thin meshes), a generic algorithm still wins if its dry run, cut where it could no longer
 * win, is cheaper; the vs_generic ones do not compete then. Costs are time units, then slots;
 * ties keep the earlier (the registry lists the more specific algorithms first). */
static void select_settle(pick_t *k, const sn_topo_t *t, const sn_params_t *p)
{
    int settle = k->best == NULL;
    int small = sn_coll_expected_total(t, p) <= SN_MODEL_DRY_DELIVERIES;
    int dry = small && (settle ? k->nopen > 1 : k->nopen > 0 && k->best->heuristic);
    for (size_t i = 0; i < k->nopen; i++) {
        const sn_algo_t *a = k->open[i];
        void *pl = k->open_plan[i];
        int64_t pr = a->predicted(pl), slots = -1;
        uint64_t ctl = 0;
        if (pr >= 0 && settle)
            slots = pr, ctl = (uint64_t) sn_model_predicted_control(a, pl);
        else if (pr < 0 && dry)
            slots = sn_model_dry_run(a, pl, t, p, slot_cut(k, p), &ctl);
        double time = slots >= 0 ? cost_of(k, p, slots, ctl) : -1;
        int better = slots >= 0 && cheaper(k, time, slots);
        if ((settle && (k->best == NULL || better)) || (!settle && better))
            take(k, a, pl, pr, time, slots);
        else
            a->plan_free(pl);
    }
}

int sn_model_select_tp(const char *name, const sn_topo_t *t, const sn_params_t *p, double tp,
                       const sn_algo_t **algo, void **plan, int64_t *predicted, sn_err_t *err)
{
    if (name != NULL && strcmp(name, "auto") != 0)
        return select_named(name, t, p, algo, plan, predicted, err);
    pick_t k = {.tp = tp, .best = NULL, .best_pred = -1, .best_time = -1, .best_slots = -1};
    select_scan(&k, t, p);
    select_settle(&k, t, p);
    if (k.best == NULL)
        return sn_err_set(err, SN_ENOTSUP, "no algorithm for %s on %s with %s%s%s",
                          sn_coll_name(p->coll), t->spec, pm_name(&p->pm), k.why[0] ? ": " : "",
                          k.why);
    select_hand_out(k.best, k.best_plan, k.best_pred, algo, plan, predicted);
    return 0;
}

int sn_model_select(const char *name, const sn_topo_t *t, const sn_params_t *p,
                    const sn_algo_t **algo, void **plan, int64_t *predicted, sn_err_t *err)
{
    return sn_model_select_tp(name, t, p, SN_MODEL_RANK_SLOTS, algo, plan, predicted, err);
}
