/* mna-reverse: reduce_scatter (multinode accumulation) as the time reversal of the best
 * multinode broadcast (core/algo).
 *
 * Every processor's combination is the dual of its broadcast (Bertsekas and Tsitsiklis, Parallel
 * and Distributed Computation, section 1.3: multinode accumulation is the dual of multinode
 * broadcast): reversing in time an allgather of T slots in which every node receives each packet
 * once gives a reduce_scatter of T slots, the packet of source s becoming the combination for
 * destination s, each transmission carrying the contributions of the subtree below it
 * (engine/reverse.h). This takes the multinode broadcast `auto` picks for the run (the model
 * records it), so the allgathers that meet their bounds with M packets (the reception bound
 * ceil(M (N - 1) / deg) multiport, M (N - 1) single-port) give reduce_scatters that meet the
 * same counts. predicted = the reversed schedule's slots. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

static int mna_reverse_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in,
                              size_t *n, sn_err_t *err)
{
    /* every destination's packets reach it through trees whose subtrees count each of the
     * other processors once at least: refused before the model records the allgather */
    uint64_t M = (uint64_t) p->msgs * p->frags, P = 0;
    for (uint32_t u = 0; u < t->n; u++)
        P += (uint64_t) sn_topo_is_proc(t, u);
    if (P * M * (P - 1) > SN_REVERSE_MAX_OPERANDS)
        return sn_err_set(err, SN_ERANGE,
                          "mna-reverse would list at least %llu operands, more than the %u this "
                          "implementation keeps",
                          (unsigned long long) (P * M * (P - 1)), SN_REVERSE_MAX_OPERANDS);
    in[0].topo = t;
    sn_params_default(&in[0].params, SN_COLL_MNB);
    in[0].params.pm = p->pm;
    in[0].params.msgs = p->msgs;
    in[0].params.frags = p->frags;
    in[0].params.size = p->size;
    in[0].params.seed = p->seed;
    in[0].algo = NULL;
    in[0].what = "multinode broadcast";
    *n = 1;
    return 0;
}

static int to_source(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    (void) ctx;
    *out = (sn_packet_t){.src = SN_SRC_COMBINED,
                         .dst = in->src,
                         .seq = in->seq,
                         .frag = in->frag,
                         .kind = SN_PKT_DATA};
    return 0;
}

static int mna_reverse_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                            void **plan, sn_err_t *err)
{
    (void) n;
    return sn__reverse_plan(t, p, in[0].sched, to_source, NULL, plan, err);
}

const sn_algo_t sn__algo_mna_reverse = {
    .name = "mna-reverse",
    .coll = SN_COLL_MNA,
    .pm_mask = SN_REVERSE_PM,
    .topos = "any",
    .summary = "reduce_scatter as the time reversal of the best allgather, combining on the way",
    .source = "Bertsekas and Tsitsiklis, section 1.3 (multinode accumulation is the dual of "
              "multinode broadcast)",
    .predicts = "the reversed allgather's slots",
    .plan_inputs = mna_reverse_inputs,
    .plan_from = mna_reverse_from,
    SN__SCHEDULE_REPLAY_FIELDS,
    .parallel = 1,
};
