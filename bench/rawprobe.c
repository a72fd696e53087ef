/* stepnet-rawprobe: the physical limits that stepnet's runtime is measured against (bench/). Plain
 * processes, plain blocking TCP sockets on 127.0.0.1, poll, no protocol, no verification:
 *
 *   latency   two processes ping-pong SIZE bytes; prints the median one-way latency
 *   bandwidth one process streams SIZE-byte messages to another; prints MB/s
 *   barrier   one process per node of --topo, one TCP connection per link; in every slot each
 *             process writes one SIZE-byte frame on every link and reads one from every link
 *             (the pattern of stepnet's slot barrier); prints microseconds per slot. With
 *             --spin-us US a process polls without sleeping (poll with timeout 0, sched_yield
 *             between polls) for the first US microseconds of every slot, as stepnet's nodes do
 *             with their --spin-us; default 0: it sleeps in poll
 *   seal      one process seals and opens SIZE-byte frames exactly as stepnet's secure transport
 *             does (net/secure.c, in place, length header as associated data), in the cipher the
 *             handshake negotiates on this machine or the one --cipher names (xchacha20poly1305,
 *             aes256gcm); prints the CPU cost of each per frame: what security adds to the sender
 *             and to the receiver
 *   ciphers   the AEADs libsodium offers on this CPU, on SIZE-byte messages (64 KiB: one chunk of
 *             the transport): crypto_secretstream_xchacha20poly1305 (what stepnet uses),
 *             crypto_aead_xchacha20poly1305_ietf and, where the CPU has AES-NI and PCLMUL
 *             (crypto_aead_aes256gcm_is_available), crypto_aead_aes256gcm; prints the CPU ns per
 *             byte to seal and to open with each
 *   payload   what stepnet does with every payload byte besides moving it: generates SIZE-byte
 *             payloads into --links buffers (one per link, as a node's send buffers) and checks
 *             them, --iters rounds; prints the CPU ns per byte of each (sn_payload_fill and
 *             sn_payload_check, the code the nodes run)
 *
 * Output: one line "key=value ..." on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/secure.h"
#include "stepnet/algo.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
    fprintf(stderr, "stepnet-rawprobe: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* A connected pair of TCP sockets over loopback. */
static void tcp_pair(int fd[2])
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (l < 0 || bind(l, (struct sockaddr *) &a, sizeof a) < 0 || listen(l, 1) < 0 ||
        getsockname(l, (struct sockaddr *) &a, &len) < 0)
        die("listen");
    fd[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (fd[0] < 0 || connect(fd[0], (struct sockaddr *) &a, sizeof a) < 0)
        die("connect");
    fd[1] = accept(l, NULL, NULL);
    if (fd[1] < 0)
        die("accept");
    close(l);
    int one = 1;
    setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void write_all(int fd, const uint8_t *b, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("write");
        }
        b += w;
        n -= (size_t) w;
    }
}

static void read_all(int fd, uint8_t *b, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, b, n);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            die("read");
        }
        b += r;
        n -= (size_t) r;
    }
}

static int latency(size_t size, int iters)
{
    int fd[2];
    tcp_pair(fd);
    uint8_t *buf = calloc(1, size + 1);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        for (int i = 0; i < iters + 100; i++) {
            read_all(fd[1], buf, size ? size : 1);
            write_all(fd[1], buf, size ? size : 1);
        }
        _exit(0);
    }
    close(fd[1]);
    double *rtt = calloc((size_t) iters, sizeof *rtt);
    for (int i = 0; i < iters + 100; i++) {
        double t0 = now_us();
        write_all(fd[0], buf, size ? size : 1);
        read_all(fd[0], buf, size ? size : 1);
        if (i >= 100)
            rtt[i - 100] = now_us() - t0;
    }
    waitpid(pid, NULL, 0);
    qsort(rtt, (size_t) iters, sizeof *rtt, sn_cmp_double);
    printf("mode=latency size=%zu iters=%d one_way_us=%.2f rtt_us=%.2f\n", size, iters,
           rtt[iters / 2] / 2, rtt[iters / 2]);
    free(rtt);
    free(buf);
    return 0;
}

