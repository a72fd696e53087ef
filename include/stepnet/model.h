/* stepnet model: the algorithm registry, lower bounds and auto-selection (core/model).
 *
 * Lower bounds are valid for every algorithm under the given port model; each is reported with its
 * name and source so that a reader can check it. predicted_steps comes from the algorithm
 * (sn_algo_t.predicted). */
#ifndef STEPNET_MODEL_H
#define STEPNET_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/topo.h"

/* ---- registry ----------------------------------------------------------------------------- */

/* All algorithms, in a fixed order (ties in auto-selection go to the earlier one); without the
 * hidden test fixtures, which only sn_model_find knows. */
const sn_algo_t *const *sn_model_algos(size_t *count);

/* The algorithm called `name` (a hidden test fixture too), or NULL. */
const sn_algo_t *sn_model_find(const char *name);

/* "Did you mean": the listed algorithm whose name is a typo away from `name` (sn_suggest), or
 * NULL. */
const char *sn_model_suggest(const char *name);

/* The markdown table of the algorithms that README.md's "Algorithms" section carries (`stepnet
 * algos --markdown`): a header row, then one row per registered algorithm in registry order (name,
 * collective, port models, topologies, steps and source), every line ending in a newline; only
 * those of collective *only when only is not NULL; the parameters the steps refer to (SN_REF_*)
 * named by `name` (NULL: their concepts). A string the caller frees. */
char *sn_model_algos_markdown(const sn_coll_t *only, sn_param_namer_t name);

/* 0 when `a` can run (t, p): right collective, port model in its mask, topology accepted; else
 * SN_ENOTSUP with the reason in err. */
int sn_model_check(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p, sn_err_t *err);

/* The part of sn_model_check that needs no topology: the collective and the port model, so that
 * a front end refuses a named algorithm that cannot run before it builds a large topology. */
int sn_model_check_params(const sn_algo_t *a, const sn_params_t *p, sn_err_t *err);

/* When no applicable algorithm predicts its steps, auto runs each of them dry in the simulator
 * if the collective has at most this many deliveries (a fraction of a second), and takes the
 * fewest steps; SN_MODEL_MAX_OPEN bounds how many such algorithms one collective has. */
#define SN_MODEL_DRY_DELIVERIES (1u << 18)
#define SN_MODEL_MAX_OPEN       8

/* The cost auto ranks by: the time of a run of `steps` slots of which `control_slots` carry
 * control packets only, in time units (a whole packet's slot is 1): the data slots take 1/frags
 * each (a fragment is 1/frags of a packet) and the control slots tp each (docs/model.md,
 * "Fragments and control packets"): (steps - control_slots) / frags + control_slots * tp. */
double sn_model_time_units(const sn_params_t *p, double tp, uint64_t steps, uint64_t control_slots);

/* The control slots among a's prediction for its plan (sn_algo_t.predicted_control; 0 when the
 * algorithm has none or predicts nothing). */
int64_t sn_model_predicted_control(const sn_algo_t *a, const void *plan);

/* sn_model_select_tp's tp that ranks by slots instead of time units: every slot, data or control,
 * costs the same, as over TCP, where a slot is a slot whatever it carries. */
#define SN_MODEL_RANK_SLOTS (-1.0)

/* Picks the algorithm for (t, p): `name` if not NULL and not "auto" (checked with sn_model_check),
 * else the applicable algorithm whose prediction costs least, ties by fewer slots, then registry
 * order. The cost is the time units (sn_model_time_units) with control slots at tp, or the slots
 * when tp is SN_MODEL_RANK_SLOTS. When none predicts (algorithms marked vs_generic not counted),
 * the cheapest among the vs_generic algorithms' predictions and the others' dry runs (cut where
 * they can no longer win) if the collective is small (SN_MODEL_DRY_DELIVERIES); a known count
 * beats an unknown one. Algorithms marked manual are never picked. On success *algo is set and,
 * if plan is not NULL, *plan holds the algorithm's plan (free with algo->plan_free) and
 * *predicted its prediction. SN_ENOTSUP when nothing applies, naming what was tried. */
int sn_model_select_tp(const char *name, const sn_topo_t *t, const sn_params_t *p, double tp,
                       const sn_algo_t **algo, void **plan, int64_t *predicted, sn_err_t *err);

/* sn_model_select_tp ranking by slots (SN_MODEL_RANK_SLOTS). */
int sn_model_select(const char *name, const sn_topo_t *t, const sn_params_t *p,
                    const sn_algo_t **algo, void **plan, int64_t *predicted, sn_err_t *err);

