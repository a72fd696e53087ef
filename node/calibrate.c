/* Link calibration of stepnet-node (node/): on the coordinator's CALIBRATE, the dialler of every
 * link measures round trips of empty and of `bytes`-byte pings (median of `probes` each); then, if
 * asked (concurrent), the node plays barrier rounds of empty and of `bytes`-byte pings on all its
 * links at once, about `probes` pairs of them (sn_tm_conc_rtts): in each round every node sends one
 * ping on each of its links, and the round is over for it when it holds its neighbours' (a slot of
 * the probes' frames, one way: the NIC sharing of a slot). It reports both in Calibrated; the
 * coordinator derives the terms of the time model from them (docs/runtime.md, docs/model.md).
 * Concurrent pings carry CONC_SEQ and the round in their sequence number, and get no pong: rounds
 * timed until every neighbour echoed measured a token bucket (tbf) at 0 to 0.8 of its rate,
 * different in every run, since an empty round's echo waited behind the neighbour's own sized
 * pings in its interface's queue.
 * A link first sends `probes` empty pings alone, whose median is its round trip
 * (sn_tm_probe_clean: an empty ping sent among sized ones waits behind them on loopback). Then
 * the empty and the sized probes alternate (probe 2k empty, 2k+1 sized), and the sized round trip
 * reported is the empty median plus the median of the pairs' differences when it is resolved
 * (sn_tm_probe_extra): a transient (a process starting beside the run) then slows both probes of
 * a pair instead of one series, which turned noise into a per-byte cost that set every slot of
 * the prediction. Each of the two series, a link's pairs and the concurrent blocks, stops early,
 * with what it measured so far (one pair or block at least), once it has lasted twice
 * SN_DEADLINE_SERIES_NS (sn_deadline_series_more): on a link that is slow for real the
 * calibration then ends within the ready deadline instead of after minutes. */
#include <stdlib.h>
#include <string.h>

#include "node/node_internal.h"
#include "stepnet/deadline.h"
#include "stepnet/timemodel.h"
#include "stepnet/util.h"

static void send_ping(link_t *l)
{
    uint32_t p = l->cal.probe, n = l->cal.probes;
    uint32_t bytes =
        !sn_tm_probe_clean(p, n) && sn_tm_probe_sized(p - n, n) ? l->cal.probe_bytes : 0;
    l->cal.probe_t0 = uv_hrtime();
    sn__node_link_probe(l, SN_FRAME_PING, l->cal.probe, bytes);
}

#define CONC_SEQ SN_NODE_CONC_SEQ

static uint64_t median_of(uint64_t *v, uint32_t n)
{
    qsort(v, n, sizeof *v, sn_cmp_u64);
    return v[n / 2];
}

/* The round trips of a series of alternated pairs: the median of the clean empty probes (those
 * sent before any sized one; none: the pairs' empty ones), and that plus the pairs' resolved
 * extra (sn_tm_probe_extra) for the sized ones. */
static void series_rtts(uint64_t *clean, uint32_t nclean, uint64_t *empty, uint64_t *sized,
                        uint32_t pairs, uint64_t *rtt0_ns, uint64_t *rtt_ns)
{
    double extra = sn_tm_probe_extra(empty, sized, pairs);
    *rtt0_ns = nclean ? median_of(clean, nclean) : median_of(empty, pairs);
    *rtt_ns = *rtt0_ns + (uint64_t) (extra + 0.5);
}

static void calibration_done(node_t *nd)
{
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Calibrated cal = STEPNET__CALIBRATED__INIT;
    Stepnet__LinkTiming *lt = sn_xcalloc(nd->deg + 1, sizeof *lt);
    Stepnet__LinkTiming **ptrs = sn_xcalloc(nd->deg + 1, sizeof *ptrs);
    size_t k = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (!l->dialer || l->cal.probes == 0)
            continue;
        stepnet__link_timing__init(&lt[k]);
        lt[k].edge = l->edge;
        series_rtts(l->cal.clean, l->cal.nclean, l->cal.rtt0, l->cal.rtt, l->cal.done[1],
                    &lt[k].rtt0_ns, &lt[k].rtt_ns);
        lt[k].bytes = l->cal.probe_bytes;
        ptrs[k] = &lt[k];
        k++;
    }
    cal.node = nd->id;
    if (nd->conc.on && nd->conc.rounds) {
        cal.has_conc_rtt0_ns = cal.has_conc_rtt_ns = 1;
        sn_tm_conc_rtts(nd->conc.rtt, nd->conc.rounds, nd->conc.blocks, &cal.conc_rtt0_ns,
                        &cal.conc_rtt_ns);
    }
    cal.n_links = k;
    cal.links = ptrs;
    m.msg_case = STEPNET__CONTROL__MSG_CALIBRATED;
    m.calibrated = &cal;
    sn__node_send_ctl(nd, &m);
    free(lt);
    free(ptrs);
}

/* Concurrent round r's bytes: every node sizes the same rounds. */
static uint32_t conc_bytes(const node_t *nd, uint64_t r)
{
    return sn_tm_conc_sized(r) ? nd->conc.bytes : 0;
}

static void conc_ping(link_t *l, uint64_t r)
{
    l->cal.conc_tx = r + 1;
    sn__node_link_probe(l, SN_FRAME_PING, CONC_SEQ | r, conc_bytes(l->nd, r));
}

/* One concurrent round: a ping on every link at once. */
static void conc_round(node_t *nd)
{
    nd->conc.t0 = uv_hrtime();
    for (uint32_t q = 0; q < nd->deg; q++)
        conc_ping(&nd->links[q], nd->conc.round);
}

