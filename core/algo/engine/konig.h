/* Edge colouring of bipartite graphs (core/algo/engine/konig.c): the decomposition of a task
 * matrix into matchings that the total exchanges by symmetric switching replay, one matching per
 * slot (te-fcube, te-hypercube). */
#ifndef STEPNET_CORE_ALGO_ENGINE_KONIG_H
#define STEPNET_CORE_ALGO_ENGINE_KONIG_H

#include <stddef.h>
#include <stdint.h>

/* Colours the ne edges (eu[e], ej[e]) of a bipartite graph, rows eu[e] < nrows and columns
 * ej[e] < ncols, with colours 0 .. h-1 so that no two edges at a row or at a column share one
 * (Konig's edge-colouring theorem: h colours suffice when h is at least every degree). The edges
 * must be grouped by row (eu non-decreasing) and the caller must pass h >= every degree. Writes
 * colour[0 .. ne-1]; deterministic. O(ne (h + nrows + ncols)) time, O(ncols h + nrows) memory. */
void sn__konig_colour(uint32_t nrows, uint32_t ncols, uint32_t h, const uint32_t *eu,
                      const uint32_t *ej, uint32_t *colour, size_t ne);

#endif
