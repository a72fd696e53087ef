/* `stepnet sim`: runs a collective in process with core/sim and reports the measured steps next to
 * the predicted count and the lower bounds (cli). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "cli/trace.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"

static const char usage_head[] =
    "usage: stepnet sim --topo SPEC --coll C [options]\n"
    "       stepnet sim --algo schedule:FILE [options]\n"
    "\n"
    "Runs the collective in this process, every node's state machine in lockstep, with the port\n"
    "model enforced and every delivered packet verified (right node, right payload, exactly\n"
    "once). Reports the measured steps next to the predicted count and the lower bounds.\n"
    "\n";
static const char usage_dyn[] =
    "\n"
    "Dynamic broadcasting (--coll dynbcast): Poisson requests at every node, served in rounds of\n"
    "partial multinode broadcasts, each verified; reports the delay distribution in time units "
    "next\n"
    "to the paper's bound and stability limit. Meshes and tori: rounds of pmnb-mesh-split, bound\n"
    "(11) and limit (14) of Varvarigos and Bertsekas (d-dimensional meshes, section 5). Folded\n"
    "cubes FQ_d, d >= 2: rounds of pmnb-fcube, bound eq. (6) and limit eq. (5) of Varvarigos\n"
    "(folded cubes, dynamic broadcasting).\n";
static const char usage_traces[] = "\n"
                                   "Traces (docs/trace.md):\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 verified, 1 the run failed or did not verify, 2 bad input.\n";

/* --help: the prose, and the lines of the options (options.c, sim_parse). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.text = usage_dyn},
    {.lines = (const char *const[]){"--lambda", "--rho", "--slots", "--sweep-rho", "--algo A",
                                    "--frags F", NULL},
     .col = CLI_HELP_COL},
    {.text = "\n"},
    {.lines = (const char *const[]){"--threads", NULL}, .col = CLI_HELP_COL},
    {.text = usage_traces},
    {.lines = (const char *const[]){"--trace", "--trace-slots", NULL}, .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_sim(void)
{
    return usage;
}

/* --trace: the file, the slots recorded and the transmissions past them. */
typedef struct {
    cli_trace_t tr;
    uint64_t cap, dropped;
} sim_trace_t;

static void on_send(void *ctx, uint64_t slot, uint32_t node, uint32_t port, const sn_packet_t *pkt)
{
    sim_trace_t *st = ctx;
    if (slot > st->cap) {
        st->dropped++;
        return;
    }
    cli_trace_send(&st->tr, node, port, slot, pkt, (double) (slot - 1) * CLI_TRACE_SIM_US_PER_SLOT,
                   CLI_TRACE_SIM_US_PER_SLOT, -1);
}

