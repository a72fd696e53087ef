/* Arc-disjoint spanning arborescences rooted at one node (core/algo/engine): see arbor.h.
 * Edmonds, "Edge-disjoint branchings" (1973): k arc-disjoint spanning r-arborescences exist iff
 * every node is k-arc-connected from r. Lovász, "On two minimax theorems in graph theory" (1976),
 * proves it constructively: partial arborescences that keep Edmonds' cut condition can always be
 * extended by an arc that keeps it. That proof is the algorithm here, all k trees grown together
 * breadth-first, its check one max-flow per arc tried (grow_trees). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/arbor.h"
#include "stepnet/util.h"

#define NONE UINT32_MAX
#define BACK (1u << 31) /* a residual step against an arc's flow */

/* The work limit, SN_ARBOR_VARIANTS x d n x (d + 1) x (arcs + d n) with d the root's degree, which
 * bounds k: every packing grows k n arcs, each after a few checks of at most k + 1 augmenting
 * searches over the arcs and the virtual sources' k n arcs. Measured at 0.3 to 0.6 ns a unit
 * (torus:32x32 2.7e9: 1.2 s; torus:8x8x8 2.1e9: 1.2 s; hypercube:9, 6.8e9, takes 2.3 s and is
 * refused), so the limit keeps a plan under about 2 s. */
#define MAX_WORK 3500000000ull

/* Unit-capacity max-flow on the arcs still in the graph, with k virtual sources z_j, one per tree
 * (see grow_trees). Arc a = port_off[u] + q is u's port q; rev[a] is the arc of the same edge the
 * other way. flow[a] == epoch: a carries flow (the epoch moves on at every new flow, which clears
 * them all); seen[v] == stamp: the search reached v (nodes n .. n+k-1 are the z_j). z_j has one
 * unit of supply and arcs of unbounded capacity to every node of tree j; zto[j] is where its
 * unit goes (NONE: unused, EXTRA: the extra arc to the sink of the tree being extended). */
typedef struct {
    const sn_topo_t *t;
    const sn_arbor_t *a;
    uint32_t *rev, *flow, *seen, *via, *queue, *zto, *cnt;
    uint32_t *dist; /* hops from the root */
    uint8_t *avail; /* 1: the arc is in the graph (in no tree yet) */
    uint32_t epoch, stamp, nz;
} flow_t;

#define START (NONE - 1) /* via[]: a source of the search */
#define EXTRA (NONE - 2) /* zto[]: the extra arc z_i -> sink */
#define ZFWD  (1u << 30) /* via[]: reached from z_j (ZFWD | j) */
#define ZBACK (3u << 30) /* via[] of a z_j: reached against its unit's arc from node x */

/* min(need, the max flow to sink from the source u (unbounded) and from z_0 .. z_{nz-1}); with
 * ext < nz, z_ext also has an arc of capacity 1 to the sink. */
