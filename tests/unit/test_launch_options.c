/* Unit tests of cli/launch_options.c: the parsers of the launchers' option values of `stepnet
 * run` (--nodes ADDR,ADDR,..., --port-range, --map-by), whose messages name the flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/launch_options.h"
#include "launch/hostfile.h"
#include "net/addr.h"
#include "tests/support/testutil.h"

static void test_daemons(void **state)
{
    (void) state;
    sn_err_t err = {0};
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000", &err), 0);
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000,[::1]:7001,node3.lan:7002", &err), 0);
    /* an item without a port, with port 0, empty or too long */
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000,10.0.0.2", &err), SN_EINVAL);
    assert_string_equal(err.msg, "bad value '10.0.0.1:7000,10.0.0.2' for --nodes: expected local, "
                                 "join or a comma-separated list of daemon addresses "
                                 "HOST:PORT[*N] (stepnet-node --serve, port 1 to 65535); "
                                 "'10.0.0.2' is not one");
    tu_assert_rc(cli_daemons_check("10.0.0.1:0", &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "'10.0.0.1:0' is not one"));
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000,", &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "an item is empty or too long"));
    char lng[SN_ADDR_MAX_TEXT + 1]; /* one item longer than an address may be */
    memset(lng, 'h', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    tu_assert_rc(cli_daemons_check(lng, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "bad value 'hhh"));
    /* HOST:PORT*N: N nodes on one daemon, N from 1 to 256 */
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000*16,10.0.0.2:7000", &err), 0);
    tu_assert_rc(cli_daemons_check("10.0.0.1:7000*256", &err), 0);
    static const char *const bad[] = {"10.0.0.1:7000*0", "10.0.0.1:7000*257", "10.0.0.1:7000*",
                                      "10.0.0.1:7000*x", "10.0.0.1*4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tu_assert_rc(cli_daemons_check(bad[i], &err), SN_EINVAL);
        assert_non_null(strstr(err.msg, i < 4 ? "ADDR*N takes N from 1 to 256" : "is not one"));
    }
    /* the address the run listens on: the one that routes to the daemons */
    char listen[64];
    tu_assert_rc(cli_daemons_listen("127.0.0.1:7000*3,127.0.0.1:7001", listen, sizeof listen, &err),
                 0);
    assert_string_equal(listen, "127.0.0.1:0");
}

static void test_port_range(void **state)
{
    (void) state;
    sn_err_t err = {0};
    sn_coord_opts_t o;
    sn_coord_opts_default(&o);
    tu_assert_rc(cli_port_range_parse("7000-7099", &o, &err), 0);
    assert_int_equal(o.port_lo, 7000);
    assert_int_equal(o.port_hi, 7099);
    tu_assert_rc(cli_port_range_parse("7005", &o, &err), 0);
    assert_int_equal(o.port_lo, 7005);
    assert_int_equal(o.port_hi, 7005);
    tu_assert_rc(cli_port_range_parse("5-1", &o, &err), SN_EINVAL);
    assert_string_equal(err.msg, "bad value '5-1' for --port-range: expected LO-HI with 1 <= LO <= "
                                 "HI <= 65535 (e.g. 7000-7099)");
    /* a --listen with port 0 leaves the range to the listener; one with a port does not */
    o.listen = "0.0.0.0:0";
    tu_assert_rc(cli_port_range_parse("7000-7099", &o, &err), 0);
    o.listen = "0.0.0.0:7000";
    tu_assert_rc(cli_port_range_parse("7000-7099", &o, &err), SN_EINVAL);
    assert_non_null(
        strstr(err.msg, "--port-range 7000-7099 and --listen 0.0.0.0:7000 both choose"));
}

static void test_map_by(void **state)
{
    (void) state;
    sn_err_t err = {0};
    int by = -1;
    tu_assert_rc(cli_map_by_parse("node", &by, &err), 0);
    assert_int_equal(by, SN_MAP_BY_NODE);
    tu_assert_rc(cli_map_by_parse("slot", &by, &err), 0);
    assert_int_equal(by, SN_MAP_BY_SLOT);
    tu_assert_rc(cli_map_by_parse("core", &by, &err), SN_EINVAL);
    assert_string_equal(err.msg, "bad value 'core' for --map-by: expected slot or node");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_daemons),
        cmocka_unit_test(test_port_range),
        cmocka_unit_test(test_map_by),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
