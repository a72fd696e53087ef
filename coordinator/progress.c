/* Progress of `stepnet run` and `stepnet bench` (coordinator): the run's state as progress events
 * (progress.h) handed to the front end's callback (sn_coord_opts_t.progress) as each phase goes on
 * (launch, join, calibration, warm-up, repetitions), taken from the control state machine's own
 * counters when they change. The engine draws nothing: the CLI's cli/progress.c does. */
#include "coordinator/progress.h"

#include <string.h>

#include "coordinator/coord_internal.h"

#define NS_PER_S 1e9

/* ---- the run's state into snapshots ------------------------------------------------------ */

void sn__coord_progress_init(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    memset(p, 0, sizeof *p);
}

/* Hands snapshot s (NULL: none, on a final event) to the front end. */
static void emit(sn_coord_t *r, const sn_progress_snap_t *s, uint64_t now, uint64_t rep_ns,
                 int final)
{
    sn_coord_progress_ev_t ev = {.snap = s,
                                 .now_ns = now,
                                 .rep_ns = rep_ns,
                                 .final = final,
                                 .end = final ? (r->res->failed ? "stopped" : "done") : NULL,
                                 .run = r};
    r->o->progress(r->o->progress_ctx, &ev);
}

/* The calibration's series: each node's link probes, each control round, each node's clock
 * (nodes not on the coordinator's clock), each empty-slot repetition of the time model, as the
 * state machine (control.c) runs them in that order. */
static void calibration_snap(const sn_coord_t *r, sn_progress_snap_t *s)
{
    const sn_coord_opts_t *o = r->o;
    uint32_t rounds = o->probes ? SN_COORD_CTL_ROUNDS(o) : 0;
    uint32_t clocks = r->launcher->one_clock ? 0 : r->n;
    uint32_t floors = o->probes && o->idle_slots == 0 ? SN_COORD_FLOOR_REPS : 0;
    s->phase = SN_PROGRESS_CALIBRATION;
    s->total = (uint64_t) r->n + rounds + clocks + floors;
    s->done = (uint64_t) r->ncal + r->ctl_round + r->nclocked + r->floor_done;
}

/* The snapshot of the start-up (launch, join, calibration); 0 once the repetitions run. */
static int startup_snap(const sn_coord_t *r, sn_progress_snap_t *s)
{
    memset(s, 0, sizeof *s);
    s->eta_s = -1;
    s->total = r->n;
    const sn_launcher_ops_t *l = r->launcher;
    switch (r->phase) {
    case SN_COORD_PH_JOIN:
    case SN_COORD_PH_READY:
        /* launch until every node started and one said hello (local nodes all start at once);
         * none when the launcher starts nothing (join) */
        if (r->phase == SN_COORD_PH_JOIN && l->started &&
            (r->joined == 0 || l->started(r->launcher_state) < r->n)) {
            s->phase = SN_PROGRESS_LAUNCH;
            s->done = l->started(r->launcher_state);
            s->launcher = l->name;
            return 1;
        }
        s->phase = SN_PROGRESS_JOIN; /* every node started: their hellos, then their links */
        s->done = r->joined;
        s->links_up = r->nready;
        return 1;
    case SN_COORD_PH_CALIBRATE:
    case SN_COORD_PH_CLOCK:
        calibration_snap(r, s);
        return 1;
    case SN_COORD_PH_RUN:
        if (!r->floor_rep)
            return 0;
        calibration_snap(r, s);
        return 1;
    default:
        return 0;
    }
}

/* The snapshot of the repetitions after `ended` of them ended (the run's, warm-ups included),
 * about the one that just ended (starting 0) or the one starting now (starting 1). The ETA is the
 * front end's. */
static void rep_snap(const sn_coord_t *r, uint64_t now, int starting, sn_progress_snap_t *s)
{
    const sn_coord_progress_t *p = &r->progress;
    uint64_t per = (uint64_t) r->o->warmup + r->o->reps, ended = p->done;
    uint64_t idx = starting ? ended : ended - 1; /* from 0 over the whole run */
    uint64_t q = idx % per + 1;                  /* its place in its size, from 1 */
    uint64_t point = idx / per < r->res->npoints ? idx / per : r->res->npoints - 1;
    memset(s, 0, sizeof *s);
    int warm = q <= r->o->warmup;
    s->phase = warm ? SN_PROGRESS_WARMUP : SN_PROGRESS_RUN;
    s->total = warm ? r->o->warmup : r->o->reps;
    s->done = (warm ? q : q - r->o->warmup) - (starting ? 1 : 0);
    s->size = r->res->points[point].size;
    s->point = (uint32_t) point + 1;
    s->npoints = (uint32_t) r->res->npoints;
    s->reps_done = ended;
    s->reps_total = per * r->res->npoints;
    s->elapsed_s = p->t0 && now > p->t0 ? (double) (now - p->t0) / NS_PER_S : 0;
    s->slots_per_s = s->elapsed_s > 0 ? (double) p->slots / s->elapsed_s : 0;
    s->eta_s = -1;
}

void sn_coord_progress_phase(const sn_coord_t *r, sn_progress_phase_t ph, sn_progress_snap_t *s)
{
    memset(s, 0, sizeof *s);
    s->phase = ph;
    s->eta_s = -1;
    s->total = r->n;
    if (ph == SN_PROGRESS_LAUNCH) {
        s->done = r->launcher->started ? r->launcher->started(r->launcher_state) : r->joined;
        s->launcher = r->launcher->name;
    } else if (ph == SN_PROGRESS_JOIN) {
        s->done = r->joined;
        s->links_up = r->nready;
    } else if (ph == SN_PROGRESS_CALIBRATION) {
        calibration_snap(r, s);
    }
}

void sn__coord_progress_update(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    sn_progress_snap_t s;
    if (!r->o->progress || p->ended || !startup_snap(r, &s))
        return; /* the repetitions report themselves (below) */
    emit(r, &s, uv_hrtime(), 0, 0);
}

void sn__coord_progress_rep_start(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    if (!r->o->progress || p->ended)
        return;
    if (r->floor_rep) { /* the time model's empty-slot repetitions are the calibration's */
        sn__coord_progress_update(r);
        return;
    }
    uint64_t now = uv_hrtime();
    sn_progress_snap_t s = {.eta_s = -1}; /* calibration_snap sets only its counts */
    if (p->t0 == 0) {
        p->t0 = r->t0;       /* the first repetition's START */
        if (r->floor_done) { /* the calibration's last series ended with the last empty slot */
            calibration_snap(r, &s);
            emit(r, &s, now, 0, 0);
        }
    }
    rep_snap(r, now, 1, &s);
    emit(r, &s, now, 0, 0);
}

void sn__coord_progress(sn_coord_t *r, uint64_t slots, int final)
{
    sn_coord_progress_t *p = &r->progress;
    if (!r->o->progress || p->ended)
        return;
    uint64_t now = uv_hrtime();
    sn_progress_snap_t s;
    if (final) {
        p->ended = 1;
        if (p->done)
            rep_snap(r, now, 0, &s);
        emit(r, p->done ? &s : NULL, now, 0, 1); /* none: the front end ends on its last line */
        return;
    }
    if (p->t0 == 0)
        p->t0 = r->t0; /* the first repetition's START */
    p->done++;
    p->slots += slots;
    rep_snap(r, now, 0, &s);
    /* a measured repetition's time feeds the front end's ETA */
    emit(r, &s, now, r->rep > r->o->warmup ? now - r->t0 : 0, 0);
}
