/* Integration tests of `stepnet run` against `stepnet sim` for the algorithm families of the
 * papers (coordinator/ and node/): dynamic broadcasting round by round, the MPI staples (allreduce,
 * barrier, reduce_scatter), the folded cube's combining collectives, the torus framework of
 * Fragopoulou and Akl, the generic multinode broadcasts, the multiport broadcasts of several
 * packets and the broadcasts over arc-disjoint trees, each equal to the simulator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* Dynamic broadcasting over TCP: every round a TCP run of pmnb-mesh-split (torus) or pmnb-fcube
 * (folded cube); the rounds take the same slots as in the simulator, so every per-request delay,
 * and so every statistic, is the simulator's for the same seed. */
static void dynbcast_tcp_equals_sim(const char *topo, const char *rho, const char *slots,
                                    const char *algo)
{
    const char *args[] = {"--topo", topo,  "--coll", "dynbcast", "--rho",  rho,  "--slots", slots,
                          "--tp",   "0.1", "--seed", "7",        "--algo", algo, NULL};
    tu_proc_t ps, pr;
    tu_run_pair(args, &ps, &pr);
    tu_expect_status(&pr, 0);
    const char *js = ps.out, *jr = tu_json_line(&pr);
    assert_true(tu_json_bool(jr, "verified"));
    assert_string_equal(tu_jstr(jr, "cmd"), "run");
    assert_string_equal(tu_jstr(jr, "algorithm"), algo);
    static const char *const ints[] = {"requests",   "measured",   "rounds",        "empty_rounds",
                                       "broadcasts", "deliveries", "control_slots", "data_slots"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (tu_json_int(js, ints[i]) != tu_json_int(jr, ints[i]))
            fail_msg("dynbcast on %s: %s is %lld over TCP, %lld in sim", topo, ints[i],
                     (long long) tu_json_int(jr, ints[i]), (long long) tu_json_int(js, ints[i]));
    static const char *const nums[] = {"delay_mean", "delay_p50", "delay_p99", "delay_max",
                                       "time_units"};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        if (tu_json_num(js, nums[i]) != tu_json_num(jr, nums[i]))
            fail_msg("dynbcast on %s: %s is %g over TCP, %g in sim", topo, nums[i],
                     tu_json_num(jr, nums[i]), tu_json_num(js, nums[i]));
    assert_true(tu_json_int(jr, "rounds") > 3);
    tu_exec_free(&ps);
    tu_exec_free(&pr);
}

static void test_dynbcast_tcp_equals_sim(void **state)
{
    (void) state;
    dynbcast_tcp_equals_sim("torus:4x4", "0.3", "60", "pmnb-mesh-split");
    dynbcast_tcp_equals_sim("torus:3x3", "0.3", "60", "pmnb-mesh"); /* no splitting */
    dynbcast_tcp_equals_sim("foldedcube:3", "0.2", "60", "pmnb-fcube");
}

/* The folded cube (Varvarigos, folded-cube paper): the combining collectives, whose combined
 * values stepnet-node carries as payload bytes derived from the value and checks at every hop. */
static void test_exact_fcube(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "foldedcube:3", "--coll", "sna", "--root", "5"}},
        {{"--topo", "foldedcube:4", "--coll", "sna", "--op", "xor", "--msgs", "2", "--size", "20"}},
        {{"--topo", "foldedcube:3", "--coll", "pmna", "--m", "3", "--op", "max"}},
        {{"--topo", "foldedcube:4", "--coll", "pmna", "--m", "5", "--op", "xor", "--size", "64"}},
        {{"--topo", "foldedcube:4", "--coll", "pmna", "--sources", "0-15"}},
        {{"--topo", "torus:3x3", "--coll", "pmna", "--m", "2", "--ports", "single", "--rx", "any",
          "--algo", "pmna-tree"}},
        {{"--topo", "foldedcube:3", "--coll", "bcast", "--root", "6", "--algo", "bcast-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "mnb"}},
        {{"--topo", "foldedcube:4", "--coll", "mnb", "--msgs", "2"}},
        {{"--topo", "foldedcube:3", "--coll", "te", "--algo", "te-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "te", "--algo", "te-fcube", "--msgs", "3"}},
        {{"--topo", "foldedcube:4", "--coll", "te", "--size", "100"}},
        {{"--topo", "foldedcube:4", "--coll", "te", "--algo", "te-fcube-greedy"}},
        {{"--topo", "foldedcube:4", "--coll", "gather", "--root", "9", "--algo", "gather-fcube"}},
        {{"--topo", "foldedcube:3", "--coll", "scatter", "--root", "2", "--algo", "scatter-fcube"}},
        {{"--topo", "foldedcube:4", "--coll", "pmna", "--m", "7", "--msgs", "2", "--algo",
          "pmna-fcube", "--op", "max", "--size", "24"}},
        /* te-hypercube: every link busy every slot, 2^(d-1) slots per packet of each pair */
        {{"--topo", "hypercube:3", "--coll", "te", "--algo", "te-hypercube"}},
        {{"--topo", "hypercube:4", "--coll", "te", "--algo", "te-hypercube", "--msgs", "2",
          "--size", "100"}},
        {{"--topo", "hypercube:4", "--coll", "mnb", "--ports", "single", "--algo", "mnb-a0"}},
        {{"--topo", "hypercube:4", "--coll", "pmna", "--m", "5", "--ports", "single", "--op",
          "xor"}},
        /* pmnb-fcube: prefix control packets, then the d+1 copies */
        {{"--topo", "foldedcube:3", "--coll", "pmnb", "--sources", "1,2,4,5,6", "--algo",
          "pmnb-fcube", "--tp", "0.25"}},
        {{"--topo", "foldedcube:4", "--coll", "pmnb", "--m", "8", "--seed", "3", "--algo",
          "pmnb-fcube", "--size", "40"}},
    };
    TU_EXACT_ALL(cases);
}

/* The MPI staples over TCP: allreduce (recursive doubling, by dimension, flooding and the tree,
 * routers included), barrier (its default operator and an explicit sum) and mna (reduce_scatter),
 * every operator, several port models; each
 * node checks the combined value it ends with, and the run matches the simulator slot for slot. */
static void test_exact_staples(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--op", "xor", "--size", "100"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--ports", "single", "--msgs", "2"}},
        {{"--topo", "complete:8", "--coll", "allreduce", "--algo", "allreduce-rd", "--msgs", "3"}},
        {{"--topo", "torus:3x4", "--coll", "allreduce", "--msgs", "3", "--op", "max"}},
        {{"--topo", "ring:7", "--coll", "allreduce", "--ports", "single", "--duplex", "half"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "allreduce", "--size", "4096"}},
        {{"--topo", "complete:6", "--coll", "barrier"}},
        {{"--topo", "mesh:3x3", "--coll", "barrier", "--ports", "single", "--size", "0"}},
        {{"--topo", "foldedcube:3", "--coll", "barrier", "--ports", "single", "--op", "max"}},
        {{"--topo", "torus:3x3", "--coll", "reduce_scatter", "--op", "xor"}},
        {{"--topo", "ring:5", "--coll", "mna", "--ports", "single", "--rx", "any", "--msgs", "2"}},
        /* flooding under max (any graph, routers too) and allreduce by dimension on products of
         * complete graphs (sum) */
        {{"--topo", "ring:7", "--coll", "barrier", "--op", "max", "--algo", "barrier-flood"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "allreduce", "--op", "max", "--algo",
          "allreduce-flood", "--size", "100"}},
        {{"--topo", "torus:3x3", "--coll", "allreduce", "--algo", "allreduce-product", "--msgs",
          "2", "--size", "64"}},
        {{"--topo", "complete:3*complete:4", "--coll", "barrier", "--algo", "barrier-product"}},
        /* the idempotent operators min, and, or; barrier's default operator (max: it floods) and
         * an explicit sum, which travels as "absent" and must stay sum on the nodes (the tree) */
        {{"--topo", "torus:3x4", "--coll", "allreduce", "--op", "min", "--algo", "allreduce-flood",
          "--size", "40"}},
        {{"--topo", "mesh:3x3", "--coll", "allreduce", "--op", "and", "--algo", "allreduce-flood"}},
        {{"--topo", "torus:3x3", "--coll", "allreduce", "--op", "or", "--msgs", "2"}},
        {{"--topo", "ring:7", "--coll", "barrier"}},
        {{"--topo", "ring:7", "--coll", "barrier", "--op", "sum"}},
    };
    TU_EXACT_ALL(cases);
}

