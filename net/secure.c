/* Transport security (net/): key files, the connection handshake and frame sealing with
 * libsodium 1.0.18. See secure.h for the API and docs/security.md for the protocol; every
 * derivation here is written down there with test vectors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/secure.h"
#include "stepnet/error.h"

static const uint8_t magic[6] = {'s', 't', 'p', 'n', 'e', 't'};
#define PROTO_VERSION SN_SEC_VERSION

static const char label_master[] = "stepnet-v1-master";
static const char label_resp[] = "stepnet-v1-responder";
static const char label_init[] = "stepnet-v1-initiator";
static const char label_aes[] = "stepnet-v3-aes256gcm";
static const char kdf_ctx[crypto_kdf_CONTEXTBYTES] = {'s', 't', 'e', 'p', 'n', 'e', 't', '1'};

void sn_sec_init(void)
{
    if (sodium_init() < 0) {
        fprintf(stderr, "stepnet: libsodium failed to initialise (no entropy source?)\n");
        abort();
    }
}

int sn_sec_ciphers_available(void)
{
    sn_sec_init();
    return SN_CIPHER_XCHACHA20 | (crypto_aead_aes256gcm_is_available() ? SN_CIPHER_AES256GCM : 0);
}

const char *sn_sec_cipher_name(int cipher)
{
    return cipher == SN_CIPHER_XCHACHA20   ? "xchacha20poly1305"
           : cipher == SN_CIPHER_AES256GCM ? "aes256gcm"
                                           : "none";
}

int sn_sec_cipher_parse(const char *name)
{
    for (int c = SN_CIPHER_XCHACHA20; c <= SN_CIPHER_AES256GCM; c++)
        if (strcmp(name, sn_sec_cipher_name(c)) == 0)
            return c;
    return -1;
}

/* A set of ciphers as text: their names, space-separated, or "nothing". */
static void cipher_set_text(int set, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = SN_CIPHER_AES256GCM; c >= SN_CIPHER_XCHACHA20; c--)
        if (set & c)
            len += (size_t) snprintf(buf + len, cap - len, "%s%s", len ? " " : "",
                                     sn_sec_cipher_name(c));
    if (len == 0)
        snprintf(buf, cap, "nothing");
}

/* n as 8 bytes little-endian (the AES epoch number and chunk count). */
static void put_le64(uint8_t out[8], uint64_t n)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t) (n >> (8 * i));
}

/* ---- key files ----------------------------------------------------------------------------- */

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

void sn_key_random(sn_key_t *key)
{
    randombytes_buf(key->k, sizeof key->k);
}

void sn_key_format(const sn_key_t *key, char out[2 * SN_KEY_BYTES + 1])
{
    char hex[2 * SN_KEY_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, key->k, sizeof key->k);
    memcpy(out, hex, 2 * SN_KEY_BYTES);
    out[2 * SN_KEY_BYTES] = '\n';
    sodium_memzero(hex, sizeof hex);
}

/* Parses the file format: 64 hex digits, optional trailing white space. */
static int parse_key(const char *buf, size_t len, sn_key_t *key)
{
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
                       buf[len - 1] == '\t'))
        len--;
    size_t bin_len = 0;
    const char *end = NULL;
    if (len != 2 * SN_KEY_BYTES)
        return -1;
    if (sodium_hex2bin(key->k, sizeof key->k, buf, len, NULL, &bin_len, &end) != 0 ||
        bin_len != SN_KEY_BYTES || end != buf + len)
        return -1;
    return 0;
}

/* Reads at most cap bytes until end of file. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
    size_t have = 0;
    while (have < cap) {
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        have += (size_t) n;
    }
    return (ssize_t) have;
}

/* Reads a key in the file format from fd until end of file, closes fd; `what` names the source
 * in errors ("key file PATH", "descriptor 3"). */
static int read_key(int fd, const char *what, sn_key_t *key, char *err, size_t errlen)
{
    char buf[257]; /* one more than a key file may hold: a longer one is refused, not cut */
    ssize_t n = read_all(fd, buf, sizeof buf);
    int e = errno;
    close(fd);
    int rc = 0;
    if (n < 0)
        rc = fail(err, errlen, SN_EIO, "cannot read %s: %s", what, strerror(e));
    else if ((size_t) n == sizeof buf || parse_key(buf, (size_t) n, key) != 0)
        rc = fail(err, errlen, SN_EINVAL,
                  "%s does not hold a stepnet key (64 hex digits, from stepnet keygen)", what);
    sodium_memzero(buf, sizeof buf);
    return rc;
}

