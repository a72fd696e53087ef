/* `stepnet export`: writes the schedule an algorithm plays, recorded from the simulator's run, as
 * a schedule file (docs/schedule.md) that `--algo schedule:FILE` plays back (cli). */
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

static const char usage_head[] =
    "usage: stepnet export --topo SPEC --coll C [--algo A] [options] [--out FILE [--force]]\n"
    "\n"
    "Runs the collective in the simulator, verified, and writes every transmission of the run as\n"
    "a schedule file (docs/schedule.md): the topology, the collective and its parameters, the\n"
    "port model and, slot by slot, who sends which packet on which link. `stepnet sim --algo\n"
    "schedule:FILE` with the same options plays it back, checked before it runs. Collectives:\n"
    "every one but dynbcast; for the combining ones (sna, pmna, mna, allreduce, barrier) each\n"
    "combined packet lists its operands, found by replaying the algorithm with traced values.\n"
    "With --out, an existing FILE is kept unless --force is given, and a line on stderr says\n"
    "what was written.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 written, 1 the run failed or the file could not be written, 2 bad input.\n";
/* --help: the prose, and the lines of the options (options.c, cli_cmd_export). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.lines = (const char *const[]){"--out", "--force", NULL}, .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_export(void)
{
    return usage;
}

int cli_cmd_export(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "export"};
    const char *out_file = NULL;
    int force = 0;
    const sn_opt_t extra[] = {{.name = "--out",
                               .kind = SN_OPT_STR,
                               .str = &out_file,
                               .arg = "FILE",
                               .help = "write the schedule to FILE (default: standard output)"},
                              {.name = "--force",
                               .kind = SN_OPT_FLAG,
                               .flag = &force,
                               .help = "replace FILE if it exists (without it, export refuses)"},
                              {0}};
    sn_err_t err = {0};
    int rc = cli_opts_parse(argc, argv, &o, extra, usage, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0)
        return cli_refuse(&err);
    if (o.json) {
        sn_err_inval(&err, "--json: export writes a schedule file, not a report");
        return cli_refuse(&err);
    }
    if (force && out_file == NULL) {
        sn_err_inval(&err, "--force replaces the file of --out, and there is none");
        return cli_refuse(&err);
    }
    if (out_file && !force && access(out_file, F_OK) == 0) { /* before any work */
        sn_err_inval(&err, "--out %s: the file exists; give --force to replace it", out_file);
        return cli_refuse(&err);
    }
    if (o.algo && strncmp(o.algo, SN_SCHED_FILE_PREFIX, strlen(SN_SCHED_FILE_PREFIX)) == 0) {
        sn_err_inval(&err,
                     "--algo %s: export records an algorithm's run; accepted: auto or an "
                     "algorithm's name",
                     o.algo);
        return cli_refuse(&err);
    }
    cli_ctx_t c;
    if ((rc = cli_ctx_init(&o, &c))) {
        cli_ctx_free(&c);
        return rc;
    }
    if (!sn_sched_file_supports(c.params.coll)) {
        sn_err_inval(&err,
                     "--coll %s: schedule files hold every collective but dynbcast (its packets "
                     "arrive at random)",
                     sn_coll_name(c.params.coll));
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    sn_sched_t *s = NULL;
    uint64_t limit = o.max_memory ? o.max_memory : cli_default_max_memory();
    char why[96], lim[32];
    snprintf(why, sizeof why, "a schedule file read back within --max-memory %s",
             sn_fmt_bytes(limit, lim, sizeof lim));
    if ((rc = sn_sched_record_max(c.topo, &c.params, c.algo->name,
                                  sn_sched_file_max_transmissions(limit, 0), why, &s, &err)) < 0) {
        if (rc == SN_ERANGE) {
            cli_ctx_free(&c);
            return cli_refuse(&err);
        }
        cli_ctx_free(&c);
        return cli_fail(&err);
    }
    sn_sched_ops_t ops = {0};
    if (sn_coll_is_combining(c.params.coll) &&
        (rc = sn_sched_record_operands(c.topo, &c.params, c.algo->name, s, &ops, &err)) < 0) {
        sn_sched_free(s);
        cli_ctx_free(&c);
        return cli_fail(&err);
    }
    FILE *f = out_file ? fopen(out_file, "w") : stdout;
    if (f == NULL) {
        sn_err_set(&err, SN_EINVAL, "cannot write %s (--out): %s", out_file, strerror(errno));
        sn_sched_free(s);
        sn_sched_ops_free(&ops);
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    sn_sched_file_write(cli_file_sink, f, c.topo, &c.params, c.algo->name, s,
                        ops.first ? &ops : NULL, &err); /* a write error: cli_close_out says it */
    long bytes = out_file ? ftell(f) : -1;
    char what[256];
    snprintf(what, sizeof what, "%s on %s by %s: %llu steps, %zu transmissions",
             sn_coll_name(c.params.coll), c.topo->spec, c.algo->name, (unsigned long long) s->steps,
             s->n);
    sn_sched_free(s);
    sn_sched_ops_free(&ops);
    cli_ctx_free(&c);
    if (out_file) {
        if (cli_close_out(f, out_file, "--out") < 0)
            return EXIT_FAILED;
        fprintf(stderr, "stepnet export: wrote %s (%ld bytes): %s\n", out_file, bytes, what);
    }
    return EXIT_OK;
}
