/* stepnet algorithm interface: collectives, packets, run parameters, the per-node state machine
 * and the algorithm descriptor (core/algo). The same state machine runs in core/sim (all nodes in
 * one process) and in stepnet-node (one node over TCP); docs/architecture.md.
 *
 * Slots (docs/model.md): slots are numbered 1, 2, ... A node is stepped at slot t with the
 * packets that arrived at the end of slot t-1 and returns the sends of slot t. A packet sent in
 * slot t is at the next node at the end of slot t. Delivery is free: a node delivers a packet
 * addressed to it in the step that sees it arrive.
 *
 * When a node is stepped: every node at slot 1; afterwards at slot t if packets arrived for it at
 * the end of slot t-1, or if its last step asked to be woken at t (io->wake). Both executors follow
 * this rule exactly, so an algorithm never sees an idle call and may base decisions on the slot
 * number alone (precomputed schedules) or on its queues (online disciplines). */
#ifndef STEPNET_ALGO_H
#define STEPNET_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

/* ---- collectives ----------------------------------------------------------------------------- */

/* The collectives, one per line of their list (core/coll/colls.def), in its order: their names,
 * MPI aliases, who sends to whom and the flags the predicates below read. */
typedef enum {
#define SN_COLL(id, name, mpi, also, senders, receivers, flags, summary) SN_COLL_##id,
#include "core/coll/colls.def"
    SN_COLL_COUNT
} sn_coll_t;

/* Canonical name ("te") of a collective. */
const char *sn_coll_name(sn_coll_t c);

/* Parses a collective name or MPI alias (broadcast, allgather, alltoall, ...). 0 or SN_EINVAL with
 * `err` listing the accepted names. */
int sn_coll_parse(const char *s, sn_coll_t *out, sn_err_t *err);

/* 1 when every receiver gets the same packet from a source (broadcast family), 0 when each
 * destination gets its own (personalised). */
int sn_coll_is_broadcast(sn_coll_t c);

/* 1 for the combining collectives (sna, pmna, mna, allreduce, barrier): every processor
 * contributes a value to each destination, packets for the same destination are combined on the
 * way with the run's operator, and each destination receives one packet per (seq, frag) holding
 * the combination. In allreduce and barrier a processor contributes the same value to every
 * destination (sn_contrib_value), so every processor receives the same combination. */
int sn_coll_is_combining(sn_coll_t c);

/* 1 for the partial collectives (pmnb, pexchange, pmna): they need their sources (targets of
 * pmna), sn_params_t.sources; the others refuse them. */
int sn_coll_is_partial(sn_coll_t c);

/* 1 for a collective driven by rounds of arrivals (dynbcast): no algorithm runs it; the command
 * line runs rounds of another collective for it (cli/dyn.c). */
int sn_coll_is_rounds(sn_coll_t c);

/* ---- combining operators ---------------------------------------------------------------------
 * The payload of a combining collective's packet is a vector of 64-bit words, combined word by
 * word with an associative and commutative operator. Word i of the vector of a contribution with
 * value x is g_op(x, i), where g_op commutes with the operator (sum: x * (2i+1)K; xor, and, or:
 * x rotated by i, a permutation of the bits; max, min: (x >> 2) + (iK mod 2^62), which is monotone
 * in x and never wraps), so the elementwise combination of vectors is the vector of the combined
 * value: a packet is described exactly by its value (sn_packet_t.digest) and stepnet-node derives
 * and checks its bytes from it. The values are on the wire (proto/stepnet.proto): append only. */

typedef enum {
    SN_OP_SUM = 0,
    SN_OP_XOR = 1,
    SN_OP_MAX = 2,
    SN_OP_MIN = 3,
    SN_OP_AND = 4,
    SN_OP_OR = 5,
    SN_OP_COUNT
} sn_op_t;

/* The accepted names, for messages. */
#define SN_OP_NAMES "sum, xor, max, min, and, or"
/* The idempotent ones (a op a = a), which flooding accepts. */
#define SN_OP_IDEMPOTENT_NAMES "max, min, and, or"

/* Canonical name ("sum") of an operator. */
const char *sn_op_name(sn_op_t op);

/* The operator a typo of s means (sn_suggest over SN_OP_NAMES), or NULL. */
const char *sn_op_suggest(const char *s);

