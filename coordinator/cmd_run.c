/* `stepnet run`: runs a collective over real TCP links between stepnet-node processes
 * (coordinator). By default it spawns one node process per topology node on 127.0.0.1 (port 0, no
 * set-up); with --nodes join it waits for nodes started anywhere with `stepnet-node --join`.
 * It assigns ids and links, waits for every READY, calibrates the links (ping-pong), runs warm-up
 * and measured repetitions, checks every node's result (deliveries, payload digest sums, trace),
 * and reports steps and times next to the prediction. There is no per-slot round trip: nodes
 * detect termination in-band and report once per collective. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "cli.h"
#include "conn.h"
#include "json.h"
#include "report.h"
#include "stepnet/sim.h"
#include "stepnet/util.h"
#include "secure.h"
#include "wire.h"

static const char usage[] =
    "usage: stepnet run --topo SPEC --coll C [options]\n"
    "\n"
    "Runs the collective over real TCP links: one stepnet-node process per node, one TCP\n"
    "connection per link, a libuv slot barrier in every node. Every payload byte is checked at\n"
    "every hop. Reports measured steps (the same as `stepnet sim` gives) and wall times next to\n"
    "the prediction steps * (alpha + size * beta) from a start-up ping-pong on every link.\n"
    "\n" CLI_SHARED_OPTIONS_HELP "  --reps N           measured repetitions (default 5)\n"
    "  --warmup N         unmeasured repetitions first (default 1)\n"
    "  --nodes local|join local: spawn the nodes on 127.0.0.1 (default); join: wait for nodes\n"
    "                     started with `stepnet-node --join HOST:PORT`\n"
    "  --listen ADDR      coordinator address (default 127.0.0.1:0; join mode needs it, e.g.\n"
    "                     0.0.0.0:7000)\n"
    "  --out FILE         also write the JSON report to FILE\n"
    "  --key FILE         the cluster key (stepnet keygen): required in join mode; local runs "
    "make\n"
    "                     a fresh key per run unless this is given\n"
    "  --security MODE    sodium (default: every connection authenticated and encrypted) or none\n"
    "                     (plaintext, for raw measurements; join mode also needs --insecure-ok)\n"
    "  --insecure-ok      accept --security none in join mode\n"
    "  --node-bin PATH    the stepnet-node executable (default: next to stepnet)\n"
    "  --probes N         ping-pong probes per link and size for calibration (default 20; 0 "
    "skips)\n"
    "  --connect-timeout-ms MS    nodes connecting to each other (default 10000)\n"
    "  --ready-timeout-ms MS      every node joined and ready (default 30000)\n"
    "  --slot-timeout-ms MS       one slot without progress (default 5000)\n"
    "  --collective-timeout-ms MS one repetition (default 300000)\n"
    "  --fault ID:KIND@SLOT       testing: node ID kills itself (kill), stops (stop), sends a\n"
    "                             malformed (garbage) or oversized (oversize) frame at SLOT, or\n"
    "                             flips one bit of its next frame on the wire (flip)\n"
    "  --idle-slots N     benchmark: each repetition is N slots of the bare barrier (empty frames\n"
    "                     on every link) instead of the collective; reports us per slot\n"
    "  --token HEX        testing: a fixed run token instead of a random one (every link hello "
    "must\n"
    "                     carry the token)\n"
    "  --verbose          node logs of routine events on stderr\n"
    "\n"
    "Exit status: 0 verified, 1 the collective failed or did not verify, 2 bad input.\n";

typedef enum { PH_JOIN, PH_READY, PH_CALIBRATE, PH_RUN, PH_DONE } phase_t;

typedef struct run_s run_t;

typedef struct cnode_s {
    run_t *run;
    sn_conn_t *conn; /* control connection (NULL until hello, or after it closed) */
    int id;
    int hello, ready, calibrated, complete, result;
    char host[64];
    uint32_t data_port, pid;
    uv_process_t proc;
    int spawned, exited;
    int64_t exit_status;
    int term_signal;
    Stepnet__Result *res; /* of the current repetition */
} cnode_t;

typedef struct pconn_s { /* a control connection (before its hello: node == NULL) */
    sn_conn_t c;
    run_t *run;
    cnode_t *node;
    struct pconn_s *prev, *next; /* every open one, so that the end of the run closes them all */
} pconn_t;

struct run_s {
    uv_loop_t *loop;
    cli_ctx_t *ctx;
    const sn_topo_t *t;
    /* options */
    int64_t reps, warmup, probes, idle;
    int join, verbose, json;
    const char *listen, *out, *node_bin, *fault, *token_hex, *key_file;
    int insecure_ok;
    sn_conn_sec_cfg_t sec;
    sn_key_t *key; /* sodium_malloc'd; the cluster key */
    uint32_t connect_ms, ready_ms, slot_ms, collective_ms;
    /* state */
    phase_t phase;
    uv_tcp_t listener;
    char lhost[64];
    int lport;
    cnode_t *nodes;
    struct pconn_s *pconns;
    uint32_t n, joined, nready, ncal, ncomplete, nresult;
    uint64_t token;
    sn_topo_file_t *files;
    size_t nfiles;
    uv_timer_t deadline, grace, blame_timer;
    uv_signal_t sigint, sigterm;
    /* calibration */
    double *alpha, *beta; /* per link, microseconds and microseconds per byte */
    size_t ncalib, capcalib;
    double alpha_us, beta_us;
    /* repetitions */
    uint32_t cid;
    uint64_t t0, tlast;
    uint64_t *wall_ns;
    size_t nwall;
    uint64_t steps, trace, packets, cpackets, deliveries, expected, control_slots, bytes_checked;
    uint64_t *digest_want; /* per node */
    /* failure: every report of the grace window, then the root cause */
    int failed, stopping, exit_code;
    char error[900];
    int fail_node;
    uint64_t fail_slot;
    struct report_s *reports;
    size_t nreports, capreports;
};

/* A failure report (Abort.kind of proto/stepnet.proto, plus the coordinator's own observations). */
enum {
    REP_SELF = 1,     /* a node's own error */
    REP_LINK = 2,     /* a node's link to `peer` failed */
    REP_PROTO = 3,    /* `peer` sent a malformed frame */
    REP_DEADLINE = 4, /* a node's slot deadline: `missing` were silent */
    REP_CORRUPT = 5,  /* `peer` sent a corrupt payload */
    REP_DEATH = 100,  /* the coordinator saw `node` die or lose its control connection */
    REP_RUN = 101     /* the coordinator's own finding (deadlines, results) */
};

typedef struct report_s {
    int kind, node, peer; /* -1 when not applicable */
    uint64_t slot;
    uint32_t *missing;
    size_t nmissing;
    char text[400];
} report_t;

/* ---- failure and shutdown ------------------------------------------------------------------ */

static void close_all(run_t *r);

static void on_grace(uv_timer_t *t)
{
    run_t *r = t->data;
    for (uint32_t i = 0; i < r->n; i++) {
        cnode_t *cn = &r->nodes[i];
        if (cn->spawned && !cn->exited)
            uv_process_kill(&cn->proc, SIGKILL);
    }
    close_all(r);
}

