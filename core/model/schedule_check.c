/* Schedule files (stepnet/schedule_file.h, docs/schedule.md): the checker a schedule must pass
 * before it runs, on the coordinator and again on every node: the instance is the run's, every
 * link exists, the port model holds in every slot, a node sends only what it holds, and every
 * expected delivery happens (for combining collectives, core/algo/engine/schedule_compose.c checks
 * the combinations). The writer and the parser are in schedule_file.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/schedule_compose.h"
#include "core/coll/coll.h"
#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

/* ---- checker -------------------------------------------------------------------------------- */

static int mismatch(sn_err_t *err, const char *what, const char *file, const char *run)
{
    return sn_err_inval(err, "the schedule file's %s is %s, the run's %s: run it with the file's",
                        what, file, run);
}

/* The instance of the file must be the run's. */
static int check_instance(const sn_sched_file_t *f, const sn_topo_t *t, const sn_params_t *p,
                          sn_err_t *err)
{
    const sn_params_t *q = &f->params;
    char a[32], b[32];
#define NUM_FIELD(name, field)                                                                     \
    if (q->field != p->field) {                                                                    \
        snprintf(a, sizeof a, "%" PRIu64, (uint64_t) q->field);                                    \
        snprintf(b, sizeof b, "%" PRIu64, (uint64_t) p->field);                                    \
        return mismatch(err, name, a, b);                                                          \
    }
    if (strcmp(f->topo, t->spec) != 0)
        return mismatch(err, "topology", f->topo, t->spec);
    if (q->coll != p->coll)
        return mismatch(err, "collective", sn_coll_name(q->coll), sn_coll_name(p->coll));
    if (q->pm.ports != p->pm.ports)
        return mismatch(err, "port model", q->pm.ports == SN_PORTS_SINGLE ? "single" : "multi",
                        p->pm.ports == SN_PORTS_SINGLE ? "single" : "multi");
    if (q->pm.ports == SN_PORTS_SINGLE && q->pm.rx != p->pm.rx)
        return mismatch(err, "reception limit", q->pm.rx ? "any" : "one", p->pm.rx ? "any" : "one");
    if (q->pm.duplex != p->pm.duplex)
        return mismatch(err, "duplex", q->pm.duplex ? "half" : "full",
                        p->pm.duplex ? "half" : "full");
    if (sn_coll_is_combining(p->coll) && q->op != p->op)
        return mismatch(err, "op", sn_op_name(q->op), sn_op_name(p->op));
    if (sn__coll_is_rooted(p->coll))
        NUM_FIELD("root", root)
    NUM_FIELD("msgs", msgs)
    NUM_FIELD("frags", frags)
    NUM_FIELD("size", size)
    NUM_FIELD("seed", seed)
    NUM_FIELD("number of sources", nsources)
#undef NUM_FIELD
    for (uint32_t i = 0; i < p->nsources; i++)
        if (q->sources[i] != p->sources[i]) {
            snprintf(a, sizeof a, "%u", q->sources[i]);
            snprintf(b, sizeof b, "%u", p->sources[i]);
            return mismatch(err, "source", a, b);
        }
    return 0;
}

/* The packets each node holds, and the deliveries made: an open-addressing set of
 * (node, src, dst, seq, frag) with the slot from which the node holds the packet. */
typedef struct {
    uint64_t k1, k2; /* node << 32 | src; dst << 32 | seq */
    uint64_t from;   /* the first slot the node holds the packet in */
    uint16_t frag;
    uint8_t used;
} held_t;

typedef struct {
    held_t *tab;
    size_t cap; /* power of two */
} held_set_t;

static size_t held_find(const held_set_t *h, uint64_t k1, uint64_t k2, uint16_t frag)
{
    size_t i =
        (size_t) sn_mix64(k1 * 0x9e3779b97f4a7c15ULL ^ k2 ^ ((uint64_t) frag << 48)) & (h->cap - 1);
    while (h->tab[i].used && (h->tab[i].k1 != k1 || h->tab[i].k2 != k2 || h->tab[i].frag != frag))
        i = (i + 1) & (h->cap - 1);
    return i;
}

static uint64_t key2(const sn_packet_t *k)
{
    return ((uint64_t) k->dst << 32) | k->seq;
}

/* 1 when some node expects packet k in this collective: a node originates only those (a bcast's
 * non-root node holds no packet of its own to send). For a broadcast packet every processor but
 * its source expects it when any does. */
