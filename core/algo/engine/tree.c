/* Spanning trees for the tree algorithms (core/algo): a BFS tree (shortest paths from the root) and
 * a balanced tree for multiport scattering (thesis section 3.4, Theorem 3.7: the time is the
 * largest root subtree, so the root subtrees should hold about (n-1)/deg(root) processors each). */
#include <stdlib.h>
#include <string.h>

#include "core/algo/engine/tree.h"
#include "stepnet/util.h"

sn_tree_t *sn__tree_alloc(const sn_topo_t *t, uint32_t root)
{
    sn_tree_t *tr = sn_xcalloc(1, sizeof *tr);
    tr->n = t->n;
    tr->root = root;
    tr->parent = sn_xmalloc((size_t) t->n * sizeof *tr->parent);
    tr->up_port = sn_xcalloc(t->n, sizeof *tr->up_port);
    for (uint32_t i = 0; i < t->n; i++)
        tr->parent[i] = UINT32_MAX;
    return tr;
}

int sn__tree_set_parent(const sn_topo_t *t, sn_tree_t *tr, uint32_t u, uint32_t parent)
{
    uint32_t first = 0, count = 0;
    sn_topo_ports_to(t, u, parent, &first, &count);
    if (count == 0)
        return -1;
    tr->parent[u] = parent;
    tr->up_port[u] = first;
    return 0;
}

/* From parent/up_port: children lists, depths, pre-order intervals and processor counts. */
int sn__tree_finish(const sn_topo_t *t, sn_tree_t *tr)
{
    uint32_t n = t->n;
    for (uint32_t u = 0; u < n; u++)
        if (u != tr->root &&
            (tr->parent[u] >= n || tr->parent[u] == u || tr->up_port[u] >= sn_topo_degree(t, u) ||
             sn_topo_port(t, u, tr->up_port[u])->peer != tr->parent[u]))
            return SN_EALGO; /* no parent, or up_port does not lead to it */
    tr->child_off = sn_xcalloc((size_t) n + 1, sizeof *tr->child_off);
    tr->child = sn_xmalloc((size_t) (n ? n : 1) * sizeof *tr->child);
    tr->child_port = sn_xmalloc((size_t) (n ? n : 1) * sizeof *tr->child_port);
    for (uint32_t u = 0; u < n; u++)
        if (u != tr->root)
            tr->child_off[tr->parent[u] + 1]++;
    for (uint32_t u = 0; u < n; u++)
        tr->child_off[u + 1] += tr->child_off[u];
    /* Fill by scanning each parent's ports in order, so children come in port order; the exact
     * edge is matched (parent port's rport is the child's up port) to respect parallel links. */
    for (uint32_t u = 0; u < n; u++) {
        uint32_t k = tr->child_off[u], deg = sn_topo_degree(t, u);
        for (uint32_t q = 0; q < deg; q++) {
            const sn_port_t *pp = sn_topo_port(t, u, q);
            uint32_t c = pp->peer;
            if (c != tr->root && tr->parent[c] == u && tr->up_port[c] == pp->rport) {
                tr->child[k] = c;
                tr->child_port[k] = q;
                k++;
            }
        }
    }
    /* pre-order by an explicit stack; depth on the way */
    tr->depth = sn_xmalloc((size_t) n * sizeof *tr->depth);
    tr->pin = sn_xmalloc((size_t) n * sizeof *tr->pin);
    tr->pout = sn_xmalloc((size_t) n * sizeof *tr->pout);
    tr->nproc = sn_xcalloc(n, sizeof *tr->nproc);
    uint32_t *order = sn_xmalloc((size_t) n * sizeof *order);
    uint32_t *stack = sn_xmalloc((size_t) n * sizeof *stack);
    uint32_t sp = 0, idx = 0;
    stack[sp++] = tr->root;
    tr->depth[tr->root] = 0;
    while (sp > 0) {
        uint32_t u = stack[--sp];
        tr->pin[u] = idx;
        order[idx++] = u;
        /* push children in reverse so the first child is visited first */
        for (uint32_t k = tr->child_off[u + 1]; k-- > tr->child_off[u];) {
            uint32_t c = tr->child[k];
            tr->depth[c] = tr->depth[u] + 1;
            stack[sp++] = c;
        }
    }
    if (idx != n) { /* a cycle: some nodes are not below the root */
        free(order);
        free(stack);
        return SN_EALGO;
    }
    tr->child_pin = sn_xmalloc((size_t) (n ? n : 1) * sizeof *tr->child_pin);
    for (uint32_t k = 0; k + 1 < n; k++)
        tr->child_pin[k] = tr->pin[tr->child[k]];
    uint32_t *size = stack; /* reuse: subtree sizes */
    for (uint32_t i = 0; i < n; i++)
        size[i] = 1;
    tr->height = 0;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t u = order[i];
        if (sn_topo_is_proc(t, u)) {
            tr->nproc[u]++;
            if (tr->depth[u] > tr->height)
                tr->height = tr->depth[u];
        }
        if (u != tr->root) {
            size[tr->parent[u]] += size[u];
            tr->nproc[tr->parent[u]] += tr->nproc[u];
        }
    }
    for (uint32_t u = 0; u < n; u++)
        tr->pout[u] = tr->pin[u] + size[u];
    free(order);
    free(stack);
    return 0;
}

