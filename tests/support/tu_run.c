/* The support of the integration tests of `stepnet run` (tests/support, declared in tu_run.h):
 * stepnet and stepnet-node runs under a tag with sanitizer and survivor checks, run-against-sim
 * comparisons, join-mode clusters, held runs and raw sockets to nodes and coordinator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net/secure.h"
#include "stepnet/util.h"
#include "tests/support/tu_run.h"

/* ---- running stepnet: every run tagged, checked for sanitizer reports and survivors ---------- */

/* Every process a run starts inherits STEPNET_TEST_TAG=<prefix><n>; the prefix is unique to this
 * test process, n to the run. */
static char tag_prefix[80];
static unsigned tag_count;

void tu_new_tag(char *tag, size_t cap)
{
    snprintf(tag, cap, "%s%u", tag_prefix, ++tag_count);
}

void tu_sleep(double s)
{
    struct timespec ts = {(time_t) s, (long) ((s - (double) (time_t) s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Kills (SIGKILL) the processes whose environment holds `entry` (or an entry it prefixes) and
 * lists them, with their command names, in `list`; returns how many there were. */
size_t tu_kill_tagged(const char *entry, int prefix, char *list, size_t cap)
{
    pid_t pids[256];
    size_t n = tu_env_procs(entry, prefix, pids, 256), len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && i < 256; i++) {
        char path[64], comm[64] = "?";
        snprintf(path, sizeof path, "/proc/%ld/comm", (long) pids[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        kill(pids[i], SIGKILL);
        if (len < cap)
            len += (size_t) snprintf(list + len, cap - len, "%s%ld %s", i ? ", " : "",
                                     (long) pids[i], comm);
    }
    return n;
}

/* Fails (after killing them) if processes of the run tagged `tag` are still there. Processes
 * that are being reaped get half a second. */
void tu_expect_no_survivors(const char *cmd, const char *tag)
{
    pid_t pids[8];
    double end = tu_now() + 0.5;
    while (tu_env_procs(tag, 0, pids, 8) > 0 && tu_now() < end)
        tu_sleep(0.02);
    char list[1024];
    size_t n = tu_kill_tagged(tag, 0, list, sizeof list);
    if (n > 0)
        fail_msg("%s: %zu process(es) left behind (%s); killed them", cmd, n, list);
}

/* The sanitizer report on stderr err (its name), or NULL. */
const char *tu_sanitizer_report(const char *err)
{
    static const char *const marks[] = {"AddressSanitizer", "LeakSanitizer",
                                        "UndefinedBehaviorSanitizer", "runtime error:"};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
        if (strstr(err, marks[i]))
            return marks[i];
    return NULL;
}

/* Runs $STEPNET with args under the tag `tag` (fresh when it is empty); a death by signal is
 * returned, nothing else is checked but the deadline. */
tu_proc_t tu_stepnet_raw(double deadline_s, const char *const *args, char *tag, size_t cap)
{
    if (tag[0] == '\0')
        tu_new_tag(tag, cap);
    tu_exec_opts_t o = {
        .name = "stepnet", .env = tag, .deadline_s = deadline_s * TU_SLOW, .allow_signal = 1};
    return tu_exec(tu_env_bin("STEPNET"), args, &o);
}

/* Runs $STEPNET with args under a fresh tag; fails on a deadline, a signal, a sanitizer report or
 * a process left behind. */
tu_proc_t tu_stepnet(double deadline_s, const char *const *args)
{
    char tag[128] = "";
    tu_proc_t p = tu_stepnet_raw(deadline_s, args, tag, sizeof tag);
    const char *san = tu_sanitizer_report(p.err);
    if (p.signal || san) {
        print_error("stderr: %s\n", p.err);
        tu_exec_free(&p);
        tu_expect_no_survivors(p.cmd, tag);
        if (san)
            fail_msg("%s: %s report on stderr (above)", p.cmd, san);
        fail_msg("%s: killed by signal %d", p.cmd, p.signal);
    }
    tu_expect_no_survivors(p.cmd, tag);
    return p;
}

void tu_av_addv(tu_av_t *a, const char *const *args)
{
    for (; *args; args++) {
        assert_true(a->n < TU_MAXARGS);
        a->v[a->n++] = *args;
        a->v[a->n] = NULL;
    }
}

const char *tu_jstr(const char *j, const char *key)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    return tu_json_str(j, key, buf[k], sizeof buf[k]);
}

/* ---- run against sim ------------------------------------------------------------------------- */

/* Runs `stepnet sim ARGS --json` (must succeed) and `stepnet run ARGS --json --reps 2 --warmup 0
 * --probes 3` (its status is left to the caller). */
void tu_run_pair(const char *const *args, tu_proc_t *ps, tu_proc_t *pr)
{
    tu_av_t s = {0}, r = {0};
    TU_AV_ADD(&s, "sim");
    tu_av_addv(&s, args);
    TU_AV_ADD(&s, "--json");
    TU_AV_ADD(&r, "run");
    tu_av_addv(&r, args);
    TU_AV_ADD(&r, "--json", "--reps", "2", "--warmup", "0", "--probes", "3");
    *ps = tu_stepnet(60, s.v);
    tu_expect_status(ps, 0);
    tu_json_line(ps);
    *pr = tu_stepnet(120, r.v);
}

/* The arguments joined by blanks, for progress lines. */
const char *tu_args_text(const char *const *args, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (; *args && len < cap; args++)
        len += (size_t) snprintf(buf + len, cap - len, "%s%s", len ? " " : "", *args);
    return buf;
}

/* Checks that the run pr verified with the same steps, trace, deliveries and packets as sim ps
 * (both of `args`). */
void tu_expect_same(const char *const *args, const tu_proc_t *ps, const tu_proc_t *pr)
{
    tu_expect_status(pr, 0);
    const char *js = ps->out, *jr = tu_json_line(pr);
    if (!tu_json_bool(js, "verified"))
        fail_msg("%s: not verified", ps->cmd);
    if (!tu_json_bool(jr, "verified"))
        fail_msg("%s: not verified: %s", pr->cmd, pr->out);
    static const char *const ints[] = {
        "nodes",      "processors",          "links",      "steps", "packets", "control_slots",
        "deliveries", "expected_deliveries", "data_slots", "frags"};
    /* max_queue: a number in both, or null in both (an algorithm that reports no queues) */
    if (tu_json_is_null(js, "max_queue") != tu_json_is_null(jr, "max_queue") ||
        tu_json_is_null(js, "max_queue_node") != tu_json_is_null(jr, "max_queue_node"))
        fail_msg("%s: max_queue is null in one report only\nrun: %s\nsim: %s", pr->cmd, jr, js);
    if (!tu_json_is_null(js, "max_queue")) {
        if (tu_json_int(js, "max_queue") != tu_json_int(jr, "max_queue") ||
            strcmp(tu_jstr(js, "max_queue_node"), tu_jstr(jr, "max_queue_node")) != 0)
            fail_msg("%s: max_queue differs\nrun: %s\nsim: %s", pr->cmd, jr, js);
    }
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        int64_t a = tu_json_int(js, ints[i]), b = tu_json_int(jr, ints[i]);
        if (a != b)
            fail_msg("%s: %s is %lld, sim says %lld\nrun: %s\nsim: %s", pr->cmd, ints[i],
                     (long long) b, (long long) a, jr, js);
    }
    static const char *const strs[] = {"trace_hash", "algorithm", "collective",
                                       "ports",      "rx",        "duplex"};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (strcmp(tu_jstr(js, strs[i]), tu_jstr(jr, strs[i])) != 0)
            fail_msg("%s: %s is \"%s\", sim says \"%s\"", pr->cmd, strs[i], tu_jstr(jr, strs[i]),
                     tu_jstr(js, strs[i]));
    assert_int_equal(tu_json_int(jr, "deliveries"), tu_json_int(jr, "expected_deliveries"));
    assert_string_equal(tu_jstr(jr, "cmd"), "run");
    assert_int_equal(tu_json_int(jr, "reps"), 2);
    double wall[4];
    assert_int_equal(tu_json_nums(jr, "wall_us", wall, 4), 2);
    char what[256];
    print_message("  %-60s %4lld steps  %s  %.2f s\n", tu_args_text(args, what, sizeof what),
                  (long long) tu_json_int(jr, "steps"), tu_jstr(jr, "trace_hash"), pr->secs);
}

void tu_expect_exact(const char *const *args)
{
    tu_proc_t ps, pr;
    tu_run_pair(args, &ps, &pr);
    tu_expect_same(args, &ps, &pr);
    tu_exec_free(&ps);
    tu_exec_free(&pr);
}

void tu_expect_exact_all(const tu_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_expect_exact(cases[i].args);
}

/* ---- the times of a run's report ------------------------------------------------------------- */

int tu_near(double a, double b)
{
    double d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= 1e-3 * m + 0.02;
}

/* The collective times of a successful run report j with `reps` repetitions: one per repetition,
 * each positive, their median in coll_us_median, and (a logical relation, not a timing threshold:
 * every node's interval lies inside the coordinator's START-to-last-COMPLETE interval on one
 * clock) no more than each repetition's wall time, hence the median no more than wall_us_median.
 * The nodes' mean own time of a repetition (node_us) is positive and, every node's interval lying
 * inside the span, no more than its coll_us on one clock; its median is node_us_median. */
void tu_expect_coll_times(const char *j, int64_t reps)
{
    double coll[64], wall[64], node[64];
    size_t n = tu_json_nums(j, "coll_us", coll, 64);
    assert_int_equal(n, (size_t) reps);
    assert_int_equal(tu_json_nums(j, "wall_us", wall, 64), (size_t) reps);
    assert_int_equal(tu_json_nums(j, "node_us", node, 64), (size_t) reps);
    char clock[16];
    int one = strcmp(tu_json_str(j, "clock", clock, sizeof clock), "one") == 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(coll[i] > 0);
        assert_true(node[i] > 0);
        if (one && coll[i] > wall[i])
            fail_msg("repetition %zu: coll_us %g > wall_us %g on one clock", i, coll[i], wall[i]);
        if (one && node[i] > coll[i] && !tu_near(node[i], coll[i]))
            fail_msg("repetition %zu: node_us %g > coll_us %g on one clock", i, node[i], coll[i]);
    }
    qsort(node, n, sizeof *node, sn_cmp_double);
    double node_median = n % 2 ? node[n / 2] : (node[n / 2 - 1] + node[n / 2]) / 2;
    if (!tu_near(tu_json_num(j, "node_us_median"), node_median))
        fail_msg("node_us_median %g is not the median %g of node_us",
                 tu_json_num(j, "node_us_median"), node_median);
    qsort(coll, n, sizeof *coll, sn_cmp_double);
    double median = n % 2 ? coll[n / 2] : (coll[n / 2 - 1] + coll[n / 2]) / 2;
    double med = tu_json_num(j, "coll_us_median");
    if (!tu_near(med, median))
        fail_msg("coll_us_median %g is not the median %g of coll_us", med, median);
    if (one && med > tu_json_num(j, "wall_us_median"))
        fail_msg("coll_us_median %g > wall_us_median %g", med, tu_json_num(j, "wall_us_median"));
    assert_true(tu_json_num(j, "clock_uncertainty_us") >= 0);
    if (one)
        assert_true(tu_json_num(j, "clock_uncertainty_us") == 0);
}

/* ---- stderr lines and failed runs ------------------------------------------------------------ */

/* Counts the occurrences of needle in s. */
size_t tu_count_str(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The last line of stderr that starts with `prefix`, copied into line (fails if none). */
const char *tu_last_line(const tu_proc_t *p, const char *prefix, char *line, size_t cap)
{
    const char *found = NULL;
    size_t plen = strlen(prefix);
    for (const char *s = p->err; *s;) {
        if (strncmp(s, prefix, plen) == 0)
            found = s;
        const char *nl = strchr(s, '\n');
        if (nl == NULL)
            break;
        s = nl + 1;
    }
    if (found == NULL)
        fail_msg("%s: no stderr line starting with '%s':\n%s", p->cmd, prefix, p->err);
    snprintf(line, cap, "%.*s", (int) strcspn(found, "\n"), found);
    return line;
}

/* 1 when s says "<word> N" for N in [lo, hi] (not followed by another digit). */
int tu_names_number(const char *s, const char *word, long lo, long hi)
{
    size_t wl = strlen(word);
    for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
        if (p[wl] != ' ' || p[wl + 1] < '0' || p[wl + 1] > '9')
            continue;
        long v = strtol(p + wl + 1, NULL, 10);
        if (v >= lo && v <= hi)
            return 1;
    }
    return 0;
}

/* A run that must fail: exit 1, the JSON report (if any) not verified and carrying the error; the
 * error line is copied into `line`. */
void tu_expect_failed(const tu_proc_t *p, char *line, size_t cap)
{
    tu_expect_status(p, 1);
    tu_last_line(p, "stepnet run: ", line, cap);
    if (p->nout > 0 && p->out[0] == '{') {
        const char *j = tu_json_line(p);
        assert_false(tu_json_bool(j, "verified"));
        tu_json_need(j, "error");
    }
}

/* ---- join mode ------------------------------------------------------------------------------- */

/* tu_join_start_mode under a descriptor limit (`ulimit -n nofile` in a shell that then execs the
 * coordinator; 0: none). */
void tu_join_start_limited(tu_join_t *j, const char *const *args, int insecure, unsigned nofile)
{
    memset(j, 0, sizeof *j);
    j->insecure = insecure;
    tu_new_tag(j->tag, sizeof j->tag);
    tu_av_t a = {0};
    TU_AV_ADD(&a, "run", "--nodes", "join", "--listen", "127.0.0.1:0");
    if (insecure) {
        TU_AV_ADD(&a, "--security", "none", "--insecure-ok");
    } else {
        snprintf(j->keydir, sizeof j->keydir, "/tmp/stepnet-test-keyXXXXXX");
        assert_non_null(mkdtemp(j->keydir));
        snprintf(j->key, sizeof j->key, "%s/cluster.key", j->keydir);
        tu_proc_t k = TU_STEPNET(30, "keygen", j->key);
        tu_expect_status(&k, 0);
        tu_exec_free(&k);
        TU_AV_ADD(&a, "--key", j->key);
    }
    tu_av_addv(&a, args);
    tu_exec_opts_t o = {.name = "stepnet", .env = j->tag};
    if (nofile) {
        char script[64];
        snprintf(script, sizeof script, "ulimit -n %u && exec \"$0\" \"$@\"", nofile);
        tu_av_t w = {0};
        TU_AV_ADD(&w, "-c", script, tu_env_bin("STEPNET"));
        tu_av_addv(&w, a.v);
        j->coord = tu_bg_start("/bin/sh", w.v, &o);
    } else {
        j->coord = tu_bg_start(tu_env_bin("STEPNET"), a.v, &o);
    }
    char line[512];
    if (!tu_bg_line(j->coord, 2, "waiting for", line, sizeof line, 20 * TU_SLOW))
        fail_msg("%s: no 'waiting for' line on stderr:\n%s", j->coord->cmd, j->coord->buf[1]);
    const char *w = strstr(line, "waiting for ");
    char host[64];
    if (sscanf(w, "waiting for %u nodes: stepnet-node --join %63[^:]:%d", &j->want, host,
               &j->port) != 3)
        fail_msg("cannot read the join address from: %s", line);
    assert_string_equal(host, "127.0.0.1");
    assert_true(j->port > 0 && j->port < 65536);
}

void tu_join_start_mode(tu_join_t *j, const char *const *args, int insecure)
{
    tu_join_start_limited(j, args, insecure, 0);
}

void tu_join_start(tu_join_t *j, const char *const *args)
{
    tu_join_start_mode(j, args, 0);
}

/* Starts n more `stepnet-node --join 127.0.0.1:PORT --listen 127.0.0.1` and reads each one's
 * "LISTEN port=P". */
void tu_join_nodes(tu_join_t *j, size_t n)
{
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", j->port);
    tu_exec_opts_t o = {.name = "stepnet-node", .env = j->tag};
    for (size_t k = 0; k < n; k++) {
        assert_true(j->n < TU_MAXNODES);
        size_t i = j->n++;
        const char *const sec[] = {"--join", addr, "--listen", "127.0.0.1", "--key", j->key, NULL};
        const char *const insec[] = {"--join",     addr,   "--listen",      "127.0.0.1",
                                     "--security", "none", "--insecure-ok", NULL};
        j->node[i] = tu_bg_start(tu_env_bin("STEPNET_NODE"), j->insecure ? insec : sec, &o);
        char line[256];
        if (!tu_bg_line(j->node[i], 1, "LISTEN", line, sizeof line, 20 * TU_SLOW) ||
            sscanf(line, "LISTEN port=%d", &j->listen_port[i]) != 1)
            fail_msg("node %zu printed no 'LISTEN port=P' line:\nstdout: %s\nstderr: %s", i,
                     j->node[i]->buf[0], j->node[i]->buf[1]);
        assert_true(j->listen_port[i] > 0 && j->listen_port[i] < 65536);
    }
}

/* Reads every node's "READY id=I port=P": the ids are 0..n-1 once each, P the LISTEN port. */
void tu_join_ready(tu_join_t *j)
{
    int seen[TU_MAXNODES] = {0};
    for (size_t i = 0; i < j->n; i++) {
        char line[256];
        if (!tu_bg_line(j->node[i], 1, "READY", line, sizeof line, 30 * TU_SLOW) ||
            sscanf(line, "READY id=%d port=%d", &j->id[i], &j->ready_port[i]) != 2)
            fail_msg("node %zu printed no 'READY id=I port=P' line:\nstdout: %s\nstderr: %s", i,
                     j->node[i]->buf[0], j->node[i]->buf[1]);
        assert_in_range(j->id[i], 0, (int) j->n - 1);
        assert_int_equal(seen[j->id[i]]++, 0);
        assert_int_equal(j->ready_port[i], j->listen_port[i]);
    }
}

/* A finished background process seen as a tu_proc_t (borrowing its buffers). */
tu_proc_t tu_bg_view(const tu_bg_t *b)
{
    tu_proc_t p;
    memset(&p, 0, sizeof p);
    p.status = b->status;
    p.signal = b->signal;
    p.secs = b->t_exit - b->t0;
    snprintf(p.cmd, sizeof p.cmd, "%s", b->cmd);
    p.out = b->buf[0];
    p.nout = b->len[0];
    p.err = b->buf[1];
    p.nerr = b->len[1];
    return p;
}

void tu_bg_wait_or_fail(tu_bg_t *b, double deadline_s)
{
    if (tu_bg_wait(b, deadline_s) < 0)
        fail_msg("%s: no exit within %.0f s\nstdout: %s\nstderr: %s", b->cmd, deadline_s, b->buf[0],
                 b->buf[1]);
    if (b->signal)
        fail_msg("%s: killed by signal %d\nstderr: %s", b->cmd, b->signal, b->buf[1]);
    if (tu_sanitizer_report(b->buf[1]))
        fail_msg("%s: sanitizer report on stderr:\n%s", b->cmd, b->buf[1]);
}

/* Waits for the coordinator and then every node (each must exit with node_status), checks that
 * none is left, and frees them; returns the coordinator's report (malloc'd) or NULL. */
char *tu_join_finish(tu_join_t *j, int status, int node_status)
{
    tu_bg_wait_or_fail(j->coord, 120 * TU_SLOW);
    tu_proc_t c = tu_bg_view(j->coord);
    tu_expect_status(&c, status);
    char *report = c.nout ? strdup(c.out) : NULL;
    for (size_t i = 0; i < j->n; i++) {
        tu_bg_wait_or_fail(j->node[i], 30 * TU_SLOW);
        if (j->node[i]->status != node_status)
            fail_msg("%s: exit status %d, want %d\nstderr: %s", j->node[i]->cmd, j->node[i]->status,
                     node_status, j->node[i]->buf[1]);
    }
    tu_expect_no_survivors(j->coord->cmd, j->tag);
    tu_bg_free(j->coord);
    j->coord = NULL;
    if (j->keydir[0]) {
        unlink(j->key);
        rmdir(j->keydir);
        j->keydir[0] = '\0';
    }
    for (size_t i = 0; i < j->n; i++) {
        tu_bg_free(j->node[i]);
        j->node[i] = NULL;
    }
    return report;
}

/* ---- raw sockets ----------------------------------------------------------------------------- */

int tu_dial_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t) port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *) &sa, sizeof sa) != 0)
        fail_msg("connect to 127.0.0.1:%d: %s", port, strerror(errno));
    return fd;
}