static int of_collective(const sn_topo_t *t, const sn_params_t *p, const sn_packet_t *k)
{
    if (k->dst != SN_NODE_ALL)
        return sn_coll_source_index(t, p, k->dst, k->src, k->dst) >= 0;
    if (t->nproc < 2)
        return 0;
    uint32_t v = sn_topo_proc(t, 0) == k->src ? sn_topo_proc(t, 1) : sn_topo_proc(t, 0);
    return sn_coll_source_index(t, p, v, k->src, SN_NODE_ALL) >= 0;
}

/* A link as the file numbers it: the two node ids (0-based, as in "node" and "to"), not the
 * topology's labels, so that every number of a message is the file's. */
static const char *rule_text(const sn_topo_t *t, uint32_t u, uint32_t v, char *buf, size_t cap)
{
    (void) t;
    snprintf(buf, cap, "%u-%u", u, v);
    return buf;
}

/* A packet's dst as the file writes it: a node id, or "all". */
typedef struct {
    char s[16];
} dst_text_t;

static dst_text_t dst_text(uint32_t dst)
{
    dst_text_t d;
    if (dst == SN_NODE_ALL)
        snprintf(d.s, sizeof d.s, "\"all\"");
    else
        snprintf(d.s, sizeof d.s, "%u", dst);
    return d;
}

/* The refusal of a schedule that makes `delivered` of the `expected` deliveries, naming the first
 * node short of its own, from the packets `h` records as received. */
static int short_of_deliveries(const sn_topo_t *t, const sn_params_t *p, const held_set_t *h,
                               uint64_t delivered, uint64_t expected, sn_err_t *err)
{
    uint64_t *got_at = sn_xcalloc(t->n, sizeof *got_at);
    for (size_t i = 0; i < h->cap; i++) {
        uint32_t u = (uint32_t) (h->tab[i].k1 >> 32);
        if (h->tab[i].used && sn_coll_source_index(t, p, u, (uint32_t) h->tab[i].k1,
                                                   (uint32_t) (h->tab[i].k2 >> 32)) >= 0)
            got_at[u]++;
    }
    uint32_t short_node = 0;
    uint64_t got = 0, want = 0;
    for (uint32_t u = 0; u < t->n; u++) {
        sn_expect_t x = sn_coll_expect(t, p, u);
        if (got_at[u] < (uint64_t) x.nsrc * x.per_src) {
            short_node = u;
            got = got_at[u];
            want = (uint64_t) x.nsrc * x.per_src;
            break;
        }
    }
    free(got_at);
    return sn_err_set(err, SN_EVERIFY,
                      "the schedule makes %llu of the %llu expected deliveries; node %u receives "
                      "%llu of its %llu packets (every expected delivery must happen)",
                      (unsigned long long) delivered, (unsigned long long) expected, short_node,
                      (unsigned long long) got, (unsigned long long) want);
}

