/* stepnet execution modes (core/model/sync.c): how the nodes of `stepnet run` play the slots of a
 * schedule (docs/runtime.md, "The slot barrier" and "Dataflow execution"). SN_SYNC_MAP is the one
 * list of them: the enum, the names, the parser and the properties below are generated from it,
 * and so are the net/wire.c mapping to the Assign and the node's table of modes (node/exec.c);
 * the commands' reports use the type, never a name or a number of their own. A new mode is a row
 * here and its node file, node/mode_<name>.c. Pure. */
#ifndef STEPNET_SYNC_H
#define STEPNET_SYNC_H

#include <stddef.h>

/* XX(enum suffix, name, wire, lockstep, rxplan, what the nodes do):
 *  - name: how `--sync` spells it, an identifier: the node's operations of the mode are
 *    sn__node_mode_<name>, in node/mode_<name>.c;
 *  - wire: its number in an Assign's `sync` field (proto/stepnet.proto; 0: the field absent),
 *    which net/wire.c maps;
 *  - lockstep: the collective's slots are played behind the slot barrier, every node sending one
 *    frame on every link every slot (what termination detection, the idle barrier and the faults
 *    that act on a node's next frames rely on); the slot time model predicts such a run, the
 *    dataflow model (include/stepnet/critical_path.h) any other;
 *  - rxplan: every node needs its receive plan (include/stepnet/rxplan.h) in its assignment.
 * The first is the default. */
#define SN_SYNC_MAP(XX)                                                                            \
    XX(SLOT, slot, 0, 1, 0, "the slot barrier, one frame on every link every slot")                \
    XX(DATAFLOW, dataflow, 1, 0, 1,                                                                \
       "nodes send only the schedule's packets and play each slot as soon as its packets are in "  \
       "(a dry run tells each node what it receives when), as a communication library runs a "     \
       "schedule")

typedef enum sn_sync_e {
#define SN_SYNC_ENUM(e, name, wire, lockstep, rxplan, what) SN_SYNC_##e,
    SN_SYNC_MAP(SN_SYNC_ENUM)
#undef SN_SYNC_ENUM
        SN_SYNC_COUNT
} sn_sync_t;

/* The name of mode s as `--sync` spells it ("slot"); "?" for a value outside the list. The
 * string is static. */
const char *sn_sync_name(sn_sync_t s);

/* What the nodes do in mode s, one line of text without a final period (the list's last column);
 * "?" for a value outside the list. */
const char *sn_sync_describe(sn_sync_t s);

/* The mode called `name` (exactly, case-sensitive) in *out. 0, or SN_EINVAL with *out unchanged.
 * It sets no message: the caller says where the value came from and lists the accepted names
 * with sn_sync_names. */
int sn_sync_parse(const char *name, sn_sync_t *out);

/* Writes the names of every mode, in the list's order, as a message lists accepted values:
 * "slot or dataflow" (more are separated by ", " and the last by " or "), truncated to cap bytes
 * with its terminator. Returns buf. */
char *sn_sync_names(char *buf, size_t cap);

/* The list's properties of mode s (0 for a value outside the list). */
int sn_sync_lockstep(sn_sync_t s);
int sn_sync_needs_rxplan(sn_sync_t s);

#endif
