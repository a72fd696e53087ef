/* Combining schedules: the recipe of every combined packet and delivery (schedule_compose.h). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/schedule_compose.h"
#include "stepnet/util.h"

/* The most operand comparisons the recipes of one schedule may take: a file whose nodes hold
 * many overlapping combinations could otherwise keep the checker busy for hours. */
#define COMPOSE_MAX_WORK (1ull << 30)

#define NONE UINT32_MAX

/* The combined packets a node holds for one (destination, seq, frag): a list through next[]. */
typedef struct {
    uint64_t k1, k2; /* node << 32 | destination; seq << 32 | frag */
    uint32_t head;   /* the last received transmission, NONE for none */
    uint8_t used;
} held_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    const sn_sched_t *s;
    const sn_sched_ops_t *ops;
    held_t *tab;
    size_t cap;
    uint32_t *next; /* [s->n]: the transmission held before this one under the same key */
    uint32_t *in_s, *cov, gen; /* stamps per node: in the target set, covered */
    uint32_t *cand;
    size_t ncand, capcand;
    uint32_t *ing; /* the recipes built so far */
    size_t ning, caping;
    uint64_t work;
    sn_err_t *err;
} build_t;

uint32_t sn__compose_key_dst(const sn_params_t *p, uint32_t dst)
{
    return p->coll == SN_COLL_ALLREDUCE || p->coll == SN_COLL_BARRIER ? SN_NODE_ALL : dst;
}

static size_t nops(const sn_sched_ops_t *ops, size_t i)
{
    return ops->first[i + 1] - ops->first[i];
}

static held_t *held_at(build_t *b, uint32_t node, uint32_t dst, uint32_t seq, uint32_t frag)
{
    uint64_t k1 = ((uint64_t) node << 32) | dst, k2 = ((uint64_t) seq << 32) | frag;
    size_t i = (size_t) sn_mix64(k1 * 0x9e3779b97f4a7c15ULL ^ k2) & (b->cap - 1);
    while (b->tab[i].used && (b->tab[i].k1 != k1 || b->tab[i].k2 != k2))
        i = (i + 1) & (b->cap - 1);
    if (!b->tab[i].used)
        b->tab[i] = (held_t){k1, k2, NONE, 1};
    return &b->tab[i];
}

/* Node `to` holds transmission j from the next slot on. */
static void receive(build_t *b, size_t j)
{
    const sn_sched_ev_t *e = &b->s->ev[j];
    if (e->pkt.kind != SN_PKT_DATA)
        return;
    uint32_t to = sn_topo_port(b->t, e->node, e->port)->peer;
    held_t *h = held_at(b, to, sn__compose_key_dst(b->p, e->pkt.dst), e->pkt.seq, e->pkt.frag);
    b->next[j] = h->head;
    h->head = (uint32_t) j;
}

static int by_size_desc(const void *x, const void *y, void *ctx)
{
    const sn_sched_ops_t *ops = ctx;
    uint32_t a = *(const uint32_t *) x, c = *(const uint32_t *) y;
    size_t na = nops(ops, a), nc = nops(ops, c);
    if (na != nc)
        return na > nc ? -1 : 1;
    return a > c ? -1 : (a < c); /* the later first */
}

static void push_ing(build_t *b, uint32_t v)
{
    sn_grow((void **) &b->ing, &b->caping, b->ning + 1, sizeof *b->ing);
    b->ing[b->ning++] = v;
}

/* Appends to b->ing the recipe of the combination of `set` (nset processor ids) at node u for
 * (dst, seq, frag), from u's own contribution and the packets it holds. Returns how many of the
 * set's contributions the recipe covers (nset when it forms the combination), or -1 when the
 * work bound is exceeded. *ready: the first slot in which every ingredient is held. */
