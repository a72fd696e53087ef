/* Collective timing (coordinator): clock offsets from control-channel round trips and the span of
 * one collective over every node's own timestamps, the way the OSU Micro-Benchmarks time a
 * collective (each process times its own call; the report takes the extremes); the time model's
 * empty slot from samples spread through the run, and whether its calibration was disturbed. Pure.
 */
#include "coordinator/timing.h"

#include <stdlib.h>
#include <string.h>

#include "stepnet/error.h"
#include "stepnet/util.h"

#define NS_PER_US 1000.0

int sn_coord_clock_offset(const sn_coord_clock_sample_t *s, size_t n, int64_t *offset_ns,
                          uint64_t *uncertainty_ns)
{
    if (n == 0)
        return SN_EINVAL;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].recv_ns < s[i].sent_ns)
            return SN_EINVAL;
        if (s[i].recv_ns - s[i].sent_ns < s[best].recv_ns - s[best].sent_ns)
            best = i;
    }
    uint64_t half = (s[best].recv_ns - s[best].sent_ns) / 2;
    /* node - (sent + half), in signed arithmetic: the clocks may differ either way */
    *offset_ns = (int64_t) (s[best].node_ns - (s[best].sent_ns + half));
    *uncertainty_ns = (s[best].recv_ns - s[best].sent_ns + 1) / 2;
    return 0;
}

uint64_t sn_coord_coll_span_ns(const uint64_t *start_ns, const uint64_t *complete_ns,
                               const int64_t *offset_ns, size_t n)
{
    int64_t first = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t off = offset_ns ? offset_ns[i] : 0;
        int64_t s = (int64_t) start_ns[i] - off, c = (int64_t) complete_ns[i] - off;
        if (i == 0 || s < first)
            first = s;
        if (i == 0 || c > last)
            last = c;
    }
    return last > first ? (uint64_t) (last - first) : 0;
}

uint64_t sn_coord_last_start_ns(const uint64_t *start_ns, const int64_t *offset_ns, size_t n)
{
    int64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t) start_ns[i] - (offset_ns ? offset_ns[i] : 0);
        if (i == 0 || s > last)
            last = s;
    }
    return last > 0 ? (uint64_t) last : 0;
}

uint64_t sn_coord_node_mean_ns(const uint64_t *start_ns, const uint64_t *complete_ns, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += complete_ns[i] > start_ns[i] ? complete_ns[i] - start_ns[i] : 0;
    return (sum + n / 2) / n;
}

double sn_coord_median_ns_us(const uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    uint64_t *w = sn_xmalloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, sn_cmp_u64);
    size_t h = n / 2;
    double median =
        n % 2 ? (double) w[h] / NS_PER_US : (double) (w[h - 1] + w[h]) / (2 * NS_PER_US);
    free(w);
    return median;
}

/* ---- the empty slot from samples spread through the run -------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : (x > y);
}

double sn_coord_quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    double *w = sn_xmalloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmp_dbl);
    double pos = (q < 0 ? 0 : q > 1 ? 1 : q) * (double) (n - 1);
    size_t lo = (size_t) pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double x = w[lo] + (w[hi] - w[lo]) * (pos - (double) lo);
    free(w);
    return x;
}

size_t sn_coord_barrier_slot_us(const uint64_t *barrier_ns, size_t n, double ctl_us,
                                uint64_t barrier_slots, double *out)
{
    size_t k = 0;
    for (size_t i = 0; barrier_slots && i < n; i++) {
        double idle = (double) barrier_ns[i] / NS_PER_US - (ctl_us > 0 ? ctl_us / 2 : 0);
        if (idle > 0)
            out[k++] = idle / (double) barrier_slots;
    }
    return k;
}

void sn_coord_calib_slot(const double *startup, size_t nstartup, const double *reps, size_t nreps,
                         sn_coord_calib_t *out)
{
    memset(out, 0, sizeof *out);
    out->load_avg = -1;
    out->nstartup = (uint32_t) nstartup;
    out->nreps = (uint32_t) nreps;
    out->startup_us = sn_coord_quantile(startup, nstartup, 0.5);
    out->reps_us = sn_coord_quantile(reps, nreps, 0.5);
    size_t n = nstartup + nreps;
    double *all = sn_xcalloc(n + 1, sizeof *all);
    if (nstartup)
        memcpy(all, startup, nstartup * sizeof *all);
    if (nreps)
        memcpy(all + nstartup, reps, nreps * sizeof *all);
    out->p10_us = sn_coord_quantile(all, n, 0.1);
    out->p50_us = sn_coord_quantile(all, n, 0.5);
    out->p90_us = sn_coord_quantile(all, n, 0.9);
    out->slot_us = nreps >= SN_COORD_CALIB_REPS_MIN ? out->reps_us : out->p50_us;
    if (nstartup && nreps)
        out->steady_us = out->startup_us < out->reps_us ? out->startup_us : out->reps_us;
    else
        out->steady_us = nstartup ? out->startup_us : out->reps_us;
    free(all);
}

/* a and b (both positive) differ by more than the tolerance */
static int apart(double a, double b)
{
    return a > 0 && b > 0 && (a > b * SN_COORD_CALIB_TOLERANCE || b > a * SN_COORD_CALIB_TOLERANCE);
}

unsigned sn_coord_calib_disturbed(const sn_coord_calib_t *c, double ping_us, double load,
                                  unsigned cores, double measured_over_predicted)
{
    unsigned why = 0;
    if (c->p10_us > 0 && c->p90_us > c->p10_us * SN_COORD_CALIB_SPREAD_MAX)
        why |= SN_COORD_CALIB_SPREAD;
    if (c->nstartup && c->nreps && apart(c->startup_us, c->reps_us))
        why |= SN_COORD_CALIB_GROUPS;
    if (c->slot_us > 0 && ping_us > c->slot_us * SN_COORD_CALIB_TOLERANCE)
        why |= SN_COORD_CALIB_PINGS;
    if (load >= 0 && cores > 0 && load > (double) cores)
        why |= SN_COORD_CALIB_LOAD;
    if (apart(measured_over_predicted, 1))
        why |= SN_COORD_CALIB_REPS;
    return why;
}

const char *sn_coord_calib_reason_name(unsigned bit)
{
    switch (bit) {
    case SN_COORD_CALIB_SPREAD:
        return "spread";
    case SN_COORD_CALIB_GROUPS:
        return "groups";
    case SN_COORD_CALIB_PINGS:
        return "pings";
    case SN_COORD_CALIB_LOAD:
        return "load";
    case SN_COORD_CALIB_REPS:
        return "repetitions";
    default:
        return NULL;
    }
}
