/* Unit tests of te-linear and te-ring (core/algo/te/te_linear.c, te_ring.c), the optimal
 * multiport total exchanges of thesis sections 4.2-4.3 (Dimakopoulos, thesis), run in the slot
 * simulator with every transmission recorded through sn_sim_opts_t.on_send: every size 2..40
 * against Theorems 4.3, 4.5 and 4.6 and the cut bound (4.1), --msgs and fragments, and the thesis's
 * worked examples slot by slot (as reconstructed and checked independently, since the text gives
 * some only in figures): Fig. 4.2 (with the closed form of eq. 4.9 for every n), Fig. 4.4(a) with
 * Lemma 4.4, Fig. 4.4(b) and the phases of Theorem 4.6.
 *
 * Labels: the thesis numbers the linear array 1..n and stepnet 0..n-1, so the thesis's node j is
 * stepnet node j-1 (and m_k(i) is the packet from node k-1 to node i-1). Rings are 0-based in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testutil.h"

/* ---- recording a run ------------------------------------------------------------------------- */

enum { FWD = 0, BWD = 1 }; /* towards node+1 (rightward, clockwise), towards node-1 */
#define NONE (-1)

/* One run with msgs 1: tab[((t-1) * n + u) * 2 + dir] is the message (src * n + dst) node u sent
 * towards u+1 (dir FWD) or u-1 (BWD) in slot t, or NONE. */
typedef struct {
    sn_topo_t *t;
    uint32_t n;
    uint64_t steps;
    int64_t predicted;
    sn_sim_result_t res;
    sn_bounds_t bounds;
    const sn_algo_t *algo;
    int32_t *tab;
    size_t cap; /* slots the table holds */
} trace_t;

static int32_t *cell(const trace_t *tr, uint64_t t, uint32_t u, int dir)
{
    return &tr->tab[((t - 1) * tr->n + u) * 2 + (size_t) dir];
}

/* The message node u sent in direction dir in slot t (NONE after the last slot). */
static int32_t sent(const trace_t *tr, uint64_t t, uint32_t u, int dir)
{
    return t >= 1 && t <= tr->steps ? *cell(tr, t, u, dir) : NONE;
}

static int32_t msg(const trace_t *tr, uint32_t src, uint32_t dst)
{
    return (int32_t) (src * tr->n + dst);
}

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    trace_t *tr = ctx;
    uint32_t n = tr->n, peer = sn_topo_port(tr->t, node, port)->peer;
    if (n == 2 && tr->t->kind == SN_TOPO_RING)
        fail_msg("ring:2 is not traced (its two directions share one port)");
    uint32_t next = tr->t->kind == SN_TOPO_RING ? (node + 1) % n : node + 1;
    int dir = peer == next ? FWD : BWD;
    if (slot > tr->cap) {
        size_t old = tr->cap;
        tr->cap = slot * 2;
        tr->tab = realloc(tr->tab, tr->cap * n * 2 * sizeof *tr->tab);
        for (size_t i = old * n * 2; i < tr->cap * n * 2; i++)
            tr->tab[i] = NONE;
    }
    if (*cell(tr, slot, node, dir) != NONE)
        fail_msg("%s: node %u sent twice in direction %d in slot %llu", tr->t->spec, node, dir,
                 (unsigned long long) slot);
    if (pkt->seq != 0 || pkt->frag != 0)
        fail_msg("traces are for msgs 1");
    *cell(tr, slot, node, dir) = msg(tr, pkt->src, pkt->dst);
}

/* Runs `algo` (NULL = auto) for te with msgs 1 on spec and records every send; fails unless the
 * run verifies with steps == predicted. */
