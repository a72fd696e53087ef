/* `stepnet synth`: the minimum number of slots of a collective, proven with a SAT solver
 * (core/synth, docs/synth.md), its schedule written as a schedule file and played back in the
 * simulator, which must verify it (cli). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/report.h"
#include "core/synth/synth.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

/* The default --max-clauses: CaDiCaL holds a clause of the encoding in about 100 bytes with its
 * watches (docs/synth.md, "Budget"), so 2 GB; instances of that size take minutes to load and
 * are beyond proving in the times docs/performance.md reports. */
#define SYNTH_DEFAULT_MAX_CLAUSES 20000000
/* The solver's memory per clause, per literal and per variable (measured: docs/synth.md). */
#define SYNTH_BYTES_PER_CLAUSE 96
#define SYNTH_BYTES_PER_LIT    16
#define SYNTH_BYTES_PER_VAR    160
#define SYNTH_DEFAULT_TIMEOUT  600.0

static const char usage_head[] =
    "usage: stepnet synth --topo SPEC --coll C [options] [--out FILE]\n"
    "\n"
    "Proves the minimum number of slots of the collective with the SAT solver CaDiCaL: encodes\n"
    "\"a schedule of at most T slots exists\" (docs/synth.md) and searches T from stepnet's best\n"
    "lower bound up to the steps of its best algorithm. Reports status optimal (a schedule of T\n"
    "slots, none of T - 1) or, when --timeout ends the search, bounded with the interval\n"
    "proven. The optimum's schedule is written as a schedule file (docs/schedule.md) and played\n"
    "in the simulator, which must verify it in exactly T steps; `stepnet run --algo\n"
    "schedule:FILE` runs it over TCP. Collectives: bcast, scatter, gather, mnb, te, pmnb,\n"
    "pexchange, sna, allreduce, mna.\n"
    "\n"
    "sna and mna are proven through their duals: a reduce schedule reversed in time is a\n"
    "broadcast from its root, a reduce_scatter reversed an allgather (mnb), with the same\n"
    "slots, under every port model that limits receptions as it limits sends (not single-port\n"
    "with --rx any). synth solves the dual and writes the reversed schedule, combining on the\n"
    "way. allreduce: the solver refutes a relaxation (every processor must know every\n"
    "contribution, a transmission carrying all its sender knows); an unsatisfiable T proves no\n"
    "allreduce of T slots exists. At the first satisfiable T its schedule is replayed\n"
    "exactly (no contribution counted twice); verified, T is the optimum. Otherwise the\n"
    "schedule written is stepnet's best algorithm's: optimal when the relaxation refutes one\n"
    "slot fewer, else bounded with the lower bound proven.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 optimal or bounded and the schedule verified, 1 the schedule did not\n"
    "verify or could not be written, 2 bad input (an unsupported collective, an encoding over\n"
    "--max-clauses or --max-memory).\n";
/* --help: the prose, and the lines of the options (options.c, cli_cmd_synth). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines = (const char *const[]){CLI_HELP_SHARED, NULL}, .col = CLI_HELP_COL},
    {.lines = (const char *const[]){"--timeout", "--max-clauses", "--out", "--no-bound",
                                    "--no-incremental", NULL},
     .col = CLI_HELP_COL},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_synth(void)
{
    return usage;
}

typedef struct {
    struct timespec start;
    double timeout;
} synth_clock_t;

static double now_s(void *ctx)
{
    synth_clock_t *ck = ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) (ts.tv_sec - ck->start.tv_sec) +
           (double) (ts.tv_nsec - ck->start.tv_nsec) / 1e9;
}

static int past_timeout(void *ctx)
{
    return now_s(ctx) >= ((synth_clock_t *) ctx)->timeout;
}

/* The fewest steps any applicable algorithm of stepnet takes on (t, p), each run dry in the
 * simulator (a prediction is not trusted): the search's horizon. -1 when none verifies. */
