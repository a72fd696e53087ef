/* Schedule files (core/model/schedule_file.c, core/algo/engine/schedule_replay.c): the round trip
 * of every non-combining algorithm (recorded, written, parsed, checked and played back with the
 * same steps and trace hash), and the refusals of the parser and the checker, each naming the slot,
 * node, link and rule. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo/engine/schedule_replay.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/sim.h"
#include "tests/support/testutil.h"

/* The port models with the descriptor bits each needs, in the order a case is looked for. */
static const struct {
    const char *ports, *rx, *duplex;
    unsigned need;
} PMS[] = {
    {"multi", "one", "full", SN_PM_MULTI},
    {"single", "one", "full", SN_PM_SINGLE},
    {"single", "any", "full", SN_PM_SINGLE_ANY},
    {"multi", "one", "half", SN_PM_MULTI | SN_PM_HALF},
    {"single", "one", "half", SN_PM_SINGLE | SN_PM_HALF},
};

/* Small instances of every family an algorithm of stepnet is written for. */
static const char *const TOPOS[] = {
    "hypercube:3", "torus:4x4", "torus:3x3",          "ring:6",       "linear:5",    "mesh:3x3",
    "complete:5",  "ering:7:2", "fattree:2:3",        "foldedcube:3", "star:4",      "ccc:3",
    "butterfly:3", "torus:3x4", "hypercube:2*ring:3", "mesh:2x3",     "torus:3x3x3",
};

/* Writes s as a schedule file, parses it back, checks it and plays it: the same steps and trace
 * hash as the recorded run. */
static void round_trip(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                       const char *algo, const sn_sim_result_t *want)
{
    char *text = NULL;
    size_t len = 0;
    sn_sched_ops_t ops = {0};
    if (sn_coll_is_combining(p->coll)) {
        sn_err_t e = {0};
        if (sn_sched_record_operands(t, p, algo, s, &ops, &e) != 0)
            fail_msg("%s on %s: operands: %s", algo, t->spec, e.msg);
    }
    tu_assert_rc(sn_sched_file_format(t, p, algo, s, ops.first ? &ops : NULL, &text, &len, NULL),
                 0);
    sn_sched_ops_free(&ops);
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    int rc = sn_sched_file_parse(text, len, &sf, &err);
    if (rc != 0)
        fail_msg("%s on %s: parse: %s", algo, t->spec, err.msg);
    rc = sn_sched_file_check(sf, t, p, &err);
    if (rc != 0)
        fail_msg("%s on %s: check: %s", algo, t->spec, err.msg);
    void *plan = NULL;
    tu_assert_rc(sn__schedule_plan_new(t, p, &sf->sched, &sf->ops, &plan, &err), 0);
    sn_sim_opts_t opts = {.max_slots = s->steps + 2};
    sn_sim_result_t res;
    rc = sn_sim_run(t, p, &sn__algo_schedule, plan, &opts, &res, &err);
    if (rc != 0 || !res.verified)
        fail_msg("%s on %s: replay: %s", algo, t->spec, err.msg);
    if (res.steps != want->steps || res.trace_hash != want->trace_hash)
        fail_msg("%s on %s: replay takes %llu steps (hash %llx), the algorithm %llu (hash %llx)",
                 algo, t->spec, (unsigned long long) res.steps, (unsigned long long) res.trace_hash,
                 (unsigned long long) want->steps, (unsigned long long) want->trace_hash);
    sn__algo_schedule.plan_free(plan);
    sn_sched_file_free(sf);
    free(text);
}