static trace_t trace_run(const char *spec, const char *algo)
{
    trace_t tr;
    memset(&tr, 0, sizeof tr);
    tr.t = tu_topo(spec);
    tr.n = tr.t->n;
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    void *plan = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_model_select(algo, tr.t, &p, &tr.algo, &plan, &tr.predicted, &err), 0);
    tu_assert_rc(sn_model_bounds(tr.t, &p, &tr.bounds, &err), 0);
    sn_sim_opts_t o = {0};
    o.max_slots = 4 * (uint64_t) tr.predicted + 64;
    o.on_send = on_send;
    o.send_ctx = &tr;
    int rc = sn_sim_run(tr.t, &p, tr.algo, plan, &o, &tr.res, &err);
    tr.algo->plan_free(plan);
    if (rc != 0 || !tr.res.verified)
        fail_msg("%s on %s: rc %s, verified %d: %s", tr.algo->name, spec, sn_err_name(rc),
                 tr.res.verified, err.msg);
    tr.steps = tr.res.steps;
    if ((int64_t) tr.steps != tr.predicted)
        fail_msg("%s on %s: steps %llu, predicted %lld", tr.algo->name, spec,
                 (unsigned long long) tr.steps, (long long) tr.predicted);
    return tr;
}

static void trace_free(trace_t *tr)
{
    free(tr->tab);
    sn_topo_free(tr->t);
}

/* The value of bound `name` in b, or -1. */
static int64_t bound_value(const sn_bounds_t *b, const char *name)
{
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->b[i].name, name) == 0)
            return b->b[i].value;
    return -1;
}

/* ---- closed forms ------------------------------------------------------------------------------
 */

/* Theorem 4.3: ceil((n^2-1)/4). */
static int64_t t_linear(int64_t n)
{
    return (n * n - 1 + 3) / 4;
}

/* Theorems 4.5 and 4.6 case by case: (n^2-1)/8 odd, n^2/8 when 4 | n, (n^2+4)/8 when n = 2 mod 4.
 */
static int64_t t_ring(int64_t n)
{
    if (n % 2 == 1)
        return (n * n - 1) / 8;
    return n % 4 == 0 ? n * n / 8 : (n * n + 4) / 8;
}

/* ---- every size --------------------------------------------------------------------------------
 */

static void check_size(const char *spec, const char *want_algo, int64_t closed)
{
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    for (int by_name = 0; by_name < 2; by_name++) {
        tu_run_t r = tu_sim(t, &p, by_name ? want_algo : NULL);
        if (r.rc != 0 || !r.res.verified)
            fail_msg("%s: rc %s: %s", spec, sn_err_name(r.rc), r.err.msg);
        if (strcmp(r.algo->name, want_algo) != 0)
            fail_msg("%s: auto chose %s, not %s", spec, r.algo->name, want_algo);
        uint64_t want = sn_coll_expected_total(t, &p);
        if (r.res.deliveries != want || r.res.packets != sn_topo_total_distance(t, 1))
            fail_msg("%s: %llu deliveries (want %llu), %llu packets (want the total distance)",
                     spec, (unsigned long long) r.res.deliveries, (unsigned long long) want,
                     (unsigned long long) r.res.packets);
        int64_t cut = bound_value(&r.bounds, "cut");
        if ((int64_t) r.res.steps != r.predicted || r.predicted != closed ||
            (int64_t) r.res.steps < r.bounds.best || cut != closed)
            fail_msg("%s: steps %llu, predicted %lld, theorem %lld, best bound %lld, cut %lld",
                     spec, (unsigned long long) r.res.steps, (long long) r.predicted,
                     (long long) closed, (long long) r.bounds.best, (long long) cut);
    }
    sn_topo_free(t);
}

/* Theorem 4.3 for n = 2..40: steps == predicted == ceil((n^2-1)/4) == the cut bound (4.1). */
static void test_linear_sizes(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 2; n <= 40; n++) {
        snprintf(spec, sizeof spec, "linear:%u", n);
        int64_t fl = n / 2, ce = n - n / 2;
        assert_int_equal(t_linear(n), fl * ce);
        check_size(spec, "te-linear", t_linear(n));
    }
}

/* Theorems 4.5 and 4.6 for n = 2..40: steps == predicted == ceil((n^2-1)/8) == the cut bound. */
static void test_ring_sizes(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 2; n <= 40; n++) {
        snprintf(spec, sizeof spec, "ring:%u", n);
        assert_int_equal(t_ring(n), ((int64_t) n * n - 1 + 7) / 8);
        check_size(spec, "te-ring", t_ring(n));
    }
}

/* --msgs M and fragments: K = msgs * frags packets per pair take K times the steps (the proofs in
 * the source comments). That is the cut bound ceil(K |V1||V2| / C) except on rings with
 * n = 2 mod 4, n >= 6, where the parity split is floor(K/2) above it. */
