/* The memory budget (core/model): an upper estimate of the bytes a command will hold at its peak,
 * computed from the topology and the parameters before any plan or executor state exists, so that
 * the front end can refuse a run that would exhaust the host. The constants are calibrated against
 * measured peaks (docs/limits.md lists the measurements); each is rounded up. */
#include <stdio.h>

#include "core/coll/coll.h"
#include "stepnet/model.h"
#include "stepnet/route.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

/* ---- the constants -------------------------------------------------------------------------- */

/* Plans and bounds: trees, orders, BFS distances per node; edge colourings per port; per
 * (packet, node) pair the arrival slots and schedules the plans replay. */
#define PLAN_PER_NODE 96u
#define PLAN_PER_PORT 16u
#define PLAN_PER_PAIR 16u
#define PLAN_PER_PATH 64u /* scatter and gather: a route per (packet, destination) */
/* Executors: per node its wake-up and queues; per packet in flight a pool entry with its key and
 * echo; per expected delivery the verification bits and the per-node state that counts it. */
#define EXEC_PER_NODE   32u
#define EXEC_PER_FLIGHT 128u
#define EXEC_PER_PAIR   48u
/* run: frames stream through bounded buffers (net/conn.h): per link a staging buffer for small
 * frames, at most four cached frame buffers of one chunk or less and one receive unit, and for
 * frames longer than a chunk SN_CONN_WINDOW + 1 chunk buffers on the sending side; so a link's
 * buffers grow with the packet size up to one chunk, and not beyond. The chunk and the window are
 * net/'s constants, repeated here because core does not include net (a unit test compares them). */
#define RUN_CHUNK        66560u
#define RUN_WINDOW       4u
#define RUN_STAGE        65536u
#define RUN_SMALL_FRAMES 5u /* four cached frame buffers and one receive unit */
#define FRAME_OVERHEAD   (4u + 512u + 5u + 17u + 64u)
/* model: what a candidate plan of mnb or pmnb may keep per (source, node) pair (`model --topo
 * foldedcube:11 --coll mnb`, which plans mnb-fcube, mnb-balanced and mnb-gossip, peaked at
 * 276 MiB for 4194304 pairs; `sim` of the same, 261 MiB against an estimate of 204 MiB without
 * them); rounded up. */
#define PLAN_PER_CANDIDATE_PAIR 72u
/* run: the canonical edge list of a file: graph is held three times by a node: the control
 * frame, the unpacked assignment, and the edge lists parsed from it (at most as long). */
#define NODE_TEXT_COPIES 3u
/* Every process's own fixed cost (the program, libc, and for nodes the libuv loop and
 * libsodium). */
#define PROCESS_BASE (8ull << 20)
/* A node process of run: measured at 2.7 MiB with 8-byte packets on ring:4
 * (scripts/bench/memory.sh); rounded up. */
#define NODE_BASE (4ull << 20)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* The most packets one node must receive: per sender of the collective (core/coll/colls.def), the
 * root's, every source's or, at most, every processor's. */
static uint64_t node_expect_max(const sn_topo_t *t, const sn_params_t *p)
{
    uint64_t per = (uint64_t) p->msgs * p->frags, np = t->nproc;
    switch (sn__coll_senders(p->coll)) {
    case SN_COLL_GROUP_ROOT:
        return per;
    case SN_COLL_GROUP_SOURCES:
        return sat_mul(p->nsources, per);
    default:
        return sat_mul(np, per);
    }
}

uint64_t sn_model_mem_link(uint32_t size)
{
    uint64_t frame = (uint64_t) size + FRAME_OVERHEAD;
    uint64_t unit = frame < RUN_CHUNK + FRAME_OVERHEAD ? frame : RUN_CHUNK + FRAME_OVERHEAD;
    uint64_t bytes = RUN_STAGE + RUN_SMALL_FRAMES * unit;
    if (frame > RUN_CHUNK) /* streamed in chunks: the sender's chunk window */
        bytes += (uint64_t) (RUN_WINDOW + 1) * (RUN_CHUNK + FRAME_OVERHEAD);
    return bytes;
}

uint64_t sn_model_mem_link_emulated(uint32_t size)
{
    return SN_MODEL_EMU_FRAMES * ((uint64_t) size + FRAME_OVERHEAD);
}

