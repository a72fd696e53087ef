/* The files of the persistent daemon (node/, stepnet-node --serve): the log file that replaces
 * standard error and is reopened on SIGHUP, and the pid file claimed after the listener is bound
 * and removed at exit (daemon_files.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/daemon_files.h"

#define PID_FILE_MAX 32 /* "4194304\n" and then some: a longer file is not a pid file */

int sn__daemon_log_open(const char *path, sn_err_t *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0640);
    if (fd < 0)
        return sn_err_set(err, SN_EIO, "cannot open --log-file %s for appending: %s", path,
                          strerror(errno));
    /* dup2 clears close-on-exec on descriptor 2, so the node processes inherit the file */
    int rc = dup2(fd, STDERR_FILENO) < 0 ? -1 : 0;
    int e = errno;
    close(fd);
    if (rc < 0)
        return sn_err_set(err, SN_EIO, "cannot make --log-file %s standard error: %s", path,
                          strerror(e));
    return 0;
}

/* Reads the pid file at `path`: 1 with *pid (0 for an empty file), 0 when there is none, -1 with
 * err when it cannot be read or holds something else than a process id. */
static int read_pid_file(const char *path, long *pid, sn_err_t *err)
{
    char buf[PID_FILE_MAX + 1];
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        return sn_err_set(err, SN_EINVAL, "cannot read --pid-file %s: %s", path, strerror(errno));
    ssize_t n = read(fd, buf, sizeof buf);
    int e = errno;
    close(fd);
    if (n < 0)
        return sn_err_set(err, SN_EINVAL, "cannot read --pid-file %s: %s", path, strerror(e));
    while (n > 0 && isspace((unsigned char) buf[n - 1]))
        n--;
    buf[n] = '\0';
    char *end;
    errno = 0;
    *pid = n == 0 ? 0 : strtol(buf, &end, 10);
    if (n > 0 && (!isdigit((unsigned char) buf[0]) || *end != '\0' || errno != 0 || *pid <= 0 ||
                  (size_t) n == sizeof buf - 1))
        return sn_err_set(err, SN_EINVAL,
                          "--pid-file %s holds '%.20s%s', not a process id: it is not "
                          "overwritten (remove it, or give another --pid-file)",
                          path, buf, n > 20 ? "..." : "");
    return 1;
}

/* 1 when `pid` is a running stepnet-node other than this process. A pid that a reboot or a
 * container restart gave to another program is not: its file is stale. */
static int is_running_daemon(long pid)
{
    if (pid == (long) getpid() || (kill((pid_t) pid, 0) != 0 && errno == ESRCH))
        return 0;
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) /* without /proc: a live process with that id is taken for the daemon */
        return access("/proc/self/comm", R_OK) != 0;
    if (fgets(comm, sizeof comm, f) == NULL)
        comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    return strcmp(comm, "stepnet-node") == 0;
}

int sn__daemon_pid_check(const char *path, long *stale_pid, sn_err_t *err)
{
    long pid = 0;
    *stale_pid = 0;
    int rc = read_pid_file(path, &pid, err);
    if (rc <= 0)
        return rc;
    if (pid > 0 && is_running_daemon(pid))
        return sn_err_set(err, SN_EINVAL,
                          "--pid-file %s belongs to a running stepnet-node (pid %ld): stop that "
                          "daemon, or give another --pid-file",
                          path, pid);
    *stale_pid = pid;
    return 0;
}

int sn__daemon_pid_write(const char *path, sn_err_t *err)
{
    char tmp[4096], text[24];
    int len = snprintf(text, sizeof text, "%ld\n", (long) getpid());
    if ((size_t) snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long) getpid()) >= sizeof tmp)
        return sn_err_set(err, SN_EIO, "--pid-file %.200s...: the path is too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0)
        return sn_err_set(err, SN_EIO, "cannot write --pid-file %s (%s): %s", path, tmp,
                          strerror(errno));
    int ok = write(fd, text, (size_t) len) == len;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    int rc = 0;
    long stale;
    if (!ok)
        rc = sn_err_set(err, SN_EIO, "cannot write --pid-file %s (%s): %s", path, tmp, strerror(e));
    /* link(2) refuses to replace a file another daemon created since the check; a file that is
     * there is checked again and replaced only when stale */
    else if (link(tmp, path) == 0)
        rc = 0;
    else if ((errno == EEXIST && sn__daemon_pid_check(path, &stale, err) < 0))
        rc = SN_EINVAL;
    else if (rename(tmp, path) != 0)
        rc = sn_err_set(err, SN_EIO, "cannot write --pid-file %s: %s", path, strerror(errno));
    else
        return 0;
    unlink(tmp);
    return rc;
}

void sn__daemon_pid_remove(const char *path)
{
    long pid = 0;
    sn_err_t err = {0};
    if (read_pid_file(path, &pid, &err) == 1 && pid == (long) getpid())
        unlink(path);
}
