/* allreduce-rb: allreduce as a reduce to a centre (the best broadcast from it, reversed) followed
 * by that broadcast, overlapped (core/algo).
 *
 * Allreduce is an accumulation followed by a broadcast of its result (Bertsekas and Tsitsiklis,
 * Parallel and Distributed Computation, section 1.3), and the accumulation is the broadcast's
 * time reversal (Dimakopoulos, thesis, section 3.1; engine/reverse.h). allreduce-tree does this
 * over one BFS tree, M + 2h - 1 slots at best; this takes the broadcast `auto` picks for the run's
 * port model, msgs and frags from a centre of the processors (least eccentricity, then most
 * links; the run's root on vertex-transitive graphs), so every gain of the broadcasts with M
 * packets (arc-disjoint trees, timetables, matchings single-port) is the allreduce's too. The
 * broadcast sends its packets in some order; the reduce is relabelled so that the root completes
 * them in that order (packet k of the reversal becomes packet M - 1 - k), and the broadcast is
 * placed after the reduce either shifted, all of it d slots later, d the least shift at which the
 * root holds every combination before it sends it and no port, node (single-port) or edge (half
 * duplex) is used twice in a slot, or greedily, each transmission in the broadcast's order at the
 * first slot after its sender holds the packet with those resources free; the identity labelling
 * is tried too, and the shortest of the four is kept. Where rsag's groups are short (M small
 * against the processors, single-port) this is far shorter: single-port torus:4x4 with 4 packets
 * takes 13 slots (a broadcast of 7), where allreduce-rsag takes 28. predicted = the last slot. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/place.h"
#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

/* Search for a centre among the processors only below this many node-port visits (P BFS). */
#define CENTRE_BUDGET (1ull << 24)

static uint32_t processors(const sn_topo_t *t)
{
    uint32_t P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        P += (uint32_t) sn_topo_is_proc(t, u);
    return P;
}

/* The reduce's root: a processor of least eccentricity towards the processors, then of most
 * links; the run's root (or the first processor, when it is a router) where every node looks
 * alike or the search would be too long. */
static uint32_t pick_root(const sn_topo_t *t, const sn_params_t *p)
{
    uint32_t best = p->root;
    while (!sn_topo_is_proc(t, best))
        best = (best + 1) % t->n;
    if (t->vertex_transitive || (uint64_t) t->n * (t->port_off[t->n] + t->n) > CENTRE_BUDGET)
        return best;
    uint32_t best_e = sn_topo_ecc(t, best, 1);
    for (uint32_t u = 0; u < t->n; u++) {
        if (!sn_topo_is_proc(t, u))
            continue;
        uint32_t e = sn_topo_ecc(t, u, 1);
        if (e < best_e || (e == best_e && sn_topo_degree(t, u) > sn_topo_degree(t, best))) {
            best = u;
            best_e = e;
        }
    }
    return best;
}

static int rb_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (processors(t) < 2)
        return sn_err_set(err, SN_ENOTSUP, "allreduce-rb needs two processors or more");
    return 0;
}

static int rb_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t *n,
                     sn_err_t *err)
{
    int rc = rb_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint64_t M = (uint64_t) p->msgs * p->frags, P = processors(t);
    /* the broadcast brings each packet to the P - 1 other processors, listing all P: refused
     * before the model records anything, which would cost as much */
    if (M * (P - 1) * P > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "allreduce-rb would list at least %llu operands (%llu packets to %llu "
                          "processors), more than the %u this implementation keeps",
                          (unsigned long long) (M * (P - 1) * P), (unsigned long long) M,
                          (unsigned long long) P, SN_REVERSE_MAX_OPERANDS);
    in[0].topo = t;
    sn_params_default(&in[0].params, SN_COLL_BCAST);
    in[0].params.pm = p->pm;
    in[0].params.root = pick_root(t, p);
    in[0].params.msgs = p->msgs;
    in[0].params.frags = p->frags;
    in[0].params.size = p->size;
    in[0].params.seed = p->seed;
    in[0].algo = NULL;
    in[0].what = "broadcast from a centre";
    *n = 1;
    return 0;
}

/* ---- the reduce: the broadcast reversed, its packets relabelled ----------------------------- */

typedef struct {
    const sn_params_t *p;
    int flip; /* packet k becomes M - 1 - k */
} relabel_t;

static int relabel(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    const relabel_t *r = ctx;
    uint64_t M = (uint64_t) r->p->msgs * r->p->frags;
    uint64_t k = (uint64_t) in->seq * r->p->frags + in->frag;
    if (in->seq >= r->p->msgs || in->frag >= r->p->frags)
        return 1;
    if (r->flip)
        k = M - 1 - k;
    *out = (sn_packet_t){.src = SN_SRC_COMBINED,
                         .dst = SN_NODE_ALL,
                         .seq = (uint32_t) (k / r->p->frags),
                         .frag = (uint16_t) (k % r->p->frags),
                         .kind = SN_PKT_DATA};
    return 0;
}

/* ---- the broadcast after the reduce -------------------------------------------------------- */

/* Where the broadcast bc from `root` goes after the reduce in c (slots 1 .. end, its
 * transmissions to the root completing the packets): at[i] the slot of bc's transmission i, 0
 * when it is dropped. Shifted (greedy 0): all of it at the least shift d such that the root holds
 * each combination before it sends it and no resource the reduce takes is used twice; greedy:
 * each transmission in bc's order at the first slot after its sender holds the packet with its
 * resources free (engine/place.h). Returns the last slot. */