int sn_key_generate(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(err, errlen, SN_EIO, "cannot create key file %s: %s%s", path, strerror(errno),
                    errno == EEXIST ? " (stepnet keygen never overwrites a key)" : "");
    sn_key_t key;
    char text[2 * SN_KEY_BYTES + 1];
    sn_key_random(&key);
    sn_key_format(&key, text);
    int rc = 0;
    if (fchmod(fd, 0600) != 0 || write(fd, text, sizeof text) != (ssize_t) sizeof text ||
        fsync(fd) != 0)
        rc = fail(err, errlen, SN_EIO, "cannot write key file %s: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == 0)
        rc = fail(err, errlen, SN_EIO, "cannot write key file %s: %s", path, strerror(errno));
    sodium_memzero(&key, sizeof key);
    sodium_memzero(text, sizeof text);
    if (rc != 0)
        unlink(path);
    return rc;
}

int sn_key_load(const char *path, sn_key_t *key, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO must be refused below, not block the open (regular files ignore it) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return fail(err, errlen, SN_EIO, "cannot open key file %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, SN_EIO, "cannot stat key file %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, errlen, SN_EINVAL, "key file %s is not a regular file", path);
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        close(fd);
        return fail(err, errlen, SN_EINVAL,
                    "key file %s has mode %04o: group or others can access it; run chmod 600 %s "
                    "(and consider the key leaked: make a new one with stepnet keygen)",
                    path, (unsigned) (st.st_mode & 07777), path);
    }
    char what[300];
    snprintf(what, sizeof what, "key file %s", path);
    return read_key(fd, what, key, err, errlen);
}

int sn_key_read_fd(int fd, sn_key_t *key, char *err, size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "descriptor %d", fd);
    return read_key(fd, what, key, err, errlen);
}

int sn_key_read_line(int fd, sn_key_t *key, char *err, size_t errlen)
{
    char buf[2 * SN_KEY_BYTES + 3]; /* the key, "\r\n", one byte more: a longer line is refused */
    size_t have = 0;
    int rc = 0;
    /* one byte at a time: what follows the line belongs to the caller */
    while (have < sizeof buf) {
        ssize_t n = read(fd, buf + have, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = fail(err, errlen, SN_EIO, "cannot read the key from descriptor %d: %s", fd,
                      strerror(errno));
            goto done;
        }
        if (n == 0 || buf[have++] == '\n')
            break;
    }
    if (have == sizeof buf || parse_key(buf, have, key) != 0)
        rc = fail(err, errlen, SN_EINVAL,
                  "the first line of descriptor %d is not a stepnet key (64 hex digits)", fd);
done:
    sodium_memzero(buf, sizeof buf);
    return rc;
}

sn_key_t *sn_key_new_line(int fd, char *err, size_t errlen)
{
    sn_sec_init();
    sn_key_t *key = sodium_malloc(sizeof *key);
    if (key == NULL) {
        fail(err, errlen, SN_ENOMEM, "cannot allocate guarded memory for the key");
        return NULL;
    }
    if (sn_key_read_line(fd, key, err, errlen) != 0) {
        sodium_free(key);
        return NULL;
    }
    sodium_mprotect_readonly(key);
    return key;
}

sn_key_t *sn_key_new(const char *path, int fd, char *err, size_t errlen)
{
    sn_sec_init();
    sn_key_t *key = sodium_malloc(sizeof *key);
    if (key == NULL) {
        fail(err, errlen, SN_ENOMEM, "cannot allocate guarded memory for the key");
        return NULL;
    }
    int rc = 0;
    if (path)
        rc = sn_key_load(path, key, err, errlen);
    else if (fd >= 0)
        rc = sn_key_read_fd(fd, key, err, errlen);
    else
        sn_key_random(key);
    if (rc != 0) {
        sodium_free(key);
        return NULL;
    }
    sodium_mprotect_readonly(key);
    return key;
}

