/* Unit tests of net/secure.c: the test vectors of docs/security.md for both ciphers (computed
 * independently by scripts/security_vectors.py), every single-bit alteration of every handshake
 * message, mode mismatches, frame sealing against alteration, replay, loss and reordering, and key
 * files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/secure.h"
#include "stepnet/error.h"
#include "tests/support/testutil.h"

/* docs/security.md, "Test vectors" (scripts/security_vectors.py prints the same lines). */
static const char *const V_K = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
static const char *const V_EI_SK =
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f";
static const char *const V_ER_SK =
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f";
static const char *const V_HDR_R = "808182838485868788898a8b8c8d8e8f9091929394959697";
static const char *const V_HDR_I = "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7";
static const char *const V_S =
    "658ab5697c8d05d86c4c2c7cf86f4fe59b039cb1a1c0d626ab54245a90d62f6a4053daef6960b133a632efc172"
    "a5b4b07c77481f0be540edffc57fe2369c5c0e";
/* Per cipher: the initiator's offer and the responder's choice, th, k_i2r, k_r2i, k_mac, the
 * three messages, and the first frame from the initiator after the handshake: type 3 and body
 * "hello", one chunk tagged PUSH, sealed with its length header 00 00 00 06 as associated data
 * (scripts/security_vectors.py computes it too, from the AES-GCM and secretstream definitions). */
typedef struct vectors_s {
    int offer, choice;
    const char *th, *k_i2r, *k_r2i, *k_mac, *m1, *m2, *m3, *frame1;
} vectors_t;
static const vectors_t V[2] = {
    {
        SN_CIPHER_XCHACHA20 | SN_CIPHER_AES256GCM,
        SN_CIPHER_AES256GCM,
        "8154c44f86fd08a1fe5b0c5219966cbedd6be9dd3821dd452e0877927047d73c",
        "474c5386a9f7c2f9329bdc45f2b0893ad26d1a76968279b528363ed75cffc7f8",
        "8fa110b74c531ae91dbb45e150b4569bd8011a33d6e00fe8bbcc1cfc147309c1",
        "12f2ba2d12d32d2504b644e5cf87a6b3c347ece913ee7923178fef3dd632930f",
        "7374706e6574030179a631eede1bf9c98f12032cdeadd0e7a079398fc786b88cc846ec89af85a51a03",
        "7374706e65740301675dd574ed7789310b3d2e7681f3790b466c773b1521fecf36577958371ea52f02808182"
        "838485868788898a8b8c8d8e8f9091929394959697e72cc0bb845541aa1dba6ac32487e100fdbdf3d75a7849"
        "08c0e4ebf8ee90216b",
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7cf8f93226deb4d34025e6e506e473b4d95da0c06"
        "613500b6d72371c207430228",
        "0000000601e2475ebd02bc8a9a31409846fb45a2fb073de50bce0c",
    },
    {
        SN_CIPHER_XCHACHA20,
        SN_CIPHER_XCHACHA20,
        "1eab8a2028d8493321fbc7df029fcb045c9631e82bfb4449b63eb7c094327ff6",
        "aebc0b6c997f7c96559eda6fe94a1a65144c41fdddc666d16404a14d681d6087",
        "aa1058edd6bce69cccccaf98ea0312eabcb8b3a86b7e3e01199162ad0b3e85c8",
        "1c9dd2f59c6bff2a6e9fe174342601e05b40d535021b453ed5bebbf2605bed4c",
        "7374706e6574030179a631eede1bf9c98f12032cdeadd0e7a079398fc786b88cc846ec89af85a51a01",
        "7374706e65740301675dd574ed7789310b3d2e7681f3790b466c773b1521fecf36577958371ea52f01808182"
        "838485868788898a8b8c8d8e8f9091929394959697fc3077f46bc47860df1f80a72fac6ea25cbe4f7982d6e5"
        "8b6179fc882d2c92dc",
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b70f51354fbfd9caa1d249968c73355013099fa306"
        "63cab1e9b411d8a231eb09ca",
        "000000064eda7cb5a32c886be8657641145571ff53475255fedb7a",
    },
};
/* AES-256-GCM: the initiator's key of epoch 0 (sn_sec_aes_epoch_key of k_i2r and hdr_I) */
static const char *const V_AES_K0 =
    "bf92bf09d6446a621680797685fc102b1032384702ff0734336f995ed14bcce3";

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    assert_int_equal(sodium_hex2bin(out, cap, hex, strlen(hex), NULL, &n, NULL), 0);
    return n;
}

