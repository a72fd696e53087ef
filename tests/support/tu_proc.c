/* Test helpers (tests/support) shared by tests/unit and tests/integration: running real processes
 * (fork/execve, stdout and stderr captured apart, a deadline on every wait, processes in the
 * background read line by line), finding processes by an environment variable, and a small JSON
 * reader for the one-line reports of the stepnet command line. */
#define _DEFAULT_SOURCE /* wait4: the peak RSS of a child */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/testutil.h"

extern char **environ;

/* ---- processes ------------------------------------------------------------------------------ */

double tu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

const char *tu_env_bin(const char *var)
{
    const char *p = getenv(var);
    if (p == NULL || *p == '\0') {
        fail_msg("%s is not set: run this test through ctest (ctest --test-dir BUILD -R NAME), "
                 "which sets it, or set %s to the program's path",
                 var, var);
    }
    if (access(p, X_OK) != 0)
        fail_msg("%s=%s is not executable: %s", var, p, strerror(errno));
    return p;
}

const char *tu_src_root(void)
{
    const char *src = getenv("STEPNET_SRC");
    if (src == NULL || src[0] == '\0')
        fail_msg("STEPNET_SRC is not set: run this test through ctest");
    return src;
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

char *tu_readme_block(const char *begin, const char *end)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", tu_src_root());
    char *readme = tu_read_file(path);
    if (readme == NULL)
        fail_msg("cannot open %s", path);
    const char *b = strstr(readme, begin);
    if (b == NULL || (b > readme && b[-1] != '\n'))
        fail_msg("README.md has no line '%.*s'", (int) strlen(begin) - 1, begin);
    b += strlen(begin);
    const char *e = strstr(b, end);
    if (e == NULL || (e > b && e[-1] != '\n'))
        fail_msg("README.md has no line '%.*s' after the begin marker", (int) strlen(end) - 1, end);
    char *block = strndup(b, (size_t) (e - b));
    free(readme);
    return block;
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *b = realloc(*buf, c);
        assert_non_null(b);
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* The inherited environment with `entry` ("NAME=VALUE") added or replacing NAME; a fresh array
 * of borrowed strings. */
static char **child_env(const char *entry)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    assert_non_null(env);
    size_t k = 0, namelen = 0;
    if (entry) {
        const char *eq = strchr(entry, '=');
        namelen = eq ? (size_t) (eq - entry) + 1 : strlen(entry);
    }
    for (size_t i = 0; i < n; i++)
        if (entry == NULL || strncmp(environ[i], entry, namelen) != 0)
            env[k++] = environ[i];
    if (entry)
        env[k++] = (char *) entry;
    env[k] = NULL;
    return env;
}

static void set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

tu_bg_t *tu_bg_start(const char *bin, const char *const *args, const tu_exec_opts_t *o)
{
    tu_exec_opts_t none = {0};
    if (o == NULL)
        o = &none;
    tu_bg_t *b = calloc(1, sizeof *b);
    assert_non_null(b);
    size_t na = 0;
    while (args[na])
        na++;
    const char **argv = calloc(na + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = bin;
    size_t cl = (size_t) snprintf(b->cmd, sizeof b->cmd, "%s", o->name ? o->name : bin);
    for (size_t i = 0; i < na; i++) {
        argv[i + 1] = args[i];
        if (cl < sizeof b->cmd)
            cl += (size_t) snprintf(b->cmd + cl, sizeof b->cmd - cl, " '%s'", args[i]);
    }
    char **env = child_env(o->env);
    int po[2], pe[2];
    assert_int_equal(pipe(po), 0);
    assert_int_equal(pipe(pe), 0);
    set_cloexec(po[0]);
    set_cloexec(pe[0]);
    fflush(NULL);
    b->t0 = tu_now();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        execve(bin, (char *const *) argv, env);
        _exit(127);
    }
    free(argv);
    free(env);
    close(po[1]);
    close(pe[1]);
    b->pid = pid;
    b->fd[0] = po[0];
    b->fd[1] = pe[0];
    for (int k = 0; k < 2; k++)
        append(&b->buf[k], &b->len[k], &b->cap[k], "", 0);
    return b;
}

