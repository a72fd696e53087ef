/* The solver driver of stepnet synth (core/synth): the only file that includes CaDiCaL's C API
 * (ccadical.h, Biere et al., CaDiCaL 1.5). It adds the encoding's clauses once and asks, for
 * T = lower, lower + 1, ..., whether a schedule of at most T slots exists, each question one
 * incremental call under the deadline assumption (docs/synth.md, "Search"). */
#include <limits.h>
#include <string.h>

#include <ccadical.h>

#include "core/synth/synth.h"

const char *sn_synth_solver_name(void)
{
    return ccadical_signature();
}

static void add_clause(void *ctx, const int32_t *lits, size_t n)
{
    CCaDiCaL *s = ctx;
    for (size_t i = 0; i < n; i++)
        ccadical_add(s, lits[i]);
    ccadical_add(s, 0);
}

/* Counts the clauses the solver learns: CaDiCaL learns one per conflict, so this is the number
 * of conflicts of a call (its C API has no statistics getter). */
static void on_learn(void *state, int *clause)
{
    (void) clause;
    (*(uint64_t *) state)++;
}

static int model_value(void *ctx, int32_t var)
{
    return ccadical_val((CCaDiCaL *) ctx, var) > 0;
}

static double clock_of(const sn_synth_opts_t *o)
{
    return o && o->now ? o->now(o->ctx) : 0.0;
}

int sn_synth_search(sn_synth_enc_t *e, uint32_t lower, const sn_synth_opts_t *opts,
                    sn_synth_result_t *r, sn_err_t *err)
{
    memset(r, 0, sizeof *r);
    r->sat_call = r->unsat_call = -1;
    r->status = SN_SYNTH_BOUNDED;
    r->lower = lower;
    r->upper = e->horizon;
    if (lower < 1 || lower > e->horizon)
        return sn_err_inval(err, "synth: the lower bound %u is outside 1 .. %u (the horizon)",
                            lower, e->horizon);
    uint64_t learned = 0;
    CCaDiCaL *s = NULL;
    int found = 0, stopped = 0;
    for (uint32_t T = lower; T <= e->horizon && r->ncalls < SN_SYNTH_MAX_CALLS; T++) {
        if (s != NULL && opts && opts->fresh) {
            ccadical_release(s);
            s = NULL;
        }
        if (s == NULL) { /* once, or with opts->fresh for every T */
            s = ccadical_init();
            ccadical_set_learn(s, &learned, INT_MAX, on_learn);
            if (opts && opts->stop)
                ccadical_set_terminate(s, opts->ctx, opts->stop);
            sn_synth_encode(e, add_clause, s);
        }
        sn_synth_call_t *c = &r->calls[r->ncalls];
        c->slots = T;
        learned = 0;
        double t0 = clock_of(opts);
        ccadical_assume(s, sn_synth_deadline(e, T));
        c->result = ccadical_solve(s);
        c->secs = clock_of(opts) - t0;
        c->learned = learned;
        r->solve_s += c->secs;
        r->ncalls++;
        if (c->result == 20) {
            r->lower = T + 1;
            r->unsat_call = (int) r->ncalls - 1;
            continue;
        }
        if (c->result == 10) {
            sn_synth_decode(e, T, model_value, s, &r->sched);
            r->upper = T;
            r->sat_call = (int) r->ncalls - 1;
            found = 1;
        } else {
            stopped = 1;
        }
        break;
    }
    if (s != NULL)
        ccadical_release(s);
    if (found && r->lower == r->upper && !e->relaxed)
        r->status = SN_SYNTH_OPTIMAL;
    if (!found && !stopped && r->lower > e->horizon && !e->relaxed)
        return sn_err_set(err, SN_EALGO,
                          "synth: no schedule of at most %u slots, although an algorithm takes "
                          "that many (the encoding is wrong)",
                          e->horizon);
    if (r->unsat_call >= 0 && r->sat_call >= 0 &&
        r->calls[r->unsat_call].slots + 1 != r->calls[r->sat_call].slots)
        r->unsat_call = -1; /* only the call just below the optimum proves it */
    return 0;
}