/* Every algorithm of a collective schedule files hold, on the first small case it applies to. */
static void test_round_trip_every_algorithm(void **state)
{
    (void) state;
    size_t na;
    const sn_algo_t *const *all = sn_model_algos(&na);
    sn_topo_t *topos[sizeof TOPOS / sizeof TOPOS[0]];
    for (size_t i = 0; i < sizeof TOPOS / sizeof TOPOS[0]; i++)
        topos[i] = tu_topo(TOPOS[i]);
    size_t played = 0, missing = 0;
    for (size_t ai = 0; ai < na; ai++) {
        const sn_algo_t *a = all[ai];
        if (!sn_sched_file_supports(a->coll))
            continue;
        int done = 0;
        for (size_t ti = 0; ti < sizeof TOPOS / sizeof TOPOS[0] && !done; ti++) {
            const sn_topo_t *t = topos[ti];
            for (size_t pi = 0; pi < sizeof PMS / sizeof PMS[0] && !done; pi++) {
                if ((a->pm_mask & PMS[pi].need) != PMS[pi].need)
                    continue;
                sn_params_t p = tu_params(a->coll, PMS[pi].ports, PMS[pi].rx, PMS[pi].duplex);
                uint32_t sources[2] = {sn_topo_proc(t, 0), sn_topo_proc(t, t->nproc - 1)};
                if (sources[0] > sources[1]) {
                    uint32_t x = sources[0];
                    sources[0] = sources[1];
                    sources[1] = x;
                }
                if (a->coll == SN_COLL_PMNB || a->coll == SN_COLL_PEXCHANGE ||
                    a->coll == SN_COLL_PMNA) {
                    p.sources = sources;
                    p.nsources = 2;
                }
                p.root = sn_topo_proc(t, t->nproc > 1 ? 1 : 0);
                if (sn_coll_is_combining(a->coll) && sn_model_check(a, t, &p, NULL) < 0)
                    p.op = SN_OP_MAX; /* flooding combines idempotent operators only */
                if (sn_params_check(t, &p, NULL) < 0 || sn_model_check(a, t, &p, NULL) < 0)
                    continue;
                sn_sched_t *s = NULL;
                sn_err_t err = {0};
                if (sn_sched_record(t, &p, a->name, &s, &err) < 0)
                    continue; /* a plan this instance refuses (sizes): try the next */
                tu_run_t r = tu_sim(t, &p, a->name);
                assert_true(r.res.verified);
                round_trip(t, &p, s, a->name, &r.res);
                sn_sched_free(s);
                done = 1;
            }
        }
        if (done)
            played++;
        else {
            print_message("no case for %s\n", a->name);
            missing++;
        }
    }
    print_message("round trip: %zu algorithms played back, %zu without a case\n", played, missing);
    assert_int_equal(missing, 0);
    for (size_t i = 0; i < sizeof TOPOS / sizeof TOPOS[0]; i++)
        sn_topo_free(topos[i]);
}

/* ---- refusals ---------------------------------------------------------------------------- */

/* A bcast on linear:3 (nodes 0-1-2, root 0) in the single-port model with the given slots. */
static char *linear3(const char *ports, const char *slots)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f,
            "{\"format\": \"stepnet-schedule\", \"version\": 1, \"topology\": \"linear:3\", "
            "\"collective\": \"bcast\", \"root\": 0, \"ports\": \"%s\", \"steps\": 2, "
            "\"slots\": [%s]}",
            ports, slots);
    fclose(f);
    return text;
}

#define SEND(node, port, to)                                                                       \
    "{\"node\": " #node ", \"port\": " #port ", \"to\": " #to ", \"src\": 0, \"dst\": \"all\", "   \
    "\"seq\": 0, \"frag\": 0}"

/* Checks that text parses, and that the check against linear:3 fails with code `want` and a
 * message holding each of the given fragments. */
static void expect_refused(const char *ports, const char *slots, int want, const char *a,
                           const char *b)
{
    char *text = linear3(ports, slots);
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, ports, "one", "full");
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    int rc = sn_sched_file_parse(text, strlen(text), &sf, &err);
    if (rc != 0)
        fail_msg("parse: %s", err.msg);
    tu_assert_rc(sn_sched_file_check(sf, t, &p, &err), want);
    if (strstr(err.msg, a) == NULL || (b && strstr(err.msg, b) == NULL))
        fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err.msg, a, b ? b : "");
    sn_sched_file_free(sf);
    sn_topo_free(t);
    free(text);
}

/* A sink that takes `room` bytes, then fails: the writer stops at its first failure and says so. */
typedef struct {
    size_t room, got, calls_after;
    int failed;
} sink_t;

static int short_sink(void *ctx, const char *data, size_t len)
{
    sink_t *k = ctx;
    (void) data;
    if (k->failed) {
        k->calls_after++;
        return -1;
    }
    if (k->got + len > k->room) {
        k->failed = 1;
        return SN_EIO;
    }
    k->got += len;
    return 0;
}

