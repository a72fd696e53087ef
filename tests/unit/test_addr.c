/* Unit tests of net/addr.c: the one HOST:PORT parser, resolution of literals and of localhost,
 * and the printed form of socket addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <pthread.h>
#include <string.h>

#include "net/addr.h"
#include "tests/support/testutil.h"

static void test_parse_accepts(void **state)
{
    (void) state;
    sn_addr_t a;
    tu_assert_rc(sn_addr_parse("127.0.0.1:7000", -1, &a, NULL), 0);
    assert_string_equal(a.host, "127.0.0.1");
    assert_int_equal(a.port, 7000);
    tu_assert_rc(sn_addr_parse("[::1]:0", -1, &a, NULL), 0);
    assert_string_equal(a.host, "::1");
    assert_int_equal(a.port, 0);
    tu_assert_rc(sn_addr_parse("[fe80::1%lo]:65535", -1, &a, NULL), 0);
    assert_string_equal(a.host, "fe80::1%lo");
    assert_int_equal(a.port, 65535);
    tu_assert_rc(sn_addr_parse("node3.lan:22", -1, &a, NULL), 0);
    assert_string_equal(a.host, "node3.lan");
    tu_assert_rc(sn_addr_parse("localhost", 9, &a, NULL), 0);
    assert_int_equal(a.port, 9);
    tu_assert_rc(sn_addr_parse("[::1]", 5, &a, NULL), 0);
    assert_int_equal(a.port, 5);
}

static void test_parse_refuses(void **state)
{
    (void) state;
    const char *bad[] = {"",          ":80",     "host:",       "host:65536", "host:-1",
                         "host:+1",   "host:1x", "host:000001", "::1:80",     "[::1:80",
                         "[::1]x:80", "[]:80",   "localhost",   "1.2.3.4: 5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_addr_t a;
        sn_err_t err = {0};
        tu_assert_rc(sn_addr_parse(bad[i], -1, &a, &err), SN_EINVAL);
        assert_non_null(strstr(err.msg, bad[i]));
        assert_non_null(strstr(err.msg, "HOST:PORT"));
    }
    char longhost[300];
    memset(longhost, 'a', sizeof longhost);
    strcpy(longhost + 280, ":1");
    sn_addr_t a;
    tu_assert_rc(sn_addr_parse(longhost, -1, &a, NULL), SN_EINVAL);
}

static void test_resolve_and_format(void **state)
{
    (void) state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    sn_addr_t a;
    struct sockaddr_storage ss;
    char buf[SN_ADDR_MAX_TEXT];
    tu_assert_rc(sn_addr_parse("127.0.0.1:4242", -1, &a, NULL), 0);
    tu_assert_rc(sn_addr_resolve(&loop, &a, &ss, NULL), 0);
    sn_addr_format((struct sockaddr *) &ss, buf, sizeof buf);
    assert_string_equal(buf, "127.0.0.1:4242");
    tu_assert_rc(sn_addr_parse("[::1]:80", -1, &a, NULL), 0);
    tu_assert_rc(sn_addr_resolve(&loop, &a, &ss, NULL), 0);
    sn_addr_format((struct sockaddr *) &ss, buf, sizeof buf);
    assert_string_equal(buf, "[::1]:80");
    /* localhost comes from /etc/hosts: no network needed */
    tu_assert_rc(sn_addr_parse("localhost:81", -1, &a, NULL), 0);
    tu_assert_rc(sn_addr_resolve(&loop, &a, &ss, NULL), 0);
    sn_addr_format((struct sockaddr *) &ss, buf, sizeof buf);
    assert_true(strcmp(buf, "127.0.0.1:81") == 0 || strcmp(buf, "[::1]:81") == 0);
    /* a name under the reserved .invalid domain never resolves */
    sn_err_t err = {0};
    tu_assert_rc(sn_addr_parse("no-such-host.invalid:1", -1, &a, NULL), 0);
    assert_true(sn_addr_resolve(&loop, &a, &ss, &err) < 0);
    assert_non_null(strstr(err.msg, "no-such-host.invalid"));
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* The source address towards a loopback destination is that loopback address, port 0; a machine
 * without IPv6 has no route to ::1 and gets an error, never a wrong address. */
