/* The SAT encoding of "a schedule of at most T slots exists" (core/synth, docs/synth.md).
 * Variables: have(v, k, s) "node v holds packet k after slot s" and send(l, k, s) "packet k
 * crosses directed link l in slot s", for s = 1 .. H, and a chain late(s) "slot s is after the
 * deadline" whose one assumed literal picks T. The port model is a per-slot at-most-one over
 * packets per link, then over the busy links of a node (Sinz's sequential counter). Pure: no
 * solver, no clock; the clauses go to a sink. */
#include <stdlib.h>
#include <string.h>

#include "core/synth/synth.h"
#include "stepnet/util.h"

sn_synth_kind_t sn_synth_kind(sn_coll_t coll)
{
    if ((unsigned) coll >= SN_COLL_COUNT)
        return SN_SYNTH_NONE;
    if (coll == SN_COLL_SNA || coll == SN_COLL_MNA)
        return SN_SYNTH_DUAL;
    if (coll == SN_COLL_ALLREDUCE)
        return SN_SYNTH_RELAXED;
    /* packets that travel whole: every collective but the combining ones and those of rounds */
    return !sn_coll_is_combining(coll) && !sn_coll_is_rounds(coll) ? SN_SYNTH_DIRECT
                                                                   : SN_SYNTH_NONE;
}

int sn_synth_supports(sn_coll_t coll)
{
    return sn_synth_kind(coll) != SN_SYNTH_NONE;
}

static uint32_t proc_count(const sn_topo_t *t)
{
    uint32_t P = 0;
    for (uint32_t v = 0; v < t->n; v++)
        P += (uint32_t) sn_topo_is_proc(t, v);
    return P;
}

/* The packets of (t, p) without building them: the sources times msgs * frags for the broadcast
 * collectives (each reaches every other processor), the expected deliveries otherwise. */
static uint64_t packet_count(const sn_topo_t *t, const sn_params_t *p)
{
    if (sn_synth_kind(p->coll) == SN_SYNTH_RELAXED) /* the pieces (seq, frag) */
        return (uint64_t) p->msgs * p->frags;
    uint64_t total = sn_coll_expected_total(t, p);
    if (sn_coll_is_broadcast(p->coll))
        return t->nproc > 1 ? total / (t->nproc - 1) : 0;
    return total;
}

/* The cells of the variable tables: have and send, or (relaxed) know, send and via. */
static uint64_t cell_count(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon)
{
    uint64_t npkt = packet_count(t, p), n = t->n, links = t->port_off[t->n];
    if (sn_synth_kind(p->coll) == SN_SYNTH_RELAXED) {
        uint64_t P = proc_count(t);
        return npkt * (n * P + links + links * P) * (horizon + 1ull);
    }
    return npkt * (n + links) * (horizon + 1ull);
}

uint64_t sn_synth_table_bytes(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon)
{
    uint64_t npkt = packet_count(t, p), n = t->n, links = t->port_off[t->n];
    uint64_t cells = cell_count(t, p, horizon);
    if (sn_synth_kind(p->coll) == SN_SYNTH_RELAXED)
        return cells * sizeof(int32_t) + n * n * sizeof(uint32_t) + n * sizeof(uint32_t) +
               npkt * sizeof(sn_synth_pkt_t) + links * 3 * sizeof(uint32_t);
    return cells * sizeof(int32_t) + n * n * sizeof(uint32_t) + npkt * n * 2 * sizeof(uint32_t) +
           links * 3 * sizeof(uint32_t);
}

/* ---- building the tables ------------------------------------------------------------------ */

static void bfs_all(const sn_topo_t *t, uint32_t *dist)
{
    uint32_t n = t->n;
    uint32_t *queue = sn_xcalloc(n, sizeof *queue);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t *d = dist + (size_t) s * n;
        for (uint32_t v = 0; v < n; v++)
            d[v] = UINT32_MAX;
        size_t head = 0, tail = 0;
        d[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
                uint32_t w = sn_topo_port(t, u, q)->peer;
                if (d[w] == UINT32_MAX) {
                    d[w] = d[u] + 1;
                    queue[tail++] = w;
                }
            }
        }
    }
    free(queue);
}

