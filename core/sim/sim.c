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
 * With several threads (sn_sim_opts_t.threads), busy slots are stepped side by side: see
 * "parallel stepping" below. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/sim.h"
#include "stepnet/util.h"

#define NIL UINT32_MAX

/* The mailboxes (two sn_msg_t per port) are used when they take at most this much. */
#define MAIL_MAX_BYTES (64u << 20)
/* sn_msg_t.port of an empty mailbox */
#define MAIL_EMPTY UINT32_MAX

typedef struct {
    sn_msg_t msg;  /* the packet and the receiver's arrival port */
    uint32_t node; /* the receiver */
} arrival_t;

typedef struct {
    uint64_t slot;
    uint32_t node;
} wake_t;

typedef struct worker_s worker_t;

/* A barrier of `count` threads (count may shrink before anyone waits past it: the workers that
 * could be started). A waiter first spins a while on the generation, then sleeps on the condition
 * variable: single-port runs cross two barriers per slot, tens of thousands of slots, and a
 * sleeping thread's wake-up costs tens of microseconds where the other thread arrives in a few. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t count, waiting;
    uint64_t gen;
} barrier_t;

typedef struct {
    const sn_topo_t *t;
    const sn_params_t *p;
    const sn_algo_t *a;
    /* parallel stepping: nworkers > 1 (workers[0] is the calling thread) */
    worker_t *workers;
    uint32_t nworkers, nalloc; /* started (with the caller), set up */
    barrier_t go, done;
    int quit;           /* the workers leave at the next `go` */
    uint64_t slot;      /* the slot the workers step */
    uint32_t min_split; /* slots with fewer active nodes: the calling thread alone */
    /* per node */
    uint8_t *states;       /* n * state_size */
    uint64_t *wake;        /* the wake slot asked for at the node's last step */
    uint64_t *queued;      /* the slot the node was last put on an active list for */
    uint32_t *rx_start;    /* first arrival of the node in `sorted` */
    uint32_t *rx_count[2]; /* its arrivals, by slot parity (sends of slot t count for t+1) */
    sn_verify_t *verify;   /* every node's deliveries */
    uint64_t *link_slot;   /* half duplex: per directed link, the last slot it carried a packet */
    /* per slot: the sends of the slot being played, then the same grouped by receiver */
    arrival_t *pool, *sorted;
    size_t pool_n, pool_cap, sorted_cap;
    sn_msg_t *mail[2]; /* [ports] by slot parity, or NULL: the mailbox of each arrival port */
    /* parallel single-port stepping, degrees up to 64: per node and slot parity, the ports whose
     * mailbox holds an arrival (a receiver reads those instead of scanning all its ports); NULL
     * otherwise */
    uint64_t *occ[2];
    uint32_t *active[2];
    size_t active_n[2], active_cap[2];
    wake_t *heap;
    size_t heap_n, heap_cap;
    /* scratch */
    sn_msg_t *rx;
    uint64_t *keys; /* sort keys for rx, rx_cap of them */
    size_t rx_cap;
    uint8_t *echo;   /* [rx_cap] half duplex: the receiver sent on the arrival's port too */
    uint8_t *mark;   /* [maxdeg] scratch of sn_exec_step */
    uint64_t *dense; /* bitmap of n bits: orders dense active lists by node id */
    uint32_t maxdeg;
    sn_step_t io;
} sim_t;

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

static void heap_push(sim_t *s, uint64_t slot, uint32_t node)
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

/* Puts u on the active list of `slot` (parity slot & 1) once. */
static inline void activate(sim_t *s, uint32_t u, uint64_t slot)
{
    if (s->queued[u] == slot)
        return;
    s->queued[u] = slot;
    int par = (int) (slot & 1);
    if (s->active_n[par] == s->active_cap[par])
        sn_grow((void **) &s->active[par], &s->active_cap[par], s->active_n[par] + 1,
                sizeof *s->active[par]);
    s->active[par][s->active_n[par]++] = u;
}

/* ---- sends -------------------------------------------------------------------------------- */

/* The port u sends on in `slot`, its directed link in *link, stamped for the half-duplex check. */
static inline const sn_port_t *send_port(sim_t *s, uint32_t u, uint32_t port, uint64_t slot,
                                         uint32_t *link)
{
    *link = sn_topo_link_id(s->t, u, port);
    if (s->link_slot)
        s->link_slot[*link] = slot;
    return sn_topo_port(s->t, u, port);
}

