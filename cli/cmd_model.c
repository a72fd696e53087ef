/* `stepnet model`: predicted steps, lower bounds and the algorithm auto would pick, running
 * nothing but auto's dry runs of small collectives (cli). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"

static const char usage_head[] =
    "usage: stepnet model --topo SPEC --coll C [options]\n"
    "\n"
    "Prints the predicted step count, the lower bounds and the chosen algorithm for a collective\n"
    "on a topology, without running it. With --algo auto (the default) it also lists every\n"
    "applicable algorithm with its prediction and its time units, (steps - control slots) /\n"
    "frags + control slots x tp. Auto picks the fewest steps or, when --tp is given, the fewest\n"
    "time units (ties by fewer steps); when no applicable algorithm predicts, it runs them dry\n"
    "in the simulator if the collective has at most 262144 deliveries. Algorithms that predict\n"
    "nothing are listed with their dry run's steps (the one thing model runs).\n"
    "\n";
static const char usage_tail[] = "\n"
                                 "Exit status: 0 success, 2 bad input.\n";
/* --help: the prose, and the lines of the shared options (options.c). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_model(void)
{
    return usage;
}

/* One candidate: its prediction (or its dry run's steps when it predicts none and the collective
 * is small), the control slots among them and their cost in time units; steps -1 when neither. */
typedef struct {
    int64_t predicted, dry, steps;
    uint64_t control;
    double time_units;
} candidate_t;

static int candidate_eval(const sn_algo_t *a, const cli_ctx_t *c, int dry, candidate_t *k,
                          sn_err_t *e)
{
    void *pl = NULL;
    if (sn_model_check(a, c->topo, &c->params, e) < 0 ||
        sn_model_plan_new(a, c->topo, &c->params, &pl, e) < 0)
        return -1;
    k->predicted = a->predicted(pl);
    k->control = (uint64_t) sn_model_predicted_control(a, pl);
    k->dry = k->predicted < 0 && dry ? sn_model_dry_run(a, pl, c->topo, &c->params, -1, &k->control)
                                     : -1;
    a->plan_free(pl);
    k->steps = k->predicted >= 0 ? k->predicted : k->dry;
    k->time_units = k->steps >= 0 ? cli_time_units(c, (uint64_t) k->steps, k->control) : -1;
    return 0;
}

static const char *candidate_mark(const sn_algo_t *a, const cli_ctx_t *c)
{
    return a == c->algo ? "  <- chosen" : a->manual ? "  (only with --algo)" : "";
}

int cli_cmd_model(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "model"};
    int rc = cli_parse(argc, argv, &o, usage);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    cli_ctx_t c;
    if ((rc = cli_ctx_init(&o, &c))) {
        cli_ctx_free(&c);
        return rc;
    }
    const sn_topo_t *t = c.topo;
    uint32_t diam = sn_topo_diameter(t, 1);
    int dry = sn_coll_expected_total(t, &c.params) <= SN_MODEL_DRY_DELIVERIES;
    /* every applicable algorithm, its prediction and its time units */
    size_t na;
    const sn_algo_t *const *all = sn_model_algos(&na);
    if (o.json) {
        cli_json_t j;
        cli_json_begin(&j, stdout);
        cli_report_json_head(&j, "model", &c);
        cli_json_uint(&j, "diameter", diam);
        cli_json_str(&j, "ranked_by", c.rank_tp < 0 ? "steps" : "time_units");
        cli_json_open(&j, "candidates", '[');
        for (size_t i = 0; i < na; i++) {
            candidate_t k;
            if (candidate_eval(all[i], &c, dry, &k, NULL) < 0)
                continue;
            cli_json_open(&j, NULL, '{');
            cli_json_str(&j, "algorithm", all[i]->name);
            if (k.predicted >= 0)
                cli_json_int(&j, "predicted_steps", k.predicted);
            else
                cli_json_null(&j, "predicted_steps");
            if (k.dry >= 0)
                cli_json_int(&j, "dry_run_steps", k.dry);
            else
                cli_json_null(&j, "dry_run_steps");
            if (k.steps >= 0) {
                cli_json_uint(&j, "control_slots", k.control);
                cli_json_double(&j, "time_units", k.time_units);
            } else {
                cli_json_null(&j, "control_slots");
                cli_json_null(&j, "time_units");
            }
            cli_json_close(&j, '}');
        }
        cli_json_close(&j, ']');
        cli_json_end(&j);
    } else {
        cli_report_text_head(stdout, "model", &c);
        printf("  diameter        %u (between processors)\n", diam);
        if (c.rank_tp < 0)
            printf("  candidates      ranked by steps (--tp ranks by time units)\n");
        else
            printf("  candidates      ranked by time units, (steps - control) / frags + control x "
                   "tp with frags %u, tp %g; ties by steps\n",
                   c.params.frags, c.tp);
        for (size_t i = 0; i < na; i++) {
            candidate_t k;
            sn_err_t e = {0};
            if (all[i]->coll != c.params.coll)
                continue;
            if (candidate_eval(all[i], &c, dry, &k, &e) < 0) {
                char text[CLI_ERR_TEXT_MAX];
                printf("    %-18s not applicable: %s\n", all[i]->name,
                       cli_text(e.msg, text, sizeof text));
                continue;
            }
            char ctl[48] = "";
            if (k.control)
                snprintf(ctl, sizeof ctl, " (%llu control)", (unsigned long long) k.control);
            if (k.predicted >= 0)
                printf("    %-18s %lld step%s%s, %.6g time units%s\n", all[i]->name,
                       (long long) k.predicted, cli_plural(k.predicted), ctl, k.time_units,
                       candidate_mark(all[i], &c));
            else if (k.dry >= 0)
                printf("    %-18s no prediction; a dry run takes %lld step%s%s, %.6g time "
                       "units%s\n",
                       all[i]->name, (long long) k.dry, cli_plural(k.dry), ctl, k.time_units,
                       candidate_mark(all[i], &c));
            else
                printf("    %-18s no prediction%s\n", all[i]->name, candidate_mark(all[i], &c));
        }
    }
    cli_ctx_free(&c);
    return EXIT_OK;
}
