/* Tests of the measured outputs of `stepnet bench` and `stepnet run` over real processes on
 * 127.0.0.1: a sweep over three packet sizes in one launch (each size's steps and trace hash equal
 * to `stepnet sim` at that size), its OSU-style text, JSON lines and CSV; the payload bandwidth of
 * run and bench (per node and in all, from the payload and the median wall time); the run
 * report's statistics, CSV, schema, version, timestamp, hosts and per-link calibration; null
 * (empty in CSV), never 0, for what a failed run or bench did not measure; the strict parsing of
 * --sizes (exit 2); the memory budget of the largest size; progress on stderr (forced, silenced,
 * and on a terminal through script(1)); and that docs/output.md documents every JSON key run and
 * bench emit and their CSV header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepnet/error.h"
#include "tests/support/testutil.h"

#define RUN_DEADLINE_S 120

static tu_proc_t run_(const char *const *args)
{
    tu_exec_opts_t o = {.name = "stepnet", .deadline_s = RUN_DEADLINE_S};
    return tu_exec(tu_env_bin("STEPNET"), args, &o);
}

#define RUN(...) run_((const char *const[]){__VA_ARGS__, NULL})

/* A fresh temporary path (the file is created empty). */
static void temp_path(char *path, size_t cap, const char *tag)
{
    snprintf(path, cap, "/tmp/stepnet-test-bench-%s-XXXXXX", tag);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t) n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t) n, f), (size_t) n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The line `i` (from 0) of s, without its newline, into buf; 0 when there is none. */
static int nth_line(const char *s, size_t i, char *buf, size_t cap)
{
    for (; i > 0 && s; i--) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    if (s == NULL || *s == '\0')
        return 0;
    size_t len = strcspn(s, "\n");
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return 1;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The steps and trace hash `stepnet sim` gives at `size`. */
static void sim_at(const char *topo, const char *coll, const char *size, int64_t *steps, char *hash,
                   size_t cap)
{
    tu_proc_t r = RUN("sim", "--topo", topo, "--coll", coll, "--size", size, "--json");
    tu_expect_status(&r, 0);
    const char *j = tu_json_line(&r);
    *steps = tu_json_int(j, "steps");
    tu_json_str(j, "trace_hash", hash, cap);
    tu_exec_free(&r);
}

/* Splits a CSV line without quoted fields in place; returns the number of fields. */
/* s begins with want. */
static void expect_prefix(const char *s, const char *want)
{
    assert_non_null(s);
    if (strncmp(s, want, strlen(want)) != 0)
        fail_msg("'%s' does not begin with '%s'", s, want);
}

static size_t split_csv(char *line, char **f, size_t cap)
{
    size_t n = 0;
    for (char *p = line; n < cap;) {
        f[n++] = p;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    return n;
}

/* ---- the JSON keys of a record, for the documentation check --------------------------------- */

typedef struct keys_s {
    char name[256][48];
    size_t n;
} keys_t;

static void add_key(keys_t *k, const char *s, size_t len)
{
    if (len >= sizeof k->name[0])
        fail_msg("JSON key too long: %.*s", (int) len, s);
    for (size_t i = 0; i < k->n; i++)
        if (strlen(k->name[i]) == len && memcmp(k->name[i], s, len) == 0)
            return;
    assert_true(k->n < 256);
    memcpy(k->name[k->n], s, len);
    k->name[k->n][len] = '\0';
    k->n++;
}

/* Every member name of the value at p, nested ones included; returns the position after it. */
static const char *walk(const char *p, keys_t *k)
{
    p = tu_json_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = tu_json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            p = tu_json_ws(p);
            if (close == '}') {
                assert_int_equal(*p, '"');
                const char *q = strchr(p + 1, '"');
                assert_non_null(q);
                add_key(k, p + 1, (size_t) (q - p - 1));
                p = tu_json_ws(q + 1);
                assert_int_equal(*p, ':');
                p++;
            }
            p = tu_json_ws(walk(p, k));
            if (*p == ',') {
                p++;
                continue;
            }
            assert_int_equal(*p, close);
            return p + 1;
        }
    }
    const char *e = tu_json_skip(p);
    assert_non_null(e);
    return e;
}

static void expect_documented(const char *doc, const char *json, const char *what)
{
    keys_t k = {.n = 0};
    walk(json, &k);
    assert_true(k.n > 10);
    for (size_t i = 0; i < k.n; i++) {
        char want[64];
        snprintf(want, sizeof want, "`%s`", k.name[i]);
        if (strstr(doc, want) == NULL)
            fail_msg("docs/output.md does not document the key \"%s\" of %s", k.name[i], what);
    }
}

