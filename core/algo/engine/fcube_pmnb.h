/* One round of the folded-cube PMNB without its prefixes (core/algo/engine/fcube_pmnb.c), shared by
 * mnb-fcube, gather-fcube, scatter-fcube, mnb-a0, pmna-fcube and pmna-a0 (Varvarigos, folded-cube
 * paper, section 3). */
#ifndef STEPNET_CORE_ALGO_ENGINE_FCUBE_PMNB_H
#define STEPNET_CORE_ALGO_ENGINE_FCUBE_PMNB_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* One transmission of a folded-cube PMNB round (fcube_pmnb.c): node sends the packet of `origin`
 * on port in slot to `to`; `deliver`: `to` keeps it (a broadcast, or the last packing move, to
 * a node other than the origin). */
typedef struct sn_fcraw_s {
    uint64_t slot;
    uint32_t node, port, origin, to;
    uint32_t deliver;
} sn_fcraw_t;

/* Slots of one round: d + sum_{k=1..d} ceil(mbar / 2^k). */
uint64_t sn__fcube_round_slots(uint32_t d, uint64_t mbar);

/* The transmissions of one round of the folded-cube PMNB without its prefixes (Varvarigos,
 * folded-cube paper, section 3) with ncp copies: d+1 on the folded cube (copy c through V_c), or
 * 1 for the hypercube algorithm A_0 alone (labels = ids, dimension k = port k; on the folded cube
 * its complementary links stay idle). act[0 .. m-1] are the active nodes in ascending order (rank
 * r, class r mod ncp), or NULL for the MNB (every node, class s mod ncp); packing (none for one
 * copy without act: every packet is in place), then broadcast with phases of
 * ceil(ceil(m/ncp)/2^(j+1)) slots. *out (free it) holds *nout events, *T1 the round's slots.
 * SN_EALGO if an internal check fails. */
int sn__fcube_pmnb_round(const sn_topo_t *t, uint32_t d, uint32_t ncp, const uint32_t *act,
                         uint32_t m, sn_fcraw_t **out, size_t *nout, uint64_t *T1, sn_err_t *err);

#endif
