/* Admission control at a listener (net/; declared in conn.h beside the connections it watches):
 * caps on unauthenticated connections in all and per address, accept errors (EMFILE included)
 * logged once with the limit named and retried after a pause, refused connections logged at a
 * bounded rate. A connection leaves its care when its handshake and hello are done. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "net/conn.h"
#include "stepnet/error.h"
#include "stepnet/util.h"

const char *sn_admit_limit_text(char *buf, size_t cap)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(buf, cap, "descriptor limit (ulimit -n %llu)", (unsigned long long) rl.rlim_cur);
    else
        snprintf(buf, cap, "descriptor limit (ulimit -n)");
    return buf;
}

static void admit_logf(sn_admit_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void admit_logf(sn_admit_t *a, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    a->ops->log(a, line);
}

/* The summary of the refusals of the window that ends now. */
static void admit_flush(sn_admit_t *a)
{
    if (a->win_suppressed)
        admit_logf(a, "refused %u more %ss in the last %.1f s (%llu in all)", a->win_suppressed,
                   a->noun, (double) (uv_now(a->loop) - a->win_start) / 1000.0,
                   (unsigned long long) a->refused);
    a->win_suppressed = 0;
}

static void on_admit_log_timer(uv_timer_t *t)
{
    admit_flush(t->data);
}

static void on_admit_resume(uv_timer_t *t)
{
    sn_admit_t *a = t->data;
    a->paused = 0;
    if (a->held) { /* libuv holds one accepted connection and polls no more until it is taken */
        a->held = 0;
        a->ops->accept_one(a);
    }
}

void sn_admit_init(sn_admit_t *a, uv_loop_t *loop, const sn_admit_ops_t *ops, void *owner,
                   uint32_t reserve, const char *noun)
{
    memset(a, 0, sizeof *a);
    a->ops = ops;
    a->owner = owner;
    a->loop = loop;
    a->reserve = reserve;
    a->noun = noun;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        a->fd_limit = rl.rlim_cur;
    uv_timer_init(loop, &a->timer);
    a->timer.data = a;
    uv_timer_init(loop, &a->log_timer);
    a->log_timer.data = a;
    a->timers_live = 1;
}

void sn_admit_set_reserve(sn_admit_t *a, uint32_t reserve)
{
    a->reserve = reserve;
}

static void evict(sn_admit_t *a, size_t i, const char *why);

int sn_admit_gate(sn_admit_t *a, int status)
{
    if (status < 0) {
        if (status != a->last_error) {
            char lim[64];
            a->last_error = status;
            admit_logf(a,
                       "accepting a %s failed: %s (%s; %zu unauthenticated connections open); "
                       "accepting again with a backoff",
                       a->noun, uv_strerror(status), sn_admit_limit_text(lim, sizeof lim),
                       a->npend);
        }
        /* free a descriptor for the peers that matter: the oldest stranger goes */
        if (a->npend)
            evict(a, 0, "closed to free a descriptor after an accept error");
        a->backoff_ms = a->backoff_ms ? a->backoff_ms * 2 : SN_ADMIT_BACKOFF_MIN_MS;
        if (a->backoff_ms > SN_ADMIT_BACKOFF_MAX_MS)
            a->backoff_ms = SN_ADMIT_BACKOFF_MAX_MS;
        a->paused = 1;
        uv_timer_start(&a->timer, on_admit_resume, a->backoff_ms, 0);
        return 1;
    }
    if (a->paused) {
        a->held = 1;
        return 1;
    }
    return 0;
}

/* The host part of "host:port" or "[v6]:port". */
static size_t host_len(const char *peer)
{
    const char *colon = strrchr(peer, ':');
    return colon ? (size_t) (colon - peer) : strlen(peer);
}

static int same_host(const sn_conn_t *x, const sn_conn_t *y)
{
    size_t n = host_len(x->peer);
    return n == host_len(y->peer) && memcmp(x->peer, y->peer, n) == 0;
}

