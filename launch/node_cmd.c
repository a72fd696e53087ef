/* stepnet-node's command line (launch): the one place where the launchers spell the node's
 * options, for a node spawned here (local.c) and for one started by a remote shell (ssh.c). A
 * daemon's children get theirs from the daemon (node/daemon.c), in stepnet-node itself. */
#include <stdio.h>
#include <string.h>

#include "launch/launch_internal.h"

static void add(sn_node_argv_t *out, const char *word, int quote)
{
    out->quote[out->n] = (unsigned char) quote;
    out->words[out->n++] = word;
}

void sn__launch_node_args(const sn_node_cmd_t *c, sn_node_argv_t *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%u", c->id);
    snprintf(out->range, sizeof out->range, "%u-%u", c->port_lo, c->port_hi);
    snprintf(out->ms, sizeof out->ms, "%u", c->connect_ms);
    if (c->form == SN_NODE_CMD_LOCAL) {
        /* a child of this coordinator: it never outlives it */
        add(out, "--coordinator", 0);
        add(out, c->coordinator, 1);
        add(out, "--id", 0);
        add(out, out->id, 0);
        add(out, "--local", 0);
        if (c->insecure) {
            add(out, "--security", 0);
            add(out, "none", 0);
        }
        if (c->quiet)
            add(out, "--quiet", 0);
        if (c->port_lo) {
            add(out, "--port-range", 0);
            add(out, out->range, 0);
        }
    } else {
        /* over a remote shell: the key on its standard input, which stays open for the run */
        add(out, "--join", 0);
        add(out, c->coordinator, 1);
        add(out, "--id", 0);
        add(out, out->id, 0);
        add(out, "--stdin-session", 0);
        add(out, "--connect-timeout-ms", 0);
        add(out, out->ms, 0);
        /* the links in the range as in local runs, so that the hosts' firewalls can be opened
         * for that range instead of every ephemeral port */
        if (c->port_lo) {
            add(out, "--port-range", 0);
            add(out, out->range, 0);
        }
        if (c->quiet)
            add(out, "--quiet", 0);
        if (c->insecure) {
            add(out, "--security", 0);
            add(out, "none", 0);
            add(out, "--insecure-ok", 0);
        }
    }
    out->words[out->n] = NULL;
}

int sn__launch_node_shell(const sn_node_cmd_t *c, const char *program, char *buf, size_t cap)
{
    sn_node_argv_t a;
    sn__launch_node_args(c, &a);
    size_t len = 0;
    int w = snprintf(buf, cap, "exec '%s'", program);
    for (size_t i = 0;; i++) {
        if (w < 0 || (size_t) w >= cap - len)
            return SN_EINVAL;
        len += (size_t) w;
        if (i == a.n)
            return 0;
        w = snprintf(buf + len, cap - len, a.quote[i] ? " '%s'" : " %s", a.words[i]);
    }
}
