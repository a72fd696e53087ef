/* The rotation-necklace framework of the torus MT_{n,k} (core/algo): necklaces, generators,
 * displacements, periods, the splitting modulus, tree 0, the BST and the BSG trees, computed from
 * node labels. Source: Fragopoulou and Akl, torus framework, section 2 (Defs. 1-7, Lemmas 1-5)
 * and section 3 (Defs. 8-9, Lemmas 6-7, Figs. 2-3).
 *
 * Departures from the paper (docs/reproduction.md, "torus framework errata"):
 *  - parent rule of tree 0 (Def. 8): the lowest nonzero digit x moves to x-1 when 2x < k and to
 *    x+1 otherwise; the printed rule sends x = k/2 (k even) to k/2-1, a node outside tree 0;
 *  - BST (Def. 8, Lemma 6): for even k a nonfull node can be internal in tree 0, so the literal
 *    rule parent(w) = R^D(w)(parent0(gen(w))) leaves "orphans" whose parent has another
 *    displacement; an orphan takes instead its first neighbour (g_0^-1, g_0^+1, g_1^-1, ...) one
 *    hop closer to 0^n with the same displacement, so root subtree i is exactly {D = i}. */
#include "core/algo/engine/torus_necklace.h"
#include "stepnet/util.h"

#include <stdlib.h>
#include <string.h>

int sn__tnk_get(const sn_topo_t *t, uint32_t *n, uint32_t *k, const char *who, sn_err_t *err)
{
    uint32_t nn = 0, kk = 0;
    if (t->kind == SN_TOPO_RING && t->nfactors == 0) {
        nn = 1;
        kk = t->n;
    } else if (t->kind == SN_TOPO_TORUS && t->nfactors >= 1) {
        nn = t->nfactors;
        kk = t->factors[0]->n;
        for (uint32_t f = 1; f < nn; f++)
            if (t->factors[f]->n != kk)
                kk = 0;
    }
    if (nn == 0 || kk < 3 || nn > SN_TNK_MAX_DIMS || t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs a k-ary n-dimensional torus with equal sides k >= 3 "
                          "(torus:KxK...xK with up to %u dimensions, or ring:K); %s is not one",
                          who, SN_TNK_MAX_DIMS, t->spec);
    if (t->n > SN_TNK_MAX_NODES)
        return sn_err_set(err, SN_ERANGE,
                          "%s keeps its necklace tables for at most %u nodes; %s has %u", who,
                          SN_TNK_MAX_NODES, t->spec, t->n);
    *n = nn;
    *k = kk;
    return 0;
}

int sn__tnk_for(const sn_topo_t *t, const char *who, sn_tnk_t **out, sn_err_t *err)
{
    uint32_t n = 0, k = 0;
    int rc = sn__tnk_get(t, &n, &k, who, err);
    if (rc < 0)
        return rc;
    *out = sn__tnk_new(n, k, err);
    return *out ? 0 : SN_EALGO;
}

uint32_t sn__tnk_trans(const sn_tnk_t *tk, uint32_t s, uint32_t v, int add)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < tk->n; i++) {
        uint32_t a = sn__tnk_digit(tk, v, i), b = sn__tnk_digit(tk, s, i);
        r += ((add ? a + b : a + tk->k - b) % tk->k) * tk->pw[i];
    }
    return r;
}

uint32_t sn__tnk_rot(const sn_tnk_t *tk, uint32_t v, uint32_t i)
{
    uint32_t n = tk->n, k = tk->k, r = 0;
    i %= 2 * n;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t x = sn__tnk_digit(tk, v, (j + i) % n);
        if (((j + i) / n) % 2 == 1)
            x = (k - x) % k;
        r += x * tk->pw[j];
    }
    return r;
}

uint32_t sn__tnk_port(const sn_tnk_t *tk, uint32_t a, uint32_t b)
{
    uint32_t at = SN_TNK_NONE, port = SN_TNK_NONE;
    for (uint32_t i = 0; i < tk->n; i++) {
        uint32_t x = sn__tnk_digit(tk, a, i), y = sn__tnk_digit(tk, b, i);
        if (x == y)
            continue;
        if (at != SN_TNK_NONE)
            return SN_TNK_NONE;
        at = i;
        uint32_t d = (y + tk->k - x) % tk->k;
        if (d == 1)
            port = 2 * (tk->n - 1 - i);
        else if (d == tk->k - 1)
            port = 2 * (tk->n - 1 - i) + 1;
        else
            return SN_TNK_NONE;
    }
    return port;
}

/* |x| = min(x, k - x). */
static uint32_t absd(uint32_t x, uint32_t k)
{
    return x < k - x ? x : k - x;
}

