/* `stepnet run` (coordinator): the command around coord_run. Runs a collective over real TCP links
 * between stepnet-node processes: by default one local process per topology node on 127.0.0.1
 * (port 0, no set-up); with --nodes join, nodes started anywhere with `stepnet-node --join`.
 * Parses the options, calls coord_run, prints the report; errors are printed here only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "secure.h"
#include "wire.h"
#include "stepnet/util.h"

static const char usage[] =
    "usage: stepnet run --topo SPEC --coll C [options]\n"
    "\n"
    "Runs the collective over real TCP links: one stepnet-node process per node, one TCP\n"
    "connection per link, a libuv slot barrier in every node. Every payload byte is checked at\n"
    "every hop. Reports measured steps (the same as `stepnet sim` gives) and wall times next to\n"
    "the prediction steps * (alpha + size * beta) from a start-up ping-pong on every link.\n"
    "\n" CLI_SHARED_OPTIONS_HELP "  --reps N           measured repetitions (default 5)\n"
    "  --warmup N         unmeasured repetitions first (default 1)\n"
    "  --nodes local|join local: spawn the nodes on 127.0.0.1 (default); join: wait for nodes\n"
    "                     started with `stepnet-node --join HOST:PORT`\n"
    "  --listen ADDR      coordinator address (default 127.0.0.1:0; join mode needs it, e.g.\n"
    "                     0.0.0.0:7000)\n"
    "  --nodes ADDR,ADDR,...  persistent daemons (`stepnet-node --serve --listen ADDR`), one\n"
    "                     per node: the coordinator dials each (authenticated with --key) and\n"
    "                     invites it; the daemon's node joins back. Node id = position in the\n"
    "                     list unless the daemon was started with --id (docs/deploy.md). Here\n"
    "                     --listen defaults to 0.0.0.0:0 (give [::]:0 for IPv6 daemons)\n"
    "  --port-range LO-HI the control listener takes the first free port from LO to HI (with\n"
    "                     --listen HOST:0 or the default); local nodes' link listeners too\n"
    "  --out FILE         also write the JSON report to FILE\n"
    "  --key FILE         the cluster key (stepnet keygen): required in join mode; local runs "
    "make\n"
    "                     a fresh key per run unless this is given\n"
    "  --security MODE    sodium (default: every connection authenticated and encrypted) or none\n"
    "                     (plaintext, for raw measurements; join mode also needs --insecure-ok)\n"
    "  --insecure-ok      accept --security none in join mode\n"
    "  --node-bin PATH    the stepnet-node executable (default: next to stepnet)\n"
    "  --probes N         ping-pong probes per link and size for calibration (default 20; 0 "
    "skips)\n"
    "  --connect-timeout-ms MS    nodes connecting to each other (default 10000)\n"
    "  --ready-timeout-ms MS      every node joined and ready (default 30000)\n"
    "  --slot-timeout-ms MS       one slot without progress (default 5000)\n"
    "  --collective-timeout-ms MS one repetition (default 300000)\n"
    "  --heartbeat-ms MS  control-channel heartbeat period outside collectives (default 1000;\n"
    "                     0: none); 5 periods of silence end the run, or make a node leave\n"
    "  --fault ID:KIND@SLOT       testing: node ID kills itself (kill), stops (stop), sends a\n"
    "                             malformed (garbage) or oversized (oversize) frame at SLOT, or\n"
    "                             flips one bit of its next frame on the wire (flip)\n"
    "  --idle-slots N     benchmark: each repetition is N slots of the bare barrier (empty frames\n"
    "                     on every link) instead of the collective; reports us per slot\n"
    "  --token HEX        testing: a fixed run token instead of a random one (every link hello "
    "must\n"
    "                     carry the token)\n"
    "  --verbose          node logs of routine events on stderr\n"
    "\n"
    "  --coll dynbcast --lambda L|--rho R --slots T   dynamic broadcasting: every round a TCP\n"
    "                     run of pmnb-mesh-split (see stepnet sim --help)\n"
    "\n"
    "Exit status: 0 verified, 1 the collective failed or did not verify, 2 bad input,\n"
    "130 interrupted by SIGINT (Ctrl-C), 143 interrupted by SIGTERM.\n";

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
        ro.ctx = &ctx;
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

int cmd_run(int argc, char **argv)
{
    cli_opts_t cli = {.cmd = "run"};
    coord_opts_t o;
    const char *out_file;
    sn_err_t err = {0};
    int rc = coord_opts_parse(argc, argv, &cli, &o, &out_file, usage, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0) {
        cli_err_print("stepnet", &err);
        return EXIT_BADINPUT;
    }
    if (cli.coll && strcmp(cli.coll, "dynbcast") == 0 && cli.topo)
        return cli_dyn("run", &cli, o.dyn_lambda, o.dyn_rho, o.dyn_slots, o.dyn_sweep, tcp_round,
                       &o);
    if (o.dyn_lambda || o.dyn_rho || o.dyn_sweep || o.dyn_slots > 0) {
        fprintf(stderr, "stepnet: --lambda, --rho, --sweep-rho and --slots apply to --coll "
                        "dynbcast only\n");
        return EXIT_BADINPUT;
    }
    cli_ctx_t ctx;
    if (cli_ctx_build(&cli, &ctx, &err) < 0) {
        cli_err_print("stepnet", &err);
        cli_ctx_free(&ctx);
        return EXIT_BADINPUT;
    }
    o.ctx = &ctx;
    if (o.fault && (uint32_t) o.fault_node >= ctx.topo->n) {
        fprintf(stderr,
                "stepnet: bad value '%d:%s' for --fault: node %d is out of range (%s has nodes "
                "0 to %u)\n",
                o.fault_node, o.fault, o.fault_node, ctx.topo->spec, ctx.topo->n - 1);
        cli_ctx_free(&ctx);
        return EXIT_BADINPUT;
    }
    uint64_t limit = sn_model_slot_limit(ctx.topo, &ctx.params, ctx.predicted);
    sn_fault_t fault;
    if (o.fault && sn_wire_fault_parse(o.fault, &fault, NULL) == 0 && fault.slot > limit) {
        fprintf(stderr,
                "stepnet: bad value '%d:%s' for --fault: slot %llu is past the run's slot limit "
                "%llu\n",
                o.fault_node, o.fault, (unsigned long long) fault.slot, (unsigned long long) limit);
        cli_ctx_free(&ctx);
        return EXIT_BADINPUT;
    }
    /* the report file is opened before the run, so that a path that cannot be written is
     * refused before any node starts */
    FILE *outf = NULL;
    if (out_file && (outf = fopen(out_file, "w")) == NULL) {
        fprintf(stderr, "stepnet: cannot write '%s' (--out): %s\n", out_file, strerror(errno));
        cli_ctx_free(&ctx);
        return EXIT_BADINPUT;
    }
    if (o.security == SN_SEC_NONE)
        fprintf(stderr, "stepnet run: security none: links and the control channel are plaintext "
                        "and unauthenticated\n");
    coord_result_t res;
    rc = coord_run(&o, &res, &err);
    if (rc < 0) {
        cli_err_print("stepnet", &err);
        if (outf)
            fclose(outf);
        cli_ctx_free(&ctx);
        return rc == SN_EINVAL ? EXIT_BADINPUT : EXIT_FAILED;
    }
    if (res.failed)
        fprintf(stderr, "stepnet run: %s\n", res.error);
    if (cli.json)
        coord_report_json(stdout, &o, &res);
    int write_failed = 0;
    if (outf) {
        coord_report_json(outf, &o, &res);
        if (cli_close_out(outf, out_file, "--out") < 0)
            write_failed = 1;
    }
    if (!cli.json)
        coord_report_text(stdout, &o, &res);
    /* interrupted (SIGINT, SIGTERM): 128 + the signal, as a shell reports it */
    rc = res.interrupted              ? 128 + res.interrupted
         : res.failed || write_failed ? EXIT_FAILED
                                      : EXIT_OK;
    coord_result_free(&res);
    cli_ctx_free(&ctx);
    return rc;
}