static void test_writer_sink_failure(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:6x6");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_sched_t *s = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_record(t, &p, "te-route", &s, &err), 0);
    char *text = NULL;
    size_t len = 0;
    tu_assert_rc(sn_sched_file_format(t, &p, "te-route", s, NULL, &text, &len, &err), 0);
    assert_true(len > 20000); /* more than two of the writer's pieces */
    assert_int_equal(strlen(text), len);
    sink_t k = {.room = 10000};
    tu_assert_rc(sn_sched_file_write(short_sink, &k, t, &p, "te-route", s, NULL, &err), SN_EIO);
    assert_string_equal(err.msg, "cannot write the schedule");
    assert_true(k.failed);
    assert_int_equal(k.calls_after, 0);
    assert_true(k.got <= 10000);
    free(text);
    sn_sched_free(s);
    sn_topo_free(t);
}

static void test_valid_linear3(void **state)
{
    (void) state;
    char *text = linear3("single", "{\"slot\": 1, \"sends\": [" SEND(
                                       0, 0, 1) "]}, "
                                                "{\"slot\": 2, \"sends\": [" SEND(1, 0, 2) "]}");
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_file_parse(text, strlen(text), &sf, &err), 0);
    tu_assert_rc(sn_sched_file_check(sf, t, &p, &err), 0);
    assert_int_equal(sf->sched.n, 2);
    sn_sched_file_free(sf);
    sn_topo_free(t);
    free(text);
}

static void test_refuses_packet_not_held(void **state)
{
    (void) state;
    /* node 1 forwards in slot 1 the packet it receives only at the end of slot 1 */
    expect_refused("multi", "{\"slot\": 1, \"sends\": [" SEND(0, 0, 1) ", " SEND(1, 0, 2) "]}",
                   SN_EALGO, "slot 1: node 1 sends on link 1-2 packet (src 0, dst \"all\"",
                   "does not hold");
}

static void test_refuses_packet_of_no_one(void **state)
{
    (void) state;
    /* node 1 is not the root: a broadcast packet from it is no packet of this bcast */
    expect_refused("multi",
                   "{\"slot\": 1, \"sends\": [{\"node\": 1, \"port\": 0, \"to\": 2, \"src\": 1, "
                   "\"dst\": \"all\", \"seq\": 0, \"frag\": 0}]}",
                   SN_EALGO, "slot 1: node 1 sends on link 1-2 packet (src 1, dst \"all\"",
                   "no packet of this bcast");
}

static void test_refuses_single_port_twice(void **state)
{
    (void) state;
    /* node 1 sends on both its ports in one slot: single-port allows one */
    expect_refused("single",
                   "{\"slot\": 1, \"sends\": [" SEND(0, 0, 1) "]}, {\"slot\": 2, \"sends\": [" SEND(
                       1, 1, 0) ", " SEND(1, 0, 2) "]}",
                   SN_EPORT, "slot 2: node 1 sends a second packet", "single-port");
}

static void test_refuses_missing_delivery(void **state)
{
    (void) state;
    expect_refused("single", "{\"slot\": 1, \"sends\": [" SEND(0, 0, 1) "]}", SN_EVERIFY,
                   "1 of the 2 expected deliveries", "node 2");
}

static void test_refuses_wrong_link(void **state)
{
    (void) state;
    expect_refused("single", "{\"slot\": 1, \"sends\": [" SEND(0, 0, 2) "]}", SN_EALGO,
                   "slot 1: node 0 port 0 leads to node 1, not to 2", NULL);
}

static void test_refuses_other_instance(void **state)
{
    (void) state;
    /* the file says single-port, the run is multiport */
    char *text = linear3("single", "");
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_file_parse(text, strlen(text), &sf, &err), 0);
    tu_assert_rc(sn_sched_file_check(sf, t, &p, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "port model is single, the run's multi"));
    sn_sched_file_free(sf);
    sn_topo_free(t);
    free(text);
}

