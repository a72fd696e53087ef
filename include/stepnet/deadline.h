/* stepnet slot deadlines (core/model/deadline.c): when a node waiting for a neighbour's frame
 * gives up, decided from the link's progress rather than from the wall clock (docs/runtime.md,
 * "Deadlines"), and the time the run's model allows one frame.
 *
 * A slot waits for one frame per link. The link is alive while bytes move on it: received bytes of
 * the frame, or bytes of our own frame that the neighbour is still reading before it answers. The
 * wait fails "silent" when the link moved nothing for the silence limit (--slot-timeout-ms), the
 * frame's first byte being allowed the model's time of the frames it may wait on besides; and it
 * fails "slow" when the frame's bytes keep coming but it is not complete within the model's time
 * of the frame. Pure: the caller passes the clock and the counters. */
#ifndef STEPNET_DEADLINE_H
#define STEPNET_DEADLINE_H

#include <stdint.h>

/* The model's time of a frame is this many times the calibrated one (alpha + size * beta): a
 * margin for a loaded machine, not a prediction. */
#define SN_DEADLINE_MODEL_MARGIN 16
/* The slowest rate at which a sender is assumed to build a frame before its first byte leaves (an
 * emulated link builds the whole frame first): 32 MiB/s, far below what generating payload costs
 * even in a sanitizer build, so that the allowance grows with the frame instead of being a
 * larger constant. */
#define SN_DEADLINE_BUILD_BPS (32ull << 20)

typedef enum sn_deadline_verdict_e {
    SN_DEADLINE_WAIT = 0,   /* keep waiting, until *until at most */
    SN_DEADLINE_SILENT = 1, /* the link moved nothing for too long */
    SN_DEADLINE_SLOW = 2    /* the frame arrives, too slowly to finish in the model's time */
} sn_deadline_verdict_t;

/* The limits of one slot's wait, in nanoseconds. */
typedef struct sn_deadline_limits_s {
    uint64_t silence_ns; /* the longest the link may move no byte */
    uint64_t first_ns;   /* before the frame's first byte: allowed on top of silence_ns */
    uint64_t frame_ns;   /* from its first byte, the frame may take silence_ns + frame_ns to
                          * arrive whole; 0: no limit (nothing calibrated, nothing emulated) */
} sn_deadline_limits_t;

/* One link's progress since its wait began; times on the caller's clock, in nanoseconds. */
typedef struct sn_deadline_link_s {
    uint64_t wait_start; /* when the slot began waiting for the link's frame */
    uint64_t rx_bytes;   /* bytes received on the link since wait_start */
    uint64_t first_rx;   /* when the first of them was received (rx_bytes > 0) */
    uint64_t last_rx;    /* when the last was (rx_bytes > 0) */
    uint64_t last_tx;    /* when the link last wrote bytes since wait_start (0: never) */
    uint64_t expected;   /* the slot's largest frame on the wire, in bytes */
} sn_deadline_link_t;

/* What the wait of link l must do at time now under lim: SN_DEADLINE_WAIT with *until the time
 * to decide again (the earliest at which it could fail), or the verdict. Rules, in order:
 *   - silent: no byte received and now >= max(wait_start + silence + first, last_tx + silence);
 *     bytes received and now >= max(last_rx, last_tx) + silence;
 *   - slow: bytes received, fewer than expected, frame_ns > 0 and
 *     now >= first_rx + silence + frame_ns. */
sn_deadline_verdict_t sn_deadline_decide(const sn_deadline_limits_t *lim,
                                         const sn_deadline_link_t *l, uint64_t now,
                                         uint64_t *until);

/* The terms of the model that bound a frame's time: the calibrated one-way time of an empty frame
 * and per byte on the slowest link (0 when not calibrated), and the largest emulated delay plus
 * jitter and the smallest emulated rate (bits per second; 0: none) of any link. */
typedef struct sn_deadline_model_s {
    double alpha_us, beta_us_per_byte;
    uint64_t delay_ns, jitter_ns, rate_bps;
} sn_deadline_model_t;

/* The time a frame of `bytes` bytes may take on one hop, in nanoseconds: MARGIN x (alpha + bytes x
 * beta), plus the emulated delay and jitter and bytes at the emulated rate (an emulated link
 * holds a frame whole for them), plus bytes at SN_DEADLINE_BUILD_BPS (the sender builds it).
 * Saturates at UINT64_MAX. */
uint64_t sn_deadline_frame_ns(const sn_deadline_model_t *m, uint64_t bytes);

/* The first-byte allowance of a slot: a neighbour's frame may wait on the frames of nodes up to
 * `hops` (the diameter) away, each taking frame_ns at most. Saturates. */
uint64_t sn_deadline_first_ns(uint64_t frame_ns, uint32_t hops);

/* The calibration's deadline, in milliseconds (saturated at UINT32_MAX): ready_ms plus the round
 * trips its probes make over m's emulated links. Every node probes all its links at once: `probes`
 * ping-pongs of 0 and of `bytes` bytes per link, then `probes` concurrent rounds of each, so 4 x
 * probes round trips, each twice the delay and jitter plus twice `bytes` at the rate. */
uint32_t sn_deadline_calibration_ms(uint32_t ready_ms, uint32_t probes, uint32_t bytes,
                                    const sn_deadline_model_t *m);

/* A calibration series (one link's empty or sized ping-pongs, or a node's empty or sized
 * concurrent rounds) stops early once it has lasted this long: a link that is slow for real (a
 * shaped 1 Mbit/s link carries a 64 KiB probe in half a second) would otherwise keep the whole
 * run in calibration for minutes, and its median is as good from the probes that fit. */
#define SN_DEADLINE_SERIES_NS 5000000000ull

/* 1 when a calibration series of `probes` that has `done` probes after `elapsed_ns` takes another:
 * until all are done, but never past SN_DEADLINE_SERIES_NS once one is done. */
int sn_deadline_series_more(uint32_t done, uint32_t probes, uint64_t elapsed_ns);

/* The idle slots of one empty-slot measurement (the time model's floor): `slots`, or over
 * emulated links whose empty slot lasts delay_ns + jitter_ns as many as fit in one second, one at
 * least, since each lasts that long. */
uint32_t sn_deadline_floor_slots(uint32_t slots, uint64_t delay_ns, uint64_t jitter_ns);

/* The rate of a frame that received rx_bytes between first_rx and now, in bytes per second (a
 * span below one microsecond counts as one), and the seconds `expected` bytes need at that rate
 * (rx_bytes 0: infinity). For the "slow" verdict's message. */
double sn_deadline_rate_bps(uint64_t rx_bytes, uint64_t first_rx, uint64_t now);
double sn_deadline_needs_s(uint64_t expected, double rate_bps);

#endif
