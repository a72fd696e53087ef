/* Local nodes (launch): spawning one stepnet-node process per topology node for a local
 * run, handing each the cluster key through a pipe, and noticing when one exits early. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "coordinator/coord_internal.h"
#include "net/secure.h"
#include "proc/spawn.h"

const char *sn__launch_node_bin(char *buf, size_t cap)
{
    const char *env = getenv("STEPNET_NODE");
    if (env && *env)
        return env;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 16);
    if (n <= 0)
        return "stepnet-node";
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    snprintf(slash ? slash + 1 : buf, cap - (size_t) (slash ? slash + 1 - buf : 0), "stepnet-node");
    return buf;
}

static void on_node_exit(uv_process_t *p, int64_t status, int term_signal)
{
    sn_coord_node_t *cn = p->data;
    sn_coord_t *r = cn->run;
    cn->exited = 1;
    if (!r->stopping && (status != 0 || term_signal != 0)) {
        if (term_signal)
            sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                             "node %d (pid %d) was killed by signal %d (%s)", cn->id, p->pid,
                             term_signal, strsignal(term_signal));
        else
            sn__coord_report(r, SN_COORD_KIND_DEATH, cn->id, SN_COORD_NODE_NONE, 0, NULL, 0,
                             "node %d (pid %d) exited with status %lld%s", cn->id, p->pid,
                             (long long) status, cn->hello ? "" : " before joining the run");
    }
    if (r->stopping)
        sn__coord_close_all(r);
}

int sn__launch_local(sn_coord_t *r, sn_err_t *err)
{
    char idbuf[16], range[16];
    snprintf(range, sizeof range, "%u-%u", r->o->port_lo, r->o->port_hi);
    for (uint32_t i = 0; i < r->n; i++) {
        sn_coord_node_t *cn = &r->nodes[i];
        snprintf(idbuf, sizeof idbuf, "%u", i);
        const char *args[12];
        int na = 0;
        args[na++] = "--coordinator";
        args[na++] = r->listen_addr;
        args[na++] = "--id";
        args[na++] = idbuf;
        args[na++] = "--local";
        if (r->sec.mode != SN_SEC_SODIUM) {
            args[na++] = "--security";
            args[na++] = "none";
        }
        if (!r->o->verbose)
            args[na++] = "--quiet";
        if (r->o->port_lo) {
            args[na++] = "--port-range";
            args[na++] = range;
        }
        args[na] = NULL;
        /* the key on a pipe (proc/spawn.c); READY lines ignored: the coordinator already knows */
        char key_text[2 * SN_KEY_BYTES + 1]; /* sn_key_format: 64 hex digits and a newline */
        int keyed = r->sec.mode == SN_SEC_SODIUM;
        if (keyed)
            sn_key_format(r->key, key_text);
        sn_spawn_opts_t so = {.bin = r->node_bin,
                              .args = args,
                              .key_text = keyed ? key_text : NULL,
                              .key_len = sizeof key_text,
                              .exit_cb = on_node_exit,
                              .hint =
                                  "name the stepnet-node program with " SN_REF_NODE_BIN " PATH"};
        cn->proc.data = cn;
        int rc = sn_spawn_node(r->loop, &cn->proc, &so, err);
        sodium_memzero(key_text, sizeof key_text);
        if (rc < 0)
            return rc;
        cn->spawned = 1;
    }
    return 0;
}