/* The combining schedules built from broadcasts (core/algo/engine/reverse.c) over TCP in
 * slot mode (test_run_dataflow.c plays them in dataflow mode): sna-reverse (single-port too, which
 * sna-tree does not serve), mna-reverse, allreduce-rsag with fewer packets than processors,
 * fragments and routers, balanced groups (ring:5 with 7 packets: 2 or 1 per processor, 12 slots
 * single-port where groups of 2 take 16), allreduce-rb (a mesh's centre, single-port, routers)
 * and allreduce-window (a schedule too: its windows on a torus and a mesh); every node checks the
 * combined values it ends with, and the run matches the simulator slot for slot. */
static void test_exact_reversed(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "hypercube:3", "--coll", "sna", "--algo", "sna-reverse", "--msgs", "6",
          "--root", "5"}},
        {{"--topo", "torus:3x3", "--coll", "sna", "--algo", "sna-reverse", "--ports", "single",
          "--msgs", "3", "--op", "xor"}},
        {{"--topo", "ring:6", "--coll", "mna", "--algo", "mna-reverse", "--msgs", "2", "--size",
          "100"}},
        {{"--topo", "torus:3x3", "--coll", "mna", "--algo", "mna-reverse", "--ports", "single"}},
        {{"--topo", "ring:8", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs", "16",
          "--size", "64"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs", "3",
          "--frags", "2", "--op", "max"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs",
          "5", "--ports", "single"}},
        {{"--topo", "ring:5", "--coll", "allreduce", "--algo", "allreduce-rsag", "--msgs", "7",
          "--ports", "single"}},
        {{"--topo", "mesh:3x3", "--coll", "allreduce", "--algo", "allreduce-rb", "--msgs", "4",
          "--ports", "single", "--size", "64"}},
        {{"--topo", "hypercube:3", "--coll", "allreduce", "--algo", "allreduce-rb", "--msgs", "3",
          "--frags", "2", "--op", "max"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "allreduce", "--algo", "allreduce-rb", "--msgs",
          "2", "--duplex", "half"}},
        {{"--topo", "torus:3x4", "--coll", "allreduce", "--algo", "allreduce-window", "--msgs", "2",
          "--frags", "2", "--op", "xor"}},
        {{"--topo", "mesh:2x3", "--coll", "allreduce", "--algo", "allreduce-window"}},
        {{"--topo", "torus:3x4", "--coll", "allreduce", "--algo", "allreduce-window", "--ports",
          "single", "--msgs", "2"}},
    };
    TU_EXACT_ALL(cases);
}

