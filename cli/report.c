/* Shared report fields for model, sim and run (cli). */
#include <stdio.h>

#include "report.h"

void report_json_head(json_t *j, const char *cmd, const cli_ctx_t *c)
{
    const sn_topo_t *t = c->topo;
    const sn_params_t *p = &c->params;
    json_str(j, "cmd", cmd);
    json_str(j, "topology", t->spec);
    json_uint(j, "nodes", t->n);
    json_uint(j, "processors", t->nproc);
    json_uint(j, "links", t->nedges);
    json_str(j, "collective", sn_coll_name(p->coll));
    json_str(j, "ports", cli_ports_name(p));
    json_str(j, "rx", cli_rx_name(p));
    json_str(j, "duplex", cli_duplex_name(p));
    json_int(j, "root", sn_topo_rank(t, p->root));
    json_uint(j, "msgs", p->msgs);
    json_uint(j, "frags", p->frags);
    json_double(j, "tp", c->tp);
    json_uint(j, "size", p->size);
    json_uint(j, "seed", p->seed);
    if (sn_coll_is_combining(p->coll))
        json_str(j, "op", sn_op_name(p->op));
    json_uint(j, "memory_estimate", c->mem.per_process);
    json_uint(j, "memory_estimate_total", c->mem.total);
    if (p->sources) {
        json_open(j, "sources", '[');
        for (uint32_t i = 0; i < p->nsources; i++)
            json_int(j, NULL, sn_topo_rank(t, p->sources[i]));
        json_close(j, ']');
    }
    json_str(j, "algorithm", c->algo->name);
    if (c->predicted >= 0)
        json_int(j, "predicted_steps", c->predicted);
    else
        json_null(j, "predicted_steps");
    json_int(j, "lower_bound", c->bounds.best);
    json_open(j, "bounds", '[');
    for (size_t i = 0; i < c->bounds.count; i++) {
        const sn_bound_t *b = &c->bounds.b[i];
        json_open(j, NULL, '{');
        json_str(j, "name", b->name);
        json_int(j, "value", b->value);
        json_str(j, "detail", b->detail);
        json_str(j, "source", b->source);
        json_close(j, '}');
    }
    json_close(j, ']');
}

void report_text_head(FILE *f, const char *cmd, const cli_ctx_t *c)
{
    const sn_topo_t *t = c->topo;
    const sn_params_t *p = &c->params;
    fprintf(f, "stepnet %s: %s on %s (%u nodes, %u processors, %u links)\n", cmd,
            sn_coll_name(p->coll), t->spec, t->n, t->nproc, t->nedges);
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
    fprintf(f, "  algorithm       %s: %s\n", c->algo->name, c->algo->summary);
    if (c->predicted >= 0)
        fprintf(f, "  predicted       %lld steps (%s)\n", (long long) c->predicted,
                c->algo->predicts);
    else
        fprintf(f, "  predicted       none (%s)\n", c->algo->predicts);
    fprintf(f, "  lower bound     %lld steps\n", (long long) c->bounds.best);
    for (size_t i = 0; i < c->bounds.count; i++) {
        const sn_bound_t *b = &c->bounds.b[i];
        fprintf(f, "    %-13s %lld  (%s; %s)\n", b->name, (long long) b->value, b->detail,
                b->source);
    }
}