static void test_source_towards(void **state)
{
    (void) state;
    struct sockaddr_in d4;
    struct sockaddr_in6 d6;
    struct sockaddr_storage src;
    char buf[SN_ADDR_MAX_TEXT];
    assert_int_equal(uv_ip4_addr("127.0.0.1", 4242, &d4), 0);
    tu_assert_rc(sn_addr_source_towards((struct sockaddr *) &d4, &src), 0);
    sn_addr_format((struct sockaddr *) &src, buf, sizeof buf);
    assert_string_equal(buf, "127.0.0.1:0");
    assert_int_equal(uv_ip6_addr("::1", 4242, &d6), 0);
    if (sn_addr_source_towards((struct sockaddr *) &d6, &src) == 0) {
        sn_addr_format((struct sockaddr *) &src, buf, sizeof buf);
        assert_string_equal(buf, "[::1]:0");
    }
}

/* The printed form is the parsed form: an IPv6 host gets its brackets, so its port stays apart. */
static void test_print(void **state)
{
    (void) state;
    static const struct {
        const char *host;
        unsigned port;
        const char *text;
    } cases[] = {
        {"127.0.0.1", 7000, "127.0.0.1:7000"},
        {"node3.lan", 22, "node3.lan:22"},
        {"::1", 34735, "[::1]:34735"},
        {"fe80::1%lo", 0, "[fe80::1%lo]:0"},
    };
    char buf[SN_ADDR_MAX_TEXT];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_ptr_equal(sn_addr_print(cases[i].host, cases[i].port, buf, sizeof buf), buf);
        assert_string_equal(buf, cases[i].text);
        sn_addr_t a;
        tu_assert_rc(sn_addr_parse(buf, -1, &a, NULL), 0);
        assert_string_equal(a.host, cases[i].host);
        assert_int_equal(a.port, cases[i].port);
    }
}

static void test_parse_range(void **state)
{
    (void) state;
    uint16_t lo = 0, hi = 0;
    tu_assert_rc(sn_addr_parse_range("7000-7099", &lo, &hi, NULL), 0);
    assert_int_equal(lo, 7000);
    assert_int_equal(hi, 7099);
    tu_assert_rc(sn_addr_parse_range("1-65535", &lo, &hi, NULL), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 65535);
    tu_assert_rc(sn_addr_parse_range("8080", &lo, &hi, NULL), 0);
    assert_int_equal(lo, 8080);
    assert_int_equal(hi, 8080);
    const char *bad[] = {"",        "-",      "0-10",  "10-0",   "9-3",     "70000",
                         "1-65536", "a-b",    "10-",   "-10",    "10--20",  " 10-20",
                         "10-20 ",  "+10-20", "10:20", "123456", "10-20-30"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sn_err_t err = {0};
        tu_assert_rc(sn_addr_parse_range(bad[i], &lo, &hi, &err), SN_EINVAL);
        assert_non_null(strstr(err.msg, bad[i]));
    }
}

static void on_conn(uv_stream_t *s, int status)
{
    (void) s;
    (void) status;
}

static uint16_t bound_port(uv_tcp_t *h)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    assert_int_equal(uv_tcp_getsockname(h, (struct sockaddr *) &ss, &len), 0);
    return ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

/* A port taken by one listener: a range of only that port is exhausted, a range starting there
 * moves on to the next free port. */
