/* The stepnet error table (core/util): names and messages of the SN_E* codes, the concept names of
 * the run parameters an error can be about, and sn_err_set. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stepnet/error.h"

static void set(sn_err_t *err, int code, sn_param_t param, const char *fmt, va_list ap)
{
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    err->code = code;
    err->param = param;
}

int sn_err_set(sn_err_t *err, int code, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        set(err, code, SN_PARAM_NONE, fmt, ap);
        va_end(ap);
    }
    return code;
}

int sn_err_set_param(sn_err_t *err, int code, sn_param_t param, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        set(err, code, param, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *sn_param_name(sn_param_t param)
{
    switch (param) {
#define SN_PARAM_CONCEPT(name, concept)                                                            \
    case SN_PARAM_##name:                                                                          \
        return concept                                                                             \
        ;
        SN_PARAM_MAP(SN_PARAM_CONCEPT)
#undef SN_PARAM_CONCEPT
    default:
        return "";
    }
}

/* The parameter whose name is the `len` bytes at s, or SN_PARAM_COUNT. */
static sn_param_t param_of(const char *s, size_t len)
{
    static const char *const names[SN_PARAM_COUNT] = {
#define SN_PARAM_IDNAME(name, concept) #name,
        SN_PARAM_MAP(SN_PARAM_IDNAME)
#undef SN_PARAM_IDNAME
    };
    for (int p = 1; p < SN_PARAM_COUNT; p++)
        if (strlen(names[p]) == len && memcmp(names[p], s, len) == 0)
            return (sn_param_t) p;
    return SN_PARAM_COUNT;
}

const char *sn_err_expand(const char *msg, sn_param_namer_t name, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    size_t o = 0;
    while (*msg && o + 1 < cap) {
        const char *close = *msg == SN_PARAM_REF_OPEN ? strchr(msg + 1, SN_PARAM_REF_CLOSE) : NULL;
        sn_param_t p = close ? param_of(msg + 1, (size_t) (close - msg - 1)) : SN_PARAM_COUNT;
        if (p == SN_PARAM_COUNT) {
            buf[o++] = *msg++;
            continue;
        }
        const char *text = name ? name(p) : NULL;
        if (text == NULL)
            text = sn_param_name(p);
        size_t len = strlen(text);
        if (len > cap - 1 - o)
            len = cap - 1 - o;
        memcpy(buf + o, text, len);
        o += len;
        msg = close + 1;
    }
    buf[o] = '\0';
    return buf;
}

const char *sn_strerror(int code)
{
    switch (code) {
#define SN_ERR_MSG(name, value, msg)                                                               \
    case value:                                                                                    \
        return msg;
        SN_ERRNO_MAP(SN_ERR_MSG)
#undef SN_ERR_MSG
    case 0:
        return "success";
    default:
        return "unknown error";
    }
}

const char *sn_err_name(int code)
{
    switch (code) {
#define SN_ERR_NAME(name, value, msg)                                                              \
    case value:                                                                                    \
        return "SN_" #name;
        SN_ERRNO_MAP(SN_ERR_NAME)
#undef SN_ERR_NAME
    case 0:
        return "SN_OK";
    default:
        return "SN_UNKNOWN";
    }
}