sn_tree_t *sn__tree_bfs(const sn_topo_t *t, uint32_t root)
{
    sn_tree_t *tr = sn__tree_alloc(t, root);
    uint32_t *queue = sn_xmalloc((size_t) t->n * sizeof *queue);
    uint8_t *seen = sn_xcalloc(t->n, 1);
    uint32_t head = 0, tail = 0;
    queue[tail++] = root;
    seen[root] = 1;
    while (head < tail) {
        uint32_t u = queue[head++];
        uint32_t deg = sn_topo_degree(t, u);
        for (uint32_t q = 0; q < deg; q++) {
            const sn_port_t *pp = sn_topo_port(t, u, q);
            if (!seen[pp->peer]) {
                seen[pp->peer] = 1;
                tr->parent[pp->peer] = u;
                tr->up_port[pp->peer] = pp->rport;
                queue[tail++] = pp->peer;
            }
        }
    }
    free(queue);
    free(seen);
    (void) sn__tree_finish(t, tr); /* a BFS tree always is one */
    return tr;
}

/* ---- balanced tree ----------------------------------------------------------------------------
 */

typedef struct {
    uint32_t x, y, xport, next; /* candidate x, reached from y, x's port towards y */
} cand_t;

typedef struct {
    uint64_t key; /* weight << 32 | region */
} rkey_t;

static void rheap_push(rkey_t **h, size_t *n, size_t *cap, uint64_t key)
{
    sn_grow((void **) h, cap, *n + 1, sizeof **h);
    size_t i = (*n)++;
    while (i > 0 && (*h)[(i - 1) / 2].key > key) {
        (*h)[i] = (*h)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*h)[i].key = key;
}

static uint64_t rheap_pop(rkey_t *h, size_t *n)
{
    uint64_t top = h[0].key, last = h[--*n].key;
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].key < h[c].key)
            c++;
        if (h[c].key >= last)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i].key = last;
    return top;
}

typedef struct {
    const sn_topo_t *t;
    sn_tree_t *tr;
    uint32_t *head, *tail; /* per region: FIFO of candidates (indices into pool) */
    uint32_t *weight;      /* per region: processors claimed */
    uint32_t *region;      /* per node: its region (UINT32_MAX for the root) */
    uint8_t *claimed;
    cand_t *pool;
    size_t npool, cappool;
} grow_t;

/* Claims x (reached from y, x's port towards y is xport) for region r and queues its unclaimed
 * neighbours at the tail of r's FIFO, so that each region grows breadth-first. */