int sn_sched_file_check(const sn_sched_file_t *f, const sn_topo_t *t, const sn_params_t *p,
                        sn_err_t *err)
{
    int rc = check_instance(f, t, p, err);
    if (rc < 0)
        return rc;
    const sn_sched_t *s = &f->sched;
    int combining = sn_coll_is_combining(p->coll);
    char lk[160];
    /* the per-slot tables: sends per node and per port (single-port, multiport), receptions per
     * node (rx one), edges used per direction (half duplex); reset after each slot */
    uint32_t *sent = sn_xcalloc(t->n, sizeof *sent);
    uint32_t *recv = sn_xcalloc(t->n, sizeof *recv);
    uint64_t *edge_dir = sn_xcalloc(t->nedges ? t->nedges : 1, sizeof *edge_dir);
    held_set_t h = {NULL, 64};
    while (h.cap < 2 * (s->n + t->nproc) + 64)
        h.cap *= 2;
    h.tab = sn_xcalloc(h.cap, sizeof *h.tab);
    uint64_t delivered = 0;
    size_t slot_first = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const sn_sched_ev_t *e = &s->ev[i];
        const sn_packet_t *k = &e->pkt;
        if (i > 0 && e->slot != s->ev[i - 1].slot) {
            for (size_t j = slot_first; j < i; j++) { /* reset the slot's tables */
                const sn_sched_ev_t *o = &s->ev[j];
                const sn_port_t *op = sn_topo_port(t, o->node, o->port);
                sent[o->node] = 0;
                recv[op->peer] = 0;
                edge_dir[op->edge] = 0;
            }
            slot_first = i;
        }
        unsigned long long sl = (unsigned long long) e->slot;
        if (e->slot > s->steps) {
            rc = sn_err_set(err, SN_EALGO, "slot %llu: a transmission after the file's %llu steps",
                            sl, (unsigned long long) s->steps);
            break;
        }
        if (e->node >= t->n || e->port >= sn_topo_degree(t, e->node)) {
            rc = sn_err_set(err, SN_EALGO, "slot %llu: node %u port %u: no such %s on %s", sl,
                            e->node, e->port, e->node >= t->n ? "node" : "port", t->spec);
            break;
        }
        const sn_port_t *pp = sn_topo_port(t, e->node, e->port);
        rule_text(t, e->node, pp->peer, lk, sizeof lk);
        if (k->pad_ != pp->peer) {
            rc = sn_err_set(err, SN_EALGO,
                            "slot %llu: node %u port %u leads to node %u, not to %u (the "
                            "transmission's \"to\")",
                            sl, e->node, e->port, pp->peer, k->pad_);
            break;
        }
        if (i > 0 && e->slot == s->ev[i - 1].slot && e->node == s->ev[i - 1].node &&
            e->port == s->ev[i - 1].port) {
            rc = sn_err_set(err, SN_EPORT,
                            "slot %llu: node %u sends two packets on link %s; one packet per "
                            "link per slot",
                            sl, e->node, lk);
            break;
        }
        if (p->pm.ports == SN_PORTS_SINGLE && sent[e->node]++ > 0) {
            rc = sn_err_set(err, SN_EPORT,
                            "slot %llu: node %u sends a second packet (on link %s); the "
                            "single-port model allows one send per slot",
                            sl, e->node, lk);
            break;
        }
        if (p->pm.ports == SN_PORTS_SINGLE && p->pm.rx == SN_RX_ONE && recv[pp->peer]++ > 0) {
            rc = sn_err_set(err, SN_EPORT,
                            "slot %llu: node %u receives a second packet (on link %s); "
                            "single-port with one reception per slot (rx one) allows one",
                            sl, pp->peer, lk);
            break;
        }
        if (p->pm.duplex == SN_DUPLEX_HALF) {
            uint64_t dir = (uint64_t) e->node + 1;
            if (edge_dir[pp->edge] != 0 && edge_dir[pp->edge] != dir) {
                rc = sn_err_set(err, SN_EPORT,
                                "slot %llu: link %s carries packets both ways; half duplex "
                                "allows one direction per slot",
                                sl, lk);
                break;
            }
            edge_dir[pp->edge] = dir;
        }
        if (k->kind == SN_PKT_CONTROL || combining)
            continue; /* control packets carry no data: nothing to hold, nothing delivered;
                       * combinations are checked below */
        if (k->src >= t->n || !sn_topo_is_proc(t, k->src) || k->seq >= p->msgs ||
            k->frag >= p->frags || (k->dst != SN_NODE_ALL && k->dst >= t->n) ||
            !of_collective(t, p, k)) {
            rc = sn_err_set(err, SN_EALGO,
                            "slot %llu: node %u sends on link %s packet (src %u, dst %s, seq %u, "
                            "frag %u), which is no packet of this %s",
                            sl, e->node, lk, k->src, dst_text(k->dst).s, k->seq, k->frag,
                            sn_coll_name(p->coll));
            break;
        }
        uint64_t k2 = key2(k);
        if (k->src != e->node) {
            size_t at = held_find(&h, ((uint64_t) e->node << 32) | k->src, k2, k->frag);
            if (!h.tab[at].used || h.tab[at].from > e->slot) {
                rc = sn_err_set(err, SN_EALGO,
                                "slot %llu: node %u sends on link %s packet (src %u, dst %s, seq "
                                "%u, frag %u), which it does not hold; a node sends only packets "
                                "it originates or received in an earlier slot",
                                sl, e->node, lk, k->src, dst_text(k->dst).s, k->seq, k->frag);
                break;
            }
        }
        size_t at = held_find(&h, ((uint64_t) pp->peer << 32) | k->src, k2, k->frag);
        if (!h.tab[at].used) {
            h.tab[at] = (held_t){((uint64_t) pp->peer << 32) | k->src, k2, e->slot + 1, k->frag, 1};
            if (sn_coll_source_index(t, p, pp->peer, k->src, k->dst) >= 0)
                delivered++;
        }
    }
    uint64_t expected = sn_coll_expected_total(t, p);
    if (rc == 0 && combining)
        rc = sn__compose_build(t, p, s, &f->ops, NULL, err);
    else if (rc == 0 && delivered != expected)
        rc = short_of_deliveries(t, p, &h, delivered, expected, err);
    free(sent);
    free(recv);
    free(edge_dir);
    free(h.tab);
    return rc;
}
