/* Integration tests of join mode (`stepnet run --nodes join`, `stepnet-node --join`; coordinator/
 * and node/): joined nodes match the simulator, a missing node is named at the ready deadline, host
 * names work, stepnet-node refuses bad values, and nodes refuse foreign link connections (wrong
 * token, duplicate link, unknown edge, no hello) while the run goes on and still verifies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/stepnet.pb-c.h"
#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- join mode ----------------------------------------------------------------------------- */

/* Runs sim with args, and run in join mode with nodes started here; compares them. Returns the
 * sum over the nodes of their "NODE-READY <links> links up". */
static unsigned join_exact(const char *const *args)
{
    tu_av_t s = {0}, r = {0};
    TU_AV_ADD(&s, "sim");
    tu_av_addv(&s, args);
    TU_AV_ADD(&s, "--json");
    tu_av_addv(&r, args);
    TU_AV_ADD(&r, "--json", "--reps", "2", "--warmup", "0", "--probes", "3");
    tu_proc_t ps = tu_stepnet(60, s.v);
    tu_expect_status(&ps, 0);
    const char *js = tu_json_line(&ps);
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start(j, r.v);
    assert_int_equal(j->want, tu_json_int(js, "nodes"));
    tu_join_nodes(j, j->want);
    tu_join_ready(j);
    unsigned links = 0;
    for (size_t i = 0; i < j->n; i++) {
        char line[256];
        unsigned l = 0;
        const char *p;
        if (!tu_bg_line(j->node[i], 2, "NODE-READY", line, sizeof line, 10 * TU_SLOW) ||
            (p = strstr(line, "NODE-READY ")) == NULL || sscanf(p, "NODE-READY %u", &l) != 1)
            fail_msg("node %zu logged no NODE-READY line: %s", i, j->node[i]->buf[1]);
        links += l;
    }
    char *jr = tu_join_finish(j, 0, 0);
    assert_non_null(jr);
    assert_true(tu_json_bool(jr, "verified"));
    assert_string_equal(tu_jstr(jr, "nodes_mode"), "join");
    static const char *const ints[] = {"steps", "packets", "deliveries", "expected_deliveries"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (tu_json_int(jr, ints[i]) != tu_json_int(js, ints[i]))
            fail_msg("join run: %s is %lld, sim says %lld\nrun: %s\nsim: %s", ints[i],
                     (long long) tu_json_int(jr, ints[i]), (long long) tu_json_int(js, ints[i]), jr,
                     js);
    if (strcmp(tu_jstr(jr, "trace_hash"), tu_jstr(js, "trace_hash")) != 0)
        fail_msg("join run: trace_hash %s, sim says %s", tu_jstr(jr, "trace_hash"),
                 tu_jstr(js, "trace_hash"));
    /* joined nodes: clock offsets estimated by control round trips, their uncertainty stated */
    assert_string_equal(tu_jstr(jr, "clock"), "offsets");
    tu_expect_coll_times(jr, 2);
    char what[256];
    print_message("  join: %-54s %4lld steps  %s\n", tu_args_text(args, what, sizeof what),
                  (long long) tu_json_int(jr, "steps"), tu_jstr(jr, "trace_hash"));
    free(jr);
    free(j);
    tu_exec_free(&ps);
    return links;
}

static void test_join_mode(void **state)
{
    (void) state;
    join_exact(
        (const char *const[]){"--topo", "torus:3x3", "--coll", "mnb", "--ports", "single", NULL});
    /* the 3 routers of fattree:2:2:2,3 join as processes of their own (7 in all), and each of
     * its 14 links, parallel ones included, is a link of both its ends */
    unsigned links =
        join_exact((const char *const[]){"--topo", "fattree:2:2:2,3", "--coll", "te", NULL});
    assert_int_equal(links, 2 * 14);
}

static void test_join_needs_listen(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(30, "run", "--nodes", "join", "--topo", "ring:4", "--coll", "mnb");
    tu_expect_status(&p, 2);
    assert_int_equal(p.nout, 0);
    tu_expect_one_line(&p, p.err, p.nerr, "stderr");
    assert_non_null(strstr(p.err, "--listen"));
    tu_exec_free(&p);
}

/* Fewer nodes than the topology has: the ready deadline names how many are missing, and the
 * nodes that joined are sent home. */
static void test_join_missing_node(void **state)
{
    (void) state;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start(j, (const char *const[]){"--topo", "ring:4", "--coll", "mnb",
                                           "--ready-timeout-ms", "1500", "--json", NULL});
    assert_int_equal(j->want, 4);
    tu_join_nodes(j, 3);
    char *report = tu_join_finish(j, 1, 1);
    assert_non_null(report);
    assert_false(tu_json_bool(report, "verified"));
    const char *err = tu_jstr(report, "error");
    if (strstr(err, "ready deadline") == NULL || strstr(err, "joined") == NULL ||
        strstr(err, "1 of 4") == NULL)
        fail_msg("the error does not name the missing node: %s", err);
    print_message("  %s\n", err);
    free(report);
    free(j);
}

/* ---- refused link connections ------------------------------------------------------------- */

/* Sends the plaintext preamble and a LINK frame (u32 big-endian length of (type + body), type 3,
 * LinkHello) to a --security none node, and checks the node's preamble in answer. */
static void send_hello(int fd, uint64_t token, uint32_t edge, uint32_t from)
{
    assert_int_equal(send(fd, tu_plain_preamble, 8, MSG_NOSIGNAL), 8);
    uint8_t answer[8];
    if (tu_read_exact(fd, answer, 8, 5 * TU_SLOW) != 0 || memcmp(answer, tu_plain_preamble, 8) != 0)
        fail_msg("the node did not answer the plaintext preamble");
    Stepnet__LinkHello h = STEPNET__LINK_HELLO__INIT;
    h.version = 1;
    h.token = token;
    h.edge = edge;
    h.from = from;
    uint8_t buf[256];
    size_t len = stepnet__link_hello__get_packed_size(&h);
    assert_true(len + 5 <= sizeof buf);
    uint32_t flen = htonl((uint32_t) len + 1);
    memcpy(buf, &flen, 4);
    buf[4] = 3;
    stepnet__link_hello__pack(&h, buf + 5);
    assert_int_equal(send(fd, buf, len + 5, MSG_NOSIGNAL), (ssize_t) (len + 5));
}

/* While a run is held (tu_join_hold), connections to a node's link port that present a wrong token,
 * a link that is already up, an edge that does not exist, or nothing at all are closed by the
 * node (LINK-REFUSED), and the run, released, still verifies. The graph has a parallel edge: every
 * node holds one socket per link, plus its listener and its control connection. */
static void test_refused_connections(void **state)
{
    (void) state;
    char *path = tu_tmpfile("# a parallel edge 0-1, then 1-2\n0 1\n0 1\n1 2\n");
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec);
    assert_int_equal(t->nedges, 3);
    const uint64_t token = 0x1234abcdu;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    /* plaintext, so that this test can speak the link protocol itself; the secure transport
     * refuses all of these earlier (test_join_secure_refusals) */
    tu_join_start_mode(j,
                       (const char *const[]){"--topo", spec, "--coll", "mnb", "--reps", "1",
                                             "--warmup", "0", "--probes", "3", "--token",
                                             "1234abcd", "--connect-timeout-ms", "1000",
                                             TU_HOLD_ARGS, "--json", NULL},
                       1);
    tu_join_nodes(j, t->n);
    tu_join_ready(j);
    /* one socket per link (the parallel edge is two), the listener and the control connection */
    for (size_t i = 0; i < j->n; i++) {
        int want = (int) sn_topo_degree(t, (uint32_t) j->id[i]) + 2;
        int got = tu_count_sockets(j->node[i]->pid);
        if (got != want)
            fail_msg("node %d holds %d sockets, want %d (its %u links, listener, control)",
                     j->id[i], got, want, sn_topo_degree(t, (uint32_t) j->id[i]));
    }
    /* the target: the accepting end of edge 0 (its dialler is the smaller id), not the held node */
    const sn_edge_t *e = &t->edges[0];
    assert_int_not_equal(e->b, atoi(TU_HOLD_ID));
    const size_t held = tu_join_hold(j);
    size_t b = 0;
    while (b < j->n && j->id[b] != (int) e->b)
        b++;
    assert_true(b < j->n);
    int port = j->listen_port[b];
    int fd_token = tu_dial_port(port), fd_dup = tu_dial_port(port), fd_edge = tu_dial_port(port),
        fd_none = tu_dial_port(port);
    /* a stranger that completes the (plaintext) preamble with the coordinator and then says
     * nothing: it must not keep the coordinator alive after the run */
    int fd_stray = tu_dial_port(j->port);
    assert_int_equal(send(fd_stray, tu_plain_preamble, 8, MSG_NOSIGNAL), 8);
    uint8_t stray_answer[8];
    if (tu_read_exact(fd_stray, stray_answer, 8, 5 * TU_SLOW) != 0)
        fail_msg("the coordinator did not answer the plaintext preamble");
    send_hello(fd_token, 0xbadbadu, 0, e->a);
    send_hello(fd_dup, token, 0, e->a);
    send_hello(fd_edge, token, t->nedges + 7, e->a);
    static const char *const what[] = {"wrong token", "link already up", "no such edge",
                                       "no hello"};
    int fds[] = {fd_token, fd_dup, fd_edge, fd_none};
    double took[4];
    for (int k = 0; k < 4; k++) {
        took[k] = tu_wait_closed(fds[k], (k < 3 ? 5 : 6) * TU_SLOW);
        if (took[k] < 0)
            fail_msg("connection with %s to node %u was not closed within the deadline", what[k],
                     e->b);
        close(fds[k]);
    }
    /* the silent one waits for the connect deadline (1000 ms) */
    if (took[3] < 0.5)
        fail_msg("a connection without a handshake was closed after %.2f s, before the 1 s "
                 "deadline",
                 took[3]);
    static const char *const logs[] = {"run token differs", "already up", "no such edge",
                                       "did not finish within 1000 ms"};
    for (int k = 0; k < 4; k++)
        if (!tu_wait_stderr(j->node[b], logs[k], 5 * TU_SLOW))
            fail_msg("node %u did not log LINK-REFUSED ... %s:\n%s", e->b, logs[k],
                     j->node[b]->buf[1]);
    size_t refused = 0;
    for (const char *s = strstr(j->node[b]->buf[1], "LINK-REFUSED"); s;
         s = strstr(s + 1, "LINK-REFUSED"))
        refused++;
    assert_int_equal(refused, 4);
    print_message("  refused: token %.3f s, duplicate %.3f s, edge %.3f s, silent %.3f s\n",
                  took[0], took[1], took[2], took[3]);
    /* ... and it is closed at the connect deadline (1 s), well before the end of the run */
    double t_stray = tu_wait_closed(fd_stray, 6 * TU_SLOW);
    close(fd_stray);
    if (t_stray < 0)
        fail_msg("the coordinator kept a connection that never said hello");
    if (!tu_wait_stderr(j->coord, "sent no hello within 1000 ms", 5 * TU_SLOW))
        fail_msg("the coordinator did not log the silent control connection:\n%s",
                 j->coord->buf[1]);
    tu_join_release(j, held);
    char *report = tu_join_finish(j, 0, 0);
    assert_non_null(report);
    assert_true(tu_json_bool(report, "verified"));
    free(report);
    free(j);
    sn_topo_free(t);
    unlink(path);
    free(path);
}