static void assert_hex(const uint8_t *got, size_t n, const char *want)
{
    char hex[1024];
    assert_true(2 * n + 1 <= sizeof hex);
    sodium_bin2hex(hex, sizeof hex, got, n);
    assert_string_equal(hex, want);
}

static void vector_inputs(sn_key_t *k, sn_hs_fixed_t *fi, sn_hs_fixed_t *fr)
{
    unhex(V_K, k->k, sizeof k->k);
    unhex(V_EI_SK, fi->e_sk, 32);
    unhex(V_HDR_I, fi->hdr, 24);
    unhex(V_ER_SK, fr->e_sk, 32);
    unhex(V_HDR_R, fr->hdr, 24);
}

/* Runs a whole handshake in memory; messages may be altered by `tamper` (message number 1..3,
 * the bytes, their length). Returns 1 if both sides completed. */
typedef void (*tamper_fn)(int msg, uint8_t *p, size_t n, void *arg);

typedef struct pair_s {
    sn_hs_t i, r;
    int rc_i, rc_r;
    const char *why_i, *why_r;
    uint8_t m1[SN_SEC_M1_BYTES], m2[SN_SEC_MAX_REPLY], m3[SN_SEC_MAX_REPLY];
    size_t n1, n2, n3;
} pair_t;

/* The ciphers the initiator offers and the responder accepts in handshake(): every one this
 * machine runs unless a test says otherwise (reset before each test by reset_ciphers). */
static int offer, accept;

static int reset_ciphers(void **state)
{
    (void) state;
    offer = accept = sn_sec_ciphers_available();
    return 0;
}

static int have_aes(void)
{
    if (sn_sec_ciphers_available() & SN_CIPHER_AES256GCM)
        return 1;
    print_message("  (this CPU has no AES-NI: the AES-256-GCM cases are skipped)\n");
    return 0;
}

static int handshake(pair_t *p, int mode_i, const sn_key_t *ki, int mode_r, const sn_key_t *kr,
                     const sn_hs_fixed_t *fi, const sn_hs_fixed_t *fr, tamper_fn tamper, void *arg)
{
    memset(p, 0, sizeof *p);
    sn_hs_start(&p->i, mode_i, ki, 1, offer, fi, p->m1, &p->n1);
    uint8_t none[SN_SEC_M1_BYTES];
    size_t n0 = 0;
    sn_hs_start(&p->r, mode_r, kr, 0, accept, fr, none, &n0);
    assert_int_equal(n0, 0);
    if (tamper)
        tamper(1, p->m1, p->n1, arg);
    /* the responder reads what it wants, in its own chunks */
    size_t off = 0;
    uint8_t out[SN_SEC_MAX_REPLY];
    size_t outlen;
    while (!p->r.done && p->rc_r == 0 && off + p->r.want <= p->n1) {
        size_t w = p->r.want;
        p->rc_r = sn_hs_step(&p->r, p->m1 + off, out, &outlen, &p->why_r);
        off += w;
        memcpy(p->m2 + p->n2, out, outlen);
        p->n2 += outlen;
    }
    if (p->n2 == 0)
        return 0;
    if (tamper)
        tamper(2, p->m2, p->n2, arg);
    off = 0;
    while (!p->i.done && p->rc_i == 0 && off + p->i.want <= p->n2) {
        size_t w = p->i.want;
        p->rc_i = sn_hs_step(&p->i, p->m2 + off, out, &outlen, &p->why_i);
        off += w;
        memcpy(p->m3 + p->n3, out, outlen);
        p->n3 += outlen;
    }
    if (p->rc_i != 0 || p->rc_r != 0)
        return 0;
    if (p->n3) {
        if (tamper)
            tamper(3, p->m3, p->n3, arg);
        if (p->n3 < p->r.want)
            return 0;
        p->rc_r = sn_hs_step(&p->r, p->m3, out, &outlen, &p->why_r);
        assert_int_equal(outlen, 0);
    }
    return p->i.done && p->r.done && p->rc_i == 0 && p->rc_r == 0;
}

