/* Network addresses (net/): the one parser of HOST:PORT for both programs, resolution of host
 * names, and the printed form of a socket address. */
#ifndef STEPNET_NET_ADDR_H
#define STEPNET_NET_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>

#include "stepnet/error.h"

#define SN_ADDR_MAX_HOST 254                     /* a DNS name is at most 253 characters */
#define SN_ADDR_MAX_TEXT (SN_ADDR_MAX_HOST + 10) /* "[host]:65535" */

typedef struct sn_addr_s {
    char host[SN_ADDR_MAX_HOST]; /* an IPv4 or IPv6 literal (without brackets) or a host name */
    uint16_t port;
} sn_addr_t;

/* Parses "HOST:PORT": an IPv4 literal ("10.0.0.1:7000"), a bracketed IPv6 literal ("[::1]:0") or
 * a host name ("node3.lan:7000"); PORT is decimal, 0 to 65535 (0: any free port, for listening).
 * A missing port is allowed only with `default_port` >= 0. 0, or SN_EINVAL with err naming the
 * value and the accepted forms. Resolves nothing. */
int sn_addr_parse(const char *text, int default_port, sn_addr_t *out, sn_err_t *err);

/* Resolves `a` to a socket address: literals at once, host names with uv_getaddrinfo on `loop`
 * (synchronously: start-up only, never on the slot path), preferring IPv4. 0, or the libuv code
 * with err naming the host. */
int sn_addr_resolve(uv_loop_t *loop, const sn_addr_t *a, struct sockaddr_storage *out,
                    sn_err_t *err);

/* Parses a port range "LO-HI" (1 <= LO <= HI <= 65535; "P" alone is the range P-P) for
 * --port-range. 0, or SN_EINVAL with err naming the value and the accepted form. */
int sn_addr_parse_range(const char *text, uint16_t *lo, uint16_t *hi, sn_err_t *err);

/* Binds `h` (initialised, not yet bound) to `sa` and listens with `backlog` and `cb`: on the port
 * of `sa` when lo is 0, else on the first port from lo to hi that is free (EADDRINUSE, at bind or
 * at listen, moves on to the next port with a new socket). 0; UV_EADDRINUSE when every port of
 * the range is taken (or the one port, lo 0); another libuv code on any other error.
 * Synchronous; start-up only. */
int sn_addr_listen(uv_tcp_t *h, const struct sockaddr *sa, uint16_t lo, uint16_t hi, int backlog,
                   uv_connection_cb cb);

/* The local address this host would use to reach `dest` (the preferred source address of its
 * route, with port 0) into *out: a UDP socket connected to `dest` tells it without sending
 * anything. 0, or a negative errno (no route to `dest`, or no socket). Synchronous; start-up
 * only. */
int sn_addr_source_towards(const struct sockaddr *dest, struct sockaddr_storage *out);

/* Writes `host` and `port` as sn_addr_parse reads them: "10.0.0.1:7000", "node3.lan:7000", or
 * "[::1]:7000" for an IPv6 literal (a host with a ':'), truncated to `cap`. Returns buf. */
const char *sn_addr_print(const char *host, unsigned port, char *buf, size_t cap);

/* Writes "1.2.3.4:5" or "[::1]:5" for an AF_INET or AF_INET6 address, "?" otherwise. */
void sn_addr_format(const struct sockaddr *sa, char *buf, size_t cap);

#endif