static uint32_t flow_upto(flow_t *f, uint32_t u, uint32_t sink, uint32_t ext, uint32_t need)
{
    const sn_topo_t *t = f->t;
    uint32_t n = t->n, got = 0;
    f->epoch++;
    for (uint32_t j = 0; j < f->nz; j++)
        f->zto[j] = NONE;
    while (got < need) {
        uint32_t head = 0, tail = 0, found = 0;
        f->stamp++;
        f->seen[u] = f->stamp;
        f->via[u] = START;
        f->queue[tail++] = u;
        for (uint32_t j = 0; j < f->nz; j++)
            if (f->zto[j] == NONE) {
                f->seen[n + j] = f->stamp;
                f->via[n + j] = START;
                f->queue[tail++] = n + j;
            }
        while (head < tail && !found) {
            uint32_t x = f->queue[head++];
            if (x >= n) { /* z_j: every node of tree j, and the extra arc */
                uint32_t j = x - n;
                const uint32_t *ord = f->a->order + (size_t) j * n;
                if (j == ext && f->zto[j] != EXTRA && f->seen[sink] != f->stamp) {
                    f->via[sink] = EXTRA;
                    found = 1;
                    break;
                }
                for (uint32_t i = 0; i < f->cnt[j]; i++) {
                    uint32_t y = ord[i];
                    if (f->seen[y] == f->stamp)
                        continue;
                    f->seen[y] = f->stamp;
                    f->via[y] = ZFWD | j;
                    if (y == sink) {
                        found = 1;
                        break;
                    }
                    f->queue[tail++] = y;
                }
                continue;
            }
            for (uint32_t j = 0; j < f->nz; j++) /* back to z_j against its unit into x */
                if (f->zto[j] == x && f->seen[n + j] != f->stamp) {
                    f->seen[n + j] = f->stamp;
                    f->via[n + j] = ZBACK | x;
                    f->queue[tail++] = n + j;
                }
            for (uint32_t a = t->port_off[x]; a < t->port_off[x + 1]; a++) {
                uint32_t y = t->ports[a].peer, b = f->rev[a];
                if (f->seen[y] == f->stamp)
                    continue;
                if (f->avail[a] && f->flow[a] != f->epoch)
                    f->via[y] = a;
                else if (f->flow[b] == f->epoch)
                    f->via[y] = b | BACK; /* cancel the flow y -> x */
                else
                    continue;
                f->seen[y] = f->stamp;
                if (y == sink) {
                    found = 1;
                    break;
                }
                f->queue[tail++] = y;
            }
        }
        if (!found)
            break;
        /* augment from the sink back to a source */
        for (uint32_t y = sink;;) {
            uint32_t v = f->via[y], j = NONE;
            if (v == START)
                break;
            if (v == EXTRA)
                j = ext, f->zto[j] = EXTRA;
            else if ((v & ZBACK) == ZFWD)
                j = v & ~ZBACK, f->zto[j] = y;
            if (j != NONE) { /* on to z_j: its unit now goes to y */
                uint32_t w = f->via[n + j];
                if (w == START)
                    break;
                y = w & ~ZBACK; /* it came from this node, whose unit it took */
                continue;
            }
            if (v & BACK) {
                v &= ~BACK;
                f->flow[v] = 0;
                y = t->ports[v].peer; /* v runs y -> x: step back to x */
            } else {
                f->flow[v] = f->epoch;
                y = t->ports[f->rev[v]].peer; /* v's tail */
            }
        }
        got++;
    }
    return got;
}

static uint64_t arbor_work(const sn_topo_t *t, uint32_t root)
{
    uint64_t d = sn_topo_degree(t, root), n = t->n, m = t->port_off[t->n];
    return SN_ARBOR_VARIANTS * d * n * (d + 1) * (m + d * n);
}

int sn_arbor_applies(const sn_topo_t *t, uint32_t root, const char *name, sn_err_t *err)
{
    if (t->is_router != NULL)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs every node a processor (its trees span every node)", name);
    uint64_t w = arbor_work(t, root);
    if (w > MAX_WORK)
        return sn_err_set(err, SN_ERANGE,
                          "%s plans with at most %llu units of work (%u packings x degree x nodes "
                          "x (degree + 1) x (arcs + degree x nodes), the root's degree); %s "
                          "needs %llu",
                          name, (unsigned long long) MAX_WORK, SN_ARBOR_VARIANTS, t->spec,
                          (unsigned long long) w);
    return 0;
}

/* Adds arc (u, w), u's port q, to tree j. */
static void take_arc(flow_t *f, sn_arbor_t *a, uint32_t j, uint32_t u, uint32_t q, uint8_t *in)
{
    const sn_topo_t *t = f->t;
    uint32_t n = t->n, w = sn_topo_port(t, u, q)->peer;
    size_t o = (size_t) j * n;
    f->avail[t->port_off[u] + q] = 0;
    in[o + w] = 1;
    a->parent[o + w] = u;
    a->pport[o + w] = q;
    a->depth[o + w] = a->depth[o + u] + 1;
    if (a->depth[o + w] > a->height[j])
        a->height[j] = a->depth[o + w];
    a->order[o + f->cnt[j]++] = w;
}