/* --coll dynbcast: rounds of verified partial multinode broadcasts under Poisson arrivals. */
typedef struct {
    struct timespec start, last;
} progress_t;

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double) (b->tv_sec - a->tv_sec) + (double) (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void on_progress(void *ctx, uint64_t slot, uint64_t done, uint64_t expected)
{
    progress_t *pr = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (since(&pr->last, &now) < 2.0)
        return;
    pr->last = now;
    fprintf(stderr, "stepnet sim: slot %llu, %llu of %llu deliveries (%.0f%%), %.0f s\n",
            (unsigned long long) slot, (unsigned long long) done, (unsigned long long) expected,
            expected ? 100.0 * (double) done / (double) expected : 100.0, since(&pr->start, &now));
}

/* The CPUs this process may run on (its affinity mask), at most SN_SIM_MAX_THREADS. */
static int64_t default_threads(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > SN_SIM_MAX_THREADS ? SN_SIM_MAX_THREADS : n;
}

/* What a simulator run gave, for its reports. */
typedef struct sim_outcome_s {
    sn_sim_result_t res;
    int ok;                 /* it ran to the end and verified */
    double secs;            /* its wall time */
    long rss_kb;            /* the process's peak resident set */
    uint32_t threads;       /* the threads that stepped it */
    const char *serial_why; /* why one thread, or NULL */
    char etext[CLI_ERR_TEXT_MAX];
    char hash[24];
    char qnode[SN_TOPO_MAX_LABEL];
} sim_outcome_t;

/* Closes the trace of a run that stopped at res->steps (src < 0: with the error err), noting what
 * --trace-slots left out. 0, or -1 when the file could not be written. */
static int sim_trace_close(sim_trace_t *st, FILE *tf, const char *trace_file, const cli_ctx_t *c,
                           int src, const sn_sim_result_t *res, const sn_err_t *err)
{
    char note[160];
    const char *trunc = NULL;
    if (st->dropped) {
        snprintf(note, sizeof note,
                 "slots after %llu not recorded (--trace-slots): %llu transmissions left out",
                 (unsigned long long) st->cap, (unsigned long long) st->dropped);
        cli_trace_note(&st->tr, "trace truncated", (double) st->cap * CLI_TRACE_SIM_US_PER_SLOT,
                       note);
        trunc = note;
    }
    if (src < 0) { /* the run stopped where the error says: the trace ends there */
        char etx[CLI_ERR_TEXT_MAX];
        cli_err_text(err, etx, sizeof etx);
        cli_trace_note(&st->tr, "sim failed", (double) res->steps * CLI_TRACE_SIM_US_PER_SLOT, etx);
    }
    cli_trace_end(&st->tr, "sim", c, "1 ms of the time axis is 1 slot: slot s spans [s-1, s) ms", 0,
                  res->steps < st->cap ? res->steps : st->cap, trunc);
    return cli_close_out(tf, trace_file, "--trace");
}

static void sim_report_json(const cli_ctx_t *c, const sim_outcome_t *out)
{
    const sn_sim_result_t *res = &out->res;
    cli_json_t j;
    cli_json_begin(&j, stdout);
    cli_report_json_head(&j, "sim", c);
    cli_json_uint(&j, "steps", res->steps);
    cli_json_uint(&j, "control_slots", res->control_slots);
    cli_json_uint(&j, "data_slots", res->steps - res->control_slots);
    cli_json_double(&j, "time_units", cli_time_units(c, res->steps, res->control_slots));
    cli_json_uint(&j, "packets", res->packets);
    cli_json_uint(&j, "control_packets", res->control_packets);
    cli_json_uint(&j, "deliveries", res->deliveries);
    cli_json_uint(&j, "expected_deliveries", res->expected_deliveries);
    cli_json_bool(&j, "verified", out->ok);
    cli_json_str(&j, "trace_hash", out->hash);
    cli_json_uint(&j, "node_steps", res->node_steps);
    if (res->max_queue_reported) {
        cli_json_uint(&j, "max_queue", res->max_queue);
        cli_json_str(&j, "max_queue_node", out->qnode);
    } else { /* not measured: the algorithm does not report its queues */
        cli_json_null(&j, "max_queue");
        cli_json_null(&j, "max_queue_node");
    }
    cli_json_double(&j, "wall_s", out->secs);
    cli_json_double(&j, "hops_per_s", out->secs > 0 ? (double) res->packets / out->secs : 0.0);
    cli_json_uint(&j, "peak_rss_kb", (uint64_t) out->rss_kb);
    cli_json_uint(&j, "threads", out->threads);
    if (out->serial_why)
        cli_json_str(&j, "threads_note", out->serial_why);
    else
        cli_json_null(&j, "threads_note");
    if (!out->ok)
        cli_json_str(&j, "error", out->etext);
    cli_json_end(&j);
}

static void sim_report_text(const cli_ctx_t *c, const sim_outcome_t *out)
{
    const sn_sim_result_t *res = &out->res;
    cli_report_text_head(stdout, "sim", c);
    printf("  steps           %llu%s\n", (unsigned long long) res->steps,
           c->predicted < 0                       ? ""
           : (int64_t) res->steps == c->predicted ? "  (= predicted)"
                                                  : "  (DIFFERS from predicted)");
    if (res->control_slots || res->control_packets)
        printf("  control         %llu slots, %llu packets\n",
               (unsigned long long) res->control_slots, (unsigned long long) res->control_packets);
    if (res->control_slots || c->params.frags > 1)
        printf("  time            %.6g time units (%llu data slots / %u + %llu control slots "
               "x tp %g)\n",
               cli_time_units(c, res->steps, res->control_slots),
               (unsigned long long) (res->steps - res->control_slots), c->params.frags,
               (unsigned long long) res->control_slots, c->tp);
    if (res->control_slots && c->topo->kind == SN_TOPO_FOLDEDCUBE &&
        c->params.coll == SN_COLL_PMNB && c->params.nsources > 0)
        printf("  eq. (4)         %.6g time units (ceil(M/(d+1)) + 2d - 1 + 4d x tp: the "
               "folded-cube PMNB bound, Varvarigos)\n",
               sn_model_fcube_eq4(c->topo->a, c->params.nsources, c->tp));
    printf("  deliveries      %llu of %llu, %s\n", (unsigned long long) res->deliveries,
           (unsigned long long) res->expected_deliveries, out->ok ? "verified" : "NOT verified");
    printf("  packets         %llu link crossings\n", (unsigned long long) res->packets);
    printf("  trace_hash      %s\n", out->hash);
    if (res->max_queue_reported)
        printf("  max_queue       %llu packets waiting at node %s\n",
               (unsigned long long) res->max_queue, out->qnode);
    else
        printf("  max_queue       not reported by %s\n", c->algo->name);
    printf("  simulator       %.3f s, %.3g packet-hops/s, peak RSS %ld MiB, ", out->secs,
           out->secs > 0 ? (double) res->packets / out->secs : 0.0, out->rss_kb / 1024);
    if (out->serial_why)
        printf("1 thread (%s)\n", out->serial_why);
    else
        printf("%u threads\n", out->threads);
}

/* The options of `stepnet sim` besides the shared ones, as given. */
typedef struct sim_args_s {
    const char *lambda, *rho, *sweep, *trace_file;
    int64_t slots, trace_slots, threads;
} sim_args_t;

/* Parses the options; checks those that go together. 0, CLI_HELP, or SN_EINVAL with err naming
 * the bad value. */
static int sim_parse(int argc, char **argv, cli_opts_t *o, sim_args_t *a, sn_err_t *err)
{
    *a = (sim_args_t){.slots = -1, .trace_slots = -1, .threads = default_threads()};
    const sn_opt_t extra[] = {
        {.name = "--threads",
         .kind = SN_OPT_INT,
         .num = &a->threads,
         .lo = 1,
         .hi = SN_SIM_MAX_THREADS,
         .unit = "threads",
         .arg = "N",
         .help = "step the nodes of busy slots on N threads (default: the CPUs this\n"
                 "process may use, at most 64); the result is the same for every N.\n"
                 "Algorithms whose steps are marked independent only (the report says\n"
                 "how many threads ran and, when one, why)"},
        {.name = "--lambda",
         .kind = SN_OPT_STR,
         .str = &a->lambda,
         .arg = "L",
         .help = "requests per node per time unit"},
        {.name = "--rho",
         .kind = SN_OPT_STR,
         .str = &a->rho,
         .arg = "R",
         .help = "instead of --lambda: the load rho = lambda N X (X of (9a); on a\n"
                 "folded cube X = 1/(d+1), the utilisation)"},
        {.name = "--sweep-rho",
         .kind = SN_OPT_STR,
         .str = &a->sweep,
         .arg = "A:B:S",
         .help = "the delay-versus-load curve as CSV: rho from A to B in steps of S,\n"
                 "the mean delay and the paper's bound as its first columns"},
        {.name = "--slots",
         .kind = SN_OPT_INT,
         .num = &a->slots,
         .lo = 1,
         .hi = 1000000000,
         .unit = "time units",
         .arg = "T",
         .help = "requests arrive during the first T time units (default 1000)"},
        /* what two shared options mean for dynbcast: lines of --help only */
        {.name = "--algo",
         .kind = SN_OPT_DOC,
         .arg = "A",
         .help = "the rounds: auto (the family's), pmnb-mesh-split or pmnb-mesh (no\n"
                 "splitting: X (9b), V (10b)) on meshes and tori, pmnb-fcube on folded\n"
                 "cubes"},
        {.name = "--frags",
         .kind = SN_OPT_DOC,
         .arg = "F",
         .help = "default 2d on a torus, d on an array (the split algorithm's pieces),\n"
                 "1 on a folded cube"},
        {.name = "--trace",
         .kind = SN_OPT_STR,
         .str = &a->trace_file,
         .arg = "FILE",
         .help = "write every transmission as Chrome trace-event JSON (Perfetto,\n"
                 "chrome://tracing): one process per node, one thread per port, one\n"
                 "`send` event per transmission; time axis: slot s is [s-1, s) ms"},
        {.name = "--trace-slots",
         .kind = SN_OPT_INT,
         .num = &a->trace_slots,
         .lo = 1,
         .hi = CLI_TRACE_MAX_SLOTS,
         .unit = "slots",
         .arg = "N",
         .help = "record slots 1 to N only (default 10000, at most 100000); the file\n"
                 "says when it is truncated"},
        {0}};
    int rc = cli_opts_parse(argc, argv, o, extra, usage, err);
    if (rc != 0)
        return rc;
    int dyn = cli_dyn_applies(o->coll);
    if (a->trace_slots > 0 && a->trace_file == NULL)
        return sn_err_inval(err, "--trace-slots applies with --trace FILE only");
    if (a->trace_file && dyn)
        return sn_err_inval(err, "--trace applies to one collective, not to --coll dynbcast");
    if (!(dyn && o->topo) && (a->lambda || a->rho || a->slots > 0 || a->sweep))
        return sn_err_inval(err, "--lambda, --rho, --sweep-rho and --slots apply to --coll "
                                 "dynbcast only");
    return 0;
}

/* This process's peak resident set in KiB. VmHWM of /proc/self/status counts this process alone;
 * getrusage's ru_maxrss is the fallback where /proc is absent (not Linux), and on Linux it would
 * carry a parent's peak across fork and exec (a parent holding 200 MB makes every child report
 * 200 MB). */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        long kb = -1;
        while (kb < 0 && fgets(line, sizeof line, f))
            if (sscanf(line, "VmHWM: %ld kB", &kb) != 1)
                kb = -1;
        fclose(f);
        if (kb >= 0)
            return kb;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Runs the collective of c in the simulator with the options' threads, progress, slot limit and
 * trace; fills out. The trace file (tf, NULL: none) is closed here. 0, or -1 when the trace could
 * not be written. */
static int sim_run(const cli_opts_t *o, const sim_args_t *a, const cli_ctx_t *c, FILE *tf,
                   sim_outcome_t *out)
{
    sim_trace_t st = {.cap =
                          a->trace_slots > 0 ? (uint64_t) a->trace_slots : CLI_TRACE_DEFAULT_SLOTS};
    progress_t pr;
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    pr.last = pr.start;
    sn_sim_opts_t so = {0};
    so.max_slots = o->max_slots > 0 ? (uint64_t) o->max_slots
                                    : sn_model_slot_limit(c->topo, &c->params, c->predicted);
    so.threads = (uint32_t) a->threads;
    if (o->progress == 1 || (o->progress == -1 && isatty(2))) {
        so.progress = on_progress;
        so.progress_ctx = &pr;
    }
    if (tf) {
        cli_trace_begin(&st.tr, tf, c->topo);
        so.on_send = on_send;
        so.send_ctx = &st;
    }
    sn_err_t err = {0};
    out->serial_why = NULL;
    out->threads = sn_sim_threads_used(c->topo, &c->params, c->algo, &so, &out->serial_why);
    int src = sn_sim_run(c->topo, &c->params, c->algo, c->plan, &so, &out->res, &err);
    int trace_failed = tf && sim_trace_close(&st, tf, a->trace_file, c, src, &out->res, &err) < 0;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    out->secs = since(&pr.start, &end);
    out->rss_kb = peak_rss_kb();
    out->ok = src == 0 && out->res.verified;
    cli_err_text(&err, out->etext, sizeof out->etext); /* names the flag, e.g. of the slot limit */
    if (!out->ok)
        fprintf(stderr, "stepnet sim: %s: %s\n", sn_err_name(src ? src : SN_EVERIFY), out->etext);
    snprintf(out->hash, sizeof out->hash, "%016llx", (unsigned long long) out->res.trace_hash);
    sn_topo_label(c->topo, out->res.max_queue_node, out->qnode, sizeof out->qnode);
    return trace_failed ? -1 : 0;
}

int cli_cmd_sim(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "sim"};
    sim_args_t a;
    sn_err_t err = {0};
    int rc = sim_parse(argc, argv, &o, &a, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0)
        return cli_refuse(&err);
    if (cli_dyn_applies(o.coll) && o.topo)
        return cli_dyn("sim", &o, a.lambda, a.rho, a.slots, a.sweep, NULL, NULL);
    cli_ctx_t c;
    if ((rc = cli_ctx_init(&o, &c))) {
        cli_ctx_free(&c);
        return rc;
    }
    /* the trace file is opened before the run: a path that cannot be written is bad input */
    FILE *tf = NULL;
    if (a.trace_file && (tf = fopen(a.trace_file, "w")) == NULL) {
        sn_err_inval(&err, "cannot write '%s' (--trace): %s", a.trace_file, strerror(errno));
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    sim_outcome_t out;
    int trace_failed = sim_run(&o, &a, &c, tf, &out) < 0;
    if (o.json)
        sim_report_json(&c, &out);
    else
        sim_report_text(&c, &out);
    cli_ctx_free(&c);
    return out.ok && !trace_failed ? EXIT_OK : EXIT_FAILED;
}