static void test_vectors(void **state)
{
    (void) state;
    sn_key_t k;
    sn_hs_fixed_t fi, fr;
    vector_inputs(&k, &fi, &fr);
    for (int v = 0; v < 2; v++) {
        if (V[v].choice == SN_CIPHER_AES256GCM && !have_aes())
            continue;
        offer = V[v].offer;
        pair_t p;
        assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, &fi, &fr, NULL, NULL));
        assert_int_equal(p.i.sec.cipher, V[v].choice);
        assert_int_equal(p.r.sec.cipher, V[v].choice);
        assert_hex(p.m1, p.n1, V[v].m1);
        assert_hex(p.m2, p.n2, V[v].m2);
        assert_hex(p.m3, p.n3, V[v].m3);
        /* the derivation on its own */
        uint8_t s[64], th[32], a[32], b[32], c[32];
        unhex(V_S, s, sizeof s);
        unhex(V[v].th, th, sizeof th);
        sn_hs_derive(&k, s, th, a, b, c);
        assert_hex(a, 32, V[v].k_i2r);
        assert_hex(b, 32, V[v].k_r2i);
        assert_hex(c, 32, V[v].k_mac);
        if (V[v].choice == SN_CIPHER_AES256GCM) {
            uint8_t hdr[24], k0[32];
            unhex(V_HDR_I, hdr, sizeof hdr);
            sn_sec_aes_epoch_key(a, hdr, 0, k0);
            assert_hex(k0, 32, V_AES_K0);
        }
        /* the first sealed frame, and the responder opens it */
        uint8_t buf[64];
        const uint8_t m[] = {3, 'h', 'e', 'l', 'l', 'o'};
        uint32_t clen = (uint32_t) sizeof m + SN_SEC_ABYTES;
        buf[0] = 0, buf[1] = 0, buf[2] = 0, buf[3] = (uint8_t) sizeof m;
        sn_sec_seal(&p.i.sec, buf + 4, m, sizeof m, buf, 1);
        assert_hex(buf, 4 + clen, V[v].frame1);
        uint8_t back[sizeof m];
        assert_int_equal(sn_sec_open(&p.r.sec, back, buf + 4, clen, buf, 1), 0);
        assert_memory_equal(back, m, sizeof m);
        sn_hs_wipe(&p.i);
        sn_hs_wipe(&p.r);
    }
}

/* The responder takes AES-256-GCM when both sides allow it, else XChaCha20-Poly1305; sides that
 * share no cipher fail with the offer and the accepted set named; a choice outside the offer is
 * refused even when its tag is right. */
