/* Unit tests of the CLI's map from core run parameters to its flags (cli/errmap.c): every
 * parameter a flag sets has its flag, and a user's message is the core's plus the flag. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "cli/cli.h"

static void test_every_param_has_its_flag(void **state)
{
    (void) state;
    static const struct {
        sn_param_t param;
        const char *flag; /* must appear in the mapped text; NULL: no flag */
    } want[] = {
        {SN_PARAM_NONE, NULL},
        {SN_PARAM_ROOT, "--root"},
        {SN_PARAM_MSGS, "--msgs"},
        {SN_PARAM_FRAGS, "--frags F"},
        {SN_PARAM_SIZE, "--size"},
        {SN_PARAM_PORT_MODEL, "--ports"},
        {SN_PARAM_RX, "--rx one|any"},
        {SN_PARAM_SOURCES, "--sources LIST or --m M"},
        {SN_PARAM_SLOT_LIMIT, "--max-slots"},
        {SN_PARAM_OP, "--op sum|xor|max|min|and|or"},
        {SN_PARAM_MEMORY, "--max-memory SIZE"},
        {SN_PARAM_ALGO, "--algo NAME"},
        {SN_PARAM_SYNC, "--sync slot|dataflow"},
        {SN_PARAM_LINK_FILE, "--link-file FILE"},
        {SN_PARAM_LISTEN, "--listen ADDR"},
        {SN_PARAM_PORT_RANGE, "--port-range LO-HI"},
        {SN_PARAM_READY_TIMEOUT, "--ready-timeout-ms MS"},
        {SN_PARAM_COORD_NICE, "--coord-nice N"},
        {SN_PARAM_NODES, "--nodes local|join"},
        {SN_PARAM_NODE_BIN, "--node-bin PATH"},
        {SN_PARAM_HOSTS, "--hosts FILE|LIST"},
        {SN_PARAM_MAP_BY, "--map-by slot|node"},
        {SN_PARAM_SSH, "--ssh COMMAND"},
        {SN_PARAM_REMOTE_NODE, "--remote-node PATH"},
        {SN_PARAM_KEY, "--key FILE"},
        {SN_PARAM_NODE_ID, "stepnet-node --id"},
        {SN_PARAM_NODE_JOIN, "stepnet-node --join"},
        {SN_PARAM_DAEMON, "stepnet-node --serve"},
        {SN_PARAM_DAEMON_LISTEN, "--serve --listen"},
    };
    assert_int_equal(sizeof want / sizeof want[0], SN_PARAM_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *f = cli_param_flag(want[i].param);
        if (want[i].flag == NULL) {
            assert_null(f);
            continue;
        }
        assert_non_null(f);
        assert_non_null(strstr(f, want[i].flag));
        /* the inline name is in the form: "--msgs" of "--msgs M", "--id" of "stepnet-node --id N"
         */
        const char *name = cli_param_name(want[i].param);
        assert_non_null(name);
        assert_non_null(strstr(f, name));
    }
    assert_null(cli_param_name(SN_PARAM_NONE));
    assert_null(cli_param_name(SN_PARAM_COUNT));
    assert_null(cli_param_flag(SN_PARAM_COUNT));
    assert_null(cli_param_flag((sn_param_t) -1));
}

static void test_err_text(void **state)
{
    (void) state;
    char buf[CLI_ERR_TEXT_MAX];
    sn_err_t err = {0};
    sn_err_set_param(&err, SN_ERANGE, SN_PARAM_MSGS, "messages per pair 0 out of range");
    assert_string_equal(cli_err_text(&err, buf, sizeof buf),
                        "messages per pair 0 out of range (option --msgs M)");
    sn_err_set_param(&err, SN_ESLOTS, SN_PARAM_SLOT_LIMIT, "no quiescence after 1 slots");
    assert_string_equal(cli_err_text(&err, buf, sizeof buf),
                        "no quiescence after 1 slots (option --max-slots N)");
    /* no parameter: the core's message unchanged */
    sn_err_set(&err, SN_ENOTSUP, "no algorithm");
    assert_string_equal(cli_err_text(&err, buf, sizeof buf), "no algorithm");
    /* fragments have a flag since --frags exists */
    sn_err_set_param(&err, SN_ERANGE, SN_PARAM_FRAGS, "fragments 0 out of range");
    assert_string_equal(cli_err_text(&err, buf, sizeof buf),
                        "fragments 0 out of range (option --frags F)");
}

/* An engine message shown by the CLI: its references named by the flags, control bytes escaped
 * after, so that a value the user gave cannot forge a reference's text. */
static void test_text_names_references(void **state)
{
    (void) state;
    char buf[CLI_ERR_TEXT_MAX];
    assert_string_equal(cli_text("cannot read 'a' (" SN_REF_LINK_FILE "): gone", buf, sizeof buf),
                        "cannot read 'a' (--link-file): gone");
    assert_string_equal(cli_text("waiting: " SN_REF_NODE_JOIN " 127.0.0.1:1", buf, sizeof buf),
                        "waiting: stepnet-node --join 127.0.0.1:1");
    assert_string_equal(cli_text("bad '\x1b[31m' \x1dNOSUCH\x1e", buf, sizeof buf),
                        "bad '\\x1b[31m' \\x1dNOSUCH\\x1e");
    sn_err_t err = {0};
    sn_err_set_param(&err, SN_EINVAL, SN_PARAM_MEMORY,
                     SN_REF_SYNC " dataflow: too large; use " SN_REF_SYNC " slot");
    assert_string_equal(cli_err_text(&err, buf, sizeof buf),
                        "--sync dataflow: too large; use --sync slot (option --max-memory SIZE)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_param_has_its_flag),
        cmocka_unit_test(test_err_text),
        cmocka_unit_test(test_text_names_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