static void test_parser_refusals(void **state)
{
    (void) state;
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "expected '{'"},
        {"{\"format\": \"other\"}", "format \"other\""},
        {"{\"version\": 2}", "version 2"},
        {"{\"colour\": 1}", "unknown key \"colour\""},
        {"{\"collective\": \"dynbcast\"}", "not dynbcast"},
        {"{\"format\": \"stepnet-schedule\"}", "are required"},
        {"{\"slots\": [{\"slot\": 0, \"sends\": []}]}", "slot 0"},
        {"{\"root\": 99999999999}", "a number above"},
        {"{\"sources\": [3, 1]}", "increasing"},
        {"{\"slots\": [{\"slot\": 1, \"sends\": [{\"node\": 0}]}]}", "needs node, port"},
        {"{\"topology\": \"a\\u0041\"}", "without escapes"},
        {"{\"steps\": 1} x", "the end of the file"},
        /* where, as an editor shows it, and the key meant */
        {"{\"format\": \"stepnet-schedule\",\n \"colective\": \"bcast\"}",
         "line 2, column 14: unknown key \"colective\": did you mean \"collective\"?"},
        {"{\n\n  \"steps\": x}", "line 3, column 12: expected a non-negative integer"},
        /* as strict as JSON: no key twice at any level, no leading zero, integers only */
        {"{\"steps\": 1, \"steps\": 2}", "line 1, column 14: key \"steps\" twice"},
        {"{\"slots\": [], \"slots\": []}", "key \"slots\" twice"},
        {"{\"ports\": \"single\", \"ports\": \"multi\"}", "key \"ports\" twice"},
        {"{\"slots\": [{\"slot\": 1, \"slot\": 2, \"sends\": []}]}",
         "key \"slot\" twice in a slot"},
        {"{\"slots\": [{\"slot\": 1, \"sends\": [{\"node\": 5, \"port\": 0, \"node\": 0}]}]}",
         "key \"node\" twice in a transmission"},
        {"{\"steps\": 01}", "a number with a leading zero"},
        {"{\"slots\": [{\"slot\": 1.0, \"sends\": []}]}", "an integer, written without a fraction"},
        {"{\"slots\": [{\"slot\": 1e0, \"sends\": []}]}", "an integer, written without a fraction"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_sched_file_t *sf = NULL;
        sn_err_t err = {0};
        int rc = sn_sched_file_parse(bad[i].text, strlen(bad[i].text), &sf, &err);
        if (rc != SN_EINVAL || sf != NULL || strstr(err.msg, bad[i].says) == NULL)
            fail_msg("'%s': rc %d, message \"%s\", wanted \"%s\"", bad[i].text, rc, err.msg,
                     bad[i].says);
    }
}

/* ---- combining schedules ----------------------------------------------------------------- */

/* An sna to node 0 on ring:4 (0-1-2-3-0) under `op`: node 2 sends its contribution to 1 and to 3,
 * which pass on {1, 2} and {2, 3}. The root holds two combinations that share node 2's
 * contribution: enough under max (overlaps are harmless), not under sum. */
static char *ring4_sna(const char *op, const char *slots)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f,
            "{\"format\": \"stepnet-schedule\", \"version\": 1, \"topology\": \"ring:4\", "
            "\"collective\": \"sna\", \"root\": 0, \"op\": \"%s\", \"steps\": 2, "
            "\"slots\": [%s]}",
            op, slots);
    fclose(f);
    return text;
}

#define COMB(node, port, to, ops)                                                                  \
    "{\"node\": " #node ", \"port\": " #port ", \"to\": " #to ", \"src\": \"combined\", "          \
    "\"dst\": 0, \"seq\": 0, \"frag\": 0, \"operands\": " ops "}"

#define RING4_OVERLAP                                                                              \
    "{\"slot\": 1, \"sends\": [" COMB(2, 1, 1, "[2]") ", " COMB(                                   \
        2, 0, 3, "[2]") "]}, "                                                                     \
                        "{\"slot\": 2, \"sends\": [" COMB(1, 1, 0, "[1, 2]") ", " COMB(            \
                            3, 0, 0, "[2, 3]") "]}"

