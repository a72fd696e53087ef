/* Progress of `stepnet run` and `stepnet bench` (coordinator): a line on stderr as each phase of
 * the run goes on (launch, join, calibration, warm-up, repetitions with an ETA), taken from the
 * control state machine's own counters when they change. On a terminal each phase's line is
 * redrawn in place; elsewhere (--progress into a file or a pipe) whole lines, fewer of them.
 * stdout is never touched. The line's text, its rate and the ETA are pure (progress.h). */
#include "coordinator/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/coord_internal.h"

/* The least interval between two lines, on a terminal and elsewhere (the first line of each
 * phase and the last line are always shown). */
#define SN_COORD_PROGRESS_TTY_MS  200
#define SN_COORD_PROGRESS_FILE_MS 1000
#define NS_PER_MS                 1000000ull
#define NS_PER_S                  1e9

/* ---- the pure part (progress.h) ---------------------------------------------------------- */

const char *sn_progress_phase_name(sn_progress_phase_t phase)
{
    static const char *const names[SN_PROGRESS_PHASES] = {"launch", "join", "calibration", "warmup",
                                                          "run"};
    return phase < SN_PROGRESS_PHASES ? names[phase] : "?";
}

/* Appends to buf[cap] at *len, keeping it terminated when the text does not fit. */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t) n < cap ? *len + (size_t) n : cap - 1;
}

size_t sn_progress_format(const char *cmd, const sn_progress_snap_t *s, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    put(buf, cap, &len, "stepnet %s: progress: phase=%s %llu/%llu", cmd,
        sn_progress_phase_name(s->phase), (unsigned long long) s->done,
        (unsigned long long) s->total);
    switch (s->phase) {
    case SN_PROGRESS_LAUNCH:
        put(buf, cap, &len, " launcher=%s", s->launcher ? s->launcher : "?");
        break;
    case SN_PROGRESS_JOIN:
        put(buf, cap, &len, " links_up=%u/%llu", s->links_up, (unsigned long long) s->total);
        break;
    case SN_PROGRESS_WARMUP:
    case SN_PROGRESS_RUN:
        put(buf, cap, &len, " size=%u point=%u/%u reps=%llu/%llu elapsed_s=%.1f slots_per_s=%.0f",
            s->size, s->point, s->npoints, (unsigned long long) s->reps_done,
            (unsigned long long) s->reps_total, s->elapsed_s, s->slots_per_s);
        if (s->eta_s >= 0 && s->end == NULL)
            put(buf, cap, &len, " eta_s=%.1f", s->eta_s);
        break;
    default:
        break;
    }
    if (s->end)
        put(buf, cap, &len, " end=%s", s->end);
    return len;
}

sn_progress_verdict_t sn_progress_gate(sn_progress_gate_t *g, uint64_t now_ns,
                                       sn_progress_phase_t phase, uint32_t point, int final)
{
    int fresh = (int) phase > g->top, next_size = point > g->point;
    if (!final && !fresh && !next_size && now_ns - g->last_ns < g->gap_ns)
        return SN_PROGRESS_HOLD;
    sn_progress_verdict_t v = fresh && g->top >= 0 ? SN_PROGRESS_PRINT_BOTH : SN_PROGRESS_PRINT;
    g->last_ns = now_ns;
    if (fresh)
        g->top = (int) phase;
    if (next_size)
        g->point = point;
    return v;
}

void sn_progress_window_add(sn_progress_window_t *w, uint64_t ns)
{
    w->ns[w->next] = ns;
    w->next = (w->next + 1) % SN_PROGRESS_WINDOW;
    if (w->n < SN_PROGRESS_WINDOW)
        w->n++;
}

double sn_progress_eta_s(const sn_progress_window_t *w, uint64_t remaining)
{
    if (w->n == 0)
        return -1;
    uint64_t v[SN_PROGRESS_WINDOW];
    memcpy(v, w->ns, w->n * sizeof *v);
    for (uint32_t i = 1; i < w->n; i++) /* insertion sort: at most 64 values */
        for (uint32_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            uint64_t x = v[k];
            v[k] = v[k - 1];
            v[k - 1] = x;
        }
    uint32_t h = w->n / 2;
    double median = w->n % 2 ? (double) v[h] : ((double) v[h - 1] + (double) v[h]) / 2;
    return median * (double) remaining / NS_PER_S;
}

/* ---- the run's state into snapshots ------------------------------------------------------ */

void sn__coord_progress_init(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    memset(p, 0, sizeof *p);
    p->on = r->o->progress;
    p->tty = isatty(2);
    p->gate.gap_ns = (p->tty ? SN_COORD_PROGRESS_TTY_MS : SN_COORD_PROGRESS_FILE_MS) * NS_PER_MS;
    p->gate.top = -1;
}

static const char *cmd_name(const sn_coord_t *r)
{
    return r->o->cmd_name ? r->o->cmd_name : "run";
}

/* The calibration's series: each node's link probes, each control round, each node's clock
 * (nodes not on the coordinator's clock), each empty-slot repetition of the time model, as the
 * state machine (control.c) runs them in that order. */
