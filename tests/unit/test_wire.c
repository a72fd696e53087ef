/* Unit tests of net/wire.c: the run parameters carried by an Assign (sn_params_t -> protobuf ->
 * bytes -> protobuf -> sn_params_t gives back the same parameters), and the fault strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wire.h"

/* p -> Assign -> packed bytes -> Assign -> q. */
static void round_trip(const sn_params_t *p, sn_params_t *q, uint32_t **sources)
{
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    a.topology = "ring:8";
    a.algorithm = "auto";
    sn_wire_params_to_assign(p, &a);
    size_t len = stepnet__assign__get_packed_size(&a);
    uint8_t *buf = malloc(len + 1);
    stepnet__assign__pack(&a, buf);
    Stepnet__Assign *b = stepnet__assign__unpack(NULL, len, buf);
    assert_non_null(b);
    sn_err_t err = {0};
    tu_assert_rc(sn_wire_assign_to_params(b, q, sources, &err), 0);
    stepnet__assign__free_unpacked(b, NULL);
    free(buf);
}

static void expect_same(const sn_params_t *p, const sn_params_t *q)
{
    assert_int_equal(q->coll, p->coll);
    assert_int_equal(q->pm.ports, p->pm.ports);
    assert_int_equal(q->pm.rx, p->pm.rx);
    assert_int_equal(q->pm.duplex, p->pm.duplex);
    assert_int_equal(q->root, p->root);
    assert_int_equal(q->msgs, p->msgs);
    assert_int_equal(q->frags, p->frags);
    assert_int_equal(q->size, p->size);
    assert_true(q->seed == p->seed);
    assert_int_equal(q->op, p->op);
    assert_int_equal(q->nsources, p->nsources);
    if (p->nsources > 0) {
        assert_ptr_not_equal(q->sources, p->sources); /* a copy, owned by the caller */
        assert_memory_equal(q->sources, p->sources, p->nsources * sizeof *p->sources);
    } else {
        assert_null(q->sources);
    }
}

static void test_params_defaults(void **state)
{
    (void) state;
    sn_params_t p, q;
    uint32_t *src;
    sn_params_default(&p, SN_COLL_BCAST);
    round_trip(&p, &q, &src);
    expect_same(&p, &q);
    assert_null(src);
}

static void test_params_every_field(void **state)
{
    (void) state;
    static const uint32_t sources[] = {1, 4, 6};
    const sn_coll_t colls[] = {SN_COLL_BCAST, SN_COLL_SCATTER, SN_COLL_GATHER, SN_COLL_MNB,
                               SN_COLL_TE};
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
        for (int v = 0; v < 8; v++) {
            sn_params_t p, q;
            uint32_t *src;
            sn_params_default(&p, colls[c]);
            p.pm.ports = (v & 1) ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
            p.pm.rx = (v & 2) ? SN_RX_ANY : SN_RX_ONE;
            p.pm.duplex = (v & 4) ? SN_DUPLEX_HALF : SN_DUPLEX_FULL;
            p.root = 5;
            p.msgs = 3;
            p.frags = (uint32_t) v + 1;
            p.size = 4096;
            p.seed = 0x123456789abcdefULL;
            if (v & 1) {
                p.sources = sources;
                p.nsources = 3;
            }
            round_trip(&p, &q, &src);
            expect_same(&p, &q);
            assert_ptr_equal(q.sources, src);
            free(src);
        }
    }
}

static void test_params_bad_collective(void **state)
{
    (void) state;
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    a.collective = "allscatter";
    sn_params_t q;
    uint32_t *src = (uint32_t *) &q;
    sn_err_t err = {0};
    tu_assert_rc(sn_wire_assign_to_params(&a, &q, &src, &err), SN_EINVAL);
    assert_null(src);
    assert_non_null(strstr(err.msg, "allscatter"));
}

