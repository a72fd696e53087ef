/* mnb-fcube, gather-fcube and scatter-fcube: multinode broadcast on the folded cube FQ_d with d+1
 * non-interfering copies of a hypercube algorithm, and the single-node gather and scatter derived
 * from it (core/algo).
 *
 * Source: Varvarigos, folded-cube paper, section 3 (the PMNB of eq. (4) with M = N: "the class
 * computation is not needed", T_MNB <= ceil(N/(d+1)) + 2d - 1; Lemma 1 for the copies; "a MNB
 * algorithm can also be used to execute the single node gather task, and by reversing the
 * transmissions ... the single node scatter"; Fig. 1). The hypercube algorithm A_0 the copies run
 * is only cited there (prefix, packing, broadcast, one dimension per step); stepnet reconstructs
 * its packing and broadcast phases:
 *
 *   class c = s mod (d+1), pos = rank of V_c(s) among the labels of class c (computed locally:
 *   no prefix for M = N); copy c routes class c with node s playing hypercube node V_c(s) and
 *   hypercube dimension k on F-dimension (d + c - k) mod (d+1), distinct over c in every slot;
 *   packing, slots 1..d: slot j+1 moves a packet whose label differs from its pos in bit j across
 *   dimension j (at most one packet per node and class: the packing lemma);
 *   broadcast, dimensions j = d-1 .. 0: phase j lasts L_j = ceil(Mbar/2^(j+1)) slots, Mbar =
 *   ceil(N/(d+1)) for every class (so that the copies stay in step); in it every node sends the
 *   packets of each class it holds across dimension j, one per slot.
 *
 * Slots per packet round: d + sum_{j=0..d-1} ceil(Mbar/2^(j+1)) <= ceil(N/(d+1)) + 2d - 1; with
 * M = msgs * frags packets per node the rounds follow each other. Gather keeps, for every packet,
 * the transmissions of its first arrival path to the root (a subset of a legal schedule); scatter
 * is gather reversed in time and direction. Both take at most the MNB's slots (for most roots
 * exactly; for some the kept paths end a slot earlier). All-port: a node uses up to d+1 links per
 * slot. */
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "core/algo/engine/fcube.h"
#include "core/algo/engine/fcube_pmnb.h"
#include "stepnet/util.h"

typedef struct {
    sn_fcsched_t s;
    uint32_t d;
    uint64_t T1; /* slots of one packet round */
    uint32_t npk;
} plan_t;

typedef sn_fcraw_t raw_t;

static int cmp_raw(const void *a, const void *b)
{
    const raw_t *x = a, *y = b;
    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static int mnb_fcube_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    uint32_t d;
    const char *who = p->coll == SN_COLL_MNB      ? "mnb-fcube"
                      : p->coll == SN_COLL_GATHER ? "gather-fcube"
                                                  : "scatter-fcube";
    return sn__fcube_get(t, &d, who, err);
}

static int mnb_fcube_applies_a0(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    uint32_t d;
    return sn__a0_get(t, &d, "mnb-a0", err);
}

static int mnb_fcube_plan_build(const sn_topo_t *t, const sn_params_t *p, int a0, void **out,
                                sn_err_t *err)
{
    uint32_t d;
    int rc = a0 ? sn__a0_get(t, &d, "mnb-a0", err)
                : sn__fcube_get(t, &d, "the folded-cube multinode broadcast", err);
    if (rc < 0)
        return rc;
    raw_t *ev;
    size_t nev;
    uint64_t T1;
    uint32_t ncp = a0 ? 1 : d + 1;
    if ((rc = sn__fcube_pmnb_round(t, d, ncp, NULL, 0, &ev, &nev, &T1, err)) < 0)
        return rc;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->s.p = p;
    pl->d = d;
    pl->T1 = T1;
    pl->npk = p->msgs * p->frags;
    uint32_t n = t->n, g = p->root;
    if (p->coll == SN_COLL_MNB) {
        for (uint32_t k = 0; k < pl->npk; k++)
            for (size_t i = 0; i < nev; i++)
                sn__fcsched_add(&pl->s, ev[i].node, k * T1 + ev[i].slot, ev[i].port, ev[i].origin,
                                SN_NODE_ALL, k, (int) ev[i].deliver);
    } else {
        /* the first-arrival path of every packet to g */
        qsort(ev, nev, sizeof *ev, cmp_raw);
        uint32_t *arr = sn_xmalloc((size_t) n * sizeof *arr);
        size_t *path = sn_xmalloc((size_t) (d + 2) * 2 * sizeof *path);
        for (size_t i = 0; i < nev && rc == 0;) {
            uint32_t s = ev[i].origin;
            size_t end = i;
            while (end < nev && ev[end].origin == s)
                end++;
            for (uint32_t u = 0; u < n; u++)
                arr[u] = UINT32_MAX;
            for (size_t e = i; e < end; e++)
                if (arr[ev[e].to] == UINT32_MAX)
                    arr[ev[e].to] = (uint32_t) e;
            if (s != g) {
                size_t np = 0;
                uint32_t e = arr[g];
                while (rc == 0) {
                    if (e == UINT32_MAX || np == (size_t) (d + 2) * 2) {
                        rc = sn_err_set(err, SN_EALGO, "no path of packet %u to %u", s, g);
                        break;
                    }
                    path[np++] = e;
                    if (ev[e].node == s)
                        break;
                    uint32_t prev = arr[ev[e].node];
                    if (prev != UINT32_MAX && ev[prev].slot >= ev[e].slot)
                        prev = UINT32_MAX;
                    e = prev;
                }
                for (size_t h = 0; h < np && rc == 0; h++) {
                    const raw_t *r = &ev[path[h]];
                    for (uint32_t k = 0; k < pl->npk; k++) {
                        if (p->coll == SN_COLL_GATHER)
                            sn__fcsched_add(&pl->s, r->node, k * T1 + r->slot, r->port, s, g, k,
                                            h == 0);
                        else /* reversed: the receiver sends back over the same dimension */
                            sn__fcsched_add(&pl->s, r->to, k * T1 + T1 + 1 - r->slot, r->port, g, s,
                                            k, h == np - 1);
                    }
                }
            }
            i = end;
        }
        free(arr);
        free(path);
    }
    free(ev);
    if (rc < 0) {
        sn__fcsched_free(&pl->s);
        free(pl);
        return rc;
    }
    sn__fcsched_finish(&pl->s, n);
    *out = pl;
    return 0;
}

