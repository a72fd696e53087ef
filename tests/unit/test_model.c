/* Unit tests of the model (core/model): the algorithm registry (find, list, check), auto-selection
 * and its errors, the parameter checks, Theorem 3.3 against an independently computed table, and
 * the lower bounds of sn_model_bounds against independently computed values for broadcast,
 * scatter and total exchange (thesis chapter 3, section 4.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/testutil.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static void assert_has(const char *msg, const char *what)
{
    if (strstr(msg, what) == NULL)
        fail_msg("'%s' does not contain '%s'", msg, what);
}

static void assert_lacks(const char *msg, const char *what)
{
    if (strstr(msg, what) != NULL)
        fail_msg("'%s' should not contain '%s'", msg, what);
}

/* The value of the bound called `name`, or -1 when it is not reported. */
static int64_t bound(const sn_topo_t *t, const sn_params_t *p, const char *name)
{
    sn_bounds_t b;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_bounds(t, p, &b, &err), 0);
    for (size_t i = 0; i < b.count; i++)
        if (strcmp(b.b[i].name, name) == 0)
            return b.b[i].value;
    return -1;
}

static int64_t bound_spec(const char *spec, const sn_params_t *p, const char *name)
{
    sn_topo_t *t = tu_topo(spec);
    int64_t v = bound(t, p, name);
    sn_topo_free(t);
    return v;
}

static void expect_bound(const char *spec, const sn_params_t *p, const char *name, int64_t want)
{
    int64_t got = bound_spec(spec, p, name);
    if (got != want)
        fail_msg("%s, %s: bound %s = %lld, expected %lld", spec, sn_coll_name(p->coll), name,
                 (long long) got, (long long) want);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* ---- registry -------------------------------------------------------------------------------- */

static void test_registry(void **state)
{
    (void) state;
    static const struct {
        const char *name;
        sn_coll_t coll;
    } want[] = {
        {"bcast-bfs", SN_COLL_BCAST},
        {"bcast-tree", SN_COLL_BCAST},
        {"bcast-greedy", SN_COLL_BCAST},
        {"scatter-ff", SN_COLL_SCATTER},
        {"scatter-balanced", SN_COLL_SCATTER},
        {"gather-ff", SN_COLL_GATHER},
        {"gather-balanced", SN_COLL_GATHER},
        {"mnb-route", SN_COLL_MNB},
        {"te-linear", SN_COLL_TE},
        {"te-ring", SN_COLL_TE},
        {"te-a3", SN_COLL_TE},
        {"te-cayley", SN_COLL_TE},
        {"te-a2", SN_COLL_TE},
        {"te-route", SN_COLL_TE},
        {"pmnb-route", SN_COLL_PMNB},
        {"pexchange-route", SN_COLL_PEXCHANGE},
        {"pmnb-mesh-split", SN_COLL_PMNB},
        {"pmnb-mesh", SN_COLL_PMNB},
        {"pmnb-mesh-a0", SN_COLL_PMNB},
        {"mnb-mesh", SN_COLL_MNB},
        {"pexchange-mesh", SN_COLL_PEXCHANGE},
        {"bcast-ering", SN_COLL_BCAST},
        {"bcast-product", SN_COLL_BCAST},
        {"bcast-binomial", SN_COLL_BCAST},
        {"bcast-edst", SN_COLL_BCAST},
        {"bcast-twolevel", SN_COLL_BCAST},
        {"scatter-ering", SN_COLL_SCATTER},
        {"scatter-torus", SN_COLL_SCATTER},
        {"gather-ering", SN_COLL_GATHER},
        {"gather-torus", SN_COLL_GATHER},
        {"bcast-fattree", SN_COLL_BCAST},
        {"scatter-fattree", SN_COLL_SCATTER},
        {"gather-fattree", SN_COLL_GATHER},
        {"mnb-fattree", SN_COLL_MNB},
        {"mnb-fattree-qf", SN_COLL_MNB},
        {"mnb-fattree-qf-serial", SN_COLL_MNB},
        {"te-fattree", SN_COLL_TE},
        {"te-fattree-serial", SN_COLL_TE},
        /* combining collectives */
        {"sna-tree", SN_COLL_SNA},
        {"sna-reverse", SN_COLL_SNA},
        {"pmna-tree", SN_COLL_PMNA},
        /* folded cube */
        {"bcast-fcube", SN_COLL_BCAST},
        {"sna-fcube", SN_COLL_SNA},
        {"mnb-fcube", SN_COLL_MNB},
        {"gather-fcube", SN_COLL_GATHER},
        {"scatter-fcube", SN_COLL_SCATTER},
        {"te-fcube", SN_COLL_TE},
        {"te-fcube-greedy", SN_COLL_TE},
        {"te-hypercube", SN_COLL_TE},
        {"pmna-fcube", SN_COLL_PMNA},
        {"mnb-a0", SN_COLL_MNB},
        {"pmna-a0", SN_COLL_PMNA},
        {"bcast-bst", SN_COLL_BCAST},
        {"mnb-bsg", SN_COLL_MNB},
        {"scatter-bsg", SN_COLL_SCATTER},
        {"gather-bsg", SN_COLL_GATHER},
        {"te-mns", SN_COLL_TE},
        {"mnb-balanced", SN_COLL_MNB},
        {"mnb-cycle", SN_COLL_MNB},
        {"bcast-gossip", SN_COLL_BCAST},
        {"bcast-arbor", SN_COLL_BCAST},
        {"bcast-multitree", SN_COLL_BCAST},
        {"bcast-match", SN_COLL_BCAST},
        {"mnb-gossip", SN_COLL_MNB},
        {"mnb-match", SN_COLL_MNB},
        {"pmnb-fcube", SN_COLL_PMNB},
        {"mnb-cayley", SN_COLL_MNB},
        /* the MPI staples */
        {"allreduce-rd", SN_COLL_ALLREDUCE},
        {"allreduce-product", SN_COLL_ALLREDUCE},
        {"allreduce-flood", SN_COLL_ALLREDUCE},
        {"allreduce-tree", SN_COLL_ALLREDUCE},
        {"allreduce-rsag", SN_COLL_ALLREDUCE},
        {"allreduce-rb", SN_COLL_ALLREDUCE},
        {"allreduce-window", SN_COLL_ALLREDUCE},
        {"barrier-rd", SN_COLL_BARRIER},
        {"barrier-product", SN_COLL_BARRIER},
        {"barrier-flood", SN_COLL_BARRIER},
        {"barrier-tree", SN_COLL_BARRIER},
        {"mna-tree", SN_COLL_MNA},
        {"mna-reverse", SN_COLL_MNA},
    };
    size_t n = 0;
    const sn_algo_t *const *algos = sn_model_algos(&n);
    assert_non_null(algos);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const sn_algo_t *a = sn_model_find(want[i].name);
        assert_non_null(a);
        assert_string_equal(a->name, want[i].name);
        assert_int_equal(a->coll, want[i].coll);
        int listed = 0;
        for (size_t j = 0; j < n; j++)
            listed += algos[j] == a;
        assert_int_equal(listed, 1);
    }
    for (size_t i = 0; i < n; i++) {
        const sn_algo_t *a = algos[i];
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(a->name, algos[j]->name);
        assert_true((unsigned) a->coll < SN_COLL_COUNT);
        assert_true(a->pm_mask != 0 && (a->pm_mask & ~SN_PM_ALL) == 0);
        assert_true(a->pm_mask & (SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY));
        assert_non_null(a->topos);
        assert_non_null(a->summary);
        assert_non_null(a->source);
        assert_non_null(a->predicts);
        /* a plan from (t, p) alone, or from recorded schedules (composites): exactly one way */
        assert_true((a->plan_new != NULL) != (a->plan_inputs != NULL && a->plan_from != NULL));
        assert_true((a->plan_inputs == NULL) == (a->plan_from == NULL));
        assert_non_null(a->plan_free);
        assert_non_null(a->predicted);
        assert_non_null(a->node_init);
        assert_non_null(a->node_step);
        assert_true(a->state_size > 0);
        assert_ptr_equal(sn_model_find(a->name), a);
    }
    assert_null(sn_model_find("nope"));
    assert_null(sn_model_find(""));
    assert_null(sn_model_find("bcast"));
    assert_null(sn_model_find("BCAST-BFS"));
    /* the multiport-only algorithms and the ones that support everything */
    assert_int_equal(sn_model_find("bcast-bfs")->pm_mask, SN_PM_MULTI | SN_PM_HALF);
    assert_int_equal(sn_model_find("scatter-balanced")->pm_mask, SN_PM_MULTI | SN_PM_HALF);
    assert_int_equal(sn_model_find("gather-balanced")->pm_mask, SN_PM_MULTI | SN_PM_HALF);
    assert_int_equal(sn_model_find("bcast-tree")->pm_mask, SN_PM_ALL);
    assert_int_equal(sn_model_find("te-route")->pm_mask, SN_PM_ALL);
    assert_int_equal(sn_model_find("te-a3")->pm_mask, SN_PM_MULTI | SN_PM_HALF);
    /* single-port only: legal under multiport, but far from what te-route does there */
    assert_int_equal(sn_model_find("te-cayley")->pm_mask, SN_PM_SINGLE | SN_PM_SINGLE_ANY);
    assert_int_equal(sn_model_find("te-a2")->pm_mask, SN_PM_SINGLE | SN_PM_SINGLE_ANY);
}

