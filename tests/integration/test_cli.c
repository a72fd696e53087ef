/* Tests of the stepnet command line contract (the JSON reports and exit statuses that README.md
 * describes): runs the real binary named by $STEPNET (tu_exec: stdout and stderr captured apart,
 * 60 s deadline per run) and checks the one-line JSON objects of sim, model and algos, --help,
 * --version, determinism, aliases, partial collectives, and the exit statuses 0/1/2 with one
 * stderr line naming the bad value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "generated/stepnet_version.h"
#include "tests/support/testutil.h"

#ifndef RUN_DEADLINE_S
#define RUN_DEADLINE_S 60
#endif

/* ---- running the binary (tu_exec) and reading its JSON (tu_json_*) ---- */

/* Runs $STEPNET with the NULL-terminated args; fails the test if it cannot start or exceeds the
 * deadline (then it is killed). */
static tu_proc_t run_(const char *const *args)
{
    tu_exec_opts_t o = {.name = "stepnet", .deadline_s = RUN_DEADLINE_S};
    return tu_exec(tu_env_bin("STEPNET"), args, &o);
}

#define RUN(...) run_((const char *const[]){__VA_ARGS__, NULL})

/* The whole reproduction table: about 400 simulated cases, some 20 s of CPU in the plain build and
 * several times that under ASan+UBSan, so it gets a deadline of its own. */
#define TABLE_DEADLINE_S 900

static tu_proc_t run_table(void)
{
    tu_exec_opts_t o = {.name = "stepnet", .deadline_s = TABLE_DEADLINE_S};
    return tu_exec(tu_env_bin("STEPNET"), (const char *const[]){"table", NULL}, &o);
}

/* Runs, expects exit 0 and one JSON object on one line. */
#define RUN_JSON(r, ...)                                                                           \
    do {                                                                                           \
        (r) = RUN(__VA_ARGS__);                                                                    \
        tu_expect_status(&(r), 0);                                                                 \
        tu_json_line(&(r));                                                                        \
    } while (0)

static void expect_str(const char *obj, const char *key, const char *want)
{
    char buf[256];
    tu_json_str(obj, key, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("JSON field \"%s\" is \"%s\", want \"%s\"", key, buf, want);
}

/* ---- tests ---- */

static void test_sim_json_contract(void **state)
{
    (void) state;
    tu_proc_t r;
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--json");
    const char *j = r.out;
    for (size_t i = 0; tu_contract_fields[i]; i++)
        tu_json_need(j, tu_contract_fields[i]);
    expect_str(j, "cmd", "sim");
    expect_str(j, "topology", "torus:4x4");
    expect_str(j, "collective", "te");
    expect_str(j, "ports", "single");
    expect_str(j, "rx", "one");
    expect_str(j, "duplex", "full");
    assert_int_equal(tu_json_int(j, "nodes"), 16);
    assert_int_equal(tu_json_int(j, "processors"), 16);
    assert_int_equal(tu_json_int(j, "links"), 32);
    char algo[64], hash[64];
    assert_true(strlen(tu_json_str(j, "algorithm", algo, sizeof algo)) > 0);
    if (!tu_json_is_null(j, "predicted_steps"))
        assert_true(tu_json_int(j, "predicted_steps") >= tu_json_int(j, "lower_bound"));
    int64_t steps = tu_json_int(j, "steps");
    assert_true(steps >= tu_json_int(j, "lower_bound"));
    assert_true(tu_json_int(j, "lower_bound") > 0);
    assert_true(tu_json_int(j, "control_slots") >= 0);
    assert_true(tu_json_int(j, "packets") >= 240);
    assert_int_equal(tu_json_int(j, "deliveries"), 240);
    assert_int_equal(tu_json_int(j, "expected_deliveries"), 240);
    assert_true(tu_json_bool(j, "verified"));
    assert_true(strlen(tu_json_str(j, "trace_hash", hash, sizeof hash)) > 0);
    tu_exec_free(&r);

    /* the port model words follow the options */
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--duplex", "half", "--json");
    expect_str(r.out, "ports", "multi");
    expect_str(r.out, "duplex", "half");
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "bcast", "--ports", "single", "--rx", "any",
             "--json");
    expect_str(r.out, "rx", "any");
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);

    /* --msgs multiplies the deliveries; --name=value works as --name value */
    RUN_JSON(r, "sim", "--topo=torus:4x4", "--coll=te", "--msgs", "2", "--json");
    assert_int_equal(tu_json_int(r.out, "deliveries"), 480);
    assert_int_equal(tu_json_int(r.out, "expected_deliveries"), 480);
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);

    /* --frags splits every packet: deliveries counted per fragment, and time_units counts a data
     * slot as 1/frags (no control packets here, so control_slots = 0 and data_slots = steps) */
    RUN_JSON(r, "sim", "--topo", "ring:8", "--coll", "bcast", "--frags", "4", "--tp", "0.25",
             "--json");
    assert_int_equal(tu_json_int(r.out, "frags"), 4);
    assert_true(tu_json_num(r.out, "tp") == 0.25);
    assert_int_equal(tu_json_int(r.out, "deliveries"), 28);
    assert_int_equal(tu_json_int(r.out, "control_slots"), 0);
    assert_int_equal(tu_json_int(r.out, "data_slots"), tu_json_int(r.out, "steps"));
    assert_true(tu_json_num(r.out, "time_units") == (double) tu_json_int(r.out, "steps") / 4.0);
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);
    /* dynamic broadcasting: rounds of verified partial multinode broadcasts, delays in time units
     * next to the bound (11) and the stability limit (14) */
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--rho", "0.3", "--slots",
             "400", "--tp", "0.1", "--json");
    expect_str(r.out, "collective", "dynbcast");
    assert_int_equal(tu_json_int(r.out, "frags"), 4);
    assert_true(tu_json_bool(r.out, "verified"));
    assert_int_equal(tu_json_int(r.out, "broadcasts"), tu_json_int(r.out, "requests"));
    assert_true(tu_json_num(r.out, "delay_mean") > 0);
    assert_true(tu_json_num(r.out, "delay_mean") < tu_json_num(r.out, "delay_bound"));
    assert_true(tu_json_num(r.out, "delay_p50") <= tu_json_num(r.out, "delay_max"));
    assert_true(tu_json_num(r.out, "rho_star") > 0.3);
    assert_true(tu_json_num(r.out, "rho") == 0.3 || tu_json_num(r.out, "rho") > 0.2999);
    tu_json_need(r.out, "delay_ci95");
    tu_json_need(r.out, "delay_p99");
    tu_exec_free(&r);
    RUN_JSON(r, "sim", "--topo", "ring:8", "--coll", "bcast", "--json");
    assert_int_equal(tu_json_int(r.out, "frags"), 1);
    assert_true(tu_json_num(r.out, "tp") == 1.0);
    assert_true(tu_json_num(r.out, "time_units") == (double) tu_json_int(r.out, "steps"));
    tu_exec_free(&r);
}

/* Reads `algos --json` into parallel arrays name -> collective. */
#define MAX_ALGOS 128

typedef struct algo_list_s {
    size_t n;
    char name[MAX_ALGOS][64];
    char coll[MAX_ALGOS][32];
} algo_list_t;

static void read_algos(const char *j, algo_list_t *al)
{
    const char *p = tu_json_need(j, "algorithms");
    assert_int_equal(*p, '[');
    al->n = 0;
    p = tu_json_ws(p + 1);
    while (*p != ']') {
        assert_int_equal(*p, '{');
        assert_true(al->n < MAX_ALGOS);
        char pm[128], src[512];
        tu_json_str(p, "name", al->name[al->n], sizeof al->name[0]);
        tu_json_str(p, "collective", al->coll[al->n], sizeof al->coll[0]);
        tu_json_str(p, "port_models", pm, sizeof pm);
        tu_json_str(p, "source", src, sizeof src);
        assert_true(strlen(al->name[al->n]) > 0);
        assert_true(strlen(pm) > 0);
        assert_true(strlen(src) > 0);
        for (size_t i = 0; i < al->n; i++)
            if (strcmp(al->name[i], al->name[al->n]) == 0)
                fail_msg("algos lists %s twice", al->name[i]);
        al->n++;
        p = tu_json_ws(tu_json_skip(p));
        if (*p == ',')
            p = tu_json_ws(p + 1);
    }
}