/* Reaps the process if it has exited (no waiting). */
static void check_exit(tu_bg_t *b)
{
    if (b->exited)
        return;
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w = wait4(b->pid, &st, WNOHANG, &ru);
    if (w != b->pid)
        return;
    b->maxrss_kb = ru.ru_maxrss;
    b->exited = 1;
    b->t_exit = tu_now();
    b->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    b->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

void tu_bg_pump(tu_bg_t *b, double timeout_s)
{
    struct pollfd fds[2];
    int nfds = 0, which[2];
    for (int k = 0; k < 2; k++) {
        if (b->fd[k] < 0)
            continue;
        fds[nfds].fd = b->fd[k];
        fds[nfds].events = POLLIN;
        fds[nfds].revents = 0;
        which[nfds++] = k;
    }
    int ms = timeout_s <= 0 ? 0 : (int) (timeout_s * 1000) + 1;
    if (nfds == 0) {
        /* nothing to read: just wait for the exit */
        double end = tu_now() + (timeout_s > 0 ? timeout_s : 0);
        struct timespec ts = {0, 2000000};
        for (check_exit(b); !b->exited && tu_now() < end; check_exit(b))
            nanosleep(&ts, NULL);
        return;
    }
    int pr = poll(fds, (nfds_t) nfds, ms);
    if (pr < 0 && errno != EINTR)
        fail_msg("poll: %s", strerror(errno));
    for (int i = 0; pr > 0 && i < nfds; i++) {
        if (fds[i].revents == 0)
            continue;
        int k = which[i];
        char buf[65536];
        ssize_t n = read(b->fd[k], buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            close(b->fd[k]);
            b->fd[k] = -1;
        } else {
            append(&b->buf[k], &b->len[k], &b->cap[k], buf, (size_t) n);
        }
    }
    check_exit(b);
}

int tu_bg_line(tu_bg_t *b, int stream, const char *needle, char *line, size_t cap, double timeout_s)
{
    assert_true(stream == 1 || stream == 2);
    int k = stream - 1;
    double end = tu_now() + timeout_s;
    for (;;) {
        /* complete lines first (and a last line without its newline once the stream ended) */
        while (b->pos[k] < b->len[k]) {
            const char *s = b->buf[k] + b->pos[k];
            const char *nl = memchr(s, '\n', b->len[k] - b->pos[k]);
            if (nl == NULL && b->fd[k] >= 0)
                break;
            size_t n = nl ? (size_t) (nl - s) : b->len[k] - b->pos[k];
            b->pos[k] += n + (nl != NULL);
            char *copy = strndup(s, n);
            assert_non_null(copy);
            int match = needle == NULL || strstr(copy, needle) != NULL;
            if (match) {
                snprintf(line, cap, "%s", copy);
                free(copy);
                return 1;
            }
            free(copy);
        }
        double left = end - tu_now();
        if (b->fd[k] < 0 || left <= 0)
            return 0;
        tu_bg_pump(b, left < 0.05 ? left : 0.05);
    }
}

int tu_bg_running(tu_bg_t *b)
{
    check_exit(b);
    return !b->exited;
}

int tu_bg_signal(tu_bg_t *b, int sig)
{
    check_exit(b);
    if (b->exited)
        return -1;
    return kill(b->pid, sig);
}

int tu_bg_wait(tu_bg_t *b, double timeout_s)
{
    double end = tu_now() + timeout_s;
    for (;;) {
        check_exit(b);
        int open_fds = (b->fd[0] >= 0) + (b->fd[1] >= 0);
        if (b->exited && open_fds == 0)
            return 0;
        double now = tu_now();
        if (b->exited && now > b->t_exit + 2.0) {
            /* a child of it still holds the pipes: stop reading them */
            for (int k = 0; k < 2; k++)
                if (b->fd[k] >= 0) {
                    close(b->fd[k]);
                    b->fd[k] = -1;
                }
            return 0;
        }
        if (now >= end)
            return -1;
        double left = end - now;
        tu_bg_pump(b, left < 0.05 ? left : 0.05);
    }
}

void tu_bg_free(tu_bg_t *b)
{
    if (b == NULL)
        return;
    check_exit(b);
    if (!b->exited) {
        kill(b->pid, SIGKILL);
        int st;
        while (waitpid(b->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    for (int k = 0; k < 2; k++) {
        if (b->fd[k] >= 0)
            close(b->fd[k]);
        free(b->buf[k]);
    }
    free(b);
}

tu_proc_t tu_exec(const char *bin, const char *const *args, const tu_exec_opts_t *o)
{
    double deadline = o && o->deadline_s > 0 ? o->deadline_s : TU_EXEC_DEADLINE_S;
    tu_bg_t *b = tu_bg_start(bin, args, o);
    tu_proc_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.cmd, sizeof r.cmd, "%s", b->cmd);
    if (tu_bg_wait(b, deadline) < 0) {
        kill(b->pid, SIGKILL);
        tu_bg_wait(b, 10);
        print_error("stdout: %s\nstderr: %s\n", b->buf[0], b->buf[1]);
        tu_bg_free(b);
        fail_msg("%s: no exit within %.1f s (killed)", r.cmd, deadline);
    }
    r.status = b->status;
    r.signal = b->signal;
    r.secs = b->t_exit - b->t0;
    r.maxrss_kb = b->maxrss_kb;
    r.out = b->buf[0];
    r.nout = b->len[0];
    r.err = b->buf[1];
    r.nerr = b->len[1];
    b->buf[0] = b->buf[1] = NULL;
    tu_bg_free(b);
    if (r.signal && !(o && o->allow_signal)) {
        print_error("stderr: %s\n", r.err);
        tu_exec_free(&r);
        fail_msg("%s: killed by signal %d", r.cmd, r.signal);
    }
    return r;
}

void tu_exec_free(tu_proc_t *p)
{
    free(p->out);
    free(p->err);
    p->out = p->err = NULL;
}

void tu_expect_status(const tu_proc_t *p, int want)
{
    if (p->status != want)
        fail_msg("%s: exit status %d, want %d\nstdout: %s\nstderr: %s", p->cmd, p->status, want,
                 p->out, p->err);
}

size_t tu_count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

void tu_expect_one_line(const tu_proc_t *p, const char *s, size_t n, const char *what)
{
    if (n == 0 || s[n - 1] != '\n' || tu_count_char(s, '\n') != 1)
        fail_msg("%s: %s is not exactly one line:\n%s", p->cmd, what, s);
}

const char *tu_json_line(const tu_proc_t *p)
{
    tu_expect_one_line(p, p->out, p->nout, "stdout");
    const char *end = p->out[0] == '{' ? tu_json_skip(p->out) : NULL;
    if (end == NULL || end != p->out + p->nout - 1)
        fail_msg("%s: stdout is not one JSON object:\n%s", p->cmd, p->out);
    return p->out;
}

size_t tu_env_procs(const char *entry, int prefix, pid_t *pids, size_t cap)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        fail_msg("cannot open /proc: %s", strerror(errno));
    size_t elen = strlen(entry), found = 0;
    pid_t self = getpid();
    struct dirent *de;
    char *buf = NULL;
    size_t bcap = 0;
    while ((de = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == self)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/environ", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue; /* gone, or not ours to read */
        size_t len = 0;
        for (;;) {
            char chunk[8192];
            ssize_t n = read(fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            append(&buf, &len, &bcap, chunk, (size_t) n);
        }
        close(fd);
        int match = 0;
        for (size_t i = 0; i < len && !match; i += strlen(buf + i) + 1)
            match = prefix ? strncmp(buf + i, entry, elen) == 0 : strcmp(buf + i, entry) == 0;
        if (match) {
            if (found < cap)
                pids[found] = (pid_t) pid;
            found++;
        }
    }
    free(buf);
    closedir(d);
    return found;
}

/* ---- a small JSON reader --------------------------------------------------------------------- */

const char *tu_json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at '"': returns the position after the closing quote, NULL if malformed. */
static const char *jskip_str(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p; p++) {
        if (*p == '"')
            return p + 1;
        if ((unsigned char) *p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p[i]))
                        return NULL;
                p += 4;
            } else if (*p == '\0' || strchr("\"\\/bfnrt", *p) == NULL) {
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *jskip_digits(const char *p)
{
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

static const char *jskip_num(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if ((p = jskip_digits(p)) == NULL)
        return NULL;
    if (*p == '.' && (p = jskip_digits(p + 1)) == NULL)
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if ((p = jskip_digits(p)) == NULL)
            return NULL;
    }
    return p;
}

static const char *jskip(const char *p, int depth)
{
    p = tu_json_ws(p);
    if (depth > 32)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = tu_json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if ((p = jskip_str(p)) == NULL)
                    return NULL;
                p = tu_json_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if ((p = jskip(p, depth + 1)) == NULL)
                return NULL;
            p = tu_json_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
            p = tu_json_ws(p);
        }
    }
    if (*p == '"')
        return jskip_str(p);
    if (strncmp(p, "true", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    if (strncmp(p, "null", 4) == 0)
        return p + 4;
    return jskip_num(p);
}

const char *tu_json_skip(const char *p)
{
    return jskip(p, 0);
}

const char *tu_json_get(const char *obj, const char *key)
{
    const char *p = tu_json_ws(obj);
    if (*p != '{')
        return NULL;
    p = tu_json_ws(p + 1);
    size_t klen = strlen(key);
    while (*p == '"') {
        const char *end = jskip_str(p);
        if (end == NULL)
            return NULL;
        int match = (size_t) (end - p - 2) == klen && strncmp(p + 1, key, klen) == 0;
        p = tu_json_ws(end);
        if (*p != ':')
            return NULL;
        const char *v = tu_json_ws(p + 1);
        if (match)
            return v;
        if ((p = jskip(v, 0)) == NULL)
            return NULL;
        p = tu_json_ws(p);
        if (*p == ',')
            p = tu_json_ws(p + 1);
    }
    return NULL;
}

const char *tu_json_need(const char *obj, const char *key)
{
    const char *v = tu_json_get(obj, key);
    if (v == NULL)
        fail_msg("JSON has no field \"%s\": %s", key, obj);
    return v;
}

int tu_json_is_null(const char *obj, const char *key)
{
    return strncmp(tu_json_need(obj, key), "null", 4) == 0;
}

int64_t tu_json_int(const char *obj, const char *key)
{
    const char *v = tu_json_need(obj, key);
    const char *end = jskip_num(v);
    char *e;
    errno = 0;
    long long x = strtoll(v, &e, 10);
    if (end == NULL || e != end || errno)
        fail_msg("JSON field \"%s\" is not an integer: %.40s", key, v);
    return x;
}

double tu_json_num(const char *obj, const char *key)
{
    const char *v = tu_json_need(obj, key);
    const char *end = jskip_num(v);
    char *e;
    double x = strtod(v, &e);
    if (end == NULL || e != end)
        fail_msg("JSON field \"%s\" is not a number: %.40s", key, v);
    return x;
}

int tu_json_bool(const char *obj, const char *key)
{
    const char *v = tu_json_need(obj, key);
    if (strncmp(v, "true", 4) == 0)
        return 1;
    if (strncmp(v, "false", 5) == 0)
        return 0;
    fail_msg("JSON field \"%s\" is not a boolean: %.40s", key, v);
    return -1;
}

const char *tu_json_str(const char *obj, const char *key, char *buf, size_t cap)
{
    const char *v = tu_json_need(obj, key);
    if (*v != '"')
        fail_msg("JSON field \"%s\" is not a string: %.40s", key, v);
    size_t n = 0;
    for (const char *p = v + 1; *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case 'r':
                c = '\r';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'u': {
                char hex[5] = {p[1], p[2], p[3], p[4], 0};
                c = (char) strtol(hex, NULL, 16);
                p += 4;
                break;
            }
            default:
                c = *p;
                break;
            }
        }
        assert_true(n + 1 < cap);
        buf[n++] = c;
    }
    buf[n] = '\0';
    return buf;
}

/* The elements of an array of numbers: integers into iv when it is given, else numbers into dv. */
static size_t jarray(const char *obj, const char *key, int64_t *iv, double *dv, size_t cap)
{
    const char *p = tu_json_need(obj, key);
    if (*p != '[')
        fail_msg("JSON field \"%s\" is not an array: %.40s", key, p);
    size_t n = 0;
    p = tu_json_ws(p + 1);
    while (*p != ']') {
        char *e;
        assert_true(n < cap);
        if (iv)
            iv[n] = strtoll(p, &e, 10);
        else
            dv[n] = strtod(p, &e);
        if (e == p || jskip_num(p) == NULL || (iv && jskip_num(p) != e))
            fail_msg("JSON array \"%s\" holds a non-%s: %.40s", key, iv ? "integer" : "number", p);
        n++;
        p = tu_json_ws(e);
        if (*p == ',')
            p = tu_json_ws(p + 1);
    }
    return n;
}

size_t tu_json_ints(const char *obj, const char *key, int64_t *v, size_t cap)
{
    return jarray(obj, key, v, NULL, cap);
}

size_t tu_json_nums(const char *obj, const char *key, double *v, size_t cap)
{
    return jarray(obj, key, NULL, v, cap);
}
