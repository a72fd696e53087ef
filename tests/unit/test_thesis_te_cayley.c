/* Unit tests of the single-port total exchanges of thesis chapters 4-5
 * (core/algo/te/te_cayley.c, core/algo/te/te_a2.c), run in the slot simulator with every
 * transmission recorded:
 *  - te-cayley (Fig. 4.5) on every Cayley family at several sizes: verified, steps == predicted ==
 *    s_G == the status bound (4.4) (Theorem 4.11), values computed apart (CCC, BF, S_n, FQ_d,
 *    hypercycles), every node sends and receives exactly one packet in every step (Lemma 4.8), all
 *    nodes on the same generator, node g's sends are g times node 0's (Lemma 4.9), and the
 *    identity's traces (Q_2, Q_3, R_5, R_6);
 *  - te-a2 (Fig. 5.3) on tori, 3-D tori, generalised hypercubes, hypercycles and meshes: steps ==
 *    n1 T_B + n2 T_A (Theorem 5.3) with the factors' recorded step counts, == s_G on products of
 *    Cayley graphs (Theorem 5.5), and the 4x3 torus of Table 5.1 step by step;
 *  - for both, store-and-forward causality: a node only sends its own packets or packets that
 *    reached it in an earlier slot, and every packet ends at its destination.
 * Node labels: 0-based; product node (a, b) is a * n2 + b. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/te/te_a2.h"
#include "tests/support/testutil.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- recorded runs ------------------------------------------------------------------------ */

typedef struct {
    sn_sched_ev_t *ev; /* in the order the simulator played them */
    size_t n, cap;
} rec_t;

typedef struct {
    tu_run_t r;
    rec_t rec;
} trun_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    rec_t *rec = ctx;
    if (rec->n == rec->cap) {
        rec->cap = rec->cap ? 2 * rec->cap : 1024;
        rec->ev = realloc(rec->ev, rec->cap * sizeof *rec->ev);
        assert_non_null(rec->ev);
    }
    rec->ev[rec->n++] = (sn_sched_ev_t){slot, node, port, *pkt};
}

/* Runs the algorithm of `plan` (already built) and records every transmission. */
static trun_t run_plan(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a, void *plan)
{
    trun_t x;
    memset(&x, 0, sizeof x);
    x.r.algo = a;
    x.r.predicted = a->predicted(plan);
    if (sn_model_bounds(t, p, &x.r.bounds, &x.r.err) < 0)
        fail_msg("bounds on %s: %s", t->spec, x.r.err.msg);
    sn_sim_opts_t opts = {0};
    opts.max_slots = x.r.predicted >= 0 ? 4 * (uint64_t) x.r.predicted + 1024 : 1ull << 40;
    opts.on_send = on_send;
    opts.send_ctx = &x.rec;
    x.r.rc = sn_sim_run(t, p, a, plan, &opts, &x.r.res, &x.r.err);
    a->plan_free(plan);
    if (x.r.rc != 0)
        fail_msg("%s on %s: rc %s: %s", a->name, t->spec, sn_err_name(x.r.rc), x.r.err.msg);
    return x;
}

/* Selects `algo` (NULL = auto) and runs it recorded. */
static trun_t run_rec(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_err_t err = {0};
    if (sn_model_select(algo, t, p, &a, &plan, NULL, &err) < 0)
        fail_msg("selecting %s on %s: %s", algo ? algo : "auto", t->spec, err.msg);
    return run_plan(t, p, a, plan);
}

static void trun_free(trun_t *x)
{
    free(x->rec.ev);
    x->rec.ev = NULL;
}

static uint32_t peer(const sn_topo_t *t, uint32_t u, uint32_t port)
{
    return sn_topo_port(t, u, port)->peer;
}

static int64_t bound_named(const tu_run_t *r, const char *name)
{
    for (size_t i = 0; i < r->bounds.count; i++)
        if (strcmp(r->bounds.b[i].name, name) == 0)
            return r->bounds.b[i].value;
    return -1;
}

/* ---- checks -------------------------------------------------------------------------------- */

/* Verified, every delivery, no bound beaten, and shortest paths: M * (total distance) packets. */
static void check_run(const sn_topo_t *t, const sn_params_t *p, const trun_t *x)
{
    const tu_run_t *r = &x->r;
    uint64_t M = (uint64_t) p->msgs * p->frags;
    if (!r->res.verified)
        fail_msg("%s on %s: did not verify: %s", r->algo->name, t->spec, r->err.msg);
    assert_int_equal(r->res.deliveries, sn_coll_expected_total(t, p));
    if ((int64_t) r->res.steps < r->bounds.best)
        fail_msg("%s on %s: %llu steps, below the bound %lld", r->algo->name, t->spec,
                 (unsigned long long) r->res.steps, (long long) r->bounds.best);
    if (r->res.packets != M * sn_topo_total_distance(t, 0))
        fail_msg("%s on %s: %llu packet-hops, shortest paths need %llu", r->algo->name, t->spec,
                 (unsigned long long) r->res.packets,
                 (unsigned long long) (M * sn_topo_total_distance(t, 0)));
    assert_int_equal(x->rec.n, r->res.packets);
}

