/* The launchers of the run engine (launch/): how a run's node processes come to be. A launcher is
 * a table of operations with state of its own, as a bootstrap server is in hydra
 * (HYDT_bsci_fns) and a transport in nng (nni_sp_tran): local.c spawns one stepnet-node per node
 * on this machine, join.c waits for nodes started by someone else, ssh.c starts them over ssh on
 * the hosts (placed by hostfile.c), daemons.c invites persistent `stepnet-node --serve` daemons.
 * sn_launchers[] (launcher.c) has one row per launcher. The engine (coordinator/) picks one row
 * per run, hands it a context (sn_launch_ctx_t: what the launcher may read, and the callbacks
 * through which it reports its nodes) and keeps nothing of it but the row and the state
 * pointer. This header is the whole of what the engine knows of its launchers. */
#ifndef STEPNET_LAUNCH_LAUNCHER_H
#define STEPNET_LAUNCH_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "net/conn.h"
#include "proc/log.h"
#include "stepnet/error.h"

/* The ready deadline's default (docs/runtime.md, "The ready deadline"): SN_LAUNCH_READY_BASE_MS
 * for what every run does before its first repetition (links, calibration, clocks), plus each
 * launcher's share per node for starting it (sn_launcher_ops_t.ready_node_ms):
 * SN_LAUNCH_READY_SSH_MS for an ssh session (authentication, a remote shell and process, all
 * sessions at once on the coordinator's CPU), SN_LAUNCH_READY_NODE_MS for any other process. */
#define SN_LAUNCH_READY_BASE_MS 30000u
#define SN_LAUNCH_READY_NODE_MS 20u
#define SN_LAUNCH_READY_SSH_MS  2000u
/* The longest default: one day, the largest --ready-timeout-ms. */
#define SN_LAUNCH_READY_MAX_MS 86400000u

/* The most nodes of a launcher that starts one process per node on this machine (local; ssh, whose
 * clients run here). */
#define SN_LAUNCH_MAX_PROCESSES 4096

/* The control listener's address when the run names none, for the launchers whose nodes run here
 * or are told where to dial (daemons' nodes dial back from elsewhere: daemons.c). */
#define SN_LAUNCH_DEFAULT_LISTEN "127.0.0.1:0"

/* The room for where a node runs, as late writes it (an ssh host `user@name:port`, a daemon's or
 * a joined node's address), with its terminating NUL. */
#define SN_LAUNCH_HOST_TEXT 336

/* The longest reason a launcher gives the engine (died, failed), with its terminating NUL: at
 * least as long as the engine's report text, which keeps its start. */
#define SN_LAUNCH_WHY_TEXT 1024

/* What the launchers read of the run's settings. The engine copies them from its options
 * (coordinator/coord.h's sn_coord_opts_t, whose fields of the same names say more). */
typedef struct sn_launch_opts_s {
    int join;                /* the nodes are started by someone else and dial in */
    const char *hosts;       /* ssh: a hostfile or a host[:slots],... list, as given; NULL: none */
    int map_by;              /* ssh: SN_MAP_BY_SLOT or SN_MAP_BY_NODE (hostfile.h) */
    const char *remote_node; /* ssh: stepnet-node on the hosts; NULL: on their PATH */
    const char *ssh;         /* ssh: the ssh command; NULL: $STEPNET_SSH, else "ssh" */
    const char *daemons;     /* daemons: HOST:PORT,HOST:PORT,... (one per node); NULL: none */
    const char *node_bin;    /* local: stepnet-node; NULL: $STEPNET_NODE, else next to us */
    uint16_t port_lo, port_hi; /* the nodes' link listeners' port range (0: any port) */
    uint32_t connect_ms;       /* the nodes', ssh's and an invitation's connection deadline */
    int verbose;               /* the nodes log routine events */
} sn_launch_opts_t;

/* What the engine hands its launcher for one run. It outlives the launcher's state, and changes
 * only once: listen_addr's text and listen_port are set before start. Every pointer is the
 * engine's. */
typedef struct sn_launch_ctx_s {
    sn_launch_opts_t o;
    const char *topo; /* the topology's spec, for messages */
    uint32_t n;       /* nodes, ids 0 to n - 1 */
    uv_loop_t *loop;  /* the run's loop: initialised before start, not yet in check and prepare */
    sn_log_t *log;    /* the engine's log (role coord): the launcher's lines go there */
    const sn_conn_sec_cfg_t *sec; /* the security mode and the cluster key the nodes get */
    /* the control listener: the address nodes dial (as text) and its port */
    const char *listen_addr;
    uint16_t listen_port;
    /* The engine's callbacks, each given `engine`. Call them on the loop's thread, from start on
     * (never from check or prepare); `why` is at most SN_LAUNCH_WHY_TEXT - 1 characters, borrowed
     * for the call. */
    void *engine;
    /* Node `node` is started, as the launcher learnt after start returned (its ssh session is
     * up, its daemon replied); the nodes that start itself started are counted by
     * sn_launcher_ops_t.started instead. */
    void (*started)(void *engine, uint32_t node);
    /* Node `node`'s process ended before the run did, `why` saying how ("node 3 (pid 42) was
     * killed by signal 9 (Killed)"): the engine files it for blame, or ignores it when the run is
     * ending. */
    void (*died)(void *engine, uint32_t node, const char *why);
    /* The launch itself cannot go on (a daemon unreachable or refusing), `why` saying so: the run
     * ends at once (ignored when it is ending already). */
    void (*failed)(void *engine, const char *why);
    /* A process the launcher started ended, whatever the cause (after died, when that was
     * called): once the run has ended and no process runs, the engine closes its handles. */
    void (*exited)(void *engine);
} sn_launch_ctx_t;

