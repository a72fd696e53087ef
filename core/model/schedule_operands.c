/* The operands of a recorded combining schedule (stepnet/schedule_file.h): which processors'
 * contributions each transmitted combination holds.
 *
 * A combined packet carries only a value, and no value says which contributions went into it.
 * So the algorithm is run again under provenance tracing (sn_params_t.provenance): the
 * contribution of node id first + b is the bit b of a 64-bit word (0 for the nodes outside the
 * window [first, first + 64)) and the operator is or, so each transmitted value is the set of
 * the window's contributors it holds. One run per window covers every node. Every algorithm of
 * stepnet sends what it sends whatever the values are (the trace hash does not see them), and
 * this is checked: a traced run must make exactly the transmissions of the recorded one. Under
 * or, a contribution that reaches a packet twice shows once: with sum or xor such a schedule
 * would not have verified in the first place. */
#include <stdlib.h>
#include <string.h>

#include "stepnet/model.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

void sn_sched_ops_free(sn_sched_ops_t *ops)
{
    free(ops->id);
    free(ops->first);
    ops->id = NULL;
    ops->first = NULL;
}

/* 1 when a and b are the same transmission (the values aside). */
static int same_send(const sn_sched_ev_t *a, const sn_sched_ev_t *b)
{
    return a->slot == b->slot && a->node == b->node && a->port == b->port &&
           a->pkt.src == b->pkt.src && a->pkt.dst == b->pkt.dst && a->pkt.seq == b->pkt.seq &&
           a->pkt.frag == b->pkt.frag && a->pkt.kind == b->pkt.kind;
}

int sn_sched_record_operands(const sn_topo_t *t, const sn_params_t *p, const char *algo,
                             const sn_sched_t *s, sn_sched_ops_t *ops, sn_err_t *err)
{
    ops->id = NULL;
    ops->first = NULL;
    uint32_t windows = (t->n + 63) / 64;
    if ((uint64_t) s->n * windows > SN_SCHED_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "tracing the operands of %zu transmissions on %u nodes takes %llu words; "
                          "at most %llu",
                          s->n, t->n, (unsigned long long) s->n * windows,
                          (unsigned long long) SN_SCHED_MAX_OPERANDS);
    uint64_t *bits = sn_xcalloc((s->n ? s->n : 1) * (size_t) windows, sizeof *bits);
    uint64_t total = 0;
    int rc = 0;
    for (uint32_t w = 0; w < windows && rc == 0; w++) {
        sn_params_t q = *p;
        q.op = SN_OP_OR;
        q.provenance = 1 + 64 * w;
        sn_sched_t *r = NULL;
        if ((rc = sn_sched_record(t, &q, algo, &r, err)) < 0)
            break;
        for (size_t i = 0; i < s->n && rc == 0; i++) {
            if (r->n != s->n || !same_send(&r->ev[i], &s->ev[i])) {
                rc = sn_err_set(err, SN_EALGO,
                                "%s sends other packets when the values change (transmission "
                                "%zu of %zu); its operands cannot be traced",
                                algo, i, s->n);
                break;
            }
            if (s->ev[i].pkt.kind == SN_PKT_DATA) {
                bits[i * windows + w] = r->ev[i].pkt.digest;
                total += (uint64_t) __builtin_popcountll(r->ev[i].pkt.digest);
            }
        }
        sn_sched_free(r);
    }
    if (rc == 0 && total > SN_SCHED_MAX_OPERANDS)
        rc = sn_err_set(err, SN_ERANGE,
                        "the schedule's combinations list %llu operands in all; a schedule file "
                        "holds at most %llu",
                        (unsigned long long) total, (unsigned long long) SN_SCHED_MAX_OPERANDS);
    if (rc < 0) {
        free(bits);
        return rc;
    }
    ops->first = sn_xmalloc((s->n + 1) * sizeof *ops->first);
    ops->id = sn_xmalloc((total ? total : 1) * sizeof *ops->id);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        ops->first[i] = k;
        for (uint32_t w = 0; w < windows; w++)
            for (uint64_t b = bits[i * windows + w]; b != 0; b &= b - 1)
                ops->id[k++] = 64 * w + (uint32_t) __builtin_ctzll(b);
    }
    ops->first[s->n] = k;
    free(bits);
    return 0;
}
