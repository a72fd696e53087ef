/* Fuzz target (tests/fuzz): the frame reader of net/conn.c (sn__conn_feed) as a peer's bytes
 * drive it, after the handshake. The first byte picks the mode (bit 0: sealed, with a fixed
 * stream key; bit 1: a consumer that takes long frames in pieces) and, in its high bits, how the
 * rest is cut into reads; the rest is the byte stream. The consumer checks what the reader lends:
 * pieces in order, within their frame, the first holding at least a chunk less one byte. */
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "net/conn.h"
#include "net/wire.h"
#include "tests/fuzz/fuzz.h"

static size_t next_off, cur_total;

static void on_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    (void) c;
    if (type <= 0 || type >= SN_FRAME_NTYPES || (len && body == NULL))
        abort();
}

static void on_error(sn_conn_t *c, int status, const char *what)
{
    (void) c;
    (void) status;
    (void) what;
}

static void on_closed(sn_conn_t *c)
{
    (void) c;
}

static void on_piece(sn_conn_t *c, int type, const uint8_t *p, size_t off, size_t n, size_t total)
{
    (void) c;
    (void) type;
    if (off == 0) {
        if (n < SN_CONN_CHUNK - 1 && n != total)
            abort();
        cur_total = total;
    } else if (off != next_off || total != cur_total) {
        abort();
    }
    if (off + n > total || p == NULL)
        abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < n; i += 4096)
        sink ^= p[i]; /* every lent byte is readable */
    (void) sink;
    next_off = off + n;
}

static const sn_conn_ops_t ops_whole = {on_frame, on_error, on_closed, NULL};
static const sn_conn_ops_t ops_pieces = {on_frame, on_error, on_closed, on_piece};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    uv_loop_t loop;
    uv_loop_init(&loop);
    sn_conn_t *c = malloc(sizeof *c);
    sn_conn_init(&loop, c, (mode & 2) ? &ops_pieces : &ops_whole, NULL);
    sn_wire_limits_link(c, 300000, 0);
    c->established = 1;
    c->sec_mode = (mode & 1) ? SN_SEC_SODIUM : SN_SEC_NONE;
    if (mode & 1) {
        static const uint8_t key[32] = {1}, hdr[24] = {2};
        c->sec = malloc(sizeof *c->sec);
        crypto_secretstream_xchacha20poly1305_init_pull(&c->sec->rx, hdr, key);
    }
    next_off = cur_total = 0;
    size_t cut = 1 + (size_t) (mode >> 2) * 97; /* reads of this many bytes */
    for (size_t i = 1; i < size && !c->closing; i += cut)
        sn__conn_feed(c, data + i, size - i < cut ? size - i : cut);
    sn_conn_close(c);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    free(c);
    return 0;
}
