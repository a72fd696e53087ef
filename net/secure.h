/* Transport security (net/): cluster key files, the per-connection handshake and frame
 * protection with libsodium. Pure: no sockets, no libuv; conn.c drives it. The protocol, its byte
 * layouts and test vectors are in docs/security.md.
 *
 * Every connection starts with an 8-byte preamble from each side ("stpnet", version 3, mode).
 * Mode sodium then runs: ephemeral X25519 (crypto_kx) bound to the cluster key by a keyed BLAKE2b
 * over the whole transcript, the initiator's offer of ciphers and the responder's choice (inside
 * the transcript, so both tags authenticate it), a key-confirmation tag from each role, and one
 * stream per direction for every later frame chunk: crypto_secretstream_xchacha20poly1305, or
 * AES-256-GCM with a chunk counter as nonce where both ends have AES-NI. */
#ifndef STEPNET_NET_SECURE_H
#define STEPNET_NET_SECURE_H

#include <sodium.h>
#include <stddef.h>
#include <stdint.h>

#define SN_KEY_BYTES 32

#define SN_SEC_NONE   0 /* --security none: plaintext frames after the preamble */
#define SN_SEC_SODIUM 1 /* the default */

#define SN_SEC_PREAMBLE 8
/* the transport version in the preamble: 2 = chunked frames, 3 = negotiated cipher */
#define SN_SEC_VERSION  3
#define SN_SEC_M1_BYTES (SN_SEC_PREAMBLE + 32 + 1)           /* P_I | e_I | c_I */
#define SN_SEC_M2_BYTES (SN_SEC_PREAMBLE + 32 + 1 + 24 + 32) /* P_R | e_R | c_R | hdr_R | tag_R */
#define SN_SEC_M3_BYTES (24 + 32)                            /* hdr_I | tag_I */
/* 17 per chunk with either cipher: the secretstream's; AES-256-GCM's tag byte and 16-byte MAC */
#define SN_SEC_ABYTES    crypto_secretstream_xchacha20poly1305_ABYTES
#define SN_SEC_MAX_REPLY SN_SEC_M2_BYTES

/* The ciphers, as bits of an offer (c_I) and as the choice (c_R). */
#define SN_CIPHER_XCHACHA20 1 /* crypto_secretstream_xchacha20poly1305 */
#define SN_CIPHER_AES256GCM 2 /* crypto_aead_aes256gcm (AES-NI and PCLMUL only) */
/* AES-256-GCM: a fresh key every 2^20 chunks (at most 65 GiB under one key, far inside the
 * usage limits of GCM with counter nonces) */
#define SN_SEC_AES_EPOCH_BITS 20

typedef struct sn_key_s {
    uint8_t k[SN_KEY_BYTES];
} sn_key_t;

/* Calls sodium_init once; aborts the process if libsodium cannot initialise (no entropy). */
void sn_sec_init(void);

/* A fresh random key. */
void sn_key_random(sn_key_t *key);

/* Key files hold the 32 bytes as 64 lowercase hex digits and a newline. sn_key_generate creates
 * `path` with mode 0600 and refuses to overwrite an existing file. sn_key_load refuses a file that
 * is not a regular file, that group or others may read or write, or that does not hold exactly one
 * key. Both return 0 or SN_EIO / SN_EINVAL with a one-line message in err. */
int sn_key_generate(const char *path, char *err, size_t errlen);
int sn_key_load(const char *path, sn_key_t *key, char *err, size_t errlen);

/* Reads a key in the file format from a file descriptor (the pipe `stepnet run` hands to the nodes
 * it spawns) until end of file, then closes it. */
int sn_key_read_fd(int fd, sn_key_t *key, char *err, size_t errlen);

/* Reads one line holding a key in the file format from descriptor `fd` (the first line of a
 * stepnet-node's standard input under `stepnet run --hosts`), one byte at a time, and leaves the
 * descriptor open with what follows the line unread. 0, or SN_EIO / SN_EINVAL with a message. */
int sn_key_read_line(int fd, sn_key_t *key, char *err, size_t errlen);
/* sn_key_new for a key read by sn_key_read_line. */
sn_key_t *sn_key_new_line(int fd, char *err, size_t errlen);

/* The cluster key of a process, in guarded memory (sodium_malloc, read-only once set): from the
 * key file `path`, else from descriptor `fd` (>= 0), else fresh random bytes. Calls sn_sec_init.
 * NULL with a one-line message in err on failure. Free with sn_key_free. */
sn_key_t *sn_key_new(const char *path, int fd, char *err, size_t errlen);
void sn_key_free(sn_key_t *key);

/* Formats a key in the file format (65 bytes with the newline, no terminator). */
void sn_key_format(const sn_key_t *key, char out[2 * SN_KEY_BYTES + 1]);

/* The ciphers this machine can run: SN_CIPHER_XCHACHA20, and SN_CIPHER_AES256GCM where the CPU
 * has AES-NI (crypto_aead_aes256gcm_is_available). Calls sn_sec_init. */