static int bandwidth(size_t size, size_t total)
{
    int fd[2];
    tcp_pair(fd);
    uint8_t *buf = malloc(size);
    memset(buf, 0x5a, size);
    size_t count = total / size ? total / size : 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        for (size_t i = 0; i < count; i++)
            read_all(fd[1], buf, size);
        write_all(fd[1], buf, 1);
        _exit(0);
    }
    close(fd[1]);
    double t0 = now_us();
    for (size_t i = 0; i < count; i++)
        write_all(fd[0], buf, size);
    read_all(fd[0], buf, 1);
    double us = now_us() - t0;
    waitpid(pid, NULL, 0);
    printf("mode=bandwidth size=%zu bytes=%zu MBps=%.1f\n", size, count * size,
           (double) (count * size) / us);
    free(buf);
    return 0;
}

/* One process per node; fds[p] is node u's socket for its port p. */
static int barrier(const char *spec, size_t size, long slots, long spin_us)
{
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    if (sn_topo_parse(spec, &t, &err) < 0) {
        fprintf(stderr, "stepnet-rawprobe: %s\n", err.msg);
        return 2;
    }
    uint32_t n = t->n, nports = t->port_off[n];
    int *fd = malloc(nports * sizeof *fd);
    for (uint32_t e = 0; e < t->nedges; e++) {
        int pair[2];
        tcp_pair(pair);
        fd[t->port_off[t->edges[e].a] + t->edges[e].pa] = pair[0];
        fd[t->port_off[t->edges[e].b] + t->edges[e].pb] = pair[1];
    }
    int go[2], done[2];
    if (pipe(go) < 0 || pipe(done) < 0)
        die("pipe");
    for (uint32_t u = 0; u < n; u++) {
        if (fork() != 0)
            continue;
        uint32_t deg = sn_topo_degree(t, u);
        int *mine = &fd[t->port_off[u]];
        for (uint32_t i = 0; i < nports; i++)
            if (i < t->port_off[u] || i >= t->port_off[u + 1])
                close(fd[i]);
        uint8_t *out = malloc(size), *in = malloc(size);
        memset(out, (int) u, size);
        for (uint32_t p = 0; p < deg; p++)
            fcntl(mine[p], F_SETFL, fcntl(mine[p], F_GETFL) | O_NONBLOCK);
        struct pollfd *pf = calloc(deg, sizeof *pf);
        size_t *have = calloc(deg, sizeof *have), *sent = calloc(deg, sizeof *sent);
        char c;
        if (read(go[0], &c, 1) != 1)
            die("start");
        /* every slot: write one frame on every link and read one from every link, interleaved
         * (non-blocking) so that large frames cannot deadlock two writers */
        for (long s = 0; s < slots; s++) {
            for (uint32_t p = 0; p < deg; p++)
                have[p] = sent[p] = 0;
            uint32_t left = 2 * deg;
            double spin_end = spin_us ? now_us() + (double) spin_us : 0;
            while (left > 0) {
                for (uint32_t p = 0; p < deg; p++) {
                    pf[p].fd = mine[p];
                    pf[p].events =
                        (short) ((have[p] < size ? POLLIN : 0) | (sent[p] < size ? POLLOUT : 0));
                    if (pf[p].events == 0)
                        pf[p].fd = -1;
                }
                int spin = spin_us && now_us() < spin_end;
                int ready = poll(pf, deg, spin ? 0 : -1);
                if (ready < 0 && errno != EINTR)
                    die("poll");
                if (ready == 0 && spin) {
                    sched_yield();
                    continue;
                }
                for (uint32_t p = 0; p < deg; p++) {
                    if (pf[p].fd < 0)
                        continue;
                    if ((pf[p].revents & POLLOUT) && sent[p] < size) {
                        ssize_t w = write(mine[p], out + sent[p], size - sent[p]);
                        if (w < 0 && errno != EAGAIN)
                            die("write");
                        if (w > 0) {
                            sent[p] += (size_t) w;
                            left -= sent[p] == size;
                        }
                    }
                    if ((pf[p].revents & (POLLIN | POLLHUP)) && have[p] < size) {
                        ssize_t r = read(mine[p], in, size - have[p]);
                        if (r == 0 || (r < 0 && errno != EAGAIN))
                            die("read");
                        if (r > 0) {
                            have[p] += (size_t) r;
                            left -= have[p] == size;
                        }
                    }
                }
            }
        }
        if (write(done[1], "x", 1) != 1)
            die("done");
        _exit(0);
    }
    for (uint32_t i = 0; i < nports; i++)
        close(fd[i]);
    usleep(100000);
    double t0 = now_us();
    for (uint32_t u = 0; u < n; u++)
        if (write(go[1], "g", 1) != 1)
            die("go");
    char c;
    for (uint32_t u = 0; u < n; u++)
        if (read(done[0], &c, 1) != 1)
            die("wait");
    double us = now_us() - t0;
    while (wait(NULL) > 0)
        ;
    printf("mode=barrier topo=%s nodes=%u links=%u size=%zu slots=%ld spin_us=%ld "
           "us_per_slot=%.2f MBps=%.1f\n",
           t->spec, n, t->nedges, size, slots, spin_us, us / (double) slots,
           (double) size * 2 * t->nedges * (double) slots / us);
    sn_topo_free(t);
    free(fd);
    return 0;
}

