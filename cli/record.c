/* The records of run and bench (cli): the fields every run and bench JSON record opens and closes
 * with (schema, version, timestamp, statistics, bandwidth, calibration, security, hosts), and the
 * CSV of both, one row per size. The fields are documented in docs/output.md. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/caveat.h"
#include "cli/record.h"
#include "generated/stepnet_version.h"
#include "net/secure.h"

#define NS_PER_US 1000.0

/* ---- bandwidth ---------------------------------------------------------------------------------
 */

int cli_record_bandwidth(const cli_run_t *run, uint32_t size, const uint64_t *wall_ns, size_t nwall,
                         cli_stats_bw_t *out)
{
    const cli_ctx_t *c = run->ctx;
    if (run->coord.idle_slots) /* a bare barrier: no payload */
        return -1;
    if (cli_stats_bandwidth(sn_coll_expected_total(c->topo, &c->params), size, c->topo->nproc,
                            wall_ns, nwall, out) != 0)
        return -1;
    double ranks, factor;
    if (cli_stats_bus_terms(c->params.coll, c->topo->nproc, &ranks, &factor) == 0) {
        cli_stats_t st;
        cli_stats_compute(wall_ns, nwall, &st);
        /* D, the bytes of one (source, destination) pair: every packet and fragment of size */
        double D = (double) size * c->params.msgs * c->params.frags;
        out->bus_mb_s = ranks * D / st.p50 * factor;
    }
    return 0;
}

void cli_record_json_bandwidth(cli_json_t *j, const cli_run_t *run, uint32_t size,
                               const uint64_t *wall_ns, size_t nwall)
{
    cli_stats_bw_t bw;
    if (cli_record_bandwidth(run, size, wall_ns, nwall, &bw) !=
        0) { /* not measured: null, never 0 */
        cli_json_null(j, "bw_node_mb_s");
        cli_json_null(j, "bw_total_mb_s");
        cli_json_null(j, "bw_bus_mb_s");
        return;
    }
    cli_json_double(j, "bw_node_mb_s", bw.node_mb_s);
    cli_json_double(j, "bw_total_mb_s", bw.total_mb_s);
    if (bw.bus_mb_s >= 0)
        cli_json_double(j, "bw_bus_mb_s", bw.bus_mb_s);
    else
        cli_json_null(j, "bw_bus_mb_s");
}

/* ---- CSV ---------------------------------------------------------------------------------------
 */

