/* Progress lines of `stepnet run` and `stepnet bench` (coordinator): what one line says, its text
 * (docs/output.md, "Progress"), when a line is due, and the ETA from the recent repetitions'
 * times. Pure: the caller reads the clock and passes it in; progress.c's glue takes the snapshot
 * from the run's state machine. Unit-tested in tests/unit/test_progress.c. */
#ifndef STEPNET_COORD_PROGRESS_H
#define STEPNET_COORD_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* The phases of a run, in the order a run passes them (the order matters: sn_progress_gate). */
typedef enum {
    SN_PROGRESS_LAUNCH,      /* node processes being started (not with --nodes join) */
    SN_PROGRESS_JOIN,        /* nodes saying hello, then bringing their links up */
    SN_PROGRESS_CALIBRATION, /* the measurements before the first repetition */
    SN_PROGRESS_WARMUP,      /* unmeasured repetitions of a size */
    SN_PROGRESS_RUN,         /* measured repetitions of a size */
    SN_PROGRESS_PHASES
} sn_progress_phase_t;

/* What one line says. done/total count, per phase: nodes started; nodes joined; calibration
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
    double eta_s;       /* warmup, run: seconds left; negative: no ETA yet */
    const char *end;    /* NULL; on the last line "done" or "stopped" */
} sn_progress_snap_t;

/* The phase's name in a line: launch, join, calibration, warmup, run. */
const char *sn_progress_phase_name(sn_progress_phase_t phase);

/* The line of snapshot s for command cmd ("run", "bench") into buf[cap] without a newline:
 * `stepnet CMD: progress: phase=NAME DONE/TOTAL KEY=VALUE...`. Its length (truncated to cap - 1
 * when longer; cap must be at least 1). */
size_t sn_progress_format(const char *cmd, const sn_progress_snap_t *s, char *buf, size_t cap);

/* When lines are printed: at most one per gap_ns, except when the run reaches a phase it had
 * not reached before (each phase at most once a run, so start-up adds a few lines however fast it
 * goes), when a sweep reaches its next packet size (one line per size, so that `bench` shows each
 * size however fast it goes), and the last line. */
typedef struct sn_progress_gate_s {
    uint64_t gap_ns;
    uint64_t last_ns; /* when the last line was printed */
    int top;          /* the latest phase printed; -1: no line yet */
    uint32_t point;   /* the latest size (its place, from 1) printed; 0: none */
} sn_progress_gate_t;

typedef enum {
    SN_PROGRESS_HOLD,       /* too soon: drop this update (a later one will tell more) */
    SN_PROGRESS_PRINT,      /* print it */
    SN_PROGRESS_PRINT_BOTH, /* a phase not reached before: print how the phase before ended
                               (unless that was the last line printed), then this update */
} sn_progress_verdict_t;

/* The gate's verdict on an update of `phase` at now_ns for the size at place `point` of a sweep
 * (0 before the repetitions), final: the run's last line; and the gate updated as if the caller
 * follows it. */
sn_progress_verdict_t sn_progress_gate(sn_progress_gate_t *g, uint64_t now_ns,
                                       sn_progress_phase_t phase, uint32_t point, int final);

/* The times of the last SN_PROGRESS_WINDOW measured repetitions, for the ETA: recent ones, so
 * that a sweep's estimate follows its current size. */
#define SN_PROGRESS_WINDOW 64
typedef struct sn_progress_window_s {
    uint64_t ns[SN_PROGRESS_WINDOW];
    uint32_t n, next;
} sn_progress_window_t;

void sn_progress_window_add(sn_progress_window_t *w, uint64_t ns);

/* Seconds left for `remaining` more repetitions at the median time of those in w; -1 when w holds
 * none (no ETA before a measured repetition ended). */
double sn_progress_eta_s(const sn_progress_window_t *w, uint64_t remaining);

#endif
