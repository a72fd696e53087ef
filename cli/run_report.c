/* The report of `stepnet run` (cli): one JSON object or the human-readable lines, from a
 * run's options and result. Calls nothing but the formatters: no network, no clocks. */
#include <stdio.h>

#include "cli/caveat.h"
#include "cli/record.h"
#include "cli/report.h"
#include "cli/run.h"
#include "cli/stats.h"
#include "net/secure.h"
#include "stepnet/sim.h"

/* From this size on, probes of 0 and `size` bytes resolve beta; below it their difference is
 * noise. */
#define BETA_RESOLVED_BYTES 4096
#define NS_PER_US           1000.0

/* The time model's prediction in the run's execution mode (coordinator/timemodel.c); without
 * one (no calibration), the simple steps x (alpha + size x beta) of the median link. */
static double predicted_us(const cli_run_t *run, const sn_coord_result_t *res)
{
    if (res->has_model)
        return sn_coord_result_model_us(res);
    return (double) res->steps * (res->alpha_us + run->ctx->params.size * res->beta_us);
}

/* 1 when the run has a prediction: the time model, or at least the calibrated links (without
 * either, steps x (alpha + size x beta) would be a made-up 0). */
static int has_prediction(const sn_coord_result_t *res)
{
    return res->has_model || res->ncalibrated > 0;
}

/* The calibration line. Probes of 0 and `size` bytes give alpha + size * beta, the one-way time
 * of a hop at the run's size, exactly; but below a few KiB the difference between the two probes
 * is noise, so beta alone is not shown there (the JSON report still carries the fitted value). */
static void print_links(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    uint32_t size = run->ctx->params.size;
    if (res->ncalibrated == 0) {
        fprintf(f, "  links           not calibrated (--probes 0)\n");
        return;
    }
    if (size >= BETA_RESOLVED_BYTES)
        fprintf(f, "  links           alpha %.2f us, beta %.6f us/byte (median of %zu links)\n",
                res->alpha_us, res->beta_us, res->ncalibrated);
    else
        fprintf(f,
                "  links           %.2f us per hop at %u bytes (median of %zu links; beta is not "
                "resolved by %u-byte probes)\n",
                res->alpha_us + size * res->beta_us, size, res->ncalibrated, size);
}

/* The collective's own time next to the wall time, and the clock it is read on. */
static void print_coll(FILE *f, const sn_coord_result_t *res)
{
    if (res->ncoll == 0)
        return;
    fprintf(f,
            "  collective time %.1f us median of %zu (latest completion - earliest start at the "
            "nodes",
            sn_coord_result_coll_median_us(res), res->ncoll);
    if (res->barrier_slots)
        fprintf(f, ", after a %llu-slot in-band barrier", (unsigned long long) res->barrier_slots);
    if (res->clock_offsets)
        fprintf(f, "; clock offsets estimated within %.1f us)\n",
                (double) res->clock_uncertainty_ns / NS_PER_US);
    else
        fprintf(f, "; one clock)\n");
    fprintf(f,
            "  per-node time   %.1f us median of %zu (each node's completion - start on its own "
            "clock, averaged over the nodes: OSU's Avg Latency)\n",
            sn_coord_result_node_median_us(res), res->nnode);
}

/* 1 when the run's counters (steps, packets, trace_hash, ...) were measured: it verified, or
 * it failed after some repetition (a warm-up one included) verified; they are then that
 * repetition's. An `--idle-slots` run counts nothing and reports its zeros only when it verified.
 */
static int counted(const sn_coord_result_t *res)
{
    return !res->failed || (res->npoints > 0 && res->points[res->npoints - 1].verified > 0);
}

/* A counter: its value when measured, else null (docs/output.md: never 0). */
static void json_count(cli_json_t *j, const char *key, int measured, uint64_t value)
{
    if (measured)
        cli_json_uint(j, key, value);
    else
        cli_json_null(j, key);
}

