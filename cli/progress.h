/* Progress lines of `stepnet run` and `stepnet bench` (cli): the engine's progress events
 * (coordinator/progress.h) drawn on stderr. What one line says (docs/output.md, "Progress"), when a
 * line is due, the ETA from the recent repetitions' times, and on a terminal each phase's line
 * redrawn in place. The text, the rate and the ETA are pure (unit-tested in
 * tests/unit/test_progress.c); cli_progress_event draws. */
#ifndef STEPNET_CLI_PROGRESS_H
#define STEPNET_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coordinator/coord.h"

/* The phase's name in a line: launch, join, calibration, warmup, run. */
const char *cli_progress_phase_name(sn_progress_phase_t phase);

/* The line of snapshot s for command cmd ("run", "bench") into buf[cap] without a newline:
 * `stepnet CMD: progress: phase=NAME DONE/TOTAL KEY=VALUE...`. Its length (truncated to cap - 1
 * when longer; cap must be at least 1). */
size_t cli_progress_format(const char *cmd, const sn_progress_snap_t *s, char *buf, size_t cap);

/* When lines are printed: at most one per gap_ns, except when the run reaches a phase it had
 * not reached before (each phase at most once a run, so start-up adds a few lines however fast it
 * goes), when a sweep reaches its next packet size (one line per size, so that `bench` shows each
 * size however fast it goes), and the last line. */
typedef struct cli_progress_gate_s {
    uint64_t gap_ns;
    uint64_t last_ns; /* when the last line was printed */
    int top;          /* the latest phase printed; -1: no line yet */
    uint32_t point;   /* the latest size (its place, from 1) printed; 0: none */
} cli_progress_gate_t;

typedef enum {
    CLI_PROGRESS_HOLD,       /* too soon: drop this update (a later one will tell more) */
    CLI_PROGRESS_PRINT,      /* print it */
    CLI_PROGRESS_PRINT_BOTH, /* a phase not reached before: print how the phase before ended
                                (unless that was the last line printed), then this update */
} cli_progress_verdict_t;

/* The gate's verdict on an update of `phase` at now_ns for the size at place `point` of a sweep
 * (0 before the repetitions), final: the run's last line; and the gate updated as if the caller
 * follows it. */
cli_progress_verdict_t cli_progress_gate(cli_progress_gate_t *g, uint64_t now_ns,
                                         sn_progress_phase_t phase, uint32_t point, int final);

/* The times of the last CLI_PROGRESS_WINDOW measured repetitions, for the ETA: recent ones, so
 * that a sweep's estimate follows its current size. */
#define CLI_PROGRESS_WINDOW 64
typedef struct cli_progress_window_s {
    uint64_t ns[CLI_PROGRESS_WINDOW];
    uint32_t n, next;
} cli_progress_window_t;

void cli_progress_window_add(cli_progress_window_t *w, uint64_t ns);

/* Seconds left for `remaining` more repetitions at the median time of those in w; -1 when w holds
 * none (no ETA before a measured repetition ended). */
double cli_progress_eta_s(const cli_progress_window_t *w, uint64_t remaining);

/* The lines of one run: its command's name, where they go and whether that is a terminal (lines
 * redrawn), the gate, the ETA's window, the last line printed and the last snapshot offered. */
typedef struct cli_progress_s {
    const char *cmd;
    FILE *out;
    int tty;
    cli_progress_gate_t gate;
    cli_progress_window_t window;
    sn_progress_snap_t shown; /* the last line printed */
    sn_progress_snap_t last;  /* the last snapshot offered, printed or not */
    int printed;              /* a line was printed */
    int ended;                /* the final line was printed */
} cli_progress_t;

/* Sets p up for a run of command `cmd` ("run", "bench"; borrowed) drawing on `out` (stderr), which
 * is a terminal when tty is 1 (a line a phase redrawn in place, at most one each 200 ms; else whole
 * lines, at most one a second). */
void cli_progress_init(cli_progress_t *p, const char *cmd, FILE *out, int tty);

/* The engine's progress callback (sn_coord_progress_fn) with ctx a cli_progress_t: prints the
 * snapshot when it tells something new and the gate lets it through, filling in the ETA. */
void cli_progress_event(void *ctx, const sn_coord_progress_ev_t *ev);

#endif
