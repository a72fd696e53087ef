/* Statistics of measured times (cli): the average, least, largest, median and 99th percentile of a
 * series of wall times, and the payload bandwidth over their median, for the reports and records of
 * run and bench. Pure: no clock, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "cli/stats.h"
#include "stepnet/util.h"

#define NS_PER_US 1000.0

void cli_stats_compute(const uint64_t *wall_ns, size_t n, cli_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;
    uint64_t *w = sn_xmalloc(n * sizeof *w);
    memcpy(w, wall_ns, n * sizeof *w);
    qsort(w, n, sizeof *w, sn_cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double) w[i];
    out->avg = sum / (double) n / NS_PER_US;
    out->min = (double) w[0] / NS_PER_US;
    out->max = (double) w[n - 1] / NS_PER_US;
    size_t h = n / 2;
    out->p50 = n % 2 ? (double) w[h] / NS_PER_US : (double) (w[h - 1] + w[h]) / (2 * NS_PER_US);
    size_t rank = (99 * n + 99) / 100; /* ceil(0.99 n), from 1 */
    out->p99 = (double) w[rank - 1] / NS_PER_US;
    free(w);
}

int cli_stats_bandwidth(uint64_t deliveries, uint32_t size, uint32_t nodes, const uint64_t *wall_ns,
                        size_t nwall, cli_stats_bw_t *out)
{
    cli_stats_t st;
    cli_stats_compute(wall_ns, nwall, &st);
    if (st.n == 0 || st.p50 <= 0 || nodes == 0)
        return -1;
    /* bytes per microsecond are 10^6 bytes per second: MB/s as osu_bw counts them */
    out->total_mb_s = (double) deliveries * size / st.p50;
    out->node_mb_s = out->total_mb_s / nodes;
    out->bus_mb_s = -1.0;
    return 0;
}

int cli_stats_bus_terms(sn_coll_t coll, uint32_t P, double *ranks, double *factor)
{
    if (P < 2)
        return -1;
    double share = (double) (P - 1) / P;
    switch (coll) {
    case SN_COLL_BCAST:
    case SN_COLL_SNA:
        *ranks = 1.0, *factor = 1.0;
        return 0;
    case SN_COLL_ALLREDUCE:
        *ranks = 1.0, *factor = 2.0 * share;
        return 0;
    case SN_COLL_MNB:
    case SN_COLL_MNA:
    case SN_COLL_TE:
    case SN_COLL_SCATTER:
    case SN_COLL_GATHER:
        *ranks = P, *factor = share;
        return 0;
    default:
        return -1;
    }
}
