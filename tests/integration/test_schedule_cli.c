/* `stepnet export` and `--algo schedule:FILE` through the binary: the exported schedule plays
 * back in sim with the algorithm's steps and trace hash, and the bad inputs end with exit 2 and a
 * message naming the value (a bad file, a file of another instance, a file over --max-memory, a
 * combining collective, bench with a schedule); run plays a schedule over TCP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/support/testutil.h"

static tu_proc_t run_(const char *const *args)
{
    tu_exec_opts_t o = {.name = "stepnet"};
    return tu_exec(tu_env_bin("STEPNET"), args, &o);
}

#define RUN(...) run_((const char *const[]){__VA_ARGS__, NULL})

/* Runs, expects exit 2 and `says` in the one line on stderr. */
static void expect_bad_input(tu_proc_t r, const char *says)
{
    tu_expect_status(&r, 2);
    if (strstr(r.err, says) == NULL)
        fail_msg("%s: stderr lacks \"%s\":\n%s", r.cmd, says, r.err);
    tu_exec_free(&r);
}

static char *export_to_tmp(const char *const *opts, size_t nopts)
{
    char *path = tu_tmpfile("");
    const char *args[32];
    size_t n = 0;
    args[n++] = "export";
    for (size_t i = 0; i < nopts; i++)
        args[n++] = opts[i];
    args[n++] = "--out";
    args[n++] = path;
    args[n++] = "--force"; /* tu_tmpfile made it */
    args[n] = NULL;
    tu_proc_t r = run_(args);
    tu_expect_status(&r, 0);
    tu_exec_free(&r);
    return path;
}

