/* Internal interface of core/algo: spanning trees shared by the tree algorithms, the node engines
 * that run a schedule over any such tree, and the descriptors that core/model registers.
 *
 * The layering rule: core/algo depends on core/topo, core/util and the public headers
 * stepnet/algo.h, topo.h, route.h, error.h and util.h only. No file in core/algo includes
 * stepnet/model.h, stepnet/sim.h or anything from core/model or core/sim, and none calls into them:
 * core/model registers, selects and plans algorithms and may call down into core/algo, never the
 * reverse.
 * An algorithm that needs another run's schedule (A2, A3) asks for it as a plan input
 * (sn_algo_t.plan_inputs) and the model records it. */
#ifndef STEPNET_ALGO_INTERNAL_H
#define STEPNET_ALGO_INTERNAL_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/topo.h"

/* A rooted spanning tree with what the schedules need: depth, children in port order, pre-order
 * intervals (x is in the subtree of c iff pin[c] <= pin[x] < pout[c]) and processor counts. */
typedef struct sn_tree_s {
    uint32_t n, root;
    uint32_t *parent;     /* [n], UINT32_MAX at the root */
    uint32_t *up_port;    /* [n] port of the node towards its parent */
    uint32_t *depth;      /* [n] */
    uint32_t *child_off;  /* [n+1] children of u: child[child_off[u] .. child_off[u+1]-1] */
    uint32_t *child;      /* children, in the parent's port order */
    uint32_t *child_port; /* the parent's port towards each child */
    uint32_t *child_pin;  /* pin of each child, next to it (the downward search reads these) */
    uint32_t *pin, *pout; /* [n] pre-order interval */
    uint32_t *nproc;      /* [n] processors in the subtree */
    uint32_t height;      /* max depth of a processor */
} sn_tree_t;

/* BFS tree: the parent of each node is its first discoverer, ports scanned in order. */
sn_tree_t *sn__tree_bfs(const sn_topo_t *t, uint32_t root);

/* Balanced tree (for multiport scattering, Theorem 3.7 of the thesis): one region per distinct
 * neighbour of the root, grown breadth-first, the region with the fewest processors growing next.
 */
sn_tree_t *sn__tree_balanced(const sn_topo_t *t, uint32_t root);

void sn__tree_free(sn_tree_t *tr);

/* The child of u whose subtree holds x (x a proper descendant of u), as an index into child[]. */
uint32_t sn__tree_child_towards(const sn_tree_t *tr, uint32_t u, uint32_t x);

/* ---- building trees (tree.c, tree_*.c) --------------------------------------------------------
 * A builder allocates with sn__tree_alloc, sets parent[] and up_port[] of every node but the root
 * (directly or with sn__tree_set_parent) and calls sn__tree_finish, which computes the rest. */

/* A tree of t's nodes rooted at root with every parent unset (UINT32_MAX). */
sn_tree_t *sn__tree_alloc(const sn_topo_t *t, uint32_t root);

/* parent[u] = parent and up_port[u] = the first port of u towards it. -1 if they are not adjacent
 * (nothing is changed then). */
int sn__tree_set_parent(const sn_topo_t *t, sn_tree_t *tr, uint32_t u, uint32_t parent);

/* Children (in each parent's port order), depths, pre-order intervals, processor counts and height
 * from parent[] and up_port[]. 0, or SN_EALGO when they do not form a spanning tree rooted at
 * tr->root (a node without parent, an up_port that does not lead to the parent, a cycle); the
 * tree must then only be freed. */
int sn__tree_finish(const sn_topo_t *t, sn_tree_t *tr);

/* A tree builder: the tree of t rooted at root, or NULL when this family does not apply to t. */
typedef sn_tree_t *(*sn_tree_builder_t)(const sn_topo_t *t, uint32_t root);