/* The transport preamble of a --security none peer (docs/security.md). */
/* transport version 2, mode none */
const uint8_t tu_plain_preamble[8] = {'s', 't', 'p', 'n', 'e', 't', SN_SEC_VERSION, 0};

/* Reads exactly n bytes within the deadline; 0 on success. */
int tu_read_exact(int fd, uint8_t *p, size_t n, double deadline_s)
{
    double end = tu_now() + deadline_s;
    size_t have = 0;
    while (have < n) {
        double left = end - tu_now();
        if (left <= 0)
            return -1;
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, (int) (left * 1000) + 1) <= 0)
            continue;
        ssize_t r = recv(fd, p + have, n - have, 0);
        if (r <= 0)
            return -1;
        have += (size_t) r;
    }
    return 0;
}

/* Waits until the peer closes fd (EOF or reset); returns the seconds it took, < 0 at the
 * deadline. */
double tu_wait_closed(int fd, double deadline_s)
{
    double t0 = tu_now(), end = t0 + deadline_s;
    for (;;) {
        double left = end - tu_now();
        if (left <= 0)
            return -1;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int) (left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        char b[256];
        ssize_t n = recv(fd, b, sizeof b, 0);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            return tu_now() - t0;
        /* the node sends nothing on a connection it has not accepted: data is a failure */
        if (n > 0)
            fail_msg("the node sent %zd bytes on a connection it should refuse", n);
    }
}

