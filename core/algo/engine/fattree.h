/* The fat-tree engine shared by the chapter-6 algorithms (core/algo: bcast/bcast_fattree.c,
 * scatter/scatter_fattree.c, mnb/mnb_fattree.c, te/te_fattree.c). Dimakopoulos, thesis, chapter 6.
 *
 * A k-ary fat tree of height h (sn_topo_t of kind SN_TOPO_FATTREE): the n = k^h leaves are the
 * processors, every inner node is a router, a real node of the run. Every node has k + 1
 * "branches" (children 0 .. k-1, parent k; a leaf only its parent) and one FIFO per branch. A
 * leaf injects its own packets at precomputed slots (the family's `inject`) and never relays; a
 * router pushes what it receives into branch FIFOs by the family's routing rule and sends from
 * them by its port discipline:
 *   multiport: each branch sends up to its capacity per slot, one packet per link;
 *   single-port: one packet per slot in all, chosen by the family's discipline (section 6.2: every
 *   node sends at most one message per step and receives from all its neighbours at once). */
#ifndef STEPNET_CORE_ALGO_ENGINE_FATTREE_H
#define STEPNET_CORE_ALGO_ENGINE_FATTREE_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

#define SN_FT_MAXH 24

/* How a router maps an arrival from branch f onto its branch FIFOs. */
typedef enum {
    SN_FT_ROUTE,      /* personalised: the next hop towards pkt.dst */
    SN_FT_BCAST_SP,   /* Fig. 6.4: from the parent to every child; from a child to the parent
                         first, then to the other children */
    SN_FT_FLOOD,      /* to every branch but f (Theorem 6.9; Fig. 6.6's UP and DOWN queues) */
    SN_FT_QUEUE_FREE, /* Fig. 6.10: pkt.tag = phase; up to the phase's top, down to all */
} sn_ft_rule_t;

/* How a router picks its sends (single-port; multiport always drains every branch). */
typedef enum {
    SN_FT_SP_FIFO, /* one FIFO over all branches: the oldest packet first */
    SN_FT_SP_MNB,  /* Fig. 6.6: phase A sends the subtree's k^l packets up, then the children
                      take turns */
    SN_FT_SP_TE,   /* Fig. 6.8: phase A sends the k^l (n - k^l) outgoing packets up, then down */
} sn_ft_disc_t;

typedef struct sn_ft_plan_s sn_ft_plan_t;

/* A family's leaf schedule, generated on demand (no per-leaf lists): how many packets leaf j
 * injects, and its i-th injection, i = 0 .. count-1, in strictly increasing slots. */
typedef uint64_t (*sn_ft_count_fn)(const sn_ft_plan_t *pl, uint32_t leaf);
typedef void (*sn_ft_inject_fn)(const sn_ft_plan_t *pl, uint32_t leaf, uint64_t i, uint64_t *slot,
                                sn_packet_t *pkt);

struct sn_ft_plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t k, h, n;
    uint64_t pw[SN_FT_MAXH + 2];    /* k^i */
    uint32_t ceff[SN_FT_MAXH + 2];  /* effective capacities (section 6.3.3): c_1 = 1 and
                                       c_i = min(c_i, k c_(i-1)) */
    uint64_t start[SN_FT_MAXH + 1]; /* phased algorithms: the slot before phase p starts */
    sn_ft_rule_t rule;
    sn_ft_disc_t disc;
    sn_ft_count_fn count;
    sn_ft_inject_fn inject;
    int64_t predicted;
    uint64_t aux; /* family-specific (gather: the scatter time) */
};

/* 0 when t is a fat tree with h >= 2 (the chapter's assumption) and the run sends one packet per
 * message; with multiport, c_1 must be 1 (section 6.3; c_1 > 1 is an open problem). SN_ENOTSUP
 * naming `who` and the reason otherwise. */
int sn__ft_applies(const sn_topo_t *t, const sn_params_t *p, const char *who, sn_err_t *err);

/* A plan with the geometry filled in (rule, disc, inject, start, predicted left to the caller). */
sn_ft_plan_t *sn__ft_plan_alloc(const sn_topo_t *t, const sn_params_t *p);
void sn__ft_plan_free(void *plan);
int64_t sn__ft_predicted(const void *plan);

/* Distance between leaves a and b: 2 (least l with a / k^l == b / k^l). */
uint32_t sn__ft_dist(const sn_ft_plan_t *pl, uint32_t a, uint32_t b);

/* Leaf s's furthest-first order (scatter and Fig. 6.8): the other leaves by distance descending,
 * ties by index. sn__ft_ff_at is its j-th leaf (0 <= j < n - 1), sn__ft_ff_pos the position of
 * leaf d != s in it. O(h). */
uint32_t sn__ft_ff_at(const sn_ft_plan_t *pl, uint32_t s, uint64_t j);
uint64_t sn__ft_ff_pos(const sn_ft_plan_t *pl, uint32_t s, uint32_t d);

int sn__ft_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__ft_node_fini(void *state);
int sn__ft_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__FT_STATE_SIZE (8 * sizeof(void *) + 8 * sizeof(uint64_t))
#define SN__FT_ALGO_FIELDS                                                                         \
    .plan_free = sn__ft_plan_free, .predicted = sn__ft_predicted, .state_size = SN__FT_STATE_SIZE, \
    .node_init = sn__ft_node_init, .node_fini = sn__ft_node_fini, .node_step = sn__ft_node_step

#endif
