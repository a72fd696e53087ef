/* The records of run and bench (cli, record.c): the CSV rows of both and the JSON fields every run
 * and bench record carries (schema, version, timestamp, statistics, bandwidth, hosts, per-link
 * calibration, security). docs/output.md documents every field. */
#ifndef STEPNET_CLI_RECORD_H
#define STEPNET_CLI_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/json.h"
#include "cli/run.h"
#include "cli/stats.h"

/* The version of the JSON records of run and bench (their `schema` field): raised when a field
 * changes meaning or goes away; new fields do not raise it. */
#define CLI_RECORD_JSON_SCHEMA 1
/* cli_stats_bandwidth of the run's collective at `size` (its deliveries do not depend on the
 * size) over these wall times; -1 also for an `--idle-slots` run, whose repetitions deliver no
 * payload. */
int cli_record_bandwidth(const cli_run_t *run, uint32_t size, const uint64_t *wall_ns, size_t nwall,
                         cli_stats_bw_t *out);
/* bw_node_mb_s and bw_total_mb_s of the run's collective at `size` over these wall times; null
 * when cli_stats_bandwidth has nothing to divide by, and for `--idle-slots` runs (no payload). */
void cli_record_json_bandwidth(cli_json_t *j, const cli_run_t *run, uint32_t size,
                               const uint64_t *wall_ns, size_t nwall);

/* The CSV header line of run and bench (without the newline), and one row per size. The columns
 * from nodes_mode on hold the same value on every row of a run: what was run, so that a CSV file
 * alone says it (scripts/plot.sh titles its plots with them) and stays one plain table. */
#define CLI_RECORD_CSV_HEADER                                                                      \
    "topology,collective,algorithm,ports,rx,duplex,size,avg_us,min_us,max_us,p50_us,p99_us,"       \
    "iterations,steps,predicted_us,verified,coll_avg_us,coll_p50_us,"                              \
    "node_avg_us,node_p50_us,bw_node_mb_s,bw_total_mb_s,bw_bus_mb_s,"                              \
    "nodes_mode,launch,security,warmup,stepnet_version,timestamp"
void cli_record_csv_header(FILE *f);
void cli_record_csv_row(FILE *f, const cli_run_t *run, const sn_coord_result_t *res,
                        const sn_coord_point_t *pt);

/* The fields that open every run and bench record: schema, stepnet_version, timestamp. */
void cli_record_json_meta(cli_json_t *j, const sn_coord_result_t *res);
/* The statistics fields (iterations, wall_us_avg, _min, _max, _p50, _p99). */
void cli_record_json_stats(cli_json_t *j, const cli_stats_t *s);
/* A series of per-repetition times: KEY as a list of microseconds, then KEY_avg (when with_avg)
 * and KEY_median, null when the series is empty (coll_us and node_us of run and bench). */
void cli_record_json_series(cli_json_t *j, const char *key, const uint64_t *ns, size_t n,
                            int with_avg);
/* hosts (per node id) and link_calibration (per calibrated link). */
void cli_record_json_hosts_links(cli_json_t *j, const sn_coord_result_t *res);
/* alpha_us and beta_us_per_byte: the medians of the calibrated links, null when none was
 * calibrated (--probes 0, or a run that failed before calibrating). */
void cli_record_json_calibration(cli_json_t *j, const sn_coord_result_t *res);
/* security, cipher (--cipher: auto or the one cipher; none without security) and ciphers_used
 * (what the control connections and the links negotiated, by name). */
void cli_record_json_security(cli_json_t *j, const sn_coord_opts_t *o,
                              const sn_coord_result_t *res);
/* spin_us (--spin-us) and coord_nice (--coord-nice): how the nodes wait and the coordinator yields.
 */
void cli_record_json_cpu(cli_json_t *j, const sn_coord_opts_t *o);
/* termination (learn or detect) and quiet_slot (null while unknown: 0). */
void cli_record_json_termination(cli_json_t *j, const sn_coord_opts_t *o, uint64_t quiet_slot);
/* The security of the text reports: "none (plaintext)" or "sodium (X25519 + CIPHERS)". */
void cli_record_security_text(const sn_coord_opts_t *o, const sn_coord_result_t *res, char *buf,
                              size_t cap);

/* How the nodes were started, the nodes_mode of the records: join, ssh, daemons or local. */
const char *cli_record_nodes_mode(const sn_coord_opts_t *o);

/* The prediction for one size in microseconds (the run's prediction with that size's steps and
 * packet size); negative when the size did not run to the end. */
double cli_record_point_predicted_us(const sn_coord_result_t *res, const sn_coord_point_t *pt);

#endif