/* Parses one of SN_OP_NAMES. 0 or SN_EINVAL with `err` listing the accepted names. */
int sn_op_parse(const char *s, sn_op_t *out, sn_err_t *err);

/* a op b. */
uint64_t sn_op_apply(sn_op_t op, uint64_t a, uint64_t b);

/* 1 when a op a = a for every a (max, min, and, or): a contribution combined twice, as when it
 * reaches a node over two paths, leaves the combination unchanged. */
int sn_op_is_idempotent(sn_op_t op);

/* The operator a collective uses when --op is not given: max for barrier, sum otherwise. A
 * barrier's tokens carry no data, only "this processor has arrived", and that is idempotent;
 * with an idempotent default the barrier may flood (the diameter, on any graph) instead of going
 * up and down a tree (twice its height). */
sn_op_t sn_op_default(sn_coll_t coll);

/* ---- port models -------------------------------------------------------------------------- */

typedef enum { SN_PORTS_MULTI = 0, SN_PORTS_SINGLE = 1 } sn_ports_t;
typedef enum { SN_RX_ONE = 0, SN_RX_ANY = 1 } sn_rx_limit_t;
typedef enum { SN_DUPLEX_FULL = 0, SN_DUPLEX_HALF = 1 } sn_duplex_t;

typedef struct sn_portmodel_s {
    sn_ports_t ports;
    sn_rx_limit_t rx; /* only meaningful for single-port */
    sn_duplex_t duplex;
} sn_portmodel_t;

/* ---- packets ---------------------------------------------------------------------------------
 * A packet is the unit of transfer: one slot per link whatever its size. Its identity is
 * (src, dst, seq, frag, kind); `tag` is free for the algorithm (weights, directions, rounds, tree
 * numbers) and travels with it; `digest` carries the payload digest for data packets (the simulator
 * carries the digest instead of the bytes; stepnet-node sends the bytes and checks them at every
 * hop) and the value for control packets. */

#define SN_NODE_ALL UINT32_MAX /* dst of a broadcast packet */

typedef enum { SN_PKT_DATA = 0, SN_PKT_CONTROL = 1 } sn_pkt_kind_t;

typedef struct sn_packet_s {
    uint32_t src;    /* originating node id */
    uint32_t dst;    /* destination node id, or SN_NODE_ALL */
    uint32_t seq;    /* 0 .. msgs-1 within (src, dst) */
    uint16_t frag;   /* 0 .. frags-1 */
    uint8_t kind;    /* sn_pkt_kind_t */
    uint8_t flags;   /* algorithm-private */
    uint32_t tag;    /* algorithm-private */
    uint32_t pad_;   /* zero */
    uint64_t digest; /* data: payload digest; control: value */
} sn_packet_t;

/* ---- run parameters ------------------------------------------------------------------------ */

/* The largest packet size (sn_params_t.size) any run accepts: 1 GiB. */
#define SN_MAX_PACKET_SIZE (1u << 30)

typedef struct sn_params_s {
    sn_coll_t coll;
    sn_portmodel_t pm;
    uint32_t root;  /* node id of the root (bcast, scatter, gather) */
    uint32_t msgs;  /* packets per (source, destination), >= 1 */
    uint32_t frags; /* fragments per message, >= 1 (the split model of Varvarigos and Bertsekas,
                       d-dimensional meshes, section 1) */
    uint32_t size;  /* payload bytes per packet */
    uint64_t seed;  /* run seed: payloads and any random choice */
    const uint32_t *sources; /* partial collectives: source node ids, sorted; NULL otherwise */
    uint32_t nsources;
    sn_op_t op; /* combining collectives: the operator (default sn_op_default) */
    /* Provenance tracing (stepnet export of a combining collective): 0 normally; otherwise
     * 1 + the first node id of a window of 64, and the contribution of node src is then the bit
     * (src - first) (0 outside the window). Run with the operator or, a combined value is then
     * the set of the window's contributors it holds: the operands a schedule file lists. */
    uint32_t provenance;
} sn_params_t;

/* Fills p with the defaults: multi, rx one, full duplex, root 0, msgs 1, frags 1, size 8, seed 1.
 */
void sn_params_default(sn_params_t *p, sn_coll_t coll);

