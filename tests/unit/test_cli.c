/* Tests of the stepnet command line contract (DESIGN.md section 3): runs the real binary named by
 * $STEPNET (fork/execv, stdout and stderr captured apart, 60 s deadline per run) and checks the
 * one-line JSON objects of sim, model and algos, --help, determinism, aliases, partial
 * collectives, and the exit statuses 0/1/2 with one stderr line naming the bad value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RUN_DEADLINE_S
#define RUN_DEADLINE_S 60
#endif

/* ---- running the binary ---- */

typedef struct run_s {
    int status; /* exit status, or -1 when killed by a signal */
    char cmd[512];
    char *out, *err;
    size_t nout, nerr;
} run_t;

static const char *stepnet_path(void)
{
    const char *p = getenv("STEPNET");
    if (p == NULL || *p == '\0') {
        print_message("STEPNET is not set; skipping\n");
        skip();
    }
    if (access(p, X_OK) != 0)
        fail_msg("STEPNET=%s is not executable: %s", p, strerror(errno));
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *b = realloc(*buf, c);
        assert_non_null(b);
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* Runs $STEPNET with the NULL-terminated args; fails the test if it cannot start or exceeds the
 * deadline (then it is killed). */
static run_t run_(const char *const *args)
{
    const char *bin = stepnet_path();
    run_t r;
    memset(&r, 0, sizeof r);
    size_t na = 0;
    while (args[na])
        na++;
    const char **argv = calloc(na + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = bin;
    size_t cl = (size_t) snprintf(r.cmd, sizeof r.cmd, "stepnet");
    for (size_t i = 0; i < na; i++) {
        argv[i + 1] = args[i];
        if (cl < sizeof r.cmd)
            cl += (size_t) snprintf(r.cmd + cl, sizeof r.cmd - cl, " '%s'", args[i]);
    }
    int po[2], pe[2];
    assert_int_equal(pipe(po), 0);
    assert_int_equal(pipe(pe), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        execv(bin, (char *const *) argv);
        _exit(127);
    }
    free(argv);
    close(po[1]);
    close(pe[1]);
    size_t co = 0, ce = 0;
    append(&r.out, &r.nout, &co, "", 0);
    append(&r.err, &r.nerr, &ce, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2, timed_out = 0;
    double deadline = now_s() + RUN_DEADLINE_S;
    while (open_fds > 0) {
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        int pr = poll(fds, 2, (int) (left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        assert_true(pr >= 0);
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || fds[k].revents == 0)
                continue;
            char buf[4096];
            ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(fds[k].fd);
                fds[k].fd = -1;
                open_fds--;
            } else if (k == 0) {
                append(&r.out, &r.nout, &co, buf, (size_t) n);
            } else {
                append(&r.err, &r.nerr, &ce, buf, (size_t) n);
            }
        }
    }
    if (timed_out)
        kill(pid, SIGKILL);
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0)
            close(fds[k].fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    if (timed_out)
        fail_msg("%s: no exit within %d s (killed)", r.cmd, RUN_DEADLINE_S);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (WIFSIGNALED(st))
        fail_msg("%s: killed by signal %d; stderr: %s", r.cmd, WTERMSIG(st), r.err);
    return r;
}

#define RUN(...) run_((const char *const[]){__VA_ARGS__, NULL})

static void run_free(run_t *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static void expect_status(const run_t *r, int want)
{
    if (r->status != want)
        fail_msg("%s: exit status %d, want %d\nstdout: %s\nstderr: %s", r->cmd, r->status, want,
                 r->out, r->err);
}

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* Exactly one line: non-empty, ends with '\n', no other newline. */
static void expect_one_line(const run_t *r, const char *s, size_t n, const char *what)
{
    if (n == 0 || s[n - 1] != '\n' || count_char(s, '\n') != 1)
        fail_msg("%s: %s is not exactly one line:\n%s", r->cmd, what, s);
}

/* ---- a tiny JSON reader: validates, and finds the members of an object ---- */

static const char *jws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at '"': returns the position after the closing quote, NULL if malformed. */
static const char *jskip_str(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p; p++) {
        if (*p == '"')
            return p + 1;
        if ((unsigned char) *p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p[i]))
                        return NULL;
                p += 4;
            } else if (*p == '\0' || strchr("\"\\/bfnrt", *p) == NULL) {
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *jskip_digits(const char *p)
{
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

static const char *jskip_num(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if ((p = jskip_digits(p)) == NULL)
        return NULL;
    if (*p == '.' && (p = jskip_digits(p + 1)) == NULL)
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if ((p = jskip_digits(p)) == NULL)
            return NULL;
    }
    return p;
}

/* Skips one JSON value (leading blanks allowed); returns the position after it, NULL if
 * malformed. */
static const char *jskip(const char *p, int depth)
{
    p = jws(p);
    if (depth > 32)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = jws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if ((p = jskip_str(p)) == NULL)
                    return NULL;
                p = jws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if ((p = jskip(p, depth + 1)) == NULL)
                return NULL;
            p = jws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
            p = jws(p);
        }
    }
    if (*p == '"')
        return jskip_str(p);
    if (strncmp(p, "true", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    if (strncmp(p, "null", 4) == 0)
        return p + 4;
    return jskip_num(p);
}

/* The value of member `key` of the object at obj ('{'), NULL if absent. Assumes a valid object. */
static const char *jget(const char *obj, const char *key)
{
    const char *p = jws(obj);
    if (*p != '{')
        return NULL;
    p = jws(p + 1);
    size_t klen = strlen(key);
    while (*p == '"') {
        const char *end = jskip_str(p);
        if (end == NULL)
            return NULL;
        int match = (size_t) (end - p - 2) == klen && strncmp(p + 1, key, klen) == 0;
        p = jws(end);
        if (*p != ':')
            return NULL;
        const char *v = jws(p + 1);
        if (match)
            return v;
        if ((p = jskip(v, 0)) == NULL)
            return NULL;
        p = jws(p);
        if (*p == ',')
            p = jws(p + 1);
    }
    return NULL;
}

static const char *jneed(const char *obj, const char *key)
{
    const char *v = jget(obj, key);
    if (v == NULL)
        fail_msg("JSON has no field \"%s\": %s", key, obj);
    return v;
}

static int jis_null(const char *obj, const char *key)
{
    return strncmp(jneed(obj, key), "null", 4) == 0;
}

/* An integer member (no fraction, no exponent). */
static int64_t jint(const char *obj, const char *key)
{
    const char *v = jneed(obj, key);
    const char *end = jskip_num(v);
    char *e;
    errno = 0;
    long long x = strtoll(v, &e, 10);
    if (end == NULL || e != end || errno)
        fail_msg("JSON field \"%s\" is not an integer: %.40s", key, v);
    return x;
}

static int jbool(const char *obj, const char *key)
{
    const char *v = jneed(obj, key);
    if (strncmp(v, "true", 4) == 0)
        return 1;
    if (strncmp(v, "false", 5) == 0)
        return 0;
    fail_msg("JSON field \"%s\" is not a boolean: %.40s", key, v);
    return -1;
}

/* A string member, decoded into buf (\uXXXX only below 0x80). */
static const char *jstr(const char *obj, const char *key, char *buf, size_t cap)
{
    const char *v = jneed(obj, key);
    if (*v != '"')
        fail_msg("JSON field \"%s\" is not a string: %.40s", key, v);
    size_t n = 0;
    for (const char *p = v + 1; *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case 'r':
                c = '\r';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'u': {
                char hex[5] = {p[1], p[2], p[3], p[4], 0};
                c = (char) strtol(hex, NULL, 16);
                p += 4;
                break;
            }
            default:
                c = *p;
                break;
            }
        }
        assert_true(n + 1 < cap);
        buf[n++] = c;
    }
    buf[n] = '\0';
    return buf;
}

/* An array of integers; returns the count. */
static size_t jints(const char *obj, const char *key, int64_t *v, size_t cap)
{
    const char *p = jneed(obj, key);
    if (*p != '[')
        fail_msg("JSON field \"%s\" is not an array: %.40s", key, p);
    size_t n = 0;
    p = jws(p + 1);
    while (*p != ']') {
        char *e;
        assert_true(n < cap);
        v[n++] = strtoll(p, &e, 10);
        if (e == p)
            fail_msg("JSON array \"%s\" holds a non-integer: %.40s", key, p);
        p = jws(e);
        if (*p == ',')
            p = jws(p + 1);
    }
    return n;
}

/* Checks that r's stdout is one line holding one valid JSON object; returns it. */
static const char *json_line(const run_t *r)
{
    expect_one_line(r, r->out, r->nout, "stdout");
    const char *end = r->out[0] == '{' ? jskip(r->out, 0) : NULL;
    if (end == NULL || end != r->out + r->nout - 1)
        fail_msg("%s: stdout is not one JSON object:\n%s", r->cmd, r->out);
    return r->out;
}

/* Runs, expects exit 0 and one JSON object on one line. */
#define RUN_JSON(r, ...)                                                                           \
    do {                                                                                           \
        (r) = RUN(__VA_ARGS__);                                                                    \
        expect_status(&(r), 0);                                                                    \
        json_line(&(r));                                                                           \
    } while (0)

static void expect_str(const char *obj, const char *key, const char *want)
{
    char buf[256];
    jstr(obj, key, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("JSON field \"%s\" is \"%s\", want \"%s\"", key, buf, want);
}

/* ---- tests ---- */

static const char *const contract_fields[] = {"cmd",
                                              "topology",
                                              "nodes",
                                              "processors",
                                              "links",
                                              "collective",
                                              "ports",
                                              "rx",
                                              "duplex",
                                              "algorithm",
                                              "steps",
                                              "predicted_steps",
                                              "lower_bound",
                                              "control_slots",
                                              "packets",
                                              "deliveries",
                                              "expected_deliveries",
                                              "verified",
                                              "trace_hash"};

static void test_sim_json_contract(void **state)
{
    (void) state;
    run_t r;
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--json");
    const char *j = r.out;
    for (size_t i = 0; i < sizeof contract_fields / sizeof *contract_fields; i++)
        jneed(j, contract_fields[i]);
    expect_str(j, "cmd", "sim");
    expect_str(j, "topology", "torus:4x4");
    expect_str(j, "collective", "te");
    expect_str(j, "ports", "single");
    expect_str(j, "rx", "one");
    expect_str(j, "duplex", "full");
    assert_int_equal(jint(j, "nodes"), 16);
    assert_int_equal(jint(j, "processors"), 16);
    assert_int_equal(jint(j, "links"), 32);
    char algo[64], hash[64];
    assert_true(strlen(jstr(j, "algorithm", algo, sizeof algo)) > 0);
    if (!jis_null(j, "predicted_steps"))
        assert_true(jint(j, "predicted_steps") >= jint(j, "lower_bound"));
    int64_t steps = jint(j, "steps");
    assert_true(steps >= jint(j, "lower_bound"));
    assert_true(jint(j, "lower_bound") > 0);
    assert_true(jint(j, "control_slots") >= 0);
    assert_true(jint(j, "packets") >= 240);
    assert_int_equal(jint(j, "deliveries"), 240);
    assert_int_equal(jint(j, "expected_deliveries"), 240);
    assert_true(jbool(j, "verified"));
    assert_true(strlen(jstr(j, "trace_hash", hash, sizeof hash)) > 0);
    run_free(&r);

    /* the port model words follow the options */
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "te", "--duplex", "half", "--json");
    expect_str(r.out, "ports", "multi");
    expect_str(r.out, "duplex", "half");
    assert_true(jbool(r.out, "verified"));
    run_free(&r);
    RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", "bcast", "--ports", "single", "--rx", "any",
             "--json");
    expect_str(r.out, "rx", "any");
    assert_true(jbool(r.out, "verified"));
    run_free(&r);

    /* --msgs multiplies the deliveries; --name=value works as --name value */
    RUN_JSON(r, "sim", "--topo=torus:4x4", "--coll=te", "--msgs", "2", "--json");
    assert_int_equal(jint(r.out, "deliveries"), 480);
    assert_int_equal(jint(r.out, "expected_deliveries"), 480);
    assert_true(jbool(r.out, "verified"));
    run_free(&r);
}