/* The steps of a dry run of `a` (with its plan) on (t, p) in the simulator, or -1 when it does
 * not verify within `cut` slots (cut < 0: within sn_model_slot_limit). Every algorithm is
 * deterministic for given (t, p), so the dry run's steps are the run's. When control_slots is
 * not NULL it receives the run's control slots (0 when it fails). */
int64_t sn_model_dry_run(const sn_algo_t *a, const void *plan, const sn_topo_t *t,
                         const sn_params_t *p, int64_t cut, uint64_t *control_slots);

/* Builds the plan of `a` for (t, p) (free with a->plan_free): a->plan_new, or for composite
 * algorithms the schedules a->plan_inputs asks for, each recorded with sn_sched_record, handed to
 * a->plan_from. 0, or the builder's error; a schedule that cannot be recorded fails with its
 * reason, naming the algorithm, what it needed and where. Does not call sn_model_check. */
int sn_model_plan_new(const sn_algo_t *a, const sn_topo_t *t, const sn_params_t *p, void **plan,
                      sn_err_t *err);

/* ---- lower bounds ------------------------------------------------------------------------ */

#define SN_BOUND_MAX 16

typedef struct sn_bound_s {
    const char *name;   /* stable id, e.g. "cut", "status", "thm3.3" */
    const char *source; /* where it comes from */
    int64_t value;      /* in steps */
    char detail[96];    /* e.g. the cut used */
} sn_bound_t;

typedef struct sn_bounds_s {
    size_t count;
    sn_bound_t b[SN_BOUND_MAX];
    int64_t best; /* max of the values: the lower bound reported */
} sn_bounds_t;

/* Computes the lower bounds for (t, p). Exact graph properties are computed as needed (BFS from
 * the root, structural diameters, cut sizes); cost O(n + m) per cut tried, plus the all-pairs
 * status for topologies without structure. */
int sn_model_bounds(const sn_topo_t *t, const sn_params_t *p, sn_bounds_t *out, sn_err_t *err);

/* Theorem 3.3 of the thesis: the single-port broadcast lower bound from the distance degree
 * sequence counts[0..ecc] (counts[0] = the root itself): max over d of
 * T_d = min { T : sum_{l=d..T} C(T, l) >= R_d }, R_d = sum_{i>=d} counts[i]. */
int64_t sn_model_thm33(const uint64_t *counts, uint32_t ecc);

/* Eq. (4) of Varvarigos, folded-cube paper: the folded-cube PMNB of M >= 1 sources on FQ_d
 * completes within ceil(M/(d+1)) + 2d - 1 packet slots plus 4d prefix steps of tp each (two
 * prefixes of 2d steps: the classes, then the positions in each class); an upper bound, in time
 * units. */
double sn_model_fcube_eq4(uint32_t d, uint64_t M, double tp);

/* ---- the slot limit ------------------------------------------------------------------------ */

/* The slot past which an executor gives up on a run of (t, p) whose algorithm predicts
 * `predicted` steps (-1: no prediction): 4 * predicted + 1024 with a prediction, so that only a
 * broken schedule reaches it; otherwise a bound no sane schedule reaches (every window of
 * 2 * maxdeg + 1 slots moves some packet one hop, and there are at most expected deliveries x
 * (diameter + 1) hops to make), capped at 2^62. The one definition used by sim, run and table. */
uint64_t sn_model_slot_limit(const sn_topo_t *t, const sn_params_t *p, int64_t predicted);

/* ---- the memory budget ------------------------------------------------------------------------
 * What a command will hold at its peak, estimated from the topology and the parameters before any
 * plan or executor state is allocated (docs/limits.md gives the formula and its calibration). The
 * estimate is an upper one: plans and executor state grow with the packet-node pairs of the
 * collective, in-flight packets with the links, and in `run` every node process rebuilds the
 * topology and the plan and holds frame buffers for its links. */

typedef enum {
    SN_MEM_MODEL, /* topology, plans and bounds */
    SN_MEM_SIM,   /* the same, plus the simulator's state of every node */
    SN_MEM_RUN,   /* one process per node: topology, plan, one node's state and its frames */
} sn_mem_use_t;