static void test_coll_names(void **state)
{
    (void) state;
    static const struct {
        const char *s;
        sn_coll_t c;
    } names[] = {{"bcast", SN_COLL_BCAST},     {"broadcast", SN_COLL_BCAST},
                 {"scatter", SN_COLL_SCATTER}, {"gather", SN_COLL_GATHER},
                 {"mnb", SN_COLL_MNB},         {"allgather", SN_COLL_MNB},
                 {"te", SN_COLL_TE},           {"alltoall", SN_COLL_TE},
                 {"pmnb", SN_COLL_PMNB},       {"pexchange", SN_COLL_PEXCHANGE},
                 {"pmna", SN_COLL_PMNA},       {"dynbcast", SN_COLL_DYNBCAST}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sn_coll_t c = SN_COLL_COUNT;
        sn_err_t err = {0};
        tu_assert_rc(sn_coll_parse(names[i].s, &c, &err), 0);
        assert_int_equal(c, names[i].c);
    }
    for (int c = 0; c < SN_COLL_COUNT; c++) {
        sn_coll_t back = SN_COLL_COUNT;
        tu_assert_rc(sn_coll_parse(sn_coll_name((sn_coll_t) c), &back, NULL), 0);
        assert_int_equal(back, c);
    }
    sn_coll_t c;
    sn_err_t err = {0};
    tu_assert_rc(sn_coll_parse("alltoallv", &c, &err), SN_EINVAL);
    assert_has(err.msg, "alltoallv");
    assert_has(err.msg, "pexchange");
    assert_true(sn_coll_is_broadcast(SN_COLL_BCAST) && sn_coll_is_broadcast(SN_COLL_MNB) &&
                sn_coll_is_broadcast(SN_COLL_PMNB));
    assert_false(sn_coll_is_broadcast(SN_COLL_TE) || sn_coll_is_broadcast(SN_COLL_SCATTER) ||
                 sn_coll_is_broadcast(SN_COLL_GATHER) || sn_coll_is_broadcast(SN_COLL_PEXCHANGE));
}

/* ---- selection ------------------------------------------------------------------------------ */

/* Auto picks the lowest prediction among the applicable algorithms; on a tie the thesis's family
 * algorithms, registered first, win (bcast-ering on rings, scatter-torus on 2-D tori). */
static void test_select_auto(void **state)
{
    (void) state;
    static const struct {
        const char *spec, *ports, *rx, *duplex;
        sn_coll_t coll;
        const char *algo;
        int64_t pred;
    } cases[] = {
        {"torus:4x4", "multi", "one", "full", SN_COLL_SCATTER, "scatter-torus", 4},
        {"torus:4x4", "multi", "one", "half", SN_COLL_SCATTER, "scatter-torus", 4},
        {"torus:4x4", "single", "one", "full", SN_COLL_SCATTER, "scatter-ff", 15},
        {"torus:4x4", "multi", "one", "full", SN_COLL_GATHER, "gather-torus", 4},
        {"torus:4x4", "single", "any", "full", SN_COLL_GATHER, "gather-ff", 15},
        {"ring:8", "multi", "one", "full", SN_COLL_BCAST, "bcast-ering", 4},
        {"ring:8", "single", "one", "full", SN_COLL_BCAST, "bcast-tree", 4},
        {"ring:8", "multi", "one", "full", SN_COLL_TE, "te-ring", 8},
        {"ring:8", "single", "one", "full", SN_COLL_TE, "te-cayley", 16},
        {"linear:6", "multi", "one", "full", SN_COLL_TE, "te-linear", 9},
        {"linear:6", "multi", "one", "half", SN_COLL_TE, "te-route", -1},
        {"ring:8", "single", "one", "half", SN_COLL_MNB, "mnb-cycle", 7},    /* = the bound */
        {"mesh:3x4", "single", "one", "half", SN_COLL_MNB, "mnb-cycle", 11}, /* = the bound */
        {"mesh:3x3", "single", "one", "half", SN_COLL_MNB, "mnb-route", -1},
        {"linear:5", "multi", "one", "full", SN_COLL_SCATTER, "scatter-balanced", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(cases[i].coll, cases[i].ports, cases[i].rx, cases[i].duplex);
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        int64_t pred = -2;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(NULL, t, &p, &a, &plan, &pred, &err), 0);
        assert_string_equal(a->name, cases[i].algo);
        assert_int_equal(pred, cases[i].pred);
        assert_int_equal(a->predicted(plan), pred);
        a->plan_free(plan);
        /* "auto" is the same as NULL; plan and predicted may be NULL */
        const sn_algo_t *b = NULL;
        tu_assert_rc(sn_model_select("auto", t, &p, &b, NULL, NULL, &err), 0);
        assert_ptr_equal(a, b);
        sn_topo_free(t);
    }
}