static void test_msgs_and_frags(void **state)
{
    (void) state;
    static const uint32_t mf[][2] = {{2, 1}, {3, 1}, {1, 2}, {2, 3}, {5, 1}};
    static const char *const specs[] = {"linear:2", "linear:5", "linear:6", "linear:9",
                                        "ring:2",   "ring:3",   "ring:4",   "ring:6",
                                        "ring:7",   "ring:8",   "ring:10",  "ring:13"};
    char ctx[96];
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        sn_topo_t *t = tu_topo(specs[si]);
        int ring = t->kind == SN_TOPO_RING;
        int64_t n = t->n, t1 = ring ? t_ring(n) : t_linear(n);
        for (size_t i = 0; i < sizeof mf / sizeof mf[0]; i++) {
            sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
            p.msgs = mf[i][0];
            p.frags = mf[i][1];
            int64_t K = (int64_t) p.msgs * p.frags;
            snprintf(ctx, sizeof ctx, "%s msgs %u frags %u", specs[si], p.msgs, p.frags);
            /* named: on even rings with even K, auto now takes te-mns (the torus framework),
             * which reaches the cut bound where te-ring is K/2 above it */
            tu_run_t r = tu_sim(t, &p, ring ? "te-ring" : "te-linear");
            if (r.rc != 0 || !r.res.verified)
                fail_msg("%s: rc %s: %s", ctx, sn_err_name(r.rc), r.err.msg);
            assert_string_equal(r.algo->name, ring ? "te-ring" : "te-linear");
            if (r.res.deliveries != sn_coll_expected_total(t, &p))
                fail_msg("%s: deliveries %llu", ctx, (unsigned long long) r.res.deliveries);
            int64_t cut = bound_value(&r.bounds, "cut");
            int64_t gap = ring && n % 4 == 2 && n >= 6 ? K / 2 : 0;
            if ((int64_t) r.res.steps != K * t1 || r.predicted != K * t1 ||
                (int64_t) r.res.steps != cut + gap)
                fail_msg("%s: steps %llu, predicted %lld, K * T_1 = %lld, cut %lld + %lld", ctx,
                         (unsigned long long) r.res.steps, (long long) r.predicted,
                         (long long) (K * t1), (long long) cut, (long long) gap);
        }
        sn_topo_free(t);
    }
}

