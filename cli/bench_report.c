/* The report of `stepnet bench` (cli): the OSU-style table with its heading and warnings, or one
 * JSON object per line and size, from a sweep's options and result. Calls nothing but the
 * formatters and the records' fields (record.c); the fields are documented in docs/output.md. */
#include <math.h>
#include <stdio.h>

#include "cli/caveat.h"
#include "cli/record.h"
#include "cli/report.h"
#include "cli/run.h"
#include "cli/stats.h"

#define NS_PER_US 1000.0

/* The point that failed, if any. */
static const sn_coord_point_t *failed_point(const sn_coord_result_t *res)
{
    for (size_t k = 0; k < res->npoints; k++)
        if (res->points[k].state == SN_COORD_POINT_FAILED)
            return &res->points[k];
    return NULL;
}

/* The warnings of a bench sweep, after its table: the size whose measured p50 / predicted is
 * farthest from 1 among those outside the band, how many are, and the load. */
static void print_warnings(FILE *f, const sn_coord_result_t *res)
{
    double load1;
    long cores;
    cli_caveat_machine(&load1, &cores);
    size_t outside = 0, measured = 0;
    double worst = 1.0;
    uint32_t worst_size = 0;
    for (size_t k = 0; k < res->npoints; k++) {
        const sn_coord_point_t *pt = &res->points[k];
        if (pt->state != SN_COORD_POINT_DONE)
            continue;
        cli_stats_t s;
        cli_stats_compute(pt->wall_ns, pt->nwall, &s);
        double pred = cli_record_point_predicted_us(res, pt);
        if (s.n == 0 || pred <= 0)
            continue;
        measured++;
        double ratio = s.p50 / pred;
        if (!(cli_caveat_decide(s.p50, pred, -1.0, 0) & CLI_CAVEAT_FAR))
            continue;
        outside++;
        if (fabs(log(ratio)) > fabs(log(worst))) {
            worst = ratio;
            worst_size = pt->size;
        }
    }
    int bits = cli_caveat_decide(0, 0, load1, cores) | (outside ? CLI_CAVEAT_FAR : 0);
    char where[96];
    snprintf(where, sizeof where, "p50 at %u bytes; %zu of %zu sizes outside", worst_size, outside,
             measured);
    cli_caveat_text(f, "# warning: ", bits, worst, where, load1, cores);
}

void cli_bench_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
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
    cli_record_security_text(o, res, sec, sizeof sec);
    char launch[96];
    fprintf(f, "# %s, %u iterations after %u warm-up per size, security %s",
            cli_caveat_launch_text(o, res, c->topo->n, launch, sizeof launch), o->reps, o->warmup,
            sec);
    if (res->ncalibrated)
        fprintf(f, "; links alpha %.2f us, beta %.6f us/byte (median of %zu, probes of %u bytes)\n",
                res->alpha_us, res->beta_us, res->ncalibrated, res->probe_bytes);
    else
        fprintf(f, "; links not calibrated (--probes 0)\n");
    fprintf(f, "# %-10s %12s %12s %12s %12s %12s %11s %8s %14s %13s %13s %14s %14s %14s\n", "Size",
            "Avg(us)", "Min(us)", "Max(us)", "P50(us)", "P99(us)", "Iterations", "Steps",
            "Predicted(us)", "CollAvg(us)", "NodeAvg(us)", "BwNode(MB/s)", "BwTotal(MB/s)",
            "BusBw(MB/s)");
    for (size_t k = 0; k < res->npoints; k++) {
        const sn_coord_point_t *pt = &res->points[k];
        if (pt->state != SN_COORD_POINT_DONE)
            continue;
        cli_stats_t s;
        cli_stats_compute(pt->wall_ns, pt->nwall, &s);
        double pred = cli_record_point_predicted_us(res, pt);
        fprintf(f, "  %-10u %12.2f %12.2f %12.2f %12.2f %12.2f %11zu %8llu ", pt->size, s.avg,
                s.min, s.max, s.p50, s.p99, s.n, (unsigned long long) pt->steps);
        if (pred >= 0)
            fprintf(f, "%14.2f", pred);
        else
            fprintf(f, "%14s", "-");
        cli_stats_t cs;
        cli_stats_compute(pt->coll_ns, pt->ncoll, &cs);
        if (cs.n)
            fprintf(f, " %13.2f", cs.avg);
        else
            fprintf(f, " %13s", "-");
        cli_stats_t ns;
        cli_stats_compute(pt->node_ns, pt->nnode, &ns);
        if (ns.n)
            fprintf(f, " %13.2f", ns.avg);
        else
            fprintf(f, " %13s", "-");
        cli_stats_bw_t bw;
        if (cli_record_bandwidth(run, pt->size, pt->wall_ns, pt->nwall, &bw) != 0)
            fprintf(f, " %14s %14s %14s\n", "-", "-", "-");
        else if (bw.bus_mb_s < 0)
            fprintf(f, " %14.3f %14.3f %14s\n", bw.node_mb_s, bw.total_mb_s, "-");
        else
            fprintf(f, " %14.3f %14.3f %14.3f\n", bw.node_mb_s, bw.total_mb_s, bw.bus_mb_s);
    }
    const sn_coord_point_t *bad_pt = failed_point(res);
    if (res->failed && bad_pt)
        fprintf(f, "# FAILED at size %u: %s\n", bad_pt->size, res->error);
    else if (res->failed)
        fprintf(f, "# FAILED: %s\n", res->error);
    print_warnings(f, res);
}

void cli_bench_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
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
        cli_stats_t s;
        cli_stats_compute(pt->wall_ns, pt->nwall, &s);
        char hash[24];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long) pt->trace_hash);
        cli_json_t j;
        cli_json_begin(&j, f);
        cli_record_json_meta(&j, res);
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
        cli_json_str(&j, "nodes_mode", cli_record_nodes_mode(o));
        cli_json_uint(&j, "warmup", o->warmup);
        cli_record_json_stats(&j, &s);
        cli_json_open(&j, "wall_us", '[');
        for (size_t i = 0; i < pt->nwall; i++)
            cli_json_double(&j, NULL, (double) pt->wall_ns[i] / NS_PER_US);
        cli_json_close(&j, ']');
        /* the collective's own time (the span) and the nodes' own, as in run */
        cli_record_json_series(&j, "coll_us", pt->coll_ns, pt->ncoll, 1);
        cli_record_json_series(&j, "node_us", pt->node_ns, pt->nnode, 1);
        cli_json_str(&j, "clock", res->clock_offsets ? "offsets" : "one");
        cli_record_json_bandwidth(&j, run, pt->size, pt->wall_ns, pt->nwall);
        cli_record_json_calibration(&j, res);
        double pred = cli_record_point_predicted_us(res, pt);
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
        cli_record_json_security(&j, o, res);
        cli_record_json_cpu(&j, o);
        cli_record_json_termination(&j, o, pt->quiet_slot);
        cli_record_json_hosts_links(&j, res);
        if (pt == bad_pt)
            cli_json_str(&j, "error", res->error);
        cli_json_end(&j);
    }
}