/* CPU time of this process (all of it is the loop below), microseconds. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int seal(size_t size, long iters, int cipher)
{
    sn_sec_init();
    sn_key_t k;
    sn_key_random(&k);
    sn_hs_t i, r;
    uint8_t m1[SN_SEC_M1_BYTES], m2[SN_SEC_MAX_REPLY], m3[SN_SEC_MAX_REPLY], none[SN_SEC_M1_BYTES];
    size_t n1, n2, n3, n0, w;
    const char *why;
    int offer = cipher ? cipher : sn_sec_ciphers_available();
    if (!(offer & sn_sec_ciphers_available())) {
        fprintf(stderr, "stepnet-rawprobe: this CPU cannot run %s (no AES-NI)\n",
                sn_sec_cipher_name(cipher));
        return 2;
    }
    sn_hs_start(&i, SN_SEC_SODIUM, &k, 1, offer, NULL, m1, &n1);
    sn_hs_start(&r, SN_SEC_SODIUM, &k, 0, sn_sec_ciphers_available(), NULL, none, &n0);
    w = r.want;
    sn_hs_step(&r, m1, m2, &n2, &why);
    sn_hs_step(&r, m1 + w, m2, &n2, &why);
    w = i.want;
    sn_hs_step(&i, m2, m3, &n3, &why);
    sn_hs_step(&i, m2 + w, m3, &n3, &why);
    sn_hs_step(&r, m3, m2, &n2, &why);
    if (!i.done || !r.done) {
        fprintf(stderr, "stepnet-rawprobe: handshake failed\n");
        return 1;
    }
    /* frames: [len 4][tag 1][type 1][body][MAC 16], sealed and opened in place, in batches so
     * that reading the CPU clock (a system call) does not weigh on small frames */
    size_t mlen = 1 + size, clen = mlen + SN_SEC_ABYTES, fl = 4 + clen;
    long batch = (long) ((16u << 20) / fl);
    batch = batch < 1 ? 1 : batch > 1000 ? 1000 : batch;
    uint8_t *buf = calloc((size_t) batch, fl);
    for (long b = 0; b < batch; b++) {
        uint8_t *f = buf + (size_t) b * fl;
        f[0] = (uint8_t) (clen >> 24), f[1] = (uint8_t) (clen >> 16);
        f[2] = (uint8_t) (clen >> 8), f[3] = (uint8_t) clen;
    }
    double seal_us = 0, open_us = 0;
    long done = 0;
    while (done < iters) {
        double t0 = cpu_us();
        for (long b = 0; b < batch; b++) {
            uint8_t *f = buf + (size_t) b * fl;
            sn_sec_seal(&i.sec, f + 4, f + 5, mlen, f, 1);
        }
        double t1 = cpu_us();
        for (long b = 0; b < batch; b++) {
            uint8_t *f = buf + (size_t) b * fl;
            if (sn_sec_open(&r.sec, f + 5, f + 4, clen, f, 1) != 0) {
                fprintf(stderr, "stepnet-rawprobe: a frame did not open\n");
                return 1;
            }
        }
        seal_us += t1 - t0;
        open_us += cpu_us() - t1;
        done += batch;
    }
    iters = done;
    printf("mode=seal cipher=%s size=%zu iters=%ld seal_us=%.3f open_us=%.3f total_us=%.3f "
           "ns_per_byte=%.3f\n",
           sn_sec_cipher_name(i.sec.cipher), size, iters, seal_us / (double) iters,
           open_us / (double) iters, (seal_us + open_us) / (double) iters,
           (seal_us + open_us) * 1e3 / (double) iters / (double) size);
    free(buf);
    return 0;
}

