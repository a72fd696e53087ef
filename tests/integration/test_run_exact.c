/* Integration tests of `stepnet run` against `stepnet sim` (coordinator/ and node/): real
 * stepnet and stepnet-node processes on 127.0.0.1 with port 0 must match the simulator step for
 * step (steps, trace_hash, deliveries, packets) over the topology families, fat trees, file:
 * graphs, every collective, --seed, the port models, packet sizes, --msgs and 64 node processes. */
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
#include "tests/support/tu_run.h"

static void test_exact_families(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "ring:8", "--coll", "te"}},
        {{"--topo", "ring:7", "--coll", "mnb", "--ports", "single"}},
        {{"--topo", "linear:6", "--coll", "bcast"}},
        {{"--topo", "linear:8", "--coll", "te"}},
        {{"--topo", "torus:4x4", "--coll", "te", "--ports", "single"}},
        {{"--topo", "torus:3x5", "--coll", "gather"}},
        {{"--topo", "mesh:3x4", "--coll", "mnb", "--ports", "single"}},
        {{"--topo", "hypercube:3", "--coll", "mnb"}},
        {{"--topo", "hypercube:4", "--coll", "te", "--ports", "single"}},
        {{"--topo", "complete:5", "--coll", "scatter"}},
        {{"--topo", "complete:6", "--coll", "te", "--ports", "single"}},
        {{"--topo", "foldedcube:3", "--coll", "te"}},
        {{"--topo", "circulant:8:1,3", "--coll", "te"}},
        {{"--topo", "ering:7:2", "--coll", "mnb", "--ports", "single"}},
        {{"--topo", "ccc:3", "--coll", "bcast"}},
        {{"--topo", "star:4", "--coll", "mnb"}},
        {{"--topo", "butterfly:3", "--coll", "scatter"}},
        {{"--topo", "ring:3*linear:3", "--coll", "te"}},
        {{"--topo", "mesh:3x3", "--coll", "te", "--duplex", "half"}},                /* te-a3 */
        {{"--topo", "complete:2*complete:2*complete:2*complete:2", "--coll", "te"}}, /* Cor 5.7 */
        /* Varvarigos and Bertsekas on meshes: prefix (control slots), packing, broadcast */
        {{"--topo", "torus:4x4", "--coll", "pmnb", "--m", "8", "--algo", "pmnb-mesh-split",
          "--frags", "4"}},
        {{"--topo", "torus:4x4", "--coll", "pmnb", "--m", "8", "--algo", "pmnb-mesh"}},
        {{"--topo", "mesh:3x3x3", "--coll", "pmnb", "--m", "13", "--algo", "pmnb-mesh-split",
          "--frags", "3"}},
        {{"--topo", "mesh:3x3x3", "--coll", "pmnb", "--m", "13", "--algo", "pmnb-mesh"}},
        {{"--topo", "torus:4x4", "--coll", "mnb", "--algo", "mnb-mesh"}},
        {{"--topo", "torus:4x4", "--coll", "pexchange", "--m", "5", "--algo", "pexchange-mesh"}},
        {{"--topo", "mesh:5x5", "--coll", "pexchange", "--m", "7", "--algo", "pexchange-mesh"}},
    };
    TU_EXACT_ALL(cases);
}

/* Fat trees: the routers are node processes of their own, and a branch of c links is c TCP
 * connections (parallel edges). */
