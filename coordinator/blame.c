/* Blame (coordinator): the root cause among the failure reports of a run's grace window. Pure
 * and deterministic: the same reports give the same verdict. See blame.h for the rules. */
#include <stdio.h>
#include <string.h>

#include "coordinator/blame.h"

/* Does report `rp` point at node x (as the peer it blames or among the silent neighbours)? */
static int names(const sn_coord_report_t *rp, int x)
{
    if (rp->peer == x)
        return 1;
    for (size_t i = 0; i < rp->nmissing; i++)
        if ((int) rp->missing[i] == x)
            return 1;
    return 0;
}

/* A report that accuses a silent, slow or disconnected neighbour. */
static int accuses(const sn_coord_report_t *rp)
{
    return rp->kind == STEPNET__ABORT_KIND__ABORT_DEADLINE ||
           rp->kind == STEPNET__ABORT_KIND__ABORT_LINK ||
           rp->kind == STEPNET__ABORT_KIND__ABORT_SLOW;
}

/* A report that accuses the sender of a bad frame. */
static int bad_frame(const sn_coord_report_t *rp)
{
    return rp->kind == STEPNET__ABORT_KIND__ABORT_PROTO ||
           rp->kind == STEPNET__ABORT_KIND__ABORT_CORRUPT;
}

/* Did node x send a report of its own (not the coordinator's finding about it)? */
static int reported(const sn_coord_report_t *rp, size_t n, int x)
{
    for (size_t i = 0; i < n; i++)
        if (rp[i].node == x && rp[i].kind != SN_COORD_KIND_DEATH && rp[i].kind != SN_COORD_KIND_RUN)
            return 1;
    return 0;
}

/* A death that follows the node's own report: it left because of what it reported (its slot
 * deadline, a lost link), after waiting for the coordinator's answer. A consequence, never a
 * cause. */
static int consequence(const sn_coord_report_t *rp, size_t n, const sn_coord_report_t *d)
{
    return d->kind == SN_COORD_KIND_DEATH && reported(rp, n, d->node);
}

static int live_of(const sn_coord_evidence_t *ev, uint32_t nnodes, int x)
{
    return ev && x >= 0 && (uint32_t) x < nnodes ? ev[x].live : SN_COORD_LIVE_UNKNOWN;
}

/* The evidence shows x alive but not answering, or not reachable at all. */
static int gone(const sn_coord_evidence_t *ev, uint32_t nnodes, int x)
{
    int live = live_of(ev, nnodes, x);
    return live == SN_COORD_LIVE_STOPPED || live == SN_COORD_LIVE_UNREACHABLE;
}

/* The node that the accusing reports name most, among those that `eligible` admits; ties go to
 * the lower id. SN_COORD_NODE_NONE when no report names an eligible node. */
static int most_accused(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                        const sn_coord_evidence_t *ev,
                        int (*eligible)(const sn_coord_report_t *, size_t, uint32_t,
                                        const sn_coord_evidence_t *, int))
{
    int best = SN_COORD_NODE_NONE;
    uint32_t best_votes = 0;
    for (uint32_t x = 0; x < nnodes; x++) {
        uint32_t votes = 0;
        for (size_t i = 0; i < n; i++)
            votes += accuses(&rp[i]) && names(&rp[i], (int) x);
        if (votes > best_votes && eligible(rp, n, nnodes, ev, (int) x))
            best = (int) x, best_votes = votes;
    }
    return best;
}

/* Eligible for rule 5: no report of its own, and stopped or unreachable by the evidence. */
static int silent_and_gone(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                           const sn_coord_evidence_t *ev, int x)
{
    return !reported(rp, n, x) && gone(ev, nnodes, x);
}

/* Eligible for rule 9, first pass: no report of its own and no answer to the probe. */
static int silent(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                  const sn_coord_evidence_t *ev, int x)
{
    return !reported(rp, n, x) && live_of(ev, nnodes, x) != SN_COORD_LIVE_ANSWERED;
}

/* Eligible for rule 9, second pass: any accused node. */
static int anyone(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                  const sn_coord_evidence_t *ev, int x)
{
    (void) rp, (void) n, (void) nnodes, (void) ev, (void) x;
    return 1;
}

