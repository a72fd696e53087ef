/* Unit tests of the slot simulator (core/sim) with deliberately illegal algorithms: scripted node
 * state machines defined here break the port model, send on missing ports, deliver wrongly, never
 * finish, wake themselves in the past or fail, and sn_sim_run must stop each with the right code
 * and a message naming the slot and the node. Also: control-packet accounting, the step count,
 * node_steps and the event-driven skipping of idle stretches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/testutil.h"

/* ---- a scripted algorithm --------------------------------------------------------------------
 * The plan is a list of sends (slot, node, port, packet); each node sends its events in their
 * slots and asks to be woken at its next one. Receivers deliver the data packets addressed to them
 * (or, with the flags below, deliver wrongly). Extra behaviours make the illegal cases. */

typedef struct {
    uint64_t slot;
    uint32_t node, port;
    uint32_t src, dst, seq, frag;
    uint8_t kind;    /* SN_PKT_DATA or SN_PKT_CONTROL */
    uint8_t corrupt; /* flip the digest */
} ev_t;

enum {
    DLV_NORMAL = 0, /* deliver data packets addressed here */
    DLV_ALL,        /* deliver every packet received, wherever it goes */
    DLV_TWICE,      /* deliver each addressed packet twice in the same step */
};

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    const ev_t *ev;
    size_t nev;
    int dlv;
    /* misbehaviours: a node that wakes itself every `spin` slots forever (0 = none) */
    uint32_t spin_node;
    uint64_t spin;
    /* a node that asks for a wake at `past_wake` when stepped at `past_at` (0 = none) */
    uint32_t past_node;
    uint64_t past_at, past_wake;
    /* node_step failing at (fail_node, fail_slot) with fail_code (0 = never) */
    uint32_t fail_node;
    uint64_t fail_slot;
    int fail_code;
    /* node_init failing at init_fail_node with init_fail_code (0 = never) */
    uint32_t init_fail_node;
    int init_fail_code;
    /* nodes that drop their pending wake when something arrives */
    int cancel_on_rx;
    /* arrival ports seen by log_node, in the order presented (log may be NULL) */
    uint32_t log_node;
    uint32_t *log;
    size_t *nlog;
} script_t;

typedef struct {
    const script_t *sc;
    uint32_t u;
    void *mem; /* allocated by init, released by fini (leaks show under ASan) */
} sstate_t;

static int script_plan_new(const sn_topo_t *t, const sn_params_t *p, void **plan, sn_err_t *err)
{
    (void) t;
    (void) p;
    (void) err;
    *plan = NULL; /* the tests build the script themselves */
    return 0;
}

static void script_plan_free(void *plan)
{
    (void) plan;
}

static int64_t script_predicted(const void *plan)
{
    (void) plan;
    return -1;
}

static int script_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    const script_t *sc = plan;
    sstate_t *s = state;
    if (sc->init_fail_code && node == sc->init_fail_node)
        return sn_err_set(err, sc->init_fail_code, "init refused node %u", node);
    s->sc = sc;
    s->u = node;
    s->mem = malloc(16);
    return 0;
}

static void script_fini(void *state)
{
    sstate_t *s = state;
    free(s->mem);
    s->mem = NULL;
}

static sn_packet_t ev_packet(const script_t *sc, const ev_t *e)
{
    sn_packet_t k = sn_packet_data(sc->p, e->src, e->dst, e->seq, e->frag);
    if (e->kind == SN_PKT_CONTROL) {
        k.kind = SN_PKT_CONTROL;
        k.digest = 42;
    }
    if (e->corrupt)
        k.digest ^= 1;
    return k;
}

static int script_step(void *state, sn_step_t *io, sn_err_t *err)
{
    sstate_t *s = state;
    const script_t *sc = s->sc;
    if (sc->fail_code && s->u == sc->fail_node && io->slot == sc->fail_slot)
        return sn_err_set(err, sc->fail_code, "scripted failure");
    for (size_t i = 0; i < io->nrx; i++) {
        const sn_packet_t *k = &io->rx[i].pkt;
        if (sc->log && s->u == sc->log_node)
            sc->log[(*sc->nlog)++] = io->rx[i].port;
        int mine =
            k->kind == SN_PKT_DATA && (k->dst == s->u || (k->dst == SN_NODE_ALL && k->src != s->u));
        if (sc->dlv == DLV_ALL || mine)
            sn_step_deliver(io, k);
        if (sc->dlv == DLV_TWICE && mine)
            sn_step_deliver(io, k);
    }
    uint64_t next = SN_WAKE_NEVER;
    for (size_t i = 0; i < sc->nev; i++) {
        const ev_t *e = &sc->ev[i];
        if (e->node != s->u)
            continue;
        if (e->slot == io->slot) {
            sn_packet_t k = ev_packet(sc, e);
            sn_step_send(io, e->port, &k);
        } else if (e->slot > io->slot && e->slot < next) {
            next = e->slot;
        }
    }
    if (sc->cancel_on_rx && io->nrx > 0)
        next = SN_WAKE_NEVER;
    if (sc->spin && s->u == sc->spin_node)
        next = io->slot + sc->spin;
    if (sc->past_at && s->u == sc->past_node && io->slot == sc->past_at)
        next = sc->past_wake;
    io->wake = next;
    return 0;
}