static void claim(grow_t *g, uint32_t x, uint32_t y, uint32_t xport, uint32_t r)
{
    g->claimed[x] = 1;
    g->region[x] = r;
    g->tr->parent[x] = y;
    g->tr->up_port[x] = xport;
    g->weight[r] += sn_topo_is_proc(g->t, x);
    uint32_t dx = sn_topo_degree(g->t, x);
    for (uint32_t q = 0; q < dx; q++) {
        const sn_port_t *pp = sn_topo_port(g->t, x, q);
        if (g->claimed[pp->peer])
            continue;
        sn_grow((void **) &g->pool, &g->cappool, g->npool + 1, sizeof *g->pool);
        uint32_t i = (uint32_t) g->npool++;
        g->pool[i] = (cand_t){pp->peer, x, pp->rport, UINT32_MAX};
        if (g->head[r] == UINT32_MAX)
            g->head[r] = i;
        else
            g->pool[g->tail[r]].next = i;
        g->tail[r] = i;
    }
}

/* Local improvement after the growth. A leaf processor x of region A next to a node y of region B
 * can hang under y (A shrinks by one, B grows by one, both stay trees). Greedy growth can strand
 * a region behind its neighbours (odd tori): while a heaviest region H reaches, through a chain of
 * such moves H -> B1 -> ... -> L, a region L at least two lighter, the chain is applied from its
 * end (each region on the way gives one leaf and takes one), so H shrinks and L grows by one.
 * Bounded: at most 64 regions are considered and 4096 chains applied. */
typedef struct {
    uint32_t x, y, q; /* leaf x (of region A) can move under y (of region B) via x's port q */
    int ok;
} witness_t;

static void rebalance(grow_t *g, uint32_t root, uint32_t nreg)
{
    const sn_topo_t *t = g->t;
    sn_tree_t *tr = g->tr;
    uint32_t n = t->n;
    if (nreg < 2 || nreg > 64)
        return;
    uint32_t *nchild = sn_xcalloc(n, sizeof *nchild);
    witness_t *w = sn_xmalloc((size_t) nreg * nreg * sizeof *w);
    uint32_t from[64], queue[64];
    for (uint32_t u = 0; u < n; u++)
        if (u != root && tr->parent[u] != UINT32_MAX)
            nchild[tr->parent[u]]++;
    for (uint32_t iter = 0; iter < 4096; iter++) {
        /* the moves available now, one witness per ordered pair of regions */
        for (size_t i = 0; i < (size_t) nreg * nreg; i++)
            w[i].ok = 0;
        for (uint32_t x = 0; x < n; x++) {
            uint32_t rx = g->region[x];
            if (rx == UINT32_MAX || nchild[x] != 0 || tr->parent[x] == root ||
                !sn_topo_is_proc(t, x))
                continue;
            uint32_t deg = sn_topo_degree(t, x);
            for (uint32_t q = 0; q < deg; q++) {
                uint32_t y = sn_topo_port(t, x, q)->peer, ry = g->region[y];
                if (ry == UINT32_MAX || ry == rx || w[rx * nreg + ry].ok)
                    continue;
                w[rx * nreg + ry] = (witness_t){x, y, q, 1};
            }
        }
        uint32_t wmax = 0, h = 0;
        for (uint32_t r = 0; r < nreg; r++)
            if (g->weight[r] > wmax)
                wmax = g->weight[r], h = r;
        /* breadth-first over regions from h to the nearest region two lighter */
        for (uint32_t r = 0; r < nreg; r++)
            from[r] = UINT32_MAX;
        uint32_t qh = 0, qt = 0, target = UINT32_MAX;
        from[h] = h;
        queue[qt++] = h;
        while (qh < qt && target == UINT32_MAX) {
            uint32_t a = queue[qh++];
            for (uint32_t b = 0; b < nreg; b++) {
                if (from[b] != UINT32_MAX || !w[a * nreg + b].ok)
                    continue;
                from[b] = a;
                if (g->weight[b] + 2 <= wmax) {
                    target = b;
                    break;
                }
                queue[qt++] = b;
            }
        }
        if (target == UINT32_MAX)
            break;
        /* apply the chain from its end; stop at a witness that an earlier move invalidated */
        for (uint32_t b = target; b != h;) {
            uint32_t a = from[b];
            witness_t m = w[a * nreg + b];
            if (g->region[m.x] != a || nchild[m.x] != 0 || g->region[m.y] != b)
                break;
            nchild[tr->parent[m.x]]--;
            nchild[m.y]++;
            tr->parent[m.x] = m.y;
            tr->up_port[m.x] = m.q;
            g->region[m.x] = b;
            g->weight[a] -= sn_topo_is_proc(t, m.x);
            g->weight[b] += sn_topo_is_proc(t, m.x);
            b = a;
        }
    }
    free(nchild);
    free(w);
}

