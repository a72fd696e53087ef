/* stepnet-node (node/): one node of the emulated network. One libuv loop, one listening socket,
 * one TCP connection per virtual link, the coordinator's control connection, and the core
 * algorithm state machine run slot by slot behind the slot barrier (docs/runtime.md). */
#ifndef STEPNET_NODE_NODE_H
#define STEPNET_NODE_NODE_H

#include <stdint.h>

#include "net/addr.h"
#include "net/secure.h"
#include "stepnet/error.h"

typedef struct sn_node_opts_s {
    const char *coordinator; /* HOST:PORT of the coordinator's control listener */
    const char *listen_host; /* where to listen for links (default: the coordinator's host
                              * local, else the address towards the coordinator, or with
                              * --advertise 0.0.0.0 or :: by its family) */
    const char *advertise;   /* data host to announce (default: the control socket's address) */
    int32_t want_id;         /* local mode: the id the coordinator assigned on the command line */
    int local;               /* spawned by a local coordinator: die with it */
    uint32_t connect_ms;     /* deadline for reaching the coordinator */
    int quiet;               /* log failures only, not routine events */
    int security;            /* SN_SEC_SODIUM (default) or SN_SEC_NONE */
    const sn_key_t *key;     /* the cluster key (SN_SEC_SODIUM) */
    int stdin_session;       /* started over ssh: leave when standard input closes */
    uint32_t wire_version;   /* testing: the protocol version the hello announces; 0: ours */
    /* deployment (docs/deploy.md): --port-range LO-HI of the link listener (0: none); --serve
     * (a persistent daemon, daemon.c) with its control address --listen HOST:PORT, the executable
     * it starts one node process of per run, and --key FILE's path (handed to each node);
     * --serve's --log-file and --pid-file (daemon_files.h; NULL: none) */
    uint16_t port_lo, port_hi;
    int serve;
    const char *serve_listen;
    const char *node_bin;
    const char *log_file, *pid_file;
    /* names the parameters that the coordinator's messages refer to (SN_PARAM_REF), as this
     * program's options spell them; NULL: their concept names */
    sn_param_namer_t name_param;
} sn_node_opts_t;

/* Runs the node until the coordinator stops it. Returns the process exit status: 0 after a clean
 * stop, 1 after a failure (logged on stderr). */
int sn_node_main(const sn_node_opts_t *o);

/* Runs a persistent daemon (stepnet-node --serve, daemon.c) until SIGINT or SIGTERM: listens on
 * o->serve_listen, and for every authenticated invitation of a coordinator (stepnet run --nodes
 * ADDR,...) starts one node process that joins that coordinator. Returns the exit status: 0 after
 * a signal, 1 when it cannot listen. */
int sn_node_serve(const sn_node_opts_t *o);

/* Parses a host for --listen or --advertise: a host name, an IPv4 address, an IPv6 address with
 * or without brackets, optionally followed by :PORT (port 0 when absent). 0, or SN_EINVAL with
 * err naming the value and the accepted forms. Resolves nothing. */
int sn_node_parse_host(const char *text, sn_addr_t *out, sn_err_t *err);

#endif