void cli_run_report_json(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const cli_ctx_t *c = run->ctx;
    double median_us = sn_coord_result_median_us(res);
    int cnt = counted(res);
    cli_json_t j;
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long) res->trace_hash);
    cli_json_begin(&j, f);
    cli_record_json_meta(&j, res);
    cli_report_json_head(&j, "run", c);
    json_count(&j, "steps", cnt, res->steps);
    json_count(&j, "control_slots", cnt, res->control_slots);
    json_count(&j, "data_slots", cnt, res->steps - res->control_slots);
    if (cnt)
        cli_json_double(&j, "time_units", cli_time_units(c, res->steps, res->control_slots));
    else
        cli_json_null(&j, "time_units");
    json_count(&j, "packets", cnt, res->packets);
    json_count(&j, "control_packets", cnt, res->control_packets);
    json_count(&j, "deliveries", cnt, res->deliveries);
    cli_json_uint(&j, "expected_deliveries", sn_coll_expected_total(c->topo, &c->params));
    cli_json_bool(&j, "verified", !res->failed);
    cli_json_str(&j, "trace_hash", cnt ? hash : NULL);
    char qnode[SN_TOPO_MAX_LABEL];
    if (cnt && res->max_queue_reported) {
        cli_json_uint(&j, "max_queue", res->max_queue);
        cli_json_str(&j, "max_queue_node",
                     sn_topo_label(c->topo, res->max_queue_node, qnode, sizeof qnode));
    } else { /* not measured: the algorithm does not report its queues, or nothing verified */
        cli_json_null(&j, "max_queue");
        cli_json_null(&j, "max_queue_node");
    }
    cli_json_str(&j, "nodes_mode", cli_record_nodes_mode(o));
    cli_json_uint(&j, "reps", o->reps);
    cli_json_uint(&j, "warmup", o->warmup);
    cli_json_open(&j, "wall_us", '[');
    for (size_t i = 0; i < res->nwall; i++)
        cli_json_double(&j, NULL, (double) res->wall_ns[i] / NS_PER_US);
    cli_json_close(&j, ']');
    if (res->nwall) /* the statistics are null, never 0, when no repetition was measured */
        cli_json_double(&j, "wall_us_median", median_us);
    else
        cli_json_null(&j, "wall_us_median");
    cli_stats_t st;
    cli_stats_compute(res->wall_ns, res->nwall, &st);
    cli_record_json_stats(&j, &st);
    cli_record_json_bandwidth(&j, run, c->params.size, res->wall_ns, res->nwall);
    /* the collective's own time, OSU-style (timing.h), on one clock or with estimated offsets */
    cli_record_json_series(&j, "coll_us", res->coll_ns, res->ncoll, 0);
    /* each node's own time, averaged over the nodes: OSU's "Avg Latency" (timing.h) */
    cli_record_json_series(&j, "node_us", res->node_ns, res->nnode, 0);
    cli_json_str(&j, "clock", res->clock_offsets ? "offsets" : "one");
    cli_json_double(&j, "clock_uncertainty_us", (double) res->clock_uncertainty_ns / NS_PER_US);
    /* set when the repetitions begin (at least 1; 0 for an idle barrier run) */
    json_count(&j, "barrier_slots", res->barrier_slots || o->idle_slots, res->barrier_slots);
    cli_record_json_termination(&j, o, res->npoints ? res->points[res->npoints - 1].quiet_slot : 0);
    if (cnt && res->nwall)
        cli_json_double(&j, "us_per_step", res->steps ? median_us / (double) res->steps : 0.0);
    else
        cli_json_null(&j, "us_per_step");
    cli_record_json_calibration(&j, res);
    if (res->failed || !has_prediction(res)) /* a run that did not end, or nothing to predict by */
        cli_json_null(&j, "predicted_us");
    else
        cli_json_double(&j, "predicted_us", predicted_us(run, res));
    /* what the schedule would take without the slot barrier (core/model/critical_path.c) */
    if (res->failed || !res->has_model)
        cli_json_null(&j, "predicted_dataflow_us");
    else
        cli_json_double(&j, "predicted_dataflow_us", res->dataflow.predicted_us);
    json_count(&j, "bytes_checked", cnt, res->bytes_checked);
    if (o->idle_slots) {
        cli_json_uint(&j, "idle_slots", o->idle_slots);
        if (res->nwall)
            cli_json_double(&j, "us_per_slot", median_us / (double) o->idle_slots);
        else
            cli_json_null(&j, "us_per_slot");
    }
    cli_record_json_security(&j, o, res);
    cli_record_json_cpu(&j, o);
    cli_record_json_hosts_links(&j, res);
    cli_emu_report_json(&j, run, res);
    cli_model_report_json(&j, run, res);
    if (res->failed)
        cli_json_str(&j, "error", res->error);
    cli_json_end(&j);
}