/* Store and forward: following every packet through the recorded transmissions, a node only sends
 * a packet it holds (its own from slot 1, or one that reached it at the end of an earlier slot),
 * and at the end every packet is at its destination. */
static void check_causality(const sn_topo_t *t, const sn_params_t *p, const rec_t *rec)
{
    uint64_t M = (uint64_t) p->msgs * p->frags, n = t->n;
    uint32_t *at = malloc(n * n * M * sizeof *at);
    uint64_t *since = calloc(n * n * M, sizeof *since);
    for (uint64_t i = 0; i < n * n * M; i++)
        at[i] = (uint32_t) (i / M / n); /* the source */
    for (size_t i = 0; i < rec->n; i++) {
        const sn_sched_ev_t *e = &rec->ev[i];
        const sn_packet_t *k = &e->pkt;
        assert_true(k->src < n && k->dst < n && k->seq < p->msgs && k->frag < p->frags);
        uint64_t id = ((uint64_t) k->src * n + k->dst) * M + (uint64_t) k->seq * p->frags + k->frag;
        if (at[id] != e->node || since[id] >= e->slot)
            fail_msg("%s: slot %llu: node %u sends %u->%u seq %u frag %u, which is at node %u "
                     "since slot %llu",
                     t->spec, (unsigned long long) e->slot, e->node, k->src, k->dst, k->seq,
                     k->frag, at[id], (unsigned long long) since[id]);
        at[id] = peer(t, e->node, e->port);
        since[id] = e->slot;
    }
    for (uint64_t i = 0; i < n * n * M; i++) {
        uint32_t src = (uint32_t) (i / M / n), dst = (uint32_t) (i / M % n);
        if (src != dst && at[i] != dst)
            fail_msg("%s: packet %u->%u ends at node %u", t->spec, src, dst, at[i]);
    }
    free(at);
    free(since);
}

/* Lemma 4.8 and the single-port model: in every slot 1..T each node sends at most one packet and
 * receives at most one; with `busy`, exactly one of each. With `same_port`, every sender in a slot
 * uses the same port number (for Cayley graphs: the same generator). */
static void check_slots(const sn_topo_t *t, const rec_t *rec, uint64_t T, int busy, int same_port)
{
    uint32_t n = t->n;
    uint32_t *sends = calloc((size_t) n * T, sizeof *sends);
    uint32_t *recvs = calloc((size_t) n * T, sizeof *recvs);
    uint32_t *port = malloc(T * sizeof *port);
    for (uint64_t s = 0; s < T; s++)
        port[s] = UINT32_MAX;
    for (size_t i = 0; i < rec->n; i++) {
        const sn_sched_ev_t *e = &rec->ev[i];
        assert_true(e->slot >= 1 && e->slot <= T);
        sends[(e->slot - 1) * n + e->node]++;
        recvs[(e->slot - 1) * n + peer(t, e->node, e->port)]++;
        if (same_port) {
            if (port[e->slot - 1] == UINT32_MAX)
                port[e->slot - 1] = e->port;
            if (port[e->slot - 1] != e->port)
                fail_msg("%s: slot %llu uses ports %u and %u", t->spec,
                         (unsigned long long) e->slot, port[e->slot - 1], e->port);
        }
    }
    for (uint64_t s = 0; s < T; s++)
        for (uint32_t u = 0; u < n; u++) {
            uint32_t a = sends[s * n + u], b = recvs[s * n + u];
            if (a > 1 || b > 1 || (busy && (a != 1 || b != 1)))
                fail_msg("%s: slot %llu: node %u sends %u and receives %u packets", t->spec,
                         (unsigned long long) s + 1, u, a, b);
        }
    free(sends);
    free(recvs);
    free(port);
}

