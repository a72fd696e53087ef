/* `stepnet run` and `stepnet bench` (cli): the commands around coord_run. Runs a collective over
 * real TCP links between stepnet-node processes: by default one local process per topology node on
 * 127.0.0.1 (port 0, no set-up); with --nodes join, nodes started anywhere with `stepnet-node
 * --join`. Parses the options, calls coord_run, prints the report; errors are printed here only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "secure.h"
#include "sweep.h"
#include "wire.h"
#include "stepnet/util.h"

/* The options run and bench share after their own. */
#define RUN_TRANSPORT_HELP                                                                         \
    "  --csv FILE         also write the measurements as CSV to FILE (header and one row per\n"    \
    "                     size; docs/output.md)\n"                                                 \
    "  --progress         progress on stderr (repetitions, size, slots per second) even when\n"    \
    "                     stderr is not a terminal; --no-progress: none (default: on a "           \
    "terminal)\n"                                                                                  \
    "  --nodes local|join local: spawn the nodes on 127.0.0.1 (default); join: wait for nodes\n"   \
    "                     started with `stepnet-node --join HOST:PORT`\n"                          \
    "  --listen ADDR      coordinator address (default 127.0.0.1:0; join mode needs it, e.g.\n"    \
    "                     0.0.0.0:7000; --hosts needs an address the hosts can reach)\n"           \
    "  --nodes ADDR,ADDR,...  persistent daemons (`stepnet-node --serve --listen ADDR`), one\n"    \
    "                     per node: the coordinator dials each (authenticated with --key) and\n"   \
    "                     invites it; the daemon's node joins back. Node id = position in the\n"   \
    "                     list unless the daemon was started with --id (docs/deploy.md). Here\n"   \
    "                     --listen defaults to 0.0.0.0:0 (give [::]:0 for IPv6 daemons)\n"         \
    "  --port-range LO-HI the control listener takes the first free port from LO to HI (with\n"    \
    "                     --listen HOST:0 or the default); local nodes' link listeners too\n"      \
    "  --hosts FILE|LIST  start the nodes over ssh on these hosts: a hostfile (one host per\n"     \
    "                     line, `[user@]host[:port] [slots=N]`, # comments, as Open MPI's) or\n"   \
    "                     a list `host[:slots],...` as mpirun -H takes it; an argument with a\n"   \
    "                     '/' or naming an existing file is a hostfile. A host without slots=N\n"  \
    "                     has 1 slot; every node is one process on its host\n"                     \
    "  --map-by slot|node placement of node ids on the hosts (printed on stderr): slot "           \
    "(default)\n"                                                                                  \
    "                     fills each host's slots in list order; node deals ids round-robin, "     \
    "one\n"                                                                                        \
    "                     per host, skipping full hosts\n"                                         \
    "  --remote-node PATH the stepnet-node program on the hosts (default: stepnet-node on the\n"   \
    "                     remote PATH)\n"                                                          \
    "  --ssh COMMAND      the ssh client and its options, split at spaces, no quoting (default\n"  \
    "                     $STEPNET_SSH, else ssh), e.g. \"ssh -p 2222 -i /home/me/lab.key\";\n"    \
    "                     stepnet adds -T -o BatchMode=yes -o ConnectTimeout=S and sends the\n"    \
    "                     cluster key on ssh's standard input, never on a command line\n"          \
    "  --key FILE         the cluster key (stepnet keygen): required in join mode; local and\n"    \
    "                     --hosts runs make a fresh key per run unless this is given\n"            \
    "  --security MODE    sodium (default: every connection authenticated and encrypted) or "      \
    "none\n"                                                                                       \
    "                     (plaintext, for raw measurements; join mode and --hosts also need\n"     \
    "                     --insecure-ok)\n"                                                        \
    "  --insecure-ok      accept --security none in join mode or with --hosts\n"                   \
    "  --cipher C         sodium's cipher: auto (default: AES-256-GCM where both ends of a\n"      \
    "                     connection have AES-NI, else XChaCha20-Poly1305), aes256gcm or\n"        \
    "                     xchacha20poly1305 (every connection must then use it)\n"                 \
    "  --node-bin PATH    the stepnet-node executable (default: next to stepnet)\n"                \
    "  --probes N         ping-pong probes per link and size for calibration, and rounds of the\n" \
    "                     time model's node and control-leg probes (default 20; 0 skips them\n"    \
    "                     and the model)\n"                                                        \
    "  --connect-timeout-ms MS    nodes connecting to each other (default 10000)\n"                \
    "  --ready-timeout-ms MS      every node joined and ready (default 30000)\n"                   \
    "  --slot-timeout-ms MS       one slot without progress (default 5000)\n"                      \
    "  --collective-timeout-ms MS one repetition (default 300000)\n"                               \
    "  --heartbeat-ms MS  control-channel heartbeat period outside collectives (default 1000;\n"   \
    "                     0: none); 5 periods of silence end the run, or make a node leave\n"      \
    "  --spin-us US       while a slot waits for frames, each node polls its sockets without\n"    \
    "                     sleeping (yielding the CPU between polls, as MPI libraries do) for up\n" \
    "                     to US microseconds after the slot began, then sleeps until a frame\n"    \
    "                     comes (default 1000; 0: always sleep)\n"                                 \
    "  --coord-nice N     once the local nodes are started, the coordinator adds N (0 to 19) to\n" \
    "                     its nice value, so that its bookkeeping yields the CPU to the nodes\n"   \
    "                     sharing its machine (default 10; 0: same priority as the nodes)\n"       \
    "  --termination learn|detect  learn (default): the first repetition of each size detects\n"   \
    "                     its end (diameter + 1 slots of empty frames after the last node is\n"    \
    "                     done), the later ones stop at the slot it found, each node checking\n"   \
    "                     that it is done there; detect: every repetition detects its end\n"       \
    "  --fault ID:KIND@SLOT       testing: node ID kills itself (kill), stops (stop), sends a\n"   \
    "                             malformed (garbage) or oversized (oversize) frame at SLOT, or\n" \
    "                             flips one bit of its next frame on the wire (flip)\n"            \
    "  --token HEX        testing: a fixed run token instead of a random one (every link hello "   \
    "must\n"                                                                                       \
    "                     carry the token)\n"                                                      \
    "  --verbose          node logs of routine events on stderr\n"