/* Two reports whose nodes accuse each other: the link between them (x < y), or 0. */
static int mutual(const sn_coord_report_t *rp, size_t n, const sn_coord_report_t **a,
                  const sn_coord_report_t **b)
{
    for (size_t i = 0; i < n; i++) {
        if (!accuses(&rp[i]) || rp[i].node < 0)
            continue;
        for (size_t j = 0; j < n; j++) {
            if (j == i || !accuses(&rp[j]) || rp[j].node < 0 || rp[j].node == rp[i].node)
                continue;
            if (names(&rp[i], rp[j].node) && names(&rp[j], rp[i].node)) {
                int ilow = rp[i].node < rp[j].node;
                *a = ilow ? &rp[i] : &rp[j];
                *b = ilow ? &rp[j] : &rp[i];
                return 1;
            }
        }
    }
    return 0;
}

/* An accusation whose accused node sent no report but is alive: the accusing report (*by) and the
 * accused node (*x), or 0. Only when every accused node that sent no report is alive: a dead or
 * stopped node among them explains the silence better than a link. */
static int alive_accused(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                         const sn_coord_evidence_t *ev, const sn_coord_report_t **by, int *x)
{
    if (ev == NULL)
        return 0;
    *by = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!accuses(&rp[i]) || rp[i].node < 0)
            continue;
        for (size_t k = 0; k <= rp[i].nmissing; k++) {
            int z = k < rp[i].nmissing ? (int) rp[i].missing[k] : rp[i].peer;
            if (z < 0 || (uint32_t) z >= nnodes || reported(rp, n, z))
                continue;
            if (ev[z].live != SN_COORD_LIVE_ANSWERED)
                return 0;
            if (*by == NULL)
                *by = &rp[i], *x = z;
        }
    }
    return *by != NULL;
}

int sn__coord_silent_verdict(const sn_coord_report_t *rp, size_t n, int stalled,
                             sn_coord_verdict_t *out)
{
    const sn_coord_report_t *cause = NULL;
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == STEPNET__ABORT_KIND__ABORT_COORDINATOR)
            cause = &rp[i];
    if (!cause)
        return 0;
    /* ... unless the coordinator ran and another node reported a failure of its own: then the
     * coordinator was waiting out its blame window (probe sent, no heartbeat to nodes that
     * abort), and a node that gave up on it meanwhile left because of that failure */
    for (size_t i = 0; i < n && !stalled; i++)
        if (rp[i].kind != STEPNET__ABORT_KIND__ABORT_COORDINATOR &&
            rp[i].kind != SN_COORD_KIND_DEATH && rp[i].node != SN_COORD_NODE_NONE)
            return 0;
    memset(out, 0, sizeof *out);
    out->culprit = out->link_a = out->link_b = SN_COORD_NODE_NONE;
    snprintf(out->error, sizeof out->error, "the coordinator was silent: %s", cause->text);
    return 1;
}

/* The verdict of an interrupt: the coordinator's own (kind SN_COORD_KIND_INTERRUPT) or a node's. */
static int interrupt_verdict(const sn_coord_report_t *rp, size_t n, sn_coord_verdict_t *out)
{
    const sn_coord_report_t *cause = NULL;
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == SN_COORD_KIND_INTERRUPT)
            cause = &rp[i];
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == STEPNET__ABORT_KIND__ABORT_INTERRUPT)
            cause = &rp[i];
    if (!cause) /* nodes that left because the coordinator itself was silent */
        return sn__coord_silent_verdict(rp, n, 0, out);
    out->interrupted = 1;
    snprintf(out->error, sizeof out->error, "%s", cause->text);
    return 1;
}

/* The verdict of a link between live nodes a < b: `ra` and `rb` are their reports (NULL for an
 * end that sent none: it answered the liveness probe), at least one of them given. */
static void link_verdict(int a, int b, const sn_coord_report_t *ra, const sn_coord_report_t *rb,
                         sn_coord_verdict_t *out)
{
    uint64_t slot = ra ? ra->slot : 0, sb = rb ? rb->slot : 0;
    if (slot == 0 || (sb && sb < slot))
        slot = sb;
    out->link_a = a;
    out->link_b = b;
    out->slot = slot;
    char edge[32] = "";
    const sn_coord_report_t *e = ra && ra->edge_known ? ra : rb && rb->edge_known ? rb : NULL;
    if (e && (e->peer == a || e->peer == b))
        snprintf(edge, sizeof edge, " (edge %u)", e->edge);
    char at[40] = "";
    if (slot)
        snprintf(at, sizeof at, " at slot %llu", (unsigned long long) slot);
    char quiet[2][SN_COORD_BLAME_TEXT];
    snprintf(quiet[0], sizeof quiet[0],
             "node %d: no report; it answers the coordinator (its frames were sent)", a);
    snprintf(quiet[1], sizeof quiet[1],
             "node %d: no report; it answers the coordinator (its frames were sent)", b);
    /* each end's own words, cut so that both fit in the verdict */
    snprintf(out->error, sizeof out->error,
             "link %d-%d%s went silent%s; both ends alive [%.360s] [%.360s]", a, b, edge, at,
             ra ? ra->text : quiet[0], rb ? rb->text : quiet[1]);
}