/* For every collective and port model: auto's choice is the applicable algorithm with the lowest
 * prediction (those without one after; ties by registry order). */
static void test_select_auto_is_minimum(void **state)
{
    (void) state;
    static const char *const specs[] = {"torus:3x5",  "hypercube:4", "fattree:2:3",
                                        "mesh:2x3x4", "ering:14:2",  "linear:2"};
    static const char *const pms[][3] = {{"multi", "one", "full"},  {"multi", "one", "half"},
                                         {"single", "one", "full"}, {"single", "one", "half"},
                                         {"single", "any", "full"}, {"single", "any", "half"}};
    size_t n;
    const sn_algo_t *const *algos = sn_model_algos(&n);
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        uint32_t src[2] = {sn_topo_proc(t, 0), sn_topo_proc(t, t->nproc - 1)};
        for (int c = 0; c < SN_COLL_PMNA; c++) {
            for (size_t pi = 0; pi < 6; pi++) {
                sn_params_t p = tu_params((sn_coll_t) c, pms[pi][0], pms[pi][1], pms[pi][2]);
                p.root = sn_topo_proc(t, t->nproc / 2);
                if (c == SN_COLL_PMNB || c == SN_COLL_PEXCHANGE) {
                    p.sources = src;
                    p.nsources = 2;
                }
                /* the reference rule: the lowest prediction among the algorithms that are not
                 * vs_generic; if none, the fewest steps among the vs_generic predictions and the
                 * dry runs of those that predict none (small collectives), a known count before
                 * an unknown one, then registry order */
                const sn_algo_t *best = NULL, *open[SN_MODEL_MAX_OPEN];
                int64_t best_pred = -1, open_pred[SN_MODEL_MAX_OPEN];
                size_t nopen = 0;
                for (size_t i = 0; i < n; i++) {
                    sn_err_t err = {0};
                    const sn_algo_t *a = NULL;
                    int64_t pr = -1;
                    /* manual algorithms run only when named */
                    if (algos[i]->manual || sn_model_check(algos[i], t, &p, &err) < 0)
                        continue;
                    tu_assert_rc(sn_model_select(algos[i]->name, t, &p, &a, NULL, &pr, &err), 0);
                    assert_ptr_equal(a, algos[i]);
                    if (pr >= 0 && !a->vs_generic) {
                        if (best == NULL || pr < best_pred)
                            best = a, best_pred = pr;
                    } else if (nopen < SN_MODEL_MAX_OPEN) {
                        open[nopen] = a, open_pred[nopen++] = pr;
                    }
                }
                if (best == NULL) {
                    int dry = nopen > 1 && sn_coll_expected_total(t, &p) <= SN_MODEL_DRY_DELIVERIES;
                    int64_t best_cost = -1;
                    for (size_t i = 0; i < nopen; i++) {
                        int64_t cost = open_pred[i];
                        if (cost < 0 && dry) {
                            void *pl = NULL;
                            sn_err_t err = {0};
                            tu_assert_rc(sn_model_plan_new(open[i], t, &p, &pl, &err), 0);
                            cost = sn_model_dry_run(open[i], pl, t, &p, -1, NULL);
                            open[i]->plan_free(pl);
                        }
                        if (best == NULL || (cost >= 0 && (best_cost < 0 || cost < best_cost)))
                            best = open[i], best_cost = cost, best_pred = open_pred[i];
                    }
                }
                assert_non_null(best);
                const sn_algo_t *a = NULL;
                int64_t pr = -2;
                sn_err_t err = {0};
                tu_assert_rc(sn_model_select(NULL, t, &p, &a, NULL, &pr, &err), 0);
                if (a != best || pr != best_pred)
                    fail_msg("%s %s %s/%s/%s: auto chose %s (%lld), expected %s (%lld)", t->spec,
                             sn_coll_name(p.coll), pms[pi][0], pms[pi][1], pms[pi][2], a->name,
                             (long long) pr, best->name, (long long) best_pred);
            }
        }
        sn_topo_free(t);
    }
}

