/* Unit tests of the launchers' table (launch/launcher.c): every row has every member the engine
 * calls unchecked, the choice of a row for a run's settings, the ready deadline's default by
 * launcher and number of nodes (ssh sessions cost more than local processes, and it is bounded);
 * and of the one builder of stepnet-node's command line (launch/node_cmd.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "launch/launch_internal.h"
#include "tests/support/testutil.h"

/* Every row: a name of its own, a default listener, the members without "optional" in
 * launcher.h, and kill only beside running (a process to kill is one that runs). */
static void test_every_row_is_complete(void **state)
{
    (void) state;
    assert_int_equal(sn_nlaunchers, 4);
    for (size_t i = 0; i < sn_nlaunchers; i++) {
        const sn_launcher_ops_t *l = sn_launchers[i];
        assert_non_null(l->name);
        assert_non_null(l->listen);
        assert_true(l->ready_node_ms > 0);
        assert_non_null(l->prepare);
        assert_non_null(l->start);
        assert_non_null(l->late);
        assert_non_null(l->free);
        assert_true(l->kill == NULL || l->running != NULL);
        for (size_t k = 0; k < i; k++)
            assert_true(strcmp(sn_launchers[k]->name, l->name) != 0);
    }
}

/* Each row as today's options choose it, and the properties the engine reads of each. */
static void test_launcher_of_options(void **state)
{
    (void) state;
    sn_launch_opts_t o = {0};
    const sn_launcher_ops_t *l = sn_launcher_of(&o);
    assert_string_equal(l->name, "local");
    assert_true(l->one_clock && !l->ids_at_join && l->started && l->running && l->check);
    o.join = 1;
    l = sn_launcher_of(&o);
    assert_string_equal(l->name, "join");
    assert_true(l->ids_at_join && !l->one_clock && l->started == NULL && l->running == NULL);
    o.join = 0;
    o.daemons = "10.0.0.1:7100";
    l = sn_launcher_of(&o);
    assert_string_equal(l->name, "daemons");
    assert_string_equal(l->listen, "0.0.0.0:0"); /* the daemons' nodes dial back from elsewhere */
    assert_true(!l->one_clock && !l->ids_at_join && l->started && l->running == NULL);
    o.daemons = NULL;
    o.hosts = "h1:4";
    l = sn_launcher_of(&o);
    assert_string_equal(l->name, "ssh");
    assert_true(!l->one_clock && l->hosts && l->running && l->check);
    assert_string_equal(sn_launcher_of(&(sn_launch_opts_t){0})->listen, SN_LAUNCH_DEFAULT_LISTEN);
}

/* The former fixed default (30 s) is the base; each node adds its launcher's share. */
static void test_default_by_launcher_and_nodes(void **state)
{
    (void) state;
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_local, 0), 30000);
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_local, 4), 30080);
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_local, 4096), 30000 + 20 * 4096);
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_join, 16), 30320);
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_daemons, 16), 30320);
    /* ssh: 2 s per session (16 sessions: 62 s) */
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_ssh, 16), 62000);
    assert_int_equal(sn_launch_ready_default_ms(&sn__launch_ssh, 1), 32000);
}

/* More nodes never shorten it, an ssh launch is never shorter than another, and the largest node
 * count stays within the option's range (one day) instead of wrapping. */
static void test_default_monotone_and_bounded(void **state)
{
    (void) state;
    for (size_t m = 0; m < sn_nlaunchers; m++) {
        uint32_t prev = 0;
        for (uint32_t n = 0; n < 5000; n += 7) {
            uint32_t ms = sn_launch_ready_default_ms(sn_launchers[m], n);
            assert_true(ms >= prev);
            assert_true(ms <= SN_LAUNCH_READY_MAX_MS);
            assert_true(sn_launch_ready_default_ms(&sn__launch_ssh, n) >= ms);
            prev = ms;
        }
        assert_int_equal(sn_launch_ready_default_ms(sn_launchers[m], UINT32_MAX),
                         SN_LAUNCH_READY_MAX_MS);
    }
}

