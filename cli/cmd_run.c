/* `stepnet run` and `stepnet bench` (cli): the commands around sn_coord_run. Runs a collective over
 * real TCP links between stepnet-node processes: by default one local process per topology node on
 * 127.0.0.1 (port 0, no set-up); with --nodes join, nodes started anywhere with `stepnet-node
 * --join`. Parses the options, calls sn_coord_run, prints the report; errors are printed here only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/record.h"
#include "cli/run.h"
#include "net/secure.h"
#include "net/wire_fault.h"
#include "proc/fdlimit.h"
#include "stepnet/sync.h"
#include "stepnet/util.h"

static const char usage_head[] =
    "usage: stepnet run --topo SPEC --coll C [options]\n"
    "       stepnet run --algo schedule:FILE [options]\n"
    "\n"
    "Runs the collective over real TCP links: one stepnet-node process per node, one TCP\n"
    "connection per link, a libuv slot barrier in every node. Every payload byte is checked at\n"
    "every hop. Reports measured steps (the same as `stepnet sim` gives) and wall times (avg,\n"
    "min, max, p50, p99) next to the time model's prediction: per slot the slowest link or\n"
    "busiest interface of the schedule, from a start-up calibration of every link and node, plus\n"
    "the control legs (docs/model.md). For a sweep over packet sizes see `stepnet bench`.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 verified, 1 the collective failed or did not verify (or a node or host\n"
    "failed: ssh, a missing stepnet-node, a node that left; the error names it), 2 bad input,\n"
    "130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";
/* --help: the prose, and the lines of the options (options.c, run_options.c). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.lines =
         (const char *const[]){"--reps", "--warmup", "--out", CLI_RUN_HELP_LINES, "--idle-slots",
                               "--trace", "--trace-slots", "--trace-rep", "--link-delay",
                               "--link-jitter", "--link-rate", "--link-file", NULL},
     .col = CLI_HELP_COL},
    {.text = "\n"},
    {.lines = (const char *const[]){"--coll dynbcast --lambda L|--rho R --slots T", NULL},
     .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_run(void)
{
    return usage;
}

/* One dynamic-broadcasting round over TCP: the round's partial multinode broadcast as `stepnet run
 * --algo ALGO --sources ...` would run it (one repetition, no calibration). */
static int tcp_round(void *vctx, const sn_topo_t *t, const sn_params_t *q, const char *algo,
                     sn_dyn_round_t *out, sn_err_t *err)
{
    const cli_run_t *run = vctx;
    const sn_coord_opts_t *base = &run->coord;
    size_t cap = (size_t) q->nsources * 11 + 1, len = 0;
    char *list = sn_xmalloc(cap);
    list[0] = '\0';
    for (uint32_t i = 0; i < q->nsources; i++)
        len += (size_t) snprintf(list + len, cap - len, "%s%d", i ? "," : "",
                                 sn_topo_rank(t, q->sources[i]));
    cli_opts_t co;
    cli_opts_init(&co, "run");
    co.topo = base->topo_text;
    co.coll = "pmnb";
    co.algo = algo;
    co.sources = list;
    co.frags = q->frags;
    co.seed = (int64_t) q->seed;
    co.size = q->size;
    cli_ctx_t ctx;
    sn_coord_result_t res;
    int rc = cli_ctx_build(&co, &ctx, err);
    if (rc == 0) {
        sn_coord_opts_t ro = *base;
        cli_progress_t pr;
        cli_run_progress(&ro, run->progress, "run", &pr);
        cli_run_job(&ctx, &ro.job);
        ro.reps = 1, ro.warmup = 0, ro.probes = 0;
        rc = cli_coord_run(&ro, &res, err);
        if (rc == 0) {
            if (res.failed)
                rc = sn_err_set(err, SN_EVERIFY, "a round over TCP failed: %s", res.error);
            out->steps = res.steps;
            out->control_slots = res.control_slots;
            out->deliveries = res.deliveries;
            sn_coord_result_free(&res);
        }
    }
    cli_ctx_free(&ctx);
    free(list);
    return rc;
}

/* Opens a report file before the run, so that a path that cannot be written is refused before
 * any node starts. 0, or SN_EINVAL naming the path and the option. */
static int open_out(const char *path, const char *flag, FILE **f, sn_err_t *err)
{
    *f = NULL;
    if (path && (*f = fopen(path, "w")) == NULL)
        return sn_err_inval(err, "cannot write '%s' (%s): %s", path, flag, strerror(errno));
    return 0;
}