static char *read_doc(void)
{
    const char *src = getenv("STEPNET_SRC");
    if (src == NULL || *src == '\0')
        fail_msg("STEPNET_SRC is not set: run this test through ctest");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/output.md", src);
    return read_text(path);
}

/* ---- tests ----------------------------------------------------------------------------------- */

static const char *const sweep_sizes[] = {"8", "1024", "65536"};

/* Fails unless a and b agree within 0.2 %: the reports round (6 significant digits in the JSON
 * and the bandwidth columns, 3 decimals for the CSV's wall times). */
static void expect_near(double a, double b, const char *what)
{
    double d = a > b ? a - b : b - a, m = a > b ? a : b;
    if (!(m > 0) || d > 2e-3 * m)
        fail_msg("%s: %.9g, want %.9g", what, a, b);
}

/* The bandwidth fields of a verified record: bw_total_mb_s is the payload of a repetition
 * (expected_deliveries x size bytes) over the median wall time `median_key` in us (bytes per us
 * are MB/s), and bw_node_mb_s x nodes is bw_total_mb_s. */
static void expect_bandwidth(const char *j, const char *median_key, int64_t nodes)
{
    double bytes = (double) tu_json_int(j, "expected_deliveries") * (double) tu_json_int(j, "size");
    double total = tu_json_num(j, "bw_total_mb_s"), node = tu_json_num(j, "bw_node_mb_s");
    expect_near(total, bytes / tu_json_num(j, median_key), "bw_total_mb_s");
    expect_near(node * (double) nodes, total, "bw_node_mb_s x nodes");
}

/* A three-size sweep of bcast on ring:4 in one launch: one JSON line per size, each verified with
 * the simulator's steps and trace hash at its size, its bandwidth (the payload over the p50, per
 * node and in all), and the CSV with its header and three rows. */