/* Lists the packets: for every processor as source, its broadcast packet (every processor that
 * expects it is a destination) or one packet per destination that expects one from it; each
 * msgs * frags times. */
static void list_packets(sn_synth_enc_t *e)
{
    const sn_topo_t *t = e->t;
    const sn_params_t *p = e->p;
    size_t cap = 16, dcap = 16;
    e->pkt = sn_xcalloc(cap, sizeof *e->pkt);
    e->dest = sn_xcalloc(dcap, sizeof *e->dest);
    uint32_t ndest_total = 0;
    int bc = sn_coll_is_broadcast(p->coll);
    for (uint32_t src = 0; src < t->n; src++) {
        if (!sn_topo_is_proc(t, src))
            continue;
        for (uint32_t u = 0; u < t->n; u++) {
            uint32_t dst = bc ? SN_NODE_ALL : u;
            if (!bc && !sn_topo_is_proc(t, u))
                continue;
            uint32_t first = ndest_total, nd = 0;
            for (uint32_t v = bc ? 0 : u; v < (bc ? t->n : u + 1); v++) {
                if (sn_topo_is_proc(t, v) && sn_coll_source_index(t, p, v, src, dst) >= 0) {
                    sn_grow((void **) &e->dest, &dcap, ndest_total + 1, sizeof *e->dest);
                    e->dest[ndest_total++] = v;
                    nd++;
                }
            }
            if (nd > 0) {
                for (uint32_t seq = 0; seq < p->msgs; seq++)
                    for (uint32_t frag = 0; frag < p->frags; frag++) {
                        sn_grow((void **) &e->pkt, &cap, e->npkt + 1, sizeof *e->pkt);
                        e->pkt[e->npkt++] = (sn_synth_pkt_t){src, dst, seq, frag, first, nd};
                    }
            }
            if (bc)
                break; /* one broadcast packet per source and (seq, frag) */
        }
    }
}

/* allreduce, relaxed (docs/synth.md, "allreduce: a relaxation"): the pieces (seq, frag) as
 * packets, and for every contributor i (proc[i]) know(v, i, k, s) "node v knows i's contribution
 * to piece k after slot s", send(l, k, s) "link l carries piece k in slot s" and via(l, i, k, s)
 * "that transmission carries i's contribution". */
