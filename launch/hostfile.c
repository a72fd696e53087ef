/* Host lists for `stepnet run --hosts` (launch): parsing hostfiles (Open MPI's syntax where
 * it fits) and mpirun -H style lists, placing ranks on hosts, splitting the --ssh command. Pure
 * except sn_launch_hosts_load, which reads the file it is given. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stepnet/fileio.h"
#include "launch/hostfile.h"
#include "stepnet/util.h"

void sn_launch_hostlist_free(sn_hostlist_t *hl)
{
    free(hl->hosts);
    hl->hosts = NULL;
    hl->n = 0;
}

void sn_launch_host_format(const sn_host_t *h, char *buf, size_t cap)
{
    int v6 = strchr(h->name, ':') != NULL;
    char port[8] = "";
    if (h->port)
        snprintf(port, sizeof port, ":%u", (unsigned) h->port);
    snprintf(buf, cap, "%s%s%s%s%s%s", h->user, h->user[0] ? "@" : "", v6 && h->port ? "[" : "",
             h->name, v6 && h->port ? "]" : "", port);
}

/* ---- one entry ------------------------------------------------------------------------------- */

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

/* A decimal from lo to hi, all of [s, s+len). */
static int parse_num(const char *s, size_t len, long lo, long hi, long *out)
{
    if (len == 0 || len > 9)
        return -1;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    if (x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* `[user@]host[:N]` of `len` bytes into h (user, name; N into *num, -1 when absent). `what` says
 * what N is in errors ("port" or "slots"). */
static int parse_target(const char *s, size_t len, const char *what, long numhi, sn_host_t *h,
                        long *num, const char *where, sn_err_t *err)
{
    const char *s0 = s;
    size_t len0 = len;
    memset(h, 0, sizeof *h);
    *num = -1;
    const char *at = memchr(s, '@', len);
    if (at) {
        size_t ul = (size_t) (at - s);
        if (ul == 0 || ul >= sizeof h->user || s[0] == '-')
            goto bad_user;
        for (size_t i = 0; i < ul; i++)
            if (!name_char(s[i]))
                goto bad_user;
        memcpy(h->user, s, ul);
        len -= ul + 1;
        s = at + 1;
    }
    const char *rest;
    size_t nl;
    if (len > 0 && s[0] == '[') { /* [IPv6] */
        const char *close = memchr(s, ']', len);
        if (close == NULL)
            goto bad_host;
        nl = (size_t) (close - s - 1);
        for (size_t i = 1; i <= nl; i++)
            if (!(name_char(s[i]) || s[i] == ':' || s[i] == '%') || s[i] == '_')
                goto bad_host;
        if (nl == 0 || memchr(s + 1, ':', nl) == NULL)
            goto bad_host;
        memcpy(h->name, s + 1, nl < sizeof h->name ? nl : 0);
        rest = close + 1;
    } else {
        const char *colon = memchr(s, ':', len);
        nl = colon ? (size_t) (colon - s) : len;
        for (size_t i = 0; i < nl; i++)
            if (!name_char(s[i]))
                goto bad_host;
        memcpy(h->name, s, nl < sizeof h->name ? nl : 0);
        rest = s + nl;
    }
    /* ssh would take a leading '-' as an option */
    if (nl == 0 || nl >= sizeof h->name || h->name[0] == '-')
        goto bad_host;
    size_t rl = len - (size_t) (rest - s);
    if (rl > 0) {
        if (rest[0] != ':' || parse_num(rest + 1, rl - 1, 1, numhi, num) < 0)
            return sn_err_inval(err, "%s: bad %s in '%.*s': expected HOST:N with N from 1 to %ld",
                                where, what, (int) len0, s0, numhi);
    }
    return 0;
bad_user:
    return sn_err_inval(
        err,
        "%s: bad user in '%.*s': expected letters, digits, '.', '_' or '-' (not first) "
        "before '@'",
        where, (int) len0, s0);
bad_host:
    return sn_err_inval(
        err,
        "%s: bad host in '%.*s': expected a host name or IPv4 address (letters, digits, "
        "'.', '-', '_', not starting with '-'; at most %d characters) or an [IPv6] address",
        where, (int) len0, s0, SN_HOST_MAX_NAME - 1);
}

static void add_host(sn_hostlist_t *hl, size_t *cap, const sn_host_t *h)
{
    sn_grow((void **) &hl->hosts, cap, hl->n + 1, sizeof *hl->hosts);
    hl->hosts[hl->n++] = *h;
}

/* ---- hostfile -------------------------------------------------------------------------------- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int sn_launch_hostfile_parse(const char *text, size_t len, const char *origin, sn_hostlist_t *out,
                             sn_err_t *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    char where[SN_HOST_MAX_NAME + 32];
    if (len > SN_HOST_MAX_TEXT) {
        sn_err_inval(err, "%s: %zu bytes; a hostfile may have at most %d", origin, len,
                     SN_HOST_MAX_TEXT);
        goto fail;
    }
    if (memchr(text, '\0', len)) {
        sn_err_inval(err, "%s: a NUL byte; a hostfile is text", origin);
        goto fail;
    }
    size_t lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nlp = memchr(line, '\n', len - pos);
        size_t ll = nlp ? (size_t) (nlp - line) : len - pos;
        pos += ll + 1;
        lineno++;
        snprintf(where, sizeof where, "%.*s line %zu", SN_HOST_MAX_NAME, origin, lineno);
        const char *hash = memchr(line, '#', ll);
        if (hash)
            ll = (size_t) (hash - line);
        /* tokens: the target, then key=value pairs */
        size_t i = 0;
        int have_target = 0, have_slots = 0;
        sn_host_t h;
        while (i < ll) {
            while (i < ll && is_space(line[i]))
                i++;
            size_t start = i;
            while (i < ll && !is_space(line[i]))
                i++;
            if (i == start)
                break;
            const char *tok = line + start;
            size_t tl = i - start;
            if (!have_target) {
                long port;
                if (parse_target(tok, tl, "port", 65535, &h, &port, where, err) < 0)
                    goto fail;
                h.port = port > 0 ? (uint16_t) port : 0;
                h.slots = 1;
                have_target = 1;
                continue;
            }
            long slots;
            if (tl > 6 && memcmp(tok, "slots=", 6) == 0 && !have_slots) {
                if (parse_num(tok + 6, tl - 6, 1, SN_HOST_MAX_SLOTS, &slots) < 0) {
                    sn_err_inval(err, "%s: bad value '%.*s': expected slots=N with N from 1 to %d",
                                 where, (int) tl, tok, SN_HOST_MAX_SLOTS);
                    goto fail;
                }
                h.slots = (uint32_t) slots;
                have_slots = 1;
                continue;
            }
            const char *eq = memchr(tok, '=', tl);
            static const char *const keys[] = {"slots"};
            const char *near = eq ? sn_suggest(tok, (size_t) (eq - tok), keys, 1) : NULL;
            if (near && !have_slots)
                sn_err_inval(err,
                             "%s: unknown key '%.*s': did you mean %s? a line is "
                             "[user@]host[:port] [slots=N]",
                             where, (int) (eq - tok), tok, near);
            else
                sn_err_inval(err, "%s: unexpected '%.*s': a line is [user@]host[:port] [slots=N]",
                             where, (int) tl, tok);
            goto fail;
        }
        if (!have_target)
            continue;
        if (out->n >= SN_HOST_MAX_HOSTS) {
            sn_err_inval(err, "%s: more than %d hosts", origin, SN_HOST_MAX_HOSTS);
            goto fail;
        }
        add_host(out, &cap, &h);
    }
    if (out->n == 0) {
        sn_err_inval(err, "%s: no hosts (one per line: [user@]host[:port] [slots=N])", origin);
        goto fail;
    }
    return 0;
fail:
    sn_launch_hostlist_free(out);
    return SN_EINVAL;
}

