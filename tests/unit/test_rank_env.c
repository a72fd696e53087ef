/* Unit tests of proc/rank_env.c: the rank `stepnet-node --id auto` takes from the environment
 * of mpirun (Open MPI), hydra (PMI, PMIx) or srun, through a fake environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "proc/rank_env.h"
#include "tests/support/testutil.h"

/* The fake environment: pairs of name and value, NULL-terminated. */
static const char *const *fake_env;

static char *fake_get(const char *name)
{
    for (size_t i = 0; fake_env[i]; i += 2)
        if (strcmp(fake_env[i], name) == 0)
            return (char *) fake_env[i + 1];
    return NULL;
}

static int rank_of(const char *const *env, int32_t *rank, const char **var, sn_err_t *err)
{
    fake_env = env;
    *rank = -1;
    return sn_rank_env_read(fake_get, rank, var, err);
}

static void test_each_launcher(void **state)
{
    (void) state;
    int32_t rank;
    const char *var;
    sn_err_t err = {0};
    tu_assert_rc(rank_of((const char *[]){"OMPI_COMM_WORLD_RANK", "7", NULL}, &rank, &var, &err),
                 0);
    assert_int_equal(rank, 7);
    assert_string_equal(var, "OMPI_COMM_WORLD_RANK");
    tu_assert_rc(rank_of((const char *[]){"PMIX_RANK", "0", NULL}, &rank, &var, &err), 0);
    assert_int_equal(rank, 0);
    assert_string_equal(var, "PMIX_RANK");
    tu_assert_rc(rank_of((const char *[]){"PMI_RANK", "12", NULL}, &rank, &var, &err), 0);
    assert_int_equal(rank, 12);
    assert_string_equal(var, "PMI_RANK");
    tu_assert_rc(rank_of((const char *[]){"SLURM_PROCID", "1073741824", NULL}, &rank, &var, &err),
                 0);
    assert_int_equal(rank, 1073741824);
    assert_string_equal(var, "SLURM_PROCID");
}

static void test_precedence(void **state)
{
    (void) state;
    int32_t rank;
    const char *var;
    sn_err_t err = {0};
    /* mpirun inside a Slurm allocation: the MPI rank, not the step's SLURM_PROCID */
    tu_assert_rc(rank_of((const char *[]){"SLURM_PROCID", "0", "OMPI_COMM_WORLD_RANK", "5",
                                          "PMIX_RANK", "5", NULL},
                         &rank, &var, &err),
                 0);
    assert_int_equal(rank, 5);
    assert_string_equal(var, "OMPI_COMM_WORLD_RANK");
    tu_assert_rc(
        rank_of((const char *[]){"SLURM_PROCID", "0", "PMI_RANK", "3", NULL}, &rank, &var, &err),
        0);
    assert_int_equal(rank, 3);
    tu_assert_rc(
        rank_of((const char *[]){"PMI_RANK", "4", "PMIX_RANK", "2", NULL}, &rank, &var, &err), 0);
    assert_int_equal(rank, 2);
    assert_string_equal(var, "PMIX_RANK");
}

static void test_refuses(void **state)
{
    (void) state;
    int32_t rank;
    const char *var;
    sn_err_t err = {0};
    tu_assert_rc(rank_of((const char *[]){"OMPI_COMM_WORLD_SIZE", "4", NULL}, &rank, &var, &err),
                 SN_EINVAL);
    assert_non_null(strstr(err.msg, "no launcher rank"));
    assert_non_null(strstr(err.msg, "OMPI_COMM_WORLD_RANK"));
    assert_non_null(strstr(err.msg, "SLURM_PROCID"));
    assert_null(var);
    const char *bad[] = {"", "-1", "+1", "1x", " 1", "1073741825", "99999999999", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_assert_rc(rank_of((const char *[]){"PMI_RANK", bad[i], NULL}, &rank, &var, &err),
                     SN_EINVAL);
        char want[80];
        snprintf(want, sizeof want, "bad value '%s' of PMI_RANK", bad[i]);
        if (strstr(err.msg, want) == NULL)
            fail_msg("'%s': message '%s' lacks '%s'", bad[i], err.msg, want);
        assert_int_equal(rank, -1);
    }
    /* a bad value of the first variable set is refused, not skipped for the next one */
    tu_assert_rc(rank_of((const char *[]){"OMPI_COMM_WORLD_RANK", "x", "SLURM_PROCID", "1", NULL},
                         &rank, &var, &err),
                 SN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_launcher),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
