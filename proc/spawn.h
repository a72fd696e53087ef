/* Starting stepnet-node processes (proc/): the one way both programs start a node, `stepnet run`
 * for a local run (coordinator) and the `stepnet-node --serve` daemon for each invitation. The
 * cluster key travels through a pipe the child reads as descriptor SN_SPAWN_KEY_FD, never on a
 * command line or in the environment, where other users could read it. */
#ifndef STEPNET_PROC_SPAWN_H
#define STEPNET_PROC_SPAWN_H

#include <uv.h>

#include "stepnet/error.h"

/* The descriptor on which a started node reads the key (its --key-fd), the most options one start
 * may pass, and the longest key text it hands over (one atomic pipe write). */
#define SN_SPAWN_KEY_FD       3
#define SN_SPAWN_ARGS_MAX     32
#define SN_SPAWN_KEY_TEXT_MAX 256

/* How to start one node. The pointers are borrowed for the duration of sn_spawn_node. */
typedef struct sn_spawn_opts_s {
    const char *bin;         /* the stepnet-node program (a path, or a name looked up in PATH) */
    const char *const *args; /* its options, NULL-terminated, without the program name */
    const char *key_text;    /* the cluster key in its file format (net/secure.h's sn_key_format),
                                key_len bytes handed over as --key-fd SN_SPAWN_KEY_FD; NULL: none
                                (args then say --security none). The caller wipes it after. */
    size_t key_len;
    uv_exit_cb exit_cb;   /* the node exited (libuv's exit callback) */
    uv_close_cb close_cb; /* closes the handle after a failed start (may be NULL) */
    const char *hint;     /* appended in parentheses to the error of a failed start, or NULL */
} sn_spawn_opts_t;

/* Starts `o->bin o->args... [--key-fd 3]` on `loop` into `proc` (its data set by the caller):
 * standard input and output ignored (the node's LISTEN and READY lines: its starter knows them
 * already), standard error shared with this process, and with a key the read end of a pipe that
 * already holds the key in the file format (closed here once the child has it). 0 once it runs;
 * its exit arrives through o->exit_cb, and the caller closes `proc` after it. On failure a
 * negative code with err: "cannot start BIN: REASON (HINT)" after a failed uv_spawn, when this
 * function has already called uv_close(proc, o->close_cb) (uv_is_closing(proc) then says 1, as
 * libuv requires the handle closed even so); SN_EIO ("cannot create the key pipe: ...") or
 * SN_EINVAL (more than SN_SPAWN_ARGS_MAX options, key_len over SN_SPAWN_KEY_TEXT_MAX) before
 * it, when `proc` is untouched and close_cb never runs. Call on the loop's thread. */
int sn_spawn_node(uv_loop_t *loop, uv_process_t *proc, const sn_spawn_opts_t *o, sn_err_t *err);

#endif
