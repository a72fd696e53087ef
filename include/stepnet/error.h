/* stepnet error codes: 0 on success, negative on error, libuv style.
 *
 * Our own codes live in the -5000 range so that libuv's negative errno values (small numbers) and
 * UV_EOF / UV_EAI_* (-3000 .. -4095) can pass through the same int without a clash. */
#ifndef STEPNET_ERROR_H
#define STEPNET_ERROR_H

#include <stddef.h>

/* XX(name, value, message) */
#define SN_ERRNO_MAP(XX)                                                                           \
    XX(EINVAL, -5001, "invalid argument")                                                          \
    XX(ESPEC, -5002, "bad topology spec")                                                          \
    XX(ERANGE, -5003, "value out of range")                                                        \
    XX(ENOTSUP, -5004, "unsupported combination")                                                  \
    XX(EPORT, -5005, "port model violation")                                                       \
    XX(EVERIFY, -5006, "verification failed")                                                      \
    XX(ESLOTS, -5007, "slot limit reached")                                                        \
    XX(EIO, -5008, "input/output error")                                                           \
    XX(EALGO, -5009, "algorithm error")                                                            \
    XX(ENOMEM, -5010, "out of memory")                                                             \
    XX(EPROTO, -5011, "protocol error")                                                            \
    XX(ETIMEOUT, -5012, "deadline expired")                                                        \
    XX(ELINK, -5013, "link failed")                                                                \
    XX(EPEER, -5014, "a peer failed")

/* Every stepnet code lies in (SN_ERR_BASE - SN_ERR_SPAN, SN_ERR_BASE]; any other negative code is a
 * libuv (negated errno, UV_EOF, UV_EAI_*) code passed through unchanged. */
#define SN_ERR_BASE (-5001)
#define SN_ERR_SPAN 1000

/* 1 when `code` is one of stepnet's own codes (sn_strerror knows it), 0 for libuv's and for 0. */
static inline int sn_err_is_own(int code)
{
    return code <= SN_ERR_BASE && code > SN_ERR_BASE - SN_ERR_SPAN;
}

enum {
#define SN_ERR_ENUM(name, value, msg) SN_##name = value,
    SN_ERRNO_MAP(SN_ERR_ENUM)
#undef SN_ERR_ENUM
};

/* The run parameters a message can be about. Engine and core messages name the concept (the second
 * column), never a command-line flag: a front end maps the parameter to its own spelling (the
 * stepnet CLI to its flags, in one table in cli/errmap.c). A parameter that a node's own command
 * line sets (its id, the coordinator it dials) is one of them too: the CLI names stepnet-node's
 * option. XX(name, concept) */
#define SN_PARAM_MAP(XX)                                                                           \
    XX(NONE, "")                                                                                   \
    XX(ROOT, "root")                                                                               \
    XX(MSGS, "messages per pair")                                                                  \
    XX(FRAGS, "fragments per message")                                                             \
    XX(SIZE, "packet size")                                                                        \
    XX(PORT_MODEL, "port model")                                                                   \
    XX(RX, "reception limit")                                                                      \
    XX(SOURCES, "sources")                                                                         \
    XX(SLOT_LIMIT, "slot limit")                                                                   \
    XX(OP, "combining operator")                                                                   \
    XX(MEMORY, "memory limit")                                                                     \
    XX(ALGO, "algorithm")                                                                          \
    XX(SYNC, "execution mode")                                                                     \
    XX(LINK_FILE, "link file")                                                                     \
    XX(LISTEN, "control address")                                                                  \
    XX(PORT_RANGE, "port range")                                                                   \
    XX(READY_TIMEOUT, "ready deadline")                                                            \
    XX(COORD_NICE, "coordinator's priority")                                                       \
    XX(NODES, "node source")                                                                       \
    XX(NODE_BIN, "node program")                                                                   \
    XX(HOSTS, "host list")                                                                         \
    XX(MAP_BY, "placement")                                                                        \
    XX(SSH, "ssh command")                                                                         \
    XX(REMOTE_NODE, "remote node program")                                                         \
    XX(KEY, "cluster key")                                                                         \
    XX(NODE_ID, "node id")                                                                         \
    XX(NODE_JOIN, "node joining the coordinator")                                                  \
    XX(DAEMON, "node daemon")                                                                      \
    XX(DAEMON_LISTEN, "daemon's address")

typedef enum {
#define SN_PARAM_ENUM(name, concept) SN_PARAM_##name,
    SN_PARAM_MAP(SN_PARAM_ENUM)
#undef SN_PARAM_ENUM
        SN_PARAM_COUNT
} sn_param_t;

/* The concept name of a parameter ("messages per pair"); "" for SN_PARAM_NONE and unknown values.
 * Never NULL. */
const char *sn_param_name(sn_param_t param);