static const char *algo_coll(const algo_list_t *al, const char *name)
{
    for (size_t i = 0; i < al->n; i++)
        if (strcmp(al->name[i], name) == 0)
            return al->coll[i];
    fail_msg("algorithm %s is not listed by algos", name);
    return NULL;
}

static void test_algos_json(void **state)
{
    (void) state;
    static const char *const colls[] = {"bcast", "scatter", "gather",   "mnb",
                                        "te",    "pmnb",    "pexchange"};
    tu_proc_t r;
    RUN_JSON(r, "algos", "--json");
    expect_str(r.out, "cmd", "algos");
    algo_list_t *al = calloc(1, sizeof *al);
    assert_non_null(al);
    read_algos(r.out, al);
    for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) {
        int found = 0;
        for (size_t i = 0; i < al->n; i++)
            found += strcmp(al->coll[i], colls[c]) == 0;
        if (!found)
            fail_msg("algos lists no algorithm for %s", colls[c]);
    }
    tu_exec_free(&r);

    /* --coll filters, and takes the MPI alias */
    RUN_JSON(r, "algos", "--coll", "broadcast", "--json");
    algo_list_t *sub = calloc(1, sizeof *sub);
    assert_non_null(sub);
    read_algos(r.out, sub);
    assert_true(sub->n > 0);
    for (size_t i = 0; i < sub->n; i++)
        assert_string_equal(sub->coll[i], "bcast");
    tu_exec_free(&r);

    /* the text listing names every algorithm */
    r = RUN("algos");
    tu_expect_status(&r, 0);
    for (size_t i = 0; i < al->n; i++)
        if (strstr(r.out, al->name[i]) == NULL)
            fail_msg("`stepnet algos` does not show %s", al->name[i]);
    tu_exec_free(&r);
    free(sub);
    free(al);
}

static void test_model_json_contract(void **state)
{
    (void) state;
    static const char *const fields[] = {"cmd",    "topology",   "nodes",           "processors",
                                         "links",  "collective", "ports",           "rx",
                                         "duplex", "algorithm",  "predicted_steps", "lower_bound",
                                         "bounds", "candidates"};
    tu_proc_t r;
    RUN_JSON(r, "algos", "--json");
    algo_list_t *al = calloc(1, sizeof *al);
    assert_non_null(al);
    read_algos(r.out, al);
    tu_exec_free(&r);

    RUN_JSON(r, "model", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--json");
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        tu_json_need(r.out, fields[i]);
    expect_str(r.out, "cmd", "model");
    expect_str(r.out, "collective", "te");
    expect_str(r.out, "ports", "single");
    assert_int_equal(tu_json_int(r.out, "nodes"), 16);
    assert_int_equal(tu_json_int(r.out, "processors"), 16);
    assert_int_equal(tu_json_int(r.out, "links"), 32);
    assert_true(tu_json_int(r.out, "lower_bound") > 0);
    assert_null(tu_json_get(r.out, "steps"));
    assert_null(tu_json_get(r.out, "trace_hash"));
    tu_exec_free(&r);

    /* candidates: only algorithms of the collective, the chosen one among them with the lowest
     * prediction (auto picks the lowest predicted steps) */
    static const char *const cases[][3] = {{"hypercube:4", "bcast", "single"},
                                           {"torus:4x4", "scatter", "multi"},
                                           {"ring:9", "gather", "single"},
                                           {"torus:4x4", "te", "multi"},
                                           {"mesh:3x4", "mnb", "single"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        RUN_JSON(r, "model", "--topo", cases[k][0], "--coll", cases[k][1], "--ports", cases[k][2],
                 "--json");
        const char *j = r.out;
        char chosen[64];
        tu_json_str(j, "algorithm", chosen, sizeof chosen);
        assert_string_equal(algo_coll(al, chosen), cases[k][1]);
        int64_t pred =
            tu_json_is_null(j, "predicted_steps") ? -1 : tu_json_int(j, "predicted_steps");
        if (pred >= 0)
            assert_true(pred >= tu_json_int(j, "lower_bound"));
        const char *p = tu_json_need(j, "candidates");
        assert_int_equal(*p, '[');
        p = tu_json_ws(p + 1);
        int seen_chosen = 0, ncand = 0;
        int64_t best = -1;
        while (*p != ']') {
            char name[64];
            tu_json_str(p, "algorithm", name, sizeof name);
            if (strcmp(algo_coll(al, name), cases[k][1]) != 0)
                fail_msg("%s: candidate %s is for %s", r.cmd, name, algo_coll(al, name));
            if (!tu_json_is_null(p, "predicted_steps")) {
                int64_t cp = tu_json_int(p, "predicted_steps");
                if (best < 0 || cp < best)
                    best = cp;
                if (strcmp(name, chosen) == 0)
                    assert_int_equal(cp, pred);
            }
            seen_chosen += strcmp(name, chosen) == 0;
            ncand++;
            p = tu_json_ws(tu_json_skip(p));
            if (*p == ',')
                p = tu_json_ws(p + 1);
        }
        if (seen_chosen != 1)
            fail_msg("%s: chosen %s appears %d times among candidates", r.cmd, chosen, seen_chosen);
        if (best >= 0 && pred != best)
            fail_msg("%s: auto chose %s (%lld) but a candidate predicts %lld", r.cmd, chosen,
                     (long long) pred, (long long) best);
        assert_true(ncand >= 1);
        tu_exec_free(&r);
    }
    free(al);
}

static void test_sim_text_output(void **state)
{
    (void) state;
    tu_proc_t r = RUN("sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single");
    tu_expect_status(&r, 0);
    assert_true(r.out[0] != '{');
    assert_non_null(strstr(r.out, "steps"));
    assert_non_null(strstr(r.out, "verified"));
    assert_null(strstr(r.out, "NOT verified"));
    assert_true(tu_count_char(r.out, '\n') > 1);
    tu_exec_free(&r);

    /* the folded-cube PMNB: control slots in time units, eq. (4) beside them (the worked example:
     * 6 data + 12 control slots x 0.1 = 7.2, eq. (4) 7 + 12 x 0.1 = 8.2) */
    r = RUN("sim", "--topo", "foldedcube:3", "--coll", "pmnb", "--sources", "1,2,4,5,6", "--algo",
            "pmnb-fcube", "--tp", "0.1");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "control         12 slots"));
    assert_non_null(strstr(r.out, "time            7.2 time units"));
    assert_non_null(strstr(r.out, "eq. (4)         8.2 time units"));
    tu_exec_free(&r);

    r = RUN("model", "--topo", "hypercube:4", "--coll", "bcast");
    tu_expect_status(&r, 0);
    assert_true(r.out[0] != '{');
    assert_non_null(strstr(r.out, "predicted"));
    assert_non_null(strstr(r.out, "lower bound"));
    tu_exec_free(&r);
}

/* With --json stdout is one line even with progress logging on and a longer run. */
static void test_json_stdout_one_line(void **state)
{
    (void) state;
    tu_proc_t r;
    RUN_JSON(r, "sim", "--topo", "torus:8x8", "--coll", "te", "--ports", "single", "--progress",
             "--json");
    assert_true(tu_json_bool(r.out, "verified"));
    assert_int_equal(tu_json_int(r.out, "deliveries"), 64 * 63);
    tu_exec_free(&r);
    RUN_JSON(r, "model", "--topo", "hypercube:5", "--coll", "mnb", "--json");
    tu_exec_free(&r);
}