/* Lemma 4.9 with eq. 4.20: in every slot node g sends g * m where m is what node 0 sends. */
static void check_translates(const sn_topo_t *t, const rec_t *rec, uint64_t T)
{
    sn_packet_t *e0 = calloc(T, sizeof *e0);
    for (size_t i = 0; i < rec->n; i++)
        if (rec->ev[i].node == 0)
            e0[rec->ev[i].slot - 1] = rec->ev[i].pkt;
    for (size_t i = 0; i < rec->n; i++) {
        const sn_sched_ev_t *e = &rec->ev[i];
        const sn_packet_t *m = &e0[e->slot - 1];
        uint32_t g = e->node;
        if (e->pkt.src != sn_topo_mul(t, g, m->src) || e->pkt.dst != sn_topo_mul(t, g, m->dst) ||
            e->pkt.seq != m->seq || e->pkt.frag != m->frag)
            fail_msg("%s: slot %llu: node %u sends %u->%u, node 0 sends %u->%u", t->spec,
                     (unsigned long long) e->slot, g, e->pkt.src, e->pkt.dst, m->src, m->dst);
    }
    free(e0);
}

/* ---- te-cayley ---------------------------------------------------------------------------- */

/* Everything Theorem 4.11 and its lemmas say about one run of te-cayley on t. */
static uint64_t cayley_case(const char *spec, uint32_t msgs, uint32_t frags, const char *rx)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "single", rx, "full");
    p.msgs = msgs;
    p.frags = frags;
    uint64_t M = (uint64_t) msgs * frags, sG = sn_topo_status(t, 0, 0);
    /* vertex-transitive: every node has the same status */
    for (uint32_t u = 1; u < t->n; u += 1 + t->n / 7)
        assert_int_equal(sn_topo_status(t, u, 0), sG);
    trun_t x = run_rec(t, &p, "te-cayley");
    check_run(t, &p, &x);
    uint64_t T = x.r.res.steps;
    if (T != M * sG || x.r.predicted != (int64_t) T)
        fail_msg("te-cayley on %s, M %llu: %llu steps, predicted %lld, M * s_G = %llu", spec,
                 (unsigned long long) M, (unsigned long long) T, (long long) x.r.predicted,
                 (unsigned long long) (M * sG));
    /* optimal: the status bound (4.4) is the same number, and the best bound */
    assert_int_equal(bound_named(&x.r, "status"), (int64_t) T);
    assert_int_equal(x.r.bounds.best, (int64_t) T);
    check_slots(t, &x.rec, T, 1, 1);
    check_translates(t, &x.rec, T);
    check_causality(t, &p, &x.rec);
    trun_free(&x);
    sn_topo_free(t);
    return T;
}

static void test_cayley_rings(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 2; n <= 40; n++) {
        snprintf(spec, sizeof spec, "ring:%u", n);
        /* (4.12): s_R = ceil((n^2 - 1) / 4) */
        assert_int_equal(cayley_case(spec, 1, 1, "one"), (n * n - 1 + 3) / 4);
    }
}

/* (4.13): s = (q + 1)(rho q + p), q = floor((n-1)/(2 rho)), p = (n-1) mod 2 rho. */
static void test_cayley_circulants(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 4; n <= 17; n++) {
        for (uint32_t rho = 1; 2 * rho <= n; rho++) {
            snprintf(spec, sizeof spec, "ering:%u:%u", n, rho);
            uint32_t q = (n - 1) / (2 * rho), pp = (n - 1) % (2 * rho);
            assert_int_equal(cayley_case(spec, 1, 1, "one"), (q + 1) * (rho * q + pp));
        }
    }
    static const char *const specs[] = {"circulant:13:1,5", "circulant:12:2,3",
                                        "circulant:8:1,3",  "circulant:16:1,3,5",
                                        "circulant:17:2,7", "circulant:9:3,4"};
    for (size_t i = 0; i < NELEMS(specs); i++)
        cayley_case(specs[i], 1, 1, "one");
}

static void test_cayley_complete_and_cubes(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 2; n <= 12; n++) {
        snprintf(spec, sizeof spec, "complete:%u", n);
        assert_int_equal(cayley_case(spec, 1, 1, "one"), n - 1); /* (4.11) */
    }
    for (uint32_t d = 1; d <= 8; d++) {
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        assert_int_equal(cayley_case(spec, 1, 1, "one"), d << (d - 1)); /* d 2^(d-1) */
    }
    /* FQ_d: a word of weight w is min(w, d + 1 - w) away (the complement link saves d + 1 - 2w);
     * independently computed: 3, 10, 25, 66, 154 for d = 2..6 */
    static const uint64_t fq_digest[] = {0, 0, 3, 10, 25, 66, 154};
    for (uint32_t d = 2; d <= 7; d++) {
        uint64_t want = 0, binom = 1;
        for (uint32_t w = 1; w <= d; w++) {
            binom = binom * (d - w + 1) / w;
            want += binom * (w < d + 1 - w ? w : d + 1 - w);
        }
        if (d <= 6)
            assert_int_equal(want, fq_digest[d]);
        snprintf(spec, sizeof spec, "foldedcube:%u", d);
        assert_int_equal(cayley_case(spec, 1, 1, "one"), want);
    }
}

