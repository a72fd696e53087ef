/* te-a3: multiport total exchange on a homogeneous product G = H x H, and recursively on H^d for
 * d = 2^k, by Algorithm A3 of the thesis (core/algo). Source: Dimakopoulos, thesis, section 5.4,
 * Fig. 5.5, eq. (5.3), Theorem 5.6, Corollary 5.7, Theorem 5.8.
 *
 * Structure. G's node (a, b) has coordinate a in dimension 0 (the copies A_b = (*, b) of H) and b
 * in dimension 1 (the copies B_a = (a, *)). TEA runs in every A_b and TEB in every B_a, at the
 * same time on disjoint links, each as n = |H| rounds of TE(H); round r takes the slots
 * (r-1) T_H + 1 .. r T_H. TE(H) is the factor's multiport total-exchange schedule, the plan's one
 * input: the model records it once on H with this run's port model, msgs and frags (auto-selection
 * for H, so whatever algorithm is best for the factor is used). In step s of round r every node
 * plays step s of TE(H) twice, as H-node a in its A copy and as H-node b in its B copy; a schedule
 * entry "H-node f sends label (x -> y, packet k) on H-port q" is bound to a product packet: TEB
 * round r < n, own label of (a, x): m_(a,x)((a + ((r-1) (+)_(n-1) l)) mod n, y), l = y - x, which
 * is (5.3) with 0-based labels ((+)_(n-1) is the thesis's 1-based operator of section 5.4); TEB
 * round n: m_(a,x)(a, y), the final deliveries inside B_a; TEA round 1: m_(x,b)(y, b), the node's
 * own; TEA round r >= 2, own label of (x, b): the packet for (y, b) received in TEB round r-1,
 * which is m_(x, b - l)(y, b) with l = ((d - r + 1) mod (n-1)) + 1, d = y - x (a closed form
 * derived here; the text of section 5.4 around (5.4) prints the source wrongly). The node keeps
 * what TEB delivered to it by destination and checks it against the closed form. Entries that
 * forward a label (f is not its source) send the packet received for it unchanged. With --msgs M
 * and fragments F the factor is recorded with the same M and F, and the label's (seq, frag) is the
 * product packet's.
 *
 * H^d, d = 2^k >= 4 (Cor. 5.7): G = H' x H' with H' = H^(d/2), and TE(H') is te-a3's own schedule
 * on H', recorded the same way (so the recursion bottoms out at H x H).
 *
 * Steps (Theorem 5.6): T = n T_H; on H^d, n^(d-1) T_H. predicted_steps is n T_H' where T_H' is the
 * factor schedule's own prediction when its algorithm has one, else its recorded step count. The
 * latter is exact, not an estimate: te-a3 replays that very schedule (a deterministic function of
 * H and the parameters), every round lasts exactly its T_H' slots, and the last round of TEB has a
 * transmission in its last slot, so the run ends at slot n T_H' by construction (Thm 5.6 holds
 * for any TE(H) of length T_H). Optimality (Thm 5.8): when T_H equals H's (4.1) cut fraction, T
 * meets (4.1) on G; for rings with n = 2 mod 4 it does not.
 *
 * Port models: multiport, full or half duplex. Every edge of G lies in exactly one copy of H and is
 * used there as the factor schedule uses it, so with the factor recorded under half duplex no edge
 * carries two packets in a slot. Single-port is impossible: a node sends in both dimensions at
 * once. Packets follow shortest paths whenever the factor schedule does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/algos.h"
#include "stepnet/util.h"

#define EMPTY UINT32_MAX /* dst of an unused hold or stock entry (te packets never use it) */

/* One transmission of the factor schedule: in step s of a round, H-node f sends label
 * (x -> y, packet k = seq * frags + frag) on its H-port `port`. `from` is -1 when f is the label's
 * source (the binding creates the packet), else the index, among f's receptions of a round, of
 * the reception whose packet it forwards. */
typedef struct {
    uint32_t s, f, port;
    uint32_t x, y, k;
    int32_t from;
} htx_t;

