/* Helpers shared by the cmocka tests (tests/unit and tests/integration): topologies and simulator
 * runs (testutil.c), and real processes with deadlines plus a small JSON reader (tu_proc.c).
 * Include after the cmocka prerequisites: <setjmp.h> <stdarg.h> <stddef.h> <stdint.h> <cmocka.h>.
 */
#ifndef STEPNET_TESTS_SUPPORT_TESTUTIL_H
#define STEPNET_TESTS_SUPPORT_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/topo.h"

/* Parses spec or fails the test with the parser's message. */
sn_topo_t *tu_topo(const char *spec);

/* Fails the test (printing both names, e.g. SN_EPORT vs SN_OK) unless rc == want. cmocka prints
 * negative codes as huge unsigned numbers, hence this wrapper. */
#define tu_assert_rc(rc, want) tu_assert_rc_((rc), (want), __FILE__, __LINE__)
void tu_assert_rc_(int rc, int want, const char *file, int line);

/* One simulated run: the outcome of sn_sim_run plus the algorithm's prediction. */
typedef struct tu_run_s {
    int rc; /* sn_sim_run's return */
    sn_err_t err;
    sn_sim_result_t res;
    int64_t predicted; /* -1 = none */
    const sn_algo_t *algo;
    sn_bounds_t bounds;
} tu_run_t;

/* Runs `algo` (NULL or "auto") for params p on t in the simulator with a slot limit of
 * 4 * predicted + 1024 (or 1 << 40 without a prediction). Fails the test if selection fails. */
tu_run_t tu_sim(const sn_topo_t *t, const sn_params_t *p, const char *algo);

/* Convenience: params for coll with the given port model (ports "multi"/"single", rx "one"/"any",
 * duplex "full"/"half"). */
sn_params_t tu_params(sn_coll_t coll, const char *ports, const char *rx, const char *duplex);

/* Writes `text` to a fresh temporary file and returns its path (static buffer per call site is
 * not needed: the path is malloc'd; free it). */
char *tu_tmpfile(const char *text);

/* ---- processes (tu_proc.c) ------------------------------------------------------------------ */

/* Seconds on the monotonic clock. */
double tu_now(void);

/* The executable named by the environment variable `var` (e.g. "STEPNET", set by ctest): fails
 * the test, naming the variable, when it is unset or empty (a test that cannot run must not pass
 * as skipped), and when the file is not executable. */
const char *tu_env_bin(const char *var);

/* The source tree's root (STEPNET_SRC, set by ctest): fails the test, naming the variable, when it
 * is unset or empty. */
const char *tu_src_root(void);

/* The whole text of the file at `path`, NUL-terminated (the caller frees it), or NULL when it
 * cannot be read. */
char *tu_read_file(const char *path);

/* README.md's lines between the line `begin` and the line `end` (both given with their newline,
 * each standing at the start of a line), without them; the caller frees it. Fails the test
 * naming the marker that is missing. */
char *tu_readme_block(const char *begin, const char *end);

#define TU_EXEC_DEADLINE_S 60.0

/* How to start a process. All fields are optional (zero = default). */
typedef struct tu_exec_opts_s {
    const char *name;  /* the program in messages, e.g. "stepnet" (default: the path) */
    const char *env;   /* "NAME=VALUE" added to (or replacing in) the inherited environment */
    double deadline_s; /* tu_exec: the run must end within this (default TU_EXEC_DEADLINE_S) */
    int allow_signal;  /* tu_exec: a death by signal is returned, not a failure */
} tu_exec_opts_t;

/* A finished process: exit status and everything it wrote, stdout and stderr apart. */
typedef struct tu_proc_s {
    int status;      /* exit status, or -1 when killed by a signal */
    int signal;      /* the terminating signal, 0 when it exited */
    double secs;     /* wall time from start to exit */
    long maxrss_kb;  /* peak resident set of the process (wait4's ru_maxrss) */
    char cmd[1024];  /* "name 'arg1' 'arg2' ...", for messages */
    char *out, *err; /* NUL-terminated, owned: tu_exec_free */
    size_t nout, nerr;
} tu_proc_t;

/* Runs bin with the NULL-terminated args (argv[0] is bin), stdin from /dev/null, and collects
 * stdout and stderr until it exits. Fails the test if it cannot start, if it does not exit within
 * the deadline (it is killed with SIGKILL first), or if a signal killed it (unless allowed). */
tu_proc_t tu_exec(const char *bin, const char *const *args, const tu_exec_opts_t *o);
void tu_exec_free(tu_proc_t *p);

