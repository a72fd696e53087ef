/* Fuzz target (tests/fuzz): the link file of `stepnet run --link-file` (core/model/linkemu.c,
 * sn_emu_build), with the input as the file's text, applied to one topology of each kind of keys:
 * dimensions from a torus's factors, from a hypercube's bits and a folded cube's, none on a ring
 * (which refuses `dim`), parallel links in a fat tree. Every value an accepted file sets is then
 * formatted as the report writes it and drives one link's schedule through a few frames, from an
 * empty one to a 1 GiB packet (node/emulate.c's use of them). */
#include <stdlib.h>
#include <string.h>

#include "stepnet/linkemu.h"
#include "tests/fuzz/fuzz.h"

/* The topologies, built on the first input and kept (they never change). */
static const char *const specs[] = {"torus:3x4", "hypercube:3", "foldedcube:3", "ring:5",
                                    "fattree:2:2:exp"};
#define NSPECS (sizeof specs / sizeof specs[0])
static sn_topo_t *topos[NSPECS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > SN_EMU_MAX_FILE)
        return 0;
    if (topos[0] == NULL)
        for (size_t i = 0; i < NSPECS; i++)
            if (sn_topo_parse(specs[i], &topos[i], NULL) != 0)
                abort();
    /* The coordinator refuses a file with a NUL byte before it parses (coordinator/emu.c); the
     * parser takes NUL-terminated text, so an input's NUL bytes end the text here. */
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* What the command line gives every link before the file: nothing, or a delay. */
    const sn_emu_link_t base[2] = {{0}, {.delay_ns = 200000}};
    for (size_t i = 0; i < NSPECS; i++) {
        sn_emu_t *emu = NULL;
        sn_err_t err = {0};
        if (sn_emu_build(topos[i], &base[i % 2], text, "links", &emu, &err) != 0)
            continue;
        char buf[64];
        for (uint32_t e = 0; e < emu->nedges; e++) {
            const sn_emu_link_t *p = &emu->edge[e];
            (void) sn_emu_time_text(p->delay_ns, buf, sizeof buf);
            (void) sn_emu_time_text(p->jitter_ns, buf, sizeof buf);
            (void) sn_emu_rate_text(p->rate_bps, buf, sizeof buf);
            sn_emu_sched_t s;
            sn_emu_sched_init(&s, p, e, 1000);
            static const size_t frames[] = {0, 1, SN_EMU_BURST_BYTES, 64u << 10, 1u << 30};
            uint64_t now = 1000, last = 0;
            for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++, now += 1000) {
                uint64_t at = sn_emu_sched_frame(&s, now, frames[f]);
                if (at < now || at < last) /* released before written, or reordered */
                    abort();
                last = at;
            }
        }
        sn_emu_free(emu);
    }
    free(text);
    return 0;
}