/* One reception of the factor schedule: in step s, H-node f receives label (x -> y, k) on its
 * H-port `port`. */
typedef struct {
    uint32_t s, f, port;
    uint32_t x, y, k;
} hrx_t;

typedef struct plan_s {
    const sn_topo_t *t;
    const sn_params_t *p;
    sn_topo_t *h_owned; /* H' = H^(d/2) built for d >= 4, else NULL */
    const sn_topo_t *h; /* the factor: t->factors[0] (d = 2) or h_owned */
    uint32_t n;         /* |H| */
    uint32_t half;      /* G factors in dimension 0 */
    uint32_t mf;        /* packets per (source, destination): msgs * frags */
    uint32_t T;         /* slots per round: the factor schedule's steps */
    int64_t pred;       /* n * (factor prediction, else T) */
    htx_t *tx;          /* sorted by (s, f, port) */
    uint32_t *tx_off;   /* [T*n + 1]: the sends of f in step s are tx_off[(s-1)*n + f] .. */
    hrx_t *rx;          /* sorted by (f, s, port) */
    uint32_t *rx_off;   /* [n*T + 1]: the receptions of f in step s are rx_off[f*T + s-1] .. */
    uint32_t *next_tx;  /* [n*(T+1)]: first step > s (s = 0..T) in which f sends, 0 if none */
} plan_t;

typedef struct {
    const plan_t *pl;
    uint32_t u, c[2];      /* node id and its H-coordinates in dimensions 0 and 1 */
    uint32_t *gport[2];    /* [deg_H(c[d])]: the G port of each H port of dimension d */
    uint32_t *hport;       /* [deg_G(u)]: the H port of each G port */
    uint8_t *dim;          /* [deg_G(u)]: the dimension of each G port */
    sn_packet_t *hold[2];  /* [receptions of c[d] per round]: packets to forward */
    sn_packet_t *stock[2]; /* [n * mf] by round parity: TEB arrivals for TEA, by destination */
    void *block;
} state_t;

/* ---- applicability -------------------------------------------------------------------------- */

static int te_a3_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    (void) p;
    const char *need = "te-a3 needs a homogeneous product H x H or H^d with d a power of 2 (e.g. "
                       "torus:5x5, mesh:3x3x3x3, 'complete:4*complete:4', "
                       "'complete:2*complete:2*complete:2*complete:2' for Q4)";
    uint32_t d = t->nfactors;
    if (d < 2)
        return sn_err_set(err, SN_ENOTSUP, "%s; %s is not a product", need, t->spec);
    if ((d & (d - 1)) != 0)
        return sn_err_set(err, SN_ENOTSUP, "%s; %s has %u dimensions", need, t->spec, d);
    for (uint32_t i = 1; i < d; i++)
        if (strcmp(t->factors[i]->spec, t->factors[0]->spec) != 0)
            return sn_err_set(err, SN_ENOTSUP, "%s; %s has unequal factors %s and %s", need,
                              t->spec, t->factors[0]->spec, t->factors[i]->spec);
    if (t->factors[0]->n < 2 || t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP, "%s; the factor %s of %s is not a graph of processors",
                          need, t->factors[0]->spec, t->spec);
    return 0;
}

/* ---- plan ----------------------------------------------------------------------------------- */

/* H' = the product of G's first `half` factors, parsed from their specs. The contents of file:
 * factors are written out from their edge lists (the plan never reads files; port numbers may
 * differ from G's, which does not matter: ports are matched by peer). */
