/* The rotation-necklace framework of the k-ary n-dimensional torus MT_{n,k} (core/algo, internal):
 * translation, rotation, necklaces with their generator, displacement and period, the splitting
 * modulus, tree 0, the spanning tree BST and the 2n trees of the spanning graph BSG, all computed
 * from node labels. Source: Fragopoulou and Akl, torus framework, sections 2-4 (Defs. 1-9,
 * Lemmas 1-7), with the errata of docs/reproduction.md.
 *
 * Labels. Node id u of torus:KxKx...xK (n factors, the first most significant) or ring:K (n = 1)
 * is the paper's label v_{n-1} ... v_1 v_0 read as a base-k number: digit i is coordinate n-1-i.
 * The generator g_i^{+1} (add 1 to digit i) is port 2(n-1-i), g_i^{-1} port 2(n-1-i)+1 (topo.h:
 * the ring ports +1, -1 of each factor in factor order). All structures are built in frame 0
 * (rooted at 0^n) and translated to a root s by T_s: digit-wise addition mod k. */
#ifndef STEPNET_CORE_ALGO_ENGINE_TORUS_NECKLACE_H
#define STEPNET_CORE_ALGO_ENGINE_TORUS_NECKLACE_H

#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

#define SN_TNK_MAX_DIMS  16         /* n <= 16 (so 2n rotations fit a byte) */
#define SN_TNK_MAX_NODES (1u << 22) /* the framework keeps about 20 bytes per node */
#define SN_TNK_NONE      UINT32_MAX

typedef struct sn_tnk_s {
    uint32_t n, k, N;                 /* MT_{n,k}, N = k^n */
    uint32_t pw[SN_TNK_MAX_DIMS + 1]; /* k^i */
    uint32_t L;                       /* splitting modulus: lcm of 2n/P over nonzero nodes */
    uint8_t *D, *P;                   /* [N] displacement and period of every node */
    uint32_t *gen;                    /* [N] the generator of the node's necklace */
    uint32_t *dist;                   /* [N] distance from 0^n */
    uint32_t *parent0;                /* [N] tree-0 parent of a generator != 0, else SN_TNK_NONE */
    uint32_t *bst_parent;             /* [N] BST parent (repaired for even k), SN_TNK_NONE at 0 */
    uint32_t ngen;                    /* generators != 0^n: the necklaces minus one */
    uint32_t *table;                  /* [ngen] by decreasing distance, ties by node id */
    uint32_t *dfs;                    /* [ngen] tree-0 pre-order, children by increasing id */
    uint32_t nfull;                   /* full necklaces (period 2n) */
    uint32_t norphans;                /* BST nodes whose literal parent had another displacement */
} sn_tnk_t;

/* Necklace counts, from the labels (sn__tnk_new) or from the closed form (sn__tnk_counts). */
typedef struct sn_tnk_counts_s {
    uint64_t necklaces; /* all necklaces, including (0^n) */
    uint64_t nonfull;   /* nodes in nonfull necklaces (period < 2n), 0^n included */
    uint64_t full;      /* full necklaces: the smallest BST root subtree */
    uint64_t L;         /* the splitting modulus */
} sn_tnk_counts_t;

/* 0 when t is torus:KxK...xK (n >= 1 equal sides K >= 3) or ring:K (K >= 3) with at most
 * SN_TNK_MAX_NODES nodes, with *n and *k; SN_ENOTSUP (SN_ERANGE when too large) naming what `who`
 * needs otherwise. err may be NULL. */
int sn__tnk_get(const sn_topo_t *t, uint32_t *n, uint32_t *k, const char *who, sn_err_t *err);

/* The framework of MT_{n,k}: every node's necklace data, tree 0, the BST and the tables.
 * NULL with err set (SN_ERANGE: too large; SN_EALGO: a structure the proofs promise is missing). */
sn_tnk_t *sn__tnk_new(uint32_t n, uint32_t k, sn_err_t *err);
void sn__tnk_free(sn_tnk_t *tk);

/* The framework of topology t for algorithm `who`: sn__tnk_get, then sn__tnk_new. 0 and *out
 * (free with sn__tnk_free), sn__tnk_get's refusal, or SN_EALGO with err set when the framework
 * cannot be built. err may be NULL. */
int sn__tnk_for(const sn_topo_t *t, const char *who, sn_tnk_t **out, sn_err_t *err);

/* The closed form (Burnside's lemma on R, Moebius inversion over the divisors of 2n). */
sn_tnk_counts_t sn__tnk_counts(uint32_t n, uint32_t k);

/* The same counts read off the framework's labels. */
sn_tnk_counts_t sn__tnk_counts_of(const sn_tnk_t *tk);

/* Digit i of v. */
static inline uint32_t sn__tnk_digit(const sn_tnk_t *tk, uint32_t v, uint32_t i)
{
    return (v / tk->pw[i]) % tk->k;
}

/* T_s(v) (add = 1) or T_s^{-1}(v) (add = 0), digit-wise mod k (Def. 1). */
uint32_t sn__tnk_trans(const sn_tnk_t *tk, uint32_t s, uint32_t v, int add);

/* R^i(v), i taken mod 2n (Def. 2): R^i(v)_j = (-1)^floor((j+i)/n) v_{(j+i) mod n}. */
uint32_t sn__tnk_rot(const sn_tnk_t *tk, uint32_t v, uint32_t i);

/* The port at a towards its neighbour b (a and b adjacent), or SN_TNK_NONE. */
uint32_t sn__tnk_port(const sn_tnk_t *tk, uint32_t a, uint32_t b);

/* Frame 0, tree i of the BSG (0 <= i < 2n): 1 when w lies in it (D(w) = i mod P(w)); its parent
 * R^i(parent0(R^{-i}(w))) (SN_TNK_NONE at 0 or when w is not in tree i). */
int sn__tnk_in_tree(const sn_tnk_t *tk, uint32_t w, uint32_t i);
uint32_t sn__tnk_tree_parent(const sn_tnk_t *tk, uint32_t w, uint32_t i);

/* Frame 0, tree i: the next node from w towards x on the tree-i path from 0^n to x (w on that
 * path, w != x): in the frame R^{-i}, the highest differing digit moves one step, +1 when
 * 2 x_q < k, else -1 (section 3.1, the root-to-g path). */
uint32_t sn__tnk_next_hop(const sn_tnk_t *tk, uint32_t w, uint32_t x, uint32_t i);

/* m(v): the messages of one group that one edge into a necklace of period P carries,
 * ceil(M P / 2n) (exactly M P / 2n when L | M, M for full necklaces). */
static inline uint32_t sn__tnk_share(const sn_tnk_t *tk, uint32_t v, uint32_t M)
{
    uint32_t P = tk->P[v], two_n = 2 * tk->n;
    return (uint32_t) (((uint64_t) M * P + two_n - 1) / two_n);
}

/* The message index that tree (or port) i carries in slot r of an edge into v: subgroup
 * floor(i / P(v)) of size m = share, so (i / P) m + r; M means none (a padding slot). */
static inline uint32_t sn__tnk_index(const sn_tnk_t *tk, uint32_t v, uint32_t i, uint32_t r,
                                     uint32_t M)
{
    uint32_t m = sn__tnk_share(tk, v, M);
    uint64_t x = (uint64_t) (i / tk->P[v]) * m + r;
    return x < M ? (uint32_t) x : M;
}

#endif