static void test_sweep_json_csv(void **state)
{
    (void) state;
    char csv[256];
    temp_path(csv, sizeof csv, "csv");
    tu_proc_t r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8,1K,64K",
                      "--iters", "3", "--warmup", "1", "--json", "--csv", csv);
    tu_expect_status(&r, 0);
    assert_int_equal(count_lines(r.out), 3);
    for (size_t i = 0; i < 3; i++) {
        char line[16384];
        assert_true(nth_line(r.out, i, line, sizeof line));
        const char *e = tu_json_skip(line);
        if (e == NULL || *tu_json_ws(e) != '\0')
            fail_msg("line %zu of bench --json is not one JSON object: %s", i, line);
        char buf[64];
        assert_int_equal(tu_json_int(line, "schema"), 1);
        assert_string_equal(tu_json_str(line, "cmd", buf, sizeof buf), "bench");
        assert_true(strlen(tu_json_str(line, "stepnet_version", buf, sizeof buf)) > 0);
        assert_int_equal(tu_json_int(line, "size"), atoll(sweep_sizes[i]));
        assert_true(tu_json_bool(line, "verified"));
        assert_int_equal(tu_json_int(line, "iterations"), 3);
        double wall[8];
        assert_int_equal(tu_json_nums(line, "wall_us", wall, 8), 3);
        double mn = tu_json_num(line, "wall_us_min"), mx = tu_json_num(line, "wall_us_max");
        double p50 = tu_json_num(line, "wall_us_p50"), avg = tu_json_num(line, "wall_us_avg");
        assert_true(mn > 0 && mn <= p50 && p50 <= mx && mn <= avg && avg <= mx);
        assert_true(tu_json_num(line, "predicted_us") > 0);
        /* every size by the time model, not only the largest (whose parameters the plan holds) */
        assert_string_equal(tu_json_str(line, "model", buf, sizeof buf), "slot");
        /* the nodes' mean own time of every repetition, within its span (one clock) */
        double coll[8], node[8];
        assert_int_equal(tu_json_nums(line, "coll_us", coll, 8), 3);
        assert_int_equal(tu_json_nums(line, "node_us", node, 8), 3);
        for (size_t k = 0; k < 3; k++)
            assert_true(node[k] > 0 && node[k] <= coll[k] + 0.01);
        assert_true(tu_json_num(line, "node_us_median") <=
                    tu_json_num(line, "coll_us_median") + 0.01);
        int64_t steps;
        char hash[32], got[32];
        sim_at("ring:4", "bcast", sweep_sizes[i], &steps, hash, sizeof hash);
        assert_int_equal(tu_json_int(line, "steps"), steps);
        assert_string_equal(tu_json_str(line, "trace_hash", got, sizeof got), hash);
        assert_int_equal(tu_json_int(line, "bytes_checked"),
                         tu_json_int(line, "deliveries") * atoll(sweep_sizes[i]));
        expect_bandwidth(line, "wall_us_p50", 4);
        /* each size learns its quiet slot (after its last send) in its first repetition */
        assert_string_equal(tu_json_str(line, "termination", buf, sizeof buf), "learn");
        assert_true(tu_json_int(line, "quiet_slot") > steps);
        int64_t hosts_n = 0;
        const char *h = tu_json_need(line, "hosts");
        assert_int_equal(*h, '[');
        for (const char *q = h; *q && *q != ']'; q++)
            hosts_n += *q == '"';
        assert_int_equal(hosts_n, 2 * 4); /* one quoted name per node */
    }
    char *text = read_text(csv);
    assert_int_equal(count_lines(text), 4);
    char line[512];
    assert_true(nth_line(text, 0, line, sizeof line));
    assert_string_equal(line, "topology,collective,algorithm,ports,rx,duplex,size,avg_us,min_us,"
                              "max_us,p50_us,p99_us,iterations,steps,predicted_us,verified,"
                              "coll_avg_us,coll_p50_us,node_avg_us,node_p50_us,bw_node_mb_s,"
                              "bw_total_mb_s,bw_bus_mb_s,nodes_mode,launch,security,warmup,"
                              "stepnet_version,"
                              "timestamp");
    for (size_t i = 0; i < 3; i++) {
        assert_true(nth_line(text, i + 1, line, sizeof line));
        char want[64];
        snprintf(want, sizeof want, "ring:4,bcast,");
        assert_memory_equal(line, want, strlen(want));
        snprintf(want, sizeof want, ",full,%s,", sweep_sizes[i]);
        assert_non_null(strstr(line, want));
        char *f[32];
        assert_int_equal(split_csv(line, f, 32), 29);
        assert_string_equal(f[12], "3"); /* iterations */
        /* what was run, on every row: the plots' titles come from these */
        assert_string_equal(f[23], "local");
        assert_string_equal(f[24], "4 local processes");
        assert_string_equal(f[25], "sodium");
        assert_string_equal(f[26], "1"); /* warmup */
        assert_true(strlen(f[27]) > 0);  /* stepnet_version */
        assert_int_equal(strlen(f[28]), strlen("2026-11-23T20:06:13Z"));
        assert_int_equal(f[28][10], 'T');
        /* the payload (3 deliveries of the size) over p50, spread over the 4 nodes */
        expect_near(atof(f[21]), 3.0 * atof(sweep_sizes[i]) / atof(f[10]), "CSV bw_total_mb_s");
        expect_near(atof(f[20]) * 4, atof(f[21]), "CSV bw_node_mb_s x 4");
        /* a broadcast's bus bandwidth is the message over the time (nccl-tests' factor 1) */
        expect_near(atof(f[22]), atof(sweep_sizes[i]) / atof(f[10]), "CSV bw_bus_mb_s");
        /* the collective's own time (after the in-band barrier) is within the wall time */
        assert_true(atof(f[16]) > 0 && atof(f[16]) <= atof(f[7]));
        assert_true(atof(f[17]) > 0 && atof(f[17]) <= atof(f[10]));
        /* the nodes' mean own time lies within the span, repetition by repetition */
        assert_true(atof(f[18]) > 0 && atof(f[18]) <= atof(f[16]) + 0.01);
        assert_true(atof(f[19]) > 0 && atof(f[19]) <= atof(f[17]) + 0.01);
        int64_t steps;
        char hash[32];
        sim_at("ring:4", "bcast", sweep_sizes[i], &steps, hash, sizeof hash);
        assert_int_equal(atoll(f[13]), steps);
        assert_true(atof(f[14]) > 0);    /* predicted_us */
        assert_string_equal(f[15], "1"); /* verified */
    }
    free(text);
    tu_exec_free(&r);
    unlink(csv);
}

static void expect_bad(const char *needle, const char *const *args)
{
    tu_proc_t r = run_(args);
    tu_expect_status(&r, 2);
    tu_expect_one_line(&r, r.err, r.nerr, "stderr");
    if (strstr(r.err, needle) == NULL)
        fail_msg("%s: stderr does not say '%s': %s", r.cmd, needle, r.err);
    assert_int_equal(r.nout, 0);
    tu_exec_free(&r);
}

#define BAD(needle, ...) expect_bad(needle, (const char *const[]){__VA_ARGS__, NULL})

/* Several topologies and port models: one launch each, every size swept in each, the records in
 * the order topology, then port model, then size; a bad item of either list is refused (exit 2)
 * before any node starts. */
