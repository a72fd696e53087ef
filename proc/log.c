/* The tagged logger of both programs (proc/): the one place that formats a log line, for the node
 * ("node 3 LINK-DOWN ..."), its daemon ("daemon DAEMON-RUN ...") and the coordinator ("coord
 * ..."). */
#include <sys/time.h>
#include <time.h>

#include "proc/log.h"

void sn_log_init(sn_log_t *lg, const char *role, int64_t id, sn_log_level_t level)
{
    lg->role = role;
    lg->id = id;
    lg->level = level;
    lg->out = NULL;
    lg->name_param = NULL;
}

void sn_log_set_id(sn_log_t *lg, int64_t id)
{
    lg->id = id;
}

int sn_log_enabled(const sn_log_t *lg, sn_log_level_t level)
{
    return level <= lg->level;
}

void sn_log_vwrite(const sn_log_t *lg, sn_log_level_t level, const char *event, const char *fmt,
                   va_list ap)
{
    if (!sn_log_enabled(lg, level))
        return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char text[512], msg[512], id[24] = "";
    vsnprintf(text, sizeof text, fmt, ap);
    sn_err_expand(text, lg->name_param, msg, sizeof msg);
    if (lg->id >= 0)
        snprintf(id, sizeof id, " %lld", (long long) lg->id);
    else if (lg->id == SN_LOG_ID_UNKNOWN)
        snprintf(id, sizeof id, " ?");
    fprintf(lg->out ? lg->out : stderr, "%02d:%02d:%02d.%06ld %s%s %s %s\n", tm.tm_hour, tm.tm_min,
            tm.tm_sec, (long) tv.tv_usec, lg->role, id, event, msg);
}

void sn_log_write(const sn_log_t *lg, sn_log_level_t level, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sn_log_vwrite(lg, level, event, fmt, ap);
    va_end(ap);
}