static const char usage[] =
    "usage: stepnet run --topo SPEC --coll C [options]\n"
    "\n"
    "Runs the collective over real TCP links: one stepnet-node process per node, one TCP\n"
    "connection per link, a libuv slot barrier in every node. Every payload byte is checked at\n"
    "every hop. Reports measured steps (the same as `stepnet sim` gives) and wall times (avg,\n"
    "min, max, p50, p99) next to the time model's prediction: per slot the slowest link or\n"
    "busiest interface of the schedule, from a start-up calibration of every link and node, plus\n"
    "the control legs (docs/model.md). For a sweep over packet sizes see `stepnet bench`.\n"
    "\n" CLI_SHARED_OPTIONS_HELP
    "  --reps N           measured repetitions (default 5; --iters N is the same)\n"
    "  --warmup N         unmeasured repetitions first (default 1)\n"
    "  --out FILE         also write the JSON report to FILE\n" RUN_TRANSPORT_HELP
    "  --idle-slots N     benchmark: each repetition is N slots of the bare barrier (empty frames\n"
    "                     on every link) instead of the collective; reports us per slot\n"
    "  --trace FILE       write one measured repetition as Chrome trace-event JSON (Perfetto,\n"
    "                     chrome://tracing; docs/trace.md): per node and slot when its frames\n"
    "                     left, when each neighbour's frame came in and which one it waited for\n"
    "                     last, and one `send` event per transmission; times in microseconds of\n"
    "                     the nodes' monotonic clock (comparable across nodes on one machine\n"
    "                     only)\n"
    "  --trace-slots N    nodes record slots 1 to N only (default 10000, at most 100000); the\n"
    "                     file says when it is truncated\n"
    "  --trace-rep N      the measured repetition traced, 1 to --reps (default the last)\n"
    "  --link-delay TIME  link emulation by the nodes (no root, no netem): delay every frame on\n"
    "                     every link by TIME, in tc units (200us, 1.5ms, 1s; bare: us)\n"
    "  --link-jitter TIME vary each frame's delay uniformly by +-TIME (frames keep their order)\n"
    "  --link-rate RATE   token-bucket rate of every link, in tc units (100mbit, 1gbit, 10mbps)\n"
    "  --link-file FILE   per-link values: lines 'default|dim D|edge E|link A-B delay=TIME\n"
    "                     jitter=TIME rate=RATE' (docs/runtime.md, Link emulation)\n"
    "\n"
    "  --coll dynbcast --lambda L|--rho R --slots T   dynamic broadcasting: every round a TCP\n"
    "                     run of pmnb-mesh-split, or pmnb-fcube on a folded cube (see stepnet\n"
    "                     sim --help)\n"
    "\n"
    "Exit status: 0 verified, 1 the collective failed or did not verify (or a node or host\n"
    "failed: ssh, a missing stepnet-node, a node that left; the error names it), 2 bad input,\n"
    "130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";

