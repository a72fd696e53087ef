/* The launchers of the run engine (launch/): how a run's node processes come to be. local.c
 * spawns one stepnet-node per node on this machine, ssh.c starts them over ssh on the --hosts
 * (placed by hostfile.c), daemons.c invites persistent `stepnet-node --serve` daemons. Each is
 * called by the engine (coordinator/coord.c) with the run's state, and reports a node's failure
 * through the engine's blame (sn__coord_report). */
#ifndef STEPNET_LAUNCH_H
#define STEPNET_LAUNCH_H

#include "coordinator/coord.h"
#include "stepnet/error.h"

typedef struct sn_coord_s sn_coord_t;
struct sn_coord_node_s;                             /* coord_internal.h: one node of the run */
typedef struct sn_coord_daemon_s sn_coord_daemon_t; /* daemons.c: one --nodes daemon's invitation */

/* local.c: starts one stepnet-node per topology node, each dialling r->listen_addr, the key on
 * a pipe. 0, or a negative code with err naming the executable or the pipe; the nodes started
 * before the failure keep running until the run ends them. */
int sn__launch_local(sn_coord_t *r, sn_err_t *err);
/* ssh.c: --hosts: reads and places the hosts (r->hosts, every node's host) and splits the
 * ssh command. 0, or SN_EINVAL with err naming the bad hostfile line, entry or slot count. */
int sn__launch_hosts_prepare(sn_coord_t *r, sn_err_t *err);
/* ssh.c: prints the placement and starts one ssh client per node, each running the remote
 * stepnet-node with the node's --id and the key on its standard input. 0, or a negative code with
 * err naming the ssh program; a host's own failure is reported when its ssh exits. */
int sn__launch_ssh(sn_coord_t *r, sn_err_t *err);
/* ssh.c: closes the ssh pipes of every node (once its ssh has exited). */
void sn__launch_ssh_close(sn_coord_t *r);

/* How a run's nodes come to be (coord.h's options say which). */
typedef enum {
    SN_LAUNCH_LOCAL,   /* one process per node on this machine (the default) */
    SN_LAUNCH_JOIN,    /* --nodes join: started by someone else, they dial the coordinator */
    SN_LAUNCH_SSH,     /* --hosts: one ssh session per node */
    SN_LAUNCH_DAEMONS, /* --nodes ADDR,...: persistent daemons start them */
} sn_launch_mode_t;

/* The ready deadline's default (docs/runtime.md, "The ready deadline"): SN_LAUNCH_READY_BASE_MS
 * for what every run does before its first repetition (links, calibration, clocks), plus a share
 * per node for starting it: SN_LAUNCH_READY_SSH_MS for an ssh session (authentication, a remote
 * shell and process, all sessions at once on the coordinator's CPU), SN_LAUNCH_READY_NODE_MS for
 * any other process. */
#define SN_LAUNCH_READY_BASE_MS 30000u
#define SN_LAUNCH_READY_NODE_MS 20u
#define SN_LAUNCH_READY_SSH_MS  2000u
/* The longest default: one day, the largest --ready-timeout-ms. */
#define SN_LAUNCH_READY_MAX_MS 86400000u

/* ready.c: the launch mode of the options `o` (--hosts, --nodes ADDR,..., --nodes join, local).
 * Pure. */
sn_launch_mode_t sn_launch_mode_of(const sn_coord_opts_t *o);
/* ready.c: the launch mode's name, as reports and progress lines give it: local, join, ssh,
 * daemons. */
const char *sn_launch_mode_name(sn_launch_mode_t mode);
/* ready.c: the nodes started so far, as their launcher knows: local processes spawned, remote
 * nodes that answered over ssh, daemons that replied with their node, nodes joined. */
uint32_t sn__launch_started(const sn_coord_t *r);
/* ready.c: the ready deadline's default in milliseconds for `nodes` nodes launched by `mode`:
 * SN_LAUNCH_READY_BASE_MS plus the per-node share of the mode, at most SN_LAUNCH_READY_MAX_MS.
 * Pure; an explicit --ready-timeout-ms replaces it. */
uint32_t sn_launch_ready_default_ms(sn_launch_mode_t mode, uint32_t nodes);
/* ready.c: for the ready deadline's message: where node `cn` runs as its launcher knows it into
 * host (a hostfile entry, a daemon's address, or the data host it announced; "" for local
 * nodes), and, while it has not said hello, what its launch is still doing ("ssh session still
 * starting", "process started but no hello", ...); NULL once it has. */
const char *sn__launch_late(const sn_coord_t *r, const struct sn_coord_node_s *cn, char *host,
                            size_t cap);
/* ssh.c and daemons.c: the same for a node started over ssh, or by a daemon. */
const char *sn__launch_ssh_late(const sn_coord_t *r, const struct sn_coord_node_s *cn, char *host,
                                size_t cap);
const char *sn__launch_daemons_late(const sn_coord_t *r, const struct sn_coord_node_s *cn,
                                    char *host, size_t cap);

/* local.c: the stepnet-node to start: $STEPNET_NODE, else the one next to this executable. */
const char *sn__launch_node_bin(char *buf, size_t cap);

/* daemons.c: parses --nodes ADDR,... into r->daemons (SN_EINVAL unless one daemon per node);
 * invites every daemon once the control listener is up (a failure ends the run, naming the
 * daemon); closes the invitations still open (from sn__coord_close_all). */
int sn__launch_daemons_new(sn_coord_t *r, sn_err_t *err);
void sn__launch_daemons_invite(sn_coord_t *r);
void sn__launch_daemons_close(sn_coord_t *r);

#endif