/* Puts a packet sent in `slot` over pp into the receiver's mailbox of its arrival port. */
static inline void mail_put(sim_t *s, const sn_port_t *pp, uint64_t slot, const sn_packet_t *pkt)
{
    sn_msg_t *m = &s->mail[(slot + 1) & 1][s->t->port_off[pp->peer] + pp->rport];
    m->pkt = *pkt;
    m->port = pp->rport;
}

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
static void note_queue(sn_sim_result_t *res, uint32_t u, uint32_t queue)
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
        note_queue(res, u, io->queue);
        send_all(s, u, slot, res, data_sends, ctl_sends, opts);
        s->wake[u] = io->wake;
        if (io->wake != SN_WAKE_NEVER) {
            if (io->wake == slot + 1)
                activate(s, u, slot + 1);
            else
                heap_push(s, io->wake, u);
        }
    }
    return 0;
}

/* ---- parallel stepping ----------------------------------------------------------------------
 * With opts->threads > 1 and an algorithm whose steps touch only their own node's state
 * (sn_algo_t.parallel), the nodes of a busy slot are stepped by several threads, each over a
 * contiguous share of the slot's active list. What they share is written by one of them only or
 * merged afterwards: a send goes to the mailbox of its directed link (every port has one, read by
 * a scan of the receiver's ports, so no arrival counts are kept; single-port, where a receiver
 * has one arrival or none, the sender also marks the port in the receiver's occupancy word, an
 * atomic OR, and the receiver reads only the marked ports), a node's state, deliveries and
 * half-duplex link stamps are its own, the verifier sets its bits atomically, and the receivers
 * and wake-ups of the next slot and the slot's counters are kept per thread and merged by the
 * calling thread in worker order. Every result is a sum, a per-node fact or a maximum with a
 * node-id tie-break, so none depends on the number of threads; an error is the one of the earliest
 * node of the active list, the one the serial order meets first. Slots with few active nodes are
 * stepped by the calling thread alone, through the same code. */

struct worker_s {
    sim_t *s;
    pthread_t th;
    size_t lo, hi; /* its share of the active list */
    sn_step_t io;
    sn_msg_t *rx;
    size_t rx_cap;
    uint8_t *echo, *mark;
    uint64_t *listed;        /* [n] the slot for which it last listed a node in `next` */
    uint32_t *next;          /* nodes active in the next slot (receivers, wakes at slot + 1) */
    size_t next_n, next_cap; /* */
    wake_t *wakes;           /* later wake-ups, for the heap */
    size_t wakes_n, wakes_cap;
    /* the slot's tallies */
    uint64_t data_sends, ctl_sends;
    sn_sim_result_t tally; /* its deliveries, node steps, trace hash and largest queue */
    int rc;                /* 0, or the error of its first failing node */
    sn_err_t err;
};

static void listed_next(worker_t *w, uint32_t v, uint64_t next)
{
    if (w->listed[v] == next)
        return;
    w->listed[v] = next;
    if (w->next_n == w->next_cap)
        sn_grow((void **) &w->next, &w->next_cap, w->next_n + 1, sizeof *w->next);
    w->next[w->next_n++] = v;
}