/* Independently computed statuses of other Cayley networks (thesis section 4.4), simulated. */
static void test_cayley_digest_values(void **state)
{
    (void) state;
    static const struct {
        const char *spec;
        uint64_t sG;
    } cases[] = {
        {"ccc:3", 74},
        {"ccc:4", 296},
        {"ccc:5", 952},
        {"butterfly:3", 55},
        {"butterfly:4", 216},
        {"butterfly:5", 690},
        {"star:3", 9},
        {"star:4", 62},
        {"star:5", 442},
        {"ering:14:2", 28},
        {"ering:9:2", 12},
        {"ering:10:3", 12},
        {"ering:8:2", 10},
        {"ering:10:2", 15},
        {"ering:12:3", 16},
        {"ering:16:4", 22},
        {"circulant:13:1,5", 20},
        /* generalised hypercube and hypercycle */
        {"complete:3*complete:4", 17},
        {"ering:7:2*ring:5", 82},
        /* products through the torus spec (Theorem 5.1: s = n sum s_i / n_i) */
        {"torus:4x4", 32},
        {"torus:3x5", 28},
        {"torus:3x4x5", 172},
        {"torus:6x6", 108},
        {"torus:8x8", 256},
        {"hypercube:2*ring:5", 44},
        {"complete:2*complete:2*complete:2", 12},
        {"star:3*complete:2", 24},
    };
    for (size_t i = 0; i < NELEMS(cases); i++)
        if (cayley_case(cases[i].spec, 1, 1, "one") != cases[i].sG)
            fail_msg("%s: s_G expected %llu", cases[i].spec, (unsigned long long) cases[i].sG);
}

/* Several packets per pair: M s_G (each destination holds M consecutive queue entries), and the
 * same schedule with --rx any. */
static void test_cayley_packets_per_pair(void **state)
{
    (void) state;
    static const char *const specs[] = {"ring:7",    "hypercube:3", "star:4",
                                        "torus:3x4", "ccc:3",       "complete:5"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        cayley_case(specs[i], 2, 1, "one");
        cayley_case(specs[i], 1, 3, "one");
        cayley_case(specs[i], 2, 2, "any");
    }
}

/* Digest section 5.4: what node e = 0 sends in each step (source, destination, port). Hypercubes:
 * port k is dimension k; rings: port 0 is +1 (clockwise), port 1 is -1. */
typedef struct {
    uint32_t src, dst, port;
} send_t;

static void check_identity_trace(const char *spec, const send_t *want, size_t nwant)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    trun_t x = run_rec(t, &p, NULL); /* auto picks te-cayley */
    assert_string_equal(x.r.algo->name, "te-cayley");
    assert_int_equal(x.r.res.steps, nwant);
    size_t k = 0;
    for (size_t i = 0; i < x.rec.n; i++) {
        const sn_sched_ev_t *e = &x.rec.ev[i];
        if (e->node != 0)
            continue;
        assert_true(k < nwant);
        assert_int_equal(e->slot, k + 1);
        if (e->pkt.src != want[k].src || e->pkt.dst != want[k].dst || e->port != want[k].port)
            fail_msg("%s step %zu: node 0 sends m%u(%u) on port %u, the reference says m%u(%u) on "
                     "port %u",
                     spec, k + 1, e->pkt.src, e->pkt.dst, e->port, want[k].src, want[k].dst,
                     want[k].port);
        k++;
    }
    assert_int_equal(k, nwant);
    trun_free(&x);
    sn_topo_free(t);
}

static void test_cayley_traces_54(void **state)
{
    (void) state;
    static const send_t q2[] = {{0, 3, 1}, {0, 2, 1}, {0, 1, 0}, {2, 1, 0}};
    static const send_t q3[] = {{0, 7, 2}, {0, 6, 2}, {0, 5, 2}, {0, 4, 2}, {0, 3, 1}, {0, 2, 1},
                                {0, 1, 0}, {4, 3, 1}, {4, 2, 1}, {4, 1, 0}, {2, 1, 0}, {6, 1, 0}};
    static const send_t r5[] = {{0, 4, 1}, {0, 3, 1}, {0, 2, 0}, {0, 1, 0}, {1, 4, 1}, {4, 1, 0}};
    static const send_t r6[] = {{0, 5, 1}, {0, 4, 1}, {0, 3, 0}, {0, 2, 0}, {0, 1, 0},
                                {1, 5, 1}, {5, 2, 0}, {5, 1, 0}, {4, 1, 0}};
    check_identity_trace("hypercube:2", q2, NELEMS(q2));
    check_identity_trace("hypercube:3", q3, NELEMS(q3));
    check_identity_trace("ring:5", r5, NELEMS(r5));
    check_identity_trace("ring:6", r6, NELEMS(r6));
}

