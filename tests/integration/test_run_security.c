/* Integration tests of the secure transport of `stepnet run` and stepnet-node (docs/security.md;
 * coordinator/, node/, net/): what the command lines refuse, which transport and cipher ran, the
 * key of a local run kept off every command line and environment, and intruders in a secure join
 * run (another key, a plaintext peer, HTTP, a silent connection) refused and named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/secure.h"
#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- security (docs/security.md) ------------------------------------------------------------ */

/* What the command lines refuse: join mode without a key or with plaintext unless asked for, bad
 * modes, keys readable by others, a key generated over an existing file. */
static void test_security_options(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(30, "run", "--nodes", "join", "--listen", "127.0.0.1:0", "--topo",
                             "ring:3", "--coll", "mnb");
    tu_expect_err(&p, 2, "--key FILE");
    tu_exec_free(&p);
    p = TU_STEPNET(30, "run", "--nodes", "join", "--listen", "127.0.0.1:0", "--topo", "ring:3",
                   "--coll", "mnb", "--security", "none");
    tu_expect_err(&p, 2, "--insecure-ok");
    tu_exec_free(&p);
    p = TU_STEPNET(30, "run", "--topo", "ring:3", "--coll", "mnb", "--security", "tls");
    tu_expect_err(&p, 2, "expected sodium or none");
    tu_exec_free(&p);
    p = TU_STEPNET(30, "keygen");
    tu_expect_err(&p, 2, "exactly one argument");
    tu_exec_free(&p);
    char dir[] = "/tmp/stepnet-test-keysXXXXXX";
    assert_non_null(mkdtemp(dir));
    char key[128];
    snprintf(key, sizeof key, "%s/k", dir);
    p = TU_STEPNET(30, "keygen", key);
    tu_expect_status(&p, 0);
    tu_exec_free(&p);
    p = TU_STEPNET(30, "keygen", key);
    tu_expect_err(&p, 1, "never overwrites");
    tu_exec_free(&p);
    chmod(key, 0644);
    p = TU_STEPNET(30, "run", "--topo", "ring:3", "--coll", "mnb", "--key", key);
    tu_expect_err(&p, 2, "chmod 600");
    tu_exec_free(&p);
    p = tu_node_exec(30, (const char *const[]){"--join", "127.0.0.1:9", "--key", key, NULL});
    tu_expect_err(&p, 2, "chmod 600");
    tu_exec_free(&p);
    chmod(key, 0600);
    p = tu_node_exec(30, (const char *const[]){"--join", "127.0.0.1:9", NULL});
    tu_expect_err(&p, 2, "--key FILE");
    tu_exec_free(&p);
    p = tu_node_exec(30,
                     (const char *const[]){"--join", "127.0.0.1:9", "--security", "none", NULL});
    tu_expect_err(&p, 2, "--insecure-ok");
    tu_exec_free(&p);
    /* a local run with a given key file works */
    p = TU_STEPNET(60, "run", "--topo", "ring:3", "--coll", "mnb", "--key", key, "--json");
    tu_expect_status(&p, 0);
    assert_string_equal(tu_jstr(tu_json_line(&p), "security"), "sodium");
    tu_exec_free(&p);
    unlink(key);
    rmdir(dir);
}