static int64_t best_algorithm(const sn_topo_t *t, const sn_params_t *p, const char **name)
{
    size_t count;
    const sn_algo_t *const *all = sn_model_algos(&count);
    int64_t best = -1;
    sn_err_t err = {0};
    for (size_t i = 0; i < count; i++) {
        const sn_algo_t *a = all[i];
        void *plan = NULL;
        if (sn_model_check(a, t, p, &err) < 0 || sn_model_plan_new(a, t, p, &plan, &err) < 0)
            continue;
        int64_t steps = sn_model_dry_run(a, plan, t, p, best >= 0 ? best : -1, NULL);
        a->plan_free(plan);
        if (steps >= 0 && (best < 0 || steps < best)) {
            best = steps;
            *name = a->name;
        }
    }
    return best;
}

/* What synth found, for its reports. */
typedef struct {
    sn_synth_kind_t kind;
    const sn_params_t *sp; /* what is solved: the run's parameters or (kind dual) its dual's */
    const char *algo;      /* the best algorithm (of sp) */
    int64_t algo_steps;    /* its steps: the horizon */
    uint32_t lower_bound;  /* stepnet's best lower bound (at least 1) */
    sn_synth_enc_t *enc;   /* NULL when the bound meets the algorithm: nothing to solve */
    sn_synth_result_t res;
    sn_sched_ops_t ops;  /* the operands of res.sched when the collective combines */
    int relax_sat;       /* allreduce: the relaxation's first satisfiable T (0: none) */
    int relax_exact;     /* allreduce: the slots of the relaxation's schedule made exact and
                            verified (0: none) */
    const char *out;     /* the schedule file written, or NULL */
    int verified;        /* the simulator verified the schedule */
    sn_sim_result_t sim; /* its run */
    char etext[CLI_ERR_TEXT_MAX];
} synth_out_t;

static const char *status_name(const synth_out_t *s)
{
    return s->res.status == SN_SYNTH_OPTIMAL ? "optimal" : "bounded";
}

static void json_call(cli_json_t *j, const char *key, const sn_synth_result_t *r, int idx)
{
    if (idx < 0) {
        cli_json_null(j, key);
        return;
    }
    const sn_synth_call_t *c = &r->calls[idx];
    cli_json_open(j, key, '{');
    cli_json_uint(j, "slots", c->slots);
    cli_json_str(j, "result", c->result == 10 ? "sat" : c->result == 20 ? "unsat" : "unknown");
    cli_json_double(j, "solve_s", c->secs);
    cli_json_uint(j, "conflicts", c->learned);
    cli_json_close(j, '}');
}

