/* Dynamic broadcasting (core/model). Every node receives broadcast requests as a Poisson process
 * of rate lambda (per node and time unit) drawn from the run seed and serves them first come,
 * first served, one per round: a round is a reservation (a parallel prefix that ranks the nodes
 * whose queue was not empty when it began, and the packing) and the broadcast of their packets,
 * i.e. one partial multinode broadcast, played slot by slot in the simulator (or over TCP) and
 * verified. The next round begins when this one ends; a round without sources costs its prefix
 * (or, with t_p = 0, waits for the next request). The delay of a packet runs from its arrival to
 * the end of its round, in time units. Two families:
 *  - meshes and tori: Varvarigos and Bertsekas, d-dimensional meshes, section 5; rounds of
 *    pmnb-mesh-split; beside the measured delays X and V of (9a)/(10a), rho = lambda N X, the
 *    bound (11) of Theorem 7, the necessary condition (13) and the stability limit (14);
 *  - folded cubes FQ_d (d >= 2): Varvarigos, folded cubes, the dynamic broadcasting scheme that
 *    repeats the PMNB algorithm, each round starting when the previous one has finished; rounds
 *    of pmnb-fcube; the utilisation rho = lambda N/(d+1), the stability limit eq. (5) and the
 *    delay bound eq. (6), from a round of M packets lasting at most M/(d+1) + A, A = 2d + 4d t_p.
 *    One packet per node per round is the discipline that eq. (5) describes (the paper leaves the
 *    queueing to the authors' earlier hypercube work). An empty round is the class computation
 *    alone (one prefix, 2d control slots); the analysis charges A. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"

/* The family of t: a mesh of d dimensions of `side` nodes (wraparound links used: torus with
 * side >= 3), or a folded cube of dimension d. */
typedef struct {
    int fcube, ring;
    uint32_t d, side;
} dyn_shape_t;

static int dyn_shape(const sn_topo_t *t, dyn_shape_t *sh, sn_err_t *err)
{
    memset(sh, 0, sizeof *sh);
    if (t->kind == SN_TOPO_LINEAR || t->kind == SN_TOPO_RING) {
        sh->d = 1, sh->side = t->n, sh->ring = t->kind == SN_TOPO_RING && t->n >= 3;
        return 0;
    }
    if ((t->kind == SN_TOPO_MESH || t->kind == SN_TOPO_TORUS) && t->nfactors >= 1) {
        sh->d = t->nfactors, sh->side = t->factors[0]->n;
        sh->ring = t->kind == SN_TOPO_TORUS && sh->side >= 3;
        return 0;
    }
    if (t->kind == SN_TOPO_FOLDEDCUBE && t->a >= 2) {
        sh->fcube = 1, sh->d = t->a, sh->side = 2;
        return 0;
    }
    return sn_err_set(err, SN_ENOTSUP,
                      "dynamic broadcasting runs on d-dimensional meshes and tori and on folded "
                      "cubes of dimension 2 or more, not on %s",
                      t->spec);
}

/* The folded cube's constants: eqs. (5) and (6). */
static void fcube_constants(uint32_t d, double N, double lambda, double tp, sn_dyn_result_t *r)
{
    double A = 2.0 * d + 4.0 * d * tp, k = (d + 1.0) * A / N;
    r->X = 1.0 / (d + 1.0);
    r->V = A;
    r->rho = lambda * N * r->X;
    r->rho_mesh = -1;
    r->rho_star = 1.0 / (1.0 + k);
    double rho = r->rho, den = 1.0 - rho - rho * k;
    r->delay_bound = den > 0 ? (1 + rho) * (rho * r->X + (3 - rho) * A) / (2 * den) + r->X : -1;
    r->algorithm = "pmnb-fcube";
    r->eq_stability = "(5)";
    r->eq_bound = "(6)";
}

