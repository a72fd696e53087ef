/* Injected faults (net/), for testing: `stepnet run --fault ID:KIND@SLOT` has node ID act at SLOT,
 * and the node's assignment carries KIND@SLOT as text. The kinds and their parser, apart from
 * the protocol's messages (wire.h), so that a front end checks a fault without protobuf. */
#ifndef STEPNET_NET_WIRE_FAULT_H
#define STEPNET_NET_WIRE_FAULT_H

#include <stdint.h>

#include "stepnet/error.h"

/* The one list of fault kinds: the coordinator validates --fault with it and the node parses its
 * assignment's fault string with it. XX(enum suffix, name, what the node does at SLOT). */
#define SN_FAULT_MAP(XX)                                                                           \
    XX(KILL, "kill", "kills itself (SIGKILL)")                                                     \
    XX(STOP, "stop", "stops itself (SIGSTOP)")                                                     \
    XX(GARBAGE, "garbage", "sends a malformed frame on its first link")                            \
    XX(OVERSIZE, "oversize", "sends a frame header announcing an oversized body")                  \
    XX(FLIP, "flip", "flips one bit of its next frame on the wire, after sealing")                 \
    XX(TRICKLE, "trickle", "sends every frame on its links from SLOT on at a trickle")

typedef enum {
    SN_FAULT_NONE = 0,
#define SN_FAULT_ENUM(e, name, what) SN_FAULT_##e,
    SN_FAULT_MAP(SN_FAULT_ENUM)
#undef SN_FAULT_ENUM
} sn_fault_kind_t;

typedef struct sn_fault_s {
    sn_fault_kind_t kind;
    uint64_t slot; /* >= 1 */
} sn_fault_t;

/* Parses "KIND@SLOT" (KIND one of SN_FAULT_MAP's names, SLOT a decimal >= 1). 0, or SN_EINVAL
 * with err naming the value and the accepted forms. */
int sn_wire_fault_parse(const char *spec, sn_fault_t *out, sn_err_t *err);

/* The name of a fault kind ("kill"); "none" for SN_FAULT_NONE. */
const char *sn_wire_fault_name(sn_fault_kind_t kind);

#endif