/* An explicit algorithm under a port model it does not support, or for another collective. */
static void test_select_unsupported(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:4x4");
    static const struct {
        const char *algo;
        sn_coll_t coll;
        const char *ports, *rx, *duplex;
    } cases[] = {
        {"scatter-balanced", SN_COLL_SCATTER, "single", "one", "full"},
        {"scatter-balanced", SN_COLL_SCATTER, "single", "any", "half"},
        {"gather-balanced", SN_COLL_GATHER, "single", "one", "full"},
        {"bcast-bfs", SN_COLL_BCAST, "single", "one", "full"},
        {"bcast-bfs", SN_COLL_BCAST, "single", "any", "full"},
        {"te-route", SN_COLL_BCAST, "multi", "one", "full"},
        {"scatter-ff", SN_COLL_GATHER, "multi", "one", "full"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_params_t p = tu_params(cases[i].coll, cases[i].ports, cases[i].rx, cases[i].duplex);
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(cases[i].algo, t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        tu_assert_rc(err.code, SN_ENOTSUP);
        assert_has(err.msg, cases[i].algo);
        assert_null(plan);
        tu_assert_rc(sn_model_check(sn_model_find(cases[i].algo), t, &p, &err), SN_ENOTSUP);
    }
    /* the port model is named */
    sn_params_t p = tu_params(SN_COLL_SCATTER, "single", "one", "full");
    sn_err_t err = {0};
    const sn_algo_t *a = NULL;
    sn_model_select("scatter-balanced", t, &p, &a, NULL, NULL, &err);
    assert_has(err.msg, "single");
    sn_topo_free(t);
}

/* An unknown name: SN_EINVAL listing the algorithms of that collective (and only those). */
static void test_select_unknown(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:6");
    sn_params_t p = tu_params(SN_COLL_SCATTER, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("scatter-magic", t, &p, &a, NULL, NULL, &err), SN_EINVAL);
    assert_has(err.msg, "scatter-magic");
    assert_has(err.msg, "scatter-ff");
    assert_has(err.msg, "scatter-balanced");
    assert_has(err.msg, "auto");
    assert_lacks(err.msg, "gather-ff");
    assert_lacks(err.msg, "te-route");
    p = tu_params(SN_COLL_TE, "multi", "one", "full");
    tu_assert_rc(sn_model_select("alltoall-bruck", t, &p, &a, NULL, NULL, &err), SN_EINVAL);
    assert_has(err.msg, "te-route");
    assert_lacks(err.msg, "scatter-ff");
    /* a collective without algorithms lists none */
    p = tu_params(SN_COLL_DYNBCAST, "multi", "one", "full");
    tu_assert_rc(sn_model_select("dynbcast-repeat", t, &p, &a, NULL, NULL, &err), SN_EINVAL);
    assert_has(err.msg, "none");
    sn_topo_free(t);
}

/* dynbcast has no algorithm: the parameter check and auto-selection refuse it (pmna has one since
 * pmna-tree; tests/unit/test_fcube.c). */
static void test_colls_without_algorithms(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    static const sn_coll_t colls[] = {SN_COLL_DYNBCAST};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        sn_params_t p = tu_params(colls[i], "multi", "one", "full");
        uint32_t src[2] = {1, 2};
        p.sources = src;
        p.nsources = 2;
        sn_err_t err = {0};
        tu_assert_rc(sn_params_check(t, &p, &err), SN_ENOTSUP);
        assert_has(err.msg, sn_coll_name(colls[i]));
        const sn_algo_t *a = NULL;
        tu_assert_rc(sn_model_select(NULL, t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
        assert_has(err.msg, sn_coll_name(colls[i]));
    }
    sn_topo_free(t);
}

/* ---- parameter checks ------------------------------------------------------------------------ */

static void check_params(const sn_topo_t *t, const sn_params_t *p, int code, const char *what)
{
    sn_err_t err = {0};
    int rc = sn_params_check(t, p, &err);
    tu_assert_rc(rc, code);
    if (code != 0) {
        tu_assert_rc(err.code, code);
        assert_has(err.msg, what);
        /* core messages name concepts; the CLI adds its flags (cli/errmap.c) */
        if (strstr(err.msg, "--") != NULL)
            fail_msg("core message names a flag: %s", err.msg);
    }
}

/* Each refusal of sn_params_check says which run parameter it is about (what the CLI maps to its
 * flags), and the concept names are stable. */
static void test_params_error_param(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:8");
    static const uint32_t src[] = {1, 3};
    struct {
        sn_params_t p;
        sn_param_t want;
    } cases[12];
    size_t n = 0;
    sn_params_t base = tu_params(SN_COLL_TE, "multi", "one", "full");
    cases[n].p = base, cases[n].p.root = 8, cases[n++].want = SN_PARAM_ROOT;
    cases[n].p = base, cases[n].p.msgs = 0, cases[n++].want = SN_PARAM_MSGS;
    cases[n].p = base, cases[n].p.frags = 0, cases[n++].want = SN_PARAM_FRAGS;
    cases[n].p = base, cases[n].p.size = (1u << 30) + 1, cases[n++].want = SN_PARAM_SIZE;
    cases[n].p = base, cases[n].p.pm.rx = SN_RX_ANY, cases[n++].want = SN_PARAM_RX;
    cases[n].p = base, cases[n].p.sources = src, cases[n].p.nsources = 2,
    cases[n++].want = SN_PARAM_SOURCES;
    cases[n].p = tu_params(SN_COLL_PMNB, "multi", "one", "full"),
    cases[n++].want = SN_PARAM_SOURCES;
    for (size_t i = 0; i < n; i++) {
        sn_err_t err = {0};
        assert_true(sn_params_check(t, &cases[i].p, &err) < 0);
        if (err.param != cases[i].want)
            fail_msg("case %zu: '%s' is about parameter %d, expected %d", i, err.msg, err.param,
                     cases[i].want);
        assert_null(strstr(err.msg, "--"));
    }
    assert_string_equal(sn_param_name(SN_PARAM_MSGS), "messages per pair");
    assert_string_equal(sn_param_name(SN_PARAM_SLOT_LIMIT), "slot limit");
    assert_string_equal(sn_param_name(SN_PARAM_NONE), "");
    assert_string_equal(sn_param_name(SN_PARAM_COUNT), "");
    /* a plain sn_err_set clears the parameter of an earlier error */
    sn_err_t err = {0};
    sn_err_set_param(&err, SN_ERANGE, SN_PARAM_SIZE, "x");
    assert_int_equal(err.param, SN_PARAM_SIZE);
    sn_err_set(&err, SN_EINVAL, "y");
    assert_int_equal(err.param, SN_PARAM_NONE);
    /* an explicit algorithm under a port model it does not support: about the port model */
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    tu_assert_rc(sn_model_check(sn_model_find("te-ring"), t, &p, &err), SN_ENOTSUP);
    assert_int_equal(err.param, SN_PARAM_PORT_MODEL);
    assert_has(err.msg, "single-port");
    assert_null(strstr(err.msg, "--"));
    sn_topo_free(t);
}

static void test_params_check(void **state)
{
    (void) state;
    sn_topo_t *ft = tu_topo("fattree:2:2");
    sn_topo_t *t = tu_topo("ring:8");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    check_params(t, &p, 0, NULL);
    check_params(ft, &p, 0, NULL);
    /* the root must be a processor of the topology */
    p.root = ft->n - 1; /* the top router */
    assert_false(sn_topo_is_proc(ft, p.root));
    check_params(ft, &p, SN_EINVAL, "root");
    p.root = 4; /* a level-1 router */
    assert_false(sn_topo_is_proc(ft, p.root));
    check_params(ft, &p, SN_EINVAL, "root");
    p.root = 3;
    check_params(ft, &p, 0, NULL);
    p.root = 8;
    check_params(t, &p, SN_EINVAL, "root");
    p.root = 0;
    /* the reception limit any only with single-port */
    p.pm.rx = SN_RX_ANY;
    check_params(t, &p, SN_EINVAL, "reception limit 'any'");
    p.pm.ports = SN_PORTS_SINGLE;
    check_params(t, &p, 0, NULL);
    /* sizes */
    p = tu_params(SN_COLL_TE, "multi", "one", "full");
    p.msgs = 0;
    check_params(t, &p, SN_ERANGE, "messages per pair 0");
    p.msgs = (1u << 20) + 1;
    check_params(t, &p, SN_ERANGE, "messages per pair");
    p.msgs = 1u << 20;
    check_params(t, &p, 0, NULL);
    p.msgs = 1;
    p.frags = 0;
    check_params(t, &p, SN_ERANGE, "fragments 0");
    p.frags = (1u << 16) + 1;
    check_params(t, &p, SN_ERANGE, "fragments");
    p.frags = 1;
    p.size = (1u << 30) + 1;
    check_params(t, &p, SN_ERANGE, "packet size");
    p.size = 0;
    check_params(t, &p, 0, NULL);
    /* too many deliveries in total */
    sn_topo_t *big = tu_topo("hypercube:10");
    p.msgs = 1u << 20;
    check_params(big, &p, SN_ERANGE, "deliveries");
    sn_topo_free(big);
    p.msgs = 1;
    /* sources only for the partial collectives */
    uint32_t src[4] = {1, 3, 5, 7};
    p.sources = src;
    p.nsources = 4;
    check_params(t, &p, SN_EINVAL, "te");
    p.coll = SN_COLL_MNB;
    check_params(t, &p, SN_EINVAL, "mnb");
    p.coll = SN_COLL_BCAST;
    check_params(t, &p, SN_EINVAL, "bcast");
    p.coll = SN_COLL_PMNB;
    check_params(t, &p, 0, NULL);
    p.coll = SN_COLL_PEXCHANGE;
    check_params(t, &p, 0, NULL);
    /* and the partial collectives need them */
    p.sources = NULL;
    p.nsources = 0;
    check_params(t, &p, SN_EINVAL, "pexchange");
    p.coll = SN_COLL_PMNB;
    check_params(t, &p, SN_EINVAL, "pmnb");
    /* distinct, sorted, processors, in range */
    uint32_t dup[3] = {1, 3, 3};
    p.sources = dup;
    p.nsources = 3;
    check_params(t, &p, SN_EINVAL, "distinct");
    uint32_t unsorted[3] = {5, 1, 3};
    p.sources = unsorted;
    check_params(t, &p, SN_EINVAL, "1");
    uint32_t out[2] = {1, 8};
    p.sources = out;
    p.nsources = 2;
    check_params(t, &p, SN_EINVAL, "8");
    uint32_t rtr[2] = {1, 4};
    p.sources = rtr;
    check_params(ft, &p, SN_EINVAL, "source 4");
    uint32_t leaves[2] = {0, 3};
    p.sources = leaves;
    check_params(ft, &p, 0, NULL);
    /* an unknown collective */
    p.coll = SN_COLL_COUNT;
    check_params(t, &p, SN_EINVAL, "collective");
    sn_topo_free(ft);
    sn_topo_free(t);
}

/* ---- Theorem 3.3 ----------------------------------------------------------------------------- */

/* Theorem 3.3, computed independently: minimum T for (d, R_d). Row d = 0 is the root's
 * own count (R_0 = n); rows d >= 1 use counts[0] = 1, counts[d] = R and zeros between, which give
 * the table value whenever T_0 = ceil(log2(R + 1)) does not exceed it. */
static void test_thm33_table(void **state)
{
    (void) state;
    static const uint64_t R[12] = {1, 2, 3, 4, 5, 8, 10, 16, 20, 32, 64, 100};
    static const int64_t T[6][12] = {
        {0, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7}, {1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 7},
        {2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7, 7}, {3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 7, 8},
        {4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 8}, {5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 9},
    };
    int checked = 0;
    for (uint32_t d = 0; d <= 5; d++) {
        for (size_t j = 0; j < 12; j++) {
            uint64_t counts[6] = {0};
            if (d == 0) {
                counts[0] = R[j];
            } else {
                counts[0] = 1;
                counts[d] = R[j];
                int64_t t0 = 0;
                while ((1ull << t0) < R[j] + 1)
                    t0++;
                if (t0 > T[d][j])
                    continue;
            }
            int64_t got = sn_model_thm33(counts, d);
            if (got != T[d][j])
                fail_msg("thm33(d=%u, R=%llu) = %lld, table %lld", d, (unsigned long long) R[j],
                         (long long) got, (long long) T[d][j]);
            checked++;
        }
    }
    assert_true(checked >= 60);
    /* distance degree sequences: Q_3 [1,3,3,1] -> 3, 5x5 torus -> 5 */
    uint64_t q3[4] = {1, 3, 3, 1}, t55[5] = {1, 4, 8, 8, 4};
    assert_int_equal(sn_model_thm33(q3, 3), 3);
    assert_int_equal(sn_model_thm33(t55, 4), 5);
    /* K_4: e = 1, n_1 = 3 -> 2 (the remark after Theorem 3.3 would say 3: an erratum) */
    uint64_t k4[2] = {1, 3};
    assert_int_equal(sn_model_thm33(k4, 1), 2);
    /* a single node needs nothing; huge counts saturate without overflow */
    uint64_t one[1] = {1};
    assert_int_equal(sn_model_thm33(one, 0), 0);
    uint64_t huge[2] = {1, 1ull << 40};
    assert_int_equal(sn_model_thm33(huge, 1), 41);
}

/* Single-port broadcast lower bound (Theorem 3.3), values computed independently: rings, tori,
 * hypercubes and E_14^2, from node 0. Multiport runs report no such bound. */
static void test_bcast_single_port_bounds(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        int64_t lb;
    } cases[] = {
        {"ring:4", 2},      {"ring:5", 3},      {"ring:6", 3},      {"ring:7", 4},
        {"ring:8", 4},      {"ring:9", 5},      {"ring:10", 5},     {"torus:3x3", 4},
        {"torus:3x4", 4},   {"torus:3x5", 4},   {"torus:4x4", 4},   {"torus:4x5", 5},
        {"torus:5x5", 5},   {"torus:5x6", 6},   {"torus:6x6", 6},   {"torus:7x7", 7},
        {"hypercube:1", 1}, {"hypercube:2", 2}, {"hypercube:3", 3}, {"hypercube:4", 4},
        {"hypercube:5", 5}, {"hypercube:6", 6}, {"ering:14:2", 4},  {"complete:4", 2},
        {"torus:3x6", 5},   {"torus:4x6", 5},   {"ering:8:2", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int any = 0; any < 2; any++) {
            sn_params_t p = tu_params(SN_COLL_BCAST, "single", any ? "any" : "one", "full");
            expect_bound(cases[i].spec, &p, "thm3.3", cases[i].lb);
            sn_params_t q = tu_params(SN_COLL_BCAST, "multi", "one", "full");
            assert_int_equal(bound_spec(cases[i].spec, &q, "thm3.3"), -1);
        }
    }
    /* the eccentricity bound: e(v) for one packet; pipelining adds M-1 (single-port) */
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    expect_bound("torus:5x6", &p, "eccentricity", 5);
    expect_bound("hypercube:5", &p, "eccentricity", 5);
    p.pm.ports = SN_PORTS_SINGLE;
    p.msgs = 4;
    expect_bound("ring:9", &p, "eccentricity", 4 + 4 - 1);
}

/* ---- scatter / gather ------------------------------------------------------------------------ */

/* Single-port scatter (and gather with one reception) at the root: P-1 on router-free graphs,
 * from every root (Theorem 3.6); multiport: ceil((P-1)/deg(root)) (eq. 3.3) and e(root). */
static void test_scatter_bounds(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:7",      "linear:6", "torus:3x4",
                                        "hypercube:4", "star:4",   "mesh:2x3x4",
                                        "complete:5",  "ccc:3",    "ering:14:2"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        int64_t P = t->nproc;
        for (uint32_t root = 0; root < t->n; root++) {
            for (uint32_t msgs = 1; msgs <= 3; msgs += 2) {
                sn_params_t p = tu_params(SN_COLL_SCATTER, "single", "one", "full");
                p.root = root;
                p.msgs = msgs;
                assert_int_equal(bound(t, &p, "root-port"), (P - 1) * msgs);
                p.pm.rx = SN_RX_ANY;
                assert_int_equal(bound(t, &p, "root-port"), (P - 1) * msgs);
                p.coll = SN_COLL_GATHER;
                assert_int_equal(bound(t, &p, "degree"),
                                 ceil_div((P - 1) * msgs, sn_topo_degree(t, root)));
                p.pm.rx = SN_RX_ONE;
                assert_int_equal(bound(t, &p, "root-port"), (P - 1) * msgs);
                p = tu_params(SN_COLL_SCATTER, "multi", "one", "full");
                p.root = root;
                p.msgs = msgs;
                assert_int_equal(bound(t, &p, "degree"),
                                 ceil_div((P - 1) * msgs, sn_topo_degree(t, root)));
                assert_int_equal(bound(t, &p, "eccentricity"), sn_topo_ecc(t, root, 1));
                assert_int_equal(bound(t, &p, "root-port"), -1);
            }
        }
        sn_topo_free(t);
    }
    /* a fat tree: the root leaf has one link; 7 messages, the farthest 6 hops away */
    sn_params_t p = tu_params(SN_COLL_SCATTER, "single", "one", "full");
    expect_bound("fattree:2:3", &p, "root-port", 9); /* max_d R_d + d - 1: 4 + 5 */
    p.pm.ports = SN_PORTS_MULTI;
    expect_bound("fattree:2:3", &p, "degree", 7);
    expect_bound("fattree:2:3", &p, "eccentricity", 6);
}

/* ---- total exchange -------------------------------------------------------------------------- */

/* Multiport (4.1) cut bounds (thesis section 4.1), values computed independently. */
static void test_te_cut_bounds(void **state)
{
    (void) state;
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    char spec[32];
    for (int64_t n = 2; n <= 12; n++) {
        snprintf(spec, sizeof spec, "linear:%lld", (long long) n);
        expect_bound(spec, &p, "cut", ceil_div(n * n - 1, 4));
        if (n >= 3) {
            snprintf(spec, sizeof spec, "ring:%lld", (long long) n);
            expect_bound(spec, &p, "cut", ceil_div(n * n - 1, 8));
        }
    }
    static const struct {
        const char *spec;
        int64_t cut;
    } cases[] = {
        {"torus:3x3", 3},    {"torus:4x4", 8},     {"torus:5x5", 15},     {"torus:6x6", 27},
        {"torus:7x7", 42},   {"torus:8x8", 64},    {"mesh:3x3", 6},       {"mesh:4x4", 16},
        {"mesh:5x5", 30},    {"mesh:8x8", 128},    {"mesh:2x2", 2},       {"hypercube:1", 1},
        {"hypercube:2", 2},  {"hypercube:3", 4},   {"hypercube:4", 8},    {"hypercube:5", 16},
        {"hypercube:6", 32}, {"mesh:3x3x3x3", 54}, {"torus:3x3x3x3", 27}, {"torus:4x4x4x4", 128},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bound(cases[i].spec, &p, "cut", cases[i].cut);
    /* the multiport distance bound: 27 on the 6x6 torus too */
    expect_bound("torus:6x6", &p, "distance", 27);
    /* with M packets per pair everything scales */
    p.msgs = 3;
    expect_bound("linear:7", &p, "cut", 3 * 12);
    p.msgs = 1;
    p.frags = 2;
    expect_bound("ring:7", &p, "cut", 2 * 6);
    /* no cut bound under single-port (4.1 does not apply, thesis section 4.1) */
    sn_params_t s = tu_params(SN_COLL_TE, "single", "one", "full");
    assert_int_equal(bound_spec("torus:4x4", &s, "cut"), -1);
}

/* Single-port (4.4) status bounds: s(R_n) = ceil((n^2-1)/4), s(Q_d) = d 2^(d-1), and the other
 * Cayley values and average statuses, computed independently. */
static void test_te_status_bounds(void **state)
{
    (void) state;
    char spec[32];
    for (int any = 0; any < 2; any++) {
        sn_params_t p = tu_params(SN_COLL_TE, "single", any ? "any" : "one", "full");
        for (int64_t n = 3; n <= 12; n++) {
            snprintf(spec, sizeof spec, "ring:%lld", (long long) n);
            expect_bound(spec, &p, "status", ceil_div(n * n - 1, 4));
        }
        for (int64_t d = 1; d <= 6; d++) {
            snprintf(spec, sizeof spec, "hypercube:%lld", (long long) d);
            expect_bound(spec, &p, "status", d << (d - 1));
        }
        static const struct {
            const char *spec;
            int64_t status;
        } cases[] = {
            {"complete:6", 5},
            {"ering:14:2", 28},
            {"ering:9:2", 12},
            {"ering:10:3", 12},
            {"ering:8:2", 10},
            {"ering:10:2", 15},
            {"ering:12:3", 16},
            {"ering:16:4", 22},
            {"circulant:13:1,5", 20},
            {"ccc:3", 74},
            {"butterfly:3", 55},
            {"ccc:4", 296},
            {"butterfly:4", 216},
            {"star:4", 62},
            {"foldedcube:2", 3},
            {"foldedcube:3", 10},
            {"foldedcube:4", 25},
            {"foldedcube:5", 66},
            {"complete:3*complete:4", 17},
            {"ering:7:2*ring:5", 82},
            {"torus:3x3", 12},
            {"torus:4x4", 32},
            {"torus:4x3", 20},
            {"linear:4", 5},
            {"linear:6", 12},
            {"linear:9", 27},
            {"mesh:3x3", 16},
            {"mesh:4x4", 40},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            expect_bound(cases[i].spec, &p, "status", cases[i].status);
    }
    /* no status bound under multiport (it is the "distance" bound there) */
    sn_params_t m = tu_params(SN_COLL_TE, "multi", "one", "full");
    assert_int_equal(bound_spec("ring:7", &m, "status"), -1);
    expect_bound("ring:7", &m, "distance", ceil_div(7 * 12, 14));
}

/* Bounds that every partial or full exchange and broadcast reports. */
static void test_mnb_and_partial_bounds(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:4x4");
    sn_params_t p = tu_params(SN_COLL_MNB, "multi", "one", "full");
    assert_int_equal(bound(t, &p, "diameter"), 4);
    assert_int_equal(bound(t, &p, "receive"), ceil_div(15, 4));
    assert_int_equal(bound(t, &p, "transmissions"), ceil_div(16 * 15, 64));
    p.pm.ports = SN_PORTS_SINGLE;
    assert_int_equal(bound(t, &p, "receive"), 15);
    assert_int_equal(bound(t, &p, "transmissions"), 15);
    /* pmnb with two sources: a non-source receives 2 packets; the farthest source distance */
    uint32_t src[2] = {0, 5};
    p = tu_params(SN_COLL_PMNB, "single", "one", "full");
    p.sources = src;
    p.nsources = 2;
    assert_int_equal(bound(t, &p, "receive"), 2);
    assert_int_equal(bound(t, &p, "diameter"), 4);
    p.coll = SN_COLL_PEXCHANGE;
    assert_int_equal(bound(t, &p, "send"), 15);
    assert_int_equal(bound(t, &p, "status"), ceil_div(2 * 32, 16));
    sn_topo_free(t);
}

/* Half duplex never lowers a bound: every bound reported under --duplex full is reported under
 * --duplex half with at least the same value, for every collective and port model. */
static void test_half_duplex_bounds_not_lower(void **state)
{
    (void) state;
    static const char *const specs[] = {"linear:7",         "ring:8",      "torus:4x5",
                                        "mesh:3x3",         "hypercube:4", "fattree:2:3:1,2,4",
                                        "ering:7:2*ring:5", "complete:6",  "star:4"};
    static const char *const pms[][2] = {{"multi", "one"}, {"single", "one"}, {"single", "any"}};
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        uint32_t src[3] = {sn_topo_proc(t, 0), sn_topo_proc(t, 1), sn_topo_proc(t, 2)};
        for (int c = 0; c < SN_COLL_PMNA; c++) {
            for (size_t pi = 0; pi < 3; pi++) {
                for (uint32_t msgs = 1; msgs <= 2; msgs++) {
                    sn_params_t p = tu_params((sn_coll_t) c, pms[pi][0], pms[pi][1], "full");
                    p.msgs = msgs;
                    p.root = sn_topo_proc(t, t->nproc - 1);
                    if (c == SN_COLL_PMNB || c == SN_COLL_PEXCHANGE) {
                        p.sources = src;
                        p.nsources = 3;
                    }
                    sn_bounds_t full, half;
                    sn_err_t err = {0};
                    tu_assert_rc(sn_model_bounds(t, &p, &full, &err), 0);
                    p.pm.duplex = SN_DUPLEX_HALF;
                    tu_assert_rc(sn_model_bounds(t, &p, &half, &err), 0);
                    if (half.best < full.best)
                        fail_msg("%s %s %s/%s: half-duplex bound %lld < full %lld", t->spec,
                                 sn_coll_name(p.coll), pms[pi][0], pms[pi][1],
                                 (long long) half.best, (long long) full.best);
                    for (size_t i = 0; i < full.count; i++) {
                        int found = 0;
                        for (size_t j = 0; j < half.count; j++) {
                            if (strcmp(full.b[i].name, half.b[j].name) != 0)
                                continue;
                            found = 1;
                            if (half.b[j].value < full.b[i].value)
                                fail_msg("%s %s: half-duplex %s %lld < full %lld", t->spec,
                                         sn_coll_name(p.coll), full.b[i].name,
                                         (long long) half.b[j].value, (long long) full.b[i].value);
                        }
                        if (!found)
                            fail_msg("%s %s: bound %s missing under half duplex", t->spec,
                                     sn_coll_name(p.coll), full.b[i].name);
                    }
                }
            }
        }
        sn_topo_free(t);
    }
    /* half duplex doubles the linear array's cut bound: both directions share the one link */
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "half");
    expect_bound("linear:6", &p, "cut", 2 * 9);
}

/* Bounds are well formed: best is the maximum, every value is named and sourced, and a single
 * processor needs nothing. */
static void test_bounds_well_formed(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("fattree:3:2:exp");
    for (int c = 0; c < SN_COLL_PMNA; c++) {
        sn_params_t p = tu_params((sn_coll_t) c, "multi", "one", "full");
        uint32_t src[2] = {0, 8};
        if (c == SN_COLL_PMNB || c == SN_COLL_PEXCHANGE) {
            p.sources = src;
            p.nsources = 2;
        }
        sn_bounds_t b;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_bounds(t, &p, &b, &err), 0);
        assert_true(b.count >= 1 && b.count <= SN_BOUND_MAX);
        int64_t best = 0;
        for (size_t i = 0; i < b.count; i++) {
            assert_non_null(b.b[i].name);
            assert_non_null(b.b[i].source);
            assert_true(b.b[i].value >= 0);
            if (b.b[i].value > best)
                best = b.b[i].value;
        }
        assert_int_equal(b.best, best);
    }
    sn_topo_free(t);
}