static int all_exited(const run_t *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].spawned && !r->nodes[i].exited)
            return 0;
    return 1;
}

static void close_handle(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h))
        uv_close(h, NULL);
}

/* Closes everything once the nodes are gone (or after the grace period). */
static void close_all(run_t *r)
{
    if (!all_exited(r))
        return;
    /* the nodes' control connections and any stranger's that is still open (one that never
     * finished its handshake or never said hello must not keep the run alive) */
    for (pconn_t *pc = r->pconns; pc; pc = pc->next)
        sn_conn_close(&pc->c);
    close_handle((uv_handle_t *) &r->listener);
    close_handle((uv_handle_t *) &r->deadline);
    close_handle((uv_handle_t *) &r->grace);
    close_handle((uv_handle_t *) &r->blame_timer);
    close_handle((uv_handle_t *) &r->sigint);
    close_handle((uv_handle_t *) &r->sigterm);
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].spawned)
            close_handle((uv_handle_t *) &r->nodes[i].proc);
}

static void send_all(run_t *r, const Stepnet__Control *m)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].conn)
            sn_wire_send_control(r->nodes[i].conn, m);
}

/* Ends the run: STOP (success) or ABORT (failure) to every node, then waits for local nodes to
 * exit, killing them after a grace period. */
static void blame(run_t *r);

static void finish_run(run_t *r, int failed)
{
    if (r->stopping)
        return;
    failed |= r->failed; /* a failure recorded while the run went on ends it as a failure */
    if (failed && r->nreports > 0 && r->error[0] == '\0')
        blame(r);
    r->stopping = 1;
    r->phase = PH_DONE;
    uv_timer_stop(&r->deadline);
    uv_timer_stop(&r->blame_timer);
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Stop st = STEPNET__STOP__INIT;
    Stepnet__Abort ab = STEPNET__ABORT__INIT;
    if (failed) {
        ab.reason = r->error;
        m.msg_case = STEPNET__CONTROL__MSG_ABORT;
        m.abort = &ab;
    } else {
        m.msg_case = STEPNET__CONTROL__MSG_STOP;
        m.stop = &st;
    }
    send_all(r, &m);
    uv_timer_start(&r->grace, on_grace, failed ? 300 : 5000, 0);
    close_all(r);
}

/* Does report `rp` point at node x (as the peer it blames or among the silent neighbours)? */
static int names(const report_t *rp, int x)
{
    if (rp->peer == x)
        return 1;
    for (size_t i = 0; i < rp->nmissing; i++)
        if ((int) rp->missing[i] == x)
            return 1;
    return 0;
}

/* The root cause among the reports of the grace window. Reports cascade through the links (a
 * killed node's neighbours lose their links, abort and close theirs; stalled nodes fire their
 * slot deadlines together), so the first report is often a consequence. In order: a node that
 * died; a node's own error; the sender of a malformed or corrupt frame; the silent node that the
 * deadline and link reports name most; else the first report. */
static void blame(run_t *r)
{
    const report_t *rp = r->reports;
    size_t n = r->nreports;
    const report_t *cause = NULL;
    int culprit = -1;
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == REP_DEATH)
            cause = &rp[i], culprit = rp[i].node;
    for (size_t i = 0; i < n && !cause; i++)
        if (rp[i].kind == REP_SELF)
            cause = &rp[i], culprit = rp[i].node;
    for (size_t i = 0; i < n && !cause; i++)
        if ((rp[i].kind == REP_PROTO || rp[i].kind == REP_CORRUPT) && rp[i].peer >= 0)
            cause = &rp[i], culprit = rp[i].peer;
    if (!cause) {
        /* the most named node, preferring nodes that sent no report themselves (stopped) */
        int best = -1, best_silent = 0;
        uint32_t best_votes = 0;
        for (uint32_t x = 0; x < r->n; x++) {
            uint32_t votes = 0;
            int reported = 0;
            for (size_t i = 0; i < n; i++) {
                votes += (rp[i].kind == REP_DEADLINE || rp[i].kind == REP_LINK) &&
                         names(&rp[i], (int) x);
                reported |= rp[i].node == (int) x;
            }
            if (votes == 0)
                continue;
            int silent = !reported;
            if (best < 0 || silent > best_silent || (silent == best_silent && votes > best_votes))
                best = (int) x, best_silent = silent, best_votes = votes;
        }
        if (best >= 0) {
            culprit = best;
            for (size_t i = 0; i < n && !cause; i++)
                if ((rp[i].kind == REP_DEADLINE || rp[i].kind == REP_LINK) && names(&rp[i], best))
                    cause = &rp[i];
        }
    }
    if (!cause)
        cause = &rp[0], culprit = rp[0].node;
    /* the slot: the cause's, or the earliest slot of a report that names the culprit */
    uint64_t slot = cause->slot;
    const report_t *witness = NULL;
    for (size_t i = 0; i < n; i++) {
        if (&rp[i] == cause || culprit < 0 || !names(&rp[i], culprit))
            continue;
        if (!witness || (rp[i].slot && rp[i].slot < witness->slot))
            witness = &rp[i];
        if (slot == 0 || (rp[i].slot && rp[i].slot < slot))
            slot = rp[i].slot;
    }
    r->fail_node = culprit;
    r->fail_slot = slot;
    size_t len = 0;
    if (culprit >= 0 && cause->kind != REP_SELF && cause->kind != REP_DEATH)
        len = (size_t) snprintf(r->error, sizeof r->error, "node %d failed%s: ", culprit,
                                cause->kind == REP_PROTO || cause->kind == REP_CORRUPT
                                    ? " (it sent a bad frame)"
                                : cause->kind == REP_DEADLINE ? " (it stopped sending frames)"
                                                              : "");
    len += (size_t) snprintf(r->error + len, sizeof r->error - len, "%s", cause->text);
    if (slot && !strstr(r->error, "slot"))
        len += (size_t) snprintf(r->error + len, sizeof r->error - len, " at slot %llu",
                                 (unsigned long long) slot);
    if (witness && len < sizeof r->error)
        snprintf(r->error + len, sizeof r->error - len, " [%s]", witness->text);
}

static void on_fail_grace(uv_timer_t *t)
{
    run_t *r = t->data;
    blame(r);
    finish_run(r, 1);
}

/* Records a failure report. The first starts a short grace window in which the reports that
 * cascade from it arrive; then blame() picks the root cause and the run ends. */
