/* The progress of a run as the engine reports it (coordinator): the phases a run passes, what a
 * snapshot of one says, and the event that hands it to whoever draws the lines (sn_coord_opts_t
 * progress; the CLI draws them in cli/progress.c). The engine decides nothing of their text, rate
 * or terminal: it calls the callback whenever its state moves. */
#ifndef STEPNET_COORDINATOR_PROGRESS_H
#define STEPNET_COORDINATOR_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* The phases of a run, in the order a run passes them (the order matters to a rate limit that
 * always shows a phase's first line). */
typedef enum {
    SN_PROGRESS_LAUNCH,      /* node processes being started (not with --nodes join) */
    SN_PROGRESS_JOIN,        /* nodes saying hello, then bringing their links up */
    SN_PROGRESS_CALIBRATION, /* the measurements before the first repetition */
    SN_PROGRESS_WARMUP,      /* unmeasured repetitions of a size */
    SN_PROGRESS_RUN,         /* measured repetitions of a size */
    SN_PROGRESS_PHASES
} sn_progress_phase_t;

/* What one snapshot says. done/total count, per phase: nodes started; nodes joined; calibration
 * series ended (each node's link probes, each control round, each node's clock, each empty-slot
 * repetition); repetitions of this size in this phase. */
typedef struct sn_progress_snap_s {
    sn_progress_phase_t phase;
    uint64_t done, total;
    const char *launcher;          /* launch: local, ssh or daemons */
    uint32_t links_up;             /* join: nodes whose links are all up (of total) */
    uint32_t size, point, npoints; /* warmup, run: the packet size, its place (from 1) of npoints */
    uint64_t reps_done,
        reps_total;     /* warmup, run: every repetition of the run, warm-ups included */
    double elapsed_s;   /* warmup, run: since the first repetition started */
    double slots_per_s; /* warmup, run: slots played per elapsed second */
    double eta_s;       /* seconds left; negative: none (the engine leaves it to the front end) */
    const char *end;    /* NULL; on the last snapshot "done" or "stopped" */
} sn_progress_snap_t;

typedef struct sn_coord_s sn_coord_t;

/* One progress event. `snap` is borrowed for the call. A final event (the run is over) carries
 * snap->end, or snap NULL when no repetition ended: the front end then ends on the last snapshot
 * it was given, with `end`. */
typedef struct sn_coord_progress_ev_s {
    const sn_progress_snap_t *snap;
    uint64_t now_ns; /* the engine's monotonic clock (uv_hrtime) at the event */
    uint64_t rep_ns; /* a measured repetition just ended and took rep_ns (an ETA's input); or 0 */
    int final;       /* the run's last event: nothing follows */
    const char *end; /* final: "done" or "stopped"; NULL otherwise */
    const sn_coord_t *run; /* for sn_coord_progress_phase, during the call only */
} sn_coord_progress_ev_t;

/* The callback of sn_coord_opts_t.progress: called on the run's loop, never re-entered. */
typedef void (*sn_coord_progress_fn)(void *ctx, const sn_coord_progress_ev_t *ev);

/* How start-up phase `ph` (launch, join, calibration) of the run stands now, from the state
 * machine's counters, into *s: for a front end that shows how the phase before ended once the run
 * has moved on (the update that completes a start-up phase moves the run to the next phase, so it
 * is never an event of its own). Call only from within the progress callback, with ev->run. */
void sn_coord_progress_phase(const sn_coord_t *run, sn_progress_phase_t ph, sn_progress_snap_t *s);

#endif