void cli_run_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const cli_ctx_t *c = run->ctx;
    double median_us = sn_coord_result_median_us(res);
    cli_report_text_head(f, "run", c);
    char sec[96];
    cli_record_security_text(o, res, sec, sizeof sec);
    char launch[96];
    fprintf(f,
            "  nodes           %s, %u TCP links, security %s, sync %s, spin %u us, coordinator "
            "nice +%u\n",
            cli_caveat_launch_text(o, res, c->topo->n, launch, sizeof launch), c->topo->nedges, sec,
            sn_sync_name(o->sync), o->spin_us, o->coord_nice);
    if (res->failed) {
        fprintf(f, "  FAILED          %s\n", res->error);
        return;
    }
    if (o->idle_slots) {
        cli_stats_t st;
        cli_stats_compute(res->wall_ns, res->nwall, &st);
        fprintf(f,
                "  idle barrier    %llu slots: avg %.1f us, min %.1f, max %.1f, p50 %.1f, p99 %.1f "
                "over %zu iterations; %.2f us per slot at p50\n",
                (unsigned long long) o->idle_slots, st.avg, st.min, st.max, st.p50, st.p99, st.n,
                median_us / (double) o->idle_slots);
        print_coll(f, res);
        print_links(f, run, res);
        cli_emu_report_text(f, run, res);
        cli_model_report_text(f, run, res);
        return;
    }
    fprintf(f, "  steps           %llu%s\n", (unsigned long long) res->steps,
            c->predicted < 0                       ? ""
            : (int64_t) res->steps == c->predicted ? "  (= predicted)"
                                                   : "  (DIFFERS from predicted)");
    fprintf(f,
            "  deliveries      %llu of %llu, verified (%llu payload bytes checked at every hop)\n",
            (unsigned long long) res->deliveries,
            (unsigned long long) sn_coll_expected_total(c->topo, &c->params),
            (unsigned long long) res->bytes_checked);
    if (res->control_slots || c->params.frags > 1)
        fprintf(f,
                "  time            %.6g time units (%llu data slots / %u + %llu control slots "
                "x tp %g)\n",
                cli_time_units(c, res->steps, res->control_slots),
                (unsigned long long) (res->steps - res->control_slots), c->params.frags,
                (unsigned long long) res->control_slots, c->tp);
    fprintf(f, "  trace_hash      %016llx\n", (unsigned long long) res->trace_hash);
    char qnode[SN_TOPO_MAX_LABEL];
    if (res->max_queue_reported)
        fprintf(f, "  max_queue       %llu packets waiting at node %s\n",
                (unsigned long long) res->max_queue,
                sn_topo_label(c->topo, res->max_queue_node, qnode, sizeof qnode));
    else
        fprintf(f, "  max_queue       not reported by %s\n", c->algo->name);
    print_links(f, run, res);
    cli_emu_report_text(f, run, res);
    cli_model_report_text(f, run, res);
    cli_stats_t st;
    cli_stats_compute(res->wall_ns, res->nwall, &st);
    fprintf(f,
            "  wall time       avg %.1f us, min %.1f, max %.1f, p50 %.1f, p99 %.1f over %zu "
            "iterations (%.2f us per step at p50)\n",
            st.avg, st.min, st.max, st.p50, st.p99, st.n,
            res->steps ? median_us / (double) res->steps : 0.0);
    cli_stats_bw_t bw;
    int bw_ok = cli_record_bandwidth(run, c->params.size, res->wall_ns, res->nwall, &bw) == 0;
    if (bw_ok)
        fprintf(
            f,
            "  bandwidth       %.3f MB/s per node, %.3f MB/s in all (%llu payload bytes "
            "delivered per repetition over the p50 wall time; 1 MB = 10^6 bytes)\n",
            bw.node_mb_s, bw.total_mb_s,
            (unsigned long long) (sn_coll_expected_total(c->topo, &c->params) * c->params.size));
    if (bw_ok && bw.bus_mb_s >= 0)
        fprintf(f,
                "  bus bandwidth   %.3f MB/s (nccl-tests' busbw over the p50 wall time, "
                "docs/output.md)\n",
                bw.bus_mb_s);
    if (has_prediction(res))
        fprintf(f, "  predicted time  %.1f us (the time model, docs/model.md)\n",
                predicted_us(run, res));
    else
        fprintf(f, "  predicted time  not computed (no calibration: --probes 0)\n");
    print_coll(f, res);
    double load1, pred = has_prediction(res) ? predicted_us(run, res) : -1.0;
    long cores;
    cli_caveat_machine(&load1, &cores);
    cli_caveat_text(f, "  warning         ", cli_caveat_decide(st.p50, pred, load1, cores),
                    pred > 0 ? st.p50 / pred : 0.0, "p50 wall time", load1, cores);
}
