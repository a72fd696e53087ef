/* Statistics of measured times (cli): a series of wall times summed up as its average, least,
 * largest, median and 99th percentile, and the payload bandwidth over its median (stats.c). Pure
 * functions of their inputs, unit-tested in tests/unit/test_stats.c. */
#ifndef STEPNET_CLI_STATS_H
#define STEPNET_CLI_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/algo.h"

/* Statistics of wall times in microseconds: average, least, largest, median (p50: the mean of
 * the two middle values when n is even) and the 99th percentile by nearest rank (the value at
 * rank ceil(0.99 n)). All 0 when n is 0. */
typedef struct cli_stats_s {
    size_t n;
    double avg, min, max, p50, p99;
} cli_stats_t;
void cli_stats_compute(const uint64_t *wall_ns, size_t n, cli_stats_t *out);

/* The payload bandwidth of a run or of a size of bench, in MB/s (10^6 bytes per second, as the
 * OSU Micro-Benchmarks count them; docs/output.md, "Bandwidth"): the payload bytes one repetition
 * delivers (`deliveries` packets of `size` bytes, every fragment a packet) over the median of the
 * repetitions' wall times, in all (total_mb_s) and per node (node_mb_s: the total spread over the
 * `nodes` processing nodes, so total = node x nodes). 0 with *out set; -1 when there is nothing to
 * divide by (no wall time measured, a zero median, or no node), *out then untouched. */
typedef struct cli_stats_bw_s {
    double node_mb_s, total_mb_s;
    double bus_mb_s; /* the bus bandwidth (cli_stats_bus), < 0 when the collective has none */
} cli_stats_bw_t;
int cli_stats_bandwidth(uint64_t deliveries, uint32_t size, uint32_t nodes, const uint64_t *wall_ns,
                        size_t nwall, cli_stats_bw_t *out);

/* The bus bandwidth of nccl-tests (docs/output.md, "Bus bandwidth"): the operation's size S over
 * the time, times the collective's factor, so that a run compares with one link's speed whatever
 * the processor count P. With D the bytes every (source, destination) pair carries (size x msgs x
 * frags): bcast and sna (reduce) S = D, factor 1; allreduce S = D, factor 2(P-1)/P; mnb
 * (allgather), mna (reduce_scatter), te (alltoall), scatter and gather S = P D, factor (P-1)/P.
 * Sets *ranks (S / D) and *factor and returns 0; -1 for the collectives nccl-tests has no figure
 * for (partial, dynamic, barrier) and for P < 2. */
int cli_stats_bus_terms(sn_coll_t coll, uint32_t P, double *ranks, double *factor);

#endif
