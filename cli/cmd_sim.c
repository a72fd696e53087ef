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

#include "cli.h"
#include "report.h"
#include "trace.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"

static const char usage[] =
    "usage: stepnet sim --topo SPEC --coll C [options]\n"
    "\n"
    "Runs the collective in this process, every node's state machine in lockstep, with the port\n"
    "model enforced and every delivered packet verified (right node, right payload, exactly\n"
    "once). Reports the measured steps next to the predicted count and the lower bounds.\n"
    "\n" CLI_SHARED_OPTIONS_HELP "\n"
    "Dynamic broadcasting (--coll dynbcast): Poisson requests at every node, served in rounds of\n"
    "partial multinode broadcasts, each verified; reports the delay distribution in time units "
    "next\n"
    "to the paper's bound and stability limit. Meshes and tori: rounds of pmnb-mesh-split, bound\n"
    "(11) and limit (14) of Varvarigos and Bertsekas (d-dimensional meshes, section 5). Folded\n"
    "cubes FQ_d, d >= 2: rounds of pmnb-fcube, bound eq. (6) and limit eq. (5) of Varvarigos\n"
    "(folded cubes, dynamic broadcasting).\n"
    "  --lambda L         requests per node per time unit\n"
    "  --rho R            instead of --lambda: the load rho = lambda N X (X of (9a); on a\n"
    "                     folded cube X = 1/(d+1), the utilisation)\n"
    "  --slots T          requests arrive during the first T time units (default 1000)\n"
    "  --sweep-rho A:B:S  the delay-versus-load curve as CSV: rho from A to B in steps of S,\n"
    "                     the mean delay and the paper's bound as its first columns\n"
    "  --algo A           the rounds: auto (the family's), pmnb-mesh-split or pmnb-mesh (no\n"
    "                     splitting: X (9b), V (10b)) on meshes and tori, pmnb-fcube on folded\n"
    "                     cubes\n"
    "  --frags F          default 2d on a torus, d on an array (the split algorithm's pieces),\n"
    "                     1 on a folded cube\n"
    "\n"
    "  --threads N        step the nodes of busy slots on N threads (default: the CPUs this\n"
    "                     process may use, at most 64); the result is the same for every N.\n"
    "                     Algorithms whose steps are marked independent only (the report says\n"
    "                     how many threads ran and, when one, why)\n"
    "\n"
    "Traces (docs/trace.md):\n"
    "  --trace FILE       write every transmission as Chrome trace-event JSON (Perfetto,\n"
    "                     chrome://tracing): one process per node, one thread per port, one\n"
    "                     `send` event per transmission; time axis: slot s is [s-1, s) ms\n"
    "  --trace-slots N    record slots 1 to N only (default 10000, at most 100000); the file\n"
    "                     says when it is truncated\n"
    "\n"
    "Exit status: 0 verified, 1 the run failed or did not verify, 2 bad input.\n";

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

