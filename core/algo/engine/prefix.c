/* The parallel-prefix engine (core/algo): one node's part of a rank computation over a mixed-radix
 * grid of lines, with control packets. Each node counts the marked nodes before it in the order
 * of its digits (the last level most significant) and learns the total, in 2 * sum(len_j - 1)
 * ticks: d forward subphases that scan the levels in turn and d reverse subphases that carry the
 * offsets and the total back. Varvarigos and Bertsekas, d-dimensional meshes, section 3, Fig. 2
 * (the tree P), with the erratum that the rank counts the sources up to and including the node
 * (Sum over t <= s, minus 1), so that ranks run from 0 to M - 1. */
#include <string.h>

#include "core/algo/engine/prefix.h"

uint64_t sn__prefix_ticks(const uint32_t *len, uint32_t nlevels)
{
    uint64_t t = 0;
    for (uint32_t j = 0; j < nlevels; j++)
        t += len[j] - 1;
    return 2 * t;
}

void sn__prefix_init(sn_prefix_t *s, uint32_t nlevels, const uint32_t *len, const uint32_t *digit,
                     const uint32_t *port_next, const uint32_t *port_prev, uint32_t x)
{
    memset(s, 0, sizeof *s);
    s->nlevels = nlevels;
    uint64_t at = 0;
    for (uint32_t j = 0; j < nlevels; j++) {
        s->len[j] = len[j];
        s->digit[j] = digit[j];
        s->port_next[j] = port_next[j];
        s->port_prev[j] = port_prev[j];
        s->fwd_base[j] = at;
        at += len[j] - 1;
    }
    for (uint32_t jj = nlevels; jj-- > 0;) {
        s->rev_base[jj] = at;
        at += len[jj] - 1;
    }
    s->ticks = at;
    s->V[0] = x;
    s->rank = s->total = 0;
    s->done = 0;
}

/* The node takes part in level j when its digits below j are all maximal (the top of its
 * level-(j-1) line). */
static int participant(const sn_prefix_t *s, uint32_t j)
{
    for (uint32_t i = 0; i < j; i++)
        if (s->digit[i] != s->len[i] - 1)
            return 0;
    return 1;
}

int sn__prefix_tick(sn_prefix_t *s, uint64_t tick, int has_in, uint64_t in, sn_prefix_out_t *out,
                    sn_err_t *err)
{
    out->send = 0;
    if (tick < 1 || tick > s->ticks + 1)
        return sn_err_set(err, SN_EALGO, "prefix tick %llu outside 1 .. %llu",
                          (unsigned long long) tick, (unsigned long long) s->ticks + 1);
    uint32_t L = s->nlevels;
    /* ---- reception: a value sent in tick - 1 ---- */
    if (has_in) {
        uint64_t prev = tick - 1;
        if (prev <= s->rev_base[L - 1]) {
            /* forward: the inclusive prefix of the predecessor on the level-j line */
            uint32_t j = 0;
            while (j + 1 < L && prev > s->fwd_base[j + 1])
                j++;
            s->P[j] = in + s->V[j];
            if (s->digit[j] == s->len[j] - 1 && j + 1 < L)
                s->V[j + 1] = s->P[j];
            if (s->digit[j] == s->len[j] - 1 && j + 1 == L)
                s->total = s->P[j];
            s->fwd_pending = s->digit[j] < s->len[j] - 1; /* pass it on in this tick */
            s->fwd_level = j;
        } else {
            /* reverse: (offset of the line, total) from the successor on the level-j line */
            uint32_t j = L - 1;
            while (j > 0 && prev > s->rev_base[j - 1])
                j--;
            uint64_t off = in & 0xffffffffu;
            s->total = in >> 32;
            s->O[j] = off + s->P[j] - s->V[j];
            s->rev_pending = s->digit[j] > 0;
            s->rev_level = j;
            s->rev_value = in;
            if (j == 0) {
                s->rank = s->O[0];
                s->done = 1;
            }
        }
    }
    if (tick > s->ticks) {
        if (!s->done)
            return sn_err_set(err, SN_EALGO, "prefix ended without this node's rank");
        return 0;
    }
    /* ---- sends of this tick ---- */
    if (tick <= s->rev_base[L - 1]) {
        uint32_t j = 0;
        while (j + 1 < L && tick > s->fwd_base[j + 1])
            j++;
        if (!participant(s, j))
            return 0;
        uint64_t pos = tick - s->fwd_base[j]; /* 1 .. len - 1 */
        if (s->digit[j] == 0 && pos == 1) {
            s->P[j] = s->V[j];
            if (s->len[j] == 1) /* nothing to scan */
                return 0;
            *out = (sn_prefix_out_t){1, s->port_next[j], s->P[j]};
        } else if (s->fwd_pending && s->fwd_level == j && pos == s->digit[j] + 1) {
            *out = (sn_prefix_out_t){1, s->port_next[j], s->P[j]};
        }
        s->fwd_pending = 0;
        return 0;
    }
    uint32_t j = L - 1;
    while (j > 0 && tick > s->rev_base[j - 1])
        j--;
    if (!participant(s, j))
        return 0;
    uint64_t pos = tick - s->rev_base[j];
    if (s->digit[j] == s->len[j] - 1 && pos == 1) {
        /* the top of the line: O_{j+1} (0 at the top of the whole grid) */
        uint64_t up = j + 1 < L ? s->O[j + 1] : 0;
        s->O[j] = up + s->P[j] - s->V[j];
        if (j == 0) {
            s->rank = s->O[0];
            s->done = 1;
        }
        *out = (sn_prefix_out_t){1, s->port_prev[j], up | (s->total << 32)};
    } else if (s->rev_pending && s->rev_level == j && pos == s->len[j] - s->digit[j]) {
        *out = (sn_prefix_out_t){1, s->port_prev[j], s->rev_value};
    }
    s->rev_pending = 0;
    return 0;
}

int sn__prefix_step(sn_prefix_t *s, uint32_t i, uint64_t tick, const sn_topo_t *t, uint32_t u,
                    sn_step_t *io, sn_err_t *err)
{
    int has = 0;
    uint64_t in = 0;
    for (size_t r = 0; r < io->nrx; r++) {
        const sn_packet_t *k = &io->rx[r].pkt;
        if (k->kind == SN_PKT_CONTROL && k->flags == i) {
            if (has)
                return sn_err_set(err, SN_EALGO, "node %u: two values of prefix %u in slot %llu", u,
                                  i, (unsigned long long) io->slot);
            has = 1, in = k->digest;
        }
    }
    sn_prefix_out_t o;
    int rc = sn__prefix_tick(s, tick, has, in, &o, err);
    if (rc || !o.send)
        return rc;
    sn_packet_t k = {0};
    k.src = u;
    k.dst = sn_topo_port(t, u, o.port)->peer;
    k.kind = SN_PKT_CONTROL;
    k.flags = (uint8_t) i;
    k.digest = o.value;
    sn_step_send(io, o.port, &k);
    return 0;
}
