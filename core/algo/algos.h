/* The algorithm descriptors of core/algo, one per algorithm, by file; core/model/registry.c lists
 * them in the order that breaks auto-selection's ties. */
#ifndef STEPNET_ALGO_ALGOS_H
#define STEPNET_ALGO_ALGOS_H

#include "stepnet/algo.h"

/* combining/accum_tree.c */
extern const sn_algo_t sn__algo_mna_tree;
extern const sn_algo_t sn__algo_pmna_tree;
extern const sn_algo_t sn__algo_sna_tree;
/* combining/allreduce_rd.c */
extern const sn_algo_t sn__algo_allreduce_rd;
extern const sn_algo_t sn__algo_barrier_rd;
/* combining/allreduce_tree.c */
extern const sn_algo_t sn__algo_allreduce_tree;
extern const sn_algo_t sn__algo_barrier_tree;
/* fattree/bcast_fattree.c */
extern const sn_algo_t sn__algo_bcast_fattree;
/* fattree/mnb_fattree.c */
extern const sn_algo_t sn__algo_mnb_fattree;
extern const sn_algo_t sn__algo_mnb_fattree_qf;
extern const sn_algo_t sn__algo_mnb_fattree_qf_serial;
/* fattree/scatter_fattree.c */
extern const sn_algo_t sn__algo_gather_fattree;
extern const sn_algo_t sn__algo_scatter_fattree;
/* fattree/te_fattree.c */
extern const sn_algo_t sn__algo_te_fattree;
extern const sn_algo_t sn__algo_te_fattree_serial;
/* fcube/bcast_fcube.c */
extern const sn_algo_t sn__algo_bcast_fcube;
extern const sn_algo_t sn__algo_sna_fcube;
/* fcube/mnb_fcube.c */
extern const sn_algo_t sn__algo_gather_fcube;
extern const sn_algo_t sn__algo_mnb_a0;
extern const sn_algo_t sn__algo_mnb_fcube;
extern const sn_algo_t sn__algo_scatter_fcube;
/* fcube/pmna_fcube.c */
extern const sn_algo_t sn__algo_pmna_a0;
extern const sn_algo_t sn__algo_pmna_fcube;
/* fcube/pmnb_fcube.c */
extern const sn_algo_t sn__algo_pmnb_fcube;
/* fcube/te_fcube.c */
extern const sn_algo_t sn__algo_te_fcube;
extern const sn_algo_t sn__algo_te_fcube_greedy;
/* fixtures/faulty.c */
extern const sn_algo_t sn__algo_test_double_send;
extern const sn_algo_t sn__algo_test_past_wake;
/* generic/bcast_bfs.c */
extern const sn_algo_t sn__algo_bcast_bfs;
/* generic/bcast_greedy.c */
extern const sn_algo_t sn__algo_bcast_greedy;
/* generic/bcast_tree.c */
extern const sn_algo_t sn__algo_bcast_tree;
/* generic/mnb_balanced.c */
extern const sn_algo_t sn__algo_mnb_balanced;
/* generic/mnb_cayley.c */
extern const sn_algo_t sn__algo_mnb_cayley;
/* generic/mnb_cycle.c */
extern const sn_algo_t sn__algo_mnb_cycle;
/* generic/mnb_gossip.c */
extern const sn_algo_t sn__algo_mnb_gossip;
/* generic/route_ff.c */
extern const sn_algo_t sn__algo_mnb_route;
extern const sn_algo_t sn__algo_pexchange_route;
extern const sn_algo_t sn__algo_pmnb_route;
extern const sn_algo_t sn__algo_te_route;
/* generic/scatter_tree.c */
extern const sn_algo_t sn__algo_gather_balanced;
extern const sn_algo_t sn__algo_gather_ff;
extern const sn_algo_t sn__algo_scatter_balanced;
extern const sn_algo_t sn__algo_scatter_ff;
/* generic/single_timetable.c */
extern const sn_algo_t sn__algo_bcast_match;
extern const sn_algo_t sn__algo_bcast_multitree;
extern const sn_algo_t sn__algo_mnb_match;
/* mesh/pexchange_mesh.c */
extern const sn_algo_t sn__algo_pexchange_mesh;
/* mesh/pmnb_mesh.c */
extern const sn_algo_t sn__algo_mnb_mesh;
extern const sn_algo_t sn__algo_pmnb_mesh_a0;
extern const sn_algo_t sn__algo_pmnb_mesh_nosplit;
extern const sn_algo_t sn__algo_pmnb_mesh_split;
/* thesis/bcast_binomial.c */
extern const sn_algo_t sn__algo_bcast_binomial;
/* thesis/bcast_ering.c */
extern const sn_algo_t sn__algo_bcast_ering;
/* thesis/bcast_product.c */
extern const sn_algo_t sn__algo_bcast_product;
/* thesis/scatter_ering.c */
extern const sn_algo_t sn__algo_gather_ering;
extern const sn_algo_t sn__algo_scatter_ering;
/* thesis/scatter_torus.c */
extern const sn_algo_t sn__algo_gather_torus;
extern const sn_algo_t sn__algo_scatter_torus;
/* thesis/te_a2.c */
extern const sn_algo_t sn__algo_te_a2;
/* thesis/te_a3.c */
extern const sn_algo_t sn__algo_te_a3;
/* thesis/te_cayley.c */
extern const sn_algo_t sn__algo_te_cayley;
/* thesis/te_linear.c */
extern const sn_algo_t sn__algo_te_linear;
/* thesis/te_ring.c */
extern const sn_algo_t sn__algo_te_ring;
/* torus/bcast_bst.c */
extern const sn_algo_t sn__algo_bcast_bst;
/* torus/mnb_bsg.c */
extern const sn_algo_t sn__algo_mnb_bsg;
/* torus/scatter_bsg.c */
extern const sn_algo_t sn__algo_gather_bsg;
extern const sn_algo_t sn__algo_scatter_bsg;
/* torus/te_mns.c */
extern const sn_algo_t sn__algo_te_mns;

#endif