/* A reference to a run parameter inside a message: SN_REF_LINK_FILE (SN_PARAM_REF(LINK_FILE)) is a
 * marker that whoever shows the message replaces with its own name of the parameter
 * (sn_err_expand): the CLI writes the flag ("--link-file"), another front end what it likes, and
 * without a namer the concept ("link file") stands. Written into format strings by concatenation:
 * "cannot read '%s' (" SN_REF_LINK_FILE "): %s". The marker is the parameter's name between the
 * control bytes SN_PARAM_REF_OPEN and SN_PARAM_REF_CLOSE. */
#define SN_PARAM_REF_OPEN  '\x1d'
#define SN_PARAM_REF_CLOSE '\x1e'
#define SN_PARAM_REF(name) "\x1d" #name "\x1e"
/* Each parameter's reference as one word, which reads (and formats) better inside a message. */
#define SN_REF_ROOT          SN_PARAM_REF(ROOT)
#define SN_REF_MSGS          SN_PARAM_REF(MSGS)
#define SN_REF_FRAGS         SN_PARAM_REF(FRAGS)
#define SN_REF_SIZE          SN_PARAM_REF(SIZE)
#define SN_REF_PORT_MODEL    SN_PARAM_REF(PORT_MODEL)
#define SN_REF_RX            SN_PARAM_REF(RX)
#define SN_REF_SOURCES       SN_PARAM_REF(SOURCES)
#define SN_REF_SLOT_LIMIT    SN_PARAM_REF(SLOT_LIMIT)
#define SN_REF_OP            SN_PARAM_REF(OP)
#define SN_REF_MEMORY        SN_PARAM_REF(MEMORY)
#define SN_REF_ALGO          SN_PARAM_REF(ALGO)
#define SN_REF_SYNC          SN_PARAM_REF(SYNC)
#define SN_REF_LINK_FILE     SN_PARAM_REF(LINK_FILE)
#define SN_REF_LISTEN        SN_PARAM_REF(LISTEN)
#define SN_REF_PORT_RANGE    SN_PARAM_REF(PORT_RANGE)
#define SN_REF_READY_TIMEOUT SN_PARAM_REF(READY_TIMEOUT)
#define SN_REF_COORD_NICE    SN_PARAM_REF(COORD_NICE)
#define SN_REF_NODES         SN_PARAM_REF(NODES)
#define SN_REF_NODE_BIN      SN_PARAM_REF(NODE_BIN)
#define SN_REF_HOSTS         SN_PARAM_REF(HOSTS)
#define SN_REF_MAP_BY        SN_PARAM_REF(MAP_BY)
#define SN_REF_SSH           SN_PARAM_REF(SSH)
#define SN_REF_REMOTE_NODE   SN_PARAM_REF(REMOTE_NODE)
#define SN_REF_KEY           SN_PARAM_REF(KEY)
#define SN_REF_NODE_ID       SN_PARAM_REF(NODE_ID)
#define SN_REF_NODE_JOIN     SN_PARAM_REF(NODE_JOIN)
#define SN_REF_DAEMON        SN_PARAM_REF(DAEMON)
#define SN_REF_DAEMON_LISTEN SN_PARAM_REF(DAEMON_LISTEN)

/* A front end's name for a parameter (the CLI's flag), or NULL to leave the concept name. */
typedef const char *(*sn_param_namer_t)(sn_param_t param);

/* Copies `msg` into buf (at most cap bytes, always NUL-terminated when cap > 0) with every
 * SN_PARAM_REF marker replaced by name(param), or by the concept name when `name` is NULL or
 * returns NULL. A marker that names no parameter, or is not closed, is copied as it is. Returns
 * buf. Pure. */
const char *sn_err_expand(const char *msg, sn_param_namer_t name, char *buf, size_t cap);

/* A detailed error: the code, the run parameter it is about (SN_PARAM_NONE if none) and one line
 * that names the bad value or the failing node, slot and link. Functions that can fail in ways a
 * user must understand take an `sn_err_t *` (may be NULL when the caller only wants the code). */
typedef struct sn_err_s {
    int code;
    sn_param_t param;
    char msg[320];
} sn_err_t;

/* Records `code` and a printf-style message in `err` (if not NULL) and returns `code`, so that
 * callers can write `return sn_err_set(err, SN_EINVAL, "...", ...)`. A second call overwrites
 * (param becomes SN_PARAM_NONE). */
int sn_err_set(sn_err_t *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* sn_err_set with SN_EINVAL: bad input, with a message naming the value and what is accepted. */
#define sn_err_inval(err, ...) sn_err_set((err), SN_EINVAL, __VA_ARGS__)

/* The same for an error about one run parameter: records `param` too. */
int sn_err_set_param(sn_err_t *err, int code, sn_param_t param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The message for a code ("port model violation"); for codes outside our table, "unknown error".
 * Never NULL. */
const char *sn_strerror(int code);

/* The name of a code ("SN_EPORT"); "SN_UNKNOWN" outside our table. Never NULL. */
const char *sn_err_name(int code);

#endif