static void test_determinism(void **state)
{
    (void) state;
    static const char *const cases[][3] = {{"torus:6x6", "te", "single"},
                                           {"hypercube:5", "mnb", "multi"},
                                           {"fattree:2:3:exp", "scatter", "single"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tu_proc_t a, b;
        RUN_JSON(a, "sim", "--topo", cases[k][0], "--coll", cases[k][1], "--ports", cases[k][2],
                 "--json");
        RUN_JSON(b, "sim", "--topo", cases[k][0], "--coll", cases[k][1], "--ports", cases[k][2],
                 "--json");
        char ha[64], hb[64];
        assert_int_equal(tu_json_int(a.out, "steps"), tu_json_int(b.out, "steps"));
        assert_int_equal(tu_json_int(a.out, "packets"), tu_json_int(b.out, "packets"));
        assert_string_equal(tu_json_str(a.out, "trace_hash", ha, sizeof ha),
                            tu_json_str(b.out, "trace_hash", hb, sizeof hb));
        tu_exec_free(&a);
        tu_exec_free(&b);
    }
}

static void expect_bad(const tu_proc_t *r, const char *needle, const char *needle2);

/* --threads: a run large enough to split its slots (hypercube:9, 512 nodes, every one active)
 * gives the serial result on 2 and 3 threads, and says how many ran; an algorithm whose steps are
 * not marked independent runs on one and says why; bad counts are refused. */
static void test_sim_threads(void **state)
{
    (void) state;
    tu_proc_t one, two, three;
    RUN_JSON(one, "sim", "--topo", "hypercube:9", "--coll", "te", "--algo", "te-route", "--threads",
             "1", "--json");
    RUN_JSON(two, "sim", "--topo", "hypercube:9", "--coll", "te", "--algo", "te-route", "--threads",
             "2", "--json");
    RUN_JSON(three, "sim", "--topo", "hypercube:9", "--coll", "te", "--algo", "te-route",
             "--threads", "3", "--json");
    static const char *const same[] = {"steps", "packets", "deliveries", "node_steps", "max_queue"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        assert_int_equal(tu_json_int(one.out, same[i]), tu_json_int(two.out, same[i]));
        assert_int_equal(tu_json_int(one.out, same[i]), tu_json_int(three.out, same[i]));
    }
    char h1[64], h2[64], h3[64];
    assert_string_equal(tu_json_str(one.out, "trace_hash", h1, sizeof h1),
                        tu_json_str(two.out, "trace_hash", h2, sizeof h2));
    assert_string_equal(h1, tu_json_str(three.out, "trace_hash", h3, sizeof h3));
    assert_true(tu_json_bool(two.out, "verified"));
    assert_int_equal(tu_json_int(one.out, "threads"), 1);
    assert_non_null(strstr(tu_json_str(one.out, "threads_note", h1, sizeof h1), "one thread"));
    assert_int_equal(tu_json_int(two.out, "threads"), 2);
    assert_true(tu_json_is_null(two.out, "threads_note"));
    assert_int_equal(tu_json_int(three.out, "threads"), 3);
    tu_exec_free(&one);
    tu_exec_free(&two);
    tu_exec_free(&three);

    tu_proc_t r;
    RUN_JSON(r, "sim", "--topo", "ring:16", "--coll", "te", "--algo", "te-ring", "--threads", "2",
             "--json");
    assert_int_equal(tu_json_int(r.out, "threads"), 1);
    assert_non_null(strstr(tu_json_str(r.out, "threads_note", h1, sizeof h1), "not marked"));
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "ring:16", "--coll", "te", "--threads", "2");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "1 thread (the algorithm's steps are not marked independent)"));
    tu_exec_free(&r);
    static const char *const bad[] = {"0", "65", "x", "-2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = RUN("sim", "--topo", "ring:16", "--coll", "te", "--threads", bad[i]);
        expect_bad(&r, "--threads", "threads from 1 to 64");
        tu_exec_free(&r);
    }
}

static void test_aliases(void **state)
{
    (void) state;
    static const char *const pairs[][2] = {
        {"broadcast", "bcast"}, {"allgather", "mnb"}, {"alltoall", "te"}, {"reduce", "sna"}};
    static const char *const topos[] = {"hypercube:3", "torus:4x4"};
    for (size_t t = 0; t < 2; t++)
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
            tu_proc_t a, b;
            RUN_JSON(a, "sim", "--topo", topos[t], "--coll", pairs[k][0], "--json");
            RUN_JSON(b, "sim", "--topo", topos[t], "--coll", pairs[k][1], "--json");
            char x[64], y[64];
            expect_str(a.out, "collective", pairs[k][1]);
            assert_true(tu_json_bool(a.out, "verified"));
            assert_string_equal(tu_json_str(a.out, "algorithm", x, sizeof x),
                                tu_json_str(b.out, "algorithm", y, sizeof y));
            assert_int_equal(tu_json_int(a.out, "steps"), tu_json_int(b.out, "steps"));
            assert_int_equal(tu_json_int(a.out, "deliveries"), tu_json_int(b.out, "deliveries"));
            assert_string_equal(tu_json_str(a.out, "trace_hash", x, sizeof x),
                                tu_json_str(b.out, "trace_hash", y, sizeof y));
            tu_exec_free(&a);
            tu_exec_free(&b);
        }
}

/* The combining collectives report their operator (JSON "op", text "operator"), and only they. */
static void test_combining_op(void **state)
{
    (void) state;
    tu_proc_t a;
    RUN_JSON(a, "sim", "--topo", "foldedcube:3", "--coll", "pmna", "--m", "3", "--op", "xor",
             "--json");
    expect_str(a.out, "op", "xor");
    expect_str(a.out, "algorithm", "pmna-fcube");
    assert_true(tu_json_bool(a.out, "verified"));
    assert_int_equal(tu_json_int(a.out, "deliveries"), 3);
    tu_exec_free(&a);
    RUN_JSON(a, "sim", "--topo", "ring:5", "--coll", "reduce", "--json");
    expect_str(a.out, "op", "sum");
    expect_str(a.out, "collective", "sna");
    assert_true(tu_json_bool(a.out, "verified"));
    tu_exec_free(&a);
    RUN_JSON(a, "sim", "--topo", "ring:5", "--coll", "te", "--json");
    assert_null(tu_json_get(a.out, "op"));
    tu_exec_free(&a);
    tu_proc_t r = RUN("sim", "--topo", "foldedcube:3", "--coll", "sna", "--op", "max");
    tu_expect_status(&r, 0);
    if (strstr(r.out, "operator        max") == NULL)
        fail_msg("no operator line: %s", r.out);
    tu_exec_free(&r);
}

static void test_predicted_equals_steps(void **state)
{
    (void) state;
    static const char *const topos[] = {"ring:9", "torus:5x5", "hypercube:4", "fattree:2:3:exp"};
    static const char *const colls[] = {"bcast", "scatter", "gather"};
    static const char *const ports[] = {"multi", "single"};
    for (size_t t = 0; t < 4; t++)
        for (size_t c = 0; c < 3; c++)
            for (size_t p = 0; p < 2; p++) {
                tu_proc_t r;
                RUN_JSON(r, "sim", "--topo", topos[t], "--coll", colls[c], "--ports", ports[p],
                         "--json");
                const char *j = r.out;
                assert_true(tu_json_bool(j, "verified"));
                assert_int_equal(tu_json_int(j, "deliveries"),
                                 tu_json_int(j, "expected_deliveries"));
                int64_t steps = tu_json_int(j, "steps");
                if (tu_json_is_null(j, "predicted_steps"))
                    fail_msg("%s: no prediction", r.cmd);
                if (tu_json_int(j, "predicted_steps") != steps)
                    fail_msg("%s: predicted %lld, measured %lld", r.cmd,
                             (long long) tu_json_int(j, "predicted_steps"), (long long) steps);
                assert_true(steps >= tu_json_int(j, "lower_bound"));
                tu_exec_free(&r);
            }
}