/* ---- te-a2 --------------------------------------------------------------------------------- */

/* Theorem 5.3 level by level (Corollary 5.4) from the factors' own single-port total exchanges,
 * recorded here by auto-selection: the step count A2 must take. */
static uint64_t a2_steps(const sn_topo_t *t, const sn_params_t *p)
{
    sn_params_t pf = tu_params(SN_COLL_TE, "single", "one", "full");
    pf.msgs = p->msgs;
    pf.frags = p->frags;
    uint64_t N = 1, T = 0;
    for (uint32_t i = 0; i < t->nfactors; i++) {
        const sn_topo_t *f = t->factors[i];
        sn_sched_t *s = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_sched_record(f, &pf, NULL, &s, &err), 0);
        T = i == 0 ? s->steps : N * s->steps + f->n * T; /* n1 T_B + n2 T_A */
        N *= f->n;
        sn_sched_free(s);
    }
    return T;
}

/* One te-a2 run: verified, single-port with one reception, causal, steps == n1 T_B + n2 T_A; on
 * products of Cayley graphs also == predicted == s_G (Theorem 5.5) with every node busy. */
static void a2_case(const char *spec, uint32_t msgs, uint32_t frags)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    p.msgs = msgs;
    p.frags = frags;
    trun_t x = run_rec(t, &p, "te-a2");
    check_run(t, &p, &x);
    uint64_t T = x.r.res.steps, want = a2_steps(t, &p), M = (uint64_t) msgs * frags;
    if (T != want)
        fail_msg("te-a2 on %s: %llu steps, n1 T_B + n2 T_A = %llu", spec, (unsigned long long) T,
                 (unsigned long long) want);
    if (t->cayley) {
        uint64_t sG = M * sn_topo_status(t, 0, 0);
        if (T != sG || x.r.predicted != (int64_t) T)
            fail_msg("te-a2 on %s: %llu steps, predicted %lld, AS = s_G = %llu", spec,
                     (unsigned long long) T, (long long) x.r.predicted, (unsigned long long) sG);
        assert_int_equal(bound_named(&x.r, "status"), (int64_t) T);
    } else {
        assert_int_equal(x.r.predicted, -1); /* a linear factor: no exact count */
    }
    check_slots(t, &x.rec, T, t->cayley, 0);
    check_causality(t, &p, &x.rec);
    /* the same schedule with --rx any */
    p.pm.rx = SN_RX_ANY;
    tu_run_t r2 = tu_sim(t, &p, "te-a2");
    assert_int_equal(r2.rc, 0);
    assert_true(r2.res.verified);
    assert_true(r2.res.trace_hash == x.r.res.trace_hash);
    trun_free(&x);
    sn_topo_free(t);
}

static void test_a2_tori(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t a = 3; a <= 9; a++)
        for (uint32_t b = 3; b <= 9; b++) {
            snprintf(spec, sizeof spec, "torus:%ux%u", a, b);
            a2_case(spec, 1, 1);
        }
}

static void test_a2_products(void **state)
{
    (void) state;
    static const char *const specs[] = {
        "torus:3x4x5",
        "torus:3x3x3",
        "torus:4x4x4",
        "torus:2x3x4",
        "torus:3x3x3x3",
        "complete:2*complete:2*complete:2",
        "complete:2*complete:2*complete:2*complete:2*complete:2",
        "complete:3*complete:4",
        "complete:4*complete:3*complete:2",
        "ering:7:2*ring:5",
        "hypercube:2*ring:5",
        "star:3*ring:4",
        "ccc:3*complete:2",
    };
    for (size_t i = 0; i < NELEMS(specs); i++)
        a2_case(specs[i], 1, 1);
    a2_case("torus:3x4", 2, 1);
    a2_case("torus:3x4x2", 1, 2);
    a2_case("complete:3*complete:4", 2, 2);
}

/* Meshes: the factors run te-route (no prediction), so A2 predicts none; it still takes exactly
 * n1 T_B + n2 T_A and stays above the bounds. */
static void test_a2_meshes(void **state)
{
    (void) state;
    static const char *const specs[] = {"mesh:2x2",   "mesh:3x3",        "mesh:4x3",
                                        "mesh:4x4",   "mesh:5x5",        "mesh:2x3x4",
                                        "mesh:3x3x3", "ring:3*linear:4", "linear:3*complete:3"};
    for (size_t i = 0; i < NELEMS(specs); i++)
        a2_case(specs[i], 1, 1);
    a2_case("mesh:3x4", 2, 2);
}

