/* What the launchers of launch/ share (launch): their rows of sn_launchers[] (launcher.c), the
 * one builder of stepnet-node's command line (node_cmd.c), and the check of the launchers that
 * start one process per node here. Not for the engine: it uses launcher.h. */
#ifndef STEPNET_LAUNCH_LAUNCH_INTERNAL_H
#define STEPNET_LAUNCH_LAUNCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "launch/launcher.h"
#include "stepnet/error.h"

/* The rows of sn_launchers[]: local.c, join.c, ssh.c, daemons.c. */
extern const sn_launcher_ops_t sn__launch_local;
extern const sn_launcher_ops_t sn__launch_join;
extern const sn_launcher_ops_t sn__launch_ssh;
extern const sn_launcher_ops_t sn__launch_daemons;

/* launcher.c: the check of local and ssh, which start one process per node on this machine: at
 * most SN_LAUNCH_MAX_PROCESSES nodes. 0, or SN_EINVAL with err naming the topology. */
int sn__launch_check_processes(const sn_launch_ctx_t *ctx, sn_err_t *err);

/* ---- stepnet-node's command line (node_cmd.c) ------------------------------------------------ */

/* How a launcher starts its nodes: as children of this coordinator, which dial it and never
 * outlive it (local), or over a remote shell, which dial it and leave when their standard input
 * closes, the key on that input (remote: ssh). */
typedef enum { SN_NODE_CMD_LOCAL, SN_NODE_CMD_REMOTE } sn_node_cmd_form_t;

/* What one node's command line says. */
typedef struct sn_node_cmd_s {
    sn_node_cmd_form_t form;
    const char *coordinator;   /* the control listener, as the node dials it (borrowed) */
    uint32_t id;               /* the node's id */
    int insecure;              /* plaintext frames (the run's security mode none) */
    int quiet;                 /* no routine logs (the run is not verbose) */
    uint16_t port_lo, port_hi; /* the link listener's port range; 0: any port */
    uint32_t connect_ms;       /* remote: the deadline of its connections */
} sn_node_cmd_t;

/* The options of one node's command line, without the program, NULL-terminated in words; the
 * words point into the command's coordinator and the buffers here. quote[i]: word i is a value
 * from the run's settings (an address), which a shell must get quoted. */
#define SN_NODE_CMD_MAX_WORDS 16
typedef struct sn_node_argv_s {
    const char *words[SN_NODE_CMD_MAX_WORDS + 1];
    unsigned char quote[SN_NODE_CMD_MAX_WORDS];
    size_t n;
    char id[16], range[16], ms[16];
} sn_node_argv_t;

/* The options of stepnet-node for command c into *out (for a spawn: proc/spawn.h). Pure. */
void sn__launch_node_args(const sn_node_cmd_t *c, sn_node_argv_t *out);

/* The remote shell's command for command c into buf[cap]: `exec 'PROGRAM' OPTIONS...`, program
 * and every value of the settings in single quotes (neither may hold one: the options check
 * that), exec so that the node replaces the shell and the session is the node's. 0, or SN_EINVAL
 * when it does not fit (buf then holds its start). Pure. */
int sn__launch_node_shell(const sn_node_cmd_t *c, const char *program, char *buf, size_t cap);

#endif
