/* Opening the files a command reads, regular files only, without blocking (core/util). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stepnet/fileio.h"

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "not a regular file (a FIFO)";
    if (S_ISDIR(m))
        return "not a regular file (a directory)";
    if (S_ISCHR(m))
        return "not a regular file (a character device)";
    if (S_ISBLK(m))
        return "not a regular file (a block device)";
    if (S_ISSOCK(m))
        return "not a regular file (a socket)";
    return "not a regular file";
}

FILE *sn_fopen_regular(const char *path, const char **why)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        *why = strerror(e);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        *why = kind_of(st.st_mode);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        int e = errno;
        close(fd);
        errno = e;
        *why = strerror(e);
    }
    return f;
}
