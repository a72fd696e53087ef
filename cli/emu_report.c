/* The link emulation of a run next to its measured per-link calibration (cli): the emulated
 * values of every edge, grouped, in JSON ("link_emulation") and text. The engine builds the
 * values (coordinator/emu.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "stepnet/util.h"

#define MAX_GROUPS_TEXT 8 /* distinct (delay, jitter, rate) values the text report lists */

static int same(const sn_emu_link_t *a, const sn_emu_link_t *b)
{
    return a->delay_ns == b->delay_ns && a->jitter_ns == b->jitter_ns && a->rate_bps == b->rate_bps;
}

/* Groups of edges with equal values: the representative edge of each group in first[], the
 * group of every edge in group[] (nedges), and the count; at most `cap` groups are named, the
 * rest get group -1. */
static size_t group_edges(const sn_emu_t *emu, uint32_t *first, int *group, size_t cap)
{
    size_t ng = 0;
    for (uint32_t e = 0; e < emu->nedges; e++) {
        group[e] = -1;
        for (size_t g = 0; g < ng; g++)
            if (same(&emu->edge[first[g]], &emu->edge[e]))
                group[e] = (int) g;
        if (group[e] < 0 && ng < cap) {
            first[ng] = e;
            group[e] = (int) ng++;
        }
    }
    return ng;
}

/* The median of v over the edges of group g that were calibrated (< 0: none). */
static double group_median(const int *group, int g, const double *v, uint32_t nedges)
{
    if (v == NULL)
        return -1;
    double *x = sn_xmalloc(((size_t) nedges + 1) * sizeof *x);
    size_t n = 0;
    for (uint32_t e = 0; e < nedges; e++)
        if (group[e] == g && v[e] >= 0)
            x[n++] = v[e];
    double m = -1;
    if (n) {
        qsort(x, n, sizeof *x, sn_cmp_double);
        m = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    }
    free(x);
    return m;
}

static size_t group_size(const int *group, int g, uint32_t nedges)
{
    size_t n = 0;
    for (uint32_t e = 0; e < nedges; e++)
        n += group[e] == g;
    return n;
}

static void json_measured(cli_json_t *j, const char *key, double v)
{
    if (v < 0)
        cli_json_null(j, key);
    else
        cli_json_double(j, key, v);
}

static void json_values(cli_json_t *j, const sn_emu_link_t *v)
{
    cli_json_double(j, "delay_us", (double) v->delay_ns / 1e3);
    cli_json_double(j, "jitter_us", (double) v->jitter_ns / 1e3);
    if (v->rate_bps)
        cli_json_uint(j, "rate_bps", v->rate_bps);
    else
        cli_json_null(j, "rate_bps");
}

void cli_emu_report_json(cli_json_t *j, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const sn_emu_t *emu = res->emu;
    if (emu == NULL) {
        cli_json_null(j, "link_emulation");
        return;
    }
    const sn_topo_t *t = run->ctx->topo;
    uint32_t *first = sn_xcalloc((size_t) emu->nedges + 1, sizeof *first);
    int *group = sn_xcalloc((size_t) emu->nedges + 1, sizeof *group);
    size_t ng = group_edges(emu, first, group, emu->nedges);
    cli_json_open(j, "link_emulation", '{');
    cli_json_str(j, "by", "stepnet");
    cli_json_str(j, "file", o->emu_file);
    cli_json_uint(j, "probe_bytes", res->probe_bytes);
    cli_json_open(j, "groups", '[');
    for (size_t g = 0; g < ng; g++) {
        cli_json_open(j, NULL, '{');
        json_values(j, &emu->edge[first[g]]);
        cli_json_uint(j, "links", group_size(group, (int) g, emu->nedges));
        json_measured(j, "measured_us",
                      group_median(group, (int) g, res->edge_alpha_us, emu->nedges));
        json_measured(j, "measured_size_us",
                      group_median(group, (int) g, res->edge_hop_us, emu->nedges));
        cli_json_close(j, '}');
    }
    cli_json_close(j, ']');
    cli_json_open(j, "links", '[');
    for (uint32_t e = 0; e < emu->nedges; e++) {
        cli_json_open(j, NULL, '{');
        cli_json_uint(j, "edge", e);
        cli_json_uint(j, "a", t->edges[e].a);
        cli_json_uint(j, "b", t->edges[e].b);
        json_values(j, &emu->edge[e]);
        json_measured(j, "measured_us", res->edge_alpha_us ? res->edge_alpha_us[e] : -1);
        json_measured(j, "measured_size_us", res->edge_hop_us ? res->edge_hop_us[e] : -1);
        cli_json_close(j, '}');
    }
    cli_json_close(j, ']');
    cli_json_close(j, '}');
    free(first);
    free(group);
}

void cli_emu_report_text(FILE *f, const cli_run_t *run, const sn_coord_result_t *res)
{
    const sn_coord_opts_t *o = &run->coord;
    const sn_emu_t *emu = res->emu;
    if (emu == NULL)
        return;
    uint32_t first[MAX_GROUPS_TEXT];
    int *group = sn_xcalloc((size_t) emu->nedges + 1, sizeof *group);
    size_t ng = group_edges(emu, first, group, MAX_GROUPS_TEXT), shown = 0;
    for (size_t g = 0; g < ng; g++) {
        const sn_emu_link_t *v = &emu->edge[first[g]];
        char d[32], jt[32], rt[32];
        size_t n = group_size(group, (int) g, emu->nedges);
        shown += n;
        double m = group_median(group, (int) g, res->edge_alpha_us, emu->nedges);
        double ms = group_median(group, (int) g, res->edge_hop_us, emu->nedges);
        fprintf(f, "  %-16sdelay %s jitter %s rate %s on %zu link%s: measured ",
                g ? "" : "emulated", sn_emu_time_text(v->delay_ns, d, sizeof d),
                sn_emu_time_text(v->jitter_ns, jt, sizeof jt),
                sn_emu_rate_text(v->rate_bps, rt, sizeof rt), n, n == 1 ? "" : "s");
        if (m < 0)
            fprintf(f, "nothing (--probes 0)\n");
        else
            fprintf(f, "%.1f us one-way, %.1f us at %u bytes (median)\n", m, ms,
                    run->ctx->params.size);
    }
    if (shown < emu->nedges)
        fprintf(f, "  %-16s%zu more links with other values (see --json)\n", "",
                (size_t) emu->nedges - shown);
    if (o->emu_file)
        fprintf(f, "  %-16sper-link values from %s\n", "", o->emu_file);
    free(group);
}