static void report_json(const cli_ctx_t *c, const synth_out_t *s)
{
    const sn_synth_result_t *r = &s->res;
    cli_json_t j;
    cli_json_begin(&j, stdout);
    cli_report_json_head(&j, "synth", c);
    cli_json_str(&j, "status", status_name(s));
    cli_json_str(&j, "method",
                 s->kind == SN_SYNTH_DUAL      ? "dual"
                 : s->kind == SN_SYNTH_RELAXED ? "relaxation"
                                               : "direct");
    cli_json_str(&j, "dual", s->kind == SN_SYNTH_DUAL ? sn_coll_name(s->sp->coll) : NULL);
    if (s->relax_sat)
        cli_json_uint(&j, "relaxation_sat", (uint64_t) s->relax_sat);
    else
        cli_json_null(&j, "relaxation_sat");
    if (r->status == SN_SYNTH_OPTIMAL)
        cli_json_uint(&j, "optimum", r->upper);
    else
        cli_json_null(&j, "optimum");
    cli_json_uint(&j, "lower", r->lower);
    cli_json_uint(&j, "upper", r->upper);
    cli_json_str(&j, "best_algorithm", s->algo);
    cli_json_int(&j, "best_algorithm_steps", s->algo_steps);
    cli_json_str(&j, "unsat_by",
                 r->status != SN_SYNTH_OPTIMAL ? NULL
                 : r->unsat_call >= 0          ? "solver"
                                               : "bound");
    /* who found the optimum's schedule: the solver, or the algorithm the bound meets */
    cli_json_str(&j, "sat_by",
                 r->sched.ev == NULL                                         ? NULL
                 : s->enc && (s->kind != SN_SYNTH_RELAXED || s->relax_exact) ? "solver"
                                                                             : "algorithm");
    json_call(&j, "sat", r, r->sat_call);
    json_call(&j, "unsat", r, r->unsat_call);
    cli_json_open(&j, "calls", '[');
    for (size_t i = 0; i < r->ncalls; i++) {
        cli_json_open(&j, NULL, '{');
        cli_json_uint(&j, "slots", r->calls[i].slots);
        cli_json_str(&j, "result",
                     r->calls[i].result == 10   ? "sat"
                     : r->calls[i].result == 20 ? "unsat"
                                                : "unknown");
        cli_json_double(&j, "solve_s", r->calls[i].secs);
        cli_json_uint(&j, "conflicts", r->calls[i].learned);
        cli_json_close(&j, '}');
    }
    cli_json_close(&j, ']');
    cli_json_double(&j, "solve_s", r->solve_s);
    if (s->enc) {
        cli_json_uint(&j, "horizon", s->enc->horizon);
        cli_json_uint(&j, "variables", (uint64_t) s->enc->nvars_total);
        cli_json_uint(&j, "clauses", s->enc->nclauses);
    } else {
        cli_json_null(&j, "horizon");
        cli_json_null(&j, "variables");
        cli_json_null(&j, "clauses");
    }
    cli_json_str(&j, "solver", sn_synth_solver_name());
    cli_json_str(&j, "schedule", s->out);
    cli_json_bool(&j, "verified", s->verified);
    if (r->sched.ev != NULL) {
        char hash[24];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long) s->sim.trace_hash);
        cli_json_uint(&j, "steps", s->sim.steps);
        cli_json_str(&j, "trace_hash", hash);
    } else {
        cli_json_null(&j, "steps");
        cli_json_null(&j, "trace_hash");
    }
    if (s->etext[0])
        cli_json_str(&j, "error", s->etext);
    cli_json_end(&j);
}

static void text_call(const char *what, const sn_synth_result_t *r, int idx)
{
    const sn_synth_call_t *c = &r->calls[idx];
    printf("  %-15s %u slots: %s in %.3f s, %llu conflicts\n", what, c->slots,
           c->result == 10 ? "satisfiable" : "unsatisfiable", c->secs,
           (unsigned long long) c->learned);
}

