/* The stepnet error table (core/util): names and messages of the SN_E* codes, the concept names of
 * the run parameters an error can be about, and sn_err_set. */
#include <stdarg.h>
#include <stdio.h>

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