/* Both refuse other topologies and port models, saying what they need. */
static void test_refusals(void **state)
{
    (void) state;
    static const struct {
        const char *algo, *spec, *ports, *duplex, *says;
    } cases[] = {
        {"te-linear", "ring:6", "multi", "full", "linear:N"},
        {"te-linear", "mesh:2x3", "multi", "full", "linear:N"},
        {"te-linear", "torus:3x3", "multi", "full", "linear:N"},
        {"te-ring", "linear:6", "multi", "full", "ring:N"},
        {"te-ring", "ering:8:2", "multi", "full", "ring:N"},
        {"te-ring", "circulant:7:2", "multi", "full", "ring:N"},
        {"te-ring", "ring:6", "single", "full", "single-port"},
        {"te-linear", "linear:6", "single", "full", "single-port"},
        {"te-ring", "ring:6", "multi", "half", "half duplex"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn_topo_t *t = tu_topo(cases[i].spec);
        sn_params_t p = tu_params(SN_COLL_TE, cases[i].ports, "one", cases[i].duplex);
        sn_err_t err = {0};
        tu_assert_rc(sn_model_check(sn_model_find(cases[i].algo), t, &p, &err), SN_ENOTSUP);
        if (strstr(err.msg, cases[i].says) == NULL)
            fail_msg("%s on %s: '%s' does not say '%s'", cases[i].algo, cases[i].spec, err.msg,
                     cases[i].says);
        /* auto picks something else */
        const sn_algo_t *a = NULL;
        tu_assert_rc(sn_model_select(NULL, t, &p, &a, NULL, NULL, &err), 0);
        assert_string_not_equal(a->name, cases[i].algo);
        sn_topo_free(t);
    }
}

/* ---- linear arrays: Fig. 4.2 and eq. (4.9) -----------------------------------------------------
 */

/* The closed form of eq. (4.9) (thesis section 4.2), 1-based: what the rightward link of node j
 * carries in step t, as m_k(i) in *k, *i; 0 when the link is idle. */
static int linear_right(uint32_t n, uint32_t j, uint64_t t, uint32_t *k, uint32_t *i)
{
    if (t == 0 || t > (uint64_t) j * (n - j))
        return 0;
    if (t <= j) {
        *k = j - (uint32_t) t + 1;
        *i = n;
    } else {
        *k = (uint32_t) ((t - 1) % j) + 1;
        *i = n - (uint32_t) ((t - 1) / j);
    }
    return 1;
}

/* Every n = 2..40, every slot, both directions: the rightward sends are eq. (4.9)'s (each link
 * j -> j+1 busy exactly in steps 1 .. j(n-j)), the leftward ones their mirror image, and phase j
 * ends at T_j = jn - j^2 (Lemma 4.2). */
static void test_linear_eq49_every_slot(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 2; n <= 40; n++) {
        snprintf(spec, sizeof spec, "linear:%u", n);
        trace_t tr = trace_run(spec, "te-linear");
        for (uint64_t t = 1; t <= tr.steps + 1; t++) {
            for (uint32_t j = 1; j <= n; j++) {
                uint32_t k = 0, i = 0;
                int32_t want = NONE, wantl = NONE;
                if (j < n && linear_right(n, j, t, &k, &i)) {
                    want = msg(&tr, k - 1, i - 1);
                    wantl = msg(&tr, n - k, n - i); /* node n+1-j sends m_{n+1-k}(n+1-i) left */
                }
                if (sent(&tr, t, j - 1, FWD) != want || sent(&tr, t, n - j, BWD) != wantl)
                    fail_msg("%s step %llu node %u: sent %d / mirror %d, eq. 4.9 says %d / %d",
                             spec, (unsigned long long) t, j, sent(&tr, t, j - 1, FWD),
                             sent(&tr, t, n - j, BWD), want, wantl);
            }
        }
        for (uint32_t j = 1; 2 * j <= n; j++) {
            uint64_t last = 0;
            for (uint64_t t = 1; t <= tr.steps; t++)
                if (sent(&tr, t, j - 1, FWD) != NONE)
                    last = t;
            assert_int_equal(last, (uint64_t) j * n - (uint64_t) j * j);
        }
        assert_int_equal(tr.steps, t_linear(n));
        trace_free(&tr);
    }
}

/* Fig. 4.2: linear:6, the rightward half. Cell = m_k(i) as 10k + i (thesis
 * labels), 0 = no send; and the queued destinations at the start of the step, furthest first. */