/* When the run started, UTC, ISO 8601 to the second (empty if gmtime_r fails); returns buf. */
static const char *utc_text(const sn_coord_result_t *res, char *buf, size_t cap)
{
    time_t t = (time_t) res->started;
    struct tm tm;
    buf[0] = '\0';
    if (gmtime_r(&t, &tm))
        strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

const char *cli_record_nodes_mode(const sn_coord_opts_t *o)
{
    return o->join ? "join" : o->hosts ? "ssh" : o->daemons ? "daemons" : "local";
}

/* The mean and median of a series of times in microseconds, as two CSV fields followed by `end`
 * (both empty when the series is). */
static void csv_series(FILE *f, const uint64_t *ns, size_t n, char end)
{
    cli_stats_t st;
    cli_stats_compute(ns, n, &st);
    if (n)
        fprintf(f, "%.3f,%.3f%c", st.avg, st.p50, end);
    else
        fprintf(f, ",%c", end);
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break. */
static void csv_str(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void cli_record_csv_header(FILE *f)
{
    fputs(CLI_RECORD_CSV_HEADER "\n", f);
}

double cli_record_point_predicted_us(const sn_coord_result_t *res, const sn_coord_point_t *pt)
{
    if (pt->state != SN_COORD_POINT_DONE)
        return -1;
    if (pt->has_model)
        return sn_coord_point_model_us(res, pt);
    if (res->ncalibrated == 0) /* nothing to predict by (--probes 0) */
        return -1;
    /* no time model (no calibration): the median link's cost at this size */
    return (double) pt->steps * (res->alpha_us + pt->size * res->beta_us);
}

void cli_record_csv_row(FILE *f, const cli_run_t *run, const sn_coord_result_t *res,
                        const sn_coord_point_t *pt)
{
    const cli_ctx_t *c = run->ctx;
    cli_stats_t s;
    cli_stats_compute(pt->wall_ns, pt->nwall, &s);
    csv_str(f, c->topo->spec);
    fprintf(f, ",%s,", sn_coll_name(c->params.coll));
    csv_str(f, c->algo->name);
    fprintf(f, ",%s,%s,%s,%u,", cli_ports_name(&c->params), cli_rx_name(&c->params),
            cli_duplex_name(&c->params), pt->size);
    if (s.n)
        fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,", s.avg, s.min, s.max, s.p50, s.p99);
    else
        fputs(",,,,,", f);
    int done = pt->state == SN_COORD_POINT_DONE;
    fprintf(f, "%zu,", s.n);
    if (pt->verified) /* the steps of the size's last verified repetition, if any */
        fprintf(f, "%llu,", (unsigned long long) pt->steps);
    else
        fputc(',', f);
    double pred = cli_record_point_predicted_us(res, pt);
    if (pred >= 0)
        fprintf(f, "%.3f", pred);
    fprintf(f, ",%d,", done);
    /* the collective's span and each node's own time, averaged over the nodes (OSU's Avg
     * Latency); empty when not measured */
    csv_series(f, pt->coll_ns, pt->ncoll, ',');
    csv_series(f, pt->node_ns, pt->nnode, ',');
    cli_stats_bw_t bw;
    int bw_ok = cli_record_bandwidth(run, pt->size, pt->wall_ns, pt->nwall, &bw) == 0;
    if (bw_ok)
        fprintf(f, "%.6g,%.6g,", bw.node_mb_s, bw.total_mb_s);
    else
        fputs(",,", f);
    if (bw_ok && bw.bus_mb_s >= 0)
        fprintf(f, "%.6g,", bw.bus_mb_s);
    else
        fputc(',', f);
    /* what was run, the same on every row */
    const sn_coord_opts_t *o = &run->coord;
    char launch[96], when[32];
    fprintf(f, "%s,", cli_record_nodes_mode(o));
    csv_str(f, cli_caveat_launch_text(o, res, c->topo->n, launch, sizeof launch));
    fprintf(f, ",%s,%u,", o->security == SN_SEC_SODIUM ? "sodium" : "none", o->warmup);
    csv_str(f, SN_VERSION);
    fprintf(f, ",%s\n", utc_text(res, when, sizeof when));
}

/* ---- JSON fields of run and bench ------------------------------------------------------------ */

void cli_record_json_meta(cli_json_t *j, const sn_coord_result_t *res)
{
    char when[32];
    cli_json_int(j, "schema", CLI_RECORD_JSON_SCHEMA);
    cli_json_str(j, "stepnet_version", SN_VERSION);
    cli_json_str(j, "timestamp", utc_text(res, when, sizeof when));
}

void cli_record_json_series(cli_json_t *j, const char *key, const uint64_t *ns, size_t n,
                            int with_avg)
{
    char name[64];
    cli_json_open(j, key, '[');
    for (size_t i = 0; i < n; i++)
        cli_json_double(j, NULL, (double) ns[i] / NS_PER_US);
    cli_json_close(j, ']');
    cli_stats_t st;
    cli_stats_compute(ns, n, &st);
    if (with_avg) {
        snprintf(name, sizeof name, "%s_avg", key);
        if (n)
            cli_json_double(j, name, st.avg);
        else
            cli_json_null(j, name);
    }
    snprintf(name, sizeof name, "%s_median", key);
    if (n)
        cli_json_double(j, name, st.p50);
    else
        cli_json_null(j, name);
}

void cli_record_json_stats(cli_json_t *j, const cli_stats_t *s)
{
    cli_json_uint(j, "iterations", s->n);
    if (s->n == 0) { /* nothing measured: null, never 0 */
        cli_json_null(j, "wall_us_avg");
        cli_json_null(j, "wall_us_min");
        cli_json_null(j, "wall_us_max");
        cli_json_null(j, "wall_us_p50");
        cli_json_null(j, "wall_us_p99");
        return;
    }
    cli_json_double(j, "wall_us_avg", s->avg);
    cli_json_double(j, "wall_us_min", s->min);
    cli_json_double(j, "wall_us_max", s->max);
    cli_json_double(j, "wall_us_p50", s->p50);
    cli_json_double(j, "wall_us_p99", s->p99);
}

void cli_record_json_calibration(cli_json_t *j, const sn_coord_result_t *res)
{
    if (res->ncalibrated == 0) { /* --probes 0, or the run failed before calibrating */
        cli_json_null(j, "alpha_us");
        cli_json_null(j, "beta_us_per_byte");
        return;
    }
    cli_json_double(j, "alpha_us", res->alpha_us);
    cli_json_double(j, "beta_us_per_byte", res->beta_us);
}

void cli_record_json_security(cli_json_t *j, const sn_coord_opts_t *o, const sn_coord_result_t *res)
{
    cli_json_str(j, "security", o->security == SN_SEC_SODIUM ? "sodium" : "none");
    cli_json_str(j, "cipher",
                 o->security == SN_SEC_NONE ? "none"
                 : o->ciphers               ? sn_sec_cipher_name(o->ciphers)
                                            : "auto");
    int used = res->ctl_ciphers | res->link_ciphers;
    cli_json_open(j, "ciphers_used", '[');
    for (int c = SN_CIPHER_AES256GCM; c >= SN_CIPHER_XCHACHA20; c--)
        if (used & c)
            cli_json_str(j, NULL, sn_sec_cipher_name(c));
    cli_json_close(j, ']');
}

void cli_record_json_cpu(cli_json_t *j, const sn_coord_opts_t *o)
{
    cli_json_uint(j, "spin_us", o->spin_us);
    cli_json_uint(j, "coord_nice", o->coord_nice);
}

void cli_record_json_termination(cli_json_t *j, const sn_coord_opts_t *o, uint64_t quiet_slot)
{
    cli_json_str(j, "sync", sn_sync_name(o->sync));
    /* a mode without the slot barrier detects no termination: the receive plan ends each node */
    cli_json_str(j, "termination",
                 !sn_sync_lockstep(o->sync) ? "plan"
                 : o->termination_detect    ? "detect"
                                            : "learn");
    if (quiet_slot)
        cli_json_uint(j, "quiet_slot", quiet_slot);
    else
        cli_json_null(j, "quiet_slot");
}

void cli_record_security_text(const sn_coord_opts_t *o, const sn_coord_result_t *res, char *buf,
                              size_t cap)
{
    int used = res->ctl_ciphers | res->link_ciphers;
    if (o->security == SN_SEC_NONE)
        snprintf(buf, cap, "none (plaintext)");
    else
        snprintf(buf, cap, "sodium (X25519 + %s%s%s)",
                 used & SN_CIPHER_AES256GCM ? "AES-256-GCM" : "",
                 used == (SN_CIPHER_AES256GCM | SN_CIPHER_XCHACHA20) ? ", " : "",
                 used & SN_CIPHER_XCHACHA20 ? "XChaCha20-Poly1305"
                 : used                     ? ""
                                            : "no connection established");
}

void cli_record_json_hosts_links(cli_json_t *j, const sn_coord_result_t *res)
{
    cli_json_open(j, "hosts", '[');
    for (uint32_t i = 0; i < res->nhosts; i++) /* null: the node never said hello */
        cli_json_str(j, NULL, res->hosts[i].name[0] ? res->hosts[i].name : NULL);
    cli_json_close(j, ']');
    cli_json_open(j, "link_calibration", '[');
    for (size_t i = 0; i < res->nlinks; i++) {
        const sn_coord_link_cal_t *l = &res->links[i];
        double rtt0 = (double) l->rtt0_ns / NS_PER_US, rtt = (double) l->rtt_ns / NS_PER_US;
        cli_json_open(j, NULL, '{');
        cli_json_uint(j, "edge", l->edge);
        cli_json_uint(j, "a", l->a);
        cli_json_uint(j, "b", l->b);
        cli_json_double(j, "rtt0_us", rtt0);
        cli_json_double(j, "rtt_us", rtt);
        cli_json_uint(j, "bytes", l->bytes);
        cli_json_double(j, "alpha_us", rtt0 / 2);
        cli_json_double(j, "beta_us_per_byte",
                        l->bytes && l->rtt_ns > l->rtt0_ns ? (rtt - rtt0) / 2 / l->bytes : 0.0);
        cli_json_close(j, '}');
    }
    cli_json_close(j, ']');
}