typedef struct sn_mem_s {
    uint64_t topo;        /* the topology; with the text of a file: graph while it is parsed */
    uint64_t plan;        /* the plan and the lower bounds (model: every candidate's plan) */
    uint64_t exec;        /* executor state: sim all nodes, run the busiest node, model the
                             candidates' dry runs */
    uint64_t frames;      /* run: the frame buffers of the busiest node (0 otherwise), with the
                             frames its emulated links hold */
    uint64_t held;        /* run: of frames, the whole frames its emulated links hold */
    uint64_t text;        /* file: graphs: the file's text (the reading process) and in run the
                             canonical edge list each node receives (sn_topo_file_text) */
    uint64_t per_process; /* the largest process: topo + plan + exec + frames */
    uint64_t total;       /* every process of the command together */
    uint32_t processes;   /* 1, or for run the nodes plus the coordinator */
    uint64_t pairs;       /* the (packet, node) pairs the plans and states grow with */
} sn_mem_t;

/* What `run` adds beyond the topology and the parameters. */
typedef struct sn_mem_extra_s {
    int emulated; /* link emulation (--link-delay, --link-jitter, --link-rate or --link-file) is
                     on: each emulated link holds SN_MODEL_EMU_FRAMES whole frames */
} sn_mem_extra_t;

/* The whole frames one emulated link of `run` can hold at once: a node delays its outgoing frames
 * whole until their release time (delay and jitter after the rate's schedule), and the slot
 * barrier lets it send the frame of slot t + 2 only after its neighbour got the one of slot t. */
#define SN_MODEL_EMU_FRAMES 2u

/* The bytes of frame buffers one link of `stepnet run` holds at most for packets of `size`
 * bytes: bounded by the streaming chunk, not by the packet size (docs/limits.md). */
uint64_t sn_model_mem_link(uint32_t size);

/* The bytes one link holds on top of sn_model_mem_link when the node emulates it: whole frames,
 * payload generated, waiting for their release (SN_MODEL_EMU_FRAMES of them). */
uint64_t sn_model_mem_link_emulated(uint32_t size);

/* The estimate for (t, p) used as `use`; extra NULL: nothing beyond them. Pure; allocates
 * nothing. */
void sn_model_mem_estimate_with(const sn_topo_t *t, const sn_params_t *p, sn_mem_use_t use,
                                const sn_mem_extra_t *extra, sn_mem_t *out);
void sn_model_mem_estimate(const sn_topo_t *t, const sn_params_t *p, sn_mem_use_t use,
                           sn_mem_t *out);

/* 0 when m fits in `limit` bytes (0: no limit), both per process and in total; else SN_ERANGE
 * (param SN_PARAM_MEMORY) with a message giving the estimate, the limit and what it is about. */
int sn_model_mem_check(const sn_topo_t *t, const sn_params_t *p, const sn_mem_t *m, uint64_t limit,
                       sn_err_t *err);

/* ---- schedules as data ------------------------------------------------------------------- */

/* Runs `algo` (NULL or "auto": auto-selection) for (t, p) in the simulator and records every
 * transmission (sn_sched_t, stepnet/algo.h). 0, or the selection's or the run's error (SN_EVERIFY
 * if it did not verify). Free with sn_sched_free. sn_model_plan_new records with it the factor
 * schedules that composite algorithms take as plan inputs. */
int sn_sched_record(const sn_topo_t *t, const sn_params_t *p, const char *algo, sn_sched_t **out,
                    sn_err_t *err);

/* sn_sched_record holding at most max_ev transmissions (0: no limit), so that its memory is
 * bounded whatever the run: a run that sends more is played to its end without recording the
 * rest and refused, SN_ERANGE naming `what` (the limit's reason, "--max-memory 64 MiB") and the
 * count; the schedule is not returned. Before any run, a collective whose deliveries alone need
 * more transmissions than max_ev (every delivery takes one) is refused the same way. */
int sn_sched_record_max(const sn_topo_t *t, const sn_params_t *p, const char *algo, uint64_t max_ev,
                        const char *what, sn_sched_t **out, sn_err_t *err);
/* The check sn_sched_record_max makes before any run: 0 when the deliveries of (t, p), one
 * transmission each at least, fit in max_ev (0: no limit), else SN_ERANGE naming the count and
 * `what`. */
int sn_sched_record_fits(const sn_topo_t *t, const sn_params_t *p, uint64_t max_ev,
                         const char *what, sn_err_t *err);
void sn_sched_free(sn_sched_t *s);
/* qsort order of a schedule's transmissions: by (slot, node, port), as sn_sched_t.ev keeps them. */
int sn_sched_ev_cmp(const void *a, const void *b);

