/* Unit tests of the execution modes (core/model/sync.c): every mode's name parses back to it, the
 * names are distinct, anything else is refused, the list of names reads as the messages print it,
 * and the properties are the list's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "stepnet/error.h"
#include "stepnet/sync.h"

static void test_name_parse_roundtrip(void **state)
{
    (void) state;
    for (unsigned s = 0; s < SN_SYNC_COUNT; s++) {
        const char *name = sn_sync_name((sn_sync_t) s);
        assert_string_not_equal(name, "?");
        assert_true(strlen(sn_sync_describe((sn_sync_t) s)) > 0);
        sn_sync_t back = SN_SYNC_COUNT;
        assert_int_equal(sn_sync_parse(name, &back), 0);
        assert_int_equal(back, s);
        for (unsigned o = 0; o < s; o++)
            assert_string_not_equal(sn_sync_name((sn_sync_t) o), name);
    }
    assert_string_equal(sn_sync_name(SN_SYNC_SLOT), "slot");
    assert_string_equal(sn_sync_name(SN_SYNC_DATAFLOW), "dataflow");
    assert_int_equal(SN_SYNC_SLOT, 0); /* the first is the default: what a zeroed option holds */
}

static void test_parse_refuses(void **state)
{
    (void) state;
    const char *bad[] = {"", "nosuch", "Slot", "slot ", "data", "dataflow2", "0", "1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_sync_t s = SN_SYNC_DATAFLOW;
        assert_int_equal(sn_sync_parse(bad[i], &s), SN_EINVAL);
        assert_int_equal(s, SN_SYNC_DATAFLOW); /* unchanged */
    }
    assert_string_equal(sn_sync_name(SN_SYNC_COUNT), "?");
    assert_string_equal(sn_sync_describe(SN_SYNC_COUNT), "?");
}

static void test_names(void **state)
{
    (void) state;
    char buf[64];
    assert_string_equal(sn_sync_names(buf, sizeof buf), "slot or dataflow");
    char small[6];
    assert_string_equal(sn_sync_names(small, sizeof small), "slot ");
    assert_ptr_equal(sn_sync_names(buf, 0), buf);
}

static void test_properties(void **state)
{
    (void) state;
    assert_int_equal(sn_sync_lockstep(SN_SYNC_SLOT), 1);
    assert_int_equal(sn_sync_needs_rxplan(SN_SYNC_SLOT), 0);
    assert_int_equal(sn_sync_lockstep(SN_SYNC_DATAFLOW), 0);
    assert_int_equal(sn_sync_needs_rxplan(SN_SYNC_DATAFLOW), 1);
    assert_int_equal(sn_sync_lockstep(SN_SYNC_COUNT), 0);
    assert_int_equal(sn_sync_needs_rxplan(SN_SYNC_COUNT), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_parse_roundtrip),
        cmocka_unit_test(test_parse_refuses),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
