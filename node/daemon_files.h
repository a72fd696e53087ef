/* The files of the persistent daemon (node/, stepnet-node --serve, daemon.c): --log-file, which
 * becomes the standard error of the daemon and of the node processes it starts, and --pid-file,
 * which names the daemon's process for init scripts and operators. */
#ifndef STEPNET_NODE_DAEMON_FILES_H
#define STEPNET_NODE_DAEMON_FILES_H

#include "stepnet/error.h"

/* Opens `path` for appending (created mode 0640) and makes it this process's standard error,
 * which the node processes started later inherit; every log line is then one write(2) at the
 * file's end. Called at start-up and again on SIGHUP, after logrotate renamed the file: the
 * daemon writes to the new file from then on, a node process already running to the old one
 * until its run ends. 0, or SN_EIO with err naming the path and the reason; standard error is
 * unchanged then. */
int sn__daemon_log_open(const char *path, sn_err_t *err);

/* Before the daemon listens: 0 when `path` may be claimed (absent, empty, or the pid of a process
 * that is gone or is not a stepnet-node: a stale file, taken over, with *stale_pid set to that
 * pid, else 0); SN_EINVAL with err when it holds the pid of a running stepnet-node, or something
 * that is not a process id (never overwritten: it may be another file given by mistake), or
 * cannot be read. */
int sn__daemon_pid_check(const char *path, long *stale_pid, sn_err_t *err);

/* After the listener is bound: writes this process's id to `path` atomically (a reader never
 * sees a partial file), without replacing the file of a daemon that claimed it since
 * sn__daemon_pid_check. 0, SN_EINVAL (claimed by a running daemon) or SN_EIO with err. */
int sn__daemon_pid_write(const char *path, sn_err_t *err);

/* At exit: removes `path` when it still holds this process's id (a file another daemon took over
 * is left alone). */
void sn__daemon_pid_remove(const char *path);

#endif
