/* The one node-spawn helper of both programs (proc/): a stepnet-node process started through
 * uv_spawn with its options, its standard streams, and the cluster key on a pipe. Used by the
 * coordinator's local runs and by the stepnet-node daemon. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/spawn.h"
#include "proc/uv_error.h"

/* A pipe holding the key text, its write end closed: the read end in *out. Both ends are
 * close-on-exec, so only the child that gets the read end through its stdio inherits it. */
static int key_pipe(const char *text, size_t len, int *out, sn_err_t *err)
{
    int kp[2];
    /* single-threaded: nothing can fork between pipe() and fcntl() */
    if (pipe(kp) != 0)
        return sn_err_set(err, SN_EIO, "cannot create the key pipe: %s", strerror(errno));
    if (fcntl(kp[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(kp[1], F_SETFD, FD_CLOEXEC) != 0) {
        int e = errno;
        close(kp[0]);
        close(kp[1]);
        return sn_err_set(err, SN_EIO, "cannot create the key pipe: %s", strerror(e));
    }
    ssize_t w = write(kp[1], text, len); /* at most SN_SPAWN_KEY_TEXT_MAX: fits any pipe buffer */
    close(kp[1]);
    if (w != (ssize_t) len) {
        close(kp[0]);
        return sn_err_set(err, SN_EIO, "cannot write the key pipe");
    }
    *out = kp[0];
    return 0;
}

int sn_spawn_node(uv_loop_t *loop, uv_process_t *proc, const sn_spawn_opts_t *o, sn_err_t *err)
{
    const char *argv[SN_SPAWN_ARGS_MAX + 4];
    char fd_text[16];
    int na = 0, kfd = -1;
    argv[na++] = o->bin;
    for (const char *const *a = o->args; a && *a; a++) {
        if (na > SN_SPAWN_ARGS_MAX)
            return sn_err_set(err, SN_EINVAL, "cannot start %s: more than %d options", o->bin,
                              SN_SPAWN_ARGS_MAX);
        argv[na++] = *a;
    }
    if (o->key_text) {
        if (o->key_len > SN_SPAWN_KEY_TEXT_MAX)
            return sn_err_set(err, SN_EINVAL, "cannot start %s: a key text of more than %d bytes",
                              o->bin, SN_SPAWN_KEY_TEXT_MAX);
        int rc = key_pipe(o->key_text, o->key_len, &kfd, err);
        if (rc < 0)
            return rc;
        snprintf(fd_text, sizeof fd_text, "%d", SN_SPAWN_KEY_FD);
        argv[na++] = "--key-fd";
        argv[na++] = fd_text;
    }
    argv[na] = NULL;
    uv_stdio_container_t stdio[SN_SPAWN_KEY_FD + 1];
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_IGNORE;
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    stdio[SN_SPAWN_KEY_FD].flags = UV_INHERIT_FD;
    stdio[SN_SPAWN_KEY_FD].data.fd = kfd;
    uv_process_options_t po;
    memset(&po, 0, sizeof po);
    po.file = o->bin;
    po.args = (char **) argv;
    po.exit_cb = o->exit_cb;
    po.stdio = stdio;
    po.stdio_count = kfd >= 0 ? SN_SPAWN_KEY_FD + 1 : SN_SPAWN_KEY_FD;
    int rc = uv_spawn(loop, proc, &po);
    if (kfd >= 0)
        close(kfd);
    if (rc < 0) {
        /* libuv: the handle must be closed even though the spawn failed */
        uv_close((uv_handle_t *) proc, o->close_cb);
        return sn_err_set(err, rc, "cannot start %s: %s%s%s%s", o->bin, sn_uv_error_text(rc),
                          o->hint ? " (" : "", o->hint ? o->hint : "", o->hint ? ")" : "");
    }
    return 0;
}