static void expect_sources(const char *j, const int64_t *want, size_t n)
{
    int64_t got[64];
    size_t m = tu_json_ints(j, "sources", got, 64);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

static void test_partial_sources(void **state)
{
    (void) state;
    static const char *const colls[] = {"pmnb", "pexchange"};
    static const struct {
        const char *list;
        size_t n;
        int64_t want[4];
    } lists[] = {{"0,3,5", 3, {0, 3, 5}}, {"0-3", 4, {0, 1, 2, 3}}, {"5,0-2", 4, {0, 1, 2, 5}}};
    for (size_t c = 0; c < 2; c++)
        for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
            tu_proc_t r;
            RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--sources",
                     lists[k].list, "--json");
            expect_str(r.out, "collective", colls[c]);
            expect_sources(r.out, lists[k].want, lists[k].n);
            assert_true(tu_json_bool(r.out, "verified"));
            /* every source reaches the 15 other processors */
            assert_int_equal(tu_json_int(r.out, "expected_deliveries"), (int64_t) lists[k].n * 15);
            assert_int_equal(tu_json_int(r.out, "deliveries"),
                             tu_json_int(r.out, "expected_deliveries"));
            tu_exec_free(&r);
            RUN_JSON(r, "model", "--topo", "torus:4x4", "--coll", colls[c], "--sources",
                     lists[k].list, "--json");
            expect_sources(r.out, lists[k].want, lists[k].n);
            tu_exec_free(&r);
        }
}

static void test_partial_m_seed(void **state)
{
    (void) state;
    static const char *const colls[] = {"pmnb", "pexchange"};
    for (size_t c = 0; c < 2; c++) {
        tu_proc_t a, b;
        RUN_JSON(a, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed", "7",
                 "--json");
        RUN_JSON(b, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed", "7",
                 "--json");
        int64_t sa[8], sb[8];
        size_t na = tu_json_ints(a.out, "sources", sa, 8),
               nb = tu_json_ints(b.out, "sources", sb, 8);
        assert_int_equal(na, 4);
        assert_int_equal(nb, 4);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(sa[i], sb[i]);
            assert_in_range(sa[i], 0, 15);
            if (i > 0)
                assert_true(sa[i] > sa[i - 1]); /* distinct (and listed in order) */
        }
        assert_int_equal(tu_json_int(a.out, "seed"), 7);
        assert_true(tu_json_bool(a.out, "verified"));
        assert_int_equal(tu_json_int(a.out, "expected_deliveries"), 4 * 15);
        char x[64], y[64];
        assert_string_equal(tu_json_str(a.out, "trace_hash", x, sizeof x),
                            tu_json_str(b.out, "trace_hash", y, sizeof y));
        /* the seed matters: some other seed draws another set */
        int differs = 0;
        for (int s = 1; s <= 6 && !differs; s++) {
            char seed[8];
            snprintf(seed, sizeof seed, "%d", s);
            tu_proc_t o;
            RUN_JSON(o, "model", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed",
                     seed, "--json");
            int64_t so[8];
            assert_int_equal(tu_json_ints(o.out, "sources", so, 8), 4);
            differs = memcmp(so, sa, sizeof so[0] * 4) != 0;
            tu_exec_free(&o);
        }
        assert_true(differs);
        tu_exec_free(&a);
        tu_exec_free(&b);
    }
}

/* exit 2, nothing on stdout, one line on stderr containing needle (and needle2). */
typedef struct bad_case_s {
    const char *args[14];
    const char *needle, *needle2;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {{"sim", "--topo", "foo:3", "--coll", "te"}, "foo", NULL},
    {{"sim", "--topo", "ring:x", "--coll", "te"}, "'x'", NULL},
    {{"sim", "--topo", "hypercube:30", "--coll", "te"}, "30", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "nope"}, "nope", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--algo", "nope"}, "nope", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--algo", "scatter-ff"}, "scatter-ff", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "scatter", "--algo", "scatter-balanced", "--ports",
      "single"},
     "scatter-balanced",
     "single"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--root", "8"}, "--root", "8"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--root", "x"}, "--root", "'x'"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--rx", "any", "--ports", "multi"},
     "--rx",
     "any"},
    {{"sim", "--topo", "ring:8", "--coll", "te", "--sources", "0,3"}, "--sources", "te"},
    {{"sim", "--topo", "ring:8", "--coll", "te", "--m", "2"}, "--m", "te"},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb", "--sources", "0,3", "--m", "2"},
     "--sources",
     "--m"},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb"}, "--sources", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb", "--sources", "8"}, "'8'", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb", "--sources", "0,0"}, "--sources", "twice"},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb", "--m", "9"}, "--m", "9"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--msgs", "0"}, "--msgs", "'0'"},
    {{"sim", "--topo", "ring:8", "--coll", "sna", "--op", "mean"},
     "'mean'",
     "sum, xor, max, min, and, or"},
    {{"sim", "--topo", "ring:7", "--coll", "allreduce", "--op", "xor", "--algo", "allreduce-flood"},
     "not xor",
     "max, min, and, or"},
    {{"sim", "--topo", "ring:8", "--coll", "te", "--op", "xor"}, "--op", "te"},
    {{"sim", "--topo", "ring:8", "--coll", "pmna"}, "needs its sources", "--sources LIST or --m M"},
    {{"sim", "--topo", "ring:8", "--coll", "sna", "--m", "2"}, "--sources", "sna"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--frags", "0"}, "--frags", "'0'"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--tp", "-1"}, "--tp", "'-1'"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--tp", "x"}, "--tp", "'x'"},
    /* core refusals name the concept and the CLI adds the flag (cli/errmap.c) */
    {{"sim", "--topo", "ring:8", "--coll", "te", "--algo", "te-ring", "--ports", "single"},
     "single-port",
     "--ports single|multi"},
    {{"sim", "--topo", "ring:8", "--coll", "pmnb"}, "needs its sources", "--sources LIST or --m M"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--bogus", "1"}, "--bogus", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "extra"}, "extra", NULL},
    {{"sim", "--coll", "bcast"}, "--topo", NULL},
    {{"sim", "--topo", "ring:8"}, "--coll", NULL},
    {{"sim", "--topo", "ring:8", "--coll"}, "--coll", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--ports", "dual"}, "dual", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--rx", "two"}, "two", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--duplex", "quarter"}, "quarter", NULL},
    {{"sim", "--topo", "file:/nonexistent/stepnet-test.txt", "--coll", "bcast"},
     "/nonexistent/stepnet-test.txt",
     NULL},
    {{"sim", "--topo", "torus:4xx4", "--coll", "bcast"}, "torus:4xx4", NULL},
    {{"sim", "--topo", "ring:8*", "--coll", "bcast"}, "ring:8*", NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--size", "64X"},
     "bad value '64X' for --size",
     "K, M, G, T or KiB, MiB, GiB, TiB"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--size", "2G"}, "'2G'", "from 0 to 1G"},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--port", "single"},
     "unknown option '--port'",
     "did you mean --ports?"},
    {{"frob"}, "frob", NULL},
    {{"algos", "--coll", "nope"}, "nope", NULL},
    {{"algos", "--frob"}, "--frob", NULL},
};

static void expect_bad(const tu_proc_t *r, const char *needle, const char *needle2)
{
    tu_expect_status(r, 2);
    if (r->nout != 0)
        fail_msg("%s: bad input but stdout is not empty:\n%s", r->cmd, r->out);
    tu_expect_one_line(r, r->err, r->nerr, "stderr");
    if (strstr(r->err, needle) == NULL || (needle2 && strstr(r->err, needle2) == NULL))
        fail_msg("%s: stderr does not name '%s'%s%s: %s", r->cmd, needle, needle2 ? " and " : "",
                 needle2 ? needle2 : "", r->err);
}

