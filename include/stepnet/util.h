/* Small helpers shared by every module: allocation that aborts on out-of-memory for control
 * structures, a growable byte buffer and 64-bit mixing hashes. Pure: no I/O, no globals. */
#ifndef STEPNET_UTIL_H
#define STEPNET_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* malloc/calloc/realloc that abort the process with a message on out-of-memory. Used for control
 * structures whose size the caller has already bounded; sizes that come from the wire or from the
 * user are checked before they reach these. `sn_xcalloc` checks nmemb*size for overflow. */
void *sn_xmalloc(size_t size);
void *sn_xcalloc(size_t nmemb, size_t size);
void *sn_xrealloc(void *ptr, size_t size);
char *sn_xstrdup(const char *s);

/* The edit distance between the first na characters of a and b, counting an insertion, a
 * deletion, a substitution or a swap of two neighbours as one edit (optimal string alignment),
 * capped at cap + 1: all that is asked is whether it is small. Words of 64 characters or more
 * are cap + 1 away from everything. */
size_t sn_edit_distance(const char *a, size_t na, const char *b, size_t cap);

/* "Did you mean": the candidate nearest to the first len characters of word, if it is near enough
 * to be a typo of it (one edit for a word of 3 to 5 characters, two from 6; none below 3, where
 * an edit makes another word), else NULL. The first of equally near candidates wins; NULL
 * candidates are skipped, and so is a candidate equal to word (nothing to suggest). */
const char *sn_suggest(const char *word, size_t len, const char *const *cands, size_t n);

/* Grows `*arr` (element size `elem`) so that it holds at least `need` elements; `*cap` is updated.
 * Doubles, so appends are amortised O(1). */
void sn_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* splitmix64 finaliser: a bijective 64-bit mix with good avalanche. */
static inline uint64_t sn_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Combines a running hash with one more 64-bit word (order-dependent). */
static inline uint64_t sn_hash_step(uint64_t h, uint64_t w)
{
    return sn_mix64(h ^ (w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* Integer helpers. */
static inline uint64_t sn_ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* The position of x in a[0..n-1], sorted ascending without repeats, or -1 when it is not there
 * (binary search). */
int64_t sn_u32_index(const uint32_t *a, uint32_t n, uint32_t x);

/* qsort comparators: ascending uint64_t and double values. */
int sn_cmp_u64(const void *a, const void *b);
int sn_cmp_double(const void *a, const void *b);

/* Formats a byte count for messages: "812 bytes", "7.5 GiB", "812 MiB". Returns buf. */
const char *sn_fmt_bytes(uint64_t bytes, char *buf, size_t cap);

#endif