/* ---- stepnet-node's addresses and numbers -----------------------------------------------------
 */

/* Host names work for --join, --listen and --advertise (and so for the addresses neighbours
 * dial): a join run with every node naming localhost verifies. */
static void test_join_host_names(void **state)
{
    (void) state;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start(j, (const char *const[]){"--topo", "ring:4", "--coll", "mnb", "--reps", "1",
                                           "--warmup", "0", "--probes", "0", "--json", NULL});
    char addr[64];
    snprintf(addr, sizeof addr, "localhost:%d", j->port);
    tu_exec_opts_t o = {.name = "stepnet-node", .env = j->tag};
    for (uint32_t k = 0; k < j->want; k++) {
        size_t i = j->n++;
        const char *const args[] = {"--join",    addr,    "--listen", "localhost", "--advertise",
                                    "localhost", "--key", j->key,     NULL};
        j->node[i] = tu_bg_start(tu_env_bin("STEPNET_NODE"), args, &o);
        char line[256];
        if (!tu_bg_line(j->node[i], 1, "LISTEN", line, sizeof line, 20 * TU_SLOW) ||
            sscanf(line, "LISTEN port=%d", &j->listen_port[i]) != 1)
            fail_msg("node %zu printed no 'LISTEN port=P' line:\nstdout: %s\nstderr: %s", i,
                     j->node[i]->buf[0], j->node[i]->buf[1]);
    }
    tu_join_ready(j);
    char *report = tu_join_finish(j, 0, 0);
    assert_non_null(report);
    assert_true(tu_json_bool(report, "verified"));
    free(report);
    free(j);
}