static void test_cipher_negotiation(void **state)
{
    (void) state;
    sn_key_t k;
    sn_key_random(&k);
    pair_t p;
    offer = SN_CIPHER_XCHACHA20;
    assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    assert_int_equal(p.i.sec.cipher, SN_CIPHER_XCHACHA20);
    offer = SN_CIPHER_XCHACHA20 | SN_CIPHER_AES256GCM;
    accept = SN_CIPHER_XCHACHA20;
    assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    assert_int_equal(p.r.sec.cipher, SN_CIPHER_XCHACHA20);
    offer = SN_CIPHER_AES256GCM;
    assert_false(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    assert_int_equal(p.rc_r, SN_EPROTO);
    assert_non_null(strstr(p.why_r, "no cipher in common: the peer offers aes256gcm"));
    assert_non_null(strstr(p.why_r, "this side accepts xchacha20poly1305"));
    assert_int_equal(p.n2, 0); /* no answer: the initiator sees the connection close */
    if (!have_aes())
        return;
    offer = accept = SN_CIPHER_XCHACHA20 | SN_CIPHER_AES256GCM;
    assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    assert_int_equal(p.i.sec.cipher, SN_CIPHER_AES256GCM);
    assert_int_equal(p.r.sec.cipher, SN_CIPHER_AES256GCM);
    /* an initiator that offered both but (a bug, or a peer holding the key) gets a choice it no
     * longer allows: the transcript is intact, the choice check refuses it */
    memset(&p, 0, sizeof p);
    uint8_t out[SN_SEC_MAX_REPLY], m2[SN_SEC_MAX_REPLY];
    size_t n = 0, n2 = 0, n0 = 0;
    sn_hs_start(&p.i, SN_SEC_SODIUM, &k, 1, offer, NULL, p.m1, &p.n1);
    sn_hs_start(&p.r, SN_SEC_SODIUM, &k, 0, accept, NULL, out, &n0);
    for (size_t off = 0; !p.r.done && off + p.r.want <= p.n1;) {
        size_t w = p.r.want;
        assert_int_equal(sn_hs_step(&p.r, p.m1 + off, out, &n, &p.why_r), 0);
        memcpy(m2 + n2, out, n);
        n2 += n;
        off += w;
    }
    p.i.ciphers = SN_CIPHER_XCHACHA20;
    assert_int_equal(sn_hs_step(&p.i, m2, out, &n, &p.why_i), 0); /* the preamble */
    assert_int_equal(sn_hs_step(&p.i, m2 + SN_SEC_PREAMBLE, out, &n, &p.why_i), SN_EPROTO);
    assert_non_null(strstr(p.why_i, "did not offer"));
    assert_int_equal(n, 0);
    sn_hs_wipe(&p.i);
    sn_hs_wipe(&p.r);
}

/* Random keys both ways: the streams work in both directions, in place, for many frames. */
static void streams_both_ways_with(void)
{
    sn_key_t k;
    sn_key_random(&k);
    pair_t p;
    assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    uint8_t *buf = malloc(4 + 70000 + SN_SEC_ABYTES);
    for (int f = 0; f < 50; f++) {
        size_t mlen = (size_t) (f * 1399) % 70000 + 1;
        sn_sec_t *tx = (f & 1) ? &p.r.sec : &p.i.sec, *rx = (f & 1) ? &p.i.sec : &p.r.sec;
        uint8_t ad[4] = {0, 0, (uint8_t) (mlen >> 8), (uint8_t) mlen};
        for (size_t i = 0; i < mlen; i++)
            buf[4 + 1 + i] = (uint8_t) (i * 31 + (size_t) f);
        sn_sec_seal(tx, buf + 4, buf + 5, mlen, ad, f % 3 == 0); /* in place */
        assert_int_equal(sn_sec_open(rx, buf + 5, buf + 4, mlen + SN_SEC_ABYTES, ad, f % 3 == 0),
                         0);
        for (size_t i = 0; i < mlen; i++)
            if (buf[5 + i] != (uint8_t) (i * 31 + (size_t) f))
                fail_msg("frame %d byte %zu differs after the round trip", f, i);
    }
    free(buf);
}

typedef struct flip_s {
    int msg;
    size_t bit;
} flip_t;

static void flip_bit(int msg, uint8_t *p, size_t n, void *arg)
{
    flip_t *f = arg;
    if (msg == f->msg && f->bit / 8 < n)
        p[f->bit / 8] ^= (uint8_t) (1u << (f->bit % 8));
}

/* One flipped bit anywhere in M1, M2 or M3 and the handshake does not complete on both sides;
 * the side that notices says why. */
static void every_bit_of_the_handshake_with(void)
{
    sn_key_t k;
    sn_key_random(&k);
    const size_t len[] = {0, SN_SEC_M1_BYTES, SN_SEC_M2_BYTES, SN_SEC_M3_BYTES};
    size_t tried = 0;
    for (int msg = 1; msg <= 3; msg++) {
        for (size_t bit = 0; bit < 8 * len[msg]; bit++) {
            flip_t f = {msg, bit};
            pair_t p;
            if (handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, flip_bit, &f))
                fail_msg("the handshake completed with bit %zu of M%d flipped", bit, msg);
            const char *why = p.rc_i ? p.why_i : p.why_r;
            if ((p.rc_i || p.rc_r) && why == NULL)
                fail_msg("a failure without a reason (bit %zu of M%d)", bit, msg);
            /* a flip in the key confirmation itself is always caught by the responder */
            if (msg == 3)
                assert_int_equal(p.rc_r, SN_EPROTO);
            tried++;
        }
    }
    print_message("  %zu single-bit alterations of the handshake, all refused\n", tried);
}

/* A peer with another cluster key: the initiator refuses the responder's confirmation. */
static void test_wrong_key(void **state)
{
    (void) state;
    sn_key_t a, b;
    sn_key_random(&a);
    sn_key_random(&b);
    pair_t p;
    assert_false(handshake(&p, SN_SEC_SODIUM, &a, SN_SEC_SODIUM, &b, NULL, NULL, NULL, NULL));
    assert_int_equal(p.rc_i, SN_EPROTO);
    assert_non_null(strstr(p.why_i, "cluster key"));
    assert_int_equal(p.n3, 0); /* it never confirms */
    assert_false(p.r.done);
}

