/* Fault injection of stepnet-node (node/), for testing failure handling: at the slot named by
 * the assignment's fault (`stepnet run --fault ID:KIND@SLOT`, kinds in SN_FAULT_MAP of net/wire.h)
 * the node kills or stops itself or damages a frame on its first link. */
#include <signal.h>
#include <string.h>

#include "node_internal.h"

void sn__node_fault_inject(node_t *nd, uint64_t slot)
{
    if (nd->fault.kind == SN_FAULT_NONE || slot != nd->fault.slot)
        return;
    sn_log_write(&nd->log, SN_LOG_WARN, "NODE-FAULT", "injecting %s@%llu at slot %llu",
                 sn_wire_fault_name(nd->fault.kind), (unsigned long long) nd->fault.slot,
                 (unsigned long long) slot);
    sn_conn_t *c0 = nd->deg > 0 && nd->links[0].lc ? &nd->links[0].lc->c : NULL;
    switch (nd->fault.kind) {
    case SN_FAULT_KILL:
        raise(SIGKILL);
        break;
    case SN_FAULT_STOP:
        raise(SIGSTOP);
        break;
    case SN_FAULT_GARBAGE:
        if (c0) { /* a frame whose type and body make no sense */
            uint8_t *b = sn_conn_frame(c0, SN_FRAME_DATA, 16);
            memset(b, 0xa5, 16);
            sn_conn_send(c0, b);
        }
        break;
    case SN_FAULT_OVERSIZE:
        if (c0) { /* a header announcing a body far larger than any data frame may be */
            c0->fault_next = SN_CONN_FAULT_OVERSIZE;
            sn_conn_send(c0, sn_conn_frame(c0, SN_FRAME_DATA, 0));
        }
        break;
    case SN_FAULT_FLIP:
        if (c0) /* one bit of the next frame on link 0 flipped on the wire, after sealing */
            c0->fault_next = SN_CONN_FAULT_FLIP;
        break;
    case SN_FAULT_NONE:
        break;
    }
}