void sn_key_free(sn_key_t *key)
{
    if (key)
        sodium_free(key); /* wipes it */
}

/* ---- handshake ----------------------------------------------------------------------------- */

static void preamble(int mode, uint8_t out[SN_SEC_PREAMBLE])
{
    memcpy(out, magic, sizeof magic);
    out[6] = PROTO_VERSION;
    out[7] = (uint8_t) mode;
}

static void tr_add(sn_hs_t *hs, const uint8_t *p, size_t n)
{
    memcpy(hs->tr + hs->trlen, p, n);
    hs->trlen += n;
}

/* BLAKE2b-256 keyed with `key` over label || transcript prefix [0, len) || extra. */
static void tag_of(const uint8_t key[32], const char *label, const uint8_t *tr, size_t len,
                   const uint8_t *extra, size_t extra_len, uint8_t out[32])
{
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, 32, 32);
    crypto_generichash_update(&st, (const uint8_t *) label, strlen(label));
    crypto_generichash_update(&st, tr, len);
    if (extra_len)
        crypto_generichash_update(&st, extra, extra_len);
    crypto_generichash_final(&st, out, 32);
    sodium_memzero(&st, sizeof st);
}

void sn_hs_derive(const sn_key_t *key, const uint8_t s[64], const uint8_t th[32], uint8_t k_i2r[32],
                  uint8_t k_r2i[32], uint8_t k_mac[32])
{
    uint8_t master[32];
    crypto_generichash_state st;
    crypto_generichash_init(&st, key->k, SN_KEY_BYTES, sizeof master);
    crypto_generichash_update(&st, (const uint8_t *) label_master, strlen(label_master));
    crypto_generichash_update(&st, s, 64);
    crypto_generichash_update(&st, th, 32);
    crypto_generichash_final(&st, master, sizeof master);
    crypto_kdf_derive_from_key(k_i2r, 32, 1, kdf_ctx, master);
    crypto_kdf_derive_from_key(k_r2i, 32, 2, kdf_ctx, master);
    crypto_kdf_derive_from_key(k_mac, 32, 3, kdf_ctx, master);
    sodium_memzero(&st, sizeof st);
    sodium_memzero(master, sizeof master);
}

void sn_sec_aes_epoch_key(const uint8_t key[32], const uint8_t hdr[24], uint64_t e, uint8_t out[32])
{
    uint8_t le[8];
    put_le64(le, e);
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, 32, 32);
    crypto_generichash_update(&st, (const uint8_t *) label_aes, strlen(label_aes));
    crypto_generichash_update(&st, hdr, 24);
    crypto_generichash_update(&st, le, 8);
    crypto_generichash_final(&st, out, 32);
    sodium_memzero(&st, sizeof st);
}

/* The expanded AES key of the epoch that chunk a->n falls in. */
static void aes_rekey(sn_sec_aes_t *a)
{
    uint8_t k[32];
    sn_sec_aes_epoch_key(a->key, a->hdr, a->n >> SN_SEC_AES_EPOCH_BITS, k);
    crypto_aead_aes256gcm_beforenm(&a->st, k);
    sodium_memzero(k, sizeof k);
}

/* One direction of the connection from its key and stream header. The secretstream state is
 * identical to what init_push computes after it draws its random header, which lets the header
 * come from sn_hs_fixed_t in the test vectors. */
static void dir_init(sn_sec_t *s, int tx, const uint8_t hdr[24], const uint8_t key[32])
{
    if (s->cipher == SN_CIPHER_AES256GCM) {
        sn_sec_aes_t *a = tx ? &s->atx : &s->arx;
        memcpy(a->key, key, 32);
        memcpy(a->hdr, hdr, 24);
        a->n = 0;
        aes_rekey(a);
        return;
    }
    crypto_secretstream_xchacha20poly1305_init_pull(tx ? &s->tx : &s->rx, hdr, key);
}

