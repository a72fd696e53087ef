/* Allocation helpers and growable arrays for the whole project (core/util).
 * Out-of-memory on a control allocation is not recoverable in a meaningful way, so it aborts with
 * a message instead of threading ENOMEM through every caller: one sn_xmalloc for the whole tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepnet/util.h"

static void oom(size_t size)
{
    fprintf(stderr, "stepnet: out of memory allocating %zu bytes\n", size);
    abort();
}

void *sn_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        oom(size);
    return p;
}

void *sn_xcalloc(size_t nmemb, size_t size)
{
    if (size != 0 && nmemb > SIZE_MAX / size)
        oom(SIZE_MAX);
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        oom(nmemb * size);
    return p;
}

void *sn_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL)
        oom(size);
    return p;
}

char *sn_xstrdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = sn_xmalloc(len);
    memcpy(p, s, len);
    return p;
}

#define EDIT_MAXN 64
size_t sn_edit_distance(const char *a, size_t na, const char *b, size_t cap)
{
    size_t nb = strlen(b), rows[3][EDIT_MAXN];
    if (na >= EDIT_MAXN || nb >= EDIT_MAXN)
        return cap + 1;
    for (size_t j = 0; j <= nb; j++)
        rows[0][j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t *cur = rows[i % 3], *up = rows[(i - 1) % 3], *up2 = rows[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t best = up[j - 1] + (a[i - 1] != b[j - 1]);
            if (up[j] + 1 < best)
                best = up[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                up2[j - 2] + 1 < best)
                best = up2[j - 2] + 1;
            cur[j] = best;
        }
    }
    size_t d = rows[na % 3][nb];
    return d > cap ? cap + 1 : d;
}

const char *sn_suggest(const char *word, size_t len, const char *const *cands, size_t n)
{
    size_t allowed = len >= 6 ? 2 : len >= 3 ? 1 : 0;
    const char *best = NULL;
    size_t best_d = allowed + 1;
    for (size_t i = 0; i < n; i++) {
        if (cands[i] == NULL || (strlen(cands[i]) == len && memcmp(cands[i], word, len) == 0))
            continue;
        size_t d = sn_edit_distance(word, len, cands[i], allowed);
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    return best;
}

void sn_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    if (ncap > SIZE_MAX / elem)
        oom(SIZE_MAX);
    *arr = sn_xrealloc(*arr, ncap * elem);
    *cap = ncap;
}

const char *sn_fmt_bytes(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double) bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu bytes", (unsigned long long) bytes);
    else
        snprintf(buf, cap, v < 10.0 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

int64_t sn_u32_index(const uint32_t *a, uint32_t n, uint32_t x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && a[lo] == x) ? (int64_t) lo : -1;
}

int sn_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

int sn_cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}