int sn_dyn_constants_for(const sn_topo_t *t, const char *algo, double lambda, double tp,
                         sn_dyn_result_t *r, sn_err_t *err)
{
    dyn_shape_t sh;
    int rc;
    if ((rc = dyn_shape(t, &sh, err)) < 0)
        return rc;
    double N = (double) t->n;
    r->fcube = sh.fcube;
    int deflt = algo == NULL || strcmp(algo, "auto") == 0;
    if (sh.fcube) {
        if (!deflt && strcmp(algo, "pmnb-fcube") != 0)
            return sn_err_set(
                err, SN_ENOTSUP,
                "dynamic broadcasting on %s plays rounds of pmnb-fcube (eqs. (5)-(6)), "
                "not %s",
                t->spec, algo);
        fcube_constants(sh.d, N, lambda, tp, r);
        return 0;
    }
    int split = deflt || strcmp(algo, "pmnb-mesh-split") == 0;
    if (!split && strcmp(algo, "pmnb-mesh") != 0)
        return sn_err_set(err, SN_ENOTSUP,
                          "dynamic broadcasting on %s plays rounds of pmnb-mesh-split (with "
                          "splitting, (9a)/(10a)) or pmnb-mesh (without, (9b)/(10b)), not %s",
                          t->spec, algo);
    uint32_t d = sh.d, side = sh.side;
    double g = sh.ring ? 2.0 : 1.0;
    if (split) {
        r->X = (N - 1.0) / (g * d * N);                                  /* (9a) */
        r->V = 2.0 * d * (side - 1) * tp + (1.0 + 1.0 / g) * (side - 1); /* (10a) */
        r->algorithm = "pmnb-mesh-split";
    } else {
        double c = ceil((side - 1) / g);
        r->X = side > 1 ? c * (N - 1.0) / (d * (side - 1.0) * N) : 0;      /* (9b) */
        r->V = (side - 1.0) * d + d * c + 4.0 * (side - 1) * d * tp + 1.0; /* (10b) */
        r->algorithm = "pmnb-mesh";
    }
    r->rho = lambda * N * r->X;
    r->rho_mesh = lambda * (N - 1.0) / (g * d); /* (12): (13) asks for <= 1 */
    r->rho_star = N * r->X / (N * r->X + r->V); /* the largest rho with 1 - rho - lambda V > 0 */
    double den = 1.0 - r->rho - lambda * r->V;
    if (den > 0) {
        double rho = r->rho, X = r->X, V = r->V;
        r->delay_bound = (1 + rho) * (rho * X / (2 * den) + (1 - rho) * V / (2 * den) +
                                      (1 - lambda * V) * V / den) +
                         X; /* (11) */
    } else {
        r->delay_bound = -1;
    }
    r->eq_stability = split ? "(14)" : "Theorem 7: 1 - rho - lambda V > 0";
    r->eq_bound = "(11)";
    return 0;
}

void sn_dyn_constants(const sn_topo_t *t, double lambda, double tp, sn_dyn_result_t *r)
{
    if (sn_dyn_constants_for(t, NULL, lambda, tp, r, NULL) < 0) { /* not a supported family */
        memset(r, 0, sizeof *r);
        r->delay_bound = r->rho_mesh = -1;
    }
}

static double uniform01(uint64_t *x)
{
    *x = sn_mix64(*x + 0x9e3779b97f4a7c15ULL);
    return (double) (*x >> 11) * (1.0 / 9007199254740992.0);
}

/* A round in the simulator. */
static int sim_round(void *ctx, const sn_topo_t *t, const sn_params_t *q, const char *algo,
                     sn_dyn_round_t *out, sn_err_t *err)
{
    (void) ctx;
    const sn_algo_t *a;
    void *plan = NULL;
    int64_t pred;
    int rc;
    if ((rc = sn_model_select(algo, t, q, &a, &plan, &pred, err)) < 0)
        return rc;
    sn_sim_opts_t so = {0};
    so.max_slots = sn_model_slot_limit(t, q, pred);
    sn_sim_result_t res;
    rc = sn_sim_run(t, q, a, plan, &so, &res, err);
    a->plan_free(plan);
    if (rc == 0 && !res.verified)
        rc = sn_err_set(err, SN_EVERIFY, "a round did not verify");
    out->steps = res.steps;
    out->control_slots = res.control_slots;
    out->deliveries = res.deliveries;
    return rc;
}

/* The arrivals: node u's k-th request at (*arr)[(*off)[u] + k], Poisson with rate o->lambda up
 * to o->horizon, from the run's seed; *total of them. The caller frees *arr and *off. */
static void dyn_arrivals(uint32_t n, const sn_params_t *p, const sn_dyn_opts_t *o, double **arr_out,
                         uint32_t **off_out, size_t *total_out)
{
    size_t cap = 1024, total = 0;
    double *arr = sn_xmalloc(cap * sizeof *arr);
    uint32_t *off = sn_xcalloc((size_t) n + 1, sizeof *off);
    for (uint32_t u = 0; u < n; u++) {
        uint64_t x = sn_mix64(p->seed ^ 0x64796e626361ULL ^ ((uint64_t) u << 32));
        off[u] = (uint32_t) total;
        for (double at = -log(1.0 - uniform01(&x)) / o->lambda; at < o->horizon;
             at += -log(1.0 - uniform01(&x)) / o->lambda) {
            if (total == cap)
                arr = sn_xrealloc(arr, (cap *= 2) * sizeof *arr);
            arr[total++] = at;
        }
    }
    off[n] = (uint32_t) total;
    *arr_out = arr;
    *off_out = off;
    *total_out = total;
}

/* The statistics over the requests after the warm-up (measured), in arrival order per batch:
 * mean, 95% confidence half-width, percentiles and maximum of the delays, and the throughput over
 * the run's tau time units. */
