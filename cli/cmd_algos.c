/* `stepnet algos`: the algorithm registry with collectives, port models, topologies, predictions
 * and sources (cli). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

static const char usage[] = "usage: stepnet algos [--coll C] [--json | --markdown]\n"
                            "\n"
                            "Lists every algorithm: its collective, the port models it supports,\n"
                            "the topologies it runs on, what its predicted step count is, and the\n"
                            "paper, section and theorem it comes from.\n"
                            "\n"
                            "  --coll C   only the algorithms of collective C\n"
                            "  --json     one JSON object on one line\n"
                            "  --markdown the table of README.md's Algorithms section\n";

static void pm_words(unsigned m, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s", (m & SN_PM_MULTI) ? "multi " : "",
             (m & SN_PM_SINGLE) ? "single " : "", (m & SN_PM_SINGLE_ANY) ? "single-rx-any " : "",
             (m & SN_PM_HALF) ? "half-duplex" : "");
    size_t len = strlen(buf);
    if (len && buf[len - 1] == ' ')
        buf[len - 1] = '\0';
}

int cli_cmd_algos(int argc, char **argv)
{
    int json = 0, markdown = 0, have = 0;
    sn_coll_t coll = SN_COLL_BCAST;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--coll") == 0 && i + 1 == argc) {
            fprintf(stderr, "stepnet: option --coll needs a value (bcast, scatter, gather, mnb, "
                            "te, pmnb, pexchange)\n");
            return EXIT_BADINPUT;
        } else if (strcmp(argv[i], "--coll") == 0) {
            sn_err_t err = {0};
            if (sn_coll_parse(argv[++i], &coll, &err) < 0) {
                cli_err_print("stepnet", &err);
                return EXIT_BADINPUT;
            }
            have = 1;
        } else {
            fprintf(stderr, "stepnet: unexpected argument '%s' for algos; see --help\n", argv[i]);
            return EXIT_BADINPUT;
        }
    }
    if (json && markdown) {
        fprintf(stderr, "stepnet: --json and --markdown exclude each other; see --help\n");
        return EXIT_BADINPUT;
    }
    if (markdown) {
        char *md = sn_model_algos_markdown(have ? &coll : NULL);
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
            cli_json_str(&j, "summary", a->summary);
            cli_json_str(&j, "predicted", a->predicts);
            cli_json_str(&j, "source", a->source);
            cli_json_close(&j, '}');
        } else {
            printf("%-18s %-10s %-38s %s\n", a->name, sn_coll_name(a->coll), pm, a->topos);
            printf("    %s\n    predicted: %s\n    source: %s\n", a->summary, a->predicts,
                   a->source);
        }
    }
    if (json) {
        cli_json_close(&j, ']');
        cli_json_end(&j);
    }
    return EXIT_OK;
}
