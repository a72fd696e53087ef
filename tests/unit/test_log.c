/* Unit tests of proc/log.c: the one log line format of both programs ("HH:MM:SS.uuuuuu ROLE [ID]
 * EVENT message", which the integration tests grep) and the verbosity levels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/log.h"
#include "tests/support/testutil.h"

/* What `lg` wrote since the last call (the lines after the time stamp's 16 characters checked
 * for the time's shape), into buf. */
static const char *written(sn_log_t *lg, char *buf, size_t cap)
{
    FILE *f = lg->out;
    long n = ftell(f);
    rewind(f);
    size_t got = fread(buf, 1, cap - 1, f);
    buf[got] = '\0';
    assert_int_equal((long) got, n);
    rewind(f);
    assert_int_equal(ftruncate(fileno(f), 0), 0);
    return buf;
}

/* One line: the time stamp, then `rest`. */
static void expect_line(const char *line, const char *rest)
{
    unsigned h, m, s, us;
    char tail[600];
    if (sscanf(line, "%2u:%2u:%2u.%6u %599[^\n]", &h, &m, &s, &us, tail) != 5 || h > 23 || m > 59 ||
        s > 60 || line[15] != ' ' || strcmp(tail, rest) != 0 || line[strlen(line) - 1] != '\n')
        fail_msg("log line '%s' is not 'HH:MM:SS.uuuuuu %s'", line, rest);
}

static void test_format(void **state)
{
    (void) state;
    sn_log_t lg;
    char buf[1024];
    sn_log_init(&lg, "node", SN_LOG_ID_UNKNOWN, SN_LOG_INFO);
    lg.out = tmpfile();
    assert_non_null(lg.out);
    sn_log_write(&lg, SN_LOG_ERROR, "CTL-CONNECT", "connect to %s: %s", "127.0.0.1:9", "refused");
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf),
                "node ? CTL-CONNECT connect to 127.0.0.1:9: refused");
    sn_log_set_id(&lg, 3);
    sn_log_write(&lg, SN_LOG_INFO, "NODE-READY", "%u links up", 2u);
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf), "node 3 NODE-READY 2 links up");
    sn_log_set_id(&lg, 0);
    sn_log_write(&lg, SN_LOG_ERROR, "LINK-RCVMAX", "edge 1");
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf), "node 0 LINK-RCVMAX edge 1");
    fclose(lg.out);

    sn_log_init(&lg, "daemon", SN_LOG_ID_NONE, SN_LOG_INFO);
    lg.out = tmpfile();
    sn_log_write(&lg, SN_LOG_WARN, "DAEMON-STOP", "SIGTERM: stopping %u node process(es)", 0u);
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf),
                "daemon DAEMON-STOP SIGTERM: stopping 0 node process(es)");
    fclose(lg.out);

    sn_log_init(&lg, "coord", SN_LOG_ID_NONE, SN_LOG_INFO);
    lg.out = tmpfile();
    sn_log_write(&lg, SN_LOG_INFO, "COORD-JOIN", "node %d joined", 5);
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf), "coord COORD-JOIN node 5 joined");
    /* a long message is cut, the line still ends with a newline */
    char big[700];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sn_log_write(&lg, SN_LOG_ERROR, "E", "%s", big);
    fflush(lg.out);
    const char *line = written(&lg, buf, sizeof buf);
    assert_int_equal(strlen(line), 16 + strlen("coord E ") + 511 + 1);
    assert_int_equal(line[strlen(line) - 1], '\n');
    fclose(lg.out);
}

static void test_levels(void **state)
{
    (void) state;
    sn_log_t lg;
    char buf[1024];
    sn_log_init(&lg, "node", 1, SN_LOG_WARN); /* --quiet */
    lg.out = tmpfile();
    assert_true(sn_log_enabled(&lg, SN_LOG_ERROR));
    assert_true(sn_log_enabled(&lg, SN_LOG_WARN));
    assert_false(sn_log_enabled(&lg, SN_LOG_INFO));
    assert_false(sn_log_enabled(&lg, SN_LOG_DEBUG));
    sn_log_write(&lg, SN_LOG_INFO, "NODE-READY", "dropped");
    sn_log_write(&lg, SN_LOG_DEBUG, "NODE-DEBUG", "dropped");
    fflush(lg.out);
    assert_string_equal(written(&lg, buf, sizeof buf), "");
    sn_log_write(&lg, SN_LOG_WARN, "NODE-SIGNAL", "SIGTERM: exiting");
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf), "node 1 NODE-SIGNAL SIGTERM: exiting");
    lg.level = SN_LOG_DEBUG;
    sn_log_write(&lg, SN_LOG_DEBUG, "NODE-DEBUG", "kept");
    fflush(lg.out);
    expect_line(written(&lg, buf, sizeof buf), "node 1 NODE-DEBUG kept");
    fclose(lg.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
