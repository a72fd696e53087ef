/* Sweeps and measured-output helpers (cli): the --sizes list of `stepnet bench`, the
 * statistics of a size's wall times, the CSV rows of run and bench, the JSON fields every run and
 * bench record carries (schema, version, timestamp, hosts, per-link calibration), and the report
 * of `stepnet bench`. docs/output.md documents every field. */
#ifndef STEPNET_CLI_SWEEP_H
#define STEPNET_CLI_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/json.h"
#include "cli/run.h"

/* The version of the JSON records of run and bench (their `schema` field): raised when a field
 * changes meaning or goes away; new fields do not raise it. */
#define CLI_SWEEP_JSON_SCHEMA 1
/* At most this many sizes in one --sizes list. */
#define CLI_SWEEP_MAX_SIZES 256
/* The default --sizes, --iters and --warmup of `stepnet bench`. */
#define CLI_SWEEP_DEFAULT_SIZES  "8:1M:x2"
#define CLI_SWEEP_DEFAULT_ITERS  20
#define CLI_SWEEP_DEFAULT_WARMUP 2

/* Parses a --sizes value into *out (malloc'd, strictly increasing) and *n:
 *   FROM:TO        FROM, 2 FROM, 4 FROM, ... up to TO (FROM at least 1)
 *   FROM:TO:xF     the same with factor F (2 to 1024)
 *   FROM:TO:+S     FROM, FROM + S, ... up to TO (S at least 1)
 *   A,B,C          these sizes, strictly increasing
 * Every size is decimal digits with an optional K, M or G (powers of two: 1K = 1024 bytes), from
 * 0 to SN_MAX_PACKET_SIZE. 0, or SN_EINVAL with err naming the value and what is accepted. */
int cli_sweep_parse_sizes(const char *text, uint32_t **out, size_t *n, sn_err_t *err);

/* Statistics of wall times in microseconds: average, least, largest, median (p50: the mean of
 * the two middle values when n is even) and the 99th percentile by nearest rank (the value at
 * rank ceil(0.99 n)). All 0 when n is 0. */
typedef struct cli_sweep_stats_s {
    size_t n;
    double avg, min, max, p50, p99;
} cli_sweep_stats_t;
void cli_sweep_stats(const uint64_t *wall_ns, size_t n, cli_sweep_stats_t *out);

/* The payload bandwidth of a run or of a size of bench, in MB/s (10^6 bytes per second, as the
 * OSU Micro-Benchmarks count them; docs/output.md, "Bandwidth"): the payload bytes one repetition
 * delivers (`deliveries` packets of `size` bytes, every fragment a packet) over the median of the
 * repetitions' wall times, in all (total_mb_s) and per node (node_mb_s: the total spread over the
 * `nodes` processing nodes, so total = node x nodes). 0 with *out set; -1 when there is nothing to
 * divide by (no wall time measured, a zero median, or no node), *out then untouched. */
typedef struct cli_sweep_bw_s {
    double node_mb_s, total_mb_s;
} cli_sweep_bw_t;
int cli_sweep_bandwidth(uint64_t deliveries, uint32_t size, uint32_t nodes, const uint64_t *wall_ns,
                        size_t nwall, cli_sweep_bw_t *out);
/* cli_sweep_bandwidth of the run's collective at `size` (its deliveries do not depend on the
 * size) over these wall times; -1 also for an `--idle-slots` run, whose repetitions deliver no
 * payload. */
int cli_sweep_run_bandwidth(const cli_run_t *run, uint32_t size, const uint64_t *wall_ns,
                            size_t nwall, cli_sweep_bw_t *out);
/* bw_node_mb_s and bw_total_mb_s of the run's collective at `size` over these wall times; null
 * when cli_sweep_bandwidth has nothing to divide by, and for `--idle-slots` runs (no payload). */
void cli_sweep_json_bandwidth(cli_json_t *j, const cli_run_t *run, uint32_t size,
                              const uint64_t *wall_ns, size_t nwall);

/* The CSV header line of run and bench (without the newline), and one row per size. The columns
 * from nodes_mode on hold the same value on every row of a run: what was run, so that a CSV file
 * alone says it (scripts/plot.sh titles its plots with them) and stays one plain table. */
#define CLI_SWEEP_CSV_HEADER                                                                       \
    "topology,collective,algorithm,ports,rx,duplex,size,avg_us,min_us,max_us,p50_us,p99_us,"       \
    "iterations,steps,predicted_us,verified,coll_avg_us,coll_p50_us,"                              \
    "node_avg_us,node_p50_us,bw_node_mb_s,bw_total_mb_s,"                                          \
    "nodes_mode,launch,security,warmup,stepnet_version,timestamp"
void cli_sweep_csv_header(FILE *f);
void cli_sweep_csv_row(FILE *f, const cli_run_t *run, const sn_coord_result_t *res,
                       const sn_coord_point_t *pt);

/* The fields that open every run and bench record: schema, stepnet_version, timestamp. */
void cli_sweep_json_meta(cli_json_t *j, const sn_coord_result_t *res);
/* The statistics fields (iterations, wall_us_avg, _min, _max, _p50, _p99). */
void cli_sweep_json_stats(cli_json_t *j, const cli_sweep_stats_t *s);
/* A series of per-repetition times: KEY as a list of microseconds, then KEY_avg (when with_avg)
 * and KEY_median, null when the series is empty (coll_us and node_us of run and bench). */
void cli_sweep_json_series(cli_json_t *j, const char *key, const uint64_t *ns, size_t n,
                           int with_avg);
/* hosts (per node id) and link_calibration (per calibrated link). */
void cli_sweep_json_hosts_links(cli_json_t *j, const sn_coord_result_t *res);
/* alpha_us and beta_us_per_byte: the medians of the calibrated links, null when none was
 * calibrated (--probes 0, or a run that failed before calibrating). */
void cli_sweep_json_calibration(cli_json_t *j, const sn_coord_result_t *res);
/* security, cipher (--cipher: auto or the one cipher; none without security) and ciphers_used
 * (what the control connections and the links negotiated, by name). */
void cli_sweep_json_security(cli_json_t *j, const sn_coord_opts_t *o, const sn_coord_result_t *res);
/* spin_us (--spin-us) and coord_nice (--coord-nice): how the nodes wait and the coordinator yields.
 */
void cli_sweep_json_cpu(cli_json_t *j, const sn_coord_opts_t *o);
/* termination (learn or detect) and quiet_slot (null while unknown: 0). */
void cli_sweep_json_termination(cli_json_t *j, const sn_coord_opts_t *o, uint64_t quiet_slot);
/* The security of the text reports: "none (plaintext)" or "sodium (X25519 + CIPHERS)". */
void cli_sweep_security_text(const sn_coord_opts_t *o, const sn_coord_result_t *res, char *buf,
                             size_t cap);

/* The prediction for one size in microseconds (the run's prediction with that size's steps and
 * packet size); negative when the size did not run to the end. */
double cli_sweep_point_predicted_us(const sn_coord_result_t *res, const sn_coord_point_t *pt);

/* `stepnet bench`: the OSU-style table, and one JSON object per line and size. */
void cli_sweep_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);
void cli_sweep_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *res);

#endif