/* The text of t's file: graph, if it has one: the file's bytes as the reading process held them,
 * and the canonical edge list the nodes of run receive (0, 0 without a file: graph). */
static void file_texts(const sn_topo_t *t, uint64_t *file, uint64_t *canon)
{
    const sn_topo_t *f = sn_topo_file_factor(t);
    *file = f ? f->source_bytes : 0;
    *canon = f ? sn_topo_file_text_max(f) : 0;
}

void sn_model_mem_estimate_with(const sn_topo_t *t, const sn_params_t *p, sn_mem_use_t use,
                                const sn_mem_extra_t *extra, sn_mem_t *out)
{
    uint64_t n = t->n, ports = t->port_off[t->n];
    uint64_t per = (uint64_t) p->msgs * p->frags;
    /* (packet, node) pairs: plans keep at most an arrival slot per node and packet of the
     * source they schedule (tree plans: routers included; the structural all-to-all plans keep
     * less); executors keep state per delivery, so for them the deliveries count when there are
     * more */
    uint64_t pairs = sat_mul(n, per), deliveries = sn_coll_expected_total(t, p);
    uint64_t exec_pairs = deliveries > pairs ? deliveries : pairs;
    uint64_t file, canon;
    file_texts(t, &file, &canon);
    out->pairs = pairs;
    out->topo = sn_topo_mem_estimate(n, ports);
    if (t->kind == SN_TOPO_FILE && n <= SN_ROUTE_MAX_TABLE)
        out->topo = sat_add(out->topo, sat_mul(n * n, 8)); /* all-pairs routing tables */
    out->plan = sat_add(sat_add(sat_mul(n, PLAN_PER_NODE), sat_mul(ports, PLAN_PER_PORT)),
                        sat_mul(pairs, p->coll == SN_COLL_SCATTER || p->coll == SN_COLL_GATHER
                                           ? PLAN_PER_PATH
                                           : PLAN_PER_PAIR));
    if (p->coll == SN_COLL_MNA) /* mna-tree: a tree and a partial per (processor, node, packet) */
        out->plan = sat_add(out->plan, sat_mul(sat_mul(n, t->nproc), sat_add(9, per * 17)));
    out->exec = 0;
    out->frames = 0;
    out->held = 0;
    out->text = file;
    out->processes = 1;
    uint64_t sim_exec =
        sat_add(sat_add(sat_mul(n, EXEC_PER_NODE),
                        sat_mul(ports < exec_pairs ? ports : exec_pairs, EXEC_PER_FLIGHT)),
                sat_mul(exec_pairs, EXEC_PER_PAIR));
    /* auto plans every applicable algorithm, one after the other, in model, in sim and in run's
     * coordinator; for the broadcasts of many sources, some (mnb-fcube, mnb-balanced,
     * mnb-gossip) keep a record per (source, node) pair while they are planned, and free it
     * before the chosen one runs */
    uint64_t candidates = (p->coll == SN_COLL_MNB || p->coll == SN_COLL_PMNB) && deliveries > pairs
                              ? sat_mul(deliveries, PLAN_PER_CANDIDATE_PAIR)
                              : 0;
    if (use == SN_MEM_MODEL) {
        /* a small collective's candidates without a prediction are run dry in the simulator */
        if (candidates) {
            out->plan = sat_add(out->plan, candidates);
            out->pairs = deliveries;
        }
        if (deliveries <= SN_MODEL_DRY_DELIVERIES)
            out->exec = sim_exec;
    } else if (use == SN_MEM_SIM) {
        out->exec = sim_exec;
        out->pairs = exec_pairs;
    } else if (use == SN_MEM_RUN) {
        uint64_t deg = sn_topo_max_degree(t), link = sn_model_mem_link(p->size);
        if (extra && extra->emulated)
            link = sat_add(link, sn_model_mem_link_emulated(p->size));
        out->exec = sat_add(sat_mul(deg, 4096), sat_mul(node_expect_max(t, p), EXEC_PER_PAIR));
        out->frames = sat_mul(deg, link);
        out->held =
            extra && extra->emulated ? sat_mul(deg, sn_model_mem_link_emulated(p->size)) : 0;
        out->processes = t->n + 1;
    }
    out->exec = sat_add(out->exec, use == SN_MEM_RUN ? NODE_BASE : PROCESS_BASE);
    out->per_process =
        sat_add(sat_add(sat_add(out->topo, out->plan), sat_add(out->exec, out->frames)),
                use == SN_MEM_RUN ? 0 : file);
    if (use == SN_MEM_SIM) {
        /* the candidates are planned and freed before the simulator runs: the larger phase */
        uint64_t planning = sat_add(sat_add(sat_add(out->topo, out->plan), candidates),
                                    sat_add(PROCESS_BASE, file));
        if (planning > out->per_process)
            out->per_process = planning;
    }
    if (use == SN_MEM_RUN) {
        /* every node receives the canonical edge list in its assignment, holds the frame and
         * its unpacked copy and parses it; the coordinator read the file, and its assignments
         * to every node may wait in their write queues at once */
        uint64_t node_text = sat_mul(NODE_TEXT_COPIES, canon);
        uint64_t coord_text = sat_add(file, sat_mul(n, canon));
        out->text = sat_add(coord_text, sat_mul(n, node_text));
        out->per_process = sat_add(out->per_process, node_text);
        uint64_t coord = sat_add(sat_add(sat_add(out->topo, out->plan), candidates),
                                 sat_add(PROCESS_BASE, coord_text));
        /* the coordinator's --algo auto may run a small collective dry in the simulator */
        uint64_t dry = deliveries <= SN_MODEL_DRY_DELIVERIES ? sim_exec : 0;
        coord = sat_add(coord, dry);
        if (coord > out->per_process)
            out->per_process = coord;
        /* every node rebuilds topology and plan; the frames of all links together; the
         * coordinator holds topology and plan too */
        uint64_t shared = sat_add(out->topo, out->plan);
        uint64_t frames_all = sat_mul(ports, sn_model_mem_link(p->size));
        if (extra && extra->emulated)
            frames_all = sat_add(frames_all, sat_mul(ports, sn_model_mem_link_emulated(p->size)));
        out->total =
            sat_add(sat_add(sat_mul(n + 1, shared), sat_add(sat_mul(n, out->exec), frames_all)),
                    sat_add(sat_add(out->text, dry), PROCESS_BASE));
    } else {
        out->total = out->per_process;
    }
}