/* Steps the nodes of w's share of the active list of s->slot. */
static void par_steps(worker_t *w)
{
    sim_t *s = w->s;
    const sn_topo_t *t = s->t;
    const sn_params_t *p = s->p;
    const sn_algo_t *a = s->a;
    uint64_t slot = s->slot;
    int par = (int) (slot & 1);
    sn_step_t *io = &w->io;
    for (size_t ai = w->lo; ai < w->hi; ai++) {
        uint32_t u = s->active[par][ai], deg = sn_topo_degree(t, u);
        sn_msg_t *m = &s->mail[par][t->port_off[u]];
        size_t nrx = 0;
        if (w->rx_cap < deg) {
            sn_grow((void **) &w->rx, &w->rx_cap, deg, sizeof *w->rx);
            w->echo = sn_xrealloc(w->echo, w->rx_cap * sizeof *w->echo);
        }
        if (s->occ[0]) { /* the ports the senders marked, in port order */
            for (uint64_t bits = s->occ[par][u]; bits; bits &= bits - 1) {
                uint32_t q = (uint32_t) __builtin_ctzll(bits);
                w->rx[nrx++] = m[q];
                m[q].port = MAIL_EMPTY;
            }
            s->occ[par][u] = 0;
        } else {
            for (uint32_t q = 0; q < deg; q++) { /* its ports' mailboxes, in port order */
                if (m[q].port == MAIL_EMPTY)
                    continue;
                w->rx[nrx++] = m[q];
                m[q].port = MAIL_EMPTY;
            }
        }
        io->slot = slot;
        io->nrx = nrx;
        io->rx = w->rx;
        w->tally.node_steps++;
        if (nrx > 0) {
            if (s->link_slot)
                for (size_t i = 0; i < nrx; i++)
                    w->echo[i] = s->link_slot[sn_topo_link_id(t, u, w->rx[i].port)] == slot - 1;
            if ((w->rc = sn_exec_check_arrivals(t, &p->pm, u, slot - 1, w->rx, nrx, w->echo,
                                                &w->err)) < 0)
                return;
        }
        if ((w->rc = sn_exec_step(a, s->states + (size_t) u * a->state_size, t, &p->pm, u, io,
                                  s->verify, w->mark, &w->err)) < 0)
            return;
        w->tally.deliveries += io->ndlv;
        note_queue(&w->tally, u, io->queue);
        for (size_t i = 0; i < io->ntx; i++) {
            uint32_t link;
            const sn_port_t *pp = send_port(s, u, io->tx[i].port, slot, &link);
            uint32_t v = pp->peer;
            mail_put(s, pp, slot, &io->tx[i].pkt);
            if (s->occ[0]) /* senders on other threads may mark v's other ports */
                __atomic_fetch_or(&s->occ[(slot + 1) & 1][v], 1ull << pp->rport, __ATOMIC_RELAXED);
            listed_next(w, v, slot + 1);
            w->tally.trace_hash += sn_trace_event(slot, link, &io->tx[i].pkt);
            if (io->tx[i].pkt.kind == SN_PKT_CONTROL)
                w->ctl_sends++;
            else
                w->data_sends++;
        }
        s->wake[u] = io->wake;
        if (io->wake == slot + 1) {
            listed_next(w, u, slot + 1);
        } else if (io->wake != SN_WAKE_NEVER) {
            if (w->wakes_n == w->wakes_cap)
                sn_grow((void **) &w->wakes, &w->wakes_cap, w->wakes_n + 1, sizeof *w->wakes);
            w->wakes[w->wakes_n++] = (wake_t){io->wake, u};
        }
    }
}

static void barrier_init(barrier_t *b, uint32_t count)
{
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->count = count;
    b->waiting = 0;
    b->gen = 0;
}

/* Spins of a barrier waiter before it sleeps (a pause each: some tens of microseconds). */
#define BARRIER_SPINS 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void barrier_wait(barrier_t *b)
{
    uint64_t gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->waiting, 1, __ATOMIC_ACQ_REL) >=
        __atomic_load_n(&b->count, __ATOMIC_ACQUIRE)) {
        /* the last one: reset the count before the others can see the new generation */
        __atomic_store_n(&b->waiting, 0, __ATOMIC_RELAXED);
        pthread_mutex_lock(&b->mu);
        __atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        return;
    }
    for (int i = 0; i < BARRIER_SPINS; i++) {
        if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != gen)
            return;
        cpu_relax();
    }
    pthread_mutex_lock(&b->mu);
    while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

static void barrier_resize(barrier_t *b, uint32_t count)
{
    __atomic_store_n(&b->count, count, __ATOMIC_RELEASE);
}

static void barrier_destroy(barrier_t *b)
{
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    sim_t *s = w->s;
    for (;;) {
        barrier_wait(&s->go);
        if (s->quit)
            return NULL;
        par_steps(w);
        barrier_wait(&s->done);
    }
}

/* Steps the slot's active list with the workers, then merges their tallies into res and their
 * next-slot nodes and wake-ups into the simulator's lists, in worker order. */