/* sn_sched_record returns exactly the run's transmissions: as many events as packets, sorted by
 * (slot, node, port), steps equal to the run's, and the same trace hash when summed. */
static void test_sched_record(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:5", "torus:3x4", "hypercube:3"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sn_topo_t *t = tu_topo(specs[k]);
        for (int single = 0; single < 2; single++) {
            sn_params_t p = tu_params(SN_COLL_TE, single ? "single" : "multi", "one", "full");
            tu_run_t r = tu_sim(t, &p, NULL);
            tu_assert_rc(r.rc, 0);
            sn_sched_t *s = NULL;
            sn_err_t err = {0};
            tu_assert_rc(sn_sched_record(t, &p, NULL, &s, &err), 0);
            assert_int_equal(s->n, r.res.packets);
            assert_int_equal(s->steps, r.res.steps);
            assert_ptr_equal(s->algo, r.algo);
            uint64_t h = 0;
            for (size_t i = 0; i < s->n; i++) {
                const sn_sched_ev_t *e = &s->ev[i];
                if (i > 0) {
                    const sn_sched_ev_t *f = &s->ev[i - 1];
                    assert_true(f->slot < e->slot || (f->slot == e->slot && f->node <= e->node));
                }
                assert_true(e->port < sn_topo_degree(t, e->node));
                h += sn_trace_event(e->slot, sn_topo_link_id(t, e->node, e->port), &e->pkt);
            }
            assert_int_equal(h, r.res.trace_hash);
            sn_sched_free(s);
        }
        sn_topo_free(t);
    }
    /* an algorithm that does not apply is an error, nothing is recorded */
    sn_topo_t *t = tu_topo("ring:5");
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    sn_sched_t *s = (sn_sched_t *) 1;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_record(t, &p, "bcast-bfs", &s, &err), SN_ENOTSUP);
    assert_null(s);
    sn_topo_free(t);
}

