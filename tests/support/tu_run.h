/* Helpers shared by the integration tests of `stepnet run` (tests/integration/test_run_*.c):
 * running stepnet and stepnet-node under a tag, checked for sanitizer reports and survivors;
 * comparing run against sim; join-mode clusters started here; raw sockets to the nodes and the
 * coordinator; held runs. Part of the test support library (tu_run.c). */
#ifndef STEPNET_TESTS_SUPPORT_TU_RUN_H
#define STEPNET_TESTS_SUPPORT_TU_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/support/testutil.h"

/* Under AddressSanitizer every process is several times slower: deadlines stretch by TU_SLOW. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif
#ifndef TU_ASAN
#define TU_ASAN 0
#endif
#define TU_SLOW (TU_ASAN ? 4.0 : 1.0)

#define TU_MAXARGS  48
#define TU_MAXNODES 64

/* ---- running stepnet: every run tagged, checked for sanitizer reports and survivors ---------- */

/* Called first in main: ignores SIGPIPE, makes this test process's tag prefix, prints which build
 * runs (`name`), and applies TEST_FILTER (e.g. TEST_FILTER=test_fault_* runs only those tests). */
void tu_run_init(const char *name);

/* The teardown of every test: kills (and reports) the processes this test binary's runs left. */
int tu_run_teardown(void **state);

/* A fresh tag STEPNET_TEST_TAG=<prefix><n> into tag[cap]; every process of a run inherits it. */
void tu_new_tag(char *tag, size_t cap);

/* Sleeps s seconds. */
void tu_sleep(double s);

/* Kills (SIGKILL) the processes whose environment holds `entry` (or, with prefix, an entry it
 * prefixes), lists them with their command names in list[cap]; returns how many there were. */
size_t tu_kill_tagged(const char *entry, int prefix, char *list, size_t cap);

/* Fails (after killing them) if processes of the run tagged `tag` are still there. */
void tu_expect_no_survivors(const char *cmd, const char *tag);

/* The name of the sanitizer report on stderr err, or NULL. */
const char *tu_sanitizer_report(const char *err);

/* Runs $STEPNET with args under the tag in tag[cap] (a fresh one when it is empty); only the
 * deadline (x TU_SLOW) is checked, a death by signal is returned. Free with tu_exec_free. */
tu_proc_t tu_stepnet_raw(double deadline_s, const char *const *args, char *tag, size_t cap);

/* Runs $STEPNET with args under a fresh tag; fails on a deadline, a signal, a sanitizer report or
 * a process left behind. Free with tu_exec_free. */
tu_proc_t tu_stepnet(double deadline_s, const char *const *args);

#define TU_STEPNET(deadline_s, ...)                                                                \
    tu_stepnet((deadline_s), (const char *const[]){__VA_ARGS__, NULL})

/* Runs stepnet-node with args to its exit (deadline x TU_SLOW); fails on a sanitizer report or a
 * process left behind. */
tu_proc_t tu_node_exec(double deadline_s, const char *const *args);

/* Fails unless p exited with `status` and its stderr holds needle. */
void tu_expect_err(const tu_proc_t *p, int status, const char *needle);

/* A growing argument list, NULL-terminated, of at most TU_MAXARGS borrowed strings. */
typedef struct tu_av_s {
    const char *v[TU_MAXARGS + 1];
    size_t n;
} tu_av_t;

void tu_av_addv(tu_av_t *a, const char *const *args);

#define TU_AV_ADD(a, ...) tu_av_addv((a), (const char *const[]){__VA_ARGS__, NULL})

/* The string member key of the JSON object j, in one of four rotating static buffers. */
const char *tu_jstr(const char *j, const char *key);

/* Counts the occurrences of needle in s. */
size_t tu_count_str(const char *s, const char *needle);

/* The last line of p's stderr that starts with `prefix`, copied into line[cap] (fails if none). */
const char *tu_last_line(const tu_proc_t *p, const char *prefix, char *line, size_t cap);

/* 1 when s says "<word> N" for N in [lo, hi] (not followed by another digit). */
int tu_names_number(const char *s, const char *word, long lo, long hi);

/* A run that must fail: exit 1, the JSON report (if any) not verified and carrying the error; the
 * error line is copied into line[cap]. */
void tu_expect_failed(const tu_proc_t *p, char *line, size_t cap);

/* ---- run against sim ------------------------------------------------------------------------- */

/* Runs `stepnet sim ARGS --json` (must succeed) into ps and `stepnet run ARGS --json --reps 2
 * --warmup 0 --probes 3` into pr (its status is left to the caller). */
void tu_run_pair(const char *const *args, tu_proc_t *ps, tu_proc_t *pr);

/* The arguments joined by blanks into buf[cap], for progress lines. */
const char *tu_args_text(const char *const *args, char *buf, size_t cap);

/* Checks that the run pr verified with the same steps, trace, deliveries and packets as sim ps
 * (both of `args`). */