static void report_text(const cli_ctx_t *c, const synth_out_t *s)
{
    const sn_synth_result_t *r = &s->res;
    cli_report_text_head(stdout, "synth", c);
    if (r->status == SN_SYNTH_OPTIMAL)
        printf("  status          optimal: %u slots\n", r->upper);
    else
        printf("  status          bounded: between %u and %u slots (%s)\n", r->lower, r->upper,
               s->relax_sat ? "the relaxation does not refute more" : "--timeout");
    printf("  lower bound     %u (stepnet's bounds%s%s)\n", s->lower_bound,
           s->kind == SN_SYNTH_DUAL ? " of " : "",
           s->kind == SN_SYNTH_DUAL ? sn_coll_name(s->sp->coll) : "");
    if (s->kind == SN_SYNTH_DUAL)
        printf("  dual            %s: its optimal schedule reversed in time is %s's\n",
               sn_coll_name(s->sp->coll), sn_coll_name(c->params.coll));
    if (s->kind == SN_SYNTH_RELAXED)
        printf("  relaxation      every processor knows every contribution, a transmission "
               "carrying all its sender knows: unsatisfiable T proves no allreduce of T "
               "slots\n");
    printf("  best algorithm  %s, %lld steps\n", s->algo, (long long) s->algo_steps);
    if (r->sat_call >= 0)
        text_call(s->relax_sat ? "relaxation sat" : "sat", r, r->sat_call);
    if (r->unsat_call >= 0)
        text_call("unsat", r, r->unsat_call);
    else if (r->status == SN_SYNTH_OPTIMAL)
        printf("  unsat           below %u slots by the lower bound\n", r->upper);
    if (s->relax_exact)
        printf("  schedule by     the solver: the relaxation's of %d slots, made exact (no "
               "contribution counted twice)\n",
               s->relax_exact);
    else if (s->kind == SN_SYNTH_RELAXED && r->status == SN_SYNTH_OPTIMAL && s->enc)
        printf("  schedule by     %s: the relaxation refutes %u slots\n", s->algo, r->upper - 1);
    if (s->kind == SN_SYNTH_RELAXED && s->relax_sat && r->status != SN_SYNTH_OPTIMAL)
        printf("  not proven      the relaxation has a schedule of %d slots: the lower bound %u "
               "is proven, not the optimum\n",
               s->relax_sat, r->lower);
    if (s->enc == NULL) {
        printf("  encoding        none: the lower bound meets %s, whose schedule is written\n",
               s->algo);
    } else {
        printf("  encoding        %lld variables, %llu clauses (horizon %u slots), %s\n",
               (long long) s->enc->nvars_total, (unsigned long long) s->enc->nclauses,
               s->enc->horizon, sn_synth_solver_name());
        printf("  solve           %.3f s in %zu calls\n", r->solve_s, r->ncalls);
    }
    if (r->sched.ev != NULL)
        printf("  schedule        %s: %s in the simulator, %llu steps, trace_hash %016llx\n",
               s->out ? s->out : "(not written)", s->verified ? "verified" : "NOT verified",
               (unsigned long long) s->sim.steps, (unsigned long long) s->sim.trace_hash);
    if (s->etext[0])
        printf("  error           %s\n", s->etext);
}

/* Writes the schedule, reads it back through the parser and the checker of --algo
 * schedule:FILE and plays it in the simulator. 0 when it verified in exactly `slots` steps;
 * EXIT_FAILED with s->etext set otherwise. */
static int verify_schedule(const cli_ctx_t *c, synth_out_t *s, uint64_t limit)
{
    const sn_sched_t *sched = &s->res.sched;
    sn_err_t err = {0};
    const sn_algo_t *algo = NULL;
    void *plan = NULL;
    int rc;
    if (s->out) {
        FILE *f = fopen(s->out, "w");
        if (f == NULL) {
            snprintf(s->etext, sizeof s->etext, "cannot write %s (--out): %s", s->out,
                     strerror(errno));
            return EXIT_FAILED;
        }
        sn_sched_file_write(cli_file_sink, f, c->topo, &c->params, "synth", sched,
                            s->ops.first ? &s->ops : NULL, &err);
        if (cli_close_out(f, s->out, "--out") < 0) {
            snprintf(s->etext, sizeof s->etext, "cannot write %s (--out)", s->out);
            return EXIT_FAILED;
        }
        rc = sn_sched_file_select(s->out, limit, c->topo, &c->params, &algo, &plan, NULL, &err);
    } else {
        char *text = NULL;
        size_t len = 0;
        rc = sn_sched_file_format(c->topo, &c->params, "synth", sched,
                                  s->ops.first ? &s->ops : NULL, &text, &len, &err);
        if (rc == 0)
            rc = sn_sched_file_plan_text(text, len, c->topo, &c->params, &algo, &plan, &err);
        free(text);
    }
    if (rc == 0) {
        sn_sim_opts_t so = {.max_slots = sched->steps + 1};
        rc = sn_sim_run(c->topo, &c->params, algo, plan, &so, &s->sim, &err);
        algo->plan_free(plan);
    }
    if (rc < 0) {
        cli_err_text(&err, s->etext, sizeof s->etext);
        return EXIT_FAILED;
    }
    if (!s->sim.verified || s->sim.steps != s->res.upper) {
        snprintf(s->etext, sizeof s->etext,
                 "the schedule played in %llu steps (%s), not the %u it was solved for",
                 (unsigned long long) s->sim.steps, s->sim.verified ? "verified" : "not verified",
                 s->res.upper);
        return EXIT_FAILED;
    }
    s->verified = 1;
    return 0;
}