/* Bad numbers and addresses on stepnet-node's command line: exit 2, naming the value and what is
 * accepted. */
static void test_node_bad_values(void **state)
{
    (void) state;
    static const struct {
        const char *opt, *value, *need;
    } bad[] = {
        {"--id", "-1", "from 0 to"},
        {"--id", "1x", "from 0 to"},
        {"--id", " 1", "from 0 to"},
        {"--connect-timeout-ms", "", "from 0 to"},
        {"--key-fd", "2", "from 3 to"},
        {"--join", "127.0.0.1", "port from 1 to 65535"},
        {"--join", "127.0.0.1:0", "port from 1 to 65535"},
        {"--join", "::1:80", "[IPv6]"},
        {"--join", "host:99999", "HOST:PORT"},
        {"--listen", "", "host name"},
        {"--advertise", "[::1", "host name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *join = strcmp(bad[i].opt, "--join") == 0 ? bad[i].value : "127.0.0.1:9";
        tu_proc_t p;
        if (strcmp(bad[i].opt, "--join") == 0)
            p = tu_node_exec(30, (const char *const[]){"--join", join, "--security", "none",
                                                       "--insecure-ok", NULL});
        else
            p = tu_node_exec(30,
                             (const char *const[]){"--join", join, bad[i].opt, bad[i].value,
                                                   "--security", "none", "--insecure-ok", NULL});
        tu_expect_err(&p, 2, bad[i].need);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i].value);
        if (strstr(p.err, quoted) == NULL)
            fail_msg("%s: stderr does not name the value %s:\n%s", p.cmd, quoted, p.err);
        tu_exec_free(&p);
    }
}

int main(void)
{
    tu_run_init("test_run_join");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_join_mode, tu_run_teardown),
        cmocka_unit_test_teardown(test_join_needs_listen, tu_run_teardown),
        cmocka_unit_test_teardown(test_join_missing_node, tu_run_teardown),
        cmocka_unit_test_teardown(test_refused_connections, tu_run_teardown),
        cmocka_unit_test_teardown(test_join_host_names, tu_run_teardown),
        cmocka_unit_test_teardown(test_node_bad_values, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
