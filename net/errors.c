/* Error names for the runtime (net/): one code space for stepnet's own codes and the libuv codes
 * that pass through it (include/stepnet/error.h), so that no caller tests a numeric boundary. */
#include <uv.h>

#include "errors.h"

const char *sn_net_strerror(int code)
{
    return sn_err_is_own(code) || code == 0 ? sn_strerror(code) : uv_strerror(code);
}

const char *sn_net_err_name(int code)
{
    return sn_err_is_own(code) || code == 0 ? sn_err_name(code) : uv_err_name(code);
}