static int build_half(const sn_topo_t *t, uint32_t half, sn_topo_t **out, sn_err_t *err)
{
    const sn_topo_t *f = t->factors[0];
    size_t len = (strlen(f->spec) + 1) * half + 1;
    char *spec = sn_xmalloc(len);
    spec[0] = '\0';
    for (uint32_t i = 0; i < half; i++) {
        if (i)
            strcat(spec, "*");
        strcat(spec, f->spec);
    }
    sn_topo_file_t file = {0};
    if (f->kind == SN_TOPO_FILE) {
        if (strncmp(f->spec, "file:", 5) != 0) {
            free(spec);
            return sn_err_set(err, SN_EALGO, "te-a3: file factor with spec '%s'", f->spec);
        }
        file.path = (char *) f->spec + 5;
        size_t cap = 0;
        for (uint32_t e = 0; e < f->nedges; e++) {
            char line[32];
            int l = snprintf(line, sizeof line, "%u %u\n", f->edges[e].a, f->edges[e].b);
            sn_grow((void **) &file.text, &cap, file.len + (size_t) l + 1, 1);
            memcpy(file.text + file.len, line, (size_t) l + 1);
            file.len += (size_t) l;
        }
    }
    int rc = f->kind == SN_TOPO_FILE ? sn_topo_parse_with(spec, &file, 1, out, err)
                                     : sn_topo_parse(spec, out, err);
    free(file.text);
    free(spec);
    return rc;
}

static int cmp_rx(const void *a, const void *b)
{
    const hrx_t *x = a, *y = b;
    if (x->f != y->f)
        return x->f < y->f ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->port < y->port ? -1 : (x->port > y->port);
}

static void te_a3_plan_free(void *plan)
{
    plan_t *pl = plan;
    if (pl == NULL)
        return;
    free(pl->tx);
    free(pl->tx_off);
    free(pl->rx);
    free(pl->rx_off);
    free(pl->next_tx);
    sn_topo_free(pl->h_owned);
    free(pl);
}

/* Turns the recorded factor schedule into the plan's tables and checks that it moves every label
 * as one packet along a walk that ends at its destination. */