/* A data packet with its payload digest. */
sn_packet_t sn_packet_data(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                           uint32_t frag);

/* The source of a combining collective's packets: they carry a combination of contributions. */
#define SN_SRC_COMBINED UINT32_MAX

/* Combining collectives: the value processor src contributes to destination dst for (seq, frag).
 * allreduce and barrier: the same for every dst (one vector per processor, as in MPI). Under
 * provenance tracing (sn_params_t.provenance), src's bit in the window. */
uint64_t sn_contrib_value(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                          uint32_t frag);

/* The packet holding src's contribution to dst: src SN_SRC_COMBINED, digest the value. Combine
 * two such packets for the same (dst, seq, frag) with sn_op_apply on their digests. */
sn_packet_t sn_packet_contrib(const sn_params_t *p, uint32_t src, uint32_t dst, uint32_t seq,
                              uint32_t frag);

/* The exact combination over every processor of t of its contribution to dst (what dst must
 * receive for (seq, frag)). O(processors). */
uint64_t sn_combined_value(const sn_topo_t *t, const sn_params_t *p, uint32_t dst, uint32_t seq,
                           uint32_t frag);

/* Writes the payload bytes of a combining packet with value `value` (word i = g_op(value, i),
 * little endian, a short tail takes the low bytes of the next word). */
void sn_payload_fill_value(sn_op_t op, uint64_t value, uint8_t *buf, uint32_t size);

/* 0 if buf[0 .. size-1] is exactly the payload of value `value`, SN_EVERIFY otherwise. */
int sn_payload_check_value(sn_op_t op, uint64_t value, const uint8_t *buf, uint32_t size);

/* ---- payloads ------------------------------------------------------------------------------
 * Every data packet carries `size` bytes derived from (seed, src, dst, seq, frag). */

/* The 64-bit digest of the packet's payload (depends on the identity, the seed and the size). */
uint64_t sn_payload_digest(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                           uint32_t size);

/* Writes the payload bytes of that packet into buf[0 .. size-1]. */
void sn_payload_fill(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                     uint8_t *buf, uint32_t size);

/* 0 if buf[0 .. size-1] is exactly that packet's payload, SN_EVERIFY otherwise. */
int sn_payload_check(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                     const uint8_t *buf, uint32_t size);

/* The same bytes, [off, off + n) of the payload (any offset): payloads streamed in pieces are
 * generated and checked piece by piece with these, and give the same bytes as the whole-payload
 * calls. */
void sn_payload_fill_at(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                        uint32_t off, uint8_t *buf, uint32_t n);
int sn_payload_check_at(uint64_t seed, uint32_t src, uint32_t dst, uint32_t seq, uint32_t frag,
                        uint32_t off, const uint8_t *buf, uint32_t n);
void sn_payload_fill_value_at(sn_op_t op, uint64_t value, uint32_t off, uint8_t *buf, uint32_t n);
int sn_payload_check_value_at(sn_op_t op, uint64_t value, uint32_t off, const uint8_t *buf,
                              uint32_t n);

/* ---- expected deliveries (what "verified" means) ------------------------------------------------
 * For every collective and node: the set of sources it must receive from (each with msgs * frags
 * packets, exactly once). */

typedef struct sn_expect_s {
    uint32_t nsrc;    /* how many sources node u expects packets from */
    uint64_t per_src; /* packets per source: msgs * frags */
} sn_expect_t;

/* What node u expects in this collective. */
sn_expect_t sn_coll_expect(const sn_topo_t *t, const sn_params_t *p, uint32_t u);

/* Index of `src` among the sources u expects (0 .. nsrc-1), or -1 when u expects nothing from
 * src. Also checks that dst is the destination this collective uses for (src, u). */
int64_t sn_coll_source_index(const sn_topo_t *t, const sn_params_t *p, uint32_t u, uint32_t src,
                             uint32_t dst);

/* Total expected deliveries over all nodes. */
uint64_t sn_coll_expected_total(const sn_topo_t *t, const sn_params_t *p);

/* Validates the parameters against the topology (root is a processor, sources exist, sizes in
 * range). 0 or SN_EINVAL/SN_ERANGE with a message naming the value. */
int sn_params_check(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err);

/* The checks of sn_params_check that need no topology (collective, operator, counts, size, port
 * model), so that a front end refuses a bad value before it builds a large topology. */