/* Extended rings (tree_ering.c, Dimakopoulos, thesis, section 3.1):
 * ring:N is E_N^1, ering:N:RHO is E_N^RHO and complete:N is E_N^floor(N/2). */
typedef struct sn_ering_s {
    sn_topo_kind_t kind; /* SN_TOPO_RING, SN_TOPO_ERING or SN_TOPO_COMPLETE */
    uint32_t n, rho;     /* E_n^rho */
    uint32_t D, w, k;    /* D = ceil(floor(n/2)/rho), w = floor((n-1)/rho) - D, k = n-(w+D)rho-1 */
    uint32_t deg;        /* 2 rho, or 2 rho - 1 when rho = n/2 */
} sn_ering_t;

/* 0 and *e when t is a ring, an extended ring or a complete graph; SN_ENOTSUP (err may be NULL)
 * naming what `who` needs otherwise. */
int sn__ering_get(const sn_topo_t *t, sn_ering_t *e, const char *who, sn_err_t *err);

/* The port of any node u towards u (+) s (ccw = 0) or u (-) s (ccw = 1), 1 <= s <= rho. The port
 * numbering of these families is the same at every node (topo.h). */
uint32_t sn__ering_port(const sn_ering_t *e, int ccw, uint32_t s);

/* The tree that the weight protocol of section 3.1 builds: the root's clockwise neighbours 1..rho
 * start paths of D nodes, its counter-clockwise neighbours 1..k paths of w+1 nodes and k+1..rho
 * paths of w nodes (none when w = 0: the printed rule would send weight-0 packets); every path
 * jumps rho at a time. Height D, largest root subtree D = ceil((n-1)/deg) (Theorem 3.8). NULL
 * unless t is a ring, an extended ring or a complete graph. */
sn_tree_t *sn__tree_ering(const sn_topo_t *t, uint32_t root);

/* The binomial tree of Q_d (tree_binomial.c, thesis section 3.1, Fig. 3.1): the parent of x is x
 * with the lowest bit of x XOR root cleared. NULL unless t is a hypercube. */
sn_tree_t *sn__tree_binomial(const sn_topo_t *t, uint32_t root);

/* The Theorem 3.1 tree of a cartesian product (tree_product.c, Dimakopoulos, thesis,
 * section 3.1.1): the parent of u is u with coordinate i replaced by its parent in the tree of
 * factor i, i the lowest factor where u differs from the root. Factor trees: sn__tree_ering for
 * rings and extended rings, sn__tree_binomial for hypercubes, BFS otherwise; each has height
 * e_i(v_i), so the tree has height e(root). NULL unless t has factors (mesh, torus, product). */
sn_tree_t *sn__tree_product(const sn_topo_t *t, uint32_t root);

/* The multiport scattering tree of the 2-D torus (tree_torus.c, Dimakopoulos, thesis, section
 * 3.4.2, with the errata listed there). NULL unless t is an n x m
 * torus with n, m >= 3. How the tree of an n x m torus is made: */
typedef enum {
    SN_TORUS_THESIS,     /* the construction of section 3.4.2 as printed (corrected) */
    SN_TORUS_TRANSPOSED, /* the same with the roles of n and m swapped: n even >= 6, m = 4 */
    SN_TORUS_EXPLICIT,   /* an explicit tree found by hand: 4 x 4 */
    SN_TORUS_BALANCED,   /* sn__tree_balanced: 3 x even and even x 3, outside the thesis range */
} sn_torus_method_t;

/* The method used for an n x m torus (n rows: the first factor), n, m >= 3. */
sn_torus_method_t sn__torus_method(uint32_t n, uint32_t m);
sn_tree_t *sn__tree_torus(const sn_topo_t *t, uint32_t root);

/* 0 when t is a 2-D torus (torus:NxM, or the product of two rings) with both sides >= 3, and
 * *n, *m its sides; SN_ENOTSUP naming what `who` needs otherwise (*n and *m are always written:
 * 0 when t is not a product of two rings). */
