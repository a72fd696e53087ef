/* Progress lines of `stepnet run` and `stepnet bench` (cli): the engine's progress events drawn on
 * stderr as each phase of the run goes on (launch, join, calibration, warm-up, repetitions with an
 * ETA). On a terminal each phase's line is redrawn in place; elsewhere (--progress into a file or
 * a pipe) whole lines, fewer of them. stdout is never touched. The line's text, its rate and the
 * ETA are pure (progress.h). */
#include "cli/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The least interval between two lines, on a terminal and elsewhere (the first line of each
 * phase and the last line are always shown). */
#define CLI_PROGRESS_TTY_MS  200
#define CLI_PROGRESS_FILE_MS 1000
#define NS_PER_MS            1000000ull
#define NS_PER_S             1e9

/* ---- the pure part ------------------------------------------------------------------------ */

const char *cli_progress_phase_name(sn_progress_phase_t phase)
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

size_t cli_progress_format(const char *cmd, const sn_progress_snap_t *s, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    put(buf, cap, &len, "stepnet %s: progress: phase=%s %llu/%llu", cmd,
        cli_progress_phase_name(s->phase), (unsigned long long) s->done,
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

cli_progress_verdict_t cli_progress_gate(cli_progress_gate_t *g, uint64_t now_ns,
                                         sn_progress_phase_t phase, uint32_t point, int final)
{
    int fresh = (int) phase > g->top, next_size = point > g->point;
    if (!final && !fresh && !next_size && now_ns - g->last_ns < g->gap_ns)
        return CLI_PROGRESS_HOLD;
    cli_progress_verdict_t v = fresh && g->top >= 0 ? CLI_PROGRESS_PRINT_BOTH : CLI_PROGRESS_PRINT;
    g->last_ns = now_ns;
    if (fresh)
        g->top = (int) phase;
    if (next_size)
        g->point = point;
    return v;
}

void cli_progress_window_add(cli_progress_window_t *w, uint64_t ns)
{
    w->ns[w->next] = ns;
    w->next = (w->next + 1) % CLI_PROGRESS_WINDOW;
    if (w->n < CLI_PROGRESS_WINDOW)
        w->n++;
}

double cli_progress_eta_s(const cli_progress_window_t *w, uint64_t remaining)
{
    if (w->n == 0)
        return -1;
    uint64_t v[CLI_PROGRESS_WINDOW];
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

/* ---- the lines of one run ----------------------------------------------------------------- */

void cli_progress_init(cli_progress_t *p, const char *cmd, FILE *out, int tty)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->out = out;
    p->tty = tty;
    p->gate.gap_ns = (tty ? CLI_PROGRESS_TTY_MS : CLI_PROGRESS_FILE_MS) * NS_PER_MS;
    p->gate.top = -1;
}

static int same_counts(const sn_progress_snap_t *a, const sn_progress_snap_t *b)
{
    return a->phase == b->phase && a->done == b->done && a->links_up == b->links_up;
}

static void print_line(cli_progress_t *p, const sn_progress_snap_t *s, int final)
{
    char line[320];
    cli_progress_format(p->cmd, s, line, sizeof line);
    if (p->tty) {
        /* one line per phase, redrawn in place: a new phase keeps the last one's line */
        if (p->printed && s->phase != p->shown.phase)
            fputc('\n', p->out);
        fprintf(p->out, "\r%s\033[K%s", line, final ? "\n" : "");
    } else {
        fprintf(p->out, "%s\n", line);
    }
    fflush(p->out);
    p->printed = 1;
    p->shown = *s;
}

/* Prints snapshot s when it tells something new and the gate lets it through; entering a phase
 * not reached before, first the end of the phase before it when that was not the last line
 * printed: a start-up phase as the engine's counters stand now, a phase of the repetitions as the
 * last snapshot left it. */
static void offer(cli_progress_t *p, const sn_coord_progress_ev_t *ev, const sn_progress_snap_t *s,
                  int final)
{
    if (!final && p->printed && same_counts(s, &p->shown))
        return; /* a control frame that moved nothing (a heartbeat's answer): nothing to say */
    cli_progress_verdict_t v = cli_progress_gate(&p->gate, ev->now_ns, s->phase, s->point, final);
    if (v == CLI_PROGRESS_HOLD)
        return;
    if (v == CLI_PROGRESS_PRINT_BOTH && p->printed) {
        sn_progress_snap_t end;
        if (p->shown.phase >= SN_PROGRESS_WARMUP)
            end = p->last;
        else
            sn_coord_progress_phase(ev->run, p->shown.phase, &end);
        if (end.phase == p->shown.phase && !same_counts(&end, &p->shown))
            print_line(p, &end, 0);
    }
    print_line(p, s, final);
}

void cli_progress_event(void *ctx, const sn_coord_progress_ev_t *ev)
{
    cli_progress_t *p = ctx;
    if (p->ended)
        return;
    if (ev->rep_ns) /* a measured repetition: its time feeds the ETA */
        cli_progress_window_add(&p->window, ev->rep_ns);
    sn_progress_snap_t s = ev->snap ? *ev->snap : p->last;
    if (ev->snap && s.phase >= SN_PROGRESS_WARMUP)
        s.eta_s = cli_progress_eta_s(&p->window, s.reps_total - s.reps_done);
    if (ev->final) {
        p->ended = 1;
        if (!p->printed) /* nothing said yet: the run's own report says why it ended */
            return;
        s.end = ev->end;
        offer(p, ev, &s, 1);
        return;
    }
    offer(p, ev, &s, 0);
    p->last = s;
}
