/* Network addresses (net/): one HOST:PORT parser for the node's and the coordinator's options,
 * host name resolution at start-up, and the printed form used in every log and error message. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/addr.h"

int sn_addr_parse(const char *text, int default_port, sn_addr_t *out, sn_err_t *err)
{
    const char *host = text, *hend, *rest;
    if (text[0] == '[') {
        host = text + 1;
        hend = strchr(host, ']');
        if (hend == NULL)
            goto bad;
        rest = hend + 1;
        if (*rest != '\0' && *rest != ':')
            goto bad;
    } else {
        hend = strrchr(text, ':');
        if (hend != NULL && strchr(text, ':') != hend)
            goto bad; /* an IPv6 literal needs brackets */
        if (hend == NULL)
            hend = text + strlen(text);
        rest = hend;
    }
    size_t hlen = (size_t) (hend - host);
    if (hlen == 0 || hlen >= sizeof out->host)
        goto bad;
    long port = default_port;
    if (*rest == ':') {
        const char *p = rest + 1;
        if (*p == '\0' || strlen(p) > 5)
            goto bad;
        port = 0;
        for (; *p; p++) {
            if (*p < '0' || *p > '9')
                goto bad;
            port = port * 10 + (*p - '0');
        }
    }
    if (port < 0 || port > 65535)
        goto bad;
    memcpy(out->host, host, hlen);
    out->host[hlen] = '\0';
    out->port = (uint16_t) port;
    return 0;
bad:
    return sn_err_set(err, SN_EINVAL,
                      "bad address '%s': expected HOST:PORT with an IPv4 address, [IPv6] address "
                      "or host name and a port from 0 to 65535",
                      text);
}

int sn_addr_resolve(uv_loop_t *loop, const sn_addr_t *a, struct sockaddr_storage *out,
                    sn_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (uv_ip4_addr(a->host, a->port, (struct sockaddr_in *) out) == 0 ||
        uv_ip6_addr(a->host, a->port, (struct sockaddr_in6 *) out) == 0)
        return 0;
    struct addrinfo hints = {0};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    uv_getaddrinfo_t req;
    int rc = uv_getaddrinfo(loop, &req, NULL, a->host, NULL, &hints);
    if (rc < 0)
        return sn_err_set(err, rc, "cannot resolve host '%s': %s", a->host, uv_strerror(rc));
    const struct addrinfo *pick = NULL;
    for (const struct addrinfo *ai = req.addrinfo; ai; ai = ai->ai_next)
        if ((ai->ai_family == AF_INET && (pick == NULL || pick->ai_family != AF_INET)) ||
            (ai->ai_family == AF_INET6 && pick == NULL))
            pick = ai;
    if (pick == NULL) {
        uv_freeaddrinfo(req.addrinfo);
        return sn_err_set(err, UV_EAI_NONAME, "host '%s' has no IPv4 or IPv6 address", a->host);
    }
    memcpy(out, pick->ai_addr, pick->ai_addrlen);
    if (pick->ai_family == AF_INET)
        ((struct sockaddr_in *) out)->sin_port = htons(a->port);
    else
        ((struct sockaddr_in6 *) out)->sin6_port = htons(a->port);
    uv_freeaddrinfo(req.addrinfo);
    return 0;
}

/* A decimal port 1..65535 in [p, end); -1 if anything else. */
static long port_number(const char *p, const char *end)
{
    if (p == end || end - p > 5)
        return -1;
    long v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v >= 1 && v <= 65535 ? v : -1;
}

int sn_addr_parse_range(const char *text, uint16_t *lo, uint16_t *hi, sn_err_t *err)
{
    const char *dash = strchr(text, '-');
    const char *end = text + strlen(text);
    long a = port_number(text, dash ? dash : end);
    long b = dash ? port_number(dash + 1, end) : a;
    if (a < 0 || b < 0 || a > b)
        return sn_err_set(err, SN_EINVAL,
                          "bad port range '%s': expected LO-HI with 1 <= LO <= HI <= 65535 "
                          "(e.g. 7000-7099), or one port",
                          text);
    *lo = (uint16_t) a;
    *hi = (uint16_t) b;
    return 0;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *) ss)->sin6_port = htons(port);
    else
        ((struct sockaddr_in *) ss)->sin_port = htons(port);
}

/* One port: a fresh socket, bound and listening, or a negative errno (closed). Set up as
 * uv_tcp_bind would (SO_REUSEADDR, so that a port in TIME_WAIT from an earlier run is free; an
 * IPv6 socket that also takes IPv4). A socket that failed is never reused: two processes may both
 * bind a port under SO_REUSEADDR while neither listens yet, and the loser's listen() fails with
 * EADDRINUSE on a socket that stays bound, so binding it to the next port of a range would fail
 * with EINVAL. */
static int listen_fd(const struct sockaddr *sa, socklen_t len, int backlog)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int on = 1, off = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
        (sa->sa_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) < 0) ||
        bind(fd, sa, len) < 0 || listen(fd, backlog) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

int sn_addr_listen(uv_tcp_t *h, const struct sockaddr *sa, uint16_t lo, uint16_t hi, int backlog,
                   uv_connection_cb cb)
{
    struct sockaddr_storage ss;
    socklen_t len = sa->sa_family == AF_INET6 ? (socklen_t) sizeof(struct sockaddr_in6)
                                              : (socklen_t) sizeof(struct sockaddr_in);
    memset(&ss, 0, sizeof ss);
    memcpy(&ss, sa, len);
    /* lo 0: the one port of sa (0: the kernel's choice); else lo, lo + 1, ... up to hi */
    for (uint32_t p = lo;; p++) {
        if (lo)
            set_port(&ss, (uint16_t) p);
        int fd = listen_fd((struct sockaddr *) &ss, len, backlog);
        if (fd == -EADDRINUSE && lo && p < hi)
            continue;
        if (fd < 0)
            return fd; /* libuv codes are negative errnos on Unix: UV_EADDRINUSE included */
        int rc = uv_tcp_open(h, fd);
        if (rc < 0) {
            close(fd);
            return rc;
        }
        return uv_listen((uv_stream_t *) h, backlog, cb); /* already listening: sets the callback */
    }
}

int sn_addr_source_towards(const struct sockaddr *dest, struct sockaddr_storage *out)
{
    socklen_t len = dest->sa_family == AF_INET6 ? (socklen_t) sizeof(struct sockaddr_in6)
                                                : (socklen_t) sizeof(struct sockaddr_in);
    int fd = socket(dest->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    socklen_t outlen = sizeof *out;
    memset(out, 0, sizeof *out);
    int rc = 0;
    /* connect on a datagram socket only chooses the route and the source address */
    if (connect(fd, dest, len) < 0 || getsockname(fd, (struct sockaddr *) out, &outlen) < 0)
        rc = -errno;
    close(fd);
    if (rc == 0)
        set_port(out, 0);
    return rc;
}

const char *sn_addr_print(const char *host, unsigned port, char *buf, size_t cap)
{
    snprintf(buf, cap, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
    return buf;
}

void sn_addr_format(const struct sockaddr *sa, char *buf, size_t cap)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *) sa;
        uv_ip4_name(s4, ip, sizeof ip);
        sn_addr_print(ip, ntohs(s4->sin_port), buf, cap);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *) sa;
        uv_ip6_name(s6, ip, sizeof ip);
        sn_addr_print(ip, ntohs(s6->sin6_port), buf, cap);
    } else {
        snprintf(buf, cap, "?");
    }
}