/* The descriptor: pm_mask SN_PM_ALL, so the model lets it run under every port model. */
static sn_algo_t script_algo(sn_coll_t coll)
{
    sn_algo_t a;
    memset(&a, 0, sizeof a);
    a.name = "test-script";
    a.coll = coll;
    a.pm_mask = SN_PM_ALL;
    a.topos = "any";
    a.summary = "scripted sends for the simulator's tests";
    a.source = "tests/unit/test_sim.c";
    a.predicts = "none";
    a.plan_new = script_plan_new;
    a.plan_free = script_plan_free;
    a.predicted = script_predicted;
    a.state_size = sizeof(sstate_t);
    a.node_init = script_init;
    a.node_fini = script_fini;
    a.node_step = script_step;
    return a;
}

typedef struct {
    int rc;
    sn_err_t err;
    sn_sim_result_t res;
} srun_t;

/* Runs the script on (t, p) with an optional slot limit. */
static srun_t run_script(const sn_topo_t *t, const sn_params_t *p, script_t *sc, uint64_t max_slots)
{
    srun_t r;
    memset(&r, 0, sizeof r);
    sc->t = t;
    sc->p = p;
    sn_algo_t a = script_algo(p->coll);
    sn_err_t e = {0};
    tu_assert_rc(sn_model_check(&a, t, p, &e), 0);
    tu_assert_rc(sn_params_check(t, p, &e), 0);
    sn_sim_opts_t opts = {0};
    opts.max_slots = max_slots;
    r.rc = sn_sim_run(t, p, &a, sc, &opts, &r.res, &r.err);
    return r;
}

/* The error names the slot ("slot N") and the node by its label. */
static void assert_names(const srun_t *r, const sn_topo_t *t, uint64_t slot, uint32_t node)
{
    char want[64], lbl[SN_TOPO_MAX_LABEL];
    snprintf(want, sizeof want, "slot %llu", (unsigned long long) slot);
    if (strstr(r->err.msg, want) == NULL)
        fail_msg("'%s' does not name '%s'", r->err.msg, want);
    snprintf(want, sizeof want, "node %s", sn_topo_label(t, node, lbl, sizeof lbl));
    if (strstr(r->err.msg, want) == NULL)
        fail_msg("'%s' does not name '%s'", r->err.msg, want);
}

static void assert_has(const char *msg, const char *what)
{
    if (strstr(msg, what) == NULL)
        fail_msg("'%s' does not contain '%s'", msg, what);
}

static sn_topo_t *file_topo(const char *text)
{
    char *path = tu_tmpfile(text);
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", path);
    sn_topo_t *t = tu_topo(spec);
    unlink(path);
    free(path);
    return t;
}

#define EV(s, n, pt, sr, ds, sq)                                                                   \
    {                                                                                              \
        (s), (n), (pt), (sr), (ds), (sq), 0, SN_PKT_DATA, 0                                        \
    }
#define ALL SN_NODE_ALL

/* ---- port model ------------------------------------------------------------------------------ */

/* Multiport: one packet per directed link per slot. Two packets on one port fail; on two parallel
 * links to the same neighbour they are fine. */
static void test_two_packets_one_port(void **state)
{
    (void) state;
    sn_topo_t *t = file_topo("0 1\n0 1\n");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    p.msgs = 2;
    const ev_t bad[] = {EV(1, 0, 0, 0, ALL, 0), EV(1, 0, 0, 0, ALL, 1)};
    script_t sc = {.ev = bad, .nev = 2};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EPORT);
    assert_names(&r, t, 1, 0);
    assert_has(r.err.msg, "port 0");
    const ev_t good[] = {EV(1, 0, 0, 0, ALL, 0), EV(1, 0, 1, 0, ALL, 1)};
    script_t sc2 = {.ev = good, .nev = 2};
    r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 1);
    assert_int_equal(r.res.packets, 2);
    assert_int_equal(r.res.max_slot_sends, 2);
    /* the same packet on two ports is a duplicate delivery, not a port violation */
    const ev_t dup[] = {EV(1, 0, 0, 0, ALL, 0), EV(1, 0, 1, 0, ALL, 0)};
    script_t sc3 = {.ev = dup, .nev = 2};
    r = run_script(t, &p, &sc3, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    assert_has(r.err.msg, "twice");
    sn_topo_free(t);
}