static void test_fig42_linear6(void **state)
{
    (void) state;
    static const int sends[9][5] = {
        {16, 26, 36, 46, 56}, {15, 16, 26, 36, 46}, {14, 15, 16, 26, 36},
        {13, 25, 15, 16, 26}, {12, 14, 25, 15, 16}, {0, 24, 35, 25, 0},
        {0, 13, 14, 35, 0},   {0, 23, 24, 45, 0},   {0, 0, 34, 0, 0},
    };
    static const char *const queued[9][5] = {
        {"65432", "6543", "654", "65", "6"},
        {"5432", "6543", "654", "65", "6"},
        {"432", "5543", "654", "65", "6"},
        {"32", "5443", "554", "65", "6"},
        {"2", "4433", "554", "55", "6"},
        {"", "433", "544", "55", ""},
        {"", "33", "444", "55", ""},
        {"", "3", "44", "5", ""},
        {"", "", "4", "", ""},
    };
    trace_t tr = trace_run("linear:6", "te-linear");
    assert_int_equal(tr.steps, 9);
    uint32_t n = 6;
    for (uint64_t t = 1; t <= 9; t++) {
        for (uint32_t j = 1; j <= 5; j++) {
            int c = sends[t - 1][j - 1];
            int32_t want = c ? msg(&tr, (uint32_t) c / 10 - 1, (uint32_t) c % 10 - 1) : NONE;
            if (sent(&tr, t, j - 1, FWD) != want)
                fail_msg("Fig 4.2 t=%llu n%u: sent %d, want m%d(%d)", (unsigned long long) t, j,
                         sent(&tr, t, j - 1, FWD), c / 10, c % 10);
            /* queue of node j at the start of step t: own rightward messages and arrivals not
             * for j, less what j sent before t; as destination counts */
            int cnt[7] = {0};
            for (uint32_t d = j + 1; d <= n; d++)
                cnt[d]++;
            for (uint64_t s = 1; s < t; s++) {
                int32_t in = j > 1 ? sent(&tr, s, j - 2, FWD) : NONE;
                int32_t out = sent(&tr, s, j - 1, FWD);
                if (in != NONE && (uint32_t) in % n + 1 != j)
                    cnt[in % n + 1]++;
                if (out != NONE)
                    cnt[out % n + 1]--;
            }
            char got[16];
            size_t len = 0;
            for (int d = 6; d >= 1; d--)
                for (int x = 0; x < cnt[d]; x++)
                    got[len++] = (char) ('0' + d);
            got[len] = '\0';
            if (strcmp(got, queued[t - 1][j - 1]) != 0)
                fail_msg("Fig 4.2 t=%llu n%u: queued [%s], want [%s]", (unsigned long long) t, j,
                         got, queued[t - 1][j - 1]);
        }
    }
    /* Lemma 4.2: phase j ends at T_j = jn - j^2 = 5, 8, 9 when node j sends its last message and
     * node n-j+1 receives its last one (rightward; node n at n-1 = 5) */
    static const uint64_t Tj[3] = {5, 8, 9};
    for (uint32_t j = 1; j <= 3; j++) {
        uint64_t last_send = 0, last_recv = 0;
        for (uint64_t t = 1; t <= tr.steps; t++) {
            if (sent(&tr, t, j - 1, FWD) != NONE)
                last_send = t;
            for (uint32_t u = 0; u + 1 < n; u++)
                if (sent(&tr, t, u, FWD) != NONE && (uint32_t) sent(&tr, t, u, FWD) % n == n - j)
                    last_recv = t;
        }
        assert_int_equal(last_send, Tj[j - 1]);
        assert_int_equal(last_recv, Tj[j - 1]);
    }
    trace_free(&tr);
}

/* ---- rings: a FIFO model of the thesis's queues, fed with the observed sends -------------------
 */

/* The queues of one direction of a ring at every time t = 0 .. steps (after step t), rebuilt from
 * the thesis's rules: node i starts with its own messages, farthest at the head (Figs. 4.3, 4.4;
 * Theorem 4.6 for the even split); in every step it must send its head (checked against the
 * trace), and a message from its predecessor that is not for it joins the tail. Entries are
 * stored tail first, like the thesis writes them. */
typedef struct {
    const trace_t *tr;
    int dir;
    uint32_t cap; /* entries per queue */
    int32_t *q;   /* [(t * n + i) * cap + x] */
    uint32_t *len;
} model_t;

static int32_t *mq(const model_t *m, uint64_t t, uint32_t i)
{
    return &m->q[(t * m->tr->n + i) * m->cap];
}

static uint32_t *mlen(const model_t *m, uint64_t t, uint32_t i)
{
    return &m->len[t * m->tr->n + i];
}

/* Messages node i sends in direction dir at first (the te-ring rule). */
static uint32_t own_count(uint32_t n, uint32_t i, int dir)
{
    if (n % 2 == 1)
        return (n - 1) / 2;
    return (i % 2 == 0) == (dir == FWD) ? n / 2 : n / 2 - 1;
}

static model_t model_run(const trace_t *tr, int dir)
{
    uint32_t n = tr->n;
    model_t m = {tr, dir, n, NULL, NULL};
    m.q = calloc((tr->steps + 1) * n * m.cap, sizeof *m.q);
    m.len = calloc((tr->steps + 1) * n, sizeof *m.len);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = own_count(n, i, dir);
        for (uint32_t d = 1; d <= h; d++) /* tail m_i(i+1) ... head m_i(i+h) */
            mq(&m, 0, i)[d - 1] = msg(tr, i, dir == FWD ? (i + d) % n : (i + n - d) % n);
        *mlen(&m, 0, i) = h;
    }
    for (uint64_t t = 1; t <= tr->steps; t++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len = *mlen(&m, t - 1, i), prev = dir == FWD ? (i + n - 1) % n : (i + 1) % n;
            int32_t head = len ? mq(&m, t - 1, i)[len - 1] : NONE;
            if (sent(tr, t, i, dir) != head)
                fail_msg("%s dir %d step %llu node %u: sent %d, the head of its queue is %d",
                         tr->t->spec, dir, (unsigned long long) t, i, sent(tr, t, i, dir), head);
            int32_t in = sent(tr, t, prev, dir), *q = mq(&m, t, i);
            uint32_t k = 0;
            if (in != NONE && (uint32_t) in % n != i)
                q[k++] = in; /* joins the tail */
            for (uint32_t x = 0; x + 1 < len; x++)
                q[k++] = mq(&m, t - 1, i)[x];
            if (k > m.cap)
                fail_msg("%s: queue of node %u longer than %u", tr->t->spec, i, m.cap);
            *mlen(&m, t, i) = k;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (*mlen(&m, tr->steps, i) != 0)
            fail_msg("%s: node %u's queue is not empty at the end", tr->t->spec, i);
    return m;
}