void sn_model_mem_estimate(const sn_topo_t *t, const sn_params_t *p, sn_mem_use_t use,
                           sn_mem_t *out)
{
    sn_model_mem_estimate_with(t, p, use, NULL, out);
}

int sn_model_mem_check(const sn_topo_t *t, const sn_params_t *p, const sn_mem_t *m, uint64_t limit,
                       sn_err_t *err)
{
    if (limit == 0 || (m->per_process <= limit && m->total <= limit))
        return 0;
    char est[32], lim[32], one[32], fr[32], held[96] = "";
    sn_fmt_bytes(limit, lim, sizeof lim);
    if (m->held) {
        char h[32];
        snprintf(held, sizeof held, ", of which link emulation holds %s in whole frames",
                 sn_fmt_bytes(m->held, h, sizeof h));
    }
    if (m->processes > 1)
        return sn_err_set_param(
            err, SN_ERANGE, SN_PARAM_MEMORY,
            "%s on %s (msgs %u, packet size %u bytes) needs about %s in %u processes (the "
            "largest %s: topology, plan, state and frame buffers of %s%s); the memory limit is %s",
            sn_coll_name(p->coll), t->spec, p->msgs, p->size,
            sn_fmt_bytes(m->total, est, sizeof est), m->processes,
            sn_fmt_bytes(m->per_process, one, sizeof one), sn_fmt_bytes(m->frames, fr, sizeof fr),
            held, lim);
    return sn_err_set_param(
        err, SN_ERANGE, SN_PARAM_MEMORY,
        "%s on %s (msgs %u) needs about %s (topology %s, plans "
        "and state for %llu packet-node pairs); the memory limit is %s",
        sn_coll_name(p->coll), t->spec, p->msgs, sn_fmt_bytes(m->total, est, sizeof est),
        sn_fmt_bytes(m->topo, one, sizeof one), (unsigned long long) m->pairs, lim);
}