/* Plaintext against secure, both ways, and strangers. */
static void test_mode_mismatch(void **state)
{
    (void) state;
    sn_key_t k;
    sn_key_random(&k);
    pair_t p;
    assert_false(handshake(&p, SN_SEC_NONE, NULL, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    assert_int_equal(p.rc_r, SN_EPROTO);
    assert_non_null(strstr(p.why_r, "--security none"));
    assert_int_equal(p.n2, SN_SEC_PREAMBLE); /* it still says what it is */
    assert_int_equal(p.rc_i, SN_EPROTO);
    assert_non_null(strstr(p.why_i, "requires authenticated encryption"));

    assert_false(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_NONE, NULL, NULL, NULL, NULL, NULL));
    assert_int_equal(p.rc_r, SN_EPROTO);
    assert_non_null(strstr(p.why_r, "requires authenticated encryption"));
    assert_int_equal(p.rc_i, SN_EPROTO);
    assert_non_null(strstr(p.why_i, "--security none"));

    assert_true(handshake(&p, SN_SEC_NONE, NULL, SN_SEC_NONE, NULL, NULL, NULL, NULL, NULL));
    assert_int_equal(p.n1, SN_SEC_PREAMBLE);
    assert_int_equal(p.n2, SN_SEC_PREAMBLE);

    /* a plaintext stepnet frame, or an HTTP request, is not a preamble: no answer */
    sn_hs_t r;
    uint8_t out[SN_SEC_MAX_REPLY];
    size_t n;
    const char *why = NULL;
    sn_hs_start(&r, SN_SEC_SODIUM, &k, 0, accept, NULL, out, &n);
    assert_int_equal(sn_hs_step(&r, (const uint8_t *) "GET / HT", out, &n, &why), SN_EPROTO);
    assert_int_equal(n, 0);
    assert_non_null(strstr(why, "not a stepnet process"));
    sn_hs_start(&r, SN_SEC_SODIUM, &k, 0, accept, NULL, out, &n);
    assert_int_equal(sn_hs_step(&r, (const uint8_t *) "stpnet\x01\x01", out, &n, &why), SN_EPROTO);
    assert_non_null(strstr(why, "version"));
    sn_hs_wipe(&r);
}

/* After the handshake: a flipped bit anywhere in a frame (length header included), a replay, a
 * lost frame and two frames swapped are all refused. */
static void frames_refused_with(void)
{
    sn_key_t k;
    sn_key_random(&k);
    enum { N = 4, M = 24 };
    uint8_t frame[N][4 + M + SN_SEC_ABYTES];
    const uint32_t clen = M + SN_SEC_ABYTES;
    pair_t base;
    assert_true(handshake(&base, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    sn_sec_t tx = base.i.sec, rx0 = base.r.sec;
    for (int f = 0; f < N; f++) {
        uint8_t m[M];
        memset(m, 'a' + f, sizeof m);
        frame[f][0] = frame[f][1] = frame[f][2] = 0;
        frame[f][3] = (uint8_t) clen;
        sn_sec_seal(&tx, frame[f] + 4, m, M, frame[f], 1);
    }
    uint8_t out[M];
    /* in order: all open */
    sn_sec_t rx = rx0;
    for (int f = 0; f < N; f++)
        assert_int_equal(sn_sec_open(&rx, out, frame[f] + 4, clen, frame[f], 1), 0);
    /* every bit of frame 1, header included */
    for (size_t bit = 0; bit < 8 * (4 + clen); bit++) {
        uint8_t copy[sizeof frame[1]];
        memcpy(copy, frame[1], sizeof copy);
        copy[bit / 8] ^= (uint8_t) (1u << (bit % 8));
        rx = rx0;
        assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 1), 0);
        if (sn_sec_open(&rx, out, copy + 4, clen, copy, 1) == 0)
            fail_msg("frame 1 with bit %zu flipped was accepted", bit);
    }
    /* replay: frame 0 twice */
    rx = rx0;
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 1), 0);
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 1), SN_EPROTO);
    /* a lost frame: 0 then 2 */
    rx = rx0;
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 1), 0);
    assert_int_equal(sn_sec_open(&rx, out, frame[2] + 4, clen, frame[2], 1), SN_EPROTO);
    /* reordered: 1 before 0 */
    rx = rx0;
    assert_int_equal(sn_sec_open(&rx, out, frame[1] + 4, clen, frame[1], 1), SN_EPROTO);
    /* a frame of the other direction reflected back */
    rx = base.i.sec;
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 1), SN_EPROTO);
    /* too short to hold a MAC */
    rx = rx0;
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, SN_SEC_ABYTES - 1, frame[0], 1),
                     SN_EPROTO);
    /* the tag says where a chunk stands in its frame: a last chunk read as a middle one, and a
     * middle chunk read as the last, are refused (a frame cut short or run on) */
    rx = rx0;
    assert_int_equal(sn_sec_open(&rx, out, frame[0] + 4, clen, frame[0], 0), SN_EPROTO);
    {
        sn_sec_t t2 = base.i.sec, r2 = base.r.sec;
        uint8_t mid[4 + M + SN_SEC_ABYTES], mm[M];
        memset(mm, 'z', sizeof mm);
        memcpy(mid, frame[0], 4);
        sn_sec_seal(&t2, mid + 4, mm, M, mid, 0);
        assert_int_equal(sn_sec_open(&r2, out, mid + 4, clen, mid, 1), SN_EPROTO);
    }
}