static void relaxed_tables(sn_synth_enc_t *e)
{
    const sn_topo_t *t = e->t;
    uint32_t n = e->n, L = e->nlinks, H = e->horizon, P = proc_count(t);
    size_t S = (size_t) H + 1;
    e->nproc = P;
    e->proc = sn_xcalloc(P ? P : 1, sizeof *e->proc);
    for (uint32_t v = 0, i = 0; v < n; v++)
        if (sn_topo_is_proc(t, v))
            e->proc[i++] = v;
    e->npkt = (size_t) e->p->msgs * e->p->frags;
    e->pkt = sn_xcalloc(e->npkt ? e->npkt : 1, sizeof *e->pkt);
    for (uint32_t seq = 0, k = 0; seq < e->p->msgs; seq++)
        for (uint32_t frag = 0; frag < e->p->frags; frag++, k++)
            e->pkt[k] = (sn_synth_pkt_t){SN_SRC_COMBINED, SN_NODE_ALL, seq, frag, 0, 0};
    /* the nearest contributor of every node: a router holds nothing before */
    uint32_t *near = sn_xcalloc(n, sizeof *near);
    for (uint32_t v = 0; v < n; v++) {
        near[v] = UINT32_MAX;
        for (uint32_t i = 0; i < P; i++) {
            uint32_t d = e->dist[(size_t) e->proc[i] * n + v];
            near[v] = d < near[v] ? d : near[v];
        }
    }
    int32_t next = 1;
    e->know = sn_xcalloc(e->npkt * n * P * S + 1, sizeof *e->know);
    e->send = sn_xcalloc(e->npkt * L * S + 1, sizeof *e->send);
    e->via = sn_xcalloc(e->npkt * L * P * S + 1, sizeof *e->via);
    for (size_t k = 0; k < e->npkt; k++) {
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t i = 0; i < P; i++)
                for (uint32_t s = 0; s <= H; s++) {
                    int32_t *x = &e->know[((k * n + v) * P + i) * S + s];
                    if (v == e->proc[i])
                        *x = SN_SYNTH_TRUE;
                    else if (s == 0 || e->dist[(size_t) e->proc[i] * n + v] > s)
                        *x = SN_SYNTH_FALSE;
                    else
                        *x = next++;
                }
        for (uint32_t l = 0; l < L; l++)
            for (uint32_t s = 0; s <= H; s++) {
                int32_t *x = &e->send[(k * L + l) * S + s];
                *x = s == 0 || near[e->link_from[l]] > s - 1 ? SN_SYNTH_FALSE : next++;
                for (uint32_t i = 0; i < P; i++) {
                    int32_t *y = &e->via[((k * L + l) * P + i) * S + s];
                    uint32_t u = e->link_from[l];
                    if (*x == SN_SYNTH_FALSE || e->link_to[l] == e->proc[i] ||
                        e->know[((k * n + u) * P + i) * S + s - 1] == SN_SYNTH_FALSE)
                        *y = SN_SYNTH_FALSE;
                    else
                        *y = next++;
                }
            }
    }
    free(near);
    e->late = sn_xcalloc(H + 2, sizeof *e->late);
    e->late[0] = SN_SYNTH_FALSE;
    for (uint32_t s = 1; s <= H + 1; s++)
        e->late[s] = next++;
    e->nvars = next - 1;
    e->nvars_total = e->nvars;
}