/* Reads `algos --json` into parallel arrays name -> collective. */
typedef struct algo_list_s {
    size_t n;
    char name[64][64];
    char coll[64][32];
} algo_list_t;

static void read_algos(const char *j, algo_list_t *al)
{
    const char *p = jneed(j, "algorithms");
    assert_int_equal(*p, '[');
    al->n = 0;
    p = jws(p + 1);
    while (*p != ']') {
        assert_int_equal(*p, '{');
        assert_true(al->n < 64);
        char pm[128], src[512];
        jstr(p, "name", al->name[al->n], sizeof al->name[0]);
        jstr(p, "collective", al->coll[al->n], sizeof al->coll[0]);
        jstr(p, "port_models", pm, sizeof pm);
        jstr(p, "source", src, sizeof src);
        assert_true(strlen(al->name[al->n]) > 0);
        assert_true(strlen(pm) > 0);
        assert_true(strlen(src) > 0);
        for (size_t i = 0; i < al->n; i++)
            if (strcmp(al->name[i], al->name[al->n]) == 0)
                fail_msg("algos lists %s twice", al->name[i]);
        al->n++;
        p = jws(jskip(p, 0));
        if (*p == ',')
            p = jws(p + 1);
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
    run_t r;
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
    run_free(&r);

    /* --coll filters, and takes the MPI alias */
    RUN_JSON(r, "algos", "--coll", "broadcast", "--json");
    algo_list_t *sub = calloc(1, sizeof *sub);
    assert_non_null(sub);
    read_algos(r.out, sub);
    assert_true(sub->n > 0);
    for (size_t i = 0; i < sub->n; i++)
        assert_string_equal(sub->coll[i], "bcast");
    run_free(&r);

    /* the text listing names every algorithm */
    r = RUN("algos");
    expect_status(&r, 0);
    for (size_t i = 0; i < al->n; i++)
        if (strstr(r.out, al->name[i]) == NULL)
            fail_msg("`stepnet algos` does not show %s", al->name[i]);
    run_free(&r);
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
    run_t r;
    RUN_JSON(r, "algos", "--json");
    algo_list_t *al = calloc(1, sizeof *al);
    assert_non_null(al);
    read_algos(r.out, al);
    run_free(&r);

    RUN_JSON(r, "model", "--topo", "torus:4x4", "--coll", "te", "--ports", "single", "--json");
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        jneed(r.out, fields[i]);
    expect_str(r.out, "cmd", "model");
    expect_str(r.out, "collective", "te");
    expect_str(r.out, "ports", "single");
    assert_int_equal(jint(r.out, "nodes"), 16);
    assert_int_equal(jint(r.out, "processors"), 16);
    assert_int_equal(jint(r.out, "links"), 32);
    assert_true(jint(r.out, "lower_bound") > 0);
    assert_null(jget(r.out, "steps"));
    assert_null(jget(r.out, "trace_hash"));
    run_free(&r);

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
        jstr(j, "algorithm", chosen, sizeof chosen);
        assert_string_equal(algo_coll(al, chosen), cases[k][1]);
        int64_t pred = jis_null(j, "predicted_steps") ? -1 : jint(j, "predicted_steps");
        if (pred >= 0)
            assert_true(pred >= jint(j, "lower_bound"));
        const char *p = jneed(j, "candidates");
        assert_int_equal(*p, '[');
        p = jws(p + 1);
        int seen_chosen = 0, ncand = 0;
        int64_t best = -1;
        while (*p != ']') {
            char name[64];
            jstr(p, "algorithm", name, sizeof name);
            if (strcmp(algo_coll(al, name), cases[k][1]) != 0)
                fail_msg("%s: candidate %s is for %s", r.cmd, name, algo_coll(al, name));
            if (!jis_null(p, "predicted_steps")) {
                int64_t cp = jint(p, "predicted_steps");
                if (best < 0 || cp < best)
                    best = cp;
                if (strcmp(name, chosen) == 0)
                    assert_int_equal(cp, pred);
            }
            seen_chosen += strcmp(name, chosen) == 0;
            ncand++;
            p = jws(jskip(p, 0));
            if (*p == ',')
                p = jws(p + 1);
        }
        if (seen_chosen != 1)
            fail_msg("%s: chosen %s appears %d times among candidates", r.cmd, chosen, seen_chosen);
        if (best >= 0 && pred != best)
            fail_msg("%s: auto chose %s (%lld) but a candidate predicts %lld", r.cmd, chosen,
                     (long long) pred, (long long) best);
        assert_true(ncand >= 1);
        run_free(&r);
    }
    free(al);
}