/* 1 when schedule `sched` (operands `ops`) passes the checker of --algo schedule:FILE and
 * verifies in the simulator in exactly `steps` slots. */
static int plays(const cli_ctx_t *c, const sn_sched_t *sched, const sn_sched_ops_t *ops,
                 uint32_t steps)
{
    char *text = NULL;
    size_t len = 0;
    sn_err_t err = {0};
    const sn_algo_t *algo = NULL;
    void *plan = NULL;
    sn_sim_result_t res;
    int rc = sn_sched_file_format(c->topo, &c->params, "synth", sched, ops, &text, &len, &err);
    if (rc == 0)
        rc = sn_sched_file_plan_text(text, len, c->topo, &c->params, &algo, &plan, &err);
    free(text);
    if (rc < 0)
        return 0;
    sn_sim_opts_t so = {.max_slots = (uint64_t) steps + 1};
    rc = sn_sim_run(c->topo, &c->params, algo, plan, &so, &res, &err);
    algo->plan_free(plan);
    return rc == 0 && res.verified && res.steps == steps;
}

/* The memory the solver will hold for the encoding, and the tables. */
static uint64_t solver_bytes(const sn_synth_enc_t *e, uint64_t tables)
{
    return tables + e->nclauses * SYNTH_BYTES_PER_CLAUSE + e->nlits * SYNTH_BYTES_PER_LIT +
           (uint64_t) e->nvars_total * SYNTH_BYTES_PER_VAR;
}

/* Builds and counts the encoding within the budgets. 0, or SN_ERANGE naming the estimate. */
static int build_encoding(const cli_ctx_t *c, const sn_params_t *sp, uint32_t horizon,
                          int64_t max_clauses, uint64_t limit, sn_synth_enc_t **enc, sn_err_t *err)
{
    uint64_t tables = sn_synth_table_bytes(c->topo, sp, horizon);
    if (tables > limit) {
        err->param = SN_PARAM_MEMORY;
        return sn_err_set(err, SN_ERANGE,
                          "synth: the encoding's tables over %u slots need %llu bytes, above the "
                          "limit of %llu",
                          horizon, (unsigned long long) tables, (unsigned long long) limit);
    }
    int rc = sn_synth_enc_new(c->topo, sp, horizon, enc, err);
    if (rc < 0)
        return rc;
    sn_synth_encode(*enc, NULL, NULL); /* counts only */
    if ((*enc)->nclauses > (uint64_t) max_clauses)
        return sn_err_set(err, SN_ERANGE,
                          "synth: the encoding over %u slots has %llu clauses and %lld variables, "
                          "above --max-clauses %lld",
                          horizon, (unsigned long long) (*enc)->nclauses,
                          (long long) (*enc)->nvars_total, (long long) max_clauses);
    uint64_t bytes = solver_bytes(*enc, tables);
    if (bytes > limit) {
        err->param = SN_PARAM_MEMORY;
        return sn_err_set(err, SN_ERANGE,
                          "synth: the encoding over %u slots (%llu clauses) may take %llu bytes "
                          "in the solver, above the limit of %llu",
                          horizon, (unsigned long long) (*enc)->nclauses,
                          (unsigned long long) bytes, (unsigned long long) limit);
    }
    return 0;
}