/* Single-port: one send per node per slot; multiport allows one per port. Ring 4: node 0's port
 * 0 leads to 1, port 1 to 3. A scatter from 0: 0->2 and 0->3 in slot 1, then 0->1 and the
 * forward of 0->2. */
static void test_single_port_one_send(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:4");
    assert_int_equal(sn_topo_port(t, 0, 0)->peer, 1);
    assert_int_equal(sn_topo_port(t, 0, 1)->peer, 3);
    const ev_t evs[] = {EV(1, 0, 0, 0, 2, 0), EV(1, 0, 1, 0, 3, 0), EV(2, 0, 0, 0, 1, 0),
                        EV(2, 1, 0, 0, 2, 0)};
    script_t sc = {.ev = evs, .nev = 4};
    static const char *const singles[][2] = {{"one", "full"}, {"any", "full"}, {"one", "half"}};
    for (size_t i = 0; i < 3; i++) {
        sn_params_t p = tu_params(SN_COLL_SCATTER, "single", singles[i][0], singles[i][1]);
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, SN_EPORT);
        assert_names(&r, t, 1, 0);
        assert_has(r.err.msg, "single-port");
    }
    for (int half = 0; half < 2; half++) {
        sn_params_t p = tu_params(SN_COLL_SCATTER, "multi", "one", half ? "half" : "full");
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, 0);
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, 2);
        assert_int_equal(r.res.packets, 4);
        assert_int_equal(r.res.deliveries, 3);
        assert_int_equal(r.res.expected_deliveries, 3);
        assert_int_equal(r.res.max_slot_sends, 2);
    }
    sn_topo_free(t);
}

/* Single-port with --rx one: at most one reception per node per slot; --rx any lifts it, and
 * multiport never limits receptions. Linear 3 (labels 1, 2, 3), gather at the middle node. */
static void test_single_port_one_reception(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    const ev_t evs[] = {EV(1, 0, 0, 0, 1, 0), EV(1, 2, 0, 2, 1, 0)};
    script_t sc = {.ev = evs, .nev = 2};
    for (int half = 0; half < 2; half++) {
        sn_params_t p = tu_params(SN_COLL_GATHER, "single", "one", half ? "half" : "full");
        p.root = 1;
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, SN_EPORT);
        assert_names(&r, t, 1, 1); /* the receiver */
        assert_has(r.err.msg, "rx one");
        /* links: the message names both of them */
        char l0[16], l1[16];
        snprintf(l0, sizeof l0, "%u", sn_topo_link_id(t, 0, 0));
        snprintf(l1, sizeof l1, "%u", sn_topo_link_id(t, 2, 0));
        assert_has(r.err.msg, l0);
        assert_has(r.err.msg, l1);
    }
    static const char *const ok[][3] = {
        {"single", "any", "full"}, {"single", "any", "half"}, {"multi", "one", "full"}};
    for (size_t i = 0; i < 3; i++) {
        sn_params_t p = tu_params(SN_COLL_GATHER, ok[i][0], ok[i][1], ok[i][2]);
        p.root = 1;
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, 0);
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, 1);
    }
    /* one reception per slot is fine: the same two sends in different slots */
    const ev_t seq[] = {EV(1, 0, 0, 0, 1, 0), EV(2, 2, 0, 2, 1, 0)};
    script_t sc2 = {.ev = seq, .nev = 2};
    sn_params_t p = tu_params(SN_COLL_GATHER, "single", "one", "full");
    p.root = 1;
    srun_t r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 2);
    sn_topo_free(t);
}

/* Half duplex: one packet per edge per slot in either direction. Both ends of the edge of
 * linear:2 send to each other in slot 1 (a total exchange). */
