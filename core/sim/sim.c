/* The slot simulator (core/sim): every node's state machine in one process, in lockstep, with the
 * port model enforced on every send and every delivery verified (the slot model of docs/model.md).
 *
 * Event-driven: slot t steps only the nodes that received at the end of slot t-1 or asked to be
 * woken at t; whole idle stretches are skipped. The sends of a slot are appended to a pool, then
 * grouped by receiver with a counting sort, so that each receiver reads its arrivals from one
 * contiguous run (the scattered reads of a linked list dominated large runs); a receiver sorts
 * its few arrivals by port before its step, which is the order stepnet-node presents them in.
 * Multiport, when the mailboxes fit (MAIL_MAX_BYTES), a send is instead written straight into the
 * receiver's mailbox of its arrival port (a directed link carries one packet per slot, so one
 * mailbox per port and slot parity suffices): the receiver reads its ports in order and finds its
 * arrivals already sorted, with no pool, grouping or sort at all. Single-port receivers get one or
 * a few packets, which the pool finds faster than a scan of every port's mailbox.
 *
 * With several threads (sn_sim_opts_t.threads), busy slots are stepped side by side
 * (sim_par.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_internal.h"

/* Two rounds of mixing over the event's words: cheap (it runs for every transmission) and with
 * full avalanche, so that summing events (order-free, as the per-node hashes of stepnet-node must
 * be) still tells traces apart. */
uint64_t sn_trace_event(uint64_t slot, uint32_t link, const sn_packet_t *pkt)
{
    uint64_t a = (slot << 32) ^ link;
    uint64_t b = ((uint64_t) pkt->src << 32) | pkt->dst;
    uint64_t c = ((uint64_t) pkt->seq << 24) ^ ((uint64_t) pkt->frag << 8) ^ pkt->kind;
    return sn_mix64(sn_mix64(a ^ 0x9e3779b97f4a7c15ULL) + b * 0xc2b2ae3d27d4eb4fULL + c);
}

/* ---- wake heap ------------------------------------------------------------------------------ */

void sn__sim_heap_push(sim_t *s, uint64_t slot, uint32_t node)
{
    sn_grow((void **) &s->heap, &s->heap_cap, s->heap_n + 1, sizeof *s->heap);
    size_t i = s->heap_n++;
    while (i > 0) {
        size_t par = (i - 1) / 2;
        if (s->heap[par].slot <= slot)
            break;
        s->heap[i] = s->heap[par];
        i = par;
    }
    s->heap[i] = (wake_t){slot, node};
}

static wake_t heap_pop(sim_t *s)
{
    wake_t top = s->heap[0], last = s->heap[--s->heap_n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && s->heap[c + 1].slot < s->heap[c].slot)
            c++;
        if (s->heap[c].slot >= last.slot)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->heap_n > 0)
        s->heap[i] = last;
    return top;
}

/* ---- sends -------------------------------------------------------------------------------- */

/* Queues the sends of u's step (checked by sn_exec_step) as arrivals of slot + 1. */
static void send_all(sim_t *s, uint32_t u, uint64_t slot, sn_sim_result_t *res,
                     uint64_t *data_sends, uint64_t *ctl_sends, const sn_sim_opts_t *opts)
{
    sn_step_t *io = &s->io;
    for (size_t i = 0; i < io->ntx; i++) {
        uint32_t port = io->tx[i].port, link;
        const sn_port_t *pp = send_port(s, u, port, slot, &link);
        uint32_t v = pp->peer;
        if (s->mail[0]) {
            mail_put(s, pp, slot, &io->tx[i].pkt);
        } else {
            /* queue the arrival */
            if (s->pool_n == s->pool_cap)
                sn_grow((void **) &s->pool, &s->pool_cap, s->pool_n + 1, sizeof *s->pool);
            arrival_t *ar = &s->pool[s->pool_n++];
            ar->msg.pkt = io->tx[i].pkt;
            ar->msg.port = pp->rport;
            ar->node = v;
        }
        if (s->rx_count[(slot + 1) & 1][v]++ == 0)
            activate(s, v, slot + 1);
        res->trace_hash += sn_trace_event(slot, link, &io->tx[i].pkt);
        if (opts && opts->on_send)
            opts->on_send(opts->send_ctx, slot, u, port, &io->tx[i].pkt);
        if (io->tx[i].pkt.kind == SN_PKT_CONTROL)
            (*ctl_sends)++;
        else
            (*data_sends)++;
    }
}

