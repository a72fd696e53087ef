/* The case list of `stepnet table` (cli): every reproduced theorem and table at a few
 * sizes, as data; cli_cmd_table.c computes and prints the rows. */
#include "cli/table.h"

#define FQ_MNB_TEXT "d + sum_k ceil(ceil(N/(d+1))/2^k) <= ceil(N/(d+1)) + 2d - 1"
#define FQ_TE_TEXT  "2^(d-1) - C(d,ceil(d/2))/2"
#define FQ_TE_HALF  "2^(d-1) - C(d,ceil(d/2))/2, not an integer: rounded up (erratum)"

/* the folded-cube PMNB rows */
#define FQ_PMNB_TEXT "4d + d + sum_k ceil(ceil(M/(d+1))/2^k) <= 4d + ceil(M/(d+1)) + 2d - 1"

/* Fragopoulou and Akl, torus framework, Table 1 for one torus: SNB at M = 1 (PRINTED: the value
 * the table prints, one too many), then MNB, SNS and MNS at M = L and at M = 2L (L the splitting
 * modulus); Q puts the first four rows in the quick set; MNS is the odd-k or the even-k formula. */
#define FA_ODD  "M(k^2-1)k^(n-1)/8"
#define FA_EVEN "Mk^(n+1)/8"
#define FA_AT(SPEC, Q, M, MNS)                                                                     \
    {"F&A Table 1 MNB",    SPEC, "mnb",     "multi",  F_FA_MNB,                                    \
     "M(k^n-1)/2n, M=" #M, Q,    "mnb-bsg", .msgs = M},                                            \
        {"F&A Table 1 SNS",    SPEC, "scatter",     "multi",  F_FA_MNB,                            \
         "M(k^n-1)/2n, M=" #M, Q,    "scatter-bsg", .msgs = M},                                    \
    {                                                                                              \
        "F&A Table 1 MNS", SPEC, "te", "multi", F_FA_MNS, MNS ", M=" #M, Q, "te-mns", .msgs = M    \
    }
#define FA_ROWS(SPEC, PRINTED, Q, L, L2, MNS)                                                      \
    {"F&A Table 1 SNB",                                                                            \
     SPEC,                                                                                         \
     "bcast",                                                                                      \
     "multi",                                                                                      \
     F_FA_SNB,                                                                                     \
     "M+n floor(k/2)-1, M=1 (printed +1: " #PRINTED ")",                                           \
     Q,                                                                                            \
     "bcast-bst",                                                                                  \
     .msgs = 1},                                                                                   \
        FA_AT(SPEC, Q, L, MNS), FA_AT(SPEC, 0, L2, MNS)

const case_t table_cases[] = {
    {"3.1 multiport broadcast", "ring:9", "bcast", "multi", F_ECC, "e(v) = floor(n/2)", 1},
    {"3.1 multiport broadcast", "torus:5x7", "bcast", "multi", F_ECC, "e(v) = sum floor(n_i/2)", 0},
    {"3.3 E_n^rho broadcast", "ering:14:2", "bcast", "multi", F_ECC, "D = ceil(floor(n/2)/rho)", 1},
    {"3.3 E_n^rho broadcast", "ering:25:3", "bcast", "multi", F_ECC, "D = ceil(floor(n/2)/rho)", 0},
    {"Thm 3.1 product tree", "mesh:3x4x2", "bcast", "multi", F_ECC, "e(v) = sum e_i(v_i)", 1},
    {"Thm 3.1 product tree", "ering:7:2*ring:5", "bcast", "multi", F_ECC, "e(v) = sum e_i(v_i)", 0},
    {"3.2 binomial tree", "hypercube:6", "bcast", "multi", F_LOG_D, "d", 1},
    {"3.2 binomial tree", "hypercube:6", "bcast", "single", F_LOG_D, "d (= Thm 3.3 bound)", 1},
    {"Thm 3.3 bound, single-port", "complete:16", "bcast", "single", F_THM33,
     "Thm 3.3 bound (ceil(log2 n) here)", 1},
    {"Thm 3.3 bound, single-port", "complete:4", "bcast", "single", F_THM33,
     "Thm 3.3 bound (the remark after it says >= 3: erratum)", 0},
    {"Thm 3.3 bound, single-port", "torus:5x5", "bcast", "single", F_THM33, "Thm 3.3 bound", 0},
    {"Thm 3.3 bound, single-port", "ccc:3", "bcast", "single", F_THM33, "Thm 3.3 bound", 0},
    {"Thm 3.6 scatter", "torus:4x5", "scatter", "single", F_N_1, "n - 1", 1},
    {"Thm 3.6 scatter", "hypercube:5", "scatter", "single", F_N_1, "n - 1", 0},
    {"Thm 3.8 E_n^rho scatter", "ering:14:2", "scatter", "multi", F_SCATTER_DEG, "ceil((n-1)/deg)",
     1},
    {"Thm 3.8 E_n^rho scatter", "ering:11:4", "scatter", "multi", F_SCATTER_DEG, "ceil((n-1)/deg)",
     0},
    {"Thm 3.6 gather (reversed)", "torus:4x5", "gather", "single", F_N_1, "n - 1", 0},
    {"Thm 3.8 E_n^rho gather", "ering:14:2", "gather", "multi", F_SCATTER_DEG, "ceil((n-1)/deg)",
     1},
    {"3.4.2 torus scatter", "torus:7x7", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 1},
    {"3.4.2 torus scatter", "torus:6x5", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 0},
    {"3.4.2 torus scatter", "torus:5x6", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 0},
    {"3.4.2 torus scatter", "torus:6x6", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 0},
    {"3.4.2 torus scatter", "torus:4x4", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 0},
    {"3.4.2 torus scatter", "torus:8x4", "scatter", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 0},
    {"3.4.2 torus gather", "torus:6x5", "gather", "multi", F_TORUS_SCAT, "ceil((nm-1)/4)", 1},
    {"Thm 4.3 linear array TE", "linear:6", "te", "multi", F_LINEAR_TE, "ceil((n^2-1)/4)", 1},
    {"Thm 4.3 linear array TE", "linear:15", "te", "multi", F_LINEAR_TE, "ceil((n^2-1)/4)", 0},
    {"Thm 4.5 odd ring TE", "ring:7", "te", "multi", F_RING_TE, "(n^2-1)/8", 1},
    {"Thm 4.5 odd ring TE", "ring:15", "te", "multi", F_RING_TE, "(n^2-1)/8", 0},
    {"Thm 4.6 even ring TE", "ring:8", "te", "multi", F_RING_TE, "ceil((n^2-1)/8)", 1},
    {"Thm 4.6 even ring TE", "ring:10", "te", "multi", F_RING_TE, "ceil((n^2-1)/8)", 0},
    {"Thm 4.11 Cayley TE", "ring:9", "te", "single", F_STATUS, "s_R = ceil((n^2-1)/4)", 1},
    {"Thm 4.11 Cayley TE", "hypercube:5", "te", "single", F_STATUS, "s_Q = d 2^(d-1)", 1},
    {"Thm 4.11 Cayley TE", "ering:14:2", "te", "single", F_STATUS, "(q+1)(rho q+p) (4.13)", 0},
    {"Thm 4.11 Cayley TE", "complete:8", "te", "single", F_STATUS, "n - 1 (4.11)", 0},
    {"Thm 4.11 Cayley TE", "circulant:10:1,3", "te", "single", F_STATUS, "s_G", 0},
    {"Thm 4.11 Cayley TE", "ccc:3", "te", "single", F_STATUS, "s_G", 0},
    {"Thm 4.11 Cayley TE", "butterfly:3", "te", "single", F_STATUS, "s_G", 0},
    {"Thm 4.11 Cayley TE", "star:4", "te", "single", F_STATUS, "s_G", 0},
    {"Thm 4.11 Cayley TE", "foldedcube:4", "te", "single", F_STATUS, "s_G", 0},
    {"Thm 4.11 + 5.1 Cayley product", "torus:4x4", "te", "single", F_STATUS,
     "s = n_2 s_1 + n_1 s_2 (Thm 5.1)", 0},
    {"Thm 4.11 + 5.1 Cayley product", "ring:5*complete:3", "te", "single", F_STATUS,
     "s = n_2 s_1 + n_1 s_2 (Thm 5.1)", 0},
    {"Thm 5.3 A2 on products", "torus:3x4", "te", "single", F_A2_TORUS,
     "a ceil((b^2-1)/4) + b ceil((a^2-1)/4)", 1},
    {"Thm 5.3 A2 on products", "torus:5x6", "te", "single", F_A2_TORUS,
     "a ceil((b^2-1)/4) + b ceil((a^2-1)/4)", 0},
    {"Thm 5.6 A3 on H x H", "mesh:3x3", "te", "multi", F_A3_MESH, "n ceil((n^2-1)/4)", 1},
    {"Thm 5.6 A3 on H x H", "mesh:6x6", "te", "multi", F_A3_MESH, "n ceil((n^2-1)/4)", 0},
    {"Thm 5.6 A3 on H x H", "torus:5x5", "te", "multi", F_A3_TORUS, "n ceil((n^2-1)/8)", 1},
    {"Thm 5.6 A3 on H x H", "torus:8x8", "te", "multi", F_A3_TORUS, "n ceil((n^2-1)/8)", 0},
    {"Thm 5.6 A3 on H x H", "torus:6x6", "te", "multi", F_A3_TORUS, "n ceil((n^2-1)/8)", 0},
    {"Thm 5.6 A3 on H x H", "complete:5*complete:5", "te", "multi", F_A3_COMPLETE, "m", 0},
    {"Cor 5.7 A3 on H^4", "torus:4x4x4x4", "te", "multi", F_A3_TORUS, "n^3 ceil((n^2-1)/8)", 0},
    {"Cor 5.7 A3 on H^4", "mesh:3x3x3x3", "te", "multi", F_A3_MESH, "n^3 ceil((n^2-1)/4)", 0},
    {"Cor 5.7 A3 on H^4", "complete:2*complete:2*complete:2*complete:2", "te", "multi",
     F_A3_COMPLETE, "m^3 (Q_4)", 0},
/* Fat trees (thesis chapter 6, Tables 6.1 and 6.2 with their errata): single-port means every
 * node, router or leaf, sends one message per step and receives from all neighbours (rx any). */
#define FT_SP(K, H, Q)                                                                             \
    {"6.2 Thm 6.1 fat-tree bcast",                                                                 \
     "fattree:" #K ":" #H,                                                                         \
     "bcast",                                                                                      \
     "single",                                                                                     \
     F_FT_BCAST_SP,                                                                                \
     "(k+1) log_k n - 1",                                                                          \
     Q,                                                                                            \
     "bcast-fattree"},                                                                             \
        {"6.2 Thm 6.2 fat-tree scatter",                                                           \
         "fattree:" #K ":" #H,                                                                     \
         "scatter",                                                                                \
         "single",                                                                                 \
         F_FT_SCATTER,                                                                             \
         "n (k >= 3), n+1 (k = 2)",                                                                \
         Q,                                                                                        \
         "scatter-fattree"},                                                                       \
        {"6.2 Thm 6.2 fat-tree gather",                                                            \
         "fattree:" #K ":" #H,                                                                     \
         "gather",                                                                                 \
         "single",                                                                                 \
         F_FT_SCATTER,                                                                             \
         "n (k >= 3), n+1 (k = 2)",                                                                \
         0,                                                                                        \
         "gather-fattree"},                                                                        \
        {"6.2 Thm 6.5 fat-tree MB",                                                                \
         "fattree:" #K ":" #H,                                                                     \
         "mnb",                                                                                    \
         "single, rx any",                                                                         \
         F_FT_MNB_SP,                                                                              \
         "k n + (k+1)(log_k n - 2) + 1",                                                           \
         Q,                                                                                        \
         "mnb-fattree"},                                                                           \
    {                                                                                              \
        "6.2 Thm 6.8 fat-tree TE", "fattree:" #K ":" #H, "te", "single, rx any", F_FT_TE_SP,       \
            "max_l X_l + 2l - 1 (printed: n^2 (2k+1)(k-1)/k^3 + 2 log_k n - 3)", Q, "te-fattree"   \
    }
#define FT_MP(K, H, Q)                                                                             \
    {"6.3.1 fat-tree bcast",                                                                       \
     "fattree:" #K ":" #H,                                                                         \
     "bcast",                                                                                      \
     "multi",                                                                                      \
     F_FT_BCAST_MP,                                                                                \
     "2 log_k n (Table 6.2 prints 2 log_k n - 1)",                                                 \
     Q,                                                                                            \
     "bcast-fattree"},                                                                             \
        {"6.3 fat-tree scatter", "fattree:" #K ":" #H,      "scatter", "multi",                    \
         F_FT_SCATTER,           "n (k >= 3), n+1 (k = 2)", 0,         "scatter-fattree"},         \
        {"6.3 fat-tree gather", "fattree:" #K ":" #H,      "gather", "multi",                      \
         F_FT_SCATTER,          "n (k >= 3), n+1 (k = 2)", 0,        "gather-fattree"},            \
        {"6.3.2 Thm 6.9 fat-tree MB flooding",                                                     \
         "fattree:" #K ":" #H,                                                                     \
         "mnb",                                                                                    \
         "multi",                                                                                  \
         F_FT_MNB_MP,                                                                              \
         "n (k >= 3), n+1 (k = 2)",                                                                \
         Q,                                                                                        \
         "mnb-fattree"},                                                                           \
        {"6.3.2 Fig 6.10 fat-tree MB queue-free serial",                                           \
         "fattree:" #K ":" #H,                                                                     \
         "mnb",                                                                                    \
         "multi",                                                                                  \
         F_FT_QF_SERIAL,                                                                           \
         "n + (log_k n)^2 - 1 (6.3)",                                                              \
         0,                                                                                        \
         "mnb-fattree-qf-serial"},                                                                 \
        {"6.3.2 Fig 6.10 fat-tree MB queue-free",                                                  \
         "fattree:" #K ":" #H,                                                                     \
         "mnb",                                                                                    \
         "multi",                                                                                  \
         F_FT_QF,                                                                                  \
         "n + 2 log_k n - 2",                                                                      \
         Q,                                                                                        \
         "mnb-fattree-qf"},                                                                        \
        {"6.3.3 Fig 6.11 fat-tree TE serial",                                                      \
         "fattree:" #K ":" #H ":const",                                                            \
         "te",                                                                                     \
         "multi",                                                                                  \
         F_FT_TE_MP_SERIAL,                                                                        \
         "sum_i ceil((k-1)k^(2i-2)/c_i) + h^2",                                                    \
         0,                                                                                        \
         "te-fattree-serial"},                                                                     \
        {"6.3.3 Fig 6.11 fat-tree TE (6.5)",                                                       \
         "fattree:" #K ":" #H ":const",                                                            \
         "te",                                                                                     \
         "multi",                                                                                  \
         F_FT_TE_MP,                                                                               \
         "sum_i ceil((k-1)k^(2i-2)/c_i) + 2 log_k n - 1",                                          \
         Q,                                                                                        \
         "te-fattree"},                                                                            \
        {"6.3.3 Fig 6.11 fat-tree TE serial",                                                      \
         "fattree:" #K ":" #H ":exp",                                                              \
         "te",                                                                                     \
         "multi",                                                                                  \
         F_FT_TE_MP_SERIAL,                                                                        \
         "sum_i ceil((k-1)k^(2i-2)/c_i) + h^2",                                                    \
         0,                                                                                        \
         "te-fattree-serial"},                                                                     \
    {                                                                                              \
        "6.3.3 Fig 6.11 fat-tree TE (6.5)", "fattree:" #K ":" #H ":exp", "te", "multi",            \
            F_FT_TE_MP, "n + 2 log_k n - 2 (c_i = k^(i-1))", Q, "te-fattree"                       \
    }
#define FT_TE_CAPS(SPEC)                                                                           \
    {"6.3.3 Fig 6.11 fat-tree TE serial",                                                          \
     SPEC,                                                                                         \
     "te",                                                                                         \
     "multi",                                                                                      \
     F_FT_TE_MP_SERIAL,                                                                            \
     "sum_i ceil((k-1)k^(2i-2)/c_i) + h^2 (effective c_i)",                                        \
     0,                                                                                            \
     "te-fattree-serial"},                                                                         \
    {                                                                                              \
        "6.3.3 Fig 6.11 fat-tree TE (6.5)", SPEC, "te", "multi", F_FT_TE_MP,                       \
            "(6.5) with effective c_i", 0, "te-fattree"                                            \
    }
    FT_SP(2, 2, 0),
    FT_SP(2, 3, 1),
    FT_SP(2, 4, 0),
    FT_SP(2, 5, 0),
    FT_SP(2, 6, 0),
    FT_SP(3, 2, 1),
    FT_SP(3, 3, 0),
    FT_SP(3, 4, 0),
    FT_SP(4, 2, 0),
    FT_SP(4, 3, 0),
    FT_SP(8, 2, 0),
    FT_MP(2, 2, 0),
    FT_MP(2, 3, 1),
    FT_MP(2, 4, 0),
    FT_MP(2, 5, 0),
    FT_MP(2, 6, 0),
    FT_MP(3, 2, 1),
    FT_MP(3, 3, 0),
    FT_MP(3, 4, 0),
    FT_MP(4, 2, 0),
    FT_MP(4, 3, 0),
    FT_MP(8, 2, 0),
    FT_TE_CAPS("fattree:2:3:1,1,2"),
    FT_TE_CAPS("fattree:2:4:1,1,2,2"),
    FT_TE_CAPS("fattree:2:5:1,1,2,2,4"),
    FT_TE_CAPS("fattree:2:6:1,1,2,2,4,4"),
    FT_TE_CAPS("fattree:3:3:1,1,3"),
    FT_TE_CAPS("fattree:4:3:1,1,4"),
    FT_TE_CAPS("fattree:2:3:1,1,4"),
#undef FT_SP
#undef FT_MP
#undef FT_TE_CAPS
    /* Varvarigos, folded-cube paper: the all-port folded cube FQ_d, d = 3..10 */
    {"FQ SNB (Fig. 1)", "foldedcube:3", "bcast", "multi", F_FQ_DIAM, "ceil(d/2)", 1},
    {"FQ SNB (Fig. 1)", "foldedcube:8", "bcast", "multi", F_FQ_DIAM, "ceil(d/2)", 0},
    {"FQ SNA (Fig. 1)", "foldedcube:5", "sna", "multi", F_FQ_DIAM, "ceil(d/2)", 1},
    {"FQ SNA (Fig. 1)", "foldedcube:10", "sna", "multi", F_FQ_DIAM, "ceil(d/2)", 0},
    /* the MPI staples: allreduce and barrier (Bertsekas and Tsitsiklis, section 1.3) */
    {"B&T 1.3 allreduce, recursive doubling", "hypercube:6", "allreduce", "multi", F_LOG_D, "d", 1,
     "allreduce-rd"},
    {"B&T 1.3 allreduce, recursive doubling", "hypercube:6", "allreduce", "single", F_LOG_D,
     "d = ceil(log2 n), the doubling bound", 1, "allreduce-rd"},
    {"B&T 1.3 barrier, recursive doubling", "hypercube:5", "barrier", "single", F_LOG_D, "d", 0,
     "barrier-rd"},
    {"B&T 1.3 allreduce, tree", "ring:9", "allreduce", "multi", F_ALLRED_2E, "2 e(v)", 1},
    {"B&T 1.3 allreduce, tree", "torus:5x7", "allreduce", "multi", F_ALLRED_2E, "2 e(v)", 0},
    {"B&T 1.3 barrier, tree", "torus:5x7", "barrier", "multi", F_ALLRED_2E, "2 e(v)", 0},
    /* idempotent combining (max) by flooding: the diameter bound on any graph (Hedetniemi,
     * Hedetniemi and Liestman 1988); sum by dimension on products of complete graphs, recursive
     * doubling with a complete exchange per dimension (Bertsekas and Tsitsiklis, section 1.3) */
    {"HHL flooding, barrier (max)", "ring:7", "barrier", "multi", F_DIAM_PROCS, "D", 1,
     .op = "max"},
    /* no --op: the barrier's default operator (max) floods, D where the tree row above takes 2h */
    {"HHL flooding, barrier (default op)", "torus:5x7", "barrier", "multi", F_DIAM_PROCS, "D", 0},
    {"HHL flooding, allreduce (min)", "ccc:3", "allreduce", "multi", F_DIAM_PROCS, "D", 0,
     .op = "min"},
    {"HHL flooding, allreduce (max)", "mesh:5x7", "allreduce", "multi", F_DIAM_PROCS, "D", 0,
     .op = "max"},
    {"HHL flooding, allreduce (max)", "fattree:4:2", "allreduce", "multi", F_DIAM_PROCS,
     "D between processors", 0, .op = "max"},
    {"Doubling by dimension, allreduce", "torus:3x3", "allreduce", "multi", F_PRODUCT_DIMS,
     "d, K3 x K3", 1},
    {"Doubling by dimension, allreduce", "torus:3x3x3", "allreduce", "multi", F_PRODUCT_DIMS,
     "M + d - 1, M=4", 0, .msgs = 4},
    {"Doubling by dimension, barrier", "complete:5*complete:3", "barrier", "multi", F_PRODUCT_DIMS,
     "d", 0},
    {"FQ MNB (sec. 3)", "foldedcube:3", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 1},
    {"FQ MNB (sec. 3)", "foldedcube:4", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:5", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:6", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:7", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:8", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:9", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ MNB (sec. 3)", "foldedcube:10", "mnb", "multi", F_FQ_MNB, FQ_MNB_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:3", "te", "multi", F_FQ_TE, FQ_TE_HALF, 1},
    {"FQ TE eq. (7)", "foldedcube:4", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:5", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:6", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:7", "te", "multi", F_FQ_TE, FQ_TE_HALF, 0},
    {"FQ TE eq. (7)", "foldedcube:8", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:9", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:10", "te", "multi", F_FQ_TE, FQ_TE_TEXT, 0},
    {"FQ TE eq. (7)", "foldedcube:3", "te", "multi", F_FQ_TE, "M x (7), rounded up once, M=2", 0,
     NULL, NULL, 0, 2},
    {"FQ TE eq. (7)", "foldedcube:7", "te", "multi", F_FQ_TE, "M x (7), rounded up once, M=2", 0,
     NULL, NULL, 0, 2},
    /* Bertsekas, Ozveren, Stamoulis, Tseng and Tsitsiklis: the optimal multiport total exchange
     * on Q_d, every d (te-a3 reaches it only for d a power of two) */
    {"BOSTT hypercube TE", "hypercube:5", "te", "multi", F_HC_TE, "2^(d-1)", 1, "te-hypercube"},
    {"BOSTT hypercube TE", "hypercube:9", "te", "multi", F_HC_TE, "2^(d-1)", 0, "te-hypercube"},
    {"BOSTT hypercube TE", "hypercube:10", "te", "multi", F_HC_TE, "2^(d-1)", 0, "te-hypercube"},
    /* Varvarigos and Bertsekas, d-dimensional meshes: Table A rows, the worked example and the
     * multinode broadcast of section 3.2 (time units in the note) */
    {"VB Thm 6 PMNB, split", "torus:4x4", "pmnb", "multi", F_VB_SPLIT, "exact schedule", 1, NULL,
     "0-15", 4},
    {"VB Thm 6 PMNB, split", "torus:8x8", "pmnb", "multi", F_VB_SPLIT, "exact schedule", 0, NULL,
     "0-31", 4},
    {"VB Thm 6 PMNB, split", "torus:4x4x4", "pmnb", "multi", F_VB_SPLIT, "exact schedule", 0, NULL,
     "0-31", 6},
    {"VB Thm 6 PMNB, split", "mesh:8x8", "pmnb", "multi", F_VB_SPLIT, "exact schedule", 0, NULL,
     "0-63", 2},
    {"VB Thm 6 PMNB, split", "mesh:4x4x4", "pmnb", "multi", F_VB_SPLIT, "exact schedule", 0, NULL,
     "0-15", 3},
    {"VB (5b)/(6b) PMNB, no split", "torus:4x4", "pmnb", "multi", F_VB_NOSPLIT, "exact schedule", 0,
     NULL, "0-15", 1},
    {"VB (5b)/(6b) PMNB, no split", "torus:8x8", "pmnb", "multi", F_VB_NOSPLIT, "exact schedule", 1,
     NULL, "0-31", 1},
    {"VB (5b)/(6b) PMNB, no split", "torus:4x4x4", "pmnb", "multi", F_VB_NOSPLIT, "exact schedule",
     0, NULL, "0-63", 1},
    {"VB (5b)/(6b) PMNB, no split", "mesh:8x8", "pmnb", "multi", F_VB_NOSPLIT, "exact schedule", 0,
     NULL, "0-63", 1},
    {"VB Lemma 2 A_0", "mesh:3x3", "pmnb", "multi", F_VB_A0, "worked example, exact", 1, NULL,
     "1,3,4,8", 1},
    {"VB Lemma 2 A_0", "torus:8x8", "pmnb", "multi", F_VB_A0, "exact schedule", 0, NULL, "0-15", 2},
    {"VB 3.2 MNB (M = N)", "torus:4x4", "mnb", "multi", F_VB_MNB, "exact schedule", 1, NULL, NULL,
     1},
    {"VB 3.2 MNB (M = N)", "torus:8x8", "mnb", "multi", F_VB_MNB, "exact schedule", 0, NULL, NULL,
     1},
    {"VB 3.2 MNB (M = N)", "mesh:8x8", "mnb", "multi", F_VB_MNB, "exact schedule", 0, NULL, NULL,
     1},
    {"VB 3.2 MNB (M = N)", "torus:4x4x4", "mnb", "multi", F_VB_MNB, "exact schedule", 0, NULL, NULL,
     1},
    /* Fragopoulou and Akl, torus framework, Table 1 at M = 1 (SNB), L and 2L (L the splitting
     * modulus), n = 1..3, k = 3..8: the corrected count; SNB's printed value in the formula */
    FA_ROWS("torus:3", 3, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:4", 4, 0, 2, 4, FA_EVEN),
    FA_ROWS("torus:5", 4, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:6", 5, 0, 2, 4, FA_EVEN),
    FA_ROWS("torus:7", 5, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:8", 6, 0, 2, 4, FA_EVEN),
    FA_ROWS("torus:3x3", 4, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:4x4", 6, 1, 4, 8, FA_EVEN),
    FA_ROWS("torus:5x5", 6, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:6x6", 8, 0, 4, 8, FA_EVEN),
    FA_ROWS("torus:7x7", 8, 0, 1, 2, FA_ODD),
    FA_ROWS("torus:8x8", 10, 0, 4, 8, FA_EVEN),
    FA_ROWS("torus:3x3x3", 5, 1, 3, 6, FA_ODD),
    FA_ROWS("torus:4x4x4", 8, 0, 6, 12, FA_EVEN),
    FA_ROWS("torus:5x5x5", 8, 0, 3, 6, FA_ODD),
    FA_ROWS("torus:6x6x6", 11, 0, 6, 12, FA_EVEN),
    FA_ROWS("torus:7x7x7", 11, 0, 3, 6, FA_ODD),
    FA_ROWS("torus:8x8x8", 14, 0, 6, 12, FA_EVEN),
    /* large messages: a reduce_scatter then an allgather, each at the allgather's reception
     * bound, meets the counting bound of allreduce (Thakur, Rabenseifner and Gropp 2005;
     * Patarasuk and Yuan 2009: the bidirectional ring, a Hamiltonian cycle single-port) */
    {"Counting bound, allreduce", "ring:8", "allreduce", "multi", F_COUNT_ALLRED, "(P-1)M/E, M=64",
     1, "allreduce-rsag", .msgs = 64},
    {"Counting bound, allreduce", "hypercube:4", "allreduce", "multi", F_COUNT_ALLRED,
     "ceil((P-1)M/E), M=16", 0, "allreduce-rsag", .msgs = 16},
    {"Counting bound, allreduce", "complete:16", "allreduce", "multi", F_COUNT_ALLRED,
     "(P-1)M/E, M=64", 0, "allreduce-rsag", .msgs = 64},
    {"Counting bound, allreduce", "torus:8x8", "allreduce", "single", F_COUNT_ALLRED,
     "2(P-1)M/P, M=64", 0, "allreduce-rsag", .msgs = 64},
    {"Counting bound, reduce_scatter", "torus:6x6", "mna", "multi", F_COUNT_RS, "P(P-1)M/2E, M=64",
     1, "mna-reverse", .msgs = 64},
    /* large messages on hypercubes: Johnsson and Ho's d edge-disjoint spanning binomial trees,
     * M packets dealt round robin (Johnsson and Ho 1989, "Optimum broadcasting and personalized
     * communication in hypercubes"); the reduce plays the broadcast backwards, combining */
    {"Johnsson-Ho ESBT", "hypercube:4", "bcast", "multi", F_JH_BCAST, "ceil(M/d)+d, M=16", 1,
     "bcast-edst", .msgs = 16},
    {"Johnsson-Ho ESBT", "hypercube:5", "bcast", "multi", F_JH_BCAST, "ceil(M/d)+d, M=64", 0,
     "bcast-edst", .msgs = 64},
    {"Johnsson-Ho ESBT", "hypercube:6", "bcast", "multi", F_JH_BCAST, "ceil(M/d)+d, M=64", 0,
     "bcast-edst", .msgs = 64},
    {"Johnsson-Ho ESBT, reversed", "hypercube:4", "sna", "multi", F_JH_BCAST, "ceil(M/d)+d, M=16",
     0, "sna-reverse", .msgs = 16},
    /* single-port broadcast of M packets on complete graphs: M - 1 + ceil(log2 n) is a lower
     * bound (the root sends one packet a slot, the last then needs a one-packet broadcast);
     * Bar-Noy and Kipnis 1994 ("Broadcasting multiple messages in simultaneous send/receive
     * systems") reach M + ceil(log2 n), one more; bcast-match meets the bound on these sizes */
    {"Bar-Noy-Kipnis, single-port", "complete:8", "bcast", "single", F_SP_PIPE,
     "M-1+ceil(log2 n), M=16", 1, "bcast-match", .msgs = 16},
    {"Bar-Noy-Kipnis, single-port", "complete:16", "bcast", "single", F_SP_PIPE,
     "M-1+ceil(log2 n), M=64", 0, "bcast-match", .msgs = 64},
    {"Bar-Noy-Kipnis, single-port", "complete:32", "bcast", "single", F_SP_PIPE,
     "M-1+ceil(log2 n), M=64", 0, "bcast-match", .msgs = 64},
    /* Varvarigos, folded-cube paper: PMNB from unknown sources, M = N/2 (one subcube) */
    {"FQ PMNB eq. (4)", "foldedcube:3", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 1, NULL, "0-3"},
    {"FQ PMNB eq. (4)", "foldedcube:4", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 0, NULL, "0-7"},
    {"FQ PMNB eq. (4)", "foldedcube:5", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 0, NULL, "0-15"},
    {"FQ PMNB eq. (4)", "foldedcube:6", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 0, NULL, "0-31"},
    {"FQ PMNB eq. (4)", "foldedcube:7", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 0, NULL, "0-63"},
    {"FQ PMNB eq. (4)", "foldedcube:8", "pmnb", "multi", F_FQ_PMNB, FQ_PMNB_TEXT, 0, NULL, "0-127"},
};

#undef FA_ROWS
#undef FA_AT
#undef FA_ODD
#undef FA_EVEN

const size_t table_ncases = sizeof table_cases / sizeof table_cases[0];
