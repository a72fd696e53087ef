/* Progress of `stepnet run` and `stepnet bench` (coordinator): after each repetition, a line on
 * stderr with the repetitions done of all, the current packet size and the slots played per
 * second. On a terminal one line is redrawn in place; elsewhere (--progress into a file or a
 * pipe) whole lines, fewer of them. stdout is never touched. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coord_internal.h"

/* The least interval between two lines, on a terminal and elsewhere (the end of every size and
 * of the run are always shown). */
#define SN_COORD_PROGRESS_TTY_MS  200
#define SN_COORD_PROGRESS_FILE_MS 1000
#define NS_PER_MS                 1000000ull

void sn__coord_progress_init(sn_coord_t *r)
{
    sn_coord_progress_t *p = &r->progress;
    memset(p, 0, sizeof *p);
    p->on = r->o->progress;
    p->tty = isatty(2);
}

void sn__coord_progress(sn_coord_t *r, uint64_t slots, int final)
{
    sn_coord_progress_t *p = &r->progress;
    if (!p->on || p->ended)
        return;
    uint64_t now = uv_hrtime();
    uint64_t per = (uint64_t) r->o->warmup + r->o->reps, total = per * r->res->npoints;
    if (final) {
        p->ended = 1;
        if (p->done == 0) /* no repetition ended: the run's own report says why */
            return;
    } else {
        if (p->t0 == 0)
            p->t0 = r->t0; /* the first repetition's START */
        p->done++;
        p->slots += slots;
        uint64_t gap = (p->tty ? SN_COORD_PROGRESS_TTY_MS : SN_COORD_PROGRESS_FILE_MS) * NS_PER_MS;
        int size_end = r->rep == per;
        if (!size_end && p->last && now - p->last < gap)
            return;
    }
    p->last = now;
    double secs = (double) (now - p->t0) / 1e9;
    char line[200];
    int len = snprintf(line, sizeof line, "stepnet %s: %llu/%llu repetitions",
                       r->o->cmd_name ? r->o->cmd_name : "run", (unsigned long long) p->done,
                       (unsigned long long) total);
    if (r->res->npoints > 1 && len > 0 && (size_t) len < sizeof line)
        len += snprintf(line + len, sizeof line - (size_t) len, ", size %u B (%u of %zu)",
                        r->params.size, r->point + 1, r->res->npoints);
    if (len > 0 && (size_t) len < sizeof line)
        snprintf(line + len, sizeof line - (size_t) len, ", %.0f slots/s, %.1f s%s",
                 secs > 0 ? (double) p->slots / secs : 0.0, secs,
                 final ? (r->res->failed ? ", stopped" : ", done") : "");
    if (p->tty) {
        fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
        p->drawn = !final;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}