static void calibration_snap(const sn_coord_t *r, sn_progress_snap_t *s)
{
    const sn_coord_opts_t *o = r->o;
    uint32_t rounds = o->probes ? SN_COORD_CTL_ROUNDS(o) : 0;
    uint32_t clocks = sn_launch_mode_of(o) == SN_LAUNCH_LOCAL ? 0 : r->n;
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
    sn_launch_mode_t mode = sn_launch_mode_of(r->o);
    switch (r->phase) {
    case SN_COORD_PH_JOIN:
    case SN_COORD_PH_READY:
        /* launch until every node started and one said hello (local nodes all start at once) */
        if (r->phase == SN_COORD_PH_JOIN && mode != SN_LAUNCH_JOIN &&
            (r->joined == 0 || sn__launch_started(r) < r->n)) {
            s->phase = SN_PROGRESS_LAUNCH;
            s->done = sn__launch_started(r);
            s->launcher = sn_launch_mode_name(mode);
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
 * about the one that just ended (starting 0) or the one starting now (starting 1). */
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
    s->eta_s = sn_progress_eta_s(&p->window, s->reps_total - ended);
}

/* How phase `ph` stands now, from the state machine's counters (the update that completes a
 * start-up phase also moves the state machine to the next, so it is never offered itself); a
 * phase of the repetitions as the last update left it. */
static void phase_end(const sn_coord_t *r, sn_progress_phase_t ph, sn_progress_snap_t *s)
{
    const sn_coord_progress_t *p = &r->progress;
    if (ph >= SN_PROGRESS_WARMUP) {
        *s = p->last;
        return;
    }
    memset(s, 0, sizeof *s);
    s->phase = ph;
    s->eta_s = -1;
    s->total = r->n;
    if (ph == SN_PROGRESS_LAUNCH) {
        s->done = sn__launch_started(r);
        s->launcher = sn_launch_mode_name(sn_launch_mode_of(r->o));
    } else if (ph == SN_PROGRESS_JOIN) {
        s->done = r->joined;
        s->links_up = r->nready;
    } else {
        calibration_snap(r, s);
    }
}

static int same_counts(const sn_progress_snap_t *a, const sn_progress_snap_t *b)
{
    return a->phase == b->phase && a->done == b->done && a->links_up == b->links_up;
}

static void print_line(sn_coord_t *r, const sn_progress_snap_t *s, int final)
{
    sn_coord_progress_t *p = &r->progress;
    char line[320];
    sn_progress_format(cmd_name(r), s, line, sizeof line);
    if (p->tty) {
        /* one line per phase, redrawn in place: a new phase keeps the last one's line */
        if (p->printed && s->phase != p->shown.phase)
            fputc('\n', stderr);
        fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
    p->printed = 1;
    p->shown = *s;
}

/* Prints snapshot s when it tells something new and the gate lets it through; entering a phase
 * not reached before, first the end of the phase before it when that was not the last line
 * printed. */
static void offer(sn_coord_t *r, const sn_progress_snap_t *s, uint64_t now, int final)
{
    sn_coord_progress_t *p = &r->progress;
    if (!final && p->printed && same_counts(s, &p->shown))
        return; /* a control frame that moved nothing (a heartbeat's answer): nothing to say */
    sn_progress_verdict_t v = sn_progress_gate(&p->gate, now, s->phase, s->point, final);
    if (v == SN_PROGRESS_HOLD)
        return;
    if (v == SN_PROGRESS_PRINT_BOTH && p->printed) {
        sn_progress_snap_t end;
        phase_end(r, p->shown.phase, &end);
        if (end.phase == p->shown.phase && !same_counts(&end, &p->shown))
            print_line(r, &end, 0);
    }
    print_line(r, s, final);
}

void sn__coord_progress_update(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    sn_progress_snap_t s;
    if (!p->on || p->ended || !startup_snap(r, &s))
        return; /* the repetitions report themselves (below) */
    offer(r, &s, uv_hrtime(), 0);
    p->last = s;
}

void sn__coord_progress_rep_start(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    if (!p->on || p->ended)
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
            offer(r, &s, now, 0);
        }
    }
    rep_snap(r, now, 1, &s);
    offer(r, &s, now, 0);
    p->last = s;
}

void sn__coord_progress(sn_coord_t *r, uint64_t slots, int final)
{
    sn_coord_progress_t *p = &r->progress;
    if (!p->on || p->ended)
        return;
    uint64_t now = uv_hrtime();
    sn_progress_snap_t s;
    if (final) {
        p->ended = 1;
        if (!p->printed) /* nothing said yet: the run's own report says why it ended */
            return;
        if (p->done)
            rep_snap(r, now, 0, &s);
        else
            s = p->last;
        s.end = r->res->failed ? "stopped" : "done";
        offer(r, &s, now, 1);
        return;
    }
    if (p->t0 == 0)
        p->t0 = r->t0; /* the first repetition's START */
    p->done++;
    p->slots += slots;
    if (r->rep > r->o->warmup) /* measured: its time feeds the ETA */
        sn_progress_window_add(&p->window, now - r->t0);
    rep_snap(r, now, 0, &s);
    offer(r, &s, now, 0);
    p->last = s;
}