static void test_half_duplex(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    const ev_t evs[] = {EV(1, 0, 0, 0, 1, 0), EV(1, 1, 0, 1, 0, 0)};
    script_t sc = {.ev = evs, .nev = 2};
    static const char *const pms[][2] = {{"multi", "one"}, {"single", "one"}, {"single", "any"}};
    for (size_t i = 0; i < 3; i++) {
        sn_params_t p = tu_params(SN_COLL_TE, pms[i][0], pms[i][1], "half");
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, SN_EPORT);
        assert_has(r.err.msg, "slot 1");
        assert_has(r.err.msg, "half duplex");
        assert_has(r.err.msg, "edge");
        p.pm.duplex = SN_DUPLEX_FULL;
        r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, 0);
        assert_true(r.res.verified);
        assert_int_equal(r.res.steps, 1);
    }
    /* one direction per slot is fine under half duplex */
    const ev_t alt[] = {EV(1, 0, 0, 0, 1, 0), EV(2, 1, 0, 1, 0, 0)};
    script_t sc2 = {.ev = alt, .nev = 2};
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "half");
    srun_t r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 2);
    /* parallel edges are separate edges: both directions at once on different ones is fine */
    sn_topo_t *t2 = file_topo("0 1\n0 1\n");
    const ev_t par[] = {EV(1, 0, 0, 0, 1, 0), EV(1, 1, 1, 1, 0, 0)};
    script_t sc3 = {.ev = par, .nev = 2};
    r = run_script(t2, &p, &sc3, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    const ev_t same[] = {EV(1, 0, 1, 0, 1, 0), EV(1, 1, 1, 1, 0, 0)};
    script_t sc4 = {.ev = same, .nev = 2};
    r = run_script(t2, &p, &sc4, 0);
    tu_assert_rc(r.rc, SN_EPORT);
    sn_topo_free(t2);
    sn_topo_free(t);
}

/* A send on a port the node does not have is an algorithm error. */
static void test_missing_port(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:5");
    const ev_t evs[] = {EV(1, 0, 0, 0, ALL, 0), EV(2, 1, 2, 0, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 2};
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EALGO);
    assert_names(&r, t, 2, 1);
    assert_has(r.err.msg, "port 2");
    sn_topo_free(t);
}

/* ---- verification ---------------------------------------------------------------------------- */

