/* Sweeps and measured outputs (cli): the --sizes parser, wall-time statistics, the CSV of
 * run and bench, the fields every run and bench JSON record opens and closes with, and the report
 * of `stepnet bench` (an OSU-style table, or JSON lines). The fields are documented in
 * docs/output.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/caveat.h"
#include "cli/report.h"
#include "cli/record.h"
#include "generated/stepnet_version.h"
#include "net/secure.h"
#include "proc/opts.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

#define NS_PER_US  1000.0
#define MAX_FACTOR 1024

/* ---- --sizes ----------------------------------------------------------------------------------
 */

/* One size, [s, e): sn_opts_bytes, at most SN_MAX_PACKET_SIZE. */
static int parse_one(const char *s, const char *e, uint64_t *out)
{
    uint64_t x;
    if (sn_opts_bytes(s, e, &x) < 0 || x > SN_MAX_PACKET_SIZE)
        return -1;
    *out = x;
    return 0;
}

static int push(uint32_t *v, size_t *n, uint64_t x, const char *text, sn_err_t *err)
{
    if (*n >= CLI_SWEEP_MAX_SIZES)
        return sn_err_inval(err, "bad value '%s' for --sizes: more than %d sizes", text,
                            CLI_SWEEP_MAX_SIZES);
    if (*n > 0 && x <= v[*n - 1])
        return sn_err_inval(err, "bad value '%s' for --sizes: sizes must increase (%llu after %u)",
                            text, (unsigned long long) x, v[*n - 1]);
    v[(*n)++] = (uint32_t) x;
    return 0;
}

int cli_sweep_parse_sizes(const char *text, uint32_t **out, size_t *n, sn_err_t *err)
{
    static const char accepted[] =
        "expected FROM:TO, FROM:TO:xF, FROM:TO:+S or a list A,B,C of sizes in bytes (digits "
        "with an optional K, M, G or KiB, MiB, GiB, powers of 1024), from 0 to 1G";
    uint32_t *v = sn_xcalloc(CLI_SWEEP_MAX_SIZES, sizeof *v);
    size_t k = 0;
    int rc = 0;
    const char *colon = strchr(text, ':');
    if (colon == NULL) { /* a list (of one or more) */
        const char *s = text;
        for (;;) {
            const char *e = strchr(s, ',');
            if (e == NULL)
                e = s + strlen(s);
            uint64_t x;
            if (parse_one(s, e, &x) < 0) {
                rc = sn_err_inval(err, "bad value '%s' for --sizes: '%.*s' is not a size; %s", text,
                                  (int) (e - s), s, accepted);
                goto fail;
            }
            if ((rc = push(v, &k, x, text, err)) < 0)
                goto fail;
            if (*e == '\0')
                break;
            s = e + 1;
        }
    } else { /* a range */
        const char *c2 = strchr(colon + 1, ':');
        const char *end_to = c2 ? c2 : colon + strlen(colon);
        uint64_t from, to, step = 2;
        int add = 0;
        if (parse_one(text, colon, &from) < 0 || parse_one(colon + 1, end_to, &to) < 0) {
            rc = sn_err_inval(err, "bad value '%s' for --sizes: %s", text, accepted);
            goto fail;
        }
        if (c2) {
            const char *st = c2 + 1;
            add = *st == '+';
            if ((*st != 'x' && *st != '+') || parse_one(st + 1, st + strlen(st), &step) < 0 ||
                (add ? step < 1 : (step < 2 || step > MAX_FACTOR))) {
                rc = sn_err_inval(
                    err,
                    "bad value '%s' for --sizes: the step '%s' must be xF (F from 2 to %d) or "
                    "+S (S at least 1)",
                    text, st, MAX_FACTOR);
                goto fail;
            }
        }
        if (from > to) {
            rc = sn_err_inval(err, "bad value '%s' for --sizes: FROM %llu is larger than TO %llu",
                              text, (unsigned long long) from, (unsigned long long) to);
            goto fail;
        }
        if (!add && from == 0) {
            rc = sn_err_inval(
                err, "bad value '%s' for --sizes: a range by factor starts at 1 or more", text);
            goto fail;
        }
        for (uint64_t x = from; x <= to; x = add ? x + step : x * step)
            if ((rc = push(v, &k, x, text, err)) < 0)
                goto fail;
    }
    *out = v;
    *n = k;
    return 0;
fail:
    free(v);
    return rc;
}

/* ---- statistics ------------------------------------------------------------------------------ */

void cli_sweep_stats(const uint64_t *wall_ns, size_t n, cli_sweep_stats_t *out)
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

