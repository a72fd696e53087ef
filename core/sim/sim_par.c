/* Parallel stepping of the slot simulator (core/sim): the busy slots of algorithms whose steps
 * are independent (sn_algo_t.parallel), stepped by several threads; sim.c runs everything else. */
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_internal.h"

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
        sn__sim_note_queue(&w->tally, u, io->queue);
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
int sn__sim_step_parallel(sim_t *s, uint64_t slot, uint64_t *data_sends, uint64_t *ctl_sends,
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
            sn__sim_note_queue(res, w->tally.max_queue_node, (uint32_t) w->tally.max_queue);
        for (size_t j = 0; j < w->next_n; j++)
            activate(s, w->next[j], slot + 1);
        for (size_t j = 0; j < w->wakes_n; j++)
            sn__sim_heap_push(s, w->wakes[j].slot, w->wakes[j].node);
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
void sn__sim_workers_start(sim_t *s, uint32_t nw)
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

void sn__sim_workers_stop(sim_t *s)
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