static void test_cases(void **state)
{
    (void) state;
    char csv[256];
    temp_path(csv, sizeof csv, "cases");
    tu_proc_t r =
        RUN("bench", "--topo", "ring:4;hypercube:2", "--ports", "multi,single", "--coll", "bcast",
            "--sizes", "8,64", "--iters", "2", "--warmup", "0", "--json", "--csv", csv);
    tu_expect_status(&r, 0);
    assert_int_equal(count_lines(r.out), 8);
    char *text = read_text(csv);
    assert_int_equal(count_lines(text), 9);
    static const char *const want[][3] = {
        {"ring:4", "multi", "8"},       {"ring:4", "multi", "64"},
        {"ring:4", "single", "8"},      {"ring:4", "single", "64"},
        {"hypercube:2", "multi", "8"},  {"hypercube:2", "multi", "64"},
        {"hypercube:2", "single", "8"}, {"hypercube:2", "single", "64"},
    };
    for (size_t i = 0; i < 8; i++) {
        char line[16384], buf[64];
        assert_true(nth_line(r.out, i, line, sizeof line));
        assert_string_equal(tu_json_str(line, "topology", buf, sizeof buf), want[i][0]);
        assert_string_equal(tu_json_str(line, "ports", buf, sizeof buf), want[i][1]);
        assert_int_equal(tu_json_int(line, "size"), atoll(want[i][2]));
        assert_true(tu_json_bool(line, "verified"));
        int64_t steps;
        char hash[32];
        tu_proc_t s = RUN("sim", "--topo", want[i][0], "--coll", "bcast", "--ports", want[i][1],
                          "--size", want[i][2], "--json");
        tu_expect_status(&s, 0);
        const char *sj = tu_json_line(&s);
        steps = tu_json_int(sj, "steps");
        tu_json_str(sj, "trace_hash", hash, sizeof hash);
        assert_int_equal(tu_json_int(line, "steps"), steps);
        assert_string_equal(tu_json_str(line, "trace_hash", buf, sizeof buf), hash);
        tu_exec_free(&s);
        char *f[32];
        assert_true(nth_line(text, i + 1, line, sizeof line));
        assert_int_equal(split_csv(line, f, 32), 29);
        assert_string_equal(f[0], want[i][0]);
        assert_string_equal(f[3], want[i][1]);
        assert_string_equal(f[6], want[i][2]);
    }
    free(text);
    unlink(csv);
    tu_exec_free(&r);
    BAD("an empty item", "bench", "--topo", "ring:4;", "--coll", "bcast");
    BAD("'foo'", "bench", "--topo", "ring:4", "--ports", "multi,foo", "--coll", "bcast");
    BAD("'ring:x'", "bench", "--topo", "ring:4;ring:x", "--coll", "bcast");
}

/* The warning lines from `text` on (none, or lines starting with `lead`): each a ratio outside
 * 0.75-1.25 or a load above the cores, saying what it means. Whether they appear depends on the
 * machine's load, so only their form is checked (the decision is test_caveat's). */
static void expect_warning_lines(const char *text, const char *lead, const char *all)
{
    for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');
        assert_non_null(end);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int) (end - l), l);
        int far =
            strstr(line, "measured/predicted ") && strstr(line, ", outside 0.75-1.25: the "
                                                                "prediction is the time model");
        int busy = strstr(line, "load average ") && strstr(line, "cores: the machine was busy");
        if (strncmp(line, lead, strlen(lead)) != 0 || !(far || busy))
            fail_msg("not a warning line ('%s'): '%s' in:\n%s", lead, line, all);
    }
}

/* Every line bench writes is its own: a launch over ssh that fails (the "ssh" is /bin/false, so no
 * network is needed) is reported as "stepnet bench: ...", and nothing says "stepnet run:". */
static void test_bench_prefix(void **state)
{
    (void) state;
    tu_proc_t r =
        RUN("bench", "--topo", "ring:4", "--coll", "te", "--sizes", "8,16", "--iters", "1",
            "--hosts", "h1:4", "--listen", "127.0.0.1:0", "--ssh", "/bin/false", "--no-progress");
    tu_expect_status(&r, 1);
    assert_non_null(strstr(r.err, "LAUNCH-PLACEMENT 4 nodes on 1 host (--map-by slot)"));
    assert_non_null(strstr(r.err, "\nstepnet bench: host h1 (node 0): "));
    assert_null(strstr(r.err, "stepnet run"));
    assert_non_null(strstr(r.out, "\n# 4 processes on 1 host over ssh, 1 iterations"));
    tu_exec_free(&r);
}