static int step_parallel(sim_t *s, uint64_t slot, uint64_t *data_sends, uint64_t *ctl_sends,
                         const sn_sim_opts_t *opts, sn_sim_result_t *res, sn_err_t *err)
{
    int par = (int) (slot & 1);
    size_t k = s->active_n[par];
    uint32_t nw = k >= s->min_split ? s->nworkers : 1;
    s->slot = slot;
    for (uint32_t i = 0; i < s->nworkers; i++) {
        worker_t *w = &s->workers[i];
        w->lo = i < nw ? k * i / nw : k;
        w->hi = i < nw ? k * (i + 1) / nw : k;
        w->next_n = w->wakes_n = 0;
        w->data_sends = w->ctl_sends = 0;
        memset(&w->tally, 0, sizeof w->tally);
        w->rc = 0;
    }
    if (nw > 1) {
        barrier_wait(&s->go);
        par_steps(&s->workers[0]);
        barrier_wait(&s->done);
    } else {
        par_steps(&s->workers[0]);
    }
    uint64_t steps_before = res->node_steps;
    for (uint32_t i = 0; i < nw; i++) {
        worker_t *w = &s->workers[i];
        if (w->rc < 0) {
            *err = w->err;
            return w->rc;
        }
        *data_sends += w->data_sends;
        *ctl_sends += w->ctl_sends;
        res->deliveries += w->tally.deliveries;
        res->node_steps += w->tally.node_steps;
        res->trace_hash += w->tally.trace_hash;
        if (w->tally.max_queue_reported)
            note_queue(res, w->tally.max_queue_node, (uint32_t) w->tally.max_queue);
        for (size_t j = 0; j < w->next_n; j++)
            activate(s, w->next[j], slot + 1);
        for (size_t j = 0; j < w->wakes_n; j++)
            heap_push(s, w->wakes[j].slot, w->wakes[j].node);
    }
    if (opts && opts->progress && (steps_before >> 20) != (res->node_steps >> 20))
        opts->progress(opts->progress_ctx, slot, res->deliveries, res->expected_deliveries);
    return 0;
}

uint32_t sn_sim_threads_used(const sn_topo_t *t, const sn_params_t *p, const sn_algo_t *a,
                             const sn_sim_opts_t *opts, const char **why)
{
    const char *r = NULL;
    if (!opts || opts->threads <= 1)
        r = "one thread asked for";
    else if (!a->parallel)
        r = "the algorithm's steps are not marked independent";
    else if (opts->on_send)
        r = "every send is reported in order";
    else if ((uint64_t) t->port_off[t->n] * 2 * sizeof(sn_msg_t) > MAIL_MAX_BYTES)
        r = "the mailboxes of every port would not fit";
    (void) p;
    if (why)
        *why = r;
    if (r)
        return 1;
    return opts->threads < SN_SIM_MAX_THREADS ? opts->threads : SN_SIM_MAX_THREADS;
}

/* Sets up nw workers, workers[0] being the calling thread, and starts the others; when the system
 * refuses a thread, the run goes on with those that started (the results do not depend on how
 * many). */
static void workers_start(sim_t *s, uint32_t nw)
{
    uint32_t n = s->t->n;
    s->workers = sn_xcalloc(nw, sizeof *s->workers);
    s->nalloc = nw;
    for (uint32_t i = 0; i < nw; i++) {
        worker_t *w = &s->workers[i];
        w->s = s;
        w->mark = sn_xcalloc(s->maxdeg + 1, 1);
        w->listed = sn_xcalloc((size_t) n + 1, sizeof *w->listed);
    }
    s->nworkers = nw;
    barrier_init(&s->go, nw);
    barrier_init(&s->done, nw);
    for (uint32_t i = 1; i < nw; i++) {
        if (pthread_create(&s->workers[i].th, NULL, worker_main, &s->workers[i]) != 0) {
            s->nworkers = i;
            barrier_resize(&s->go, i);
            barrier_resize(&s->done, i);
            break;
        }
    }
}

static void workers_stop(sim_t *s)
{
    if (s->workers == NULL)
        return;
    if (s->nworkers > 1) {
        s->quit = 1;
        barrier_wait(&s->go);
        for (uint32_t i = 1; i < s->nworkers; i++)
            pthread_join(s->workers[i].th, NULL);
    }
    barrier_destroy(&s->go);
    barrier_destroy(&s->done);
    for (uint32_t i = 0; i < s->nalloc; i++) {
        worker_t *w = &s->workers[i];
        free(w->io.tx);
        free(w->io.dlv);
        free(w->rx);
        free(w->echo);
        free(w->mark);
        free(w->listed);
        free(w->next);
        free(w->wakes);
    }
    free(s->workers);
    s->workers = NULL;
}

/* ---- the run ---------------------------------------------------------------------------- */

static void sim_free(sim_t *s)
{
    workers_stop(s);
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
        workers_start(&s, nthreads);
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
        rc = s.workers ? step_parallel(&s, slot, &data_sends, &ctl_sends, opts, res, err)
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