int sn__coord_heartbeat_withheld(int in_run, int complete, int result, uint32_t ncomplete,
                                 uint32_t nresult, uint32_t n)
{
    return in_run && !complete && !result && ncomplete < n && nresult == 0;
}

sn_coord_live_t sn__coord_liveness(int answered, const sn_coord_tcp_t *tcp, uint64_t probe_age_ms)
{
    if (answered)
        return SN_COORD_LIVE_ANSWERED;
    if (tcp == NULL)
        return SN_COORD_LIVE_UNKNOWN;
    if (tcp->unacked == 0)
        return SN_COORD_LIVE_STOPPED;
    if (tcp->retransmits > 0 || tcp->backoff > 0)
        return SN_COORD_LIVE_UNREACHABLE;
    if (tcp->last_ack_ms < probe_age_ms)
        return SN_COORD_LIVE_STOPPED;
    return SN_COORD_LIVE_UNKNOWN;
}

/* The slot of the failure: `slot` (the cause's, 0: unknown) or the earliest slot of a report
 * that names the culprit; and *witness, the report naming the culprit with the earliest slot
 * (other than `cause`; NULL when none). */
static uint64_t culprit_slot(const sn_coord_report_t *rp, size_t n, int culprit,
                             const sn_coord_report_t *cause, uint64_t slot,
                             const sn_coord_report_t **witness)
{
    *witness = NULL;
    for (size_t i = 0; i < n; i++) {
        if (&rp[i] == cause || culprit < 0 || !names(&rp[i], culprit))
            continue;
        if (!*witness || (rp[i].slot && rp[i].slot < (*witness)->slot))
            *witness = &rp[i];
        if (slot == 0 || (rp[i].slot && rp[i].slot < slot))
            slot = rp[i].slot;
    }
    return slot;
}

/* The verdict of a node that the evidence shows stopped or unreachable (rules 2 and 5): `cause`
 * is the report that names it first (an accusation, or the coordinator's heartbeat finding). */
static void gone_verdict(int x, const sn_coord_evidence_t *e, const sn_coord_report_t *rp, size_t n,
                         const sn_coord_report_t *cause, sn_coord_verdict_t *out)
{
    const sn_coord_report_t *witness;
    uint64_t slot = culprit_slot(rp, n, x, cause, cause->slot, &witness);
    out->culprit = x;
    out->slot = slot;
    char who[48];
    if (e->pid)
        snprintf(who, sizeof who, "node %d (pid %u)", x, e->pid);
    else
        snprintf(who, sizeof who, "node %d", x);
    char at[40] = "";
    if (slot)
        snprintf(at, sizeof at, " at slot %llu", (unsigned long long) slot);
    char *t = out->error;
    size_t cap = sizeof out->error, len;
    if (e->live == SN_COORD_LIVE_STOPPED)
        len = (size_t) snprintf(t, cap,
                                "%s is stopped%s: its host acknowledges the coordinator's "
                                "heartbeats, but the node has not answered the one sent %llu ms "
                                "ago (the process is suspended, e.g. by SIGSTOP, or its event "
                                "loop is stuck)",
                                who, at, (unsigned long long) e->waited_ms);
    else
        len = (size_t) snprintf(t, cap,
                                "%s is unreachable%s: the coordinator's heartbeats to it are not "
                                "acknowledged (%u unacknowledged segment%s, the oldest sent %u "
                                "more times; no answer %llu ms after the last probe): its host or "
                                "its network is gone",
                                who, at, e->unacked, e->unacked == 1 ? "" : "s", e->retransmits,
                                (unsigned long long) e->waited_ms);
    if (len < cap)
        len += (size_t) snprintf(t + len, cap - len, " [%s]", cause->text);
    if (witness && witness != cause && len < cap)
        snprintf(t + len, cap - len, " [%s]", witness->text);
}

/* The verdict of a slow link (rule 6): the two ends of `s` (reporter and peer), its slot, and the
 * reporter's words, which say how slowly the frame moves. */