/* The process-per-node launchers refuse more nodes than they may start. */
static void test_check_processes(void **state)
{
    (void) state;
    sn_launch_ctx_t ctx = {.topo = "ring:5000", .n = 5000};
    sn_err_t err = {0};
    tu_assert_rc(sn__launch_local.check(&ctx, &err), SN_EINVAL);
    assert_string_equal(err.msg, "ring:5000 has 5000 nodes; local runs start one process per node "
                                 "and allow at most 4096 (use stepnet sim for larger networks)");
    ctx.n = SN_LAUNCH_MAX_PROCESSES;
    tu_assert_rc(sn__launch_ssh.check(&ctx, &err), 0);
}

/* The words of a command, joined by spaces, into buf. */
static const char *joined(const sn_node_argv_t *a, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->n; i++)
        len += (size_t) snprintf(buf + len, cap - len, "%s%s", i ? " " : "", a->words[i]);
    assert_null(a->words[a->n]);
    return buf;
}

/* A local node: it dials its coordinator and never outlives it; --security none, --quiet and
 * --port-range as the run's settings say. */
static void test_node_cmd_local(void **state)
{
    (void) state;
    sn_node_cmd_t c = {.form = SN_NODE_CMD_LOCAL, .coordinator = "127.0.0.1:40001", .id = 7};
    sn_node_argv_t a;
    char text[512];
    sn__launch_node_args(&c, &a);
    assert_string_equal(joined(&a, text, sizeof text),
                        "--coordinator 127.0.0.1:40001 --id 7 --local");
    c.insecure = c.quiet = 1;
    c.port_lo = 7000;
    c.port_hi = 7099;
    c.connect_ms = 5000; /* a local node's connections keep their default */
    sn__launch_node_args(&c, &a);
    assert_string_equal(
        joined(&a, text, sizeof text),
        "--coordinator 127.0.0.1:40001 --id 7 --local --security none --quiet --port-range "
        "7000-7099");
}

/* A node over ssh: it joins with the key on its standard input, and the shell's command quotes
 * the program and the address. */
static void test_node_cmd_remote(void **state)
{
    (void) state;
    sn_node_cmd_t c = {.form = SN_NODE_CMD_REMOTE,
                       .coordinator = "[::1]:40001",
                       .id = 3,
                       .quiet = 1,
                       .connect_ms = 10000};
    char cmd[256];
    tu_assert_rc(sn__launch_node_shell(&c, "stepnet-node", cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "exec 'stepnet-node' --join '[::1]:40001' --id 3 --stdin-session "
                             "--connect-timeout-ms 10000 --quiet");
    c.quiet = 0;
    c.insecure = 1;
    c.port_lo = c.port_hi = 7005;
    tu_assert_rc(sn__launch_node_shell(&c, "/opt/stepnet/bin/stepnet-node", cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "exec '/opt/stepnet/bin/stepnet-node' --join '[::1]:40001' --id 3 "
                             "--stdin-session --connect-timeout-ms 10000 --port-range 7005-7005 "
                             "--security none --insecure-ok");
    /* too small a buffer: refused, never cut */
    tu_assert_rc(sn__launch_node_shell(&c, "stepnet-node", cmd, 40), SN_EINVAL);
    sn_node_argv_t a;
    sn__launch_node_args(&c, &a);
    assert_true(a.quote[1] && !a.quote[0] && !a.quote[3]); /* the address alone is quoted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_complete),
        cmocka_unit_test(test_launcher_of_options),
        cmocka_unit_test(test_default_by_launcher_and_nodes),
        cmocka_unit_test(test_default_monotone_and_bounded),
        cmocka_unit_test(test_check_processes),
        cmocka_unit_test(test_node_cmd_local),
        cmocka_unit_test(test_node_cmd_remote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
