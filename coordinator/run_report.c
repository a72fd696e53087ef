/* The report of `stepnet run` (coordinator): one JSON object or the human-readable lines, from a
 * run's options and result. Calls nothing but the formatters: no network, no clocks. */
#include <stdio.h>

#include "coord.h"
#include "json.h"
#include "report.h"
#include "secure.h"
#include "stepnet/sim.h"

/* From this size on, probes of 0 and `size` bytes resolve beta; below it their difference is
 * noise. */
#define BETA_RESOLVED_BYTES 4096
#define NS_PER_US           1000.0

static double predicted_us(const coord_opts_t *o, const coord_result_t *res)
{
    return (double) res->steps * (res->alpha_us + o->ctx->params.size * res->beta_us);
}

/* The calibration line. Probes of 0 and `size` bytes give alpha + size * beta, the one-way time
 * of a hop at the run's size, exactly; but below a few KiB the difference between the two probes
 * is noise, so beta alone is not shown there (the JSON report still carries the fitted value). */
static void print_links(FILE *f, const coord_opts_t *o, const coord_result_t *res)
{
    uint32_t size = o->ctx->params.size;
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

void coord_report_json(FILE *f, const coord_opts_t *o, const coord_result_t *res)
{
    const cli_ctx_t *c = o->ctx;
    double median_us = coord_result_median_us(res);
    json_t j;
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long) res->trace_hash);
    json_begin(&j, f);
    report_json_head(&j, "run", c);
    json_uint(&j, "steps", res->steps);
    json_uint(&j, "control_slots", res->control_slots);
    json_uint(&j, "data_slots", res->steps - res->control_slots);
    json_double(&j, "time_units", cli_time_units(c, res->steps, res->control_slots));
    json_uint(&j, "packets", res->packets);
    json_uint(&j, "control_packets", res->control_packets);
    json_uint(&j, "deliveries", res->deliveries);
    json_uint(&j, "expected_deliveries", sn_coll_expected_total(c->topo, &c->params));
    json_bool(&j, "verified", !res->failed);
    json_str(&j, "trace_hash", hash);
    char qnode[SN_TOPO_MAX_LABEL];
    if (res->max_queue_reported) {
        json_uint(&j, "max_queue", res->max_queue);
        json_str(&j, "max_queue_node",
                 sn_topo_label(c->topo, res->max_queue_node, qnode, sizeof qnode));
    } else { /* not measured: the algorithm does not report its queues */
        json_null(&j, "max_queue");
        json_null(&j, "max_queue_node");
    }
    json_str(&j, "nodes_mode", o->join ? "join" : o->daemons ? "daemons" : "local");
    json_uint(&j, "reps", o->reps);
    json_uint(&j, "warmup", o->warmup);
    json_open(&j, "wall_us", '[');
    for (size_t i = 0; i < res->nwall; i++)
        json_double(&j, NULL, (double) res->wall_ns[i] / NS_PER_US);
    json_close(&j, ']');
    json_double(&j, "wall_us_median", median_us);
    json_double(&j, "us_per_step", res->steps ? median_us / (double) res->steps : 0.0);
    json_double(&j, "alpha_us", res->alpha_us);
    json_double(&j, "beta_us_per_byte", res->beta_us);
    json_double(&j, "predicted_us", predicted_us(o, res));
    json_uint(&j, "bytes_checked", res->bytes_checked);
    if (o->idle_slots) {
        json_uint(&j, "idle_slots", o->idle_slots);
        json_double(&j, "us_per_slot", median_us / (double) o->idle_slots);
    }
    json_str(&j, "security", o->security == SN_SEC_SODIUM ? "sodium" : "none");
    if (res->failed)
        json_str(&j, "error", res->error);
    json_end(&j);
}

void coord_report_text(FILE *f, const coord_opts_t *o, const coord_result_t *res)
{
    const cli_ctx_t *c = o->ctx;
    double median_us = coord_result_median_us(res);
    report_text_head(f, "run", c);
    fprintf(f, "  nodes           %u %s processes, %u TCP links, security %s\n", c->topo->n,
            o->join      ? "joined"
            : o->daemons ? "daemon"
                         : "local",
            c->topo->nedges,
            o->security == SN_SEC_SODIUM ? "sodium (X25519 + XChaCha20-Poly1305)"
                                         : "none (plaintext)");
    if (res->failed) {
        fprintf(f, "  FAILED          %s\n", res->error);
        return;
    }
    if (o->idle_slots) {
        fprintf(f, "  idle barrier    %llu slots: %.1f us median of %zu, %.2f us per slot\n",
                (unsigned long long) o->idle_slots, median_us, res->nwall,
                median_us / (double) o->idle_slots);
        print_links(f, o, res);
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
    print_links(f, o, res);
    fprintf(f, "  wall time       %.1f us median of %zu (%.2f us per step); predicted %.1f us\n",
            median_us, res->nwall, res->steps ? median_us / (double) res->steps : 0.0,
            predicted_us(o, res));
}
