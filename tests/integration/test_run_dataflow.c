/* Integration tests of `stepnet run --sync dataflow` (node/mode_dataflow.c, core/model/rxplan.c):
 * every algorithm of `stepnet algos` on a small case runs without the slot barrier and verifies
 * with the simulator's steps, trace hash, deliveries and packets; a killed or stopped node gets a
 * verdict naming it; the options refuse what dataflow cannot honour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* `stepnet sim ARGS` against `stepnet run ARGS --sync dataflow`: the same transmissions in the
 * same logical slots. */
static void expect_dataflow_exact(const char *const *args)
{
    tu_av_t s = {0}, r = {0};
    TU_AV_ADD(&s, "sim");
    tu_av_addv(&s, args);
    TU_AV_ADD(&s, "--json");
    TU_AV_ADD(&r, "run");
    tu_av_addv(&r, args);
    TU_AV_ADD(&r, "--sync", "dataflow", "--json", "--reps", "2", "--warmup", "0", "--probes", "2");
    tu_proc_t ps = tu_stepnet(60, s.v);
    tu_expect_status(&ps, 0);
    tu_json_line(&ps);
    tu_proc_t pr = tu_stepnet(120, r.v);
    tu_expect_same(args, &ps, &pr);
    const char *jr = tu_json_line(&pr);
    if (strcmp(tu_jstr(jr, "sync"), "dataflow") != 0)
        fail_msg("%s: sync is \"%s\"", pr.cmd, tu_jstr(jr, "sync"));
    /* the prediction of a dataflow run is the dataflow model's */
    if (!tu_json_is_null(jr, "time_model")) {
        const char *tm = tu_json_need(jr, "time_model");
        assert_string_equal(tu_jstr(tm, "model"), "dataflow");
        if (!tu_near(tu_json_num(jr, "predicted_us"), tu_json_num(jr, "predicted_dataflow_us")))
            fail_msg("%s: predicted_us %g, predicted_dataflow_us %g", pr.cmd,
                     tu_json_num(jr, "predicted_us"), tu_json_num(jr, "predicted_dataflow_us"));
    }
    tu_exec_free(&ps);
    tu_exec_free(&pr);
}

/* One small case per algorithm of `stepnet algos` (the port model each needs), then the cases
 * that exercise the queues and the port models' arrival checks. */