static void report_failure(run_t *r, int kind, int node, int peer, uint64_t slot,
                           const uint32_t *missing, size_t nmissing, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void report_failure(run_t *r, int kind, int node, int peer, uint64_t slot,
                           const uint32_t *missing, size_t nmissing, const char *fmt, ...)
{
    if (r->stopping)
        return;
    sn_grow((void **) &r->reports, &r->capreports, r->nreports + 1, sizeof *r->reports);
    report_t *rp = &r->reports[r->nreports++];
    memset(rp, 0, sizeof *rp);
    rp->kind = kind;
    rp->node = node;
    rp->peer = peer;
    rp->slot = slot;
    if (nmissing) {
        rp->missing = sn_xmalloc(nmissing * sizeof *rp->missing);
        memcpy(rp->missing, missing, nmissing * sizeof *missing);
        rp->nmissing = nmissing;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rp->text, sizeof rp->text, fmt, ap);
    va_end(ap);
    if (!r->failed) {
        r->failed = 1;
        r->exit_code = EXIT_FAILED;
        uv_timer_stop(&r->deadline);
        uv_timer_start(&r->blame_timer, on_fail_grace, 300, 0);
    }
}

/* The coordinator's own findings (deadlines, results, start-up). */
#define fail(r, node, slot, ...)                                                                   \
    report_failure((r), REP_RUN, (node), -1, (slot), NULL, 0, __VA_ARGS__)

/* ---- calibration and repetitions ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : (x > y);
}

static void start_rep(run_t *r);

static void on_deadline(uv_timer_t *t)
{
    run_t *r = t->data;
    char missing[300] = "";
    size_t len = 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        cnode_t *cn = &r->nodes[i];
        int have = r->phase == PH_JOIN        ? cn->hello
                   : r->phase == PH_READY     ? cn->ready
                   : r->phase == PH_CALIBRATE ? cn->calibrated
                                              : cn->result;
        if (have)
            continue;
        count++;
        if (len < sizeof missing - 16)
            len +=
                (size_t) snprintf(missing + len, sizeof missing - len, "%s%u", len ? "," : "", i);
    }
    const char *what = r->phase == PH_JOIN        ? "ready deadline: nodes joined"
                       : r->phase == PH_READY     ? "ready deadline: nodes ready"
                       : r->phase == PH_CALIBRATE ? "ready deadline: links calibrated"
                                                  : "collective deadline";
    uint32_t ms = r->phase == PH_RUN ? r->collective_ms : r->ready_ms;
    if (r->phase == PH_JOIN && r->join) /* ids are given in join order: none yet for these */
        fail(r, -1, 0, "%s (%u ms) expired: %u of %u nodes missing (%u have joined)", what, ms,
             r->n - r->joined, r->n, r->joined);
    else
        fail(r, -1, 0, "%s (%u ms) expired: %u of %u nodes missing (nodes %s)", what, ms, count,
             r->n, missing);
}

static void after_calibration(run_t *r)
{
    if (r->ncalib > 0) {
        qsort(r->alpha, r->ncalib, sizeof *r->alpha, cmp_double);
        qsort(r->beta, r->ncalib, sizeof *r->beta, cmp_double);
        r->alpha_us = r->alpha[r->ncalib / 2];
        r->beta_us = r->beta[r->ncalib / 2];
    }
    start_rep(r);
}

static void start_rep(run_t *r)
{
    if (r->failed) /* waiting for the grace window to end */
        return;
    if (r->cid >= (uint32_t) (r->warmup + r->reps)) {
        finish_run(r, 0);
        return;
    }
    r->cid++;
    r->phase = PH_RUN;
    r->ncomplete = r->nresult = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        cnode_t *cn = &r->nodes[i];
        cn->complete = cn->result = 0;
        if (cn->res)
            stepnet__result__free_unpacked(cn->res, NULL);
        cn->res = NULL;
    }
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    Stepnet__Start st = STEPNET__START__INIT;
    st.cid = r->cid;
    st.seed = r->ctx->params.seed;
    st.has_idle_slots = r->idle > 0;
    st.idle_slots = (uint64_t) r->idle;
    m.msg_case = STEPNET__CONTROL__MSG_START;
    m.start = &st;
    uv_timer_start(&r->deadline, on_deadline, r->collective_ms, 0);
    r->t0 = uv_hrtime();
    send_all(r, &m);
}

/* Every node reported: aggregates and checks the repetition. */
static void end_rep(run_t *r)
{
    if (r->idle) { /* the idle barrier: the time to the last node's result */
        for (uint32_t i = 0; i < r->n; i++) {
            const Stepnet__Result *res = r->nodes[i].res;
            if (res->error || res->stop_slot != (uint64_t) r->idle) {
                fail(r, (int) i, 0, "node %u: idle barrier stopped at slot %llu of %lld: %s", i,
                     (unsigned long long) res->stop_slot, (long long) r->idle,
                     res->error ? res->error : "wrong stop slot");
                return;
            }
        }
        if (r->cid > (uint32_t) r->warmup)
            r->wall_ns[r->nwall++] = uv_hrtime() - r->t0;
        uv_timer_stop(&r->deadline);
        start_rep(r);
        return;
    }
    uint64_t steps = 0, trace = 0, packets = 0, cpackets = 0, dl = 0, exp = 0, bytes = 0;
    size_t words = 0;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].res->n_data_slots > words)
            words = r->nodes[i].res->n_data_slots;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->nodes[i].res->n_control_slots > words)
            words = r->nodes[i].res->n_control_slots;
    uint64_t *dbits = sn_xcalloc(words + 1, sizeof *dbits);
    uint64_t *cbits = sn_xcalloc(words + 1, sizeof *cbits);
    for (uint32_t i = 0; i < r->n; i++) {
        const Stepnet__Result *res = r->nodes[i].res;
        if (res->error) {
            fail(r, (int) i, res->has_error_slot ? res->error_slot : 0, "node %u: %s", i,
                 res->error);
            goto out;
        }
        sn_expect_t e = sn_coll_expect(r->t, &r->ctx->params, i);
        uint64_t want_exp = e.nsrc * e.per_src;
        if (res->expected != want_exp || res->deliveries != res->expected) {
            fail(r, (int) i, 0, "node %u delivered %llu of %llu packets (expected %llu)", i,
                 (unsigned long long) res->deliveries, (unsigned long long) res->expected,
                 (unsigned long long) want_exp);
            goto out;
        }
        if (res->digest_sum != r->digest_want[i]) {
            fail(r, (int) i, 0,
                 "node %u: the digests of the delivered payloads do not add up to the expected "
                 "sum (%016llx, expected %016llx)",
                 i, (unsigned long long) res->digest_sum, (unsigned long long) r->digest_want[i]);
            goto out;
        }
        if (res->last_send_slot > steps)
            steps = res->last_send_slot;
        trace += res->trace_hash;
        packets += res->data_packets;
        cpackets += res->control_packets;
        dl += res->deliveries;
        exp += res->expected;
        bytes += res->bytes_checked;
        for (size_t w = 0; w < res->n_data_slots; w++)
            dbits[w] |= res->data_slots[w];
        for (size_t w = 0; w < res->n_control_slots; w++)
            cbits[w] |= res->control_slots[w];
    }
    uint64_t cslots = 0;
    for (size_t w = 0; w < words; w++)
        cslots += (uint64_t) __builtin_popcountll(cbits[w] & ~dbits[w]);
    if (r->cid > 1 && (steps != r->steps || trace != r->trace)) {
        fail(r, -1, 0,
             "repetition %u differs from the first: %llu steps (trace %016llx) against %llu "
             "(trace %016llx)",
             r->cid, (unsigned long long) steps, (unsigned long long) trace,
             (unsigned long long) r->steps, (unsigned long long) r->trace);
        goto out;
    }
    r->steps = steps;
    r->trace = trace;
    r->packets = packets;
    r->cpackets = cpackets;
    r->deliveries = dl;
    r->expected = exp;
    r->control_slots = cslots;
    r->bytes_checked = bytes;
    if (r->cid > (uint32_t) r->warmup)
        r->wall_ns[r->nwall++] = r->tlast - r->t0;
    uv_timer_stop(&r->deadline);
    free(dbits);
    free(cbits);
    start_rep(r);
    return;
