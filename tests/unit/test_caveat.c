/* Unit tests of cli/caveat.c: the launch mode and hosts a report names, which measurements earn a
 * warning (measured/predicted outside 0.75-1.25, a load average above the cores) and the warning
 * lines, with the machine's load given as input so that no test depends on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/caveat.h"

static void launch_is(const sn_coord_opts_t *o, const sn_coord_result_t *res, const char *want)
{
    char buf[96];
    assert_string_equal(cli_caveat_launch_text(o, res, 16, buf, sizeof buf), want);
}

static void test_launch_text(void **state)
{
    (void) state;
    sn_coord_host_t hosts[16];
    memset(hosts, 0, sizeof hosts);
    sn_coord_result_t res = {.hosts = hosts, .nhosts = 16};
    sn_coord_opts_t o = {0};
    launch_is(&o, &res, "16 local processes");
    /* nodes placed on four machines, one of which never said hello */
    static const char *const names[] = {"h1", "h2", "h3", "h4"};
    for (int i = 0; i < 15; i++)
        snprintf(hosts[i].name, sizeof hosts[i].name, "%s", names[i % 4]);
    o.hosts = "lab.hosts";
    launch_is(&o, &res, "16 processes on 4 hosts over ssh");
    o.hosts = NULL;
    o.join = 1;
    launch_is(&o, &res, "16 joined processes on 4 hosts");
    o.join = 0;
    o.daemons = "h1:5201,h2:5201";
    launch_is(&o, &res, "16 daemon processes on 4 hosts");
    /* one host: singular; no hello at all (the run failed early): no host count */
    for (int i = 0; i < 16; i++)
        snprintf(hosts[i].name, sizeof hosts[i].name, "%s", "h1");
    launch_is(&o, &res, "16 daemon processes on 1 host");
    memset(hosts, 0, sizeof hosts);
    o.daemons = NULL;
    o.hosts = "h1:8,h2:8";
    launch_is(&o, &res, "16 processes over ssh");
    launch_is(&o, NULL, "16 processes over ssh");
    /* over ssh the hosts given nodes count, whatever names they give (cloned machines) */
    for (int i = 0; i < 16; i++)
        snprintf(hosts[i].name, sizeof hosts[i].name, "%s", "clone");
    res.ssh_hosts = 2;
    launch_is(&o, &res, "16 processes on 2 hosts over ssh");
}

static void test_decide(void **state)
{
    (void) state;
    /* the band, its edges included */
    assert_int_equal(cli_caveat_decide(100.0, 100.0, -1.0, 0), 0);
    assert_int_equal(cli_caveat_decide(75.0, 100.0, -1.0, 0), 0);
    assert_int_equal(cli_caveat_decide(125.0, 100.0, -1.0, 0), 0);
    assert_int_equal(cli_caveat_decide(74.9, 100.0, -1.0, 0), CLI_CAVEAT_FAR);
    assert_int_equal(cli_caveat_decide(125.1, 100.0, -1.0, 0), CLI_CAVEAT_FAR);
    /* the demo of issue 27: a p50 of 241.6 ms against a predicted 35.0 ms */
    assert_int_equal(cli_caveat_decide(241600.0, 35000.0, -1.0, 0), CLI_CAVEAT_FAR);
    /* no prediction: no ratio to judge */
    assert_int_equal(cli_caveat_decide(241600.0, 0.0, -1.0, 0), 0);
    assert_int_equal(cli_caveat_decide(241600.0, -1.0, -1.0, 0), 0);
    /* the load: above the cores only, and only when both are known */
    assert_int_equal(cli_caveat_decide(100.0, 100.0, 2.0, 2), 0);
    assert_int_equal(cli_caveat_decide(100.0, 100.0, 2.01, 2), CLI_CAVEAT_BUSY);
    assert_int_equal(cli_caveat_decide(100.0, 100.0, 9.0, 0), 0);
    assert_int_equal(cli_caveat_decide(100.0, 100.0, -1.0, 2), 0);
    assert_int_equal(cli_caveat_decide(300.0, 100.0, 4.5, 2), CLI_CAVEAT_FAR | CLI_CAVEAT_BUSY);
}

/* The lines cli_caveat_text writes for `bits`, into buf. */
static void text(int bits, char *buf, size_t cap)
{
    memset(buf, 0, cap); /* fmemopen need not terminate a buffer nothing was written to */
    FILE *f = fmemopen(buf, cap, "w");
    assert_non_null(f);
    cli_caveat_text(f, "  warning         ", bits, 6.9, "p50 wall time", 4.25, 2);
    fclose(f);
}

static void test_text(void **state)
{
    (void) state;
    char buf[2048];
    text(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    text(CLI_CAVEAT_FAR, buf, sizeof buf);
    assert_non_null(strstr(buf, "  warning         measured/predicted 6.90 (p50 wall time), "
                                "outside 0.75-1.25: the prediction is the time model fed by this "
                                "run's link calibration"));
    assert_null(strstr(buf, "load average"));
    assert_int_equal(strchr(buf, '\n') - buf + 1, (long) strlen(buf)); /* one line */
    text(CLI_CAVEAT_BUSY, buf, sizeof buf);
    assert_string_equal(buf, "  warning         load average 4.25 on 2 cores: the machine was "
                             "busy, which inflates every measured time; measure again on an idle "
                             "machine before trusting them\n");
    text(CLI_CAVEAT_FAR | CLI_CAVEAT_BUSY, buf, sizeof buf);
    char *second = strchr(buf, '\n') + 1;
    assert_true(strncmp(buf, "  warning         measured/predicted", 36) == 0);
    assert_true(strncmp(second, "  warning         load average", 30) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_text),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