static int mnb_fcube_plan_new(const sn_topo_t *t, const sn_params_t *p, void **out, sn_err_t *err)
{
    return mnb_fcube_plan_build(t, p, 0, out, err);
}

static int mnb_fcube_plan_new_a0(const sn_topo_t *t, const sn_params_t *p, void **out,
                                 sn_err_t *err)
{
    return mnb_fcube_plan_build(t, p, 1, out, err);
}

static void mnb_fcube_plan_free(void *plan)
{
    plan_t *pl = plan;
    sn__fcsched_free(&pl->s);
    free(pl);
}

/* MNB: the rounds' closed form. Gather and scatter keep a subset of each round, so a root's
 * schedule may end before the round does (and, for scatter, start after its first slot): the
 * exact count is the last slot of the kept transmissions, at most the MNB's. */
static int64_t mnb_fcube_predicted(const void *plan)
{
    const plan_t *pl = plan;
    if (pl->s.p->coll == SN_COLL_MNB)
        return (int64_t) (pl->T1 * pl->npk);
    return (int64_t) pl->s.steps;
}

static int mnb_fcube_node_init(const void *plan, uint32_t node, void *state, sn_err_t *err)
{
    (void) err;
    const plan_t *pl = plan;
    return sn__fcsched_node_init(&pl->s, node, state);
}

#define FIELDS                                                                                     \
    .pm_mask = SN_PM_MULTI, .topos = "foldedcube", .applies = mnb_fcube_applies,                   \
    .plan_new = mnb_fcube_plan_new, .plan_free = mnb_fcube_plan_free,                              \
    .predicted = mnb_fcube_predicted, .state_size = SN__FCSCHED_STATE_SIZE,                        \
    .node_init = mnb_fcube_node_init, .node_step = sn__fcsched_node_step

const sn_algo_t sn__algo_mnb_fcube = {
    .name = "mnb-fcube",
    .coll = SN_COLL_MNB,
    .summary = "d+1 hypercube copies (packing, then broadcast one dimension at a time)",
    .source = "Varvarigos, folded-cube paper, section 3, Lemma 1, Fig. 1",
    .predicts = "msgs * (d + sum_j ceil(ceil(N/(d+1))/2^(j+1))) <= ceil(N/(d+1)) + 2d - 1",
    FIELDS,
};

const sn_algo_t sn__algo_gather_fcube = {
    .name = "gather-fcube",
    .coll = SN_COLL_GATHER,
    .summary = "every packet's first path to the root in mnb-fcube's schedule",
    .source = "Varvarigos, folded-cube paper, section 3, Fig. 1",
    .predicts = "the last slot of the kept paths (<= mnb-fcube's)",
    FIELDS,
};

const sn_algo_t sn__algo_scatter_fcube = {
    .name = "scatter-fcube",
    .coll = SN_COLL_SCATTER,
    .summary = "gather-fcube reversed in time and direction",
    .source = "Varvarigos, folded-cube paper, section 3, Fig. 1",
    .predicts = "the last slot of the reversed paths (<= mnb-fcube's)",
    FIELDS,
};

/* The hypercube algorithm A_0 alone (one copy; on the folded cube it leaves the complementary
 * links idle): with every node a source no packet needs packing, and the broadcast phases take
 * sum_k N/2^k = N - 1 slots, one dimension per slot, so each node sends and receives at most one
 * packet per slot: single-port legal, and optimal there (a node must receive N - 1 packets). */
const sn_algo_t sn__algo_mnb_a0 = {
    .name = "mnb-a0",
    .coll = SN_COLL_MNB,
    .pm_mask = SN_PM_SINGLE | SN_PM_SINGLE_ANY, /* all-port: the copies or the routers do better */
    .topos = "hypercube, foldedcube",
    .summary = "the hypercube PMNB algorithm A_0 with every node a source: broadcast one dimension "
               "per slot",
    .source = "Varvarigos, folded-cube paper, section 3, eq. (3) (A_0, reconstructed)",
    .predicts = "msgs * (N - 1)",
    .applies = mnb_fcube_applies_a0,
    .plan_new = mnb_fcube_plan_new_a0,
    .plan_free = mnb_fcube_plan_free,
    .predicted = mnb_fcube_predicted,
    .state_size = SN__FCSCHED_STATE_SIZE,
    .node_init = mnb_fcube_node_init,
    .node_step = sn__fcsched_node_step,
};