static void model_free(model_t *m)
{
    free(m->q);
    free(m->len);
}

/* Node i's queue at time t as the thesis writes it, tail first: "6>2 0>1 0>2". */
static const char *qstr(const model_t *m, uint64_t t, uint32_t i, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t x = 0; x < *mlen(m, t, i); x++) {
        int32_t v = mq(m, t, i)[x];
        len += (size_t) snprintf(buf + len, cap - len, "%s%d>%d", x ? " " : "",
                                 v / (int32_t) m->tr->n, v % (int32_t) m->tr->n);
    }
    return buf;
}

static void expect_queue(const model_t *m, uint64_t t, uint32_t i, const char *want)
{
    char buf[256];
    if (strcmp(qstr(m, t, i, buf, sizeof buf), want) != 0)
        fail_msg("%s dir %d: Q_%u(%llu) = [%s], want [%s]", m->tr->t->spec, m->dir, i,
                 (unsigned long long) t, buf, want);
}

/* 1 when node i's queue at t equals node j's shifted by s (m_a(b) -> m_{a+s}(b+s)), in order. */
static int queue_shifted(const model_t *m, uint64_t t, uint32_t i, uint32_t j, uint32_t s)
{
    uint32_t n = m->tr->n, len = *mlen(m, t, i);
    if (len != *mlen(m, t, j))
        return 0;
    for (uint32_t x = 0; x < len; x++) {
        int32_t a = mq(m, t, i)[x], b = mq(m, t, j)[x];
        uint32_t bs = ((uint32_t) b / n + s) % n, bd = ((uint32_t) b % n + s) % n;
        if ((uint32_t) a != bs * n + bd)
            return 0;
    }
    return 1;
}

/* Node i's queue at t as a set equals {m_src(d) : d in dsts[0..k-1]}. */
static void expect_set(const model_t *m, uint64_t t, uint32_t i, uint32_t src, uint32_t dlo,
                       uint32_t dhi)
{
    uint32_t n = m->tr->n, len = *mlen(m, t, i);
    char buf[256];
    uint32_t want = dhi >= dlo ? dhi - dlo + 1 : 0;
    int ok = len == want;
    for (uint32_t x = 0; ok && x < len; x++) {
        uint32_t v = (uint32_t) mq(m, t, i)[x];
        ok = v / n == src && v % n >= dlo && v % n <= dhi;
        for (uint32_t y = 0; ok && y < x; y++)
            ok = mq(m, t, i)[y] != (int32_t) v;
    }
    if (!ok)
        fail_msg("%s: Q_%u(%llu) = [%s], Theorem 4.6 says {m_%u(k) : k = %u..%u}", m->tr->t->spec,
                 i, (unsigned long long) t, qstr(m, t, i, buf, sizeof buf), src, dlo, dhi);
}

/* The counterclockwise half is the clockwise half reflected: node i's counterclockwise send in
 * step t is r(node r(i)'s clockwise send), r(x) = -x for odd n and 1-x for even n (which swaps
 * the parities, as the even split does). */
