/* `stepnet algos`: the algorithm registry with collectives, port models, topologies, predictions
 * and sources (cli). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/json.h"

static const char usage_head[] =
    "usage: stepnet algos [--coll C] [--json | --markdown]\n"
    "\n"
    "Lists every algorithm: its collective, the port models it supports,\n"
    "the topologies it runs on, what its predicted step count is, and the\n"
    "paper, section and theorem it comes from.\n"
    "\n";
/* --help: the prose, and the lines of the options (cli_cmd_algos). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){"--coll", "--json", "--markdown", NULL}, .col = 13},
    {0},
};

const sn_help_t *cli_help_algos(void)
{
    return usage;
}

static void pm_words(unsigned m, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s", (m & SN_PM_MULTI) ? "multi " : "",
             (m & SN_PM_SINGLE) ? "single " : "", (m & SN_PM_SINGLE_ANY) ? "single-rx-any " : "",
             (m & SN_PM_HALF) ? "half-duplex" : "");
    size_t len = strlen(buf);
    if (len && buf[len - 1] == ' ')
        buf[len - 1] = '\0';
}

/* --coll C (an SN_OPT_FN): the collective into *(sn_coll_t *) ctx. */
static int opt_coll(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    return sn_coll_parse(v, opt->ctx, err);
}

int cli_cmd_algos(int argc, char **argv)
{
    int json = 0, markdown = 0;
    sn_coll_t coll = SN_COLL_COUNT; /* SN_COLL_COUNT: every collective */
    const sn_opt_t table[] = {
        {.name = "--json",
         .kind = SN_OPT_FLAG,
         .flag = &json,
         .help = "one JSON object on one line"},
        {.name = "--markdown",
         .kind = SN_OPT_FLAG,
         .flag = &markdown,
         .help = "the table of README.md's Algorithms section"},
        {.name = "--coll",
         .kind = SN_OPT_FN,
         .fn = opt_coll,
         .ctx = &coll,
         .arg = "C",
         .help = "only the algorithms of collective C"},
        {0},
    };
    sn_err_t err = {0};
    int rc = cli_opts_parse_tables(argc, argv, table, NULL, usage, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc == 0 && json && markdown)
        rc = sn_err_inval(&err, "--json and --markdown exclude each other; see --help");
    if (rc < 0)
        return cli_refuse(&err);
    int have = coll != SN_COLL_COUNT;
    if (markdown) {
        char *md = sn_model_algos_markdown(have ? &coll : NULL, cli_param_name);
        fputs(md, stdout);
        free(md);
        return EXIT_OK;
    }
    size_t n;
    const sn_algo_t *const *all = sn_model_algos(&n);
    cli_json_t j;
    if (json) {
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "cmd", "algos");
        cli_json_open(&j, "algorithms", '[');
    } else {
        printf("%-18s %-10s %-38s %s\n", "ALGORITHM", "COLL", "PORT MODELS", "TOPOLOGIES");
    }
    for (size_t i = 0; i < n; i++) {
        const sn_algo_t *a = all[i];
        if (have && a->coll != coll)
            continue;
        char pm[96];
        pm_words(a->pm_mask, pm, sizeof pm);
        if (json) {
            cli_json_open(&j, NULL, '{');
            cli_json_str(&j, "name", a->name);
            cli_json_str(&j, "collective", sn_coll_name(a->coll));
            cli_json_str(&j, "port_models", pm);
            cli_json_str(&j, "topologies", a->topos);
            char summary[CLI_ERR_TEXT_MAX], predicts[CLI_ERR_TEXT_MAX];
            cli_json_str(&j, "summary", cli_text(a->summary, summary, sizeof summary));
            cli_json_str(&j, "predicted", cli_text(a->predicts, predicts, sizeof predicts));
            cli_json_str(&j, "source", a->source);
            cli_json_close(&j, '}');
        } else {
            printf("%-18s %-10s %-38s %s\n", a->name, sn_coll_name(a->coll), pm, a->topos);
            char summary[CLI_ERR_TEXT_MAX], predicts[CLI_ERR_TEXT_MAX];
            printf("    %s\n    predicted: %s\n    source: %s\n",
                   cli_text(a->summary, summary, sizeof summary),
                   cli_text(a->predicts, predicts, sizeof predicts), a->source);
        }
    }
    if (json) {
        cli_json_close(&j, ']');
        cli_json_end(&j);
    }
    return EXIT_OK;
}