/* How many of the open file descriptors of pid are sockets. */
int tu_count_sockets(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", (long) pid);
    DIR *d = opendir(dir);
    if (d == NULL)
        fail_msg("cannot list %s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char path[400], target[128];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        n += strncmp(target, "socket:", 7) == 0;
    }
    closedir(d);
    return n;
}

/* Waits until b's stderr holds `needle`; 1, or 0 at the deadline. */
int tu_wait_stderr(tu_bg_t *b, const char *needle, double deadline_s)
{
    double end = tu_now() + deadline_s;
    while (strstr(b->buf[1], needle) == NULL) {
        if (tu_now() >= end)
            return 0;
        tu_bg_pump(b, 0.05);
    }
    return 1;
}

size_t tu_join_hold(tu_join_t *j)
{
    size_t h = 0;
    while (h < j->n && j->id[h] != atoi(TU_HOLD_ID))
        h++;
    assert_true(h < j->n);
    if (!tu_wait_stderr(j->node[h], "injecting stop@" TU_HOLD_SLOT, 30 * TU_SLOW))
        fail_msg("node " TU_HOLD_ID " did not stop itself at slot " TU_HOLD_SLOT ":\n%s",
                 j->node[h]->buf[1]);
    return h;
}

/* Lets the held run go on (SIGCONT to the node tu_join_hold returned). */
void tu_join_release(tu_join_t *j, size_t h)
{
    if (!tu_bg_running(j->coord))
        fail_msg("the run ended while it was held:\n%s", j->coord->buf[1]);
    assert_int_equal(tu_bg_signal(j->node[h], SIGCONT), 0);
}

