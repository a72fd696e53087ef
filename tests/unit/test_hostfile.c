/* Unit tests of launch/hostfile.c: the hostfile and -H list parsers of `stepnet run
 * --hosts`, the placement of ranks (--map-by slot|node) and the splitting of the --ssh command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/hostfile.h"
#include "tests/support/testutil.h"

static int parse_file(const char *text, sn_hostlist_t *hl, sn_err_t *err)
{
    return sn_launch_hostfile_parse(text, strlen(text), "hosts.txt", hl, err);
}

static void test_hostfile_accepts(void **state)
{
    (void) state;
    sn_hostlist_t hl;
    sn_err_t err = {0};
    tu_assert_rc(parse_file("# the lab\n"
                            "ws1 slots=4\n"
                            "\n"
                            "   alice@ws2.lan:2222   slots=2   # a comment\r\n"
                            "10.0.0.7\n"
                            "[fe80::1]:22 slots=1\n"
                            "bob@[::1]\n"
                            "last-line_without-newline",
                            &hl, &err),
                 0);
    assert_int_equal(hl.n, 6);
    assert_string_equal(hl.hosts[0].name, "ws1");
    assert_string_equal(hl.hosts[0].user, "");
    assert_int_equal(hl.hosts[0].port, 0);
    assert_int_equal(hl.hosts[0].slots, 4);
    assert_string_equal(hl.hosts[1].user, "alice");
    assert_string_equal(hl.hosts[1].name, "ws2.lan");
    assert_int_equal(hl.hosts[1].port, 2222);
    assert_int_equal(hl.hosts[1].slots, 2);
    assert_string_equal(hl.hosts[2].name, "10.0.0.7");
    assert_int_equal(hl.hosts[2].slots, 1);
    assert_string_equal(hl.hosts[3].name, "fe80::1");
    assert_int_equal(hl.hosts[3].port, 22);
    assert_string_equal(hl.hosts[4].user, "bob");
    assert_string_equal(hl.hosts[4].name, "::1");
    assert_string_equal(hl.hosts[5].name, "last-line_without-newline");
    char text[300];
    sn_launch_host_format(&hl.hosts[1], text, sizeof text);
    assert_string_equal(text, "alice@ws2.lan:2222");
    sn_launch_host_format(&hl.hosts[3], text, sizeof text);
    assert_string_equal(text, "[fe80::1]:22");
    sn_launch_host_format(&hl.hosts[4], text, sizeof text);
    assert_string_equal(text, "bob@::1");
    sn_launch_hostlist_free(&hl);
    assert_null(hl.hosts);
}

static void test_hostfile_refuses(void **state)
{
    (void) state;
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "no hosts"},
        {"# only a comment\n\n", "no hosts"},
        {"ws1 slots=0\n", "line 1: bad value 'slots=0'"},
        {"ws1\nws2 slots=4097\n", "line 2: bad value 'slots=4097'"},
        {"ws1 slots=x\n", "expected slots=N"},
        {"ws1 slots=2 slots=3\n", "unexpected 'slots=3'"},
        {"ws1 max_slots=2\n", "unexpected 'max_slots=2'"},
        {"ws1 extra\n", "unexpected 'extra'"},
        {"ws1 slot=2\n", "unknown key 'slot': did you mean slots?"},
        {"ws1 solts=2\n", "unknown key 'solts': did you mean slots?"},
        {"-oProxyCommand=x\n", "bad host"},
        {"ws1:0\n", "bad port"},
        {"ws1:65536\n", "bad port"},
        {"ws1:22x\n", "bad port"},
        {"@ws1\n", "bad user"},
        {"a b@ws1\n", "unexpected 'b@ws1'"},
        {"-u@ws1\n", "bad user"},
        {"ws;1\n", "bad host"},
        {"[::1\n", "bad host"},
        {"[]:22\n", "bad host"},
        {"[10.0.0.1]\n", "bad host"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_hostlist_t hl;
        sn_err_t err = {0};
        tu_assert_rc(parse_file(bad[i].text, &hl, &err), SN_EINVAL);
        if (strstr(err.msg, bad[i].says) == NULL)
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err.msg, bad[i].says);
        assert_non_null(strstr(err.msg, "hosts.txt"));
        assert_null(hl.hosts);
    }
    /* a NUL byte, and a host name of 256 characters */
    sn_hostlist_t hl;
    sn_err_t err = {0};
    tu_assert_rc(sn_launch_hostfile_parse("ws1\0ws2\n", 8, "h", &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "NUL"));
    char longname[SN_HOST_MAX_NAME + 2];
    memset(longname, 'a', SN_HOST_MAX_NAME);
    longname[SN_HOST_MAX_NAME] = '\0';
    tu_assert_rc(parse_file(longname, &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "bad host"));
    longname[SN_HOST_MAX_NAME - 1] = '\0'; /* 255 characters: the longest accepted */
    tu_assert_rc(parse_file(longname, &hl, &err), 0);
    sn_launch_hostlist_free(&hl);
}

static void test_hostlist(void **state)
{
    (void) state;
    sn_hostlist_t hl;
    sn_err_t err = {0};
    tu_assert_rc(sn_launch_hostlist_parse("h1,h2:4,me@10.0.0.3:2,[::1]:3", &hl, &err), 0);
    assert_int_equal(hl.n, 4);
    assert_string_equal(hl.hosts[0].name, "h1");
    assert_int_equal(hl.hosts[0].slots, 1);
    assert_int_equal(hl.hosts[1].slots, 4);
    assert_int_equal(hl.hosts[1].port, 0); /* in a list, :N is slots, as mpirun -H takes it */
    assert_string_equal(hl.hosts[2].user, "me");
    assert_int_equal(hl.hosts[2].slots, 2);
    assert_string_equal(hl.hosts[3].name, "::1");
    assert_int_equal(hl.hosts[3].slots, 3);
    sn_launch_hostlist_free(&hl);
    const char *bad[] = {"", "h1,", ",h1", "h1,,h2", "h1:0", "h1:4097", "h1 h2", "-x", "h1:2:3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_assert_rc(sn_launch_hostlist_parse(bad[i], &hl, &err), SN_EINVAL);
        assert_null(hl.hosts);
    }
    tu_assert_rc(sn_launch_hostlist_parse("h1:0", &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "bad slots in 'h1:0'"));
}