/* Closes pend[i]: its owner's on_error logs it (sn_admit_refused) and sn_admit_done removes it. */
static void evict(sn_admit_t *a, size_t i, const char *why)
{
    sn_conn_t *c = a->pend[i];
    memmove(&a->pend[i], &a->pend[i + 1], (a->npend - i - 1) * sizeof *a->pend);
    a->npend--;
    sn_conn_fail(c, SN_EPROTO, why);
}

void sn_admit_add(sn_admit_t *a, sn_conn_t *c)
{
    a->last_error = 0; /* an accept succeeded: the next error is a new episode */
    a->backoff_ms = 0;
    sn_grow((void **) &a->pend, &a->cappend, a->npend + 1, sizeof *a->pend);
    a->pend[a->npend++] = c;
    char why[200];
    /* per address: the oldest connection of c's host */
    size_t same = 0;
    for (size_t i = 0; i < a->npend; i++)
        same += same_host(a->pend[i], c);
    if (same > (size_t) SN_ADMIT_MAX_PER_ADDR + a->reserve) {
        for (size_t i = 0; i < a->npend; i++) {
            if (same_host(a->pend[i], c)) {
                snprintf(why, sizeof why,
                         "%zu unauthenticated connections from one address (the limit is %u): "
                         "the oldest is closed",
                         same, SN_ADMIT_MAX_PER_ADDR + a->reserve);
                evict(a, i, why);
                break;
            }
        }
    }
    if (a->npend > (size_t) SN_ADMIT_MAX_PENDING + a->reserve) {
        snprintf(why, sizeof why,
                 "%zu unauthenticated connections (the limit is %u): the oldest is closed",
                 a->npend, SN_ADMIT_MAX_PENDING + a->reserve);
        evict(a, 0, why);
    }
    /* the descriptor limit: strangers must leave room for the connections that matter */
    uv_os_fd_t fd;
    if (a->fd_limit && a->npend && uv_fileno((uv_handle_t *) &c->tcp, &fd) == 0 &&
        (uint64_t) fd + SN_ADMIT_FD_HEADROOM >= a->fd_limit) {
        char lim[64];
        sn_admit_limit_text(lim, sizeof lim);
        if (!a->fd_pressure_logged) {
            a->fd_pressure_logged = 1;
            admit_logf(a,
                       "%s nearly reached (descriptor %d in use): closing the oldest "
                       "unauthenticated connections",
                       lim, (int) fd);
        }
        snprintf(why, sizeof why, "%s nearly reached: the oldest is closed", lim);
        evict(a, 0, why);
    }
}

void sn_admit_done(sn_admit_t *a, sn_conn_t *c)
{
    for (size_t i = 0; i < a->npend; i++) {
        if (a->pend[i] == c) {
            memmove(&a->pend[i], &a->pend[i + 1], (a->npend - i - 1) * sizeof *a->pend);
            a->npend--;
            return;
        }
    }
}

void sn_admit_refused(sn_admit_t *a, const char *peer, const char *why)
{
    uint64_t now = uv_now(a->loop);
    a->refused++;
    if (a->win_logged == 0 || now - a->win_start >= SN_ADMIT_LOG_WINDOW_MS) {
        admit_flush(a);
        a->win_start = now;
        a->win_logged = 0;
    }
    if (a->win_logged < SN_ADMIT_LOG_BURST) {
        a->win_logged++;
        admit_logf(a, "refused a %s from %s: %s", a->noun, peer, why);
        return;
    }
    if (a->win_suppressed++ == 0 && a->timers_live)
        uv_timer_start(&a->log_timer, on_admit_log_timer,
                       SN_ADMIT_LOG_WINDOW_MS - (now - a->win_start), 0);
}

void sn_admit_close(sn_admit_t *a)
{
    admit_flush(a);
    if (a->timers_live) {
        a->timers_live = 0;
        uv_close((uv_handle_t *) &a->timer, NULL);
        uv_close((uv_handle_t *) &a->log_timer, NULL);
    }
    free(a->pend);
    a->pend = NULL;
    a->npend = a->cappend = 0;
}
