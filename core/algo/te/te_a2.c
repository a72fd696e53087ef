/* te-a2: single-port total exchange on any cartesian product G_1 x .. x G_k (k >= 2) by algorithm
 * A2 (core/algo). Source: Dimakopoulos, thesis, section 5.3, Fig. 5.3 with Table 5.1; time
 * Theorem 5.3 and Corollary 5.4; optimal by Theorem 5.5 when every factor's total exchange meets
 * the status bound (4.4). Here A2 is played in a per-slot form: every node computes its action in
 * each step from the factor schedules (below).
 *
 * G = A x B with A = G_1 x .. x G_{k-1} (n1 nodes v_i) and B = G_k (n2 nodes u_j); node (v_i, u_j)
 * has id i * n2 + j (row-major, include/stepnet/topo.h), and B's ports follow A's at every node.
 *  - Phase 1 (lines 1-3 of Fig. 5.3): n1 rounds of TE(B) in all copies B_i at once; in round r the
 *    B-label (u_x -> u_y) carries m_{(v_i,u_x)}(v_r,u_y), row R_r of Table 5.1.
 *  - Phase 2 (lines 4-6): n2 rounds of TE(A) in all copies A_j at once; in round k the A-label
 *    (v_x -> v_y) carries m_{(v_x,u_k)}(v_y,u_j): own messages for k = j, else those received in
 *    phase-1 round y.
 * Every round starts with fresh queues and lasts exactly T_B (T_A) steps. For k > 2, TE(A) is A2
 * again on the first k-1 factors (Fig. 5.3, the recursion for k > 2); that schedule is not recorded
 * but computed: the action of a node in a step is found by descending the recursion, O(k) per step.
 *
 * The factors' total exchanges are schedules as data, the plan's inputs: the model records each
 * distinct factor's with --ports single --rx one and the run's msgs and frags (auto-selection:
 * te-cayley on Cayley factors, te-route otherwise) and hands it to plan_from, which keeps every
 * transmission (label, port). So the whole schedule is fixed before the run, and nodes do not
 * store the packets they hold between rounds and phases: as in te-cayley, a node checks every
 * arrival against the schedule (identity, payload digest, arrival port) and fails the run on any
 * difference, and later sends the packet rebuilt from the same identity, which fixes its payload.
 *
 * Port models: in every step a node takes part in one factor total exchange, which sends and
 * receives at most one packet per node (the proof of Theorem 5.3), so --ports single with --rx one
 * or any. Not multiport or half duplex, for the reasons given in te_cayley.c.
 *
 * predicted: Corollary 5.4 over the factors' predictions, T = n sum_i T_i / |V_i| (built as
 * n1 T_B + n2 T_A level by level); this is AS(G) = s_G when every factor is Cayley (Theorem 5.5).
 * None when some factor's algorithm predicts none (meshes: the thesis gives no single-port
 * algorithm for linear arrays); the run then still takes exactly n1 T_B + n2 T_A
 * with the recorded factor step counts, but those are measurements, not a proven count. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/te/te_a2.h"
#include "stepnet/util.h"

#define NIL UINT32_MAX

/* The largest factor schedule kept: transmissions, and factor nodes x steps (the step tables);
 * ring:128 or hypercube:9 fit. Auto-selection builds every candidate's plan, even for `model`, and
 * products with larger factors could hardly be simulated (te-cayley predicts Cayley ones). */
#define MAX_CELLS (1u << 21)

/* One transmission of a factor's total exchange. */
typedef struct {
    uint32_t x, y, seq; /* label: source and destination in the factor, and the packet's seq */
    uint32_t frag;
    uint32_t port, rport; /* the sender's port and the receiver's arrival port */
} fev_t;

typedef struct {
    const sn_topo_t *f;
    uint32_t n;
    uint64_t T;    /* steps (the last slot with a transmission) */
    int64_t pred;  /* its algorithm's prediction, -1 if none */
    fev_t *ev;     /* every transmission */
    uint32_t *snd; /* [T * n] at (s-1) * n + v: the event v sends in step s, or NIL */
    uint32_t *rcv; /* [T * n]: the event v receives in step s (sent in s), or NIL */
} fsched_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    uint32_t k;
    const fsched_t *fs[SN_TOPO_MAX_FACTORS]; /* factor i's schedule (equal factors share one) */
    fsched_t *owned[SN_TOPO_MAX_FACTORS];
    uint32_t nowned;
    uint64_t N[SN_TOPO_MAX_FACTORS + 1];  /* N[L]: nodes of G_1 x .. x G_L */
    uint64_t TL[SN_TOPO_MAX_FACTORS + 1]; /* TL[L]: steps of A2 on G_1 x .. x G_L */
    int64_t predicted;
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u;
    uint32_t base[SN_TOPO_MAX_FACTORS]; /* the first port of each factor at u */
} state_t;