/* ---- stepnet-node, held local runs and the key's exposure ------------------------------------ */

/* Runs stepnet-node with args to its exit. */
tu_proc_t tu_node_exec(double deadline_s, const char *const *args)
{
    char tag[128];
    tu_new_tag(tag, sizeof tag);
    tu_exec_opts_t o = {.name = "stepnet-node", .deadline_s = deadline_s * TU_SLOW, .env = tag};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET_NODE"), args, &o);
    if (tu_sanitizer_report(p.err))
        fail_msg("%s: sanitizer report on stderr:\n%s", p.cmd, p.err);
    tu_expect_no_survivors(p.cmd, tag);
    return p;
}

void tu_expect_err(const tu_proc_t *p, int status, const char *needle)
{
    tu_expect_status(p, status);
    if (strstr(p->err, needle) == NULL)
        fail_msg("%s: stderr lacks '%s':\n%s", p->cmd, needle, p->err);
}

/* A 64-hex-digit word, as a key in the file format would be. */
static int has_key_like(const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        int hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
        run = hex ? run + 1 : 0;
        if (run >= 64)
            return 1;
    }
    return 0;
}

/* How many processes of the run tagged `tag` are stepnet-node processes past their exec (their
 * command line holds --key-fd); fails the test if any command line or environment shows a
 * key-like word. */