/* A packet delivered at a node that is not its destination. */
static void test_wrong_node(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    const ev_t evs[] = {EV(1, 0, 0, 0, 2, 0)};
    script_t sc = {.ev = evs, .nev = 1, .dlv = DLV_ALL};
    sn_params_t p = tu_params(SN_COLL_SCATTER, "multi", "one", "full");
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    assert_has(r.err.msg, "must not receive");
    /* a control packet is never a delivery */
    ev_t ctl = EV(1, 0, 0, 0, 1, 0);
    ctl.kind = SN_PKT_CONTROL;
    script_t sc2 = {.ev = &ctl, .nev = 1, .dlv = DLV_ALL};
    r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    /* nor a sequence number beyond --msgs */
    const ev_t seq[] = {EV(1, 0, 0, 0, 1, 1)};
    script_t sc3 = {.ev = seq, .nev = 1};
    r = run_script(t, &p, &sc3, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    /* nor a broadcast packet in a personalised collective */
    const ev_t bc[] = {EV(1, 0, 0, 0, ALL, 0)};
    script_t sc4 = {.ev = bc, .nev = 1};
    r = run_script(t, &p, &sc4, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    sn_topo_free(t);
}

/* A payload whose digest does not match. */
static void test_corrupt_digest(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    ev_t e = EV(1, 0, 0, 0, ALL, 0);
    e.corrupt = 1;
    script_t sc = {.ev = &e, .nev = 1};
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    assert_has(r.err.msg, "corrupt");
    /* the digest depends on the run seed: packets made for seed 2 are corrupt in a seed-1 run */
    sn_params_t q = p;
    q.seed = 2;
    e.corrupt = 0;
    script_t sc2 = {.t = t, .p = &q, .ev = &e, .nev = 1};
    sn_algo_t a = script_algo(p.coll);
    sn_err_t err = {0};
    sn_sim_result_t res;
    tu_assert_rc(sn_sim_run(t, &p, &a, &sc2, NULL, &res, &err), SN_EVERIFY);
    assert_has(err.msg, "corrupt");
    /* and on the size */
    q = p;
    q.size = 9;
    tu_assert_rc(sn_sim_run(t, &p, &a, &sc2, NULL, &res, &err), SN_EVERIFY);
    /* the same packets for the run's own parameters verify */
    sc2.p = &p;
    tu_assert_rc(sn_sim_run(t, &p, &a, &sc2, NULL, &res, &err), 0);
    assert_true(res.verified);
    sn_topo_free(t);
}

/* The same packet delivered twice: in two slots, or twice in one step. */
static void test_duplicate_delivery(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    const ev_t evs[] = {EV(1, 0, 0, 0, ALL, 0), EV(2, 0, 0, 0, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 2};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 3, 1);
    assert_has(r.err.msg, "twice");
    script_t sc2 = {.ev = evs, .nev = 1, .dlv = DLV_TWICE};
    r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, SN_EVERIFY);
    assert_names(&r, t, 2, 1);
    assert_has(r.err.msg, "twice");
    /* different fragments of one message are different packets */
    p.frags = 2;
    ev_t f1 = EV(2, 0, 0, 0, ALL, 0);
    f1.frag = 1;
    const ev_t frags[] = {EV(1, 0, 0, 0, ALL, 0), f1};
    script_t sc3 = {.ev = frags, .nev = 2};
    r = run_script(t, &p, &sc3, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.packets, 2);
    assert_int_equal(r.res.deliveries, 2);
    assert_int_equal(r.res.expected_deliveries, 2);
    sn_topo_free(t);
}

/* An algorithm that never delivers: the run completes (rc 0) but does not verify, and the
 * message says what is missing. */
static void test_incomplete(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x3");
    script_t sc = {.nev = 0};
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_false(r.res.verified);
    assert_int_equal(r.res.deliveries, 0);
    assert_int_equal(r.res.expected_deliveries, 72);
    assert_int_equal(r.res.steps, 0);
    assert_int_equal(r.res.packets, 0);
    assert_int_equal(r.res.node_steps, 9); /* every node once, at slot 1 */
    assert_has(r.err.msg, "incomplete");
    assert_has(r.err.msg, "72 of 72");
    /* partly done: 1 of 2 packets of a broadcast on linear:3 */
    sn_topo_t *t2 = tu_topo("linear:3");
    const ev_t one[] = {EV(1, 0, 0, 0, ALL, 0)};
    script_t sc2 = {.ev = one, .nev = 1};
    sn_params_t q = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    r = run_script(t2, &q, &sc2, 0);
    tu_assert_rc(r.rc, 0);
    assert_false(r.res.verified);
    assert_int_equal(r.res.deliveries, 1);
    assert_has(r.err.msg, "incomplete");
    assert_has(r.err.msg, "node 3"); /* the one that is missing its packet */
    sn_topo_free(t2);
    sn_topo_free(t);
}

/* ---- termination and wakes ------------------------------------------------------------------- */

/* A node that keeps waking itself never lets the run become quiescent: SN_ESLOTS at the limit,
 * both when it wakes every slot and when the wake heap skips slots. */
static void test_slot_limit(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:6");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    for (uint64_t spin = 1; spin <= 7; spin += 3) {
        script_t sc = {.spin_node = 3, .spin = spin};
        srun_t r = run_script(t, &p, &sc, 100);
        tu_assert_rc(r.rc, SN_ESLOTS);
        assert_has(r.err.msg, "100 slots");
        /* node 3 alone is stepped: at slot 1 with everyone, then at slots 1 + spin, 1 + 2 spin,
         * ... up to the limit + 1 (the slot that would deliver the limit slot's arrivals) */
        assert_true(r.res.node_steps >= 6 + 100 / spin - 1 && r.res.node_steps <= 6 + 100 / spin);
    }
    /* the same algorithm that stops after a while finishes */
    const ev_t evs[] = {EV(150, 0, 0, 0, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 1};
    srun_t r = run_script(t, &p, &sc, 100);
    tu_assert_rc(r.rc, SN_ESLOTS);
    r = run_script(t, &p, &sc, 1000);
    tu_assert_rc(r.rc, 0);
    assert_false(r.res.verified);
    assert_int_equal(r.res.steps, 150);
    sn_topo_free(t);
}

/* The progress callback comes about every 2^20 node steps with the current slot and counts. */
typedef struct {
    int calls;
    uint64_t last_slot, expected;
} progress_t;

static void on_progress(void *ctx, uint64_t slot, uint64_t deliveries, uint64_t expected)
{
    progress_t *pr = ctx;
    assert_true(slot > pr->last_slot);
    assert_int_equal(deliveries, 0);
    pr->last_slot = slot;
    pr->expected = expected;
    pr->calls++;
}

static void test_progress(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    script_t sc = {.t = t, .p = &p, .spin_node = 1, .spin = 1};
    sn_algo_t a = script_algo(p.coll);
    progress_t pr = {0, 0, 0};
    sn_sim_opts_t opts = {0};
    opts.max_slots = 3u << 20;
    opts.progress = on_progress;
    opts.progress_ctx = &pr;
    sn_sim_result_t res;
    sn_err_t err = {0};
    tu_assert_rc(sn_sim_run(t, &p, &a, &sc, &opts, &res, &err), SN_ESLOTS);
    /* 2 steps at slot 1, then node 1 alone in slots 2 .. 3 * 2^20 + 1 */
    assert_int_equal(res.node_steps, (3u << 20) + 2);
    assert_int_equal(pr.calls, 3);
    assert_int_equal(pr.expected, 1);
    assert_int_equal(pr.last_slot, (3u << 20) - 1); /* node step 3 * 2^20 is in that slot */
    sn_topo_free(t);
}

/* Asking to be woken at the current slot or before is an algorithm error. */
static void test_wake_in_the_past(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("hypercube:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    script_t sc = {.past_node = 5, .past_at = 1, .past_wake = 1};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, SN_EALGO);
    assert_names(&r, t, 1, 5);
    /* at slot 4 (woken by an event) it asks for slot 2 */
    const ev_t evs[] = {EV(4, 6, 0, 0, ALL, 0)};
    script_t sc2 = {.ev = evs, .nev = 1, .past_node = 6, .past_at = 4, .past_wake = 2};
    r = run_script(t, &p, &sc2, 0);
    tu_assert_rc(r.rc, SN_EALGO);
    assert_names(&r, t, 4, 6);
    assert_has(r.err.msg, "slot 2");
    sn_topo_free(t);
}

/* node_step's error fails the run with its code; the message adds the slot and the node. */
static void test_step_error(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("torus:3x4");
    sn_params_t p = tu_params(SN_COLL_MNB, "single", "any", "half");
    static const int codes[] = {SN_EALGO, SN_EIO, SN_EINVAL};
    for (size_t i = 0; i < 3; i++) {
        const ev_t evs[] = {EV(3, 7, 0, 7, ALL, 0)}; /* wakes node 7 at slot 3 */
        script_t sc = {.ev = evs, .nev = 1, .fail_node = 7, .fail_slot = 3, .fail_code = codes[i]};
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, codes[i]);
        tu_assert_rc(r.err.code, codes[i]);
        assert_names(&r, t, 3, 7);
        assert_has(r.err.msg, "scripted failure");
    }
    /* the err pointer may be NULL: only the code comes back */
    const ev_t evs[] = {EV(3, 7, 0, 7, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 1, .fail_node = 7, .fail_slot = 3, .fail_code = SN_EIO};
    sc.t = t;
    sc.p = &p;
    sn_algo_t a = script_algo(p.coll);
    sn_sim_result_t res;
    tu_assert_rc(sn_sim_run(t, &p, &a, &sc, NULL, &res, NULL), SN_EIO);
    sn_topo_free(t);
}

/* node_init's error fails the run with its code; the nodes initialised before are finished (their
 * memory released: ASan would report the leak). */
static void test_init_error(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:5");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    for (uint32_t u = 0; u < 5; u++) {
        script_t sc = {.init_fail_node = u, .init_fail_code = SN_ENOTSUP};
        srun_t r = run_script(t, &p, &sc, 0);
        tu_assert_rc(r.rc, SN_ENOTSUP);
        assert_has(r.err.msg, "init refused");
        assert_int_equal(r.res.node_steps, 0);
    }
    sn_topo_free(t);
}

/* ---- accounting ----------------------------------------------------------------------------- */

/* Control packets count in control_packets, a slot with only control traffic in control_slots,
 * steps is the last slot with any crossing (control included), and node_steps follows the
 * stepping rule of algo.h exactly. The trace hash is the sum of the events. */
static void test_control_accounting(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    ev_t evs[] = {
        EV(1, 0, 0, 0, 1, 0),   /* control only */
        EV(2, 1, 0, 1, 0, 0),   /* control only */
        EV(3, 0, 0, 0, ALL, 0), /* data ... */
        EV(3, 1, 0, 1, 0, 1),   /* ... and control: a data slot */
        EV(5, 1, 0, 1, 0, 2),   /* control only, after the last data */
    };
    evs[0].kind = evs[1].kind = evs[3].kind = evs[4].kind = SN_PKT_CONTROL;
    script_t sc = {.ev = evs, .nev = 5};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 5);
    assert_int_equal(r.res.packets, 1);
    assert_int_equal(r.res.control_packets, 4);
    assert_int_equal(r.res.control_slots, 3);
    assert_int_equal(r.res.deliveries, 1);
    assert_int_equal(r.res.expected_deliveries, 1);
    assert_int_equal(r.res.max_slot_sends, 2);
    /* slot 1: both; 2: node 1 (wake); 3: both (arrival, wakes); 4: both (arrivals); 5: node 1
     * (wake); 6: node 0 (arrival) */
    assert_int_equal(r.res.node_steps, 9);
    uint64_t h = 0;
    for (size_t i = 0; i < 5; i++) {
        sn_packet_t k = ev_packet(&sc, &evs[i]);
        h += sn_trace_event(evs[i].slot, sn_topo_link_id(t, evs[i].node, evs[i].port), &k);
    }
    assert_true(r.res.trace_hash == h);
    /* the link ids of both directions differ and both ends agree on them */
    assert_int_not_equal(sn_topo_link_id(t, 0, 0), sn_topo_link_id(t, 1, 0));
    sn_topo_free(t);
}

