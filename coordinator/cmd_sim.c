/* `stepnet sim`: runs a collective in process with core/sim and reports the measured steps next to
 * the predicted count and the lower bounds (coordinator). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"

static const char usage[] =
    "usage: stepnet sim --topo SPEC --coll C [options]\n"
    "\n"
    "Runs the collective in this process, every node's state machine in lockstep, with the port\n"
    "model enforced and every delivered packet verified (right node, right payload, exactly\n"
    "once). Reports the measured steps next to the predicted count and the lower bounds.\n"
    "\n" CLI_SHARED_OPTIONS_HELP "\n"
    "Dynamic broadcasting (--coll dynbcast, meshes and tori; Varvarigos and Bertsekas, section\n"
    "5): Poisson requests at every node, served in rounds of partial multinode broadcasts\n"
    "(pmnb-mesh-split, each verified); reports the delay distribution in time units next to the\n"
    "paper's bound (11) and stability limit (14).\n"
    "  --lambda L         requests per node per time unit\n"
    "  --rho R            instead of --lambda: the load rho = lambda N X (X of (9a))\n"
    "  --slots T          requests arrive during the first T time units (default 1000)\n"
    "  --sweep-rho A:B:S  the delay-versus-load curve as CSV: rho from A to B in steps of S,\n"
    "                     the mean delay and the bound (11) as its first columns\n"
    "  --frags F          default 2d on a torus, d on an array (the split algorithm's pieces)\n"
    "\n"
    "Exit status: 0 verified, 1 the run failed or did not verify, 2 bad input.\n";

/* --coll dynbcast: rounds of verified partial multinode broadcasts under Poisson arrivals. */
/* --sweep-rho A:B:STEP: the delay-versus-load curve as CSV (rho, mean delay, bound (11), ...). */
static int sweep_dyn(const sn_topo_t *t, const sn_params_t *p, sn_dyn_opts_t *dopt,
                     const char *sweep, sn_err_t *err)
{
    double a, b, step;
    char tail;
    if (sscanf(sweep, "%lf:%lf:%lf%c", &a, &b, &step, &tail) != 3 || !(a > 0) || !(b >= a) ||
        !(step > 0) || (b - a) / step > 1000)
        return sn_err_set(err, SN_EINVAL,
                          "bad value '%s' for --sweep-rho: expected FROM:TO:STEP with 0 < FROM "
                          "<= TO and at most 1000 steps",
                          sweep);
    sn_dyn_result_t c, r;
    sn_dyn_constants(t, 1.0, dopt->tp, &c);
    printf("rho,delay_mean,delay_bound,delay_ci95,delay_p50,delay_p99,delay_max,lambda,requests,"
           "rounds,rho_star\n");
    for (int i = 0; a + i * step <= b + 1e-12; i++) {
        double rho = a + i * step;
        dopt->lambda = rho / (t->n * c.X);
        int rc = sn_dyn_run(t, p, dopt, &r, err);
        if (rc < 0)
            return rc;
        printf("%.6g,%.6g,", rho, r.delay_mean);
        if (r.delay_bound >= 0)
            printf("%.6g", r.delay_bound);
        printf(",%.6g,%.6g,%.6g,%.6g,%.6g,%llu,%llu,%.6g\n", r.delay_ci, r.delay_p50, r.delay_p99,
               r.delay_max, dopt->lambda, (unsigned long long) r.requests,
               (unsigned long long) r.rounds, r.rho_star);
        fflush(stdout);
    }
    return 0;
}