int sn_synth_enc_new(const sn_topo_t *t, const sn_params_t *p, uint32_t horizon,
                     sn_synth_enc_t **out, sn_err_t *err)
{
    *out = NULL;
    sn_synth_kind_t kind = sn_synth_kind(p->coll);
    if (kind == SN_SYNTH_DUAL)
        return sn_err_inval(
            err, "synth encodes %s through its dual (sn_synth_dual_params), not directly",
            sn_coll_name(p->coll));
    if (kind == SN_SYNTH_NONE)
        return sn_err_inval(err, "synth encodes %s, not %s", SN_SYNTH_COLLS, sn_coll_name(p->coll));
    uint64_t cells = cell_count(t, p, horizon) + horizon + 2;
    if (horizon == 0 || cells >= INT32_MAX / 2)
        return sn_err_set(err, SN_ERANGE,
                          "the encoding of %s on %s over %u slots has %llu variable cells; synth "
                          "handles fewer than %d",
                          sn_coll_name(p->coll), t->spec, horizon, (unsigned long long) cells,
                          INT32_MAX / 2);
    sn_synth_enc_t *e = sn_xcalloc(1, sizeof *e);
    e->t = t;
    e->p = p;
    e->horizon = horizon;
    e->n = t->n;
    e->nlinks = t->port_off[t->n];
    e->relaxed = kind == SN_SYNTH_RELAXED;
    uint32_t n = e->n, H = horizon;
    e->dist = sn_xcalloc((size_t) n * n, sizeof *e->dist);
    bfs_all(t, e->dist);
    e->link_from = sn_xcalloc(e->nlinks ? e->nlinks : 1, sizeof *e->link_from);
    e->link_to = sn_xcalloc(e->nlinks ? e->nlinks : 1, sizeof *e->link_to);
    e->link_rev = sn_xcalloc(e->nlinks ? e->nlinks : 1, sizeof *e->link_rev);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
            const sn_port_t *pp = sn_topo_port(t, u, q);
            uint32_t l = t->port_off[u] + q;
            e->link_from[l] = u;
            e->link_to[l] = pp->peer;
            e->link_rev[l] = t->port_off[pp->peer] + pp->rport;
        }
    if (e->relaxed) {
        relaxed_tables(e);
        *out = e;
        return 0;
    }
    list_packets(e);
    e->reach = sn_xcalloc(e->npkt * n + 1, sizeof *e->reach);
    for (size_t k = 0; k < e->npkt; k++)
        for (uint32_t v = 0; v < n; v++) {
            uint32_t best = UINT32_MAX;
            for (uint32_t i = 0; i < e->pkt[k].ndest; i++) {
                uint32_t d = e->dist[(size_t) v * n + e->dest[e->pkt[k].first_dest + i]];
                best = d < best ? d : best;
            }
            e->reach[k * n + v] = best;
        }
    int32_t next = 1;
    size_t S = (size_t) H + 1;
    e->have = sn_xcalloc(e->npkt * n * S + 1, sizeof *e->have);
    e->send = sn_xcalloc(e->npkt * e->nlinks * S + 1, sizeof *e->send);
    for (size_t k = 0; k < e->npkt; k++) {
        uint32_t src = e->pkt[k].src;
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t s = 0; s <= H; s++) {
                int32_t *h = &e->have[(k * n + v) * S + s];
                /* the source holds its packet from the start; another node no earlier than the
                 * packet can travel to it, one hop per slot */
                if (v == src)
                    *h = SN_SYNTH_TRUE;
                else if (s == 0 || e->dist[(size_t) src * n + v] > s)
                    *h = SN_SYNTH_FALSE;
                else
                    *h = next++;
            }
        for (uint32_t l = 0; l < e->nlinks; l++)
            for (uint32_t s = 0; s <= H; s++) {
                uint32_t u = e->link_from[l], w = e->link_to[l];
                int32_t *x = &e->send[(k * e->nlinks + l) * S + s];
                uint32_t r = e->reach[k * n + w];
                /* a send needs the sender to hold the packet; one to the source, or one from
                 * which no destination can be reached by the horizon, serves no schedule
                 * (docs/synth.md, "Pruning") */
                if (s == 0 || w == src || e->have[(k * n + u) * S + s - 1] == SN_SYNTH_FALSE ||
                    r == UINT32_MAX || (uint64_t) s + r > H)
                    *x = SN_SYNTH_FALSE;
                else
                    *x = next++;
            }
    }
    e->late = sn_xcalloc(H + 2, sizeof *e->late);
    e->late[0] = SN_SYNTH_FALSE;
    for (uint32_t s = 1; s <= H + 1; s++)
        e->late[s] = next++;
    e->nvars = next - 1;
    e->nvars_total = e->nvars;
    *out = e;
    return 0;
}

void sn_synth_enc_free(sn_synth_enc_t *e)
{
    if (e == NULL)
        return;
    free(e->proc);
    free(e->know);
    free(e->via);
    free(e->pkt);
    free(e->dest);
    free(e->dist);
    free(e->reach);
    free(e->have);
    free(e->send);
    free(e->late);
    free(e->link_from);
    free(e->link_to);
    free(e->link_rev);
    free(e);
}

int32_t sn_synth_deadline(const sn_synth_enc_t *e, uint32_t T)
{
    return e->late[T + 1];
}

/* ---- the clauses -------------------------------------------------------------------------- */

typedef struct {
    sn_synth_enc_t *e;
    sn_synth_sink_fn sink;
    void *ctx;
    int32_t next;  /* the next auxiliary variable */
    int32_t *buf;  /* a clause being built */
    int32_t *tmp;  /* at-most-one operands */
    int32_t *busy; /* [nlinks]: the link carries a packet in this slot (or FALSE) */
} pass_t;