/* One arc for tree j whose tail is at depth L at most: the first that keeps the invariant, tails
 * in the order they joined the tree from *pos (the tails before it had none in this level), each
 * tail's ports from rot (j + 1) on; with fwd, only the arcs that lead away from the root (one
 * hop farther from it in the graph). 0, or -1 when none does. */
static int extend(flow_t *f, sn_arbor_t *a, uint32_t j, uint32_t L, uint32_t *pos, uint8_t *in,
                  uint32_t rot, int fwd)
{
    const sn_topo_t *t = f->t;
    uint32_t n = t->n, k = a->k;
    const uint32_t *ord = a->order + (size_t) j * n, *dep = a->depth + (size_t) j * n;
    for (uint32_t i = *pos; i < f->cnt[j]; i++) {
        uint32_t u = ord[i];
        if (dep[u] > L)
            continue;
        uint32_t deg = sn_topo_degree(t, u);
        for (uint32_t q0 = 0; q0 < deg; q0++) {
            uint32_t q = (q0 + rot * (j + 1)) % deg, arc = t->port_off[u] + q;
            uint32_t w = t->ports[arc].peer;
            if (in[(size_t) j * n + w] || !f->avail[arc] || (fwd && f->dist[w] != f->dist[u] + 1))
                continue;
            if (flow_upto(f, u, w, j, k + 1) <= k)
                continue;
            take_arc(f, a, j, u, q, in);
            *pos = i;
            return 0;
        }
    }
    *pos = f->cnt[j];
    return -1;
}

/* One arc for tree j in mode 0 (see grow_trees): from where its last arc came, then from the
 * root again (an arc refused may become good as the other trees grow); with fwd, an arc that
 * leads away from the root first, on its own position pos[1]. */
static int extend_any(flow_t *f, sn_arbor_t *a, uint32_t j, uint32_t *pos, uint8_t *in,
                      uint32_t rot, int fwd)
{
    for (int pass = fwd ? 0 : 2; pass < 4; pass++) {
        uint32_t *p = &pos[pass < 2 ? 1 : 0];
        if (pass % 2)
            *p = 0;
        if (extend(f, a, j, NONE, p, in, rot, pass < 2) == 0)
            return 0;
    }
    return -1;
}

/* Grows the k trees together, so that none takes the short paths of all the others: in turn,
 * each takes one arc, from the shallowest tail it can (mode 0: from where its last arc came, then
 * from the root again when none is left there), or level by level (mode 1: while some tree can
 * take an arc from a tail at depth L, each takes one in turn; then L + 1, trying every tail
 * again). An arc refused may become good as the others grow, hence the second tries. With fwd,
 * each turn takes an arc that leads away from the root if it can.
 *
 * The invariant is Edmonds' condition for partial trees to extend to k arc-disjoint spanning ones
 * (the one Lovász's proof keeps): with S_j the nodes of tree j and only the arcs of no tree left,
 * every set X of nodes without the root has at least as many arcs entering it as trees that miss
 * it. As a flow: a source z_j per tree, with one unit and unbounded arcs to S_j, sends k units to
 * every node. Adding (u, w) to tree j keeps it exactly when the sets X that hold w and not u have
 * one arc more than that when they meet S_j, as many when they miss it: one max-flow of k + 1
 * into w from u (unbounded) and the z's, with an extra arc of capacity 1 from z_j to w. Lovász's
 * lemma: some arc always extends any tree that does not yet span. */
