/* stepnet synth (core/synth): the minimum number of slots of a collective, proven with a SAT
 * solver. encode.c turns "a schedule of at most T slots exists" into clauses (docs/synth.md gives
 * the encoding and why every pruning constraint keeps the optimum); it has no solver dependency,
 * so that tests count its variables and clauses and check decoded assignments. solve.c, the only
 * file that includes the solver's header, feeds the clauses to CaDiCaL and searches T
 * incrementally. Neither reads a clock: the caller lends one (sn_synth_opts_t). */
#ifndef STEPNET_CORE_SYNTH_SYNTH_H
#define STEPNET_CORE_SYNTH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/schedule_file.h"
#include "stepnet/topo.h"

/* How synth proves a collective's optimum (docs/synth.md). */
typedef enum {
    SN_SYNTH_NONE = 0, /* not at all (the other combining collectives, those of rounds) */
    SN_SYNTH_DIRECT,   /* packets that travel whole: bcast, scatter, gather, mnb, te, pmnb,
                          pexchange, encoded as they are */
    SN_SYNTH_DUAL,     /* sna and mna: the optimum of their duals, bcast and mnb, whose optimal
                          schedule reversed in time is theirs (sn_synth_dual_params) */
    SN_SYNTH_RELAXED,  /* allreduce: a relaxation whose refutation proves a lower bound; the
                          schedule is an algorithm's */
} sn_synth_kind_t;

sn_synth_kind_t sn_synth_kind(sn_coll_t coll);

/* 1 for the collectives synth proves (sn_synth_kind not SN_SYNTH_NONE). */
int sn_synth_supports(sn_coll_t coll);

/* The accepted collectives, for messages. */
#define SN_SYNTH_COLLS "bcast, scatter, gather, mnb, te, pmnb, pexchange, sna, allreduce and mna"

/* The dual of p (sna: bcast from the same root; mna: mnb), with its port model, msgs, frags,
 * size and seed. Time reversal maps the schedules of one onto the other's with the same slots
 * when the port model limits sends and receptions alike; single-port with --rx any does not, and
 * is refused (SN_EINVAL naming it), as is a collective of another kind; SN_ERANGE when the
 * reversed mna schedule would list more operands than the reversal keeps. */
int sn_synth_dual_params(const sn_topo_t *t, const sn_params_t *p, sn_params_t *dual,
                         sn_err_t *err);

/* The schedule of p (sna or mna) that is the time reversal of `dual`, a schedule of
 * sn_synth_dual_params(p) on t: every transmission u -> v of slot s becomes v -> u in slot
 * T + 1 - s, combining the contributions of v's subtree (core/algo/engine/reverse.h). *out (free
 * out->ev) and *ops (sn_sched_ops_free). 0, SN_EINVAL for another collective, SN_ERANGE past the
 * operands the reversal keeps, SN_EALGO when `dual` sends what its sender does not hold. */
int sn_synth_reverse(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *dual,
                     sn_sched_t *out, sn_sched_ops_t *ops, sn_err_t *err);

/* Constant literals: a variable that cannot be true (a node too far from a packet's source to
 * hold it yet) or cannot be false (the source holds its packet) is not created; clauses are
 * simplified where such a literal appears. Real literals are DIMACS: +v or -v, v >= 1. */
#define SN_SYNTH_TRUE  INT32_MAX
#define SN_SYNTH_FALSE (-INT32_MAX)

/* Receives every clause (lits[0 .. n-1], no constants), in a fixed order. */
typedef void (*sn_synth_sink_fn)(void *ctx, const int32_t *lits, size_t n);

/* One packet of the collective: its identity and the nodes that must receive it. */
typedef struct sn_synth_pkt_s {
    uint32_t src, dst, seq, frag; /* dst SN_NODE_ALL for the broadcast collectives */
    uint32_t first_dest, ndest;   /* its destinations: enc->dest[first_dest .. + ndest) */
} sn_synth_pkt_t;

