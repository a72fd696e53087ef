/* Dynamic broadcasting from the command line (cli): the options of `--coll dynbcast`, the
 * run (core/model's sn_dyn_run, whose rounds the simulator plays for `sim` and TCP runs for
 * `run`), the report, and the delay-versus-load sweep. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "stepnet/model.h"

/* --sweep-rho A:B:STEP: the delay-versus-load curve as CSV (rho, mean delay, the paper's bound:
 * (11) on meshes and tori, (6) on folded cubes, ...). */
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
    int rc0 = sn_dyn_constants_for(t, dopt->algo, 1.0, dopt->tp, &c, err);
    if (rc0 < 0)
        return rc0;
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
        putchar(',');
        if (r.delay_ci >= 0) /* empty when too few requests for batch means */
            printf("%.6g", r.delay_ci);
        printf(",%.6g,%.6g,%.6g,%.6g,%llu,%llu,%.6g\n", r.delay_p50, r.delay_p99, r.delay_max,
               dopt->lambda, (unsigned long long) r.requests, (unsigned long long) r.rounds,
               r.rho_star);
        fflush(stdout);
    }
    return 0;
}

/* The rounds are the family's multiport partial broadcasts of one packet per source, their
 * sources drawn from the arrivals: the options that would say otherwise are refused. 0, or
 * SN_EINVAL naming the option. */
static int dyn_check_unused(const cli_opts_t *o, sn_err_t *err)
{
    const char *unused = (o->ports && strcmp(o->ports, "multi") != 0)    ? "--ports"
                         : (o->rx && strcmp(o->rx, "one") != 0)          ? "--rx"
                         : (o->duplex && strcmp(o->duplex, "full") != 0) ? "--duplex"
                         : o->sources                                    ? "--sources"
                         : o->m >= 0                                     ? "--m"
                         : o->root >= 0                                  ? "--root"
                         : (o->msgs >= 0 && o->msgs != 1)                ? "--msgs"
                         : o->op                                         ? "--op"
                         : o->max_slots >= 0                             ? "--max-slots"
                                                                         : NULL;
    if (unused == NULL)
        return 0;
    return sn_err_set(err, SN_EINVAL,
                      "%s does not apply to --coll dynbcast: its rounds are multiport, full-duplex "
                      "partial broadcasts of one packet per source, the sources drawn from the "
                      "Poisson arrivals (options: --lambda or --rho, --slots, --tp, --algo, "
                      "--frags, --size, --seed, --sweep-rho)",
                      unused);
}

/* The rounds' parameters: seed, size, and the fragments (the split mesh algorithm's default
 * is 2d on a torus or ring side of at least 3, else d). */
static void dyn_params(const cli_opts_t *o, const sn_topo_t *t, const sn_dyn_result_t *c,
                       sn_params_t *p)
{
    sn_params_default(p, SN_COLL_PMNB);
    if (o->seed >= 0)
        p->seed = (uint64_t) o->seed;
    if (o->size >= 0)
        p->size = (uint32_t) o->size;
    if (!c->fcube && strcmp(c->algorithm, "pmnb-mesh-split") == 0) {
        uint32_t d = t->nfactors ? t->nfactors : 1, side = t->nfactors ? t->factors[0]->n : t->n;
        int ring = (t->kind == SN_TOPO_TORUS || t->kind == SN_TOPO_RING) && side >= 3;
        p->frags = o->frags > 0 ? (uint32_t) o->frags : (ring ? 2 : 1) * d;
    } else if (o->frags > 0) {
        p->frags = (uint32_t) o->frags;
    }
}