/* Def. 4: 1 when a is a better generator candidate than b: the larger binary correspondent (the
 * mask of nonzero digits, digit n-1 most significant), then the larger label, compared from digit
 * n-1 down in the digit order 0 < 1 < k-1 < 2 < k-2 < ... < ceil(k/2). */
static int gen_better(const sn_tnk_t *tk, uint32_t a, uint32_t b)
{
    uint32_t ma = 0, mb = 0;
    for (uint32_t i = tk->n; i-- > 0;) {
        ma = 2 * ma + (sn__tnk_digit(tk, a, i) != 0);
        mb = 2 * mb + (sn__tnk_digit(tk, b, i) != 0);
    }
    if (ma != mb)
        return ma > mb;
    for (uint32_t i = tk->n; i-- > 0;) {
        uint32_t x = sn__tnk_digit(tk, a, i), y = sn__tnk_digit(tk, b, i), k = tk->k;
        uint32_t kx = 2 * absd(x, k) + (x > k - x), ky = 2 * absd(y, k) + (y > k - y);
        if (kx != ky)
            return kx > ky;
    }
    return 0;
}

/* Tree-0 parent of a generator g != 0 (strict rule, erratum A). */
static uint32_t parent0_of(const sn_tnk_t *tk, uint32_t g)
{
    for (uint32_t p = 0; p < tk->n; p++) {
        uint32_t x = sn__tnk_digit(tk, g, p);
        if (x == 0)
            continue;
        uint32_t y = 2 * x < tk->k ? x - 1 : (x + 1) % tk->k;
        return g - x * tk->pw[p] + y * tk->pw[p];
    }
    return SN_TNK_NONE;
}

void sn__tnk_free(sn_tnk_t *tk)
{
    if (tk == NULL)
        return;
    free(tk->D);
    free(tk->P);
    free(tk->gen);
    free(tk->dist);
    free(tk->parent0);
    free(tk->bst_parent);
    free(tk->table);
    free(tk->dfs);
    free(tk);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The necklaces: every node's distance, generator (the best of its orbit under rotation),
 * period and displacement, the splitting modulus L, and the counts of generators. */
static void necklace_orbits(sn_tnk_t *tk)
{
    uint32_t n = tk->n, k = tk->k, N = tk->N;
    uint32_t two_n = 2 * n;
    uint64_t L = 1;
    /* necklaces: the generator of each orbit, then every member's displacement */
    for (uint32_t v = 0; v < N; v++) {
        uint32_t d = 0;
        for (uint32_t i = 0; i < n; i++)
            d += absd(sn__tnk_digit(tk, v, i), k);
        tk->dist[v] = d;
        tk->parent0[v] = SN_TNK_NONE;
        uint32_t g = v, w = v, P = 0;
        do {
            w = sn__tnk_rot(tk, w, 1);
            P++;
            if (gen_better(tk, w, g))
                g = w;
        } while (w != v);
        tk->gen[v] = g;
        tk->P[v] = (uint8_t) P;
        if (v != 0)
            L = L / gcd64(L, two_n / P) * (two_n / P);
    }
    tk->L = (uint32_t) L;
    for (uint32_t v = 0; v < N; v++) {
        uint32_t g = tk->gen[v], w = g, i = 0;
        while (w != v) {
            w = sn__tnk_rot(tk, w, 1);
            i++;
        }
        tk->D[v] = (uint8_t) i;
        if (v != 0 && g == v) {
            tk->ngen++;
            if (tk->P[v] == two_n)
                tk->nfull++;
        }
    }
}

/* Tree 0 over the generators (tk->parent0) and the table of generators by decreasing distance.
 * SN_EALGO when a generator's parent is not a generator one hop closer. */
static int necklace_tree0(sn_tnk_t *tk, sn_err_t *err)
{
    uint32_t n = tk->n, k = tk->k, N = tk->N;
    /* tree 0: every generator's parent must again be a generator, one hop closer */
    tk->table = sn_xmalloc((tk->ngen ? tk->ngen : 1) * sizeof *tk->table);
    uint32_t m = 0;
    for (uint32_t v = 1; v < N; v++) {
        if (tk->gen[v] != v)
            continue;
        uint32_t a = parent0_of(tk, v);
        if (tk->gen[a] != a || tk->dist[a] + 1 != tk->dist[v]) {
            sn_err_set(err, SN_EALGO,
                       "torus framework MT_{%u,%u}: the tree-0 parent %u of %u is "
                       "not a generator one hop closer",
                       n, k, a, v);
            return SN_EALGO;
        }
        tk->parent0[v] = a;
        tk->table[m++] = v;
    }
    /* the table: decreasing distance, ties by node id (a stable insertion sort: ids ascend) */
    for (uint32_t i = 1; i < m; i++) {
        uint32_t x = tk->table[i], j = i;
        while (j > 0 && tk->dist[tk->table[j - 1]] < tk->dist[x]) {
            tk->table[j] = tk->table[j - 1];
            j--;
        }
        tk->table[j] = x;
    }
    return 0;
}

/* The DFS pre-order of tree 0 (tk->dfs), children by increasing id: an explicit stack over child
 * lists. SN_EALGO unless it reaches every generator. */
static int necklace_dfs(sn_tnk_t *tk, sn_err_t *err)
{
    uint32_t n = tk->n, k = tk->k, N = tk->N;
    uint32_t *off = sn_xcalloc((size_t) N + 1, sizeof *off);
    uint32_t *ch = sn_xmalloc((tk->ngen ? tk->ngen : 1) * sizeof *ch);
    for (uint32_t v = 1; v < N; v++)
        if (tk->parent0[v] != SN_TNK_NONE)
            off[tk->parent0[v] + 1]++;
    for (uint32_t v = 0; v < N; v++)
        off[v + 1] += off[v];
    uint32_t *fill = sn_xmalloc((size_t) N * sizeof *fill);
    memcpy(fill, off, (size_t) N * sizeof *fill);
    for (uint32_t v = 1; v < N; v++)
        if (tk->parent0[v] != SN_TNK_NONE)
            ch[fill[tk->parent0[v]]++] = v;
    tk->dfs = sn_xmalloc((tk->ngen ? tk->ngen : 1) * sizeof *tk->dfs);
    uint32_t *stack = fill, sp = 0, nd = 0; /* reuse: at most ngen + 1 entries */
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        if (v != 0)
            tk->dfs[nd++] = v;
        for (uint32_t c = off[v + 1]; c-- > off[v];)
            stack[sp++] = ch[c];
    }
    free(off);
    free(ch);
    free(fill);
    if (nd != tk->ngen) {
        sn_err_set(err, SN_EALGO,
                   "torus framework MT_{%u,%u}: tree 0 reaches %u of %u "
                   "generators",
                   n, k, nd, tk->ngen);
        return SN_EALGO;
    }
    return 0;
}

