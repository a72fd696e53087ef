/* Collective timing (coordinator): the clock offset of a node from a few control-channel round
 * trips (NTP-style), and the time of one collective from every node's own start and completion
 * timestamps. Pure: no clocks, no network; unit-tested in tests/unit/test_timing.c. */
#ifndef STEPNET_COORD_TIMING_H
#define STEPNET_COORD_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* One probe of a node's clock: the coordinator's clock when it sent the probe and when the echo
 * came back, and the node's clock in the echo (nanoseconds). */
typedef struct sn_coord_clock_sample_s {
    uint64_t sent_ns, node_ns, recv_ns;
} sn_coord_clock_sample_t;

/* The offset of the node's clock from the coordinator's (node minus coordinator) from `n` probes:
 * the probe with the shortest round trip, taking the node's reading as made halfway through it.
 * Whatever the split of that round trip between the two directions, the true offset lies within
 * *uncertainty_ns (half the round trip) of *offset_ns, for clocks that do not drift during the
 * probes. 0; SN_EINVAL when n is 0 or a sample came back before it was sent. */
int sn_coord_clock_offset(const sn_coord_clock_sample_t *s, size_t n, int64_t *offset_ns,
                          uint64_t *uncertainty_ns);

/* The time of one collective on the coordinator's clock: the latest completion minus the earliest
 * start over the `n` nodes, each node's timestamps (its own clock) taken back by its offset
 * (offset NULL: every node on the coordinator's clock). Never negative when every node completed
 * after it started. n must be at least 1. */
uint64_t sn_coord_coll_span_ns(const uint64_t *start_ns, const uint64_t *complete_ns,
                               const int64_t *offset_ns, size_t n);

/* The mean over the `n` nodes of each node's own time, its completion minus its start on its own
 * clock (no offsets needed): the figure the OSU Micro-Benchmarks report as "Avg Latency" (each
 * rank times its own call; the report averages the ranks). Never more than the span on one clock.
 * n must be at least 1. */
uint64_t sn_coord_node_mean_ns(const uint64_t *start_ns, const uint64_t *complete_ns, size_t n);

/* The median of n nanosecond figures in microseconds (0 when n is 0); v is left unchanged. */
double sn_coord_median_ns_us(const uint64_t *v, size_t n);

#endif