/* The encoding of (t, p) with horizon H: the variables of slots 1 .. H. Read-only once built. */
typedef struct sn_synth_enc_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t horizon;   /* H */
    uint32_t n, nlinks; /* nodes; directed links (link of port q of u: t->port_off[u] + q) */
    sn_synth_pkt_t *pkt;
    size_t npkt;
    uint32_t *dest;  /* the destinations of every packet, packet by packet */
    uint32_t *dist;  /* [n * n] hop distances */
    uint32_t *reach; /* [npkt * n]: hops from node v to the nearest destination of packet k */
    int32_t *have;   /* [(k * n + v) * (H + 1) + s]: node v holds packet k after slot s */
    int32_t *send;   /* [(k * nlinks + l) * (H + 1) + s]: packet k crosses link l in slot s */
    int32_t *late;   /* [H + 2]: late[s] (s = 1 .. H + 1) "slot s is after the deadline" */
    uint32_t *link_from, *link_to; /* [nlinks]: the link's sender and receiver */
    uint32_t *link_rev;            /* [nlinks]: the same edge the other way */
    int32_t nvars;                 /* the variables of the tables (auxiliaries come on top) */
    int32_t nvars_total;           /* with the port constraints' auxiliaries (after a pass) */
    uint64_t nclauses;             /* after a pass */
    uint64_t nlits;                /* literals of those clauses */
    /* allreduce (relaxed): the pieces (seq, frag) are the packets; the contributors proc[0 ..
     * nproc); know[((k * n + v) * nproc + i) * (H + 1) + s] "node v knows proc[i]'s contribution
     * to piece k after slot s"; via[((k * nlinks + l) * nproc + i) * (H + 1) + s] "the
     * transmission of piece k on link l in slot s carries it" (have, dest and reach unused) */
    int relaxed;
    uint32_t nproc, *proc;
    int32_t *know, *via;
} sn_synth_enc_t;

/* The bytes sn_synth_enc_new allocates for (t, p) with horizon H, from the sizes only (nothing
 * is built): what is checked against --max-memory before it is built. */
uint64_t sn_synth_table_bytes(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon);

/* Builds the variable tables of (t, p) for slots 1 .. horizon. t and p must outlive it. 0, or
 * SN_EINVAL naming a collective synth does not encode (sna and mna: encode their duals),
 * SN_ERANGE when the tables would need more than INT32_MAX variables. Free with
 * sn_synth_enc_free. allreduce is encoded relaxed: "every processor knows every contribution to
 * every piece after T slots", a transmission carrying all its sender knows of one piece (the
 * combination; idempotent merging), one piece per link per slot and the port model as for the
 * others. Every allreduce schedule of T slots satisfies it, so unsatisfiable at T proves no
 * schedule of T slots exists; satisfiable proves nothing (its merging may count a contribution
 * twice). */
int sn_synth_enc_new(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon,
                     sn_synth_enc_t **out, sn_err_t *err);
void sn_synth_enc_free(sn_synth_enc_t *e);

/* Emits every clause into sink (NULL: only counts them) and sets nvars_total, nclauses and
 * nlits. Deterministic: every pass numbers the auxiliaries and orders the clauses the same way.
 * A schedule of at most T slots (T <= horizon) exists exactly when the clauses are satisfiable
 * under the assumption sn_synth_deadline(e, T). */
void sn_synth_encode(sn_synth_enc_t *e, sn_synth_sink_fn sink, void *ctx);

/* The literal to assume for "every destination holds every packet after slot T" (1 <= T <=
 * horizon). */
int32_t sn_synth_deadline(const sn_synth_enc_t *e, uint32_t T);

/* The value of variable v (1 .. nvars_total) in a model: nonzero for true. */
typedef int (*sn_synth_value_fn)(void *ctx, int32_t var);

