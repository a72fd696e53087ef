/* The trace of `stepnet run --trace FILE` (coordinator): turns the records the nodes sent with
 * their results (the Result's trace fields) into trace events. Each node's times are its own
 * monotonic clock (uv_hrtime, CLOCK_MONOTONIC), drawn from the earliest node's Start: on one
 * machine all nodes share that clock; across machines the offsets are not corrected
 * (docs/trace.md).
 */
#include <stdio.h>

#include "coord.h"
#include "trace.h"

#define NS_PER_US 1000.0

/* The time scale of a run's trace, as otherData states it. */
static const char run_scale[] =
    "microseconds of each node's monotonic clock since the earliest node's Start of the traced "
    "repetition; comparable across nodes on one machine only";

/* Slot s of node record tn: when its frames left and how long until its last frame arrived (ns),
 * and the port of that frame (-1: every frame was there when it sent). */
static void slot_times(const coord_trace_node_t *tn, uint64_t s, uint64_t *sent, uint64_t *wait,
                       int64_t *last)
{
    const uint64_t *v = tn->slots + 3 * (s - 1);
    *sent = v[0];
    *wait = v[1] > v[0] ? v[1] - v[0] : 0;
    *last = v[1] > v[0] && v[2] > 0 ? (int64_t) v[2] - 1 : -1;
}

void coord_trace_write(FILE *f, const coord_opts_t *o, const coord_result_t *res)
{
    const cli_ctx_t *c = o->ctx;
    const sn_topo_t *t = c->topo;
    const coord_trace_t *ct = res->trace;
    trace_t tr;
    trace_begin(&tr, f, t);
    if (ct == NULL || ct->n != t->n) {
        const char *why = "the run ended before the traced repetition was complete";
        trace_note(&tr, "no trace", 0, why);
        trace_end(&tr, "run", c, run_scale, o->trace_rep, 0, why);
        return;
    }
    uint64_t base = UINT64_MAX, recorded = 0, dropped = 0, invalid = 0, cut = 0;
    for (uint32_t i = 0; i < ct->n; i++)
        if (ct->nodes[i].t0_ns < base)
            base = ct->nodes[i].t0_ns;
    double last_us = 0;
    for (uint32_t i = 0; i < ct->n; i++) {
        const coord_trace_node_t *tn = &ct->nodes[i];
        double off = (double) (tn->t0_ns - base) / NS_PER_US;
        uint64_t nslots = tn->nslots / 3, sent, wait;
        int64_t lastp;
        uint32_t deg = sn_topo_degree(t, i);
        if (nslots > recorded)
            recorded = nslots;
        if (tn->stop_slot > nslots)
            cut++;
        for (uint64_t s = 1; s <= nslots; s++) {
            slot_times(tn, s, &sent, &wait, &lastp);
            if (lastp >= (int64_t) deg) {
                invalid++;
                lastp = -1;
            }
            double ts = off + (double) sent / NS_PER_US, dur = (double) wait / NS_PER_US;
            trace_slot(&tr, i, s, ts, dur, lastp);
            if (ts + dur > last_us)
                last_us = ts + dur;
        }
        for (size_t k = 0; k + 4 <= tn->nsends; k += 4) {
            const uint64_t *v = tn->sends + k;
            uint64_t s = v[0];
            uint32_t port = (uint32_t) v[1];
            if (s == 0 || s > nslots || port >= deg || (v[1] >> 32) > SN_PKT_CONTROL) {
                invalid++; /* a record that does not fit the topology or the slots recorded */
                continue;
            }
            sn_packet_t pkt = {.src = (uint32_t) v[2],
                               .dst = (uint32_t) (v[2] >> 32),
                               .seq = (uint32_t) v[3],
                               .frag = (uint16_t) (v[3] >> 32),
                               .kind = (uint8_t) (v[1] >> 32)};
            slot_times(tn, s, &sent, &wait, &lastp);
            trace_send(&tr, i, port, s, &pkt, off + (double) sent / NS_PER_US,
                       (double) wait / NS_PER_US);
        }
        uint64_t got = tn->nsends / 4;
        if (tn->transmissions > got)
            dropped += tn->transmissions - got;
    }
    char note[256];
    const char *trunc = NULL;
    if (dropped || invalid || cut) {
        snprintf(note, sizeof note,
                 "slots after %llu not recorded (--trace-slots) at %llu nodes: %llu transmissions "
                 "left out; %llu records did not fit the topology",
                 (unsigned long long) o->trace_slots, (unsigned long long) cut,
                 (unsigned long long) dropped, (unsigned long long) invalid);
        trace_note(&tr, "trace truncated", last_us, note);
        trunc = note;
    }
    trace_end(&tr, "run", c, run_scale, o->trace_rep, recorded, trunc);
}
