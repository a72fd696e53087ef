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
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_param_has_its_flag),
        cmocka_unit_test(test_err_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