/* The BST (tk->bst_parent): the literal parent, or the repair for orphans (erratum B). SN_EALGO
 * when an orphan has no repair. */
static int necklace_bst(sn_tnk_t *tk, sn_err_t *err)
{
    uint32_t n = tk->n, k = tk->k, N = tk->N;
    /* BST: the literal parent, or the repair for orphans (erratum B) */
    tk->bst_parent[0] = SN_TNK_NONE;
    for (uint32_t w = 1; w < N; w++) {
        uint32_t D = tk->D[w], c = sn__tnk_rot(tk, tk->parent0[tk->gen[w]], D);
        if (c != 0 && tk->D[c] != D) {
            tk->norphans++;
            c = SN_TNK_NONE;
            for (uint32_t i = 0; i < n && c == SN_TNK_NONE; i++)
                for (uint32_t s = 0; s < 2 && c == SN_TNK_NONE; s++) {
                    uint32_t x = sn__tnk_digit(tk, w, i),
                             y = s == 0 ? (x + k - 1) % k : (x + 1) % k;
                    uint32_t b = w - x * tk->pw[i] + y * tk->pw[i];
                    if (tk->dist[b] + 1 == tk->dist[w] && tk->D[b] == D)
                        c = b;
                }
            if (c == SN_TNK_NONE) {
                sn_err_set(err, SN_EALGO,
                           "torus framework MT_{%u,%u}: node %u has no BST parent "
                           "with displacement %u",
                           n, k, w, D);
                return SN_EALGO;
            }
        }
        tk->bst_parent[w] = c;
    }
    return 0;
}

