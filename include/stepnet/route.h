/* stepnet routing oracle: exact distances, a canonical shortest-path next hop, and the shape of the
 * shortest-path trees those next hops form. Part of the topology library (core/topo).
 *
 * The oracle is built per topology and answers in O(1) or O(factors) without an n^2 table for
 * every family except `file:` graphs:
 *   Cayley families : tables indexed by group element, from the identity; dist(u,v) = D[u^-1 v],
 *                     next(u,v) = u * W[u^-1 v] (group-invariant, so every source's tree is a
 *                     translate of the identity's)
 *   linear arrays   : closed form
 *   fat trees       : closed form (up to the lowest common ancestor, then down)
 *   products        : per-factor oracles; the next hop corrects the lowest differing factor
 *   file graphs     : all-pairs tables (at most SN_ROUTE_MAX_TABLE nodes)
 *
 * T_s, the tree of source s, is the tree in which the parent of w != s is next(w, s). */
#ifndef STEPNET_ROUTE_H
#define STEPNET_ROUTE_H

#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

#define SN_ROUTE_MAX_TABLE 8192u

typedef struct sn_route_s sn_route_t;

/* Builds the oracle for t (which must outlive it). SN_ERANGE when a `file:` graph (or factor) is
 * larger than SN_ROUTE_MAX_TABLE nodes. */
int sn_route_new(const sn_topo_t *t, sn_route_t **out, sn_err_t *err);
void sn_route_free(sn_route_t *r);

/* Distance between any two nodes. */
uint32_t sn_route_dist(const sn_route_t *r, uint32_t u, uint32_t v);

/* For u != v: the port of u that starts the canonical shortest path to v (the first of the ports
 * to that neighbour when links are parallel). Deterministic. */
uint32_t sn_route_next_port(const sn_route_t *r, uint32_t u, uint32_t v);

/* Both at once (the common case when routing a packet): returns dist(u, v) and, when u != v,
 * stores the next port in *port. */
uint32_t sn_route_lookup(const sn_route_t *r, uint32_t u, uint32_t v, uint32_t *port);

/* For u != v: the neighbour of u on the canonical shortest path to v. */
static inline uint32_t sn_route_next(const sn_route_t *r, const sn_topo_t *t, uint32_t u,
                                     uint32_t v)
{
    return sn_topo_port(t, u, sn_route_next_port(r, u, v))->peer;
}

/* Height of the subtree of w in T_s counted to processors only: the largest dist(w, x) over
 * processors x whose path to s passes through w (x = w included); -1 if that subtree holds no
 * processor. height(s, s) is the eccentricity of s over processors. */
int32_t sn_route_height(const sn_route_t *r, uint32_t s, uint32_t w);

#endif
