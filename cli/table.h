/* The cases of `stepnet table` (cli): how each paper's count is computed (formula_t) and
 * the case list itself (table_cases.c), shared by the command (cli_cmd_table.c). */
#ifndef STEPNET_CLI_TABLE_H
#define STEPNET_CLI_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* How the paper's count is computed from the case. */
typedef enum {
    F_ECC,         /* multiport broadcast = e(root) (thesis 3.1) */
    F_LOG_D,       /* hypercube broadcast = d (3.2) */
    F_N_1,         /* single-port scatter = n-1 (Theorem 3.6) */
    F_SCATTER_DEG, /* ceil((n-1)/deg) (Theorem 3.8) */
    F_TORUS_SCAT,  /* ceil((nm-1)/4) (section 3.4.2) */
    F_LINEAR_TE,   /* ceil((n^2-1)/4) (Theorem 4.3) */
    F_RING_TE,     /* ceil((n^2-1)/8) (Theorems 4.5, 4.6) */
    F_STATUS,      /* s_G (Theorem 4.11) */
    F_A2_TORUS,    /* a ceil((b^2-1)/4) + b ceil((a^2-1)/4) (Theorem 5.3 with 4.11) */
    F_A3_MESH,     /* n ceil((n^2-1)/4) (Theorem 5.6 with 4.3) */
    F_A3_TORUS,    /* n ceil((n^2-1)/8) (Theorem 5.6 with 4.5/4.6) */
    F_A3_COMPLETE, /* m (Theorem 5.6, K_m x K_m) */
    F_THM33,       /* the single-port broadcast bound of Theorem 3.3, met by a schedule */
    /* fat trees, thesis chapter 6 (k = arity, h = height, n = k^h leaves) */
    F_FT_BCAST_SP,     /* (k+1) h - 1 (Theorem 6.1) */
    F_FT_BCAST_MP,     /* 2h (section 6.3.1; Table 6.2 prints 2h - 1) */
    F_FT_SCATTER,      /* n (k >= 3), n + 1 (k = 2) (Theorem 6.2) */
    F_FT_MNB_SP,       /* kn + (k+1)(h-2) + 1 (Theorems 6.3, 6.5) */
    F_FT_MNB_MP,       /* n (k >= 3), n + 1 (k = 2) (Theorem 6.9) */
    F_FT_QF_SERIAL,    /* n + h^2 - 1 ((6.3)) */
    F_FT_QF,           /* n + 2h - 2 (section 6.3.2.2) */
    F_FT_TE_SP,        /* max_l X_l + 2l - 1 (Theorem 6.6, corrected for k >= 3) */
    F_FT_TE_MP_SERIAL, /* sum_i ceil((k-1) k^(2i-2) / c_i) + h^2 (effective capacities) */
    F_FT_TE_MP,        /* (6.5): sum_i ceil((k-1) k^(2i-2) / c_i) + 2h - 1 (effective) */
    F_FQ_DIAM,         /* folded cube SNB/SNA: ceil(d/2) (Varvarigos, Fig. 1) */
    F_FQ_MNB,          /* folded cube MNB: d + sum_k ceil(ceil(N/(d+1))/2^k) (section 3) */
    F_FQ_TE,           /* folded cube TE: eq. (7) rounded up (section 4) */
    F_HC_TE,           /* multiport hypercube TE: 2^(d-1) per packet (Bertsekas et al. 1991) */
    /* Varvarigos and Bertsekas, d-dimensional meshes: the exact slot counts of the fixed
     * schedules (prefix control slots + packing + broadcast, in fragment slots) */
    F_VB_SPLIT,   /* Theorem 6: 2d(p-1) + d(p-1) g k + (p-1) sum_l ceil(M/p^l) k */
    F_VB_NOSPLIT, /* section 3.2: 4d(p-1) + d(p-1) k + R sum_l ceil(ceil(M/d)/p^l) k */
    F_VB_A0,      /* Lemma 2: 2d(p-1) + d(p-1) g k + (p-1) sum_l ceil(M/p^l) k */
    F_VB_MNB,     /* section 3.2 with M = N, no prefix */
    /* Fragopoulou and Akl, torus framework, Table 1 (M = msgs, L | M; SNB corrected) */
    F_FA_SNB, /* M + n floor(k/2) - 1 (Table 1 prints + 1) */
    F_FA_MNB, /* M (k^n - 1) / 2n: MNB and SNS */
    F_FA_MNS, /* M k^(n+1) / 8 (k even), M (k^2 - 1) k^(n-1) / 8 (k odd) */
    /* Varvarigos, folded-cube paper: the PMNB of eq. (4) with its prefixes (after F_VB_*: the
     * time units go in the note too) */
    F_FQ_PMNB, /* 4d control + d + sum_k ceil(ceil(M/(d+1))/2^k) packet slots */
    /* allreduce and barrier as accumulation then broadcast over one tree (Bertsekas and
     * Tsitsiklis, section 1.3), multiport, vertex-transitive graphs */
    F_ALLRED_2E, /* 2 e(v) */
    /* idempotent allreduce and barrier by flooding, multiport, any graph: the diameter bound */
    F_DIAM_PROCS, /* D, the diameter between processors */
    /* allreduce by dimension on a product of complete graphs: recursive doubling's count */
    F_PRODUCT_DIMS, /* M + d - 1, d the factors of two nodes or more */
    /* large messages: the counting bounds the bandwidth-optimal schedules meet (P processors, E
     * undirected links, M = msgs x frags) */
    F_COUNT_ALLRED, /* allreduce: ceil((P-1) M / E) multiport, ceil(2 (P-1) M / P) single-port */
    F_COUNT_RS,     /* reduce_scatter: ceil(P (P-1) M / 2E) multiport, (P-1) M single-port */
    /* large messages on hypercubes: d edge-disjoint spanning binomial trees, packets dealt round
     * robin (Johnsson and Ho 1989); the reduce is its time reversal */
    F_JH_BCAST, /* ceil(M/d) + d */
    /* single-port broadcast of M packets: the root sends one packet a slot, the last then needs a
     * one-packet broadcast; Bar-Noy and Kipnis 1994 reach M + ceil(log2 n) on complete graphs */
    F_SP_PIPE, /* M - 1 + ceil(log2 n) */
} formula_t;

typedef struct {
    const char *section; /* where in the thesis */
    const char *topo;
    const char *coll;
    const char *ports; /* "multi", "single" or "single, rx any" */
    formula_t f;
    const char *formula; /* as printed in the table */
    int quick;           /* in the quick set */
    const char *algo;    /* the thesis's algorithm for this case (auto if not registered) */
    const char *sources; /* partial collectives: the sources, as --sources takes them */
    uint32_t frags;      /* fragments per packet (0: 1) */
    uint32_t msgs;       /* --msgs (0 = 1) */
    const char *op;      /* --op of the combining collectives (NULL: the default, sn_op_default) */
} case_t;

/* Every case of the table, in print order, and their number. */
extern const case_t table_cases[];
extern const size_t table_ncases;

#endif