/* The OSU-style table: its column header and one row per size, in order. */
static void test_sweep_text(void **state)
{
    (void) state;
    tu_proc_t r = RUN("bench", "--topo", "ring:4", "--coll", "te", "--ports", "single", "--sizes",
                      "8:32", "--iters", "2", "--warmup", "0", "--no-progress");
    tu_expect_status(&r, 0);
    const char *hdr = strstr(r.out, "# Size");
    assert_non_null(hdr);
    static const char *const cols[] = {
        "Avg(us)", "Min(us)",       "Max(us)",     "P50(us)",     "P99(us)",      "Iterations",
        "Steps",   "Predicted(us)", "CollAvg(us)", "NodeAvg(us)", "BwNode(MB/s)", "BwTotal(MB/s)"};
    const char *prev = hdr;
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        const char *c = strstr(prev, cols[i]);
        if (c == NULL || c > strchr(hdr, '\n'))
            fail_msg("the bench header lacks column %s (in order): %s", cols[i], r.out);
        prev = c;
    }
    static const char *const sizes[] = {"8", "16", "32"};
    const char *row = strchr(hdr, '\n') + 1;
    for (size_t i = 0; i < 3; i++) {
        char want[16];
        snprintf(want, sizeof want, "  %s ", sizes[i]);
        if (strncmp(row, want, strlen(want)) != 0)
            fail_msg("row %zu of the bench table is not size %s: %s", i, sizes[i], r.out);
        row = strchr(row, '\n') + 1;
    }
    expect_warning_lines(row, "# warning: ", r.out);
    /* the comment lines name how the processes were started */
    assert_non_null(strstr(r.out, "\n# 4 local processes, 2 iterations after 0 warm-up per size"));
    tu_exec_free(&r);
}

static void test_bad_input(void **state)
{
    (void) state;
    BAD("'8:1X'", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8:1X");
    BAD("'64,8'", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "64,8");
    BAD("'8:2G'", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8:2G");
    BAD("'0:8'", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "0:8");
    BAD("step", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8:64:x1");
    BAD("--sizes applies to stepnet bench", "run", "--topo", "ring:4", "--coll", "bcast", "--sizes",
        "8,64");
    BAD("either --sizes or --size", "bench", "--topo", "ring:4", "--coll", "bcast", "--sizes",
        "8,64", "--size", "8");
    BAD("--idle-slots", "bench", "--topo", "ring:4", "--coll", "bcast", "--idle-slots", "10");
    BAD("dynbcast", "bench", "--topo", "mesh:4x4", "--coll", "dynbcast", "--rho", "0.5");
    BAD("'0'", "bench", "--topo", "ring:4", "--coll", "bcast", "--iters", "0");
    BAD("--csv", "run", "--topo", "ring:4", "--coll", "bcast", "--csv", "/nonexistent/dir/x.csv");
    /* the memory budget is the largest size's, checked before any node starts: frames stream
     * through chunks, so a 1 GiB packet costs a node only about a chunk more than 16 bytes (the
     * estimates: about 25 MiB in all for 16 bytes, 30 MiB for 1 GiB, the coordinator's dry run
     * of --algo auto included); under 27M, 8 and 16 bytes pass and 1G does not */
    BAD("packet size 1073741824 bytes", "bench", "--topo", "ring:4", "--coll", "te", "--sizes",
        "8,16,1G", "--max-memory", "27M");
    tu_proc_t r = RUN("bench", "--topo", "ring:4", "--coll", "te", "--sizes", "8,16", "--iters",
                      "1", "--warmup", "0", "--max-memory", "27M");
    tu_expect_status(&r, 0);
    tu_exec_free(&r);
    r = RUN("bench", "--help");
    tu_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "--sizes LIST"));
    assert_non_null(strstr(r.out, "--iters N"));
    assert_non_null(strstr(r.out, "--csv FILE"));
    tu_exec_free(&r);
}

/* `stepnet run`: the statistics in text, JSON and CSV, and the fields of its JSON record. */
static void test_run_outputs(void **state)
{
    (void) state;
    char csv[256];
    temp_path(csv, sizeof csv, "runcsv");
    tu_proc_t r =
        RUN("run", "--topo", "ring:5", "--coll", "mnb", "--reps", "4", "--json", "--csv", csv);
    tu_expect_status(&r, 0);
    const char *j = tu_json_line(&r);
    char buf[64];
    assert_int_equal(tu_json_int(j, "schema"), 1);
    assert_true(strlen(tu_json_str(j, "stepnet_version", buf, sizeof buf)) > 0);
    tu_json_str(j, "timestamp", buf, sizeof buf); /* 2026-01-02T03:04:05Z */
    assert_int_equal(strlen(buf), 20);
    assert_true(buf[4] == '-' && buf[10] == 'T' && buf[19] == 'Z');
    assert_int_equal(tu_json_int(j, "iterations"), 4);
    assert_true(tu_json_num(j, "wall_us_min") <= tu_json_num(j, "wall_us_p50"));
    assert_true(tu_json_num(j, "wall_us_p50") <= tu_json_num(j, "wall_us_p99"));
    assert_true(tu_json_num(j, "wall_us_p99") <= tu_json_num(j, "wall_us_max"));
    assert_true(tu_json_num(j, "wall_us_p50") == tu_json_num(j, "wall_us_median"));
    expect_bandwidth(j, "wall_us_median", 5);
    const char *links = tu_json_need(j, "link_calibration");
    assert_int_equal(*links, '[');
    size_t nedge = 0;
    for (const char *q = strstr(links, "\"edge\""); q && q < tu_json_skip(links);
         q = strstr(q + 1, "\"edge\""))
        nedge++;
    assert_int_equal(nedge, 5); /* every link of ring:5, calibrated by its dialler */
    assert_non_null(strstr(links, "\"alpha_us\""));
    assert_non_null(strstr(links, "\"rtt0_us\""));
    tu_exec_free(&r);
    char *text = read_text(csv);
    assert_int_equal(count_lines(text), 2);
    assert_non_null(strstr(text, "ring:5,mnb,"));
    char row[512], *f[32];
    assert_true(nth_line(text, 1, row, sizeof row));
    assert_int_equal(split_csv(row, f, 32), 29);
    assert_true(atof(f[20]) > 0);
    expect_near(atof(f[20]) * 5, atof(f[21]), "run CSV bw_node_mb_s x 5");
    /* an allgather's bus bandwidth, (P-1)/P of P packets over the time, is what a node receives */
    expect_near(atof(f[22]), atof(f[20]), "run CSV bw_bus_mb_s of mnb");
    free(text);
    unlink(csv);

    r = RUN("run", "--topo", "ring:5", "--coll", "mnb", "--reps", "3");
    tu_expect_status(&r, 0);
    const char *w = strstr(r.out, "wall time");
    assert_non_null(w);
    assert_non_null(strstr(w, "avg "));
    assert_non_null(strstr(w, "min "));
    assert_non_null(strstr(w, "max "));
    assert_non_null(strstr(w, "p99 "));
    assert_non_null(strstr(w, "over 3 iterations"));
    const char *bw = strstr(r.out, "\n  bandwidth ");
    assert_non_null(bw);
    assert_non_null(strstr(bw, " MB/s per node, "));
    assert_non_null(strstr(bw, " MB/s in all (160 payload bytes delivered per repetition"));
    assert_non_null(strstr(r.out, "\n  nodes           5 local processes, 5 TCP links, "));
    /* after the last line of the report, only warnings */
    const char *last = strstr(r.out, "\n  per-node time ");
    assert_non_null(last);
    expect_warning_lines(strchr(last + 1, '\n') + 1, "  warning         ", r.out);
    tu_exec_free(&r);

    /* a bare barrier delivers no payload: no bandwidth */
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "1", "--idle-slots", "10",
            "--json");
    tu_expect_status(&r, 0);
    assert_true(tu_json_is_null(tu_json_line(&r), "bw_node_mb_s"));
    assert_true(tu_json_is_null(tu_json_line(&r), "bw_total_mb_s"));
    assert_true(tu_json_is_null(tu_json_line(&r), "bw_bus_mb_s"));
    tu_exec_free(&r);
}