/* Writes, verifies and reports the result in s; frees what s holds. The exit status. */
static int finish(const cli_opts_t *o, const cli_ctx_t *c, synth_out_t *s, uint64_t limit)
{
    int exit_rc = EXIT_OK;
    if (s->res.sched.ev != NULL && s->kind == SN_SYNTH_DUAL) {
        /* the dual's schedule becomes the collective's by time reversal */
        sn_sched_t rev;
        sn_err_t err = {0};
        if (sn_synth_reverse(c->topo, &c->params, &s->res.sched, &rev, &s->ops, &err) < 0) {
            cli_err_text(&err, s->etext, sizeof s->etext);
            exit_rc = EXIT_FAILED;
        } else {
            free(s->res.sched.ev);
            s->res.sched = rev;
        }
    }
    if (s->res.sched.ev != NULL && exit_rc == EXIT_OK)
        exit_rc = verify_schedule(c, s, limit);
    else
        s->out = NULL; /* bounded: no schedule of the solver's to write */
    if (o->json)
        report_json(c, s);
    else
        report_text(c, s);
    if (exit_rc != EXIT_OK)
        fprintf(stderr, "stepnet synth: %s\n", s->etext);
    free(s->res.sched.ev);
    sn_sched_ops_free(&s->ops);
    sn_synth_enc_free(s->enc);
    return exit_rc;
}

/* What bounds the schedules synth writes, for the messages: a file read back within --max-memory,
 * or without --out a text that fits an assignment. Returns buf. */
static const char *written_limit(const synth_out_t *s, uint64_t limit, char *buf, size_t cap)
{
    char lim[32];
    snprintf(buf, cap, "%s within --max-memory %s",
             s->out ? "a schedule file read back" : "a schedule played back (at most 64 MiB)",
             sn_fmt_bytes(limit, lim, sizeof lim));
    return buf;
}

/* The best algorithm's schedule, recorded from the simulator (for a combining collective with its
 * operands) into s->res.sched. 0, or the recording's error. */
static int record_algorithm(const cli_ctx_t *c, synth_out_t *s, uint64_t limit, sn_err_t *err)
{
    sn_sched_t *rec = NULL;
    /* what synth writes it plays back: a file read within --max-memory, or without --out a text
     * that fits an assignment; recorded no further than that, and refused before the run when
     * the deliveries alone are more */
    char what[96];
    if (sn_sched_record_max(c->topo, s->sp, s->algo,
                            sn_sched_file_max_transmissions(limit, s->out == NULL),
                            written_limit(s, limit, what, sizeof what), &rec, err) < 0)
        return -1;
    if (sn_coll_is_combining(s->sp->coll) &&
        sn_sched_record_operands(c->topo, s->sp, s->algo, rec, &s->ops, err) < 0) {
        sn_sched_free(rec);
        return -1;
    }
    free(s->res.sched.ev);
    s->res.sched = *rec;
    s->res.sched.ev = sn_xcalloc(rec->n ? rec->n : 1, sizeof *rec->ev);
    memcpy(s->res.sched.ev, rec->ev, rec->n * sizeof *rec->ev);
    sn_sched_free(rec);
    return 0;
}

/* The lower bound meets the best algorithm's steps: that is the optimum, proven by the bound,
 * with no solver call; the schedule written is the algorithm's, recorded from the simulator. */
static int from_algorithm(const cli_opts_t *o, const cli_ctx_t *c, synth_out_t *s, uint64_t limit,
                          sn_err_t *err)
{
    if (record_algorithm(c, s, limit, err) < 0)
        return err->code == SN_ERANGE ? cli_refuse(err) : cli_fail(err);
    sn_synth_result_t *r = &s->res;
    r->status = SN_SYNTH_OPTIMAL;
    r->lower = r->upper = (uint32_t) s->algo_steps;
    r->sat_call = r->unsat_call = -1;
    return finish(o, c, s, limit);
}

/* allreduce after the search of its relaxation over slots lower .. steps - 1: refuted
 * throughout, the algorithm's steps are the optimum. At the first satisfiable T (every T below
 * refuted) the relaxation's schedule made exact and verified is the optimum; when it does not
 * make exact, the next T's are solved in turn (a new search each) until one does, which bounds
 * the optimum from above, or the algorithm's steps are reached or --timeout stops. The schedule
 * written is the exact one, or the algorithm's. */