/* The report says which transport ran; --security none says so on stderr at start. */
static void test_security_reported(void **state)
{
    (void) state;
    tu_proc_t p = TU_STEPNET(60, "run", "--topo", "torus:3x3", "--coll", "te", "--json");
    tu_expect_status(&p, 0);
    assert_string_equal(tu_jstr(tu_json_line(&p), "security"), "sodium");
    tu_exec_free(&p);
    p = TU_STEPNET(60, "run", "--topo", "torus:3x3", "--coll", "te", "--security", "none",
                   "--json");
    tu_expect_status(&p, 0);
    assert_string_equal(tu_jstr(tu_json_line(&p), "security"), "none");
    if (strstr(p.err, "security none: links and the control channel are plaintext") == NULL)
        fail_msg("no security-none notice on stderr:\n%s", p.err);
    assert_string_equal(tu_jstr(tu_json_line(&p), "cipher"), "none");
    assert_int_equal(strncmp(tu_json_need(tu_json_line(&p), "ciphers_used"), "[]", 2), 0);
    tu_exec_free(&p);
    p = TU_STEPNET(60, "run", "--topo", "torus:3x3", "--coll", "te");
    tu_expect_status(&p, 0);
    if (strstr(p.out, "security sodium") == NULL)
        fail_msg("the text report does not name the transport:\n%s", p.out);
    tu_exec_free(&p);
    /* --cipher: every control connection and every link runs the cipher asked for (the nodes
     * report their links' in Ready); auto takes AES-256-GCM where the CPU has AES-NI */
    const char *aes = "aes256gcm", *xc = "xchacha20poly1305";
    const char *want_auto = sn_sec_ciphers_available() & SN_CIPHER_AES256GCM ? aes : xc;
    static const char *const modes[] = {"auto", "xchacha20poly1305", "aes256gcm"};
    for (size_t m = 0; m < 3; m++) {
        if (m == 2 && want_auto != aes)
            break; /* no AES-NI here: test_cli checks the refusal */
        p = TU_STEPNET(60, "run", "--topo", "torus:3x3", "--coll", "te", "--size", "70000",
                       "--reps", "2", "--probes", "2", "--cipher", modes[m], "--json");
        tu_expect_status(&p, 0);
        const char *j = tu_json_line(&p);
        assert_true(tu_json_bool(j, "verified"));
        assert_string_equal(tu_jstr(j, "cipher"), modes[m]);
        char used[64];
        snprintf(used, sizeof used, "[\"%s\"]", m == 0 ? want_auto : modes[m]);
        if (strncmp(tu_json_need(j, "ciphers_used"), used, strlen(used)) != 0)
            fail_msg("--cipher %s: ciphers_used is %s, expected %s", modes[m],
                     tu_json_need(j, "ciphers_used"), used);
        tu_exec_free(&p);
    }
}

/* The key of a local run reaches the nodes through a pipe: not on any command line and not in
 * any environment. */
static void test_local_key_not_exposed(void **state)
{
    (void) state;
    char tag[128];
    tu_new_tag(tag, sizeof tag);
    tu_exec_opts_t o = {.name = "stepnet", .env = tag};
    tu_bg_t *b = tu_bg_start(tu_env_bin("STEPNET"),
                             (const char *const[]){"run", "--topo", "ring:4", "--coll", "mnb",
                                                   "--reps", "1", "--warmup", "0", "--probes", "0",
                                                   TU_LOCAL_HOLD_ARGS, "--json", NULL},
                             &o);
    /* held at slot 1: every node has exec'd (a child shows its parent's command line before),
     * and none can exit before the SIGTERM below */
    if (!tu_wait_stderr(b, "injecting stop@1", 30 * TU_SLOW))
        fail_msg("%s: node 0 did not stop itself at slot 1:\n%s", b->cmd, b->buf[1]);
    size_t nodes = 0;
    double end = tu_now() + 20 * TU_SLOW;
    while ((nodes = tu_execd_nodes(tag)) < 4 && tu_now() < end)
        tu_sleep(0.02);
    if (nodes < 4)
        fail_msg("%zu of 4 node processes seen with --key-fd", nodes);
    assert_int_equal(nodes, 4);
    tu_bg_signal(b, SIGTERM);
    tu_bg_wait_or_fail(b, 30 * TU_SLOW);
    if (b->status != 143 || !strstr(b->buf[1], "interrupted by the user (SIGTERM)"))
        fail_msg("%s: exit status %d after SIGTERM, want 143 and 'interrupted by the user'\n%s",
                 b->cmd, b->status, b->buf[1]);
    tu_expect_no_survivors(b->cmd, tag);
    tu_bg_free(b);
}

/* While a secure join run is held (tu_join_hold), intruders are refused and say why, with the
 * peer's address: a node holding another key (it exits 1; the coordinator logs the refusal), a
 * plaintext peer on a link port (it learns the node requires encryption), a stranger speaking
 * HTTP, and a connection that never starts its handshake (closed at the deadline). The run,
 * released, still verifies. */