/* export then sim --algo schedule:FILE: the same steps and trace hash as the algorithm. */
static void test_export_then_play(void **state)
{
    (void) state;
    static const char *const cases[][12] = {
        {"--topo", "torus:3x3", "--coll", "te", "--ports", "single", "--algo", "te-route"},
        {"--topo", "hypercube:3", "--coll", "mnb", "--msgs", "2", "--frags", "2"},
        {"--topo", "ring:7", "--coll", "pmnb", "--sources", "0,3", "--duplex", "half"},
        /* combining: the operands traced from the algorithm's run */
        {"--topo", "hypercube:3", "--coll", "allreduce", "--msgs", "2", "--algo", "allreduce-rd"},
        {"--topo", "torus:3x3", "--coll", "sna", "--root", "4", "--duplex", "half"},
        {"--topo", "ring:6", "--coll", "barrier", "--op", "max", "--algo", "barrier-flood"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = 0;
        while (n < 12 && cases[c][n])
            n++;
        char *path = export_to_tmp(cases[c], n);
        char algo[600];
        snprintf(algo, sizeof algo, "schedule:%s", path);
        const char *a[32], *b[32];
        size_t k = 0, m = 0;
        a[k++] = b[m++] = "sim";
        for (size_t i = 0; i < n; i++) {
            if (strcmp(cases[c][i], "--algo") == 0) {
                a[k++] = cases[c][i];
                a[k++] = cases[c][++i];
                continue;
            }
            a[k++] = b[m++] = cases[c][i];
        }
        a[k++] = b[m++] = "--json";
        b[m++] = "--algo";
        b[m++] = algo;
        a[k] = b[m] = NULL;
        tu_proc_t ra = run_(a), rb = run_(b);
        tu_expect_status(&ra, 0);
        tu_expect_status(&rb, 0);
        const char *ja = tu_json_line(&ra), *jb = tu_json_line(&rb);
        assert_int_equal(tu_json_int(ja, "steps"), tu_json_int(jb, "steps"));
        const char *ha = tu_json_need(ja, "trace_hash"), *hb = tu_json_need(jb, "trace_hash");
        assert_memory_equal(ha, hb, 18);
        assert_true(tu_json_bool(jb, "verified"));
        /* the file alone: every option (topology, collective, root, sources, op, msgs, frags,
         * port model) taken from it, the same run; the report names the file and its algorithm */
        tu_proc_t rc = RUN("sim", "--algo", algo, "--json");
        tu_expect_status(&rc, 0);
        const char *jc = tu_json_line(&rc);
        assert_memory_equal(tu_json_need(jc, "trace_hash"), ha, 18);
        char buf[600];
        assert_string_equal(tu_json_str(jc, "schedule_file", buf, sizeof buf), path);
        assert_string_equal(tu_json_str(jc, "schedule_algorithm", buf, sizeof buf),
                            tu_json_str(ja, "algorithm", buf + 300, 300));
        tu_exec_free(&rc);
        tu_exec_free(&ra);
        tu_exec_free(&rb);
        remove(path);
        free(path);
    }
}

/* run --algo schedule:FILE over TCP, one process per node: the nodes receive the schedule in
 * their assignment, check it and play it; steps and trace hash are sim's for the algorithm. */
static void test_run_over_tcp(void **state)
{
    (void) state;
    static const char *const cases[][8] = {
        {"--topo", "torus:3x3", "--coll", "te", "--ports", "single"},
        {"--topo", "hypercube:3", "--coll", "bcast", "--duplex", "half"},
        /* combining: every node makes the combinations it sends from the values that arrived */
        {"--topo", "hypercube:3", "--coll", "allreduce", "--ports", "single"},
        {"--topo", "torus:3x3", "--coll", "mna", "--ports", "multi"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *path = export_to_tmp(cases[c], 6);
        char algo[600];
        snprintf(algo, sizeof algo, "schedule:%s", path);
        const char *s = cases[c][5];
        const char *const *k = cases[c];
        tu_proc_t rs = RUN("sim", k[0], k[1], k[2], k[3], k[4], s, "--json");
        tu_proc_t rr = RUN("run", k[0], k[1], k[2], k[3], k[4], s, "--reps", "1", "--warmup", "0",
                           "--algo", algo, "--json");
        tu_expect_status(&rs, 0);
        tu_expect_status(&rr, 0);
        const char *js = tu_json_line(&rs), *jr = tu_json_line(&rr);
        assert_int_equal(tu_json_int(js, "steps"), tu_json_int(jr, "steps"));
        assert_memory_equal(tu_json_need(js, "trace_hash"), tu_json_need(jr, "trace_hash"), 18);
        assert_true(tu_json_bool(jr, "verified"));
        assert_memory_equal(tu_json_need(jr, "algorithm"), "\"schedule\"", 10);
        tu_exec_free(&rs);
        tu_exec_free(&rr);
        remove(path);
        free(path);
    }
}

static void test_bad_inputs(void **state)
{
    (void) state;
    const char *const opts[] = {"--topo", "linear:4", "--coll", "bcast", "--ports", "single"};
    char *path = export_to_tmp(opts, 6);
    char algo[600];
    snprintf(algo, sizeof algo, "schedule:%s", path);
    /* another port model than the file's */
    expect_bad_input(
        RUN("sim", "--topo", "linear:4", "--coll", "bcast", "--ports", "multi", "--algo", algo),
        "--ports multi: the schedule file");
    /* bench sweeps sizes; a file has one */
    expect_bad_input(
        RUN("bench", "--topo", "linear:4", "--coll", "bcast", "--ports", "single", "--algo", algo),
        "schedule files play in sim and run, not in bench");
    remove(path);
    free(path);
    char *big = tu_tmpfile("");
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    /* 200 KB of blanks: --max-memory 9M (the run itself needs 8 MiB) allows files of 144 KiB, so
     * it is refused before a byte is read */
    for (int i = 0; i < 25000; i++)
        fputs("        ", f);
    fclose(f);
    snprintf(algo, sizeof algo, "schedule:%s", big);
    expect_bad_input(
        RUN("sim", "--topo", "linear:4", "--coll", "bcast", "--max-memory", "9M", "--algo", algo),
        "above the limit of 9437184");
    remove(big);
    free(big);
    /* a schedule that breaks the single-port model */
    char *bad = tu_tmpfile(
        "{\"format\": \"stepnet-schedule\", \"version\": 1, \"topology\": \"linear:3\", "
        "\"collective\": \"bcast\", \"root\": 1, \"ports\": \"single\", \"steps\": 1, "
        "\"slots\": [{\"slot\": 1, \"sends\": ["
        "{\"node\": 1, \"port\": 0, \"to\": 2, \"src\": 1, \"dst\": \"all\", \"seq\": 0, "
        "\"frag\": 0}, {\"node\": 1, \"port\": 1, \"to\": 0, \"src\": 1, \"dst\": \"all\", "
        "\"seq\": 0, \"frag\": 0}]}]}");
    snprintf(algo, sizeof algo, "schedule:%s", bad);
    expect_bad_input(RUN("sim", "--topo", "linear:3", "--coll", "bcast", "--root", "1", "--ports",
                         "single", "--algo", algo),
                     "slot 1: node 1 sends a second packet (on link");
    remove(bad);
    free(bad);
    expect_bad_input(RUN("sim", "--topo", "linear:3", "--coll", "bcast", "--algo",
                         "schedule:/nonexistent/s.json"),
                     "/nonexistent/s.json");
    expect_bad_input(RUN("export", "--topo", "ring:4", "--coll", "dynbcast"),
                     "dynbcast is rounds of broadcasts arriving at random");
}

/* A schedule file stands alone: an option given with another value than the file's is refused
 * naming the flag and the file's value; a file: graph is the same by its edges, whatever the
 * path, and found beside the schedule file; export keeps an existing file without --force and
 * says what it wrote; a FIFO is refused at once, never waited on. */
static void test_file_stands_alone(void **state)
{
    (void) state;
    char *path = export_to_tmp(
        (const char *const[]){"--topo", "hypercube:3", "--coll", "bcast", "--ports", "single"}, 6);
    char algo[600];
    snprintf(algo, sizeof algo, "schedule:%s", path);
    tu_proc_t r = RUN("sim", "--algo", algo);
    tu_expect_status(&r, 0);
    char want[700];
    snprintf(want, sizeof want, "  schedule file   %s (recorded from bcast-binomial)\n", path);
    if (strstr(r.out, want) == NULL)
        fail_msg("the report lacks '%s':\n%s", want, r.out);
    tu_exec_free(&r);
    expect_bad_input(RUN("sim", "--algo", algo, "--ports", "multi"),
                     "--ports multi: the schedule file");
    expect_bad_input(RUN("sim", "--algo", algo, "--ports", "multi"),
                     "has --ports single; leave --ports out to take the file's, or give --ports "
                     "single");
    expect_bad_input(RUN("sim", "--algo", algo, "--topo", "hypercube:4"),
                     "--topo hypercube:4: the schedule file");
    expect_bad_input(RUN("sim", "--algo", algo, "--msgs", "2"), "has --msgs 1");
    expect_bad_input(RUN("sim", "--algo", algo, "--coll", "mnb"), "has --coll bcast");
    expect_bad_input(RUN("sim", "--algo", algo, "--root", "3"), "has --root 0");
    /* export: kept without --force, replaced with it, and what was written said */
    r = RUN("export", "--topo", "hypercube:3", "--coll", "mnb", "--out", path);
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "the file exists; give --force to replace it"));
    tu_exec_free(&r);
    r = RUN("export", "--topo", "hypercube:3", "--coll", "mnb", "--out", path, "--force");
    tu_expect_status(&r, 0);
    snprintf(want, sizeof want, "stepnet export: wrote %s (", path);
    assert_non_null(strstr(r.err, want));
    assert_non_null(strstr(r.err, "mnb on hypercube:3 by "));
    tu_exec_free(&r);
    expect_bad_input(RUN("export", "--topo", "ring:4", "--coll", "bcast", "--force"),
                     "--force replaces the file of --out");
    remove(path);
    free(path);

    /* file: graphs: the graph beside the schedule file, written with a relative path; and the
     * same edges under another path */
    char dir[] = "/tmp/stepnet-sched-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char here[64], beside[128], sched[128], spec[160], other[256];
    snprintf(here, sizeof here, "sched-graph-%d.txt", (int) getpid());
    snprintf(beside, sizeof beside, "%s/%s", dir, here);
    snprintf(sched, sizeof sched, "%s/s.json", dir);
    static const char edges[] = "0 1\n1 2\n2 3\n3 0\n0 2\n";
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(i ? beside : here, "w");
        assert_non_null(f);
        fputs(edges, f);
        fclose(f);
    }
    snprintf(spec, sizeof spec, "file:%s", here);
    r = RUN("export", "--topo", spec, "--coll", "mnb", "--out", sched);
    tu_expect_status(&r, 0);
    tu_exec_free(&r);
    remove(here); /* only the copy beside the schedule is left */
    snprintf(algo, sizeof algo, "schedule:%s", sched);
    r = RUN("sim", "--algo", algo, "--json");
    tu_expect_status(&r, 0);
    assert_true(tu_json_bool(tu_json_line(&r), "verified"));
    tu_exec_free(&r);
    snprintf(other, sizeof other, "file:%s/./%s", dir, here);
    r = RUN("sim", "--algo", algo, "--topo", other, "--json");
    tu_expect_status(&r, 0);
    assert_true(tu_json_bool(tu_json_line(&r), "verified"));
    tu_exec_free(&r);
    FILE *f = fopen(beside, "w"); /* another graph at that path: the file's links are not it */
    assert_non_null(f);
    fputs("0 1\n1 2\n2 3\n3 0\n1 3\n", f);
    fclose(f);
    expect_bad_input(RUN("sim", "--algo", algo, "--topo", other), "no such port");
    /* and a graph of other edges under another name: not the file's topology */
    char third[200];
    snprintf(third, sizeof third, "%s/third.txt", dir);
    f = fopen(third, "w");
    assert_non_null(f);
    fputs("0 1\n1 2\n2 3\n", f);
    fclose(f);
    snprintf(other, sizeof other, "file:%s", third);
    expect_bad_input(RUN("sim", "--algo", algo, "--topo", other), "--topo file:");
    remove(third);
    remove(beside);
    remove(sched);

    /* a valid schedule whose last slot is 2^32 - 1: sim verifies it at once; run, which plays
     * every slot, refuses it before it starts, since even 1 us a slot is past the deadline */
    path = export_to_tmp((const char *const[]){"--topo", "linear:3", "--coll", "bcast"}, 4);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *st = strstr(text, "\"steps\": ");
    assert_non_null(st);
    char longer[4200];
    snprintf(longer, sizeof longer, "%.*s\"steps\": 4294967295%s", (int) (st - text), text,
             st + strcspn(st, ","));
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(longer, f);
    fclose(f);
    snprintf(algo, sizeof algo, "schedule:%s", path);
    r = RUN("sim", "--algo", algo, "--json");
    tu_expect_status(&r, 0);
    assert_true(tu_json_bool(tu_json_line(&r), "verified"));
    tu_exec_free(&r);
    r = RUN("run", "--algo", algo);
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "takes 4294967295 slots: at 1 us a slot"));
    assert_non_null(strstr(r.err, "above --collective-timeout-ms 300000"));
    assert_true(r.secs < 5.0);
    tu_exec_free(&r);
    remove(path);
    free(path);

    /* a FIFO: refused as not a regular file, at once */
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(algo, sizeof algo, "schedule:%s", fifo);
    r = RUN("sim", "--algo", algo);
    tu_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "not a regular file"));
    assert_true(r.secs < 5.0);
    tu_exec_free(&r);
    remove(fifo);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_then_play),
        cmocka_unit_test(test_run_over_tcp),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_file_stands_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