/* Emits a clause of n literals after simplifying the constants away: a clause with a true
 * literal is dropped, false literals are removed. */
static void clause(pass_t *ps, const int32_t *lits, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (lits[i] == SN_SYNTH_TRUE)
            return;
        if (lits[i] != SN_SYNTH_FALSE)
            ps->buf[m++] = lits[i];
    }
    ps->e->nclauses++;
    ps->e->nlits += m;
    if (ps->sink)
        ps->sink(ps->ctx, ps->buf, m);
}

static void clause2(pass_t *ps, int32_t a, int32_t b)
{
    int32_t l[2] = {a, b};
    clause(ps, l, 2);
}

/* At most one of x[0 .. k-1] (constants false already removed) is true. With want_any, returns a
 * literal implied by each of them (the "some is true" of the counter), else 0. Up to four
 * operands pairwise; beyond, Sinz's sequential counter: s_i "one of x_1 .. x_i is true",
 * x_i -> s_i, s_(i-1) -> s_i, not (x_i and s_(i-1)). */
static int32_t at_most_one(pass_t *ps, const int32_t *x, size_t k, int want_any)
{
    if (k == 0)
        return SN_SYNTH_FALSE;
    if (k == 1)
        return want_any ? x[0] : 0;
    if (k <= 4) {
        for (size_t i = 0; i < k; i++)
            for (size_t j = i + 1; j < k; j++)
                clause2(ps, -x[i], -x[j]);
        if (!want_any)
            return 0;
        int32_t any = ps->next++;
        for (size_t i = 0; i < k; i++)
            clause2(ps, -x[i], any);
        return any;
    }
    int32_t prev = ps->next++;
    clause2(ps, -x[0], prev);
    for (size_t i = 1; i < k; i++) {
        int last = i + 1 == k;
        clause2(ps, -x[i], -prev);
        if (last && !want_any)
            break;
        int32_t cur = ps->next++;
        clause2(ps, -x[i], cur);
        clause2(ps, -prev, cur);
        prev = cur;
    }
    return want_any ? prev : 0;
}

static int32_t have_lit(const sn_synth_enc_t *e, size_t k, uint32_t v, uint32_t s)
{
    return e->have[(k * e->n + v) * (e->horizon + 1ull) + s];
}

static int32_t send_lit(const sn_synth_enc_t *e, size_t k, uint32_t l, uint32_t s)
{
    return e->send[(k * e->nlinks + l) * (e->horizon + 1ull) + s];
}

static int32_t know_lit(const sn_synth_enc_t *e, size_t k, uint32_t v, uint32_t i, uint32_t s)
{
    return e->know[((k * e->n + v) * e->nproc + i) * (e->horizon + 1ull) + s];
}

static int32_t via_lit(const sn_synth_enc_t *e, size_t k, uint32_t l, uint32_t i, uint32_t s)
{
    return e->via[((k * e->nlinks + l) * e->nproc + i) * (e->horizon + 1ull) + s];
}

/* The clauses of piece k, relaxed: a node knows a contribution after slot s only if it knew it
 * after s - 1 or a transmission to it in s carried it, and a transmission carries only what its
 * sender knew; a node keeps what it knows; nothing is sent after the deadline; by the deadline
 * every processor knows every contribution. What a transmission carries is left to the solver
 * (carrying more never hurts here), so one clause direction suffices. */
