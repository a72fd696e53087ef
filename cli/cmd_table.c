/* `stepnet table`: the reproduction table of the thesis (cli). For a set of topologies
 * and sizes it prints the paper's formula and its value, the algorithm stepnet picks and its
 * predicted steps, the steps the simulator measures, the lower bound, and optionally the steps
 * measured over TCP by `stepnet run`; as Markdown or CSV. docs/reproduction.md is its output for
 * the default set. Above the usual size on purpose: each paper's formulas are
 * computed here independently of the algorithms' predictions (the cases themselves are data in
 * table_cases.c), and a formula reads best next to the row that prints it. */
#include <math.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "cli/report.h"
#include "cli/table.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

static const char usage_head[] =
    "usage: stepnet table [--set default|quick] [--match TEXT] [--csv] [--run] [--out FILE]\n"
    "                     [--max-memory SIZE]\n"
    "\n"
    "The reproduction table of the thesis (V. V. Dimakopoulos, 1996, chapters 3-6), the\n"
    "torus framework (P. Fragopoulou and S. G. Akl; sections F&A), the mesh paper (E. A.\n"
    "Varvarigos and D. P. Bertsekas; sections VB), the folded-cube paper (E. A. Varvarigos;\n"
    "sections FQ) and allreduce and barrier after D. P. Bertsekas and J. N. Tsitsiklis,\n"
    "Parallel and Distributed Computation, section 1.3 (sections B&T): for every case, the\n"
    "paper's formula and its value, the algorithm stepnet picks, its predicted steps, the\n"
    "steps the simulator measures, the best lower bound, and whether they agree. Markdown by\n"
    "default. A last line on stderr counts the cases, those that agree and those whose steps\n"
    "meet a lower bound (proven optimal).\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 when every row agrees (the simulated steps, and with --run the TCP steps,\n"
    "equal the paper's value and stepnet's prediction), 1 otherwise, 2 bad input or no case\n"
    "matches.\n";
/* --help: the prose, and the lines of the options (cli_cmd_table). */
static const sn_help_t usage[] = {
    {.text = usage_head},
    {.lines =
         (const char *const[]){"--set", "--match", "--csv", "--run", "--out", "--max-memory", NULL},
     .col = 24},
    {.text = usage_tail},
    {0},
};

const sn_help_t *cli_help_table(void)
{
    return usage;
}

/* The most nodes a case may have to be run over TCP by --run (local processes). */
#define TABLE_RUN_MAX_NODES 256