static void test_join_secure_refusals(void **state)
{
    (void) state;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start(j, (const char *const[]){"--topo", "ring:3", "--coll", "mnb", "--reps", "1",
                                           "--warmup", "0", "--probes", "3", "--connect-timeout-ms",
                                           "1000", TU_HOLD_ARGS, "--json", NULL});
    tu_join_nodes(j, 3);
    tu_join_ready(j);
    const size_t held = tu_join_hold(j);
    /* the target of the intruders on a link port: a node that is not held */
    const size_t b = held == 0 ? 1 : 0;
    /* a node with another key */
    char other[160];
    snprintf(other, sizeof other, "%s/other.key", j->keydir);
    tu_proc_t k = TU_STEPNET(30, "keygen", other);
    tu_expect_status(&k, 0);
    tu_exec_free(&k);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", j->port);
    tu_proc_t p = tu_node_exec(
        20, (const char *const[]){"--join", addr, "--listen", "127.0.0.1", "--key", other, NULL});
    tu_expect_err(&p, 1, "authentication failed");
    if (strstr(p.err, addr) == NULL)
        fail_msg("the refused node does not name the coordinator %s:\n%s", addr, p.err);
    tu_exec_free(&p);
    unlink(other);
    if (!tu_wait_stderr(j->coord, "refused a control connection", 5 * TU_SLOW))
        fail_msg("the coordinator did not log the refused node:\n%s", j->coord->buf[1]);
    /* a plaintext peer, a stranger, a silent connection on node b's link port */
    int port = j->listen_port[b];
    /* node b's sockets before the intruders: its links, its listener, its control connection */
    const int sockets_before = tu_count_sockets(j->node[b]->pid);
    int fd_silent = tu_dial_port(port), fd_coord = tu_dial_port(j->port);
    int fd_plain = tu_dial_port(port), fd_http = tu_dial_port(port);
    assert_int_equal(send(fd_plain, tu_plain_preamble, 8, MSG_NOSIGNAL), 8);
    uint8_t answer[8];
    if (tu_read_exact(fd_plain, answer, 8, 5 * TU_SLOW) != 0 || memcmp(answer, "stpnet\x03\x01", 8))
        fail_msg("the node did not answer a plaintext peer with its own (secure) preamble");
    const char http[] = "GET / HTTP/1.0\r\n\r\n";
    assert_int_equal(send(fd_http, http, sizeof http - 1, MSG_NOSIGNAL), (ssize_t) sizeof http - 1);
    /* each closing time from the dial */
    double t0 = tu_now(), w;
    double t_plain = tu_wait_closed(fd_plain, 5 * TU_SLOW);
    double t_http = tu_wait_closed(fd_http, 5 * TU_SLOW);
    w = tu_now();
    double t_silent = tu_wait_closed(fd_silent, 6 * TU_SLOW);
    t_silent = t_silent < 0 ? -1 : w + t_silent - t0;
    w = tu_now();
    double t_coord = tu_wait_closed(fd_coord, 6 * TU_SLOW);
    t_coord = t_coord < 0 ? -1 : w + t_coord - t0;
    if (t_plain < 0 || t_http < 0 || t_silent < 0 || t_coord < 0)
        fail_msg("a refused connection stayed open: plain %.2f, http %.2f, silent %.2f, "
                 "coordinator %.2f s",
                 t_plain, t_http, t_silent, t_coord);
    if (t_silent < 0.5 || t_coord < 0.5)
        fail_msg("silent connections were closed before the 1 s handshake deadline");
    close(fd_plain);
    close(fd_http);
    close(fd_silent);
    close(fd_coord);
    static const char *const logs[] = {"runs with --security none", "not a stepnet process",
                                       "did not finish within 1000 ms"};
    for (int i = 0; i < 3; i++)
        if (!tu_wait_stderr(j->node[b], logs[i], 5 * TU_SLOW))
            fail_msg("node %zu did not log LINK-REFUSED ... %s:\n%s", b, logs[i],
                     j->node[b]->buf[1]);
    if (!tu_wait_stderr(j->coord, "did not finish within 1000 ms", 5 * TU_SLOW))
        fail_msg("the coordinator did not log the silent connection:\n%s", j->coord->buf[1]);
    /* every refused connection freed: node b holds the same sockets as before */
    double until = tu_now() + 5 * TU_SLOW;
    while (tu_count_sockets(j->node[b]->pid) != sockets_before && tu_now() < until)
        tu_sleep(0.02);
    if (tu_count_sockets(j->node[b]->pid) != sockets_before)
        fail_msg("node %zu holds %d sockets after the refusals, %d before", b,
                 tu_count_sockets(j->node[b]->pid), sockets_before);
    print_message("  refused: plaintext %.3f s, http %.3f s, silent link %.3f s, silent control "
                  "%.3f s\n",
                  t_plain, t_http, t_silent, t_coord);
    tu_join_release(j, held);
    char *report = tu_join_finish(j, 0, 0);
    assert_non_null(report);
    assert_true(tu_json_bool(report, "verified"));
    assert_string_equal(tu_jstr(report, "security"), "sodium");
    free(report);
    free(j);
}

int main(void)
{
    tu_run_init("test_run_security");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_security_options, tu_run_teardown),
        cmocka_unit_test_teardown(test_security_reported, tu_run_teardown),
        cmocka_unit_test_teardown(test_local_key_not_exposed, tu_run_teardown),
        cmocka_unit_test_teardown(test_join_secure_refusals, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