/* out = CPU ns per byte of expr (an int, 0 on success) run iters times on size bytes. */
#define CIPHER_NS(out, expr)                                                                       \
    do {                                                                                           \
        double t0_ = cpu_us();                                                                     \
        for (long it_ = 0; it_ < iters; it_++)                                                     \
            fails += (expr) != 0;                                                                  \
        (out) = (cpu_us() - t0_) * 1e3 / (double) iters / (double) size;                           \
    } while (0)

static int ciphers(size_t size, long iters)
{
    sn_sec_init();
    uint8_t key[32], nonce[24], hdr[24];
    randombytes_buf(key, sizeof key);
    randombytes_buf(nonce, sizeof nonce);
    uint8_t *m = calloc(1, size + 64), *c = calloc(1, size + 64);
    if (m == NULL || c == NULL)
        return 1;
    crypto_secretstream_xchacha20poly1305_state tx, rx;
    crypto_secretstream_xchacha20poly1305_init_push(&tx, hdr, key);
    crypto_secretstream_xchacha20poly1305_init_pull(&rx, hdr, key);
    unsigned long long clen = size + crypto_secretstream_xchacha20poly1305_ABYTES;
    long fails = 0;
    double ss_seal, ss_both, xc_seal, xc_open;
    CIPHER_NS(ss_seal, crypto_secretstream_xchacha20poly1305_push(
                           &tx, c, NULL, m, size, NULL, 0,
                           crypto_secretstream_xchacha20poly1305_TAG_MESSAGE));
    /* opening needs messages in stream order: re-seal each before opening it, and subtract */
    crypto_secretstream_xchacha20poly1305_init_push(&tx, hdr, key);
    crypto_secretstream_xchacha20poly1305_init_pull(&rx, hdr, key);
    CIPHER_NS(ss_both,
              (crypto_secretstream_xchacha20poly1305_push(&tx, c, NULL, m, size, NULL, 0, 0),
               crypto_secretstream_xchacha20poly1305_pull(&rx, m, NULL, NULL, c, clen, NULL, 0)));
    crypto_secretstream_xchacha20poly1305_init_push(&tx, hdr, key);
    crypto_secretstream_xchacha20poly1305_init_pull(&rx, hdr, key);
    CIPHER_NS(xc_seal, crypto_aead_xchacha20poly1305_ietf_encrypt(c, NULL, m, size, NULL, 0, NULL,
                                                                  nonce, key));
    CIPHER_NS(xc_open, crypto_aead_xchacha20poly1305_ietf_decrypt(
                           m, NULL, NULL, c, size + crypto_aead_xchacha20poly1305_ietf_ABYTES, NULL,
                           0, nonce, key));
    printf("mode=ciphers size=%zu iters=%ld secretstream_seal_ns_per_byte=%.3f "
           "secretstream_open_ns_per_byte=%.3f xchacha20poly1305_seal_ns_per_byte=%.3f "
           "xchacha20poly1305_open_ns_per_byte=%.3f",
           size, iters, ss_seal, ss_both - ss_seal, xc_seal, xc_open);
    if (crypto_aead_aes256gcm_is_available()) {
        crypto_aead_aes256gcm_state st;
        crypto_aead_aes256gcm_beforenm(&st, key);
        double aes_seal, aes_open;
        CIPHER_NS(aes_seal, crypto_aead_aes256gcm_encrypt_afternm(c, NULL, m, size, NULL, 0, NULL,
                                                                  nonce, &st));
        CIPHER_NS(aes_open,
                  crypto_aead_aes256gcm_decrypt_afternm(
                      m, NULL, NULL, c, size + crypto_aead_aes256gcm_ABYTES, NULL, 0, nonce, &st));
        printf(" aes256gcm_seal_ns_per_byte=%.3f aes256gcm_open_ns_per_byte=%.3f\n", aes_seal,
               aes_open);
    } else {
        printf(" aes256gcm=unavailable\n");
    }
    free(m);
    free(c);
    if (fails) {
        fprintf(stderr, "stepnet-rawprobe: %ld messages did not open\n", fails);
        return 1;
    }
    return 0;
}