/* A node's hello, as the engine tells its launcher (hello). */
typedef struct sn_launch_hello_s {
    uint32_t id;
    const char *host;     /* the data host it announced */
    uint32_t port, pid;   /* its data port and process id */
    const char *hostname; /* its host's name; NULL: not said */
    uint32_t joined;      /* the nodes that have said hello, this one included */
} sn_launch_hello_t;

/* One launcher. The members without "optional" are set in every row (tests/unit/test_launcher.c
 * checks it). `state` is what prepare made; the engine never looks inside. The engine calls check
 * and prepare once each, then start at most once (a run that fails before its launch starts
 * nothing), started, hello, late and hosts after start, running, kill and close whenever the run
 * ends (start called or not), and free last, once the loop is closed. All on the loop's
 * thread. */
typedef struct sn_launcher_ops_s {
    /* Its name, as reports and progress lines give it: local, join, ssh, daemons. */
    const char *name;
    /* The ready deadline's share per node in milliseconds (sn_launch_ready_default_ms). */
    uint32_t ready_node_ms;
    /* The control listener's address when the run names none. */
    const char *listen;
    /* 1: nodes may join without an id, and the coordinator gives each the lowest free one in the
     * order they join (--nodes join); 0: every node claims the id its launcher gave it, and a hello
     * without one is refused. */
    int ids_at_join;
    /* 1: every node runs on this machine, on the coordinator's clock (local): no clock offsets to
     * estimate, and the machine's load average is the nodes'. */
    int one_clock;

    /* Optional. Checks what the launcher cannot do with these settings (too many nodes for one
     * process each), while the engine prepares the run: before it reads the key or calls prepare.
     * 0, or SN_EINVAL with err naming the cause. */
    int (*check)(const sn_launch_ctx_t *ctx, sn_err_t *err);
    /* Allocates the launcher's state and its per-node records into *state, reads what it needs
     * beforehand (a hostfile, and the placement of the nodes on its hosts) and keeps ctx, which
     * outlives the state. 0, or a negative code with err naming the bad setting (a hostfile line,
     * a daemon list that does not give one daemon per node), *state then NULL. */
    int (*prepare)(const sn_launch_ctx_t *ctx, void **state, sn_err_t *err);
    /* Starts the nodes, each to dial ctx->listen_addr with the cluster key of ctx->sec: spawns
     * them, opens their ssh sessions, invites their daemons, or says where to join. 0, or a
     * negative code with err naming the program that could not start; the nodes started before a
     * failure keep running until the run ends them. A node's own failure comes later, through
     * ctx->died or ctx->failed. */
    int (*start)(void *state, sn_err_t *err);
    /* Optional. The nodes started so far, as the launcher knows: processes spawned, remote nodes
     * that answered over ssh, daemons that replied. NULL: the launcher starts nothing (join), so
     * a run has no launch phase before its hellos. */
    uint32_t (*started)(const void *state);
    /* Optional. Node h->id said hello (before the engine assigns anything). */
    void (*hello)(void *state, const sn_launch_hello_t *h);
    /* For the ready deadline's message: where node `node` runs as its launcher knows it into
     * host[cap] (cap: SN_LAUNCH_HOST_TEXT; a hostfile entry, a daemon's address, the data host it
     * announced; "" for a local node), and, while it has not said hello, what its launch is still
     * doing ("ssh session still starting", "process started but no hello", ...); NULL once it has.
     * `hello_host` is the data host it announced in its hello, NULL while it has not said hello. */
    const char *(*late)(const void *state, uint32_t node, const char *hello_host, char *host,
                        size_t cap);
    /* Optional. The hosts that were given nodes, when the launcher placed them (ssh); NULL: not
     * known (the engine then counts the host names of the hellos). */
    uint32_t (*hosts)(const void *state);
    /* Optional. 1 while the process the launcher started for node `node` runs (local: the node;
     * ssh: its ssh client), 0 before it started and after it ended. NULL: the launcher runs no
     * process of its own (join, daemons). */
    int (*running)(const void *state, uint32_t node);
    /* Optional (with running). Kills every process still running (SIGKILL): the grace period after
     * the run's end is over. Their exits come through ctx->exited. */
    void (*kill)(void *state);
    /* Optional. Closes the launcher's handles (processes that have exited, pipes, connections);
     * called once the run has ended and no process runs, perhaps more than once. */
    void (*close)(void *state);
    /* Frees the state, after the loop closed every handle. */
    void (*free)(void *state);
} sn_launcher_ops_t;

/* Every launcher, one row each, in the order sn_launcher_of prefers them; and their count. */
extern const sn_launcher_ops_t *const sn_launchers[];
extern const size_t sn_nlaunchers;

/* The launcher that settings `o` ask for: ssh with hosts, daemons with a daemon list, join with
 * join, else local. The same row for the same settings; pure. */
const sn_launcher_ops_t *sn_launcher_of(const sn_launch_opts_t *o);

/* The ready deadline's default in milliseconds for `nodes` nodes started by `l`:
 * SN_LAUNCH_READY_BASE_MS plus l->ready_node_ms per node, at most SN_LAUNCH_READY_MAX_MS. Pure;
 * an explicit --ready-timeout-ms replaces it. */
uint32_t sn_launch_ready_default_ms(const sn_launcher_ops_t *l, uint32_t nodes);

/* --nodes HOST:PORT*N: N nodes on one daemon. The count after '*' (len bytes at text) into
 * *times: 0, or SN_EINVAL unless it is a decimal from 1 to SN_LAUNCH_DAEMON_TIMES_MAX. */
#define SN_LAUNCH_DAEMON_TIMES_MAX 256u /* a daemon's node processes at once (node/daemon.c) */
int sn_launch_daemon_times(const char *text, size_t len, uint32_t *times);

#endif
