/* The trace of `stepnet run --trace FILE` (cli): turns the records the nodes sent with
 * their results (the Result's trace fields) into trace events. Each node records on its own
 * monotonic clock (uv_hrtime, CLOCK_MONOTONIC); its Start is placed on the coordinator's clock by
 * the offset the run estimated for it (none on one machine), and the times are drawn from the
 * earliest Start. otherData states each offset and how far it may be off (docs/trace.md). */
#include <stdio.h>

#include "cli/run.h"
#include "cli/trace.h"

#define NS_PER_US 1000.0

/* The time scale of a run's trace, as otherData states it: one clock, or the nodes' clocks
 * aligned on the coordinator's by the estimated offsets. */
static const char run_scale_one[] =
    "microseconds of the nodes' shared monotonic clock since the earliest node's Start of the "
    "traced repetition";
static const char run_scale_offsets[] =
    "microseconds since the earliest node's Start of the traced repetition, each node's monotonic "
    "clock taken back by its estimated offset from the coordinator's: two nodes' times compare "
    "within the sum of their clock_uncertainties_us";

int64_t cli_trace_aligned_t0_ns(const sn_coord_trace_node_t *tn)
{
    return (int64_t) tn->t0_ns - tn->clock_offset_ns;
}

/* Slot s of node record tn (deg ports): when its frames left (0: it did not play the slot, which
 * happens under --sync dataflow only), how long until it held every frame of the slot (ns; 0 when
 * all were there before its own left), and the port whose frame came last (-1: none came after its
 * own left). A frame that came before the Start (0) counts as at 0; a port without a frame in the
 * slot (SN_COORD_TRACE_NO_FRAME: dataflow's receive plan holds none) does not count. */
static void slot_times(const sn_coord_trace_node_t *tn, uint32_t deg, uint64_t s, uint64_t *sent,
                       uint64_t *wait, int64_t *last)
{
    const uint64_t *v = tn->slots + (s - 1) * (1 + (uint64_t) deg);
    uint64_t latest = 0;
    *last = -1;
    for (uint32_t q = 0; q < deg; q++)
        if (v[1 + q] != SN_COORD_TRACE_NO_FRAME && v[1 + q] > latest) {
            latest = v[1 + q];
            *last = q;
        }
    *sent = v[0];
    if (latest <= v[0])
        *last = -1;
    *wait = *last >= 0 ? latest - v[0] : 0;
}

/* When the frame node sent on port in slot s reached the neighbour, on the trace's axis (us), from
 * the neighbour's record; -1 when it did not record it (or it came before its Start, or its plan
 * held no such frame). */
static double arrival_at_peer(const sn_coord_trace_t *ct, const sn_topo_t *t, int64_t base,
                              uint32_t node, uint32_t port, uint64_t s)
{
    const sn_port_t *pp = sn_topo_port(t, node, port);
    const sn_coord_trace_node_t *pn = &ct->nodes[pp->peer];
    uint64_t stride = 1 + (uint64_t) sn_topo_degree(t, pp->peer);
    if (s > pn->nslots / stride)
        return -1;
    uint64_t v = pn->slots[(s - 1) * stride + 1 + pp->rport];
    if (v == SN_COORD_TRACE_NO_FRAME)
        return -1;
    return v ? (double) (cli_trace_aligned_t0_ns(pn) - base + (int64_t) v) / NS_PER_US : -1;
}