static int after_relaxation(const cli_opts_t *o, const cli_ctx_t *c, synth_out_t *s, uint64_t limit,
                            const sn_synth_opts_t *so, sn_err_t *err)
{
    sn_synth_result_t *r = &s->res;
    if (r->sat_call >= 0) {
        s->relax_sat = (int) r->calls[r->sat_call].slots;
        sn_synth_result_t next = {0};
        sn_sched_t *relaxed = &r->sched;
        for (uint32_t T = r->lower; relaxed->ev != NULL;) {
            sn_sched_t exact;
            sn_sched_ops_t ops;
            if (sn_synth_realize(s->enc, relaxed, &exact, &ops) == 0) {
                if (plays(c, &exact, &ops, T)) {
                    free(next.sched.ev);
                    free(r->sched.ev);
                    r->sched = exact;
                    s->ops = ops;
                    s->relax_exact = (int) T;
                    r->upper = T;
                    r->status = T == r->lower ? SN_SYNTH_OPTIMAL : SN_SYNTH_BOUNDED;
                    return finish(o, c, s, limit);
                }
                free(exact.ev);
                sn_sched_ops_free(&ops);
            }
            free(next.sched.ev);
            next.sched.ev = NULL;
            if (++T > s->enc->horizon || (so->stop && so->stop(so->ctx)) ||
                sn_synth_search(s->enc, T, so, &next, err) < 0 || next.sat_call < 0)
                break;
            T = next.calls[next.sat_call].slots;
            relaxed = &next.sched;
        }
        free(next.sched.ev);
    }
    r->upper = (uint32_t) s->algo_steps;
    r->status = r->lower >= r->upper ? SN_SYNTH_OPTIMAL : SN_SYNTH_BOUNDED;
    if (r->lower > r->upper)
        r->lower = r->upper;
    if (record_algorithm(c, s, limit, err) < 0) {
        free(r->sched.ev);
        r->sched.ev = NULL;
        sn_synth_enc_free(s->enc);
        return cli_fail(err);
    }
    return finish(o, c, s, limit);
}

