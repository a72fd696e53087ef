/* Konig's edge colouring of a bipartite graph by alternating paths (core/algo/engine): Konig
 * (1916), every bipartite graph of maximum degree h has a proper h-edge-colouring; the
 * constructive proof recolours one alternating path per edge. Gonzalez and Sahni (1976) use it
 * for the unit-time open shop, which is what a translation-invariant total exchange is. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/konig.h"
#include "stepnet/util.h"

#define NONE UINT32_MAX

/* The edge of row u (edges first .. last-1 of the row) with colour c, or NONE. Rows have few
 * edges (at most the number of link dimensions), so a scan beats a rows x colours table, which
 * would take gigabytes on the largest cubes. */
static uint32_t row_edge(const uint32_t *colour, size_t first, size_t last, uint32_t c)
{
    for (size_t e = first; e < last; e++)
        if (colour[e] == c)
            return (uint32_t) e;
    return NONE;
}

void sn__konig_colour(uint32_t nrows, uint32_t ncols, uint32_t h, const uint32_t *eu,
                      const uint32_t *ej, uint32_t *colour, size_t ne)
{
    size_t *row_first = sn_xcalloc((size_t) nrows + 1, sizeof *row_first);
    for (size_t e = 0; e < ne; e++)
        row_first[eu[e] + 1]++;
    for (uint32_t u = 0; u < nrows; u++)
        row_first[u + 1] += row_first[u];
    uint32_t *at = sn_xmalloc((size_t) ncols * h * sizeof *at); /* column, colour -> edge */
    memset(at, 0xff, (size_t) ncols * h * sizeof *at);
    /* below lowfree[j] every colour is taken at column j: the search for a free colour starts
     * there (without it, columns of degree h cost O(h) per edge, hours on the largest cubes) */
    uint32_t *lowfree = sn_xcalloc(ncols ? ncols : 1, sizeof *lowfree);
    memset(colour, 0xff, ne * sizeof *colour);
    size_t maxp = 2 * ((size_t) nrows + ncols);
    uint32_t *path = sn_xmalloc(maxp * sizeof *path);
    for (size_t e = 0; e < ne; e++) {
        uint32_t u = eu[e], j = ej[e], a = 0, b = lowfree[j];
        size_t first = row_first[u], last = row_first[u + 1];
        while (at[(size_t) j * h + b] != NONE)
            b++;
        lowfree[j] = b;
        if (row_edge(colour, first, last, b) == NONE) /* free at both ends: no recolouring */
            a = b;
        while (row_edge(colour, first, last, a) != NONE)
            a++;
        size_t np = 0;
        if (at[(size_t) j * h + a] != NONE) {
            /* the a/b path from column j: an a edge to a row, that row's b edge to a column, ...
             * Rows are entered by a edges and u has none, so the path never reaches u; after the
             * swap a is free at j as well as at u. */
            uint32_t col = j;
            for (;;) {
                uint32_t ea = at[(size_t) col * h + a];
                if (ea == NONE)
                    break;
                path[np++] = ea;
                uint32_t r = eu[ea];
                uint32_t eb = row_edge(colour, row_first[r], row_first[r + 1], b);
                if (eb == NONE)
                    break;
                path[np++] = eb;
                col = ej[eb];
            }
            for (size_t i = 0; i < np; i++)
                at[(size_t) ej[path[i]] * h + colour[path[i]]] = NONE;
            for (size_t i = 0; i < np; i++) {
                colour[path[i]] = colour[path[i]] == a ? b : a;
                at[(size_t) ej[path[i]] * h + colour[path[i]]] = path[i];
            }
        }
        colour[e] = a;
        at[(size_t) j * h + a] = (uint32_t) e;
        if (np > 0) {
            /* the one colour the swap can leave free at a column: the old colour of the path's
             * last edge, at its column */
            uint32_t c = ej[path[np - 1]], old = colour[path[np - 1]] == a ? b : a;
            if (at[(size_t) c * h + old] == NONE && old < lowfree[c])
                lowfree[c] = old;
        }
    }
    free(path);
    free(lowfree);
    free(at);
    free(row_first);
}
