/* Collective timing (coordinator): the clock offset of a node from a few control-channel round
 * trips (NTP-style), and the time of one collective from every node's own start and completion
 * timestamps. Pure: no clocks, no network; unit-tested in tests/unit/test_timing.c. */
#ifndef STEPNET_COORDINATOR_TIMING_H
#define STEPNET_COORDINATOR_TIMING_H

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

/* The latest of the n nodes' starts on the coordinator's clock (offset NULL: every node on it);
 * n must be at least 1. */
uint64_t sn_coord_last_start_ns(const uint64_t *start_ns, const int64_t *offset_ns, size_t n);

/* The median of n nanosecond figures in microseconds (0 when n is 0); v is left unchanged. */
double sn_coord_median_ns_us(const uint64_t *v, size_t n);

/* ---- the empty slot of the time model from samples spread through the run -------------------
 *
 * Two groups of samples of one empty slot of the whole network (microseconds a slot): the
 * start-up group (idle repetitions before the warm-up) and the repetitions' group (each measured
 * repetition's in-band barrier, sn_coord_barrier_slot_us). The repetitions' barriers are empty
 * slots played in the very repetitions the model predicts, so with enough of them
 * (SN_COORD_CALIB_REPS_MIN) the model takes their median: a process starting with the run
 * spoils the start-up group, which then only serves as the cross-check, one slow repetition does
 * not move the median, and a load that lasts through the repetitions slows their barriers as it
 * slows them. With fewer, the median of every sample. docs/model.md says why not a minimum. */

/* Repetition samples enough for their median to stand alone (one outlier discarded). */
#define SN_COORD_CALIB_REPS_MIN    3
#define SN_COORD_CALIB_STARTUP_MAX 8 /* start-up samples kept in a result */
/* Two figures of the calibration that differ by more than this factor disagree; the model's
 * target is the same 25 %. */
#define SN_COORD_CALIB_TOLERANCE 1.25
/* Samples whose 90th percentile exceeds their 10th by more than this factor lie far apart. */
#define SN_COORD_CALIB_SPREAD_MAX 1.5

/* Why a calibration is taken as disturbed (bits of sn_coord_calib_t.disturbed). */
#define SN_COORD_CALIB_SPREAD   (1u << 0) /* the empty-slot samples lie far apart */
#define SN_COORD_CALIB_GROUPS   (1u << 1) /* the start-up and the repetitions' medians disagree */
#define SN_COORD_CALIB_PINGS    (1u << 2) /* the pings' one-way time exceeds the empty slot */
#define SN_COORD_CALIB_LOAD     (1u << 3) /* the load average exceeded the cores */
#define SN_COORD_CALIB_REPS     (1u << 4) /* the measured repetitions disagree with the prediction */
#define SN_COORD_CALIB_NREASONS 5

typedef struct sn_coord_calib_s {
    double slot_us;    /* the empty slot the model uses: the lesser median (0: no sample) */
    double startup_us; /* the median of the start-up samples (0: none) */
    double reps_us;    /* the median of the repetitions' samples (0: none) */
    double steady_us;  /* the empty slot's steady cost, for the dataflow model's frames' work:
                          the lower of the two medians (the repetitions' barriers of one to a
                          few slots after a START also hold the START's skew across the nodes;
                          a transient raises a median, never lowers it); 0: no sample */
    double p10_us, p50_us, p90_us; /* over every sample */
    uint32_t nstartup, nreps;
    unsigned disturbed; /* SN_COORD_CALIB_* bits (sn_coord_calib_disturbed); 0: none */
    double load_avg;    /* the 1-minute load average it was judged with (-1: not known) */
    unsigned cores;     /* the cores it was judged with (0: not known) */
} sn_coord_calib_t;

/* The q-quantile (0 <= q <= 1) of n values, interpolated between the closest ranks (the median
 * of an even count is the mean of the middle two); 0 when n is 0. v is left unchanged. */
double sn_coord_quantile(const double *v, size_t n, double q);

/* The empty slot of each of the n measured repetitions from its in-band barrier: the time from
 * the START to the last node's slot 1 (barrier_ns), less the fan-out (half the control legs),
 * over the barrier's slots. The last node's start, not the earliest: on a graph whose links
 * differ, the nodes far from the slow link run slots ahead of it, and the earliest start would
 * count that lead as collective time. Writes the positive ones into out[n] and returns how many
 * (0 when barrier_slots is 0). */
size_t sn_coord_barrier_slot_us(const uint64_t *barrier_ns, size_t n, double ctl_us,
                                uint64_t barrier_slots, double *out);

/* Fills *out (its disturbed bits 0) from the two groups of samples (either may be empty). */
void sn_coord_calib_slot(const double *startup, size_t nstartup, const double *reps, size_t nreps,
                         sn_coord_calib_t *out);

/* The reasons to take the calibration c as disturbed: its samples far apart or its groups
 * apart (SN_COORD_CALIB_SPREAD, _GROUPS); the median one-way time of the pings (ping_us; 0: none)
 * above the empty slot by more than the tolerance (a frame cannot take longer than the slot that
 * waits for it: _PINGS); the load average above the cores (load < 0: unknown; _LOAD); the
 * measured over the predicted time (0: none) outside [1 / tolerance, tolerance] (_REPS). */
unsigned sn_coord_calib_disturbed(const sn_coord_calib_t *c, double ping_us, double load,
                                  unsigned cores, double measured_over_predicted);

/* The name of reason bit `bit` ("spread", "groups", "pings", "load", "repetitions"); NULL for
 * another value. */
const char *sn_coord_calib_reason_name(unsigned bit);

#endif