/* One launch of the nodes: `run` has one; `bench` one per topology of --topo A;B and port model
 * of --ports P,Q, each sweeping every size. */
typedef struct run_case_s {
    char *topo, *ports; /* owned copies of this case's --topo and --ports (ports may be NULL) */
    cli_ctx_t ctx;
    int built;
} run_case_t;

#define BENCH_MAX_CASES 64

/* Splits `text` at `sep` into owned copies; 0, or SN_EINVAL (an empty item, too many). */
static int split_list(const char *text, char sep, const char *flag, char **items, size_t *n,
                      sn_err_t *err)
{
    *n = 0;
    for (const char *s = text;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t) (e - s) : strlen(s);
        if (len == 0 || *n >= BENCH_MAX_CASES)
            return sn_err_inval(
                err, "bad value '%s' for %s: %s (a list separated by '%c', at most %d)", text, flag,
                len == 0 ? "an empty item" : "too many items", sep, BENCH_MAX_CASES);
        items[*n] = sn_xmalloc(len + 1);
        memcpy(items[*n], s, len);
        items[*n][len] = '\0';
        (*n)++;
        if (e == NULL)
            return 0;
        s = e + 1;
    }
}

/* The fault a --fault option injects must be able to fire in case x. 0, or SN_EINVAL. */
static int check_fault(const sn_coord_opts_t *o, const cli_ctx_t *x, sn_err_t *err)
{
    if (o->fault == NULL)
        return 0;
    if ((uint32_t) o->fault_node >= x->topo->n)
        return sn_err_inval(err,
                            "bad value '%d:%s' for --fault: node %d is out of range (%s has nodes "
                            "0 to %u)",
                            o->fault_node, o->fault, o->fault_node, x->topo->spec, x->topo->n - 1);
    uint64_t limit = sn_model_slot_limit(x->topo, &x->params, x->predicted);
    sn_fault_t fault;
    if (sn_wire_fault_parse(o->fault, &fault, NULL) == 0 && fault.slot > limit)
        return sn_err_inval(err,
                            "bad value '%d:%s' for --fault: slot %llu is past the run's slot limit "
                            "%llu",
                            o->fault_node, o->fault, (unsigned long long) fault.slot,
                            (unsigned long long) limit);
    return 0;
}

/* The least time a slot takes over TCP in slot mode: the barrier's frames cross the kernel on
 * every link, a few microseconds on loopback at the very least (about 40 us measured with 4
 * nodes on an idle 2-core machine; docs/runtime.md). */
#define RUN_MIN_SLOT_US 1.0

/* In slot mode every slot is played, empty or not: a run whose slots could not all be played
 * within --collective-timeout-ms even at RUN_MIN_SLOT_US a slot is refused before anything
 * starts (a schedule file whose last slot is 2^32 - 1 would play empty slots for hours). */
static int check_length(const sn_coord_opts_t *o, const cli_ctx_t *x, sn_err_t *err)
{
    if (!sn_sync_lockstep(o->sync) || x->predicted <= 0)
        return 0;
    double least_s = (double) x->predicted * RUN_MIN_SLOT_US / 1e6;
    if (least_s * 1000.0 <= (double) o->collective_ms)
        return 0;
    return sn_err_inval(err,
                        "%s takes %lld slots: at %.0f us a slot, the least a slot over TCP takes, "
                        "one repetition needs at least %.0f s, above --collective-timeout-ms %u; "
                        "raise it or run fewer slots",
                        x->sched_path ? "the schedule file" : x->algo->name,
                        (long long) x->predicted, RUN_MIN_SLOT_US, least_s, o->collective_ms);
}

/* A node's open files beyond its connections: as the coordinator's (sn_coord_fd_need) */
#define RUN_FD_SPARE 32u

/* The coordinator holds a control connection per node, and a node one connection per link (its
 * degree) and its control connection: a run whose need is above the open-file limit (raised to
 * the hard limit at start-up, sn_fdlimit_raise) is refused before anything starts. */