/* The report of one dynamic-broadcasting run of command cmd: one JSON object on one line. */
static void dyn_report_json(const char *cmd, const sn_topo_t *t, const sn_params_t *p,
                            const sn_dyn_opts_t *dopt, const sn_dyn_result_t *res)
{
    const sn_dyn_result_t r = *res;
    cli_json_t j;
    cli_json_begin(&j, stdout);
    cli_json_str(&j, "cmd", cmd);
    cli_json_str(&j, "topology", t->spec);
    cli_json_uint(&j, "nodes", t->n);
    cli_json_str(&j, "collective", sn_coll_name(SN_COLL_DYNBCAST));
    cli_json_str(&j, "algorithm", r.algorithm);
    cli_json_uint(&j, "seed", p->seed);
    cli_json_uint(&j, "frags", p->frags);
    cli_json_double(&j, "tp", dopt->tp);
    cli_json_double(&j, "lambda", dopt->lambda);
    cli_json_double(&j, "duration", dopt->horizon);
    cli_json_uint(&j, "requests", r.requests);
    cli_json_uint(&j, "measured", r.measured);
    cli_json_uint(&j, "rounds", r.rounds);
    cli_json_uint(&j, "empty_rounds", r.empty_rounds);
    cli_json_uint(&j, "broadcasts", r.broadcasts);
    cli_json_uint(&j, "deliveries", r.deliveries);
    cli_json_uint(&j, "control_slots", r.control_slots);
    cli_json_uint(&j, "data_slots", r.data_slots);
    cli_json_double(&j, "time_units", r.time_units);
    cli_json_double(&j, "throughput", r.throughput);
    cli_json_double(&j, "delay_mean", r.delay_mean);
    if (r.delay_ci >= 0)
        cli_json_double(&j, "delay_ci95", r.delay_ci);
    else
        cli_json_null(&j, "delay_ci95");
    cli_json_double(&j, "delay_p50", r.delay_p50);
    cli_json_double(&j, "delay_p99", r.delay_p99);
    cli_json_double(&j, "delay_max", r.delay_max);
    cli_json_double(&j, "rho", r.rho);
    if (r.fcube) { /* the mesh's (12)-(13) have no folded-cube counterpart */
        cli_json_null(&j, "rho_mesh");
        cli_json_null(&j, "necessary_13");
    } else {
        cli_json_double(&j, "rho_mesh", r.rho_mesh);
        cli_json_bool(&j, "necessary_13", r.rho_mesh <= 1.0);
    }
    cli_json_str(&j, "stability_eq", r.eq_stability);
    cli_json_str(&j, "bound_eq", r.eq_bound);
    cli_json_double(&j, "rho_star", r.rho_star);
    cli_json_double(&j, "X", r.X);
    cli_json_double(&j, "V", r.V);
    if (r.delay_bound >= 0)
        cli_json_double(&j, "delay_bound", r.delay_bound);
    else
        cli_json_null(&j, "delay_bound");
    cli_json_bool(&j, "verified", 1);
    cli_json_end(&j);
}

/* The same, as the human-readable lines. */
static void dyn_report_text(const char *cmd, const sn_topo_t *t, const sn_params_t *p,
                            const sn_dyn_opts_t *dopt, const sn_dyn_result_t *res)
{
    const sn_dyn_result_t r = *res;
    printf("stepnet %s: dynbcast on %s (%u nodes), %s rounds, %u fragments, t_p %g\n", cmd, t->spec,
           t->n, r.algorithm, p->frags, dopt->tp);
    if (r.fcube)
        printf("  load            lambda %g per node and time unit, rho = lambda N/(d+1) = %.4g "
               "(stable below rho* = %.4g, %s)\n",
               dopt->lambda, r.rho, r.rho_star, r.eq_stability);
    else
        printf("  load            lambda %g per node and time unit, rho = lambda N X = %.4g "
               "(stable below rho* = %.4g, %s); (12) = %.4g\n",
               dopt->lambda, r.rho, r.rho_star, r.eq_stability, r.rho_mesh);
    printf("  requests        %llu in %g time units, %llu rounds (%llu empty), every round "
           "verified\n",
           (unsigned long long) r.requests, dopt->horizon, (unsigned long long) r.rounds,
           (unsigned long long) r.empty_rounds);
    printf("  delay           mean %.4g (+- %.3g, 95%%), p50 %.4g, p99 %.4g, max %.4g time "
           "units\n",
           r.delay_mean, r.delay_ci, r.delay_p50, r.delay_p99, r.delay_max);
    const char *xv = r.fcube ? "1/(d+1)" : "X", *vv = r.fcube ? "A" : "V";
    if (r.delay_bound >= 0)
        printf("  bound %-9s %.4g time units (%s %.4g, %s %.4g)\n", r.eq_bound, r.delay_bound, xv,
               r.X, vv, r.V);
    else
        printf("  bound %-9s none: its denominator is <= 0 at this load (%s %.4g, %s %.4g)\n",
               r.eq_bound, xv, r.X, vv, r.V);
    printf("  throughput      %.4g requests per time unit\n", r.throughput);
}