static int grow_trees(flow_t *f, sn_arbor_t *a, uint32_t root, uint8_t *in, int mode, uint32_t rot,
                      int fwd)
{
    uint32_t n = f->t->n, k = a->k, left = k;
    uint32_t *pos = sn_xcalloc(2 * (size_t) k + 2, sizeof *pos);
    memset(in, 0, (size_t) k * n);
    memset(f->avail, 1, f->t->port_off[n]);
    a->height[0] = 0;
    for (uint32_t j = 0; j < k; j++) {
        size_t o = (size_t) j * n;
        for (uint32_t v = 0; v < n; v++)
            a->parent[o + v] = a->pport[o + v] = NONE;
        in[o + root] = 1;
        a->depth[o + root] = 0;
        a->order[o] = root;
        a->height[j] = 0;
        f->cnt[j] = 1;
    }
    f->nz = k;
    int rc = 0;
    if (mode == 0)
        while (left > 0 && rc == 0)
            for (uint32_t j = 0; j < k && rc == 0; j++) {
                if (f->cnt[j] == n)
                    continue;
                rc = extend_any(f, a, j, &pos[2 * j], in, rot, fwd);
                if (rc == 0 && f->cnt[j] == n)
                    left--;
            }
    for (uint32_t L = 0; mode == 1 && left > 0 && L < n; L++) {
        memset(pos, 0, 2 * k * sizeof *pos);
        for (int moved = 1; moved && left > 0;) {
            moved = 0;
            for (uint32_t j = 0; j < k; j++) {
                if (f->cnt[j] == n)
                    continue;
                if ((!fwd || extend(f, a, j, L, &pos[2 * j + 1], in, rot, 1) < 0) &&
                    extend(f, a, j, L, &pos[2 * j], in, rot, 0) < 0)
                    continue;
                moved = 1;
                if (f->cnt[j] == n)
                    left--;
            }
        }
    }
    free(pos);
    return left == 0 ? 0 : -1;
}

uint64_t sn_arbor_deal(const sn_arbor_t *a, uint32_t M, uint32_t *c)
{
    const uint32_t *h = a->height;
    uint32_t k = a->k;
    uint64_t T = UINT64_MAX, sum = 0;
    if (k == 0)
        return 0;
    for (uint32_t j = 0; j < k; j++)
        if (h[j] < T)
            T = h[j];
    for (;; T++) {
        sum = 0;
        for (uint32_t j = 0; j < k; j++)
            sum += T + 1 > h[j] ? T + 1 - h[j] : 0;
        if (sum >= M)
            break;
    }
    if (c == NULL)
        return T;
    for (uint32_t j = 0; j < k; j++)
        c[j] = T + 1 > h[j] ? (uint32_t) (T + 1 - h[j]) : 0;
    /* the overshoot comes off the tallest trees, which finish last */
    for (uint64_t over = sum - M; over > 0;) {
        uint32_t tall = NONE;
        for (uint32_t j = 0; j < k; j++)
            if (c[j] > 0 && (tall == NONE || h[j] > h[tall]))
                tall = j;
        uint32_t cut = over < c[tall] ? (uint32_t) over : c[tall];
        c[tall] -= cut;
        over -= cut;
    }
    return T;
}

static void arbor_alloc(sn_arbor_t *a, uint32_t k, uint32_t n)
{
    size_t kn = (size_t) k * n;
    *a = (sn_arbor_t){.k = k, .n = n};
    a->parent = sn_xmalloc((kn + 1) * sizeof *a->parent);
    a->pport = sn_xmalloc((kn + 1) * sizeof *a->pport);
    a->depth = sn_xmalloc((kn + 1) * sizeof *a->depth);
    a->order = sn_xmalloc((kn + 1) * sizeof *a->order);
    a->height = sn_xcalloc((size_t) k + 1, sizeof *a->height);
}

