/* One round of the folded-cube PMNB without its prefixes (core/algo/engine): packing, then
 * broadcast over d+1 non-interfering hypercube copies, or over Q_d alone for A_0 (Varvarigos,
 * folded-cube paper, section 3, Lemma 1; the packing and broadcast phases of A_0 as stepnet
 * reconstructs them, described in mnb/mnb_fcube.c). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/fcube.h"
#include "core/algo/engine/fcube_pmnb.h"
#include "stepnet/util.h"

uint64_t sn__fcube_round_slots(uint32_t d, uint64_t mbar)
{
    uint64_t T = d;
    for (uint32_t j = 0; j < d; j++)
        T += sn_ceil_div(mbar, 1ull << (j + 1));
    return T;
}

/* Copy c's label of s and its port for hypercube dimension k; one copy: Q_d itself. */
static uint32_t lab(uint32_t ncp, uint32_t d, uint32_t c, uint32_t s)
{
    return ncp == 1 ? s : sn__fcube_label(d, c, s);
}

static uint32_t copy_port(uint32_t ncp, uint32_t d, uint32_t c, uint32_t k)
{
    return ncp == 1 ? k : sn__fcube_fdim(d, c, k);
}

int sn__fcube_pmnb_round(const sn_topo_t *t, uint32_t d, uint32_t ncp, const uint32_t *act,
                         uint32_t m, sn_fcraw_t **out, size_t *nout, uint64_t *T1, sn_err_t *err)
{
    typedef sn_fcraw_t raw_t;
    uint32_t n = t->n, all = n - 1;
    uint64_t mbar = sn_ceil_div(act ? m : n, ncp);
    /* one copy broadcasting from every node: every packet is at its position already */
    int packing = act != NULL || ncp > 1;
    uint32_t *inv = sn_xmalloc((size_t) n * sizeof *inv);
    uint32_t *bypos = sn_xmalloc((size_t) n * sizeof *bypos);
    uint32_t *cls = sn_xmalloc((size_t) n * sizeof *cls); /* class of each active node */
    for (uint32_t s = 0; s < n; s++)
        cls[s] = act ? UINT32_MAX : s % ncp; /* MNB: rank = id, no prefix needed */
    for (uint32_t r = 0; act && r < m; r++)
        cls[act[r]] = r % ncp;
    raw_t *ev = NULL;
    size_t nev = 0, cap = 0;
    int rc = 0;
    for (uint32_t c = 0; c < ncp && rc == 0; c++) {
        for (uint32_t s = 0; s < n; s++)
            inv[lab(ncp, d, c, s)] = s;
        /* class c in label order: pos of each member */
        uint32_t mc = 0;
        for (uint32_t q = 0; q < n; q++)
            if (cls[inv[q]] == c)
                bypos[mc++] = inv[q];
        /* packing */
        for (uint32_t r = 0; r < mc; r++) {
            uint32_t s = bypos[r], loc = lab(ncp, d, c, s);
            for (uint32_t j = 0; j < d; j++) {
                if (!(((loc ^ r) >> j) & 1))
                    continue;
                uint32_t x = inv[loc], f = copy_port(ncp, d, c, j);
                uint32_t y = x ^ (f == d ? all : 1u << f);
                sn_grow((void **) &ev, &cap, nev + 1, sizeof *ev);
                loc ^= 1u << j;
                ev[nev++] = (raw_t){(uint64_t) j + 1, x, f, s, y, loc == r && y != s};
            }
            if (loc != r) {
                rc = sn_err_set(err, SN_EALGO, "packing left class %u position %u at label %u", c,
                                r, loc);
                break;
            }
        }
        /* broadcast */
        uint64_t start = packing ? (uint64_t) d + 1 : 1;
        for (uint32_t j = d; j-- > 0 && rc == 0;) {
            uint64_t len = sn_ceil_div(mbar, 1ull << (j + 1));
            uint32_t step = 1u << (j + 1), f = copy_port(ncp, d, c, j);
            for (uint32_t q = 0; q < n; q++) {
                uint32_t x = inv[q], y = x ^ (f == d ? all : 1u << f);
                if (lab(ncp, d, c, y) != (q ^ (1u << j))) {
                    rc = sn_err_set(err, SN_EALGO, "copy %u: F-dimension %u is not Q-dimension %u",
                                    c, f, j);
                    break;
                }
                uint64_t idx = 0;
                for (uint32_t yy = q & (step - 1); yy < mc; yy += step, idx++) {
                    if (idx >= len) {
                        rc = sn_err_set(err, SN_EALGO, "phase %u overflows at label %u", j, q);
                        break;
                    }
                    sn_grow((void **) &ev, &cap, nev + 1, sizeof *ev);
                    ev[nev++] = (raw_t){start + idx, x, f, bypos[yy], y, y != bypos[yy]};
                }
            }
            start += len;
        }
    }
    free(inv);
    free(bypos);
    free(cls);
    if (rc < 0) {
        free(ev);
        return rc;
    }
    *out = ev;
    *nout = nev;
    *T1 = sn__fcube_round_slots(d, mbar) - (packing ? 0 : d);
    return 0;
}