/* Decodes the sends of slots 1 .. T of a model into a schedule (sorted by slot, node, port;
 * steps the last slot with a send). 0; free with sn_sched_free-compatible free of s->ev. */
int sn_synth_decode(const sn_synth_enc_t *e, uint32_t T, sn_synth_value_fn value, void *ctx,
                    sn_sched_t *s);

/* allreduce: relaxed, a schedule of the relaxed encoding e (sn_synth_decode), made exact where
 * that is possible: replayed slot by slot, every transmission carries the largest combination its
 * sender forms from disjoint parts of what it holds (its own contribution, what it received),
 * and every processor must end able to form the full combination of every piece. 0 with *out
 * (free out->ev) and *ops (sn_sched_ops_free), an allreduce schedule of relaxed's slots for the
 * simulator to verify; -1 when the replay leaves a processor short (or e has more than 64
 * processors): the relaxation's schedule counts a contribution twice. */
int sn_synth_realize(const sn_synth_enc_t *e, const sn_sched_t *relaxed, sn_sched_t *out,
                     sn_sched_ops_t *ops);

/* ---- the solver (solve.c) ------------------------------------------------------------------ */

/* What the caller lends the search: a clock (seconds from any origin) and a stop test (nonzero:
 * give up, the time limit is reached). Either may be NULL (no times; never stop). */
typedef struct sn_synth_opts_s {
    double (*now)(void *ctx);
    int (*stop)(void *ctx);
    void *ctx;
    int fresh; /* 1: a new solver for every T (no clauses carried over), to measure what
                  incremental solving gains */
} sn_synth_opts_t;

typedef enum { SN_SYNTH_OPTIMAL = 0, SN_SYNTH_BOUNDED = 1 } sn_synth_status_t;

/* One solver call: "a schedule of at most `slots` slots exists?" */
typedef struct sn_synth_call_s {
    uint32_t slots;
    int result;       /* 10 satisfiable, 20 unsatisfiable, 0 stopped */
    double secs;      /* wall time (0 without a clock) */
    uint64_t learned; /* clauses the solver learned (one per conflict) */
} sn_synth_call_t;

#define SN_SYNTH_MAX_CALLS 64

typedef struct sn_synth_result_s {
    sn_synth_status_t status;
    uint32_t lower, upper; /* the interval proven: optimal when lower == upper */
    sn_synth_call_t calls[SN_SYNTH_MAX_CALLS];
    size_t ncalls;
    int sat_call, unsat_call; /* index in calls of the SAT call at the optimum and of the UNSAT
                                 call at optimum - 1 (-1: none; the lower bound proves it) */
    double solve_s;           /* all calls together */
    sn_sched_t sched;         /* the schedule of the SAT call at `upper` (ev NULL: none) */
} sn_synth_result_t;

/* Searches the least T in [lower, horizon] for which a schedule exists, from lower upwards, on
 * one incremental solver: every clause is added once and each T is a call under the assumption
 * sn_synth_deadline(e, T), so clauses learned at T - 1 serve at T. lower must be a proven lower
 * bound (1 <= lower <= horizon) and the horizon achievable (an algorithm's steps). Stops early,
 * status SN_SYNTH_BOUNDED, when opts->stop says so. 0, or SN_EALGO when no T up to the horizon is
 * satisfiable (the horizon was not achievable: a bug in the encoding or the caller). Free
 * r->sched.ev. */
/* A relaxed encoding (allreduce) may be unsatisfiable up to its horizon: the search then ends
 * with lower = horizon + 1, status SN_SYNTH_BOUNDED and no schedule, which is no error; a
 * satisfiable T leaves lower = T and a schedule of the relaxation (not one of the collective). */
int sn_synth_search(sn_synth_enc_t *e, uint32_t lower, const sn_synth_opts_t *opts,
                    sn_synth_result_t *r, sn_err_t *err);

/* The solver's name and version, for reports. */
const char *sn_synth_solver_name(void);

#endif