int sn__torus_get(const sn_topo_t *t, uint32_t *n, uint32_t *m, const char *who, sn_err_t *err);

/* ---- node engines over any tree --------------------------------------------------------------
 * Each engine builds its plan from a tree made by `build` (which must apply: SN_EALGO otherwise)
 * and provides the descriptor members below; SN__*_ALGO_FIELDS fill them in a descriptor. */

/* Flooding (bcast_bfs.c): every node forwards each packet to all its children in the slot after
 * it arrives; steps = height + msgs*frags - 1. */
int sn__flood_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       void **plan, sn_err_t *err);
void sn__flood_plan_free(void *plan);
int64_t sn__flood_predicted(const void *plan);
int sn__flood_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
int sn__flood_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__FLOOD_STATE_SIZE (2 * sizeof(void *))
#define SN__FLOOD_ALGO_FIELDS                                                                      \
    .plan_free = sn__flood_plan_free, .predicted = sn__flood_predicted,                            \
    .state_size = SN__FLOOD_STATE_SIZE, .node_init = sn__flood_node_init,                          \
    .node_step = sn__flood_node_step

/* The ordered single-port schedule (bcast_tree.c): children served one per slot, slowest subtree
 * first (eq. 6.1); steps = the schedule's replayed count. */
/* Eq. (6.1) on tr: b(leaf) = 0, b(u) = max_i (b(c_i) + i) over u's served children (those with
 * processors below) sorted by b descending. Fills each node's serving order (order_off[n+1] and
 * order, indices into tr->child[]) unless both are NULL; returns b(root), the one-packet time. */
uint64_t sn__ordered_schedule(const sn_tree_t *tr, uint32_t n, uint32_t *order_off,
                              uint32_t *order);
int sn__ordered_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                         void **plan, sn_err_t *err);
void sn__ordered_plan_free(void *plan);
int64_t sn__ordered_predicted(const void *plan);
int sn__ordered_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__ordered_node_fini(void *state);
int sn__ordered_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__ORDERED_STATE_SIZE (2 * sizeof(void *) + 4 * sizeof(uint32_t))

/* Scattering over lanes (scatter_tree.c): one lane per root child, furthest first in each lane,
 * all lanes at once (Theorem 3.7); gather = its time reversal. steps = the largest root subtree
 * times msgs*frags. */
int sn__lanes_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       int gather, void **plan, sn_err_t *err);
void sn__lanes_plan_free(void *plan);
int64_t sn__lanes_predicted(const void *plan);
int sn__lanes_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
int sn__lanes_scatter_step(void *state, sn_step_t *io, sn_err_t *err);
int sn__lanes_gather_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__LANES_STATE_SIZE (sizeof(void *) + 2 * sizeof(uint32_t))
#define SN__LANES_ALGO_FIELDS(step)                                                                \
    .plan_free = sn__lanes_plan_free, .predicted = sn__lanes_predicted,                            \
    .state_size = SN__LANES_STATE_SIZE, .node_init = sn__lanes_node_init, .node_step = step

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