out:
    free(dbits);
    free(cbits);
}

/* ---- the control protocol ------------------------------------------------------------------ */

static void send_assign(run_t *r, cnode_t *cn)
{
    if (cn->conn == NULL) /* its connection is gone: the failure is already reported */
        return;
    const sn_topo_t *t = r->t;
    const sn_params_t *p = &r->ctx->params;
    uint32_t id = (uint32_t) cn->id, deg = sn_topo_degree(t, id);
    Stepnet__Peer *peers = sn_xcalloc(deg + 1, sizeof *peers);
    Stepnet__Peer **pp = sn_xcalloc(deg + 1, sizeof *pp);
    size_t np = 0;
    for (uint32_t q = 0; q < deg; q++) {
        uint32_t v = sn_topo_port(t, id, q)->peer;
        int dup = 0;
        for (size_t k = 0; k < np; k++)
            dup |= peers[k].node == v;
        if (dup)
            continue;
        stepnet__peer__init(&peers[np]);
        peers[np].node = v;
        peers[np].host = r->nodes[v].host;
        peers[np].port = r->nodes[v].data_port;
        pp[np] = &peers[np];
        np++;
    }
    Stepnet__Assign a = STEPNET__ASSIGN__INIT;
    a.node = id;
    a.nodes = t->n;
    a.topology = (char *) r->ctx->topo->spec;
    if (r->nfiles == 1) {
        a.has_topology_file = 1;
        a.topology_file.data = (uint8_t *) r->files[0].text;
        a.topology_file.len = r->files[0].len;
    }
    a.n_peers = np;
    a.peers = pp;
    a.token = r->token;
    a.collective = (char *) sn_coll_name(p->coll);
    a.algorithm = (char *) r->ctx->algo->name;
    a.ports = p->pm.ports == SN_PORTS_SINGLE;
    a.rx = p->pm.rx == SN_RX_ANY;
    a.duplex = p->pm.duplex == SN_DUPLEX_HALF;
    a.root = p->root;
    a.msgs = p->msgs;
    a.size = p->size;
    a.n_sources = p->nsources;
    a.sources = (uint32_t *) p->sources;
    a.seed = p->seed;
    a.max_slots = sn_model_slot_limit(r->ctx->topo, &r->ctx->params, r->ctx->predicted);
    a.connect_ms = r->connect_ms;
    a.slot_ms = r->slot_ms;
    a.collective_ms = r->collective_ms;
    char fault[32];
    if (r->fault) {
        const char *colon = strchr(r->fault, ':');
        if (colon && strtol(r->fault, NULL, 10) == cn->id) {
            snprintf(fault, sizeof fault, "%s", colon + 1);
            a.fault = fault;
        }
    }
    Stepnet__Control m = STEPNET__CONTROL__INIT;
    m.msg_case = STEPNET__CONTROL__MSG_ASSIGN;
    m.assign = &a;
    sn_wire_send_control(cn->conn, &m);
    free(peers);
    free(pp);
}

static void ctl_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len);
static void ctl_error(sn_conn_t *c, int status, const char *what);
static void ctl_closed(sn_conn_t *c);
static const sn_conn_ops_t ctl_ops = {ctl_frame, ctl_error, ctl_closed};

static void on_hello(run_t *r, pconn_t *pc, const Stepnet__Hello *h)
{
    if (h->version != SN_WIRE_VERSION) {
        fprintf(stderr,
                "stepnet run: refused a node at %s speaking protocol version %u (this is %u)\n",
                pc->c.peer, h->version, SN_WIRE_VERSION);
        sn_conn_close(&pc->c);
        return;
    }
    int id;
    if (!r->join) {
        id = h->has_want_id ? h->want_id : -1;
        if (id < 0 || (uint32_t) id >= r->n || r->nodes[id].hello) {
            fprintf(stderr, "stepnet run: refused a node at %s claiming id %d\n", pc->c.peer, id);
            sn_conn_close(&pc->c);
            return;
        }
    } else {
        if (r->joined >= r->n) {
            fprintf(stderr, "stepnet run: refused a node at %s: all %u nodes have joined\n",
                    pc->c.peer, r->n);
            sn_conn_close(&pc->c);
            return;
        }
        id = (int) r->joined;
    }
    cnode_t *cn = &r->nodes[id];
    cn->hello = 1;
    cn->conn = &pc->c;
    pc->node = cn;
    sn_conn_expect_done(&pc->c);
    snprintf(cn->host, sizeof cn->host, "%s", h->data_host);
    cn->data_port = h->data_port;
    cn->pid = h->pid;
    snprintf(pc->c.name, sizeof pc->c.name, "node %d", id);
    r->joined++;
    if (r->join)
        fprintf(stderr, "stepnet run: node %d joined from %s:%u (pid %u on %s), %u of %u\n", id,
                h->data_host, h->data_port, h->pid, h->hostname ? h->hostname : "?", r->joined,
                r->n);
    if (r->joined == r->n) {
        r->phase = PH_READY;
        for (uint32_t i = 0; i < r->n; i++)
            send_assign(r, &r->nodes[i]);
    }
}