static void test_bad_input_exit2(void **state)
{
    (void) state;
    for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; k++) {
        const bad_case_t *c = &bad_cases[k];
        for (int json = 0; json < 2; json++) {
            const char *args[18] = {0};
            size_t n = 0;
            for (; c->args[n]; n++)
                args[n] = c->args[n];
            if (json)
                args[n++] = "--json"; /* after a trailing option it is its value: skip those */
            if (json && strcmp(args[n - 2], "--coll") == 0)
                continue;
            tu_proc_t r = run_(args);
            expect_bad(&r, c->needle, c->needle2);
            tu_exec_free(&r);
            /* the shared options behave the same in model */
            if (strcmp(args[0], "sim") == 0) {
                args[0] = "model";
                r = run_(args);
                expect_bad(&r, c->needle, c->needle2);
                tu_exec_free(&r);
            }
        }
    }
}

/* Dynamic broadcasting's own options (sim only: model does not take them). */
static const bad_case_t dyn_bad_cases[] = {
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast"}, "--lambda", "--rho"},
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--lambda", "-1"}, "--lambda", "'-1'"},
    {{"sim", "--topo", "hypercube:3", "--coll", "dynbcast", "--lambda", "0.1"},
     "meshes and tori",
     NULL},
    {{"sim", "--topo", "ring:8", "--coll", "bcast", "--lambda", "0.1"}, "dynbcast", NULL},
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--sweep-rho", "0.1:x"},
     "--sweep-rho",
     "'0.1:x'"},
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--rho", "0.2", "--ports", "single"},
     "--ports",
     "does not apply"},
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--rho", "0.2", "--msgs", "2"},
     "--msgs",
     "does not apply"},
    {{"sim", "--topo", "torus:4x4", "--coll", "dynbcast", "--rho", "0.2", "--algo", "pmnb-route"},
     "pmnb-route",
     "pmnb-mesh-split"},
    {{"sim", "--topo", "foldedcube:3", "--coll", "dynbcast", "--rho", "0.2", "--algo", "pmnb-mesh"},
     "pmnb-fcube",
     NULL},
};

static void test_dynbcast_bad_input(void **state)
{
    (void) state;
    /* the delay-versus-load curve: a CSV header and one line per rho, the bound second */
    const char *sweep[] = {"sim",         "--topo",      "torus:4x4", "--coll", "dynbcast",
                           "--sweep-rho", "0.1:0.3:0.1", "--slots",   "200",    NULL};
    tu_proc_t s = run_(sweep);
    tu_expect_status(&s, 0);
    assert_true(strncmp(s.out, "rho,delay_mean,delay_bound,", 27) == 0);
    size_t lines = 0;
    for (const char *q = s.out; *q; q++)
        lines += *q == '\n';
    assert_int_equal(lines, 4);
    assert_non_null(strstr(s.out, "\n0.3,"));
    tu_exec_free(&s);
    for (size_t k = 0; k < sizeof dyn_bad_cases / sizeof *dyn_bad_cases; k++) {
        const char *args[18] = {0};
        for (size_t n = 0; dyn_bad_cases[k].args[n]; n++)
            args[n] = dyn_bad_cases[k].args[n];
        tu_proc_t r = run_(args);
        expect_bad(&r, dyn_bad_cases[k].needle, dyn_bad_cases[k].needle2);
        tu_exec_free(&r);
    }
}

/* A negative rank must be named in the error, not the text before its '-'. */
static void test_bad_sources_negative(void **state)
{
    (void) state;
    tu_proc_t r = RUN("sim", "--topo", "ring:8", "--coll", "pmnb", "--sources", "-1");
    expect_bad(&r, "-1", NULL);
    tu_exec_free(&r);
}

static void test_run_failure_exit1(void **state)
{
    (void) state;
    tu_proc_t r = RUN("sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1");
    tu_expect_status(&r, 1);
    tu_expect_one_line(&r, r.err, r.nerr, "stderr");
    assert_non_null(strstr(r.err, "--max-slots"));
    assert_non_null(strstr(r.err, " 1 "));
    assert_non_null(strstr(r.out, "NOT verified"));
    tu_exec_free(&r);

    r = RUN("sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1", "--json");
    tu_expect_status(&r, 1);
    tu_json_line(&r);
    tu_expect_one_line(&r, r.err, r.nerr, "stderr");
    assert_non_null(strstr(r.err, "--max-slots"));
    assert_false(tu_json_bool(r.out, "verified"));
    assert_true(tu_json_int(r.out, "deliveries") < tu_json_int(r.out, "expected_deliveries"));
    tu_exec_free(&r);

    /* a limit that is large enough passes */
    RUN_JSON(r, "sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1000", "--json");
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);
}

/* `stepnet table`: the reproduction table of the thesis. Every row of the default set agrees (the
 * formula's value, the prediction and the simulated steps are equal), in Markdown and CSV alike;
 * --run adds the TCP column for a selection; bad input and an empty selection exit 2. */
static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_table(void **state)
{
    (void) state;
    tu_proc_t r = run_table();
    tu_expect_status(&r, 0);
    assert_true(strncmp(r.out, "| section | topology |", 22) == 0);
    size_t rows = count_lines(r.out) - 2;
    assert_true(rows >= 45);
    /* each theorem's own algorithm was found and every row agrees */
    static const char *const algos[] = {
        "bcast-ering",   "bcast-product", "bcast-binomial", "scatter-ff",   "scatter-ering",
        "scatter-torus", "gather-ff",     "gather-ering",   "gather-torus", "te-linear",
        "te-ring",       "te-cayley",     "te-a2",          "te-a3"};
    for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
        char cell[64];
        snprintf(cell, sizeof cell, "| %s |", algos[k]);
        if (strstr(r.out, cell) == NULL)
            fail_msg("no row uses %s:\n%s", algos[k], r.out);
    }
    size_t agree = 0;
    for (const char *q = r.out; (q = strstr(q, " | = | ")) != NULL; q++)
        agree++;
    assert_int_equal(agree, rows);
    /* the summary line, on stderr: every case counted, all agreeing */
    char want[96];
    snprintf(want, sizeof want, "stepnet table: %zu cases, %zu agree, 0 differ; ", rows, rows);
    if (strstr(r.err, want) == NULL)
        fail_msg("stderr lacks '%s':\n%s", want, r.err);
    assert_null(strstr(r.out, "DIFFERS"));
    assert_null(strstr(r.out, "not in this build"));
    /* the A3 torus with n = 2 mod 4 names its gap to the cut bound */
    assert_non_null(strstr(r.out, "| `torus:6x6` | 36 | te | multi | n ceil((n^2-1)/8) | 30 | "
                                  "te-a3 | 30 | 30 | 27 | = | n = 2 mod 4"));
    tu_exec_free(&r);

    /* CSV, quick set */
    r = RUN("table", "--set", "quick", "--csv");
    tu_expect_status(&r, 0);
    const char *hdr = "section,topology,nodes,collective,ports,formula,paper,algorithm,predicted,"
                      "simulated,lower_bound,agree,note\n";
    assert_true(strncmp(r.out, hdr, strlen(hdr)) == 0);
    rows = count_lines(r.out) - 1;
    assert_true(rows >= 15);
    agree = 0;
    for (const char *q = r.out; (q = strstr(q, ",=,")) != NULL; q++)
        agree++;
    assert_int_equal(agree, rows);
    /* RFC 4180: every row has the header's 13 fields (commas inside a field are quoted) */
    for (const char *q = r.out; *q;) {
        int fields = 1, quoted = 0;
        for (; *q && (quoted || *q != '\n'); q++) {
            if (*q == '"')
                quoted = !quoted;
            else if (*q == ',' && !quoted)
                fields++;
        }
        assert_int_equal(fields, 13);
        if (*q)
            q++;
    }
    tu_exec_free(&r);

    /* over TCP, a selection: the tcp column equals the simulator's (and so does trace_hash) */
    r = RUN("table", "--match", "ring TE", "--run");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "| sim | tcp | lower bound |"));
    assert_non_null(strstr(r.out, "| `ring:15` | 15 | te | multi | (n^2-1)/8 | 28 | te-ring | 28 | "
                                  "28 | 28 | 28 | = |"));
    assert_int_equal(count_lines(r.out) - 2, 4);
    tu_exec_free(&r);

    /* the MPI staples' rows (allreduce, barrier), over TCP too */
    r = RUN("table", "--match", "B&T", "--run");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out,
                           "| `ring:9` | 9 | allreduce | multi | 2 e(v) | 8 | allreduce-tree "
                           "| 8 | 8 | 8 |"));
    assert_int_equal(count_lines(r.out) - 2, 6);
    tu_exec_free(&r);

    /* --out writes the file, not stdout */
    char path[] = "/tmp/stepnet-table-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    r = RUN("table", "--match", "Thm 4.3", "--out", path);
    tu_expect_status(&r, 0);
    assert_int_equal(r.nout, 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    buf[got] = '\0';
    fclose(f);
    unlink(path);
    assert_non_null(strstr(buf, "| `linear:15` |"));
    tu_exec_free(&r);

    r = RUN("table", "--set", "all");
    expect_bad(&r, "all", NULL);
    tu_exec_free(&r);
    r = RUN("table", "--match", "no such theorem");
    expect_bad(&r, "no such theorem", NULL);
    tu_exec_free(&r);
}

