/* Link emulation of stepnet-node (node/): the node delays its own outgoing frames on the links
 * the assignment lists, by the schedule of core/model/linkemu.c (a token bucket for the rate, then
 * the delay and its jitter, first in first out per link), so that no root, tc or netem is needed
 * (docs/runtime.md, "Link emulation"). Frames wait in a per-link queue; one timerfd, watched by
 * the loop, fires at the earliest release of all links (libuv's own timers count milliseconds,
 * too coarse for a 200 us delay). Frames that are due leave through sn_conn_send in order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "net/secure.h"
#include "node/node_internal.h"
#include "stepnet/util.h"

typedef struct emu_frame_s {
    struct emu_frame_s *next;
    uint8_t *body;
    uint64_t release; /* uv_hrtime */
} emu_frame_t;

/* Arms the timer at the earliest release of every link's first frame (or disarms it). uv_hrtime
 * reads CLOCK_MONOTONIC, so releases are absolute times of that clock. */
static void arm(node_t *nd)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t q = 0; q < nd->deg; q++)
        if (nd->links[q].emu_head && nd->links[q].emu_head->release < next)
            next = nd->links[q].emu_head->release;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (next != UINT64_MAX) {
        if (next == 0)
            next = 1; /* an all-zero it_value disarms */
        its.it_value.tv_sec = (time_t) (next / 1000000000ull);
        its.it_value.tv_nsec = (long) (next % 1000000000ull);
    }
    if (timerfd_settime(nd->emu_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        sn__node_abort(nd, SN_EIO, nd->ex.t, "link emulation: cannot arm its timer: %s",
                       strerror(errno));
}

/* Sends every frame that is due, link by link in queue order, and re-arms. */
static void release_due(node_t *nd)
{
    uint64_t now = uv_hrtime();
    for (uint32_t q = 0; q < nd->deg; q++) {
        link_t *l = &nd->links[q];
        while (l->emu_head && l->emu_head->release <= now) {
            emu_frame_t *f = l->emu_head;
            l->emu_head = f->next;
            if (l->emu_head == NULL)
                l->emu_tail = NULL;
            sn_conn_send(&l->lc->c, f->body); /* a closing connection frees it */
            free(f);
        }
    }
    arm(nd);
}

static void on_timer(uv_poll_t *h, int status, int events)
{
    (void) events;
    node_t *nd = h->data;
    uint64_t expirations;
    if (status < 0 || nd->stopping)
        return;
    if (read(nd->emu_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) {
        sn__node_abort(nd, SN_EIO, nd->ex.t, "link emulation: reading its timer: %s",
                       strerror(errno));
        return;
    }
    release_due(nd);
}

void sn__node_link_send(link_t *l, uint8_t *body, size_t len)
{
    sn_conn_t *c = &l->lc->c;
    if (!l->emu_on) {
        sn_conn_send(c, body);
        return;
    }
    uint64_t now = uv_hrtime();
    /* the rate counts what the frame takes on the wire: its header and, sealed, its tag */
    size_t wire = len + SN_FRAME_HDR + (c->sec_mode == SN_SEC_SODIUM ? SN_SEC_ABYTES : 0);
    uint64_t release = sn_emu_sched_frame(&l->emu, now, wire);
    if (l->emu_head == NULL && release <= now) {
        sn_conn_send(c, body);
        return;
    }
    emu_frame_t *f = sn_xmalloc(sizeof *f);
    f->next = NULL;
    f->body = body;
    f->release = release;
    int first = l->emu_head == NULL;
    if (l->emu_tail)
        l->emu_tail->next = f;
    else
        l->emu_head = f;
    l->emu_tail = f;
    if (first) /* a new head may be the earliest release of all */
        arm(l->nd);
}

void sn__node_emu_drop(link_t *l)
{
    while (l->emu_head) {
        emu_frame_t *f = l->emu_head;
        l->emu_head = f->next;
        if (l->lc)
            sn_conn_send(&l->lc->c, f->body); /* closing: frees it */
        free(f);
    }
    l->emu_tail = NULL;
}

static void on_closed(uv_handle_t *h)
{
    node_t *nd = h->data;
    close(nd->emu_fd);
    nd->emu_fd = -1;
}

void sn__node_emu_close(node_t *nd)
{
    if (!nd->emu_live)
        return;
    nd->emu_live = 0;
    uv_close((uv_handle_t *) &nd->emu_poll, on_closed);
}

/* splitmix64's finaliser: a well-mixed seed per edge and direction. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int sn__node_emu_init(node_t *nd, const Stepnet__Assign *a, sn_err_t *err)
{
    int any = 0;
    uint64_t now = uv_hrtime();
    for (size_t i = 0; i < a->n_emu; i++) {
        const Stepnet__LinkEmu *e = a->emu[i];
        sn_emu_link_t p = {e->delay_ns, e->jitter_ns, e->rate_bps};
        if (p.delay_ns > SN_EMU_MAX_TIME_NS || p.jitter_ns > SN_EMU_MAX_TIME_NS ||
            (p.rate_bps && (p.rate_bps < SN_EMU_MIN_RATE_BPS || p.rate_bps > SN_EMU_MAX_RATE_BPS)))
            return sn_err_set(err, SN_EINVAL, "link emulation of edge %u out of range", e->edge);
        int found = 0;
        for (uint32_t q = 0; q < nd->deg; q++) {
            link_t *l = &nd->links[q];
            if (l->edge != e->edge)
                continue;
            found = 1;
            l->emu_on = sn_emu_link_active(&p);
            sn_emu_sched_init(&l->emu, &p,
                              mix(a->emu_seed ^ ((uint64_t) e->edge << 1 | (uint64_t) l->dialer)),
                              now);
            any |= l->emu_on;
        }
        if (!found)
            return sn_err_set(err, SN_EINVAL, "link emulation for edge %u, not a link of node %u",
                              e->edge, nd->id);
    }
    if (!any)
        return 0;
    /* the kernel may fire a timer up to the thread's timer slack late (50 us by default): as
     * exact as it can for emulated delays of a few hundred microseconds */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    nd->emu_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (nd->emu_fd < 0)
        return sn_err_set(err, SN_EIO, "link emulation: timerfd_create: %s", strerror(errno));
    int rc = uv_poll_init(nd->loop, &nd->emu_poll, nd->emu_fd);
    if (rc < 0) {
        close(nd->emu_fd);
        return sn_err_set(err, rc, "link emulation: watching its timer: %s", uv_strerror(rc));
    }
    nd->emu_poll.data = nd;
    nd->emu_live = 1;
    uv_poll_start(&nd->emu_poll, UV_READABLE, on_timer);
    sn_log_write(&nd->log, SN_LOG_INFO, "NODE-EMU", "emulating %zu of this node's links", a->n_emu);
    return 0;
}