int cli_dyn_applies(const char *coll)
{
    sn_coll_t c;
    return coll != NULL && sn_coll_parse(coll, &c, NULL) == 0 && sn_coll_is_rounds(c);
}

int cli_dyn(const char *cmd, const cli_opts_t *o, const char *lambda_s, const char *rho_s,
            int64_t slots, const char *sweep, sn_dyn_round_fn round, void *round_ctx)
{
    sn_err_t err = {0};
    sn_topo_t *t = NULL;
    int rc, status = EXIT_BADINPUT;
    sn_dyn_opts_t dopt = {0};
    dopt.round = round;
    dopt.round_ctx = round_ctx;
    sn_dyn_result_t r;
    if ((rc = sn_topo_parse(o->topo, &t, &err)) < 0)
        goto bad;
    if ((rc = dyn_check_unused(o, &err)) < 0)
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
    dopt.algo = o->algo; /* auto (NULL): the family's default round algorithm */
    sn_dyn_result_t c;
    if ((rc = sn_dyn_constants_for(t, dopt.algo, 1.0, dopt.tp, &c, &err)) < 0)
        goto bad;
    sn_params_t p;
    dyn_params(o, t, &c, &p);
    dopt.horizon = slots > 0 ? (double) slots : 1000.0;
    if (sweep) {
        if (lambda_s || rho_s) {
            sn_err_set(&err, SN_EINVAL, "give --sweep-rho without --lambda and --rho");
            goto bad;
        }
        rc = sweep_dyn(t, &p, &dopt, sweep, &err);
        if (rc == SN_EVERIFY || rc == SN_EPORT || rc == SN_EALGO || rc == SN_ESLOTS) {
            char text[CLI_ERR_TEXT_MAX];
            fprintf(stderr, "stepnet %s: %s: %s\n", cmd, sn_err_name(rc),
                    cli_text(err.msg, text, sizeof text));
            status = EXIT_FAILED;
            goto out;
        }
        if (rc < 0)
            goto bad;
        status = EXIT_OK;
        goto out;
    }
    if (rho_s)
        lambda = rho / (t->n * c.X);
    dopt.lambda = lambda;
    rc = sn_dyn_run(t, &p, &dopt, &r, &err);
    if (rc == SN_EVERIFY || rc == SN_EPORT || rc == SN_EALGO || rc == SN_ESLOTS) {
        char etext[CLI_ERR_TEXT_MAX];
        fprintf(stderr, "stepnet %s: %s: %s\n", cmd, sn_err_name(rc),
                cli_err_text(&err, etext, sizeof etext));
        status = EXIT_FAILED;
        goto out;
    }
    if (rc < 0)
        goto bad;
    if (o->json)
        dyn_report_json(cmd, t, &p, &dopt, &r);
    else
        dyn_report_text(cmd, t, &p, &dopt, &r);
    status = EXIT_OK;
    goto out;
bad:
    cli_err_print("stepnet", &err);
out:
    sn_topo_free(t);
    return status;
}