/* Fails the test (showing the command, stdout and stderr) unless p exited with `want`. */
void tu_expect_status(const tu_proc_t *p, int want);

/* How many times c occurs in the string s. */
size_t tu_count_char(const char *s, char c);

/* Fails unless s (n bytes, p's stdout or stderr, named by `what`) is exactly one line. */
void tu_expect_one_line(const tu_proc_t *p, const char *s, size_t n, const char *what);

/* Fails unless p's stdout is one line holding one valid JSON object; returns it. */
const char *tu_json_line(const tu_proc_t *p);

/* A process running in the background. Its stdout (stream 1) and stderr (stream 2) are read into
 * buf[0] and buf[1] (NUL-terminated, growing) whenever one of the functions below waits. */
typedef struct tu_bg_s {
    pid_t pid;
    char cmd[1024];
    int fd[2]; /* read ends of the stdout and stderr pipes, -1 after EOF */
    char *buf[2];
    size_t len[2], cap[2], pos[2]; /* pos: where tu_bg_line continues */
    int exited, status, signal;    /* status -1 when killed by a signal */
    long maxrss_kb;                /* peak resident set, once reaped */
    double t0, t_exit;
} tu_bg_t;

/* Starts bin with args in the background (stdin /dev/null). Fails the test if it cannot. */
tu_bg_t *tu_bg_start(const char *bin, const char *const *args, const tu_exec_opts_t *o);

/* Waits up to timeout_s for the next complete line of `stream` (1 stdout, 2 stderr) that contains
 * `needle` (NULL: any line); lines before it are passed over. Copies it without its newline into
 * line and returns 1; returns 0 at the deadline or when the stream ended first. */
int tu_bg_line(tu_bg_t *b, int stream, const char *needle, char *line, size_t cap,
               double timeout_s);

/* Reads whatever the process wrote, waiting up to timeout_s for something new; notes its exit. */
void tu_bg_pump(tu_bg_t *b, double timeout_s);

/* 1 while the process has not exited (checked now, without waiting). */
int tu_bg_running(tu_bg_t *b);

/* Sends sig to the process (if it has not been reaped); returns kill's result. */
int tu_bg_signal(tu_bg_t *b, int sig);

/* Waits up to timeout_s for the process to exit, reading its output until both streams end (or
 * 2 s after the exit, when a child of it still holds them). Returns 0, or -1 at the deadline. */
int tu_bg_wait(tu_bg_t *b, double timeout_s);

/* Kills the process with SIGKILL if it still runs, reaps it and frees b (NULL is fine). */
void tu_bg_free(tu_bg_t *b);

/* The processes (other than this one) whose environment holds `entry` ("NAME=VALUE"), exactly or,
 * with prefix set, as a prefix of one of their variables. Only processes whose
 * /proc/PID/environ this user may read are seen. Stores up to cap pids; returns how many match. */
size_t tu_env_procs(const char *entry, int prefix, pid_t *pids, size_t cap);

/* ---- a small JSON reader (tu_proc.c): validates, and finds the members of an object ---------- */

/* Skips blanks. */
const char *tu_json_ws(const char *p);

/* Skips one JSON value (leading blanks allowed); returns the position after it, NULL if
 * malformed. */
const char *tu_json_skip(const char *p);

/* The value of member `key` of the object at obj ('{'), NULL if absent. Assumes a valid object. */
const char *tu_json_get(const char *obj, const char *key);

/* As tu_json_get, but fails the test when the member is absent. */
const char *tu_json_need(const char *obj, const char *key);

int tu_json_is_null(const char *obj, const char *key);

/* An integer member (no fraction, no exponent); fails the test otherwise. */
int64_t tu_json_int(const char *obj, const char *key);

/* A number member. */
double tu_json_num(const char *obj, const char *key);

int tu_json_bool(const char *obj, const char *key);

/* A string member, decoded into buf (\uXXXX only below 0x80); returns buf. */
const char *tu_json_str(const char *obj, const char *key, char *buf, size_t cap);

/* An array of integers (numbers) member; stores up to cap and returns the count. */
size_t tu_json_ints(const char *obj, const char *key, int64_t *v, size_t cap);
size_t tu_json_nums(const char *obj, const char *key, double *v, size_t cap);

/* The fields every sim/run JSON object must have (the command-line contract: README.md, JSON
 * output), NULL-terminated. */
extern const char *const tu_contract_fields[];

#endif