static void relaxed_clauses(pass_t *ps, size_t k)
{
    sn_synth_enc_t *e = ps->e;
    const sn_topo_t *t = e->t;
    uint32_t n = e->n, P = e->nproc;
    for (uint32_t s = 1; s <= e->horizon; s++) {
        for (uint32_t l = 0; l < e->nlinks; l++) {
            int32_t x = send_lit(e, k, l, s);
            if (x == SN_SYNTH_FALSE)
                continue;
            clause2(ps, -x, -e->late[s]);
            for (uint32_t i = 0; i < P; i++) {
                int32_t y = via_lit(e, k, l, i, s);
                if (y == SN_SYNTH_FALSE)
                    continue;
                clause2(ps, -y, x);
                clause2(ps, -y, know_lit(e, k, e->link_from[l], i, s - 1));
            }
        }
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t i = 0; i < P; i++) {
                int32_t h = know_lit(e, k, v, i, s);
                if (h == SN_SYNTH_FALSE || h == SN_SYNTH_TRUE)
                    continue;
                size_t m = 0;
                ps->tmp[m++] = -h;
                ps->tmp[m++] = know_lit(e, k, v, i, s - 1);
                for (uint32_t q = 0; q < sn_topo_degree(t, v); q++)
                    ps->tmp[m++] = via_lit(e, k, e->link_rev[t->port_off[v] + q], i, s);
                clause(ps, ps->tmp, m);
                clause2(ps, -know_lit(e, k, v, i, s - 1), h);
            }
        for (uint32_t w = 0; w < P; w++) /* the deadline met */
            for (uint32_t i = 0; i < P; i++)
                clause2(ps, -e->late[s + 1], know_lit(e, k, e->proc[w], i, s));
    }
}

void sn_synth_encode(sn_synth_enc_t *e, sn_synth_sink_fn sink, void *ctx)
{
    const sn_topo_t *t = e->t;
    const sn_portmodel_t *pm = &e->p->pm;
    uint32_t n = e->n, H = e->horizon, L = e->nlinks;
    uint32_t maxdeg = sn_topo_max_degree(t);
    size_t tmpcap = e->npkt > maxdeg ? e->npkt : maxdeg;
    pass_t ps = {e,
                 sink,
                 ctx,
                 e->nvars + 1,
                 sn_xcalloc(tmpcap + 4, sizeof(int32_t)),
                 sn_xcalloc(tmpcap + 4, sizeof(int32_t)),
                 sn_xcalloc(L ? L : 1, sizeof(int32_t))};
    e->nclauses = 0;
    e->nlits = 0;
    /* the deadline: after slot s is after it, so is every later one */
    for (uint32_t s = 1; s <= H; s++)
        clause2(&ps, -e->late[s], e->late[s + 1]);
    for (size_t k = 0; e->relaxed && k < e->npkt; k++)
        relaxed_clauses(&ps, k);
    for (size_t k = 0; !e->relaxed && k < e->npkt; k++) {
        const sn_synth_pkt_t *pk = &e->pkt[k];
        for (uint32_t s = 1; s <= H; s++) {
            for (uint32_t l = 0; l < L; l++) {
                int32_t x = send_lit(e, k, l, s);
                if (x == SN_SYNTH_FALSE)
                    continue;
                uint32_t u = e->link_from[l], w = e->link_to[l];
                clause2(&ps, -x, have_lit(e, k, u, s - 1));  /* a node sends only what it holds */
                clause2(&ps, -x, have_lit(e, k, w, s));      /* and the receiver then holds it */
                clause2(&ps, -x, -have_lit(e, k, w, s - 1)); /* never to a node that holds it */
                /* no send that reaches no destination by the deadline */
                clause2(&ps, -x, -e->late[s + e->reach[k * n + w]]);
            }
            for (uint32_t v = 0; v < n; v++) {
                int32_t h = have_lit(e, k, v, s);
                if (v == pk->src || h == SN_SYNTH_FALSE)
                    continue;
                /* holding after s: held after s - 1 or received in s */
                size_t m = 0;
                ps.tmp[m++] = -h;
                ps.tmp[m++] = have_lit(e, k, v, s - 1);
                for (uint32_t q = 0; q < sn_topo_degree(t, v); q++)
                    ps.tmp[m++] = send_lit(e, k, e->link_rev[t->port_off[v] + q], s);
                clause(&ps, ps.tmp, m);
                clause2(&ps, -have_lit(e, k, v, s - 1), h); /* a node keeps what it holds */
            }
            for (uint32_t i = 0; i < pk->ndest; i++) /* the deadline met */
                clause2(&ps, -e->late[s + 1], have_lit(e, k, e->dest[pk->first_dest + i], s));
        }
    }
    int need_busy = pm->ports == SN_PORTS_SINGLE || pm->duplex == SN_DUPLEX_HALF;
    for (uint32_t s = 1; s <= H; s++) {
        for (uint32_t l = 0; l < L; l++) { /* one packet per link per slot */
            size_t m = 0;
            for (size_t k = 0; k < e->npkt; k++)
                if (send_lit(e, k, l, s) != SN_SYNTH_FALSE)
                    ps.tmp[m++] = send_lit(e, k, l, s);
            ps.busy[l] = at_most_one(&ps, ps.tmp, m, need_busy);
        }
        if (pm->ports == SN_PORTS_SINGLE)
            for (uint32_t u = 0; u < n; u++) {
                size_t m = 0; /* one send per node */
                for (uint32_t q = 0; q < sn_topo_degree(t, u); q++)
                    if (ps.busy[t->port_off[u] + q] != SN_SYNTH_FALSE)
                        ps.tmp[m++] = ps.busy[t->port_off[u] + q];
                at_most_one(&ps, ps.tmp, m, 0);
                if (pm->rx != SN_RX_ONE)
                    continue;
                m = 0; /* one reception per node */
                for (uint32_t q = 0; q < sn_topo_degree(t, u); q++) {
                    int32_t b = ps.busy[e->link_rev[t->port_off[u] + q]];
                    if (b != SN_SYNTH_FALSE)
                        ps.tmp[m++] = b;
                }
                at_most_one(&ps, ps.tmp, m, 0);
            }
        if (pm->duplex == SN_DUPLEX_HALF)
            for (uint32_t l = 0; l < L; l++)
                if (l < e->link_rev[l]) /* one direction per edge */
                    clause2(&ps, -ps.busy[l], -ps.busy[e->link_rev[l]]);
    }
    e->nvars_total = ps.next - 1;
    free(ps.buf);
    free(ps.tmp);
    free(ps.busy);
}