/* Descriptors, one per algorithm (registered in core/model/registry.c). */
extern const sn_algo_t sn__algo_bcast_ering;
extern const sn_algo_t sn__algo_bcast_product;
extern const sn_algo_t sn__algo_bcast_binomial;
extern const sn_algo_t sn__algo_bcast_bfs;
extern const sn_algo_t sn__algo_bcast_tree;
extern const sn_algo_t sn__algo_bcast_greedy;
extern const sn_algo_t sn__algo_scatter_ering;
extern const sn_algo_t sn__algo_scatter_torus;
extern const sn_algo_t sn__algo_gather_ering;
extern const sn_algo_t sn__algo_gather_torus;
extern const sn_algo_t sn__algo_scatter_ff;
extern const sn_algo_t sn__algo_scatter_balanced;
extern const sn_algo_t sn__algo_gather_ff;
extern const sn_algo_t sn__algo_gather_balanced;
extern const sn_algo_t sn__algo_mnb_route;
extern const sn_algo_t sn__algo_te_a3;
extern const sn_algo_t sn__algo_te_linear; /* te_linear.c: thesis sec. 4.2 */
extern const sn_algo_t sn__algo_te_ring;   /* te_ring.c: thesis sec. 4.3 */
extern const sn_algo_t sn__algo_te_cayley;
extern const sn_algo_t sn__algo_te_a2;
extern const sn_algo_t sn__algo_te_route;
extern const sn_algo_t sn__algo_pmnb_route;
extern const sn_algo_t sn__algo_pexchange_route;
/* the fat-tree algorithms of thesis chapter 6 (bcast_fattree.c, scatter_fattree.c,
 * mnb_fattree.c, te_fattree.c; engine in fattree.c) */
extern const sn_algo_t sn__algo_bcast_fattree;
extern const sn_algo_t sn__algo_scatter_fattree;
extern const sn_algo_t sn__algo_gather_fattree;
extern const sn_algo_t sn__algo_mnb_fattree;
extern const sn_algo_t sn__algo_mnb_fattree_qf;
extern const sn_algo_t sn__algo_mnb_fattree_qf_serial;
extern const sn_algo_t sn__algo_te_fattree;
extern const sn_algo_t sn__algo_te_fattree_serial;
/* pmnb_mesh.c: Varvarigos and Bertsekas, d-dimensional meshes, sections 3.1 and 3.2 */
extern const sn_algo_t sn__algo_pmnb_mesh_split;
extern const sn_algo_t sn__algo_pmnb_mesh_nosplit;
extern const sn_algo_t sn__algo_pmnb_mesh_a0;
extern const sn_algo_t sn__algo_mnb_mesh;
/* pexchange_mesh.c: Varvarigos and Bertsekas, d-dimensional meshes, section 4 */
extern const sn_algo_t sn__algo_pexchange_mesh;
/* the torus framework of Fragopoulou and Akl (torus_necklace.c): bcast_torus_bst.c,
 * mnb_torus_bsg.c, scatter_torus_bsg.c, te_torus_mns.c */
extern const sn_algo_t sn__algo_bcast_bst;
extern const sn_algo_t sn__algo_mnb_bsg;
extern const sn_algo_t sn__algo_scatter_bsg;
extern const sn_algo_t sn__algo_gather_bsg;
extern const sn_algo_t sn__algo_te_mns;
extern const sn_algo_t sn__algo_mnb_balanced;    /* mnb_balanced.c: generic, balanced trees */
extern const sn_algo_t sn__algo_mnb_cycle;       /* mnb_cycle.c: single-port Hamiltonian pipeline */
extern const sn_algo_t sn__algo_mnb_cayley;      /* mnb_cayley.c: one balanced tree, translated */
extern const sn_algo_t sn__algo_bcast_multitree; /* single_timetable.c: single-port, M > 1 */
extern const sn_algo_t sn__algo_bcast_match;     /* single_timetable.c: single-port, M > 1 */
extern const sn_algo_t sn__algo_mnb_match;       /* single_timetable.c: single-port, any graph */
extern const sn_algo_t sn__algo_mnb_gossip;      /* mnb_gossip.c: multiport, any graph */
/* faulty.c: deliberately illegal algorithms for tests, registered as hidden */
extern const sn_algo_t sn__algo_test_double_send;
extern const sn_algo_t sn__algo_test_past_wake;

/* te-a2's plan built from given factor schedules: given[i], one per factor of t, a single-port
 * total exchange on factor i with one reception per node per step (e.g. from sn_sched_record);
 * equal pointers share one copy. What te-a2's plan_from calls; lets a test compose A2 from a
 * schedule it built itself. The schedules are copied; free the plan with
 * sn__algo_te_a2.plan_free. SN_EINVAL when a schedule is not such a total exchange. */