/* AES-256-GCM changes its key every 2^SN_SEC_AES_EPOCH_BITS chunks: the chunks on both sides of
 * a boundary open, and the first chunk of the new epoch is exactly AES-256-GCM under
 * sn_sec_aes_epoch_key(k, hdr, 1) with the chunk count as nonce (checked with libsodium's
 * one-shot API, not through sn_sec_open); the old epoch's key does not open it. */
static void test_aes_epochs(void **state)
{
    (void) state;
    if (!have_aes())
        return;
    sn_key_t k;
    sn_key_random(&k);
    pair_t p;
    offer = accept = SN_CIPHER_AES256GCM;
    assert_true(handshake(&p, SN_SEC_SODIUM, &k, SN_SEC_SODIUM, &k, NULL, NULL, NULL, NULL));
    const uint64_t edge = 1ull << SN_SEC_AES_EPOCH_BITS;
    /* both ends skip to the last chunk of epoch 0 (its key is the one they hold) */
    p.i.sec.atx.n = p.r.sec.arx.n = edge - 1;
    uint8_t ad[4] = {0, 0, 0, 9}, m[9] = "epochtest", c[9 + SN_SEC_ABYTES], out[9];
    for (uint64_t n = edge - 1; n <= edge + 1; n++) {
        sn_sec_seal(&p.i.sec, c, m, sizeof m, ad, 1);
        if (n == edge) {
            uint8_t key[32], nonce[crypto_aead_aes256gcm_NPUBBYTES] = {0}, ad5[5] = {0, 0, 0, 9, 1};
            for (int b = 0; b < 8; b++)
                nonce[b] = (uint8_t) (n >> (8 * b));
            sn_sec_aes_epoch_key(p.i.sec.atx.key, p.i.sec.atx.hdr, 1, key);
            assert_int_equal(c[0], 1);
            assert_int_equal(crypto_aead_aes256gcm_decrypt(out, NULL, NULL, c + 1, sizeof c - 1,
                                                           ad5, 5, nonce, key),
                             0);
            assert_memory_equal(out, m, sizeof m);
            sn_sec_aes_epoch_key(p.i.sec.atx.key, p.i.sec.atx.hdr, 0, key);
            assert_int_not_equal(crypto_aead_aes256gcm_decrypt(out, NULL, NULL, c + 1, sizeof c - 1,
                                                               ad5, 5, nonce, key),
                                 0);
        }
        assert_int_equal(sn_sec_open(&p.r.sec, out, c, sizeof c, ad, 1), 0);
        assert_memory_equal(out, m, sizeof m);
    }
    assert_int_equal(p.r.sec.arx.n, edge + 2);
}

/* ---- key files ----------------------------------------------------------------------------- */