/* The trace hash tells apart the slot, the link and the packet of one event. */
static void test_trace_event(void **state)
{
    (void) state;
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    sn_packet_t a = sn_packet_data(&p, 1, 2, 0, 0), b = a;
    uint64_t h = sn_trace_event(3, 4, &a);
    assert_true(h == sn_trace_event(3, 4, &b));
    assert_true(h != sn_trace_event(4, 4, &a));
    assert_true(h != sn_trace_event(3, 5, &a));
    b.seq = 1;
    assert_true(h != sn_trace_event(3, 4, &b));
    b = a;
    b.frag = 1;
    assert_true(h != sn_trace_event(3, 4, &b));
    b = a;
    b.kind = SN_PKT_CONTROL;
    assert_true(h != sn_trace_event(3, 4, &b));
    b = a;
    b.dst = 3;
    assert_true(h != sn_trace_event(3, 4, &b));
    /* the payload is not part of the identity */
    b = a;
    b.digest ^= 0xff;
    assert_true(h == sn_trace_event(3, 4, &b));
}

/* The executor skips idle stretches: one send at slot 10^6 takes a handful of node steps. */
static void test_wake_skips_idle_slots(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:2");
    sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    const ev_t evs[] = {EV(1000000, 0, 0, 0, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 1};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 1000000);
    assert_int_equal(r.res.node_steps, 4); /* slot 1: both; 10^6: node 0; 10^6+1: node 1 */
    assert_int_equal(r.res.packets, 1);
    /* several far wakes at different nodes, out of order */
    sn_topo_t *t2 = tu_topo("ring:8");
    const ev_t far[] = {EV(7000000, 4, 0, 4, 5, 0), EV(3000, 2, 1, 2, 1, 0),
                        EV(123456789, 6, 0, 6, 7, 0), EV(3001, 2, 0, 2, 3, 0)};
    sn_params_t q = tu_params(SN_COLL_TE, "multi", "one", "full");
    script_t sc2 = {.ev = far, .nev = 4};
    r = run_script(t2, &q, &sc2, 0);
    tu_assert_rc(r.rc, 0);
    assert_false(r.res.verified);
    assert_int_equal(r.res.steps, 123456789);
    assert_int_equal(r.res.deliveries, 4);
    assert_int_equal(r.res.packets, 4);
    assert_int_equal(r.res.node_steps, 8 + 1 + 1 + 1 + 1 + 4);
    sn_topo_free(t2);
    sn_topo_free(t);
}