static void check_reflection(const trace_t *tr)
{
    uint32_t n = tr->n, c = n % 2 ? 0 : 1;
    for (uint64_t t = 1; t <= tr->steps; t++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t ri = (c + n - i) % n;
            int32_t cw = sent(tr, t, ri, FWD), want = NONE;
            if (cw != NONE)
                want = msg(tr, (c + n - (uint32_t) cw / n) % n, (c + n - (uint32_t) cw % n) % n);
            if (sent(tr, t, i, BWD) != want)
                fail_msg("%s step %llu: node %u sent %d counterclockwise, the reflection of node "
                         "%u's clockwise send is %d",
                         tr->t->spec, (unsigned long long) t, i, sent(tr, t, i, BWD), ri, want);
        }
}

/* ---- odd rings: Fig. 4.4(a), Lemma 4.4, Theorem 4.5 -------------------------------------------
 */

/* Fig. 4.4(a): ring:7, clockwise, FIFO, T = 6; node 0's queue at every time,
 * its sends, every directed link busy in every step. */
static void test_fig44a_ring7(void **state)
{
    (void) state;
    static const char *const q0[7] = {
        "0>1 0>2 0>3", "6>2 0>1 0>2", "6>1 6>2 0>1", "6>1 6>2", "5>1 6>1", "5>1", ""};
    static const uint32_t s0[6][2] = {{0, 3}, {0, 2}, {0, 1}, {6, 2}, {6, 1}, {5, 1}};
    trace_t tr = trace_run("ring:7", "te-ring");
    assert_int_equal(tr.steps, 6);
    model_t m = model_run(&tr, FWD);
    for (uint64_t t = 0; t <= 6; t++)
        expect_queue(&m, t, 0, q0[t]);
    expect_queue(&m, 0, 1, "1>2 1>3 1>4");
    expect_queue(&m, 1, 1, "0>3 1>2 1>3");
    for (uint64_t t = 1; t <= 6; t++) {
        assert_int_equal(sent(&tr, t, 0, FWD), msg(&tr, s0[t - 1][0], s0[t - 1][1]));
        for (uint32_t i = 0; i < 7; i++)
            for (int dir = 0; dir < 2; dir++)
                if (sent(&tr, t, i, dir) == NONE)
                    fail_msg("ring:7: link of node %u dir %d idle in step %llu", i, dir,
                             (unsigned long long) t);
    }
    assert_int_equal(tr.res.packets, 7 * 2 * 6);
    model_free(&m);
    trace_free(&tr);
}

/* Every odd n = 3..39: Lemma 4.4 with ordered queues (Q_i(t) = Q_0(t) + i at every t, both
 * directions), every directed link busy in every step 1..T (Theorem 4.5), T = (n^2-1)/8, and
 * the counterclockwise half is the reflected clockwise half. */
static void test_odd_rings_lemma44(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 3; n <= 39; n += 2) {
        snprintf(spec, sizeof spec, "ring:%u", n);
        trace_t tr = trace_run(spec, "te-ring");
        assert_int_equal(tr.steps, ((uint64_t) n * n - 1) / 8);
        assert_int_equal(tr.res.packets, 2ull * n * tr.steps); /* no idle link-slot */
        for (int dir = 0; dir < 2; dir++) {
            model_t m = model_run(&tr, dir);
            for (uint64_t t = 0; t <= tr.steps; t++)
                for (uint32_t i = 1; i < n; i++)
                    if (!queue_shifted(&m, t, i, 0, i))
                        fail_msg("%s dir %d: Q_%u(%llu) is not Q_0 + %u", spec, dir, i,
                                 (unsigned long long) t, i);
            model_free(&m);
        }
        check_reflection(&tr);
        trace_free(&tr);
    }
}

/* ---- even rings: Fig. 4.4(b), Theorem 4.6 -----------------------------------------------------
 */