static void test_key_files(void **state)
{
    (void) state;
    char dir[] = "/tmp/stepnet-keys-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/cluster.key", dir);
    assert_int_equal(sn_key_generate(path, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 65);
    sn_key_t a, b;
    assert_int_equal(sn_key_load(path, &a, err, sizeof err), 0);
    /* never overwritten */
    assert_int_equal(sn_key_generate(path, err, sizeof err), SN_EIO);
    assert_non_null(strstr(err, "never overwrites"));
    assert_int_equal(sn_key_load(path, &b, err, sizeof err), 0);
    assert_memory_equal(a.k, b.k, SN_KEY_BYTES);
    /* readable by others: refused, and the message says how to fix it */
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(sn_key_load(path, &b, err, sizeof err), SN_EINVAL);
    assert_non_null(strstr(err, "chmod 600"));
    assert_non_null(strstr(err, "0644"));
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(sn_key_load(path, &b, err, sizeof err), SN_EINVAL);
    assert_int_equal(chmod(path, 0400), 0);
    assert_int_equal(sn_key_load(path, &b, err, sizeof err), 0);
    /* malformed contents */
    static const char *const bad[] = {"", "00",
                                      "zz0102030405060708090a0b0c0d0e0f101112131415161718"
                                      "191a1b1c1d1e1f\n",
                                      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
                                      "1e1f00\n"};
    char bpath[256];
    snprintf(bpath, sizeof bpath, "%s/bad.key", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(bpath, "w");
        fputs(bad[i], f);
        fclose(f);
        chmod(bpath, 0600);
        assert_int_equal(sn_key_load(bpath, &b, err, sizeof err), SN_EINVAL);
        assert_non_null(strstr(err, "64 hex digits"));
        unlink(bpath);
    }
    /* a key followed by more than a key file may hold: refused, not cut after 256 bytes */
    {
        char text[2 * SN_KEY_BYTES + 1];
        sn_key_format(&a, text);
        FILE *f = fopen(bpath, "w");
        fwrite(text, 1, sizeof text, f);
        for (int i = 0; i < 200; i++)
            fputc(' ', f);
        fwrite(text, 1, sizeof text, f);
        fclose(f);
        chmod(bpath, 0600);
        assert_int_equal(sn_key_load(bpath, &b, err, sizeof err), SN_EINVAL);
        unlink(bpath);
    }
    /* a FIFO is refused at once (opening it must not wait for a writer) */
    assert_int_equal(mkfifo(bpath, 0600), 0);
    double t0 = tu_now();
    assert_int_equal(sn_key_load(bpath, &b, err, sizeof err), SN_EINVAL);
    assert_true(tu_now() - t0 < 1.0);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(bpath);
    /* missing file; a directory */
    assert_int_equal(sn_key_load(bpath, &b, err, sizeof err), SN_EIO);
    chmod(dir, 0700);
    assert_int_equal(sn_key_load(dir, &b, err, sizeof err), SN_EINVAL);
    /* the pipe form used by stepnet run */
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    char text[2 * SN_KEY_BYTES + 1];
    sn_key_format(&a, text);
    assert_int_equal(write(fd[1], text, sizeof text), (ssize_t) sizeof text);
    close(fd[1]);
    assert_int_equal(sn_key_read_fd(fd[0], &b, err, sizeof err), 0);
    assert_memory_equal(a.k, b.k, SN_KEY_BYTES);
    assert_int_equal(pipe(fd), 0);
    close(fd[1]);
    assert_int_equal(sn_key_read_fd(fd[0], &b, err, sizeof err), SN_EINVAL);
    unlink(path);
    rmdir(dir);
}

/* The stream tests, once per cipher this machine runs. */
static void each_cipher(void (*fn)(void))
{
    for (int c = SN_CIPHER_XCHACHA20; c <= SN_CIPHER_AES256GCM; c++) {
        if (c == SN_CIPHER_AES256GCM && !have_aes())
            break;
        offer = accept = c;
        fn();
    }
}

static void test_streams_both_ways(void **state)
{
    (void) state;
    each_cipher(streams_both_ways_with);
}

static void test_every_bit_of_the_handshake(void **state)
{
    (void) state;
    each_cipher(every_bit_of_the_handshake_with);
}

static void test_frames_refused(void **state)
{
    (void) state;
    each_cipher(frames_refused_with);
}

int main(void)
{
    sn_sec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_vectors, reset_ciphers),
        cmocka_unit_test_setup(test_cipher_negotiation, reset_ciphers),
        cmocka_unit_test_setup(test_streams_both_ways, reset_ciphers),
        cmocka_unit_test_setup(test_every_bit_of_the_handshake, reset_ciphers),
        cmocka_unit_test_setup(test_wrong_key, reset_ciphers),
        cmocka_unit_test_setup(test_mode_mismatch, reset_ciphers),
        cmocka_unit_test_setup(test_frames_refused, reset_ciphers),
        cmocka_unit_test_setup(test_aes_epochs, reset_ciphers),
        cmocka_unit_test_setup(test_key_files, reset_ciphers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