/* Table 5.1: the 4x3 torus as A = R_3 (first coordinate a) times B = R_4
 * (second coordinate b), node (a, b) = 4a + b. Node (0,0)'s sends and receptions in all 20 steps:
 * rounds r = 0..2 of TE(R_4) carry row R_r (destinations (r, *)), then rounds k = 0..3 of TE(R_3)
 * carry the messages of (0, k). `r4` is the identity's R_4 trace the run used. */
typedef struct {
    uint32_t src, dst, peer; /* a send: packet src -> dst to neighbour peer; a reception: from */
} io_t;

static uint32_t node(uint32_t a, uint32_t b)
{
    return 4 * a + b;
}

static void check_table51(const trun_t *x, const sn_topo_t *t, const io_t *r4_send,
                          const io_t *r4_recv)
{
    assert_int_equal(x->r.res.steps, 20);
    io_t want_send[21], want_recv[21];
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t s = 0; s < 4; s++) {
            /* phase 1, round r: B-label (x -> y) carries m_{(0,x)}(r,y) */
            want_send[4 * r + s + 1] =
                (io_t){node(0, r4_send[s].src), node(r, r4_send[s].dst), node(0, r4_send[s].peer)};
            want_recv[4 * r + s + 1] =
                (io_t){node(0, r4_recv[s].src), node(r, r4_recv[s].dst), node(0, r4_recv[s].peer)};
        }
    for (uint32_t k = 0; k < 4; k++) {
        /* phase 2, round k, R_3 trace [m0(2) -> -1, m0(1) -> +1]: A-label (x -> y) carries
         * m_{(x,k)}(y,0); node 0 receives m1(0) from 1, then m2(0) from 2 */
        want_send[13 + 2 * k] = (io_t){node(0, k), node(2, 0), node(2, 0)};
        want_send[14 + 2 * k] = (io_t){node(0, k), node(1, 0), node(1, 0)};
        want_recv[13 + 2 * k] = (io_t){node(1, k), node(0, 0), node(1, 0)};
        want_recv[14 + 2 * k] = (io_t){node(2, k), node(0, 0), node(2, 0)};
    }
    int got_send[21] = {0}, got_recv[21] = {0};
    for (size_t i = 0; i < x->rec.n; i++) {
        const sn_sched_ev_t *e = &x->rec.ev[i];
        uint32_t to = peer(t, e->node, e->port);
        if (e->node == 0) {
            const io_t *w = &want_send[e->slot];
            if (e->pkt.src != w->src || e->pkt.dst != w->dst || to != w->peer)
                fail_msg("step %llu: (0,0) sends %u->%u to %u, Table 5.1 says %u->%u to %u",
                         (unsigned long long) e->slot, e->pkt.src, e->pkt.dst, to, w->src, w->dst,
                         w->peer);
            got_send[e->slot]++;
        }
        if (to == 0) {
            const io_t *w = &want_recv[e->slot];
            if (e->pkt.src != w->src || e->pkt.dst != w->dst || e->node != w->peer)
                fail_msg("step %llu: (0,0) receives %u->%u from %u, Table 5.1 says %u->%u from "
                         "%u",
                         (unsigned long long) e->slot, e->pkt.src, e->pkt.dst, e->node, w->src,
                         w->dst, w->peer);
            got_recv[e->slot]++;
        }
    }
    for (int s = 1; s <= 20; s++) {
        assert_int_equal(got_send[s], 1);
        assert_int_equal(got_recv[s], 1);
    }
}

/* The registered te-a2: R_4 with te-cayley's node-id order (queue [m0(1) m0(2) m0(3)], head
 * m0(3)): [m0(3) -> -1, m0(2) -> +1, m0(1) -> +1, m3(1) -> +1]. Steps 3-20 are the reference
 * listing of Table 5.1; steps 1 and 2 are exchanged, because that listing used the R_4 order
 * [m0(1) m0(3) m0(2)] (head m0(2), furthest first) while the identity traces of R_5 and R_6 use
 * node-id order. Any fixed order is optimal (Theorem 4.11): T = 20 either way. */
static void test_a2_table51(void **state)
{
    (void) state;
    static const io_t r4_send[] = {{0, 3, 3}, {0, 2, 1}, {0, 1, 1}, {3, 1, 1}};
    static const io_t r4_recv[] = {{1, 0, 1}, {3, 1, 3}, {3, 0, 3}, {2, 0, 3}};
    static const char *const specs[] = {"torus:3x4", "ring:3*ring:4"};
    for (size_t i = 0; i < NELEMS(specs); i++) {
        sn_topo_t *t = tu_topo(specs[i]);
        sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
        trun_t x = run_rec(t, &p, "te-a2");
        check_run(t, &p, &x);
        assert_int_equal(x.r.predicted, 20);
        assert_int_equal(x.r.bounds.best, 20); /* AS = 20 */
        check_table51(&x, t, r4_send, r4_recv);
        trun_free(&x);
        sn_topo_free(t);
    }
}

