/* Fault injection of stepnet-node (node/), for testing failure handling: at the slot named by
 * the assignment's fault (`stepnet run --fault ID:KIND@SLOT`, kinds in SN_FAULT_MAP of net/wire.h)
 * the node kills or stops itself, damages a frame on its first link, or from then on sends on
 * every link at a trickle. */
#include <signal.h>
#include <string.h>

#include "node/node_internal.h"

/* The trickle: one piece of SN_FAULT_TRICKLE_BYTES every SN_FAULT_TRICKLE_MS on each link, 1280
 * B/s, so that a frame of 256 KiB needs 205 s. The period stays far below the silence limit
 * (`--slot-timeout-ms`, 5000 ms by default, 1000 ms in the fault tests): a neighbour always sees
 * the frame's bytes move and judges the link slow, never silent, however loaded the machine. */
#define SN_FAULT_TRICKLE_BYTES 128u
#define SN_FAULT_TRICKLE_MS    100u

static void announce(node_t *nd, uint64_t slot)
{
    sn_log_write(&nd->log, SN_LOG_WARN, "NODE-FAULT", "injecting %s@%llu at slot %llu",
                 sn_wire_fault_name(nd->fault.kind), (unsigned long long) nd->fault.slot,
                 (unsigned long long) slot);
}

void sn__node_fault_before_send(node_t *nd, uint64_t slot)
{
    if (nd->fault.kind != SN_FAULT_TRICKLE || slot != nd->fault.slot)
        return;
    announce(nd, slot);
    for (uint32_t q = 0; q < nd->deg; q++) {
        sn_conn_t *c = nd->links[q].lc ? &nd->links[q].lc->c : NULL;
        if (c && !c->trickle && sn_conn_trickle(c, SN_FAULT_TRICKLE_BYTES, SN_FAULT_TRICKLE_MS) < 0)
            sn_log_write(&nd->log, SN_LOG_WARN, "NODE-FAULT", "cannot trickle link %u", q);
    }
}

void sn__node_fault_inject(node_t *nd, uint64_t slot)
{
    if (nd->fault.kind == SN_FAULT_NONE || nd->fault.kind == SN_FAULT_TRICKLE ||
        slot != nd->fault.slot)
        return;
    announce(nd, slot);
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
    case SN_FAULT_TRICKLE: /* before the slot's frames: sn__node_fault_before_send */
    case SN_FAULT_NONE:
        break;
    }
}