void sn_hs_start(sn_hs_t *hs, int mode, const sn_key_t *key, int initiator, int ciphers,
                 const sn_hs_fixed_t *fixed, uint8_t out[SN_SEC_M1_BYTES], size_t *outlen)
{
    memset(hs, 0, sizeof *hs);
    hs->mode = mode;
    hs->initiator = initiator;
    hs->ciphers = ciphers & (SN_CIPHER_XCHACHA20 | SN_CIPHER_AES256GCM);
    if (key)
        hs->key = key; /* borrowed: the cluster key stays in its owner's sodium_malloc memory */
    hs->want = SN_SEC_PREAMBLE;
    *outlen = 0;
    if (mode == SN_SEC_SODIUM) {
        if (fixed) {
            memcpy(hs->e_sk, fixed->e_sk, 32);
            memcpy(hs->hdr_tx, fixed->hdr, 24);
        } else {
            randombytes_buf(hs->e_sk, 32);
            randombytes_buf(hs->hdr_tx, 24);
        }
        crypto_scalarmult_base(hs->e_pk, hs->e_sk);
    }
    if (initiator) {
        preamble(mode, out);
        *outlen = SN_SEC_PREAMBLE;
        if (mode == SN_SEC_SODIUM) {
            memcpy(out + SN_SEC_PREAMBLE, hs->e_pk, 32);
            out[SN_SEC_PREAMBLE + 32] = (uint8_t) hs->ciphers; /* c_I: the offer */
            *outlen += 33;
        }
        tr_add(hs, out, *outlen);
    }
}

/* A preamble that is not stepnet's, or of another transport version: a stranger, not answered. */
static int check_stranger(const uint8_t *in, const char **why)
{
    if (memcmp(in, magic, sizeof magic) != 0) {
        *why = "the peer is not a stepnet process (bad preamble)";
        return SN_EPROTO;
    }
    if (in[6] != PROTO_VERSION) {
        static char text[160];
        snprintf(text, sizeof text,
                 "the peer speaks version %u of the stepnet transport, this side version %u "
                 "(stepnet builds of different releases cannot be mixed)",
                 in[6], PROTO_VERSION);
        *why = text;
        return SN_EPROTO;
    }
    return 0;
}

/* A stepnet peer in another security mode. */
static int check_mode(const sn_hs_t *hs, const uint8_t *in, const char **why)
{
    if (in[7] == hs->mode)
        return 0;
    if (hs->mode == SN_SEC_SODIUM)
        *why = in[7] == SN_SEC_NONE ? "the peer runs with --security none (plaintext), this side "
                                      "requires authenticated encryption"
                                    : "the peer asks for an unknown security mode";
    else
        *why = "the peer requires authenticated encryption, this side runs with --security none";
    return SN_EPROTO;
}

static const char *auth_failed =
    "authentication failed: the peer does not hold this run's cluster key, or the handshake "
    "was altered";

