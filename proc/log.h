/* The tagged logger of both programs (proc/): one line per event on stderr, "HH:MM:SS.uuuuuu ROLE
 * [ID] EVENT message", where EVENT is a stable id that tests and operators grep for
 * ("LINK-RCVMAX", "NODE-READY"). stdout stays for machine-readable output. Never log keys or
 * whole payloads. */
#ifndef STEPNET_PROC_LOG_H
#define STEPNET_PROC_LOG_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "stepnet/error.h"

/* How much an event matters; a logger writes the events at or below its level. */
typedef enum {
    SN_LOG_ERROR = 0, /* a failure: always written */
    SN_LOG_WARN = 1,  /* worth knowing even when quiet (a signal, plaintext links, a fault) */
    SN_LOG_INFO = 2,  /* a routine event (assignment, links up, a collective's end) */
    SN_LOG_DEBUG = 3
} sn_log_level_t;

/* The id member's special values: no id field at all ("daemon EVENT ..."), or an id not known
 * yet ("node ? EVENT ..."). */
#define SN_LOG_ID_NONE    (-1)
#define SN_LOG_ID_UNKNOWN (-2)

/* One logger: the role that writes ("node", "daemon", "coord"), its id and its level. A plain
 * value without resources: embed it, copy it, never free it. */
typedef struct sn_log_s {
    const char *role;     /* borrowed: usually a string literal */
    int64_t id;           /* the node id, or SN_LOG_ID_NONE / SN_LOG_ID_UNKNOWN */
    sn_log_level_t level; /* events above it are dropped */
    FILE *out;            /* NULL: stderr (tests give a file) */
    /* names the parameters a message refers to (SN_PARAM_REF): the front end's spelling, such as
     * the CLI's flags; NULL: their concept names */
    sn_param_namer_t name_param;
} sn_log_t;

/* Sets up `lg` for `role` (borrowed for the logger's life) with `id` and `level`, writing to
 * stderr, parameters by their concept names. */
void sn_log_init(sn_log_t *lg, const char *role, int64_t id, sn_log_level_t level);

/* The id from now on (a node learns its id from the coordinator's assignment). */
void sn_log_set_id(sn_log_t *lg, int64_t id);

/* 1 when an event of `level` would be written, for callers that compute costly messages. */
int sn_log_enabled(const sn_log_t *lg, sn_log_level_t level);

/* Writes one line for `event` (a stable id, no spaces) with the printf-style message, when
 * `level` is at or below the logger's: the local wall-clock time to the microsecond, the role,
 * the id (when the logger has one), the event and the message (its parameter references named by
 * lg->name_param, cut at 511 bytes). One write per
 * line (stderr is unbuffered), so that lines of processes sharing it do not interleave. */
void sn_log_write(const sn_log_t *lg, sn_log_level_t level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same with a va_list. */
void sn_log_vwrite(const sn_log_t *lg, sn_log_level_t level, const char *event, const char *fmt,
                   va_list ap) __attribute__((format(printf, 4, 0)));

#endif