static int index_schedule(plan_t *pl, const sn_sched_t *sc, sn_err_t *err)
{
    const sn_topo_t *h = pl->h;
    uint32_t n = pl->n, T = pl->T, mf = pl->mf;
    size_t m = sc->n;
    pl->tx = sn_xmalloc((m + 1) * sizeof *pl->tx);
    pl->rx = sn_xmalloc((m + 1) * sizeof *pl->rx);
    pl->tx_off = sn_xcalloc((size_t) T * n + 1, sizeof *pl->tx_off);
    pl->rx_off = sn_xcalloc((size_t) n * T + 1, sizeof *pl->rx_off);
    pl->next_tx = sn_xcalloc((size_t) n * (T + 1), sizeof *pl->next_tx);
    for (size_t i = 0; i < m; i++) {
        const sn_sched_ev_t *ev = &sc->ev[i];
        const sn_packet_t *k = &ev->pkt;
        if (ev->slot < 1 || ev->slot > T || k->src >= n || k->dst >= n || k->seq >= pl->p->msgs ||
            k->frag >= pl->p->frags)
            return sn_err_set(err, SN_EALGO,
                              "te-a3: factor schedule of %s (%s) has a foreign "
                              "packet in slot %llu",
                              h->spec, sc->algo->name, (unsigned long long) ev->slot);
        const sn_port_t *pp = sn_topo_port(h, ev->node, ev->port);
        uint32_t kk = k->seq * pl->p->frags + k->frag;
        pl->tx[i] = (htx_t){(uint32_t) ev->slot, ev->node, ev->port, k->src, k->dst, kk, -1};
        pl->rx[i] = (hrx_t){(uint32_t) ev->slot, pp->peer, pp->rport, k->src, k->dst, kk};
        pl->tx_off[(ev->slot - 1) * n + ev->node + 1]++;
        pl->rx_off[(size_t) pp->peer * T + ev->slot]++;
        pl->next_tx[(size_t) ev->node * (T + 1) + ev->slot - 1] = (uint32_t) ev->slot;
    }
    for (size_t i = 0; i < (size_t) T * n; i++)
        pl->tx_off[i + 1] += pl->tx_off[i];
    for (size_t i = 0; i < (size_t) n * T; i++)
        pl->rx_off[i + 1] += pl->rx_off[i];
    qsort(pl->rx, m, sizeof *pl->rx, cmp_rx);
    /* next_tx: so far [f][s-1] = s where f sends in step s; turn it into "the first step after
     * s in which f sends" by a sweep from the end */
    for (uint32_t f = 0; f < n; f++) {
        uint32_t *nx = &pl->next_tx[(size_t) f * (T + 1)], next = 0;
        for (uint32_t s = T + 1; s-- > 0;) {
            uint32_t sends_after = s < T ? nx[s] : 0; /* marks step s + 1 */
            if (sends_after)
                next = sends_after;
            nx[s] = next;
        }
    }
    /* Follow every label: where it is (its holder) and which reception brought it there. */
    size_t nl = (size_t) n * n * mf;
    uint32_t *holder = sn_xmalloc((nl + 1) * sizeof *holder);
    int32_t *via = sn_xmalloc((nl + 1) * sizeof *via);
    for (uint32_t x = 0; x < n; x++)
        for (size_t yk = 0; yk < (size_t) n * mf; yk++) {
            holder[x * (size_t) n * mf + yk] = x;
            via[x * (size_t) n * mf + yk] = -1;
        }
    /* Replay the schedule step by step: the sends of step s see the receptions of steps < s. */
    int rc = 0;
    for (uint32_t s = 1; s <= T && rc == 0; s++) {
        for (uint32_t i = pl->tx_off[(s - 1) * n]; i < pl->tx_off[s * n]; i++) {
            htx_t *e = &pl->tx[i];
            size_t L = ((size_t) e->x * n + e->y) * mf + e->k;
            if (holder[L] != e->f) {
                rc = sn_err_set(err, SN_EALGO,
                                "te-a3: in the factor schedule of %s (%s), node %u sends label "
                                "%u->%u in step %u but does not hold it",
                                h->spec, sc->algo->name, e->f, e->x, e->y, s);
                break;
            }
            e->from = via[L] < 0 ? -1 : via[L] - (int32_t) pl->rx_off[(size_t) e->f * T];
        }
        for (uint32_t f = 0; f < n && rc == 0; f++) {
            for (uint32_t j = pl->rx_off[(size_t) f * T + s - 1];
                 j < pl->rx_off[(size_t) f * T + s]; j++) {
                const hrx_t *r = &pl->rx[j];
                size_t L = ((size_t) r->x * n + r->y) * mf + r->k;
                holder[L] = f;
                via[L] = (int32_t) j;
            }
        }
    }
    for (size_t L = 0; L < nl && rc == 0; L++) {
        uint32_t x = (uint32_t) (L / ((size_t) n * mf)), y = (uint32_t) (L / mf % n);
        if (x != y && holder[L] != y)
            rc = sn_err_set(err, SN_EALGO,
                            "te-a3: the factor schedule of %s leaves label %u->%u at node %u",
                            h->spec, x, y, holder[L]);
    }
    free(holder);
    free(via);
    return rc;
}

/* The plan's one input: TE(H) under this run's port model and sizes, auto-selected for H = G's
 * factor, or te-a3's own schedule on H' = H^(d/2) (Cor. 5.7), a topology built here that the
 * plan keeps. */
static int te_a3_plan_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in,
                             size_t *n, sn_err_t *err)
{
    int rc = te_a3_applies(t, p, err);
    if (rc < 0)
        return rc;
    uint32_t half = t->nfactors / 2;
    in[0].topo = t->factors[0];
    in[0].algo = NULL;
    if (half > 1) {
        if ((rc = build_half(t, half, &in[0].owned, err)) < 0)
            return rc;
        in[0].topo = in[0].owned;
        in[0].algo = "te-a3";
    }
    in[0].params = *p; /* the factor's total exchange under the same port model and sizes */
    in[0].params.coll = SN_COLL_TE;
    in[0].params.root = 0;
    in[0].params.sources = NULL;
    in[0].params.nsources = 0;
    in[0].what = "total exchange of the factor";
    *n = 1;
    return 0;
}