/* Groups the slot's sends by receiver (counting sort; rx_count was kept while sending): each
 * receiver's arrivals become one contiguous run of `sorted`, in sending order. */
static void group_arrivals(sim_t *s, uint64_t next)
{
    int par = (int) (next & 1);
    const uint32_t *cnt = s->rx_count[par];
    uint32_t off = 0;
    for (size_t i = 0; i < s->active_n[par]; i++) {
        uint32_t v = s->active[par][i];
        s->rx_start[v] = off;
        off += cnt[v];
    }
    if (s->sorted_cap < s->pool_n)
        sn_grow((void **) &s->sorted, &s->sorted_cap, s->pool_n, sizeof *s->sorted);
    for (size_t i = 0; i < s->pool_n; i++) {
        uint32_t v = s->pool[i].node;
        s->sorted[s->rx_start[v]++] = s->pool[i];
    }
    for (size_t i = 0; i < s->active_n[par]; i++) { /* rx_start now marks the end of each run */
        uint32_t v = s->active[par][i];
        s->rx_start[v] -= cnt[v];
    }
    s->pool_n = 0;
}

/* Puts a dense active list (more than n/32 nodes) in node-id order, so that the slot walks node
 * states and their per-node blocks (allocated in node order) sequentially: for large runs this
 * locality matters more than anything else. Results do not depend on the order. */
static void order_active(sim_t *s, int par)
{
    size_t k = s->active_n[par];
    uint32_t n = s->t->n;
    if (k < 64 || k < n / 32)
        return;
    uint32_t *a = s->active[par];
    for (size_t i = 0; i < k; i++)
        s->dense[a[i] >> 6] |= 1ull << (a[i] & 63);
    size_t j = 0;
    for (uint32_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = s->dense[w];
        s->dense[w] = 0;
        while (bits) {
            a[j++] = w * 64 + (uint32_t) __builtin_ctzll(bits);
            bits &= bits - 1;
        }
    }
}

/* u's arrivals of this slot into s->rx, sorted by port: an insertion sort of (port, index) keys
 * (few arrivals per node; moving 8-byte keys instead of messages), then one copy each. */
static size_t gather_rx(sim_t *s, uint32_t u, int par)
{
    size_t k = s->rx_count[par][u];
    if (k == 0)
        return 0;
    s->rx_count[par][u] = 0;
    if (k > s->rx_cap) {
        sn_grow((void **) &s->rx, &s->rx_cap, k, sizeof *s->rx);
        s->keys = sn_xrealloc(s->keys, s->rx_cap * sizeof *s->keys);
        if (s->link_slot)
            s->echo = sn_xrealloc(s->echo, s->rx_cap * sizeof *s->echo);
    }
    if (s->mail[0]) { /* the mailboxes of u's ports, in port order; emptied as they are read */
        sn_msg_t *m = &s->mail[par][s->t->port_off[u]];
        size_t got = 0;
        for (uint32_t p = 0; got < k; p++) {
            if (m[p].port == MAIL_EMPTY)
                continue;
            s->rx[got++] = m[p];
            m[p].port = MAIL_EMPTY;
        }
        return k;
    }
    const arrival_t *a = &s->sorted[s->rx_start[u]];
    if (k == 1) {
        s->rx[0] = a[0].msg;
        return 1;
    }
    uint64_t *key = s->keys;
    for (size_t i = 0; i < k; i++) {
        uint64_t x = ((uint64_t) a[i].msg.port << 32) | i;
        size_t j = i;
        while (j > 0 && key[j - 1] > x) {
            key[j] = key[j - 1];
            j--;
        }
        key[j] = x;
    }
    for (size_t i = 0; i < k; i++)
        s->rx[i] = a[(uint32_t) key[i]].msg;
    return k;
}

/* Folds a step's queue report into res: the largest, the lowest node id on ties. */
void sn__sim_note_queue(sn_sim_result_t *res, uint32_t u, uint32_t queue)
{
    if (queue == SN_QUEUE_UNREPORTED)
        return;
    res->max_queue_reported = 1;
    if (queue > res->max_queue ||
        (queue > 0 && queue == res->max_queue && u < res->max_queue_node)) {
        res->max_queue = queue;
        res->max_queue_node = u;
    }
}