static int payload(size_t size, long iters, long links)
{
    if (size > (1u << 30) || links < 1 || links > 1024 || iters < 1)
        die("payload: --size at most 2^30, --links 1 to 1024, --iters at least 1");
    uint8_t **buf = calloc((size_t) links, sizeof *buf);
    for (long l = 0; l < links; l++)
        if ((buf[l] = malloc(size)) == NULL)
            die("malloc");
    double fill = 0, check = 0;
    int bad = 0;
    for (long it = 0; it < iters; it++) {
        double t0 = cpu_us();
        for (long l = 0; l < links; l++)
            sn_payload_fill(1, 0, (uint32_t) l + 1, (uint32_t) it, 0, buf[l], (uint32_t) size);
        double t1 = cpu_us();
        for (long l = 0; l < links; l++)
            bad |= sn_payload_check(1, 0, (uint32_t) l + 1, (uint32_t) it, 0, buf[l],
                                    (uint32_t) size) != 0;
        check += cpu_us() - t1;
        fill += t1 - t0;
    }
    double bytes = (double) size * (double) links * (double) iters;
    printf("mode=payload size=%zu links=%ld iters=%ld fill_ns_per_byte=%.4f "
           "check_ns_per_byte=%.4f verified=%s\n",
           size, links, iters, fill * 1e3 / bytes, check * 1e3 / bytes, bad ? "no" : "yes");
    for (long l = 0; l < links; l++)
        free(buf[l]);
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    size_t size = 8;
    long iters = 10000, slots = 2000, links = 7, spin_us = 0;
    size_t total = 1u << 30;
    const char *topo = "ring:2";
    int cipher = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--size") == 0)
            size = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--slots") == 0)
            slots = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--bytes") == 0)
            total = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--topo") == 0)
            topo = argv[i + 1];
        else if (strcmp(argv[i], "--links") == 0)
            links = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--cipher") == 0) {
            if ((cipher = sn_sec_cipher_parse(argv[i + 1])) < 0) {
                fprintf(stderr,
                        "stepnet-rawprobe: bad value '%s' for --cipher: expected "
                        "xchacha20poly1305 or aes256gcm\n",
                        argv[i + 1]);
                return 2;
            }
        } else if (strcmp(argv[i], "--spin-us") == 0) {
            char *end;
            spin_us = strtol(argv[i + 1], &end, 10);
            if (*argv[i + 1] == '\0' || *end || spin_us < 0 || spin_us > 1000000) {
                fprintf(stderr,
                        "stepnet-rawprobe: bad value '%s' for --spin-us: expected microseconds "
                        "from 0 to 1000000\n",
                        argv[i + 1]);
                return 2;
            }
        } else {
            fprintf(stderr, "stepnet-rawprobe: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (size == 0)
        size = 1;
    if (strcmp(mode, "latency") == 0)
        return latency(size, (int) iters);
    if (strcmp(mode, "bandwidth") == 0)
        return bandwidth(size, total);
    if (strcmp(mode, "barrier") == 0)
        return barrier(topo, size, slots, spin_us);
    if (strcmp(mode, "seal") == 0)
        return seal(size, iters, cipher);
    if (strcmp(mode, "ciphers") == 0)
        return ciphers(size, iters);
    if (strcmp(mode, "payload") == 0)
        return payload(size, iters, links);
    fprintf(stderr, "usage: stepnet-rawprobe latency|bandwidth|barrier|seal|ciphers|payload "
                    "[--size B] [--iters N] [--bytes N] [--topo SPEC] [--slots N] [--links N] "
                    "[--spin-us US] [--cipher xchacha20poly1305|aes256gcm]\n");
    return 2;
}
