/* Local nodes (launch): spawning one stepnet-node process per topology node for a local
 * run, handing each the cluster key through a pipe, and noticing when one exits early. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord_internal.h"
#include "errors.h"

/* The descriptor on which a spawned node reads the key (its --key-fd). */
#define KEY_FD      3
#define KEY_FD_TEXT "3"

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

/* A pipe holding the key in the file format, its write end closed: the read end in *out. The key
 * travels through a pipe that only the child inherits: never on a command line or in the
 * environment, where other users could read it. */
static int key_pipe(const sn_coord_t *r, int *out, sn_err_t *err)
{
    int kp[2];
    char text[2 * SN_KEY_BYTES + 1];
    /* single-threaded: nothing can fork between pipe() and fcntl() */
    if (pipe(kp) != 0)
        return sn_err_set(err, SN_EIO, "cannot create the key pipe: %s", strerror(errno));
    if (fcntl(kp[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(kp[1], F_SETFD, FD_CLOEXEC) != 0) {
        int e = errno;
        close(kp[0]);
        close(kp[1]);
        return sn_err_set(err, SN_EIO, "cannot create the key pipe: %s", strerror(e));
    }
    sn_key_format(r->key, text);
    ssize_t w = write(kp[1], text, sizeof text); /* 65 bytes: fits any pipe buffer */
    sodium_memzero(text, sizeof text);
    close(kp[1]);
    if (w != (ssize_t) sizeof text) {
        close(kp[0]);
        return sn_err_set(err, SN_EIO, "cannot write the key pipe");
    }
    *out = kp[0];
    return 0;
}

int sn__launch_local(sn_coord_t *r, sn_err_t *err)
{
    char idbuf[16], range[16];
    snprintf(range, sizeof range, "%u-%u", r->o->port_lo, r->o->port_hi);
    for (uint32_t i = 0; i < r->n; i++) {
        sn_coord_node_t *cn = &r->nodes[i];
        snprintf(idbuf, sizeof idbuf, "%u", i);
        int kfd = -1;
        const char *args[14];
        int na = 0;
        args[na++] = r->node_bin;
        args[na++] = "--coordinator";
        args[na++] = r->listen_addr;
        args[na++] = "--id";
        args[na++] = idbuf;
        args[na++] = "--local";
        if (r->sec.mode == SN_SEC_SODIUM) {
            int rc = key_pipe(r, &kfd, err);
            if (rc < 0)
                return rc;
            args[na++] = "--key-fd";
            args[na++] = KEY_FD_TEXT;
        } else {
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
        uv_stdio_container_t stdio[KEY_FD + 1];
        stdio[0].flags = UV_IGNORE;
        stdio[1].flags = UV_IGNORE; /* READY lines: the coordinator already knows */
        stdio[2].flags = UV_INHERIT_FD;
        stdio[2].data.fd = 2;
        stdio[KEY_FD].flags = UV_INHERIT_FD;
        stdio[KEY_FD].data.fd = kfd;
        uv_process_options_t po;
        memset(&po, 0, sizeof po);
        po.file = r->node_bin;
        po.args = (char **) args;
        po.exit_cb = on_node_exit;
        po.stdio = stdio;
        po.stdio_count = kfd >= 0 ? KEY_FD + 1 : KEY_FD;
        cn->proc.data = cn;
        int rc = uv_spawn(r->loop, &cn->proc, &po);
        if (kfd >= 0)
            close(kfd);
        if (rc < 0) {
            /* libuv: the handle must be closed even though the spawn failed */
            uv_close((uv_handle_t *) &cn->proc, NULL);
            return sn_err_set(err, rc,
                              "cannot start %s: %s (name the stepnet-node program with "
                              "--node-bin PATH)",
                              r->node_bin, sn_net_strerror(rc));
        }
        cn->spawned = 1;
    }
    return 0;
}