static void test_sim_text_output(void **state)
{
    (void) state;
    run_t r = RUN("sim", "--topo", "torus:4x4", "--coll", "te", "--ports", "single");
    expect_status(&r, 0);
    assert_true(r.out[0] != '{');
    assert_non_null(strstr(r.out, "steps"));
    assert_non_null(strstr(r.out, "verified"));
    assert_null(strstr(r.out, "NOT verified"));
    assert_true(count_char(r.out, '\n') > 1);
    run_free(&r);

    r = RUN("model", "--topo", "hypercube:4", "--coll", "bcast");
    expect_status(&r, 0);
    assert_true(r.out[0] != '{');
    assert_non_null(strstr(r.out, "predicted"));
    assert_non_null(strstr(r.out, "lower bound"));
    run_free(&r);
}

/* With --json stdout is one line even with progress logging on and a longer run. */
static void test_json_stdout_one_line(void **state)
{
    (void) state;
    run_t r;
    RUN_JSON(r, "sim", "--topo", "torus:8x8", "--coll", "te", "--ports", "single", "--progress",
             "--json");
    assert_true(jbool(r.out, "verified"));
    assert_int_equal(jint(r.out, "deliveries"), 64 * 63);
    run_free(&r);
    RUN_JSON(r, "model", "--topo", "hypercube:5", "--coll", "mnb", "--json");
    run_free(&r);
}

