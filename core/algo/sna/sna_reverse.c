/* sna-reverse: single-node accumulation as the time reversal of the best broadcast from the same
 * root (core/algo).
 *
 * Accumulation is the dual of broadcast (Dimakopoulos, thesis, section 3.1; Varvarigos,
 * folded-cube paper, section 1): reversing in time a broadcast of T slots in which every node
 * receives each packet once gives an accumulation of T slots, each transmission carrying the
 * combination of the subtree below it (engine/reverse.h). This takes whatever broadcast `auto`
 * picks for the run's topology, port model, msgs and frags (the model records it, as the product
 * algorithms record their factors'), so every gain of the broadcasts with M packets (several
 * arc-disjoint trees at once, timetables) is an accumulation's gain too, and the single-port model
 * with one reception per slot, where sna-tree does not apply, gets an accumulation. predicted =
 * the reversed schedule's slots, at most the broadcast's. */
#include <stdlib.h>

#include "core/algo/algos.h"
#include "core/algo/engine/reverse.h"
#include "core/algo/engine/schedule_replay.h"
#include "stepnet/util.h"

static int sna_reverse_applies(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    if (!sn_topo_is_proc(t, p->root))
        return sn_err_set(err, SN_ENOTSUP, "sna-reverse needs a processor as its root");
    return 0;
}

static int sna_reverse_inputs(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in,
                              size_t *n, sn_err_t *err)
{
    int rc = sna_reverse_applies(t, p, err);
    if (rc < 0)
        return rc;
    in[0].topo = t;
    sn_params_default(&in[0].params, SN_COLL_BCAST);
    in[0].params.pm = p->pm;
    in[0].params.root = p->root;
    in[0].params.msgs = p->msgs;
    in[0].params.frags = p->frags;
    in[0].params.size = p->size;
    in[0].params.seed = p->seed;
    in[0].algo = NULL;
    in[0].what = "broadcast from the root";
    *n = 1;
    return 0;
}

static int to_root(void *ctx, const sn_packet_t *in, sn_packet_t *out)
{
    const sn_params_t *p = ctx;
    *out = (sn_packet_t){.src = SN_SRC_COMBINED,
                         .dst = p->root,
                         .seq = in->seq,
                         .frag = in->frag,
                         .kind = SN_PKT_DATA};
    return 0;
}

static int sna_reverse_from(const sn_topo_t *t, const sn_params_t *p, sn_plan_input_t *in, size_t n,
                            void **plan, sn_err_t *err)
{
    (void) n;
    return sn__reverse_plan(t, p, in[0].sched, to_root, (void *) p, plan, err);
}

const sn_algo_t sn__algo_sna_reverse = {
    .name = "sna-reverse",
    .coll = SN_COLL_SNA,
    .pm_mask = SN_REVERSE_PM,
    .topos = "any",
    .summary = "the time reversal of the best broadcast from the root, combining on the way",
    .source = "Dimakopoulos, thesis, section 3.1 (accumulation is the dual of broadcast)",
    .predicts = "the reversed broadcast's slots",
    .applies = sna_reverse_applies,
    .plan_inputs = sna_reverse_inputs,
    .plan_from = sna_reverse_from,
    SN__SCHEDULE_REPLAY_FIELDS,
    .parallel = 1,
};