/* Steps every node of the slot's active list, one after the other. */
static int step_serial(sim_t *s, uint64_t slot, uint64_t *data_sends, uint64_t *ctl_sends,
                       const sn_sim_opts_t *opts, sn_sim_result_t *res, sn_err_t *err)
{
    const sn_topo_t *t = s->t;
    const sn_params_t *p = s->p;
    const sn_algo_t *a = s->a;
    int par = (int) (slot & 1), rc;
    for (size_t ai = 0; ai < s->active_n[par]; ai++) {
        uint32_t u = s->active[par][ai];
        sn_step_t *io = &s->io;
        io->slot = slot;
        io->nrx = gather_rx(s, u, par);
        io->rx = s->rx;
        if ((++res->node_steps & 0xfffff) == 0 && opts && opts->progress)
            opts->progress(opts->progress_ctx, slot, res->deliveries, res->expected_deliveries);
        if (io->nrx > 0) { /* the arrivals of slot - 1, in port order */
            if (s->link_slot)
                for (size_t i = 0; i < io->nrx; i++)
                    s->echo[i] = s->link_slot[sn_topo_link_id(t, u, s->rx[i].port)] == slot - 1;
            if ((rc = sn_exec_check_arrivals(t, &p->pm, u, slot - 1, s->rx, io->nrx, s->echo,
                                             err)) < 0)
                return rc;
        }
        if ((rc = sn_exec_step(a, s->states + (size_t) u * a->state_size, t, &p->pm, u, io,
                               s->verify, s->mark, err)) < 0)
            return rc;
        res->deliveries += io->ndlv;
        sn__sim_note_queue(res, u, io->queue);
        send_all(s, u, slot, res, data_sends, ctl_sends, opts);
        s->wake[u] = io->wake;
        if (io->wake != SN_WAKE_NEVER) {
            if (io->wake == slot + 1)
                activate(s, u, slot + 1);
            else
                sn__sim_heap_push(s, io->wake, u);
        }
    }
    return 0;
}

/* ---- the run ---------------------------------------------------------------------------- */

static void sim_free(sim_t *s)
{
    sn__sim_workers_stop(s);
    if (s->states && s->a->node_fini)
        for (uint32_t u = 0; u < s->t->n; u++)
            s->a->node_fini(s->states + (size_t) u * s->a->state_size);
    free(s->states);
    free(s->wake);
    free(s->queued);
    free(s->rx_start);
    free(s->rx_count[0]);
    free(s->rx_count[1]);
    sn_verify_free(s->verify);
    free(s->link_slot);
    free(s->pool);
    free(s->sorted);
    free(s->mail[0]);
    free(s->mail[1]);
    free(s->occ[0]);
    free(s->occ[1]);
    free(s->active[0]);
    free(s->active[1]);
    free(s->heap);
    free(s->rx);
    free(s->keys);
    free(s->echo);
    free(s->mark);
    free(s->dense);
    free(s->io.tx);
    free(s->io.dlv);
}