/* Parses and checks a ring:4 sna file: the check's return code and message. */
static int check_ring4(const char *op, const char *slots, sn_err_t *err)
{
    char *text = ring4_sna(op, slots);
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_SNA, "multi", "one", "full");
    tu_assert_rc(sn_op_parse(op, &p.op, NULL), 0);
    sn_sched_file_t *sf = NULL;
    int rc = sn_sched_file_parse(text, strlen(text), &sf, err);
    if (rc == 0)
        rc = sn_sched_file_check(sf, t, &p, err);
    if (rc == 0) { /* and it plays, verified */
        void *plan = NULL;
        tu_assert_rc(sn__schedule_plan_new(t, &p, &sf->sched, &sf->ops, &plan, err), 0);
        sn_sim_opts_t opts = {.max_slots = 4};
        sn_sim_result_t res;
        tu_assert_rc(sn_sim_run(t, &p, &sn__algo_schedule, plan, &opts, &res, err), 0);
        assert_true(res.verified);
        assert_int_equal(res.steps, 2);
        sn__algo_schedule.plan_free(plan);
    }
    sn_sched_file_free(sf);
    sn_topo_free(t);
    free(text);
    return rc;
}

static void test_combining_overlap_by_operator(void **state)
{
    (void) state;
    sn_err_t err = {0};
    tu_assert_rc(check_ring4("max", RING4_OVERLAP, &err), 0);
    assert_int_equal(check_ring4("sum", RING4_OVERLAP, &err), SN_EVERIFY);
    assert_non_null(strstr(err.msg, "node 0 never forms the combination of all 4 contributions"));
    assert_non_null(strstr(err.msg, "forms 3 of them"));
}