sn_tree_t *sn__tree_balanced(const sn_topo_t *t, uint32_t root)
{
    grow_t g = {0};
    g.t = t;
    g.tr = sn__tree_alloc(t, root);
    uint32_t deg = sn_topo_degree(t, root);
    g.head = sn_xmalloc((deg + 1) * sizeof *g.head);
    g.tail = sn_xmalloc((deg + 1) * sizeof *g.tail);
    g.weight = sn_xcalloc(deg + 1, sizeof *g.weight);
    g.claimed = sn_xcalloc(t->n, 1);
    g.region = sn_xmalloc((size_t) t->n * sizeof *g.region);
    for (uint32_t u = 0; u < t->n; u++)
        g.region[u] = UINT32_MAX;
    rkey_t *heap = NULL;
    size_t nheap = 0, capheap = 0;
    g.claimed[root] = 1;
    uint32_t nreg = 0;
    for (uint32_t q = 0; q < deg; q++) {
        const sn_port_t *pp = sn_topo_port(t, root, q);
        if (g.claimed[pp->peer])
            continue;
        uint32_t r = nreg++;
        g.head[r] = g.tail[r] = UINT32_MAX;
        claim(&g, pp->peer, root, pp->rport, r);
        rheap_push(&heap, &nheap, &capheap, ((uint64_t) g.weight[r] << 32) | r);
    }
    /* The region with the fewest processors (then the lowest index) grows next. */
    while (nheap > 0) {
        uint64_t key = rheap_pop(heap, &nheap);
        uint32_t r = (uint32_t) key, w = (uint32_t) (key >> 32);
        if (w != g.weight[r])
            continue; /* stale */
        while (g.head[r] != UINT32_MAX && g.claimed[g.pool[g.head[r]].x])
            g.head[r] = g.pool[g.head[r]].next;
        if (g.head[r] == UINT32_MAX)
            continue; /* this region cannot grow any more */
        cand_t c = g.pool[g.head[r]];
        g.head[r] = c.next;
        claim(&g, c.x, c.y, c.xport, r);
        rheap_push(&heap, &nheap, &capheap, ((uint64_t) g.weight[r] << 32) | r);
    }
    rebalance(&g, root, nreg);
    free(g.head);
    free(g.tail);
    free(g.weight);
    free(g.region);
    free(g.claimed);
    free(g.pool);
    free(heap);
    (void) sn__tree_finish(t, g.tr); /* grown from the root: always a tree */
    return g.tr;
}

void sn__tree_free(sn_tree_t *tr)
{
    if (tr == NULL)
        return;
    free(tr->parent);
    free(tr->up_port);
    free(tr->depth);
    free(tr->child_off);
    free(tr->child);
    free(tr->child_port);
    free(tr->child_pin);
    free(tr->pin);
    free(tr->pout);
    free(tr->nproc);
    free(tr);
}

uint32_t sn__tree_child_towards(const sn_tree_t *tr, uint32_t u, uint32_t x)
{
    uint32_t lo = tr->child_off[u], hi = tr->child_off[u + 1];
    uint32_t px = tr->pin[x];
    /* children's pin values increase along child[]: the last child with pin <= px */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tr->child_pin[mid] <= px)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