/* The torus framework of Fragopoulou and Akl: every collective on 2-D and 3-D tori, odd and even
 * k, with M a multiple of the splitting modulus L and one that is not (the padding variant). */
static void test_exact_torus_framework(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:4x4", "--coll", "bcast", "--algo", "bcast-bst", "--msgs", "3"}},
        {{"--topo", "torus:4x4", "--coll", "mnb", "--algo", "mnb-bsg", "--msgs", "4"}},
        {{"--topo", "torus:4x4", "--coll", "scatter", "--algo", "scatter-bsg", "--msgs", "4"}},
        {{"--topo", "torus:4x4", "--coll", "gather", "--algo", "gather-bsg", "--msgs", "5"}},
        {{"--topo", "torus:4x4", "--coll", "te", "--algo", "te-mns", "--msgs", "4"}},
        {{"--topo", "torus:3x3x3", "--coll", "bcast", "--algo", "bcast-bst", "--msgs", "2"}},
        {{"--topo", "torus:3x3x3", "--coll", "mnb", "--algo", "mnb-bsg", "--msgs", "3"}},
        {{"--topo", "torus:3x3x3", "--coll", "scatter", "--algo", "scatter-bsg", "--msgs", "1"}},
        {{"--topo", "torus:3x3x3", "--coll", "gather", "--algo", "gather-bsg", "--msgs", "3"}},
        {{"--topo", "torus:3x3x3", "--coll", "te", "--algo", "te-mns", "--msgs", "3"}},
        {{"--topo", "torus:5x5", "--coll", "bcast", "--algo", "bcast-bst"}},
        {{"--topo", "torus:5x5", "--coll", "mnb", "--algo", "mnb-bsg", "--msgs", "2"}},
        {{"--topo", "torus:5x5", "--coll", "scatter", "--algo", "scatter-bsg"}},
        {{"--topo", "torus:5x5", "--coll", "gather", "--algo", "gather-bsg", "--msgs", "2"}},
        {{"--topo", "torus:5x5", "--coll", "te", "--algo", "te-mns"}},
    };
    TU_EXACT_ALL(cases);
}

/* The generic multinode broadcasts: balanced per-source trees (multiport), the single-port
 * pipeline around a Hamiltonian cycle and the translated tree of Cayley graphs; and the
 * single-port broadcasts of several packets (one tree per packet; a matching per slot). */