/* The algorithm that implements the case's theorem. */
static const char *case_algo(const case_t *c)
{
    if (c->algo)
        return c->algo;
    switch (c->f) {
    case F_ECC:
        if (strncmp(c->section, "3.3", 3) == 0)
            return "bcast-ering";
        if (strncmp(c->section, "Thm 3.1", 7) == 0)
            return "bcast-product";
        return "bcast-bfs";
    case F_LOG_D:
        return "bcast-binomial";
    case F_N_1:
        return "scatter-ff";
    case F_SCATTER_DEG:
        return "scatter-ering";
    case F_TORUS_SCAT:
        return "scatter-torus";
    case F_LINEAR_TE:
        return "te-linear";
    case F_RING_TE:
        return "te-ring";
    case F_STATUS:
        return "te-cayley";
    case F_A2_TORUS:
        return "te-a2";
    case F_A3_MESH:
    case F_A3_TORUS:
    case F_A3_COMPLETE:
        return "te-a3";
    case F_THM33:
        return "bcast-greedy"; /* not the thesis's: it gives the bound, stepnet the schedule */
    case F_FQ_DIAM:
        return strcmp(c->coll, "sna") == 0 ? "sna-fcube" : "bcast-fcube";
    case F_FQ_MNB:
        return "mnb-fcube";
    case F_FQ_TE:
        return "te-fcube";
    case F_VB_SPLIT:
        return "pmnb-mesh-split";
    case F_VB_NOSPLIT:
        return "pmnb-mesh";
    case F_VB_A0:
        return "pmnb-mesh-a0";
    case F_VB_MNB:
        return "mnb-mesh";
    case F_FA_SNB:
    case F_FA_MNB:
    case F_FA_MNS:
        return c->algo;
    case F_FQ_PMNB:
        return "pmnb-fcube";
    case F_ALLRED_2E:
        return strcmp(c->coll, "barrier") == 0 ? "barrier-tree" : "allreduce-tree";
    case F_DIAM_PROCS:
        return strcmp(c->coll, "barrier") == 0 ? "barrier-flood" : "allreduce-flood";
    case F_PRODUCT_DIMS:
        return strcmp(c->coll, "barrier") == 0 ? "barrier-product" : "allreduce-product";
    case F_COUNT_ALLRED:
    case F_COUNT_RS:
    case F_JH_BCAST:
    case F_SP_PIPE:
        return c->algo;
    default: /* the fat-tree rows name their algorithm */
        break;
    }
    return NULL;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The factor sizes of a product (or the node count), in order. */
static uint32_t factor_n(const sn_topo_t *t, uint32_t i)
{
    return t->nfactors ? t->factors[i]->n : t->n;
}

/* n^(d-1) on H^d: the rounds of A3 (Theorem 5.6, Corollary 5.7), each one total exchange of H. */
static uint64_t a3_rounds(const sn_topo_t *t)
{
    uint64_t r = 1;
    for (uint32_t i = 1; i < t->nfactors; i++)
        r *= factor_n(t, 0);
    return r;
}

/* ---- fat trees (thesis chapter 6) ---- */

/* Effective capacities (the erratum of (6.5)): c_1 = 1, c_i = min(c_i, k c_(i-1)). */
static uint64_t ft_ceff(const sn_topo_t *t, uint32_t i)
{
    uint64_t c = 1;
    for (uint32_t j = 2; j <= i; j++)
        c = t->caps[j] < t->a * c ? t->caps[j] : t->a * c;
    return c;
}

/* sum_i ceil((k-1) k^(2i-2) / c_i), with effective (eff) or printed capacities. */
static uint64_t ft_te_sum(const sn_topo_t *t, int eff)
{
    uint64_t k = t->a, sum = 0, m = 1;
    for (uint32_t i = 1; i <= t->b; i++, m *= k)
        sum += ceil_div((k - 1) * m * m, eff ? ft_ceff(t, i) : t->caps[i]);
    return sum;
}

/* Single-port TE as Theorem 6.6 prints it: n^2 (2k+1)(k-1)/k^3 + 2h - 3 (= X_(h-1) + 2h - 3). */
static int64_t ft_te_printed(const sn_topo_t *t)
{
    uint64_t k = t->a, n = t->nproc;
    return (int64_t) (n * n * (2 * k + 1) * (k - 1) / (k * k * k) + 2 * t->b - 3);
}

/* The fat-tree block of formula_t (its formulas and notes are computed by ft_formula, ft_note). */
static int is_fattree(formula_t f)
{
    return f >= F_FT_BCAST_SP && f <= F_FT_TE_MP;
}

static int64_t ft_formula(formula_t f, const sn_topo_t *t)
{
    int64_t k = t->a, h = t->b, n = t->nproc, holes = k == 2 ? n + 1 : n;
    switch (f) {
    case F_FT_BCAST_SP:
        return (k + 1) * h - 1;
    case F_FT_BCAST_MP:
        return 2 * h;
    case F_FT_SCATTER:
    case F_FT_MNB_MP:
        return holes;
    case F_FT_MNB_SP:
        return k * n + (k + 1) * (h - 2) + 1;
    case F_FT_QF_SERIAL:
        return n + h * h - 1;
    case F_FT_QF:
        return n + 2 * h - 2;
    case F_FT_TE_SP: {
        /* X_l = 2 k^l (n - k^l) + (k-1) k^(2l-1) for l < h, X_h = n (n - n/k) (the root) */
        int64_t best = 0, kl = 1;
        for (int64_t l = 1; l <= h; l++) {
            kl *= k;
            int64_t x = l < h ? 2 * kl * (n - kl) + (k - 1) * kl * kl / k : n * (n - n / k);
            if (x + 2 * l - 1 > best)
                best = x + 2 * l - 1;
        }
        return best;
    }
    case F_FT_TE_MP_SERIAL:
        return (int64_t) ft_te_sum(t, 1) + h * h;
    case F_FT_TE_MP:
        return (int64_t) ft_te_sum(t, 1) + 2 * h - 1;
    default:
        return -1;
    }
}

/* The mesh schedules of Varvarigos and Bertsekas, counted from the paper's phases (section 3):
 * d dimensions of p nodes, gamma 2 on a torus with p >= 3; M sources; F fragments. */
static int64_t vb_slots(const case_t *c, const sn_topo_t *t, const sn_params_t *p)
{
    uint64_t d = t->nfactors, side = factor_n(t, 0), F = p->frags;
    int ring = t->kind == SN_TOPO_TORUS && side >= 3;
    uint64_t M = c->f == F_VB_MNB ? t->n : p->nsources, T0 = 2 * d * (side - 1);
    uint64_t halves = (c->f == F_VB_SPLIT || c->f == F_VB_A0) && ring ? 2 : 1;
    uint64_t k = c->f == F_VB_SPLIT ? F / (d * halves) : F / halves;
    uint64_t prefix = c->f == F_VB_MNB ? 0 : c->f == F_VB_NOSPLIT ? 2 * T0 : T0;
    uint64_t whole = c->f == F_VB_NOSPLIT || c->f == F_VB_MNB;
    uint64_t R = whole && ring ? side / 2 : side - 1; /* ceil((p-1)/2) on a ring */
    uint64_t Ms = whole ? ceil_div(M, d) : M, bcast = 0, pw = 1;
    for (uint64_t l = 1; l <= d; l++) {
        pw *= side;
        bcast += R * ceil_div(Ms, pw) * k;
    }
    return (int64_t) (prefix + (side - 1) * d * halves * k + bcast);
}

static int64_t formula_value(const case_t *c, const sn_topo_t *t, const sn_params_t *p)
{
    if (is_fattree(c->f))
        return ft_formula(c->f, t);
    uint64_t n = t->n;
    switch (c->f) {
    case F_ECC:
        return sn_topo_ecc(t, p->root, 1);
    case F_LOG_D:
        return t->a;
    case F_N_1:
        return (int64_t) (t->nproc - 1);
    case F_SCATTER_DEG:
        return (int64_t) ceil_div(n - 1, sn_topo_degree(t, p->root));
    case F_TORUS_SCAT:
        return (int64_t) ceil_div(n - 1, 4);
    case F_LINEAR_TE:
        return (int64_t) ceil_div(n * n - 1, 4);
    case F_RING_TE:
        return (int64_t) ceil_div(n * n - 1, 8);
    case F_STATUS:
        return (int64_t) sn_topo_status(t, 0, 0);
    case F_A2_TORUS: {
        uint64_t a = factor_n(t, 0), b = factor_n(t, 1);
        return (int64_t) (a * ceil_div(b * b - 1, 4) + b * ceil_div(a * a - 1, 4));
    }
    case F_A3_MESH:
        return (int64_t) (a3_rounds(t) * ceil_div(factor_n(t, 0) * factor_n(t, 0) - 1, 4));
    case F_A3_TORUS:
        return (int64_t) (a3_rounds(t) * ceil_div(factor_n(t, 0) * factor_n(t, 0) - 1, 8));
    case F_A3_COMPLETE:
        return (int64_t) a3_rounds(t); /* T_H = 1 on K_m */
    case F_FQ_DIAM:
        return (t->a + 1) / 2;
    case F_DIAM_PROCS:
        return sn_topo_diameter(t, 1);
    case F_PRODUCT_DIMS: {
        uint64_t d = 0, nf = t->nfactors ? t->nfactors : 1;
        for (uint32_t i = 0; i < nf; i++)
            d += factor_n(t, i) >= 2;
        return (int64_t) ((uint64_t) p->msgs * p->frags + d - 1);
    }
    case F_FQ_MNB: {
        uint64_t mbar = ceil_div(n, t->a + 1), v = t->a;
        for (uint32_t k = 1; k <= t->a; k++)
            v += ceil_div(mbar, 1ull << k);
        return (int64_t) v;
    }
    case F_FQ_TE: {
        uint64_t binom = 1, D = (t->a + 1) / 2;
        for (uint64_t i = 1; i <= D; i++)
            binom = binom * (t->a - D + i) / i;
        /* M (2^d - C)/2, rounded up once (M packets of each pair) */
        return (int64_t) ceil_div((uint64_t) p->msgs * p->frags * (n - binom), 2);
    }
    case F_HC_TE:
        return (int64_t) (n / 2 * p->msgs * p->frags);
    case F_THM33: {
        sn_bounds_t b;
        if (sn_model_bounds(t, p, &b, NULL) < 0)
            return -1;
        for (size_t i = 0; i < b.count; i++)
            if (strcmp(b.b[i].name, "thm3.3") == 0)
                return b.b[i].value;
        return -1;
    }
    case F_VB_SPLIT:
    case F_VB_NOSPLIT:
    case F_VB_A0:
    case F_VB_MNB:
        return vb_slots(c, t, p);
    case F_FA_SNB:
    case F_FA_MNB:
    case F_FA_MNS: {
        uint64_t M = p->msgs, nd = t->nfactors ? t->nfactors : 1, k = factor_n(t, 0), kn = 1;
        for (uint64_t i = 0; i + 1 < nd; i++)
            kn *= k;
        if (c->f == F_FA_SNB)
            return (int64_t) (M + nd * (k / 2) - 1);
        if (c->f == F_FA_MNB)
            return (int64_t) (M * (n - 1) / (2 * nd));
        return (int64_t) (k % 2 == 0 ? M * kn * k * k / 8 : M * (k * k - 1) * kn / 8);
    }
    case F_FQ_PMNB: {
        uint64_t mbar = ceil_div(p->nsources, t->a + 1), v = 5ull * t->a;
        for (uint32_t k = 1; k <= t->a; k++)
            v += ceil_div(mbar, 1ull << k);
        return (int64_t) v;
    }
    case F_ALLRED_2E:
        return 2 * (int64_t) sn_topo_ecc(t, p->root, 1);
    case F_COUNT_ALLRED:
    case F_COUNT_RS: {
        /* every packet needs 2 (P - 1) transmissions (allreduce) or P - 1 per destination
         * (reduce_scatter), at most 2E or P of them a slot */
        uint64_t P = t->nproc, M = (uint64_t) p->msgs * p->frags;
        uint64_t sends = c->f == F_COUNT_ALLRED ? 2 * (P - 1) * M : P * (P - 1) * M;
        uint64_t per = p->pm.ports == SN_PORTS_SINGLE ? P : 2ull * t->nedges;
        return (int64_t) ceil_div(sends, per);
    }
    case F_JH_BCAST: /* the last of the round-robin packets starts after ceil(M/d) slots on a tree
                        of height d + 1 */
        return (int64_t) (ceil_div((uint64_t) p->msgs * p->frags, t->a) + t->a);
    case F_SP_PIPE: {
        uint64_t lg = 0;
        while ((1ull << lg) < n)
            lg++;
        return (int64_t) ((uint64_t) p->msgs * p->frags - 1 + lg);
    }
    default: /* the fat-tree formulas, handled above */
        break;
    }
    return -1;
}

typedef struct {
    const case_t *c;
    char spec[96];
    uint32_t n;
    int64_t formula, predicted, lower, sim, run; /* -1: none */
    uint64_t sim_hash;                           /* the simulator's trace_hash */
    const char *algo;
    char note[400];
    int agree;
} row_t;

/* The steps a TCP run (sn_coord_run, as `stepnet run --reps 1 --warmup 0 --probes 1` makes it)
 * measures for the case, with the same algorithm as the simulator, or -1 (with the reason in
 * note). A run whose trace_hash differs from the simulator's is a failure
 * too: the same state machine must make the same sends over TCP. */
static int64_t run_case(const row_t *r, uint64_t max_memory, char *note, size_t cap)
{
    cli_opts_t o;
    cli_opts_init(&o, "run");
    o.max_memory = max_memory;
    o.topo = r->spec;
    o.coll = r->c->coll;
    o.ports = strncmp(r->c->ports, "single", 6) == 0 ? "single" : "multi";
    o.rx = strstr(r->c->ports, "rx any") ? "any" : NULL;
    o.algo = r->algo;
    o.sources = r->c->sources;
    if (r->c->frags)
        o.frags = r->c->frags;
    o.msgs = r->c->msgs ? (int64_t) r->c->msgs : -1;
    o.op = r->c->op;
    sn_coord_opts_t co;
    sn_coord_opts_default(&co);
    co.reps = 1;
    co.warmup = 0;
    co.probes = 1;
    co.topo_text = r->spec;
    cli_ctx_t ctx;
    sn_coord_result_t res;
    sn_err_t err = {0};
    int64_t steps = -1;
    if (cli_ctx_build(&o, &ctx, &err) < 0) {
        cli_err_print("stepnet", &err);
        snprintf(note, cap, "stepnet run failed");
        goto out;
    }
    cli_run_job(&ctx, &co.job);
    if (cli_coord_run(&co, &res, &err) < 0) {
        cli_err_print("stepnet", &err);
        snprintf(note, cap, "stepnet run failed");
        goto out;
    }
    if (res.failed) {
        fprintf(stderr, "stepnet run: %s\n", res.error);
        snprintf(note, cap, "stepnet run failed");
    } else if (res.trace_hash != r->sim_hash) {
        snprintf(note, cap, "the TCP run's trace_hash differs from the simulator's");
    } else {
        steps = (int64_t) res.steps;
    }
    sn_coord_result_free(&res);
out:
    cli_ctx_free(&ctx);
    return steps;
}

/* Appends "; text" (or text to an empty note). */
static void note_add(char *note, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note_add(char *note, size_t cap, const char *fmt, ...)
{
    size_t nl = strlen(note);
    if (nl > 0 && nl + 2 < cap) {
        memcpy(note + nl, "; ", 3);
        nl += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + nl, cap - nl, fmt, ap);
    va_end(ap);
}

/* The fat-tree rows' notes: the errata, and "optimal" where a lower bound meets the count. */
static void ft_note(const row_t *r, const sn_topo_t *t, char *note, size_t cap)
{
    const case_t *c = r->c;
    if (c->f == F_FT_TE_SP && t->a >= 3)
        note_add(note, cap,
                 "Theorem 6.6 prints %lld: it omits the root, which forwards n(n - n/k) messages "
                 "(erratum)",
                 (long long) ft_te_printed(t));
    if (c->f == F_FT_BCAST_MP)
        note_add(note, cap, "Table 6.2 prints %lld (typo)", (long long) (2 * t->b - 1));
    if ((c->f == F_FT_TE_MP || c->f == F_FT_TE_MP_SERIAL) && ft_te_sum(t, 0) != ft_te_sum(t, 1))
        note_add(note, cap,
                 "with the printed c_i the formula gives %lld, unreachable since c_(i+1) > k c_i",
                 (long long) (ft_te_sum(t, 0) +
                              (c->f == F_FT_TE_MP ? 2 * t->b - 1 : (uint64_t) t->b * t->b)));
    if (r->sim >= 0 && r->sim == r->lower)
        note_add(note, cap, "optimal: meets the lower bound");
}

/* The parameters of case c: collective, port model, fragments, messages and its sources (into
 * src, at most 256: the largest list of a case is 0-127, the folded-cube PMNB with d = 8). */
static void case_params(const case_t *c, sn_params_t *p, uint32_t *src)
{
    sn_coll_t coll = SN_COLL_BCAST;
    sn_coll_parse(c->coll, &coll, NULL);
    sn_params_default(p, coll);
    p->pm.ports = strncmp(c->ports, "single", 6) == 0 ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
    p->pm.rx = strstr(c->ports, "rx any") ? SN_RX_ANY : SN_RX_ONE;
    if (c->frags)
        p->frags = c->frags;
    if (c->op)
        sn_op_parse(c->op, &p->op, NULL);
    if (c->sources) { /* "a-b" or "a,b,c": node ids of the mesh rows (ranks = ids there) */
        const char *q = c->sources;
        while (*q && p->nsources < 256) {
            char *end;
            uint32_t lo = (uint32_t) strtoul(q, &end, 10), hi = lo;
            if (*end == '-')
                hi = (uint32_t) strtoul(end + 1, &end, 10);
            for (uint32_t v = lo; v <= hi && p->nsources < 256; v++)
                src[p->nsources++] = v;
            q = *end == ',' ? end + 1 : end;
        }
        p->sources = src;
    }
}

/* The algorithm of case c: the one its theorem names (gather: the twin of the scatter named), or
 * auto when this build lacks it (said in the note). */
static const char *case_want(row_t *r, const case_t *c, char *gname, size_t cap)
{
    const char *want = case_algo(c);
    if (want && strcmp(c->coll, "gather") == 0 && strncmp(want, "scatter-", 8) == 0) {
        /* gather is the scatter schedule reversed in time: the same theorem, the gather twin */
        snprintf(gname, cap, "gather-%s", want + 8);
        want = gname;
    }
    if (want && sn_model_find(want) == NULL) {
        snprintf(r->note, sizeof r->note, "%s is not in this build; auto: ", want);
        want = NULL;
    }
    return want;
}

/* What the row's note adds after a simulated run res: the paper's time units for the partial
 * collectives, and why the count is not the formula's or not known to be optimal. */
static void row_notes(row_t *r, const case_t *c, const sn_topo_t *t, const sn_params_t *p,
                      const sn_sim_result_t *res, const char *algo)
{
    size_t nl = strlen(r->note);
    if (r->sim >= 0 && c->f >= F_VB_SPLIT && c->f <= F_ALLRED_2E) {
        /* the paper's unit: data slots / frags + control slots * t_p */
        double data = (double) (res->steps - res->control_slots) / p->frags;
        nl += (size_t) snprintf(r->note + nl, sizeof r->note - nl,
                                "%llu control + %llu data slots: %.4g time units at t_p = 0, "
                                "%.4g at t_p = 1; ",
                                (unsigned long long) res->control_slots,
                                (unsigned long long) (res->steps - res->control_slots), data,
                                data + (double) res->control_slots);
        if (c->f == F_FQ_PMNB)
            nl += (size_t) snprintf(r->note + nl, sizeof r->note - nl, "eq. (4): %.4g + %u t_p; ",
                                    sn_model_fcube_eq4(t->a, p->nsources, 0.0), 4 * t->a);
    }
    if (r->sim >= 0 && r->sim != r->formula)
        snprintf(r->note + nl, sizeof r->note - nl, "differs from the formula (%s)", algo);
    else if (r->sim >= 0 && r->lower >= 0 && r->sim > r->lower) {
        /* the paper's count is reproduced, but no lower bound stepnet knows proves it optimal
         */
        if (c->f == F_A3_TORUS && factor_n(t, 0) % 4 == 2)
            snprintf(r->note + nl, sizeof r->note - nl,
                     "n = 2 mod 4: %lld steps above the cut bound n^3/8; the thesis does not "
                     "prove A3 optimal here (Theorem 5.8 does not cover it)",
                     (long long) (r->sim - r->lower));
        else
            snprintf(r->note + nl, sizeof r->note - nl,
                     "%lld step%s above the best lower bound stepnet knows",
                     (long long) (r->sim - r->lower), r->sim - r->lower == 1 ? "" : "s");
    } else if (r->sim >= 0 && r->sim == r->lower &&
               (c->f == F_DIAM_PROCS || c->f == F_PRODUCT_DIMS || c->f == F_COUNT_ALLRED ||
                c->f == F_COUNT_RS || c->f == F_SP_PIPE))
        snprintf(r->note + nl, sizeof r->note - nl, "optimal: meets the lower bound");
    if (is_fattree(c->f))
        ft_note(r, t, r->note, sizeof r->note);
}

/* One row: the formula, the prediction, the bounds, a simulated run and (with_run) a TCP run of
 * case c. 0 (a case that cannot run says why in its note), or a negative code with err when the
 * case does not fit the memory budget. */
static int build_row(row_t *r, const case_t *c, int with_run, uint64_t max_memory, sn_err_t *err)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    snprintf(r->spec, sizeof r->spec, "%s", c->topo);
    r->formula = r->predicted = r->lower = r->sim = r->run = -1;
    sn_topo_t *t = NULL;
    int rc = sn_topo_parse_budget(c->topo, NULL, 0, max_memory, &t, err);
    if (rc < 0)
        return rc;
    r->n = t->n;
    sn_params_t p;
    uint32_t src[256];
    case_params(c, &p, src);
    sn_mem_t mem;
    sn_model_mem_estimate(t, &p, with_run ? SN_MEM_RUN : SN_MEM_SIM, &mem);
    if ((rc = sn_model_mem_check(t, &p, &mem, max_memory, err)) < 0) {
        sn_topo_free(t);
        return rc;
    }
    p.msgs = c->msgs ? c->msgs : 1;
    r->formula = formula_value(c, t, &p);
    const sn_algo_t *a = NULL;
    void *plan = NULL;
    sn_bounds_t b;
    char gname[64];
    const char *want = case_want(r, c, gname, sizeof gname);
    size_t nl = strlen(r->note);
    sn_err_t e = {0};
    if (sn_model_select(want, t, &p, &a, &plan, &r->predicted, &e) < 0 ||
        sn_model_bounds(t, &p, &b, &e) < 0) {
        char text[CLI_ERR_TEXT_MAX];
        snprintf(r->note + nl, sizeof r->note - nl, "%s", cli_text(e.msg, text, sizeof text));
        sn_topo_free(t);
        return 0;
    }
    r->algo = a->name;
    r->lower = b.best;
    sn_sim_opts_t so = {0};
    so.max_slots = sn_model_slot_limit(t, &p, r->predicted);
    sn_sim_result_t res;
    if (sn_sim_run(t, &p, a, plan, &so, &res, &e) == 0 && res.verified) {
        r->sim = (int64_t) res.steps;
        r->sim_hash = res.trace_hash;
    } else {
        char text[CLI_ERR_TEXT_MAX];
        snprintf(r->note, sizeof r->note, "sim: %s", cli_text(e.msg, text, sizeof text));
    }
    a->plan_free(plan);
    /* one process per node, each rebuilding the plan: the largest folded cubes stay in the
     * simulator */
    int run_it = with_run && r->n <= TABLE_RUN_MAX_NODES;
    if (with_run && !run_it)
        snprintf(r->note, sizeof r->note, "not run over TCP (%u node processes; at most %d) ", r->n,
                 TABLE_RUN_MAX_NODES);
    if (run_it && r->sim >= 0)
        r->run =
            run_case(r, max_memory, r->note + strlen(r->note), sizeof r->note - strlen(r->note));
    r->agree = r->sim == r->formula && (r->predicted < 0 || r->predicted == r->sim) &&
               (!run_it || r->run == r->sim);
    row_notes(r, c, t, &p, &res, a->name);
    sn_topo_free(t);
    return 0;
}

static int selected(const case_t *c, int quick, const char *match)
{
    if (quick && !c->quick)
        return 0;
    return match == NULL || strstr(c->section, match) || strstr(c->topo, match);
}

/* One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line
 * break; then `end`. */
static void csv_field(FILE *f, const char *v, int end)
{
    if (strpbrk(v, ",\"\r\n") == NULL) {
        fputs(v, f);
    } else {
        fputc('"', f);
        for (const char *c = v; *c; c++) {
            if (*c == '"')
                fputc('"', f);
            fputc(*c, f);
        }
        fputc('"', f);
    }
    fputc(end, f);
}

static void num(FILE *f, int64_t v)
{
    if (v < 0)
        fputs("-", f);
    else
        fprintf(f, "%lld", (long long) v);
}

/* The header of the table: CSV, or a markdown table. */
static void table_head(FILE *f, int csv, int with_run)
{
    if (csv)
        fprintf(f,
                "section,topology,nodes,collective,ports,formula,paper,algorithm,predicted,"
                "simulated,%slower_bound,agree,note\n",
                with_run ? "tcp," : "");
    else
        fprintf(f,
                "| section | topology | n | coll | ports | formula | paper | algorithm | "
                "predicted | sim |%s lower bound | agree | note "
                "|\n|---|---|---|---|---|---|---|---|"
                "---|---|%s---|---|---|\n",
                with_run ? " tcp |" : "", with_run ? "---|" : "");
}

static void row_csv(FILE *f, const row_t *r, int with_run)
{
    csv_field(f, r->c->section, ',');
    csv_field(f, r->spec, ',');
    fprintf(f, "%u,", r->n);
    csv_field(f, r->c->coll, ',');
    csv_field(f, r->c->ports, ',');
    csv_field(f, r->c->formula, ',');
    num(f, r->formula);
    fputc(',', f);
    csv_field(f, r->algo ? r->algo : "-", ',');
    num(f, r->predicted);
    fputc(',', f);
    num(f, r->sim);
    fputc(',', f);
    if (with_run) {
        num(f, r->run);
        fputc(',', f);
    }
    num(f, r->lower);
    fprintf(f, ",%s,", r->agree ? "=" : "DIFFERS");
    csv_field(f, r->note, '\n');
}

static void row_markdown(FILE *f, const row_t *r, int with_run)
{
    fprintf(f, "| %s | `%s` | %u | %s | %s | %s | ", r->c->section, r->spec, r->n, r->c->coll,
            r->c->ports, r->c->formula);
    num(f, r->formula);
    fprintf(f, " | %s | ", r->algo ? r->algo : "-");
    num(f, r->predicted);
    fputs(" | ", f);
    num(f, r->sim);
    fputs(" | ", f);
    if (with_run) {
        num(f, r->run);
        fputs(" | ", f);
    }
    num(f, r->lower);
    fprintf(f, " | %s | %s |\n", r->agree ? "=" : "DIFFERS", r->note);
}

/* --set default|quick (an SN_OPT_FN): *(int *) ctx is 1 for quick. */
static int opt_set(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    int *quick = opt->ctx;
    if (strcmp(v, "quick") != 0 && strcmp(v, "default") != 0)
        return sn_err_inval(err, "bad value '%s' for %s: expected default or quick", v, opt->name);
    *quick = v[0] == 'q';
    return 0;
}

int cli_cmd_table(int argc, char **argv)
{
    int csv = 0, with_run = 0, quick = 0;
    const char *out = NULL, *match = NULL;
    uint64_t max_memory = cli_default_max_memory();
    const sn_opt_t table[] = {
        {.name = "--csv", .kind = SN_OPT_FLAG, .flag = &csv, .help = "CSV instead of Markdown"},
        {.name = "--run",
         .kind = SN_OPT_FLAG,
         .flag = &with_run,
         .help = "also run every case of at most 256 nodes over TCP (stepnet run,\n"
                 "local processes) and report its steps (the case fails if they,\n"
                 "or the trace_hash, differ from the simulator's)"},
        {.name = "--set",
         .kind = SN_OPT_FN,
         .fn = opt_set,
         .ctx = &quick,
         .arg = "default|quick",
         .help = "the cases (default: every theorem at a few sizes; quick: one each)"},
        {.name = "--match",
         .kind = SN_OPT_STR,
         .str = &match,
         .arg = "TEXT",
         .help = "only the cases whose section or topology contains TEXT"},
        {.name = "--out",
         .kind = SN_OPT_STR,
         .str = &out,
         .arg = "FILE",
         .help = "write the table to FILE instead of stdout"},
        {.name = "--max-memory",
         .kind = SN_OPT_FN,
         .fn = cli_opt_memory,
         .ctx = &max_memory,
         .arg = "SIZE",
         .help = "refuse a case estimated to need more (bytes, or with K, M, G, T;\n"
                 "default half the physical memory)"},
        {0},
    };
    sn_err_t err = {0};
    int rc = cli_opts_parse_tables(argc, argv, table, NULL, usage, &err);
    if (rc == CLI_HELP)
        return EXIT_OK;
    if (rc < 0)
        return cli_refuse(&err);
    size_t rows = 0;
    for (size_t i = 0; i < table_ncases; i++)
        rows += selected(&table_cases[i], quick, match);
    if (rows == 0) {
        sn_err_inval(&err, "no case of the %s set matches '%s'", quick ? "quick" : "default",
                     match);
        return cli_refuse(&err);
    }
    FILE *f = stdout;
    if (out && (f = fopen(out, "w")) == NULL) {
        sn_err_inval(&err, "cannot write '%s' (--out): %s", out, strerror(errno));
        return cli_refuse(&err);
    }
    table_head(f, csv, with_run);
    int all = 1;
    size_t agree = 0, optimal = 0;
    for (size_t i = 0; i < table_ncases; i++) {
        if (!selected(&table_cases[i], quick, match))
            continue;
        row_t r;
        if ((rc = build_row(&r, &table_cases[i], with_run, max_memory, &err)) < 0) {
            cli_err_print("stepnet table", &err);
            if (out)
                fclose(f);
            return EXIT_BADINPUT;
        }
        all &= r.agree;
        agree += r.agree != 0;
        optimal += r.sim >= 0 && r.sim == r.lower;
        (csv ? row_csv : row_markdown)(f, &r, with_run);
        fflush(f);
    }
    if (out && cli_close_out(f, out, "--out") < 0)
        return EXIT_FAILED;
    /* the summary on stderr, so that the table stays one Markdown or CSV table */
    fprintf(stderr,
            "stepnet table: %zu case%s, %zu agree%s, %zu differ%s; %zu meet%s a lower bound "
            "stepnet knows (proven optimal)\n",
            rows, cli_plural((long long) rows), agree, agree == 1 ? "s" : "", rows - agree,
            rows - agree == 1 ? "s" : "", optimal, optimal == 1 ? "s" : "");
    return all ? EXIT_OK : EXIT_FAILED;
}