/* ---- the memory budget --------------------------------------------------------------------- */

/* Link emulation holds whole frames: ring:4 te with 256 MiB packets held 527 MiB per node behind
 * --link-delay 1ms; the estimate counts SN_MODEL_EMU_FRAMES of them per emulated link, so that
 * --max-memory 64M refuses the run with a message naming the estimate, the emulation and the
 * limit; without emulation the streamed frames fit. */
static void test_mem_link_emulation(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p;
    sn_params_default(&p, SN_COLL_TE);
    p.size = 1u << 28;
    sn_mem_t plain, emu;
    sn_mem_extra_t on = {.emulated = 1};
    sn_model_mem_estimate(t, &p, SN_MEM_RUN, &plain);
    sn_model_mem_estimate_with(t, &p, SN_MEM_RUN, &on, &emu);
    sn_err_t err = {0};
    tu_assert_rc(sn_model_mem_check(t, &p, &plain, 64u << 20, &err), 0);
    assert_true(emu.per_process >= 2 * (uint64_t) SN_MODEL_EMU_FRAMES * (1u << 28));
    assert_true(emu.held == 2 * sn_model_mem_link_emulated(1u << 28));
    assert_true(emu.total >= 4 * emu.held);
    tu_assert_rc(sn_model_mem_check(t, &p, &emu, 64u << 20, &err), SN_ERANGE);
    assert_int_equal(err.param, SN_PARAM_MEMORY);
    assert_has(err.msg, "link emulation holds 1.0 GiB");
    assert_has(err.msg, "the memory limit is 64 MiB");
    sn_topo_free(t);
}

