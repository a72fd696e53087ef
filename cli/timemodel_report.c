/* The time model's terms in the reports of `stepnet run` (cli): the key "time_model" of the JSON
 * report and the text report's line. The engine computes the model (coordinator/timemodel.c). */
#include <stdint.h>
#include <stdio.h>

#include "run.h"

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
    double med = sn_coord_result_median_us(res);
    if (med > 0 && m->predicted_us > 0)
        cli_json_double(j, "measured_over_predicted", med / m->predicted_us);
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
}
