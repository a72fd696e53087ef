/* The launchers' option values of `stepnet run` and `stepnet bench` (cli): the parsers of
 * --nodes ADDR,ADDR,... (daemon addresses), --port-range and --map-by, whose messages name the
 * flags; run_options.c calls them among its checks (launch_options.h). */
#include "cli/launch_options.h"

#include <string.h>

#include "launch/hostfile.h"
#include "net/addr.h"

/* One item of --nodes ADDR,ADDR,... (len bytes at item): a daemon's address with a port. */
static int check_item(const char *list, const char *item, size_t len, sn_err_t *err)
{
    char buf[SN_ADDR_MAX_TEXT];
    sn_addr_t a;
    sn_err_t e = {0};
    if (len == 0 || len >= sizeof buf)
        return sn_err_inval(
            err,
            "bad value '%s' for --nodes: expected local, join or a comma-separated list "
            "of daemon addresses HOST:PORT (stepnet-node --serve); an item is empty or "
            "too long",
            list);
    memcpy(buf, item, len);
    buf[len] = '\0';
    if (sn_addr_parse(buf, -1, &a, &e) < 0 || a.port == 0)
        return sn_err_inval(
            err,
            "bad value '%s' for --nodes: expected local, join or a comma-separated list "
            "of daemon addresses HOST:PORT (stepnet-node --serve, port 1 to 65535); '%s' "
            "is not one",
            list, buf);
    return 0;
}

int cli_daemons_check(const char *list, sn_err_t *err)
{
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        int rc = check_item(list, p, len, err);
        if (rc < 0)
            return rc;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

int cli_port_range_parse(const char *text, sn_coord_opts_t *o, sn_err_t *err)
{
    sn_err_t e = {0};
    if (sn_addr_parse_range(text, &o->port_lo, &o->port_hi, &e) < 0)
        return sn_err_inval(err,
                            "bad value '%s' for --port-range: expected LO-HI with 1 <= LO <= HI <= "
                            "65535 (e.g. 7000-7099)",
                            text);
    sn_addr_t a;
    if (o->listen && sn_addr_parse(o->listen, -1, &a, &e) == 0 && a.port != 0)
        return sn_err_inval(
            err,
            "--port-range %s and --listen %s both choose the control port: give --listen "
            "HOST:0 to take the first free port of the range",
            text, o->listen);
    return 0;
}

int cli_map_by_parse(const char *text, int *out, sn_err_t *err)
{
    if (strcmp(text, "slot") == 0)
        *out = SN_MAP_BY_SLOT;
    else if (strcmp(text, "node") == 0)
        *out = SN_MAP_BY_NODE;
    else
        return sn_err_inval(err, "bad value '%s' for --map-by: expected slot or node", text);
    return 0;
}