/* ---- bandwidth ---------------------------------------------------------------------------------
 */

int cli_sweep_bandwidth(uint64_t deliveries, uint32_t size, uint32_t nodes, const uint64_t *wall_ns,
                        size_t nwall, cli_sweep_bw_t *out)
{
    cli_sweep_stats_t st;
    cli_sweep_stats(wall_ns, nwall, &st);
    if (st.n == 0 || st.p50 <= 0 || nodes == 0)
        return -1;
    /* bytes per microsecond are 10^6 bytes per second: MB/s as osu_bw counts them */
    out->total_mb_s = (double) deliveries * size / st.p50;
    out->node_mb_s = out->total_mb_s / nodes;
    return 0;
}

int cli_sweep_run_bandwidth(const cli_run_t *run, uint32_t size, const uint64_t *wall_ns,
                            size_t nwall, cli_sweep_bw_t *out)
{
    const cli_ctx_t *c = run->ctx;
    if (run->coord.idle_slots) /* a bare barrier: no payload */
        return -1;
    return cli_sweep_bandwidth(sn_coll_expected_total(c->topo, &c->params), size, c->topo->nproc,
                               wall_ns, nwall, out);
}

void cli_sweep_json_bandwidth(cli_json_t *j, const cli_run_t *run, uint32_t size,
                              const uint64_t *wall_ns, size_t nwall)
{
    cli_sweep_bw_t bw;
    if (cli_sweep_run_bandwidth(run, size, wall_ns, nwall, &bw) !=
        0) { /* not measured: null, never 0 */
        cli_json_null(j, "bw_node_mb_s");
        cli_json_null(j, "bw_total_mb_s");
        return;
    }
    cli_json_double(j, "bw_node_mb_s", bw.node_mb_s);
    cli_json_double(j, "bw_total_mb_s", bw.total_mb_s);
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

/* How the nodes were started: the JSON's nodes_mode. */
static const char *nodes_mode(const sn_coord_opts_t *o)
{
    return o->join ? "join" : o->hosts ? "ssh" : o->daemons ? "daemons" : "local";
}

/* The mean and median of a series of times in microseconds, as two CSV fields followed by `end`
 * (both empty when the series is). */
static void csv_series(FILE *f, const uint64_t *ns, size_t n, char end)
{
    cli_sweep_stats_t st;
    cli_sweep_stats(ns, n, &st);
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

void cli_sweep_csv_header(FILE *f)
{
    fputs(CLI_SWEEP_CSV_HEADER "\n", f);
}

double cli_sweep_point_predicted_us(const sn_coord_result_t *res, const sn_coord_point_t *pt)
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

void cli_sweep_csv_row(FILE *f, const cli_run_t *run, const sn_coord_result_t *res,
                       const sn_coord_point_t *pt)
{
    const cli_ctx_t *c = run->ctx;
    cli_sweep_stats_t s;
    cli_sweep_stats(pt->wall_ns, pt->nwall, &s);
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
    double pred = cli_sweep_point_predicted_us(res, pt);
    if (pred >= 0)
        fprintf(f, "%.3f", pred);
    fprintf(f, ",%d,", done);
    /* the collective's span and each node's own time, averaged over the nodes (OSU's Avg
     * Latency); empty when not measured */
    csv_series(f, pt->coll_ns, pt->ncoll, ',');
    csv_series(f, pt->node_ns, pt->nnode, ',');
    cli_sweep_bw_t bw;
    if (cli_sweep_run_bandwidth(run, pt->size, pt->wall_ns, pt->nwall, &bw) == 0)
        fprintf(f, "%.6g,%.6g,", bw.node_mb_s, bw.total_mb_s);
    else
        fputs(",,", f);
    /* what was run, the same on every row */
    const sn_coord_opts_t *o = &run->coord;
    char launch[96], when[32];
    fprintf(f, "%s,", nodes_mode(o));
    csv_str(f, cli_caveat_launch_text(o, res, c->topo->n, launch, sizeof launch));
    fprintf(f, ",%s,%u,", o->security == SN_SEC_SODIUM ? "sodium" : "none", o->warmup);
    csv_str(f, SN_VERSION);
    fprintf(f, ",%s\n", utc_text(res, when, sizeof when));
}

/* ---- JSON fields of run and bench ------------------------------------------------------------ */

void cli_sweep_json_meta(cli_json_t *j, const sn_coord_result_t *res)
{
    char when[32];
    cli_json_int(j, "schema", CLI_SWEEP_JSON_SCHEMA);
    cli_json_str(j, "stepnet_version", SN_VERSION);
    cli_json_str(j, "timestamp", utc_text(res, when, sizeof when));
}

void cli_sweep_json_series(cli_json_t *j, const char *key, const uint64_t *ns, size_t n,
                           int with_avg)
{
    char name[64];
    cli_json_open(j, key, '[');
    for (size_t i = 0; i < n; i++)
        cli_json_double(j, NULL, (double) ns[i] / NS_PER_US);
    cli_json_close(j, ']');
    cli_sweep_stats_t st;
    cli_sweep_stats(ns, n, &st);
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

void cli_sweep_json_stats(cli_json_t *j, const cli_sweep_stats_t *s)
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

void cli_sweep_json_calibration(cli_json_t *j, const sn_coord_result_t *res)
{
    if (res->ncalibrated == 0) { /* --probes 0, or the run failed before calibrating */
        cli_json_null(j, "alpha_us");
        cli_json_null(j, "beta_us_per_byte");
        return;
    }
    cli_json_double(j, "alpha_us", res->alpha_us);
    cli_json_double(j, "beta_us_per_byte", res->beta_us);
}

void cli_sweep_json_security(cli_json_t *j, const sn_coord_opts_t *o, const sn_coord_result_t *res)
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

void cli_sweep_json_cpu(cli_json_t *j, const sn_coord_opts_t *o)
{
    cli_json_uint(j, "spin_us", o->spin_us);
    cli_json_uint(j, "coord_nice", o->coord_nice);
}

void cli_sweep_json_termination(cli_json_t *j, const sn_coord_opts_t *o, uint64_t quiet_slot)
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

void cli_sweep_security_text(const sn_coord_opts_t *o, const sn_coord_result_t *res, char *buf,
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

void cli_sweep_json_hosts_links(cli_json_t *j, const sn_coord_result_t *res)
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

/* ---- the report of stepnet bench --------------------------------------------------------------
 */

/* The point that failed, if any. */
static const sn_coord_point_t *failed_point(const sn_coord_result_t *res)
{
    for (size_t k = 0; k < res->npoints; k++)
        if (res->points[k].state == SN_COORD_POINT_FAILED)
            return &res->points[k];
    return NULL;
}

void cli_sweep_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const cli_ctx_t *c = run->ctx;
    const sn_params_t *p = &c->params;
    fprintf(
        f, "# stepnet bench: %s on %s (%u nodes, %u links), algorithm %s, ports %s%s, %s duplex\n",
        sn_coll_name(p->coll), c->topo->spec, c->topo->n, c->topo->nedges, c->algo->name,
        cli_ports_name(p),
        p->pm.ports == SN_PORTS_SINGLE ? (p->pm.rx == SN_RX_ANY ? " (rx any)" : " (rx one)") : "",
        cli_duplex_name(p));
    char sec[96];
    cli_sweep_security_text(o, res, sec, sizeof sec);
    char launch[96];
    fprintf(f, "# %s, %u iterations after %u warm-up per size, security %s",
            cli_caveat_launch_text(o, res, c->topo->n, launch, sizeof launch), o->reps, o->warmup,
            sec);
    if (res->ncalibrated)
        fprintf(f, "; links alpha %.2f us, beta %.6f us/byte (median of %zu, probes of %u bytes)\n",
                res->alpha_us, res->beta_us, res->ncalibrated, res->probe_bytes);
    else
        fprintf(f, "; links not calibrated (--probes 0)\n");
    fprintf(f, "# %-10s %12s %12s %12s %12s %12s %11s %8s %14s %13s %13s %14s %14s\n", "Size",
            "Avg(us)", "Min(us)", "Max(us)", "P50(us)", "P99(us)", "Iterations", "Steps",
            "Predicted(us)", "CollAvg(us)", "NodeAvg(us)", "BwNode(MB/s)", "BwTotal(MB/s)");
    for (size_t k = 0; k < res->npoints; k++) {
        const sn_coord_point_t *pt = &res->points[k];
        if (pt->state != SN_COORD_POINT_DONE)
            continue;
        cli_sweep_stats_t s;
        cli_sweep_stats(pt->wall_ns, pt->nwall, &s);
        double pred = cli_sweep_point_predicted_us(res, pt);
        fprintf(f, "  %-10u %12.2f %12.2f %12.2f %12.2f %12.2f %11zu %8llu ", pt->size, s.avg,
                s.min, s.max, s.p50, s.p99, s.n, (unsigned long long) pt->steps);
        if (pred >= 0)
            fprintf(f, "%14.2f", pred);
        else
            fprintf(f, "%14s", "-");
        cli_sweep_stats_t cs;
        cli_sweep_stats(pt->coll_ns, pt->ncoll, &cs);
        if (cs.n)
            fprintf(f, " %13.2f", cs.avg);
        else
            fprintf(f, " %13s", "-");
        cli_sweep_stats_t ns;
        cli_sweep_stats(pt->node_ns, pt->nnode, &ns);
        if (ns.n)
            fprintf(f, " %13.2f", ns.avg);
        else
            fprintf(f, " %13s", "-");
        cli_sweep_bw_t bw;
        if (cli_sweep_run_bandwidth(run, pt->size, pt->wall_ns, pt->nwall, &bw) == 0)
            fprintf(f, " %14.3f %14.3f\n", bw.node_mb_s, bw.total_mb_s);
        else
            fprintf(f, " %14s %14s\n", "-", "-");
    }
    const sn_coord_point_t *bad_pt = failed_point(res);
    if (res->failed && bad_pt)
        fprintf(f, "# FAILED at size %u: %s\n", bad_pt->size, res->error);
    else if (res->failed)
        fprintf(f, "# FAILED: %s\n", res->error);
    cli_caveat_bench_text(f, res);
}

void cli_sweep_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const sn_coord_point_t *bad_pt = failed_point(res);
    for (size_t k = 0; k < res->npoints; k++) {
        const sn_coord_point_t *pt = &res->points[k];
        if (pt->state == SN_COORD_POINT_PENDING)
            continue;
        cli_ctx_t c = *run->ctx; /* the run's context at this size (nothing here is freed) */
        c.params.size = pt->size;
        int done = pt->state == SN_COORD_POINT_DONE;
        cli_sweep_stats_t s;
        cli_sweep_stats(pt->wall_ns, pt->nwall, &s);
        char hash[24];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long) pt->trace_hash);
        cli_json_t j;
        cli_json_begin(&j, f);
        cli_sweep_json_meta(&j, res);
        cli_report_json_head(&j, "bench", &c);
        if (pt->verified) { /* the size's last verified repetition (all verified when done) */
            cli_json_uint(&j, "steps", pt->steps);
            cli_json_uint(&j, "packets", pt->packets);
            cli_json_uint(&j, "deliveries", pt->deliveries);
            cli_json_str(&j, "trace_hash", hash);
        } else {
            cli_json_null(&j, "steps");
            cli_json_null(&j, "packets");
            cli_json_null(&j, "deliveries");
            cli_json_null(&j, "trace_hash");
        }
        cli_json_uint(&j, "expected_deliveries", sn_coll_expected_total(c.topo, &c.params));
        cli_json_bool(&j, "verified", done);
        cli_json_str(&j, "nodes_mode", nodes_mode(o));
        cli_json_uint(&j, "warmup", o->warmup);
        cli_sweep_json_stats(&j, &s);
        cli_json_open(&j, "wall_us", '[');
        for (size_t i = 0; i < pt->nwall; i++)
            cli_json_double(&j, NULL, (double) pt->wall_ns[i] / NS_PER_US);
        cli_json_close(&j, ']');
        /* the collective's own time (the span) and the nodes' own, as in run */
        cli_sweep_json_series(&j, "coll_us", pt->coll_ns, pt->ncoll, 1);
        cli_sweep_json_series(&j, "node_us", pt->node_ns, pt->nnode, 1);
        cli_json_str(&j, "clock", res->clock_offsets ? "offsets" : "one");
        cli_sweep_json_bandwidth(&j, run, pt->size, pt->wall_ns, pt->nwall);
        cli_sweep_json_calibration(&j, res);
        double pred = cli_sweep_point_predicted_us(res, pt);
        if (pred >= 0) {
            cli_json_double(&j, "predicted_us", pred);
            /* which prediction: the time model of the run's mode, or the links' estimate */
            cli_json_str(&j, "model", pt->has_model ? sn_sync_name(res->sync) : "links");
        } else {
            cli_json_null(&j, "predicted_us");
            cli_json_null(&j, "model");
        }
        if (pt->verified)
            cli_json_uint(&j, "bytes_checked", pt->bytes_checked);
        else
            cli_json_null(&j, "bytes_checked");
        cli_sweep_json_security(&j, o, res);
        cli_sweep_json_cpu(&j, o);
        cli_sweep_json_termination(&j, o, pt->quiet_slot);
        cli_sweep_json_hosts_links(&j, res);
        if (pt == bad_pt)
            cli_json_str(&j, "error", res->error);
        cli_json_end(&j);
    }
}