static void test_load(void **state)
{
    (void) state;
    sn_hostlist_t hl;
    sn_err_t err = {0};
    /* no '/' and no such file: a list */
    tu_assert_rc(sn_launch_hosts_load("no-such-host-file-here,h2", &hl, &err), 0);
    assert_int_equal(hl.n, 2);
    sn_launch_hostlist_free(&hl);
    /* a '/': a file, which must exist */
    tu_assert_rc(sn_launch_hosts_load("/nonexistent/hosts", &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "cannot read the hostfile /nonexistent/hosts"));
    /* a name only a file has: a mistyped hostfile is refused, not taken as one host */
    tu_assert_rc(sn_launch_hosts_load("no-such-lab.hosts", &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "cannot read the hostfile no-such-lab.hosts"));
    tu_assert_rc(sn_launch_hosts_load("no-such-lab.txt", &hl, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "cannot read the hostfile no-such-lab.txt"));
    static const struct {
        const char *arg;
        int file;
    } names[] = {
        {"lab.hosts", 1},
        {"lab.txt", 1},
        {"./lab", 1},
        {"/etc/stepnet/hosts", 1},
        {"lab.host", 0},
        {"h1,h2:4", 0},
        {"node.example.org", 0},
        {"hosts", 0},
        {".txt", 0},
        {"a.txt:4", 0},
        {"user@h1.hosts.org", 0},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (sn_launch_hosts_names_file(names[i].arg) != names[i].file)
            fail_msg("'%s' %s", names[i].arg,
                     names[i].file ? "is not taken for a file" : "is taken for a file");
    char path[] = "/tmp/test_hostfile_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("a slots=2\nb\n", f);
    fclose(f);
    tu_assert_rc(sn_launch_hosts_load(path, &hl, &err), 0);
    assert_int_equal(hl.n, 2);
    assert_int_equal(hl.hosts[0].slots, 2);
    sn_launch_hostlist_free(&hl);
    remove(path);
}

static void place(const char *list, uint32_t n, sn_map_by_t by, const uint32_t *want)
{
    sn_hostlist_t hl;
    sn_err_t err = {0};
    tu_assert_rc(sn_launch_hostlist_parse(list, &hl, &err), 0);
    uint32_t got[64];
    tu_assert_rc(sn_launch_hosts_place(&hl, n, by, got, &err), 0);
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s, %u ranks, by %s: rank %u on host %u, expected %u", list, n,
                     by == SN_MAP_BY_SLOT ? "slot" : "node", i, got[i], want[i]);
    sn_launch_hostlist_free(&hl);
}

static void test_place(void **state)
{
    (void) state;
    /* by slot: fill each host in turn */
    place("a:2,b:2", 4, SN_MAP_BY_SLOT, (const uint32_t[]){0, 0, 1, 1});
    place("a:3,b:2", 3, SN_MAP_BY_SLOT, (const uint32_t[]){0, 0, 0});
    /* by node: round-robin, skipping full hosts */
    place("a:2,b:2", 4, SN_MAP_BY_NODE, (const uint32_t[]){0, 1, 0, 1});
    place("a:1,b:3,c:2", 6, SN_MAP_BY_NODE, (const uint32_t[]){0, 1, 2, 1, 2, 1});
    place("a:1,b:3,c:2", 4, SN_MAP_BY_NODE, (const uint32_t[]){0, 1, 2, 1});
    /* too few slots */
    sn_hostlist_t hl;
    sn_err_t err = {0};
    tu_assert_rc(sn_launch_hostlist_parse("a:2,b", &hl, &err), 0);
    uint32_t got[4];
    tu_assert_rc(sn_launch_hosts_place(&hl, 4, SN_MAP_BY_SLOT, got, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "4 nodes but the 2 hosts offer 3 slots"));
    tu_assert_rc(sn_launch_hosts_place(&hl, 3, SN_MAP_BY_NODE, got, &err), 0);
    sn_launch_hostlist_free(&hl);
}

static void test_ssh_split(void **state)
{
    (void) state;
    char buf[64];
    const char *w[4];
    size_t n;
    sn_err_t err = {0};
    tu_assert_rc(sn_launch_ssh_split("  ssh -p\t2222 -i key ", buf, sizeof buf, w, 4, &n, &err),
                 SN_EINVAL); /* five words, four allowed */
    tu_assert_rc(sn_launch_ssh_split("  ssh -p\t2222  ", buf, sizeof buf, w, 4, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(w[0], "ssh");
    assert_string_equal(w[1], "-p");
    assert_string_equal(w[2], "2222");
    tu_assert_rc(sn_launch_ssh_split("   ", buf, sizeof buf, w, 4, &n, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "empty"));
    char lng[100];
    memset(lng, 'x', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    tu_assert_rc(sn_launch_ssh_split(lng, buf, sizeof buf, w, 4, &n, &err), SN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostfile_accepts),
        cmocka_unit_test(test_hostfile_refuses),
        cmocka_unit_test(test_hostlist),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_place),
        cmocka_unit_test(test_ssh_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
