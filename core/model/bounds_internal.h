/* What the files of the lower bounds share (core/model: bounds.c, bounds_flow.c,
 * bounds_combining.c). The overview of every bound, with its source, is at the top of bounds.c;
 * docs/model.md gives each argument. */
#ifndef STEPNET_CORE_MODEL_BOUNDS_INTERNAL_H
#define STEPNET_CORE_MODEL_BOUNDS_INTERNAL_H

#include <stdint.h>

#include "stepnet/model.h"
#include "stepnet/topo.h"

/* k^e, saturating (fat-tree level sizes). */
uint64_t sn__bounds_upow(uint64_t k, uint32_t e);

/* Appends a bound (at most SN_BOUND_MAX) and keeps b->best the largest. */
void sn__bounds_add(sn_bounds_t *b, const char *name, const char *source, int64_t value,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Theorem 3.3's single-port broadcast bound from root, and the one-packet single-port bound
 * (Theorem 3.3, or Theorem 6.1 on fat trees where it is larger). */
int64_t sn__bounds_thm33_of(const sn_topo_t *t, uint32_t root);
int64_t sn__bounds_one_packet_single(const sn_topo_t *t, uint32_t root);

/* Calls try(c, in, what) for the cheap cuts of t: BFS balls and halves (in[u] = 1 inside). */
void sn__bounds_search_cuts(const sn_topo_t *t, void (*try)(void *, const uint8_t *, const char *),
                            void *c);

/* The components of G - v, for the cut-vertex bounds (bounds_flow.c). */
typedef struct {
    uint32_t *comp, *queue, *dv, *far; /* far: the farthest processor of a component from v */
    uint64_t *procs, *marked;          /* per component: processors, nodes with mark[] set */
} sn__comps_t;

/* 0 when the search over every v would exceed a budget of 2^26 node-arc visits. */
int sn__bounds_comps_affordable(const sn_topo_t *t);
void sn__bounds_comps_init(sn__comps_t *c, uint32_t n);
void sn__bounds_comps_free(sn__comps_t *c);
/* Labels the components of G - v in c->comp (v itself UINT32_MAX - 1) and counts per component
 * its processors, its nodes with mark[] set (mark may be NULL) and the distance from v of its
 * farthest processor. Returns the number of components. */
uint32_t sn__bounds_comps_of(const sn_topo_t *t, uint32_t v, const uint8_t *mark, sn__comps_t *c);

/* The bounds of a broadcast (personal 0) or scatter (1) of M packets per destination from
 * p->root, or with reversed of a reduce or gather; thm1 the one-packet bound (bounds_flow.c). */
void sn__bounds_flow(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M,
                     int personal, int reversed, int64_t thm1);

/* The combining collectives (bounds_combining.c): sna, pmna and mna; allreduce and barrier. */
void sn__bounds_accum(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M);
void sn__bounds_allreduce(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, uint64_t M);

#endif
