/* Link emulation in the run engine (coordinator): the per-edge values of a run (the --link-delay,
 * --link-jitter and --link-rate of every link and the per-link file), read and validated before
 * any node starts. The nodes apply them (node/emulate.c); the Assign message carries them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/fileio.h"
#include "coordinator/coord.h"
#include "stepnet/util.h"

/* Reads the link file, at most SN_EMU_MAX_FILE bytes, into a NUL-terminated buffer. */
static int read_file(const char *path, char **out, sn_err_t *err)
{
    const char *why;
    FILE *f = sn_fopen_regular(path, &why);
    if (f == NULL)
        return sn_err_set(err, SN_EINVAL, "cannot read '%s' (" SN_REF_LINK_FILE "): %s", path, why);
    char *buf = sn_xmalloc(SN_EMU_MAX_FILE + 1);
    size_t n = fread(buf, 1, SN_EMU_MAX_FILE + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > SN_EMU_MAX_FILE || memchr(buf, '\0', n)) {
        free(buf);
        return sn_err_set(err, SN_EINVAL,
                          bad ? "cannot read '%s' (" SN_REF_LINK_FILE ")"
                              : "'%s' (" SN_REF_LINK_FILE
                                "): expected a text file of at most 4 MiB",
                          path);
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

int sn_coord_emu_build(const sn_coord_opts_t *o, const sn_topo_t *t, sn_emu_t **out, sn_err_t *err)
{
    *out = NULL;
    char *text = NULL;
    int rc;
    if (o->emu_file && (rc = read_file(o->emu_file, &text, err)) < 0)
        return rc;
    sn_emu_t *emu = NULL;
    rc = sn_emu_build(t, &o->emu, text, o->emu_file ? o->emu_file : "", &emu, err);
    free(text);
    if (rc < 0)
        return err ? (err->code = SN_EINVAL) : SN_EINVAL;
    if (!emu->active) {
        sn_emu_free(emu);
        return 0;
    }
    *out = emu;
    return 0;
}