int sn_sim_run(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a, const void *plan,
               const sn_sim_opts_t *opts, sn_sim_result_t *res, sn_err_t *err)
{
    memset(res, 0, sizeof *res);
    sim_t s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.p = p;
    s.a = a;
    uint32_t n = t->n;
    int rc = 0;
    uint64_t max_slots = (opts && opts->max_slots) ? opts->max_slots : UINT64_MAX - 2;

    s.wake = sn_xmalloc((size_t) n * sizeof *s.wake);
    s.queued = sn_xcalloc(n, sizeof *s.queued);
    s.rx_start = sn_xcalloc(n, sizeof *s.rx_start);
    s.rx_count[0] = sn_xcalloc(n, sizeof *s.rx_count[0]);
    s.rx_count[1] = sn_xcalloc(n, sizeof *s.rx_count[1]);
    if (p->pm.duplex == SN_DUPLEX_HALF)
        s.link_slot = sn_xcalloc(2 * (size_t) t->nedges + 1, sizeof *s.link_slot);
    for (uint32_t u = 0; u < n; u++)
        if (sn_topo_degree(t, u) > s.maxdeg)
            s.maxdeg = sn_topo_degree(t, u);
    s.mark = sn_xcalloc(s.maxdeg + 1, 1);
    size_t nports = t->port_off[n];
    uint32_t nthreads = sn_sim_threads_used(t, p, a, opts, NULL);
    if ((p->pm.ports == SN_PORTS_MULTI || nthreads > 1) &&
        (uint64_t) nports * 2 * sizeof(sn_msg_t) <= MAIL_MAX_BYTES) {
        for (int i = 0; i < 2; i++) {
            s.mail[i] = sn_xmalloc((nports ? nports : 1) * sizeof *s.mail[i]);
            for (size_t j = 0; j < nports; j++)
                s.mail[i][j].port = MAIL_EMPTY;
        }
    }
    s.dense = sn_xcalloc((size_t) n / 64 + 1, sizeof *s.dense);

    s.verify = sn_verify_new(t, p, 0, n);
    res->expected_deliveries = sn_coll_expected_total(t, p);
    if (nthreads > 1) {
        sn_verify_concurrent(s.verify);
        s.min_split = opts->min_split ? opts->min_split : SN_SIM_MIN_SPLIT;
        if (p->pm.ports == SN_PORTS_SINGLE && s.maxdeg <= 64)
            for (int i = 0; i < 2; i++)
                s.occ[i] = sn_xcalloc((size_t) n + 1, sizeof *s.occ[i]);
        sn__sim_workers_start(&s, nthreads);
    }

    /* node states */
    s.states = sn_xcalloc(n, a->state_size ? a->state_size : 1);
    for (uint32_t u = 0; u < n; u++) {
        if ((rc = a->node_init(plan, u, s.states + (size_t) u * a->state_size, err)) < 0) {
            /* nodes after u were never initialised: finish only those before it */
            for (uint32_t v = u + 1; v < n; v++)
                memset(s.states + (size_t) v * a->state_size, 0, a->state_size);
            goto done;
        }
        s.wake[u] = SN_WAKE_NEVER;
        activate(&s, u, 1);
    }

    uint64_t slot = 1;
    for (;;) {
        int par = (int) (slot & 1), npar = par ^ 1;
        uint64_t data_sends = 0, ctl_sends = 0;
        order_active(&s, par);
        rc = s.workers ? sn__sim_step_parallel(&s, slot, &data_sends, &ctl_sends, opts, res, err)
                       : step_serial(&s, slot, &data_sends, &ctl_sends, opts, res, err);
        if (rc < 0)
            goto done;
        s.active_n[par] = 0;
        uint64_t sends = data_sends + ctl_sends;
        if (sends > 0) {
            res->steps = slot;
            res->packets += data_sends;
            res->control_packets += ctl_sends;
            if (data_sends == 0)
                res->control_slots++;
            if (sends > res->max_slot_sends)
                res->max_slot_sends = sends;
        }
        if (!s.mail[0])
            group_arrivals(&s, slot + 1);
        /* next slot: arrivals and wakes at slot+1; if nothing, jump to the earliest wake */
        uint64_t next = slot + 1;
        if (s.active_n[npar] == 0) {
            while (s.heap_n > 0 && s.wake[s.heap[0].node] != s.heap[0].slot)
                heap_pop(&s); /* stale: the node was stepped since and asked otherwise */
            if (s.heap_n == 0)
                break; /* quiescent */
            next = s.heap[0].slot;
        }
        while (s.heap_n > 0 && s.heap[0].slot <= next) {
            wake_t w = heap_pop(&s);
            if (s.wake[w.node] == w.slot && w.slot == next)
                activate(&s, w.node, next);
        }
        /* the limit is on crossings: a run whose last crossing is at max_slots still needs the
         * steps of slot max_slots + 1 for its final deliveries */
        if ((sends > 0 && slot > max_slots) || next > max_slots + 1) {
            rc = sn_err_set_param(err, SN_ESLOTS, SN_PARAM_SLOT_LIMIT,
                                  "no quiescence after %llu slots (the slot limit): "
                                  "%llu of %llu deliveries done",
                                  (unsigned long long) max_slots,
                                  (unsigned long long) res->deliveries,
                                  (unsigned long long) res->expected_deliveries);
            goto done;
        }
        slot = next;
    }
    /* the run completed; it verified if nothing is missing */
    res->verified = sn_verify_complete(s.verify, err) == 0;
done:
    sim_free(&s);
    return rc;
}