/* A factor schedule from an identity trace on a ring R_n: node g sends (g + x) -> (g + y) on port
 * `port` in step s (Fig. 4.5 at every node, Lemma 4.9). */
static sn_sched_t *ring_schedule(const sn_topo_t *f, const send_t *trace, size_t T)
{
    sn_sched_t *s = calloc(1, sizeof *s);
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    s->n = f->n * T;
    s->ev = calloc(s->n, sizeof *s->ev);
    for (size_t k = 0; k < T; k++)
        for (uint32_t g = 0; g < f->n; g++) {
            uint32_t src = (g + trace[k].src) % f->n, dst = (g + trace[k].dst) % f->n;
            s->ev[k * f->n + g] =
                (sn_sched_ev_t){k + 1, g, trace[k].port, sn_packet_data(&p, src, dst, 0, 0)};
        }
    s->steps = T;
    s->predicted = (int64_t) T;
    return s;
}

/* The reference listing of Table 5.1 exactly: A2 composed with the R_4 identity trace it gives,
 * [m0(2) -> +1, m0(3) -> -1, m0(1) -> +1, m3(1) -> +1], and R_3 recorded as usual. */
static void test_a2_table51_digest_listing(void **state)
{
    (void) state;
    static const send_t r4_trace[] = {{0, 2, 0}, {0, 3, 1}, {0, 1, 0}, {3, 1, 0}};
    static const io_t r4_send[] = {{0, 2, 1}, {0, 3, 3}, {0, 1, 1}, {3, 1, 1}};
    static const io_t r4_recv[] = {{3, 1, 3}, {1, 0, 1}, {3, 0, 3}, {2, 0, 3}};
    sn_topo_t *t = tu_topo("torus:3x4");
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    sn_sched_t *r4 = ring_schedule(t->factors[1], r4_trace, NELEMS(r4_trace));
    sn_sched_t *r3 = NULL; /* R_3 recorded as te-a2's plan_inputs ask: single-port, auto */
    sn_plan_input_t in[SN_ALGO_MAX_INPUTS] = {0};
    size_t nin = 0;
    sn_err_t err = {0};
    tu_assert_rc(sn__algo_te_a2.plan_inputs(t, &p, in, &nin, &err), 0);
    assert_int_equal(nin, 2);
    assert_ptr_equal(in[0].topo, t->factors[0]);
    tu_assert_rc(sn_sched_record(in[0].topo, &in[0].params, in[0].algo, &r3, &err), 0);
    const sn_sched_t *given[2] = {r3, r4};
    void *plan = NULL;
    tu_assert_rc(sn__te_a2_plan_with(t, &p, given, &plan, &err), 0);
    trun_t x = run_plan(t, &p, &sn__algo_te_a2, plan);
    check_run(t, &p, &x);
    assert_int_equal(x.r.predicted, 20);
    check_table51(&x, t, r4_send, r4_recv);
    check_causality(t, &p, &x.rec);
    trun_free(&x);
    /* a given schedule that is not single-port is refused */
    r4->ev[1].node = 0; /* node 0 now sends twice in slot 1 */
    tu_assert_rc(sn__te_a2_plan_with(t, &p, given, &plan, &err), SN_EINVAL);
    assert_non_null(strstr(err.msg, "single-port"));
    sn_sched_free(r3);
    sn_sched_free(r4);
    sn_topo_free(t);
}

/* ---- selection and refusals ------------------------------------------------------------------ */