static void test_determinism(void **state)
{
    (void) state;
    static const char *const cases[][3] = {{"torus:6x6", "te", "single"},
                                           {"hypercube:5", "mnb", "multi"},
                                           {"fattree:2:3:exp", "scatter", "single"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        run_t a, b;
        RUN_JSON(a, "sim", "--topo", cases[k][0], "--coll", cases[k][1], "--ports", cases[k][2],
                 "--json");
        RUN_JSON(b, "sim", "--topo", cases[k][0], "--coll", cases[k][1], "--ports", cases[k][2],
                 "--json");
        char ha[64], hb[64];
        assert_int_equal(jint(a.out, "steps"), jint(b.out, "steps"));
        assert_int_equal(jint(a.out, "packets"), jint(b.out, "packets"));
        assert_string_equal(jstr(a.out, "trace_hash", ha, sizeof ha),
                            jstr(b.out, "trace_hash", hb, sizeof hb));
        run_free(&a);
        run_free(&b);
    }
}

static void test_aliases(void **state)
{
    (void) state;
    static const char *const pairs[][2] = {
        {"broadcast", "bcast"}, {"allgather", "mnb"}, {"alltoall", "te"}};
    static const char *const topos[] = {"hypercube:3", "torus:4x4"};
    for (size_t t = 0; t < 2; t++)
        for (size_t k = 0; k < 3; k++) {
            run_t a, b;
            RUN_JSON(a, "sim", "--topo", topos[t], "--coll", pairs[k][0], "--json");
            RUN_JSON(b, "sim", "--topo", topos[t], "--coll", pairs[k][1], "--json");
            char x[64], y[64];
            expect_str(a.out, "collective", pairs[k][1]);
            assert_true(jbool(a.out, "verified"));
            assert_string_equal(jstr(a.out, "algorithm", x, sizeof x),
                                jstr(b.out, "algorithm", y, sizeof y));
            assert_int_equal(jint(a.out, "steps"), jint(b.out, "steps"));
            assert_int_equal(jint(a.out, "deliveries"), jint(b.out, "deliveries"));
            assert_string_equal(jstr(a.out, "trace_hash", x, sizeof x),
                                jstr(b.out, "trace_hash", y, sizeof y));
            run_free(&a);
            run_free(&b);
        }
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
                run_t r;
                RUN_JSON(r, "sim", "--topo", topos[t], "--coll", colls[c], "--ports", ports[p],
                         "--json");
                const char *j = r.out;
                assert_true(jbool(j, "verified"));
                assert_int_equal(jint(j, "deliveries"), jint(j, "expected_deliveries"));
                int64_t steps = jint(j, "steps");
                if (jis_null(j, "predicted_steps"))
                    fail_msg("%s: no prediction", r.cmd);
                if (jint(j, "predicted_steps") != steps)
                    fail_msg("%s: predicted %lld, measured %lld", r.cmd,
                             (long long) jint(j, "predicted_steps"), (long long) steps);
                assert_true(steps >= jint(j, "lower_bound"));
                run_free(&r);
            }
}