static const char bench_usage[] =
    "usage: stepnet bench --topo SPEC --coll C [--sizes LIST] [options]\n"
    "\n"
    "An OSU-style sweep over packet sizes in one launch of the nodes: the collective of stepnet\n"
    "run, --warmup then --iters repetitions at each size, every payload byte checked at every\n"
    "hop. Prints one row per size (Size, Avg, Min, Max, P50, P99 in microseconds, Iterations,\n"
    "Steps, Predicted); --json prints one JSON object per line and size, --csv FILE the CSV\n"
    "(docs/output.md). The memory budget is checked for the largest size before anything starts,\n"
    "and the links are calibrated with probes of the largest size.\n"
    "\n" CLI_SHARED_OPTIONS_HELP
    "  --sizes LIST       packet sizes in bytes (default " SWEEP_DEFAULT_SIZES
    "): FROM:TO (doubling),\n"
    "                     FROM:TO:xF (factor F), FROM:TO:+S (step S) or a list A,B,C, increasing;\n"
    "                     K, M, G are powers of two (1K = 1024); at most 256 sizes, up to 1G\n"
    "  --topo 'A;B'       several topologies, separated by ';': one launch of the nodes each\n"
    "  --ports P,Q        several port models (multi,single): one launch each, for every topology\n"
    "  --iters N          measured repetitions per size (default 20; --reps N is the same)\n"
    "  --warmup N         unmeasured repetitions before each size (default 2)\n"
    "  --out FILE         also write the JSON lines to FILE\n" RUN_TRANSPORT_HELP "\n"
    "Exit status: 0 every size verified, 1 a size failed (the sizes before it are reported),\n"
    "2 bad input, 130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";

/* One dynamic-broadcasting round over TCP: the round's partial multinode broadcast as `stepnet run
 * --algo ALGO --sources ...` would run it (one repetition, no calibration). */
static int tcp_round(void *vctx, const sn_topo_t *t, const sn_params_t *q, const char *algo,
                     sn_dyn_round_t *out, sn_err_t *err)
{
    const coord_opts_t *base = vctx;
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
    coord_result_t res;
    int rc = cli_ctx_build(&co, &ctx, err);
    if (rc == 0) {
        coord_opts_t ro = *base;
        cli_run_job(&ctx, &ro.job);
        ro.reps = 1, ro.warmup = 0, ro.probes = 0;
        rc = coord_run(&ro, &res, err);
        if (rc == 0) {
            if (res.failed)
                rc = sn_err_set(err, SN_EVERIFY, "a round over TCP failed: %s", res.error);
            out->steps = res.steps;
            out->control_slots = res.control_slots;
            out->deliveries = res.deliveries;
            coord_result_free(&res);
        }
    }
    cli_ctx_free(&ctx);
    free(list);
    return rc;
}

/* The sizes of `stepnet bench` (--sizes, or the default) into o, and the largest into cli->size:
 * the memory budget and the calibration probes are those of the largest size. 0, or EXIT_BADINPUT
 * after printing why. *sizes is malloc'd. */
static int bench_sizes(cli_opts_t *cli, cli_run_t *run, uint32_t **sizes)
{
    sn_err_t err = {0};
    size_t n = 0;
    if (sweep_parse_sizes(run->sizes_text ? run->sizes_text : SWEEP_DEFAULT_SIZES, sizes, &n,
                          &err) < 0) {
        cli_err_print("stepnet", &err);
        return EXIT_BADINPUT;
    }
    run->coord.sizes = *sizes;
    run->coord.nsizes = n;
    cli->size = (*sizes)[n - 1];
    return 0;
}