int sn_params_check_free(const sn_params_t *p, sn_err_t *err);

/* ---- one step of one node ------------------------------------------------------------------ */

typedef struct sn_msg_s {
    sn_packet_t pkt;
    uint32_t port; /* port of this node: arrival port (rx) or departure port (tx) */
} sn_msg_t;

#define SN_WAKE_NEVER UINT64_MAX

typedef struct sn_step_s {
    /* in */
    uint64_t slot;      /* the slot being played, >= 1 */
    const sn_msg_t *rx; /* arrivals of slot-1, sorted by port */
    size_t nrx;
    /* out: use sn_step_send / sn_step_deliver; the executor owns the buffers */
    sn_msg_t *tx;
    size_t ntx, txcap;
    sn_packet_t *dlv;
    size_t ndlv, dlvcap;
    uint64_t wake;  /* out: slot to be stepped at without arrivals (> slot), or SN_WAKE_NEVER.
                       The executor sets it to SN_WAKE_NEVER before each step. */
    uint32_t queue; /* out: packets the node holds waiting in its queues after this slot's
                       sends, for the max_queue report (the thesis's convention, section 6.3.2.1);
                       the executor sets it to SN_QUEUE_UNREPORTED before each step, and an
                       algorithm that does not track its queues leaves it so: the report then
                       says that max_queue was not measured (null), never 0 */
} sn_step_t;

/* sn_step_t.queue of an algorithm that does not report its queues. */
#define SN_QUEUE_UNREPORTED UINT32_MAX

/* Grow the output buffers (out of line: the rare path of the two functions below). */
void sn_step_grow_tx(sn_step_t *io);
void sn_step_grow_dlv(sn_step_t *io);

/* Queues `pkt` for sending on `port` in this slot. */
static inline void sn_step_send(sn_step_t *io, uint32_t port, const sn_packet_t *pkt)
{
    if (io->ntx == io->txcap)
        sn_step_grow_tx(io);
    io->tx[io->ntx].pkt = *pkt;
    io->tx[io->ntx].port = port;
    io->ntx++;
}

/* Hands `pkt` to the local processor (it was addressed here). */
static inline void sn_step_deliver(sn_step_t *io, const sn_packet_t *pkt)
{
    if (io->ndlv == io->dlvcap)
        sn_step_grow_dlv(io);
    io->dlv[io->ndlv++] = *pkt;
}

/* ---- the algorithm descriptor ---------------------------------------------------------------- */

#define SN_PM_MULTI      (1u << 0) /* supports multiport */
#define SN_PM_SINGLE     (1u << 1) /* supports single-port, one reception per slot */
#define SN_PM_SINGLE_ANY (1u << 2) /* supports single-port, any receptions per slot */
#define SN_PM_HALF       (1u << 3) /* supports half duplex (with the models above) */
#define SN_PM_ALL        (SN_PM_MULTI | SN_PM_SINGLE | SN_PM_SINGLE_ANY | SN_PM_HALF)

typedef struct sn_algo_s sn_algo_t;

/* ---- schedules as data ----------------------------------------------------------------------
 * Every transmission of one run, in slot order. core/model records them (sn_sched_record in
 * stepnet/model.h); composite algorithms take their factors' schedules as plan inputs. */

typedef struct sn_sched_ev_s {
    uint64_t slot;
    uint32_t node, port; /* node sends pkt on its port in slot */
    sn_packet_t pkt;
} sn_sched_ev_t;

typedef struct sn_sched_s {
    sn_sched_ev_t *ev; /* every transmission, sorted by (slot, node, port) */
    size_t n;
    uint64_t steps;    /* the last slot with a transmission */
    int64_t predicted; /* the algorithm's prediction, -1 if none */
    const sn_algo_t *algo;
} sn_sched_t;

/* The most schedules one plan is built from (one per factor of a product). */
#define SN_ALGO_MAX_INPUTS SN_TOPO_MAX_FACTORS

/* One schedule a composite algorithm's plan is built from: plan_inputs fills the request, the
 * model records the schedule (sched) before it calls plan_from. */