static void test_listen_range(void **state)
{
    (void) state;
    uv_loop_t loop;
    uv_tcp_t a, b, c;
    struct sockaddr_in sin;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &sin), 0);
    uv_tcp_init(&loop, &a);
    uv_tcp_init(&loop, &b);
    uv_tcp_init(&loop, &c);
    tu_assert_rc(sn_addr_listen(&a, (struct sockaddr *) &sin, 0, 0, 8, on_conn), 0);
    uint16_t p = bound_port(&a);
    assert_true(p > 0);
    tu_assert_rc(sn_addr_listen(&b, (struct sockaddr *) &sin, p, p, 8, on_conn), UV_EADDRINUSE);
    /* the same handle tries again after the failure */
    uint16_t hi = p < 65535 - 200 ? (uint16_t) (p + 200) : 65535;
    if (p < hi) {
        tu_assert_rc(sn_addr_listen(&b, (struct sockaddr *) &sin, p, hi, 8, on_conn), 0);
        uint16_t q = bound_port(&b);
        assert_true(q > p && q <= hi);
    }
    uv_close((uv_handle_t *) &a, NULL);
    uv_close((uv_handle_t *) &b, NULL);
    uv_close((uv_handle_t *) &c, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* Processes starting together race for the first ports of one range: two may bind the same port
 * (SO_REUSEADDR, neither listening yet) and the second's listen fails. Each must still end up on
 * a port of its own; a socket left bound by the failed listen once made the next bind fail with
 * EINVAL (a node of the addr_ports test could not listen, one run in about twenty). */
enum { RACERS = 4, RACE_ROUNDS = 200, RACE_PORTS = 8 };

typedef struct {
    pthread_barrier_t *go;
    struct sockaddr_in sin;
    uint16_t lo, hi;
    int rc;
    uint16_t port;
} racer_t;

static void *race_listen(void *arg)
{
    racer_t *r = arg;
    uv_loop_t loop;
    uv_tcp_t h;
    uv_loop_init(&loop);
    uv_tcp_init(&loop, &h);
    pthread_barrier_wait(r->go);
    r->rc = sn_addr_listen(&h, (struct sockaddr *) &r->sin, r->lo, r->hi, 8, on_conn);
    r->port = r->rc == 0 ? bound_port(&h) : 0;
    pthread_barrier_wait(r->go); /* every racer holds its port until all have one */
    uv_close((uv_handle_t *) &h, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return NULL;
}

static void test_listen_range_race(void **state)
{
    (void) state;
    uv_loop_t loop;
    uv_tcp_t probe;
    struct sockaddr_in sin;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &sin), 0);
    uv_tcp_init(&loop, &probe);
    tu_assert_rc(sn_addr_listen(&probe, (struct sockaddr *) &sin, 0, 0, 8, on_conn), 0);
    uint16_t base = bound_port(&probe); /* the range lies above a port the kernel just chose */
    uv_close((uv_handle_t *) &probe, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    if (base > 65535 - RACE_PORTS - 1)
        base = 40000;
    pthread_barrier_t go;
    assert_int_equal(pthread_barrier_init(&go, NULL, RACERS), 0);
    for (int round = 0; round < RACE_ROUNDS; round++) {
        racer_t r[RACERS];
        pthread_t t[RACERS];
        for (int i = 0; i < RACERS; i++) {
            r[i] = (racer_t){.go = &go,
                             .sin = sin,
                             .lo = (uint16_t) (base + 1),
                             .hi = (uint16_t) (base + RACE_PORTS)};
            assert_int_equal(pthread_create(&t[i], NULL, race_listen, &r[i]), 0);
        }
        for (int i = 0; i < RACERS; i++)
            assert_int_equal(pthread_join(t[i], NULL), 0);
        for (int i = 0; i < RACERS; i++) {
            if (r[i].rc == UV_EADDRINUSE)
                continue; /* another program holds the range's ports: nothing to compare */
            tu_assert_rc(r[i].rc, 0);
            assert_true(r[i].port > base && r[i].port <= base + RACE_PORTS);
            for (int j = 0; j < i; j++)
                assert_true(r[j].port != r[i].port);
        }
    }
    pthread_barrier_destroy(&go);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_accepts),      cmocka_unit_test(test_parse_refuses),
        cmocka_unit_test(test_resolve_and_format), cmocka_unit_test(test_print),
        cmocka_unit_test(test_parse_range),        cmocka_unit_test(test_listen_range),
        cmocka_unit_test(test_listen_range_race),  cmocka_unit_test(test_source_towards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