static void expect_sources(const char *j, const int64_t *want, size_t n)
{
    int64_t got[64];
    size_t m = jints(j, "sources", got, 64);
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
            run_t r;
            RUN_JSON(r, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--sources",
                     lists[k].list, "--json");
            expect_str(r.out, "collective", colls[c]);
            expect_sources(r.out, lists[k].want, lists[k].n);
            assert_true(jbool(r.out, "verified"));
            /* every source reaches the 15 other processors */
            assert_int_equal(jint(r.out, "expected_deliveries"), (int64_t) lists[k].n * 15);
            assert_int_equal(jint(r.out, "deliveries"), jint(r.out, "expected_deliveries"));
            run_free(&r);
            RUN_JSON(r, "model", "--topo", "torus:4x4", "--coll", colls[c], "--sources",
                     lists[k].list, "--json");
            expect_sources(r.out, lists[k].want, lists[k].n);
            run_free(&r);
        }
}

static void test_partial_m_seed(void **state)
{
    (void) state;
    static const char *const colls[] = {"pmnb", "pexchange"};
    for (size_t c = 0; c < 2; c++) {
        run_t a, b;
        RUN_JSON(a, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed", "7",
                 "--json");
        RUN_JSON(b, "sim", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed", "7",
                 "--json");
        int64_t sa[8], sb[8];
        size_t na = jints(a.out, "sources", sa, 8), nb = jints(b.out, "sources", sb, 8);
        assert_int_equal(na, 4);
        assert_int_equal(nb, 4);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(sa[i], sb[i]);
            assert_in_range(sa[i], 0, 15);
            if (i > 0)
                assert_true(sa[i] > sa[i - 1]); /* distinct (and listed in order) */
        }
        assert_int_equal(jint(a.out, "seed"), 7);
        assert_true(jbool(a.out, "verified"));
        assert_int_equal(jint(a.out, "expected_deliveries"), 4 * 15);
        char x[64], y[64];
        assert_string_equal(jstr(a.out, "trace_hash", x, sizeof x),
                            jstr(b.out, "trace_hash", y, sizeof y));
        /* the seed matters: some other seed draws another set */
        int differs = 0;
        for (int s = 1; s <= 6 && !differs; s++) {
            char seed[8];
            snprintf(seed, sizeof seed, "%d", s);
            run_t o;
            RUN_JSON(o, "model", "--topo", "torus:4x4", "--coll", colls[c], "--m", "4", "--seed",
                     seed, "--json");
            int64_t so[8];
            assert_int_equal(jints(o.out, "sources", so, 8), 4);
            differs = memcmp(so, sa, sizeof so[0] * 4) != 0;
            run_free(&o);
        }
        assert_true(differs);
        run_free(&a);
        run_free(&b);
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
    {{"frob"}, "frob", NULL},
    {{"algos", "--coll", "nope"}, "nope", NULL},
    {{"algos", "--frob"}, "--frob", NULL},
};