static int run_dyn(const cli_opts_t *o, const char *lambda_s, const char *rho_s, int64_t slots,
                   const char *sweep)
{
    sn_err_t err = {0};
    sn_topo_t *t = NULL;
    int rc, status = EXIT_BADINPUT;
    sn_dyn_opts_t dopt = {0};
    sn_dyn_result_t r;
    if ((rc = sn_topo_parse(o->topo, &t, &err)) < 0)
        goto bad;
    if (sweep == NULL && (lambda_s == NULL) == (rho_s == NULL)) {
        sn_err_set(&err, SN_EINVAL, "dynbcast needs one of --lambda L or --rho R");
        goto bad;
    }
    double lambda, rho;
    if ((rc = cli_parse_real("--lambda", lambda_s, 0.0, 1e-12, 1e6, &lambda, &err)) ||
        (rc = cli_parse_real("--rho", rho_s, 0.0, 1e-9, 1e3, &rho, &err)) ||
        (rc = cli_parse_real("--tp", o->tp, 1.0, 0.0, 1e6, &dopt.tp, &err)))
        goto bad;
    sn_params_t p;
    sn_params_default(&p, SN_COLL_PMNB);
    if (o->seed >= 0)
        p.seed = (uint64_t) o->seed;
    if (o->size >= 0)
        p.size = (uint32_t) o->size;
    if (t->kind == SN_TOPO_MESH || t->kind == SN_TOPO_TORUS || t->kind == SN_TOPO_LINEAR ||
        t->kind == SN_TOPO_RING) {
        uint32_t d = t->nfactors ? t->nfactors : 1, side = t->nfactors ? t->factors[0]->n : t->n;
        int ring = (t->kind == SN_TOPO_TORUS || t->kind == SN_TOPO_RING) && side >= 3;
        p.frags = o->frags > 0 ? (uint32_t) o->frags : (ring ? 2 : 1) * d;
    }
    dopt.horizon = slots > 0 ? (double) slots : 1000.0;
    if (sweep) {
        if (lambda_s || rho_s) {
            sn_err_set(&err, SN_EINVAL, "give --sweep-rho without --lambda and --rho");
            goto bad;
        }
        rc = sweep_dyn(t, &p, &dopt, sweep, &err);
        if (rc == SN_EVERIFY || rc == SN_EPORT || rc == SN_EALGO || rc == SN_ESLOTS) {
            fprintf(stderr, "stepnet sim: %s: %s\n", sn_err_name(rc), err.msg);
            status = EXIT_FAILED;
            goto out;
        }
        if (rc < 0)
            goto bad;
        status = EXIT_OK;
        goto out;
    }
    if (rho_s) {
        sn_dyn_result_t c;
        sn_dyn_constants(t, 1.0, dopt.tp, &c);
        lambda = rho / (t->n * c.X);
    }
    dopt.lambda = lambda;
    rc = sn_dyn_run(t, &p, &dopt, &r, &err);
    if (rc == SN_EVERIFY || rc == SN_EPORT || rc == SN_EALGO || rc == SN_ESLOTS) {
        char etext[CLI_ERR_TEXT_MAX];
        fprintf(stderr, "stepnet sim: %s: %s\n", sn_err_name(rc),
                cli_err_text(&err, etext, sizeof etext));
        status = EXIT_FAILED;
        goto out;
    }
    if (rc < 0)
        goto bad;
    if (o->json) {
        json_t j;
        json_begin(&j, stdout);
        json_str(&j, "cmd", "sim");
        json_str(&j, "topology", t->spec);
        json_uint(&j, "nodes", t->n);
        json_str(&j, "collective", "dynbcast");
        json_str(&j, "algorithm", "pmnb-mesh-split");
        json_uint(&j, "seed", p.seed);
        json_uint(&j, "frags", p.frags);
        json_double(&j, "tp", dopt.tp);
        json_double(&j, "lambda", dopt.lambda);
        json_double(&j, "duration", dopt.horizon);
        json_uint(&j, "requests", r.requests);
        json_uint(&j, "measured", r.measured);
        json_uint(&j, "rounds", r.rounds);
        json_uint(&j, "empty_rounds", r.empty_rounds);
        json_uint(&j, "broadcasts", r.broadcasts);
        json_uint(&j, "deliveries", r.deliveries);
        json_uint(&j, "control_slots", r.control_slots);
        json_uint(&j, "data_slots", r.data_slots);
        json_double(&j, "time_units", r.time_units);
        json_double(&j, "throughput", r.throughput);
        json_double(&j, "delay_mean", r.delay_mean);
        if (r.delay_ci >= 0)
            json_double(&j, "delay_ci95", r.delay_ci);
        else
            json_null(&j, "delay_ci95");
        json_double(&j, "delay_p50", r.delay_p50);
        json_double(&j, "delay_p99", r.delay_p99);
        json_double(&j, "delay_max", r.delay_max);
        json_double(&j, "rho", r.rho);
        json_double(&j, "rho_mesh", r.rho_mesh);
        json_bool(&j, "necessary_13", r.rho_mesh <= 1.0);
        json_double(&j, "rho_star", r.rho_star);
        json_double(&j, "X", r.X);
        json_double(&j, "V", r.V);
        if (r.delay_bound >= 0)
            json_double(&j, "delay_bound", r.delay_bound);
        else
            json_null(&j, "delay_bound");
        json_bool(&j, "verified", 1);
        json_end(&j);
    } else {
        printf("stepnet sim: dynbcast on %s (%u nodes), pmnb-mesh-split rounds, %u fragments, "
               "t_p %g\n",
               t->spec, t->n, p.frags, dopt.tp);
        printf("  load            lambda %g per node and time unit, rho = lambda N X = %.4g "
               "(stable below rho* = %.4g, (14)); (12) = %.4g\n",
               dopt.lambda, r.rho, r.rho_star, r.rho_mesh);
        printf("  requests        %llu in %g time units, %llu rounds (%llu empty), every round "
               "verified\n",
               (unsigned long long) r.requests, dopt.horizon, (unsigned long long) r.rounds,
               (unsigned long long) r.empty_rounds);
        printf("  delay           mean %.4g (+- %.3g, 95%%), p50 %.4g, p99 %.4g, max %.4g time "
               "units\n",
               r.delay_mean, r.delay_ci, r.delay_p50, r.delay_p99, r.delay_max);
        if (r.delay_bound >= 0)
            printf("  bound (11)      %.4g time units (X %.4g, V %.4g)\n", r.delay_bound, r.X, r.V);
        else
            printf("  bound (11)      none: 1 - rho - lambda V <= 0 (X %.4g, V %.4g)\n", r.X, r.V);
        printf("  throughput      %.4g requests per time unit\n", r.throughput);
    }
    status = EXIT_OK;
    goto out;
bad:
    cli_err_print("stepnet", &err);
out:
    sn_topo_free(t);
    return status;
}

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

