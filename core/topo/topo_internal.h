/* Internal interface of the topology library (core/topo): the builder that every family uses to
 * lay out its ports and derive the edges, and the family constructors called by the parser. */
#ifndef STEPNET_CORE_TOPO_TOPO_INTERNAL_H
#define STEPNET_CORE_TOPO_TOPO_INTERNAL_H

#include <stdint.h>

#include "stepnet/topo.h"

/* Allocates a topology of `n` nodes with `nports` ports in total; port_off must then be filled by
 * the family (port_off[0] = 0, port_off[n] = nports) and every port's peer and rport set. */
sn_topo_t *sn__topo_alloc(sn_topo_kind_t kind, uint32_t n, uint64_t nports);

/* Assigns edge ids from the (peer, rport) pairs and fills edges[]. Checks that every pair is
 * mutual and that there are no self loops; SN_ESPEC with the node and port otherwise (a family
 * bug or a bad file). */
int sn__topo_link(sn_topo_t *t, sn_err_t *err);

/* Sets up is_router/node_rank/proc_node from is_router (which the family allocated), or leaves
 * them NULL when there are no routers. */
void sn__topo_ranks(sn_topo_t *t);

/* Family constructors. Parameters are validated by the caller (the parser) except where noted;
 * each returns 0 or a negative code with err set. */
int sn__topo_linear(uint32_t n, sn_topo_t **out, sn_err_t *err);
int sn__topo_circulant(sn_topo_kind_t kind, uint32_t n, const uint32_t *jumps, uint32_t njumps,
                       sn_topo_t **out, sn_err_t *err);
int sn__topo_complete(uint32_t n, sn_topo_t **out, sn_err_t *err);
int sn__topo_hypercube(sn_topo_kind_t kind, uint32_t d, sn_topo_t **out, sn_err_t *err);
int sn__topo_ccc(sn_topo_kind_t kind, uint32_t d, sn_topo_t **out, sn_err_t *err);
int sn__topo_star(uint32_t n, sn_topo_t **out, sn_err_t *err);
int sn__topo_fattree(uint32_t k, uint32_t h, const uint32_t *caps, sn_topo_t **out, sn_err_t *err);
/* Takes ownership of the factors (frees them on error). */
int sn__topo_product(sn_topo_kind_t kind, sn_topo_t **factors, uint32_t nfactors, sn_topo_t **out,
                     sn_err_t *err);

/* Permutation ranking for star graphs (lexicographic rank; identity = 0). */
uint32_t sn__perm_rank(const uint8_t *perm, uint32_t n);
void sn__perm_unrank(uint32_t rank, uint32_t n, uint8_t *perm);

/* Fat-tree addressing: node id of (level, index) and back. */
uint32_t sn__fattree_node(const sn_topo_t *t, uint32_t level, uint32_t index);
void sn__fattree_pos(const sn_topo_t *t, uint32_t node, uint32_t *level, uint32_t *index);

/* k^e as a 64-bit value (saturating at UINT64_MAX). */
uint64_t sn__upow(uint64_t k, uint32_t e);

#endif