/* `stepnet run` parses its own options with the same machinery as the other commands: every
 * option takes --name=value, and a bad value exits 2 naming it and what is accepted. */
static void test_run_name_value(void **state)
{
    (void) state;
    tu_proc_t r;
    RUN_JSON(r, "run", "--topo=ring:4", "--coll=bcast", "--reps=2", "--warmup=0", "--probes=1",
             "--slot-timeout-ms=5000", "--json");
    assert_int_equal(tu_json_int(r.out, "reps"), 2);
    assert_int_equal(tu_json_int(r.out, "warmup"), 0);
    double wall[4];
    assert_int_equal(tu_json_nums(r.out, "wall_us", wall, 4), 2);
    assert_true(tu_json_bool(r.out, "verified"));
    tu_exec_free(&r);

    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps=x");
    expect_bad(&r, "'x'", "--reps");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "0");
    expect_bad(&r, "'0'", "from 1");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--slot-timeout-ms=0");
    expect_bad(&r, "--slot-timeout-ms", "milliseconds");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--spin-us", "1000001");
    expect_bad(&r, "'1000001'", "microseconds from 0 to 1000000");
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--spin-us=-1");
    expect_bad(&r, "'-1'", "--spin-us");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--coord-nice", "20");
    expect_bad(&r, "'20'", "from 0 to 19");
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--coord-nice=-1");
    expect_bad(&r, "'-1'", "--coord-nice");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--cipher", "rot13");
    expect_bad(&r, "'rot13'", "expected auto, xchacha20poly1305 or aes256gcm");
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--security", "none", "--cipher",
            "aes256gcm");
    expect_bad(&r, "--cipher", "--security sodium");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--termination", "never");
    expect_bad(&r, "'never'", "expected learn or detect");
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--termination=");
    expect_bad(&r, "--termination", "learn or detect");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--verbose=1");
    expect_bad(&r, "--verbose", "no value");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--fault=1:boom@3");
    expect_bad(&r, "1:boom@3", "kill");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--listen=nowhere");
    expect_bad(&r, "nowhere", "HOST:PORT");
    tu_exec_free(&r);
}

/* A help text: "Usage:" (the top level, for help2man) or "usage:" (the commands). */
static int has_usage(const char *s)
{
    return strstr(s, "usage:") != NULL || strstr(s, "Usage:") != NULL;
}

static void test_help(void **state)
{
    (void) state;
    static const char *const cmds[][3] = {
        {"--help", NULL},    {"-h", NULL},        {"sim", "--help"},   {"model", "--help"},
        {"algos", "--help"}, {"table", "--help"}, {"keygen", "--help"}};
    for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
        tu_proc_t r = run_(cmds[k]);
        tu_expect_status(&r, 0);
        if (!has_usage(r.out))
            fail_msg("%s: no usage on stdout: %s", r.cmd, r.out);
        if (cmds[k][1] != NULL && strstr(r.out, cmds[k][0]) == NULL)
            fail_msg("%s: usage does not name the command: %s", r.cmd, r.out);
        assert_int_equal(r.nerr, 0);
        tu_exec_free(&r);
    }
    /* --help wins over other options */
    tu_proc_t r = RUN("sim", "--topo", "ring:8", "--help");
    tu_expect_status(&r, 0);
    assert_true(has_usage(r.out));
    tu_exec_free(&r);
    /* no arguments: usage on stderr, exit 2 */
    const char *none[] = {NULL};
    r = run_(none);
    tu_expect_status(&r, 2);
    assert_int_equal(r.nout, 0);
    assert_true(has_usage(r.err));
    tu_exec_free(&r);
}

/* Both programs print the one version of CMake's project(VERSION), and their help, on stdout. */
/* max_queue is a measurement only where the algorithm reports its queues: te-cayley does not
 * (null, and the text says so), the generic router and the fat-tree engine do (a number). */
static void test_max_queue_null_when_unreported(void **state)
{
    (void) state;
    tu_proc_t r;
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--algo",
             "te-cayley", "--json");
    assert_true(tu_json_is_null(r.out, "max_queue"));
    assert_true(tu_json_is_null(r.out, "max_queue_node"));
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--algo",
            "te-cayley");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "max_queue       not reported by te-cayley"));
    tu_exec_free(&r);
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--algo", "te-route", "--json");
    assert_false(tu_json_is_null(r.out, "max_queue"));
    assert_true(tu_json_int(r.out, "max_queue") > 0);
    tu_exec_free(&r);
}

static void test_version(void **state)
{
    (void) state;
    static const char *const vars[] = {"STEPNET", "STEPNET_NODE"};
    static const char *const want[] = {"stepnet " SN_VERSION "\n", "stepnet-node " SN_VERSION "\n"};
    for (int k = 0; k < 2; k++) {
        tu_exec_opts_t o = {.name = vars[k], .deadline_s = RUN_DEADLINE_S};
        tu_proc_t r = tu_exec(tu_env_bin(vars[k]), (const char *const[]){"--version", NULL}, &o);
        tu_expect_status(&r, 0);
        assert_string_equal(r.out, want[k]);
        assert_int_equal(r.nerr, 0);
        tu_exec_free(&r);
        r = tu_exec(tu_env_bin(vars[k]), (const char *const[]){"--help", NULL}, &o);
        tu_expect_status(&r, 0);
        if (strstr(r.out, "Usage:") == NULL || strstr(r.out, "Exit status:") == NULL)
            fail_msg("%s: help without 'Usage:' or 'Exit status:' (help2man reads them):\n%s",
                     r.cmd, r.out);
        tu_exec_free(&r);
    }
}

/* A mistyped option gets the nearest one, in every command and in stepnet-node (one parser). */
static void test_option_suggestions(void **state)
{
    (void) state;
    tu_proc_t r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--port", "single");
    expect_bad(&r, "unknown option '--port'", "did you mean --ports?");
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--itres", "3");
    expect_bad(&r, "unknown option '--itres'", "did you mean --iters?");
    tu_exec_free(&r);
    tu_exec_opts_t o = {.name = "stepnet-node", .deadline_s = RUN_DEADLINE_S};
    r = tu_exec(tu_env_bin("STEPNET_NODE"), (const char *const[]){"--serv", NULL}, &o);
    expect_bad(&r, "unknown option '--serv'", "did you mean --serve?");
    tu_exec_free(&r);
}

/* ---- hardening: the memory budget and strict options (issue 10) ------------------------------ */

/* A refusal for memory: exit 2, one stderr line with the estimate, the limit and the flag, fast and
 * without having allocated (peak RSS far below what the command would have taken). */