typedef struct sn_plan_input_s {
    const sn_topo_t *topo;   /* where to run: a factor of t, or `owned` */
    sn_params_t params;      /* the collective, port model and sizes of that run */
    const char *algo;        /* the algorithm to record, NULL for auto-selection */
    const char *what;        /* for error messages: "single-port total exchange" */
    sn_topo_t *owned;        /* a topology built for this input, or NULL; plan_from may keep it (it
                                then sets owned to NULL), otherwise the model frees it */
    uint32_t *owned_sources; /* the sources params.sources points to when they were built for this
                                input (malloc'd), or NULL; the model frees them */
    const sn_sched_t *sched; /* the recorded schedule, lent to plan_from (copy what it keeps);
                                equal requests may share one */
} sn_plan_input_t;

struct sn_algo_s {
    const char *name; /* unique, e.g. "te-route" */
    sn_coll_t coll;
    unsigned pm_mask;     /* SN_PM_* */
    const char *topos;    /* which topologies, for `stepnet algos` ("any", "ring, torus") */
    const char *summary;  /* one line: what it does */
    const char *source;   /* seed, section and theorem */
    const char *predicts; /* what predicted_steps is ("eccentricity of the root", "none") */

    /* 0 if the algorithm applies to (t, p), else SN_ENOTSUP with the reason. Port-model support
     * is checked by the registry from pm_mask; this checks the topology. NULL = any topology. */
    int (*applies)(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err);

    /* Shared read-only precomputation (trees, schedules, routing). `t` and `p` (and its sources)
     * must outlive the plan. Build plans with sn_model_plan_new (stepnet/model.h), which calls
     * either plan_new or, for composite algorithms, plan_inputs and plan_from. */
    int (*plan_new)(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err);
    void (*plan_free)(void *plan);

    /* Composite algorithms only (plan_new NULL): a plan built from schedules of other runs (A2 and
     * A3 from their factors' total exchanges), which the model records, so that no algorithm calls
     * into the model. plan_inputs fills in[0 .. *n-1] (n <= SN_ALGO_MAX_INPUTS; sched NULL) or
     * fails with the reason (SN_ENOTSUP, SN_ERANGE); on failure it leaves no owned topology
     * behind. plan_from builds the plan from the recorded schedules in[i].sched, which it checks
     * (SN_EINVAL or SN_EALGO for a schedule that is not what it needs). */
    int (*plan_inputs)(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t *n,
                       sn_err_t *err);
    int (*plan_from)(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                     void **plan, sn_err_t *err);

    /* Exact step count this algorithm takes on the plan's inputs, or -1 when theory gives none. */
    int64_t (*predicted)(const void *plan);
    /* How many of the predicted steps are control slots (slots that carry control packets only,
     * which cost tp time units each instead of 1/frags), so that auto ranks by time units. NULL:
     * none (every predicted step moves data). */
    int64_t (*predicted_control)(const void *plan);

    /* Per-node state: state_size bytes, zeroed by the executor, then node_init; node_fini releases
     * what init or step allocated (never the block itself). */
    size_t state_size;
    int (*node_init)(const void *plan, uint32_t node, void *state, sn_err_t *err);
    void (*node_fini)(void *state);

    /* Plays one slot. Returns 0, or a negative code with `err` set (an internal inconsistency,
     * e.g. a packet that should not be here), which fails the run. */
    int (*node_step)(void *state, sn_step_t *io, sn_err_t *err);

    /* 1: run only when named (--algo NAME), never chosen by auto-selection. 0 for most. */
    int manual;
    /* 1: auto weighs this algorithm's prediction against the dry runs of the generic algorithms,
     * which predict nothing (sn_model_select), instead of preferring the prediction outright: for
     * on-line algorithms that pay control slots to learn what the generic router is simply told
     * (the sources of a partial broadcast), so that the router can be faster at small sizes. */
    int vs_generic;
    /* 1: the prediction is the length of a timetable that a heuristic planned for any graph,
     * not a count that a construction guarantees: when auto takes it, the generic algorithms
     * that predict nothing still run dry (on small collectives) and win if they finish in fewer
     * slots (sn_model_select). */
    int heuristic;
    /* 1: node_step writes nothing but its own state (the plan, topology and parameters are only
     * read, and every function it calls is thread-safe), so the simulator may step the nodes of a
     * slot on several threads (sn_sim_opts_t.threads). 0: always stepped one at a time. */
    int parallel;
};

#endif