static int te_a3_plan_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in,
                           size_t nin, void **out, sn_err_t *err)
{
    *out = NULL;
    int rc = te_a3_applies(t, p, err);
    if (rc < 0)
        return rc;
    if (nin != 1 || in[0].sched == NULL)
        return sn_err_set(err, SN_EINVAL, "te-a3: needs exactly one factor schedule, got %zu", nin);
    const sn_sched_t *sc = in[0].sched;
    plan_t *pl = sn_xcalloc(1, sizeof *pl);
    pl->t = t;
    pl->p = p;
    pl->half = t->nfactors / 2;
    pl->mf = p->msgs * p->frags;
    pl->h = in[0].topo;
    pl->h_owned = in[0].owned; /* H' is the plan's from now on */
    in[0].owned = NULL;
    pl->n = pl->h->n;
    if ((uint64_t) pl->n * pl->n != t->n) {
        rc = sn_err_set(err, SN_EALGO, "te-a3: %s is not %s squared", t->spec, pl->h->spec);
        goto fail;
    }
    if (sc->steps == 0 || sc->steps > UINT32_MAX / 2 || sc->n > INT32_MAX) {
        rc = sn_err_set(err, SN_ERANGE, "te-a3: factor schedule of %s has %llu steps", pl->h->spec,
                        (unsigned long long) sc->steps);
        goto fail;
    }
    pl->T = (uint32_t) sc->steps;
    pl->pred = (int64_t) pl->n * (sc->predicted >= 0 ? sc->predicted : (int64_t) sc->steps);
    if ((rc = index_schedule(pl, sc, err)) < 0)
        goto fail;
    *out = pl;
    return 0;
fail:
    te_a3_plan_free(pl);
    return rc;
}

static int64_t te_a3_predicted(const void *plan)
{
    return ((const plan_t *) plan)->pred;
}

/* ---- node ----------------------------------------------------------------------------------- */

static int te_a3_node_init(const void *plan, uint32_t u, void *state, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = plan;
    const sn_topo_t *t = pl->t, *h = pl->h;
    uint32_t n = pl->n, T = pl->T, deg = sn_topo_degree(t, u);
    s->pl = pl;
    s->u = u;
    s->c[0] = u / n;
    s->c[1] = u % n;
    uint32_t hdeg[2] = {sn_topo_degree(h, s->c[0]), sn_topo_degree(h, s->c[1])};
    uint32_t nrx[2];
    for (int d = 0; d < 2; d++)
        nrx[d] = pl->rx_off[(size_t) (s->c[d] + 1) * T] - pl->rx_off[(size_t) s->c[d] * T];
    size_t nstock = (size_t) n * pl->mf;
    size_t npk = nrx[0] + nrx[1] + 2 * nstock;
    size_t nu32 = (size_t) hdeg[0] + hdeg[1] + deg;
    s->block = sn_xmalloc(npk * sizeof(sn_packet_t) + nu32 * sizeof(uint32_t) + deg + 1);
    sn_packet_t *pk = s->block;
    s->hold[0] = pk;
    s->hold[1] = pk + nrx[0];
    s->stock[0] = pk + nrx[0] + nrx[1];
    s->stock[1] = s->stock[0] + nstock;
    for (size_t i = 0; i < npk; i++)
        pk[i].dst = EMPTY;
    uint32_t *w = (uint32_t *) (pk + npk);
    s->gport[0] = w;
    s->gport[1] = w + hdeg[0];
    s->hport = w + hdeg[0] + hdeg[1];
    s->dim = (uint8_t *) (s->hport + deg);
    for (uint32_t q = 0; q < hdeg[0] + hdeg[1]; q++)
        w[q] = UINT32_MAX;
    for (uint32_t q = 0; q < deg; q++) {
        uint32_t peer = sn_topo_port(t, u, q)->peer;
        int d = sn_topo_port_factor(t, u, q) >= pl->half;
        uint32_t f = s->c[d], hpeer = d ? peer % n : peer / n, gf, gc, hf, hc;
        sn_topo_ports_to(t, u, peer, &gf, &gc);
        sn_topo_ports_to(h, f, hpeer, &hf, &hc);
        if (gc != hc || q - gf >= hc)
            return sn_err_set(err, SN_EALGO, "te-a3: node %u port %u has no match in %s", u, q,
                              h->spec);
        s->dim[q] = (uint8_t) d;
        s->hport[q] = hf + (q - gf);
        s->gport[d][hf + (q - gf)] = q;
    }
    return 0;
}