int sn_hs_step(sn_hs_t *hs, const uint8_t *in, uint8_t out[SN_SEC_MAX_REPLY], size_t *outlen,
               const char **why)
{
    *outlen = 0;
    uint8_t rx[32], tx[32], s[64], th[32], tag[32];
    int rc = 0;
    if (hs->done)
        return 0;
    if (hs->stage == 0) { /* the peer's preamble (and, for the responder, the first message) */
        if ((rc = check_stranger(in, why)) != 0)
            return rc; /* no answer to a stranger */
        /* the responder answers a plaintext peer, or one in the wrong mode, with its preamble at
         * once (so that both ends can say what is wrong); in mode sodium it answers with M2 */
        if (!hs->initiator && (hs->mode == SN_SEC_NONE || in[7] != hs->mode)) {
            preamble(hs->mode, out);
            *outlen = SN_SEC_PREAMBLE;
        }
        if ((rc = check_mode(hs, in, why)) != 0)
            return rc;
        if (hs->mode == SN_SEC_NONE) {
            hs->done = 1;
            return 0;
        }
        tr_add(hs, in, SN_SEC_PREAMBLE);
        hs->stage = 1;
        hs->want = hs->initiator ? SN_SEC_M2_BYTES - SN_SEC_PREAMBLE : 32 + 1;
        return 0;
    }
    if (hs->initiator && hs->stage == 1) { /* e_R | c_R | hdr_R | tag_R */
        memcpy(hs->peer_pk, in, 32);
        tr_add(hs, in, 32 + 1 + 24); /* transcript: P_I e_I c_I P_R e_R c_R hdr_R */
        if (crypto_kx_client_session_keys(rx, tx, hs->e_pk, hs->e_sk, hs->peer_pk) != 0) {
            *why = "the peer sent an invalid ephemeral key";
            rc = SN_EPROTO;
            goto out;
        }
        memcpy(s, rx, 32); /* s = BLAKE2b-512(q | e_I | e_R) */
        memcpy(s + 32, tx, 32);
        crypto_generichash(th, 32, hs->tr, SN_SEC_M1_BYTES + SN_SEC_PREAMBLE + 32 + 1, NULL, 0);
        sn_hs_derive(hs->key, s, th, hs->k_tx, hs->k_rx, hs->k_mac);
        tag_of(hs->k_mac, label_resp, hs->tr, hs->trlen, NULL, 0, tag);
        if (crypto_verify_32(tag, in + 57) != 0) {
            *why = auth_failed;
            rc = SN_EPROTO;
            goto out;
        }
        /* the choice is authenticated now; it must be one cipher of the offer */
        int chosen = in[32];
        if ((chosen != SN_CIPHER_XCHACHA20 && chosen != SN_CIPHER_AES256GCM) ||
            !(chosen & hs->ciphers)) {
            *why = "the peer chose a cipher this side did not offer";
            rc = SN_EPROTO;
            goto out;
        }
        hs->sec.cipher = chosen;
        tr_add(hs, in + 57, 32);
        dir_init(&hs->sec, 0, in + 33, hs->k_rx);
        dir_init(&hs->sec, 1, hs->hdr_tx, hs->k_tx);
        memcpy(out, hs->hdr_tx, 24);
        tag_of(hs->k_mac, label_init, hs->tr, hs->trlen, hs->hdr_tx, 24, out + 24);
        *outlen = SN_SEC_M3_BYTES;
        hs->done = 1;
        goto out;
    }
    if (!hs->initiator && hs->stage == 1) { /* e_I | c_I */
        memcpy(hs->peer_pk, in, 32);
        tr_add(hs, in, 32 + 1);
        /* the choice: AES-256-GCM where both allow it (the faster on CPUs with AES-NI) */
        int common = in[32] & hs->ciphers;
        if (common == 0) {
            static char text[160];
            char offer[48], accept[48];
            cipher_set_text(in[32], offer, sizeof offer);
            cipher_set_text(hs->ciphers, accept, sizeof accept);
            snprintf(text, sizeof text,
                     "no cipher in common: the peer offers %s, this side accepts %s", offer,
                     accept);
            *why = text;
            rc = SN_EPROTO;
            goto out;
        }
        hs->sec.cipher = common & SN_CIPHER_AES256GCM ? SN_CIPHER_AES256GCM : SN_CIPHER_XCHACHA20;
        if (crypto_kx_server_session_keys(rx, tx, hs->e_pk, hs->e_sk, hs->peer_pk) != 0) {
            *why = "the peer sent an invalid ephemeral key";
            rc = SN_EPROTO;
            goto out;
        }
        memcpy(s, tx, 32); /* the server's tx is the client's rx: s is the same on both sides */
        memcpy(s + 32, rx, 32);
        preamble(hs->mode, out);
        memcpy(out + SN_SEC_PREAMBLE, hs->e_pk, 32);
        out[SN_SEC_PREAMBLE + 32] = (uint8_t) hs->sec.cipher; /* c_R: the choice */
        tr_add(hs, out, SN_SEC_PREAMBLE + 32 + 1);
        crypto_generichash(th, 32, hs->tr, hs->trlen, NULL, 0);
        sn_hs_derive(hs->key, s, th, hs->k_rx, hs->k_tx, hs->k_mac);
        memcpy(out + SN_SEC_PREAMBLE + 33, hs->hdr_tx, 24);
        tr_add(hs, hs->hdr_tx, 24);
        tag_of(hs->k_mac, label_resp, hs->tr, hs->trlen, NULL, 0, out + SN_SEC_PREAMBLE + 57);
        tr_add(hs, out + SN_SEC_PREAMBLE + 57, 32);
        dir_init(&hs->sec, 1, hs->hdr_tx, hs->k_tx);
        *outlen = SN_SEC_M2_BYTES;
        hs->stage = 2;
        hs->want = SN_SEC_M3_BYTES;
        goto out;
    }
    if (!hs->initiator && hs->stage == 2) { /* hdr_I | tag_I: key confirmation */
        tag_of(hs->k_mac, label_init, hs->tr, hs->trlen, in, 24, tag);
        if (crypto_verify_32(tag, in + 24) != 0) {
            *why = auth_failed;
            rc = SN_EPROTO;
            goto out;
        }
        dir_init(&hs->sec, 0, in, hs->k_rx);
        hs->done = 1;
        goto out;
    }
    *why = "handshake called in a finished state";
    rc = SN_EPROTO;
out:
    sodium_memzero(rx, sizeof rx);
    sodium_memzero(tx, sizeof tx);
    sodium_memzero(s, sizeof s);
    sodium_memzero(tag, sizeof tag);
    return rc;
}