/* The combining operator travels (absent means sum); an unknown one is a protocol error. */
static void test_params_op(void **state)
{
    (void) state;
    for (int op = 0; op < SN_OP_COUNT; op++) {
        static const uint32_t targets[] = {0, 3};
        sn_params_t p, q;
        uint32_t *src;
        sn_params_default(&p, op == 0 ? SN_COLL_SNA : SN_COLL_PMNA);
        p.op = (sn_op_t) op;
        if (op > 0) {
            p.sources = targets;
            p.nsources = 2;
        }
        round_trip(&p, &q, &src);
        expect_same(&p, &q);
        free(src);
    }
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    a.collective = "sna";
    a.has_op = 1;
    a.op = SN_OP_COUNT;
    sn_params_t q;
    uint32_t *src = NULL;
    sn_err_t err = {0};
    tu_assert_rc(sn_wire_assign_to_params(&a, &q, &src, &err), SN_EPROTO);
    assert_null(src);
    assert_non_null(strstr(err.msg, "combining operator"));
}

static void test_fault_parse(void **state)
{
    (void) state;
    sn_fault_t f;
    sn_err_t err = {0};
    tu_assert_rc(sn_wire_fault_parse("kill@5", &f, &err), 0);
    assert_int_equal(f.kind, SN_FAULT_KILL);
    assert_true(f.slot == 5);
    tu_assert_rc(sn_wire_fault_parse("flip@1", &f, &err), 0);
    assert_int_equal(f.kind, SN_FAULT_FLIP);
    assert_string_equal(sn_wire_fault_name(f.kind), "flip");
    const char *bad[] = {"kill", "kill@", "kill@0", "kil@3", "kill@3x", "@3", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_assert_rc(sn_wire_fault_parse(bad[i], &f, &err), SN_EINVAL);
        assert_non_null(strstr(err.msg, "KIND@SLOT"));
    }
}

/* Payloads streamed in pieces: sn_wire_payload_fill and the *_at checks at any offset and piece
 * length give exactly the bytes of the whole-payload calls, and a flipped byte is caught in the
 * piece that holds it. */
static void test_payload_pieces(void **state)
{
    (void) state;
    enum { N = 200003 };
    uint8_t *whole = malloc(N), *pieced = malloc(N);
    for (int kind = 0; kind < 2; kind++) {
        sn_wire_payload_t g = {0};
        g.combined = kind;
        g.op = SN_OP_MAX;
        g.seed = kind ? 0x1234567890abcdefULL : 42;
        g.src = 3, g.dst = 5, g.seq = 7, g.frag = 1;
        if (kind)
            sn_payload_fill_value((sn_op_t) g.op, g.seed, whole, N);
        else
            sn_payload_fill(g.seed, g.src, g.dst, g.seq, g.frag, whole, N);
        const uint32_t steps[] = {1, 3, 7, 8, 13, 4096, 65535, 65536, 65537};
        for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
            memset(pieced, 0, N);
            for (uint32_t off = 0; off < N; off += steps[k]) {
                uint32_t n = N - off < steps[k] ? N - off : steps[k];
                sn_wire_payload_fill(&g, off, pieced + off, n);
                int rc =
                    kind ? sn_payload_check_value_at((sn_op_t) g.op, g.seed, off, whole + off, n)
                         : sn_payload_check_at(g.seed, g.src, g.dst, g.seq, g.frag, off,
                                               whole + off, n);
                assert_int_equal(rc, 0);
            }
            assert_memory_equal(pieced, whole, N);
        }
        for (uint32_t at = 0; at < 40; at++) { /* a flipped byte near the start of a piece */
            pieced[at] ^= 0x20;
            uint32_t off = at & ~3u, n = 9;
            int rc = kind ? sn_payload_check_value_at((sn_op_t) g.op, g.seed, off, pieced + off, n)
                          : sn_payload_check_at(g.seed, g.src, g.dst, g.seq, g.frag, off,
                                                pieced + off, n);
            assert_int_equal(rc, SN_EVERIFY);
            pieced[at] ^= 0x20;
        }
    }
    free(whole);
    free(pieced);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_defaults), cmocka_unit_test(test_params_every_field),
        cmocka_unit_test(test_params_op),       cmocka_unit_test(test_params_bad_collective),
        cmocka_unit_test(test_fault_parse),     cmocka_unit_test(test_payload_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
