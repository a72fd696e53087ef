/* Unit tests of net/wire.c: the run parameters carried by an Assign (sn_params_t -> protobuf ->
 * bytes -> protobuf -> sn_params_t gives back the same parameters), the execution mode and its
 * wire numbers, and the fault strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "net/wire.h"
#include "tests/support/testutil.h"

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
    /* a barrier's default operator is max, but an explicit sum (sent as "absent") stays sum on
     * the node, and every other operator travels as it is */
    for (int op = 0; op < SN_OP_COUNT; op++) {
        sn_params_t p, q;
        uint32_t *src;
        sn_params_default(&p, SN_COLL_BARRIER);
        p.op = (sn_op_t) op;
        round_trip(&p, &q, &src);
        assert_int_equal(q.op, op);
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

/* Every execution mode survives an Assign packed to bytes and read back; the numbers on the wire
 * are the protocol's (absent or 0 the slot barrier, 1 dataflow), and an unknown one is refused
 * naming the known ones. */
static void test_sync_wire(void **state)
{
    (void) state;
    for (unsigned s = 0; s < SN_SYNC_COUNT; s++) {
        Stepnet__Assign a = STEPNET__ASSIGN__INIT;
        sn_wire_sync_to_assign((sn_sync_t) s, &a);
        size_t len = stepnet__assign__get_packed_size(&a);
        uint8_t *buf = malloc(len + 1);
        stepnet__assign__pack(&a, buf);
        Stepnet__Assign *b = stepnet__assign__unpack(NULL, len, buf);
        assert_non_null(b);
        sn_sync_t back = SN_SYNC_COUNT;
        sn_err_t err = {0};
        tu_assert_rc(sn_wire_assign_to_sync(b, &back, &err), 0);
        assert_int_equal(back, s);
        stepnet__assign__free_unpacked(b, NULL);
        free(buf);
    }
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    sn_wire_sync_to_assign(SN_SYNC_SLOT, &a);
    assert_false(a.has_sync); /* the slot barrier is the field's absence */
    sn_wire_sync_to_assign(SN_SYNC_DATAFLOW, &a);
    assert_true(a.has_sync);
    assert_int_equal(a.sync, 1);
    sn_sync_t s = SN_SYNC_COUNT;
    sn_err_t err = {0};
    a = (Stepnet__Assign) STEPNET__ASSIGN__INIT; /* absent: the slot barrier */
    tu_assert_rc(sn_wire_assign_to_sync(&a, &s, &err), 0);
    assert_int_equal(s, SN_SYNC_SLOT);
    a.has_sync = 1;
    a.sync = 0;
    tu_assert_rc(sn_wire_assign_to_sync(&a, &s, &err), 0);
    assert_int_equal(s, SN_SYNC_SLOT);
    a.sync = 7;
    s = SN_SYNC_DATAFLOW;
    tu_assert_rc(sn_wire_assign_to_sync(&a, &s, &err), SN_EINVAL);
    assert_string_equal(err.msg, "unknown synchronisation 7 (0 slot, 1 dataflow)");
    assert_int_equal(s, SN_SYNC_DATAFLOW); /* unchanged */
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
    tu_assert_rc(sn_wire_fault_parse("trickle@2", &f, &err), 0);
    assert_int_equal(f.kind, SN_FAULT_TRICKLE);
    assert_true(f.slot == 2);
    assert_string_equal(sn_wire_fault_name(f.kind), "trickle");
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

/* The hand-written data header codec against protobuf-c: for headers with every combination of
 * optional fields and values across the varint lengths, sn_wire_pack_data_header writes the bytes
 * stepnet__data_header__pack writes, and sn_wire_unpack_data_header reads them back as protobuf-c
 * does; non-canonical encodings that protobuf-c accepts (fields out of order, repeated, unknown,
 * overlong varints) are left to protobuf-c (return 0), and sn_wire_parse_data reads them alike. */
static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static uint64_t rnd_width(unsigned bits)
{
    unsigned b = (unsigned) (rnd() % (bits + 1));
    return b == 0 ? 0 : rnd() >> (64 - b);
}

static void expect_same_header(const Stepnet__DataHeader *a, const Stepnet__DataHeader *b)
{
    assert_int_equal(a->cid, b->cid);
    assert_int_equal(a->slot, b->slot);
    assert_int_equal(a->radius, b->radius);
    assert_int_equal(a->cmax, b->cmax);
    assert_int_equal(a->packet != NULL, b->packet != NULL);
    if (a->packet == NULL)
        return;
    const Stepnet__PacketHeader *p = a->packet, *q = b->packet;
    assert_int_equal(p->src, q->src);
    assert_int_equal(p->dst, q->dst);
    assert_int_equal(p->seq, q->seq);
    assert_int_equal(p->frag, q->frag);
    assert_int_equal(p->kind, q->kind);
    assert_int_equal(p->has_flags, q->has_flags);
    assert_int_equal(p->has_tag, q->has_tag);
    assert_int_equal(p->has_value, q->has_value);
    assert_int_equal(p->flags, q->flags);
    assert_int_equal(p->tag, q->tag);
    assert_int_equal(p->value, q->value);
}

static void test_data_header_codec(void **state)
{
    (void) state;
    for (int it = 0; it < 20000; it++) {
        Stepnet__DataHeader h = STEPNET__DATA_HEADER__INIT;
        Stepnet__PacketHeader ph = STEPNET__PACKET_HEADER__INIT;
        h.cid = (uint32_t) rnd_width(32);
        h.slot = rnd_width(64);
        h.radius = (uint32_t) rnd_width(32);
        h.cmax = rnd_width(64);
        if (it % 4 != 0) {
            ph.src = (uint32_t) rnd_width(32);
            ph.dst = (uint32_t) rnd_width(32);
            ph.seq = (uint32_t) rnd_width(32);
            ph.frag = (uint32_t) rnd_width(32);
            ph.kind = (uint32_t) rnd_width(32);
            ph.has_flags = it & 8 ? 1 : 0;
            ph.flags = (uint32_t) rnd_width(32);
            ph.has_tag = it & 16 ? 1 : 0;
            ph.tag = (uint32_t) rnd_width(32);
            ph.has_value = it & 32 ? 1 : 0;
            ph.value = rnd_width(64);
            h.packet = &ph;
        }
        uint8_t ref[SN_WIRE_MAX_DATAHDR], mine[SN_WIRE_MAX_DATAHDR];
        size_t nref = stepnet__data_header__get_packed_size(&h);
        assert_true(nref <= sizeof ref);
        stepnet__data_header__pack(&h, ref);
        size_t nmine = sn_wire_pack_data_header(&h, mine);
        assert_int_equal(nmine, nref);
        assert_memory_equal(mine, ref, nref);
        /* absent optional fields read back as protobuf-c reads them: not present, zero */
        if (h.packet) {
            ph.flags = ph.has_flags ? ph.flags : 0;
            ph.tag = ph.has_tag ? ph.tag : 0;
            ph.value = ph.has_value ? ph.value : 0;
        }
        Stepnet__DataHeader got;
        Stepnet__PacketHeader gotp;
        assert_int_equal(sn_wire_unpack_data_header(ref, nref, &got, &gotp), 1);
        expect_same_header(&got, &h);
        Stepnet__DataHeader *pc = stepnet__data_header__unpack(NULL, nref, ref);
        assert_non_null(pc);
        expect_same_header(&got, pc);
        stepnet__data_header__free_unpacked(pc, NULL);
        /* every truncation: protobuf-c refuses it, or accepts it and then so may we, alike */
        for (size_t cut = 0; cut < nref; cut++) {
            Stepnet__DataHeader *t = stepnet__data_header__unpack(NULL, cut, ref);
            if (sn_wire_unpack_data_header(ref, cut, &got, &gotp)) {
                assert_non_null(t);
                expect_same_header(&got, t);
            }
            if (t)
                stepnet__data_header__free_unpacked(t, NULL);
        }
    }
    /* encodings protobuf-c accepts that are not the canonical one: left to protobuf-c */
    static const struct {
        uint8_t b[16];
        size_t n;
    } other[] = {
        {{0x10, 0x05, 0x08, 0x01, 0x18, 0x00, 0x20, 0x00}, 8},              /* fields 2 before 1 */
        {{0x08, 0x01, 0x08, 0x02, 0x10, 0x05, 0x18, 0x00, 0x20, 0x00}, 10}, /* field 1 twice */
        {{0x08, 0x01, 0x10, 0x05, 0x18, 0x00, 0x20, 0x00, 0x48, 0x07}, 10}, /* unknown field 9 */
        {{0x08, 0x81, 0x00, 0x10, 0x05, 0x18, 0x00, 0x20, 0x00}, 9},        /* overlong varint */
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        Stepnet__DataHeader got;
        Stepnet__PacketHeader gotp;
        assert_int_equal(sn_wire_unpack_data_header(other[i].b, other[i].n, &got, &gotp), 0);
        Stepnet__DataHeader *pc = stepnet__data_header__unpack(NULL, other[i].n, other[i].b);
        assert_non_null(pc);
        /* and the frame parser reads them through protobuf-c */
        uint8_t body[32] = {0, 0, 0, (uint8_t) other[i].n};
        memcpy(body + 4, other[i].b, other[i].n);
        sn_wire_data_t d;
        sn_err_t err = {0};
        assert_int_equal(sn_wire_parse_data(body, 4 + other[i].n, 8, &d, &err), 0);
        assert_int_equal(d.cid, pc->cid);
        assert_int_equal(d.slot, pc->slot);
        assert_int_equal(d.has_packet, 0);
        stepnet__data_header__free_unpacked(pc, NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_defaults), cmocka_unit_test(test_params_every_field),
        cmocka_unit_test(test_params_op),       cmocka_unit_test(test_params_bad_collective),
        cmocka_unit_test(test_fault_parse),     cmocka_unit_test(test_sync_wire),
        cmocka_unit_test(test_payload_pieces),  cmocka_unit_test(test_data_header_codec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