/* Fails unless every key of keys (NULL-terminated) is null (want_null) or not null in j. */
static void expect_nulls(const char *what, const char *j, const char *const *keys, int want_null)
{
    for (size_t i = 0; keys[i]; i++)
        if (tu_json_is_null(j, keys[i]) != want_null)
            fail_msg("%s: \"%s\" is %.40s, want %s:\n%s", what, keys[i], tu_json_need(j, keys[i]),
                     want_null ? "null (not measured)" : "a value", j);
}

/* What a run or a size measured only when one of its repetitions verified or was measured. */
static const char *const run_measured[] = {
    "steps",           "control_slots", "data_slots",    "time_units",       "packets",
    "control_packets", "deliveries",    "trace_hash",    "bytes_checked",    "wall_us_median",
    "wall_us_avg",     "wall_us_min",   "wall_us_max",   "wall_us_p50",      "wall_us_p99",
    "us_per_step",     "bw_node_mb_s",  "bw_total_mb_s", "bw_bus_mb_s",      "coll_us_median",
    "node_us_median",  "predicted_us",  "alpha_us",      "beta_us_per_byte", NULL};
static const char *const bench_measured[] = {"steps",
                                             "packets",
                                             "deliveries",
                                             "trace_hash",
                                             "bytes_checked",
                                             "wall_us_avg",
                                             "wall_us_min",
                                             "wall_us_max",
                                             "wall_us_p50",
                                             "wall_us_p99",
                                             "coll_us_avg",
                                             "coll_us_median",
                                             "node_us_avg",
                                             "node_us_median",
                                             "predicted_us",
                                             "alpha_us",
                                             "beta_us_per_byte",
                                             "bw_node_mb_s",
                                             "bw_total_mb_s",
                                             "bw_bus_mb_s",
                                             "model",
                                             NULL};