static void test_exact_fattree(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "fattree:2:3:exp", "--coll", "te"}},
        {{"--topo", "fattree:2:3:exp", "--coll", "mnb", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:2:2,3", "--coll", "te"}},
        {{"--topo", "fattree:2:2:2,3", "--coll", "gather", "--ports", "single"}},
        {{"--topo", "fattree:2:3:1,2,4", "--coll", "scatter", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:4:2:const", "--coll", "bcast", "--ports", "single"}},
        {{"--topo", "fattree:3:2:exp", "--coll", "te", "--ports", "single", "--rx", "any"}},
        /* the chapter-6 algorithms (te-fattree, mnb-fattree, ...), both port models */
        {{"--topo", "fattree:2:3", "--coll", "bcast", "--ports", "single", "--root", "5"}},
        {{"--topo", "fattree:2:3", "--coll", "gather", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:3", "--coll", "mnb", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:3", "--coll", "te", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:3", "--coll", "mnb"}},
        {{"--topo", "fattree:2:3", "--coll", "te"}},
        {{"--topo", "fattree:3:2", "--coll", "scatter", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:3:2", "--coll", "mnb", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:3:2", "--coll", "te", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:3:2", "--coll", "bcast"}},
        {{"--topo", "fattree:3:2", "--coll", "mnb", "--algo", "mnb-fattree-qf"}},
        {{"--topo", "fattree:3:2", "--coll", "te", "--algo", "te-fattree-serial"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "mnb", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "te", "--ports", "single", "--rx", "any"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "mnb"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "mnb", "--algo", "mnb-fattree-qf-serial"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "te"}},
        {{"--topo", "fattree:2:4:exp", "--coll", "scatter"}},
    };
    TU_EXACT_ALL(cases);
}

/* A file: graph with a router and a parallel edge (the nodes get the file's text from the
 * coordinator, not from the disk). */
static void test_exact_file_graph(void **state)
{
    (void) state;
    char *path = tu_tmpfile("# integration test graph: a router and a parallel edge\n"
                            "router 4\n"
                            "0 1\n1 2\n2 3\n3 0\n"
                            "0 4\n4 2\n"
                            "1 3\n1 3\n");
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", path);
    const tu_case_t cases[] = {
        {{"--topo", spec, "--coll", "te"}},
        {{"--topo", spec, "--coll", "bcast", "--ports", "single"}},
        {{"--topo", spec, "--coll", "mnb", "--ports", "single", "--rx", "any"}},
        {{"--topo", spec, "--coll", "scatter", "--root", "3", "--msgs", "2"}},
    };
    TU_EXACT_ALL(cases);
    tu_proc_t p = TU_STEPNET(60, "sim", "--topo", spec, "--coll", "te", "--json");
    tu_expect_status(&p, 0);
    assert_int_equal(tu_json_int(tu_json_line(&p), "nodes"), 5);
    assert_int_equal(tu_json_int(p.out, "processors"), 4);
    assert_int_equal(tu_json_int(p.out, "links"), 8);
    tu_exec_free(&p);
    unlink(path);
    free(path);
}

/* Every collective and every algorithm. */
static void test_exact_collectives(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:3x3", "--coll", "bcast", "--root", "4", "--algo", "bcast-bfs"}},
        {{"--topo", "torus:3x3", "--coll", "bcast", "--algo", "bcast-tree", "--ports", "single"}},
        {{"--topo", "ering:14:2", "--coll", "bcast", "--root", "3", "--algo", "bcast-greedy",
          "--ports", "single", "--msgs", "2"}},
        {{"--topo", "hypercube:3", "--coll", "scatter", "--root", "5", "--algo",
          "scatter-balanced"}},
        {{"--topo", "hypercube:3", "--coll", "scatter", "--algo", "scatter-ff"}},
        {{"--topo", "torus:3x4", "--coll", "gather", "--root", "2", "--algo", "gather-balanced"}},
        {{"--topo", "torus:3x4", "--coll", "gather", "--algo", "gather-ff", "--ports", "single"}},
        {{"--topo", "ring:6", "--coll", "mnb", "--algo", "mnb-route"}},
        {{"--topo", "ring:6", "--coll", "te", "--algo", "te-route"}},
        {{"--topo", "ccc:3", "--coll", "te", "--ports", "single", "--rx", "any", "--algo",
          "te-cayley"}},
        {{"--topo", "torus:3x4", "--coll", "te", "--ports", "single", "--msgs", "2", "--algo",
          "te-a2"}},
        {{"--topo", "ring:3*linear:3", "--coll", "te", "--ports", "single"}},
        {{"--topo", "torus:4x4", "--coll", "pmnb", "--sources", "0,3,5", "--algo", "pmnb-route"}},
        {{"--topo", "ring:6", "--coll", "pexchange", "--sources", "1,2", "--ports", "single",
          "--algo", "pexchange-route"}},
        {{"--topo", "hypercube:3", "--coll", "pexchange", "--sources", "0-2,6"}},
        {{"--topo", "torus:3x3", "--coll", "alltoall"}},
        {{"--topo", "torus:3x3", "--coll", "allgather"}},
        /* the thesis's trees (tests/unit/test_thesis_trees.c) */
        {{"--topo", "ering:8:2", "--coll", "bcast", "--root", "3", "--algo", "bcast-ering"}},
        {{"--topo", "mesh:3x2x2", "--coll", "bcast", "--root", "5", "--algo", "bcast-product"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--root", "6", "--algo", "bcast-binomial",
          "--ports", "single"}},
        {{"--topo", "ring:7", "--coll", "scatter", "--root", "2", "--algo", "scatter-ering"}},
        {{"--topo", "ering:9:2", "--coll", "gather", "--algo", "gather-ering"}},
        {{"--topo", "torus:4x4", "--coll", "scatter", "--root", "9", "--algo", "scatter-torus"}},
        {{"--topo", "torus:3x5", "--coll", "gather", "--root", "4", "--algo", "gather-torus"}},
    };
    TU_EXACT_ALL(cases);
}

/* --seed (payload bytes, and the sources drawn by --m): each case three times, since the failure
 * below depends on timing. */
static void test_exact_seed(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:3x3", "--coll", "mnb", "--seed", "5"}},
        {{"--topo", "ring:4", "--coll", "te", "--seed", "3", "--ports", "single"}},
        {{"--topo", "torus:3x3", "--coll", "pmnb", "--m", "3", "--seed", "7"}},
    };
    int bug = 0;
    char bugline[1024] = "";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int k = 0; k < 3; k++) {
            tu_proc_t ps, pr;
            tu_run_pair(cases[i].args, &ps, &pr);
            const char *c = strstr(pr.err, "corrupt payload");
            if (pr.status == 1 && c) {
                bug++;
                tu_last_line(&pr, "stepnet run: ", bugline, sizeof bugline);
            } else {
                tu_expect_same(cases[i].args, &ps, &pr);
            }
            tu_exec_free(&ps);
            tu_exec_free(&pr);
        }
    }
    /* The run seed travels in the Assign: slot-1 frames from a neighbour that got its START
     * first must be checked against it, not against a default. */
    if (bug)
        fail_msg("%d of 9 runs with a --seed other than 1 failed, e.g.: %s", bug, bugline);
}

static void test_exact_port_models(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:4x4", "--coll", "mnb", "--ports", "multi"}},
        {{"--topo", "torus:4x4", "--coll", "mnb", "--ports", "single"}},
        {{"--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--rx", "any"}},
        {{"--topo", "hypercube:3", "--coll", "bcast", "--ports", "single", "--rx", "any"}},
        {{"--topo", "ring:6", "--coll", "mnb", "--duplex", "half"}},
        {{"--topo", "linear:5", "--coll", "scatter", "--ports", "single"}},
    };
    TU_EXACT_ALL(cases);
}

/* Packet sizes 0, 8, 64 KiB and 1 MiB (the large ones on small networks). */
static void test_exact_sizes(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "hypercube:3", "--coll", "te", "--size", "0"}},
        {{"--topo", "torus:3x3", "--coll", "bcast", "--size", "0", "--ports", "single"}},
        {{"--topo", "ring:5", "--coll", "mnb", "--size", "8"}},
        {{"--topo", "ring:4", "--coll", "mnb", "--size", "65536"}},
        {{"--topo", "complete:4", "--coll", "te", "--size", "65536", "--ports", "single"}},
        {{"--topo", "complete:4", "--coll", "te", "--size", "1048576"}},
        {{"--topo", "ring:4", "--coll", "mnb", "--size", "1048576"}},
    };
    TU_EXACT_ALL(cases);
}

static void test_exact_msgs(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "linear:5", "--coll", "scatter", "--msgs", "3"}},
        {{"--topo", "hypercube:3", "--coll", "te", "--msgs", "2", "--ports", "single"}},
        {{"--topo", "ring:6", "--coll", "mnb", "--msgs", "2"}},
        {{"--topo", "torus:3x3", "--coll", "gather", "--msgs", "3", "--ports", "single"}},
        {{"--topo", "ring:4", "--coll", "te", "--msgs", "2", "--size", "65536"}},
    };
    TU_EXACT_ALL(cases);
}

/* 64 node processes on the 2 cores. */
static void test_exact_64_nodes(void **state)
{
    (void) state;
    static const tu_case_t cases[] = {
        {{"--topo", "torus:8x8", "--coll", "te"}},
        {{"--topo", "torus:8x8", "--coll", "mnb", "--ports", "single"}},
    };
    TU_EXACT_ALL(cases);
}

int main(void)
{
    tu_run_init("test_run_exact");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_exact_families, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_fattree, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_file_graph, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_collectives, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_seed, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_port_models, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_sizes, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_msgs, tu_run_teardown),
        cmocka_unit_test_teardown(test_exact_64_nodes, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