void tu_expect_same(const char *const *args, const tu_proc_t *ps, const tu_proc_t *pr);

/* tu_run_pair then tu_expect_same. */
void tu_expect_exact(const char *const *args);

typedef struct tu_case_s {
    const char *args[16];
} tu_case_t;

void tu_expect_exact_all(const tu_case_t *cases, size_t n);

#define TU_EXACT_ALL(cases) tu_expect_exact_all((cases), sizeof(cases) / sizeof *(cases))

/* ---- the times of a run's report ------------------------------------------------------------- */

/* 1 when a and b agree within the rounding of the JSON numbers. */
int tu_near(double a, double b);

/* Checks coll_us, node_us and their medians in a successful report j of `reps` repetitions. */
void tu_expect_coll_times(const char *j, int64_t reps);

/* ---- join mode ------------------------------------------------------------------------------- */

typedef struct tu_join_s {
    char tag[128];
    int insecure;    /* --security none --insecure-ok on every side */
    char keydir[64]; /* the cluster key, from `stepnet keygen` */
    char key[128];
    tu_bg_t *coord;
    int port; /* the coordinator's */
    uint32_t want;
    size_t n;
    tu_bg_t *node[TU_MAXNODES];
    int listen_port[TU_MAXNODES], id[TU_MAXNODES], ready_port[TU_MAXNODES];
} tu_join_t;

/* Starts `stepnet run --nodes join --listen 127.0.0.1:0 ARGS` with a fresh cluster key from
 * `stepnet keygen` (or, insecure, with --security none --insecure-ok) and reads its port;
 * _limited runs the coordinator under `ulimit -n nofile` (0: none). */
void tu_join_start(tu_join_t *j, const char *const *args);
void tu_join_start_mode(tu_join_t *j, const char *const *args, int insecure);
void tu_join_start_limited(tu_join_t *j, const char *const *args, int insecure, unsigned nofile);

/* Starts n more `stepnet-node --join 127.0.0.1:PORT --listen 127.0.0.1`, reads each LISTEN port. */
void tu_join_nodes(tu_join_t *j, size_t n);

/* Reads every node's "READY id=I port=P": the ids are 0..n-1 once each, P the LISTEN port. */
void tu_join_ready(tu_join_t *j);

/* Waits for the coordinator (exit `status`) and every node (exit node_status), checks that none
 * is left, and frees them; returns the coordinator's report (malloc'd) or NULL. */
char *tu_join_finish(tu_join_t *j, int status, int node_status);

/* A finished background process seen as a tu_proc_t (borrowing its buffers). */
tu_proc_t tu_bg_view(const tu_bg_t *b);

/* Waits for b's exit; fails at the deadline, on a signal or on a sanitizer report. */
void tu_bg_wait_or_fail(tu_bg_t *b, double deadline_s);

/* Waits until b's stderr holds `needle`; 1, or 0 at the deadline. */
int tu_wait_stderr(tu_bg_t *b, const char *needle, double deadline_s);

/* A held join run: started with TU_HOLD_ARGS, node TU_HOLD_ID stops itself (SIGSTOP, --fault) at
 * slot TU_HOLD_SLOT of the first collective and its neighbours wait for it (the slot deadline is
 * 10 minutes), so the run cannot end before tu_join_release. tu_join_hold waits for that node's
 * injection line and returns its index in j; tu_join_release sends it SIGCONT. */
#define TU_HOLD_ID   "2"
#define TU_HOLD_SLOT "1"
#define TU_HOLD_ARGS "--fault", TU_HOLD_ID ":stop@" TU_HOLD_SLOT, "--slot-timeout-ms", "600000"

size_t tu_join_hold(tu_join_t *j);
void tu_join_release(tu_join_t *j, size_t h);

/* A held local run: node 0 stops itself at slot 1 and the slot deadline is 10 minutes, so the run
 * cannot end before the test interrupts it (the coordinator then kills the stopped node). */
#define TU_LOCAL_HOLD_ARGS "--fault", "0:stop@1", "--slot-timeout-ms", "600000"

/* How many processes of the run tagged `tag` are stepnet-node processes past their exec (their
 * command line holds --key-fd); fails if any command line or environment shows a key-like word. */
size_t tu_execd_nodes(const char *tag);

/* ---- raw sockets ----------------------------------------------------------------------------- */

/* A TCP connection to 127.0.0.1:port (fails the test if it cannot connect). */
int tu_dial_port(int port);

/* The transport preamble of a --security none peer (docs/security.md). */
extern const uint8_t tu_plain_preamble[8];

/* Reads exactly n bytes within the deadline; 0 on success. */
int tu_read_exact(int fd, uint8_t *p, size_t n, double deadline_s);

/* Waits until the peer closes fd (EOF or reset); returns the seconds it took, < 0 at the
 * deadline; fails if the peer sends data. */
double tu_wait_closed(int fd, double deadline_s);

/* How many of the open file descriptors of pid are sockets. */
int tu_count_sockets(pid_t pid);

#endif