void sn_hs_wipe(sn_hs_t *hs)
{
    hs->key = NULL;
    sodium_memzero(hs->e_sk, sizeof hs->e_sk);
    sodium_memzero(hs->k_tx, sizeof hs->k_tx);
    sodium_memzero(hs->k_rx, sizeof hs->k_rx);
    sodium_memzero(hs->k_mac, sizeof hs->k_mac);
}

/* ---- frames -------------------------------------------------------------------------------- */

/* AES-256-GCM chunks: tag byte (0 a frame's inner chunk, 1 its last, as the secretstream's
 * TAG_MESSAGE and TAG_PUSH) in clear, then the ciphertext and the 16-byte MAC; the associated data
 * is the frame's length header and the tag byte; the nonce is the direction's chunk count, 8 bytes
 * little-endian then 4 zero bytes, so a replayed, dropped or reordered chunk fails its MAC. */
static void aes_nonce(uint64_t n, uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES])
{
    memset(nonce, 0, crypto_aead_aes256gcm_NPUBBYTES);
    put_le64(nonce, n);
}

/* The next chunk's nonce, the key changed at an epoch boundary. */
static void aes_next(sn_sec_aes_t *a, uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES])
{
    if (a->n > 0 && (a->n & ((1ull << SN_SEC_AES_EPOCH_BITS) - 1)) == 0)
        aes_rekey(a);
    aes_nonce(a->n, nonce);
    a->n++;
}

void sn_sec_seal(sn_sec_t *s, uint8_t *c, const uint8_t *m, size_t mlen, const uint8_t ad[4],
                 int last)
{
    if (s->cipher == SN_CIPHER_AES256GCM) {
        uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES], ad5[5];
        aes_next(&s->atx, nonce);
        memcpy(ad5, ad, 4);
        ad5[4] = c[0] = last ? 1 : 0;
        crypto_aead_aes256gcm_encrypt_afternm(c + 1, NULL, m, mlen, ad5, 5, NULL, nonce,
                                              &s->atx.st);
        return;
    }
    crypto_secretstream_xchacha20poly1305_push(
        &s->tx, c, NULL, m, mlen, ad, 4,
        last ? crypto_secretstream_xchacha20poly1305_TAG_PUSH
             : crypto_secretstream_xchacha20poly1305_TAG_MESSAGE);
}

int sn_sec_open(sn_sec_t *s, uint8_t *m, const uint8_t *c, size_t clen, const uint8_t ad[4],
                int last)
{
    unsigned char tag = 0xff;
    if (clen < SN_SEC_ABYTES)
        return SN_EPROTO;
    if (s->cipher == SN_CIPHER_AES256GCM) {
        uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES], ad5[5];
        aes_next(&s->arx, nonce);
        if (c[0] != (last ? 1 : 0))
            return SN_EPROTO;
        memcpy(ad5, ad, 4);
        ad5[4] = c[0];
        if (crypto_aead_aes256gcm_decrypt_afternm(m, NULL, NULL, c + 1, clen - 1, ad5, 5, nonce,
                                                  &s->arx.st) != 0)
            return SN_EPROTO;
        return 0;
    }
    if (crypto_secretstream_xchacha20poly1305_pull(&s->rx, m, NULL, &tag, c, clen, ad, 4) != 0)
        return SN_EPROTO;
    if (tag != (last ? crypto_secretstream_xchacha20poly1305_TAG_PUSH
                     : crypto_secretstream_xchacha20poly1305_TAG_MESSAGE))
        return SN_EPROTO;
    return 0;
}