int sn_sec_ciphers_available(void);
/* "xchacha20poly1305" or "aes256gcm" (one cipher), else "none". */
const char *sn_sec_cipher_name(int cipher);
/* The cipher named so by sn_sec_cipher_name, or -1 for any other text. */
int sn_sec_cipher_parse(const char *name);

/* One direction of AES-256-GCM: the direction's key and stream header from the handshake, the
 * number of chunks so far (the nonce), and the expanded key of the current epoch. */
typedef struct sn_sec_aes_s {
    crypto_aead_aes256gcm_state st;
    uint8_t key[32], hdr[24];
    uint64_t n;
} sn_sec_aes_t;

/* The two directions of an established connection, in the negotiated cipher. */
typedef struct sn_sec_s {
    int cipher; /* SN_CIPHER_XCHACHA20 or SN_CIPHER_AES256GCM */
    crypto_secretstream_xchacha20poly1305_state tx, rx;
    sn_sec_aes_t atx, arx;
} sn_sec_t;

/* Test hooks: fixed ephemeral secret key and stream header instead of random ones (test vectors
 * in docs/security.md). NULL in normal use. */
typedef struct sn_hs_fixed_s {
    uint8_t e_sk[32];
    uint8_t hdr[24];
} sn_hs_fixed_t;

/* The handshake of one connection, one role. */
typedef struct sn_hs_s {
    int mode, initiator;
    int ciphers;         /* the initiator's offer, the responder's acceptable set */
    const sn_key_t *key; /* borrowed for the handshake */
    uint8_t e_pk[32], e_sk[32];
    uint8_t peer_pk[32];
    uint8_t hdr_tx[24];
    uint8_t k_tx[32], k_rx[32], k_mac[32];
    uint8_t tr[SN_SEC_M1_BYTES + SN_SEC_M2_BYTES + 24]; /* transcript */
    size_t trlen;
    size_t want; /* bytes the next sn_hs_step needs */
    int stage, done;
    sn_sec_t sec;
} sn_hs_t;

/* Starts a handshake. key (borrowed until the handshake is done) may be NULL only for
 * SN_SEC_NONE. ciphers: the SN_CIPHER_* bits this side offers (initiator) or accepts
 * (responder), within sn_sec_ciphers_available; the responder takes AES-256-GCM when both sides
 * allow it, else XChaCha20-Poly1305, and fails when they share none. The initiator (the dialler)
 * gets its first message in out (8 or 41 bytes, *outlen); the responder gets nothing. */
void sn_hs_start(sn_hs_t *hs, int mode, const sn_key_t *key, int initiator, int ciphers,
                 const sn_hs_fixed_t *fixed, uint8_t out[SN_SEC_M1_BYTES], size_t *outlen);

/* Consumes exactly hs->want bytes from the peer. Writes what to send back in out (*outlen bytes,
 * possibly 0; on a mode mismatch the responder still answers with its preamble so the peer can
 * say what is wrong). Returns 0 with hs->done set once the connection is established (then take
 * hs->sec), 0 with more wanted, or a negative SN_E* code with a one-line reason in *why. */
int sn_hs_step(sn_hs_t *hs, const uint8_t *in, uint8_t out[SN_SEC_MAX_REPLY], size_t *outlen,
               const char **why);

/* Wipes the handshake secrets (the established streams are kept in hs->sec until copied). */
void sn_hs_wipe(sn_hs_t *hs);

/* Seals one chunk of a frame (docs/security.md, "Frames") in the connection's cipher: c receives
 * mlen + SN_SEC_ABYTES bytes;
 * m may be c + 1 (in place). ad is the frame's 4-byte length header, bound to every chunk; `last`
 * marks the frame's last chunk (tag PUSH; MESSAGE otherwise). */
void sn_sec_seal(sn_sec_t *s, uint8_t *c, const uint8_t *m, size_t mlen, const uint8_t ad[4],
                 int last);

/* Opens one chunk: m receives clen - SN_SEC_ABYTES bytes; m may be c + 1. SN_EPROTO if the chunk
 * was altered, replayed, reordered, dropped before, is not tagged as its place in the frame
 * (`last`) requires, or is shorter than a tag. */
int sn_sec_open(sn_sec_t *s, uint8_t *m, const uint8_t *c, size_t clen, const uint8_t ad[4],
                int last);

/* The derivation steps, exposed for the test vectors. */
void sn_hs_derive(const sn_key_t *key, const uint8_t s[64], const uint8_t th[32], uint8_t k_i2r[32],
                  uint8_t k_r2i[32], uint8_t k_mac[32]);
/* The AES-256-GCM key of epoch e of a direction: BLAKE2b-256 keyed with the direction's key over
 * "stepnet-v3-aes256gcm" || hdr || e (8 bytes, little-endian). */
void sn_sec_aes_epoch_key(const uint8_t key[32], const uint8_t hdr[24], uint64_t e,
                          uint8_t out[32]);

#endif
