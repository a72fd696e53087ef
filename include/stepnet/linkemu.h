/* stepnet link emulation: the pure parts of emulating delay, jitter and rate on a node's own
 * outgoing frames (docs/runtime.md, "Link emulation"), so that heterogeneous networks can be
 * emulated without root or the kernel's netem.
 *
 * Three pieces, all pure (no clocks, no sockets): the parsers of times and rates in the units
 * tc(8) writes; the per-edge parameters of a topology, from defaults and a link file keyed by
 * edge, by node pair or by dimension; and the schedule of one directed link, which turns "a frame
 * of n bytes is written at time t" into "release it at time t'" (a token bucket for the rate, then
 * the delay and its jitter, first in first out). The node (node/emulate.c) reads the clock and
 * arms the timers. */
#ifndef STEPNET_LINKEMU_H
#define STEPNET_LINKEMU_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/error.h"
#include "stepnet/topo.h"

/* Bounds of what the parsers accept (beyond them the value is refused, not clamped). */
#define SN_EMU_MAX_TIME_NS  (60ull * 1000000000ull) /* 60 s of delay or jitter */
#define SN_EMU_MIN_RATE_BPS 1000ull                 /* 1 kbit/s */
#define SN_EMU_MAX_RATE_BPS 10000000000000ull       /* 10 tbit/s */
/* The depth of the token bucket in bytes: what a link that sat idle may send at once. One
 * Ethernet frame, as tc's tbf needs at least. */
#define SN_EMU_BURST_BYTES 1514u
/* The largest link file the coordinator reads. */
#define SN_EMU_MAX_FILE (4u << 20)

/* The emulated parameters of one link (both directions of an edge get the same). */
typedef struct sn_emu_link_s {
    uint64_t delay_ns;  /* added to every frame */
    uint64_t jitter_ns; /* the delay varies uniformly in [delay - jitter, delay + jitter] (>= 0) */
    uint64_t rate_bps;  /* bits per second; 0: no rate limit */
} sn_emu_link_t;

/* 1 when p emulates anything (a delay, a jitter or a rate). */
static inline int sn_emu_link_active(const sn_emu_link_t *p)
{
    return p->delay_ns || p->jitter_ns || p->rate_bps;
}

/* Parses a time as tc(8) writes it: a non-negative decimal number and an optional unit, s / sec /
 * secs, ms / msec / msecs, us / usec / usecs (also a bare number: microseconds), ns / nsec / nsecs
 * (units case-insensitive), at most SN_EMU_MAX_TIME_NS. 0 and *ns set, or SN_EINVAL with err
 * naming the text and the accepted units. `what` names the value in the message ("--link-delay").
 */
int sn_emu_parse_time(const char *text, const char *what, uint64_t *ns, sn_err_t *err);

/* Parses a rate as tc(8) writes it: a positive decimal number and an optional unit, bit (also a
 * bare number), kbit, mbit, gbit, tbit (bits per second, SI), bps, kbps, mbps, gbps, tbps (bytes
 * per second), and the IEC forms kibit .. tibit, kibps .. tibps (powers of 1024); units are
 * case-insensitive. The result is in bits per second, rounded, within [SN_EMU_MIN_RATE_BPS,
 * SN_EMU_MAX_RATE_BPS]. A percentage (tc's "5%") is refused: there is no device speed to take it
 * of. 0 and *bps set, or SN_EINVAL with err naming the text and the accepted units. */
int sn_emu_parse_rate(const char *text, const char *what, uint64_t *bps, sn_err_t *err);

/* Formats a time in ns ("200us", "1.5ms", "0") and a rate in bit/s ("100mbit") for reports. */
const char *sn_emu_time_text(uint64_t ns, char *buf, size_t cap);
const char *sn_emu_rate_text(uint64_t bps, char *buf, size_t cap);

/* The dimension of edge e, for the families that have dimensions: the factor of a mesh, torus or
 * product (0 = the first factor of the spec), the flipped bit of a hypercube, the flipped bit of a
 * folded cube with the complement edges as dimension d. -1 for every other family. */
int sn_emu_edge_dim(const sn_topo_t *t, uint32_t e);

/* The number of dimensions of t as sn_emu_edge_dim counts them (0: the family has none). */
uint32_t sn_emu_ndims(const sn_topo_t *t);

/* Per-edge parameters of a topology: edge[e] for every edge e. */
typedef struct sn_emu_s {
    uint32_t nedges;
    sn_emu_link_t *edge;
    int active; /* some edge emulates something */
} sn_emu_t;

/* Builds the per-edge parameters of t: every edge starts with *base; then, when `text` is not
 * NULL, the link file `text` (named `name` in messages) applies its lines, `default` lines first,
 * then `dim` lines, then `edge` and `link` lines, each in file order, each setting only the
 * values it names. The format (docs/runtime.md):
 *
 *   # a comment; blank lines are ignored
 *   default delay=200us                  every edge
 *   dim 1 delay=1ms rate=100mbit         every edge of dimension 1 (sn_emu_edge_dim)
 *   edge 3 jitter=50us                   edge 3 (the edge numbers of the run's reports)
 *   link 0-1 delay=5ms                   every edge between nodes 0 and 1
 *
 * Values: delay=TIME, jitter=TIME (sn_emu_parse_time), rate=RATE (sn_emu_parse_rate) or rate=0
 * (no limit). 0 and *out set (free with sn_emu_free), or SN_EINVAL with err naming the file, the
 * line, the bad word and what is accepted (an unknown key, an edge or dimension out of range, a
 * pair of nodes that are not neighbours, a family without dimensions). */
int sn_emu_build(const sn_topo_t *t, const sn_emu_link_t *base, const char *text, const char *name,
                 sn_emu_t **out, sn_err_t *err);
void sn_emu_free(sn_emu_t *emu);

/* The schedule of one directed link. A frame of `bytes` bytes written at `now` (ns, any monotonic
 * origin) is released at:
 *   1. rate: when the token bucket (SN_EMU_BURST_BYTES deep, or the frame's size if larger,
 *      filled at rate_bps / 8 bytes per second) holds `bytes` tokens, not before the previous
 *      frame's departure; without a rate, at once;
 *   2. delay: departure + delay + a uniform sample of [-jitter, +jitter] (at least the
 *      departure), drawn from the schedule's own generator (seeded, so reproducible);
 *   3. order: not before the previous frame's release (a TCP link is first in, first out; unlike
 *      netem, jitter never reorders).
 * Initialise with sn_emu_sched_init; the bucket starts full. */
typedef struct sn_emu_sched_s {
    sn_emu_link_t p;
    double tokens;          /* bytes in the bucket at t_tokens */
    uint64_t t_tokens;      /* ns */
    uint64_t last_depart;   /* the previous frame's departure from the bucket */
    uint64_t last_release;  /* the previous frame's release */
    uint64_t rng;           /* splitmix64 state */
    uint64_t frames, bytes; /* what went through */
} sn_emu_sched_t;

void sn_emu_sched_init(sn_emu_sched_t *s, const sn_emu_link_t *p, uint64_t seed, uint64_t now);

/* The release time of a frame of `bytes` bytes written at `now` (now must not decrease from one
 * call to the next). */
uint64_t sn_emu_sched_frame(sn_emu_sched_t *s, uint64_t now, size_t bytes);

#endif
