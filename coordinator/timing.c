/* Collective timing (coordinator): clock offsets from control-channel round trips and the span of
 * one collective over every node's own timestamps, the way the OSU Micro-Benchmarks time a
 * collective (each process times its own call; the report takes the extremes). Pure. */
#include "timing.h"

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

uint64_t sn_coord_node_mean_ns(const uint64_t *start_ns, const uint64_t *complete_ns, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += complete_ns[i] > start_ns[i] ? complete_ns[i] - start_ns[i] : 0;
    return (sum + n / 2) / n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : (x > y);
}

double sn_coord_median_ns_us(const uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    uint64_t *w = sn_xmalloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmp_u64);
    size_t h = n / 2;
    double median =
        n % 2 ? (double) w[h] / NS_PER_US : (double) (w[h - 1] + w[h]) / (2 * NS_PER_US);
    free(w);
    return median;
}