/* The series is over here: a neighbour still measuring waits for this node's ping of a round it
 * did not play, so the pings of such rounds that came already are answered now, and the later
 * ones as they come (sn__node_on_conc_ping). */
static void conc_end(node_t *nd)
{
    nd->conc.ended = 1;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (l->cal.conc_rx > l->cal.conc_tx)
            conc_ping(l, l->cal.conc_rx - 1);
    }
    calibration_done(nd);
}

/* Plays the rounds whose pings are all in: each lasts from the node's own pings until it holds
 * every neighbour's, as a slot does; after a block, another while the series may last. */
static void conc_advance(node_t *nd)
{
    while (nd->conc.started && !nd->conc.ended) {
        for (uint32_t q = 0; q < nd->deg; q++)
            if (nd->links[q].cal.conc_rx <= nd->conc.round)
                return;
        uint64_t now = uv_hrtime();
        uint32_t pos = nd->conc.round % SN_TM_CONC_BLOCK;
        nd->conc.rtt[(size_t) pos * nd->conc.rounds + nd->conc.blocks] = now - nd->conc.t0;
        /* as many pairs as a link's series has (`probes`, rounded up to whole blocks) */
        uint32_t blocks = (nd->conc.rounds + SN_TM_CONC_PAIRS - 1) / SN_TM_CONC_PAIRS;
        if (pos == SN_TM_CONC_BLOCK - 1 &&
            !sn_deadline_series_more(++nd->conc.blocks, blocks, (now - nd->conc.series_t0) / 2)) {
            conc_end(nd);
            return;
        }
        nd->conc.round++;
        conc_round(nd);
    }
}

/* Every dialled link is measured: the concurrent rounds, if asked, then the report. */
static void links_done(node_t *nd)
{
    if (nd->conc.on && nd->conc.rounds && nd->deg) {
        nd->conc.round = 0;
        nd->conc.started = 1;
        nd->conc.series_t0 = uv_hrtime();
        conc_round(nd);
        conc_advance(nd); /* the neighbours' first pings may be in already */
        return;
    }
    calibration_done(nd);
}

void sn__node_on_conc_ping(link_t *l, uint64_t seq)
{
    node_t *nd = l->nd;
    uint64_t r = seq & ~CONC_SEQ;
    if (r < l->cal.conc_rx)
        return; /* not a new round: nothing to count */
    l->cal.conc_rx = r + 1;
    if (nd->conc.ended) {
        if (l->cal.conc_tx <= r) /* a round this node did not play: its ping, so that it ends */
            conc_ping(l, r);
        return;
    }
    conc_advance(nd);
}

void sn__node_on_pong(link_t *l, uint64_t seq)
{
    if (seq & CONC_SEQ)
        return; /* concurrent rounds have no pongs */
    uint32_t n = l->cal.probes;
    if (!l->dialer || l->cal.probe >= 3 * n || seq != l->cal.probe)
        return;
    uint64_t now = uv_hrtime(), rtt = now - l->cal.probe_t0;
    if (sn_tm_probe_clean(l->cal.probe, n)) {
        l->cal.clean[l->cal.nclean++] = rtt;
        if (sn_deadline_series_more(l->cal.nclean, n, now - l->cal.series_t0))
            l->cal.probe++;
        else { /* the clean series ends (all, or as many as its time allows): the pairs */
            l->cal.probe = n;
            l->cal.series_t0 = now;
        }
        send_ping(l);
        return;
    }
    int sized = sn_tm_probe_sized(l->cal.probe - n, n);
    uint32_t done = l->cal.done[sized]++;
    if (!sized)
        l->cal.rtt0[done] = rtt;
    else
        l->cal.rtt[done] = rtt;
    /* after an empty probe its sized partner; after a pair, another while the series may last */
    if (!sized || sn_deadline_series_more(done + 1, l->cal.probes, (now - l->cal.series_t0) / 2)) {
        l->cal.probe++;
        send_ping(l);
        return;
    }
    l->cal.probe = 3 * n; /* done: a late pong matches nothing */
    l->cal.calibrated = 1;
    if (--l->nd->cal_left == 0)
        links_done(l->nd);
}

void sn__node_calibrate(node_t *nd, uint32_t bytes, uint32_t probes, int concurrent)
{
    if (probes > 1000)
        probes = 1000;
    nd->cal_left = 0;
    free(nd->conc.rtt);
    memset(&nd->conc, 0, sizeof nd->conc);
    nd->conc.on = concurrent;
    nd->conc.rounds = probes;
    nd->conc.bytes = bytes;
    nd->conc.rtt = sn_xcalloc(SN_TM_CONC_BLOCK * (size_t) probes + 1, sizeof *nd->conc.rtt);
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (!l->dialer)
            continue;
        free(l->cal.clean);
        free(l->cal.rtt0);
        free(l->cal.rtt);
        l->cal.probes = probes;
        l->cal.nclean = 0;
        l->cal.probe_bytes = bytes;
        l->cal.probe = 0;
        l->cal.done[0] = l->cal.done[1] = 0;
        l->cal.series_t0 = uv_hrtime();
        l->cal.clean = sn_xcalloc(probes + 1, sizeof *l->cal.clean);
        l->cal.rtt0 = sn_xcalloc(probes + 1, sizeof *l->cal.rtt0);
        l->cal.rtt = sn_xcalloc(probes + 1, sizeof *l->cal.rtt);
        if (probes > 0) {
            nd->cal_left++;
            send_ping(l);
        }
    }
    if (nd->cal_left == 0)
        links_done(nd);
}
