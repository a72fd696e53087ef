/* The open-file limit of a process (proc/): both programs raise their soft RLIMIT_NOFILE to the
 * hard limit at start-up (Debian's default soft limit, 1024, is one under what 1024 nodes'
 * control connections need), and the coordinator refuses a run that needs more than the hard
 * limit, naming both. */
#ifndef STEPNET_PROC_FDLIMIT_H
#define STEPNET_PROC_FDLIMIT_H

#include <stdint.h>

/* Raises the soft limit of open files to the hard one. Returns the soft limit in force after it
 * (UINT64_MAX when unlimited; the old soft limit when setrlimit is refused), and the hard one in
 * *hard (may be NULL). */
uint64_t sn_fdlimit_raise(uint64_t *hard);

#endif
