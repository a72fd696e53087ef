/* The kernel's view of one TCP connection (net/): how much of what this end sent its peer's host
 * has not acknowledged, and how often it was retransmitted. The coordinator reads it on a node's
 * control connection to tell a stopped node (its host still acknowledges) from one whose network
 * is gone (nothing is acknowledged); coordinator/blame.h decides from it. */
#ifndef STEPNET_NET_TCPINFO_H
#define STEPNET_NET_TCPINFO_H

#include <stdint.h>
#include <uv.h>

typedef struct sn_tcp_state_s {
    uint32_t unacked;     /* segments sent and not yet acknowledged */
    uint32_t retransmits; /* retransmissions of the oldest unacknowledged segment so far */
    uint32_t backoff;     /* doublings of the retransmission timeout so far */
    uint32_t last_ack_ms; /* since the last acknowledgement arrived */
} sn_tcp_state_t;

/* Fills `out` from getsockopt(TCP_INFO) on the socket of `tcp`, which must be open. 0, or a
 * negative libuv code: UV_ENOTSUP where the system has no TCP_INFO, UV_EBADF for a closed
 * handle. Borrows `tcp`. */
int sn_tcp_state(const uv_tcp_t *tcp, sn_tcp_state_t *out);

#endif