/* Opens a report file before the run, so that a path that cannot be written is refused before
 * any node starts. */
static int open_out(const char *path, const char *flag, FILE **f)
{
    *f = NULL;
    if (path && (*f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "stepnet: cannot write '%s' (%s): %s\n", path, flag, strerror(errno));
        return -1;
    }
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

/* Splits `text` at `sep` into owned copies; 0, or -1 after printing why (an empty item, too many).
 */
static int split_list(const char *text, char sep, const char *flag, char **items, size_t *n)
{
    *n = 0;
    for (const char *s = text;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t) (e - s) : strlen(s);
        if (len == 0 || *n >= BENCH_MAX_CASES) {
            fprintf(stderr,
                    "stepnet: bad value '%s' for %s: %s (a list separated by '%c', at most %d)\n",
                    text, flag, len == 0 ? "an empty item" : "too many items", sep,
                    BENCH_MAX_CASES);
            return -1;
        }
        items[*n] = sn_xmalloc(len + 1);
        memcpy(items[*n], s, len);
        items[*n][len] = '\0';
        (*n)++;
        if (e == NULL)
            return 0;
        s = e + 1;
    }
}

/* Builds every case of the command (each topology and port model checked, its memory budget
 * for the largest size included) before any node starts. 0, or EXIT_BADINPUT after printing why.
 * *cases and its strings are malloc'd (free_cases). */
