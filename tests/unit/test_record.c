/* Unit tests of cli/record.c: the CSV header of run and bench (the OSU columns in the order of
 * the text table, the bandwidth after the latencies, what was run last). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/record.h"

static void test_csv_header(void **state)
{
    (void) state;
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    cli_record_csv_header(f);
    fclose(f);
    assert_string_equal(buf, CLI_RECORD_CSV_HEADER "\n");
    /* the OSU columns, in the order of the text table */
    assert_non_null(strstr(buf, "size,avg_us,min_us,max_us,p50_us,p99_us,iterations,steps,"
                                "predicted_us"));
    /* the bandwidth after the latencies */
    assert_non_null(strstr(buf, ",node_p50_us,bw_node_mb_s,bw_total_mb_s,bw_bus_mb_s,"));
    /* what was run last, constant columns that a reader by column name may ignore */
    assert_non_null(
        strstr(buf, ",bw_bus_mb_s,nodes_mode,launch,security,warmup,stepnet_version,timestamp\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
