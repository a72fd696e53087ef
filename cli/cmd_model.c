/* `stepnet model`: predicted steps, lower bounds and the algorithm auto would pick, running
 * nothing but auto's dry runs of small collectives (cli). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char usage[] =
    "usage: stepnet model --topo SPEC --coll C [options]\n"
    "\n"
    "Prints the predicted step count, the lower bounds and the chosen algorithm for a collective\n"
    "on a topology, without running it. With --algo auto (the default) it also lists every\n"
    "applicable algorithm with its prediction. Auto picks the lowest prediction; when no\n"
    "applicable algorithm predicts, it picks the fewest steps of a dry run in the simulator\n"
    "if the collective has at most 262144 deliveries. Algorithms that predict nothing are\n"
    "listed with their dry run's steps (the one thing model runs).\n"
    "\n" CLI_SHARED_OPTIONS_HELP "\n"
    "Exit status: 0 success, 2 bad input.\n";

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
    /* every applicable algorithm and its prediction */
    size_t na;
    const sn_algo_t *const *all = sn_model_algos(&na);
    if (o.json) {
        cli_json_t j;
        cli_json_begin(&j, stdout);
        cli_report_json_head(&j, "model", &c);
        cli_json_uint(&j, "diameter", diam);
        cli_json_open(&j, "candidates", '[');
        for (size_t i = 0; i < na; i++) {
            void *pl = NULL;
            if (sn_model_check(all[i], t, &c.params, NULL) < 0 ||
                sn_model_plan_new(all[i], t, &c.params, &pl, NULL) < 0)
                continue;
            int64_t pr = all[i]->predicted(pl);
            int64_t dr = pr < 0 && dry ? sn_model_dry_run(all[i], pl, t, &c.params, -1) : -1;
            all[i]->plan_free(pl);
            cli_json_open(&j, NULL, '{');
            cli_json_str(&j, "algorithm", all[i]->name);
            if (pr >= 0)
                cli_json_int(&j, "predicted_steps", pr);
            else
                cli_json_null(&j, "predicted_steps");
            if (dr >= 0)
                cli_json_int(&j, "dry_run_steps", dr);
            else
                cli_json_null(&j, "dry_run_steps");
            cli_json_close(&j, '}');
        }
        cli_json_close(&j, ']');
        cli_json_end(&j);
    } else {
        cli_report_text_head(stdout, "model", &c);
        printf("  diameter        %u (between processors)\n", diam);
        printf("  candidates\n");
        for (size_t i = 0; i < na; i++) {
            void *pl = NULL;
            sn_err_t e = {0};
            if (all[i]->coll != c.params.coll)
                continue;
            if (sn_model_check(all[i], t, &c.params, &e) < 0 ||
                sn_model_plan_new(all[i], t, &c.params, &pl, &e) < 0) {
                printf("    %-18s not applicable: %s\n", all[i]->name, e.msg);
                continue;
            }
            int64_t pr = all[i]->predicted(pl);
            int64_t dr = pr < 0 && dry ? sn_model_dry_run(all[i], pl, t, &c.params, -1) : -1;
            all[i]->plan_free(pl);
            if (pr >= 0)
                printf("    %-18s %lld steps%s\n", all[i]->name, (long long) pr,
                       all[i] == c.algo ? "  <- chosen"
                       : all[i]->manual ? "  (only with --algo)"
                                        : "");
            else if (dr >= 0)
                printf("    %-18s no prediction; a dry run takes %lld steps%s\n", all[i]->name,
                       (long long) dr,
                       all[i] == c.algo ? "  <- chosen"
                       : all[i]->manual ? "  (only with --algo)"
                                        : "");
            else
                printf("    %-18s no prediction%s\n", all[i]->name,
                       all[i] == c.algo ? "  <- chosen"
                       : all[i]->manual ? "  (only with --algo)"
                                        : "");
        }
    }
    cli_ctx_free(&c);
    return EXIT_OK;
}
