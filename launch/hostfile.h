/* Host lists for `stepnet run --hosts` (launch): the hostfile and the comma-separated list
 * parsers, the placement of ranks on hosts (--map-by slot|node) and the splitting of the --ssh
 * command. Pure: no processes, no sockets, no globals; tested in tests/unit/test_hostfile.c. */
#ifndef STEPNET_LAUNCH_HOSTFILE_H
#define STEPNET_LAUNCH_HOSTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "stepnet/error.h"

#define SN_HOST_MAX_NAME  256     /* a host name or address, with its terminating NUL */
#define SN_HOST_MAX_USER  64      /* a user name, with its terminating NUL */
#define SN_HOST_MAX_SLOTS 4096    /* slots=N of one host */
#define SN_HOST_MAX_HOSTS 4096    /* entries of one list or file */
#define SN_HOST_MAX_TEXT  1048576 /* bytes of one hostfile */
#define SN_SSH_MAX_WORDS  64      /* words of the --ssh command */

typedef struct sn_host_s {
    char user[SN_HOST_MAX_USER]; /* "" when none was given (ssh's default) */
    char name[SN_HOST_MAX_NAME]; /* as ssh takes it: an IPv6 address without brackets */
    uint16_t port;               /* 0 when none was given (ssh's default) */
    uint32_t slots;              /* 1 when none was given */
} sn_host_t;

typedef struct sn_hostlist_s {
    sn_host_t *hosts;
    size_t n;
} sn_hostlist_t;

typedef enum { SN_MAP_BY_SLOT = 0, SN_MAP_BY_NODE = 1 } sn_map_by_t;

/* Parses hostfile text (`len` bytes; NUL bytes refused) into *out, which the caller frees with
 * sn_launch_hostlist_free. One host per line: `[user@]host[:port] [slots=N]`, where host is a name,
 * an IPv4 address or an [IPv6] address in brackets; `#` starts a comment; blank lines are skipped;
 * as in an Open MPI hostfile. `origin` names the text in errors (a file name). 0, or SN_EINVAL
 * with err naming the line, the bad value and what is accepted. */
int sn_launch_hostfile_parse(const char *text, size_t len, const char *origin, sn_hostlist_t *out,
                             sn_err_t *err);

/* Parses a comma-separated list `[user@]host[:slots],...` as mpirun's -H takes it into *out (free
 * with sn_launch_hostlist_free). 0, or SN_EINVAL with err naming the bad entry. */
int sn_launch_hostlist_parse(const char *list, sn_hostlist_t *out, sn_err_t *err);

/* Whether `--hosts ARG` can only mean a file: ARG contains a '/' or ends in .hosts or .txt (no host
 * name is spelled so, while a mistyped hostfile name would otherwise be taken as one host). */
int sn_launch_hosts_names_file(const char *arg);

/* The hosts of `--hosts ARG`: the file ARG when it names an existing regular file or
 * sn_launch_hosts_names_file(ARG), else the list ARG. 0, or SN_EINVAL (bad syntax; a file that
 * is missing, unreadable or oversized, named in the message). */
int sn_launch_hosts_load(const char *arg, sn_hostlist_t *out, sn_err_t *err);

void sn_launch_hostlist_free(sn_hostlist_t *hl);

/* Places ranks 0..n-1 on the hosts of `hl` into rank_host[n] (an index into hl->hosts).
 * SN_MAP_BY_SLOT fills the first host's slots with consecutive ranks, then the next host's, in
 * the order of the list; SN_MAP_BY_NODE deals ranks round-robin, one per host in list order,
 * skipping hosts whose slots are full. 0, or SN_EINVAL when the hosts offer fewer than n slots. */
int sn_launch_hosts_place(const sn_hostlist_t *hl, uint32_t n, sn_map_by_t by, uint32_t *rank_host,
                          sn_err_t *err);

/* Splits the --ssh command `text` at spaces and tabs (no quoting) into words, which point into
 * `buf` (a copy of text, `cap` bytes). *nwords gets the count. 0, or SN_EINVAL when the command is
 * empty, too long for buf or has more than max words. */
int sn_launch_ssh_split(const char *text, char *buf, size_t cap, const char **words, size_t max,
                        size_t *nwords, sn_err_t *err);

/* The host as text for messages: `user@name:port` with the parts that were given. */
void sn_launch_host_format(const sn_host_t *h, char *buf, size_t cap);

#endif
