/* The launchers' option values of `stepnet run` and `stepnet bench` (cli): the parsers of
 * --nodes ADDR,ADDR,... (daemon addresses), --port-range and --map-by, whose messages name the
 * flags; run_options.c calls them among its checks (launch_options.h). */
#include "cli/launch_options.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launch/hostfile.h"
#include "launch/launcher.h"
#include "net/addr.h"

/* One item of --nodes ADDR,ADDR,... (len bytes at item): a daemon's address with a port, and
 * *N for N nodes on that daemon. */
static int check_item(const char *list, const char *item, size_t len, sn_err_t *err)
{
    char buf[SN_ADDR_MAX_TEXT];
    sn_addr_t a;
    sn_err_t e = {0};
    const char *star = memchr(item, '*', len);
    if (star) {
        uint32_t times;
        if (sn_launch_daemon_times(star + 1, len - (size_t) (star - item) - 1, &times) < 0)
            return sn_err_inval(err,
                                "bad value '%s' for --nodes: '%.*s': ADDR*N takes N from 1 to "
                                "%u (the nodes that daemon runs)",
                                list, (int) len, item, SN_LAUNCH_DAEMON_TIMES_MAX);
        len = (size_t) (star - item);
    }
    if (len == 0 || len >= sizeof buf)
        return sn_err_inval(
            err,
            "bad value '%s' for --nodes: expected local, join or a comma-separated list "
            "of daemon addresses HOST:PORT (stepnet-node --serve); an item is empty or "
            "too long",
            list);
    memcpy(buf, item, len);
    buf[len] = '\0';
    if (sn_addr_parse(buf, -1, &a, &e) < 0 || a.port == 0)
        return sn_err_inval(
            err,
            "bad value '%s' for --nodes: expected local, join or a comma-separated list "
            "of daemon addresses HOST:PORT[*N] (stepnet-node --serve, port 1 to 65535); '%s' "
            "is not one",
            list, buf);
    return 0;
}

/* The local address that routes to host:port, as text into out: a UDP socket connected to it
 * (no datagram is sent) says which address the kernel would send from. */
static int routed_from(const char *host, uint16_t port, char *out, size_t cap, sn_err_t *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    int g = getaddrinfo(host, ps, &hints, &res);
    if (g != 0)
        return sn_err_inval(err, "--nodes: the daemon host '%s' does not resolve: %s", host,
                            gai_strerror(g));
    int rc = SN_EINVAL;
    for (struct addrinfo *ai = res; ai && rc != 0; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        struct sockaddr_storage local;
        socklen_t len = sizeof local;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
            getsockname(fd, (struct sockaddr *) &local, &len) == 0) {
            char ip[INET6_ADDRSTRLEN];
            const void *a = local.ss_family == AF_INET6
                                ? (const void *) &((struct sockaddr_in6 *) &local)->sin6_addr
                                : (const void *) &((struct sockaddr_in *) &local)->sin_addr;
            if (inet_ntop(local.ss_family, a, ip, sizeof ip)) {
                snprintf(out, cap, local.ss_family == AF_INET6 ? "[%s]:0" : "%s:0", ip);
                rc = 0;
            }
        }
        close(fd);
    }
    freeaddrinfo(res);
    if (rc != 0)
        return sn_err_inval(err, "--nodes: no route to the daemon %s:%u from this machine", host,
                            port);
    return 0;
}

int cli_daemons_listen(const char *list, char *buf, size_t cap, sn_err_t *err)
{
    char first_host[SN_ADDR_MAX_HOST] = "";
    buf[0] = '\0';
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        const char *star = memchr(p, '*', len);
        if (star)
            len = (size_t) (star - p);
        char item[SN_ADDR_MAX_TEXT], here[SN_ADDR_MAX_TEXT + 8];
        sn_addr_t a;
        sn_err_t e = {0};
        snprintf(item, sizeof item, "%.*s", (int) len, p);
        if (sn_addr_parse(item, -1, &a, &e) < 0)
            return sn_err_inval(err, "--nodes: '%s': %s", item, e.msg);
        int rc = routed_from(a.host, a.port, here, sizeof here, err);
        if (rc < 0)
            return rc;
        if (buf[0] == '\0') {
            snprintf(buf, cap, "%s", here);
            snprintf(first_host, sizeof first_host, "%s", a.host);
        } else if (strcmp(buf, here) != 0) {
            char a1[SN_ADDR_MAX_TEXT + 8];
            snprintf(a1, sizeof a1, "%s", buf);
            a1[strlen(a1) - 2] = '\0'; /* without ":0" */
            here[strlen(here) - 2] = '\0';
            return sn_err_inval(err,
                                "--nodes: the daemons are reached from different addresses of "
                                "this machine (%s for %s, %s for %s): give --listen ADDR:0 with "
                                "an address they all reach, or --listen 0.0.0.0:0 for every "
                                "address",
                                a1, first_host, here, a.host);
        }
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

int cli_daemons_check(const char *list, sn_err_t *err)
{
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        int rc = check_item(list, p, len, err);
        if (rc < 0)
            return rc;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

int cli_port_range_parse(const char *text, sn_coord_opts_t *o, sn_err_t *err)
{
    sn_err_t e = {0};
    if (sn_addr_parse_range(text, &o->port_lo, &o->port_hi, &e) < 0)
        return sn_err_inval(err,
                            "bad value '%s' for --port-range: expected LO-HI with 1 <= LO <= HI <= "
                            "65535 (e.g. 7000-7099)",
                            text);
    sn_addr_t a;
    if (o->listen && sn_addr_parse(o->listen, -1, &a, &e) == 0 && a.port != 0)
        return sn_err_inval(
            err,
            "--port-range %s and --listen %s both choose the control port: give --listen "
            "HOST:0 to take the first free port of the range",
            text, o->listen);
    return 0;
}

int cli_map_by_parse(const char *text, int *out, sn_err_t *err)
{
    if (strcmp(text, "slot") == 0)
        *out = SN_MAP_BY_SLOT;
    else if (strcmp(text, "node") == 0)
        *out = SN_MAP_BY_NODE;
    else
        return sn_err_inval(err, "bad value '%s' for --map-by: expected slot or node", text);
    return 0;
}