/* A wake is a request of the node's last step only: a node stepped earlier by an arrival that
 * then asks for nothing is not stepped at its old wake slot (the stale heap entry is dropped). */
static void test_stale_wake(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("linear:3");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    /* node 1 (label 2) plans a send at slot 10; node 0 reaches it at slot 5 (arrival at 6) */
    const ev_t evs[] = {EV(10, 1, 0, 0, ALL, 0), EV(5, 0, 0, 0, ALL, 0)};
    script_t sc = {.ev = evs, .nev = 2, .cancel_on_rx = 1};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_false(r.res.verified);     /* node 3 never gets the packet */
    assert_int_equal(r.res.steps, 5); /* the slot-10 send never happens */
    assert_int_equal(r.res.packets, 1);
    assert_int_equal(r.res.node_steps, 5); /* slot 1: all three; 5: node 0; 6: node 1 */
    /* without the cancel, the wake stands and the run completes */
    sc.cancel_on_rx = 0;
    r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.steps, 10);
    assert_int_equal(r.res.node_steps, 7); /* + slot 10: node 1; 11: node 2 */
    sn_topo_free(t);
}

/* The slot limit counts crossings: a run whose last crossing is at slot max_slots finishes (its
 * final deliveries happen in the steps of slot max_slots + 1). */