static void ctl_frame(sn_conn_t *c, int type, const uint8_t *body, size_t len)
{
    pconn_t *pc = c->owner;
    run_t *r = pc->run;
    if (r->stopping) /* the run is over (or interrupted): a late hello must not start anything */
        return;
    Stepnet__Control *m = type == SN_FRAME_CONTROL ? sn_wire_unpack_control(body, len) : NULL;
    if (m == NULL) {
        fail(r, pc->node ? pc->node->id : -1, 0, "malformed control frame from %s", c->name);
        return;
    }
    cnode_t *cn = pc->node;
    if (cn == NULL && m->msg_case != STEPNET__CONTROL__MSG_HELLO) {
        fail(r, -1, 0, "control message %d before the hello", (int) m->msg_case);
        goto out;
    }
    switch (m->msg_case) {
    case STEPNET__CONTROL__MSG_HELLO:
        if (cn == NULL)
            on_hello(r, pc, m->hello);
        break;
    case STEPNET__CONTROL__MSG_READY:
        if (!cn->ready) {
            cn->ready = 1;
            if (++r->nready == r->n) {
                r->phase = PH_CALIBRATE;
                Stepnet__Control cm = STEPNET__CONTROL__INIT;
                Stepnet__Calibrate cal = STEPNET__CALIBRATE__INIT;
                cal.bytes = r->ctx->params.size;
                cal.probes = (uint32_t) r->probes;
                cm.msg_case = STEPNET__CONTROL__MSG_CALIBRATE;
                cm.calibrate = &cal;
                send_all(r, &cm);
            }
        }
        break;
    case STEPNET__CONTROL__MSG_CALIBRATED:
        if (!cn->calibrated) {
            cn->calibrated = 1;
            /* per link: alpha = rtt(0 bytes) / 2, beta = (rtt(size) - rtt(0)) / (2 size) */
            for (size_t i = 0; i < m->calibrated->n_links; i++) {
                const Stepnet__LinkTiming *lt = m->calibrated->links[i];
                if (r->ncalib == r->capcalib) {
                    r->capcalib = r->capcalib ? 2 * r->capcalib : 64;
                    r->alpha = sn_xrealloc(r->alpha, r->capcalib * sizeof *r->alpha);
                    r->beta = sn_xrealloc(r->beta, r->capcalib * sizeof *r->beta);
                }
                r->alpha[r->ncalib] = (double) lt->rtt0_ns / 2000.0;
                r->beta[r->ncalib] = lt->bytes && lt->rtt_ns > lt->rtt0_ns
                                         ? (double) (lt->rtt_ns - lt->rtt0_ns) / 2000.0 / lt->bytes
                                         : 0.0;
                r->ncalib++;
            }
            if (++r->ncal == r->n)
                after_calibration(r);
        }
        break;
    case STEPNET__CONTROL__MSG_COMPLETE:
        if (r->phase == PH_RUN && m->complete->cid == r->cid && !cn->complete) {
            cn->complete = 1;
            if (++r->ncomplete == r->n)
                r->tlast = uv_hrtime();
        }
        break;
    case STEPNET__CONTROL__MSG_RESULT:
        if (r->phase == PH_RUN && m->result->cid == r->cid && !cn->result) {
            cn->result = 1;
            cn->res = m->result;
            m->result = NULL; /* kept: freed with the next repetition */
            m->msg_case = STEPNET__CONTROL__MSG__NOT_SET;
            if (++r->nresult == r->n) {
                if (r->ncomplete < r->n)
                    fail(r, -1, 0, "every node stopped but only %u of %u reported completion",
                         r->ncomplete, r->n);
                else
                    end_rep(r);
            }
        }
        break;
    case STEPNET__CONTROL__MSG_ABORT: {
        const Stepnet__Abort *ab = m->abort;
        int who = ab->has_node ? (int) ab->node : cn->id;
        report_failure(r, ab->has_kind ? (int) ab->kind : REP_SELF, who,
                       ab->has_peer ? (int) ab->peer : -1, ab->has_slot ? ab->slot : 0, ab->missing,
                       ab->n_missing, "node %d: %s", who, ab->reason);
        break;
    }
    default:
        fail(r, cn->id, 0, "unexpected control message %d from node %d", (int) m->msg_case, cn->id);
    }
out:
    stepnet__control__free_unpacked(m, NULL);
}

static void ctl_error(sn_conn_t *c, int status, const char *what)
{
    pconn_t *pc = c->owner;
    run_t *r = pc->run;
    if (r->stopping)
        return;
    if (pc->node == NULL) { /* not a node of this run (yet): refused, the run goes on */
        if (status == SN_EPROTO || status == SN_ETIMEOUT || !c->established)
            fprintf(stderr, "stepnet run: refused a control connection from %s: %s\n", c->peer,
                    what);
        return;
    }
    cnode_t *cn = pc->node;
    report_failure(r, REP_DEATH, cn->id, -1, 0, NULL, 0,
                   "node %d (pid %u) lost its control connection: %s (%s)", cn->id, cn->pid, what,
                   status < -5000 ? sn_strerror(status) : uv_err_name(status));
}

static void ctl_closed(sn_conn_t *c)
{
    pconn_t *pc = c->owner;
    if (pc->node && pc->node->conn == c)
        pc->node->conn = NULL;
    if (pc->prev)
        pc->prev->next = pc->next;
    else
        pc->run->pconns = pc->next;
    if (pc->next)
        pc->next->prev = pc->prev;
    free(pc);
}

static void on_control_connection(uv_stream_t *server, int status)
{
    run_t *r = server->data;
    if (status < 0)
        return;
    pconn_t *pc = sn_xcalloc(1, sizeof *pc);
    pc->run = r;
    pc->next = r->pconns;
    if (r->pconns)
        r->pconns->prev = pc;
    r->pconns = pc;
    sn_conn_init(r->loop, &pc->c, &ctl_ops, pc);
    sn_wire_limits_control(&pc->c);
    /* a peer that authenticates (or, with --security none, just connects) and then says nothing
     * is closed at the connect deadline instead of holding a connection for the whole run */
    sn_conn_expect(&pc->c, r->connect_ms ? r->connect_ms : 10000, "hello");
    if (uv_accept(server, (uv_stream_t *) &pc->c.tcp) < 0 ||
        sn_conn_start(&pc->c, &r->sec, 0) < 0 || r->stopping)
        sn_conn_close(&pc->c);
}

/* ---- local nodes ----------------------------------------------------------------------------- */

static void on_node_exit(uv_process_t *p, int64_t status, int term_signal)
{
    cnode_t *cn = p->data;
    run_t *r = cn->run;
    cn->exited = 1;
    cn->exit_status = status;
    cn->term_signal = term_signal;
    if (!r->stopping && (status != 0 || term_signal != 0)) {
        if (term_signal)
            report_failure(r, REP_DEATH, cn->id, -1, 0, NULL, 0,
                           "node %d (pid %d) was killed by signal %d (%s)", cn->id, p->pid,
                           term_signal, strsignal(term_signal));
        else
            report_failure(r, REP_DEATH, cn->id, -1, 0, NULL, 0,
                           "node %d (pid %d) exited with status %lld%s", cn->id, p->pid,
                           (long long) status, cn->hello ? "" : " before joining the run");
    }
    if (r->stopping)
        close_all(r);
}