static void expect_bad(const run_t *r, const char *needle, const char *needle2)
{
    expect_status(r, 2);
    if (r->nout != 0)
        fail_msg("%s: bad input but stdout is not empty:\n%s", r->cmd, r->out);
    expect_one_line(r, r->err, r->nerr, "stderr");
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
            run_t r = run_(args);
            expect_bad(&r, c->needle, c->needle2);
            run_free(&r);
            /* the shared options behave the same in model */
            if (strcmp(args[0], "sim") == 0) {
                args[0] = "model";
                r = run_(args);
                expect_bad(&r, c->needle, c->needle2);
                run_free(&r);
            }
        }
    }
}

/* A negative rank must be named in the error, not the text before its '-'. */
static void test_bad_sources_negative(void **state)
{
    (void) state;
    run_t r = RUN("sim", "--topo", "ring:8", "--coll", "pmnb", "--sources", "-1");
    expect_bad(&r, "-1", NULL);
    run_free(&r);
}

static void test_run_failure_exit1(void **state)
{
    (void) state;
    run_t r = RUN("sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1");
    expect_status(&r, 1);
    expect_one_line(&r, r.err, r.nerr, "stderr");
    assert_non_null(strstr(r.err, "--max-slots"));
    assert_non_null(strstr(r.err, " 1 "));
    assert_non_null(strstr(r.out, "NOT verified"));
    run_free(&r);

    r = RUN("sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1", "--json");
    expect_status(&r, 1);
    json_line(&r);
    expect_one_line(&r, r.err, r.nerr, "stderr");
    assert_non_null(strstr(r.err, "--max-slots"));
    assert_false(jbool(r.out, "verified"));
    assert_true(jint(r.out, "deliveries") < jint(r.out, "expected_deliveries"));
    run_free(&r);

    /* a limit that is large enough passes */
    RUN_JSON(r, "sim", "--topo", "ring:8", "--coll", "te", "--max-slots", "1000", "--json");
    assert_true(jbool(r.out, "verified"));
    run_free(&r);
}

