#!/usr/bin/env python3
"""Recomputes the handshake test vectors of docs/security.md (both ciphers) without libsodium.

An independent check of net/secure.c: X25519 from the `cryptography` package, BLAKE2b from
hashlib (crypto_generichash is BLAKE2b; crypto_kdf_derive_from_key is BLAKE2b keyed with the
master key, salt = subkey id as 8 little-endian bytes + 8 zero bytes, personal = the 8-byte
context + 8 zero bytes; crypto_kx's session keys are BLAKE2b-512(q | client_pk | server_pk)).
Usage: python3 scripts/security_vectors.py  (needs python3-cryptography; CI does not run it,
tests/unit/test_secure.c holds its output)."""
import hashlib

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives import serialization


def b2b(data, size=32, key=b"", salt=b"", person=b""):
    return hashlib.blake2b(data, digest_size=size, key=key, salt=salt, person=person).digest()


def pub(sk):
    return X25519PrivateKey.from_private_bytes(sk).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def dh(sk, pk):
    return X25519PrivateKey.from_private_bytes(sk).exchange(X25519PublicKey.from_public_bytes(pk))


def kdf(master, sid):
    return b2b(b"", 32, key=master, salt=sid.to_bytes(8, "little") + bytes(8),
               person=b"stepnet1" + bytes(8))


K = bytes(range(0x00, 0x20))
e_i_sk = bytes(range(0x40, 0x60))
e_r_sk = bytes(range(0x60, 0x80))
hdr_r = bytes(range(0x80, 0x98))
hdr_i = bytes(range(0xA0, 0xB8))

def handshake(c_i, c_r):
    """The three messages and the keys for the initiator's offer c_i and the responder's choice c_r
    (one byte each: bit 0 XChaCha20-Poly1305, bit 1 AES-256-GCM)."""
    P = b"stpnet\x03\x01"  # transport version 3, mode sodium
    e_i, e_r = pub(e_i_sk), pub(e_r_sk)
    M1 = P + e_i + bytes([c_i])
    q = dh(e_i_sk, e_r)
    s = b2b(q + e_i + e_r, 64)
    th = b2b(M1 + P + e_r + bytes([c_r]))
    master = b2b(b"stepnet-v1-master" + s + th, key=K)
    k_i2r, k_r2i, k_mac = kdf(master, 1), kdf(master, 2), kdf(master, 3)
    tr = M1 + P + e_r + bytes([c_r]) + hdr_r
    tag_r = b2b(b"stepnet-v1-responder" + tr, key=k_mac)
    M2 = P + e_r + bytes([c_r]) + hdr_r + tag_r
    tag_i = b2b(b"stepnet-v1-initiator" + M1 + M2 + hdr_i, key=k_mac)
    M3 = hdr_i + tag_i
    return dict(e_I=e_i, e_R=e_r, s=s, th=th, master=master, k_i2r=k_i2r, k_r2i=k_r2i,
                k_mac=k_mac, tag_R=tag_r, tag_I=tag_i, M1=M1, M2=M2, M3=M3)


# ---- the first sealed frame, initiator to responder: crypto_secretstream_xchacha20poly1305 ----
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms  # noqa: E402
from cryptography.hazmat.primitives.poly1305 import Poly1305  # noqa: E402


def rotl(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def hchacha20(key, inp):
    x = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    x += [int.from_bytes(key[i:i + 4], "little") for i in range(0, 32, 4)]
    x += [int.from_bytes(inp[i:i + 4], "little") for i in range(0, 16, 4)]

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return b"".join(w.to_bytes(4, "little") for w in x[0:4] + x[12:16])


def chacha20_ietf(key, nonce12, counter, data):
    c = Cipher(algorithms.ChaCha20(key, counter.to_bytes(4, "little") + nonce12), mode=None)
    return c.encryptor().update(data)


def secretstream_push_first(key, header, m, ad, tag=0):
    k = hchacha20(key, header[:16])
    nonce = (1).to_bytes(4, "little") + header[16:24]
    block0 = chacha20_ietf(k, nonce, 0, bytes(64))
    p = Poly1305(block0[:32])
    p.update(ad + bytes((0x10 - len(ad)) & 0xF))
    tagblock = chacha20_ietf(k, nonce, 1, bytes([tag]) + bytes(63))
    p.update(tagblock)
    c = chacha20_ietf(k, nonce, 2, m)
    p.update(c + bytes((0x10 - 64 + len(m)) & 0xF))
    p.update(len(ad).to_bytes(8, "little") + (64 + len(m)).to_bytes(8, "little"))
    return bytes([tagblock[0]]) + c + p.finalize()


# transport version 3: the length header counts the plaintext (type byte + body) and is the
# associated data of every chunk; a frame of one chunk is tagged PUSH (1), the frame's last chunk
m = bytes([3]) + b"hello"
ad = len(m).to_bytes(4, "big")


def aes_first(k_dir, hdr, m, ad, tag=1):
    """The first AES-256-GCM chunk of a direction: the epoch-0 key BLAKE2b-256 keyed with the
    direction's key over "stepnet-v3-aes256gcm" || hdr || 0 (8 bytes little-endian); nonce = the
    chunk count 0 (8 bytes little-endian) || 4 zero bytes; associated data = length header || tag
    byte; the chunk = tag byte || ciphertext || 16-byte MAC."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    k = b2b(b"stepnet-v3-aes256gcm" + hdr + (0).to_bytes(8, "little"), key=k_dir)
    nonce = (0).to_bytes(8, "little") + bytes(4)
    return k, bytes([tag]) + AESGCM(k).encrypt(nonce, m, ad + bytes([tag]))


def show(name, v):
    """One value as docs/security.md prints it: 32 bytes per line, continued under the first."""
    h = v.hex()
    print(f"{name:7s} " + "\n        ".join(h[i:i + 64] for i in range(0, len(h), 64)))


for name, v in [("K", K), ("e_I_sk", e_i_sk), ("e_R_sk", e_r_sk), ("hdr_R", hdr_r),
                ("hdr_I", hdr_i)]:
    show(name, v)
for title, c_i, c_r in [("offer 03 (both), choice 02: AES-256-GCM", 3, 2),
                        ("offer 01, choice 01: XChaCha20-Poly1305", 1, 1)]:
    print(f"# {title}")
    h = handshake(c_i, c_r)
    for name in ["e_I", "e_R", "s", "th", "master", "k_i2r", "k_r2i", "k_mac", "tag_R", "tag_I",
                 "M1", "M2", "M3"]:
        show(name, h[name])
    if c_r == 2:
        k0, chunk = aes_first(h["k_i2r"], hdr_i, m, ad)
        show("aes_k0", k0)
        show("frame1", ad + chunk)
    else:
        show("frame1", ad + secretstream_push_first(h["k_i2r"], hdr_i, m, ad, tag=1))