/* model plans every candidate and runs small collectives dry: `model --topo foldedcube:11 --coll
 * mnb` peaked at 276 MiB against an estimate of 9.2 MiB; the estimate now covers the peak, and a
 * small collective's estimate covers a dry run in the simulator. */
static void test_mem_model_candidates(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("foldedcube:11");
    sn_params_t p;
    sn_params_default(&p, SN_COLL_MNB);
    sn_mem_t m;
    sn_model_mem_estimate(t, &p, SN_MEM_MODEL, &m);
    assert_true(m.per_process >= 276ull << 20);
    /* sim's auto plans the same candidates (peak 261 MiB), and so does run's coordinator */
    sn_mem_t sim_m, run_m;
    sn_model_mem_estimate(t, &p, SN_MEM_SIM, &sim_m);
    assert_true(sim_m.per_process >= 276ull << 20);
    sn_model_mem_estimate(t, &p, SN_MEM_RUN, &run_m);
    assert_true(run_m.per_process >= 276ull << 20);
    sn_err_t err = {0};
    tu_assert_rc(sn_model_mem_check(t, &p, &m, 32u << 20, &err), SN_ERANGE);
    assert_has(err.msg, "the memory limit is 32 MiB");
    sn_topo_free(t);
    t = tu_topo("ring:64");
    sn_params_default(&p, SN_COLL_TE);
    sn_mem_t model, sim;
    sn_model_mem_estimate(t, &p, SN_MEM_MODEL, &model);
    sn_model_mem_estimate(t, &p, SN_MEM_SIM, &sim);
    assert_true(model.exec >= sim.exec);
    sn_topo_free(t);
}

