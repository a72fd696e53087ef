/* Unit tests of auto-selection by the user's cost (core/model/registry.c through cli/options.c):
 * auto ranks the candidates by time units, (steps - control slots) / frags + control slots x tp,
 * ties by fewer steps, so that --tp 0 prefers an algorithm that pays control slots to learn its
 * sources while the default --tp 1 (a control slot costs a slot, as over TCP) keeps the generic
 * router; and the control slots an algorithm predicts are those its run takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tests/support/testutil.h"

/* The algorithm auto picks for the options, as `stepnet sim` and `model` build them. */
static void expect_auto(const char *topo, const char *m, const char *seed, const char *frags,
                        const char *tp, const char *want)
{
    char *argv[] = {"--topo", (char *) topo, "--coll",  "pmnb",         "--m",  (char *) m,
                    "--seed", (char *) seed, "--frags", (char *) frags, "--tp", (char *) tp};
    int argc = (int) (sizeof argv / sizeof argv[0]) - (tp ? 0 : 2); /* NULL: no --tp */
    cli_opts_t o;
    cli_opts_init(&o, "sim");
    sn_err_t err = {0};
    if (cli_opts_parse(argc, argv, &o, NULL, NULL, &err) != 0)
        fail_msg("options refused: %s", err.msg);
    cli_ctx_t c;
    if (cli_ctx_build(&o, &c, &err) != 0)
        fail_msg("%s pmnb --m %s --seed %s --frags %s --tp %s: %s", topo, m, seed, frags, tp,
                 err.msg);
    if (strcmp(c.algo->name, want) != 0)
        fail_msg("%s pmnb --m %s --seed %s --frags %s --tp %s: auto picked %s, want %s", topo, m,
                 seed, frags, tp, c.algo->name, want);
    cli_ctx_free(&c);
}

/* foldedcube:7, 32 sources: pmnb-route takes 25 slots (25 time units), pmnb-fcube 43 of which 28
 * are control slots: 15 time units at --tp 0, 43 at --tp 1. */
static void test_fcube_tp_ranks(void **state)
{
    (void) state;
    expect_auto("foldedcube:7", "32", "3", "1", "0", "pmnb-fcube");
    expect_auto("foldedcube:7", "32", "3", "1", "1", "pmnb-route");
    expect_auto("foldedcube:7", "32", "3", "1", NULL, "pmnb-route");
}

/* torus:8x8, 32 sources, 4 fragments: pmnb-route 85 slots (21.25 time units), pmnb-mesh-split 91
 * slots of which 28 control (15.75 at --tp 0, 43.75 at --tp 1). */
static void test_mesh_frags_tp_ranks(void **state)
{
    (void) state;
    expect_auto("torus:8x8", "32", "7", "4", "0", "pmnb-mesh-split");
    expect_auto("torus:8x8", "32", "7", "4", "1", "pmnb-route");
    expect_auto("torus:8x8", "32", "7", "4", NULL, "pmnb-route");
}

/* Without --tp auto ranks by steps, as a run over TCP costs them (every slot the same): torus:8x8,
 * 64 sources, 4 fragments: pmnb-mesh-split's 119 steps (50.75 time units at --tp 1) beat
 * pmnb-route's 128 (32 time units), which --tp 1 picks. */
static void test_without_tp_ranks_by_steps(void **state)
{
    (void) state;
    expect_auto("torus:8x8", "64", "7", "4", NULL, "pmnb-mesh-split");
    expect_auto("torus:8x8", "64", "7", "4", "1", "pmnb-route");
}

static void test_time_units(void **state)
{
    (void) state;
    sn_params_t p;
    sn_params_default(&p, SN_COLL_PMNB);
    p.frags = 4;
    assert_true(sn_model_time_units(&p, 0.0, 91, 28) == 15.75);
    assert_true(sn_model_time_units(&p, 1.0, 91, 28) == 43.75);
    p.frags = 1;
    assert_true(sn_model_time_units(&p, 1.0, 43, 28) == 43.0);
}

/* Every algorithm that predicts control slots takes exactly that many in its run. */
static void test_predicted_control_is_measured(void **state)
{
    (void) state;
    static const struct {
        const char *topo, *algo;
        uint32_t frags;
    } cases[] = {{"foldedcube:3", "pmnb-fcube", 1},   {"foldedcube:7", "pmnb-fcube", 1},
                 {"torus:8x8", "pmnb-mesh-split", 4}, {"torus:8x8", "pmnb-mesh", 1},
                 {"mesh:5x5", "pmnb-mesh-a0", 2},     {"ring:7", "pmnb-mesh-split", 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].topo);
        sn_params_t p = tu_params(SN_COLL_PMNB, "multi", "one", "full");
        uint32_t src[3] = {0, t->nproc / 2, t->nproc - 1};
        p.sources = src, p.nsources = 3, p.frags = cases[i].frags;
        tu_run_t r = tu_sim(t, &p, cases[i].algo);
        tu_assert_rc(r.rc, 0);
        assert_true(r.res.verified);
        void *pl = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_plan_new(r.algo, t, &p, &pl, &err), 0);
        int64_t ctl = sn_model_predicted_control(r.algo, pl);
        r.algo->plan_free(pl);
        if (ctl <= 0 || (uint64_t) ctl != r.res.control_slots ||
            r.predicted != (int64_t) r.res.steps)
            fail_msg("%s %s: predicted %lld steps, %lld control; ran %llu, %llu control",
                     cases[i].topo, cases[i].algo, (long long) r.predicted, (long long) ctl,
                     (unsigned long long) r.res.steps, (unsigned long long) r.res.control_slots);
        sn_topo_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fcube_tp_ranks),
        cmocka_unit_test(test_mesh_frags_tp_ranks),
        cmocka_unit_test(test_without_tp_ranks_by_steps),
        cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_predicted_control_is_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