static void expect_memory_refusal(const tu_proc_t *r, const char *what)
{
    tu_expect_status(r, 2);
    if (strstr(r->err, "needs about") == NULL || strstr(r->err, "the memory limit is") == NULL ||
        strstr(r->err, "--max-memory") == NULL)
        fail_msg("%s: the refusal must give the estimate, the limit and --max-memory: %s", r->cmd,
                 r->err);
    if (r->secs > 5.0 || r->maxrss_kb > 64 * 1024)
        fail_msg("%s (%s): refused after %.2f s with a peak RSS of %ld KiB; want a refusal "
                 "before anything large is allocated",
                 r->cmd, what, r->secs, r->maxrss_kb);
}

static void test_memory_budget(void **state)
{
    (void) state;
    /* the plan of a tree broadcast keeps n x msgs arrival slots: 8 GiB here */
    tu_proc_t r = RUN("model", "--topo", "ring:1024", "--coll", "bcast", "--msgs", "1048576");
    expect_memory_refusal(&r, "bcast ring:1024 msgs 2^20");
    tu_exec_free(&r);
    r = RUN("model", "--topo", "butterfly:10", "--coll", "bcast", "--msgs", "1048576");
    expect_memory_refusal(&r, "butterfly:10");
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "ring:1024", "--coll", "bcast", "--msgs", "1048576", "--max-memory",
            "1G");
    expect_memory_refusal(&r, "sim");
    assert_non_null(strstr(r.err, "1.0 GiB"));
    tu_exec_free(&r);
    /* the topology alone: refused before it is built */
    r = RUN("model", "--topo", "foldedcube:23", "--coll", "bcast", "--max-memory", "1G");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "its topology alone needs about"));
    assert_non_null(strstr(r.err, "--max-memory"));
    assert_true(r.secs < 5.0 && r.maxrss_kb < 64 * 1024);
    tu_exec_free(&r);
    /* run: every node holds frame buffers for its links (a few chunks each, streamed) beside its
     * own fixed cost: five processes do not fit in 16 MiB */
    r = RUN("run", "--topo", "ring:4", "--coll", "te", "--size", "1073741824", "--max-memory",
            "16M");
    expect_memory_refusal(&r, "run te 1 GiB packets");
    assert_non_null(strstr(r.err, "in 5 processes"));
    tu_exec_free(&r);
    /* the estimate is reported and is an upper one for what the command took */
    RUN_JSON(r, "sim", "--topo", "complete:256", "--coll", "te", "--json");
    uint64_t est = (uint64_t) tu_json_int(r.out, "memory_estimate");
#ifndef __SANITIZE_ADDRESS__
    /* the estimate models the product build: ASan's shadow memory and quarantine are not in it */
    assert_true(est >= (uint64_t) r.maxrss_kb * 1024);
#else
    assert_true(est > 0);
#endif
    tu_exec_free(&r);
    /* a bad --max-memory */
    r = RUN("model", "--topo", "ring:8", "--coll", "te", "--max-memory", "12x");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "bad value '12x' for --max-memory"));
    tu_exec_free(&r);
}

/* Every size option reads the same suffixes: --size as --sizes and --max-memory always did. */
static void test_size_suffixes(void **state)
{
    (void) state;
    static const char *const spellings[] = {"65536", "64K", "64k", "64KiB"};
    for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
        tu_proc_t r;
        RUN_JSON(r, "sim", "--topo", "ring:4", "--coll", "bcast", "--size", spellings[i], "--json");
        assert_int_equal(tu_json_int(r.out, "size"), 65536);
        tu_exec_free(&r);
    }
    tu_proc_t r;
    RUN_JSON(r, "model", "--topo", "ring:4", "--coll", "te", "--max-memory", "1GiB", "--json");
    tu_exec_free(&r);
}

/* A bad value that needs no topology is reported before the topology is built. */
static void test_options_before_topology(void **state)
{
    (void) state;
    tu_proc_t r = RUN("model", "--topo", "foldedcube:23", "--coll", "bcast", "--ports", "bogus");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "bad value 'bogus' for --ports"));
    assert_true(r.secs < 5.0 && r.maxrss_kb < 64 * 1024);
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "foldedcube:23", "--coll", "bcast", "--algo", "nosuch");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "unknown algorithm 'nosuch'"));
    assert_true(r.secs < 5.0 && r.maxrss_kb < 64 * 1024);
    tu_exec_free(&r);
    /* a typo of an algorithm, a collective, a family or a command gets the name */
    r = RUN("sim", "--topo", "ring:4", "--coll", "bcast", "--algo", "bcast-binomal");
    expect_bad(&r, "unknown algorithm 'bcast-binomal'", "did you mean bcast-binomial?");
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "ring:4", "--coll", "alltoal");
    expect_bad(&r, "unknown collective 'alltoal'", "did you mean alltoall?");
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "rign:4", "--coll", "bcast");
    expect_bad(&r, "unknown topology family 'rign'", "did you mean ring?");
    tu_exec_free(&r);
    r = RUN("simm", "--topo", "ring:4");
    expect_bad(&r, "unknown command 'simm'", "did you mean sim?");
    tu_exec_free(&r);
    /* a typo of a value gets the value */
    r = RUN("sim", "--topo", "ring:4", "--coll", "bcast", "--ports", "sngle");
    expect_bad(&r, "bad value 'sngle' for --ports: did you mean single?", NULL);
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "ring:4", "--coll", "bcast", "--duplex", "hlaf");
    expect_bad(&r, "did you mean half?", NULL);
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "ring:4", "--coll", "allreduce", "--op", "smu");
    expect_bad(&r, "bad value 'smu' for --op: did you mean sum?", NULL);
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--sync", "dataflw");
    expect_bad(&r, "bad value 'dataflw' for --sync: did you mean dataflow?", NULL);
    tu_exec_free(&r);
    /* an option of another command says whose it is */
    r = RUN("sim", "--topo", "ring:4", "--coll", "bcast", "--reps", "5");
    expect_bad(&r, "unknown option '--reps': it is an option of run, not of this command", NULL);
    tu_exec_free(&r);
    r = RUN("model", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8:64");
    expect_bad(&r, "it is an option of bench", NULL);
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--threads", "2");
    expect_bad(&r, "it is an option of sim", NULL);
    tu_exec_free(&r);
    /* an option no algorithm of the collective reads is refused, not ignored */
    r = RUN("sim", "--topo", "ring:4", "--coll", "te", "--root", "2");
    expect_bad(&r, "--root applies to bcast, scatter, gather, sna, not te", NULL);
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "mnb", "--root", "1");
    expect_bad(&r, "--root applies to", "not mnb");
    tu_exec_free(&r);
}

/* synth and export estimate the schedule they would write before they build it: a collective whose
 * deliveries alone need more transmissions than a file read back within --max-memory (or, for
 * synth, an assignment) can hold is refused at once, in little memory. */
static void test_schedule_estimates(void **state)
{
    (void) state;
    tu_proc_t r = RUN("synth", "--topo", "hypercube:12", "--coll", "te");
    expect_bad(&r, "at least 16773120 transmissions (one per delivery)", NULL);
    assert_true(r.secs < 1.0 && r.maxrss_kb < 100 * 1024);
    tu_exec_free(&r);
    r = RUN("synth", "--topo", "hypercube:10", "--coll", "te", "--max-memory", "64M");
    expect_bad(&r, "at least 1047552 transmissions", "--max-memory 64 MiB");
    assert_true(r.secs < 1.0 && r.maxrss_kb < 100 * 1024);
    tu_exec_free(&r);
    r = RUN("synth", "--topo", "linear:3", "--coll", "bcast", "--msgs", "1000000");
    expect_bad(&r, "at least 2000000 transmissions", NULL);
    tu_exec_free(&r);
    char path[] = "/tmp/stepnet-export-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    r = RUN("export", "--topo", "hypercube:10", "--coll", "te", "--max-memory", "64M", "--out",
            path);
    expect_bad(&r, "at least 1047552 transmissions", NULL);
    assert_true(r.maxrss_kb < 100 * 1024);
    assert_int_equal(access(path, F_OK), -1); /* nothing written */
    tu_exec_free(&r);
}

