/* Error names for the runtime (net/): stepnet's codes and libuv's in one code space. */
#ifndef STEPNET_NET_ERRORS_H
#define STEPNET_NET_ERRORS_H

#include "stepnet/error.h"

/* The message of any code: stepnet's own (sn_strerror) or libuv's (uv_strerror). Never NULL. */
const char *sn_net_strerror(int code);

/* The name of any code: "SN_EPORT" for stepnet's own, "ECONNREFUSED" for libuv's. Never NULL. */
const char *sn_net_err_name(int code);

#endif
