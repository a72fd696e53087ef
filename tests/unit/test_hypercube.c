/* Unit tests of te-hypercube (core/algo/te/te_hypercube.c), the multiport total exchange
 * on Q_d in 2^(d-1) slots (Bertsekas, Ozveren, Stamoulis, Tseng and Tsitsiklis 1991), and of the
 * Konig edge colouring it is planned with (core/algo/engine/konig.c), run in the slot simulator:
 * verified runs, steps == predicted == 2^(d-1) msgs frags for d = 1..10 (11 and 12 in the
 * integration test test_te_hypercube_large), auto-selection, shortest paths, every link busy in
 * every slot, and what te-hypercube refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/konig.h"
#include "tests/support/testutil.h"

static void assert_has(const char *s, const char *needle)
{
    if (strstr(s, needle) == NULL)
        fail_msg("'%s' does not contain '%s'", s, needle);
}

/* ---- the colouring -------------------------------------------------------------------------- */

/* Random bipartite graphs (rows grouped, no parallel edges) coloured with their maximum degree:
 * every colour below it, no two edges of a row or of a column alike. */
static void test_konig_random(void **state)
{
    (void) state;
    uint64_t rng = 12345;
    for (int trial = 0; trial < 200; trial++) {
        uint32_t nrows = 1 + (uint32_t) (trial % 37), ncols = 1 + (uint32_t) (trial % 11);
        size_t cap = (size_t) nrows * ncols, ne = 0;
        uint32_t *eu = malloc(cap * sizeof *eu), *ej = malloc(cap * sizeof *ej);
        uint32_t *colour = malloc(cap * sizeof *colour);
        uint32_t *rdeg = calloc(nrows, sizeof *rdeg), *cdeg = calloc(ncols, sizeof *cdeg);
        assert_true(eu && ej && colour && rdeg && cdeg);
        for (uint32_t u = 0; u < nrows; u++)
            for (uint32_t j = 0; j < ncols; j++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                if ((rng >> 33) % 3 == 0)
                    continue;
                eu[ne] = u, ej[ne++] = j;
                rdeg[u]++, cdeg[j]++;
            }
        uint32_t h = 1;
        for (uint32_t u = 0; u < nrows; u++)
            h = rdeg[u] > h ? rdeg[u] : h;
        for (uint32_t j = 0; j < ncols; j++)
            h = cdeg[j] > h ? cdeg[j] : h;
        sn__konig_colour(nrows, ncols, h, eu, ej, colour, ne);
        for (size_t e = 0; e < ne; e++) {
            assert_true(colour[e] < h);
            for (size_t f = 0; f < e; f++)
                if ((eu[e] == eu[f] || ej[e] == ej[f]) && colour[e] == colour[f])
                    fail_msg("trial %d: edges (%u,%u) and (%u,%u) share colour %u", trial, eu[e],
                             ej[e], eu[f], ej[f], colour[e]);
        }
        free(eu), free(ej), free(colour), free(rdeg), free(cdeg);
    }
}

/* ---- te-hypercube --------------------------------------------------------------------------- */

/* Runs te on hypercube:d with auto-selection: te-hypercube is chosen, the run verifies every
 * delivery, takes exactly msgs * frags * 2^(d-1) steps (its prediction, the distance bound) and
 * sends each packet along a shortest path (transmissions = total distance). */
static void run_optimal(uint32_t d, uint32_t msgs, uint32_t frags)
{
    char spec[32];
    snprintf(spec, sizeof spec, "hypercube:%u", d);
    sn_topo_t *t = tu_topo(spec);
    sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
    p.msgs = msgs;
    p.frags = frags;
    tu_run_t r = tu_sim(t, &p, NULL);
    if (r.rc != 0 || !r.res.verified)
        fail_msg("te on %s: rc %d, %s", spec, r.rc, r.err.msg);
    assert_string_equal(r.algo->name, "te-hypercube");
    uint64_t half = 1ull << (d - 1), want = half * msgs * frags;
    if (r.res.steps != want || r.predicted != (int64_t) want)
        fail_msg("te on %s, msgs %u, frags %u: %llu steps, predicted %lld, want %llu", spec, msgs,
                 frags, (unsigned long long) r.res.steps, (long long) r.predicted,
                 (unsigned long long) want);
    assert_int_equal(r.res.deliveries, r.res.expected_deliveries);
    /* every node sends every packet over its d links: N * d * 2^(d-1) hops per round */
    assert_int_equal(r.res.packets, (uint64_t) t->n * d * half * msgs * frags);
    for (size_t i = 0; i < r.bounds.count; i++)
        if ((int64_t) r.res.steps < r.bounds.b[i].value)
            fail_msg("%s: %llu steps below the bound %s = %lld", spec,
                     (unsigned long long) r.res.steps, r.bounds.b[i].name,
                     (long long) r.bounds.b[i].value);
    assert_int_equal(r.bounds.best, (int64_t) want);
    sn_topo_free(t);
}