/* A failed run has no prediction and, failing in its first repetition without calibration
 * (--probes 0), measured nothing: every such field is null, not 0, in run's and bench's JSON, and
 * empty in their CSV rows; a verified run has every one of them. */
static void test_failed_run_null_prediction(void **state)
{
    (void) state;
    char csv[256];
    temp_path(csv, sizeof csv, "failcsv");
    tu_proc_t r = RUN("run", "--topo", "ring:4", "--coll", "te", "--fault", "1:garbage@1",
                      "--probes", "0", "--json", "--csv", csv);
    tu_expect_status(&r, 1);
    const char *j = tu_json_line(&r);
    assert_false(tu_json_bool(j, "verified"));
    assert_true(tu_json_is_null(j, "predicted_us"));
    expect_nulls(r.cmd, j, run_measured, 1);
    tu_exec_free(&r);
    char *text = read_text(csv);
    char line[16384];
    assert_true(nth_line(text, 1, line, sizeof line));
    /* no wall times, 0 iterations, no steps, no prediction, not verified, no collective time,
     * no per-node time, no bandwidth; what was run stays */
    expect_prefix(strstr(line, ",8,"), ",8,,,,,,0,,,0,,,,,,,,local,");
    free(text);
    unlink(csv);

    temp_path(csv, sizeof csv, "failbcsv");
    r = RUN("bench", "--topo", "ring:4", "--coll", "te", "--sizes", "8,16", "--iters", "2",
            "--fault", "1:garbage@1", "--probes", "0", "--json", "--csv", csv);
    tu_expect_status(&r, 1);
    assert_int_equal(count_lines(r.out), 1); /* the failed size's record; 16 did not run */
    assert_true(nth_line(r.out, 0, line, sizeof line));
    assert_false(tu_json_bool(line, "verified"));
    tu_json_need(line, "error");
    expect_nulls("bench, the failed size", line, bench_measured, 1);
    tu_exec_free(&r);
    text = read_text(csv);
    assert_int_equal(count_lines(text), 2);
    assert_true(nth_line(text, 1, line, sizeof line));
    expect_prefix(strstr(line, ",8,"), ",8,,,,,,0,,,0,,,,,,,,local,");
    free(text);
    unlink(csv);

    /* verified: numbers (te-ring reports no queues, so max_queue is not among them) */
    r = RUN("run", "--topo", "ring:4", "--coll", "te", "--reps", "2", "--probes", "3", "--json");
    tu_expect_status(&r, 0);
    expect_nulls(r.cmd, tu_json_line(&r), run_measured, 0);
    tu_exec_free(&r);
    r = RUN("bench", "--topo", "ring:4", "--coll", "te", "--sizes", "8", "--iters", "2", "--probes",
            "3", "--json");
    tu_expect_status(&r, 0);
    expect_nulls(r.cmd, tu_json_line(&r), bench_measured, 0);
    tu_exec_free(&r);
}

/* A failed run's verdict refers to a parameter by id in the engine; every report of run and bench
 * (text, JSON, the error line) shows it by its flag, and no reference's marker reaches the
 * output. */
static void test_failure_names_the_flag(void **state)
{
    (void) state;
    static const char *const cmds[][2] = {{"run", NULL}, {"bench", "--sizes"}};
    for (size_t c = 0; c < 2; c++) {
        for (int json = 0; json < 2; json++) {
            const char *args[16];
            size_t n = 0;
            args[n++] = cmds[c][0];
            args[n++] = "--topo";
            args[n++] = "ring:4";
            args[n++] = "--coll";
            args[n++] = "te";
            args[n++] = "--ready-timeout-ms";
            args[n++] = "1";
            if (cmds[c][1]) {
                args[n++] = cmds[c][1];
                args[n++] = "8";
            }
            if (json)
                args[n++] = "--json";
            args[n] = NULL;
            tu_proc_t r = run_(args);
            tu_expect_status(&r, 1);
            const char *out = json ? r.out : r.err;
            if (strstr(out, "raise it with --ready-timeout-ms") == NULL)
                fail_msg("%s: the verdict does not name --ready-timeout-ms:\n%s", r.cmd, out);
            if (strchr(r.out, SN_PARAM_REF_OPEN) || strchr(r.err, SN_PARAM_REF_OPEN))
                fail_msg("%s: a parameter reference's marker reached the output", r.cmd);
            if (!json && strstr(r.out, "--ready-timeout-ms") == NULL)
                fail_msg("%s: the report does not name --ready-timeout-ms:\n%s", r.cmd, r.out);
            tu_exec_free(&r);
        }
    }
}