static void dyn_stats(sn_dyn_result_t *r, const double *delay, const uint8_t *measured,
                      size_t total, double tau)
{
    size_t nm = 0;
    double *v = sn_xmalloc((total ? total : 1) * sizeof *v);
    for (size_t k = 0; k < total; k++)
        if (measured[k])
            v[nm++] = delay[k];
    r->requests = total;
    r->measured = nm;
    r->time_units = tau;
    r->throughput = tau > 0 ? (double) total / tau : 0.0;
    if (nm > 0) {
        double sum = 0;
        for (size_t k = 0; k < nm; k++)
            sum += v[k];
        r->delay_mean = sum / (double) nm;
        /* 95% confidence half-width from 10 batch means (Student t, 9 degrees of freedom) */
        if (nm >= 20) {
            double bm[10], mean = 0, var = 0;
            for (int b = 0; b < 10; b++) {
                size_t lo = nm * (size_t) b / 10, hi = nm * (size_t) (b + 1) / 10;
                double s = 0;
                for (size_t k = lo; k < hi; k++)
                    s += v[k];
                bm[b] = s / (double) (hi - lo);
                mean += bm[b] / 10;
            }
            for (int b = 0; b < 10; b++)
                var += (bm[b] - mean) * (bm[b] - mean) / 9;
            r->delay_ci = 2.262 * sqrt(var / 10);
        } else {
            r->delay_ci = -1;
        }
        qsort(v, nm, sizeof *v, sn_cmp_double);
        r->delay_p50 = v[(nm - 1) / 2];
        r->delay_p99 = v[(size_t) ((double) (nm - 1) * 0.99)];
        r->delay_max = v[nm - 1];
    }
    free(v);
}

int sn_dyn_run(const sn_topo_t *t, const sn_params_t *p, const sn_dyn_opts_t *o, sn_dyn_result_t *r,
               sn_err_t *err)
{
    memset(r, 0, sizeof *r);
    dyn_shape_t sh;
    int rc;
    if ((rc = dyn_shape(t, &sh, err)))
        return rc;
    if (!(o->lambda > 0) || !(o->horizon > 0) || !(o->tp >= 0))
        return sn_err_set(err, SN_EINVAL,
                          "dynamic broadcasting needs an arrival rate and a duration above 0");
    double expect = o->lambda * t->n * o->horizon;
    if (expect > 2e6)
        return sn_err_set(err, SN_ERANGE,
                          "%.0f expected requests (rate x nodes x duration); at most 2000000 are "
                          "supported",
                          expect);
    if ((rc = sn_dyn_constants_for(t, o->algo, o->lambda, o->tp, r, err)) < 0)
        return rc;
    uint32_t n = t->n;
    /* ---- the arrivals: node u's k-th request at arr[off[u] + k] ---- */
    double *arr;
    uint32_t *off, *head = sn_xcalloc(n, sizeof *head);
    size_t total;
    dyn_arrivals(n, p, o, &arr, &off, &total);
    double *delay = sn_xmalloc((total ? total : 1) * sizeof *delay);
    uint8_t *measured = sn_xcalloc(total ? total : 1, 1);
    uint32_t *src = sn_xmalloc((size_t) n * sizeof *src);
    double tau = 0.0, warm = o->horizon * 0.1;
    size_t done = 0;
    sn_params_t q = *p;
    q.coll = SN_COLL_PMNB;
    q.msgs = 1;
    /* an empty round: the mesh's prefix (2d(p-1) control slots), the folded cube's class
     * computation (one prefix of 2d control slots) */
    const uint64_t empty_ctl = sh.fcube ? 2ull * sh.d : 2ull * sh.d * (sh.side - 1);
    const double prefix_time = (double) empty_ctl * o->tp;
    while (done < total) {
        uint32_t m = 0;
        double next = INFINITY;
        for (uint32_t u = 0; u < n; u++) {
            if (off[u] + head[u] >= off[u + 1])
                continue;
            double a = arr[off[u] + head[u]];
            if (a <= tau)
                src[m++] = u;
            else if (a < next)
                next = a;
        }
        if (m == 0) { /* an empty reservation, or nothing to reserve with t_p = 0 */
            if (prefix_time > 0) {
                tau += prefix_time;
                r->empty_rounds++;
                r->control_slots += empty_ctl;
            } else {
                tau = next;
            }
            continue;
        }
        q.sources = src, q.nsources = m;
        sn_dyn_round_t res;
        const char *algo = r->algorithm;
        rc = o->round ? o->round(o->round_ctx, t, &q, algo, &res, err)
                      : sim_round(NULL, t, &q, algo, &res, err);
        if (rc < 0)
            goto out;
        double D =
            (double) (res.steps - res.control_slots) / q.frags + (double) res.control_slots * o->tp;
        tau += D;
        r->rounds++;
        r->broadcasts += m;
        r->control_slots += res.control_slots;
        r->data_slots += res.steps - res.control_slots;
        r->deliveries += res.deliveries;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t u = src[i];
            size_t k = off[u] + head[u]++;
            delay[k] = tau - arr[k];
            measured[k] = arr[k] >= warm;
            done++;
        }
    }
    /* ---- statistics over the requests after the warm-up, in arrival order per batch ---- */
    dyn_stats(r, delay, measured, total, tau);
    rc = 0;
out:
    free(arr), free(off), free(head), free(delay), free(measured), free(src);
    return rc;
}