int cli_cmd_sim(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "sim"};
    const char *lambda_s = NULL, *rho_s = NULL, *sweep = NULL, *trace_file = NULL;
    int64_t slots = -1, trace_slots = -1, threads = default_threads();
    const cli_opt_t extra[] = {
        {.name = "--threads",
         .num = &threads,
         .lo = 1,
         .hi = SN_SIM_MAX_THREADS,
         .unit = "threads"},
        {.name = "--lambda", .str = &lambda_s},
        {.name = "--rho", .str = &rho_s},
        {.name = "--sweep-rho", .str = &sweep},
        {.name = "--slots", .num = &slots, .lo = 1, .hi = 1000000000, .unit = "time units"},
        {.name = "--trace", .str = &trace_file},
        {.name = "--trace-slots",
         .num = &trace_slots,
         .lo = 1,
         .hi = CLI_TRACE_MAX_SLOTS,
         .unit = "slots"},
        {0}};
    sn_err_t perr = {0};
    int rc = cli_opts_parse(argc, argv, &o, extra, usage, &perr);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0) {
        cli_err_print("stepnet", &perr);
        return EXIT_BADINPUT;
    }
    if (trace_slots > 0 && trace_file == NULL) {
        fprintf(stderr, "stepnet: --trace-slots applies with --trace FILE only\n");
        return EXIT_BADINPUT;
    }
    if (trace_file && o.coll && strcmp(o.coll, "dynbcast") == 0) {
        fprintf(stderr, "stepnet: --trace applies to one collective, not to --coll dynbcast\n");
        return EXIT_BADINPUT;
    }
    if (o.coll && strcmp(o.coll, "dynbcast") == 0 && o.topo)
        return cli_dyn("sim", &o, lambda_s, rho_s, slots, sweep, NULL, NULL);
    if (lambda_s || rho_s || slots > 0 || sweep) {
        fprintf(stderr, "stepnet: --lambda, --rho, --sweep-rho and --slots apply to --coll "
                        "dynbcast only\n");
        return EXIT_BADINPUT;
    }
    cli_ctx_t c;
    if ((rc = cli_ctx_init(&o, &c))) {
        cli_ctx_free(&c);
        return rc;
    }
    /* the trace file is opened before the run: a path that cannot be written is bad input */
    FILE *tf = NULL;
    sim_trace_t st = {.cap = trace_slots > 0 ? (uint64_t) trace_slots : CLI_TRACE_DEFAULT_SLOTS};
    if (trace_file && (tf = fopen(trace_file, "w")) == NULL) {
        fprintf(stderr, "stepnet: cannot write '%s' (--trace): %s\n", trace_file, strerror(errno));
        cli_ctx_free(&c);
        return EXIT_BADINPUT;
    }
    progress_t pr;
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    pr.last = pr.start;
    sn_sim_opts_t so = {0};
    so.max_slots = o.max_slots > 0 ? (uint64_t) o.max_slots
                                   : sn_model_slot_limit(c.topo, &c.params, c.predicted);
    so.threads = (uint32_t) threads;
    if (o.progress == 1 || (o.progress == -1 && isatty(2))) {
        so.progress = on_progress;
        so.progress_ctx = &pr;
    }
    if (tf) {
        cli_trace_begin(&st.tr, tf, c.topo);
        so.on_send = on_send;
        so.send_ctx = &st;
    }
    sn_sim_result_t res;
    sn_err_t err = {0};
    const char *serial_why = NULL;
    uint32_t nthreads = sn_sim_threads_used(c.topo, &c.params, c.algo, &so, &serial_why);
    int src = sn_sim_run(c.topo, &c.params, c.algo, c.plan, &so, &res, &err);
    int trace_failed = 0;
    if (tf) {
        char note[160];
        const char *trunc = NULL;
        if (st.dropped) {
            snprintf(note, sizeof note,
                     "slots after %llu not recorded (--trace-slots): %llu transmissions left out",
                     (unsigned long long) st.cap, (unsigned long long) st.dropped);
            cli_trace_note(&st.tr, "trace truncated", (double) st.cap * CLI_TRACE_SIM_US_PER_SLOT,
                           note);
            trunc = note;
        }
        if (src < 0) { /* the run stopped where the error says: the trace ends there */
            char etx[CLI_ERR_TEXT_MAX];
            cli_err_text(&err, etx, sizeof etx);
            cli_trace_note(&st.tr, "sim failed", (double) res.steps * CLI_TRACE_SIM_US_PER_SLOT,
                           etx);
        }
        cli_trace_end(&st.tr, "sim", &c,
                      "1 ms of the time axis is 1 slot: slot s spans [s-1, s) ms", 0,
                      res.steps < st.cap ? res.steps : st.cap, trunc);
        trace_failed = cli_close_out(tf, trace_file, "--trace") < 0;
    }
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double secs = since(&pr.start, &end);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int ok = src == 0 && res.verified;
    char etext[CLI_ERR_TEXT_MAX];
    cli_err_text(&err, etext, sizeof etext); /* names the flag, e.g. of the slot limit */
    if (!ok)
        fprintf(stderr, "stepnet sim: %s: %s\n", sn_err_name(src ? src : SN_EVERIFY), etext);
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long) res.trace_hash);
    char qnode[SN_TOPO_MAX_LABEL];
    sn_topo_label(c.topo, res.max_queue_node, qnode, sizeof qnode);
    if (o.json) {
        cli_json_t j;
        cli_json_begin(&j, stdout);
        cli_report_json_head(&j, "sim", &c);
        cli_json_uint(&j, "steps", res.steps);
        cli_json_uint(&j, "control_slots", res.control_slots);
        cli_json_uint(&j, "data_slots", res.steps - res.control_slots);
        cli_json_double(&j, "time_units", cli_time_units(&c, res.steps, res.control_slots));
        cli_json_uint(&j, "packets", res.packets);
        cli_json_uint(&j, "control_packets", res.control_packets);
        cli_json_uint(&j, "deliveries", res.deliveries);
        cli_json_uint(&j, "expected_deliveries", res.expected_deliveries);
        cli_json_bool(&j, "verified", ok);
        cli_json_str(&j, "trace_hash", hash);
        cli_json_uint(&j, "node_steps", res.node_steps);
        if (res.max_queue_reported) {
            cli_json_uint(&j, "max_queue", res.max_queue);
            cli_json_str(&j, "max_queue_node", qnode);
        } else { /* not measured: the algorithm does not report its queues */
            cli_json_null(&j, "max_queue");
            cli_json_null(&j, "max_queue_node");
        }
        cli_json_double(&j, "wall_s", secs);
        cli_json_double(&j, "hops_per_s", secs > 0 ? (double) res.packets / secs : 0.0);
        cli_json_uint(&j, "peak_rss_kb", (uint64_t) ru.ru_maxrss);
        cli_json_uint(&j, "threads", nthreads);
        if (serial_why)
            cli_json_str(&j, "threads_note", serial_why);
        else
            cli_json_null(&j, "threads_note");
        if (!ok)
            cli_json_str(&j, "error", etext);
        cli_json_end(&j);
    } else {
        cli_report_text_head(stdout, "sim", &c);
        printf("  steps           %llu%s\n", (unsigned long long) res.steps,
               c.predicted < 0                      ? ""
               : (int64_t) res.steps == c.predicted ? "  (= predicted)"
                                                    : "  (DIFFERS from predicted)");
        if (res.control_slots || res.control_packets)
            printf("  control         %llu slots, %llu packets\n",
                   (unsigned long long) res.control_slots,
                   (unsigned long long) res.control_packets);
        if (res.control_slots || c.params.frags > 1)
            printf("  time            %.6g time units (%llu data slots / %u + %llu control slots "
                   "x tp %g)\n",
                   cli_time_units(&c, res.steps, res.control_slots),
                   (unsigned long long) (res.steps - res.control_slots), c.params.frags,
                   (unsigned long long) res.control_slots, c.tp);
        if (res.control_slots && c.topo->kind == SN_TOPO_FOLDEDCUBE &&
            c.params.coll == SN_COLL_PMNB && c.params.nsources > 0)
            printf("  eq. (4)         %.6g time units (ceil(M/(d+1)) + 2d - 1 + 4d x tp: the "
                   "folded-cube PMNB bound, Varvarigos)\n",
                   sn_model_fcube_eq4(c.topo->a, c.params.nsources, c.tp));
        printf("  deliveries      %llu of %llu, %s\n", (unsigned long long) res.deliveries,
               (unsigned long long) res.expected_deliveries, ok ? "verified" : "NOT verified");
        printf("  packets         %llu link crossings\n", (unsigned long long) res.packets);
        printf("  trace_hash      %s\n", hash);
        if (res.max_queue_reported)
            printf("  max_queue       %llu packets waiting at node %s\n",
                   (unsigned long long) res.max_queue, qnode);
        else
            printf("  max_queue       not reported by %s\n", c.algo->name);
        printf("  simulator       %.3f s, %.3g packet-hops/s, peak RSS %ld MiB, ", secs,
               secs > 0 ? (double) res.packets / secs : 0.0, ru.ru_maxrss / 1024);
        if (serial_why)
            printf("1 thread (%s)\n", serial_why);
        else
            printf("%u threads\n", nthreads);
    }
    cli_ctx_free(&c);
    return ok && !trace_failed ? EXIT_OK : EXIT_FAILED;
}