static void slow_verdict(const sn_coord_report_t *s, sn_coord_verdict_t *out)
{
    int a = s->node < s->peer ? s->node : s->peer, b = s->node < s->peer ? s->peer : s->node;
    out->link_a = a;
    out->link_b = b;
    out->slot = s->slot;
    char edge[32] = "", at[40] = "";
    if (s->edge_known)
        snprintf(edge, sizeof edge, " (edge %u)", s->edge);
    if (s->slot)
        snprintf(at, sizeof at, " at slot %llu", (unsigned long long) s->slot);
    snprintf(out->error, sizeof out->error, "link %d-%d%s is too slow%s: %s", a, b, edge, at,
             s->text);
}

void sn__coord_blame(const sn_coord_report_t *rp, size_t n, uint32_t nnodes,
                     const sn_coord_evidence_t *ev, sn_coord_verdict_t *out)
{
    memset(out, 0, sizeof *out);
    out->culprit = SN_COORD_NODE_NONE;
    out->link_a = out->link_b = SN_COORD_NODE_NONE;
    if (n == 0)
        return;
    if (interrupt_verdict(rp, n, out))
        return;
    const sn_coord_report_t *cause = NULL;
    int culprit = SN_COORD_NODE_NONE;
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == SN_COORD_KIND_DEATH && !consequence(rp, n, &rp[i]))
            cause = &rp[i], culprit = rp[i].node;
    if (cause && gone(ev, nnodes, culprit)) { /* the heartbeat's finding, with the evidence */
        gone_verdict(culprit, &ev[culprit], rp, n, cause, out);
        return;
    }
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == STEPNET__ABORT_KIND__ABORT_SELF)
            cause = &rp[i], culprit = rp[i].node;
    for (size_t i = 0; i < n && !cause; i++)
        if (bad_frame(&rp[i]) && rp[i].peer >= 0)
            cause = &rp[i], culprit = rp[i].peer;
    int x;
    if (!cause && (x = most_accused(rp, n, nnodes, ev, silent_and_gone)) >= 0) {
        for (size_t i = 0; i < n && !cause; i++)
            if (accuses(&rp[i]) && names(&rp[i], x))
                cause = &rp[i];
        gone_verdict(x, &ev[x], rp, n, cause, out);
        return;
    }
    for (size_t i = 0; i < n && !cause; i++) {
        if (rp[i].kind == STEPNET__ABORT_KIND__ABORT_SLOW && rp[i].node >= 0 && rp[i].peer >= 0) {
            slow_verdict(&rp[i], out);
            return;
        }
    }
    const sn_coord_report_t *la, *lb;
    if (!cause && mutual(rp, n, &la, &lb)) {
        link_verdict(la->node, lb->node, la, lb, out);
        return;
    }
    const sn_coord_report_t *by;
    int quiet;
    if (!cause && alive_accused(rp, n, nnodes, ev, &by, &quiet)) {
        if (by->node < quiet)
            link_verdict(by->node, quiet, by, NULL, out);
        else
            link_verdict(quiet, by->node, NULL, by, out);
        return;
    }
    if (!cause) {
        int best = most_accused(rp, n, nnodes, ev, silent);
        if (best < 0)
            best = most_accused(rp, n, nnodes, ev, anyone);
        if (best >= 0) {
            culprit = best;
            for (size_t i = 0; i < n && !cause; i++)
                if (accuses(&rp[i]) && names(&rp[i], best))
                    cause = &rp[i];
        }
    }
    for (size_t i = 0; i < n && !cause; i++)
        if (!consequence(rp, n, &rp[i]))
            cause = &rp[i], culprit = rp[i].node;
    if (!cause)
        cause = &rp[0], culprit = rp[0].node;
    const sn_coord_report_t *witness;
    uint64_t slot = culprit_slot(rp, n, culprit, cause, cause->slot, &witness);
    out->culprit = culprit;
    out->slot = slot;
    char *e = out->error;
    size_t cap = sizeof out->error, len = 0;
    if (culprit >= 0 && cause->kind != STEPNET__ABORT_KIND__ABORT_SELF &&
        cause->kind != SN_COORD_KIND_DEATH)
        len = (size_t) snprintf(e, cap, "node %d failed%s: ", culprit,
                                bad_frame(cause) ? " (it sent a bad frame)"
                                : cause->kind == STEPNET__ABORT_KIND__ABORT_DEADLINE
                                    ? " (it stopped sending frames)"
                                    : "");
    len += (size_t) snprintf(e + len, cap - len, "%s", cause->text);
    if (slot && !strstr(e, "slot") && len < cap)
        len += (size_t) snprintf(e + len, cap - len, " at slot %llu", (unsigned long long) slot);
    if (witness && len < cap)
        snprintf(e + len, cap - len, " [%s]", witness->text);
}