static void test_selection(void **state)
{
    (void) state;
    static const struct {
        const char *spec, *ports, *rx, *duplex, *algo;
    } cases[] = {
        /* single-port on Cayley graphs: te-cayley (ties with te-a2 on products go to it) */
        {"hypercube:4", "single", "one", "full", "te-cayley"},
        {"star:4", "single", "any", "full", "te-cayley"},
        {"torus:4x4", "single", "one", "full", "te-cayley"},
        {"complete:3*complete:4", "single", "any", "full", "te-cayley"},
        /* single-port on other products: neither te-a2 nor te-route predicts, so a dry run of
         * each decides: a tie at 64 on mesh:4x4 (te-a2, registered first), te-route's 29 against
         * te-a2's 32 on ring:3*linear:4 with any number of receptions */
        {"mesh:4x4", "single", "one", "full", "te-a2"},
        {"ring:3*linear:4", "single", "any", "full", "te-route"},
        /* multiport half-duplex on 2-D tori: the thesis's A3 */
        {"torus:4x4", "multi", "one", "half", "te-a3"},
        /* multiport full-duplex hypercubes: te-hypercube, 2^(d-1) */
        {"hypercube:4", "multi", "one", "full", "te-hypercube"},
        /* everything else: te-route */
        {"hypercube:4", "multi", "one", "half", "te-route"},
        {"ring:8", "single", "one", "half", "te-route"},
        {"linear:5", "single", "one", "full", "te-route"},
        {"fattree:2:3:2,2,2", "multi", "one", "full", "te-route"}, /* c_1 > 1: no chapter-6 alg. */
        /* fat trees: the chapter-6 algorithm (Fig. 6.8 single-port, Fig. 6.11 multiport) */
        {"fattree:2:3", "single", "any", "full", "te-fattree"},
        {"fattree:2:3", "multi", "one", "full", "te-fattree"},
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(SN_COLL_TE, cases[i].ports, cases[i].rx, cases[i].duplex);
        const sn_algo_t *a = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(NULL, t, &p, &a, NULL, NULL, &err), 0);
        if (strcmp(a->name, cases[i].algo) != 0)
            fail_msg("%s %s/%s/%s: auto chose %s, expected %s", cases[i].spec, cases[i].ports,
                     cases[i].rx, cases[i].duplex, a->name, cases[i].algo);
        sn_topo_free(t);
    }
}

static void test_refusals(void **state)
{
    (void) state;
    static const struct {
        const char *algo, *spec, *ports, *rx, *duplex, *needle;
    } cases[] = {
        {"te-cayley", "linear:4", "single", "one", "full", "Cayley"},
        {"te-cayley", "mesh:3x3", "single", "one", "full", "Cayley"},
        {"te-cayley", "ring:3*linear:4", "single", "one", "full", "Cayley"},
        {"te-cayley", "fattree:2:2", "single", "one", "full", "Cayley"},
        {"te-cayley", "hypercube:3", "multi", "one", "full", "multi"},
        {"te-cayley", "hypercube:3", "single", "one", "half", "half"},
        {"te-a2", "ring:6", "single", "one", "full", "product"},
        {"te-a2", "hypercube:3", "single", "one", "full", "product"},
        {"te-a2", "torus:3x3", "multi", "one", "full", "multi"},
        {"te-a2", "torus:3x3", "single", "any", "half", "half"},
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(SN_COLL_TE, cases[i].ports, cases[i].rx, cases[i].duplex);
        const sn_algo_t *a = NULL;
        void *plan = NULL;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select(cases[i].algo, t, &p, &a, &plan, NULL, &err), SN_ENOTSUP);
        assert_null(plan);
        if (strstr(err.msg, cases[i].algo) == NULL || strstr(err.msg, cases[i].needle) == NULL)
            fail_msg("%s on %s: message '%s' should name %s and %s", cases[i].algo, cases[i].spec,
                     err.msg, cases[i].algo, cases[i].needle);
        sn_topo_free(t);
    }
    /* a file: graph is not Cayley even when it is a ring */
    char *path = tu_tmpfile("0 1\n1 2\n2 3\n3 0\n");
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    sn_err_t err = {0};
    const sn_algo_t *a = NULL;
    tu_assert_rc(sn_model_select("te-cayley", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
    sn_topo_free(t);
    remove(path);
    free(path);
}

/* Sizes past the plans' limits: te-cayley still predicts s_G (auto-selection and `model` show it)
 * but refuses to run; te-a2 refuses a factor whose schedule is too large to keep. */
static void test_too_large(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:256x256"); /* s_G = 2^23 */
    sn_params_t p = tu_params(SN_COLL_TE, "single", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t pred = -1;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select(NULL, t, &p, &a, &plan, &pred, &err), 0);
    assert_string_equal(a->name, "te-cayley");
    assert_int_equal(pred, 1 << 23);
    void *st = calloc(1, a->state_size);
    tu_assert_rc(a->node_init(plan, 0, st, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "too large to run"));
    free(st);
    a->plan_free(plan);
    sn_topo_free(t);
    t = tu_topo("ring:256*ring:3");
    tu_assert_rc(sn_model_select("te-a2", t, &p, &a, &plan, &pred, &err), SN_ERANGE);
    assert_non_null(strstr(err.msg, "ring:256"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cayley_rings),
        cmocka_unit_test(test_cayley_circulants),
        cmocka_unit_test(test_cayley_complete_and_cubes),
        cmocka_unit_test(test_cayley_digest_values),
        cmocka_unit_test(test_cayley_packets_per_pair),
        cmocka_unit_test(test_cayley_traces_54),
        cmocka_unit_test(test_a2_tori),
        cmocka_unit_test(test_a2_products),
        cmocka_unit_test(test_a2_meshes),
        cmocka_unit_test(test_a2_table51),
        cmocka_unit_test(test_a2_table51_digest_listing),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