static uint64_t place(const sn_topo_t *t, const sn_params_t *p, const sn__combo_t *c, uint64_t end,
                      const sn_sched_t *bc, uint32_t root, int greedy, uint64_t *at)
{
    uint64_t M = (uint64_t) p->msgs * p->frags;
    uint64_t *done = sn_xcalloc(M, sizeof *done); /* the slot the root completes packet k */
    for (size_t i = 0; i < c->n; i++) {
        const sn_sched_ev_t *e = &c->ev[i];
        if (sn_topo_port(t, e->node, e->port)->peer == root) {
            uint64_t k = (uint64_t) e->pkt.seq * p->frags + e->pkt.frag;
            done[k] = e->slot > done[k] ? e->slot : done[k];
        }
    }
    sn__busy_t *b = sn__busy_new(t, p);
    sn__busy_take_combo(b, c);
    relabel_t same = {.p = p, .flip = 0};
    uint64_t last = end;
    if (greedy) {
        uint64_t s = sn__place_greedy(t, p, bc, relabel, &same, done, b, at);
        last = s > last ? s : last;
    } else {
        /* the root sends packet k of the broadcast in slot s: d + s > done[k] */
        uint64_t d = 0;
        for (size_t i = 0; i < bc->n; i++) {
            const sn_sched_ev_t *e = &bc->ev[i];
            if (e->pkt.kind != SN_PKT_DATA || e->node != root)
                continue;
            uint64_t k = (uint64_t) e->pkt.seq * p->frags + e->pkt.frag;
            if (k < M && done[k] >= e->slot && done[k] + 1 - e->slot > d)
                d = done[k] + 1 - e->slot;
        }
        /* the first shift without a shared resource; at d = end the slots are disjoint */
        for (; d < end; d++) {
            size_t i = 0;
            while (i < bc->n &&
                   (bc->ev[i].pkt.kind != SN_PKT_DATA ||
                    !sn__busy_clash(b, bc->ev[i].slot + d, bc->ev[i].node, bc->ev[i].port)))
                i++;
            if (i == bc->n)
                break;
        }
        for (size_t i = 0; i < bc->n; i++) {
            at[i] = bc->ev[i].pkt.kind == SN_PKT_DATA ? bc->ev[i].slot + d : 0;
            last = at[i] > last ? at[i] : last;
        }
    }
    sn__busy_free(b);
    free(done);
    return last;
}

/* The allreduce of broadcast bc from `root`, the reduce labelled by rl, the broadcast placed
 * shifted or greedily, into c; its last slot in *steps. */
static int compose(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *bc, uint32_t root,
                   const relabel_t *rl, int greedy, sn__combo_t *c, uint64_t *steps, sn_err_t *err)
{
    uint64_t end;
    int rc = sn__reverse_append(t, bc, relabel, (void *) rl, 0, c, &end, err);
    if (rc < 0)
        return rc;
    uint32_t P = processors(t);
    uint64_t kept = 0;
    for (size_t i = 0; i < bc->n; i++)
        kept += bc->ev[i].pkt.kind == SN_PKT_DATA;
    if ((uint64_t) c->nid + kept * P > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "allreduce-rb would list %llu operands, more than the %u this "
                          "implementation keeps",
                          (unsigned long long) (c->nid + kept * P), SN_REVERSE_MAX_OPERANDS);
    uint64_t *at = sn_xmalloc((bc->n ? bc->n : 1) * sizeof *at);
    *steps = place(t, p, c, end, bc, root, greedy, at);
    uint32_t *all = sn_xmalloc(P * sizeof *all);
    for (uint32_t u = 0, k = 0; u < t->n; u++)
        if (sn_topo_is_proc(t, u))
            all[k++] = u;
    relabel_t same = {.p = p, .flip = 0};
    for (size_t i = 0; i < bc->n; i++) {
        sn_packet_t out;
        if (at[i] == 0 || relabel(&same, &bc->ev[i].pkt, &out) != 0)
            continue;
        sn__combo_add(c, at[i], bc->ev[i].node, bc->ev[i].port, &out, all, P);
    }
    free(all);
    free(at);
    return 0;
}

/* The shortest of the two labellings of the reduce and the two placements of the broadcast. */
static int rb_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                   void **plan, sn_err_t *err)
{
    (void) n;
    sn__combo_t best = {0};
    uint64_t best_steps = UINT64_MAX;
    int rc = 0;
    for (int v = 0; v < 4 && rc == 0; v++) {
        relabel_t rl = {.p = p, .flip = !(v & 1)};
        sn__combo_t c = {0};
        uint64_t steps = UINT64_MAX;
        rc = compose(t, p, in[0].sched, in[0].params.root, &rl, v >> 1, &c, &steps, err);
        sn__combo_keep_shorter(&best, &best_steps, &c, rc == 0 ? steps : UINT64_MAX);
    }
    if (rc < 0) {
        sn__combo_free(&best);
        return rc;
    }
    return sn__combo_plan(t, p, &best, plan, err);
}

const sn_algo_t sn__algo_allreduce_rb = {
    .name = "allreduce-rb",
    .coll = SN_COLL_ALLREDUCE,
    .pm_mask = SN_REVERSE_PM,
    .topos = "any",
    .summary = "reduce to a centre (the best broadcast from it, reversed) then that broadcast, "
               "overlapped",
    .source = "Bertsekas and Tsitsiklis, section 1.3 (allreduce as accumulation then broadcast); "
              "Dimakopoulos, thesis, section 3.1 (accumulation is the dual of broadcast)",
    .predicts = "the overlapped phases' slots",
    .applies = rb_applies,
    .plan_inputs = rb_inputs,
    .plan_from = rb_from,
    SN__SCHEDULE_REPLAY_FIELDS,
    .parallel = 1,
};