int cmd_sim(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "sim"};
    const char *lambda_s = NULL, *rho_s = NULL, *sweep = NULL;
    int64_t slots = -1;
    const cli_opt_t extra[] = {
        {.name = "--lambda", .str = &lambda_s},
        {.name = "--rho", .str = &rho_s},
        {.name = "--sweep-rho", .str = &sweep},
        {.name = "--slots", .num = &slots, .lo = 1, .hi = 1000000000, .unit = "time units"},
        {0}};
    sn_err_t perr = {0};
    int rc = cli_opts_parse(argc, argv, &o, extra, usage, &perr);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0) {
        cli_err_print("stepnet", &perr);
        return EXIT_BADINPUT;
    }
    if (o.coll && strcmp(o.coll, "dynbcast") == 0 && o.topo)
        return run_dyn(&o, lambda_s, rho_s, slots, sweep);
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
    progress_t pr;
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    pr.last = pr.start;
    sn_sim_opts_t so = {0};
    so.max_slots = o.max_slots > 0 ? (uint64_t) o.max_slots
                                   : sn_model_slot_limit(c.topo, &c.params, c.predicted);
    if (o.progress == 1 || (o.progress == -1 && isatty(2))) {
        so.progress = on_progress;
        so.progress_ctx = &pr;
    }
    sn_sim_result_t res;
    sn_err_t err = {0};
    int src = sn_sim_run(c.topo, &c.params, c.algo, c.plan, &so, &res, &err);
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
    if (o.json) {
        json_t j;
        json_begin(&j, stdout);
        report_json_head(&j, "sim", &c);
        json_uint(&j, "steps", res.steps);
        json_uint(&j, "control_slots", res.control_slots);
        json_uint(&j, "data_slots", res.steps - res.control_slots);
        json_double(&j, "time_units", cli_time_units(&c, res.steps, res.control_slots));
        json_uint(&j, "packets", res.packets);
        json_uint(&j, "control_packets", res.control_packets);
        json_uint(&j, "deliveries", res.deliveries);
        json_uint(&j, "expected_deliveries", res.expected_deliveries);
        json_bool(&j, "verified", ok);
        json_str(&j, "trace_hash", hash);
        json_uint(&j, "node_steps", res.node_steps);
        json_double(&j, "wall_s", secs);
        json_double(&j, "hops_per_s", secs > 0 ? (double) res.packets / secs : 0.0);
        json_uint(&j, "peak_rss_kb", (uint64_t) ru.ru_maxrss);
        if (!ok)
            json_str(&j, "error", etext);
        json_end(&j);
    } else {
        report_text_head(stdout, "sim", &c);
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
        printf("  deliveries      %llu of %llu, %s\n", (unsigned long long) res.deliveries,
               (unsigned long long) res.expected_deliveries, ok ? "verified" : "NOT verified");
        printf("  packets         %llu link crossings\n", (unsigned long long) res.packets);
        printf("  trace_hash      %s\n", hash);
        printf("  simulator       %.3f s, %.3g packet-hops/s, peak RSS %ld MiB\n", secs,
               secs > 0 ? (double) res.packets / secs : 0.0, ru.ru_maxrss / 1024);
    }
    cli_ctx_free(&c);
    return ok ? EXIT_OK : EXIT_FAILED;
}