/* A file: graph's text: the reading process holds the file (its whole size counts), each node of
 * run the canonical edge list only. */
static void test_mem_file_text(void **state)
{
    (void) state;
    size_t comment = 4u << 20;
    char *text = malloc(comment + 64);
    assert_non_null(text);
    for (size_t i = 0; i < comment; i += 64) { /* lines of "# xxx...x" */
        memset(text + i, 'x', 64);
        text[i] = '#';
        text[i + 63] = '\n';
    }
    strcpy(text + comment, "\n0 1\n1 2\n2 3\n3 0\n");
    char *path = tu_tmpfile(text), spec[600];
    free(text);
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec), *ring = tu_topo("ring:4");
    sn_params_t p;
    sn_params_default(&p, SN_COLL_TE);
    sn_mem_t file_sim, ring_sim, file_run, ring_run;
    sn_model_mem_estimate(t, &p, SN_MEM_SIM, &file_sim);
    sn_model_mem_estimate(ring, &p, SN_MEM_SIM, &ring_sim);
    assert_true(file_sim.per_process >= ring_sim.per_process + comment);
    sn_model_mem_estimate(t, &p, SN_MEM_RUN, &file_run);
    sn_model_mem_estimate(ring, &p, SN_MEM_RUN, &ring_run);
    /* the coordinator read the file; a node holds a few copies of "0 1\n..." (16 bytes) */
    assert_true(file_run.per_process >= comment);
    assert_true(file_run.text >= comment && file_run.text < comment + 4096);
    assert_true(file_run.total < ring_run.total + comment + 4096 + 5 * 8u * 4 * 4 * 4 + (1u << 20));
    sn_topo_free(t);
    sn_topo_free(ring);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_link_emulation),
        cmocka_unit_test(test_mem_model_candidates),
        cmocka_unit_test(test_mem_file_text),
        cmocka_unit_test(test_sched_record),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_coll_names),
        cmocka_unit_test(test_select_auto),
        cmocka_unit_test(test_select_auto_is_minimum),
        cmocka_unit_test(test_select_unsupported),
        cmocka_unit_test(test_select_unknown),
        cmocka_unit_test(test_colls_without_algorithms),
        cmocka_unit_test(test_params_check),
        cmocka_unit_test(test_params_error_param),
        cmocka_unit_test(test_thm33_table),
        cmocka_unit_test(test_bcast_single_port_bounds),
        cmocka_unit_test(test_scatter_bounds),
        cmocka_unit_test(test_te_cut_bounds),
        cmocka_unit_test(test_te_status_bounds),
        cmocka_unit_test(test_mnb_and_partial_bounds),
        cmocka_unit_test(test_half_duplex_bounds_not_lower),
        cmocka_unit_test(test_bounds_well_formed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