static int te_a2_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    if (t->nfactors < 2 || t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP,
                          "te-a2 needs a cartesian product of at least two factors (torus:AxB, "
                          "mesh:AxB, 'S1*S2'); %s is not one",
                          t->spec);
    return 0;
}

/* ---- factor schedules ----------------------------------------------------------------------- */

static void fsched_free(fsched_t *fs)
{
    if (fs == NULL)
        return;
    free(fs->ev);
    free(fs->snd);
    free(fs->rcv);
    free(fs);
}

/* Indexes schedule s of factor f by (node, step), checking that it is a single-port total
 * exchange schedule with one reception per node per step: the property A2 relies on. */
static int fsched_build(const sn_topo_t *f, const sn_params_t *p, const sn_sched_t *s,
                        fsched_t **out, sn_err_t *err)
{
    uint32_t n = f->n;
    if ((uint64_t) n * s->steps > MAX_CELLS || s->n > MAX_CELLS)
        return sn_err_set(err, SN_ERANGE,
                          "te-a2: the total exchange of factor %s takes %llu steps with %zu "
                          "transmissions, more than the %u this implementation keeps",
                          f->spec, (unsigned long long) s->steps, s->n, MAX_CELLS);
    fsched_t *fs = sn_xcalloc(1, sizeof *fs);
    fs->f = f;
    fs->n = n;
    fs->T = s->steps;
    fs->pred = s->predicted;
    size_t cells = (size_t) n * fs->T;
    fs->ev = sn_xmalloc((s->n ? s->n : 1) * sizeof *fs->ev);
    fs->snd = sn_xmalloc((cells ? cells : 1) * sizeof *fs->snd);
    fs->rcv = sn_xmalloc((cells ? cells : 1) * sizeof *fs->rcv);
    for (size_t i = 0; i < cells; i++)
        fs->snd[i] = fs->rcv[i] = NIL;
    int rc = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const sn_sched_ev_t *e = &s->ev[i];
        const sn_packet_t *k = &e->pkt;
        if (e->slot < 1 || e->slot > fs->T || e->node >= n ||
            e->port >= sn_topo_degree(f, e->node) || k->src >= n || k->dst >= n ||
            k->src == k->dst || k->kind != SN_PKT_DATA || k->seq >= p->msgs ||
            k->frag >= p->frags) {
            rc = sn_err_set(err, SN_EINVAL,
                            "te-a2: transmission %zu of the schedule for %s (slot %llu, node %u, "
                            "port %u, packet %u->%u) is not part of a total exchange there",
                            i, f->spec, (unsigned long long) e->slot, e->node, e->port, k->src,
                            k->dst);
            break;
        }
        const sn_port_t *pp = sn_topo_port(f, e->node, e->port);
        fs->ev[i] = (fev_t){k->src, k->dst, k->seq, k->frag, e->port, pp->rport};
        size_t at = (size_t) (e->slot - 1) * n;
        if (fs->snd[at + e->node] != NIL || fs->rcv[at + pp->peer] != NIL)
            rc = sn_err_set(err, SN_EINVAL,
                            "te-a2: the schedule for %s is not single-port with one reception: "
                            "node %u sends or node %u receives twice in slot %llu",
                            f->spec, e->node, pp->peer, (unsigned long long) e->slot);
        fs->snd[at + e->node] = (uint32_t) i;
        fs->rcv[at + pp->peer] = (uint32_t) i;
    }
    if (rc < 0) {
        fsched_free(fs);
        return rc;
    }
    *out = fs;
    return 0;
}

/* The plan's inputs: each factor's single-port total exchange (auto-selection) with the run's
 * msgs and frags, recorded by the model; equal factors get equal requests, which share one
 * schedule. */