static void te_a3_node_fini(void *state)
{
    free(((state_t *) state)->block);
}

static uint32_t umod(int64_t a, uint32_t n)
{
    int64_t r = a % (int64_t) n;
    return (uint32_t) (r < 0 ? r + n : r);
}

/* Handles one arrival of slot t1 (step s1 of round r1) on G port q. */
static int receive(state_t *s, const sn_msg_t *m, uint64_t t1, sn_step_t *io, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    uint32_t n = pl->n, T = pl->T, q = m->port;
    const sn_packet_t *k = &m->pkt;
    uint32_t r1 = (uint32_t) ((t1 - 1) / T) + 1, s1 = (uint32_t) ((t1 - 1) % T) + 1;
    int d = s->dim[q];
    uint32_t f = s->c[d], hp = s->hport[q];
    uint32_t x = d ? k->src % n : k->src / n, y = d ? k->dst % n : k->dst / n;
    uint32_t kk = k->seq * pl->p->frags + k->frag;
    uint32_t base = pl->rx_off[(size_t) f * T], j = pl->rx_off[(size_t) f * T + s1 - 1];
    uint32_t end = pl->rx_off[(size_t) f * T + s1];
    while (j < end && pl->rx[j].port != hp)
        j++;
    if (j == end || k->dst == EMPTY || pl->rx[j].x != x || pl->rx[j].y != y || pl->rx[j].k != kk)
        return sn_err_set(err, SN_EALGO,
                          "te-a3: node %u got packet %u->%u on port %u in slot %llu, which the "
                          "factor schedule does not send there",
                          s->u, k->src, k->dst, q, (unsigned long long) t1);
    if (y != f) { /* in transit inside its copy of H */
        sn_packet_t *slot = &s->hold[d][j - base];
        if (slot->dst != EMPTY)
            return sn_err_set(err, SN_EALGO, "te-a3: node %u holds two packets for one send", s->u);
        *slot = *k;
        return 0;
    }
    if (k->dst == s->u) { /* TEA, or TEB round n */
        sn_step_deliver(io, k);
        return 0;
    }
    if (d == 1 && r1 < n && k->dst % n == s->c[1]) { /* TEB: stock for TEA round r1 + 1 */
        sn_packet_t *slot = &s->stock[(r1 + 1) & 1][(size_t) (k->dst / n) * pl->mf + kk];
        if (slot->dst != EMPTY)
            return sn_err_set(err, SN_EALGO, "te-a3: node %u got two packets for one TEA send",
                              s->u);
        *slot = *k;
        return 0;
    }
    return sn_err_set(err, SN_EALGO, "te-a3: node %u got packet %u->%u in round %u, not its own",
                      s->u, k->src, k->dst, r1);
}

/* The packet of a send whose label (x -> y, kk) starts here, in dimension d and round r. */
static int bind_own(state_t *s, int d, uint32_t r, const htx_t *e, sn_packet_t *out, sn_err_t *err)
{
    const plan_t *pl = s->pl;
    uint32_t n = pl->n, a = s->c[0], b = s->c[1], F = pl->p->frags;
    uint32_t seq = e->k / F, frag = e->k % F;
    if (d == 1) { /* TEB, (5.3): l = y - x, (r-1) (+)_(n-1) l = ((r + l - 2) mod (n-1)) + 1 */
        uint32_t l = umod((int64_t) e->y - e->x, n);
        uint32_t a2 = r < n ? (a + (r + l - 2) % (n - 1) + 1) % n : a;
        *out = sn_packet_data(pl->p, s->u, a2 * n + e->y, seq, frag);
        return 0;
    }
    if (r == 1) { /* TEA round 1: the node's own messages for its A copy */
        *out = sn_packet_data(pl->p, s->u, e->y * n + b, seq, frag);
        return 0;
    }
    sn_packet_t *k = &s->stock[r & 1][(size_t) e->y * pl->mf + e->k];
    uint32_t delta = umod((int64_t) e->y - e->x, n);
    uint32_t l = umod((int64_t) delta - r + 1, n - 1) + 1;
    uint32_t src = a * n + umod((int64_t) b - l, n);
    if (k->dst != e->y * n + b || k->src != src || k->seq != seq || k->frag != frag)
        return sn_err_set(err, SN_EALGO,
                          "te-a3: node %u, TEA round %u: expected m_%u(%u) from TEB, holds %u->%u",
                          s->u, r, src, e->y * n + b, k->src, k->dst);
    *out = *k;
    k->dst = EMPTY;
    return 0;
}