static int spawn_nodes(run_t *r)
{
    char addr[96], idbuf[16];
    snprintf(addr, sizeof addr, "%s:%d", r->lhost, r->lport);
    for (uint32_t i = 0; i < r->n; i++) {
        cnode_t *cn = &r->nodes[i];
        snprintf(idbuf, sizeof idbuf, "%u", i);
        /* the key travels through a pipe that only this child inherits (as descriptor 3): never
         * on a command line or in the environment, where other users could read it */
        int kp[2] = {-1, -1};
        char *args[12];
        int na = 0;
        args[na++] = (char *) r->node_bin;
        args[na++] = "--coordinator";
        args[na++] = addr;
        args[na++] = "--id";
        args[na++] = idbuf;
        args[na++] = "--local";
        if (r->sec.mode == SN_SEC_SODIUM) {
            char text[2 * SN_KEY_BYTES + 1];
            /* single-threaded: nothing can fork between pipe() and fcntl() */
            if (pipe(kp) != 0 || fcntl(kp[0], F_SETFD, FD_CLOEXEC) != 0 ||
                fcntl(kp[1], F_SETFD, FD_CLOEXEC) != 0) {
                fprintf(stderr, "stepnet run: cannot create the key pipe: %s\n", strerror(errno));
                return SN_EIO;
            }
            sn_key_format(r->key, text);
            ssize_t w = write(kp[1], text, sizeof text); /* 65 bytes: fits any pipe buffer */
            sodium_memzero(text, sizeof text);
            close(kp[1]);
            if (w != (ssize_t) sizeof text) {
                close(kp[0]);
                fprintf(stderr, "stepnet run: cannot write the key pipe\n");
                return SN_EIO;
            }
            args[na++] = "--key-fd";
            args[na++] = "3";
        } else {
            args[na++] = "--security";
            args[na++] = "none";
        }
        if (!r->verbose)
            args[na++] = "--quiet";
        args[na] = NULL;
        uv_stdio_container_t stdio[4];
        stdio[0].flags = UV_IGNORE;
        stdio[1].flags = UV_IGNORE; /* READY lines: the coordinator already knows */
        stdio[2].flags = UV_INHERIT_FD;
        stdio[2].data.fd = 2;
        stdio[3].flags = UV_INHERIT_FD;
        stdio[3].data.fd = kp[0];
        uv_process_options_t po;
        memset(&po, 0, sizeof po);
        po.file = r->node_bin;
        po.args = args;
        po.exit_cb = on_node_exit;
        po.stdio = stdio;
        po.stdio_count = kp[0] >= 0 ? 4 : 3;
        cn->proc.data = cn;
        int rc = uv_spawn(r->loop, &cn->proc, &po);
        if (kp[0] >= 0)
            close(kp[0]);
        if (rc < 0) {
            /* libuv: the handle must be closed even though the spawn failed */
            uv_close((uv_handle_t *) &cn->proc, NULL);
            fprintf(stderr,
                    "stepnet run: cannot start %s: %s (name the stepnet-node program with "
                    "--node-bin PATH)\n",
                    r->node_bin, uv_strerror(rc));
            return rc;
        }
        cn->spawned = 1;
    }
    return 0;
}

static void on_signal(uv_signal_t *s, int signum)
{
    run_t *r = s->data;
    fail(r, -1, 0, "interrupted by signal %d", signum);
    finish_run(r, 1);
}

/* ---- the report --------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : (x > y);
}

/* The calibration line. Probes of 0 and `size` bytes give alpha + size * beta, the one-way time
 * of a hop at the run's size, exactly; but below a few KiB the difference between the two probes
 * is noise, so beta alone is not shown there (the JSON report still carries the fitted value). */
static void print_links(const run_t *r)
{
    uint32_t size = r->ctx->params.size;
    if (r->ncalib == 0) {
        printf("  links           not calibrated (--probes 0)\n");
        return;
    }
    if (size >= 4096)
        printf("  links           alpha %.2f us, beta %.6f us/byte (median of %zu links)\n",
               r->alpha_us, r->beta_us, r->ncalib);
    else
        printf("  links           %.2f us per hop at %u bytes (median of %zu links; beta is not "
               "resolved by %u-byte probes)\n",
               r->alpha_us + size * r->beta_us, size, r->ncalib, size);
}

static void write_json(const run_t *r, FILE *f, double median_us, double predicted_us)
{
    const cli_ctx_t *c = r->ctx;
    json_t j;
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long) r->trace);
    json_begin(&j, f);
    report_json_head(&j, "run", c);
    json_uint(&j, "steps", r->steps);
    json_uint(&j, "control_slots", r->control_slots);
    json_uint(&j, "packets", r->packets);
    json_uint(&j, "control_packets", r->cpackets);
    json_uint(&j, "deliveries", r->deliveries);
    json_uint(&j, "expected_deliveries", sn_coll_expected_total(r->t, &c->params));
    json_bool(&j, "verified", !r->failed);
    json_str(&j, "trace_hash", hash);
    json_str(&j, "nodes_mode", r->join ? "join" : "local");
    json_uint(&j, "reps", (uint64_t) r->reps);
    json_uint(&j, "warmup", (uint64_t) r->warmup);
    json_open(&j, "wall_us", '[');
    for (size_t i = 0; i < r->nwall; i++)
        json_double(&j, NULL, (double) r->wall_ns[i] / 1000.0);
    json_close(&j, ']');
    json_double(&j, "wall_us_median", median_us);
    json_double(&j, "us_per_step", r->steps ? median_us / (double) r->steps : 0.0);
    json_double(&j, "alpha_us", r->alpha_us);
    json_double(&j, "beta_us_per_byte", r->beta_us);
    json_double(&j, "predicted_us", predicted_us);
    json_uint(&j, "bytes_checked", r->bytes_checked);
    if (r->idle) {
        json_uint(&j, "idle_slots", (uint64_t) r->idle);
        json_double(&j, "us_per_slot", median_us / (double) r->idle);
    }
    json_str(&j, "security", r->sec.mode == SN_SEC_SODIUM ? "sodium" : "none");
    if (r->failed)
        json_str(&j, "error", r->error);
    json_end(&j);
}

static void report(run_t *r)
{
    const cli_ctx_t *c = r->ctx;
    double median_us = 0;
    if (r->nwall > 0) {
        uint64_t *w = sn_xmalloc(r->nwall * sizeof *w);
        memcpy(w, r->wall_ns, r->nwall * sizeof *w);
        qsort(w, r->nwall, sizeof *w, cmp_u64);
        median_us = r->nwall % 2 ? (double) w[r->nwall / 2] / 1000.0
                                 : (double) (w[r->nwall / 2 - 1] + w[r->nwall / 2]) / 2000.0;
        free(w);
    }
    double predicted_us = (double) r->steps * (r->alpha_us + c->params.size * r->beta_us);
    if (r->failed)
        fprintf(stderr, "stepnet run: %s\n", r->error);
    if (r->json)
        write_json(r, stdout, median_us, predicted_us);
    if (r->out) {
        FILE *f = fopen(r->out, "w");
        if (f == NULL) {
            fprintf(stderr, "stepnet run: cannot write %s\n", r->out);
        } else {
            write_json(r, f, median_us, predicted_us);
            fclose(f);
        }
    }
    if (r->json)
        return;
    report_text_head(stdout, "run", c);
    printf("  nodes           %u %s processes, %u TCP links, security %s\n", r->n,
           r->join ? "joined" : "local", r->t->nedges,
           r->sec.mode == SN_SEC_SODIUM ? "sodium (X25519 + XChaCha20-Poly1305)"
                                        : "none (plaintext)");
    if (r->failed) {
        printf("  FAILED          %s\n", r->error);
        return;
    }
    if (r->idle) {
        printf("  idle barrier    %lld slots: %.1f us median of %zu, %.2f us per slot\n",
               (long long) r->idle, median_us, r->nwall, median_us / (double) r->idle);
        print_links(r);
        return;
    }
    printf("  steps           %llu%s\n", (unsigned long long) r->steps,
           c->predicted < 0                     ? ""
           : (int64_t) r->steps == c->predicted ? "  (= predicted)"
                                                : "  (DIFFERS from predicted)");
    printf("  deliveries      %llu of %llu, verified (%llu payload bytes checked at every hop)\n",
           (unsigned long long) r->deliveries,
           (unsigned long long) sn_coll_expected_total(r->t, &c->params),
           (unsigned long long) r->bytes_checked);
    printf("  trace_hash      %016llx\n", (unsigned long long) r->trace);
    print_links(r);
    printf("  wall time       %.1f us median of %zu (%.2f us per step); predicted %.1f us\n",
           median_us, r->nwall, r->steps ? median_us / (double) r->steps : 0.0, predicted_us);
}