/* ---- -H list --------------------------------------------------------------------------------- */

int sn_launch_hostlist_parse(const char *list, sn_hostlist_t *out, sn_err_t *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    const char *s = list;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t) (comma - s) : strlen(s);
        sn_host_t h;
        long slots;
        if (len == 0) {
            sn_err_inval(err,
                         "bad value '%s' for " SN_REF_HOSTS
                         ": an empty entry; expected host[:slots],...",
                         list);
            goto fail;
        }
        if (parse_target(s, len, "slots", SN_HOST_MAX_SLOTS, &h, &slots, SN_REF_HOSTS, err) < 0)
            goto fail;
        h.slots = slots > 0 ? (uint32_t) slots : 1;
        if (out->n >= SN_HOST_MAX_HOSTS) {
            sn_err_inval(err, SN_REF_HOSTS ": more than %d hosts", SN_HOST_MAX_HOSTS);
            goto fail;
        }
        add_host(out, &cap, &h);
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    return 0;
fail:
    sn_launch_hostlist_free(out);
    return SN_EINVAL;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

int sn_launch_hosts_names_file(const char *arg)
{
    return strchr(arg, '/') != NULL || ends_with(arg, ".hosts") || ends_with(arg, ".txt");
}

int sn_launch_hosts_load(const char *arg, sn_hostlist_t *out, sn_err_t *err)
{
    struct stat st;
    int exists = stat(arg, &st) == 0 && S_ISREG(st.st_mode);
    memset(out, 0, sizeof *out);
    if (!exists && !sn_launch_hosts_names_file(arg))
        return sn_launch_hostlist_parse(arg, out, err);
    if (!exists)
        return sn_err_inval(err,
                            SN_REF_HOSTS
                            ": cannot read the hostfile %s: %s (a value with a '/' or "
                            "ending in .hosts or .txt is a hostfile; hosts themselves are given "
                            "as host[:slots],...)",
                            arg, stat(arg, &st) == 0 ? "not a regular file" : strerror(errno));
    if (st.st_size > SN_HOST_MAX_TEXT)
        return sn_err_inval(err, SN_REF_HOSTS ": %s has %lld bytes; a hostfile may have at most %d",
                            arg, (long long) st.st_size, SN_HOST_MAX_TEXT);
    const char *why;
    FILE *f = sn_fopen_regular(arg, &why);
    if (f == NULL)
        return sn_err_inval(err, SN_REF_HOSTS ": cannot read the hostfile %s: %s", arg, why);
    char *buf = sn_xmalloc(SN_HOST_MAX_TEXT + 1);
    size_t n = fread(buf, 1, SN_HOST_MAX_TEXT + 1, f);
    int rerr = ferror(f);
    fclose(f);
    int rc;
    if (rerr)
        rc = sn_err_inval(err, SN_REF_HOSTS ": cannot read the hostfile %s", arg);
    else
        rc = sn_launch_hostfile_parse(buf, n, arg, out, err);
    free(buf);
    return rc;
}