static int te_a3_node_step(void *state, sn_step_t *io, sn_err_t *err)
{
    state_t *s = state;
    const plan_t *pl = s->pl;
    uint32_t n = pl->n, T = pl->T;
    int rc;
    for (size_t i = 0; i < io->nrx; i++)
        if ((rc = receive(s, &io->rx[i], io->slot - 1, io, err)) < 0)
            return rc;
    if (io->slot > (uint64_t) n * T)
        return 0;
    uint32_t r = (uint32_t) ((io->slot - 1) / T) + 1, st = (uint32_t) ((io->slot - 1) % T) + 1;
    uint64_t wake = SN_WAKE_NEVER;
    for (int d = 0; d < 2; d++) {
        uint32_t f = s->c[d];
        size_t at = (size_t) (st - 1) * n + f;
        for (uint32_t i = pl->tx_off[at]; i < pl->tx_off[at + 1]; i++) {
            const htx_t *e = &pl->tx[i];
            sn_packet_t k;
            if (e->from < 0) {
                if ((rc = bind_own(s, d, r, e, &k, err)) < 0)
                    return rc;
            } else {
                sn_packet_t *h = &s->hold[d][e->from];
                if (h->dst == EMPTY)
                    return sn_err_set(err, SN_EALGO,
                                      "te-a3: node %u must forward a packet it never got (slot "
                                      "%llu)",
                                      s->u, (unsigned long long) io->slot);
                k = *h;
                h->dst = EMPTY;
            }
            sn_step_send(io, s->gport[d][e->port], &k);
        }
        /* this dimension's next send: later in this round, or at its first step next round */
        const uint32_t *nx = &pl->next_tx[(size_t) f * (T + 1)];
        uint64_t w = SN_WAKE_NEVER;
        if (nx[st] != 0)
            w = io->slot + (nx[st] - st);
        else if (r < n && nx[0] != 0)
            w = (uint64_t) r * T + nx[0];
        if (w < wake)
            wake = w;
    }
    io->wake = wake;
    return 0;
}

const sn_algo_t sn__algo_te_a3 = {
    .name = "te-a3",
    .coll = SN_COLL_TE,
    .pm_mask = SN_PM_MULTI | SN_PM_HALF,
    .topos = "H x H and H^d (d = 2^k) with identical factors: mesh:nxn, torus:nxn, "
             "'complete:m*complete:m', ...",
    .summary = "Algorithm A3: total exchanges of the factor in both dimensions at once, n rounds",
    .source = "Dimakopoulos, thesis, section 5.4, Fig. 5.5, eq. (5.3), Theorem 5.6, "
              "Corollary 5.7, Theorem 5.8",
    .predicts = "|H| * T_H (Thm 5.6), |H|^(d-1) * T_H on H^d (Cor. 5.7); T_H = the factor "
                "algorithm's prediction, else its recorded steps",
    .applies = te_a3_applies,
    .plan_inputs = te_a3_plan_inputs,
    .plan_from = te_a3_plan_from,
    .plan_free = te_a3_plan_free,
    .predicted = te_a3_predicted,
    .state_size = sizeof(state_t),
    .node_init = te_a3_node_init,
    .node_fini = te_a3_node_fini,
    .node_step = te_a3_node_step,
    .parallel = 1,
};