static void test_every_algorithm(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "fattree:2:3:exp", "--coll", "bcast", "--algo", "bcast-fattree"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "scatter", "--algo", "scatter-fattree"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "gather", "--algo", "gather-fattree"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "mnb", "--algo", "mnb-fattree"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "mnb", "--algo", "mnb-fattree-qf"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "mnb", "--algo", "mnb-fattree-qf-serial"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "te", "--algo", "te-fattree"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "te", "--algo", "te-fattree-serial"}},
        {{"--topo", "foldedcube:3", "--coll", "bcast", "--algo", "bcast-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "sna", "--algo", "sna-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "te", "--algo", "te-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "mnb", "--algo", "mnb-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "gather", "--algo", "gather-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "scatter", "--algo", "scatter-fcube"}},
        {{"--topo", "ring:6", "--coll", "bcast", "--algo", "bcast-ering"}},
        {{"--topo", "torus:3x3", "--coll", "bcast", "--algo", "bcast-product"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-binomial"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-bfs"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-tree"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-greedy", "--ports",
          "single"}},
        {{"--topo", "ring:6", "--coll", "scatter", "--algo", "scatter-ering"}},
        {{"--topo", "torus:3x3", "--coll", "scatter", "--algo", "scatter-torus"}},
        {{"--topo", "hypercube:3", "--coll", "scatter", "--algo", "scatter-balanced"}},
        {{"--topo", "hypercube:3", "--coll", "scatter", "--algo", "scatter-ff"}},
        {{"--topo", "ring:6", "--coll", "gather", "--algo", "gather-ering"}},
        {{"--topo", "torus:3x3", "--coll", "gather", "--algo", "gather-torus"}},
        {{"--topo", "hypercube:3", "--coll", "gather", "--algo", "gather-balanced"}},
        {{"--topo", "hypercube:3", "--coll", "gather", "--algo", "gather-ff"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-route"}},
        {{"--topo", "linear:5", "--coll", "te", "--algo", "te-linear"}},
        {{"--topo", "ring:6", "--coll", "te", "--algo", "te-ring"}},
        {{"--topo", "hypercube:3", "--coll", "te", "--algo", "te-hypercube"}},
        {{"--topo", "torus:3x3", "--coll", "te", "--algo", "te-a3"}},
        {{"--topo", "hypercube:3", "--coll", "te", "--algo", "te-cayley", "--ports", "single"}},
        {{"--topo", "torus:3x3", "--coll", "te", "--algo", "te-a2", "--ports", "single"}},
        {{"--topo", "hypercube:3", "--coll", "te", "--algo", "te-route"}},
        {{"--topo", "hypercube:3", "--coll", "pmnb", "--algo", "pmnb-route", "--m", "3"}},
        {{"--topo", "hypercube:3", "--coll", "pexchange", "--algo", "pexchange-route", "--m", "3"}},
        {{"--topo", "hypercube:3", "--coll", "sna", "--algo", "sna-tree"}},
        {{"--topo", "hypercube:3", "--coll", "pmna", "--algo", "pmna-tree", "--m", "3"}},
        {{"--topo", "foldedcube:3", "--coll", "te", "--algo", "te-fcube-greedy"}},
        {{"--topo", "foldedcube:3", "--coll", "pmna", "--algo", "pmna-fcube", "--m", "3"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-a0", "--ports", "single"}},
        {{"--topo", "hypercube:3", "--coll", "pmna", "--algo", "pmna-a0", "--ports", "single",
          "--m", "3"}},
        {{"--topo", "linear:5", "--coll", "pmnb", "--algo", "pmnb-mesh-split", "--m", "3"}},
        {{"--topo", "torus:3x3", "--coll", "pmnb", "--algo", "pmnb-mesh", "--m", "3"}},
        {{"--topo", "mesh:3x3", "--coll", "pmnb", "--algo", "pmnb-mesh-a0", "--m", "3"}},
        {{"--topo", "torus:3x3", "--coll", "mnb", "--algo", "mnb-mesh"}},
        {{"--topo", "torus:3x3", "--coll", "pexchange", "--algo", "pexchange-mesh", "--m", "3"}},
        {{"--topo", "torus:3x3", "--coll", "bcast", "--algo", "bcast-bst"}},
        {{"--topo", "torus:3x3", "--coll", "mnb", "--algo", "mnb-bsg"}},
        {{"--topo", "torus:3x3", "--coll", "scatter", "--algo", "scatter-bsg"}},
        {{"--topo", "torus:3x3", "--coll", "gather", "--algo", "gather-bsg"}},
        {{"--topo", "torus:3x3", "--coll", "te", "--algo", "te-mns"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-balanced"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-cycle", "--ports", "single"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-multitree", "--ports",
          "single"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-match", "--ports",
          "single"}},
        {{"--topo", "torus:3x3", "--coll", "bcast", "--algo", "bcast-arbor", "--msgs", "4"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-gossip", "--msgs", "4"}},
        {{"--topo", "foldedcube:3", "--coll", "pmnb", "--algo", "pmnb-fcube", "--m", "3"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-cayley"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-gossip"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-match", "--ports", "single"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--algo", "allreduce-rd"}},
        {{"--topo", "torus:3x3", "--coll", "allreduce", "--algo", "allreduce-product"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--algo", "allreduce-flood", "--op",
          "max"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--algo", "allreduce-tree"}},
        {{"--topo", "hypercube:3", "--coll", "barrier", "--algo", "barrier-rd"}},
        {{"--topo", "torus:3x3", "--coll", "barrier", "--algo", "barrier-product"}},
        {{"--topo", "hypercube:3", "--coll", "barrier", "--algo", "barrier-flood"}},
        {{"--topo", "hypercube:3", "--coll", "barrier", "--algo", "barrier-tree"}},
        {{"--topo", "hypercube:3", "--coll", "mna", "--algo", "mna-tree"}},
        {{"--topo", "hypercube:3", "--coll", "sna", "--algo", "sna-reverse", "--msgs", "4"}},
        {{"--topo", "torus:3x3", "--coll", "mna", "--algo", "mna-reverse", "--ports", "single"}},
        {{"--topo", "ring:6", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs", "6",
          "--frags", "2"}},
        {{"--topo", "torus:3x3", "--coll", "allreduce", "--algo", "allreduce-rb", "--msgs", "4",
          "--ports", "single"}},
        {{"--topo", "mesh:3x3", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs", "11"}},
        {{"--topo", "torus:3x4", "--coll", "allreduce", "--algo", "allreduce-window", "--msgs",
          "2"}},
        {{"--topo", "ring:5", "--coll", "allreduce", "--algo", "allreduce-window", "--duplex",
          "half"}},
        /* pipelined packets (frames of later slots queue), half duplex, single-port with
         * rx any, fragments, and frames larger than a chunk */
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-bfs", "--msgs", "3",
          "--size", "4096"}},
        {{"--topo", "ring:6", "--coll", "te", "--algo", "te-ring", "--msgs", "2"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-binomial", "--ports",
          "single", "--msgs", "2"}},
        {{"--topo", "ring:6", "--coll", "bcast", "--algo", "bcast-tree", "--duplex", "half",
          "--msgs", "2"}},
        {{"--topo", "torus:3x4", "--coll", "bcast", "--algo", "bcast-gossip", "--duplex", "half",
          "--msgs", "5"}},
        {{"--topo", "torus:3x3", "--coll", "mnb", "--algo", "mnb-route", "--ports", "single",
          "--rx", "any"}},
        {{"--topo", "mesh:3x3", "--coll", "pmnb", "--algo", "pmnb-mesh-split", "--m", "3",
          "--frags", "4"}},
        {{"--topo", "complete:8", "--coll", "te", "--size", "70000"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_dataflow_exact(cases[i].args);
}

/* A node killed in the middle of a dataflow collective: the verdict names it (its control
 * connection closes at once, whatever its neighbours still wait for). */
static void test_killed_node(void **state)
{
    (void) state;
    char line[1024];
    tu_proc_t p =
        TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--sync", "dataflow", "--reps",
                   "2", "--warmup", "0", "--probes", "0", "--fault", "1:kill@2", "--json");
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(line, "node 1 ") == NULL)
        fail_msg("%s: the verdict does not name node 1: %s", p.cmd, line);
    tu_exec_free(&p);
}

/* A node stopped (SIGSTOP) at slot 1: its neighbours await its frames of slot 1 or later, their
 * slot deadlines fire, and the coordinator's probe finds the node stopped. */
static void test_stopped_node(void **state)
{
    (void) state;
    char line[2048];
    tu_proc_t p = TU_STEPNET(90, "run", "--topo", "ring:4", "--coll", "te", "--sync", "dataflow",
                             "--reps", "2", "--warmup", "0", "--probes", "0", "--fault", "2:stop@1",
                             "--slot-timeout-ms", "1000", "--json");
    tu_expect_failed(&p, line, sizeof line);
    if (strstr(line, "node 2 ") == NULL || strstr(line, "stopped") == NULL)
        fail_msg("%s: the verdict does not say node 2 stopped: %s", p.cmd, line);
    tu_exec_free(&p);
}

/* --sync takes slot or dataflow; dataflow refuses what it cannot honour, with exit 2 and the
 * reason; the default is the slot barrier, and the JSON says which ran. */
static void test_options(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(30, "run", "--topo", "ring:4", "--coll", "te", "--sync", "lockstep");
    tu_expect_err(&p, 2, "bad value 'lockstep' for --sync: expected slot or dataflow");
    tu_exec_free(&p);
    static const struct {
        const char *opt, *val, *why;
    } refused[] = {
        {"--idle-slots", "5", "--idle-slots"},
        {"--termination", "detect", "--termination"},
        {"--fault", "1:flip@1", "flip"},
        {"--fault", "1:trickle@1", "trickle"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        p = TU_STEPNET(30, "run", "--topo", "ring:4", "--coll", "te", "--sync", "dataflow",
                       refused[i].opt, refused[i].val);
        tu_expect_err(&p, 2, refused[i].why);
        tu_expect_err(&p, 2, "--sync dataflow");
        tu_exec_free(&p);
    }
    p = TU_STEPNET(30, "bench", "--topo", "ring:4", "--coll", "te", "--sync", "bogus");
    tu_expect_err(&p, 2, "bad value 'bogus' for --sync");
    tu_exec_free(&p);
    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--reps", "1", "--warmup", "0",
                   "--probes", "0", "--json");
    tu_expect_status(&p, 0);
    const char *j = tu_json_line(&p);
    assert_string_equal(tu_jstr(j, "sync"), "slot");
    assert_string_equal(tu_jstr(j, "termination"), "learn");
    tu_exec_free(&p);
    /* the text report says which ran */
    p = TU_STEPNET(60, "run", "--topo", "ring:4", "--coll", "te", "--sync", "dataflow", "--reps",
                   "1", "--warmup", "0", "--probes", "0");
    tu_expect_status(&p, 0);
    if (strstr(p.out, ", sync dataflow,") == NULL)
        fail_msg("%s: the text report does not say sync dataflow:\n%s", p.cmd, p.out);
    tu_exec_free(&p);
}

/* bench --sync dataflow: one receive plan serves every size of the sweep. */
static void test_bench_sizes(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(120, "bench", "--topo", "hypercube:3", "--coll", "bcast", "--sync",
                             "dataflow", "--sizes", "8,70000", "--iters", "2", "--warmup", "0",
                             "--probes", "0", "--json");
    tu_expect_status(&p, 0);
    assert_int_equal(tu_count_str(p.out, "\"sync\":\"dataflow\""), 2);
    assert_int_equal(tu_count_str(p.out, "\"verified\":true"), 2);
    assert_int_equal(tu_count_str(p.out, "\"steps\":3,"), 2);
    tu_exec_free(&p);
}

int main(void)
{
    tu_run_init("test_run_dataflow");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_options, tu_run_teardown),
        cmocka_unit_test_teardown(test_killed_node, tu_run_teardown),
        cmocka_unit_test_teardown(test_stopped_node, tu_run_teardown),
        cmocka_unit_test_teardown(test_bench_sizes, tu_run_teardown),
        cmocka_unit_test_teardown(test_every_algorithm, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