/* ---- placement ------------------------------------------------------------------------------- */

int sn_launch_hosts_place(const sn_hostlist_t *hl, uint32_t n, sn_map_by_t by, uint32_t *rank_host,
                          sn_err_t *err)
{
    uint64_t total = 0;
    for (size_t h = 0; h < hl->n; h++)
        total += hl->hosts[h].slots;
    if (total < n)
        return sn_err_inval(
            err,
            "the topology has %u nodes but the %zu host%s offer%s %llu slot%s: give more "
            "hosts or slots=N (each node is one process on its host)",
            n, hl->n, hl->n == 1 ? "" : "s", hl->n == 1 ? "s" : "", (unsigned long long) total,
            total == 1 ? "" : "s");
    if (by == SN_MAP_BY_SLOT) {
        uint32_t r = 0;
        for (size_t h = 0; h < hl->n && r < n; h++)
            for (uint32_t s = 0; s < hl->hosts[h].slots && r < n; s++)
                rank_host[r++] = (uint32_t) h;
        return 0;
    }
    uint32_t *used = sn_xcalloc(hl->n, sizeof *used);
    uint32_t r = 0;
    while (r < n) /* total >= n: every pass places at least one rank */
        for (size_t h = 0; h < hl->n && r < n; h++)
            if (used[h] < hl->hosts[h].slots) {
                used[h]++;
                rank_host[r++] = (uint32_t) h;
            }
    free(used);
    return 0;
}

/* ---- the ssh command ------------------------------------------------------------------------- */

int sn_launch_ssh_split(const char *text, char *buf, size_t cap, const char **words, size_t max,
                        size_t *nwords, sn_err_t *err)
{
    size_t len = strlen(text);
    *nwords = 0;
    if (len + 1 > cap)
        return sn_err_inval(err, "the ssh command '%.40s...' is longer than %zu characters", text,
                            cap - 1);
    memcpy(buf, text, len + 1);
    size_t n = 0;
    char *p = buf;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (*p == '\0')
            break;
        if (n == max)
            return sn_err_inval(err, "the ssh command '%s' has more than %zu words", text, max);
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    if (n == 0)
        return sn_err_inval(err,
                            "the ssh command is empty; expected a program and its options, e.g. "
                            "\"ssh -p 2222 -i KEY\"");
    *nwords = n;
    return 0;
}
