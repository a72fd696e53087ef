/* What the spec parser's files share (core/topo): parse.c (the grammar and the families),
 * parse_file.c (file: edge lists) and parse_common.c (the helpers both use). */
#ifndef STEPNET_CORE_TOPO_PARSE_INTERNAL_H
#define STEPNET_CORE_TOPO_PARSE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

/* The sizes of one factor or spec, known before it is built. */
typedef struct {
    uint64_t nodes, procs, ports; /* procs: the nodes that are not routers */
    uint32_t nfactors;            /* mesh and torus: their dimensions; 0 otherwise */
    char *spec;                   /* the canonical spec (owned: free it) */
} sn__topo_size_t;

/* What the families return in count-only mode once they know their sizes, instead of building. */
#define SN__TOPO_COUNTED 1

/* Where file: factors come from, and the memory limit of the whole spec. */
typedef struct {
    const sn_topo_file_t *files; /* NULL: read from disk */
    size_t nfiles;
    uint64_t max_bytes;    /* the memory limit (0: none), checked before a family is built */
    sn__topo_size_t *size; /* non-NULL: count only; the families fill it and return
                              SN__TOPO_COUNTED where they would check max_bytes */
} sn__topo_source_t;

/* A decimal number in [lo, hi] from s[0..len), `what` naming it in the error about `factor`. */
int sn__topo_parse_num(const char *s, size_t len, uint64_t lo, uint64_t hi, const char *what,
                       const char *factor, uint64_t *out, sn_err_t *err);
/* SN_ERANGE: `factor` has more than SN_TOPO_MAX_NODES nodes. */
int sn__topo_too_big(const char *factor, uint64_t nodes, sn_err_t *err);
/* Replaces t's spec with a copy of `spec`; 0. */
int sn__topo_set_spec(sn_topo_t *t, const char *spec);
/* The factor `file:PATH` (factor is its text, for errors): from src's supplied contents, or read
 * from disk. 0, or the error of the first bad line. */
int sn__topo_parse_file(const sn__topo_source_t *src, const char *path, const char *factor,
                        sn_topo_t **out, sn_err_t *err);

#endif
