/* The parallel-prefix engine (core/algo/engine/prefix.c): ranks of marked nodes over a grid of
 * lines, by control packets. */
#ifndef STEPNET_CORE_ALGO_ENGINE_PREFIX_H
#define STEPNET_CORE_ALGO_ENGINE_PREFIX_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* ---- the parallel-prefix engine (prefix.c) ----------------------------------------------------
 * One node's part of a rank computation with control packets (Varvarigos and Bertsekas,
 * d-dimensional meshes, section 3, Fig. 2), over any grid of lines: the nodes are the points of a
 * mixed-radix grid, level j has lines of len[j] nodes (len[j] >= 2), and a node is known by its
 * digit on each level and its ports to the next (digit + 1) and previous (digit - 1) node on each
 * level's line. Levels are scanned 0 first; the last level is the most significant digit. A mesh
 * or torus gives one level per dimension (len p; the rotated orders <_c of the mesh algorithms
 * permute the levels), a hypercube or folded cube one level per bit (len 2).
 *
 * Each node has a mark x (0 or 1, e.g. "is a source"). After 2 * sum(len[j] - 1) ticks every node
 * knows rank = the number of marked nodes before it in the grid order (digits compared from the
 * last level down), which runs 0 .. M-1 over the marked nodes, and total = M. Tick k of the
 * prefix is one control slot; the caller maps slots to ticks, may run several prefixes at once
 * (their ports must not collide: the mesh algorithms rotate the levels per class), and carries
 * the values in control packets (sn_packet_t.digest) that it tells apart by its own tag.
 *
 * Per tick the engine receives at most one value (sent in the previous tick) and sends at most one.
 * Call sn__prefix_tick for every tick 1 .. ticks + 1, in order: tick ticks + 1 only receives (the
 * last offsets arrive at its start); rank and total are valid when done is 1 (at the latest after
 * that call). Values: forward partial sums, and (offset | total << 32) backward; M < 2^32. */
#define SN_PREFIX_MAX_LEVELS 32

typedef struct sn_prefix_s {
    uint32_t nlevels;
    uint32_t len[SN_PREFIX_MAX_LEVELS], digit[SN_PREFIX_MAX_LEVELS];
    uint32_t port_next[SN_PREFIX_MAX_LEVELS], port_prev[SN_PREFIX_MAX_LEVELS];
    uint64_t fwd_base[SN_PREFIX_MAX_LEVELS], rev_base[SN_PREFIX_MAX_LEVELS], ticks;
    uint64_t V[SN_PREFIX_MAX_LEVELS], P[SN_PREFIX_MAX_LEVELS], O[SN_PREFIX_MAX_LEVELS];
    int fwd_pending, rev_pending;
    uint32_t fwd_level, rev_level;
    uint64_t rev_value;
    /* results */
    uint64_t rank, total;
    int done;
} sn_prefix_t;

/* What the node sends in one tick: value on port, when send is 1. */
typedef struct sn_prefix_out_s {
    int send;
    uint32_t port;
    uint64_t value;
} sn_prefix_out_t;

/* Ticks of a prefix over these levels: 2 * sum(len[j] - 1). */
uint64_t sn__prefix_ticks(const uint32_t *len, uint32_t nlevels);

/* Sets up node state s for a prefix over nlevels (<= SN_PREFIX_MAX_LEVELS) levels; the arrays
 * have nlevels entries (ports of a missing neighbour are never used: the last node of a line
 * never sends forward, the first never backward). x is the node's mark. */
void sn__prefix_init(sn_prefix_t *s, uint32_t nlevels, const uint32_t *len, const uint32_t *digit,
                     const uint32_t *port_next, const uint32_t *port_prev, uint32_t x);

/* Plays tick `tick` (1 .. ticks + 1): has_in/in is the value this prefix's control packet brought
 * (sent by a neighbour in tick - 1), out what to send now. 0, or SN_EALGO when called outside the
 * ticks or when the prefix ended without a rank (a lost control packet). */
int sn__prefix_tick(sn_prefix_t *s, uint64_t tick, int has_in, uint64_t in, sn_prefix_out_t *out,
                    sn_err_t *err);

/* One tick of prefix instance i at node u inside a node_step: its value from this slot's arrivals
 * (the control packet with flags i, at most one), sn__prefix_tick, and its control packet (flags
 * i, the value in the digest) sent on the port it names. 0, or SN_EALGO with err set. */
int sn__prefix_step(sn_prefix_t *s, uint32_t i, uint64_t tick, const sn_topo_t *t, uint32_t u,
                    sn_step_t *io, sn_err_t *err);

#endif
