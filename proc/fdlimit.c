/* The open-file limit of a process (proc/): the soft limit raised to the hard one. */
#include <sys/resource.h>

#include "proc/fdlimit.h"

static uint64_t value(rlim_t v)
{
    return v == RLIM_INFINITY ? UINT64_MAX : (uint64_t) v;
}

uint64_t sn_fdlimit_raise(uint64_t *hard)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        if (hard)
            *hard = UINT64_MAX;
        return UINT64_MAX;
    }
    if (hard)
        *hard = value(rl.rlim_max);
    if (rl.rlim_cur != rl.rlim_max) {
        struct rlimit up = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            return value(rl.rlim_max);
    }
    return value(rl.rlim_cur);
}