static int te_a2_plan_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in,
                             size_t *n, sn_err_t *err)
{
    int rc = te_a2_applies(t, p, err);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < t->nfactors; i++) {
        const sn_topo_t *f = t->factors[i];
        /* te-cayley and te-route move every packet along a shortest path: this many transmissions
         * (checked before the model records anything, which would cost as much) */
        uint64_t hops = (uint64_t) p->msgs * p->frags * sn_topo_total_distance(f, 0);
        if (hops > MAX_CELLS)
            return sn_err_set(err, SN_ERANGE,
                              "te-a2: the total exchange of factor %s moves %llu packet-hops, "
                              "more than the %u transmissions this implementation keeps",
                              f->spec, (unsigned long long) hops, MAX_CELLS);
        sn_plan_input_t *x = &in[i];
        x->topo = f;
        sn_params_default(&x->params, SN_COLL_TE);
        x->params.pm.ports = SN_PORTS_SINGLE;
        x->params.pm.rx = SN_RX_ONE;
        x->params.pm.duplex = SN_DUPLEX_FULL;
        x->params.msgs = p->msgs;
        x->params.frags = p->frags;
        x->params.size = p->size;
        x->params.seed = p->seed;
        x->algo = NULL;
        x->what = "single-port total exchange";
    }
    *n = t->nfactors;
    return 0;
}

/* ---- plan ------------------------------------------------------------------------------------ */

static void te_a2_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    for (uint32_t i = 0; i < pl->nowned; i++)
        fsched_free(pl->owned[i]);
    free(pl);
}

int sn__te_a2_plan_with(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *const *given,
                        void **out, sn_err_t *err)
{
    *out = NULL;
    int rc = te_a2_applies(t, p, err);
    if (rc < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->k = t->nfactors;
    for (uint32_t i = 0; i < pl->k && rc == 0; i++) {
        for (uint32_t j = 0; j < i && pl->fs[i] == NULL; j++)
            if (given[j] == given[i])
                pl->fs[i] = pl->fs[j]; /* equal factors share one schedule */
        if (pl->fs[i] != NULL)
            continue;
        fsched_t *fs = NULL;
        rc = fsched_build(t->factors[i], p, given[i], &fs, err);
        if (rc == 0) {
            pl->owned[pl->nowned++] = fs;
            pl->fs[i] = fs;
        }
    }
    if (rc < 0) {
        te_a2_plan_free(pl);
        return rc;
    }
    /* Theorem 5.3 level by level: TE on G_1 x .. x G_L takes N[L-1] T(G_L) + n_L TL[L-1] */
    int64_t pred = pl->fs[0]->pred;
    pl->N[0] = 1;
    pl->N[1] = pl->fs[0]->n;
    pl->TL[1] = pl->fs[0]->T;
    for (uint32_t L = 2; L <= pl->k; L++) {
        const fsched_t *B = pl->fs[L - 1];
        pl->N[L] = pl->N[L - 1] * B->n;
        pl->TL[L] = pl->N[L - 1] * B->T + B->n * pl->TL[L - 1];
        pred = (pred < 0 || B->pred < 0) ? -1
                                         : (int64_t) pl->N[L - 1] * B->pred + (int64_t) B->n * pred;
    }
    pl->predicted = pred;
    *out = pl;
    return 0;
}

static int te_a2_plan_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                           void **out, sn_err_t *err)
{
    const sn_sched_t *given[SN_ALGO_MAX_INPUTS];
    if (n != t->nfactors)
        return sn_err_set(err, SN_EINVAL, "te-a2: %zu factor schedules for the %u factors of %s", n,
                          t->nfactors, t->spec);
    for (size_t i = 0; i < n; i++)
        given[i] = in[i].sched;
    return sn__te_a2_plan_with(t, p, given, out, err);
}

static int64_t te_a2_predicted(const void *plan)
{
    return ((const plan_t *) plan)->predicted;
}

/* ---- the per-slot form ---------------------------------------------------------------------- */

#define SEND 0
#define RECV 1

/* What node v of G_1 x .. x G_L (an id in that product) does in step s of A2 there: the factor
 * transmission it sends (dir SEND) or receives (RECV) in step s, or NULL. Sets *fi to the factor
 * whose link is used and (*src, *dst) to the packet's ends as ids in the product. */