static void test_te_hypercube_every_dimension(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 10; d++)
        run_optimal(d, 1, 1);
}

static void test_te_hypercube_msgs_frags(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 6; d++)
        for (uint32_t msgs = 1; msgs <= 3; msgs++)
            for (uint32_t frags = 1; frags <= 2; frags++)
                run_optimal(d, msgs, frags);
}

/* Transmissions per slot and per (slot, node, port). */
typedef struct {
    uint32_t n, d;
    uint64_t slots;
    uint32_t *per_slot;
    uint8_t *used; /* [slots * n * d] */
} load_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    (void) pkt;
    load_t *l = ctx;
    assert_true(slot >= 1 && slot <= l->slots && port < l->d);
    l->per_slot[slot - 1]++;
    l->used[((slot - 1) * l->n + node) * l->d + port]++;
}

/* Every node sends on every one of its links in every slot, one packet each: the schedule has no
 * idle link, which is why it meets the counting bound. */
static void test_te_hypercube_every_link_every_slot(void **state)
{
    (void) state;
    for (uint32_t d = 1; d <= 7; d++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%u", d);
        sn_topo_t *t = tu_topo(spec);
        sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
        p.msgs = 2;
        const sn_algo_t *a;
        void *plan;
        int64_t pr;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("te-hypercube", t, &p, &a, &plan, &pr, &err), 0);
        load_t l = {t->n, d, (uint64_t) pr, NULL, NULL};
        l.per_slot = calloc(l.slots, sizeof *l.per_slot);
        l.used = calloc(l.slots * t->n * d, 1);
        assert_true(l.per_slot && l.used);
        sn_sim_opts_t o = {0};
        o.max_slots = 4 * (uint64_t) pr + 1024;
        o.on_send = on_send;
        o.send_ctx = &l;
        sn_sim_result_t res;
        tu_assert_rc(sn_sim_run(t, &p, a, plan, &o, &res, &err), 0);
        assert_true(res.verified);
        for (uint64_t s = 0; s < l.slots; s++)
            assert_int_equal(l.per_slot[s], t->n * d);
        for (size_t k = 0; k < l.slots * t->n * d; k++)
            assert_int_equal(l.used[k], 1);
        free(l.per_slot);
        free(l.used);
        a->plan_free(plan);
        sn_topo_free(t);
    }
}

/* Other topologies, and port models other than full-duplex multiport, are refused by name. */
static void test_te_hypercube_refuses(void **state)
{
    (void) state;
    static const char *const others[] = {"foldedcube:4", "torus:4x4", "complete:2*complete:2"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        sn_topo_t *t = tu_topo(others[i]);
        sn_params_t p = tu_params(SN_COLL_TE, "multi", "one", "full");
        const sn_algo_t *a;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("te-hypercube", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
        assert_has(err.msg, "hypercube:D");
        assert_has(err.msg, others[i]);
        sn_topo_free(t);
    }
    sn_topo_t *t = tu_topo("hypercube:3");
    static const char *const models[][3] = {{"single", "one", "full"}, {"multi", "one", "half"}};
    for (size_t i = 0; i < 2; i++) {
        sn_params_t p = tu_params(SN_COLL_TE, models[i][0], models[i][1], models[i][2]);
        const sn_algo_t *a;
        sn_err_t err = {0};
        tu_assert_rc(sn_model_select("te-hypercube", t, &p, &a, NULL, NULL, &err), SN_ENOTSUP);
        assert_has(err.msg, "te-hypercube");
    }
    sn_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_konig_random),
        cmocka_unit_test(test_te_hypercube_every_dimension),
        cmocka_unit_test(test_te_hypercube_msgs_frags),
        cmocka_unit_test(test_te_hypercube_every_link_every_slot),
        cmocka_unit_test(test_te_hypercube_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