static void test_help(void **state)
{
    (void) state;
    static const char *const cmds[][3] = {{"--help", NULL},
                                          {"-h", NULL},
                                          {"sim", "--help"},
                                          {"model", "--help"},
                                          {"algos", "--help"}};
    for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
        run_t r = run_(cmds[k]);
        expect_status(&r, 0);
        if (strstr(r.out, "usage") == NULL)
            fail_msg("%s: no usage on stdout: %s", r.cmd, r.out);
        if (cmds[k][1] != NULL && strstr(r.out, cmds[k][0]) == NULL)
            fail_msg("%s: usage does not name the command: %s", r.cmd, r.out);
        assert_int_equal(r.nerr, 0);
        run_free(&r);
    }
    /* --help wins over other options */
    run_t r = RUN("sim", "--topo", "ring:8", "--help");
    expect_status(&r, 0);
    assert_non_null(strstr(r.out, "usage"));
    run_free(&r);
    /* no arguments: usage on stderr, exit 2 */
    const char *none[] = {NULL};
    r = run_(none);
    expect_status(&r, 2);
    assert_int_equal(r.nout, 0);
    assert_non_null(strstr(r.err, "usage"));
    run_free(&r);
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
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_predicted_equals_steps),
        cmocka_unit_test(test_partial_sources),
        cmocka_unit_test(test_partial_m_seed),
        cmocka_unit_test(test_bad_input_exit2),
        cmocka_unit_test(test_bad_sources_negative),
        cmocka_unit_test(test_run_failure_exit1),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