/* ---- the command -------------------------------------------------------------------------- */

static int parse_u32(const char *name, const char *v, uint32_t *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end != '\0' || end == v || x < 1 || x > 86400000) {
        fprintf(stderr,
                "stepnet: bad value '%s' for %s: expected milliseconds from 1 to 86400000\n", v,
                name);
        return EXIT_BADINPUT;
    }
    *out = (uint32_t) x;
    return 0;
}

/* The stepnet-node next to this executable. */
static const char *default_node_bin(char *buf, size_t cap)
{
    const char *env = getenv("STEPNET_NODE");
    if (env && *env)
        return env;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 16);
    if (n <= 0)
        return "stepnet-node";
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    snprintf(slash ? slash + 1 : buf, cap - (size_t) (slash ? slash + 1 - buf : 0), "stepnet-node");
    return buf;
}

int cmd_run(int argc, char **argv)
{
    /* run-only options are taken out first; the rest are the shared ones */
    run_t run;
    memset(&run, 0, sizeof run);
    run_t *r = &run;
    r->reps = 5;
    r->warmup = 1;
    r->probes = 20;
    r->connect_ms = 10000;
    r->ready_ms = 30000;
    r->slot_ms = 5000;
    r->collective_ms = 300000;
    char binbuf[4096];
    r->node_bin = default_node_bin(binbuf, sizeof binbuf);
    const char *nodes_mode = "local", *security = "sodium";
    char **rest = sn_xcalloc((size_t) argc + 1, sizeof *rest);
    int nrest = 0, rc = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x;
        char *end;
        if (strcmp(a, "--verbose") == 0) {
            r->verbose = 1;
            continue;
        }
        if (strcmp(a, "--insecure-ok") == 0) {
            r->insecure_ok = 1;
            continue;
        }
        int known = 1;
        if (strcmp(a, "--idle-slots") == 0) {
            if (v == NULL || (x = strtoll(v, &end, 10), *end != '\0' || end == v) || x < 1 ||
                x > 100000000) {
                fprintf(stderr,
                        "stepnet: bad value '%s' for --idle-slots: expected 1 to "
                        "100000000\n",
                        v ? v : "");
                rc = EXIT_BADINPUT;
                goto out;
            }
            r->idle = x;
        } else if (strcmp(a, "--reps") == 0 || strcmp(a, "--warmup") == 0 ||
                   strcmp(a, "--probes") == 0) {
            if (v == NULL || (x = strtoll(v, &end, 10), *end != '\0' || end == v) || x < 0 ||
                x > 1000000 || (x == 0 && strcmp(a, "--reps") == 0)) {
                fprintf(stderr,
                        "stepnet: bad value '%s' for %s: expected an integer from %d to "
                        "1000000\n",
                        v ? v : "", a, strcmp(a, "--reps") == 0);
                rc = EXIT_BADINPUT;
                goto out;
            }
            if (a[2] == 'r')
                r->reps = x;
            else if (a[2] == 'w')
                r->warmup = x;
            else
                r->probes = x;
        } else if (strcmp(a, "--nodes") == 0 && v) {
            nodes_mode = v;
        } else if (strcmp(a, "--listen") == 0 && v) {
            r->listen = v;
        } else if (strcmp(a, "--out") == 0 && v) {
            r->out = v;
        } else if (strcmp(a, "--node-bin") == 0 && v) {
            r->node_bin = v;
        } else if (strcmp(a, "--fault") == 0 && v) {
            r->fault = v;
        } else if (strcmp(a, "--token") == 0 && v) {
            r->token_hex = v;
        } else if (strcmp(a, "--key") == 0 && v) {
            r->key_file = v;
        } else if (strcmp(a, "--security") == 0 && v) {
            security = v;
        } else if (strcmp(a, "--connect-timeout-ms") == 0 && v) {
            rc = parse_u32(a, v, &r->connect_ms);
        } else if (strcmp(a, "--ready-timeout-ms") == 0 && v) {
            rc = parse_u32(a, v, &r->ready_ms);
        } else if (strcmp(a, "--slot-timeout-ms") == 0 && v) {
            rc = parse_u32(a, v, &r->slot_ms);
        } else if (strcmp(a, "--collective-timeout-ms") == 0 && v) {
            rc = parse_u32(a, v, &r->collective_ms);
        } else {
            known = 0;
        }
        if (rc)
            goto out;
        if (known) {
            i++;
            continue;
        }
        rest[nrest++] = argv[i];
    }
    if (strcmp(nodes_mode, "local") == 0)
        r->join = 0;
    else if (strcmp(nodes_mode, "join") == 0)
        r->join = 1;
    else {
        fprintf(stderr, "stepnet: bad value '%s' for --nodes: expected local or join\n",
                nodes_mode);
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (r->join && r->listen == NULL) {
        fprintf(stderr, "stepnet: --nodes join needs --listen HOST:PORT (where the nodes join)\n");
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (strcmp(security, "none") == 0) {
        r->sec.mode = SN_SEC_NONE;
    } else if (strcmp(security, "sodium") == 0) {
        r->sec.mode = SN_SEC_SODIUM;
    } else {
        fprintf(stderr, "stepnet: bad value '%s' for --security: expected sodium or none\n",
                security);
        rc = EXIT_BADINPUT;
        goto out;
    }
    r->sec.deadline_ms = r->connect_ms ? r->connect_ms : 10000;
    if (r->sec.mode == SN_SEC_NONE && r->join && !r->insecure_ok) {
        fprintf(stderr, "stepnet: --security none sends plaintext, unauthenticated frames over the "
                        "network; add --insecure-ok to accept that in join mode\n");
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (r->sec.mode == SN_SEC_NONE && r->key_file) {
        fprintf(stderr, "stepnet: --security none takes no --key\n");
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (r->sec.mode == SN_SEC_SODIUM && r->join && r->key_file == NULL) {
        fprintf(stderr, "stepnet: --nodes join needs --key FILE, the cluster key every node also "
                        "gets (create it with stepnet keygen FILE), or --security none "
                        "--insecure-ok\n");
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (r->sec.mode == SN_SEC_SODIUM) {
        char kerr[512];
        r->key = sn_key_new(r->key_file, -1, kerr, sizeof kerr); /* fresh if no file */
        if (r->key == NULL) {
            fprintf(stderr, "stepnet: %s\n", kerr);
            rc = EXIT_BADINPUT;
            goto out;
        }
        r->sec.key = r->key;
    } else {
        fprintf(stderr, "stepnet run: security none: links and the control channel are plaintext "
                        "and unauthenticated\n");
    }
    if (r->fault) {
        const char *colon = strchr(r->fault, ':');
        const char *kind = colon ? colon + 1 : "";
        if (!colon || (strncmp(kind, "kill@", 5) && strncmp(kind, "stop@", 5) &&
                       strncmp(kind, "garbage@", 8) && strncmp(kind, "oversize@", 9) &&
                       strncmp(kind, "flip@", 5))) {
            fprintf(stderr,
                    "stepnet: bad value '%s' for --fault: expected ID:kill@SLOT, "
                    "ID:stop@SLOT, ID:garbage@SLOT, ID:oversize@SLOT or ID:flip@SLOT\n",
                    r->fault);
            rc = EXIT_BADINPUT;
            goto out;
        }
    }
    cli_opts_t o = {.cmd = "run"};
    if ((rc = cli_parse(nrest, rest, &o, usage)) != 0) {
        rc = rc < 0 ? EXIT_OK : rc;
        goto out;
    }
    r->json = o.json;
    cli_ctx_t ctx;
    if ((rc = cli_ctx_init(&o, &ctx))) {
        cli_ctx_free(&ctx);
        goto out;
    }
    r->ctx = &ctx;
    r->t = ctx.topo;
    r->n = ctx.topo->n;
    sn_err_t err = {0};
    if (sn_topo_read_files(o.topo, &r->files, &r->nfiles, &err) < 0) {
        fprintf(stderr, "stepnet: %s\n", err.msg);
        rc = EXIT_BADINPUT;
        goto done;
    }
    if (r->nfiles > 1) {
        fprintf(stderr, "stepnet: run supports one file: factor per topology (got %zu)\n",
                r->nfiles);
        rc = EXIT_BADINPUT;
        goto done;
    }
    if (r->n > 4096 && !r->join) {
        fprintf(stderr,
                "stepnet: %s has %u nodes; local runs start one process per node and "
                "allow at most 4096 (use stepnet sim for larger networks)\n",
                ctx.topo->spec, r->n);
        rc = EXIT_BADINPUT;
        goto done;
    }
    r->nodes = sn_xcalloc(r->n, sizeof *r->nodes);
    r->wall_ns = sn_xcalloc((size_t) r->reps + 1, sizeof *r->wall_ns);
    r->digest_want = sn_xcalloc(r->n, sizeof *r->digest_want);
    for (uint32_t i = 0; i < r->n; i++) {
        r->nodes[i].run = r;
        r->nodes[i].id = (int) i;
        r->digest_want[i] = sn_coll_digest_sum(r->t, &ctx.params, i);
    }
    /* a run token that every link hello must carry */
    if (r->token_hex) {
        char *tend;
        r->token = strtoull(r->token_hex, &tend, 16);
        if (*tend != '\0' || tend == r->token_hex) {
            fprintf(stderr, "stepnet: bad value '%s' for --token: expected hexadecimal digits\n",
                    r->token_hex);
            rc = EXIT_BADINPUT;
            goto done;
        }
    } else {
        uv_random(NULL, NULL, &r->token, sizeof r->token, 0, NULL);
    }
    r->loop = sn_xmalloc(sizeof *r->loop);
    uv_loop_init(r->loop);
    signal(SIGPIPE, SIG_IGN);
    uv_timer_init(r->loop, &r->deadline);
    r->deadline.data = r;
    uv_timer_init(r->loop, &r->grace);
    r->grace.data = r;
    uv_timer_init(r->loop, &r->blame_timer);
    r->blame_timer.data = r;
    uv_signal_init(r->loop, &r->sigint);
    r->sigint.data = r;
    uv_signal_start(&r->sigint, on_signal, SIGINT);
    uv_signal_init(r->loop, &r->sigterm);
    r->sigterm.data = r;
    uv_signal_start(&r->sigterm, on_signal, SIGTERM);
    /* the control listener */
    const char *listen = r->listen ? r->listen : "127.0.0.1:0";
    const char *colon = strrchr(listen, ':');
    int port = colon ? atoi(colon + 1) : -1;
    if (!colon || colon == listen || (size_t) (colon - listen) >= sizeof r->lhost || port < 0 ||
        port > 65535) {
        fprintf(stderr, "stepnet: bad value '%s' for --listen: expected HOST:PORT\n", listen);
        rc = EXIT_BADINPUT;
        goto loop_done;
    }
    memcpy(r->lhost, listen, (size_t) (colon - listen));
    struct sockaddr_storage sa;
    if (uv_ip4_addr(r->lhost, port, (struct sockaddr_in *) &sa) < 0 &&
        uv_ip6_addr(r->lhost, port, (struct sockaddr_in6 *) &sa) < 0) {
        fprintf(stderr, "stepnet: bad address '%s' for --listen\n", listen);
        rc = EXIT_BADINPUT;
        goto loop_done;
    }
    uv_tcp_init(r->loop, &r->listener);
    r->listener.data = r;
    int lrc = uv_tcp_bind(&r->listener, (struct sockaddr *) &sa, 0);
    if (lrc == 0)
        lrc = uv_listen((uv_stream_t *) &r->listener, 4096, on_control_connection);
    if (lrc < 0) {
        fprintf(stderr, "stepnet: cannot listen on %s: %s\n", listen, uv_strerror(lrc));
        rc = EXIT_FAILED;
        goto loop_done;
    }
    int salen = sizeof sa;
    uv_tcp_getsockname(&r->listener, (struct sockaddr *) &sa, &salen);
    r->lport = ntohs(((struct sockaddr_in *) &sa)->sin_port);
    if (r->join) {
        fprintf(stderr, "stepnet run: waiting for %u nodes: stepnet-node --join %s:%d\n", r->n,
                r->lhost, r->lport);
    } else if (spawn_nodes(r) < 0) {
        fail(r, -1, 0, "could not start the node processes (%s)", r->node_bin);
        finish_run(r, 1);
    }
    if (!r->stopping)
        uv_timer_start(&r->deadline, on_deadline, r->ready_ms, 0);
    uv_run(r->loop, UV_RUN_DEFAULT);
    report(r);
    rc = r->failed ? EXIT_FAILED : EXIT_OK;
loop_done:
    close_all(r);
    close_handle((uv_handle_t *) &r->listener);
    uv_run(r->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(r->loop) != 0)
        fprintf(stderr, "stepnet run: event loop still busy at exit\n");
    free(r->loop);
done:
    for (uint32_t i = 0; r->nodes && i < r->n; i++)
        if (r->nodes[i].res)
            stepnet__result__free_unpacked(r->nodes[i].res, NULL);
    for (size_t i = 0; i < r->nreports; i++)
        free(r->reports[i].missing);
    free(r->reports);
    free(r->nodes);
    free(r->wall_ns);
    free(r->digest_want);
    free(r->alpha);
    free(r->beta);
    sn_topo_files_free(r->files, r->nfiles);
    cli_ctx_free(&ctx);
out:
    sn_key_free(r->key);
    free(rest);
    return rc;
}
