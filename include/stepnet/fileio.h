/* Opening the files a command reads (core/util/fileio.c): a topology's edge list, a link file, a
 * host file, a schedule file. Each is read whole, so it must be a regular file; a FIFO is never
 * waited on (open(2) of a FIFO without a writer blocks), and a directory or a device is refused
 * with what it is. */
#ifndef STEPNET_FILEIO_H
#define STEPNET_FILEIO_H

#include <stdio.h>

/* Opens `path` for reading if it is a regular file: open(2) with O_NONBLOCK, fstat(2), then the
 * descriptor back to blocking reads in a FILE. NULL otherwise, with errno set (EINVAL for a file
 * that is not regular) and *why a text for the message: strerror(errno), or "not a regular file
 * (a FIFO)", "(a directory)", "(a character device)", "(a block device)", "(a socket)". */
FILE *sn_fopen_regular(const char *path, const char **why);

#endif