sn_tnk_t *sn__tnk_new(uint32_t n, uint32_t k, sn_err_t *err)
{
    uint64_t N = 1;
    for (uint32_t i = 0; i < n && N <= SN_TNK_MAX_NODES; i++)
        N *= k;
    if (n < 1 || n > SN_TNK_MAX_DIMS || k < 3 || N > SN_TNK_MAX_NODES) {
        sn_err_set(err, SN_ERANGE,
                   "the torus framework needs 1 <= n <= %u, k >= 3 and k^n <= %u (n = %u, k = %u)",
                   SN_TNK_MAX_DIMS, SN_TNK_MAX_NODES, n, k);
        return NULL;
    }
    sn_tnk_t *tk = sn_xcalloc(1, sizeof *tk);
    tk->n = n;
    tk->k = k;
    tk->N = (uint32_t) N;
    tk->pw[0] = 1;
    for (uint32_t i = 1; i <= n; i++)
        tk->pw[i] = tk->pw[i - 1] * k;
    tk->D = sn_xmalloc(N);
    tk->P = sn_xmalloc(N);
    tk->gen = sn_xmalloc(N * sizeof *tk->gen);
    tk->dist = sn_xmalloc(N * sizeof *tk->dist);
    tk->parent0 = sn_xmalloc(N * sizeof *tk->parent0);
    tk->bst_parent = sn_xmalloc(N * sizeof *tk->bst_parent);
    necklace_orbits(tk);
    if (necklace_tree0(tk, err) < 0 || necklace_dfs(tk, err) < 0 || necklace_bst(tk, err) < 0) {
        sn__tnk_free(tk);
        return NULL;
    }
    return tk;
}

int sn__tnk_in_tree(const sn_tnk_t *tk, uint32_t w, uint32_t i)
{
    return w == 0 || tk->D[w] == i % tk->P[w];
}

uint32_t sn__tnk_tree_parent(const sn_tnk_t *tk, uint32_t w, uint32_t i)
{
    if (w == 0 || !sn__tnk_in_tree(tk, w, i))
        return SN_TNK_NONE;
    return sn__tnk_rot(tk, tk->parent0[tk->gen[w]], i);
}

uint32_t sn__tnk_next_hop(const sn_tnk_t *tk, uint32_t w, uint32_t x, uint32_t i)
{
    uint32_t back = 2 * tk->n - i % (2 * tk->n);
    uint32_t w0 = sn__tnk_rot(tk, w, back), x0 = sn__tnk_rot(tk, x, back);
    for (uint32_t q = tk->n; q-- > 0;) {
        uint32_t a = sn__tnk_digit(tk, w0, q), b = sn__tnk_digit(tk, x0, q);
        if (a == b)
            continue;
        uint32_t y = 2 * b < tk->k ? a + 1 : (a + tk->k - 1) % tk->k;
        return sn__tnk_rot(tk, w0 - a * tk->pw[q] + y * tk->pw[q], i);
    }
    return SN_TNK_NONE;
}

/* ---- necklace counts ------------------------------------------------------------------------ */

static uint64_t upow(uint64_t b, uint32_t e)
{
    uint64_t r = 1;
    while (e-- > 0)
        r *= b;
    return r;
}

static int moebius(uint32_t x)
{
    int mu = 1;
    for (uint32_t p = 2; p * p <= x; p++)
        if (x % p == 0) {
            x /= p;
            if (x % p == 0)
                return 0;
            mu = -mu;
        }
    return x > 1 ? -mu : mu;
}

sn_tnk_counts_t sn__tnk_counts(uint32_t n, uint32_t k)
{
    /* Fix(R^j) = c^gcd(j, n), c = k when j / gcd is even, else 2 (k even) or 1 (k odd) (R^j
     * permutes the digits in gcd(j, n) cycles, each negated an odd or even number of times). */
    uint32_t two_n = 2 * n;
    uint64_t fix[2 * SN_TNK_MAX_DIMS + 1], exact[2 * SN_TNK_MAX_DIMS + 1] = {0};
    for (uint32_t j = 1; j <= two_n; j++) {
        uint32_t g = (uint32_t) gcd64(j, n);
        uint64_t c = (j / g) % 2 == 0 ? k : (k % 2 == 0 ? 2 : 1);
        fix[j] = upow(c, g);
    }
    sn_tnk_counts_t c = {0};
    c.L = 1;
    for (uint32_t P = 1; P <= two_n; P++) {
        if (two_n % P != 0)
            continue;
        int64_t e = 0;
        for (uint32_t d = 1; d <= P; d++)
            if (P % d == 0)
                e += moebius(P / d) * (int64_t) fix[d];
        exact[P] = (uint64_t) e;
        c.necklaces += exact[P] / P;
        if (P < two_n)
            c.nonfull += exact[P];
        uint64_t nonzero = P == 1 ? exact[P] - 1 : exact[P];
        if (nonzero > 0)
            c.L = c.L / gcd64(c.L, two_n / P) * (two_n / P);
    }
    c.full = exact[two_n] / two_n;
    return c;
}

sn_tnk_counts_t sn__tnk_counts_of(const sn_tnk_t *tk)
{
    sn_tnk_counts_t c = {0};
    c.necklaces = tk->ngen + 1;
    c.full = tk->nfull;
    c.L = tk->L;
    for (uint32_t v = 0; v < tk->N; v++)
        if (tk->P[v] < 2 * tk->n)
            c.nonfull++;
    return c;
}
