/* The stepnet error table (core/util): names and messages of the SN_E* codes, and sn_err_set. */
#include <stdarg.h>
#include <stdio.h>

#include "stepnet/error.h"

int sn_err_set(sn_err_t *err, int code, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
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