static int64_t compose(build_t *b, uint32_t u, uint32_t dst, uint32_t seq, uint32_t frag,
                       const uint32_t *set, size_t nset, uint64_t *ready)
{
    const sn_sched_ops_t *ops = b->ops;
    int idem = sn_op_is_idempotent(b->p->op);
    b->gen++;
    for (size_t k = 0; k < nset; k++)
        b->in_s[set[k]] = b->gen;
    size_t covered = 0;
    *ready = 1;
    b->ncand = 0;
    for (uint32_t j = held_at(b, u, dst, seq, frag)->head; j != NONE; j = b->next[j]) {
        sn_grow((void **) &b->cand, &b->capcand, b->ncand + 1, sizeof *b->cand);
        b->cand[b->ncand++] = j;
    }
    if (b->ncand > 1) /* (cand is NULL before the first candidate) */
        qsort_r(b->cand, b->ncand, sizeof *b->cand, by_size_desc, (void *) ops);
    for (size_t c = 0; c < b->ncand && covered < nset; c++) {
        uint32_t j = b->cand[c];
        const uint32_t *o = ops->id + ops->first[j];
        size_t no = nops(ops, j), fresh = 0, k;
        b->work += no;
        if (b->work > COMPOSE_MAX_WORK)
            return -1;
        for (k = 0; k < no; k++) {
            if (b->in_s[o[k]] != b->gen || (!idem && b->cov[o[k]] == b->gen))
                break;
            fresh += b->cov[o[k]] != b->gen;
        }
        if (k < no || fresh == 0)
            continue; /* outside the set, counted twice, or nothing new */
        for (k = 0; k < no; k++)
            b->cov[o[k]] = b->gen;
        covered += fresh;
        push_ing(b, j);
        if (b->s->ev[j].slot + 1 > *ready)
            *ready = b->s->ev[j].slot + 1;
    }
    /* its own contribution last: a held combination that already counts it is the larger */
    if (sn_topo_is_proc(b->t, u) && b->in_s[u] == b->gen && b->cov[u] != b->gen) {
        push_ing(b, SN_COMPOSE_OWN);
        b->cov[u] = b->gen;
        covered++;
    }
    return (int64_t) covered;
}

static int too_much(build_t *b)
{
    return sn_err_set(b->err, SN_ERANGE,
                      "the schedule's combinations take more than %llu operand comparisons to "
                      "check; a node holds too many overlapping combinations",
                      (unsigned long long) COMPOSE_MAX_WORK);
}

/* The shape of combined transmission i: a combined data packet of this collective with valid
 * operands. */
static int check_shape(build_t *b, size_t i)
{
    const sn_topo_t *t = b->t;
    const sn_params_t *p = b->p;
    const sn_sched_ev_t *e = &b->s->ev[i];
    const sn_packet_t *k = &e->pkt;
    unsigned long long sl = (unsigned long long) e->slot;
    int dst_ok = sn__compose_key_dst(p, k->dst) == SN_NODE_ALL
                     ? (k->dst == SN_NODE_ALL || k->dst < t->n)
                     : sn_coll_source_index(t, p, k->dst, SN_SRC_COMBINED, k->dst) >= 0;
    if (k->src != SN_SRC_COMBINED || k->seq >= p->msgs || k->frag >= p->frags || !dst_ok)
        return sn_err_set(b->err, SN_EALGO,
                          "slot %llu: node %u sends packet (src %u, dst %d, seq %u, frag %u), "
                          "which is no packet of this %s: its packets are combinations (src "
                          "\"combined\") for a destination that expects one",
                          sl, e->node, k->src, k->dst == SN_NODE_ALL ? -1 : (int) k->dst, k->seq,
                          k->frag, sn_coll_name(p->coll));
    const uint32_t *o = b->ops->id + b->ops->first[i];
    size_t no = nops(b->ops, i);
    if (no == 0)
        return sn_err_set(b->err, SN_EALGO,
                          "slot %llu: node %u sends a combination of no contributions; list its "
                          "operands",
                          sl, e->node);
    for (size_t m = 0; m < no; m++)
        if (o[m] >= t->n || !sn_topo_is_proc(t, o[m]) || (m > 0 && o[m] <= o[m - 1]))
            return sn_err_set(b->err, SN_EALGO,
                              "slot %llu: node %u sends a combination with operand %u: operands "
                              "are processors of %s, in ascending order, each once",
                              sl, e->node, o[m], t->spec);
    return 0;
}