static int check_fds(const cli_ctx_t *x, uint64_t soft, uint64_t hard, sn_err_t *err)
{
    uint64_t deg = sn_topo_max_degree(x->topo);
    uint64_t coord = sn_coord_fd_need(x->topo->n), node = deg + 1 + RUN_FD_SPARE;
    uint64_t need = coord > node ? coord : node;
    if (need <= soft)
        return 0;
    return sn_err_inval(err,
                        "%s needs about %llu open files in %s (%s, and %llu more); the limit is "
                        "%llu with the soft limit raised to the hard one (ulimit -Hn %llu): raise "
                        "the hard limit (as root `ulimit -Hn N` in the shell that runs stepnet, or "
                        "LimitNOFILE= for a service) or run a smaller topology",
                        x->topo->spec, (unsigned long long) need,
                        coord >= node ? "the coordinator" : "a node",
                        coord >= node ? "a control connection per node"
                                      : "a connection per link of its largest degree",
                        (unsigned long long) (need - (coord >= node ? x->topo->n : deg + 1)),
                        (unsigned long long) soft, (unsigned long long) hard);
}

/* Builds every case of the command (each topology and port model checked, its memory budget
 * for the largest size included) before any node starts. 0, or a negative code with err naming
 * the bad value. *cases and its strings are malloc'd (free_cases). */
static int build_cases(const cli_opts_t *cli, const sn_coord_opts_t *o, int bench,
                       run_case_t **cases, size_t *ncases, sn_err_t *err)
{
    char *topos[BENCH_MAX_CASES], *ports[BENCH_MAX_CASES];
    size_t nt = 0, np = 0;
    *cases = NULL;
    *ncases = 0;
    int rc;
    /* the soft open-file limit up to the hard one, for the coordinator and the nodes it starts,
     * which inherit it */
    uint64_t fd_hard, fd_soft = sn_fdlimit_raise(&fd_hard);
    if ((bench && cli->topo && (rc = split_list(cli->topo, ';', "--topo", topos, &nt, err)) < 0) ||
        (bench && cli->ports && (rc = split_list(cli->ports, ',', "--ports", ports, &np, err)) < 0))
        goto out;
    if (!bench || cli->topo == NULL) { /* one case; the missing --topo is reported by the build */
        topos[0] = cli->topo ? sn_xstrdup(cli->topo) : NULL;
        nt = 1;
    }
    if (!bench || cli->ports == NULL) {
        ports[0] = cli->ports ? sn_xstrdup(cli->ports) : NULL;
        np = 1;
    }
    if (nt * np > BENCH_MAX_CASES) {
        rc = sn_err_inval(err, "%zu topologies times %zu port models is more than %d runs", nt, np,
                          BENCH_MAX_CASES);
        goto out;
    }
    *cases = sn_xcalloc(nt * np, sizeof **cases);
    for (size_t i = 0; i < nt; i++)
        for (size_t k = 0; k < np; k++) {
            run_case_t *c = &(*cases)[(*ncases)++];
            c->topo = topos[i] ? sn_xstrdup(topos[i]) : NULL;
            c->ports = ports[k] ? sn_xstrdup(ports[k]) : NULL;
            cli_opts_t one = *cli;
            one.topo = c->topo;
            one.ports = c->ports;
            one.link_emulated = sn_emu_link_active(&o->emu) || o->emu_file != NULL;
            c->built = 1;
            if ((rc = cli_ctx_build(&one, &c->ctx, err)) < 0 ||
                (rc = check_fault(o, &c->ctx, err)) < 0 ||
                (rc = check_length(o, &c->ctx, err)) < 0 ||
                (rc = check_fds(&c->ctx, fd_soft, fd_hard, err)) < 0)
                goto out;
        }
    rc = 0;
out:
    for (size_t i = 0; i < nt; i++)
        free(topos[i]);
    for (size_t k = 0; k < np; k++)
        free(ports[k]);
    return rc;
}

static void free_cases(run_case_t *cases, size_t n)
{
    for (size_t i = 0; cases && i < n; i++) {
        if (cases[i].built)
            cli_ctx_free(&cases[i].ctx);
        free(cases[i].topo);
        free(cases[i].ports);
    }
    free(cases);
}

/* The report files of a command: --out, --csv and --trace (each NULL when not given). */
typedef struct run_files_s {
    FILE *out, *csv, *trace;
} run_files_t;

/* Runs case c of `run` and writes its reports. Returns the command's exit status so far (0: go
 * on with the next case), or a negative code with err when the run could not start. */
