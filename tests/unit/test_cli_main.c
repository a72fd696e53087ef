/* Unit tests of the command table of cli/main.c, through the program: every command that
 * `stepnet --help` lists dispatches to that command (its own --help), the help goes to stderr with
 * exit status 2 when no command is given, and the unknown-command message, which keeps an order of
 * its own, names exactly the commands of the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testutil.h"

#define MAX_COMMANDS 32

/* The names of the "Commands:" section of `stepnet --help` into names (each at most 15 bytes);
 * returns their count. */
static size_t help_commands(const char *help, char names[][16])
{
    const char *p = strstr(help, "\nCommands:\n");
    assert_non_null(p);
    p += strlen("\nCommands:\n");
    size_t n = 0;
    while (strncmp(p, "  ", 2) == 0) {
        size_t len = strcspn(p + 2, " \n");
        assert_true(len > 0 && len < 16 && n < MAX_COMMANDS);
        memcpy(names[n], p + 2, len);
        names[n++][len] = '\0';
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    assert_true(*p == '\n'); /* the section ends with a blank line */
    return n;
}

static void test_every_listed_command_dispatches(void **state)
{
    (void) state;
    const char *args[] = {"--help", NULL};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&p, 0);
    char names[MAX_COMMANDS][16];
    size_t n = help_commands(p.out, names);
    assert_int_equal(n, 9);
    for (size_t i = 0; i < n; i++) {
        const char *cargs[] = {names[i], "--help", NULL};
        tu_proc_t c = tu_exec(tu_env_bin("STEPNET"), cargs, &(tu_exec_opts_t){.name = "stepnet"});
        tu_expect_status(&c, 0);
        char want[64];
        snprintf(want, sizeof want, "usage: stepnet %s", names[i]);
        if (strncmp(c.out, want, strlen(want)) != 0)
            fail_msg("`stepnet %s --help` does not start with '%s'", names[i], want);
        tu_exec_free(&c);
    }
    /* help and -h are --help; no command at all prints it on stderr, exit status 2 */
    const char *alias[] = {"help", "-h"};
    for (size_t i = 0; i < 2; i++) {
        const char *aargs[] = {alias[i], NULL};
        tu_proc_t a = tu_exec(tu_env_bin("STEPNET"), aargs, &(tu_exec_opts_t){.name = "stepnet"});
        tu_expect_status(&a, 0);
        assert_string_equal(a.out, p.out);
        tu_exec_free(&a);
    }
    const char *none[] = {NULL};
    tu_proc_t e = tu_exec(tu_env_bin("STEPNET"), none, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&e, 2);
    assert_string_equal(e.err, p.out);
    assert_string_equal(e.out, "");
    tu_exec_free(&e);
    tu_exec_free(&p);
}

static void test_unknown_command_names_the_table(void **state)
{
    (void) state;
    const char *hargs[] = {"--help", NULL};
    tu_proc_t h = tu_exec(tu_env_bin("STEPNET"), hargs, &(tu_exec_opts_t){.name = "stepnet"});
    char names[MAX_COMMANDS][16];
    size_t n = help_commands(h.out, names);
    const char *args[] = {"nosuch", NULL};
    tu_proc_t p = tu_exec(tu_env_bin("STEPNET"), args, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&p, 2);
    const char *head = "stepnet: unknown command 'nosuch'; commands: ";
    assert_true(strncmp(p.err, head, strlen(head)) == 0);
    const char *list = p.err + strlen(head), *end = strstr(list, " (see --help)\n");
    assert_non_null(end);
    /* every name of --help exactly once, and nothing else */
    int seen[MAX_COMMANDS] = {0};
    for (const char *q = list; q < end;) {
        size_t len = strcspn(q, ",");
        if (q + len > end)
            len = (size_t) (end - q);
        size_t i = 0;
        while (i < n && !(strlen(names[i]) == len && strncmp(names[i], q, len) == 0))
            i++;
        if (i == n || seen[i]++)
            fail_msg("the unknown-command message names '%.*s', which --help does not list or "
                     "that it names twice",
                     (int) len, q);
        q += len;
        if (strncmp(q, ", ", 2) == 0)
            q += 2;
    }
    for (size_t i = 0; i < n; i++)
        if (!seen[i])
            fail_msg("the unknown-command message does not name '%s'", names[i]);
    tu_exec_free(&p);
    tu_exec_free(&h);
}

/* The "Topologies" section of `stepnet --help` (and so of the man page) names every family the
 * topology parser accepts, as the parser's own message lists them, and products. */
static void test_help_names_every_family(void **state)
{
    (void) state;
    const char *hargs[] = {"--help", NULL};
    tu_proc_t h = tu_exec(tu_env_bin("STEPNET"), hargs, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&h, 0);
    const char *sec = strstr(h.out, "\nTopologies (--topo SPEC):\n");
    assert_non_null(sec);
    const char *end = strstr(sec, "\nExit status:");
    assert_non_null(end);
    const char *bad[] = {"model", "--topo", "nosuch:1", "--coll", "bcast", NULL};
    tu_proc_t r = tu_exec(tu_env_bin("STEPNET"), bad, &(tu_exec_opts_t){.name = "stepnet"});
    tu_expect_status(&r, 2);
    const char *list = strstr(r.err, "accepted: ");
    assert_non_null(list);
    list += strlen("accepted: ");
    size_t families = 0;
    for (const char *q = list; *q && *q != '\n';) {
        size_t len = strcspn(q, ":,\n");
        if (q[len] == ':') { /* a family: "name:" is in the section */
            char want[40];
            snprintf(want, sizeof want, "%.*s:", (int) len, q);
            const char *at = strstr(sec, want);
            if (at == NULL || at > end)
                fail_msg("--help's Topologies section lacks %s", want);
            families++;
        }
        q += strcspn(q, ",\n");
        q += strspn(q, ", ");
    }
    assert_true(families >= 14);
    const char *prod = strstr(sec, "S1*S2*...");
    assert_true(prod != NULL && prod < end);
    tu_exec_free(&r);
    tu_exec_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_listed_command_dispatches),
        cmocka_unit_test(test_unknown_command_names_the_table),
        cmocka_unit_test(test_help_names_every_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
