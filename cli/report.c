/* Shared report fields for model, sim and run (cli). */
#include <stdio.h>

#include "cli/report.h"

void cli_report_json_head(cli_json_t *j, const char *cmd, const cli_ctx_t *c)
{
    const sn_topo_t *t = c->topo;
    const sn_params_t *p = &c->params;
    cli_json_str(j, "cmd", cmd);
    cli_json_str(j, "topology", t->spec);
    cli_json_uint(j, "nodes", t->n);
    cli_json_uint(j, "processors", t->nproc);
    cli_json_uint(j, "links", t->nedges);
    cli_json_str(j, "collective", sn_coll_name(p->coll));
    cli_json_str(j, "ports", cli_ports_name(p));
    cli_json_str(j, "rx", cli_rx_name(p));
    cli_json_str(j, "duplex", cli_duplex_name(p));
    cli_json_int(j, "root", sn_topo_rank(t, p->root));
    cli_json_uint(j, "msgs", p->msgs);
    cli_json_uint(j, "frags", p->frags);
    cli_json_double(j, "tp", c->tp);
    cli_json_uint(j, "size", p->size);
    cli_json_uint(j, "seed", p->seed);
    if (sn_coll_is_combining(p->coll))
        cli_json_str(j, "op", sn_op_name(p->op));
    cli_json_uint(j, "memory_estimate", c->mem.per_process);
    cli_json_uint(j, "memory_estimate_total", c->mem.total);
    if (p->sources) {
        cli_json_open(j, "sources", '[');
        for (uint32_t i = 0; i < p->nsources; i++)
            cli_json_int(j, NULL, sn_topo_rank(t, p->sources[i]));
        cli_json_close(j, ']');
    }
    cli_json_str(j, "algorithm", c->algo->name);
    if (c->sched_path) { /* --algo schedule:FILE: which file, and who played it */
        cli_json_str(j, "schedule_file", c->sched_path);
        if (c->sched_algo)
            cli_json_str(j, "schedule_algorithm", c->sched_algo);
        else
            cli_json_null(j, "schedule_algorithm");
    }
    if (c->predicted >= 0)
        cli_json_int(j, "predicted_steps", c->predicted);
    else
        cli_json_null(j, "predicted_steps");
    cli_json_int(j, "lower_bound", c->bounds.best);
    cli_json_open(j, "bounds", '[');
    for (size_t i = 0; i < c->bounds.count; i++) {
        const sn_bound_t *b = &c->bounds.b[i];
        cli_json_open(j, NULL, '{');
        cli_json_str(j, "name", b->name);
        cli_json_int(j, "value", b->value);
        cli_json_str(j, "detail", b->detail);
        cli_json_str(j, "source", b->source);
        cli_json_close(j, '}');
    }
    cli_json_close(j, ']');
}

void cli_report_text_head(FILE *f, const char *cmd, const cli_ctx_t *c)
{
    const sn_topo_t *t = c->topo;
    const sn_params_t *p = &c->params;
    fprintf(f, "stepnet %s: %s on %s (%u nodes, %u processors, %u link%s)\n", cmd,
            sn_coll_name(p->coll), t->spec, t->n, t->nproc, t->nedges, cli_plural(t->nedges));
    fprintf(f, "  port model      %s%s, %s duplex\n", cli_ports_name(p),
            p->pm.ports == SN_PORTS_SINGLE ? (p->pm.rx == SN_RX_ANY ? " (rx any)" : " (rx one)")
                                           : "",
            cli_duplex_name(p));
    if (p->sources) {
        fprintf(f, "  sources         ");
        for (uint32_t i = 0; i < p->nsources; i++)
            fprintf(f, "%s%d", i ? "," : "", sn_topo_rank(t, p->sources[i]));
        fprintf(f, " (%u processors)\n", p->nsources);
    }
    if (sn_coll_is_combining(p->coll))
        fprintf(f, "  operator        %s (a vector of 64-bit words, combined word by word)\n",
                sn_op_name(p->op));
    if (p->frags > 1)
        fprintf(f, "  fragments       %u per packet, each 1/%u of a time unit\n", p->frags,
                p->frags);
    char summary[CLI_ERR_TEXT_MAX], predicts[CLI_ERR_TEXT_MAX];
    fprintf(f, "  algorithm       %s: %s\n", c->algo->name,
            cli_text(c->algo->summary, summary, sizeof summary));
    if (c->sched_path)
        fprintf(f, "  schedule file   %s (recorded from %s)\n", c->sched_path,
                c->sched_algo ? c->sched_algo : "an algorithm it does not name");
    cli_text(c->algo->predicts, predicts, sizeof predicts);
    if (c->predicted >= 0)
        fprintf(f, "  predicted       %lld step%s (%s)\n", (long long) c->predicted,
                cli_plural(c->predicted), predicts);
    else
        fprintf(f, "  predicted       none (%s)\n", predicts);
    fprintf(f, "  lower bound     %lld step%s\n", (long long) c->bounds.best,
            cli_plural(c->bounds.best));
    for (size_t i = 0; i < c->bounds.count; i++) {
        const sn_bound_t *b = &c->bounds.b[i];
        fprintf(f, "    %-13s %lld  (%s; %s)\n", b->name, (long long) b->value, b->detail,
                b->source);
    }
}
