/* Link calibration of stepnet-node (node/): on the coordinator's CALIBRATE, the dialler of every
 * link measures round trips of empty and of `bytes`-byte pings (median of `probes` each) and
 * reports them in Calibrated; the coordinator derives alpha and beta of the cost model from them
 * (docs/runtime.md). */
#include <stdlib.h>
#include <string.h>

#include "node_internal.h"
#include "stepnet/util.h"

static void send_ping(link_t *l)
{
    uint32_t bytes = l->cal.probe < l->cal.probes ? 0 : l->cal.probe_bytes;
    uint8_t *b = sn_conn_frame(&l->lc->c, SN_FRAME_PING, 8 + bytes);
    uint64_t seq = l->cal.probe;
    memcpy(b, &seq, 8);
    memset(b + 8, 0x5a, bytes);
    l->cal.probe_t0 = uv_hrtime();
    sn__node_link_send(l, b, 8 + bytes);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : (x > y);
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
        qsort(l->cal.rtt0, l->cal.probes, sizeof *l->cal.rtt0, cmp_u64);
        qsort(l->cal.rtt, l->cal.probes, sizeof *l->cal.rtt, cmp_u64);
        stepnet__link_timing__init(&lt[k]);
        lt[k].edge = l->edge;
        lt[k].rtt0_ns = l->cal.rtt0[l->cal.probes / 2];
        lt[k].rtt_ns = l->cal.rtt[l->cal.probes / 2];
        lt[k].bytes = l->cal.probe_bytes;
        ptrs[k] = &lt[k];
        k++;
    }
    cal.node = nd->id;
    cal.n_links = k;
    cal.links = ptrs;
    m.msg_case = STEPNET__CONTROL__MSG_CALIBRATED;
    m.calibrated = &cal;
    sn__node_send_ctl(nd, &m);
    free(lt);
    free(ptrs);
}

void sn__node_on_pong(link_t *l)
{
    uint64_t rtt = uv_hrtime() - l->cal.probe_t0;
    if (l->cal.probe < l->cal.probes)
        l->cal.rtt0[l->cal.probe] = rtt;
    else
        l->cal.rtt[l->cal.probe - l->cal.probes] = rtt;
    if (++l->cal.probe < 2 * l->cal.probes) {
        send_ping(l);
        return;
    }
    l->cal.calibrated = 1;
    if (--l->nd->cal_left == 0)
        calibration_done(l->nd);
}

void sn__node_calibrate(node_t *nd, uint32_t bytes, uint32_t probes)
{
    if (probes > 1000)
        probes = 1000;
    nd->cal_left = 0;
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        if (!l->dialer)
            continue;
        free(l->cal.rtt0);
        free(l->cal.rtt);
        l->cal.probes = probes;
        l->cal.probe_bytes = bytes;
        l->cal.probe = 0;
        l->cal.rtt0 = sn_xcalloc(probes + 1, sizeof *l->cal.rtt0);
        l->cal.rtt = sn_xcalloc(probes + 1, sizeof *l->cal.rtt);
        if (probes > 0) {
            nd->cal_left++;
            send_ping(l);
        }
    }
    if (nd->cal_left == 0)
        calibration_done(nd);
}