/* docs/output.md names every key of the JSON records of run (verified, failed, idle barrier) and
 * bench, and holds their CSV header. */
static void test_docs_cover_outputs(void **state)
{
    (void) state;
    char *doc = read_doc();
    tu_proc_t r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "1", "--json");
    tu_expect_status(&r, 0);
    expect_documented(doc, tu_json_line(&r), "stepnet run --json");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "hypercube:3", "--coll", "pmna", "--m", "3", "--reps", "1", "--json");
    tu_expect_status(&r, 0);
    expect_documented(doc, tu_json_line(&r), "stepnet run --json (combining, sources)");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "1", "--idle-slots", "10",
            "--json");
    tu_expect_status(&r, 0);
    expect_documented(doc, tu_json_line(&r), "stepnet run --idle-slots --json");
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "te", "--fault", "1:garbage@1", "--json");
    tu_expect_status(&r, 1);
    expect_documented(doc, tu_json_line(&r), "a failed stepnet run --json");
    tu_exec_free(&r);
    char csv[256];
    temp_path(csv, sizeof csv, "doccsv");
    r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8,16", "--iters", "1",
            "--warmup", "0", "--json", "--csv", csv);
    tu_expect_status(&r, 0);
    char line[16384];
    assert_true(nth_line(r.out, 0, line, sizeof line));
    expect_documented(doc, line, "stepnet bench --json");
    tu_exec_free(&r);
    char *text = read_text(csv);
    assert_true(nth_line(text, 0, line, sizeof line));
    if (strstr(doc, line) == NULL)
        fail_msg("docs/output.md does not hold the CSV header %s", line);
    free(text);
    unlink(csv);
    free(doc);
}

/* Progress on stderr: forced by --progress into a pipe, silenced by --no-progress, off by default
 * when stderr is not a terminal, and on by default on a terminal (script(1) gives the run one). */
static void test_progress(void **state)
{
    (void) state;
    tu_proc_t r = RUN("bench", "--topo", "ring:4", "--coll", "bcast", "--sizes", "8,64", "--iters",
                      "3", "--warmup", "1", "--progress");
    tu_expect_status(&r, 0);
    /* each phase in order: tests/integration/progress.sh */
    assert_non_null(strstr(r.err, "stepnet bench: progress: phase=warmup 0/1 size=8 point=1/2"));
    assert_non_null(strstr(r.err, "stepnet bench: progress: phase=run 3/3 size=64 point=2/2 "
                                  "reps=8/8"));
    assert_non_null(strstr(r.err, "slots_per_s="));
    assert_non_null(strstr(r.err, " end=done"));
    assert_null(strstr(r.out, "progress:")); /* stdout stays the report's */
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "2", "--progress");
    tu_expect_status(&r, 0);
    assert_non_null(
        strstr(r.err, "stepnet run: progress: phase=run 2/2 size=8 point=1/1 reps=3/3"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "2", "--no-progress");
    tu_expect_status(&r, 0);
    assert_null(strstr(r.err, "progress:"));
    tu_exec_free(&r);
    r = RUN("run", "--topo", "ring:4", "--coll", "bcast", "--reps", "2");
    tu_expect_status(&r, 0);
    assert_null(strstr(r.err, "progress:"));
    tu_exec_free(&r);

    /* on a terminal */
    char cmd[4096];
    const char *bin = tu_env_bin("STEPNET");
    for (int quiet = 0; quiet < 2; quiet++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' bench --topo ring:4 --coll bcast --sizes 8,64 --iters 2 --warmup 0%s", bin,
                 quiet ? " --no-progress" : "");
        tu_exec_opts_t o = {.name = "script", .deadline_s = RUN_DEADLINE_S};
        r = tu_exec("/usr/bin/script",
                    (const char *const[]){"-q", "-e", "-c", cmd, "/dev/null", NULL}, &o);
        tu_expect_status(&r, 0);
        assert_non_null(strstr(r.out, "# Size"));
        if (quiet)
            assert_null(strstr(r.out, "progress:"));
        else
            assert_non_null(strstr(r.out, "\rstepnet bench: progress: phase=run 2/2 size=64 "
                                          "point=2/2 reps=4/4"));
        tu_exec_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_json_csv),
        cmocka_unit_test(test_sweep_text),
        cmocka_unit_test(test_bench_prefix),
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_run_outputs),
        cmocka_unit_test(test_failed_run_null_prediction),
        cmocka_unit_test(test_failure_names_the_flag),
        cmocka_unit_test(test_docs_cover_outputs),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