static void test_slot_limit_boundary(void **state)
{
    (void) state;
    sn_topo_t *t = tu_topo("ring:8");
    sn_params_t p = tu_params(SN_COLL_BCAST, "multi", "one", "full");
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    int64_t pred = -1;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select("bcast-bfs", t, &p, &a, &plan, &pred, &err), 0);
    assert_int_equal(pred, 4);
    sn_sim_opts_t opts = {0};
    opts.max_slots = 4;
    sn_sim_result_t res;
    int rc = sn_sim_run(t, &p, a, plan, &opts, &res, &err);
    a->plan_free(plan);
    sn_topo_free(t);
    tu_assert_rc(rc, 0);
    assert_true(res.verified);
    assert_int_equal(res.steps, 4);
}

/* Arrivals are presented sorted by the receiver's port, whatever order the senders were stepped
 * in: node 0 of "0 3 / 0 2 / 0 1" has ports 0, 1, 2 to nodes 3, 2, 1, which are stepped in the
 * order 1, 2, 3. */
static void test_arrival_order(void **state)
{
    (void) state;
    sn_topo_t *t = file_topo("0 3\n0 2\n0 1\n");
    ev_t evs[3];
    for (uint32_t v = 1; v <= 3; v++) {
        uint32_t first = 0, count = 0;
        sn_topo_ports_to(t, v, 0, &first, &count);
        assert_int_equal(count, 1);
        evs[v - 1] = (ev_t) EV(1, v, first, v, 0, 0);
    }
    uint32_t log[8];
    size_t nlog = 0;
    sn_params_t p = tu_params(SN_COLL_GATHER, "multi", "one", "full");
    script_t sc = {.ev = evs, .nev = 3, .log_node = 0, .log = log, .nlog = &nlog};
    srun_t r = run_script(t, &p, &sc, 0);
    tu_assert_rc(r.rc, 0);
    assert_true(r.res.verified);
    assert_int_equal(r.res.max_slot_sends, 3);
    assert_int_equal(nlog, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(log[i], i);
        assert_int_equal(sn_topo_port(t, 0, log[i])->peer, 3 - i);
    }
    sn_topo_free(t);
}

/* ---- the hidden illegal algorithms (core/algo/testing/faulty.c) ---------------------------------
 * They fail in the simulator with the text of the core's step check;
 * tests/integration/test_run_faults.c checks that `stepnet run` fails with the very same text. */

static void expect_faulty(const char *spec, const char *ports, const char *algo, int want,
                          const char *msg)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_BCAST, ports, "one", "full");
    tu_run_t r = tu_sim(t, &p, algo);
    tu_assert_rc(r.rc, want);
    assert_string_equal(r.err.msg, msg);
    sn_topo_free(t);
}

static void test_faulty_algorithms(void **state)
{
    (void) state;
    expect_faulty("ring:4", "single", "test-double-send", SN_EPORT,
                  "slot 1: node 0 sent 2 packets (ports 0 and 1); single-port allows one per slot");
    expect_faulty("ring:4", "multi", "test-past-wake", SN_EALGO,
                  "slot 1: node 0 asked to be woken at slot 1, which is not in the future");
    /* hidden: never listed, never chosen by auto */
    size_t n;
    const sn_algo_t *const *all = sn_model_algos(&n);
    for (size_t i = 0; i < n; i++)
        assert_null(strstr(all[i]->name, "test-"));
    assert_non_null(sn_model_find("test-double-send"));
    sn_topo_t *t = tu_topo("ring:4");
    sn_params_t p = tu_params(SN_COLL_BCAST, "single", "one", "full");
    tu_run_t r = tu_sim(t, &p, "auto");
    tu_assert_rc(r.rc, 0);
    assert_null(strstr(r.algo->name, "test-"));
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_packets_one_port),
        cmocka_unit_test(test_single_port_one_send),
        cmocka_unit_test(test_single_port_one_reception),
        cmocka_unit_test(test_half_duplex),
        cmocka_unit_test(test_missing_port),
        cmocka_unit_test(test_wrong_node),
        cmocka_unit_test(test_corrupt_digest),
        cmocka_unit_test(test_duplicate_delivery),
        cmocka_unit_test(test_incomplete),
        cmocka_unit_test(test_slot_limit),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_wake_in_the_past),
        cmocka_unit_test(test_step_error),
        cmocka_unit_test(test_init_error),
        cmocka_unit_test(test_control_accounting),
        cmocka_unit_test(test_trace_event),
        cmocka_unit_test(test_wake_skips_idle_slots),
        cmocka_unit_test(test_stale_wake),
        cmocka_unit_test(test_slot_limit_boundary),
        cmocka_unit_test(test_arrival_order),
        cmocka_unit_test(test_faulty_algorithms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