/* Fig. 4.4(b): ring:6, parity split, T = 5. */
static void test_fig44b_ring6(void **state)
{
    (void) state;
    static const char *const q0[6] = {"0>1 0>2 0>3", "5>1 0>1 0>2", "5>1 0>1",
                                      "4>1 5>1",     "4>1",         ""};
    static const char *const q1[6] = {"1>2 1>3", "0>3 1>2", "0>2 0>3", "0>2", "", ""};
    static const char *const init_cw[6] = {"0>1 0>2 0>3", "1>2 1>3",     "2>3 2>4 2>5",
                                           "3>4 3>5",     "4>5 4>0 4>1", "5>0 5>1"};
    static const char *const init_ccw[4] = {"0>5 0>4", "1>0 1>5 1>4", "2>1 2>0", "3>2 3>1 3>0"};
    trace_t tr = trace_run("ring:6", "te-ring");
    assert_int_equal(tr.steps, 5);
    model_t cw = model_run(&tr, FWD), ccw = model_run(&tr, BWD);
    for (uint64_t t = 0; t <= 5; t++) {
        expect_queue(&cw, t, 0, q0[t]);
        expect_queue(&cw, t, 1, q1[t]);
    }
    for (uint32_t i = 0; i < 6; i++)
        expect_queue(&cw, 0, i, init_cw[i]);
    for (uint32_t i = 0; i < 4; i++)
        expect_queue(&ccw, 0, i, init_ccw[i]);
    /* node 0's clockwise sends: its own farthest first, then 5>1 and 4>1 */
    static const uint32_t s0[5][2] = {{0, 3}, {0, 2}, {0, 1}, {5, 1}, {4, 1}};
    for (uint64_t t = 1; t <= 5; t++)
        assert_int_equal(sent(&tr, t, 0, FWD), msg(&tr, s0[t - 1][0], s0[t - 1][1]));
    check_reflection(&tr);
    model_free(&cw);
    model_free(&ccw);
    trace_free(&tr);
}

/* Theorem 4.6 for every even n = 4..40 (thesis section 4.3.2): Q_i(t) = Q_0(t) + i for
 * even i and Q_1(t) + (i-1) for odd i at every t; phase j ends at T_j = jn - 2j^2 with
 * Q_0(T_j) = {m_{n-2j}(k) : k = 1..n/2-2j} and Q_1(T_j) = {m_{n-2j+1}(k) : k = 2..n/2-2j};
 * T = T_{n/4} when 4 | n, T_{(n-2)/4} + 1 otherwise. Plus independently computed vectors: ring:8
 * ends at 8 with Q_0(6) = {6>1, 6>2}, Q_1(6) = {7>2}; ring:10 phases 8, 12, end 13; ring:12 10,
 * 16, 18. */
static void test_even_rings_thm46(void **state)
{
    (void) state;
    char spec[32];
    for (uint32_t n = 4; n <= 40; n += 2) {
        snprintf(spec, sizeof spec, "ring:%u", n);
        trace_t tr = trace_run(spec, "te-ring");
        model_t m = model_run(&tr, FWD), mb = model_run(&tr, BWD);
        for (uint64_t t = 0; t <= tr.steps; t++)
            for (uint32_t i = 2; i < n; i++)
                if (!queue_shifted(&m, t, i, i % 2, i - i % 2))
                    fail_msg("%s: Q_%u(%llu) is not Q_%u + %u", spec, i, (unsigned long long) t,
                             i % 2, i - i % 2);
        uint64_t last = 0;
        for (uint32_t j = 1; 4 * j <= n; j++) {
            uint64_t Tj = (uint64_t) j * n - 2ull * j * j;
            assert_true(Tj <= tr.steps);
            expect_set(&m, Tj, 0, n - 2 * j, 1, n / 2 - 2 * j);
            expect_set(&m, Tj, 1, n - 2 * j + 1, 2, n / 2 - 2 * j);
            last = Tj;
        }
        assert_int_equal(tr.steps, n % 4 == 0 ? last : last + 1);
        assert_int_equal(tr.steps, t_ring(n));
        if (n == 8) {
            expect_queue(&m, 6, 1, "7>2");
            assert_int_equal(*mlen(&m, 6, 0), 2);
            assert_int_equal(tr.steps, 8);
        }
        if (n == 10)
            assert_int_equal(tr.steps, 13);
        if (n == 12)
            assert_int_equal(tr.steps, 18);
        check_reflection(&tr);
        model_free(&m);
        model_free(&mb);
        trace_free(&tr);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_sizes),           cmocka_unit_test(test_ring_sizes),
        cmocka_unit_test(test_msgs_and_frags),         cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_linear_eq49_every_slot), cmocka_unit_test(test_fig42_linear6),
        cmocka_unit_test(test_fig44a_ring7),           cmocka_unit_test(test_odd_rings_lemma44),
        cmocka_unit_test(test_fig44b_ring6),           cmocka_unit_test(test_even_rings_thm46),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