/* ---- decoding ----------------------------------------------------------------------------- */

int sn_synth_decode(const sn_synth_enc_t *e, uint32_t T, sn_synth_value_fn value, void *ctx,
                    sn_sched_t *s)
{
    memset(s, 0, sizeof *s);
    s->predicted = -1;
    size_t S = (size_t) e->horizon + 1, cap = 16;
    s->ev = sn_xcalloc(cap, sizeof *s->ev);
    for (uint32_t slot = 1; slot <= T && slot <= e->horizon; slot++)
        for (uint32_t l = 0; l < e->nlinks; l++)
            for (size_t k = 0; k < e->npkt; k++) {
                int32_t x = e->send[(k * e->nlinks + l) * S + slot];
                if (x == SN_SYNTH_FALSE || !value(ctx, x))
                    continue;
                sn_grow((void **) &s->ev, &cap, s->n + 1, sizeof *s->ev);
                const sn_synth_pkt_t *pk = &e->pkt[k];
                uint32_t u = e->link_from[l];
                sn_sched_ev_t *ev = &s->ev[s->n++];
                ev->slot = slot;
                ev->node = u;
                ev->port = l - e->t->port_off[u];
                ev->pkt = e->relaxed ? (sn_packet_t){.src = SN_SRC_COMBINED,
                                                     .dst = SN_NODE_ALL,
                                                     .seq = pk->seq,
                                                     .frag = (uint16_t) pk->frag,
                                                     .kind = SN_PKT_DATA}
                                     : sn_packet_data(e->p, pk->src, pk->dst, pk->seq, pk->frag);
                s->steps = slot;
            }
    return 0;
}