static void test_combining_refusals(void **state)
{
    (void) state;
    static const struct {
        const char *slots;
        int rc;
        const char *says;
    } bad[] = {
        /* node 1 passes on node 2's contribution in the slot it arrives in */
        {"{\"slot\": 1, \"sends\": [" COMB(2, 1, 1, "[2]") ", " COMB(1, 1, 0, "[1, 2]") "]}",
         SN_EALGO, "slot 1: node 1 sends on link 1-0 a combination of 2 contributions"},
        /* a packet of no one: a combination addressed to node 3, which expects none */
        {"{\"slot\": 1, \"sends\": [{\"node\": 2, \"port\": 0, \"to\": 3, \"src\": "
         "\"combined\", \"dst\": 3, \"seq\": 0, \"frag\": 0, \"operands\": [2]}]}",
         SN_EALGO, "which is no packet of this sna"},
        /* a data packet with a node as its source: an sna's packets are combinations */
        {"{\"slot\": 1, \"sends\": [{\"node\": 1, \"port\": 1, \"to\": 0, \"src\": 1, "
         "\"dst\": 0, \"seq\": 0, \"frag\": 0, \"operands\": [1]}]}",
         SN_EALGO, "its packets are combinations"},
        {"{\"slot\": 1, \"sends\": [" COMB(1, 1, 0, "[]") "]}", SN_EALGO,
         "a combination of no contributions"},
        {"{\"slot\": 1, \"sends\": [" COMB(1, 1, 0, "[1, 9]") "]}", SN_EALGO,
         "operand 9: operands are processors"},
        {"{\"slot\": 1, \"sends\": [" COMB(1, 1, 0, "[2, 1]") "]}", SN_EINVAL,
         "operands must be increasing (1 after 2)"},
        /* nodes 2 and 3 never reach the root */
        {"{\"slot\": 1, \"sends\": [" COMB(1, 1, 0, "[1]") "]}", SN_EVERIFY,
         "node 0 never forms the combination of all 4 contributions"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_err_t err = {0};
        int rc = check_ring4("sum", bad[i].slots, &err);
        if (rc != bad[i].rc || strstr(err.msg, bad[i].says) == NULL)
            fail_msg("case %zu: rc %d, message \"%s\", wanted %d and \"%s\"", i, rc, err.msg,
                     bad[i].rc, bad[i].says);
    }
    /* a combining file needs its operator; operands belong to combinations only */
    static const char *const nop =
        "{\"format\": \"stepnet-schedule\", \"version\": 1, \"topology\": \"ring:4\", "
        "\"collective\": \"sna\", \"steps\": 0, \"slots\": []}";
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    assert_int_equal(sn_sched_file_parse(nop, strlen(nop), &sf, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "a schedule of sna needs its op"));
    char *text = linear3("multi", "{\"slot\": 1, \"sends\": [{\"node\": 0, \"port\": 0, \"to\": "
                                  "1, \"src\": 0, \"dst\": \"all\", \"seq\": 0, \"frag\": 0, "
                                  "\"operands\": [0]}]}");
    assert_int_equal(sn_sched_file_parse(text, strlen(text), &sf, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "operands belong to the combined data packets"));
    free(text);
}

/* A recording holds at most max_ev transmissions: over it, refused (before the run when the
 * deliveries alone are more, after it otherwise), exactly at it recorded; and no transmission line
 * the writer writes is shorter than SN_SCHED_FILE_MIN_LINE, which the estimates divide by. */
static void test_record_max_and_min_line(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3");
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_sched_t *s = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_record(t, &p, "te-route", &s, &err), 0);
    uint64_t n = s->n; /* 72 deliveries, more transmissions (two-hop routes) */
    assert_true(n > 72);
    /* every line of the file it makes is at least SN_SCHED_FILE_MIN_LINE bytes */
    char *text = NULL;
    size_t len = 0;
    tu_assert_rc(sn_sched_file_format(t, &p, "te-route", s, NULL, &text, &len, &err), 0);
    size_t lines = 0;
    for (const char *q = text; (q = strstr(q, "{\"node\"")) != NULL; q++) {
        const char *end = strchr(q, '}');
        assert_non_null(end);
        assert_true((size_t) (end - q + 1) >= SN_SCHED_FILE_MIN_LINE);
        lines++;
    }
    assert_int_equal(lines, n);
    free(text);
    sn_sched_free(s);
    s = NULL;
    tu_assert_rc(sn_sched_record_max(t, &p, "te-route", n, "the test", &s, &err), 0);
    assert_int_equal(s->n, n);
    sn_sched_free(s);
    s = NULL;
    tu_assert_rc(sn_sched_record_max(t, &p, "te-route", n - 1, "the test", &s, &err), SN_ERANGE);
    assert_null(s);
    assert_non_null(strstr(err.msg, "transmissions, more than the"));
    assert_non_null(strstr(err.msg, "that the test allows"));
    tu_assert_rc(sn_sched_record_max(t, &p, "te-route", 71, "the test", &s, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "at least 72 transmissions (one per delivery)"));
    /* the bound of a file read back within a memory limit, and of an assignment */
    assert_int_equal(sn_sched_file_max_transmissions(0, 0),
                     SN_SCHED_FILE_MAX_BYTES / SN_SCHED_FILE_MIN_LINE);
    assert_int_equal(sn_sched_file_max_transmissions(0, 1),
                     SN_SCHED_FILE_MAX_ASSIGN / SN_SCHED_FILE_MIN_LINE);
    assert_int_equal(sn_sched_file_max_transmissions(64u << 20, 0),
                     (64u << 20) / SN_SCHED_FILE_MEM_PER_BYTE / SN_SCHED_FILE_MIN_LINE);
    sn_topo_free(t);
}

/* The operands of a recorded allreduce: every combination that crosses a link of recursive
 * doubling on hypercube:2 holds the contributions of a subcube, and the last ones all four. */
static void test_record_operands(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:2");
    sn_params_t p = tu_params(SN_COLL_ALLREDUCE, "multi", "one", "full");
    sn_sched_t *s = NULL;
    tu_assert_rc(sn_sched_record(t, &p, "allreduce-rd", &s, NULL), 0);
    sn_sched_ops_t ops = {0};
    tu_assert_rc(sn_sched_record_operands(t, &p, "allreduce-rd", s, &ops, NULL), 0);
    assert_int_equal(s->n, 8);
    for (size_t i = 0; i < s->n; i++) {
        size_t n = ops.first[i + 1] - ops.first[i];
        assert_int_equal(n, s->ev[i].slot == 1 ? 1 : 2); /* {u}, then {u, u's first partner} */
        assert_int_equal(ops.id[ops.first[i]] <= s->ev[i].node, 1);
    }
    sn_sched_ops_free(&ops);
    sn_sched_free(s);
    sn_topo_free(t);
}

