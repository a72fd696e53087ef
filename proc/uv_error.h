/* Error names for the runtime (proc/): stepnet's codes and libuv's in one code space. */
#ifndef STEPNET_PROC_UV_ERROR_H
#define STEPNET_PROC_UV_ERROR_H

#include "stepnet/error.h"

/* The message of any code: stepnet's own (sn_strerror) or libuv's (uv_strerror). Never NULL. */
const char *sn_uv_error_text(int code);

/* The name of any code: "SN_EPORT" for stepnet's own, "ECONNREFUSED" for libuv's. Never NULL. */
const char *sn_uv_error_name(int code);

#endif