void cli_run_trace_write(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const cli_ctx_t *c = run->ctx;
    const sn_topo_t *t = c->topo;
    const sn_coord_trace_t *ct = res->trace;
    const char *scale = res->clock_offsets ? run_scale_offsets : run_scale_one;
    cli_trace_t tr;
    cli_trace_begin(&tr, f, t);
    tr.sync = sn_sync_name(o->sync);
    if (ct == NULL || ct->n != t->n) {
        const char *why = "the run ended before the traced repetition was complete";
        cli_trace_note(&tr, "no trace", 0, why);
        cli_trace_end(&tr, "run", c, scale, o->trace_rep, 0, why);
        return;
    }
    tr.clock = ct;
    tr.clock_offsets = res->clock_offsets;
    int64_t base = INT64_MAX;
    uint64_t recorded = 0, dropped = 0, invalid = 0, cut = 0;
    for (uint32_t i = 0; i < ct->n; i++)
        if (cli_trace_aligned_t0_ns(&ct->nodes[i]) < base)
            base = cli_trace_aligned_t0_ns(&ct->nodes[i]);
    double last_us = 0;
    for (uint32_t i = 0; i < ct->n; i++) {
        const sn_coord_trace_node_t *tn = &ct->nodes[i];
        double off = (double) (cli_trace_aligned_t0_ns(tn) - base) / NS_PER_US;
        uint32_t deg = sn_topo_degree(t, i);
        uint64_t nslots = tn->nslots / (1 + (uint64_t) deg), sent, wait;
        int64_t lastp;
        if (nslots > recorded)
            recorded = nslots;
        if (tn->stop_slot > nslots)
            cut++;
        for (uint64_t s = 1; s <= nslots; s++) {
            slot_times(tn, deg, s, &sent, &wait, &lastp);
            /* a slot the node did not play (dataflow skips the slots in which it does not step)
             * has no start: only the frames that came in it are drawn */
            if (sent) {
                double ts = off + (double) sent / NS_PER_US, dur = (double) wait / NS_PER_US;
                cli_trace_slot(&tr, i, s, ts, dur, lastp);
                if (ts + dur > last_us)
                    last_us = ts + dur;
            }
            const uint64_t *v = tn->slots + (s - 1) * (1 + (uint64_t) deg);
            for (uint32_t q = 0; q < deg; q++)
                if (v[1 + q] != SN_COORD_TRACE_NO_FRAME)
                    cli_trace_frame(&tr, i, q, s, off + (double) v[1 + q] / NS_PER_US,
                                    sent && (int64_t) q == lastp, v[1 + q] == 0);
        }
        for (size_t k = 0; k + 4 <= tn->nsends; k += 4) {
            const uint64_t *v = tn->sends + k;
            uint64_t s = v[0];
            uint32_t port = (uint32_t) v[1];
            if (s == 0 || s > nslots || port >= deg || (v[1] >> 32) > SN_PKT_CONTROL ||
                tn->slots[(s - 1) * (1 + (uint64_t) deg)] == 0) {
                /* a record that does not fit the topology or the slots recorded (a transmission
                 * in a slot the node did not play) */
                invalid++;
                continue;
            }
            sn_packet_t pkt = {.src = (uint32_t) v[2],
                               .dst = (uint32_t) (v[2] >> 32),
                               .seq = (uint32_t) v[3],
                               .frag = (uint16_t) (v[3] >> 32),
                               .kind = (uint8_t) (v[1] >> 32)};
            slot_times(tn, deg, s, &sent, &wait, &lastp);
            cli_trace_send(&tr, i, port, s, &pkt, off + (double) sent / NS_PER_US,
                           (double) wait / NS_PER_US, arrival_at_peer(ct, t, base, i, port, s));
        }
        uint64_t got = tn->nsends / 4;
        if (tn->transmissions > got)
            dropped += tn->transmissions - got;
    }
    char note[256];
    const char *trunc = NULL;
    if (dropped || invalid || cut) {
        snprintf(note, sizeof note,
                 "%llu nodes played slots past those they recorded (--trace-slots %llu, fewer "
                 "where 1 + degree numbers a slot exceed half of %u): %llu transmissions left "
                 "out; %llu records did not fit the topology",
                 (unsigned long long) cut, (unsigned long long) o->trace_slots,
                 SN_COORD_TRACE_MAX_VALUES, (unsigned long long) dropped,
                 (unsigned long long) invalid);
        cli_trace_note(&tr, "trace truncated", last_us, note);
        trunc = note;
    }
    cli_trace_end(&tr, "run", c, scale, o->trace_rep, recorded, trunc);
}
