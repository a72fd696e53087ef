/* The slot simulator's shared state (core/sim, internal): sim.c runs the slots, sim_par.c steps
 * the busy slots of independent algorithms on several threads. */
#ifndef STEPNET_CORE_SIM_SIM_INTERNAL_H
#define STEPNET_CORE_SIM_SIM_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "stepnet/sim.h"
#include "stepnet/util.h"

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

/* sim.c: pushes a wake-up of u at `slot` on the heap; folds a step's queue report into res (the
 * largest, the lowest node id on ties). */
void sn__sim_heap_push(sim_t *s, uint64_t slot, uint32_t node);
void sn__sim_note_queue(sn_sim_result_t *res, uint32_t u, uint32_t queue);

/* sim_par.c: sets up nw workers (workers[0] is the calling thread) and starts the others; stops
 * and frees them; steps the slot's active list with them and merges their tallies into res and
 * their next-slot nodes and wake-ups into s, in worker order (0, or the earliest node's error). */
void sn__sim_workers_start(sim_t *s, uint32_t nw);
void sn__sim_workers_stop(sim_t *s);
int sn__sim_step_parallel(sim_t *s, uint64_t slot, uint64_t *data_sends, uint64_t *ctl_sends,
                          const sn_sim_opts_t *opts, sn_sim_result_t *res, sn_err_t *err);

#endif
