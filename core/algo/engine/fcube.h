/* The folded cube FQ_d shared by its algorithms (core/algo/engine/fcube.c): recognising it, the
 * relabellings V_c, the depth-ceil(d/2) spanning tree and the replay of a planned schedule. */
#ifndef STEPNET_CORE_ALGO_ENGINE_FCUBE_H
#define STEPNET_CORE_ALGO_ENGINE_FCUBE_H

#include <stddef.h>
#include <stdint.h>

#include "core/algo/engine/tree.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* ---- the folded cube (fcube.c; Varvarigos, folded-cube paper, section 2) --------------------
 * FQ_d: node ids are d-bit vectors, port f < d flips bit f, port d is the complementary link. */

/* 0 and *d when t is foldedcube:D with D >= 2; SN_ENOTSUP naming `who` otherwise. */
int sn__fcube_get(const sn_topo_t *t, uint32_t *d, const char *who, sn_err_t *err);

/* 0 and *d when t is hypercube:D or foldedcube:D (D >= 2), where the hypercube algorithm A_0
 * runs on the dimensions 0..D-1; SN_ENOTSUP naming `who` otherwise. */
int sn__a0_get(const sn_topo_t *t, uint32_t *d, const char *who, sn_err_t *err);

/* V_c(s) (Lemma 1): the hypercube label node s plays in copy c (0 <= c <= d), where FQ_d minus
 * its dimension-c links is Q_d. */
uint32_t sn__fcube_label(uint32_t d, uint32_t c, uint32_t s);

/* The F-dimension (port) that copy c uses for hypercube dimension k: (d + c - k) mod (d+1). For
 * each k these are distinct over c, so the d+1 copies never share a link in a slot. */
uint32_t sn__fcube_fdim(uint32_t d, uint32_t c, uint32_t k);

/* The spanning tree of depth ceil(d/2) rooted at root; NULL unless t is a folded cube. */
sn_tree_t *sn__tree_fcube(const sn_topo_t *t, uint32_t root);

/* A schedule computed in a plan and replayed by every node: each event is "node sends the data
 * packet (src, dst, k = seq * frags + frag) on port in slot", and the receiver delivers it when
 * `deliver` is set (the packet carries SN__FC_DELIVER in its flags). */
#define SN__FC_DELIVER 1u
typedef struct sn_fcev_s {
    uint64_t slot;
    uint32_t node, port, src, dst, k, deliver;
} sn_fcev_t;

typedef struct sn_fcsched_s {
    const sn_params_t *p;
    sn_fcev_t *ev; /* sorted by (node, slot, port) after sn__fcsched_finish */
    size_t nev, cap;
    uint32_t n, *off; /* [n+1]: the events of u are ev[off[u] .. off[u+1]-1] */
    uint64_t steps;   /* the last slot with an event */
} sn_fcsched_t;

void sn__fcsched_add(sn_fcsched_t *s, uint32_t node, uint64_t slot, uint32_t port, uint32_t src,
                     uint32_t dst, uint32_t k, int deliver);
void sn__fcsched_finish(sn_fcsched_t *s, uint32_t n);
void sn__fcsched_free(sn_fcsched_t *s);
int sn__fcsched_node_init(const sn_fcsched_t *s, uint32_t node, void *state);
int sn__fcsched_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__FCSCHED_STATE_SIZE (2 * sizeof(void *) + 2 * sizeof(uint32_t))

#endif