/* What a coordinator sends its nodes (sn_sched_file_text) builds, on a node, the plan of the same
 * schedule (sn_sched_file_plan_text); a text that breaks a rule is refused there too. */
static void test_assignment_text(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:5");
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    sn_sched_t *s = NULL;
    tu_assert_rc(sn_sched_record(t, &p, NULL, &s, NULL), 0);
    void *plan = NULL, *plan2 = NULL;
    tu_assert_rc(sn__schedule_plan_new(t, &p, s, NULL, &plan, NULL), 0);
    char *text = NULL;
    size_t len = 0;
    sn_err_t err = {0};
    tu_assert_rc(sn_sched_file_text(&sn__algo_schedule, plan, t, &p, &text, &len, &err), 0);
    assert_non_null(text);
    const sn_algo_t *a = NULL;
    tu_assert_rc(sn_sched_file_plan_text(text, len, t, &p, &a, &plan2, &err), 0);
    assert_ptr_equal(a, &sn__algo_schedule);
    sn_sched_t x, y;
    sn__schedule_plan_sched(plan, &x, NULL);
    sn__schedule_plan_sched(plan2, &y, NULL);
    assert_int_equal(x.n, s->n);
    assert_int_equal(y.n, x.n);
    assert_int_equal(y.steps, s->steps);
    for (size_t i = 0; i < x.n; i++) { /* the identities (tags and digests are not in a file) */
        const sn_sched_ev_t *e = &x.ev[i], *f = &y.ev[i];
        assert_true(e->slot == f->slot && e->node == f->node && e->port == f->port &&
                    e->pkt.src == f->pkt.src && e->pkt.dst == f->pkt.dst &&
                    e->pkt.seq == f->pkt.seq && e->pkt.frag == f->pkt.frag &&
                    e->pkt.kind == f->pkt.kind);
    }
    /* another algorithm's plan has no text to send */
    char *none = (char *) 1;
    size_t none_len = 1;
    tu_assert_rc(sn_sched_file_text(sn_model_find("te-route"), plan, t, &p, &none, &none_len, &err),
                 0);
    assert_int_equal(none_len, 0);
    assert_null(none);
    /* the same text for a multiport run: the node refuses it, naming the field */
    sn_params_t q = tu_params(SN_COLL_TE, "multi", "one", "full");
    void *plan3 = NULL;
    tu_assert_rc(sn_sched_file_plan_text(text, len, t, &q, &a, &plan3, &err), SN_EINVAL);
    assert_null(plan3);
    if (strstr(err.msg, "port model is single, the run's multi") == NULL)
        fail_msg("message: %s", err.msg);
    sn__algo_schedule.plan_free(plan);
    sn__algo_schedule.plan_free(plan2);
    free(text);
    sn_sched_free(s);
    sn_topo_free(t);
}

static void test_read_refuses_over_memory(void **state)
{
    (void) state;
    char *path = tu_tmpfile("{\"format\": \"stepnet-schedule\"}                              ");
    sn_sched_file_t *sf = NULL;
    sn_err_t err = {0};
    /* 60 bytes at 64 bytes of memory each need 3840: a limit of 1024 refuses before reading */
    tu_assert_rc(sn_sched_file_read(path, 1024, &sf, &err), SN_ERANGE);
    assert_null(sf);
    assert_non_null(strstr(err.msg, "above the limit of 1024"));
    remove(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_algorithm),
        cmocka_unit_test(test_valid_linear3),
        cmocka_unit_test(test_writer_sink_failure),
        cmocka_unit_test(test_refuses_packet_not_held),
        cmocka_unit_test(test_refuses_packet_of_no_one),
        cmocka_unit_test(test_refuses_single_port_twice),
        cmocka_unit_test(test_refuses_missing_delivery),
        cmocka_unit_test(test_refuses_wrong_link),
        cmocka_unit_test(test_refuses_other_instance),
        cmocka_unit_test(test_parser_refusals),
        cmocka_unit_test(test_assignment_text),
        cmocka_unit_test(test_combining_overlap_by_operator),
        cmocka_unit_test(test_combining_refusals),
        cmocka_unit_test(test_record_operands),
        cmocka_unit_test(test_record_max_and_min_line),
        cmocka_unit_test(test_read_refuses_over_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