int cli_cmd_synth(int argc, char **argv)
{
    cli_opts_t o = {.cmd = "synth"};
    const char *timeout_s = NULL;
    int64_t max_clauses = SYNTH_DEFAULT_MAX_CLAUSES;
    int no_bound = 0, no_incremental = 0;
    synth_out_t s = {0};
    const sn_opt_t extra[] = {
        {.name = "--timeout",
         .kind = SN_OPT_STR,
         .str = &timeout_s,
         .arg = "S",
         .help = "give up after S seconds of solving (default 600): status bounded"},
        {.name = "--max-clauses",
         .kind = SN_OPT_INT,
         .num = &max_clauses,
         .lo = 1,
         .hi = INT32_MAX,
         .unit = "clauses",
         .arg = "N",
         .help = "refuse an encoding of more than N clauses (default 20000000)"},
        {.name = "--out",
         .kind = SN_OPT_STR,
         .str = &s.out,
         .arg = "FILE",
         .help = "write the optimum's schedule to FILE (default: none written; it\n"
                 "is verified all the same)"},
        {.name = "--no-bound",
         .kind = SN_OPT_FLAG,
         .flag = &no_bound,
         .help = "let the solver prove every T from 1 and find the schedule itself,\n"
                 "even where the lower bound meets an algorithm's steps (a check of\n"
                 "the bounds, and the benchmark's measure of the solver)"},
        {.name = "--no-incremental",
         .kind = SN_OPT_FLAG,
         .flag = &no_incremental,
         .help = "a new solver for every T instead of one incremental solver (what\n"
                 "incremental solving gains: docs/synth.md)"},
        {0}};
    sn_err_t err = {0};
    int rc = cli_opts_parse(argc, argv, &o, extra, usage, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0)
        return cli_refuse(&err);
    synth_clock_t ck;
    if (cli_parse_real("--timeout", timeout_s, SYNTH_DEFAULT_TIMEOUT, 0.001, 1e9, &ck.timeout,
                       &err) < 0)
        return cli_refuse(&err);
    if (o.algo) {
        sn_err_inval(&err,
                     "--algo %s: synth searches every schedule; its upper bound is the best of "
                     "stepnet's algorithms, each run dry",
                     o.algo);
        return cli_refuse(&err);
    }
    sn_coll_t coll;
    if (o.coll && sn_coll_parse(o.coll, &coll, &err) == 0 && !sn_synth_supports(coll)) {
        sn_err_inval(&err, "--coll %s: synth proves %s", o.coll, SN_SYNTH_COLLS);
        return cli_refuse(&err);
    }
    cli_ctx_t c;
    if ((rc = cli_ctx_init(&o, &c))) {
        cli_ctx_free(&c);
        return rc;
    }
    uint64_t limit = o.max_memory ? o.max_memory : cli_default_max_memory();
    if (sn_coll_expected_total(c.topo, &c.params) == 0) {
        sn_err_inval(&err, "--topo %s: synth needs at least two processors", c.topo->spec);
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    /* sna and mna: everything below is about the dual, whose bounds and algorithms serve */
    sn_params_t dual;
    sn_bounds_t dual_bounds;
    const sn_bounds_t *bounds = &c.bounds;
    s.kind = sn_synth_kind(c.params.coll);
    s.sp = &c.params;
    if (s.kind == SN_SYNTH_DUAL) {
        if (sn_synth_dual_params(c.topo, &c.params, &dual, &err) < 0 ||
            sn_model_bounds(c.topo, &dual, &dual_bounds, &err) < 0) {
            cli_ctx_free(&c);
            return cli_refuse(&err);
        }
        s.sp = &dual;
        bounds = &dual_bounds;
    }
    /* every schedule synth writes it plays back, and each holds a transmission per delivery at
     * least: refused before any algorithm runs when those alone do not fit */
    char what[96];
    if (sn_sched_record_fits(c.topo, s.sp, sn_sched_file_max_transmissions(limit, s.out == NULL),
                             written_limit(&s, limit, what, sizeof what), &err) < 0) {
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    s.algo_steps = best_algorithm(c.topo, s.sp, &s.algo);
    if (s.algo_steps < 1) {
        sn_err_set(&err, SN_ENOTSUP, "synth: no algorithm of stepnet verifies %s on %s",
                   sn_coll_name(s.sp->coll), c.topo->spec);
        cli_ctx_free(&c);
        return cli_fail(&err);
    }
    s.lower_bound = bounds->best > 1 ? (uint32_t) bounds->best : 1;
    /* allreduce in one slot: no relaxation of fewer slots to refute */
    if ((!no_bound && s.lower_bound >= s.algo_steps) ||
        (s.kind == SN_SYNTH_RELAXED && s.algo_steps <= 1)) {
        rc = from_algorithm(&o, &c, &s, limit, &err);
        cli_ctx_free(&c);
        return rc;
    }
    /* allreduce: the relaxation need only refute one slot fewer than the algorithm takes */
    uint32_t horizon = (uint32_t) s.algo_steps - (s.kind == SN_SYNTH_RELAXED);
    if ((rc = build_encoding(&c, s.sp, horizon, max_clauses, limit, &s.enc, &err)) < 0) {
        sn_synth_enc_free(s.enc);
        cli_ctx_free(&c);
        return cli_refuse(&err);
    }
    clock_gettime(CLOCK_MONOTONIC, &ck.start);
    sn_synth_opts_t so = {.now = now_s, .stop = past_timeout, .ctx = &ck, .fresh = no_incremental};
    /* --no-bound: the solver refutes every T below the optimum itself */
    uint32_t lower = no_bound ? 1 : s.lower_bound < s.enc->horizon ? s.lower_bound : s.enc->horizon;
    if ((rc = sn_synth_search(s.enc, lower, &so, &s.res, &err)) < 0) {
        sn_synth_enc_free(s.enc);
        cli_ctx_free(&c);
        return cli_fail(&err);
    }
    rc = s.kind == SN_SYNTH_RELAXED ? after_relaxation(&o, &c, &s, limit, &so, &err)
                                    : finish(&o, &c, &s, limit);
    cli_ctx_free(&c);
    return rc;
}