static void test_exact_mnb_generic(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "hypercube:4", "--coll", "mnb", "--algo", "mnb-balanced"}},
        {{"--topo", "mesh:3x4", "--coll", "mnb", "--algo", "mnb-balanced", "--msgs", "2"}},
        {{"--topo", "hypercube:3", "--coll", "mnb", "--algo", "mnb-cycle", "--ports", "single",
          "--msgs", "2"}},
        {{"--topo", "torus:3x4", "--coll", "mnb", "--algo", "mnb-cycle", "--ports", "single",
          "--duplex", "half"}},
        {{"--topo", "hypercube:4", "--coll", "bcast", "--algo", "bcast-multitree", "--ports",
          "single", "--msgs", "3"}},
        {{"--topo", "hypercube:4", "--coll", "bcast", "--algo", "bcast-match", "--ports", "single",
          "--msgs", "5"}},
        {{"--topo", "torus:3x4", "--coll", "bcast", "--algo", "bcast-match", "--ports", "single",
          "--rx", "any", "--msgs", "3", "--root", "7"}},
        {{"--topo", "hypercube:4", "--coll", "mnb", "--algo", "mnb-cayley"}},
        {{"--topo", "mesh:3x8", "--coll", "mnb", "--algo", "mnb-gossip"}},
        {{"--topo", "mesh:2x3x4", "--coll", "mnb", "--algo", "mnb-gossip", "--msgs", "2"}},
        {{"--topo", "star:4", "--coll", "mnb", "--algo", "mnb-cayley", "--ports", "single"}},
        {{"--topo", "mesh:3x3", "--coll", "mnb", "--algo", "mnb-match", "--ports", "single"}},
        {{"--topo", "mesh:3x5", "--coll", "mnb", "--algo", "mnb-match", "--ports", "single", "--rx",
          "any", "--msgs", "2"}},
        {{"--topo", "mesh:3x4", "--coll", "mnb", "--algo", "mnb-cycle", "--ports", "single"}},
        {{"--topo", "torus:3x5", "--coll", "mnb", "--algo", "mnb-cayley", "--msgs", "2"}},
    };
    TU_EXACT_ALL(cases);
}

/* The multiport broadcasts of several packets at the root's capacity: arc-disjoint spanning
 * trees (bcast-arbor) and the rarest-first rule (bcast-gossip, full and half duplex). */
static void test_exact_bcast_capacity(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:4x4", "--coll", "bcast", "--algo", "bcast-arbor", "--msgs", "8"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-arbor", "--msgs", "3",
          "--frags", "2", "--root", "5"}},
        {{"--topo", "hypercube:4", "--coll", "bcast", "--algo", "bcast-gossip", "--msgs", "8"}},
        {{"--topo", "torus:3x4", "--coll", "bcast", "--algo", "bcast-gossip", "--duplex", "half",
          "--msgs", "5", "--root", "7"}},
    };
    TU_EXACT_ALL(cases);
}

/* `stepnet run ARGS` in both execution modes (the slot barrier and dataflow) against `stepnet
 * sim ARGS`: the same steps, trace, deliveries and packets. */
static void expect_exact_both_modes(const tu_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tu_expect_exact(cases[i].args);
        tu_av_t s = {0}, r = {0};
        TU_AV_ADD(&s, "sim");
        tu_av_addv(&s, cases[i].args);
        TU_AV_ADD(&s, "--json");
        TU_AV_ADD(&r, "run");
        tu_av_addv(&r, cases[i].args);
        TU_AV_ADD(&r, "--sync", "dataflow", "--json", "--reps", "2", "--warmup", "0", "--probes",
                  "2");
        tu_proc_t ps = tu_stepnet(60, s.v);
        tu_expect_status(&ps, 0);
        tu_json_line(&ps);
        tu_proc_t pr = tu_stepnet(120, r.v);
        tu_expect_same(cases[i].args, &ps, &pr);
        assert_string_equal(tu_jstr(tu_json_line(&pr), "sync"), "dataflow");
        tu_exec_free(&ps);
        tu_exec_free(&pr);
    }
}

/* The broadcasts of M packets over arc-disjoint trees (multiport): the d spanning binomial trees
 * of the hypercube, the d+1 trees of the folded cube and the N-1 depth-2 trees of the complete
 * graph, roots other than 0, a number of packets that the trees do not divide, fragments, and one
 * packet (the binomial tree); in both execution modes. */
static void test_exact_bcast_trees(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "hypercube:4", "--coll", "bcast", "--algo", "bcast-edst", "--msgs", "9",
          "--root", "5"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-edst", "--msgs", "3",
          "--frags", "2", "--size", "40"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--algo", "bcast-edst", "--root", "6"}},
        {{"--topo", "foldedcube:4", "--coll", "bcast", "--algo", "bcast-edst", "--msgs", "12",
          "--root", "9"}},
        {{"--topo", "complete:8", "--coll", "bcast", "--algo", "bcast-twolevel", "--msgs", "16",
          "--root", "3"}},
        {{"--topo", "complete:6", "--coll", "bcast", "--algo", "bcast-twolevel", "--msgs", "6",
          "--frags", "2", "--size", "24"}},
        {{"--topo", "complete:5", "--coll", "bcast", "--algo", "bcast-twolevel", "--msgs", "9"}},
    };
    expect_exact_both_modes(cases, sizeof cases / sizeof *cases);
}

int main(void)
{
    tu_run_init("test_run_exact_algos");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_dynbcast_tcp_equals_sim, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_fcube, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_staples, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_reversed, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_torus_framework, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_mnb_generic, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_bcast_capacity, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_bcast_trees, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