static int run_case(const cli_run_t *run, const cli_opts_t *cli, int bench, run_case_t *c,
                    const run_files_t *files, sn_err_t *err)
{
    void (*json)(FILE *, const cli_run_t *, const sn_coord_result_t *) =
        bench ? cli_bench_report_json : cli_run_report_json;
    cli_run_t one = *run;
    one.ctx = &c->ctx;
    cli_run_job(one.ctx, &one.coord.job);
    one.coord.topo_text = c->topo;
    cli_progress_t pr;
    cli_run_progress(&one.coord, run->progress, cli->cmd, &pr);
    sn_coord_result_t res;
    int rc = cli_coord_run(&one.coord, &res, err);
    if (rc < 0)
        return rc;
    if (res.failed)
        fprintf(stderr, "stepnet %s: %s\n", cli->cmd, res.error);
    if (cli->json)
        json(stdout, &one, &res);
    if (files->out)
        json(files->out, &one, &res);
    for (size_t k = 0; files->csv && k < res.npoints; k++)
        if (res.points[k].state != SN_COORD_POINT_PENDING)
            cli_record_csv_row(files->csv, &one, &res, &res.points[k]);
    if (files->trace) /* a failed run's trace says why (docs/trace.md) */
        cli_run_trace_write(files->trace, &one, &res);
    if (!cli->json)
        (bench ? cli_bench_report_text : cli_run_report_text)(stdout, &one, &res);
    /* interrupted (SIGINT, SIGTERM): 128 + the signal, as a shell reports it; a failed case ends
     * the command */
    rc = res.interrupted ? 128 + res.interrupted : res.failed ? EXIT_FAILED : EXIT_OK;
    sn_coord_result_free(&res);
    return rc;
}

/* Closes the report files; 1 when a write failed (cli_close_out said which), else 0. */
static int close_files(run_files_t *files, const cli_run_t *run)
{
    int failed = 0;
    if (files->out)
        failed |= cli_close_out(files->out, run->out_file, "--out") < 0;
    if (files->csv)
        failed |= cli_close_out(files->csv, run->csv_file, "--csv") < 0;
    if (files->trace)
        failed |= cli_close_out(files->trace, run->trace_file, "--trace") < 0;
    *files = (run_files_t){0};
    return failed;
}

/* Runs every case (cases built, files opened); the exit status. */
static int run_cases(const cli_run_t *run, const cli_opts_t *cli, int bench, run_case_t *cases,
                     size_t ncases, run_files_t *files)
{
    sn_err_t err = {0};
    if (run->coord.security == SN_SEC_NONE)
        fprintf(stderr,
                "stepnet %s: security none: links and the control channel are plaintext "
                "and unauthenticated\n",
                cli->cmd);
    if (files->csv)
        cli_record_csv_header(files->csv);
    int rc = EXIT_OK;
    for (size_t i = 0; i < ncases && rc == EXIT_OK; i++) {
        rc = run_case(run, cli, bench, &cases[i], files, &err);
        if (rc < 0)
            rc = cli_fail(&err);
    }
    int write_failed = close_files(files, run);
    return rc == EXIT_OK && write_failed ? EXIT_FAILED : rc;
}

/* `stepnet run` and `stepnet bench` (cmd_bench.c): the same life cycle, their own reports. Bad
 * input is refused before any node starts, and printed here once. */
int cli_run_command(const char *cmd, const sn_help_t *help, int argc, char **argv)
{
    cli_opts_t cli = {.cmd = cmd};
    cli_run_t run;
    sn_err_t err = {0};
    uint32_t *sizes = NULL;
    run_files_t files = {0};
    run_case_t *cases = NULL;
    size_t ncases = 0;
    int bench = strcmp(cmd, "bench") == 0;
    int rc = cli_run_parse(argc, argv, &cli, &run, help, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0)
        return cli_refuse(&err);
    if (!bench && cli_dyn_applies(cli.coll) && cli.topo)
        return cli_dyn("run", &cli, run.dyn_lambda, run.dyn_rho, run.dyn_slots, run.dyn_sweep,
                       tcp_round, &run);
    if (bench && (rc = cli_bench_sizes(&cli, &run, &sizes, &err)) < 0)
        return cli_refuse(&err);
    if ((rc = build_cases(&cli, &run.coord, bench, &cases, &ncases, &err)) < 0 ||
        (rc = open_out(run.out_file, "--out", &files.out, &err)) < 0 ||
        (rc = open_out(run.csv_file, "--csv", &files.csv, &err)) < 0 ||
        (rc = open_out(run.trace_file, "--trace", &files.trace, &err)) < 0) {
        rc = cli_refuse(&err);
        close_files(&files, &run);
    } else {
        rc = run_cases(&run, &cli, bench, cases, ncases, &files);
    }
    free_cases(cases, ncases);
    free(sizes);
    return rc;
}

int cli_cmd_run(int argc, char **argv)
{
    return cli_run_command("run", usage, argc, argv);
}