size_t tu_execd_nodes(const char *tag)
{
    pid_t pids[80];
    size_t n = tu_env_procs(tag, 0, pids, 80), nodes = 0;
    for (size_t i = 0; i < n && i < 80; i++) {
        static const char *const files[] = {"cmdline", "environ"};
        for (int f = 0; f < 2; f++) {
            char path[64], buf[8192];
            snprintf(path, sizeof path, "/proc/%ld/%s", (long) pids[i], files[f]);
            FILE *fp = fopen(path, "r");
            if (fp == NULL)
                continue;
            size_t len = fread(buf, 1, sizeof buf, fp);
            fclose(fp);
            if (has_key_like(buf, len))
                fail_msg("process %ld shows a key in its %s", (long) pids[i], files[f]);
            for (size_t at = 0; f == 0 && at < len; at += strlen(buf + at) + 1) /* NULs */
                if (len < sizeof buf && strcmp(buf + at, "--key-fd") == 0)
                    nodes++;
        }
    }
    return nodes;
}

/* ---- setup and teardown of a test program ---------------------------------------------------- */

/* After every test: no process of this test binary's runs may remain (a failed test may have
 * left some; they would disturb the next tests). */
int tu_run_teardown(void **state)
{
    (void) state;
    char list[2048];
    size_t n = tu_kill_tagged(tag_prefix, 1, list, sizeof list);
    if (n > 0)
        print_error("killed %zu process(es) left by the test: %s\n", n, list);
    return 0;
}

void tu_run_init(const char *name)
{
    signal(SIGPIPE, SIG_IGN);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tag_prefix, sizeof tag_prefix, "STEPNET_TEST_TAG=%ld-%lx-", (long) getpid(),
             (unsigned long) ts.tv_nsec);
    print_message("%s: %s build, deadlines x%.0f\n", name, TU_ASAN ? "sanitizer" : "plain",
                  TU_SLOW);
    /* TEST_FILTER=test_fault_* runs only the tests whose names match */
    if (getenv("TEST_FILTER") && *getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
}
