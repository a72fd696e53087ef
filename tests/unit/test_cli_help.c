/* Unit tests of the commands' --help (cli/cmd_*.c, through sn_opts_help): every command prints
 * its help and exits 0, which it does only when every option of its tables has a help text and
 * every line its layout names is in a table; no line is wider than SN_OPTS_HELP_WIDTH or ends
 * with a space. stepnet-node's table is checked the same way by its --help (test_cli). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* What `stepnet NAME --help` prints on stdout (malloc'd) and its exit status. */
static char *help_of(int (*cmd)(int, char **), int *status)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stdout);
    int saved = dup(1);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 1) >= 0);
    char *argv[] = {"--help", NULL};
    *status = cmd(1, argv);
    fflush(stdout);
    assert_true(dup2(saved, 1) >= 0);
    close(saved);
    long n = ftell(tmp); /* 0 when the help was refused */
    assert_true(n >= 0);
    char *text = calloc((size_t) n + 1, 1);
    assert_non_null(text);
    rewind(tmp);
    if (n > 0)
        assert_int_equal(fread(text, 1, (size_t) n, tmp), (size_t) n);
    fclose(tmp);
    return text;
}

static void test_every_command(void **state)
{
    (void) state;
    static const struct {
        const char *name;
        int (*cmd)(int, char **);
        int exit_status_section; /* 1: the help ends with "Exit status: ..." */
    } cmds[] = {
        {"model", cli_cmd_model, 1}, {"sim", cli_cmd_sim, 1},       {"run", cli_cmd_run, 1},
        {"bench", cli_cmd_bench, 1}, {"export", cli_cmd_export, 1}, {"synth", cli_cmd_synth, 1},
        {"algos", cli_cmd_algos, 0}, {"table", cli_cmd_table, 1},   {"keygen", cli_cmd_keygen, 1},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        int status = -1;
        char *text = help_of(cmds[k].cmd, &status);
        if (status != EXIT_OK)
            fail_msg("stepnet %s --help: exit status %d (an option without help?)", cmds[k].name,
                     status);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: stepnet %s ", cmds[k].name);
        if (strncmp(text, usage, strlen(usage)) != 0)
            fail_msg("stepnet %s --help does not start with '%s': %.80s", cmds[k].name, usage,
                     text);
        if (cmds[k].exit_status_section && strstr(text, "\nExit status: ") == NULL)
            fail_msg("stepnet %s --help has no Exit status", cmds[k].name);
        size_t line = 1;
        for (const char *s = text; *s; line++) {
            const char *end = strchr(s, '\n');
            assert_non_null(end); /* every line ends with a newline */
            size_t n = (size_t) (end - s);
            if (n > SN_OPTS_HELP_WIDTH || (n > 0 && end[-1] == ' '))
                fail_msg("stepnet %s --help, line %zu: %zu columns or a trailing space: '%.*s'",
                         cmds[k].name, line, n, (int) n, s);
            s = end + 1;
        }
        free(text);
    }
}

/* Run and bench share one table and list it differently: each lists its own name of the
 * repetitions (--reps, --iters) and bench none of run's own lines. */
static void test_run_and_bench(void **state)
{
    (void) state;
    int status;
    char *run = help_of(cli_cmd_run, &status);
    char *bench = help_of(cli_cmd_bench, &status);
    assert_non_null(strstr(run, "\n  --reps N           measured repetitions (default 5;"));
    assert_null(strstr(run, "\n  --iters N"));
    assert_non_null(strstr(bench, "\n  --iters N          measured repetitions per size"));
    assert_null(strstr(bench, "\n  --reps N"));
    assert_null(strstr(bench, "--idle-slots"));
    assert_null(strstr(bench, "--link-delay"));
    /* --progress, a shared option, among their own; not in sim's */
    assert_non_null(strstr(run, "\n  --progress         progress on stderr"));
    assert_non_null(strstr(bench, "\n  --progress         progress on stderr"));
    char *sim = help_of(cli_cmd_sim, &status);
    assert_null(strstr(sim, "--progress"));
    free(run);
    free(bench);
    free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command),
        cmocka_unit_test(test_run_and_bench),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
