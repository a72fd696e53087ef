/* The combining collectives synth proves through their duals (core/synth, docs/synth.md,
 * "Combining collectives"): reduce (sna) is the time reversal of the broadcast from its root and
 * reduce_scatter (mna) of the multinode broadcast (allgather), in both directions, so the optimum
 * of one is the optimum of the other under a port model that limits sending and receiving alike.
 * The reversal itself is the algorithms' (core/algo/engine/reverse.h). */
#include <string.h>

#include "core/algo/engine/reverse.h"
#include "core/synth/synth.h"

int sn_synth_dual_params(const sn_topo_t *t, const sn_params_t *p, sn_params_t *dual, sn_err_t *err)
{
    sn_coll_t to;
    if (p->coll == SN_COLL_SNA)
        to = SN_COLL_BCAST;
    else if (p->coll == SN_COLL_MNA)
        to = SN_COLL_MNB;
    else
        return sn_err_inval(err, "synth proves %s directly, not through a dual",
                            sn_coll_name(p->coll));
    if (p->pm.ports == SN_PORTS_SINGLE && p->pm.rx == SN_RX_ANY)
        return sn_err_inval(err,
                            SN_REF_RX " any: synth proves %s as the time reversal of %s, which "
                                      "needs a port model that limits receptions as it limits "
                                      "sends (multiport, or single-port with " SN_REF_RX
                                      " one); single-port with any receptions a slot is not "
                                      "symmetric",
                            sn_coll_name(p->coll), sn_coll_name(to));
    /* mna: every destination's combination lists each other processor once at least, per piece
     * (the reversal's operands, counted before anything is solved) */
    uint64_t P = 0, M = (uint64_t) p->msgs * p->frags;
    for (uint32_t u = 0; u < t->n; u++)
        P += (uint64_t) sn_topo_is_proc(t, u);
    if (p->coll == SN_COLL_MNA && P * M * (P - 1) > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "the reversed mna schedule would list at least %llu operands, more than "
                          "the %u this implementation keeps",
                          (unsigned long long) (P * M * (P - 1)), SN_REVERSE_MAX_OPERANDS);
    sn_params_default(dual, to);
    dual->pm = p->pm;
    dual->root = p->root;
    dual->msgs = p->msgs;
    dual->frags = p->frags;
    dual->size = p->size;
    dual->seed = p->seed;
    return 0;
}

/* sna: the broadcast's packet becomes the combination for the root; mna: the packet of source v
 * the combination for v. */
static int to_combined(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    const sn_params_t *p = ctx;
    *out = (sn_packet_t){.src = SN_SRC_COMBINED,
                         .dst = p->coll == SN_COLL_SNA ? p->root : in->src,
                         .seq = in->seq,
                         .frag = in->frag,
                         .kind = SN_PKT_DATA};
    return 0;
}

int sn_synth_reverse(const sn_topo_t *t, const sn_params_t *p, const sn_sched_t *dual,
                     sn_sched_t *out, sn_sched_ops_t *ops, sn_err_t *err)
{
    memset(out, 0, sizeof *out);
    memset(ops, 0, sizeof *ops);
    if (p->coll != SN_COLL_SNA && p->coll != SN_COLL_MNA)
        return sn_err_inval(err, "synth reverses schedules into sna or mna, not %s",
                            sn_coll_name(p->coll));
    sn__combo_t c = {0};
    uint64_t end;
    int rc = sn__reverse_append(t, dual, to_combined, (void *) p, 0, &c, &end, err);
    if (rc < 0) {
        sn__combo_free(&c);
        return rc;
    }
    sn__combo_finish(&c, out, ops);
    return 0;
}