static int build_cases(const cli_opts_t *cli, const coord_opts_t *o, int bench, run_case_t **cases,
                       size_t *ncases)
{
    char *topos[BENCH_MAX_CASES], *ports[BENCH_MAX_CASES];
    size_t nt = 0, np = 0;
    *cases = NULL;
    *ncases = 0;
    int rc = EXIT_BADINPUT;
    if (bench && cli->topo && split_list(cli->topo, ';', "--topo", topos, &nt) < 0)
        goto out;
    if (bench && cli->ports && split_list(cli->ports, ',', "--ports", ports, &np) < 0)
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
        fprintf(stderr, "stepnet: %zu topologies times %zu port models is more than %d runs\n", nt,
                np, BENCH_MAX_CASES);
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
            sn_err_t err = {0};
            c->built = 1;
            if (cli_ctx_build(&one, &c->ctx, &err) < 0) {
                cli_err_print("stepnet", &err);
                goto out;
            }
            const cli_ctx_t *x = &c->ctx;
            if (o->fault && (uint32_t) o->fault_node >= x->topo->n) {
                fprintf(stderr,
                        "stepnet: bad value '%d:%s' for --fault: node %d is out of range (%s has "
                        "nodes 0 to %u)\n",
                        o->fault_node, o->fault, o->fault_node, x->topo->spec, x->topo->n - 1);
                goto out;
            }
            uint64_t limit = sn_model_slot_limit(x->topo, &x->params, x->predicted);
            sn_fault_t fault;
            if (o->fault && sn_wire_fault_parse(o->fault, &fault, NULL) == 0 &&
                fault.slot > limit) {
                fprintf(stderr,
                        "stepnet: bad value '%d:%s' for --fault: slot %llu is past the run's slot "
                        "limit %llu\n",
                        o->fault_node, o->fault, (unsigned long long) fault.slot,
                        (unsigned long long) limit);
                goto out;
            }
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

/* `stepnet run` and `stepnet bench`: the same life cycle, their own reports. */
static int run_command(const char *cmd, const char *help, int argc, char **argv)
{
    cli_opts_t cli = {.cmd = cmd};
    cli_run_t run;
    const coord_opts_t *o = &run.coord;
    sn_err_t err = {0};
    uint32_t *sizes = NULL;
    FILE *outf = NULL, *csvf = NULL, *tracef = NULL;
    run_case_t *cases = NULL;
    size_t ncases = 0;
    int bench = strcmp(cmd, "bench") == 0;
    int rc = cli_run_parse(argc, argv, &cli, &run, help, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0) {
        cli_err_print("stepnet", &err);
        return EXIT_BADINPUT;
    }
    if (run.trace_file && cli.coll && strcmp(cli.coll, "dynbcast") == 0) {
        fprintf(stderr, "stepnet: --trace applies to one collective, not to --coll dynbcast\n");
        return EXIT_BADINPUT;
    }
    if (bench && run.trace_file) {
        fprintf(stderr, "stepnet: --trace applies to stepnet run, not to the sweeps of bench\n");
        return EXIT_BADINPUT;
    }
    if (!bench && cli.coll && strcmp(cli.coll, "dynbcast") == 0 && cli.topo) {
        if (run.csv_file) {
            fprintf(stderr, "stepnet: --csv does not apply to --coll dynbcast (its --sweep-rho "
                            "prints CSV)\n");
            return EXIT_BADINPUT;
        }
        return cli_dyn("run", &cli, run.dyn_lambda, run.dyn_rho, run.dyn_slots, run.dyn_sweep,
                       tcp_round, (void *) o);
    }
    if (run.dyn_lambda || run.dyn_rho || run.dyn_sweep || run.dyn_slots > 0) {
        fprintf(stderr, "stepnet: --lambda, --rho, --sweep-rho and --slots apply to --coll "
                        "dynbcast only\n");
        return EXIT_BADINPUT;
    }
    if (bench && (rc = bench_sizes(&cli, &run, &sizes)) != 0)
        return rc;
    rc = EXIT_BADINPUT;
    if (build_cases(&cli, o, bench, &cases, &ncases) != 0)
        goto done;
    if (open_out(run.out_file, "--out", &outf) < 0 || open_out(run.csv_file, "--csv", &csvf) < 0 ||
        open_out(run.trace_file, "--trace", &tracef) < 0)
        goto done;
    if (o->security == SN_SEC_NONE)
        fprintf(stderr,
                "stepnet %s: security none: links and the control channel are plaintext "
                "and unauthenticated\n",
                cmd);
    void (*json)(FILE *, const cli_run_t *, const coord_result_t *) =
        bench ? sweep_report_json : coord_report_json;
    if (csvf)
        sweep_csv_header(csvf);
    int write_failed = 0;
    rc = EXIT_OK;
    for (size_t i = 0; i < ncases && rc == EXIT_OK; i++) {
        cli_run_t one = run;
        one.ctx = &cases[i].ctx;
        cli_run_job(one.ctx, &one.coord.job);
        one.coord.topo_text = cases[i].topo;
        coord_result_t res;
        int crc = coord_run(&one.coord, &res, &err);
        if (crc < 0) {
            cli_err_print("stepnet", &err);
            rc = crc == SN_EINVAL ? EXIT_BADINPUT : EXIT_FAILED;
            break;
        }
        if (res.failed)
            fprintf(stderr, "stepnet %s: %s\n", cmd, res.error);
        if (cli.json)
            json(stdout, &one, &res);
        if (outf)
            json(outf, &one, &res);
        for (size_t k = 0; csvf && k < res.npoints; k++)
            if (res.points[k].state != COORD_POINT_PENDING)
                sweep_csv_row(csvf, &one, &res, &res.points[k]);
        if (tracef) /* a failed run's trace says why (docs/trace.md) */
            coord_trace_write(tracef, &one, &res);
        if (!cli.json)
            (bench ? sweep_report_text : coord_report_text)(stdout, &one, &res);
        /* interrupted (SIGINT, SIGTERM): 128 + the signal, as a shell reports it; a failed
         * case ends the command */
        rc = res.interrupted ? 128 + res.interrupted : res.failed ? EXIT_FAILED : EXIT_OK;
        coord_result_free(&res);
    }
    if (outf)
        write_failed |= cli_close_out(outf, run.out_file, "--out") < 0;
    if (csvf)
        write_failed |= cli_close_out(csvf, run.csv_file, "--csv") < 0;
    if (tracef)
        write_failed |= cli_close_out(tracef, run.trace_file, "--trace") < 0;
    outf = csvf = tracef = NULL;
    if (rc == EXIT_OK && write_failed)
        rc = EXIT_FAILED;
done:
    if (outf)
        fclose(outf);
    if (csvf)
        fclose(csvf);
    if (tracef)
        fclose(tracef);
    free_cases(cases, ncases);
    free(sizes);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    return run_command("run", usage, argc, argv);
}

int cmd_bench(int argc, char **argv)
{
    return run_command("bench", bench_usage, argc, argv);
}