/* ---- dynamic broadcasting (dynbcast.c) ---------------------------------------------------------
 * Poisson broadcast requests at every node, served in rounds of partial multinode broadcasts
 * (reservation + broadcast), each played in the simulator (or over TCP) and verified. On meshes
 * and tori: Varvarigos and Bertsekas, d-dimensional meshes, section 5 (rounds of
 * pmnb-mesh-split). On folded cubes FQ_d: Varvarigos, folded cubes, the dynamic broadcasting
 * scheme (rounds of pmnb-fcube), eqs. (5)-(6). Times in time units: data slots / frags + control
 * slots x t_p. */

/* What one round measured: slots (control slots among them) and verified deliveries. */
typedef struct sn_dyn_round_s {
    uint64_t steps, control_slots, deliveries;
} sn_dyn_round_t;

/* Plays one round: the partial multinode broadcast of q (q->sources the round's sources) with
 * algorithm `algo`, verified. 0, or a negative code with err set (the run fails). */
typedef int (*sn_dyn_round_fn)(void *ctx, const sn_topo_t *t, const sn_params_t *q,
                               const char *algo, sn_dyn_round_t *out, sn_err_t *err);

typedef struct sn_dyn_opts_s {
    double lambda;    /* requests per node per time unit, > 0 */
    double horizon;   /* requests arrive in [0, horizon) time units; every one is served */
    double tp;        /* time of a control slot */
    const char *algo; /* the round's algorithm, NULL: the family's (sn_dyn_result_t.algorithm) */
    sn_dyn_round_fn round; /* who plays a round: NULL, the simulator; stepnet run, TCP */
    void *round_ctx;
} sn_dyn_opts_t;

typedef struct sn_dyn_result_s {
    uint64_t requests, measured; /* all requests; those after the 10% warm-up (the statistics) */
    uint64_t rounds, empty_rounds, broadcasts, deliveries, control_slots, data_slots;
    double time_units; /* when the last round ended */
    double throughput; /* requests broadcast per time unit */
    double delay_mean, delay_ci, delay_p50, delay_p99, delay_max; /* ci: 95% half-width, -1 if
                                                                     too few requests */
    /* the paper's constants. Meshes and tori: X (9a), V (10a) with splitting, (9b), (10b)
     * without, rho = lambda N X, the mesh load (12) that (13) requires <= 1 (rho_mesh), the
     * stability limit (14) (without splitting: the largest rho with 1 - rho - lambda V > 0), the
     * bound (11). Folded cubes: X = 1/(d+1), V = A = 2d + 4d t_p (a round of M packets lasts at
     * most M/(d+1) + A), rho = lambda N/(d+1), rho_mesh -1 (no such condition), the stability
     * limit (5), the bound (6). delay_bound -1 when the bound's denominator is <= 0 (no bound). */
    double X, V, rho, rho_mesh, rho_star, delay_bound;
    int fcube;             /* 1: the folded-cube scheme, 0: meshes and tori */
    const char *algorithm; /* the default round algorithm of the family */
    const char *eq_stability,
        *eq_bound; /* the paper's equation labels: "(14)", "(11)" or "(5)", "(6)" */
} sn_dyn_result_t;

/* The constants of r (X .. eq_bound) for rounds of `algo` on (t, lambda, tp): on meshes and tori
 * pmnb-mesh-split ((9a)/(10a), the default) or pmnb-mesh (no splitting, (9b)/(10b)), on folded
 * cubes pmnb-fcube (eqs. (5)-(6)); NULL or "auto": the family's default. 0, or SN_ENOTSUP naming
 * what is accepted. */
int sn_dyn_constants_for(const sn_topo_t *t, const char *algo, double lambda, double tp,
                         sn_dyn_result_t *r, sn_err_t *err);
/* The same for the family's default algorithm (zeros and -1 bounds on other topologies). */
void sn_dyn_constants(const sn_topo_t *t, double lambda, double tp, sn_dyn_result_t *r);

/* Runs dynamic broadcasting on (t, p) (p: seed, frags, size; coll and sources are set per round).
 * 0, or SN_ENOTSUP (not a mesh, torus or folded cube (d >= 2); the round algorithm refuses p),
 * SN_EINVAL, SN_ERANGE (too
 * many expected requests, checked before allocating) or a round's failure, with err set. */
int sn_dyn_run(const sn_topo_t *t, const sn_params_t *p, const sn_dyn_opts_t *o, sn_dyn_result_t *r,
               sn_err_t *err);

#endif
