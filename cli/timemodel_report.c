/* The time model's terms in the reports of `stepnet run` (cli): the key "time_model" of the JSON
 * report and the text report's lines (the slot model, the dataflow model, the calibration of the
 * empty slot and whether it was disturbed). The engine computes them (coordinator/timemodel.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/run.h"

/* The reasons of a disturbed calibration, comma-separated, into buf. */
static const char *reasons_text(unsigned bits, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (unsigned k = 0; k < SN_COORD_CALIB_NREASONS; k++)
        if (bits & (1u << k)) {
            size_t len = strlen(buf);
            snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                     sn_coord_calib_reason_name(1u << k));
        }
    return buf;
}

/* The calibration of the empty slot in the JSON report (inside "time_model"). */
static void calib_json(cli_json_t *j, const sn_coord_calib_t *c)
{
    if (c->slot_us > 0) {
        cli_json_double(j, "calib_slot_us", c->slot_us);
        cli_json_double(j, "calib_slot_us_p10", c->p10_us);
        cli_json_double(j, "calib_slot_us_p50", c->p50_us);
        cli_json_double(j, "calib_slot_us_p90", c->p90_us);
    } else {
        cli_json_null(j, "calib_slot_us");
        cli_json_null(j, "calib_slot_us_p10");
        cli_json_null(j, "calib_slot_us_p50");
        cli_json_null(j, "calib_slot_us_p90");
    }
    if (c->nstartup)
        cli_json_double(j, "calib_slot_startup_us", c->startup_us);
    else
        cli_json_null(j, "calib_slot_startup_us");
    if (c->nreps)
        cli_json_double(j, "calib_slot_reps_us", c->reps_us);
    else
        cli_json_null(j, "calib_slot_reps_us");
    cli_json_uint(j, "calib_slot_samples", (uint64_t) c->nstartup + c->nreps);
    cli_json_bool(j, "calib_disturbed", c->disturbed != 0);
    cli_json_open(j, "calib_disturbed_reasons", '[');
    for (unsigned k = 0; k < SN_COORD_CALIB_NREASONS; k++)
        if (c->disturbed & (1u << k))
            cli_json_str(j, NULL, sn_coord_calib_reason_name(1u << k));
    cli_json_close(j, ']');
    if (c->load_avg >= 0)
        cli_json_double(j, "calib_load_avg", c->load_avg);
    else
        cli_json_null(j, "calib_load_avg");
}

void cli_model_report_json(cli_json_t *j, const cli_run_t *run, const sn_coord_result_t *res)
{
    if (!res->has_model) {
        cli_json_null(j, "time_model");
        return;
    }
    const sn_tm_result_t *m = &res->model;
    cli_json_open(j, "time_model", '{');
    cli_json_double(j, "predicted_us", m->predicted_us);
    cli_json_double(j, "simple_us",
                    (double) res->steps * (res->alpha_us + run->ctx->params.size * res->beta_us));
    cli_json_double(j, "slots_us", m->slots_us);
    cli_json_double(j, "ctl_us", m->ctl_us);
    cli_json_double(j, "floor_us", m->floor_us);
    if (m->floor_node == UINT32_MAX)
        cli_json_null(j, "floor_node"); /* the measured empty slot */
    else
        cli_json_uint(j, "floor_node", m->floor_node);
    if (res->empty_slot_us > 0)
        cli_json_double(j, "empty_slot_us", res->empty_slot_us);
    else
        cli_json_null(j, "empty_slot_us");
    cli_json_uint(j, "slots", m->slots);
    cli_json_uint(j, "floor_slots", m->floor_slots);
    cli_json_uint(j, "link_slots", m->link_slots);
    cli_json_uint(j, "nic_slots", m->nic_slots);
    cli_json_double(j, "max_slot_us", m->max_slot_us);
    cli_json_uint(j, "max_slot", m->max_slot);
    cli_json_uint(j, "max_slot_node", m->max_slot_node);
    const sn_cp_result_t *d = &res->dataflow;
    cli_json_double(j, "dataflow_path_us", d->path_us);
    cli_json_double(j, "dataflow_barrier_us", d->barrier_us);
    cli_json_double(j, "dataflow_cpu_us", d->cpu_us);
    cli_json_double(j, "dataflow_frame_us", d->frame_us);
    if (d->last_node == UINT32_MAX) {
        cli_json_null(j, "dataflow_last_node");
        cli_json_null(j, "dataflow_last_slot");
    } else {
        cli_json_uint(j, "dataflow_last_node", d->last_node);
        cli_json_uint(j, "dataflow_last_slot", d->last_slot);
    }
    calib_json(j, &res->calib);
    double med = sn_coord_result_median_us(res), pred = sn_coord_result_model_us(res);
    cli_json_str(j, "model", sn_sync_name(res->sync));
    if (med > 0 && pred > 0)
        cli_json_double(j, "measured_over_predicted", med / pred);
    else
        cli_json_null(j, "measured_over_predicted");
    cli_json_close(j, '}');
}

void cli_model_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    (void) run;
    if (!res->has_model)
        return;
    const sn_tm_result_t *m = &res->model;
    char by[48]; /* the floor is the measured empty slot, or (not measured) a node's */
    if (m->floor_node == UINT32_MAX)
        snprintf(by, sizeof by, "the measured empty slot");
    else
        snprintf(by, sizeof by, "set by node %u", m->floor_node);
    fprintf(f,
            "  time model      %.1f us = control legs %.1f + %llu slots %.1f (floor %.1f us, %s; "
            "slots at the floor %llu, set by a link %llu, by a NIC %llu)\n",
            m->predicted_us, m->ctl_us, (unsigned long long) m->slots, m->slots_us, m->floor_us, by,
            (unsigned long long) m->floor_slots, (unsigned long long) m->link_slots,
            (unsigned long long) m->nic_slots);
    const sn_cp_result_t *d = &res->dataflow;
    fprintf(f,
            "  dataflow model  %.1f us = control legs %.1f + in-band barrier %.1f + critical path "
            "%.1f without the slot barrier + the frames' work %.1f (%llu frames x %.2f us)",
            d->predicted_us, d->ctl_us, d->barrier_us, d->path_us, d->cpu_us,
            (unsigned long long) d->transmissions, d->frame_us);
    if (d->last_node != UINT32_MAX)
        fprintf(f, " (its last frame reaches node %u, logical slot %llu)", d->last_node,
                (unsigned long long) d->last_slot);
    fprintf(f, "\n  predicted by    the %s model (this run's --sync %s)\n",
            sn_sync_lockstep(res->sync) ? "time" : "dataflow", sn_sync_name(res->sync));
    const sn_coord_calib_t *c = &res->calib;
    if (c->slot_us <= 0)
        return;
    char why[96];
    fprintf(f,
            "  calibration     empty slot %.1f us (medians: %u start-up sample%s %.1f, %u "
            "repetition barrier%s %.1f; p10 %.1f, p50 %.1f, p90 %.1f): %s%s%s\n",
            c->slot_us, c->nstartup, c->nstartup == 1 ? "" : "s", c->startup_us, c->nreps,
            c->nreps == 1 ? "" : "s", c->reps_us, c->p10_us, c->p50_us, c->p90_us,
            c->disturbed ? "DISTURBED (" : "quiet",
            c->disturbed ? reasons_text(c->disturbed, why, sizeof why) : "",
            c->disturbed ? "; docs/model.md, \"A calibration a transient cannot spoil\")" : "");
}
