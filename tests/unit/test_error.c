/* Unit tests of the error table's parameter references (core/util/error.c): sn_err_expand names
 * every SN_PARAM_REF marker by the front end's namer, or by the parameter's concept without one,
 * and copies what is not a marker as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "stepnet/error.h"

/* A front end that names two parameters and leaves the rest to their concepts. */
static const char *flags(sn_param_t p)
{
    return p == SN_PARAM_LINK_FILE ? "--link-file" : p == SN_PARAM_SYNC ? "--sync" : NULL;
}

static void test_expand_with_namer(void **state)
{
    (void) state;
    char buf[128];
    assert_string_equal(
        sn_err_expand("cannot read 'x' (" SN_REF_LINK_FILE "): gone", flags, buf, sizeof buf),
        "cannot read 'x' (--link-file): gone");
    assert_string_equal(
        sn_err_expand(SN_REF_SYNC " dataflow; use " SN_REF_SYNC " slot", flags, buf, sizeof buf),
        "--sync dataflow; use --sync slot");
    /* a parameter the namer leaves: its concept */
    assert_string_equal(sn_err_expand("(" SN_REF_MSGS " 1)", flags, buf, sizeof buf),
                        "(messages per pair 1)");
}

static void test_expand_without_namer(void **state)
{
    (void) state;
    char buf[128];
    assert_string_equal(sn_err_expand("raise " SN_REF_READY_TIMEOUT, NULL, buf, sizeof buf),
                        "raise ready deadline");
    assert_string_equal(sn_err_expand("no marker at all", NULL, buf, sizeof buf),
                        "no marker at all");
    assert_string_equal(sn_err_expand("", NULL, buf, sizeof buf), "");
}

static void test_expand_malformed(void **state)
{
    (void) state;
    char buf[128];
    /* a name no parameter has, and a marker never closed: copied as they are */
    assert_string_equal(sn_err_expand("a \x1dNOSUCH\x1e b", flags, buf, sizeof buf),
                        "a \x1dNOSUCH\x1e b");
    assert_string_equal(sn_err_expand("a \x1dSYNC b", flags, buf, sizeof buf), "a \x1dSYNC b");
    /* NONE is no reference either */
    assert_string_equal(sn_err_expand("a \x1dNONE\x1e", flags, buf, sizeof buf), "a \x1dNONE\x1e");
}

static void test_expand_truncates(void **state)
{
    (void) state;
    char buf[12];
    assert_string_equal(sn_err_expand("ab " SN_REF_LINK_FILE " cd", flags, buf, sizeof buf),
                        "ab --link-f");
    char one[1] = {'x'};
    sn_err_expand("abc", flags, one, sizeof one);
    assert_int_equal(one[0], '\0');
    /* cap 0 writes nothing */
    char none[2] = {'y', 'z'};
    sn_err_expand("abc", flags, none, 0);
    assert_int_equal(none[0], 'y');
}

/* Every parameter but NONE has a concept name, and the names are distinct. */
static void test_every_param_named(void **state)
{
    (void) state;
    for (int p = 1; p < SN_PARAM_COUNT; p++) {
        assert_true(strlen(sn_param_name((sn_param_t) p)) > 0);
        for (int q = 1; q < p; q++)
            assert_string_not_equal(sn_param_name((sn_param_t) p), sn_param_name((sn_param_t) q));
    }
    assert_string_equal(sn_param_name(SN_PARAM_NONE), "");
    assert_string_equal(sn_param_name(SN_PARAM_COUNT), "");
}

/* Every one-word reference (SN_REF_*) refers to its own parameter, and every parameter but NONE
 * has one. */
static void test_every_ref_names_its_param(void **state)
{
    (void) state;
    static const struct {
        const char *ref;
        sn_param_t param;
    } refs[] = {
        {SN_REF_ROOT, SN_PARAM_ROOT},
        {SN_REF_MSGS, SN_PARAM_MSGS},
        {SN_REF_FRAGS, SN_PARAM_FRAGS},
        {SN_REF_SIZE, SN_PARAM_SIZE},
        {SN_REF_PORT_MODEL, SN_PARAM_PORT_MODEL},
        {SN_REF_RX, SN_PARAM_RX},
        {SN_REF_SOURCES, SN_PARAM_SOURCES},
        {SN_REF_SLOT_LIMIT, SN_PARAM_SLOT_LIMIT},
        {SN_REF_OP, SN_PARAM_OP},
        {SN_REF_MEMORY, SN_PARAM_MEMORY},
        {SN_REF_ALGO, SN_PARAM_ALGO},
        {SN_REF_SYNC, SN_PARAM_SYNC},
        {SN_REF_LINK_FILE, SN_PARAM_LINK_FILE},
        {SN_REF_LISTEN, SN_PARAM_LISTEN},
        {SN_REF_PORT_RANGE, SN_PARAM_PORT_RANGE},
        {SN_REF_READY_TIMEOUT, SN_PARAM_READY_TIMEOUT},
        {SN_REF_COORD_NICE, SN_PARAM_COORD_NICE},
        {SN_REF_NODES, SN_PARAM_NODES},
        {SN_REF_NODE_BIN, SN_PARAM_NODE_BIN},
        {SN_REF_HOSTS, SN_PARAM_HOSTS},
        {SN_REF_MAP_BY, SN_PARAM_MAP_BY},
        {SN_REF_SSH, SN_PARAM_SSH},
        {SN_REF_REMOTE_NODE, SN_PARAM_REMOTE_NODE},
        {SN_REF_KEY, SN_PARAM_KEY},
        {SN_REF_NODE_ID, SN_PARAM_NODE_ID},
        {SN_REF_NODE_JOIN, SN_PARAM_NODE_JOIN},
        {SN_REF_DAEMON, SN_PARAM_DAEMON},
        {SN_REF_DAEMON_LISTEN, SN_PARAM_DAEMON_LISTEN},
    };
    assert_int_equal(sizeof refs / sizeof refs[0], SN_PARAM_COUNT - 1);
    char buf[128];
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        assert_string_equal(sn_err_expand(refs[i].ref, NULL, buf, sizeof buf),
                            sn_param_name(refs[i].param));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand_with_namer), cmocka_unit_test(test_expand_without_namer),
        cmocka_unit_test(test_expand_malformed),  cmocka_unit_test(test_expand_truncates),
        cmocka_unit_test(test_every_param_named), cmocka_unit_test(test_every_ref_names_its_param),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