static const fev_t *event_at(const plan_t *pl, uint32_t L, uint32_t v, uint64_t s, int dir,
                             uint32_t *fi, uint32_t *src, uint32_t *dst)
{
    const fsched_t *B = pl->fs[L - 1];
    uint32_t nB = B->n;
    if (L == 1) {
        uint32_t i = (dir == SEND ? B->snd : B->rcv)[(size_t) (s - 1) * nB + v];
        if (i == NIL)
            return NULL;
        *fi = 0;
        *src = B->ev[i].x;
        *dst = B->ev[i].y;
        return &B->ev[i];
    }
    uint32_t a = v / nB, b = v % nB;
    uint64_t NA = pl->N[L - 1];
    if (s <= NA * B->T) {
        /* phase 1, round r: B-label (x -> y) carries m_{(a,x)}(r,y) */
        uint64_t r = (s - 1) / B->T, s1 = s - r * B->T;
        uint32_t i = (dir == SEND ? B->snd : B->rcv)[(size_t) (s1 - 1) * nB + b];
        if (i == NIL)
            return NULL;
        *fi = L - 1;
        *src = a * nB + B->ev[i].x;
        *dst = (uint32_t) r * nB + B->ev[i].y;
        return &B->ev[i];
    }
    /* phase 2, round kk: A-label (x -> y) carries m_{(x,kk)}(y,b) */
    uint64_t s2 = s - NA * B->T, TA = pl->TL[L - 1], kk = (s2 - 1) / TA, s1 = s2 - kk * TA;
    uint32_t x, y;
    const fev_t *e = event_at(pl, L - 1, a, s1, dir, fi, &x, &y);
    if (e == NULL)
        return NULL;
    *src = x * nB + (uint32_t) kk;
    *dst = y * nB + b;
    return e;
}

/* ---- node ------------------------------------------------------------------------------------ */

static int te_a2_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    state_t *s = state;
    const plan_t *pl = plan;
    s->pl = pl;
    s->u = node;
    uint32_t base = 0;
    for (uint32_t i = 0; i < pl->k; i++) {
        s->base[i] = base;
        base += sn_topo_degree(pl->t->factors[i], sn_topo_coord(pl->t, node, i));
    }
    return 0;
}

static int te_a2_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    const sn_params_t *p = pl->p;
    uint64_t t = io->slot, T = pl->TL[pl->k];
    uint32_t fi = 0, src = 0, dst = 0;
    const fev_t *e = NULL;
    if (t >= 2 && t - 1 <= T)
        e = event_at(pl, pl->k, s->u, t - 1, RECV, &fi, &src, &dst);
    if (e != NULL) {
        uint32_t ap = s->base[fi] + e->rport;
        sn_packet_t want = sn_packet_data(p, src, dst, e->seq, e->frag);
        const sn_packet_t *got = io->nrx ? &io->rx[0].pkt : NULL;
        if (io->nrx != 1 || io->rx[0].port != ap || got->src != want.src || got->dst != want.dst ||
            got->seq != want.seq || got->frag != want.frag || got->kind != want.kind ||
            got->flags != want.flags || got->tag != want.tag || got->digest != want.digest)
            return sn_err_set(err, SN_EALGO,
                              "te-a2: %zu arrivals (first %u->%u on port %u), the schedule "
                              "expects packet %u->%u seq %u frag %u on port %u",
                              io->nrx, got ? got->src : 0, got ? got->dst : 0,
                              got ? io->rx[0].port : 0, want.src, want.dst, want.seq, want.frag,
                              ap);
        if (dst == s->u)
            sn_step_deliver(io, got);
    } else if (io->nrx != 0) {
        return sn_err_set(err, SN_EALGO, "te-a2: %zu unexpected arrivals (first %u->%u)", io->nrx,
                          io->rx[0].pkt.src, io->rx[0].pkt.dst);
    }
    if (t <= T && (e = event_at(pl, pl->k, s->u, t, SEND, &fi, &src, &dst)) != NULL) {
        sn_packet_t pkt = sn_packet_data(p, src, dst, e->seq, e->frag);
        sn_step_send(io, s->base[fi] + e->port, &pkt);
    }
    if (t < T)
        io->wake = t + 1;
    return 0;
}

const sn_algo_t sn__algo_te_a2 = {
    .name = "te-a2",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY,
    .topos = "cartesian products of any factors (torus, mesh, S1*S2*...)",
    .summary = "algorithm A2: rounds of the factors' single-port total exchanges, one "
               "dimension at a time (Fig. 5.3)",
    .source = "Dimakopoulos, thesis, section 5.3, Fig. 5.3, Table 5.1, Theorem 5.3, "
              "Corollary 5.4, Theorem 5.5",
    .predicts = "n1 T_B + n2 T_A from the factors' predictions (Theorem 5.3, Corollary 5.4; = s_G "
                "on products of Cayley graphs, Theorem 5.5); none if a factor has none",
    .applies = te_a2_applies,
    .plan_inputs = te_a2_plan_inputs,
    .plan_from = te_a2_plan_from,
    .plan_free = te_a2_plan_free,
    .predicted = te_a2_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_a2_node_init,
    .node_fini = NULL,
    .node_step = te_a2_node_step,
    .parallel = 1,
};