int sn_arbor_pack(const sn_topo_t *t, uint32_t root, uint32_t M, const char *name, sn_arbor_t *out,
                  sn_err_t *err)
{
    int rc = sn_arbor_applies(t, root, name, err);
    if (rc < 0)
        return rc;
    uint32_t n = t->n, m = t->port_off[n], d = sn_topo_degree(t, root);
    flow_t f = {.t = t, .a = out, .epoch = 0, .stamp = 0, .nz = 0};
    f.rev = sn_xmalloc(((size_t) m + 1) * sizeof *f.rev);
    f.flow = sn_xcalloc((size_t) m + 1, sizeof *f.flow);
    f.avail = sn_xmalloc((size_t) m + 1);
    f.seen = sn_xcalloc((size_t) n + d, sizeof *f.seen);
    f.via = sn_xmalloc(((size_t) n + d) * sizeof *f.via);
    f.queue = sn_xmalloc(((size_t) n + d) * sizeof *f.queue);
    f.zto = sn_xmalloc(((size_t) d + 1) * sizeof *f.zto);
    f.cnt = sn_xmalloc(((size_t) d + 1) * sizeof *f.cnt);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t a = t->port_off[u]; a < t->port_off[u + 1]; a++)
            f.rev[a] = t->port_off[t->ports[a].peer] + t->ports[a].rport;
    memset(f.avail, 1, m);
    f.dist = sn_xmalloc(((size_t) n + 1) * sizeof *f.dist);
    for (uint32_t v = 0; v < n; v++)
        f.dist[v] = NONE;
    f.dist[root] = 0;
    f.queue[0] = root;
    for (uint32_t head = 0, tail = 1; head < tail; head++)
        for (uint32_t a = t->port_off[f.queue[head]]; a < t->port_off[f.queue[head] + 1]; a++)
            if (f.dist[t->ports[a].peer] == NONE) {
                f.dist[t->ports[a].peer] = f.dist[f.queue[head]] + 1;
                f.queue[tail++] = t->ports[a].peer;
            }
    /* k: the least max-flow from the root (at most its degree) */
    uint32_t k = d;
    for (uint32_t v = 0; v < n && k > 0; v++)
        if (v != root)
            k = flow_upto(&f, root, v, NONE, k);
    *out = (sn_arbor_t){.k = k, .n = n};
    uint8_t *in = NULL;
    if (k == 0 && n > 1) {
        rc = sn_err_set(err, SN_EALGO, "%s: %s is not connected", name, t->spec);
        goto done;
    }
    /* every variant (the two modes, with and without fwd, the port scans rotated 0 ..
     * SN_ARBOR_VARIANTS / 4 - 1): the
     * one whose trees carry M packets in the fewest slots, then the least sum of heights, then
     * the first */
    sn_arbor_t best, trial;
    uint64_t best_T = UINT64_MAX, best_sum = UINT64_MAX;
    in = sn_xmalloc((size_t) k * n + 1);
    arbor_alloc(&best, k, n);
    arbor_alloc(&trial, k, n);
    f.a = &trial;
    for (uint32_t v = 0; v < SN_ARBOR_VARIANTS && rc == 0; v++) {
        if (grow_trees(&f, &trial, root, in, (int) (v % 2), v / 4, (int) (v / 2 % 2)) < 0) {
            /* Lovász's lemma says this cannot happen: a bug, not an input */
            rc =
                sn_err_set(err, SN_EALGO, "%s: a tree of %u stopped short on %s", name, k, t->spec);
            break;
        }
        uint64_t T = sn_arbor_deal(&trial, M, NULL), sum = 0;
        for (uint32_t j = 0; j < k; j++)
            sum += trial.height[j];
        if (T < best_T || (T == best_T && sum < best_sum)) {
            sn_arbor_t tmp = best;
            best = trial, trial = tmp;
            f.a = &trial;
            best_T = T, best_sum = sum;
        }
    }
    sn_arbor_free(&trial);
    if (rc == 0)
        *out = best;
    else
        sn_arbor_free(&best);
done:
    free(f.rev);
    free(f.flow);
    free(f.avail);
    free(f.seen);
    free(f.via);
    free(f.queue);
    free(f.zto);
    free(f.cnt);
    free(f.dist);
    free(in);
    return rc;
}

void sn_arbor_free(sn_arbor_t *a)
{
    free(a->parent);
    free(a->pport);
    free(a->depth);
    free(a->order);
    free(a->height);
    *a = (sn_arbor_t){0};
}
