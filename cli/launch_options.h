/* The launchers' option values of `stepnet run` and `stepnet bench` (cli): --nodes ADDR,ADDR,...
 * (persistent daemons), --port-range LO-HI and --map-by slot|node. Parsing a command-line value is
 * the command line's job: the engine and its launchers get these values checked (coord.h) and
 * never spell a flag. */
#ifndef STEPNET_CLI_LAUNCH_OPTIONS_H
#define STEPNET_CLI_LAUNCH_OPTIONS_H

#include "coordinator/coord.h"
#include "stepnet/error.h"

/* Checks --nodes ADDR,ADDR,...: every comma-separated item a daemon address HOST:PORT with a
 * port from 1 to 65535. 0, or SN_EINVAL with err naming the value and what is accepted. */
int cli_daemons_check(const char *list, sn_err_t *err);

/* The control address a daemon run listens on when --listen is not given: the local address
 * that routes to the daemons of `list` (checked by cli_daemons_check), as "ADDR:0" into buf, so
 * that the coordinator listens where its nodes will dial and nowhere else (127.0.0.1 for
 * daemons on this machine). 0; or SN_EINVAL naming the daemons when they are reached from
 * different local addresses (then --listen 0.0.0.0:0 or an address they all reach is needed), or
 * a host that does not resolve. */
int cli_daemons_listen(const char *list, char *buf, size_t cap, sn_err_t *err);

/* --port-range LO-HI into o->port_lo and o->port_hi; refused beside an o->listen that names a
 * port (both would choose the control port). 0, or SN_EINVAL with err naming the value. */
int cli_port_range_parse(const char *text, sn_coord_opts_t *o, sn_err_t *err);

/* --map-by slot|node into *out (SN_MAP_BY_SLOT or SN_MAP_BY_NODE, launch/hostfile.h). 0, or
 * SN_EINVAL with err naming the value. */
int cli_map_by_parse(const char *text, int *out, sn_err_t *err);

#endif