int sn__te_a2_plan_with(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *const *given,
                        void **plan, sn_err_t *err);

/* Accumulation over trees (pmna_tree.c): sna over the tree of `build` rooted at the root, pmna
 * over one tree per target, partials combined and sent upwards once complete, oldest first per
 * link. Predicted: height + msgs*frags - 1 for sna, none for pmna. */
int sn__accum_plan_new(const sn_topo_t *t, const sn_params_t *p, sn_tree_builder_t build,
                       void **plan, sn_err_t *err);
void sn__accum_plan_free(void *plan);
int64_t sn__accum_predicted(const void *plan);
int sn__accum_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err);
void sn__accum_node_fini(void *state);
int sn__accum_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__ACCUM_STATE_SIZE (6 * sizeof(void *) + 2 * sizeof(uint32_t))
#define SN__ACCUM_ALGO_FIELDS                                                                      \
    .plan_free = sn__accum_plan_free, .predicted = sn__accum_predicted,                            \
    .state_size = SN__ACCUM_STATE_SIZE, .node_init = sn__accum_node_init,                          \
    .node_fini = sn__accum_node_fini, .node_step = sn__accum_node_step

/* Combining collectives (pmna_tree.c): accumulation over BFS trees, any topology. */
extern const sn_algo_t sn__algo_sna_tree;
extern const sn_algo_t sn__algo_pmna_tree;

/* allreduce and barrier (allreduce_tree.c: any topology; allreduce_rd.c: recursive doubling on
 * hypercubes, folded cubes and complete graphs of 2^d nodes); mna (reduce_scatter) in
 * pmna_tree.c */
extern const sn_algo_t sn__algo_allreduce_tree;
extern const sn_algo_t sn__algo_barrier_tree;
extern const sn_algo_t sn__algo_allreduce_rd;
extern const sn_algo_t sn__algo_barrier_rd;
extern const sn_algo_t sn__algo_mna_tree;

/* Folded cube (Varvarigos, folded-cube paper): bcast_fcube.c */
extern const sn_algo_t sn__algo_bcast_fcube;
extern const sn_algo_t sn__algo_sna_fcube;
extern const sn_algo_t sn__algo_mnb_fcube;     /* mnb_fcube.c */
extern const sn_algo_t sn__algo_gather_fcube;  /* mnb_fcube.c */
extern const sn_algo_t sn__algo_scatter_fcube; /* mnb_fcube.c */
extern const sn_algo_t sn__algo_te_fcube;      /* te_fcube.c */
extern const sn_algo_t sn__algo_te_fcube_greedy;
extern const sn_algo_t sn__algo_pmna_fcube; /* pmna_fcube.c */
extern const sn_algo_t sn__algo_mnb_a0;     /* mnb_fcube.c: A_0 on Q_d */
extern const sn_algo_t sn__algo_pmna_a0;    /* pmna_fcube.c: A_0 on Q_d, reversed */
extern const sn_algo_t sn__algo_pmnb_fcube; /* pmnb_fcube.c: eq. (4), prefix ranks */

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

/* One transmission of a folded-cube PMNB round (mnb_fcube.c): node sends the packet of `origin`
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

void sn__fcsched_add(sn_fcsched_t *s, uint32_t node, uint64_t slot, uint32_t port, uint32_t src,
                     uint32_t dst, uint32_t k, int deliver);
void sn__fcsched_finish(sn_fcsched_t *s, uint32_t n);
void sn__fcsched_free(sn_fcsched_t *s);
int sn__fcsched_node_init(const sn_fcsched_t *s, uint32_t node, void *state);
int sn__fcsched_node_step(void *state, sn_step_t *io, sn_err_t *err);
#define SN__FCSCHED_STATE_SIZE (2 * sizeof(void *) + 2 * sizeof(uint32_t))

#endif
