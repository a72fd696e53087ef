/* Integration tests of the coordinator's admission control (docs/security.md; coordinator/): an
 * idle flood of control connections does not keep the real nodes out, too low a descriptor limit
 * is named at once, and strangers' bad frames before any hello close those connections only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/testutil.h"
#include "tests/support/tu_run.h"

/* ---- admission control (docs/security.md) ---------------------------------------------------- */

#define FLOOD 400

/* 400 idle connections to the control port of a coordinator limited to 256 descriptors (they
 * would exhaust it) do not keep the real nodes from joining: the oldest unauthenticated
 * connections are closed beyond the caps, the run verifies, and the refusals are logged with a
 * rate limit (a burst, then one summary line with a count). */
static void test_admission_idle_flood(void **state)
{
    (void) state;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < FLOOD + 64) {
        rl.rlim_cur = rl.rlim_max < FLOOD + 64 ? rl.rlim_max : FLOOD + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < FLOOD + 64)
        skip();
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start_limited(j,
                          (const char *const[]){"--topo", "ring:4", "--coll", "te", "--reps", "2",
                                                "--warmup", "0", "--probes", "3", "--json", NULL},
                          0, 256);
    int fds[FLOOD];
    for (int k = 0; k < FLOOD; k++)
        fds[k] = tu_dial_port(j->port);
    /* the coordinator has seen the flood when it starts refusing */
    if (!tu_wait_stderr(j->coord, "refused a control connection", 10 * TU_SLOW))
        fail_msg("the coordinator refused none of %d idle connections:\n%s", FLOOD,
                 j->coord->buf[1]);
    tu_join_nodes(j, 4);
    tu_join_ready(j);
    char *report = tu_join_finish(j, 0, 0);
    assert_non_null(report);
    assert_true(tu_json_bool(report, "verified"));
    free(report);
    for (int k = 0; k < FLOOD; k++)
        close(fds[k]);
    free(j);
}

/* The same limit with too many nodes for it: the run is refused at once, exit 2, naming the need
 * and the descriptor limit (not "0 have joined" at the ready deadline). */
static void test_admission_descriptor_limit(void **state)
{
    (void) state;
    tu_exec_opts_t o = {.name = "stepnet", .deadline_s = 30 * TU_SLOW};
    char script[256];
    snprintf(script, sizeof script, "ulimit -n 40 && exec \"$0\" \"$@\"");
    tu_proc_t p = tu_exec("/bin/sh",
                          (const char *const[]){"-c", script, tu_env_bin("STEPNET"), "run",
                                                "--topo", "ring:24", "--coll", "te", NULL},
                          &o);
    tu_expect_status(&p, 2);
    if (!strstr(p.err, "ring:24 needs about 56 open files in the coordinator") ||
        !strstr(p.err, "ulimit -Hn 40"))
        fail_msg("the refusal does not name the need and the descriptor limit:\n%s", p.err);
    if (p.secs > 10 * TU_SLOW)
        fail_msg("the run took %.1f s to refuse", p.secs);
    tu_exec_free(&p);
}

/* Sends one plaintext frame (u32 big-endian length of type + body, the type, the body). */
static void send_frame(int fd, int type, const void *body, uint32_t len, uint32_t claim)
{
    uint8_t hdr[5];
    uint32_t flen = htonl(claim ? claim : len + 1);
    memcpy(hdr, &flen, 4);
    hdr[4] = (uint8_t) type;
    assert_int_equal(send(fd, hdr, 5, MSG_NOSIGNAL), 5);
    if (len)
        assert_int_equal(send(fd, body, len, MSG_NOSIGNAL), (ssize_t) len);
}

/* A --security none peer that connected and finished the preamble. */
static int plain_peer(int port)
{
    int fd = tu_dial_port(port);
    assert_int_equal(send(fd, tu_plain_preamble, 8, MSG_NOSIGNAL), 8);
    uint8_t answer[8];
    if (tu_read_exact(fd, answer, 8, 5 * TU_SLOW) != 0 || memcmp(answer, tu_plain_preamble, 8) != 0)
        fail_msg("the coordinator did not answer the plaintext preamble");
    return fd;
}

/* With --security none, strangers' bad frames before any hello close those connections only,
 * each refusal names the peer's address, and the run still verifies: an empty control frame, a
 * malformed one, a non-hello message, and a frame header announcing 80 MiB (refused from its
 * header: no frame before the hello may exceed a small fixed size). */
static void test_admission_plaintext_strangers(void **state)
{
    (void) state;
    tu_join_t *j = calloc(1, sizeof *j);
    assert_non_null(j);
    tu_join_start_mode(j,
                       (const char *const[]){"--topo", "ring:4", "--coll", "te", "--reps", "2",
                                             "--warmup", "0", "--probes", "3", "--json", NULL},
                       1);
    int fd_empty = plain_peer(j->port), fd_bad = plain_peer(j->port),
        fd_ready = plain_peer(j->port), fd_big = plain_peer(j->port);
    send_frame(fd_empty, 1, NULL, 0, 0);
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x08};
    send_frame(fd_bad, 1, garbage, sizeof garbage, 0);
    /* Control { ready = Ready { node = 0 } }: field 2, length 2, then field 1 = 0 */
    static const uint8_t ready[] = {0x12, 0x02, 0x08, 0x00};
    send_frame(fd_ready, 1, ready, sizeof ready, 0);
    send_frame(fd_big, 1, NULL, 0, 80u << 20);
    int fds[] = {fd_empty, fd_bad, fd_ready, fd_big};
    static const char *const what[] = {"an empty frame", "a malformed frame", "a Ready",
                                       "an 80 MiB header"};
    for (int k = 0; k < 4; k++) {
        double took = tu_wait_closed(fds[k], 5 * TU_SLOW);
        if (took < 0)
            fail_msg("the coordinator kept a connection that sent %s before its hello", what[k]);
        close(fds[k]);
    }
    static const char *const logs[] = {"before the hello", "malformed control frame",
                                       "control message 2 before the hello",
                                       "exceeds the maximum 1024"};
    for (int k = 0; k < 4; k++)
        if (!tu_wait_stderr(j->coord, logs[k], 5 * TU_SLOW))
            fail_msg("the coordinator did not log '%s':\n%s", logs[k], j->coord->buf[1]);
    if (tu_count_str(j->coord->buf[1], "refused a control connection from 127.0.0.1:") < 4)
        fail_msg("a refusal without the peer's address:\n%s", j->coord->buf[1]);
    tu_join_nodes(j, 4);
    tu_join_ready(j);
    char *report = tu_join_finish(j, 0, 0);
    assert_non_null(report);
    assert_true(tu_json_bool(report, "verified"));
    free(report);
    free(j);
}

int main(void)
{
    tu_run_init("test_run_admission");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_admission_idle_flood, tu_run_teardown),
        cmocka_unit_test_teardown(test_admission_descriptor_limit, tu_run_teardown),
        cmocka_unit_test_teardown(test_admission_plaintext_strangers, tu_run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
