/* sn_tcp_state (net/): the unacknowledged segments and retransmissions of a TCP connection, from
 * Linux's TCP_INFO. Elsewhere it says UV_ENOTSUP and blame goes without this evidence. */
#define _DEFAULT_SOURCE /* struct tcp_info */
#include <errno.h>
#include <string.h>

#include "net/tcpinfo.h"

#ifdef __linux__
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif

int sn_tcp_state(const uv_tcp_t *tcp, sn_tcp_state_t *out)
{
    memset(out, 0, sizeof *out);
#ifdef __linux__
    uv_os_fd_t fd;
    int rc = uv_fileno((const uv_handle_t *) tcp, &fd);
    if (rc < 0)
        return rc;
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
        return -errno;
    out->unacked = ti.tcpi_unacked;
    out->retransmits = ti.tcpi_retransmits;
    out->backoff = ti.tcpi_backoff;
    out->last_ack_ms = ti.tcpi_last_ack_recv;
    return 0;
#else
    (void) tcp;
    return UV_ENOTSUP;
#endif
}