static int build_sends(build_t *b, sn_compose_t *out)
{
    const sn_sched_t *s = b->s;
    size_t added = 0;
    for (size_t i = 0; i < s->n; i++) {
        const sn_sched_ev_t *e = &s->ev[i];
        for (; added < i && s->ev[added].slot < e->slot; added++)
            receive(b, added);
        out->first[i] = b->ning;
        if (e->pkt.kind != SN_PKT_DATA)
            continue; /* a control packet carries a value of its own, no contributions */
        int rc = check_shape(b, i);
        if (rc < 0)
            return rc;
        uint64_t ready;
        const uint32_t *o = b->ops->id + b->ops->first[i];
        size_t no = nops(b->ops, i);
        int64_t got = compose(b, e->node, sn__compose_key_dst(b->p, e->pkt.dst), e->pkt.seq,
                              e->pkt.frag, o, no, &ready);
        if (got < 0)
            return too_much(b);
        if ((size_t) got != no) {
            char a[64], c[64];
            uint32_t to = sn_topo_port(b->t, e->node, e->port)->peer;
            return sn_err_set(
                b->err, SN_EALGO,
                "slot %llu: node %u sends on link %s-%s a combination of %zu contributions "
                "(dst %d, seq %u, frag %u) and can form only %lld of them from its own and the "
                "combinations it received before; a node sends only combinations of what it "
                "holds%s",
                (unsigned long long) e->slot, e->node, sn_topo_label(b->t, e->node, a, sizeof a),
                sn_topo_label(b->t, to, c, sizeof c), no,
                e->pkt.dst == SN_NODE_ALL ? -1 : (int) e->pkt.dst, e->pkt.seq, e->pkt.frag,
                (long long) got,
                sn_op_is_idempotent(b->p->op) ? "" : ", each contribution once under sum and xor");
        }
    }
    out->first[s->n] = b->ning;
    for (; added < s->n; added++)
        receive(b, added);
    return 0;
}

static int build_deliveries(build_t *b, sn_compose_t *out)
{
    const sn_topo_t *t = b->t;
    const sn_params_t *p = b->p;
    uint32_t *all = sn_xmalloc((t->nproc ? t->nproc : 1) * sizeof *all);
    size_t nall = 0;
    for (uint32_t u = 0; u < t->n; u++)
        if (sn_topo_is_proc(t, u))
            all[nall++] = u;
    size_t ndl = 0, capdl = 0;
    int rc = 0;
    for (uint32_t u = 0; u < t->n && rc == 0; u++) {
        out->dl_first[u] = ndl;
        if (sn_coll_expect(t, p, u).nsrc == 0)
            continue;
        for (uint32_t seq = 0; seq < p->msgs && rc == 0; seq++)
            for (uint32_t frag = 0; frag < p->frags && rc == 0; frag++) {
                uint64_t ready;
                size_t first = b->ning;
                int64_t got =
                    compose(b, u, sn__compose_key_dst(p, u), seq, frag, all, nall, &ready);
                if (got < 0) {
                    rc = too_much(b);
                } else if ((size_t) got != nall) {
                    rc = sn_err_set(b->err, SN_EVERIFY,
                                    "node %u never forms the combination of all %zu contributions "
                                    "(seq %u, frag %u): from its own and the combinations it "
                                    "receives it forms %lld of them (every expected delivery "
                                    "must happen)",
                                    u, nall, seq, frag, (long long) got);
                } else {
                    sn_grow((void **) &out->dl, &capdl, ndl + 1, sizeof *out->dl);
                    out->dl[ndl++] = (sn_compose_delivery_t){u, seq, frag, ready, first, b->ning};
                }
            }
    }
    out->dl_first[t->n] = ndl;
    free(all);
    return rc;
}

int sn__compose_build(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *s,
                      const sn_sched_ops_t *ops, sn_compose_t *out, sn_err_t *err)
{
    if (s->n >= NONE)
        return sn_err_set(err, SN_ERANGE, "a combining schedule of %zu transmissions: at most %u",
                          s->n, NONE - 1);
    build_t b = {.t = t, .p = p, .s = s, .ops = ops, .err = err, .cap = 64};
    while (b.cap < 2 * s->n + 64)
        b.cap *= 2;
    b.tab = sn_xcalloc(b.cap, sizeof *b.tab);
    b.next = sn_xcalloc(s->n ? s->n : 1, sizeof *b.next);
    b.in_s = sn_xcalloc(t->n, sizeof *b.in_s);
    b.cov = sn_xcalloc(t->n, sizeof *b.cov);
    sn_compose_t c = {0};
    c.first = sn_xcalloc(s->n + 1, sizeof *c.first);
    c.dl_first = sn_xcalloc((size_t) t->n + 1, sizeof *c.dl_first);
    int rc = build_sends(&b, &c);
    if (rc == 0)
        rc = build_deliveries(&b, &c);
    c.ing = b.ing;
    free(b.tab);
    free(b.next);
    free(b.in_s);
    free(b.cov);
    free(b.cand);
    if (rc < 0 || out == NULL)
        sn__compose_free(&c);
    else
        *out = c;
    return rc;
}

void sn__compose_free(sn_compose_t *c)
{
    free(c->ing);
    free(c->first);
    free(c->dl);
    free(c->dl_first);
    memset(c, 0, sizeof *c);
}
