/* Error names for the runtime (proc/): one code space for stepnet's own codes and the libuv codes
 * that pass through it (include/stepnet/error.h), so that no caller tests a numeric boundary. */
#include <uv.h>

#include "proc/uv_error.h"

const char *sn_uv_error_text(int code)
{
    return sn_err_is_own(code) || code == 0 ? sn_strerror(code) : uv_strerror(code);
}

const char *sn_uv_error_name(int code)
{
    return sn_err_is_own(code) || code == 0 ? sn_err_name(code) : uv_err_name(code);
}
