/* Slot deadlines from progress and from the model (core/model): the decision of a node waiting
 * for a neighbour's frame (silent, slow or keep waiting) and the time the model allows a frame
 * (include/stepnet/deadline.h, docs/runtime.md "Deadlines"). Pure: no clock, the caller's time. */
#include "stepnet/deadline.h"

#include <math.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* x nanoseconds as an integer, saturated (x >= 0). */
static uint64_t ns_of(double x)
{
    return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t) x;
}

sn_deadline_verdict_t sn_deadline_decide(const sn_deadline_limits_t *lim,
                                         const sn_deadline_link_t *l, uint64_t now, uint64_t *until)
{
    uint64_t silent_at;
    if (l->rx_bytes == 0) /* the frame's first byte: the model's allowance on top */
        silent_at = max_u64(add_sat(add_sat(l->wait_start, lim->silence_ns), lim->first_ns),
                            l->last_tx ? add_sat(l->last_tx, lim->silence_ns) : 0);
    else
        silent_at = add_sat(max_u64(l->last_rx, l->last_tx), lim->silence_ns);
    if (now >= silent_at)
        return SN_DEADLINE_SILENT;
    uint64_t next = silent_at;
    if (l->rx_bytes > 0 && l->rx_bytes < l->expected && lim->frame_ns > 0) {
        uint64_t slow_at = add_sat(add_sat(l->first_rx, lim->silence_ns), lim->frame_ns);
        if (now >= slow_at)
            return SN_DEADLINE_SLOW;
        if (slow_at < next)
            next = slow_at;
    }
    *until = next;
    return SN_DEADLINE_WAIT;
}

uint64_t sn_deadline_frame_ns(const sn_deadline_model_t *m, uint64_t bytes)
{
    double link_us = m->alpha_us + (double) bytes * m->beta_us_per_byte;
    double ns = SN_DEADLINE_MODEL_MARGIN * (link_us > 0 ? link_us : 0) * 1e3;
    ns += (double) m->delay_ns + (double) m->jitter_ns;
    if (m->rate_bps)
        ns += (double) bytes * 8 * 1e9 / (double) m->rate_bps;
    ns += (double) bytes * 1e9 / (double) SN_DEADLINE_BUILD_BPS;
    return ns_of(ceil(ns));
}

uint64_t sn_deadline_first_ns(uint64_t frame_ns, uint32_t hops)
{
    if (hops == 0)
        hops = 1;
    return frame_ns > UINT64_MAX / hops ? UINT64_MAX : frame_ns * hops;
}

uint32_t sn_deadline_calibration_ms(uint32_t ready_ms, uint32_t probes, uint32_t bytes,
                                    const sn_deadline_model_t *m)
{
    double rtt_ns = 2.0 * ((double) m->delay_ns + (double) m->jitter_ns);
    if (m->rate_bps)
        rtt_ns += 2.0 * (double) bytes * 8 * 1e9 / (double) m->rate_bps;
    double ms = (double) ready_ms + 4.0 * probes * rtt_ns / 1e6;
    return ms >= (double) UINT32_MAX ? UINT32_MAX : (uint32_t) ceil(ms);
}

int sn_deadline_series_more(uint32_t done, uint32_t probes, uint64_t elapsed_ns)
{
    if (done >= probes)
        return 0;
    return done == 0 || elapsed_ns < SN_DEADLINE_SERIES_NS;
}

uint32_t sn_deadline_floor_slots(uint32_t slots, uint64_t delay_ns, uint64_t jitter_ns)
{
    uint64_t slot_ns = delay_ns > UINT64_MAX - jitter_ns ? UINT64_MAX : delay_ns + jitter_ns;
    uint64_t fit = slot_ns ? 1000000000ull / slot_ns : slots;
    return fit < 1 ? 1 : fit > slots ? slots : (uint32_t) fit;
}

double sn_deadline_rate_bps(uint64_t rx_bytes, uint64_t first_rx, uint64_t now)
{
    uint64_t span = now > first_rx ? now - first_rx : 0;
    if (span < 1000)
        span = 1000;
    return (double) rx_bytes * 1e9 / (double) span;
}

double sn_deadline_needs_s(uint64_t expected, double rate_bps)
{
    return rate_bps > 0 ? (double) expected / rate_bps : INFINITY;
}