/* Every file a command reads (a file: topology, --link-file, --hosts, a schedule file) must be a
 * regular file: a FIFO (never waited on), a directory and a device are refused at once, exit 2,
 * naming what they are. */
static void test_file_inputs_regular_only(void **state)
{
    (void) state;
    char dir[] = "/tmp/stepnet-inputs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *const paths[] = {fifo, dir, "/dev/null"};
    const char *const kinds[] = {"(a FIFO)", "(a directory)", "(a character device)"};
    for (size_t i = 0; i < 3; i++) {
        char spec[96], algo[96];
        snprintf(spec, sizeof spec, "file:%s", paths[i]);
        snprintf(algo, sizeof algo, "schedule:%s", paths[i]);
        tu_proc_t r[4];
        r[0] = RUN("sim", "--topo", spec, "--coll", "bcast");
        r[1] = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--link-file", paths[i]);
        r[2] = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--hosts", paths[i], "--listen",
                   "127.0.0.1:0");
        r[3] = RUN("sim", "--algo", algo);
        for (size_t k = 0; k < 4; k++) {
            tu_expect_status(&r[k], 2);
            if (strstr(r[k].err, "not a regular file") == NULL)
                fail_msg("%s: stderr lacks 'not a regular file':\n%s", r[k].cmd, r[k].err);
            if (k != 2 && strstr(r[k].err, kinds[i]) == NULL) /* --hosts: stat, no kind */
                fail_msg("%s: stderr lacks '%s':\n%s", r[k].cmd, kinds[i], r[k].err);
            assert_true(r[k].secs < 5.0);
            tu_exec_free(&r[k]);
        }
    }
    unlink(fifo);
    rmdir(dir);
}

/* --root, --m and --sources are checked against the processors counted from the spec, before the
 * topology is built: under a --max-memory that refuses the topology, the message is still about
 * the value, word for word what the check on the built topology says. */
static void test_ranks_before_topology(void **state)
{
    (void) state;
    tu_proc_t r = RUN("sim", "--topo", "hypercube:22", "--coll", "bcast", "--root", "99999999",
                      "--max-memory", "8M");
    tu_expect_status(&r, 2);
    assert_non_null(
        strstr(r.err, "--root 99999999 is out of range: hypercube:22 has processors 0 to 4194303"));
    assert_null(strstr(r.err, "--max-memory"));
    assert_true(r.secs < 5.0 && r.maxrss_kb < 64 * 1024);
    tu_exec_free(&r);
    r = RUN("model", "--topo", "fattree:04:10*", "--coll", "scatter", "--root", "1048576");
    tu_expect_status(&r, 2); /* a bad spec is still reported as such */
    assert_non_null(strstr(r.err, "bad product 'fattree:04:10*'"));
    tu_exec_free(&r);
    r = RUN("model", "--topo", "fattree:04:10", "--coll", "gather", "--root", "1048576",
            "--max-memory", "8M");
    tu_expect_status(&r, 2); /* routers are not processors; the canonical spec is named */
    assert_non_null(strstr(
        r.err, "--root 1048576 is out of range: fattree:4:10:const has processors 0 to 1048575"));
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "hypercube:21*ring:3", "--coll", "pmnb", "--m", "20000000",
            "--max-memory", "8M");
    tu_expect_status(&r, 2);
    assert_non_null(
        strstr(r.err, "--m 20000000 is more than the 6291456 processors of hypercube:21*ring:3"));
    tu_exec_free(&r);
    r = RUN("sim", "--topo", "hypercube:22", "--coll", "pmnb", "--sources", "0,5-4194304",
            "--max-memory", "8M");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "--sources"));
    assert_non_null(strstr(r.err, "4194303"));
    assert_null(strstr(r.err, "--max-memory"));
    tu_exec_free(&r);
}

/* Output that cannot be written fails the command; --fault out of range is refused. */
static void test_strict_out_and_fault(void **state)
{
    (void) state;
    tu_proc_t r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "1", "--warmup", "0",
                      "--probes", "0", "--out", "/dev/full");
    tu_expect_status(&r, 1);
    assert_non_null(strstr(r.err, "cannot write '/dev/full' (--out)"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--out", "/");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "cannot write '/' (--out)"));
    tu_exec_free(&r);
    r = RUN("table", "--set", "quick", "--match", "3.1", "--out", "/dev/full");
    tu_expect_status(&r, 1);
    assert_non_null(strstr(r.err, "cannot write '/dev/full' (--out)"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--fault", "99:kill@5");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "node 99 is out of range (ring:4 has nodes 0 to 3)"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--fault", "0:kill@-1");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "SLOT >= 1"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--fault", "0:kill@99999999");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "past the run's slot limit"));
    tu_exec_free(&r);
}

/* Writes n bytes to a fresh temporary file; its path goes to path (cap >= 32). */
static void temp_file(char *path, size_t cap, const char *bytes, size_t n)
{
    snprintf(path, cap, "/tmp/stepnet-graph-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, n), (ssize_t) n);
    close(fd);
}

/* User values are echoed escaped; file: graphs refuse NUL bytes; te on a file graph past the
 * routing-table size names that limit. */
static void test_strict_echo_and_files(void **state)
{
    (void) state;
    tu_proc_t r = RUN("model", "--topo", "ring\x1b[31m:4", "--coll", "te");
    tu_expect_status(&r, 2);
    assert_null(strchr(r.err, '\x1b'));
    assert_non_null(strstr(r.err, "ring\\x1b[31m:4"));
    tu_exec_free(&r);
    char path[64], spec[80];
    static const char nul[] = "0 1\n1 2\0 junk\n2 0\n";
    temp_file(path, sizeof path, nul, sizeof nul - 1);
    snprintf(spec, sizeof spec, "file:%s", path);
    r = RUN("model", "--topo", spec, "--coll", "bcast");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "a NUL byte at offset 7"));
    tu_exec_free(&r);
    unlink(path);
    /* a ring of 10001 nodes as an edge list */
    size_t cap = 10001 * 14, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (unsigned i = 0; i < 10001; i++)
        len += (size_t) snprintf(text + len, cap - len, "%u %u\n", i, (i + 1) % 10001);
    temp_file(path, sizeof path, text, len);
    free(text);
    snprintf(spec, sizeof spec, "file:%s", path);
    r = RUN("model", "--topo", spec, "--coll", "te");
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "has 10001 nodes"));
    assert_non_null(strstr(r.err, "at most 8192"));
    assert_null(strstr(r.err, "runs on any graph"));
    tu_exec_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_json_contract),
        cmocka_unit_test(test_algos_json),
        cmocka_unit_test(test_model_json_contract),
        cmocka_unit_test(test_sim_text_output),
        cmocka_unit_test(test_json_stdout_one_line),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_sim_threads),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_combining_op),
        cmocka_unit_test(test_predicted_equals_steps),
        cmocka_unit_test(test_partial_sources),
        cmocka_unit_test(test_partial_m_seed),
        cmocka_unit_test(test_bad_input_exit2),
        cmocka_unit_test(test_dynbcast_bad_input),
        cmocka_unit_test(test_bad_sources_negative),
        cmocka_unit_test(test_run_failure_exit1),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_run_name_value),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_max_queue_null_when_unreported),
        cmocka_unit_test(test_memory_budget),
        cmocka_unit_test(test_options_before_topology),
        cmocka_unit_test(test_size_suffixes),
        cmocka_unit_test(test_option_suggestions),
        cmocka_unit_test(test_ranks_before_topology),
        cmocka_unit_test(test_file_inputs_regular_only),
        cmocka_unit_test(test_schedule_estimates),
        cmocka_unit_test(test_strict_out_and_fault),
        cmocka_unit_test(test_strict_echo_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
